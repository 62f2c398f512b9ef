//! English for titles: a `verb_object` tool name as action text.

/// Turns a `verb_object` tool name into action text when its first word is a verb that
/// tools are named by: `create_issue` → `Creating issue`, `getWeather` → `Getting
/// weather`. Any other name is shown humanized as it is: `tool-name` → `Tool name`,
/// `TaskOutput` → `Task output`. `None` for a name with no word.
pub fn action_text(tool: &str) -> Option<String> {
    let words = split_words(tool);
    let (first, object) = words.split_first()?;
    let lead = if is_verb(first) {
        gerund(first)
    } else {
        first.clone()
    };
    let mut title = capitalize(&lead);
    for word in object {
        title.push(' ');
        title.push_str(word);
    }
    Some(title)
}

/// Verbs that tool names start with (`verb_object`), and the shell commands the gerund
/// table spells out. A name that starts with another word is not made a gerund: a noun
/// such as `task` or `tool` would read as `Tasking`, `Tooling`.
const VERBS: &[&str] = &[
    "add",
    "analyze",
    "append",
    "apply",
    "approve",
    "archive",
    "ask",
    "assign",
    "attach",
    "be",
    "book",
    "browse",
    "build",
    "calculate",
    "call",
    "cancel",
    "cd",
    "change",
    "check",
    "clear",
    "click",
    "clone",
    "close",
    "comment",
    "commit",
    "compare",
    "compile",
    "compute",
    "configure",
    "connect",
    "convert",
    "copy",
    "count",
    "cp",
    "crawl",
    "create",
    "debug",
    "delete",
    "deploy",
    "describe",
    "detect",
    "diff",
    "disable",
    "divide",
    "download",
    "drag",
    "draw",
    "drop",
    "echo",
    "edit",
    "embed",
    "enable",
    "encode",
    "enter",
    "estimate",
    "evaluate",
    "execute",
    "exit",
    "explain",
    "export",
    "extract",
    "fetch",
    "fill",
    "filter",
    "find",
    "fix",
    "follow",
    "fork",
    "format",
    "generate",
    "get",
    "give",
    "go",
    "grep",
    "hover",
    "import",
    "index",
    "insert",
    "inspect",
    "install",
    "invite",
    "invoke",
    "join",
    "kill",
    "label",
    "launch",
    "learn",
    "link",
    "list",
    "load",
    "lock",
    "log",
    "login",
    "logout",
    "look",
    "ls",
    "make",
    "manage",
    "mark",
    "merge",
    "mkdir",
    "modify",
    "monitor",
    "move",
    "multiply",
    "mv",
    "navigate",
    "notify",
    "open",
    "parse",
    "patch",
    "pause",
    "pick",
    "ping",
    "plan",
    "play",
    "post",
    "predict",
    "press",
    "preview",
    "print",
    "process",
    "publish",
    "pull",
    "push",
    "put",
    "query",
    "read",
    "rebase",
    "record",
    "refresh",
    "register",
    "reject",
    "reload",
    "remember",
    "remove",
    "rename",
    "render",
    "reopen",
    "reply",
    "report",
    "request",
    "reset",
    "resize",
    "resolve",
    "restart",
    "restore",
    "resume",
    "retrieve",
    "review",
    "rm",
    "run",
    "save",
    "scan",
    "schedule",
    "scrape",
    "scroll",
    "search",
    "select",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "snapshot",
    "sort",
    "spawn",
    "split",
    "start",
    "stop",
    "store",
    "stream",
    "submit",
    "subscribe",
    "subtract",
    "summarize",
    "switch",
    "sync",
    "tag",
    "take",
    "test",
    "toggle",
    "track",
    "transcribe",
    "transfer",
    "transform",
    "translate",
    "trigger",
    "type",
    "undo",
    "unlock",
    "unsubscribe",
    "update",
    "upload",
    "upsert",
    "use",
    "validate",
    "verify",
    "view",
    "visit",
    "wait",
    "watch",
    "write",
];

/// Whether `word` (lower case) is a verb tool names start with.
fn is_verb(word: &str) -> bool {
    VERBS.contains(&word)
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
    fn names_that_do_not_start_with_a_verb_are_shown_as_they_are() {
        assert_eq!(action_text("tool-name").as_deref(), Some("Tool name"));
        assert_eq!(action_text("TaskOutput").as_deref(), Some("Task output"));
        assert_eq!(action_text("weather").as_deref(), Some("Weather"));
        assert_eq!(
            action_text("browser_snapshot").as_deref(),
            Some("Browser snapshot")
        );
        assert_eq!(
            action_text("getWeather").as_deref(),
            Some("Getting weather")
        );
    }
}
