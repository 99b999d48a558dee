"""What every subcommand does with a closed, full or abandoned stdout, a closed stderr, and the
inputs it could not read (crparse/cli/streams.py, the exit-status table in the README).

The CLI runs in a child: a descriptor closed (`>&-`), /dev/full and a reader gone are the
process's, not something a test's capture can stand in for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from small_releases import write_releases

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"CRPARSE_JOBS": "1"}

CLOSED = "crparse: cannot write to standard output: it is closed"
FULL = "crparse: cannot write to standard output: No space left on device"


def crparse(*args: str, redirect: str = "", stdout=subprocess.PIPE, stderr=subprocess.PIPE, **run):
    """`python -m crparse ARGS` with the shell's `redirect` applied to it (`>&-`, `2>/dev/full`)."""
    command = ["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "crparse", *args]
    return subprocess.run(command, check=False, stdout=stdout, stderr=stderr, text=True, cwd=ROOT, env=ENV, timeout=120, **run)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Four small releases, a store of them, a non-CR file and a file citing a rule none has."""
    base = tmp_path_factory.mktemp("streams")
    write_releases(base / "rel")
    (base / "notcr.txt").write_text("Nothing numbered here.\nAt all.\n")
    (base / "code").mkdir()
    (base / "code" / "engine.py").write_text("# see CR 999.9 and CR 100.1\n")
    done = crparse("index", str(base / "rel"), "--db", str(base / "store.sqlite"))
    assert done.returncode == 0, done.stderr
    return base


# Every subcommand, with what it reads (a new store or site where it writes one: not made when
# the command is refused before any work).
COMMANDS = {
    "parse": ["parse", "{rel}"],
    "parse --json": ["parse", "--json", "{rel}"],
    "parse --json one": ["parse", "--json", "{a}"],
    "text": ["text", "{a}"],
    "schema": ["schema"],
    "refs": ["refs", "{a}"],
    "refs --json 100.1": ["refs", "{a}", "100.1", "--json"],
    "cite-check": ["cite-check", "{code}", "--cr", "{a}", "--all"],
    "diff": ["diff", "{a}", "{b}"],
    "diff --json": ["diff", "{a}", "{b}", "--json"],
    "diff --html": ["diff", "{a}", "{b}", "--html"],
    "lineage": ["lineage", "{rel}", "--json"],
    "index": ["index", "{rel}", "--db", "{new}/store.sqlite"],
    "history": ["history", "100.1", "--db", "{store}"],
    "search": ["search", "Magic rules", "--db", "{store}"],
    "identify": ["identify", "{a}", "--db", "{store}"],
    "examples": ["examples", "{a}"],
    "docs": ["docs", "{a}", "-o", "{new}/site"],
    "--version": ["--version"],
}


def _args(name: str, work: Path, new: Path) -> list[str]:
    rel = work / "rel"
    given = {"rel": rel, "a": rel / "2020-01-01.txt", "b": rel / "2020-10-01.txt", "code": work / "code",
             "store": work / "store.sqlite", "new": new}
    return [a.format(**{k: str(v) for k, v in given.items()}) for a in COMMANDS[name]]


# -- a closed stdout: refused before any work, whatever the command -------------------------------


@pytest.mark.parametrize("name", COMMANDS)
def test_a_closed_stdout_is_one_line_and_exit_2(work, tmp_path, name):
    """`crparse ... >&-`: diff, lineage and text ended in exit 3 (AttributeError: 'NoneType' object
    has no attribute 'write'), parse, refs and the others in exit 0 having written nothing."""
    done = crparse(*_args(name, work, tmp_path), redirect=">&-")
    assert (done.returncode, done.stderr) == (2, CLOSED + "\n")
    assert not any(tmp_path.iterdir())  # no store made, no site built: refused before the work


def test_a_stdout_open_for_reading_only_is_refused_as_closed(work):
    done = crparse("parse", str(work / "rel"), redirect="1</dev/null")
    assert (done.returncode, done.stderr) == (2, "crparse: cannot write to standard output: it is open for reading only\n")


# -- a closed or failing stderr: messages go nowhere, never into the output -----------------------


def test_a_closed_stderr_keeps_messages_out_of_the_output_and_the_status(work):
    """With stderr closed, a batch ended in exit 3 (sys.stderr.isatty() on None), and its message
    went to stdout: print(file=None) writes to sys.stdout."""
    done = crparse("parse", str(work / "rel"), str(work / "notcr.txt"), redirect="2>&-")
    assert done.returncode == 2
    assert done.stdout.count("effective date: 2020-") == 4 and "crparse:" not in done.stdout, done.stdout
    done = crparse("examples", str(work / "rel" / "2020-01-01.txt"), redirect="2>&-")
    assert done.returncode == 0 and "0 examples" not in done.stdout, done.stdout  # the count is stderr's
    assert crparse("diff", str(work / "rel" / "2020-01-01.txt"), str(work / "rel" / "2020-10-01.txt"),
                   redirect="2>&-").returncode == 1


def test_both_streams_closed_is_still_exit_2(work):
    assert crparse("parse", str(work / "rel"), redirect=">&- 2>&-").returncode == 2


def test_a_full_stderr_leaves_the_status_as_it_was(work):
    """A refusal said to a full stderr ended in exit 1 (the message's own OSError, a traceback)."""
    done = crparse("parse", str(work / "notcr.txt"), redirect="2>/dev/full")
    assert done.returncode == 2
    done = crparse("parse", str(work / "rel" / "2020-01-01.txt"), redirect="2>/dev/full")
    assert done.returncode == 0 and "effective date: 2020-01-01" in done.stdout


# -- a full stdout: one line, exit 2, the first failure ends the run -------------------------------


# One command of each way of writing (print, sys.stdout.write, the bytes of parse --json, argparse):
# the guard is the same for all; docs's last line is the same print, after a 2 s build.
WRITERS = ["parse", "parse --json", "text", "schema", "diff --html", "lineage", "index", "history", "examples",
           "--version"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("name", WRITERS)
def test_a_full_stdout_is_one_line_and_exit_2(work, tmp_path, name):
    """`parse` and `parse --json` printed "internal error: OSError: [Errno 28] ... (please report
    this)" once per file, exit 3; every other command said "No space left on device", exit 2."""
    done = crparse(*_args(name, work, tmp_path), redirect=">/dev/full")
    assert (done.returncode, done.stderr) == (2, FULL + "\n")


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("name", ["diff --json", "lineage", "parse --json", "parse"])
def test_a_disk_filling_up_under_the_output_is_one_line_and_exit_2(work, tmp_path, name, buffered):
    """Unbuffered (PYTHONUNBUFFERED, as many containers set), the text layer took the file's
    short write for the whole: `diff --json` and `lineage --json` wrote 1,024 bytes and exited
    as if all was written (sweep 14). A file size limit of 1 KiB stands for the full disk."""
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))

    env = {k: v for k, v in ENV.items() if k != "PYTHONUNBUFFERED"} | ({} if buffered else {"PYTHONUNBUFFERED": "1"})
    with open(tmp_path / "out", "w") as out:
        done = subprocess.run([sys.executable, "-m", "crparse", *_args(name, work, tmp_path)], stdout=out,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env, timeout=120, preexec_fn=small_files)
    assert (done.returncode, done.stderr) == (2, "crparse: cannot write to standard output: File too large\n")


def test_a_batch_stops_at_the_first_failed_write(work, monkeypatch, capsys):
    import errno

    import crparse as library
    from crparse.cli.main import main

    parsed = []
    parse = library.parse
    monkeypatch.setattr(library, "parse", lambda path, **kw: parsed.append(path) or parse(path, **kw))

    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["parse", "--json", str(work / "rel")]) == 2
    assert len(parsed) == 1  # not the three other files, each to fail the same way
    assert capsys.readouterr().err == FULL + "\n"


