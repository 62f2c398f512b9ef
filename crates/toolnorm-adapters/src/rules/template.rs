//! The template language of titles: literal text and `{field|filter}` holes, and the
//! field paths that holes and `when` conditions read from a call's input.

use std::borrow::Cow;

use serde_json::Value;

use super::ToolRef;
use super::text::{host_of, relative_to, unwrap_shell};
use crate::error::Error;

/// A title template: literal text and `{field|filter}` holes.
#[derive(Debug, Clone)]
pub(super) struct Template {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Field(Hole),
    /// An argument a dialect spells in several ways (its aliases): the first that
    /// renders.
    Choice(Box<[Hole]>),
}

/// One `{field|filter}` hole.
#[derive(Debug, Clone)]
pub(super) struct Hole {
    path: FieldPath,
    filter: Filter,
}

#[derive(Debug, Clone, Copy)]
enum Filter {
    None,
    Host,
    Line,
    File,
    Quote,
    RelPath,
    Shell,
}

impl Template {
    pub(super) fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let bad = |message: String| Error::Rules {
            origin: origin.to_owned(),
            message,
        };
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| bad(format!("unclosed `{{` in title {text:?}")))?;
            let (field, filter) = match after[..close].split_once('|') {
                Some((field, filter)) => (field, filter.trim()),
                None => (&after[..close], ""),
            };
            let filter =
                Filter::parse(filter).map_err(|error| bad(format!("{error} in title {text:?}")))?;
            let path = FieldPath::parse(field.trim(), origin)?;
            pieces.push(Piece::Field(Hole { path, filter }));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_owned()));
        }
        Ok(Template { pieces })
    }

    /// The title, when every field is present and not empty.
    pub(super) fn render(&self, tool: &ToolRef<'_>) -> Option<String> {
        // Room for the literal text and a field or two: one allocation for most titles.
        let literal: usize = self
            .pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.len(),
                _ => 0,
            })
            .sum();
        let mut title = String::with_capacity(literal + 64);
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => title.push_str(text),
                Piece::Field(hole) => title.push_str(&hole.render(tool)?),
                Piece::Choice(holes) => {
                    title.push_str(&holes.iter().find_map(|hole| hole.render(tool))?);
                }
            }
        }
        Some(title)
    }

    /// Whether the template reads the input (a template without holes always resolves).
    pub(super) fn has_holes(&self) -> bool {
        self.pieces
            .iter()
            .any(|piece| !matches!(piece, Piece::Text(_)))
    }

    /// The template with each hole `aliases` names replaced by the fields it lists: a
    /// hole `{file_path|relpath}` with aliases `["filePath"]` reads `filePath`. An alias
    /// with its own filter (`"command|shell"`) applies that one instead of the hole's.
    pub(super) fn with_aliases(&self, aliases: &Aliases) -> Template {
        let pieces = self.pieces.iter().map(|piece| match piece {
            Piece::Field(hole) => match aliases.get(hole.path.text.as_ref()) {
                Some(spellings) => {
                    let mut holes: Vec<Hole> = spellings
                        .iter()
                        .map(|alias| Hole {
                            path: alias.path.clone(),
                            filter: alias.filter.unwrap_or(hole.filter),
                        })
                        .collect();
                    match holes.len() {
                        1 => Piece::Field(holes.remove(0)),
                        _ => Piece::Choice(holes.into()),
                    }
                }
                None => piece.clone(),
            },
            other => other.clone(),
        });
        Template {
            pieces: pieces.collect(),
        }
    }
}

/// A dialect's spellings of the arguments kind templates read: for each argument name,
/// the fields that hold it in this dialect's input, tried in order.
pub(super) type Aliases = std::collections::HashMap<String, Vec<Alias>>;

/// One spelling of an argument: a field path, and the filter to apply instead of the
/// template's, if any.
#[derive(Debug, Clone)]
pub(super) struct Alias {
    path: FieldPath,
    filter: Option<Filter>,
}

