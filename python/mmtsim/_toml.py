"""Python values → TOML text (by ``tomli-w``), so a scenario given as a dict takes the same
path as a file.

TOML (unlike JSON) has nan and inf, so a NaN probability reaches validation and is
reported with its key path. Paths and numpy scalars (and arrays) become their plain
values; ``None`` has no TOML form and is refused with the key that holds it, as is any
other type a scenario cannot hold (tomli-w would accept dates, which no key takes).

``tomli-w`` does the encoding (string escapes, key quoting, floats); this module only
converts the values first, so that errors name their key path, and folds tomli-w's
multi-line arrays onto one line for the inline values of overrides (``key=value``).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np
import tomli_w


class TomlValueError(ValueError):
    """A value that cannot be written as TOML; the message names its key path."""


def _plain(v: Any, path: str) -> Any:
    """``v`` as the plain types tomli-w writes (bool, int, float, str, list, dict)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    elif isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if v is None:
        raise TomlValueError(f"{path}: None is not allowed; leave the key out instead")
    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise TomlValueError(f"{path}: keys must be strings, not {type(k).__name__}")
            out[k] = _plain(x, f"{path}.{k}" if path else k)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{path}[{i}]") for i, x in enumerate(v)]
    raise TomlValueError(f"{path}: a {type(v).__name__} cannot be written in a scenario")


def value(v: Any, path: str) -> str:
    """One TOML value in inline form, on one line (``[1, 2]``, ``{ a = "x" }``)."""
    # Wrapped in two arrays, any value (a table too) is written as an inline literal:
    # tomli-w writes a top-level table, or a list of tables, as [table] sections.
    text = tomli_w.dumps({"v": [[_plain(v, path)]]}, indent=0)
    # tomli-w puts each array item on its own line. Strings never hold a raw newline
    # (tomli-w escapes it without multiline_strings), so every newline is array layout.
    text = text.replace("[\n", "[").replace(",\n]", "]").replace(",\n", ", ")
    prefix, suffix = "v = [[", "]]\n"
    assert text.startswith(prefix) and text.endswith(suffix), text
    return text[len(prefix):-len(suffix)]


def document(d: Mapping[str, Any]) -> str:
    """A whole TOML document."""
    return tomli_w.dumps(_plain(d, ""))
