//! Agent Client Protocol (ACP) v1: parts to `session/update` tool frames, and any ACP
//! agent's stream back to parts.
//!
//! - [`AcpEmitter`] writes one `tool_call` per call id, then `tool_call_update`s with only
//!   what changed; toolnorm's own fields travel under `_meta.toolnorm` ([`META_KEY`]).
//! - [`AcpAdapter`] reads what an ACP client sees (`--provider acp`) and restores
//!   `_meta.toolnorm` losslessly when present.
//! - [`kinds`] holds the documented kind and status mappings.

mod emit;
mod ingest;
pub mod kinds;

pub use emit::{AcpEmitter, AcpOptions, META_KEY};
pub use ingest::AcpAdapter;
