"""Effects limited by range of influence, and the cards of the model's table (crparse.model.effects,
game, cards).  Each test quotes the rule it checks (release 2026-01-16 unless another is named).

Seven seats in turn order P0..P6; with range 1, P0 sees P6, P0 and P1.
"""

import pytest

from crparse.model import CARDS, Game, GameConfig, IllegalAction, card

SEVEN = [f"P{i}" for i in range(7)]


def game(ranges=1, date="2026-01-16", players=SEVEN, **kw):
    return Game(GameConfig(players=players, ranges=ranges, rules_date=date, **kw))


# --- affecting and targeting ------------------------------------------------------------------------

def test_damage_to_each_creature_only_in_range():
    """801.10: "Spells and abilities can't affect objects or players outside their controller's range
    of influence. The parts of the effect that attempt to affect an out-of-range object or player
    will do nothing. The rest of the effect will work normally." """
    g = game()
    bears = {p: g.creature(p, "Bear", subtypes=["Bear"], toughness=5) for p in SEVEN}
    g.cast("P3", "Pyroclasm")
    hit = {p for p, b in bears.items() if g.damage_on(b) == 2}
    assert hit == {"P2", "P3", "P4"}
    assert all(g.damage_on(b) == 0 for p, b in bears.items() if p not in hit)


def test_damage_to_each_player_only_in_range():
    """801.10 (players): Flame Rift "deals 4 damage to each player" reaches only players in range."""
    g = game(ranges=2)
    g.cast("P0", "Flame Rift")
    assert {p: g.life(p) for p in SEVEN} == {"P0": 16, "P1": 16, "P2": 16, "P3": 20, "P4": 20,
                                            "P5": 16, "P6": 16}


def test_targets_must_be_in_range():
    """801.4: "Objects and players outside a player's range of influence can't be the targets of
    spells or abilities that player controls." """
    g = game()
    with pytest.raises(IllegalAction):
        g.cast("P0", "Lava Axe", targets=["P3"])
    g.cast("P0", "Lava Axe", targets=["P1"])
    assert g.life("P1") == 15
    far = g.creature("P4")
    assert far not in g.legal_targets("P0") and "P6" in g.legal_targets("P0")


def test_choice_for_anothers_ability_is_within_both_ranges():
    """801.5a: "If a player is asked to choose an object or player, they must choose one within their
    range of influence." (with 801.4, a target of P0's ability chosen by P1 is also within P0's)"""
    g = game()
    mine, theirs, far = g.creature("P0"), g.creature("P1"), g.creature("P2")
    assert g.legal_targets("P0", chooser="P1") == {"P0", "P1", mine, theirs}
    assert far not in g.legal_targets("P0", chooser="P1")


def test_cuombajj_witches_second_target_chosen_by_opponent_in_both_ranges():
    """801.5a as above; Cuombajj Witches: "{T}: ... deals 1 damage to any target and 1 damage to any
    target of an opponent's choice" """
    g = game()
    w = g.create("Cuombajj Witches", "P2")
    with pytest.raises(IllegalAction):
        g.activate("P2", w, targets=["P1"], chooser="P3", second="P4")  # P4 not in P2's range
    g.activate("P2", w, targets=["P1"], chooser="P3", second="P3")
    assert g.life("P1") == 19 and g.life("P3") == 19


def test_activated_ability_of_object_out_of_range():
    """801.6: "A player can't activate the activated abilities of an object outside of their range of
    influence." """
    g = game()
    w = g.create("Cuombajj Witches", "P3")
    with pytest.raises(IllegalAction):
        g.activate("P0", w, targets=["P1"], chooser="P1", second="P1")


def test_mode_choice_is_not_limited_by_range():
    """801.5b: "If a player is asked to choose between one or more options (and not between one or
    more objects or players), they can choose between those options even if those options refer to
    objects or players outside the player's range of influence." -- the model limits only choices of
    objects and players: a chooser may be named when in the controller's range."""
    g = game(ranges={"P0": 2, **{p: 1 for p in SEVEN[1:]}})
    cands, _ = g.chooser_for("P0")
    assert "P2" in cands and not g.in_range("P2", "P0")


