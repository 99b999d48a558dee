"""Rule numbers: "1" (part), "100" (section), "100.1" (rule), "100.1a" (subrule).

Numbers sort numerically ("702.99" < "702.179"), and subrule letters skip "l" and "o" (stated by
the CR itself since 2010, observed in every release), so "704.5k" is followed by "704.5m".
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from crparse.shapes import UNIT_NUMBER

_NUMBER = re.compile(UNIT_NUMBER)

SUBRULE_LETTERS = "abcdefghijkmnpqrstuvwxyz"
SKIPPED_LETTERS = "lo"


class RuleNumber(NamedTuple):
    section: int
    rule: int | None
    letter: str | None

    @property
    def kind(self) -> str:
        if self.rule is None:
            return "part" if self.section < 10 else "section"
        return "rule" if self.letter is None else "subrule"

    @property
    def key(self) -> tuple[int, int, int]:
        """Sort key. A part sorts just before its first section (part 1 before section 100)."""
        if self.rule is None and self.section < 10:
            return (self.section * 100 - 1, -1, -1)
        return (self.section, -1 if self.rule is None else self.rule, -1 if self.letter is None else ord(self.letter))

    def __str__(self) -> str:
        if self.rule is None:
            return str(self.section)
        return f"{self.section}.{self.rule}{self.letter or ''}"

    def parent(self) -> str | None:
        if self.letter is not None:
            return f"{self.section}.{self.rule}"
        if self.rule is not None:
            return str(self.section)
        if self.section >= 100:
            return str(self.section // 100)
        return None


@functools.lru_cache(maxsize=16384)
def parse_number(text: str) -> RuleNumber | None:
    match = _NUMBER.fullmatch(text.strip().rstrip("."))
    if not match:
        return None
    rule = match["rule"]
    return RuleNumber(int(match["section"]), int(rule) if rule is not None else None, match["letter"])


def sort_key(number: str) -> tuple[int, int, int]:
    parsed = parse_number(number)
    if parsed is None:
        raise ValueError(f"not a rule number: {number!r}")
    return parsed.key


def next_letter(letter: str | None) -> str | None:
    """The subrule letter after `letter` (None: the first); None past "z"."""
    if letter is None:
        return SUBRULE_LETTERS[0]
    i = SUBRULE_LETTERS.find(letter)
    if i < 0:  # "l" or "o" used against the convention: continue from its alphabetic successor
        following = [c for c in SUBRULE_LETTERS if c > letter]
        return following[0] if following else None
    return SUBRULE_LETTERS[i + 1] if i + 1 < len(SUBRULE_LETTERS) else None
