"""Text as releases are compared: typography folded, cited rule numbers set apart, words split.

Typography changed between eras without changing a rule: ASCII quotes and `--` in the 2000s,
curly quotes and dashes later, `(TM)` then `™`, `_Magic_` then plain, `{T}` or `T`. Folding them
makes such rules compare equal; `crparse diff --typography` shows them anyway.

A cited rule number is not part of a rule's meaning when the rule it names only moved: "see rule
420.5e" in 2009-05-01 and "see rule 704.5k" in 2009-07-08 name the same rule. `masked` replaces
each cited number with one placeholder, so the texts compare equal, and `cited` lists the
numbers in order, for the alignment to check against its own map of renumberings.
"""

from __future__ import annotations

import bisect
import re

from crparse import shapes as S

_PLAIN = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
          "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
          "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
          "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2026": "..."}
# Each pattern starts with a literal character, so the regex engine jumps from one to the next
# (one pattern of alternatives is tried at every position: ten times slower).
_MARKS = ("(TM)", "(tm)", "\u2122", "\u00ae", "(R)")  # Magic(TM), Magic™, DCI®
_ITALIC = re.compile(r"_(?<![\w_]_)([^_\n]{1,80}?)_(?![\w_])")  # _Magic_
_EMPHASIS = re.compile(r"\*(?<![\w*]\*)([^*\n]{1,80}?)\*(?![\w*])")  # *Magic* of a Markdown copy
_SYMBOL = re.compile(r"\{([A-Z0-9/]{1,4})\}")  # {T}, {2/W}
# Between the texts of fold_all and masked_all: a control character no release has.
SEPARATOR = "\x1e"


def fold(text: str) -> str:
    """`text` with the typography of every era made one: quotes, dashes, trademark signs,
    italics markup, mana symbol braces, runs of white space."""
    return fold_all([text])[0]


def fold_all(texts: list[str], *, lines: bool = False) -> list[str]:
    """`fold` of each text, done on all of them at once: a few passes of C over one string
    instead of thousands of calls (str.translate with a table is per character Python).
    `lines`: keep line breaks (for showing), collapsing only the blanks within each line."""
    joined = SEPARATOR.join(t.replace(SEPARATOR, " ") for t in texts)
    # a dash between words: "a -- b" in the 2000s, "a—b" later; spaced alike before the rest
    joined = joined.replace("\u2014", " - ").replace("---", " - ").replace("--", " - ")
    for old, new in _PLAIN.items():
        if old in joined:
            joined = joined.replace(old, new)
    for mark in _MARKS:
        joined = joined.replace(mark, "")
    for pattern, char in ((_ITALIC, "_"), (_EMPHASIS, "*"), (_SYMBOL, "{")):
        if char in joined:
            joined = pattern.sub(r"\1", joined)
    if lines:
        return ["\n".join(" ".join(line.split()) for line in t.split("\n")) for t in joined.split(SEPARATOR)]
    return [" ".join(t.split()) for t in joined.split(SEPARATOR)]


# A cited number: a rule or subrule anywhere ("704.5k"); a section in a phrase that cites one
# ("rule 809", "sections 601 and 602", "rules 700-702"). A letter range's end ("702.25a-c")
# names no rule of its own.
# (each starts with a character, the lookbehind after it: see _ITALIC)
_RULE = re.compile(rf"\d(?<![\w.]\d)\d\d\.{S.RULE_PART}{S.SUBRULE_LETTER}?(?!\w)")  # S.NUMBER
_SECTION_LIST = re.compile(
    rf"[RrSs](?<!\w[RrSs])(?:ules?|ections?) (?:{S.NUMBER}|{S.SECTION_NUMBER})(?![\w.]\w)"
    rf"(?:(?:,? (?:and|or|through|to) |, |[-\u2013] ?)(?:{S.NUMBER}|{S.SECTION_NUMBER})(?![\w.]\w))*"
)
_SECTION = re.compile(rf"(?<![\w.]){S.SECTION_NUMBER}(?![\w.]\w|\w)")
PLACEHOLDER = "\u00a7"  # §: in no release's text (checked by a test)


def masked(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` with each cited number replaced by PLACEHOLDER, and the numbers in order."""
    return masked_all([text])[0]


def masked_all(texts: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """`masked` of each text, the patterns run once over all of them joined."""
    clean = [t.replace(SEPARATOR, " ") for t in texts]
    joined = SEPARATOR.join(clean)
    spans = [m.span() for m in _RULE.finditer(joined)]
    for phrase in _SECTION_LIST.finditer(joined):
        spans += [(phrase.start() + m.start(), phrase.start() + m.end()) for m in _SECTION.finditer(phrase.group())]
    if not spans:
        return [(t, ()) for t in clean]
    spans.sort()
    starts, at = [], 0
    for t in clean:
        starts.append(at)
        at += len(t) + 1
    pieces: list[str] = []
    cited: list[list[str]] = [[] for _ in clean]
    at = 0
    for a, b in spans:
        if a < at:
            continue
        pieces.append(joined[at:a])
        pieces.append(PLACEHOLDER)
        cited[bisect.bisect_right(starts, a) - 1].append(joined[a:b])
        at = b
    pieces.append(joined[at:])
    return list(zip("".join(pieces).split(SEPARATOR), map(tuple, cited)))


_WORD = re.compile(r"\s+|\d+(?:\.\d+[a-z]?)+(?![\w])|\w+(?:['’]\w+)*|[^\w\s]")  # a rule number is one word


def words(text: str) -> list[str]:
    """Words, punctuation and the white space between them: joined, they give `text` back."""
    return _WORD.findall(text)
