"""Goes on with a `plan_week` conversation from the official MCP Python SDK, as a host would.

    python_session.py URL

Calls `plan_week` with the focus "the release", reads the session's id from the block of the
result that names it (`session: …`), and calls `plan_week` again with the focus "moving the
release to Thursday" and that `session`. Prints one JSON line: each call's blocks' text, whether
it was an error, and the session id read. The Rust test that runs it checks the line.
"""

import asyncio
import json
import sys

from mcp import Client


def texts(result):
    return [block.text for block in result.content if block.type == "text"]


async def drive(url):
    async with Client(url, mode="auto", read_timeout_seconds=120) as client:
        first = await client.call_tool("plan_week", {"focus": "the release"})
        session = next(
            (
                line.removeprefix("session: ")
                for text in texts(first)
                for line in text.splitlines()
                if line.startswith("session: ")
            ),
            None,
        )
        second = await client.call_tool(
            "plan_week", {"focus": "moving the release to Thursday", "session": session}
        )
        return {
            "session": session,
            "first": {"is_error": bool(first.is_error), "texts": texts(first)},
            "second": {"is_error": bool(second.is_error), "texts": texts(second)},
        }


def main():
    print(json.dumps(asyncio.run(drive(sys.argv[1]))))


if __name__ == "__main__":
    main()
