"""Stage 3-4: regions, blocks and the rule tree, on small documents of each layout era."""

from __future__ import annotations

import pytest

import crparse


@pytest.fixture(scope="module")
def modern(request):
    from conftest import FIXTURES

    return crparse.parse(FIXTURES / "modern.txt")


@pytest.fixture(scope="module")
def wrapped(request):
    from conftest import FIXTURES

    return crparse.parse(FIXTURES / "wrapped1999.txt")


def numbers(doc):
    return [r.number for r in doc.rules]


def test_modern_front_matter(modern):
    assert modern.title == "Magic: The Gathering Comprehensive Rules"
    assert modern.effective_date == "2026-01-16"
    assert modern.fragment is None
    assert [b.kind for b in modern.front_matter] == ["title", "effective-date", "heading", "paragraph"]


def test_contents_is_not_rules(modern):
    # Every Contents heading appears again in the body; the Contents must not become rules.
    assert [(c.number, c.title) for c in modern.contents][:3] == [("1", "Game Concepts"), ("100", "General"), ("101", "The Magic Golden Rules")]
    assert numbers(modern).count("100") == 1
    assert modern.rule("1").line == 22


def test_kinds_parents_and_order(modern):
    assert numbers(modern)[:6] == ["1", "100", "100.1", "100.1a", "100.1b", "100.2"]
    r = modern.rule("100.1a")
    assert (r.kind, r.parent) == ("subrule", "100.1")
    assert (modern.rule("100.1").kind, modern.rule("100.1").parent) == ("rule", "100")
    assert (modern.rule("100").kind, modern.rule("100").parent) == ("section", "1")
    assert (modern.rule("1").kind, modern.rule("1").parent) == ("part", None)


def test_rule_numbers_used_as_titles(modern):
    training = modern.rule("702.149")
    assert (training.title, training.text) == ("Training", "")
    assert modern.rule("702.149a").parent == "702.149"
    assert modern.rule("100").title == "General"


def test_number_in_text_is_not_a_rule(modern):
    assert modern.rule("702.179b").text == "702.179c is next. It is a sentence."
    assert "702.179c" not in modern


def test_examples_attach_to_their_unit(modern):
    (ex,) = modern.rule("100.1b").examples
    assert (ex.text, ex.label, ex.line) == ("Four players sit around a table.", "Example:", 31)
    (doubled,) = modern.rule("101.1").examples
    assert doubled.label == "Example:Example:" and doubled.text == "A player controls a creature."
    assert any(d.code == "doubled-example-label" for d in modern.diagnostics)


def test_indented_continuation_paragraph_stays_in_its_rule(modern):
    rule = modern.rule("100.2")
    assert rule.text.split("\n") == [
        "To play, each player needs their own deck.",
        "Cards printed in sets prior to the Eighth Edition core set didn’t use the word “target.”",
    ]
    assert rule.spans == ((33, 33), (34, 34))


def test_stray_line_goes_to_residue(modern):
    assert [(r.line, r.text, r.reason) for r in modern.residue] == [(56, "f", "stray-line")]
    assert modern.rule("702.149a").text == "Training is a triggered ability."


def test_glossary_senses_and_pointers(modern):
    ability, typecycling = modern.glossary
    assert ability.term == "Ability"
    assert ability.senses[0].startswith("1. Text on an object")
    assert len(ability.senses) == 2
    assert ability.text.endswith("“Spells, Abilities, and Effects.”")
    assert (typecycling.term, typecycling.text) == ("Typecycling", "See Cycling.")


def test_credits(modern):
    assert [b.kind for b in modern.credits] == ["paragraph", "effective-date", "paragraph"]


def test_rule_parts_past_99_sort_numerically(modern):
    from crparse.numbers import sort_key

    ordered = sorted(["702.179", "702.99", "702.149", "702.1"], key=sort_key)
    assert ordered == ["702.1", "702.99", "702.149", "702.179"]
    assert not any(d.code == "out-of-order" for d in modern.diagnostics)


def test_hard_wrapped_1999(wrapped):
    assert wrapped.effective_date == "1999-04-23"
    assert numbers(wrapped) == ["1", "100", "100.1", "100.2", "100.2a", "100.2b", "101", "101.1", "101.2"]
    # The wrapped cross-reference "See rule\n103.4. If ..." continues 100.1; it is not rule 103.4.
    assert "103.4" not in wrapped
    assert wrapped.rule("100.1").text.endswith("See rule 103.4. If that rule applies, the game is a draw.")
    assert (wrapped.rule("100.1").line, wrapped.rule("100.1").end_line) == (36, 38)


def test_wrapped_example_and_indented_subrules(wrapped):
    sub = wrapped.rule("100.2a")
    assert sub.text == "Each player needs a deck of at least forty cards. Decks may contain any number of basic lands."
    (ex,) = sub.examples
    assert (ex.label, ex.text, ex.line, ex.end_line) == (
        "EXAMPLE:", "A player may have a deck of sixty cards, twenty of which are lands.", 44, 45)
    assert wrapped.rule("100.2").title == "Cards"


def test_no_space_after_number(wrapped):
    assert wrapped.rule("101.2").text == "The main phase begins."
    assert any(d.code == "no-space-after-number" and d.line == 54 for d in wrapped.diagnostics)


