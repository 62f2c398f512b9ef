//! `toolnorm.Normalizer`: a stream fed in chunks, each push giving the updates its
//! lines made (as `toolnorm normalize --format updates` writes them).

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyList;
use toolnorm_adapters::{Diagnostic as RustDiagnostic, Format};

use crate::collect::{Collector, Ending};
use crate::error::{self, Error, denied};
use crate::normalize::Input;
use crate::options::Options;
use crate::values::{Diagnostic, Stats, part_list};

/// Normalizes one stream fed in chunks cut anywhere: `push(chunk)` returns the updates
/// (part snapshots, one per change) of the lines the chunk completed, `finish()` those
/// of the end of the input. The GIL is released while a chunk is read.
#[pyclass(module = "toolnorm", frozen)]
pub(crate) struct Normalizer {
    state: Mutex<State>,
    strict: bool,
    deny_unknown: bool,
}

struct State {
    collector: Collector,
    /// Every diagnostic so far, in order.
    diagnostics: Vec<RustDiagnostic>,
    finished: bool,
}

/// What one push or the finish gave.
struct Read {
    /// A JSON array's text.
    updates: Vec<u8>,
    diagnostics: Vec<RustDiagnostic>,
    stats: Stats,
    ending: Ending,
}

impl State {
    /// Reads `chunk`, or the end of the input when it is `None`.
    fn read(&mut self, chunk: Option<&[u8]>) -> Result<Read, Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        let ending = match chunk {
            Some(chunk) => {
                self.collector.push(chunk);
                Ending::Read
            }
            None => {
                self.finished = true;
                self.collector.finish()
            }
        };
        let (updates, diagnostics) = self.collector.take().map_err(Error::Part)?;
        self.diagnostics.extend(diagnostics.iter().cloned());
        Ok(Read {
            updates,
            diagnostics,
            stats: Stats::from(self.collector.normalizer().stats()),
            ending,
        })
    }
}

impl Normalizer {
    fn lock(&self) -> Result<MutexGuard<'_, State>, Error> {
        self.state.lock().map_err(|_| Error::Poisoned)
    }

    /// Reads a chunk (or the end) without the GIL, then hands the updates to Python.
    fn read<'py>(&self, py: Python<'py>, chunk: Option<&[u8]>) -> PyResult<Bound<'py, PyList>> {
        // The lock is taken without the GIL: a thread waiting for it holds no GIL that
        // the one holding it needs back.
        let read = py.detach(|| self.lock().and_then(|mut state| state.read(chunk)))?;
        if let Ending::Unrecognized(message) = read.ending {
            return Err(error::unrecognized_error(py, message, read.stats)?);
        }
        let updates = part_list(py, &read.updates)?;
        if read
            .diagnostics
            .iter()
            .any(|diagnostic| denied(diagnostic, self.strict, self.deny_unknown))
        {
            return Err(error::input_error(
                py,
                &read.diagnostics,
                read.stats,
                "updates",
                updates,
            )?);
        }
        error::warn(py, &read.diagnostics)?;
        Ok(updates)
    }
}

#[pymethods]
impl Normalizer {
    #[new]
    #[pyo3(signature = (
        *, provider = "auto".to_owned(), rules = None,
        output_cap = None, mcp_servers = Vec::new(), cwd = None,
        redact = false, redact_patterns = None, redact_pattern = Vec::new(), source = None,
        strict = true, deny_unknown = false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        provider: String,
        rules: Option<PathBuf>,
        output_cap: Option<usize>,
        mcp_servers: Vec<String>,
        cwd: Option<String>,
        redact: bool,
        redact_patterns: Option<PathBuf>,
        redact_pattern: Vec<String>,
        source: Option<String>,
        strict: bool,
        deny_unknown: bool,
    ) -> PyResult<Self> {
        let options = Options {
            provider,
            rules,
            output_cap,
            mcp_servers,
            cwd,
            redact,
            redact_patterns,
            redact_pattern,
            source,
        };
        Ok(Normalizer {
            state: Mutex::new(State {
                collector: Collector::new(options.builder()?.build(), Format::Updates),
                diagnostics: Vec::new(),
                finished: false,
            }),
            strict,
            deny_unknown,
        })
    }

    /// Feeds a chunk of the stream (cut anywhere); returns the updates of the lines it
    /// completed.
    fn push<'py>(&self, py: Python<'py>, chunk: Input) -> PyResult<Bound<'py, PyList>> {
        self.read(py, Some(chunk.as_ref()))
    }

    /// Ends the stream: reads a last line without newline and flushes detection and the
    /// reader; returns the last updates.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.read(py, None)
    }

    /// The dialect, once known (`claude-code`, `codex-exec`, …).
    #[getter]
    fn dialect(&self) -> PyResult<Option<&'static str>> {
        Ok(self
            .lock()?
            .collector
            .normalizer()
            .dialect()
            .map(|dialect| dialect.as_str()))
    }

    /// The line counts so far.
    #[getter]
    fn stats(&self) -> PyResult<Stats> {
        Ok(Stats::from(self.lock()?.collector.normalizer().stats()))
    }

    /// Every diagnostic so far, in input order.
    #[getter]
    fn diagnostics(&self) -> PyResult<Vec<Diagnostic>> {
        Ok(self
            .lock()?
            .diagnostics
            .iter()
            .map(Diagnostic::from)
            .collect())
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self) -> PyResult<bool> {
        Ok(self.lock()?.finished)
    }
}
