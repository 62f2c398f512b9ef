//! Tests of the rule set: matching, order, and the built-in rules.

use serde_json::{Value, json};
use toolnorm::ToolKind;

use super::*;

pub(super) fn title(
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
    // Each provider's rules are made once, for every copy of the set.
    let copy = rules.clone();
    assert!(std::sync::Arc::ptr_eq(
        &rules.for_provider("codex").rules,
        &copy.for_provider("codex").rules
    ));
    assert!(!std::sync::Arc::ptr_eq(
        &rules.for_provider("codex").rules,
        &rules.for_provider("opencode").rules
    ));
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
fn tools_are_the_exact_names_of_a_providers_builtin_rules() {
    let rules = TitleRules::from_toml(
        r#"
        [defaults]
        provider = "opencode"
        source = "builtin"
        [[rule]]
        tool = "bash"
        [[rule]]
        tool = "read"
        [[rule]]
        tool = "bash"
        when = { "description" = "x" }
        [[rule]]
        tool = "browser_*"
        [[rule]]
        tool = "fetch"
        source = "mcp"
        [[rule]]
        tool = "shell"
        provider = "codex"
        "#,
        "user.toml",
    )
    .unwrap()
    .then(
        TitleRules::from_toml(
            "[[rule]]\ntool = \"any\"\nprovider = \"opencode\"",
            "more.toml",
        )
        .unwrap(),
    );
    assert_eq!(
        rules.tools("opencode").collect::<Vec<_>>(),
        ["bash", "read"]
    );
    assert_eq!(rules.tools("codex").collect::<Vec<_>>(), ["shell"]);
    assert_eq!(rules.tools("claude-code").count(), 0);
    let builtin = TitleRules::builtin();
    let opencode: Vec<&str> = builtin.tools("opencode").collect();
    assert!(opencode.contains(&"apply_patch") && opencode.contains(&"invalid"));
    assert!(builtin.tools("claude-code").any(|tool| tool == "Bash"));
    assert!(
        builtin
            .tools("codex")
            .any(|tool| tool == "commandExecution")
    );
}

#[test]
fn knows_a_providers_builtin_tools_only() {
    let rules = TitleRules::builtin();
    for tool in ["bash", "apply_patch", "plan_enter", "todoread", "invalid"] {
        assert!(rules.knows("opencode", tool), "{tool}");
    }
    // Another provider's tool, an MCP rule's tool, and a name only a glob matches.
    assert!(!rules.knows("opencode", "Bash"));
    assert!(!rules.knows("claude-code", "bash"));
    assert!(!rules.knows("opencode", "browser_navigate"));
    assert!(!rules.knows("opencode", "amalgm_browser_navigate"));
    let glob = TitleRules::from_toml(
        "[[rule]]\ntool = \"x_*\"\nprovider = \"p\"\nsource = \"builtin\"",
        "user.toml",
    )
    .unwrap();
    assert!(!glob.knows("p", "x_*"));
    assert!(!glob.knows("p", "x_y"));
}

/// The index by name offers, in rule order, exactly the rules whose pattern matches the
/// name: every exact name of the built-in rules, names only patterns match, and others.
#[test]
fn the_index_by_name_offers_the_rules_a_scan_would_match() {
    let rules = crate::dialects::builtin_rules();
    let mut names: Vec<String> = rules
        .rules
        .iter()
        .filter_map(|rule| rule.tool.exact().map(str::to_owned))
        .collect();
    names.extend(
        [
            "browser_click",
            "mcp__x__y",
            "",
            "*",
            "Bash ",
            "bash",
            "create_issue",
        ]
        .map(String::from),
    );
    assert!(
        !rules.by_name.patterns.is_empty(),
        "{:?}",
        rules.by_name.patterns
    );
    for name in &names {
        let scanned: Vec<usize> = (0..rules.rules.len())
            .filter(|&index| rules.rules[index].tool.matches(name))
            .collect();
        let offered: Vec<usize> = rules
            .by_name
            .candidates(name)
            .filter(|&index| rules.rules[index].tool.matches(name))
            .collect();
        assert_eq!(offered, scanned, "{name}");
        // Nothing offered is skipped by the pattern but for the patterns' own misses.
        assert!(
            rules.by_name.candidates(name).all(|index| {
                rules.rules[index]
                    .tool
                    .exact()
                    .is_none_or(|exact| exact == name)
            }),
            "{name}"
        );
    }
    for provider in ["claude-code", "codex", "opencode", "gemini-cli"] {
        let narrowed = rules.for_provider(provider);
        for name in &names {
            let known = rules
                .rules
                .iter()
                .any(|rule| rule.builtin_tool(provider) == Some(name.as_str()));
            assert_eq!(rules.knows(provider, name), known, "{provider} {name}");
            assert_eq!(narrowed.knows(provider, name), known, "{provider} {name}");
        }
    }
}

#[test]
fn a_users_kind_retitles_every_dialects_calls_of_that_kind() {
    let user = r#"
        [[kind]]
        name = "bash"
        title = ["$ {command|line}", "Running a command"]
    "#;
    let rules = TitleRules::from_toml(user, "user.toml")
        .unwrap()
        .then(TitleRules::builtin());
    let command = |provider: &str, tool: &str, command: &str| {
        title(&rules, provider, tool, None, json!({ "command": command }))
    };
    assert_eq!(
        command("claude-code", "Bash", "ls").as_deref(),
        Some("$ ls")
    );
    assert_eq!(command("opencode", "bash", "ls").as_deref(), Some("$ ls"));
    // Codex's alias unwraps the shell, under the user's template too.
    assert_eq!(
        command("codex", "commandExecution", "/bin/bash -lc 'cargo test'").as_deref(),
        Some("$ cargo test")
    );
    // ACP leaves out the kind's templates without holes.
    assert_eq!(command("acp", "execute", "ls").as_deref(), Some("$ ls"));
    assert_eq!(title(&rules, "acp", "execute", None, json!({})), None);
    // The bucket stays the built-in kind's.
    let reference = ToolRef {
        provider: "claude-code",
        tool: "Bash",
        server: None,
        input: &json!({}),
        cwd: None,
    };
    assert_eq!(rules.kind(&reference), Some(ToolKind::Bash));
}

#[test]
fn a_dialect_maps_tools_to_kinds_through_its_aliases() {
    let rules = TitleRules::from_toml(
        r#"
        [defaults]
        provider = "mine"
        kind_title = true

        [aliases]
        file_path = ["target", "file"]
        pattern = "glob|quote"
        current_todo = []

        [[rule]]
        tool = "open"
        kind = "read"

        [[rule]]
        tool = "find"
        kind = "glob"
        aliases = { path = "root" }

        [[rule]]
        tool = "plan"
        kind = "todo"

        [[rule]]
        tool = "write"
        kind = "write"
        title = "Saving {file_path}"
        "#,
        "mine.toml",
    )
    .unwrap();
    let call = |tool: &str, input: Value| title(&rules, "mine", tool, None, input);
    assert_eq!(
        call("open", json!({"file": "/work/a.rs"})).as_deref(),
        Some("Reading a.rs")
    );
    assert_eq!(
        call("open", json!({"target": "/work/t", "file": "/work/a.rs"})).as_deref(),
        Some("Reading t")
    );
    assert_eq!(
        call("open", json!({"file_path": "/work/a.rs"})).as_deref(),
        Some("Reading a file")
    );
    assert_eq!(
        call("find", json!({"glob": "*.rs", "root": "/work/src"})).as_deref(),
        Some("Finding \"*.rs\" in src")
    );
    assert_eq!(
        call("plan", json!({"current_todo": "x"})).as_deref(),
        Some("Updating todos")
    );
    // A rule's own title is its own: aliases do not apply to it.
    assert_eq!(
        call("write", json!({"file_path": "a", "target": "b"})).as_deref(),
        Some("Saving a")
    );
    let reference = ToolRef {
        provider: "mine",
        tool: "find",
        server: None,
        input: &json!({}),
        cwd: None,
    };
    assert_eq!(rules.kind(&reference), Some(ToolKind::FileRead));
}

#[test]
fn unknown_kinds_are_reported() {
    let error =
        TitleRules::from_toml("[[rule]]\ntool = \"x\"\nkind = \"nope\"", "mine.toml").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("mine.toml: unknown kind `nope`"),
        "{error}"
    );
    let error = TitleRules::from_toml("[[kind]]\nname = \"new\"\ntitle = \"New\"", "mine.toml")
        .unwrap_err();
    assert!(error.to_string().contains("needs a `bucket`"), "{error}");
    let new = "[[kind]]\nname = \"new\"\nbucket = \"todo\"\ntitle = \"New\"\n\n[defaults]\nkind_title = true\n\n[[rule]]\ntool = \"x\"\nkind = \"new\"";
    let rules = TitleRules::from_toml(new, "mine.toml").unwrap();
    assert_eq!(
        title(&rules, "p", "x", None, json!({})).as_deref(),
        Some("New")
    );
}

