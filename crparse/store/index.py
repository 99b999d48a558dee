"""`crparse index DIR`: the store built from a directory of releases, incrementally.

Three stages, each committed in small transactions, so that a run killed at any point leaves a
usable store and the next run goes on where it stopped:

1. **releases**: each file whose fingerprint the store lacks (its sha256; a reST edition's with
   its chapters: crparse.fingerprint) is parsed and stored with its nodes, references and
   full-text index (one transaction per release);
2. **pairs**: each two consecutive dated releases not yet aligned are aligned (one transaction
   per pair of releases);
3. **lineage**: when anything changed, the lineages are chained again from the stored pairs
   (crparse.lineage.link: no parsing) and written in one transaction.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from crparse.align import Pair, align
from crparse.align.units import Prepared, Unit, prepare, prepared, restore, units
from crparse.errors import CrparseError
from crparse.fingerprint import Unwalked, fingerprint
from crparse.inputs import Unread, file_kind, inputs, many_paths, read_regular, resolved
from crparse.limits import max_input, max_paragraphs
from crparse.lineage import Release, link
from crparse.nodes import Document
from crparse.parallel import parse_all
from crparse.pipeline import parse
from crparse.refs import references
from crparse.store.db import (INTEGER, MAYBE_TEXT, NUMBER, PATH, TEXT, dated_releases, from_db_path, one, reads_store,
                              release_count_limit, rows, to_db_path, transaction)

Progress = Callable[[str, int, int], None]  # stage, done, total


@dataclass
class Report:
    added: list[str] = field(default_factory=list)  # paths parsed and stored
    known: int = 0  # files already in the store
    refused: list[str] = field(default_factory=list)  # one-line messages: inputs refused or not read (exit status 2)
    passed_over: list[str] = field(default_factory=list)  # what a walk met that is no document (a FIFO): said only
    undated: list[str] = field(default_factory=list)
    same_date: list[str] = field(default_factory=list)  # "DATE: 2 different texts (...)": one date, several releases
    repeated: list[str] = field(default_factory=list)  # "PATH: 702.30d, ...": units after the first of their key, not stored
    moved: int = 0  # releases already stored, their path updated to where their file is now
    gone: list[str] = field(default_factory=list)  # paths of stored releases whose text is no longer there: dropped
    aligned: int = 0  # pairs of releases aligned in this run
    lineages: int | None = None  # lineages written (None: nothing changed)


def digests(us: list[Unit]) -> list[tuple[str, str]]:
    """The two comparison digests of each unit: its text with typography folded and cited
    numbers masked (the same rule, renumbered citations aside), and with typography folded only
    (the same words: what tells two releases apart). units.prepare runs on all units here; the
    alignment then finds them prepared."""
    prepare(us)
    return [(hashlib.sha1(u.masked.encode("utf-8")).hexdigest(), hashlib.sha1(u.folded.encode("utf-8")).hexdigest())
            for u in us]


@reads_store
def stored_bytes(db: sqlite3.Connection, release: int) -> bytes:
    """The bytes of a stored release, read again from its file: only if they are still the bytes
    stored (the same sha256). A file changed or replaced since (another text, a link to another
    file) is refused: the store would otherwise speak of one text and show another."""
    row = one(db, "SELECT path, sha256 FROM releases WHERE id = ?", (release,), types=(PATH, TEXT), what="a release")
    if row is None:
        raise CrparseError(f"no release {release} in the store")
    path, sha = from_db_path(row[0]), row[1]
    try:
        return _bytes_at(path, sha)
    except CrparseError as why:
        if os.path.isabs(path):
            raise
        # stores written before paths were kept absolute hold them as `index` was given them:
        # they read only from the directory it ran in, which the store does not know
        raise CrparseError(f"{why.message} (the store holds this path relative to the directory `crparse index` "
                           "ran in, not to this one: run `crparse index` on the releases again, from anywhere, to "
                           "store where they are)", path=path) from None


def _bytes_at(path: str, sha: str) -> bytes:
    """The bytes of the file at `path` if they are the bytes stored as `sha`; refused otherwise,
    saying why."""
    # The path is the store's word, not the user's. read_regular opens no FIFO or device; a file
    # the kernel makes up (/proc/self/environ, /sys) passes for a regular file of 0 bytes, and a
    # release is never empty: none is opened.
    try:
        status = os.stat(path)
        empty = file_kind(status.st_mode) is None and status.st_size == 0
    except (OSError, ValueError):
        empty = False  # read_regular says why it cannot be read
    if empty:
        raise CrparseError("the stored release cannot be read again: an empty file", path=path)
    try:
        raw = read_regular(path, max_input())
        # a reST edition's chapters too: parsing the index reads them again. A store written
        # before editions were known by their chapters holds its index's sha256: taken as it was
        # (`index` reads such an edition again, and stores it by its fingerprint).
        same = sha in (fingerprint(path, data=raw), hashlib.sha256(raw).hexdigest())
    except Unwalked as why:
        raise _Unchecked(f"the stored release cannot be checked: {why.reason}", path=path) from None
    except Unread as why:
        raise CrparseError(f"the stored release cannot be read again: {why.reason}", path=path) from None
    if not same:
        raise CrparseError("the file changed since it was stored: run `crparse index` on its directory again",
                           path=path)
    return raw


class _Unchecked(CrparseError):
    """A stored release whose file is there but could not be checked in this run (its
    directory's tree not walked for its fingerprint: crparse.fingerprint.Unwalked)."""


def _holds(path: str, sha: str) -> bool:
    """Whether the file at `path` still holds the release stored as `sha`; one that cannot be
    checked in this run is taken to: kept, not dropped as gone on a guess (400 unchanged releases
    were dropped so: sweep 33)."""
    try:
        _bytes_at(path, sha)
    except _Unchecked:
        return True
    except CrparseError:
        return False
    return True


def stored_path(path: str) -> str:
    """Where a release is, as the store keeps it: absolute, so that every command finds it from
    any directory (the default store is shared by all of them). The directories are resolved as
    the kernel resolves them (`..` after a link to a directory leads where the link leads); the
    file's own name is kept, a link among the releases stored as the link: reading it again
    follows it and checks the bytes (stored_bytes), whatever it leads to then."""
    head, name = os.path.split(path)
    try:
        return os.path.join(resolved(head or os.curdir), name)
    except (OSError, ValueError):  # the working directory removed since the file was read
        return path


def index(db: sqlite3.Connection, paths: Iterable[str], *, progress: Progress | None = None) -> Report:
    """Store the releases `paths` name (files, directories) that the store does not hold yet,
    and align them with their neighbours; what a run of them shares (the fingerprints of
    directories) is found once (crparse.readers.runs), for a caller outside a command too."""
    from crparse.readers.runs import one_run

    listed = many_paths(paths, "index(db, [path])")  # "/" walked the disk (sweep 35)
    with one_run():
        return _index(db, listed, progress)


def _index(db: sqlite3.Connection, paths: Iterable[str], progress: Progress | None) -> Report:
    report = Report()
    files = []
    for item in inputs(paths):
        if item.skipped is None:
            files.append(item)
        else:  # a FIFO, a device, a link out of the directory: said, never opened
            (report.refused if item.refused else report.passed_over).append(f"{item.path}: skipped: {item.skipped}")
    dated_releases(db)  # a store of too many releases, or of dates that are not text, is refused
    stored: dict[str, tuple[int, str]] = {}  # sha256 -> (release, its path)
    stored_at: dict[str, list[tuple[int, str]]] = {}
    for rid, path, sha in rows(db, "SELECT id, path, sha256 FROM releases", types=(INTEGER, PATH, TEXT), what="a release"):
        stored[sha] = (rid, from_db_path(path))
        stored_at.setdefault(from_db_path(path), []).append((rid, sha))
    known = set(stored)
    todo: list[tuple[str, str, str]] = []
    changed: set[int] = set()
    found_at: dict[int, list[str]] = {}  # stored releases met among the files, and where
    copies: dict[str, list[str]] = {}  # sha256 -> the other files of the same bytes as one to read
    for f in files:
        try:
            sha = fingerprint(f.path)  # each edition's directory hashed once a run (crparse.fingerprint)
        except Unread as why:
            report.refused.append(f"{f.path}: {why.reason}")
            continue
        where = stored_path(f.path)
        # a file whose content changed since it was stored: its old release goes (the store
        # holds what the files hold; a path read again must give the text stored for it). A
        # relative path is an older store's, as `index` was given it: matched as given.
        rows_here = stored_at.get(where, []) + [row for row in stored_at.get(f.path, []) if not os.path.isabs(f.path)]
        changed.update(rid for rid, old in rows_here if old != sha)
        if sha in stored:
            found_at.setdefault(stored[sha][0], []).append(where)
        if sha in stored:
            report.known += 1
        elif sha in known:  # a copy of a file read in this run: stored, or refused, with it
            copies.setdefault(sha, []).append(f.path)
        else:
            todo.append((f.path, where, sha))
            known.add(sha)
    moved = _moved(stored, found_at)
    report.moved = len(moved)
    if moved:
        with transaction(db):
            db.executemany("UPDATE releases SET path = ? WHERE id = ?", [(to_db_path(p), rid) for rid, p in moved.items()])
    # a release whose bytes are found at another path has moved, not gone
    replaced = sorted(changed - found_at.keys())
    # a release met nowhere whose file no longer holds its text (removed, replaced by a FIFO): it
    # could not be read again to align its neighbours with, every later run failed so, and the
    # lineage stayed half made (sweep 29). An older store's relative path is left as it is.
    gone = sorted((rid, path) for sha, (rid, path) in stored.items()
                  if rid not in found_at and rid not in changed and os.path.isabs(path) and not _holds(path, sha))
    report.gone = [path for _, path in gone]
    if replaced or gone:
        _forget(db, replaced + [rid for rid, _ in gone])
    # Files in name order (for dated names, date order): each release is aligned with the one
    # before it while both are still parsed (the cache), not parsed again for the pairs.
    cache: dict[int, tuple[Document, list[Unit]]] = {}
    chain: _Chain | None = None
    todo.sort()
    for n, ((path, where, sha), found) in enumerate(
            zip(todo, parse_all((path for path, _, _ in todo), then=_derived, share=False)), 1):
        if isinstance(found, CrparseError):
            report.refused.append(str(found.located(path)))
            # its copies were counted as stored, and the store held none (sweep 13)
            report.refused += [f"{copy}: the same bytes as {path}, refused" for copy in copies.pop(sha, ())]
            continue
        report.known += len(copies.pop(sha, ()))
        doc, (fields, refs) = found
        us = units(doc)
        restore(us, fields)
        release = _store_release(db, doc, us, refs, sha, where)
        seen: set[str] = set()
        again = list(dict.fromkeys(u.key for u in us if u.key in seen or seen.add(u.key)))
        if again:  # the store keys a release's units by number: the CR's own slips (two 702.30d in 2009)
            report.repeated.append(f"{path}: {', '.join(again[:5])}{', ...' if len(again) > 5 else ''}")
        cache[release] = (doc, us)
        report.added.append(path)
        if doc.effective_date is None:
            report.undated.append(path)
        # the store is read once, as the first release left it; each later one is placed in it
        # (reading every release and step again for each made a run quadratic in the releases)
        if chain is None:
            chain = _Chain(db)
        else:
            chain.add(release, doc.effective_date, where)
        report.aligned += _align_steps(db, chain, cache, report.refused)
        if progress:
            progress("parse", n, len(todo))
    report.aligned += _align_steps(db, chain or _Chain(db), cache, report.refused, progress)
    if report.added or report.aligned or _lineage_missing(db):
        report.lineages = _write_lineages(db)
    # Two texts of one date: lineage, history and diff follow the first stored; said on each run,
    # as long as the store holds both (it was said nowhere: sweep 14)
    for date, paths in _same_dates(db):
        report.same_date.append(f"{date}: {len(paths)} different texts ({', '.join(paths[:3])}"
                                f"{', ...' if len(paths) > 3 else ''}): lineage follows the first stored")
    return report


def _same_dates(db: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    found: dict[str, list[str]] = {}
    for date, path in db.execute("SELECT date, path FROM releases WHERE date IN (SELECT date FROM releases WHERE date "
                                 "IS NOT NULL GROUP BY date HAVING count(*) > 1) ORDER BY date, id LIMIT 1000"):
        found.setdefault(str(date), []).append(str(from_db_path(path)))
    return list(found.items())


def _moved(stored: dict[str, tuple[int, str]], found_at: dict[int, list[str]]) -> dict[int, str]:
    """The new path of each stored release met among the files elsewhere than its stored path
    when that path no longer holds its bytes (the releases moved, the store written by an older
    crparse with a relative path): a path that still holds them is kept, a relative one never."""
    moved = {}
    for sha, (rid, path) in stored.items():
        paths = found_at.get(rid)
        if paths and path not in paths and not (os.path.isabs(path) and _holds(path, sha)):
            moved[rid] = paths[0]
    return moved


def _derived(doc: Document) -> tuple[list[Prepared], list[tuple[str, str, str | None, str]]]:
    """What a release's rows need besides its tree, computed where it was parsed (a worker
    process): its units' folded and masked texts, and its references (source, text, target,
    status), one row per target."""
    return prepared(units(doc)), [(r.source, r.text, t, r.status) for r in references(doc) for t in (r.targets or (None,))]


def _forget(db: sqlite3.Connection, releases: list[int]) -> None:
    """Remove releases whose files changed, with their nodes, references and pairs (and the steps
    that aligned them, so their neighbours are aligned again)."""
    with transaction(db):
        for rid in releases:
            db.execute("DELETE FROM steps WHERE old_release = ? OR new_release = ?", (rid, rid))
            db.execute("DELETE FROM node_lineage WHERE release = ?", (rid,))
            db.execute("DELETE FROM releases WHERE id = ?", (rid,))


def _store_release(db: sqlite3.Connection, doc: Document, us: list[Unit], refs: list[tuple], sha: str, where: str) -> int:
    kinds = {r.number: r.kind for r in doc.rules}
    with transaction(db):
        cur = db.execute(
            "INSERT INTO releases (path, sha256, date, format, nodes) VALUES (?, ?, ?, ?, ?)",
            (to_db_path(where), sha, doc.effective_date, doc.source.format, len(us)),
        )
        release = cur.lastrowid
        text_ids = _texts(db, [u.text for u in us])
        nodes = [(release, u.key, kinds.get(u.key, "glossary"), u.order, t, d, e)
                 for u, t, (d, e) in zip(us, text_ids, digests(us))]
        db.executemany("INSERT OR IGNORE INTO nodes (release, key, kind, ord, text, digest, exact) VALUES (?, ?, ?, ?, ?, ?, ?)", nodes)
        db.executemany("INSERT INTO refs (release, source, text, target, status) VALUES (?, ?, ?, ?, ?)",
                       [(release, *row) for row in refs])
    return release


def _texts(db: sqlite3.Connection, texts: list[str]) -> list[int]:
    """The ids of `texts` in the texts table, the new ones inserted and full-text indexed."""
    hashes = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    known: dict[str, int] = {}
    unique = list(dict.fromkeys(hashes))
    for k in range(0, len(unique), 500):
        chunk = unique[k : k + 500]
        known.update(rows(db, f"SELECT sha1, id FROM texts WHERE sha1 IN ({','.join('?' * len(chunk))})", tuple(chunk),
                          types=(TEXT, INTEGER), what="a text"))
    (last,) = one(db, "SELECT coalesce(max(id), 0) FROM texts", types=(INTEGER,))
    for h, t in zip(hashes, texts):
        if h not in known:
            known[h] = db.execute("INSERT INTO texts (sha1, text) VALUES (?, ?)", (h, t)).lastrowid
    db.execute("INSERT INTO texts_fts (rowid, text) SELECT id, text FROM texts WHERE id > ?", (last,))
    return [known[h] for h in hashes]


class _Chain:
    """The dated releases in date order (one per date: the first stored, as dated_releases reads
    them) and the steps stored between them, kept by one run as it stores releases: which steps a
    new release makes obsolete and which pairs it makes wanted follow from its two neighbours."""

    def __init__(self, db: sqlite3.Connection):
        self.releases = dated_releases(db)
        self.dates = [date for _, date, _ in self.releases]
        (self.count,) = one(db, "SELECT count(*) FROM releases", types=(INTEGER,))
        self.db = db
        self.done = set(rows(db, "SELECT old_release, new_release FROM steps", types=(INTEGER, INTEGER), what="a step"))
        consecutive = {(a[0], b[0]): (a, b) for a, b in zip(self.releases, self.releases[1:])}
        self.obsolete = self.done - consecutive.keys()  # a release stored between two aligned ones parts them
        self.wanted = {step: pair for step, pair in consecutive.items() if step not in self.done}

    def add(self, release: int, date: str | None, path: str) -> None:
        """Place a release just stored. Its id is above every stored one (a rowid), so where its
        date is held already, the release stored first keeps the date."""
        self.count += 1
        release_count_limit(self.db, self.count)
        if date is None:
            return
        at = bisect.bisect_left(self.dates, date)
        if at < len(self.dates) and self.dates[at] == date:
            return
        new = (release, date, path)
        before = self.releases[at - 1] if at > 0 else None
        after = self.releases[at] if at < len(self.releases) else None
        self.releases.insert(at, new)
        self.dates.insert(at, date)
        if before and after:
            parted = (before[0], after[0])
            self.wanted.pop(parted, None)
            if parted in self.done:
                self.obsolete.add(parted)
        for a, b in ((before, new), (new, after)):
            if a and b and (a[0], b[0]) not in self.done:
                self.wanted[a[0], b[0]] = (a, b)

    def take(self) -> tuple[set[tuple[int, int]], list[tuple[tuple, tuple]]]:
        """The steps to drop and the pairs to align (in date order), counted as done from here
        (a pair that fails to align is `left`)."""
        obsolete, wanted = self.obsolete, sorted(self.wanted.values(), key=lambda pair: pair[0][1])
        self.done -= obsolete
        self.done.update(self.wanted)
        self.obsolete, self.wanted = set(), {}
        return obsolete, wanted

    def left(self, pair: tuple[tuple, tuple]) -> None:
        """A pair not aligned in this run: the lineage stops before it, and the next run aligns it."""
        self.done.discard((pair[0][0], pair[1][0]))


class _NotLoaded(Exception):
    """A release of a pair that could not be parsed again: its refusal, naming its file."""

    def __init__(self, error: CrparseError):
        self.error = error


def _align_steps(db: sqlite3.Connection, chain: _Chain, cache: dict[int, tuple[Document, list[Unit]]],
                 refused: list[str], progress: Progress | None = None) -> int:
    """Align the consecutive dated releases not yet aligned; `cache` holds parsed releases by
    id (a few at most: older ones are dropped). A pair whose release cannot be parsed again
    (its file changed, the run's budget for reads again spent) is said in `refused` and left
    for the next run: it ended the run, with releases left unstored and no lineage (sweep 37)."""
    obsolete, wanted = chain.take()
    if obsolete:
        with transaction(db):
            db.executemany("DELETE FROM pairs WHERE old_release = ? AND new_release = ?", obsolete)
            db.executemany("DELETE FROM steps WHERE old_release = ? AND new_release = ?", obsolete)

    def load(release: tuple[int, str, str]) -> tuple[Document, list[Unit]]:
        parsed = cache.pop(release[0], None)
        if parsed is None:
            try:
                doc = parse(stored_bytes(db, release[0]), path=release[2])
            except CrparseError as why:
                raise _NotLoaded(why.located(release[2])) from None
            parsed = (doc, units(doc))
        cache[release[0]] = parsed  # the most recently used last
        while len(cache) > 3:
            del cache[next(iter(cache))]
        return parsed

    aligned = 0
    for n, (a, b) in enumerate(wanted, 1):
        try:
            (old, old_units), (new, new_units) = load(a), load(b)
        except _NotLoaded as why:
            chain.left((a, b))
            refused.append(f"{why.error}: so {a[2]} and {b[2]} were not aligned in this run (`crparse index` aligns "
                           "them when run again)")
            if progress:
                progress("align", n, len(wanted))
            continue
        aligned += 1
        pairs = align(old, new, old_units=old_units, new_units=new_units).pairs
        with transaction(db):
            db.execute("DELETE FROM pairs WHERE old_release = ? AND new_release = ?", (a[0], b[0]))
            db.executemany(
                "INSERT INTO pairs VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(a[0], b[0], p.old, p.new, p.kind, " ".join(p.flags), p.similarity) for p in pairs],
            )
            db.execute("INSERT INTO steps VALUES (?, ?)", (a[0], b[0]))
        if progress:
            progress("align", n, len(wanted))
    return aligned


def _lineage_missing(db: sqlite3.Connection) -> bool:
    chained = {r for (r,) in rows(db, "SELECT DISTINCT release FROM node_lineage", types=(INTEGER,), what="a node's lineage")}
    return any(rid not in chained for rid, _, _ in dated_releases(db))


@reads_store
def _write_lineages(db: sqlite3.Connection) -> int:
    """Chain the lineages from the stored pairs; only the releases linked by stored pairs from the
    first on (a run killed before aligning the rest leaves them for the next)."""
    releases = dated_releases(db)
    steps_done = set(rows(db, "SELECT old_release, new_release FROM steps", types=(INTEGER, INTEGER), what="a step"))
    chained = releases[:1]
    for a, b in zip(releases, releases[1:]):
        if (a[0], b[0]) not in steps_done:
            break
        chained.append(b)
    if not chained:
        return 0
    # a release holds at most as many nodes as its document paragraphs, a step a pair for each
    # node of either release at most
    keys = [[k for (k,) in rows(db, "SELECT key FROM nodes WHERE release = ? ORDER BY ord", (r[0],), types=(TEXT,),
                                what="nodes in one release", most=max_paragraphs(), limit="CRPARSE_MAX_PARAGRAPHS")]
            for r in chained]
    steps = [
        [Pair(o, n, kind, tuple(flags.split()), sim) for o, n, kind, flags, sim in rows(
            db, "SELECT old_key, new_key, kind, flags, similarity FROM pairs WHERE old_release = ? AND new_release = ? "
            "ORDER BY rowid", (a[0], b[0]), types=(MAYBE_TEXT, MAYBE_TEXT, TEXT, TEXT, NUMBER),
            what="pairs of two releases", most=2 * max_paragraphs(), limit="twice CRPARSE_MAX_PARAGRAPHS")]
        for a, b in zip(chained, chained[1:])
    ]
    result = link([Release(date, path) for _, date, path in chained], keys, steps)
    ids = [r[0] for r in chained]
    with transaction(db):
        db.execute("DELETE FROM lineages")
        db.executemany(
            "INSERT INTO lineages VALUES (?, ?, ?, ?, ?, ?)",
            [(lid, ids[l.steps[0].release], l.steps[0].key, l.end, l.born_of, l.merged_into) for lid, l in result.lineages.items()],
        )
        # dropped and bulk-loaded, its indexes built after: updating 290,000 rows in place
        # takes five times as long
        db.execute("DROP INDEX IF EXISTS node_lineage_key")
        db.execute("DROP INDEX IF EXISTS node_lineage_id")
        db.execute("DELETE FROM node_lineage")
        db.executemany("INSERT INTO node_lineage VALUES (?, ?, ?)",
                       ((release, key, lid) for release, mapping in zip(ids, result.at) for key, lid in mapping.items()))
        db.execute("CREATE UNIQUE INDEX node_lineage_key ON node_lineage (release, key)")
        db.execute("CREATE INDEX node_lineage_id ON node_lineage (lineage)")
    return len(result.lineages)
