//! Names, once each, the dialect features that compile each shared reading module of
//! `src/read/` that not every dialect uses (`#[cfg(read_apart)]`, …): a module a dialect
//! uses is compiled with it, and so is every module that module uses.

use cfg_aliases::cfg_aliases;

fn main() {
    cfg_aliases! {
        // `read/apart.rs`: a record read as a value but for the values at one path.
        read_apart: { any(
            feature = "kimi", feature = "openhands", feature = "goose", feature = "vibe"
        ) },
        // `read/checked.rs`: values read in place as `Value` would read them.
        read_checked: { any(
            read_apart, feature = "codex", feature = "gemini-cli", feature = "droid",
            feature = "crush"
        ) },
        // `read/borrowed.rs`: strings borrowed from the line when they have no escape.
        read_borrowed: { any(read_checked, feature = "claude-code", feature = "acp") },
        // `read/visit.rs`: scalar visits shared by the in-place readers.
        read_visit: { any(
            read_checked, feature = "claude-code", feature = "cursor", feature = "pi"
        ) },
        // `read/kept_object.rs`: an object one level deep, each value kept.
        read_kept_object: { any(feature = "cursor", feature = "cline-sdk", feature = "vibe") },
        // `read/kept_string.rs`: a string field kept as its JSON text.
        read_kept_string: { any(feature = "codex", feature = "opencode", feature = "crush") },
        // `read::json::in_one_scan`: the switch of the readers that read a line in one
        // scan and fall back to reading its items apart.
        read_one_scan: { any(feature = "goose", feature = "kimi") },
        // `read/tolerant.rs`: a value read with its generated type, a missing field told.
        read_tolerant: { any(feature = "codex", feature = "gemini-cli", feature = "opencode") },
    }
}
