//! [`Frames`]: where the chunks (events) of a UI stream format are written, held to be
//! read back as values, or written on to an output as they are made.

use std::io::{self, Write};

use serde_json::Value;

use super::json::{Bytes, Object};
use super::ui::parse;

/// Where the chunks (events) of a UI stream format go: one JSON line each, or one
/// server-sent event each (`data: <json>` and a blank line).
///
/// Held in a buffer; when written for an output ([`Frames::spilling`]), what passes
/// [`SPILL_AT`] bytes goes on to that output as it is written, so a frame carrying a
/// huge output is never held whole.
#[derive(Default)]
pub(crate) struct Frames<'s> {
    /// The bytes written since the last [`clear`](Self::clear) (or the last spill).
    pub(crate) bytes: Vec<u8>,
    sse: bool,
    /// Where each frame written since the last clear ends (without a spill).
    ends: Vec<usize>,
    /// The output the bytes go on to once they pass [`SPILL_AT`].
    spill: Option<&'s mut dyn Write>,
    /// The first error of that output.
    failed: Option<io::Error>,
}

/// Bytes the frames hold before they go on to the output they are written for.
const SPILL_AT: usize = 64 * 1024;

impl std::fmt::Debug for Frames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frames")
            .field("bytes", &self.bytes.len())
            .field("sse", &self.sse)
            .field("spills", &self.spill.is_some())
            .finish()
    }
}

impl Frames<'static> {
    /// Frames as lines held in `buffer` (emptied first) until read back.
    pub(crate) fn held(mut buffer: Vec<u8>) -> Self {
        buffer.clear();
        Frames {
            bytes: buffer,
            ..Frames::default()
        }
    }
}

impl<'s> Frames<'s> {
    /// Frames written for `out`: into `buffer` (emptied first), and on to `out` whenever
    /// it passes [`SPILL_AT`] bytes; [`finish`](Self::finish) writes the rest.
    pub(crate) fn spilling(sse: bool, mut buffer: Vec<u8>, out: &'s mut dyn Write) -> Self {
        buffer.clear();
        Frames {
            bytes: buffer,
            sse,
            ends: Vec::new(),
            spill: Some(out),
            failed: None,
        }
    }

    /// Writes one frame: the object `fill` writes the entries of.
    pub(crate) fn object(
        &mut self,
        fill: impl FnOnce(&mut Object<'_, Self>) -> serde_json::Result<()>,
    ) -> serde_json::Result<()> {
        if self.sse {
            self.bytes.extend_from_slice(b"data: ");
        }
        let mut object = Object::open(self);
        fill(&mut object)?;
        object.close();
        self.end();
        Ok(())
    }

    /// Writes one frame that is already JSON text.
    pub(crate) fn raw(&mut self, text: &[u8]) {
        if self.sse {
            self.bytes.extend_from_slice(b"data: ");
        }
        Bytes::extend_from_slice(self, text);
        self.end();
    }

    fn end(&mut self) {
        self.bytes
            .extend_from_slice(if self.sse { b"\n\n" } else { b"\n" });
        self.ends.push(self.bytes.len());
    }

    /// The frames written since the last clear, read back as values (lines only, and
    /// only of frames held, not written for an output).
    pub(crate) fn values(&self) -> Vec<Value> {
        let mut start = 0;
        let mut values = Vec::with_capacity(self.ends.len());
        for &end in &self.ends {
            values.extend(self.bytes.get(start..end).and_then(parse));
            start = end;
        }
        values
    }

    /// Forgets what was written (keeping the buffer, unless one huge frame grew it).
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        if self.bytes.capacity() > 1 << 20 {
            self.bytes = Vec::new();
        }
    }

    /// The buffer, emptied, for the next frames.
    pub(crate) fn into_buffer(mut self) -> Vec<u8> {
        self.clear();
        self.bytes
    }

    /// Frames written for an output: writes what is held to it; the buffer back (for
    /// the next frames), and the output's first error.
    pub(crate) fn finish(mut self) -> (Vec<u8>, io::Result<()>) {
        let mut result = match self.failed.take() {
            Some(error) => Err(error),
            None => Ok(()),
        };
        if result.is_ok()
            && let Some(out) = self.spill.as_mut()
        {
            result = out.write_all(&self.bytes);
        }
        self.clear();
        (self.bytes, result)
    }

    /// Appends `bytes`, first writing what is held on to the output when it would pass
    /// [`SPILL_AT`] (and `bytes` themselves, when they are that long).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.failed.is_some() {
            return Err(io::Error::other("the output failed"));
        }
        let Some(out) = self.spill.as_mut() else {
            self.bytes.extend_from_slice(bytes);
            return Ok(());
        };
        if self.bytes.len() + bytes.len() <= SPILL_AT {
            self.bytes.extend_from_slice(bytes);
            return Ok(());
        }
        let mut result = out.write_all(&self.bytes);
        self.bytes.clear();
        self.ends.clear();
        if result.is_ok() {
            if bytes.len() > SPILL_AT {
                result = out.write_all(bytes);
            } else {
                self.bytes.extend_from_slice(bytes);
            }
        }
        if let Err(error) = &result {
            self.failed = Some(io::Error::new(error.kind(), error.to_string()));
        }
        result
    }
}

impl Write for Frames<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.append(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.append(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Bytes for Frames<'_> {
    #[inline]
    fn push(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        // Most writes are a few bytes, with room below the mark: kept at once.
        if self.bytes.len() + bytes.len() <= SPILL_AT && self.failed.is_none() {
            return self.bytes.extend_from_slice(bytes);
        }
        // An error is kept, and returned by `finish`.
        let _ = self.append(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes two frames, the second with a string of `size` bytes.
    fn two_frames(frames: &mut Frames<'_>, size: usize) {
        frames.raw(br#"{"type":"start"}"#);
        let text = "x\"y".repeat(size / 3);
        frames
            .object(|chunk| {
                chunk.str("type", "output");
                chunk.value("output", &text)
            })
            .unwrap();
    }

    #[test]
    fn frames_written_for_an_output_pass_a_long_value_on_as_written() {
        for sse in [false, true] {
            let mut held = Frames::held(Vec::new());
            held.sse = sse;
            two_frames(&mut held, 300_000);
            let expected = held.bytes.clone();

            let mut out = Vec::new();
            let mut frames = Frames::spilling(sse, Vec::new(), &mut out);
            two_frames(&mut frames, 300_000);
            // Most of the long frame went on before the frames were finished.
            assert!(frames.bytes.len() <= SPILL_AT);
            let (buffer, written) = frames.finish();
            written.unwrap();
            assert!(buffer.is_empty());
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn frames_written_for_a_failing_output_give_its_error() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut broken = Broken;
        let mut frames = Frames::spilling(false, Vec::new(), &mut broken);
        // A short frame is held; the long one meets the error, which is kept.
        frames.raw(b"{}");
        let text = "x".repeat(2 * SPILL_AT);
        assert!(frames.object(|chunk| chunk.value("output", &text)).is_err());
        frames.raw(b"{}");
        let (_, written) = frames.finish();
        assert_eq!(written.unwrap_err().to_string(), "disk full");
    }
}
