"""Python values → TOML text, so a scenario given as a dict takes the same path as a file.

TOML (unlike JSON) has nan and inf, so a NaN probability reaches validation and is
reported with its key path. Paths and numpy scalars become their plain values; ``None``
has no TOML form and is refused with the key that holds it.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Mapping


class TomlValueError(ValueError):
    """A value that cannot be written as TOML; the message names its key path."""


def value(v: Any, path: str) -> str:
    """One TOML value (inline form)."""
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (list, dict, str)):
        v = v.item()  # numpy scalar
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if v is None:
        raise TomlValueError(f"{path}: None is not allowed; leave the key out instead")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        # JSON string escapes are valid in TOML basic strings when non-ASCII stays raw.
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Mapping):
        items = ", ".join(f"{key(k, path)} = {value(x, f'{path}.{k}')}" for k, x in v.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x, f"{path}[{i}]") for i, x in enumerate(v)) + "]"
    raise TomlValueError(f"{path}: a {type(v).__name__} cannot be written in a scenario")


def key(k: Any, path: str) -> str:
    if not isinstance(k, str):
        raise TomlValueError(f"{path}: keys must be strings, not {type(k).__name__}")
    return json.dumps(k, ensure_ascii=False)


def document(d: Mapping[str, Any]) -> str:
    """A whole document: one `key = value` line per top-level key."""
    return "".join(f"{key(k, '')} = {value(v, k)}\n" for k, v in d.items())
