"""The PDF reader keeps a printed line that opens with a rule number as the start of a rule, in
every printed form of the number ("702.124i.", "702.124i", "702.124.", a tab after it), also
without paragraph spacing, at the indentation of the line above and across a page break; a
cross-reference wrapped onto the next line is still joined, and said so in a diagnostic."""

from __future__ import annotations

import pytest
from builders import make_pdf
from conftest import lost_words

import crparse

HEAD = [(72, "702. Keyword Abilities", 24), (72, "702.124. Partner", 24)]

# Subrule texts as two printed lines each, both reaching the right margin.
TEXTS = {
    "h": ("Partner with [name] is a variation on the partner ability that appears on some cards, and",
          "it lets two legendary creatures be used together as commanders when each one names the other."),
    "i": ("If a player has two commanders that each have partner, the combined color identities of the",
          "two commanders are used to determine which cards may be included in that player's whole deck."),
    "j": ("A player whose commanders each have partner reveals both of them as the game begins, and the",
          "two commanders start the game in the command zone; either one may be cast from there later on."),
}


def _page(lines, top: float = 700.0) -> list[tuple[float, float, str]]:
    """(x, text) or (x, text, gap) lines set one under the other; the gap to the next line is
    the line pitch (12) unless given: no paragraph spacing where none is given."""
    out, y = [], top
    for x, text, *gap in lines:
        out.append((x, y, text))
        y -= gap[0] if gap else 12.0
    return out


def _subrules(letters: str, hanging: bool) -> list[tuple]:
    """Subrules printed "702.124h." one under the other: with a hanging indent (the number
    flush, its wrapped line further right) or flush (the wrapped line under the number)."""
    lines: list[tuple] = []
    for letter in letters:
        first, second = TEXTS[letter]
        lines += [(86, f"702.124{letter}. {first}"), (100 if hanging else 86, second)]
    return lines


def _parse(pages):
    data = make_pdf(pages)
    doc = crparse.parse(data)
    assert not lost_words(doc, "\n".join(crparse.source_lines(data)))
    return data, doc


def _numbers(doc) -> list[str]:
    return [r.number for r in doc.rules if r.kind in ("rule", "subrule")]


def _folded(doc) -> list:
    return [d for d in doc.diagnostics if d.code == "folded-rule-number"]


@pytest.mark.parametrize("hanging", [True, False], ids=["hanging-indent", "flush"])
@pytest.mark.parametrize("letters", ["hi", "hij"])
def test_trailing_dot_subrules_without_paragraph_spacing_each_start_a_rule(letters, hanging):
    _, doc = _parse([_page(HEAD + _subrules(letters, hanging))])
    assert _numbers(doc) == ["702.124"] + [f"702.124{c}" for c in letters]
    for c in letters:
        assert doc.rule(f"702.124{c}").text == " ".join(TEXTS[c])
    assert not _folded(doc)


def test_trailing_dot_subrules_one_line_each_at_the_same_indentation():
    texts = {
        "h": "Partner with [name] is a variation on the partner ability that appears on some of the cards.",
        "i": "If a player has two commanders that each have partner, both are used for the color identity.",
        "j": "A player whose commanders each have partner reveals both of them as the game begins, at once.",
    }
    lines = [(86, f"702.124{c}. {texts[c]}") for c in "hij"]
    _, doc = _parse([_page(HEAD + lines)])
    assert _numbers(doc) == ["702.124", "702.124h", "702.124i", "702.124j"]
    assert [doc.rule(f"702.124{c}").text for c in "hij"] == list(texts.values())


@pytest.mark.parametrize("hanging", [True, False], ids=["hanging-indent", "flush"])
def test_trailing_dot_subrule_at_the_top_of_a_page(hanging):
    first = _page(HEAD + _subrules("h", hanging), top=160.0) + [(300, 40.0, "Page 1")]
    second = _page(_subrules("ij", hanging)) + [(300, 40.0, "Page 2")]
    third = _page([(86, "702.124k. Partners are two commanders as far as every rule is concerned.")])
    third.append((300, 40.0, "Page 3"))
    _, doc = _parse([first, second, third])
    assert _numbers(doc) == ["702.124", "702.124h", "702.124i", "702.124j", "702.124k"]
    for c in "hij":
        assert doc.rule(f"702.124{c}").text == " ".join(TEXTS[c])
    assert not _folded(doc)


