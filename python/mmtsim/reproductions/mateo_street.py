"""``mateo-handover`` and ``mateo-square``: seed 002's (Mateo et al.) handover and
multi-user studies (Sec. III-B, Fig. 3; Sec. III-C, Figs. 4-6).

The paper's setup: ns-3's mmWave module, APs at 28 GHz with 1 GHz of bandwidth and
30 dBm, RLC AM with a 7 MB buffer and a 200 ms RTO (Sec. III-A settles on these for every
later study), handover by a fixed time-to-trigger of 200 µs; CUBIC against YeAH.

- ``mateo-handover`` (Fig. 3): a street with three APs 20 m apart, lampposts every 20 m and
  a 13.5 m bus parked on the far lane; one UE walks along the near pavement at 1.5 m/s and
  downloads with CUBIC or YeAH. Fig. 3(b) (SINR coloured by the serving AP, NLOS to each
  AP shaded) and Fig. 3(c) (throughput over time) are redrawn from the first seed; the
  findings ("CUBIC drops its rate and recovers quickly; YeAH switches to slow mode and
  reaches link capacity slowly") are quantified over the seeds against the link capacity,
  a UDP flow above the peak rate over the same channel realisation (the ``udp`` arm): per
  handover episode (:func:`handover_episodes`) the deepest drop below the capacity and
  whether, and how fast, the flow is back at 80 % of it before the next episode
  (:func:`episode_recoveries`), and the mean throughput of the walk.
- ``mateo-square`` (Figs. 4-6): four APs on the corners of a square with a statue and
  lampposts, ten UEs: UE0 FTP at 500 Mbit/s for the whole run, UE2, UE4, UE5 video
  (4 Mbit/s for 30 s, then 2 s of pause), UE1 a 100 MB file (the paper's "medium-sized
  flow of UE1"), the others instant messages; UE6-UE9 static. Every flow uses CUBIC or
  YeAH. Fig. 5: successful transmissions and retransmissions per UE; Fig. 6: the CDF of
  UE4's contribution to its AP's RLC buffer (its RLC downlink occupancy, sampled every
  10 ms while that AP serves it) with and without UE0's traffic (``ue0`` axis: UE0's flow
  stopped at 1 ns, so it sends nothing).

Modelling choices, and where they depart from the paper
-------------------------------------------------------

- **Geometry.** The scenes are ``examples/street-handover.toml`` and
  ``examples/square-10ues.toml`` (their headers give our reading of Figs. 3(a) and 4, which
  carry no coordinates). The packaged ``mateo-handover.toml`` and ``mateo-square.toml`` add
  the paper's RLC buffer (7 MB) and minimum RTO (200 ms).
- **What the paper leaves out** is ns-3 mmWave's of its time: RLC AM with the timers of
  its TCP example (t-PollRetransmit 4 ms, t-Reordering 2 ms, t-StatusProhibit 1 ms, as in
  ``xtcp-outage.toml``), 1400-byte segments; mmtsim's own handover interruption (50 ms)
  and preparation delays.
- **TCP.** mmtsim's Linux TCP (SACK, RACK-TLP, F-RTO) with the paper's 200 ms minimum RTO;
  ns-3's TCP of 2018 had neither RACK nor TLP.
- **Channel, two arms** (``channel`` axis). ``fading``: mmtsim's small-scale fading (Rician
  K = 9 dB in LOS, Rayleigh in NLOS, flat over the band), mmtsim's default and the closest
  to ns-3 mmWave's channel, which has small-scale fading; it is the source of the runs'
  randomness. Flat fading is harsher than ns-3's beamformed, frequency-selective channel
  (``crates/channel/src/fading.rs``), and with the paper's unfiltered measurements, zero
  hysteresis and 200 µs time-to-trigger it makes the UE hop between two APs of similar path
  loss every few tens of milliseconds (hundreds of handovers in a run). ``static``: no
  fading (the examples' channel: path loss and blockage only); deterministic, so every seed
  gives the same run and its interval is zero; a handful of handovers, at the blockages.
  The findings are judged in each arm.
- **Square.** "AP4" of the paper is the AP that serves UE4 along its walk; in our layout
  UE4 walks near ``ap2``, which also serves UE0 and UE5 there, as the paper's AP4 does. The
  CDF is of UE4's own RLC occupancy while that AP serves it (mmtsim's ``ran`` table:
  ``rlc_dl_bytes`` per UE every 10 ms: the bytes waiting for their first transmission or
  a retransmission; PDUs sent and awaiting their RLC acknowledgement are not counted, and
  mmtsim has no series of them). "Successful transmissions" are the packets delivered
  (bytes delivered / 1400 B), "retransmissions" TCP's retransmitted segments.
- **What does not carry over.** Our cells serve about 3 Gbit/s; the square's offered load
  (500 Mbit/s, three 4 Mbit/s videos, a 100 MB file that completes within seconds) leaves
  UE4's 4 Mbit/s video with an RLC queue that is empty at practically every sample, with
  or without UE0, so Fig. 6's contrasts (UE0 raising UE4's occupancy, CUBIC above YeAH)
  do not appear. Retransmissions come from handovers and blockage, not from queues.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..report import Image, Note, Section, Table, image
from .common import HERE, Finding, Reproduction, _ci, _common_set, _fmt, _per_run
from .paper import MATEO_SQUARE_RLC_RATIO, MATEO_UE0_RATE_MBPS

#: The algorithms compared in Figs. 3, 5 and 6.
CCS = ["cubic", "yeah"]
#: The channel arms (see the module doc).
CHANNELS = ["fading", "static"]
#: Handovers closer than this (s) form one episode (a rapid sequence).
EPISODE_GAP_S = 0.5
#: Moving-mean window (s) of the goodput bins (100 ms) in the recovery and drop measures.
WINDOW_S = 0.2
#: Recovered: the flow's moving mean is back at this share of the link capacity's (the
#: UDP reference's moving mean over the same window, same channel realisation).
RECOVERY_SHARE = 0.8
#: A "drop" at a handover episode: the flow's lowest moving mean within it (and
#: DROP_AFTER_S after it) at least this share below the capacity's.
DROP_SHARE = 0.25
DROP_AFTER_S = 0.5
#: The link-capacity reference: a UDP flow at a constant rate above the preset's peak
#: (3.135 Gbit/s), with 1400-byte payloads like the TCP segments.
UDP_RATE = "3500Mbps"
UDP_PAYLOAD = "1400B"
#: "The same buffer occupancy": the CDFs of UE4's RLC occupancy no further apart than this.
SAME_CDF = 0.1
#: Segment size of both scenarios (mmtsim's default, as ns-3 mmWave's TCP example).
MSS_B = 1400
#: The square's flows, in UE order (flow i goes to UE i).
SQUARE_FLOWS = ["ue0-ftp", "ue1-file", "ue2-video", "ue3-im", "ue4-video", "ue5-video",
                "ue6-im", "ue7-im", "ue8-im", "ue9-im"]
STATIC_UES = ["ue6", "ue7", "ue8", "ue9"]
#: The ``ue0`` axis: UE0's FTP on, or stopped at 1 ns (it sends nothing).
UE0_ARMS = {"with": {}, "without": {"flows.0.stop": "1ns"}}


def channel_set(channel: str) -> dict[str, Any]:
    return {"ran.channel.fading": channel == "fading"}


def _channel_axis() -> dict:
    return {"name": "channel", "variants": [{"label": c, "set": channel_set(c)}
                                            for c in CHANNELS]}


# ---------------------------------------------------------------------------------------
# Handover episodes and recovery
# ---------------------------------------------------------------------------------------


def handover_episodes(times, gap_s: float = EPISODE_GAP_S) -> list[tuple[float, float]]:
    """(first, last) handover instant of each episode: handovers less than ``gap_s`` apart
    belong to one episode."""
    ts = sorted(float(t) for t in times)
    out: list[tuple[float, float]] = []
    for t in ts:
        if out and t - out[-1][1] < gap_s:
            out[-1] = (out[-1][0], t)
        else:
            out.append((t, t))
    return out


def _moving(g, k: int):
    import numpy as np

    return np.convolve(np.asarray(g, dtype=float), np.ones(k) / k, mode="valid")


def episode_recoveries(t_s, goodput_mbps, capacity_mbps, episodes, end_s: float
                       ) -> list[dict]:
    """Per episode: the drop (``drop``: 1 − the lowest ratio of the flow's :data:`WINDOW_S`
    moving mean to the capacity's, over the windows that start between the first handover
    and :data:`DROP_AFTER_S` after the last and where the capacity is above zero), and the
    recovery time (``recovery_s``): from the last handover until the first window whose
    flow mean reaches :data:`RECOVERY_SHARE` of the capacity's (capacity above zero), the
    window's end being the instant; None if that comes after the next episode's first
    handover or the end, and then ``censored_s`` is the time it had. ``goodput_mbps`` and
    ``capacity_mbps`` are goodput bins at the instants ``t_s`` (the same bins)."""
    import numpy as np

    t = np.asarray(t_s, dtype=float)
    n = min(t.size, len(goodput_mbps), len(capacity_mbps))
    if n < 2:
        return []
    t = t[:n]
    bin_s = float(np.median(np.diff(t)))
    k = max(1, int(round(WINDOW_S / bin_s)))
    if n < k:
        return []
    g = _moving(np.asarray(goodput_mbps, dtype=float)[:n], k)
    c = _moving(np.asarray(capacity_mbps, dtype=float)[:n], k)
    start = t[: g.size]  # window i covers [start_i, start_i + k·bin)
    win_end = start + k * bin_s
    pos = c > 0
    ratio = np.where(pos, g / np.where(pos, c, 1.0), np.nan)
    out = []
    for i, (first, last) in enumerate(episodes):
        nxt = episodes[i + 1][0] if i + 1 < len(episodes) else end_s
        sel = (start >= first - 1e-9) & (start <= last + DROP_AFTER_S + 1e-9) & pos
        drop = None if not sel.any() else max(0.0, 1.0 - float(np.min(ratio[sel])))
        hit = np.nonzero((start >= last - 1e-9) & pos & (g >= RECOVERY_SHARE * c))[0]
        rec = float(win_end[hit[0]] - last) if hit.size else None
        ok = rec is not None and last + rec <= nxt + 1e-9
        out.append({"first_s": first, "last_s": last, "drop": drop,
                    "recovery_s": rec if ok else None,
                    "censored_s": None if ok else max(0.0, nxt - last)})
    return out


def run_recovery(eps: list[dict]) -> tuple[float | None, float | None, float | None]:
    """(mean recovery time of the episodes that recover, share of episodes that recover
    before the next, mean drop) of one run."""
    if not eps:
        return None, None, None
    times = [e["recovery_s"] for e in eps if e["recovery_s"] is not None]
    drops = [e["drop"] for e in eps if e["drop"] is not None]
    return (sum(times) / len(times) if times else None, len(times) / len(eps),
            sum(drops) / len(drops) if drops else None)


# ---------------------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------------------


#: The street's flow as the UDP capacity reference (the ``udp`` arm of the ``cc`` axis).
UDP_FLOW = {"name": "flow0", "from": "server", "to": "ue", "protocol": "udp",
            "app": {"kind": "cbr", "rate": UDP_RATE, "payload": UDP_PAYLOAD}}


def _handover_sweep(runs: int, duration: str | None) -> dict:
    s = _common_set(duration)
    s["ran.handover.log_measurements_every"] = 0  # the measurements table: time series only
    return {
        "description": "seed 002, Fig. 3: a walker handed over along a street, CUBIC vs YeAH",
        "base": str(HERE / "mateo-handover.toml"),
        "seeds": runs,
        "set": s,
        "axes": [_channel_axis(),
                 {"name": "cc", "variants": [{"label": c, "set": {"flows.0.cc": c}}
                                             for c in CCS]
                  + [{"label": "udp", "set": {"flows": [UDP_FLOW]}}]}],
    }


def cc_set(cc: str, n: int = len(SQUARE_FLOWS)) -> dict[str, Any]:
    return {f"flows.{i}.cc": cc for i in range(n)}


def _square_sweep(runs: int, duration: str | None) -> dict:
    return {
        "description": "seed 002, Figs. 5-6: ten UEs in a square, CUBIC vs YeAH, with and "
                       "without UE0's FTP",
        "base": str(HERE / "mateo-square.toml"),
        "seeds": runs,
        "set": _common_set(duration),
        "axes": [_channel_axis(),
                 {"name": "ue0", "variants": [{"label": k, "set": v}
                                              for k, v in UE0_ARMS.items()]},
                 {"name": "cc", "variants": [{"label": c, "set": cc_set(c)} for c in CCS]}],
    }


# ---------------------------------------------------------------------------------------
# Shared analysis helpers
# ---------------------------------------------------------------------------------------


def _run_values(summary) -> dict:
    return {(r["run_id"], r["entity_kind"], r["entity"], r["metric"]): r["value"]
            for r in _per_run(summary) if r["value"] is not None}


def _by_seed(summary, value, match: dict, kind: str, entity: str, metric: str) -> dict:
    out = {}
    for r in summary.ok_runs:
        if all(r.group.get(k) == v for k, v in match.items()):
            v = value.get((r.run_id, kind, entity, metric))
            if v is not None:
                out[r.seed] = float(v)
    return out


def paired_greater(a: dict, b: dict) -> bool | None:
    """Whether a > b over paired seeds: the 95 % interval of the mean paired difference
    lies above zero; with identical differences (a deterministic arm) or one pair, the sign
    of the difference. None without pairs."""
    d = [a[k] - b[k] for k in a if k in b]
    if not d:
        return None
    m, h, n = _ci(d)
    if n < 2 or h is None or h == 0:
        return m > 0
    return m - h > 0


def _cell(d) -> str:
    vals = list(d.values()) if isinstance(d, dict) else list(d)
    m, h, _ = _ci(vals)
    return _fmt(m, h)


def _mean(d) -> float | None:
    vals = list(d.values()) if isinstance(d, dict) else list(d)
    return _ci(vals)[0]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---------------------------------------------------------------------------------------
# mateo-handover: analysis
# ---------------------------------------------------------------------------------------


def _handover_runs(out: Path, summary) -> dict:
    """(channel, cc) → {seed: per-run numbers}; the TCP runs' episodes are measured against
    the UDP run of the same channel arm and seed."""
    from ..api import read_run

    value = _run_values(summary)
    capacity: dict = {}
    udp: dict = {}
    udp_path: dict = {}
    for r in summary.ok_runs:
        if r.group.get("cc") == "udp":
            udp_path[(r.group.get("channel"), r.seed)] = r.path
            g = read_run(out / r.path).table("goodput")
            capacity[(r.group.get("channel"), r.seed)] = g["goodput_mbps"].to_numpy()
            udp[(r.group.get("channel"), r.seed)] = value.get(
                (r.run_id, "flow", "flow0", "goodput_mbps"))
    res: dict = {(ch, cc): {} for ch in CHANNELS for cc in CCS}
    for r in summary.ok_runs:
        key = (r.group.get("channel"), r.group.get("cc"))
        if key not in res:
            continue
        run = read_run(out / r.path)
        g = run.table("goodput")
        ho = run.table("handovers")
        ho = ho.filter(ho["success"]) if ho.height else ho
        end = float(run.summary.get("sim_seconds") or (g["t_s"].max() or 0.0))
        cap = capacity.get((key[0], r.seed))
        eps = ([] if cap is None else
               episode_recoveries(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), cap,
                                  handover_episodes(ho["t_s"].to_list()), end))
        rec, share, drop = run_recovery(eps)
        gp = value.get((r.run_id, "flow", "flow0", "goodput_mbps"))
        u = udp.get((key[0], r.seed))
        res[key][r.seed] = {
            "goodput_mbps": gp,
            "utilisation": None if gp is None or not u else gp / u,
            "handovers": value.get((r.run_id, "ue", "ue", "handovers")),
            "rtos": value.get((r.run_id, "flow", "flow0", "rtos")),
            "retransmits": value.get((r.run_id, "flow", "flow0", "retransmits")),
            "episodes": len(eps), "recovery_s": rec, "recovered": share, "drop": drop,
            "run": r.path,
        }
    for (ch, seed), u in udp.items():
        res.setdefault((ch, "udp"), {})[seed] = {"goodput_mbps": u,
                                                 "run": udp_path[(ch, seed)]}
    return res


def _col(runs: dict, metric: str) -> dict:
    return {s: v[metric] for s, v in runs.items() if v.get(metric) is not None}


_HO_METRICS = ("goodput_mbps", "utilisation", "handovers", "episodes", "recovery_s",
               "recovered", "drop", "rtos", "retransmits")


def _analyse_handover(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
    res = _handover_runs(out, summary)
    findings: list[Finding] = []
    numbers: dict[str, Any] = {}
    rows = []
    for ch in CHANNELS:
        c, y = res[(ch, "cubic")], res[(ch, "yeah")]
        numbers[ch] = {cc: {m: list(_ci(_col(res[(ch, cc)], m).values()))
                            for m in _HO_METRICS} for cc in CCS}
        udp = _col(res.get((ch, "udp"), {}), "goodput_mbps")
        numbers[ch]["udp_goodput_mbps"] = list(_ci(udp.values()))
        for cc in CCS:
            d = res[(ch, cc)]
            rows.append([ch, cc, len(d), _cell(_col(d, "goodput_mbps")),
                         _fmt(*_pct(_col(d, "utilisation"))),
                         _cell(_col(d, "handovers")), _cell(_col(d, "episodes")),
                         _cell(_col(d, "recovery_s")),
                         _fmt(*_pct(_col(d, "recovered"))), _fmt(*_pct(_col(d, "drop"))),
                         _cell(_col(d, "rtos")), _cell(_col(d, "retransmits"))])
        rows.append([ch, "udp (capacity)", len(udp), _cell(udp)] + ["-"] * 8)
        det = " (deterministic: every seed the same run)" if ch == "static" else ""
        dc, dy = _mean(_col(c, "drop")), _mean(_col(y, "drop"))
        findings.append(Finding(
            f"[{ch}] at handovers CUBIC's rate drops (more than {DROP_SHARE:.0%} below the "
            "capacity)",
            "\"during rapid handover events CUBIC drops its rate\" (Fig. 3c)",
            f"mean deepest drop per episode: CUBIC {_pctf(dc)}, YeAH {_pctf(dy)}" + det,
            None if dc is None else dc > DROP_SHARE))
        rc, ry = _col(c, "recovery_s"), _col(y, "recovery_s")
        sc, sy = _col(c, "recovered"), _col(y, "recovered")
        findings.append(Finding(
            f"[{ch}] CUBIC recovers from handovers more often than YeAH (back at "
            f"{RECOVERY_SHARE:.0%} of the capacity before the next episode)",
            "\"CUBIC drops its rate and recovers quickly from slow start. YeAH, instead, "
            "switches to slow mode and reaches the link capacity slowly\" (Fig. 3c)",
            f"episodes recovered: CUBIC {_fmt(*_pct(sc))} %, YeAH {_fmt(*_pct(sy))} %; time "
            f"to recover (episodes that do): CUBIC {_cell(rc)} s, YeAH {_cell(ry)} s" + det,
            paired_greater(sc, sy)))
        gc, gy = _col(c, "goodput_mbps"), _col(y, "goodput_mbps")
        findings.append(Finding(
            f"[{ch}] YeAH's throughput over the walk below CUBIC's",
            "YeAH \"reaches the link capacity slowly\"; \"CUBIC outperforms YeAH in terms "
            "of achieved throughput\" (Sec. IV)",
            f"CUBIC {_cell(gc)} Mbit/s ({_pctf(_mean(_col(c, 'utilisation')))} of UDP's), "
            f"YeAH {_cell(gy)} Mbit/s ({_pctf(_mean(_col(y, 'utilisation')))})" + det,
            paired_greater(gc, gy)))
    sections = [Section(
        "Fig. 3-like: the walker's throughput, handovers and recovery (mean ± 95 % CI over "
        "seeds)",
        [Table(["channel", "cc", "runs", "goodput (Mbit/s)", "of capacity (%)", "handovers",
                f"episodes (gap < {EPISODE_GAP_S:g} s)", "recovery time (s)",
                "recovered (%)", "drop (%)", "RTOs", "retransmissions"], rows),
         Note(f"Capacity: a UDP flow at {UDP_RATE} ({UDP_PAYLOAD} payloads) over the same "
              "channel realisation (seed). An episode is a run of handovers less than "
              f"{EPISODE_GAP_S:g} s apart. Recovery time: from its last handover until the "
              f"flow's {WINDOW_S:g} s moving mean of goodput first reaches "
              f"{RECOVERY_SHARE:.0%} of the capacity's over the same window (the window's "
              "end is the instant), over the episodes that recover before the next one (or "
              "the end); recovered: the share of episodes that do. Drop: 1 − the lowest ratio "
              "of the two moving means from the episode's first handover to "
              f"{DROP_AFTER_S:g} s after its last."),
         _handover_bars(out, res),
         _handover_goodput(out, res)])]
    return findings, sections, numbers


def _pct(d: dict):
    m, h, _ = _ci(d.values())
    return (None if m is None else 100 * m), (None if h is None else 100 * h)


def _pctf(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f} %"


def _handover_bars(out: Path, res: dict) -> Image:
    plt = _plt()
    from ..figures import save

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, (metric, label) in zip(axes, [("goodput_mbps", "goodput (Mbit/s)"),
                                          ("recovery_s", "recovery time (s)")]):
        for j, cc in enumerate(CCS):
            st = [_ci(_col(res[(ch, cc)], metric).values()) for ch in CHANNELS]
            ax.bar([i + (j - 0.5) * 0.38 for i in range(len(CHANNELS))],
                   [s[0] or 0 for s in st], 0.38, yerr=[s[1] or 0 for s in st], capsize=3,
                   label=cc)
        ax.set_xticks(range(len(CHANNELS)))
        ax.set_xticklabels(CHANNELS)
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    fig.suptitle("mateo-handover: throughput and recovery after handovers "
                 "(cf. seed 002, Fig. 3c)", fontsize=10)
    fig.tight_layout()
    save(fig, out / "figures" / "fig3-bars")
    return image(fig, "throughput and recovery bars")


def _handover_goodput(out: Path, res: dict) -> Image:
    """Fig. 3(c): goodput over time of CUBIC and YeAH, first seed, one panel per channel."""
    from ..api import read_run

    plt = _plt()
    from ..figures import save

    fig, axes = plt.subplots(len(CHANNELS), 1, figsize=(10, 2.8 * len(CHANNELS)),
                             sharex=True, squeeze=False)
    for ax, ch in zip(axes[:, 0], CHANNELS):
        marked = False
        for cc in ["udp", *CCS]:
            runs = res.get((ch, cc)) or {}
            if not runs:
                continue
            run = read_run(out / runs[min(runs)]["run"])
            g = run.table("goodput")
            if cc == "udp":
                ax.plot(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), lw=0.8,
                        color="0.6", label="capacity (UDP)")
                continue
            ax.plot(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), lw=0.9, label=cc)
            if not marked:
                for t in run.table("handovers")["t_s"].to_list():
                    ax.axvline(t, color="k", lw=0.3, alpha=0.4, zorder=0)
                marked = True
        ax.set_ylabel("goodput (Mbit/s)")
        ax.set_title(f"channel: {ch} (first seed; grey lines: handovers of the first cc)",
                     fontsize=9)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    save(fig, out / "figures" / "fig3c-goodput")
    return image(fig, "goodput over time")


def _cells_sections(out: Path, duration: str | None, scenario: str, stem: str,
                    what: str, extra: dict | None = None) -> list[Section]:
    """Fig. 3(b)-like figures (:mod:`mmtsim.plot_cells`) of the first seed with CUBIC,
    one per channel arm, from a run that logs every measurement."""
    from ..api import run
    from ..figures import save
    from ..plot_cells import cells_figure

    secs = []
    for ch in CHANNELS:
        o = {"metrics.rtt": False, "ran.handover.log_measurements_every": 1,
             **channel_set(ch), **(extra or {})}
        if duration is not None:
            o["simulation.duration"] = duration
        res = run(HERE / scenario, seed=1, overrides=o)
        fig = cells_figure(res)
        if fig is None:
            continue
        save(fig, out / "figures" / f"{stem}-{ch}")
        secs.append(Section(f"{what}, channel {ch}, seed 1, CUBIC: SINR coloured by the "
                            "serving AP, NLOS to each AP shaded (band k: AP k)",
                            [image(fig, f"cells {ch}")]))
    return secs


def _handover_timeseries(out: Path, duration: str | None) -> list[Section]:
    return _cells_sections(out, duration, "mateo-handover.toml", "fig3b-cells",
                           "Fig. 3(b)-like")


# ---------------------------------------------------------------------------------------
# mateo-square: analysis
# ---------------------------------------------------------------------------------------


def _ue_of(flow: str) -> str:
    return flow.split("-")[0]


def ue4_rlc_samples(run) -> tuple[str | None, Any]:
    """(name of the cell serving UE4 most, UE4's RLC downlink occupancy samples in bytes
    while that cell serves it)."""
    import numpy as np

    ues = [u["name"] for u in run.summary["ues"]]
    cells = {c["id"]: c["name"] for c in run.summary["cells"]}
    ran = run.table("ran")
    d = ran.filter(ran["ue"] == ues.index("ue4"))
    if d.height == 0:
        return None, np.array([])
    cell = d["cell"].to_numpy()
    ids, counts = np.unique(cell, return_counts=True)
    ap = int(ids[np.argmax(counts)])
    return cells.get(ap), d["rlc_dl_bytes"].to_numpy()[cell == ap].astype(float)


def _square_runs(out: Path, summary) -> tuple[dict, dict, dict]:
    """(per-flow metrics, per-UE RLC means, UE4's RLC samples): keyed (channel, ue0, cc)."""
    import numpy as np

    from ..api import read_run

    value = _run_values(summary)
    flows: dict = {}
    rlc_mean: dict = {}
    ue4: dict = {}
    for ch in CHANNELS:
        for arm in UE0_ARMS:
            for cc in CCS:
                m = {"channel": ch, "ue0": arm, "cc": cc}
                k = (ch, arm, cc)
                flows[k] = {f: {met: _by_seed(summary, value, m, "flow", f, met)
                                for met in ("retransmits", "segments_sent", "bytes_delivered",
                                            "goodput_mbps")} for f in SQUARE_FLOWS}
                rlc_mean[k] = {_ue_of(f): _by_seed(summary, value, m, "ue", _ue_of(f),
                                                   "rlc_dl_mean_bytes") for f in SQUARE_FLOWS}
                ue4[k] = {"samples": [], "means": {}, "busy": {}, "ap": set()}
    for r in summary.ok_runs:
        k = (r.group.get("channel"), r.group.get("ue0"), r.group.get("cc"))
        if k not in ue4:
            continue
        ap, s = ue4_rlc_samples(read_run(out / r.path))
        if ap is not None and s.size:
            ue4[k]["samples"].append(s)
            ue4[k]["means"][r.seed] = float(s.mean())
            ue4[k]["busy"][r.seed] = float((s > 0).mean())
            ue4[k]["ap"].add(ap)
    for k in ue4:
        ss = ue4[k]["samples"]
        ue4[k]["samples"] = np.concatenate(ss) if ss else np.array([])
    return flows, rlc_mean, ue4


def cdf_distance(a, b) -> float | None:
    """The largest vertical gap between the empirical CDFs of samples ``a`` and ``b``
    (Kolmogorov-Smirnov statistic); None if either is empty."""
    import numpy as np

    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    if not a.size or not b.size:
        return None
    x = np.concatenate([a, b])
    fa = np.searchsorted(a, x, side="right") / a.size
    fb = np.searchsorted(b, x, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))


