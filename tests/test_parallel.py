"""crparse.parallel: several documents parsed in worker processes give the trees and refusals that
parsing them one by one gives, in the order asked, whatever the number of processes."""

from __future__ import annotations

import pytest

import crparse
from crparse.errors import CrparseError
from crparse.parallel import jobs, parse_all

FIXTURES = ["modern.txt", "references.txt", "wrapped1999.txt", "dotleaders1999.txt"]


@pytest.fixture
def paths(tmp_path, request):
    here = request.path.parent / "fixtures"
    not_cr = tmp_path / "letter.txt"
    not_cr.write_text("Dear reader,\nthis is a letter.\n")
    files = [str(here / f) for f in FIXTURES]
    return files[:2] + [str(not_cr), str(tmp_path / "missing.txt")] + files[2:]


@pytest.mark.parametrize("workers", ["1", "2", "3", "8"])
def test_same_trees_and_refusals_in_order(paths, workers, monkeypatch):
    monkeypatch.setenv("CRPARSE_JOBS", workers)
    got = list(parse_all(paths))
    assert len(got) == len(paths)
    for path, found in zip(paths, got):
        try:
            expected = crparse.parse(path)
        except CrparseError as err:
            assert isinstance(found, CrparseError), path
            assert str(found) == str(err)  # the file and the message survive the trip back
        else:
            assert found == expected, path


def test_jobs_setting(monkeypatch):
    monkeypatch.setenv("CRPARSE_JOBS", "1")
    assert jobs() == 1
    monkeypatch.delenv("CRPARSE_JOBS")  # unset: the cores
    assert jobs() >= 1


def test_a_consumer_that_stops_early_leaves_no_worker(paths, monkeypatch):
    import multiprocessing

    monkeypatch.setenv("CRPARSE_JOBS", "2")
    found = parse_all(paths)
    next(found)
    found.close()
    assert multiprocessing.active_children() == []


def test_workers_end_with_a_killed_parent(paths, tmp_path):
    """A parent killed with SIGKILL runs no clean-up: its workers must not wait on for work
    (they hold its stdout, so whoever reads that would hang too)."""
    import os
    import subprocess
    import sys

    code = (
        "import os, signal, sys\n"
        "from crparse.parallel import parse_all\n"
        "found = parse_all(sys.argv[1:] * 20)\n"
        "next(found)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = dict(os.environ, CRPARSE_JOBS="2", PYTHONPATH=str(os.path.dirname(os.path.dirname(__file__))))
    done = subprocess.run([sys.executable, "-c", code, *paths[:2]], capture_output=True, env=env, timeout=60)
    assert done.returncode == -9


def _rule_count(doc):
    if len(doc.rules) > 40:
        raise crparse.errors.RefusedInput("too long for this test")
    return len(doc.rules)


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("share", [True, False])
def test_then_runs_with_the_parse_and_its_refusal_is_the_item(paths, workers, share, monkeypatch):
    monkeypatch.setenv("CRPARSE_JOBS", workers)
    for path, found in zip(paths, parse_all(paths, then=_rule_count, share=share)):
        try:
            doc = crparse.parse(path)
            expected = _rule_count(doc)
        except CrparseError as err:
            assert isinstance(found, CrparseError) and str(found) == str(err.located(path)), (path, found)
        else:
            assert found == (doc, expected)


@pytest.mark.parametrize("pick", [(0, 1), (0, 2), (3, 1), (2, 4)])
@pytest.mark.parametrize("then", [None, _rule_count])
def test_two_paths_one_child(paths, pick, then, monkeypatch):
    """Two paths (crparse diff) take a single forked child, not a pool: the same items."""
    monkeypatch.setenv("CRPARSE_JOBS", "2")
    two = [paths[i] for i in pick]
    for path, found in zip(two, parse_all(two, then=then)):
        try:
            doc = crparse.parse(path)
            expected = doc if then is None else (doc, then(doc))
        except CrparseError as err:
            assert isinstance(found, CrparseError) and str(found) == str(err.located(path)), (path, found)
        else:
            assert found == expected, path


def test_two_paths_a_consumer_that_stops_early_leaves_no_child(paths, monkeypatch):
    import os

    monkeypatch.setenv("CRPARSE_JOBS", "2")
    found = parse_all(paths[:2])
    next(found)
    found.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork") or not __import__("os").path.isdir("/proc"),
                    reason="needs fork and /proc (Linux)")
