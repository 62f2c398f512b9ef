//! Questions: what a `question` call asks the user and what the user answered, read the
//! same way for every provider.
//!
//! A call whose kind is `question` (the rules of each provider say which tools ask the
//! user) gets `metadata.questions`, a list of [`Question`]s, from its input when it
//! starts or its input changes, and the answers from its output when it ends:
//!
//! | input | providers |
//! |---|---|
//! | `{questions: [{question, header?, options?: [{label, description?}], multiSelect? / multiple? / multi_select?, id?}]}` | Claude Code `AskUserQuestion`, OpenCode `question`, Codex `request_user_input`, Gemini CLI `ask_user`, Qwen Code, Kimi |
//! | `{question, options? / choices?}` (options as labels, or a JSON array in a string) | Cline `ask_followup_question`, Cline 3.x `ask_question`, Copilot `ask_user`, Factory `AskUser` |
//!
//! | answer | providers |
//! |---|---|
//! | `answers` of the output (or of its text, when that is a JSON object, or of the input, where a host filled it in): an object by question text, header or id (each a string, a list, or `{answers: [...]}`), or a list in question order | Claude Code's structured result, Codex, OpenCode's metadata |
//! | the output's text `User has answered your questions: "<question>"="<answer>", … .` | Claude Code, OpenCode, and the agents that copied the wording |
//!
//! An answer of several options in one text (`"A, B"`) is split for a question that
//! allows several. A question the output does not answer (`Unanswered`) keeps no answer.

use serde::Deserialize;
use serde_json::{Map, Value};
use toolnorm::{JsonObject, Payload, Question, QuestionOption, ToolKind, meta};

use super::Facts;
use super::output::content_text;

/// The prefix of the answers text Claude Code and OpenCode write.
const ANSWERED: &str = "User has answered your questions:";

impl Facts<'_> {
    /// A `question` call's questions, from `input` (else its current input) and, when it
    /// ends, the answers in `output`: `metadataMerged` of `metadata.questions` when they
    /// differ from the ones it has.
    pub(crate) fn note_questions(
        &mut self,
        line: u64,
        id: &str,
        input: Option<&Value>,
        output: Option<&Payload>,
    ) {
        let Some(call) = self
            .open(id)
            .filter(|call| call.kind() == ToolKind::Question)
        else {
            return;
        };
        let input = input.unwrap_or(call.input());
        let mut questions = questions_of(input);
        if questions.is_empty() {
            return;
        }
        answer(&mut questions, input, output.map(Payload::value));
        // An answer known before (an earlier event told it) stays when the output does
        // not repeat it.
        let known = call
            .metadata()
            .get(meta::QUESTIONS)
            .and_then(|known| Vec::<Question>::deserialize(known).ok())
            .unwrap_or_default();
        for (question, known) in questions.iter_mut().zip(known) {
            if question.answer.is_none() && question.question == known.question {
                question.answer = known.answer;
            }
        }
        let Ok(value) = serde_json::to_value(&questions) else {
            return;
        };
        if call.metadata().get(meta::QUESTIONS) == Some(&value) {
            return;
        }
        let mut metadata = JsonObject::new();
        metadata.insert(meta::QUESTIONS.into(), value);
        self.merge_metadata(line, id, metadata);
    }
}

/// The questions an input asks: its `questions` list, or the input itself when it is one
/// question.
pub(crate) fn questions_of(input: &Value) -> Vec<Question> {
    match input.get("questions").and_then(Value::as_array) {
        Some(list) => list.iter().filter_map(question_of).collect(),
        None => question_of(input).into_iter().collect(),
    }
}

/// One question: its text (`question`), header, options and whether it takes several.
fn question_of(value: &Value) -> Option<Question> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let question = text("question").filter(|question| !question.is_empty())?;
    let options = ["options", "choices"]
        .iter()
        .find_map(|key| value.get(*key))
        .map(options_of)
        .unwrap_or_default();
    let multi_select = ["multiSelect", "multiple", "multi_select", "allowMultiple"]
        .iter()
        .any(|key| value.get(*key).and_then(Value::as_bool) == Some(true));
    Some(Question {
        id: text("id"),
        question,
        header: text("header"),
        options,
        multi_select,
        answer: None,
    })
}

