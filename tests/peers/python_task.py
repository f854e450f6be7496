"""Calls the `board`'s `plan_week` as an MCP task (the `io.modelcontextprotocol/tasks` extension
of MCP 2026-07-28) with the official MCP Python SDK, which has no tasks client of its own: this
is one, written on the SDK's extension API (`ClientExtension`, `ResultClaim`) and its session.

    LADOGA_TOKEN=JWT python_task.py URL accept
    LADOGA_TOKEN=JWT python_task.py URL cancel MS

`accept` polls the task with `tasks/get` until it ends, answering each question the task asks
(its `inputRequests`) through the SDK's elicitation callback, which approves, with
`tasks/update`. `cancel MS` sends `tasks/cancel` MS milliseconds after the task was created,
then polls until the task ends. The bearer token, if set, comes from the environment. Prints one
JSON line: the task's id, every status and status message seen, the questions asked, and the
result's text and report (or the task's error). The Rust test that runs it checks the line.
"""

import asyncio
import json
import os
import sys
import time
from datetime import datetime
from typing import Any, Literal

from pydantic import TypeAdapter

from mcp import Client, types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

TASKS = "io.modelcontextprotocol/tasks"
REPORT_KEY = "io.github.ladoga-rs/run"
TERMINAL = {"completed", "failed", "cancelled"}


class Task(types.Result):
    """A task's own fields, as both its creation and `tasks/get` give them."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskHandle(Task):
    """What a task-augmented `tools/call` answers: the task it started."""

    result_type: Literal["task"]


class TaskState(Task):
    """What `tasks/get` answers: the task, with its questions, result or error by status."""

    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


INPUT_REQUEST = TypeAdapter(types.InputRequest)


def moment(iso):
    """An ISO 8601 time, in seconds since the epoch."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()

CALL_OR_TASK = TypeAdapter(TaskHandle | types.CallToolResult)


class Tasks(ClientExtension):
    """The tasks extension, requester side: follows a task to its end and records what it saw."""

    identifier = TASKS

    def __init__(self, cancel_after_ms=None):
        self.cancel_after_ms = cancel_after_ms
        self.seen = []

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        state = await self.follow(ctx.session, handle)
        if state.status != "completed":
            raise RuntimeError(f"task {state.task_id} ended {state.status}: {state.error}")
        return types.CallToolResult.model_validate(state.result)

    async def poll(self, session: ClientSession, task_id: str) -> TaskState:
        """`tasks/get`, polled again when the HTTP request itself failed: a replica killed while
        it answered a poll leaves the proxy nothing to answer it with but a `502`, and a poll
        changes nothing, so it is safe to send again."""
        for attempt in range(10):
            try:
                return await session.send_request(GetTask(params=TaskParams(task_id=task_id)), TaskState)
            except MCPError as error:
                if error.error.message != "Server returned an error response" or attempt == 9:
                    raise
                await asyncio.sleep(0.2)

    async def follow(self, session: ClientSession, handle: TaskHandle) -> TaskState:
        """Polls `handle`'s task until it ends, answering its questions, cancelling it if told."""
        created = time.monotonic()
        cancelled = False
        answered = set()
        while True:
            if self.cancel_after_ms is not None and not cancelled:
                if (time.monotonic() - created) * 1000 >= self.cancel_after_ms:
                    await session.send_request(
                        CancelTask(params=TaskParams(task_id=handle.task_id)), types.EmptyResult
                    )
                    cancelled = True
            state = await self.poll(session, handle.task_id)
            self.seen.append(
                {
                    "status": state.status,
                    "message": state.status_message,
                    # What the task said of itself when it was created, said again.
                    "same_ttl": state.ttl_ms == handle.ttl_ms,
                    "created_skew_ms": round(abs(moment(state.created_at) - moment(handle.created_at)) * 1000),
                }
            )
            if state.status in TERMINAL:
                return state
            if state.status == "input_required" and not cancelled:
                fresh = {
                    key: request
                    for key, request in (state.input_requests or {}).items()
                    if key not in answered
                }
                if fresh:
                    responses = {}
                    for key, raw in fresh.items():
                        request = INPUT_REQUEST.validate_python(raw)
                        context = ClientRequestContext(session=session, request_id=key)
                        answer = await session.dispatch_input_request(context, request)
                        responses[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
                        answered.add(key)
                    await session.send_request(
                        UpdateTask(params=UpdateParams(task_id=handle.task_id, input_responses=responses)),
                        types.EmptyResult,
                    )
            await asyncio.sleep(min(state.poll_interval_ms or 100, 100) / 1000)


async def drive(url, mode, cancel_after_ms):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    tasks = Tasks(cancel_after_ms if mode == "cancel" else None)
    token = os.environ.get("LADOGA_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = create_mcp_http_client(headers=headers)
    transport = streamable_http_client(url, http_client=http)
    async with Client(transport, read_timeout_seconds=120, elicitation_callback=on_elicit, extensions=[tasks]) as client:
        session = client.session
        started = await session.send_request(
            types.CallToolRequest(
                params=types.CallToolRequestParams(
                    name="plan_week",
                    arguments={"focus": "the release"},
                    task=types.TaskMetadata(ttl=120_000),
                )
            ),
            CALL_OR_TASK,
        )
        if not isinstance(started, TaskHandle):
            return {"task_id": None, "seen": [], "asked": asked, "error": "the call did not start a task"}
        state = await tasks.follow(session, started)
        line = {"task_id": started.task_id, "seen": tasks.seen, "asked": asked, "status": state.status}
        if state.result is not None:
            result = types.CallToolResult.model_validate(state.result)
            line["is_error"] = bool(result.is_error)
            line["text"] = "\n".join(b.text for b in result.content if b.type == "text")
            line["report"] = (result.content[0].meta or {}).get(REPORT_KEY) if result.content else None
        if state.error is not None:
            line["error"] = state.error
        return line


def main():
    mode = sys.argv[2]
    cancel_after_ms = int(sys.argv[3]) if mode == "cancel" else None
    print(json.dumps(asyncio.run(drive(sys.argv[1], mode, cancel_after_ms))))


if __name__ == "__main__":
    main()
