"""The benchmark scenario on PydanticAI's agent loop.

A brief, three turns of three tool calls, then the answer, with PydanticAI's OpenAI Chat
Completions model talking to the scripted server (`bench-server`) at the URL given as the first
argument. Prints one JSON object: the mean time per orchestration at concurrency 1, and
orchestrations per second at concurrency 1 and 64: the orchestrations that end within five
seconds, after a second of warm-up, the same procedure as the Rust side (at concurrency 64, 20
seconds after 10).
"""

import asyncio
import json
import sys
import time
from importlib.metadata import version

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

SYSTEM = "You answer with the tools you have."
BRIEF = "When is the deadline?"
ANSWER = "The deadline is Friday; 42 items; noted."
MEASURED = 5.0
# At concurrency 64 one round of orchestrations takes longer than the Rust sides' whole window
# here (Python spends its CPU time on each), so the warm-up lets the first round end, and the
# window is long enough to hold several.
WARM_64 = 10.0
MEASURED_64 = 20.0


def agent(url: str) -> Agent:
    provider = OpenAIProvider(base_url=f"{url}/v1", api_key="unused")
    model = OpenAIChatModel("scripted", provider=provider)
    agent = Agent(model, system_prompt=SYSTEM)

    @agent.tool_plain
    def lookup(key: str) -> str:
        """Looks a key up"""
        return f"{key}: Friday"

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Adds two numbers"""
        return a + b

    @agent.tool_plain
    def echo(text: str) -> str:
        """Says the text back"""
        return text

    return agent


async def orchestrate(agent: Agent) -> None:
    result = await agent.run(BRIEF)
    assert result.output == ANSWER, result.output


async def closed_loop(agent: Agent, workers: int, warm_up: float, measured: float) -> int:
    """How many orchestrations end within `measured` seconds after `warm_up`, with `workers`
    loops at once."""
    loop = asyncio.get_running_loop()
    warm = loop.time() + warm_up
    end = warm + measured
    done = 0

    async def worker() -> None:
        nonlocal done
        while True:
            await orchestrate(agent)
            if warm <= loop.time() <= end:
                done += 1

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    await asyncio.sleep(end - loop.time())
    counted = done
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return counted


async def main() -> None:
    bench = agent(sys.argv[1])
    await orchestrate(bench)
    one = await closed_loop(bench, 1, 1.0, MEASURED)
    many = await closed_loop(bench, 64, WARM_64, MEASURED_64)
    print(json.dumps({
        "framework": "PydanticAI",
        "version": f"pydantic-ai-slim {version('pydantic-ai-slim')}, Python {sys.version.split()[0]}",
        "wire": "OpenAI Chat Completions over loopback HTTP (httpx), not streamed",
        "mean_ns_per_orchestration": MEASURED * 1e9 / one,
        "per_second_1": one / MEASURED,
        "per_second_64": many / MEASURED_64,
    }))


if __name__ == "__main__":
    asyncio.run(main())
