"""An MCP server on the official Python SDK (`mcp` 2.x, MCP 2026-07-28) whose tools ask its
caller's person before they act, or sample its caller's model: the `with` server whose question
an orchestrator's caller answers, and whose sample its host makes, in tests/python_server.rs.

    python eliciting_server.py PORT

`book` asks how many seats through a resolver (`Elicit`): the SDK answers the call
`input_required` and goes on when the client calls again with the answer. Each trip booked is
counted, so the test can see that a question asked over several rounds books once. `brief`
samples the client's model for a one-line brief of a city (`Sample`), counted the same way.
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, ElicitationResult, Resolve, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent

import sdk_server

PORT = int(sys.argv[1])

server = sdk_server.make("booking", PORT)

BOOKED = []


class Seats(BaseModel):
    seats: int


def ask_seats(city: str) -> Elicit[Seats]:
    return Elicit(f"How many seats to {city}?", Seats)


@server.tool()
def book(city: str, answer: Annotated[ElicitationResult[Seats], Resolve(ask_seats)]) -> str:
    """Books a trip to a city, asking the person how many seats."""
    if answer.action != "accept":
        return f"Not booked: the person {answer.action}d"
    BOOKED.append(city)
    return f"Booked {answer.data.seats} seats to {city} (trip {len(BOOKED)})"


BRIEFED = []


def sample_brief(city: str) -> Sample:
    asked = SamplingMessage(role="user", content=TextContent(type="text", text=f"Brief me on {city}."))
    return Sample([asked], max_tokens=64)


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
