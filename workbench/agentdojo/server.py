"""The harness's one ASGI app on 127.0.0.1: MCP at /mcp, the obedient model, and the pair API."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bench import Bench, call_json
from obedient import Plan, Step, next_step

log = logging.getLogger("harness")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def mcp_server(bench: Bench, annotate: str = "full") -> Server:
    """The MCP server of the suite's tools, each run on the current pair's environment; each
    listed with both hints (`full`), or with `readOnlyHint` alone (`read-only`)."""
    tools = [
        types.Tool(
            name=spec["name"],
            description=spec["description"],
            input_schema=spec["input_schema"],
            annotations=types.ToolAnnotations(
                read_only_hint=spec["read_only"],
                open_world_hint=spec["open_world"] if annotate == "full" else None,
            ),
        )
        for spec in bench.tool_specs()
    ]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            text, error = bench.run_tool(params.name, dict(params.arguments or {}))
        except RuntimeError as e:  # no pair set
            text, error = str(e), str(e)
        log.info("tool %s%s", params.name, " -> error" if error else "")
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error is not None)

    return Server("agentdojo-" + bench.name, on_list_tools=list_tools, on_call_tool=call_tool)


def tool_name(name: str, offered: list[str]) -> str:
    """The name the caller offered for an AgentDojo tool: the same, or the one offered name that
    ends with it after a separator (a host may prefix its servers' tools)."""
    if not offered or name in offered:
        return name
    matches = [o for o in offered if o.endswith(name) and not o[-len(name) - 1].isalnum()]
    return matches[0] if len(matches) == 1 else name


def completion_message(step: Step, offered: list[str]) -> tuple[dict[str, Any], str]:
    """The assistant message of a step, and its finish reason."""
    if step.call is None:
        return {"role": "assistant", "content": step.text}, "stop"
    call = {
        "id": "call_" + uuid.uuid4().hex[:24],
        "type": "function",
        "function": {
            "name": tool_name(step.call.function, offered),
            "arguments": json.dumps(dict(step.call.args), default=str),
        },
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def completion_json(message: dict[str, Any], finish: str, model: str) -> dict[str, Any]:
    """A chat.completion object."""
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": USAGE,
    }


def completion_chunks(message: dict[str, Any], finish: str, model: str, include_usage: bool) -> list[str]:
    """The same answer as SSE chat.completion.chunk events, ending with [DONE]."""
    base = {"id": "chatcmpl-" + uuid.uuid4().hex[:24], "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("tool_calls"):
        delta["content"] = None
        delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(message["tool_calls"])]
    else:
        delta["content"] = message["content"]
    chunks = [
        dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
        dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]),
    ]
    if include_usage:
        chunks.append(dict(base, choices=[], usage=USAGE))
    return [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]


def error(status: int, message: str) -> JSONResponse:
    """An error answer in the OpenAI shape, which the pair API uses too."""
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=status)


def routes(bench: Bench) -> list[Route]:
    """The HTTP API beside /mcp."""

    async def chat(request: Request) -> Response:
        body = await request.json()
        if bench.pair is None:
            return error(409, "no pair set: POST /pair first")
        step = next_step(Plan.for_pair(bench.pair), body.get("messages") or [])
        offered = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
        message, finish = completion_message(step, offered)
        log.info("model -> %s", message["tool_calls"][0]["function"]["name"] if finish == "tool_calls" else "answer")
        model = body.get("model") or "obedient"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = completion_chunks(message, finish, model, include_usage)
            return StreamingResponse(iter(chunks), media_type="text/event-stream")
        return JSONResponse(completion_json(message, finish, model))

    async def set_pair(request: Request) -> Response:
        body = await request.json()
        user_id, injection_id = body.get("user_task"), body.get("injection_task")
        if user_id not in bench.suite.user_tasks:
            return error(400, f"unknown user task {user_id!r}")
        if injection_id is not None and injection_id not in bench.suite.injection_tasks:
            return error(400, f"unknown injection task {injection_id!r}")
        if injection_id is not None and (why := bench.unmeasurable_reason(user_id, injection_id)):
            return error(422, f"pair not measurable: {why}")
        pair = bench.set_pair(user_id, injection_id)
        log.info("pair %s x %s", user_id, injection_id)
        return JSONResponse(
            {
                "prompt": pair.user_task.PROMPT,
                "needed": [call_json(c) for c in pair.user_calls],
                "injection_vectors": sorted(pair.injections),
            }
        )

    async def check(request: Request) -> Response:
        body = await request.json()
        if bench.pair is None:
            return error(409, "no pair set: POST /pair first")
        return JSONResponse(bench.check(str(body.get("answer") or "")))

    async def pairs(request: Request) -> Response:
        return JSONResponse(bench.pairs())

    return [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/pair", set_pair, methods=["POST"]),
        Route("/check", check, methods=["POST"]),
        Route("/pairs", pairs, methods=["GET"]),
    ]


def write_port(state: Path, port: int) -> None:
    """DIR/port, written whole: a temporary file renamed over it."""
    tmp = state / f"port.{os.getpid()}.tmp"
    tmp.write_text(f"{port}\n")
    os.replace(tmp, state / "port")


async def _serve(server: uvicorn.Server, sock: socket.socket, state: Path) -> None:
    """Runs uvicorn on the bound socket and writes the port file once it listens."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        port = sock.getsockname()[1]
        write_port(state, port)
        log.info("listening on 127.0.0.1:%d", port)
    await task


def serve(suite: str, port: int, state: Path, annotate: str = "full") -> int:
    """Serves until SIGTERM or SIGINT; returns the exit code."""
    # uvicorn re-raises the signal it caught once it has shut down: let that end us with 0.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    bench = Bench(suite)
    bench.pairs()  # computes the pair table once, before listening
    app = mcp_server(bench, annotate).streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        stateless_http=True,
        host="127.0.0.1",
        custom_starlette_routes=routes(bench),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    try:
        asyncio.run(_serve(uvicorn.Server(config), sock, state))
    except KeyboardInterrupt:
        pass
    return 0
