"""12h: tshark reads a capture of a lossy run, and its TCP analysis agrees with mmtsim's
retransmission count.

The capture point is the sender's side of the bottleneck (packets as they enter the link,
ACKs as they come back), like tcpdump on the sender's interface. Wireshark labels a segment
below the highest sequence seen either "retransmission" or, when it follows the previous
segment by less than its reordering threshold (as PRR's back-to-back sends do),
"out-of-order"; at the sender's own interface both can only be retransmissions, so both
are counted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import mmtsim
from conftest import small_dict

TSHARK = shutil.which("tshark")
pytestmark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (scripts/test.sh installs it as root)")


def tshark_fields(pcap: Path, *fields: str, filt: str | None = None) -> list[list[str]]:
    cmd = [TSHARK, "-r", str(pcap), "-o", "tcp.relative_sequence_numbers:TRUE", "-T", "fields"]
    if filt:
        cmd += ["-Y", filt]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


@pytest.mark.parametrize("sack", [True, False])
def test_tshark_retransmissions_match(tmp_path: Path, sack: bool):
    sc = small_dict(duration="5s", loss=0.01, capture=True)
    sc["flows"][0]["tcp"] = {"sack": sack}
    res = mmtsim.run(sc, seed=7, out=tmp_path / "run")
    pcap = tmp_path / "run" / "pcap" / "bottleneck.pcap"
    assert pcap.exists()
    ours = res.summary["flows"][0]["retransmits"]
    assert ours > 10, "the run should be lossy enough to compare"
    flagged = tshark_fields(
        pcap, "frame.number",
        filt="tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
             " || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order",
    )
    assert len(flagged) == ours
    # Every data segment mmtsim sent is in the capture.
    data = tshark_fields(pcap, "tcp.len", filt="ip.src == 10.0.0.1 && tcp.len > 0")
    assert len(data) == res.summary["flows"][0]["segments_sent"]
    # No malformed packets or checksum errors (IP headers are complete, so verifiable).
    bad = tshark_fields(pcap, "frame.number", filt="_ws.malformed || ip.checksum.status == 0")
    assert bad == []


def test_capture_sequence_numbers_match_the_delivered_bytes(tmp_path: Path):
    sc = small_dict(duration="2s", capture=True)
    sc["flows"][0]["app"] = {"kind": "file", "size": "1MB"}
    res = mmtsim.run(sc, out=tmp_path / "run")
    pcap = tmp_path / "run" / "pcap" / "bottleneck.pcap"
    acks = tshark_fields(pcap, "tcp.ack", filt="ip.src == 10.0.0.2 && tcp.flags.syn == 0")
    # The last cumulative ACK covers the SYN (1) plus every byte of the file.
    assert max(int(a[0]) for a in acks) == 1 + 1_000_000 == 1 + res.summary["flows"][0]["bytes_delivered"]
    syn = tshark_fields(pcap, "tcp.options.wscale.shift", "tcp.options.sack_perm", filt="tcp.flags.syn == 1")
    assert len(syn) == 2 and all(row[0] for row in syn)
