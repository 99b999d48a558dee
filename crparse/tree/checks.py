"""Numbering checks: what the numbers of a built tree say is off.

Reported, never repaired: duplicated numbers are kept both times, out-of-order and misplaced
numbers stay where the source put them. Gaps are reported once per gap, naming what is missing.
"""

from __future__ import annotations

from collections.abc import Iterable

from crparse.nodes import Diagnostic, Rule
from crparse.numbers import SKIPPED_LETTERS, RuleNumber, next_letter, parse_number

_LEVEL_OF = {"section": "part", "rule": "section", "subrule": "rule"}  # the unit a kind sits in


def check_numbering(rules: Iterable[Rule], *, fragment: bool) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    seen: dict[str, int] = {}
    # The unit currently open at each level (its number, normalised), to see where a number lands.
    open_units: dict[str, str | None] = {"part": None, "section": None, "rule": None}
    last_child: dict[str, tuple[RuleNumber, tuple[int, int, int]]] = {}
    previous: RuleNumber | None = None
    previous_key: tuple[int, int, int] | None = None
    for rule in rules:
        number = parse_number(rule.number)
        if number is None:  # pragma: no cover - the tokenizer only emits well-formed numbers
            continue
        key = number.key
        where = rule.line
        duplicate = False
        if rule.number in seen:
            duplicate = True
            found.append(
                Diagnostic(where, "warning", "duplicate-number", f"{rule.number} appears again (first at line {seen[rule.number]})")
            )
        else:
            seen[rule.number] = where
        if number.letter and number.letter in SKIPPED_LETTERS:
            found.append(
                Diagnostic(where, "warning", "skipped-letter-used", f"{rule.number} uses the letter {number.letter!r}, which subrules skip")
            )
        parent = rule.parent
        level = _LEVEL_OF.get(rule.kind)
        misplaced = False
        if level is not None:
            current = open_units[level]
            if current is not None and current != parent:
                misplaced = True
                found.append(
                    Diagnostic(where, "warning", "misplaced-number", f"{rule.number} appears under {current}, not under {parent}")
                )
            elif current is None and not fragment and level != "part":
                found.append(Diagnostic(where, "warning", "missing-parent", f"{rule.number} has no {parent} before it"))
            before = last_child.get(parent or "")
            if not misplaced and (current is not None or before is not None):
                previous_sibling = before[0] if before else None
                if not _next_in_line(number, previous_sibling):
                    _check_gap(found, rule, number, previous_sibling, where)
        if parent is not None:
            last = last_child.get(parent)
            if last is None or key > last[1]:
                last_child[parent] = (number, key)
        kind = rule.kind
        if kind == "part":
            open_units["part"], open_units["section"], open_units["rule"] = str(number), None, None
        elif kind == "section":
            open_units["section"], open_units["rule"] = str(number), None
        elif kind == "rule":
            open_units["rule"] = str(number)
        if not misplaced and not duplicate and previous_key is not None and key < previous_key:
            found.append(Diagnostic(where, "warning", "out-of-order", f"{rule.number} comes after {previous}"))
        # A misplaced number (a typo like 432.2b inside 423) is reported once; what follows
        # is compared with the last number that was in place, so one typo is one diagnostic.
        if not misplaced and (previous_key is None or key > previous_key):
            previous, previous_key = number, key
    return found


def _next_in_line(number: RuleNumber, before: RuleNumber | None) -> bool:
    """The common case, decided without building anything: the number right after its previous
    sibling (or the first of its parent)."""
    if number.letter is not None:
        return number.letter == _AFTER.get(before.letter if before is not None else None)
    if number.rule is not None:
        return number.rule == (before.rule or 0) + 1 if before is not None else number.rule == 1
    return False


_AFTER = {None: next_letter(None), **{c: next_letter(c) for c in "abcdefghijklmnopqrstuvwxyz"}}


def _check_gap(found: list[Diagnostic], rule: Rule, number: RuleNumber, before: RuleNumber | None, where: int) -> None:
    if rule.kind == "subrule":
        expected = next_letter(before.letter if before else None)
        if expected is not None and number.letter is not None and number.letter > expected:
            missing = _letters_between(expected, number.letter)
            found.append(
                Diagnostic(where, "warning", "number-gap", f"{rule.number} follows {before or rule.parent}: no {_span(rule.parent, missing)}")
            )
    elif rule.kind == "rule":
        expected = (before.rule or 0) + 1 if before else 1
        if number.rule is not None and number.rule > expected:
            last = number.rule - 1
            missing = f"{number.section}.{expected}" + (f"-{number.section}.{last}" if last > expected else "")
            found.append(Diagnostic(where, "warning", "number-gap", f"{rule.number} follows {before or rule.parent}: no {missing}"))
    elif rule.kind == "section" and before is not None:
        if number.section > before.section + 1:
            last = number.section - 1
            missing = f"{before.section + 1}" + (f"-{last}" if last > before.section + 1 else "")
            found.append(Diagnostic(where, "info", "number-gap", f"section {rule.number} follows {before}: no {missing}"))


def _letters_between(first: str, stop: str) -> list[str]:
    letters = []
    letter: str | None = first
    while letter is not None and letter < stop:
        letters.append(letter)
        letter = next_letter(letter)
    return letters


def _span(parent: str | None, letters: list[str]) -> str:
    if len(letters) == 1:
        return f"{parent}{letters[0]}"
    return f"{parent}{letters[0]}-{letters[-1]}"
