"""What a document's text depends on, as one sha256: the identity by which the store and the
site know a release.

For most documents that is their bytes. A reST file with a toctree is more: parsing it reads the
other `.rst` files of its directory tree, so their names and bytes are in its fingerprint too.
Keyed by the index alone, two editions with the same `index.rst` (the date is in a chapter) were
one release to `index`, and a chapter changed after indexing was never read again (sweep 27).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from crparse.inputs import Unread, inputs, read_regular, real_path_or_none, resolved
from crparse.limits import max_input
from crparse.readers import runs

# The files of an edition's tree that are read to be hashed: past this many, or the input limit
# in all, a file is known by its size, time and inode instead (each is in the fingerprint: only
# the first 10,000 were, and a chapter changed after them was never seen: sweep 33).
MAX_EDITION_FILES = 10_000

EditionFiles = list[tuple[str, bytes]]
# docutils reads a directive's name in any case: `.. TocTree::` read the chapters, and its edition
# was known by its index alone (review)
# in UTF-16 too (its NULs), whatever the file's name: the text reader finds a reST document by its
# markup (sweep 28)
_TOCTREE = re.compile(rb"(?i)t\x00{0,3}o\x00{0,3}c\x00{0,3}t\x00{0,3}r\x00{0,3}e\x00{0,3}e")


def fingerprint(path: str | os.PathLike, directories: dict[str, bytes] | None = None,
                data: bytes | None = None) -> str:
    """The sha256 of the document at `path`: its bytes (`data`, when the caller read them),
    read as a reader reads them (a regular file within the input limit: a 3 GiB file was read
    whole to be hashed, and only then refused), and for a reST file with a toctree the digest of
    its directory's tree: the names and bytes of every `.rst` file in it. `directories` keeps the
    digests of the trees walked in a run, by real path, every directory below them included: each
    of 1,000 such files in one directory hashed all the others, 42 s (sweep 26), and each of 400
    such files one below another its whole subtree, 12.6 s (sweep 27). Without it, the run's own
    (crparse.readers.runs): `index` checking 1,000 stored releases of one directory walked it
    1,000 times (34 s: sweep 33). Raises Unread where the document itself cannot be read, and
    Unwalked where the run's bound on walks again is spent."""
    path = Path(path)
    if data is None:
        data = read_regular(path, max_input())
    digest = hashlib.sha256(data)
    if not reads_its_directory(path, data):
        return digest.hexdigest()
    if directories is None:
        directories = runs.remembered("fingerprint-directories", dict)
    key = resolved(path.parent)
    tree = directories.get(key)
    if tree is None:
        # the document is the index in its own directory, a link or not (crparse.readers.rst)
        files, linked, whole = edition_files(path.parent, by=os.path.join(key, path.name))
        trees = _tree_digests(files)
        tree = trees[""]
        directories[key] = tree
        if not whole:  # some known by size and time, which a walk of the directory below may read
            trees = {}  # (the same file had two fingerprints, by what else the run held: review)
        # each directory's below is its digest too, but for those above a link: a link leads
        # inside the top or out of the directory below, and a walk from there would pass over it
        # (an index.rst linked to a file of the top made an edition of its directory, whose
        # chapter the reader of a master above it reads, and its change was unseen: sweep 33)
        tainted = {os.path.dirname(name) for name in linked}
        for folder in list(tainted):
            while folder and (folder := os.path.dirname(folder)) not in tainted:
                tainted.add(folder)
        for relative, below in trees.items():
            if relative and relative not in tainted:
                directories[key + os.sep + relative] = below
    digest.update(b"\0tree\0" + tree)
    return digest.hexdigest()


def _tree_digests(files: EditionFiles) -> dict[str, bytes]:
    """The digest of each directory's tree, by its name relative to the top ("" the top), from
    the names and digests of the files in them: a directory's is that of its files' names and
    digests, and its directories' names and digests, so that each file is hashed once however
    deep it lies."""
    own: dict[str, list[tuple[str, bytes]]] = {"": []}
    below: dict[str, list[str]] = {"": []}
    for name, hashed in files:
        folder, base = os.path.split(name)
        own.setdefault(folder, []).append((base, hashed))
        made = []
        while folder not in below:  # each directory once, up to one met before
            below[folder] = []
            made.append(folder)
            folder = os.path.dirname(folder)
        # linked to their parents once all are made: a parent made by its first child stopped the
        # way up, and a/ of an edition whose chapter is a/b/c.rst was in no digest (its change
        # unseen), and in none of its own (a KeyError, exit 3: sweep 32)
        for folder in made:
            parent, child = os.path.split(folder)
            below[parent].append(child)
    digests: dict[str, bytes] = {}
    for folder in sorted(below, key=lambda f: f.count(os.sep) + bool(f), reverse=True):  # the deepest first
        h = hashlib.sha256()
        for base, hashed in sorted(own.get(folder, ())):  # none: a directory of directories
            h.update(b"f" + base.encode("utf-8", "surrogateescape") + b"\0" + hashed)
        for child in sorted(below[folder]):
            h.update(b"d" + child.encode("utf-8", "surrogateescape") + b"\0" + digests[os.path.join(folder, child)])
        digests[folder] = h.digest()
    return digests


