"""A small MCP server on the official Python SDK's FastMCP (named `MCPServer` since `mcp` 2.0),
over Streamable HTTP at `http://127.0.0.1:PORT/mcp`: the other server whose tools an
orchestrator offers in tests/python_server.rs.

    python python_tools_server.py PORT

`mcp` 2.x speaks MCP 2026-07-28 (the default build's), `mcp` 1.x 2025-11-25 (`legacy-spec`'s).
"""

import sys

from mcp.types import ImageContent, TextContent

try:
    from mcp.server.mcpserver import MCPServer

    LEGACY = False
except ImportError:
    from mcp.server.fastmcp import FastMCP

    LEGACY = True

PORT = int(sys.argv[1])

if LEGACY:
    # Stateless: neva 0.9's client sends a session id back as a hyphenated UUID, and the 1.x
    # SDK's are 32 hex digits without hyphens, so a session would not be found again.
    server = FastMCP(
        "weather", host="127.0.0.1", port=PORT, log_level="WARNING", stateless_http=True
    )
else:
    server = MCPServer("weather", log_level="WARNING")


@server.tool()
def forecast(city: str, days: int = 1) -> str:
    """Tells the weather in a city, tomorrow or for some days."""
    if days == 1:
        return f"Sunny in {city} tomorrow"
    return f"Sunny in {city} for {days} days"


@server.tool()
def radar(city: str) -> list[TextContent | ImageContent]:
    """Shows the rain radar of a city, between two lines of text."""
    return [
        TextContent(type="text", text=f"The radar of {city}:"),
        ImageContent(type="image", data="iVBORw0KGgo=", mimeType="image/png"),
        TextContent(type="text", text="Rain by noon."),
    ]


if LEGACY:
    server.run("streamable-http")
else:
    server.run("streamable-http", host="127.0.0.1", port=PORT, streamable_http_path="/mcp")
