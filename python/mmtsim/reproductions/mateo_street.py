"""``mateo-handover``: seed 002's (Mateo et al.) handover study (Sec. III-B, Fig. 3), and
what it shares with ``mateo-square`` (:mod:`.mateo_square`, Sec. III-C, Figs. 4-6).

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
- **TCP, two stacks** (:data:`TCPS`), both with the paper's 200 ms minimum RTO and
  1400-byte segments: ``linux`` (mmtsim's Linux TCP: SACK, RACK-TLP, F-RTO and undo) and
  ``ns3`` (ns-3 3.27-3.29's, the paper's simulator of its time: ``tcp.rto_ssthresh =
  "ns3"``, i.e. ssthresh again at every backed-off timeout, RFC 6298's RTO, no RACK, TLP
  or F-RTO). The algorithms are Linux's ``tcp_cubic.c`` and ``tcp_yeah.c`` in both.
  Every finding is judged per arm "channel/TCP" (:data:`ARMS`).
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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..report import Image, Note, Section, Table, image
from .common import HERE, Finding, Reproduction, _ci, _common_set, _fmt, _per_run

#: The algorithms compared in Figs. 3, 5 and 6.
CCS = ["cubic", "yeah"]
#: The channel arms (see the module doc).
CHANNELS = ["fading", "static"]
#: The TCP stacks: mmtsim's Linux TCP, and ns-3's of the paper's time (3.27-3.29:
#: ``tcp.rto_ssthresh = "ns3"``, no RACK, TLP or F-RTO), both with the 200 ms minimum RTO.
TCPS = {"linux": {}, "ns3": {"rto_ssthresh": "ns3"}}
#: The arms every finding is judged in: channel/TCP.
ARMS = [f"{ch}/{tcp}" for ch in CHANNELS for tcp in TCPS]


def tcp_set(tcp: str, n: int) -> dict[str, Any]:
    """The keys of TCP stack ``tcp`` (:data:`TCPS`) for flows 0..n-1."""
    return {f"flows.{i}.tcp.{k}": v for i in range(n) for k, v in TCPS[tcp].items()}


def cc_label(cc: str, tcp: str) -> str:
    """The handover sweep's ``cc`` label of algorithm ``cc`` on stack ``tcp``."""
    return cc if tcp == "linux" else f"{cc}-{tcp}"


def parse_cc_label(label: str) -> tuple[str, str]:
    """(algorithm, stack) of a :func:`cc_label`."""
    cc, _, tcp = label.partition("-")
    return cc, tcp or "linux"
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
        # The stack rides on the cc label so that the UDP reference runs once per seed.
        "axes": [_channel_axis(),
                 {"name": "cc", "variants": [
                     {"label": cc_label(c, t), "set": {"flows.0.cc": c, **tcp_set(t, 1)}}
                     for t in TCPS for c in CCS]
                  + [{"label": "udp", "set": {"flows": [UDP_FLOW]}}]}],
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


