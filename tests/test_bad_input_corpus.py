"""The bad-input corpus (tests/bad_inputs/): scenario files, command-line flags, Python
arguments, trace files, sweep files and damaged run folders.

Every case must be answered with exit code 2 (or, for the Python API, the documented
exception) and one message that names the file, key or flag and the offending value and
says what is expected; and nothing may be written. CLI cases run in-process through
``mmtsim.cli.main`` to keep the corpus fast.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

import mmtsim
import mmtsim.cc  # noqa: F401  (the API cases use it)
from bad_inputs import others, scenarios
from conftest import SMALL
from mmtsim.cli import main


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse
            code = e.code
    return code, err.getvalue()


def listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("good") / "run"
    mmtsim.run(SMALL_DICT_PATH(tmp_path_factory), out=out, overrides={"simulation.duration": "0.5s"})
    return out


def SMALL_DICT_PATH(factory) -> Path:  # noqa: N802  (a fixture helper)
    p = factory.mktemp("sc") / "small.toml"
    p.write_text(SMALL)
    return p


def test_the_corpus_has_at_least_100_cases():
    n = (len(scenarios.CASES) + len(others.CLI) + len(others.API) + len(others.TRACES)
         + len(others.SWEEPS) + len(others.RUN_FOLDERS))
    assert n >= 100, n


@pytest.mark.parametrize("case", scenarios.CASES, ids=[c[0] for c in scenarios.CASES])
def test_bad_scenario(tmp_path: Path, case):
    _, (old, new), fragments = case
    assert old in SMALL, f"test setup: {old!r} not in the base scenario"
    scen = tmp_path / "bad.toml"
    scen.write_text(SMALL.replace(old, new, 1))
    code, msg = run_cli(["run", str(scen), "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 2, msg
    assert str(scen) in msg
    for f in fragments:
        assert f in msg, f"{f!r} not in:\n{msg}"
    assert listing(tmp_path) == {"bad.toml"}, "nothing may be written"


@pytest.mark.parametrize("case", others.CLI, ids=[c[0] for c in others.CLI])
def test_bad_command_line(tmp_path: Path, case):
    _, argv, fragments = case
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    subst = {"{sc}": str(sc), "{dir}": str(scratch)}

    def fill(s: str) -> str:
        for k, v in subst.items():
            s = s.replace(k, v)
        return s

    before = listing(tmp_path)
    code, msg = run_cli([fill(a) for a in argv])
    assert code == 2, msg
    for f in fragments:
        assert fill(f) in msg, f"{fill(f)!r} not in:\n{msg}"
    assert "Traceback" not in msg
    assert listing(tmp_path) == before, "nothing may be written"


@pytest.mark.parametrize("case", others.API, ids=[c[0] for c in others.API])
def test_bad_python_argument(tmp_path: Path, case):
    _, code, exc_name, fragments = case
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    before = listing(tmp_path)
    with pytest.raises(Exception) as info:
        eval(code, {"mmtsim": mmtsim, "sc": str(sc)})  # noqa: S307  (the corpus's own code)
    assert type(info.value).__name__ == exc_name, repr(info.value)
    assert isinstance(info.value, (ValueError, TypeError, mmtsim.MmtsimError)), repr(info.value)
    for f in fragments:
        assert f in str(info.value), f"{f!r} not in {info.value}"
    assert listing(tmp_path) == before


@pytest.mark.parametrize("case", others.TRACES, ids=[c[0] for c in others.TRACES])
def test_bad_trace_file(tmp_path: Path, case):
    _, fmt, data, fragments = case
    src = tmp_path / ("in." + ("csv" if fmt == "csv" else "txt"))
    src.write_bytes(data)
    code, msg = run_cli(["trace", str(src), str(tmp_path / "out"), "--from", fmt, "--to",
                         "mahimahi", "--until", "10s"])
    assert code == 2, msg
    assert str(src) in msg
    for f in fragments:
        assert f in msg, f"{f!r} not in:\n{msg}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", others.SWEEPS, ids=[c[0] for c in others.SWEEPS])
def test_bad_sweep_file(tmp_path: Path, case):
    _, text, fragments = case
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    sw = tmp_path / "bad.sweep.toml"
    sw.write_text(text.replace("{sc}", str(sc)).replace("{dir}", str(tmp_path)))
    code, msg = run_cli(["sweep", str(sw), "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 2, msg
    assert str(sw) in msg
    for f in fragments:
        assert f in msg, f"{f!r} not in:\n{msg}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", others.RUN_FOLDERS, ids=[c[0] for c in others.RUN_FOLDERS])
def test_damaged_run_folder(tmp_path: Path, good_run: Path, case):
    _, (action, name, arg), fragments = case
    run = tmp_path / "run"
    shutil.copytree(good_run, run)
    if action == "write":
        (run / name).write_bytes(arg)
    elif action == "delete":
        (run / name).unlink()
    else:
        shutil.copy(run / arg, run / name)
    before = listing(tmp_path)
    code, msg = run_cli(["plot", str(run)])
    assert code == 2, msg
    for f in fragments:
        assert f in msg, f"{f!r} not in:\n{msg}"
    assert "Traceback" not in msg
    assert listing(tmp_path) == before, "nothing may be written"
