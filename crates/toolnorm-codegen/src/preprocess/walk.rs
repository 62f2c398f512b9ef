//! The shared traversal: every schema object of a definition, reached only
//! through the keywords that hold schemas.

use serde_json::{Map, Value};

use crate::schema_doc::Defs;

/// Calls `f` on every schema object inside `schema` (itself included), children
/// first, descending only through keywords that hold schemas, so that a
/// property *named* `pattern` or `const` is never mistaken for a keyword.
pub fn walk_schemas(schema: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "definitions" | "$defs" | "dependentSchemas" => {
                if let Value::Object(named) = child {
                    named.values_mut().for_each(|s| walk_schemas(s, f));
                }
            }
            "items" | "prefixItems" | "allOf" | "anyOf" | "oneOf" => match child {
                Value::Array(list) => list.iter_mut().for_each(|s| walk_schemas(s, f)),
                other => walk_schemas(other, f),
            },
            "additionalProperties"
            | "additionalItems"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems" => walk_schemas(child, f),
            _ => {}
        }
    }
    f(map);
}

pub(super) fn walk_defs(defs: &mut Defs, mut f: impl FnMut(&mut Map<String, Value>)) {
    defs.values_mut()
        .for_each(|schema| walk_schemas(schema, &mut f));
}
