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

from crparse.limits import describe, max_input

_TOCTREE = re.compile(r"^\.\. toctree::[^\n]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.MULTILINE)


# The formats a document can be read as (crparse.readers.detect chooses one; --format names one).
FORMATS = ("text", "markdown", "rst", "html", "docx", "pdf", "rtf")


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
    kind = file_kind(mode)
    return None if kind is None else "a directory" if kind == "a directory" else f"not a regular file ({kind})"


def file_kind(mode: int) -> str | None:
    """What a file that is not a regular file is ("a FIFO", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


class Unread(Exception):
    """Why a file was not read: `reason` is a phrase for a message ("a FIFO", "cannot read: ...");
    `too_large` says the size limit was the reason."""

    def __init__(self, reason: str, *, kind: str | None = None, too_large: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.too_large = too_large


def read_regular(path: str | os.PathLike, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, the one way crparse reads a file
    the input chose. stat before opening (opening a FIFO waits for a writer; opening some devices
    acts), open non-blocking (and without following a last link when `follow` is False: the file
    may have been swapped since), check again on the open file, and read at most `limit + 1`
    bytes (it may have grown): no read blocks, and none is unbounded."""
    try:
        _check(os.stat(path), limit)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        if not follow:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as f:
            _check(os.fstat(fd), limit)
            raw = f.read(limit + 1)
    except OSError as err:
        raise Unread(f"cannot read: {err.strerror or err}") from None
    except ValueError:  # a name the file system cannot encode (a NUL)
        raise Unread("cannot read: not a usable file name") from None
    if len(raw) > limit:
        raise Unread(f"larger than the {describe(limit)} limit", too_large=True)
    return raw


def _check(status: os.stat_result, limit: int) -> None:
    kind = file_kind(status.st_mode)
    if kind is not None:
        raise Unread(kind, kind=kind)
    if status.st_size > limit:
        raise Unread(f"{status.st_size:,} bytes, larger than the {describe(limit)} limit", too_large=True)


def toctree_files(index: Path) -> set[str]:
    """The file names an `index.rst` lists in its toctrees, without reading them."""
    try:
        text = read_regular(index, max_input()).decode("utf-8", "replace")
    except Unread:  # parsing the index reports why
        return set()
    names = set()
    for block in _TOCTREE.findall(text + "\n"):
        for line in block.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                names.add(entry if entry.endswith(".rst") else entry + ".rst")
    return names
