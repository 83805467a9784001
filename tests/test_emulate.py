"""Real-time emulation's Python side (python/mmtsim/emulate.py, docs/emulation.md): the
privilege check, bad input, the namespaces built and removed on every exit path, the run
folder, and plotting a folder with real flows.

The extension's driver is replaced by ``emulation_fake.FakeEmulation`` (same interface:
it creates the TUN devices and forwards packets between them at once), so these tests
check everything around the driver; ``test_emulate_e2e.py`` runs the real one.

Tests that build namespaces need root (CAP_NET_ADMIN, CAP_SYS_ADMIN), /dev/net/tun and
iproute2, as the kernel harness's; CI runs them as root, elsewhere they are skipped with
the reason.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import mmtsim
from conftest import EXAMPLES, ROOT, cli, small_dict
from emulation_fake import FakeEmulation
from mmtsim import _core
from mmtsim.cli import main
from mmtsim.kernel import netns

# The function `mmtsim.emulate` shadows its module on the package (as `mmtsim.sweep` does).
emulate_mod = importlib.import_module("mmtsim.emulate")

SCENARIO = EXAMPLES / "mmwave-2017.toml"
FAKE_CLI = [sys.executable, str(Path(__file__).resolve().parent / "emulation_fake.py")]

_MISSING = netns.missing_privileges()
needs_root = pytest.mark.skipif(bool(_MISSING), reason="emulation needs "
                                + "; ".join(_MISSING) + " (CI runs these as root)")


@pytest.fixture
def fake_driver(monkeypatch):
    """The fake driver in place of the extension's, in this process."""
    FakeEmulation.made.clear()
    monkeypatch.setattr(_core, "Emulation", FakeEmulation, raising=False)
    yield FakeEmulation


def _namespaces() -> set[str]:
    return set(netns.list_namespaces())


def _links() -> str:
    return subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout


def _fake_cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([*FAKE_CLI, *args], capture_output=True, text=True, env=env,
                          check=False, **kw)


def _nothing_left(pid: int) -> None:
    """No namespace and no TUN device of process ``pid`` remains."""
    left = {ns for ns in _namespaces() if ns.endswith(f"-{pid}")}
    assert not left, left
    assert f"mmU{pid}" not in _links() and f"mmV{pid}" not in _links()


# -- privileges ----------------------------------------------------------------------------


def _status(tmp_path: Path, cap_eff: int) -> Path:
    p = tmp_path / "status"
    p.write_text(f"Name:\tpython\nCapInh:\t0000000000000000\nCapEff:\t{cap_eff:016x}\n")
    return p


def test_a_missing_capability_is_named_with_the_way_to_grant_it(tmp_path, monkeypatch):
    monkeypatch.setattr(netns, "PROC_STATUS", str(_status(tmp_path, 0)))
    with pytest.raises(mmtsim.EmulationUnavailable) as e:
        emulate_mod.check_privileges()
    msg = str(e.value)
    assert "CAP_NET_ADMIN and CAP_SYS_ADMIN" in msg and "sudo .venv/bin/mmtsim emulate" in msg
    # Only CAP_SYS_ADMIN missing: only it is named.
    monkeypatch.setattr(netns, "PROC_STATUS", str(_status(tmp_path, 1 << netns.CAP_NET_ADMIN)))
    msg = "; ".join(netns.missing_privileges())
    assert "CAP_SYS_ADMIN" in msg and "CAP_NET_ADMIN" not in msg


def test_a_missing_tun_device_and_ip_command_are_named(tmp_path, monkeypatch):
    monkeypatch.setattr(netns, "PROC_STATUS", str(_status(tmp_path, (1 << 40) - 1)))
    monkeypatch.setattr(netns, "TUN_DEVICE", str(tmp_path / "no-tun"))
    monkeypatch.setattr(netns.shutil, "which", lambda name: None)
    missing = netns.missing_privileges()
    assert len(missing) == 2
    assert str(tmp_path / "no-tun") in missing[0] and "iproute2" in missing[1]


