"""Trace-driven bottlenecks: CSV and Mahimahi import, export and conversion, and the
capacity a saturating UDP source measures through them."""

from __future__ import annotations

from pathlib import Path

import pytest

import mmtsim
from conftest import cli


def udp_over_trace(tmp_path: Path, trace_name: str, duration: str, rate="200Mbps") -> dict:
    sc = {
        "simulation": {"duration": duration},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"between": ["a", "b"], "delay": "5ms", "trace": {"file": trace_name},
                   "queue": {"limit_packets": 50}, "reverse": {"rate": "1Gbps"}}],
        "flows": [{"protocol": "udp", "from": "a", "to": "b", "app": {"kind": "cbr", "rate": rate}}],
    }
    path = tmp_path / "s.json"
    import json

    path.write_text(json.dumps(sc))
    return mmtsim.run(path)


def test_csv_trace_capacity_and_outage(tmp_path: Path):
    # 20 Mbit/s for 2 s, outage for 1 s, 50 Mbit/s for 2 s: 17.5 MB at the IP level, of
    # which payload 1472/1500. At the end ~5 ms of packets are still propagating
    # (≤ 31 kB), so allow 0.5 %.
    (tmp_path / "t.csv").write_text("time_s,rate_mbps\n0,20\n2,0\n3,50\n")
    res = udp_over_trace(tmp_path, "t.csv", "5s")
    expected = (20e6 / 8 * 2 + 50e6 / 8 * 2) * 1472 / 1500
    got = res.summary["flows"][0]["bytes_delivered"]
    assert got == pytest.approx(expected, rel=0.005)
    g = res.table("goodput")
    during = g.filter((g["t_s"] >= 2.1) & (g["t_s"] < 2.9))["goodput_mbps"]
    assert during.max() == 0.0
    after = g.filter(g["t_s"] >= 3.5)["goodput_mbps"].mean()
    assert after == pytest.approx(50 * 1472 / 1500, rel=0.01)


def test_mahimahi_trace_capacity(tmp_path: Path):
    # One 1500 B opportunity per ms = 12 Mbit/s; the 1000-line file repeats (period 1 s).
    (tmp_path / "t.mahi").write_text("".join(f"{ms}\n" for ms in range(1, 1001)))
    res = udp_over_trace(tmp_path, "t.mahi", "4s")
    mbps = res.summary["flows"][0]["goodput_mbps"]
    assert mbps == pytest.approx(12 * 1472 / 1500, rel=0.01)


def test_cli_converts_between_formats(tmp_path: Path):
    (tmp_path / "c.csv").write_text("time_s,rate_mbps\n0,12\n")
    r = cli("trace", str(tmp_path / "c.csv"), str(tmp_path / "m.txt"), "--from", "csv", "--to",
            "mahimahi", "--until", "1s")
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "m.txt").read_text().split()
    # 12 Mbit/s carries 1500 B every 1 ms: opportunities at 1, 2, ..., 1000 ms.
    assert lines == [str(i) for i in range(1, 1001)]
    r = cli("trace", str(tmp_path / "m.txt"), str(tmp_path / "back.csv"), "--from", "mahimahi",
            "--to", "csv", "--until", "1s")
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "back.csv").read_text().strip().splitlines()
    # 1 ms bins: [0, 1 ms) holds no opportunity (the first is at 1 ms), every later bin one
    # (1500 B / 1 ms = 12 Mbit/s).
    assert rows == ["time_s,rate_bps", "0,0", "0.001,12000000"]


def test_cli_trace_errors(tmp_path: Path):
    (tmp_path / "bad.csv").write_text("time_s,rate_mbps\n0,10\n0,20\n")
    r = cli("trace", str(tmp_path / "bad.csv"), str(tmp_path / "o"), "--from", "csv", "--to",
            "mahimahi", "--until", "1s")
    assert r.returncode == 2 and "line 3" in r.stderr
    assert not (tmp_path / "o").exists()
    r = cli("trace", str(tmp_path / "bad.csv"), str(tmp_path / "o"), "--from", "csv", "--to",
            "mahimahi", "--until", "soon")
    assert r.returncode == 2 and "--until 'soon'" in r.stderr
