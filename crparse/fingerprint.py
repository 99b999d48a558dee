"""What a document's text depends on, as one sha256: the identity by which the store and the
site know a release.

For most documents that is their bytes. A reST file with a toctree is more: parsing it reads the
other `.rst` files of its directory tree, so their names and bytes are in its fingerprint too.
Keyed by the index alone, two editions with the same `index.rst` (the date is in a chapter) were
one release to `index`, and a chapter changed after indexing was never read again (sweep 27).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from pathlib import Path

from crparse.inputs import Unread, inputs, read_regular, resolved
from crparse.limits import max_input

# An index.rst at the top of a large tree is not walked whole: past this many files, or the
# input limit in all, the reader refuses the edition anyway.
MAX_EDITION_FILES = 10_000

EditionFiles = list[tuple[str, bytes]]
# docutils reads a directive's name in any case: `.. TocTree::` read the chapters, and its edition
# was known by its index alone (review)
_TOCTREE = re.compile(rb"(?i)toctree")


def fingerprint(path: str | os.PathLike, directories: dict[str, EditionFiles] | None = None,
                data: bytes | None = None) -> str:
    """The sha256 of the document at `path`: its bytes (`data`, when the caller read them),
    read as a reader reads them (a regular file within the input limit: a 3 GiB file was read
    whole to be hashed, and only then refused), and for a reST file with a toctree those of every
    `.rst` file of its directory tree, with their names. `directories` keeps those of each
    directory for a run: each of 1,000 such files in one directory hashed all the others, 42 s
    (sweep 26). Raises Unread where the document itself cannot be read."""
    path = Path(path)
    if data is None:
        data = read_regular(path, max_input())
    digest = hashlib.sha256(data)
    if not reads_its_directory(path, data):
        return digest.hexdigest()
    key = resolved(path.parent)
    files = directories.get(key) if directories is not None else None
    if files is None:
        files = edition_files(path.parent)
        if directories is not None:
            directories[key] = files
    for name, hashed in files:
        if name != path.name:
            digest.update(name.encode("utf-8", "surrogateescape"))
            digest.update(hashed)
    return digest.hexdigest()


def reads_its_directory(path: Path, data: bytes) -> bool:
    """Whether parsing the document reads other files of its directory tree (a reST file with a
    toctree: an edition's index, or a master file beside its chapters)."""
    return path.suffix.lower() == ".rst" and _TOCTREE.search(data) is not None


def edition_files(directory: Path) -> EditionFiles:
    """The `.rst` files of an edition's directory tree (its own: by crparse's walk, a loop, not
    into other editions; Path.rglob recursed for each level, and a tree 1,100 deep below an edition
    ended `docs` with a RecursionError, exit 3: sweep 25), by name in it, with their sha256. One
    that cannot be read counts as such (the reader says why, when it needs it)."""
    budget = max_input()
    walked = inputs([directory], editions=False, once=False, other_editions=False, record=False)
    paths = (Path(i.path) for i in walked if i.skipped is None and i.path.endswith(".rst"))
    files = []
    for f in sorted(itertools.islice(paths, MAX_EDITION_FILES)):
        if f.is_symlink() or not f.is_file():
            continue
        name = str(f.relative_to(directory))
        try:
            part = read_regular(f, max(budget, 0))
        except Unread:
            files.append((name, b"\0unread"))
            continue
        budget -= len(part)
        files.append((name, hashlib.sha256(part).digest()))
    return files
