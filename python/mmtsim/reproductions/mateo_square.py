"""``mateo-square``: seed 002's (Mateo et al.) multi-user study (Sec. III-C, Figs. 4-6).

The paper's setup and the modelling choices it shares with ``mateo-handover`` (the 7 MB
RLC buffer and 200 ms RTO, ns-3 mmWave's defaults where the paper is silent, the two TCP
stacks ``linux`` and ``ns3`` and the two channel arms ``fading`` and ``static``) are in
:mod:`.mateo_street`'s doc; every finding is judged per arm "channel/TCP".

Figs. 4-6: four APs on the corners of a square with a statue and
  lampposts, ten UEs: UE0 FTP at 500 Mbit/s for the whole run, UE2, UE4, UE5 video
  (4 Mbit/s for 30 s, then 2 s of pause), UE1 a 100 MB file (the paper's "medium-sized
  flow of UE1"), the others instant messages; UE6-UE9 static. Every flow uses CUBIC or
  YeAH. Fig. 5: successful transmissions and retransmissions per UE; Fig. 6: the CDF of
  UE4's contribution to its AP's RLC buffer (its RLC downlink occupancy, sampled every
  10 ms while that AP serves it) with and without UE0's traffic (``ue0`` axis: UE0's flow
  stopped at 1 ns, so it sends nothing).

Modelling choices of this study
-------------------------------

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
from .common import HERE, Finding, Reproduction, _ci, _common_set, _fmt
from .mateo_street import (_NOTES, ARMS, CCS, TCPS, _by_seed, _cell, _cells_sections,
                           _channel_axis, _mean, _pct, _pctf, _plt, _run_values,
                           paired_greater, tcp_set)
from .paper import MATEO_SQUARE_RLC_RATIO, MATEO_UE0_RATE_MBPS

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
                 {"name": "tcp", "variants": [{"label": t, "set": tcp_set(t, len(SQUARE_FLOWS))}
                                              for t in TCPS]},
                 {"name": "ue0", "variants": [{"label": k, "set": v}
                                              for k, v in UE0_ARMS.items()]},
                 {"name": "cc", "variants": [{"label": c, "set": cc_set(c)} for c in CCS]}],
    }


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
    """(per-flow metrics, per-UE RLC means, UE4's RLC samples): keyed (arm, ue0, cc), the
    arm being "channel/tcp"."""
    import numpy as np

    from ..api import read_run

    value = _run_values(summary)
    flows: dict = {}
    rlc_mean: dict = {}
    ue4: dict = {}
    for arm in ARMS:
        ch, tcp = arm.split("/")
        for u0 in UE0_ARMS:
            for cc in CCS:
                m = {"channel": ch, "tcp": tcp, "ue0": u0, "cc": cc}
                k = (arm, u0, cc)
                flows[k] = {f: {met: _by_seed(summary, value, m, "flow", f, met)
                                for met in ("retransmits", "segments_sent", "bytes_delivered",
                                            "goodput_mbps")} for f in SQUARE_FLOWS}
                rlc_mean[k] = {_ue_of(f): _by_seed(summary, value, m, "ue", _ue_of(f),
                                                   "rlc_dl_mean_bytes") for f in SQUARE_FLOWS}
                ue4[k] = {"samples": [], "means": {}, "busy": {}, "ap": set()}
    for r in summary.ok_runs:
        k = (f"{r.group.get('channel')}/{r.group.get('tcp')}", r.group.get("ue0"),
             r.group.get("cc"))
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
    for ch in ARMS:  # "channel/tcp"
        det = " (deterministic)" if ch.startswith("static") else ""
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
            + "; not (YeAH ≥ CUBIC): "
            + (", ".join(f"{_ue_of(f)} {mr['yeah'][f] or 0:.1f} vs {mr['cubic'][f] or 0:.1f}"
                         for f in judged if not less[f]) or "none")
            + f"; UE4: YeAH {mr['yeah']['ue4-video'] or 0:.1f} vs CUBIC "
              f"{mr['cubic']['ue4-video'] or 0:.1f}" + det,
            all(less[f] for f in judged) and ue4_more if judged else None))
        # The paper's words are "number"; its Fig. 5 also draws each UE's mix, so both
        # are shown and the number is judged.
        top = {cc: max(SQUARE_FLOWS, key=lambda f: mr[cc][f] or 0) for cc in CCS}
        findings.append(Finding(
            f"[{ch}] UE2 has the highest number of retransmissions with both algorithms",
            "\"UE2 has comparatively the highest number of retransmissions with both "
            "protocols\" (Fig. 5)",
            "; ".join(f"{cc}: highest {_ue_of(top[cc])} ({mr[cc][top[cc]] or 0:.1f}, "
                      f"{_pctf(share[cc][top[cc]])} of its segments), UE2 "
                      f"{mr[cc]['ue2-video'] or 0:.1f} ({_pctf(share[cc]['ue2-video'])})"
                      for cc in CCS) + det,
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
        u = {(u0, cc): ue4[(ch, u0, cc)] for u0 in UE0_ARMS for cc in CCS}
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
                      f"{_bytes(u[('with', cc)]['means'])} B" for cc in CCS)
            + "; samples not empty: " + ", ".join(
                f"{cc} {a} UE0 {_pctf(_mean(u[(a, cc)]['busy']))}" for cc in CCS
                for a in UE0_ARMS) + det,
            None if None in inc else all(inc)))
        hi = paired_greater(u[("with", "cubic")]["means"], u[("with", "yeah")]["means"])
        findings.append(Finding(
            f"[{ch}] with UE0, CUBIC causes the higher RLC occupancy of UE4",
            "\"CUBIC causes higher buffer occupancy on average\" (Fig. 6)",
            f"UE4 with UE0: CUBIC {_bytes(u[('with', 'cubic')]['means'])}, YeAH "
            f"{_bytes(u[('with', 'yeah')]['means'])} B" + det, hi))
        ratios, yeah_empty = {}, []
        for f in SQUARE_FLOWS:
            a = _mean(rlc_mean[(ch, "with", "cubic")][_ue_of(f)])
            b = _mean(rlc_mean[(ch, "with", "yeah")][_ue_of(f)])
            if a is not None and b is not None and a > 0 and b > 0:
                ratios[_ue_of(f)] = a / b
            elif a and b == 0:
                # No ratio to judge, but not hidden: CUBIC queues where YeAH never does.
                yeah_empty.append(_ue_of(f))
        numbers[ch]["rlc"]["cubic_over_yeah"] = ratios
        best = max(ratios, key=ratios.get) if ratios else None
        findings.append(Finding(
            f"[{ch}] CUBIC uses up to about {MATEO_SQUARE_RLC_RATIO:g} times YeAH's RLC "
            "buffer (largest per-UE ratio of mean occupancies within 2.5-10)",
            f"\"CUBIC uses up to {MATEO_SQUARE_RLC_RATIO:g} times the RLC buffer space "
            "compared to YeAH\"",
            ("-" if best is None else
             f"largest ratio {ratios[best]:.2f} ({best}); "
             + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
            + (f"; CUBIC queues, YeAH never: {', '.join(yeah_empty)}" if yeah_empty else "")
            + det,
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
        f"Figs. 5-6-like, {ch} (channel/TCP): per-UE packets and retransmissions (mean ± 95 % CI "
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
    top.set_title(f"mateo-square, {ch} (channel/TCP): successful transmissions and retransmissions "
                  "(cf. seed 002, Fig. 5)", fontsize=9)
    fig.tight_layout()
    save(fig, out / "figures" / f"fig5-{ch.replace('/', '-')}")
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
    ax.set_title(f"{ch} (channel/TCP; cf. seed 002, Fig. 6)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out / "figures" / f"fig6-{ch.replace('/', '-')}")
    return image(fig, f"Fig. 6-like, {ch}")


def _square_timeseries(out: Path, duration: str | None) -> list[Section]:
    return _cells_sections(out, duration, "mateo-square.toml", "fig4-cells",
                           "Square, per UE")


SQUARE = Reproduction(
    name="mateo-square",
    title="Ten UEs in a square with mixed traffic, CUBIC vs YeAH (seed 002, Figs. 4-6)",
    scenario="mateo-square.toml", default_runs=10, sweep=_square_sweep,
    analyse=_analyse_square, timeseries=_square_timeseries, notes=_NOTES)
