"""Scenarios of many UEs in many cells, generated for the scaling benchmarks
(``mmtsim bench``: ``ran-100ues-10cells-*``, and ``mmtsim bench --scaling``).

A grid of NR FR2 gNBs (28 GHz, the ``nr-fr2`` preset, 3GPP UMi channel) 100 m apart in
rows of five, each at 10 m height, all behind one UPF 1 ms away, with a server 10 ms
beyond it. UEs stand at positions drawn uniformly over the grid's area (from the
scenario's seed, so a given size always gives the same layout), each attached to its
nearest gNB; one UE in five walks at 1.5 m/s across the area, so measurement-based A3
handovers happen. Interference between cells is active (each gNB's beams, weighted by
how much of the slot it used).

Traffic, one flow per UE:

* ``full`` — full buffer: a downlink CUBIC bulk transfer to every UE;
* ``mixed`` — by UE index modulo 5: downlink CUBIC bulk, uplink NewReno bulk, downlink
  video (on/off 8 Mbit/s, 2 s on, 1 s off), downlink messages (20 kB, Poisson, mean 200 ms),
  downlink UDP at 2 Mbit/s.

The layout is chosen for cost, not to reproduce a study: it loads every part of the radio
stack (scheduling many UEs per cell, interference between cells, handovers) so that the
scaling curve shows how cost grows with UEs and with cells.
"""

from __future__ import annotations

import random

#: Distance between neighbouring gNBs, m, and gNBs per row.
SPACING_M = 100.0
PER_ROW = 5
TRAFFIC = ("full", "mixed")


def _layout(n_cells: int) -> tuple[list[tuple[float, float]], float, float]:
    cols = min(n_cells, PER_ROW)
    rows = -(-n_cells // PER_ROW)
    sites = [(SPACING_M * (0.5 + i % PER_ROW), SPACING_M * (0.5 + i // PER_ROW)) for i in range(n_cells)]
    return sites, SPACING_M * cols, SPACING_M * rows


def _flow(i: int, ue: str, traffic: str) -> dict:
    if traffic == "full":
        return {"name": f"{ue}-dl-bulk", "from": "server", "to": ue, "cc": "cubic"}
    kind = i % 5
    if kind == 0:
        return {"name": f"{ue}-dl-bulk", "from": "server", "to": ue, "cc": "cubic"}
    if kind == 1:
        return {"name": f"{ue}-ul-bulk", "from": ue, "to": "server", "cc": "newreno"}
    if kind == 2:
        return {"name": f"{ue}-video", "from": "server", "to": ue, "cc": "cubic",
                "app": {"kind": "onoff", "rate": "8Mbps", "on": "2s", "off": "1s"}}
    if kind == 3:
        return {"name": f"{ue}-messages", "from": "server", "to": ue, "cc": "cubic",
                "app": {"kind": "messages", "size": "20kB", "interval": "200ms", "poisson": True}}
    return {"name": f"{ue}-udp", "protocol": "udp", "from": "server", "to": ue,
            "app": {"kind": "cbr", "rate": "2Mbps"}}


def grid(n_ues: int, n_cells: int, traffic: str = "mixed", duration: str = "10s", seed: int = 1) -> dict:
    """The scenario (a dict, as ``mmtsim.run`` takes it) of ``n_ues`` UEs in ``n_cells``
    cells with ``traffic`` (``full`` or ``mixed``)."""
    if n_ues < 1 or n_cells < 1:
        raise ValueError(f"grid: need at least one UE and one cell, got {n_ues} UEs, {n_cells} cells")
    if traffic not in TRAFFIC:
        raise ValueError(f"grid: traffic {traffic!r}: expected one of {', '.join(TRAFFIC)}")
    sites, width, height = _layout(n_cells)
    rng = random.Random(seed)
    gnbs = [{"name": f"gnb{c}", "position_m": [x, y, 10.0]} for c, (x, y) in enumerate(sites)]
    ues = []
    for i in range(n_ues):
        # Kept a metre inside the area so walkers never start on its edge.
        x, y = rng.uniform(1, width - 1), rng.uniform(1, height - 1)
        near = min(range(n_cells), key=lambda c: (sites[c][0] - x) ** 2 + (sites[c][1] - y) ** 2)
        ue = {"name": f"ue{i}", "position_m": [round(x, 2), round(y, 2), 1.5], "gnb": f"gnb{near}"}
        if i % 5 == 4:
            to = [round(width - x, 2), round(height - y, 2), 1.5]
            ue["mobility"] = {"kind": "waypoints", "points_m": [to], "speed_mps": 1.5}
        ues.append(ue)
    return {
        "name": f"grid: {n_ues} UEs in {n_cells} cells, {traffic} traffic",
        "simulation": {"duration": duration, "seed": seed},
        "nodes": [{"name": "server"}, {"name": "core"}],
        "links": [{"between": ["server", "core"], "delay": "10ms", "rate": "100Gbps"}]
        + [{"between": ["core", g["name"]], "delay": "1ms", "rate": "100Gbps"} for g in gnbs],
        "core": {"upf": "core"},
        "ran": {
            "preset": "nr-fr2",
            "interference": "active",
            "area": {"min_m": [0, 0], "max_m": [width, height]},
            "rlc": {"buffer": "1.5MB"},
            "handover": {"algorithm": "a3"},
            "gnbs": gnbs,
            "ues": ues,
        },
        "flows": [_flow(i, u["name"], traffic) for i, u in enumerate(ues)],
    }


#: The points of the scaling curves (``mmtsim bench --scaling``): UEs in ten cells, and
#: a hundred UEs in a growing number of cells.
UE_COUNTS = (10, 25, 50, 100, 200)
CELL_COUNTS = (1, 2, 5, 10, 20)
