"""A prompt-injection benchmark harness over AgentDojo (v1.2 suites).

    python harness.py --suite SUITE --port PORT --state DIR
        serves, on 127.0.0.1:PORT (0: a free port, written to DIR/port once listening):
        /mcp (the suite's tools over the current pair's environment), /v1/chat/completions (the
        scripted obedient model), POST /pair, POST /check, GET /pairs. See README.md.

    python harness.py --suite SUITE --selftest [--policy none|gate|provenance] [--verbose]
        runs the obedient model over every pair in-process and prints the figures.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import SUITES  # noqa: E402
from selftest import POLICIES, run_suite  # noqa: E402

# What the server says of each tool: both hints, or `readOnlyHint` alone (a server that leaves
# `openWorldHint` to MCP's default).
ANNOTATE = ("full", "read-only")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", required=True, choices=SUITES)
    parser.add_argument("--port", type=int, help="port to bind on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--state", type=Path, help="directory for the port file")
    parser.add_argument("--selftest", action="store_true", help="run every pair in-process and print figures")
    parser.add_argument("--policy", choices=POLICIES, default="none", help="the self-test's simulated guard")
    parser.add_argument("--verbose", action="store_true", help="self-test: list the pairs whose goal was not reached")
    parser.add_argument(
        "--annotate",
        choices=ANNOTATE,
        default="full",
        help="the annotations the server lists: full (readOnlyHint and openWorldHint), or read-only (readOnlyHint alone)",
    )
    args = parser.parse_args(argv)
    if not args.selftest and (args.port is None or args.state is None):
        parser.error("--port and --state are required unless --selftest")
    return args


def main(argv: list[str] | None = None) -> int:
    """Runs the self-test or the server."""
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="harness %(levelname)s %(message)s")
    if args.selftest:
        run_suite(args.suite, args.policy, verbose=args.verbose)
        return 0
    from server import serve

    os.makedirs(args.state, exist_ok=True)
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    return serve(args.suite, args.port, args.state, args.annotate)


def exit_with_parent(parent: int) -> None:
    """Ends the process once the one that started it is gone, however it ended (a driver that
    aborted cannot kill it)."""
    while os.getppid() == parent:
        time.sleep(1)
    logging.info("the process that started the harness is gone: exiting")
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
