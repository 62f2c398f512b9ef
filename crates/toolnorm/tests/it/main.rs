//! The integration tests, one binary: each module is one former test file.

mod approvals;
mod fold;
mod fold_arbitrary;
mod part_view;
mod payload;
mod properties;
