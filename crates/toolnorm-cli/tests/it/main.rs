//! The integration tests, one binary: each module is one former test file.

mod acp;
mod audit;
mod cli;
mod live;
mod many;
mod pretty;
mod redact;
mod serve;
mod session;
mod stats;
mod ui_streams;
mod view;
