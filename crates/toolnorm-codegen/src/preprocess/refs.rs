//! `$ref` spellings: the one form of reference typify 0.8 resolves.

use serde_json::Value;

use super::walk::walk_defs;
use crate::schema_doc::{Defs, ref_target};

/// OpenAPI (`#/components/schemas/X`) and 2020-12 (`#/$defs/X`) references
/// become `#/definitions/X`, the only form typify 0.8 resolves.
pub fn rewrite_refs_to_definitions(defs: &mut Defs) {
    walk_defs(defs, |map| {
        if let Some(Value::String(reference)) = map.get_mut("$ref")
            && let Some(target) = ref_target(reference)
        {
            *reference = format!("#/definitions/{target}");
        }
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn rewrites_openapi_and_defs_refs() {
        let out = run(
            Step::RewriteRefs,
            json!({"A": {"properties": {"p": {"$ref": "#/components/schemas/B"}},
                         "items": {"$ref": "#/$defs/C"}}}),
        );
        assert_eq!(
            out,
            json!({"A": {"properties": {"p": {"$ref": "#/definitions/B"}},
                         "items": {"$ref": "#/definitions/C"}}})
        );
    }
}
