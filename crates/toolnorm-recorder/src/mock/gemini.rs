//! The Gemini API (`/v1beta/models/{model}:streamGenerateContent?alt=sse`,
//! `:generateContent`, `:countTokens`): `functionCall` parts, the answers to the
//! hosted `googleSearch` and `urlContext` tools, and JSON answers shaped by the
//! request's response schema (Gemini CLI's next-speaker and routing checks).

use serde_json::{Map, Value, json};

use super::script::{Entry, Request};
use super::server::Reply;
use super::stream::{to_wire, words};
use crate::scenario::Dialect;

/// The entries of a `contents` list: user contents (their text parts, function
/// responses left out), and where each run of model contents starts.
fn entries(contents: &[Value]) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut prev_model = false;
    for content in contents {
        let model = content.get("role").and_then(Value::as_str) == Some("model");
        let text = content
            .get("parts")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        entries.push(Entry {
            user: !model,
            turn_start: model && !prev_model,
            text,
        });
        prev_model = model;
    }
    entries
}

/// Whether the request offers a hosted tool (`googleSearch`, `urlContext`) and no
/// function declarations.
fn hosted(req: &Request<'_>, tool: &str) -> bool {
    let tools = req.list("tools");
    tools.iter().any(|t| t.get(tool).is_some())
        && !tools
            .iter()
            .any(|t| t.get("functionDeclarations").is_some())
}

/// A value that satisfies a (JSON or OpenAPI) schema: each required property with its
/// first `enum` value or a plain value of its type.
fn value_of_schema(schema: &Value) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("object")
        .to_ascii_lowercase();
    match ty.as_str() {
        "string" => Value::String("mock".into()),
        "number" | "integer" => json!(1),
        "boolean" => Value::Bool(false),
        "array" => json!([]),
        _ => {
            let mut object = Map::new();
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array);
            if let (Some(properties), Some(required)) = (properties, required) {
                for key in required.iter().filter_map(Value::as_str) {
                    if let Some(property) = properties.get(key) {
                        object.insert(key.to_owned(), value_of_schema(property));
                    }
                }
            }
            Value::Object(object)
        }
    }
}

/// The response schema a request asks its answer to follow, if any.
fn response_schema<'a>(req: &Request<'a>) -> Option<&'a Value> {
    let config = req.body().get("generationConfig")?;
    config
        .get("responseJsonSchema")
        .or_else(|| config.get("responseSchema"))
}

/// Answers a `generateContent` or `streamGenerateContent` request for `model`.
pub(super) fn reply(req: &Request<'_>, model: &str, stream: bool) -> Reply {
    let mut parts: Vec<Value> = Vec::new();
    let mut grounding: Option<Value> = None;
    let mut delay = None;
    if let Some(schema) = response_schema(req) {
        parts.push(json!({"text": to_wire(&value_of_schema(schema))}));
    } else if hosted(req, "googleSearch") {
        parts.push(json!({"text": "The search found the toolnorm test page, which says the answer is 42."}));
        grounding = Some(json!({
            "groundingChunks": [
                {"web": {"title": "Toolnorm test page", "uri": "https://example.com/toolnorm"}},
                {"web": {"title": "Another result", "uri": "https://example.org/result"}}
            ],
            "groundingSupports": [{"groundingChunkIndices": [0], "segment": {"startIndex": 0, "endIndex": 68, "text": "The search found the toolnorm test page, which says the answer is 42."}}],
            "webSearchQueries": ["toolnorm test page"]
        }));
    } else if hosted(req, "urlContext") {
        parts.push(json!({"text": "The page says the answer is 42."}));
    } else {
        let step = req.step(Dialect::Gemini, &entries(req.list("contents")));
        delay = step.delay;
        match step.turn {
            Some(turn) => {
                if let Some(text) = &turn.text {
                    parts.push(json!({"text": text}));
                }
                for (i, call) in turn.calls.iter().enumerate() {
                    parts.push(json!({"functionCall": {
                        "id": format!("call_mock_{}_{}", step.prefix, i + 1),
                        "name": call.name,
                        "args": req.call_input(call),
                    }}));
                }
            }
            None => parts.push(json!({"text": step.text})),
        }
    }
    let usage =
        json!({"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120});
    let candidate = |parts: Vec<Value>, last: bool| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if last {
            candidate["finishReason"] = json!("STOP");
            if let Some(grounding) = &grounding {
                candidate["groundingMetadata"] = grounding.clone();
            }
        }
        candidate
    };
    let response = |parts: Vec<Value>, last: bool| {
        let mut response = json!({
            "candidates": [candidate(parts, last)],
            "modelVersion": model,
            "responseId": "resp_mock",
        });
        if last {
            response["usageMetadata"] = usage.clone();
        }
        response
    };
    if !stream {
        return Reply::json(response(parts, true)).after(delay);
    }
    // Text streams word by word; the function calls come whole, in the last chunk.
    let mut chunks: Vec<Vec<Value>> = Vec::new();
    let mut calls = Vec::new();
    for part in parts {
        match part.get("text").and_then(Value::as_str) {
            Some(text) => chunks.extend(words(text).into_iter().map(|w| vec![json!({"text": w})])),
            None => calls.push(part),
        }
    }
    chunks.push(calls);
    let last = chunks.len() - 1;
    let mut out = String::new();
    for (i, parts) in chunks.into_iter().enumerate() {
        out.push_str("data: ");
        out.push_str(&to_wire(&response(parts, i == last)));
        out.push_str("\r\n\r\n");
    }
    Reply::sse(out).after(delay)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_answers_take_the_first_enum_value_of_each_required_property() {
        let schema = json!({"type": "object", "properties": {
            "reasoning": {"type": "string"},
            "next_speaker": {"type": "string", "enum": ["user", "model"]},
            "extra": {"type": "number"}
        }, "required": ["reasoning", "next_speaker"]});
        assert_eq!(
            value_of_schema(&schema),
            json!({"reasoning": "mock", "next_speaker": "user"})
        );
    }

    #[test]
    fn model_contents_in_a_row_start_one_turn() {
        let contents = [
            json!({"role": "user", "parts": [{"text": "go [[scenario:x]]"}]}),
            json!({"role": "model", "parts": [{"functionCall": {"name": "a"}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {"name": "a"}}]}),
            json!({"role": "model", "parts": [{"text": "t"}]}),
            json!({"role": "model", "parts": [{"text": "u"}]}),
        ];
        let starts: Vec<bool> = entries(&contents).iter().map(|e| e.turn_start).collect();
        assert_eq!(starts, [false, true, false, true, false]);
        assert_eq!(entries(&contents)[0].text, "go [[scenario:x]]");
    }
}
