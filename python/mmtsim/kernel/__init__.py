"""Kernel reference harness: the real Linux TCP stack beside mmtsim on the same link.

Two network namespaces are joined by ``mmtsim-emu`` (crates/emu), a real-time forwarder
over TUN devices that replays a scenario's last-hop link (rate trace, delay, drop-tail
queue in bytes, reverse rate) with mmtsim's own service model. A bulk sender with the
requested congestion control runs in one namespace and a receiver in the other; the
same scenario then runs in mmtsim, and :mod:`.compare` sets the two side by side.

- :mod:`.netns`: namespaces, the forwarder process, clean-up.
- :mod:`.endpoint`: the sender/receiver programs (``TCP_INFO`` sampling).
- :mod:`.scenario`: a case's scenario file → forwarder flags.
- :mod:`.harness`: one run on each side, reduced to the same record.
- :mod:`.compare`: metrics, undo decisions per outage, JSON and Markdown.
- ``traces/``: the trace set (scenario files and traces).

Needs root, ``/dev/net/tun`` and iproute2; see docs/kernel-harness.md.
"""

from __future__ import annotations

import platform
import shutil
import tempfile
from pathlib import Path

from .compare import compare, write_report
from .harness import run_kernel, run_mmtsim
from .netns import KernelUnavailable, check_prerequisites, emu_binary
from .scenario import CaseError, list_cases, load_case

__all__ = ["KernelUnavailable", "CaseError", "compare_cases", "list_cases", "load_case", "check_prerequisites"]

DEFAULT_CCS = ("cubic", "reno", "bbr")


def available_ccs() -> list[str]:
    """Congestion controls this kernel offers (tcp_available_congestion_control)."""
    return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()


def compare_cases(cases: list[str], ccs: list[str], out: Path | None = None,
                  duration_s: float | None = None, progress=print) -> list[dict]:
    """Runs every case × algorithm on both sides; writes the report to ``out`` if given.

    ``duration_s`` overrides the scenarios' duration (written to a copy of each file)."""
    check_prerequisites()
    emu_binary()
    offered = available_ccs()
    missing = [c for c in ccs if c not in offered]
    if missing:
        raise KernelUnavailable(f"this kernel does not offer {', '.join(missing)} "
                                f"(tcp_available_congestion_control: {' '.join(offered)})")
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="mmtsim-kernel-"))
    try:
        for name in cases:
            case = load_case(name)
            if duration_s is not None:
                case = _with_duration(case, duration_s, tmp)
            for cc in ccs:
                kernel, emu = run_kernel(case, cc, tmp / f"{case.name}-{cc}")
                sim = run_mmtsim(case, cc)
                row = compare(case, cc, kernel, sim, emu)
                rows.append(row)
                if progress:
                    progress(f"{case.name} {cc}: goodput kernel {kernel.goodput_mbps:.1f} / mmtsim "
                             f"{sim.goodput_mbps:.1f} Mbit/s, RTOs {kernel.rtos}/{sim.rtos}")
        if out is not None:
            write_report(rows, Path(out), platform.release())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def _with_duration(case, duration_s: float, tmp: Path):
    """A copy of the case's scenario with another duration (same folder for its trace)."""
    import re
    text = case.path.read_text()
    text = re.sub(r'(?m)^duration = ".*"$', f'duration = "{duration_s:g}s"', text, count=1)
    copy = case.path.parent / f".{case.name}.{duration_s:g}s.tmp.toml"
    copy.write_text(text)
    try:
        c = load_case(copy)
    finally:
        copy.unlink()
    from dataclasses import replace
    return replace(c, name=case.name)
