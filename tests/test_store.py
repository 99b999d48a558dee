"""The store (crparse.store) and the lineage it holds, on a corpus of four small releases
written here: a rule inserted (later numbers pushed up), a rule reworded, a rule split, a rule
removed. Then the CLI over it, an interrupted index, and an index that is incremental."""

from __future__ import annotations

import datetime
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

from crparse.errors import CrparseError
from crparse.lineage import chain
from crparse.store import connect
from crparse.store.index import index
from crparse.store.query import current_number, history, search
from small_releases import release, releases, write_releases

@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_releases(tmp_path / "releases")


@pytest.fixture
def store(corpus, tmp_path):
    db = connect(tmp_path / "store.sqlite", create=True)
    report = index(db, [str(corpus)])
    assert len(report.added) == 4 and report.aligned == 3 and report.lineages
    return db


def test_history_follows_a_rule_through_renumberings(store):
    h = history(store, "100.3", "2020-01-01")  # the supplemental rules one, 100.3 then 100.4 then 100.3
    assert h.lineage == "2020-01-01:100.3"
    assert [(v.date, v.key, v.kind) for v in h.versions] == [
        ("2020-01-01", "100.3", "born"), ("2020-04-01", "100.4", "moved"),
        ("2020-07-01", "100.4", "unchanged"), ("2020-10-01", "100.3", "moved")]
    assert h.end is None and h.now is None


def test_history_of_a_citing_rule_is_not_changed_by_renumbered_citations(store):
    h = history(store, "101.3", "2020-01-01")
    kinds = [(v.key, v.kind, v.flags) for v in h.versions]
    assert kinds[1] == ("101.3", "unchanged", ("references-renumbered",))
    assert kinds[2][:2] == ("101.4", "moved") and kinds[3] == ("101.4", "unchanged", ("references-renumbered",))


def test_history_of_a_split_rule_and_of_its_new_piece(store):
    h = history(store, "101.2", "2020-01-01")
    assert [v.kind for v in h.versions] == ["born", "unchanged", "split", "unchanged"]
    piece = history(store, "101.3", "2020-07-01")
    assert piece.lineage == "2020-07-01:101.3" and piece.born_of == "2020-01-01:101.2"


def test_a_removed_rule_ends_and_its_number_is_reported_stale(store):
    h = history(store, "100.2", "2020-04-01")  # the commander rule
    assert h.end == "removed" and h.ended == "2020-10-01"
    assert h.now == "2020-01-01:100.2"  # 100.2 in the newest release: the deck rule, pushed back down


def test_current_number_of_an_old_citation(store):
    assert current_number(store, "100.3", "2020-01-01") == ("100.3", "2020-10-01")
    assert current_number(store, "100.2", "2020-05-01") == (None, "2020-10-01")  # removed
    assert current_number(store, "101.3", "2020-02-01") == ("101.4", "2020-10-01")


def test_search_reports_first_and_last_release_of_a_phrase(store):
    [found] = search(store, "commander deck")
    assert (found.keys, found.first, found.last, found.releases) == (["100.2"], "2020-04-01", "2020-07-01", 2)
    assert search(store, "no such words anywhere") == []


@pytest.mark.parametrize(("call", "said"), [
    (lambda db: search(db, "commander\x00deck"), "the phrase given holds a NUL character"),
    (lambda db: search(db, "commander \udcff"), "the phrase given is not valid text (a lone surrogate)"),
    (lambda db: history(db, "\udcff"), "the rule or glossary key given is not valid text"),
    (lambda db: history(db, "100.\x002"), "the rule or glossary key given holds a NUL character"),
    (lambda db: search(db, "commander", limit=-1), "limit must be a number of matches, 1 or more, or None"),
    (lambda db: search(db, "commander", limit=0), "limit must be a number of matches"),
    (lambda db: history(db, None), "the rule or glossary key given is no text: NoneType"),
    (lambda db: search(db, 5), "the phrase given is no text: int"),
])
def test_a_query_given_what_sqlite_takes_as_no_text_says_so(store, call, said):
    """A NUL or a lone surrogate in a phrase or a key was said as a damaged store, to rebuild; a
    limit of -1 cut the last match off (sweep 45)."""
    with pytest.raises(CrparseError, match=re.escape(said)) as refused:
        call(store)
    assert "damaged" not in str(refused.value)


def test_the_store_agrees_with_chaining_the_parsed_releases(store, corpus):
    """Two ways to the same lineages: from the stored pairs (crparse.lineage.link) and by
    aligning the parsed documents again (crparse.lineage.chain)."""
    import crparse

    docs = [crparse.parse(p) for p in sorted(corpus.iterdir())]
    direct = chain(docs)
    stored = dict(store.execute("SELECT id, end FROM lineages"))
    assert stored == {lid: lin.end for lid, lin in direct.lineages.items()}


