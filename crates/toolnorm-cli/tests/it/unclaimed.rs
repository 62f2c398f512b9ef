//! A real file of an agent toolnorm does not read (`fixtures/unclaimed/<agent>/`) is
//! not taken for a dialect it reads: `toolnorm normalize` exits with status 3 and one
//! message that lists the dialects, as for any input of no known dialect.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn unclaimed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/unclaimed")
}

/// Every file of `fixtures/unclaimed/<agent>/`, sorted.
fn files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if dir != unclaimed() {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&unclaimed(), &mut files);
    files.sort();
    files
}

#[test]
fn a_file_of_an_agent_toolnorm_does_not_read_exits_3() {
    // Continue CLI's session index and its `-p` answer, as the agents whose files were
    // kept here became dialects of their own.
    let files = files();
    assert!(files.len() >= 2, "{files:?}");
    let dialects = Command::cargo_bin("toolnorm")
        .unwrap()
        .args(["dialects", "--names"])
        .output()
        .unwrap();
    let dialects = String::from_utf8(dialects.stdout).unwrap();
    let names: Vec<&str> = dialects.lines().collect();
    assert!(names.contains(&"claude-code"), "{dialects}");
    for file in files {
        let output = Command::cargo_bin("toolnorm")
            .unwrap()
            .arg("normalize")
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(
            output.status.code(),
            Some(3),
            "{}: {stderr}",
            file.display()
        );
        assert!(output.stdout.is_empty(), "{}", file.display());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "toolnorm: {}: no line is an event toolnorm reads: expected JSON Lines",
                file.display()
            )),
            "{stderr}"
        );
        for name in &names {
            assert!(stderr.contains(&format!("`{name}`")), "{stderr}");
        }
    }
}
