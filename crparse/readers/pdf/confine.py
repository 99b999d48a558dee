"""A PDF read in a child process, within a limit on its memory and one on its CPU time.

The checks run before PDFium opens a file (streams.py, content.py) read PDF syntax from the raw
bytes the way PDFium does, and refuse a file whose streams or pages would pass the limits. Each
adversarial sweep found another spelling or structure they read differently from PDFium (an
"endobj" in a comment, an LZW code past the table, a negative object number PDFium wraps
around...), and then PDFium inflated gigabytes or aborted the process. So the whole read, those
checks and PDFium alike, runs in a forked child whose address space and CPU time are bounded
(CRPARSE_MAX_PDF_MEMORY above what the process held, CRPARSE_MAX_PDF_SECONDS): whatever it meets,
the file is refused in one line once the child passes either, and the process that asked stays
as it was. The checks still give the precise refusals (which stream, which limit).

Where there is no fork (not POSIX), the read runs in the process, checks only.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
import traceback
from collections.abc import Callable
from typing import TypeVar

from crparse.errors import CrparseError, RefusedInput
from crparse.limits import setting
from crparse.processes import die_with, interrupted
from crparse.readers.limits import size

T = TypeVar("T")

MAX_PDF_MEMORY = 256 * 2**20  # the 2026 release needs ~45 MiB above the process; bombs took GiBs
MAX_PDF_SECONDS = 10  # of CPU: the official releases take under 2 s
# What all the reads running at once may take, in the whole process tree (CRPARSE_JOBS workers,
# Sphinx's): two reads at the default limit, whatever the workers, under the 1 GiB a run may take
ALL_READS_MEMORY = 512 * 2**20
_EXIT_UNPICKLABLE = 70

_slots: list[str] | None = None  # the paths this process opens the slots' lock files by; see share_slots


def max_pdf_memory() -> int:
    return setting("CRPARSE_MAX_PDF_MEMORY", MAX_PDF_MEMORY)


def max_pdf_seconds() -> int:
    return setting("CRPARSE_MAX_PDF_SECONDS", MAX_PDF_SECONDS)


def confined(read: Callable[..., T], *args) -> T:
    """read(*args), run in a child within the limits; its result, or its exception raised here."""
    if not hasattr(os, "fork"):
        return read(*args)
    # past a day or a terabyte, a limit is none in practice (and select's timeout and
    # setrlimit overflow far below MAX_SETTING: exit 3 at CRPARSE_MAX_PDF_SECONDS=1e99)
    memory, seconds = min(max_pdf_memory(), 2**40), min(max_pdf_seconds(), 86_400)
    _not_interrupted()
    slot = _take_slot(time.monotonic() + 4 * seconds + 30) if _slots is not None else None
    try:
        # without one (not shared, or none free within the longest a read may run) it runs
        return _confined(memory, seconds, read, args)
    finally:
        if slot is not None:
            import fcntl

            fcntl.flock(slot, fcntl.LOCK_UN)


_opened: tuple[int, list[int]] = (0, [])  # (the process, its descriptors of the slots' lock files)


def _not_interrupted() -> None:
    """A pool's worker that Ctrl-C reached starts no read (see processes.note_interrupts)."""
    if interrupted():
        raise RefusedInput("interrupted (Ctrl-C): not read")


def _take_slot(deadline: float) -> int | None:
    """A descriptor holding one of the slots' locks, taken while as many reads as may run at
    once are running; None past `deadline`. A lock held by a process that dies is released by
    the kernel: a pipe of tokens lost the token of a worker killed from outside, and the
    others waited for ever (sweep 15). Each process opens the files itself: a lock belongs to
    an open file, which a forked process would share with its parent."""
    global _opened
    import fcntl

    if _opened[0] != os.getpid():
        try:
            _opened = (os.getpid(), [os.open(path, os.O_RDWR | os.O_CLOEXEC) for path in _slots])
        except OSError:  # out of descriptors: the read runs without one, as past the wait
            return None
    while True:
        for fd in _opened[1]:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                continue
        if time.monotonic() >= deadline:
            return None
        _not_interrupted()
        time.sleep(0.02)


