"""``measured-5g``: every congestion control over the shipped measured 5G traces, replayed
as a link rate and carried through mmtsim's RAN.

Not a paper's study: the question only a simulator with a RAN can ask of a measured
drive — what would it look like through HARQ, the scheduler and RLC buffers, with my
transport on top — beside the answer of a rate replay (Mahimahi's). The traces are the
three shipped in ``traces/`` (copies of ``examples/traces/``), all from 5Gophers 1.0
[FIVEGOPHERS-2020] (University of Minnesota, CC BY 4.0):

- ``verizon-drive``: Verizon's column of ``car-driving-trace-1.csv``, 126 s, a mmWave
  drive from 0 to 1.66 Gbit/s with three 1-s outages;
- ``sprint-drive``: Sprint's (mid-band) column of the same drive, 126 s;
- ``walk``: ``walking-trace.csv``, 603 s, a walk with 4G and 5G seconds.

One run (``measured-5g.toml``) carries both modes side by side on separate paths: flow
``rate`` over a wired last hop following the measured per-second throughput, flow
``ran`` to a UE of one ``nr-fr2`` cell whose channel follows the trace's *equivalent*
SINR (derived from the measured rate, not measured: rule 7 of
:mod:`mmtsim.trace_import`; 5Gophers has no radio measurement), both with a round trip of
about 20 ms and 4 MB in front of the bottleneck. The sweep: trace × congestion control
(both flows the same algorithm), ``runs`` seeds per cell (default 1). The traces are
fixed and the rate path draws nothing at random, but the RAN path draws each transport
block's decoding (the equivalent SINR sits on the MCS thresholds, at 10 % BLER), so its
figures move with the seed: with ``--runs N`` every figure is the mean over the N seeds.

What is reported, per trace, algorithm and mode: goodput (application bytes over the
run), its share of the capacity (the rate trace's integral over the run for ``rate``;
for ``ran`` the same measured capacity, and beside it the RAN's nominal capacity of the
equivalent-SINR trace, each second at the chosen MCS's rate on the cell: 1.23 Gbit/s ×
SE(MCS) / SE(28)), the time-averaged smoothed RTT, retransmissions and timeouts; and for
each trace the time series of CUBIC's and BBR's goodput in both modes beside the measured
throughput.

Simplifications and choices:

- X-TCP is left out: it reads a sending UE's uplink grants and these are downlinks (as the
  datasets' iPerf tests were). Every other algorithm of ``mmtsim._core.algorithms()``
  runs.
- The RAN mode quantises the measured rate to the cell's MCS steps; seconds below half
  MCS 0's rate (26 Mbit/s) become outages and those above 1.23 Gbit/s are held to the
  cell's peak (Verizon's drive reaches 1.66 Gbit/s for about 14 s), so its nominal
  capacity differs from the measured one; both are shown.
- The walk's seconds on 4G are outages in the RAN mode (there is no LTE cell to fall back
  to); the rate mode keeps the throughput LTE carried.
- Missing seconds of the drive (103-108) are held by the second before, in both modes.
- The round trip (20 ms) and the 4 MB buffers are ours; 5Gophers' servers and queues are
  not known in the form a scenario needs.
"""

from __future__ import annotations

from pathlib import Path

from .. import _core
from ..report import Note, Section, Table, image
from ..trace_import import NR_SE, nr_mcs_at
from .common import HERE, Finding, Reproduction, _common_set

TRACES = {  # label → (file stem in traces/, duration s, what)
    "verizon-drive": ("5gophers-verizon-drive", 126.0, "Verizon mmWave drive, 126 s"),
    "sprint-drive": ("5gophers-sprint-drive", 126.0, "Sprint mid-band drive, 126 s"),
    "walk": ("5gophers-walk", 603.0, "walk, 4G and 5G seconds, 603 s"),
}
#: Downlink algorithms (X-TCP needs a sending UE).
CCS = [c for c in _core.algorithms() if c != "xtcp"]
PEAK_BPS = 1.23e9
MODES = ("rate", "ran")


def read_csv_trace(path: Path) -> tuple[list[float], list[float]]:
    """(times s, values) of a ``time_s,<value>`` trace (comments skipped)."""
    ts, vs = [], []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("time_s"):
            continue
        t, v = line.split(",")
        ts.append(float(t))
        vs.append(float(v))
    return ts, vs


def capacity_bits(times: list[float], rates_bps: list[float], end_s: float) -> float:
    """The integral of a piecewise-constant rate over [0, end_s] (the last rate holds)."""
    total = 0.0
    for i, (t, r) in enumerate(zip(times, rates_bps)):
        if t >= end_s:
            break
        nxt = times[i + 1] if i + 1 < len(times) else end_s
        total += r * (min(nxt, end_s) - t)
    return total


def nominal_ran_rate_bps(sinr_db: float) -> float:
    """The nr-fr2 cell's rate at the MCS the AMC picks for ``sinr_db`` (rule 7's scale:
    PEAK × SE(m) / SE(28)); 0 below MCS 0's threshold."""
    m = nr_mcs_at(sinr_db)
    return 0.0 if m is None else PEAK_BPS * NR_SE[m] / NR_SE[-1]


