//! The machine-readable codes of a failed call's `error.code`.

use std::borrow::Borrow;
use std::convert::Infallible;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The code of a [`ToolError`](crate::ToolError): one of the codes toolnorm writes for
/// every provider alike, or the provider's own.
///
/// On the wire it is exactly its string, e.g. `"exit_code"`. Reading is lossless: a known
/// string always becomes its variant, anything else [`ErrorCode::Other`], and
/// [`as_str`](Self::as_str) (or `Display`) gives the string back. Two codes are equal when
/// their strings are, so even an `Other("exit_code")` built by hand equals
/// [`ErrorCode::ExitCode`].
///
/// ```
/// use toolnorm::ErrorCode;
///
/// let code: ErrorCode = serde_json::from_str(r#""permission_denied""#)?;
/// assert_eq!(code, ErrorCode::PermissionDenied);
/// assert_eq!(ErrorCode::from("task_failed"), ErrorCode::Other("task_failed".into()));
/// assert_eq!(serde_json::to_string(&ErrorCode::McpError)?, r#""mcp_error""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `exit_code`: a command exited with a non-zero status (in `details.exitCode`).
    ExitCode,
    /// `permission_denied`: a permission check (or the user, asked for permission) refused
    /// the call.
    PermissionDenied,
    /// `user_rejected`: the user declined to go ahead with the call.
    UserRejected,
    /// `mcp_error`: an MCP tool reported an error.
    McpError,
    /// `invalid_tool_use`: the agent refused to run the call (an unknown tool, invalid
    /// input).
    InvalidToolUse,
    /// `interrupted`: the call was stopped before it finished (the turn was cancelled, the
    /// run aborted).
    Interrupted,
    /// Any other code, as the provider gave it (`task_failed`, a Codex status, an
    /// `error_code` of a server tool, …).
    Other(String),
}

impl ErrorCode {
    /// The wire string, e.g. `"exit_code"`.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::ExitCode => "exit_code",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::UserRejected => "user_rejected",
            ErrorCode::McpError => "mcp_error",
            ErrorCode::InvalidToolUse => "invalid_tool_use",
            ErrorCode::Interrupted => "interrupted",
            ErrorCode::Other(code) => code,
        }
    }

    /// The known code this string names, if any.
    fn known(code: &str) -> Option<ErrorCode> {
        Some(match code {
            "exit_code" => ErrorCode::ExitCode,
            "permission_denied" => ErrorCode::PermissionDenied,
            "user_rejected" => ErrorCode::UserRejected,
            "mcp_error" => ErrorCode::McpError,
            "invalid_tool_use" => ErrorCode::InvalidToolUse,
            "interrupted" => ErrorCode::Interrupted,
            _ => return None,
        })
    }
}

impl From<&str> for ErrorCode {
    fn from(code: &str) -> Self {
        ErrorCode::known(code).unwrap_or_else(|| ErrorCode::Other(code.to_owned()))
    }
}

impl From<String> for ErrorCode {
    fn from(code: String) -> Self {
        ErrorCode::known(&code).unwrap_or(ErrorCode::Other(code))
    }
}

impl FromStr for ErrorCode {
    type Err = Infallible;

    fn from_str(code: &str) -> Result<Self, Infallible> {
        Ok(ErrorCode::from(code))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Lets a set or map of codes be looked up by string.
impl Borrow<str> for ErrorCode {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ErrorCode {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ErrorCode {}

impl Hash for ErrorCode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A string: one of the known codes or the provider's own.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Machine-readable code of a failed call: one of the codes toolnorm writes for every provider alike (the examples), or the provider's own.",
            "type": "string",
            "examples": ["exit_code", "permission_denied", "user_rejected", "mcp_error", "invalid_tool_use"]
        })
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ErrorCode;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an error code string")
            }
            fn visit_str<E: serde::de::Error>(self, code: &str) -> Result<ErrorCode, E> {
                Ok(ErrorCode::from(code))
            }
            fn visit_string<E: serde::de::Error>(self, code: String) -> Result<ErrorCode, E> {
                Ok(ErrorCode::from(code))
            }
        }
        deserializer.deserialize_string(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [(ErrorCode, &str); 6] = [
        (ErrorCode::ExitCode, "exit_code"),
        (ErrorCode::PermissionDenied, "permission_denied"),
        (ErrorCode::UserRejected, "user_rejected"),
        (ErrorCode::McpError, "mcp_error"),
        (ErrorCode::InvalidToolUse, "invalid_tool_use"),
        (ErrorCode::Interrupted, "interrupted"),
    ];

    #[test]
    fn every_known_code_reads_back_as_its_variant() {
        for (code, name) in KNOWN {
            assert_eq!(code.as_str(), name);
            assert_eq!(code.to_string(), name);
            assert!(!matches!(ErrorCode::from(name), ErrorCode::Other(_)));
            assert_eq!(ErrorCode::from(name.to_owned()), code);
            let text = serde_json::to_string(&code).unwrap();
            assert_eq!(text, format!("\"{name}\""));
            let read: ErrorCode = serde_json::from_str(&text).unwrap();
            assert_eq!(read.as_str(), name);
            assert!(!matches!(read, ErrorCode::Other(_)));
        }
    }

    #[test]
    fn other_codes_are_kept_as_given() {
        for name in ["task_failed", "failed", "3", "", "Exit_Code"] {
            let code: ErrorCode = serde_json::from_value(name.into()).unwrap();
            assert_eq!(code, ErrorCode::Other(name.to_owned()));
            assert_eq!(code.as_str(), name);
            assert_eq!(serde_json::to_value(&code).unwrap(), name);
        }
    }

    #[test]
    fn codes_compare_by_their_strings() {
        assert_eq!(ErrorCode::Other("exit_code".into()), ErrorCode::ExitCode);
        assert_eq!(ErrorCode::McpError, "mcp_error");
        assert_ne!(ErrorCode::McpError, ErrorCode::ExitCode);
        let codes: std::collections::HashSet<ErrorCode> =
            [ErrorCode::ExitCode, ErrorCode::Other("exit_code".into())].into();
        assert_eq!(codes.len(), 1);
        assert!(codes.contains("exit_code"));
        assert!(serde_json::from_str::<ErrorCode>("3").is_err());
    }
}
