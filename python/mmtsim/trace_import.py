"""Importers of measured cellular datasets: ``mmtsim trace import FORMAT IN OUT``.

Each importer reads one public dataset's own file layout and writes one of mmtsim's
trace formats: the CSV rate trace of a link (``time_s,rate_mbps``), a Mahimahi trace, or
a per-UE SINR trace (``time_s,sinr_db``, the ``ran.ues[].sinr_trace`` key), so that one
measured drive can be replayed as a link rate (what Mahimahi would do) or drive a UE's
channel through mmtsim's RAN (AMC, HARQ, scheduler, RLC).

Formats (the columns are the datasets' own; their descriptions are cited in
``docs/references.md``):

``5gophers``  [FIVEGOPHERS-2020] 5Gophers 1.0, CC BY 4.0. Three layouts are read:
    the mobility files with one throughput column per carrier
    (``seq_num,Sprint_throughput_mbps,TMobile_throughput_mbps,Verizon_throughput_mbps``;
    ``--carrier`` picks one), the throughput file with a ``carrier`` and a ``run_num``
    column (``--carrier``, ``--run``), and the walking file with one ``throughput_mbps``
    column beside ``radio_type`` and ``nrStatus``.
``lumos5g``   [LUMOS5G-2020] Lumos5G 1.0, CC BY 4.0: ``run_num``, ``seq_num``,
    ``nrStatus``, ``nr_ssSinr``, ``Throughput``, ``mobility_mode``,
    ``trajectory_direction`` (``--run``, ``--mobility``, ``--trajectory`` select one run).
``irish5g``   [RACA-5G-2020] the Irish 5G dataset, G-NetTrack Pro logs: ``Timestamp``
    (``YYYY.MM.DD_hh.mm.ss``), ``NetworkMode``, ``SNR``, ``DL_bitrate``, ``UL_bitrate``.
``csv``       any CSV: ``--time-col`` (unit ``--time-unit``), and ``--rate-col`` (unit
    ``--rate-unit``) or ``--sinr-col`` (dB).

Conversion rules (the same for every format unless said):

1. **Time.** The per-second datasets (5Gophers, Lumos5G) index time by ``seq_num``, one
   sample per second [LUMOS5G-2020]: sample ``seq_num = s`` covers ``[s − s0, s − s0 + 1)``
   seconds, ``s0`` the first selected row's. G-NetTrack's ``Timestamp`` has whole seconds;
   time 0 is the first row's second. A generic time column is shifted so that its first
   row is at 0. Times must increase: a repeated ``seq_num`` or a time earlier than the
   row before is an error naming the line (G-NetTrack logs sometimes hold two rows in one
   second: their values are averaged into that second instead).
2. **Rate over time.** Each sample's rate holds until the next sample (mmtsim's CSV
   semantics: piecewise constant); the last sample's rate holds past the end, so a
   scenario longer than the trace should loop it (the link's ``period`` or
   ``--until``-long Mahimahi output). For Mahimahi the held rate is spread into 1500-byte
   delivery opportunities, one line each time the capacity accumulated since 0 reaches
   another 1500 bytes (``mmtsim trace --to mahimahi``'s rule, in ``crates/net``), up to the
   trace's end (the number of samples × 1 s, or ``--until``); Mahimahi loops with its
   last opportunity as its period.
3. **Gaps.** A missing second (a ``seq_num`` or Timestamp second skipped) is, with
   ``--gaps hold`` (the default), covered by the sample before it, as rule 2 says; with
   ``--gaps outage`` it is a rate of 0 (SINR trace: the outage SINR) for the missing
   seconds. Either way the importer prints how many seconds were missing.
4. **Zero and missing values.** A measured rate of 0 is an outage (the link carries
   nothing; mmtsim's trace semantics). An empty field, ``-`` or a value that is not a
   number in the rate or SINR column is an error naming the line and column, except in
   the radio columns the datasets themselves describe as sometimes unavailable:
   Lumos5G's ``nr_ssSinr`` and G-NetTrack's ``SNR``, where the previous valid value holds
   (before the first one, the first valid value).
5. **Not on NR.** Lumos5G's NR columns are reliable only while ``nrStatus`` is
   ``CONNECTED`` [LUMOS5G-2020]. For an SINR trace, a second whose ``nrStatus`` is not
   ``CONNECTED`` (Lumos5G, 5Gophers' walking file) or whose ``NetworkMode`` is not ``5G``
   (G-NetTrack) is, with ``--not-nr outage`` (the default for SINR output), the outage SINR:
   ``--outage-sinr-db`` (−30 dB, below the lowest MCS threshold of every preset, −7.23 dB
   in ``crates/ran/src/phy/amc.rs``), so the RAN schedules nothing, as for an mmWave link
   lost to LTE fallback (the LTE leg itself is not modelled); ``--not-nr keep`` keeps the
   value. For a rate trace the measured throughput is kept whatever the radio (it was
   carried, by LTE or NR) unless ``--not-nr outage`` is given.
6. **Units.** 5Gophers' columns say Mbit/s in their names; Lumos5G's ``Throughput`` is
   per-second iPerf TCP throughput [LUMOS5G-2020], in Mbit/s (the README gives no unit;
   the paper reports Mbit/s; ``--rate-unit`` overrides); G-NetTrack's ``DL_bitrate`` and
   ``UL_bitrate`` are kbit/s (``--rate-unit`` overrides). Rates must be finite and ≥ 0;
   SINR finite dB. ``--direction ul`` takes G-NetTrack's ``UL_bitrate``.
7. **SINR from a rate** (``--sinr-from-rate PEAK`` with ``--to sinr``, for datasets that
   measured only throughput): an *equivalent* SINR, derived and not measured — the SINR
   at which the ``nr-fr2`` preset's AMC picks the MCS whose rate is nearest the measured
   one, taking the rate of MCS m as PEAK × SE(m) / SE(28), SE from TS 38.214 Table
   5.1.3.1-1 [TS38214 §5.1.3], and the SINR as that MCS's 10 % BLER threshold of the
   EESM table 1 model (``EESM_T1_THRESHOLDS_DB`` in ``crates/ran/src/phy/amc.rs``). "No
   MCS" (rate 0, the outage SINR) is one of the candidates: a rate nearer 0 than MCS 0's
   (PEAK × 0.0422, 52 Mbit/s at 1.23 Gbit/s: the cell's smallest non-zero rate, MCS 0
   over the whole band) becomes an outage, one nearer MCS 0's is carried at MCS 0's; a
   rate above PEAK gives the MCS-28 threshold (the RAN cannot deliver more than its
   peak). The RAN therefore quantises the measured rate to its MCS steps. With one UE on an ``nr-fr2`` cell whose long-run
   downlink rate is PEAK (1.23 Gbit/s for the preset's 400 MHz TDD carrier), the RAN then
   delivers roughly the measured rate, through its own HARQ, scheduler and RLC.

Bad input raises :class:`TraceImportError` naming the file, the line and the column; the
command prints it and exits 2 without writing anything.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import _core

FORMATS = ("5gophers", "lumos5g", "irish5g", "csv")
OUTPUTS = ("csv", "mahimahi", "sinr")

#: Below every preset's lowest MCS threshold (−7.23 dB): nothing is scheduled.
OUTAGE_SINR_DB = -30.0

#: NR MCS table 1 (TS 38.214 Table 5.1.3.1-1), read from the simulator's RAN: the spectral
#: efficiency Qm·R of MCS 0…28 and its 10 % BLER SINR threshold in the EESM model, dB.
_MCS_T1 = _core.nr_mcs_table1()
NR_SE = [qm * r for qm, r, _ in _MCS_T1]
EESM_T1_DB = [th for _, _, th in _MCS_T1]


def nr_mcs_at(sinr_db: float) -> int | None:
    """The MCS of table 1 the AMC picks at ``sinr_db`` (the highest whose threshold it
    reaches), or None below MCS 0's."""
    return max((i for i, th in enumerate(EESM_T1_DB) if th <= sinr_db), default=None)


