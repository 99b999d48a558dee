"""Hostile and careless input to the store commands (index, history, search, identify, diff by
date, lineage): a database that is not a store, a damaged one, arguments that are not text, files
that changed or became links after they were stored, names that are not UTF-8. Found by a fresh
adversarial sweep (a helper session); each run as a user runs crparse, in a child under
tests/limits.py's limits: one line and exit 2, never a traceback or an internal error."""

from __future__ import annotations

import json
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
    err = _one_line_refusal(run_limited(["history", bad, "--db", str(store)], env=env))
    assert err == "crparse: history: the RULE given is not valid UTF-8 text\n", err
    _one_line_refusal(run_limited(["search", bad, "--db", str(store)], env=env))
    err = _one_line_refusal(run_limited(["history", "100.1", "--at", bad, "--db", str(store)], env=env))
    assert err == "crparse: history: the --at given is not valid UTF-8 text\n", err  # "the at given" (sweep 28)
    _one_line_refusal(run_limited(["search", "-mana", "--db", str(store)]))  # taken for an option
    _one_line_refusal(run_limited(["no-such-command"]))


def test_a_search_phrase_is_bounded(store):
    err = _one_line_refusal(run_limited(["search", " ".join(["the"] * 20_000), "--db", str(store)], seconds=10))
    assert "at most" in err


def test_a_long_search_phrase_is_echoed_cut_short(store):
    """A phrase of one 100,000-character word was echoed whole, a line as long (sweep 40)."""
    result = run_limited(["search", "704." + "9" * 100_000, "--db", str(store)], seconds=10)
    assert result.returncode == 1 and len(result.stderr) < 300 and b"(100,004 characters)" in result.stderr, \
        result.stderr[:300]


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


# -- a store crafted to crash, to eat memory, or to be written by a command that only reads ------
# (a second sweep: every value read from the store is checked for its type where it is read, what
# a query reads is bounded, and the read-only commands open the store read-only)


def _edit(store: Path, script: str, *params) -> None:
    db = sqlite3.connect(store, isolation_level=None)
    if params:
        db.execute(script, params)
    else:
        db.executescript(script)
    db.close()


