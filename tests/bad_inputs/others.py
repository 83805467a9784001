"""Bad command-line flags, Python arguments, trace files, sweep files and run folders.

CLI cases: (id, argv with ``{sc}`` the small scenario, ``{dir}`` a scratch folder, ``{run}``
a finished run folder; fragments the message must contain). Every CLI case must exit with
code 2 and write nothing under ``{dir}``.
"""

CLI = [
    ("run-no-out", ["run", "{sc}"], ["--out", "required"]),
    ("run-seed-text", ["run", "{sc}", "--out", "{dir}/o", "--seed", "x1"], ["--seed", "x1", "whole number"]),
    ("run-seed-too-large", ["run", "{sc}", "--out", "{dir}/o", "--seed", str(2**64)], ["--seed", str(2**64), "2**64-1"]),
    ("run-set-without-equals", ["run", "{sc}", "--out", "{dir}/o", "--set", "flows.0.cc"], ["--set", "flows.0.cc", "key.path=value"]),
    ("run-set-empty-key", ["run", "{sc}", "--out", "{dir}/o", "--set", "=cubic"], ["--set", "=cubic", "key.path=value"]),
    ("run-set-unknown-key", ["run", "{sc}", "--out", "{dir}/o", "--set", "flows.0.ccc=cubic"], ["flows[0]", "ccc", "cc"]),
    ("run-set-index-out-of-range", ["run", "{sc}", "--out", "{dir}/o", "--set", "links.4.rate=1Mbps"], ["links.4.rate", "out of range"]),
    ("run-set-bad-value", ["run", "{sc}", "--out", "{dir}/o", "--set", "links.0.rate=fast"], ["links[0].rate", "fast"]),
    ("run-out-is-a-file", ["run", "{sc}", "--out", "{sc}"], ["--out", "is a file", "folder"]),
    ("run-out-under-a-file", ["run", "{sc}", "--out", "{sc}/sub"], ["--out", "is a file"]),
    ("run-missing-scenario", ["run", "{dir}/nope.toml", "--out", "{dir}/o"], ["nope.toml", "does not exist"]),
    ("run-scenario-is-a-folder", ["run", "{dir}", "--out", "{dir}/o"], ["is a folder"]),
    ("run-unknown-flag", ["run", "{sc}", "--out", "{dir}/o", "--sed", "1"], ["--sed"]),
    ("unknown-subcommand", ["rnu", "{sc}"], ["rnu", "run"]),
    ("validate-missing", ["validate", "{dir}/nope.toml"], ["nope.toml", "does not exist"]),
    ("validate-bad-set", ["validate", "{sc}", "--set", "simulation.duration=0s"], ["simulation.duration", "0s"]),
    ("plot-not-a-run", ["plot", "{dir}"], ["no summary.json"]),
    ("plot-missing", ["plot", "{dir}/nope"], ["nope"]),
    ("trace-unknown-from", ["trace", "{sc}", "{dir}/o", "--from", "pcap", "--to", "csv"], ["--from", "pcap"]),
    ("trace-unknown-to", ["trace", "{sc}", "{dir}/o", "--from", "csv", "--to", "json"], ["--to", "json"]),
    ("trace-until-no-unit", ["trace", "{sc}", "{dir}/o", "--from", "csv", "--to", "csv", "--until", "60"], ["--until", "60"]),
    ("trace-missing-input", ["trace", "{dir}/none.csv", "{dir}/o", "--from", "csv", "--to", "csv", "--until", "1s"], ["none.csv", "does not exist"]),
    ("sweep-missing-file", ["sweep", "{dir}/none.toml", "--out", "{dir}/o"], ["none.toml"]),
    ("sweep-workers-zero", ["sweep", "{sc}", "--out", "{dir}/o", "--workers", "0"], ["--workers", "0", "at least 1"]),
    ("sweep-workers-and-dask", ["sweep", "{sc}", "--out", "{dir}/o", "--workers", "2", "--dask", "x:1"], ["--workers", "--dask"]),
    ("summarize-not-a-sweep", ["summarize", "{dir}"], ["{dir}", "sweep.json"]),
    ("report-not-a-sweep", ["report", "{dir}"], ["{dir}", "sweep.json"]),
    ("reproduce-unknown", ["reproduce", "xtcp-outgae", "--out", "{dir}/o"], ["xtcp-outgae", "xtcp-outage"]),
    ("reproduce-runs-zero", ["reproduce", "xtcp-outage", "--runs", "0", "--out", "{dir}/o"], ["runs", "0", "positive"]),
    ("bench-unknown", ["bench", "no-such-bench", "--out", "{dir}/b.json"], ["no-such-bench"]),
    ("bench-repeat-zero", ["bench", "--repeat", "0", "--out", "{dir}/b.json"], ["--repeat", "at least 1"]),
]

