"""``mmtsim reproduce NAME``: the X-TCP paper's (seed 000) studies, end to end.

Each reproduction is a sweep (:mod:`mmtsim.sweep`) over a packaged scenario
(``mmtsim/reproductions/*.toml``, Table I of the paper as defaults), followed by the
summary (:mod:`mmtsim.summarize`), the paper's figures redrawn from our runs, a list of the
paper's findings each checked against our numbers, and the HTML report with every
published number next to ours.

- ``xtcp-outage`` (Fig. 5, Table II, Fig. 4): one UE at 5 m/s, LOS → NLOS behind a
  building → a forced 1 s outage after 30 m → 30 m more NLOS → LOS with five small
  obstacles; uplink at R_app,max = 2 Gbit/s with xtcp, bic, illinois, cubic and newreno;
  ``runs`` independent channel realisations (seeds) each (paper: 200).
- ``xtcp-random`` (Fig. 1, Fig. 3, Fig. 2): two UEs crossing a rectangle with random
  obstacles at 1.75 m/s; both X-TCP, both CUBIC, and one of each; R_app,max ∈ {1, 2}
  Gbit/s; every seed also run with the two trajectories swapped (a paired replicate).

The sweep records no per-ACK RTT samples (``metrics.rtt = false``; the summary keeps mean
and minimum) to keep 1000-run sweeps fast; the time-series figures come from separate runs
of the first seed with every sample recorded. Nothing of Table I is changed to approach the
paper's numbers: where ours differ, the report and the findings say so.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import _toml
from .report import Image, Note, Section, Table, image

HERE = Path(__file__).resolve().parent / "reproductions"

XTCP_OUTAGE_CCS = ["xtcp", "bic", "illinois", "cubic", "newreno"]

#: Table II of seed 000: mean throughput (Mbit/s) ± 95 % CI half-width over N = 200 runs.
TABLE_II = {
    "xtcp": (1225.21, 15.81),
    "bic": (1051.32, 10.42),
    "illinois": (949.87, 10.78),
    "cubic": (342.79, 8.46),
    "newreno": (342.46, 10.33),
}

#: When the outage scenario's UE is back in LOS (s), from the geometry in xtcp-outage.toml.
OUTAGE_LOS_BACK_S = 15.0
#: "Full utilisation" for the recovery time: the 0.5 s moving mean of goodput reaches this
#: share of R_app,max (2 Gbit/s), below the LOS link rate, so an app-limited flow reaches it.
RECOVERY_SHARE = 0.9
R_APP_OUTAGE_MBPS = 2000.0


@dataclass
class Finding:
    """One of the paper's statements, with our numbers."""

    statement: str
    paper: str
    ours: str
    holds: bool | None  # None: cannot be judged from this run set


@dataclass
class Reproduction:
    name: str
    title: str
    scenario: str
    default_runs: int
    sweep: Callable[[int, str | None], dict]
    #: (findings, report sections, numbers) of a finished sweep.
    analyse: Callable[[Path, Any], tuple[list[Finding], list[Section], dict]]
    timeseries: Callable[[Path, str | None], list[Section]]
    paper: dict = field(default_factory=dict)
    #: Known modelling differences from the paper's setup, shown in the report.
    notes: str = ""


class ReproduceError(ValueError):
    """Bad arguments to a reproduction."""


# ---------------------------------------------------------------------------------------
# Sweep files
# ---------------------------------------------------------------------------------------


def _common_set(duration: str | None) -> dict:
    s: dict[str, Any] = {"metrics.rtt": False}
    if duration is not None:
        s["simulation.duration"] = duration
    return s


#: TCP variants of the outage study: Linux's TCP (the default) and ns-3's timeout rule for
#: ssthresh (``tcp.rto_ssthresh = "ns3"``), the documented ns-3 difference behind the
#: paper's slow NewReno (see the findings).
OUTAGE_TCP = {"linux": {}, "ns3": {"flows.0.tcp.rto_ssthresh": "ns3"}}