def test_index_is_incremental(store, corpus, tmp_path):
    again = index(store, [str(corpus)])
    assert (again.added, again.known, again.aligned, again.lineages) == ([], 4, 0, None)
    # a release between two stored ones: aligned with both neighbours, the lineage chained again
    (corpus / "2020-05-01.txt").write_text(release(releases()[1], 1).replace("April 1", "May 1").replace(
        "exactly one hundred cards", "exactly 100 cards"))
    more = index(store, [str(corpus)])
    assert len(more.added) == 1 and more.aligned == 2 and more.lineages
    h = history(store, "100.2", "2020-04-01")
    assert [(v.date, v.kind) for v in h.versions] == [("2020-04-01", "born"), ("2020-05-01", "changed"), ("2020-07-01", "changed")]


def _run_index_killed(db: Path, corpus: Path, after: int) -> int:
    """`crparse index` in a child that SIGKILLs itself at its `after`-th write to the store
    (inside a transaction: the kill lands between a BEGIN and its COMMIT)."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        from crparse.store import connect
        from crparse.store.index import index

        class Killing:
            def __init__(self, db):
                self.db, self.writes = db, 0
            def execute(self, sql, *args):
                return self.db.execute(sql, *args)
            def executemany(self, sql, rows):
                self.writes += 1
                if self.writes == {after}:
                    os.kill(os.getpid(), signal.SIGKILL)
                return self.db.executemany(sql, rows)

        index(Killing(connect(sys.argv[1], create=True)), [sys.argv[2]])
    """)
    done = subprocess.run([sys.executable, "-c", script, str(db), str(corpus)], cwd=ROOT, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    return done.returncode


# the writes: 2 for each release (nodes, references), 1 for each pair of releases after the
# first, then 2 for the lineage: kill in the first release, in the second's pairs, in the lineage
@pytest.mark.parametrize("after", [2, 5, 13])
def test_a_killed_index_leaves_a_usable_store_and_the_next_run_finishes(corpus, tmp_path, after):
    db = tmp_path / "killed.sqlite"
    assert _run_index_killed(db, corpus, after) == -signal.SIGKILL
    store = connect(db)
    stored = store.execute("SELECT count(*) FROM releases").fetchone()[0]
    assert stored == {2: 0, 5: 2, 13: 4}[after]
    # every stored release is whole: its nodes and their full-text entries are there
    for (release, nodes) in store.execute("SELECT id, nodes FROM releases"):
        assert store.execute("SELECT count(*) FROM nodes WHERE release = ?", (release,)).fetchone()[0] == nodes
    report = index(store, [str(corpus)])
    assert report.known == stored and len(report.added) == 4 - stored
    assert history(store, "100.3", "2020-01-01").versions[-1].date == "2020-10-01"
    assert store.execute("SELECT count(*) FROM texts").fetchone()[0] == store.execute(
        "SELECT count(*) FROM texts_fts").fetchone()[0]



class _CountingRows:
    """A connection that counts the rows its queries hand back to crparse."""

    def __init__(self, db):
        self.db, self.read = db, 0

    def execute(self, sql, *args):
        return _CountedCursor(self, self.db.execute(sql, *args))

    def __getattr__(self, name):
        return getattr(self.db, name)


class _CountedCursor:
    def __init__(self, counter, cursor):
        self.counter, self.cursor = counter, cursor

    def __iter__(self):
        for row in self.cursor:
            self.counter.read += 1
            yield row

    def fetchone(self):
        row = self.cursor.fetchone()
        self.counter.read += row is not None
        return row

    def __getattr__(self, name):
        return getattr(self.cursor, name)


def _write_daily_releases(folder: Path, count: int) -> None:
    """`count` releases a day apart from 2020-01-01, each rewording one rule of the one before."""
    folder.mkdir()
    rules = dict(releases()[0])
    for day in range(count):
        date = datetime.date(2020, 1, 1) + datetime.timedelta(days=day)
        key = sorted(rules)[day % len(rules)]
        rules[key] = rules[key].rstrip(".") + f" ({day})."
        text = release(rules, 0).replace("January 1, 2020", f"{date:%B} {date.day}, {date.year}")
        (folder / f"{date}.txt").write_text(text)


def test_index_reads_rows_in_proportion_to_the_releases(tmp_path, monkeypatch):
    """Each release stored read every release and every step again (to find the pairs to align):
    10,000 tiny releases took 395 s of CPU, 4,000 took 75 s. A run reads now a few dozen rows for
    each release (its texts, its nodes and pairs for the lineage), however many are stored."""
    monkeypatch.setenv("CRPARSE_JOBS", "1")
    reads = {}
    for count in (20, 40):
        _write_daily_releases(tmp_path / f"r{count}", count)
        db = _CountingRows(connect(tmp_path / f"r{count}.sqlite", create=True))
        report = index(db, [str(tmp_path / f"r{count}")])
        assert len(report.added) == count and report.aligned == count - 1
        assert len(history(db.db, "100.1", "2020-01-01").versions) == count
        reads[count] = db.read
    # the old code read 1,100 rows for 20 releases and 3,000 for 40 (the releases and steps read
    # again for each release): 2.7 times as many for twice the releases, 35 rows a release now
    assert reads[40] < 50 * 40 and reads[40] < 2.3 * reads[20], reads


# -- the command line ------------------------------------------------------------------------------


def crparse_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, **(env or {})), timeout=120)


