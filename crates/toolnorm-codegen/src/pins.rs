//! The npm packages `sync` extracts with, pinned in a committed npm project
//! (`crates/toolnorm-codegen/extract/`): its `package.json` names every source package and
//! every extraction tool at an exact version, its `package-lock.json` pins the whole tree
//! those pull in (the TypeScript compiler the converter runs, the `@types` packages it
//! reads), so `npm install` installs the same files on every machine and every day.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::schema_doc::read_json;
use crate::sources::{SOURCES, TOOL_PACKAGES};

/// The npm project of the extraction, relative to the repository root.
pub const EXTRACT_DIR: &str = "crates/toolnorm-codegen/extract";

/// The project's files `sync` copies into the scratch prefix (and back, after a `--pin`).
pub const PROJECT_FILES: [&str; 2] = ["package.json", "package-lock.json"];

/// The extraction project of the repository at `repo`.
pub fn extract_dir(repo: &Path) -> PathBuf {
    repo.join(EXTRACT_DIR)
}

/// Whether `version` is one exact release (`1.2.3`, `1.2.3-beta.4`), not a range, a tag
/// or a URL.
pub fn is_exact(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-+".contains(&b))
}

fn invalid(path: &Path, message: String) -> Error {
    Error::Manifest {
        path: path.to_path_buf(),
        message,
    }
}

/// The `dependencies` of `package.json` in `dir`, package → version.
pub fn dependencies(dir: &Path) -> Result<BTreeMap<String, String>> {
    let path = dir.join("package.json");
    let json = read_json(&path)?;
    let deps = json
        .get("dependencies")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid(&path, "no `dependencies` object".into()))?;
    deps.iter()
        .map(|(package, version)| match version.as_str() {
            Some(version) => Ok((package.clone(), version.to_owned())),
            None => Err(invalid(
                &path,
                format!("{package}: version is not a string"),
            )),
        })
        .collect()
}

/// The version `package-lock.json` in `dir` installs at the top of `node_modules` for each
/// of `packages`.
pub fn locked(dir: &Path, packages: &[&str]) -> Result<BTreeMap<String, String>> {
    let path = dir.join("package-lock.json");
    let json = read_json(&path)?;
    let tree = json
        .get("packages")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            invalid(
                &path,
                "no `packages` object (lockfileVersion 2 or 3)".into(),
            )
        })?;
    packages
        .iter()
        .map(|package| {
            tree.get(&format!("node_modules/{package}"))
                .and_then(|entry| entry.get("version"))
                .and_then(Value::as_str)
                .map(|version| ((*package).to_owned(), version.to_owned()))
                .ok_or_else(|| invalid(&path, format!("{package} is not locked")))
        })
        .collect()
}

/// Every package `sync` needs pinned: each source's package and each tool.
pub fn needed() -> Vec<&'static str> {
    let mut packages: Vec<&str> = SOURCES
        .iter()
        .map(|source| source.package)
        .chain(TOOL_PACKAGES.iter().copied())
        .collect();
    packages.sort_unstable();
    packages.dedup();
    packages
}

/// The pins of the extraction project in `dir`, checked: every package `sync` needs is a
/// dependency at an exact version, and the lockfile installs that version.
pub fn read(dir: &Path) -> Result<BTreeMap<String, String>> {
    let deps = dependencies(dir)?;
    let path = dir.join("package.json");
    for package in needed() {
        match deps.get(package) {
            None => return Err(invalid(&path, format!("{package} is not a dependency"))),
            Some(version) if !is_exact(version) => {
                return Err(invalid(
                    &path,
                    format!("{package}: `{version}` is not one exact version"),
                ));
            }
            Some(_) => {}
        }
    }
    let names: Vec<&str> = deps.keys().map(String::as_str).collect();
    let locked = locked(dir, &names)?;
    for (package, version) in &deps {
        if locked.get(package) != Some(version) {
            return Err(invalid(
                &dir.join("package-lock.json"),
                format!(
                    "{package} is locked at {}, package.json pins {version}; run `npm install` in {}",
                    locked.get(package).map_or("nothing", String::as_str),
                    dir.display()
                ),
            ));
        }
    }
    Ok(deps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Manifest;

    fn repo() -> PathBuf {
        crate::default_repo_root()
    }

    #[test]
    fn exact_versions_only() {
        for exact in ["1.14.0", "0.3.332", "2.0.0-beta.4", "1.0.0+build.7"] {
            assert!(is_exact(exact), "{exact}");
        }
        for loose in [
            "^1.14.0", "~2.10.0", ">=5.9 <7", "latest", "1.x", "1.2", "*", "",
        ] {
            assert!(!is_exact(loose), "{loose}");
        }
    }

    /// Every tool the extraction runs and every source package is pinned exactly in the
    /// committed package.json, and the committed lockfile installs just that version.
    #[test]
    fn every_extraction_package_is_pinned_exactly_and_locked() {
        let dir = extract_dir(&repo());
        let pins = read(&dir).unwrap_or_else(|error| panic!("{error}"));
        let packages: Vec<&str> = needed();
        let locked = locked(&dir, &packages).unwrap_or_else(|error| panic!("{error}"));
        for package in TOOL_PACKAGES {
            let pinned = pins.get(*package).map(String::as_str);
            assert!(pinned.is_some_and(is_exact), "{package}: {pinned:?}");
            assert_eq!(
                locked.get(*package).map(String::as_str),
                pinned,
                "{package}"
            );
        }
    }

    /// The provenance of the schemas records the versions the project installs.
    #[test]
    fn provenance_records_the_pinned_versions() {
        let repo = repo();
        let pins = read(&extract_dir(&repo)).unwrap_or_else(|error| panic!("{error}"));
        let manifest =
            Manifest::load(&repo.join("schemas")).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(manifest.packages, pins);
        for file in &manifest.files {
            assert_eq!(
                pins.get(&file.package),
                Some(&file.version),
                "{}",
                file.path
            );
        }
    }
}
