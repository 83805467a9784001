"""Named benchmarks (``mmtsim bench``).

Each benchmark runs in a fresh child process so that its peak resident memory is its own.
Reported per benchmark: ``sim_s_per_wall_s`` (simulated seconds per wall-clock second of
the simulation call, one core), ``events_per_s`` and ``peak_rss_mb`` (the child's maximum
resident set, Python interpreter included).

Benchmarks come in groups (:data:`GROUPS`, ``mmtsim bench --group NAME``):

* ``foundation`` — the wired benchmarks: CUBIC and NewReno on a 1 Gbit/s path, four flows
  through CoDel at 100 Mbit/s;
* ``cc`` — one run per congestion-control algorithm on the same path: ``<algo>-1g-60s``
  (the path of ``cubic-1g-60s``) for every algorithm that runs without a radio, and
  ``xtcp-ran-1ue-ul-25s`` for X-TCP, which reads the UE's radio view and so needs a UE;
* ``ran`` — the radio benchmarks: every benchmark with a gNB and UEs, the multi-cell
  examples (seed 002's square and street, with handovers) among them;
* ``scaling`` — the cost curves: 10–200 UEs in ten cells, and 100 UEs in 1–20 cells,
  5 s each, mixed traffic (:mod:`mmtsim.bench_grid`); with ``ran-100ues-10cells-*`` (the
  same grid, 10 s, full-buffer and mixed) they show how cost grows with UEs and cells;
* ``reproduce`` — one run of a reproduction's sweep, on its packaged scenario
  (``mmtsim/reproductions/``): ``mmcptp-trace-rw-cubic-110s`` and
  ``mmcptp-trace-rw-mmcptp-110s``, the longest runs of ``mmtsim reproduce mmcptp-trace``
  (whose whole grid is timed with ``time mmtsim reproduce``, BENCHMARKS.md).

A benchmark may name a *baseline*: the same path with NewReno (``newreno-1g-60s``, or
``newreno-ran-1ue-ul-25s`` for X-TCP). When both are in one run, the result carries
``speed_vs_baseline`` = its ``sim_s_per_wall_s`` / the baseline's (the project's target: no
algorithm more than 2× slower than NewReno, i.e. ratio ≥ 0.5). Speed is measured, never
asserted in tests: a loaded machine changes it.

The speed of a congestion-control benchmark also depends on what the algorithm does with
the path: one that leaves the 1 Gbit/s link idle part of the time, or keeps a shorter
queue, moves fewer packets per simulated second and so runs faster for that reason alone;
``events`` and ``goodput_mbps`` in the results tell the two apart.
"""

from __future__ import annotations

import copy
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

from . import _core
from .bench_grid import CELL_COUNTS, UE_COUNTS, grid

#: Speed ratio below which a benchmark counts as "more than 2× slower than its baseline".
SLOWER_LIMIT = 0.5


def _dumbbell(rate: str, delay: str, limit: str, duration: str, flows: list[dict], queue=None) -> dict:
    q = queue or {"limit": limit}
    return {
        "simulation": {"duration": duration, "seed": 1},
        "nodes": [{"name": "server"}, {"name": "client"}],
        "links": [{"name": "bottleneck", "between": ["server", "client"], "rate": rate,
                   "delay": delay, "queue": q}],
        "flows": flows,
    }


def _cc_1g(algo: str) -> dict:
    """One flow of ``algo`` over the path of ``cubic-1g-60s``."""
    return _dumbbell("1Gbps", "10ms", "2.5MB", "60s",
                     [{"from": "server", "to": "client", "cc": algo}])


#: The source tree's example scenarios; the radio benchmarks run two of them.
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The packaged scenarios of the reproductions (``"example"`` paths may start with it).
REPRODUCTIONS_DIR = Path(__file__).resolve().parent / "reproductions"


def ran_1ue_ul(cc: str) -> dict:
    """``examples/mmwave-2017.toml`` run for 25 s with the UE walking at 2 m/s (so that it
    stays inside the area: x from -40 to +10 m) and congestion control ``cc``: one UE,
    uplink TCP with R_app = 2 Gbit/s, preset mmwave-2017, 10 MB RLC buffer, core 1 ms,
    remote host 10 ms (the X-TCP paper's setup)."""
    return {"example": "mmwave-2017.toml",
            "overrides": ["simulation.duration=25s", "ran.ues.0.mobility.velocity_mps=[2, 0, 0]",
                          f"flows.0.cc={cc}", f"flows.0.name={cc}"]}


def ran_1ue_dl(cc: str) -> dict:
    """The path of :func:`ran_1ue_ul` in the other direction: the remote host sends to the
    UE at R_app = 2 Gbit/s."""
    b = ran_1ue_ul(cc)
    b["overrides"] += ["flows.0.from=\"server\"", "flows.0.to=\"ue1\""]
    return b


