"""The kernel-side endpoints, run inside the namespaces with ``ip netns exec``.

This file is a stand-alone script (it imports nothing from mmtsim, so it starts fast in a
fresh process)::

    python endpoint.py recv --port P --out recv.json [--max-seconds S]
    python endpoint.py send --dst ADDR --port P --cc NAME --duration S --out send.json

``send`` is a bulk sender: it sets the congestion control with ``TCP_CONGESTION``,
connects, writes as fast as the socket accepts for ``duration`` seconds, then resets the
connection (``SO_LINGER`` 0) so that nothing outlives the run. A thread samples
``TCP_INFO`` every 10 ms. ``recv`` accepts one connection, reads with a large buffer and
records (time, cumulative application bytes) at most once per millisecond, which the
harness bins into 100 ms goodput bins on the trace clock.

Times are ``CLOCK_MONOTONIC`` ns (``time.monotonic_ns``), the forwarder's clock.

``struct tcp_info`` layout: include/uapi/linux/tcp.h. Offsets below are those of the
kernel's struct on every Linux ABI (the members are naturally aligned u8/u32/u64 with no
padding): the RTO counters at 240–247 were added in Linux 6.7 and are read only when the
kernel returns a struct long enough to hold them.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import threading
import time

TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
SAMPLE_INTERVAL_S = 0.010
#: (name, byte offset in struct tcp_info, struct format) — include/uapi/linux/tcp.h.
TCP_INFO_FIELDS = (
    ("state", 0, "B"),
    ("ca_state", 1, "B"),          # TCP_CA_Open 0, Disorder 1, CWR 2, Recovery 3, Loss 4
    ("retransmits", 2, "B"),       # consecutive RTOs of the current episode
    ("backoff", 4, "B"),
    ("rto_us", 8, "I"),
    ("snd_mss", 16, "I"),
    ("unacked", 24, "I"),
    ("sacked", 28, "I"),
    ("lost", 32, "I"),
    ("retrans", 36, "I"),
    ("reordering", 88, "I"),       # the sender's reordering degree, segments
    ("rtt_us", 68, "I"),           # smoothed RTT (srtt)
    ("rttvar_us", 72, "I"),
    ("snd_ssthresh", 76, "I"),     # segments; >= 0x7fffffff while infinite
    ("snd_cwnd", 80, "I"),         # segments
    ("total_retrans", 100, "I"),
    ("pacing_rate", 104, "Q"),     # bytes/s
    ("segs_out", 136, "I"),        # every segment sent, pure ACKs included
    ("min_rtt_us", 148, "I"),
    ("delivery_rate", 160, "Q"),   # bytes/s, the latest rate sample
    ("bytes_acked", 120, "Q"),
    ("delivered", 192, "I"),
    ("bytes_retrans", 208, "Q"),
    ("dsack_dups", 216, "I"),
    ("reord_seen", 220, "I"),
)
#: Linux >= 6.7: tcpi_total_rto (u16), tcpi_total_rto_recoveries (u16), tcpi_total_rto_time.
RTO_FIELDS = (("total_rto", 240, "H"), ("total_rto_recoveries", 242, "H"), ("total_rto_time_ms", 244, "I"))
TCP_INFO_BUF = 512
TCP_CC_INFO = 26
#: struct tcp_bbr_info (include/uapi/linux/inet_diag.h): bandwidth in bytes/s as two u32
#: halves, min RTT µs, gains in 1/256.
BBR_INFO = struct.Struct("=IIIII")


def parse_tcp_info(raw: bytes) -> dict:
    """The fields above from a ``getsockopt(TCP_INFO)`` result (shorter structs: the
    fields that fit)."""
    out = {}
    for name, off, fmt in TCP_INFO_FIELDS + RTO_FIELDS:
        if off + struct.calcsize("=" + fmt) <= len(raw):
            out[name] = struct.unpack_from("=" + fmt, raw, off)[0]
    return out


def send(args) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, args.cc.encode())
    samples: list[dict] = []
    stop = threading.Event()

    def sampler():
        next_t = time.monotonic()
        while not stop.is_set():
            try:
                raw = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_BUF)
            except OSError:
                break
            row = parse_tcp_info(raw)
            row["t_ns"] = time.monotonic_ns()
            if args.cc == "bbr":
                try:
                    lo, hi, mrtt, pg, cg = BBR_INFO.unpack_from(
                        s.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, BBR_INFO.size))
                    row.update(bbr_bw=(hi << 32) | lo, bbr_min_rtt_us=mrtt, bbr_pacing_gain=pg,
                               bbr_cwnd_gain=cg)
                except (OSError, struct.error):
                    pass
            samples.append(row)
            next_t += SAMPLE_INTERVAL_S
            time.sleep(max(0.0, next_t - time.monotonic()))

    t_connect = time.monotonic_ns()
    s.connect((args.dst, args.port))
    cc = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    # A short timeout lets the loop stop on time even while an outage blocks the socket.
    s.settimeout(0.02)
    chunk = memoryview(bytes(1 << 20))
    end_ns = t_connect + int(args.duration * 1e9)
    sent = 0
    while time.monotonic_ns() < end_ns:
        try:
            sent += s.send(chunk)
        except (TimeoutError, socket.timeout):
            continue
    stop.set()
    th.join()
    info = parse_tcp_info(s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_BUF))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    cols = {k: [r.get(k) for r in samples] for k in (samples[0] if samples else {})}
    with open(args.out, "w") as f:
        json.dump({"cc": cc, "t_connect_ns": t_connect, "bytes_written": sent,
                   "final": info, "samples": cols}, f)
    return 0


def recv(args) -> int:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(1)
    ls.settimeout(args.max_seconds)
    print("ready", flush=True)
    conn, _ = ls.accept()
    conn.settimeout(0.05)
    buf = bytearray(4 << 20)
    total, last_ns = 0, 0
    t_ns, cum = [], []
    deadline = time.monotonic_ns() + int(args.max_seconds * 1e9)
    while time.monotonic_ns() < deadline:
        try:
            n = conn.recv_into(buf)
        except (TimeoutError, socket.timeout):
            continue
        except ConnectionResetError:
            break
        if n == 0:
            break
        now = time.monotonic_ns()
        total += n
        if now - last_ns >= 1_000_000:
            t_ns.append(now)
            cum.append(total)
            last_ns = now
    t_ns.append(time.monotonic_ns())
    cum.append(total)
    # The receiver's own counters (segs_out = the ACKs it sent); a reset socket keeps them.
    try:
        final = parse_tcp_info(conn.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_BUF))
    except OSError:
        final = {}
    with open(args.out, "w") as f:
        json.dump({"t_ns": t_ns, "cum_bytes": cum, "final": final}, f)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="endpoint.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--max-seconds", type=float, default=120.0)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cc", required=True)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--out", required=True)
    a = p.parse_args(argv)
    return send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    sys.exit(main())
