"""Owner and controller, control-changing effects, Auras, tokens, delayed triggers and leaving the
game (crparse.model.objects, game).  Each test quotes the rule it checks, with its release.
"""

import pytest

from crparse.model import Game, GameConfig
from crparse.model.rules import LeftoverFate

FOUR = ["P0", "P1", "P2", "P3"]


def game(date="2026-01-16", players=FOUR, **kw):
    return Game(GameConfig(players=players, rules_date=date, **kw))


# --- owner and controller ---------------------------------------------------------------------------

def test_default_controller_is_who_it_entered_under():
    """110.2 (2026-01-16): "A permanent's controller is, by default, the player under whose control it
    entered the battlefield." """
    g = game()
    c = g.create("Serra Angel", "P1", owner="P2")
    assert g.controller(c) == "P1" and g.owner(c) == "P2"


def test_control_change_until_end_of_turn():
    """514.2: "all "until end of turn" and "this turn" effects end" -- Act of Treason: "Gain control
    of target creature until end of turn" """
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    g.cast("P0", "Act of Treason", targets=[c])
    assert g.controller(c) == "P0"
    g.begin_next_turn()
    assert g.controller(c) == "P1"


def test_aura_control_lasts_while_attached():
    """Mind Control (2026-01-16 quotation in 800.4a): "You control enchanted creature." -- the effect
    lasts while the Aura is on the battlefield attached to the creature."""
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    mc = g.cast("P0", "Mind Control", targets=[c]).objects[0]
    assert g.controller(c) == "P0"
    g.destroy(mc)
    assert g.controller(c) == "P1"


def test_control_change_to_departed_player_does_not_happen():
    """800.4b (2026-01-16): "If an object would change to the control of a player who has left the
    game, it doesn't." """
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    g.leave_game("P0")
    assert g.objects.gain_control(c, "P0") is None and g.controller(c) == "P1"


# --- leaving the game: 800.4a ---------------------------------------------------------------------------

def test_owned_objects_leave_the_game():
    """800.4a (2026-01-16): "When a player leaves the game, all objects (see rule 109) owned by that
    player leave the game" """
    g = game()
    mine = g.create("Runeclaw Bear", "P1")
    lent = g.create("Serra Angel", "P2", owner="P1")
    g.leave_game("P1")
    assert g.zone(mine) == g.zone(lent) == "outside the game"


def test_effects_giving_control_to_departed_player_end():
    """800.4a (2026-01-16): "any effects which give that player control of any objects or players
    end." """
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    g.cast("P0", "Act of Treason", targets=[c])
    g.leave_game("P0")
    assert g.controller(c) == "P1" and g.zone(c) == "battlefield"


def test_aura_owner_leaving_takes_aura_away_and_control_reverts():
    """800.4a as above: the Aura (owned by the departing player) leaves the game, so its control
    effect ends."""
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    mc = g.cast("P0", "Mind Control", targets=[c]).objects[0]
    g.leave_game("P0")
    assert g.zone(mc) == "outside the game" and g.controller(c) == "P1"


def test_enchanted_creatures_owner_leaving_sends_aura_to_graveyard():
    """800.4a with 704.5m: "If an Aura is attached to an illegal object or player, or is not attached
    to an object or player, that Aura is put into its owner's graveyard." """
    g = game()
    c = g.create("Runeclaw Bear", "P1")
    mc = g.cast("P0", "Mind Control", targets=[c]).objects[0]
    rep = g.leave_game("P1")
    assert g.zone(c) == "outside the game" and g.zone(mc) == "graveyard" and g.owner(mc) == "P0"
    assert rep.to_graveyard == [mc]


@pytest.mark.parametrize("date,fate,zone", [
    ("2006-07-15", LeftoverFate.LEAVE_THE_GAME, "outside the game"),
    ("2006-10-01", LeftoverFate.REMOVED_FROM_GAME_ZONE, "exile"),
    ("2009-05-01", LeftoverFate.REMOVED_FROM_GAME_ZONE, "exile"),
    ("2009-07-11", LeftoverFate.EXILED, "exile"),
])
def test_objects_still_controlled_by_departed_player(date, fate, zone):
    """600.4a (2006-07-15): "Then, if there are any objects still controlled by that player, those
    objects leave the game."; 600.4a (2006-10-01) adds "(Any objects leaving the game this way that
    aren't owned by the player leaving the game are placed in the removed-from-the-game zone.)";
    800.4a (2009-07-11): "... those objects are exiled." """
    g = game(date)
    res = g.cast("P0", "Bribery", targets=["P1"], creature="Serra Angel")
    angel = res.objects[0]
    assert g.owner(angel) == "P1" and g.controller(angel) == "P0"
    rep = g.leave_game("P0")
    assert rep.leftover_fate is fate and rep.leftovers == [angel]
    assert g.zone(angel) == zone


def test_object_owned_by_departed_player_leaves_even_if_controlled_by_another():
    """800.4a: "all objects ... owned by that player leave the game" (a Bribery creature whose owner
    leaves)."""
    g = game()
    angel = g.cast("P0", "Bribery", targets=["P1"]).objects[0]
    g.leave_game("P1")
    assert g.zone(angel) == "outside the game"


