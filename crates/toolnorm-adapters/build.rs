//! Names, once each, the dialect features that compile each shared reading module of
//! `src/read/` that not every dialect uses (`#[cfg(read_apart)]`, …): a module a dialect
//! uses is compiled with it, and so is every module that module uses.
//!
//! Writes the built-in rules files (TOML) as JSON too, for `rules::builtin`: a process
//! reads them at start-up, and JSON reads several times faster than TOML.

use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;

use cfg_aliases::cfg_aliases;

fn main() -> Result<(), Box<dyn Error>> {
    cfg_aliases! {
        // `read/apart.rs`: a record read as a value but for the values at one path.
        read_apart: { any(
            feature = "kimi", feature = "openhands", feature = "goose", feature = "vibe"
        ) },
        // `read/checked.rs`: values read in place as `Value` would read them.
        read_checked: { any(
            read_apart, feature = "codex", feature = "gemini-cli", feature = "droid",
            feature = "crush"
        ) },
        // `read/borrowed.rs`: strings borrowed from the line when they have no escape.
        read_borrowed: { any(read_checked, feature = "claude-code", feature = "acp") },
        // `read/visit.rs`: scalar visits shared by the in-place readers.
        read_visit: { any(
            read_checked, feature = "claude-code", feature = "cursor", feature = "pi"
        ) },
        // `read/kept_object.rs`: an object one level deep, each value kept.
        read_kept_object: { any(feature = "cursor", feature = "cline-sdk", feature = "vibe") },
        // `read/kept_string.rs`: a string field kept as its JSON text.
        read_kept_string: { any(feature = "codex", feature = "opencode", feature = "crush") },
        // `read::json::in_one_scan`: the switch of the readers that read a line in one
        // scan and fall back to reading its items apart.
        read_one_scan: { any(feature = "goose", feature = "kimi") },
        // `read::json::scan_line`: a whole line read in one scan, `None` when it is not
        // of the scan's shape.
        read_scan_line: {
            any(feature = "acp", feature = "claude-code", feature = "codex", feature = "crush")
        },
        // `read::json::give_up`: why a scan gives up on a line.
        read_scan: { any(read_scan_line, feature = "gemini-cli") },
        // `read/tolerant.rs`: a value read with its generated type, a missing field told.
        read_tolerant: { any(feature = "codex", feature = "gemini-cli", feature = "opencode") },
    }
    builtin_rules_as_json()
}

/// Writes `OUT_DIR/builtin_rules.rs`: each built-in rules file's origin, its TOML text
/// (included, to be compared with the one a reader holds) and the same document as
/// JSON. A file that is not TOML is left out (read as TOML, it says what is wrong).
fn builtin_rules_as_json() -> Result<(), Box<dyn Error>> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")?;
    let manifest = Path::new(&manifest);
    let mut origins = vec![
        "rules/default.toml".to_owned(),
        "rules/kinds.toml".to_owned(),
    ];
    let mut dialects: Vec<String> = std::fs::read_dir(manifest.join("src/dialects"))?
        .filter_map(|entry| Some(entry.ok()?.file_name().to_str()?.to_owned()))
        .map(|folder| format!("src/dialects/{folder}/rules.toml"))
        .filter(|origin| manifest.join(origin).is_file())
        .collect();
    dialects.sort();
    origins.extend(dialects);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/dialects");
    println!("cargo::rerun-if-changed=rules");
    let mut out = String::from(
        "// Written by `build.rs` from the built-in rules files at every build that changes\n\
         // one: do not edit (edit the `.toml` files).\n\
         &[\n",
    );
    for origin in &origins {
        let path = manifest.join(origin);
        let text = std::fs::read_to_string(&path)?;
        let Ok(document) = toml::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let json = serde_json::to_string(&document)?;
        let path = path.to_str().ok_or("a path that is not UTF-8")?;
        writeln!(
            out,
            "    Converted {{ origin: {origin:?}, toml: include_str!({path:?}), json: {json:?} }},"
        )?;
    }
    out.push_str("]\n");
    let out_dir = std::env::var("OUT_DIR")?;
    std::fs::write(Path::new(&out_dir).join("builtin_rules.rs"), out)?;
    Ok(())
}
