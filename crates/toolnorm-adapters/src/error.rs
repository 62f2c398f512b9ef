//! The crate's one error type.

/// What can go wrong setting up or running an adapter.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A title-rules file is not valid.
    #[error("{origin}: {message}")]
    Rules {
        /// Where the rules came from (a path, or `built-in rules`).
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A redaction pattern (or patterns file) is not valid.
    #[error("{origin}: {message}")]
    Redaction {
        /// Where the pattern came from (``pattern `KIND` ``, or a file's path).
        origin: String,
        /// What is wrong.
        message: String,
    },
}