# -- a reader gone (`| head`): the status the command would have had --------------------------------


def _reader_gone(*args: str) -> subprocess.CompletedProcess:
    """The command's status when the reader of its stdout closed it before reading a byte."""
    child = subprocess.Popen([sys.executable, "-m", "crparse", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
    child.stdout.close()
    _, err = child.communicate(timeout=120)
    return subprocess.CompletedProcess(args, child.returncode, "", err.decode())


@pytest.mark.parametrize("name, args, status", [
    ("diff: differs", ["diff", "{a}", "{b}"], 1),
    ("diff --json: differs", ["diff", "{a}", "{b}", "--json"], 1),
    ("diff: the same", ["diff", "{a}", "{a}"], 0),
    ("cite-check: a stale citation", ["cite-check", "{code}", "--cr", "{a}", "--all"], 1),
    ("parse --json: a refusal after the reader left", ["parse", "--json", "{rel}", "{notcr}"], 2),
    ("search: nothing found", ["search", "no such words", "--db", "{store}"], 1),
])
def test_a_reader_gone_leaves_the_status_the_command_would_have_had(work, name, args, status):
    """`diff A B | head -1` exited 0 ("the same rules") where `diff A B` exits 1; `cite-check |
    head -1` 0 despite a stale citation."""
    rel = work / "rel"
    given = {"a": rel / "2020-01-01.txt", "b": rel / "2020-10-01.txt", "code": work / "code", "rel": rel,
             "notcr": work / "notcr.txt", "store": work / "store.sqlite"}
    done = _reader_gone(*[a.format(**{k: str(v) for k, v in given.items()}) for a in args])
    assert done.returncode == status, done.stderr
    assert "Broken pipe" not in done.stderr and "Exception ignored" not in done.stderr


# -- inputs refused or not read: 2 for every command that reads inputs ----------------------------


def _can_deny_reading() -> list[str] | None:
    """A prefix under which a directory of mode 0 cannot be read (root reads it anyway)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


READERS = {
    "parse": lambda paths, out: ["parse", *paths],
    "lineage": lambda paths, out: ["lineage", *paths, "--json"],
    "index": lambda paths, out: ["index", *paths, "--db", str(out / "store.sqlite")],
    "cite-check": lambda paths, out: ["cite-check", *paths, "--cr", str(out / "rel" / "2020-01-01.txt")],
}


@pytest.fixture
def releases(tmp_path) -> Path:
    return write_releases(tmp_path / "rel", 2)


@pytest.mark.parametrize("command", READERS)
def test_a_named_file_refused_is_exit_2(releases, tmp_path, command):
    """lineage and index said the skip and exited 0 (README: 2 for every subcommand)."""
    notcr = tmp_path / "notcr.bin"
    notcr.write_bytes(b"\x00\x01\x02 binary\x00")
    done = crparse(*READERS[command]([str(releases), str(notcr)], tmp_path))
    assert done.returncode == 2, done.stderr
    assert str(notcr) in done.stderr


@pytest.mark.parametrize("command", ["parse", "lineage", "index"])
def test_a_document_refused_in_a_walk_is_exit_2(releases, tmp_path, command):
    (releases / "2020-02-01.txt").write_text("")  # empty: refused
    done = crparse(*READERS[command]([str(releases)], tmp_path))
    assert done.returncode == 2 and "2020-02-01.txt: empty input" in done.stderr, done.stderr


@pytest.mark.parametrize("command", READERS)
def test_a_named_fifo_is_exit_2_and_one_met_in_a_walk_is_not(releases, tmp_path, command):
    os.mkfifo(tmp_path / "pipe.txt")
    os.mkfifo(releases / "walked.txt")
    done = crparse(*READERS[command]([str(releases)], tmp_path))
    assert done.returncode in (0, 1) and "walked.txt: skipped: not a regular file (a FIFO)" in done.stderr, done.stderr
    done = crparse(*READERS[command]([str(releases), str(tmp_path / "pipe.txt")], tmp_path))
    assert done.returncode == 2 and "pipe.txt: skipped: not a regular file (a FIFO)" in done.stderr, done.stderr


@pytest.mark.parametrize("command", READERS)
def test_an_unreadable_directory_in_a_walk_is_exit_2(releases, tmp_path, command):
    prefix = _can_deny_reading()
    if prefix is None:
        pytest.skip("running as root without setpriv: a directory of mode 0 is read anyway")
    (releases / "sub").mkdir()
    (releases / "sub").chmod(0)
    try:
        args = [sys.executable, "-m", "crparse", *READERS[command]([str(releases)], tmp_path)]
        done = subprocess.run(prefix + args, check=False, capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=120)
    finally:
        (releases / "sub").chmod(0o755)
    assert done.returncode == 2 and "a directory that cannot be read" in done.stderr, done.stderr


def test_docs_refusals_are_exit_2_and_a_fifo_met_in_a_walk_is_not(releases, tmp_path):
    """docs said "skipped ..." and exited 0. One build each way (2 s apiece)."""
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(releases / "2020-01-01.txt", one)
    os.mkfifo(one / "walked.txt")
    done = crparse("docs", str(one), "-o", str(tmp_path / "site"))
    assert done.returncode == 0 and "walked.txt: not a regular file (a FIFO)" in done.stderr, done.stderr
    # the release is built: the runs below build nothing again
    (tmp_path / "notcr.txt").write_text("Nothing numbered here.\n")
    done = crparse("docs", str(one), str(tmp_path / "notcr.txt"), "-o", str(tmp_path / "site"))
    assert done.returncode == 2 and "skipped " + str(tmp_path / "notcr.txt") in done.stderr, done.stderr
    prefix = _can_deny_reading()
    if prefix is None:
        return
    (one / "sub").mkdir()
    (one / "sub").chmod(0)
    try:
        done = subprocess.run([*prefix, sys.executable, "-m", "crparse", "docs", str(one), "-o", str(tmp_path / "site")],
                              check=False, capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=120)
    finally:
        (one / "sub").chmod(0o755)
    assert done.returncode == 2 and "a directory that cannot be read" in done.stderr, done.stderr
