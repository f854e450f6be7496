"""Drives the `board` example with the official MCP Python SDK, as a user's client would.

    python_client.py http URL
    python_client.py stdio BOARD_BINARY MODEL_URL

Lists the tools, calls `plan_week` with a progress callback and log messages requested, and
prints one JSON line: the tool names, whether the call was an error, the result's text, the
progress notifications (`[progress, total]`) and the log messages' text. The Rust test that runs
it checks the line.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


async def drive(target):
    progress, logs = [], []

    async def on_progress(value, total, message):
        progress.append([value, total])

    async def on_log(params):
        data = params.data
        logs.append(data.get("message", "") if isinstance(data, dict) else str(data))

    async with Client(
        target, mode="auto", read_timeout_seconds=120, logging_callback=on_log, log_level="info"
    ) as client:
        listed = await client.list_tools()
        result = await client.call_tool(
            "plan_week", {"focus": "the release"}, progress_callback=on_progress
        )
        return {
            "tools": sorted(tool.name for tool in listed.tools),
            "is_error": bool(result.is_error),
            "text": "\n".join(block.text for block in result.content if block.type == "text"),
            "progress": progress,
            "logs": logs,
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
