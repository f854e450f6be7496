"""Calls the `board` example with FastMCP's `Client`, as its users call an MCP server's tools.

    fastmcp_host.py URL

`fastmcp.Client(URL)` (Streamable HTTP, protocol negotiation `auto`) lists the tools and calls
`plan_week` with the focus "the release" and a progress handler. Prints one JSON line: the tool
names, whether the call was an error, the result's text and the progress notifications
(`[progress, total]`). The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys

from fastmcp import Client


async def drive(url):
    progress = []

    async def on_progress(value, total, message):
        progress.append([value, total])

    async with Client(url, timeout=120) as client:
        listed = await client.list_tools()
        result = await client.call_tool(
            "plan_week", {"focus": "the release"}, progress_handler=on_progress, raise_on_error=False
        )
    return {
        "tools": sorted(tool.name for tool in listed),
        "is_error": bool(result.is_error),
        "text": "\n".join(block.text for block in result.content if block.type == "text"),
        "progress": progress,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(drive(sys.argv[1]))))
