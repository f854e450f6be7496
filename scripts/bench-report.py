#!/usr/bin/env python3
"""Writes the benchmark figures into docs/benchmarks.md and draws docs/benchmarks.svg.

Reads the raw results scripts/bench wrote (the folder is the first argument) and criterion's
estimates under target/criterion/. Replaces what lies between the `<!-- results:start -->` and
`<!-- results:end -->` markers of docs/benchmarks.md; the prose around them, and the sections
kept by hand after them, are kept. Draws the plot with matplotlib, pinned in
scripts/bench-report.requirements.txt, which scripts/bench installs into .bench/plot/:

    .bench/plot/bin/python scripts/bench-report.py target/bench-results
"""

import json
import statistics
import sys
from pathlib import Path

try:
    import matplotlib
except ImportError:
    sys.exit("bench-report: matplotlib is missing; scripts/bench installs it into .bench/plot/, "
             "then run .bench/plot/bin/python scripts/bench-report.py")

matplotlib.use("svg")
from matplotlib import pyplot, ticker  # noqa: E402 (after the backend is chosen)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
PLOT = ROOT / "docs" / "benchmarks.svg"
START, END = "<!-- results:start -->", "<!-- results:end -->"


def load(folder, name):
    path = folder / name
    return json.loads(path.read_text()) if path.exists() else None


def criterion(group, name):
    path = ROOT / "target" / "criterion" / group / name / "new" / "estimates.json"
    if not path.exists():
        return None
    estimates = json.loads(path.read_text())
    mean = estimates["mean"]
    return {
        "mean": mean["point_estimate"],
        "low": mean["confidence_interval"]["lower_bound"],
        "high": mean["confidence_interval"]["upper_bound"],
    }


def us(ns):
    return f"{ns / 1000:,.1f} µs"


def count(value):
    return f"{value:,.0f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def overhead(folder, out):
    counts = load(folder, "overhead.json")
    ladoga = criterion("orchestration", "loop_ladoga")
    by_hand = criterion("orchestration", "loop_byhand")
    out.append("### 1. Overhead against the limit (in process)")
    if not (counts and ladoga and by_hand):
        out.append("Not measured in this run.")
        return None
    turns = counts["turns"]
    rows = []
    for label, name, timed in [("Ladoga `#[orchestrator]`", "loop_ladoga", ladoga),
                               ("the seed's loop by hand", "loop_byhand", by_hand)]:
        spent = counts["per_orchestration"][name]
        rows.append([
            label,
            f"{us(timed['mean'])} ({us(timed['low'])} to {us(timed['high'])})",
            us(timed["mean"] / turns),
            count(spent["allocations"]),
            count(spent["allocations"] / turns),
            f"{spent['bytes'] / 1024:,.1f} KiB",
        ])
    out.append(table(["loop", "time / orchestration (95 % CI)", "time / turn",
                      "allocations / orchestration", "allocations / turn", "bytes allocated"],
                     rows))
    ratio = ladoga["mean"] / by_hand["mean"]
    extra = counts["per_orchestration"]["loop_ladoga"]["allocations"] - \
        counts["per_orchestration"]["loop_byhand"]["allocations"]
    out.append("")
    out.append(f"Ladoga / by hand in wall time: {ratio:.3f} ({(ratio - 1) * 100:+.1f} %; the goal "
               f"is within 5 %, and on a shared machine wall time moves more than that from run "
               f"to run: the instruction counts below do not); {extra:+,.0f} allocations per "
               f"orchestration. A turn is one model answer: {turns} per orchestration, 9 tool "
               f"calls in all.")
    rates = counts.get("concurrency")
    if rates:
        out.append("")
        rows = []
        for workers in ["1", "64"]:
            rate = rates[workers]
            rows.append([workers, count(rate["ladoga_per_second"]),
                         count(rate["by_hand_per_second"]), f"{rate['ratio']:.3f}"])
        out.append(table(["in flight", "Ladoga: orchestrations/s", "by hand: orchestrations/s",
                          "Ladoga / by hand (median of the rounds' ratios)"], rows))
        out.append("")
        out.append(f"Closed loops, each loop in turn in each of {rates['1']['rounds']} rounds "
                   f"(the first of the two alternating), one second of warm-up and five "
                   f"measured; medians.")
    counted = load(folder, "instructions.json")
    if counted:
        ours = counted["per_orchestration"]["loop_ladoga"]
        hand = counted["per_orchestration"]["loop_byhand"]
        out.append("")
        out.append(table(["loop", "instructions / orchestration (callgrind)", "per turn"],
                         [["Ladoga `#[orchestrator]`", count(ours), count(ours / turns)],
                          ["the seed's loop by hand", count(hand), count(hand / turns)]]))
        out.append("")
        out.append(f"Ladoga / by hand in instructions: **{ours / hand:.4f}** "
                   f"({(ours / hand - 1) * 100:+.2f} %), over {counted['count']} orchestrations "
                   f"each, on one thread.")
        metered = counted["per_orchestration"].get("loop_ladoga_metrics")
        if metered:
            out.append("")
            out.append(f"With a Prometheus recorder installed (`ladoga::metrics` recording): "
                       f"{count(metered)} instructions per orchestration, **{metered / ours:.4f}** "
                       f"of Ladoga's without one ({(metered / ours - 1) * 100:+.2f} %; the goal "
                       f"is within 1 %).")
    return ratio


