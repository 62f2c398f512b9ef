//! Deterministic rewrites applied to the pinned schemas before typify sees
//! them. Each step fixes one construct that typify 0.8 cannot take as it is,
//! or one place where the official schema disagrees with what the CLI sends.
//! The pinned files in `schemas/` are never edited; these steps run in memory.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::schema_doc::{Defs, ref_target};

/// One preprocessing step, as listed per source in [`crate::sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// [`rewrite_refs_to_definitions`].
    RewriteRefs,
    /// [`drop_string_patterns`].
    DropPatterns,
    /// [`drop_additional_properties_false`].
    DropAdditionalPropertiesFalse,
    /// [`rename_colliding_definitions`].
    RenameCollisions,
    /// [`hoist_parent_properties`] on the named definition.
    HoistParentProperties(&'static str),
    /// [`const_to_enum`].
    ConstToEnum,
    /// [`collapse_tuple_unions`].
    CollapseTuples,
    /// [`any_of_to_one_of`].
    AnyOfToOneOf,
    /// [`nullable_not_required`].
    NullableNotRequired,
    /// [`order_untagged_variants`].
    OrderUntaggedVariants,
    /// [`fill_empty_mapped_properties`]: `(target, source)` definitions.
    FillEmptyMapped(&'static str, &'static str),
    /// [`integer_overrides`] on `Definition.property[.property…]` paths.
    IntegerOverrides(&'static [&'static str]),
    /// [`number_to_integer_by_name`] on property names.
    IntegerByPropertyName(&'static [&'static str]),
    /// [`optional_properties`] on `Definition.property` paths.
    OptionalProperties(&'static [&'static str]),
    /// [`title_colliding_inline_types`].
    TitleInlineCollisions,
    /// [`apply_patches`]: documented additions for what the CLI really sends.
    Patches(&'static [Patch]),
    /// [`make_opaque`] on the named definitions.
    Opaque(&'static [&'static str]),
    /// [`title_union_members_by_tag`].
    TitleMembersByTag,
    /// [`title_member_inline_properties`].
    TitleMemberProperties,
}

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

impl Step {
    /// The step's function name, used in the banner of generated files.
    pub fn name(&self) -> &'static str {
        match self {
            Step::RewriteRefs => "rewrite_refs_to_definitions",
            Step::DropPatterns => "drop_string_patterns",
            Step::DropAdditionalPropertiesFalse => "drop_additional_properties_false",
            Step::RenameCollisions => "rename_colliding_definitions",
            Step::HoistParentProperties(_) => "hoist_parent_properties",
            Step::ConstToEnum => "const_to_enum",
            Step::CollapseTuples => "collapse_tuple_unions",
            Step::AnyOfToOneOf => "any_of_to_one_of",
            Step::NullableNotRequired => "nullable_not_required",
            Step::OrderUntaggedVariants => "order_untagged_variants",
            Step::FillEmptyMapped(..) => "fill_empty_mapped_properties",
            Step::IntegerOverrides(_) => "integer_overrides",
            Step::IntegerByPropertyName(_) => "number_to_integer_by_name",
            Step::OptionalProperties(_) => "optional_properties",
            Step::TitleInlineCollisions => "title_colliding_inline_types",
            Step::Patches(_) => "apply_patches",
            Step::Opaque(_) => "make_opaque",
            Step::TitleMembersByTag => "title_union_members_by_tag",
            Step::TitleMemberProperties => "title_member_inline_properties",
        }
    }

    /// Applies the step to `defs`.
    pub fn apply(&self, defs: &mut Defs) {
        match *self {
            Step::RewriteRefs => rewrite_refs_to_definitions(defs),
            Step::DropPatterns => drop_string_patterns(defs),
            Step::DropAdditionalPropertiesFalse => drop_additional_properties_false(defs),
            Step::RenameCollisions => rename_colliding_definitions(defs),
            Step::HoistParentProperties(name) => hoist_parent_properties(defs, name),
            Step::ConstToEnum => const_to_enum(defs),
            Step::CollapseTuples => collapse_tuple_unions(defs),
            Step::AnyOfToOneOf => any_of_to_one_of(defs),
            Step::NullableNotRequired => nullable_not_required(defs),
            Step::OrderUntaggedVariants => order_untagged_variants(defs),
            Step::FillEmptyMapped(target, source) => {
                fill_empty_mapped_properties(defs, target, source)
            }
            Step::IntegerOverrides(paths) => integer_overrides(defs, paths),
            Step::IntegerByPropertyName(names) => number_to_integer_by_name(defs, names),
            Step::OptionalProperties(paths) => optional_properties(defs, paths),
            Step::TitleInlineCollisions => title_colliding_inline_types(defs),
            Step::Patches(patches) => apply_patches(defs, patches),
            Step::Opaque(names) => make_opaque(defs, names),
            Step::TitleMembersByTag => title_union_members_by_tag(defs),
            Step::TitleMemberProperties => title_member_inline_properties(defs),
        }
    }
}

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

