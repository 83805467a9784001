"""Kernel vs mmtsim: the numbers compared per case and algorithm, and the report.

Per run: mean goodput (relative difference), 100 ms goodput bins, time-averaged RTT,
retransmissions, RTOs, and for every outage of the trace the *undo decision*:

- ``pre``: cwnd and ssthresh at the last sample before the episode's first RTO (Linux
  saves exactly these as ``prior_cwnd``/``prior_ssthresh`` in ``tcp_enter_loss``,
  net/ipv4/tcp_input.c);
- ``post``: the sample 3 base RTTs after the later of the outage's end and its last RTO
  (the retransmission, then the new data F-RTO sends, must each be acknowledged before
  Linux can declare the timeout spurious, RFC 5682 §2);
- decision ``undo`` if cwnd is back to at least 80 % of its pre-RTO value (an undo
  restores it: ``tcp_undo_cwnd_reduction``), ``reduced`` otherwise (after a genuine
  timeout the window restarts from 1 segment and three RTTs of slow start cannot
  regrow it), ``no-rto`` when no timeout fired in the outage or the second after it.
"""

from __future__ import annotations

import bisect
import json
from pathlib import Path

from .harness import Side
from .scenario import Case

UNDO_FRACTION = 0.8
POST_RTTS = 3
#: RTOs up to this long after an outage ends still belong to its episode, s.
EPISODE_TAIL_S = 1.0


def _sample_before(windows, t):
    ts = [w[0] for w in windows]
    i = bisect.bisect_left(ts, t) - 1
    return windows[i] if i >= 0 else None


def _sample_at(windows, t):
    ts = [w[0] for w in windows]
    i = bisect.bisect_right(ts, t) - 1
    return windows[i] if i >= 0 else None


def outage_decisions(side: Side, case: Case) -> list[dict]:
    """The undo decision of every outage of the case's trace."""
    outs = case.outages()
    res = []
    for j, (s, e) in enumerate(outs):
        nxt = outs[j + 1][0] if j + 1 < len(outs) else case.duration_s
        limit = min(e + EPISODE_TAIL_S, nxt)
        rtos = [t for t in side.rto_times_s if s <= t < limit]
        row = {"outage_s": [round(s, 3), round(e, 3)], "rtos": len(rtos)}
        if not rtos:
            row["decision"] = "no-rto"
            res.append(row)
            continue
        pre = _sample_before(side.windows, rtos[0])
        t_post = min(max(e, rtos[-1]) + POST_RTTS * case.base_rtt_s, nxt, case.duration_s)
        post = _sample_at(side.windows, t_post)
        row.update(pre_cwnd=pre and pre[1], pre_ssthresh=pre and pre[2], post_t_s=round(t_post, 3),
                   post_cwnd=post and post[1], post_ssthresh=post and post[2])
        if pre is None or post is None:
            row["decision"] = "unknown"
        else:
            row["decision"] = "undo" if post[1] >= UNDO_FRACTION * pre[1] else "reduced"
        res.append(row)
    return res


def compare(case: Case, cc: str, kernel: Side, sim: Side, emu: dict) -> dict:
    """One row of the report."""
    diff = (sim.goodput_mbps - kernel.goodput_mbps) / kernel.goodput_mbps if kernel.goodput_mbps else None
    kb, mb = kernel.goodput_bins_mbps, sim.goodput_bins_mbps
    n = min(len(kb), len(mb))
    mean_abs_bin = sum(abs(a - b) for a, b in zip(kb[:n], mb[:n])) / n if n else None
    kd, md = outage_decisions(kernel, case), outage_decisions(sim, case)
    return {
        "case": case.name, "cc": cc, "duration_s": case.duration_s,
        "kernel": _side_json(kernel, kd), "mmtsim": _side_json(sim, md),
        "goodput_rel_diff": diff,
        "goodput_bins_mean_abs_diff_mbps": mean_abs_bin,
        "same_undo_decisions": [a["decision"] for a in kd] == [b["decision"] for b in md],
        "forwarder": {"lateness": emu["lateness"], "forward": _dir(emu["forward"]),
                      "reverse": _dir(emu["reverse"])},
    }


def _dir(d: dict) -> dict:
    return {k: d[k] for k in ("forwarded_packets", "forwarded_bytes", "dropped_packets", "dropped_bytes",
                              "max_packet_bytes", "before_clock_packets")}


def _side_json(s: Side, decisions: list[dict]) -> dict:
    return {"goodput_mbps": s.goodput_mbps, "goodput_bins_mbps": s.goodput_bins_mbps,
            "rtt_time_avg_ms": s.rtt_time_avg_ms, "retransmits": s.retransmits, "rtos": s.rtos,
            "rto_times_s": s.rto_times_s, "outages": decisions, "extra": s.extra}


def _fmt(v, spec):
    return "–" if v is None else format(v, spec)


def markdown(rows: list[dict], kernel_release: str) -> str:
    """The report as a Markdown table."""
    head = (f"Kernel `{kernel_release}` vs mmtsim. Goodput in Mbit/s, RTT = time-averaged "
            "smoothed RTT in ms, undo = per-outage decision (U undo, R reduced, – no RTO).\n\n"
            "| case | cc | goodput kernel | goodput mmtsim | diff | RTT kernel | RTT mmtsim | "
            "retx kernel | retx mmtsim | RTOs k/m | undo kernel | undo mmtsim | lateness p99 µs |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    code = {"undo": "U", "reduced": "R", "no-rto": "–", "unknown": "?"}
    lines = []
    for r in rows:
        k, m = r["kernel"], r["mmtsim"]
        ud = lambda side: " ".join(code[o["decision"]] for o in side["outages"]) or "n/a"  # noqa: E731
        lines.append(
            f"| {r['case']} | {r['cc']} | {k['goodput_mbps']:.1f} | {m['goodput_mbps']:.1f} | "
            f"{_fmt(r['goodput_rel_diff'] and 100 * r['goodput_rel_diff'], '+.1f')} % | "
            f"{_fmt(k['rtt_time_avg_ms'], '.1f')} | {_fmt(m['rtt_time_avg_ms'], '.1f')} | "
            f"{k['retransmits']} | {m['retransmits']} | {k['rtos']}/{m['rtos']} | {ud(k)} | {ud(m)} | "
            f"{_fmt(r['forwarder']['lateness']['p99_us'], '.0f')} |")
    return head + "\n".join(lines) + "\n"


def write_report(rows: list[dict], out: Path, kernel_release: str) -> None:
    """``results.json`` and ``results.md`` in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps({"kernel": kernel_release, "runs": rows}, indent=1) + "\n")
    (out / "results.md").write_text(markdown(rows, kernel_release))
