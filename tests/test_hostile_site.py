"""`crparse docs` against a hostile output directory, store and cache (a fifth adversarial sweep;
each failed before its fix): links inside OUT written through, store rows naming other files,
release names that are the site's own files, damaged caches, outputs that cannot be written,
and inputs hashed whole before their size was checked."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT
from limits import run_limited
from site_builds import docs, one_line_refusal
from small_releases import release, releases

from crparse.site.release import fingerprint


@pytest.mark.parametrize("where", ["versions.js", "2020-01-01/lineage.js", ".crparse/diffs", "2020-04-01"])
def test_a_link_inside_the_output_is_refused_and_its_target_left(two, clean, tmp_path, where):
    """A link at versions.js, lineage.js or .crparse/diffs was written through: the file or
    directory it points to, outside the site, was overwritten or filled."""
    import shutil

    out = tmp_path / "site"
    shutil.copytree(clean, out, symlinks=True)
    outside = tmp_path / "outside"
    link = out / where
    if (clean / where).is_dir():
        outside.mkdir()
        shutil.rmtree(link)
    else:
        outside.write_text("precious")
        link.unlink()
    link.symlink_to(outside)
    line = one_line_refusal(docs(str(two), "-o", str(out)))
    assert f"{link}: a symbolic link inside the output directory" in line
    assert (outside.read_text() == "precious") if outside.is_file() else not any(outside.iterdir())


@pytest.mark.parametrize("kind", ["hard link", "fifo"])
def test_a_hard_link_or_a_fifo_inside_the_output_is_refused(two, clean, tmp_path, kind):
    """A fresh sweep: a hard link at versions.js was written in place (the file outside changed),
    a FIFO there blocked crparse docs for ever."""
    import shutil

    out = tmp_path / "site"
    shutil.copytree(clean, out)
    target = out / "versions.js"
    target.unlink()
    outside = tmp_path / "outside.txt"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        outside.write_text("precious")
        os.link(outside, target)
    line = one_line_refusal(docs(str(two), "-o", str(out)))
    assert f"{target}: " in line and "inside the output directory" in line
    assert kind == "fifo" or outside.read_text() == "precious"


def test_a_store_row_naming_another_file_or_a_directory_is_left_out(two, tmp_path):
    """docs --db built from whatever file a row named, unchecked: a row pointed at another file put
    its text in the site, at a directory walked it. Now it is checked as every stored read is."""
    store = tmp_path / "s.sqlite"
    done = subprocess.run([sys.executable, "-m", "crparse", "index", str(two), "--db", str(store)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    secret = tmp_path / "secret.txt"
    secret.write_text(release(releases()[2], 2).replace("These Magic rules", "SECRETCANARY rules"))
    with sqlite3.connect(store) as db:
        db.execute("UPDATE releases SET path = ? WHERE date = '2020-04-01'", (str(secret),))
    out = tmp_path / "site"
    done = docs("--db", str(store), "-o", str(out))
    assert done.returncode == 2, done.stderr  # a release that could not be read, the others built
    assert f"skipped {secret}: the file changed since it was stored" in done.stderr
    assert not any("SECRETCANARY" in p.read_text("utf-8", "replace") for p in out.rglob("*.html"))
    with sqlite3.connect(store) as db:
        db.execute("UPDATE releases SET path = ? WHERE date = '2020-04-01'", (str(ROOT / "crparse"),))
    done = docs("--db", str(store), "-o", str(tmp_path / "site2"))
    assert done.returncode == 2 and "skipped" in done.stderr and "cannot be read again: a directory" in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["versions.js", "objects.inv", "searchindex.js", "index.html", "search.html"])
def test_an_undated_release_named_as_a_file_of_the_site(two, tmp_path, name):
    """An undated release's directory is named after its file: `versions.js.txt` made a directory
    where the site's versions.js goes (exit 3)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for f in two.iterdir():
        (folder / f.name).write_text(f.read_text())
    (folder / f"{name}.txt").write_text(release(releases()[2], 2).replace("These rules are effective as of July 1, 2020.\n", ""))
    out = tmp_path / "site"
    done = docs(str(folder), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "versions.js").is_file() and (out / "index.html").is_file()
    assert (out / name.replace(".", "-") / "index.html").is_file()


