//! The sessions of the index as `stats` needs them, read from the calls' columns rather
//! than their whole parts: a call's name, kind, title, state, error code, duration and
//! approval, and nothing of its input or output. Parsing no part's JSON is what makes
//! `stats --db` take milliseconds where reading the parts took seconds.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::value::{Error as ValueError, StrDeserializer};
use toolnorm::{JsonObject, NormalizedToolPart, Timing, ToolError, ToolKind, ToolState, meta};

use super::backend::DbError;
use super::db::Index;
use crate::sessions::Session;

impl Index {
    /// Every session, by path, each call with the fields `stats` reads.
    pub(crate) fn summaries(&mut self) -> Result<Vec<Session>, DbError> {
        let mut sessions = Vec::new();
        let mut at: HashMap<i64, usize> = HashMap::new();
        for (id, session) in self.heads("", &[])? {
            at.insert(id, sessions.len());
            sessions.push(session);
        }
        self.connection.each(
            "SELECT session, id, name, kind, title, state, error_code, elapsed_ms, approval \
             FROM calls ORDER BY session, seq",
            &[],
            |row| {
                let Some(session) = row
                    .int(0)?
                    .and_then(|session| at.get(&session))
                    .and_then(|&at| sessions.get_mut(at))
                else {
                    return Ok(());
                };
                // A row this build cannot read (a kind or state of a newer one) is left out.
                let (Ok(kind), Ok(state)) = (
                    parse::<ToolKind>(&row.string(3)?),
                    parse::<ToolState>(&row.string(5)?),
                ) else {
                    return Ok(());
                };
                let error = match row.text(6)? {
                    Some(code) => Some(ToolError {
                        message: String::new(),
                        code: code.parse().ok(),
                        details: None,
                    }),
                    None if state == ToolState::Error => Some(ToolError::new("")),
                    None => None,
                };
                let approval = row
                    .text(8)?
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
                session.parts.push(NormalizedToolPart {
                    id: row.string(1)?,
                    name: row.string(2)?,
                    kind,
                    title: row.string(4)?,
                    input: serde_json::Value::Null.into(),
                    output: None,
                    error,
                    state,
                    timing: row.int(7)?.map(|elapsed| Timing {
                        started_at: None,
                        completed_at: None,
                        elapsed_ms: u64::try_from(elapsed).ok(),
                    }),
                    metadata: approval.map(|approval| {
                        let mut metadata = JsonObject::new();
                        metadata.insert(meta::APPROVAL.to_owned(), approval);
                        metadata
                    }),
                });
                Ok(())
            },
        )?;
        Ok(sessions)
    }
}

/// A unit enum (a kind, a state) from its name.
fn parse<'a, T: Deserialize<'a>>(name: &'a str) -> Result<T, ValueError> {
    T::deserialize(StrDeserializer::<ValueError>::new(name))
}