def _cite(tmp_path: Path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text("See rule 100.1 and rule 101.1.\n")
    return path


def _commands(store: Path, tmp_path: Path) -> dict[str, list[str]]:
    releases = tmp_path / "releases"
    return {
        "diff": ["diff", "2020-01-01", "2020-02-01", "--db", str(store)],
        "history": ["history", "100.1", "--db", str(store)],
        "search": ["search", "any Magic game", "--db", str(store)],
        "cite-check": ["cite-check", str(_cite(tmp_path)), "--cr", str(releases / "b.txt"), "--since", "2020-01-01",
                       "--db", str(store)],
    }


# the releases table made again with the same columns and no types or constraints (SQLite then
# keeps any value as it comes)
_RELAXED = ("CREATE TABLE r2 (id, path, sha256, date, format, nodes); INSERT INTO r2 SELECT * FROM releases; "
            "DROP TABLE releases; ALTER TABLE r2 RENAME TO releases;")


@pytest.mark.parametrize("damage, command", [
    (damage, command) for damage in ("blob-date", "integer-date", "null-path", "blob-lineage")
    for command in ("diff", "history", "cite-check") if (damage, command) != ("blob-lineage", "diff")  # it reads no lineage
])
def test_a_value_of_another_type_is_a_refusal_naming_the_store(store, tmp_path, damage, command):
    """The diff by date compared a BLOB or an integer date with the date asked and stat'ed a NULL
    path: exit 3. Every command now refuses, naming the store's file, not `<input>`."""
    _edit(store, {
        "blob-date": "INSERT INTO releases (path, sha256, date, format, nodes) VALUES ('x', 'z', X'ff00', 'text', 1)",
        "integer-date": _RELAXED + "INSERT INTO releases VALUES (78, 'x', 'z', 20200115, 'text', 1)",
        "null-path": _RELAXED + "UPDATE releases SET path = NULL WHERE date = '2020-02-01'",
        "blob-lineage": "UPDATE node_lineage SET lineage = CAST(lineage AS BLOB)",
    }[damage])
    err = _one_line_refusal(run_limited(_commands(store, tmp_path)[command]))
    assert f"crparse: {store}: " in err and ("damaged" in err or "not a crparse store" in err), err


def test_a_refusal_about_the_store_names_the_store(store):
    err = _one_line_refusal(run_limited(["history", "999.9", "--db", str(store)]))
    assert err.startswith(f"crparse: {store}: no rule or glossary entry '999.9' in the release of 2020-02-01"), err
    assert err.rstrip().endswith("one gone since is found with the date of a release that held it (--at DATE)"), err
    # as given: ".." was shown as "no rule  in", and an argument of 20,000 words whole
    err = _one_line_refusal(run_limited(["history", "..", "--db", str(store)]))
    assert "no rule or glossary entry '..' in" in err, err
    err = _one_line_refusal(run_limited(["history", "word " * 20_000, "--db", str(store)]))
    assert "... (100,000 characters) in" in err and len(err) < 400, err


def test_a_value_longer_than_any_release_is_refused_before_it_is_read(store):
    """One text of 200 MB made `history` take 1.8 GiB; SQLite now refuses a value past four times
    the input limit as it reads the row (here the limit lowered: 64 KiB of input, 256 KiB a value)."""
    _edit(store, "UPDATE texts SET text = ? WHERE id IN (SELECT text FROM nodes WHERE key = '100.1')", "x " * (1 << 19))
    for command in (["history", "100.1"], ["history", "100.1", "--all", "--json"]):
        result = run_limited([*command, "--db", str(store)], env={"CRPARSE_MAX_INPUT": "64K"}, memory=256 << 20)
        err = _one_line_refusal(result)
        assert "CRPARSE_MAX_INPUT" in err and str(store) in err, err


def test_a_flood_of_pairs_is_not_read(store):
    """500,000 pairs naming one rule made `history` read its text once for each (930 MiB): one
    pair is read for each node, the first stored, and the history is the same."""
    before = run_limited(["history", "100.1", "--all", "--json", "--db", str(store)])
    assert before.returncode == 0, before.stderr
    _edit(store, "UPDATE texts SET text = text || ? WHERE id IN (SELECT text FROM nodes WHERE key = '100.1')",
          " padding" * 12_000)
    _edit(store, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000) "
                 "INSERT INTO pairs SELECT old_release, new_release, old_key, new_key, 'changed', '', 0.5 FROM pairs, c "
                 "WHERE new_key = '100.1'")
    result = run_limited(["history", "100.1", "--all", "--json", "--db", str(store)], seconds=10)
    assert result.ok_within_limits and result.returncode == 0, (result.returncode, result.stderr[-300:])
    versions = json.loads(result.stdout)["versions"]
    assert [(v["date"], v["kind"]) for v in versions] == [(v["date"], v["kind"]) for v in json.loads(before.stdout)["versions"]]


def test_more_nodes_than_a_document_holds_are_refused(store, tmp_path):
    """A lineage, or a release, of more nodes than the parser makes of a document
    (CRPARSE_MAX_PARAGRAPHS, lowered here to 500): refused before they are read."""
    _edit(store, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) "
                 "INSERT INTO nodes (release, key, kind, ord, text, digest, exact) "
                 "SELECT release, key || '.' || i, kind, ord, text, digest, exact FROM nodes, c WHERE key = '100.1';"
                 "INSERT INTO node_lineage SELECT n.release, n.key, l.lineage FROM nodes n JOIN node_lineage l "
                 "ON l.release = n.release AND l.key = '100.1' WHERE n.key LIKE '100.1.%'")
    env = {"CRPARSE_MAX_PARAGRAPHS": "500"}
    commands = _commands(store, tmp_path)
    for command in (commands["history"], commands["cite-check"], commands["search"]):
        err = _one_line_refusal(run_limited(command, env=env))
        assert "CRPARSE_MAX_PARAGRAPHS" in err and str(store) in err, err


