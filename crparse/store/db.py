"""The embedded store: an SQLite database of releases, their nodes, references, pairs and
lineages, so that questions about a corpus ("how did this rule change?") are answered without
parsing or aligning anything.

Schema version STORE_VERSION, documented in docs/store.md. A database of another version is
refused with a message saying how to rebuild it (crparse index --rebuild).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from crparse.errors import CrparseError
from crparse.limits import describe, max_releases, max_store_value
from crparse.outputs import make_directories

STORE_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL UNIQUE,
    date TEXT,                    -- effective date, YYYY-MM-DD (NULL: undated, left out of lineage)
    format TEXT NOT NULL,
    nodes INTEGER NOT NULL
);
-- each distinct text once: most rules read the same in release after release, so the texts of
-- 112 releases are ~25,000, not 290,000 (and the full-text index is built over those)
CREATE TABLE IF NOT EXISTS texts (
    id INTEGER PRIMARY KEY,       -- the rowid the full-text index refers to
    sha1 TEXT NOT NULL UNIQUE,    -- of the text as printed
    text TEXT NOT NULL            -- title, text and examples, as printed
);
CREATE TABLE IF NOT EXISTS nodes (
    id INTEGER PRIMARY KEY,
    release INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    key TEXT NOT NULL,            -- "702.140a", "702", "7" or "glossary:Term"
    kind TEXT NOT NULL,           -- part, section, rule, subrule, glossary
    ord INTEGER NOT NULL,         -- position in the release
    text INTEGER NOT NULL REFERENCES texts(id),
    digest TEXT NOT NULL,         -- sha1 of the text with typography folded and cited numbers masked
    exact TEXT NOT NULL,          -- sha1 of the text with typography folded (cited numbers kept)
    UNIQUE (release, key)
);
CREATE INDEX IF NOT EXISTS nodes_digest ON nodes (digest);
CREATE INDEX IF NOT EXISTS nodes_exact ON nodes (exact);
CREATE INDEX IF NOT EXISTS nodes_text ON nodes (text);
CREATE TABLE IF NOT EXISTS refs (
    release INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    text TEXT NOT NULL,
    target TEXT,
    status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_target ON refs (release, target);
CREATE TABLE IF NOT EXISTS pairs (
    old_release INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    new_release INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    old_key TEXT,
    new_key TEXT,
    kind TEXT NOT NULL,
    flags TEXT NOT NULL,          -- space-separated
    similarity REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pairs_step ON pairs (old_release, new_release);
CREATE INDEX IF NOT EXISTS pairs_new ON pairs (new_release, new_key);
CREATE TABLE IF NOT EXISTS steps (   -- which consecutive releases `pairs` holds complete
    old_release INTEGER NOT NULL,
    new_release INTEGER NOT NULL,
    PRIMARY KEY (old_release, new_release)
);
CREATE TABLE IF NOT EXISTS lineages (
    id TEXT PRIMARY KEY,          -- "<date born>:<number there>"
    born_release INTEGER NOT NULL,
    born_key TEXT NOT NULL,
    end TEXT,                     -- removed, merged, or NULL (alive in the newest release)
    born_of TEXT,
    merged_into TEXT
);
-- the lineage of each node of the releases chained so far; rebuilt whole by each lineage stage
CREATE TABLE IF NOT EXISTS node_lineage (release INTEGER NOT NULL, key TEXT NOT NULL, lineage TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS node_lineage_key ON node_lineage (release, key);
CREATE INDEX IF NOT EXISTS node_lineage_id ON node_lineage (lineage);
CREATE VIRTUAL TABLE IF NOT EXISTS texts_fts USING fts5 (text, content='texts', content_rowid='id');
"""


class DamagedStore(CrparseError):
    """The store holds what crparse never writes (edited, truncated, another program's rows)."""


