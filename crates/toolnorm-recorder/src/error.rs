//! The recorder's error type.

use std::path::PathBuf;

/// Everything that can go wrong while serving, recording or checking fixtures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or process could not be read, written or started.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A scenario file is not valid TOML of the expected shape.
    #[error("scenario {path}: {source}")]
    Scenario {
        /// The scenario file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: toml::de::Error,
    },
    /// The provenance file is not valid TOML of the expected shape.
    #[error("provenance {path}: {message}")]
    Provenance {
        /// The provenance file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A JSON document could not be parsed or written.
    #[error("{context}: {source}")]
    Json {
        /// What was being parsed.
        context: String,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// The mock model server could not start.
    #[error("mock server: {0}")]
    Server(String),
    /// An HTTP request to a CLI's local server failed.
    #[error("http {url}: {message}")]
    Http {
        /// The requested URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// A recording did not produce what was expected.
    #[error("recording {provider}/{scenario}: {message}")]
    Recording {
        /// The provider driver.
        provider: String,
        /// The scenario name.
        scenario: String,
        /// What went wrong.
        message: String,
    },
    /// Something the user asked for does not exist.
    #[error("{0}")]
    NotFound(String),
}

impl Error {
    /// Wraps an I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// Wraps a JSON error with context.
    pub fn json(context: impl Into<String>, source: serde_json::Error) -> Self {
        Error::Json {
            context: context.into(),
            source,
        }
    }
}

/// Result alias for the recorder.
pub type Result<T> = std::result::Result<T, Error>;
