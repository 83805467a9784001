"""`pip install .` works from a checkout: the wheel maturin builds holds the extension, every
module, the templates and schemas, the `mmtsim` command and the runtime dependencies.

Builds with the project's normal settings (``target/``, release profile, this interpreter),
so after ``scripts/setup.sh`` (``maturin develop --release``) cargo reuses the compiled
crates and the build is packaging: a few seconds (about 50 s from an empty ``target/``). Skipped where there is no maturin or cargo (an installed copy).
"""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "python" / "mmtsim"
MATURIN = Path(sys.executable).parent / "maturin"


def _package_data() -> set[str]:
    """Files the wheel must hold under mmtsim/: modules and data files, the subpackage
    ``reproductions`` (its modules and scenario files) included (not the built extension,
    which the wheel holds as its own build, nor the bytecode caches of the checkout)."""
    names = {f"mmtsim/{p.name}" for p in PACKAGE.glob("*.py")}
    for sub in ("templates", "schemas", "reproductions"):
        names |= {f"mmtsim/{p.relative_to(PACKAGE).as_posix()}"
                  for p in (PACKAGE / sub).rglob("*")
                  if p.is_file() and "__pycache__" not in p.relative_to(PACKAGE).parts}
    return names


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if not MATURIN.exists() or shutil.which("cargo") is None:
        pytest.skip("building a wheel needs maturin and cargo")
    out = tmp_path_factory.mktemp("wheel")
    # The interpreter `maturin develop` built for: another one would make cargo rebuild
    # pyo3 and everything above it instead of reusing target/.
    r = subprocess.run([str(MATURIN), "build", "--release", "--interpreter", sys.executable,
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    [whl] = out.glob("mmtsim-*.whl")
    return whl


def test_the_wheel_holds_the_package_the_command_and_the_dependencies(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert any(re.fullmatch(r"mmtsim/_core[^/]*\.so", n) for n in names), names
        assert _package_data() - names == set()
        assert {"mmtsim/templates/report.html.j2", "mmtsim/schemas/sweep.schema.json"} <= names
        dist = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = z.read(f"{dist}/entry_points.txt").decode()
        meta = email.parser.Parser().parsestr(z.read(f"{dist}/METADATA").decode())
    assert re.search(r"^\[console_scripts\]\s*\nmmtsim\s*=\s*mmtsim\.cli:main\s*$",
                     entry_points, re.M), entry_points
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {d.replace(" ", "") for d in meta.get_all("Requires-Dist")
               if "extra ==" not in d}
    assert runtime == {d.replace(" ", "") for d in project["dependencies"]}


def test_the_wheel_installs_and_imports_on_its_own(wheel: Path, tmp_path: Path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)], check=True)
    # The installed copy, not the checkout (dependencies come from this environment).
    code = ("import mmtsim, mmtsim.sweep, mmtsim.reproduce, importlib; from pathlib import Path; "
            "r = importlib.import_module('mmtsim.report'); "
            "print(Path(mmtsim.__file__).parent); "
            "print(r._env().get_template('report.html.j2').filename); "
            "print(len(importlib.import_module('mmtsim.sweep_file')._schema()['properties'])); "
            "print(mmtsim.reproduce.HERE / mmtsim.reproduce.REPRODUCTIONS['xtcp-outage'].scenario)")
    env = {**os.environ, "PYTHONPATH": str(target)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folder, template, n_keys, scenario = r.stdout.split("\n")[:4]
    assert Path(folder) == target / "mmtsim"
    assert Path(template).is_relative_to(target) and int(n_keys) > 0
    # The reproductions' modules import from the installed copy and find its scenarios.
    assert Path(scenario).is_relative_to(target) and Path(scenario).is_file()