def reads_store(function):
    """What a store query raises on rows crparse never writes becomes one clear refusal: the store
    is data from a file, like any input (a text column holding bytes, a missing row, a number that
    is not one). Every refusal names the store's file (the connection, the first argument, knows it)."""
    @functools.wraps(function)
    def guarded(db, *args, **kwargs):
        try:
            return function(db, *args, **kwargs)
        except CrparseError as err:
            raise err.located(getattr(db, "path", None)) from None
        except (sqlite3.Error, ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
            raise store_error(err, getattr(db, "path", None)) from None

    return guarded


def store_error(err: Exception, path: str | None) -> CrparseError:
    """The refusal an error met in the store makes: a value past the length limit names it; a
    store busy or unwritable says so; anything else is a damaged store."""
    message = " ".join(str(err).split())
    if isinstance(err, sqlite3.DataError) and "too big" in message:
        return DamagedStore(too_long_value(), path=path)
    if isinstance(err, sqlite3.OperationalError) and any(
            word in message for word in ("locked", "busy", "disk is full", "readonly", "unable to open", "disk I/O")):
        # a write the disk refused (full, a file size limit: "disk I/O error") is no damage (sweep 15)
        return CrparseError(f"the store: {message}" + (" (a full disk, or a file size limit?)" if "I/O" in message else ""),
                            path=path)
    return DamagedStore(f"the store is damaged ({type(err).__name__}: {message}): "
                        "rebuild it with `crparse index DIR --rebuild`", path=path)


def too_long_value() -> str:
    return (f"the store holds a value longer than {describe(max_store_value())}, the limit (four times "
            "CRPARSE_MAX_INPUT: no text of a release is longer): rebuild it with `crparse index DIR --rebuild`")


def default_path() -> Path:
    """The store's default location: the user's cache directory (XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crparse" / "store.sqlite"


class MissingStore(CrparseError):
    """No store where one was looked for."""


class Store(sqlite3.Connection):
    """A connection to the store that knows its file, so that a refusal names it."""

    path: str | None = None


def store_path(given: str | os.PathLike | None) -> Path:
    """The store a `--db` names (default_path() for none), as a Path: refused where the name
    ends in a slash, as a directory's does (Path drops it, and `index --db new/` made a file
    named "new": sweep 27)."""
    if given is None:
        return default_path()
    if os.fspath(given).endswith((os.sep, os.sep + ".")):
        raise CrparseError("not a crparse store: the name ends in a slash, as a directory's does: name the store's "
                           "file (DIR/store.sqlite)", path=os.fspath(given))
    return Path(given)


def connect(path: str | os.PathLike | None = None, *, create: bool = False, readonly: bool = False) -> sqlite3.Connection:
    """The store at `path` (default: default_path()). `create`: make it if absent; otherwise a
    missing store is refused with the command that builds one. A database that is not a crparse
    store (other tables, another version, damaged) is refused and left as it is. `readonly`: for
    the commands that only read it: opened read-only (nothing, not even the schema, is written
    into a file the user named) and refused unless it holds every table of the schema, as
    crparse makes them."""
    path = store_path(path)
    try:
        # Path.exists says False for a loop of links (or a chain past the system's 40), which was
        # "no store here: build it with crparse index", and that index then failed (sweep 24)
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise CrparseError("cannot open the store: its name is a loop of symbolic links, or a chain of more "
                               "than the system follows", path=str(path)) from None
    except ValueError:  # a NUL: said below, as before
        pass
    try:
        exists = path.exists()
        if exists and not path.is_file():
            raise CrparseError("not a crparse store: not a file", path=str(path))
        if exists and _head(path) not in (b"", SQLITE_HEADER):
            # SQLite takes a file of one byte for an empty database: `index` wrote a store over a
            # user's one-line file, and the readers called it "not a store yet" (sweep 20)
            raise CrparseError("not a crparse store: not an SQLite database", path=str(path))
        if not exists:
            if readonly or not create:
                raise MissingStore(
                    f"no store here: build it with `crparse index DIR{'' if path == default_path() else f' --db {path}'}` "
                    "(DIR: a directory of releases)",
                    path=str(path),
                )
            make_directories(path.parent)
        if readonly:
            db = _read_only(path)
        else:
            db = sqlite3.connect(path, isolation_level=None, factory=Store)  # transactions are explicit: BEGIN ... COMMIT
        db.path = str(path)
        # no value crparse stores is longer than a release's text: one longer (a crafted row of
        # 200 MB) is refused by SQLite as it reads the row, before it is loaded
        db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_store_value())
        _check_ours(db, path, complete=readonly)
        if readonly:
            return db
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA journal_mode = WAL")  # a killed writer leaves the last commit readable
        # WAL with NORMAL sync: never corrupt; a power cut may lose the last commits, which the
        # next `crparse index` makes again (it is a cache of the releases)
        db.execute("PRAGMA synchronous = NORMAL")
        # the tables and the version row in one transaction: a disk filling up between them left
        # a file no later run would take for a store, nor --rebuild delete (sweep 14)
        try:
            db.executescript(f"BEGIN;\n{SCHEMA}\nINSERT OR IGNORE INTO meta VALUES ('store_version', '{STORE_VERSION}');"
                             "\nCOMMIT;")
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    except sqlite3.DataError as err:
        raise store_error(err, str(path)) from None
    except sqlite3.DatabaseError as err:
        if (getattr(err, "sqlite_errorname", None) or "").startswith(_NOT_THE_FILE):
            # the directory, the disk, a lock: a store it may well be (all were "not a crparse store": sweep 14)
            raise CrparseError(f"cannot use the store: {' '.join(str(err).split())}", path=str(path)) from None
        raise CrparseError(f"not a crparse store: {err}", path=str(path)) from None
    except OSError as err:
        raise CrparseError(f"cannot open the store: {err.strerror or err}", path=str(path)) from None
    return db


def _read_only(path: Path) -> sqlite3.Connection:
    """The store opened read-only. A store in WAL mode is read through its -shm file, which
    SQLite makes beside it: in a directory the user cannot write (a shared or read-only store)
    every command that only reads was refused with "attempt to write a readonly database"
    (sweep 17). There it is opened as immutable, which needs no -shm; no run of crparse can be
    writing it, and a -wal left by a killed one is left out, as its uncommitted work would be."""
    uri = _read_only_uri(path)
    db = sqlite3.connect(uri, uri=True, isolation_level=None, factory=Store)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as err:
        name = getattr(err, "sqlite_errorname", None) or ""
        if not name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")) or os.access(path.parent, os.W_OK):
            raise
        db.close()
        db = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None, factory=Store)
    return db


def _read_only_uri(path: Path) -> str:
    """A URI for mode=ro: the file name's bytes percent-encoded, whatever they are."""
    return "file://" + urllib.parse.quote(os.fsencode(os.path.abspath(path))) + "?mode=ro"


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database