fn walk_defs(defs: &mut Defs, mut f: impl FnMut(&mut Map<String, Value>)) {
    defs.values_mut()
        .for_each(|schema| walk_schemas(schema, &mut f));
}

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

/// The Rust type name typify derives from a definition name: words split at
/// every non-alphanumeric character, each capitalized, joined.
pub fn pascal_name(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Renames definitions whose Rust names collide (OpenCode has both
/// `session.status` and `SessionStatus`). The plain identifier keeps its name;
/// each other spelling gets a `Dotted` suffix (`SessionStatusDotted`), and
/// every reference follows.
pub fn rename_colliding_definitions(defs: &mut Defs) {
    let mut by_rust_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in defs.keys() {
        by_rust_name
            .entry(pascal_name(name))
            .or_default()
            .push(name.clone());
    }
    let mut renames = BTreeMap::new();
    for (rust, names) in by_rust_name.into_iter().filter(|(_, n)| n.len() > 1) {
        for (index, name) in names.iter().filter(|n| **n != rust).enumerate() {
            let suffix = if index == 0 {
                "Dotted".to_string()
            } else {
                format!("Dotted{}", index + 1)
            };
            renames.insert(name.clone(), format!("{rust}{suffix}"));
        }
    }
    if renames.is_empty() {
        return;
    }
    let old = std::mem::take(defs);
    for (name, schema) in old {
        let name = renames.get(&name).cloned().unwrap_or(name);
        defs.insert(name, schema);
    }
    walk_defs(defs, |map| {
        if let Some(Value::String(reference)) = map.get_mut("$ref") {
            let renamed = ref_target(reference).and_then(|target| renames.get(target));
            if let Some(new) = renamed {
                *reference = format!("#/definitions/{new}");
            }
        }
    });
}

/// Titles the inline members of a `oneOf` after their tag value, so that
/// typify names the variants `ToolCall`, `ToolCallUpdate`, … instead of
/// `Variant0`, `Variant1`, …. Only when every member has a distinct,
/// required, single-value tag (ACP's `sessionUpdate`).
pub fn title_union_members_by_tag(defs: &mut Defs) {
    walk_defs(defs, |map| {
        let Some(Value::Array(members)) = map.get_mut("oneOf") else {
            return;
        };
        let titles: Option<Vec<String>> = members
            .iter()
            .map(|m| {
                let m = m.as_object()?;
                if m.contains_key("title") || m.contains_key("$ref") {
                    return None;
                }
                let (_, value) = tag_of(m)?;
                Some(pascal_name(value.as_str()?))
            })
            .collect();
        let Some(titles) = titles else { return };
        let distinct: std::collections::BTreeSet<&String> = titles.iter().collect();
        if distinct.len() != titles.len() {
            return;
        }
        for (member, title) in members.iter_mut().zip(titles) {
            if let Value::Object(member) = member {
                member.insert("title".into(), Value::String(title));
            }
        }
    });
}

fn is_inline_type(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    !map.contains_key("$ref")
        && !map.contains_key("title")
        && ["properties", "oneOf", "anyOf", "allOf", "enum"]
            .iter()
            .any(|k| map.contains_key(*k))
}

fn title_members_in(schema: &mut Value, context: &str) {
    let Value::Object(map) = schema else { return };
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(members)) = map.get_mut(key) else {
            continue;
        };
        for (index, member) in members.iter_mut().enumerate() {
            let Value::Object(m) = member else { continue };
            let member_name = match (m.get("title").and_then(Value::as_str), tag_of(m)) {
                (Some(title), _) => pascal_name(title),
                (None, Some((_, value))) => {
                    format!(
                        "{context}{}",
                        pascal_name(value.as_str().unwrap_or_default())
                    )
                }
                (None, None) => format!("{context}Variant{index}"),
            };
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (prop, inline) in props.iter_mut() {
                    let name = format!("{member_name}{}", pascal_name(prop));
                    if is_inline_type(inline)
                        && let Value::Object(inline) = inline
                    {
                        inline.insert("title".into(), Value::String(name.clone()));
                    }
                    title_members_in(inline, &name);
                }
            }
            title_members_in(member, &member_name);
        }
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for (prop, inline) in props.iter_mut() {
            let name = format!("{context}{}", pascal_name(prop));
            title_members_in(inline, &name);
        }
    }
    if let Some(items) = map.get_mut("items") {
        title_members_in(items, &format!("{context}Item"));
    }
}