def test_a_refused_diff_leaves_no_child_parsing_on(tmp_path):
    """`crparse diff BAD GOOD` refuses BAD and exits while its forked child still parses GOOD:
    the child parsed on (5 s for a release) after the command had ended, its caller gone."""
    import os
    import subprocess
    import sys
    import time

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01binary" * 100)
    good = tmp_path / "good.txt"
    rules = "".join(f"100.{i}. Rule {i} says something about rule 100.{i - 1}.\n\n" for i in range(2, 40_000))
    good.write_text("Magic: The Gathering Comprehensive Rules\n\n1. Game Concepts\n\n100. General\n\n" + rules)
    env = dict(os.environ, CRPARSE_JOBS="2", CRPARSE_MAX_PARAGRAPHS="100000", CRPARSE_MAX_REFERENCES="100000")
    done = subprocess.run([sys.executable, "-m", "crparse", "diff", str(bad), str(good)], capture_output=True, env=env,
                          timeout=120)
    assert done.returncode == 2 and b"bad.txt" in done.stderr
    time.sleep(0.5)  # the kernel's SIGKILL on the parent's death, delivered
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(good).encode() in f.read():
                    left.append(pid)
        except OSError:
            pass
    assert not left


def test_ctrl_c_ends_the_run_with_no_worker_left_waiting(paths):
    """Ctrl-C sends SIGINT to the whole process group: a worker interrupted while it read the
    pool's queue died holding the queue's lock, the others waited on it for ever and the parent
    for them (4 of 15 `index` runs with 4 jobs, holding the store's lock: sweep 17); an idle one
    printed a traceback. Workers leave SIGINT to the parent."""
    import os
    import subprocess
    import sys

    code = (
        "import os, signal, sys\n"
        "from crparse.parallel import parse_all\n"
        "try:\n"
        "    found = parse_all(sys.argv[1:] * 200)\n"
        "    next(found)\n"
        "    os.killpg(0, signal.SIGINT)\n"
        "    for _ in found:\n"
        "        pass\n"
        "except KeyboardInterrupt:\n"
        # as the CLI's frames do when the exception leaves them: a pool left to the interpreter's
        # exit meets a race of Python 3.11's concurrent.futures (gh-105829: "Exception ignored
        # in threading ... Bad file descriptor")
        "    found.close()\n"
        "    sys.exit(130)\n"
    )
    env = dict(os.environ, CRPARSE_JOBS="4", PYTHONPATH=str(os.path.dirname(os.path.dirname(__file__))))
    for _ in range(6):
        done = subprocess.run([sys.executable, "-c", code, paths[0], paths[1]], capture_output=True, env=env,
                              timeout=60, start_new_session=True, check=False)
        assert done.returncode == 130 and b"Traceback" not in done.stderr, done.stderr[-2000:]