def test_cli_index_history_search_identify(corpus, tmp_path):
    db = str(tmp_path / "cli.sqlite")
    built = crparse_cli("index", str(corpus), "--db", db)
    assert built.returncode == 0, built.stderr
    assert "4 release(s) added" in built.stdout
    h = json.loads(crparse_cli("history", "100.3", "--at", "2020-01-15", "--json", "--db", db).stdout)
    assert h["lineage"] == "2020-01-01:100.3" and [v["number"] for v in h["versions"]] == ["100.3", "100.4", "100.3"]
    found = json.loads(crparse_cli("search", "commander deck", "--json", "--db", db).stdout)
    assert [(f["numbers"], f["first"], f["last"]) for f in found] == [(["100.2"], "2020-04-01", "2020-07-01")]
    fragment = tmp_path / "fragment.txt"
    rules = releases()[2]
    fragment.write_text("".join(f"{k}. {rules[k]}\n\n" for k in ("101.1", "101.2", "101.3", "101.4")))
    who = json.loads(crparse_cli("identify", str(fragment), "--json", "--db", db).stdout)
    assert who["best"] == ["2020-07-01"] and who["matched"] == 4
    assert any(e["number"] == "101.1" for e in who["evidence"])


def test_commands_that_need_a_store_say_how_to_build_it(tmp_path):
    missing = tmp_path / "none.sqlite"
    for args in (["history", "100.1"], ["search", "deck"], ["identify", str(tmp_path / "x.txt")]):
        result = crparse_cli(*args, "--db", str(missing))
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "crparse index DIR" in result.stderr and str(missing) in result.stderr
    assert not missing.exists()


