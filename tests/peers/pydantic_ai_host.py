"""Calls the `board` example from a PydanticAI agent, as its users call an MCP server's tools.

    pydantic_ai_host.py URL

The board is a `pydantic_ai.mcp.MCPToolset` of an `Agent` whose model is a scripted
`FunctionModel`: its first turn calls `plan_week` with the focus "the release", its second answers
with the tool result that reached it. Nothing leaves the machine but the calls to URL.

Prints one JSON line: the tools the toolset lists (`tools`) and those the agent offered its model
(`offered`), the arguments of the call, whether what reached the model was an error (a return
part whose outcome is not "success") and its text, and the agent's output. The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.function import AgentInfo, FunctionModel

seen = {}


def scripted(messages, info: AgentInfo):
    """Turn 1 calls `plan_week`; turn 2 answers with the result it got."""
    if "offered" not in seen:
        seen["offered"] = sorted(tool.name for tool in info.function_tools)
        return ModelResponse(
            parts=[ToolCallPart("plan_week", {"focus": "the release"}, tool_call_id="call-1")]
        )
    for message in messages:
        for part in getattr(message, "parts", []):
            if getattr(part, "tool_call_id", None) != "call-1":
                continue
            if isinstance(part, ToolReturnPart):
                # PydanticAI 2 tells the model of a failed call by the part's outcome.
                seen["is_error"] = part.outcome != "success"
            elif isinstance(part, RetryPromptPart):
                seen["is_error"] = True
            else:
                continue
            content = part.content
            seen["text"] = content if isinstance(content, str) else json.dumps(content, default=str)
    return ModelResponse(parts=[TextPart(seen.get("text", ""))])


async def drive(url):
    toolset = MCPToolset(url, read_timeout=120)
    agent = Agent(FunctionModel(scripted), toolsets=[toolset])
    async with toolset:
        listed = await toolset.list_tools()
        result = await agent.run("Plan my week around the release.")
    calls = [
        part.args_as_dict()
        for message in result.all_messages()
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolCallPart) and part.tool_name == "plan_week"
    ]
    return {
        "tools": sorted(tool.name for tool in listed),
        "offered": seen.get("offered"),
        "arguments": calls[0] if calls else None,
        "is_error": seen.get("is_error"),
        "text": seen.get("text"),
        "output": result.output,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(drive(sys.argv[1]))))
