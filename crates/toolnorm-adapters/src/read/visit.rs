//! The visits a hand-written `serde` visitor makes of a scalar, written once: most of the
//! visitors that read a line in place keep nothing of a number, a boolean or `null` (and
//! often of a string), and answer each the same way.

/// Implements a [`serde::de::Visitor`]'s visits of a boolean, a number and `null` (and of
/// a string too, with `str` after the value), each answering `Ok(value)`: the value is
/// built anew on each visit.
macro_rules! visit_scalars_as {
    ($value:expr) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    ($value:expr, str) => {
        $crate::read::visit::visit_scalars_as!($value);
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

pub(crate) use visit_scalars_as;

#[cfg(test)]
mod tests {
    use std::fmt;

    use serde::Deserialize;
    use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// What a value is, as far as the macro's visits tell.
    #[derive(Debug, PartialEq)]
    enum Shape {
        Scalar,
        Array,
        Object,
    }

    impl<'de> Deserialize<'de> for Shape {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(ShapeVisitor)
        }
    }

    struct ShapeVisitor;

    impl<'de> Visitor<'de> for ShapeVisitor {
        type Value = Shape;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("any value")
        }

        visit_scalars_as!(Shape::Scalar, str);

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Shape::Array)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Shape::Object)
        }
    }

    #[test]
    fn every_scalar_is_answered_with_the_value() {
        for (json, shape) in [
            ("true", Shape::Scalar),
            ("-3", Shape::Scalar),
            ("18446744073709551615", Shape::Scalar),
            ("2.5e3", Shape::Scalar),
            ("null", Shape::Scalar),
            (r#""a \"text\"""#, Shape::Scalar),
            ("[1,[2]]", Shape::Array),
            (r#"{"a":{"b":[]}}"#, Shape::Object),
        ] {
            assert_eq!(
                serde_json::from_str::<Shape>(json).unwrap(),
                shape,
                "{json}"
            );
        }
    }
}
