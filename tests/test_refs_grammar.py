"""The reference grammar: every form the corpus uses, and what must not be read as a reference."""

from __future__ import annotations

import pytest

from crparse.refs.grammar import phrases, pointers


def cites(text: str, **kw) -> list[tuple[str, list[tuple[str, str, str | None]]]]:
    """Each citation as (its text, [(first, last, title)])."""
    return [(text[c.start : c.end], [(i.first, i.last, i.title) for i in c.items]) for c in phrases(text, **kw)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("See rule 704.5k.", [("rule 704.5k", [("704.5k", "704.5k", None)])]),
        ("(see rule 704.5j)", [("rule 704.5j", [("704.5j", "704.5j", None)])]),
        ("See Rule 420.", [("Rule 420", [("420", "420", None)])]),
        ("Rules 301.5a–e apply.", [("Rules 301.5a–e", [("301.5a", "301.5e", None)])]),
        ("section 8", [("section 8", [("8", "8", None)])]),
        ("subrule 704.5k is followed", [("subrule 704.5k", [("704.5k", "704.5k", None)])]),
    ],
)
def test_single_targets(text, expected):
    assert cites(text) == expected


@pytest.mark.parametrize(
    "text, first, last",
    [
        ("rules 702.25a–c", "702.25a", "702.25c"),  # en dash
        ("rules 603.7d - f", "603.7d", "603.7f"),  # spaced hyphen (2012-02-01)
        ("rules 603.7d-f", "603.7d", "603.7f"),
        ("rules 409.1a–409.1h", "409.1a", "409.1h"),  # full form (2004-02-01)
        ("rules 212-215", "212", "215"),  # sections (1999)
        ("rules 712.5–6", "712.5", "712.6"),  # rule numbers
        ("rules 418.5b?418.5g", "418.5b", "418.5g"),  # dash lost to '?' (2008-05-01)
        ("rules 409.1a\ufffd409.1f", "409.1a", "409.1f"),  # dash lost to U+FFFD (1999-2002 mirrors)
        ("rules 100.1 through 100.3", "100.1", "100.3"),
    ],
)
def test_ranges(text, first, last):
    ((written, items),) = cites(text + " of the game.")
    assert written == text
    assert items == [(first, last, None)]


def test_range_letter_ends_even_before_a_word():
    assert cites("rules 409.1b–i of")[0][1] == [("409.1b", "409.1i", None)]


def test_lists():
    assert cites("See rules 601.2b and 601.2f–h.") == [
        ("rules 601.2b and 601.2f–h", [("601.2b", "601.2b", None), ("601.2f", "601.2h", None)])
    ]
    assert cites("rules 100.1, 100.2, and 100.3 apply")[0][1] == [
        ("100.1", "100.1", None),
        ("100.2", "100.2", None),
        ("100.3", "100.3", None),
    ]
    assert cites("rule 402.8 or 402.9.")[0][1] == [("402.8", "402.8", None), ("402.9", "402.9", None)]
    assert cites("rules 608.3a and b.")[0][1] == [("608.3a", "608.3a", None), ("608.3b", "608.3b", None)]
    assert cites("rules 607.2a and  607.2b")[0][0] == "rules 607.2a and  607.2b"


def test_titled_references_each_start_a_citation():
    text = "(See rule 614, “Replacement Effects,” and rule 615, “Prevention Effects.”)"
    assert cites(text) == [
        ("rule 614, “Replacement Effects,”", [("614", "614", "Replacement Effects")]),
        ("rule 615, “Prevention Effects.”", [("615", "615", "Prevention Effects")]),
    ]
    assert cites('See rule 403, "Activated Abilities."') == [('rule 403, "Activated Abilities."', [("403", "403", "Activated Abilities")])]
    assert cites("See section 5, “Turn Structure.”")[0][1] == [("5", "5", "Turn Structure")]
    # a title without the comma (1999), and a title quoting a word in straight quotes
    assert cites('(See rule 418, "Continuous Effects" and rule 419)')[0][1] == [("418", "418", "Continuous Effects")]
    assert cites('See rule 421, "Handling "Infinite" Loops." Then')[0][1] == [("421", "421", 'Handling "Infinite" Loops')]


def test_titled_lists():
    semicolons = "See rule 113, “Emblems”; rule 901, “Planechase”; and rule 904, “Archenemy.”"
    assert [c[1][0][0] for c in cites(semicolons)] == ["113", "901", "904"]
    # the comma inside the quotes is the list's separator
    inside = "(See rules 702.109, “Dash,” 702.152, “Blitz,” and 702.185, “Warp.”)"
    ((written, items),) = cites(inside)
    assert written == "rules 702.109, “Dash,” 702.152, “Blitz,” and 702.185, “Warp.”"
    assert [(i[0], i[2]) for i in items] == [("702.109", "Dash"), ("702.152", "Blitz"), ("702.185", "Warp")]


