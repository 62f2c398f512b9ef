//! A line's bytes checked as UTF-8 text, once per line before it is read.
//!
//! Every line is checked before serde_json reads it as a `str` (which then skips the check
//! for each string it borrows). The check runs over the whole line, and JSON lines are
//! long runs of ASCII: `simdutf8` checks them many bytes at a time, several times faster
//! than the standard library's check, and accepts exactly what it accepts.

/// `bytes` as text, or `None` when they are not valid UTF-8.
#[inline]
pub(crate) fn text(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::text;

    proptest! {
        #[test]
        fn accepts_what_the_standard_check_accepts(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(text(&bytes), std::str::from_utf8(&bytes).ok());
        }

        #[test]
        fn reads_text_as_the_standard_check_reads_it(text_in in any::<String>(), cut in any::<prop::sample::Index>()) {
            let bytes = text_in.as_bytes();
            prop_assert_eq!(text(bytes), Some(text_in.as_str()));
            let cut = &bytes[..cut.index(bytes.len() + 1)];
            prop_assert_eq!(text(cut), std::str::from_utf8(cut).ok());
        }
    }
}