def test_the_versions_of_a_history_are_bounded_in_all(store):
    """Releases that all point a rule at one long text: each version is printed, so the history
    holds at most 16 times the input limit of text (lowered here: 16 KiB of input, 256 KiB)."""
    _edit(store, """
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 8)
        INSERT INTO releases (id, path, sha256, date, format, nodes)
            SELECT 100 + i, 'x', 'sha' || i, printf('2021-01-%02d', i), 'text', 1 FROM c;
        INSERT INTO nodes (release, key, kind, ord, text, digest, exact)
            SELECT r.id, n.key, n.kind, n.ord, n.text, n.digest, n.exact FROM releases r, nodes n
            WHERE r.id > 100 AND n.key = '100.1' AND n.release = (SELECT min(id) FROM releases);
        INSERT INTO node_lineage SELECT r.id, '100.1', l.lineage FROM releases r, node_lineage l
            WHERE r.id > 100 AND l.key = '100.1' AND l.release = (SELECT min(id) FROM releases);
    """)
    _edit(store, "UPDATE texts SET text = ? WHERE id IN (SELECT text FROM nodes WHERE key = '100.1')", "y " * 30_000)
    err = _one_line_refusal(run_limited(["history", "100.1", "--all", "--json", "--db", str(store)],
                                        env={"CRPARSE_MAX_INPUT": "16K"}))
    assert "16 times CRPARSE_MAX_INPUT" in err, err


def test_a_store_of_too_many_releases_is_refused(store, tmp_path):
    """A million release rows made every command take 6-9 s (CRPARSE_MAX_RELEASES, lowered to 50)."""
    _edit(store, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100) "
                 "INSERT INTO releases (path, sha256, date, format, nodes) "
                 "SELECT 'p' || i, 's' || i, printf('%04d-01-01', 1000 + i), 'text', 0 FROM c")
    for name, command in _commands(store, tmp_path).items():
        err = _one_line_refusal(run_limited(command, env={"CRPARSE_MAX_RELEASES": "50"}))
        assert "CRPARSE_MAX_RELEASES" in err and str(store) in err, (name, err)


@pytest.mark.parametrize("change", ["DROP INDEX nodes_digest", "DROP TABLE steps",
                                    "DROP INDEX node_lineage_key; INSERT INTO node_lineage SELECT * FROM node_lineage"])
