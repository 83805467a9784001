"""Sweep aggregation (`mmtsim summarize`), figures and the HTML report (`mmtsim report`).

The sweep folders are built here by hand, following the sweep layout contract (sweep.json,
runs/<run_id>/ with params.json, failed/<run_id>.json), from short real runs: a 100 Mbit/s
dumbbell with two bulk flows, CUBIC against NewReno, 3 seeds each (1.5 s simulated, well
under a second of wall time per run), and a 0.2 s slice of examples/ran-10ues.toml for the
radio metrics and time series.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mmtsim
from conftest import EXAMPLES, cli
from mmtsim import stats
from mmtsim.summarize import SweepError, compute

# ---------------------------------------------------------------------------------------
# Building sweep folders by the contract


def run_id_of(base, overrides: list[str], seed: int) -> str:
    """First 16 hex digits of sha256 over the canonical JSON of scenario, seed, version."""
    scenario = mmtsim.validate(base, overrides)
    doc = {"scenario": scenario, "seed": seed, "version": mmtsim.__version__}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


ENTRY_KEYS = ("run_id", "group", "group_id", "seed", "replicate", "overrides")


def build_sweep(root: Path, base, axes: dict[str, tuple[str, list]], seeds: list[int],
                extra: list[str] = (), fail: set = frozenset(), missing: set = frozenset()) -> dict:
    """Writes a sweep folder: one group per value of each axis (a single axis here), every
    seed; runs whose (group value, seed) is in ``fail`` get a failed/ record instead of a run
    folder, those in ``missing`` are listed in sweep.json only. Returns sweep.json."""
    ((label, (key, values)),) = axes.items()
    runs = []
    for value in values:
        group = {label: value}
        overrides = [*extra, f"{key}={value}"]
        for seed in seeds:
            runs.append({"run_id": run_id_of(base, overrides, seed), "group": group,
                         "group_id": f"{label}={value}", "seed": seed, "replicate": None,
                         "overrides": overrides})
    sweep = {"mmtsim_version": mmtsim.__version__, "sweep_file": "test.toml",
             "base": str(base) if not isinstance(base, dict) else "<dict>",
             "group_keys": [label], "runs": runs}
    root.mkdir(parents=True, exist_ok=True)
    (root / "sweep.json").write_text(json.dumps(sweep, indent=2))
    for r in runs:
        tag = (r["group"][label], r["seed"])
        if tag in missing:
            continue
        if tag in fail:
            (root / "failed").mkdir(exist_ok=True)
            rec = {k: r[k] for k in ENTRY_KEYS}
            rec.update(error_type="SimulationError", error="injected failure for the test")
            (root / "failed" / f"{r['run_id']}.json").write_text(json.dumps(rec))
            continue
        out = root / "runs" / r["run_id"]
        res = mmtsim.run(base, seed=r["seed"], overrides=r["overrides"], out=out)
        params = {k: r[k] for k in ENTRY_KEYS}
        params.update(scenario_sha256="0" * 64, mmtsim_version=mmtsim.__version__,
                      wall_seconds=res.summary["wall_seconds"])
        (out / "params.json").write_text(json.dumps(params))
    return sweep


def dumbbell() -> dict:
    """Two bulk flows through one 100 Mbit/s, 10 ms bottleneck with a 250 kB buffer; random
    losses (p = 0.002) make the runs depend on the seed."""
    return {
        "simulation": {"duration": "1.5s", "seed": 1},
        "nodes": [{"name": "server"}, {"name": "client"}],
        "links": [{"name": "bottleneck", "between": ["server", "client"], "rate": "100Mbps",
                   "delay": "10ms", "queue": {"limit": "250kB"},
                   "loss": {"kind": "bernoulli", "p": 0.002}}],
        "flows": [{"name": "bulk", "from": "server", "to": "client", "cc": "cubic", "count": 2}],
    }


SEEDS = [1, 2, 3]
FAILED = ("cubic", 4)
MISSING = ("newreno", 4)


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sweep") / "out"
    build_sweep(root, dumbbell(), {"cc": ("flows.0.cc", ["cubic", "newreno"])}, SEEDS + [4],
                fail={FAILED}, missing={MISSING})
    return root


@pytest.fixture(scope="module")
def ran_sweep_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ransweep") / "out"
    build_sweep(root, EXAMPLES / "ran-10ues.toml",
                {"duration": ("simulation.duration", ["0.2s"])}, [1, 2])
    return root


def ok_runs(sweep_dir: Path) -> list[dict]:
    """The sweep.json entries that have a finished run folder (read back by hand)."""
    sweep = json.loads((sweep_dir / "sweep.json").read_text())
    return [r for r in sweep["runs"] if (sweep_dir / "runs" / r["run_id"] / "params.json").exists()]


def read_summary(sweep_dir: Path, run_id: str) -> dict:
    return json.loads((sweep_dir / "runs" / run_id / "summary.json").read_text())


def row(df: pl.DataFrame, group_id: str, entity: str, metric: str) -> dict:
    d = df.filter((pl.col("group_id") == group_id) & (pl.col("entity") == entity)
                  & (pl.col("metric") == metric))
    assert d.height == 1, (group_id, entity, metric, d)
    return d.row(0, named=True)


# ---------------------------------------------------------------------------------------
# Confidence intervals


def test_t_quantile_matches_closed_forms():
    # Student t with 1 degree of freedom is the Cauchy distribution: Q(p) = tan(π(p − ½));
    # Q(0.975) = tan(0.475π) = 12.7062. With 2 degrees of freedom,
    # Q(p) = (2p − 1) / sqrt(2p(1 − p)) = 0.95 / sqrt(0.04875) = 4.30265.
    assert stats.t_quantile(0.975, 1) == pytest.approx(math.tan(0.475 * math.pi), rel=1e-12)
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    q2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)
    assert stats.t_quantile(0.975, 2) == pytest.approx(q2, rel=1e-12)
    assert stats.t_quantile(0.975, 2) == pytest.approx(4.30265, abs=1e-5)
    # Printed t tables (two-sided 95 %): 4 df 2.776, 9 df 2.262, 29 df 2.045.
    assert stats.t_quantile(0.975, 4) == pytest.approx(2.776, abs=5e-4)
    assert stats.t_quantile(0.975, 9) == pytest.approx(2.262, abs=5e-4)
    assert stats.t_quantile(0.975, 29) == pytest.approx(2.045, abs=5e-4)


def test_t_quantile_is_scipys_t_ppf_and_keeps_its_ends():
    # Bit for bit the quantile of scipy.stats.t (which the intervals used before), and at
    # p = 0 and 1 its infinities (stdtrit alone gives +inf at both).
    from scipy.stats import t

    for df in (1, 2, 3, 9, 29, 199, 1999):
        for p in (0.005, 0.025, 0.5, 0.95, 0.975, 0.995):
            assert stats.t_quantile(p, df) == float(t.ppf(p, df))
    assert stats.t_quantile(0.0, 5) == -math.inf
    assert stats.t_quantile(1.0, 5) == math.inf
    assert math.isnan(stats.t_quantile(1.5, 5))


def test_mean_ci_worked_example():
    # [1, 2, 3, 4, 5]: mean 3; s² = (4 + 1 + 0 + 1 + 4) / 4 = 2.5, s = 1.58114;
    # t_{0.975, 4} = 2.77645; half-width = 2.77645 · 1.58114 / sqrt(5) = 1.96324.
    ci = stats.mean_ci([1, 2, 3, 4, 5])
    assert ci.n == 5 and ci.mean == 3.0
    assert ci.std == pytest.approx(math.sqrt(2.5), rel=1e-12)
    assert ci.half_width == pytest.approx(1.9632, abs=1e-4)
    assert ci.ci_low == pytest.approx(3 - 1.9632, abs=1e-4)
    assert ci.ci_high == pytest.approx(3 + 1.9632, abs=1e-4)
    # Two samples 10 and 12: mean 11, s = sqrt(2), half-width = 12.7062 · sqrt(2) / sqrt(2).
    ci = stats.mean_ci([10, 12])
    assert ci.half_width == pytest.approx(12.7062, abs=1e-4)


def test_mean_ci_single_sample_is_undefined_not_zero():
    ci = stats.mean_ci([4.2])
    assert (ci.n, ci.mean, ci.std, ci.ci_low, ci.ci_high) == (1, 4.2, None, None, None)
    assert ci.half_width is None
    assert stats.mean_ci([]) == stats.MeanCI(0, None, None, None, None)
    # Missing values (None, NaN) are not samples: [1, 3] → mean 2, n 2.
    ci = stats.mean_ci([1, None, float("nan"), 3])
    assert ci.n == 2 and ci.mean == 2.0
    # Equal samples: s = 0, the interval shrinks to the mean.
    ci = stats.mean_ci([7, 7, 7])
    assert ci.std == 0 and ci.ci_low == ci.ci_high == 7


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=2, max_size=40))
def test_mean_ci_agrees_with_scipy(xs):
    import scipy.stats

    x = np.array(xs)
    sem = scipy.stats.sem(x)  # s / sqrt(n), s with n − 1
    if not sem > 1e-6 * (1 + np.abs(x).max()):
        return  # (almost) equal samples: scipy's interval is undefined for scale 0
    lo, hi = scipy.stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sem)
    ci = stats.mean_ci(xs)
    assert ci.n == len(xs)
    tol = 1e-9 * (1 + np.abs(x).max())
    assert ci.mean == pytest.approx(x.mean(), abs=tol)
    assert ci.std == pytest.approx(x.std(ddof=1), rel=1e-7, abs=tol)
    assert ci.ci_low == pytest.approx(lo, rel=1e-7, abs=tol)
    assert ci.ci_high == pytest.approx(hi, rel=1e-7, abs=tol)


# ---------------------------------------------------------------------------------------
# Jain's index


def test_jain_index_hand_examples():
    # (Σx)² / (n Σx²)
    assert stats.jain_index([1, 1, 1, 1]) == 1.0  # 16 / (4 · 4)
    assert stats.jain_index([1, 0, 0, 0]) == 0.25  # 1 / (4 · 1)
    assert stats.jain_index([3, 1]) == pytest.approx(0.8)  # 16 / (2 · 10)
    assert stats.jain_index([5]) == 1.0
    assert stats.jain_index([3, None, 1]) == pytest.approx(0.8)  # a missing value is no flow
    assert stats.jain_index([]) is None
    assert stats.jain_index([0, 0]) is None


# ---------------------------------------------------------------------------------------
# Ellipses


def test_ellipse_hand_example_diagonal():
    # Points (±1, 0), (0, ±2): mean (0, 0); maximum-likelihood covariance (÷4):
    # var_x = 2/4 = 0.5, var_y = 8/4 = 2, cov = 0. Major axis along y (90°):
    # semi-axes 2·sqrt(2) = 2.8284 and 2·sqrt(0.5) = 1.4142.
    e = stats.cov_ellipse([1, -1, 0, 0], [0, 0, 2, -2])
    assert (e.n, e.mean_x, e.mean_y) == (4, 0.0, 0.0)
    assert (e.cov_xx, e.cov_xy, e.cov_yy) == (0.5, 0.0, 2.0)
    assert e.semi_major == pytest.approx(2 * math.sqrt(2))
    assert e.semi_minor == pytest.approx(2 * math.sqrt(0.5))
    assert e.angle_deg == pytest.approx(90.0)
    # Unbiased (÷3): var_x = 2/3, var_y = 8/3.
    e1 = stats.cov_ellipse([1, -1, 0, 0], [0, 0, 2, -2], ddof=1)
    assert e1.semi_major == pytest.approx(2 * math.sqrt(8 / 3))
    assert e1.semi_minor == pytest.approx(2 * math.sqrt(2 / 3))
    # Points on the diagonal: (1, 1), (−1, −1), (0, 0) twice: covariance [[.5, .5], [.5, .5]],
    # eigenvalues 1 and 0 → a segment of half-length 2 at 45°.
    e = stats.cov_ellipse([1, -1, 0, 0], [1, -1, 0, 0])
    assert e.semi_major == pytest.approx(2.0) and e.semi_minor == pytest.approx(0.0, abs=1e-12)
    assert e.angle_deg == pytest.approx(45.0)
    # Too few points: no ellipse.
    e = stats.cov_ellipse([3], [4])
    assert e.n == 1 and e.mean_x == 3 and e.semi_major is None
    assert stats.cov_ellipse([], []).mean_x is None


def test_ellipse_of_a_known_gaussian():
    # Σ = [[4, 1.2], [1.2, 1]]: λ = 2.5 ± sqrt(1.5² + 1.2²) = 2.5 ± 1.92094 → 4.42094, 0.57906;
    # 2-σ semi-axes 2·sqrt(λ) = 4.20521, 1.52192; major axis at ½·atan2(2.4, 3) = 19.33°.
    cov = np.array([[4.0, 1.2], [1.2, 1.0]])
    pts = np.random.default_rng(7).multivariate_normal([50.0, 300.0], cov, size=200_000)
    e = stats.cov_ellipse(pts[:, 0], pts[:, 1])
    assert e.semi_major == pytest.approx(4.20521, rel=0.01)
    assert e.semi_minor == pytest.approx(1.52192, rel=0.01)
    assert e.angle_deg == pytest.approx(19.33, abs=0.5)
    assert e.mean_x == pytest.approx(50.0, abs=0.02) and e.mean_y == pytest.approx(300.0, abs=0.02)
    # The axes agree with numpy's eigenvalues of the same sample covariance (÷ n).
    lam = np.linalg.eigvalsh(np.cov(pts.T, ddof=0))
    assert e.semi_major == pytest.approx(2 * math.sqrt(lam[1]), rel=1e-9)
    assert e.semi_minor == pytest.approx(2 * math.sqrt(lam[0]), rel=1e-9)
    # The drawn contour is the set where the Mahalanobis distance is 2.
    xs, ys = e.points(50)
    s_inv = np.linalg.inv(np.array([[e.cov_xx, e.cov_xy], [e.cov_xy, e.cov_yy]]))
    for x, y in zip(xs, ys):
        d = np.array([x - e.mean_x, y - e.mean_y])
        assert d @ s_inv @ d == pytest.approx(4.0, rel=1e-9)


# ---------------------------------------------------------------------------------------
# summarize on real runs


METRIC_COLUMNS = ["group_id", "cc", "entity_kind", "entity", "metric", "n", "mean", "std",
                  "ci95_low", "ci95_high"]


def test_summarize_group_means_match_the_runs(sweep_dir: Path):
    import scipy.stats

    df = mmtsim.summarize(sweep_dir)
    assert df.columns == METRIC_COLUMNS
    assert df["group_id"].unique(maintain_order=True).to_list() == ["cc=cubic", "cc=newreno"]
    runs = ok_runs(sweep_dir)
    assert len(runs) == 6  # 2 groups × 3 seeds; seed 4 failed in one group, missing in the other
    for gid in ("cc=cubic", "cc=newreno"):
        summaries = [read_summary(sweep_dir, r["run_id"]) for r in runs if r["group_id"] == gid]
        assert sorted(s["seed"] for s in summaries) == SEEDS
        for i, flow in enumerate(["bulk#0", "bulk#1"]):
            for metric in ("goodput_mbps", "rtt_mean_ms", "rtt_p95_ms", "retransmits",
                           "bytes_delivered"):
                vals = np.array([s["flows"][i][metric] for s in summaries], dtype=float)
                assert all(s["flows"][i]["name"] == flow for s in summaries)
                r = row(df, gid, flow, metric)
                assert r["n"] == 3 and r["entity_kind"] == "flow" and r["cc"] == gid[3:]
                assert r["mean"] == pytest.approx(vals.mean(), rel=1e-12)
                assert r["std"] == pytest.approx(vals.std(ddof=1), rel=1e-9, abs=1e-12)
                if vals.std() > 0:
                    lo, hi = scipy.stats.t.interval(0.95, 2, loc=vals.mean(),
                                                    scale=scipy.stats.sem(vals))
                    assert (r["ci95_low"], r["ci95_high"]) == (pytest.approx(lo), pytest.approx(hi))
        # The runs differ (random losses), so the test above compared real spreads.
        assert row(df, gid, "bulk#0", "goodput_mbps")["std"] > 0
        # Jain's index per run: (g0 + g1)² / (2 (g0² + g1²)), then the mean over runs.
        jains = [(a + b) ** 2 / (2 * (a * a + b * b))
                 for a, b in ((s["flows"][0]["goodput_mbps"], s["flows"][1]["goodput_mbps"])
                              for s in summaries)]
        r = row(df, gid, "all", "jain_goodput")
        assert r["n"] == 3 and r["mean"] == pytest.approx(np.mean(jains), rel=1e-12)
        total = [s["flows"][0]["goodput_mbps"] + s["flows"][1]["goodput_mbps"] for s in summaries]
        assert row(df, gid, "all", "goodput_total_mbps")["mean"] == pytest.approx(np.mean(total))
        # Link metrics, keyed name/direction.
        tx = [next(l["tx_bytes"] for l in s["links"] if l["direction"] == "forward")
              for s in summaries]
        r = row(df, gid, "bottleneck/forward", "tx_bytes")
        assert r["entity_kind"] == "link" and r["mean"] == pytest.approx(np.mean(tx))
    # Not metrics: ids, strings, lists; null everywhere (completion time of bulk flows).
    flow_metrics = set(df.filter(pl.col("entity_kind") == "flow")["metric"].to_list())
    assert not flow_metrics & {"id", "name", "cc", "rto_times_s", "completion_time_s"}
    # The files: parquet and csv agree with the returned frame.
    out = sweep_dir / "summary"
    assert pl.read_parquet(out / "metrics.parquet").equals(df)
    csv = pl.read_csv(out / "metrics.csv")
    assert csv.columns == METRIC_COLUMNS and csv.height == df.height


def test_summarize_lists_and_excludes_failed_and_missing_runs(sweep_dir: Path):
    sweep = json.loads((sweep_dir / "sweep.json").read_text())
    by_tag = {(r["group"]["cc"], r["seed"]): r["run_id"] for r in sweep["runs"]}
    failed_id, missing_id = by_tag[FAILED], by_tag[MISSING]
    r = cli("summarize", str(sweep_dir))
    assert r.returncode == 0, r.stderr
    assert f"failed {failed_id}" in r.stdout and "injected failure" in r.stdout
    assert f"missing {missing_id}" in r.stdout
    assert "cc=cubic: 3 runs (1 left out)" in r.stdout and "bulk#0" in r.stdout
    runs = pl.read_csv(sweep_dir / "summary" / "runs.csv", schema_overrides={"run_id": pl.String})
    status = dict(zip(runs["run_id"].to_list(), runs["status"].to_list()))
    assert status[failed_id] == "failed" and status[missing_id] == "missing"
    assert sum(s == "ok" for s in status.values()) == 6 and len(status) == 8
    per_run = pl.read_parquet(sweep_dir / "summary" / "per_run.parquet")
    assert set(per_run["run_id"].unique().to_list()) == {r["run_id"] for r in ok_runs(sweep_dir)}
    # A run folder that sweep.json does not list is ignored (an earlier sweep file).
    s = compute(sweep_dir)
    assert [x.run_id for x in s.failed_runs] == [failed_id, missing_id]
    assert s.ignored_run_dirs == []


def test_summarize_ellipses(sweep_dir: Path):
    mmtsim.summarize(sweep_dir)
    e = pl.read_parquet(sweep_dir / "summary" / "ellipses.parquet")
    assert e.columns == ["group_id", "cc", "flow", "x_metric", "y_metric", "n", "mean_x", "mean_y",
                         "cov_xx", "cov_xy", "cov_yy", "semi_major", "semi_minor", "angle_deg",
                         "sigmas", "ddof"]
    assert e.height == 4  # 2 groups × 2 flows
    runs = [x for x in ok_runs(sweep_dir) if x["group_id"] == "cc=newreno"]
    summaries = [read_summary(sweep_dir, x["run_id"]) for x in runs]
    x = [sm["flows"][1]["rtt_mean_ms"] for sm in summaries]
    y = [sm["flows"][1]["goodput_mbps"] for sm in summaries]
    got = e.filter((pl.col("group_id") == "cc=newreno")
                   & (pl.col("flow") == "bulk#1")).row(0, named=True)
    # By hand with numpy: the ML covariance (÷ n) of the 3 points, 2·sqrt of its eigenvalues.
    lam = np.linalg.eigvalsh(np.cov(np.array([x, y]), ddof=0))
    assert got["n"] == 3 and got["sigmas"] == 2.0 and got["ddof"] == 0
    assert got["mean_x"] == pytest.approx(np.mean(x)) and got["mean_y"] == pytest.approx(np.mean(y))
    assert got["semi_major"] == pytest.approx(2 * math.sqrt(lam[1]), rel=1e-9)
    assert got["semi_minor"] == pytest.approx(2 * math.sqrt(max(lam[0], 0)), rel=1e-6, abs=1e-9)


def test_summarize_ran_metrics_per_ue_and_cell(ran_sweep_dir: Path):
    df = mmtsim.summarize(ran_sweep_dir)
    assert "duration" in df.columns
    kinds = set(df["entity_kind"].unique().to_list())
    assert kinds == {"run", "flow", "ue", "cell", "link"}
    runs = ok_runs(ran_sweep_dir)
    summaries = [read_summary(ran_sweep_dir, r["run_id"]) for r in runs]
    dl = [s["ues"][1]["decoded_mbps"]["dl"] for s in summaries]
    r = row(df, "duration=0.2s", "ue2", "decoded_mbps.dl")
    assert r["entity_kind"] == "ue" and r["n"] == 2 and r["mean"] == pytest.approx(np.mean(dl))
    ul = [s["cells"][0]["throughput_mbps"]["ul"] for s in summaries]
    r = row(df, "duration=0.2s", "gnb", "throughput_mbps.ul")
    assert r["entity_kind"] == "cell" and r["mean"] == pytest.approx(np.mean(ul))
    # UDP flows have no RTT: their rtt_mean_ms is null in every run, so no row at all.
    udp_rtt = df.filter((pl.col("entity") == "ue6-dl-udp") & (pl.col("metric") == "rtt_mean_ms"))
    assert udp_rtt.height == 0


def test_single_run_group_has_null_interval(sweep_dir: Path, tmp_path: Path):
    import shutil

    run = ok_runs(sweep_dir)[0]
    root = tmp_path / "one"
    shutil.copytree(sweep_dir / "runs" / run["run_id"], root / "runs" / run["run_id"])
    (root / "sweep.json").write_text(json.dumps({"group_keys": ["cc"], "runs": [run]}))
    df = mmtsim.summarize(root)
    r = row(df, run["group_id"], "bulk#0", "goodput_mbps")
    assert r["n"] == 1 and r["std"] is None and r["ci95_low"] is None and r["ci95_high"] is None
    assert r["mean"] == read_summary(sweep_dir, run["run_id"])["flows"][0]["goodput_mbps"]
    # The CSV writes the nulls as empty fields.
    csv = (root / "summary" / "metrics.csv").read_text()
    first = csv.splitlines()[1].split(",")
    assert first[-3:] == ["", "", ""]  # std, ci95_low, ci95_high of the n = 1 row


def test_bad_input_is_a_clear_error_with_exit_2(tmp_path: Path, sweep_dir: Path):
    r = cli("summarize", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such folder" in r.stderr
    (tmp_path / "empty").mkdir()
    r = cli("summarize", str(tmp_path / "empty"))
    assert r.returncode == 2 and "empty" in r.stderr and "sweep.json" in r.stderr
    run_dir = sweep_dir / "runs" / ok_runs(sweep_dir)[0]["run_id"]
    r = cli("summarize", str(run_dir))
    assert r.returncode == 2 and "run folder, not a sweep folder" in r.stderr
    r = cli("report", str(tmp_path / "empty"))
    assert r.returncode == 2 and "not a sweep folder" in r.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "sweep.json").write_text("{not json")
    r = cli("summarize", str(bad))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    # Every run failed: nothing to summarize.
    allfail = tmp_path / "allfail"
    (allfail / "failed").mkdir(parents=True)
    entry = {"run_id": "00000000deadbeef", "group": {"cc": "x"}, "group_id": "cc=x", "seed": 1,
             "replicate": None, "overrides": []}
    (allfail / "sweep.json").write_text(json.dumps({"group_keys": ["cc"], "runs": [entry]}))
    (allfail / "failed" / "00000000deadbeef.json").write_text(
        json.dumps({**entry, "error_type": "SimulationError", "error": "boom"}))
    r = cli("summarize", str(allfail))
    assert r.returncode == 2 and "no finished runs" in r.stderr and "1 failed" in r.stderr
    with pytest.raises(SweepError, match="empty"):
        mmtsim.summarize(tmp_path / "empty")
    assert not (tmp_path / "empty" / "summary").exists()  # nothing written on bad input


# ---------------------------------------------------------------------------------------
# Report and figures


def _external_refs(text: str) -> list[str]:
    """Every src/href/url() target that is not inline data or an in-page anchor."""
    import re

    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", text)
    refs += re.findall(r"url\(([^)]*)\)", text)
    return [r for r in refs if not r.startswith(("data:", "#"))]


def test_few_runs_are_flagged_beside_the_number_and_nothing_is_clipped():
    from mmtsim.summarize import FEW_RUNS, fmt_value

    # Two runs, 1 and 3: mean 2, s = sqrt(((1-2)^2 + (3-2)^2) / 1) = sqrt(2), half-width
    # t(0.975, 1) * s / sqrt(2) = 12.7062 (t(0.975, 1) = tan(0.475 pi) = 12.7062).
    m = stats.mean_ci([1.0, 3.0])
    assert m.half_width == pytest.approx(math.tan(0.475 * math.pi), rel=1e-12)
    text = fmt_value(m.mean, m.ci_low, m.ci_high, m.n)
    assert text == "2.00 ± 12.71 (only n=2)"
    # The interval reaches below zero for a non-negative metric: shown as computed.
    assert m.ci_low == pytest.approx(2 - 12.7062, abs=1e-3) and m.ci_low < 0
    # One run: the value and no interval, said in words.
    one = stats.mean_ci([5.0])
    assert fmt_value(one.mean, one.ci_low, one.ci_high, one.n) == "5.00 (n=1, no interval)"
    # From FEW_RUNS runs on, no warning.
    five = stats.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    assert FEW_RUNS == 5 and "only" not in fmt_value(five.mean, five.ci_low, five.ci_high, 5)


def test_report_is_self_contained_with_groups_and_paper_table(sweep_dir: Path, tmp_path: Path):
    from mmtsim.report import fmt_rel

    runs = ok_runs(sweep_dir)
    totals = [sum(f["goodput_mbps"] for f in read_summary(sweep_dir, r["run_id"])["flows"])
              for r in runs if r["group_id"] == "cc=cubic"]
    flow0 = [read_summary(sweep_dir, r["run_id"])["flows"][0]["goodput_mbps"]
             for r in runs if r["group_id"] == "cc=newreno"]
    paper = {"cc=cubic/goodput_total_mbps": 80.0, "cc=newreno/bulk#0/goodput_mbps": 40.0}
    out = mmtsim.report(sweep_dir, out=tmp_path / "r" / "report.html", paper=paper, timeseries=1)
    assert out == tmp_path / "r" / "report.html"
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert _external_refs(text) == []
    assert "http://" not in text and "https://" not in text and "file:" not in text
    assert str(sweep_dir) not in text and str(tmp_path) not in text
    assert text.count('src="data:image/png;base64,') >= 4  # bars, ellipses, a time series
    for gid in ("cc=cubic", "cc=newreno"):
        assert f"<h3>{gid}</h3>" in text
    assert "paper vs mmtsim" in text
    # Three seeds per group at most: every interval says how few runs it rests on, and the
    # method is stated.
    assert "(only n=2)" in text or "(only n=3)" in text
    assert "Student t, x̄ ± t(0.975, n − 1) · s / √n" in text
    # Relative differences by hand: (mean − paper) / |paper|.
    rel_total = (np.mean(totals) - 80.0) / 80.0
    rel_flow = (np.mean(flow0) - 40.0) / 40.0
    assert f"<td>{fmt_rel(rel_total)}</td>" in text and f"<td>{fmt_rel(rel_flow)}</td>" in text
    assert fmt_rel(0.1234) == "+12.3 %" and fmt_rel(-0.5) == "-50.0 %" and fmt_rel(None) == "-"
    # The runs left out are listed.
    sweep = json.loads((sweep_dir / "sweep.json").read_text())
    failed_id = next(r["run_id"] for r in sweep["runs"] if (r["group"]["cc"], r["seed"]) == FAILED)
    assert failed_id in text and "injected failure" in text
    # Without paper numbers, no comparison table.
    text2 = mmtsim.report(sweep_dir, out=tmp_path / "plain.html", timeseries=0).read_text()
    assert "paper vs mmtsim" not in text2 and "<h3>cc=cubic</h3>" in text2


def test_report_reads_paper_json_and_cli(sweep_dir: Path, tmp_path: Path):
    root = tmp_path / "copy"
    import shutil

    shutil.copytree(sweep_dir, root)
    nested = {"cc=cubic": {"jain_goodput": {"value": 0.9, "source": "Fig. 9"}}}
    (root / "paper.json").write_text(json.dumps(nested))
    r = cli("report", str(root), "--timeseries", "0")
    assert r.returncode == 0, r.stderr
    text = (root / "report.html").read_text()
    assert "paper vs mmtsim" in text and "Fig. 9" in text and "jain_goodput" in text
    r = cli("report", str(root), "--paper", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "cannot read the paper numbers" in r.stderr


def test_paper_comparison_rows(sweep_dir: Path):
    from mmtsim.report import paper_comparison

    s = compute(sweep_dir)
    rows = paper_comparison(s, {"cc=cubic/goodput_mbps": 1.0, "cc=bbr/goodput_mbps": 1.0,
                                "cc=newreno/bulk#1/rtos": 0, "cc=cubic/bulk#0/nonsense": 3,
                                "cc=cubic/bulk#1/rtt_mean_ms": "fast"})
    by = {r["key"]: r for r in rows}
    assert "ambiguous" in by["cc=cubic/goodput_mbps"]["note"]  # two flows have it
    assert "no group" in by["cc=bbr/goodput_mbps"]["note"]
    zero = by["cc=newreno/bulk#1/rtos"]
    assert zero["mean"] is not None and zero["rel_diff"] is None  # relative to 0: undefined
    assert "no such metric" in by["cc=cubic/bulk#0/nonsense"]["note"]
    assert "not a number" in by["cc=cubic/bulk#1/rtt_mean_ms"]["note"]


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_figures_written_as_png_and_svg(sweep_dir: Path, ran_sweep_dir: Path, tmp_path: Path):
    from mmtsim import figures

    files = figures.write_figures(sweep_dir, tmp_path / "figs", timeseries=1)
    names = {f.name for f in files}
    for base in ("bar_goodput_mbps", "bar_rtt_mean_ms", "bar_jain_goodput", "ellipses"):
        assert {f"{base}.png", f"{base}.svg"} <= names
    assert sum(n.startswith("timeseries_") for n in names) == 2  # one run: PNG + SVG
    for f in files:
        data = f.read_bytes()
        if f.suffix == ".png":
            assert data[:8] == PNG_MAGIC
        else:
            assert f.suffix == ".svg" and data.lstrip().startswith(b"<?xml") and b"<svg" in data
    # A RAN run gets the radio panels: RLC buffer, SINR, LOS under goodput, RTT, cwnd.
    run = ok_runs(ran_sweep_dir)[0]
    fig = figures.timeseries_figure(ran_sweep_dir / "runs" / run["run_id"])
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels == ["goodput (Mbit/s)", "RTT per ACK (ms)", "cwnd (MB)", "RLC buffer (kB)",
                      "SINR DL (dB)", "LOS"]
    paths = figures.save(fig, tmp_path / "ran_ts")
    assert [p.name for p in paths] == ["ran_ts.png", "ran_ts.svg"]
    assert paths[0].read_bytes()[:8] == PNG_MAGIC


def test_los_periods():
    from mmtsim.figures import _los_periods

    # Samples every 0.1 s: LOS at 0.0-0.2, blocked 0.2-0.4, LOS again from 0.4 to the end
    # (the last sample holds for one more interval, to 0.6).
    t = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    spans = _los_periods(t, [1, 1, 0, 0, 1, 1])
    assert [(a, pytest.approx(b)) for a, b in spans] == [(0.0, pytest.approx(0.2)),
                                                        (0.4, pytest.approx(0.2))]
    assert _los_periods(t, [0] * 6) == []
