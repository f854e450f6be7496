"""What the tests' MCP servers on the official Python SDK share: the server class of the SDK
installed (`MCPServer` of `mcp` 2.x, MCP 2026-07-28, the default build's; `FastMCP` of `mcp` 1.x,
2025-11-25, `legacy-spec`'s), made and run the same way, at `http://127.0.0.1:PORT/mcp`.
"""

try:
    from mcp.server.mcpserver import MCPServer as Server

    LEGACY = False
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server

    LEGACY = True


def make(name, port, kind=Server):
    """A server of `kind` (the SDK's class, or a class of its own made from it) named `name`."""
    if LEGACY:
        # Stateless: neva 0.9's client sends a session id back as a hyphenated UUID, and the
        # 1.x SDK's are 32 hex digits without hyphens, so a session would not be found again.
        return kind(name, host="127.0.0.1", port=port, log_level="WARNING", stateless_http=True)
    return kind(name, log_level="WARNING")


def run(server, port):
    """Serves `server` over Streamable HTTP until it is killed."""
    if LEGACY:
        server.run("streamable-http")
    else:
        server.run("streamable-http", host="127.0.0.1", port=port, streamable_http_path="/mcp")
