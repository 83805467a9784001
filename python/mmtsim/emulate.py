"""Real-time emulation: real programs' packets through a simulated scenario.

::

    netns mmtsim-ue-<pid>                       caller's namespace (or netns mmtsim-srv-<pid>)
    10.79.0.1/24 on tun "mmU<pid>"  ◄──►  driver  ◄──►  tun "mmV<pid>" 10.79.0.2/24
    (the scenario's UE)              (extension: the          (the scenario's server node)
                                      scenario, paced to
                                      the wall clock)

The extension's driver (``_core.Emulation``) loads the scenario, creates both TUN devices
and, while it runs, injects every packet read on the UE's device at the UE's node
towards the server node (and the other way round), and writes what the simulated network
delivers to the device at the far end. This module builds the namespaces around the
devices (with :mod:`.kernel.netns`, as the kernel harness does), starts the driver in a
thread, runs the caller's programs, and on exit writes a run folder like ``mmtsim run``'s
(``summary.json`` and the tables, plus the real flows' tables, ``emulation.json``,
``tun.pcap``, and ``tun-server.pcap`` if asked for), renamed into place whole.

- The UE side is always the namespace ``mmtsim-ue-<pid>``: its TUN device has
  ``UE_ADDR`` and the default route. Programs run there with :meth:`Emulation.run_in_ue`.
- The server side stays in the caller's namespace with ``SERVER_ADDR`` on its device (the
  host's own processes, e.g. an ``iperf3 -s`` already running, are the server) or, with
  ``server_cmd``, goes into ``mmtsim-srv-<pid>``, where that command is started and, at
  the end, ended.
- Clean-up happens on every exit path (``finally``, SIGINT, SIGTERM); a start also removes
  the namespaces of earlier runs whose process is gone (killed with SIGKILL).

Use::

    with mmtsim.emulate("examples/mmwave-2017.toml") as em:
        em.run_in_ue(["iperf3", "-c", em.server_addr, "-t", "8"])
    em.result.table("real_goodput")

An emulation is not deterministic: it runs at the wall clock's pace with the kernel's
real stacks. Only its simulated parts (the scenario's own flows, the channel's draws)
follow the seed.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from . import _core
from .api import ScenarioLike, _check_seed, _overrides, _source, open_staging, publish_staging
from .kernel import netns
from .results import RunResult

UE_ADDR, SERVER_ADDR, PREFIX_LEN = "10.79.0.1", "10.79.0.2", 24
UE_NS_PREFIX, SERVER_NS_PREFIX = "mmtsim-ue-", "mmtsim-srv-"
DEFAULT_MAX_LAG_S = 1e-3
#: Queue of each TUN device, packets. A TUN device never pushes back on the sender (it
#: orphans what it queues, so TCP Small Queues do not apply), and a kernel sender in slow
#: start writes bursts of tens of thousands of segments faster than the loop reads them;
#: what the queue cannot hold is dropped, and the kernel sees losses that no part of the
#: scenario made. Measured through mmwave-2017: with the kernel's default of 500 a CUBIC
#: upload stalled at a cwnd of about 400 segments (180 Mbit/s where the scenario carries
#: 1.9 Gbit/s); with 10 000 a Reno upload still lost 1202 segments there. 50 000 holds a
#: whole 64 MiB send buffer of 1448-byte segments, so the device drops nothing a sender
#: can have in flight; it costs kernel memory only while a burst waits.
TUN_TXQUEUELEN = 50_000
#: How long a server command may take to open its listening socket.
SERVER_READY_TIMEOUT_S = 5.0
#: After the end of the emulation, how long a program still running in it has between
#: SIGTERM and SIGKILL.
TERM_GRACE_S = 2.0


class EmulationUnavailable(RuntimeError):
    """This process cannot build the emulation's network: a missing privilege, device or
    command (the CLI exits with code 2 and this message)."""


class EmulationSetupError(ValueError):
    """The emulation could not be set up from what it was given: an address in use on the
    host, a server command that exits at once (bad input: exit code 2, no run folder)."""


def is_lag_exceeded(e: BaseException) -> bool:
    """True for the driver's ``LagExceeded`` (the wall clock outran the simulation by more
    than the bound, with ``strict``)."""
    cls = getattr(_core, "LagExceeded", None)
    return cls is not None and isinstance(e, cls)


def check_privileges() -> None:
    """Raises :class:`EmulationUnavailable` naming everything that is missing and how to
    grant it."""
    missing = netns.missing_privileges()
    if missing:
        raise EmulationUnavailable(
            "emulation needs " + "; ".join(missing) + ". Run it as root, e.g. "
            "`sudo .venv/bin/mmtsim emulate SCENARIO -- COMMAND` (or `sudo -E` to keep "
            "your environment); a container needs --cap-add NET_ADMIN --cap-add SYS_ADMIN "
            "--device /dev/net/tun")


def _seconds(what: str, value: Any, allow_zero: bool = False) -> float:
    """A duration given as seconds (a number) or as text ("4s", "500ms")."""
    if isinstance(value, str):
        try:
            v = _core.parse_duration(value)
        except ValueError as e:
            raise ValueError(f"{what} {value!r}: {e}") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
    else:
        raise ValueError(f"{what} {value!r}: expected a duration such as '4s' or seconds")
    if not (v > 0 or (allow_zero and v == 0)) or v != v or v == float("inf"):
        raise ValueError(f"{what} {value!r}: expected a positive duration")
    return v


def default_out() -> Path:
    """``out/emulate-YYYYmmdd-HHMMSS`` in the working folder."""
    return Path("out") / f"emulate-{datetime.now():%Y%m%d-%H%M%S}"


#: The emulation of this process that is running (names are made of the pid: one at a time).
_ACTIVE: list[Emulation] = []


class Emulation:
    """One emulation: a context manager (see the module's doc).

    Arguments are checked when the object is made (``ValueError`` naming the argument,
    ``ScenarioError`` for the scenario); nothing is created before :meth:`start` (or
    ``with``). ``max_lag`` and ``duration``: seconds or text ("1ms"); ``duration``
    overrides ``simulation.duration`` (the emulation ends then even if programs still run:
    they are sent SIGTERM). ``pcap``: write ``tun.pcap`` (the UE's device), ``snaplen``
    bytes of each packet; ``server_pcap``: also ``tun-server.pcap`` (the server side's
    device). The second file doubles the pcap writing, and at Gbit/s that made the loop
    stall for up to 19 ms in some runs (against 4 ms with one file), so it is asked for.

    After the ``with`` block: ``result`` (a :class:`RunResult`, as ``mmtsim.read_run``
    gives), ``report`` (the driver's emulation report) and ``out`` (the run folder)."""

    def __init__(self, scenario: ScenarioLike, *, ue: str | None = None,
                 server: str | None = None, out: str | os.PathLike | None = None,
                 server_cmd: str | None = None, max_lag: float | str = DEFAULT_MAX_LAG_S,
                 strict: bool = False, overrides=None, seed: int | None = None,
                 duration: float | str | None = None, pcap: bool = True, snaplen: int = 128,
                 background: bool = False, cpu: int | None = None, offload: bool = True,
                 server_pcap: bool = False):
        self._text, self._fmt, self._origin, self._base = _source(scenario)
        self._overrides = _overrides(overrides)
        self.seed = _check_seed(seed)
        self.max_lag_s = _seconds("max_lag", max_lag)
        self.duration_s = None if duration is None else _seconds("duration", duration)
        if server_cmd is not None and not str(server_cmd).strip():
            raise ValueError("server_cmd: empty command")
        if isinstance(snaplen, bool) or not isinstance(snaplen, int) or snaplen < 64:
            raise ValueError(f"snaplen {snaplen!r}: expected a whole number of bytes, at least 64")
        if cpu is not None and (isinstance(cpu, bool) or not isinstance(cpu, int) or cpu < 0
                                or cpu >= (os.cpu_count() or 1)):
            raise ValueError(f"cpu {cpu!r}: expected a CPU number from 0 to {(os.cpu_count() or 1) - 1}")
        self.background, self.cpu, self.offload = bool(background), cpu, bool(offload)
        self.ue, self.server, self.server_cmd = ue, server, server_cmd
        self.strict, self.pcap, self.snaplen = bool(strict), bool(pcap), snaplen
        self.server_pcap = bool(server_pcap)
        self.out = Path(out) if out is not None else default_out()
        pid = os.getpid()
        self.ue_ns = f"{UE_NS_PREFIX}{pid}"
        self.server_ns = f"{SERVER_NS_PREFIX}{pid}" if server_cmd is not None else None
        self.ue_tun, self.server_tun = f"mmU{pid}"[:15], f"mmV{pid}"[:15]
        self.ue_addr, self.server_addr = UE_ADDR, SERVER_ADDR
        #: The scenario's node names the two sides stand for (known once started).
        self.ue_name: str | None = None
        self.server_name: str | None = None
        self.result: RunResult | None = None
        self.report: dict | None = None
        #: What the emulation ran, recorded in emulation.json (the CLI sets the command).
        self.command: list[str] | None = None
        #: Why a program was stopped by the emulation's end ("" when none was).
        self.stopped_programs = ""
        self._core = None
        self._staging: Path | None = None
        self._made_ns: list[str] = []
        #: The TUN devices' kernel counters, read just before the devices go.
        self._devices: dict | None = None
        self._made_dirs: list[Path] = []
        self._children: list[subprocess.Popen] = []
        self._server: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._driver_error: BaseException | None = None
        self._old_handlers: dict[int, Any] = {}
        self._foreground: subprocess.Popen | None = None
        self._forwarded: set[int] = set()
        self._closing = False
        self._started = self._closed = False
        self._t0 = 0.0

    # -- what programs see ------------------------------------------------------------

    @property
    def env(self) -> dict[str, str]:
        """``os.environ`` plus ``MMTSIM_SERVER`` and ``MMTSIM_UE`` (the two addresses)."""
        return {**os.environ, "MMTSIM_SERVER": self.server_addr, "MMTSIM_UE": self.ue_addr}

    def popen_in_ue(self, argv: list[str], **kw) -> subprocess.Popen:
        """Starts ``argv`` in the UE's namespace (``env`` defaults to :attr:`env`); it is
        ended when the emulation closes if it still runs."""
        self._require_running()
        kw.setdefault("env", self.env)
        p = subprocess.Popen(netns.exec_argv(self.ue_ns, [str(a) for a in argv]), **kw)
        self._children.append(p)
        return p

    def run_in_ue(self, argv: list[str], *, check: bool = False, input=None,
                  timeout: float | None = None, **kw) -> subprocess.CompletedProcess:
        """Runs ``argv`` in the UE's namespace to its end, like ``subprocess.run``.

        While it runs, a first SIGINT or SIGTERM to this process is passed on to it (a
        shell's behaviour: Ctrl-C ends the program, and the emulation then ends normally);
        a second one interrupts the emulation. If the emulation ends first (its duration,
        or a driver failure), the program is sent SIGTERM."""
        if input is not None:
            kw["stdin"] = subprocess.PIPE
        if kw.pop("capture_output", False):
            kw["stdout"] = kw["stderr"] = subprocess.PIPE
        p = self.popen_in_ue(argv, **kw)
        self._foreground, self._forwarded = p, set()
        deadline = None if timeout is None else time.monotonic() + timeout
        feed, out, err = input, None, None
        try:
            while True:
                try:
                    out, err = p.communicate(feed, timeout=0.1)
                    break
                except subprocess.TimeoutExpired:
                    feed = None
                if deadline is not None and time.monotonic() > deadline:
                    p.kill()
                    p.wait()
                    raise subprocess.TimeoutExpired(argv, timeout)
                if self._done.is_set() and not self.stopped_programs:
                    why = ("the driver failed" if self._driver_error is not None
                           else "the scenario's end was reached")
                    self.stopped_programs = why
                    _terminate(p)
        finally:
            self._foreground = None
        cp = subprocess.CompletedProcess(argv, p.returncode, out, err)
        if check:
            cp.check_returncode()
        return cp

    # -- life cycle ---------------------------------------------------------------------

    def __enter__(self) -> Emulation:
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(publish=exc_type is None)

    def start(self) -> None:
        """Checks, builds the namespaces, starts the server command and the driver."""
        if self._started:
            raise RuntimeError("this emulation has already been started")
        self._started = True
        # Bad input must not create anything, and is named before a missing privilege.
        _core.validate(self._text, self._fmt, self._origin, self._base, self._overrides)
        from .errors import check_output_folder

        check_output_folder(self.out, "out")
        check_privileges()
        if _ACTIVE:
            raise RuntimeError("another emulation is running in this process")
        _ACTIVE.append(self)
        try:
            self._install_signal_handlers()
            self._start()
        except BaseException:
            self.close(publish=False)
            raise

    def _start(self) -> None:
        removed = netns.remove_stale_namespaces((UE_NS_PREFIX, SERVER_NS_PREFIX))
        if removed:
            print(f"mmtsim: note: removed {len(removed)} namespace(s) left by an emulation "
                  f"that was killed: {', '.join(removed)}", file=sys.stderr)
        # Names of ours that exist now belong to a dead process whose pid we reuse.
        for ns in {self.ue_ns, self.server_ns} & set(netns.list_namespaces()):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        if self.server_ns is None:
            _check_host_prefix_free()
        self._made_dirs = [p for p in reversed(self.out.absolute().parents) if not p.exists()]
        self._staging = open_staging(self.out)
        try:
            self._core = _core.Emulation(
                self._text, self._fmt, self._origin, self._base, self._overrides, self.seed,
                self.ue, self.server, self.ue_tun, self.server_tun, max_lag_s=self.max_lag_s,
                strict=self.strict,
                pcap=str(self._staging / "tun.pcap") if self.pcap else None,
                server_pcap=str(self._staging / "tun-server.pcap") if self.server_pcap else None,
                snaplen=self.snaplen, duration_s=self.duration_s, background=self.background,
                cpu=self.cpu, offload=self.offload)
        except OSError as e:
            raise EmulationUnavailable(
                f"cannot create the TUN devices {self.ue_tun} and {self.server_tun}: "
                f"{e.strerror or e}") from None
        self.ue_name, self.server_name = self._core.ue_name, self._core.server_name
        try:
            self._made_ns.append(self.ue_ns)
            netns.add_namespace(self.ue_ns)
            netns.configure_tun(self.ue_ns, self.ue_tun, UE_ADDR, PREFIX_LEN, default_route=True,
                                txqueuelen=TUN_TXQUEUELEN)
            if self.server_ns is not None:
                self._made_ns.append(self.server_ns)
                netns.add_namespace(self.server_ns)
                netns.configure_tun(self.server_ns, self.server_tun, SERVER_ADDR, PREFIX_LEN,
                                    default_route=True, txqueuelen=TUN_TXQUEUELEN)
            else:
                netns.configure_tun(None, self.server_tun, SERVER_ADDR, PREFIX_LEN,
                                    txqueuelen=TUN_TXQUEUELEN)
        except RuntimeError as e:  # an `ip` command failed
            raise EmulationUnavailable(f"cannot build the emulation's namespaces: {e}") from None
        if self.server_cmd is not None:
            self._start_server()
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._drive, name="mmtsim-emulation", daemon=True)
        self._thread.start()

    def _drive(self) -> None:
        try:
            self._core.run()
        except BaseException as e:  # re-raised by close() in the caller's thread
            self._driver_error = e
        finally:
            self._done.set()

    def _start_server(self) -> None:
        log = open(self._staging / "server.log", "wb")
        try:
            # Its own session, so that the whole group (a shell and what it started) ends.
            self._server = subprocess.Popen(
                netns.exec_argv(self.server_ns, ["sh", "-c", self.server_cmd]),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                start_new_session=True)
        finally:
            log.close()
        self._children.append(self._server)
        deadline = time.monotonic() + SERVER_READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if _listening(self.server_ns):
                return
            rc = self._server.poll()
            if rc is not None and not netns.namespace_pids(self.server_ns):
                tail = (self._staging / "server.log").read_text(errors="replace").strip()
                tail = "\n".join(tail.splitlines()[-5:])
                raise EmulationSetupError(
                    f"--server-cmd {self.server_cmd!r} exited with code {rc} before it listened"
                    + (f":\n{tail}" if tail else ""))
            time.sleep(0.02)
        print(f"mmtsim: note: the server command has opened no socket after "
              f"{SERVER_READY_TIMEOUT_S:g} s; going on", file=sys.stderr)

    def stop(self) -> None:
        """Asks the driver to stop (thread-safe); :meth:`close` writes the results."""
        if self._core is not None:
            self._core.stop()

    @property
    def running(self) -> bool:
        """True while the driver runs."""
        return self._thread is not None and not self._done.is_set()

    def close(self, publish: bool = True) -> None:
        """Ends the programs, stops the driver, writes the run folder (with ``publish``),
        deletes the namespaces and restores the signal handlers; safe to call twice. Raises
        the driver's error, if it failed, after writing what it could."""
        if self._closed:
            return
        self._closed = True
        self._closing = True  # signals from here on are noted, not raised
        error: BaseException | None = None
        try:
            for p in self._children:
                _terminate(p)
            for ns in self._made_ns:
                netns.kill_namespace_processes(ns)
            if self._core is not None:
                self._devices = {
                    "ue": _device_stats(self.ue_ns if self.ue_ns in self._made_ns else None, self.ue_tun),
                    "server": _device_stats(self.server_ns if self.server_ns in self._made_ns else None,
                                            self.server_tun),
                }
                self._core.stop()
                if self._thread is not None:
                    _wait(self._done)
                error = self._driver_error
                wall = time.perf_counter() - self._t0
                core, self._core = self._core, None
                try:
                    summary_text, tables, report_text = core.finish()
                except BaseException:
                    if publish and error is None:
                        raise
                    summary_text = None
                del core  # its descriptors close: the TUN devices vanish
                if summary_text is not None and publish:
                    self._write(summary_text, tables, report_text, wall)
        finally:
            for ns in self._made_ns:
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            self._made_ns.clear()
            if self._staging is not None:
                shutil.rmtree(self._staging, ignore_errors=True)
                self._staging = None
            self._restore_signal_handlers()
            if self in _ACTIVE:
                _ACTIVE.remove(self)
        if error is not None and publish:
            raise error

    def _write(self, summary_text: str, tables: dict, report_text: str, wall: float) -> None:
        summary = json.loads(summary_text)
        summary["wall_seconds"] = wall
        summary["mmtsim_version"] = _core.__version__
        summary["emulation"] = {
            "ue": self.ue_name, "server": self.server_name, "ue_addr": self.ue_addr,
            "server_addr": self.server_addr, "server_cmd": self.server_cmd,
            "deterministic": False,
            "note": "a real-time emulation: only the simulated parts follow the seed",
        }
        report = json.loads(report_text)
        report["devices"] = self._devices
        for side, st in (report["devices"] or {}).items():
            if st and st.get("tx_dropped"):
                report.setdefault("warnings", []).append(
                    f"the kernel dropped {st['tx_dropped']} packets at the {side} side's TUN device "
                    f"before the emulation read them (its queue of {TUN_TXQUEUELEN} was full): "
                    f"losses that are not the scenario's")
        report.setdefault("kernel", platform.release())
        report.setdefault("ue_namespace", self.ue_ns)
        report.setdefault("server_namespace", self.server_ns)
        if self.command is not None:
            report.setdefault("command", self.command)
        if self.stopped_programs:
            report.setdefault("warnings", []).append(
                f"{' '.join(self.command) if self.command else 'a program'} was still running "
                f"when {self.stopped_programs}; it was sent SIGTERM")
        result = RunResult(summary, tables)
        result._write_into(self._staging)
        (self._staging / "emulation.json").write_text(json.dumps(report, indent=2) + "\n")
        publish_staging(self._staging, self.out)
        self._staging = None
        result.path = self.out
        self.result, self.report = result, report
        _give_back_to_sudo_user([*self._made_dirs, self.out])

    # -- signals --------------------------------------------------------------------------

    def _install_signal_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread may set handlers; the caller cleans up then
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)

    def _restore_signal_handlers(self) -> None:
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._old_handlers.clear()

    def _on_signal(self, signum, frame) -> None:
        if self._closing:
            return  # clean-up is under way; let it finish
        child = self._foreground
        if child is not None and child.poll() is None and signum not in self._forwarded:
            self._forwarded.add(signum)
            try:
                child.send_signal(signum)
            except ProcessLookupError:
                pass
            return
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    def _require_running(self) -> None:
        if not self._started or self._closed or self._core is None:
            raise RuntimeError("the emulation is not running (use it inside `with`)")


def emulate(scenario: ScenarioLike, ue: str | None = None, server: str | None = None,
            out: str | os.PathLike | None = None, server_cmd: str | None = None,
            max_lag: float | str = DEFAULT_MAX_LAG_S, strict: bool = False, overrides=None,
            seed: int | None = None, duration: float | str | None = None,
            pcap: bool = True, snaplen: int = 128, background: bool = False,
            cpu: int | None = None, offload: bool = True, server_pcap: bool = False) -> Emulation:
    """An :class:`Emulation` of ``scenario``, to use with ``with``::

        with mmtsim.emulate("examples/mmwave-2017.toml") as em:
            subprocess.run(["iperf3", "-c", em.server_addr, "-t", "8"], env=em.env)  # host
            em.run_in_ue(["iperf3", "-c", em.server_addr, "-t", "8"])              # the UE

    A program started with plain ``subprocess`` runs in the caller's namespace: it reaches
    the UE (``em.ue_addr``) through the emulated network only when the server side is the
    caller's namespace (no ``server_cmd``); programs on the UE's side run through
    :meth:`Emulation.run_in_ue`."""
    return Emulation(scenario, ue=ue, server=server, out=out, server_cmd=server_cmd,
                     max_lag=max_lag, strict=strict, overrides=overrides, seed=seed,
                     duration=duration, pcap=pcap, snaplen=snaplen, background=background, cpu=cpu,
                     offload=offload, server_pcap=server_pcap)


def real_flows(res: RunResult) -> list[dict]:
    """The real flows of an emulation run, one dict each: src, src_port, dst, dst_port,
    direction ("uplink"/"downlink"), bytes, goodput_mbps, rtt_p50_ms, rtt_samples (every
    sample, however many rows ``real_rtt`` kept), retransmitted_segments (``None`` where
    the run did not record it). From the summary's
    ``real_flows``, else from the ``real_flows`` and ``real_goodput`` tables."""
    real = res.summary.get("real_flows")
    if isinstance(real, dict):
        real = real.get("flows")
    if isinstance(real, list):
        return [{"src": f.get("src_ip", f.get("src")), "src_port": f.get("src_port"),
                 "dst": f.get("dst_ip", f.get("dst")), "dst_port": f.get("dst_port"),
                 "direction": f.get("direction", ""), "bytes": f.get("bytes", 0),
                 "goodput_mbps": f.get("goodput_mbps"),
                 "rtt_p50_ms": f.get("rtt_p50_ms", f.get("rtt_ms_p50")),
                 "rtt_samples": f.get("rtt_samples"),
                 "retransmitted_segments": f.get("retransmitted_segments")} for f in real]
    if "real_flows" not in res.table_names():
        return []
    import polars as pl

    g = res.table("real_goodput").group_by("flow").agg(pl.col("goodput_mbps").mean())
    mean = dict(zip(g["flow"].to_list(), g["goodput_mbps"].to_list()))
    return [{"src": r["src"], "src_port": r["src_port"], "dst": r["dst"],
             "dst_port": r["dst_port"], "direction": "uplink" if r["uplink"] else "downlink",
             "bytes": r["bytes"], "goodput_mbps": mean.get(r["flow"]), "rtt_p50_ms": None,
             "rtt_samples": None, "retransmitted_segments": r.get("retransmits")}
            for r in res.table("real_flows").iter_rows(named=True)]


def percentiles_ms(stats: Any) -> dict[str, float]:
    """p50, p99 and max (in that order, those present) of one of the report's statistics
    (``{"p50_us": …, "p99_us": …, "max_us": …}``; ``_ns``, ``_ms`` and ``_s`` too), in ms."""
    if not isinstance(stats, dict):
        return {}
    units = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    out = {}
    for q in ("p50", "p99", "max"):
        for unit, scale in units.items():
            v = stats.get(f"{q}_{unit}")
            if isinstance(v, (int, float)):
                out[q] = v * scale
                break
    return out


# -- helpers ----------------------------------------------------------------------------


def _device_stats(ns: str | None, dev: str) -> dict | None:
    """The kernel's counters of TUN device ``dev`` (``ip -s -j link``): packets written to
    it and dropped at it (``tx``: the kernel's side, which the emulation reads), ``None``
    if they cannot be read."""
    argv = ["ip", "-s", "-j", "link", "show", "dev", dev]
    r = subprocess.run(netns.exec_argv(ns, argv) if ns else argv, capture_output=True, text=True)
    try:
        st = json.loads(r.stdout)[0]["stats64"]
    except (ValueError, LookupError, TypeError):
        return None
    return {"tx_packets": st["tx"]["packets"], "tx_dropped": st["tx"]["dropped"],
            "rx_packets": st["rx"]["packets"], "rx_dropped": st["rx"]["dropped"]}


def _terminate(p: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after ``TERM_GRACE_S``; a process in its own session is ended
    with its whole group."""
    def send(sig: int) -> bool:
        try:
            if os.getpgid(p.pid) == p.pid:
                os.killpg(p.pid, sig)
            else:
                p.send_signal(sig)
        except ProcessLookupError:
            return False
        return True

    if p.poll() is not None or not send(signal.SIGTERM):
        return
    try:
        p.wait(timeout=TERM_GRACE_S)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        p.wait()


def _wait(event: threading.Event) -> None:
    """Waits for ``event`` through Ctrl-C (the driver must end before its object goes)."""
    while True:
        try:
            event.wait()
            return
        except KeyboardInterrupt:
            continue


def _check_host_prefix_free() -> None:
    """The server side in the caller's namespace takes 10.79.0.0/24 there: refuse if some
    device already has an address in it (another emulation, or the host's own network)."""
    r = subprocess.run(["ip", "-o", "-4", "addr", "show", "to", f"{SERVER_ADDR}/{PREFIX_LEN}"],
                       capture_output=True, text=True)
    used = sorted({line.split()[1] for line in r.stdout.splitlines() if line.strip()})
    if used:
        raise EmulationSetupError(
            f"{SERVER_ADDR}/{PREFIX_LEN} is already in use here (on {', '.join(used)}; "
            "another emulation without --server-cmd?); give --server-cmd so that the server "
            "side gets its own namespace, or end the other emulation")


def _listening(ns: str) -> bool:
    """True when some process in namespace ``ns`` has a listening TCP socket or a bound UDP
    one (the namespace's tables, read through one of its processes)."""
    try:
        ino = os.stat(f"/run/netns/{ns}").st_ino
    except OSError:
        return False
    for pid in netns.namespace_pids(ns):
        try:
            if os.stat(f"/proc/{pid}/ns/net").st_ino != ino:
                continue
            for table, state in (("tcp", "0A"), ("tcp6", "0A"), ("udp", None), ("udp6", None)):
                path = Path(f"/proc/{pid}/net/{table}")
                if not path.exists():
                    continue
                for line in path.read_text().splitlines()[1:]:
                    fields = line.split()
                    if len(fields) > 3 and (state is None or fields[3] == state):
                        return True
            return False
        except OSError:
            continue
    return False


def _give_back_to_sudo_user(paths: list[Path]) -> None:
    """Under sudo, the folders written go to the user who ran sudo, not to root."""
    uid, gid = os.environ.get("SUDO_UID"), os.environ.get("SUDO_GID")
    if os.geteuid() != 0 or not uid or not gid:
        return
    try:
        uid_n, gid_n = int(uid), int(gid)
    except ValueError:
        return
    for top in paths:
        if not top.exists():
            continue
        todo = [top] if top != paths[-1] else [top, *top.rglob("*")]
        for p in todo:
            try:
                os.chown(p, uid_n, gid_n, follow_symlinks=False)
            except OSError:
                pass
