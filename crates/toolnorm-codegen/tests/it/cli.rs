//! The CLI's `--help` texts are goldens; a bad argument fails cleanly.

use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    match Command::new(env!("CARGO_BIN_EXE_toolnorm-codegen"))
        .args(args)
        .output()
    {
        Ok(output) => output,
        Err(e) => panic!("running toolnorm-codegen: {e}"),
    }
}

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/outputs")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some()
        && let Err(e) = std::fs::write(&path, actual)
    {
        panic!("{}: {e}", path.display());
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual,
        expected,
        "{} differs; rerun with UPDATE_GOLDEN=1 if the change is intended",
        path.display()
    );
}

#[test]
fn help_texts() {
    for (args, file) in [
        (&["--help"][..], "help.txt"),
        (&["generate", "--help"][..], "help-generate.txt"),
        (&["sync", "--help"][..], "help-sync.txt"),
    ] {
        let output = run(args);
        assert!(output.status.success());
        golden(file, &String::from_utf8_lossy(&output.stdout));
    }
}

#[test]
fn malformed_pin_is_a_usage_error() {
    let output = run(&["sync", "--pin", "opencode-ai", "--skip-install"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--pin wants PACKAGE@VERSION"), "{stderr}");
}
