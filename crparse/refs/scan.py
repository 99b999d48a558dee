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
# The blanks between two tokens of a reference, or inside a term: a few, never a line of them.
# (No reference of any release has more than two in a row.)
_GAP = rf"{_SP}{{0,16}}+"

# Every pattern here runs on untrusted text, at many positions of a line. So a run of blanks is
# taken possessively (`*+`: given back one at a time, each blank would be tried again by the
# next alternative, quadratic in the run), and what a title, a quoted term, a term or the gap
# between tokens may span is bounded: an unclosed quote costs at most that bound at each
# position, not the rest of the line, and no reference's text runs on for megabytes.

# Anchors: a keyword followed by a number, or a bare dotted rule number ("see 805.8").
# Bare numbers without a dot ("20 life", "2009") are never anchors. Python's re only skips ahead
# fast (in C) to a branch's first literal character; a lookbehind in front would make it try
# every position. So each branch starts with a literal (r, R, s, S, or the dot of a number) and
# checks what comes before it after that: no other character of the text costs anything, and
# a line of "rule rule rule" or "1.1.1.1" never reaches Python. A bare number matches from its
# dot; its anchor is the three digits before.
_ANCHOR = re.compile(
    rf"""
  r(?<![\w.]r)ules?{_SP}++(?=\d)
| R(?<![\w.]R)ules?{_SP}++(?=\d)
| s(?<![\w.]s)(?:ubrules?|ections?){_SP}++(?=\d)
| S(?<![\w.]S)(?:ubrules?|ections?){_SP}++(?=\d)
| \.(?<=\d{{3}}\.)(?<![\w.]\d{{3}}\.){S.RULE_PART}{S.SUBRULE_LETTER}?(?!\w)
""",
    re.VERBOSE,
)

# Outside the CR (cite-check): "CR 704.5k", "rule 704.5k", and a rule number right after a
# comment marker ("// 613.1f", "# 704.5k"). A bare "100.5" in code is more likely a float.
# The "//" of a URL ("http://127.0.0.1/") is no comment marker. Built as _ANCHOR is, each branch
# from a literal: cite-check reads whole files, megabytes of data or minified code. A keyword
# branch matches from the keyword, a comment branch up to the number.
_CITE_ANCHOR = re.compile(
    rf"""
  S(?<![\w.]S)(?:ub[Rr]ules?|ections?){_SP}*+(?=\d)
| s(?<![\w.]s)(?:ub[Rr]ules?|ections?){_SP}*+(?=\d)
| R(?<![\w.]R)ules?{_SP}*+(?=\d)
| r(?<![\w.]r)ules?{_SP}*+(?=\d)
| C(?<![\w.]C)R{_SP}*+(?=\d)
| //(?<!://){_SP}*+(?=\d{{3}}\.\d)
| \#{_SP}*+(?=\d{{3}}\.\d)
| --{_SP}*+(?=\d{{3}}\.\d)
| /\*{_SP}*+(?=\d{{3}}\.\d)
| ;;{_SP}*+(?=\d{{3}}\.\d)
""",
    re.VERBOSE,
)
_COMMENT_MARKS = "/#-;"

