//! Shared driver of the fuzz targets.

use toolnorm_adapters::{Dialect, Normalizer, Step};

/// Runs `data` through a normalizer (the dialect named, or detected), in two chunks cut
/// where the first byte says, and checks what must hold for any input.
pub fn normalize(dialect: Option<Dialect>, data: &[u8]) {
    let Some((&cut, rest)) = data.split_first() else {
        return;
    };
    let cut = usize::from(cut).min(rest.len());
    let (head, tail) = rest.split_at(cut);
    let mut normalizer = Normalizer::builder()
        .dialect(dialect)
        .evict_finished(cut.is_multiple_of(2))
        .output_cap(64)
        .build();
    let mut diagnostics = 0u64;
    let mut on_step = |step: Step<'_>| {
        match step {
            Step::Diagnostic(diagnostic) => {
                diagnostics += 1;
                // Every diagnostic about a line names one that exists.
                if let Some(line) = diagnostic.line {
                    assert!(line >= 1);
                }
            }
            Step::Applied { update, .. } => {
                // Every part serializes.
                serde_json::to_vec(&update.part()).expect("a part serializes");
            }
        }
    };
    normalizer.push(head, &mut on_step);
    normalizer.push(tail, &mut on_step);
    normalizer.finish(&mut on_step);
    let stats = normalizer.stats();
    assert_eq!(stats.diagnostics, diagnostics);
    assert_eq!(stats.errors + stats.notices, stats.diagnostics);
    // Every line is in exactly one class: applied, known non-tool, notice or error.
    assert_eq!(stats.accounted_lines(), stats.lines, "{stats:?}");
}
