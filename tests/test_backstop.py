"""The CPU-time backstop of the readers (crparse.readers.backstop): a document whose reading takes
more than CRPARSE_MAX_READ_SECONDS of CPU is refused, whatever the readers' counts said of it."""

from __future__ import annotations

import signal
import threading
import time

import pytest
from limits import run_limited

from crparse.errors import RefusedInput
from crparse.readers.backstop import within_cpu_limit


def _busy(seconds: float) -> str:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "read"


def test_a_read_past_its_cpu_time_is_refused_and_the_handler_put_back():
    before = signal.getsignal(signal.SIGPROF)
    start = time.process_time()
    with pytest.raises(RefusedInput, match=r"reading this Markdown took more than 1 s of CPU, the limit "
                                           r"\(CRPARSE_MAX_READ_SECONDS\)"):
        within_cpu_limit("Markdown", lambda: _busy(5), seconds=1)
    assert time.process_time() - start < 2
    assert signal.getsignal(signal.SIGPROF) == before and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_read_within_its_cpu_time_gives_its_result_and_leaves_no_timer():
    before = signal.getsignal(signal.SIGPROF)
    assert within_cpu_limit("HTML", lambda: _busy(0.05), seconds=1) == "read"
    assert signal.getsignal(signal.SIGPROF) == before and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_timer_of_the_caller_s_own_is_left_alone():
    """A profiler's ITIMER_PROF, set before: crparse sets none of its own."""
    def count(signum, frame):
        count.calls += 1

    count.calls = 0
    previous = signal.signal(signal.SIGPROF, count)
    signal.setitimer(signal.ITIMER_PROF, 0.01, 0.01)
    try:
        assert within_cpu_limit("HTML", lambda: _busy(0.2), seconds=1) == "read"
        assert signal.getsignal(signal.SIGPROF) is count and signal.getitimer(signal.ITIMER_PROF)[0] > 0
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    assert count.calls > 0


def test_a_read_outside_the_main_thread_runs_without_a_timer():
    found = []
    thread = threading.Thread(target=lambda: found.append(within_cpu_limit("HTML", lambda: _busy(0.05), seconds=1)))
    thread.start()
    thread.join()
    assert found == ["read"]


_SLOW_READER = """
import time
import crparse.readers.plaintext as plaintext
read = plaintext.read
def slow(raw, path=None):
    end = time.process_time() + 30
    while time.process_time() < end:
        pass
    return read(raw, path)
plaintext.read = slow
from crparse.cli.main import main
sys.argv[0] = 'crparse'
sys.exit(main())
"""


def test_a_document_whose_reader_runs_past_the_backstop_is_a_one_line_refusal(tmp_path):
    """A reader's counts of what its library will do are models: a construct one under-counts
    took 9 to 27 s (sweeps 43 to 45). Past CRPARSE_MAX_READ_SECONDS the document is refused."""
    path = tmp_path / "cr.txt"
    path.write_text("100.1. One.\n\n100.2. Two.\n")
    result = run_limited(["parse", str(path)], code=_SLOW_READER, seconds=15, env={"CRPARSE_MAX_READ_SECONDS": "1"})
    assert result.returncode == 2 and result.cpu_seconds < 4, (result.cpu_seconds, result.stderr)
    assert result.stderr.decode().startswith(f"crparse: {path}: reading this text took more than 1 s of CPU")
    assert len(result.stderr.decode().splitlines()) == 1


def test_a_traced_process_sets_no_timer():
    """Under coverage, a debugger or tracemalloc Python runs many times slower: a genuine document
    would pass the limit (a test measuring memory with tracemalloc was refused)."""
    import tracemalloc

    tracemalloc.start()
    try:
        assert within_cpu_limit("RTF", lambda: _busy(1.5), seconds=1) == "read"
    finally:
        tracemalloc.stop()


def test_a_sigprof_sent_from_outside_while_the_timer_runs_is_no_expiry():
    import os

    def read():
        os.kill(os.getpid(), signal.SIGPROF)
        return _busy(0.1)

    assert within_cpu_limit("HTML", read, seconds=5) == "read"


def test_a_read_past_its_memory_is_refused():
    """A tree a model under-counts grows ~260 MB a second of CPU: past 1 GiB before the CPU limit
    (sweep 47)."""
    def grow():
        held = []
        for _ in range(400):
            held.append(bytearray(1 << 20))  # 1 MiB, touched: resident
            _busy(0.005)
        return "read"

    with pytest.raises(RefusedInput, match=r"reading this HTML took more than 64\.0 MiB of memory, the limit "
                                           r"\(CRPARSE_MAX_READ_MEMORY\)"):
        within_cpu_limit("HTML", grow, seconds=30, memory=64 << 20)


def test_the_timer_s_ticks_do_not_reach_a_caller_s_handler_and_its_refusal_survives_a_bare_except():
    """The ticks went on to the handler the watch displaced: a caller's handler that raised refused
    a genuine release (sweep 48). And docutils turns an exception met in a bare `except:` into an
    error of its own: the watch raises again at the next tick."""
    def refuse(signum, frame):
        raise RuntimeError("the caller's own")

    previous = signal.signal(signal.SIGPROF, refuse)
    try:
        assert within_cpu_limit("HTML", lambda: _busy(0.5), seconds=5) == "read"
        assert signal.getsignal(signal.SIGPROF) is refuse

        def swallowing():
            try:
                _busy(1.5)
            except BaseException:  # noqa: BLE001 - as docutils' remove_transition: an error of its own, handled
                swallowing.swallowed = True
            return _busy(3)  # the read goes on

        start = time.process_time()
        swallowing.swallowed = False
        with pytest.raises(RefusedInput, match="took more than 1 s of CPU"):
            within_cpu_limit("reStructuredText", swallowing, seconds=1)
        assert swallowing.swallowed and time.process_time() - start < 2
    finally:
        signal.signal(signal.SIGPROF, previous)


def test_what_a_library_prints_during_a_read_is_no_output(capsys):
    """docutils' system_message prints its children to stdout when an exception meets it."""
    assert within_cpu_limit("reStructuredText", lambda: print("system_message: children=()") or "read", seconds=5) \
        == "read"
    assert capsys.readouterr().out == ""
