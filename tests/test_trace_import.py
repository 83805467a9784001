"""`mmtsim trace import`: each dataset's layout, every conversion rule of
`mmtsim/trace_import.py` on small files written here in the datasets' formats, and bad
input (file, line and column named, exit 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli
from mmtsim.trace_import import EESM_T1_DB, Options, convert, equivalent_sinr_db

# 5Gophers 1.0, All-Carriers/03-User-Mobility/car-driving-trace-*.csv layout (one column per
# carrier; seq_num 3 is missing).
GOPHERS_WIDE = """protocol,num_tcp_conn,seq_num,Sprint_throughput_mbps,TMobile_throughput_mbps,Verizon_throughput_mbps
TCP,8,0,25.5,145,53
TCP,8,1,65,87,0.0
TCP,8,2,108,88,1500
TCP,8,4,122,210,188
"""
# 5Gophers' walking-trace.csv layout.
GOPHERS_WALK = """protocol,num_tcp_conn,seq_num,anonymized_mCid,radio_type,throughput_mbps,nrStatus,primitive_handoff_type
TCP,8,1,3,4G,92.1,NOT_RESTRICTED,
TCP,8,2,3,5G,227,CONNECTED,P2
TCP,8,3,3,5G,94.3,CONNECTED,
"""
# 5Gophers' All-Carriers/01-Throughput/data.csv layout.
GOPHERS_LONG = """protocol,carrier,num_tcp_conn,server_location,run_num,seq_num,throughput_mbps
TCP,SPRINT,1,US-East,1,0,0.93
TCP,SPRINT,1,US-East,1,1,1.95
TCP,VERIZON,1,US-East,2,0,100
TCP,VERIZON,1,US-East,2,1,200
TCP,VERIZON,1,US-East,3,0,300
"""
LUMOS_HEADER = ("run_num,seq_num,abstractSignalStr,latitude,longitude,movingSpeed,compassDirection,"
                "nrStatus,lte_rssi,lte_rsrp,lte_rsrq,lte_rssnr,nr_ssRsrp,nr_ssRsrq,nr_ssSinr,"
                "Throughput,mobility_mode,trajectory_direction,tower_id")


def lumos_row(run, seq, nr, sinr, tput, mode="walking", traj="CW"):
    return f"{run},{seq},2,44.97,-93.26,1.2,90.0,{nr},-60,-90,-10,5,-85,-11,{sinr},{tput},{mode},{traj},16"


LUMOS = "\n".join([
    LUMOS_HEADER,
    lumos_row(1, 0, "CONNECTED", 12.0, 800),
    lumos_row(1, 1, "CONNECTED", "", 700),            # NR value missing: the previous holds
    lumos_row(1, 2, "NOT_RESTRICTED", 3.0, 80),       # not on NR: outage SINR
    lumos_row(1, 3, "CONNECTED", 20.0, 1200),
    lumos_row(2, 0, "CONNECTED", 5.0, 300, mode="driving"),
    lumos_row(3, 0, "CONNECTED", 6.0, 310, traj="ACW"),
]) + "\n"
IRISH_HEADER = ("Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,"
                "CQI,RSSI,DL_bitrate,UL_bitrate,State,PINGAVG,PINGMIN,PINGMAX,PINGSTDEV,PINGLOSS,"
                "CELLHEX,NODEHEX,LACHEX,RAWCELLID,NRxRSRP,NRxRSRQ")


def irish_row(ts, mode, snr, dl, ul=50):
    return f"{ts},-8.38,51.93,30,B,12,{mode},-98,-10,{snr},12,-88,{dl},{ul},D,-,-,-,-,-,C,A81B,9CBA,11016972,-100.0,-15.0"


IRISH = "\n".join([
    IRISH_HEADER,
    irish_row("2019.12.16_07.22.43", "5G", "3.0", 1000),
    irish_row("2019.12.16_07.22.43", "5G", "9.0", 3000),     # same second: averaged
    irish_row("2019.12.16_07.22.44", "LTE", "-", 500),       # SNR missing; not on 5G
    irish_row("2019.12.16_07.22.46", "5G", "7.0", 0),        # 07.22.45 missing
]) + "\n"


def rows(text: str) -> list[tuple[float, float]]:
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line or line.startswith("time_s"):
            continue
        t, v = line.split(",")
        out.append((float(t), float(v)))
    return out


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_5gophers_carrier_column_seconds_and_gaps(tmp_path: Path):
    f = write(tmp_path, "drive.csv", GOPHERS_WIDE)
    text, notes = convert("5gophers", f, "csv", Options(carrier="verizon"))
    # seq_num − first seq_num is the time in s; Mbit/s kept; 0 stays 0 (an outage); the
    # missing second 3 is held by second 2 (no row written).
    assert rows(text) == [(0, 53), (1, 0), (2, 1500), (4, 188)]
    assert text.splitlines()[2] == "time_s,rate_mbps"
    assert any("1 missing seconds" in n for n in notes)
    text, _ = convert("5gophers", f, "csv", Options(carrier="Sprint", gaps="outage"))
    assert rows(text) == [(0, 25.5), (1, 65), (2, 108), (3, 0), (4, 122)]


def test_5gophers_walking_and_throughput_layouts(tmp_path: Path):
    walk = write(tmp_path, "walk.csv", GOPHERS_WALK)
    assert rows(convert("5gophers", walk, "csv")[0]) == [(0, 92.1), (1, 227), (2, 94.3)]
    # Seconds not on NR become outages only when asked.
    assert rows(convert("5gophers", walk, "csv", Options(not_nr="outage"))[0])[0] == (0, 0)
    long = write(tmp_path, "data.csv", GOPHERS_LONG)
    text, _ = convert("5gophers", long, "csv", Options(carrier="verizon", run="2"))
    assert rows(text) == [(0, 100), (1, 200)]


def test_equivalent_sinr_is_the_threshold_of_the_nearest_mcs():
    peak = 1.23e9
    se = [2 * 120 / 1024, 6 * 948 / 1024]
    # The peak and above: MCS 28; the rate of MCS 0 (peak·SE0/SE28): MCS 0; 0: outage.
    assert equivalent_sinr_db(peak, peak) == EESM_T1_DB[28] == 23.97
    assert equivalent_sinr_db(5 * peak, peak) == 23.97
    assert equivalent_sinr_db(peak * se[0] / se[1], peak) == EESM_T1_DB[0] == -0.74
    # "No MCS" is a candidate too: below half of MCS 0's rate, an outage.
    r0 = peak * se[0] / se[1]
    assert equivalent_sinr_db(0.49 * r0, peak) == -30.0
    assert equivalent_sinr_db(0.51 * r0, peak) == -0.74
    assert equivalent_sinr_db(0.0, peak) == -30.0
    # MCS 17 (64QAM, 438/1024: SE 2.5664) lies between MCS 16 (4·658/1024 = 2.5703) and
    # MCS 15 (4·616/1024 = 2.40625); a rate at SE 2.5664 is nearest MCS 17.
    r17 = peak * (6 * 438 / 1024) / se[1]
    assert equivalent_sinr_db(r17, peak) == EESM_T1_DB[17] == 11.94


def test_5gophers_sinr_needs_a_peak(tmp_path: Path):
    f = write(tmp_path, "drive.csv", GOPHERS_WIDE)
    out = tmp_path / "s.csv"
    r = cli("trace", "import", "5gophers", str(f), str(out), "--carrier", "Verizon", "--to", "sinr")
    assert r.returncode == 2 and "--sinr-from-rate" in r.stderr and not out.exists()
    r = cli("trace", "import", "5gophers", str(f), str(out), "--carrier", "Verizon", "--to", "sinr",
            "--sinr-from-rate", "1.23Gbps", "--gaps", "outage")
    assert r.returncode == 0, r.stderr
    assert "equivalent SINR" in out.read_text()
    assert rows(out.read_text()) == [(0, equivalent_sinr_db(53e6, 1.23e9)), (1, -30), (2, 23.97),
                                     (3, -30), (4, equivalent_sinr_db(188e6, 1.23e9))]


def test_lumos5g_selection_and_nr_rules(tmp_path: Path):
    f = write(tmp_path, "Lumos5G-v1.0.csv", LUMOS)
    opts = Options(run="1", mobility="walking", trajectory="CW")
    rate, _ = convert("lumos5g", f, "csv", opts)
    assert rows(rate) == [(0, 800), (1, 700), (2, 80), (3, 1200)]
    sinr, _ = convert("lumos5g", f, "sinr", opts)
    # Missing nr_ssSinr: the previous value holds; nrStatus ≠ CONNECTED: outage SINR.
    assert rows(sinr) == [(0, 12), (1, 12), (2, -30), (3, 20)]
    keep, _ = convert("lumos5g", f, "sinr", Options(run="1", mobility="walking", trajectory="CW",
                                                     not_nr="keep"))
    assert rows(keep)[2] == (2, 3)
    drive, _ = convert("lumos5g", f, "csv", Options(mobility="driving"))
    assert rows(drive) == [(0, 300)]


def test_lumos5g_asks_for_a_selection(tmp_path: Path):
    f = write(tmp_path, "l.csv", LUMOS)
    out = tmp_path / "o.csv"
    r = cli("trace", "import", "lumos5g", str(f), str(out))
    assert r.returncode == 2 and "--mobility" in r.stderr and not out.exists()
    r = cli("trace", "import", "lumos5g", str(f), str(out), "--mobility", "walking",
            "--trajectory", "CW", "--run", "9")
    assert r.returncode == 2 and "run_num = '9'" in r.stderr and "1" in r.stderr


def test_irish5g_seconds_units_and_radio(tmp_path: Path):
    f = write(tmp_path, "B_2019.12.16_07.22.43.csv", IRISH)
    text, notes = convert("irish5g", f, "csv")
    # kbit/s → Mbit/s; two rows in one second averaged ((1000 + 3000)/2 kbit/s).
    assert rows(text) == [(0, 2.0), (1, 0.5), (3, 0)]
    assert any("averaged" in n for n in notes) and any("1 missing seconds" in n for n in notes)
    sinr, _ = convert("irish5g", f, "sinr")
    # SNR averaged in the second (6 dB); the LTE second: outage; 5G again: 7 dB.
    assert rows(sinr) == [(0, 6), (1, -30), (3, 7)]
    ul, _ = convert("irish5g", f, "csv", Options(direction="ul"))
    assert rows(ul)[0] == (0, 0.05)


def test_irish5g_times_do_not_depend_on_the_machines_time_zone(tmp_path: Path, monkeypatch):
    """Across New York's change to winter time (2019-11-03, 02:00 → 01:00 local) a local
    reading of the log's clock would see a 3601 s step between two consecutive seconds."""
    import time

    text = "\n".join([IRISH_HEADER,
                      irish_row("2019.11.03_01.59.59", "5G", "3.0", 1000),
                      irish_row("2019.11.03_02.00.00", "5G", "4.0", 2000)]) + "\n"
    f = write(tmp_path, "B_2019.11.03_01.59.59.csv", text)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        out, _ = convert("irish5g", f, "csv")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert rows(out) == [(0, 1.0), (1, 2.0)]


