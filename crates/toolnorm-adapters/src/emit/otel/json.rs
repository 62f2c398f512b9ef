//! A request written as OTLP/JSON without serde's serializer: byte for byte what
//! `opentelemetry-proto`'s serde derive writes through serde_json (the tests compare the
//! two), each key written as one piece of text. The derive writes an attribute's value by
//! building a `serde_json::Value` of it first, and escapes every key as it writes it;
//! writing a span cost several times the reading of the call it tells.
//!
//! The shapes toolnorm's spans use (string, boolean and integer attributes, a status)
//! are written here; any other attribute value, an entity reference, an event or a link
//! is handed to serde as it is, so what it writes is the derive's in every case.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use serde::Serialize;
use std::io;

use crate::emit::json::Bytes;
use crate::emit::json_text::string;
use crate::emit::writer::StepOut;

/// Writes `request` and a newline to `out`, made in `line` first (a piece of a line is an
/// append to a vector, the line one write).
pub(super) fn line(
    line: &mut Vec<u8>,
    out: &mut StepOut<'_>,
    request: &ExportTraceServiceRequest,
) -> io::Result<()> {
    line.clear();
    self::request(line, request)?;
    line.push(b'\n');
    io::Write::write_all(out, line)
}

/// Writes `request` as compact JSON (no newline).
pub(super) fn request<B: Bytes>(
    out: &mut B,
    request: &ExportTraceServiceRequest,
) -> io::Result<()> {
    out.extend_from_slice(b"{\"resourceSpans\":");
    list(out, &request.resource_spans, resource_spans)?;
    out.push(b'}');
    Ok(())
}

fn resource_spans<B: Bytes>(out: &mut B, spans: &ResourceSpans) -> io::Result<()> {
    out.extend_from_slice(b"{\"resource\":");
    optional(out, spans.resource.as_ref(), resource)?;
    out.extend_from_slice(b",\"scopeSpans\":");
    list(out, &spans.scope_spans, scope_spans)?;
    out.extend_from_slice(b",\"schemaUrl\":");
    string(out, &spans.schema_url);
    out.push(b'}');
    Ok(())
}

fn resource<B: Bytes>(out: &mut B, resource: &Resource) -> io::Result<()> {
    out.extend_from_slice(b"{\"attributes\":");
    list(out, &resource.attributes, key_value)?;
    out.extend_from_slice(b",\"droppedAttributesCount\":");
    integer(out, resource.dropped_attributes_count);
    out.extend_from_slice(b",\"entityRefs\":");
    list(out, &resource.entity_refs, by_serde)?;
    out.push(b'}');
    Ok(())
}

fn scope_spans<B: Bytes>(out: &mut B, spans: &ScopeSpans) -> io::Result<()> {
    out.extend_from_slice(b"{\"scope\":");
    optional(out, spans.scope.as_ref(), scope)?;
    out.extend_from_slice(b",\"spans\":");
    list(out, &spans.spans, span)?;
    out.extend_from_slice(b",\"schemaUrl\":");
    string(out, &spans.schema_url);
    out.push(b'}');
    Ok(())
}

fn scope<B: Bytes>(out: &mut B, scope: &InstrumentationScope) -> io::Result<()> {
    out.extend_from_slice(b"{\"name\":");
    string(out, &scope.name);
    out.extend_from_slice(b",\"version\":");
    string(out, &scope.version);
    out.extend_from_slice(b",\"attributes\":");
    list(out, &scope.attributes, key_value)?;
    out.extend_from_slice(b",\"droppedAttributesCount\":");
    integer(out, scope.dropped_attributes_count);
    out.push(b'}');
    Ok(())
}

fn span<B: Bytes>(out: &mut B, span: &Span) -> io::Result<()> {
    out.extend_from_slice(b"{\"traceId\":");
    hex(out, &span.trace_id);
    out.extend_from_slice(b",\"spanId\":");
    hex(out, &span.span_id);
    out.extend_from_slice(b",\"traceState\":");
    string(out, &span.trace_state);
    out.extend_from_slice(b",\"parentSpanId\":");
    hex(out, &span.parent_span_id);
    out.extend_from_slice(b",\"flags\":");
    integer(out, span.flags);
    out.extend_from_slice(b",\"name\":");
    string(out, &span.name);
    out.extend_from_slice(b",\"kind\":");
    integer(out, span.kind);
    out.extend_from_slice(b",\"startTimeUnixNano\":");
    quoted_integer(out, span.start_time_unix_nano);
    out.extend_from_slice(b",\"endTimeUnixNano\":");
    quoted_integer(out, span.end_time_unix_nano);
    out.extend_from_slice(b",\"attributes\":");
    list(out, &span.attributes, key_value)?;
    out.extend_from_slice(b",\"droppedAttributesCount\":");
    integer(out, span.dropped_attributes_count);
    out.extend_from_slice(b",\"events\":");
    list(out, &span.events, by_serde)?;
    out.extend_from_slice(b",\"droppedEventsCount\":");
    integer(out, span.dropped_events_count);
    out.extend_from_slice(b",\"links\":");
    list(out, &span.links, by_serde)?;
    out.extend_from_slice(b",\"droppedLinksCount\":");
    integer(out, span.dropped_links_count);
    out.extend_from_slice(b",\"status\":");
    optional(out, span.status.as_ref(), status)?;
    out.push(b'}');
    Ok(())
}