def share_slots() -> None:
    """Bounds the reads that run at once in the workers about to be forked, and in this process:
    without it, CRPARSE_JOBS=8 workers reading bombs held 8 times the limit (sweep 13: 3.7 GiB).
    The slots are lock files, one per read that may run; a read holds one's lock while it runs.
    Called where workers are forked; a process that inherited them keeps them. Their names are
    removed at once where each process can open them by its descriptors (/proc/self/fd): their
    directory outlived a process stopped by a signal, and pytest's workers, which skip atexit
    (sweep 16)."""
    global _slots, _opened
    if _slots is not None or not hasattr(os, "fork"):
        return
    # descriptors this process opened of slots before these (a test that resets _slots) are not
    # these slots': a read took one of them and ran beside two others (3 at once of 2)
    _opened = (0, [])
    try:
        memory = max_pdf_memory()
    except CrparseError:
        return  # the first read names the setting that is wrong
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="crparse-slots-")
    count = max(1, min(ALL_READS_MEMORY // memory, 64))
    try:
        files = [os.open(os.path.join(directory, str(i)), os.O_CREAT | os.O_RDWR, 0o600) for i in range(count)]
    except OSError:
        shutil.rmtree(directory, ignore_errors=True)
        return  # a read runs without one, as past a slot's wait
    if os.path.exists(f"/proc/self/fd/{files[0]}"):
        shutil.rmtree(directory, ignore_errors=True)
        _slots = [f"/proc/self/fd/{fd}" for fd in files]
        return
    for fd in files:
        os.close(fd)
    import atexit

    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(directory, ignore_errors=True))
    _slots = [os.path.join(directory, str(i)) for i in range(count)]


def _confined(memory: int, seconds: int, read: Callable[..., T], args: tuple) -> T:
    readable, writable = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError as err:  # EAGAIN: a limit on processes (ulimit -u, a cgroup's pids.max)
        os.close(readable)
        os.close(writable)
        raise RefusedInput(f"cannot start the process that reads a PDF: {err.strerror or err} (a limit on the number "
                           "of processes?)") from None
    if pid == 0:
        os.close(readable)
        die_with(parent)
        _child(writable, memory, seconds, read, args)  # never returns
    os.close(writable)
    try:
        data, late = _all_of(readable, pid, deadline=time.monotonic() + 4 * seconds + 30)
    except BaseException:  # Ctrl-C in a pool's worker (processes.stoppable): the read ends with it
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(readable)
    _, status, usage = os.wait4(pid, 0)
    if late:
        raise RefusedInput(f"reading this PDF did not end within {4 * seconds + 30} s: its child process was stopped "
                           "(raise CRPARSE_MAX_PDF_SECONDS if the file is genuine)")
    outcome = _outcome(data)
    if outcome is None:
        raise _stopped(status, memory, seconds, usage.ru_utime + usage.ru_stime)
    kind, value = outcome
    if kind == "ok":
        return value
    if kind == "memory":
        raise _past_memory(memory)
    raise value


def _users_cpu_limit(seconds: int) -> int | None:
    """The CPU limit the process was given (ulimit -t; a forked child counts its own time
    against it), when it is lower than CRPARSE_MAX_PDF_SECONDS."""
    return _own_lower("RLIMIT_CPU", seconds)


def _users_memory_limit(memory: int) -> int | None:
    """The address-space limit the process was given (ulimit -v), when it is lower than what
    CRPARSE_MAX_PDF_MEMORY would allow the child: then it is the one that stops a read."""
    try:
        return _own_lower("RLIMIT_AS", _held() + memory)
    except (OSError, ValueError):
        return None


def _own_lower(kind: str, wanted: int) -> int | None:
    """The process's own soft limit of `kind`, when it is lower than `wanted`."""
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(getattr(resource, kind))[0]
    return soft if soft != resource.RLIM_INFINITY and soft < wanted else None


def _held() -> int:
    """The address space the process holds, in bytes."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(writable: int, memory: int, seconds: int, read: Callable, args: tuple) -> None:
    status = 0
    try:
        import faulthandler

        # PYTHONFAULTHANDLER (and pytest) dump the stack on SIGABRT: PDFium's way of failing an
        # allocation is the refusal's business, in one line, not a traceback's
        faulthandler.disable()
        # Ctrl-C ends the read at once, whatever its parent does with it (a pool's worker notes
        # it: the read went on for seconds, 21 s in all: sweep 18)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _limit(memory, seconds)
        try:
            outcome = ("ok", read(*args))
        except MemoryError:
            outcome = ("memory", None)
        except BaseException as error:  # noqa: BLE001 - raised again in the parent, as it is
            outcome = ("error", error)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            data = pickle.dumps(("memory", None))
        except Exception:  # noqa: BLE001 - an exception that does not pickle: its traceback
            data = pickle.dumps(("error", RuntimeError("".join(traceback.format_exception(outcome[1])).strip())))
        with os.fdopen(writable, "wb") as out:
            out.write(data)
    except BaseException:  # noqa: BLE001 - nothing may escape into the parent's code, run twice
        status = _EXIT_UNPICKLABLE
    finally:
        os._exit(status)


def _limit(memory: int, seconds: int) -> None:
    import resource

    # above the address space the process holds already; a forked child's CPU time starts from
    # nothing (RLIMIT_CPU counts its own)
    for kind, wanted in ((resource.RLIMIT_AS, _held() + memory), (resource.RLIMIT_CPU, seconds)):
        soft, hard = resource.getrlimit(kind)
        bound = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft == resource.RLIM_INFINITY or bound < soft:
            resource.setrlimit(kind, (bound, hard))


def _all_of(readable: int, pid: int, deadline: float) -> tuple[bytes, bool]:
    """What the child writes, to its end; (what came, True) if it passed the deadline (stopped)."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([readable], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            return b"".join(chunks), True
        chunk = os.read(readable, 1 << 20)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)


