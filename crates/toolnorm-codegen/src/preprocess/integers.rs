//! Integer types for the counts and sizes that TypeScript can only call
//! `number`.

use serde_json::{Value, json};

use super::walk::walk_defs;
use crate::schema_doc::Defs;

fn set_integer(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    match map.get_mut("type") {
        Some(Value::String(t)) if t == "number" => *t = "integer".into(),
        Some(Value::Array(types)) => types
            .iter_mut()
            .filter(|t| *t == "number")
            .for_each(|t| *t = json!("integer")),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = map.get_mut(key) {
            members.iter_mut().for_each(set_integer);
        }
    }
}

/// Sets `type: integer` on the `number` properties at the given
/// `Definition.property[.property…]` paths. TS has only `number`, so token
/// counts and byte sizes would otherwise become `f64`.
pub fn integer_overrides(defs: &mut Defs, paths: &[&str]) {
    for path in paths {
        let mut parts = path.split('.');
        let Some(def) = parts.next().and_then(|name| defs.get_mut(name)) else {
            continue;
        };
        let pointer: String = parts.map(|p| format!("/properties/{p}")).collect();
        if let Some(target) = def.pointer_mut(&pointer) {
            set_integer(target);
        }
    }
}

/// Sets `type: integer` on every `number` property with one of `names`
/// anywhere in the definitions (e.g. `input_tokens`, `duration_ms`).
pub fn number_to_integer_by_name(defs: &mut Defs, names: &[&str]) {
    walk_defs(defs, |map| {
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, schema) in props.iter_mut() {
                if names.contains(&name.as_str()) {
                    set_integer(schema);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn integer_overrides_by_path_and_by_name() {
        let input = json!({"Usage": {"properties": {
            "input_tokens": {"type": "number"},
            "cost": {"type": "number"},
            "nested": {"properties": {"size": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}}}});
        let by_path = run(
            Step::IntegerOverrides(&["Usage.nested.size", "Usage.missing"]),
            input.clone(),
        );
        assert_eq!(
            by_path["Usage"]["properties"]["nested"]["properties"]["size"],
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
        );
        let by_name = run(Step::IntegerByPropertyName(&["input_tokens"]), input);
        assert_eq!(
            by_name["Usage"]["properties"]["input_tokens"],
            json!({"type": "integer"})
        );
        assert_eq!(
            by_name["Usage"]["properties"]["cost"],
            json!({"type": "number"})
        );
    }
}
