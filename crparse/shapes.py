"""Line shapes and rule-number patterns: the one home of every regex that says what a line or
a rule number of the CR looks like, 1999-2026. Readers, the block stage and the references all
spell rule numbers with the patterns below.

Everything here looks at one line (or one line and its predecessor); decisions that need more
context belong to the regions (where am I in the document) or to the grammar (what came before).
"""

from __future__ import annotations

import re

# A text needs at least this many numbered rules before it is taken for (part of) a CR.
MIN_RULES = 2

# Rule numbers as printed, as pattern text to build other patterns from: a section "100", a
# rule "100.1", a subrule "100.1a" (letters skip l and o, see crparse.numbers). Parts are one
# digit ("1"). The rule part has had up to three digits since 2009 ("702.149").
# ASCII digits: a number in other digits ("１００.２", "704.٦") is none the CR prints (sweep 40)
SECTION_NUMBER = r"[0-9]{3}"
RULE_PART = r"[0-9]{1,3}"
SUBRULE_LETTER = r"[a-z]"
RULE_NUMBER = rf"{SECTION_NUMBER}\.{RULE_PART}"
NUMBER = rf"{RULE_NUMBER}{SUBRULE_LETTER}?"  # a rule or a subrule
# Any numbered unit, part to subrule, with its pieces named.
UNIT_NUMBER = rf"(?P<section>[0-9]{{1,3}})(?:\.(?P<rule>{RULE_PART})(?P<letter>{SUBRULE_LETTER})?)?"

# "100.1.", "100.1a", "702.149. Training", "305.3.The", "606.5 If", "702.93a. Soulbond",
# "601.2a - The" (hyphen-separated web scrapes). The rule part has three digits since 2009.
RULE = re.compile(
    rf"""[ \t]*
    (?P<number>(?P<section>{SECTION_NUMBER})\.(?P<rule>{RULE_PART})(?P<letter>{SUBRULE_LETTER})?)
    (?P<dot>\.)?
    (?:(?P<sep>[ \t]+[-\u2013][ \t]+|[ \t]+)|(?=[A-Z\u201c"(])|$)
    (?P<rest>.*)""",
    re.VERBOSE,
)
SPACED_RULE = re.compile(
    rf"""[ \t]*(?P<number>(?P<section>{SECTION_NUMBER})\.[ ](?P<rule>{RULE_PART})(?P<letter>{SUBRULE_LETTER})?)
    (?P<dot>\.)?(?P<sep>[ \t]+)(?P<rest>[A-Z\u201c"(].*)""",
    re.VERBOSE,
)
# What starts a paragraph as a rule number does, of any length, in any digits, with any letters or
# marks after it: a number the CR's numbering has not (a section of two or four digits, "1000.";
# a rule part of four, "100.1000."; two letters or another letter, "100.1aa", "100.2ą"; more
# parts, "100.1.1."; a comma, "100,2."; other digits, "１００.２") made no rule, and its paragraph
# ran into the one before without a word (sweeps 39, 40).
NUMBER_LIKE = re.compile(
    r"[ \t]*(?P<number>\(?(?P<section>\d++)(?:(?P<sep>[.,])(?P<rule>\d*+)(?P<letter>[^\s.]*+)"
    r"(?P<more>(?:\.[^\s.]++)*+))?)(?(sep)\.?|\.)(?=\s|$)"
)
# The wording of a heading runs to the last character that is not a space or a tab. Spelled
# greedily (`\S(?:.*[^ \t\n])?`), not lazily (`\S.*?` then `[ \t]*$`): the lazy form rescans the
# rest of a run of spaces at every one of its characters, quadratic time on a line of 80,000.
_WORDING = r"\S(?:.*[^ \t\n])?"
SECTION = re.compile(rf"[ \t]*(?P<number>{SECTION_NUMBER})\.(?:[ \t]+(?P<rest>{_WORDING}))?[ \t]*$")
PART = re.compile(rf"[ \t]*(?P<number>[1-9])\.[ \t]+(?P<rest>{_WORDING})[ \t]*$")
EXAMPLE = re.compile(r"[ \t]*(?P<label>(?:(?:Example|EXAMPLE)s?[ \t]*:[ \t]*)+)(?P<rest>.*)")
# Underlines and banners of the 1999 text conversion, and table rules of web scrapes.
DECORATION_STARTS = frozenset("-=_*~#|+")
# Possessive: a run given back can never end a decoration where the whole run did not, and
# giving back nested runs ("| | | ... x") costs quadratic time.
DECORATION = re.compile(r"[ \t]*+(?:[-=_*~#|+]{3,}+|(?:\|[ \t]*+)++)[ \t]*+$")
TITLE_LIKE = re.compile(r"[A-Z0-9\"\u201c][^.:;!?]*[^.:;!?,\s]|[A-Z]")
DATE_PHRASE = re.compile(
    r"(?:current|effective)\s+as\s+of\s+"
    r"(?P<month>January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
BANNER_DATE = re.compile(r"\b(?P<month>\d\d)/(?P<day>\d\d)/(?P<year>\d\d)\s*$")
STAMP = re.compile(r"\s*\[CompRules (?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})\]\s*$")

CONTENTS_HEADING = re.compile(r"[ \t]*(?:Table of )?Contents:?[ \t]*$", re.IGNORECASE)
GLOSSARY_HEADING = re.compile(r"[ \t]*Glossary[ \t]*$", re.IGNORECASE)
CREDITS_HEADING = re.compile(r"[ \t]*Credits[ \t]*$", re.IGNORECASE)
INDEX_HEADING = re.compile(r"[ \t]*Index[ \t]*$", re.IGNORECASE)
# A Contents line: a numbered heading or a named part, optionally with dot leaders and a page.
# The title is the shortest that leaves dot leaders and a page, or spaces alone. Such a shortest
# title never ends in a space or in a dot before another dot (one character less would do too),
# so only the ends of other characters are tried: trying every end rescans the following run of
# spaces or dots each time, quadratic time on a line of 80,000.
TOC_ENTRY = re.compile(
    r"""[ \t]*(?:(?P<number>\d{1,3})\.[ \t]+)?
    (?P<title>(?(number)\S(?:.*?(?:[^ \t.\n]|\.(?!\.)))??|(?:Introduction|Glossary|Credits|Index|Contents|Questions\?)))
    (?:[ \t]*\.{2,}[ \t]*(?P<page>\d{1,6}))?[ \t]*+$""",
    re.VERBOSE,
)
# An Index line: the term is the shortest that leaves ", " and locators, or spaces alone. Such a
# term ends in a character other than a space, or in a space before the comma ("Abc , 12" keeps
# "Abc "): only those ends are tried, for the same reason as the Contents titles. A line with a
# line break inside never matches; the lookahead says so at once, where retrying every comma,
# every split of the tabs and every shorter run of locators took time to the fourth power.
INDEX_ENTRY = re.compile(
    r"(?=[^\n]*+\n?\Z)(?P<indent>(?>\t*| *))(?P<term>(?:.*?(?:[^ \t\n]|[ \t](?=,)))??)"
    r"(?:,[ \t]*(?P<locators>\d.*+))?[ \t]*+$"
)

LATIN_LETTER = re.compile(r"[A-Za-z]")

MONTHS = {
    m: i
    for i, m in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1
    )
}

