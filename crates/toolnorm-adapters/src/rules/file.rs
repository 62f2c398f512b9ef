//! The rules file format (TOML), and loading it (the built-in files are the dialect
//! folders').

use std::collections::BTreeMap;
use std::sync::Arc;

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::kinds::{KindSpec, KindTitle, Kinds};
use super::template::{Alias, Aliases, FieldPath, Template};
use super::{Pattern, Rule, TitleRules};
use crate::error::Error;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    defaults: Defaults,
    #[serde(default)]
    aliases: BTreeMap<String, OneOrMany>,
    #[serde(default, rename = "kind")]
    kinds: Vec<KindSpec>,
    #[serde(default, rename = "rule")]
    rules: Vec<RuleSpec>,
}

/// Values every rule of a file takes unless it sets its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    provider: Option<String>,
    source: Option<Source>,
    /// Whether a rule without a title takes its kind's titles.
    #[serde(default)]
    kind_title: bool,
    /// Whether, doing so, it takes the kind's templates without holes too.
    #[serde(default = "yes")]
    kind_plain_titles: bool,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            provider: None,
            source: None,
            kind_title: false,
            kind_plain_titles: true,
        }
    }
}

fn yes() -> bool {
    true
}

/// Whether a rule is for a provider's built-in tools or for MCP tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Source {
    Builtin,
    Mcp,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    tool: String,
    provider: Option<String>,
    source: Option<Source>,
    server: Option<String>,
    #[serde(default)]
    when: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    title: OneOrMany,
    kind: Option<String>,
    #[serde(default)]
    aliases: BTreeMap<String, OneOrMany>,
}

/// A string or a list of strings (`title`, an alias).
#[derive(Debug, Default)]
pub(super) enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

/// Read by what the value is (rather than by trying each variant in turn, which buffers
/// the value first).
impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OneOrManyVisitor)
    }
}

struct OneOrManyVisitor;

impl<'de> Visitor<'de> for OneOrManyVisitor {
    type Value = OneOrMany;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string or a list of strings")
    }

    fn visit_unit<E: de::Error>(self) -> Result<OneOrMany, E> {
        Ok(OneOrMany::None)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
        let mut texts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(text) = seq.next_element()? {
            texts.push(text);
        }
        Ok(OneOrMany::Many(texts))
    }
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(text) => vec![text],
            OneOrMany::Many(texts) => texts,
        }
    }
}

/// What one file compiles to: its rules, and the kinds it defines.
#[derive(Clone)]
pub(super) struct Compiled {
    pub(super) rules: Vec<Rule>,
    pub(super) kinds: Kinds,
}

impl TitleRules {
    /// Parses rules from TOML; `origin` names the source in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, Error> {
        let Compiled { rules, kinds } = compile_file(text, origin)?;
        Ok(TitleRules::of(rules, kinds))
    }

    /// Parses rules from `(origin, text)` TOML sources, in order: the rules of the first
    /// source are tried first. The error is the first source's that does not parse.
    pub fn from_sources(sources: &[(&str, &str)]) -> Result<Self, Error> {
        let compiled = sources
            .iter()
            .map(|(origin, text)| compile_file(text, origin))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TitleRules::joined(compiled))
    }

    /// The rules of the `(origin, text)` sources that parse, in order (the built-in
    /// files, each tested to parse: one that did not would add no rule rather than fail
    /// every reader).
    pub(crate) fn from_sources_that_parse(sources: &[(&'static str, &'static str)]) -> Self {
        let compiled = sources
            .iter()
            .filter_map(|&(origin, text)| compiled_builtin(origin, text));
        TitleRules::joined(compiled.collect())
    }

    /// The rule set of compiled files, in order, built once (the kinds' titles resolved
    /// once for the whole set).
    fn joined(files: Vec<Compiled>) -> Self {
        let mut rules = Vec::new();
        let mut kinds = Kinds::default();
        for compiled in files {
            rules.extend(compiled.rules);
            kinds = kinds.then(&compiled.kinds);
        }
        TitleRules::of(rules, kinds)
    }
}

/// A built-in file compiled, once per process (a copy each time): a stream whose calls
/// are of several providers (ACP) takes the generic file with each provider's own.
fn compiled_builtin(origin: &'static str, text: &'static str) -> Option<Compiled> {
    type Files = Vec<(&'static str, Option<Compiled>)>;
    static FILES: std::sync::Mutex<Files> = std::sync::Mutex::new(Vec::new());
    // A poisoned lock still holds whole entries: each is pushed complete.
    let mut files = FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, compiled)) = files.iter().find(|(file, _)| std::ptr::eq(*file, text)) {
        return compiled.clone();
    }
    let compiled = super::builtin::read::<RulesFile>(origin, text)
        .ok()
        .and_then(|file| compile_document(file, origin).ok());
    files.push((text, compiled.clone()));
    compiled
}