RATE_UNITS = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


class TraceImportError(ValueError):
    """Bad input to an importer: the message names the file, line and column."""

    def __init__(self, path, message: str, line: int | None = None, column: str | None = None):
        where = str(path)
        if line is not None:
            where += f": line {line}"
        if column is not None:
            where += f", column {column}" if line is not None else f": column {column}"
        super().__init__(f"{where}: {message}")


@dataclass
class Options:
    """What to take from the file and how (the command's flags)."""

    carrier: str | None = None
    run: str | None = None
    mobility: str | None = None
    trajectory: str | None = None
    direction: str = "dl"
    gaps: str = "hold"
    not_nr: str | None = None          # None: "outage" for SINR output, "keep" for rates
    outage_sinr_db: float = OUTAGE_SINR_DB
    sinr_from_rate_bps: float | None = None
    rate_unit: str | None = None        # None: the format's own
    time_col: str | None = None
    time_unit: str = "s"
    rate_col: str | None = None
    sinr_col: str | None = None
    until_s: float | None = None


@dataclass
class Series:
    """Per-sample values on a time axis starting at 0."""

    source: str
    times: list[float] = field(default_factory=list)
    rates_bps: list[float | None] = field(default_factory=list)
    sinrs_db: list[float | None] = field(default_factory=list)
    nr: list[bool] = field(default_factory=list)     # on NR (5G) in this sample
    gap: list[bool] = field(default_factory=list)    # a missing second made an outage
    step_s: float | None = 1.0                       # sample length of a per-second dataset
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- reading

