//! `sync`: install the pinned npm packages (see [`crate::pins`]) into a
//! scratch prefix from their lockfile, extract
//! each schema the official way, prune it, rewrite `schemas/` and the
//! manifest, and report what changed. Needs `npm` and `node`; never part of
//! the default test run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::error::{Error, Result, io};
use crate::manifest::{FileEntry, MANIFEST, Manifest, sha256_hex};
use crate::pins::{self, PROJECT_FILES, extract_dir};
use crate::report::{Counts, compare};
use crate::schema_doc::{definitions, prune, read_json, to_pretty};
use crate::sources::{Extraction, Roots, SCRIPTED_PACKAGES, SOURCES, Source};

/// Options of one `sync` run.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Repository root (holds `schemas/`).
    pub repo: PathBuf,
    /// Scratch npm prefix, outside the repository.
    pub scratch: PathBuf,
    /// New pins, `package → version`: installed with `npm install --save-exact` and
    /// written into the extraction project (`package.json`, `package-lock.json`).
    pub versions: BTreeMap<String, String>,
    /// Skip `npm install` (reuse what is already in `scratch`).
    pub skip_install: bool,
    /// Extract only these sources (by module), keeping the others' pinned files and
    /// manifest entries as they are; empty for every source.
    pub only: Vec<String>,
}