def reads_its_directory(path: Path, data: bytes) -> bool:
    """Whether parsing the document may read other files of its directory tree (a reST file with
    a toctree: an edition's index, or a master file beside its chapters; any file holding the
    word, in UTF-8 or UTF-16, is taken for one)."""
    return _TOCTREE.search(data) is not None


class Unwalked(Unread):
    """A tree not walked for a fingerprint: the run's bound on walks again is spent. The
    file may well hold what it held: a store keeps its release (sweep 33: dropped as gone)."""


def edition_files(directory: Path, by: str | None = None) -> tuple[EditionFiles, list[str], bool]:
    """The `.rst` files of an edition's directory tree (its own: by crparse's walk, a loop, not
    into other editions; Path.rglob recursed for each level, and a tree 1,100 deep below an edition
    ended `docs` with a RecursionError, exit 3: sweep 25), by name in it, with their sha256. One
    that cannot be read counts as such (the reader says why, when it needs it). `by`: the
    document whose tree it is, for a walk of directories another document's walked first, which
    is charged to the run (crparse.readers.runs.list_again): raises Unwalked past its bound.
    Also the names of those files that are symbolic links, and of the index.rst met that are
    (whether their directory is an edition depends on where they lead), and whether every file
    was read (none known by its size and time instead)."""
    budget = max_input()
    real_top = resolved(directory)
    linked: list[str] = []

    def visit(folder: str, entries: int) -> None:
        if os.path.islink(os.path.join(folder, "index.rst")):  # an edition, or not, by where it leads
            linked.append(os.path.join(os.path.relpath(folder, real_top), "index.rst"))
        # each of 60 documents one per level of a chain walked and read the 10,000 files below
        # them all again, 30 s (sweep 32)
        spent = runs.list_again("fingerprint", folder, by or str(directory), entries)
        if spent > runs.MAX_REPEATED_LISTING:
            raise Unwalked(f"its directory's tree was not walked for its fingerprint: the walks of directories another "
                         f"document of this run walked first have met {spent:,} entries, past the "
                         f"{runs.MAX_REPEATED_LISTING:,} a run may (crparse.readers.runs.MAX_REPEATED_LISTING; reST "
                         "files with a toctree one below another each walk the tree below them): index it alone")

    # hidden files too, and files that are links: a toctree reads them (sweep 28)
    walked = inputs([directory], editions=False, once=False, other_editions=False, record=False, hidden=True,
                    visit=visit)
    top = str(directory)
    prefix = "" if top == "." else top if top.endswith("/") else top + "/"
    paths = sorted(i.path for i in walked if i.skipped is None and i.path.endswith(".rst"))
    # each file's digest once a run, by its inode: 3,000 editions whose chapters are hard links to
    # the same four 1 MB files hashed 12 GB, 21 s (sweep 35)
    hashed: dict[tuple, bytes] = runs.remembered("fingerprint-files", dict)
    files, whole = [], True
    for n, f in enumerate(paths):
        name = f[len(prefix):] if f.startswith(prefix) else os.path.relpath(f, top)
        # a link is known by where it leads too: the reader refuses some (into another edition, to
        # a file read already), and a chapter swapped for a link to the same bytes was unseen
        # (sweep 34)
        target = _link_target(f)
        if target is not None:
            linked.append(name)
        identity = _identity(f)
        if n >= MAX_EDITION_FILES:
            files.append((name, b"\0unread" + _signature(identity)))
            whole = False
            continue
        if identity is not None and identity in hashed and identity[2] <= budget:
            content = hashed[identity]
            budget -= identity[2]
        else:
            try:
                part = read_regular(f, max(budget, 0))
            except Unread as why:
                # past the input limit in all (a large file the toctree names not): each is known by
                # its size and time, not by nothing, so that its change is seen (sweep 28)
                files.append((name, b"\0unread" + _signature(identity) if why.too_large else b"\0unread"))
                whole = whole and not why.too_large
                continue
            budget -= len(part)
            content = hashlib.sha256(part).digest()
            if identity is not None:
                hashed[identity] = content
        files.append((name, content if target is None else hashlib.sha256(content + b"\0link\0" + target).digest()))
    return files, linked, whole


def _identity(path: str) -> tuple[int, int, int, int] | None:
    """A file's device, inode, size and time: the same for the same bytes within a run."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


def _link_target(path: str) -> bytes | None:
    """Where a symbolic link leads (its real path), None for a file that is none."""
    if not os.path.islink(path):
        return None
    return os.fsencode(real_path_or_none(path) or "")  # by the kernel: a chain of 2,000 `./` is costly


def _signature(identity: tuple[int, int, int, int] | None) -> bytes:
    """A file not read, known by its size, time and inode (_identity: one stat for both)."""
    if identity is None:
        return b""
    _, inode, size, mtime = identity
    return f"{size}:{mtime}:{inode}".encode()