# A title in straight quotes may quote a word inside it: "Handling "Infinite" Loops." The
# closing quote follows a non-blank, so the inner opening one cannot end it. Titles in every
# release are under 60 characters; 100 pieces bound what an unclosed quote costs.
_STRAIGHT = r'"(?:[^"\n]|"[^"\s][^"\n]{0,40}?[^"\s]"){0,100}?(?<=[^\s"])"'

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
| (?P<TITLE>,?{_GAP}(?:“[^”\n]{{1,100}}”|{_STRAIGHT}))
| (?P<COMMA>,)
| (?P<SEMI>;)
| (?P<AND>and)(?={_SP})
| (?P<OR>or)(?={_SP})
| (?P<_DASH>(?:[–—-]{_GAP}|\ufffd|\?|through{_SP}{{1,16}}+)(?=[\da-z]))
| (?P<LETTER>[a-z])(?={_SP}*(?:[.,;:)\]]|$))
"""
_TOKEN = re.compile(rf"{_GAP}(?:{_TOKENS})", re.VERBOSE)

# Outside the CR a slash joins a list too: "CR 704.5f / 704.5i", "rules 702.19b/c", "and/or".
# No release 1999-2026 has a slash between rule numbers; there a slash is power and toughness
# ("a 1/1 creature"), so the CR's references do not know it. What may follow a slash is read as
# after a dash, so a date, a fraction or a path after a citation ("CR 704.5k/2024/01/16",
# "704.5k/1/2", "704.5k/src/x.py") gives no item and the grammar drops the slash.
_CITE_TOKEN = re.compile(rf"{_GAP}(?:(?P<SLASH>/(?={_SP}*[\da-z])|and/or(?={_SP}))|{_TOKENS})", re.VERBOSE)

# After a dash (or a slash) a single letter ends a range whatever follows: "rules 409.1b–i of".
_AFTER_DASH = re.compile(rf"{_GAP}(?:{_NUMBERS}|(?P<LETTER>[a-z])(?![a-z\d]))", re.VERBOSE)

# Glossary pointers: "See Landwalk.", "See also Tap, Untap, and Untapped.", "See “Enters the
# Battlefield.”" at the start of a sentence of a glossary definition.
_POINTER_ANCHOR = re.compile(r"(?:^|(?<=[.)”\"]\s)|(?<=\n))See(?=\s++(?:also\s++)?[A-Z“\"])")

# A term ends at a comma, a semicolon, the end of the sentence, a parenthesis, or before "and"/
# "or"; it may hold quoted words. Read greedily, a piece at a time (a blank run is one piece),
# so no position is read twice; the longest term of any release is 37 characters.
_TERM_PIECES = rf"""(?:[^\s,.;:“”"()]|“[^”\n]{{0,100}}”|"[^"\n]{{0,100}}"|{_SP}{{1,16}}+(?!(?:and|or){_SP})){{0,100}}+"""
_POINTER_TOKEN = re.compile(
    rf"""{_GAP}(?:
  (?P<SEE>See)
| (?P<ALSO>also)(?={_SP})
| (?P<TERM>“[^”\n]{{1,100}}”|{_STRAIGHT}|"(?=[A-Z])[^.;()\n]{{0,100}}?(?=[.;()]|$)
    |[A-Z]{_TERM_PIECES}(?=[,;.()]|{_SP}++(?:and|or){_SP}|$))
| (?P<COMMA>,)
| (?P<AND>and)(?={_SP})
| (?P<OR>or)(?={_SP})
)""",
    re.VERBOSE,
)


def anchors(text: str, *, cite: bool = False) -> Iterator[int]:
    if cite:
        for m in _CITE_ANCHOR.finditer(text):
            yield m.end() if text[m.start()] in _COMMENT_MARKS else m.start()
        return
    for m in _ANCHOR.finditer(text):
        yield m.start() - 3 if text[m.start()] == "." else m.start()


def pointer_anchors(text: str) -> Iterator[int]:
    for m in _POINTER_ANCHOR.finditer(text):
        yield m.start()


RawToken = tuple[str, str, int, int]  # type, value, start, end

# The longest list in any release has 9 items (~30 tokens). A cap keeps absurd input (a megabyte
# of "100.1, 100.1, ...") linear: the rest of such a run is read from the next anchor on.
MAX_RUN = 200
# The longest pointer of any release names 4 terms; 16 terms at most, so the rejoining of
# neighbouring terms (resolve.py) stays bounded too.
MAX_POINTER_RUN = 32


def tokens(text: str, pos: int, *, cite: bool = False, limit: int = MAX_RUN) -> list[RawToken]:
    """The greedy run of reference tokens starting at `pos` (at most `limit`); `cite`: with the slash."""
    out: list[RawToken] = []
    joined = _CITE_TOKEN if cite else _TOKEN
    pattern = joined
    while len(out) < limit and (m := pattern.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        value = m.group(kind)
        out.append((kind, value, m.start(kind), pos))
        # "and/or" is read as "or" is: "rule 704.5k and/or a creature" cites no 704.5a
        pattern = _AFTER_DASH if kind == "_DASH" or value == "/" else joined
    return out


def pointer_tokens(text: str, pos: int) -> list[RawToken]:
    out: list[RawToken] = []
    while len(out) < MAX_POINTER_RUN and (m := _POINTER_TOKEN.match(text, pos)) is not None:
        kind = m.lastgroup
        assert kind is not None
        pos = m.end()
        out.append((kind, m.group(kind), m.start(kind), pos))
    return out
