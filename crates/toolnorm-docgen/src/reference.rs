//! The provider reference (`docs/src/reference/providers.md`), written from the dialect
//! table (`Dialect::all()`) and the rules files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use toolnorm_adapters::{Dialect, recordings};

use crate::Error;
use crate::rules::{self, RulesFile, Section};

/// Where the reference goes, from the repository's root.
pub const PAGE: &str = "docs/src/reference/providers.md";

/// The adapters' manifest, whose `[features]` must declare every dialect's feature.
const ADAPTERS_MANIFEST: &str = "crates/toolnorm-adapters/Cargo.toml";

/// The reference page, as the dialect table and the rules files under `root` give it.
pub fn render(root: &Path) -> Result<String, Error> {
    let dialects: Vec<Dialect> = Dialect::all().collect();
    check_features(root, &dialects)?;
    let mut page = String::new();
    page.push_str(
        "<!-- Written by `cargo run -p toolnorm-docgen` from the dialect table and the rules \
         files; CI checks it is up to date. Edit those, not this page. -->\n\n",
    );
    page.push_str("# Providers\n\n");
    page.push_str(
        "Every dialect toolnorm reads, in the order of the dialect table: the order detection \
         tries them in (the first dialect that claims a line decides) and `toolnorm dialects` \
         lists them. A dialect's name is its `--provider` value; its provider is the name \
         rules match and `metadata.provider` shows; its cargo feature is the one of \
         `toolnorm-adapters` (and `toolnorm-wire`) that compiles it. How each is read is told \
         in [Providers and rules files](../user-guide/providers.md).\n\n",
    );
    page.push_str("| dialect | provider | cargo feature | what it reads | recorded by |\n");
    page.push_str("| --- | --- | --- | --- | --- |\n");
    for dialect in &dialects {
        let feature = match dialect.feature() {
            "" => "(always read)".to_owned(),
            feature => format!("`{feature}`"),
        };
        let sources: Vec<String> = recordings()
            .filter(|(_, recorded)| recorded == dialect)
            .map(|(source, _)| format!("`{source}`"))
            .collect();
        let sources = if sources.is_empty() {
            "(no CLI writes it)".to_owned()
        } else {
            sources.join(", ")
        };
        let _ = writeln!(
            page,
            "| `{}` | `{}` | {} | {} | {} |",
            dialect.as_str(),
            dialect.provider(),
            feature,
            dialect.summary().unwrap_or_default().replace('|', "\\|"),
            sources
        );
    }
    page.push_str(
        "\nThe recorder's sources are the `toolnorm-record` drivers that record the dialect \
         from the real CLI (see [Recorded fixtures](../contributor/recording.md)); their \
         recordings are under `fixtures/<dialect>/`.\n\n",
    );

    page.push_str("## Session stores\n\n");
    page.push_str(
        "Where each agent keeps session files of a dialect by default, as `toolnorm \
         sessions` looks for them under the home folder: a folder of the home directory (or \
         the one the variable names, when set) and a glob of the files under it (`*` within \
         a path segment, `**` across them). A dialect without a store is read from a stream \
         or from files named on the command line.\n\n",
    );
    page.push_str("| dialect | folder | files |\n| --- | --- | --- |\n");
    for dialect in &dialects {
        for store in dialect.stores() {
            let folder = match store.env {
                Some(env) if !store.env_subfolder.is_empty() => {
                    format!("`~/{}` (or `${env}/{}`)", store.folder, store.env_subfolder)
                }
                Some(env) => format!("`~/{}` (or `${env}`)", store.folder),
                None => format!("`~/{}`", store.folder),
            };
            let _ = writeln!(
                page,
                "| `{}` | {folder} | `{}` |",
                dialect.as_str(),
                store.files
            );
        }
    }
    page.push('\n');

    page.push_str("## OpenTelemetry\n\n");
    page.push_str(
        "In [the `otel` format](../formats/otel.md) and `toolnorm export`, a session's spans \
         name its agent by the provider (`gen_ai.agent.name`, `toolnorm.provider`) and the \
         dialect read (`toolnorm.dialect`). The agent's version (`toolnorm.agent.version`) \
         is read where the stream says it (a dash: not read, as the stream does not say \
         it or says it where toolnorm does not look yet):\n\n",
    );
    page.push_str("| dialect | the agent's version, from |\n| --- | --- |\n");
    for dialect in &dialects {
        let source = dialect.agent_version_source().unwrap_or("—");
        let _ = writeln!(page, "| `{}` | {} |", dialect.as_str(), source);
    }
    page.push('\n');

    page.push_str("## Rules\n\n");
    page.push_str(
        "The kind and title of each tool, one section per rules file in the order of the \
         dialect table, then the rules every dialect falls back on. A rule matches the \
         call's `tool` (`*` matches any run of characters), narrowed by `when` (values of \
         the input, `\"*\"` any value present); `title` is a template, or a list of templates \
         tried in order. A rules \
         file given with `--rules FILE` has the same form and goes before all of these.\n",
    );
    let mut files: Vec<(PathBuf, &str, Vec<&str>)> = Vec::new();
    for dialect in &dialects {
        let Some(path) = rules::rules_path(root, dialect.as_str(), dialect.provider()) else {
            continue;
        };
        match files.iter_mut().find(|(known, _, _)| *known == path) {
            Some((_, _, names)) => names.push(dialect.as_str()),
            None => files.push((path, dialect.provider(), vec![dialect.as_str()])),
        }
    }
    for (path, provider, names) in &files {
        let file = RulesFile::read(root, path)?;
        let readers: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        let _ = write!(
            page,
            "\n### `{provider}`\n\n`{}`, read by {}.\n",
            file.path,
            readers.join(", ")
        );
        write_rules(&mut page, &file);
    }
    for path in rules::shared_paths(root) {
        let file = RulesFile::read(root, &path)?;
        let _ = write!(
            page,
            "\n### Every dialect: `{}`\n\n`{}`, after each dialect's own rules.\n",
            file_name(&path),
            file.path
        );
        write_rules(&mut page, &file);
    }
    Ok(page)
}

