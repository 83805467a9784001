"""The ``mmtsim`` command.

Exit codes: 0 success, 1 simulation or I/O failure, 2 bad input (scenario, flags).
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
from pathlib import Path

from . import _core

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
#: File-system failures that are not the user's input (the disk filled up mid-run).
_IO_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EIO}
#: Subcommands whose --out is a folder, checked before anything runs.
_OUT_FOLDERS = {"run", "sweep", "reproduce", "plot", "emulate", "shell"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 as well; keep one format
        self.print_usage(sys.stderr)
        print(f"mmtsim: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _seed(text: str) -> int:
    try:
        v = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed {text!r}: expected a whole number") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"--seed {v}: expected 0 to 2**64-1")
    return v


def _set(text: str) -> str:
    if "=" not in text or text.startswith("="):
        raise argparse.ArgumentTypeError(f"--set {text!r}: expected key.path=value")
    return text


def _workers(text: str) -> int:
    try:
        v = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers {text!r}: expected a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"--workers {v}: expected at least 1")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mmtsim", description="Packet-level simulation of transport over mmWave networks.")
    p.add_argument("--version", action="version", version=f"mmtsim {_core.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    k = sub.add_parser("keys", help="list every scenario key: type, unit, default, meaning")
    k.add_argument("prefix", nargs="?", default="",
                   help="only keys starting with this, e.g. flows.tcp or ran.rlc")

    r = sub.add_parser("run", help="run a scenario and write a run folder")
    r.add_argument("scenario", help="scenario file (TOML or JSON)")
    r.add_argument("--out", required=True, help="run folder to write")
    r.add_argument("--seed", type=_seed, help="master seed (overrides simulation.seed)")
    r.add_argument("--set", dest="overrides", action="append", default=[], type=_set,
                   metavar="KEY.PATH=VALUE", help="override a scenario value (repeatable)")
    r.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")

    v = sub.add_parser("validate", help="check a scenario without running it")
    v.add_argument("scenario")
    v.add_argument("--set", dest="overrides", action="append", default=[], type=_set, metavar="KEY.PATH=VALUE")

    pl = sub.add_parser("plot", help="PNG figures of a run folder")
    pl.add_argument("run_dir")
    pl.add_argument("--out", help="folder for the figures (default RUN_DIR/plots)")

    b = sub.add_parser("bench", help="run the named benchmarks and write bench.json")
    b.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    b.add_argument("--only", action="append", default=[], metavar="NAME", help="run only these (repeatable)")
    b.add_argument("--group", action="append", default=[], metavar="GROUP",
                   help="run a group of benchmarks, e.g. cc (repeatable; --list shows them)")
    b.add_argument("--out", default="bench.json", help="output file (default bench.json)")
    b.add_argument("--list", action="store_true", help="list the benchmarks and groups and exit")
    b.add_argument("--repeat", type=int, default=1, help="runs per benchmark; the best is kept")

    sw = sub.add_parser("sweep", help="run a sweep file (grid x seeds x replicates) into a folder",
                        description="Runs every run of SWEEP that DIR does not hold yet; "
                                    "re-running resumes. Exit 0: all runs done, 1: some failed "
                                    "(see DIR/failed/), 2: bad sweep file or flags.")
    sw.add_argument("sweep_file", metavar="SWEEP", help="sweep file (TOML; see mmtsim.sweep)")
    sw.add_argument("--out", required=True, metavar="DIR", help="sweep folder to write")
    sw.add_argument("--workers", type=_workers, metavar="N",
                    help="parallel runs in threads (default: all cores)")
    sw.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask distributed scheduler (DIR must be on a shared filesystem)")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")

    _add_summary_commands(sub)  # summarize, report (block "sweep summaries" below)
    _add_reproduce_command(sub)
    _add_emulation_commands(sub)  # emulate, shell (block "real-time emulation" below)

    s = sub.add_parser("schema", help="print the JSON Schema of scenario files")
    s.add_argument("--out", help="write to this file instead of stdout")

    t = sub.add_parser("trace", help="convert capacity traces between CSV and Mahimahi; "
                       "`mmtsim trace import FORMAT IN OUT` reads measured 5G datasets")
    t.add_argument("input")
    t.add_argument("output")
    t.add_argument("--from", dest="from_format", choices=["csv", "mahimahi"], required=True)
    t.add_argument("--to", dest="to_format", choices=["csv", "mahimahi"], required=True)
    t.add_argument("--until", required=True, help="length to export, e.g. 60s")
    kc = sub.add_parser("kernel-compare", help="run the Linux TCP stack beside mmtsim on the same "
                        "emulated links (root; see docs/kernel-harness.md)")
    kc.add_argument("--traces", default=None, help="comma-separated cases (default: the whole trace set)")
    kc.add_argument("--cc", default="cubic,reno,bbr", help="comma-separated Linux algorithms")
    kc.add_argument("--duration", type=float, default=None, help="override every case's duration, s")
    kc.add_argument("--out", required=True, help="folder for results.json and results.md")
    return p


def _write_text(path: Path, text: str) -> None:
    """Writes a file whole: to a temporary name beside it, then renamed into place."""
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file name")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _print_flows(summary: dict) -> None:
    rows = [("flow", "cc", "goodput Mbit/s", "RTT per-ACK mean ms", "SRTT time mean ms",
             "RTT p95 ms", "retx", "RTOs")]
    for f in summary["flows"]:
        fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        rows.append((f["name"], f["cc"], fmt(f["goodput_mbps"]), fmt(f.get("rtt_mean_ms")),
                     fmt(f.get("srtt_time_mean_ms")),
                     fmt(f.get("rtt_p95_ms")), str(f.get("retransmits", 0)), str(f.get("rtos", 0))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
    # A flow split at a relay is two rows (its legs); its end-to-end figures are the second's.
    for f in summary["flows"]:
        relay = f.get("relay") or {}
        if relay.get("leg") == 2 and relay.get("end_to_end_delay_ms") is not None:
            name = f["name"].removesuffix(".leg2")
            held = relay.get("sojourn_mean_ms")
            # The sojourn is a relay's (bytes between two TCP legs); an mmCPTP proxy's
            # cache has none, and its line ends at the end-to-end delay.
            tail = "" if held is None else f"; the relay held a byte {held:.2f} ms on average"
            print(f"{name}: split at {relay['node']}: end to end {f['goodput_mbps']:.2f} Mbit/s, "
                  f"mean delay {relay['end_to_end_delay_ms']:.2f} ms{tail}")


# --- sweep summaries: `mmtsim summarize`, `mmtsim report` (python/mmtsim/summarize.py,
# report.py) -------------------------------------------------------------------------------

_SUMMARY_COMMANDS = ("summarize", "report")


def _add_summary_commands(sub) -> None:
    sm = sub.add_parser("summarize", help="mean and 95 %% CI of every metric per group of a sweep",
                        description="Aggregates the runs of a sweep folder per group: writes "
                                    "DIR/summary/ (metrics, per_run, ellipses, runs) and prints "
                                    "the main metrics. Exit 2: not a sweep folder or no finished "
                                    "run.")
    sm.add_argument("sweep_dir", metavar="DIR", help="sweep folder (written by mmtsim sweep)")
    sm.add_argument("--figures", action="store_true",
                    help="also draw the figures into DIR/summary/figures (PNG and SVG)")
    sm.add_argument("--quiet", action="store_true", help="print nothing but errors")
    rp = sub.add_parser("report", help="self-contained HTML report of a sweep folder",
                        description="Writes one HTML file (figures inlined) with the summary "
                                    "tables, bar charts, ellipses, time series, the runs left "
                                    "out and, given paper numbers, a paper-vs-mmtsim table.")
    rp.add_argument("sweep_dir", metavar="DIR", help="sweep folder (written by mmtsim sweep)")
    rp.add_argument("--out", help="HTML file to write (default DIR/report.html)")
    rp.add_argument("--paper", metavar="JSON",
                    help='published numbers {"group_id/[entity/]metric": value} '
                         "(default DIR/paper.json if it exists)")
    rp.add_argument("--timeseries", type=int, default=4, metavar="N",
                    help="time series of up to N runs, one per group (default 4)")


def _dispatch_summary(args) -> int:
    from .summarize import SweepError

    try:
        if args.cmd == "summarize":
            from .summarize import compute, format_summary, write

            summary = compute(Path(args.sweep_dir))
            folder = write(summary)
            files = []
            if args.figures:
                from .figures import write_figures

                files = write_figures(Path(args.sweep_dir), summary=summary)
            if not args.quiet:
                print(format_summary(summary))
                print(f"wrote {folder}/ (metrics.parquet, metrics.csv, per_run.parquet, "
                      f"ellipses.parquet, ellipses.csv, runs.csv)"
                      + (f" and {len(files)} figures" if files else ""))
            return EXIT_OK
        from .report import report

        if args.timeseries < 0:
            print("mmtsim: --timeseries must be 0 or more", file=sys.stderr)
            return EXIT_USAGE
        out = report(Path(args.sweep_dir), out=args.out, paper=args.paper,
                     timeseries=args.timeseries)
        print(f"wrote {out}")
        return EXIT_OK
    except SweepError as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_USAGE


# --- end of sweep summaries ---------------------------------------------------------------


# --- real-time emulation: `mmtsim emulate`, `mmtsim shell` (python/mmtsim/emulate.py) ------

_EMULATION_COMMANDS = ("emulate", "shell")


def _add_emulation_commands(sub) -> None:
    common = dict(description=(
        "Real programs' packets through the scenario, simulated at the wall clock's pace: "
        "the UE's side is the network namespace mmtsim-ue-PID (MMTSIM_UE=10.79.0.1), the "
        "server's side this host (MMTSIM_SERVER=10.79.0.2) or, with --server-cmd, its own "
        "namespace. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and /dev/net/tun; see "
        "docs/emulation.md. Writes a run folder (summary.json, tables, real_flows, "
        "emulation.json, tun.pcap; tun-server.pcap with --server-pcap)."))
    em = sub.add_parser("emulate", help="run COMMAND in the UE's namespace through the emulated "
                        "scenario (root; docs/emulation.md)",
                        usage="mmtsim emulate SCENARIO [options] -- COMMAND ...",
                        epilog="'$MMTSIM_SERVER' and '$MMTSIM_UE' in COMMAND (quoted, so that "
                               "your shell leaves them) become the two addresses. Exit code: "
                               "COMMAND's; 2 for bad input (nothing is written), 1 when the "
                               "driver fails or, with --strict, the lag bound is passed.",
                        **common)
    sh = sub.add_parser("shell", help="an interactive shell in the UE's namespace of the "
                        "emulated scenario (root; docs/emulation.md)", **common)
    for q in (em, sh):
        q.add_argument("scenario", help="scenario file (TOML or JSON)")
        q.add_argument("--ue", metavar="NAME", help="the scenario's UE that the UE side "
                       "stands for (default: the first)")
        q.add_argument("--server", metavar="NAME", help="the scenario's node that the server "
                       "side stands for (default: the far end of the UE's first flow)")
        q.add_argument("--server-cmd", metavar="CMD", help="run the server side in its own "
                       "namespace and start CMD there (a shell command, e.g. "
                       "'python3 -m http.server 8000'); it is ended at the end")
        q.add_argument("--out", metavar="DIR", help="run folder to write "
                       "(default out/emulate-DATE-TIME)")
        q.add_argument("--max-lag", metavar="DURATION", default="1ms",
                       help="how far the wall clock may run ahead of the simulation before a "
                            "warning (default 1ms)")
        q.add_argument("--strict", action="store_true",
                       help="stop with exit code 1 when the lag bound is passed")
        q.add_argument("--set", dest="overrides", action="append", default=[], type=_set,
                       metavar="KEY.PATH=VALUE", help="override a scenario value (repeatable)")
        q.add_argument("--seed", type=_seed, help="master seed of the simulated parts")
        q.add_argument("--duration", metavar="DURATION",
                       help="end the emulation after this long (overrides simulation.duration)")
        q.add_argument("--background", action="store_true",
                       help="run the scenario's own flows too, as simulated background traffic "
                            "(default: only the real packets)")
        q.add_argument("--cpu", type=int, metavar="N",
                       help="run the emulation's loop on CPU N only")
        q.add_argument("--server-pcap", action="store_true",
                       help="also write tun-server.pcap, the server side's device (doubles "
                            "the pcap writing)")
        q.add_argument("--no-offload", dest="offload", action="store_false",
                       help="TUN devices without the virtio-net header: one packet per read "
                            "and per write (slower; for comparison)")


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``emulate ... -- COMMAND ...``: the arguments before the first ``--`` and the command
    (``None`` without ``--``)."""
    if "--" not in argv:
        return argv, None
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def _emulation(args) -> int:
    import os
    import shutil

    from .emulate import Emulation, EmulationUnavailable, is_lag_exceeded

    if args.cmd == "emulate":
        command = args.command
        if not command:
            print("mmtsim: emulate needs a COMMAND after `--`, e.g. "
                  "`mmtsim emulate SCENARIO -- iperf3 -c $MMTSIM_SERVER` "
                  "(or `mmtsim shell SCENARIO` for a shell)", file=sys.stderr)
            return EXIT_USAGE
    else:
        command = [os.environ.get("SHELL") or "/bin/sh"]
    exe = command[0]
    if (os.sep in exe and not (os.path.isfile(exe) and os.access(exe, os.X_OK))) or \
            (os.sep not in exe and shutil.which(exe) is None):
        print(f"mmtsim: COMMAND {exe!r}: not found"
              + ("" if os.sep in exe else " on PATH"), file=sys.stderr)
        return EXIT_USAGE
    for flag, value in (("--max-lag", args.max_lag), ("--duration", args.duration)):
        if value is None:
            continue
        try:
            if not _core.parse_duration(value) > 0:
                raise ValueError("expected a positive duration")
        except ValueError as e:
            print(f"mmtsim: {flag} {value!r}: {e}", file=sys.stderr)
            return EXIT_USAGE
    cpus = os.cpu_count() or 1
    if args.cpu is not None and not 0 <= args.cpu < cpus:
        print(f"mmtsim: --cpu {args.cpu}: expected a CPU number from 0 to {cpus - 1}", file=sys.stderr)
        return EXIT_USAGE
    em = Emulation(args.scenario, ue=args.ue, server=args.server, out=args.out,
                   server_cmd=args.server_cmd, max_lag=args.max_lag, strict=args.strict,
                   overrides=args.overrides, seed=args.seed, duration=args.duration,
                   background=args.background, cpu=args.cpu, offload=args.offload,
                   server_pcap=args.server_pcap)
    # `$MMTSIM_SERVER` quoted on the command line reaches us unexpanded: the variables are
    # the command's, not the caller's shell's, so they are filled in here.
    values = {"MMTSIM_SERVER": em.server_addr, "MMTSIM_UE": em.ue_addr}
    for name, value in values.items():
        command = [a.replace("${" + name + "}", value).replace("$" + name, value)
                   for a in command]
    em.command = command
    failure = None
    try:
        with em:
            where = (f"namespace {em.server_ns}" if em.server_ns else "this host")
            print(f"mmtsim: emulating {args.scenario}: UE {em.ue_name} = {em.ue_addr} "
                  f"(namespace {em.ue_ns}), server {em.server_name} = {em.server_addr} "
                  f"({where})" + ("; exit the shell to end" if args.cmd == "shell" else ""),
                  file=sys.stderr)
            rc = em.run_in_ue(command).returncode
    except EmulationUnavailable as e:
        print(f"mmtsim: {args.cmd}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except _core.SimulationError as e:
        if em.result is None:
            raise
        failure = e
    _print_emulation(em)  # its warnings say if the command was stopped, and why
    if failure is not None:
        what = "stopped: the lag bound was passed (--strict)" if is_lag_exceeded(failure) \
            else "failed"
        print(f"mmtsim: emulation {what}: {failure}", file=sys.stderr)
        return EXIT_FAIL
    return 128 - rc if rc < 0 else rc


def _print_emulation(em) -> None:
    """The end summary (stderr: stdout is the command's): real flows, lag, the folder."""
    from .emulate import percentiles_ms, real_flows

    res, report = em.result, em.report or {}
    if res is None:
        return
    err = sys.stderr
    flows = real_flows(res)
    if not flows:
        print("mmtsim: no real flow crossed the emulated network", file=err)
    fmt = lambda x, d=1: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
    for f in flows:
        print(f"real {f['src']}:{f['src_port']} → {f['dst']}:{f['dst_port']} "
              f"{f['direction']}: {fmt(f['goodput_mbps'])} Mbit/s, RTT p50 "
              f"{fmt(f['rtt_p50_ms'], 2)} ms, {f['bytes']} bytes, "
              f"{f['retransmitted_segments'] if f['retransmitted_segments'] is not None else '-'}"
              " segments retransmitted", file=err)
    lag_report = report.get("lag") if isinstance(report.get("lag"), dict) else {}
    for what, d in (("lag behind the wall clock", lag_report.get("turns", lag_report)),
                    ("lateness of delivered packets", report.get("lateness"))):
        q = percentiles_ms(d)
        if q:
            print(f"{what}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in q.items()), file=err)
    for w in report.get("warnings") or []:
        print(f"mmtsim: warning: {w}", file=err)
    print(f"wrote {em.out} (summary.json, tables, emulation.json"
          + "".join(f", {p}" for p in ("tun.pcap", "tun-server.pcap") if (em.out / p).exists())
          + (", server.log" if (em.out / "server.log").exists() else "") + ")", file=err)


# --- end of real-time emulation ---------------------------------------------------------


def _add_reproduce_command(sub) -> None:
    from .reproduce import REPRODUCTIONS

    rp = sub.add_parser("reproduce", help="reproduce a paper's study: sweep, summary, report",
                        description="Runs a packaged reproduction (" + ", ".join(REPRODUCTIONS)
                                    + ") as a resumable sweep, then writes DIR/report.html with "
                                    "the paper's numbers next to ours and prints the paper's "
                                    "findings, each checked.")
    rp.add_argument("name", metavar="NAME", nargs="?",
                    help="one of: " + ", ".join(REPRODUCTIONS))
    rp.add_argument("--list", action="store_true",
                    help="name every reproduction with its paper, figures and default runs")
    rp.add_argument("--out", help="folder (default out/NAME)")
    rp.add_argument("--runs", type=int, help="seeds per group (default: the paper's)")
    rp.add_argument("--duration", help="shorten every run, e.g. 10s (quick checks only)")
    rp.add_argument("--workers", type=int, help="parallel runs (default: all cores)")
    rp.add_argument("--dask", metavar="ADDRESS", help="run on a Dask distributed scheduler")
    rp.add_argument("--no-timeseries", action="store_true",
                    help="skip the time-series runs and figures")
    rp.add_argument("--quiet", action="store_true", help="no progress bar")


def _reproduce(args) -> int:
    from .reproduce import (REPRODUCTIONS, ReproduceError, format_findings, format_list,
                            reproduce)
    from .sweep import SweepBusyError, SweepFileError

    if args.list:
        if args.name is not None:
            print("mmtsim: reproduce --list takes no NAME", file=sys.stderr)
            return EXIT_USAGE
        print(format_list())
        return EXIT_OK
    if args.name is None:
        print("mmtsim: reproduce needs a NAME (or --list); known: "
              + ", ".join(REPRODUCTIONS), file=sys.stderr)
        return EXIT_USAGE
    if args.name not in REPRODUCTIONS:
        print(f"mmtsim: unknown reproduction {args.name!r}; known: "
              + ", ".join(REPRODUCTIONS), file=sys.stderr)
        return EXIT_USAGE
    if args.workers is not None and args.dask is not None:
        print("mmtsim: --workers and --dask exclude each other", file=sys.stderr)
        return EXIT_USAGE
    if args.duration is not None:
        try:
            if _core.parse_duration(args.duration) <= 0:
                raise ValueError("expected a positive duration")
        except ValueError as e:
            print(f"mmtsim: --duration {args.duration!r}: {e}", file=sys.stderr)
            return EXIT_USAGE
    try:
        res = reproduce(args.name, out=args.out, runs=args.runs, workers=args.workers,
                        dask=args.dask, duration=args.duration,
                        progress=not args.quiet and sys.stderr.isatty(),
                        timeseries=not args.no_timeseries)
    except (ReproduceError, SweepFileError) as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SweepBusyError as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_FAIL
    print(format_findings(res))
    return EXIT_OK if res.sweep.n_failed == 0 else EXIT_FAIL


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["trace", "import"]:  # its own parser: `trace` keeps positional IN OUT
        from .trace_import import add_import_parser

        args = add_import_parser(_Parser).parse_args(argv[2:])
        args.cmd = "trace-import"
    elif argv[:1] == ["emulate"]:  # everything after `--` is the command, untouched
        before, command = _split_command(argv)
        args = build_parser().parse_args(before)
        args.command = command
    else:
        args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except _core.ScenarioError as e:
        print(f"mmtsim: invalid scenario:\n{e}", file=sys.stderr)
        return EXIT_USAGE
    except _core.Cancelled:
        print("mmtsim: cancelled", file=sys.stderr)
        return EXIT_FAIL
    except _core.MmtsimError as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as e:
        # Paths given on the command line: name the path and the problem in words.
        from .errors import describe_os_error

        print(f"mmtsim: {describe_os_error(e)}", file=sys.stderr)
        return EXIT_FAIL if e.errno in _IO_FAILURES else EXIT_USAGE
    except ValueError as e:
        # Bad values given on the command line (the scenario has its own errors).
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("mmtsim: interrupted", file=sys.stderr)
        return 130


def _dispatch(args) -> int:
    if args.cmd in _OUT_FOLDERS and getattr(args, "out", None):
        from .errors import check_output_folder

        check_output_folder(args.out)
    if args.cmd == "reproduce":
        return _reproduce(args)
    if args.cmd == "trace-import":
        from .trace_import import import_command

        return import_command(args)
    if args.cmd == "kernel-compare":
        return _kernel_compare(args)
    if args.cmd in _EMULATION_COMMANDS:
        return _emulation(args)
    if args.cmd in _SUMMARY_COMMANDS:
        return _dispatch_summary(args)
    if args.cmd == "run":
        from .api import run

        res = run(args.scenario, seed=args.seed, overrides=args.overrides, out=args.out,
                  progress=not args.quiet and sys.stderr.isatty())
        if not args.quiet:
            s = res.summary
            print(f"{args.out}: {s['sim_seconds']:g} s simulated in {s['wall_seconds']:.2f} s "
                  f"({s['events']} events, seed {s['seed']})")
            _print_flows(s)
        for notice in res.summary.get("notices", []):
            print(f"mmtsim: note: {notice}", file=sys.stderr)
        return EXIT_OK
    if args.cmd == "validate":
        from .api import validate

        sc = validate(args.scenario, overrides=args.overrides)
        print(f"{args.scenario}: ok ({len(sc['nodes'])} nodes, {len(sc['links'])} links, "
              f"{len(sc['flows'])} flows, {sc['simulation']['duration']})")
        return EXIT_OK
    if args.cmd == "plot":
        from .plot import plot_run

        files = plot_run(Path(args.run_dir), Path(args.out) if args.out else None)
        for f in files:
            print(f)
        return EXIT_OK
    if args.cmd == "bench":
        from .bench import BENCHMARKS, GROUPS, SLOWER_LIMIT, run_benchmarks, select

        if args.list:
            for name, b in BENCHMARKS.items():
                base = f" [baseline {b['baseline']}]" if "baseline" in b else ""
                print(f"{name}: {b['description']}{base}")
            for g, members in GROUPS.items():
                print(f"group {g}: {', '.join(members)}")
            return EXIT_OK
        try:
            names = select(args.names + args.only, args.group)
        except KeyError as e:
            print(f"mmtsim: {e.args[0]}", file=sys.stderr)
            return EXIT_USAGE
        if args.repeat < 1:
            print("mmtsim: --repeat must be at least 1", file=sys.stderr)
            return EXIT_USAGE
        results = run_benchmarks(names, repeat=args.repeat)
        results["groups"] = args.group
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
        for r in results["benchmarks"]:
            line = (f"{r['name']}: {r['sim_s_per_wall_s']:.1f} sim s/wall s, "
                    f"{r['events'] / 1e6:.1f} M events ({r['events_per_s'] / 1e6:.2f} M/s), "
                    f"{r['peak_rss_mb']:.0f} MB peak")
            if "speed_vs_baseline" in r:
                ratio = r["speed_vs_baseline"]
                line += f", {ratio:.2f}x the speed of {r['baseline']}"
                if ratio < SLOWER_LIMIT:
                    line += f" (more than {1 / SLOWER_LIMIT:g}x slower)"
            print(line)
        print(f"wrote {args.out}")
        return EXIT_OK
    if args.cmd == "sweep":
        return _sweep(args)
    if args.cmd == "keys":
        from .keys import UnknownPrefix, format_keys, scenario_keys

        try:
            print(format_keys(scenario_keys(args.prefix)))
        except UnknownPrefix as e:
            print(f"mmtsim: {e}", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_OK
    if args.cmd == "schema":
        text = _core.schema()
        if args.out:
            _write_text(Path(args.out), text + "\n")
        else:
            print(text)
        return EXIT_OK
    if args.cmd == "trace":
        try:
            until = _core.parse_duration(args.until)
        except ValueError as e:
            print(f"mmtsim: --until {args.until!r}: {e}", file=sys.stderr)
            return EXIT_USAGE
        try:
            raw = Path(args.input).read_bytes()
        except OSError as e:
            from .errors import describe_os_error

            print(f"mmtsim: {describe_os_error(e, args.input)}", file=sys.stderr)
            return EXIT_USAGE
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"mmtsim: {args.input}: not a text trace (byte {e.start} is not UTF-8); "
                  f"expected CSV or Mahimahi text", file=sys.stderr)
            return EXIT_USAGE
        try:
            out = _core.convert_trace(text, args.from_format, args.to_format, until)
        except _core.ScenarioError as e:
            print(f"mmtsim: {args.input} ({args.from_format}): {e}", file=sys.stderr)
            return EXIT_USAGE
        _write_text(Path(args.output), out)
        return EXIT_OK
    raise AssertionError(args.cmd)


def _kernel_compare(args) -> int:
    from .kernel import CaseError, KernelUnavailable, compare_cases, list_cases

    cases = args.traces.split(",") if args.traces else list_cases()
    if args.duration is not None and not args.duration > 0:
        print(f"mmtsim: --duration {args.duration}: expected a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        compare_cases(cases, [c for c in args.cc.split(",") if c], out=Path(args.out),
                      duration_s=args.duration)
    except (KernelUnavailable, CaseError) as e:
        print(f"mmtsim: kernel-compare: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {Path(args.out) / 'results.json'} and {Path(args.out) / 'results.md'}")
    return EXIT_OK


def _sweep(args) -> int:
    from .sweep import SweepBusyError, SweepFileError, sweep

    if args.workers is not None and args.dask is not None:
        print("mmtsim: --workers and --dask exclude each other (the cluster has its own workers)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        res = sweep(args.sweep_file, args.out, workers=args.workers, dask=args.dask,
                    progress=not args.quiet and sys.stderr.isatty())
    except SweepFileError as e:
        print(f"mmtsim: invalid sweep file {e}", file=sys.stderr)
        return EXIT_USAGE
    except SweepBusyError as e:
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_FAIL
    except ImportError as e:  # --dask without the distributed package
        print(f"mmtsim: {e}", file=sys.stderr)
        return EXIT_USAGE
    for rid in res.failed[:10]:
        f = res.out / "failed" / f"{rid}.json"
        try:
            d = json.loads(f.read_text())
            why = f"{d['group_id']}, seed {d['seed']}" + (
                f", replicate {d['replicate']}" if d["replicate"] is not None else "")
            print(f"mmtsim: run {rid} ({why}) failed: {d['error_type']}: {d['error']}",
                  file=sys.stderr)
        except (OSError, ValueError, KeyError):
            print(f"mmtsim: run {rid} failed (see {f})", file=sys.stderr)
    if len(res.failed) > 10:
        print(f"mmtsim: ... and {len(res.failed) - 10} more failed runs in {res.out / 'failed'}",
              file=sys.stderr)
    print(res)
    return EXIT_FAIL if res.failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
