"""What the documents of one run share: a run parses several documents (crparse.parallel.parse_all,
in this process and in forked workers), and each reST document's toctrees read other files.

Each document holds to its own budget, but documents may read the same files: K reST files in one
directory, each with a `:glob:` toctree over the same M chapters (an edition has one index.rst;
these have none), read K x M files from K + M on the disk (30 x 1,200: 21 s and 358 MB for 90 KB:
sweep 26), and K documents naming one large chapter read it K times (sweep 29). No real input has
two documents read one file, each edition reading its own chapters: the reads of a file another
document of the run read first are charged their bytes and their set-up, against
MAX_REPEATED_WORK for the whole run, and past it a document is refused. The characters of file
names :glob: patterns are matched against are counted for the run too (MAX_GLOB_WORK), and so are
the entries of directories that another document of the run listed first (MAX_REPEATED_LISTING):
a document's edition is its directory tree, and K documents one per level of a chain of
directories each listed the whole tree below it again (800 of them: 26 s; each of 60 such
fingerprinted 10,000 files again: 30 s; sweep 32).

What documents share is found once a run where it does not depend on the document (a directory's
listing, a path's real path: `remembered`); where it does (a document's edition is its own
directory tree), the work done again is charged to the run.

Which document read a file first, and the count, are in an anonymous shared mapping, which the
run's forked workers share (each kept its own, and with a worker per document nothing was ever
counted: review). It is a table of hashes, read and written unlocked: two workers at once may
miss one read, which a bound of thousands can spare. No file is made for it (multiprocessing's
shared values make one in TMPDIR, and a run on a full disk failed before it began), and nothing
needs fork: without workers, it is this process's memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
from collections.abc import Callable, Iterator
from typing import Any

# What reads of files another document of the run read first may cost the run in all: each what
# its markup costs docutils, as the reST reader counts it for an edition's budget (bytes of plain
# text docutils reads in the same time, at most ~0.35 us each: crparse.readers.limits), and
# REPEATED_READ_COST for its set-up (~5 ms). K documents each naming one 2.4 MB chapter cost 1.2 s
# each, 31 of them 40 s: a count of reads let them by (sweep 29). Bytes were charged, and dense
# text of tiny rules cost docutils ~4 ms a KB (40 editions hard-linking one 196 KB chapter: 32 s,
# sweep 36), a wide table ~60 ms (20 documents naming one of 28 KB: 31 s, sweep 40). 8 MiB: ~3 s
# of docutils (a table of thousands of columns, quadratic in them, up to twice that), under one
# read of the costliest file an edition may hold.
MAX_REPEATED_WORK = 8 * 2**20
REPEATED_READ_COST = 4 * 2**10
# The characters of file names that :glob: patterns may be matched against in a run, in all: each
# edition holds to MAX_RST_GLOB_WORK (3,000,000), and 60 documents each at it took 20 s (sweep 29).
MAX_GLOB_WORK = 12_000_000
# The entries of directories that another document of the run listed first that listings may
# walk in all (a directory counts as DIRECTORY_COST entries: its scan costs ~80 us, an entry
# ~20 us). 100,000: about 2 s of walking again.
MAX_REPEATED_LISTING = 100_000
DIRECTORY_COST = 4

# The table: a slot is a file's hash and the hash of the document that read it first, 8 bytes each
# (a hash is never 0: 0 is an empty slot); the run's counters are in the first _FIRST slots, at
# these offsets. 16 MiB of address space, of which only the pages written are memory.
REPEATED, GLOB, LISTED = 0, 8, 16
# A document's verdict on a file another read first, in the slot of the pair: charged within the
# run's bound, or past it.
_WITHIN, _PAST = 1, 2
_FIRST = 2
_SLOTS = 1 << 20
_PROBES = 64


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=8).digest(),
                          "little") | 1


class _Run:
    def __init__(self) -> None:
        self.table = mmap.mmap(-1, _SLOTS * 16)
        self.remembered: dict = {}  # what this process found once for the whole run (remembered)

    def charge(self, real: str, by: str, counter: int, amount: int, bound: int) -> int:
        """Note that document `by` reads file `real` (lists a directory), at `amount` on `counter`:
        what such reads have cost the run, this one included, if another document read it first;
        0 if none did, or this document did before within `bound`. A document is charged once for
        each file: `docs` parses a release, then builds its site and diffs it, and `index` parses
        a stored release again to align it, each reading its files again; those reads were
        charged again, and the run refused releases it had taken (sweep 37). One refused stays
        refused, its total said again (it was taken when read a second time: review)."""
        reader = _hash(by)
        first, _ = self._claim(_hash(real), reader)
        if first == reader:  # the first to read it, or the same document again
            return 0
        if first == 0:  # a table too full: counted, as a run that reads so much should be
            return self.spend(counter, amount)
        pair = _hash(f"{real}\0{by}")
        verdict, new = self._claim(pair, _WITHIN)
        if not new and verdict:
            return 0 if verdict == _WITHIN else self.spend(counter, 0)
        spent = self.spend(counter, amount)
        if spent > bound and verdict:
            self._claim(pair, _PAST, replace=True)
        return spent

    def _claim(self, key: int, value: int, *, replace: bool = False) -> tuple[int, bool]:
        """The value the table holds for `key`, and whether it was put there now (it held none,
        or `replace`); (0, False) for a table too full to hold it."""
        slot = _FIRST + key % (_SLOTS - _FIRST)
        for _ in range(_PROBES):
            at = slot * 16
            found = int.from_bytes(self.table[at:at + 8], "little")
            if found == 0 or found == key and replace:
                self.table[at:at + 16] = key.to_bytes(8, "little") + value.to_bytes(8, "little")
                return value, True
            if found == key:
                return int.from_bytes(self.table[at + 8:at + 16], "little"), False
            slot = _FIRST + (slot + 1 - _FIRST) % (_SLOTS - _FIRST)
        return 0, False

    def spend(self, counter: int, amount: int) -> int:
        value = int.from_bytes(self.table[counter:counter + 8], "little") + amount
        self.table[counter:counter + 8] = value.to_bytes(8, "little")
        return value


_RUN: _Run | None = None


@contextlib.contextmanager
def one_run() -> Iterator[None]:
    """The documents parsed inside (and in processes forked inside) are one run; a run inside a
    run is part of it. Only the run that began it ends it: generators (parse_all) closed in
    another order than they began left a run of theirs in force for good (review)."""
    global _RUN
    began = None
    if _RUN is None:
        began = _RUN = _Run()
    try:
        yield
    finally:
        if began is not None and _RUN is began:
            _RUN = None


def remembered(key, find: Callable[[], Any]) -> Any:
    """What `find()` gives, found once a run in each process under `key` (each time outside a
    run): a directory's listing, which each document of a run would make again."""
    run = _RUN
    if run is None:
        return find()
    if key not in run.remembered:
        run.remembered[key] = find()
    return run.remembered[key]