impl Alias {
    /// Parses `field` or `field|filter`.
    pub(super) fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let bad = |message: String| Error::Rules {
            origin: origin.to_owned(),
            message,
        };
        let (field, filter) = match text.split_once('|') {
            Some((field, filter)) => {
                let filter = Filter::parse(filter.trim())
                    .map_err(|error| bad(format!("{error} in alias {text:?}")))?;
                (field, Some(filter))
            }
            None => (text, None),
        };
        Ok(Alias {
            path: FieldPath::parse(field.trim(), origin)?,
            filter,
        })
    }
}

impl Hole {
    /// The hole's text, when its field is present and not empty.
    fn render<'t>(&self, tool: &ToolRef<'t>) -> Option<Cow<'t, str>> {
        let text = scalar_text(self.path.get(tool.input)?)?;
        let text = match text {
            Cow::Borrowed(text) => self.filter.apply(text.trim(), tool.cwd)?,
            Cow::Owned(text) => Cow::Owned(self.filter.apply(text.trim(), tool.cwd)?.into_owned()),
        };
        (!text.is_empty()).then_some(text)
    }
}

impl Filter {
    /// The filter of a name (`""` is none).
    fn parse(name: &str) -> Result<Self, String> {
        Ok(match name {
            "" => Filter::None,
            "host" => Filter::Host,
            "line" => Filter::Line,
            "file" => Filter::File,
            "quote" => Filter::Quote,
            "relpath" => Filter::RelPath,
            "shell" => Filter::Shell,
            other => return Err(format!("unknown filter `{other}`")),
        })
    }

    fn apply<'t>(self, text: &'t str, cwd: Option<&str>) -> Option<Cow<'t, str>> {
        match self {
            Filter::RelPath => Some(Cow::Borrowed(relative_to(text, cwd))),
            Filter::Shell => match unwrap_shell(text) {
                Cow::Borrowed(text) => Filter::Line.apply(text, cwd),
                Cow::Owned(text) => Some(Cow::Owned(Filter::Line.apply(&text, cwd)?.into_owned())),
            },
            Filter::None => Some(Cow::Borrowed(text)),
            Filter::Host => Some(Cow::Borrowed(host_of(text)?)),
            Filter::Line => text
                .lines()
                .find(|line| !line.trim().is_empty())
                .map(|line| Cow::Borrowed(line.trim())),
            Filter::File => text.rsplit(['/', '\\']).next().map(Cow::Borrowed),
            Filter::Quote => Some(Cow::Owned(format!("\"{text}\""))),
        }
    }
}

/// A scalar as text: strings as they are, numbers and booleans written out.
pub(super) fn scalar_text(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::String(text) => Some(Cow::Borrowed(text)),
        Value::Number(number) => Some(Cow::Owned(number.to_string())),
        Value::Bool(flag) => Some(Cow::Borrowed(if *flag { "true" } else { "false" })),
        _ => None,
    }
}

/// A path into the input: `a.b`, `items.0.name`, or `todos[status=in_progress].activeForm`
/// (the first array element whose `status` is `in_progress`).
#[derive(Debug, Clone)]
pub(super) struct FieldPath {
    /// The path as written (what aliases are looked up by).
    text: Box<str>,
    steps: Vec<Step>,
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Find {
        key: String,
        field: String,
        value: String,
    },
}

impl FieldPath {
    pub(super) fn parse(text: &str, origin: &str) -> Result<Self, Error> {
        let bad = || Error::Rules {
            origin: origin.to_owned(),
            message: format!("bad field path `{text}`"),
        };
        let mut steps = Vec::new();
        for segment in text.split('.') {
            match segment.split_once('[') {
                None if !segment.is_empty() => steps.push(Step::Key(segment.to_owned())),
                Some((key, selector)) => {
                    let selector = selector.strip_suffix(']').ok_or_else(bad)?;
                    let (field, value) = selector.split_once('=').ok_or_else(bad)?;
                    if key.is_empty() || field.is_empty() {
                        return Err(bad());
                    }
                    steps.push(Step::Find {
                        key: key.to_owned(),
                        field: field.to_owned(),
                        value: value.to_owned(),
                    });
                }
                None => return Err(bad()),
            }
        }
        Ok(FieldPath {
            text: text.into(),
            steps,
        })
    }

