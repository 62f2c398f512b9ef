//! The Python bindings of toolnorm: the extension module `toolnorm._toolnorm`, which
//! the Python package `toolnorm` re-exports (`python/toolnorm`).
//!
//! `normalize(data, …)` reads a whole stream into its parts, as
//! `toolnorm normalize --format parts` does; `Normalizer` reads one in chunks, each
//! `push` giving its updates, as `--format updates` does. Both take the command's
//! reading options and release the GIL while they read. Diagnostics are `Diagnostic`s
//! with their line numbers: the ones the options deny raise `InputError`, the others
//! are issued as `DiagnosticWarning`s.
//!
//! The package's guide is the book's [Python package](https://github.com/toolnorm/toolnorm/blob/main/docs/src/bindings/python.md) page.
#![deny(missing_docs)]

mod collect;
mod error;
mod normalize;
mod normalizer;
mod options;
mod values;

use pyo3::prelude::*;
use toolnorm_adapters::Dialect;

/// mimalloc, as in the command: the normalizer allocates many small, short-lived values
/// per line, where it is markedly faster than the system allocator. Only the extension's
/// own Rust code allocates with it; what Python gets is Python's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The extension module.
#[pymodule]
fn _toolnorm(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_function(wrap_pyfunction!(normalize::normalize, module)?)?;
    module.add_class::<normalizer::Normalizer>()?;
    module.add_class::<values::Diagnostic>()?;
    module.add_class::<values::Stats>()?;
    module.add("ToolnormError", py.get_type::<error::ToolnormError>())?;
    module.add("OptionError", py.get_type::<error::OptionError>())?;
    module.add("InputError", py.get_type::<error::InputError>())?;
    module.add(
        "UnrecognizedInputError",
        py.get_type::<error::UnrecognizedInputError>(),
    )?;
    module.add(
        "DiagnosticWarning",
        py.get_type::<error::DiagnosticWarning>(),
    )?;
    let dialects: Vec<&str> = Dialect::all().map(Dialect::as_str).collect();
    module.add("DIALECTS", pyo3::types::PyTuple::new(py, dialects)?)?;
    module.add("DEFAULT_OUTPUT_CAP", toolnorm::DEFAULT_OUTPUT_CAP)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
