"""Writing outputs: a file whole, through a new file renamed over the name; and one writer at a
time on an output (a store, a site), by a lock on a file beside it.

Two things make this the only way crparse writes a file it owns (a cache entry, an emitted test
file): a run killed while writing leaves the old file or none, never half of one; and a symbolic
or hard link standing at the name is replaced, never followed to overwrite the file it points to.
The new file is created exclusively (O_EXCL, O_NOFOLLOW) under a random name of fixed length
(`.crparse-<hex>.tmp`: a name as long as the system allows still has room for it), so a link
planted at that name is not written through either. Nothing is synced to disk: the promise is
for a process killed, not for power lost.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from crparse.errors import CrparseError

_POLL = 0.1
TEMPORARY_PREFIX = ".crparse-"  # and 12 hex digits, ".tmp": what a killed run may leave (see is_temporary)


def is_temporary(name: str) -> bool:
    """Whether a file name is one `replace` writes before renaming it."""
    return (len(name) == len(TEMPORARY_PREFIX) + 16 and name.startswith(TEMPORARY_PREFIX) and name.endswith(".tmp")
            and all(c in "0123456789abcdef" for c in name[len(TEMPORARY_PREFIX):-4]))


def replace(path: Path, data: bytes | str) -> None:
    """Write `data` (str as UTF-8) as `path`, atomically. The directory must exist. An OSError
    names `path`: the temporary it failed on is gone, or never was (a directory in the way, a
    directory not writable)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(8):
        temporary = path.with_name(f"{TEMPORARY_PREFIX}{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temporary, flags, 0o666)  # the umask applies, as to any file written
        except FileExistsError:
            continue
        except OSError as err:
            raise _naming(err, path) from None
        break
    else:
        raise FileExistsError(errno.EEXIST, "cannot create a temporary file beside it", str(path))
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException as err:
        temporary.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise _naming(err, path) from None
        raise


def _naming(err: OSError, path: Path) -> OSError:
    """The same error (the same class, errno and message), about `path`."""
    if err.errno is None:
        return err
    return OSError(err.errno, err.strerror, str(path))  # OSError picks the subclass of the errno


def make_directories(path: str | os.PathLike) -> None:
    """`path` and the directories above it that are missing, made top down by a loop: os.makedirs
    recurses once for each missing one, and a store, a site or tests to write 1,000 directories
    down ended with a RecursionError, exit 3 (sweep 41)."""
    missing = []
    folder = Path(os.path.abspath(path))
    while not folder.is_dir():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            if not folder.is_dir():
                raise


@contextlib.contextmanager
def exclusive(where: Path, *, subject: str, busy: str, wait: float,
              waiting: Callable[[float], None] | None = None) -> Iterator[None]:
    """Hold an advisory lock on the file `where` for the block: the kernel's (flock), so a run
    killed at any point holds it no longer, whatever the file says. Another run holding it is
    waited for at most `wait` seconds (`waiting(wait)` called once when the wait begins); then
    the run is refused with `busy`, naming `subject` (the store or site the lock guards)."""
    import fcntl

    # The file is only ever locked, never read or written: a link in its place is not followed
    # (it could name any file), and what is not a regular file is not locked.
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        make_directories(where.parent)
        fd = os.open(where, flags, 0o644)
    except OSError as err:
        raise CrparseError(f"cannot take the lock file {where}: {why_not_made(where, err)}", path=subject) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CrparseError(f"cannot take the lock file {where}: not a regular file", path=subject)
        deadline = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            except OSError as err:  # a file system without locks
                raise CrparseError(f"cannot lock the lock file {where}: {err.strerror or err}", path=subject) from None
            now = time.monotonic()
            if deadline is None:
                deadline = now + wait
                if waiting is not None and wait > 0:
                    waiting(wait)
            if now >= deadline:
                raise CrparseError(busy, path=subject)
            time.sleep(min(_POLL, deadline - now))
        yield
    finally:
        os.close(fd)  # the lock goes with the last descriptor of the file


def why_not_made(where: Path, err: OSError) -> str:
    """Why the file or directory `where` could not be made or opened (`err`), in the words of
    what is in the way: mkdir says "File exists" of a file or a dangling link where a directory
    of the path goes, and open with O_NOFOLLOW "Too many levels of symbolic links" of a link at
    the name."""
    from crparse.inputs import file_kind

    if err.errno in (errno.EEXIST, errno.ENOTDIR, errno.ELOOP):
        for part in (*reversed(where.parents), where):
            try:
                status = os.lstat(part)
            except OSError:
                break  # what does not exist yet is made
            if stat.S_ISLNK(status.st_mode):
                try:
                    status = os.stat(part)
                except OSError:
                    return f"{part} is a symbolic link that leads nowhere"
                if part == where:
                    return f"{part} is a symbolic link (not followed)"
            kind = file_kind(status.st_mode)
            if part != where and kind != "a directory":
                return f"{part} is {kind or 'a file'}, not a directory"
    return err.strerror or str(err)


def tree(top: str | os.PathLike) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk(top), top down, following no link, by a loop: Python 3.11's os.walk recurses for
    each level, and an output directory 1,100 deep ended `docs` with a RecursionError, exit 3
    (sweep 25). A directory that cannot be listed is passed over, as os.walk does."""
    stack = [os.fspath(top)]
    while stack:
        root = stack.pop()
        dirs, files = [], []
        try:
            with os.scandir(root) as listing:
                for entry in listing:
                    try:
                        (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
                    except OSError:
                        files.append(entry.name)
        except OSError:
            continue
        yield root, dirs, files
        stack.extend(os.path.join(root, name) for name in reversed(dirs))


def remove_tree(path: str | os.PathLike) -> None:
    """shutil.rmtree(path, ignore_errors=True), by a loop (shutil.rmtree recurses for each level
    too): what is in it, deepest first, then it; a link is removed, not followed."""
    path = os.fspath(path)
    if os.path.islink(path) or not os.path.isdir(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    folders = []
    for root, _, files in tree(path):
        folders.append(root)
        for name in files:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            os.rmdir(folder)
