//! Titles: the human line of a tool call, from rules users can extend without recompiling.
//!
//! A rule matches a tool by its bare name (for MCP tools, the name without the server),
//! optionally only for one provider or MCP server, and gives a title template, a kind,
//! or both. Templates read the call's input: `{name}` is the input's `name` field,
//! `{a.b}` a nested one, and filters shape a value: `{url|host}`, `{command|line}`,
//! `{path|file}`, `{pattern|quote}`. A template whose fields are missing or empty is
//! skipped, so a rule can list alternatives from most to least specific.
//!
//! Rules come from TOML (see `rules/default.toml`, which is built in):
//!
//! ```toml
//! [[rule]]
//! tool = "artifacts_register"
//! title = ["Registering artifact {name}", "Registering artifact"]
//!
//! [[rule]]
//! tool = "browser_*"
//! kind = "browser"
//! ```
//!
//! A rule's `when` narrows it to calls whose input has these values (`when = {
//! "action.type" = "search" }`); the value `"*"` stands for any value that is there and
//! not empty (`when = { cell_id = "*" }`).
//!
//! When no rule gives a title, a `verb_object` tool name becomes action text:
//! `create_issue` → `Creating issue`.
//!
//! # Kinds
//!
//! A rule's `kind` names a bucket of the canonical part (`bash`, `file_read`, …) or a
//! kind of `rules/kinds.toml`, which is finer (`glob` and `grep` are `file_read` calls)
//! and carries the title every dialect gives that kind of call, written once:
//!
//! ```toml
//! [[kind]]
//! name = "glob"
//! bucket = "file_read"
//! title = ["Finding {pattern} in {path|relpath}", "Finding {pattern}", "Finding files"]
//! ```
//!
//! A dialect's rules file maps its tools to kinds and opts into their titles with
//! `kind_title = true` in its `[defaults]`: a rule there with a `kind` and no `title` takes
//! its kind's titles (a rule with a `title` keeps its own). The holes of a kind's titles
//! use the argument names most dialects use; a dialect that spells one otherwise says so
//! in its `[aliases]` table, for the whole file, or in a rule's `aliases`, for that rule:
//!
//! ```toml
//! [defaults]
//! provider = "opencode"
//! kind_title = true
//!
//! [aliases]
//! file_path = "filePath"                 # `{file_path|relpath}` reads `filePath`
//! current_todo = []                      # this dialect has no such argument
//!
//! [[rule]]
//! tool = "read"
//! kind = "read"                          # "Reading {file_path|relpath}", "Reading a file"
//! aliases = { file_path = ["filePath", "path"] }   # the first present, in order
//! ```
//!
//! An alias with a filter (`command = "command|shell"`) applies that filter instead of
//! the hole's. Aliases apply to kind titles only, never to a rule's own templates.
//! `kind_plain_titles = false` in `[defaults]` leaves out a kind's templates without
//! holes (`Running a command`), for a dialect whose calls have a title of their own to
//! fall back on.
//!
//! A user's `--rules` file goes before the built-in rules, so its rules win; a `[[kind]]`
//! in it replaces that kind's titles for every dialect (a new kind needs a `bucket`):
//!
//! ```toml
//! [[kind]]
//! name = "bash"
//! title = ["$ {command|line}", "Running a command"]
//! ```
//!
//! The parts:
//!
//! - this module: the rule set ([`TitleRules`]), what a rule is matched against
//!   ([`ToolRef`]), and matching;
//! - [`file`](mod@file): the TOML format, loading it ([`TitleRules::from_toml`],
//!   [`TitleRules::from_sources`], [`TitleRules::builtin`]: each dialect's file as
//!   the dialect table lists it, then `rules/default.toml`);
//! - [`kinds`]: the kinds of `rules/kinds.toml` and a file's `[[kind]]` tables;
//! - [`template`]: the template language (pieces, filters, field paths, aliases);
//! - [`words`]: English, for action text ([`action_text`]);
//! - [`text`]: path, URL and shell helpers ([`relative_to`](text::relative_to),
//!   [`unwrap_shell`](text::unwrap_shell), [`host_of`](text::host_of));
//! - [`describe`]: kind and title with the fallbacks every adapter shares;
//! - [`mcp`]: telling an MCP tool's server and name apart.