def test_a_command_that_reads_writes_nothing_and_refuses_a_store_made_otherwise(store, tmp_path, change):
    """The read-only commands ran the schema script on the file: a missing index or table was
    made in it, and a store of duplicate rows was refused with `UNIQUE constraint failed`."""
    _edit(store, change)
    before = store.read_bytes()
    for name, command in _commands(store, tmp_path).items():
        err = _one_line_refusal(run_limited(command))
        assert f"crparse: {store}: not a crparse store: " in err and "UNIQUE" not in err, (name, err)
    assert store.read_bytes() == before
    wal = Path(f"{store}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_index_into_a_store_whose_full_text_index_is_damaged(store, tmp_path):
    """SQLite ends the transaction itself on such a fault: the ROLLBACK after it failed and its
    message (`cannot rollback - no transaction is active`) hid the fault."""
    _edit(store, "UPDATE texts_fts_data SET block = X'00ff00ff' WHERE id >= 10")
    releases = tmp_path / "releases"
    _release(releases, "c.txt", "March 1, 2020")
    path = releases / "c.txt"
    path.write_text(path.read_text(encoding="utf-8").replace("only two players", "only two players, newly"),
                    encoding="utf-8")
    err = _one_line_refusal(run_limited(["index", str(releases), "--db", str(store)]))
    assert err.startswith(f"crparse: {store}: the store is damaged") and "rollback" not in err, err


@pytest.mark.parametrize("where", ["/proc/self/environ", "fifo", "/dev/zero"])
def test_a_stored_path_that_is_not_a_regular_file_is_never_opened(store, tmp_path, where):
    """The path is the store's word: a FIFO or a device is not opened (opening one blocks, or
    acts), nor a file the kernel makes up, a "regular" file of 0 bytes (a release never is)."""
    import hashlib

    if where == "fifo":
        where = str(tmp_path / "fifo")
        os.mkfifo(where)
    _edit(store, "UPDATE releases SET path = ?, sha256 = ? WHERE date = '2020-01-01'", where,
          hashlib.sha256(b"").hexdigest())
    result = run_limited(["diff", "2020-01-01", "2020-02-01", "--db", str(store)], seconds=10)
    err = _one_line_refusal(result)
    assert "cannot be read again" in err and ("empty" in err or "FIFO" in err or "device" in err), err


@pytest.mark.parametrize("kind", ["link", "fifo", "directory"])
def test_a_lock_file_that_is_not_a_regular_file_is_refused_not_followed(store, tmp_path, kind):
    # `crparse index` locks the file beside the store (crparse.store.lock): only ever created
    # and locked, never followed to another file or opened as a FIFO
    lock, target = store.with_name(f".{store.name}.lock"), tmp_path / "elsewhere"
    lock.unlink(missing_ok=True)
    if kind == "link":
        target.write_text("not ours")
        lock.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.mkdir()
    err = _one_line_refusal(run_limited(["index", str(FIXTURES), "--db", str(store)]))
    assert "lock file" in err and str(store) in err
    assert kind != "link" or target.read_text() == "not ours"


@pytest.mark.parametrize("kind", ["text", "other-database", "a-table-named-as-ours"])
def test_rebuild_deletes_only_a_store(tmp_path, kind):
    """`index --rebuild --db FILE` deleted any FILE (a text, another program's database) and put a
    store in its place (sweep 12)."""
    target = tmp_path / "notes.db"
    if kind == "text":
        target.write_text("precious notes\n")
    else:
        with sqlite3.connect(target) as other:  # a table name crparse uses too (sweep 13: deleted)
            other.execute("CREATE TABLE users (name TEXT)" if kind == "other-database" else
                          "CREATE TABLE releases (version TEXT, notes TEXT)")
    before = target.read_bytes()
    err = _one_line_refusal(run_limited(["index", str(FIXTURES), "--db", str(target), "--rebuild"], seconds=15))
    assert "not a crparse store" in err and "--rebuild deletes only a store" in err, err
    assert target.read_bytes() == before
    store = tmp_path / "store.sqlite"  # a store is rebuilt, as before
    assert run_limited(["index", str(FIXTURES), "--db", str(store)], seconds=30).returncode == 0
    result = run_limited(["index", str(FIXTURES), "--db", str(store), "--rebuild"], seconds=30)
    assert result.returncode == 0, result.stderr[-300:]


def test_a_copy_of_a_refused_file_is_refused_too(tmp_path):
    """Two copies of a file that is refused: the second was counted "already stored", the
    store holding neither (sweep 13)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    (folder / "a.txt").write_text("Nothing numbered here.\nAt all.\n")
    (folder / "b.txt").write_text("Nothing numbered here.\nAt all.\n")
    result = run_limited(["index", str(folder), "--db", str(tmp_path / "s.sqlite")], seconds=15)
    err = result.stderr.decode()
    assert result.returncode == 2 and "0 already stored" in result.stdout.decode(), (result.stdout, err)
    assert f"{folder / 'b.txt'}: the same bytes as {folder / 'a.txt'}, refused" in err, err


def test_a_number_twice_in_a_release_is_said_when_indexed(tmp_path):
    """The store keys a release's units by number: the second 702.30d of 2009-10-05 was dropped
    without a word, and search could not find it (sweep 14)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    path = _release(folder, "2020-01-01.txt", "2020-01-01")
    path.write_text(path.read_text().replace("100.2.", "100.1."), encoding="utf-8")
    result = run_limited(["index", str(folder), "--db", str(tmp_path / "s.sqlite")])
    assert result.returncode == 0, result
    assert "2020-01-01.txt: 100.1: numbered more than once in the release" in result.stderr.decode(), result


def test_a_disk_filling_up_while_a_store_is_made_leaves_none_half_made(tmp_path):
    """The tables were written, then the version row: a full disk between them left a file no
    later run took for a store ("no store version it knows"), nor --rebuild deleted (sweep 14).
    A file size limit of 16 KiB stands for the full disk; every error said "not a crparse store"."""
    import resource
    import subprocess
    import sys

    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "2020-01-01.txt", "2020-01-01")
    db = tmp_path / "s.sqlite"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 10, resource.RLIM_INFINITY))

    full = subprocess.run([sys.executable, "-m", "crparse", "index", str(folder), "--db", str(db)],
                          capture_output=True, text=True, preexec_fn=small_files, timeout=60)
    assert full.returncode == 2 and "cannot use the store: " in full.stderr and "not a crparse" not in full.stderr, full
    # past the schema, a limit met while the releases are written is no damage either (sweep 15)
    def larger_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (160 << 10, resource.RLIM_INFINITY))

    full = subprocess.run([sys.executable, "-m", "crparse", "index", str(folder), "--db", str(db)],
                          capture_output=True, text=True, preexec_fn=larger_files, timeout=60)
    assert full.returncode == 2 and "damaged" not in full.stderr and "disk I/O error (a full disk" in full.stderr, full
    again = run_limited(["index", str(folder), "--db", str(db)])
    assert again.returncode == 0, again


