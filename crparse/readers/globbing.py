"""Sphinx's toctree glob patterns, matched without backtracking.

Sphinx reads a `:glob:` entry as a shell pattern in which `*` stops at a `/` and `**` does not,
`?` is one character but `/`, and `[...]` a class (`[!...]` never matching `/`). It hands the
pattern to `re` as it translates it: a reversed range (`[z-a]`) raised `re.error` (exit 3), a
`[[` printed a FutureWarning on stderr, and `*a*a*a*a*ab` against a name of 200 letters took
17 s of backtracking (sweep 20).

A pattern is at most MAX_GLOB characters (a file name's pattern is short): its classes are
tried on each new character of the names it is matched against.

Here the pattern is a row of steps (a character class, a star) and a name is read once, left
to right, with the set of steps reached so far held as the bits of an integer: time linear in
the name, for any pattern. A class is read as fnmatch reads it (`[!]a]` is neither `]` nor `a`;
a reversed range matches nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_STAR, _ANY_STAR = "*", "**"
MAX_GLOB = 256


class GlobPattern:
    """A toctree glob pattern; `matches(name)` is Sphinx's matching of a document name. `work`
    counts what matching has cost so far: a character of a name read, a class step tried on a
    character first met (each pattern tries each of its classes once on each character)."""

    def __init__(self, pattern: str):
        self.work = 0
        steps = _steps(pattern)
        self._classes: list[tuple[int, Callable[[str], bool]]] = []
        self._stars = self._any_stars = 0
        for i, step in enumerate(steps):
            if step == _STAR:
                self._stars |= 1 << i
            elif step == _ANY_STAR:
                self._any_stars |= 1 << i
            else:
                self._classes.append((i, step))
        self._end = 1 << len(steps)
        self._accepting: dict[str, int] = {}  # a character -> the class steps that take it

    def _accepts(self, char: str) -> int:
        mask = self._accepting.get(char)
        if mask is None:
            mask = 0
            for i, test in self._classes:
                if test(char):
                    mask |= 1 << i
            self._accepting[char] = mask
            self.work += len(self._classes)
        return mask

    def matches(self, name: str) -> bool:
        self.work += len(name) + 1
        stars = self._stars | self._any_stars
        # bit i: the steps before step i have matched what was read; a star may match nothing
        reached = 1
        reached |= (reached & stars) << 1
        for char in name:
            loops = self._any_stars | (self._stars if char != "/" else 0)
            reached = ((reached & self._accepts(char)) << 1) | (reached & loops)
            if not reached:
                return False
            reached |= (reached & stars) << 1
        return bool(reached & self._end)


def _steps(pattern: str) -> list:
    """The pattern's steps: "*", "**", or a test of one character. A run of stars is one star,
    the widest of them (no step follows a star with another)."""
    steps: list = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            star = _ANY_STAR if i < n and pattern[i] == "*" else _STAR
            i += star == _ANY_STAR
            if steps and steps[-1] in (_STAR, _ANY_STAR):
                if star == _ANY_STAR:
                    steps[-1] = _ANY_STAR
            else:
                steps.append(star)
        elif c == "?":
            steps.append(_not_slash)
        elif c == "[" and (end := _class_end(pattern, i)) is not None:
            steps.append(_class(pattern[i:end]))
            i = end + 1
        else:
            steps.append(c.__eq__)
    return steps


def _not_slash(char: str) -> bool:
    return char != "/"


def _class_end(pattern: str, start: int) -> int | None:
    """Where the class opened before `start` ends (its "]"), as fnmatch finds it."""
    j = start
    if j < len(pattern) and pattern[j] == "!":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    end = pattern.find("]", j)
    return end if end >= 0 else None


def _class(stuff: str) -> Callable[[str], bool]:
    """A class's test: its members and ranges (a reversed one holds nothing), each escaped into
    a character set of `re`, which tests thousands of ranges at C's speed; a negated class never
    takes `/`. (A set has no backtracking: this is no pattern of `re`'s own.)"""
    negated = stuff.startswith("!")
    if negated:
        stuff = stuff[1:]
    members: list[str] = []
    i = 0
    while i < len(stuff):
        if i + 2 < len(stuff) and stuff[i + 1] == "-":
            if stuff[i] <= stuff[i + 2]:
                members.append(f"{re.escape(stuff[i])}-{re.escape(stuff[i + 2])}")
            i += 3
        else:
            members.append(re.escape(stuff[i]))
            i += 1
    if negated:
        return re.compile(f"[^/{''.join(members)}]", re.DOTALL).match
    if not members:
        return _nothing
    return re.compile(f"[{''.join(members)}]", re.DOTALL).match


def _nothing(char: str) -> bool:
    return False
