"""``mmcptp-nr-single`` and ``mmcptp-nr-multi``: seed 004's (mmCPTP) evaluation over the
NR/LTE stack (Sec. VIII-A, Table II, Fig. 9, Fig. 10, Table III).

The paper's setup (Table II, Sec. VIII-A): ns-3 3.33 LTE at 2 GHz with 25, 50 or 100
resource blocks, a file server behind the EPC (RTT ≈ 25 ms), one BS 10 m high, UE 1.6 m
high, 30 dBm at both ends, 15 commercial buildings 30–40 m tall placed at random without
overlapping in a 500 m × 100 m area, ns-3's ``BuildingsChannelConditionModel`` with the
3GPP UMa propagation model and hybrid buildings; downloads with mmCPTP, TCP NewReno and
TCP CUBIC.

- ``mmcptp-nr-single`` (Fig. 9): one UE. Mobility model 1 (Fig. 9a): BS at (25, 120,
  10), the UE starts at (550, −20, 1.6) and drives along x towards the origin at 15 m/s for
  40 s. Mobility model 4 (Fig. 9b): BS at (25, 50, 10), the UE alternates between LOS and
  "far away" NLOS for durations uniform in 0.1–2 s, 10 s.
- ``mmcptp-nr-multi`` (Fig. 10, Table III): BS at (25, 50, 10); UE1 static at (0, −20,
  1.6) in LOS, UE2 with model 4's outages; proportional-fair scheduler; 10 s; per-UE
  throughput and Jain's fairness index of x_i = application throughput / MAC throughput.

Both sweep the resource blocks (``rbs``: 25, 50, 100), the transport (``transport``:
newreno, cubic, mmcptp) and the stack under it (``stack``, :data:`STACKS`: mmtsim's own
defaults, or ns-3 3.33's LTE and TCP defaults, which the paper may have kept; the findings
are checked under each). The TCP arms are end-to-end TCP from the server to the UE; the
mmcptp arm is an mmCPTP download as the README spells it (``protocol =
"mmcptp"`` with a ``[flows.mmcptp]`` table, :func:`transport_set`): the server's TCP
(CUBIC) to a proxy, mmCPTP from the proxy to the UE with periodic pulls (5 ms) by the BS.
The mmcptp arm runs only with a simulator that knows ``protocol = "mmcptp"``
(:func:`mmcptp_available`); otherwise the studies run the TCP arms and every finding about
mmCPTP says it could not be judged.

Modelling choices, and where they depart from the paper
-------------------------------------------------------

- **Radio.** mmtsim's ``lte-2ghz`` preset (FDD, 1 ms TTI, LTE-like MCS/TBS table, 8 HARQ
  processes) with ``ran.rbs`` = 25, 50, 100, in place of ns-3's LTE module. Channel: TR
  38.901 UMa path loss with *geometric* LOS (LOS unless a building is in the way), fast
  fading on, no shadowing: the closest we have to ns-3's ``BuildingsChannelConditionModel``
  with the UMa model (the "hybrid buildings" loss through walls is not modelled: NLOS is
  UMa's NLOS formula). The BS is 10 m high as in the paper, below UMa's nominal 25 m.
- **Transmit power.** Table II's 30 dBm at both ends (``ran.tx_power_dbm``), over the
  ``lte-2ghz`` preset's 46/23 dBm.
- **Buildings.** 15 boxes in x ∈ [0, 500], y ∈ [0, 100] m, heights uniform in 30–40 m
  (the paper's), footprint sides uniform in 10–40 m and at least 5 m apart (ours: the paper
  gives neither), none within 3 m of the lines from the model-4 BS to the LOS positions of
  the static UEs (so those UEs are in LOS as the paper says). One layout per *scene*
  (:func:`draw_buildings`), drawn in Python from the scene number; the scenes are the
  sweep's paired replicates, so every transport and RB count sees the same scenes.
- **Model 4 (emulated outages).** The paper moves the UE to a far NLOS spot; we keep it at
  a LOS spot (50, −20, 1.6), 75 m from the BS, and apply mmtsim's forced outages
  (``ran.ues[].outages``: no signal at all) for the NLOS periods: LOS and outage alternate,
  LOS first, each lasting a time uniform in 0.1–2 s (:func:`draw_outages`, per scene). An
  outage here carries nothing; the paper's far NLOS may have carried a little.
- **Topology.** server ─1 ms─ proxy ─6 ms─ core ─1 ms─ eNB: 16 ms of wired RTT, about
  25 ms with the LTE scheduling (the paper's RTT ≈ 25 ms). The paper's NR set-up has the
  BS pull "from the file server", so the proxy (mmCPTP's cache) sits beside the server; the
  TCP arms route through it too. No EPC (``[core]``) tunnel is modelled.
- **Stack.** The paper does not say how it configured ns-3's RLC and TCP, and the
  difference is large, so both are run: ``mmtsim`` (RLC AM with its 1 MiB buffer; Linux's
  TCP, 1400-byte segments, 64 MiB buffers, 200 ms minimum RTO) and ``ns3`` (ns-3 3.33's
  defaults with the EPC: RLC UM with a 10 KiB buffer; 536-byte segments, 128 KiB send and
  receive buffers, delayed ACKs, 1 s minimum RTO and ns-3's timeout rule — what
  :data:`NS3_RLC` and :data:`NS3_TCP` set). Under ``ns3`` the mmcptp arm's server leg and
  packets take those TCP settings too (its packet size defaults to the flow's MSS).
- **Single study, two UEs.** The ``mmcptp-nr-single`` scenario holds both models' UEs
  (``ue-m1`` driving, ``ue-m4`` with outages); the ``model`` axis moves the BS and sends
  the download to one of them. The other UE has no traffic and takes no resources; it is
  there so that one replicate (a scene: layout and outage pattern) serves both models.
- **Samples.** Each scene runs with master seed 1 (the fast fading): the spread of the
  runs is the spread over layouts and outage patterns. The paper shows one trace per model.

Jain's index (Table III) is :func:`mmtsim.stats.jain_index` of x_i = goodput_i /
``decoded_mbps.dl``_i (the summary's transport-block bytes the UE decoded, its MAC
throughput), per run, then mean ± 95 % interval over the scenes.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..report import Image, Section, Table, image
from .common import HERE, Finding, Reproduction, _ci, _fmt, _per_run
from .paper import NR_FIG9_GAINS, NR_FIG10_UE2_GAINS, NR_TABLE_III

#: The transports, in the paper's order of Fig. 9/10 and Table III.
TRANSPORTS = ["newreno", "cubic", "mmcptp"]
#: Resource blocks of Table II.
RBS = [25, 50, 100]

#: Building area (x_min, x_max, y_min, y_max), m; count, heights (Table II).
AREA_M = (0.0, 500.0, 0.0, 100.0)
N_BUILDINGS = 15
HEIGHT_M = (30.0, 40.0)
#: Ours: footprint sides and the minimum gap between buildings (the paper gives neither).
SIDE_M = (10.0, 40.0)
GAP_M = 5.0
#: Clearance around the lines from the model-4 BS to the static UEs' LOS positions, m.
CLEAR_M = 3.0

#: Positions (Sec. VIII-A). The LOS spot of the outage UE is ours.
BS_MODEL1 = [25.0, 120.0, 10.0]
BS_MODEL4 = [25.0, 50.0, 10.0]
UE_M1_START = [550.0, -20.0, 1.6]
UE1_STATIC = [0.0, -20.0, 1.6]
UE_OUTAGE_LOS = [50.0, -20.0, 1.6]
#: Model 4's LOS and outage periods: uniform in this range (s).
PERIOD_S = (0.1, 2.0)

#: Paper durations (s): model 1 40 s, model 4 and the multi-UE study 10 s.
DURATION = {"m1": "40s", "m4": "10s"}

#: mmCPTP arm's flow settings, as the README spells it: the server's TCP to the
#: proxy is CUBIC; periodic pulls every 5 ms into a pull buffer sized from the last hop's
#: peak rate; a 64 MB cache.
MMCPTP_TABLE = {"proxy": "proxy", "pull": "periodic", "period": "5ms",
                "pull_buffer": "auto", "cache": "64MB"}

#: The stacks under the transports: "mmtsim" (its defaults: RLC AM with a 1 MiB buffer,
#: Linux's TCP with 1400-byte segments and 64 MiB buffers) and "ns3" (ns-3 3.33's defaults
#: with the EPC, which the paper may have kept: RLC UM with LteRlcUm's 10 KiB buffer;
#: TcpSocket's 536-byte segments, 128 KiB send and receive buffers, delayed ACKs (200 ms),
#: 1 s minimum RTO, and ns-3's timeout rule, which also turns off Linux's RACK, TLP and
#: F-RTO). Neither is tuned: they are the two sets of defaults.
STACKS = ["mmtsim", "ns3"]
NS3_RLC = {"mode": "um", "buffer": "10KiB"}
NS3_TCP = {"mss": "536B", "snd_buf": "128KiB", "rcv_buf": "128KiB", "delayed_ack": True,
           "delack_timeout": "200ms", "min_rto": "1s", "rto_ssthresh": "ns3"}

_SCENE_KEY = 4004  # stream key of the scenes' random draws (seed 004)


# ---------------------------------------------------------------------------------------
# Scenes: building layouts and outage patterns
# ---------------------------------------------------------------------------------------


def _seg_rect_distance(a, b, r) -> float:
    """2-D distance between segment a–b and rectangle r = (x0, y0, x1, y1) (0 if they meet),
    by sampling the segment every 0.25 m (exact enough for a 3 m clearance)."""
    import numpy as np

    a, b = np.asarray(a[:2], float), np.asarray(b[:2], float)
    n = max(2, int(np.ceil(np.linalg.norm(b - a) / 0.25)) + 1)
    p = a + np.linspace(0.0, 1.0, n)[:, None] * (b - a)
    dx = np.maximum(np.maximum(r[0] - p[:, 0], 0.0), p[:, 0] - r[2])
    dy = np.maximum(np.maximum(r[1] - p[:, 1], 0.0), p[:, 1] - r[3])
    return float(np.min(np.hypot(dx, dy)))


#: The lines kept clear of buildings: model-4 BS to each static UE.
KEEP_CLEAR = [(BS_MODEL4, UE1_STATIC), (BS_MODEL4, UE_OUTAGE_LOS)]


@functools.cache
def draw_buildings(scene: int) -> list[dict]:
    """Scene ``scene``'s 15 buildings: footprints inside the area, sides uniform in
    :data:`SIDE_M`, heights in :data:`HEIGHT_M`, at least :data:`GAP_M` apart and
    :data:`CLEAR_M` from :data:`KEEP_CLEAR`, placed one after another by rejection sampling
    (numpy's PCG64 seeded with (4004, 1, scene): the same layout on every machine). Each a
    ``ran.buildings`` entry (metres, rounded to 0.1 m)."""
    import numpy as np

    rng = np.random.default_rng([_SCENE_KEY, 1, scene])
    x0, x1, y0, y1 = AREA_M
    rects: list[tuple[float, float, float, float]] = []
    out = []
    tries = 0
    while len(out) < N_BUILDINGS:
        tries += 1
        if tries > 100_000:
            raise RuntimeError(f"scene {scene}: cannot place {N_BUILDINGS} buildings")
        w, d = rng.uniform(*SIDE_M, size=2)
        h = rng.uniform(*HEIGHT_M)
        x = round(float(rng.uniform(x0, x1 - w)), 1)
        y = round(float(rng.uniform(y0, y1 - d)), 1)
        r = (x, y, round(x + float(w), 1), round(y + float(d), 1))
        if any(r[0] < q[2] + GAP_M and q[0] < r[2] + GAP_M and r[1] < q[3] + GAP_M
               and q[1] < r[3] + GAP_M for q in rects):
            continue
        if any(_seg_rect_distance(a, b, r) < CLEAR_M for a, b in KEEP_CLEAR):
            continue
        rects.append(r)
        out.append({"min_m": [r[0], r[1], 0.0], "max_m": [r[2], r[3], round(float(h), 1)]})
    return out


@functools.cache
def draw_outages(scene: int, horizon_s: float = 10.0) -> list[dict]:
    """Scene ``scene``'s outage pattern over ``horizon_s``: LOS from t = 0, then outage, LOS,
    … each period uniform in :data:`PERIOD_S`, boundaries rounded to the millisecond
    (numpy's PCG64 seeded with (4004, 4, scene)). Each a ``ran.ues[].outages`` entry."""
    import numpy as np

    rng = np.random.default_rng([_SCENE_KEY, 4, scene])
    horizon_ms = int(round(horizon_s * 1000))
    t, los, out = 0, True, []
    while t < horizon_ms:
        d = int(round(rng.uniform(*PERIOD_S) * 1000))
        if not los:
            out.append({"start": f"{t}ms", "duration": f"{min(d, horizon_ms - t)}ms"})
        t += d
        los = not los
    return out


def _ms(s: str) -> int:
    return int(s.removesuffix("ms"))


def outage_share(outages: list[dict], horizon_s: float) -> float:
    """Fraction of ``horizon_s`` in outage."""
    h = horizon_s * 1000
    return sum(max(0, min(_ms(o["start"]) + _ms(o["duration"]), h) - _ms(o["start"]))
               for o in outages if _ms(o["start"]) < h) / h


# ---------------------------------------------------------------------------------------
# The transport arms
# ---------------------------------------------------------------------------------------


def transport_set(transport: str, flows: list[int]) -> dict[str, Any]:
    """The keys that make flows ``flows`` use ``transport`` (newreno, cubic: end-to-end TCP
    with that congestion control; mmcptp: an mmCPTP download as the README spells it)."""
    s: dict[str, Any] = {}
    for i in flows:
        if transport == "mmcptp":
            s[f"flows.{i}.protocol"] = "mmcptp"
            s[f"flows.{i}.cc"] = "cubic"
            s[f"flows.{i}.mmcptp"] = dict(MMCPTP_TABLE)
        else:
            s[f"flows.{i}.cc"] = transport
    return s


@functools.cache
def mmcptp_available() -> bool:
    """Whether this simulator accepts the mmcptp arm (``protocol = "mmcptp"``)."""
    from ..api import validate

    try:
        validate(HERE / "mmcptp-nr-multi.toml", overrides=transport_set("mmcptp", [0, 1]))
    except Exception:
        return False
    return True


def transports() -> list[str]:
    """The transports this build can run: all three, or the TCP arms without mmCPTP."""
    return TRANSPORTS if mmcptp_available() else [t for t in TRANSPORTS if t != "mmcptp"]


def flow_entity(name: str, transport: str) -> str:
    """The flows-table name of the end-to-end goodput: an mmCPTP flow's proxy → UE leg."""
    return f"{name}.leg2" if transport == "mmcptp" else name


def _scenes(runs: int, ue_outages: int | None) -> list[dict]:
    reps = []
    for k in range(1, runs + 1):
        s: dict[str, Any] = {"ran.buildings": draw_buildings(k)}
        if ue_outages is not None:
            s[f"ran.ues.{ue_outages}.outages"] = draw_outages(k)
        reps.append({"name": f"scene-{k}", "set": s})
    return reps


def _transport_axis(flows: list[int]) -> dict:
    return {"name": "transport", "variants": [{"label": t, "set": transport_set(t, flows)}
                                              for t in transports()]}


def stack_set(stack: str, flows: list[int]) -> dict[str, Any]:
    """The keys of stack ``stack`` (:data:`STACKS`) for flows ``flows``."""
    if stack == "mmtsim":
        return {}
    return {"ran.rlc": dict(NS3_RLC), **{f"flows.{i}.tcp": dict(NS3_TCP) for i in flows}}


def _stack_axis(flows: list[int]) -> dict:
    return {"name": "stack", "variants": [{"label": k, "set": stack_set(k, flows)}
                                          for k in STACKS]}


def _single_sweep(runs: int, duration: str | None) -> dict:
    def model(bs, ue, dur):
        return {"ran.gnbs.0.position_m": bs, "flows.0.to": ue,
                "simulation.duration": duration or dur}

    return {
        "description": "seed 004, Fig. 9: one UE over LTE at 2 GHz, mobility models 1 and 4",
        "base": str(HERE / "mmcptp-nr-single.toml"),
        "seeds": [1],
        "set": {"metrics.rtt": False},
        "axes": [
            {"name": "model", "variants": [
                {"label": "m1", "set": model(BS_MODEL1, "ue-m1", DURATION["m1"])},
                {"label": "m4", "set": model(BS_MODEL4, "ue-m4", DURATION["m4"])}]},
            {"name": "rbs", "key": "ran.rbs", "values": RBS},
            _transport_axis([0]),
            _stack_axis([0]),
        ],
        # ue-m4 (index 1) carries the outages; ue-m1 never does.
        "replicates": _scenes(runs, 1),
    }


def _multi_sweep(runs: int, duration: str | None) -> dict:
    s: dict[str, Any] = {"metrics.rtt": False}
    if duration is not None:
        s["simulation.duration"] = duration
    return {
        "description": "seed 004, Fig. 10 / Table III: a static LOS UE and an outage UE, PF",
        "base": str(HERE / "mmcptp-nr-multi.toml"),
        "seeds": [1],
        "set": s,
        "axes": [{"name": "rbs", "key": "ran.rbs", "values": RBS}, _transport_axis([0, 1]),
                 _stack_axis([0, 1])],
        "replicates": _scenes(runs, 1),
    }


# ---------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------


def _run_values(summary) -> tuple[dict, list]:
    """((run_id, kind, entity, metric) → value, ok runs)."""
    value = {(r["run_id"], r["entity_kind"], r["entity"], r["metric"]): r["value"]
             for r in _per_run(summary) if r["value"] is not None}
    return value, summary.ok_runs


def _by_scene(value, runs, match: dict, kind: str, entity_of, metric: str) -> dict[str, float]:
    """{replicate: value} of the runs whose group matches ``match``; ``entity_of(group)``
    names the entity."""
    out = {}
    for r in runs:
        if all(r.group.get(k) == v for k, v in match.items()):
            v = value.get((r.run_id, kind, entity_of(r.group), metric))
            if v is not None:
                out[r.replicate] = float(v)
    return out


def _ratio(a: dict, b: dict) -> float | None:
    """Ratio of the means of a and b over their common scenes."""
    common = [k for k in a if k in b]
    if not common:
        return None
    mb = sum(b[k] for k in common)
    return None if mb <= 0 else sum(a[k] for k in common) / mb


def _paired_better(a: dict, b: dict) -> bool | None:
    """Whether a > b across paired scenes: the 95 % interval of the mean paired difference
    lies above zero (None: fewer than two pairs)."""
    d = [a[k] - b[k] for k in a if k in b]
    m, h, n = _ci(d)
    if n < 2 or h is None:
        return None
    return m - h > 0


def _gain_grows(gains: list[float | None]) -> bool | None:
    """A gain that grows with the RBs: above 1 at every RB count and rising (a "gain" below
    1 is a loss, whichever way it moves)."""
    inc = _increasing(gains)
    return None if inc is None else inc and all(g > 1 for g in gains)


def _increasing(xs: list[float | None]) -> bool | None:
    if any(x is None for x in xs):
        return None
    return all(x2 > x1 for x1, x2 in zip(xs, xs[1:]))


def _cell(d: dict) -> str:
    m, h, n = _ci(d.values())
    return _fmt(m, h)


_STACK_WHAT = {"mmtsim": "mmtsim's stack (RLC AM 1 MiB, Linux TCP)",
               "ns3": "ns-3 3.33's defaults (RLC UM 10 KiB, 536 B segments, 128 KiB buffers)"}


def _analyse_stacks(one):
    """An analysis per stack, joined: findings and sections in stack order, numbers by
    stack."""
    def analyse(out: Path, summary) -> tuple[list[Finding], list[Section], dict]:
        value, runs = _run_values(summary)
        findings, sections, numbers = [], [], {}
        for st in STACKS:
            f, sec, n = one(out, value, runs, st)
            findings += f
            sections += sec
            numbers[st] = n
        return findings, sections, numbers
    return analyse


def _single_stack(out: Path, value, runs, stack: str
                  ) -> tuple[list[Finding], list[Section], dict]:
    have = transports()
    tput: dict[tuple[str, int, str], dict] = {}
    for model in ("m1", "m4"):
        for rbs in RBS:
            for t in have:
                tput[(model, rbs, t)] = _by_scene(
                    value, runs, {"model": model, "rbs": rbs, "transport": t,
                                  "stack": stack}, "flow",
                    lambda g: flow_entity("dl", g["transport"]), "goodput_mbps")

    def mean(model, rbs, t):
        return _ci(tput.get((model, rbs, t), {}).values())[0]

    findings: list[Finding] = []
    numbers: dict[str, Any] = {"throughput_mbps": {}, "gains": {}}
    for model, label in (("m1", f"[{stack}] model 1 (driving)"),
                         ("m4", f"[{stack}] model 4 (outages)")):
        gains = {}
        for base in ("newreno", "cubic"):
            gains[base] = [(_ratio(tput.get((model, r, "mmcptp"), {}),
                                   tput.get((model, r, base), {}))
                            if "mmcptp" in have else None) for r in RBS]
        numbers["gains"][model] = {b: dict(zip(RBS, g)) for b, g in gains.items()}
        pg = NR_FIG9_GAINS[model]
        for base in ("newreno", "cubic"):
            g = gains[base]
            if "mmcptp" in have:
                better = [_paired_better(tput[(model, r, "mmcptp")], tput[(model, r, base)])
                          for r in RBS]
                holds = None if any(b is None for b in better) else all(better)
                ours = ", ".join(f"{r} RB {x:.2f}x" if x is not None else f"{r} RB -"
                                 for r, x in zip(RBS, g))
            else:
                holds, ours = None, "mmcptp arm not run (this build has no mmCPTP)"
            findings.append(Finding(
                f"{label}: mmCPTP's throughput above {base}'s at every RB count",
                f"max gain {pg[base]:g}x (Fig. 9{'a' if model == 'm1' else 'b'})", ours,
                holds))
        if "mmcptp" in have:
            inc = [_gain_grows(gains[b]) for b in ("newreno", "cubic")]
            findings.append(Finding(
                f"{label}: mmCPTP gains (ratio > 1), more with more RBs",
                "\"the gain increases with the increase in resource block size\" (model 1)",
                "; ".join(f"over {b}: " + " → ".join("-" if x is None else f"{x:.2f}"
                                                     for x in gains[b])
                          for b in ("newreno", "cubic")),
                None if None in inc else all(inc)))
        # Implied by the paper's gains (2.5x over NewReno > 1.3x over CUBIC; 4x > 2x).
        cb = [_paired_better(tput[(model, r, "cubic")], tput[(model, r, "newreno")])
              for r in RBS]
        findings.append(Finding(
            f"{label}: CUBIC above NewReno at every RB count",
            f"implied: gain over NewReno {pg['newreno']:g}x > over CUBIC {pg['cubic']:g}x",
            ", ".join(f"{r} RB {mean(model, r, 'cubic') or 0:.1f} vs "
                      f"{mean(model, r, 'newreno') or 0:.1f}" for r in RBS),
            None if None in cb else all(cb)))
    if "mmcptp" in have:
        g1 = [x for b in ("newreno", "cubic") for x in numbers["gains"]["m1"][b].values()]
        g4 = [x for b in ("newreno", "cubic") for x in numbers["gains"]["m4"][b].values()]
        if None not in g1 + g4:
            findings.append(Finding(
                f"[{stack}] the gains are larger with the emulated outages (model 4) than "
                "driving (model 1)", "4x / 2x vs 2.5x / 1.3x",
                f"max over RBs and baselines: model 4 {max(g4):.2f}x, model 1 {max(g1):.2f}x",
                max(g4) > max(g1) and max(g4) > 1))

    header = ["model", "RBs"] + [f"{t} (Mbit/s)" for t in have]
    if "mmcptp" in have:
        header += ["gain over newreno", "gain over cubic"]
    rows = []
    for model in ("m1", "m4"):
        for r in RBS:
            row = [model, r] + [_cell(tput[(model, r, t)]) for t in have]
            if "mmcptp" in have:
                row += [f"{x:.2f}x (paper max {NR_FIG9_GAINS[model][b]:g}x)"
                        if (x := numbers["gains"][model][b][r]) is not None else "-"
                        for b in ("newreno", "cubic")]
            rows.append(row)
            numbers["throughput_mbps"][f"{model}/{r}"] = {
                t: list(_ci(tput[(model, r, t)].values())) for t in have}
    sections = [Section(f"Fig. 9-like, {_STACK_WHAT[stack]}: throughput of the single UE "
                        "(mean ± 95 % CI over scenes), and mmCPTP's gain (ratio of the means)",
                        [Table(header, rows), _bars(out, tput, have, stack)])]
    return findings, sections, numbers


def _grouped_bars(out: Path, have, stack: str, panels, stat, suptitle: str, stem: str,
                  alt: str) -> Image:
    """Two panels of bars per RB count and transport; ``stat(panel_key, rbs, transport)``
    gives the (mean, half-width) of a bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..figures import save

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, (key, title) in zip(axes, panels):
        w = 0.8 / len(have)
        for j, t in enumerate(have):
            st = [stat(key, r, t) for r in RBS]
            ax.bar([i + (j - (len(have) - 1) / 2) * w for i in range(len(RBS))],
                   [s[0] or 0 for s in st], w, yerr=[s[1] or 0 for s in st], capsize=3,
                   label=t)
        ax.set_xticks(range(len(RBS)))
        ax.set_xticklabels([f"{r} RBs" for r in RBS])
        ax.set_ylabel("throughput (Mbit/s)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    save(fig, out / "figures" / f"{stem}-{stack}")
    return image(fig, alt)


def _bars(out: Path, tput, have, stack: str) -> Image:
    return _grouped_bars(
        out, have, stack,
        [("m1", "(a) model 1: driving at 15 m/s, 40 s"),
         ("m4", "(b) model 4: emulated outages, 10 s")],
        lambda model, r, t: _ci(tput[(model, r, t)].values()),
        f"mmcptp-nr-single, {_STACK_WHAT[stack]} (cf. seed 004, Fig. 9)", "fig9-bars",
        "Fig. 9-like bars")


def jain_x(goodput_mbps: float | None, mac_mbps: float | None) -> float | None:
    """Table III's x_i: application throughput over MAC throughput (None without MAC
    throughput)."""
    if goodput_mbps is None or mac_mbps is None or mac_mbps <= 0:
        return None
    return goodput_mbps / mac_mbps


def _multi_stack(out: Path, value, runs, stack: str
                 ) -> tuple[list[Finding], list[Section], dict]:
    from ..stats import jain_index

    have = transports()
    ues = [("ue1", "dl1"), ("ue2", "dl2")]
    tput: dict[tuple[int, str, str], dict] = {}
    jfi: dict[tuple[int, str], dict] = {}
    jraw: dict[tuple[int, str], dict] = {}
    for r in RBS:
        for t in have:
            g = {"rbs": r, "transport": t, "stack": stack}
            for ue, fl in ues:
                tput[(r, t, ue)] = _by_scene(value, runs, g, "flow",
                                             lambda gr, fl=fl: flow_entity(fl, gr["transport"]),
                                             "goodput_mbps")
            mac = {ue: _by_scene(value, runs, g, "ue", lambda gr, ue=ue: ue, "decoded_mbps.dl")
                   for ue, _ in ues}
            jfi[(r, t)], jraw[(r, t)] = {}, {}
            for scene in tput[(r, t, "ue1")]:
                xs = [jain_x(tput[(r, t, ue)].get(scene), mac[ue].get(scene)) for ue, _ in ues]
                if None not in xs and (j := jain_index(xs)) is not None:
                    jfi[(r, t)][scene] = j
                gs = [tput[(r, t, ue)].get(scene) for ue, _ in ues]
                if None not in gs and (j := jain_index(gs)) is not None:
                    jraw[(r, t)][scene] = j

    def m(d):
        return _ci(d.values())[0]

    findings: list[Finding] = []
    numbers: dict[str, Any] = {"throughput_mbps": {}, "jfi": {}, "jfi_goodput": {},
                               "ue2_gains": {}}
    if "mmcptp" in have:
        for base in ("newreno", "cubic"):
            g = [_ratio(tput[(r, "mmcptp", "ue2")], tput[(r, base, "ue2")]) for r in RBS]
            numbers["ue2_gains"][base] = dict(zip(RBS, g))
            better = [_paired_better(tput[(r, "mmcptp", "ue2")], tput[(r, base, "ue2")])
                      for r in RBS]
            findings.append(Finding(
                f"[{stack}] UE2 (outages): mmCPTP's throughput above {base}'s at every RB count",
                f"max gain {NR_FIG10_UE2_GAINS[base]:g}x (Fig. 10b)",
                ", ".join("-" if x is None else f"{r} RB {x:.2f}x" for r, x in zip(RBS, g)),
                None if None in better else all(better)))
            inc = _gain_grows(g)
            findings.append(Finding(
                f"[{stack}] UE2: mmCPTP gains over {base} (ratio > 1), more with more RBs",
                "more RBs, more gain (Fig. 10b, with Fig. 9)",
                " → ".join("-" if x is None else f"{x:.2f}" for x in g), inc))
        u1 = [m(tput[(r, "mmcptp", "ue1")]) < min(m(tput[(r, b, "ue1")])
                                                  for b in ("newreno", "cubic"))
              for r in RBS]
        findings.append(Finding(
            f"[{stack}] UE1 (static LOS): mmCPTP gets less than the TCPs",
            "\"performance deteriorates for a stationary user\" (Fig. 10a)",
            ", ".join(f"{r} RB: " + " / ".join(f"{t} {m(tput[(r, t, 'ue1')]):.1f}"
                                              for t in have) for r in RBS),
            all(u1)))
        ge = [m(jfi[(r, "mmcptp")]) >= m(jfi[(r, "cubic")]) - 0.005 for r in RBS]
        findings.append(Finding(
            f"[{stack}] mmCPTP's fairness index at least CUBIC's (within 0.005)",
            "Table III: .9999/.9978/.9889 vs .9998/.9983/.9765",
            ", ".join(f"{r} RB {m(jfi[(r, 'mmcptp')]):.4f} vs {m(jfi[(r, 'cubic')]):.4f}"
                      for r in RBS), all(ge)))
    else:
        findings.append(Finding(
            f"[{stack}] mmCPTP beats NewReno and CUBIC for UE2; its fairness index at "
            "least CUBIC's",
            "2.8x / 1.5x (Fig. 10b); Table III", "mmcptp arm not run (this build has no "
            "mmCPTP)", None))
    cb = [_paired_better(tput[(r, "cubic", "ue2")], tput[(r, "newreno", "ue2")]) for r in RBS]
    findings.append(Finding(
        f"[{stack}] UE2: CUBIC above NewReno at every RB count",
        "implied: gain over NewReno 2.8x > over CUBIC 1.5x",
        ", ".join(f"{r} RB {m(tput[(r, 'cubic', 'ue2')]):.1f} vs "
                  f"{m(tput[(r, 'newreno', 'ue2')]):.1f}" for r in RBS),
        None if None in cb else all(cb)))
    jc = [_paired_better(jfi[(r, "cubic")], jfi[(r, "newreno")]) for r in RBS]
    findings.append(Finding(
        f"[{stack}] CUBIC's fairness index above NewReno's at every RB count",
        "Table III: .9998/.9983/.9765 vs .9123/.8320/.7828",
        ", ".join(f"{r} RB {m(jfi[(r, 'cubic')]):.4f} vs {m(jfi[(r, 'newreno')]):.4f}"
                  for r in RBS),
        None if None in jc else all(jc)))
    findings.append(Finding(
        f"[{stack}] NewReno's fairness index falls as the RBs grow",
        "Table III: .9123 → .8320 → .7828",
        " → ".join(f"{m(jfi[(r, 'newreno')]):.4f}" for r in RBS),
        _increasing([-m(jfi[(r, "newreno")]) for r in RBS])))

    rows = []
    for r in RBS:
        for t in have:
            jm, jh, _ = _ci(jfi[(r, t)].values())
            rows.append([r, t, _cell(tput[(r, t, "ue1")]), _cell(tput[(r, t, "ue2")]),
                         f"{NR_TABLE_III[t][r]:.4f}",
                         "-" if jm is None else (f"{jm:.4f}" + ("" if jh is None
                                                               else f" ± {jh:.4f}")),
                         "-" if m(jraw[(r, t)]) is None else f"{m(jraw[(r, t)]):.4f}"])
            numbers["throughput_mbps"][f"{r}/{t}"] = {
                ue: list(_ci(tput[(r, t, ue)].values())) for ue, _ in ues}
            numbers["jfi"][f"{r}/{t}"] = {"paper": NR_TABLE_III[t][r],
                                          "mmtsim": [jm, jh, len(jfi[(r, t)])]}
            numbers["jfi_goodput"][f"{r}/{t}"] = m(jraw[(r, t)])
    sections = [Section(
        f"Fig. 10 and Table III, {_STACK_WHAT[stack]}: per-UE throughput (Mbit/s, mean ± "
        "95 % CI over scenes) and Jain's index of x_i = goodput / MAC throughput "
        "(decoded_mbps.dl), per run then averaged; last column: Jain's index of the "
        "goodputs themselves",
        [Table(["RBs", "transport", "UE1 static LOS", "UE2 outages", "JFI paper",
                "JFI mmtsim", "JFI of goodputs"], rows),
         _multi_bars(out, tput, have, stack)])]
    return findings, sections, numbers


def _multi_bars(out: Path, tput, have, stack: str) -> Image:
    return _grouped_bars(
        out, have, stack,
        [("ue1", "(a) UE1: static, LOS"), ("ue2", "(b) UE2: emulated outages")],
        lambda ue, r, t: _ci(tput[(r, t, ue)].values()),
        f"mmcptp-nr-multi, {_STACK_WHAT[stack]} (cf. seed 004, Fig. 10), PF", "fig10-bars",
        "Fig. 10-like bars")


# ---------------------------------------------------------------------------------------
# Time series (scene 1, 100 RBs)
# ---------------------------------------------------------------------------------------


def _timeseries(out: Path, duration: str | None, scenario: str, cases: list[tuple],
                stack: str) -> Image:
    """SINR of the UE(s) and goodput of every transport over time for scene 1, 100 RBs.
    ``cases``: (panel title, overrides, flows [(name, ue)])."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from ..api import run
    from ..figures import save

    fig, axes = plt.subplots(2, len(cases), figsize=(6 * len(cases), 6), sharex="col",
                             squeeze=False)
    for col, (title, ov, flows) in enumerate(cases):
        top, bottom = axes[0][col], axes[1][col]
        for k, t in enumerate(transports()):
            fl_ids = list(range(len(flows)))
            o = {**ov, "ran.rbs": 100, "ran.buildings": draw_buildings(1),
                 "metrics.rtt": False, **transport_set(t, fl_ids), **stack_set(stack, fl_ids)}
            if duration is not None:
                o["simulation.duration"] = duration
            res = run(HERE / scenario, seed=1, overrides=o)
            names = [f["name"] for f in res.summary["flows"]]
            g = res.table("goodput")
            for fl, ue in flows:
                fid = names.index(flow_entity(fl, t))
                gi = g.filter(g["flow"] == fid)
                bottom.plot(gi["t_s"].to_numpy(), gi["goodput_mbps"].to_numpy(), lw=1,
                            label=f"{t} {ue}", ls="-" if ue == flows[-1][1] else ":")
            if k == 0:
                ran = res.table("ran")
                ue_names = [u["name"] for u in res.summary["ues"]]
                for _, ue in flows:
                    ri = ran.filter(ran["ue"] == ue_names.index(ue))
                    # An outage's SINR is a floor far below any MCS: drawn at the bottom.
                    top.plot(ri["t_s"].to_numpy(),
                             np.maximum(ri["sinr_dl_db"].to_numpy(), SINR_FLOOR_DB), lw=1,
                             label=ue)
        top.set_title(title, fontsize=9)
        top.set_ylabel(f"downlink SINR (dB; outage at {SINR_FLOOR_DB:g})")
        top.legend(fontsize=8)
        bottom.set_ylabel("goodput (Mbit/s)")
        bottom.set_xlabel("time (s)")
        bottom.legend(fontsize=7, ncol=2)
    fig.suptitle(_STACK_WHAT[stack], fontsize=10)
    fig.tight_layout()
    name = Path(scenario).stem
    save(fig, out / "figures" / f"{name}-timeseries-{stack}")
    return image(fig, "time series")


#: Where the time-series figures draw SINRs below it (outages).
SINR_FLOOR_DB = -20.0


def _single_timeseries(out: Path, duration: str | None) -> list[Section]:
    cases = [("model 1, scene 1 (cf. Fig. 8a)",
              {"ran.gnbs.0.position_m": BS_MODEL1, "flows.0.to": "ue-m1",
               "simulation.duration": DURATION["m1"]}, [("dl", "ue-m1")]),
             ("model 4, scene 1 (cf. Fig. 8b)",
              {"ran.gnbs.0.position_m": BS_MODEL4, "flows.0.to": "ue-m4",
               "simulation.duration": DURATION["m4"], "ran.ues.1.outages": draw_outages(1)},
              [("dl", "ue-m4")])]
    return [Section(f"Fig. 8/9-like: SINR and goodput over time, scene 1, 100 RBs, "
                    f"{_STACK_WHAT[st]}",
                    [_timeseries(out, duration, "mmcptp-nr-single.toml", cases, st)])
            for st in STACKS]


def _multi_timeseries(out: Path, duration: str | None) -> list[Section]:
    cases = [("UE1 static LOS (dotted), UE2 outages (solid), scene 1",
              {"ran.ues.1.outages": draw_outages(1)}, [("dl1", "ue1"), ("dl2", "ue2")])]
    return [Section(f"Fig. 10-like: SINR and goodput over time, scene 1, 100 RBs, "
                    f"{_STACK_WHAT[st]}",
                    [_timeseries(out, duration, "mmcptp-nr-multi.toml", cases, st)])
            for st in STACKS]


_NOTES = (
    "mmtsim's lte-2ghz preset (1 ms TTI, LTE-like MCS/TBS, HARQ) with 25/50/100 RBs stands "
    "for ns-3 3.33's LTE; TR 38.901 UMa path loss with geometric LOS from the buildings "
    "stands for ns-3's BuildingsChannelConditionModel with UMa and hybrid buildings (no "
    "wall-penetration loss). Transmit power is Table II's 30 dBm at both ends. "
    "The buildings' footprints (10–40 m, 5 m "
    "apart) are ours, one random layout per scene; the paper's layout and seed are not "
    "published. Model 4's far-away NLOS is a forced outage (no signal) at a LOS spot 75 m "
    "from the BS. The proxy sits 1 ms from the server (the paper's BS pulls from the file "
    "server); wired RTT 16 ms, ≈ 25 ms with LTE scheduling. The paper does not say how it "
    "set ns-3's RLC and TCP, so every arm runs on two stacks: mmtsim's defaults (RLC AM "
    "1 MiB, Linux TCP, 1400 B segments) and ns-3 3.33's defaults (RLC UM with a 10 KiB "
    "buffer, 536 B segments, 128 KiB socket buffers, delayed ACKs, 1 s minimum RTO, ns-3's "
    "timeout rule). Each scene runs once (master seed 1): the intervals are over layouts "
    "and outage patterns.")


SINGLE = Reproduction(
    name="mmcptp-nr-single",
    title="mmCPTP over LTE at 2 GHz, one UE (seed 004, Fig. 9)",
    scenario="mmcptp-nr-single.toml", default_runs=20, sweep=_single_sweep,
    analyse=_analyse_stacks(_single_stack), timeseries=_single_timeseries, notes=_NOTES)

MULTI = Reproduction(
    name="mmcptp-nr-multi",
    title="mmCPTP over LTE at 2 GHz, two UEs, proportional fair (seed 004, Fig. 10, "
          "Table III)",
    scenario="mmcptp-nr-multi.toml", default_runs=20, sweep=_multi_sweep,
    analyse=_analyse_stacks(_multi_stack), timeseries=_multi_timeseries, notes=_NOTES)
