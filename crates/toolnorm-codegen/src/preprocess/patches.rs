//! Documented provider patches: what a CLI really sends that its pinned
//! schema does not declare. The patches themselves live in
//! [`crate::sources`] (`sources/cli_patches.rs`), each naming the fixture that shows it.

use serde_json::{Value, json};

use crate::schema_doc::Defs;

/// An addition to an official schema, for a field, value or variant that the
/// CLI really sends but the pinned schema does not (yet) declare. Each one
/// names the fixture that shows it, in [`crate::sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patch {
    /// Adds an optional property (`schema` is JSON text) to a definition.
    AddProperty {
        /// Definition name.
        def: &'static str,
        /// Property name.
        name: &'static str,
        /// The property's schema, as JSON text.
        schema: &'static str,
    },
    /// Adds an optional property to the member of a union definition whose
    /// `tag` property has the single value `value`.
    AddMemberProperty {
        /// The union definition.
        def: &'static str,
        /// The member's tag property.
        tag: &'static str,
        /// The member's tag value.
        value: &'static str,
        /// Property name.
        name: &'static str,
        /// The property's schema, as JSON text.
        schema: &'static str,
    },
    /// Adds a value to a definition's `enum`.
    AddEnumValue {
        /// Definition name.
        def: &'static str,
        /// The string value added.
        value: &'static str,
    },
    /// Adds a definition and makes it a member of a union definition.
    AddUnionMember {
        /// The union (`anyOf`/`oneOf`) definition.
        union: &'static str,
        /// The new definition's name.
        name: &'static str,
        /// The new definition's schema, as JSON text.
        schema: &'static str,
    },
}

/// Applies [`Patch`]es. A patch whose JSON does not parse or whose target
/// is missing changes nothing (the `sources` tests check every patch applies).
pub fn apply_patches(defs: &mut Defs, patches: &[Patch]) {
    for patch in patches {
        match *patch {
            Patch::AddProperty { def, name, schema } => {
                let parsed = serde_json::from_str::<Value>(schema);
                let props = defs
                    .get_mut(def)
                    .and_then(Value::as_object_mut)
                    .map(|d| d.entry("properties").or_insert_with(|| json!({})));
                if let (Ok(parsed), Some(Value::Object(props))) = (parsed, props) {
                    props.insert(name.to_string(), parsed);
                }
            }
            Patch::AddMemberProperty {
                def,
                tag,
                value,
                name,
                schema,
            } => {
                let Ok(parsed) = serde_json::from_str::<Value>(schema) else {
                    continue;
                };
                let Some(def) = defs.get_mut(def).and_then(Value::as_object_mut) else {
                    continue;
                };
                for key in ["oneOf", "anyOf"] {
                    let Some(Value::Array(members)) = def.get_mut(key) else {
                        continue;
                    };
                    for member in members.iter_mut() {
                        let tagged =
                            member
                                .pointer(&format!("/properties/{tag}"))
                                .is_some_and(|t| {
                                    t.get("const").and_then(Value::as_str) == Some(value)
                                        || t.get("enum") == Some(&json!([value]))
                                });
                        if let (true, Some(Value::Object(props))) =
                            (tagged, member.get_mut("properties"))
                        {
                            props.insert(name.to_string(), parsed.clone());
                        }
                    }
                }
            }
            Patch::AddEnumValue { def, value } => {
                if let Some(Value::Array(values)) =
                    defs.get_mut(def).and_then(|d| d.get_mut("enum"))
                    && !values.iter().any(|v| v == value)
                {
                    values.push(json!(value));
                }
            }
            Patch::AddUnionMember {
                union,
                name,
                schema,
            } => {
                let Ok(parsed) = serde_json::from_str::<Value>(schema) else {
                    continue;
                };
                let Some(Value::Object(target)) = defs.get_mut(union) else {
                    continue;
                };
                let key = if target.contains_key("oneOf") {
                    "oneOf"
                } else {
                    "anyOf"
                };
                if let Some(Value::Array(members)) = target.get_mut(key) {
                    members.push(json!({ "$ref": format!("#/definitions/{name}") }));
                    defs.insert(name.to_string(), parsed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Patch;
    use crate::preprocess::Step;
    use crate::preprocess::step::run;

    #[test]
    fn patches_add_properties_enum_values_and_union_members() {
        let out = run(
            Step::Patches(&[
                Patch::AddProperty {
                    def: "Item",
                    name: "action",
                    schema: "{}",
                },
                Patch::AddEnumValue {
                    def: "Status",
                    value: "in_progress",
                },
                Patch::AddMemberProperty {
                    def: "Out",
                    tag: "status",
                    value: "async_launched",
                    name: "canContinueAgent",
                    schema: r#"{"type": "boolean"}"#,
                },
                Patch::AddUnionMember {
                    union: "Items",
                    name: "NewItem",
                    schema: r#"{"type": "object"}"#,
                },
            ]),
            json!({"Item": {"properties": {"id": {"type": "string"}}},
                   "Out": {"anyOf": [{"properties": {"status": {"const": "async_launched"}}},
                                     {"properties": {"status": {"const": "completed"}}}]},
                   "Status": {"enum": ["completed"]},
                   "Items": {"anyOf": [{"$ref": "#/definitions/Item"}]}}),
        );
        assert_eq!(
            out,
            json!({"Item": {"properties": {"id": {"type": "string"}, "action": {}}},
                   "Out": {"anyOf": [{"properties": {"status": {"const": "async_launched"},
                                                     "canContinueAgent": {"type": "boolean"}}},
                                     {"properties": {"status": {"const": "completed"}}}]},
                   "Status": {"enum": ["completed", "in_progress"]},
                   "Items": {"anyOf": [{"$ref": "#/definitions/Item"}, {"$ref": "#/definitions/NewItem"}]},
                   "NewItem": {"type": "object"}})
        );
    }
}
