//! The link check: every relative link of the book's pages and of the README leads to a
//! file that exists and, with a `#fragment`, to a heading of that page; every page of the
//! book is in its table of contents.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::Error;
use crate::rules::slash_path;

/// The book's pages, from the repository's root.
pub const BOOK: &str = "docs/src";

/// Checks the links of every page of the book and of the README under `root`; returns how
/// many relative links it followed.
pub fn check(root: &Path) -> Result<usize, Error> {
    let root = &normalize(root);
    let mut pages = Vec::new();
    markdown_files(&root.join(BOOK), &mut pages)?;
    pages.sort();
    let summary = root.join(BOOK).join("SUMMARY.md");
    let mut broken = Vec::new();
    let mut followed = 0;
    let mut listed = HashSet::new();
    for page in pages.iter().chain(std::iter::once(&root.join("README.md"))) {
        let text = std::fs::read_to_string(page).map_err(|e| Error::io(page, e))?;
        let in_book = page.starts_with(root.join(BOOK));
        let name = slash_path(page.strip_prefix(root).unwrap_or(page));
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            followed += 1;
            let (path, fragment) = target.split_once('#').unwrap_or((target.as_str(), ""));
            let file = if path.is_empty() {
                page.clone()
            } else {
                normalize(&page.parent().unwrap_or(root).join(path))
            };
            if *page == summary {
                listed.insert(file.clone());
            }
            if in_book && !file.starts_with(root.join(BOOK)) {
                broken.push(format!("{name}: `{target}` leads out of the book"));
            } else if !file.exists() {
                broken.push(format!("{name}: `{target}`: no such file"));
            } else if !fragment.is_empty() {
                let target_text =
                    std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
                if !heading_ids(&target_text).contains(fragment) {
                    broken.push(format!("{name}: `{target}`: no such heading"));
                }
            }
        }
    }
    for page in &pages {
        if *page != summary && !listed.contains(page) {
            let name = slash_path(page.strip_prefix(root).unwrap_or(page));
            broken.push(format!("{name}: not in SUMMARY.md"));
        }
    }
    if broken.is_empty() {
        Ok(followed)
    } else {
        Err(Error::BrokenLinks(broken))
    }
}

/// Every `.md` file under `dir`.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.is_dir() {
            markdown_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
    Ok(())
}

/// `path` with its `.` and `..` components resolved.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The lines of a page outside its fenced code blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fence: Option<&str> = None;
    text.lines().filter(move |line| {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"]
            .into_iter()
            .find(|marker| trimmed.starts_with(marker));
        match (fence, marker) {
            (None, Some(marker)) => {
                fence = Some(marker);
                false
            }
            (Some(open), Some(marker)) if open == marker => {
                fence = None;
                false
            }
            (Some(_), _) => false,
            (None, None) => true,
        }
    })
}

/// A line without its inline code spans.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links of a page (`[text](target)`), outside code.
fn links(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            let target = target.trim_start_matches('<').trim_end_matches('>');
            if !target.is_empty() {
                targets.push(target.to_owned());
            }
            rest = &after[end..];
        }
    }
    targets
}

/// The ids mdBook gives the headings of a page: the heading's text in lower case, letters,
/// digits, `_` and `-` kept, white space as `-`, the rest left out; a repeated id gets
/// `-1`, `-2`, ….
fn heading_ids(text: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let id = heading_id(&link_text(&line[hashes..]));
        let mut unique = id.clone();
        let mut counter = 1;
        while !ids.insert(unique.clone()) {
            unique = format!("{id}-{counter}");
            counter += 1;
        }
    }
    ids
}

/// A heading's text with its links' targets left out (`[text](target)` reads `text`).
fn link_text(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(start) = rest.find("](") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        rest = after.find(')').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// mdBook's id of a heading's text.
fn heading_id(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|ch| {
            if ch.is_alphanumeric() || ch == '_' || ch == '-' {
                Some(ch)
            } else if ch.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_mdbooks() {
        assert_eq!(
            heading_id(" The npm package `@toolnorm/types`"),
            "the-npm-package-toolnormtypes"
        );
        assert_eq!(
            heading_id("`--output-cap`: the final output cut too"),
            "--output-cap-the-final-output-cut-too"
        );
        let ids = heading_ids("# A\n```\n# not a heading\n```\n## A\n#no\n");
        assert_eq!(ids, HashSet::from(["a".to_owned(), "a-1".to_owned()]));
    }

    #[test]
    fn links_outside_code_only() {
        let text = "see [a](x.md#y) and `[b](no.md)`\n```\n[c](no.md)\n```\n[d](<z.md> \"t\")";
        assert_eq!(links(text), ["x.md#y", "z.md"]);
    }
}
