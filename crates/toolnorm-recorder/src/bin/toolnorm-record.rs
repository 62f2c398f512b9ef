//! `toolnorm-record`: run the mock model, record real CLI streams as fixtures.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use toolnorm_recorder::drivers::Recorder;
use toolnorm_recorder::mock::MockServer;
use toolnorm_recorder::provenance::Provenance;
use toolnorm_recorder::providers::{package_of, providers};
use toolnorm_recorder::{Error, Result, scenario};

#[derive(Parser)]
#[command(
    version,
    about = "Record real agent CLI event streams against a scripted mock model"
)]
struct Args {
    /// Repository root (holds fixtures/ and crates/toolnorm-recorder/scenarios/).
    #[arg(long, global = true, default_value = ".")]
    root: PathBuf,
    /// Scratch directory for CLI installs, scratch HOMEs and raw recordings.
    #[arg(
        long,
        global = true,
        env = "TOOLNORM_SCRATCH",
        default_value = "/tmp/toolnorm-record"
    )]
    scratch: PathBuf,
    /// Directory whose node_modules/ holds the CLIs (default: SCRATCH/npm).
    #[arg(long, global = true, env = "TOOLNORM_NPM_DIR")]
    npm_dir: Option<PathBuf>,
    /// Port of the mock model (0 picks a free one).
    #[arg(long, global = true, default_value_t = 0)]
    port: u16,
    /// Seconds allowed per recording.
    #[arg(long, global = true, default_value_t = 120)]
    timeout: u64,
    /// Recordings run at once (`record` and `all`).
    #[arg(long, global = true, default_value_t = 3)]
    jobs: usize,
    /// Write into `fixtures/<provider>@<version>/`, the version read from the
    /// installed CLI (`--npm-dir` holding an older release); `[cli]` is left as it is.
    #[arg(long, global = true)]
    versioned: bool,
    /// Write every request and reply of the mock model to this directory.
    #[arg(long, global = true)]
    log_requests: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the mock model only, until interrupted.
    Serve,
    /// Record one or more scenarios with one provider.
    Record {
        /// Provider directory: claude-code, codex-exec, codex-app-server, opencode-run, opencode-serve.
        provider: String,
        /// Scenario names (default: every scenario the provider supports).
        scenarios: Vec<String>,
    },
    /// Re-record every scenario with every provider.
    All {
        /// Only these providers.
        #[arg(long)]
        provider: Vec<String>,
        /// Only the providers recorded from this npm package (e.g. `@openai/codex`).
        #[arg(long)]
        package: Option<String>,
    },
    /// List scenarios and the providers that record them.
    List,
    /// Record OpenCode's session database: the scenarios through `opencode run`, all into
    /// one `opencode.db`, and `opencode export` of each session
    /// (`fixtures/opencode-db/<version>/`).
    OpencodeDb {
        /// Scenario names (default: every scenario `opencode-run` records).
        scenarios: Vec<String>,
    },
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toolnorm-record: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode> {
    let args = Args::parse();
    let root = std::path::absolute(&args.root).map_err(|e| Error::io("root path", e))?;
    let scenarios_dir = root.join("crates/toolnorm-recorder/scenarios");
    let scenarios = scenario::load_dir(&scenarios_dir)?;
    match &args.cmd {
        Cmd::List => {
            for (name, sc) in &scenarios {
                let provs: Vec<&str> = providers()
                    .into_iter()
                    .filter(|p| sc.applies_to(p))
                    .collect();
                println!("{name:24} {}  — {}", provs.join(","), sc.description);
            }
            return Ok(ExitCode::SUCCESS);
        }
        Cmd::Serve => {
            let server = MockServer::start(scenarios, args.port, args.log_requests.clone())?;
            println!("mock model listening on {}", server.base_url());
            server.wait();
            return Ok(ExitCode::SUCCESS);
        }
        _ => {}
    }
    let server = MockServer::start(scenarios.clone(), args.port, args.log_requests.clone())?;
    let scratch = std::path::absolute(&args.scratch).map_err(|e| Error::io("scratch path", e))?;
    let npm_dir = args.npm_dir.clone().unwrap_or_else(|| scratch.join("npm"));
    let npm_dir = std::path::absolute(&npm_dir).map_err(|e| Error::io("npm path", e))?;
    let exe = std::env::current_exe().map_err(|e| Error::io("locating executable", e))?;
    let mcp_bin = exe.with_file_name("toolnorm-mock-mcp");
    let rec = Recorder {
        root: root.clone(),
        scratch,
        npm_dir,
        mcp_bin,
        port: server.port(),
        timeout: Duration::from_secs(args.timeout),
        versioned: args.versioned,
        data_home: None,
    };
    if let Cmd::OpencodeDb { scenarios: names } = &args.cmd {
        let chosen: Vec<&scenario::Scenario> = if names.is_empty() {
            scenarios
                .values()
                .filter(|s| s.applies_to("opencode-run"))
                .collect()
        } else {
            names
                .iter()
                .map(|name| {
                    scenarios
                        .get(name)
                        .ok_or_else(|| Error::NotFound(format!("unknown scenario {name}")))
                })
                .collect::<Result<_>>()?
        };
        let database = rec.opencode_db(&chosen)?;
        eprintln!(
            "recorded {} ({} sessions) and {}",
            database.path, database.sessions, database.exports
        );
        let prov_path = root.join("fixtures/PROVENANCE.toml");
        let mut prov = Provenance::load(&prov_path)?;
        prov.upsert_database(database);
        prov.save(&prov_path)?;
        return Ok(ExitCode::SUCCESS);
    }
    let jobs: Vec<(String, String)> = match &args.cmd {
        Cmd::Record {
            provider,
            scenarios: names,
        } => {
            if !providers().contains(&provider.as_str()) {
                return Err(Error::NotFound(format!("unknown provider {provider}")));
            }
            let names: Vec<String> = if names.is_empty() {
                scenarios
                    .values()
                    .filter(|s| s.applies_to(provider))
                    .map(|s| s.name.clone())
                    .collect()
            } else {
                names.clone()
            };
            names.into_iter().map(|n| (provider.clone(), n)).collect()
        }
        Cmd::All { provider, package } => providers()
            .into_iter()
            .filter(|p| provider.is_empty() || provider.iter().any(|x| x == p))
            .filter(|p| {
                package.as_ref().is_none_or(|package| {
                    package_of(p).is_some_and(|(of, _)| of == package.as_str())
                })
            })
            .flat_map(|p| {
                scenarios
                    .values()
                    .filter(|s| s.applies_to(p))
                    .map(|s| ((*p).to_owned(), s.name.clone()))
            })
            .collect(),
        Cmd::Serve | Cmd::List | Cmd::OpencodeDb { .. } => Vec::new(),
    };
    let prov_path = root.join("fixtures/PROVENANCE.toml");
    let mut prov = Provenance::load(&prov_path)?;
    if !args.versioned {
        // Only the CLIs recorded now are read (and need to be installed).
        let recorded: std::collections::BTreeSet<&str> =
            jobs.iter().map(|(provider, _)| provider.as_str()).collect();
        prov.cli.extend(rec.clis(recorded)?);
    }
    for (_, name) in &jobs {
        if !scenarios.contains_key(name) {
            return Err(Error::NotFound(format!("unknown scenario {name}")));
        }
    }
    let started = Instant::now();
    let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<_>>());
    let state = Mutex::new((prov, 0usize));
    let outcome: Mutex<Result<()>> = Mutex::new(Ok(()));
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.max(1) {
            scope.spawn(|| {
                while let Some((provider, name)) = queue.lock().ok().and_then(|mut q| q.pop_front())
                {
                    let Some(sc) = scenarios.get(&name) else {
                        continue;
                    };
                    let t = Instant::now();
                    let result = rec.record(&provider, sc);
                    let Ok(mut st) = state.lock() else {
                        break;
                    };
                    match result {
                        Ok(entries) => {
                            for e in entries {
                                eprintln!(
                                    "recorded {:48} {:4} lines  {:5.1}s",
                                    e.path,
                                    e.lines,
                                    t.elapsed().as_secs_f32()
                                );
                                st.0.upsert(e);
                            }
                            if let Err(e) = st.0.save(&prov_path)
                                && let Ok(mut o) = outcome.lock()
                            {
                                *o = Err(e);
                            }
                        }
                        Err(e) => {
                            st.1 += 1;
                            eprintln!("FAILED {provider}/{name}: {e}");
                        }
                    }
                }
            });
        }
    });
    outcome
        .into_inner()
        .map_err(|_| Error::Server("worker panicked".into()))??;
    let failures = state
        .into_inner()
        .map(|(_, f)| f)
        .map_err(|_| Error::Server("worker panicked".into()))?;
    eprintln!(
        "done in {:.0}s, {failures} failed",
        started.elapsed().as_secs_f32()
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