def test_without_privileges_the_command_exits_2_and_writes_nothing(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(netns, "PROC_STATUS", str(_status(tmp_path, 0)))
    out = tmp_path / "run"
    rc = main(["emulate", str(SCENARIO), "--out", str(out), "--", "true"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "CAP_NET_ADMIN" in err and "sudo" in err and "emulate" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [tmp_path / "status"]


# -- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["emulate", str(SCENARIO)], "needs a COMMAND after `--`"),
    (["emulate", str(SCENARIO), "--"], "needs a COMMAND after `--`"),
    (["emulate", str(SCENARIO), "--", "no-such-program-xyz"], "'no-such-program-xyz': not found"),
    (["emulate", str(SCENARIO), "--duration", "soon", "--", "true"], "--duration 'soon'"),
    (["emulate", str(SCENARIO), "--duration", "0s", "--", "true"], "--duration '0s'"),
    (["emulate", str(SCENARIO), "--max-lag", "1", "--", "true"], "--max-lag '1'"),
    (["emulate", str(SCENARIO), "--seed", "x", "--", "true"], "--seed 'x'"),
    (["emulate", str(SCENARIO), "--cpu", "4096", "--", "true"], "--cpu 4096"),
    (["emulate", str(SCENARIO), "--cpu", "-1", "--", "true"], "--cpu -1"),
    (["emulate", str(SCENARIO), "--cpu", "one", "--", "true"], "--cpu"),
    (["emulate", "no/such/scenario.toml", "--", "true"], "no/such/scenario.toml"),
    (["emulate", str(SCENARIO), "--set", "ran.rlc.buffer=lots", "--", "true"], "ran.rlc.buffer"),
    (["shell", str(SCENARIO), "--set", "nonsense"], "--set 'nonsense'"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, args, words):
    r = cli(*args[:2], "--out", str(tmp_path / "run"), *args[2:], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert words in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_out_that_is_a_file_exits_2(tmp_path):
    (tmp_path / "f").write_text("x")
    r = cli("emulate", str(SCENARIO), "--out", str(tmp_path / "f"), "--", "true")
    assert r.returncode == 2 and "--out" in r.stderr and "is a file" in r.stderr


def test_api_arguments_are_checked_when_the_object_is_made():
    with pytest.raises(ValueError, match="max_lag"):
        mmtsim.emulate(SCENARIO, max_lag=-1)
    with pytest.raises(ValueError, match="duration 'later'"):
        mmtsim.emulate(SCENARIO, duration="later")
    with pytest.raises(ValueError, match="seed"):
        mmtsim.emulate(SCENARIO, seed=-3)
    em = mmtsim.emulate(SCENARIO, duration="2s", max_lag="500us")
    assert (em.duration_s, em.max_lag_s) == (2.0, 0.0005)
    assert em.env["MMTSIM_SERVER"] == "10.79.0.2" and em.env["MMTSIM_UE"] == "10.79.0.1"
    with pytest.raises(RuntimeError, match="not running"):
        em.run_in_ue(["true"])


# -- namespaces (root) --------------------------------------------------------------------


def _addr(ns: str | None, dev: str) -> str:
    argv = ["ip", "-o", "-4", "addr", "show", "dev", dev]
    return subprocess.run(netns.exec_argv(ns, argv) if ns else argv, capture_output=True,
                          text=True).stdout


@needs_root
def test_host_side_namespaces_are_built_used_and_removed(tmp_path, fake_driver):
    """Server side on the host: a listener on 10.79.0.2 receives what a program in the UE's
    namespace sends; everything is gone afterwards and the run folder is complete."""
    srv = socket.socket()
    srv.settimeout(20)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    got = []
    out = tmp_path / "run"
    # The handlers of the process before: Python's default for SIGINT, or "ignore" when the
    # test runner was started in the background without job control.
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with mmtsim.emulate(SCENARIO, out=out, duration="20s", seed=3,
                        overrides=["flows.0.app.rate=10Mbps"]) as em:
        ns, pid = em.ue_ns, os.getpid()
        assert ns == f"mmtsim-ue-{pid}" and em.server_ns is None
        assert ns in _namespaces()
        assert "10.79.0.1/24" in _addr(ns, em.ue_tun)
        assert "10.79.0.2/24" in _addr(None, em.server_tun)
        route = subprocess.run(netns.exec_argv(ns, ["ip", "route", "show", "default"]),
                               capture_output=True, text=True).stdout
        assert f"dev {em.ue_tun}" in route
        topo = netns.Topology([], tmp_path)
        assert topo.read_sysctl(ns, "net.ipv4.tcp_rmem").split() == netns.TCP_RMEM.split()
        assert topo.read_sysctl(ns, f"net.ipv6.conf.{em.ue_tun}.disable_ipv6") == "1"
        assert Path(f"/proc/sys/net/ipv6/conf/{em.server_tun}/disable_ipv6").read_text() == "1\n"
        srv.bind((em.server_addr, 0))
        srv.listen(1)
        port = srv.getsockname()[1]

        def accept():
            c, _ = srv.accept()
            got.append(b"".join(iter(lambda: c.recv(65536), b"")))
            c.close()

        th = threading.Thread(target=accept, daemon=True)
        th.start()
        code = ("import os, socket; s = socket.create_connection((os.environ['MMTSIM_SERVER'], "
                f"{port})); s.sendall(b'x' * 100000); s.close()")
        r = em.run_in_ue([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        th.join(10)
        assert em.running
    srv.close()
    assert got == [b"x" * 100000]
    _nothing_left(pid)
    drv = fake_driver.made[-1]
    assert drv.args["ue_tun"] == em.ue_tun and drv.args["seed"] == 3
    assert drv.args["duration_s"] == 20.0 and drv.args["pcap"].endswith("/tun.pcap")
    assert drv.args["server_pcap"] is None  # asked for with server_pcap=True
    assert drv.args["overrides"] == ["flows.0.app.rate=10Mbps"]
    # The run folder: what mmtsim run writes, plus the real flows and the report.
    for f in ("summary.json", "goodput.parquet", "ran.parquet", "real_flows.parquet",
              "real_goodput.parquet", "real_rtt.parquet", "emulation.json", "tun.pcap"):
        assert (out / f).exists(), f
    assert not list(tmp_path.glob(".run.tmp-*"))
    res = mmtsim.read_run(out)
    flows = res.table("real_flows")
    assert flows.height == 1
    row = flows.row(0, named=True)
    assert (row["src"], row["dst"], row["dst_port"], row["uplink"]) == (
        "10.79.0.1", "10.79.0.2", port, 1)
    assert row["bytes"] > 100000
    assert res.summary["emulation"]["deterministic"] is False
    assert em.result.summary["emulation"]["ue"] == "ue1"
    report = json.loads((out / "emulation.json").read_text())
    assert report["ue_namespace"] == f"mmtsim-ue-{pid}" and report["kernel"]
    # The handlers are the ones from before.
    assert {s: signal.getsignal(s) for s in handlers} == handlers


@needs_root
def test_a_server_command_runs_in_its_own_namespace_and_is_ended(tmp_path, fake_driver):
    out = tmp_path / "run"
    recv = tmp_path / "recv.json"
    server = (f"{sys.executable} {ROOT / 'python/mmtsim/kernel/endpoint.py'} recv --port 5001 "
              f"--out {recv} --max-seconds 60")
    with mmtsim.emulate(SCENARIO, out=out, server_cmd=server) as em:
        assert {em.ue_ns, em.server_ns} <= _namespaces()
        assert "10.79.0.2/24" in _addr(em.server_ns, em.server_tun)
        assert "10.79.0.2" not in _addr(None, em.server_tun)  # the device left the host
        assert netns.namespace_pids(em.server_ns)
        r = em.run_in_ue([sys.executable, str(ROOT / "python/mmtsim/kernel/endpoint.py"), "send",
                          "--dst", em.server_addr, "--port", "5001", "--cc", "cubic",
                          "--duration", "0.5", "--out", str(tmp_path / "send.json")])
        assert r.returncode == 0
        server_pids = netns.namespace_pids(em.server_ns)
    _nothing_left(os.getpid())
    for pid in server_pids:
        assert not Path(f"/proc/{pid}").exists() or \
            "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
    assert (out / "server.log").read_text().startswith("ready")
    assert json.loads((tmp_path / "send.json").read_text())["bytes_written"] > 0


@needs_root
def test_a_server_command_that_exits_at_once_is_bad_input(tmp_path, fake_driver):
    r = _fake_cli("emulate", str(SCENARIO), "--out", str(tmp_path / "run"),
                  "--server-cmd", "echo no such server; exit 3", "--", "true")
    assert r.returncode == 2, r.stderr
    assert "exited with code 3 before it listened" in r.stderr and "no such server" in r.stderr
    assert list(tmp_path.iterdir()) == []
    assert not [ns for ns in _namespaces() if ns.startswith(("mmtsim-ue-", "mmtsim-srv-"))
                and ns.split("-")[-1] != str(os.getpid())]


@needs_root
def test_an_unknown_ue_or_server_exits_2_and_leaves_nothing(tmp_path):
    for flag in ("--ue", "--server"):
        r = _fake_cli("emulate", str(SCENARIO), "--out", str(tmp_path / "run"), flag, "nobody",
                      "--", "true")
        assert r.returncode == 2, r.stderr
        assert f"{flag} 'nobody'" in r.stderr
        assert list(tmp_path.iterdir()) == []


@needs_root
def test_the_command_exit_code_is_passed_on_and_the_summary_printed(tmp_path):
    # The environment is the command's; '$MMTSIM_UE' among its arguments is filled in.
    r = _fake_cli("emulate", str(SCENARIO), "--out", str(tmp_path / "run"), "--", "sh", "-c",
                  "test \"$MMTSIM_SERVER\" = 10.79.0.2 && test \"$1\" = 10.79.0.1 "
                  "&& ip -o -4 addr | grep -q 10.79.0.1 && exit 7", "sh", "$MMTSIM_UE")
    assert r.returncode == 7, r.stderr
    assert "lag behind the wall clock: p50 0.001 ms, p99 0.005 ms, max 0.020 ms" in r.stderr
    assert f"wrote {tmp_path / 'run'}" in r.stderr
    assert (tmp_path / "run" / "emulation.json").exists()


@needs_root
def test_the_scenarios_end_stops_a_program_still_running(tmp_path):
    t0 = time.monotonic()
    r = _fake_cli("emulate", str(SCENARIO), "--out", str(tmp_path / "run"), "--duration",
                  "0.5s", "--", "sleep", "30")
    assert time.monotonic() - t0 < 15
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    assert "the scenario's end was reached" in r.stderr
    report = json.loads((tmp_path / "run" / "emulation.json").read_text())
    assert any("SIGTERM" in w for w in report["warnings"])


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_command_line_leaves_nothing_behind(tmp_path, sig):
    """The first signal goes to the program (a shell's Ctrl-C), the emulation then ends
    and writes its folder; a second one ends the emulation at once, writing nothing."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    server = (f"{sys.executable} {ROOT / 'python/mmtsim/kernel/endpoint.py'} recv --port 5001 "
              f"--out {tmp_path / 'recv.json'} --max-seconds 60")
    for n_signals in (1, 2):
        out = tmp_path / f"run{n_signals}"
        # A program that ignores the first signal, so that the second one reaches mmtsim.
        prog = ("import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
                if n_signals == 2 else "import time; time.sleep(60)")
        p = subprocess.Popen([*FAKE_CLI, "emulate", str(SCENARIO), "--out", str(out),
                              "--server-cmd", server, "--", sys.executable, "-c", prog],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        banner = p.stderr.readline()  # printed once everything is up
        assert "mmtsim: emulating" in banner, banner + p.stderr.read()
        assert {f"mmtsim-ue-{p.pid}", f"mmtsim-srv-{p.pid}"} <= _namespaces()
        time.sleep(0.5)  # the program has started
        for _ in range(n_signals):
            p.send_signal(sig)
            time.sleep(0.5)
        _, err = p.communicate(timeout=30)
        _nothing_left(p.pid)
        if n_signals == 1:
            assert p.returncode == 128 + sig, err
            assert (out / "summary.json").exists()
        else:
            assert p.returncode == (130 if sig == signal.SIGINT else 128 + sig), err
            assert not out.exists() and not list(tmp_path.glob(f".{out.name}.tmp-*"))


@needs_root
def test_sigterm_inside_the_with_block_cleans_up_and_restores_the_handlers(tmp_path,
                                                                         fake_driver):
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as e:
        with mmtsim.emulate(SCENARIO, out=tmp_path / "run") as em:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    assert e.value.code == 128 + signal.SIGTERM
    _nothing_left(os.getpid())
    assert em.result is None and not (tmp_path / "run").exists()
    assert not list(tmp_path.glob(".run.tmp-*"))
    assert signal.getsignal(signal.SIGTERM) is before


@needs_root
def test_stale_namespaces_of_dead_processes_are_removed(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = [f"mmtsim-ue-{dead.pid}", f"mmtsim-srv-{dead.pid}"]
    alive = f"mmtsim-ue-{os.getppid()}"  # a live process: left alone
    made = []
    try:
        for ns in [*stale, alive]:
            if ns in _namespaces():
                continue
            subprocess.run(["ip", "netns", "add", ns], check=True)
            made.append(ns)
        # Something left running inside a stale namespace is ended with it.
        sleeper = subprocess.Popen(netns.exec_argv(stale[0], ["sleep", "60"]))
        deadline = time.monotonic() + 5
        while not netns.namespace_pids(stale[0]) and time.monotonic() < deadline:
            time.sleep(0.02)
        removed = netns.remove_stale_namespaces((emulate_mod.UE_NS_PREFIX,
                                                 emulate_mod.SERVER_NS_PREFIX))
        assert set(stale) <= set(removed) and alive not in removed
        assert not set(stale) & _namespaces() and alive in _namespaces()
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@needs_root
def test_a_start_removes_stale_namespaces_and_says_so(tmp_path, fake_driver, capsys):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = f"mmtsim-srv-{dead.pid}"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        with mmtsim.emulate(SCENARIO, out=tmp_path / "run"):
            pass
        assert stale not in _namespaces()
        assert f"removed 1 namespace(s) left by an emulation that was killed: {stale}" in \
            capsys.readouterr().err
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)


# -- plotting -----------------------------------------------------------------------------


def _emulation_folder(tmp_path: Path) -> Path:
    """A run folder with the real_* tables, as an emulation writes it (a short simulated
    run plus two real flows)."""
    res = mmtsim.run(small_dict(duration="1s"))
    n = 20
    t = np.arange(n) * 0.05
    u32 = lambda xs: np.array(xs, dtype=np.uint32)  # noqa: E731
    u64 = lambda xs: np.array(xs, dtype=np.uint64)  # noqa: E731
    res._raw["real_flows"] = {
        "flow": u32([0, 1]), "src_ip": u32([0x0A4F0001, 0x0A4F0002]),
        "src_port": u32([40000, 8000]), "dst_ip": u32([0x0A4F0002, 0x0A4F0001]),
        "dst_port": u32([5201, 41000]), "uplink": u32([1, 0]), "bytes": u64([10**6, 2 * 10**6]),
        "packets": u64([700, 1400]), "retransmits": u64([0, 3]), "first_ns": u64([0, 0]),
        "last_ns": u64([10**9, 10**9])}
    res._raw["real_goodput"] = {"flow": u32([0] * n + [1] * n), "t_s": np.concatenate([t, t]),
                                "goodput_mbps": np.concatenate([np.full(n, 8.0), np.full(n, 16.0)])}
    res._raw["real_rtt"] = {"flow": u32([0] * n), "t_ns": u64((t * 1e9).astype(np.uint64)),
                            "rtt_us": u32([25_000] * n)}
    res.summary["real_flows"] = []
    folder = tmp_path / "emu"
    res._write_into(folder)
    return folder


def test_real_tables_are_read_back_with_addresses_as_text(tmp_path):
    res = mmtsim.read_run(_emulation_folder(tmp_path))
    assert {"real_flows", "real_goodput", "real_rtt"} <= set(res.table_names())
    flows = res.table("real_flows")
    assert flows["src"].to_list() == ["10.79.0.1", "10.79.0.2"]
    assert flows["dst"].to_list() == ["10.79.0.2", "10.79.0.1"]
    rtt = res.table("real_rtt")
    assert rtt["t_s"][1] == pytest.approx(0.05) and rtt["rtt_ms"][0] == pytest.approx(25.0)


def test_plot_draws_real_flows_beside_the_simulated_ones(tmp_path):
    from mmtsim.plot import overview_figure, plot_run

    folder = _emulation_folder(tmp_path)
    files = plot_run(folder)
    assert {f.name for f in files} >= {"goodput.png", "rtt.png", "overview.png"}
    fig = overview_figure(mmtsim.read_run(folder))
    goodput, rtt = fig.axes[0], fig.axes[1]
    labels = [line.get_label() for line in goodput.lines]
    assert labels[0] == "cubic" or labels[0].startswith("flow")  # the simulated flow first
    assert "real 10.79.0.1:40000→10.79.0.2:5201" in labels
    assert "real 10.79.0.2:8000→10.79.0.1:41000" in labels
    real = [ln for ln in goodput.lines if ln.get_label() == "real 10.79.0.2:8000→10.79.0.1:41000"]
    assert np.allclose(real[0].get_ydata(), 16.0)
    assert "real 10.79.0.1:40000→10.79.0.2:5201" in [ln.get_label() for ln in rtt.lines]
    assert not any(t.get_text() == "no data" for t in goodput.texts)


def test_an_ordinary_run_has_no_real_flow_lines(tmp_path):
    from mmtsim.plot import overview_figure

    res = mmtsim.run(small_dict(duration="1s"), out=tmp_path / "r")
    assert not any(n.startswith("real_") for n in res.table_names())
    fig = overview_figure(mmtsim.read_run(tmp_path / "r"))
    assert not any(ln.get_label().startswith("real ") for ax in fig.axes for ln in ax.lines)


@needs_root
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is missing")
def test_a_process_without_the_capabilities_exits_2_and_writes_nothing(tmp_path):
    # Not simulated: root whose bounding set lacks CAP_NET_ADMIN and CAP_SYS_ADMIN, as a
    # container without --cap-add would run it.
    out = tmp_path / "run"
    r = subprocess.run(["setpriv", "--bounding-set=-net_admin,-sys_admin",
                        "--inh-caps=-net_admin,-sys_admin", sys.executable, "-m", "mmtsim",
                        "emulate", str(EXAMPLES / "mmwave-2017.toml"), "--out", str(out), "--", "true"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2, r.stderr
    assert "CAP_NET_ADMIN" in r.stderr and "CAP_SYS_ADMIN" in r.stderr and "sudo" in r.stderr
    assert not out.exists()