def ran_10ues_mixed() -> dict:
    """``examples/ran-10ues.toml`` as it is (see its comment): ten UEs on one 2017-preset
    gNB, 10 s, mixed traffic, two walking UEs."""
    return {"example": "ran-10ues.toml", "overrides": []}


#: Algorithms that need a UE (they read the RAN's link view): benchmarked on the RAN path.
NEEDS_UE = ("xtcp",)


def _algorithms() -> list[str]:
    from ._core import algorithms

    return list(algorithms())


def _build() -> tuple[dict[str, dict], dict[str, list[str]]]:
    b: dict[str, dict] = {
        "cubic-1g-60s": {
            "description": "one CUBIC flow, 60 s over 1 Gbit/s, 20 ms RTT, 1-BDP (2.5 MB) drop-tail buffer",
            "scenario": _cc_1g("cubic"),
            "baseline": "newreno-1g-60s",
        },
        "newreno-1g-60s": {
            "description": "one NewReno flow, same path as cubic-1g-60s",
            "scenario": _cc_1g("newreno"),
        },
        "codel-4flows-100m-60s": {
            "description": "four CUBIC flows, 60 s over 100 Mbit/s with CoDel, 40 ms RTT",
            "scenario": _dumbbell("100Mbps", "20ms", "", "60s",
                                  [{"from": "server", "to": "client", "cc": "cubic", "count": 4}],
                                  queue={"kind": "codel", "limit_packets": 10000}),
        },
    }
    cc_group = []
    for algo in _algorithms():
        if algo in NEEDS_UE:
            name = f"{algo}-ran-1ue-ul-25s"
            b[name] = {
                "description": f"one {algo} flow on the ran-1ue-ul-cubic-25s path (needs a UE)",
                **ran_1ue_ul(algo),
                "baseline": "newreno-ran-1ue-ul-25s",
            }
        else:
            name = f"{algo}-1g-60s"
            if name not in b:
                b[name] = {
                    "description": f"one {algo} flow, same path as cubic-1g-60s",
                    "scenario": _cc_1g(algo),
                    "baseline": "newreno-1g-60s",
                }
        cc_group.append(name)
    b["ran-1ue-ul-cubic-25s"] = {
        "description": "one UE, uplink CUBIC at R_app 2 Gbit/s, 25 s, mmwave-2017, 10 MB RLC "
                       "buffer, core 1 ms, remote host 10 ms (examples/mmwave-2017.toml, "
                       "UE at 2 m/s)",
        **ran_1ue_ul("cubic"),
        "baseline": "newreno-ran-1ue-ul-25s",
    }
    b["newreno-ran-1ue-ul-25s"] = {
        "description": "ran-1ue-ul-cubic-25s with NewReno (baseline of the RAN algorithms)",
        **ran_1ue_ul("newreno"),
    }
    b["ran-10ues-mixed-10s"] = {
        "description": "ten UEs on one mmwave-2017 gNB, 10 s: UL CUBIC/NewReno bulk, DL TCP "
                       "bulk/on-off/messages, UDP CBR both ways, two walking UEs "
                       "(examples/ran-10ues.toml)",
        **ran_10ues_mixed(),
    }
    b["ran-1ue-dl-cubic-25s"] = {
        "description": "ran-1ue-ul-cubic-25s in the other direction: the remote host sends "
                       "to the UE at R_app 2 Gbit/s",
        **ran_1ue_dl("cubic"),
    }
    for traffic, what in (("full", "a downlink CUBIC bulk transfer to every UE"),
                          ("mixed", "DL bulk, UL bulk, video, messages and UDP, one in five "
                                    "UEs each")):
        b[f"ran-100ues-10cells-{traffic}-10s"] = {
            "description": f"100 UEs in 10 nr-fr2 cells 100 m apart (one in five walking, "
                           f"A3 handovers, active interference), {what}, 10 s "
                           f"(mmtsim/bench_grid.py)",
            "scenario": grid(100, 10, traffic, duration="10s"),
        }
    for n in UE_COUNTS:
        b[f"scale-{n}ues-10cells-5s"] = {
            "description": f"{n} UEs in 10 cells, mixed traffic, 5 s (scaling curves)",
            "scenario": grid(n, 10, "mixed", duration="5s"),
        }
    for c in CELL_COUNTS:
        b[f"scale-100ues-{c}cells-5s"] = {
            "description": f"100 UEs in {c} cell{'s' * (c > 1)}, mixed traffic, 5 s "
                           f"(scaling curves)",
            "scenario": grid(100, c, "mixed", duration="5s"),
        }
    b["ran-square-10ues-40s"] = {
        "description": "seed 002's square: four APs, ten UEs (FTP 500 Mbit/s, video, "
                       "messages, a file), handovers, active interference, 40 s "
                       "(examples/square-10ues.toml)",
        "example": "square-10ues.toml", "overrides": [],
    }
    b["ran-street-handover-40s"] = {
        "description": "seed 002's street: three APs, lampposts, a parked bus, one walker "
                       "with CUBIC through four handovers, 40 s (examples/street-handover.toml)",
        "example": "street-handover.toml", "overrides": [],
    }
    b["ran-train-dc-20s"] = {
        "description": "seed 003's train at 30 m/s past four 28 GHz gNBs with an LTE "
                       "anchor, coordinated dual connectivity, CUBIC from a remote server, "
                       "20 s (examples/train-dc.toml)",
        "example": "train-dc.toml", "overrides": [],
    }
    b["mmcptp-trace-rw-cubic-110s"] = {
        "description": "seed 004's Fig. 12 path: server, 10 ms, proxy, BS, trace-driven "
                       "last hop (the random-walk trace, up to 3.1 Gbit/s), end-to-end "
                       "CUBIC, 110 s (mmtsim/reproductions/mmcptp-trace.toml)",
        "example": str(REPRODUCTIONS_DIR / "mmcptp-trace.toml"), "overrides": [],
    }
    b["mmcptp-trace-rw-mmcptp-110s"] = {
        "description": "the same path with mmCPTP (server -> proxy CUBIC into a 64 MB cache, "
                       "the BS pulling every 5 ms), the arm of mmtsim reproduce mmcptp-trace",
        "example": str(REPRODUCTIONS_DIR / "mmcptp-trace.toml"),
        "overrides": ["flows.0.protocol=\"mmcptp\"",
                      "flows.0.mmcptp={proxy = \"proxy\", bs = \"bs\", pull = \"periodic\", "
                      "period = \"5ms\", pull_buffer = \"auto\", cache = \"64MB\", "
                      "push_interval = \"1ms\"}"],
    }
    if any(a in NEEDS_UE for a in _algorithms()):
        cc_group.append("newreno-ran-1ue-ul-25s")
    groups = {
        "foundation": ["cubic-1g-60s", "newreno-1g-60s", "codel-4flows-100m-60s"],
        "cc": [n for n in b if n in cc_group],
        "ran": [n for n in b if "-ran-" in n or n.startswith("ran-")],
        "reproduce": ["mmcptp-trace-rw-cubic-110s", "mmcptp-trace-rw-mmcptp-110s"],
        "scaling": [n for n in b if n.startswith("scale-")],
    }
    return b, groups


