"""The examples' language: text -> sentences -> facts (crparse.examples.text, .read).

Written from the sentence forms, not from a table of examples: each test states a sentence as
the rules print it (or a new wording of the same form) and the facts it must give.
"""

from __future__ import annotations

import pytest

from crparse.examples.read import Unsupported, read
from crparse.examples.text import prepare


def test_quotes_are_masked_and_end_sentences_only_with_their_own_full_stop():
    p = prepare("Alex casts Pyroclasm, which reads, “Pyroclasm deals 2 damage to each creature.” "
                "Pyroclasm deals 2 damage to each creature controlled by Alex.")
    assert p.quotes == ("Pyroclasm deals 2 damage to each creature.",)
    assert p.sentences == ("Alex casts Pyroclasm, which reads, «0»", "Pyroclasm deals 2 damage to each creature controlled by Alex")
    p = prepare("Alex casts Lava Axe (“Lava Axe deals 5 damage to target player.”) targeting Rob. Rob leaves the game.")
    assert p.sentences == ("Alex casts Lava Axe «0» targeting Rob", "Rob leaves the game")


def test_the_lexicon_folds_twenty_years_of_wording():
    old = prepare("Alex plays Pyroclasm. He or she won't take his or her extra turn. In a game with range of influence limited to 1, "
                  "Alex is sitting to the left of Rob.")
    assert old.sentences == (
        "Alex casts Pyroclasm",
        "they will not take their extra turn",
        "in a game in which all players have range of influence 1, Alex is seated to the left of Rob",
    )


def _facts(text: str):
    s = read(text)
    return [(f.kind, f.negated, dict(f.args)) for f in s.setup + s.steps if not hasattr(f, "steps")]


def test_seating_ranges_and_range_premises():
    facts = _facts("In a game with a range of influence of 1, Alex is seated to the left of Rob, and Carissa is seated to "
                   "the right of Rob. Carissa is not in Alex's range of influence.")
    assert ("everyone-range", False, {"range": 1}) in facts
    assert ("seated", False, {"player": ("name", "Alex"), "side": "left", "of": ("name", "Rob")}) in facts
    assert ("seated", False, {"player": ("name", "Carissa"), "side": "right", "of": ("name", "Rob")}) in facts
    assert ("in-range", True, {"player": ("name", "Carissa"), "viewer": ("name", "Alex")}) in facts


def test_a_new_name_and_a_new_number_are_read_as_such():
    """No table of the cast: any capitalised name in a player's place is a player."""
    facts = _facts("In a game with a range of influence of 2, Dana is seated to the right of Eve. Dana is in Eve's range of influence.")
    assert ("everyone-range", False, {"range": 2}) in facts
    assert ("in-range", False, {"player": ("name", "Dana"), "viewer": ("name", "Eve")}) in facts


def test_per_player_ranges_in_a_relative_clause():
    facts = _facts("Alex, who has a range of influence of 2, is seated to the left of Rob, and Carissa, who has a range of "
                   "influence of 1, is seated to the right of Rob.")
    assert ("range", False, {"player": ("name", "Alex"), "range": 2}) in facts
    assert ("range", False, {"player": ("name", "Carissa"), "range": 1}) in facts


def test_two_headed_giant_life_outcomes():
    facts = _facts("In a Two-Headed Giant game, a player on a team that has 17 life is targeted by Beacon of Immortality, "
                   "which reads, in part, “Double target player's life total.” That player gains 17 life, so the team winds up at 34 life.")
    assert ("variant", False, {"name": "two-headed giant"}) in facts
    kinds = [k for k, _, _ in facts]
    assert kinds[-2:] == ["life-gained", "team-total"]
    assert facts[-1][2] == {"life": 34}


def test_turn_markers_with_number_words():
    facts = _facts("A Grand Melee game with sixteen players has four turn markers. A game with fifteen players has three turn markers.")
    assert ("turn-markers", False, {"players": 16, "markers": 4}) in facts
    assert ("turn-markers", False, {"players": 15, "markers": 3}) in facts


def test_a_conditional_is_a_branch():
    s = read("In a game with a range of influence of 1, Alex is seated to the left of Rob. If Rob leaves the game, "
             "Carissa will enter Alex's range of influence at the start of the next turn.")
    branch = s.steps[-1]
    assert [f.kind for f in branch.steps] == ["leaves", "next-turn", "in-range"]


def test_unreadable_sentence_is_named():
    with pytest.raises(Unsupported) as why:
        read("Alex is seated to the left of Rob. Rob juggles three flaming torches.")
    assert "Rob juggles three flaming torches." in why.value.reason
