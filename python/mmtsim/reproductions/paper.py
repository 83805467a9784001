"""The seed papers' published numbers that the reproductions are checked against.

Only numbers printed in a paper belong here; what a study derives from the paper's setup
(its algorithms, rates, the instant LOS returns) is in that study's module.
"""

from __future__ import annotations

#: Table II of seed 000: mean throughput (Mbit/s) ± 95 % CI half-width over N = 200 runs.
TABLE_II = {
    "xtcp": (1225.21, 15.81),
    "bic": (1051.32, 10.42),
    "illinois": (949.87, 10.78),
    "cubic": (342.79, 8.46),
    "newreno": (342.46, 10.33),
}


# ---------------------------------------------------------------------------------------
# Seed 004 NR (mmCPTP over the ns-3 LTE/NR stack, Sec. VIII-A): mmcptp_nr.py
# ---------------------------------------------------------------------------------------

#: Fig. 9 (text of Sec. VIII-A.2): mmCPTP's maximum throughput gain over each TCP, single
#: UE; "m1": mobility model 1 (driving at 15 m/s, Fig. 9a), "m4": emulated outages (Fig. 9b,
#: "close to 4x and 2x").
NR_FIG9_GAINS = {"m1": {"newreno": 2.5, "cubic": 1.3}, "m4": {"newreno": 4.0, "cubic": 2.0}}
#: Fig. 10b (text of Sec. VIII-A.3): mmCPTP's maximum gain for UE2 (outages), two UEs, PF.
NR_FIG10_UE2_GAINS = {"newreno": 2.8, "cubic": 1.5}
#: Table III: Jain's fairness index, x_i = application / MAC throughput, per RB count.
NR_TABLE_III = {
    "newreno": {25: 0.9123, 50: 0.8320, 100: 0.7828},
    "cubic": {25: 0.9998, 50: 0.9983, 100: 0.9765},
    "mmcptp": {25: 0.9999, 50: 0.9978, 100: 0.9889},
}
