//! Questions: what a `question` call asks the user, the answers it offers, and the answer
//! given.
//!
//! Every agent that can ask the user (Claude Code's `AskUserQuestion`, OpenCode's
//! `question`, Codex's `request_user_input`, Gemini CLI's `ask_user`, Cline's
//! `ask_followup_question`, …) puts the same thing in its own shape. A `question` call's
//! part carries it as `metadata.questions`: a list of [`Question`]s, each with its
//! options and, once the user answered, the answer.
//!
//! ```
//! use toolnorm::Question;
//!
//! let asked: Vec<Question> = serde_json::from_str(
//!     r#"[{"question":"Which database?","header":"Storage","options":[{"label":"SQLite"},{"label":"PostgreSQL"}],"answer":["SQLite"]}]"#,
//! )?;
//! assert_eq!(asked[0].answer.as_deref(), Some(&["SQLite".to_owned()][..]));
//! assert!(!asked[0].multi_select);
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::{Deserialize, Serialize};

/// One answer a question offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestionOption {
    /// What the option says (and what an answer choosing it holds).
    pub label: String,
    /// What choosing it means, when the agent says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
}

/// A question a call asks the user: one entry of `metadata.questions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The provider's id of the question, when it gives one (Codex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub id: Option<String>,
    /// The question.
    pub question: String,
    /// A short label for it (a tab or chip), when the agent gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub header: Option<String>,
    /// The answers offered (none: a free answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<QuestionOption>>", optional))]
    pub options: Vec<QuestionOption>,
    /// Whether several options may be chosen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub multi_select: bool,
    /// The answer: the labels of the options chosen, or the user's own text. Absent
    /// until the user answered (or when the stream does not say what they answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub answer: Option<Vec<String>>,
}

impl Question {
    /// Whether the user answered it.
    pub fn is_answered(&self) -> bool {
        self.answer.is_some()
    }
}
