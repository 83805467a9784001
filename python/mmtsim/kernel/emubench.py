"""Benchmarks of real-time emulation (BENCHMARKS.md): how fast real kernel TCP crosses a
simulated RAN with the emulation keeping to the wall clock.

- ``los``: one kernel TCP download (``endpoint.py``, bulk, CUBIC) to the static
  line-of-sight UE ``ue-edge`` of ``examples/nr-fr2.toml`` (28 GHz, 400 MHz, about
  1.2 Gbit/s downlink) from the edge server (this host's side), the scenario's own flows
  left out.
- ``los-ul-2017``: one kernel TCP upload from ``ue1`` of ``examples/mmwave-2017.toml``
  (the ns-3 mmWave 2017 frame; a building cuts the line of sight in the second half).
- ``ten-ues``: a kernel download to ``ue3`` of ``examples/ran-10ues.toml`` from the
  remote server while the scenario's ten simulated flows (of all ten UEs, ue3's own
  included) run as background on the same cell.

Each prints the kernel flow's goodput (from the packets), the lag of the loop and the
lateness of its writes (p50/p99/max), and lag episodes. Run as root::

    .venv/bin/python -m mmtsim.kernel.emubench [--case NAME] [--seconds S] [--no-offload]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import netns
from .emulated import EXAMPLES
from .harness import ENDPOINT, PORT

BENCHES = {
    # name: (scenario, UE, server node, direction of the data, scenario flows as background)
    "los": ("nr-fr2.toml", "ue-edge", "edge", "dl", False),
    "los-ul-2017": ("mmwave-2017.toml", "ue1", "server", "ul", False),
    "ten-ues": ("ran-10ues.toml", "ue3", "remote", "dl", True),
}


def _wait_listening(em, port: int, timeout_s: float = 5.0) -> None:
    """Waits until something listens on ``port`` in the UE's namespace."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        r = subprocess.run(netns.exec_argv(em.ue_ns, ["ss", "-Htln", f"sport = :{port}"]),
                           capture_output=True, text=True)
        if r.stdout.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} in {em.ue_ns}")


def run_bench(name: str, seconds: float, workdir: Path, offload: bool = True) -> dict:
    from ..emulate import Emulation

    scenario, ue, server, direction, background = BENCHES[name]
    recv_json, send_json = workdir / "recv.json", workdir / "send.json"
    recv = [sys.executable, str(ENDPOINT), "recv", "--port", str(PORT), "--out", str(recv_json),
            "--max-seconds", str(seconds + 30)]
    send = [sys.executable, str(ENDPOINT), "send", "--port", str(PORT), "--cc", "cubic",
            "--duration", str(seconds), "--out", str(send_json)]
    if direction == "ul":
        em = Emulation(str(EXAMPLES / scenario), ue=ue, server=server, out=workdir / "run",
                       server_cmd=" ".join(recv), duration=seconds + 3.0, background=background,
                       offload=offload)
        with em:
            em.run_in_ue([*send, "--dst", em.server_addr], check=True)
    else:
        # Downlink: the receiver in the UE's namespace, the sender on this host (the server
        # side stays in the caller's namespace).
        em = Emulation(str(EXAMPLES / scenario), ue=ue, server=server, out=workdir / "run",
                       duration=seconds + 3.0, background=background, offload=offload)
        with em:
            em.popen_in_ue(recv)
            _wait_listening(em, PORT)
            subprocess.run([*send, "--dst", em.ue_addr], check=True)
    rep = em.report
    flows = sorted(em.result.summary["real_flows"]["flows"], key=lambda f: -f["bytes"])
    bg = list(em.result.summary.get("flows", []))
    return {
        "bench": name + ("" if offload else " (no offload)"), "seconds": seconds,
        "kernel_goodput_mbps": flows[0]["goodput_mbps"] if flows else None,
        "background_goodput_mbps": sum(f.get("goodput_mbps") or 0 for f in bg) if background else None,
        "lag": rep["lag"], "lateness": rep["lateness"], "packets": rep["packets"],
        "kernel": rep["kernel"], "warnings": rep["warnings"], "devices": rep.get("devices"),
    }


def markdown(rows: list[dict]) -> str:
    lines = ["| bench | kernel flow Mbit/s | background Mbit/s | lag p50 / p99 / max µs | lag episodes | "
             "lateness p50 / p99 / max µs | packets through |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lag, late = r["lag"]["turns"], r["lateness"]
        f = lambda d: f"{d['p50_us']:.0f} / {d['p99_us']:.0f} / {d['max_us']:.0f}"  # noqa: E731
        bg = "—" if r["background_goodput_mbps"] is None else f"{r['background_goodput_mbps']:.0f}"
        lines.append(f"| {r['bench']} | {r['kernel_goodput_mbps']:.0f} | {bg} | {f(lag)} | "
                     f"{r['lag']['episodes']} | {f(late)} | {r['packets']['delivered']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m mmtsim.kernel.emubench")
    p.add_argument("--case", action="append", choices=sorted(BENCHES))
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--out", type=Path)
    p.add_argument("--no-offload", dest="offload", action="store_false")
    a = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.case or list(BENCHES):
            wd = Path(tmp) / name
            wd.mkdir()
            rows.append(run_bench(name, a.seconds, wd, a.offload))
    table = markdown(rows)
    print(table)
    if a.out:
        a.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
