"""Drives the `board` example (built with `legacy-spec`) with the official MCP Python SDK 1.x.

    python_legacy_client.py http URL
    python_legacy_client.py stdio BOARD_BINARY MODEL_URL

The 1.x API, MCP 2025-11-25 and older: a `ClientSession` over `streamable_http_client` or
`stdio_client`. Initializes, lists the tools, sets the logging level to `info`, calls
`plan_week` with a progress callback, waits half a second for notifications still on their way,
and prints one JSON line: the tool names, whether the call was an error, the result's text, the
progress the callback got (`[progress, total]`), every progress notification the session
received (`progress_received`: over HTTP, the 2025 transport carries them on the session's `GET`
stream, apart from the result, and the SDK stops calling a request's progress callback once its
result is in), and the log messages' text. The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager
from datetime import timedelta

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def streams(argv):
    if argv[1] == "http":
        async with streamable_http_client(argv[2]) as (read, write, _session_id):
            yield read, write
    else:
        board, model_url = argv[2], argv[3]
        server = StdioServerParameters(
            command=board, args=["--stdio", "--model-url", model_url, "--model", "scripted"]
        )
        async with stdio_client(server) as (read, write):
            yield read, write


# How long to wait, after the result, for notifications sent before it on another stream.
SETTLE_SECONDS = 0.5


async def drive(argv):
    progress, received, logs = [], [], []

    async def on_progress(value, total, message):
        progress.append([value, total])

    async def on_log(params):
        data = params.data
        logs.append(data.get("message", "") if isinstance(data, dict) else str(data))

    async def on_message(message):
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ProgressNotification
        ):
            received.append([message.root.params.progress, message.root.params.total])

    async with streams(argv) as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=timedelta(seconds=120),
            logging_callback=on_log,
            message_handler=on_message,
        ) as session:
            await session.initialize()
            listed = await session.list_tools()
            await session.set_logging_level("info")
            result = await session.call_tool(
                "plan_week", {"focus": "the release"}, progress_callback=on_progress
            )
            await asyncio.sleep(SETTLE_SECONDS)
            return {
                "tools": sorted(tool.name for tool in listed.tools),
                "is_error": bool(result.isError),
                "text": "\n".join(block.text for block in result.content if block.type == "text"),
                "progress": progress,
                "progress_received": received,
                "logs": logs,
            }


def main():
    print(json.dumps(asyncio.run(drive(sys.argv))))


if __name__ == "__main__":
    main()