/// The rules of one file, in order, its defaults applied, and its kinds.
fn compile_file(text: &str, origin: &str) -> Result<Compiled, Error> {
    let file: RulesFile = toml::from_str(text).map_err(|error| Error::Rules {
        origin: origin.to_owned(),
        message: error.to_string(),
    })?;
    compile_document(file, origin)
}

/// [`compile_file`] of a file read.
fn compile_document(file: RulesFile, origin: &str) -> Result<Compiled, Error> {
    let kinds = Kinds::of(file.kinds, origin)?;
    let aliases = compile_aliases(file.aliases, origin)?;
    let rules = file
        .rules
        .into_iter()
        .map(|mut spec| {
            spec.provider = spec.provider.or_else(|| file.defaults.provider.clone());
            spec.source = spec.source.or(file.defaults.source);
            Rule::compile(spec, &file.defaults, &aliases, &kinds, origin)
        })
        .collect::<Result<_, _>>()?;
    Ok(Compiled { rules, kinds })
}

/// An `[aliases]` table: each argument name with its spellings.
fn compile_aliases(table: BTreeMap<String, OneOrMany>, origin: &str) -> Result<Aliases, Error> {
    table
        .into_iter()
        .map(|(name, spellings)| {
            let spellings = spellings
                .into_vec()
                .iter()
                .map(|text| Alias::parse(text, origin))
                .collect::<Result<_, _>>()?;
            Ok((name, spellings))
        })
        .collect()
}

impl Rule {
    fn compile(
        spec: RuleSpec,
        defaults: &Defaults,
        aliases: &Aliases,
        kinds: &Kinds,
        origin: &str,
    ) -> Result<Self, Error> {
        let titles: Vec<Template> = spec
            .title
            .into_vec()
            .iter()
            .map(|text| Template::parse(text, origin))
            .collect::<Result<_, _>>()?;
        let kind = match &spec.kind {
            Some(name) => Some(kinds.bucket(name, origin)?),
            None => None,
        };
        // A rule with no title of its own, in a file that opts in, takes its kind's.
        let kind_title = match (&spec.kind, titles.is_empty() && defaults.kind_title) {
            (Some(name), true) => {
                let mut aliases = aliases.clone();
                aliases.extend(compile_aliases(spec.aliases, origin)?);
                Some(Arc::new(KindTitle {
                    name: name.clone(),
                    aliases,
                    plain: defaults.kind_plain_titles,
                }))
            }
            _ => None,
        };
        let when = spec
            .when
            .iter()
            .map(|(path, value)| Ok((FieldPath::parse(path, origin)?, value.clone())))
            .collect::<Result<_, Error>>()?;
        Ok(Rule {
            tool: Pattern::new(&spec.tool),
            provider: spec.provider,
            source: spec.source,
            server: spec.server.as_deref().map(Pattern::new),
            when,
            titles,
            kind,
            kind_title,
        })
    }
}

#[cfg(test)]
mod tests {
    use toolnorm::ToolKind;

    use super::*;
    use crate::rules::ToolRef;

    #[test]
    fn bad_rules_are_reported_with_their_origin() {
        let error =
            TitleRules::from_toml("[[rule]]\ntool = \"x\"\ntitle = \"{a|nope}\"", "mine.toml")
                .unwrap_err();
        assert_eq!(
            error.to_string(),
            "mine.toml: unknown filter `nope` in title \"{a|nope}\""
        );
        let error = TitleRules::from_toml("[[rule]]\ntool = \"x\"\ntitle = \"{a\"", "mine.toml")
            .unwrap_err();
        assert!(error.to_string().contains("unclosed"), "{error}");
        assert!(TitleRules::from_toml("[[rule]]\ntoool = \"x\"", "mine.toml").is_err());
    }

    #[test]
    fn sources_are_read_in_order() {
        let first = ("first.toml", "[[rule]]\ntool = \"t\"\ntitle = \"First\"");
        let second = (
            "second.toml",
            "[[rule]]\ntool = \"t\"\ntitle = \"Second\"\nkind = \"bash\"",
        );
        let tool = ToolRef {
            provider: "p",
            tool: "t",
            server: None,
            input: &serde_json::json!({}),
            cwd: None,
        };
        let rules = TitleRules::from_sources(&[first, second]).unwrap();
        assert_eq!(rules.rules.len(), 2);
        assert_eq!(rules.title(&tool).as_deref(), Some("First"));
        assert_eq!(rules.kind(&tool), Some(ToolKind::Bash));
        let rules = TitleRules::from_sources(&[second, first]).unwrap();
        assert_eq!(rules.title(&tool).as_deref(), Some("Second"));
        assert!(TitleRules::from_sources(&[]).unwrap().rules.is_empty());

        let bad = ("bad.toml", "[[rule]]\ntool = \"x\"\ntitle = \"{a|nope}\"");
        let error = TitleRules::from_sources(&[first, bad, second]).unwrap_err();
        assert!(error.to_string().starts_with("bad.toml: "), "{error}");
    }
}