def test_cli_lineage_without_a_store(corpus):
    result = crparse_cli("lineage", str(corpus), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [r["date"] for r in data["releases"]] == ["2020-01-01", "2020-04-01", "2020-07-01", "2020-10-01"]
    by_id = {l["id"]: l for l in data["lineages"]}
    assert by_id["2020-04-01:100.2"]["end"] == "removed"
    assert by_id["2020-07-01:101.3"]["born_of"] == "2020-01-01:101.2"
    assert [s["number"] for s in by_id["2020-01-01:100.3"]["steps"]] == ["100.3", "100.4", "100.3"]
    assert "100.2" in data["stale_numbers"]  # the deck rule, then the commander rule, then the deck rule


def test_cli_diff_by_date_and_cite_check_since(corpus, tmp_path):
    db = str(tmp_path / "cli.sqlite")
    assert crparse_cli("index", str(corpus), "--db", db).returncode == 0
    diff = crparse_cli("diff", "2020-01-15", "2020-04-01", "--json", "--db", db)
    assert diff.returncode == 1, diff.stderr
    data = json.loads(diff.stdout)
    assert (data["old"]["date"], data["new"]["date"]) == ("2020-01-01", "2020-04-01")
    assert {(p["old"], p["new"]) for p in data["pairs"] if p["kind"] == "moved"} == {("100.2", "100.3"), ("100.3", "100.4")}
    code = tmp_path / "engine.py"
    code.write_text("# CR 100.3: supplemental rules\n# CR 101.2 is the can't rule\n")
    checked = crparse_cli("cite-check", str(code), "--cr", str(corpus / "2020-10-01.txt"), "--since", "2020-04-01",
                          "--db", db, "--json")
    records = [json.loads(line) for line in checked.stdout.splitlines()]
    assert [(r["text"], r["current"]) for r in records] == [("CR 100.3", {"100.3": "100.2"})]
    assert checked.returncode == 1


# -- two index runs at once ------------------------------------------------------------------------


def _index_waiting_at_most(seconds: float, corpus: Path, db: Path) -> subprocess.Popen:
    """`crparse index` in a child that waits `seconds` at most for another run to end."""
    script = ("import sys; import crparse.store.lock as lock; lock.WAIT = float(sys.argv[1]); "
              "from crparse.cli.main import main; raise SystemExit(main(sys.argv[2:]))")
    return subprocess.Popen([sys.executable, "-c", script, str(seconds), "index", str(corpus), "--db", str(db)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))


def test_an_index_run_while_another_updates_the_store_is_refused_as_busy_not_damaged(corpus, tmp_path):
    # Two runs interleaving their transactions made the second meet the first's rows: "the store
    # is damaged (IntegrityError: UNIQUE constraint failed: releases.sha256): rebuild it", or
    # find the schema half made ("no store version it knows"). The store was fine.
    from crparse.store.lock import writing

    db = tmp_path / "busy.sqlite"
    assert crparse_cli("index", str(corpus / "2020-01-01.txt"), "--db", str(db)).returncode == 0
    with writing(db):  # another run, between two of its transactions
        child = _index_waiting_at_most(0.5, corpus, db)
        out, err = child.communicate(timeout=120)
    assert child.returncode == 2, err
    assert err.splitlines()[-1] == f"crparse: {db}: another crparse index is updating this store; run again when it ends"
    assert "damaged" not in err and out == ""
    assert connect(db).execute("SELECT count(*) FROM releases").fetchone()[0] == 1  # left as it was


def test_an_index_run_waits_for_the_one_updating_the_store_and_then_runs(corpus, tmp_path):
    from crparse.store.lock import writing

    db = tmp_path / "waited.sqlite"
    with writing(db):
        child = _index_waiting_at_most(60, corpus, db)
        assert "waiting for it to end" in child.stderr.readline()  # said once the wait begins
        assert child.poll() is None
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert "4 release(s) added" in out


def test_two_index_runs_at_once_both_end_well(tmp_path):
    corpus = write_releases(tmp_path / "releases")
    db = tmp_path / "both.sqlite"
    runs = [subprocess.Popen([sys.executable, "-m", "crparse", "index", str(corpus), "--db", str(db)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    assert sorted(out.split(": ")[1].split(",")[0] for out, _ in outs) == ["0 release(s) added", "4 release(s) added"]
    assert history(connect(db), "100.3", "2020-01-01").versions[-1].date == "2020-10-01"


# -- a month or a year for a date ------------------------------------------------------------------
# They were compared as text with the releases' dates: "2020" sorts before "2020-01-01", so
# `--at 2020` found no release on or before it, `--at 2020-04` the January release.


@pytest.fixture
def cli_store(corpus, tmp_path) -> str:
    db = str(tmp_path / "periods.sqlite")
    assert crparse_cli("index", str(corpus), "--db", db).returncode == 0
    return db


def test_history_at_a_month_or_a_year_is_as_of_its_end(cli_store):
    def at(when: str) -> str:
        done = crparse_cli("history", "100.2", "--at", when, "--json", "--db", cli_store)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["at"]

    assert [at(d) for d in ("2020", "2020-04", "2020-03", "2020-06-30", "2021")] == [
        "2020-10-01", "2020-04-01", "2020-01-01", "2020-04-01", "2020-10-01"]
    before = crparse_cli("history", "100.2", "--at", "2019", "--db", cli_store)
    assert before.returncode == 2 and "no release on or before 2019-12-31" in before.stderr


def test_library_queries_take_a_month_or_a_year(store):
    assert history(store, "100.2", "2020-04").at == "2020-04-01"
    assert history(store, "100.2", "2020").at == "2020-10-01"
    # citations written since a period: against the release in force at its start
    assert current_number(store, "101.3", "2020") == ("101.4", "2020-10-01")
    assert current_number(store, "100.2", "2020-04") == (None, "2020-10-01")


def test_cite_check_since_a_month_or_a_year_is_from_its_start(cli_store, corpus, tmp_path):
    code = tmp_path / "engine.py"
    code.write_text("# CR 101.3: impossible instructions\n")
    for since, written in (("2020", "2020-01-01"), ("2020-04", "2020-04-01"), ("2020-05", "2020-04-01")):
        done = crparse_cli("cite-check", str(code), "--cr", str(corpus / "2020-10-01.txt"), "--since", since,
                           "--db", cli_store, "--json")
        assert done.returncode == 1, done.stderr
        (record,) = [json.loads(line) for line in done.stdout.splitlines()]
        assert record["since"] == written and record["current"] == {"101.3": "101.4"}


def test_diff_of_months_and_years_from_the_store(cli_store):
    def releases(old: str, new: str) -> tuple[str, str]:
        done = crparse_cli("diff", old, new, "--json", "--db", cli_store)
        assert done.returncode == 1, done.stderr
        data = json.loads(done.stdout)
        return data["old"]["date"], data["new"]["date"]

    assert releases("2020-01", "2020-04") == ("2020-01-01", "2020-04-01")
    assert releases("2020-05", "2020") == ("2020-04-01", "2020-10-01")
    # a name that is no date (month 13) is a file, and there is none
    missing = crparse_cli("diff", "2020-13", "2020", "--db", cli_store)
    assert missing.returncode == 2 and "2020-13" in missing.stderr and missing.stderr.count("\n") == 1


def _edition(directory: Path, date: str, wording: str, directive: str = "toctree") -> Path:
    """A reST edition whose index.rst names its chapters and holds neither date nor rule: two
    editions of it have byte-identical indexes."""
    directory.mkdir(parents=True)
    (directory / "index.rst").write_text(f"Rules\n=====\n\n.. {directive}::\n\n   intro\n   r\n")
    (directory / "intro.rst").write_text(f"Intro\n=====\n\nThese rules are effective as of {date}.\n")
    (directory / "r.rst").write_text(f"601. Range\n==========\n\n601.1\n-----\n\n{wording}\n\n601.2\n-----\n\nMore.\n")
    return directory


@pytest.mark.parametrize("directive", ["toctree", "TocTree"])
def test_a_reST_edition_is_known_by_its_chapters_too(tmp_path, directive):
    """The store knew a release by its file's sha256, and an edition's file is its index: two
    editions with the same index.rst were one release ("1 already stored", the second never
    stored), and a chapter changed after `index` was never read again (sweep 27)."""
    _edition(tmp_path / "rel" / "a", "April 1, 2020", "Old wording zebra.", directive)
    b = _edition(tmp_path / "rel" / "b", "May 1, 2021", "New wording giraffe.", directive)
    db = connect(tmp_path / "s.sqlite", create=True)
    report = index(db, [str(tmp_path / "rel")])
    assert (len(report.added), report.known) == (2, 0)
    assert [(hit.keys, hit.first) for hit in search(db, "giraffe")] == [(["601.1"], "2021-05-01")]
    # a chapter changed since: the edition is read again, its old text gone from the store
    (b / "r.rst").write_text((b / "r.rst").read_text().replace("giraffe", "okapi"))
    report = index(db, [str(tmp_path / "rel")])
    assert (report.added, report.known) == ([str(b / "index.rst")], 1)
    assert search(db, "giraffe") == [] and [hit.keys for hit in search(db, "okapi")] == [["601.1"]]
    # and as is: nothing read again
    assert (index(db, [str(tmp_path / "rel")]).added, index(db, [str(tmp_path / "rel")]).known) == ([], 2)


def test_a_store_written_before_editions_were_known_by_their_chapters_still_reads_them(tmp_path):
    """Such a store holds an edition's index's sha256: reading the release again said "the file
    changed since it was stored", which it had not (review)."""
    import hashlib

    from crparse.store.index import stored_bytes

    edition = _edition(tmp_path / "rel" / "a", "April 1, 2020", "Old wording zebra.")
    db = connect(tmp_path / "s.sqlite", create=True)
    index(db, [str(tmp_path / "rel")])
    old = hashlib.sha256((edition / "index.rst").read_bytes()).hexdigest()
    db.execute("UPDATE releases SET sha256 = ?", (old,))
    (rid,) = db.execute("SELECT id FROM releases").fetchone()
    assert stored_bytes(db, rid) == (edition / "index.rst").read_bytes()


@pytest.mark.parametrize("shape", ["utf-16", "linked", "hidden", "past-the-budget", "named-txt"])
def test_a_changed_chapter_is_seen_whatever_the_edition_s_shape(tmp_path, shape, monkeypatch):
    """The fingerprint missed chapters the reader reads: an index in UTF-16, a chapter that is a
    link, one in a hidden directory, one past the bytes the fingerprint reads, a master not named
    .rst; a chapter changed after `index` was never read again (sweep 28)."""
    edition = tmp_path / "rel" / "ed"
    edition.mkdir(parents=True)
    chapter = {"hidden": edition / ".h" / "chap.rst", "linked": edition / "data.txt"}.get(shape, edition / "chap.rst")
    chapter.parent.mkdir(exist_ok=True)
    chapter.write_text("100. General\n============\n\n100.1\n-----\n\nText ALPHA.\n\n100.2\n-----\n\nMore.\n")
    if shape == "linked":
        (edition / "chap.rst").symlink_to("data.txt")
    if shape == "past-the-budget":
        (edition / "aaa.rst").write_text("x" * 990)  # the most the fingerprint reads, but 10 bytes
        monkeypatch.setenv("CRPARSE_MAX_INPUT", "1000")
    index_text = ("Rules\n=====\n\nThese rules are effective as of April 1, 2020.\n\n.. toctree::\n\n   "
                  + (".h/chap" if shape == "hidden" else "chap") + "\n")
    master = edition / ("master.txt" if shape == "named-txt" else "index.rst")
    master.write_bytes(index_text.encode("utf-16" if shape == "utf-16" else "utf-8"))
    db = connect(tmp_path / "s.sqlite", create=True)
    walked = [str(master)]
    assert len(index(db, walked).added) == 1 and [h.keys for h in search(db, "ALPHA")] == [["100.1"]]
    chapter.write_text(chapter.read_text().replace("ALPHA", "BETA"))
    assert index(db, walked).added == walked
    assert search(db, "ALPHA") == [] and [h.keys for h in search(db, "BETA")] == [["100.1"]]


def test_an_edition_whose_chapters_lie_below_directories_of_directories_is_indexed(tmp_path):
    """A directory holding only directories (an edition's one chapter at a/b/c.rst) had no files
    of its own in the fingerprint's tree: `index` and `docs` ended with a KeyError, exit 3 (sweep 32)."""
    from crparse.fingerprint import fingerprint

    edition = tmp_path / "ed"
    (edition / "a" / "b").mkdir(parents=True)
    (edition / "index.rst").write_text("Rules\n=====\n\nThese rules are effective as of April 1, 2020.\n\n"
                                       ".. toctree::\n\n   a/b/c\n")
    (edition / "a" / "b" / "c.rst").write_text("100. General\n============\n\n100.1\n-----\n\nText ALPHA.\n\n100.2\n-----\n\nMore.\n")
    before = fingerprint(edition / "index.rst")
    (edition / "a" / "b" / "c.rst").write_text("100. General\n============\n\n100.1\n-----\n\nText BETA.\n\n100.2\n-----\n\nMore.\n")
    assert fingerprint(edition / "index.rst") != before
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, [str(edition / "index.rst")]).added) == 1


def test_fingerprints_walking_directories_another_walked_first_are_bounded_in_a_run(tmp_path, monkeypatch):
    """Each of 60 reST files with a toctree, one per level of a chain, walked and read the 10,000
    files below it again for its fingerprint: `index` 30 s (sweep 32). Such walks are charged to
    the run; past its bound a release is refused, saying so."""
    from crparse.readers import runs

    docs = []
    for k in range(5):
        folder = tmp_path.joinpath(*["a"] * k)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "doc.rst").write_text(f"Rules {k}\n=======\n\nThese rules are effective as of April {k + 1}, 2020.\n\n"
                                        "100. General\n\n100.1. One.\n\n100.2. Two.\n\n.. toctree::\n\n   nothing\n")
        docs.append(str(folder / "doc.rst"))
    docs.reverse()  # the deepest first: none is inside a tree walked before
    db = connect(tmp_path / "s.sqlite", create=True)
    # the second walks the deepest level again (one entry, and a directory's 4): 5; the third 6 more
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 5)
    with runs.one_run():
        report = index(db, docs)
    assert len(report.added) == 2, report
    assert all("index it alone" in line and "MAX_REPEATED_LISTING" in line for line in report.refused)
    assert len(report.refused) == 3
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 100_000)
    assert len(index(db, docs).added) == 3  # within the bound, each is walked