def _outage_sweep(runs: int, duration: str | None) -> dict:
    return {
        "description": "seed 000, Fig. 5 / Table II: throughput after an RTO",
        "base": str(HERE / "xtcp-outage.toml"),
        "seeds": runs,
        "set": _common_set(duration),
        "axes": [{"name": "cc", "key": "flows.0.cc", "values": XTCP_OUTAGE_CCS},
                 {"name": "tcp", "variants": [{"label": k, "set": v}
                                              for k, v in OUTAGE_TCP.items()]}],
    }


def _random_sweep(runs: int, duration: str | None) -> dict:
    def both(a: str, b: str) -> dict:
        return {"flows.0.cc": a, "flows.1.cc": b}

    def rate(r: str) -> dict:
        return {"flows.0.app.rate": r, "flows.1.app.rate": r}

    return {
        "description": "seed 000, Fig. 1 / Fig. 3: two UEs, random obstacles",
        "base": str(HERE / "xtcp-random.toml"),
        "seeds": runs,
        "set": _common_set(duration),
        "axes": [
            {"name": "mix", "variants": [
                {"label": "xtcp", "set": both("xtcp", "xtcp")},
                {"label": "cubic", "set": both("cubic", "cubic")},
                {"label": "mixed", "set": both("xtcp", "cubic")},
            ]},
            {"name": "rapp", "variants": [
                {"label": "1G", "set": rate("1Gbps")},
                {"label": "2G", "set": rate("2Gbps")},
            ]},
        ],
        # UE1 on the lower edge, UE2 in the upper part; swapped: the other way round.
        "replicates": [
            {"name": "as-is", "set": {}},
            {"name": "swapped", "set": {"ran.ues.0.position_m": [10, 45, 1.5],
                                        "ran.ues.1.position_m": [10, 2, 1.5]}},
        ],
    }


def _sweep_toml(d: dict) -> str:
    """The sweep dict as TOML. Its ``set`` tables' key paths ("flows.0.cc") contain dots,
    so the writer quotes them, as the sweep format requires."""
    return _toml.document(d)


# ---------------------------------------------------------------------------------------
# Analysis helpers
# ---------------------------------------------------------------------------------------


def _per_run(summary) -> list[dict]:
    return summary.per_run.to_dicts()


def _values(rows, **match) -> dict[str, float]:
    """{run_id: value} of the per-run rows matching ``match``."""
    out = {}
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()) and r["value"] is not None:
            out[r["run_id"]] = r["value"]
    return out


def _ci(values) -> tuple[float | None, float | None, int]:
    from .stats import mean_ci

    m = mean_ci(list(values))
    half = None if m.ci_high is None or m.mean is None else m.ci_high - m.mean
    return m.mean, half, m.n


def _fmt(mean, half, unit="") -> str:
    if mean is None:
        return "-"
    if half is None:
        return f"{mean:.1f}{unit}"
    return f"{mean:.1f} ± {half:.1f}{unit}"


# ---------------------------------------------------------------------------------------
# xtcp-outage
# ---------------------------------------------------------------------------------------


def recovery_time_s(t_s, goodput_mbps, after_s: float, target_mbps: float,
                    window_s: float = 0.5) -> float | None:
    """Seconds from ``after_s`` until the ``window_s`` moving mean of the goodput bins first
    reaches ``target_mbps`` (None if it never does)."""
    import numpy as np

    t = np.asarray(t_s, dtype=float)
    g = np.asarray(goodput_mbps, dtype=float)
    if t.size < 2:
        return None
    bin_s = float(np.median(np.diff(t)))
    k = max(1, int(round(window_s / bin_s)))
    sel = t >= after_s - 1e-9
    t, g = t[sel], g[sel]
    if g.size < k:
        return None
    mov = np.convolve(g, np.ones(k) / k, mode="valid")
    hit = np.nonzero(mov >= target_mbps)[0]
    if hit.size == 0:
        return None
    # The window ending at bin i + k − 1 first reaches the target: its end is the instant.
    return float(t[hit[0] + k - 1] + bin_s - after_s)


