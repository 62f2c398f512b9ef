//! The source list against the adapters' dialect table, both ways: every source compiles
//! for a dialect feature, and every dialect feature has its sources, but for the dialects
//! whose provider publishes no types toolnorm pins.

use std::collections::BTreeSet;

use toolnorm_adapters::Dialect;

#[test]
#[allow(clippy::expect_used)]
fn the_sources_and_the_dialect_table_name_the_same_features() {
    let sources: BTreeSet<&str> = toolnorm_codegen::sources::SOURCES
        .iter()
        .map(|source| source.feature)
        .collect();
    // A dialect read without generated wire types (its feature enables no
    // `toolnorm-wire/…`, such as Pi's hand-written structs) has no source.
    let manifest: toml::Table =
        toml::from_str(include_str!("../../../toolnorm-adapters/Cargo.toml"))
            .expect("the adapters' manifest");
    let has_wire_types = |feature: &str| {
        manifest["features"][feature]
            .as_array()
            .is_some_and(|enables| {
                enables.iter().any(|enable| {
                    enable
                        .as_str()
                        .is_some_and(|e| e.starts_with("toolnorm-wire/"))
                })
            })
    };
    let dialects: BTreeSet<&str> = Dialect::all()
        .map(|dialect| dialect.feature())
        .filter(|feature| !feature.is_empty() && has_wire_types(feature))
        .collect();
    assert_eq!(
        sources, dialects,
        "the codegen's source features and the dialect table's"
    );
}
