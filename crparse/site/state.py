"""What `crparse docs` reads back of an earlier build in OUT: its stamps, its caches, and the files
it compares with what it is about to write.

Any of them may be damaged or planted (a site restored from elsewhere, a directory shared with
others, an edit by hand), so each is read only as crparse writes it: a regular file, opened
without following a link, no larger than crparse ever writes it (the size checked on the open file
before a byte is read, and never more than that read), decoded as data of a known shape. Anything
else is no state at all: the stamp is missing, the cache is built again. A 2 GiB sparse file at a
stamp's name was read whole (a MemoryError, exit 3); 100,000 `[` in a stamp raised RecursionError.

The bounds, from what crparse writes:

- a stamp: 64 KiB (it is a few hundred bytes: versions and a sha256);
- a release's summary (its date, node keys and pages): the input limit (CRPARSE_MAX_INPUT). Its
  keys are numbers and terms of the release, and it is about a tenth of the release's size: 132 KB
  for 2026-01-16's 1.3 MB of text;
- the diff of two releases: four times the input limit (two texts within it, and their words once
  more: 1.5 MB for 1999-04-23 against 2026-01-16).

crparse does not cache a summary or a diff larger than its bound (the release is parsed, the pair
compared, again on the next run), so a larger file at a cache's name is never one it wrote.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from crparse.inputs import Unread, read_regular
from crparse.limits import max_input

STAMP_LIMIT = 64 * 1024


def summary_limit() -> int:
    return max_input()


def diff_limit() -> int:
    return 4 * max_input()


def read_back(path: Path, limit: int) -> bytes:
    """The bytes of the state file `path`, if it is one crparse could have written; else Unread
    (its reason, for a note), FileNotFoundError's reason included."""
    return read_regular(path, limit, follow=False)


def decoded(data: bytes, shape):
    """`data` decoded as JSON of `shape` (a msgspec type); ValueError if it is not."""
    try:
        return msgspec.json.decode(data, type=shape)
    except RecursionError:  # nesting msgspec walks before it checks the shape (an untyped part)
        raise ValueError("nested too deep") from None


def load(path: Path, limit: int, shape, notes: list[str] | None = None):
    """The state file `path` as data of `shape`, or None: absent, or unusable (then a note in
    `notes`, when given, says why it is built again)."""
    try:
        return decoded(read_back(path, limit), shape)
    except Unread as why:
        if notes is not None and os.path.lexists(path):
            notes.append(f"{path}: {why.reason}; built again")
    except ValueError as why:  # msgspec's errors are ValueErrors
        if notes is not None:
            notes.append(f"{path}: not a cache crparse writes ({why}); built again")
    return None


def holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data` (read only when it is as long)."""
    try:
        return read_back(path, len(data)) == data
    except Unread:
        return False


_STAMP = dict[str, str | list[str] | dict[str, str]]  # what build_release and the root build write


def read_stamp(path: Path) -> dict | None:
    """A stamp, or None: absent, damaged, planted (the build is done again)."""
    return load(path, STAMP_LIMIT, _STAMP)
