"""stdout and stderr as the commands use them: what a closed, failing or abandoned one does.

stdout is a command's output, and its exit status says whether the output was all written:
- closed before the run (`crparse ... >&-`: Python then has no sys.stdout, and print() drops
  everything without a word) or open for reading only: refused before any work, one line, 2;
- failing while written (a full disk, an I/O error): the command stops at the first failure, a
  batch too (each later write would fail the same way), one line, 2;
- left by its reader (`| head`): the rest of the output goes to /dev/null and the command runs to
  its end, so its status is the one it would have had: a script reading `diff`'s status through
  PIPESTATUS sees 1, "differs", whether or not the reader read it all. What the reader never
  read costs the rest of the run (a `parse` of a directory parses every file).
stderr is where messages go: closed or failing, they go nowhere and the status still tells.

A standard descriptor closed at the start is given /dev/null, so no file crparse opens (a lock, a
temporary of the site) takes its number, where a child or a fatal error would write.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable, Iterator

from crparse.errors import OutputError


def unwritable(stream) -> str | None:
    """Why `stream` cannot be written, told before anything is written; None when it can, or
    when that cannot be told (a stream with no descriptor, as a test's capture)."""
    if stream is None or getattr(stream, "closed", False):
        return "it is closed"
    fd = _descriptor(stream)
    if fd is None:
        return None
    import fcntl

    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError:  # EBADF: closed under the stream
        return "it is closed"
    return "it is open for reading only" if flags & os.O_ACCMODE == os.O_RDONLY else None


@contextlib.contextmanager
def guarded() -> Iterator[str | None]:
    """sys.stdout and sys.stderr for one run of a command, as the module says; yields why stdout
    cannot be written (the command is then not to run), or None. Restored after."""
    saved = sys.stdout, sys.stderr
    for fd in (1, 2):
        _fill_if_closed(fd)
    spare = None
    if sys.stderr is None:  # print(file=None) writes to stdout: a message would land in the output
        spare = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    reason = unwritable(sys.stdout)
    sys.stderr = _Guarded(sys.stderr, _Course(_quiet))
    if reason is None:
        sys.stdout = _Guarded(sys.stdout, _Course(_stopped))
    try:
        yield reason
    finally:
        sys.stdout, sys.stderr = saved
        if spare is not None:
            spare.close()


def _quiet(err: OSError) -> None:
    """stderr failed: nothing more can be said."""


def _stopped(err: OSError) -> None:
    if err.errno == errno.EPIPE:
        return  # the reader is gone: the run goes on to its status, writing nowhere
    raise OutputError(f"cannot write to standard output: {err.strerror or err}") from None


class _Course:
    """What a stream does after its first failure: its descriptor then holds /dev/null (what is
    still buffered would fail again as Python exits: a second message, and status 120), the
    rest of its writes are dropped, and `failed` says whether the run stops."""

    def __init__(self, failed: Callable[[OSError], None]):
        self.failed = failed
        self.dropping = False

    def fail(self, stream, err: OSError) -> None:
        self.dropping = True
        fd = _descriptor(stream)
        if fd is not None:
            with contextlib.suppress(OSError):
                _to_null(fd)
        self.failed(err)


class _Guarded:
    """A text stream, and its binary `buffer`, whose write errors take their `_Course`."""

    def __init__(self, stream, course: _Course):
        self._stream = stream
        self._course = course
        # Unbuffered (PYTHONUNBUFFERED, python -u): the text layer writes to the file itself,
        # whose short write (a disk filling up) it takes for the whole: the rest was lost,
        # exit 0 (`diff --json` on a full disk: sweep 14). Such a stream is written here.
        self._raw = isinstance(stream, io.FileIO) or isinstance(getattr(stream, "buffer", None), io.FileIO)

    def write(self, data):
        if not self._course.dropping:
            try:
                if self._raw and _descriptor(self._stream) is not None:
                    return self._whole(data)
                return self._stream.write(data)
            except OSError as err:
                self._course.fail(self._stream, err)
        return len(data)

    def _whole(self, data) -> int:
        """`data`, written to the descriptor until all of it is."""
        self._stream.flush()
        raw = data if isinstance(data, (bytes, bytearray, memoryview)) else data.encode(
            self._stream.encoding or "utf-8", self._stream.errors or "strict")
        view, fd = memoryview(raw), _descriptor(self._stream)
        while view:
            view = view[os.write(fd, view):]
        return len(data)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as err:
            if not self._course.dropping:
                self._course.fail(self._stream, err)

    @property
    def buffer(self):
        return _Guarded(self._stream.buffer, self._course)  # AttributeError for a text-only stream, as before

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _descriptor(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _fill_if_closed(fd: int) -> None:
    import fcntl

    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError:
        _to_null(fd)


def _to_null(fd: int) -> None:
    null = os.open(os.devnull, os.O_WRONLY)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)
