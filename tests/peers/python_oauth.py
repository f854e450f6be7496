"""Calls `board --oauth` with the official MCP Python SDK's OAuth client, knowing nothing but the
board's URL: the SDK finds the authorization server, registers, signs in with PKCE and refreshes
or steps up its token itself; the person's part (log in as alice, consent) is done here over
plain HTTP against the issuer's interaction endpoints (tests/peers/issuer/issuer.mjs).

    python_oauth.py URL [--grant SCOPES]... ACTION...

Each `--grant` is what the person consents to the next time consent is asked (space-separated
scopes; the last one is given again for any later consent). An ACTION is `call:TOOL` (a tool
call: `plan_week` with the focus "the release", approving every question the board asks),
`sleep:SECONDS`, or `pause` (prints a `paused` line and waits for a line on stdin). Prints one
JSON line per step as it happens: every HTTP exchange (`http`), each prompt the issuer shows, the
login, the consent, the code received, and each call's result. The Rust test that runs it checks
the lines.
"""

import argparse
import asyncio
import json
import sys
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
from mcp import Client, types
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

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
        self.browser = httpx2.AsyncClient(timeout=30)
        self.result = None

    async def redirect(self, authorization_url):
        step("authorize", resource=parse_qs(urlsplit(authorization_url).query).get("resource"))
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
        self.result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def callback(self):
        return self.result


async def logged(response):
    request = response.request
    step("http", method=request.method, url=str(request.url), status=response.status_code)


async def drive(url, grants, actions):
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
    async with Client(
        streamable_http_client(url, http_client=http),
        read_timeout_seconds=120,
        elicitation_callback=on_elicit,
    ) as client:
        for action in actions:
            kind, _, argument = action.partition(":")
            if kind == "call":
                arguments = {"focus": "the release"} if argument == "plan_week" else {}
                result = await client.call_tool(argument, arguments)
                step(
                    "result",
                    tool=argument,
                    is_error=bool(result.is_error),
                    text="\n".join(block.text for block in result.content if block.type == "text"),
                )
            elif kind == "sleep":
                await asyncio.sleep(float(argument))
            elif kind == "pause":
                step("paused")
                await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            else:
                raise ValueError(f"unknown action {action}")
    await person.browser.aclose()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--grant", action="append", default=[])
    parser.add_argument("actions", nargs="+")
    args = parser.parse_args()
    grants = [grant.split() for grant in args.grant] or [["board:read", "board:write", "board:admin"]]
    asyncio.run(drive(args.url, grants, args.actions))
    step("done")


if __name__ == "__main__":
    main()
