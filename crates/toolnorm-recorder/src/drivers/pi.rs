//! Pi driver: `pi --mode json -p …`.
//!
//! Pi talks to any OpenAI-compatible API through a provider of its own in
//! `~/.pi/agent/models.json` (`api: "openai-completions"`, `baseUrl`): it is pointed at
//! the mock model's `/agents/pi/v1`, so that the mock answers with Pi's tool names. Every
//! built-in tool is turned on (`--tools`; `grep`, `find` and `ls` are off by default), and
//! startup's network checks off (`PI_OFFLINE`, `PI_SKIP_VERSION_CHECK`). Pi asks no permission: a scenario's
//! `pi_block` commands are refused by a small extension (`-e`), whose `tool_call`
//! handler blocks them as Pi's permission gates do. The session file the run wrote,
//! `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session>.jsonl`, is kept beside the
//! stream (`pi-session/`).

use super::files::{files_under, has_extension, lines_of};
use super::oneshot::OneShot;
use super::{Raw, Recorder, write_json};
use crate::error::{Error, Result};
use crate::run::RunDirs;
use crate::scenario::Scenario;

use serde_json::json;

/// The provider and model named on the command line (the provider is `models.json`'s).
const PROVIDER: &str = "mock";
/// The model.
const MODEL: &str = "mock-pi-model";

/// Every built-in tool.
const TOOLS: &str = "read,bash,edit,write,grep,find,ls";

impl Recorder {
    pub(super) fn pi(&self, sc: &Scenario, dirs: &RunDirs) -> Result<Raw> {
        let agent_dir = dirs.home.join(".pi").join("agent");
        std::fs::create_dir_all(&agent_dir)
            .map_err(|e| Error::io("creating the pi agent dir", e))?;
        write_json(
            &agent_dir.join("models.json"),
            &json!({
                "providers": {
                    PROVIDER: {
                        "baseUrl": format!("{}/agents/pi/v1", self.base_url()),
                        "api": "openai-completions",
                        "apiKey": "mock-pi-key",
                        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
                        "models": [{"id": MODEL}]
                    }
                }
            }),
        )?;
        let mut cmd = self.command("pi", dirs);
        cmd.env("PI_OFFLINE", "1")
            .env("PI_TELEMETRY", "0")
            .env("PI_SKIP_VERSION_CHECK", "1");
        let mut args: Vec<String> = vec![
            "--mode".into(),
            "json".into(),
            "-p".into(),
            "--provider".into(),
            PROVIDER.into(),
            "--model".into(),
            MODEL.into(),
            "--tools".into(),
            TOOLS.into(),
            "--no-extensions".into(),
            "--no-skills".into(),
        ];
        if !sc.options.pi_block.is_empty() {
            let extension = dirs.root.join("block.ts");
            std::fs::write(&extension, block_extension(&sc.options.pi_block))
                .map_err(|e| Error::io("writing the blocking extension", e))?;
            args.push("-e".into());
            args.push(extension.display().to_string());
        }
        args.push(sc.full_prompt());
        let mut raw = self.one_shot(
            sc,
            dirs,
            cmd,
            &OneShot {
                provider: "pi",
                program: "pi",
                args,
                trigger: "\"tool_execution_start\"",
                shown_suffix: " </dev/null",
            },
        )?;
        // Session files: sessions/--<cwd>--/<timestamp>_<session>.jsonl.
        let sessions = files_under(&agent_dir.join("sessions"), |path| {
            has_extension(path, "jsonl")
        });
        let lines: Vec<String> = sessions.iter().flat_map(|path| lines_of(path)).collect();
        if !lines.is_empty() {
            raw.extras.push(("pi-session".to_owned(), lines));
        }
        Ok(raw)
    }
}

/// An extension whose `tool_call` handler blocks the `bash` commands that start with one
/// of `prefixes`, giving no reason (Pi then says `Tool execution was blocked`).
fn block_extension(prefixes: &[String]) -> String {
    let list = serde_json::to_string(prefixes).unwrap_or_else(|_| "[]".to_owned());
    format!(
        "export default function (pi: any) {{\n  const blocked: string[] = {list};\n  \
         pi.on(\"tool_call\", async (event: any) => {{\n    \
         if (event.toolName !== \"bash\") return undefined;\n    \
         const command = String(event.input?.command ?? \"\").trim();\n    \
         return blocked.some((prefix) => command.startsWith(prefix)) ? {{ block: true }} : undefined;\n  \
         }});\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::block_extension;

    #[test]
    fn the_extension_blocks_the_prefixes_it_is_given() {
        let text = block_extension(&["rm ".to_owned()]);
        assert!(
            text.contains(r#"const blocked: string[] = ["rm "];"#),
            "{text}"
        );
        assert!(text.contains("{ block: true }"), "{text}");
    }
}
