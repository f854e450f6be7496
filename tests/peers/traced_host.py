"""A host that traces its own work, as an agent framework on OpenTelemetry does: a span of its
own, exported over OTLP/HTTP, and inside it a call of an orchestrator with the official MCP
Python SDK, the span's W3C `traceparent` in the call's `_meta` (MCP 2026-07-28).

    traced_host.py OTLP_TRACES_URL MCP_URL TOOL FOCUS

The person approves every question the call asks (the SDK's elicitation callback). Prints one
JSON line: the host span's `trace_id` and `span_id`, the questions asked, whether the call was
an error, and the result's text. Fails when the host's span was not exported. Run by
tests/suite/peers/traces.rs with the Python SDK's venv (`scripts/peers install` adds the
OpenTelemetry packages to it).
"""

import asyncio
import json
import sys

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from called import described


async def call(url, tool, focus):
    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    transport = streamable_http_client(url)
    async with Client(transport, read_timeout_seconds=120, elicitation_callback=on_elicit) as client:
        result = await client.call_tool(tool, {"focus": focus}, meta=carrier)
        return {"asked": asked, **described(result)}


def main():
    otlp, url, tool, focus = sys.argv[1:5]
    provider = TracerProvider(resource=Resource.create({"service.name": "python-host"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=otlp, timeout=10)))
    tracer = provider.get_tracer("python-host")
    with tracer.start_as_current_span(f"host asks {tool}") as span:
        context = span.get_span_context()
        answer = asyncio.run(call(url, tool, focus))
    if not provider.force_flush():
        sys.exit(f"the host's span was not exported to {otlp}")
    provider.shutdown()
    answer["trace_id"] = trace.format_trace_id(context.trace_id)
    answer["span_id"] = trace.format_span_id(context.span_id)
    print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