mod builtin;
pub(crate) mod describe;
pub(crate) mod file;
mod kinds;
pub mod mcp;
mod template;
#[cfg(test)]
mod tests;
mod text;
mod words;

use serde_json::Value;
use toolnorm::ToolKind;

use file::Source;
use kinds::{KindTitle, Kinds};
use template::{FieldPath, Template, scalar_text};
pub use words::action_text;

/// What a rule is matched against.
#[derive(Debug, Clone, Copy)]
pub struct ToolRef<'a> {
    /// The provider (`claude-code`, `codex`, `opencode`, …).
    pub provider: &'a str,
    /// The bare tool name (for MCP tools, without the server).
    pub tool: &'a str,
    /// The MCP server, for MCP tools.
    pub server: Option<&'a str>,
    /// The call's input.
    pub input: &'a Value,
    /// The session's working directory, for paths shown relative to it.
    pub cwd: Option<&'a str>,
}

/// A set of compiled rules, matched in order.
///
/// A user's rules go before the built-in ones, so that theirs win:
///
/// ```
/// use toolnorm_adapters::{Normalizer, TitleRules};
///
/// let mine = r#"
/// [[rule]]
/// provider = "claude-code"
/// tool = "Bash"
/// title = "Shell: {command|line}"
/// "#;
/// let rules = TitleRules::from_toml(mine, "mine.toml")?.then(TitleRules::builtin());
/// let mut normalizer = Normalizer::builder().rules(rules).build();
/// let line = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]}}"#;
/// normalizer.push(line.as_bytes(), &mut |_| {});
/// normalizer.finish(&mut |_| {});
/// assert_eq!(normalizer.fold().parts()[0].title, "Shell: ls -la");
/// # Ok::<(), toolnorm_adapters::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct TitleRules {
    /// Shared: copying a rule set (one per adapter) is cheap.
    rules: std::sync::Arc<[Rule]>,
    /// Which rules can match a tool name, so that a lookup tries only those.
    by_name: std::sync::Arc<ByName>,
    /// The kinds the rules' files define (over the built-in `rules/kinds.toml`).
    kinds: std::sync::Arc<Kinds>,
    /// Each provider's rules ([`for_provider`](Self::for_provider)), made once for every
    /// copy of this set: a normalizer per file then costs no copy of the rules.
    providers: std::sync::Arc<std::sync::Mutex<Vec<(String, TitleRules)>>>,
    /// The built-in rules, not compiled until used: a provider's rules compile only its
    /// own files, anything else the whole set (each once per process).
    lazy: Option<&'static LazyBuiltin>,
}

/// Where the built-in rules come from when first used (the dialect table's files).
#[derive(Debug)]
pub(crate) struct LazyBuiltin {
    /// The whole set, compiled once.
    pub whole: fn() -> &'static TitleRules,
    /// The rules of the files that can hold one provider's rules, and the generic ones.
    pub provider_files: fn(&str) -> TitleRules,
}

#[derive(Debug, Clone)]
struct Rule {
    tool: Pattern,
    provider: Option<String>,
    source: Option<Source>,
    server: Option<Pattern>,
    when: Vec<(FieldPath, String)>,
    titles: Vec<Template>,
    kind: Option<ToolKind>,
    /// For a rule that takes its kind's titles: what they are resolved from.
    kind_title: Option<std::sync::Arc<KindTitle>>,
}

impl TitleRules {
    /// A rule set of `rules`, in order, the titles of the rules that take their kind's
    /// resolved in `kinds`.
    fn of(mut rules: Vec<Rule>, kinds: Kinds) -> Self {
        for rule in &mut rules {
            if let Some(from) = &rule.kind_title {
                rule.titles = kinds.titles(&from.name, &from.aliases, from.plain);
            }
        }
        TitleRules::indexed(rules, std::sync::Arc::new(kinds))
    }

    /// A rule set of `rules` whose titles are resolved, in order.
    fn indexed(rules: Vec<Rule>, kinds: std::sync::Arc<Kinds>) -> Self {
        TitleRules {
            by_name: std::sync::Arc::new(ByName::of(&rules)),
            rules: rules.into(),
            kinds,
            providers: std::sync::Arc::default(),
            lazy: None,
        }
    }

    /// How many rules the set holds.
    #[cfg(test)]
    pub(crate) fn rules_len(&self) -> usize {
        self.set().rules.len()
    }

