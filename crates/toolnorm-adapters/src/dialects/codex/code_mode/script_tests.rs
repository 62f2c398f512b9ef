use serde_json::json;

use super::*;

fn calls(source: &str) -> Vec<(String, Value)> {
    script_calls(source)
        .into_iter()
        .map(|call| (call.tool, call.arguments))
        .collect()
}

fn expr(text: &str) -> Value {
    json!({ EXPR_KEY: text })
}

#[test]
fn reads_every_tool_call_in_order() {
    let got = calls(
        "// @exec: {\"yield_time_ms\": 1000}\n\
         const a = await tools.exec_command({ cmd: \"git status\", workdir: '/w' });\n\
         await tools.apply_patch(\"*** Begin Patch\\n*** Add File: a.txt\\n+x\\n*** End Patch\\n\");\n\
         const r = await tools.mcp__toolbox__echo({ text: `ping` });\n\
         await tools[\"view_image\"]({ path: \"shot.png\" });\n\
         tools?.update_plan?.({ plan: [] });\n\
         text(a); notify(r); ALL_TOOLS.filter((t) => t.name);\n",
    );
    assert_eq!(
        got,
        [
            (
                "exec_command".into(),
                json!({ "cmd": "git status", "workdir": "/w" })
            ),
            (
                "apply_patch".into(),
                json!("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n")
            ),
            ("mcp__toolbox__echo".into(), json!({ "text": "ping" })),
            ("view_image".into(), json!({ "path": "shot.png" })),
            ("update_plan".into(), json!({ "plan": [] })),
        ]
    );
}

#[test]
fn reads_nested_literals() {
    let got = calls(
        "await tools.update_plan({\n  explanation: 'a {b} \"c\"',\n  plan: [\n    { step: \"one\", status: \"completed\" },\n    { step: 'two', status: `in_progress`, },\n  ],\n  n: -3, f: 1.5, e: 1e3, h: 0xff, big: 10n, yes: true, no: false, none: null,\n  'quoted key': [1, [2, [3]]], 7: \"seven\",\n});",
    );
    assert_eq!(
        got,
        [(
            "update_plan".into(),
            json!({
                "explanation": "a {b} \"c\"",
                "plan": [
                    { "step": "one", "status": "completed" },
                    { "step": "two", "status": "in_progress" },
                ],
                "n": -3, "f": 1.5, "e": 1000.0, "h": 255, "big": expr("10n"),
                "yes": true, "no": false, "none": null,
                "quoted key": [1, [2, [3]]], "7": "seven",
            })
        )]
    );
}

#[test]
fn computed_values_stand_as_their_source() {
    let got = calls(
        "const dir = '/w';\nawait tools.exec_command({ cmd: `ls ${dir}`, workdir: dir, yield_time_ms, ...rest, [key]: 1, n: a + 1, s: \"x\" + y, get g() { return 1 }, last: 'ok' });\nawait tools.exec_command(command);\nawait tools.list_mcp_resources();",
    );
    assert_eq!(
        got,
        [
            (
                "exec_command".into(),
                json!({
                    "cmd": expr("`ls ${dir}`"),
                    "workdir": expr("dir"),
                    "yield_time_ms": expr("yield_time_ms"),
                    "n": expr("a + 1"),
                    "s": expr("\"x\" + y"),
                    "last": "ok",
                })
            ),
            ("exec_command".into(), expr("command")),
            ("list_mcp_resources".into(), Value::Null),
        ]
    );
}

#[test]
fn comments_strings_and_regexes_hide_what_looks_like_calls() {
    let got = calls(
        "/* tools.exec_command({cmd: 'no'}) */\n// tools.exec_command({cmd: 'no'})\n\
         const s = \"tools.exec_command({cmd: 'no'})\";\n\
         const t = `tools.exec_command(${ \"}\" + `${'}'}` })`;\n\
         const re = /tools.exec_command\\(\"[}]/g;\n\
         const q = 4 / 2 / 1;\n\
         x.tools.exec_command({ cmd: 'member' });\n\
         await tools.exec_command({ cmd: \"echo '}' \\\"{\\\" \\u0041\\x42\\u{43}\" });",
    );
    assert_eq!(
        got,
        [(
            "exec_command".into(),
            json!({ "cmd": "echo '}' \"{\" ABC" })
        )]
    );
}

#[test]
fn unterminated_input_ends_at_the_end() {
    for source in [
        "await tools.exec_command({ cmd: \"ls",
        "await tools.exec_command({ cmd: `ls ${",
        "await tools.exec_command({ cmd: 'ls', plan: [1, 2",
        "await tools.exec_command({ cmd: 'ls' /* comment",
        "await tools.exec_command(",
        "await tools.",
        "tools",
        "\"",
        "`${`${`${",
        "/[/",
        "a / b /* ",
        "{{{{((((",
        "}}}})))]]]",
        "\\u{110000}",
    ] {
        let _ = calls(source);
    }
    assert_eq!(
        calls("await tools.exec_command({ cmd: 'ls', plan: [1, 2"),
        [(
            "exec_command".into(),
            json!({ "cmd": "ls", "plan": [1, 2] })
        )]
    );
    assert_eq!(
        calls("await tools.exec_command({ cmd: \"ls"),
        [("exec_command".into(), json!({ "cmd": expr("\"ls") }))]
    );
}

#[test]
fn deep_nesting_stops_reading_but_not_the_scan() {
    let deep = format!(
        "tools.a({}{}); tools.b({{ ok: 1 }});",
        "[".repeat(200),
        "]".repeat(200)
    );
    let got = calls(&deep);
    assert_eq!(got.len(), 2);
    assert_eq!(got[1], ("b".into(), json!({ "ok": 1 })));
    let templates = format!("`{}` ; tools.c({{}})", "${`".repeat(100));
    let _ = calls(&templates);
}

proptest::proptest! {
    #[test]
    fn never_panics_on_any_text(source in ".*") {
        let _ = script_calls(&source);
    }

    #[test]
    fn never_panics_on_script_like_text(
        source in r#"(tools\.[a-z_]{1,8}\(|\{|\}|\[|\]|\(|\)|,|:|"|'|`|\$\{|\\|/|\*|\n| |[a-z0-9]{1,4}|-|\.)*"#
    ) {
        let _ = script_calls(&source);
    }
}