def _dated(folder: Path, name: str, day: int, toctree: str = "   nothing\n") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"Rules {day}\n========\n\nThese rules are effective as of April {day}, 2020.\n\n"
                               f"100. General\n\n100.1. One {day}.\n\n100.2. Two.\n\n.. toctree::\n\n{toctree}")
    return str(folder / name)


def test_stored_releases_of_one_directory_are_checked_with_one_walk_of_it(tmp_path, monkeypatch):
    """`index` of another directory checked each stored release with a walk of its directory
    of its own: 1,000 releases beside 50,000 hidden files, 34 s (sweep 33)."""
    import crparse.fingerprint
    from crparse.readers import runs

    releases = [_dated(tmp_path / "rel", f"r{k}.rst", k + 1) for k in range(6)]
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, releases).added) == 6
    other = _dated(tmp_path / "other", "o.rst", 20)
    walks = []
    walk = crparse.fingerprint.edition_files
    monkeypatch.setattr(crparse.fingerprint, "edition_files", lambda d, **k: walks.append(str(d)) or walk(d, **k))
    with runs.one_run():
        report = index(db, [other])
    assert report.added == [other] and not report.gone
    assert sorted(walks) == [str(tmp_path / "other"), str(tmp_path / "rel")]


def test_a_stored_release_that_cannot_be_checked_in_a_run_is_kept(tmp_path, monkeypatch):
    """Past the run's bound on walks again, a stored release's fingerprint is not made: it was
    taken for gone, and 400 unchanged releases were dropped from the store (sweep 33)."""
    from crparse.readers import runs

    levels = [_dated(tmp_path.joinpath(*["a"] * k), "doc.rst", k + 1) for k in range(5)]
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, levels).added) == 5
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 0)  # any walk again is past it
    other = _dated(tmp_path / "other", "o.rst", 20)
    with runs.one_run():  # stored the deepest first (by name): each walk above walks those below again
        report = index(db, [other])
    assert not report.gone and db.execute("SELECT count(*) FROM releases").fetchone() == (6,)


