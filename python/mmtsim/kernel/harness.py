"""Runs one case on both sides: the Linux TCP stack over ``mmtsim-emu``, and mmtsim.

Kernel side: :class:`~.netns.Topology` (namespaces + forwarder replaying the case's
link), then the receiver and the bulk sender of ``endpoint.py`` with the requested
congestion control. Every kernel time is put on the trace clock: seconds since the
forwarder saw the SYN (its ``trace_origin_monotonic_ns``), which is mmtsim's time 0.

mmtsim side: the same scenario file with ``flows.0.cc`` set (reno → newreno).

Both sides are reduced to the same plain record (:class:`Side`), which
:mod:`.compare` compares.
"""

from __future__ import annotations

import bisect
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..api import run as mmtsim_run
from .netns import RCV_ADDR, Topology
from .scenario import CC_TO_MMTSIM, Case

ENDPOINT = Path(__file__).resolve().parent / "endpoint.py"
PORT = 5001
GOODPUT_BIN_S = 0.1
#: Linux's TCP_INFINITE_SSTHRESH (include/net/tcp.h): ssthresh not yet set.
INFINITE_SSTHRESH = 0x7FFFFFFF


@dataclass
class Side:
    """One side's run, on the trace clock (s); windows in bytes, ssthresh None = infinite."""

    goodput_mbps: float
    goodput_bins_mbps: list[float]
    rtt_time_avg_ms: float | None
    retransmits: int
    rtos: int
    rto_times_s: list[float]
    #: (t_s, cwnd_bytes, ssthresh_bytes or None)
    windows: list[tuple[float, int, int | None]] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


def time_weighted_mean(ts: list[float], values: list[float], end: float) -> float | None:
    """Mean of a step function: each value holds from its time until the next (the last
    until ``end``)."""
    if not ts:
        return None
    total = weight = 0.0
    for i, (t, v) in enumerate(zip(ts, values)):
        nxt = ts[i + 1] if i + 1 < len(ts) else end
        dt = max(0.0, min(nxt, end) - t)
        total += v * dt
        weight += dt
    return total / weight if weight > 0 else None


def _bins_from_cumulative(ts: list[float], cum: list[int], duration_s: float) -> list[float]:
    """100 ms goodput bins (Mbit/s) from (time, cumulative bytes) samples."""
    def at(t):
        i = bisect.bisect_right(ts, t) - 1
        return cum[i] if i >= 0 else 0
    n = int(round(duration_s / GOODPUT_BIN_S))
    edges = [k * GOODPUT_BIN_S for k in range(n + 1)]
    return [(at(b) - at(a)) * 8 / GOODPUT_BIN_S / 1e6 for a, b in zip(edges, edges[1:])]


