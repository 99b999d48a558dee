"""A PDF is read in a forked child, within CRPARSE_MAX_PDF_MEMORY of memory and
CRPARSE_MAX_PDF_SECONDS of CPU (crparse/readers/pdf/confine.py): the backstop behind the checks
made before PDFium opens a file. Sweep 12 found 15 ways past those checks (an "endobj" in a
comment, an LZW code past its table, a negative object number PDFium wraps round, a form drawn
by a string operand...): PDFium inflated 0.8-2.5 GiB with exit 0, or aborted the process. Here the
read is replaced by what such a file makes PDFium do, and the refusal is checked; the PDFs of
test_hostile_pdf_*.py check the whole path."""

from __future__ import annotations

import os

import pytest
from builders import make_pdf

import crparse
import crparse.readers.pdf as pdf
from crparse.errors import RefusedInput

RULES = [[(72, 700, "100.1. These Magic rules apply to any Magic game."), (72, 686, "100.2. To play, each player needs a deck.")]]


@pytest.fixture(autouse=True)
def own_slots():
    """Each test starts with no PDF slots shared."""
    from crparse.readers.pdf import confine

    before = confine._slots
    confine._slots = None
    yield
    confine._slots = before


@pytest.fixture
def document(tmp_path):
    path = tmp_path / "rules.pdf"
    path.write_bytes(make_pdf(RULES))
    return path


def test_a_pdf_is_read_as_before(document):
    assert [rule.number for rule in crparse.parse(document).rules] == ["100.1", "100.2"]


def _hold(raw, path):
    kept = []
    while True:  # what PDFium does with a bomb: allocate until it holds the whole stream
        kept.append(bytearray(64 << 20))


def _spin(raw, path):
    while True:
        pass


def _abort(raw, path):
    os.abort()  # what PDFium does when an allocation fails in C++


@pytest.mark.parametrize(
    "read, env, refusal",
    [
        (_hold, {"CRPARSE_MAX_PDF_MEMORY": "256M"},
         r"needs more than 256 MiB of memory, the limit \(CRPARSE_MAX_PDF_MEMORY\)"),
        (_abort, {}, r"PDFium stopped \(SIGABRT\) reading this PDF, within the 256 MiB"),
        (_spin, {"CRPARSE_MAX_PDF_SECONDS": "1"}, r"took more than 1 s of CPU, the limit \(CRPARSE_MAX_PDF_SECONDS\)"),
    ],
    ids=["memory", "pdfium-aborting", "cpu"],
)
def test_a_read_past_a_limit_is_refused(document, monkeypatch, read, env, refusal):
    monkeypatch.setattr(pdf, "_read", read)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(RefusedInput, match=refusal):
        crparse.parse(document)


def test_refusals_and_errors_of_the_child_are_raised_as_they_were(document, monkeypatch):
    def refuse(raw, path):
        raise RefusedInput("a refusal in the child", line=7)

    monkeypatch.setattr(pdf, "_read", refuse)
    with pytest.raises(RefusedInput) as refused:
        crparse.parse(document)
    assert refused.value.line == 7 and str(refused.value) == f"{document}:7: a refusal in the child"

    def fail(raw, path):
        raise KeyError("a bug")

    monkeypatch.setattr(pdf, "_read", fail)
    with pytest.raises(KeyError, match="a bug"):
        crparse.parse(document)