def test_a_store_another_program_holds_locked_is_said_so(tmp_path):
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "2020-01-01.txt", "2020-01-01")
    db = tmp_path / "s.sqlite"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = run_limited(["index", str(folder), "--db", str(db)])
    finally:
        holder.close()
    assert _one_line_refusal(result).endswith("cannot use the store: database is locked\n"), result


def test_a_store_of_undated_releases_says_so(tmp_path):
    """history said "run crparse index DIR", just done; docs --db "no release given", --db given;
    identify nothing of why (sweep 14)."""
    import re

    folder = tmp_path / "rel"
    folder.mkdir()
    path = _release(folder, "a.txt", "2020-01-01")
    path.write_text(re.sub(r"[^\n]*effective as of[^\n]*\n", "", path.read_text()), encoding="utf-8")
    db = str(tmp_path / "s.sqlite")
    assert run_limited(["index", str(folder), "--db", db]).returncode == 0
    undated = "the store's 1 release(s) have no effective date"
    assert undated in _one_line_refusal(run_limited(["history", "100.1", "--db", db]))
    assert undated in run_limited(["identify", str(path), "--db", db]).stdout.decode()
    assert undated in _one_line_refusal(run_limited(["docs", "--db", db, "-o", str(tmp_path / "site")]))


def test_two_texts_of_one_date_are_said_when_indexed(tmp_path):
    """Both stored, one followed by lineage, history and diff, and said nowhere (sweep 14)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "a.txt", "2020-01-01")
    other = _release(folder, "b.txt", "2020-01-01")
    other.write_text(other.read_text() + "\n", encoding="utf-8")  # another text: other bytes
    result = run_limited(["index", str(folder), "--db", str(tmp_path / "s.sqlite")])
    assert result.returncode == 0, result
    assert ": 2 different texts (" in result.stderr.decode() and "lineage follows the first stored" in result.stderr.decode()


def test_undated_releases_beside_dated_ones_are_said(tmp_path):
    """docs --db built the dated releases and identify compared them, and neither said that the
    store's undated releases were left out (sweep 16)."""
    import json
    import re

    folder = tmp_path / "rel"
    folder.mkdir()
    dated = _release(folder, "a.txt", "2020-01-01")
    undated = _release(folder, "b.txt", "2021-01-01")
    undated.write_text(re.sub(r"[^\n]*effective as of[^\n]*\n", "", undated.read_text()) + "Extra.\n", encoding="utf-8")
    db = str(tmp_path / "s.sqlite")
    assert run_limited(["index", str(folder), "--db", db]).returncode == 0
    said = "the store's 1 release(s)"
    result = run_limited(["identify", str(dated), "--db", db])
    assert result.returncode == 0 and "units match exactly" in result.stdout.decode(), result
    assert said in result.stderr.decode() and "not compared" in result.stderr.decode(), result
    result = run_limited(["identify", str(dated), "--db", db, "--json"])
    assert json.loads(result.stdout)["undated"] == 1, result
    result = run_limited(["docs", "--db", db, "-o", str(tmp_path / "site")], seconds=60)
    assert result.returncode == 0 and "1 release " in result.stdout.decode(), result
    assert said in result.stderr.decode() and "no effective date" in result.stderr.decode(), result


