//! Validation keywords that typify turns into code the wire types must not
//! have: regex newtypes and `deny_unknown_fields`.

use serde_json::Value;

use super::walk::walk_defs;
use crate::schema_doc::Defs;

/// Drops `pattern` from string schemas. OpenCode's id patterns (`^ses`,
/// `^prt`, …) only check prefixes, yet each one makes typify emit a
/// validating newtype with `regress`, doubling the code for no safety.
pub fn drop_string_patterns(defs: &mut Defs) {
    walk_defs(defs, |map| {
        if map.get("pattern").is_some_and(Value::is_string) {
            map.remove("pattern");
        }
    });
}

/// Drops `additionalProperties: false`. typify turns it into
/// `#[serde(deny_unknown_fields)]`, so a field added upstream in a minor
/// release would make every event of that type fail to parse.
pub fn drop_additional_properties_false(defs: &mut Defs) {
    walk_defs(defs, |map| {
        if map.get("additionalProperties") == Some(&Value::Bool(false)) {
            map.remove("additionalProperties");
        }
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn drops_patterns_but_not_properties_named_pattern() {
        let out = run(
            Step::DropPatterns,
            json!({"A": {"properties": {
                "id": {"type": "string", "pattern": "^ses"},
                "pattern": {"type": "string"}}}}),
        );
        assert_eq!(
            out,
            json!({"A": {"properties": {"id": {"type": "string"}, "pattern": {"type": "string"}}}})
        );
    }

    #[test]
    fn drops_only_false_additional_properties() {
        let out = run(
            Step::DropAdditionalPropertiesFalse,
            json!({"A": {"additionalProperties": false,
                         "properties": {"m": {"additionalProperties": {"type": "string"}}}}}),
        );
        assert_eq!(
            out,
            json!({"A": {"properties": {"m": {"additionalProperties": {"type": "string"}}}}})
        );
    }
}