# What an error says of where the file is, not of what it holds (and the extended codes under each)
_NOT_THE_FILE = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR",
                 "SQLITE_PERM")


def _head(path: Path) -> bytes:
    """The first bytes of the file at `path`, as many as an SQLite header has; what cannot be
    read is left to SQLite to say."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            return os.read(fd, len(SQLITE_HEADER))
        finally:
            os.close(fd)
    except OSError:
        return SQLITE_HEADER


def not_ours(path: Path) -> str | None:
    """Why `crparse index --rebuild` must leave the file at `path` as it is, or None: it may go when
    it is empty, or an SQLite database that holds no table but crparse's. --rebuild deleted any
    file named with --db, a text or another program's database (sweep 12)."""
    try:
        with open(path, "rb") as file:
            head = file.read(16)
    except OSError as err:
        return f"cannot read it: {err.strerror or err}"
    if not head:
        return None
    if head != SQLITE_HEADER:
        return "not an SQLite database"
    uri = _read_only_uri(path)
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            names = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return "a database with objects of its own" if names else None
            # the store's own checks, columns and version included: names alone let a database of
            # another program's "releases" table go (sweep 13)
            _check_ours(db, path)
    except sqlite3.DatabaseError as err:
        return f"an SQLite database that cannot be read ({err}): whose it is cannot be told"
    except DamagedStore:  # ours, with a table taken out: what --rebuild is for
        return None
    except CrparseError as err:
        if err.message.startswith("store version"):  # ours, of another version: what --rebuild is for
            return None
        return err.message.removeprefix("not a crparse store: ")
    # (the full-text index keeps its own tables beside it: texts_fts_data, ...)
    if {name for name in tables if not name.startswith("texts_fts_")} - set(_TABLES):
        return "a database with tables of its own"
    return None


