"""Calls the `board` example from an OpenAI Agents SDK agent, as its users call an MCP server.

    openai_agents_host.py URL

The board is an `agents.mcp.MCPServerStreamableHttp(params={"url": URL})` in an `Agent`'s
`mcp_servers`, run by `Runner.run`. The agent's model is a scripted local `Model`, not OpenAI's:
its first turn calls `plan_week` with the focus "the release", its second answers with the tool
output that reached it. Tracing is off, so nothing leaves the machine but the calls to URL.

Prints one JSON line: the tools the server object lists (`tools`) and those the agent offered its
model (`offered`), the arguments of the call, the `isError` of the MCP result, the text of the
tool output that reached the model, and the agent's final output. The Rust test that runs it
checks the line.
"""

import asyncio
import json
import sys

from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

seen = {}


def output_text(output):
    """The text of a `function_call_output` item's output: a string, or a list of parts."""
    if isinstance(output, str):
        return output
    parts = output if isinstance(output, list) else [output]
    return "\n".join(part.get("text", "") for part in parts if isinstance(part, dict))


class ScriptedModel(Model):
    """Turn 1 calls `plan_week`; turn 2 answers with the tool output it got."""

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs):
        if "offered" not in seen:
            seen["offered"] = sorted(tool.name for tool in tools)
            call = ResponseFunctionToolCall(
                type="function_call",
                id="fc-1",
                call_id="call-1",
                name="plan_week",
                arguments=json.dumps({"focus": "the release"}),
                status="completed",
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        for item in input if isinstance(input, list) else []:
            item = item if isinstance(item, dict) else item.model_dump()
            if item.get("type") == "function_call_output" and item.get("call_id") == "call-1":
                seen["text"] = output_text(item.get("output"))
        text = ResponseOutputText(type="output_text", text=seen.get("text", ""), annotations=[])
        message = ResponseOutputMessage(
            type="message", id="msg-1", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the script answers whole responses only")


def on_result(context):
    """Keeps the MCP result's `isError` (a custom-data extractor sees every tool result)."""
    seen["is_error"] = bool(context.is_error)
    seen["arguments"] = dict(context.arguments)
    return None


async def drive(url):
    set_tracing_disabled(True)
    async with MCPServerStreamableHttp(
        params={"url": url, "timeout": 120, "sse_read_timeout": 120},
        client_session_timeout_seconds=120,
        custom_data_extractor=on_result,
    ) as server:
        listed = await server.list_tools()
        agent = Agent(
            name="planner",
            instructions="Plan the week with the board's tools.",
            model=ScriptedModel(),
            mcp_servers=[server],
        )
        result = await Runner.run(agent, "Plan my week around the release.")
    return {
        "tools": sorted(tool.name for tool in listed),
        "offered": seen.get("offered"),
        "arguments": seen.get("arguments"),
        "is_error": seen.get("is_error"),
        "text": seen.get("text"),
        "output": result.final_output,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(drive(sys.argv[1]))))