def test_stack_objects_of_departed_player_by_date():
    """800.4a (2012-07-01): "all spells and abilities controlled by that player on the stack cease to
    exist"; 800.4a (2012-10-01): "if that player controlled any objects on the stack not represented
    by cards, those objects cease to exist. Then, if there are any objects still controlled by that
    player, those objects are exiled." """
    for date, card_zone in (("2012-07-01", "outside the game"), ("2012-10-01", "exile")):
        g = game(date)
        spell = g.create("Lava Axe", "P0", owner="P1", zone="stack")   # P1's card cast by P0
        ability = g.create("an ability", "P0", zone="stack", is_card=False)
        rep = g.leave_game("P0")
        assert g.zone(spell) == card_zone, date
        assert g.zone(ability) == "outside the game"  # owned by P0: it leaves the game first
        assert (spell in rep.ceased) is (date == "2012-07-01")


def test_orphaned_object_exiled_when_control_effect_ends():
    """800.4c (2012-02-01): "If an effect that gives a player still in the game control of an object
    ends, there is no other effect giving control of that object to another player in the game, and
    the object entered the battlefield under the control of a player who has left the game, the
    object is exiled." (2011-09-30: no such rule -- the object stays)"""
    for date, zone in (("2011-09-30", "battlefield"), ("2012-02-01", "exile")):
        g = game(date)
        angel = g.cast("P0", "Bribery", targets=["P1"]).objects[0]     # owned P1, entered under P0
        g.cast("P2", "Act of Treason", targets=[angel])                  # P2 controls it this turn
        g.leave_game("P0")
        assert g.controller(angel) == "P2"
        g.begin_next_turn()
        assert g.zone(angel) == zone, date


# --- tokens -----------------------------------------------------------------------------------------------

def chamber_game(date):
    g = game(date)
    g.create("Genesis Chamber", "P0")
    g.creature("P0")
    g.creature("P1")
    return g


def test_token_owner_before_2009_07_11_is_controller_of_the_ability():
    """200.4a (2009-05-01): "A token's owner is the player who controlled the spell or ability that
    put it into play. A token's controller is the player who put it into play." """
    g = chamber_game("2009-05-01")
    toks = g.tokens()
    assert sorted(g.controller(t) for t in toks) == ["P0", "P1"]
    assert {g.owner(t) for t in toks} == {"P0"}
    g.leave_game("P0")
    assert g.tokens() == []


def test_token_owner_from_2009_07_11_is_who_it_entered_under():
    """110.5a (2009-09-04): "A token is both owned and controlled by the player under whose control it
    entered the battlefield." """
    g = chamber_game("2009-07-11")
    assert sorted(g.owner(t) for t in g.tokens()) == ["P0", "P1"]
    g.leave_game("P0")
    assert [g.owner(t) for t in g.tokens()] == ["P1"]


def test_token_owner_from_2018_07_13_is_its_creator():
    """111.2 (2026-01-16): "The player who creates a token is its owner. The token enters the
    battlefield under that player's control." """
    g = chamber_game("2018-07-13")
    assert sorted(g.owner(t) for t in g.tokens()) == ["P0", "P1"]


def test_no_token_for_a_departed_player():
    """800.4b (2026-01-16): "If a token would be created under the control of a player who has left
    the game, no token is created." """
    g = game()
    g.leave_game("P1")
    assert g.objects.create_token("Myr", creator="P1") is None


def test_token_outside_battlefield_ceases_to_exist():
    """704.5d (2026-01-16): "If a token is in a zone other than the battlefield, it ceases to
    exist." """
    g = chamber_game("2026-01-16")
    t = g.tokens()[0]
    g.destroy(t)
    assert g.zone(t) == "outside the game"


# --- delayed triggers --------------------------------------------------------------------------------

def slide(date, leave):
    g = game(date)
    spec = g.create("Hypnotic Specter", "P0")
    s = g.create("Astral Slide", "P1")
    g.activate("P1", s, targets=[spec])
    assert g.zone(spec) == "exile"
    if leave:
        g.leave_game("P1")
    fired = g.end_step()
    return g, spec, fired


def test_delayed_trigger_returns_the_creature():
    """Astral Slide: "return that creature to the battlefield under its owner's control at the
    beginning of the next end step." """
    g, spec, fired = slide("2026-01-16", leave=False)
    assert g.zone(spec) == "battlefield" and g.controller(spec) == "P0"
    assert fired[0].outcome == "returned"


def test_delayed_trigger_of_departed_player_not_put_on_stack():
    """800.4d (2026-01-16): "If a triggered ability that would be controlled by a player who has left
    the game would be put onto the stack, it isn't put on the stack." """
    g, spec, fired = slide("2026-01-16", leave=True)
    assert g.zone(spec) == "exile" and fired[0].outcome == "isn't put on the stack"


def test_delayed_trigger_of_departed_player_before_2008_05_01():
    """600.4c (2008-02-01): "If an object owned by a player who has left the game would be put into
    any zone, it leaves the game instead. (This includes abilities that would be put onto the
    stack.)" """
    g, spec, fired = slide("2008-02-01", leave=True)
    assert g.zone(spec) == "exile"
    assert fired[0].outcome == "leaves the game rather than being put on the stack"


# --- damage to departed players -------------------------------------------------------------------

def test_no_damage_to_a_player_who_has_left():
    """800.4e (2026-01-16): "If combat damage would be assigned to a player who has left the game,
    that damage isn't assigned." """
    g = game()
    bear = g.create("Runeclaw Bear", "P0")
    g.leave_game("P1")
    assert g.deal_damage(bear, "P1", combat=True).dealt == {}