def paired_greater(a: dict, b: dict, rel_tol: float = 0.01) -> bool | None:
    """Whether a > b over paired seeds: the 95 % interval of the mean paired difference
    lies above zero. With identical differences (a deterministic arm) or one pair: the
    difference exceeds ``rel_tol`` of b's mean (closer is a tie, not a difference). None
    without pairs."""
    d = [a[k] - b[k] for k in a if k in b]
    if not d:
        return None
    m, h, n = _ci(d)
    if n < 2 or h is None or h == 0:
        mb = abs(_ci([b[k] for k in a if k in b])[0] or 0.0)
        return m > rel_tol * mb
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
    """(arm, cc) → {seed: per-run numbers}, and (channel, "udp") → the UDP runs; the TCP
    runs' episodes are measured against the UDP run of the same channel and seed."""
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
    res: dict = {(arm, cc): {} for arm in ARMS for cc in CCS}
    for r in summary.ok_runs:
        if r.group.get("cc") in (None, "udp"):
            continue
        ch = r.group.get("channel")
        cc, tcp = parse_cc_label(r.group["cc"])
        key = (f"{ch}/{tcp}", cc)
        if key not in res:
            continue
        run = read_run(out / r.path)
        g = run.table("goodput")
        ho = run.table("handovers")
        ho = ho.filter(ho["success"]) if ho.height else ho
        end = float(run.summary.get("sim_seconds") or (g["t_s"].max() or 0.0))
        cap = capacity.get((ch, r.seed))
        eps = ([] if cap is None else
               episode_recoveries(g["t_s"].to_numpy(), g["goodput_mbps"].to_numpy(), cap,
                                  handover_episodes(ho["t_s"].to_list()), end))
        rec, share, drop = run_recovery(eps)
        gp = value.get((r.run_id, "flow", "flow0", "goodput_mbps"))
        u = udp.get((ch, r.seed))
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
    for arm in ARMS:
        ch = arm.split("/")[0]
        c, y = res[(arm, "cubic")], res[(arm, "yeah")]
        numbers[arm] = {cc: {m: list(_ci(_col(res[(arm, cc)], m).values()))
                             for m in _HO_METRICS} for cc in CCS}
        udp = _col(res.get((ch, "udp"), {}), "goodput_mbps")
        numbers[arm]["udp_goodput_mbps"] = list(_ci(udp.values()))
        for cc in CCS:
            d = res[(arm, cc)]
            rows.append([arm, cc, len(d), _cell(_col(d, "goodput_mbps")),
                         _fmt(*_pct(_col(d, "utilisation"))),
                         _cell(_col(d, "handovers")), _cell(_col(d, "episodes")),
                         _cell(_col(d, "recovery_s")),
                         _fmt(*_pct(_col(d, "recovered"))), _fmt(*_pct(_col(d, "drop"))),
                         _cell(_col(d, "rtos")), _cell(_col(d, "retransmits"))])
        rows.append([arm, "udp (capacity)", len(udp), _cell(udp)] + ["-"] * 8)
        det = " (deterministic: every seed the same run)" if ch == "static" else ""
        dc, dy = _mean(_col(c, "drop")), _mean(_col(y, "drop"))
        findings.append(Finding(
            f"[{arm}] at handovers CUBIC's rate drops (more than {DROP_SHARE:.0%} below the "
            "capacity)",
            "\"during rapid handover events CUBIC drops its rate\" (Fig. 3c)",
            f"mean deepest drop per episode: CUBIC {_pctf(dc)}, YeAH {_pctf(dy)}" + det,
            None if dc is None else dc > DROP_SHARE))
        rc, ry = _col(c, "recovery_s"), _col(y, "recovery_s")
        sc, sy = _col(c, "recovered"), _col(y, "recovered")
        findings.append(Finding(
            f"[{arm}] CUBIC recovers from handovers more often than YeAH (back at "
            f"{RECOVERY_SHARE:.0%} of the capacity before the next episode)",
            "\"CUBIC drops its rate and recovers quickly from slow start. YeAH, instead, "
            "switches to slow mode and reaches the link capacity slowly\" (Fig. 3c)",
            f"episodes recovered: CUBIC {_fmt(*_pct(sc))} %, YeAH {_fmt(*_pct(sy))} %; time "
            f"to recover (episodes that do): CUBIC {_cell(rc)} s, YeAH {_cell(ry)} s" + det,
            paired_greater(sc, sy)))
        gc, gy = _col(c, "goodput_mbps"), _col(y, "goodput_mbps")
        findings.append(Finding(
            f"[{arm}] YeAH's throughput over the walk below CUBIC's",
            "YeAH \"reaches the link capacity slowly\"; \"CUBIC outperforms YeAH in terms "
            "of achieved throughput\" (Sec. IV)",
            f"CUBIC {_cell(gc)} Mbit/s ({_pctf(_mean(_col(c, 'utilisation')))} of UDP's), "
            f"YeAH {_cell(gy)} Mbit/s ({_pctf(_mean(_col(y, 'utilisation')))})" + det,
            paired_greater(gc, gy)))
    sections = [Section(
        "Fig. 3-like: the walker's throughput, handovers and recovery (mean ± 95 % CI over "
        "seeds)",
        [Table(["channel/TCP", "cc", "runs", "goodput (Mbit/s)", "of capacity (%)", "handovers",
                f"episodes (gap < {EPISODE_GAP_S:g} s)", "recovery time (s)",
                "recovered (%)", "drop (%)", "RTOs", "retransmissions"], rows),
         Note(f"Capacity: a UDP flow at {UDP_RATE} ({UDP_PAYLOAD} payloads) over the same "
              "channel realisation (seed). TCP: linux (mmtsim's) or ns3 (ns-3 3.27-3.29's "
              "timeout rule, no RACK, TLP or F-RTO), both with a 200 ms minimum RTO. An "
              f"episode is a run of handovers less than {EPISODE_GAP_S:g} s apart. Recovery "
              f"time: from its last handover until the flow's {WINDOW_S:g} s moving mean of "
              f"goodput first reaches {RECOVERY_SHARE:.0%} of the capacity's over the same "
              "window (the window's end is the instant), over the episodes that recover "
              "before the next one (or the end); recovered: the share of episodes that do. "
              "Drop: 1 − the lowest ratio of the two moving means from the episode's first "
              f"handover to {DROP_AFTER_S:g} s after its last."),
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

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, (metric, label, k) in zip(axes, [("goodput_mbps", "goodput (Mbit/s)", 1),
                                             ("recovered", "episodes recovered (%)", 100),
                                             ("recovery_s", "recovery time (s)", 1)]):
        for j, cc in enumerate(CCS):
            st = [_ci(_col(res[(arm, cc)], metric).values()) for arm in ARMS]
            ax.bar([i + (j - 0.5) * 0.38 for i in range(len(ARMS))],
                   [k * (s[0] or 0) for s in st], 0.38, yerr=[k * (s[1] or 0) for s in st],
                   capsize=3, label=cc)
        ax.set_xticks(range(len(ARMS)))
        ax.set_xticklabels(ARMS, fontsize=8)
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    fig.suptitle("mateo-handover: throughput and recovery after handovers "
                 "(cf. seed 002, Fig. 3c)", fontsize=10)
    fig.tight_layout()
    save(fig, out / "figures" / "fig3-bars")
    return image(fig, "throughput and recovery bars")


def _handover_goodput(out: Path, res: dict) -> Image:
    """Fig. 3(c): goodput over time of CUBIC and YeAH, first seed, one panel per arm."""
    from ..api import read_run

    plt = _plt()
    from ..figures import save

    fig, axes = plt.subplots(len(ARMS), 1, figsize=(10, 2.6 * len(ARMS)),
                             sharex=True, squeeze=False)
    for ax, arm in zip(axes[:, 0], ARMS):
        marked = False
        for cc in ["udp", *CCS]:
            runs = res.get((arm.split("/")[0], cc) if cc == "udp" else (arm, cc)) or {}
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
        ax.set_title(f"{arm} (channel/TCP; first seed; grey lines: handovers of CUBIC's "
                     "run)", fontsize=9)
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


_NOTES = (
    "The scenes are our reading of Figs. 3(a) and 4 (no coordinates published; see the "
    "packaged scenarios). Paper's settings: 28 GHz, 1 GHz, 30 dBm (mmwave-2017 preset), RLC "
    "AM 7 MB, minimum RTO 200 ms, A3 handover with no offset, hysteresis or filtering and a "
    "200 µs time-to-trigger on 1.6 ms reports. Not given by the paper, ns-3 mmWave's of its "
    "time: RLC timers of its TCP example (4/2/1 ms), 1400 B segments. Two TCP stacks: "
    "mmtsim's Linux TCP (SACK, RACK-TLP, F-RTO) and ns-3 3.27-3.29's timeout rule without "
    "them (tcp.rto_ssthresh = \"ns3\"); mmtsim's handover interruption (50 ms). Two "
    "channel arms: 'fading' (mmtsim's flat Rician/Rayleigh fading, "
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
