//! The integration tests, one binary: each module is one former test file.

mod cli;
mod dialect_table;
mod generated_up_to_date;
mod wire_samples;