def packets(bytes_delivered: float) -> float:
    """Successful transmissions: packets of :data:`MSS_B` delivered."""
    return bytes_delivered / MSS_B


def _analyse_square(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
    flows, rlc_mean, ue4 = _square_runs(out, summary)
    findings: list[Finding] = []
    numbers: dict[str, Any] = {}
    sections: list[Section] = []
    for ch in CHANNELS:
        det = " (deterministic)" if ch == "static" else ""
        w = {cc: flows[(ch, "with", cc)] for cc in CCS}
        retx = {cc: {f: w[cc][f]["retransmits"] for f in SQUARE_FLOWS} for cc in CCS}
        mr = {cc: {f: _mean(retx[cc][f]) for f in SQUARE_FLOWS} for cc in CCS}
        share = {cc: {f: _share(w[cc][f]) for f in SQUARE_FLOWS} for cc in CCS}
        numbers[ch] = {"retransmits": mr, "retransmit_share": share, "rlc": {}}
        # Fig. 5: YeAH fewer retransmissions for every UE but UE4.
        others = [f for f in SQUARE_FLOWS if f != "ue4-video"]
        less = {f: _yeah_less(mr, f) for f in others}
        ue4_more = (mr["yeah"]["ue4-video"] or 0) > (mr["cubic"]["ue4-video"] or 0)
        judged = [f for f in others if less[f] is not None]
        findings.append(Finding(
            f"[{ch}] YeAH retransmits less than CUBIC for every UE but UE4 (more for UE4)",
            "\"With the sole exception of UE4, YeAH consistently achieves a lower number of "
            "retransmissions\" (Fig. 5)",
            "UEs where YeAH < CUBIC: "
            + (", ".join(_ue_of(f) for f in judged if less[f]) or "none")
            + "; not: " + (", ".join(_ue_of(f) for f in judged if not less[f]) or "none")
            + f"; UE4: YeAH {mr['yeah']['ue4-video'] or 0:.1f} vs CUBIC "
              f"{mr['cubic']['ue4-video'] or 0:.1f}" + det,
            all(less[f] for f in judged) and ue4_more if judged else None))
        top = {cc: max(SQUARE_FLOWS, key=lambda f: share[cc][f] or 0) for cc in CCS}
        findings.append(Finding(
            f"[{ch}] UE2 has the highest share of retransmissions with both algorithms",
            "\"UE2 has comparatively the highest number of retransmissions with both "
            "protocols\" (Fig. 5)",
            "; ".join(f"{cc}: highest {_ue_of(top[cc])} ({_pctf(share[cc][top[cc]])}), UE2 "
                      f"{_pctf(share[cc]['ue2-video'])}" for cc in CCS) + det,
            all(top[cc] == "ue2-video" for cc in CCS)))
        st = {cc: sum(mr[cc][f] or 0 for f in SQUARE_FLOWS if _ue_of(f) in STATIC_UES)
              for cc in CCS}
        findings.append(Finding(
            f"[{ch}] static UEs (UE6-UE9): no retransmissions with YeAH, some with CUBIC",
            "\"YeAH ... does not incur retransmissions, while CUBIC ... requires more\"",
            f"retransmissions summed over UE6-UE9: YeAH {st['yeah']:.1f}, CUBIC "
            f"{st['cubic']:.1f}" + det, st["yeah"] == 0 and st["cubic"] > 0))
        g0 = {cc: w[cc]["ue0-ftp"]["goodput_mbps"] for cc in CCS}
        m0 = {cc: _mean(g0[cc]) for cc in CCS}
        findings.append(Finding(
            f"[{ch}] UE0's rate with YeAH similar to CUBIC's (within 10 %)",
            f"\"for UE0 YeAH achieves data rates up to {MATEO_UE0_RATE_MBPS:g} Mbps similar "
            "to CUBIC\"",
            f"CUBIC {_cell(g0['cubic'])}, YeAH {_cell(g0['yeah'])} Mbit/s" + det,
            None if None in m0.values() or not m0["cubic"]
            else abs(m0["yeah"] / m0["cubic"] - 1) <= 0.10))
        # Fig. 6 and the RLC buffer.
        u = {(arm, cc): ue4[(ch, arm, cc)] for arm in UE0_ARMS for cc in CCS}
        numbers[ch]["rlc"]["ue4_mean_bytes"] = {f"{a}/{c}": list(_ci(v["means"].values()))
                                                for (a, c), v in u.items()}
        numbers[ch]["rlc"]["ue4_ap"] = sorted({ap for v in u.values() for ap in v["ap"]})
        ks = cdf_distance(u[("without", "cubic")]["samples"], u[("without", "yeah")]["samples"])
        findings.append(Finding(
            f"[{ch}] without UE0, UE4's RLC occupancy is the same with both algorithms "
            f"(CDFs within {SAME_CDF:g} of each other)",
            "\"in absence of the long flow from UE0, both congestion control protocols lead "
            "to the same buffer occupancy\" (Fig. 6)",
            f"largest gap between the CDFs {'-' if ks is None else f'{ks:.3f}'}; means: CUBIC "
            f"{_bytes(u[('without', 'cubic')]['means'])}, YeAH "
            f"{_bytes(u[('without', 'yeah')]['means'])} B" + det,
            None if ks is None else ks <= SAME_CDF))
        inc = [paired_greater(u[("with", cc)]["means"], u[("without", cc)]["means"])
               for cc in CCS]
        findings.append(Finding(
            f"[{ch}] UE0's flow raises UE4's RLC occupancy (both algorithms)",
            "\"the contribution of UE4 to the RLC buffer occupancy increases\" (Fig. 6)",
            "; ".join(f"{cc}: {_bytes(u[('without', cc)]['means'])} → "
                      f"{_bytes(u[('with', cc)]['means'])} B" for cc in CCS) + det,
            None if None in inc else all(inc)))
        hi = paired_greater(u[("with", "cubic")]["means"], u[("with", "yeah")]["means"])
        findings.append(Finding(
            f"[{ch}] with UE0, CUBIC causes the higher RLC occupancy of UE4",
            "\"CUBIC causes higher buffer occupancy on average\" (Fig. 6)",
            f"UE4 with UE0: CUBIC {_bytes(u[('with', 'cubic')]['means'])}, YeAH "
            f"{_bytes(u[('with', 'yeah')]['means'])} B" + det, hi))
        ratios = {}
        for f in SQUARE_FLOWS:
            a = _mean(rlc_mean[(ch, "with", "cubic")][_ue_of(f)])
            b = _mean(rlc_mean[(ch, "with", "yeah")][_ue_of(f)])
            if a is not None and b is not None and a > 0 and b > 0:
                ratios[_ue_of(f)] = a / b
        numbers[ch]["rlc"]["cubic_over_yeah"] = ratios
        best = max(ratios, key=ratios.get) if ratios else None
        findings.append(Finding(
            f"[{ch}] CUBIC uses up to about {MATEO_SQUARE_RLC_RATIO:g} times YeAH's RLC "
            "buffer (largest per-UE ratio of mean occupancies within 2.5-10)",
            f"\"CUBIC uses up to {MATEO_SQUARE_RLC_RATIO:g} times the RLC buffer space "
            "compared to YeAH\"",
            ("-" if best is None else
             f"largest ratio {ratios[best]:.2f} ({best}); "
             + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items())) + det,
            None if best is None else 2.5 <= ratios[best] <= 10.0))
        sections.append(_square_section(out, ch, w, mr, share, u, ratios))
    return findings, sections, numbers


