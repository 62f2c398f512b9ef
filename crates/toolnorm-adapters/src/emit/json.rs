//! A small JSON writer for frames written straight into a byte buffer: objects with
//! their commas, strings escaped as serde_json escapes them ([`json_text`]).

use std::io;

use toolnorm::Payload;

use super::json_text;

/// Where [`Object`] writes: a byte buffer, or the frames of a UI stream format, which pass
/// a long value on to the output as it is written instead of holding it whole.
pub(crate) trait Bytes: io::Write {
    /// Appends one byte.
    fn push(&mut self, byte: u8);
    /// Appends bytes.
    fn extend_from_slice(&mut self, bytes: &[u8]);
}

impl Bytes for Vec<u8> {
    #[inline]
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }

    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        Vec::extend_from_slice(self, bytes);
    }
}

/// Writes a JSON object's entries with the commas between them.
pub(crate) struct Object<'b, B: Bytes + ?Sized = Vec<u8>> {
    out: &'b mut B,
    first: bool,
}

impl<'b, B: Bytes + ?Sized> Object<'b, B> {
    pub(crate) fn open(out: &'b mut B) -> Self {
        out.push(b'{');
        Object { out, first: true }
    }

    /// Starts the entry `key` (plain ASCII, nothing to escape); its value follows.
    pub(crate) fn key(&mut self, key: &str) {
        self.comma();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// The entry `key` with a value already JSON text.
    pub(crate) fn raw(&mut self, key: &str, value: &[u8]) {
        self.key(key);
        self.out.extend_from_slice(value);
    }

    /// An entry whose key and value are both JSON text.
    pub(crate) fn raw_key(&mut self, key: &[u8], value: &[u8]) {
        self.comma();
        self.out.extend_from_slice(key);
        self.out.push(b':');
        self.out.extend_from_slice(value);
    }

    /// An entry whose key may need escaping.
    pub(crate) fn escaped_key(&mut self, key: &str) {
        self.comma();
        json(self.out, key);
        self.out.push(b':');
    }

    /// The entry `key` with a string value.
    pub(crate) fn str(&mut self, key: &str, text: &str) {
        self.key(key);
        json(self.out, text);
    }

    /// The entry `key` with a value serialized as JSON.
    pub(crate) fn value(
        &mut self,
        key: &str,
        value: &(impl serde::Serialize + ?Sized),
    ) -> serde_json::Result<()> {
        self.key(key);
        serde_json::to_writer(&mut *self.out, value)
    }

    /// The entry `key` with a payload: its kept text as it came, or its value.
    pub(crate) fn payload(&mut self, key: &str, payload: &Payload) {
        self.key(key);
        json_text::payload(self.out, payload);
    }

    /// The buffer, to write the value of the entry just started.
    pub(crate) fn out(&mut self) -> &mut B {
        self.out
    }

    pub(crate) fn close(self) -> &'b mut B {
        self.out.push(b'}');
        self.out
    }

    fn comma(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
    }
}

/// `text` as a JSON string.
pub(crate) fn json<B: Bytes + ?Sized>(out: &mut B, text: &str) {
    json_text::string(out, text);
}
