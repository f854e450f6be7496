"""One OpenTelemetry span, exported over OTLP/HTTP, as a Python MCP host exports its own.

    otel_span.py OTLP_TRACES_URL SPAN_NAME

Creates the span SPAN_NAME with the OpenTelemetry SDK (service `ladoga-test-host`), exports it
to OTLP_TRACES_URL (`http://HOST:PORT/v1/traces`) with the OTLP/HTTP exporter, each span as it
ends, shuts the provider down, and prints one JSON line: the span's `trace_id` (32 hex
digits), `span_id` (16 hex digits) and W3C `traceparent`. Fails when the export fails.

Run by tests/suite/peers/phoenix.rs with the Python SDK's venv (`scripts/peers install` adds
the OpenTelemetry packages to it).
"""

import json
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator


class Checked(SpanExporter):
    """The OTLP exporter, remembering whether every export succeeded."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner
        self.failed = False

    def export(self, spans):
        result = self.inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self.failed = True
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def main() -> None:
    url, name = sys.argv[1], sys.argv[2]
    exporter = Checked(OTLPSpanExporter(endpoint=url, timeout=10))
    provider = TracerProvider(resource=Resource.create({"service.name": "ladoga-test-host"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("ladoga-test-host")

    with tracer.start_as_current_span(name) as span:
        context = span.get_span_context()
        carrier: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(carrier)

    provider.force_flush()
    provider.shutdown()
    if exporter.failed:
        sys.exit(f"the span was not exported to {url}")
    print(
        json.dumps(
            {
                "trace_id": trace.format_trace_id(context.trace_id),
                "span_id": trace.format_span_id(context.span_id),
                "traceparent": carrier["traceparent"],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
