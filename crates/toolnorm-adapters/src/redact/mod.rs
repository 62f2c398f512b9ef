//! [`Redactor`]: secrets found in tool calls become `[REDACTED:<kind>]` before anything
//! is written.
//!
//! A normalizer with a redactor ([`NormalizerBuilder::redact`](crate::NormalizerBuilder::redact))
//! applies it once, where events are made, so every output format, the audit copy and the
//! diagnostics see only redacted text: inputs, outputs, errors, metadata and titles. What is
//! found: the keys and tokens of common services by their published formats, JWTs, PEM
//! private keys, `Authorization`/`Bearer` credentials, passwords in URLs, and values whose
//! name says they are secret (`DB_PASSWORD=…`, `--api-key …`, `"token": "…"`), plus the
//! patterns a user adds. Redaction works inside JSON strings: it never changes the JSON
//! structure, ids or line numbers.

mod event;
mod patterns;

use std::borrow::Cow;

use regex::{Captures, Regex, RegexSet};
use serde::Deserialize;
use serde_json::Value;

use crate::Error;

/// One pattern, compiled.
#[derive(Debug, Clone)]
struct Rule {
    kind: String,
    regex: Regex,
}

/// Finds secrets in text and JSON values and replaces them with `[REDACTED:<kind>]`.
///
/// ```
/// use toolnorm_adapters::Redactor;
///
/// let redactor = Redactor::builtin();
/// let (text, found) = redactor.redact_text("curl -H 'Authorization: Bearer abc123def456'");
/// assert_eq!(text, "curl -H 'Authorization: Bearer [REDACTED:authorization]'");
/// assert_eq!(found, 1);
/// ```
#[derive(Debug, Clone)]
pub struct Redactor {
    rules: Vec<Rule>,
    /// All the rules at once: most text matches none, and is passed over in one scan.
    set: RegexSet,
    /// Object keys whose string values are secrets whole.
    secret_key: Option<Regex>,
}

/// A user's patterns file: `[[pattern]]` tables with a `kind` and a `regex`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternsFile {
    #[serde(default)]
    pattern: Vec<PatternEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternEntry {
    kind: String,
    regex: String,
}

impl Redactor {
    /// The built-in patterns (see the module documentation).
    pub fn builtin() -> Self {
        // Compiled once per process, then copied (a compiled regex is shared, not copied).
        static BUILTIN: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(Redactor::compile_builtin).clone()
    }

    fn compile_builtin() -> Self {
        let mut sources: Vec<(String, String)> = patterns::builtin()
            .into_iter()
            .map(|pattern| (pattern.kind.to_owned(), pattern.regex.to_owned()))
            .collect();
        sources.extend(
            patterns::named()
                .into_iter()
                .map(|(kind, regex)| (kind.to_owned(), regex)),
        );
        // The built-in patterns are tested to compile; one that did not would be left
        // out (and fail the test suite) rather than panic here.
        let rules = sources
            .into_iter()
            .filter_map(|(kind, regex)| {
                Some(Rule {
                    kind,
                    regex: Regex::new(&regex).ok()?,
                })
            })
            .collect();
        Redactor::from_rules(rules)
    }

    fn from_rules(rules: Vec<Rule>) -> Self {
        let set = RegexSet::new(rules.iter().map(|rule| rule.regex.as_str()))
            .unwrap_or_else(|_| RegexSet::empty());
        let secret_key = Regex::new(&patterns::secret_key()).ok();
        Redactor {
            rules,
            set,
            secret_key,
        }
    }

    /// Adds a pattern of the user's, tried before the built-in ones; a match (or its
    /// first capture group, when it has one) becomes `[REDACTED:<kind>]`.
    pub fn with_pattern(self, kind: &str, regex: &str) -> Result<Self, Error> {
        let compiled = Regex::new(regex).map_err(|error| Error::Redaction {
            origin: format!("pattern `{kind}`"),
            message: error.to_string(),
        })?;
        let mut rules = vec![Rule {
            kind: kind.to_owned(),
            regex: compiled,
        }];
        rules.extend(self.rules);
        Ok(Redactor::from_rules(rules))
    }

