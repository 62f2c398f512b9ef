//! Required and nullable fields: which properties a CLI may leave out.

use serde_json::Value;

use super::walk::walk_defs;
use crate::schema_doc::Defs;

/// Whether a schema admits `null`.
pub fn admits_null(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let typed = match map.get("type") {
                Some(Value::String(t)) => t == "null",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
                _ => false,
            };
            let in_union = ["anyOf", "oneOf"].iter().any(|key| {
                map.get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|members| members.iter().any(admits_null))
            });
            typed || in_union
        }
        _ => false,
    }
}

/// Removes from `required` every property whose schema admits `null`: TS's
/// `x: T | null` is emitted as required, but the CLIs omit such fields.
pub fn nullable_not_required(defs: &mut Defs) {
    walk_defs(defs, |map| {
        let Some(Value::Object(props)) = map.get("properties") else {
            return;
        };
        let nullable: Vec<String> = props
            .iter()
            .filter(|(_, schema)| admits_null(schema))
            .map(|(name, _)| name.clone())
            .collect();
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(|r| r.as_str().is_none_or(|r| !nullable.iter().any(|n| n == r)));
        }
    });
}

/// Removes the named properties (`Definition.property`, or a property of an inline
/// object: `Definition.property.inner`) from their object's `required` list, for fields
/// the official schema requires but the CLI does not always send.
pub fn optional_properties(defs: &mut Defs, paths: &[&str]) {
    for path in paths {
        let segments: Vec<&str> = path.split('.').collect();
        let Some((def, rest)) = segments.split_first() else {
            continue;
        };
        let Some((prop, inner)) = rest.split_last() else {
            continue;
        };
        let pointer: String = inner
            .iter()
            .map(|segment| format!("/properties/{segment}"))
            .collect();
        let object = defs.get_mut(*def).and_then(|d| d.pointer_mut(&pointer));
        if let Some(Value::Array(required)) = object.and_then(|o| o.get_mut("required")) {
            required.retain(|r| r != prop);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn optional_properties_reach_inline_objects() {
        let out = run(
            Step::OptionalProperties(&["A.b", "A.m.id"]),
            json!({"A": {"properties": {"b": {"type": "string"},
                                         "m": {"type": "object",
                                               "properties": {"id": {"type": "string"}, "x": {"type": "string"}},
                                               "required": ["id", "x"]}},
                         "required": ["b", "m"]}}),
        );
        assert_eq!(out["A"]["required"], json!(["m"]));
        assert_eq!(out["A"]["properties"]["m"]["required"], json!(["x"]));
    }

    #[test]
    fn nullable_fields_leave_required() {
        let out = run(
            Step::NullableNotRequired,
            json!({"A": {"properties": {"a": {"type": ["string", "null"]},
                                         "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                                         "c": {"type": "string"}},
                         "required": ["a", "b", "c"]}}),
        );
        assert_eq!(out["A"]["required"], json!(["c"]));
    }

    #[test]
    fn optional_properties_leave_required() {
        let out = run(
            Step::OptionalProperties(&["E.id"]),
            json!({"E": {"required": ["id", "type"]}}),
        );
        assert_eq!(out["E"]["required"], json!(["type"]));
    }
}