def _share(f: dict) -> float | None:
    """Retransmissions over segments sent, from the means over seeds."""
    r, s = _mean(f["retransmits"]), _mean(f["segments_sent"])
    return None if r is None or not s else r / s


def _yeah_less(mr: dict, f: str) -> bool | None:
    """YeAH's mean retransmissions below CUBIC's (None when neither retransmits)."""
    c, y = mr["cubic"][f] or 0.0, mr["yeah"][f] or 0.0
    if c == 0 and y == 0:
        return None
    return y < c


def _bytes(d: dict) -> str:
    m, h, _ = _ci(d.values())
    return _fmt(m, h)


def _square_section(out: Path, ch: str, w, mr, share, u, ratios) -> Section:
    rows = []
    for f in SQUARE_FLOWS:
        row = [_ue_of(f), f.split("-")[1]]
        for cc in CCS:
            row += [_fmt(_mean(w[cc][f]["bytes_delivered"]) and
                         packets(_mean(w[cc][f]["bytes_delivered"])), None),
                    _cell(w[cc][f]["retransmits"]), _pctf(share[cc][f])]
        row.append("-" if _ue_of(f) not in ratios else f"{ratios[_ue_of(f)]:.2f}")
        rows.append(row)
    aps = ", ".join(sorted({ap for v in u.values() for ap in v["ap"]})) or "-"
    rlc_rows = [[arm, cc, _bytes(v["means"]), _fmt(*_pct(v["busy"])), len(v["means"])]
                for (arm, cc), v in u.items()]
    return Section(
        f"Figs. 5-6-like, channel {ch}: per-UE packets and retransmissions (mean ± 95 % CI "
        "over seeds, with UE0's FTP), and UE4's RLC occupancy at its AP",
        [Table(["UE", "app"] + [f"{cc} {x}" for cc in CCS
                                for x in ("delivered pkts", "retransmissions", "retx share")]
               + ["RLC mean CUBIC/YeAH"], rows),
         Table(["UE0", "cc", "UE4's RLC occupancy at its AP, mean (B)",
                "samples not empty (%)", "runs"], rlc_rows),
         Note(f"UE4's AP in our layout: {aps} (the paper's AP4)."),
         _fig5(out, ch, w), _fig6(out, ch, u)])