def test_fact_or_fiction_chooser_when_no_opponent_in_range():
    """801.5c: "If an effect requires a choice and there's no player who can make that choice within
    its controller's range of influence, the closest appropriate player to its controller's left
    makes that choice." """
    g = Game(GameConfig(players=["a1", "a2", "a3", "b1", "b2"], variant="team vs. team",
                        teams={"A": ["a1", "a2", "a3"], "B": ["b1", "b2"]}, ranges=1))
    res = g.cast("a2", "Fact or Fiction")
    assert res.chooser == (frozenset(), "b1")
    res = g.cast("a1", "Fact or Fiction")
    assert res.chooser == (frozenset({"b2"}), None)


# --- replacement and prevention -----------------------------------------------------------------------

def test_redirection_targets_must_be_in_range():
    """801.4: Captain's Maneuver's targets must both be within its controller's range."""
    g = game()
    with pytest.raises(IllegalAction):
        g.cast("P2", "Captain's Maneuver", targets=["P1", "P0"], x=2)


def test_redirected_part_outside_source_controllers_range_is_lost():
    """801.13a as above: the redirected damage would be dealt by a spell of P0 to P2, outside P0's
    range: that portion does nothing; the rest is dealt normally."""
    g = game()
    g.cast("P1", "Captain's Maneuver", targets=["P1", "P2"], x=2)
    res = g.cast("P0", "Lava Axe", targets=["P1"]).damage[0]
    assert g.life("P1") == 17 and g.life("P2") == 20
    assert res.redirected_nowhere == 2


def test_redirected_part_inside_range_is_dealt():
    """801.13a (converse): a redirection to a recipient within the source controller's range works."""
    g = game(ranges=2)
    g.cast("P1", "Captain's Maneuver", targets=["P1", "P2"], x=2)
    g.cast("P0", "Lava Axe", targets=["P1"])
    assert g.life("P1") == 17 and g.life("P2") == 18


def test_prevention_by_source_only_for_sources_in_range():
    """801.13b: "If a spell or ability creates an effect that prevents damage that would be dealt by a
    source, it can affect only sources within the spell or ability's controller's range of
    influence." """
    g = game()
    g.add_prevention("P0", "source", source_filter=lambda s: s.is_creature, static=True)
    near, far = g.creature("P1", power=3), g.creature("P2", power=3)
    g.deal_damage(near, "P0", combat=True)
    g.deal_damage(far, "P1", combat=True)
    assert g.life("P0") == 20 and g.life("P1") == 17


def test_prevention_to_recipient_only_for_recipients_in_range():
    """801.13b: "If a spell or ability creates an effect that prevents damage that would be dealt to
    a permanent or player, it can affect only permanents and players within the spell or ability's
    controller's range of influence." """
    g = game(ranges={**{p: 1 for p in SEVEN}, "P2": 3})
    g.cast("P2", "Lightning Blast", targets=["P5"])  # P5 out of P0's range -- no prevention possible
    with pytest.raises(IllegalAction):
        g.cast("P0", "Mending Hands", targets=["P5"])
    g.cast("P0", "Mending Hands", targets=["P1"])
    g.cast("P2", "Lightning Blast", targets=["P1"])  # source P2 out of P0's range: recipient counts
    assert g.life("P1") == 20 and g.life("P5") == 16