def read_again(file: str, by: str, cost: int) -> int:
    """Note that `file` (a file's identity: its device and inode, so that hard links are one) is
    read by a toctree of the document `by` (its real path), at `cost`: what reads of files
    another document read first have cost the run, this one included if it is one (0 outside a
    run). A document parsed again (`docs` parses a release, then its Sphinx build does) is
    charged once for each file."""
    run = _RUN
    return 0 if run is None else run.charge(file, by, REPEATED, cost, MAX_REPEATED_WORK)


def list_again(kind: str, directory: str, by: str, entries: int) -> int:
    """Note that a listing of `kind` ("rst", a reader's; "fingerprint") of the edition of the
    document `by` (its real path) scanned `directory` (its real path), of `entries` entries:
    what listings of directories another document listed first have cost the run, this one
    included if it is one (0 outside a run). Each kind is charged apart: `index` fingerprints a
    document and then parses it, and its reader's listing was charged as done again (review)."""
    run = _RUN
    return 0 if run is None else run.charge(f"\0listed\0{kind}\0{directory}", by, LISTED, entries + DIRECTORY_COST,
                                            MAX_REPEATED_LISTING)


def spend(counter: int, amount: int) -> int:
    """What the run has spent on `counter` (GLOB), `amount` included (0 outside a run)."""
    run = _RUN
    return 0 if run is None else run.spend(counter, amount)