def test_generic_csv_units_and_shift(tmp_path: Path):
    f = write(tmp_path, "g.csv", "t_ms,tput_kbps,snr\n1000,500,3\n1500,0,-2\n3000,2500,10\n")
    text, _ = convert("csv", f, "csv", Options(time_col="t_ms", time_unit="ms", rate_col="tput_kbps",
                                               rate_unit="kbps"))
    assert rows(text) == [(0, 0.5), (0.5, 0), (2, 2.5)]
    sinr, _ = convert("csv", f, "sinr", Options(time_col="t_ms", time_unit="ms", sinr_col="snr"))
    assert rows(sinr) == [(0, 3), (0.5, -2), (2, 10)]


def test_mahimahi_spreads_the_held_rate(tmp_path: Path):
    # 12 Mbit/s is one 1500-byte opportunity per ms; then an outage second, then 24 Mbit/s.
    f = write(tmp_path, "g.csv", "t,r\n0,12\n1,0\n2,24\n")
    text, _ = convert("csv", f, "mahimahi", Options(time_col="t", rate_col="r", rate_unit="mbps",
                                                    until_s=3.0))
    ms = [int(x) for x in text.split()]
    assert len(ms) == 1000 + 2000
    # An opportunity is written (floor, in ms) each time another 1500 bytes have
    # accumulated: at 1, 2, …, 1000 ms; none in the outage; two per ms at 24 Mbit/s.
    assert ms[:1000] == list(range(1, 1001))
    assert ms[1000:] == sorted(ms[1000:]) and 2000 <= ms[1000] and ms[-1] == 3000


