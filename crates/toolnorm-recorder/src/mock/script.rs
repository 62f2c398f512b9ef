//! The scripted turns the three model APIs share: which scenario, part and
//! step a request selects, and the call inputs with their placeholders filled.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;
use std::sync::Mutex;
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use super::{BASE_URL_PLACEHOLDER, PLAIN_TEXT, WORK_PLACEHOLDER};
use crate::error::{Error, Result};
use crate::scenario::{Call, Dialect, Scenario, Turn, toml_to_json};

/// Size of the streamed argument chunks when a turn does not set one.
const DEFAULT_CHUNK: usize = 24;

/// What a CLI writes in its request to name its working directory, in the
/// order they are tried; the first group is the directory.
static WORK_DIR_PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"Primary working directory: ([^\\\s]+)",
        r"Working directory: ([^\\\s]+)",
        r"<cwd>([^<]+)</cwd>",
        // Gemini CLI: `**Workspace Directories:**\n  - /path`.
        r"Workspace Directories:\*\*\\n\s*- ([^\\\s]+)",
        r"working in the directory: ([^\\\s]+)",
        // Factory Droid: its environment reminder shows `% pwd` and the directory.
        r"% pwd\\n([^\\\s]+)",
        // Pi: `Current working directory: /path`.
        r#"Current working directory: ([^\\\s"]+)"#,
        // Kimi: ``The current working directory is `/path`.``
        r"current working directory is `([^`\\\s]+)`",
        // Mistral Vibe: `Absolute path: /path`.
        r"Absolute path: ([^\\\s]+)",
        // OpenHands' agent SDK: `Your current working directory is: /path`.
        r"current working directory is: ([^\\\s]+)",
    ]
    .into_iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// The scenarios the mock model plays, and what their inputs refer to.
pub(super) struct Script {
    scenarios: BTreeMap<String, Scenario>,
    /// `[[scenario:NAME]]` or `[[scenario:NAME#PART]]`.
    marker: Regex,
    base_url: String,
    /// The steps already answered with an overload (`overloaded_once`): the mock's only
    /// state, so that the retry gets the turn.
    overloaded: Mutex<HashSet<String>>,
}

impl Script {
    /// The script of a mock model serving at `base_url`.
    pub(super) fn new(scenarios: BTreeMap<String, Scenario>, base_url: String) -> Result<Self> {
        let marker = Regex::new(r"\[\[scenario:([A-Za-z0-9_.-]+)(?:#([A-Za-z0-9_.-]+))?\]\]")
            .map_err(|e| Error::Server(e.to_string()))?;
        Ok(Script {
            scenarios,
            marker,
            base_url,
            overloaded: Mutex::new(HashSet::new()),
        })
    }

    /// Whether `agent` writes its tool calls in its text (Cline 2.x's XML tools): its
    /// turns, in every scenario that has some, call no tool, so its requests declare no
    /// tools and are answered all the same.
    fn tools_in_text(&self, agent: &str) -> bool {
        let mut turns = self
            .scenarios
            .values()
            .filter_map(|scenario| scenario.agent_turns(agent, None))
            .flatten()
            .peekable();
        turns.peek().is_some() && turns.all(|turn| turn.calls.is_empty())
    }

    /// Whether the step of `key` is to be answered with an overload: the first time only.
    pub(super) fn overload_now(&self, key: &str) -> bool {
        match self.overloaded.lock() {
            Ok(mut done) => done.insert(key.to_owned()),
            Err(_) => false,
        }
    }
}

/// One message of a request's conversation, as the script reads it.
pub(super) struct Entry {
    /// Written by the user: a marker here selects the script.
    pub user: bool,
    /// Starts an assistant turn: these are counted to find the step.
    pub turn_start: bool,
    /// Its text, tool results left out.
    pub text: String,
}

/// The entries of a `messages` list with roles (Anthropic Messages, Chat
/// Completions).
pub(super) fn role_entries(messages: &[Value]) -> Vec<Entry> {
    messages
        .iter()
        .map(|m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("");
            Entry {
                user: role == "user",
                turn_start: role == "assistant",
                text: content_text(m.get("content").unwrap_or(&Value::Null)),
            }
        })
        .collect()
}

