//! toolnorm's title for another agent's ACP call, instead of the agent's own.
//!
//! The order (documented in `rules.toml`): the rules of the agent's own tool when the
//! frames name one a provider's rules know (for a call without a `rawInput`, only a title
//! the call's fields fill in); for an MCP tool, the rules of the bare tool, else its name
//! as action text; the ACP kind's rules in `rules.toml`; else none (the agent's title
//! stays).

use serde_json::{Map, Value};
use toolnorm::ToolKind;

use crate::Dialect;
use crate::rules::action_text;
use crate::track::Facts;

/// The `_meta` namespace of Claude Code's ACP adapter, which names the Claude Code tool.
const CLAUDE_CODE_META: &str = "claudeCode";
/// The provider Claude Code's rules are written for (whether or not its reader is built).
const CLAUDE_CODE_PROVIDER: &str = "claude-code";

/// What a title is made from: one call of another agent, as far as it is known.
pub(super) struct Call<'a> {
    /// The tool name (see `names`).
    pub name: &'a str,
    /// Whether the agent named its tool (else the name is its ACP kind's).
    pub named: bool,
    /// toolnorm's kind of the call.
    pub kind: ToolKind,
    /// The ACP kind, as the agent sent it (`read`, `execute`, …).
    pub acp_kind: Option<&'a str>,
    /// The MCP server and bare tool, for MCP calls.
    pub mcp: Option<(&'a str, &'a str)>,
    /// The `rawInput`.
    pub input: &'a Value,
    /// The frame's `locations`.
    pub locations: Option<&'a Value>,
    /// The agent's `_meta`.
    pub meta: Option<&'a Map<String, Value>>,
}

/// toolnorm's title of the call, when its tool, MCP name or kind gives one.
pub(super) fn title(call: &Call<'_>, out: &Facts<'_>) -> Option<String> {
    let input = title_input(call.input, call.locations);
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .or_else(|| out.cwd())
        .map(str::to_owned);
    let cwd = cwd.as_deref();
    // The native tool's title that the call's fields fill in, from the first provider
    // whose rules do (several know `edit`, each reading its own argument names); else
    // the title they give any call of the tool.
    let mut generic = None;
    for provider in native_providers(call, out) {
        let Some(title) = out.rules_title(provider, call.name, None, &input, cwd) else {
            continue;
        };
        let empty = title_input(&Value::Null, None);
        if out
            .rules_title(provider, call.name, None, &empty, cwd)
            .as_ref()
            != Some(&title)
        {
            return Some(title);
        }
        generic.get_or_insert(title);
    }
    // Without a `rawInput` (Gemini CLI sends none), that title says only what kind of
    // call it is: the kind's rules below, or the agent's own title, say more.
    if let Some(title) = generic.filter(|_| !call.input.is_null()) {
        return Some(title);
    }
    if let Some((server, tool)) = call.mcp {
        // Codex's adapter sends an MCP call's input as `{server, tool, arguments}`.
        let arguments = input.get("arguments").unwrap_or(&input);
        let provider = DIALECT_PROVIDER;
        return out
            .rules_title(provider, tool, Some(server), arguments, cwd)
            .or_else(|| action_text(tool));
    }
    let kind = match (call.acp_kind?, call.kind) {
        ("edit", ToolKind::FileWrite) => "write",
        (kind, _) => kind,
    };
    out.rules_title(DIALECT_PROVIDER, kind, None, &input, cwd)
}

/// The provider the ACP rules are written for.
const DIALECT_PROVIDER: &str = super::DIALECT.provider();

/// The providers whose built-in tool the call may be: Claude Code when its adapter's
/// `_meta` says so, else those whose rules list the name as a built-in tool, in the
/// dialect table's order; none when the agent did not name its tool.
fn native_providers(call: &Call<'_>, out: &Facts<'_>) -> Vec<&'static str> {
    if !call.named {
        return Vec::new();
    }
    if call
        .meta
        .is_some_and(|meta| meta.contains_key(CLAUDE_CODE_META))
    {
        return vec![CLAUDE_CODE_PROVIDER];
    }
    let owners: Vec<&str> = out.builtin_providers(call.name).collect();
    Dialect::all()
        .map(Dialect::provider)
        .filter(|provider| *provider != DIALECT_PROVIDER)
        .filter(|provider| owners.contains(provider))
        .collect()
}

/// The input the rules read: the `rawInput`, with a command given as an argument list
/// joined into one command line, and the frame's `locations` when the input has none.
fn title_input(input: &Value, locations: Option<&Value>) -> Value {
    let mut view = match input {
        Value::Object(object) => object.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Array(arguments)) = view.get("command") {
        let words: Option<Vec<&str>> = arguments.iter().map(Value::as_str).collect();
        if let Some(line) = words.and_then(|words| shlex::try_join(words).ok()) {
            view.insert("command".into(), line.into());
        }
    }
    if let Some(locations) = locations.filter(|_| !view.contains_key("locations")) {
        view.insert("locations".into(), locations.clone());
    }
    Value::Object(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_list_becomes_one_command_line() {
        let input = serde_json::json!({"command": ["/bin/bash", "-lc", "cat 'my notes.txt'"]});
        let view = title_input(&input, None);
        assert_eq!(view["command"], "/bin/bash -lc \"cat 'my notes.txt'\"");
    }

    #[test]
    fn locations_fill_in_only_when_the_input_has_none() {
        let locations = serde_json::json!([{"path": "/w/a.txt"}]);
        let view = title_input(&Value::Null, Some(&locations));
        assert_eq!(view["locations"][0]["path"], "/w/a.txt");
        let own = serde_json::json!({"locations": "mine"});
        assert_eq!(title_input(&own, Some(&locations))["locations"], "mine");
    }
}
