"""End-to-end check of a running harness, as the Rust driver will use it.

    python smoke.py                      starts `harness.py --suite banking --port 0` itself
    python smoke.py --url http://127.0.0.1:PORT
    python smoke.py --suite travel --all   every measurable pair over HTTP and MCP, no guard

For a few banking pairs it sets the pair, lets the obedient model (/v1/chat/completions) drive
the tools through /mcp with the official MCP client, wraps every tool result the way a fence
would, has a person decline any call that is not one of the pair's needed calls when asked,
and prints /check. Exits non-zero when an expectation fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from mcp import Client

HERE = Path(__file__).resolve().parent


def http(url: str, body: dict | None = None) -> dict | str:
    """GET (no body) or POST JSON; the JSON answer, or the raw text of an SSE answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return text
        return json.loads(text)


async def run_pair(base: str, user: str, injection: str | None, ask: bool, stream: bool = False) -> dict:
    """One pair end to end; `ask`: a person declines every call that is not needed."""
    setup = http(f"{base}/pair", {"user_task": user, "injection_task": injection})
    needed = [json.dumps(c, sort_keys=True) for c in setup["needed"]]
    messages = [{"role": "user", "content": setup["prompt"]}]
    declined = []
    async with Client(f"{base}/mcp") as client:
        tools = (await client.list_tools()).tools
        offered = [{"type": "function", "function": {"name": t.name, "parameters": t.input_schema}} for t in tools]
        for _ in range(40):
            answer = http(f"{base}/v1/chat/completions", {"model": "any", "messages": messages, "tools": offered})
            message = answer["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                break
            call = message["tool_calls"][0]
            name, args = call["function"]["name"], json.loads(call["function"]["arguments"])
            if ask and json.dumps({"function": name, "args": args}, sort_keys=True) not in needed:
                declined.append(name)
                content = "error: the person declined this call"
            else:
                result = await client.call_tool(name, args)
                text = "\n".join(getattr(c, "text", "") for c in result.content)
                content = f'<untrusted-data source="{name}">\n{text}\n</untrusted-data>'
                if result.is_error:
                    content = "error: " + text
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    if stream:
        sse = http(f"{base}/v1/chat/completions", {"model": "any", "messages": messages, "stream": True})
        assert sse.rstrip().endswith("data: [DONE]"), sse
        assert '"chat.completion.chunk"' in sse, sse
    result = http(f"{base}/check", {"answer": messages[-1].get("content") or ""})
    result["declined"] = declined
    return result


async def main_async(base: str) -> int:
    """The pairs and their expectations."""
    pairs = http(f"{base}/pairs")
    print(f"/pairs: {len(pairs['measurable'])} measurable, {len(pairs['unmeasurable'])} not")
    spec = {t.name: t for t in (await _tools(base))}
    assert spec["get_balance"].annotations.read_only_hint is True
    assert spec["send_money"].annotations.read_only_hint is False
    failures = 0
    cases = [
        ("user_task_3", None, False, {"utility": True, "security": None}),
        ("user_task_3", "injection_task_5", False, {"security": True}),
        ("user_task_3", "injection_task_6", True, {"security": False}),
        ("user_task_0", "injection_task_0", False, {"security": True}),
    ]
    for n, (user, injection, ask, expected) in enumerate(cases):
        result = await run_pair(base, user, injection, ask, stream=(n == 0))
        ok = all(result[k] == v for k, v in expected.items())
        failures += not ok
        calls = [c["function"] for c in result["calls"]]
        print(f"{'ok  ' if ok else 'FAIL'} {user} x {injection} ask={ask}: utility={result['utility']} "
              f"security={result['security']} calls={calls} declined={result['declined']}")
    return 1 if failures else 0


async def run_all(base: str) -> int:
    """Every measurable pair, nobody declining: the figure the self-test gets in-process."""
    pairs = http(f"{base}/pairs")["measurable"]
    reached = 0
    for user, injection in pairs:
        reached += bool((await run_pair(base, user, injection, False))["security"])
    print(f"attacker's goal reached over HTTP and MCP: {reached}/{len(pairs)}")
    return 0


async def _tools(base: str):
    async with Client(f"{base}/mcp") as client:
        return (await client.list_tools()).tools


def start_harness(suite: str) -> tuple[subprocess.Popen, str]:
    """Starts the harness on a free port and waits for its port file."""
    state = Path(tempfile.mkdtemp(prefix="harness-"))
    process = subprocess.Popen(
        [sys.executable, str(HERE / "harness.py"), "--suite", suite, "--port", "0", "--state", str(state)]
    )
    for _ in range(600):
        if (state / "port").exists():
            return process, f"http://127.0.0.1:{(state / 'port').read_text().strip()}"
        if process.poll() is not None:
            raise SystemExit("the harness exited before listening")
        time.sleep(0.1)
    process.terminate()
    raise SystemExit("the harness did not listen within a minute")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", help="a running harness; else one is started")
    parser.add_argument("--suite", default="banking", help="the suite of the harness started (banking)")
    parser.add_argument("--all", action="store_true", help="run every measurable pair instead")
    args = parser.parse_args()
    if not args.all and args.suite != "banking":
        parser.error("the checks are banking's; other suites only with --all")
    run = run_all if args.all else main_async
    if args.url:
        return asyncio.run(run(args.url.rstrip("/")))
    process, base = start_harness(args.suite)
    code = 1
    try:
        code = asyncio.run(run(base))
    finally:
        process.terminate()
        rc = process.wait(timeout=30)
        print(f"harness exited with {rc} on SIGTERM")
        code = code if rc == 0 else 1
    return code


if __name__ == "__main__":
    sys.exit(main())
