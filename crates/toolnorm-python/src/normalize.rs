//! `toolnorm.normalize`: a whole stream in, its parts out, as
//! `toolnorm normalize --format parts` writes them.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyList;

use crate::collect::{Collect, Collector, Ending};
use crate::error::{self, Error, denied};
use crate::options::Options;
use crate::values::{Stats, part_list};

/// A stream: bytes, a bytearray (copied) or a str.
#[derive(FromPyObject)]
pub(crate) enum Input {
    Bytes(PyBackedBytes),
    Str(PyBackedStr),
}

impl AsRef<[u8]> for Input {
    fn as_ref(&self) -> &[u8] {
        match self {
            Input::Bytes(bytes) => bytes.as_ref(),
            Input::Str(text) => text.as_bytes(),
        }
    }
}

/// Normalizes a whole stream (JSON Lines of a provider's events) into its parts.
///
/// Returns the parts as dicts, one per call, in the order `toolnorm normalize --format
/// parts` writes them: each call when it is terminal, the calls still open at the end
/// last. The GIL is released while the stream is read.
#[pyfunction]
#[pyo3(signature = (
    data, /, *, provider = "auto".to_owned(), rules = None,
    output_cap = None, mcp_servers = Vec::new(), cwd = None,
    redact = false, redact_patterns = None, redact_pattern = Vec::new(), source = None,
    strict = true, deny_unknown = false,
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn normalize<'py>(
    py: Python<'py>,
    data: Input,
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
) -> PyResult<Bound<'py, PyList>> {
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
    let builder = options.builder()?;
    let (ending, taken, stats) = py.detach(|| {
        let mut normalizer = builder.build();
        let mut collector = Collector::new(Collect::Parts);
        // In chunks, as the command reads: detection releases the held diagnostics
        // between chunks, so their order is the command's.
        for chunk in data.as_ref().chunks(1 << 16) {
            collector.push(&mut normalizer, chunk);
        }
        let ending = collector.finish(&mut normalizer);
        (ending, collector.take(), Stats::from(normalizer.stats()))
    });
    let (parts, diagnostics) = taken.map_err(Error::Part)?;
    if let Ending::Unrecognized(message) = ending {
        return Err(error::unrecognized_error(py, message, stats)?);
    }
    let parts = part_list(py, &parts)?;
    if diagnostics
        .iter()
        .any(|diagnostic| denied(diagnostic, strict, deny_unknown))
    {
        return Err(error::input_error(py, &diagnostics, stats, "parts", parts)?);
    }
    error::warn(py, &diagnostics)?;
    Ok(parts)
}