/// The options of a question: objects (`label`, else `value` or `text`, with an optional
/// `description`), plain labels, or such a list written as JSON in a string.
fn options_of(value: &Value) -> Vec<QuestionOption> {
    if let Some(text) = value.as_str() {
        return serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_array)
            .map(|list| options_of(&list))
            .unwrap_or_default();
    }
    let Some(list) = value.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|option| {
            if let Some(label) = option.as_str() {
                return Some(QuestionOption {
                    label: label.to_owned(),
                    description: None,
                });
            }
            let text = |key: &str| option.get(key).and_then(Value::as_str).map(str::to_owned);
            Some(QuestionOption {
                label: text("label")
                    .or_else(|| text("value"))
                    .or_else(|| text("text"))?,
                description: text("description").filter(|description| !description.is_empty()),
            })
        })
        .collect()
}

/// Fills in the answers: from the `answers` of the output, else of the input, else from
/// the output's text.
pub(crate) fn answer(questions: &mut [Question], input: &Value, output: Option<&Value>) {
    let text = output.and_then(content_text);
    let from_text = text.as_deref().and_then(json_object);
    let structured = [output, from_text.as_ref(), Some(input)]
        .into_iter()
        .flatten()
        .find_map(|value| value.get("answers"));
    if let Some(answers) = structured {
        structured_answers(questions, answers);
        return;
    }
    if let Some(text) = text {
        text_answers(questions, &text);
    }
}

/// A text that is a JSON object (Codex writes its answers so), parsed.
fn json_object(text: &str) -> Option<Value> {
    let text = text.trim();
    if !text.starts_with('{') {
        return None;
    }
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(Value::is_object)
}

/// Answers given as data: an object keyed by each question's text, header or id, or a
/// list in question order.
fn structured_answers(questions: &mut [Question], answers: &Value) {
    match answers {
        Value::Object(by_key) => {
            for question in questions.iter_mut() {
                let found = keyed(by_key, question);
                question.answer = found.and_then(|value| answer_of(value, question.multi_select));
            }
        }
        Value::Array(in_order) => {
            for (question, value) in questions.iter_mut().zip(in_order) {
                question.answer = answer_of(value, question.multi_select);
            }
        }
        _ => {}
    }
}

/// The answer to `question` in an object of answers.
fn keyed<'v>(by_key: &'v Map<String, Value>, question: &Question) -> Option<&'v Value> {
    [
        Some(&question.question),
        question.id.as_ref(),
        question.header.as_ref(),
    ]
    .into_iter()
    .flatten()
    .find_map(|key| by_key.get(key))
}

/// One answer: a text, a list of texts, or an object holding them (`answers`, `selected`
/// and `otherText`, `answer`); `None` when it holds nothing.
fn answer_of(value: &Value, multi_select: bool) -> Option<Vec<String>> {
    let texts: Vec<String> = match value {
        Value::String(text) => split(text, multi_select),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Value::Object(object) => {
            let mut texts = Vec::new();
            for key in ["answers", "selected", "answer", "otherText"] {
                if let Some(found) = object.get(key).and_then(|value| answer_of(value, true)) {
                    texts.extend(found);
                }
            }
            texts
        }
        _ => Vec::new(),
    };
    let texts: Vec<String> = texts.into_iter().filter(|text| !text.is_empty()).collect();
    (!texts.is_empty()).then_some(texts)
}

/// A text answer: several options joined by `, ` for a question that takes several.
fn split(text: &str, multi_select: bool) -> Vec<String> {
    if multi_select {
        text.split(", ").map(str::to_owned).collect()
    } else {
        vec![text.to_owned()]
    }
}

