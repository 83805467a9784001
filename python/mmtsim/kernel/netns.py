"""Two network namespaces joined by the ``mmtsim-emu`` forwarder.

::

    netns mmtsim-snd-<pid>                                 netns mmtsim-rcv-<pid>
    10.77.0.1/24 on tun "mmS<pid>" ◄──► mmtsim-emu ◄──► tun "mmR<pid>" 10.77.0.2/24

The forwarder creates both TUN devices in the caller's namespace; :class:`Topology` moves
one into each new namespace (a TUN descriptor keeps working after its device moves),
addresses them, disables IPv6 on them (so that no router solicitation reaches the
forwarder), and raises the TCP buffer limits inside the namespaces so that neither the
receive window nor the send buffer limits a flow (mmtsim's default buffers are 64 MiB).
Every other TCP setting is the kernel's default of a fresh namespace (CUBIC module
parameters, ``tcp_frto=2``, ``tcp_recovery=1`` (RACK), SACK, timestamps, ECN only when
asked) — a fresh namespace also has an empty TCP metrics cache, so no run inherits the
ssthresh of an earlier one.

Addresses are private (RFC 1918) and exist only inside the two namespaces; nothing is
routed anywhere else. Whatever happens (an error, Ctrl-C), leaving the ``with`` block
stops the forwarder and the endpoint processes and deletes both namespaces.

The helpers below the harness's own (:func:`missing_privileges`, :func:`add_namespace`,
:func:`configure_tun`, :func:`remove_stale_namespaces`, :func:`exec_argv`) are shared with
real-time emulation (``mmtsim emulate``, :mod:`mmtsim.emulate`), which builds its UE and
server namespaces the same way around the TUN devices of the extension's driver.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from ..api import pid_alive

SND_ADDR, RCV_ADDR, PREFIX_LEN = "10.77.0.1", "10.77.0.2", 24
#: TCP buffer limits inside the namespaces: min, default, max bytes. 64 MiB matches
#: mmtsim's default `rcv_buf`/`snd_buf`; the default (middle) value stays the kernel's so
#: that receive-buffer autotuning (tcp_rcv_space_adjust) behaves as usual.
TCP_RMEM = "4096 131072 67108864"
TCP_WMEM = "4096 16384 67108864"


#: Where the privilege check reads its inputs (module attributes, so that tests can point
#: them at a fake ``status`` file or a missing device).
PROC_STATUS = "/proc/self/status"
TUN_DEVICE = "/dev/net/tun"
#: Capability bits (include/uapi/linux/capability.h): TUN devices, addresses, routes and
#: sysctls need CAP_NET_ADMIN; ``ip netns add`` (a bind mount) and ``ip netns exec``
#: (setns) need CAP_SYS_ADMIN.
CAP_NET_ADMIN, CAP_SYS_ADMIN = 12, 21


class KernelUnavailable(RuntimeError):
    """The machine cannot run the harness (not root, no TUN, no ``ip netns``)."""


def effective_capabilities() -> int | None:
    """The ``CapEff`` mask of this process (``None`` where ``/proc`` does not say)."""
    try:
        with open(PROC_STATUS) as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        return None
    return None


def missing_privileges() -> list[str]:
    """What this process lacks to build namespaces around TUN devices, one phrase each
    (empty: nothing). Capabilities are read from ``CapEff``, so root with capabilities
    dropped (a container) is refused as well; without ``/proc``, root is required."""
    missing = []
    caps = effective_capabilities()
    if caps is None:
        if os.geteuid() != 0:
            missing.append("root (the capabilities of this process cannot be read)")
    else:
        lacking = [name for name, bit in (("CAP_NET_ADMIN", CAP_NET_ADMIN),
                                          ("CAP_SYS_ADMIN", CAP_SYS_ADMIN))
                   if not caps >> bit & 1]
        if lacking:
            missing.append(" and ".join(lacking) + " (TUN devices and network namespaces; "
                           f"this process runs as uid {os.geteuid()})")
    if not os.path.exists(TUN_DEVICE):
        missing.append(f"{TUN_DEVICE} (the kernel has no TUN support here, or a container "
                       "does not pass the device in)")
    if shutil.which("ip") is None:
        missing.append("the `ip` command (install iproute2)")
    return missing


def check_prerequisites() -> None:
    """Raises :class:`KernelUnavailable` naming what is missing."""
    if os.geteuid() != 0:
        raise KernelUnavailable("the kernel harness needs root (network namespaces and TUN devices)")
    if not os.path.exists(TUN_DEVICE):
        raise KernelUnavailable(f"{TUN_DEVICE} is missing: the kernel has no TUN support here")
    if shutil.which("ip") is None:
        raise KernelUnavailable("the `ip` command (iproute2) is missing; install iproute2")
    probe = f"mmtsim-probe-{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        raise KernelUnavailable(f"`ip netns add` fails here: {r.stderr.strip()}")
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)


def emu_binary() -> Path:
    """The forwarder: ``$MMTSIM_EMU``, else ``target/release/mmtsim-emu`` in the repo."""
    env = os.environ.get("MMTSIM_EMU")
    path = Path(env) if env else Path(__file__).resolve().parents[3] / "target" / "release" / "mmtsim-emu"
    if not path.is_file() or not os.access(path, os.X_OK):
        how = "MMTSIM_EMU" if env else "the repository's target/release"
        raise KernelUnavailable(
            f"forwarder binary {path} not found (from {how}); build it with "
            f"`cargo build --release -p mmtsim-emu` or point MMTSIM_EMU at it")
    return path


def _run(*cmd: str) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed: {r.stderr.strip()}")


def exec_argv(ns: str, argv: list[str]) -> list[str]:
    """``argv`` run inside namespace ``ns`` (``ip netns exec`` execs it: same pid)."""
    return ["ip", "netns", "exec", ns, *argv]


def sysctl(ns: str | None, key: str, value: str) -> None:
    """Sets ``key`` inside namespace ``ns`` (``None``: the caller's namespace — use it only
    for keys of a device of ours, never for the host's own settings)."""
    path = "/proc/sys/" + key.replace(".", "/")
    if ns is None:
        Path(path).write_text(value + "\n")
    else:
        _run(*exec_argv(ns, ["sh", "-c", f"echo '{value}' > {path}"]))


def add_namespace(ns: str) -> None:
    """Creates namespace ``ns`` with the settings every namespace of ours has: IPv6 off
    (no router solicitation reaches a forwarder), TCP buffer limits raised (``TCP_RMEM``,
    ``TCP_WMEM``) and the loopback up."""
    _run("ip", "netns", "add", ns)
    for key, value in (("net.ipv6.conf.all.disable_ipv6", "1"),
                       ("net.ipv6.conf.default.disable_ipv6", "1"),
                       ("net.ipv4.tcp_rmem", TCP_RMEM),
                       ("net.ipv4.tcp_wmem", TCP_WMEM)):
        sysctl(ns, key, value)
    _run(*exec_argv(ns, ["ip", "link", "set", "dev", "lo", "up"]))


def configure_tun(ns: str | None, tun: str, addr: str, prefix_len: int = PREFIX_LEN,
                  default_route: bool = False, txqueuelen: int | None = None) -> None:
    """Moves TUN device ``tun`` into ``ns`` (``None``: it stays where it is, the caller's
    namespace), turns IPv6 off on it, gives it ``addr/prefix_len`` and brings it up; with
    ``default_route``, every destination outside the prefix goes through it as well;
    ``txqueuelen``: the device's queue of packets the kernel has written and the reader
    has not yet taken (the kernel's default is 500)."""
    in_ns = (lambda argv: exec_argv(ns, argv)) if ns is not None else (lambda argv: argv)
    if ns is not None:
        _run("ip", "link", "set", "dev", tun, "netns", ns)
    sysctl(ns, f"net.ipv6.conf.{tun}.disable_ipv6", "1")
    _run(*in_ns(["ip", "addr", "add", f"{addr}/{prefix_len}", "dev", tun]))
    _run(*in_ns(["ip", "link", "set", "dev", tun, "up"]))
    if txqueuelen is not None:
        _run(*in_ns(["ip", "link", "set", "dev", tun, "txqueuelen", str(txqueuelen)]))
    if default_route:
        _run(*in_ns(["ip", "route", "add", "default", "dev", tun]))


def list_namespaces() -> list[str]:
    """Names of the named network namespaces (``ip netns list``; ``(id: N)`` dropped)."""
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def namespace_pids(ns: str) -> list[int]:
    """The processes inside namespace ``ns`` (``ip netns pids``)."""
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split() if p.isdigit()]