def test_a_store_in_a_directory_the_user_cannot_write_is_read(tmp_path):
    """A store in WAL mode is read through a -shm file SQLite makes beside it: in a read-only
    directory (a shared store) every command that only reads was refused with "attempt to write
    a readonly database" (sweep 17)."""
    import subprocess
    import sys

    prefix = [] if os.geteuid() != 0 else [shutil.which("setpriv")] if shutil.which("setpriv") else None
    if prefix is None:
        pytest.skip("running as root without setpriv: a directory of mode 0o555 is written anyway")
    if prefix:
        prefix += ["--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-dac_override,-dac_read_search,-fowner"]
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "a.txt", "2020-01-01")
    shared = tmp_path / "shared"
    shared.mkdir()
    db = str(shared / "s.sqlite")
    assert run_limited(["index", str(folder), "--db", db]).returncode == 0
    shared.chmod(0o555)
    try:
        done = subprocess.run([*prefix, sys.executable, "-m", "crparse", "search", "rule", "--db", db],
                              capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent)), check=False)
    finally:
        shared.chmod(0o755)
    assert done.returncode == 0 and "rule(s) held" in done.stderr + done.stdout, (done.stdout, done.stderr)
    assert sorted(p.name for p in shared.iterdir()) == [".s.sqlite.lock", "s.sqlite"]  # index's lock, no -shm


def test_a_store_named_through_a_link_has_the_lock_of_the_file(tmp_path):
    """The lock was beside the name given: two index runs, one naming the store through a link
    to it, interleaved, and one was told the store was damaged, to rebuild it (sweep 17)."""
    from crparse.store.lock import lock_path

    store = tmp_path / "s.sqlite"
    store.write_bytes(b"")
    (tmp_path / "other").mkdir()
    for alias in (tmp_path / "alias.sqlite", tmp_path / "other" / "s.sqlite"):
        alias.symlink_to(store)
        assert lock_path(alias) == lock_path(store) == tmp_path / ".s.sqlite.lock"


def test_two_dates_under_one_release_are_said(tmp_path):
    """`diff 2008 2009` on a store whose newest release is of 2007 compared it with itself and
    said "unchanged", exit 0, without a word (sweep 17)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "a.txt", "2020-01-01")
    db = str(tmp_path / "s.sqlite")
    assert run_limited(["index", str(folder), "--db", db]).returncode == 0
    result = run_limited(["diff", "2030", "2031", "--db", db])
    assert result.returncode == 0 and b"are both under one release of the store" in result.stderr, result


def test_docs_of_an_empty_store_says_the_store_is_empty(tmp_path):
    """"no release given (PATH..., or --db ...)", --db given (sweep 17)."""
    db = str(tmp_path / "s.sqlite")
    (tmp_path / "none").mkdir()
    assert run_limited(["index", str(tmp_path / "none"), "--db", db]).returncode in (0, 2)
    message = _one_line_refusal(run_limited(["docs", "--db", db, "-o", str(tmp_path / "site")]))
    assert "the store holds no release" in message, message


def test_index_refuses_a_store_that_lacks_a_table_rather_than_remaking_it_empty(tmp_path):
    """The full-text table dropped: search refused the store, and index made an empty one and
    said nothing, after which search answered nothing (sweep 18)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "a.txt", "2020-01-01")
    db = str(tmp_path / "s.sqlite")
    assert run_limited(["index", str(folder), "--db", db]).returncode == 0
    with sqlite3.connect(db) as store:
        store.execute("DROP TABLE texts_fts")
    message = _one_line_refusal(run_limited(["index", str(folder), "--db", db]))
    assert "lacks its table texts_fts" in message and "--rebuild" in message, message
    assert run_limited(["index", str(folder), "--db", db, "--rebuild"]).returncode == 0
    assert run_limited(["search", "rule", "--db", db]).returncode == 0


