//! The `toolnorm` command as a user runs it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;

fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
}

fn toolnorm() -> Command {
    Command::cargo_bin("toolnorm").unwrap()
}

fn stdout_lines(output: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn normalizes_a_recorded_stream_into_parts() {
    let output = toolnorm()
        .args(["normalize"])
        .arg(fixture("claude-code/edit-file.jsonl"))
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parts = stdout_lines(&output);
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["title"], "Reading src/greet.py");
    assert_eq!(parts[1]["kind"], "file_edit");
}

#[test]
fn reads_stdin_and_every_format() {
    let input = std::fs::read(fixture("codex-app-server/shell-stream.jsonl")).unwrap();
    for (format, expect) in [
        ("parts", "\"state\":\"complete\""),
        ("updates", "\"state\":\"running\""),
        ("events", "\"type\":\"outputAppended\""),
        ("pretty", "complete  bash"),
    ] {
        let output = toolnorm()
            .args(["normalize", "--format", format, "-"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert!(output.status.success(), "{format}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains(expect), "{format}: {text}");
    }
}

#[test]
fn the_event_log_replays_to_the_same_parts() {
    let events = toolnorm()
        .args(["normalize", "--format", "events"])
        .arg(fixture("opencode-serve/subagent.jsonl"))
        .output()
        .unwrap();
    let replayed = toolnorm()
        .args(["normalize", "--provider", "events", "-"])
        .write_stdin(events.stdout)
        .output()
        .unwrap();
    let direct = toolnorm()
        .arg("normalize")
        .arg(fixture("opencode-serve/subagent.jsonl"))
        .output()
        .unwrap();
    assert!(replayed.status.success());
    assert_eq!(stdout_lines(&replayed), stdout_lines(&direct));
}

#[test]
fn bad_lines_are_reported_and_strict_fails() {
    let mut input = std::fs::read(fixture("claude-code/shell-ok.jsonl")).unwrap();
    input.splice(0..0, b"not json\n".iter().copied());
    let lenient = toolnorm()
        .args(["normalize", "-"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert!(lenient.status.success());
    let stderr = String::from_utf8(lenient.stderr.clone()).unwrap();
    assert!(stderr.starts_with("line 1: not valid JSON"), "{stderr}");
    assert!(
        stderr.ends_with("toolnorm: 7 lines: 2 applied, 4 known non-tool, 0 notices, 1 error\n"),
        "{stderr}"
    );
    assert_eq!(stdout_lines(&lenient).len(), 1, "the rest is still read");

    let strict = toolnorm()
        .args(["normalize", "--strict", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn notices_fail_only_with_deny_unknown() {
    let mut input = std::fs::read(fixture("claude-code/shell-ok.jsonl")).unwrap();
    input.splice(0..0, b"{\"type\":\"telepathy\"}\n".iter().copied());
    let audit = std::env::temp_dir().join(format!("toolnorm-notice-{}.audit", std::process::id()));
    let strict = toolnorm()
        .args(["normalize", "--strict", "--audit"])
        .arg(&audit)
        .arg("-")
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert!(strict.status.success(), "a notice is not an error");
    let stderr = String::from_utf8(strict.stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("line 1: notice: unknown Claude Code message type `telepathy`\n"),
        "{stderr}"
    );
    assert!(stderr.contains(", 1 notice, 0 errors"), "{stderr}");
    let copied = std::fs::read_to_string(&audit).unwrap();
    std::fs::remove_file(&audit).ok();
    assert_eq!(copied, "1\t{\"type\":\"telepathy\"}\n");
    assert_eq!(stdout_lines(&strict).len(), 1);

    let deny = toolnorm()
        .args(["normalize", "--deny-unknown", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(deny.status.code(), Some(1));
}

#[test]
fn pretty_ends_with_the_line_counts() {
    let output = toolnorm()
        .args(["normalize", "--format", "pretty"])
        .arg(fixture("claude-code/shell-ok.jsonl"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.ends_with("6 lines: 2 applied, 4 known non-tool, 0 notices, 0 errors\n"),
        "{text}"
    );
}

#[test]
fn input_of_no_known_dialect_gets_one_message_and_exit_3() {
    let output = toolnorm()
        .args(["normalize", "-"])
        .write_stdin("hello\n{\"what\":1}\nworld\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "toolnorm: stdin: no line is an event toolnorm reads: expected JSON Lines"
        ),
        "{stderr}"
    );
    for dialect in [
        "claude-code",
        "codex-exec",
        "codex-app-server",
        "opencode",
        "acp",
        "events",
    ] {
        assert!(stderr.contains(&format!("`{dialect}`")), "{stderr}");
    }
    assert!(!stderr.contains("one JSON document"), "{stderr}");
}

#[test]
fn a_codex_rollout_file_is_read_as_one_not_as_opencode() {
    // A Codex rollout file (`~/.codex/sessions/…/rollout-*.jsonl`): `payload` lines with a
    // `type` of their own, which OpenCode's `/global/event` envelope does not have.
    let rollout = concat!(
        r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c","exit_code":0}}"#,
        "\n",
    );
    let output = toolnorm()
        .args(["normalize", "-"])
        .write_stdin(rollout)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let parts: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(parts.len(), 1, "{stdout}");
    assert_eq!(parts[0]["id"], "c");
    assert_eq!(parts[0]["state"], "complete");
    assert_eq!(parts[0]["metadata"]["provider"], "codex");
}

#[test]
fn a_pretty_printed_json_document_gets_a_json_lines_hint() {
    let document = serde_json::json!({"report": {"calls": [1, 2]}, "title": "not an event"});
    let pretty = serde_json::to_string_pretty(&document).unwrap();
    let file = std::env::temp_dir().join(format!("toolnorm-pretty-{}.json", std::process::id()));
    std::fs::write(&file, format!("{pretty}\n")).unwrap();
    let output = toolnorm().arg("normalize").arg(&file).output().unwrap();
    std::fs::remove_file(&file).ok();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("toolnorm: {}: ", file.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("one JSON document over several lines, read as one event, but it is"),
        "{stderr}"
    );
}

#[test]
fn an_event_printed_indented_is_read_as_its_line() {
    let input = std::fs::read_to_string(fixture("claude-code/shell-ok.jsonl")).unwrap();
    let pretty: String = input
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            format!("{}\n", serde_json::to_string_pretty(&value).unwrap())
        })
        .collect();
    let run = |input: String| {
        let output = toolnorm()
            .args(["normalize", "-"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(run(pretty), run(input));
}

#[test]
fn lines_before_a_late_detection_are_still_reported_one_by_one() {
    let mut input = "noise\n".repeat(40).into_bytes();
    input.extend(std::fs::read(fixture("codex-exec/shell-ok.jsonl")).unwrap());
    let output = toolnorm()
        .args(["normalize", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(stderr.starts_with("line 1: "), "{stderr}");
    assert_eq!(stderr.matches("not valid JSON").count(), 40, "{stderr}");
    assert_eq!(stdout_lines(&output).len(), 1);
}

#[test]
fn io_errors_name_the_path() {
    // A directory is searched for recordings: none is a usage error.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let output = toolnorm().arg("normalize").arg(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "toolnorm: {}: no *.jsonl file in this directory\n",
            dir.display()
        )
    );
    let missing = toolnorm()
        .args(["normalize", "/nonexistent/stream.jsonl"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(missing.stderr).unwrap(),
        "toolnorm: /nonexistent/stream.jsonl: No such file or directory\n"
    );
}

#[test]
fn unreadable_input_and_bad_usage_exit_with_2() {
    let missing = toolnorm()
        .args(["normalize", "/nonexistent/stream.jsonl"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8(missing.stderr)
            .unwrap()
            .contains("/nonexistent/stream.jsonl")
    );
    let usage = toolnorm()
        .args(["normalize", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let rules = toolnorm()
        .args(["normalize", "--rules", "/nonexistent/rules.toml", "-"])
        .output()
        .unwrap();
    assert_eq!(rules.status.code(), Some(2));
}

#[test]
fn user_rules_retitle_mcp_tools_without_recompiling() {
    let rules = std::env::temp_dir().join(format!("toolnorm-rules-{}.toml", std::process::id()));
    std::fs::write(&rules, "[[rule]]\ntool = \"echo\"\nserver = \"toolbox\"\ntitle = \"Echoing {text|quote}\"\nkind = \"question\"\n").unwrap();
    let output = toolnorm()
        .args(["normalize", "--rules"])
        .arg(&rules)
        .arg(fixture("codex-exec/mcp-ok.jsonl"))
        .output()
        .unwrap();
    std::fs::remove_file(&rules).ok();
    let parts = stdout_lines(&output);
    assert_eq!(parts[0]["title"], "Echoing \"ping\"");
    assert_eq!(parts[0]["kind"], "question");
}

#[test]
fn help_is_stable() {
    let output = toolnorm().args(["normalize", "--help"]).output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--provider",
        "--format",
        "--strict",
        "--deny-unknown",
        "--rules",
        "--output-cap",
        "--mcp-server",
    ] {
        assert!(help.contains(flag), "{help}");
    }
}

#[test]
fn every_fixture_passes_strict_in_every_format() {
    let root = fixture("");
    let mut runs = Vec::new();
    for provider in std::fs::read_dir(&root).unwrap() {
        let provider = provider.unwrap().path();
        // `unclaimed/` holds files of agents toolnorm does not read (`unclaimed.rs`).
        if !provider.is_dir() || provider.ends_with("unclaimed") {
            continue;
        }
        for file in std::fs::read_dir(&provider).unwrap() {
            let file = file.unwrap().path();
            // A session folder (`claude-code-session/<scenario>/`) is read by `session`.
            if !file.is_file() {
                continue;
            }
            for format in ["parts", "updates", "events", "pretty"] {
                runs.push((file.clone(), format));
            }
        }
    }
    assert!(runs.len() > 400, "{} runs", runs.len());
    // The runs on every core.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((file, format)) =
                    runs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    strict_run(file, format);
                }
            });
        }
    });
}

/// `toolnorm normalize --strict --format <format> <file>` succeeds, with one part line per
/// call. Run in this process (the command's arguments parsed and run as `main` runs
/// them): four thousand runs of the binary would mostly measure process start-up.
fn strict_run(file: &std::path::Path, format: &str) {
    use clap::Parser;
    let cli = toolnorm_cli::Cli::try_parse_from([
        "toolnorm".as_ref(),
        "normalize".as_ref(),
        "--strict".as_ref(),
        "--format".as_ref(),
        format.as_ref(),
        file.as_os_str(),
    ])
    .unwrap();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let status = toolnorm_cli::run(cli, &mut stdout, &mut stderr);
    assert_eq!(
        format!("{status:?}"),
        format!("{:?}", std::process::ExitCode::SUCCESS),
        "{} {format}: {}",
        file.display(),
        String::from_utf8_lossy(&stderr)
    );
    if format == "parts" {
        let ids: Vec<String> = String::from_utf8(stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let part: serde_json::Value = serde_json::from_str(line).unwrap();
                part["id"].as_str().unwrap().to_owned()
            })
            .collect();
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "{}: one line per call",
            file.display()
        );
    }
}

#[test]
fn cwd_makes_paths_relative_where_the_stream_names_no_directory() {
    let titles = |args: &[&str]| -> Vec<String> {
        let output = toolnorm()
            .args(["normalize"])
            .args(args)
            .arg(fixture("codex-exec/edit-file.jsonl"))
            .output()
            .unwrap();
        assert!(output.status.success());
        stdout_lines(&output)
            .iter()
            .map(|part| part["title"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(titles(&[]), ["Editing /workspace/src/greet.py"]);
    assert_eq!(titles(&["--cwd", "/workspace"]), ["Editing src/greet.py"]);
    // The same edit in the app-server stream, which names its directory, reads the same.
    let output = toolnorm()
        .args(["normalize", "--cwd", "/elsewhere"])
        .arg(fixture("codex-app-server/edit-file.jsonl"))
        .output()
        .unwrap();
    assert_eq!(stdout_lines(&output)[0]["title"], "Editing src/greet.py");
}