/// Runs a command, failing with its stderr when it exits non-zero.
fn run(cmd: &mut Command) -> Result<Vec<u8>> {
    let line = format!("{cmd:?}");
    let output = cmd.output().map_err(|e| Error::Command {
        command: line.clone(),
        message: e.to_string(),
    })?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(Error::Command {
            command: line,
            message: format!(
                "{}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        })
    }
}

/// Installs the extraction project into `scratch`: its `package.json` and
/// `package-lock.json` copied there, then `npm install --no-save`, which installs every
/// package at its locked version (from the npm cache when it has them), leaves a prefix
/// already installed from the same lockfile as it is, and writes nothing back. Not `npm
/// ci`: the registry may lack other platforms' builds that a CLI lists as optional
/// (`opencode-ai`'s `opencode-darwin-arm64` …), which `npm install` skips, as it should,
/// but `npm ci` takes for a lockfile out of date. With `pins` (`--pin`), `npm install
/// --save-exact` those versions instead and copy the updated files back into the
/// project.
fn npm_install(project: &Path, scratch: &Path, pins: &BTreeMap<String, String>) -> Result<()> {
    std::fs::create_dir_all(scratch).map_err(io(scratch))?;
    for file in PROJECT_FILES {
        let (from, to) = (project.join(file), scratch.join(file));
        std::fs::copy(&from, &to).map_err(io(&from))?;
    }
    // Install scripts run only where the extraction needs them (`SCRIPTED_PACKAGES`):
    // the others build native modules nothing here loads.
    let mut cmd = Command::new("npm");
    cmd.current_dir(scratch)
        .args(["install", "--no-audit", "--no-fund", "--ignore-scripts"]);
    if pins.is_empty() {
        cmd.arg("--no-save");
    } else {
        cmd.arg("--save-exact");
        for (package, version) in pins {
            cmd.arg(format!("{package}@{version}"));
        }
    }
    run(&mut cmd)?;
    run(Command::new("npm")
        .current_dir(scratch)
        .arg("rebuild")
        .args(SCRIPTED_PACKAGES))?;
    if !pins.is_empty() {
        for file in PROJECT_FILES {
            let (from, to) = (scratch.join(file), project.join(file));
            std::fs::copy(&from, &to).map_err(io(&to))?;
        }
    }
    Ok(())
}

fn bin(scratch: &Path, name: &str) -> PathBuf {
    scratch.join("node_modules").join(".bin").join(name)
}

fn package_dir(scratch: &Path, package: &str) -> PathBuf {
    scratch.join("node_modules").join(package)
}

fn extract_codex(scratch: &Path, file: &str) -> Result<Value> {
    let out = scratch.join("extract").join("codex-app-server");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(io(&out))?;
    }
    run(Command::new(bin(scratch, "codex"))
        .args(["app-server", "generate-json-schema", "--out"])
        .arg(&out))?;
    read_json(&out.join(file))
}

/// Kills the process group of a server this function started.
struct ServerGuard(std::process::Child);

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill")
            .args(["-TERM", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn extract_opencode(scratch: &Path) -> Result<Value> {
    use std::os::unix::process::CommandExt as _;
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(io("127.0.0.1:0"))?
        .port();
    let log = scratch.join("extract").join("opencode-serve.log");
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let log_file = std::fs::File::create(&log).map_err(io(&log))?;
    let log_err = log_file.try_clone().map_err(io(&log))?;
    let child = Command::new(bin(scratch, "opencode"))
        .args([
            "serve",
            "--port",
            &port.to_string(),
            "--hostname",
            "127.0.0.1",
        ])
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err)
        .process_group(0)
        .spawn()
        .map_err(|e| Error::Command {
            command: "opencode serve".into(),
            message: e.to_string(),
        })?;
    let _guard = ServerGuard(child);
    let url = format!("http://127.0.0.1:{port}/doc");
    // Poll with node's fetch (no HTTP client crate needed), each try capped
    // at 10 s: a fresh server may accept a connection before it answers.
    let script = "const u=process.argv[1];(async()=>{for(let i=0;i<120;i++){try{const r=await fetch(u,{signal:AbortSignal.timeout(10000)});if(r.ok){const t=await r.text();process.stdout.write(t,()=>process.exit(0));return;}}catch(e){}await new Promise(r=>setTimeout(r,500));}process.exit(1);})()";
    std::thread::sleep(Duration::from_millis(300));
    let body = run(Command::new("node").args(["-e", script, &url]))?;
    serde_json::from_slice(&body).map_err(|source| Error::Json {
        path: url.into(),
        source,
    })
}

/// Makes a `.d.ts` bundle convertible: every top-level `type`/`interface`
/// is exported (bundles export them through one `export { … }` list that
/// the converter does not follow), and each import that brings only names
/// listed in `opaque` is replaced by `export type Name = unknown;`
/// (the MCP SDK's zod-derived types crash the converter). Type-only imports
/// (`import type { A }`, `import { type A }`) count as imports of `A`.
pub fn expose_declarations(text: &str, opaque: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let imported: Option<Vec<&str>> = line
            .strip_prefix("import { ")
            .or_else(|| line.strip_prefix("import type { "))
            .and_then(|rest| rest.split_once(" }"))
            .map(|(names, _)| {
                names
                    .split(',')
                    .map(|name| name.trim().trim_start_matches("type ").trim())
                    .collect()
            });
        match imported {
            Some(names) if !names.is_empty() && names.iter().all(|n| opaque.contains(n)) => {
                for name in names {
                    let _ = writeln!(out, "/** Opaque here: {name} (import replaced). */");
                    let _ = writeln!(out, "export type {name} = unknown;");
                }
            }
            _ if line.starts_with("type ") || line.starts_with("interface ") => {
                let _ = writeln!(out, "export {line}");
            }
            _ => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out
}

fn extract_ts(
    scratch: &Path,
    source: &Source,
    file: &str,
    type_name: &str,
    opaque: &[&str],
) -> Result<Value> {
    let pkg = package_dir(scratch, source.package);
    let mut input = pkg.join(file);
    if !opaque.is_empty() {
        let text = std::fs::read_to_string(&input).map_err(io(&input))?;
        let exposed = input.with_extension("toolnorm.d.ts");
        std::fs::write(&exposed, expose_declarations(&text, opaque)).map_err(io(&exposed))?;
        input = exposed;
    }
    let out = scratch
        .join("extract")
        .join(format!("{}.schema.json", source.module));
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    run(Command::new(bin(scratch, "ts-json-schema-generator"))
        .current_dir(scratch)
        .arg("--path")
        .arg(&input)
        .args(["--type", type_name, "--no-type-check", "-o"])
        .arg(&out))?;
    read_json(&out)
}

/// The extraction command recorded in the manifest.
pub fn command_line(source: &Source) -> String {
    match source.extraction {
        Extraction::CodexAppServer { file } => {
            format!("codex app-server generate-json-schema --out DIR; take DIR/{file}")
        }
        Extraction::OpencodeServe => {
            "opencode serve --port PORT --hostname 127.0.0.1; GET http://127.0.0.1:PORT/doc".into()
        }
        Extraction::TsJsonSchema {
            file,
            type_name,
            opaque_imports,
        } => {
            let path = format!("node_modules/{}/{file}", source.package);
            let pre = if opaque_imports.is_empty() {
                String::new()
            } else {
                format!(
                    "expose_declarations({path}, opaque = [{}]) -> FILE; ",
                    opaque_imports.join(", ")
                )
            };
            let target = if pre.is_empty() { path } else { "FILE".into() };
            format!(
                "{pre}ts-json-schema-generator --path {target} --type '{type_name}' --no-type-check"
            )
        }
        Extraction::PackageFile { file } => format!("node_modules/{}/{file}", source.package),
    }
}

fn extract(scratch: &Path, source: &Source) -> Result<Value> {
    match source.extraction {
        Extraction::CodexAppServer { file } => extract_codex(scratch, file),
        Extraction::OpencodeServe => extract_opencode(scratch),
        Extraction::TsJsonSchema {
            file,
            type_name,
            opaque_imports,
        } => extract_ts(scratch, source, file, type_name, opaque_imports),
        Extraction::PackageFile { file } => {
            read_json(&package_dir(scratch, source.package).join(file))
        }
    }
}

/// Runs `sync` and returns the change report.
pub fn sync(options: &SyncOptions) -> Result<String> {
    let schemas = options.repo.join("schemas");
    let old_manifest = Manifest::load(&schemas).unwrap_or_default();
    let project = extract_dir(&options.repo);
    for module in &options.only {
        if !SOURCES.iter().any(|source| source.module == module) {
            return Err(Error::Usage(format!("--only: no source `{module}`")));
        }
    }
    let selected = |source: &Source| {
        options.only.is_empty() || options.only.iter().any(|module| module == source.module)
    };
    if !options.skip_install {
        if options.versions.is_empty() {
            // `npm install --no-save` keeps to the lockfile only where package.json agrees.
            pins::read(&project)?;
        }
        npm_install(&project, &options.scratch, &options.versions)?;
    }
    // The project's pins, checked (exact, locked); with `--skip-install`, the `--pin`
    // versions on top (what the scratch prefix is taken to hold).
    let mut packages = pins::read(&project)?;
    packages.extend(options.versions.clone());
    for package in pins::needed() {
        if !packages.contains_key(package) {
            return Err(Error::Usage(format!(
                "no pinned version for {package}; pass --pin {package}@VERSION"
            )));
        }
    }
    let mut manifest = Manifest {
        packages: packages.clone(),
        files: Vec::new(),
    };
    let mut report = String::new();
    let mut total = Counts::default();
    for source in SOURCES {
        if !selected(source) {
            let kept = old_manifest
                .files
                .iter()
                .find(|entry| entry.module == source.module)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--only: `{}` is not pinned yet; sync it too",
                        source.module
                    ))
                })?;
            manifest.files.push(kept.clone());
            continue;
        }
        let raw = extract(&options.scratch, source)?;
        let roots: Vec<String> = match source.roots {
            Roots::Named(names) => names.iter().map(|s| s.to_string()).collect(),
            Roots::All => definitions(source.schema, &raw)?.into_keys().collect(),
        };
        let pruned = prune(source.schema, &raw, &roots)?;
        let text = to_pretty(&pruned);
        let path = schemas.join(source.schema);
        let old_defs = match read_json(&path) {
            Ok(old) => definitions(source.schema, &old)?,
            Err(_) => Default::default(),
        };
        let new_defs = definitions(source.schema, &pruned)?;
        let version = packages.get(source.package).cloned().unwrap_or_default();
        let old_version = old_manifest
            .packages
            .get(source.package)
            .map_or("none", String::as_str);
        let _ = writeln!(
            report,
            "{} ({} {old_version} -> {version}):",
            source.module, source.package
        );
        let counts = compare(&old_defs, &new_defs, &mut report);
        let _ = writeln!(report, "  = {}", counts.summary());
        total.add(&counts);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, &text).map_err(io(&path))?;
        manifest.files.push(FileEntry {
            path: source.schema.to_string(),
            module: source.module.to_string(),
            package: source.package.to_string(),
            version,
            command: command_line(source),
            roots: match source.roots {
                Roots::Named(names) => names.iter().map(|s| s.to_string()).collect(),
                Roots::All => vec!["*".into()],
            },
            definitions: new_defs.len(),
            sha256: sha256_hex(text.as_bytes()),
        });
    }
    let manifest_path = schemas.join(MANIFEST);
    std::fs::write(&manifest_path, manifest.render()?).map_err(io(&manifest_path))?;
    let _ = writeln!(report, "Summary: {}", total.summary());
    Ok(report)
}