/// Collects the text of a message content (string or list of text blocks),
/// skipping tool results.
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| {
                let t = b.get("type").and_then(Value::as_str).unwrap_or("");
                if t == "tool_result" || t == "function_call_output" {
                    return None;
                }
                b.get("text")
                    .or_else(|| b.get("encrypted_content"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// What the script answers to one request.
pub(super) struct Step<'a> {
    /// The scripted turn; `None` answers with `text` alone.
    pub turn: Option<&'a Turn>,
    /// What the ids of the turn's message and calls carry (`2`, `worker_1`).
    pub prefix: String,
    /// Size of the streamed argument chunks.
    pub chunk: usize,
    /// How long the reply waits.
    pub delay: Option<Duration>,
    /// The text of an answer without a turn: `Done.` once the script has
    /// run out, [`PLAIN_TEXT`] when the request has no script.
    pub text: &'static str,
    /// For a scenario whose steps are answered once with an overload: the step's key.
    pub overload: Option<String>,
}

impl Step<'_> {
    /// The answer to a request without a script.
    pub(super) fn plain() -> Self {
        Step {
            turn: None,
            prefix: String::new(),
            chunk: DEFAULT_CHUNK,
            delay: None,
            text: PLAIN_TEXT,
            overload: None,
        }
    }
}

/// One request to a model API. The working directory the CLI states in it is
/// looked up (on the body serialised once) only when a call input needs it.
pub(super) struct Request<'a> {
    script: &'a Script,
    body: &'a Value,
    /// The agent named by the path (`/agents/<agent>/…`), whose own turns answer.
    agent: Option<&'a str>,
    work: OnceCell<String>,
}

impl<'a> Request<'a> {
    /// A request with its parsed body.
    pub(super) fn new(script: &'a Script, body: &'a Value) -> Self {
        Request {
            script,
            body,
            agent: None,
            work: OnceCell::new(),
        }
    }

    /// The same request, answered with the turns of `agent` when it names one.
    pub(super) fn for_agent(self, agent: Option<&'a str>) -> Self {
        Request { agent, ..self }
    }

