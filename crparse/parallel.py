"""Several documents parsed at once, in worker processes, where the machine has the cores.

A parse is pure Python and holds the interpreter lock, so only processes run two at a time. A
worker is forked from the caller (nothing is imported again) and sends the tree back as
MessagePack, typed by crparse.nodes.Document: decoding it costs a tenth of parsing it.

Two documents (`crparse diff`): one child forked for the second, no pool. The pool's modules
(multiprocessing, concurrent.futures) take 25 ms to import and its start-up a few more, most of
what the second core saves on two releases.

One core, no `fork` (Windows, macOS's default), or CRPARSE_JOBS=1: the same calls, one after
another in this process.
"""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from crparse.errors import CrparseError, SettingError
from crparse.inputs import many_paths
from crparse.limits import jobs_given, not_a_setting
from crparse.nodes import Document
from crparse.pipeline import parse
from crparse.processes import die_with, note_interrupts, stoppable


def jobs() -> int:
    """Processes to parse with: CRPARSE_JOBS if set (1: none besides this one), else the cores
    this process may run on."""
    given = os.environ.get("CRPARSE_JOBS", "")
    if given:
        count = jobs_given(given)
        if count is None:
            raise SettingError(not_a_setting("CRPARSE_JOBS", given))
        return count
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_all(paths: Iterable[str | Path], *, format: str | None = None, then: Callable[[Document], Any] | None = None,
              share: bool = True) -> Iterator[Any]:
    """The parse of each path, in the order given: a Document, or the CrparseError that refused
    it (raised errors of any other kind propagate, as from crparse.parse).

    `then(doc)` runs where the document was parsed, and each item is then `(doc, then(doc))`
    (or the CrparseError `then` raised):
    work on a tree that needs no more than the tree moves to the workers with the parse (its
    result is pickled: `then` must be a module-level function). `share`: this process parses
    its share too (two paths on two cores take the time of one); a caller with work of its own
    on each tree leaves all parsing to the workers.

    A caller that stops early closes the iterator (its frame's end does): the workers' pool is
    then shut down at once. One left open to the interpreter's exit meets a race of Python
    3.11's concurrent.futures (gh-105829: "Exception ignored ... Bad file descriptor")."""
    return _in_one_run(many_paths(paths, "parse_all([path])"), format, then, share)


def _in_one_run(paths: list[str], format: str | None, then: Callable[[Document], Any] | None,
                share: bool) -> Iterator[Any]:
    from crparse.readers.runs import one_run

    with one_run():  # the documents' toctrees share a budget for files read twice (see there)
        yield from _parse_all(paths, format, then, share)


def _parse_all(paths: list[str], format: str | None, then: Callable[[Document], Any] | None,
               share: bool) -> Iterator[Any]:
    workers = min(jobs() - 1, len(paths) - share)  # this process is busy either way
    if workers < 1 or not hasattr(os, "fork"):
        for p in paths:
            yield _attempt(p, format, then)
        return
    from crparse.readers.pdf.confine import share_slots

    share_slots()  # PDF reads at once, in all the processes: not one per worker
    if share and len(paths) == 2:
        child = _Child(paths[1], format, then)
        try:
            yield _attempt(paths[0], format, then)
            yield _unpacked(child.result())
        finally:
            child.end()
        return
    from concurrent.futures import Future

    pool = worker_pool(workers)
    # Sharing, this process parses the first path and every (workers + 1)th after it while the
    # workers parse the others; a worker's result is read when its turn comes. At most two
    # rounds are in flight, so finished trees do not pile up ahead of a slow consumer.
    from concurrent.futures.process import BrokenProcessPool

    step = workers + 1 if share else None
    ahead = 2 * (workers + 1)
    futures: dict[int, Future] = {}
    submitted = 0
    i = 0
    finished = False
    try:
        for i, p in enumerate(paths):
            while submitted < min(len(paths), i + ahead):
                if step is None or submitted % step:
                    futures[submitted] = pool.submit(_packed, paths[submitted], format, then)
                submitted += 1
            if i in futures:
                yield _unpacked(result_of(futures.pop(i)))
            else:
                yield _attempt(p, format, then)
        finished = True
    except BrokenProcessPool:
        # a worker killed from outside (the out-of-memory killer, a user): the pool is gone, and
        # each file not yet read is refused in one line, not the run with a traceback (sweep 15)
        for p in paths[i:]:
            yield _stopped().located(p)
    finally:
        end_pool(pool, finished)


def result_of(future):
    """A future's result, waited for a quarter of a second at a time. The kernel may give SIGINT
    to any thread of this process (the pool's own among them), and a wait with no timeout is
    woken only by one given to this thread: Ctrl-C sent to crparse alone then waited for the
    work under way (a 40 s hang in a full-suite run). Between two waits, Python runs the handler."""
    while True:
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            continue