def test_a_store_named_through_a_link_to_another_file_leaves_no_lock_beside_it(tmp_path):
    """index --db LINK, the link to /etc/passwd: refused, but /etc/.passwd.lock was made (sweep 19)."""
    folder = tmp_path / "rel"
    folder.mkdir()
    _release(folder, "a.txt", "2020-01-01")
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "passwd"
    target.write_text("root:x:0:0:root:/root:/bin/sh\n")
    (tmp_path / "dbs").mkdir()
    (tmp_path / "dbs" / "s.sqlite").symlink_to(target)
    assert "not a crparse store" in _one_line_refusal(run_limited(["index", str(folder), "--db", str(tmp_path / "dbs" / "s.sqlite")]))
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == ["passwd"]


@pytest.mark.parametrize("content", [b"\n", b"x", b"SQLite", b"SQLite format 3"])
@pytest.mark.parametrize("command", [["index", "{dir}"], ["search", "rules"], ["history", "100.1"]])
def test_a_short_file_that_is_no_database_is_refused_and_left_unchanged(tmp_path, content, command):
    """SQLite takes a file of one byte for an empty database: `index` wrote a store over a user's
    one-line file, and the commands that read called it "not a store yet" (sweep 20)."""
    notes = tmp_path / "notes.txt"
    notes.write_bytes(content)
    args = [a.replace("{dir}", str(FIXTURES)) for a in command]
    err = _one_line_refusal(run_limited([*args, "--db", str(notes)]))
    assert "not a crparse store: not an SQLite database" in err
    assert notes.read_bytes() == content


def test_a_store_or_a_release_named_through_a_long_chain_of_links_is_one_line(tmp_path):
    """os.path.realpath recursed once a link: a store or a release named through 1,500 links was
    a RecursionError, exit 3 (sweep 23)."""
    release = tmp_path / "real.txt"
    release.write_text((FIXTURES / "modern.txt").read_text())
    for first, last in (("c", "real.txt"), ("s", "store.sqlite")):
        previous = last
        for i in range(1_499, -1, -1):
            os.symlink(previous, tmp_path / f"{first}{i:04d}")
            previous = f"{first}{i:04d}"
    for args in (["docs", "-o", str(tmp_path / "site"), str(tmp_path / "c0000")],
                 ["index", "--db", str(tmp_path / "s0000"), str(release)]):
        err = _one_line_refusal(run_limited(args))
        assert "Too many levels of symbolic links" in err, err


def test_a_store_named_through_a_loop_of_links_is_said_so(store, tmp_path):
    """Path.exists says False for a loop of links, or a chain past the system's 40: the reading
    commands said "no store here: build it with crparse index", for a store at the chain's end
    too (sweep 24)."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    target = store.name
    for n in range(45):
        (tmp_path / f"l{n}").symlink_to(target)
        target = f"l{n}"
    for name in ("a", "l44"):
        for command in (["history", "100.1"], ["search", "rules"]):
            err = _one_line_refusal(run_limited([*command, "--db", str(tmp_path / name)]))
            assert err == (f"crparse: {tmp_path / name}: cannot open the store: its name is a loop of symbolic links, "
                           "or a chain of more than the system follows\n"), err
    assert run_limited(["history", "100.1", "--db", str(tmp_path / "l30")]).returncode == 0  # within the 40


@pytest.mark.parametrize("command", [["index", "{releases}"], ["history", "100.1"]])
def test_a_store_named_as_a_directory_is_refused(tmp_path, command):
    """`index --db new/` made a file named "new" (Path drops the slash: sweep 27)."""
    releases = tmp_path / "releases"
    releases.mkdir()
    _release(releases, "a.txt", "January 1, 2020")
    given = str(tmp_path / "new") + os.sep
    err = _one_line_refusal(run_limited([c.format(releases=releases) for c in command] + ["--db", given]))
    assert err.startswith(f"crparse: {given}: not a crparse store: the name ends in a slash"), err
    assert not (tmp_path / "new").exists()