class _Table:
    """A CSV file with a header row; rows keep their 1-based line numbers."""

    def __init__(self, path: Path, fmt: str):
        self.path = path
        raw = path.read_bytes()  # OSError: the command names the path and the problem
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise TraceImportError(path, f"not a text file (byte {e.start} is not UTF-8); "
                                   f"expected the {fmt} CSV layout") from None
        lines = text.splitlines()
        first = next((i for i, l in enumerate(lines) if l.strip()), None)
        if first is None:
            raise TraceImportError(path, f"empty file; expected the {fmt} CSV layout", line=1)
        self.header_line = first + 1
        self.header = [h.strip() for h in next(csv.reader([lines[first]]))]
        self.rows: list[tuple[int, dict[str, str]]] = []
        for i in range(first + 1, len(lines)):
            if not lines[i].strip():
                continue
            fields = next(csv.reader([lines[i]]))
            if len(fields) != len(self.header):
                raise TraceImportError(path, f"{len(fields)} fields, the header has "
                                       f"{len(self.header)}", line=i + 1)
            self.rows.append((i + 1, {h: v.strip() for h, v in zip(self.header, fields)}))
        if not self.rows:
            raise TraceImportError(path, "the header has no data rows below it", line=first + 1)

    def require(self, *cols: str, fmt: str) -> None:
        for c in cols:
            if c not in self.header:
                raise TraceImportError(
                    self.path, f"no column {c!r} in the header ({', '.join(self.header)}); "
                    f"is this a {fmt} file?", line=self.header_line, column=c)

    def number(self, line: int, row: dict, col: str, what: str = "a number") -> float:
        v = row[col]
        try:
            x = float(v)
        except ValueError:
            raise TraceImportError(self.path, f"{v!r} is not {what}", line=line, column=col) from None
        if not math.isfinite(x):
            raise TraceImportError(self.path, f"{v!r} is not finite", line=line, column=col)
        return x

    def maybe(self, row: dict, col: str) -> float | None:
        """A radio value the dataset may leave empty (rule 4): None when not a number."""
        try:
            x = float(row[col])
        except ValueError:
            return None
        return x if math.isfinite(x) else None