/// Answers in the text `User has answered your questions: "<question>"="<answer>", … .`.
fn text_answers(questions: &mut [Question], text: &str) {
    let Some(start) = text.find(ANSWERED) else {
        return;
    };
    let text = &text[start + ANSWERED.len()..];
    let keys: Vec<String> = questions
        .iter()
        .map(|question| format!("\"{}\"=", question.question))
        .collect();
    for (at, question) in questions.iter_mut().enumerate() {
        let Some(key) = keys.get(at) else {
            continue;
        };
        let Some(found) = text.find(key.as_str()) else {
            continue;
        };
        let rest = &text[found + key.len()..];
        let Some(rest) = rest.strip_prefix('"') else {
            // Unquoted: nothing chosen (`(no option selected)`).
            continue;
        };
        // The answer ends where the next question's pair or the closing sentence begins.
        let end = keys
            .iter()
            .filter_map(|other| rest.find(&format!("\", {other}")))
            .chain(rest.find("\". You can now"))
            .chain(rest.find("\".\n"))
            .min()
            .or_else(|| rest.rfind('"'))
            .unwrap_or(rest.len());
        let answer = &rest[..end];
        if answer != "Unanswered" {
            question.answer = answer_of(&Value::String(answer.to_owned()), question.multi_select);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asked(input: Value, output: Option<Value>) -> Vec<Question> {
        let mut questions = questions_of(&input);
        answer(&mut questions, &input, output.as_ref());
        questions
    }

    #[test]
    fn a_list_of_questions_is_read_with_its_options() {
        let input = json!({"questions": [
            {"question": "Which database?", "header": "Storage", "multiSelect": false,
             "options": [{"label": "SQLite", "description": "a file"}, {"label": "PostgreSQL", "description": ""}]},
            {"question": "Which features?", "multiple": true, "options": [{"label": "auth"}, {"label": "search"}]}
        ]});
        let questions = asked(input, None);
        assert_eq!(questions.len(), 2);
        assert_eq!(questions[0].header.as_deref(), Some("Storage"));
        assert_eq!(
            questions[0].options[0].description.as_deref(),
            Some("a file")
        );
        assert_eq!(questions[0].options[1].description, None);
        assert!(!questions[0].multi_select && questions[1].multi_select);
        assert!(questions.iter().all(|question| question.answer.is_none()));
    }

    #[test]
    fn one_question_with_plain_choices_is_a_list_of_one() {
        let cline = asked(
            json!({"question": "Go on?", "options": "[\"Yes\", \"No\"]"}),
            None,
        );
        assert_eq!(cline[0].options.len(), 2);
        assert_eq!(cline[0].options[1].label, "No");
        let copilot = asked(
            json!({"question": "Name?", "choices": ["a", "b"], "allow_freeform": true}),
            None,
        );
        assert_eq!(copilot[0].options[0].label, "a");
        assert!(asked(json!({"command": "ls"}), None).is_empty());
        assert!(asked(json!({"question": ""}), None).is_empty());
    }

    #[test]
    fn the_answers_text_answers_each_question() {
        let input = json!({"questions": [
            {"question": "Which database?", "options": [{"label": "SQLite"}]},
            {"question": "Which features?", "multiSelect": true, "options": [{"label": "auth"}, {"label": "search"}]},
            {"question": "Anything else?"}
        ]});
        let output = json!(
            "User has answered your questions: \"Which database?\"=\"SQLite, the \"small\" one\", \"Which features?\"=\"auth, search\", \"Anything else?\"=\"Unanswered\". You can now continue with the user's answers in mind."
        );
        let questions = asked(input, Some(output));
        assert_eq!(
            questions[0].answer,
            Some(vec!["SQLite, the \"small\" one".to_owned()])
        );
        assert_eq!(
            questions[1].answer,
            Some(vec!["auth".to_owned(), "search".to_owned()])
        );
        assert_eq!(questions[2].answer, None);
    }

    #[test]
    fn structured_answers_come_by_text_id_or_order() {
        let input = json!({"questions": [{"question": "Which database?"}, {"id": "q2", "question": "Port?"}]});
        let claude = asked(
            input.clone(),
            Some(json!({"questions": [], "answers": {"Which database?": "SQLite"}})),
        );
        assert_eq!(claude[0].answer, Some(vec!["SQLite".to_owned()]));
        assert_eq!(claude[1].answer, None);
        let codex = asked(
            input.clone(),
            Some(json!("{\"answers\":{\"q2\":{\"answers\":[\"8080\"]}}}")),
        );
        assert_eq!(codex[1].answer, Some(vec!["8080".to_owned()]));
        let opencode = asked(input.clone(), Some(json!({"answers": [["SQLite"], []]})));
        assert_eq!(opencode[0].answer, Some(vec!["SQLite".to_owned()]));
        assert_eq!(opencode[1].answer, None);
        let mut host = input;
        host["answers"] = json!({"Port?": "9000"});
        assert_eq!(
            asked(host, Some(json!("done")))[1].answer,
            Some(vec!["9000".to_owned()])
        );
    }

    #[test]
    fn an_output_without_answers_leaves_them_open() {
        let input = json!({"questions": [{"question": "Which database?"}]});
        assert_eq!(
            asked(
                input.clone(),
                Some(json!("The user dismissed the question"))
            )[0]
            .answer,
            None
        );
        assert_eq!(
            asked(input, Some(json!([{"type": "text", "text": "User has answered your questions: \"Which database?\"=\"SQLite\"."}])))[0].answer,
            Some(vec!["SQLite".to_owned()])
        );
    }
}
