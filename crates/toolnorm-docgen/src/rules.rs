//! [`RulesFile`]: a rules file read for the reference, its rules as tables of text.

use std::path::{Path, PathBuf};

use crate::Error;

/// The columns every rules table starts with, in this order; any other key of a rule gets
/// a column after them, in the order the file first uses it.
const FIRST_COLUMNS: &[&str] = &["tool", "when", "kind", "title"];

/// One rules file: where it is, what its header says, its defaults and its tables.
#[derive(Debug)]
pub struct RulesFile {
    /// Its path from the repository's root, with `/` between folders.
    pub path: String,
    /// The first paragraph of its header comment, on one line.
    pub about: String,
    /// Its `[defaults]`, as `key`, value text.
    pub defaults: Vec<(String, String)>,
    /// Its `[[rule]]`s first (unnamed), then each other table or list of tables it has
    /// (named by its key), in the order of their keys.
    pub sections: Vec<Section>,
}

/// A table of a rules file, as rows of text.
#[derive(Debug)]
pub struct Section {
    /// The key of the table in the file; `None` for the rules.
    pub name: Option<String>,
    /// The column names.
    pub columns: Vec<String>,
    /// One cell per column (empty where the entry has no such key).
    pub rows: Vec<Vec<String>>,
}

impl Section {
    /// A list of tables, one row each: the first columns, then every other key in the
    /// order the list first uses it.
    fn of_list(name: Option<String>, first: &[&str], entries: &[&toml::Table]) -> Self {
        let mut columns: Vec<String> = first.iter().map(|c| c.to_string()).collect();
        for entry in entries {
            for key in entry.keys() {
                if !columns.contains(key) {
                    columns.push(key.clone());
                }
            }
        }
        let rows = entries
            .iter()
            .map(|entry| {
                columns
                    .iter()
                    .map(|column| entry.get(column).map(cell).unwrap_or_default())
                    .collect()
            })
            .collect();
        Section {
            name,
            columns,
            rows,
        }
    }

    /// A table of keys and values, one row per key.
    fn of_table(name: String, table: &toml::Table) -> Self {
        Section {
            name: Some(name),
            columns: vec!["key".to_owned(), "value".to_owned()],
            rows: table
                .iter()
                .map(|(key, value)| vec![code(key), cell(value)])
                .collect(),
        }
    }
}

impl RulesFile {
    /// Reads the rules file at `root`/`path`.
    pub fn read(root: &Path, path: &Path) -> Result<Self, Error> {
        let full = root.join(path);
        let text = std::fs::read_to_string(&full).map_err(|e| Error::io(&full, e))?;
        let table: toml::Table = text.parse().map_err(|source| Error::Toml {
            path: full.clone(),
            source: Box::new(source),
        })?;
        let defaults = match table.get("defaults") {
            Some(toml::Value::Table(defaults)) => defaults
                .iter()
                .map(|(key, value)| (key.clone(), cell(value)))
                .collect(),
            _ => Vec::new(),
        };
        let mut sections = Vec::new();
        if let Some(toml::Value::Array(rules)) = table.get("rule") {
            let rules: Vec<&toml::Table> = rules.iter().filter_map(|r| r.as_table()).collect();
            sections.push(Section::of_list(None, FIRST_COLUMNS, &rules));
        }
        for (key, value) in &table {
            if key == "rule" || key == "defaults" {
                continue;
            }
            match value {
                toml::Value::Table(inner) => sections.push(Section::of_table(key.clone(), inner)),
                toml::Value::Array(items) if items.iter().all(toml::Value::is_table) => {
                    let entries: Vec<&toml::Table> =
                        items.iter().filter_map(|item| item.as_table()).collect();
                    sections.push(Section::of_list(Some(key.clone()), &[], &entries));
                }
                _ => {}
            }
        }
        Ok(RulesFile {
            path: slash_path(path),
            about: header_paragraph(&text),
            defaults,
            sections,
        })
    }
}

/// A path with `/` between its components, whatever the platform.
pub fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The first paragraph of the comment a file starts with, its lines joined by spaces.
fn header_paragraph(text: &str) -> String {
    let mut words = Vec::new();
    for line in text.lines() {
        let Some(comment) = line.strip_prefix('#') else {
            break;
        };
        let comment = comment.trim();
        if comment.is_empty() {
            break;
        }
        words.push(comment);
    }
    words.join(" ")
}

/// A value as a table cell: strings as code, lists as their items in order, tables as
/// `key = value` pairs; `|` escaped for the table.
fn cell(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => code(text),
        toml::Value::Array(items) => items.iter().map(cell).collect::<Vec<_>>().join(", then "),
        toml::Value::Table(table) => table
            .iter()
            .map(|(key, value)| format!("{} = {}", code(key), cell(value)))
            .collect::<Vec<_>>()
            .join(", "),
        other => code(&other.to_string()),
    }
}

/// `text` as inline code in a table cell.
fn code(text: &str) -> String {
    let escaped = text.replace('|', "\\|");
    if escaped.contains('`') {
        format!("`` {escaped} ``")
    } else {
        format!("`{escaped}`")
    }
}

/// The rules file of a dialect, from the repository's root: the one in its own folder
/// (`src/dialects/<name>/rules.toml`) where it has one, else its provider's under
/// `rules/`; `None` for a dialect with no rules of its own (the event log).
pub fn rules_path(root: &Path, name: &str, provider: &str) -> Option<PathBuf> {
    let adapters = Path::new("crates/toolnorm-adapters");
    let candidates = [
        adapters
            .join("src/dialects")
            .join(name.replace('-', "_"))
            .join("rules.toml"),
        adapters
            .join("src/dialects")
            .join(provider.replace('-', "_"))
            .join("rules.toml"),
        adapters.join("rules").join(format!("{provider}.toml")),
    ];
    candidates
        .into_iter()
        .find(|candidate| root.join(candidate).is_file())
}

/// The rules every dialect falls back on (`rules/kinds.toml`, the one title template per
/// kind, where it exists, and `rules/default.toml`), from the repository's root.
pub fn shared_paths(root: &Path) -> Vec<PathBuf> {
    ["kinds.toml", "default.toml"]
        .iter()
        .map(|file| Path::new("crates/toolnorm-adapters/rules").join(file))
        .filter(|path| root.join(path).is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_and_keep_backticks() {
        let value: toml::Value = toml::Value::String("{command|shell}".into());
        assert_eq!(cell(&value), "`{command\\|shell}`");
        assert_eq!(code("a`b"), "`` a`b ``");
        let list = toml::Value::Array(vec!["a".into(), "b".into()]);
        assert_eq!(cell(&list), "`a`, then `b`");
    }

    #[test]
    fn tables_other_than_rules_are_kept() {
        let dir = std::env::temp_dir().join(format!("toolnorm-docgen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text =
            "# Kinds.\n[kinds]\nbash = { title = \"{command}\" }\n[[alias]]\nname = \"cmd\"\n";
        std::fs::write(dir.join("kinds.toml"), text).unwrap();
        let file = RulesFile::read(&dir, Path::new("kinds.toml")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(file.about, "Kinds.");
        let names: Vec<Option<&str>> = file.sections.iter().map(|s| s.name.as_deref()).collect();
        assert_eq!(names, [Some("alias"), Some("kinds")]);
        assert_eq!(file.sections[1].rows, [["`bash`", "`title` = `{command}`"]]);
    }

    #[test]
    fn the_header_is_its_first_paragraph() {
        let text = "# One\n# two.\n#\n# Three.\n[defaults]\n";
        assert_eq!(header_paragraph(text), "One two.");
    }
}