def _rate(t: _Table, line: int, row: dict, col: str, scale: float) -> float:
    x = t.number(line, row, col, "a rate")
    if x < 0:
        raise TraceImportError(t.path, f"rate {row[col]} is negative", line=line, column=col)
    return x * scale


def _unit(opts: Options, default: str) -> float:
    return RATE_UNITS[opts.rate_unit or default]


def _seq_series(t: _Table, rows, source: str, rate_col: str | None, scale: float,
                sinr_col: str | None = None, nr_col: str | None = None) -> Series:
    """Per-second rows indexed by ``seq_num`` (rule 1)."""
    s = Series(source)
    s0 = prev = None
    for line, row in rows:
        seq = t.number(line, row, "seq_num", "a sequence number")
        if seq != int(seq):
            raise TraceImportError(t.path, f"sequence number {row['seq_num']} is not whole",
                                   line=line, column="seq_num")
        if prev is not None and seq <= prev:
            raise TraceImportError(t.path, f"seq_num {int(seq)} does not follow {int(prev)}; "
                                   "the time column must increase", line=line, column="seq_num")
        if s0 is None:
            s0 = seq
        prev = seq
        s.times.append(seq - s0)
        s.rates_bps.append(_rate(t, line, row, rate_col, scale) if rate_col else None)
        s.sinrs_db.append(t.maybe(row, sinr_col) if sinr_col else None)
        s.nr.append(row[nr_col] == "CONNECTED" if nr_col else True)
    return s


def _select(t: _Table, rows, col: str, want: str | None, flag: str):
    """Rows whose ``col`` equals ``want`` (case-insensitive); with ``want`` None, all rows,
    provided they hold one value only."""
    values = sorted({r[col] for _, r in rows})
    if want is None:
        if len(values) > 1:
            raise TraceImportError(t.path, f"holds several {col} values ({', '.join(values)}); "
                                   f"choose one with {flag}", column=col)
        return rows
    picked = [(n, r) for n, r in rows if r[col].lower() == want.lower()]
    if not picked:
        raise TraceImportError(t.path, f"no rows with {col} = {want!r} ({flag}); the file has "
                               f"{', '.join(values)}", column=col)
    return picked


def read_5gophers(path: Path, opts: Options) -> Series:
    t = _Table(path, "5Gophers")
    scale = _unit(opts, "mbps")
    t.require("seq_num", fmt="5Gophers")
    carriers = {h[: -len("_throughput_mbps")]: h for h in t.header if h.endswith("_throughput_mbps")}
    if carriers and "throughput_mbps" not in t.header:
        # One column per carrier (All-Carriers/03-User-Mobility/car-driving-trace-*.csv).
        if opts.carrier is None:
            raise TraceImportError(path, f"one throughput column per carrier "
                                   f"({', '.join(carriers)}); choose one with --carrier",
                                   line=t.header_line)
        col = next((c for k, c in carriers.items() if k.lower() == opts.carrier.lower()), None)
        if col is None:
            raise TraceImportError(path, f"no carrier {opts.carrier!r} (--carrier); the file has "
                                   f"{', '.join(carriers)}", line=t.header_line)
        return _seq_series(t, t.rows, f"5Gophers {path.name}, {col}", col, scale)
    t.require("throughput_mbps", fmt="5Gophers")
    rows = t.rows
    what = [path.name]
    if "carrier" in t.header:  # All-Carriers/01-Throughput/data.csv
        rows = _select(t, rows, "carrier", opts.carrier, "--carrier")
        what.append(f"carrier {rows[0][1]['carrier']}")
    elif opts.carrier is not None:
        raise TraceImportError(path, "this file names no carrier (no carrier column); "
                               "drop --carrier", line=t.header_line)
    if "run_num" in t.header:
        rows = _select(t, rows, "run_num", opts.run, "--run")
        what.append(f"run {rows[0][1]['run_num']}")
    for col, flag in (("num_tcp_conn", "--run"), ("server_location", "--run")):
        if col in t.header and len({r[col] for _, r in rows}) > 1:
            raise TraceImportError(path, f"the selection mixes several {col} values; "
                                   f"narrow it with {flag}", column=col)
    nr_col = "nrStatus" if "nrStatus" in t.header else None
    s = _seq_series(t, rows, "5Gophers " + ", ".join(what), "throughput_mbps", scale, nr_col=nr_col)
    return s


