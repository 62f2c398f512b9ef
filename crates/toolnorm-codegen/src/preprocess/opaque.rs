//! Opaque definitions: subtrees the normalizer never reads, kept as
//! `serde_json::Value`.

use serde_json::{Map, Value};

use crate::schema_doc::Defs;

/// Turns the named definitions into opaque JSON (`serde_json::Value`),
/// keeping only their description. Used for large subtrees the normalizer
/// never inspects (tool *definitions* echoed in compaction blocks,
/// citations, document sources, cache diagnostics): they still parse and
/// round-trip, but cost no generated code, and the `$ref` closure stops there.
pub fn make_opaque(defs: &mut Defs, names: &[&str]) {
    for name in names {
        if let Some(schema) = defs.get_mut(*name) {
            let mut opaque = Map::new();
            if let Some(description) = schema.get("description") {
                opaque.insert("description".into(), description.clone());
            }
            *schema = Value::Object(opaque);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn opaque_definitions_keep_only_their_description() {
        let out = run(
            Step::Opaque(&["Big"]),
            json!({"Big": {"description": "d", "properties": {"x": {"$ref": "#/definitions/Deep"}}},
                   "Deep": {"type": "string"}}),
        );
        assert_eq!(out["Big"], json!({"description": "d"}));
    }
}
