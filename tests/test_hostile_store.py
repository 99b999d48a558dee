"""Hostile and careless input to the store commands (index, history, search, identify, diff by
date, lineage): a database that is not a store, a damaged one, arguments that are not text, files
that changed or became links after they were stored, names that are not UTF-8. Found by a fresh
adversarial sweep (a helper session); each run as a user runs crparse, in a child under
tests/limits.py's limits: one line and exit 2, never a traceback or an internal error."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from limits import run_limited

FIXTURES = Path(__file__).parent / "fixtures"


def _release(directory: Path, name: str, date: str, rule_text: str = "Text of the rule.") -> Path:
    text = (FIXTURES / "modern.txt").read_text(encoding="utf-8")
    import re

    text = re.sub(r"effective as of [A-Z][a-z]+ \d+, \d{4}", f"effective as of {date}", text, count=1)
    path = directory / name
    path.write_text(text.replace("Text of the rule.", rule_text), encoding="utf-8")
    return path


def _one_line_refusal(result) -> str:
    assert result.ok_within_limits, (result.returncode, result.seconds, result.stderr[-500:])
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    err = result.stderr.decode("utf-8", "replace")
    assert err.count("\n") == 1 and err.startswith("crparse: ") and "internal error" not in err, err
    return err


@pytest.fixture
def store(tmp_path) -> Path:
    releases = tmp_path / "releases"
    releases.mkdir()
    _release(releases, "a.txt", "January 1, 2020")
    _release(releases, "b.txt", "February 1, 2020")
    db = tmp_path / "store.sqlite"
    result = run_limited(["index", str(releases), "--db", str(db)])
    assert result.returncode == 0, result.stderr
    return db


def _foreign(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE releases (id INTEGER, name TEXT)")
    db.execute("INSERT INTO releases VALUES (1, 'not ours')")
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("command", [["history", "100.1"], ["search", "rules"], ["index", "{dir}"]])
def test_a_database_of_another_program_is_refused_and_left_unchanged(tmp_path, command):
    db = _foreign(tmp_path / "theirs.sqlite")
    before = db.read_bytes()
    args = [a.replace("{dir}", str(FIXTURES)) for a in command]
    err = _one_line_refusal(run_limited([*args, "--db", str(db)]))
    assert "not a crparse store" in err
    assert db.read_bytes() == before  # nothing written into someone else's database


@pytest.mark.parametrize("damage", ["garbage", "version", "blob-text", "no-lineage-row"])
def test_a_damaged_store_is_a_refusal_that_says_how_to_rebuild(store, damage):
    if damage == "garbage":
        with open(store, "r+b") as f:
            f.seek(100)
            f.write(b"\xff" * 4000)
    else:
        db = sqlite3.connect(store)
        if damage == "version":
            db.execute("UPDATE meta SET value = 'abc' WHERE key = 'store_version'")
        elif damage == "blob-text":
            db.execute("UPDATE texts SET text = X'00ff'")
        else:
            db.execute("DELETE FROM lineages")
        db.commit()
        db.close()
    err = _one_line_refusal(run_limited(["history", "100.1", "--db", str(store)]))
    assert "store" in err


def test_arguments_that_are_not_text_and_usage_errors_are_one_line(store):
    env = {"LC_ALL": "C.UTF-8"}
    bad = os.fsdecode(b"\xff\xfe")
    _one_line_refusal(run_limited(["history", bad, "--db", str(store)], env=env))
    _one_line_refusal(run_limited(["search", bad, "--db", str(store)], env=env))
    _one_line_refusal(run_limited(["search", "-mana", "--db", str(store)]))  # taken for an option
    _one_line_refusal(run_limited(["no-such-command"]))


def test_a_search_phrase_is_bounded(store):
    err = _one_line_refusal(run_limited(["search", " ".join(["the"] * 20_000), "--db", str(store)], seconds=10))
    assert "at most" in err


def test_a_file_changed_after_it_was_stored_is_indexed_again_and_not_read_for_a_date(store, tmp_path):
    releases = tmp_path / "releases"
    _release(releases, "b.txt", "February 1, 2020", rule_text="Another text altogether.")
    result = run_limited(["index", str(releases), "--db", str(store)])
    assert result.returncode == 0, result.stderr
    # the old text of b.txt is gone from the store; its new text is there
    db = sqlite3.connect(store)
    assert db.execute("SELECT count(*) FROM releases").fetchone()[0] == 2
    # a stored file replaced by a link to another file: a diff by date refuses to read it
    secret = tmp_path / "secret.txt"
    secret.write_text("ZQSECRET " * 100)
    (releases / "a.txt").unlink()
    os.symlink(secret, releases / "a.txt")
    result = run_limited(["diff", "2020-01-01", "2020-02-01", "--db", str(store)])
    err = _one_line_refusal(result)
    assert "changed since it was stored" in err and b"ZQSECRET" not in result.stdout + result.stderr


def test_a_file_name_that_is_not_utf8_is_indexed_and_chained(tmp_path):
    releases = tmp_path / "releases"
    releases.mkdir()
    _release(releases, "a.txt", "January 1, 2020")
    odd = os.fsdecode(b"caf\xe9.txt")
    shutil.copy(_release(releases, "b.txt", "February 1, 2020"), releases / odd)
    (releases / "b.txt").unlink()
    db = tmp_path / "store.sqlite"
    env = {"LC_ALL": "C.UTF-8"}
    result = run_limited(["index", str(releases), "--db", str(db)], env=env)
    assert result.ok_within_limits and result.returncode == 0, result.stderr
    result = run_limited(["lineage", str(releases), "--json"], env=env)
    assert result.ok_within_limits and result.returncode == 0, result.stderr
    result.stdout.decode("utf-8")  # valid UTF-8 whatever the name


def test_a_store_locked_by_another_writer_or_a_directory_is_one_line(store, tmp_path):
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        err = _one_line_refusal(run_limited(["index", str(FIXTURES), "--db", str(store)], seconds=15))
        assert "store" in err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    directory = tmp_path / "store.dir"
    directory.mkdir()
    err = _one_line_refusal(run_limited(["index", str(FIXTURES), "--db", str(directory), "--rebuild"]))
    assert "not a file" in err and directory.is_dir()


@pytest.mark.parametrize("trap", ["trigger", "view"])
def test_a_store_with_a_trigger_or_a_view_is_refused(store, trap):
    db = sqlite3.connect(store)
    if trap == "trigger":  # a trigger that would never end
        db.execute("CREATE TRIGGER loop AFTER INSERT ON releases BEGIN "
                   "INSERT INTO meta SELECT 'x' || random(), 'y' FROM meta; END")
    else:  # a view of endless rows in place of a table
        db.execute("DROP TABLE lineages")
        db.execute("CREATE VIEW lineages (id, born_release, born_key, end, born_of, merged_into) AS "
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                   "SELECT i, 1, 'x', NULL, NULL, NULL FROM n")
    db.commit()
    db.close()
    for command in (["index", str(FIXTURES)], ["history", "100.1"]):
        err = _one_line_refusal(run_limited([*command, "--db", str(store)], seconds=15))
        assert f"holds a {trap}" in err


def test_stored_pairs_naming_nodes_a_release_lacks_are_a_damaged_store(store):
    db = sqlite3.connect(store)
    db.execute("UPDATE pairs SET new_key = '100.2ax' WHERE rowid = (SELECT min(rowid) FROM pairs)")
    db.execute("DELETE FROM node_lineage")  # so that the next index chains the lineages again
    db.commit()
    db.close()
    err = _one_line_refusal(run_limited(["index", str(FIXTURES), "--db", str(store)]))
    assert "damaged" in err
