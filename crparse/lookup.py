"""Lookups over one document: by number, by glossary term, by line.

An explicit index object, built from a document when asked for, never stored inside it: a
document rebuilt with `msgspec.structs.replace` gets a fresh Lookup, so no answer can be stale.

    >>> import crparse
    >>> from crparse.lookup import Lookup
    >>> look = Lookup(crparse.parse("corpus/004_cbde75ccc83e26bf.txt"))
    >>> look.rule("601.14b").parent, look.at_line(look.rule("601.14b").line)
    ('601.14', '601.14b')
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from crparse.nodes import Document, GlossaryEntry, Rule, Status
from crparse.numbers import parse_number

# Tried only where a run of white space starts: .sub tries every position, and \s* from each
# one of a run scanned the rest of it (a glossary term of 40,000 spaces took 3.6 s)
_PARENTHETICAL = re.compile(r"(?<!\s)\s*+\((?:obsolete|informal)\)$", re.IGNORECASE)
_QUOTES = str.maketrans({"’": None, "‘": None, "'": None, "“": None, "”": None, '"': None, "_": None})
_WRAPPED_HYPHEN = re.compile(r"(?<=\w)- (?=\w)")  # "State- Based": a hard-wrapped line joined


@functools.lru_cache(maxsize=8192)
def normalise_title(text: str) -> str:
    """Titles and terms compare without case, quotes, italics marks and trailing punctuation."""
    text = _WRAPPED_HYPHEN.sub("-", text.translate(_QUOTES))
    return " ".join(text.casefold().split()).strip(" .,;:")


class Lookup:
    """What a document holds, indexed: numbered units, glossary names, source lines."""

    def __init__(self, doc: Document):
        self.document = doc
        self.fragment = doc.fragment
        self.rules: dict[str, Rule] = {}
        for r in doc.rules:
            self.rules.setdefault(r.number, r)
        by_kind: dict[str, list[tuple[tuple[int, int, int], str]]] = {}
        for number, r in self.rules.items():
            parsed = parse_number(number)
            if parsed is not None:
                by_kind.setdefault(r.kind, []).append((parsed.key, number))
        self._sorted = {kind: sorted(entries) for kind, entries in by_kind.items()}
        self._keys = {kind: [k for k, _ in entries] for kind, entries in self._sorted.items()}
        self.entries: dict[str, GlossaryEntry] = {}
        self.terms: dict[str, str] = {}
        for g in doc.glossary:
            self.entries.setdefault(g.term, g)
            # An entry may carry several names: "Kicker, Kicked", "Control, Controller".
            for name in (g.term, *_PARENTHETICAL.sub("", g.term).split(",")):
                self.terms.setdefault(normalise_title(name), g.term)

    # -- numbered units ---------------------------------------------------------------------

    def rule(self, number: str) -> Rule:
        """The (first) unit with this number ("704.5k", "704.5k."); KeyError if absent."""
        return self.rules[number.rstrip(".")]

    def __contains__(self, number: str) -> bool:
        return number.rstrip(".") in self.rules

    def children(self, number: str) -> Iterator[Rule]:
        return (r for r in self.document.rules if r.parent == number)

    def members(self, first: str, last: str) -> tuple[str, ...]:
        """The existing units from `first` to `last` of the same kind, in number order."""
        a, b = parse_number(first), parse_number(last)
        if a is None or b is None or a.kind != b.kind or a.key > b.key:
            return ()
        keys = self._keys.get(a.kind)
        if keys is None:  # a range of subrules in a document that has none
            return ()
        lo, hi = bisect.bisect_left(keys, a.key), bisect.bisect_right(keys, b.key)
        return tuple(n for _, n in self._sorted[a.kind][lo:hi])

    def missing(self, number: str) -> Status:
        """A fragment holds the units from its first to its last number: a missing target in
        that stretch is dangling, one outside it (or a heading the excerpt left out) external."""
        if self.fragment is None:
            return "dangling"
        parsed, first, last = parse_number(number), parse_number(self.fragment.first), parse_number(self.fragment.last)
        if parsed is None or first is None or last is None:
            return "external"
        return "dangling" if first.key <= parsed.key <= last.key else "external"

    # -- glossary -----------------------------------------------------------------------------

    def term(self, written: str) -> str | None:
        """The entry a name points to; "See also Continuous Effects." names "Continuous Effect"."""
        key = normalise_title(written)
        found = self.terms.get(key)
        if found is None and key.endswith("s"):
            found = self.terms.get(key[:-1])
        return found

    def entry(self, written: str) -> GlossaryEntry:
        """The glossary entry a name points to; KeyError if none."""
        term = self.term(written)
        if term is None:
            raise KeyError(written)
        return self.entries[term]

    # -- lines --------------------------------------------------------------------------------

    @functools.cached_property
    def _line_index(self) -> tuple[list[int], list[tuple[int, str]]]:
        spans = sorted(_node_spans(self.document))
        return [s[0] for s in spans], [(s[1], s[2]) for s in spans]

    def at_line(self, line: int) -> str | None:
        """The id of the rule or glossary entry holding a source line (its text or one of its
        examples), or None. Nodes never share a line, so the span starting last at or before
        the line is the only candidate."""
        starts, rest = self._line_index
        k = bisect.bisect_right(starts, line) - 1
        if k < 0:
            return None
        last, node = rest[k]
        return node if line <= last else None


def _node_spans(doc: Document) -> Iterator[tuple[int, int, str]]:
    for r in doc.rules:
        for first, last in r.spans:
            yield first, last, r.number
        for ex in r.examples:
            yield ex.line, ex.end_line, r.number
    for g in doc.glossary:
        node = f"glossary:{g.term}"
        for first, last in g.spans:
            yield first, last, node
        for ex in g.examples:
            yield ex.line, ex.end_line, node