# A paragraph's own indentation beyond this many columns, after a less indented line, opens a
# new paragraph in hard-wrapped releases (glossary and rule continuation paragraphs).
PARAGRAPH_INDENT = 5
TERM_MAX = 70


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def is_blank(line: str) -> bool:
    return not line or line.isspace()


def is_decoration(line: str) -> bool:
    return DECORATION.match(line) is not None


def is_title_like(text: str, limit: int = 60) -> bool:
    """A heading's wording: short, no sentence punctuation at the end ("Training", "General")."""
    return len(text) <= limit and TITLE_LIKE.fullmatch(text) is not None


def is_term_like(line: str) -> bool:
    """A glossary entry's heading line, as opposed to definition text."""
    text = line.strip()
    return (
        bool(text)
        and not line[:1].isspace()
        and len(text) < TERM_MAX
        and text[-1] not in ".:,;"
        and EXAMPLE.match(line) is None
        and not text[0].isdigit()
    )


def is_stray(text: str) -> bool:
    """A line that cannot be CR text: "f" between two rules in 2021-11-15, table pipes, a
    page counter, or a web page's interface in another script (no Latin letter at all)."""
    stripped = text.strip()
    return len(stripped) <= 2 or LATIN_LETTER.search(stripped) is None


def numbered_otherwise(line: str) -> str | None:
    """The number a line starts with as a rule number does, if the CR's numbering has none such
    (a part has one digit, a section three, a rule part up to three, a subrule one letter)."""
    match = NUMBER_LIKE.match(line)
    if match is None:
        return None
    number, section, sep, rule, letter, more = match.group("number", "section", "sep", "rule", "letter", "more")
    if not number.isascii() or number.startswith("(") or sep == "," or more:
        return number
    if sep is None or not rule and not letter:  # a part or a section
        odd = len(section) not in (1, 3) or section == "0"
    else:
        odd = len(section) != 3 or not rule or len(rule) > 3 or bool(letter) and not (
            len(letter) == 1 and "a" <= letter <= "z")
    return number if odd else None


def opens_rule_anywhere(line: str) -> bool:
    """A rule line that can open a paragraph even without a blank line before it: the
    "601.2a - " form of web scrapes, which a wrapped cross-reference never takes."""
    match = RULE.match(line)
    sep = match["sep"] if match else None
    return bool(sep) and ("-" in sep or "\u2013" in sep)


def iso_date(year: int, month: int, day: int) -> str | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def date_in(text: str) -> str | None:
    """The effective date a line states ("These rules are effective as of January 16, 2026.")."""
    if "as of" not in text.lower():
        return None
    match = DATE_PHRASE.search(text)
    if not match:
        return None
    return iso_date(int(match["year"]), MONTHS[match["month"].lower()], int(match["day"]))


def banner_date(text: str) -> str | None:
    """The 1999 crystalkeep banner's "04/23/99"."""
    match = BANNER_DATE.search(text)
    if not match:
        return None
    year = int(match["year"])
    return iso_date(1900 + year if year >= 90 else 2000 + year, int(match["month"]), int(match["day"]))