def test_undated_releases_named_in_other_letters_are_each_built(tmp_path):
    """Names with no ASCII letter all made the directory `release`: all but the first were left out."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i, name in enumerate(["ルール", "règles", "правила"]):
        text = release(releases()[i], i)
        (folder / f"{name}.txt").write_text(text[:text.index("These rules are effective")] + text[text.index("1. Game"):])
    done = docs(str(folder), "-o", str(tmp_path / "site"))
    assert done.returncode == 0 and "left out" not in done.stderr, done.stderr
    assert "3 releases" in done.stdout
    assert len(list((tmp_path / "site").glob("release-*/index.html"))) == 2


@pytest.mark.parametrize("damage", ["truncated", "{}", "[]", "unknown-kind", "summary keys [1]", "summary date 5"])
def test_a_damaged_cache_is_built_again(two, clean, tmp_path, damage):
    """A run killed while writing a diff left half a JSON file: every later run was exit 3."""
    import shutil

    out = tmp_path / "site"
    shutil.copytree(clean, out)
    diff = next((out / ".crparse" / "diffs").glob("*.json"))
    summaries = list((out / ".crparse" / "summaries").glob("*.json"))
    if damage == "truncated":
        diff.write_bytes(diff.read_bytes()[:100])
    elif damage == "unknown-kind":
        data = json.loads(diff.read_text())
        data["diff"]["pairs"][0]["kind"] = 5
        diff.write_text(json.dumps(data))
    elif damage.startswith("summary"):
        for summary in summaries:
            data = json.loads(summary.read_text())
            data["keys" if damage == "summary keys [1]" else "date"] = [1] if damage == "summary keys [1]" else 5
            summary.write_text(json.dumps(data))
    else:
        diff.write_text(damage)
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(diff.read_text())["diff"]["pairs"]


def test_outputs_that_cannot_be_written_are_one_line_refusals(two, tmp_path):
    (tmp_path / "file").write_text("")
    for out in [str(tmp_path / "file" / "sub"), str(tmp_path / ("y" * 300)), ""]:
        line = one_line_refusal(docs(str(two), "-o", out))
        assert "internal error" not in line
    done = docs(str(two), "-o", str(tmp_path / "site"), "--jobs", "99999999999")
    assert done.returncode == 0, done.stderr


@pytest.mark.hostile
def test_a_huge_sparse_release_is_refused_before_it_is_read(tmp_path):
    """docs hashed each input whole before its size was checked: 3 GiB, 3.1 GiB of memory."""
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(3 << 30)
    result = run_limited(["docs", str(big), "-o", str(tmp_path / "site")])
    assert result.ok_within_limits and result.returncode == 2 and result.cpu_seconds < 5, result
    assert b"larger than the 4.0 MiB limit" in result.stderr


def test_the_fingerprint_of_a_rst_edition_covers_its_files(tmp_path):
    """An edition's fingerprint was its index alone: a change in another of its files left the
    site as it was."""
    (tmp_path / "index.rst").write_text("Rules\n=====\n\n.. toctree::\n\n   rules\n")
    (tmp_path / "rules.rst").write_text("100.1\n-----\n\nText.\n")
    before = fingerprint(tmp_path / "index.rst")
    (tmp_path / "rules.rst").write_text("100.1\n-----\n\nOther text.\n")
    assert fingerprint(tmp_path / "index.rst") != before


RST_RELEASE = """Magic: The Gathering Comprehensive Rules

These rules are effective as of October 1, 2030.

1. Game Concepts

100. General

100.1. A rule.

100.2. Another rule, with a `link <javascript:alert(1)>`_.

.. include:: {canary}

101. Mana

101.1. A rule citing rule 100.1.

