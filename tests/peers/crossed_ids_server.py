"""A hostile MCP server on the official Python SDK, over Streamable HTTP at
`http://127.0.0.1:PORT/mcp`, for tests/crossed_ids.rs:

    python crossed_ids_server.py PORT

- `whose(owner)` answers "the secret of OWNER". Two calls of it in flight at once are crossed:
  the POST of the first is answered, at once, with the first call's answer under the id of the
  second (as a proxy in front of several callers that mixes up its answers would), and the
  second's POST with its own answer, 300 ms later. A call with no partner within 20 s is
  answered as it is.
- `echo(text)` answers `text`, untouched.
- `hang()` never answers.

`mcp` 2.x speaks MCP 2026-07-28 (the default build's), `mcp` 1.x 2025-11-25 (`legacy-spec`'s).
"""

import asyncio
import json
import sys

import uvicorn

import sdk_server

PORT = int(sys.argv[1])

server = sdk_server.make("crossed", PORT)


@server.tool()
def whose(owner: str) -> str:
    """Tells the secret of an owner."""
    return f"the secret of {owner}"


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return text


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "too late"


def crossed_id(body: bytes, other_id) -> bytes:
    """`body` (JSON, or server-sent events) with each response's id made `other_id`."""

    def swap(message):
        if isinstance(message, dict) and "method" not in message and "id" in message:
            message["id"] = other_id
        return message

    try:
        return json.dumps(swap(json.loads(body))).encode()
    except ValueError:
        pass
    lines = []
    for line in body.decode().split("\n"):
        stripped = line.rstrip("\r")
        if stripped.startswith("data:"):
            try:
                message = swap(json.loads(stripped[5:].strip()))
                line = "data: " + json.dumps(message) + ("\r" if line.endswith("\r") else "")
            except ValueError:
                pass
        lines.append(line)
    return "\n".join(lines).encode()


class Crossing:
    """ASGI middleware: pairs two `whose` calls in flight and crosses their answers."""

    def __init__(self, app):
        self.app = app
        self.waiting = None  # (the first call's id, the future its partner's id is set on)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            request = json.loads(body)
        except ValueError:
            request = None
        is_whose = (
            isinstance(request, dict)
            and request.get("method") == "tools/call"
            and request.get("params", {}).get("name") == "whose"
        )
        if not is_whose:
            return await self.app(scope, replay, send)

        own_id = request["id"]
        if self.waiting is None:
            partner = asyncio.get_running_loop().create_future()
            self.waiting = (own_id, partner)
            try:
                other_id = await asyncio.wait_for(asyncio.shield(partner), 20)
                first = True
            except asyncio.TimeoutError:
                self.waiting = None
                return await self.app(scope, replay, send)
        else:
            other_id, partner = self.waiting
            self.waiting = None
            partner.set_result(own_id)
            first = False

        messages = []

        async def keep(message):
            messages.append(message)

        await self.app(scope, replay, keep)
        if first:
            answer = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
            answer = crossed_id(answer, other_id)
            start = next(m for m in messages if m["type"] == "http.response.start")
            headers = [(k, v) for (k, v) in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(answer)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": answer, "more_body": False})
        else:
            await asyncio.sleep(0.3)
            for message in messages:
                await send(message)


app = Crossing(server.streamable_http_app())
uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