#: Python API cases: (id, code to evaluate with ``mmtsim`` and ``sc`` (the small scenario's
#: path) in scope, exception type name, fragments of its message).
API = [
    ("run-scenario-int", "mmtsim.run(42)", "TypeError", ["path or a dict"]),
    ("run-seed-negative", "mmtsim.run(sc, seed=-3)", "ValueError", ["seed", "-3"]),
    ("run-seed-float", "mmtsim.run(sc, seed=1.5)", "ValueError", ["seed", "1.5"]),
    ("run-overrides-string", "mmtsim.run(sc, overrides='flows.0.cc=bbr')", "TypeError", ["overrides", "list"]),
    ("run-override-unknown-key", "mmtsim.run(sc, overrides={'flows.0.ccc': 'bbr'})", "ScenarioError", ["ccc"]),
    ("run-override-object", "mmtsim.run(sc, overrides={'x': object()})", "ScenarioError", ["overrides", "x"]),
    ("validate-dict-missing-nodes", "mmtsim.validate({'simulation': {'duration': '1s'}})", "ScenarioError", ["<dict>", "nodes"]),
    ("validate-dict-nan-duration", "mmtsim.validate({'simulation': {'duration': float('nan')}})", "ScenarioError", ["simulation.duration"]),
    ("read-run-missing", "mmtsim.read_run(sc + '.nope')", "RunFolderError", ["nope"]),
    ("cc-unknown-algorithm", "mmtsim.cc.CongestionControl('cubicc')", "ValueError", ["cubicc"]),
    ("cc-mss-zero", "mmtsim.cc.CongestionControl('cubic', mss=0)", "ValueError", ["mss", "0"]),
    ("cc-negative-acked", "mmtsim.cc.CongestionControl('cubic').on_ack(now=0.1, acked=-1)", "ValueError", ["acked", "-1"]),
    ("cc-nan-rtt", "mmtsim.cc.CongestionControl('cubic').on_ack(now=0.1, acked=1, rtt=float('nan'))", "ValueError", ["rtt"]),
    ("cc-grant-duty-above-one", "mmtsim.cc.CongestionControl('xtcp').set_link_view([(0.001, 100, 28, 14, 1e-4, 1.0, 2.0)], sinr_db=10.0)", "ValueError", ["grants[0].duty", "2", "(0, 1]"]),
    ("cc-grants-out-of-order", "mmtsim.cc.CongestionControl('xtcp').set_link_view([(0.002, 100, 28, 14, 1e-4), (0.001, 100, 28, 14, 1e-4)], sinr_db=10.0)", "ValueError", ["grants[1].time_s", "oldest first"]),
]