101.2. One more.
"""


@pytest.mark.parametrize("name", ["plain.rst", "back`tick.rst", "esc\x1bape.rst"])
def test_a_rst_release_is_built_with_docutils_markup_only(tmp_path, name):
    """A release whose name a directive line cannot carry was copied into the Sphinx sources, which
    Sphinx then built as a page of the site, its `include` reading any file (sweep 12); and any
    reST release naming an include could not be built at all: read inside the Sphinx build, it
    met Sphinx's include ("'Values' object has no attribute 'env'")."""
    canary = tmp_path / "canary.txt"
    canary.write_text("SECRETCANARY")
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / name
    path.write_text(RST_RELEASE.format(canary=canary))
    out = tmp_path / "site"
    stale = out / ".crparse" / "releases" / "2030-10-01" / "src" / "_release"
    stale.mkdir(parents=True)  # where older builds kept the copy
    (stale / "release.rst").write_text(f".. include:: {canary}\n")
    done = docs(str(path), "-o", str(out), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    pages = [p for p in out.rglob("*") if p.is_file() and ".crparse" not in p.parts]
    assert not [p for p in pages if "SECRETCANARY" in p.read_text("utf-8", "replace")]
    assert not [p for p in pages if 'href="javascript:alert' in p.read_text("utf-8", "replace")]
    assert not (out / "_release").exists() and not stale.exists()
    assert (out / "100.html").exists()


@pytest.mark.parametrize("name", ["back`tick", "tab\tbed", "not-utf8-\udcff"])
def test_an_edition_whose_directory_a_directive_cannot_carry_is_built_whole(tmp_path, name):
    """Its index.rst alone was copied for the directive to read, its chapters left behind: the
    site failed as if the edition were broken ("toctree entry 'r' not read"), while `parse` read
    it (sweep 27). Then a second edition of the same odd name, built into the same OUT, is read
    where it is, not where the first one was."""
    outs = []
    for date, word in (("April 1, 2020", "zebra"), ("May 1, 2021", "okapi")):
        edition = tmp_path / word / name
        edition.mkdir(parents=True)
        (edition / "index.rst").write_text(f"Rules\n=====\n\nThese rules are effective as of {date}.\n\n"
                                           ".. toctree::\n\n   r\n")
        (edition / "r.rst").write_text(f"601. Range\n==========\n\n601.1\n-----\n\nWording {word}.\n\n"
                                       "601.2\n-----\n\nMore.\n")
        done = docs(str(edition), "-o", str(tmp_path / "site"), "--jobs", "1")
        assert done.returncode == 0, done.stderr
        outs.append((tmp_path / "site" / "601.html").read_text("utf-8"))
    assert "Wording zebra." in outs[0] and "Wording okapi." in outs[1] and "zebra" not in outs[1]


def test_a_build_makes_no_temporary_directory_it_does_not_need(tmp_path, monkeypatch):
    """Each build made one, which a SIGTERM left in TMPDIR (sweep 29): only a release whose name
    a directive line cannot carry needs one."""
    import tempfile

    from crparse.cli.main import main
    from small_releases import write_releases

    made = []
    real = tempfile.TemporaryDirectory
    monkeypatch.setattr(tempfile, "TemporaryDirectory", lambda *a, **k: made.append(k.get("prefix")) or real(*a, **k))
    folder = write_releases(tmp_path / "rel", 1)
    assert main(["docs", str(folder), "-o", str(tmp_path / "site"), "--jobs", "1"]) == 0
    assert "crparse-docs-" not in made


def test_a_release_read_inside_the_sphinx_build_is_read_with_docutils_lookups(tmp_path):
    """A release the build's directive reads again (a copy, for a name a directive line cannot
    carry) met Sphinx's lookups of directives and roles, which it puts in place of docutils':
    `:ref:` and `.. glossary::` were Sphinx's, and wanted its environment ("'Values' object has no
    attribute 'env'"), where `parse` read the release (sweep 28)."""
    (tmp_path / "x`y").mkdir()
    path = tmp_path / "x`y" / "rel.rst"
    path.write_text("Comprehensive Rules\n===================\n\n100. General\n============\n\n100.1\n-----\n\n"
                    "Text of the rule.\n\n.. _gen:\n\n100.2\n-----\n\nSee :ref:`gen`.\n\n.. glossary::\n\n   Term\n"
                    "      A term.\n")
    done = docs(str(path), "-o", str(tmp_path / "site"), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "Text of the rule." in (tmp_path / "site" / "100.html").read_text("utf-8")


def test_a_site_built_again_has_no_change_page_of_a_pair_that_is_gone(tmp_path):
    """Sphinx leaves the pages it no longer builds: with a release added between two, the page of
    changes between those two stayed, and the site differed from a fresh build (sweep 12)."""
    from small_releases import write_releases

    folder = write_releases(tmp_path / "rel", 3)
    middle = folder / "2020-04-01.txt"
    kept = middle.read_text()
    middle.unlink()
    out = tmp_path / "site"
    assert docs(str(folder), "-o", str(out), "--jobs", "1").returncode == 0
    assert (out / "changes" / "2020-01-01--2020-07-01.html").exists()
    # pages of the user's own in those folders are no page of the site's: they stay (sweep 14)
    (out / "changes" / "notes.html").write_text("mine")
    (out / "history" / "mine.html").write_text("mine")
    middle.write_text(kept)
    done = docs(str(folder), "-o", str(out), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (out / "changes").glob("*.html")) == [
        "2020-01-01--2020-04-01.html", "2020-04-01--2020-07-01.html", "notes.html"]
    assert (out / "history" / "mine.html").read_text() == "mine"


def test_a_release_is_parsed_once_to_build_its_site(tmp_path, monkeypatch):
    """The site parsed each release for its summary, then again to build its pages: a PDF read
    in 8 s (within its 10 s) took `docs` 16.6 s (sweep 14)."""
    import crparse.pipeline
    from crparse.site.corpus import build_site

    parses = []
    real = crparse.pipeline._parse

    def counted(raw, path, format):
        parses.append(path)
        return real(raw, path, format)

    monkeypatch.setattr(crparse.pipeline, "_parse", counted)
    monkeypatch.setenv("CRPARSE_JOBS", "1")
    path = tmp_path / "2020-01-01.txt"
    path.write_text(release(releases()[0], 0), encoding="utf-8")
    build_site([path], tmp_path / "site", jobs=1)
    assert len(parses) == 1, parses


def test_a_release_too_large_for_a_site_is_refused_naming_the_limit(tmp_path):
    """45,000 rules took `docs` 27 s, two such releases 149 s and 1 GiB (sweep 14): a release of
    more than CRPARSE_MAX_SITE_UNITS rules and glossary entries is refused, the others built."""
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / "2020-01-01.txt").write_text(release(releases()[0], 0), encoding="utf-8")
    done = docs(str(folder), "-o", str(tmp_path / "site"), env={"CRPARSE_MAX_SITE_UNITS": "5"})
    assert "make), more than the 5 a site is built of" in one_line_refusal(done) and "CRPARSE_MAX_SITE_UNITS" in done.stderr
    assert docs(str(folder), "-o", str(tmp_path / "site")).returncode == 0


def test_the_links_references_make_count_toward_the_size_of_a_release(tmp_path):
    """A range links every rule in it: 30 "See rules 100.1-130.99." in a release of 3,000 rules,
    under the limit by references, took `docs` 41 s (sweep 15)."""
    rules = "".join(f"100.{i}. Rule {i}.\n\n" for i in range(2, 10))
    path = tmp_path / "2020-01-01.txt"
    path.write_text("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 1, 2020.\n\n"
                    "1. Game Concepts\n\n100. General\n\n100.1. Start." + " See rules 100.2-100.9." * 20 + "\n\n" + rules,
                    encoding="utf-8")
    done = docs(str(path), "-o", str(tmp_path / "site"), env={"CRPARSE_MAX_SITE_UNITS": "100"})
    assert "(or the links they make), more than the 100 a site is built of" in one_line_refusal(done)


def _session(leader: int) -> list[tuple[int, int, str]]:
    """(pid, ppid, state) of the processes of `leader`'s session, zombies left out."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == leader and fields[0] != "Z":
                found.append((int(entry), int(fields[1]), fields[0]))
    return found


def _left_of(leader: int) -> list[tuple[int, int, str]]:
    """The processes of `leader`'s session still there 10 s after it ended, each then killed."""
    import signal
    import time

    deadline = time.monotonic() + 10
    while _session(leader) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _session(leader)
    for pid, _, _ in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_the_workers_building_releases_end_with_a_killed_docs(tmp_path, sig):
    """The pool that builds several releases at once had workers of its own kind: after `docs`
    was killed they built on, held its stdout, and held the site's lock for ever, so that every
    later `docs` of that site waited 60 s and was refused; Ctrl-C sent to `docs` alone waited
    for each worker to finish its build (sweep 21)."""
    import signal
    import time

    paths = []
    for month, rules in enumerate(releases()[:3]):
        paths.append(tmp_path / f"r{month}.txt")
        paths[-1].write_text(release(rules, month))
    docs_run = subprocess.Popen([sys.executable, "-m", "crparse", "docs", "-o", str(tmp_path / "out"), "--jobs", "3",
                                 *map(str, paths)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
    deadline = time.monotonic() + 60
    while len([p for p in _session(docs_run.pid) if p[1] == docs_run.pid]) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)  # until its pool's workers are at work
    assert docs_run.poll() is None, "docs ended before its workers were seen"
    os.kill(docs_run.pid, getattr(signal, sig))
    sent = time.monotonic()
    docs_run.wait(timeout=30)
    if sig == "SIGINT":  # 0: the builds ended before the signal came
        assert docs_run.returncode in (130, 0) and time.monotonic() - sent < 5, (docs_run.returncode, time.monotonic() - sent)
    left = _left_of(docs_run.pid)
    assert not left, left


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
def test_one_release_is_built_by_no_worker_that_outlives_docs(corpus, tmp_path, sig):
    """One release was built by Sphinx's own parallel build, whose forked workers outlived a
    killed `docs` holding the site's lock for ever, and after one Ctrl-C kept it waiting at exit
    for ever (sweep 22). Signalled mid-build, `docs` ends, and no process of its is left."""
    import signal
    import time

    release = corpus / "txt" / "2014-05-01.txt"
    docs_run = subprocess.Popen([sys.executable, "-m", "crparse", "docs", "-o", str(tmp_path / "out"), "--jobs", "3",
                                 str(release), str(release), str(release)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(2.0)  # into the build
    os.kill(docs_run.pid, getattr(signal, sig))
    _, err = docs_run.communicate(timeout=30)
    left = _left_of(docs_run.pid)
    assert not left and b"Traceback" not in err, (left, err[-1000:])


def _deep(top, levels: int = 1100):
    """A chain of `levels` directories below top (os.makedirs recurses too)."""
    here = top
    for _ in range(levels):
        here = here / "d"
        here.mkdir()
    return here


@pytest.mark.parametrize("where", ["output", "edition"])
def test_docs_with_a_deep_tree_in_the_output_or_beside_an_edition(two, clean, tmp_path, where):
    """Python 3.11's os.walk and Path.rglob recurse for each level: a tree 1,100 directories deep
    in OUT (walked for links), or below a reST edition (its fingerprint), ended `docs` with a
    RecursionError, exit 3 (sweep 25)."""
    import shutil

    out = tmp_path / "site"
    if where == "output":
        shutil.copytree(clean, out, symlinks=True)
        _deep(out)
        args = [str(two)]
    else:
        edition = tmp_path / "ed"
        edition.mkdir()
        (edition / "index.rst").write_text("Rules\n=====\n\n.. toctree::\n\n   rules\n")
        (edition / "rules.rst").write_text("100. General\n============\n\n100.1. A rule.\n\n100.2. Another.\n")
        _deep(edition)
        args = [str(edition / "index.rst")]
    try:
        done = docs(*args, "-o", str(out))
    finally:  # pytest removes its temporary directories with shutil.rmtree, which recurses too
        from crparse.outputs import remove_tree

        remove_tree(tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-500:]


def test_a_deep_tree_crparse_owns_is_removed_by_a_loop(tmp_path):
    from crparse.outputs import remove_tree, tree

    (tmp_path / "top").mkdir()
    bottom = _deep(tmp_path / "top")
    (bottom / "f.txt").write_text("x")
    (tmp_path / "top" / "link").symlink_to(tmp_path / "kept")
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "precious").write_text("x")
    assert sum(1 for _ in tree(tmp_path / "top")) == 1101  # the top and its chain; the link is a file
    remove_tree(tmp_path / "top")
    assert not (tmp_path / "top").exists() and (tmp_path / "kept" / "precious").exists()


def test_rst_files_with_toctrees_one_below_another_are_hashed_once(tmp_path, monkeypatch):
    """Each fingerprint walked its directory's whole tree: 400 such files one below another read
    80,000 files (`index`: 14 s, sweep 27). The tree below a directory walked is known from its
    walk, and each fingerprint is what it is alone."""
    import crparse.fingerprint

    masters, folder = [], tmp_path
    for n in range(200):
        masters.append(folder / "m.rst")
        masters[-1].write_text(f"M{n}\n==\n\n.. toctree::\n\n   x\n")
        folder = folder / "s"
        folder.mkdir()
    alone = {n: fingerprint(masters[n]) for n in (0, 100, 199)}
    reads = []
    read_regular = crparse.fingerprint.read_regular
    monkeypatch.setattr(crparse.fingerprint, "read_regular", lambda *a, **k: reads.append(a[0]) or read_regular(*a, **k))
    directories: dict = {}
    shared = {n: fingerprint(masters[n], directories) for n in range(200)}
    assert {n: shared[n] for n in alone} == alone and len(set(shared.values())) == 200
    assert len(reads) == 400  # each file for itself, and once for the walk of the top
    # a chapter changed deep down changes every fingerprint above it, and none below
    (masters[150].parent / "x.rst").write_text("X\n=\n")
    again = {n: fingerprint(masters[n]) for n in (0, 150, 151)}
    assert again[0] != shared[0] and again[150] != shared[150] and again[151] == shared[151]


def test_a_directory_of_rst_files_with_toctrees_is_hashed_once(tmp_path, monkeypatch):
    """Each reST file with a toctree is fingerprinted with every .rst file of its directory: 1,000
    of them in one directory read each other, a million reads, 42 s (sweep 26). The directory's
    files are hashed once for the run, and each fingerprint is what it was."""
    import crparse.fingerprint

    for n in range(300):
        (tmp_path / f"m{n:03}.rst").write_text(f"M{n}\n==\n\n.. toctree::\n   :glob:\n\n   *\n")
    alone = {n: fingerprint(tmp_path / f"m{n:03}.rst") for n in (0, 150, 299)}
    reads = []
    read_regular = crparse.fingerprint.read_regular
    monkeypatch.setattr(crparse.fingerprint, "read_regular", lambda *a, **k: reads.append(a[0]) or read_regular(*a, **k))
    directories: dict = {}
    shared = {n: fingerprint(tmp_path / f"m{n:03}.rst", directories) for n in range(300)}
    assert {n: shared[n] for n in alone} == alone and len(set(shared.values())) == 300
    assert len(reads) == 600  # each file for itself, and once for its directory


def test_an_edition_whose_index_is_a_link_to_another_s_is_a_release_of_its_own(tmp_path):
    """Taken for the same file given twice, it was left out of the site without a word, where
    parse, index and lineage read it as the edition of its own directory (sweep 39)."""
    from crparse.site.corpus import build_site

    for name, text in (("A", "Rule A one"), ("B", "Rule B one, changed")):
        (tmp_path / "in" / name).mkdir(parents=True)
        (tmp_path / "in" / name / "c0.rst").write_text(f"Chapter\n=======\n\n100.1. {text}.\n\n100.2. Two.\n")
    (tmp_path / "in" / "A" / "index.rst").write_text("Rules\n=====\n\n.. toctree::\n\n   c0\n")
    (tmp_path / "in" / "B" / "index.rst").symlink_to("../A/index.rst")
    report = build_site([tmp_path / "in"], tmp_path / "site")
    assert len(report.releases) == 2 and not report.skipped, report.skipped
