//! The scripted mock model: Anthropic Messages, OpenAI Responses, OpenAI
//! Chat Completions and the Gemini API over HTTP on loopback, streaming with SSE.
//!
//! The server is stateless: each request carries the scenario marker in a user
//! message and the number of assistant turns after it selects the step.
//!
//! One file per concern: the HTTP server (`server`), the scripted turns the
//! APIs share (`script`), SSE and chunking helpers (`stream`), and one file
//! per model API (`anthropic`, `responses`, `chat`, `gemini`); `amp` answers what Amp
//! asks of its own server.

mod amp;
mod anthropic;
mod chat;
mod gemini;
mod responses;
mod script;
mod server;
mod stream;

pub use server::MockServer;

/// Text the model answers with when it has no script for a request.
pub const PLAIN_TEXT: &str = "Mock summary.";

/// The placeholder in scenario inputs replaced by the mock model's base URL.
pub const BASE_URL_PLACEHOLDER: &str = "{{BASE_URL}}";

/// The placeholder in scenario inputs replaced by the CLI's working directory,
/// as the CLI states it in its request (`{{WORK}}/notes.txt`).
pub const WORK_PLACEHOLDER: &str = "{{WORK}}";
