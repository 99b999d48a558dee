"""Characters that show nothing at a line's start: removed before lines are classified (by the block
stage, and by the PDF reader before it joins printed lines into paragraphs).

A rule number is read at a line's start. A byte-order mark left inside a file by concatenation,
a no-break or zero-width space, a direction mark or a soft hyphen before it (from web copies and
converters) kept the line from starting a rule, and its text ran into the rule above (sweep 19).
Such characters (Unicode's format characters, spaces other than ASCII's, the other characters
Unicode says to show nothing for unless supported (Default_Ignorable_Code_Point: fillers,
variation selectors, the combining grapheme joiner), the Braille blank, and the form feed and
vertical tab of page breaks) are taken out of a line's leading run; ASCII spaces and tabs, which
the block stage reads as indentation, stay.

So are those between a line's leading number and its text: a no-break space after every rule
number (RTF's `\\~`, a converter's U+00A0, an ideographic space) refused a whole release as
having "no numbered rules", and half a DOCX's rules ran into their neighbours (sweep 37). There a
space of any kind reads as a space, and the rest is taken out.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache

from crparse.nodes import Diagnostic
from crparse.shapes import NUMBER, RULE_PART, SUBRULE_LETTER

_INVISIBLE = ("Cf", "Zs", "Zl", "Zp")
# Default_Ignorable_Code_Point outside those categories (Unicode's DerivedCoreProperties; Python's
# unicodedata does not give the property), and U+2800 BRAILLE PATTERN BLANK, which shows nothing
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2800, 0x2800),
              (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF))
# Control characters that are spaces to Unicode and Python: page breaks, the information
# separators, the C1 next line. Between a rule number and its text, the rule went into the one
# before (sweep 39).
_CONTROL_SPACES = "\f\v\x1c\x1d\x1e\x1f\x85"
_NAMES = {"\f": "form feed", "\v": "vertical tab", "\x1c": "file separator", "\x1d": "group separator",
          "\x1e": "record separator", "\x1f": "unit separator", "\x85": "next line"}  # no Unicode name
_NOT_ASCII_SPACE = re.compile(r"[^ \t]+")


@cache
def _leading_run() -> re.Pattern[str]:
    """A line's leading run of spaces, tabs and invisible characters, one of them at least
    invisible. Built once, from this Python's Unicode tables (a scan of 0.1 s)."""
    ranges: list[str] = []
    start = None
    for code in range(0x80, sys.maxunicode + 2):
        inside = code <= sys.maxunicode and unicodedata.category(chr(code)) in _INVISIBLE
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append(f"\\U{start:08x}-\\U{code - 1:08x}")
            start = None
    ranges += [f"\\U{low:08x}-\\U{high:08x}" for low, high in _IGNORABLE]
    invisible = "".join(ranges) + "".join(f"\\x{ord(c):02x}" for c in _CONTROL_SPACES)
    return re.compile(f"[ \\t]*[{invisible}][ \\t{invisible}]*")


def _invisible_run(text: str) -> re.Match[str] | None:
    """The run of spaces and invisible characters `text` starts with, if it holds an invisible one."""
    if not text or text[0] < "\x80" and text[0] not in _CONTROL_SPACES and (
            text[0] not in " \t" or text.lstrip(" \t")[:1] < "\x80" and text.lstrip(" \t")[:1] not in _CONTROL_SPACES):
        return None  # most lines: the table of characters is built only where one may be there
    return _leading_run().match(text)


def visible_start(text: str) -> str:
    """`text` without the invisible characters before its text (spaces and tabs kept)."""
    run = _invisible_run(text)
    return text if run is None else _without(run, text)


def _without(run: re.Match[str], text: str) -> str:
    return _NOT_ASCII_SPACE.sub("", run[0]) + text[run.end():]


# A line's leading number (a part, section, rule or subrule: "1.", "100.", "100.1a.", "100.1a")
# before a character that is not ASCII or is a control space, or spaces and one (a space, then a
# zero-width one, kept it in the rule's text without a word: sweep 38); the character is `wide`.
# Spelled with the shapes' ASCII digits: a number in other digits is none the CR prints, and its
# spaces are left as they are (the block stage says it is not a rule number).
_NUMBER_THEN_WIDE = re.compile(
    rf"[ \t]*(?P<number>{RULE_PART}(?:\.{RULE_PART}{SUBRULE_LETTER}?)?\.|{NUMBER})[ \t]*(?P<wide>[^\x00-\x7f]|[\f\v\x1c-\x1f])"
)


_DIGITS = frozenset("0123456789 \t")


def _spaced(run: str) -> str:
    """A run of spaces and invisible characters after a number: its spaces (of any kind) as ASCII
    spaces, or one space where it has none (a zero-width space parts the number from its text)."""
    return "".join(" " if c.isspace() or unicodedata.category(c) == "Zs" else "" for c in run) or " "


def _invisible(char: str) -> bool:
    """Whether `char` is one _leading_run takes (without building its table)."""
    code = ord(char)
    return (char in _CONTROL_SPACES or unicodedata.category(char) in _INVISIBLE
            or any(low <= code <= high for low, high in _IGNORABLE))


def without_leading_invisible(lines: list[str]) -> tuple[list[str], Diagnostic | None]:
    """`lines` with the invisible characters before each line's text removed, and those between a
    leading number and the text after it, and an info diagnostic counting the lines that had
    some (None when none had)."""
    changed: list[int] = []
    names: dict[str, None] = {}
    after_number = 0
    out = lines
    for i, line in enumerate(lines):
        run = _invisible_run(line)
        if run is None:
            first = line[:1]
            # most lines: no number, or one followed by printable ASCII ("100.100a." is 9 characters)
            if first not in _DIGITS:
                continue
            head = line[:16] if first not in " \t" else line.lstrip(" \t")[:16]
            if head.isascii() and head.isprintable():
                continue
            text = line
        else:
            text = _without(run, line)
        number = _NUMBER_THEN_WIDE.match(text)
        # the table of _leading_run is built only where the character after the number needs it
        # (a quote after every number built it for any release: review)
        after = None if number is None or not _invisible(number["wide"]) else _leading_run().match(text, number.end("number"))
        if run is None and after is None:
            continue
        if out is lines:
            out = list(lines)
        if after is not None:
            text = text[:number.end("number")] + _spaced(after[0]) + text[after.end():]
            after_number += 1
        out[i] = text
        if len(changed) < 100:  # the characters of the first lines are named
            for char in dict.fromkeys((run[0] if run else "") + (after[0] if after else "")):
                if char not in " \t" and len(names) < 4:
                    names.setdefault(f"U+{ord(char):04X} {_NAMES.get(char) or unicodedata.name(char, 'unnamed').lower()}")
        changed.append(i + 1)
    if not changed:
        return lines, None
    more = f" (and {len(changed) - 1:,} more lines)" if len(changed) > 1 else ""
    where = ("before a line's text" if not after_number else "between a line's number and its text"
             if after_number == len(changed) else "before a line's text or between its number and its text")
    return out, Diagnostic(changed[0], "info", "invisible-characters",
                           f"invisible characters {where} removed ({', '.join(names)}; spaces of any kind read as one space each), so "
                           f"that a rule number there starts a rule, its text without them{more}")
