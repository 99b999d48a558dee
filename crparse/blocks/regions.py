"""Landmarks: where the front matter, Contents, body, glossary, index and credits lie.

The grammar cannot find these by itself: the Contents repeats every part and section heading and
lists "Glossary" and "Credits" before the real ones, so telling them apart needs to look ahead to
the first numbered rule. That lookahead is done once here, on the raw lines, and the regions are
handed to the tokenizer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from crparse import shapes as C

# Hard-wrapped releases (1999-04-23, 2001-2002, 2003-10-01..2004-02-01) wrap at 78-142 columns;
# one-paragraph-per-line releases have lines of 800+ characters. In wrapped text about half the
# lines break mid-sentence (no closing punctuation, the next line goes on in lower case); in
# unwrapped text almost none do (2 of 1,335 lines in 2002-10-07).
WRAP_MAX_WIDTH = 160
WRAP_MIN_BREAKS = 0.1
_SENTENCE_END = frozenset(".!?:\"\u201d)")


@dataclass(frozen=True, slots=True)
class Regions:
    """Half-open [start, end) line-index ranges; a heading line opens its region."""

    hard_wrapped: bool
    first_rule: int
    front: tuple[int, int]
    contents: tuple[int, int] | None
    body: tuple[int, int]
    glossary: tuple[int, int] | None
    index: tuple[int, int] | None
    credits: tuple[int, int] | None


def is_hard_wrapped(lines: Sequence[str]) -> bool:
    nonblank = 0
    breaks = 0
    previous = ""
    for line in lines:
        if len(line) > WRAP_MAX_WIDTH:
            return False
        stripped = line.strip()
        if stripped:
            nonblank += 1
            if previous and previous[-1] not in _SENTENCE_END and stripped[0].islower():
                breaks += 1
        previous = stripped
    return nonblank > 0 and breaks / nonblank >= WRAP_MIN_BREAKS


def rule_starts(lines: Sequence[str], hard_wrapped: bool) -> Iterator[int]:
    """Indices of the lines that open a numbered rule. In wrapped text only a line after a
    blank line can (a wrapped cross-reference can put "103.4." at the start of a line), except
    for the "601.2a - " form, which no cross-reference takes."""
    previous_blank = True
    for i, line in enumerate(lines):
        if line.lstrip()[:1].isdigit() and (previous_blank or not hard_wrapped or C.opens_rule_anywhere(line)):
            if C.RULE.match(line):
                yield i
        previous_blank = C.is_blank(line)


def find_first_rule(lines: Sequence[str], hard_wrapped: bool) -> int | None:
    return next(rule_starts(lines, hard_wrapped), None)


def find_regions(lines: Sequence[str], first_rule: int, hard_wrapped: bool) -> Regions:
    n = len(lines)
    body_start = _body_start(lines, first_rule)
    glossary, index, credits = _last_headings(lines, first_rule, n)
    if credits is not None and index is not None and index > credits:
        index = None
    if credits is not None and glossary is not None and glossary > credits:
        # "Credits" before the last "Glossary": not a credits heading of this document's layout.
        credits = None

    ends = [x for x in (glossary, index, credits) if x is not None] + [n]
    body = (body_start, min(ends))

    def span(start: int | None) -> tuple[int, int] | None:
        if start is None:
            return None
        later = [x for x in (glossary, index, credits) if x is not None and x > start] + [n]
        return (start, min(later))

    return Regions(
        hard_wrapped=hard_wrapped,
        first_rule=first_rule,
        front=(0, body_start),
        contents=_contents(lines, body_start),
        body=body,
        glossary=span(glossary),
        index=span(index),
        credits=span(credits),
    )


def _body_start(lines: Sequence[str], first_rule: int) -> int:
    """Walk back from the first rule over its own section and part headings ("1. Game
    Concepts", "100. General"), which open the body; anything else belongs to the front."""
    match = C.RULE.match(lines[first_rule])
    section = match["section"] if match else ""
    start = first_rule
    i = first_rule - 1
    while i >= 0:
        line = lines[i]
        if C.is_blank(line) or C.is_decoration(line):
            i -= 1
            continue
        sec = C.SECTION.match(line)
        if sec and sec["number"] == section:
            start = i
            i -= 1
            continue
        part = C.PART.match(line)
        if part and section and part["number"] == section[0]:
            start = i
        break
    # Decoration directly above the first heading (the 1999 "-----" frame) belongs with it.
    while start > 0 and (C.is_decoration(lines[start - 1]) or C.is_blank(lines[start - 1])):
        if C.is_blank(lines[start - 1]):
            break
        start -= 1
    return start


_HEADING_INITIALS = frozenset("GgIiCc")


def _last_headings(lines: Sequence[str], after: int, n: int) -> tuple[int | None, int | None, int | None]:
    """The last Glossary heading after `after`, the last Index heading after that Glossary (or
    after `after`), and the last Credits heading after `after`: one backward pass for the three."""
    glossary = index = credits = None
    indexes: list[int] = []
    for i in range(n - 1, after, -1):
        line = lines[i]
        # A heading is short and starts with G, I or C: nearly every line is ruled out here.
        if len(line) >= 40 or line.lstrip()[:1] not in _HEADING_INITIALS:
            continue
        if glossary is None and C.GLOSSARY_HEADING.match(line):
            glossary = i
        elif C.INDEX_HEADING.match(line):
            indexes.append(i)
        elif credits is None and C.CREDITS_HEADING.match(line):
            credits = i
    floor = glossary if glossary is not None else after
    index = next((i for i in indexes if i > floor), None)
    return glossary, index, credits


def _contents(lines: Sequence[str], body_start: int) -> tuple[int, int] | None:
    """From the "Contents" heading through the last line shaped like a Contents entry."""
    for i in range(body_start):
        if len(lines[i]) < 40 and C.CONTENTS_HEADING.match(lines[i]):
            end = i + 1
            j = i + 1
            while j < body_start:
                line = lines[j]
                if C.is_blank(line) or C.is_decoration(line):
                    j += 1
                    continue
                if not C.TOC_ENTRY.match(line):
                    break
                j += 1
                end = j
            return (i, end)
    return None
