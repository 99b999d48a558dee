"""What every process crparse forks does first: end with the process that forked it; and, in
a pool's worker, what Ctrl-C leaves to the parent."""

from __future__ import annotations

import os
import signal

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


def note_interrupts() -> None:
    """In a pool's worker: Ctrl-C (SIGINT to the terminal's process group) is the parent's to act
    on, and is only noted here. Raised in the worker, it died inside the pool's queue holding
    the queue's lock, and everyone waited for ever (sweep 17); ignored, a worker went on with
    the PDF read it had begun, or waited for, seconds more (sweep 18): a read checks it first."""
    signal.signal(signal.SIGINT, _note)


def _note(signum, frame) -> None:
    global _interrupted
    _interrupted = True


def interrupted() -> bool:
    return _interrupted