#[test]
fn a_star_when_matches_any_value_present() {
    let rules = TitleRules::from_toml(
        r#"
        [[rule]]
        tool = "wait"
        when = { cell_id = "*" }
        title = "Waiting for cell {cell_id}"
        [[rule]]
        tool = "wait"
        title = "Waiting for agents"
        "#,
        "user.toml",
    )
    .unwrap();
    let got = |input: Value| title(&rules, "codex", "wait", None, input);
    assert_eq!(
        got(json!({ "cell_id": "2" })).as_deref(),
        Some("Waiting for cell 2")
    );
    assert_eq!(
        got(json!({ "cell_id": 3 })).as_deref(),
        Some("Waiting for cell 3")
    );
    assert_eq!(
        got(json!({ "cell_id": "" })).as_deref(),
        Some("Waiting for agents")
    );
    assert_eq!(
        got(json!({ "targets": ["a"] })).as_deref(),
        Some("Waiting for agents")
    );
}

#[test]
fn kind_and_title_at_once_are_each_alone() {
    let rules = crate::dialects::builtin_rules();
    let names: Vec<&str> = rules
        .rules
        .iter()
        .filter_map(|rule| rule.tool.exact())
        .chain(["mcp__x__y", "", "create_issue"])
        .collect();
    let mut providers: Vec<&str> = rules
        .rules
        .iter()
        .filter_map(|rule| rule.provider.as_deref())
        .collect();
    providers.sort_unstable();
    providers.dedup();
    let inputs = [
        json!({}),
        json!({"command": "/bin/bash -lc 'ls -la'", "file_path": "/work/a.rs", "pattern": "x"}),
        json!({"query": "q", "url": "https://example.com/a", "path": "src", "todos": []}),
    ];
    let mut checked = 0;
    for provider in providers.iter().copied().chain(["nobody"]) {
        for &tool in &names {
            for server in [None, Some("github")] {
                for input in &inputs {
                    let reference = ToolRef {
                        provider,
                        tool,
                        server,
                        input,
                        cwd: Some("/work"),
                    };
                    assert_eq!(
                        rules.kind_and_title(&reference),
                        (rules.kind(&reference), rules.title(&reference)),
                        "{provider} {tool} {server:?} {input}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1_000, "{checked}");
}