def wire(folder, out):
    ours = load(folder, "wire.json")
    rig = load(folder, "rig.json")
    pydantic = load(folder, "pydantic.json")
    out.append("### 2 and 3. Against rig and PydanticAI (loopback HTTP, the same scripted server)")
    if not ours:
        out.append("Not measured in this run.")
        return None
    per = ours["requests_per_orchestration"]
    raw = ours["svir_raw_request"]
    rows = [[
        "Ladoga (svir's client)",
        us(ours["ladoga"]["1"]["mean_ns"]),
        count(ours["ladoga_allocations"]),
        f"{ours['ladoga']['1']['per_second']:,.0f}",
        f"{ours['ladoga']['64']['per_second']:,.0f}",
    ]]
    if rig:
        rows.append([
            f"rig ({rig['version']})",
            us(rig["mean_ns_per_orchestration"]),
            count(rig["allocations_per_orchestration"]),
            f"{rig['per_second_1']:,.0f}",
            f"{rig['per_second_64']:,.0f}",
        ])
    if pydantic:
        rows.append([
            f"PydanticAI ({pydantic['version']})",
            us(pydantic["mean_ns_per_orchestration"]),
            "n/a",
            f"{pydantic['per_second_1']:,.0f}",
            f"{pydantic['per_second_64']:,.0f}",
        ])
    rows.append([
        f"limit: raw svir requests / {per}",
        us(raw["1"]["mean_ns"] * per),
        "",
        f"{raw['1']['per_second'] / per:,.0f}",
        f"{raw['64']['per_second'] / per:,.0f}",
    ])
    out.append(table(["framework", "time / orchestration (concurrency 1)",
                      "allocations / orchestration", "orchestrations/s, concurrency 1",
                      "orchestrations/s, concurrency 64"], rows))
    out.append("")
    out.append(f"Raw svir: {raw['1']['per_second']:,.0f} requests/s at concurrency 1, "
               f"{raw['64']['per_second']:,.0f} at 64 (one request of the scenario's first "
               f"turn each); an orchestration is {per} requests.")
    if rig:
        ratio = rig["mean_ns_per_orchestration"] / ours["ladoga"]["1"]["mean_ns"]
        out.append(f"rig / Ladoga per orchestration at concurrency 1: **{ratio:.2f}×** in time "
                   f"(goal: at least 2×); Ladoga / rig in orchestrations per second at "
                   f"concurrency 64: **{ours['ladoga']['64']['per_second'] / rig['per_second_64']:.2f}×**.")
    counted = load(folder, "instructions.json")
    if counted and "wire_rig" in counted["per_orchestration"]:
        ladoga_i = counted["per_orchestration"]["wire_ladoga"]
        rig_i = counted["per_orchestration"]["wire_rig"]
        out.append("")
        out.append(table(["client process", "instructions / orchestration (callgrind)"],
                         [["Ladoga", count(ladoga_i)], ["rig", count(rig_i)]]))
        out.append("")
        out.append(f"rig / Ladoga in instructions of the client process (the server's own work "
                   f"left out): **{rig_i / ladoga_i:.2f}×**.")
    if pydantic:
        ratio = pydantic["mean_ns_per_orchestration"] / ours["ladoga"]["1"]["mean_ns"]
        out.append(f"PydanticAI / Ladoga per orchestration at concurrency 1: **{ratio:.1f}×**.")
    return ours, rig, pydantic