def read_lumos5g(path: Path, opts: Options) -> Series:
    t = _Table(path, "Lumos5G")
    cols = ("run_num", "seq_num", "nrStatus", "nr_ssSinr", "Throughput", "mobility_mode",
            "trajectory_direction")
    t.require(*cols, fmt="Lumos5G")
    rows = _select(t, t.rows, "mobility_mode", opts.mobility, "--mobility")
    rows = _select(t, rows, "trajectory_direction", opts.trajectory, "--trajectory")
    rows = _select(t, rows, "run_num", opts.run, "--run")
    r0 = rows[0][1]
    src = (f"Lumos5G {path.name}, run {r0['run_num']}, {r0['mobility_mode']}, "
           f"{r0['trajectory_direction']}")
    return _seq_series(t, rows, src, "Throughput", _unit(opts, "mbps"), sinr_col="nr_ssSinr",
                       nr_col="nrStatus")


def _gnettrack_time(t: _Table, line: int, value: str) -> float:
    try:
        # The log's wall-clock time, read as UTC whatever the machine's zone: local time
        # would put an hour's jump (or a step back) at a daylight-saving change of the
        # machine running the import, and make the trace differ between machines.
        return datetime.strptime(value, "%Y.%m.%d_%H.%M.%S").replace(
            tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise TraceImportError(t.path, f"timestamp {value!r} is not YYYY.MM.DD_hh.mm.ss",
                               line=line, column="Timestamp") from None


def read_irish5g(path: Path, opts: Options) -> Series:
    t = _Table(path, "G-NetTrack (Irish 5G dataset)")
    rate_col = "UL_bitrate" if opts.direction == "ul" else "DL_bitrate"
    t.require("Timestamp", "NetworkMode", "SNR", rate_col, fmt="G-NetTrack (Irish 5G dataset)")
    scale = _unit(opts, "kbps")
    s = Series(f"Irish 5G dataset {path.name}, {rate_col}")
    t0 = prev = None
    acc: list[tuple[float, float | None, bool]] = []

    def flush():
        if acc:
            s.times.append(prev - t0)
            s.rates_bps.append(sum(a[0] for a in acc) / len(acc))
            snr = [a[1] for a in acc if a[1] is not None]
            s.sinrs_db.append(sum(snr) / len(snr) if snr else None)
            s.nr.append(all(a[2] for a in acc))
            acc.clear()

    merged = 0
    for line, row in t.rows:
        ts = _gnettrack_time(t, line, row["Timestamp"])
        if prev is not None and ts < prev:
            raise TraceImportError(path, f"timestamp {row['Timestamp']} is earlier than the row "
                                   "before; the time column must not go back", line=line,
                                   column="Timestamp")
        if prev is not None and ts > prev:
            flush()
        elif prev is not None:
            merged += 1
        if t0 is None:
            t0 = ts
        prev = ts
        acc.append((_rate(t, line, row, rate_col, scale), t.maybe(row, "SNR"),
                    row["NetworkMode"] == "5G"))
    flush()
    if merged:
        s.notes.append(f"{merged} rows shared a second with the row before: averaged")
    return s


def read_generic(path: Path, opts: Options) -> Series:
    t = _Table(path, "CSV")
    if opts.time_col is None:
        raise TraceImportError(path, "give the time column with --time-col")
    if (opts.rate_col is None) == (opts.sinr_col is None):
        raise TraceImportError(path, "give exactly one of --rate-col and --sinr-col")
    value_col = opts.rate_col or opts.sinr_col
    t.require(opts.time_col, value_col, fmt="CSV")
    tscale = TIME_UNITS[opts.time_unit]
    s = Series(f"{path.name}, {opts.time_col} ({opts.time_unit}), {value_col}", step_s=None)
    t0 = prev = None
    for line, row in t.rows:
        x = t.number(line, row, opts.time_col, "a time") * tscale
        if prev is not None and x <= prev:
            raise TraceImportError(path, f"time {row[opts.time_col]} is not after the row "
                                   "before; the time column must increase", line=line,
                                   column=opts.time_col)
        t0 = x if t0 is None else t0
        prev = x
        s.times.append(x - t0)
        if opts.rate_col:
            s.rates_bps.append(_rate(t, line, row, opts.rate_col, _unit(opts, "bps")))
            s.sinrs_db.append(None)
        else:
            s.rates_bps.append(None)
            s.sinrs_db.append(t.number(line, row, opts.sinr_col, "an SINR in dB"))
        s.nr.append(True)
    return s


READERS = {"5gophers": read_5gophers, "lumos5g": read_lumos5g, "irish5g": read_irish5g,
           "csv": read_generic}


# ----------------------------------------------------------------------------- converting

def equivalent_sinr_db(rate_bps: float, peak_bps: float, outage_db: float = OUTAGE_SINR_DB) -> float:
    """Rule 7: the SINR at which nr-fr2's AMC picks the MCS whose rate is nearest."""
    rates = [0.0] + [peak_bps * x / NR_SE[-1] for x in NR_SE]   # index 0: no MCS (outage)
    m = min(range(len(rates)), key=lambda i: (abs(rates[i] - rate_bps), i))
    return outage_db if m == 0 else EESM_T1_DB[m - 1]


def _fill_gaps(s: Series, opts: Options) -> None:
    """Rule 3 on a per-second series: count missing seconds; with ``outage`` insert them."""
    if s.step_s is None or len(s.times) < 2:
        return
    missing, longest, at = 0, 0, None
    out_t, out_r, out_s, out_n, out_g = [], [], [], [], []
    for i, t in enumerate(s.times):
        if i:
            gap = int(round(t - s.times[i - 1])) - 1
            if gap > 0:
                missing += gap
                if gap > longest:
                    longest, at = gap, s.times[i - 1] + 1
                if opts.gaps == "outage":
                    for k in range(gap):
                        out_t.append(s.times[i - 1] + 1 + k)
                        out_r.append(0.0 if s.rates_bps[i] is not None else None)
                        out_s.append(None)
                        out_n.append(False)
                        out_g.append(True)
        out_t.append(t)
        out_r.append(s.rates_bps[i])
        out_s.append(s.sinrs_db[i])
        out_n.append(s.nr[i])
        out_g.append(False)
    if missing:
        rule = "held by the second before" if opts.gaps == "hold" else "outage"
        s.notes.append(f"{missing} missing seconds (longest {longest} s from t = {at:g} s): {rule}")
    if opts.gaps == "outage":
        s.times, s.rates_bps, s.sinrs_db, s.nr, s.gap = out_t, out_r, out_s, out_n, out_g


def _sinr_values(s: Series, opts: Options, path) -> list[float]:
    not_nr = opts.not_nr or "outage"
    if opts.sinr_from_rate_bps is not None:
        if s.rates_bps[0] is None:
            raise TraceImportError(path, "--sinr-from-rate needs a rate column")
        vals = [equivalent_sinr_db(r, opts.sinr_from_rate_bps, opts.outage_sinr_db)
                for r in s.rates_bps]
    else:
        if all(v is None for v in s.sinrs_db) and not any(r is None for r in s.rates_bps):
            raise TraceImportError(path, "this file has no SINR measurement; an SINR trace needs "
                                   "--sinr-from-rate PEAK (an equivalent SINR, rule 7) or a "
                                   "format with an SINR column")
        valid = [v for v in s.sinrs_db if v is not None]
        if not valid:
            raise TraceImportError(path, "no valid SINR value in the selection")
        vals, last = [], valid[0]
        for v in s.sinrs_db:
            last = v if v is not None else last
            vals.append(last)
    gaps = s.gap or [False] * len(vals)
    out = []
    for v, nr, gap in zip(vals, s.nr, gaps):
        if gap or (not nr and not_nr == "outage"):
            v = opts.outage_sinr_db
        out.append(v)
    return out


def _rate_values(s: Series, opts: Options, path) -> list[float]:
    if any(r is None for r in s.rates_bps):
        raise TraceImportError(path, "this selection has no rate column; write --to sinr")
    if (opts.not_nr or "keep") == "outage":
        return [r if nr else 0.0 for r, nr in zip(s.rates_bps, s.nr)]
    return list(s.rates_bps)


def _fmt(x: float) -> str:
    return f"{x:.6f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def _header(s: Series, provenance: list[str], rules: list[str]) -> str:
    lines = [f"# {p}" for p in provenance]
    lines.append(f"# imported by mmtsim trace import from {s.source}")
    lines += [f"# {r}" for r in rules + s.notes]
    return "\n".join(lines) + "\n"


def convert(fmt: str, path: str | Path, to: str, opts: Options | None = None,
            provenance: list[str] | None = None) -> tuple[str, list[str]]:
    """Reads ``path`` in dataset format ``fmt`` and returns (the text of the ``to`` trace,
    notes for the user). Raises :class:`TraceImportError` on bad input."""
    if fmt not in READERS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if to not in OUTPUTS:
        raise ValueError(f"unknown output {to!r}; expected one of {', '.join(OUTPUTS)}")
    opts = opts or Options()
    path = Path(path)
    s = READERS[fmt](path, opts)
    _fill_gaps(s, opts)
    rules = []
    if to == "sinr":
        vals = _sinr_values(s, opts, path)
        if opts.sinr_from_rate_bps is not None:
            rules.append(f"equivalent SINR (derived from the measured rate, not measured): "
                         f"nr-fr2 AMC, peak {opts.sinr_from_rate_bps / 1e6:g} Mbit/s")
        if (opts.not_nr or "outage") == "outage" and not all(s.nr):
            rules.append(f"not on NR: {opts.outage_sinr_db:g} dB (outage)")
        body = "time_s,sinr_db\n" + "".join(f"{_fmt(t)},{_fmt(v)}\n" for t, v in zip(s.times, vals))
        return _header(s, provenance or [], rules) + body, s.notes
    vals = _rate_values(s, opts, path)
    csv_text = "time_s,rate_mbps\n" + "".join(
        f"{_fmt(t)},{_fmt(v / 1e6)}\n" for t, v in zip(s.times, vals))
    if to == "csv":
        return _header(s, provenance or [], rules) + csv_text, s.notes

    end = opts.until_s
    if end is None:
        end = s.times[-1] + (s.step_s or 0.0)
        if end <= 0:
            raise TraceImportError(path, "a one-row trace without --until has no length for Mahimahi")
    out = _core.convert_trace(csv_text, "csv", "mahimahi", end)
    if not out:
        raise TraceImportError(path, "the trace carries nothing before its end: a Mahimahi "
                               "trace needs at least one delivery opportunity")
    return out, s.notes


def import_command(args) -> int:
    """``mmtsim trace import``: convert, print the notes, write OUT whole, or exit 2."""
    import sys

    from .cli import EXIT_OK, EXIT_USAGE, _write_text

    opts = Options(carrier=args.carrier, run=args.run, mobility=args.mobility,
                   trajectory=args.trajectory, direction=args.direction, gaps=args.gaps,
                   not_nr=args.not_nr, outage_sinr_db=args.outage_sinr_db,
                   rate_unit=args.rate_unit, time_col=args.time_col, time_unit=args.time_unit,
                   rate_col=args.rate_col, sinr_col=args.sinr_col)

    for flag, text, attr in (("--sinr-from-rate", args.sinr_from_rate, "sinr_from_rate_bps"),
                             ("--until", args.until, "until_s")):
        if text is None:
            continue
        try:
            v = _parse_rate(text) if attr == "sinr_from_rate_bps" else _core.parse_duration(text)
        except ValueError as e:
            print(f"mmtsim: {flag} {text!r}: {e}", file=sys.stderr)
            return EXIT_USAGE
        setattr(opts, attr, v)
    try:
        text, notes = convert(args.format, args.input, args.to, opts, provenance=args.note)
    except TraceImportError as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_USAGE
    for n in notes:
        print(f"mmtsim: note: {args.input}: {n}", file=sys.stderr)
    _write_text(Path(args.output), text)
    return EXIT_OK


def _parse_rate(text: str) -> float:
    low = text.strip().lower()
    for unit in sorted(RATE_UNITS, key=len, reverse=True):
        if low.endswith(unit):
            try:
                v = float(low[: -len(unit)]) * RATE_UNITS[unit]
            except ValueError:
                break
            if v > 0 and math.isfinite(v):
                return v
            raise ValueError("expected a positive rate")
    raise ValueError("expected a rate with a unit, e.g. 1.23Gbps")


def add_import_parser(parser_class) -> "object":
    """The parser of ``mmtsim trace import`` (a separate parser: ``mmtsim trace`` keeps its
    positional IN OUT)."""
    p = parser_class(prog="mmtsim trace import",
                     description="Convert a measured dataset's file into an mmtsim trace. "
                                 "Rules: python/mmtsim/trace_import.py and README.md.")
    p.add_argument("format", choices=FORMATS, metavar="FORMAT",
                   help="5gophers, lumos5g, irish5g or csv")
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    p.add_argument("--to", choices=OUTPUTS, default="csv",
                   help="csv (rate trace, default), mahimahi, or sinr (a UE's SINR trace)")
    p.add_argument("--carrier", help="5Gophers: carrier column or value (Verizon, TMobile, Sprint)")
    p.add_argument("--run", help="run_num to take (5Gophers throughput file, Lumos5G)")
    p.add_argument("--mobility", help="Lumos5G mobility_mode (walking, driving)")
    p.add_argument("--trajectory", help="Lumos5G trajectory_direction (CW, ACW)")
    p.add_argument("--direction", choices=["dl", "ul"], default="dl",
                   help="G-NetTrack: DL_bitrate (default) or UL_bitrate")
    p.add_argument("--gaps", choices=["hold", "outage"], default="hold",
                   help="a missing second: held by the one before (default) or an outage")
    p.add_argument("--not-nr", dest="not_nr", choices=["outage", "keep"],
                   help="seconds not on NR: outage (default for --to sinr) or keep (default for rates)")
    p.add_argument("--outage-sinr-db", dest="outage_sinr_db", type=float, default=OUTAGE_SINR_DB,
                   help="SINR written for an outage (default -30)")
    p.add_argument("--sinr-from-rate", dest="sinr_from_rate", metavar="PEAK",
                   help="--to sinr from a rate-only dataset: equivalent SINR for an nr-fr2 cell "
                        "whose peak is PEAK, e.g. 1.23Gbps (derived, not measured)")
    p.add_argument("--rate-unit", dest="rate_unit", choices=list(RATE_UNITS),
                   help="unit of the rate column (default: the format's: Mbit/s, G-NetTrack kbit/s, csv bit/s)")
    p.add_argument("--time-col", dest="time_col", help="csv: the time column")
    p.add_argument("--time-unit", dest="time_unit", choices=list(TIME_UNITS), default="s",
                   help="csv: unit of the time column (default s)")
    p.add_argument("--rate-col", dest="rate_col", help="csv: the rate column")
    p.add_argument("--sinr-col", dest="sinr_col", help="csv: the SINR column (dB)")
    p.add_argument("--until", help="Mahimahi: length to write (default: the trace's own)")
    p.add_argument("--note", action="append", default=[], metavar="TEXT",
                   help="a line for the output's header (provenance, licence); repeatable")
    return p


__all__ = ["FORMATS", "OUTPUTS", "Options", "TraceImportError", "convert", "equivalent_sinr_db"]
