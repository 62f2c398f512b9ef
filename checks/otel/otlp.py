"""OTLP/JSON lines read into the official `opentelemetry-proto` messages.

OTLP/JSON writes trace and span ids as hex, where the protobuf JSON mapping has base64:
they are converted (as the OTLP specification says a receiver must), then the line is
parsed strictly (an unknown field is an error) into `ExportTraceServiceRequest`.
"""

import base64
import json

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def _ids_to_base64(span):
    for key in ID_FIELDS:
        if key in span:
            span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    for link in span.get("links", []):
        for key in ("traceId", "spanId"):
            if key in link:
                link[key] = base64.b64encode(bytes.fromhex(link[key])).decode()


def parse_line(line):
    """One OTLP/JSON line as an `ExportTraceServiceRequest`."""
    value = json.loads(line)
    for resource_spans in value.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                _ids_to_base64(span)
    return json_format.ParseDict(value, ExportTraceServiceRequest(), ignore_unknown_fields=False)


def spans_of(request):
    """(resource attributes, span) for every span of a request."""
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield resource, span


def attributes(key_values):
    """Attributes as a dict of Python values."""
    out = {}
    for key_value in key_values:
        value = key_value.value
        kind = value.WhichOneof("value")
        out[key_value.key] = getattr(value, kind) if kind else None
    return out