def test_1999_contents_first_then_introduction(wrapped):
    assert [c.title for c in wrapped.contents] == ["Introduction", "The Game", "General", "Starting the Game", "Glossary", "Index"]
    assert [b.kind for b in wrapped.front_matter] == ["title", "paragraph", "heading", "paragraph"]


def test_wrapped_glossary(wrapped):
    ability, activated = wrapped.glossary
    assert ability.text.split("\n")[1].startswith("A permanent may have one or more abilities.")
    assert activated.examples[0].label == "EXAMPLE:"


def test_1999_index(wrapped):
    entries = [(i.term, i.locators, i.depth) for i in wrapped.index]
    assert entries[2] == ("mana ability", "214.9f, 406.1, 408.2e, 411, 413.2e", 1)
    assert entries[0] == ("Abilities", "402", 0)


def test_decorations_are_residue_with_reason(wrapped):
    assert {r.reason for r in wrapped.residue} == {"decoration"}


@pytest.mark.parametrize("name", ["modern.txt", "wrapped1999.txt"])
def test_every_line_accounted_for_exactly_once(name):
    from conftest import FIXTURES

    path = FIXTURES / name
    doc = crparse.parse(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    seen: dict[int, str] = {}
    for first, last, where in doc.accounted_lines():
        for n in range(first, last + 1):
            assert n not in seen, f"line {n} in both {seen[n]} and {where}"
            seen[n] = where
    nonblank = {i + 1 for i, line in enumerate(lines) if line.strip()}
    assert nonblank <= set(seen)
    assert not any(d.code == "unaccounted-lines" for d in doc.diagnostics)


def test_fragment_from_text():
    doc = crparse.parse(
        "range of both Rob and the controller.\n\n601.12. The legend rule applies.\n\n"
        "Example: Alex has range of influence 1.\n\n601.13. The world rule applies.\n"
    )
    assert doc.fragment is not None and doc.fragment.sections == ("601",)
    assert (doc.fragment.first, doc.fragment.last) == ("601.12", "601.13")
    assert [(r.line, r.reason) for r in doc.residue] == [(1, "text-before-first-rule")]
    assert doc.rule("601.12").examples[0].text == "Alex has range of influence 1."


def test_comprules_stamps_become_changed_dates():
    doc = crparse.parse("601.1. Limited range. [CompRules 2005/08/01]\n\n601.2. More text.\n"
                        "Example: One. [CompRules 2007/10/01]\n")
    assert doc.rule("601.1").changed == "2005-08-01"
    assert doc.rule("601.1").text == "Limited range."
    assert doc.rule("601.2").examples[0].changed == "2007-10-01"
    assert doc.rule("601.2").changed is None
    assert [(r.line, r.text, r.reason) for r in doc.residue] == [
        (1, "[CompRules 2005/08/01]", "change-stamp"), (4, "[CompRules 2007/10/01]", "change-stamp")]


def test_truncated_document_is_diagnosed():
    from conftest import FIXTURES

    text = (FIXTURES / "modern.txt").read_text(encoding="utf-8")
    cut = text[: text.index("Typecycling")]
    doc = crparse.parse(cut)
    (diag,) = [d for d in doc.diagnostics if d.code == "truncated"]
    assert "glossary" in diag.message


def test_dot_leader_contents_of_late_1999():
    from conftest import FIXTURES

    doc = crparse.parse(FIXTURES / "dotleaders1999.txt")
    assert doc.effective_date == "1999-11-01"
    assert [(c.number, c.title, c.page) for c in doc.contents][:3] == [(None, "Introduction", 1), ("1", "The Game", 2), ("100", "General", 2)]
    assert [r.number for r in doc.rules] == ["1", "100", "100.1", "100.2", "101", "101.1", "2", "200", "200.1"]
    assert doc.rule("100.2").examples[0].label == "EXAMPLE:"
    (draw,) = doc.glossary
    assert draw.senses[1].startswith("2. A game ends in a draw")
    assert [i.term for i in doc.index] == ["draw step"]
    assert doc.credits[0].text.startswith("Magic: The Gathering Original Game Design")
    assert not [d for d in doc.diagnostics if d.severity != "info"]


def test_str_without_line_break_is_a_path(tmp_path):
    with pytest.raises(crparse.CrparseError, match="cannot read") as err:
        crparse.parse(str(tmp_path / "missing.txt"))
    assert err.value.path == str(tmp_path / "missing.txt")


@pytest.mark.parametrize("end", ["\x85", "\u2028", "\u2029"])
def test_str_whose_lines_end_in_nel_ls_or_ps_is_text(end):
    """Such a release was taken for a file name: "File name too long", a message of the whole text
    (sweep 43)."""
    text = "100. General\n\n100.1. One.\n\n100.2. Two.\n".replace("\n", end)
    assert [r.number for r in crparse.parse(text).rules] == ["100", "100.1", "100.2"]


def test_str_too_long_for_a_name_is_refused_in_a_short_message():
    with pytest.raises(crparse.CrparseError, match="a str of 100,000 characters without a line break") as err:
        crparse.parse("x" * 100_000)
    assert len(str(err.value)) < 200