def test_the_written_trace_runs_as_a_link(tmp_path: Path):
    f = write(tmp_path, "drive.csv", GOPHERS_WIDE)
    out = tmp_path / "v.csv"
    r = cli("trace", "import", "5gophers", str(f), str(out), "--carrier", "Verizon",
            "--note", "source: test")
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("# source: test\n")
    # mmtsim's own CSV reader takes it: convert it to Mahimahi with `mmtsim trace`.
    r = cli("trace", str(out), str(tmp_path / "v.mm"), "--from", "csv", "--to", "mahimahi",
            "--until", "5s")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("fmt,text,args,where", [
    ("5gophers", GOPHERS_WIDE.replace("TCP,8,2,", "TCP,8,1,"), ["--carrier", "Sprint"],
     ["line 4", "column seq_num", "does not follow"]),
    ("5gophers", GOPHERS_WIDE.replace(",1500\n", ",fast\n"), ["--carrier", "Verizon"],
     ["line 4", "column Verizon_throughput_mbps", "'fast' is not a rate"]),
    ("5gophers", GOPHERS_WIDE.replace(",1500\n", ",-3\n"), ["--carrier", "Verizon"],
     ["line 4", "column Verizon_throughput_mbps", "negative"]),
    ("5gophers", GOPHERS_WIDE, ["--carrier", "ATT"], ["line 1", "no carrier 'ATT'"]),
    ("lumos5g", GOPHERS_WIDE, [], ["line 1", "column run_num", "is this a Lumos5G file"]),
    ("irish5g", LUMOS, [], ["line 1", "column Timestamp", "G-NetTrack"]),
    ("irish5g", IRISH.replace("2019.12.16_07.22.46", "2019.12.16_07.22.40"), [],
     ["line 5", "column Timestamp", "earlier"]),
    ("irish5g", IRISH.replace("2019.12.16_07.22.46", "16/12/2019 07:22:46"), [],
     ["line 5", "column Timestamp", "YYYY.MM.DD_hh.mm.ss"]),
    ("irish5g", IRISH.replace(",-88,0,50,D,", ",-88,0,50,D,extra,"), [],
     ["line 5", "fields"]),
    ("csv", "t,r\n0,1\n0,2\n", ["--time-col", "t", "--rate-col", "r"],
     ["line 3", "column t", "must increase"]),
    ("csv", "t,r\n0,1\n", ["--time-col", "time", "--rate-col", "r"], ["line 1", "column time"]),
    ("csv", "t,r\n0,1\n", ["--time-col", "t"], ["--rate-col"]),
    ("5gophers", "", ["--carrier", "x"], ["line 1", "empty file"]),
])
def test_bad_input_names_file_line_column(tmp_path: Path, fmt, text, args, where):
    f = write(tmp_path, "in.csv", text)
    out = tmp_path / "out.csv"
    r = cli("trace", "import", fmt, str(f), str(out), *args)
    assert r.returncode == 2, r.stderr
    assert str(f) in r.stderr
    for w in where:
        assert w in r.stderr, r.stderr
    assert not out.exists()


