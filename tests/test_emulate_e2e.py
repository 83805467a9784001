"""Real-time emulation end to end with the extension's driver: the Linux TCP stack of a
sender in the UE's namespace, through examples/mmwave-2017.toml's simulated RAN and
wired links, to a receiver in the server's namespace (docs/emulation.md).

Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN), /dev/net/tun and iproute2, as the kernel
harness; CI runs it as root. Each test takes the emulation's wall-clock length (a few
seconds).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, cli
from mmtsim.kernel import netns

_MISSING = netns.missing_privileges()
needs_root = pytest.mark.skipif(bool(_MISSING), reason="emulation needs "
                                + "; ".join(_MISSING) + " (CI runs these as root)")

SCENARIO = EXAMPLES / "mmwave-2017.toml"
ENDPOINT = [sys.executable, "-m", "mmtsim.kernel.endpoint"]
PORT = 5001
#: A Python bulk sender through the simulated uplink: well above a stalled flow, and below
#: what the radio can carry: in line of sight this scenario's uplink carries about
#: 2.9 Gbit/s (mmtsim's simulated bulk upload fills it at 2.88 Gbit/s), and no real flow
#: can get more than the radio gives.
GOODPUT_BAND_MBPS = (5.0, 2950.0)
#: Row budget of the per-packet tables set for the first test (the default is 10^6).
RTT_BUDGET = 200


def _server_cmd(tmp_path: Path) -> str:
    return " ".join([*ENDPOINT, "recv", "--port", str(PORT), "--out",
                     str(tmp_path / "recv.json"), "--max-seconds", "30"])


def _sender(tmp_path: Path, seconds: float) -> list[str]:
    # $MMTSIM_SERVER is read by the shell of the UE's namespace, as a user would write it.
    return ["sh", "-c", " ".join([*ENDPOINT, "send", "--dst", '"$MMTSIM_SERVER"', "--port",
                                  str(PORT), "--cc", "cubic", "--duration", f"{seconds:g}",
                                  "--out", str(tmp_path / "send.json")])]


def _packets_with_port(path: Path, port: int) -> int:
    """Packets of a raw-IPv4 pcap (link type 101) whose TCP source or destination port is
    ``port``."""
    import struct

    data = path.read_bytes()
    magic, = struct.unpack_from("<I", data, 0)
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    assert struct.unpack_from("<I", data, 20)[0] == 101  # LINKTYPE_RAW
    n, off = 0, 24
    while off + 16 <= len(data):
        incl, = struct.unpack_from("<I", data, off + 8)
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(pkt) >= 24 and pkt[9] == 6:  # TCP
            ihl = (pkt[0] & 0x0F) * 4
            sport, dport = struct.unpack_from(">HH", pkt, ihl)
            n += port in (sport, dport)
    return n


def _nothing_left(pid: int) -> None:
    assert not [ns for ns in netns.list_namespaces() if ns.endswith(f"-{pid}")]
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f"mmU{pid}" not in links and f"mmV{pid}" not in links


@needs_root
def test_a_real_uplink_flow_crosses_the_simulated_ran(tmp_path):
    out = tmp_path / "run"
    # A small row budget: about one RTT sample per ms (one per TSval tick) for 3 s is
    # well above it, so the table must be thinned while the summary counts every sample.
    r = cli("emulate", str(SCENARIO), "--duration", "4s", "--out", str(out),
            "--set", f"metrics.sample_budget={RTT_BUDGET}", "--server-pcap",
            "--server-cmd", _server_cmd(tmp_path), "--", *_sender(tmp_path, 3))
    assert r.returncode == 0, r.stderr
    for f in ("summary.json", "emulation.json", "tun.pcap", "tun-server.pcap", "real_flows.parquet",
              "real_goodput.parquet", "real_rtt.parquet", "ran.parquet"):
        assert (out / f).exists(), f
    import mmtsim

    res = mmtsim.read_run(out)
    flows = res.table("real_flows")
    assert flows.height == 1, flows
    flow = flows.row(0, named=True)
    assert flow["uplink"] == 1 and flow["bytes"] > 0
    assert (flow["src"], flow["dst"], flow["dst_port"]) == ("10.79.0.1", "10.79.0.2", PORT)
    from mmtsim.emulate import real_flows

    (real,) = real_flows(res)
    assert real["direction"] == "uplink"
    lo, hi = GOODPUT_BAND_MBPS
    assert lo < real["goodput_mbps"] < hi, real
    assert real["rtt_p50_ms"] > 22  # 2 × (1 + 10) ms of wires, and the radio
    rtt_rows = res.table("real_rtt").height
    assert RTT_BUDGET // 2 <= rtt_rows <= RTT_BUDGET < real["rtt_samples"], (rtt_rows, real)
    assert res.table("real_goodput").height > 0
    report = json.loads((out / "emulation.json").read_text())
    assert any("lag" in k for k in report), report
    assert report.get("kernel")
    assert "lag behind the wall clock" in r.stderr
    # Both pcaps hold the connection, each at its own device: many packets to or from
    # the server's port in each.
    for name in ("tun.pcap", "tun-server.pcap"):
        assert _packets_with_port(out / name, PORT) > 100, name
    assert "tun-server.pcap" in r.stderr


@needs_root
def test_ctrl_c_leaves_no_namespace_and_no_tun_device(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.Popen([sys.executable, "-m", "mmtsim", "emulate", str(SCENARIO), "--out",
                          str(tmp_path / "run"), "--server-cmd",
                          _server_cmd(tmp_path), "--", *_sender(tmp_path, 20)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    banner = p.stderr.readline()
    assert "mmtsim: emulating" in banner, banner + p.stderr.read()
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode != 0, err
    _nothing_left(p.pid)
