//! Const tags: discriminating properties in the single-value `enum` form
//! typify 0.8 reads, and how the other steps recognize one.

use serde_json::{Map, Value};

use super::walk::walk_defs;
use crate::schema_doc::Defs;

/// `const: v` becomes `enum: [v]`. typify 0.8 ignores `const`, so the
/// `type: "tool_use"` fields of TS-derived schemas could not discriminate
/// anything.
pub fn const_to_enum(defs: &mut Defs) {
    walk_defs(defs, |map| {
        if !map.contains_key("enum")
            && let Some(value) = map.remove("const")
        {
            map.insert("enum".into(), Value::Array(vec![value]));
        }
    });
}

/// A discriminating property of an object schema: a property with a
/// single-value `enum` that is also required.
pub(super) fn tag_of(schema: &Map<String, Value>) -> Option<(String, Value)> {
    let props = schema.get("properties")?.as_object()?;
    let required = schema.get("required")?.as_array()?;
    props.iter().find_map(|(name, prop)| {
        let values = prop.get("enum")?.as_array()?;
        (values.len() == 1 && required.iter().any(|r| r == name))
            .then(|| (name.clone(), values[0].clone()))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn const_becomes_single_value_enum() {
        let out = run(
            Step::ConstToEnum,
            json!({"A": {"properties": {"type": {"type": "string", "const": "tool_use"},
                                         "const": {"type": "string"}}}}),
        );
        assert_eq!(
            out,
            json!({"A": {"properties": {"type": {"type": "string", "enum": ["tool_use"]},
                                         "const": {"type": "string"}}}})
        );
    }
}