    /// The parsed body.
    pub(super) fn body(&self) -> &'a Value {
        self.body
    }

    /// A string field of the body, or `default`.
    pub(super) fn field(&self, key: &str, default: &str) -> String {
        self.body
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_owned()
    }

    /// Whether the client asks for a stream.
    pub(super) fn stream(&self) -> bool {
        self.body
            .get("stream")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// A list field of the body (`messages`, `tools`), empty when absent.
    pub(super) fn list(&self, key: &str) -> &'a [Value] {
        self.body
            .get(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The step of the script for this request: the last user entry with a
    /// marker names the scenario (and part), the assistant turns after it the
    /// step. Requests without tools (titles, summaries) have no script.
    /// Whether the step of `key` is to be answered with an overload (the first time).
    pub(super) fn overload_now(&self, key: &str) -> bool {
        self.script.overload_now(key)
    }

    pub(super) fn step(&self, dialect: Dialect, entries: &[Entry]) -> Step<'a> {
        if self.list("tools").is_empty()
            && !self
                .agent
                .is_some_and(|agent| self.script.tools_in_text(agent))
        {
            return Step::plain();
        }
        let mut found: Option<(usize, &'a Scenario, Option<String>)> = None;
        for (i, e) in entries.iter().enumerate() {
            if !e.user {
                continue;
            }
            if let Some(c) = self.script.marker.captures_iter(&e.text).last() {
                let name = c.get(1).map(|m| m.as_str()).unwrap_or("");
                if let Some(s) = self.script.scenarios.get(name) {
                    found = Some((i, s, c.get(2).map(|m| m.as_str().to_owned())));
                }
            }
        }
        let Some((idx, scenario, part)) = found else {
            return Step::plain();
        };
        let step = entries[idx + 1..].iter().filter(|e| e.turn_start).count();
        let turns = match self.agent {
            Some(agent) => scenario.agent_turns(agent, part.as_deref()),
            None => scenario.turns(dialect, part.as_deref()),
        };
        let Some(turn) = turns.and_then(|t| t.get(step)) else {
            return Step {
                text: "Done.",
                ..Step::plain()
            };
        };
        Step {
            turn: Some(turn),
            prefix: match &part {
                Some(p) => format!("{p}_{}", step + 1),
                None => format!("{}", step + 1),
            },
            chunk: turn.chunk.unwrap_or(DEFAULT_CHUNK),
            delay: scenario.options.delay_ms.map(Duration::from_millis),
            text: "Done.",
            overload: scenario.options.overloaded_once.then(|| {
                format!("{}#{}", scenario.name, part.as_deref().unwrap_or_default())
                    + &format!("#{step}")
            }),
        }
    }

    /// A call's arguments as text, placeholders filled.
    pub(super) fn call_args(&self, call: &Call) -> String {
        let s = match &call.input {
            toml::Value::String(s) if call.r#type == "custom" => s.clone(),
            v => super::stream::to_wire(&toml_to_json(v)),
        };
        let s = s.replace(BASE_URL_PLACEHOLDER, &self.script.base_url);
        if s.contains(WORK_PLACEHOLDER) {
            s.replace(WORK_PLACEHOLDER, self.work())
        } else {
            s
        }
    }

    /// A call's arguments as JSON (a string when they are not JSON).
    pub(super) fn call_input(&self, call: &Call) -> Value {
        let s = self.call_args(call);
        serde_json::from_str(&s).unwrap_or(Value::String(s))
    }

    fn work(&self) -> &str {
        self.work.get_or_init(|| find_work_dir(self.body))
    }

    /// The working directory, once a call's arguments have named it: the text that
    /// streamed arguments never cut ([`super::stream::chunks`]).
    pub(super) fn named_work_dir(&self) -> Option<&str> {
        self.work.get().map(String::as_str).filter(|w| *w != ".")
    }
}

/// Finds the working directory a CLI announces in its request.
fn find_work_dir(body: &Value) -> String {
    let text = body.to_string();
    WORK_DIR_PATTERNS
        .iter()
        .find_map(|re| re.captures(&text)?.get(1).map(|m| m.as_str().to_owned()))
        .unwrap_or_else(|| ".".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn work_dir_patterns_compile_and_keep_their_order() {
        assert_eq!(WORK_DIR_PATTERNS.len(), 10);
        let body = json!({"system": "<cwd>/b</cwd> Working directory: /a\nmore"});
        assert_eq!(find_work_dir(&body), "/a");
        // Factory Droid's environment reminder.
        let droid = json!({"messages": [{"text": "% pwd\n/w/droid\n\n"}]});
        assert_eq!(find_work_dir(&droid), "/w/droid");
        assert_eq!(find_work_dir(&json!({"x": "<cwd>/b</cwd>"})), "/b");
        assert_eq!(find_work_dir(&Value::Null), ".");
        // Pi's system prompt ends with its directory: the string's end is not part of it.
        let pi = json!({"messages": [{"content": "x\nCurrent working directory: /w/p"}]});
        assert_eq!(find_work_dir(&pi), "/w/p");
    }

    #[test]
    fn a_request_under_an_agent_is_answered_with_that_agents_turns() -> Result<()> {
        let scenario: Scenario = toml::from_str(
            r#"
            description = "d"
            prompt = "p"
            [[chat]]
            calls = [{ name = "bash" }]
            [[agents.pi]]
            calls = [{ name = "read" }]
            [parts.sub]
            agents.pi = [{ calls = [{ name = "ls" }] }]
            "#,
        )
        .map_err(|e| Error::Server(e.to_string()))?;
        let script = Script::new(BTreeMap::from([("s".to_owned(), scenario)]), String::new())?;
        let first_call = |agent: Option<&str>, marker: &str| {
            let body = json!({"tools": [{}]});
            let entries = [Entry {
                user: true,
                turn_start: false,
                text: marker.to_owned(),
            }];
            let request = Request::new(&script, &body).for_agent(agent);
            let step = request.step(Dialect::Chat, &entries);
            step.turn
                .and_then(|t| t.calls.first())
                .map(|c| c.name.clone())
        };
        assert_eq!(first_call(None, "[[scenario:s]]").as_deref(), Some("bash"));
        assert_eq!(
            first_call(Some("pi"), "[[scenario:s]]").as_deref(),
            Some("read")
        );
        assert_eq!(
            first_call(Some("pi"), "[[scenario:s#sub]]").as_deref(),
            Some("ls")
        );
        // An agent without turns of its own gets the closing text, not another's calls.
        assert_eq!(first_call(Some("droid"), "[[scenario:s]]"), None);
        Ok(())
    }
}