@contextlib.contextmanager
def transaction(db: sqlite3.Connection):
    """BEGIN ... COMMIT, rolled back on any error. SQLite ends a transaction itself on some errors
    (a corrupt page, a full disk): a ROLLBACK then would fail and hide the error that matters."""
    db.execute("BEGIN")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


# the columns of each table, as SCHEMA makes them: a database whose tables differ is another's
_TABLES = {
    "meta": ["key", "value"],
    "releases": ["id", "path", "sha256", "date", "format", "nodes"],
    "texts": ["id", "sha1", "text"],
    "nodes": ["id", "release", "key", "kind", "ord", "text", "digest", "exact"],
    "refs": ["release", "source", "text", "target", "status"],
    "pairs": ["old_release", "new_release", "old_key", "new_key", "kind", "flags", "similarity"],
    "steps": ["old_release", "new_release"],
    "lineages": ["id", "born_release", "born_key", "end", "born_of", "merged_into"],
    "node_lineage": ["release", "key", "lineage"],
    "texts_fts": ["text"],
}


def _check_ours(db: sqlite3.Connection, path: Path, *, complete: bool = False) -> None:
    """Refuse, before anything is written, a database that holds tables of its own, or ours at
    another version or made otherwise (a column's type or constraint, an index): an empty one
    becomes a store, unless `complete`, when every table must be there."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if not tables:
        if complete:
            raise MissingStore("an empty database, not a store yet: build it with `crparse index DIR "
                               f"--db {path}` (DIR: a directory of releases)", path=str(path))
        return
    # crparse creates no view and no trigger: one in its place (a trigger that never ends, a view
    # of endless rows) is another program's, or a trap
    odd = db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger')").fetchone()
    if odd is not None:
        raise CrparseError(f"not a crparse store: it holds a {odd[0]} ({odd[1]})", path=str(path))
    if "meta" not in tables:
        raise CrparseError("not a crparse store: it holds other tables", path=str(path))
    row = db.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
    version = str(row[0]) if row is not None else None
    if version != str(STORE_VERSION):
        raise CrparseError(
            f"store version {version}, this crparse reads version {STORE_VERSION}: "
            "rebuild it with `crparse index DIR --rebuild`" if version and version.isdigit()
            else "not a crparse store: no store version it knows",
            path=str(path),
        )
    for table, columns in _TABLES.items():
        if table in tables and [r[1] for r in db.execute(f"PRAGMA table_info({table})")] != columns:
            raise CrparseError(f"not a crparse store: its table {table} has other columns", path=str(path))
    # The queries count on what the schema declares: a text where it says TEXT NOT NULL, one
    # row per (release, key) where an index is UNIQUE, an index where a query looks a row up.
    # A table made otherwise (its constraints dropped to hold a flood of duplicate rows) is not ours.
    expected = _schema_shape()
    for table in _TABLES:
        if table not in tables:
            # its tables and its version row are written in one transaction: a store of this
            # version lacks one only if something else took it out ("repaired" by index with an
            # empty one, the full-text index answered nothing: sweep 18)
            raise DamagedStore(f"not a crparse store: it lacks its table {table} (if it was one, rebuild it "
                               "with `crparse index DIR --rebuild`)", path=str(path))
        columns, indexes = _shape(db, table)
        if columns != expected[table][0]:
            raise CrparseError(f"not a crparse store: its table {table} has other columns", path=str(path))
        if indexes != expected[table][1]:
            raise CrparseError(f"not a crparse store: its table {table} has other indexes or constraints",
                               path=str(path))


@functools.cache
def _schema_shape() -> dict[str, tuple]:
    """Each table's shape as SCHEMA makes it (made in memory, so that it follows SCHEMA)."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return {table: _shape(db, table) for table in _TABLES}