def crparse_fingerprint():
    import crparse.fingerprint

    return crparse.fingerprint


@pytest.mark.parametrize("hidden", [True, False])
def test_a_chapter_past_the_files_a_fingerprint_reads_is_seen_changed(tmp_path, monkeypatch, hidden):
    """Only the first 10,000 .rst files of an edition's tree counted (hidden ones among them): a
    chapter changed after them was never seen by `index` (sweep 33)."""
    monkeypatch.setattr(crparse_fingerprint(), "MAX_EDITION_FILES", 3)
    edition = tmp_path / "ed"
    for k in range(5):
        (edition / (".cache" if hidden else "a")).mkdir(parents=True, exist_ok=True)
        (edition / (".cache" if hidden else "a") / f"c{k}.rst").write_text("x\n")
    master = _dated(edition, "index.rst", 1, "   zz/z\n")
    (edition / "zz").mkdir()
    (edition / "zz" / "z.rst").write_text("101. Z\n------\n\n101.1. OLDTEXT.\n")
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, [master]).added) == 1
    (edition / "zz" / "z.rst").write_text("101. Z\n------\n\n101.1. NEWTEXT, longer.\n")
    assert index(db, [master]).added == [master]
    assert [h.keys for h in search(db, "NEWTEXT")] == [["101.1"]]


