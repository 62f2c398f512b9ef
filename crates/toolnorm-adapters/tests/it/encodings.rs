//! Input in the encodings Windows writes: UTF-8 with a byte order mark, and UTF-16 (what
//! Windows PowerShell 5.1 redirects a command's output to), little or big endian, with
//! or without a mark. Each reads as the UTF-8 recording does: the same parts, the same
//! diagnostics, however the bytes are cut.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use toolnorm_adapters::{Diagnostic, Normalizer, Step};

/// What `bytes` gives fed in pieces of `size` bytes: the parts as JSON, and the
/// diagnostics as shown.
fn read(bytes: &[u8], size: usize) -> (String, Vec<String>) {
    let mut normalizer = Normalizer::builder().build();
    let mut diagnostics = Vec::new();
    let mut on_step = |step: Step<'_>| {
        if let Step::Diagnostic(diagnostic) = step {
            diagnostics.push(Diagnostic::to_string(diagnostic));
        }
    };
    for piece in bytes.chunks(size) {
        normalizer.push(piece, &mut on_step);
    }
    normalizer.finish(&mut on_step);
    let parts = serde_json::to_string(&normalizer.fold().parts()).unwrap();
    (parts, diagnostics)
}

fn utf16(text: &str, big_endian: bool, mark: bool) -> Vec<u8> {
    let units = mark
        .then_some(0xFEFF_u16)
        .into_iter()
        .chain(text.encode_utf16());
    units
        .flat_map(|unit| match big_endian {
            true => unit.to_be_bytes(),
            false => unit.to_le_bytes(),
        })
        .collect()
}

#[test]
fn every_recording_reads_alike_in_utf16_and_with_a_byte_order_mark() {
    let dirs = [
        "claude-code",
        "claude-code-transcript",
        "codex-exec",
        "codex-app-server",
        "codex-rollout",
        "opencode-serve",
        "opencode-export",
        "gemini-cli",
        "gemini-cli-session",
        "qwen-code",
        "claude-code-acp",
    ];
    for dir in dirs {
        for (name, text) in common::recordings(dir).iter().take(4) {
            let expected = read(text.as_bytes(), 1 << 16);
            assert!(expected.0.len() > 2, "{dir}/{name}: no parts");
            let encoded = [
                [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
                utf16(text, false, true),
                utf16(text, true, true),
                utf16(text, false, false),
                utf16(text, true, false),
            ];
            for (which, bytes) in encoded.iter().enumerate() {
                for size in [1, 7, 1 << 16] {
                    assert_eq!(
                        read(bytes, size),
                        expected,
                        "{dir}/{name}: encoding {which}, pieces of {size}"
                    );
                }
            }
        }
    }
}
