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


def default_path() -> Path:
    """The store's default location: the user's cache directory (XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crparse" / "store.sqlite"


class MissingStore(CrparseError):
    """No store where one was looked for."""


def connect(path: str | os.PathLike | None = None, *, create: bool = False) -> sqlite3.Connection:
    """The store at `path` (default: default_path()). `create`: make it if absent; otherwise a
    missing store is refused with the command that builds one."""
    path = Path(path) if path is not None else default_path()
    if not path.exists():
        if not create:
            raise MissingStore(
                f"no store here: build it with `crparse index DIR{'' if path == default_path() else f' --db {path}'}` "
                "(DIR: a directory of releases)",
                path=str(path),
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit: BEGIN ... COMMIT
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA journal_mode = WAL")  # a killed writer leaves the last commit readable
        # WAL with NORMAL sync: never corrupt; a power cut may lose the last commits, which the
        # next `crparse index` makes again (it is a cache of the releases)
        db.execute("PRAGMA synchronous = NORMAL")
        db.executescript(SCHEMA)
        version = db.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
        if version is None:
            db.execute("INSERT INTO meta VALUES ('store_version', ?)", (str(STORE_VERSION),))
        elif int(version[0]) != STORE_VERSION:
            raise CrparseError(
                f"store version {version[0]}, this crparse reads version {STORE_VERSION}: "
                "rebuild it with `crparse index DIR --rebuild`",
                path=str(path),
            )
    except sqlite3.DatabaseError as err:
        raise CrparseError(f"not a crparse store: {err}", path=str(path)) from None
    return db


def dated_releases(db: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, date, path) of the dated releases, in date order (one per date: the first stored)."""
    rows = db.execute("SELECT id, date, path FROM releases WHERE date IS NOT NULL ORDER BY date, id").fetchall()
    out, seen = [], set()
    for rid, date, path in rows:
        if date not in seen:
            seen.add(date)
            out.append((rid, date, path))
    return out
