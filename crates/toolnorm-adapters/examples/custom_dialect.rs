//! An engine's own dialect, plugged into the normalizer with `Normalizer::with_adapter`.
//!
//! The engine logs its tool calls as `{"op":"call","id":…,"tool":…,"args":…}` and
//! `{"op":"done","id":…,"ok":…,"result":…}` lines. Its adapter only says what each line
//! means for a call; the tracker behind [`Facts`] makes the canonical events (kind and
//! title from the rules, `metadata.provider`, the lifecycle), and the normalizer folds
//! them into parts exactly as for the built-in dialects.
//!
//! `cargo run -p toolnorm-adapters --example custom_dialect`

use serde::Deserialize;
use serde_json::Value;
use toolnorm::ToolError;
use toolnorm_adapters::{
    Adapter, Diagnostic, DiagnosticKind, Dialect, Ending, Facts, Normalizer, Sighting, Step,
};

/// The engine's dialect: the rules of provider `my-engine` apply to its tools, and the
/// built-in rules of other providers do not.
const MY_ENGINE: Dialect = Dialect::new("my-engine", "my-engine");

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Line {
    Call {
        id: String,
        tool: String,
        #[serde(default)]
        args: Value,
    },
    Done {
        id: String,
        ok: bool,
        #[serde(default)]
        result: Value,
    },
}

struct MyEngine;

impl Adapter for MyEngine {
    fn dialect(&self) -> Dialect {
        MY_ENGINE
    }

    fn line(&mut self, line: u64, bytes: &[u8], facts: &mut Facts<'_>) {
        match serde_json::from_slice::<Line>(bytes) {
            Ok(Line::Call { id, tool, args }) => {
                facts.sighted(line, Sighting::new(id.clone(), tool, args));
                facts.running(line, &id, None);
            }
            Ok(Line::Done {
                id,
                ok: true,
                result,
            }) => {
                facts.complete(line, &id, Some(result), Ending::default());
            }
            Ok(Line::Done {
                id,
                ok: false,
                result,
            }) => {
                let message = result.as_str().unwrap_or("the tool failed").to_owned();
                facts.fail(line, &id, ToolError::new(message), Ending::default());
            }
            Err(error) => facts.diagnostic(Diagnostic::at(
                line,
                DiagnosticKind::MalformedEvent,
                format!("not a my-engine line: {error}"),
            )),
        }
    }
}

fn main() {
    let log = concat!(
        r#"{"op":"call","id":"1","tool":"create_issue","args":{"title":"Crash on start"}}"#,
        "\n",
        r#"{"op":"done","id":"1","ok":true,"result":{"number":42}}"#,
        "\n",
        r#"{"op":"call","id":"2","tool":"deploy","args":{}}"#,
        "\n",
        r#"{"op":"done","id":"2","ok":false,"result":"no credentials"}"#,
        "\n",
    );
    let mut normalizer = Normalizer::with_adapter(MyEngine).build();
    let mut on_step = |step: Step<'_>| match step {
        Step::Applied { update, .. } if update.call.is_terminal() => {
            let part = update.part();
            println!("{:<8} {:<8} {}", part.state, part.kind, part.title);
        }
        Step::Applied { .. } => {}
        Step::Diagnostic(diagnostic) => eprintln!("{diagnostic}"),
    };
    normalizer.push(log.as_bytes(), &mut on_step);
    normalizer.finish(&mut on_step);

    let parts = normalizer.fold().parts();
    assert_eq!(parts.len(), 2);
    // No rule names `create_issue`: its `verb_object` name becomes action text.
    assert_eq!(parts[0].title, "Creating issue");
    assert_eq!(
        parts[0].metadata.as_ref().and_then(|m| m.get("provider")),
        Some(&Value::from("my-engine"))
    );
    assert_eq!(
        parts[1].error.as_ref().map(|e| e.message.as_str()),
        Some("no credentials")
    );
}
