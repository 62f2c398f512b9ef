//! The Python exceptions and warnings, and the crate's error enum.

use pyo3::exceptions::{PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use toolnorm_adapters::Diagnostic as RustDiagnostic;

use crate::values::{Diagnostic, Stats};

pyo3::create_exception!(
    toolnorm,
    ToolnormError,
    PyValueError,
    "Base of toolnorm's errors (a `ValueError`)."
);
pyo3::create_exception!(
    toolnorm,
    OptionError,
    ToolnormError,
    "An option that cannot be used: an unknown provider, a rules or redaction file that \
     cannot be read or parsed, a bad `KIND=REGEX`."
);
pyo3::create_exception!(
    toolnorm,
    InputError,
    ToolnormError,
    "The input had diagnostics the options deny (errors with `strict=True`, notices too \
     with `deny_unknown=True`). `diagnostics` holds every diagnostic with its line \
     number, `stats` the line counts, and `parts` (from `normalize`) or `updates` (from \
     `Normalizer.push` and `finish`) what was read all the same."
);
pyo3::create_exception!(
    toolnorm,
    UnrecognizedInputError,
    InputError,
    "No line of the input is an event of a dialect toolnorm reads (the dialect detected, \
     none named with `provider=`)."
);
pyo3::create_exception!(
    toolnorm,
    DiagnosticWarning,
    PyUserWarning,
    "A diagnostic the options do not deny, issued as a warning (`warnings`); its \
     `diagnostic` attribute is the `Diagnostic`."
);

/// What goes wrong in the binding itself.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// An option cannot be used.
    #[error("{0}")]
    Option(String),
    /// The normalizer was used after `finish`.
    #[error("the normalizer is finished: make a new one for another stream")]
    Finished,
    /// A part did not serialize (never: its keys are strings).
    #[error("{0}")]
    Part(String),
    /// A thread panicked while holding the normalizer.
    #[error("the normalizer is unusable: a thread failed while using it")]
    Poisoned,
    /// The thread reading a stream for `normalize` panicked.
    #[error("reading the stream failed: its thread stopped unexpectedly")]
    Reader,
}

impl From<Error> for PyErr {
    fn from(error: Error) -> Self {
        match error {
            Error::Option(message) => OptionError::new_err(message),
            Error::Finished | Error::Poisoned | Error::Part(_) | Error::Reader => {
                PyRuntimeError::new_err(error.to_string())
            }
        }
    }
}

/// How many diagnostics an exception's message lists (all are in `diagnostics`).
const LISTED: usize = 20;

/// Whether `strict` and `deny_unknown` deny `diagnostic`.
pub(crate) fn denied(diagnostic: &RustDiagnostic, strict: bool, deny_unknown: bool) -> bool {
    deny_unknown || (strict && diagnostic.is_error())
}

/// The `InputError` for `diagnostics`, with what was read all the same under `read_as`
/// (`parts` or `updates`).
pub(crate) fn input_error(
    py: Python<'_>,
    diagnostics: &[RustDiagnostic],
    stats: Stats,
    read_as: &str,
    read: Bound<'_, PyList>,
) -> PyResult<PyErr> {
    let mut message: Vec<String> = diagnostics
        .iter()
        .take(LISTED)
        .map(ToString::to_string)
        .collect();
    if diagnostics.len() > LISTED {
        message.push(format!("… and {} more", diagnostics.len() - LISTED));
    }
    message.push(stats.to_string());
    let error = InputError::new_err(message.join("\n"));
    let value = error.value(py);
    value.setattr("diagnostics", diagnostic_list(py, diagnostics)?)?;
    value.setattr("stats", stats)?;
    value.setattr(read_as, read)?;
    Ok(error)
}

/// The `UnrecognizedInputError` with `message`.
pub(crate) fn unrecognized_error(py: Python<'_>, message: String, stats: Stats) -> PyResult<PyErr> {
    let error = UnrecognizedInputError::new_err(message);
    let value = error.value(py);
    value.setattr("diagnostics", PyList::empty(py))?;
    value.setattr("stats", stats)?;
    Ok(error)
}

/// Issues each diagnostic as a `DiagnosticWarning`.
pub(crate) fn warn(py: Python<'_>, diagnostics: &[RustDiagnostic]) -> PyResult<()> {
    if diagnostics.is_empty() {
        return Ok(());
    }
    let warn = py.import("warnings")?.getattr("warn")?;
    let category = py.get_type::<DiagnosticWarning>();
    for diagnostic in diagnostics {
        let warning = category.call1((diagnostic.to_string(),))?;
        warning.setattr("diagnostic", Diagnostic::from(diagnostic))?;
        warn.call1((warning,))?;
    }
    Ok(())
}

/// `diagnostics` as a list of `Diagnostic`.
pub(crate) fn diagnostic_list<'py>(
    py: Python<'py>,
    diagnostics: &[RustDiagnostic],
) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, diagnostics.iter().map(Diagnostic::from))
}
