"""What the documents of one run share: a run parses several documents (crparse.parallel.parse_all,
in this process and in forked workers), and each reST document's toctrees read other files.

Each document holds to its own budget, but documents may read the same files: K reST files in one
directory, each with a `:glob:` toctree over the same M chapters (an edition has one index.rst;
these have none), read K x M files from K + M on the disk (30 x 1,200: 21 s and 358 MB for 90 KB:
sweep 26). No real input has two documents read one file, each edition reading its own chapters:
the reads of a file another document of the run read first are counted, against
MAX_REPEATED_READS for the whole run, and past it a document is refused. The count is shared
memory, so it holds across the run's processes; which document read a file first is each
process's own knowledge (a file's first read in each process counts as none).
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator

# The reads of files read before in the run that a run may make: ~0.5 ms of docutils each.
MAX_REPEATED_READS = 2_000


class _Run:
    def __init__(self) -> None:
        # An anonymous shared mapping, which forked workers share: multiprocessing.Value makes
        # a file in TMPDIR for it (a run on a full disk failed before it began) and a named
        # semaphore. Its count is read and written unlocked: two workers adding at once may count
        # one read less, which a bound of thousands can spare.
        self.repeated = mmap.mmap(-1, 8)
        self.read: dict[str, str] = {}  # a file's real path -> the document that read it first

    def count(self) -> int:
        value = int.from_bytes(self.repeated[:8], "little") + 1
        self.repeated[:8] = value.to_bytes(8, "little")
        return value


_RUN: _Run | None = None


@contextlib.contextmanager
def one_run() -> Iterator[None]:
    """The documents parsed inside (and in processes forked inside) are one run; a run inside a
    run is part of it."""
    global _RUN
    outer = _RUN
    if outer is None:
        _RUN = _Run()
    try:
        yield
    finally:
        _RUN = outer


def read_again(real: str, by: str) -> int:
    """Note that `real` (a file's real path) is read by a toctree of the document `by` (its real
    path): how many times the run has read a file another document read before, this time
    included if it is one (0 outside a run). A document parsed again (`docs` parses a release,
    then its Sphinx build does) reads its own files again: that is no such time."""
    run = _RUN
    if run is None:
        return 0
    first = run.read.setdefault(real, by)
    if first == by:
        return 0
    return run.count()
