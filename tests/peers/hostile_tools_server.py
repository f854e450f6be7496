"""An MCP server on the official Python SDK whose tool list is hostile, over Streamable HTTP at
`http://127.0.0.1:PORT/mcp`: the other server in tests/hostile_tools.rs.

    python hostile_tools_server.py PORT [many]

It lists, besides one healthy tool (`forecast`, which answers): a tool whose schema refers to
itself (`$ref`), one nested 40 objects deep, one with a 100,000-value enum, one with a 5 MB
schema, names with NUL, ESC and a newline, a name too long once prefixed, `forecast` a second
time, `notes.read` and `notes_read` (one name once `.` is renamed to `_`), and `clock`. With
`many`, it lists `forecast` and 9,999 small tools instead.

The SDK's `list_tools` is replaced to list raw descriptors; only `forecast` can be called.
`mcp` 2.x speaks MCP 2026-07-28 (the default build's), `mcp` 1.x 2025-11-25 (`legacy-spec`'s).
"""

import sys

from mcp.types import Tool

import sdk_server
from sdk_server import Server

PORT = int(sys.argv[1])
MANY = sys.argv[2:] == ["many"]

OBJECT = {"type": "object", "properties": {}}


def descriptor(name, schema=OBJECT, description="A tool"):
    return Tool.model_validate({"name": name, "description": description, "inputSchema": schema})


def nested(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def hostile():
    node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    huge = {f"property_{at:06d}_{'x' * 30}": {"type": "string"} for at in range(100_000)}
    return [
        descriptor("outline", {"type": "object", "$defs": {"Node": node}, "properties": {"root": {"$ref": "#/$defs/Node"}}}),
        descriptor("deep", nested(40)),
        descriptor("huge_enum", {"type": "object", "properties": {"pick": {"type": "string", "enum": [f"v{at}" for at in range(100_000)]}}}),
        descriptor("huge_schema", {"type": "object", "properties": huge}),
        descriptor("nul\x00name"),
        descriptor("esc\x1b[31mred"),
        descriptor("new\nline"),
        descriptor("long_" + "x" * 70),
        descriptor("forecast", description="Another forecast"),
        descriptor("notes.read"),
        descriptor("notes_read"),
        descriptor("clock"),
    ]


class Hostile(Server):
    async def list_tools(self):
        healthy = await super().list_tools()
        if MANY:
            return healthy + [descriptor(f"tool_{at:04d}") for at in range(1, 10_000)]
        return healthy + hostile()


server = sdk_server.make("hostile", PORT, Hostile)


@server.tool()
def forecast(city: str) -> str:
    """Tells tomorrow's weather in a city."""
    return f"Sunny in {city} tomorrow"


sdk_server.run(server, PORT)
