"""The embedded store: an SQLite database of releases, their nodes, references, pairs and
lineages, so that questions about a corpus ("how did this rule change?") are answered without
parsing or aligning anything.

Schema version STORE_VERSION, documented in docs/store.md. A database of another version is
refused with a message saying how to rebuild it (crparse index --rebuild).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from crparse.errors import CrparseError

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
    is not one)."""
    import functools

    @functools.wraps(function)
    def guarded(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except CrparseError:
            raise
        except (sqlite3.Error, ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
            raise DamagedStore(f"the store is damaged ({type(err).__name__}: {' '.join(str(err).split())}): "
                               "rebuild it with `crparse index DIR --rebuild`") from None

    return guarded


def default_path() -> Path:
    """The store's default location: the user's cache directory (XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crparse" / "store.sqlite"


class MissingStore(CrparseError):
    """No store where one was looked for."""


def connect(path: str | os.PathLike | None = None, *, create: bool = False) -> sqlite3.Connection:
    """The store at `path` (default: default_path()). `create`: make it if absent; otherwise a
    missing store is refused with the command that builds one. A database that is not a crparse
    store (other tables, another version, damaged) is refused and left as it is."""
    path = Path(path) if path is not None else default_path()
    try:
        exists = path.exists()
        if exists and not path.is_file():
            raise CrparseError("not a crparse store: not a file", path=str(path))
        if not exists:
            if not create:
                raise MissingStore(
                    f"no store here: build it with `crparse index DIR{'' if path == default_path() else f' --db {path}'}` "
                    "(DIR: a directory of releases)",
                    path=str(path),
                )
            path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit: BEGIN ... COMMIT
        _check_ours(db, path)
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA journal_mode = WAL")  # a killed writer leaves the last commit readable
        # WAL with NORMAL sync: never corrupt; a power cut may lose the last commits, which the
        # next `crparse index` makes again (it is a cache of the releases)
        db.execute("PRAGMA synchronous = NORMAL")
        db.executescript(SCHEMA)
        version = db.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
        if version is None:
            db.execute("INSERT INTO meta VALUES ('store_version', ?)", (str(STORE_VERSION),))
    except sqlite3.DatabaseError as err:
        raise CrparseError(f"not a crparse store: {err}", path=str(path)) from None
    except OSError as err:
        raise CrparseError(f"cannot open the store: {err.strerror or err}", path=str(path)) from None
    return db


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


def _check_ours(db: sqlite3.Connection, path: Path) -> None:
    """Refuse, before anything is written, a database that holds tables of its own, or ours at
    another version: an empty one becomes a store."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if not tables:
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


@reads_store
def dated_releases(db: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, date, path) of the dated releases, in date order (one per date: the first stored)."""
    rows = db.execute("SELECT id, date, path FROM releases WHERE date IS NOT NULL ORDER BY date, id").fetchall()
    out, seen = [], set()
    for rid, date, path in rows:
        if date not in seen:
            seen.add(date)
            out.append((rid, date, from_db_path(path)))
    return out
