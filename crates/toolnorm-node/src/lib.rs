//! Node.js bindings of toolnorm, with [napi-rs](https://napi.rs): the native addon of
//! the npm package `@toolnorm/node` (`packages/node`), which wraps it.
//!
//! The addon runs the library's normalizer as `toolnorm normalize` does (the same
//! builder settings, the same [`Writer`](toolnorm_adapters::Writer) of `--format parts`
//! or `--format updates`) and hands JavaScript the parts as JSON text, one array per
//! call (a whole stream's in batches, read on another thread while JavaScript parses the
//! last), which the package's `index.js` parses: one `JSON.parse` is much cheaper than
//! building every object through N-API, and the text is the command's byte for byte.
//!
//! | module | role |
//! | --- | --- |
//! | `api` | what JavaScript sees: `normalize`, `NativeNormalizer`, `dialects` and the shapes they take and give |
//! | `options` | the options into a [`NormalizerBuilder`](toolnorm_adapters::NormalizerBuilder), as the command's flags build it |
//! | `run` | one run of the normalizer: steps into JSON text and diagnostics |
//! | `whole` | a whole stream read on a thread of its own, its parts sent in batches |
//! | `error` | the crate's error |
//!
//! The package's guide is the book's [`@toolnorm/node`](https://github.com/toolnorm/toolnorm/blob/main/docs/src/bindings/node.md) page.
#![deny(missing_docs)]
// The crate's own code is safe; only the code `#[napi]` generates in `api` is not.
#![deny(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[allow(unsafe_code)]
mod api;
mod error;
mod options;
mod run;
mod whole;

pub use api::{
    Chunk, Diagnostic, NativeNormalizer, NormalizeOptions, NormalizeRun, Normalized, Stats,
    dialects, start_normalize,
};
pub use error::Error;

/// mimalloc, as in the command: the normalizer allocates many small, short-lived values
/// per line, where it is markedly faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
