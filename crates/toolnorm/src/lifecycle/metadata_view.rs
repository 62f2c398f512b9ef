//! A part's metadata borrowed from its call ([`MetadataView`]): the entries the call
//! holds, with those its state derives (a running call's streamed output, the approval)
//! read in place rather than copied into a map for every snapshot.

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::output::StreamedOutput;
use crate::approval::Approval;
use crate::meta;
use crate::part::JsonObject;

/// The metadata of a [`PartView`](super::PartView): the call's own entries, then the
/// entries its state derives, as the part's `metadata` object holds them. A derived
/// entry whose key the call's own entries hold too takes that entry's place; the others
/// follow in this order: `partialOutput`, `outputTruncated`, `outputTotalBytes`,
/// `outputCapBytes` (a running call with streamed output), `approval`.
///
/// It serializes as that object, and reads without copying a value.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetadataView<'a> {
    stored: Option<&'a JsonObject>,
    streamed: Option<&'a StreamedOutput>,
    approval: Option<&'a Approval>,
}

/// One value of a [`MetadataView`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum MetaValue<'a> {
    /// An entry the call holds.
    Json(&'a Value),
    /// Text (the streamed output kept so far).
    Text(&'a str),
    /// A flag.
    Bool(bool),
    /// A count of bytes.
    Count(u64),
    /// The call's approval.
    Approval(&'a Approval),
}

impl<'a> MetadataView<'a> {
    /// The view of a metadata object as it is, with nothing derived (an owned part's).
    pub fn of(stored: Option<&'a JsonObject>) -> Self {
        MetadataView {
            stored,
            streamed: None,
            approval: None,
        }
    }

    pub(super) fn with_streamed(&mut self, streamed: &'a StreamedOutput) {
        self.streamed = (streamed.total_bytes != 0).then_some(streamed);
    }

    pub(super) fn with_approval(&mut self, approval: Option<&'a Approval>) {
        self.approval = approval;
    }

    /// The entries the call's state derives, in order.
    fn derived(self) -> impl Iterator<Item = (&'a str, MetaValue<'a>)> {
        let streamed = self.streamed;
        let truncated = streamed.filter(|streamed| streamed.is_truncated());
        [
            streamed.map(|streamed| (meta::PARTIAL_OUTPUT, MetaValue::Text(&streamed.kept))),
            truncated.map(|_| (meta::OUTPUT_TRUNCATED, MetaValue::Bool(true))),
            truncated.map(|streamed| {
                (
                    meta::OUTPUT_TOTAL_BYTES,
                    MetaValue::Count(streamed.total_bytes),
                )
            }),
            truncated.map(|streamed| {
                (
                    meta::OUTPUT_CAP_BYTES,
                    MetaValue::Count(streamed.cap() as u64),
                )
            }),
            self.approval
                .map(|approval| (meta::APPROVAL, MetaValue::Approval(approval))),
        ]
        .into_iter()
        .flatten()
    }

    /// The derived value of `key`, if the call's state derives one.
    fn derived_value(&self, key: &str) -> Option<MetaValue<'a>> {
        if self.streamed.is_none() && self.approval.is_none() {
            return None;
        }
        self.derived()
            .find_map(|(name, value)| (name == key).then_some(value))
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.stored.is_none_or(JsonObject::is_empty)
            && self.streamed.is_none()
            && self.approval.is_none()
    }

    /// The entries, in the order the part's `metadata` object holds them.
    pub fn iter(self) -> impl Iterator<Item = (&'a str, MetaValue<'a>)> {
        let stored = self.stored.into_iter().flatten().map(move |(key, value)| {
            let value = self.derived_value(key).unwrap_or(MetaValue::Json(value));
            (key.as_str(), value)
        });
        let added = self
            .derived()
            .filter(move |(key, _)| self.stored.is_none_or(|stored| !stored.contains_key(*key)));
        stored.chain(added)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<MetaValue<'a>> {
        self.derived_value(key)
            .or_else(|| self.stored_value(key).map(MetaValue::Json))
    }

    /// The value of `key` among the call's own entries. A call holds a handful: they are
    /// compared one by one, which costs less than hashing the key (the map's own lookup
    /// serves a larger one).
    fn stored_value(&self, key: &str) -> Option<&'a Value> {
        /// Up to this many entries, a key is looked for by comparing each.
        const COMPARED: usize = 8;
        let stored = self.stored?;
        if stored.len() > COMPARED {
            return stored.get(key);
        }
        stored
            .iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    }

    /// The text of `key`, when its value is a string.
    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.get(key)?.as_str()
    }

    /// The entries as an owned object.
    pub fn to_object(&self) -> JsonObject {
        self.iter()
            .map(|(key, value)| (key.to_owned(), value.to_value()))
            .collect()
    }
}

