"""Calls the `board`'s `plan_week` (built with `legacy-spec`) as an MCP 2025-11-25 task with the
official MCP Python SDK 1.x and its own tasks client (`session.experimental`).

    LADOGA_TOKEN=JWT python_legacy_task.py URL accept [--follow URL2]
    LADOGA_TOKEN=JWT python_legacy_task.py URL cancel MS [--follow URL2]

`accept` polls the task with `tasks/get` until it ends, the SDK's elicitation callback approving
each question (under 2025-11-25 a request from the server), then reads the result with
`tasks/result`. `cancel MS` polls until MS milliseconds after the task was created, then sends
`tasks/cancel`, whose answer says how the task ended. With `--follow URL2` the task is started at
URL and followed (`tasks/get`, `tasks/cancel`, `tasks/result`) through a session of its own at
URL2: another replica of the same server, say. Prints one JSON line: the task's id, every status seen, the
questions asked, and the result's text and report. The Rust test that runs it checks the line.
"""

import asyncio
import contextlib
import json
import os
import sys
import time

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPORT_KEY = "io.github.ladoga-rs/run"
TERMINAL = {"completed", "failed", "cancelled"}


async def drive(url, mode, cancel_after_ms, follow_url):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    token = os.environ.get("LADOGA_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with contextlib.AsyncExitStack() as stack:

        async def session_at(at):
            http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            read, write, _ = await stack.enter_async_context(streamable_http_client(at, http_client=http))
            session = await stack.enter_async_context(ClientSession(read, write, elicitation_callback=on_elicit))
            await session.initialize()
            return session

        session = await session_at(url)
        created = await session.experimental.call_tool_as_task("plan_week", {"focus": "the release"}, ttl=120_000)
        task_id = created.task.taskId
        tasks = (await session_at(follow_url) if follow_url else session).experimental
        started, seen = time.monotonic(), []
        while True:
            # neva's 2025-11-25 tasks forget a task they cancel: the cancellation's answer
            # is its last word.
            if mode == "cancel" and (time.monotonic() - started) * 1000 >= cancel_after_ms:
                status = await tasks.cancel_task(task_id)
            else:
                status = await tasks.get_task(task_id)
            seen.append({"status": status.status, "message": status.statusMessage})
            if status.status in TERMINAL:
                break
            await asyncio.sleep(0.1)
        line = {"task_id": task_id, "seen": seen, "asked": asked, "status": status.status}
        if status.status == "completed":
            result = await tasks.get_task_result(task_id, types.CallToolResult)
            line["is_error"] = bool(result.isError)
            line["text"] = "\n".join(b.text for b in result.content if b.type == "text")
            line["report"] = (result.content[0].meta or {}).get(REPORT_KEY) if result.content else None
        return line


def main():
    args = sys.argv[1:]
    follow_url = None
    if "--follow" in args:
        at = args.index("--follow")
        follow_url = args[at + 1]
        del args[at : at + 2]
    mode = args[1]
    cancel_after_ms = int(args[2]) if mode == "cancel" else None
    print(json.dumps(asyncio.run(drive(args[0], mode, cancel_after_ms, follow_url))))


if __name__ == "__main__":
    main()
