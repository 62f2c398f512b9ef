//! The audit copy: every input line that produced a diagnostic, verbatim.

use std::io::{self, Write};

/// Where the lines that produced a diagnostic are copied, as `N<TAB>line<LF>`.
pub(crate) struct Audit {
    out: Box<dyn Write + Send>,
    /// The last line written (a line with several diagnostics is written once).
    last: u64,
    /// The first write error.
    error: Option<io::Error>,
}

impl Audit {
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Audit {
            out,
            last: 0,
            error: None,
        }
    }

    /// Copies line `line` unless it was already copied (or writing failed before).
    pub fn write(&mut self, line: u64, bytes: &[u8]) {
        if line <= self.last || self.error.is_some() {
            return;
        }
        self.last = line;
        let result = write!(self.out, "{line}\t")
            .and_then(|()| self.out.write_all(bytes))
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(error) = result {
            self.error = Some(error);
        }
    }

    /// Flushes; the first error writing, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        match self.error.take() {
            Some(error) => Err(error),
            None => self.out.flush(),
        }
    }
}
