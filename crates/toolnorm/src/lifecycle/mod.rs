//! The type-state lifecycle of one tool call, one concern per file: the states and the
//! traits that gate each transition (`state`), the streamed output of a running call
//! (`output`), what a call carries into a terminal state (`finish`), the call and its
//! transitions (`call`), and its projection to the canonical part (`project`). The
//! lifecycle itself is explained in `doc.md`, shown on the crate root and on `ToolCall`.

mod call;
mod finish;
mod metadata_view;
mod output;
mod project;
mod state;
#[cfg(test)]
mod tests;

pub use call::ToolCall;
pub use finish::{Completion, Failure};
pub use metadata_view::{MetaValue, MetadataView};
pub use output::{DEFAULT_OUTPUT_CAP, StreamedOutput};
pub use project::{PartField, PartView, Project};
pub use state::{
    CallState, Complete, Failed, NotYetRunning, Open, Running, Started, Streaming, Succeeded,
    Unsuccessful,
};