def trace_capacities(label: str, end_s: float) -> dict[str, float]:
    """Mean capacity (Mbit/s) of the measured rate and of the RAN's nominal rate."""
    stem = TRACES[label][0]
    t, r = read_csv_trace(HERE / "traces" / f"{stem}.csv")
    ts, s = read_csv_trace(HERE / "traces" / f"{stem}-sinr.csv")
    return {"rate": capacity_bits(t, [x * 1e6 for x in r], end_s) / end_s / 1e6,
            "ran": capacity_bits(ts, [nominal_ran_rate_bps(x) for x in s], end_s) / end_s / 1e6}


def _dur(full_s: float, duration: str | None) -> float:
    return full_s if duration is None else min(full_s, float(_core.parse_duration(duration)))


def _sweep(runs: int, duration: str | None) -> dict:
    common = _common_set(None)
    cases = []
    for label, (stem, full, _) in TRACES.items():
        cases.append({"label": label, "set": {
            "links.1.trace.file": f"traces/{stem}.csv",
            "links.1.trace.period": f"{full:g}s",
            "ran.ues.0.sinr_trace": f"traces/{stem}-sinr.csv",
            "simulation.duration": f"{_dur(full, duration):g}s"}})
    return {
        "description": "measured 5G traces (5Gophers 1.0): every downlink congestion control, "
                       "as a rate trace and through the nr-fr2 RAN",
        "base": str(HERE / "measured-5g.toml"),
        "seeds": runs,
        "set": common,
        "axes": [{"name": "trace", "variants": cases},
                 {"name": "cc", "variants": [
                     {"label": c, "set": {"flows.0.cc": c, "flows.1.cc": c}} for c in CCS]}],
    }


#: The flow figures the analysis reads, averaged over a cell's seeds.
_FIGURES = ("goodput_mbps", "srtt_time_mean_ms", "retransmits", "rtos")


def _mean_flow(flows: list[dict]) -> dict:
    out = {}
    for k in _FIGURES:
        vs = [f.get(k) for f in flows]
        out[k] = None if None in vs else sum(vs) / len(vs)
    return out


def _cells(summary) -> dict[tuple[str, str], dict]:
    """(trace, cc) → {mode: the flow's figures, mean over the cell's seeds; "_sim_s": run
    length; "_n": seeds}."""
    runs: dict[tuple[str, str], list] = {}
    for r in summary.ok_runs:
        runs.setdefault((r.group.get("trace"), r.group.get("cc")), []).append(r)
    out = {}
    for key, rs in runs.items():
        flows = [{f["name"]: f for f in r.summary["flows"]} for r in rs]
        out[key] = {m: _mean_flow([fl[m] for fl in flows]) for m in MODES}
        out[key]["_sim_s"] = rs[0].summary["sim_seconds"]
        out[key]["_n"] = len(rs)
    return out


def _count(x) -> str:
    """A count, or its mean over seeds (one decimal when not whole)."""
    if x is None:
        return "-"
    return f"{x:.0f}" if x == int(x) else f"{x:.1f}"