def test_unspecified_prevention_needs_both_source_and_recipient_in_range():
    """801.13b: "If a spell or ability creates an effect that prevents damage, but neither the source
    nor the would-be recipient of the damage is specified, it prevents damage only if both the source
    and recipient of that damage are within the spell or ability's controller's range of
    influence." """
    g = game()
    g.cast("P0", "Fog")
    a_in, a_out = g.creature("P1", power=2), g.creature("P2", power=3)
    g.deal_damage(a_in, "P0", combat=True)      # both in P0's range: prevented
    g.deal_damage(a_out, "P1", combat=True)     # source out of range: dealt
    assert g.life("P0") == 20 and g.life("P1") == 17
    g.deal_damage("P1", "P0", 1)                # not combat damage: Fog doesn't apply
    assert g.life("P0") == 19


def test_prevention_ends_with_the_turn_unless_static():
    """514.2: "all "until end of turn" and "this turn" effects end" in the cleanup step."""
    g = game()
    g.cast("P0", "Mending Hands", targets=["P0"])
    g.begin_next_turn()
    g.deal_damage("P1", "P0", 4)
    assert g.life("P0") == 16


def test_honorable_passage_is_limited_by_both_sentences():
    """801.13b: an effect preventing damage "dealt by a source" affects only sources within range,
    and one preventing damage "dealt to a permanent or player" only recipients within range;
    Honorable Passage specifies both a source (chosen) and a recipient (target), so both limits
    apply in the model (see docs/model.md: the 2005-2007 examples read it otherwise)."""
    g = game(date="2006-02-01")
    g.cast("P0", "Honorable Passage", targets=["P1"], source="P2")
    g.cast("P2", "Lightning Blast", targets=["P1"])  # P2 is outside P0's range: not prevented
    assert g.life("P1") == 16
    g.cast("P0", "Honorable Passage", targets=["P1"], source="P6")
    g.cast("P6", "Lightning Blast", targets=["P0"])  # another recipient: shield unused
    g.cast("P1", "Lightning Blast", targets=["P1"])  # another source: shield unused
    assert g.life("P1") == 12
    g2 = game(date="2006-02-01", ranges={**{p: 1 for p in SEVEN}, "P0": 2})
    g2.cast("P0", "Honorable Passage", targets=["P1"], source="P2")
    r = g2.cast("P2", "Lightning Blast", targets=["P1"]).damage[0]  # both within P0's range
    assert r.prevented["P1"] == 4 and g2.life("P1") == 20
    assert r.reflected == {"P2": 4} and g2.life("P2") == 16  # "deals that much damage"
    g2.cast("P2", "Lightning Blast", targets=["P1"])  # "the next time": used up
    assert g2.life("P1") == 16


# --- triggers ---------------------------------------------------------------------------------------

def test_trigger_event_must_be_entirely_in_range():
    """801.7: "A triggered ability doesn't trigger unless its trigger event happens entirely within
    the range of influence of its source's controller." """
    g = game()
    aura = g.create("Watching Aura", "P1", types=["Enchantment"], subtypes=["Aura"])
    attacker, blocker = g.creature("P2"), g.creature("P3")
    assert g.triggers(aura, [attacker])
    assert not g.triggers(aura, [attacker, blocker])


def test_leaves_battlefield_trigger_uses_state_before_the_event():
    """801.7a: "If a trigger event includes an object moving out of or into a player's range of
    influence, use the game state before or after the event as appropriate to determine whether the
    triggered ability will trigger." -- a creature that dies is where its controller was."""
    g = game()
    stolen = g.create("Runeclaw Bear", "P4", owner="P0")  # owned by P0, controlled by P4
    d0 = g.create("Extractor Demon", "P0")
    d4 = g.create("Extractor Demon", "P4")
    fired = g.destroy(stolen)
    assert fired == [d4] and g.zone(stolen) == "graveyard" and g.owner(stolen) == "P0"


def test_soul_net_and_extractor_demon_other_creature_only():
    """Extractor Demon: "Whenever another creature leaves the battlefield"; Soul Net: "Whenever a
    creature is put into a graveyard from the battlefield" (801.7 for range)."""
    g = game(ranges=None)
    d = g.create("Extractor Demon", "P0")
    s = g.create("Soul Net", "P1")
    assert g.destroy(d) == [s]


