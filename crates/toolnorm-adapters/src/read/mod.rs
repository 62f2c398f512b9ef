//! Reading wire data: its text encoding (UTF-8, or UTF-16 read as UTF-8), lines (a long
//! one read as a stream, its over-long strings cut when asked; several events on one line
//! read apart), JSON lines with diagnostics that say what is wrong, and tool input that is
//! still streaming (partial JSON), lone UTF-16 surrogates read as U+FFFD, the top-level
//! keys of a line that the dialects' claims read, a logger's lines among the events, and
//! values read with their generated type when they lack a field it requires (the gap
//! filled and told, `tolerant`).

#[cfg(any(
    feature = "kimi",
    feature = "openhands",
    feature = "goose",
    feature = "vibe"
))]
pub(crate) mod apart;
#[cfg(any(
    feature = "claude-code",
    feature = "codex",
    feature = "gemini-cli",
    feature = "acp",
    feature = "droid",
    feature = "kimi",
    feature = "openhands",
    feature = "goose",
    feature = "vibe"
))]
pub(crate) mod borrowed;
#[cfg(any(
    feature = "codex",
    feature = "gemini-cli",
    feature = "droid",
    feature = "kimi",
    feature = "openhands",
    feature = "goose",
    feature = "vibe"
))]
pub(crate) mod checked;
pub mod cut;
pub(crate) mod encoding;
pub mod glued;
pub mod json;
#[cfg(any(feature = "cursor", feature = "cline-sdk", feature = "vibe"))]
pub(crate) mod kept_object;
#[cfg(any(feature = "codex", feature = "opencode", feature = "crush"))]
pub(crate) mod kept_string;
pub mod line_keys;
pub mod lines;
pub mod log_line;
pub mod partial_json;
#[cfg(test)]
pub(crate) mod scan_check;
pub mod surrogates;
#[cfg(any(feature = "codex", feature = "gemini-cli", feature = "opencode"))]
pub(crate) mod tolerant;
#[cfg(any(
    feature = "claude-code",
    feature = "codex",
    feature = "gemini-cli",
    feature = "cursor",
    feature = "pi",
    feature = "droid",
    feature = "kimi",
    feature = "openhands",
    feature = "goose",
    feature = "vibe"
))]
pub(crate) mod visit;