/// Titles the inline object types of union members' properties after the
/// member (`FileReadOutputTextFile`, `FileReadOutputPartsFile`, …). typify
/// 0.8 names each such type after the union and property alone
/// (`FileReadOutputFile`) and, when several members have one, silently
/// reuses the first for all of them, so a Claude `Read` text result failed
/// to parse as the `parts` member's file.
pub fn title_member_inline_properties(defs: &mut Defs) {
    for (name, schema) in defs.iter_mut() {
        title_members_in(schema, &pascal_name(name));
    }
}

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

/// Gives a `title` to inline property types whose derived name would
/// collide with a definition. typify names the type of property `p` of `D`
/// `DP`; the Anthropic types have both `ContentBlockSource.content` (inline
/// union) and a `ContentBlockSourceContent` definition, which would be
/// emitted as two Rust types of the same name. The inline one becomes
/// `ContentBlockSourceContentValue`.
pub fn title_colliding_inline_types(defs: &mut Defs) {
    let taken: std::collections::BTreeSet<String> = defs.keys().map(|k| pascal_name(k)).collect();
    for (name, schema) in defs.iter_mut() {
        let Some(Value::Object(props)) = schema.get_mut("properties") else {
            continue;
        };
        for (prop, inline) in props.iter_mut() {
            let Value::Object(map) = inline else { continue };
            let generated = ["oneOf", "anyOf", "enum", "properties", "allOf"]
                .iter()
                .any(|k| map.contains_key(*k));
            if !generated || map.contains_key("title") || map.contains_key("$ref") {
                continue;
            }
            let derived = format!("{}{}", pascal_name(name), pascal_name(prop));
            if taken.contains(&derived) {
                let mut title = format!("{derived}Value");
                while taken.contains(&title) {
                    title.push('_');
                }
                map.insert("title".into(), Value::String(title));
            }
        }
    }
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

/// A discriminating property of an object schema: a property with a
/// single-value `enum` that is also required.
fn tag_of(schema: &Map<String, Value>) -> Option<(String, Value)> {
    let props = schema.get("properties")?.as_object()?;
    let required = schema.get("required")?.as_array()?;
    props.iter().find_map(|(name, prop)| {
        let values = prop.get("enum")?.as_array()?;
        (values.len() == 1 && required.iter().any(|r| r == name))
            .then(|| (name.clone(), values[0].clone()))
    })
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

/// Removes the named properties (`Definition.property`) from their
/// definition's `required` list, for fields the official schema requires
/// but the CLI does not always send.
pub fn optional_properties(defs: &mut Defs, paths: &[&str]) {
    for path in paths {
        let Some((def, prop)) = path.split_once('.') else {
            continue;
        };
        if let Some(Value::Array(required)) = defs.get_mut(def).and_then(|d| d.get_mut("required"))
        {
            required.retain(|r| r != prop);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(value: Value) -> Defs {
        value
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    fn run(step: Step, input: Value) -> Value {
        let mut d = defs(input);
        step.apply(&mut d);
        Value::Object(d.into_iter().collect())
    }

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

    #[test]
    fn renames_dotted_collisions_and_their_refs() {
        let out = run(
            Step::RenameCollisions,
            json!({"SessionStatus": {"type": "object"},
                   "session.status": {"type": "string"},
                   "User": {"$ref": "#/definitions/session.status"}}),
        );
        assert_eq!(
            out,
            json!({"SessionStatus": {"type": "object"},
                   "SessionStatusDotted": {"type": "string"},
                   "User": {"$ref": "#/definitions/SessionStatusDotted"}})
        );
    }

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

    #[test]
    fn titles_union_members_after_their_tag() {
        let out = run(
            Step::TitleMembersByTag,
            json!({"U": {"oneOf": [
                {"properties": {"sessionUpdate": {"enum": ["tool_call"]}}, "required": ["sessionUpdate"]},
                {"properties": {"sessionUpdate": {"enum": ["tool_call_update"]}}, "required": ["sessionUpdate"]}]},
                   "Untagged": {"oneOf": [{"type": "string"}, {"type": "number"}]}}),
        );
        assert_eq!(out["U"]["oneOf"][0]["title"], json!("ToolCall"));
        assert_eq!(out["U"]["oneOf"][1]["title"], json!("ToolCallUpdate"));
        assert!(out["Untagged"]["oneOf"][0].get("title").is_none());
    }

    #[test]
    fn titles_inline_properties_of_union_members() {
        let file = |req: &str| json!({"type": "object", "properties": {req: {"type": "string"}}, "required": [req]});
        let out = run(
            Step::TitleMemberProperties,
            json!({"FileReadOutput": {"oneOf": [
                {"properties": {"type": {"enum": ["text"]}, "file": file("content")}, "required": ["type"]},
                {"properties": {"type": {"enum": ["parts"]}, "file": file("count")}, "required": ["type"]}]}}),
        );
        assert_eq!(
            out["FileReadOutput"]["oneOf"][0]["properties"]["file"]["title"],
            json!("FileReadOutputTextFile")
        );
        assert_eq!(
            out["FileReadOutput"]["oneOf"][1]["properties"]["file"]["title"],
            json!("FileReadOutputPartsFile")
        );
    }

    #[test]
    fn opaque_definitions_keep_only_their_description() {
        let out = run(
            Step::Opaque(&["Big"]),
            json!({"Big": {"description": "d", "properties": {"x": {"$ref": "#/definitions/Deep"}}},
                   "Deep": {"type": "string"}}),
        );
        assert_eq!(out["Big"], json!({"description": "d"}));
    }

    #[test]
    fn titles_inline_types_that_would_collide() {
        let out = run(
            Step::TitleInlineCollisions,
            json!({"ContentBlockSource": {"properties": {
                       "content": {"anyOf": [{"type": "string"}, {"type": "array"}]},
                       "other": {"anyOf": [{"type": "string"}, {"type": "array"}]}}},
                   "ContentBlockSourceContent": {"type": "object"}}),
        );
        assert_eq!(
            out["ContentBlockSource"]["properties"]["content"]["title"],
            json!("ContentBlockSourceContentValue")
        );
        assert!(
            out["ContentBlockSource"]["properties"]["other"]
                .get("title")
                .is_none()
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

    #[test]
    fn optional_properties_leave_required() {
        let out = run(
            Step::OptionalProperties(&["E.id"]),
            json!({"E": {"required": ["id", "type"]}}),
        );
        assert_eq!(out["E"]["required"], json!(["type"]));
    }
}
