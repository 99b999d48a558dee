"""Questions the store answers without parsing: the history of a rule, where a phrase occurs,
which release a copy is, and what an old number is called now."""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from typing import NamedTuple

from crparse.dates import first_day, last_day
from crparse.decode.damage import LONE_SURROGATE
from crparse.errors import CrparseError, quoted
from crparse.limits import describe, max_input, max_paragraphs
from crparse.store.db import (INTEGER, MAYBE_TEXT, TEXT, DamagedStore, dated_releases, one, reads_store,
                              release_count_limit, rows)


class Version(NamedTuple):
    date: str
    key: str
    kind: str  # born, unchanged, changed, moved, moved+changed, split, merged
    flags: tuple[str, ...]
    text: str


class History(NamedTuple):
    lineage: str
    asked: str  # the number as asked
    at: str  # the date it was asked at
    versions: list[Version]
    end: str | None = None  # removed / merged
    ended: str | None = None  # the date of the first release without it
    born_of: str | None = None
    merged_into: str | None = None
    now: str | None = None  # another lineage that holds the asked number in the newest release

    @property
    def changes(self) -> list[Version]:
        """The versions where something happened: born, reworded, renumbered, split, merged."""
        return [v for v in self.versions if v.kind != "unchanged" or v.flags and "reference-retargeted" in v.flags]


@reads_store
def release_at(db: sqlite3.Connection, date: str | None) -> tuple[int, str]:
    """The release in force at `date` (the newest dated on or before it); the newest if None. A
    month or a year (crparse.dates): the release in force at its end."""
    releases = [r for r in dated_releases(db) if _has_lineage(db, r[0])]
    if not releases:
        from crparse.store.db import undated_said

        said = undated_said(db)
        raise CrparseError(f"the store has no lineage{said}" if said else "the store has no lineage yet: run `crparse index DIR`")
    if date is None:
        return releases[-1][0], releases[-1][1]
    date = last_day(date)
    earlier = [r for r in releases if r[1] <= date]
    if not earlier:
        raise CrparseError(f"no release on or before {date} in the store (the first is {releases[0][1]})")
    return earlier[-1][0], earlier[-1][1]


@reads_store
def release_file(db: sqlite3.Connection, date: str) -> str:
    """The file of the release in force at `date` (the newest dated on or before it), if it still
    holds the text stored: a file changed, or replaced by a link, since it was stored is refused.
    A month or a year: the release in force at its end."""
    from crparse.store.index import stored_bytes

    date = last_day(date)
    releases = [r for r in dated_releases(db) if r[1] <= date]
    if not releases:
        raise CrparseError(f"no release on or before {date} in the store")
    rid, _, path = releases[-1]
    stored_bytes(db, rid)
    return path


def _has_lineage(db: sqlite3.Connection, release: int) -> bool:
    return db.execute("SELECT 1 FROM node_lineage WHERE release = ? LIMIT 1", (release,)).fetchone() is not None


def max_history_text() -> int:
    """How much text the versions of one history may hold in all: sixteen times the input limit
    (a rule's history is about 100 versions of a few KB). Each version's text is printed (JSON),
    so a store whose releases all point a rule at one long text would multiply it."""
    return 16 * max_input()


def _text_given(value: str, what: str) -> None:
    """Refuse what SQLite cannot take as text: a NUL ended the statement, a lone surrogate is no
    UTF-8; both were said as a damaged store, to rebuild (sweep 45)."""
    if not isinstance(value, str):  # a TypeError met in the query was said as a damaged store (sweep 47)
        raise CrparseError(f"the {what} given is no text: {type(value).__name__}")
    if "\x00" in value:
        raise CrparseError(f"the {what} given holds a NUL character")
    if LONE_SURROGATE.search(value):
        raise CrparseError(f"the {what} given is not valid text (a lone surrogate)")


