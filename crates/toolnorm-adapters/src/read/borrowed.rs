//! Values read in place by the one-scan readers: a string borrowed from the line when it
//! has no escapes.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// A map key or a string value, borrowed from the line when it has no escapes.
pub(crate) struct Text<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor(PhantomData))
    }
}

struct TextVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
    type Value = Text<'a>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_borrows_unless_escaped() {
        let Text(text) = serde_json::from_str(r#""abc""#).unwrap();
        assert!(matches!(text, Cow::Borrowed("abc")));
        let Text(text) = serde_json::from_str(r#""a\nc""#).unwrap();
        assert!(matches!(text, Cow::Owned(_)));
    }
}
