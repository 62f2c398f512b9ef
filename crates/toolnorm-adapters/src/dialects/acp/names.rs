//! The tool name of another agent's ACP call. ACP gives a call a `title` (the human line)
//! and a `kind`; a tool name is not in the protocol, so each agent says it its own way, or
//! not at all. A title is never taken for a name unless it is one. In order:
//!
//! 1. `name`, else what the agent says of its tool in `_meta`: `toolName` (or
//!    `tool_name`) at its top (Qwen Code) or in a namespace of its own (Claude Code's
//!    adapter: `_meta.claudeCode.toolName`);
//! 2. an MCP call whose `rawInput` names its server and tool (Codex's adapter): the tool;
//! 3. the tool the call id is made from: `<tool>__<rest>` (Gemini CLI 0.6x:
//!    `write_file__call_1`), `<tool>-<timestamp>[-<n>]` (earlier Gemini CLI and its forks:
//!    `write_file-1759000000000-3`), or `<tool>-<n>` for a tool some provider's rules know
//!    as a built-in;
//! 4. the first title, when it is a bare tool name (a word of letters, digits, `_` and
//!    `-`, not the name of a file the call works on): OpenCode titles a call with its
//!    tool's name until it knows more;
//! 5. the ACP `kind` (`read`, `execute`, …), else `tool`.

use serde_json::Value;

use super::seen::Seen;

/// Where a call's name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameFrom {
    /// The agent named its tool (`name`, `_meta`, the MCP input, the call id, the title).
    Agent,
    /// Nothing named it: the ACP kind stands in, and says nothing of the agent's tools.
    Kind,
}

/// The longest tool name read out of an id or a title.
const MAX_NAME: usize = 64;

/// The fewest digits of a timestamp in a call id (seconds since 2001 have ten).
const TIMESTAMP_DIGITS: usize = 10;

/// Whether `text` looks like a tool name: letters, digits, `_` and `-`, starting with a
/// letter and ending with a letter or digit.
pub(super) fn name_like(text: &str) -> bool {
    let mut chars = text.chars();
    text.len() <= MAX_NAME
        && chars
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && text
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The tool a call id is made from (rule 3 above); `known` says whether a provider's rules
/// know a name as a built-in tool.
pub(super) fn name_in_id(id: &str, known: impl Fn(&str) -> bool) -> Option<&str> {
    if let Some((name, rest)) = id.split_once("__")
        && name_like(name)
        && !rest.is_empty()
    {
        return Some(name);
    }
    // Each `-` followed by a run of digits that ends the id or a part of it, unless what
    // follows is a UUID: `<word>-<uuid>` is an id of its own (Codex's `exec-<uuid>` for a
    // tool a script called), whose digits say nothing of a tool.
    for (at, _) in id.match_indices('-') {
        let (name, rest) = (&id[..at], &id[at + 1..]);
        if starts_with_uuid(rest) {
            break;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let ends = matches!(rest.as_bytes().get(digits), None | Some(b'-' | b'_'));
        if digits == 0 || !ends || !name_like(name) {
            continue;
        }
        if digits >= TIMESTAMP_DIGITS || known(name) {
            return Some(name);
        }
    }
    None
}

/// Whether `text` starts with a UUID (`8-4-4-4-12` hex digits) that ends it or a part of it.
fn starts_with_uuid(text: &str) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let bytes = text.as_bytes();
    let mut at = 0;
    for (index, len) in GROUPS.iter().enumerate() {
        let group = bytes.get(at..at + len);
        if !group.is_some_and(|group| group.iter().all(u8::is_ascii_hexdigit)) {
            return false;
        }
        at += len;
        let last = index == GROUPS.len() - 1;
        match bytes.get(at) {
            Some(b'-') if !last => at += 1,
            None | Some(b'-' | b'_') if last => return true,
            _ => return false,
        }
    }
    false
}

/// The first title as a tool name (rule 4 above): a bare name that is not the file name of
/// a path the call works on (its `locations`, its input's top-level strings).
pub(super) fn name_in_title(seen: &Seen) -> Option<&str> {
    let title = seen.title.as_deref()?.trim();
    if !name_like(title) {
        return None;
    }
    let file_name = |path: &str| {
        path.trim_end_matches('/')
            .rsplit('/')
            .next()
            .is_some_and(|name| name == title)
    };
    let locations = seen
        .locations
        .iter()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|location| location.get("path")?.as_str());
    let inputs = seen
        .raw_input
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|input| input.values())
        .filter_map(Value::as_str);
    (!locations.chain(inputs).any(file_name)).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(name: &str) -> bool {
        name == "read_file"
    }

    #[test]
    fn a_call_id_names_its_tool_in_the_forms_agents_make_them() {
        for (id, name) in [
            ("write_file__call_mock_1_1", Some("write_file")),
            ("write_file__write_file_1796284621612_0", Some("write_file")),
            ("mcp_toolbox_echo__call_1", Some("mcp_toolbox_echo")),
            ("write_file-1759000000000-3", Some("write_file")),
            ("write_file-1759000000000", Some("write_file")),
            ("get-weather-1759000000000-1", Some("get-weather")),
            (
                "run_shell_command-1759000000000-8f3a9c",
                Some("run_shell_command"),
            ),
            ("read_file-2", Some("read_file")),
            // Not a tool: a short number after a name no rules know, an id without a
            // name, a name that is not one.
            ("tool-1", None),
            ("call_mock_1_1", None),
            ("toolu_01AbC", None),
            ("ws_mock_1_1", None),
            ("00000000-0000-4000-8000-000000000001", None),
            ("__x", None),
            ("1759000000000-1", None),
            // A UUID after the word is an id, not a timestamp, even when its first group
            // is all digits and the word is a tool some rules know.
            ("read_file-00000000-0000-4000-8000-000000000002", None),
            ("read_file-1a2b3c4d-0000-4000-8000-00000000000f", None),
            ("read_file-00000000-0000-4000-8000-000000000002-1", None),
        ] {
            assert_eq!(name_in_id(id, known), name, "{id}");
        }
    }

    #[test]
    fn a_name_is_a_word() {
        for name in [
            "bash",
            "toolbox_echo",
            "todowrite",
            "get-weather",
            "ReadFile",
        ] {
            assert!(name_like(name), "{name}");
        }
        for title in [
            "Writing to mandelbrot.py",
            "notes.txt",
            "src/greet.py",
            "'**/*.py'",
            "",
            "_x",
            "x_",
            "echo hello",
        ] {
            assert!(!name_like(title), "{title}");
        }
    }
}
