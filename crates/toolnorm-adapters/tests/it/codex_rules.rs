//! Codex items take their kind and title from the rules, in both dialects: the built-in
//! rules of `src/dialects/codex/rules.toml`, and a user's rules tried before them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::{Value, json};
use toolnorm::{NormalizedToolPart, ToolKind};
use toolnorm_adapters::{Dialect, Normalizer, TitleRules, ToolRef};

/// A recorded fixture normalized with `rules`: its parts, with no diagnostic.
fn normalize_with(rules: TitleRules, fixture: &str) -> Vec<NormalizedToolPart> {
    let bytes = std::fs::read(common::fixtures().join(fixture)).unwrap();
    let (parts, diagnostics) = common::run(Normalizer::builder().rules(rules).build(), &bytes);
    assert!(diagnostics.is_empty(), "{fixture}: {diagnostics:?}");
    parts
}

fn file_change(parts: &[NormalizedToolPart], fixture: &str) -> NormalizedToolPart {
    let changes: Vec<&NormalizedToolPart> = parts
        .iter()
        .filter(|part| part.name == "fileChange")
        .collect();
    assert_eq!(changes.len(), 1, "{fixture}: {parts:#?}");
    changes[0].clone()
}

const WRITES: [&str; 2] = [
    "codex-app-server/write-file.jsonl",
    "codex-exec/write-file.jsonl",
];

#[test]
fn a_user_rule_retitles_a_codex_file_change_in_both_dialects() {
    let user = r#"
        [[rule]]
        provider = "codex"
        tool = "fileChange"
        title = "Creating {changes.0.path|file} ({changes.0.kind})"
    "#;
    for fixture in WRITES {
        let builtin = file_change(&normalize_with(TitleRules::builtin(), fixture), fixture);
        assert!(
            builtin.title.starts_with("Writing "),
            "{fixture}: {builtin:?}"
        );

        let rules = TitleRules::from_toml(user, "mine.toml")
            .unwrap()
            .then(TitleRules::builtin());
        let part = file_change(&normalize_with(rules, fixture), fixture);
        assert_eq!(part.title, "Creating hello.txt (add)", "{fixture}");
        assert_eq!(
            part.kind,
            ToolKind::FileWrite,
            "{fixture}: the built-in kind"
        );
    }
}

#[test]
fn a_user_rule_changes_the_kind_of_a_codex_file_change() {
    let user = r#"
        [[rule]]
        provider = "codex"
        tool = "fileChange"
        kind = "file_edit"
    "#;
    for fixture in WRITES {
        let rules = TitleRules::from_toml(user, "mine.toml")
            .unwrap()
            .then(TitleRules::builtin());
        let part = file_change(&normalize_with(rules, fixture), fixture);
        assert_eq!(part.kind, ToolKind::FileEdit, "{fixture}");
        assert!(
            part.title.starts_with("Writing "),
            "{fixture}: the built-in title"
        );
    }
}

fn builtin(changes: Value, cwd: Option<&str>) -> (Option<ToolKind>, Option<String>) {
    let rules = TitleRules::builtin();
    let input = json!({ "changes": changes });
    let tool = ToolRef {
        provider: "codex",
        tool: "fileChange",
        server: None,
        input: &input,
        cwd,
    };
    (rules.kind(&tool), rules.title(&tool))
}

#[test]
fn the_built_in_rules_give_a_file_change_its_kind_and_title() {
    let change = |path: &str, kind: &str| json!({ "path": path, "kind": kind });
    let cases = [
        (json!([]), ToolKind::FileEdit, "Editing files"),
        (
            json!([change("/w/a.rs", "add")]),
            ToolKind::FileWrite,
            "Writing a.rs",
        ),
        (
            json!([change("/w/a.rs", "update")]),
            ToolKind::FileEdit,
            "Editing a.rs",
        ),
        (
            json!([change("/w/a.rs", "delete")]),
            ToolKind::FileEdit,
            "Editing a.rs",
        ),
        (
            json!([change("", "add")]),
            ToolKind::FileWrite,
            "Writing files",
        ),
        (
            json!([change("/w/a.rs", "add"), change("/w/b.rs", "add")]),
            ToolKind::FileWrite,
            "Writing a.rs",
        ),
        (
            json!([change("/w/a.rs", "add"), change("/w/b.rs", "update")]),
            ToolKind::FileEdit,
            "Editing a.rs",
        ),
        (
            json!([change("/w/a.rs", "add"), change("/w/b.rs", "delete")]),
            ToolKind::FileEdit,
            "Editing a.rs",
        ),
    ];
    for (changes, kind, title) in cases {
        let (got_kind, got_title) = builtin(changes.clone(), Some("/w"));
        assert_eq!(got_kind, Some(kind), "{changes}");
        assert_eq!(got_title.as_deref(), Some(title), "{changes}");
    }
}

fn app_file_change(changes: Value) -> NormalizedToolPart {
    let item =
        json!({"type": "fileChange", "id": "fc_1", "changes": changes, "status": "completed"});
    let line = json!({"method": "item/completed", "params": {"item": item, "threadId": "thr", "turnId": "turn", "completedAtMs": 2}});
    let parts = common::lines(Dialect::CODEX_APP_SERVER, &[line]);
    file_change(&parts, "app-server line")
}

#[test]
fn a_change_of_several_files_is_titled_by_their_count() {
    let change = |path: &str, kind: &str| json!({"path": path, "kind": {"type": kind}, "diff": ""});
    let added = app_file_change(json!([change("/w/a", "add"), change("/w/b", "add")]));
    assert_eq!(
        (added.kind, added.title.as_str()),
        (ToolKind::FileWrite, "Writing 2 files")
    );
    let edited = app_file_change(json!([
        change("/w/a", "add"),
        change("/w/b", "update"),
        change("/w/c", "delete")
    ]));
    assert_eq!(
        (edited.kind, edited.title.as_str()),
        (ToolKind::FileEdit, "Editing 3 files")
    );
}

#[test]
fn a_collab_tool_no_rule_names_is_still_a_subagent_call() {
    let exec = |tool: &str| {
        let item = json!({"type": "collab_tool_call", "id": "item_0", "tool": tool, "status": "completed"});
        let line = json!({"type": "item.completed", "item": item});
        let parts = common::lines(Dialect::CODEX_EXEC, &[line]);
        assert_eq!(parts.len(), 1, "{parts:#?}");
        parts.into_iter().next().unwrap()
    };
    let wait = exec("wait");
    assert_eq!(
        (wait.kind, wait.title.as_str()),
        (ToolKind::Subagent, "Waiting for agents")
    );
    let newer = exec("frobnicate_agents");
    assert_eq!(
        (newer.name.as_str(), newer.kind),
        ("frobnicateAgents", ToolKind::Subagent)
    );

    let user = r#"
        [[rule]]
        provider = "codex"
        tool = "wait"
        kind = "unknown"
        title = "Idling"
    "#;
    let rules = TitleRules::from_toml(user, "mine.toml")
        .unwrap()
        .then(TitleRules::builtin());
    let parts = normalize_with(rules, "codex-app-server/subagent.jsonl");
    let wait = parts.iter().find(|part| part.name == "wait").unwrap();
    assert_eq!(
        (wait.kind, wait.title.as_str()),
        (ToolKind::Unknown, "Idling")
    );
}
