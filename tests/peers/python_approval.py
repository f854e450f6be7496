"""Calls the `board`'s `plan_week` with the official MCP Python SDK as a person would, answering
the board's approval questions with the SDK's elicitation callback.

    LADOGA_TOKEN=JWT python_approval.py URL ANSWER

ANSWER is `accept`, `decline` or `cancel`: what the person answers every question. The bearer
token comes from the environment, as a user's client keeps it. Prints one JSON line: the
questions asked, whether the call was an error, the result's text and the run's report. The
Rust test that runs it checks the line.
"""

import asyncio
import json
import os
import sys

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from called import described


async def drive(url, answer):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action=answer, content={} if answer == "accept" else None)

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {os.environ['LADOGA_TOKEN']}"})
    transport = streamable_http_client(url, http_client=http)
    async with Client(transport, read_timeout_seconds=120, elicitation_callback=on_elicit) as client:
        result = await client.call_tool("plan_week", {"focus": "the release"})
        return {"asked": asked, **described(result)}


def main():
    print(json.dumps(asyncio.run(drive(sys.argv[1], sys.argv[2]))))


if __name__ == "__main__":
    main()