@reads_store
def history(db: sqlite3.Connection, key: str, at: str | None = None) -> History:
    _text_given(key, "rule or glossary key")
    given = key
    key = key.rstrip(".") if not key.startswith("glossary:") else key
    release, date = release_at(db, at)
    lookup = "SELECT lineage FROM node_lineage WHERE release = ? AND key = ?"
    row = one(db, lookup, (release, key), types=(TEXT,), what="a node's lineage")
    if row is None and not key.startswith("glossary:"):
        row = one(db, lookup + " COLLATE NOCASE", (release, f"glossary:{key}"), types=(TEXT,), what="a node's lineage")
    if row is None:
        # one no longer in the newest release is looked up in an older one (it went without a word: sweep 48)
        older = "" if at is not None else "; one gone since is found with the date of a release that held it (--at DATE)"
        raise CrparseError(f"no rule or glossary entry {quoted(given)} in the release of {date}{older}")
    lineage = row[0]
    # a lineage holds a node or two of each release (the newest corpus: 207 at most); counted
    # before they are read and sorted, as any count of a release's nodes is
    (count,) = one(db, "SELECT count(*) FROM node_lineage WHERE lineage = ?", (lineage,), types=(INTEGER,))
    if count > max_paragraphs():
        raise DamagedStore(f"the store holds {count:,} nodes in the lineage of {key}, more than {max_paragraphs():,}, "
                           "the limit (CRPARSE_MAX_PARAGRAPHS): rebuild it with `crparse index DIR --rebuild`")
    # The pair that led to each node: the first stored, as a merged node has one from each old
    # node (a store may hold any number: each would be a row, its text read again). Texts are
    # read once for each version kept, not in the sorted rows.
    found = rows(
        db,
        """SELECT r.date, n.key, t.id, p.kind, p.flags FROM node_lineage l
           JOIN nodes n ON n.release = l.release AND n.key = l.key
           JOIN texts t ON t.id = n.text
           JOIN releases r ON r.id = n.release
           LEFT JOIN pairs p ON p.rowid = (SELECT rowid FROM pairs WHERE new_release = n.release AND new_key = n.key
                                           ORDER BY rowid LIMIT 1)
           WHERE l.lineage = ? ORDER BY r.date""",
        (lineage,), types=(TEXT, TEXT, INTEGER, MAYBE_TEXT, MAYBE_TEXT), what="a version",
    )
    versions, seen, texts, size = [], set(), {}, 0
    for d, k, text_id, kind, flags in found:
        if d in seen:  # a lineage with two nodes in one release (a merge): one version
            continue
        seen.add(d)
        text = texts.get(text_id)
        if text is None:
            (text,) = one(db, "SELECT text FROM texts WHERE id = ?", (text_id,), types=(TEXT,), what="a text")
            texts[text_id] = text
        size += len(text)
        if size > max_history_text():
            raise DamagedStore(f"the versions of {key} in the store hold more than {describe(max_history_text())} of "
                               "text, the limit (16 times CRPARSE_MAX_INPUT): rebuild it with `crparse index DIR --rebuild`")
        versions.append(Version(d, k, "born" if kind is None or not versions else kind, tuple((flags or "").split()), text))
    ends = one(db, "SELECT end, born_of, merged_into FROM lineages WHERE id = ?", (lineage,),
               types=(MAYBE_TEXT, MAYBE_TEXT, MAYBE_TEXT), what="a lineage")
    if ends is None or not versions:
        raise DamagedStore(f"the store is damaged (the lineage {lineage} is not whole): "
                           "rebuild it with `crparse index DIR --rebuild`")
    end, born_of, merged_into = ends
    later = [d for _, d, _ in dated_releases(db) if d > versions[-1].date]
    ended = later[0] if end and later else None
    # the number asked may name another rule in the newest release (a stale number)
    now = one(db, "SELECT lineage FROM node_lineage WHERE release = ? AND key = ?", (release_at(db, None)[0], key),
              types=(TEXT,), what="a node's lineage")
    return History(lineage, key, date, versions, end, ended, born_of, merged_into,
                   now[0] if now is not None and now[0] != lineage else None)


class Occurrence(NamedTuple):
    lineage: str | None
    keys: list[str]  # its numbers, in order
    first: str
    last: str
    releases: int


# FTS5's time grows with a phrase's words times the positions of their matches: 200 words of a
# word every rule repeats took 21 s over a 240 MB store of 37 releases (sweep 35). A sentence of
# a rule is found by a few of its words; the longest has about 150.
MAX_PHRASE_WORDS = 50
# a word as FTS5's unicode61 tokenizer reads one: letters and digits, anything else a separator
_FTS_TOKEN = re.compile(r"[^\W_]+")


@reads_store
def search(db: sqlite3.Connection, phrase: str, *, limit: int | None = None) -> list[Occurrence]:
    """The rules whose text held `phrase` (words in order, case and punctuation ignored: FTS5
    phrase query), each with the first and last release it held it in."""
    _text_given(phrase, "phrase")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        # -1 cut the last match off, 0 gave them all (sweep 45)
        raise CrparseError(f"limit must be a number of matches, 1 or more, or None: not {limit!r}")
    words = phrase.replace('"', " ").split()
    if not words:
        raise CrparseError("nothing to search for")
    # ("the the the ..." of 20,000 words: over 15 s; see MAX_PHRASE_WORDS), counted as FTS5's
    # tokenizer counts them: "the-the-...", one word of 2,000 parts, took 16 s and 2 GB (sweep 47)
    tokens = len(_FTS_TOKEN.findall(phrase))
    if tokens > MAX_PHRASE_WORDS:
        raise CrparseError(f"a phrase of {tokens:,} words: search for at most {MAX_PHRASE_WORDS} (a few of a "
                           "rule's words find it)")
    query = '"' + " ".join(words) + '"'
    release_count_limit(db)
    found = rows(
        db,
        """SELECT l.lineage, n.key, r.date, r.id FROM texts_fts f
           JOIN nodes n ON n.text = f.rowid JOIN releases r ON r.id = n.release
           LEFT JOIN node_lineage l ON l.release = n.release AND l.key = n.key
           WHERE texts_fts MATCH ? ORDER BY r.date, n.ord""",
        (query,), types=(MAYBE_TEXT, TEXT, MAYBE_TEXT, INTEGER), what="a match",
    )
    groups: dict[str, list] = {}  # lineage -> [lineage, keys, first, last, releases]
    nodes: dict[int, int] = defaultdict(int)
    for lineage, key, date, rid in found:
        # a release holds at most as many nodes as its document paragraphs (the parser's limit)
        nodes[rid] += 1
        if nodes[rid] > max_paragraphs():
            raise DamagedStore(f"the store holds more than {max_paragraphs():,} nodes in one release, the limit "
                               "(CRPARSE_MAX_PARAGRAPHS): rebuild it with `crparse index DIR --rebuild`")
        group = groups.get(lineage or f"{date}:{key}")
        if group is None:
            groups[lineage or f"{date}:{key}"] = [lineage, [key], date or "", date or "", 1]
            continue
        if key != group[1][-1]:
            group[1].append(key)
        group[3] = date or group[3]
        group[4] += 1
    out = sorted((Occurrence(*g) for g in groups.values()), key=lambda o: (o.first, o.keys[0]))
    return out[:limit] if limit else out


