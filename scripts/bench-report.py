#!/usr/bin/env python3
"""Writes the benchmark figures into docs/benchmarks.md and draws docs/benchmarks.svg.

Reads the raw results scripts/bench wrote (the folder is the first argument) and criterion's
estimates under target/criterion/. Replaces what lies between the `<!-- results:start -->` and
`<!-- results:end -->` markers of docs/benchmarks.md; the prose around them is kept. Standard
library only.
"""

import json
import statistics
import sys
from pathlib import Path

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


def svg(curves, wire_data):
    """Two panels: the cost of each turn of a long conversation, and orchestrations per second."""
    width, height = 960, 380
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>']

    def frame(x0, y0, w, h, title, xlabel, ylabel, ymax, ticks):
        parts.append(f'<text x="{x0 + w / 2}" y="{y0 - 12}" text-anchor="middle" '
                     f'font-size="14" font-weight="bold">{title}</text>')
        parts.append(f'<line x1="{x0}" y1="{y0 + h}" x2="{x0 + w}" y2="{y0 + h}" stroke="black"/>')
        parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 + h}" stroke="black"/>')
        for i in range(ticks + 1):
            value = ymax * i / ticks
            y = y0 + h - h * i / ticks
            parts.append(f'<line x1="{x0 - 4}" y1="{y}" x2="{x0 + w}" y2="{y}" stroke="#ddd"/>')
            parts.append(f'<text x="{x0 - 6}" y="{y + 4}" text-anchor="end">{value:,.0f}</text>')
        parts.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 34}" text-anchor="middle">{xlabel}</text>')
        parts.append(f'<text transform="translate({x0 - 52},{y0 + h / 2}) rotate(-90)" '
                     f'text-anchor="middle">{ylabel}</text>')

    colors = {"loop_ladoga": "#1f77b4", "loop_byhand": "#ff7f0e"}
    if curves:
        x0, y0, w, h = 80, 40, 360, 280
        ymax = max(point["median_ns"] for curve in curves.values() for point in curve) / 1000
        ymax = max(1, (int(ymax / 10) + 1) * 10)
        frame(x0, y0, w, h, "5. Cost of each turn of one conversation", "turn",
              "µs per turn (median)", ymax, 5)
        turns = len(curves["loop_ladoga"])
        for name, curve in curves.items():
            points = " ".join(
                f"{x0 + w * (p['turn'] - 1) / max(1, turns - 1):.1f},"
                f"{y0 + h - h * (p['median_ns'] / 1000) / ymax:.1f}" for p in curve)
            parts.append(f'<polyline points="{points}" fill="none" stroke="{colors[name]}" '
                         f'stroke-width="2"/>')
        for i in range(0, turns + 1, 10):
            x = x0 + w * max(0, i - 1) / max(1, turns - 1)
            parts.append(f'<text x="{x}" y="{y0 + h + 16}" text-anchor="middle">{max(1, i)}</text>')
        for i, (name, label) in enumerate([("loop_ladoga", "Ladoga"), ("loop_byhand", "by hand")]):
            parts.append(f'<rect x="{x0 + 12}" y="{y0 + 8 + 18 * i}" width="14" height="4" '
                         f'fill="{colors[name]}"/>')
            parts.append(f'<text x="{x0 + 32}" y="{y0 + 14 + 18 * i}">{label}</text>')

    if wire_data:
        ours, rig, pydantic = wire_data
        per = ours["requests_per_orchestration"]
        bars = [("Ladoga", ours["ladoga"]["1"]["per_second"], ours["ladoga"]["64"]["per_second"])]
        if rig:
            bars.append(("rig", rig["per_second_1"], rig["per_second_64"]))
        if pydantic:
            bars.append(("PydanticAI", pydantic["per_second_1"], pydantic["per_second_64"]))
        raw = ours["svir_raw_request"]
        bars.append(("svir limit", raw["1"]["per_second"] / per, raw["64"]["per_second"] / per))
        x0, y0, w, h = 580, 40, 340, 280
        top = max(max(b[1], b[2]) for b in bars)
        magnitude = 10 ** (len(str(int(top))) - 1)
        ymax = (int(top / magnitude) + 1) * magnitude
        frame(x0, y0, w, h, "2, 3. Orchestrations per second (HTTP)", "",
              "orchestrations / s", ymax, 5)
        slot = w / len(bars)
        for i, (label, one, many) in enumerate(bars):
            for j, (value, color) in enumerate([(one, "#9ecae1"), (many, "#3182bd")]):
                bar_h = h * value / ymax
                x = x0 + slot * i + slot * 0.15 + j * slot * 0.35
                parts.append(f'<rect x="{x:.1f}" y="{y0 + h - bar_h:.1f}" width="{slot * 0.33:.1f}" '
                             f'height="{bar_h:.1f}" fill="{color}"/>')
            parts.append(f'<text x="{x0 + slot * (i + 0.5)}" y="{y0 + h + 16}" '
                         f'text-anchor="middle">{label}</text>')
        for j, (label, color) in enumerate([("concurrency 1", "#9ecae1"),
                                            ("concurrency 64", "#3182bd")]):
            parts.append(f'<rect x="{x0 + 12}" y="{y0 + 6 + 18 * j}" width="12" height="10" '
                         f'fill="{color}"/>')
            parts.append(f'<text x="{x0 + 30}" y="{y0 + 15 + 18 * j}">{label}</text>')
    parts.append("</svg>")
    PLOT.write_text("\n".join(parts) + "\n")


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
    svg(curves, wire_data)
    print(f"wrote {DOC.relative_to(ROOT)} and {PLOT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
