//! One run of the normalizer: input in, the steps written as JSON text by the library's
//! [`Writer`] (as `toolnorm normalize` writes them) and the diagnostics collected.

use toolnorm_adapters::{Diagnostic, Format, Normalizer, NormalizerBuilder, Step, Writer};

use crate::Error;

/// What a call gave: the parts (or part snapshots) as one JSON array, and the
/// diagnostics, in input order.
pub(crate) struct Output {
    /// `[part,part,…]`: the lines the command writes, joined by commas.
    pub json: String,
    /// The diagnostics reported.
    pub diagnostics: Vec<Diagnostic>,
}

/// A normalizer with what it has written since the last [`Output`].
pub(crate) struct Run {
    normalizer: Normalizer,
    /// `Parts` or `Updates`: formats whose writer keeps no state between steps, so one is
    /// made for each call over the run's buffer.
    format: Format,
    lines: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
    /// The first error writing a step.
    error: Option<std::io::Error>,
    finished: bool,
}

impl Run {
    /// A run writing `format` (`Parts` or `Updates`).
    pub(crate) fn new(builder: NormalizerBuilder, format: Format) -> Self {
        Run {
            normalizer: builder.build(),
            format,
            lines: Vec::new(),
            diagnostics: Vec::new(),
            error: None,
            finished: false,
        }
    }

    /// Feeds a chunk (cut anywhere); what its complete lines gave.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Output, Error> {
        self.feed(chunk)?;
        self.take()
    }

    /// Ends the input: a last line without newline, what the adapter held, and in
    /// `parts` the calls still open.
    pub(crate) fn finish(&mut self) -> Result<Output, Error> {
        self.end()?;
        self.take()
    }

    /// Reads all of `data` and ends the input.
    pub(crate) fn whole(&mut self, data: &[u8]) -> Result<Output, Error> {
        self.feed(data)?;
        self.end()?;
        self.take()
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        let Run {
            normalizer,
            format,
            lines,
            diagnostics,
            error,
            ..
        } = self;
        let mut writer = Writer::new(*format, &mut *lines);
        normalizer.push(chunk, &mut |step| {
            collect(&mut writer, diagnostics, error, step)
        });
        Ok(())
    }

    fn end(&mut self) -> Result<(), Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        self.finished = true;
        let Run {
            normalizer,
            format,
            lines,
            diagnostics,
            error,
            ..
        } = self;
        let mut writer = Writer::new(*format, &mut *lines);
        normalizer.finish(&mut |step| collect(&mut writer, diagnostics, error, step));
        if error.is_none() {
            writer.finish(normalizer.fold())?;
        }
        Ok(())
    }

    /// The normalizer (its dialect and counts).
    pub(crate) fn normalizer(&self) -> &Normalizer {
        &self.normalizer
    }

    /// What was written and reported since the last call.
    fn take(&mut self) -> Result<Output, Error> {
        if let Some(error) = self.error.take() {
            return Err(Error::Write(error));
        }
        let json = json_array(&self.lines)?;
        self.lines.clear();
        Ok(Output {
            json,
            diagnostics: std::mem::take(&mut self.diagnostics),
        })
    }
}

/// Writes one step and keeps its diagnostic.
fn collect(
    writer: &mut Writer<&mut Vec<u8>>,
    diagnostics: &mut Vec<Diagnostic>,
    error: &mut Option<std::io::Error>,
    step: Step<'_>,
) {
    if let Step::Diagnostic(diagnostic) = &step {
        diagnostics.push((*diagnostic).clone());
    }
    if error.is_none()
        && let Err(failed) = writer.step(&step)
    {
        *error = Some(failed);
    }
}

/// JSON lines as one JSON array: each line is one JSON value and holds no raw newline
/// (JSON escapes it in strings), so the newlines between them become commas.
fn json_array(lines: &[u8]) -> Result<String, Error> {
    let mut array = Vec::with_capacity(lines.len() + 2);
    array.push(b'[');
    array.extend_from_slice(lines.strip_suffix(b"\n").unwrap_or(lines));
    for byte in &mut array {
        if *byte == b'\n' {
            *byte = b',';
        }
    }
    array.push(b']');
    Ok(String::from_utf8(array)?)
}