def _outage_table(out: Path, summary, rows, tcp: str) -> tuple[dict, dict]:
    """Per algorithm under TCP variant ``tcp``: (mean, half-width, n) of the throughput and
    ((mean, half-width, n) of the recovery time, runs that recover, runs)."""
    import polars as pl

    table = {}
    for cc in XTCP_OUTAGE_CCS:
        v = _values(rows, group_id=f"cc={cc},tcp={tcp}", entity_kind="flow", entity="ue",
                    metric="goodput_mbps")
        table[cc] = _ci(v.values())
    # Recovery after the RTO: from the return of LOS, per run.
    rec: dict[str, list[float | None]] = {cc: [] for cc in XTCP_OUTAGE_CCS}
    for r in summary.ok_runs:
        if r.group.get("tcp") != tcp:
            continue
        g = pl.read_parquet(out / r.path / "goodput.parquet")
        rec[r.group.get("cc")].append(
            recovery_time_s(g["t_s"].to_list(), g["goodput_mbps"].to_list(),
                            OUTAGE_LOS_BACK_S, RECOVERY_SHARE * R_APP_OUTAGE_MBPS))
    rec_stats = {}
    for cc, xs in rec.items():
        done = [x for x in xs if x is not None]
        rec_stats[cc] = (_ci(done), len(done), len(xs))
    return table, rec_stats


