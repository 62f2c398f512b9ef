//! The integration tests, one binary: each module is one former test file.

mod acp;
mod audit;
mod cli;
mod live;
mod redact;
mod ui_streams;
