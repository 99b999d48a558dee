"""A CPU-time and memory backstop for a reader that runs in this process (all but PDF's, which runs in a
confined child with a limit of its own).

Each reader counts, before its library starts, what the library would do with the input, and
refuses what is past its limits (crparse.readers.limits). Those counts are models of docutils,
html.parser, markdown-it, striprtf and lxml; a construct a model under-counts made a document
take 9 to 27 s (reST roles based on roles, substitution chains, runs of delimiters: sweeps 43 to
45). Past the backstop a document is refused, whatever the model said: the model keeps the common
case fast and the refusal precise, the backstop bounds what it misses.

The watch runs on the process's CPU time (ITIMER_PROF, every 0.1 s): a loaded machine does not
trip it; each time it looks at the CPU time and at the resident memory. It is set
only in the main thread of a process with no such timer of its own (a signal handler can only be
set there; a profiler's timer is left alone) and not traced (coverage, a debugger, tracemalloc
slow Python down many times), and raises between two bytecodes: a single call into
C (one regex search) finishes first; the readers bound each of those to a line (docutils' 10,000
characters) or a limit.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from crparse.errors import RefusedInput
from crparse.limits import describe, setting

# CPU seconds a reader may take for one document: the largest official release takes under 1 s in
# the slowest reader (reST). What a refused read cost is unwound after it (docutils' tree freed:
# ~0.5 s for each second: sweep 47), so the limit is well under the 15 s a document may take.
MAX_READ_SECONDS = 6
# Memory a reader may take for one document, above what the process held when it started: a tree
# the models under-count grows ~260 MB a second of CPU (sweep 47), past 1 GiB before the CPU limit.
# The readers' largest genuine trees take ~150 MB (an HTML page of 150,000 tags).
MAX_READ_MEMORY = 512 * 2**20
# How often, in CPU seconds, the watch looks at the time and the memory
_EVERY = 0.1

T = TypeVar("T")


def max_read_seconds() -> int:
    return setting("CRPARSE_MAX_READ_SECONDS", MAX_READ_SECONDS)


def max_read_memory() -> int:
    return setting("CRPARSE_MAX_READ_MEMORY", MAX_READ_MEMORY)


class _Expired(BaseException):
    """Raised by the watch. A BaseException: a library's `except Exception` does not swallow it."""


def _resident() -> int | None:
    """The process's resident memory in bytes (Linux), None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class _Watch:
    """The SIGPROF handler of one read: every _EVERY of CPU it looks at the read's CPU time and
    memory, and once past either raises _Expired, again at each tick until the read is over (a
    library's bare `except:` turned it into an error of its own: docutils' remove_transition). A
    SIGPROF sent from outside raises nothing. During a read SIGPROF is the watch's: the handler it
    displaced is not called (the timer's ticks made a caller's handler run, and one that raised
    refused a genuine release: sweep 48); a profiler's own ITIMER_PROF keeps the watch unset."""

    def __init__(self, seconds: int, memory: int) -> None:
        self.deadline = time.process_time() + seconds
        start = _resident()
        self.ceiling = None if start is None else start + memory
        self.fired: str | None = None
        self.armed = True

    def __call__(self, signum, frame) -> None:
        if not self.armed:
            return
        if self.fired is None:
            if time.process_time() >= self.deadline:
                self.fired = "time"
            elif self.ceiling is not None and (now := _resident()) is not None and now > self.ceiling:
                self.fired = "memory"
        if self.fired is not None:
            raise _Expired


class _Nowhere(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


_NOWHERE = _Nowhere()


def _slowed() -> bool:
    """Whether this process runs under a tracer, a profiler or tracemalloc (coverage, a debugger,
    a test that measures memory): each makes Python several times slower, and a genuine document
    would pass the limit."""
    import tracemalloc

    return sys.gettrace() is not None or sys.getprofile() is not None or tracemalloc.is_tracing()


def within_cpu_limit(what: str, read: Callable[[], T], seconds: int | None = None, memory: int | None = None) -> T:
    """`read()`, refused when it takes more than `seconds` of CPU (default: max_read_seconds()) or
    more than `memory` bytes above what the process held (default: max_read_memory()); `what`
    names the format in the refusal. The ticks are 0.1 s of CPU apart: the one that raises is
    caught, and the watch is taken down (timer stopped, disarmed, previous handler back) before
    the next could come, again if one lands in the taking down."""
    # past a day a limit is none in practice (and setitimer overflows far below MAX_SETTING)
    seconds = min(max_read_seconds() if seconds is None else seconds, 86_400)
    memory = max_read_memory() if memory is None else memory
    if (not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_PROF)[0] > 0 or _slowed()):
        return read()
    previous = signal.getsignal(signal.SIGPROF)
    watch = _Watch(seconds, memory)
    signal.signal(signal.SIGPROF, watch)
    try:
        signal.setitimer(signal.ITIMER_PROF, _EVERY, _EVERY)
        # what a library prints is no output of crparse's: docutils' system_message prints its
        # children to stdout when an exception (the watch's) meets it in its bare `except:`
        with contextlib.redirect_stdout(_NOWHERE):
            return read()
    except _Expired:
        pass
    finally:
        _unwatch(watch, previous)
    if watch.fired == "memory":
        raise RefusedInput(
            f"reading this {what} took more than {describe(memory)} of memory, the limit (CRPARSE_MAX_READ_MEMORY): "
            "its markup costs more than crparse's counts of it said (please report it); raise the limit if the file "
            "is genuine")
    raise RefusedInput(
        f"reading this {what} took more than {seconds} s of CPU, the limit (CRPARSE_MAX_READ_SECONDS): its markup "
        "costs more than crparse's counts of it said (please report it); raise the limit if the file is genuine")


def _unwatch(watch: _Watch, previous) -> None:
    """The timer stopped, the watch disarmed and the handler it displaced put back; done again if
    a tick already delivered raises in the middle of it."""
    while True:
        try:
            signal.setitimer(signal.ITIMER_PROF, 0)
            watch.armed = False
            signal.signal(signal.SIGPROF, signal.SIG_IGN if previous is None else previous)
            return
        except _Expired:
            continue
