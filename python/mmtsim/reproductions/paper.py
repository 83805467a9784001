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


# ---------------------------------------------------------------------------------------
# Seed 004 (mmCPTP), trace-driven: Section III, Section VIII-B (Figs. 12-13), VIII-C
# (Table IV). Used by mmcptp_trace.py.
# ---------------------------------------------------------------------------------------

#: Fig. 12 (random walk, 110 s): bytes transferred over the whole trajectory by end-to-end
#: TCP, in MB (text of Section VIII-B2).
FIG12_TCP_MB = {"tcp-cubic": 970.0, "tcp-newreno": 800.0}
#: Fig. 12: mmCPTP's gain over I-TCP with CUBIC ("a gain of 31 %").
FIG12_MMCPTP_GAIN_VS_ITCP_CUBIC = 0.31
#: Fig. 13 (high-speed UE): mmCPTP's throughput over I-TCP CUBIC's at X = 15 ms, loss 0.1 %.
FIG13_MMCPTP_OVER_ITCP_CUBIC_15MS_LOSS = 4.5
#: Table IV: file transfer size in GB over the 450 s trace (Fig. 1) per RTT (ms).
TABLE_IV_RTTS_MS = (0.3, 5.34, 10.3, 50.3)
TABLE_IV_GB = {
    "tcp-newreno": (11.80, 3.34, 2.31, 0.75),
    "tcp-cubic": (11.80, 4.07, 3.20, 2.24),
    "tcp-highspeed": (11.80, 5.90, 3.78, 1.46),
    "tcp-yeah": (11.80, 10.70, 10.20, 6.96),
    "tcp-bbr": (11.70, 11.60, 11.50, 11.20),
}
#: Table IV: mmCPTP, the average over the four RTTs, GB.
TABLE_IV_MMCPTP_AVG_GB = 12.96
#: Table IV: the trace's theoretical limit, GB.
TABLE_IV_MAX_GB = 13.27
#: Section III (Fig. 3b): over the 450 s trace emulated at 1 Gbit/s / 20 Mbit/s with a
#: 50 ms RTT, TCP CUBIC transfers 16 GB of a theoretical 29.14 GB.
SEC3_TCP_CUBIC_GB = 16.0
SEC3_MAX_GB = 29.14


# ---------------------------------------------------------------------------------------
# Seed 003 (Zhang et al., "Will TCP work in mmWave 5G?"): zhang-train (Fig. 2) and
# zhang-lte (Table 1, Fig. 3). Used by zhang_train.py and zhang_lte.py.
# ---------------------------------------------------------------------------------------

#: Table 1: goodput with MSS P = 14 kB over goodput with P = 1.4 kB, per algorithm, link
#: and "server/buffer"; "large" is the BDP buffer, "small" 10 % of the BDP on mmWave and
#: 50 % on LTE (footnote 4). CUBIC, mmWave, remote, BDP is printed "22" in the text we
#: have, its decimal point lost: read as 2.2 (every other entry lies in 0.65–3.96).
ZHANG_TABLE_1 = {
    "newreno": {"lte": {"remote/large": 1.06, "remote/small": 1.17,
                        "edge/large": 0.80, "edge/small": 0.65},
                "mmwave": {"remote/large": 1.81, "remote/small": 3.96,
                           "edge/large": 1.27, "edge/small": 1.15}},
    "cubic": {"lte": {"remote/large": 1.06, "remote/small": 1.15,
                      "edge/large": 1.03, "edge/small": 0.89},
              "mmwave": {"remote/large": 2.2, "remote/small": 1.83,
                         "edge/large": 1.89, "edge/small": 1.44}},
    "highspeed": {"lte": {"remote/large": 1.08, "remote/small": 0.9,
                          "edge/large": 0.94, "edge/small": 0.95},
                  "mmwave": {"remote/large": 1.09, "remote/small": 1.69,
                             "edge/large": 1.05, "edge/small": 0.98}},
    "bbr": {"lte": {"remote/large": 1.00, "remote/small": 0.96,
                    "edge/large": 1.02, "edge/small": 0.82},
            "mmwave": {"remote/large": 1.14, "remote/small": 0.97,
                       "edge/large": 1.06, "edge/small": 1.06}},
}
#: The RLC buffers the paper prints (MB): mmWave 10 % / 100 % of the BDP at 3 Gbit/s,
#: LTE's small buffer 50 % of its BDP (footnote 4; its large one is not printed).
ZHANG_BUFFERS_MB = {
    "mmwave": {"remote/small": 1.5, "remote/large": 15.0,
               "edge/small": 0.15, "edge/large": 1.5},
    "lte": {"remote/small": 0.2, "edge/small": 0.08},
}
#: Text on Fig. 2: with the small buffer, CUBIC and HighSpeed lose this share of their
#: goodput with the edge server against the remote one, per MSS.
ZHANG_EDGE_LOSS_SMALL_BUFFER = {"1.4kB": 0.30, "14kB": 0.50}
#: Text on Fig. 2: the best goodput (BBR, large buffer, remote) is this far below the
#: maximum achievable rate, Mbit/s.
ZHANG_BBR_GAP_TO_MAX_MBPS = 400.0
