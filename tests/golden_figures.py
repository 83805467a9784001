"""Figures of every shipped example, for the regression check of core refactorings.

`python tests/golden_figures.py --write` stores, for each example at its full length,
every field of `summary.json` except those that describe the machine or echo the
input (`wall_seconds`, `mmtsim_version`, `scenario`, `origin`), and a SHA-256 of each
column of each result table. `tests/test_golden.py` runs the examples again and compares
every stored figure; fields and columns added since are allowed (new outputs), a stored
one that moved or went is not.

These numbers are not expected values of any model: they are what the code gave before
a change that must not alter results (a refactoring of the core). A change that alters
a model rewrites the file in its own commit, and the commit says why each figure moved.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden" / "examples.json"
VOLATILE = ("wall_seconds", "mmtsim_version", "scenario", "origin")


def figures(example: Path) -> dict:
    import mmtsim

    res = mmtsim.run(example)
    summary = {k: v for k, v in res.summary.items() if k not in VOLATILE}
    tables = {}
    for name in sorted(res.table_names()):
        df = res.table(name)
        tables[name] = {
            col: hashlib.sha256(df.select(col).write_csv().encode()).hexdigest()
            for col in df.columns
        }
    return {"summary": summary, "tables": tables}


def all_figures() -> dict:
    return {p.stem: figures(p) for p in sorted(EXAMPLES.glob("*.toml"))}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden_figures.py --write")
    GOLDEN.write_text(json.dumps(all_figures(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
