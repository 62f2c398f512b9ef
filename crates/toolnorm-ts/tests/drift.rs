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
