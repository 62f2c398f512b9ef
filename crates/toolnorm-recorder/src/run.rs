//! Running a CLI in a scratch directory, capturing its output line by line.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The scratch directories of one recording.
#[derive(Debug, Clone)]
pub struct RunDirs {
    /// Root of the run (wiped before each run).
    pub root: PathBuf,
    /// The CLI's HOME.
    pub home: PathBuf,
    /// The CLI's working directory, seeded with a few files.
    pub work: PathBuf,
}

/// Files every scenario's working directory starts with.
pub const SEED_FILES: &[(&str, &str)] = &[
    ("notes.txt", "alpha\nbeta\ngamma\n"),
    (
        "src/greet.py",
        "def greet(name):\n    return \"Hello, \" + name\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n",
    ),
    (
        "README.md",
        "# Demo project\n\nA tiny project used by the recorder scenarios.\n",
    ),
];

impl RunDirs {
    /// Creates fresh run directories under `scratch/runs/<provider>/<scenario>`.
    pub fn fresh(scratch: &Path, provider: &str, scenario: &str) -> Result<Self> {
        let root = scratch.join("runs").join(provider).join(scenario);
        if root.exists() {
            std::fs::remove_dir_all(&root)
                .map_err(|e| Error::io(format!("removing {}", root.display()), e))?;
        }
        let home = root.join("home");
        let work = root.join("work");
        for d in [&home, &work, &work.join("src")] {
            std::fs::create_dir_all(d)
                .map_err(|e| Error::io(format!("creating {}", d.display()), e))?;
        }
        for (name, text) in SEED_FILES {
            let p = work.join(name);
            std::fs::write(&p, text)
                .map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
        }
        Ok(RunDirs { root, home, work })
    }
}

/// Output of a finished process.
#[derive(Debug, Default)]
pub struct Captured {
    /// Standard output lines.
    pub stdout: Vec<String>,
    /// Standard error lines.
    pub stderr: Vec<String>,
    /// Whether the process had to be killed on timeout.
    pub timed_out: bool,
}

/// Spawns a command with piped stdout/stderr; returns the child and line receivers.
pub fn spawn_lines(
    cmd: &mut Command,
    stdin: bool,
) -> Result<(Child, mpsc::Receiver<String>, mpsc::Receiver<String>)> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io(format!("starting {:?}", cmd.get_program()), e))?;
    let (otx, orx) = mpsc::channel();
    let (etx, erx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(|l| l.ok()) {
                if otx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    if let Some(err) = child.stderr.take() {
        thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(|l| l.ok()) {
                if etx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    Ok((child, orx, erx))
}

/// Sends a signal to a process with the system `kill` command.
pub fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status();
}

/// Stops (SIGKILL) every process whose command line names `path`: the daemons a CLI
/// leaves running in the background of a run (Cline's hub, started with `--cwd <work>`).
/// Reads `/proc`; elsewhere it does nothing.
pub fn stop_processes_naming(path: &Path) {
    let Some(needle) = path.to_str() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let names_path = cmdline
            .split(|b| *b == 0)
            .any(|arg| std::str::from_utf8(arg).is_ok_and(|arg| arg.contains(needle)));
        if names_path && pid != std::process::id() {
            signal(pid, "KILL");
        }
    }
}

/// A line predicate that starts the interrupt countdown.
pub type Trigger<'a> = &'a dyn Fn(&str) -> bool;

/// Runs a command to completion (or timeout), collecting its output.
/// With `interrupt`, sends SIGINT once `trigger` matches a stdout line and the
/// delay has passed.
pub fn run(
    cmd: &mut Command,
    timeout: Duration,
    interrupt: Option<(Duration, Trigger<'_>)>,
) -> Result<Captured> {
    run_with(cmd, timeout, interrupt, false)
}

/// [`run`], with the stderr lines among the stdout ones when `merge_stderr` (in the
/// order they arrived, to the 20 ms the loop waits), as `2>&1` captures them.
pub fn run_with(
    cmd: &mut Command,
    timeout: Duration,
    interrupt: Option<(Duration, Trigger<'_>)>,
    merge_stderr: bool,
) -> Result<Captured> {
    let (mut child, orx, erx) = spawn_lines(cmd, false)?;
    let start = Instant::now();
    let mut cap = Captured::default();
    let mut fire_at: Option<Instant> = None;
    let mut fired = false;
    loop {
        while let Ok(l) = orx.try_recv() {
            if let Some((delay, trigger)) = &interrupt
                && fire_at.is_none()
                && trigger(&l)
            {
                fire_at = Some(Instant::now() + *delay);
            }
            cap.stdout.push(l);
        }
        while let Ok(l) = erx.try_recv() {
            match merge_stderr {
                true => cap.stdout.push(l),
                false => cap.stderr.push(l),
            }
        }
        if let Some(t) = fire_at
            && !fired
            && Instant::now() >= t
        {
            signal(child.id(), "INT");
            fired = true;
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => {}
            Err(e) => return Err(Error::io("waiting for child", e)),
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            cap.timed_out = true;
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    // Drain what the reader threads still hold.
    let deadline = Instant::now() + Duration::from_secs(2);
    while let Ok(l) = orx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        cap.stdout.push(l);
    }
    while let Ok(l) = erx.try_recv() {
        match merge_stderr {
            true => cap.stdout.push(l),
            false => cap.stderr.push(l),
        }
    }
    Ok(cap)
}

/// Stops a child whose stdin was closed: it may exit by itself within `grace`, then it
/// is killed.
pub fn stop(child: &mut Child, grace: Duration) {
    let stop = Instant::now() + grace;
    while Instant::now() < stop {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(50));
    }
    if let Ok(None) = child.try_wait() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Writes lines to a file, creating parent directories.
pub fn write_lines(path: &Path, lines: &[String]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    }
    let mut f = std::fs::File::create(path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
    for l in lines {
        writeln!(f, "{l}").map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    }
    Ok(())
}
