//! The scripted turns the three model APIs share: which scenario, part and
//! step a request selects, and the call inputs with their placeholders filled.

use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use super::server::Ctx;
use super::{BASE_URL_PLACEHOLDER, WORK_PLACEHOLDER};
use crate::scenario::{Call, Dialect, Scenario, Turn, toml_to_json};

/// Which script and step a request selects.
pub(super) struct Selection<'a> {
    scenario: &'a Scenario,
    part: Option<String>,
    step: usize,
}

impl Selection<'_> {
    pub(super) fn turn(&self, dialect: Dialect) -> Option<&Turn> {
        self.scenario
            .turns(dialect, self.part.as_deref())
            .and_then(|t| t.get(self.step))
    }
    pub(super) fn id_prefix(&self) -> String {
        match &self.part {
            Some(p) => format!("{p}_{}", self.step + 1),
            None => format!("{}", self.step + 1),
        }
    }
    pub(super) fn delay(&self) -> Option<Duration> {
        self.scenario.options.delay_ms.map(Duration::from_millis)
    }
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

/// Finds the last user message carrying a marker among `(is_user, is_assistant_start, text)`
/// entries, and counts assistant turns after it.
pub(super) fn select<'a>(ctx: &'a Ctx, entries: &[(bool, bool, String)]) -> Option<Selection<'a>> {
    let mut found: Option<(usize, &'a Scenario, Option<String>)> = None;
    for (i, (is_user, _, text)) in entries.iter().enumerate() {
        if !is_user {
            continue;
        }
        if let Some(c) = ctx.marker.captures_iter(text).last() {
            let name = c.get(1).map(|m| m.as_str()).unwrap_or("");
            if let Some(s) = ctx.scenarios.get(name) {
                found = Some((i, s, c.get(2).map(|m| m.as_str().to_owned())));
            }
        }
    }
    let (idx, scenario, part) = found?;
    let step = entries[idx + 1..].iter().filter(|e| e.1).count();
    Some(Selection {
        scenario,
        part,
        step,
    })
}

pub(super) fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

thread_local! {
    pub(super) static WORK_DIR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Finds the working directory a CLI announces in its request.
pub(super) fn find_work_dir(body: &Value) -> String {
    let text = body.to_string();
    for pat in [
        r"Primary working directory: ([^\\\s]+)",
        r"Working directory: ([^\\\s]+)",
        r"<cwd>([^<]+)</cwd>",
    ] {
        if let Ok(re) = Regex::new(pat)
            && let Some(c) = re.captures(&text)
            && let Some(m) = c.get(1)
        {
            return m.as_str().to_owned();
        }
    }
    ".".to_owned()
}

pub(super) fn call_args(ctx: &Ctx, call: &Call) -> String {
    let s = match &call.input {
        toml::Value::String(s) if call.r#type == "custom" => s.clone(),
        v => toml_to_json(v).to_string(),
    };
    let work = WORK_DIR.with(|w| w.borrow().clone());
    s.replace(BASE_URL_PLACEHOLDER, &ctx.base_url)
        .replace(WORK_PLACEHOLDER, &work)
}

pub(super) fn call_input(ctx: &Ctx, call: &Call) -> Value {
    let s = call_args(ctx, call);
    serde_json::from_str(&s).unwrap_or(Value::String(s))
}
