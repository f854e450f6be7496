"""Calls the `board`'s `plan_week` with the official MCP Python SDK as a desktop host would, the
board planning on its caller's model (`board --caller-model`): the SDK's sampling callback answers
each `sampling/createMessage` with a model of the host's own, an OpenAI-compatible server.

    [LADOGA_TOKEN=JWT] python_sample.py URL MODEL_URL

Works with the SDK 2.x (`Client`, MCP 2026-07-28, where each sample is an input request of a
round of the tool call) and 1.x (`ClientSession`, MCP 2025-11-25, where it is a request to the
client). The callback declares sampling with tools, turns the request (system prompt, messages
with their `tool_use` and `tool_result` blocks, tools, `toolChoice`, `maxTokens`) into a chat
completion request to `MODEL_URL/v1/chat/completions`, reads the streamed answer back into text
and `tool_use` blocks, and keeps each request it got. Prints one JSON line: the sampling requests
as they came on the wire, whether the call was an error, the result's text and the run's report.
The Rust test that runs it checks the line.
"""

import asyncio
import json
import os
import sys
import urllib.request
from contextlib import asynccontextmanager
from datetime import timedelta

import mcp
from mcp import types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from called import described

MODEL = "scripted"


def chat_request(params):
    """The OpenAI chat completion request of the sampling request `params` (its wire JSON)."""
    messages = []
    if params.get("systemPrompt"):
        messages.append({"role": "system", "content": params["systemPrompt"]})
    for message in params["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else [message["content"]]
        texts = [block["text"] for block in blocks if block["type"] == "text"]
        calls = [
            {
                "id": block["id"],
                "type": "function",
                "function": {"name": block["name"], "arguments": json.dumps(block["input"])},
            }
            for block in blocks
            if block["type"] == "tool_use"
        ]
        for block in blocks:
            if block["type"] == "tool_result":
                said = "".join(part.get("text", "") for part in block.get("content", []))
                messages.append({"role": "tool", "tool_call_id": block["toolUseId"], "content": said})
        if texts or calls:
            turn = {"role": message["role"], "content": "\n".join(texts) if texts else None}
            if calls:
                turn["tool_calls"] = calls
            messages.append(turn)
    request = {"model": MODEL, "messages": messages, "max_tokens": params["maxTokens"], "stream": True}
    if params.get("tools"):
        request["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool["inputSchema"],
                },
            }
            for tool in params["tools"]
        ]
        request["tool_choice"] = (params.get("toolChoice") or {}).get("mode") or "auto"
    return request


def complete(model_url, request):
    """The streamed answer of the model server to `request`: its text and its tool calls."""
    post = urllib.request.Request(
        f"{model_url}/v1/chat/completions",
        data=json.dumps(request).encode(),
        headers={"Content-Type": "application/json"},
    )
    text, calls = "", {}
    with urllib.request.urlopen(post, timeout=60) as answer:
        for line in answer:
            line = line.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            for choice in json.loads(line[len("data:"):]).get("choices", []):
                delta = choice.get("delta", {})
                text += delta.get("content") or ""
                for call in delta.get("tool_calls") or []:
                    kept = calls.setdefault(call.get("index", 0), {"id": "", "name": "", "arguments": ""})
                    kept["id"] = call.get("id") or kept["id"]
                    function = call.get("function") or {}
                    kept["name"] += function.get("name") or ""
                    kept["arguments"] += function.get("arguments") or ""
    return text, [calls[index] for index in sorted(calls)]


def sample_of(text, calls):
    """The sampling result of the model's answer: its text, then a `tool_use` block a call."""
    content = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": call["id"], "name": call["name"], "input": json.loads(call["arguments"] or "{}")}
        for call in calls
    ]
    return types.CreateMessageResultWithTools.model_validate(
        {
            "role": "assistant",
            "content": content,
            "model": MODEL,
            "stopReason": "toolUse" if calls else "endTurn",
        }
    )


def http_client():
    """The HTTP client of the MCP connection: with the bearer token `LADOGA_TOKEN` when set."""
    token = os.environ.get("LADOGA_TOKEN")
    if not token:
        return None
    return create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})


@asynccontextmanager
async def connected(url, on_sample):
    """A client of the server at `url`, sampling with `on_sample`, on either SDK generation."""
    sampling = types.SamplingCapability(tools=types.SamplingToolsCapability())
    if hasattr(mcp, "Client"):
        transport = streamable_http_client(url, http_client=http_client())
        async with mcp.Client(
            transport,
            read_timeout_seconds=120,
            sampling_callback=on_sample,
            sampling_capabilities=sampling,
        ) as client:
            yield client
    else:
        async with streamable_http_client(url, http_client=http_client()) as (read, write, _id):
            async with mcp.ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=120),
                sampling_callback=on_sample,
                sampling_capabilities=sampling,
            ) as session:
                await session.initialize()
                yield session


async def drive(url, model_url):
    sampled = []

    async def on_sample(context, params):
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        sampled.append(wire)
        text, calls = await asyncio.to_thread(complete, model_url, chat_request(wire))
        return sample_of(text, calls)

    async with connected(url, on_sample) as client:
        result = await client.call_tool("plan_week", {"focus": "the release"})
        return {"sampled": sampled, **described(result)}


def main():
    print(json.dumps(asyncio.run(drive(sys.argv[1], sys.argv[2]))))


if __name__ == "__main__":
    main()