fn status<B: Bytes>(out: &mut B, status: &Status) -> io::Result<()> {
    out.extend_from_slice(b"{\"message\":");
    string(out, &status.message);
    out.extend_from_slice(b",\"code\":");
    integer(out, status.code);
    out.push(b'}');
    Ok(())
}

fn key_value<B: Bytes>(out: &mut B, pair: &KeyValue) -> io::Result<()> {
    out.extend_from_slice(b"{\"key\":");
    string(out, &pair.key);
    out.extend_from_slice(b",\"value\":");
    optional(out, pair.value.as_ref(), any_value)?;
    if pair.key_strindex != 0 {
        out.extend_from_slice(b",\"keyStrindex\":");
        integer(out, pair.key_strindex);
    }
    out.push(b'}');
    Ok(())
}

/// A value: a string, a boolean or an integer (written as a string, as the derive
/// writes it) here, any other kind by serde.
fn any_value<B: Bytes>(out: &mut B, value: &AnyValue) -> io::Result<()> {
    match &value.value {
        Some(any_value::Value::StringValue(text)) => {
            out.extend_from_slice(b"{\"stringValue\":");
            string(out, text);
        }
        Some(any_value::Value::BoolValue(true)) => out.extend_from_slice(b"{\"boolValue\":true"),
        Some(any_value::Value::BoolValue(false)) => out.extend_from_slice(b"{\"boolValue\":false"),
        Some(any_value::Value::IntValue(number)) => {
            out.extend_from_slice(b"{\"intValue\":");
            quoted_integer(out, *number);
        }
        _ => return by_serde(out, value),
    }
    out.push(b'}');
    Ok(())
}

/// Writes `items`, each with `write`, as a JSON array.
fn list<B: Bytes, T>(
    out: &mut B,
    items: &[T],
    write: fn(&mut B, &T) -> io::Result<()>,
) -> io::Result<()> {
    out.push(b'[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write(out, item)?;
    }
    out.push(b']');
    Ok(())
}

/// Writes `item` with `write`, or `null`.
fn optional<B: Bytes, T>(
    out: &mut B,
    item: Option<&T>,
    write: fn(&mut B, &T) -> io::Result<()>,
) -> io::Result<()> {
    match item {
        Some(item) => write(out, item),
        None => {
            out.extend_from_slice(b"null");
            Ok(())
        }
    }
}

/// Writes `item` as serde_json writes it.
fn by_serde<B: Bytes, T: Serialize>(out: &mut B, item: &T) -> io::Result<()> {
    Ok(serde_json::to_writer(&mut *out, item)?)
}

fn integer<B: Bytes>(out: &mut B, number: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
}

/// An integer as a JSON string, as the derive writes a `u64` time and an `intValue`.
fn quoted_integer<B: Bytes>(out: &mut B, number: impl itoa::Integer) {
    out.push(b'"');
    integer(out, number);
    out.push(b'"');
}

/// Bytes as a string of lowercase hex digits.
fn hex<B: Bytes>(out: &mut B, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.chunks(16) {
        let mut text = [0; 32];
        for (pair, &byte) in text.chunks_exact_mut(2).zip(chunk) {
            pair.copy_from_slice(&[hex_digit(byte >> 4), hex_digit(byte & 0x0f)]);
        }
        out.extend_from_slice(text.get(..chunk.len() * 2).unwrap_or_default());
    }
    out.push(b'"');
}

