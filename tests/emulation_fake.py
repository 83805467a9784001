"""A stand-in for the extension's real-time driver (``_core.Emulation``), for the tests of
the Python side of emulation (namespaces, clean-up, the command line, the run folder).

:class:`FakeEmulation` keeps the driver's contract: it resolves ``ue``/``server`` from the
scenario (``ValueError`` naming the option), creates the two TUN devices (IFF_TUN |
IFF_NO_PI) in the caller's namespace, and ``run()`` blocks until ``stop()`` or the
duration. Instead of the simulated network it forwards every packet from one device to
the other at once, counting the TCP connections it sees, so that real programs can talk
through the namespaces. ``finish()`` gives a real summary and tables (a short run of the
scenario in the simulator) plus the three ``real_*`` tables and a report.

As a script it runs the ``mmtsim`` command with the fake installed::

    python tests/emulation_fake.py emulate SCENARIO ... -- COMMAND ...
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from mmtsim import _core  # noqa: E402

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000


def open_tun(name: str) -> int:
    """A TUN device named ``name`` (IPv4 packets, no packet-information header); it
    vanishes when the descriptor closes."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


class FakeEmulation:
    """``_core.Emulation``'s interface; see the module's doc."""

    #: Every object made, so that tests can look at what the Python side passed.
    made: list[FakeEmulation] = []

    def __init__(self, text, format, origin, base_dir, overrides, seed, ue, server, ue_tun,
                 server_tun, max_lag_s=1e-3, strict=False, pcap=None, snaplen=128,
                 duration_s=None, background=False, lag_grace_s=0.1, cpu=None, offload=True,
                 server_pcap=None):
        self.args = dict(text=text, format=format, origin=origin, base_dir=base_dir,
                         overrides=list(overrides), seed=seed, ue=ue, server=server,
                         ue_tun=ue_tun, server_tun=server_tun, max_lag_s=max_lag_s,
                         strict=strict, pcap=pcap, snaplen=snaplen, duration_s=duration_s,
                         background=background, cpu=cpu, offload=offload,
                         server_pcap=server_pcap)
        resolved = json.loads(_core.validate(text, format, origin, base_dir, list(overrides)))
        ues = [u["name"] for u in (resolved.get("ran") or {}).get("ues", [])]
        gnbs = {g["name"] for g in (resolved.get("ran") or {}).get("gnbs", [])}
        nodes = [n["name"] for n in resolved["nodes"] if n["name"] not in gnbs]
        if ue is not None and ue not in ues:
            raise ValueError(f"--ue {ue!r}: not a UE of the scenario's [ran] "
                             f"(UEs: {', '.join(ues) or 'none'})")
        if server is not None and server not in nodes:
            raise ValueError(f"--server {server!r}: not a node of the scenario "
                             f"(nodes: {', '.join(nodes)})")
        if not ues:
            raise ValueError("--ue: the scenario has no [ran] UE to emulate")
        self.ue_name = ue or ues[0]
        self.server_name = server or nodes[0]
        self._end = duration_s if duration_s is not None else _core.parse_duration(
            resolved["simulation"]["duration"])
        self._text, self._format, self._origin, self._base = text, format, origin, base_dir
        self._overrides, self._seed = list(overrides), seed
        self._pcaps = [p for p in (pcap, server_pcap) if p is not None]
        self._fds = [open_tun(ue_tun)]
        try:
            self._fds.append(open_tun(server_tun))
        except OSError:
            os.close(self._fds[0])
            raise
        self._stop = threading.Event()
        self.flows: dict[tuple, list[int]] = {}  # 5-tuple → [bytes, packets, uplink]
        self.counts = {"injected": 0, "delivered": 0}
        self.ran_s = 0.0
        FakeEmulation.made.append(self)

    def run(self) -> None:
        t0 = time.monotonic()
        try:
            while not self._stop.is_set() and time.monotonic() - t0 < self._end:
                ready, _, _ = select.select(self._fds, [], [], 0.02)
                for fd in ready:
                    other = self._fds[1] if fd == self._fds[0] else self._fds[0]
                    while True:
                        try:
                            pkt = os.read(fd, 65536)
                        except BlockingIOError:
                            break
                        self.counts["injected"] += 1
                        self._count(pkt, uplink=fd == self._fds[0])
                        try:
                            os.write(other, pkt)
                            self.counts["delivered"] += 1
                        except OSError:
                            pass
        finally:
            self.ran_s = time.monotonic() - t0

    def _count(self, pkt: bytes, uplink: bool) -> None:
        if len(pkt) < 24 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            return
        ihl = (pkt[0] & 15) * 4
        src, dst = struct.unpack_from("!II", pkt, 12)
        sport, dport = struct.unpack_from("!HH", pkt, ihl)
        key = (src, sport, dst, dport)
        if (dst, dport, src, sport) in self.flows:
            return  # the other direction of a connection already counted
        row = self.flows.setdefault(key, [0, 0, int(uplink)])
        row[0] += len(pkt)
        row[1] += 1

    def stop(self) -> None:
        self._stop.set()

    def finish(self):
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        for p in self._pcaps:
            # pcap global header, no packets.
            Path(p).write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 128, 101))
        summary, tables = _core.run(self._text, self._format, self._origin, self._base,
                                    self._overrides + ["simulation.duration=0.1s"], self._seed)
        keys = list(self.flows)
        u32 = lambda xs: np.array(xs, dtype=np.uint32)  # noqa: E731
        u64 = lambda xs: np.array(xs, dtype=np.uint64)  # noqa: E731
        n = len(keys)
        tables["real_flows"] = {
            "flow": u32(range(n)), "src_ip": u32([k[0] for k in keys]),
            "src_port": u32([k[1] for k in keys]), "dst_ip": u32([k[2] for k in keys]),
            "dst_port": u32([k[3] for k in keys]),
            "uplink": u32([self.flows[k][2] for k in keys]),
            "bytes": u64([self.flows[k][0] for k in keys]),
            "packets": u64([self.flows[k][1] for k in keys]),
            "retransmits": u64([0] * n), "first_ns": u64([0] * n), "last_ns": u64([0] * n)}
        span = max(self.ran_s, 1e-3)
        tables["real_goodput"] = {
            "flow": u32(range(n)), "t_s": np.zeros(n),
            "goodput_mbps": np.array([self.flows[k][0] * 8 / span / 1e6 for k in keys])}
        tables["real_rtt"] = {"flow": u32([]), "t_ns": u64([]), "rtt_us": u32([])}
        report = {"lag": {"bound_us": 1000.0, "episodes": 0,
                          "turns": {"p50_us": 1.0, "p99_us": 5.0, "max_us": 20.0}},
                  "lateness": {"p50_us": 100.0, "p99_us": 500.0, "max_us": 900.0},
                  "packets": {**self.counts, "dropped": 0}, "warnings": []}
        return summary, tables, json.dumps(report)


def install() -> None:
    _core.Emulation = FakeEmulation


if __name__ == "__main__":
    install()
    from mmtsim.cli import main

    sys.exit(main(sys.argv[1:]))
