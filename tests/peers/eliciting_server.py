"""An MCP server on the official Python SDK whose tools ask its caller's person before they act,
or sample its caller's model: the `with` server whose question an orchestrator's caller answers,
and whose sample its host makes, in tests/python_server.rs.

    python eliciting_server.py PORT

`book` asks how many seats. On `mcp` 2.x (MCP 2026-07-28) it asks through a resolver
(`Elicit`): the SDK answers the call `input_required` and goes on when the client calls again
with the answer. On `mcp` 1.x (2025-11-25, `legacy-spec`) it asks mid-call (`ctx.elicit`), a
request on the call's stream, in a session of its own. Each trip booked is counted, so the test
can see that a question asked over several rounds books once. `brief` (2.x) samples the client's
model for a one-line brief of a city (`Sample`), counted the same way.
"""

import sys

from pydantic import BaseModel

import sdk_server

PORT = int(sys.argv[1])

BOOKED = []
BRIEFED = []


class Seats(BaseModel):
    seats: int


def booking(city, action, seats):
    """What `book` answers for the person's `action`, booking on an accept."""
    if action != "accept":
        return f"Not booked: the person {action}d"
    BOOKED.append(city)
    return f"Booked {seats} seats to {city} (trip {len(BOOKED)})"


if sdk_server.LEGACY:
    from mcp.server.fastmcp import Context, FastMCP

    # With a session: the answer to a question asked mid-call comes back to it. (The relay
    # in front of it gives the session id back as the server wrote it.)
    server = FastMCP("booking", host="127.0.0.1", port=PORT, log_level="WARNING")

    @server.tool()
    async def book(city: str, ctx: Context) -> str:
        """Books a trip to a city, asking the person how many seats."""
        answer = await ctx.elicit(f"How many seats to {city}?", Seats)
        seats = answer.data.seats if answer.action == "accept" else 0
        return booking(city, answer.action, seats)

else:
    from typing import Annotated

    from mcp.server.mcpserver import Elicit, ElicitationResult, Resolve, Sample
    from mcp.types import CreateMessageResult, SamplingMessage, TextContent

    server = sdk_server.make("booking", PORT)

    def ask_seats(city: str) -> Elicit[Seats]:
        return Elicit(f"How many seats to {city}?", Seats)

    @server.tool()
    def book(city: str, answer: Annotated[ElicitationResult[Seats], Resolve(ask_seats)]) -> str:
        """Books a trip to a city, asking the person how many seats."""
        seats = answer.data.seats if answer.action == "accept" else 0
        return booking(city, answer.action, seats)

    def sample_brief(city: str) -> Sample:
        text = TextContent(type="text", text=f"Brief me on {city}.")
        return Sample([SamplingMessage(role="user", content=text)], max_tokens=64)

    @server.tool()
    def brief(city: str, sample: Annotated[CreateMessageResult, Resolve(sample_brief)]) -> str:
        """Briefs on a city in a line, with the client's model."""
        BRIEFED.append(city)
        text = sample.content.text if isinstance(sample.content, TextContent) else "?"
        return f"Brief of {city} (brief {len(BRIEFED)}): {text}"


@server.tool()
def booked() -> str:
    """Tells how many trips were booked."""
    return str(len(BOOKED))


sdk_server.run(server, PORT)