def test_genesis_chamber_sees_only_creatures_entering_in_range():
    """801.7 with Genesis Chamber ("Whenever a nontoken creature enters, if Genesis Chamber is
    untapped, that creature's controller creates a 1/1 colorless Myr artifact creature token")."""
    g = game()
    g.create("Genesis Chamber", "P0")
    g.creature("P1")
    g.creature("P3")
    toks = g.tokens()
    assert len(toks) == 1 and g.controller(toks[0]) == "P1"


# --- information -------------------------------------------------------------------------------------

def coat_game(date):
    g = game(date=date)
    gob = {p: g.creature(p, "Goblin", subtypes=["Goblin"], power=1, toughness=1) for p in SEVEN}
    g.create("Coat of Arms", "P3")
    return g, gob


def test_coat_of_arms_counts_only_creatures_in_its_controllers_range():
    """801.11: "If a spell or ability requires information from the game, it gets only information
    from within its controller's range of influence. It doesn't see objects or events outside its
    controller's range of influence." """
    g, gob = coat_game("2026-01-16")
    assert g.power_toughness(gob["P3"]) == (3, 3)  # P2's and P4's Goblins
    assert g.power_toughness(gob["P0"]) == (1, 1)  # 801.10: out of range, not affected


def test_coat_of_arms_on_neighbour_from_2011_05_01():
    """801.11 (2011-05-01) second example: the neighbour's creatures are boosted "based on what
    creatures are controlled by players within Alex's range of influence, including the player
    sitting to Alex's left, who's out of Rob's range of influence." """
    g, gob = coat_game("2011-05-01")
    assert g.power_toughness(gob["P2"]) == (3, 3)  # P3's and P4's Goblins


def test_coat_of_arms_on_neighbour_before_2011_05_01():
    """801.11 (2011-04-01) second example: "based only on what creatures are controlled by Rob and
    Alex. They are the only two players within range of both Rob and the controller of Coat of
    Arms." """
    g, gob = coat_game("2011-04-01")
    assert g.power_toughness(gob["P2"]) == (2, 2)  # P3's Goblin only


# --- winning --------------------------------------------------------------------------------------------

def test_win_under_limited_range_from_2007_10_01():
    """601.15 (2007-10-01): "If an effect states that a player wins the game, all of that player's
    opponents within his or her range of influence lose the game instead." """
    g = game(date="2007-10-01")
    assert g.win_game("P0") == ["P1", "P6"]
    assert g.players() == ["P0", "P2", "P3", "P4", "P5"] and not g.won


def test_win_under_limited_range_before_2007_10_01():
    """601.2 (2007-09-07): "Range of influence covers spells, abilities, effects, damage dealing,
    attacking, and making choices." -- not winning: 102.2b "An effect may state that a player wins
    the game." """
    g = game(date="2007-09-07")
    assert g.win_game("P0") == ["P0"] and g.has_won("P0")


def test_test_of_endurance_new_threshold_is_team_life():
    """810.9a (2026-01-16): "If a cost or effect needs to know the value of an individual player's
    life total, that cost or effect uses the team's life total instead." (Test of Endurance: "if you
    have 50 or more life, you win the game")"""
    g = Game(GameConfig(players=["a1", "a2", "b1", "b2"], variant="two-headed giant",
                        teams={"A": ["a1", "a2"], "B": ["b1", "b2"]}, life={"A": 50}))
    g.create("Test of Endurance", "a1")
    assert set(g.upkeep("a1")) == {"a1", "a2"}


def test_test_of_endurance_old_threshold_uses_half_the_team():
    """806.9a (2010-02-01): "that effect uses the team's life total divided by two, rounded up" """
    for team_life, wins in ((98, False), (99, True)):
        g = Game(GameConfig(players=["a1", "a2", "b1", "b2"], variant="two-headed giant",
                            teams={"A": ["a1", "a2"], "B": ["b1", "b2"]}, rules_date="2010-02-01",
                            life={"A": team_life}))
        g.create("Test of Endurance", "a1")
        assert bool(g.upkeep("a1")) is wins