    pub(super) fn get<'v>(&self, input: &'v Value) -> Option<&'v Value> {
        self.steps.iter().try_fold(input, |value, step| match step {
            Step::Key(key) => match value {
                Value::Array(items) => items.get(key.parse::<usize>().ok()?),
                _ => field(value, key),
            },
            Step::Find {
                key,
                field: name,
                value: wanted,
            } => field(value, key)?.as_array()?.iter().find(|item| {
                field(item, name)
                    .and_then(scalar_text)
                    .is_some_and(|text| text == *wanted)
            }),
        })
    }
}

/// Objects with at most this many keys are searched key by key: comparing a few short
/// keys costs less than hashing the one looked for.
const SCANNED: usize = 8;

/// The value of `key` in `value`, if it is an object that has it.
fn field<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    let object = value.as_object()?;
    if object.len() <= SCANNED {
        object
            .iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    } else {
        object.get(key)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::TitleRules;
    use super::super::tests::title;
    use super::super::text::relative_to;

    #[test]
    fn filters() {
        let rules = TitleRules::from_toml(
            r#"
            [[rule]]
            tool = "t"
            title = "{url|host} {command|line} {path|file} {pattern|quote}"
            "#,
            "test",
        )
        .unwrap();
        let input = json!({
            "url": "https://www.apnews.com/article?id=1",
            "command": "\n  cargo test\nmore",
            "path": "/a/b/c.rs",
            "pattern": "Updated"
        });
        assert_eq!(
            title(&rules, "p", "t", None, input).as_deref(),
            Some("apnews.com cargo test c.rs \"Updated\"")
        );
    }

    #[test]
    fn conditions_selectors_and_relative_paths() {
        let rules = TitleRules::from_toml(
            r#"
            [[rule]]
            tool = "webSearch"
            when = { "action.type" = "findInPage" }
            title = "Finding {action.pattern|quote} on {action.url|host}"

            [[rule]]
            tool = "TodoWrite"
            title = ["{todos[status=in_progress].activeForm}", "Updating todos"]

            [[rule]]
            tool = "Read"
            title = "Reading {file_path|relpath}"
            "#,
            "test",
        )
        .unwrap();
        let find = json!({"action": {"type": "findInPage", "url": "https://apnews.com/a", "pattern": "Updated"}});
        assert_eq!(
            title(&rules, "codex", "webSearch", None, find).as_deref(),
            Some("Finding \"Updated\" on apnews.com")
        );
        assert_eq!(
            title(
                &rules,
                "codex",
                "webSearch",
                None,
                json!({"action": {"type": "search"}})
            ),
            None
        );
        let todos = json!({"todos": [{"status": "completed", "activeForm": "A"}, {"status": "in_progress", "activeForm": "Doing B"}]});
        assert_eq!(
            title(&rules, "c", "TodoWrite", None, todos).as_deref(),
            Some("Doing B")
        );
        assert_eq!(
            title(&rules, "c", "TodoWrite", None, json!({"todos": []})).as_deref(),
            Some("Updating todos")
        );
        assert_eq!(
            title(
                &rules,
                "c",
                "Read",
                None,
                json!({"file_path": "/work/src/a.rs"})
            )
            .as_deref(),
            Some("Reading src/a.rs")
        );
        assert_eq!(
            title(
                &rules,
                "c",
                "Read",
                None,
                json!({"file_path": "/etc/hosts"})
            )
            .as_deref(),
            Some("Reading /etc/hosts")
        );
        assert_eq!(relative_to("/work", Some("/work/")), ".");
        assert_eq!(relative_to("/workshop/x", Some("/work")), "/workshop/x");
    }
}
