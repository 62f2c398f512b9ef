//! The runner the one-shot CLIs share (`claude -p`, `codex exec`,
//! `opencode run`): the program prints its event stream on stdout and exits.
//! For an interrupted scenario it gets SIGINT once a stdout line shows the
//! trigger and the scenario's delay has passed.

use std::process::Command;

use serde_json::Value;
use std::time::Duration;

use super::{Raw, Recorder, shell_join};
use crate::error::{Error, Result};
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// How one one-shot CLI is run and shown.
pub(super) struct OneShot<'a> {
    /// Provider directory (names the recording in errors).
    pub provider: &'a str,
    /// The program as shown in provenance (`claude`).
    pub program: &'a str,
    /// Its arguments.
    pub args: Vec<String>,
    /// A stdout line containing this starts the interrupt countdown.
    pub trigger: &'a str,
    /// Appended to the command shown in provenance (` </dev/null`).
    pub shown_suffix: &'a str,
}

impl Recorder {
    /// Runs `cmd` (the CLI with its environment) with the arguments of `run`
    /// to completion; keeps its stderr next to the recording. A run that had
    /// to be killed on timeout is an error, not a shorter fixture.
    pub(super) fn one_shot(
        &self,
        sc: &Scenario,
        dirs: &RunDirs,
        mut cmd: Command,
        run: &OneShot<'_>,
    ) -> Result<Raw> {
        cmd.args(&run.args);
        if sc.options.print_logs {
            cmd.arg("--print-logs");
        }
        let trigger = |l: &str| l.contains(run.trigger);
        let interrupt = sc
            .options
            .interrupt_after_ms
            .map(|ms| (Duration::from_millis(ms), &trigger as run::Trigger<'_>));
        let cap = run::run_with(&mut cmd, self.timeout, interrupt, sc.options.print_logs)?;
        run::write_lines(&dirs.root.join("stderr.log"), &cap.stderr)?;
        if cap.timed_out {
            return Err(Error::Recording {
                provider: run.provider.into(),
                scenario: sc.name.clone(),
                message: format!(
                    "killed after {}s without finishing ({} lines)",
                    self.timeout.as_secs(),
                    cap.stdout.len()
                ),
            });
        }
        Ok(Raw {
            lines: cap.stdout,
            command: format!(
                "{} {}{}{}",
                run.program,
                shell_join(&run.args),
                run.shown_suffix,
                if sc.options.print_logs {
                    " --print-logs 2>&1"
                } else {
                    ""
                }
            ),
            extras: Vec::new(),
            session: Vec::new(),
        })
    }
}

/// The `init` line of a stream (Claude Code's shape, which Qwen Code, Amp and Droid
/// share) lists the tools in the order they were registered, which races (MCP tools come
/// in when their server answers): the list is a set, written sorted. Other lines are
/// left as they are.
pub(super) fn sort_init_tools(line: &mut String) {
    if !line.contains("\"subtype\":\"init\"") {
        return;
    }
    let Ok(mut value) = serde_json::from_str::<Value>(line) else {
        return;
    };
    let Some(tools) = value.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    tools.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    if let Ok(sorted) = serde_json::to_string(&value) {
        *line = sorted;
    }
}
