//! The source list against the adapters' dialect table, both ways: every source compiles
//! for a dialect feature, and every dialect feature has its sources.

use std::collections::BTreeSet;

use toolnorm_adapters::Dialect;

#[test]
fn the_sources_and_the_dialect_table_name_the_same_features() {
    let sources: BTreeSet<&str> = toolnorm_codegen::sources::SOURCES
        .iter()
        .map(|source| source.feature)
        .collect();
    let dialects: BTreeSet<&str> = Dialect::all()
        .map(|dialect| dialect.feature())
        .filter(|feature| !feature.is_empty())
        .collect();
    assert_eq!(
        sources, dialects,
        "the codegen's source features and the dialect table's"
    );
}