BENCHMARKS, GROUPS = _build()


def select(names: list[str], groups: list[str]) -> list[str]:
    """The benchmarks named or in the groups, in :data:`BENCHMARKS` order, each once; all of
    them when neither is given. Raises ``KeyError`` naming what is unknown."""
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise KeyError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        raise KeyError(f"unknown benchmark group(s) {', '.join(bad)}; known: {', '.join(GROUPS)}")
    if not names and not groups:
        return list(BENCHMARKS)
    wanted = set(names) | {n for g in groups for n in GROUPS[g]}
    return [n for n in BENCHMARKS if n in wanted]


def _child(name: str) -> dict:
    from . import _core

    b = BENCHMARKS[name]
    if "example" in b:
        path = _example(name)
        text, fmt, origin, base = path.read_text(), "toml", str(path), str(path.parent)
    else:
        text, fmt, origin, base = json.dumps(b["scenario"]), "json", f"<bench {name}>", "."
    t0 = time.perf_counter()
    summary, _tables = _core.run(text, fmt, origin, base, b.get("overrides", []), None, None,
                                 None)
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


def add_relative_speeds(results: list[dict]) -> None:
    """Sets ``baseline`` and ``speed_vs_baseline`` (sim_s_per_wall_s ratio) on every result
    whose baseline is among ``results``."""
    by_name = {r["name"]: r for r in results}
    for r in results:
        base = BENCHMARKS.get(r["name"], {}).get("baseline")
        if base in by_name:
            r["baseline"] = base
            r["speed_vs_baseline"] = r["sim_s_per_wall_s"] / by_name[base]["sim_s_per_wall_s"]


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
    add_relative_speeds(out)
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(),
                    "load_average": list(os.getloadavg())},
        # "pgo" (scripts/pgo.sh) or "plain": the figures depend on it.
        "build": _core.__build__,
        "benchmarks": out,
    }


def _example(name: str) -> Path:
    path = EXAMPLES / BENCHMARKS[name]["example"]  # an absolute path stays as it is
    if not path.exists():
        raise FileNotFoundError(f"benchmark {name} runs {path}, which comes with the source "
                                "tree (run mmtsim bench from a clone)")
    return path


def source(name: str) -> tuple[dict | Path, list[str]]:
    """Benchmark ``name``'s scenario and overrides, as ``mmtsim.run``/``validate`` take them."""
    b = BENCHMARKS[name]
    if "example" in b:
        return _example(name), list(b["overrides"])
    return copy.deepcopy(b["scenario"]), []


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(_child(sys.argv[2])))
    else:
        print("usage: python -m mmtsim.bench --child NAME", file=sys.stderr)
        sys.exit(2)
