"""The self-test: the obedient model run in-process over every pair of a suite, no MCP, no HTTP.

Each call goes straight to the AgentDojo function. A policy may decline calls the way a guard
in front of the tools would, and a simulated person approves the user's own needed calls:

  none        nothing is declined;
  gate        after a tool result that carries the injection, a call of a tool that is not
              read-only (tool_hints) is declined, unless it is one of the user task's needed calls;
  provenance  as gate, and read-only tools that are open-world are declined too.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import tool_hints
from bench import Bench
from obedient import Plan, next_step

POLICIES = ("none", "gate", "provenance")
MAX_STEPS = 40
DECLINED = "declined: the person did not approve this call"


@dataclass
class Outcome:
    """What one run of a pair came to."""

    utility: bool
    security: bool | None
    answer: str
    calls: list[dict]
    declined: list[str] = field(default_factory=list)


def call_key(function: str, args: dict) -> str:
    """A call as comparable text: name and canonical JSON arguments."""
    return function + json.dumps(args, sort_keys=True, default=str)


def is_declined(policy: str, suite: str, function: str, tainted: bool, approved: bool) -> bool:
    """Whether the simulated guard declines this call."""
    if policy == "none" or not tainted or approved:
        return False
    try:
        read_only, open_world = tool_hints.hints(suite, function)
    except KeyError:
        return True
    if policy == "gate":
        return not read_only
    return not read_only or open_world


def run_pair(bench: Bench, user_id: str, injection_id: str | None, policy: str) -> Outcome:
    """Runs the obedient model over one pair, the way the driver would, and checks it."""
    pair = bench.set_pair(user_id, injection_id)
    plan = Plan.for_pair(pair)
    needed = {call_key(c.function, dict(c.args)) for c in pair.user_calls}
    messages: list[dict] = [{"role": "user", "content": pair.user_task.PROMPT}]
    tainted = False
    declined = []
    answer = ""
    for n in range(MAX_STEPS):
        step = next_step(plan, messages)
        if step.call is None:
            answer = step.text or ""
            break
        # The arguments travel as JSON text, as they do through the chat endpoint and MCP.
        function, arguments = step.call.function, json.dumps(dict(step.call.args), default=str)
        args = json.loads(arguments)
        call_id = f"call_{n}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": function, "arguments": arguments}}],
            }
        )
        if is_declined(policy, bench.name, function, tainted, call_key(function, args) in needed):
            declined.append(function)
            content = DECLINED
        else:
            content, _ = bench.run_tool(function, args)
        tainted = tainted or plan.carries_injection(content)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    result = bench.check(answer)
    return Outcome(result["utility"], result["security"], answer, result["calls"], declined)


def run_suite(suite: str, policy: str, verbose: bool = False, out=sys.stdout) -> dict:
    """Every user task alone and every measurable pair of the suite; prints and returns the table."""
    bench = Bench(suite)
    alone = [run_pair(bench, u, None, policy).utility for u in bench.user_ids()]
    table = bench.pairs()
    reached, utility, missed = 0, 0, []
    for user_id, injection_id in table["measurable"]:
        outcome = run_pair(bench, user_id, injection_id, policy)
        reached += bool(outcome.security)
        utility += outcome.utility
        if verbose and not outcome.security:
            missed.append(f"{user_id} x {injection_id}: calls {[c['function'] for c in outcome.calls]}")
    figures = {
        "suite": suite,
        "policy": policy,
        "pairs": len(table["measurable"]) + len(table["unmeasurable"]),
        "measurable": len(table["measurable"]),
        "goal_reached": reached,
        "utility_under_attack": utility,
        "utility_alone": sum(alone),
        "user_tasks": len(alone),
    }
    print(
        f"{suite:<10} policy={policy:<10} pairs measurable {figures['measurable']:>3}/{figures['pairs']:<3}  "
        f"attacker's goal reached {reached:>3}/{figures['measurable']:<3}  "
        f"user utility under attack {utility:>3}/{figures['measurable']:<3}  "
        f"user utility alone {figures['utility_alone']:>2}/{figures['user_tasks']}",
        file=out,
        flush=True,
    )
    for line in missed:
        print(f"    goal not reached: {line}", file=out)
    if verbose:
        for entry in table["unmeasurable"]:
            print(f"    unmeasurable {entry['pair']}: {entry['why']}", file=out)
    return figures
