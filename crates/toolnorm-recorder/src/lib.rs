//! Records the raw tool-call event streams of the real Claude Code, Codex and
//! OpenCode CLIs against a scripted mock model on loopback, and writes them as
//! normalized fixtures with provenance.
//!
//! The book's [Recorded fixtures](https://github.com/toolnorm/toolnorm/blob/main/docs/src/contributor/recording.md) tells how recording works
//! and how to record again.
#![deny(missing_docs)]

pub mod drivers;
pub mod error;
pub mod mcp;
pub mod mock;
pub mod provenance;
pub mod providers;
pub mod run;
pub mod scenario;
pub mod scrub;

pub use error::{Error, Result};
