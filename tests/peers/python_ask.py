"""Calls an orchestrator that may ask (`ask = true`) with the official MCP Python SDK, its person
answering the model's question through the SDK's elicitation callback with a form.

    python_ask.py URL TOOL

The person picks the last of the form's choices (its `enum`), or writes "Thursday" when it
offers none. Prints one JSON line: the forms shown (message and requested schema), whether the
call was an error, the result's text and the run's report. The Rust test that runs it checks the
line.
"""

import asyncio
import json
import sys

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from called import described


async def drive(url, tool):
    shown = []

    async def on_elicit(context, params):
        schema = params.requested_schema
        if hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        shown.append({"message": params.message, "requestedSchema": schema})
        choices = schema.get("properties", {}).get("answer", {}).get("enum")
        answer = choices[-1] if choices else "Thursday"
        return types.ElicitResult(action="accept", content={"answer": answer})

    transport = streamable_http_client(url)
    async with Client(transport, read_timeout_seconds=120, elicitation_callback=on_elicit) as client:
        result = await client.call_tool(tool, {"task": "Move the release"})
        return {"shown": shown, **described(result)}


def main():
    print(json.dumps(asyncio.run(drive(sys.argv[1], sys.argv[2]))))


if __name__ == "__main__":
    main()