def _outage_analyse(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
    rows = _per_run(summary)
    tables = {tcp: _outage_table(out, summary, rows, tcp) for tcp in OUTAGE_TCP}
    table, rec_stats = tables["linux"]
    ns3_table, ns3_rec = tables["ns3"]

    means = {cc: table[cc][0] for cc in XTCP_OUTAGE_CCS}
    ns3_means = {cc: ns3_table[cc][0] for cc in XTCP_OUTAGE_CCS}
    have = all(m is not None for m in [*means.values(), *ns3_means.values()])
    findings = []
    if have:
        best = max(means, key=lambda c: means[c])
        findings.append(Finding(
            "X-TCP has the highest mean throughput",
            "1225 Mbit/s, next BIC 1051",
            f"highest: {best} ({means[best]:.0f} Mbit/s); X-TCP {means['xtcp']:.0f}",
            best == "xtcp"))
        low = max(means["cubic"], means["newreno"])
        findings.append(Finding(
            "BIC and Illinois follow; CUBIC and NewReno are lowest",
            "BIC 1051, Illinois 950 > CUBIC 343, NewReno 342",
            f"BIC {means['bic']:.0f}, Illinois {means['illinois']:.0f}; CUBIC "
            f"{means['cubic']:.0f}, NewReno {means['newreno']:.0f}",
            min(means["bic"], means["illinois"]) > low))
        findings.append(Finding(
            "BIC above Illinois",
            "1051 vs 950",
            f"{means['bic']:.0f} vs {means['illinois']:.0f}",
            means["bic"] > means["illinois"]))
        others = [ns3_means[cc] for cc in XTCP_OUTAGE_CCS if cc != "newreno"]
        findings.append(Finding(
            "ns-3's timeout rule makes NewReno crawl (lowest, below its Linux value)",
            "NewReno 342 (\"slow start ends almost at once\")",
            f"NewReno {ns3_means['newreno']:.0f} with ns-3's rule, {means['newreno']:.0f} "
            "with Linux's",
            ns3_means["newreno"] < min(others) and ns3_means["newreno"] < means["newreno"]))
    r_x = rec_stats["xtcp"][0][0]
    others_rec = {cc: rec_stats[cc][0][0] for cc in XTCP_OUTAGE_CCS if cc != "xtcp"}
    if r_x is not None:
        worse = all(v is None or v >= r_x for v in others_rec.values())
        findings.append(Finding(
            "X-TCP recovers fastest after the RTO",
            "X-TCP almost at once; BIC in 5 s, Illinois in 9 s; CUBIC and NewReno not within "
            "the run",
            "; ".join(f"{cc} {_fmt(*rec_stats[cc][0][:2], ' s')} "
                      f"({rec_stats[cc][1]}/{rec_stats[cc][2]} runs recover)"
                      for cc in XTCP_OUTAGE_CCS),
            worse))

    sections = []
    numbers = {}
    for tcp, (tab, rec) in tables.items():
        rows_html = []
        for cc in XTCP_OUTAGE_CCS:
            pm, ph = TABLE_II[cc]
            m, h, n = tab[cc]
            (rm, rh, _), k, nn = rec[cc]
            rows_html.append([cc, f"{pm:.1f} ± {ph:.1f}", _fmt(m, h), n,
                              "-" if m is None else f"{(m - pm) / pm:+.0%}",
                              _fmt(rm, rh, " s") + f" ({k}/{nn})"])
        what = ("Linux's TCP (default)" if tcp == "linux" else
                "ns-3's timeout rule for ssthresh (tcp.rto_ssthresh = \"ns3\")")
        sections.append(Section(
            f"Table II, {what}: mean throughput (Mbit/s), mean ± Student-t 95 % CI",
            [Table(["algorithm", "paper (N = 200)", "mmtsim", "runs", "difference",
                    f"recovery to {RECOVERY_SHARE:.0%} of R_app after LOS returns at "
                    f"{OUTAGE_LOS_BACK_S:g} s"], rows_html)]))
        key = "table_ii" if tcp == "linux" else f"table_ii_{tcp}"
        numbers[key] = {cc: {"paper": TABLE_II[cc], "mmtsim": tab[cc][:2], "runs": tab[cc][2],
                             "recovery_s": rec[cc][0][:2], "recovered_runs": rec[cc][1]}
                        for cc in XTCP_OUTAGE_CCS}
    return findings, sections, numbers


def _outage_timeseries(out: Path, duration: str | None) -> list[str]:
    """Fig. 4-like, seed 1, for Linux's TCP and ns-3's timeout rule side by side: goodput,
    and cwnd with ssthresh (log scale) and the timeouts, of every algorithm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from .api import run
    from .figures import save

    fig, axes = plt.subplots(2, len(OUTAGE_TCP), figsize=(13, 6.5), sharex=True,
                             sharey="row", squeeze=False)
    colours = dict(zip(XTCP_OUTAGE_CCS, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for col, (tcp, sets) in enumerate(OUTAGE_TCP.items()):
        top, bottom = axes[0][col], axes[1][col]
        for cc in XTCP_OUTAGE_CCS:
            ov = {"flows.0.cc": cc, **sets}
            if duration is not None:
                ov["simulation.duration"] = duration
            res = run(HERE / "xtcp-outage.toml", seed=1, overrides=ov)
            g = res.table("goodput")
            top.plot(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), label=cc, lw=1,
                     color=colours[cc])
            c = res.table("cwnd")
            t = c["t_s"].to_numpy()
            bottom.plot(t, c["cwnd_bytes"].to_numpy() / 1400, lw=1, color=colours[cc])
            ss = c["ssthresh_bytes"].fill_null(np.nan).to_numpy().astype(float) / 1400
            bottom.plot(t, ss, lw=1, ls="--", color=colours[cc])
            rtos = res.summary["flows"][0]["rto_times_s"]
            bottom.plot(rtos, [1.5] * len(rtos), "v", color=colours[cc], ms=5)
        for ax in (top, bottom):
            for a, b, what in [(2, 8, "NLOS"), (8, 9, "outage"), (9, 15, "NLOS")]:
                ax.axvspan(a, b, color="0.9" if what == "NLOS" else "0.7", lw=0)
        top.set_title("Linux's TCP" if tcp == "linux" else "ns-3's timeout rule for ssthresh")
        bottom.set_yscale("log")
        bottom.set_xlabel("time (s)")
    axes[0][0].set_ylabel("goodput (Mbit/s)")
    axes[1][0].set_ylabel("segments: cwnd —, ssthresh - -; ▼ RTO")
    axes[0][0].legend(ncol=5, fontsize=8)
    fig.suptitle("xtcp-outage, seed 1 (cf. seed 000, Fig. 4); grey: NLOS, dark: outage")
    fig.tight_layout()
    base = out / "figures" / "fig4-goodput"
    save(fig, base)
    return [Section("Fig. 4-like: goodput, cwnd and ssthresh over time (seed 1)",
                    [image(fig, "Fig. 4-like")])]


# ---------------------------------------------------------------------------------------
# xtcp-random
# ---------------------------------------------------------------------------------------

RANDOM_METRICS = [("rtt_mean_ms", "flow", "RTT, per-ACK mean (ms)"),
                  ("rlc_ul_mean_bytes", "ue", "RLC buffer (kB)"),
                  ("goodput_mbps", "flow", "throughput (Mbit/s)")]


def _random_flavours(group: dict) -> dict[str, str]:
    """Flow/UE name → congestion control, per the mix."""
    mix = group.get("mix")
    if mix == "mixed":
        return {"ue1": "xtcp", "ue2": "cubic"}
    return {"ue1": mix, "ue2": mix}


def _random_analyse(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
    import numpy as np

    # One pass over the per-run table: (run, kind, entity, metric) → value.
    value = {(r["run_id"], r["entity_kind"], r["entity"], r["metric"]): r["value"]
             for r in _per_run(summary) if r["value"] is not None}
    runs = {r.run_id: r for r in summary.ok_runs}
    # Fig. 3: per (mix, rapp, flavour) the per-run mean over that flavour's flows/UEs.
    fig3: dict[tuple[str, str, str], dict[str, tuple]] = {}
    for (mix, rapp) in [(m, r) for m in ("xtcp", "cubic", "mixed") for r in ("1G", "2G")]:
        for flav in ("xtcp", "cubic"):
            cell = {}
            for metric, kind, _ in RANDOM_METRICS:
                per_run = []
                for rid, rr in runs.items():
                    if rr.group.get("mix") != mix or rr.group.get("rapp") != rapp:
                        continue
                    names = [n for n, f in _random_flavours(rr.group).items() if f == flav]
                    vals = [value[k] for n in names
                            if (k := (rid, kind, n, metric)) in value]
                    if vals:
                        per_run.append(float(np.mean(vals)))
                if per_run:
                    cell[metric] = _ci(per_run)
            if cell:
                fig3[(mix, rapp, flav)] = cell

    def mean(mix, rapp, flav, metric):
        c = fig3.get((mix, rapp, flav), {}).get(metric)
        return None if c is None else c[0]

    findings = []
    for rapp in ("1G", "2G"):
        rx, rc = mean("xtcp", rapp, "xtcp", "rtt_mean_ms"), mean("cubic", rapp, "cubic",
                                                                 "rtt_mean_ms")
        if rx is not None and rc is not None:
            findings.append(Finding(
                f"X-TCP's mean RTT is below CUBIC's (R_app {rapp})",
                "about half: ratio ≈ 0.5 (Fig. 3a)", f"{rx:.1f} / {rc:.1f} ms = {rx / rc:.2f}", rx < rc))
        bx, bc = (mean("xtcp", rapp, "xtcp", "rlc_ul_mean_bytes"),
                  mean("cubic", rapp, "cubic", "rlc_ul_mean_bytes"))
        if bx is not None and bc is not None:
            findings.append(Finding(
                f"X-TCP's RLC buffer occupancy is below CUBIC's (R_app {rapp})",
                "more than 50 % smaller: ratio < 0.5 (Fig. 3b, conclusions)",
                f"{bx / 1e3:.0f} / {bc / 1e3:.0f} kB = {bx / max(bc, 1e-9):.2f}", bx < bc))
    gx, gc = mean("xtcp", "1G", "xtcp", "goodput_mbps"), mean("cubic", "1G", "cubic",
                                                              "goodput_mbps")
    if gx is not None and gc is not None:
        findings.append(Finding(
            "equal throughput when the cell is not saturated (R_app 1 Gbit/s)",
            "no difference (Fig. 3c)", f"X-TCP {gx:.0f}, CUBIC {gc:.0f} Mbit/s",
            abs(gx - gc) <= 0.05 * max(gx, gc)))
    cx = fig3.get(("mixed", "2G", "xtcp"), {}).get("goodput_mbps")
    cc_ = fig3.get(("mixed", "2G", "cubic"), {}).get("goodput_mbps")
    if cx is not None and cc_ is not None:
        (mx, hx, _), (mc, hc, _) = cx, cc_
        # Holds only if the two 95 % intervals do not overlap (a difference, not noise).
        apart = hx is not None and hc is not None and mx - hx > mc + hc
        findings.append(Finding(
            "sharing a saturated cell (R_app 2 Gbit/s), X-TCP takes more than CUBIC",
            "+23 %", f"{_fmt(mx, hx)} vs {_fmt(mc, hc)} Mbit/s = {mx / mc - 1:+.0%}", apart))
    for flav in ("xtcp", "cubic"):
        g = mean(flav, "2G", flav, "goodput_mbps")
        if g is not None:
            findings.append(Finding(
                f"both UEs {flav}, R_app 2 Gbit/s: about 600 Mbit/s each", "≈ 600 Mbit/s",
                f"{g:.0f} Mbit/s", None))

    header = ["scenario", "R_app", "flavour"] + [lab for _, _, lab in RANDOM_METRICS]
    trs = []
    for (mix, rapp, flav), cell in fig3.items():
        vals = []
        for metric, _, _ in RANDOM_METRICS:
            c = cell.get(metric)
            if c is None:
                vals.append("-")
            elif metric == "rlc_ul_mean_bytes":
                vals.append(_fmt(c[0] / 1e3, None if c[1] is None else c[1] / 1e3))
            else:
                vals.append(_fmt(c[0], c[1]))
        trs.append([{"xtcp": "both X-TCP", "cubic": "both CUBIC", "mixed": "one of each"}[mix],
                    rapp, flav] + vals)
    sections = [Section("Fig. 3-like: mean RTT, RLC buffer occupancy and throughput per "
                        "flavour (mean ± 95 % CI over seeds × trajectory swaps)",
                        [Table(header, trs), _random_bars(out, fig3)])]
    numbers = {"fig3": {"/".join(k): {m: list(v[:2]) + [v[2]] for m, v in cell.items()}
                        for k, cell in fig3.items()}}
    return findings, sections, numbers


def _random_bars(out: Path, fig3) -> Image:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .figures import save

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
    keys = list(fig3)
    labels = [f"{m}\n{r}\n{f}" for m, r, f in keys]
    for ax, (metric, _, lab) in zip(axes, RANDOM_METRICS):
        scale = 1e-3 if metric == "rlc_ul_mean_bytes" else 1.0
        ys = [(fig3[k].get(metric) or (None, None, 0)) for k in keys]
        h = [0 if y[0] is None else y[0] * scale for y in ys]
        e = [0 if y[1] is None else y[1] * scale for y in ys]
        colors = ["tab:blue" if k[2] == "xtcp" else "tab:orange" for k in keys]
        ax.bar(range(len(keys)), h, yerr=e, color=colors, capsize=3)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, fontsize=6)
        ax.set_ylabel(lab)
    fig.suptitle("xtcp-random (cf. seed 000, Fig. 3); blue X-TCP, orange CUBIC")
    fig.tight_layout()
    save(fig, out / "figures" / "fig3-bars")
    return image(fig, "Fig. 3-like bars")


def _random_timeseries(out: Path, duration: str | None) -> list[Section]:
    """Fig. 2-like: cwnd, RTT and throughput of UE1, X-TCP vs CUBIC (both UEs alike), seed 1,
    R_app 1 Gbit/s."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .api import run
    from .figures import save

    fig, axes = plt.subplots(3, 1, figsize=(9, 7), sharex=True)
    for cc in ("xtcp", "cubic"):
        ov = {"flows.0.cc": cc, "flows.1.cc": cc}
        if duration is not None:
            ov["simulation.duration"] = duration
        res = run(HERE / "xtcp-random.toml", seed=1, overrides=ov)
        c = res.table("cwnd").filter(res.table("cwnd")["flow"] == 0)
        r = res.table("rtt").filter(res.table("rtt")["flow"] == 0)
        g = res.table("goodput").filter(res.table("goodput")["flow"] == 0)
        axes[0].plot(c["t_s"].to_numpy(), c["cwnd_bytes"].to_numpy() / 1e6, label=cc, lw=1)
        step = max(1, r.height // 5000)
        axes[1].plot(r["t_s"].to_numpy()[::step], r["rtt_ms"].to_numpy()[::step], label=cc,
                     lw=0.8)
        axes[2].plot(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), label=cc, lw=1)
    for ax, lab in zip(axes, ["cwnd (MB)", "RTT per ACK (ms)", "throughput (Mbit/s)"]):
        ax.set_ylabel(lab)
        ax.legend(fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("xtcp-random, UE1, seed 1, R_app 1 Gbit/s (cf. seed 000, Fig. 2)")
    fig.tight_layout()
    save(fig, out / "figures" / "fig2-ue1")
    return [Section("Fig. 2-like: UE1 over time", [image(fig, "Fig. 2-like")])]


REPRODUCTIONS: dict[str, Reproduction] = {
    "xtcp-outage": Reproduction(
        name="xtcp-outage", title="X-TCP outage scenario (seed 000, Fig. 5, Table II)",
        scenario="xtcp-outage.toml", default_runs=200, sweep=_outage_sweep,
        analyse=_outage_analyse, timeseries=_outage_timeseries,
        paper={f"cc={cc}/ue/goodput_mbps": {"value": v[0], "source": "Table II"}
               for cc, v in TABLE_II.items()},
        notes=("The building's dimensions are ours (the paper gives the distances). Behind "
               "the building our uplink keeps about 14–21 dB SINR (NYU NLOS path loss, 30 dBm, "
               "8×8/4×4 beamforming), so NLOS costs the loss-based algorithms less than in "
               "the paper's Fig. 4, whose slow climb it attributes to losses in NLOS after "
               "the RTO; our RLC AM masks most of those. The default table is Linux's TCP: "
               "one ssthresh cut per loss episode, so after the outage's timeouts slow start "
               "climbs back to half the pre-outage window within about half a second. The "
               "ns-3 table applies ns-3's timeout rule (3.27 on): every backed-off timeout "
               "recomputes ssthresh from the one-segment flight then, so a 1 s outage with a "
               "200 ms minimum RTO leaves every algorithm at 2 segments; what separates them "
               "is how fast each grows back from there. Our algorithms are Linux's: Linux's "
               "CUBIC regrows about 5 % per RTT once its W_max is reset, BIC probes up to 16 "
               "segments per RTT, NewReno adds one. With ns-3's 1 s minimum RTO the outage "
               "would see one timeout and no collapse. TCP has no RACK/TLP (as 2017 ns-3): a "
               "lost retransmission waits for an ""RTO. RLC AM timers are those of ns-3 mmWave's TCP example of the time "
               "(4/2/1 ms).")),
    "xtcp-random": Reproduction(
        name="xtcp-random", title="X-TCP random scenario (seed 000, Fig. 1, Fig. 3)",
        scenario="xtcp-random.toml", default_runs=10, sweep=_random_sweep,
        analyse=_random_analyse, timeseries=_random_timeseries,
        notes=("The rectangle, the obstacles (12, 2–10 m wide, 2–15 m tall) and the 40 s "
               "duration are ours: the paper gives none of them. Our UEs are in LOS much of "
               "the time and our NLOS rates are high, so each UE gets about 1.3 Gbit/s at "
               "R_app 2 Gbit/s against the paper's ≈ 600 Mbit/s, and X-TCP's quicker refill "
               "after NLOS → LOS (the paper's reason for its +23 % against CUBIC) has little "
               "to gain.")),
}


# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------


@dataclass
class ReproductionResult:
    name: str
    out: Path
    report: Path
    findings: list[Finding]
    numbers: dict
    sweep: Any


def reproduce(name: str, out: str | os.PathLike | None = None, runs: int | None = None,
              workers: int | None = None, dask: str | None = None,
              duration: str | None = None, progress: bool = True,
              timeseries: bool = True) -> ReproductionResult:
    """Runs reproduction ``name`` into ``out`` (default ``out/<name>``); returns its findings.

    ``runs``: seeds per group (default: the paper's 200 for ``xtcp-outage``, 10 for
    ``xtcp-random``). ``duration``: shorten every run (for quick checks; the paper's
    findings concern the full runs). Resumable like any sweep."""
    from .report import render
    from .summarize import compute, write
    from .sweep import _write_json, sweep

    if name not in REPRODUCTIONS:
        raise ReproduceError(f"unknown reproduction {name!r}; known: "
                             + ", ".join(REPRODUCTIONS))
    rep = REPRODUCTIONS[name]
    if runs is None:
        runs = rep.default_runs
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ReproduceError(f"runs = {runs!r}: expected a positive integer")
    out = Path(out) if out is not None else Path("out") / name
    text = _sweep_toml(rep.sweep(runs, duration))
    # The sweep file lives beside the folder while the sweep runs (the sweep refuses a
    # non-empty folder that is not yet a sweep), then is kept inside it for the record.
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as tmp:
        sweep_file = Path(tmp) / f"{name}.sweep.toml"
        sweep_file.write_text(text)
        res = sweep(sweep_file, out, workers=workers, dask=dask, progress=progress)
    (out / "sweep.toml").write_text(text)
    # Provenance names what a reader can find again: the sweep file kept in the folder and
    # the packaged scenario, not the temporary file the sweep ran from.
    manifest = json.loads((out / "sweep.json").read_text())
    manifest["sweep_file"] = "sweep.toml"
    manifest["base"] = f"mmtsim/reproductions/{rep.scenario}"
    _write_json(out / "sweep.json", manifest)
    summary = compute(out)
    write(summary)
    findings, sections, numbers = rep.analyse(out, summary)
    if timeseries:
        sections = sections + rep.timeseries(out, duration)
    find_rows = [[f.statement, f.paper, f.ours,
                  {True: "yes", False: "NO", None: "-"}[f.holds]] for f in findings]
    checked = [Table(["finding", "paper", "mmtsim", "holds"], find_rows)]
    if rep.notes:
        checked.append(Note(f"Known modelling differences: {rep.notes}"))
    extra = [Section(rep.title, level=2, anchor="reproduction"),
             Section("the paper's findings, checked", checked), *sections]
    # The sweep keeps no per-ACK RTT samples: the time series are the separate runs above.
    html = render(summary, rep.paper or None, timeseries=0, extra=extra)
    report_path = out / "report.html"
    tmp = out / ".report.html.tmp"
    tmp.write_text(html)
    tmp.replace(report_path)
    (out / "reproduction.json").write_text(json.dumps({
        "name": name, "runs": runs, "duration": duration,
        "findings": [f.__dict__ for f in findings], "numbers": numbers,
        "finished": res.n_finished, "skipped": res.n_skipped, "failed": res.n_failed,
    }, indent=2, default=str) + "\n")
    return ReproductionResult(name, out, report_path, findings, numbers, res)


def format_findings(r: ReproductionResult) -> str:
    lines = [f"{r.name}: {r.sweep}", ""]
    w = max([len(f.statement) for f in r.findings] + [7])
    for f in r.findings:
        mark = {True: "yes", False: "NO ", None: " - "}[f.holds]
        lines.append(f"[{mark}] {f.statement.ljust(w)}  paper: {f.paper}")
        lines.append(f"      {'':{w}}  mmtsim: {f.ours}")
    lines.append("")
    lines.append(f"report: {r.report}")
    return "\n".join(lines)
