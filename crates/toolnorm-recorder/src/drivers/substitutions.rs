//! The literal and pattern substitutions that turn a run's volatile values
//! (scratch paths, the mock model's port, agent and run ids) into the stable
//! ones the fixtures show.

use super::Recorder;
use crate::error::Result;
use crate::run::RunDirs;
use crate::scrub::{Normalizer, Substitutions};

/// Port shown in fixtures instead of the mock model's real port.
pub const SHOWN_PORT: u16 = 4010;

/// Kernel shown in fixtures instead of the recording host's.
pub const SHOWN_KERNEL: &str = "Linux 6.0.0-host";

impl Recorder {
    /// The substitutions for one run's directories, recorded by `provider`.
    pub(super) fn substitutions(&self, provider: &str, dirs: &RunDirs) -> Result<Substitutions> {
        let mut s = Substitutions::default();
        if provider.starts_with("gemini-cli") {
            // Gemini CLI: the date its session context states, the process group of a
            // shell command, content-hash message ids and the project hash (of the
            // scratch path).
            s.add_pattern(
                r"Today's date is [A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}",
                "Today's date is Thursday, January 1, 2026",
            )?;
            s.add_pattern(r"Process Group PGID: \d+", "Process Group PGID: 4242")?;
            s.add_counted(r"\b[0-9a-f]{64}\b", "p")?;
            s.add_counted(r"\b[0-9a-f]{32}\b", "m")?;
            // Its events a few milliseconds apart often share a millisecond.
            s.number_timestamps_by_position();
        }
        if provider.starts_with("qwen-code") {
            // Qwen Code's session file: a shell's process group (0.15), and records a few
            // milliseconds apart that share a millisecond in one run and not the next
            // (its stream-json has no timestamps).
            s.add_pattern(r"Process Group PGID: \d+", "Process Group PGID: 4242")?;
            s.number_timestamps_by_position();
        }
        if provider.starts_with("cline") {
            // Cline's environment details: the time of each request, and the tools it
            // found on the host's PATH.
            s.add_pattern(
                r"\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d{2}:\d{2} [AP]M",
                "1/1/2026, 12:00:00 AM",
            )?;
            s.add_pattern(
                r"(may be useful if needed to accomplish the task: )[^.]*\.",
                "${1}git, node.",
            )?;
            // The CLI's task id is the time the task started.
            s.add_pattern(r"^\d{13}$", "1767225600000")?;
        }
        if provider.starts_with("cline-sdk") {
            // Cline 3.x: its agent, conversation and session ids (the time they were made
            // and a random tail), and the random tails of its message ids.
            s.add_counted(r"agent_\d{13}_[a-z0-9]{4,8}", "agent_")?;
            s.add_counted(r"conv_\d{13}_[a-z0-9]{4,8}", "conv_")?;
            s.add_counted(r"\d{13}_[a-z0-9]{5}", "session_")?;
            s.add_counted(r"\bmsg_[A-Za-z0-9_-]{8}", "msg_")?;
        }
        if provider.starts_with("droid") {
            // Factory Droid's `completion` averages its time to first token over the turns:
            // a whole number in one run, a fraction in the next.
            s.add_pattern(r#""ttft_ms":\d+(\.\d+)?"#, r#""ttft_ms":100"#)?;
        }
        if provider.starts_with("copilot") {
            // Copilot CLI: its events a few milliseconds apart share a millisecond in one
            // run and not the next.
            s.number_timestamps_by_position();
        }
        if provider.starts_with("pi") {
            // Pi's session entries: random 8-hex ids (`id`, `parentId`), and entries a few
            // milliseconds apart that share a millisecond in one run and not the next.
            s.add_counted(r"^[0-9a-f]{8}$", "e")?;
            s.number_timestamps_by_position();
        }
        if provider.starts_with("kimi") {
            // Kimi: a subagent's random id (`a` and 8 hex digits), and wire records a few
            // milliseconds apart whose epoch seconds share a millisecond in one run and
            // not the next.
            s.add_counted(r"\ba[0-9a-f]{8}\b", "a")?;
            s.number_timestamps_by_position();
        }
        if provider.starts_with("vibe") {
            // Mistral Vibe: its journal's digests (each record's and its request's), its
            // turn ids (`turn-` and 32 hex digits), the date its system prompt states,
            // and entries a few milliseconds apart that share a millisecond in one run
            // and not the next.
            s.add_counted(r"\b[0-9a-f]{64}\b", "")?;
            s.add_counted(r"\b[0-9a-f]{32}\b", "")?;
            s.add_pattern(
                r"Today's date is \d{4}-\d{2}-\d{2} \([A-Z][a-z]+\)",
                "Today's date is 2026-01-01 (Thursday)",
            )?;
            s.number_timestamps_by_position();
        }
        if provider.starts_with("openhands") {
            // OpenHands: the conversation's id (32 hex digits), in the paths of its files.
            s.add_counted(r"\b[0-9a-f]{32}\b", "")?;
        }
        s.add_pattern(r"cc-socks/\d+\.sock", "cc-socks/4242.sock")?;
        // Codex's unified exec output header: a random chunk id and the measured time.
        s.add_pattern(r"Chunk ID: [0-9a-f]{6}\b", "Chunk ID: 0c0c0c")?;
        s.add_pattern(r"Wall time: \d+\.\d+ seconds", "Wall time: 0.0010 seconds")?;
        // Codex rollout file names and plain calendar dates.
        s.add_pattern(
            r"sessions/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-",
            "sessions/2026/01/01/rollout-2026-01-01T00-00-00-",
        )?;
        s.add_pattern(r"\b20\d\d-\d\d-\d\d\b", "2026-01-01")?;
        // Qwen Code's web fetch reports how long the fetch took.
        s.add_pattern(
            r"(Received \d+ bytes \([^)]*\) from \S+) in \d+(\.\d+)?s\b",
            "$1 in 0.1s",
        )?;
        // Durations inside text (Claude Code's task notifications).
        s.add_pattern(
            r"<duration_ms>\d+</duration_ms>",
            "<duration_ms>100</duration_ms>",
        )?;
        // Claude Code agent ids and run ids (not Vibe's: its entry ids are a word and a
        // UUID, `assistant-<uuid>`, which the run ids' pattern would cut).
        s.add_counted(r"\ba[0-9a-f]{16}\b", "a")?;
        if !provider.starts_with("vibe") {
            s.add_counted(r"\b[0-9a-z]{9}-[0-9a-f]{8}\b", "run")?;
        }
        // The host's kernel, as `uname -sr` prints it (Claude Code's `osVersion` and
        // system prompt).
        if let Ok(release) = std::fs::read_to_string("/proc/sys/kernel/osrelease") {
            s.add(format!("Linux {}", release.trim()), SHOWN_KERNEL);
        }
        s.add(dirs.work.display().to_string(), "/workspace");
        s.add(
            dirs.work
                .display()
                .to_string()
                .replace(['/', '.', '_'], "-"),
            "-workspace",
        );
        s.add(dirs.home.display().to_string(), "/home/user");
        s.add(dirs.root.display().to_string(), "/scratch");
        // OpenCode also shows paths relative to `/` (its global project).
        for (dir, to) in [
            (&dirs.work, "workspace"),
            (&dirs.home, "home/user"),
            (&dirs.root, "scratch"),
        ] {
            let rel = dir.display().to_string();
            s.add(rel.trim_start_matches('/'), to);
        }
        s.add(
            self.mcp_bin.display().to_string(),
            "/opt/toolnorm/toolnorm-mock-mcp",
        );
        s.add(self.npm_dir.display().to_string(), "/opt/cli");
        s.add(
            format!("127.0.0.1:{}", self.port),
            format!("127.0.0.1:{SHOWN_PORT}"),
        );
        s.add(
            format!("localhost:{}", self.port),
            format!("localhost:{SHOWN_PORT}"),
        );
        Ok(s)
    }
}

/// Applies the substitutions to one string (the command shown in provenance).
pub(super) fn apply(subs: &Substitutions, s: &str) -> String {
    let mut n = match Normalizer::new(subs.clone()) {
        Ok(n) => n,
        Err(_) => return s.to_owned(),
    };
    n.string(s)
}
