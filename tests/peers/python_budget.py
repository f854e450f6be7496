"""Calls an orchestrator with the official MCP Python SDK, capping what the call may spend in its
request's `_meta` (`io.github.ladoga-rs/budget_usd`, see `ladoga::cost`), as a host would.

    python_budget.py URL TOOL DOLLARS

Prints one JSON line: whether the call was an error, the result's text and the run's report.
The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from called import described

BUDGET_KEY = "io.github.ladoga-rs/budget_usd"


async def drive(url, tool, dollars):
    transport = streamable_http_client(url)
    async with Client(transport, read_timeout_seconds=120) as client:
        result = await client.call_tool(
            tool, {"task": "Move the release"}, meta={BUDGET_KEY: dollars}
        )
        return described(result)


def main():
    url, tool, dollars = sys.argv[1], sys.argv[2], float(sys.argv[3])
    print(json.dumps(asyncio.run(drive(url, tool, dollars))))


if __name__ == "__main__":
    main()
