"""Channel-rate traces for seed 004's trace-driven studies, generated from mmtsim's own
channel model (the paper's traces are not public).

Regenerate them, deterministically, with::

    python -m mmtsim.reproductions.mmcptp_traces [--seed 1] [--out DIR]

(default ``DIR``: ``traces/`` beside this file, where the shipped CSVs live). Each CSV is
mmtsim's piecewise-constant trace format (``time_s,rate_mbps``) with a ``#`` header saying
where it comes from: the scenario, the mapping, the command and the seed.

The three traces, after seed 004 (Sections III and VIII):

``mmcptp-random-walk.csv`` (Fig. 8c; Figs. 11–12)
    The paper's deployment: a 500 m × 100 m area with 15 buildings 30–40 m tall, the BS at
    (25, 120, 10) m, 28 GHz, 1 GHz of bandwidth; the UE starts at a random point of the
    area (drawn from the seed) and walks at a speed redrawn every 10 s with direction
    uniform (paper: normal speed, mean 2 m/s, variance 0.04; ours: uniform on
    2 ± 0.346 m/s, the same mean and variance, because mmtsim's random walk draws
    uniformly) for 110 s.
``mmcptp-high-speed.csv`` (Fig. 8d; Fig. 13)
    The same area and BS; the UE starts at (550, −20, 1.6) m and moves along −x at 15 m/s
    for 40 s (the paper's mobility model 1, run for 40 s in Fig. 9a).
``mmcptp-downtown-450s.csv`` (Fig. 1, Fig. 3b; Table IV)
    A 450 s walk at 1.4 m/s down a street of a downtown grid (80 m blocks, 30–40 m tall,
    20 m streets) with three NR cells (28 GHz, ``nr-fr2``) on cross streets and an LTE
    anchor (2 GHz, 10 MHz) on a rooftop, under coordinated dual connectivity: the UE is on
    NR while the best NR SINR is at or above −5 dB (back at −3 dB), else on LTE, as the
    coordinator decides. Rate: Shannon's B·log2(1 + SINR) sampled every 1 s, as the
    paper's Fig. 1 (LTE 10 MHz, NR 150 MHz; the NR SINR, computed by mmtsim over
    ``nr-fr2``'s 400 MHz, is rescaled to 150 MHz of noise: +4.26 dB, exact for one
    noise-limited cell), capped at 1 Gbit/s, the maximum of the paper's ORBIT emulation
    (Section III: "switches between a maximum of 1Gbps and a minimum of 20Mbps"; its
    20 Mbit/s floor is not applied: LTE's Shannon rate stands as it is). The street, the
    cells and the building heights are ours; the paper's walk is a measurement in
    downtown Minneapolis that we cannot redo, and ours spends far less time on LTE
    (23 of 450 s with seed 1), so it carries much more than the paper's trace.

Choices of ours in the two mmWave channels: the buildings' footprints (10-40 m a side;
the paper gives their number, 15, and heights, 30-40 m) and their placement (mmtsim's
``random_obstacles``, drawn from the seed and kept clear of the BS and the UE's path);
the random walk's start, drawn from the seed (``numpy.random.default_rng(seed)``,
uniform in the area); mmtsim's default channel (NYU 28 GHz path loss, geometric LOS
against the buildings, small-scale fading on, no shadowing) with one BS, so the SINR is
an SNR. The high-speed run's area is widened to hold the UE's path (see
``HIGH_SPEED_AREA``).

Rate mapping of the two mmWave traces ("SINR channel traces mapped to their bit-rate
based on the TBS, sampled every 100 ms", Section VIII-B): the downlink SINR of the ran
table every 100 ms → mmtsim's downlink AMC for the ``mmwave-2017`` preset (the MIESM 10 %
BLER thresholds, best MCS → CQI → MCS, as ``crates/ran/src/phy/amc.rs``) → the ns-3 v1
TBS of the whole subframe (22 data symbols × 2592 data REs, ``crates/ran/src/phy/tbs.rs``)
every 100 µs: the whole cell's downlink capacity, 3.135 Gbit/s at MCS 28, zero below
MCS 0's threshold (−7.23 dB). The tables are copied here from the Rust source (the
Python package has no binding to them); :func:`tbs_bytes` is checked against the Rust
tests' hand-worked values in ``tests/test_mmcptp_trace.py``. HARQ retransmissions,
control and the uplink's share of the subframe are not subtracted, as the paper's
mapping does not.

:func:`trace_stats` gives what the reports state beside the paper's descriptions: mean
and peak rate, the share of time below 10 % of the peak and the theoretical maximum
transfer, the integral of the rate over the trace's duration.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

#: Where the shipped traces live.
TRACES_DIR = Path(__file__).resolve().parent / "traces"

# ---------------------------------------------------------------------------------------
# mmwave-2017 AMC and TBS (copied from crates/ran/src/phy/{amc,mcs,tbs}.rs)
# ---------------------------------------------------------------------------------------

#: MIESM 10 % TBLER thresholds (dB) of MCS 0…28, ``amc.rs`` ``MIESM_2017_THRESHOLDS_DB``.
MIESM_2017_THRESHOLDS_DB = [
    -7.23, -6.25, -5.83, -4.47, -3.36, -2.32, -1.37, -0.33, 0.73, 1.63, 3.88, 3.92, 4.71, 5.70,
    6.57, 7.53, 8.52, 10.06, 10.49, 11.37, 12.38, 13.45, 14.41, 15.22, 16.20, 17.18, 18.12,
    19.16, 20.09,
]
#: (Qm, effective code rate, spectral efficiency) of MCS 0…28, ``mcs.rs`` ``NS3_V1_LTE_MCS``.
NS3_V1_MCS = [
    (2, 0.08, 0.15), (2, 0.10, 0.19), (2, 0.11, 0.23), (2, 0.15, 0.31), (2, 0.19, 0.38),
    (2, 0.24, 0.49), (2, 0.30, 0.60), (2, 0.37, 0.74), (2, 0.44, 0.88), (2, 0.51, 1.03),
    (4, 0.30, 1.18), (4, 0.33, 1.33), (4, 0.37, 1.48), (4, 0.42, 1.70), (4, 0.48, 1.91),
    (4, 0.54, 2.16), (4, 0.60, 2.41), (6, 0.43, 2.57), (6, 0.45, 2.73), (6, 0.50, 3.03),
    (6, 0.55, 3.32), (6, 0.60, 3.61), (6, 0.65, 3.90), (6, 0.70, 4.21), (6, 0.75, 4.52),
    (6, 0.80, 4.82), (6, 0.85, 5.12), (6, 0.89, 5.33), (6, 0.92, 5.55),
]
#: Spectral efficiency of CQI 0…15, ``mcs.rs`` ``NS3_V1_LTE_CQI`` (0: out of range).
NS3_V1_CQI_SE = [0.0, 0.15, 0.23, 0.38, 0.60, 0.88, 1.18, 1.48, 1.91, 2.41, 2.73, 3.32, 3.90,
                 4.52, 5.12, 5.55]
#: mmwave-2017: data REs per symbol (72 chunks × 48 subcarriers − 864 reference), data
#: symbols per 100 µs subframe.
DATA_RE_PER_SYMBOL = 2592
DATA_SYMBOLS = 22
SUBFRAME_S = 100e-6
CRC_BITS = 24
NS3_MAX_CB_BITS = 6144


def dl_mcs(sinr_db: float) -> int | None:
    """Downlink MCS at ``sinr_db`` after the CQI round trip (``Amc::dl_mcs``); None: CQI 0."""
    passed = 0
    for t in MIESM_2017_THRESHOLDS_DB:
        if sinr_db >= t:
            passed += 1
        else:
            break
    if passed == 0:
        return None
    best = passed - 1
    if best == len(NS3_V1_MCS) - 1:
        cqi = 15
    else:
        se = NS3_V1_MCS[best][2]
        cqi = 0
        while cqi < 15 and NS3_V1_CQI_SE[cqi + 1] <= se:
            cqi += 1
    if cqi == 0:
        return None
    se = NS3_V1_CQI_SE[cqi]
    mcs = 0
    while mcs < len(NS3_V1_MCS) - 1 and NS3_V1_MCS[mcs + 1][2] <= se:
        mcs += 1
    return mcs


def tb_bits(mcs: int, symbols: int = DATA_SYMBOLS) -> int:
    """ns-3 v1 TB size in bits of ``symbols`` whole-band symbols at ``mcs``
    (``tbs.rs`` ``ns3_v1_tb_bits``, in ns-3's floating-point order)."""
    qm, ecr, _ = NS3_V1_MCS[mcs]
    raw = (float(DATA_RE_PER_SYMBOL * symbols) * float(qm)) * ecr - CRC_BITS
    if raw != raw or raw < 1.0:
        return 0
    tb = int(raw)
    if tb > NS3_MAX_CB_BITS:
        c = -(-tb // NS3_MAX_CB_BITS)
        tb -= c * CRC_BITS
    return tb


def tbs_bytes(mcs: int, symbols: int = DATA_SYMBOLS) -> int:
    return tb_bits(mcs, symbols) // 8


def mmwave_rate_bps(sinr_db: float) -> float:
    """The downlink capacity of a ``mmwave-2017`` cell at ``sinr_db``: one full-subframe TB
    (whole bytes, as the MAC uses them) every 100 µs; 0 when no MCS is schedulable."""
    mcs = dl_mcs(sinr_db)
    return 0.0 if mcs is None else tbs_bytes(mcs) * 8 / SUBFRAME_S


def shannon_bps(sinr_db: float, bandwidth_hz: float) -> float:
    return bandwidth_hz * math.log2(1.0 + 10.0 ** (sinr_db / 10.0))


# ---------------------------------------------------------------------------------------
# The channel scenarios
# ---------------------------------------------------------------------------------------

#: Seed 004's deployment (Section VIII, Table II): area, BS, buildings.
AREA = {"min_m": [0, 0], "max_m": [500, 100]}
BS_M = [25, 120, 10]
#: The high-speed UE's path (y = −20 m, x from 550 to −50 m) lies outside the paper's area;
#: mmtsim keeps a UE inside ``ran.area``, so that run's area is widened to hold it (the
#: buildings, drawn in the area and kept clear of the path, can then also stand in the
#: widened part).
HIGH_SPEED_AREA = {"min_m": [-60, -25], "max_m": [560, 100]}
BUILDINGS = {"count": 15, "side_m": [10, 40], "height_m": [30, 40]}


def _probe(scen: dict, site: str, ue: str) -> dict:
    """A node, its link to ``site`` and a 100 kbit/s UDP downlink: a run needs a flow, and
    the ran table does not depend on it."""
    scen["nodes"] = [{"name": "server"}]
    scen["links"] = [{"between": ["server", site], "delay": "1ms", "rate": "10Gbps"}]
    scen["flows"] = [{"name": "probe", "from": "server", "to": ue, "protocol": "udp",
                      "app": {"kind": "cbr", "rate": "100kbps"}}]
    return scen


def _random_start(seed: int) -> list[float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    return [float(round(rng.uniform(0, 500), 1)), float(round(rng.uniform(0, 100), 1)), 1.6]


def random_walk_scenario(seed: int) -> dict:
    return _probe({
        "name": "seed 004 Fig. 8c channel: random walk among buildings",
        "simulation": {"duration": "110s", "seed": seed},
        "metrics": {"sample_interval": "100ms"},
        "ran": {"preset": "mmwave-2017", "area": AREA, "random_obstacles": BUILDINGS,
                "gnbs": [{"name": "bs", "position_m": BS_M}],
                "ues": [{"name": "ue", "position_m": _random_start(seed),
                         "mobility": {"kind": "random_walk", "speed_mps": [1.654, 2.346],
                                      "interval": "10s"}}]},
    }, "bs", "ue")


def high_speed_scenario(seed: int) -> dict:
    return _probe({
        "name": "seed 004 Fig. 8d channel: UE at 15 m/s along x",
        "simulation": {"duration": "40s", "seed": seed},
        "metrics": {"sample_interval": "100ms"},
        "ran": {"preset": "mmwave-2017", "area": HIGH_SPEED_AREA,
                "random_obstacles": BUILDINGS,
                "gnbs": [{"name": "bs", "position_m": BS_M}],
                "ues": [{"name": "ue", "position_m": [550, -20, 1.6],
                         "mobility": {"kind": "linear", "velocity_mps": [-15, 0, 0]}}]},
    }, "bs", "ue")


#: The downtown street: blocks of 80 m between 20 m streets, both sides of the UE's street
#: (y ∈ [−10, 10]); heights 30–40 m, one per block, fixed here.
DOWNTOWN_HEIGHTS = [34, 38, 31, 36, 33, 39, 30, 35]
DOWNTOWN_NR = [("nr1", [70, 30, 6]), ("nr2", [270, -30, 6]), ("nr3", [470, 30, 6])]


def downtown_scenario(seed: int) -> dict:
    buildings = []
    for i, h in enumerate(DOWNTOWN_HEIGHTS):
        x0 = -20 + 100 * i
        buildings.append({"min_m": [x0, 10, 0], "max_m": [x0 + 80, 90, h]})
        buildings.append({"min_m": [x0, -90, 0],
                          "max_m": [x0 + 80, -10, DOWNTOWN_HEIGHTS[-1 - i]]})
    gnbs = [{"name": n, "position_m": p} for n, p in DOWNTOWN_NR]
    gnbs[1]["cells"] = [{"name": "nr2"},
                        {"name": "lte", "preset": "lte-2ghz", "rbs": 50,
                         "channel_model": "uma"}]
    gnbs[1]["position_m"] = DOWNTOWN_NR[1][1]
    scen = _probe({
        "name": "seed 004 Fig. 1 channel: downtown walk, LTE anchor and NR cells",
        "simulation": {"duration": "450s", "seed": seed},
        "metrics": {"sample_interval": "1s"},
        "ran": {"preset": "nr-fr2", "channel": {"los": "geometric"},
                "dual_connectivity": {"mode": "coordinated"},
                "buildings": buildings, "gnbs": gnbs,
                "ues": [{"name": "ue", "position_m": [0, 0, 1.6], "gnb": "lte",
                         "secondary": "nr1",
                         "mobility": {"kind": "linear", "velocity_mps": [1.4, 0, 0]}}]},
    }, "nr2", "ue")
    return scen


@dataclass
class TraceSpec:
    file: str
    title: str
    scenario: object  # seed -> dict
    duration_s: float
    step_s: float
    paper: str


TRACES = {
    "random-walk": TraceSpec(
        "mmcptp-random-walk.csv", "random walk among buildings, 110 s (cf. Fig. 8c)",
        random_walk_scenario, 110.0, 0.1,
        "SINR up to ~20 dB in LOS, down to -40 dB in NLOS between 10 and 50 s (Fig. 8c)"),
    "high-speed": TraceSpec(
        "mmcptp-high-speed.csv", "UE at 15 m/s along x, 40 s (cf. Fig. 8d)",
        high_speed_scenario, 40.0, 0.1, "high-speed mobile UE, SINR trace of Fig. 8d"),
    "downtown-450s": TraceSpec(
        "mmcptp-downtown-450s.csv", "downtown walk with LTE/NR switching, 450 s (cf. Fig. 1)",
        downtown_scenario, 450.0, 1.0,
        "LTE 10 MHz / NR 150 MHz Shannon rate, 1 s samples; Fig. 3b's 1 Gbit/s-20 Mbit/s "
        "emulation: 29.14 GB possible; Table IV's theoretical limit 13.27 GB"),
}

#: The downtown trace's NR/LTE rule and bandwidths.
NR_BANDWIDTH_HZ = 150e6
NR_SIM_BANDWIDTH_HZ = 400e6
LTE_BANDWIDTH_HZ = 10e6
OUTAGE_DB, BACK_DB = -5.0, -3.0
CAP_BPS = 1e9


def channel_samples(name: str, seed: int) -> list[dict]:
    """The ran table of trace ``name``'s channel run: one dict per sample."""
    from ..api import run

    res = run(TRACES[name].scenario(seed), seed=seed)
    return res.table("ran").sort("t_s").to_dicts()


def rates(name: str, samples: list[dict]) -> list[tuple[float, float, str]]:
    """(t_s, rate_bps, what) per sample of trace ``name``."""
    spec = TRACES[name]
    n = int(round(spec.duration_s / spec.step_s))
    by_t = {int(round(r["t_s"] / spec.step_s)): r for r in samples}
    out = []
    on_nr = True
    for k in range(n):
        r = by_t[k]
        t = k * spec.step_s
        if name == "downtown-450s":
            nr = r["sinr_dl_secondary_db"] + 10 * math.log10(NR_SIM_BANDWIDTH_HZ / NR_BANDWIDTH_HZ)
            raw_nr = r["sinr_dl_secondary_db"]
            on_nr = raw_nr >= (BACK_DB if not on_nr else OUTAGE_DB)
            if on_nr:
                rate, what = min(CAP_BPS, shannon_bps(nr, NR_BANDWIDTH_HZ)), f"nr {raw_nr:.1f}"
            else:
                rate = min(CAP_BPS, shannon_bps(r["sinr_dl_db"], LTE_BANDWIDTH_HZ))
                what = f"lte {r['sinr_dl_db']:.1f}"
        else:
            rate = mmwave_rate_bps(r["sinr_dl_db"])
            what = f"{r['sinr_dl_db']:.1f} {'los' if r['los'] else 'nlos'}"
        out.append((t, rate, what))
    return out


def trace_stats(t_s, rate_bps, duration_s: float) -> dict:
    """Statistics of a piecewise-constant trace (rate ``rate_bps[i]`` on
    ``[t_s[i], t_s[i+1])``, the last up to ``duration_s``): mean and max rate (Mbit/s),
    share of time below 10 % of the max, and the theoretical maximum transfer (bytes):
    the integral of the rate over ``[0, duration_s]``."""
    t = [float(x) for x in t_s]
    r = [float(x) for x in rate_bps]
    ends = t[1:] + [float(duration_s)]
    bits = 0.0
    low = 0.0
    peak = max(r) if r else 0.0
    for a, b, x in zip(t, ends, r):
        b = min(b, duration_s)
        if b <= a:
            continue
        bits += x * (b - a)
        if x < 0.1 * peak:
            low += b - a
    return {"duration_s": duration_s, "mean_mbps": bits / duration_s / 1e6,
            "max_mbps": peak / 1e6, "below_10pct_of_peak": low / duration_s,
            "max_bytes": bits / 8}


def read_trace(path: Path) -> tuple[list[float], list[float]]:
    """(t_s, rate_bps) of a ``time_s,rate_mbps`` CSV trace."""
    t, r = [], []
    header = None
    for line in Path(path).read_text().splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if header is None:
            header = [h.strip() for h in s.split(",")]
            continue
        row = dict(zip(header, s.split(",")))
        t.append(float(row["time_s"]))
        r.append(float(row["rate_mbps"]) * 1e6)
    return t, r


def write_trace(name: str, seed: int, out_dir: Path) -> dict:
    spec = TRACES[name]
    rows = rates(name, channel_samples(name, seed))
    st = trace_stats([x[0] for x in rows], [x[1] for x in rows], spec.duration_s)
    cmd = f"python -m mmtsim.reproductions.mmcptp_traces --seed {seed} --only {name}"
    head = [
        f"seed 004 trace-driven studies: {spec.title}.",
        "Generated by mmtsim from its own channel model (the paper's traces are not public):",
        f"  {cmd}",
        f"  (module mmtsim.reproductions.mmcptp_traces, scenario {spec.scenario.__name__}, "
        f"seed {seed}; see the module doc for the mapping)",
        f"Paper: {spec.paper}.",
        f"This trace: {spec.duration_s:g} s in {spec.step_s:g} s steps; mean "
        f"{st['mean_mbps']:.1f} Mbit/s, max {st['max_mbps']:.1f} Mbit/s, "
        f"{st['below_10pct_of_peak']:.1%} of the time below 10 % of the max; theoretical "
        f"maximum transfer {st['max_bytes'] / 1e9:.3f} GB.",
        "The last row holds until the end of the run.",
    ]
    lines = [f"# {h}" for h in head] + ["time_s,rate_mbps"]
    for t, rate, _ in rows:
        lines.append(f"{t:g},{rate / 1e6:.3f}")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / spec.file).write_text("\n".join(lines) + "\n")
    return st


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mmtsim.reproductions.mmcptp_traces",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=TRACES_DIR)
    ap.add_argument("--only", choices=list(TRACES), action="append")
    a = ap.parse_args(argv)
    for name in a.only or list(TRACES):
        st = write_trace(name, a.seed, a.out)
        print(f"{name}: {TRACES[name].file}: mean {st['mean_mbps']:.1f} Mbit/s, max "
              f"{st['max_mbps']:.1f}, below 10 % of max {st['below_10pct_of_peak']:.1%}, "
              f"max transfer {st['max_bytes'] / 1e9:.3f} GB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