def worker_pool(workers: int):
    """A pool of `workers` processes forked from this one, which end with it and leave Ctrl-C to
    it (see _worker); its work is run in `processes.stoppable()`. With end_pool, every pool
    crparse starts: `docs`' builds of releases had one of their own, whose workers outlived a
    killed `docs` and held its site's lock for ever (sweep 21)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker,
                               initargs=(os.getpid(),))


def end_pool(pool, finished: bool) -> None:
    """Shuts `pool` down. Stopped early (Ctrl-C, an error, a caller that stopped reading), the
    work under way ends first: a worker killed while it sent its result left the pool's reader
    waiting for the rest of it for ever (sweep 17). The workers are told to stop (SIGINT, which
    ends a worker's work, see processes.stoppable): Ctrl-C sent to this process alone, or any
    other early stop, waited for each to finish its parse (sweep 19: 5 s and more)."""
    import multiprocessing

    workers = multiprocessing.active_children() if not finished else []
    _interrupt(workers)
    pool.shutdown(cancel_futures=True)
    # A Ctrl-C that came while the pool was starting its workers left some that no one would send
    # work or an end to, and the interpreter's exit waited on them for ever (a full-suite run):
    # those still there are ended.
    for worker in workers:
        worker.join(1)
        if worker.is_alive():
            worker.kill()
            worker.join()


def _interrupt(workers) -> None:
    for worker in workers:
        try:
            os.kill(worker.pid, signal.SIGINT)
        except (ProcessLookupError, TypeError):  # gone, or never started
            pass


def _worker(parent: int) -> None:
    """A pool worker's start. Ctrl-C (SIGINT to the terminal's process group) is the parent's
    to act on: a worker it interrupted while it read the pool's queue died holding the queue's
    lock, the others waited for it for ever, and the parent for them, holding the store's lock
    (sweep 17); one interrupted while idle printed a traceback."""
    note_interrupts()
    die_with(parent)


def _stopped() -> CrparseError:
    return CrparseError("the process parsing it was stopped from outside crparse (killed, or out of memory): not read")


class _Child:
    """One parse in a forked child, its result read back through a pipe: what a pool's worker
    returns (`_packed`), tagged: MessagePack bytes as they are, anything else pickled (the child
    imports pickle, this process only for a refusal or `then`'s result)."""

    def __init__(self, path: str, format: str | None, then: Callable[[Document], Any] | None):
        readable, writable = os.pipe()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(readable)
            # a caller that refuses the other release exits without closing this generator: its
            # child would parse on for seconds after the command has ended
            die_with(parent)
            _child(writable, path, format, then)  # never returns
        os.close(writable)
        self.path = path
        self.pipe = os.fdopen(readable, "rb")

    def result(self) -> Any:
        with self.pipe:
            data = self.pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if status != 0:  # killed while it wrote: what came is cut short (exit 3 on decoding it: sweep 16)
            return _stopped().located(self.path)
        if data[:1] == b"M":
            return data[1:]
        import pickle

        if data[:1] == b"E":
            raise pickle.loads(data[1:])
        if data[:1] != b"P":
            return _stopped().located(self.path)  # as a refusal of that file is returned
        return pickle.loads(data[1:])

    def end(self) -> None:
        """Ends and reaps the child whose result was not read (the caller stopped, or failed)."""
        if self.pid is None:
            return
        self.pipe.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        self.pid = None


def _child(pipe: int, path: str, format: str | None, then: Callable[[Document], Any] | None) -> None:
    """The forked child's whole life: no return to the caller's code, no atexit, no flush of
    buffers inherited from it. It writes nowhere but its pipe: the caller's stdout and stderr
    are not held open by a child that outlives a killed caller (a reader of them would wait for
    it), which ends anyway when it writes to the pipe no one reads."""
    status = 1
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            found = _packed(path, format, then)
            tag = b"M" if type(found) is bytes else b"P"
        except BaseException as err:  # noqa: BLE001 - raised in the caller, as from a pool
            found, tag = err, b"E"
        if tag != b"M":
            import pickle

            try:
                found = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as err:  # noqa: BLE001 - an exception that does not pickle
                found, tag = pickle.dumps(RuntimeError(f"{type(err).__name__}: {err}")), b"E"
        with open(pipe, "wb") as out:
            out.write(tag)
            out.write(found)
        status = 0
    finally:
        os._exit(status)


def _attempt(path: str, format: str | None, then: Callable[[Document], Any] | None = None) -> Any:
    try:
        doc = parse(Path(path), format=format)
        return doc if then is None else (doc, then(doc))
    except CrparseError as err:
        return err.located(path)


def _packed(path: str, format: str | None, then: Callable[[Document], Any] | None) -> Any:
    with stoppable():
        found = _attempt(path, format, then)
    if isinstance(found, CrparseError):
        return found
    if then is None:
        return _pack(found)
    return _pack(found[0]), found[1]


class _Pickled(bytes):
    """A tree MessagePack cannot hold (a file name that is not UTF-8 holds lone surrogates)."""


def _pack(doc: Document) -> bytes:
    try:
        return msgspec.msgpack.encode(doc)
    except UnicodeEncodeError:
        import pickle

        return _Pickled(pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))


def _unpack(data: bytes) -> Document:
    if isinstance(data, _Pickled):
        import pickle

        return pickle.loads(data)
    return _decoder().decode(data)


@functools.cache
def _decoder() -> msgspec.msgpack.Decoder:
    """Made on first use: building it reads the types of every node (2 ms)."""
    return msgspec.msgpack.Decoder(Document)


def _unpacked(result: Any) -> Any:
    if isinstance(result, bytes):
        return _unpack(result)
    if isinstance(result, tuple):
        return _unpack(result[0]), result[1]
    return result  # a CrparseError