def test_mixed_keywords_and_bare_numbers():
    assert cites("(See rules 306–311 and section 500, \"Legal Attacks and Blocks.\")") == [
        ("rules 306–311", [("306", "311", None)]),
        ('section 500, "Legal Attacks and Blocks."', [("500", "500", "Legal Attacks and Blocks")]),
    ]
    assert cites("the steps described in 409.1a–409.1f are completed")[0][0] == "409.1a–409.1f"
    assert cites("See 702.153, “Casualty.”")[0][1] == [("702.153", "702.153", "Casualty")]
    assert [c[0] for c in cites("subrule 704.5k is followed by 704.5m, then 704.5n")] == ["subrule 704.5k", "704.5m", "704.5n"]
    assert cites("see section 217.2, \"Library.\"")[0][1] == [("217.2", "217.2", "Library")]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("See rule 614 and then draw.", "rule 614"),
        ("See rule 702.25, and then draw.", "rule 702.25"),
        ("rule 702.25 and a creature", "rule 702.25"),
        ("rule 702.25—the rest", "rule 702.25"),
        ("Is that rule 118.5?", "rule 118.5"),
        ("See rule 419,8, \"Sources of Damage.\"", "rule 419"),  # the source's typo is not read as "8"
    ],
)
def test_a_reference_ends_where_the_grammar_does(text, expected):
    assert [c[0] for c in cites(text)] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Each player starts with 20 life.",
        "These rules are effective as of January 16, 2026.",
        "Roll a 20-sided die; draw 7 cards; 1.5 times; version 1.2.3; 2009.",
        "the legend rule and the rules text; two rules apply",
        "a rule of thumb; rules. 100 cards",
        "a ratio of 1000.5 or 12.5",
    ],
)
def test_non_references(text):
    assert cites(text) == []


def test_index_locators():
    text = "214.9f, 406.1, 408.2e, 411, 413.2e"
    ((written, items),) = cites(text, bare=True)
    assert written == text
    assert [i[0] for i in items] == ["214.9f", "406.1", "408.2e", "411", "413.2e"]
    assert cites("419.7-8", bare=True)[0][1] == [("419.7", "419.8", None)]
    assert cites("402", bare=True)[0][1] == [("402", "402", None)]


def test_citations_outside_the_cr():
    text = "// 613.1f applies\nif x > 100.5: # CR 704.5k and 704.5m\nsee rule 601.2\n# 702.19b\nv = 1.2.3"
    assert [c[0] for c in cites(text, cite=True)] == ["613.1f", "CR 704.5k and 704.5m", "rule 601.2", "702.19b"]


def terms(text: str) -> list[list[str]]:
    return [[i.first for i in c.items] for c in pointers(text)]


def test_glossary_pointers():
    assert terms("See Typecycling.") == [["Typecycling"]]
    assert terms("A permanent. See also Tap, Untap, and Untapped.") == [["Tap", "Untap", "Untapped"]]
    assert terms("See also Aura and Enchantment.") == [["Aura", "Enchantment"]]
    assert terms("Obsolete. See “Enters the Battlefield.”") == [["“Enters the Battlefield.”"]]
    assert terms('See Intervening "If" Clause.') == [['Intervening "If" Clause']]
    assert terms('See "Intervening "If" Clause.') == [['"Intervening "If" Clause']]  # quote left open (2003)
    # a rule reference after a pointer is the rule grammar's; lower-case text is no pointer
    assert terms("See Creature Types and rule 212.") == [["Creature Types"]]
    assert terms("See the Tournament Locator on the website.") == []
    assert terms("Text. See rule 702.29.") == []


# -- robustness ------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(
    ["rule ", "rules ", "section ", "See ", "See also ", "Rule ", "CR ", "// ", "and ", "or ", ", ", "; ",
     "–", "-", " - ", "?", "\ufffd", "“Title,” ", '"Ti"tle." ', "a", "b ", "l", ".", ")", "(", "\n",
     "100", "704.5k", "702.25a", "1", "12", "419.7", "Kicker", "words here "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_any_text_gives_spans_inside_it(text):
    for cite in (False, True):
        for c in phrases(text, cite=cite):
            assert 0 <= c.start < c.end <= len(text)
            assert "\n" not in text[c.start : c.end]
            for item in c.items:
                assert c.start <= item.start < item.end <= c.end
    for c in pointers(text):
        assert 0 <= c.start < c.end <= len(text)


def test_absurd_runs_stay_linear():
    text = "rules " + ", ".join(["100.1"] * 20000) + "."
    found = phrases(text)
    assert sum(len(c.items) for c in found) == 20000
