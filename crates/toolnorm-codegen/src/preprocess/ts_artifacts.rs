//! Artefacts of the TypeScript → JSON Schema conversion: length-bounded
//! arrays spelled as tuple unions, mapped types that come out empty, and JSDoc
//! `@deprecated` notes kept as text.

use serde_json::{Map, Value, json};

use super::nullable::admits_null;
use super::walk::walk_defs;
use crate::schema_doc::Defs;

fn is_tuple_of_one_kind(map: &Map<String, Value>) -> Option<Value> {
    let Some(Value::Array(items)) = map.get("items") else {
        return None;
    };
    let first = items.first()?.clone();
    let same = items.iter().all(|item| *item == first);
    let extra_ok = match map.get("additionalItems") {
        None | Some(Value::Bool(false)) => true,
        Some(other) => *other == first,
    };
    (same && extra_ok).then_some(first)
}

/// Turns a `deprecated` note given as text (`ts-json-schema-generator` keeps a JSDoc
/// `@deprecated <why>` so) into the flag JSON Schema defines, the text going to the
/// end of the description: typify reads `deprecated` as a boolean and refuses the
/// schema otherwise.
pub fn deprecated_as_flag(defs: &mut Defs) {
    walk_defs(defs, |map| {
        let Some(Value::String(note)) = map.get("deprecated").cloned() else {
            return;
        };
        let description = match map.get("description").and_then(Value::as_str) {
            Some(description) => format!("{description}\n\nDeprecated: {note}"),
            None => format!("Deprecated: {note}"),
        };
        map.insert("description".into(), Value::String(description));
        map.insert("deprecated".into(), Value::Bool(true));
    });
}

/// Collapses the tuple types that `json-schema-to-typescript` made from
/// `minItems`/`maxItems` (`[] | [A] | [A, A]`, or `[A, ...A[]]`) back into a
/// plain array of `A`. typify would otherwise emit one tuple type per length.
pub fn collapse_tuple_unions(defs: &mut Defs) {
    walk_defs(defs, |map| {
        if let Some(item) = is_tuple_of_one_kind(map) {
            map.insert("items".into(), item);
            map.remove("additionalItems");
            map.remove("minItems");
            map.remove("maxItems");
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(members)) = map.get(key) else {
                continue;
            };
            let item_of = |m: &Value| -> Option<Value> {
                let m = m.as_object()?;
                if m.get("type") != Some(&json!("array")) {
                    return None;
                }
                Some(m.get("items").cloned().unwrap_or(Value::Null))
            };
            let Some(first) = members.first().and_then(item_of) else {
                continue;
            };
            // `[]` (maxItems 0, no items) joins any array of the same element.
            let all_same = members.iter().all(|m| match item_of(m) {
                Some(Value::Null) => true,
                Some(item) => item == first,
                None => false,
            });
            if all_same && first != Value::Null {
                map.remove(key);
                map.insert("type".into(), json!("array"));
                map.insert("items".into(), first);
            }
        }
    });
}

fn is_empty_object(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
        && schema
            .get("properties")
            .is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        && schema.get("additionalProperties").is_none()
}

fn strip_null(schema: &Value) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    let mut map = map.clone();
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            map.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(members)) = map.get("anyOf") {
        let rest: Vec<Value> = members
            .iter()
            .filter(|m| !admits_null(m))
            .cloned()
            .collect();
        if rest.len() == 1 {
            return rest[0].clone();
        }
    }
    Value::Object(map)
}

/// Fills the properties of `target` that the TS converter turned into empty
/// objects with the type of the same property in `source`, null removed.
/// `NonNullable<Usage[K]>` mapped types come out as `{"type": "object"}`, so
/// `input_tokens: 12` would fail to parse.
pub fn fill_empty_mapped_properties(defs: &mut Defs, target: &str, source: &str) {
    let Some(source_props) = defs
        .get(source)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .cloned()
    else {
        return;
    };
    let Some(Value::Object(props)) = defs.get_mut(target).and_then(|t| t.get_mut("properties"))
    else {
        return;
    };
    for (name, schema) in props.iter_mut() {
        let empty = is_empty_object(schema)
            || schema
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|members| {
                    members.iter().any(is_empty_object)
                        && members.iter().all(|m| is_empty_object(m) || admits_null(m))
                });
        if let (true, Some(real)) = (empty, source_props.get(name)) {
            *schema = strip_null(real);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn a_deprecated_note_becomes_the_flag_and_joins_the_description() {
        let out = run(
            Step::DeprecatedAsFlag,
            json!({"A": {"type": "object", "properties": {
                "old": {"type": "string", "deprecated": "use new", "description": "The old id"},
                "bare": {"type": "string", "deprecated": "gone"},
                "flag": {"type": "string", "deprecated": true}
            }}}),
        );
        let properties = &out["A"]["properties"];
        assert_eq!(properties["old"]["deprecated"], json!(true));
        assert_eq!(
            properties["old"]["description"],
            json!("The old id\n\nDeprecated: use new")
        );
        assert_eq!(properties["bare"]["description"], json!("Deprecated: gone"));
        assert_eq!(
            properties["flag"],
            json!({"type": "string", "deprecated": true})
        );
    }

    #[test]
    fn collapses_tuple_unions_to_arrays() {
        let a = json!({"type": "string"});
        let out = run(
            Step::CollapseTuples,
            json!({"A": {"properties": {
                "u": {"anyOf": [
                    {"type": "array", "items": [a], "minItems": 1, "maxItems": 1},
                    {"type": "array", "items": [a, a], "minItems": 2, "maxItems": 2}]},
                "r": {"type": "array", "items": [a], "additionalItems": a, "minItems": 1}}}}),
        );
        assert_eq!(
            out,
            json!({"A": {"properties": {
                "u": {"type": "array", "items": a},
                "r": {"type": "array", "items": a}}}})
        );
    }

    #[test]
    fn fills_empty_mapped_properties_from_source() {
        let out = run(
            Step::FillEmptyMapped("NonNullableUsage", "Usage"),
            json!({"Usage": {"properties": {"input_tokens": {"type": "number"},
                                             "iterations": {"type": ["array", "null"], "items": {}}}},
                   "NonNullableUsage": {"properties": {
                       "input_tokens": {"type": "object", "properties": {}},
                       "iterations": {"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}]}}}}),
        );
        assert_eq!(
            out["NonNullableUsage"]["properties"],
            json!({"input_tokens": {"type": "number"}, "iterations": {"type": "array", "items": {}}})
        );
    }
}