def kill_namespace_processes(ns: str, grace_s: float = 1.0) -> None:
    """Ends every process still inside namespace ``ns``: SIGTERM, and SIGKILL to those
    left after ``grace_s`` (a namespace is only gone once no process holds it)."""
    pids = [p for p in namespace_pids(ns) if p != os.getpid()]
    sig = signal.SIGTERM if grace_s > 0 else signal.SIGKILL
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    if grace_s <= 0 or not pids:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(pid_alive(p) for p in pids):
        time.sleep(0.02)
    for pid in namespace_pids(ns):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def remove_stale_namespaces(prefixes: tuple[str, ...]) -> list[str]:
    """Deletes the namespaces named ``<prefix><pid>`` whose pid is no longer alive (left by
    a run killed with SIGKILL, which gives no chance to clean up), after ending whatever
    still runs inside them; returns their names. Those of live processes are left alone."""
    pattern = re.compile("^(?:" + "|".join(re.escape(p) for p in prefixes) + r")(\d+)$")
    removed = []
    for ns in list_namespaces():
        m = pattern.match(ns)
        if m is None or pid_alive(int(m.group(1))):
            continue
        kill_namespace_processes(ns, grace_s=0.0)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        removed.append(ns)
    return removed


class Topology:
    """Sender and receiver namespaces joined by a running forwarder.

    ``emu_args``: the forwarder's link flags (everything but the device names and the
    stats path). ``workdir``: where the forwarder's report and log go.
    """

    def __init__(self, emu_args: list[str], workdir: Path, tag: str = ""):
        suffix = f"{os.getpid()}{tag}"
        self.snd_ns = f"mmtsim-snd-{suffix}"
        self.rcv_ns = f"mmtsim-rcv-{suffix}"
        # Interface names are at most 15 bytes.
        self.snd_tun = f"mmS{suffix}"[:15]
        self.rcv_tun = f"mmR{suffix}"[:15]
        self.emu_args = emu_args
        self.workdir = Path(workdir)
        self.stats_path = self.workdir / "emu.json"
        self._emu: subprocess.Popen | None = None
        self._children: list[subprocess.Popen] = []
        self._made_ns: list[str] = []

    # -- set-up -------------------------------------------------------------------------

    def __enter__(self) -> Topology:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.stats_path.unlink(missing_ok=True)
        log = open(self.workdir / "emu.log", "w")
        self._emu = subprocess.Popen(
            [str(emu_binary()), "--tun-snd", self.snd_tun, "--tun-rcv", self.rcv_tun,
             "--stats", str(self.stats_path), "--max-seconds", "600", *self.emu_args],
            stdout=subprocess.PIPE, stderr=log, text=True)
        line = self._emu.stdout.readline()
        if not line.startswith("ready"):
            self._emu.wait(timeout=5)
            raise RuntimeError(f"mmtsim-emu did not start (exit {self._emu.returncode}): "
                               f"{(self.workdir / 'emu.log').read_text().strip()}")
        for ns, tun, addr in ((self.snd_ns, self.snd_tun, SND_ADDR),
                              (self.rcv_ns, self.rcv_tun, RCV_ADDR)):
            self._made_ns.append(ns)
            add_namespace(ns)
            configure_tun(ns, tun, addr)

    @staticmethod
    def sysctl(ns: str, key: str, value: str) -> None:
        """Sets ``key`` inside namespace ``ns`` (per-namespace keys only: the host's own
        settings, e.g. ``net.core.rmem_max``, are left alone)."""
        sysctl(ns, key, value)

    def read_sysctl(self, ns: str, key: str) -> str:
        r = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/sys/" + key.replace(".", "/")],
                           capture_output=True, text=True, check=True)
        return r.stdout.strip()

    # -- processes ----------------------------------------------------------------------

    def spawn(self, ns: str, argv: list[str], **kw) -> subprocess.Popen:
        """Starts ``argv`` inside namespace ``ns``; it is killed on close if still alive."""
        p = subprocess.Popen(exec_argv(ns, argv), **kw)
        self._children.append(p)
        return p

    def stop_forwarder(self) -> dict:
        """Stops the forwarder and returns its JSON report."""
        if self._emu is not None and self._emu.poll() is None:
            self._emu.send_signal(signal.SIGTERM)
            try:
                self._emu.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._emu.kill()
                self._emu.wait()
        if not self.stats_path.exists():
            raise RuntimeError(f"mmtsim-emu wrote no report: {(self.workdir / 'emu.log').read_text()}")
        return json.loads(self.stats_path.read_text())

    # -- clean-up -----------------------------------------------------------------------

    def close(self) -> None:
        """Kills what we started and deletes our namespaces; safe to call twice."""
        for p in self._children:
            if p.poll() is None:
                p.kill()
                p.wait()
        self._children.clear()
        if self._emu is not None:
            if self._emu.poll() is None:
                self._emu.send_signal(signal.SIGTERM)
                try:
                    self._emu.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._emu.kill()
                    self._emu.wait()
            if self._emu.stdout:
                self._emu.stdout.close()
        for ns in self._made_ns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self._made_ns.clear()
