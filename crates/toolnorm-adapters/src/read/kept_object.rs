//! A JSON object read one level deep, each value kept as the JSON text it came as
//! ([`Payload`]): for an output a reader looks into (a shell result's `stdout`, an
//! item's `result`) and then keeps a piece of, without decoding the rest.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toolnorm::Payload;

/// An object's keys, in order, each with its value kept: a key written twice has the
/// place of the first and the value of the last, as in a `serde_json` map.
#[derive(Debug, Default, Clone)]
pub(crate) struct KeptObject(Vec<(String, Payload)>);

impl KeptObject {
    /// The object `payload` holds, when it holds one: read from its kept text (its values
    /// kept as they are in it, shared with the line when they are most of it), or from
    /// the value it holds.
    pub(crate) fn of(payload: &Payload) -> Option<KeptObject> {
        if !payload.is_object() {
            return None;
        }
        match payload.raw_text() {
            Some(text) => serde_json::from_str(text).ok(),
            None => payload.value().as_object().map(|object| {
                KeptObject(
                    object
                        .iter()
                        .map(|(key, value)| (key.clone(), Payload::from(value.clone())))
                        .collect(),
                )
            }),
        }
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Payload> {
        self.0
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// Whether the object has `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// How many keys it has.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Its keys and values, in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Payload)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// Sets `key` to `value`: in the place of the key when it is there already.
    fn insert(&mut self, key: String, value: Payload) {
        match self.0.iter_mut().find(|(name, _)| *name == key) {
            Some((_, held)) => *held = value,
            None => self.0.push((key, value)),
        }
    }
}

/// The elements of the array `payload` holds, when it holds one, each kept as it came.
pub(crate) fn kept_items(payload: &Payload) -> Option<Vec<Payload>> {
    match payload.raw_text() {
        Some(text) if text.starts_with('[') => serde_json::from_str(text).ok(),
        Some(_) => None,
        None => Some(
            payload
                .value()
                .as_array()?
                .iter()
                .cloned()
                .map(Payload::from)
                .collect(),
        ),
    }
}

impl<'de> Deserialize<'de> for KeptObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Reads the object's entries.
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = KeptObject;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeptObject, A::Error> {
                let mut object = KeptObject(Vec::with_capacity(map.size_hint().unwrap_or(8)));
                while let Some((key, value)) = map.next_entry::<String, Payload>()? {
                    object.insert(key, value);
                }
                Ok(object)
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value};

    use super::*;

    /// The object as a `Value` map, for comparing.
    fn as_map(object: &KeptObject) -> Map<String, Value> {
        object
            .iter()
            .map(|(key, value)| (key.to_owned(), value.value().clone()))
            .collect()
    }

    #[test]
    fn reads_what_a_value_reads() {
        for text in [
            r#"{"a":1,"b":"x\ny","c":[1,{"d":null}],"e":{"f":true}}"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{ "a" : "\u00e9" , "b" : 1.50 }"#,
            r#"{"\u0061":1,"a":2}"#,
            r#"{}"#,
        ] {
            let payload: Payload = serde_json::from_str(text).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            let kept = KeptObject::of(&payload).unwrap();
            assert_eq!(Value::Object(as_map(&kept)), value, "{text}");
            let keys: Vec<&str> = kept.iter().map(|(key, _)| key).collect();
            let value_keys: Vec<&str> = value
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, value_keys, "{text}");
            assert_eq!(kept.len(), value_keys.len());
        }
        for text in ["[1]", "\"a\"", "null", "7"] {
            let payload: Payload = serde_json::from_str(text).unwrap();
            assert!(KeptObject::of(&payload).is_none(), "{text}");
        }
    }

    #[test]
    fn a_value_is_kept_as_it_came() {
        let payload: Payload = serde_json::from_str(r#"{"out":"a\tb","n":2}"#).unwrap();
        let kept = KeptObject::of(&payload).unwrap();
        assert_eq!(
            kept.get("out").and_then(Payload::raw_text),
            Some(r#""a\tb""#)
        );
        assert!(kept.contains_key("n"));
        assert!(!kept.contains_key("m"));
        // A payload holding a value gives its fields too.
        let held = Payload::from(serde_json::json!({"out": "a"}));
        assert_eq!(
            KeptObject::of(&held).unwrap().get("out").unwrap(),
            &Payload::from("a")
        );
    }

    #[test]
    fn an_array_s_items_are_kept_as_they_came() {
        let payload: Payload = serde_json::from_str(r#"[ "a\tb" , {"c":1} ]"#).unwrap();
        let items = kept_items(&payload).unwrap();
        assert_eq!(items.first().and_then(Payload::raw_text), Some(r#""a\tb""#));
        assert_eq!(items.get(1).unwrap(), &serde_json::json!({"c": 1}));
        assert!(kept_items(&Payload::from(serde_json::json!(["x"]))).is_some());
        assert!(kept_items(&"x".into()).is_none());
        assert!(kept_items(&serde_json::from_str(r#"{"a":[1]}"#).unwrap()).is_none());
    }
}
