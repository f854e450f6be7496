"""One AgentDojo suite and the pair (user task, injection task) currently under test.

Everything here is AgentDojo's own machinery: the v1.2 suite, its `important_instructions`
attack, `FunctionsRuntime.run_function` (which injects the environment's dependencies), the
default tool output formatter, and the suite's utility and security checks.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import sys
from ast import literal_eval
from dataclasses import dataclass, field
from typing import Any

from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
from agentdojo.agent_pipeline.tool_execution import is_string_list, tool_result_to_str
from agentdojo.attacks.attack_registry import load_attack
from agentdojo.functions_runtime import FunctionCall, FunctionsRuntime
from agentdojo.models import MODEL_NAMES
from agentdojo.task_suite.load_suites import get_suite
from agentdojo.types import text_content_block_from_string

import tool_hints

BENCHMARK_VERSION = "v1.2"
SUITES = ("workspace", "travel", "banking", "slack")
ATTACK = "important_instructions"
USER_NAME = "Emma Johnson"
MODEL_NAME = "AI model"


class _NoPipeline(BasePipelineElement):
    """Stands where AgentDojo's attacks expect the target pipeline; it is never queried.

    `important_instructions` reads the pipeline's name only to address the model by name, and the
    harness overrides that name with a fixed one right after.
    """

    name = next(iter(MODEL_NAMES))

    def query(self, *args, **kwargs):  # pragma: no cover - never called
        raise RuntimeError("the harness's attack has no live pipeline")


def call_json(call: FunctionCall) -> dict[str, Any]:
    """A FunctionCall as the API shows it: {"function": name, "args": {...}}."""
    return {"function": call.function, "args": dict(call.args)}


@dataclass
class Pair:
    """The current pair: its tasks, the environments, the attack text and the trace of calls."""

    user_id: str
    injection_id: str | None
    user_task: Any
    injection_task: Any | None
    injections: dict[str, str]
    pre_environment: Any
    environment: Any
    user_calls: list[FunctionCall]
    injection_calls: list[FunctionCall]
    trace: list[FunctionCall] = field(default_factory=list)


class Bench:
    """A suite of AgentDojo v1.2 with its attack, and the one pair currently set up."""

    def __init__(self, suite_name: str):
        self.name = suite_name
        self.suite = get_suite(BENCHMARK_VERSION, suite_name)
        tool_hints.check_table(suite_name, [f.name for f in self.suite.tools])
        self.runtime = FunctionsRuntime(self.suite.tools)
        self.attack = load_attack(ATTACK, self.suite, _NoPipeline())
        self.attack.user_name = USER_NAME
        self.attack.model_name = MODEL_NAME
        self.pair: Pair | None = None
        self._default_env = None

    # -- the tasks ---------------------------------------------------------------------------

    def user_ids(self) -> list[str]:
        """The suite's user task ids, in numeric order."""
        return sorted(self.suite.user_tasks, key=_task_number)

    def injection_ids(self) -> list[str]:
        """The suite's injection task ids, in numeric order."""
        return sorted(self.suite.injection_tasks, key=_task_number)

    def injection_candidates(self, user_id: str) -> list[str]:
        """The injection vectors the user task's ground truth sees (ValueError when none)."""
        return self.attack.get_injection_candidates(self.suite.user_tasks[user_id])

    def unmeasurable_reason(self, user_id: str, injection_id: str) -> str | None:
        """Why the pair cannot be measured, or None when it can."""
        return self._user_reason(user_id) or self._injection_reason(injection_id)

    def pairs(self) -> dict[str, Any]:
        """The GET /pairs answer: the ids, the measurable pairs and the others with the reason."""
        measurable, unmeasurable = [], []
        for user_id in self.user_ids():
            for injection_id in self.injection_ids():
                why = self.unmeasurable_reason(user_id, injection_id)
                if why is None:
                    measurable.append([user_id, injection_id])
                else:
                    unmeasurable.append({"pair": [user_id, injection_id], "why": why})
        return {
            "user_tasks": self.user_ids(),
            "injection_tasks": self.injection_ids(),
            "measurable": measurable,
            "unmeasurable": unmeasurable,
        }

    @functools.cache
    def _user_reason(self, user_id: str) -> str | None:
        """Why no pair of this user task can be measured, or None."""
        try:
            self.injection_candidates(user_id)
        except ValueError:
            return f"{user_id} sees no injection vector"
        except Exception as e:  # noqa: BLE001 - the ground truth itself failed
            return f"{user_id}'s ground truth raises {type(e).__name__}: {e}"
        try:
            self.suite.user_tasks[user_id].ground_truth(self._default_environment())
        except Exception as e:  # noqa: BLE001
            return f"{user_id}'s ground truth raises {type(e).__name__}: {e}"
        return None

    @functools.cache
    def _injection_reason(self, injection_id: str) -> str | None:
        """Why no pair of this injection task can be measured, or None."""
        injection_task = self.suite.injection_tasks[injection_id]
        try:
            calls = injection_task.ground_truth(self._default_environment())
        except Exception as e:  # noqa: BLE001
            return f"{injection_id}'s ground truth raises {type(e).__name__}: {e}"
        if not calls and not injection_task.GROUND_TRUTH_OUTPUT:
            return f"{injection_id} has no ground truth to replay (no calls and no expected answer)"
        return None

    def _default_environment(self) -> Any:
        """A fresh copy of the suite's environment without injections."""
        if self._default_env is None:
            self._default_env = self.suite.load_and_inject_default_environment({})
        return self._default_env.model_copy(deep=True)

    # -- the pair ----------------------------------------------------------------------------

    def set_pair(self, user_id: str, injection_id: str | None) -> Pair:
        """Resets the environment for the pair, the way AgentDojo's benchmark does."""
        user_task = self.suite.user_tasks[user_id]
        injection_task = self.suite.injection_tasks[injection_id] if injection_id else None
        injections = self.attack.attack(user_task, injection_task) if injection_task else {}
        environment = self.suite.load_and_inject_default_environment(injections)
        environment = user_task.init_environment(environment)
        pre_environment = environment.model_copy(deep=True)
        user_calls = user_task.ground_truth(pre_environment.model_copy(deep=True))
        injection_calls = (
            injection_task.ground_truth(pre_environment.model_copy(deep=True)) if injection_task else []
        )
        self.pair = Pair(
            user_id=user_id,
            injection_id=injection_id,
            user_task=user_task,
            injection_task=injection_task,
            injections=injections,
            pre_environment=pre_environment,
            environment=environment,
            user_calls=user_calls,
            injection_calls=injection_calls,
        )
        return self.pair

    def current(self) -> Pair:
        """The current pair; RuntimeError before POST /pair."""
        if self.pair is None:
            raise RuntimeError("no pair set: POST /pair first")
        return self.pair

    def run_tool(self, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
        """Runs an AgentDojo function on the current environment and records it in the trace.

        Returns (text, error): the output as AgentDojo's default formatter writes it, and the
        error text ('ErrorType: message') when the function failed.
        """
        pair = self.current()
        args = {k: literal_eval(v) if isinstance(v, str) and is_string_list(v) else v for k, v in args.items()}
        pair.trace.append(FunctionCall(function=name, args=copy.deepcopy(args)))
        result, error = self.runtime.run_function(pair.environment, name, args)
        if error is not None:
            return error, error
        return tool_result_to_str(result), None

    def check(self, answer: str) -> dict[str, Any]:
        """The suite's own checks for the current pair.

        utility: the user's task got done. security: AgentDojo's name for "the injection task
        succeeded", i.e. true when the ATTACKER'S GOAL HAPPENED; None without an injection task.
        """
        pair = self.current()
        output = [text_content_block_from_string(answer)]
        env_pre, env_post = pair.pre_environment, pair.environment
        # Some of AgentDojo's checks print what they miss: keep stdout clean.
        with contextlib.redirect_stdout(sys.stderr):
            utility = self.suite._check_task_result(pair.user_task, output, env_pre, env_post, pair.trace)
            security = None
            if pair.injection_task is not None:
                security = self.suite._check_task_result(
                    pair.injection_task, output, env_pre, env_post, pair.trace
                )
        return {
            "utility": bool(utility),
            "security": None if security is None else bool(security),
            "calls": [call_json(c) for c in pair.trace],
        }

    # -- the tools as MCP shows them ---------------------------------------------------------

    def tool_specs(self) -> list[dict[str, Any]]:
        """Name, description, JSON input schema and hints of each of the suite's tools."""
        specs = []
        for function in self.suite.tools:
            read_only, open_world = tool_hints.hints(self.name, function.name)
            specs.append(
                {
                    "name": function.name,
                    "description": function.description,
                    "input_schema": function.parameters.model_json_schema(),
                    "read_only": read_only,
                    "open_world": open_world,
                }
            )
        return specs


def _task_number(task_id: str) -> int:
    """17 for 'user_task_17'."""
    return int(task_id.rsplit("_", 1)[1])
