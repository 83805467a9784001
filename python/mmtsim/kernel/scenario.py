"""One kernel reference case: a scenario file, and the forwarder flags derived from it.

The scenario is the single source of truth: the harness reads the emulated link's
trace, delay, queue limit and reverse rate from the *resolved* scenario (``mmtsim
validate``, defaults filled in) and turns them into ``mmtsim-emu`` flags, so the kernel
side and the mmtsim side cannot drift apart. The expected shape (checked, with a message
naming what differs): one TCP flow from ``server`` to ``client`` over ``server -> router
-> client``; the first hop a fast link without delay, the last hop the emulated link with
a byte-limited drop-tail queue and a constant reverse rate.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from .. import _core
from ..api import validate

TRACE_DIR = Path(__file__).resolve().parent / "traces"
#: Linux congestion-control names → mmtsim's.
CC_TO_MMTSIM = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}

_SIZE_UNITS = {"B": 1, "kB": 10**3, "KiB": 2**10, "MB": 10**6, "MiB": 2**20, "GB": 10**9, "GiB": 2**30}
_RATE_UNITS = {"bps": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9}


class CaseError(ValueError):
    """A scenario that does not have the shape the harness replays."""


def _quantity(text: str, units: dict, what: str) -> int:
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([A-Za-z]+)", text)
    if not m or m.group(2) not in units:
        raise CaseError(f"{what} {text!r}: expected a number and one of {', '.join(units)}")
    return int(Decimal(m.group(1)) * units[m.group(2)])


def _ns(text: str) -> int:
    return round(_core.parse_duration(text) * 1e9)


@dataclass(frozen=True)
class Case:
    """A kernel reference case read from its scenario file."""

    name: str
    path: Path
    duration_s: float
    delay_ns: int
    limit_bytes: int
    rev_rate_bps: int
    mss_bytes: int
    #: The forward trace file and its format, or the constant rate.
    trace: Path | None
    trace_mahimahi: bool
    trace_period_ns: int | None
    rate_bps: int | None

    @property
    def base_rtt_s(self) -> float:
        return 2 * self.delay_ns / 1e9

    def emu_args(self) -> list[str]:
        """``mmtsim-emu`` flags replaying the emulated link."""
        args = ["--delay-ns", str(self.delay_ns), "--limit-bytes", str(self.limit_bytes),
                "--rev-rate-bps", str(self.rev_rate_bps),
                # The reverse direction inherits the forward queue, as in mmtsim.
                "--rev-limit-bytes", str(self.limit_bytes),
                # After the run the queue drains and the closed sender answers each late
                # ACK with a reset: the forwarder's timing there measures nothing we use.
                "--judge-until-ns", str(round(self.duration_s * 1e9))]
        if self.trace is None:
            return ["--rate-bps", str(self.rate_bps), *args]
        args += ["--trace", str(self.trace), "--trace-format", "mahimahi" if self.trace_mahimahi else "csv"]
        if self.trace_period_ns is not None:
            args += ["--trace-period-ns", str(self.trace_period_ns)]
        return args

    def outages(self) -> list[tuple[float, float]]:
        """Intervals [start, end) s of zero capacity within the run: CSV rows of rate 0,
        or gaps of at least 100 ms between Mahimahi opportunities."""
        if self.trace is None:
            return []
        out = []
        lines = [ln.strip() for ln in self.trace.read_text().splitlines()]
        if self.trace_mahimahi:
            opps = [int(x) / 1e3 for x in lines if x]
            for a, b in zip(opps, opps[1:]):
                if b - a >= 0.1 and a < self.duration_s:
                    out.append((a, b))
            return out
        rows = [ln.split(",") for ln in lines if ln and not ln.startswith("#")][1:]
        times = [float(t) for t, _ in rows] + [float("inf")]
        for i, (_, r) in enumerate(rows):
            if float(r) == 0 and times[i] < self.duration_s:
                out.append((times[i], min(times[i + 1], self.duration_s)))
        return out


def list_cases() -> list[str]:
    """Names of the scenario files in the trace set."""
    return sorted(p.stem for p in TRACE_DIR.glob("*.toml"))


def load_case(name_or_path: str | Path) -> Case:
    """Reads and checks a case (a name in the trace set, or a scenario path)."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = TRACE_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        raise CaseError(f"no kernel case {str(name_or_path)!r}: known cases are {', '.join(list_cases())}")
    with open(path, "rb") as f:
        tomllib.load(f)  # a syntax error is reported by tomllib before mmtsim's checks
    sc = validate(str(path))
    flows, links = sc["flows"], sc["links"]
    if len(flows) != 1 or flows[0]["protocol"] != "tcp" or flows[0]["count"] != 1:
        raise CaseError(f"{path}: expected exactly one TCP flow")
    flow = flows[0]
    last = [lk for lk in links if lk["between"][1] == flow["to"]]
    if len(links) != 2 or len(last) != 1 or last[0]["between"][0] == flow["from"]:
        raise CaseError(f"{path}: expected two links, {flow['from']} -> router -> {flow['to']}")
    core = next(lk for lk in links if lk is not last[0])
    if _ns(core["delay"]) != 0 or core["rate"] is None or _quantity(core["rate"], _RATE_UNITS, "core rate") < 10**9:
        raise CaseError(f"{path}: the first hop must have no delay and at least 1 Gbit/s")
    radio = last[0]
    q = radio["queue"] or {}
    if q.get("kind", "droptail") != "droptail" or not q.get("limit") or q.get("limit_packets"):
        raise CaseError(f"{path}: the emulated link needs a drop-tail queue with a byte `limit` only")
    if radio["loss"] or radio["impairments"]:
        raise CaseError(f"{path}: loss and impairments are not replayed by mmtsim-emu")
    rev = radio["reverse"] or {}
    if not rev.get("rate") or rev.get("trace") or rev.get("queue") or rev.get("loss"):
        raise CaseError(f"{path}: the reverse direction needs a constant `rate` and nothing else")
    tcp = flow["tcp"]
    trace = radio["trace"]
    trace_path = (path.parent / trace["file"]) if trace else None
    fmt = (trace or {}).get("format") or ("csv" if trace_path and trace_path.suffix == ".csv" else "mahimahi")
    return Case(
        name=path.stem,
        path=path,
        duration_s=_core.parse_duration(sc["simulation"]["duration"]),
        delay_ns=_ns(radio["delay"]),
        limit_bytes=_quantity(q["limit"], _SIZE_UNITS, "queue.limit"),
        rev_rate_bps=_quantity(rev["rate"], _RATE_UNITS, "reverse.rate"),
        mss_bytes=_quantity(tcp["mss"], _SIZE_UNITS, "tcp.mss"),
        trace=trace_path,
        trace_mahimahi=trace_path is not None and fmt == "mahimahi",
        trace_period_ns=_ns(trace["period"]) if trace and trace.get("period") else None,
        rate_bps=None if trace else _quantity(radio["rate"], _RATE_UNITS, "rate"),
    )