# --- legend rule ----------------------------------------------------------------------------------------

def test_legend_rule_within_range_until_2013_07_11():
    """801.12 (2013-02-01): "The "legend rule" (see rule 704.5k) applies to a permanent only if other
    legendary permanents with the same name are within its controller's range of influence."; 704.5k:
    "all are put into their owners' graveyards" """
    g = game(date="2013-02-01", ranges={**{p: 1 for p in SEVEN}, "P2": 2})
    a = g.create("Hero", "P0", types=["Creature"], supertypes=["Legendary"])
    b = g.create("Hero", "P2", types=["Creature"], supertypes=["Legendary"])
    c = g.create("Hero", "P4", types=["Creature"], supertypes=["Legendary"])
    # P2 (range 2) sees P0's and P4's legends; P0 and P4 (range 1) don't see P2's
    assert g.apply_legend_rule() == [b]
    assert g.zone(a) == g.zone(c) == "battlefield"


def test_legend_rule_per_controller_from_2013_07_11():
    """704.5k (2013-07-11): "If a player controls two or more legendary permanents with the same
    name, that player chooses one of them, and the rest are put into their owners' graveyards." """
    g = game(date="2013-07-11", ranges={**{p: 1 for p in SEVEN}, "P2": 2})
    g.create("Hero", "P0", types=["Creature"], supertypes=["Legendary"])
    g.create("Hero", "P2", types=["Creature"], supertypes=["Legendary"])
    assert g.apply_legend_rule() == []
    x = g.create("Hero", "P2", types=["Creature"], supertypes=["Legendary"])
    assert g.apply_legend_rule() == [x]


# --- Auras ------------------------------------------------------------------------------------------------

def test_aura_cant_enchant_out_of_range():
    """801.8: "An Aura can't enchant an object or player outside its controller's range of influence.
    If an Aura is attached to an illegal object or player, the Aura is put into its owner's graveyard
    as a state-based action." """
    g = game()
    far = g.creature("P3")
    with pytest.raises(IllegalAction):
        g.cast("P0", "Mind Control", targets=[far])
    near = g.creature("P1")
    mc = g.cast("P0", "Mind Control", targets=[near]).objects[0]
    assert g.controller(near) == "P0"
    g.leave_game("P6")  # nothing changes for the Aura
    g.check_state()
    assert g.zone(mc) == "battlefield"


# --- Two-Headed Giant card arithmetic -----------------------------------------------------------------

def hg(date, life):
    return Game(GameConfig(players=["a1", "a2", "b1", "b2"], variant="two-headed giant",
                           teams={"A": ["a1", "a2"], "B": ["b1", "b2"]}, rules_date=date, life=life))


