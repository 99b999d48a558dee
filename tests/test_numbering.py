"""Rule numbers and the numbering checks (duplicates, gaps, out-of-order, misplaced)."""

from __future__ import annotations

import pytest

import crparse
from crparse.numbers import next_letter, parse_number, sort_key


@pytest.mark.parametrize(
    ("text", "kind", "parent"),
    [("1", "part", None), ("100", "section", "1"), ("100.1", "rule", "100"), ("100.1a", "subrule", "100.1"),
     ("702.179", "rule", "702"), ("905.6b", "subrule", "905.6")],
)
def test_number_kinds_and_parents(text, kind, parent):
    number = parse_number(text)
    assert (number.kind, number.parent(), str(number)) == (kind, parent, text)


def test_letters_skip_l_and_o():
    assert next_letter("k") == "m"
    assert next_letter("n") == "p"
    assert next_letter(None) == "a"
    assert next_letter("z") is None


def test_sort_order_is_numeric_and_parts_come_first():
    numbers = ["702.179", "1", "100.1a", "100", "100.1", "702.99", "100.10", "100.2"]
    assert sorted(numbers, key=sort_key) == ["1", "100", "100.1", "100.1a", "100.2", "100.10", "702.99", "702.179"]


def diagnostics(text: str, code: str) -> list[str]:
    return [d.message for d in crparse.parse(text).diagnostics if d.code == code]


def test_duplicate_numbers_are_kept_and_reported():
    doc = crparse.parse("502.35. Modular.\n\n502.35a First.\n\n502.35b Second.\n\n502.35b Scry.\n")
    assert [r.number for r in doc.rules].count("502.35b") == 2
    assert [d.line for d in doc.diagnostics if d.code == "duplicate-number"] == [7]


def test_gap_in_subrule_letters_skips_l():
    text = "704.5. SBA.\n\n704.5k K.\n\n704.5m M.\n\n704.5p P.\n"
    assert diagnostics(text, "number-gap")[1:] == ["704.5p follows 704.5m: no 704.5n"]


def test_gap_in_rules():
    text = "113.7. Seven.\n\n113.7c C.\n\n113.9. Nine.\n"
    gaps = diagnostics(text, "number-gap")
    assert "113.9 follows 113.7: no 113.8" in gaps
    assert "113.7c follows 113.7: no 113.7a-b" in gaps


def test_misplaced_typo_is_reported_once():
    # 2006-10-01: "432.2b" printed inside section 423.
    text = "423. Section\n\n423.1. One.\n\n423.2. Two.\n\n423.2a A.\n\n432.2b B.\n\n423.3. Three.\n\n423.4. Four.\n"
    doc = crparse.parse(text)
    codes = [d.code for d in doc.diagnostics if d.severity == "warning"]
    assert codes == ["misplaced-number"]


def test_out_of_order():
    assert diagnostics("100.1. A.\n\n100.3. C.\n\n100.2. B.\n", "out-of-order") == ["100.2 comes after 100.3"]


def test_spaced_subrule_number_is_read():
    doc = crparse.parse("606.8. Eight.\n\n606.8a A.\n\n606. 8b Players win as a team.\n\n606.8c C.\n")
    assert doc.rule("606.8b").text == "Players win as a team."
    assert not [d for d in doc.diagnostics if d.severity == "warning"]