/// The lowercase hex digit of `nibble` (below 16).
fn hex_digit(nibble: u8) -> u8 {
    match nibble {
        0..=9 => b'0' + nibble,
        _ => b'a' + nibble - 10,
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry_proto::tonic::common::v1::{ArrayValue, EntityRef, KeyValueList};
    use opentelemetry_proto::tonic::trace::v1::span::{Event, Link};
    use proptest::prelude::*;

    use super::*;

    /// Text with escapes, controls and characters beyond ASCII.
    fn text() -> impl Strategy<Value = String> {
        "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}é€😀]){0,12}"
    }

    fn ids() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(any::<u8>(), 0..17)
    }

    fn value() -> impl Strategy<Value = AnyValue> {
        use any_value::Value;
        let leaf = prop_oneof![
            Just(None),
            text().prop_map(|text| Some(Value::StringValue(text))),
            any::<bool>().prop_map(|flag| Some(Value::BoolValue(flag))),
            any::<i64>().prop_map(|number| Some(Value::IntValue(number))),
            any::<f64>().prop_map(|number| Some(Value::DoubleValue(number))),
            ids().prop_map(|bytes| Some(Value::BytesValue(bytes))),
            any::<i32>().prop_map(|index| Some(Value::StringValueStrindex(index))),
        ]
        .prop_map(|value| AnyValue { value });
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(|values| AnyValue {
                    value: Some(any_value::Value::ArrayValue(ArrayValue { values })),
                }),
                proptest::collection::vec((text(), inner), 0..3).prop_map(|pairs| AnyValue {
                    value: Some(any_value::Value::KvlistValue(KeyValueList {
                        values: pairs
                            .into_iter()
                            .map(|(key, value)| KeyValue {
                                key,
                                value: Some(value),
                                key_strindex: 0,
                            })
                            .collect(),
                    })),
                }),
            ]
        })
    }

    fn attributes() -> impl Strategy<Value = Vec<KeyValue>> {
        let pair = (
            text(),
            proptest::option::of(value()),
            prop_oneof![Just(0), any::<i32>()],
        );
        proptest::collection::vec(pair, 0..4).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(key, value, key_strindex)| KeyValue {
                    key,
                    value,
                    key_strindex,
                })
                .collect()
        })
    }

    fn span() -> impl Strategy<Value = Span> {
        let event = (any::<u64>(), text(), attributes(), any::<u32>()).prop_map(
            |(time_unix_nano, name, attributes, dropped_attributes_count)| Event {
                time_unix_nano,
                name,
                attributes,
                dropped_attributes_count,
            },
        );
        let link = (ids(), ids(), text(), attributes(), any::<u32>()).prop_map(
            |(trace_id, span_id, trace_state, attributes, flags)| Link {
                trace_id,
                span_id,
                trace_state,
                attributes,
                dropped_attributes_count: flags / 2,
                flags,
            },
        );
        let status = proptest::option::of((text(), any::<i32>()))
            .prop_map(|status| status.map(|(message, code)| Status { message, code }));
        (
            (
                ids(),
                ids(),
                text(),
                ids(),
                any::<u32>(),
                text(),
                any::<i32>(),
            ),
            (any::<u64>(), any::<u64>(), attributes(), any::<u32>()),
            (
                proptest::collection::vec(event, 0..2),
                proptest::collection::vec(link, 0..2),
            ),
            (any::<u32>(), any::<u32>(), status),
        )
            .prop_map(
                |(
                    (trace_id, span_id, trace_state, parent_span_id, flags, name, kind),
                    (
                        start_time_unix_nano,
                        end_time_unix_nano,
                        attributes,
                        dropped_attributes_count,
                    ),
                    (events, links),
                    (dropped_events_count, dropped_links_count, status),
                )| Span {
                    trace_id,
                    span_id,
                    trace_state,
                    parent_span_id,
                    flags,
                    name,
                    kind,
                    start_time_unix_nano,
                    end_time_unix_nano,
                    attributes,
                    dropped_attributes_count,
                    events,
                    dropped_events_count,
                    links,
                    dropped_links_count,
                    status,
                },
            )
    }

    fn request() -> impl Strategy<Value = ExportTraceServiceRequest> {
        let entity = (text(), text(), proptest::collection::vec(text(), 0..2)).prop_map(
            |(schema_url, r#type, id_keys)| EntityRef {
                schema_url,
                r#type,
                description_keys: id_keys.clone(),
                id_keys,
            },
        );
        let resource = (
            attributes(),
            any::<u32>(),
            proptest::collection::vec(entity, 0..2),
        )
            .prop_map(
                |(attributes, dropped_attributes_count, entity_refs)| Resource {
                    attributes,
                    dropped_attributes_count,
                    entity_refs,
                },
            );
        let scope = (text(), text(), attributes(), any::<u32>()).prop_map(
            |(name, version, attributes, dropped_attributes_count)| InstrumentationScope {
                name,
                version,
                attributes,
                dropped_attributes_count,
            },
        );
        let scope_spans = (
            proptest::option::of(scope),
            proptest::collection::vec(span(), 0..3),
            text(),
        )
            .prop_map(|(scope, spans, schema_url)| ScopeSpans {
                scope,
                spans,
                schema_url,
            });
        let resource_spans = (
            proptest::option::of(resource),
            proptest::collection::vec(scope_spans, 0..2),
            text(),
        )
            .prop_map(|(resource, scope_spans, schema_url)| ResourceSpans {
                resource,
                scope_spans,
                schema_url,
            });
        proptest::collection::vec(resource_spans, 0..2)
            .prop_map(|resource_spans| ExportTraceServiceRequest { resource_spans })
    }

    proptest! {
        #[test]
        fn a_request_is_written_as_the_derive_writes_it(request in request()) {
            let mut written = Vec::new();
            super::request(&mut written, &request).unwrap();
            prop_assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&request).unwrap()
            );
        }
    }
}
