"""Hostile inputs of the third adversarial sweep (each failed before its fix): ranges of a kind
the document lacks, a page number too long for int(), a chain of missing targets, reST
substitutions that multiply, and batches with one bad file or a FIFO in them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from small_releases import write_releases

import crparse
from crparse.errors import RefusedInput

HEAD = "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 1, 2020.\n\n"


@pytest.mark.parametrize("cited", ["rules 100.2a–b", "rules 603.7d - f", "rules 100–102"])
def test_a_range_of_a_kind_the_document_lacks_is_dangling(cited):
    doc = crparse.parse(f"100.1. See {cited}.\n\n100.2. To play.\n".encode())
    refs = crparse.references(doc)
    assert refs and all(r.status in ("dangling", "external") for r in refs)


def test_a_contents_page_number_too_long_for_int_is_no_page():
    doc = crparse.parse(("Magic: The Gathering Comprehensive Rules\n\nContents\n\n1. Game Concepts\n100. General ..... "
                         + "9" * 5000 + "\n\n1. Game Concepts\n\n100. General\n\n100.1. Rules.\n\n100.2. More rules.\n").encode())
    assert "100.1" in doc


def test_missing_targets_count_towards_the_cited_limit(monkeypatch):
    monkeypatch.setenv("CRPARSE_MAX_REFERENCES", "1000")  # 2,000 cited in all
    doc = crparse.parse(("100.1. Start rules " + "999.9, " * 3000 + "999.9.\n\n100.2. To play.\n").encode())
    with pytest.raises(RefusedInput, match="citing more than 2,000 rules or glossary terms"):
        crparse.references(doc)


def _substitutions(levels: int) -> bytes:
    head = "Rules\n=====\n\n100.1\n-----\n\nThese rules. See rule 100.2.\n\n100.2\n-----\n\nTwo.\n\n"
    body = "".join(f".. |s{i}| replace:: |s{i + 1}| |s{i + 1}|\n" for i in range(levels))
    return (head + body + f".. |s{levels}| replace:: x\n\n100.3\n-----\n\n|s0|\n").encode()


def test_substitutions_that_multiply_are_refused_before_docutils():
    with pytest.raises(RefusedInput, match="substitutions defined by other substitutions") as refused:
        crparse.parse(_substitutions(40), format="rst")  # 2^40 nodes: never ended before
    # the definition that expands past the limit: docutils expands each definition too (sweep 45)
    assert refused.value.line == 14
    doc = crparse.parse(_substitutions(8), format="rst")  # 511 nodes: read as before
    assert "100.3" in doc


def crparse_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, text=True, cwd=ROOT,
                          env=os.environ | {"CRPARSE_JOBS": "1"}, timeout=120)


def test_lineage_of_a_directory_with_a_bad_file_chains_the_others(tmp_path):
    folder = write_releases(tmp_path / "releases", count=2)
    (folder / "2020-02-01.txt").write_text("")  # empty: refused
    os.mkfifo(folder / "2020-03-01.txt")
    done = crparse_cli("lineage", str(folder), "--json")
    assert done.returncode == 2, done.stderr  # the empty file refused, as parse says it
    assert [r["date"] for r in json.loads(done.stdout)["releases"]] == ["2020-01-01", "2020-04-01"]
    said = done.stderr.splitlines()
    assert any("2020-02-01.txt: empty input" in line for line in said)
    assert any("2020-03-01.txt: skipped: not a regular file (a FIFO)" in line for line in said)


def test_index_and_cite_check_say_what_a_walk_skipped(tmp_path):
    folder = write_releases(tmp_path / "releases", count=1)
    os.mkfifo(folder / "pipe.txt")
    done = crparse_cli("index", str(folder), "--db", str(tmp_path / "store.sqlite"))
    assert done.returncode == 0 and "pipe.txt: skipped: not a regular file (a FIFO)" in done.stderr
    code = tmp_path / "code"
    code.mkdir()
    (code / "engine.py").write_text("# 100.1\n")
    os.mkfifo(code / "pipe.py")
    done = crparse_cli("cite-check", str(code), "--cr", str(folder / "2020-01-01.txt"))
    assert done.returncode == 0 and "pipe.py: skipped: not a regular file (a FIFO)" in done.stderr


@pytest.mark.parametrize("args", [["history", "100.1", "--at", "yesterday"], ["examples", "x.txt", "--rules-date", "2020/1/1"],
                                  ["cite-check", "x.py", "--cr", "x.txt", "--since", "2020-13-01"]])
def test_a_date_that_is_not_one_is_refused(args, capsys):
    from crparse.cli.main import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert "is not a date" in err and len(err.strip().splitlines()) == 1


# -- crparse docs and the reST reader, from the re-sweep --------------------------------------------


def test_a_csv_table_of_too_many_rows_is_refused_before_docutils():
    table = "".join(f"   {i},{i}\n" for i in range(6000))
    text = f"Rules\n=====\n\n100.1\n-----\n\nText.\n\n.. csv-table::\n\n{table}\n100.2\n-----\n\nMore.\n"
    with pytest.raises(RefusedInput, match="csv-tables of more than 5,000 rows"):
        crparse.parse(text.encode(), format="rst")
    small = text.replace(table, "   a,b\n   c,d\n")
    assert "100.2" in crparse.parse(small.encode(), format="rst")


@pytest.mark.hostile
def test_docs_of_a_rule_with_45000_references_ends_in_time(tmp_path):
    from limits import run_limited

    release = tmp_path / "refs.txt"
    release.write_text(HEAD + "100. General\n\n100.1. Start. " + "See rule 100.2. " * 45_000 + "\n\n100.2. To play.\n")
    result = run_limited(["docs", str(release), "-o", str(tmp_path / "site")], seconds=15)
    # past the size of a release a site is built of (CRPARSE_MAX_SITE_UNITS): refused at once
    assert result.ok_within_limits and result.returncode == 2, result.stderr[-300:]
    assert b"45,000 references (or the links they make), more than the 12,000 a site is built of" in result.stderr
    # and built in time when the limit is raised: one rule's references to one rule cost once
    result = run_limited(["docs", str(release), "-o", str(tmp_path / "site")], seconds=15,
                         env={"CRPARSE_MAX_SITE_UNITS": "100000"})
    assert result.ok_within_limits and result.returncode == 0, result.stderr[-300:]


def test_docs_of_a_release_whose_name_holds_a_newline(tmp_path):
    from small_releases import release, releases

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "2020-01-01\nx.txt").write_text(release(releases()[0], 0))
    done = crparse_cli("docs", str(folder), "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "100.html").exists()


def test_docs_into_a_link_to_a_directory_elsewhere(tmp_path):
    (tmp_path / "deep" / "a" / "b").mkdir(parents=True)
    (tmp_path / "out").symlink_to(tmp_path / "deep" / "a" / "b")
    done = crparse_cli("docs", "corpus/002_5de42b84d94734e9.txt", "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "deep" / "a" / "b" / "801.html").exists()


def test_a_path_past_path_max_is_one_refusal_and_the_walk_goes_on(tmp_path):
    """pathlib's is_dir/is_symlink raise ENAMETOOLONG: exit 3 for the name as an argument, and
    in a directory walk the whole batch stopped (0 documents printed)."""
    deep = str(tmp_path / "deep")
    while len(deep) < 3950:  # under PATH_MAX (4,096) whatever the length of tmp_path; the file name takes it past
        deep = os.path.join(deep, "d" * max(1, min(200, 3950 - len(deep) - 1)))
    os.makedirs(deep)
    fd = os.open(deep, os.O_RDONLY)
    try:
        os.close(os.open("x" * 250 + ".txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    (tmp_path / "deep" / "good.txt").write_text("100.1. A rule.\n\n100.2. Another rule.\n")
    done = crparse_cli("parse", "--json", str(tmp_path / "deep"))
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert len(done.stdout.splitlines()) == 1 and "File name too long" in done.stderr
    done = crparse_cli("parse", "a" * 5000 + ".txt")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "File name too long" in done.stderr


def test_a_directory_past_path_max_in_a_walk_is_said(tmp_path):
    """os.walk passed over a directory it could not list without a word: releases deeper than
    PATH_MAX were left out silently ('no input files found', 'index: 0 releases added')."""
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(21):  # 21 levels of 200 characters: past PATH_MAX (4,096)
            try:
                os.mkdir("d" * 200, dir_fd=fd)
            except FileExistsError:
                pass
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    (tmp_path / "good.txt").write_text("100.1. A rule.\n\n100.2. Another rule.\n")
    done = crparse_cli("parse", str(tmp_path))
    assert "good.txt" in done.stdout and "Traceback" not in done.stderr
    assert "a directory that cannot be read: File name too long" in done.stderr
    assert done.returncode == 2  # something asked for was not read (it exited 0, as for a FIFO met in a walk)


def test_text_writes_in_batches_not_a_write_a_line(tmp_path, monkeypatch):
    """`crparse text` printed a line at a time: where stdout is unbuffered (PYTHONUNBUFFERED, set
    in many containers) 4 MB of blank lines were 8 million writes, 15 s."""
    import io

    from crparse.cli.main import main

    path = tmp_path / "blank.txt"
    path.write_text("100.1. A rule.\n\n100.2. Another rule.\n" + "\n" * 50_000)

    class Counted(io.StringIO):
        writes = 0

        def write(self, text):
            Counted.writes += 1
            return super().write(text)

    out = Counted()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["text", str(path)]) == 0
    assert out.getvalue().count("\n") == 50_003 and Counted.writes < 100


@pytest.mark.parametrize("directive, rows, columns", [(".. csv-table::", 600, 100), (".. CSV-Table::", 6000, 2),
                                                      (".. csv-table ::", 6000, 2)])
def test_a_csv_table_of_too_many_cells_or_spelled_otherwise_is_refused_before_docutils(directive, rows, columns):
    """Rows were counted, not cells: 4,000 rows of 100 took 17 s and 922 MB; and the directive
    spelled as docutils also reads it (any case, a space before "::") was not counted (sweep 31)."""
    table = "".join("   " + ",".join("a" * columns) + "\n" for _ in range(rows))
    text = f"Rules\n=====\n\n100.1\n-----\n\nText.\n\n{directive}\n\n{table}\n100.2\n-----\n\nMore.\n"
    with pytest.raises(RefusedInput, match="csv-tables of more than 5,000 rows or 50,000 cells"):
        crparse.parse(text.encode(), format="rst")


def test_lineage_chains_no_more_releases_than_a_store_may_hold(tmp_path):
    """`lineage` keeps each release's tree until the chain is made: 270 copies of a release took
    1.2 GB, where `index` and `history` refused them by CRPARSE_MAX_RELEASES (sweep 32)."""
    folder = write_releases(tmp_path / "releases", count=3)
    done = subprocess.run([sys.executable, "-m", "crparse", "lineage", str(folder), "--json"], capture_output=True,
                          text=True, cwd=ROOT, env=os.environ | {"CRPARSE_JOBS": "1", "CRPARSE_MAX_RELEASES": "2"},
                          timeout=120)
    assert done.returncode == 2 and not done.stdout, done
    assert done.stderr.count("\n") == 1 and "3 documents, more than 2 releases" in done.stderr
    assert "CRPARSE_MAX_RELEASES" in done.stderr
    assert crparse_cli("lineage", str(folder), "--json").returncode == 0


@pytest.mark.parametrize("command", ["parse", "text"])
def test_out_of_memory_under_a_raised_input_limit_is_a_refusal(tmp_path, command):
    """With CRPARSE_MAX_INPUT raised past what the process may hold, a 1.2 GB file was an internal
    error, exit 3 (sweep 43): a MemoryError is a refusal that names the limit."""
    from limits import run_limited

    big = tmp_path / "big.txt"
    with open(big, "wb") as f:  # sparse: no disk, no time to write
        f.truncate(700 << 20)
    result = run_limited([command, str(big)], memory=512 << 20, env={"CRPARSE_MAX_INPUT": "2G"})
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in stderr and "internal error" not in stderr, stderr[-1000:]
    assert f"crparse: {big}: out of memory while reading it: the input limit is 2048.0 MiB" in stderr, stderr[-1000:]