def _shape(db: sqlite3.Connection, table: str) -> tuple:
    """A table's columns (name, type, NOT NULL, default, primary key) and indexes (unique, how
    made, partial, columns), or a virtual table's definition."""
    if table == "texts_fts":
        (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        return " ".join(str(sql).split()), ()
    columns = [tuple(r[1:]) for r in db.execute(f"PRAGMA table_info({table})")]
    indexes = sorted(
        (unique, origin, partial, tuple(str(c[2]) for c in db.execute(f"PRAGMA index_info('{name}')")))
        for _, name, unique, origin, partial in db.execute(f"PRAGMA index_list({table})")
    )
    return columns, indexes


def to_db_path(path: str) -> str | bytes:
    """A file name as the store keeps it: text, or its bytes when it is not UTF-8 (SQLite's text
    is UTF-8; a name that is not comes through Python with surrogates)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path)


def from_db_path(value: str | bytes) -> str:
    return os.fsdecode(value) if isinstance(value, bytes) else value


# What a query checks each value it reads against: the type SQLite gives it back as.
TEXT = str
INTEGER = int
NUMBER = (int, float)
MAYBE_TEXT = (str, type(None))
PATH = (str, bytes)  # a file name that is not UTF-8 is stored as its bytes (to_db_path)


def rows(db: sqlite3.Connection, sql: str, params: tuple = (), *, types: tuple, most: int | None = None,
         what: str = "rows", limit: str = "") -> Iterator[tuple]:
    """The rows of a query on the store, each value checked for its type (a store is a file like
    any input: a column of another type than the schema says, a NULL where it says NOT NULL, is
    a damaged store, not a crash further on), and at most `most` of them: one more is refused,
    naming `what` there are too many of and the `limit` that bounds them, before it is read."""
    cursor = db.execute(sql, params)
    columns = [d[0] for d in cursor.description]
    for n, row in enumerate(cursor):
        if most is not None and n >= most:
            raise DamagedStore(f"the store holds more than {most:,} {what}, the limit{f' ({limit})' if limit else ''}: "
                               "rebuild it with `crparse index DIR --rebuild`", path=getattr(db, "path", None))
        for value, kind, column in zip(row, types, columns):
            if not isinstance(value, kind):
                found = "NULL" if value is None else _TYPE_NAMES.get(type(value), type(value).__name__)
                raise DamagedStore(f"the store is damaged ({what}: {column} is {found}, not {_TYPE_NAMES[kind]}): "
                                   "rebuild it with `crparse index DIR --rebuild`", path=getattr(db, "path", None))
        yield row


_TYPE_NAMES = {TEXT: "text", INTEGER: "an integer", NUMBER: "a number", MAYBE_TEXT: "text or NULL",
               PATH: "a file name", bytes: "a blob", float: "a real number"}


def one(db: sqlite3.Connection, sql: str, params: tuple = (), *, types: tuple, what: str = "a row") -> tuple | None:
    """The first row of a query (None if none), its values checked as by `rows`."""
    return next(rows(db, sql, params, types=types, what=what), None)


def release_count_limit(db: sqlite3.Connection, count: int | None = None) -> None:
    """Refuse a store of more releases than the limit, before any query reads them all (each
    release costs a row in every list of them, and a lookup in some: a million took 10 s).
    `count`: the store's, as a caller that keeps it knows it (else counted here)."""
    if count is None:
        (count,) = one(db, "SELECT count(*) FROM releases", types=(INTEGER,))
    if count > max_releases():
        raise DamagedStore(f"the store holds {count:,} releases, more than {max_releases():,}, the limit "
                           "(CRPARSE_MAX_RELEASES; a corpus has about 120)", path=getattr(db, "path", None))


@reads_store
def undated_count(db: sqlite3.Connection) -> int:
    """How many of the store's releases have no effective date (stored, left out of lineage)."""
    return db.execute("SELECT count(*) FROM releases WHERE date IS NULL").fetchone()[0]


def undated_said(db: sqlite3.Connection) -> str:
    """"; its N release(s) have no effective date, and ..." when the store holds only such: what a
    command that follows dated releases says instead of "index some" (sweep 14)."""
    n = undated_count(db)
    return (f": the store's {n} release(s) have no effective date, and lineage follows dated releases only"
            if n else "")


def dated_releases(db: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, date, path) of the dated releases, in date order (one per date: the first stored)."""
    release_count_limit(db)
    out, seen = [], set()
    for rid, date, path in rows(db, "SELECT id, date, path FROM releases WHERE date IS NOT NULL ORDER BY date, id",
                                types=(INTEGER, TEXT, PATH), what="releases"):
        if date not in seen:
            seen.add(date)
            out.append((rid, date, from_db_path(path)))
    return out