def _outcome(data: bytes):
    if not data:
        return None
    try:
        return pickle.loads(data)  # written by our own child, through a pipe
    except Exception:  # noqa: BLE001 - cut short: the child died while writing
        return None


# What PDFium does when an allocation fails or it crashes; any other signal came from outside
_CRASHES = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGTRAP}


def _stopped(status: int, memory: int, seconds: int, cpu: float) -> RefusedInput:
    allowed = min(seconds, _users_cpu_limit(seconds) or seconds)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) not in _CRASHES | {signal.SIGXCPU} and (
            os.WTERMSIG(status) != signal.SIGKILL or cpu < allowed - 0.5):
        # a SIGKILL before the CPU limit (which sends SIGXCPU, then SIGKILL at the hard
        # limit): the system's out-of-memory killer, or someone; SIGTERM, SIGINT: someone
        name = signal.Signals(os.WTERMSIG(status)).name
        return RefusedInput(f"reading this PDF was stopped from outside crparse ({name}, after {cpu:.1f} s of CPU): "
                            "the system's out-of-memory killer, or a user; nothing was read")
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        users = _users_cpu_limit(seconds)
        if users is not None:
            return RefusedInput(f"reading this PDF took more than the process's own CPU limit of {users} s (ulimit -t), "
                                "lower than CRPARSE_MAX_PDF_SECONDS allows: raise it")
        return RefusedInput(f"reading this PDF took more than {seconds} s of CPU, the limit (CRPARSE_MAX_PDF_SECONDS): "
                            "a decompression or content bomb? raise it if the file is genuine")
    if os.WIFSIGNALED(status):
        # PDFium aborts when an allocation fails (SIGABRT), or crashes on what it cannot hold
        name = signal.Signals(os.WTERMSIG(status)).name
        users = _users_memory_limit(memory)
        if users is not None:
            return RefusedInput(f"PDFium stopped ({name}) reading this PDF, within the process's own memory limit of "
                                f"{size(users)} (ulimit -v), lower than CRPARSE_MAX_PDF_MEMORY allows: raise it")
        return RefusedInput(f"PDFium stopped ({name}) reading this PDF, within the {size(memory)} memory limit "
                            "(CRPARSE_MAX_PDF_MEMORY): a decompression or content bomb? raise it if the file is genuine")
    return RefusedInput(f"reading this PDF failed in its child process (exit status {os.waitstatus_to_exitcode(status)})")


def _past_memory(memory: int) -> RefusedInput:
    users = _users_memory_limit(memory)
    if users is not None:
        return RefusedInput(f"reading this PDF needs more memory than the process's own limit of {size(users)} (ulimit "
                            "-v), lower than CRPARSE_MAX_PDF_MEMORY allows: raise it")
    return RefusedInput(f"reading this PDF needs more than {size(memory)} of memory, the limit (CRPARSE_MAX_PDF_MEMORY): "
                        "a decompression or content bomb? raise it if the file is genuine")