class Identification(NamedTuple):
    units: int  # units of the copy
    best: list[str]  # dates of the releases matching the most units
    matched: int  # units matching each of them
    runner_up: tuple[str, int] | None
    evidence: list[tuple[str, list[str]]] = []  # (unit key, dates holding that text)


@reads_store
def identify(db: sqlite3.Connection, digests: dict[str, tuple[str, str]]) -> Identification:
    """The releases whose texts a copy matches best. `digests`: unit key -> (masked, exact)
    comparison digests (crparse.store.index.digests). Releases are ranked by the units they hold
    word for word (typography aside), then by those they hold but for renumbered citations.
    Evidence: the copy's units whose words few releases hold, the best among them."""
    holders: dict[str, set[int]] = defaultdict(set)
    for column, wanted in (("exact", {e for _, e in digests.values()}), ("digest", {d for d, _ in digests.values()})):
        wanted = list(wanted)
        for k in range(0, len(wanted), 500):
            chunk = wanted[k : k + 500]
            for release, digest in rows(
                db, f"SELECT release, {column} FROM nodes WHERE {column} IN ({','.join('?' * len(chunk))})", tuple(chunk),
                types=(INTEGER, TEXT), what="a node",
            ):
                holders[digest].add(release)
    dates = {rid: date for rid, date, _ in dated_releases(db)}
    score: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for masked, exact in digests.values():
        for release in holders.get(exact, ()):
            if release in dates:
                score[release][0] += 1
        for release in holders.get(masked, ()):
            if release in dates:
                score[release][1] += 1
    if not score:
        return Identification(len(digests), [], 0, None)
    top = max(score.values())
    best_ids = {r for r, s in score.items() if s == top}
    best = sorted(dates[r] for r in best_ids)
    others = sorted(((s, dates[r]) for r, s in score.items() if s != top), reverse=True)
    evidence = []
    for key, (_, exact) in digests.items():
        held = holders.get(exact, set()) & dates.keys()
        if held and held & best_ids and len(held) < len(dates):
            evidence.append((len(held), key, sorted(dates[r] for r in held)))
    evidence.sort()
    return Identification(
        len(digests), best, top[0], (others[0][1], others[0][0][0]) if others else None,
        [(key, held) for _, key, held in evidence[:8]],
    )


@reads_store
def current_numbers(db: sqlite3.Connection, since: str) -> tuple[dict[str, str | None], str]:
    """Every number of the release in force at `since` -> its number now (None: gone), and the
    date of the newest release: two queries, however many numbers are asked after. A month or a
    year: citations written since its start, against the release in force then."""
    release, _ = release_at(db, first_day(since))
    newest, newest_date = release_at(db, None)
    now = dict(_release_lineages(db, "SELECT lineage, key FROM node_lineage WHERE release = ?", newest))
    return {key: now.get(lineage) for key, lineage in
            _release_lineages(db, "SELECT key, lineage FROM node_lineage WHERE release = ?", release)}, newest_date


def _release_lineages(db: sqlite3.Connection, sql: str, release: int):
    """The lineage rows of one release: at most as many as a document has paragraphs."""
    return rows(db, sql, (release,), types=(TEXT, TEXT), what="nodes in one release", most=max_paragraphs(),
                limit="CRPARSE_MAX_PARAGRAPHS")


@reads_store
def current_number(db: sqlite3.Connection, key: str, since: str) -> tuple[str | None, str]:
    """What the rule numbered `key` in the release in force at `since` is numbered now (None:
    it is gone), and the date of the newest release. A month or a year: since its start."""
    release, _ = release_at(db, first_day(since))
    row = one(db, "SELECT lineage FROM node_lineage WHERE release = ? AND key = ?", (release, key), types=(TEXT,))
    newest, newest_date = release_at(db, None)
    if row is None:
        return None, newest_date
    now = one(db, "SELECT key FROM node_lineage WHERE release = ? AND lineage = ?", (newest, row[0]), types=(TEXT,))
    return (now[0] if now else None), newest_date