def test_every_printed_form_of_a_rule_number_starts_a_rule():
    # A rule after a rule (both "702.12x."), a subrule with a dot after one without and the other
    # way round, a tab after the number: all at one indentation, no paragraph spacing.
    lines = [
        (72, "702. Keyword Abilities", 24),
        (72, "702.122. Partner abilities."),
        (72, "702.123. Rules about partner abilities follow here, and they apply to the partner keyword only."),
        (72, "702.124. Partner is a keyword ability that modifies the rules for deck construction in Commander."),
        (72, "702.124a Partner is a static ability that functions during deck construction and while in play."),
        (72, "702.124b. If a player has two commanders that each have partner, they are treated as one team."),
        (72, "702.124c\tA player whose commanders each have partner reveals both of them as the game begins."),
        (72, "702.124d Partner with [name] is a variation on the partner ability found on some of the cards."),
    ]
    _, doc = _parse([_page(lines)])
    assert _numbers(doc) == ["702.122", "702.123", "702.124", "702.124a", "702.124b", "702.124c", "702.124d"]
    assert doc.rule("702.123").text.endswith("they apply to the partner keyword only.")
    assert doc.rule("702.124b").text.startswith("If a player has two commanders")
    assert doc.rule("702.124c").text.startswith("A player whose commanders")
    assert not _folded(doc)


def _source_line(data: bytes, start: str) -> int:
    return next(i for i, line in enumerate(crparse.source_lines(data), 1) if line.startswith(start))


@pytest.mark.parametrize(
    "wrapped, reference",
    [
        ("See rule", "305.6."),
        ("Its other rules are", "702.124i and 702.124j."),
        # Shaped like a rule that starts a paragraph; the sentence above is not finished.
        ("the rest resolves as described in rule", "608.2b. (See rule 702.5.) If so, the card becomes an Aura."),
    ],
    ids=["bare-number", "number-and", "rule-like"],
)
def test_a_wrapped_cross_reference_is_joined_and_said_so(wrapped, reference):
    h = f"702.124h. Partner with [name] is a variation on the partner ability found on some cards; {wrapped}"
    lines = HEAD + [(86, h), (100, reference)] + [(86, f"702.124i. {TEXTS['i'][0]}"), (100, TEXTS["i"][1])]
    data, doc = _parse([_page(lines)])
    assert _numbers(doc) == ["702.124", "702.124h", "702.124i"]
    assert doc.rule("702.124h").text.endswith(f"{wrapped} {reference}")
    [folded] = _folded(doc)
    assert folded.severity == "info"
    assert folded.line == _source_line(data, reference)
    assert reference.split()[0] in folded.message


def test_a_cross_reference_wrapped_across_a_page_break_is_joined():
    end = "The two commanders are subject to the rules of partner as if each had it; see rules"
    first = _page(HEAD + [(86, f"702.124h. {TEXTS['h'][0]}"), (100, end)], top=160.0) + [(300, 40.0, "Page 1")]
    wrapped = "702.124i and 702.124j. Each of them is also a commander for every other rule of the game."
    i = "702.124i A player's two partner commanders are both in the command zone as the game begins."
    second = _page([(100, wrapped), (86, i)])
    second.append((300, 40.0, "Page 2"))
    third = _page([(86, "702.124j Partners are two commanders as far as every rule is concerned.")])
    third.append((300, 40.0, "Page 3"))
    data, doc = _parse([first, second, third])
    assert _numbers(doc) == ["702.124", "702.124h", "702.124i", "702.124j"]
    assert doc.rule("702.124h").text.endswith(f"see rules {wrapped}")
    assert [d.line for d in _folded(doc)] == [_source_line(data, "702.124i and")]


def test_rule_number_after_paragraph_spacing_starts_a_rule_even_mid_sentence():
    # A wrapped reference never follows paragraph spacing: after a rule whose text does not end
    # a sentence ("... [Instructions]”"), a rule number after spacing still starts a rule.
    lines = HEAD + [
        (86, "702.124h. Partner abilities are written “Partner—[Quality]. [Instructions (if any).]” with the"),
        (100, "bracketed text replaced; a reminder of its form is “[Trigger condition], [effect]. [Instructions]”",
         24),
        (86, f"702.124i. {TEXTS['i'][0]}"), (100, TEXTS["i"][1]),
        (86, f"702.124j. {TEXTS['j'][0]}"), (100, TEXTS["j"][1]),
    ]
    _, doc = _parse([_page(lines)])
    assert _numbers(doc) == ["702.124", "702.124h", "702.124i", "702.124j"]
    assert not _folded(doc)