def test_the_process_that_asked_is_untouched(document, monkeypatch):
    """The limits are the child's: the parent's own are as they were."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)
    crparse.parse(document)
    assert (resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)) == before


# -- the whole path: form bombs the content walk does not follow (sweep 12) -------------------------


def _plain(data: bytes, entries: bytes = b"") -> bytes:
    return b"<< %s /Length %d >>\nstream\n" % (entries, len(data)) + data + b"\nendstream"


def form_bomb(drawn_by_string: bool, levels: int = 7, fan: int = 10) -> bytes:
    """Forms 7.. each drawing the next `fan` times, 10^7 drawings in all: named by a string
    operand ("(Fm2) Do", which PDFium's Do takes), or shown by a page that inherits its
    resources through a /Parent outside the page tree (which PDFium follows)."""
    from builders import pdf_of

    draw = b"(Fm%d) Do" if drawn_by_string else b"/Fm%d Do"
    text = b"BT /F1 12 Tf 72 700 Td (100.1. First rule.) Tj 0 -14 Td (100.2. Second rule.) Tj ET "
    if drawn_by_string:
        page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 5 0 R /Contents 6 0 R >>"
        parent = b"<< /Type /Pages /Count 0 /Kids [] >>"
    else:
        page = b"<< /Type /Page /Parent 20 0 R /MediaBox [0 0 612 792] /Contents 6 0 R >>"
        parent = b"<< /Type /Pages /Count 1 /Resources 5 0 R >>"
    forms = b" ".join(b"/Fm%d %d 0 R" % (i, 6 + i) for i in range(1, levels + 1))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", page,
               b"<< /Font << /F1 3 0 R >> /XObject << " + forms + b" >> >>", _plain(text + draw % 1)]
    for i in range(1, levels + 1):
        body = (b" ".join(b"q 1 0 0 1 %d %d cm " % (k, k) + draw % (i + 1) + b" Q" for k in range(fan))
                if i < levels else b"0 0 m 1 1 l S")
        objects.append(_plain(body, b"/Type /XObject /Subtype /Form /BBox [0 0 1000 1000] /Resources 5 0 R"))
    objects += [b"null"] * (19 - len(objects)) + [parent]  # object 20: the /Parent
    return pdf_of(objects)


@pytest.mark.parametrize("drawn_by_string", [True, False], ids=["string-operand", "parent-resources"])
def test_form_bombs_the_checks_missed_are_refused_within_limits(tmp_path, drawn_by_string):
    """Before: exit 0 after PDFium took 1.9 GiB (sweep 12). The checks now count a string
    operand and follow a /Parent outside the tree (sweep 13), and the child's limits stay
    behind them: whichever refuses, in one line."""
    from limits import run_limited

    path = tmp_path / "bomb.pdf"
    path.write_bytes(form_bomb(drawn_by_string))
    result = run_limited(["parse", str(path)], memory=1 << 30, env={"PYTHONFAULTHANDLER": "1"})
    assert result.ok_within_limits and result.returncode == 2, (result.returncode, result.stderr[-500:])
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], lines
    assert "CRPARSE_MAX_PDF_MEMORY" in lines[0] or "CRPARSE_MAX_PDF_STREAM" in lines[0], lines
    assert result.peak_mib < 800, result.peak_mib


def test_a_limit_past_any_need_is_no_limit(document, monkeypatch):
    """1e99 s overflowed select's timeout: exit 3 (sweep 13)."""
    monkeypatch.setenv("CRPARSE_MAX_PDF_SECONDS", "1e99")
    monkeypatch.setenv("CRPARSE_MAX_PDF_MEMORY", "1e99")
    assert [rule.number for rule in crparse.parse(document).rules] == ["100.1", "100.2"]


def test_the_process_own_memory_limit_is_named_when_it_is_the_lower(tmp_path):
    """Under a user's ulimit -v, the refusal blamed CRPARSE_MAX_PDF_MEMORY and told to raise it."""
    from limits import run_limited

    path = tmp_path / "bomb.pdf"
    path.write_bytes(form_bomb(drawn_by_string=False))
    # the checks' limits raised, so that PDFium reads the bomb
    result = run_limited(["parse", str(path)], memory=400 << 20, env={
        "CRPARSE_MAX_PDF_MEMORY": "2G", "CRPARSE_MAX_PDF_STREAM": "2G", "CRPARSE_MAX_PDF_CONTENT": "2G"})
    assert result.ok_within_limits and result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert b"the process's own memory limit" in result.stderr and b"(ulimit -v)" in result.stderr, result.stderr


def test_the_process_own_cpu_limit_is_named_when_it_is_the_lower(document):
    """Under a user's ulimit -t of 2 s, the refusal said the 10 s of CRPARSE_MAX_PDF_SECONDS."""
    from limits import run_limited

    code = ("import crparse.readers.pdf as pdf\n"
            "def spin(raw, path):\n    while True:\n        pass\n"
            "pdf._read = spin\nfrom crparse.cli.main import main\nsys.argv[0] = 'crparse'\nsys.exit(main())")
    result = run_limited(["parse", str(document)], seconds=2, code=code)
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert b"the process's own CPU limit of 2 s (ulimit -t)" in result.stderr, result.stderr


def _logged(log):
    def read(raw, path):
        import time

        with open(log, "a") as out:
            out.write(f"+ {time.monotonic()}\n")
        time.sleep(0.4)
        with open(log, "a") as out:
            out.write(f"- {time.monotonic()}\n")
        return _read_as_before(raw, path)
    return read


_read_as_before = pdf._read


def test_reads_at_once_are_bounded_across_workers(tmp_path, monkeypatch):
    """CRPARSE_JOBS=8 workers reading bombs held 8 times the limit (sweep 13: 3.7 GiB): all the
    workers share the reads that may run at once, two at the default limit."""
    from crparse.parallel import parse_all
    from crparse.readers.pdf import confine

    paths = []
    for i in range(4):
        paths.append(tmp_path / f"2020-0{i + 1}-01.pdf")
        paths[-1].write_bytes(make_pdf(RULES))
    log = tmp_path / "reads.log"
    monkeypatch.setattr(pdf, "_read", _logged(log))
    monkeypatch.setattr(confine, "_slots", None)
    monkeypatch.setenv("CRPARSE_JOBS", "4")
    assert all(doc.rules for doc in parse_all(paths))
    running = most = 0
    for event in sorted(log.read_text().splitlines(), key=lambda line: (float(line.split()[1]), line[0] == "+")):
        running += 1 if event[0] == "+" else -1
        most = max(most, running)
    assert most == 2


def _killed(signum):
    def read(raw, path):
        os.kill(os.getpid(), signum)
    return read


@pytest.mark.parametrize("signum", ["SIGKILL", "SIGTERM"])
def test_a_child_stopped_from_outside_is_not_blamed_on_the_file(document, monkeypatch, signum):
    """SIGKILL from the out-of-memory killer was "took more than 10 s of CPU ... a bomb?", and
    SIGTERM "PDFium stopped ... within the memory limit ... a bomb?" (sweep 14)."""
    import signal

    monkeypatch.setattr(pdf, "_read", _killed(getattr(signal, signum)))
    with pytest.raises(RefusedInput, match=rf"stopped from outside crparse \({signum}, after [\d.]+ s of CPU\)"):
        crparse.parse(document)


def test_no_process_to_read_with_is_said(document, monkeypatch):
    """fork() failing (ulimit -u, a cgroup's pids.max) was an internal error, exit 3 (sweep 14)."""
    def fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", fork)
    with pytest.raises(RefusedInput, match="cannot start the process that reads a PDF: Resource temporarily"):
        crparse.parse(document)


def test_the_child_ends_with_the_process_that_started_it(tmp_path):
    """Killed alone, the process that asked left its child reading on (sweep 14)."""
    import signal
    import subprocess
    import sys
    import time

    script = ("import crparse.readers.pdf.confine as c\n"
              "c.confined(lambda: any(iter(int, 1)))\n")  # spins, holding nothing
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        child = None
        for _ in range(200):
            children = open(f"/proc/{parent.pid}/task/{parent.pid}/children").read().split()
            if children:
                child = int(children[0])
                break
            time.sleep(0.05)
        assert child is not None
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    for _ in range(100):
        try:
            state = open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state == "Z":  # dead, waiting for init to reap it
            return
        time.sleep(0.05)
    raise AssertionError(f"the child {child} still runs after its parent was killed")


def test_a_pdf_without_pages_is_said_so(tmp_path):
    from builders import pdf_of

    path = tmp_path / "empty.pdf"
    path.write_bytes(pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]))
    with pytest.raises(RefusedInput, match=r"PDFium loads no document from it and gives no reason \(a page tree"):
        crparse.parse(path)