def test_hidetsugu_uses_individual_life():
    """806.9a (2010-02-01) / 810.9a (2026-01-16): half of the individual life total, rounded down,
    to each player; 810.9: the result applied to the team total."""
    old, new = hg("2010-02-01", {"A": 21}), hg("2026-01-16", {"A": 21})
    for g in (old, new):
        h = g.create("Heartless Hidetsugu", "b1")
        g.activate("b1", h)
    assert old.team_life("A") == 21 - 2 * (11 // 2)   # individual 11
    assert new.team_life("A") == 21 - 2 * (21 // 2)   # individual 21


def test_lurking_jackals_threshold_by_individual_life():
    """806.9a (2010-02-01) vs 810.9a (2026-01-16): "When an opponent has 10 life or less" reads the
    individual total."""
    for date, team, fires in (("2010-02-01", 20, True), ("2010-02-01", 21, False),
                              ("2026-01-16", 11, False), ("2026-01-16", 10, True)):
        g = hg(date, {"B": team})
        g.create("Lurking Jackals", "a1")
        assert bool(g.state_triggers()) is fires, (date, team)


def test_repay_in_kind_new_rules():
    """810.9d (2026-01-16): "If an effect would set the life total of each player on a team to a
    number, that team chooses one of its members. On that team, only that player is affected." """
    g = hg("2026-01-16", {"A": 4, "B": 19})
    g.cast("a1", "Repay in Kind")
    assert g.team_life("A") == 4 and g.team_life("B") == 4


def test_repay_in_kind_old_rules_sum():
    """806.9b (2010-02-01): "the result is the sum of all the numbers" -- with individual totals of
    half the team's, rounded up (4 -> 2, 19 -> 10): each team becomes 2 + 2."""
    g = hg("2010-02-01", {"A": 4, "B": 19})
    g.cast("a1", "Repay in Kind")
    assert g.team_life("A") == 4 and g.team_life("B") == 4


def test_biorhythm_counts_each_players_creatures():
    """Biorhythm: "Each player's life total becomes the number of creatures they control."; 606.9b
    (2008-02-01): the team's total is the sum."""
    g = hg("2008-02-01", {"A": 30, "B": 30})
    g.creature("a1"), g.creature("a1"), g.creature("b2")
    g.cast("b1", "Biorhythm")
    assert g.team_life("A") == 2 and g.team_life("B") == 1


def test_beacon_of_immortality_targets_a_player():
    """810.9a (2026-01-16) with 701.10d: doubling the individual (team) total."""
    g = hg("2026-01-16", {"B": 9})
    g.cast("a1", "Beacon of Immortality", targets=["b2"])
    assert g.team_life("B") == 18


def test_lurking_evil_pays_half_individual_life():
    """810.9a (2026-01-16): the cost "Pay half your life, rounded up" reads the team total."""
    g = hg("2026-01-16", {"A": 9})
    e = g.create("Lurking Evil", "a2")
    g.activate("a2", e)
    assert g.team_life("A") == 4 and g.power_toughness(e) == (4, 4)


# --- attacks ---------------------------------------------------------------------------------------------

def test_teferis_moat_two_headed_giant_by_date():
    """810.7c (2018-01-19): "If an effect of an object controlled by a defending player prohibits a
    creature from attacking him or her, that creature can't attack the defending team."; 802.3a
    (2018-04-27, via 805.10): "Restrictions and requirements that apply to attacking a specific
    player apply only to creatures attacking that player." """
    for date, may_attack_b2 in (("2018-01-19", False), ("2018-04-27", True)):
        g = hg(date, {})
        g.create("Teferi's Moat", "b1", color="green")
        bear = g.create("Grizzly Bears", "a1")
        griffin = g.create("Assault Griffin", "a1")
        assert not g.can_attack(bear, "b1")
        assert g.can_attack(bear, "b2") is may_attack_b2
        assert g.can_attack(griffin, "b1")


def test_landwalk_checks_the_attacked_player():
    """802.2a: "If an ability of an attacking creature refers to a defending player ... the defending
    player it's referring to is the player that creature is attacking"; 810.7d example (2018-01-19):
    "If an attacking creature has forestwalk and either player on the defending team controls a
    Forest, the creature can't be blocked." """
    for date, unblockable in (("2018-01-19", True), ("2018-04-27", False)):
        g = hg(date, {})
        g.create("Forest", "b2", types=["Land"], subtypes=["Forest"])
        walker = g.creature("a1", keywords=["forestwalk"])
        assert g.landwalk_unblockable(walker, "b1", "Forest") is unblockable
        assert g.landwalk_unblockable(walker, "b2", "Forest")


def test_card_table_is_keyed_by_name():
    """The card table keys cards by name (curly apostrophes accepted)."""
    assert card("Captain\u2019s Maneuver").effect == "redirect_next"
    assert card("Runeclaw Bear").power == 2 == card("Grizzly Bears").power
    assert all(c.name.lower() == k for k, c in CARDS.items())
    with pytest.raises(KeyError):
        card("Black Lotus")
