"""Calls `board --oauth` (built with `legacy-spec`) with the OAuth client of the official MCP
Python SDK 1.x (`mcp` 1.30.0, MCP 2025-11-25), knowing nothing but the board's URL: the SDK finds
the authorization server, registers, signs in with PKCE and steps up its token itself; the
person's part (log in as alice, consent) is done here over plain HTTP against the issuer's
interaction endpoints (tests/peers/issuer/issuer.mjs), as python_oauth.py does for the 2.x SDK.

    python_legacy_oauth.py URL [--grant SCOPES]... [--within SECONDS] call:TOOL...

Each `--grant` is what the person consents to the next time consent is asked (space-separated
scopes; the last one is given again for any later consent). Each `call:TOOL` calls a tool
(`plan_week` with the focus "the release", approving every question the board asks: under
2025-11-25 an elicitation request from the server). With `--within`, a call that has not ended
after SECONDS is given up: it prints a `stuck` line, then `done`, and the process ends there,
without the calls after it nor closing the session (which would hang as the call did). Prints
one JSON line per step as it happens: every HTTP exchange (`http`), each prompt the issuer shows,
the login, the consent, the code received, each question asked, and each call's result. The Rust
test that runs it checks the lines.
"""

import argparse
import asyncio
import json
import os
from datetime import timedelta
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio
import httpx
from mcp import ClientSession, types
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientMetadata

REDIRECT_URI = "http://127.0.0.1:9/callback"
LOGIN = {"login": "alice", "password": "wonderland"}


def step(kind, **fields):
    """Prints one step as a JSON line, at once."""
    print(json.dumps({"step": kind, **fields}), flush=True)


class MemoryStorage:
    """The tokens and the registration, kept for this run only."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Person:
    """The person at the browser: follows the authorization request through the issuer's
    interactions, with one cookie jar for the whole run, until the redirect to REDIRECT_URI."""

    def __init__(self, grants):
        self.grants = grants
        self.browser = httpx.AsyncClient(timeout=30)
        self.result = None

    async def redirect(self, authorization_url):
        query = parse_qs(urlsplit(authorization_url).query)
        step("authorize", resource=query.get("resource"), scope=query.get("scope"))
        url = authorization_url
        response = await self.browser.get(url)
        while True:
            if response.is_redirect:
                url = urljoin(url, response.headers["location"])
                if url.startswith(REDIRECT_URI):
                    return self.received(url)
                response = await self.browser.get(url)
            elif response.status_code == 200 and "prompt" in response.json():
                response = await self.answer(url, response.json())
            else:
                raise RuntimeError(f"{url}: {response.status_code} {response.text}")

    async def answer(self, url, prompt):
        step("prompt", prompt=prompt["prompt"], scopes=prompt["scopes"], resource=prompt["resource"])
        if prompt["prompt"] == "login":
            step("login", login=LOGIN["login"])
            return await self.browser.post(f"{url}/login", json=LOGIN)
        granted = self.grants.pop(0) if len(self.grants) > 1 else self.grants[0]
        step("consent", granted=granted)
        return await self.browser.post(f"{url}/consent", json={"scopes": granted})

    def received(self, url):
        query = {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}
        if "code" not in query:
            raise RuntimeError(f"the authorization failed: {query}")
        step("code", iss=query.get("iss"))
        self.result = (query["code"], query.get("state"))

    async def callback(self):
        """The 1.x SDK's callback answer: the code and the state (it does not read `iss`)."""
        return self.result


async def logged(response):
    request = response.request
    step("http", method=request.method, url=str(request.url), status=response.status_code)


async def drive(url, grants, tools, within):
    person = Person(grants)
    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="ladoga-peer-test",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryStorage(),
        redirect_handler=person.redirect,
        callback_handler=person.callback,
    )

    async def on_elicit(context, params):
        step("asked", message=params.message)
        return types.ElicitResult(action="accept", content={})

    http = create_mcp_http_client(auth=auth)
    http.event_hooks["response"] = [logged]
    async with http, streamable_http_client(url, http_client=http) as (read, write, _session_id):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=timedelta(seconds=120),
            elicitation_callback=on_elicit,
        ) as session:
            await session.initialize()
            for tool in tools:
                arguments = {"focus": "the release"} if tool == "plan_week" else {}
                with anyio.move_on_after(within) as bound:
                    result = await session.call_tool(tool, arguments)
                if bound.cancelled_caught:
                    # Closing the session hangs as the call did: the process ends here.
                    step("stuck", tool=tool, seconds=within)
                    step("done")
                    os._exit(0)
                step(
                    "result",
                    tool=tool,
                    is_error=bool(result.isError),
                    text="\n".join(block.text for block in result.content if block.type == "text"),
                )
    await person.browser.aclose()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--grant", action="append", default=[])
    parser.add_argument("--within", type=float, default=None)
    parser.add_argument("actions", nargs="+")
    args = parser.parse_args()
    grants = [grant.split() for grant in args.grant] or [["board:read", "board:write", "board:admin"]]
    tools = []
    for action in args.actions:
        kind, _, tool = action.partition(":")
        if kind != "call" or not tool:
            raise ValueError(f"unknown action {action}")
        tools.append(tool)
    asyncio.run(drive(args.url, grants, tools, args.within))
    step("done")


if __name__ == "__main__":
    main()
