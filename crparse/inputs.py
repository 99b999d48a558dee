"""Which files a list of paths names: files as given, directories walked.

A directory is walked in name order, hidden entries skipped. A reST edition (a directory with
an `index.rst`) is one document: the index is listed and its other `.rst` files are not,
because parsing the index reads them. Only regular files are listed as documents; anything else
met in a walk (a FIFO, a device, a socket) is listed with the reason it is skipped, so that
nothing blocks on it and nothing disappears without a word. A walk does not follow a symbolic
link out of the directory it was given.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from crparse.limits import describe



# The formats a document can be read as (crparse.readers.detect chooses one; --format names one).
FORMATS = ("text", "markdown", "rst", "html", "docx", "pdf", "rtf")


class Input(NamedTuple):
    path: str
    named: bool  # given by the user, rather than found in a directory
    skipped: str | None = None  # why it is not a document to read, when it is not
    unread: bool = False  # skipped because it could not be read (an error, unlike a FIFO met in a walk)

    @property
    def refused(self) -> bool:
        """Whether leaving it out makes the run's exit status 2, whatever the command: it was
        named, or could not be read (a directory not read may hold documents). A FIFO, a device
        or a link leading out met in a walk is no document: said, and passed over."""
        return self.skipped is not None and (self.named or self.unread)


def many_paths(paths, call: str) -> list[str]:
    """The paths of an iterable of them, as str; one path given where an iterable of them is
    wanted is refused (`call`: how to call it right): a str is an iterable, and each of its
    characters was taken for a path ("/": the whole disk). So is an item that is no path: None
    or b"cr.txt" was read as a file named "None" or "b'cr.txt'" (sweep 44)."""
    name = call.partition("(")[0]
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} takes an iterable of paths, not one path: {call}")
    listed = list(paths)
    for path in listed:
        if not isinstance(path, (str, os.PathLike)) or isinstance(os.fspath(path), bytes):
            raise TypeError(f"{name} takes paths (str or path-like), not {type(path).__name__}: {call}")
    return [os.fspath(path) for path in listed]


def inputs(paths: Iterable[str | os.PathLike], *, editions: bool = True, once: bool = True,
           other_editions: bool = True, record: bool = True, hidden: bool = False,
           visit: Callable[[str, int], None] | None = None) -> Iterator[Input]:
    """The files `paths` name, in order. A named path that does not exist is listed as it
    is: reading it reports the error with its name. `editions=False` lists the files of a reST
    edition one by one (for tools that read files rather than documents); `other_editions=False`
    does not go into a directory below a given one that holds an edition of its own (an
    `index.rst`): an edition's own files. `record=False` leaves where a walk listed its files
    found as it was (listed_at): for a walk whose files are not read by their names (an edition's
    listing, done while the edition is read, said where its files were from a directory swapped
    since the first walk: sweep 26). `hidden`: hidden entries are walked too (what a reST
    edition's toctree may read, which knows no hidden files). `visit(directory, entries)` is
    called for each directory a walk scans (its real path, how many entries it has): it may
    raise to stop the walk (crparse.readers.runs.list_again).

    With `once`, a file a walk meets again under another name (a symbolic or hard link, or a
    file named and also in a directory given) is listed as skipped, naming the one that is
    read: 3,000 links to one 234 KB release were 3,000 parses, `lineage` 31 s and 2.5 GB
    (sweep 23). In a walk, a file's own name is read rather than a link to it, wherever the
    two are met. A file named twice is read twice: the user asked. A reST edition is its index
    and its directory: two directories whose index.rst is one file are two editions (the
    second was skipped, and its chapters with it: sweep 25)."""
    seen: dict[tuple, str] = {}
    for raw in paths:
        path = Path(raw)
        if _is_dir(path):
            if once:
                yield from _once(_walk(path, editions, other_editions, record, hidden, visit), seen)
            else:
                yield from (item for item, _, _ in _walk(path, editions, other_editions, record, hidden, visit))
        else:
            skipped, status = _special_status(path)
            if skipped is None and status is not None:
                edition = real_path_or_none(path.parent) if editions and path.name == "index.rst" else None
                seen.setdefault(_identity(status, edition), str(raw))
            yield Input(str(raw), True, skipped)


def _identity(status: os.stat_result, edition: str | None = None) -> tuple:
    """What makes a document one: its file, and for a reST edition's index its directory too."""
    return (status.st_dev, status.st_ino) if edition is None else (status.st_dev, status.st_ino, edition)


def real_path_or_none(path: str | os.PathLike) -> str | None:
    """real_path(path), or None where none resolves (missing, a loop, a name the system refuses)."""
    try:
        return real_path(path)
    except (OSError, ValueError):
        return None


def _once(walked: Iterable[tuple[Input, tuple | None, bool]], seen: dict[tuple, str]) -> Iterator[Input]:
    """A walk's inputs, each file under one name: the one met before this walk (`seen`: a file
    named, or in a directory given before), else the first of its own names (not links) in the
    walk, else its first link."""
    listed = list(walked)
    chosen: dict[tuple, str] = {}
    for item, identity, linked in listed:
        if identity is not None and identity not in seen and not linked:
            chosen.setdefault(identity, item.path)
    for item, identity, _ in listed:
        if identity is not None:
            # met before this walk: passed over here whatever the spelling of its name (a file
            # named "d/a.txt" was read again in the walk of "d", and "./d/a.txt" was not: review)
            first = seen.get(identity) or chosen.setdefault(identity, item.path)
            if identity in seen or first != item.path:
                yield Input(item.path, False, f"the same file as {first}, read once")
                continue
        yield item
    for identity, path in chosen.items():
        seen.setdefault(identity, path)


def _walk(top: Path, editions: bool, other_editions: bool = True, record: bool = True,
          hidden: bool = False, visit: Callable[[str, int], None] | None = None,
          ) -> Iterator[tuple[Input, tuple | None, bool]]:
    """The files under `top`, depth first in name order, by a loop rather than os.walk's
    recursion (a directory 1,000 deep ended every command with a RecursionError, exit 3, the
    files beside it unread: sweep 17). A symbolic link leading outside `top` is listed as
    skipped, with the reason (a walk reads only what lies under the directory it was given).

    With `editions`, a directory holding an `index.rst` that is a file to read is a reST
    edition, and its other `.rst` files (and those below, up to another edition's directory)
    are not listed: the edition is read through its index, which reads only the files its
    toctree names inside the edition, and a file the index refused must not be read on its
    own. An `index.rst` that is not read (a FIFO, a link leading out) makes no edition: the
    `.rst` files beside it are listed, not dropped without a word (sweep 17).

    A link to a directory inside `top` is walked where it lies; one to a hidden directory, which
    the walk passes over, is listed as skipped (it went without a word: sweep 24)."""
    try:
        real_top = real_path(top)
    except OSError:  # the listing says why
        real_top = os.path.abspath(top)
    stack: list[tuple[Path, Path | None]] = [(top, None)]  # a directory, the edition it is in
    while stack:
        here, edition = stack.pop()
        try:
            entries, scanned = [], 0
            with os.scandir(here) as listing:
                for e in listing:
                    scanned += 1
                    if hidden or not e.name.startswith("."):
                        entries.append(e)
            entries.sort(key=lambda e: e.name)
        except (OSError, ValueError) as err:  # unreadable, past PATH_MAX: this directory only, not the walk
            yield Input(str(here), False, f"a directory that cannot be read: {getattr(err, 'strerror', None) or err}", True), None, False
            continue
        if visit is not None:  # its real path: the walk goes into no link to a directory; every entry
            # scanned, hidden ones too (50,000 of them were a directory of none: review)
            visit(real_top if here == top else os.path.join(real_top, os.path.relpath(here, top)), scanned)
        files, below, linked_files = [], [], {}  # linked_files: a link -> where it led when listed
        for entry in entries:
            path = here / entry.name
            try:
                linked = entry.is_symlink()
                real = real_path(path) if linked else None
                outside = real is not None and not inside(real, real_top)
                is_dir = entry.is_dir()
            except (OSError, ValueError) as err:  # a path past PATH_MAX: this entry only, not the walk
                yield Input(str(path), False, f"cannot be read: {getattr(err, 'strerror', None) or err}", True), None, False
                continue
            if outside:  # a link to a directory was passed over without a word before (sweep 14)
                yield Input(str(path), False, f"a symbolic link leading outside {top}"), None, True
            elif is_dir:
                if not linked:  # a link to a directory inside is walked where it lies
                    below.append(path)
                elif not hidden and real is not None and any(
                        part.startswith(".") for part in Path(os.path.relpath(real, real_top)).parts):
                    yield Input(str(path), False, "a symbolic link to a hidden directory, which a walk passes over"), None, True
            else:
                files.append(path)
                if linked:
                    linked_files[path] = real
        if here / "index.rst" in files and _special_status(here / "index.rst")[0] is None:
            if not other_editions and here != top:
                continue  # another edition's, and all below it (filtering them out after a walk of
                # everything was quadratic in nested editions: 2,000 took 23 s, sweep 24)
            if editions:
                edition = here
        for path in files:
            if edition is not None and path.name.endswith(".rst") and path != edition / "index.rst":
                continue  # read through the edition's index.rst (or, if it does not name it, not at all)
            skipped, status = _special_status(path)
            index = edition is not None and path == edition / "index.rst" and edition == here
            identity = None if skipped is not None or status is None else \
                _identity(status, os.path.normpath(os.path.join(real_top, os.path.relpath(here, top))) if index else None)
            if skipped is None and record:
                if path in linked_files:  # read where it led when listed: a link re-pointed out since
                    # was followed, and the outside file read (sweep 25)
                    _WALKED[str(path)] = linked_files[path]
                    _WALKED_LINKS.add(str(path))
                else:
                    _WALKED[str(path)] = os.path.join(real_top, os.path.relpath(path, top))
            yield Input(str(path), False, skipped), identity, path in linked_files
        stack.extend((path, edition) for path in reversed(below))


# The files a walk listed, and where each really is: read there or not at all (read_regular): one
# swapped for a link leading out after the listing was read, and shown (sweep 17), and so was one
# under a directory swapped for a link (sweep 18). A link is read at the file it led to when listed.
_WALKED: dict[str, str] = {}
_WALKED_LINKS: set[str] = set()  # those of them that are links


def listed_at(path: str | os.PathLike) -> str | None:
    """Where the file at `path` really was when a walk listed it (None if no walk did)."""
    return _WALKED.get(os.fspath(path))


def listed_as_link(path: str | os.PathLike) -> bool:
    """Whether a walk listed `path` as a symbolic link (listed_at: where it led)."""
    return os.fspath(path) in _WALKED_LINKS


def _is_dir(path: Path) -> bool:
    """Path.is_dir, but a name too long for the system (ENAMETOOLONG, which pathlib does not
    swallow) is no directory: reading it then says why."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def real_path(path: str | os.PathLike) -> str:
    """Where `path` really is, its symbolic links resolved by the kernel (an O_PATH descriptor's
    name in /proc/self/fd, which opens nothing: a FIFO does not block). os.path.realpath follows
    links in Python, a recursion for each: a chain of 2,000 links was a RecursionError, exit 3
    for a whole directory, and one whose target holds 800 `c/..` steps cost 90 ms a link (200
    such links, 21 s: sweep 22). A path the kernel will not resolve (missing, a loop, a chain past
    its 40 links) raises OSError."""
    if _PROC_FD:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        finally:
            os.close(fd)
    try:
        return os.path.realpath(path, strict=True)
    except RecursionError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


_PROC_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")


def resolved(path: str | os.PathLike) -> str:
    """As os.path.realpath (a path that does not exist yet, a store to make, is resolved as far
    as it goes), without its recursion on a chain of links: a store or a release named through
    1,500 links was a RecursionError, exit 3 (sweep 23). A chain the kernel will not follow
    raises OSError."""
    try:
        return real_path(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise
    try:  # missing, under a file, not to be opened: resolved as far as it goes, as os.path.realpath does
        return os.path.realpath(path)
    except RecursionError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


def inside(path: str, directory: str) -> bool:
    """Whether the real path `path` lies in the real directory `directory`. A name the kernel
    gives what is no file on the file system ("pipe:[8]", for a link to /proc/self/fd/1 when it
    is a pipe) lies nowhere: os.path.commonpath refused it, "Can't mix absolute and relative
    paths", and the link was refused as unreadable, exit 2 (sweep 25)."""
    return os.path.isabs(path) and os.path.commonpath([path, directory]) == directory


def _special_status(path: Path) -> tuple[str | None, os.stat_result | None]:
    """Why `path` is not a regular file to read (None when it is, or does not exist), and its
    status (None when it has none)."""
    try:
        status = path.stat()
    except (OSError, ValueError):
        return None, None
    kind = file_kind(status.st_mode)
    return (None if kind is None else "a directory" if kind == "a directory" else f"not a regular file ({kind})"), status


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


_GROWN_CHUNK = 1 << 20


def read_regular(path: str | os.PathLike, limit: int, *, follow: bool = True, real: str | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, the one way crparse reads a file
    the input chose. stat before opening (opening a FIFO waits for a writer; opening some devices
    acts), open non-blocking (and without following a last link when `follow` is False: the file
    may have been swapped since; and where the file must really be is known, `real` or the
    walk's that listed it, it is read only there), check again on the open file, and read at most `limit + 1`
    bytes (it may have grown): no read blocks, and none is unbounded."""
    if real is None and os.fspath(path) in _WALKED:
        real = _WALKED[os.fspath(path)]
        if os.fspath(path) in _WALKED_LINKS:
            path = real
    try:
        _check(os.stat(path), limit)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        if not follow or real:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
        if real and not _opened_at(fd, real):
            os.close(fd)
            raise OSError(errno.ELOOP, "moved")
        with os.fdopen(fd, "rb") as f:
            status = os.fstat(fd)
            _check(status, limit)
            # A read allocates all it asks for: what the file holds, then what it grew by since.
            raw = f.read(min(limit, status.st_size) + 1)
            while len(raw) <= limit and (more := f.read(min(limit + 1 - len(raw), _GROWN_CHUNK))):
                raw += more
    except OSError as err:
        if real and err.errno == errno.ELOOP:
            raise Unread("cannot read: a symbolic link now on its way, where a file or directory was found: "
                         "it is not where it was") from None
        raise Unread(f"cannot read: {err.strerror or err}") from None
    except ValueError:  # a name the file system cannot encode (a NUL)
        raise Unread("cannot read: not a usable file name") from None
    if len(raw) > limit:
        raise Unread(f"larger than the {describe(limit)} limit", too_large=True)
    return raw


def _opened_at(fd: int, real: str) -> bool:
    """Whether the file open at `fd` is the one at `real` (a path with no link in it), as the
    kernel names it (/proc/self/fd). O_NOFOLLOW guards only a path's last component: a link
    swapped in for a directory on the way was followed. Where the system does not say, yes."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == real
    except OSError:
        return not os.path.isdir("/proc/self/fd")


def _check(status: os.stat_result, limit: int) -> None:
    kind = file_kind(status.st_mode)
    if kind is not None:
        raise Unread(kind, kind=kind)
    if status.st_size > limit:
        raise Unread(f"{status.st_size:,} bytes, larger than the {describe(limit)} limit", too_large=True)
