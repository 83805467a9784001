"""Run results: the summary and the time series, as polars (or pandas) DataFrames.

Tables and their columns (units in the names):

- ``goodput``: flow, t_s (bin start), goodput_mbps
- ``rtt``: flow, t_s, rtt_ms — every RTT sample
- ``cwnd``: flow, t_s, cwnd_bytes, ssthresh_bytes (null while infinite), inflight_bytes,
  rwnd_bytes (the window the receiver advertised)
- ``queue``: link, t_s, bytes, packets, drops (cumulative) — ``link`` indexes
  ``summary["links"]`` (each link has a forward and a reverse direction)
- ``owd``: flow, t_s, owd_ms — UDP one-way delays
- ``ran`` (with a RAN): ue, t_s, SINR, MCS, LOS, RLC occupancy, position, serving cell,
  secondary cell (`secondary_cell`, −1 without one) and its downlink SINR
- ``handovers`` (with a RAN): t_s, ue, from, to (cells), kind ("a3", "threshold",
  "scripted", "reestablishment", and with coordinated dual connectivity "switch_to_lte",
  "switch_to_mmwave", "secondary_handover"), interruption_ms, forwarded_bytes, success — one row
  per change of serving cell or failed attempt
- ``measurements`` (with ``ran.handover.log_measurements_every``): t_s, ue, cell,
  rsrp_dbm, sinr_db, rsrp_filtered_dbm, los
- ``real_flows`` (emulation runs, ``mmtsim emulate``): flow, src_ip, src_port, dst_ip,
  dst_port (addresses as 32-bit numbers, and ``src``/``dst`` as dotted text), uplink (1:
  from the UE), bytes, packets, retransmits, first_ns, last_ns — one row per real
  connection seen at the TUN devices
- ``real_goodput``: flow, t_s, goodput_mbps; ``real_rtt``: flow, t_s, rtt_ms — the real
  flows' series, shaped as ``goodput`` and ``rtt`` (``flow`` indexes ``real_flows``)

``flow`` indexes ``summary["flows"]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

TABLES = ("goodput", "rtt", "cwnd", "queue", "owd")
#: Columns a run folder's table must have (more are allowed).
_COLUMNS = {
    "goodput": ("flow", "t_s", "goodput_mbps"),
    "rtt": ("flow", "t_s", "rtt_ms"),
    "cwnd": ("flow", "t_s", "cwnd_bytes", "ssthresh_bytes"),
    "queue": ("link", "t_s", "bytes"),
    "owd": ("flow", "t_s", "owd_ms"),
    "ran": ("ue", "t_s"),
    "handovers": ("t_s", "ue", "from", "to", "kind", "success"),
    "measurements": ("t_s", "ue", "cell", "rsrp_dbm"),
    "real_flows": ("flow", "src_ip", "src_port", "dst_ip", "dst_port", "uplink", "bytes"),
    "real_goodput": ("flow", "t_s", "goodput_mbps"),
    "real_rtt": ("flow", "t_s", "rtt_ms"),
}
#: The ``kind`` column of ``handovers``: Rust writes the index into this tuple
#: (``HandoverKind::NAMES``).
HANDOVER_KINDS = (
    "a3",
    "threshold",
    "scripted",
    "reestablishment",
    "switch_to_lte",
    "switch_to_mmwave",
    "secondary_handover",
)


#: Reading order of the flows table: who, how, what it got, what it cost.
FLOW_COLUMNS = ("id", "name", "protocol", "cc", "from", "to", "goodput_mbps", "rtt_mean_ms",
                "srtt_time_mean_ms", "rtt_p95_ms", "rtt_min_ms", "retransmits", "rtos",
                "fast_recoveries", "undos", "spurious_retransmits", "bytes_delivered",
                "completion_time_s")


def _cell(v) -> str:
    """A flows-table cell as text (the template escapes it)."""
    if isinstance(v, float):
        return f"{v:.2f}"
    return "-" if v is None else str(v)


class RunFolderError(ValueError):
    """A run folder that is missing, incomplete or damaged (bad input: exit code 2)."""
#: Written only by runs with a radio access network.
RAN_TABLES = ("ran", "handovers", "measurements")
#: Written only by emulation runs: the real connections that crossed the TUN devices.
REAL_TABLES = ("real_flows", "real_goodput", "real_rtt")
#: Tables a run folder has only when its run made them.
OPTIONAL_TABLES = RAN_TABLES + REAL_TABLES


def ip_text(addr: int) -> str:
    """An IPv4 address held as a 32-bit number (most significant byte first) as text."""
    a = int(addr)
    return f"{a >> 24 & 255}.{a >> 16 & 255}.{a >> 8 & 255}.{a & 255}"
_U64_MAX = np.iinfo(np.uint64).max


def _convert(name: str, cols: dict[str, np.ndarray]) -> dict[str, Any]:
    """Raw Rust columns (ns, µs) → analysis units (s, ms)."""
    out: dict[str, Any] = {}
    for k, v in cols.items():
        if k == "t_ns":
            out["t_s"] = v.astype(np.float64) * 1e-9
        elif k in ("rtt_us", "owd_us"):
            out[k.replace("_us", "_ms")] = v.astype(np.float64) * 1e-3
        elif name == "handovers" and k == "kind" and v.dtype.kind in "iu":
            out[k] = np.array(HANDOVER_KINDS, dtype=str)[v.astype(np.int64)]
        elif name == "handovers" and k == "success" and v.dtype.kind in "iu":
            out[k] = v.astype(bool)
        elif name == "ran" and k == "secondary_cell" and v.dtype.kind == "u":
            # Rust writes u32::MAX for "no secondary cell".
            w = v.astype(np.int64)
            out[k] = np.where(v == np.iinfo(np.uint32).max, -1, w)
        else:
            out[k] = v
        if name == "real_flows" and k in ("src_ip", "dst_ip"):
            out[k[:3]] = np.array([ip_text(a) for a in v], dtype=str)
    return out


class RunResult:
    """One run: ``summary`` (dict) and tables (polars DataFrames on demand)."""

    def __init__(self, summary: dict, tables: dict[str, Any], path: Path | None = None):
        self.summary = summary
        self._raw = tables
        self._frames: dict[str, Any] = {}
        self.path = path

    def __repr__(self) -> str:
        flows = ", ".join(
            f"{f['name']}: {f['goodput_mbps']:.1f} Mbit/s" for f in self.summary["flows"]
        )
        return f"<RunResult seed={self.summary['seed']} {flows}>"

    def _repr_html_(self) -> str:
        """A notebook shows a run as its name, seed and timing, then its flows table
        (template ``templates/run_summary.html.j2``, autoescaped)."""
        from .report import _env

        s = self.summary
        cols = [c for c in FLOW_COLUMNS[:10] if c in self.flows.columns]
        rows = [[_cell(r[c]) for c in cols]
                for r in self.flows.select(cols).iter_rows(named=True)]
        return _env().get_template("run_summary.html.j2").render(
            name=s.get("name") or s.get("origin") or "run", seed=s.get("seed"),
            sim_seconds=f"{s.get('sim_seconds', 0):g}", wall_seconds=s.get("wall_seconds"),
            events=s.get("events", 0), folder=str(self.path) if self.path else None,
            columns=cols, rows=rows, notices=s.get("notices", []))

    def table(self, name: str, pandas: bool = False):
        """The table ``name`` as a polars DataFrame (or pandas with ``pandas=True``)."""
        import polars as pl

        if name not in self.table_names():
            raise KeyError(f"unknown table {name!r}; tables: {', '.join(self.table_names())}")
        if name not in self._frames:
            raw = self._raw[name]
            if isinstance(raw, pl.DataFrame):
                df = raw
            else:
                df = pl.DataFrame(_convert(name, raw))
                if "ssthresh_bytes" in df.columns:
                    # u64::MAX marks an infinite ssthresh (before the first loss).
                    col = pl.col("ssthresh_bytes")
                    df = df.with_columns(
                        pl.when(col == _U64_MAX).then(None).otherwise(col).alias("ssthresh_bytes")
                    )
            self._frames[name] = df
        df = self._frames[name]
        return df.to_pandas() if pandas else df

    @property
    def flows(self):
        """Per-flow summary metrics (polars), columns in reading order (``FLOW_COLUMNS``
        first, then the rest as the summary lists them)."""
        import polars as pl

        df = pl.DataFrame(self.summary["flows"], infer_schema_length=None)
        first = [c for c in FLOW_COLUMNS if c in df.columns]
        return df.select(first + [c for c in df.columns if c not in first])

    @property
    def links(self):
        """Per-link-direction summary metrics (polars)."""
        import polars as pl

        return pl.DataFrame(self.summary["links"], infer_schema_length=None)

    def table_names(self) -> tuple[str, ...]:
        """Tables this run has: the flow and queue tables, plus ``ran`` with a RAN and the
        ``real_*`` tables of an emulation."""
        return TABLES + tuple(n for n in OPTIONAL_TABLES if n in self._raw)

    def _write_into(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name in self.table_names():
            self.table(name).write_parquet(folder / f"{name}.parquet")
        (folder / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")

    @classmethod
    def read(cls, folder: Path) -> "RunResult":
        import polars as pl

        folder = Path(folder)
        summary_file = folder / "summary.json"
        if not folder.is_dir():
            raise RunFolderError(f"{folder}: not a folder; expected an mmtsim run folder")
        if not summary_file.exists():
            raise RunFolderError(f"{folder} is not an mmtsim run folder (no summary.json)")
        try:
            summary = json.loads(summary_file.read_text())
            if not isinstance(summary, dict) or not isinstance(summary.get("flows"), list):
                raise ValueError("expected an object with a list of flows")
        except (ValueError, UnicodeDecodeError) as e:
            raise RunFolderError(f"{summary_file}: not a valid run summary ({e})") from None
        names = TABLES + tuple(n for n in OPTIONAL_TABLES if (folder / f"{n}.parquet").exists())
        tables = {}
        for n in names:
            path = folder / f"{n}.parquet"
            if not path.exists():
                raise RunFolderError(f"{path}: missing; the run folder is incomplete")
            try:
                df = pl.read_parquet(path)
            except Exception as e:  # polars raises several types for a damaged file
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise RunFolderError(f"{path}: not a valid Parquet file ({first})") from None
            missing = [c for c in _COLUMNS[n] if c not in df.columns]
            if missing:
                raise RunFolderError(f"{path}: missing column(s) {', '.join(missing)}; "
                                     f"expected {', '.join(_COLUMNS[n])}")
            tables[n] = df
        return cls(summary, tables, folder)