def _fig5(out: Path, ch: str, w) -> Image:
    """Fig. 5: per UE and algorithm, the composition of the transmissions (successful
    packets and retransmissions, stacked to 100 %) and the retransmissions themselves."""
    plt = _plt()
    from ..figures import save

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 5.6), sharex=True)
    x = range(len(SQUARE_FLOWS))
    for j, cc in enumerate(CCS):
        ok = [packets(_mean(w[cc][f]["bytes_delivered"]) or 0) for f in SQUARE_FLOWS]
        rt = [_mean(w[cc][f]["retransmits"]) or 0 for f in SQUARE_FLOWS]
        tot = [a + b or 1.0 for a, b in zip(ok, rt)]
        pos = [i + (j - 0.5) * 0.4 for i in x]
        top.bar(pos, [100 * a / t for a, t in zip(ok, tot)], 0.4, color=f"C{2 * j}",
                label=f"{cc}: successful")
        top.bar(pos, [100 * b / t for b, t in zip(rt, tot)], 0.4,
                bottom=[100 * a / t for a, t in zip(ok, tot)], color=f"C{2 * j + 1}",
                label=f"{cc}: retransmissions")
        bottom.bar(pos, rt, 0.4, color=f"C{2 * j + 1}", label=cc)
    top.set_ylabel("share of transmissions (%)")
    top.set_ylim(0, 100)
    top.legend(fontsize=7, ncol=4, loc="lower left")
    bottom.set_yscale("symlog", linthresh=1.0)
    bottom.set_ylabel("retransmissions (mean)")
    bottom.legend(fontsize=7)
    bottom.set_xticks(list(x))
    bottom.set_xticklabels([_ue_of(f).upper() for f in SQUARE_FLOWS])
    top.set_title(f"mateo-square, channel {ch}: successful transmissions and retransmissions "
                  "(cf. seed 002, Fig. 5)", fontsize=9)
    fig.tight_layout()
    save(fig, out / "figures" / f"fig5-{ch}")
    return image(fig, f"Fig. 5-like, {ch}")


