"""Where reference phrases start in a text, and their tokens: the classifier in front of the
reference grammar (grammars/references.lark), as blocks/ is in front of the document grammar.

A run of tokens is taken greedily from each anchor; the grammar then keeps the longest prefix
that is a phrase, so "rule 614 and then" yields "rule 614".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from crparse import shapes as S

_SP = r"[^\S\n]"  # a reference never spans a paragraph break

# Anchors: a keyword followed by a number, or a bare dotted rule number ("see 805.8").
# Bare numbers without a dot ("20 life", "2009") are never anchors. Python's re only skips ahead
# fast to a literal, so the scan looks for the literals "ule", "ection" and ".<digit>" and checks
# the anchor around each hit: ten times faster than one alternation with lookbehinds.
_LITERALS = re.compile(r"ule|ection|\.\d")
_KEYWORD_AT = re.compile(rf"(?:(?:[Ss]ub)?r|R)ules?{_SP}+(?=\d)|[Ss]ections?{_SP}+(?=\d)")
_BARE_AT = re.compile(rf"{S.NUMBER}(?!\w)")
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
# The "//" of a URL ("http://127.0.0.1/") is no comment marker.
_CITE_ANCHOR = re.compile(
    rf"(?<![\w.])(?P<keyword>(?:[Ss]ub)?[Rr]ules?|[Ss]ections?|CR){_SP}*(?=\d)"
    rf"|(?:(?<=//)(?<!://)|(?<=#)|(?<=--)|(?<=/\*)|(?<=;;)){_SP}*(?P<number>(?=\d{{3}}\.\d))"
)

# A title in straight quotes may quote a word inside it: "Handling "Infinite" Loops." The
# closing quote follows a non-blank, so the inner opening one cannot end it.
_STRAIGHT = r'"(?:[^"\n]|"[^"\s][^"\n]{0,40}?[^"\s]")*?(?<=[^\s"])"'

_NUMBERS = rf"""
  (?P<DOTTED>{S.NUMBER})(?!\w)
| (?P<D3>{S.SECTION_NUMBER})(?!\w|\.\d)
| (?P<D2>\d{{2}})(?!\w|\.\d)
| (?P<D1>\d)(?!\w|\.\d)
"""

# One token at a position. Leading blanks are skipped; the group that matched is its type.
_TOKENS = rf"""
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
"""
_TOKEN = re.compile(rf"{_SP}*(?:{_TOKENS})", re.VERBOSE)

# Outside the CR a slash joins a list too: "CR 704.5f / 704.5i", "rules 702.19b/c", "and/or".
# No release 1999-2026 has a slash between rule numbers; there a slash is power and toughness
# ("a 1/1 creature"), so the CR's references do not know it. What may follow a slash is read as
# after a dash, so a date, a fraction or a path after a citation ("CR 704.5k/2024/01/16",
# "704.5k/1/2", "704.5k/src/x.py") gives no item and the grammar drops the slash.
_CITE_TOKEN = re.compile(rf"{_SP}*(?:(?P<SLASH>/(?={_SP}*[\da-z])|and/or(?={_SP}))|{_TOKENS})", re.VERBOSE)

# After a dash (or a slash) a single letter ends a range whatever follows: "rules 409.1b–i of".
_AFTER_DASH = re.compile(rf"{_SP}*(?:{_NUMBERS}|(?P<LETTER>[a-z])(?![a-z\d]))", re.VERBOSE)

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
    re.VERBOSE,
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


def tokens(text: str, pos: int, *, cite: bool = False) -> list[RawToken]:
    """The greedy run of reference tokens starting at `pos`; `cite`: with the slash."""
    out: list[RawToken] = []
    joined = _CITE_TOKEN if cite else _TOKEN
    pattern = joined
    while len(out) < MAX_RUN and (m := pattern.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        out.append((kind, m.group(kind), m.start(kind), pos))
        # "and/or" is read as "or" is: "rule 704.5k and/or a creature" cites no 704.5a
        pattern = _AFTER_DASH if kind == "_DASH" or m.group(kind) == "/" else joined
    return out


def pointer_tokens(text: str, pos: int) -> list[RawToken]:
    out: list[RawToken] = []
    while len(out) < MAX_RUN and (m := _POINTER_TOKEN.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        out.append((kind, m.group(kind), m.start(kind), pos))
    return out
