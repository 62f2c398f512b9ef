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
//! When no rule gives a title, a `verb_object` tool name becomes action text:
//! `create_issue` → `Creating issue`.

pub(crate) mod describe;
pub mod mcp;

use serde::Deserialize;
use serde_json::Value;
use toolnorm::ToolKind;

use crate::error::Error;

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
#[derive(Debug, Clone, Default)]
pub struct TitleRules {
    /// Shared: copying a rule set (one per adapter) is cheap.
    rules: std::sync::Arc<[Rule]>,
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
}

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
enum Source {
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
    /// The built-in rules.
    pub fn builtin() -> Self {
        // Parsed once per process, then copied.
        static BUILTIN: std::sync::OnceLock<TitleRules> = std::sync::OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                // The built-in files are tested to parse; a file that did not would add no
                // rule (and fail the test suite) rather than panic here.
                crate::registry::rules_files()
                    .iter()
                    .filter_map(|(origin, text)| TitleRules::from_toml(text, origin).ok())
                    .fold(TitleRules::default(), TitleRules::then)
            })
            .clone()
    }

    /// Parses rules from TOML; `origin` names the source in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, Error> {
        let file: RulesFile = toml::from_str(text).map_err(|error| Error::Rules {
            origin: origin.to_owned(),
            message: error.to_string(),
        })?;
        let rules = file
            .rules
            .into_iter()
            .map(|mut spec| {
                spec.provider = spec.provider.or_else(|| file.defaults.provider.clone());
                spec.source = spec.source.or(file.defaults.source);
                Rule::compile(spec, origin)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TitleRules {
            rules: rules.into(),
        })
    }

    /// These rules, then `fallback`'s.
    #[must_use]
    pub fn then(self, fallback: TitleRules) -> Self {
        let rules: Vec<Rule> = self
            .rules
            .iter()
            .chain(fallback.rules.iter())
            .cloned()
            .collect();
        TitleRules {
            rules: rules.into(),
        }
    }

    /// Only the rules that can match `provider`'s tools (fewer rules to try per call).
    #[must_use]
    pub fn for_provider(&self, provider: &str) -> Self {
        let rules: Vec<Rule> = self
            .rules
            .iter()
            .filter(|rule| rule.provider.as_deref().is_none_or(|own| own == provider))
            .cloned()
            .collect();
        TitleRules {
            rules: rules.into(),
        }
    }

    /// The title of the first matching rule whose template resolves.
    pub fn title(&self, tool: &ToolRef<'_>) -> Option<String> {
        self.rules
            .iter()
            .filter(|rule| rule.matches(tool))
            .flat_map(|rule| &rule.titles)
            .find_map(|template| template.render(tool))
    }

    /// The kind of the first matching rule that names one.
    pub fn kind(&self, tool: &ToolRef<'_>) -> Option<ToolKind> {
        self.rules
            .iter()
            .filter(|rule| rule.matches(tool))
            .find_map(|rule| rule.kind)
    }
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
                path.get(tool.input).and_then(scalar_text).as_deref() == Some(expected)
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

/// A title template: literal text and `{field|filter}` holes.
#[derive(Debug, Clone)]
struct Template {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Field { path: FieldPath, filter: Filter },
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
    fn parse(text: &str, origin: &str) -> Result<Self, Error> {
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
            let filter = match filter {
                "" => Filter::None,
                "host" => Filter::Host,
                "line" => Filter::Line,
                "file" => Filter::File,
                "quote" => Filter::Quote,
                "relpath" => Filter::RelPath,
                "shell" => Filter::Shell,
                other => return Err(bad(format!("unknown filter `{other}` in title {text:?}"))),
            };
            let path = FieldPath::parse(field.trim(), origin)?;
            pieces.push(Piece::Field { path, filter });
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_owned()));
        }
        Ok(Template { pieces })
    }

    /// The title, when every field is present and not empty.
    fn render(&self, tool: &ToolRef<'_>) -> Option<String> {
        let mut title = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => title.push_str(text),
                Piece::Field { path, filter } => {
                    let text = scalar_text(path.get(tool.input)?)?;
                    let text = filter.apply(text.trim(), tool.cwd)?;
                    if text.is_empty() {
                        return None;
                    }
                    title.push_str(&text);
                }
            }
        }
        Some(title)
    }
}

impl Filter {
    fn apply(self, text: &str, cwd: Option<&str>) -> Option<String> {
        match self {
            Filter::RelPath => Some(relative_to(text, cwd).to_owned()),
            Filter::Shell => Filter::Line.apply(&unwrap_shell(text), cwd),
            Filter::None => Some(text.to_owned()),
            Filter::Host => Some(host_of(text)?.to_owned()),
            Filter::Line => text
                .lines()
                .find(|line| !line.trim().is_empty())
                .map(|line| line.trim().to_owned()),
            Filter::File => text.rsplit(['/', '\\']).next().map(str::to_owned),
            Filter::Quote => Some(format!("\"{text}\"")),
        }
    }
}