def scale(folder, out):
    data = load(folder, "scale.json")
    out.append("### 4. Scale: memory per orchestration in flight")
    if not data:
        out.append("Not measured in this run.")
        return
    rows = [[
        "Ladoga" if row["loop"] == "loop_ladoga" else "by hand",
        f"{row['in_flight']:,}",
        f"{row['rss_before_bytes'] / 2**20:,.1f} MiB",
        f"{row['peak_rss_bytes'] / 2**20:,.1f} MiB",
        f"{row['bytes_per_orchestration'] / 1024:,.1f} KiB",
        f"{row['heap_bytes_per_orchestration'] / 1024:,.1f} KiB",
        f"{row['seconds']:.2f} s",
    ] for row in data["rows"]]
    out.append(table(["loop", "in flight", "resident before", "peak resident",
                      "resident / orchestration", "live heap / orchestration", "wall time"],
                     rows))
    out.append("")
    out.append(f"Every answer of the scripted model takes {data['slow_answer_ms']} ms; peak "
               "resident memory is `VmHWM` (and `VmRSS` sampled every 10 ms), minus the resident "
               "memory after one orchestration ran; live heap is what the counting allocator "
               "holds allocated, sampled every 10 ms, minus the same before.")


def growth(folder, out):
    data = load(folder, "growth.json")
    out.append("### 5. Growth: turn 1 against turn 50 of one conversation")
    if not data:
        out.append("Not measured in this run.")
        return None
    curves = data["curves"]
    rows = []
    for turn in [1, 2, 10, 25, 50]:
        if turn > data["tool_turns"]:
            continue
        ours = curves["loop_ladoga"][turn - 1]
        hand = curves["loop_byhand"][turn - 1]
        rows.append([turn, f"{ours['request_bytes']:,} B", us(ours["median_ns"]),
                     count(ours["allocations"]), us(hand["median_ns"]),
                     count(hand["allocations"])])
    out.append(table(["turn", "request size", "Ladoga: time", "Ladoga: allocations",
                      "by hand: time", "by hand: allocations"], rows))
    first, last = curves["loop_ladoga"][0], curves["loop_ladoga"][-1]
    out.append("")
    out.append(f"Median of {data['runs']} conversations of {data['tool_turns']} turns of three "
               f"calls. Turn {data['tool_turns']} costs {last['median_ns'] / first['median_ns']:.1f}× "
               f"turn 1 while its request is {last['request_bytes'] / first['request_bytes']:.1f}× "
               f"as large. The curve is in the plot below.")
    return curves


def compile_cost(folder, out):
    data = load(folder, "compile.json")
    out.append("### 6. Compile cost")
    if not data:
        out.append("Not measured in this run.")
        return
    orchestrators = statistics.median(data["compile-orchestrators"])
    tools = statistics.median(data["compile-tools"])
    out.append(table(
        ["crate", "`cargo build` of the crate alone (median)", "runs"],
        [[f"{data['items']} `#[orchestrator]`s", f"{orchestrators:.2f} s",
          ", ".join(f"{t:.2f}" for t in data["compile-orchestrators"])],
         [f"{data['items']} `#[tool]`s", f"{tools:.2f} s",
          ", ".join(f"{t:.2f}" for t in data["compile-tools"])]]))
    out.append("")
    out.append(f"{data['items']} orchestrators cost {orchestrators - tools:+.2f} s over "
               f"{data['items']} tools ({orchestrators / tools:.2f}×), dependencies already "
               f"built, `{data['profile']}` profile.")


def streaming(folder, out):
    counts = load(folder, "streaming.json")
    quiet = criterion("streaming", "quiet")
    streamed = criterion("streaming", "streamed")
    out.append("### 7. Streaming: an answer of 300 pieces (in process)")
    if not (counts and quiet and streamed):
        out.append("Not measured in this run.")
        return
    pieces = counts["pieces"]
    rows = []
    for label, name, timed in [("without `stream`", "quiet", quiet),
                               ("`stream = true`", "streamed", streamed)]:
        spent = counts["per_orchestration"][name]
        rows.append([
            label,
            f"{us(timed['mean'])} ({us(timed['low'])} to {us(timed['high'])})",
            count(spent["allocations"]),
            f"{spent['bytes'] / 1024:,.1f} KiB",
        ])
    out.append(table(["orchestration", "time / orchestration (95 % CI)",
                      "allocations / orchestration", "bytes allocated"], rows))
    per_piece = (streamed["mean"] - quiet["mean"]) / pieces
    out.append("")
    out.append(f"Streaming costs {per_piece:,.0f} ns per piece of the answer "
               f"({pieces} pieces, one line to the caller at the end since they come at once); "
               f"without `stream`, each piece still times the first token.")


