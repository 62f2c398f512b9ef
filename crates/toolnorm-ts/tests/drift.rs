//! The checked-in TypeScript matches the Rust types.
#![allow(clippy::expect_used)] // test code: a failure should panic

#[test]
fn generated_typescript_is_up_to_date() {
    if let Err(error) = toolnorm_ts::check(&toolnorm_ts::workspace_root()) {
        panic!("{error}");
    }
}

#[test]
fn every_declaration_is_exported_once() {
    let text = toolnorm_ts::render();
    for name in [
        "ToolKind",
        "ToolState",
        "NormalizedToolPart",
        "ToolEvent",
        "LegacyToolState",
        "Approval",
        "ApprovalStatus",
        "ApprovalRequested",
        "ApprovalResolved",
    ] {
        assert_eq!(
            text.matches(&format!("export type {name} =")).count(),
            1,
            "{name}\n{text}"
        );
    }
}

/// `ts-check/contract.d.ts` is the contract's TypeScript block, verbatim. The contract lives
/// beside the repository (`../shared/contract/`); where it is not checked out, there is
/// nothing to compare against and the committed copy stands.
#[test]
fn contract_copy_is_verbatim() {
    let root = toolnorm_ts::workspace_root();
    let contract = root.join("../shared/contract/tool-normalization.md");
    let Ok(markdown) = std::fs::read_to_string(&contract) else {
        eprintln!("{} not found; skipping the comparison", contract.display());
        return;
    };
    let block = markdown
        .split("```ts\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the contract has a ```ts block");
    let copy = std::fs::read_to_string(root.join("crates/toolnorm-ts/ts-check/contract.d.ts"))
        .expect("reading the committed copy");
    assert_eq!(
        copy, block,
        "ts-check/contract.d.ts differs from the contract"
    );
}

#[test]
fn the_package_copy_and_both_schema_dirs_are_generated_alike() {
    let files = toolnorm_ts::outputs().expect("outputs");
    let text = |path: &str| {
        files
            .iter()
            .find(|(relative, _)| relative == path)
            .map(|(_, text)| text.clone())
            .unwrap_or_else(|| panic!("{path} is not generated"))
    };
    assert_eq!(
        text(toolnorm_ts::OUTPUT),
        text("packages/types/src/toolnorm.ts")
    );
    for name in [
        "NormalizedToolPart",
        "ToolEvent",
        "ToolKind",
        "ToolState",
        "ToolError",
        "LegacyToolState",
        "AcpToolnormMeta",
        "UiToolnormMeta",
    ] {
        let schema = text(&format!("generated/schema/{name}.json"));
        assert_eq!(schema, text(&format!("packages/types/schema/{name}.json")));
        let value: serde_json::Value = serde_json::from_str(&schema).expect("JSON");
        assert_eq!(
            value["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(
            value["$comment"]
                .as_str()
                .expect("banner")
                .contains(toolnorm_ts::REGENERATE)
        );
        assert!(
            !schema.contains("\"null\""),
            "{name}: absent fields are never null"
        );
    }
}

#[test]
fn the_package_version_is_the_crates_version() {
    if let Err(error) = toolnorm_ts::check_version(&toolnorm_ts::workspace_root()) {
        panic!("{error}");
    }
    let root = std::env::temp_dir().join(format!("toolnorm-ts-version-{}", std::process::id()));
    std::fs::create_dir_all(root.join(toolnorm_ts::PACKAGE)).expect("temp dir");
    std::fs::write(
        root.join(toolnorm_ts::PACKAGE).join("package.json"),
        r#"{ "name": "@toolnorm/types", "version": "0.0.1" }"#,
    )
    .expect("write");
    let error = toolnorm_ts::check_version(&root).expect_err("a stale version");
    assert!(error.to_string().contains("0.0.1"), "{error}");
    let _ = std::fs::remove_dir_all(&root);
}
