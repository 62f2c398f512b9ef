//! Rust names: the name typify derives from a definition, renames where two
//! derived names collide, and titles for inline types that typify would
//! otherwise name `Variant0` or merge with another type of the same name.

use std::collections::BTreeMap;

use serde_json::Value;

use super::tags::tag_of;
use super::walk::walk_defs;
use crate::schema_doc::{Defs, ref_target};

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

/// Titles the inline members of a `oneOf` after their tag value, so that
/// typify names the variants `ToolCall`, `ToolCallUpdate`, … instead of
/// `Variant0`, `Variant1`, …. Only when every inline member has a distinct,
/// required, single-value tag (ACP's `sessionUpdate`); a member that refers to a
/// definition (Pi's `AgentEvent` among its session's own events) keeps that name.
pub fn title_union_members_by_tag(defs: &mut Defs) {
    walk_defs(defs, |map| {
        let Some(Value::Array(members)) = map.get_mut("oneOf") else {
            return;
        };
        let titles: Option<Vec<Option<String>>> = members
            .iter()
            .map(|m| {
                let m = m.as_object()?;
                if m.contains_key("$ref") {
                    return Some(None);
                }
                if m.contains_key("title") {
                    return None;
                }
                let (_, value) = tag_of(m)?;
                Some(Some(pascal_name(value.as_str()?)))
            })
            .collect();
        let Some(titles) = titles else { return };
        let named: Vec<&String> = titles.iter().flatten().collect();
        let distinct: std::collections::BTreeSet<&&String> = named.iter().collect();
        if named.is_empty() || distinct.len() != named.len() {
            return;
        }
        for (member, title) in members.iter_mut().zip(titles) {
            if let (Value::Object(member), Some(title)) = (member, title) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::preprocess::Step;
    use crate::preprocess::step::run;

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
        // A member that refers to a definition keeps its name; the inline ones are titled.
        let out = run(
            Step::TitleMembersByTag,
            json!({"E": {"oneOf": [
                {"$ref": "#/definitions/AgentEvent"},
                {"properties": {"type": {"enum": ["queue_update"]}}, "required": ["type"]}]}}),
        );
        assert!(out["E"]["oneOf"][0].get("title").is_none());
        assert_eq!(out["E"]["oneOf"][1]["title"], json!("QueueUpdate"));
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
}
