"""Which files a list of paths names: files as given, directories walked.

A directory is walked in name order, hidden entries skipped. A reST edition (a directory with
an `index.rst`) is one document: the index is listed and the files its toctree names are not,
because parsing the index reads them. Only regular files are listed as documents; anything else
met in a walk (a FIFO, a device, a socket) is listed with the reason it is skipped, so that
nothing blocks on it and nothing disappears without a word.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

_TOCTREE = re.compile(r"^\.\. toctree::[^\n]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.MULTILINE)


class Input(NamedTuple):
    path: str
    named: bool  # given by the user, rather than found in a directory
    skipped: str | None = None  # why it is not a document to read, when it is not


def inputs(paths: Iterable[str | os.PathLike], *, editions: bool = True) -> Iterator[Input]:
    """The files `paths` name, in order. A named path that does not exist is listed as it
    is: reading it reports the error with its name. `editions=False` lists the files of a reST
    edition one by one (for tools that read files rather than documents)."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from _walk(path, editions)
        else:
            yield Input(str(raw), True, _special(path))


def _walk(top: Path, editions: bool) -> Iterator[Input]:
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(root)
        included = toctree_files(here / "index.rst") if editions and "index.rst" in names else set()
        for name in sorted(names):
            if name.startswith(".") or name in included:
                continue
            path = here / name
            yield Input(str(path), False, _special(path))


def _special(path: Path) -> str | None:
    """Why `path` is not a regular file to read (None when it is, or does not exist)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "not a regular file (a FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "not a regular file (a device)"
    if stat.S_ISSOCK(mode):
        return "not a regular file (a socket)"
    return "not a regular file"


def toctree_files(index: Path) -> set[str]:
    """The file names an `index.rst` lists in its toctrees, without reading them."""
    if _special(index) is not None:
        return set()
    try:
        text = index.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    names = set()
    for block in _TOCTREE.findall(text + "\n"):
        for line in block.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                names.add(entry if entry.endswith(".rst") else entry + ".rst")
    return names
