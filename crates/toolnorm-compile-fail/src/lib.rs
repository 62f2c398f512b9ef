//! Compile-fail proofs of `toolnorm`'s type-state lifecycle: every case under
//! `tests/ui/` is an illegal use of `ToolCall<S>` that must not compile, with the
//! compiler's message checked (`tests/compile_fail.rs`). The crate has no code of its
//! own.
//!
//! The rules they prove are in the book's [core library](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/core-library.md#lifecycle-toolcalls) page.
#![deny(missing_docs)]