def test_a_fingerprint_is_the_same_whatever_else_the_run_holds(tmp_path):
    """A directory's digest kept from the walk of a tree above it left out a directory that walk
    took for another edition (its index.rst a link to a file of the top), whose chapter the
    master of the directory reads: its change was unseen by `index` of the top (sweep 33)."""
    from crparse.readers import runs

    fingerprint = crparse_fingerprint().fingerprint
    top = tmp_path / "top"
    _dated(top, "master0.rst", 1, "   y\n")
    (top / "y.rst").write_text("200. Y\n------\n\n200.1. Why.\n")
    sub = _dated(top / "sub", "master.rst", 2, "   deeper/ch\n")
    (top / "sub" / "deeper").mkdir()
    (top / "sub" / "deeper" / "index.rst").symlink_to("../../y.rst")
    (top / "sub" / "deeper" / "ch.rst").write_text("301. Deep\n---------\n\n301.1. OLDTEXT.\n")
    alone = fingerprint(sub)
    with runs.one_run():
        fingerprint(top / "master0.rst")
        assert fingerprint(sub) == alone
    db = connect(tmp_path / "s.sqlite", create=True)
    masters = [str(top / "master0.rst"), sub]
    assert len(index(db, masters).added) == 2
    (top / "sub" / "deeper" / "ch.rst").write_text("301. Deep\n---------\n\n301.1. NEWTEXT, longer.\n")
    assert index(db, masters).added == [sub]


def test_a_fingerprint_past_the_files_it_reads_is_the_same_whatever_else_the_run_holds(tmp_path, monkeypatch):
    """Past the files a fingerprint reads, those of a directory below were kept by size and time
    from the walk above, where its own walk reads them: two fingerprints of one file (review)."""
    from crparse.readers import runs

    fp = crparse_fingerprint()
    monkeypatch.setattr(fp, "MAX_EDITION_FILES", 3)
    top = tmp_path / "top"
    for k in range(3):
        (top / "a").mkdir(parents=True, exist_ok=True)
        (top / "a" / f"c{k}.rst").write_text("x\n")
    _dated(top, "a.rst", 1)
    sub = _dated(top / "sub", "b.rst", 2)
    (top / "sub" / "c.rst").write_text("y\n")
    with runs.one_run():
        alone = fp.fingerprint(sub)
    with runs.one_run():
        fp.fingerprint(top / "a.rst")
        assert fp.fingerprint(sub) == alone


