//! The call ids a recording's raw lines name, as each dialect's `call_ids.toml` says
//! (`src/dialects/<name>/call_ids.toml`): the oracle the fixture tests hold the parts to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// One dialect's `call_ids.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    id: Vec<IdAt>,
    /// The ids the reader makes where no raw line names one, by fixture
    /// (`folder/name.jsonl`).
    #[serde(default)]
    made: BTreeMap<String, Vec<String>>,
}

/// Where an object names a call id.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdAt {
    /// The object's `type` is one of these (any object when absent).
    types: Option<Vec<String>>,
    /// Fields of the object that have these string values.
    #[serde(default)]
    when: BTreeMap<String, String>,
    /// The path of the id in the object: keys joined by `.`, `[]` for each item of an array.
    at: String,
    /// Only the line's own object (not one nested in it) names a call so.
    #[serde(default)]
    top: bool,
}

/// Every dialect's rules of where call ids are, and the ids readers make.
pub struct CallIds {
    rules: Vec<IdAt>,
    made: BTreeMap<String, Vec<String>>,
}

impl CallIds {
    /// The rules of every `call_ids.toml` under `src/dialects/`.
    pub fn load() -> Self {
        fn walk(dir: &Path, rules: &mut Vec<IdAt>, made: &mut BTreeMap<String, Vec<String>>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    walk(&path, rules, made);
                } else if path.file_name().is_some_and(|name| name == "call_ids.toml") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let file: File = toml::from_str(&text)
                        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
                    rules.extend(file.id);
                    made.extend(file.made);
                }
            }
        }
        let mut rules = Vec::new();
        let mut made = BTreeMap::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dialects"),
            &mut rules,
            &mut made,
        );
        assert!(!rules.is_empty(), "no call_ids.toml under src/dialects");
        CallIds { rules, made }
    }

    /// The ids the reader makes for fixture `fixture` (`folder/name.jsonl`), where no raw
    /// line names one.
    pub fn made(&self, fixture: &str) -> impl Iterator<Item = &str> {
        self.made
            .get(fixture)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    /// The call ids a raw line names, whatever its dialect.
    pub fn of(&self, value: &Value, ids: &mut BTreeSet<String>) {
        self.under(value, true, ids);
    }

    /// The call ids a value names; `top`: it is the line's own value.
    fn under(&self, value: &Value, top: bool, ids: &mut BTreeSet<String>) {
        match value {
            Value::Object(object) => {
                let kind = object.get("type").and_then(Value::as_str);
                for rule in &self.rules {
                    let typed = rule.types.as_ref().is_none_or(|types| {
                        kind.is_some_and(|kind| types.iter().any(|t| t == kind))
                    });
                    let when = rule.when.iter().all(|(key, expected)| {
                        object.get(key).and_then(Value::as_str) == Some(expected.as_str())
                    });
                    if typed && when && (top || !rule.top) {
                        let path: Vec<&str> = rule.at.split('.').collect();
                        found(value, &path, ids);
                    }
                }
                object
                    .values()
                    .for_each(|value| self.under(value, false, ids));
            }
            Value::Array(items) => items.iter().for_each(|value| self.under(value, false, ids)),
            _ => {}
        }
    }
}

/// The ids at `path` under `value`: strings, or numbers (Cline's `ts`) as their text.
fn found(value: &Value, path: &[&str], ids: &mut BTreeSet<String>) {
    let Some((first, rest)) = path.split_first() else {
        if let Some(id) = value.as_str() {
            ids.insert(id.to_owned());
        } else if let Some(id) = value.as_u64() {
            ids.insert(id.to_string());
        }
        return;
    };
    match first.strip_suffix("[]") {
        Some(key) => {
            if let Some(Value::Array(items)) = value.get(key) {
                items.iter().for_each(|item| found(item, rest, ids));
            }
        }
        None => {
            if let Some(next) = value.get(first) {
                found(next, rest, ids);
            }
        }
    }
}
