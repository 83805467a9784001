"""Named benchmarks (``mmtsim bench``).

Each benchmark runs in a fresh child process so that its peak resident memory is its own.
Reported per benchmark: ``sim_s_per_wall_s`` (simulated seconds per wall-clock second of
the simulation call, one core), ``events_per_s`` and ``peak_rss_mb`` (the child's maximum
resident set, Python interpreter included).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time


def _dumbbell(rate: str, delay: str, limit: str, duration: str, flows: list[dict], queue=None) -> dict:
    q = queue or {"limit": limit}
    return {
        "simulation": {"duration": duration, "seed": 1},
        "nodes": [{"name": "server"}, {"name": "client"}],
        "links": [{"name": "bottleneck", "between": ["server", "client"], "rate": rate,
                   "delay": delay, "queue": q}],
        "flows": flows,
    }


BENCHMARKS: dict[str, dict] = {
    "cubic-1g-60s": {
        "description": "one CUBIC flow, 60 s over 1 Gbit/s, 20 ms RTT, 1-BDP (2.5 MB) drop-tail buffer",
        "scenario": _dumbbell("1Gbps", "10ms", "2.5MB", "60s",
                              [{"from": "server", "to": "client", "cc": "cubic"}]),
    },
    "newreno-1g-60s": {
        "description": "one NewReno flow, same path as cubic-1g-60s",
        "scenario": _dumbbell("1Gbps", "10ms", "2.5MB", "60s",
                              [{"from": "server", "to": "client", "cc": "newreno"}]),
    },
    "codel-4flows-100m-60s": {
        "description": "four CUBIC flows, 60 s over 100 Mbit/s with CoDel, 40 ms RTT",
        "scenario": _dumbbell("100Mbps", "20ms", "", "60s",
                              [{"from": "server", "to": "client", "cc": "cubic", "count": 4}],
                              queue={"kind": "codel", "limit_packets": 10000}),
    },
}


def _child(name: str) -> dict:
    from . import _core

    sc = BENCHMARKS[name]["scenario"]
    text = json.dumps(sc)
    t0 = time.perf_counter()
    summary, _tables = _core.run(text, "json", f"<bench {name}>", ".", [], None, None, None)
    wall = time.perf_counter() - t0
    s = json.loads(summary)
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "name": name,
        "description": BENCHMARKS[name]["description"],
        "sim_seconds": s["sim_seconds"],
        "wall_seconds": wall,
        "events": s["events"],
        "sim_s_per_wall_s": s["sim_seconds"] / wall,
        "events_per_s": s["events"] / wall,
        "peak_rss_mb": rss_kb / 1024.0,
        "goodput_mbps": [f["goodput_mbps"] for f in s["flows"]],
    }


def run_benchmarks(names: list[str], repeat: int = 1) -> dict:
    out = []
    for name in names:
        best = None
        for _ in range(repeat):
            proc = subprocess.run([sys.executable, "-m", "mmtsim.bench", "--child", name],
                                  capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"benchmark {name} failed:\n{proc.stderr}")
            r = json.loads(proc.stdout)
            if best is None or r["wall_seconds"] < best["wall_seconds"]:
                best = r
        out.append(best)
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "benchmarks": out,
    }


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2])))
    else:
        print("usage: python -m mmtsim.bench --child NAME", file=sys.stderr)
        sys.exit(2)