    /// Adds the patterns of a TOML file (`[[pattern]]` with `kind` and `regex`), tried
    /// before the built-in ones; `origin` names the file in errors.
    pub fn with_patterns_toml(self, text: &str, origin: &str) -> Result<Self, Error> {
        let file: PatternsFile = toml::from_str(text).map_err(|error| Error::Redaction {
            origin: origin.to_owned(),
            message: error.to_string(),
        })?;
        let mut redactor = self;
        for entry in file.pattern.into_iter().rev() {
            redactor = redactor
                .with_pattern(&entry.kind, &entry.regex)
                .map_err(|error| Error::Redaction {
                    origin: origin.to_owned(),
                    message: error.to_string(),
                })?;
        }
        Ok(redactor)
    }

    /// The text with its secrets replaced, and how many were. Patterns run until none
    /// finds more (one replacement can bring another secret's name next to its value),
    /// so redacting the result again finds nothing.
    pub fn redact_text<'t>(&self, text: &'t str) -> (Cow<'t, str>, u32) {
        let (mut text, mut found) = self.redact_once(text);
        for _ in 0..3 {
            let (again, more) = self.redact_once(&text);
            if more == 0 {
                break;
            }
            let again = again.into_owned();
            text = Cow::Owned(again);
            found += more;
        }
        (text, found)
    }

    /// One pass of every pattern that matches.
    fn redact_once<'t>(&self, text: &'t str) -> (Cow<'t, str>, u32) {
        let matched = self.set.matches(text);
        if !matched.matched_any() {
            return (Cow::Borrowed(text), 0);
        }
        let mut text = Cow::Borrowed(text);
        let mut found = 0;
        for index in matched.iter() {
            let Some(rule) = self.rules.get(index) else {
                continue;
            };
            let replaced = rule.regex.replace_all(&text, |captures: &Captures<'_>| {
                let (redacted, fresh) = replacement(captures, &rule.kind);
                found += u32::from(fresh);
                redacted
            });
            if let Cow::Owned(replaced) = replaced {
                text = Cow::Owned(replaced);
            }
        }
        (text, found)
    }

    /// Redacts every string in `value` in place (and, whole, the string value of a key
    /// that names a secret, such as `password` or `api_key`); how many secrets were found.
    pub fn redact_value(&self, value: &mut Value) -> u32 {
        match value {
            Value::String(text) => self.redact_string(text),
            Value::Array(items) => items.iter_mut().map(|item| self.redact_value(item)).sum(),
            Value::Object(object) => self.redact_object(object),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }

    fn is_secret_key(&self, key: &str) -> bool {
        self.secret_key
            .as_ref()
            .is_some_and(|regex| regex.is_match(key))
    }

    /// An input line, redacted, for the audit copy: a JSON line is redacted value by
    /// value and written again (its structure intact); any other line as text.
    pub fn redact_line<'b>(&self, bytes: &'b [u8]) -> Cow<'b, [u8]> {
        if let Ok(mut value) = serde_json::from_slice::<Value>(bytes) {
            if self.redact_value(&mut value) == 0 {
                return Cow::Borrowed(bytes);
            }
            if let Ok(line) = serde_json::to_vec(&value) {
                return Cow::Owned(line);
            }
        }
        let text = String::from_utf8_lossy(bytes);
        match self.redact_text(&text) {
            (_, 0) => Cow::Borrowed(bytes),
            (redacted, _) => Cow::Owned(redacted.into_owned().into_bytes()),
        }
    }
}

/// What a match becomes: the whole match, or (for a pattern with groups) the first group
/// that took part, replaced by `[REDACTED:<kind>]`; and whether it was a new find (a
/// secret an earlier pattern already replaced keeps its kind).
fn replacement(captures: &Captures<'_>, kind: &str) -> (String, bool) {
    let Some(whole) = captures.get(0) else {
        return (String::new(), false);
    };
    let secret = captures.iter().skip(1).flatten().next().unwrap_or(whole);
    // A value that begins with a marker was found already (redacting twice changes
    // nothing).
    if secret.as_str().starts_with("[REDACTED:") {
        return (whole.as_str().to_owned(), false);
    }
    let (before, after) = (secret.start() - whole.start(), secret.end() - whole.start());
    let text = whole.as_str();
    let redacted = format!("{}[REDACTED:{kind}]{}", &text[..before], &text[after..]);
    (redacted, true)
}

/// Whether a text is already a redaction marker (redacting twice changes nothing).
fn is_redacted(text: &str) -> bool {
    text.starts_with("[REDACTED:") && text.ends_with(']')
}

#[cfg(test)]
mod tests;
