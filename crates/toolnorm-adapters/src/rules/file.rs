//! The rules file format (TOML), and loading it (the built-in files are the dialect
//! folders').

use serde::Deserialize;
use toolnorm::ToolKind;

use super::template::{FieldPath, Template};
use super::{Pattern, Rule, TitleRules};
use crate::error::Error;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    defaults: Defaults,
    #[serde(default, rename = "rule")]
    rules: Vec<RuleSpec>,
}

/// Values every rule of a file takes unless it sets its own.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    provider: Option<String>,
    source: Option<Source>,
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
    kind: Option<ToolKind>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl TitleRules {
    /// Parses rules from TOML; `origin` names the source in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, Error> {
        Ok(TitleRules::of(compile_file(text, origin)?))
    }

    /// Parses rules from `(origin, text)` TOML sources, in order: the rules of the first
    /// source are tried first. The error is the first source's that does not parse.
    pub fn from_sources(sources: &[(&str, &str)]) -> Result<Self, Error> {
        let mut rules = Vec::new();
        for (origin, text) in sources {
            rules.extend(compile_file(text, origin)?);
        }
        Ok(TitleRules::of(rules))
    }
}

/// The rules of one file, in order, its defaults applied.
fn compile_file(text: &str, origin: &str) -> Result<Vec<Rule>, Error> {
    let file: RulesFile = toml::from_str(text).map_err(|error| Error::Rules {
        origin: origin.to_owned(),
        message: error.to_string(),
    })?;
    file.rules
        .into_iter()
        .map(|mut spec| {
            spec.provider = spec.provider.or_else(|| file.defaults.provider.clone());
            spec.source = spec.source.or(file.defaults.source);
            Rule::compile(spec, origin)
        })
        .collect()
}

impl Rule {
    fn compile(spec: RuleSpec, origin: &str) -> Result<Self, Error> {
        let titles = match spec.title {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(title) => vec![title],
            OneOrMany::Many(titles) => titles,
        };
        let titles = titles
            .iter()
            .map(|text| Template::parse(text, origin))
            .collect::<Result<_, _>>()?;
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
            kind: spec.kind,
        })
    }
}

#[cfg(test)]
mod tests {
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
