#!/usr/bin/env python3
"""Robustness campaign: many randomized multi-cell scenarios, each run to its end.

Each run draws, from its own seed, a street of 2–5 mmWave gNB sites (random positions,
heights and presets), optionally an LTE anchor that serves dually connected UEs, random
buildings, a row of lampposts and lanes of vehicles, 1–4 UEs (walking, driving, a train
at 30 m/s, a random walk, or static; some indoor), measurement-based handover with random
algorithm, offset, hysteresis and time-to-trigger, a core network with or without Xn
links, and TCP (several congestion controls, both directions) and UDP flows. The run
must end with a result: a crash, a panic (raised as ``SimulationError``) or a worker that
dies is a failure; a scenario the validator refuses is counted apart (the generator is
meant to produce valid scenarios only, so those are reported too).

    .venv/bin/python scripts/robustness.py --runs 1000 --out robustness/

writes ``robustness.csv`` (one row per run: index, seed, outcome, handovers, wall
seconds, message) and, for every run that did not succeed, its scenario as
``scenarios/NNNN.toml`` to reproduce it with ``mmtsim run``. Exit status 1 if any run
crashed or panicked.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import random
import sys
import time
from pathlib import Path

PRESETS_MMW = ("nr-fr2", "mmwave-2017")
CCS = ("cubic", "newreno", "yeah", "bbr", "vegas", "westwood")


def scenario(i: int, base_seed: int) -> dict:
    """The scenario of run ``i``: a pure function of ``(base_seed, i)``."""
    rng = random.Random(base_seed * 1_000_003 + i)
    duration_s = rng.choice((2.0, 4.0, 6.0))
    length = rng.uniform(120.0, 600.0)
    half_w = 40.0
    n_sites = rng.randint(2, 5)
    dc = rng.random() < 0.35
    sites = []
    for k in range(n_sites):
        x = (k + 0.5) * length / n_sites + rng.uniform(-10, 10)
        y = rng.choice((-1, 1)) * rng.uniform(12.0, 25.0)
        sites.append({"name": f"g{k}", "position_m": [round(x, 2), round(y, 2),
                                                       round(rng.uniform(6.0, 35.0), 1)],
                      "preset": rng.choice(PRESETS_MMW)})
    if dc:
        sites.append({"name": "lte", "position_m": [round(length / 2, 2), 35.0, 30.0],
                      "preset": "lte-2ghz", "channel_model": "uma"})
    nodes = [{"name": "server"}, {"name": "core"}]
    links = [{"between": ["server", "core"], "delay": f"{rng.choice((2, 10, 20))}ms",
              "rate": "10Gbps"}]
    for s in sites:
        links.append({"between": ["core", s["name"]], "delay": "1ms", "rate": "10Gbps"})
    if rng.random() < 0.6:  # Xn between neighbours
        for a, b in zip(sites, sites[1:]):
            links.append({"between": [a["name"], b["name"]], "delay": "1ms", "rate": "10Gbps"})

    ues, flows = [], []
    for u in range(rng.randint(1, 4)):
        y = rng.uniform(-8.0, 8.0)
        kind = rng.choice(("walk", "car", "train", "random_walk", "static", "waypoints"))
        speed = {"walk": 1.5, "car": 12.0, "train": 30.0}.get(kind, 0.0)
        while speed * duration_s > length - 10.0:  # the path must stay on the street
            speed /= 2
        x0 = rng.uniform(2.0, max(3.0, length - 2.0 - speed * duration_s))
        ue = {"name": f"ue{u}", "position_m": [round(x0, 2), round(y, 2), 1.5]}
        if kind in ("walk", "car", "train"):
            ue["mobility"] = {"kind": "linear", "velocity_mps": [speed, 0, 0]}
        elif kind == "random_walk":
            ue["mobility"] = {"kind": "random_walk", "speed_mps": [0.5, 3.0],
                              "interval": "500ms"}
        elif kind == "waypoints":
            x1 = min(length - 2.0, x0 + 3.0)
            ue["mobility"] = {"kind": "waypoints", "speed_mps": 1.5,
                              "points_m": [[round(x1, 2), round(y, 2), 1.5]],
                              "pauses": ["200ms"]}
        ue["indoor"] = rng.random() < 0.1
        if dc:
            ue["gnb"] = "lte"
            ue["secondary"] = min(sites[:n_sites],
                                  key=lambda s: abs(s["position_m"][0] - x0))["name"]
        elif rng.random() < 0.7:
            ue["gnb"] = min(sites[:n_sites], key=lambda s: abs(s["position_m"][0] - x0))["name"]
        else:  # a poor first cell: a handover at once
            ue["gnb"] = rng.choice(sites[:n_sites])["name"]
        ues.append(ue)
        proto = rng.random()
        if proto < 0.7:
            f = {"from": "server", "to": ue["name"], "cc": rng.choice(CCS)}
            if rng.random() < 0.2:
                f = {"from": ue["name"], "to": "server", "cc": rng.choice(CCS)}
        else:
            f = {"protocol": "udp", "from": "server", "to": ue["name"],
                 "app": {"kind": "cbr", "rate": f"{rng.choice((10, 100, 400))}Mbps"}}
        flows.append(f)

    ran = {
        "preset": "nr-fr2",
        "area": {"min_m": [0, -half_w], "max_m": [round(length, 2), half_w]},
        "rlc": {"buffer": rng.choice(("1MB", "5MB", "10MB"))},
        "channel": {"model": rng.choice(("umi", "uma")), "shadowing": rng.random() < 0.5},
        "gnbs": sites,
        "ues": ues,
    }
    if rng.random() < 0.5:
        ran["random_obstacles"] = {"count": rng.randint(1, 12), "side_m": [1.0, 8.0],
                                   "height_m": [2.0, 20.0], "clearance_m": 2.0}
    if rng.random() < 0.5:
        step = rng.choice((10.0, 20.0))
        ran["obstacles"] = [{"kind": "lamppost", "min_m": [1.0, -10.2, 0], "max_m": [1.4, -9.8, 6],
                             "repeat": {"count": max(1, int((length - 3) // step)),
                                        "step_m": [step, 0, 0]}}]
    if rng.random() < 0.5:
        ran["vehicles"] = [{"kind": "bus", "from_m": [0, 11.0, 0], "to_m": [round(length, 2), 11.0, 0],
                            "size_m": [13.5, 2.55, 3.2], "count": rng.randint(1, 3),
                            "speed_mps": rng.choice((0.0, 8.0, 15.0))}]
    ran["interference"] = rng.choice((True, False, "active", "full-buffer"))
    if dc and rng.random() < 0.7:  # the LTE anchor coordinates the mmWave legs
        ran["dual_connectivity"] = {"mode": "coordinated"}
        ran["pdcp_t_reordering"] = rng.choice(("0ms", "10ms", "50ms"))
    ran.update(handover_keys(rng))
    events = []
    if not dc and rng.random() < 0.2:  # a scripted handover on top of the measured ones
        events.append({"at": f"{round(rng.uniform(0.1, duration_s), 3)}s",
                       "handover": {"ue": "ue0", "to": rng.choice(sites[:n_sites])["name"]}})
    return {
        "simulation": {"duration": f"{duration_s}s", "seed": rng.randint(1, 2**31)},
        "nodes": nodes,
        "links": links,
        "core": {"upf": "core"},
        "ran": ran,
        "flows": flows,
        **({"events": events} if events else {}),
    }


def handover_keys(rng: random.Random) -> dict:
    """Random measurement-based handover settings (``[ran.handover]``)."""
    algo = rng.choice(("a3", "a3", "threshold", "none"))
    h: dict = {"algorithm": algo}
    if algo != "none":
        h["ttt"] = rng.choice(("0ms", "40ms", "100ms", "160ms", "320ms"))
        h["measurement_period"] = rng.choice(("5ms", "10ms", "40ms"))
    if algo == "a3":
        h["offset_db"] = round(rng.uniform(0.0, 6.0), 1)
        h["hysteresis_db"] = round(rng.uniform(0.0, 3.0), 1)
        h["filter_k"] = rng.choice((0, 4, 8))
        if rng.random() < 0.3:
            del h["ttt"]
            h["dynamic_ttt"] = {"min": "25ms", "max": "150ms"}
    if algo == "threshold":
        h["sinr_threshold_db"] = round(rng.uniform(-5.0, 30.0), 1)
    if algo != "none":
        h["interruption"] = rng.choice(("0ms", "20ms", "50ms"))
        h["lossless"] = rng.random() < 0.8
        h["rach_min_sinr_db"] = rng.choice((-8.0, 0.0, 20.0))  # 20 dB: many failures
    return {"handover": h}


def run_one(args: tuple[int, int]) -> dict:
    i, base_seed = args
    import mmtsim  # in the worker

    sc = scenario(i, base_seed)
    t0 = time.perf_counter()
    row = {"run": i, "seed": sc["simulation"]["seed"], "outcome": "ok", "handovers": "",
           "message": ""}
    try:
        res = mmtsim.run(sc)
        row["handovers"] = sum(u.get("handovers", 0) for u in res.summary.get("ues") or [])
    except Exception as e:  # noqa: BLE001  (every failure is recorded, none escapes)
        name = type(e).__name__
        row["outcome"] = "panic" if name == "SimulationError" else (
            "refused" if isinstance(e, ValueError) or name == "ScenarioError"
            else f"error:{name}")
        row["message"] = str(e).replace("\n", " ")[:500]
    row["wall_s"] = round(time.perf_counter() - t0, 3)
    return row


def run_isolated(i: int, base_seed: int) -> dict:
    """Run ``i`` in a process of its own; its death is recorded as a crash."""
    with cf.ProcessPoolExecutor(1) as pool:
        try:
            return pool.submit(run_one, (i, base_seed)).result()
        except cf.process.BrokenProcessPool:
            return {"run": i, "seed": "", "outcome": "crash", "handovers": "",
                    "message": "the worker process died", "wall_s": ""}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="base seed of the generator")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("robustness"))
    a = ap.parse_args(argv)
    if a.runs < 1 or a.workers < 1:
        print("robustness: --runs and --workers must be at least 1", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    t0 = time.perf_counter()
    with cf.ProcessPoolExecutor(a.workers) as pool:
        futs = {pool.submit(run_one, (i, a.seed)): i for i in range(a.runs)}
        lost = []
        for f in cf.as_completed(futs):
            try:
                rows.append(f.result())
            except cf.process.BrokenProcessPool:
                lost.append(futs[f])
    # A worker that died (abort, signal) breaks the pool and every run still in it: run
    # those again one at a time, each in a pool of its own, to find the one that crashes.
    for i in sorted(lost):
        rows.append(run_isolated(i, a.seed))
    rows.sort(key=lambda r: r["run"])
    with open(a.out / "robustness.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["run", "seed", "outcome", "handovers", "wall_s",
                                           "message"])
        w.writeheader()
        w.writerows(rows)
    bad = [r for r in rows if r["outcome"] != "ok"]
    if bad:
        from mmtsim._toml import document

        (a.out / "scenarios").mkdir(exist_ok=True)
        for r in bad:
            (a.out / "scenarios" / f"{r['run']:04d}.toml").write_text(
                document(scenario(r["run"], a.seed)))
    counts: dict[str, int] = {}
    for r in rows:
        key = r["outcome"].split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    hos = sum(int(r["handovers"]) for r in rows if str(r["handovers"]).isdigit())
    print(f"robustness: {len(rows)} runs in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f"; {hos} handovers in all; table in {a.out / 'robustness.csv'}")
    return 1 if any(r["outcome"] in ("panic", "crash") or r["outcome"].startswith("error")
                    for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
