"""Calls the `board`'s `plan_week` (built with `legacy-spec`) as an MCP 2025-11-25 task with the
official MCP Python SDK 1.x and its own tasks client (`session.experimental`).

    LADOGA_TOKEN=JWT python_legacy_task.py URL accept
    LADOGA_TOKEN=JWT python_legacy_task.py URL cancel MS

`accept` polls the task with `tasks/get` until it ends, the SDK's elicitation callback approving
each question (under 2025-11-25 a request from the server), then reads the result with
`tasks/result`. `cancel MS` polls until MS milliseconds after the task was created, then sends
`tasks/cancel`, whose answer says how the task ended. Prints one JSON line: the task's id, every status seen, the
questions asked, and the result's text and report. The Rust test that runs it checks the line.
"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPORT_KEY = "io.github.ladoga-rs/run"
TERMINAL = {"completed", "failed", "cancelled"}


async def drive(url, mode, cancel_after_ms):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    token = os.environ.get("LADOGA_TOKEN")
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"} if token else None)
    async with http, streamable_http_client(url, http_client=http) as (read, write, _session_id):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
            await session.initialize()
            tasks = session.experimental
            created = await tasks.call_tool_as_task("plan_week", {"focus": "the release"}, ttl=120_000)
            task_id = created.task.taskId
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
    mode = sys.argv[2]
    cancel_after_ms = int(sys.argv[3]) if mode == "cancel" else None
    print(json.dumps(asyncio.run(drive(sys.argv[1], mode, cancel_after_ms))))


if __name__ == "__main__":
    main()
