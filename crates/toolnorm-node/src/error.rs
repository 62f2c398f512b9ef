//! The crate's one error type.

/// What can go wrong setting up or running a normalizer from JavaScript; thrown as a
/// JavaScript `Error` with this message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `provider` names no dialect.
    #[error("provider `{name}`: expected `auto` or one of {known}")]
    UnknownProvider {
        /// The name given.
        name: String,
        /// The dialects this build reads, quoted and comma-separated.
        known: String,
    },
    /// `format` names no JSON format of the command.
    #[error("format `{name}`: expected one of {known}")]
    UnknownFormat {
        /// The name given.
        name: String,
        /// The JSON formats.
        known: String,
    },
    /// `otelContent` with another format than `otel`.
    #[error("otelContent applies to format `otel`, not `{0}`")]
    OtelContent(String),
    /// `format` or `otelContent` given to a `Normalizer` (it gives updates).
    #[error("format and otelContent apply to normalize; a Normalizer gives updates")]
    NotForNormalizer,
    /// `outputCap` is negative.
    #[error("outputCap {0}: expected a number of bytes, 0 or more")]
    OutputCap(i64),
    /// A `redactPattern` entry is not `KIND=REGEX`.
    #[error("redactPattern {0}: expected KIND=REGEX")]
    RedactPattern(String),
    /// The rules or a redaction pattern do not read (the library's message).
    #[error(transparent)]
    Library(#[from] toolnorm_adapters::Error),
    /// `push` or `finish` after `finish`.
    #[error("this Normalizer is finished: make a new one for another stream")]
    Finished,
    /// Writing the parts failed (serializing a part).
    #[error("writing the parts: {0}")]
    Write(#[from] std::io::Error),
    /// The thread reading a whole stream panicked.
    #[error("reading the stream failed: its thread stopped unexpectedly")]
    Reader,
    /// The parts written are not UTF-8 (never: the writer writes JSON text).
    #[error("the parts written are not UTF-8")]
    NotUtf8(#[from] std::string::FromUtf8Error),
}

impl From<Error> for napi::Error {
    fn from(error: Error) -> Self {
        let status = match error {
            Error::Write(_) | Error::NotUtf8(_) | Error::Reader => napi::Status::GenericFailure,
            _ => napi::Status::InvalidArg,
        };
        napi::Error::new(status, error.to_string())
    }
}
