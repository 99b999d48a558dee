"""Citations -> references: each cited item checked against the same document.

A missing target is `external` when the document is a fragment and the target lies outside
the stretch from its first to its last number, `dangling` otherwise. A range names each existing member between its
endpoints (so it skips the letters l and o, which no release uses); both endpoints must exist.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

import msgspec

from crparse.collector import collector_paused
from crparse.lookup import Lookup, normalise_title
from crparse.nodes import Cited, Document, Reference, Status
from crparse.errors import RefusedInput
from crparse.limits import max_anchors, max_cited, max_references, too_many_anchors, too_many_cited, too_many_references
from crparse.refs.grammar import Citation, Item, TooManyAnchors, iter_phrases, moved, pointers

_TERM_MARKS = " “”\"'.,"


def _worst(statuses) -> Status:
    statuses = set(statuses)
    return "dangling" if "dangling" in statuses else "external" if "external" in statuses else "resolved"


def cite_item(item: Item, text: str, targets: Lookup) -> Cited:
    written = text[item.start : item.end]
    if item.first == item.last:
        rule = targets.rules.get(item.first)
        status: Status = "resolved" if rule is not None else targets.missing(item.first)
        matches = None
        if item.title is not None and rule is not None and rule.title:
            matches = normalise_title(item.title) == normalise_title(rule.title)
        kind = "section" if item.kind == "section" else "rule"
        nodes = (item.first,) if rule is not None else ()
        return Cited(written, kind, item.first, item.last, nodes, status, item.title, matches)
    ends = [n for n in (item.first, item.last) if n not in targets.rules]
    status = _worst(targets.missing(n) for n in ends) if ends else "resolved"
    members = targets.members(item.first, item.last)
    if not members and not ends:  # endpoints exist but are not a range (reversed, mixed kinds)
        status = "dangling"
    return Cited(written, "range", item.first, item.last, members, status, item.title, None)


# No entry name of any release splits into more than three terms ("Remove from the Game,
# Removed, Removed-from-the-Game Zone"): rejoining at most four keeps a pointer of many terms
# from costing the square of its length.
_REJOINED = 4


def _cite_terms(citation: Citation, text: str, targets: Lookup) -> tuple[Cited, ...]:
    """Neighbouring terms are rejoined when together they name an entry ("Life, Life Total")."""
    items = citation.items
    out: list[Cited] = []
    i = 0
    while i < len(items):
        for j in range(min(len(items), i + _REJOINED) - 1, i - 1, -1):
            written = text[items[i].start : items[j].end]
            term = targets.term(written)
            if term is not None or j == i:
                break
        node = f"glossary:{term if term is not None else written.strip(_TERM_MARKS)}"
        status: Status = "resolved" if term is not None else "dangling"
        out.append(Cited(written, "glossary", node, node, (node,) if term else (), status))
        i = j + 1
    return tuple(out)


# "the Archenemy casual variant (see rule 811)": the name before a parenthetical "see rule N"
# stands for the target's title. Only names are checked (capitalised words inside a sentence):
# common words ("Like prevention effects") say too little to judge.
_BEFORE_SEE = re.compile(r"((?:[\w’'-]+\s+){1,4})\((?:see|See)\s+$")
_NOT_NAMES = {"Magic", "I"}


def _named_before(text: str, start: int) -> list[str]:
    m = _BEFORE_SEE.search(text, max(0, start - 80), start)
    if m is None:
        return []
    names = []
    for w in re.finditer(r"[\w’'-]+", m.group(1)):
        word = w.group().strip("_")
        sentence_start = _last_mark(text, m.start(1) + w.start()) in ".!?:;(\"“”"
        if word[:1].isupper() and not sentence_start and word not in _NOT_NAMES:
            names.append(word)
    return names


def _last_mark(text: str, end: int) -> str:
    """The last non-blank character before `end` ("" at the start of the text), looking back
    over a bounded window first: the text before may be long."""
    window = text[max(0, end - 64) : end].rstrip()
    if not window and end > 64:
        window = text[:end].rstrip()
    return window[-1:]


def _check_context(cited: Cited, text: str, citation: Citation, targets: Lookup) -> Cited:
    if cited.title is not None or cited.status != "resolved" or cited.kind == "range":
        return cited
    if not text.startswith(")", citation.end):
        return cited
    names = _named_before(text, citation.start)
    if not names:
        return cited
    rule = targets.rules[cited.first]
    section = targets.rules.get(cited.first.split(".")[0])
    hay = " ".join((rule.title, rule.text, section.title if section else "")).casefold()
    matches = all(n.casefold() in hay for n in names)
    return msgspec.structs.replace(cited, title=" ".join(names), title_matches=matches)


def _reference(source, field, example, text, citation, cited, line) -> Reference:
    flags = ("title-mismatch",) if any(c.title_matches is False for c in cited) else ()
    return Reference(
        source,
        field,
        example,
        citation.start,
        citation.end,
        text[citation.start : citation.end],
        line,
        cited,
        _worst(c.status for c in cited),
        flags,
    )


_BREAK = re.compile("\n")


def _breaks(text: str) -> list[int]:
    """The offsets of the line breaks in `text`, for bisect: counting them again for every
    reference is quadratic on a line with many."""
    return [m.start() for m in _BREAK.finditer(text)] if "\n" in text else []


def _line_of(spans, text: str, default: int) -> Callable[[int], int]:
    """The first line of the paragraph holding an offset. A node's text is its paragraphs joined
    by line breaks; its spans may start with the heading line when that holds no text."""
    breaks = _breaks(text)
    shift = len(spans) - (len(breaks) + 1)

    def line(offset: int) -> int:
        k = bisect.bisect_left(breaks, offset) + shift
        return spans[k][0] if shift in (0, 1) and 0 <= k < len(spans) else default

    return line


def _lines_from(first: int, text: str) -> Callable[[int], int]:
    """The line of an offset in a block whose lines follow each other from `first`."""
    breaks = _breaks(text)
    return lambda offset: first + bisect.bisect_left(breaks, offset)


class _Segment(NamedTuple):
    source: str
    field: str
    example: int | None
    text: str
    line_of: Callable[[int], int]
    glossary: bool = False


def _segments(doc: Document) -> Iterator[_Segment]:
    for i, b in enumerate(doc.front_matter):
        yield _Segment(f"front_matter:{i}", "text", None, b.text, _lines_from(b.line, b.text))
    for r in doc.rules:
        if r.text:
            yield _Segment(r.number, "text", None, r.text, _line_of(r.spans, r.text, r.line))
        for k, ex in enumerate(r.examples):
            yield _Segment(r.number, "example", k, ex.text, lambda o, ex=ex: ex.line)
    for g in doc.glossary:
        source = f"glossary:{g.term}"
        if g.text:
            yield _Segment(source, "text", None, g.text, _line_of(g.spans, g.text, g.line), True)
        for k, ex in enumerate(g.examples):
            yield _Segment(source, "example", k, ex.text, lambda o, ex=ex: ex.line)


def _shifted(citation: Citation, by: int) -> Citation:
    items = tuple(moved(i, -by) for i in citation.items)
    return Citation(citation.start - by, citation.end - by, items)


def references(doc: Document) -> tuple[Reference, ...]:
    """Every reference in the document, in document order, resolved against it. More than
    `crparse.limits.max_references()` is refused (RefusedInput, naming the line)."""
    with collector_paused():
        try:
            return _references(doc)
        except RefusedInput as err:
            if err.line is not None:  # a document line: name the file of an edition that holds it
                err.path, err.line = doc.source.locate(err.line)
            raise err.located(doc.source.path)


def _references(doc: Document) -> tuple[Reference, ...]:
    targets = Lookup(doc)
    segments = list(_segments(doc))
    # One scan over all texts joined: no reference crosses a line break, and one call instead
    # of thousands is most of the speed.
    offsets, at = [], 0
    for seg in segments:
        offsets.append(at)
        at += len(seg.text) + 1
    found: list[tuple[int, Citation, tuple[Cited, ...]]] = []
    limit, cited_limit, cited_total = max_references(), max_cited(), 0
    phrases = iter_phrases("\n".join(seg.text for seg in segments), max_anchors=max_anchors())
    try:
        for c in phrases:
            k = bisect.bisect_right(offsets, c.start) - 1
            c = _shifted(c, offsets[k])
            text = segments[k].text
            cited = tuple(cite_item(i, text, targets) for i in c.items)
            if len(cited) == 1:
                cited = (_check_context(cited[0], text, c, targets),)
            found.append((k, c, cited))
            cited_total += sum(max(1, len(x.nodes)) for x in cited)  # a missing target costs its reading too
            if len(found) > limit:  # counted as they are read: a refusal costs no more than the limit
                raise RefusedInput(too_many_references(limit), line=segments[k].line_of(c.start))
            if cited_total > cited_limit:
                raise RefusedInput(too_many_cited(cited_limit), line=segments[k].line_of(c.start))
    except TooManyAnchors as flood:
        k = bisect.bisect_right(offsets, flood.offset) - 1
        raise RefusedInput(too_many_anchors(flood.limit), line=segments[k].line_of(flood.offset - offsets[k])) from None
    for k, seg in enumerate(segments):
        if seg.glossary:
            for c in pointers(seg.text):
                cited = _cite_terms(c, seg.text, targets)
                found.append((k, c, cited))
                # the terms a pointer names count as rules cited do: 24,000 "See also" of 17 terms
                # made a graph of 400,000 edges (20 s as GraphML: sweep 12)
                cited_total += sum(max(1, len(x.nodes)) for x in cited)
                if cited_total > cited_limit:
                    raise RefusedInput(too_many_cited(cited_limit), line=seg.line_of(c.start))
            if len(found) > limit:
                raise RefusedInput(too_many_references(limit), line=seg.line_of(0))
    found.sort(key=lambda f: (f[0], f[1].start))
    out = []
    for k, citation, cited in found:
        seg = segments[k]
        out.append(_reference(seg.source, seg.field, seg.example, seg.text, citation, cited, seg.line_of(citation.start)))
    for entry in doc.index:
        for citation in iter_phrases(entry.locators, bare=True):
            cited = tuple(cite_item(i, entry.locators, targets) for i in citation.items)
            out.append(_reference(f"index:{entry.term}", "locators", None, entry.locators, citation, cited, entry.line))
            cited_total += sum(max(1, len(x.nodes)) for x in cited)  # a missing target costs its reading too
            if cited_total > cited_limit:
                raise RefusedInput(too_many_cited(cited_limit), line=entry.line)
            if len(out) > limit:
                raise RefusedInput(too_many_references(limit), line=entry.line)
    return tuple(out)

