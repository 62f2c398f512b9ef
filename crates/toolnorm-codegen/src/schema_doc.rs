//! Reading pinned schema documents: where their definitions live, `$ref`
//! closures, and pruning a document down to what a set of roots needs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result, io};

/// Named schema definitions, ordered by name.
pub type Defs = BTreeMap<String, Value>;

/// The `$ref` prefixes the pinned documents use, in the order they are tried.
pub const REF_PREFIXES: [&str; 3] = ["#/definitions/", "#/components/schemas/", "#/$defs/"];

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses JSON already read from `path`.
pub fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value> {
    serde_json::from_slice(bytes).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Serializes a document the way `schemas/` stores it: two-space indented,
/// keys sorted, trailing newline.
pub fn to_pretty(doc: &Value) -> String {
    // The workspace turns on serde_json's `preserve_order`, so maps keep the order
    // the extraction wrote: sort them here, or a re-sync reorders the pinned files.
    let mut text = serde_json::to_string_pretty(&sorted(doc)).unwrap_or_default();
    text.push('\n');
    text
}

/// A copy of `value` with the keys of every object in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            Value::Object(
                keys.into_iter()
                    .filter_map(|key| map.get(key).map(|v| (key.clone(), sorted(v))))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The JSON pointer path of the definitions table inside `doc`:
/// `definitions`, `$defs` or `components.schemas`.
pub fn defs_path(doc: &Value) -> Option<&'static [&'static str]> {
    const CANDIDATES: [&[&str]; 3] = [&["definitions"], &["$defs"], &["components", "schemas"]];
    CANDIDATES.into_iter().find(|path| {
        let mut cur = doc;
        for key in *path {
            match cur.get(key) {
                Some(next) => cur = next,
                None => return false,
            }
        }
        cur.is_object()
    })
}

/// Extracts the definitions table of a document.
pub fn definitions(name: &str, doc: &Value) -> Result<Defs> {
    let path = defs_path(doc).ok_or_else(|| Error::Schema {
        name: name.to_string(),
        message: "no `definitions`, `$defs` or `components.schemas` table".into(),
    })?;
    let mut cur = doc;
    for key in path {
        cur = &cur[key];
    }
    Ok(cur
        .as_object()
        .map(|map| map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default())
}

/// The definition name a `$ref` points to, if it points into a definitions table.
pub fn ref_target(reference: &str) -> Option<&str> {
    REF_PREFIXES
        .iter()
        .find_map(|prefix| reference.strip_prefix(prefix))
}

/// Calls `f` on every `$ref` string in `value`.
pub fn visit_refs(value: &Value, f: &mut impl FnMut(&str)) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == "$ref" {
                    if let Some(reference) = child.as_str() {
                        f(reference);
                    }
                } else {
                    visit_refs(child, f);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| visit_refs(item, f)),
        _ => {}
    }
}

/// The names of `roots` and every definition they reach through `$ref`.
///
/// Fails when a root or a reference names a definition that does not exist.
pub fn closure<S: AsRef<str>>(name: &str, defs: &Defs, roots: &[S]) -> Result<BTreeSet<String>> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<String> = roots.iter().map(|r| r.as_ref().to_string()).collect();
    while let Some(next) = stack.pop() {
        if seen.contains(&next) {
            continue;
        }
        let schema = defs.get(&next).ok_or_else(|| Error::Schema {
            name: name.to_string(),
            message: format!("definition `{next}` is referenced but missing"),
        })?;
        visit_refs(schema, &mut |reference| {
            if let Some(target) = ref_target(reference) {
                stack.push(target.to_string());
            }
        });
        seen.insert(next);
    }
    Ok(seen)
}

/// Returns `doc` with its definitions table cut down to the closure of
/// `roots`. Every other key of the document is dropped except the
/// identifying ones (`$schema`, `title`, `openapi`, `info`), so the result
/// stays official text, only shorter.
pub fn prune<S: AsRef<str>>(name: &str, doc: &Value, roots: &[S]) -> Result<Value> {
    let defs = definitions(name, doc)?;
    let keep = closure(name, &defs, roots)?;
    let kept: Map<String, Value> = defs.into_iter().filter(|(k, _)| keep.contains(k)).collect();
    let mut out = Map::new();
    for key in ["$schema", "title", "openapi", "info"] {
        if let Some(v) = doc.get(key) {
            out.insert(key.to_string(), v.clone());
        }
    }
    match defs_path(doc) {
        Some(["components", "schemas"]) => {
            let mut components = Map::new();
            components.insert("schemas".into(), Value::Object(kept));
            out.insert("components".into(), Value::Object(components));
        }
        Some([key]) => {
            out.insert((*key).to_string(), Value::Object(kept));
        }
        _ => {
            return Err(Error::Schema {
                name: name.to_string(),
                message: "unexpected definitions layout".into(),
            });
        }
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_documents_have_sorted_keys_whatever_the_input_order() {
        let doc: Value =
            serde_json::from_str(r#"{"b":{"z":1,"a":[{"y":0,"x":0}]},"a":2}"#).unwrap();
        assert_eq!(
            to_pretty(&doc),
            "{\n  \"a\": 2,\n  \"b\": {\n    \"a\": [\n      {\n        \"x\": 0,\n        \"y\": 0\n      }\n    ],\n    \"z\": 1\n  }\n}\n"
        );
    }
    use serde_json::json;

    #[test]
    fn closure_follows_all_ref_styles_and_reports_missing() {
        let doc = json!({"components": {"schemas": {
            "A": {"properties": {"b": {"$ref": "#/components/schemas/B"}}},
            "B": {"items": {"$ref": "#/$defs/C"}},
            "C": {"type": "string"},
            "D": {"type": "string"}
        }}});
        let defs = definitions("t", &doc).unwrap_or_default();
        let got = closure("t", &defs, &["A"]).ok();
        let want: BTreeSet<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
        assert_eq!(got, Some(want));
        assert!(closure("t", &defs, &["Z"]).is_err());
    }

    #[test]
    fn prune_keeps_layout_and_drops_unreached() {
        let doc = json!({"$schema": "s", "paths": {}, "definitions": {
            "A": {"$ref": "#/definitions/B"}, "B": {}, "C": {}
        }});
        let pruned = prune("t", &doc, &["A"]).ok();
        assert_eq!(
            pruned,
            Some(
                json!({"$schema": "s", "definitions": {"A": {"$ref": "#/definitions/B"}, "B": {}}})
            )
        );
    }
}
