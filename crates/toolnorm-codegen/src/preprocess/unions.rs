//! Union shapes: `anyOf` read as `oneOf`, untagged variants ordered so the
//! right one matches, and the properties of a union's parent (and of a
//! variant's own alternatives) merged into its variants.

use serde_json::{Map, Value, json};

use super::nullable::admits_null;
use super::tags::tag_of;
use super::walk::walk_defs;
use crate::schema_doc::{Defs, ref_target};

/// `anyOf` becomes `oneOf` when no member is `null`. typify reads a
/// non-null `anyOf` as "any subset" and emits a struct of flattened optional
/// subtypes; TS unions mean "exactly one of", which is `oneOf`. An `anyOf`
/// with a `null` member is left alone: typify already makes it an `Option`.
pub fn any_of_to_one_of(defs: &mut Defs) {
    walk_defs(defs, |map| {
        let nullable = map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|members| members.iter().any(admits_null));
        if !nullable
            && !map.contains_key("oneOf")
            && let Some(members) = map.remove("anyOf")
        {
            map.insert("oneOf".into(), members);
        }
    });
}

fn specificity(defs: &Defs, member: &Value) -> usize {
    let resolved = member
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(ref_target)
        .and_then(|name| defs.get(name))
        .unwrap_or(member);
    let Some(map) = resolved.as_object() else {
        return 0;
    };
    let required = map
        .get("required")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let tagged = usize::from(tag_of(map).is_some());
    // Tagged objects first, then more required fields, then more fields;
    // scalars last.
    let props = map
        .get("properties")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    tagged * 1_000_000 + required * 1_000 + props
}

/// Orders the members of each `oneOf` most specific first. Untagged serde
/// enums take the first variant that fits, so a variant with one required
/// field listed first swallows every richer one.
pub fn order_untagged_variants(defs: &mut Defs) {
    let snapshot = defs.clone();
    walk_defs(defs, |map| {
        if let Some(Value::Array(members)) = map.get_mut("oneOf") {
            // Stable: equal specificity keeps the official order.
            members.sort_by_key(|m| std::cmp::Reverse(specificity(&snapshot, m)));
        }
    });
}

/// Moves the top-level `properties` of a `oneOf` definition into every
/// variant (as optional fields) and removes them from the parent.
///
/// Codex's `ThreadItem` carries `startedAtMs`/`completedAtMs` beside its
/// `oneOf`; typify then emits an untagged enum whose variants flatten the
/// parent, several become uninhabited, and `mcpToolCall` items fail to
/// parse. Hoisted, it becomes a `#[serde(tag = "type")]` enum.
pub fn hoist_parent_properties(defs: &mut Defs, name: &str) {
    let Some(Value::Object(parent)) = defs.get_mut(name) else {
        return;
    };
    let Some(Value::Object(props)) = parent.remove("properties") else {
        return;
    };
    parent.remove("required");
    if parent.get("type") == Some(&json!("object")) && parent.contains_key("oneOf") {
        parent.remove("type");
    }
    let Some(Value::Array(variants)) = parent.get_mut("oneOf") else {
        return;
    };
    for variant in variants.iter_mut() {
        let Value::Object(variant) = variant else {
            continue;
        };
        let own = variant
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            for (key, schema) in &props {
                own.entry(key.clone()).or_insert_with(|| schema.clone());
            }
        }
        merge_alternatives_as_optional(variant);
    }
}

/// Folds a variant's own `anyOf`/`oneOf` of object alternatives into its
/// `properties`, each alternative's fields optional. Codex's
/// `imageGeneration` item is `{…} & ({fileId} | {result})`; typify only
/// sees a tag in variants that are plain objects.
fn merge_alternatives_as_optional(variant: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let all_objects = variant
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|alts| alts.iter().all(|a| a.get("properties").is_some()));
        if !all_objects {
            continue;
        }
        let Some(Value::Array(alternatives)) = variant.remove(key) else {
            continue;
        };
        let own = variant
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            for alternative in &alternatives {
                if let Some(Value::Object(alt_props)) = alternative.get("properties") {
                    for (name, schema) in alt_props {
                        own.entry(name.clone()).or_insert_with(|| schema.clone());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn any_of_without_null_becomes_one_of() {
        let out = run(
            Step::AnyOfToOneOf,
            json!({"A": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                   "B": {"anyOf": [{"type": "string"}, {"type": "null"}]}}),
        );
        assert_eq!(
            out,
            json!({"A": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                   "B": {"anyOf": [{"type": "string"}, {"type": "null"}]}})
        );
    }

    #[test]
    fn untagged_variants_most_specific_first() {
        let out = run(
            Step::OrderUntaggedVariants,
            json!({"Small": {"properties": {"a": {}}, "required": ["a"]},
                   "Big": {"properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
                   "U": {"oneOf": [{"type": "string"}, {"$ref": "#/definitions/Small"},
                                   {"$ref": "#/definitions/Big"}]}}),
        );
        assert_eq!(
            out["U"]["oneOf"],
            json!([{"$ref": "#/definitions/Big"}, {"$ref": "#/definitions/Small"}, {"type": "string"}])
        );
    }

    #[test]
    fn hoists_parent_properties_into_variants() {
        let out = run(
            Step::HoistParentProperties("ThreadItem"),
            json!({"ThreadItem": {"type": "object",
                "properties": {"startedAtMs": {"type": ["integer", "null"]}},
                "oneOf": [{"properties": {"type": {"enum": ["a"]}}, "required": ["type"]},
                          {"properties": {"type": {"enum": ["b"]}}, "required": ["type"],
                           "anyOf": [{"properties": {"fileId": {"type": "string"}}, "required": ["fileId"]},
                                     {"properties": {"result": {"type": "string"}}, "required": ["result"]}]}]}}),
        );
        assert_eq!(
            out,
            json!({"ThreadItem": {"oneOf": [
                {"properties": {"type": {"enum": ["a"]}, "startedAtMs": {"type": ["integer", "null"]}}, "required": ["type"]},
                {"properties": {"type": {"enum": ["b"]}, "startedAtMs": {"type": ["integer", "null"]},
                                "fileId": {"type": "string"}, "result": {"type": "string"}}, "required": ["type"]}]}})
        );
    }
}