def run_kernel(case: Case, cc: str, workdir: Path) -> tuple[Side, dict]:
    """The Linux stack through the emulated link; returns the side and the forwarder's
    report."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    recv_out, send_out = workdir / "recv.json", workdir / "send.json"
    with Topology(case.emu_args(), workdir) as topo:
        r = topo.spawn(topo.rcv_ns, [sys.executable, str(ENDPOINT), "recv", "--port", str(PORT),
                                     "--out", str(recv_out), "--max-seconds", str(case.duration_s + 30)],
                       stdout=subprocess.PIPE, text=True)
        if r.stdout.readline().strip() != "ready":
            raise RuntimeError("the kernel receiver did not start")
        s = topo.spawn(topo.snd_ns, [sys.executable, str(ENDPOINT), "send", "--dst", RCV_ADDR,
                                     "--port", str(PORT), "--cc", cc, "--duration", str(case.duration_s),
                                     "--out", str(send_out)])
        if s.wait(timeout=case.duration_s + 30) != 0:
            raise RuntimeError(f"the kernel sender failed (cc {cc!r}; available: "
                               f"{Path('/proc/sys/net/ipv4/tcp_available_congestion_control').read_text().strip()})")
        r.wait(timeout=30)
        emu = topo.stop_forwarder()
    origin = emu["trace_origin_monotonic_ns"]
    if origin is None:
        raise RuntimeError("the forwarder never saw a SYN")
    recv = json.loads(recv_out.read_text())
    send = json.loads(send_out.read_text())
    if send["cc"] != cc:
        raise RuntimeError(f"asked for {cc!r}, the kernel used {send['cc']!r}")
    d = case.duration_s
    rts = [(t - origin) / 1e9 for t in recv["t_ns"]]
    bins = _bins_from_cumulative(rts, recv["cum_bytes"], d)
    i = bisect.bisect_right(rts, d) - 1
    goodput = (recv["cum_bytes"][i] if i >= 0 else 0) * 8 / d / 1e6
    smp = send["samples"]
    ts = [(t - origin) / 1e9 for t in smp["t_ns"]]
    keep = [k for k, t in enumerate(ts) if 0 <= t < d]
    mss = case.mss_bytes
    # srtt is 0 until the first RTT sample (tcp_info reports the smoothed RTT in µs).
    rtt_idx = [k for k in keep if smp["rtt_us"][k] > 0]
    rtt_avg = time_weighted_mean([ts[k] for k in rtt_idx], [smp["rtt_us"][k] / 1e3 for k in rtt_idx], d)
    windows = [(ts[k], smp["snd_cwnd"][k] * mss,
                None if smp["snd_ssthresh"][k] >= INFINITE_SSTHRESH else smp["snd_ssthresh"][k] * mss)
               for k in keep]
    # RTOs: tcpi_total_rto (Linux >= 6.7) counts every timeout; its increments, seen at
    # 10 ms sampling, date them.
    rto_col = smp.get("total_rto")
    rto_times = []
    if rto_col:
        prev = 0
        for k in keep:
            if rto_col[k] > prev:
                rto_times += [ts[k]] * (rto_col[k] - prev)
                prev = rto_col[k]
    last = keep[-1] if keep else None
    retrans = smp["total_retrans"][last] if last is not None else 0
    side = Side(goodput_mbps=goodput, goodput_bins_mbps=bins, rtt_time_avg_ms=rtt_avg,
                retransmits=retrans, rtos=len(rto_times), rto_times_s=rto_times, windows=windows,
                extra={"rto_recoveries": smp.get("total_rto_recoveries", [0])[last] if last is not None else 0,
                       "dsack_dups": smp["dsack_dups"][last] if last is not None else 0})
    return side, emu


def run_mmtsim(case: Case, cc: str) -> Side:
    """The same scenario in mmtsim."""
    res = mmtsim_run(str(case.path), overrides={"flows.0.cc": CC_TO_MMTSIM[cc]})
    flow = res.summary["flows"][0]
    d = case.duration_s
    gp = res.table("goodput")
    bins = [float(x) for x in gp.sort("t_s")["goodput_mbps"].to_list()]
    srtt_key = next((k for k in flow if "srtt" in k and k.endswith("_ms")), None)
    if srtt_key is not None:
        rtt_avg = flow[srtt_key]
    else:
        rtt = res.table("rtt").sort("t_s")
        rtt_avg = time_weighted_mean(rtt["t_s"].to_list(), rtt["rtt_ms"].to_list(), d)
    cw = res.table("cwnd").sort("t_s")
    windows = list(zip(cw["t_s"].to_list(), cw["cwnd_bytes"].to_list(), cw["ssthresh_bytes"].to_list()))
    return Side(goodput_mbps=flow["goodput_mbps"], goodput_bins_mbps=bins, rtt_time_avg_ms=rtt_avg,
                retransmits=flow["retransmits"], rtos=flow["rtos"], rto_times_s=list(flow["rto_times_s"]),
                windows=windows, extra={"rtt_source": srtt_key or "rtt table (time-weighted)",
                                        "spurious_retransmits": flow.get("spurious_retransmits")})