@pytest.mark.parametrize("sent_to", ["group", "parent"])
def test_ctrl_c_stops_the_parses_under_way(paths, sent_to, tmp_path):
    """Workers went on with the parse they had begun when Ctrl-C came, and the run ended only
    when each had finished (slow PDFs: up to 5 s after it, sweep 19; SIGINT to the parent alone
    waited for all of them). A parse under way now ends with it."""
    import os
    import subprocess
    import sys
    import time

    import signal

    mark = str(tmp_path / "under-way")  # written by a worker once its parse is under way
    code = (
        "import faulthandler, os, signal, sys, time\n"
        "faulthandler.dump_traceback_later(40, exit=True)\n"  # a hang shows where it is, all threads
        # as a terminal's program has it (the CLI sets its own): a pytest-xdist worker may have
        # left SIGINT ignored, and an ignored signal stays ignored in what it starts
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from crparse.parallel import parse_all\n"
        "def slow(doc):\n"  # a slow parse, as `then` runs in the worker with it
        "    open(os.environ['MARK'], 'a').close()\n"
        "    end = time.monotonic() + 60\n"
        "    while time.monotonic() < end:\n"
        "        pass\n"
        "try:\n"
        "    found = parse_all(sys.argv[1:] * 4, then=slow, share=False)\n"
        "    for _ in found:\n"
        "        pass\n"
        "except KeyboardInterrupt:\n"
        "    found.close()\n"  # see test_ctrl_c_ends_the_run_with_no_worker_left_waiting
        "    sys.exit(130)\n"
    )
    env = dict(os.environ, CRPARSE_JOBS="3", MARK=mark, PYTHONPATH=str(os.path.dirname(os.path.dirname(__file__))))
    child = subprocess.Popen([sys.executable, "-c", code, paths[0], paths[1]], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(mark) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    # Ctrl-C at a terminal: the whole process group; or SIGINT to the parent alone
    (os.killpg if sent_to == "group" else os.kill)(child.pid, signal.SIGINT)
    start = time.monotonic()
    _, err = child.communicate(timeout=90)
    took = time.monotonic() - start
    assert child.returncode == 130 and b"Traceback" not in err, err[-3000:]
    assert took < 15, took  # the parses under way took 60 s more


def test_two_ctrl_c_in_a_row_stop_the_command_cleanly(tmp_path, request):
    """A second Ctrl-C a few milliseconds after the first broke into the command's stopping: a
    traceback in 11 of 12 runs, and once a pool left half shut down and the command waiting for
    ever (sweep 20). Those after the first are ignored."""
    import os
    import signal
    import subprocess
    import sys
    import time

    for i in range(100):  # enough parsing to be under way when the signals come
        text = (request.path.parent / "fixtures" / FIXTURES[i % len(FIXTURES)]).read_text()
        (tmp_path / f"r{i}.txt").write_text(text * 40)
    env = dict(os.environ, CRPARSE_JOBS="3", PYTHONPATH=str(os.path.dirname(os.path.dirname(__file__))))
    stopped = 0
    for run in range(4):
        child = subprocess.Popen([sys.executable, "-m", "crparse", "parse", "--json", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
        time.sleep(0.5 + 0.07 * run)
        for _ in range(2):
            try:
                os.killpg(child.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            time.sleep(0.003)
        _, err = child.communicate(timeout=60)
        assert child.returncode in (130, 0) and b"Traceback" not in err, (child.returncode, err[-1500:])
        stopped += child.returncode == 130
    assert stopped, "no run was under way when the signals came"


def test_parse_all_given_one_path_says_so():
    """A str was taken for an iterable of paths, each character one (sweep 33)."""
    from crparse.parallel import parse_all

    with pytest.raises(TypeError, match=r"not one path: parse_all\(\[path\]\)"):
        list(parse_all("corpus/x.txt"))


@pytest.mark.parametrize("item", [None, b"cr.txt", 3])
def test_parse_all_given_an_item_that_is_no_path_says_so(tmp_path, monkeypatch, item):
    """None was read as a file named "None", b"cr.txt" as one named "b'cr.txt'" (sweep 44)."""
    from crparse.parallel import parse_all

    monkeypatch.chdir(tmp_path)
    (tmp_path / "None").write_text("100.1. One.\n\n100.2. Two.\n")
    with pytest.raises(TypeError, match=rf"takes paths \(str or path-like\), not {type(item).__name__}"):
        list(parse_all([tmp_path / "None", item]))
