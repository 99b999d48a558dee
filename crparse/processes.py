"""What every process crparse forks does first: end with the process that forked it; and, in
a pool's worker, what Ctrl-C leaves to the parent."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>


def die_with(parent: int) -> None:
    """Called first in a process forked by `parent`: it ends when `parent` does, even killed with
    SIGKILL (which runs no clean-up). A pool's worker would otherwise wait for work forever,
    holding the caller's stdout; a PDF's confined read would go on to its own limits."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown has to do
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


_interrupted = False
_stoppable = False


def note_interrupts() -> None:
    """In a pool's worker: Ctrl-C (SIGINT to the terminal's process group, or from the parent) is
    the parent's to act on. Raised anywhere in the worker, it died inside the pool's queue
    holding the queue's lock, and everyone waited for ever (sweep 17); ignored, a worker went on
    with the parse it had begun (a slow PDF: seconds more, sweeps 18, 19). It is raised only in
    the work itself (see `stoppable`), whose result the pool then sends back; elsewhere it is
    noted, and a PDF read checks that first."""
    signal.signal(signal.SIGINT, _note)


def _note(signum, frame) -> None:
    global _interrupted, _stoppable
    _interrupted = True
    if _stoppable:
        # once: a second Ctrl-C while the first's exception leaves the work (a context manager's
        # exit it may stop before it resets this) or while the pool packs it up is only noted; it
        # broke into the pool's own code with a traceback (sweep 21)
        _stoppable = False
        raise KeyboardInterrupt


@contextmanager
def stoppable() -> Iterator[None]:
    """Within it, in a pool's worker, Ctrl-C ends the work at once: the exception is the work's
    outcome, which the pool's worker code catches and sends back like any other."""
    global _stoppable
    if _interrupted:
        raise KeyboardInterrupt
    _stoppable = True
    try:
        yield
    finally:
        _stoppable = False


def interrupted() -> bool:
    return _interrupted
