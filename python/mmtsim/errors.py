"""Plain-words descriptions of file-system problems, and up-front checks of output paths.

The command line must name the path and the problem ("--out out/run: is a file; expected
a folder") instead of printing an operating-system message such as "[Errno 20] Not a
directory", and must refuse an output it cannot write *before* it runs anything, so that
nothing partial is left behind.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: errno → what it means for a path the user gave.
_PLAIN = {
    errno.ENOENT: "does not exist",
    errno.ENOTDIR: "a part of this path is a file, not a folder",
    errno.EISDIR: "is a folder; expected a file",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "is on a read-only file system",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EEXIST: "already exists",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many symbolic links",
}


def describe_os_error(e: OSError, path: str | os.PathLike | None = None) -> str:
    """"PATH: what went wrong", in words (the OS message only for an errno not listed)."""
    where = path if path is not None else (e.filename or "")
    what = _PLAIN.get(e.errno, e.strerror or str(e))
    return f"{where}: {what}" if where else what


class OutputPathError(ValueError):
    """An output path that cannot be written (bad input: exit code 2)."""


def check_output_folder(path: str | os.PathLike, flag: str = "--out") -> Path:
    """Refuses an output folder that cannot be created or written, naming the flag and path.

    An existing folder is accepted if writable; a new one needs its nearest existing parent
    to be a writable folder."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputPathError(f"{flag} {path}: is a file; expected a folder (new or existing)")
    probe = p
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OutputPathError(f"{flag} {path}: {probe} is a file, so the folder cannot be "
                              "created there")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputPathError(f"{flag} {path}: permission denied: cannot write in {probe}")
    return p