/// A scalar as text: strings as they are, numbers and booleans written out.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// A path into the input: `a.b`, `items.0.name`, or `todos[status=in_progress].activeForm`
/// (the first array element whose `status` is `in_progress`).
#[derive(Debug, Clone)]
struct FieldPath {
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
    fn parse(text: &str, origin: &str) -> Result<Self, Error> {
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
        Ok(FieldPath { steps })
    }

    fn get<'v>(&self, input: &'v Value) -> Option<&'v Value> {
        self.steps.iter().try_fold(input, |value, step| match step {
            Step::Key(key) => match value {
                Value::Array(items) => items.get(key.parse::<usize>().ok()?),
                _ => value.get(key),
            },
            Step::Find {
                key,
                field,
                value: wanted,
            } => value.get(key)?.as_array()?.iter().find(|item| {
                item.get(field)
                    .and_then(scalar_text)
                    .is_some_and(|text| text == *wanted)
            }),
        })
    }
}

/// `path` relative to `cwd` when it lies inside it; otherwise `path` as it is.
pub fn relative_to<'p>(path: &'p str, cwd: Option<&str>) -> &'p str {
    let Some(cwd) = cwd
        .map(|cwd| cwd.trim_end_matches('/'))
        .filter(|cwd| !cwd.is_empty())
    else {
        return path;
    };
    match path.strip_prefix(cwd) {
        Some("") => ".",
        Some(rest) if rest.starts_with('/') => &rest[1..],
        _ => path,
    }
}

/// The script of a shell wrapper (`/bin/bash -lc "ls -la"` → `ls -la`); other commands as
/// they are.
pub fn unwrap_shell(command: &str) -> String {
    let Some(words) = shlex::split(command) else {
        return command.to_owned();
    };
    match words.as_slice() {
        [shell, flag, script]
            if is_shell(shell) && matches!(flag.as_str(), "-c" | "-lc" | "-ic" | "-lic") =>
        {
            script.clone()
        }
        _ => command.to_owned(),
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "bash" | "sh" | "zsh" | "dash" | "fish")
}