impl<'a> MetaValue<'a> {
    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            MetaValue::Json(value) => value.as_str(),
            MetaValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The JSON value the call holds, for an entry it holds.
    pub fn as_json(&self) -> Option<&'a Value> {
        match self {
            MetaValue::Json(value) => Some(value),
            _ => None,
        }
    }

    /// The approval: the call's own, or one an entry it holds spells out.
    pub fn approval(&self) -> Option<Cow<'a, Approval>> {
        match self {
            MetaValue::Approval(approval) => Some(Cow::Borrowed(*approval)),
            MetaValue::Json(value) => Approval::deserialize(*value).ok().map(Cow::Owned),
            _ => None,
        }
    }

    /// The value as an owned JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            MetaValue::Json(value) => (*value).clone(),
            MetaValue::Text(text) => Value::String((*text).to_owned()),
            MetaValue::Bool(flag) => Value::Bool(*flag),
            MetaValue::Count(count) => Value::from(*count),
            // An approval is plain data: it always converts.
            MetaValue::Approval(approval) => serde_json::to_value(approval).unwrap_or_default(),
        }
    }
}

impl Serialize for MetaValue<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MetaValue::Json(value) => value.serialize(serializer),
            MetaValue::Text(text) => serializer.serialize_str(text),
            MetaValue::Bool(flag) => serializer.serialize_bool(*flag),
            MetaValue::Count(count) => serializer.serialize_u64(*count),
            MetaValue::Approval(approval) => approval.serialize(serializer),
        }
    }
}

impl Serialize for MetadataView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, &value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::approval::ApprovalStatus;

    fn object(value: Value) -> JsonObject {
        serde_json::from_value(value).unwrap_or_default()
    }

    /// The object the derived entries make when inserted one by one into the stored ones.
    fn inserted(view: &MetadataView<'_>) -> JsonObject {
        let mut object = view.stored.cloned().unwrap_or_default();
        for (key, value) in view.derived() {
            object.insert(key.to_owned(), value.to_value());
        }
        object
    }

    #[test]
    fn derived_entries_take_the_place_of_stored_ones_and_follow_the_rest() {
        let mut streamed = StreamedOutput::with_cap(4);
        streamed.push("0123456789");
        let approval = Approval {
            status: ApprovalStatus::Pending,
            ..Approval::default()
        };
        for stored in [
            json!({}),
            json!({"provider": "x", "approval": {"status": "denied"}, "z": 1}),
            json!({"partialOutput": "old", "provider": "x", "outputCapBytes": 1}),
        ] {
            let stored = object(stored);
            let mut view = MetadataView::of(Some(&stored));
            view.with_streamed(&streamed);
            view.with_approval(Some(&approval));
            let expected = inserted(&view);
            assert_eq!(view.to_object(), expected);
            assert_eq!(
                serde_json::to_string(&view).ok(),
                serde_json::to_string(&expected).ok()
            );
            assert_eq!(view.text(meta::PARTIAL_OUTPUT), Some("0123"));
            assert_eq!(
                view.get(meta::APPROVAL).and_then(|value| value.approval()),
                Some(Cow::Borrowed(&approval))
            );
        }
    }

    #[test]
    fn a_key_is_found_as_the_map_finds_it_in_small_and_large_objects() {
        for size in [0, 1, 7, 8, 9, 30] {
            let stored: JsonObject = (0..size)
                .map(|at| (format!("key{at}"), Value::from(at)))
                .collect();
            let view = MetadataView::of(Some(&stored));
            for at in 0..size + 2 {
                let key = format!("key{at}");
                assert_eq!(
                    view.get(&key),
                    stored.get(&key).map(MetaValue::Json),
                    "{key} of {size}"
                );
            }
            assert_eq!(view.get("key"), None);
        }
    }

    #[test]
    fn a_view_of_nothing_is_empty() {
        let empty = JsonObject::new();
        assert!(MetadataView::of(None).is_empty());
        assert!(MetadataView::of(Some(&empty)).is_empty());
        let quiet = StreamedOutput::with_cap(4);
        let mut view = MetadataView::of(None);
        view.with_streamed(&quiet);
        assert!(view.is_empty(), "no output streamed yet");
        assert_eq!(serde_json::to_string(&view).ok().as_deref(), Some("{}"));
    }
}
