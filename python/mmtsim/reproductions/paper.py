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
# Seed 003 (Zhang et al., "Will TCP work in mmWave 5G cellular networks?"): zhang-urban
# (the dense urban scenario, Fig. 4). Used by zhang_urban.py.
# ---------------------------------------------------------------------------------------

#: The urban scenario's stated parameters: UEs per channel condition, the gNB's height
#: (m), the RLC buffer per UE (bytes), the MSS (bytes), the servers' minimum RTTs (ms).
ZHANG_URBAN_SETUP = {"ues": {"LOS": 4, "NLOS": 4, "indoor": 2}, "gnb_height_m": 25.0,
                     "rlc_buffer_bytes": 1_500_000, "mss_bytes": 1400,
                     "min_rtt_ms": {"edge": 4.0, "remote": 40.0}}
#: Fig. 4's grey area, "a typical 5G application requirement": goodput above this
#: (Mbit/s) with a delay below this (ms).
ZHANG_URBAN_REQUIREMENT = {"goodput_mbps": 100.0, "delay_ms": 10.0}
#: BBR's latency bound in the urban scenario: at most this many times the minimum RTT.
ZHANG_URBAN_BBR_RTT_FACTOR = 2.0
#: The urban scenario's findings as the text states them (Fig. 4 prints no numbers the
#: text repeats: its average SINR per condition and average cell goodputs are graphics).
ZHANG_URBAN_FINDINGS = {
    "same_cell_goodput": "All CC algorithms achieve the same average cell goodput",
    "similar_ue_goodput": "and similar goodput per UE",
    "rtt_varies": "the RTT varies a lot among the CC algorithms ... CUBIC and HighSpeed "
                  "yield much higher latency",
    "nlos_indoor_latency": "For the loss-based TCP, NLoS and indoor UEs suffer from higher "
                           "latency",
    "bbr_2x_min_rtt": "BBR ... results in a maximum latency of 2 x minimum RTT",
    "only_bbr_requirement": "only BBR meets this requirement [> 100 Mb/s, < 10 ms] for the "
                            "UEs connected to an edge server, and only under good channel "
                            "conditions",
    "remote_matters_more": "With remote servers, we observe higher performance variations "
                           "across different CC algorithms, while the difference is almost "
                           "negligible with edge servers",
    "bbr_small_buffers": "with small buffers, BBR produces the highest goodput ..., with a "
                         "latency comparable to loss-based TCP",
    "sinr_order": "four UEs are in LoS, thus perceiving a very high SINR, four are in NLoS, "
                  "and the last two are inside a building, so the received power is "
                  "additionally attenuated by the building penetration loss",
    "rr_fairness": "The gNB uses a round-robin (RR) scheduler, so the resource management "
                   "at the base station does not have an impact on the fairness among "
                   "different flows",
}


# ---------------------------------------------------------------------------------------
# Seed 002 (Mateo et al.): mateo-handover (Fig. 3) and mateo-square (Figs. 4-6);
# mateo_street.py. The paper prints few numbers; its findings are in that module.
# ---------------------------------------------------------------------------------------

#: Sec. III-A: the RLC buffer (MB) and RTO (ms) every later study uses.
MATEO_RLC_BUFFER_MB = 7.0
MATEO_RTO_MS = 200.0
#: Sec. III-B: the fixed time-to-trigger of the handover (µs).
MATEO_TTT_US = 200.0
#: Sec. III-C: UE0's FTP rate, and "YeAH achieves data rates up to 500 Mbps similar to
#: CUBIC" (Mbit/s).
MATEO_UE0_RATE_MBPS = 500.0
#: Sec. III-C: "CUBIC uses up to five times the RLC buffer space compared to YeAH".
MATEO_SQUARE_RLC_RATIO = 5.0


# ---------------------------------------------------------------------------------------
# Seed 002 (Mateo et al.), Sec. III-A: mateo-buffer (Fig. 1), mateo-blockage (Fig. 2).
# Used by mateo_blockage.py. The paper prints no numbers for these figures: its stated
# findings, quoted.
# ---------------------------------------------------------------------------------------

#: Fig. 1 (text of Sec. III-A): CUBIC under {1 MB, 1 s}, {7 MB, 1 s}, {7 MB, 200 ms}.
MATEO_FIG1 = {
    "baseline": "\"The limited RLC buffer size of the baseline setting causes CUBIC to suffer "
                "considerably from wireless losses\"",
    "slow_start": "\"the protocol persistently fails to reach the congestion avoidance phase\"",
    "recovery": "\"in NLoS periods, the latter [7 MB + 200 ms] provides a significant "
                "advantage to recover faster from NLoS-LoS transitions\"",
}
#: Fig. 2 (text of Sec. III-A): the seven algorithms, RLC 7 MB, RTO 200 ms.
MATEO_FIG2 = {
    "short_nlos": "CUBIC's growth \"enables prompt recovery and is particularly suitable for "
                  "short NLoS periods\"; Scalable \"provides similar performance\"",
    "rtt_swing": "CUBIC and Scalable: \"their performance differs considerably from one "
                 "scenario to another\", \"very susceptible to LoS-NLoS transitions in RTT\"",
    "vegas": "\"Vegas consistently achieves the lowest throughput\"",
    "low_rtt": "YeAH limits buffering; BBR \"has a very similar performance to YeAH\"",
    "bbr_lowest": "BBR \"achieves a lower RTT among all the scenarios\"",
}


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
