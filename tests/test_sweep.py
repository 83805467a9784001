"""`mmtsim sweep`: grid expansion, run ids, the output layout, resuming after a kill,
failed runs, Dask against threads, and bad sweep files.

Scenario: a wired dumbbell (two senders, 100 Mbit/s bottleneck, 1 s), with a little
random loss on the bottleneck so that the seed changes the results."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mmtsim
from mmtsim import cli

sweep_mod = importlib.import_module("mmtsim.sweep")  # `mmtsim.sweep` is the function

BASE = """
[simulation]
duration = "1s"

[[nodes]]
name = "s1"
[[nodes]]
name = "s2"
[[nodes]]
name = "r"
[[nodes]]
name = "c"

[[links]]
between = ["s1", "r"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["s2", "r"]
rate = "1Gbps"
delay = "1ms"
[[links]]
name = "bottleneck"
between = ["r", "c"]
rate = "100Mbps"
delay = "10ms"
queue = { limit = "250kB" }
loss = { kind = "bernoulli", p = 0.0005 }

[[flows]]
from = "s1"
to = "c"
cc = "cubic"
[[flows]]
from = "s2"
to = "c"
cc = "cubic"
"""

# 2 values x 2 variants = 4 groups; 3 seeds x 2 replicates = 6 runs per group; 24 runs.
GRID = """
base = "base.toml"
seeds = 3
set = { "simulation.duration" = "1s" }

[[axes]]
name = "cc"
key = "flows.0.cc"
values = ["cubic", "newreno"]

[[axes]]
name = "mix"
variants = [
    { label = "slow", set = { "links.2.rate" = "50Mbps", "links.2.delay" = "20ms" } },
    { label = "fast", set = { "links.2.rate" = "100Mbps" } },
]

[[replicates]]
name = "plain"
set = {}

[[replicates]]
name = "swapped"
set = { "flows.1.start" = "10ms" }
"""

SMALL = """
base = "base.toml"
seeds = 2

[[axes]]
name = "cc"
key = "flows.0.cc"
values = ["cubic", "newreno"]
"""


def write(tmp_path: Path, sweep_text: str, name: str = "sweep.toml") -> Path:
    (tmp_path / "base.toml").write_text(BASE)
    p = tmp_path / name
    p.write_text(sweep_text)
    return p


def run_id_by_definition(base: Path, overrides: list[str], seed: int) -> str:
    """The run id as ``mmtsim.sweep`` defines it (module doc, "Run identity and the output
    folder"): first 16 hex digits of sha256 over the canonical JSON (sorted
    keys) of {scenario: mmtsim.validate(base, overrides), seed, version}."""
    doc = {"scenario": mmtsim.validate(base, overrides), "seed": seed,
           "version": mmtsim.__version__}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def without_wall(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_seconds"}


# ---------------------------------------------------------------------------------------
# Expansion and ids


def test_grid_expansion_axes_seeds_replicates(tmp_path: Path):
    plan = sweep_mod.load_sweep(write(tmp_path, GRID))
    assert plan.group_keys == ["cc", "mix"]
    # 2 cc values x 2 mix variants x 3 seeds x 2 replicates.
    assert len(plan.runs) == 2 * 2 * 3 * 2
    groups = {}
    for r in plan.runs:
        groups.setdefault(r.group_id, []).append(r)
    # First axis slowest; group_id = axis=label in file order; replicates not in the group.
    assert list(groups) == ["cc=cubic,mix=slow", "cc=cubic,mix=fast",
                            "cc=newreno,mix=slow", "cc=newreno,mix=fast"]
    for gid, runs in groups.items():
        assert len(runs) == 6
        assert {(r.seed, r.replicate) for r in runs} == {
            (s, rep) for s in (1, 2, 3) for rep in ("plain", "swapped")}
        cc, mix = (part.split("=")[1] for part in gid.split(","))
        assert all(r.group == {"cc": cc, "mix": mix} for r in runs)
    # Overrides: `set`, then the axes in order, then the replicate.
    r = next(r for r in plan.runs if r.group_id == "cc=newreno,mix=slow"
             and r.seed == 2 and r.replicate == "swapped")
    assert r.overrides == ['simulation.duration="1s"', 'flows.0.cc="newreno"',
                           'links.2.rate="50Mbps"', 'links.2.delay="20ms"',
                           'flows.1.start="10ms"']
    # Every run id is the definition's, and all 24 differ (different seeds → different ids).
    for r in plan.runs:
        assert r.run_id == run_id_by_definition(tmp_path / "base.toml", r.overrides, r.seed)
    assert len({r.run_id for r in plan.runs}) == 24
    m = plan.manifest()
    assert set(m) == {"mmtsim_version", "sweep_file", "base", "group_keys", "runs"}
    assert set(m["runs"][0]) == {"run_id", "group", "group_id", "seed", "replicate", "overrides"}
    assert m["base"] == str(tmp_path / "base.toml")


def test_identical_resolved_scenarios_get_identical_ids(tmp_path: Path):
    a = sweep_mod.load_sweep(write(tmp_path, SMALL))
    # The same runs written differently: an inline base, a seed list in another order, a
    # variant axis instead of a key axis, and "cubic" set explicitly (the base's value).
    import tomllib

    from mmtsim import _toml

    base_table = tomllib.loads(BASE)
    b_text = f"""
seeds = [2, 1]
[[axes]]
name = "flow0"
variants = [
    {{ label = "reno", set = {{ "flows[0].cc" = "newreno" }} }},
    {{ label = "cubic", set = {{ "flows.0.cc" = "cubic", "flows.1.cc" = "cubic" }} }},
]
[base]
""" + "".join(f"{k} = {_toml.value(v, k)}\n" for k, v in base_table.items())
    (tmp_path / "b").mkdir()
    b = sweep_mod.load_sweep(write(tmp_path / "b", b_text))
    key_a = {(r.group["cc"], r.seed): r.run_id for r in a.runs}
    key_b = {({"reno": "newreno"}.get(r.group["flow0"], "cubic"), r.seed): r.run_id
             for r in b.runs}
    assert key_a == key_b
    assert len(set(key_a.values())) == 4
    # A sweep without axes is one group "base"; its seed-1 run is a's cubic seed-1 run.
    (tmp_path / "c").mkdir()
    c = sweep_mod.load_sweep(write(tmp_path / "c", 'base = "base.toml"\nseeds = [1]\n'))
    assert [(r.group, r.group_id, r.replicate) for r in c.runs] == [({}, "base", None)]
    assert c.runs[0].run_id == key_a[("cubic", 1)]


def test_the_example_sweep_expands():
    from conftest import EXAMPLES

    plan = sweep_mod.load_sweep(EXAMPLES / "sweeps" / "sweep-cc.toml")
    # 3 uplink CCs x 2 downlink variants = 6 groups; 2 seeds x 2 replicates each.
    assert plan.group_keys == ["ul", "dl"]
    assert len({r.group_id for r in plan.runs}) == 6 and len(plan.runs) == 6 * 2 * 2
    assert plan.base == str(EXAMPLES / "nr-fr2.toml")


# ---------------------------------------------------------------------------------------
# Running


def test_local_sweep_writes_the_contract_layout_and_skips_done_runs(tmp_path: Path):
    sw = write(tmp_path, SMALL)
    out = tmp_path / "out"
    res = mmtsim.sweep(sw, out, workers=2, progress=False)
    assert (res.n_finished, res.n_skipped, res.n_failed) == (4, 0, 0) and res.ok
    manifest = json.loads((out / "sweep.json").read_text())
    ids = [r["run_id"] for r in manifest["runs"]]
    assert ids == res.run_ids and sorted(res.finished) == sorted(ids)
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(ids)
    assert not (out / "failed").exists() and not (out / ".staging").exists()

    # A run folder holds what mmtsim.run(..., out=...) writes, plus params.json.
    entry = manifest["runs"][-1]  # newreno, seed 2
    ref = tmp_path / "ref"
    mmtsim.run(tmp_path / "base.toml", seed=entry["seed"], overrides=entry["overrides"], out=ref)
    folder = out / "runs" / entry["run_id"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [p.name for p in ref.iterdir()] + ["params.json"])
    got = json.loads((folder / "summary.json").read_text())
    want = json.loads((ref / "summary.json").read_text())
    assert without_wall(got) == without_wall(want)
    params = json.loads((folder / "params.json").read_text())
    assert set(params) == {"run_id", "group", "group_id", "seed", "replicate", "overrides",
                           "scenario_sha256", "mmtsim_version", "wall_seconds"}
    assert params["group"] == {"cc": "newreno"} and params["group_id"] == "cc=newreno"
    assert (params["seed"], params["replicate"]) == (2, None)
    resolved = mmtsim.validate(tmp_path / "base.toml", entry["overrides"])
    assert params["scenario_sha256"] == hashlib.sha256(
        json.dumps(resolved, sort_keys=True, separators=(",", ":")).encode()).hexdigest()

    # Again: nothing runs, nothing is rewritten.
    inodes = {p.name: (p.stat().st_ino, (p / "params.json").stat().st_mtime_ns)
              for p in (out / "runs").iterdir()}
    again = mmtsim.sweep(sw, out, workers=2, progress=False)
    assert (again.n_finished, again.n_skipped, again.n_failed) == (0, 4, 0)
    assert inodes == {p.name: (p.stat().st_ino, (p / "params.json").stat().st_mtime_ns)
                      for p in (out / "runs").iterdir()}


def test_dask_cluster_gives_the_same_results_as_threads(tmp_path: Path, capsys):
    distributed = pytest.importorskip("distributed")
    import polars as pl

    sw = write(tmp_path, SMALL)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        code = cli.main(["sweep", str(sw), "--out", str(tmp_path / "dask"), "--quiet",
                         "--dask", cluster.scheduler_address])
    assert code == 0, capsys.readouterr().err
    assert "4 runs: 4 finished, 0 skipped (already done), 0 failed" in capsys.readouterr().out
    local = mmtsim.sweep(sw, tmp_path / "threads", workers=1, progress=False)
    assert local.n_finished == 4
    goodputs = set()
    for rid in local.run_ids:
        a, b = tmp_path / "dask" / "runs" / rid, tmp_path / "threads" / "runs" / rid
        sa = json.loads((a / "summary.json").read_text())
        sb = json.loads((b / "summary.json").read_text())
        assert without_wall(sa) == without_wall(sb)
        for t in ("goodput", "rtt", "cwnd", "queue"):
            assert pl.read_parquet(a / f"{t}.parquet").equals(pl.read_parquet(b / f"{t}.parquet"))
        goodputs.add(tuple(f["goodput_mbps"] for f in sa["flows"]))
    # The comparison is not trivial: the seeds (and CCs) give four different outcomes.
    assert len(goodputs) == 4


KILL = """
base = "base.toml"
seeds = 4
# About 0.4 s of work per run at 1 Gbit/s, so that the sweep is still going when killed.
set = { "simulation.duration" = "8s", "links.2.rate" = "1Gbps", "links.2.queue.limit" = "2.5MB" }

[[axes]]
name = "cc"
key = "flows.0.cc"
values = ["cubic", "newreno"]
"""


def _state(out: Path) -> dict[str, tuple[int, int, float]]:
    """run folder → (inode, params.json mtime, wall_seconds)."""
    st = {}
    for p in (out / "runs").iterdir():
        params = json.loads((p / "params.json").read_text())
        st[p.name] = (p.stat().st_ino, (p / "params.json").stat().st_mtime_ns,
                      params["wall_seconds"])
    return st


def test_killed_sweep_resumes_without_losing_or_repeating_runs(tmp_path: Path):
    sw = write(tmp_path, KILL)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "mmtsim", "sweep", str(sw), "--out", str(out), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "runs").is_dir() and any((out / "runs").iterdir()):
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep ended before it could be killed"
    # Only complete runs are in runs/: each has its summary and params.
    before = _state(out)
    for rid in before:
        assert (out / "runs" / rid / "summary.json").is_file()
    assert 1 <= len(before) < 8, f"{len(before)} runs done at the kill; expected a partial sweep"

    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    n = len(before)
    assert f"8 runs: {8 - n} finished, {n} skipped (already done), 0 failed" in r.stdout
    after = _state(out)
    # Nothing lost or repeated: the runs done before the kill are the same folders, with
    # the same params.json and wall time.
    assert {rid: after[rid] for rid in before} == before
    ids = [e["run_id"] for e in json.loads((out / "sweep.json").read_text())["runs"]]
    assert sorted(after) == sorted(ids)  # complete; no staging folders among the runs
    assert not (out / ".staging").exists()
    assert not (out / "failed").exists()


def test_a_failing_run_is_recorded_the_rest_finish_and_it_is_retried(
        tmp_path: Path, monkeypatch, capsys):
    sw = write(tmp_path, SMALL)
    out = tmp_path / "out"
    real = sweep_mod._simulate

    # No scenario that passes validation fails at run time on purpose, so the failure is
    # injected: newreno with seed 2 raises inside the run.
    def flaky(task, source, folder, progress):
        if task["seed"] == 2 and 'flows.0.cc="newreno"' in task["overrides"]:
            raise mmtsim.SimulationError("internal error: injected for the test")
        return real(task, source, folder, progress)

    monkeypatch.setattr(sweep_mod, "_simulate", flaky)
    code = cli.main(["sweep", str(sw), "--out", str(out), "--workers", "2", "--quiet"])
    io = capsys.readouterr()
    assert code == 1
    assert "4 runs: 3 finished, 0 skipped (already done), 1 failed" in io.out
    assert "cc=newreno, seed 2) failed: SimulationError: internal error: injected" in io.err
    bad = next(e for e in json.loads((out / "sweep.json").read_text())["runs"]
               if e["group_id"] == "cc=newreno" and e["seed"] == 2)
    rec = json.loads((out / "failed" / f"{bad['run_id']}.json").read_text())
    assert rec == {**bad, "error_type": "SimulationError",
                   "error": "internal error: injected for the test"}
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(
        e["run_id"] for e in json.loads((out / "sweep.json").read_text())["runs"]
        if e["run_id"] != bad["run_id"])
    assert not (out / ".staging").exists()

    # Next time only the failed run runs; it succeeds and its failure record goes.
    monkeypatch.setattr(sweep_mod, "_simulate", real)
    code = cli.main(["sweep", str(sw), "--out", str(out), "--quiet"])
    assert code == 0
    assert "4 runs: 1 finished, 3 skipped (already done), 0 failed" in capsys.readouterr().out
    assert not (out / "failed" / f"{bad['run_id']}.json").exists()
    assert (out / "runs" / bad["run_id"] / "params.json").exists()


def test_a_sweep_folder_in_use_is_refused(tmp_path: Path, capsys):
    sw = write(tmp_path, SMALL)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sweep.json").write_text("{}")
    lock = sweep_mod._Lock(out)
    try:
        assert cli.main(["sweep", str(sw), "--out", str(out), "--quiet"]) == 1
        assert "being written by another mmtsim sweep" in capsys.readouterr().err
    finally:
        lock.release()
    assert not (out / "runs").exists()


# ---------------------------------------------------------------------------------------
# Bad sweep files: exit 2, the message names the key, nothing written

AXIS = '[[axes]]\nname = "cc"\nkey = "flows.0.cc"\nvalues = ["cubic", "bbr"]\n'
BAD = {
    "unknown-top-key": ('base = "base.toml"\nseeds = 1\nseed = 3\n', "seed: unknown key"),
    "missing-seeds": ('base = "base.toml"\n' + AXIS, "seeds: missing"),
    "seeds-zero": ('base = "base.toml"\nseeds = 0\n', "seeds: 0"),
    "duplicate-seed": ('base = "base.toml"\nseeds = [3, 3]\n', "seeds[1]: seed 3 is listed twice"),
    "missing-base-file": ('base = "nope.toml"\nseeds = 1\n', 'base: "nope.toml": cannot read'),
    "invalid-base": ('seeds = 1\n[base]\nsimulation = { duration = "1s" }\n',
                     "base: the base scenario is invalid"),
    "empty-axis": ('base = "base.toml"\nseeds = 1\n[[axes]]\nname = "cc"\nkey = "flows.0.cc"\n'
                   'values = []\n', "axes[0].values: expected a non-empty list"),
    "bad-key-path": ('base = "base.toml"\nseeds = 1\n[[axes]]\nname = "cc"\nkey = "flows.7.cc"\n'
                     'values = ["bbr"]\n', "axes[0].values[0]: flows.7.cc="),
    "bad-value": ('base = "base.toml"\nseeds = 1\n[[axes]]\nname = "cc"\nkey = "flows.0.cc"\n'
                  'values = ["cubic", "warp"]\n', 'axes[0].values[1]: flows.0.cc="warp"'),
    "unknown-axis-key": ('base = "base.toml"\nseeds = 1\n' + AXIS + 'lables = ["a", "b"]\n',
                         "axes[0].lables: unknown key"),
    "key-and-variants": ('base = "base.toml"\nseeds = 1\n' + AXIS + 'variants = []\n',
                         "axes[0]: give either key + values"),
    "duplicate-axis-name": ('base = "base.toml"\nseeds = 1\n' + AXIS
                            + AXIS.replace("flows.0", "flows.1"),
                            'axes[1].name: duplicate axis name "cc"'),
    "duplicate-variant-label": (
        'base = "base.toml"\nseeds = 1\n[[axes]]\nname = "mix"\nvariants = [\n'
        '  { label = "x", set = { "flows.0.cc" = "bbr" } },\n'
        '  { label = "x", set = { "flows.0.cc" = "newreno" } },\n]\n',
        'axes[0].variants[1].label: duplicate label "x"'),
    "bad-variant-value": (
        'base = "base.toml"\nseeds = 1\n[[axes]]\nname = "mix"\nvariants = [\n'
        '  { label = "x", set = { "flows.0.cc" = "bbr", "links.2.rate" = "fast" } },\n]\n',
        "axes[0].variants[0].set: "),
    "duplicate-replicate": ('base = "base.toml"\nseeds = 1\n[[replicates]]\nname = "a"\nset = {}\n'
                            '[[replicates]]\nname = "a"\nset = {}\n',
                            'replicates[1].name: duplicate replicate name "a"'),
    "replicate-bad-key": ('base = "base.toml"\nseeds = 1\n[[replicates]]\nname = "a"\n'
                          'set = { "ran.ues.1.position_m" = [1, 2, 3] }\n', "replicates[0].set: "),
    "seed-in-set": ('base = "base.toml"\nseeds = 1\nset = { "simulation.seed" = 4 }\n',
                    'set."simulation.seed": the seed comes from `seeds`'),
    "two-axes-same-key": ('base = "base.toml"\nseeds = 1\n' + AXIS + AXIS.replace('"cc"', '"cc2"'),
                          "axes[1]: sets flows.0.cc, which axes[0] sets too"),
    "equal-values": ('base = "base.toml"\nseeds = 1\n[[axes]]\nname = "rate"\n'
                     'key = "links.2.rate"\nvalues = ["100Mbps", "0.1Gbps"]\n',
                     "axes[0].values[1] (run rate=0.1Gbps): resolves to the same scenario"),
    "label-with-comma": ('base = "base.toml"\nseeds = 1\n[[axes]]\nname = "a,b"\n'
                         'key = "flows.0.cc"\nvalues = ["bbr"]\n',
                         'axes[0].name: "a,b": the axis name may not contain'),
    "not-toml": ('base = "base.toml"\nseeds = [1\n', "not valid TOML"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_sweep_file_exits_2_names_the_key_and_writes_nothing(case, tmp_path: Path, capsys):
    text, expected = BAD[case]
    sw = write(tmp_path, text)
    out = tmp_path / "out"
    code = cli.main(["sweep", str(sw), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"invalid sweep file {sw}" in err
    assert expected in err, err
    assert not out.exists()


def test_bad_flags_exit_2(tmp_path: Path, capsys):
    sw = write(tmp_path, SMALL)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        cli.main(["sweep", str(sw), "--out", str(out), "--workers", "0"])
    assert e.value.code == 2
    assert cli.main(["sweep", str(sw), "--out", str(out), "--workers", "2",
                     "--dask", "tcp://127.0.0.1:1"]) == 2
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert cli.main(["sweep", str(sw), "--out", str(tmp_path / "other")]) == 2
    assert "not an mmtsim sweep folder" in capsys.readouterr().err
    assert not out.exists() and sorted(os.listdir(tmp_path / "other")) == ["notes.txt"]


def test_the_sweep_schema_is_a_valid_json_schema_and_accepts_the_examples():
    import tomllib

    from jsonschema import Draft202012Validator

    from conftest import EXAMPLES
    from mmtsim.sweep_file import _schema

    Draft202012Validator.check_schema(_schema())
    for f in sorted((EXAMPLES / "sweeps").glob("*.toml")):
        doc = tomllib.loads(f.read_text())
        assert list(Draft202012Validator(_schema()).iter_errors(doc)) == [], f