def test_a_lone_surrogate_a_reader_makes_is_no_character_anywhere(tmp_path):
    """docutils' `unicode:: U+D800` made a lone surrogate in a rule's text: only the JSON writer
    replaced it, and `index` and `identify` ended with a UnicodeEncodeError, exit 3 (sweep 34)."""
    import crparse

    path = tmp_path / "r.rst"
    path.write_text("Comprehensive Rules\n===================\n\n100. General\n------------\n\n100.1. These |s| rules."
                    "\n\n100.2. More.\n\n.. |s| unicode:: U+D800\n")
    doc = crparse.parse(path)
    assert doc.rule("100.1").text == "These \ufffd rules."
    assert [d.code for d in doc.diagnostics if d.code == "lone-surrogates"] == ["lone-surrogates"]
    db = connect(tmp_path / "s.sqlite", create=True)
    assert index(db, [str(path)]).added == [str(path)]


def test_a_chapter_swapped_for_a_link_to_the_same_bytes_is_seen(tmp_path):
    """The fingerprint hashed a link's bytes alone: a chapter moved into another edition, a link
    left in its place, read no more (a link into another edition), and the store kept it (sweep 34)."""
    edition = tmp_path / "ed"
    master = _dated(edition, "index.rst", 1, "   chap\n")
    (edition / "chap.rst").write_text("101. C\n------\n\n101.1. ALPHA.\n")
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, [master]).added) == 1
    (edition / "n").mkdir()
    (edition / "n" / "index.rst").write_text("Nested\n======\n\n.. toctree::\n\n   chap\n")
    (edition / "chap.rst").rename(edition / "n" / "chap.rst")
    (edition / "chap.rst").symlink_to("n/chap.rst")
    assert index(db, [master]).added == [master]
    assert search(db, "ALPHA") == []


def test_files_hard_linked_into_many_editions_are_hashed_once_a_run(tmp_path, monkeypatch):
    """3,000 editions whose chapters are hard links to four 1 MB files: each fingerprint read them
    all again, 12 GB, 21 s (sweep 35). A file is hashed once a run, by its inode."""
    import os

    from crparse.readers import runs

    fp = crparse_fingerprint()
    (tmp_path / "pool.rst").write_text("Some text.\n" * 100)
    masters = []
    for k in range(5):
        masters.append(_dated(tmp_path / f"e{k}", "index.rst", k + 1))
        os.link(tmp_path / "pool.rst", tmp_path / f"e{k}" / "chap.rst")
    read = []
    real = fp.read_regular
    monkeypatch.setattr(fp, "read_regular", lambda path, *a, **k: read.append(str(path)) or real(path, *a, **k))
    with runs.one_run():
        first = [fp.fingerprint(m) for m in masters]
    assert len([r for r in read if r.endswith("chap.rst")]) == 1
    (tmp_path / "pool.rst").write_text("Other text.\n" * 100)
    with runs.one_run():  # a run of its own: the change is seen
        assert all(fp.fingerprint(m) != old for m, old in zip(masters, first))


def test_index_given_one_path_says_so(tmp_path, monkeypatch):
    """A str was taken for an iterable of paths, each character one: "/" walked the whole disk,
    603 MB at 40 s (sweep 35); "." of a relative name walks the directory (here, a small one)."""
    monkeypatch.chdir(tmp_path)
    db = connect(tmp_path / "s.sqlite", create=True)
    with pytest.raises(TypeError, match=r"not one path: index\(db, \[path\]\)"):
        index(db, "r.txt")


def test_a_search_phrase_is_held_to_a_few_words(tmp_path):
    """200 words of a word every rule repeats took 21 s over a 240 MB store (sweep 35)."""
    from crparse.errors import CrparseError
    from crparse.store.query import MAX_PHRASE_WORDS

    db = connect(tmp_path / "s.sqlite", create=True)
    assert MAX_PHRASE_WORDS <= 50
    with pytest.raises(CrparseError, match=f"a phrase of 51 words: search for at most {MAX_PHRASE_WORDS}"):
        search(db, " ".join(["a"] * 51))
    assert search(db, " ".join(["a"] * MAX_PHRASE_WORDS)) == []
    # counted as FTS5 counts them: "the-the-..." of 2,000 parts took 16 s and 2 GB (sweep 47)
    for joined in ("-".join(["a"] * 2000), "/".join(["a"] * 51), "a_" * 51):
        with pytest.raises(CrparseError, match=r"a phrase of [\d,]+ words"):
            search(db, joined)
    assert search(db, "well-known don't") == []