def _f(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def _analyse(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
    cells = _cells(summary)
    traces = [t for t in TRACES if any(k[0] == t for k in cells)]
    numbers: dict = {"capacity_mbps": {}, "cells": {}}
    sections = []
    for t in traces:
        sims = [c["_sim_s"] for (tr, _), c in cells.items() if tr == t]
        cap = trace_capacities(t, sims[0])
        numbers["capacity_mbps"][t] = cap
        rows = []
        for cc in CCS:
            c = cells.get((t, cc))
            if c is None:
                continue
            rec = {}
            for mode in MODES:
                f = c[mode]
                rec[mode] = {"goodput_mbps": f["goodput_mbps"],
                             "share_of_measured": f["goodput_mbps"] / cap["rate"],
                             "srtt_time_mean_ms": f.get("srtt_time_mean_ms"),
                             "retransmits": f["retransmits"], "rtos": f["rtos"]}
            rec["ran"]["share_of_nominal"] = (c["ran"]["goodput_mbps"] / cap["ran"]
                                              if cap["ran"] > 0 else None)
            numbers["cells"][f"{t}/{cc}"] = rec
            rows.append([cc] + [x for mode in MODES for x in (
                _f(rec[mode]["goodput_mbps"]), f"{rec[mode]['share_of_measured']:.0%}",
                _f(rec[mode]["srtt_time_mean_ms"], 0), _count(rec[mode]["retransmits"]),
                _count(rec[mode]["rtos"]))])
        sections.append(Section(f"{TRACES[t][2]} ({TRACES[t][0]}.csv)", [
            Note(f"Capacity over the run: measured {cap['rate']:.1f} Mbit/s mean; the RAN's "
                 f"nominal rate of the equivalent SINR {cap['ran']:.1f} Mbit/s mean. "
                 "Shares are of the measured capacity."),
            Table(["cc", "rate: goodput Mbit/s", "share", "SRTT ms", "retx", "RTOs",
                   "RAN: goodput Mbit/s", "share", "SRTT ms", "retx", "RTOs"], rows)]))
    findings = _findings(numbers, traces)
    return findings, sections, numbers


def _findings(numbers: dict, traces: list[str]) -> list[Finding]:
    cells = numbers["cells"]
    caps = numbers["capacity_mbps"]
    out = []
    shares = [v["rate"]["share_of_measured"] for v in cells.values()]
    out.append(Finding(
        "Replayed as a rate, no algorithm delivers more than the trace carries",
        "by definition (goodput counts payload, the trace IP bytes)",
        f"largest share {max(shares):.1%}" if shares else "-",
        (max(shares) <= 1.0) if shares else None))
    over = [(k, v["ran"]["goodput_mbps"] / caps[k.split("/")[0]]["ran"])
            for k, v in cells.items() if caps[k.split("/")[0]]["ran"] > 0]
    out.append(Finding(
        "Through the RAN, no algorithm delivers more than the cell's nominal rate of the "
        "equivalent SINR",
        "by construction (the MCS rates at 10 % BLER, before HARQ and RLC overheads)",
        f"largest share {max(s for _, s in over):.1%}" if over else "-",
        (max(s for _, s in over) <= 1.0) if over else None))
    for mode in MODES:
        lower = []
        for t in traces:
            c, b, v = (cells.get(f"{t}/{x}", {}).get(mode, {}).get("srtt_time_mean_ms")
                       for x in ("cubic", "bbr", "vegas"))
            if None not in (c, b, v):
                lower.append((t, c, b, v, b < c and v < c))
        out.append(Finding(
            f"{mode} mode: BBR and Vegas hold a lower time-averaged RTT than CUBIC on every "
            "trace (a 4 MB buffer that loss-based control fills)",
            "expected from their designs (delay-bounded vs loss-driven)",
            "; ".join(f"{t}: CUBIC {c:.0f}, BBR {b:.0f}, Vegas {v:.0f} ms"
                      for t, c, b, v, _ in lower) or "-",
            all(x[-1] for x in lower) if lower else None))
    return out


def _series_figure(out: Path, summary, trace: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import polars as pl

    from ..figures import save

    stem = TRACES[trace][0]
    t, r = read_csv_trace(HERE / "traces" / f"{stem}.csv")
    ts, s = read_csv_trace(HERE / "traces" / f"{stem}-sinr.csv")
    fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
    runs = {r_.group.get("cc"): r_ for r_ in summary.ok_runs if r_.group.get("trace") == trace}
    end = max((x.summary["sim_seconds"] for x in runs.values()), default=t[-1] + 1)
    for ax, mode in zip(axes, MODES):
        ax.step(t + [end], r + [r[-1]], where="post", color="k", lw=0.8,
                label="measured throughput")
        if mode == "ran":
            nom = [nominal_ran_rate_bps(x) / 1e6 for x in s]
            ax.step(ts + [end], nom + [nom[-1]], where="post", color="0.5", lw=0.8, ls="--",
                    label="RAN nominal rate (equivalent SINR)")
        for cc in ("cubic", "bbr"):
            run = runs.get(cc)
            if run is None:
                continue
            fid = {f["name"]: f["id"] for f in run.summary["flows"]}[mode]
            g = pl.read_parquet(out / run.path / "goodput.parquet").filter(pl.col("flow") == fid)
            ax.plot(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), lw=0.9, label=cc)
        ax.set_xlim(0, end)
        ax.set_ylabel("Mbit/s")
        ax.set_title(f"{TRACES[trace][2]}: {'replayed as a rate' if mode == 'rate' else 'through the nr-fr2 RAN'}",
                     fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    save(fig, out / "figures" / f"series-{trace}")
    return image(fig, f"goodput over time, {trace}")


def _timeseries(out: Path, duration: str | None) -> list[Section]:
    from ..summarize import compute

    summary = compute(out)
    traces = sorted({r.group.get("trace") for r in summary.ok_runs}, key=list(TRACES).index)
    return [Section("Goodput over time beside the measured throughput (CUBIC, BBR)",
                    [_series_figure(out, summary, t) for t in traces])]


REPRODUCTION = Reproduction(
    name="measured-5g",
    title="Measured 5G traces (5Gophers 1.0): every congestion control as a rate trace "
          "and through the nr-fr2 RAN",
    scenario="measured-5g.toml", default_runs=1, sweep=_sweep, analyse=_analyse,
    timeseries=_timeseries,
    notes=("No paper: the findings are checks by definition and design. The RAN mode's SINR "
           "is derived from the measured throughput (5Gophers measured no radio state), so "
           "the RAN quantises it to its MCS steps, makes seconds below 26 Mbit/s outages "
           "and holds those above 1.23 Gbit/s to its peak; the walk's 4G seconds are RAN "
           "outages. X-TCP is left out (uplink only). Round trip 20 ms and 4 MB buffers are "
           "ours. See mmtsim.reproductions.measured_5g's module doc."))