#: Trace files converted with ``mmtsim trace FILE OUT --from FORMAT --to mahimahi``: (id,
#: format, bytes of the file, fragments).
TRACES = [
    ("csv-all-zero", "csv", b"time_s,rate_mbps\n0,0\n5,0\n", ["delivers nothing", "every rate is 0"]),
    ("csv-bom", "csv", b"\xef\xbb\xbftime_s,rate_mbps\n0,10\n", ["line 1", "<U+FEFF>time_s", "byte-order mark"]),
    ("csv-zero-width-space", "csv", "time_s,rate_mbps\n0,1\u200b0\n".encode(), ["line 2", "1<U+200B>0", "invisible"]),
    ("csv-no-space", "csv", "time_s,rate_mbps\n0,1\u00a00\n".encode(), ["line 2", "1<U+00A0>0"]),
    ("csv-binary", "csv", bytes(range(200, 256)), ["not a text trace", "UTF-8"]),
    ("csv-no-header", "csv", b"0,10\n1,20\n", ["line 1", "time_s"]),
    ("csv-unknown-unit", "csv", b"time_s,rate_tbps\n0,10\n", ["line 1", "rate_tbps", "rate_mbps"]),
    ("csv-negative-rate", "csv", b"time_s,rate_mbps\n0,-10\n", ["line 2", "-10", "negative"]),
    ("csv-text-rate", "csv", b"time_s,rate_mbps\n0,ten\n", ["line 2", "ten", "not a number"]),
    ("csv-time-going-back", "csv", b"time_s,rate_mbps\n0,10\n2,5\n1,5\n", ["line 4"]),
    ("csv-not-starting-at-zero", "csv", b"time_s,rate_mbps\n1,10\n", ["line 2"]),
    ("csv-empty", "csv", b"", ["time_s"]),
    ("mahimahi-text", "mahimahi", b"1\n2\nthree\n", ["line 3", "three"]),
    ("mahimahi-decreasing", "mahimahi", b"5\n3\n", ["line 2"]),
    ("mahimahi-empty", "mahimahi", b"", ["empty"]),
]

#: Sweep files (TOML), with ``{sc}`` the small scenario's path: (id, text, fragments).
SWEEPS = [
    ("no-base", 'seeds = 1\n', ["base", "missing"]),
    ("base-missing-file", 'base = "{dir}/none.toml"\nseeds = 1\n', ["none.toml"]),
    ("seeds-zero", 'base = "{sc}"\nseeds = 0\n', ["seeds", "0"]),
    ("seeds-text", 'base = "{sc}"\nseeds = "three"\n', ["seeds", "three"]),
    ("unknown-top-key", 'base = "{sc}"\nseeds = 1\nsede = 2\n', ["sede"]),
    ("axis-without-key", 'base = "{sc}"\nseeds = 1\n[[axes]]\nname = "cc"\nvalues = ["cubic"]\n', ["axes[0]", "key"]),
    ("axis-empty-values", 'base = "{sc}"\nseeds = 1\n[[axes]]\nname = "cc"\nkey = "flows.0.cc"\nvalues = []\n', ["axes[0].values"]),
    ("axis-bad-value", 'base = "{sc}"\nseeds = 1\n[[axes]]\nname = "cc"\nkey = "flows.0.cc"\nvalues = ["cubicc"]\n', ["cubicc"]),
    ("axis-reserved-name", 'base = "{sc}"\nseeds = 1\n[[axes]]\nname = "seed"\nkey = "flows.0.cc"\nvalues = ["cubic"]\n', ["seed", "reserved"]),
    ("not-toml", 'base = "{sc}\n', ["TOML"]),
]

#: Damaged run folders given to ``mmtsim plot``: (id, what to do to a good run folder,
#: fragments).
RUN_FOLDERS = [
    ("corrupt-parquet", ("write", "rtt.parquet", b"garbage"), ["rtt.parquet", "not a valid Parquet file"]),
    ("empty-parquet", ("write", "goodput.parquet", b""), ["goodput.parquet", "not a valid Parquet file"]),
    ("missing-table", ("delete", "cwnd.parquet", None), ["cwnd.parquet", "missing"]),
    ("corrupt-summary", ("write", "summary.json", b"{not json"), ["summary.json", "not a valid run summary"]),
    ("summary-not-an-object", ("write", "summary.json", b"[1, 2]"), ["summary.json", "not a valid run summary"]),
    ("wrong-columns", ("swap", "rtt.parquet", "queue.parquet"), ["rtt.parquet", "missing column"]),
]
