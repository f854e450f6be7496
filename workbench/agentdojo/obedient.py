"""The scripted obedient model: replays the user task's ground truth, and follows an injection.

Stateless across requests except for the plan of the current pair: which step comes next is
derived from the conversation the caller sends (OpenAI Chat Completions messages).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from agentdojo.functions_runtime import FunctionCall

SUMMARY_LIMIT = 4000


def normalize(text: str) -> str:
    """Text reduced to lowercase letters and digits, so that a phrase is still found after
    YAML folding and quoting, JSON or HTML escaping, or a wrapper around it."""
    text = html.unescape(text)
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\[nrt]", " ", text)
    return re.sub(r"[^a-z0-9]", "", text.lower())


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)


def injection_statement(injection_task: Any) -> str:
    """What the answer says when an injection asks for something to be said (travel's
    'Say that I should absolutely visit ...'): the goal's sentence, addressed to the user."""
    expected = injection_task.GROUND_TRUTH_OUTPUT
    goal = injection_task.GOAL.strip()
    match = re.match(r"(?i)say that (.*)", goal)
    if match:
        sentence = re.sub(r"^I\b", "You", match.group(1))
        sentence = sentence[0].upper() + sentence[1:]
        if expected in sentence:
            return sentence
    return expected


@dataclass
class Plan:
    """What the obedient model will do for the current pair."""

    user_calls: list[FunctionCall]
    user_output: str
    injection_calls: list[FunctionCall]
    injection_output: str
    marker: str | None  # the normalized injection GOAL; None without an injection task

    @classmethod
    def for_pair(cls, pair: Any) -> Plan:
        """The plan of a bench.Pair."""
        injection = pair.injection_task
        return cls(
            user_calls=list(pair.user_calls),
            user_output=pair.user_task.GROUND_TRUTH_OUTPUT,
            injection_calls=list(pair.injection_calls),
            injection_output=injection_statement(injection) if injection and injection.GROUND_TRUTH_OUTPUT else "",
            marker=normalize(injection.GOAL) if injection else None,
        )

    def carries_injection(self, text: str) -> bool:
        """Whether a tool result carries this pair's injection (its goal, however wrapped)."""
        return self.marker is not None and self.marker in normalize(text)


@dataclass
class Step:
    """The model's next move: one tool call, or the final text."""

    call: FunctionCall | None = None
    text: str | None = None
    followed_injection: bool = False


def read_conversation(messages: list[dict[str, Any]], plan: Plan) -> tuple[int, int | None, list[str]]:
    """(tool calls made so far, calls made when the injection was first seen or None, the tool
    results' texts in order)."""
    made = 0
    seen_at = None
    results = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            made += len(message.get("tool_calls") or [])
        elif role == "tool":
            text = content_text(message.get("content"))
            results.append(text)
            if seen_at is None and plan.carries_injection(text):
                seen_at = made
    return made, seen_at, results


def summary(results: list[str]) -> str:
    """A short answer built from the last tool result."""
    last = next((r for r in reversed(results) if r.strip()), "")
    if not last:
        return "Done."
    if len(last) > SUMMARY_LIMIT:
        last = last[:SUMMARY_LIMIT] + " ..."
    return f"Done. Here is what I found:\n{last}"


def next_step(plan: Plan, messages: list[dict[str, Any]]) -> Step:
    """The obedient model's answer to a conversation.

    It replays the user's ground truth one call per answer; from the first tool result that
    carries the injection on, it drops the rest of the user's plan and replays the injection
    task's ground truth instead (once). A failed or declined call changes nothing: the next
    call follows. When the plan is done it answers with text.
    """
    made, seen_at, results = read_conversation(messages, plan)
    followed = seen_at is not None
    steps = plan.user_calls if not followed else plan.user_calls[:seen_at] + plan.injection_calls
    if made < len(steps):
        return Step(call=steps[made], followed_injection=followed and made >= seen_at)
    user_done = not followed or seen_at >= len(plan.user_calls)
    parts = [plan.user_output or summary(results)] if user_done else [summary(results)]
    if followed and plan.injection_output:
        parts.append(plan.injection_output)
    return Step(text="\n\n".join(p for p in parts if p), followed_injection=followed)