/// Checks that every pinned file matches the sha256 in the manifest.
pub fn verify(repo: &Path) -> Result<()> {
    read_verified(repo).map(drop)
}

/// Reads the manifest and every pinned file once, checking each file
/// against its sha256; returns the manifest and the files' bytes, by path
/// relative to `schemas/`.
pub fn read_verified(repo: &Path) -> Result<(Manifest, BTreeMap<String, Vec<u8>>)> {
    let schemas = repo.join("schemas");
    let manifest = Manifest::load(&schemas)?;
    let mut pinned = BTreeMap::new();
    for file in &manifest.files {
        let path = schemas.join(&file.path);
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let actual = sha256_hex(&bytes);
        if actual != file.sha256 {
            return Err(Error::Manifest {
                path: schemas.join(MANIFEST),
                message: format!(
                    "{}: sha256 {actual} does not match the pinned {}",
                    file.path, file.sha256
                ),
            });
        }
        pinned.insert(file.path.clone(), bytes);
    }
    Ok((manifest, pinned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposes_types_and_makes_listed_imports_opaque() {
        let input = "import { ContentBlock } from 'mcp';\nimport { Other } from 'x';\ntype A = {\n    b: ContentBlock;\n};\nexport { type A };\n";
        let out = expose_declarations(input, &["ContentBlock"]);
        assert!(out.contains("export type ContentBlock = unknown;"));
        assert!(out.contains("import { Other } from 'x';"));
        assert!(out.contains("export type A = {"));
        assert!(!out.contains("from 'mcp'"));
    }

    #[test]
    fn type_only_imports_are_made_opaque_too() {
        let input = "import type { PartListUnion } from '@google/genai';
import { type ThoughtSummary } from './t.js';
import type { Kept } from './k.js';
";
        let out = expose_declarations(input, &["PartListUnion", "ThoughtSummary"]);
        assert!(out.contains("export type PartListUnion = unknown;"));
        assert!(out.contains("export type ThoughtSummary = unknown;"));
        assert!(out.contains("import type { Kept } from './k.js';"));
        assert!(!out.contains("@google/genai"));
    }
}