/// A rules file's header, defaults and table.
fn write_rules(page: &mut String, file: &RulesFile) {
    if !file.about.is_empty() {
        let _ = write!(page, "\n> {}\n", file.about);
    }
    if !file.defaults.is_empty() {
        let defaults: Vec<String> = file
            .defaults
            .iter()
            .map(|(key, value)| format!("`{key}` {value}"))
            .collect();
        let _ = write!(page, "\nDefaults of every rule: {}.\n", defaults.join(", "));
    }
    for section in &file.sections {
        write_section(page, section);
    }
}

/// One table of a rules file, with only the columns some row fills.
fn write_section(page: &mut String, section: &Section) {
    if section.rows.is_empty() {
        return;
    }
    if let Some(name) = &section.name {
        let _ = write!(page, "\n`[{name}]`:\n");
    }
    let used: Vec<usize> = (0..section.columns.len())
        .filter(|&i| section.rows.iter().any(|row| !row[i].is_empty()))
        .collect();
    let _ = writeln!(
        page,
        "\n| {} |",
        used.iter()
            .map(|&i| section.columns[i].as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(page, "|{}", " --- |".repeat(used.len()));
    for row in &section.rows {
        let cells: Vec<&str> = used.iter().map(|&i| row[i].as_str()).collect();
        let _ = writeln!(page, "| {} |", cells.join(" | "));
    }
}

/// The last component of a path.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every dialect's feature is one the adapters' manifest declares.
fn check_features(root: &Path, dialects: &[Dialect]) -> Result<(), Error> {
    let manifest = root.join(ADAPTERS_MANIFEST);
    let text = std::fs::read_to_string(&manifest).map_err(|e| Error::io(&manifest, e))?;
    let table: toml::Table = text.parse().map_err(|source| Error::Toml {
        path: manifest.clone(),
        source: Box::new(source),
    })?;
    let declared = table.get("features").and_then(toml::Value::as_table);
    for dialect in dialects {
        let feature = dialect.feature();
        if !feature.is_empty() && !declared.is_some_and(|features| features.contains_key(feature)) {
            return Err(Error::UnknownFeature {
                dialect: dialect.as_str().to_owned(),
                feature: feature.to_owned(),
                manifest,
            });
        }
    }
    Ok(())
}
