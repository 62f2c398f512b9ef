//! `toolnorm.normalize`: a whole stream in, its parts out, as
//! `toolnorm normalize --format parts` writes them.

use std::path::PathBuf;
use std::sync::mpsc;

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyList;

use toolnorm_adapters::{Diagnostic, Format, NormalizerBuilder, format_names};

use crate::collect::{Collector, Ending};
use crate::error::{self, Error, denied};
use crate::options::Options;
use crate::values::{Stats, extend_parts, paused_gc};

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
/// Returns the parts as dicts (or, with `format`, the lines of that format: `"otel"` gives
/// one `ExportTraceServiceRequest` dict per line), one per call, in the order `toolnorm normalize --format
/// parts` writes them: each call when it is terminal, the calls still open at the end
/// last. The GIL is released while the stream is read.
#[pyfunction]
#[pyo3(signature = (
    data, /, *, provider = "auto".to_owned(), rules = None,
    output_cap = None, mcp_servers = Vec::new(), cwd = None,
    redact = false, redact_patterns = None, redact_pattern = Vec::new(), source = None,
    strict = true, deny_unknown = false, format = "parts".to_owned(), otel_content = false,
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
    format: String,
    otel_content: bool,
) -> PyResult<Bound<'py, PyList>> {
    let format = written_format(&format, otel_content)?;
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
    let data = data.as_ref();
    let parts = PyList::empty(py);
    // The stream is read on a thread of its own, without the GIL, while this one makes
    // the parts read so far into dicts: on two cores or more, both at once.
    let read = std::thread::scope(|scope| {
        let (batches, mut received) = mpsc::sync_channel::<Vec<u8>>(BATCHES_AHEAD);
        let reader = scope.spawn(move || read(builder, data, format, batches));
        let list = &parts;
        // Takes the receiving end: a failure here drops it, which stops the reading at
        // its next batch.
        let loaded = paused_gc(py, move || {
            loop {
                let (batch, back) = py.detach(move || (received.recv(), received));
                received = back;
                let Ok(batch) = batch else { return Ok(()) };
                extend_parts(py, list, &batch)?;
            }
        });
        let read = reader.join().map_err(|_| Error::Reader);
        loaded?;
        Ok::<_, PyErr>(read?)
    })?;
    let Read {
        ending,
        diagnostics,
        stats,
    } = read.map_err(Error::Part)?;
    if let Ending::Unrecognized(message) = ending {
        return Err(error::unrecognized_error(py, message, stats)?);
    }
    if diagnostics
        .iter()
        .any(|diagnostic| denied(diagnostic, strict, deny_unknown))
    {
        return Err(error::input_error(py, &diagnostics, stats, "parts", parts)?);
    }
    error::warn(py, &diagnostics)?;
    Ok(parts)
}

/// The format `normalize` returns, and how `otel` makes its spans.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Written {
    pub(crate) format: Format,
    pub(crate) otel_content: bool,
}

/// The JSON-lines format named `name` (`parts`, `updates`, `events`, `acp`, `ai-sdk`,
/// `ag-ui`, `otel`); `otel_content` only with `otel`.
fn written_format(name: &str, otel_content: bool) -> Result<Written, Error> {
    let format = Format::from_name(name)
        .filter(|format| !format.for_people())
        .ok_or_else(|| {
            let names = format_names("", |spec| !spec.for_people);
            Error::Option(format!("format {name:?}: expected one of {names}"))
        })?;
    if otel_content && format.as_str() != "otel" {
        return Err(Error::Option(format!(
            "otel_content applies to format=\"otel\", not {name:?}"
        )));
    }
    Ok(Written {
        format,
        otel_content,
    })
}

/// Batches read ahead of Python, at most.
const BATCHES_AHEAD: usize = 2;

/// What a whole stream ended with, once its parts are handed over.
struct Read {
    ending: Ending,
    diagnostics: Vec<Diagnostic>,
    stats: Stats,
}

/// Reads `data`, sending the parts text to `batches` as it fills (a JSON array each);
/// when nothing receives them any more, stops early.
fn read(
    builder: NormalizerBuilder,
    data: &[u8],
    format: Written,
    batches: mpsc::SyncSender<Vec<u8>>,
) -> Result<Read, String> {
    let mut collector = Collector::batched(builder.build(), format, batches.clone());
    // In chunks, as the command reads: detection releases the held diagnostics between
    // chunks, so their order is the command's.
    for chunk in data.chunks(1 << 16) {
        collector.push(chunk);
        if collector.abandoned() {
            break;
        }
    }
    let ending = collector.finish();
    let (parts, diagnostics) = collector.take()?;
    // The last batch; none is sent empty.
    if parts.len() > 2 {
        let _gone = batches.send(parts);
    }
    Ok(Read {
        ending,
        diagnostics,
        stats: Stats::from(collector.normalizer().stats()),
    })
}
