//! `elicitation/create` (ACP, unstable): the agent asks the user for input through a
//! form, tied to a tool call (an MCP server's elicitation during the call). The form is
//! the call's questions (`metadata.questions`), the client's response their answers.
//!
//! Each property of the form's `requestedSchema` is a question (`id` = its key): the
//! request's `message` for a form of one property, else the property's `title` or
//! `description`; its options the property's `enum`, `oneOf` (`const`, `title`), or for
//! an array (several may be chosen) those of its `items`. The response `{action:
//! "accept", content}` answers each by its key; `decline` and `cancel` answer nothing.
//! An elicitation tied to no call (a session's, a URL to open) carries no call: known, and
//! skipped.

use serde_json::{Map, Value, json};
use toolnorm::{JsonObject, Question, QuestionOption, meta};

use super::AcpAdapter;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::track::{Facts, answer};

impl AcpAdapter {
    /// `elicitation/create` from the agent: a form tied to a call is its questions.
    pub(super) fn elicitation_request(
        &mut self,
        line: u64,
        message: &Map<String, Value>,
        out: &mut Facts<'_>,
    ) {
        let params = message.get("params").unwrap_or(&Value::Null);
        let Some(call) = params.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        let Some(schema) = params.get("requestedSchema") else {
            // A URL to open: no questions to show.
            return;
        };
        if !out.is_open(call) {
            return out.diagnostic(Diagnostic::notice(
                line,
                DiagnosticKind::UnknownEvent,
                format!("an elicitation for call `{call}`, which is not open"),
            ));
        }
        let prompt = params.get("message").and_then(Value::as_str);
        let questions = form_questions(prompt, schema);
        if questions.is_empty() {
            return;
        }
        set_questions(line, call, &questions, out);
        if let Some(id) = message.get("id") {
            self.elicitations
                .insert(id.to_string(), (call.to_owned(), questions));
        }
    }

    /// The client's answer to an elicitation: whether it answered one.
    pub(super) fn elicitation_response(
        &mut self,
        line: u64,
        message: &Map<String, Value>,
        out: &mut Facts<'_>,
    ) -> bool {
        let Some(request_id) = message.get("id") else {
            return false;
        };
        let Some((call, mut questions)) = self.elicitations.remove(&request_id.to_string()) else {
            return false;
        };
        let result = message.get("result");
        let accepted = result
            .and_then(|result| result.get("action"))
            .and_then(Value::as_str)
            == Some("accept");
        let content = result.and_then(|result| result.get("content"));
        if let (true, Some(content)) = (accepted, content) {
            answer(
                &mut questions,
                &Value::Null,
                Some(&json!({ "answers": content })),
            );
            if out.is_open(&call) {
                set_questions(line, &call, &questions, out);
            }
        }
        true
    }
}

/// `metadata.questions` of call `call`: the questions it had before (its own tool's), then
/// these.
fn set_questions(line: u64, call: &str, questions: &[Question], out: &mut Facts<'_>) {
    let mut all: Vec<Value> = out
        .call(call)
        .and_then(|call| call.metadata().get(meta::QUESTIONS))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for question in questions {
        let Ok(value) = serde_json::to_value(question) else {
            continue;
        };
        // The same question again (its answer now) replaces the one asked.
        let same = |held: &Value| held.get("id") == value.get("id") && question.id.is_some();
        match all.iter_mut().find(|held| same(held)) {
            Some(held) => *held = value,
            None => all.push(value),
        }
    }
    let mut metadata = JsonObject::new();
    metadata.insert(meta::QUESTIONS.into(), Value::Array(all));
    out.merge_metadata(line, call, metadata);
}

/// The questions of a form: one per property of its schema.
fn form_questions(prompt: Option<&str>, schema: &Value) -> Vec<Question> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let single = properties.len() == 1;
    properties
        .iter()
        .map(|(key, property)| {
            let text = |name: &str| property.get(name).and_then(Value::as_str);
            let title = text("title");
            let question = match (single, prompt) {
                (true, Some(prompt)) => prompt,
                _ => title.or_else(|| text("description")).unwrap_or(key),
            };
            let multi_select = text("type") == Some("array");
            let choices = match multi_select {
                true => property.get("items").unwrap_or(&Value::Null),
                false => property,
            };
            Question {
                id: Some(key.clone()),
                question: question.to_owned(),
                header: title.filter(|title| *title != question).map(str::to_owned),
                options: choices_of(choices),
                multi_select,
                answer: None,
            }
        })
        .collect()
}

/// The options of a property: its `enum` (labels), or `oneOf` / `anyOf` (`const` with a
/// `title`).
fn choices_of(property: &Value) -> Vec<QuestionOption> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(|label| QuestionOption {
                label: label.to_owned(),
                description: None,
            })
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| property.get(*key).and_then(Value::as_array))
        .into_iter()
        .flatten()
        .filter_map(|choice| {
            let value = choice.get("const")?.as_str()?;
            let title = choice.get("title").and_then(Value::as_str);
            Some(QuestionOption {
                label: value.to_owned(),
                description: title.filter(|title| *title != value).map(str::to_owned),
            })
        })
        .collect()
}