def test_binary_file_and_bad_flags(tmp_path: Path):
    f = tmp_path / "x.csv"
    f.write_bytes(b"\xff\xfe\x00garbage")
    out = tmp_path / "o.csv"
    r = cli("trace", "import", "lumos5g", str(f), str(out))
    assert r.returncode == 2 and "not a text file" in r.stderr and not out.exists()
    r = cli("trace", "import", "nope", str(f), str(out))
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = cli("trace", "import", "5gophers", str(tmp_path / "missing.csv"), str(out))
    assert r.returncode == 2 and "does not exist" in r.stderr
    g = write(tmp_path, "g.csv", GOPHERS_WIDE)
    r = cli("trace", "import", "5gophers", str(g), str(out), "--carrier", "Verizon", "--to", "sinr",
            "--sinr-from-rate", "fast")
    assert r.returncode == 2 and "--sinr-from-rate" in r.stderr and not out.exists()


SHIPPED = Path(__file__).resolve().parent.parent / "examples" / "traces"
MEASURED = sorted(SHIPPED.glob("5gophers-*.csv"))


def test_the_shipped_measured_traces_carry_provenance_and_licence():
    assert {p.name for p in MEASURED} == {
        f"5gophers-{k}{s}.csv" for k in ("verizon-drive", "sprint-drive", "walk") for s in ("", "-sinr")}
    for p in MEASURED:
        head = [l for l in p.read_text().splitlines() if l.startswith("#")]
        assert head[0].startswith("# source: 5Gophers 1.0 dataset"), p.name
        assert any("licence: CC BY 4.0" in l for l in head), p.name
        assert any("copy read: github.com/jhzuo/Offloading-FL at 7133b70" in l for l in head), p.name
        if p.stem.endswith("-sinr"):
            assert any("DERIVED, NOT MEASURED" in l for l in head), p.name


@pytest.mark.parametrize("name", ["verizon-drive", "sprint-drive", "walk"])
def test_each_shipped_sinr_trace_is_the_equivalent_sinr_of_its_rate_trace(name: str):
    rate = dict(rows((SHIPPED / f"5gophers-{name}.csv").read_text()))
    sinr = rows((SHIPPED / f"5gophers-{name}-sinr.csv").read_text())
    assert [t for t, _ in sinr] == sorted(rate) and len(sinr) > 100
    for t, s in sinr:
        want = equivalent_sinr_db(rate[t] * 1e6, 1.23e9)
        # The walk's seconds off NR (nrStatus not CONNECTED) are outages whatever the rate.
        assert s == want or (name == "walk" and s == -30.0), (t, s, want)
    # The drive of the example: per-second rates from 0 to 1.66 Gbit/s, 126 s.
    if name == "verizon-drive":
        assert min(rate.values()) == 0 and 1663 < max(rate.values()) < 1664
        assert max(rate) == 125


def test_the_shipped_rate_traces_load_as_links(tmp_path: Path):
    for p in MEASURED:
        if p.stem.endswith("-sinr"):
            continue
        r = cli("trace", str(p), str(tmp_path / "x.mm"), "--from", "csv", "--to", "mahimahi",
                "--until", "2s")
        assert r.returncode == 0, (p.name, r.stderr)
