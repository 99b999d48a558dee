"""Where reference phrases start in a text, and their tokens: the classifier in front of the
reference grammar (grammars/references.lark), as blocks/ is in front of the document grammar.

A run of tokens is taken greedily from each anchor; the grammar then keeps the longest prefix
that is a phrase, so "rule 614 and then" yields "rule 614".
"""

from __future__ import annotations

import re
from collections.abc import Iterator


_SP = r"[^\S\n]"  # a reference never spans a paragraph break

# Anchors: a keyword followed by a number, or a bare dotted rule number ("see 805.8").
# Bare numbers without a dot ("20 life", "2009") are never anchors. Python's re only skips ahead
# fast to a literal, so the scan looks for the literals "ule", "ection" and ".<digit>" and checks
# the anchor around each hit: ten times faster than one alternation with lookbehinds.
_LITERALS = re.compile(r"ule|ection|\.\d")
_KEYWORD_AT = re.compile(rf"(?:(?:[Ss]ub)?r|R)ules?{_SP}+(?=\d)|[Ss]ections?{_SP}+(?=\d)")
_BARE_AT = re.compile(r"\d{3}\.\d{1,3}[a-z]?(?!\w)")
_WORDISH = re.compile(r"[\w.]")


def _anchor_at(text: str, hit: int, literal: str) -> int | None:
    if literal[0] == ".":
        start = hit - 3
        if start < 0 or _BARE_AT.match(text, start) is None:
            return None
    else:
        start = hit - 1
        if start >= 3 and text[start - 3 : start].lower() == "sub":
            start -= 3
        if start < 0 or _KEYWORD_AT.match(text, start) is None:
            return None
    if start and _WORDISH.match(text, start - 1):
        return None
    return start


# Outside the CR (cite-check): "CR 704.5k", "rule 704.5k", and a rule number right after a
# comment marker ("// 613.1f", "# 704.5k"). A bare "100.5" in code is more likely a float.
_CITE_ANCHOR = re.compile(
    rf"(?<![\w.])(?P<keyword>(?:[Ss]ub)?[Rr]ules?|[Ss]ections?|CR){_SP}*(?=\d)"
    rf"|(?:(?<=//)|(?<=#)|(?<=--)|(?<=/\*)|(?<=;;)){_SP}*(?P<number>(?=\d{{3}}\.\d))"
)

# A title in straight quotes may quote a word inside it: "Handling "Infinite" Loops." The
# closing quote follows a non-blank, so the inner opening one cannot end it.
_STRAIGHT = r'"(?:[^"\n]|"[^"\s][^"\n]{0,40}?[^"\s]")*?(?<=[^\s"])"'

_NUMBERS = r"""
  (?P<DOTTED>\d{3}\.\d{1,3}[a-z]?)(?!\w)
| (?P<D3>\d{3})(?!\w|\.\d)
| (?P<D2>\d{2})(?!\w|\.\d)
| (?P<D1>\d)(?!\w|\.\d)
"""

# One token at a position. Leading blanks are skipped; the group that matched is its type.
_TOKEN = re.compile(
    rf"""{_SP}*(?:
  (?P<RULE_WORD>(?:[Ss]ub)?[Rr]ules?|CR)(?={_SP}*\d)
| (?P<SECTION_WORD>[Ss]ections?)(?={_SP}+\d)
| {_NUMBERS}
| (?P<TITLE>,?{_SP}*(?:“[^”\n]{{1,100}}”|{_STRAIGHT}))
| (?P<COMMA>,)
| (?P<SEMI>;)
| (?P<AND>and)(?={_SP})
| (?P<OR>or)(?={_SP})
| (?P<_DASH>(?:[–—-]{_SP}*|\ufffd|\?|through{_SP}+)(?=[\da-z]))
| (?P<LETTER>[a-z])(?={_SP}*(?:[.,;:)\]]|$))
)""",
    re.X,
)

# After a dash a single letter ends a range whatever follows: "rules 409.1b–i of".
_AFTER_DASH = re.compile(rf"{_SP}*(?:{_NUMBERS}|(?P<LETTER>[a-z])(?![a-z\d]))", re.X)

# Glossary pointers: "See Landwalk.", "See also Tap, Untap, and Untapped.", "See “Enters the
# Battlefield.”" at the start of a sentence of a glossary definition.
_POINTER_ANCHOR = re.compile(r"(?:^|(?<=[.)”\"]\s)|(?<=\n))See(?=\s+(?:also\s+)?[A-Z“\"])")
_POINTER_TOKEN = re.compile(
    rf"""{_SP}*(?:
  (?P<SEE>See)
| (?P<ALSO>also)(?={_SP})
| (?P<TERM>“[^”\n]+”|{_STRAIGHT}|"(?=[A-Z])[^.;\n]*?(?=\.|;|$)|[A-Z](?:[^,.;:\n“”"]|“[^”\n]*”|"[^"\n]*")*?(?=,|;|{_SP}+(?:and|or){_SP}|\.|$))
| (?P<COMMA>,)
| (?P<AND>and)(?={_SP})
| (?P<OR>or)(?={_SP})
)""",
    re.X,
)


def anchors(text: str, *, cite: bool = False) -> Iterator[int]:
    if cite:
        for m in _CITE_ANCHOR.finditer(text):
            yield m.start(m.lastgroup or "number")
        return
    for m in _LITERALS.finditer(text):
        start = _anchor_at(text, m.start(), m.group())
        if start is not None:
            yield start


def pointer_anchors(text: str) -> Iterator[int]:
    for m in _POINTER_ANCHOR.finditer(text):
        yield m.start()


RawToken = tuple[str, str, int, int]  # type, value, start, end

# The longest list in any release has 9 items (~30 tokens). A cap keeps absurd input (a megabyte
# of "100.1, 100.1, ...") linear: the rest of such a run is read from the next anchor on.
MAX_RUN = 200


def tokens(text: str, pos: int) -> list[RawToken]:
    """The greedy run of reference tokens starting at `pos`."""
    out: list[RawToken] = []
    pattern = _TOKEN
    while len(out) < MAX_RUN and (m := pattern.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        out.append((kind, m.group(kind), m.start(kind), pos))
        pattern = _AFTER_DASH if kind == "_DASH" else _TOKEN
    return out


def pointer_tokens(text: str, pos: int) -> list[RawToken]:
    out: list[RawToken] = []
    while len(out) < MAX_RUN and (m := _POINTER_TOKEN.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        out.append((kind, m.group(kind), m.start(kind), pos))
    return out
