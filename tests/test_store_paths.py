"""Where the store says a release is: a path that reads from any working directory.

`crparse index rel` run in one directory stored `rel/2020-01-01.txt`; every command that reads a
stored release again (diff by date, docs --db, index of a release between two stored ones) then
failed from any other directory (exit 2, `cannot read: No such file or directory`), though the
default store is shared by all of them, and indexing again by absolute path left the rows as
they were. Paths are now stored absolute, a release found at a new path is recorded there, and a
relative row of an older store still reads from where it was indexed and says what it is elsewhere.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from small_releases import release_of, releases, write_releases

from crparse.errors import CrparseError
from crparse.store import connect
from crparse.store.index import index, stored_bytes
from crparse.store.query import release_file


def _paths(db) -> dict[str, str]:
    return dict(db.execute("SELECT date, path FROM releases"))


def _stored_from(db, cwd: Path, monkeypatch) -> None:
    """Every stored release reads again from `cwd`."""
    monkeypatch.chdir(cwd)
    for rid, in db.execute("SELECT id FROM releases").fetchall():
        stored_bytes(db, rid)


@pytest.fixture
def indexed_relative(tmp_path, monkeypatch):
    """A store built by `index` given a relative directory, then a working directory elsewhere."""
    write_releases(tmp_path / "work" / "rel")
    monkeypatch.chdir(tmp_path / "work")
    db = connect(tmp_path / "s.sqlite", create=True)
    assert len(index(db, ["rel"]).added) == 4
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return db


def test_paths_are_stored_absolute_and_read_from_any_directory(indexed_relative, tmp_path, monkeypatch):
    db = indexed_relative
    assert _paths(db) == {f"2020-{m:02d}-01": str(tmp_path / "work" / "rel" / f"2020-{m:02d}-01.txt")
                          for m in (1, 4, 7, 10)}
    assert release_file(db, "2020-10-01") == str(tmp_path / "work" / "rel" / "2020-10-01.txt")
    _stored_from(db, Path("/"), monkeypatch)


def test_a_release_between_two_stored_ones_is_indexed_from_another_directory(indexed_relative, tmp_path):
    # its neighbours are read again to be aligned with it
    extra = tmp_path / "extra.txt"
    extra.write_text(release_of({**releases()[1], "101.5": "A new rule."}, datetime.date(2020, 5, 15)))
    report = index(indexed_relative, [str(extra)])
    assert report.added == [str(extra)] and report.aligned == 2 and not report.refused


def test_the_command_line_from_another_directory(tmp_path):
    """The sweep's sequence, as a user runs it: index in one directory, diff from another (docs
    --db reads the stored releases through stored_bytes, as _stored_from does)."""
    write_releases(tmp_path / "rel")
    store = str(tmp_path / "s.sqlite")
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "crparse", *args], check=False, cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=120)

    assert cli("index", "rel", "--db", store, cwd=tmp_path).returncode == 0
    diff = cli("diff", "2020-01-01", "2020-10-01", "--db", store, cwd=Path("/"))
    assert diff.returncode == 1 and not diff.stderr, diff.stderr  # 1: the texts differ


def test_a_moved_corpus_is_recorded_where_it_is_now(indexed_relative, tmp_path, monkeypatch):
    db = indexed_relative
    (tmp_path / "work" / "rel").rename(tmp_path / "moved")
    report = index(db, [str(tmp_path / "moved")])
    assert (report.added, report.known, report.moved, report.refused) == ([], 4, 4, [])
    assert all(p.startswith(str(tmp_path / "moved") + os.sep) for p in _paths(db).values())
    _stored_from(db, Path("/"), monkeypatch)
    # a path that still holds the bytes is kept: a copy indexed elsewhere does not take it over
    write_releases(tmp_path / "copy")
    assert index(db, [str(tmp_path / "copy")]).moved == 0
    assert all(p.startswith(str(tmp_path / "moved") + os.sep) for p in _paths(db).values())


def test_a_release_whose_file_moved_and_whose_old_path_now_holds_another(indexed_relative, tmp_path):
    """The bytes of 2020-01-01 moved to a new name, and its old name holds another text: the
    release is recorded at its new path, not forgotten (and the other text added)."""
    db = indexed_relative
    rel = tmp_path / "work" / "rel"
    (rel / "2020-01-01.txt").rename(rel / "first.txt")
    (rel / "2020-01-01.txt").write_text(release_of(releases()[0], datetime.date(2019, 7, 1)))
    report = index(db, [str(rel)])
    assert report.moved == 1 and report.added == [str(rel / "2020-01-01.txt")] and not report.refused
    assert _paths(db)["2020-01-01"] == str(rel / "first.txt")
    assert _paths(db)["2019-07-01"] == str(rel / "2020-01-01.txt")


def test_an_older_store_with_relative_paths(tmp_path, monkeypatch):
    """Rows as crparse wrote them before (the path as `index` was given it): they read from the
    directory `index` ran in; elsewhere the refusal names the stored path and says it is relative;
    indexing the releases again from anywhere records them absolute."""
    write_releases(tmp_path / "work" / "rel")
    monkeypatch.chdir(tmp_path / "work")
    db = connect(tmp_path / "s.sqlite", create=True)
    index(db, ["rel"])
    db.execute("UPDATE releases SET path = 'rel/' || date || '.txt'")
    assert release_file(db, "2020-10-01") == "rel/2020-10-01.txt"
    monkeypatch.chdir("/")
    with pytest.raises(CrparseError) as refused:
        release_file(db, "2020-10-01")
    message = str(refused.value)
    assert message.startswith("rel/2020-10-01.txt: the stored release cannot be read again: cannot read: "
                              "No such file or directory"), message
    assert "relative to the directory `crparse index` ran in" in message and "\n" not in message
    report = index(db, [str(tmp_path / "work" / "rel")])
    assert (report.added, report.moved) == ([], 4)
    assert release_file(db, "2020-10-01") == str(tmp_path / "work" / "rel" / "2020-10-01.txt")


def test_an_older_relative_row_whose_file_changed_is_replaced_as_before(tmp_path, monkeypatch):
    write_releases(tmp_path / "rel")
    monkeypatch.chdir(tmp_path)
    db = connect(tmp_path / "s.sqlite", create=True)
    index(db, ["rel"])
    db.execute("UPDATE releases SET path = 'rel/' || date || '.txt'")
    (tmp_path / "rel" / "2020-10-01.txt").write_text(release_of(releases()[3], datetime.date(2020, 11, 1)))
    report = index(db, ["rel"])
    assert report.added == ["rel/2020-10-01.txt"] and report.moved == 3
    assert sorted(_paths(db)) == ["2020-01-01", "2020-04-01", "2020-07-01", "2020-11-01"]


def test_links_directories_resolved_the_file_name_kept(tmp_path, monkeypatch):
    """A linked directory is stored where it leads (`..` after it leads there too, as the kernel
    reads it); a file that is itself a link is stored as the link, its bytes checked when read."""
    write_releases(tmp_path / "real")
    (tmp_path / "via").symlink_to(tmp_path / "real")
    (tmp_path / "latest.txt").symlink_to(tmp_path / "real" / "2020-10-01.txt")
    monkeypatch.chdir(tmp_path)
    db = connect(tmp_path / "s.sqlite", create=True)
    index(db, ["via/2020-01-01.txt", "latest.txt"])
    assert _paths(db) == {"2020-01-01": str(tmp_path / "real" / "2020-01-01.txt"),
                          "2020-10-01": str(tmp_path / "latest.txt")}
    _stored_from(db, Path("/"), monkeypatch)


def test_docs_of_a_store_whose_releases_all_moved_says_so(tmp_path):
    """`docs --db` said "no release given (PATH..., or --db ...)" though --db was given."""
    write_releases(tmp_path / "rel")
    store = tmp_path / "s.sqlite"
    db = connect(store, create=True)
    index(db, [str(tmp_path / "rel")])
    db.close()
    (tmp_path / "rel").rename(tmp_path / "moved")
    done = subprocess.run([sys.executable, "-m", "crparse", "docs", "--db", str(store), "-o", str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "none of the 4 release(s) of the store can be read again" in done.stderr
    assert "no release given" not in done.stderr and f"{tmp_path / 'rel' / '2020-01-01.txt'}: " in done.stderr


def test_a_stored_release_whose_file_is_gone_is_dropped_and_the_rest_aligned(tmp_path):
    """A release edited and the one after it removed: index could not read the removed one again to
    align its neighbours, failed so on every later run, and history answered from a half-made
    lineage (sweep 29). A release met nowhere whose file no longer holds its text is dropped."""
    folder = write_releases(tmp_path / "rel")
    db = connect(tmp_path / "s.sqlite", create=True)
    index(db, [str(folder)])
    edited, removed = folder / "2020-04-01.txt", folder / "2020-07-01.txt"
    edited.write_text(edited.read_text() + "\n100.9. One more rule.\n")
    removed.unlink()
    report = index(db, [str(folder)])
    assert report.refused == [] and report.gone == [str(removed)] and report.added == [str(edited)]
    assert sorted(_paths(db)) == ["2020-01-01", "2020-04-01", "2020-10-01"]
    again = index(db, [str(folder)])
    assert (again.refused, again.gone, again.added) == ([], [], [])
