//! The integration tests, one binary: each module is one former test file.

mod acp;
mod audit;
mod catalog;
mod catalog_opencode_db;
mod catalog_serve;
mod cli;
mod common;
mod crush_db;
mod databases;
mod export;
mod goose_db;
mod live;
mod many;
mod opencode_db;
mod output_cap;
mod pretty;
mod redact;
mod serve;
mod session;
mod stats;
mod ui_streams;
mod unclaimed;
mod view;
