#!/usr/bin/env python3
"""Goodput of every congestion control on every shipped example (shortened).

Every TCP flow of an example is switched to the algorithm; X-TCP (which reads the sending
UE's radio view) only on the flows a UE sends, the others keeping the example's algorithm,
and "n/a" on examples without such a flow. Prints a markdown
table of the summed goodput (Mbit/s) of the flows each algorithm drives, per algorithm and
example (X-TCP's cell on an example with wired senders too counts only its UE flows and is
marked "*"), and marks with "!" a cell in which some flow gets below 10 % of that flow's
median over the algorithms.

    .venv/bin/python scripts/cc_matrix.py [--duration 5s|full] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mmtsim
import mmtsim.cc

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.toml"))


def tcp_flows(path: Path) -> tuple[list[int], list[int]]:
    """Indices of the TCP flows, and of those a UE sends."""
    sc = mmtsim.validate(path)
    ues = {u["name"] for u in (sc.get("ran") or {}).get("ues", [])}
    idx = [i for i, f in enumerate(sc["flows"]) if f.get("protocol", "tcp") == "tcp"]
    return idx, [i for i in idx if sc["flows"][i]["from"] in ues]


def end_to_end_entries(path: Path) -> list[list[int]]:
    """For each scenario flow, the indices in the summary's ``flows`` of its end-to-end
    entries: one per copy (``count``), and of a flow split at a relay or an mmCPTP
    download its second leg (the summary lists either as two legs, ``NAME.leg1`` then
    ``NAME.leg2``)."""
    out, at = [], 0
    for f in mmtsim.validate(path)["flows"]:
        legs = 2 if f.get("relay") or f.get("protocol") == "mmcptp" else 1
        copies = int(f.get("count") or 1)
        out.append([at + k * legs + legs - 1 for k in range(copies)])
        at += copies * legs
    return out


def matrix(duration: str, workers: int) -> dict[str, dict[str, float | None]]:
    algs = list(mmtsim.cc.algorithms())
    jobs = []
    for ex in EXAMPLES:
        idx, ue_sent = tcp_flows(ex)
        entries = end_to_end_entries(ex)
        for alg in algs:
            if alg == "xtcp" and not ue_sent:
                continue
            ov = {f"flows.{i}.cc": alg for i in (ue_sent if alg == "xtcp" else idx)}
            if duration != "full":
                ov["simulation.duration"] = duration
            jobs.append((ex, alg, entries, ov))

    def one(job):
        ex, alg, entries, ov = job
        s = mmtsim.run(ex, overrides=ov).summary
        driven = [int(k.split(".")[1]) for k in ov if k.endswith(".cc")]
        # Keyed by the summary's flow index: every copy of a driven flow, end to end.
        return ex.stem, alg, {
            j: s["flows"][j]["goodput_mbps"] for i in driven for j in entries[i]}

    out: dict[str, dict[str, dict[int, float] | None]] = {
        ex.stem: {a: None for a in algs} for ex in EXAMPLES}
    with ThreadPoolExecutor(workers) as pool:
        for ex, alg, per_flow in pool.map(one, jobs):
            out[ex][alg] = per_flow
    return out


def low_cells(m: dict, share: float = 0.1) -> list[tuple]:
    """(example, algorithm, flow, goodput, median) of every flow that gets below ``share``
    of its median over the algorithms that drove it."""
    low = []
    for ex, row in m.items():
        flows = {i for per_flow in row.values() if per_flow for i in per_flow}
        for i in sorted(flows):
            vals = {a: pf[i] for a, pf in row.items() if pf and i in pf}
            med = statistics.median(vals.values())
            low += [(ex, a, i, v, med) for a, v in vals.items() if v < share * med]
    return low


def markdown(m: dict) -> str:
    exs = list(m)
    algs = list(next(iter(m.values())))
    lows = {(e, a) for e, a, *_ in low_cells(m)}
    full = {e: max(len(pf) for pf in m[e].values() if pf) for e in exs}
    lines = ["| algorithm | " + " | ".join(exs) + " |", "|---" * (len(exs) + 1) + "|"]
    for a in algs:
        cells = []
        for e in exs:
            pf = m[e][a]
            if pf is None:
                cells.append("n/a")
                continue
            mark = ("*" if len(pf) < full[e] else "") + (" !" if (e, a) in lows else "")
            cells.append(f"{sum(pf.values()):.1f}{mark}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="5s")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    what = "whole example" if a.duration == "full" else f"first {a.duration} of each example"
    print(f"summed TCP goodput, Mbit/s, {what} (seed 1)\n")
    print(markdown(matrix(a.duration, a.workers)))