def test_sizes_in_messages():
    from crparse.readers.limits import size

    assert [size(1), size(2), size(3 << 20)] == ["1 byte", "2 bytes", "3 MiB"]


@pytest.mark.parametrize("memory", ["1M", "4M", "8M"])
def test_a_limit_too_small_for_pdfium_itself_is_named(document, memory):
    """Under a few MiB the child could not map PDFium's library: "failed to map segment from
    shared object", the loader's words, was the message (sweep 14)."""
    from limits import run_limited

    result = run_limited(["parse", str(document)], env={"CRPARSE_MAX_PDF_MEMORY": memory})
    said = result.stderr.decode()
    assert "failed to map" not in said and "shared object" not in said, said
    assert result.returncode == 0 or (result.returncode == 2 and "CRPARSE_MAX_PDF_MEMORY" in said), said


def _slot_held_elsewhere(confine, seconds: float) -> int:
    """A forked process that takes a PDF read slot and holds it `seconds`; its pid, once it holds it."""
    import time

    holder = os.fork()
    if holder == 0:
        confine._take_slot(time.monotonic() + 5)
        time.sleep(seconds)
        os._exit(0)
    time.sleep(0.5)
    return holder


def test_a_slot_held_by_a_process_that_dies_is_free_again(monkeypatch):
    """A pipe of tokens lost the token of a worker killed from outside, and the other readers
    waited for ever (sweep 15): a slot is a lock, which the kernel releases with its holder; a
    wait ends anyway within the longest a read may run."""
    import signal
    import time

    from crparse.readers.pdf import confine

    monkeypatch.setattr(confine, "_slots", None)
    monkeypatch.setattr(confine, "_opened", (0, []))
    monkeypatch.setenv("CRPARSE_MAX_PDF_MEMORY", "512M")  # one slot
    confine.share_slots()
    holder = _slot_held_elsewhere(confine, seconds=60)
    started = time.monotonic()
    assert confine._take_slot(started + 0.3) is None  # held by the other process
    assert 0.3 <= time.monotonic() - started < 2
    os.kill(holder, signal.SIGKILL)
    os.waitpid(holder, 0)
    assert confine._take_slot(time.monotonic() + 2) is not None  # freed with its holder


