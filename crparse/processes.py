"""What every process crparse forks does first: end with the process that forked it."""

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