def machine(folder, out):
    data = load(folder, "machine.json")
    if data:
        out.append(f"Measured {data['date']} on {data['cpu']} ({data['cores']} cores), "
                   f"{data['os']}, {data['rustc']}. Command: `{data['command']}` "
                   f"({data['seconds']} s in all).")
    else:
        out.append("Machine not recorded.")


COLORS = {"loop_ladoga": "#1f77b4", "loop_byhand": "#ff7f0e"}
CONCURRENCY = [("concurrency 1", "#9ecae1"), ("concurrency 64", "#3182bd")]


def turn_costs(axes, curves):
    """The cost of each turn of one long conversation, Ladoga against the loop by hand."""
    for name, label in [("loop_ladoga", "Ladoga"), ("loop_byhand", "by hand")]:
        curve = curves[name]
        axes.plot([point["turn"] for point in curve],
                  [point["median_ns"] / 1000 for point in curve],
                  color=COLORS[name], linewidth=2, label=label)
    axes.set_title("5. Cost of each turn of one conversation", fontweight="bold")
    axes.set_xlabel("turn")
    axes.set_ylabel("µs per turn (median)")
    axes.set_xlim(left=1)
    axes.set_ylim(bottom=0)
    axes.legend(loc="upper left", frameon=False)


def rates(axes, wire_data):
    """Orchestrations per second over loopback HTTP, at concurrency 1 and 64, with the limit."""
    ours, rig, pydantic = wire_data
    per = ours["requests_per_orchestration"]
    bars = [("Ladoga", ours["ladoga"]["1"]["per_second"], ours["ladoga"]["64"]["per_second"])]
    if rig:
        bars.append(("rig", rig["per_second_1"], rig["per_second_64"]))
    if pydantic:
        bars.append(("PydanticAI", pydantic["per_second_1"], pydantic["per_second_64"]))
    raw = ours["svir_raw_request"]
    bars.append(("svir limit", raw["1"]["per_second"] / per, raw["64"]["per_second"] / per))
    width = 0.38
    for j, (label, color) in enumerate(CONCURRENCY):
        axes.bar([i + (j - 0.5) * width for i in range(len(bars))],
                 [bar[1 + j] for bar in bars], width, color=color, label=label)
    axes.set_xticks(range(len(bars)), [bar[0] for bar in bars])
    axes.set_title("2, 3. Orchestrations per second (HTTP)", fontweight="bold")
    axes.set_ylabel("orchestrations / s")
    axes.yaxis.set_major_formatter(ticker.StrMethodFormatter("{x:,.0f}"))
    axes.legend(loc="upper left", frameon=False)


def plot(curves, wire_data):
    """Two panels, each drawn when its benchmark ran: the cost of each turn of a long
    conversation, and orchestrations per second."""
    panels = [(draw, data) for draw, data in [(turn_costs, curves), (rates, wire_data)] if data]
    # The same figures always make the same file: no date, a fixed salt for the ids.
    pyplot.rcParams.update({"svg.hashsalt": "ladoga", "svg.fonttype": "none",
                            "font.family": "sans-serif", "font.size": 10})
    figure, axes = pyplot.subplots(1, max(1, len(panels)), figsize=(10, 3.95), squeeze=False)
    for (draw, data), ax in zip(panels, axes[0]):
        draw(ax, data)
        ax.grid(axis="y", color="#dddddd")
        ax.set_axisbelow(True)
        ax.spines[["top", "right"]].set_visible(False)
    if not panels:
        axes[0][0].axis("off")
        axes[0][0].text(0.5, 0.5, "Not measured in this run.", ha="center", va="center")
    figure.tight_layout()
    figure.savefig(PLOT, format="svg", metadata={"Date": None})
    pyplot.close(figure)


def main():
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "bench-results"
    out = [START, ""]
    machine(folder, out)
    out.append("")
    overhead(folder, out)
    out.append("")
    wire_data = wire(folder, out)
    out.append("")
    scale(folder, out)
    out.append("")
    curves = growth(folder, out)
    out.append("")
    compile_cost(folder, out)
    out.append("")
    streaming(folder, out)
    out.append("")
    out.append("![Cost of each turn, and orchestrations per second](benchmarks.svg)")
    out.append("")
    out.append(END)
    # A blank line after each heading, so every table renders.
    out = [line for entry in out
           for line in ([entry, ""] if entry.startswith("###") else [entry])]
    doc = DOC.read_text()
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + "\n".join(out) + tail)
    plot(curves, wire_data)
    print(f"wrote {DOC.relative_to(ROOT)} and {PLOT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
