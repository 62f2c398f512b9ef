//! Reading wire data: its text encoding (UTF-8, or UTF-16 read as UTF-8), lines (a long
//! one read as a stream, its over-long strings cut when asked; several events on one line
//! read apart), JSON lines with diagnostics that say what is wrong, and tool input that is
//! still streaming (partial JSON), lone UTF-16 surrogates read as U+FFFD, the top-level
//! keys of a line that the dialects' claims read, a logger's lines among the events, and
//! values read with their generated type when they lack a field it requires (the gap
//! filled and told, `tolerant`). The modules only some dialects use are compiled with
//! them: `build.rs` names which.

#[cfg(read_apart)]
pub(crate) mod apart;
#[cfg(read_borrowed)]
pub(crate) mod borrowed;
#[cfg(read_checked)]
pub(crate) mod checked;
pub mod cut;
pub(crate) mod encoding;
pub mod glued;
pub mod json;
#[cfg(read_kept_object)]
pub(crate) mod kept_object;
#[cfg(read_kept_string)]
pub(crate) mod kept_string;
pub mod line_keys;
pub mod lines;
pub mod log_line;
pub mod partial_json;
#[cfg(test)]
pub(crate) mod scan_check;
pub mod surrogates;
#[cfg(read_tolerant)]
pub(crate) mod tolerant;
/// A line's bytes checked as UTF-8.
pub(crate) mod utf8;
#[cfg(read_visit)]
pub(crate) mod visit;
