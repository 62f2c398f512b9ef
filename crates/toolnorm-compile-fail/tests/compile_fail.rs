//! Illegal lifecycle uses do not compile, and the compiler says which rule they break.
//!
//! The `.stderr` files were made with rustc 1.95.0; other compiler versions may word
//! the messages differently (`TRYBUILD=overwrite cargo test -p toolnorm-compile-fail` to refresh).

#[test]
fn illegal_lifecycle_uses_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
