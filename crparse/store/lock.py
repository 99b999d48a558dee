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

from collections.abc import Callable, Iterator
import contextlib
import os
from pathlib import Path

from crparse.inputs import resolved
from crparse.outputs import exclusive

# How long a run waits for another to end before it gives up: an update of a few releases takes
# seconds, a store built from nothing (112 releases) about 35 s.
WAIT = 60.0


def lock_path(store: Path) -> Path:
    """Beside the file the name leads to: a store named through a link to it had a lock of its
    own, two runs interleaved, and one was told the store was damaged (sweep 17)."""
    real = Path(resolved(store))
    return real.with_name(f".{real.name}.lock")


@contextlib.contextmanager
def writing(store: Path, *, wait: float | None = None, waiting: Callable[[float], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock for the block. Another run holding it is waited for at most
    `wait` seconds (default WAIT), `waiting(seconds)` called once when the wait begins; then the
    run is refused, naming the store."""
    if not _may_be_a_store(store):  # refused when it is opened: no lock file beside another file (sweep 19)
        yield
        return
    with exclusive(lock_path(store), subject=str(store), wait=WAIT if wait is None else wait, waiting=waiting,
                   busy="another crparse index is updating this store; run again when it ends"):
        yield


def _may_be_a_store(store: Path) -> bool:
    """Absent, empty, or an SQLite database: a store, or one to make. A link to /etc/passwd
    named as the store left /etc/.passwd.lock behind before the store was refused (sweep 19)."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(store).st_mode):
            return True  # a FIFO (opening it would wait), a directory: refused as it is opened
        fd = os.open(store, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            head = os.read(fd, 16)
        finally:
            os.close(fd)
    except OSError:  # absent, or where it cannot be: the lock's own error says why
        return True
    from crparse.store.db import SQLITE_HEADER

    return head in (b"", SQLITE_HEADER)