/// The host of a URL (`https://apnews.com/x` → `apnews.com`), `www.` dropped; a bare
/// host is returned as it is.
pub fn host_of(text: &str) -> Option<&str> {
    let after_scheme = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    let host = host.strip_prefix("www.").unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

/// Turns a `verb_object` tool name into action text: `create_issue` → `Creating issue`,
/// `getWeather` → `Getting weather`. `None` for a name with no word.
pub fn action_text(tool: &str) -> Option<String> {
    let words = split_words(tool);
    let (verb, object) = words.split_first()?;
    let mut title = capitalize(&gerund(verb));
    for word in object {
        title.push(' ');
        title.push_str(word);
    }
    Some(title)
}

fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for chunk in name.split(['_', '-', '.', ' ']) {
        let mut word = String::new();
        let mut previous_lower = false;
        for c in chunk.chars() {
            if c.is_uppercase() && previous_lower && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The -ing form of an English verb, by the usual spelling rules and a few exceptions.
fn gerund(verb: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("be", "being"),
        ("see", "seeing"),
        ("lie", "lying"),
        ("die", "dying"),
        ("tie", "tying"),
        ("ls", "listing"),
        ("rm", "removing"),
        ("mv", "moving"),
        ("cp", "copying"),
        ("mkdir", "making directory"),
        ("cd", "changing directory"),
    ];
    if let Some((_, form)) = IRREGULAR.iter().find(|(base, _)| *base == verb) {
        return (*form).to_owned();
    }
    if verb.ends_with("ing") && verb.len() > 4 {
        return verb.to_owned();
    }
    let chars: Vec<char> = verb.chars().collect();
    let vowel = |c: char| "aeiou".contains(c);
    match chars.as_slice() {
        [.., a, 'e'] if !vowel(*a) && *a != 'e' => format!("{}ing", &verb[..verb.len() - 1]),
        // Short consonant-vowel-consonant verbs double the last consonant: get → getting.
        [c1, v, c2] if !vowel(*c1) && vowel(*v) && !vowel(*c2) && !"wxy".contains(*c2) => {
            format!("{verb}{c2}ing")
        }
        _ => format!("{verb}ing"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn title(
        rules: &TitleRules,
        provider: &str,
        tool: &str,
        server: Option<&str>,
        input: Value,
    ) -> Option<String> {
        rules.title(&ToolRef {
            provider,
            tool,
            server,
            input: &input,
            cwd: Some("/work"),
        })
    }

    #[test]
    fn builtin_rules_parse() {
        for (origin, text) in crate::registry::rules_files() {
            TitleRules::from_toml(text, origin).unwrap();
        }
        assert!(!TitleRules::builtin().rules.is_empty());
    }

    #[test]
    fn contract_mcp_titles() {
        let rules = TitleRules::builtin();
        let amalgm = Some("amalgm");
        assert_eq!(
            title(&rules, "codex", "browser_snapshot", amalgm, json!({})).as_deref(),
            Some("Reading browser page")
        );
        assert_eq!(
            title(
                &rules,
                "codex",
                "browser_navigate",
                amalgm,
                json!({"url": "https://x.y"})
            )
            .as_deref(),
            Some("Opening browser page")
        );
        assert_eq!(
            title(
                &rules,
                "claude-code",
                "artifacts_register",
                amalgm,
                json!({"name": "Spotify Clone"})
            )
            .as_deref(),
            Some("Registering artifact Spotify Clone")
        );
        assert_eq!(
            title(&rules, "opencode", "browser_tabs_new", amalgm, json!({})).as_deref(),
            Some("Opening browser tab")
        );
    }

    #[test]
    fn rules_for_one_provider_keep_their_order_and_the_rules_for_any_provider() {
        let rules = TitleRules::from_toml(
            r#"
            [[rule]]
            tool = "run"
            provider = "codex"
            title = "Codex {a}"
            [[rule]]
            tool = "run"
            provider = "opencode"
            title = "OpenCode {a}"
            [[rule]]
            tool = "run"
            title = "Any {a}"
            "#,
            "user.toml",
        )
        .unwrap();
        for provider in ["codex", "opencode", "claude-code"] {
            let only = rules.for_provider(provider);
            for input in [json!({"a": 1}), json!({})] {
                assert_eq!(
                    title(&only, provider, "run", None, input.clone()),
                    title(&rules, provider, "run", None, input)
                );
            }
        }
        assert_eq!(rules.for_provider("codex").rules.len(), 2);
        assert_eq!(rules.for_provider("claude-code").rules.len(), 1);
    }

    #[test]
    fn user_rules_come_first_and_alternatives_fall_through() {
        let user = TitleRules::from_toml(
            r#"
            [[rule]]
            tool = "deploy_*"
            server = "ops"
            title = ["Deploying {service} to {target.env}", "Deploying {service}"]
            kind = "bash"
            "#,
            "user.toml",
        )
        .unwrap()
        .then(TitleRules::builtin());
        let tool = |input: Value| title(&user, "codex", "deploy_app", Some("ops"), input);
        assert_eq!(
            tool(json!({"service": "api", "target": {"env": "prod"}})).as_deref(),
            Some("Deploying api to prod")
        );
        assert_eq!(
            tool(json!({"service": "api"})).as_deref(),
            Some("Deploying api")
        );
        assert_eq!(tool(json!({})), None);
        assert_eq!(
            title(
                &user,
                "codex",
                "deploy_app",
                Some("other"),
                json!({"service": "api"})
            ),
            None
        );
        let kind = user.kind(&ToolRef {
            provider: "codex",
            tool: "deploy_app",
            server: Some("ops"),
            input: &json!({}),
            cwd: None,
        });
        assert_eq!(kind, Some(ToolKind::Bash));
    }

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

    #[test]
    fn patterns() {
        assert!(Pattern::new("browser_*").matches("browser_navigate"));
        assert!(!Pattern::new("browser_*").matches("xbrowser_navigate"));
        assert!(Pattern::new("*_new").matches("tabs_new"));
        assert!(Pattern::new("a*b*c").matches("abc"));
        assert!(!Pattern::new("a*b*c").matches("acb"));
        assert!(Pattern::new("exact").matches("exact"));
        assert!(!Pattern::new("exact").matches("exactly"));
        assert!(Pattern::new("*").matches(""));
    }

    #[test]
    fn generic_action_text() {
        assert_eq!(
            action_text("create_issue").as_deref(),
            Some("Creating issue")
        );
        assert_eq!(
            action_text("getWeather").as_deref(),
            Some("Getting weather")
        );
        assert_eq!(
            action_text("list_pull_requests").as_deref(),
            Some("Listing pull requests")
        );
        assert_eq!(action_text("write").as_deref(), Some("Writing"));
        assert_eq!(action_text("run-tests").as_deref(), Some("Running tests"));
        assert_eq!(action_text("search").as_deref(), Some("Searching"));
        assert_eq!(action_text("echo").as_deref(), Some("Echoing"));
        assert_eq!(action_text("__"), None);
    }

    #[test]
    fn shell_wrappers_are_unwrapped() {
        assert_eq!(
            unwrap_shell("/bin/bash -lc \"echo hi; exit 3\""),
            "echo hi; exit 3"
        );
        assert_eq!(unwrap_shell("bash -c 'rm notes.txt'"), "rm notes.txt");
        assert_eq!(unwrap_shell("ls -la"), "ls -la");
        assert_eq!(unwrap_shell("python -c 'print(1)'"), "python -c 'print(1)'");
        assert_eq!(
            unwrap_shell("bash -lc \"unterminated"),
            "bash -lc \"unterminated"
        );
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://apnews.com"), Some("apnews.com"));
        assert_eq!(
            host_of("http://user@www.example.org:8080/x"),
            Some("example.org")
        );
        assert_eq!(host_of("apnews.com/politics"), Some("apnews.com"));
        assert_eq!(host_of(""), None);
    }
}
