"""Citations in code and docs point at things that exist.

- Every ``*.md`` file that the project's own files mention exists in the repository: a
  reader must be able to open what a comment cites.
- Every reference key cited as ``[KEY]`` or ``[KEY locator]`` is defined in
  ``docs/references.md``, the bibliography.
- No tracker or issue ids (``issue 10a``, ``issue "Experiments"``): code, tests and docs
  speak of the project itself.

Only the project's own files are scanned (``crates/**/*.rs``, ``python/**/*.py``,
``tests/**/*.py``, ``docs/**/*.md`` and the top-level documents); in Rust only the
comments, so that code such as ``self.md()`` or ``x[DL]`` is not read as a citation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCES = ROOT / "docs" / "references.md"
SKIP_PARTS = {".venv", "target", ".git", "node_modules", "__pycache__"}

#: ``.md`` names that are written by the program, not files of the repository.
GENERATED_MD = {"results.md"}  # the kernel harness's table (python/mmtsim/kernel)

# A key: capitals and digits, words joined by hyphens, at least one digit or hyphen
# (TS38214, NS3-MMW-V1, SEED000, LINUX-UNDO), so that [DL] or [TBS] are not keys.
KEY = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*"
CITATION = re.compile(r"\[((?=[A-Z0-9-]*[0-9-])" + KEY + r")(?=[\] ,;:§])")
MD_MENTION = re.compile(r"(?<![\w.-])((?:/|\.\.?/)?(?:[\w.-]+/)*[\w-]+\.md)(?![\w(])")
ISSUE_ID = re.compile(r"\bissues?\s+(?:\d|\")", re.IGNORECASE)
DEFINED_ROW = re.compile(r"^\|\s*(" + KEY + r")\s*\|", re.MULTILINE)


def _own_files() -> list[Path]:
    patterns = ["crates/**/*.rs", "python/**/*.py", "tests/**/*.py", "docs/**/*.md"]
    files = [ROOT / n for n in ("README.md", "ARCHITECTURE.md", "BENCHMARKS.md")]
    for pattern in patterns:
        files += ROOT.glob(pattern)
    return sorted(
        f for f in set(files)
        if f.is_file() and not SKIP_PARTS & set(f.relative_to(ROOT).parts)
    )


def _text_to_scan(path: Path) -> str:
    """The part of a file that may cite: Rust comments, everything of Python and Markdown.

    Rust lines keep their numbers (code lines become empty) so messages can name them."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".rs":
        return text
    out = []
    for line in text.splitlines():
        i = line.find("//")
        out.append(line[i:] if i >= 0 else "")
    return "\n".join(out)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _hits(pattern: re.Pattern[str], path: Path):
    for n, line in enumerate(_text_to_scan(path).splitlines(), 1):
        for m in pattern.finditer(line):
            yield n, m


def _in_repo(path: Path) -> bool:
    """A file of this checkout (an absolute path or ``../`` may lead outside it)."""
    p = path.resolve()
    return p.is_file() and p.is_relative_to(ROOT)


def _defined_keys() -> set[str]:
    return set(DEFINED_ROW.findall(REFERENCES.read_text(encoding="utf-8"))) - {"key"}


FILES = _own_files()


def test_the_scan_sees_the_project():
    names = {_rel(f) for f in FILES}
    assert "crates/ran/src/phy/tbs.rs" in names
    assert "python/mmtsim/sweep.py" in names
    assert "docs/references.md" in names
    assert not any(".venv" in n or n.startswith("target/") for n in names)


def test_every_mentioned_md_file_exists():
    missing = []
    for f in FILES:
        if f == Path(__file__).resolve():
            continue  # its own patterns and examples
        for n, m in _hits(MD_MENTION, f):
            name = m.group(1)
            if Path(name).name in GENERATED_MD:
                continue
            if any(_in_repo(base / name) for base in (ROOT, f.parent)):
                continue
            missing.append(f"{_rel(f)}:{n}: {name}")
    assert not missing, "cited .md files that are not in the repository:\n" + "\n".join(missing)


def test_every_cited_key_is_defined():
    defined = _defined_keys()
    undefined = []
    for f in FILES:
        if f == Path(__file__).resolve():
            continue  # its own patterns and examples
        for n, m in _hits(CITATION, f):
            if m.group(1) not in defined:
                undefined.append(f"{_rel(f)}:{n}: [{m.group(1)}]")
    assert not undefined, (
        "reference keys not defined in docs/references.md:\n" + "\n".join(undefined)
    )


def test_the_bibliography_defines_each_key_once():
    text = REFERENCES.read_text(encoding="utf-8")
    keys = [k for k in DEFINED_ROW.findall(text) if k != "key"]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    for key in ("TS38214", "TR38901", "NS3-MMW-V1", "SEED000", "LINUX-UNDO"):
        assert key in keys


def test_no_tracker_or_issue_ids():
    found = []
    for f in FILES:
        rel = _rel(f)
        if rel == "tests/test_references.py":
            continue
        found += [f"{rel}:{n}: {m.group(0)!r}" for n, m in _hits(ISSUE_ID, f)]
    assert not found, "tracker or issue ids in the project's files:\n" + "\n".join(found)


@pytest.mark.parametrize("line, ok", [
    ("//! The RAN end to end (issue 10a, b): ...", False),
    ('## Reproductions (issue "Experiments")', False),
    ("Issue 4, item 3: the receive-window controller", False),
    ("mailed or attached to an issue as it is.", True),
    ("the handover issue's measurement-based decision", True),
])
def test_issue_pattern(line, ok):
    assert (ISSUE_ID.search(line) is None) == ok


@pytest.mark.parametrize("line, names", [
    ("//! (see `/work/shared/reference/phy-ran.md` §3.1)", ["/work/shared/reference/phy-ran.md"]),
    ("(layout: ``notes/sweep_layout.md``); ../shared/DESIGN.md", ["notes/sweep_layout.md",
                                                                 "../shared/DESIGN.md"]),
    ("self.md(); l.mdev4_us; see BENCHMARKS.md.", ["BENCHMARKS.md"]),
])
def test_md_pattern(line, names):
    assert [m.group(1) for m in MD_MENTION.finditer(line)] == names
    assert not any(_in_repo(ROOT / n) for n in names if "BENCHMARKS" not in n)


@pytest.mark.parametrize("line, keys", [
    ("//! Model ([TR38901 §7.4.4], eq. 7.4-5; [NS3-MMW-V2] `x`)", ["TR38901", "NS3-MMW-V2"]),
    ("/// [TS38214 Tables 5.1.3.1-1 and 5.1.3.1-2]; [SEED000 Fig. 1]", ["TS38214", "SEED000"]),
    ("let x = ue.sinr[DL]; [`Queue`] [TBS] [`Amc::dl_mcs`]", []),
])
def test_citation_pattern(line, keys):
    assert [m.group(1) for m in CITATION.finditer(line)] == keys
