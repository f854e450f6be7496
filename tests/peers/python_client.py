"""Drives the `board` example with the official MCP Python SDK, as a user's client would.

    python_client.py http URL
    python_client.py stdio BOARD_BINARY MODEL_URL

Lists the tools, calls `plan_week`, and prints one JSON line: the tool names, whether the call
was an error, and the result's text. The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


async def drive(target):
    async with Client(target, mode="auto", read_timeout_seconds=120) as client:
        listed = await client.list_tools()
        result = await client.call_tool("plan_week", {"focus": "the release"})
        return {
            "tools": sorted(tool.name for tool in listed.tools),
            "is_error": bool(result.is_error),
            "text": "\n".join(block.text for block in result.content if block.type == "text"),
        }


def main():
    if sys.argv[1] == "http":
        target = sys.argv[2]
    else:
        board, model_url = sys.argv[2], sys.argv[3]
        target = StdioServerParameters(
            command=board, args=["--stdio", "--model-url", model_url, "--model", "scripted"]
        )
    print(json.dumps(asyncio.run(drive(target))))


if __name__ == "__main__":
    main()
