//! The crate's top-level modules depend on each other one way: a module names only the
//! modules below it in [`LAYERS`], through `crate::…` paths (the root's re-exports count
//! as the module they come from). Read from the sources, so a new arrow up fails here.
//! Unit tests (`#[cfg(test)]` modules, inline at a file's end or files of their own) may
//! drive the whole pipeline: they are no arrows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The top-level modules of `src/`, each above the ones after it.
const LAYERS: &[&str] = &[
    "driver",
    "read_options",
    "emit",
    "pipeline",
    "dialects",
    "adapter",
    "track",
    "redact",
    "rules",
    "read",
    "acp",
    "diagnostic",
    "dialect",
    "store",
    "error",
];

/// The crate's `src/`.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// A source's text without its `//` comments (doc comments too).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A source's code without its unit tests: what follows its `#[cfg(test)]` module.
fn without_tests(code: &str) -> &str {
    code.find("#[cfg(test)]\nmod tests {")
        .map_or(code, |at| &code[..at])
}

/// The files of the test-only modules (`#[cfg(test)] mod name;`, or with a condition
/// `all(test, …)`) `file` declares.
fn test_modules(file: &Path, code: &str) -> Vec<PathBuf> {
    let dir = if file
        .file_name()
        .is_some_and(|name| name == "mod.rs" || name == "lib.rs")
    {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    let mut files = Vec::new();
    // `#[cfg(test)]`, or `#[cfg(all(test, …))]` (tests that need more of the crate).
    for (at, _) in code.match_indices("#[cfg(") {
        let attribute = &code[at..];
        let Some(end) = attribute.find(")]") else {
            continue;
        };
        let condition = &attribute["#[cfg(".len()..end];
        if condition != "test" && !condition.starts_with("all(test,") {
            continue;
        }
        let rest = attribute[end + ")]".len()..].trim_start();
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        if let Some(rest) = rest.strip_prefix("mod ") {
            let name = ident(rest);
            if rest[name.len()..].starts_with(';') {
                files.push(dir.join(format!("{name}.rs")));
                files.push(dir.join(name).join("mod.rs"));
            }
        }
    }
    files
}

/// The first identifier of `text`.
fn ident(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The names the crate's root re-exports, each with the module it comes from.
fn reexports() -> BTreeMap<String, String> {
    let lib = code(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
    let mut names = BTreeMap::new();
    for item in lib.split(';') {
        let Some(rest) = item.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = ident(rest);
        let list = rest[module.len()..].trim_start_matches("::");
        let list = list.trim().trim_start_matches('{').trim_end_matches('}');
        for name in list.split(',') {
            let name = ident(name);
            if !name.is_empty() && LAYERS.contains(&module) {
                names.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    names
}

/// The top-level modules a source names through `crate::…`.
fn named_modules(code: &str, reexports: &BTreeMap<String, String>) -> Vec<String> {
    let mut modules = Vec::new();
    let mut name = |first: &str| {
        if LAYERS.contains(&first) {
            modules.push(first.to_owned());
        } else if let Some(module) = reexports.get(first) {
            modules.push(module.clone());
        }
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            // `crate::{a::B, C}`: the first segment of each item, at the group's top level.
            Some(group) => {
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            name(ident(&group[start..i]));
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            name(ident(&group[start..i]));
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
            }
            None => name(ident(rest)),
        }
    }
    modules
}

#[test]
fn top_level_modules_depend_one_way() {
    let src = src();
    let reexports = reexports();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut tests = Vec::new();
    for file in &files {
        tests.extend(test_modules(
            file,
            &code(&std::fs::read_to_string(file).unwrap()),
        ));
    }
    files.retain(|file| !tests.contains(file));
    let mut seen = 0;
    let mut wrong = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" {
            continue;
        }
        let level = LAYERS
            .iter()
            .position(|layer| *layer == top)
            .unwrap_or_else(|| panic!("src/{relative}: module `{top}` is not in LAYERS"));
        seen += 1;
        let text = code(&std::fs::read_to_string(&file).unwrap());
        for module in named_modules(without_tests(&text), &reexports) {
            let theirs = LAYERS.iter().position(|layer| *layer == module).unwrap();
            if theirs < level {
                wrong.push(format!("src/{relative} ({top}) names `{module}`, above it"));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(seen > 50, "{seen} files");
    assert!(wrong.is_empty(), "arrows up:\n{}", wrong.join("\n"));
}

#[test]
fn every_layer_is_a_module_of_the_crate() {
    let lib = code(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
    for layer in LAYERS {
        assert!(
            lib.contains(&format!("mod {layer};")),
            "`{layer}` is not a module of lib.rs"
        );
    }
}
