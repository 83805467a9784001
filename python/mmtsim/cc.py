"""Congestion-control algorithms used on their own, driven by explicit events.

Example — CUBIC's window after a loss::

    from mmtsim.cc import CongestionControl
    cc = CongestionControl("cubic", mss=1400, initial_cwnd=100, hystart=False)
    cc.on_ack(now=0.0, acked=1, rtt=0.02)   # establish the minimum RTT
    cc.on_loss(now=1.0)                     # 3 dupACKs: ssthresh = 0.7 * cwnd
    cc.exit_recovery(now=1.02)              # cwnd = ssthresh
    for k in range(1000):
        cc.on_ack(now=1.02 + k * 0.0002, acked=1, rtt=0.02)
    cc.cwnd, cc.ssthresh, dict(cc.metrics())

Windows are in segments, as in Linux (``cwnd_bytes``/``ssthresh_bytes`` in bytes); times
are seconds. Events follow Linux's call order: ``on_ack`` runs the algorithm's per-ACK
bookkeeping and, outside fast recovery, its window growth; ``on_loss`` enters fast
recovery (ssthresh from the algorithm); ``exit_recovery`` sets cwnd = ssthresh;
``on_rto`` reduces ssthresh once per loss episode and sets cwnd = in_flight + 1.
"""

from ._core import CongestionControl, algorithms

__all__ = ["CongestionControl", "algorithms"]