def test_the_slots_leave_no_file_behind(tmp_path, monkeypatch):
    """Their directory was removed at exit: a parse stopped by a signal, and every pytest worker
    (which skips atexit), left one in the temporary directory (sweep 16). The files are opened
    by their descriptors, their names gone at once."""
    import tempfile
    import time

    from crparse.readers.pdf import confine

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(confine, "_opened", (0, []))
    monkeypatch.setenv("CRPARSE_MAX_PDF_MEMORY", "512M")  # one slot
    confine.share_slots()
    assert list(tmp_path.iterdir()) == []
    holder = _slot_held_elsewhere(confine, seconds=3)
    try:
        assert confine._take_slot(time.monotonic() + 0.2) is None  # the other process holds it
    finally:
        os.waitpid(holder, 0)
    assert confine._take_slot(time.monotonic() + 1) is not None


def test_a_huge_predictor_row_costs_no_more_than_the_data():
    """/Columns 2^28: rows of 256 MiB were made for 47 bytes, and the file refused as a bomb for
    the checker's own memory (sweep 15)."""
    import resource
    import time

    from crparse.readers.pdf.predictors import Predictor, unpredicted
    from crparse.readers.pdf.syntax import Objects

    before, started = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time()
    assert unpredicted(b"\x02abc", Predictor((12, 1, 8, 2**28 - 1)), Objects(b"")) == b"abc"
    assert time.process_time() - started < 0.5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB


def test_each_decoding_of_an_object_stream_counts_its_objects_once():
    """The raw and the predictor-undone data of one stream counted each object twice, so eight
    incremental updates passed the 16 definitions a PDFium reads fine (sweep 15)."""
    from crparse.readers.pdf.syntax import Objects

    objects = Objects(b"%PDF-1.7\n")
    objects.add_object_stream(b"3 0 << /Type /Page >>", 4, where=100)
    objects.add_object_stream(b"\x003 0 << /Type /Page >>", 5, where=100)  # another decoding of it
    objects.add_object_stream(b"3 0 << /Type /Page >>", 4, where=900)  # another stream
    assert objects.defined(3) == 2


def test_a_worker_stopped_from_outside_refuses_its_files_in_one_line(tmp_path, monkeypatch):
    """A pool worker killed by the out-of-memory killer: exit 3, "BrokenProcessPool" (sweep 15)."""
    import signal

    from crparse.errors import CrparseError
    from crparse.parallel import parse_all

    paths = []
    for i in range(4):
        paths.append(tmp_path / f"2020-0{i + 1}-01.pdf")
        paths[-1].write_bytes(make_pdf(RULES))
    parent = os.getpid()

    def killed(raw, path):  # in the confined child of a worker: its worker dies
        if os.getppid() != parent:
            os.kill(os.getppid(), signal.SIGKILL)
        return _read_as_before(raw, path)

    monkeypatch.setattr(pdf, "_read", killed)
    monkeypatch.setenv("CRPARSE_JOBS", "3")
    found = list(parse_all(paths))
    assert len(found) == 4
    stopped = [f for f in found if isinstance(f, CrparseError)]
    assert stopped and all("stopped from outside crparse" in str(f) for f in stopped)


def test_a_parse_killed_while_it_sends_its_tree_is_a_refusal(tmp_path):
    """diff's second process, killed while it wrote its tree into the pipe: what came was cut
    short, and decoding it was exit 3, "Input data was truncated" (sweep 16)."""
    import signal
    import time

    from crparse.errors import CrparseError
    from crparse.parallel import _Child

    rules = "".join(f"100.{i}. The text of rule {i}, long enough to fill a pipe with its tree.\n\n" for i in range(1, 3000))
    path = tmp_path / "2020-01-01.txt"
    path.write_text("Magic: The Gathering Comprehensive Rules\n\n100. General\n\n" + rules, encoding="utf-8")
    child = _Child(str(path), None, None)
    try:
        time.sleep(3)  # parsed, and blocked writing a tree larger than the pipe holds
        os.kill(child.pid, signal.SIGKILL)
        found = child.result()
    finally:
        child.end()
    assert isinstance(found, CrparseError) and "stopped from outside crparse" in str(found)


def test_a_worker_that_ctrl_c_reached_starts_no_read(document, monkeypatch):
    """A pool's worker left Ctrl-C to its parent by ignoring it, and went on with the PDF reads it
    had begun or was waiting for: lineage over slow PDFs exited 12-21 s after it (sweep 18)."""
    from crparse import processes

    monkeypatch.setattr(processes, "_interrupted", False)
    assert crparse.parse(document).rules
    processes._note(2, None)  # what the worker's handler does on SIGINT
    with pytest.raises(RefusedInput, match=r"interrupted \(Ctrl-C\): not read"):
        crparse.parse(document)
