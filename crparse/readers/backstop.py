"""A CPU-time backstop for a reader that runs in this process (all but PDF's, which runs in a
confined child with a limit of its own).

Each reader counts, before its library starts, what the library would do with the input, and
refuses what is past its limits (crparse.readers.limits). Those counts are models of docutils,
html.parser, markdown-it, striprtf and lxml; a construct a model under-counts made a document
take 9 to 27 s (reST roles based on roles, substitution chains, runs of delimiters: sweeps 43 to
45). Past the backstop a document is refused, whatever the model said: the model keeps the common
case fast and the refusal precise, the backstop bounds what it misses.

The timer is the process's CPU time (ITIMER_PROF): a loaded machine does not trip it. It is set
only in the main thread of a process with no such timer of its own (a signal handler can only be
set there; a profiler's timer is left alone) and not traced (coverage, a debugger, tracemalloc
slow Python down many times), and raises between two bytecodes: a single call into
C (one regex search) finishes first; the readers bound each of those to a line (docutils' 10,000
characters) or a limit.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from crparse.errors import RefusedInput
from crparse.limits import setting

# CPU seconds a reader may take for one document: the largest official release takes ~2 s in the
# slowest reader (reST), so a genuine document is far below it
MAX_READ_SECONDS = 10

T = TypeVar("T")


def max_read_seconds() -> int:
    return setting("CRPARSE_MAX_READ_SECONDS", MAX_READ_SECONDS)


class _Expired(BaseException):
    """Raised by the timer. A BaseException: a library's `except Exception` does not swallow it."""


def _expired(signum, frame) -> None:
    if signal.getitimer(signal.ITIMER_PROF)[0] == 0:  # not a SIGPROF sent from outside, the timer running
        raise _Expired


def _slowed() -> bool:
    """Whether this process runs under a tracer, a profiler or tracemalloc (coverage, a debugger,
    a test that measures memory): each makes Python several times slower, and a genuine document
    would pass the limit."""
    import tracemalloc

    return sys.gettrace() is not None or sys.getprofile() is not None or tracemalloc.is_tracing()


def within_cpu_limit(what: str, read: Callable[[], T], seconds: int | None = None) -> T:
    """`read()`, refused when it takes more than `seconds` of CPU (default: max_read_seconds());
    `what` names the format in the refusal. The one-shot timer raises at most once: wherever that
    falls after it is set, it is caught, and the previous handler is put back."""
    # past a day a limit is none in practice (and setitimer overflows far below MAX_SETTING)
    seconds = min(max_read_seconds() if seconds is None else seconds, 86_400)
    if (not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_PROF)[0] > 0 or _slowed()):
        return read()
    previous = signal.signal(signal.SIGPROF, _expired)
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            return read()
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _Expired:
        raise RefusedInput(
            f"reading this {what} took more than {seconds} s of CPU, the limit (CRPARSE_MAX_READ_SECONDS): its "
            "markup costs more than crparse's counts of it said (please report it); raise the limit if the file "
            "is genuine") from None
    finally:
        try:
            signal.signal(signal.SIGPROF, signal.SIG_IGN if previous is None else previous)
        except _Expired:  # delivered after the read, before the handler was put back
            signal.signal(signal.SIGPROF, signal.SIG_IGN if previous is None else previous)
