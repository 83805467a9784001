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
are seconds; sequence numbers (``snd_una``, ``snd_nxt``) are bytes. Events must come in
time order.

Events
------
``on_ack(now, acked=1, rtt=None, cwnd_limited=True, in_flight=0, *, ...)``
    One ACK delivering ``acked`` segments, through the very calls the TCP sender makes for
    it (``mmtsim_transport::cc::call_order``): the radio view (if set) is read, then the
    algorithm's per-ACK bookkeeping (``pkts_acked``, when data was delivered or an RTT
    measured), then its ``cong_control`` hook (Linux; only BBR uses it: it sets cwnd and
    its pacing rate on every ACK, in every state), and unless that took the window over,
    window growth (``cong_avoid``, skipped in fast recovery where the sender's PRR would
    own the window; a standalone window has no PRR and stays until ``exit_recovery``).
    Keyword-only arguments:

    - ``una_advanced`` (default true): the ACK acknowledged new data (advanced SND.UNA);
      as in the sender, only such ACKs grow the window (a SACK-only or duplicate ACK does
      not). ``data_outstanding`` (default true): data was outstanding before the ACK; when
      false the ``cong_control`` hook is skipped, as the sender skips it.

    - ``in_flight``: segments in flight *after* this ACK's SACK and loss marking (Linux
      ``tcp_packets_in_flight()`` as ``cong_control`` sees it); ``prior_in_flight``:
      before the ACK (default ``in_flight + acked + losses``). Only BBR reads them.
    - ``srtt``, ``min_rtt`` (s): default to this ACK's ``rtt``, else the last ``srtt``
      given, and to the smallest RTT seen so far.
    - ``delivered``, ``lost``: the connection's totals (Linux ``tp->delivered`` and
      ``tp->lost``), this ACK included; by default the running sums of ``acked`` and
      ``losses``. ``losses``: segments newly marked lost while processing this ACK.
    - A delivery-rate sample (Linux ``rate_sample``, ``tcp_rate.c``): ``rate_delivered``
      segments over ``rate_interval`` seconds, or, instead of ``rate_delivered``,
      ``prior_delivered`` — the ``delivered`` total when the newest segment this ACK
      delivers was sent (``rate_delivered = delivered - prior_delivered``; BBR counts its
      round trips by it). ``rate_app_limited``, ``rate_is_retrans`` flag the sample. Give
      none of them when the ACK produced no sample (as Linux discards samples shorter
      than the minimum RTT).
    - ``snd_una``, ``snd_nxt``: SND.UNA after the ACK and SND.NXT; Vegas, YeAH, Illinois
      and CUBIC's HyStart count their rounds by them (default 0: rounds never end).
    - ``acked_bytes`` (default ``acked * mss``), ``paced`` (the flow paces its segments;
      true anyway once the algorithm sets a pacing rate), ``next_departure`` (s, when
      pacing lets the next segment leave; default ``now``).

``on_loss(now, snd_nxt=0)``
    Enters fast recovery (ssthresh from the algorithm; BBR saves its cwnd instead).
``exit_recovery(now)``
    Ends fast recovery or the loss episode of an RTO: cwnd = ssthresh, except for an
    algorithm that owns the window (BBR restores its own on the next ACK).
``on_rto(now, in_flight=0, snd_una=0, snd_nxt=0)``
    Reduces ssthresh once per loss episode and sets cwnd = in_flight + 1.
``undo(now)``
    The reduction under way was spurious (the sender learnt it from timestamps, F-RTO or
    D-SACKs): Linux's ``tcp_undo_cwnd_reduction`` — cwnd from the algorithm's
    ``undo_cwnd`` (Reno's ``max(cwnd, prior_cwnd)`` for most; H-TCP also restores its
    congestion clock; BBR keeps cwnd and restarts its full-pipe and long-term estimators),
    ssthresh back up to ``prior_ssthresh`` (``tcp_current_ssthresh`` just before
    ``on_loss``/``on_rto``) — then the Open state, ending a fast recovery with its
    ``CA_EVENT_COMPLETE_CWR``.
``on_tx_start(now, idle, rto=None)``
    Sending resumes after ``idle`` seconds with nothing in flight (Linux
    ``CA_EVENT_TX_START``); with ``rto`` the window first restarts as Linux's
    ``tcp_cwnd_restart`` (not for BBR).
``set_link_view(grants, sinr_db, rlc_buffer_bytes=0, direction="uplink")`` / ``clear_link_view()``
    The UE's radio view, read before every following ACK as the sender reads its UE's
    view: ``grants`` are tuples ``(time_s, tbs_bytes, mcs, symbols, slot_s[, share[, duty]])``
    of ``direction``, oldest first; the other direction has none. ``share`` (default 1) is
    the part of the slot's data resources the grant holds; ``duty`` (default 1) the
    direction's long-run share of slots (fixed TDD DDDSU: 0.2 for the uplink). X-TCP rates a
    grant as ``tbs_bytes * 8 * duty / (slot_s * share)``, what its MCS would carry over all
    the data resources of its direction. Only X-TCP reads the view; other algorithms ignore it.

Read back ``cwnd``, ``ssthresh``, ``prior_ssthresh``, ``state``, ``pacing_rate_bps`` (payload bit/s; None if
the algorithm sets no rate), ``owns_window``, ``app_limited_requested`` (BBR in PROBE_RTT
asks for the data in flight to be marked application-limited: flag the samples of that
data with ``rate_app_limited=True``), ``delivered``, ``lost`` and ``metrics()``.
Arguments out of range raise ``ValueError`` naming the argument.

Example — BBR's STARTUP on a path that delivers 20 segments per 16.384 ms round trip; each
ACK acknowledges one round's flight and carries its delivery-rate sample (30 segments
stay queued, so DRAIN does not end on the ACK that starts it)::

    cc = CongestionControl("bbr", mss=1000, initial_cwnd=10)
    rtt, delivered_per_round = 0.016384, [10, 20, 20, 20, 20]
    for r, d in enumerate(delivered_per_round, start=1):
        cc.on_ack(now=r * rtt, acked=d, rtt=rtt, in_flight=30,
                  rate_delivered=d, rate_interval=rtt)
    dict(cc.metrics())["mode"]  # 1.0 = DRAIN: three rounds without 25 % more bandwidth
    cc.pacing_rate_bps  # DRAIN gain 88/256 of 20 segments per RTT, 1 % margin: 3,323,360

Example — X-TCP with uplink grants of 12,500 B in every 100 µs slot (1 Gbit/s of transport
blocks) at 10 dB SINR::

    cc = CongestionControl("xtcp", mss=1400, initial_cwnd=1)
    grants = [(k * 1e-4, 12_500, 28, 14, 1e-4) for k in range(1, 1001)]
    cc.set_link_view(grants, sinr_db=10.0)
    cc.on_ack(now=0.1, acked=1, rtt=0.02)
    cc.cwnd  # 1e9 * 1400/1460 * 0.02 / 8 / 1400 -> 1712 segments
"""

from ._core import CongestionControl, algorithms

__all__ = ["CongestionControl", "algorithms"]