def _fig6(out: Path, ch: str, u) -> Image:
    import numpy as np

    plt = _plt()
    from ..figures import save

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for (arm, cc), v in u.items():
        s = np.sort(v["samples"])
        if s.size:
            ax.step(s, np.arange(1, s.size + 1) / s.size, where="post",
                    ls="-" if arm == "with" else "--", color="C0" if cc == "cubic" else "C3",
                    label=f"{cc}, {arm} UE0")
    ax.set_xscale("symlog", linthresh=100.0)
    ax.set_xlabel("UE4's RLC buffer occupancy at its AP (bytes, 10 ms samples)")
    ax.set_ylabel("CDF")
    ax.set_title(f"channel {ch} (cf. seed 002, Fig. 6)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out / "figures" / f"fig6-{ch}")
    return image(fig, f"Fig. 6-like, {ch}")


def _square_timeseries(out: Path, duration: str | None) -> list[Section]:
    return _cells_sections(out, duration, "mateo-square.toml", "fig4-cells",
                           "Square, per UE")


_NOTES = (
    "The scenes are our reading of Figs. 3(a) and 4 (no coordinates published; see the "
    "packaged scenarios). Paper's settings: 28 GHz, 1 GHz, 30 dBm (mmwave-2017 preset), RLC "
    "AM 7 MB, minimum RTO 200 ms, A3 handover with no offset, hysteresis or filtering and a "
    "200 µs time-to-trigger on 1.6 ms reports. Not given by the paper, ns-3 mmWave's of its "
    "time: RLC timers of its TCP example (4/2/1 ms), 1400 B segments. mmtsim's Linux TCP "
    "(SACK, RACK-TLP, F-RTO), which ns-3's TCP of 2018 lacked; mmtsim's handover "
    "interruption (50 ms). Two channel arms: 'fading' (mmtsim's flat Rician/Rayleigh fading, "
    "harsher than ns-3's beamformed, frequency-selective channel; with the paper's "
    "unfiltered 200 µs TTT it makes the UE ping-pong between APs of similar path loss, "
    "hundreds of handovers per run) and 'static' (no fading: deterministic, a handful of "
    "handovers at the blockages; its interval is zero). The paper's AP4 is the AP serving "
    "UE4 in our layout. UE1's medium flow is a 100 MB file. RLC occupancy is mmtsim's "
    "transmission buffer (new and to-be-retransmitted bytes, not PDUs awaiting their RLC "
    "acknowledgement); UE4's 4 Mbit/s video leaves it empty at practically every 10 ms "
    "sample on our ~3 Gbit/s cells, so Fig. 6's contrasts cannot appear. Each seed is one "
    "fading realisation; the paper shows one run.")


HANDOVER = Reproduction(
    name="mateo-handover",
    title="Handover along a street, CUBIC vs YeAH (seed 002, Fig. 3)",
    scenario="mateo-handover.toml", default_runs=10, sweep=_handover_sweep,
    analyse=_analyse_handover, timeseries=_handover_timeseries, notes=_NOTES)

SQUARE = Reproduction(
    name="mateo-square",
    title="Ten UEs in a square with mixed traffic, CUBIC vs YeAH (seed 002, Figs. 4-6)",
    scenario="mateo-square.toml", default_runs=10, sweep=_square_sweep,
    analyse=_analyse_square, timeseries=_square_timeseries, notes=_NOTES)
