//! The values handed to Python: parts as dicts, `Diagnostic`, `Stats`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use toolnorm_adapters::{Diagnostic as RustDiagnostic, Severity, Stats as RustStats};

/// `parts`, the text of a JSON array of parts (the command's lines joined by commas), as a
/// list of dicts by `json.loads` (in C; keys in the order of the text), with the cyclic
/// garbage collector paused meanwhile.
pub(crate) fn part_list<'py>(py: Python<'py>, parts: &[u8]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    paused_gc(py, || extend_parts(py, &list, parts))?;
    Ok(list)
}

/// Appends to `list` the parts of `parts`, the text of a JSON array of them, made into
/// dicts by `json.loads`.
pub(crate) fn extend_parts(py: Python<'_>, list: &Bound<'_, PyList>, parts: &[u8]) -> PyResult<()> {
    if parts == b"[]" {
        return Ok(());
    }
    let loaded = py
        .import("json")?
        .getattr("loads")?
        .call1((PyBytes::new(py, parts),))?;
    list.call_method1("extend", (loaded,))?;
    Ok(())
}

/// Runs `work` with Python's cyclic garbage collector paused, if it was on: it would walk
/// the growing list of dicts again and again.
pub(crate) fn paused_gc<T>(py: Python<'_>, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let gc = py.import("gc")?;
    let collecting = gc.call_method0("isenabled")?.is_truthy()?;
    if collecting {
        gc.call_method0("disable")?;
    }
    let result = work();
    if collecting {
        gc.call_method0("enable")?;
    }
    result
}

/// One problem with the input: `str()` is the line `toolnorm normalize` writes on stderr
/// (`line 7: not valid JSON …`, `line 9: notice: …`).
#[pyclass(module = "toolnorm", frozen, eq, str)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Diagnostic {
    /// The 1-based input line, when the problem is about one.
    #[pyo3(get)]
    line: Option<u64>,
    /// What kind of problem: `invalid-json`, `unknown-event`, `malformed-event`, …
    #[pyo3(get)]
    kind: String,
    /// `error` or `notice`.
    #[pyo3(get)]
    severity: String,
    /// What happened, for people.
    #[pyo3(get)]
    message: String,
}

/// The line on stderr, as [`RustDiagnostic`] shows itself.
impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if self.severity == Severity::Notice.as_str() {
            f.write_str("notice: ")?;
        }
        f.write_str(&self.message)
    }
}

#[pymethods]
impl Diagnostic {
    /// A diagnostic from its fields (as pickle makes it again).
    #[new]
    #[pyo3(signature = (line, kind, severity, message))]
    fn new(line: Option<u64>, kind: String, severity: String, message: String) -> Self {
        Diagnostic {
            line,
            kind,
            severity,
            message,
        }
    }

    fn __getnewargs__(&self) -> (Option<u64>, String, String, String) {
        (
            self.line,
            self.kind.clone(),
            self.severity.clone(),
            self.message.clone(),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(line={}, kind={:?}, severity={:?}, message={:?})",
            self.line
                .map_or_else(|| "None".to_owned(), |line| line.to_string()),
            self.kind,
            self.severity,
            self.message
        )
    }
}

impl From<&RustDiagnostic> for Diagnostic {
    fn from(diagnostic: &RustDiagnostic) -> Self {
        Diagnostic {
            line: diagnostic.line,
            kind: diagnostic.kind.as_str().to_owned(),
            severity: diagnostic.severity.as_str().to_owned(),
            message: diagnostic.message.clone(),
        }
    }
}

/// The line counts of a stream: every input line is in exactly one of `applied_lines`,
/// `known_lines`, `notice_lines` and `error_lines`. `str()` is the command's summary,
/// `N lines: A applied, K known non-tool, N notices, E errors`.
#[pyclass(module = "toolnorm", frozen, eq, str)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stats(RustStats);

impl From<RustStats> for Stats {
    fn from(stats: RustStats) -> Self {
        Stats(stats)
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[pymethods]
impl Stats {
    /// Input lines read.
    #[getter]
    fn lines(&self) -> u64 {
        self.0.lines
    }

    /// Lines that gave at least one event.
    #[getter]
    fn applied_lines(&self) -> u64 {
        self.0.applied_lines
    }

    /// Lines the dialect knows that carry no tool data.
    #[getter]
    fn known_lines(&self) -> u64 {
        self.0.known_lines
    }

    /// Lines with a notice and no error.
    #[getter]
    fn notice_lines(&self) -> u64 {
        self.0.notice_lines
    }

    /// Lines with an error.
    #[getter]
    fn error_lines(&self) -> u64 {
        self.0.error_lines
    }

    /// Canonical events produced.
    #[getter]
    fn events(&self) -> u64 {
        self.0.events
    }

    /// Events that changed a part.
    #[getter]
    fn changes(&self) -> u64 {
        self.0.changes
    }

    /// Exact duplicates.
    #[getter]
    fn duplicates(&self) -> u64 {
        self.0.duplicates
    }

    /// Diagnostics reported.
    #[getter]
    fn diagnostics(&self) -> u64 {
        self.0.diagnostics
    }

    /// Error diagnostics reported.
    #[getter]
    fn errors(&self) -> u64 {
        self.0.errors
    }

    /// Notice diagnostics reported.
    #[getter]
    fn notices(&self) -> u64 {
        self.0.notices
    }

    /// Line counts from their values, in the order of the getters (as pickle makes them
    /// again).
    #[new]
    #[pyo3(signature = (*counts))]
    fn new(counts: Vec<u64>) -> PyResult<Self> {
        let mut stats = RustStats::default();
        let fields = [
            &mut stats.lines,
            &mut stats.applied_lines,
            &mut stats.known_lines,
            &mut stats.notice_lines,
            &mut stats.error_lines,
            &mut stats.events,
            &mut stats.changes,
            &mut stats.duplicates,
            &mut stats.diagnostics,
            &mut stats.errors,
            &mut stats.notices,
        ];
        if counts.len() != fields.len() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "Stats takes {} counts, not {}",
                fields.len(),
                counts.len()
            )));
        }
        for (field, count) in fields.into_iter().zip(counts) {
            *field = count;
        }
        Ok(Stats(stats))
    }

    fn __getnewargs__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let stats = &self.0;
        let counts = [
            stats.lines,
            stats.applied_lines,
            stats.known_lines,
            stats.notice_lines,
            stats.error_lines,
            stats.events,
            stats.changes,
            stats.duplicates,
            stats.diagnostics,
            stats.errors,
            stats.notices,
        ];
        PyTuple::new(py, counts)
    }

    fn __repr__(&self) -> String {
        format!("Stats({})", self.0)
    }
}
