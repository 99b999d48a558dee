"""One `crparse index` at a time on a store.

An index run commits in small transactions (a killed run keeps what it committed), so SQLite's
own locking serialises only each transaction: two runs would interleave, both find a release
missing, and the second's insert meet the first's row (a UNIQUE constraint, then called damage),
or find the schema half made. The run holds an advisory lock on a file beside the store, a hidden
one (`.store.sqlite.lock`: a directory indexed that holds its store does not read it), from before it creates or rebuilds the store until it ends. The lock is
the kernel's (flock): a run killed at any point holds it no longer, whatever the file says.

Only `index` takes it: the commands that read the store read committed transactions (WAL) and
never wait for it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from crparse.errors import CrparseError

# How long a run waits for another to end before it gives up: an update of a few releases takes
# seconds, a store built from nothing (112 releases) about 35 s.
WAIT = 60.0
_POLL = 0.1


def lock_path(store: Path) -> Path:
    return store.with_name(f".{store.name}.lock")


@contextlib.contextmanager
def writing(store: Path, *, wait: float | None = None, waiting: Callable[[float], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock for the block. Another run holding it is waited for at most
    `wait` seconds (default WAIT), `waiting(seconds)` called once when the wait begins; then the
    run is refused, naming the store."""
    import fcntl

    wait = WAIT if wait is None else wait
    where = lock_path(store)
    # The file is only ever locked, never read or written: a link in its place is not followed
    # (it could name any file), and what is not a regular file is not locked.
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(where, flags, 0o644)
    except OSError as err:
        raise CrparseError(f"cannot take the store's lock file {where}: {err.strerror or err}", path=str(store)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CrparseError(f"cannot take the store's lock file {where}: not a regular file", path=str(store))
        deadline = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            except OSError as err:  # a file system without locks
                raise CrparseError(f"cannot lock the store's lock file {where}: {err.strerror or err}",
                                   path=str(store)) from None
            now = time.monotonic()
            if deadline is None:
                deadline = now + wait
                if waiting is not None and wait > 0:
                    waiting(wait)
            if now >= deadline:
                raise CrparseError("another crparse index is updating this store; run again when it ends",
                                   path=str(store))
            time.sleep(min(_POLL, deadline - now))
        yield
    finally:
        os.close(fd)  # the lock goes with the last descriptor of the file