    /// What each rule says, in order (for comparing rule sets): its fields but the
    /// kind it took its titles from, which the titles hold.
    #[cfg(test)]
    pub(crate) fn rules_said(&self) -> Vec<String> {
        self.set()
            .rules
            .iter()
            .map(|rule| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                    rule.tool,
                    rule.provider,
                    rule.source,
                    rule.server,
                    rule.when,
                    rule.titles,
                    rule.kind
                )
            })
            .collect()
    }

    /// The built-in rules before they are compiled: they compile when first used.
    pub(crate) fn lazy_builtin(builtin: &'static LazyBuiltin) -> Self {
        TitleRules {
            lazy: Some(builtin),
            ..TitleRules::default()
        }
    }

    /// These rules compiled: the whole built-in set when these stand for it.
    pub(crate) fn whole(&self) -> &TitleRules {
        self.set()
    }

    /// The rules themselves: these, or the whole built-in set when these stand for it.
    fn set(&self) -> &TitleRules {
        match self.lazy {
            Some(builtin) => (builtin.whole)(),
            None => self,
        }
    }

    /// These rules, then `fallback`'s. A kind both define titles calls as these rules'
    /// define it, `fallback`'s rules included.
    #[must_use]
    pub fn then(self, fallback: TitleRules) -> Self {
        let (first, fallback) = (self.set(), fallback.set());
        let rules = first.rules.iter().chain(fallback.rules.iter()).cloned();
        TitleRules::of(rules.collect(), first.kinds.then(&fallback.kinds))
    }

    /// Only the rules that can match `provider`'s tools (fewer rules to try per call).
    #[must_use]
    pub fn for_provider(&self, provider: &str) -> Self {
        // A poisoned lock still holds whole entries: each is pushed complete.
        let mut made = self
            .providers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, rules)) = made.iter().find(|(name, _)| name == provider) {
            return rules.clone();
        }
        // The built-in rules not compiled yet compile only the files that can hold these.
        let compiled;
        let from = match self.lazy {
            Some(builtin) => {
                compiled = (builtin.provider_files)(provider);
                &compiled
            }
            None => self,
        };
        let rules = from
            .rules
            .iter()
            .filter(|rule| rule.provider.as_deref().is_none_or(|own| own == provider));
        let rules = TitleRules::indexed(rules.cloned().collect(), from.kinds.clone());
        made.push((provider.to_owned(), rules.clone()));
        rules
    }

    /// The rules that match `tool`, in order.
    fn matching<'a>(&'a self, tool: &'a ToolRef<'_>) -> impl Iterator<Item = &'a Rule> {
        let set = self.set();
        set.by_name
            .candidates(tool.tool)
            .filter_map(|index| set.rules.get(index))
            .filter(|rule| rule.matches(tool))
    }

    /// The title of the first matching rule whose template resolves.
    pub fn title(&self, tool: &ToolRef<'_>) -> Option<String> {
        self.matching(tool)
            .flat_map(|rule| &rule.titles)
            .find_map(|template| template.render(tool))
    }

    /// The kind of the first matching rule that names one.
    pub fn kind(&self, tool: &ToolRef<'_>) -> Option<ToolKind> {
        self.matching(tool).find_map(|rule| rule.kind)
    }

    /// [`kind`](Self::kind) and [`title`](Self::title) at once, each rule matched once.
    pub fn kind_and_title(&self, tool: &ToolRef<'_>) -> (Option<ToolKind>, Option<String>) {
        let (mut kind, mut title) = (None, None);
        for rule in self.matching(tool) {
            if kind.is_none() {
                kind = rule.kind;
            }
            if title.is_none() {
                title = rule
                    .titles
                    .iter()
                    .find_map(|template| template.render(tool));
            }
            if kind.is_some() && title.is_some() {
                break;
            }
        }
        (kind, title)
    }

    /// The tools these rules know as `provider`'s built-in tools: the exact (`*`-free)
    /// names of the rules for that provider with `source = "builtin"`, in rule order, each
    /// once. A provider's list of built-in tools is read from here, not kept in code.
    pub fn tools(&self, provider: &str) -> impl Iterator<Item = &str> {
        let mut seen = std::collections::HashSet::new();
        self.set()
            .rules
            .iter()
            .filter_map(move |rule| rule.builtin_tool(provider))
            .filter(move |tool| seen.insert(*tool))
    }

    /// Whether `tool` is one of `provider`'s built-in tools by these rules (see
    /// [`tools`](Self::tools)).
    pub fn knows(&self, provider: &str, tool: &str) -> bool {
        self.builtin_providers(tool).any(|owner| owner == provider)
    }

    /// The providers whose built-in tool `tool` is by these rules, in rule order (one
    /// may come more than once): one lookup, for a stream whose calls may be of any
    /// provider's tools.
    pub fn builtin_providers<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'a str> {
        // Only a rule whose pattern is exactly `tool` names it as a built-in tool.
        let set = self.set();
        set.by_name
            .exact
            .get(tool)
            .into_iter()
            .flatten()
            .filter_map(|&index| set.rules.get(index))
            .filter_map(move |rule| rule.builtin_owner(tool))
    }
}

