//! The change report `sync` prints: what changed between the old and the
//! new pinned schema of a source.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use crate::schema_doc::{Defs, ref_target};

/// Counts of one source's changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Definitions added.
    pub defs_added: usize,
    /// Definitions removed.
    pub defs_removed: usize,
    /// Definitions whose shape changed.
    pub defs_changed: usize,
    /// Enum values or union variants added.
    pub variants_added: usize,
    /// Enum values or union variants removed.
    pub variants_removed: usize,
    /// Properties added.
    pub props_added: usize,
    /// Properties removed.
    pub props_removed: usize,
    /// Properties whose type changed.
    pub props_changed: usize,
}

impl Counts {
    /// Adds another source's counts.
    pub fn add(&mut self, other: &Counts) {
        self.defs_added += other.defs_added;
        self.defs_removed += other.defs_removed;
        self.defs_changed += other.defs_changed;
        self.variants_added += other.variants_added;
        self.variants_removed += other.variants_removed;
        self.props_added += other.props_added;
        self.props_removed += other.props_removed;
        self.props_changed += other.props_changed;
    }

    /// One-line summary.
    pub fn summary(&self) -> String {
        format!(
            "definitions +{} -{} ~{}; variants +{} -{}; properties +{} -{} ~{}",
            self.defs_added,
            self.defs_removed,
            self.defs_changed,
            self.variants_added,
            self.variants_removed,
            self.props_added,
            self.props_removed,
            self.props_changed
        )
    }
}

/// A short type description of a schema, blind to descriptions and docs.
pub fn type_summary(schema: &Value) -> String {
    let Some(map) = schema.as_object() else {
        return "any".into();
    };
    if let Some(target) = map.get("$ref").and_then(Value::as_str).and_then(ref_target) {
        return target.to_string();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(members) = map.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = members.iter().map(type_summary).collect();
            return parts.join(if key == "allOf" { " & " } else { " | " });
        }
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        let parts: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("enum({})", parts.join(","));
    }
    if let Some(value) = map.get("const") {
        return format!("const({value})");
    }
    let ty = match map.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    };
    match map.get("items") {
        Some(items) if ty.contains("array") => format!("{ty}<{}>", type_summary(items)),
        _ => ty,
    }
}

/// The tag of a union member: its single-value `type`/`kind`/… enum or const.
fn member_label(member: &Value) -> String {
    if let Some(target) = member
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(ref_target)
    {
        return target.to_string();
    }
    if let Some(props) = member.get("properties").and_then(Value::as_object) {
        for key in [
            "type",
            "sessionUpdate",
            "subtype",
            "status",
            "method",
            "kind",
        ] {
            let Some(prop) = props.get(key) else { continue };
            if let Some(value) = prop.get("const") {
                return format!("{key}={value}");
            }
            if let Some([value]) = prop
                .get("enum")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            {
                return format!("{key}={value}");
            }
        }
    }
    if let Some(title) = member.get("title").and_then(Value::as_str) {
        return title.to_string();
    }
    type_summary(member)
}

#[derive(Default)]
struct Shape {
    variants: BTreeSet<String>,
    props: BTreeMap<String, String>,
}

fn shape(schema: &Value) -> Shape {
    let mut out = Shape::default();
    let add_props = |prefix: &str, schema: &Value, out: &mut Shape| {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                out.props
                    .insert(format!("{prefix}{name}"), type_summary(prop));
            }
        }
    };
    add_props("", schema, &mut out);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.variants.extend(values.iter().map(Value::to_string));
    }
    for key in ["anyOf", "oneOf"] {
        for member in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let label = member_label(member);
            add_props(&format!("{label}."), member, &mut out);
            out.variants.insert(label);
        }
    }
    out
}

/// Compares two definition tables and appends a readable report to `out`.
pub fn compare(old: &Defs, new: &Defs, out: &mut String) -> Counts {
    let mut counts = Counts::default();
    for name in new.keys().filter(|n| !old.contains_key(*n)) {
        counts.defs_added += 1;
        let _ = writeln!(out, "  + definition {name}");
    }
    for name in old.keys().filter(|n| !new.contains_key(*n)) {
        counts.defs_removed += 1;
        let _ = writeln!(out, "  - definition {name}");
    }
    for (name, new_schema) in new {
        let Some(old_schema) = old.get(name) else {
            continue;
        };
        if old_schema == new_schema {
            continue;
        }
        let (a, b) = (shape(old_schema), shape(new_schema));
        let mut lines = Vec::new();
        for v in b.variants.difference(&a.variants) {
            counts.variants_added += 1;
            lines.push(format!("+variant {v}"));
        }
        for v in a.variants.difference(&b.variants) {
            counts.variants_removed += 1;
            lines.push(format!("-variant {v}"));
        }
        for (prop, ty) in &b.props {
            match a.props.get(prop) {
                None => {
                    counts.props_added += 1;
                    lines.push(format!("+property {prop}: {ty}"));
                }
                Some(old_ty) if old_ty != ty => {
                    counts.props_changed += 1;
                    lines.push(format!("~property {prop}: {old_ty} -> {ty}"));
                }
                Some(_) => {}
            }
        }
        for prop in a.props.keys().filter(|p| !b.props.contains_key(*p)) {
            counts.props_removed += 1;
            lines.push(format!("-property {prop}"));
        }
        if lines.is_empty() {
            lines.push("docs or constraints only".into());
        } else {
            counts.defs_changed += 1;
        }
        let _ = writeln!(out, "  ~ {name}: {}", lines.join("; "));
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs(value: Value) -> Defs {
        value
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    #[test]
    fn reports_definitions_variants_and_properties() {
        let old = defs(json!({
            "Gone": {"type": "string"},
            "Status": {"enum": ["a", "b"]},
            "Item": {"oneOf": [{"properties": {"type": {"enum": ["x"]}, "n": {"type": "number"}}}]},
            "Doc": {"type": "string", "description": "old"}
        }));
        let new = defs(json!({
            "New": {"type": "string"},
            "Status": {"enum": ["a", "c"]},
            "Item": {"oneOf": [
                {"properties": {"type": {"enum": ["x"]}, "n": {"type": "integer"}, "m": {}}},
                {"properties": {"type": {"enum": ["y"]}}}]},
            "Doc": {"type": "string", "description": "new"}
        }));
        let mut text = String::new();
        let counts = compare(&old, &new, &mut text);
        assert_eq!(
            counts,
            Counts {
                defs_added: 1,
                defs_removed: 1,
                defs_changed: 2,
                variants_added: 2,
                variants_removed: 1,
                props_added: 2,
                props_removed: 0,
                props_changed: 1,
            }
        );
        assert!(text.contains("~property type=\"x\".n: number -> integer"));
        assert!(text.contains("~ Doc: docs or constraints only"));
    }
}
