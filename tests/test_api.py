"""The Python API: run from a path or a dict, overrides, results as DataFrames, run folders,
determinism across threads, progress and cancellation."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

import mmtsim
from conftest import small_dict


def test_run_from_dict_returns_summary_and_tables():
    res = mmtsim.run(small_dict())
    s = res.summary
    for key in ("scenario", "seed", "mmtsim_version", "sim_seconds", "wall_seconds", "events", "flows"):
        assert key in s
    f = s["flows"][0]
    for key in ("id", "cc", "goodput_mbps", "rtt_mean_ms", "rtt_p95_ms", "retransmits", "rtos",
                "bytes_delivered"):
        assert key in f
    assert s["sim_seconds"] == 2.0 and s["events"] > 0 and s["mmtsim_version"] == mmtsim.__version__
    # The resolved scenario has the defaults filled in.
    assert s["scenario"]["flows"][0]["tcp"]["mss"] == "1400B"
    assert s["scenario"]["metrics"]["goodput_bin"] == "100ms"
    # Goodput is bytes delivered over the active time (2 s).
    assert f["goodput_mbps"] == pytest.approx(f["bytes_delivered"] * 8 / 2.0 / 1e6)


def test_tables_have_documented_columns_and_units():
    res = mmtsim.run(small_dict())
    assert res.table("goodput").columns == ["flow", "t_s", "goodput_mbps"]
    assert res.table("rtt").columns == ["flow", "t_s", "rtt_ms"]
    assert res.table("cwnd").columns == ["flow", "t_s", "cwnd_bytes", "ssthresh_bytes", "inflight_bytes", "rwnd_bytes"]
    assert res.table("queue").columns == ["link", "t_s", "bytes", "packets", "drops"]
    rtt = res.table("rtt")
    # 20 ms of propagation plus serialisation at 50 Mbit/s. The first sample is the
    # handshake: SYN and SYN-ACK of 60 B each (20 IP + 20 TCP + 20 options) take 9.6 µs.
    # Timestamps tick in µs, so samples are exact to 1 µs.
    assert rtt["rtt_ms"][0] == pytest.approx(20.0 + 2 * 0.0096, abs=1e-3)
    # The first data segment (1400 + 52 B of headers with the timestamp option = 1452 B,
    # 232.32 µs) waits behind the handshake's final ACK (52 B, 8.32 µs) sent just before it;
    # its own ACK is 52 B too.
    assert rtt["rtt_ms"][1] == pytest.approx(20.0 + 0.00832 + 0.23232 + 0.00832, abs=1e-3)
    assert res.summary["flows"][0]["rtt_samples"] == rtt.height
    # Goodput bins of 100 ms cover the whole 2 s run and sum to the bytes delivered.
    g = res.table("goodput")
    assert g.height == 20
    assert (g["goodput_mbps"] * 0.1 / 8 * 1e6).sum() == pytest.approx(res.summary["flows"][0]["bytes_delivered"])
    # Before the first loss ssthresh is infinite: null, not a huge number.
    assert res.table("cwnd")["ssthresh_bytes"].null_count() > 0
    pdf = res.table("rtt", pandas=True)
    assert list(pdf.columns) == ["flow", "t_s", "rtt_ms"] and len(pdf) == rtt.height
    with pytest.raises(KeyError, match="unknown table"):
        res.table("nope")


def test_overrides_as_list_or_dict(small_toml: Path):
    a = mmtsim.run(small_toml, overrides=["flows.0.cc=newreno", "simulation.duration=1s"])
    b = mmtsim.run(small_toml, overrides={"flows.0.cc": "newreno", "simulation.duration": "1s"})
    assert a.summary["flows"][0]["cc"] == "newreno" and a.summary["sim_seconds"] == 1.0
    assert a.summary["flows"] == b.summary["flows"]


def test_run_folder_round_trip(tmp_path: Path):
    out = tmp_path / "run"
    res = mmtsim.run(small_dict(), out=out)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["summary.json", "goodput.parquet", "rtt.parquet", "cwnd.parquet", "queue.parquet", "owd.parquet"])
    back = mmtsim.read_run(out)
    assert back.summary == json.loads((out / "summary.json").read_text())
    for name in ("goodput", "rtt", "cwnd", "queue"):
        assert back.table(name).equals(res.table(name)), name
    # Re-running into the same folder replaces it atomically.
    mmtsim.run(small_dict(duration="1s"), out=out)
    assert mmtsim.read_run(out).summary["sim_seconds"] == 1.0
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_refuses_to_overwrite_a_foreign_folder(tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.txt").write_text("x")
    with pytest.raises(FileExistsError):
        mmtsim.run(small_dict(), out=tmp_path / "data")
    assert (tmp_path / "data" / "precious.txt").exists()


def test_seed_determinism_and_thread_pool():
    sc = small_dict(loss=0.005)
    seq = [mmtsim.run(sc, seed=s).summary for s in range(6)]
    with ThreadPoolExecutor(max_workers=3) as ex:
        par = list(ex.map(lambda s: mmtsim.run(sc, seed=s).summary, range(6)))
    strip = lambda d: {k: v for k, v in d.items() if k != "wall_seconds"}  # noqa: E731
    assert [strip(x) for x in seq] == [strip(x) for x in par]
    assert seq[0]["flows"] != seq[1]["flows"]


def test_progress_and_cancel():
    from mmtsim import _core

    prog = _core.Progress()
    prog.cancel()
    text = json.dumps(small_dict(duration="200s"))
    with pytest.raises(mmtsim.Cancelled):
        _core.run(text, "json", "<t>", ".", [], None, None, prog)
    p2 = _core.Progress()
    _core.run(json.dumps(small_dict(duration="1s")), "json", "<t>", ".", [], None, None, p2)
    assert p2.sim_seconds == pytest.approx(1.0)


def test_validate_returns_resolved_scenario(small_toml: Path):
    sc = mmtsim.validate(small_toml)
    assert sc["flows"][0]["tcp"]["initial_cwnd"] == 10
    assert sc["links"][0]["queue"]["limit"] == "125kB"


def test_flows_and_links_frames():
    res = mmtsim.run(small_dict())
    assert isinstance(res.flows, pl.DataFrame) and res.flows.height == 1
    assert res.links.height == 2
    assert set(res.links["direction"]) == {"forward", "reverse"}


def test_dict_values_of_every_kind(tmp_path: Path):
    import numpy as np

    sc = small_dict(duration="1s")
    sc["flows"][0]["name"] = "flüss 😀"
    sc["flows"][0]["count"] = np.int64(2)
    sc["flows"][0]["tcp"] = {"mss": "1000B", "sack": np.bool_(False)}
    res = mmtsim.run(sc, overrides={"links.0.loss": {"kind": "bernoulli", "p": 0.001},
                                    "flows.0.app": {"kind": "rate", "rate": "5Mbps"}})
    names = [f["name"] for f in res.summary["flows"]]
    assert names == ["flüss 😀#0", "flüss 😀#1"]
    assert res.summary["scenario"]["links"][0]["loss"] == {"kind": "bernoulli", "p": 0.001}
    assert res.summary["scenario"]["flows"][0]["tcp"]["sack"] is False
    # A path given as a Path object.
    p = tmp_path / "t.csv"
    p.write_text("time_s,rate_mbps\n0,10\n")
    sc2 = small_dict(duration="1s")
    del sc2["links"][0]["rate"]
    sc2["links"][0]["trace"] = {"file": p}
    sc2["links"][0]["reverse"] = {"rate": "10Mbps"}
    assert mmtsim.run(sc2).summary["flows"][0]["goodput_mbps"] > 5


def test_run_folder_has_ordinary_permissions(tmp_path: Path):
    import os
    import stat

    umask = os.umask(0o022)
    try:
        mmtsim.run(small_dict(duration="1s"), out=tmp_path / "run")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "run").stat().st_mode) == 0o755


def test_ctrl_c_cancels_a_quiet_run(tmp_path: Path):
    import signal
    import subprocess
    import sys
    import time

    scen = tmp_path / "long.json"
    sc = small_dict(duration="100000s")
    sc["links"][0]["rate"] = "1Gbps"
    scen.write_text(json.dumps(sc))
    p = subprocess.Popen([sys.executable, "-m", "mmtsim", "run", str(scen), "--out",
                          str(tmp_path / "o"), "--quiet"], stderr=subprocess.PIPE, text=True)
    # Interrupt once the run is under way (its staging folder exists), however slow start-up is.
    deadline = time.monotonic() + 60
    while not any(x.name.startswith(".o.tmp-") for x in tmp_path.iterdir()):
        assert time.monotonic() < deadline and p.poll() is None, "the run did not start"
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("SIGINT did not stop the run")
    assert p.returncode == 130 and "interrupted" in err
    assert not (tmp_path / "o").exists()
    assert [x.name for x in tmp_path.iterdir()] == ["long.json"], "no staging folder left"


def test_a_rust_panic_becomes_a_python_exception():
    from mmtsim import _core

    # DESIGN: a violated invariant is a bug that stops the run with a message; it must
    # never crash the interpreter. The hook panics inside the guard every run uses.
    with pytest.raises(mmtsim.SimulationError, match="internal error .* invariant violated at t = 1.5 s"):
        _core._panic_inside_guard()
    assert issubclass(mmtsim.SimulationError, mmtsim.MmtsimError)


def test_flows_table_reads_in_order_and_a_run_shows_itself_in_a_notebook():
    from conftest import small_dict

    res = mmtsim.run(small_dict(duration="0.5s"))
    cols = res.flows.columns
    assert cols[:6] == ["id", "name", "protocol", "cc", "from", "to"]
    assert cols.index("goodput_mbps") < cols.index("rtt_mean_ms") < cols.index("retransmits")
    assert sorted(cols) == sorted(res.summary["flows"][0].keys())  # nothing lost
    page = res._repr_html_()
    assert page.startswith("<div>") and "<table>" in page and "seed 1" in page
    assert f"{res.summary['flows'][0]['goodput_mbps']:.2f}" in page