/// The rules by the tool names they can match: a rule whose pattern is an exact name can
/// match only that name; the others (with a `*`) are tried for every name.
#[derive(Debug, Default)]
struct ByName {
    /// The rules of each exact name, in rule order.
    exact: foldhash::HashMap<String, Vec<usize>>,
    /// The rules with a `*` in their pattern, in rule order.
    patterns: Vec<usize>,
}

impl ByName {
    fn of(rules: &[Rule]) -> Self {
        let mut by_name = ByName::default();
        for (index, rule) in rules.iter().enumerate() {
            match rule.tool.exact() {
                Some(name) => by_name
                    .exact
                    .entry(name.to_owned())
                    .or_default()
                    .push(index),
                None => by_name.patterns.push(index),
            }
        }
        by_name
    }

    /// The indexes of the rules that can match `name`, in rule order: its exact rules
    /// and the patterns, merged.
    fn candidates(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        let exact = self.exact.get(name).map_or(&[][..], Vec::as_slice);
        let mut exact = exact.iter().copied().peekable();
        let mut patterns = self.patterns.iter().copied().peekable();
        std::iter::from_fn(move || match (exact.peek(), patterns.peek()) {
            (Some(a), Some(b)) if b < a => patterns.next(),
            (Some(_), _) => exact.next(),
            (None, _) => patterns.next(),
        })
    }
}

impl Rule {
    /// The exact tool name of a rule for `provider`'s built-in tools.
    fn builtin_tool(&self, provider: &str) -> Option<&str> {
        if self.source != Some(Source::Builtin) || self.provider.as_deref() != Some(provider) {
            return None;
        }
        self.tool.exact()
    }

    /// The provider of a rule for its built-in tool `tool` (its pattern exactly that).
    fn builtin_owner(&self, tool: &str) -> Option<&str> {
        if self.source != Some(Source::Builtin) || self.tool.exact() != Some(tool) {
            return None;
        }
        self.provider.as_deref()
    }

    fn matches(&self, tool: &ToolRef<'_>) -> bool {
        // Cheapest test first: most rules are for another provider.
        self.provider
            .as_deref()
            .is_none_or(|provider| provider == tool.provider)
            && self.tool.matches(tool.tool)
            && self
                .source
                .is_none_or(|source| (source == Source::Mcp) == tool.server.is_some())
            && self
                .server
                .as_ref()
                .is_none_or(|server| tool.server.is_some_and(|name| server.matches(name)))
            && self.when.iter().all(|(path, expected)| {
                let value = path.get(tool.input).and_then(scalar_text);
                match expected.as_str() {
                    // Any value: the field is there and not empty.
                    "*" => value.is_some_and(|value| !value.is_empty()),
                    _ => value.as_deref() == Some(expected),
                }
            })
    }
}

/// A name pattern: exact, or with `*` standing for any run of characters.
#[derive(Debug, Clone)]
struct Pattern {
    parts: Vec<String>,
}

impl Pattern {
    fn new(text: &str) -> Self {
        Pattern {
            parts: text.split('*').map(str::to_owned).collect(),
        }
    }

    /// The name, when the pattern has no `*`.
    fn exact(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [only] => Some(only),
            _ => None,
        }
    }

    fn matches(&self, name: &str) -> bool {
        let [first, middle @ .., last] = self.parts.as_slice() else {
            return self.parts.first().is_some_and(|only| only == name);
        };
        let Some(mut rest) = name.strip_prefix(first.as_str()) else {
            return false;
        };
        for part in middle {
            match rest.find(part.as_str()) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
        rest.len() >= last.len() && rest.ends_with(last.as_str())
    }
}
