//! A small JSON writer for frames written straight into a byte buffer: objects with
//! their commas, strings escaped by serde_json.

/// Writes a JSON object's entries with the commas between them.
pub(crate) struct Object<'b> {
    out: &'b mut Vec<u8>,
    first: bool,
}

impl<'b> Object<'b> {
    pub(crate) fn open(out: &'b mut Vec<u8>) -> Self {
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

    /// The buffer, to write the value of the entry just started.
    pub(crate) fn out(&mut self) -> &mut Vec<u8> {
        self.out
    }

    pub(crate) fn close(self) -> &'b mut Vec<u8> {
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
pub(crate) fn json(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(out, text);
}
