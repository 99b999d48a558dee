"""Seats, turn order, range of influence, choices, attack options and variants (crparse.model.table).

Each test quotes the rule it checks (release 2026-01-16 unless another is named).
"""

import pytest

from crparse.model import AttackOption, Relation, SeatingError, Variant, alternating_seating, arrange, \
    emperor_minimal_ranges, make_table
from crparse.model.table import Table

SIX = ["P0", "P1", "P2", "P3", "P4", "P5"]


def table(players=SIX, ranges=None, **kw):
    return make_table(kw.pop("variant", Variant.FREE_FOR_ALL), players, ranges=ranges, **kw)


# --- seats ------------------------------------------------------------------------------------------

def test_left_is_next_in_turn_order():
    """101.4: "the next player in turn order (usually the player seated to the active player's
    left)"; 808.4: "Turn order goes to the players' left." """
    t = table()
    assert t.left_of("P0") == "P1" and t.left_of("P5") == "P0"
    assert t.right_of("P0") == "P5" and t.left_of("P0", 2) == "P2"
    assert t.next_in_turn_order("P3") == "P4"


def test_distance_is_counted_the_short_way_round():
    """801.2: "A player's range of influence is the maximum distance from that player, measured in
    player seats" """
    t = table()
    assert t.distance("P0", "P1") == 1
    assert t.distance("P0", "P5") == 1
    assert t.distance("P0", "P3") == 3
    assert t.distance("P1", "P4") == 3


def test_seats_close_up_when_a_player_leaves():
    """800.4: "multiplayer games can continue after one or more players have left the game";
    102.2/101.4: turn order passes over players no longer in the game."""
    t = table()
    t.leave("P1")
    assert t.players() == ["P0", "P2", "P3", "P4", "P5"]
    assert t.left_of("P0") == "P2" and t.distance("P0", "P2") == 1
    with pytest.raises(ValueError):
        t.left_of("P1")


# --- range of influence ------------------------------------------------------------------------------

def test_range_1_is_you_and_your_neighbours():
    """801.2a example: "A range of influence of 1 means that only you and the players seated
    directly next to you are within your range of influence." """
    t = table(ranges=1)
    assert t.range_of_influence("P0") == {"P5", "P0", "P1"}


def test_range_2_is_two_each_side():
    """801.2a example: "A range of influence of 2 means that you and the two players to your left
    and the two players to your right are within your range of influence." """
    t = table(SIX + ["P6"], ranges=2)
    assert t.range_of_influence("P0") == {"P5", "P6", "P0", "P1", "P2"}


def test_unlimited_range_covers_everyone():
    """801.1: limited range of influence is an option; without it every player can affect all."""
    t = table()
    assert t.range_of_influence("P0") == set(SIX) and not t.limited()


def test_a_player_is_always_within_their_own_range():
    """801.2b: "A player is always within their own range of influence." """
    t = table(ranges=0)
    assert t.range_of_influence("P3") == {"P3"}


def test_different_players_may_have_different_ranges():
    """801.2a: "Different players may have different ranges of influence." (ranges 3 and more are
    used by 809.6a)"""
    t = table(SIX + ["P6", "P7"], ranges={"P0": 3, "P4": 1})
    assert t.range_of_influence("P0") == {"P5", "P6", "P7", "P0", "P1", "P2", "P3"}
    assert t.range_of_influence("P4") == {"P3", "P4", "P5"}
    assert "P4" not in t.range_of_influence("P0")  # distance 4
    assert t.range_of_influence("P1") == set(SIX + ["P6", "P7"])  # no limit given for P1


def test_range_is_a_snapshot_taken_as_each_turn_begins():
    """801.2c: "The particular players within each player's range of influence are determined as
    each turn begins." -- a departure does not bring players into range until the next turn."""
    t = table(["C", "R", "A", "F"], ranges=1)
    assert not t.in_range("A", "C")
    t.leave("R")
    assert not t.in_range("A", "C")
    assert t.range_of_influence("A") == {"A", "F"}  # R is gone, C not yet in range
    t.begin_turn()
    assert t.in_range("A", "C") and t.in_range("C", "A")


def test_consecutive_departures_wait_for_the_next_turn():
    """807.4h (2010-07-16): "If one or more consecutively seated players leave the game, the players
    that were on either side of those seats don't enter one another's range of influence until the
    next turn begins." """
    t = make_table(Variant.GRAND_MELEE, [f"P{i}" for i in range(10)])
    t.leave("P1")
    t.leave("P2")
    assert not t.in_range("P0", "P3")
    t.begin_turn("P0")
    assert t.in_range("P0", "P3")


def test_begin_turn_moves_to_next_player_in_turn_order():
    """101.4: "the next player in turn order (usually the player seated to the active player's left)";
    800.4k: "If a player who has left the game would begin a turn, that turn doesn't begin." """
    t = table(["A", "B", "C", "D"])
    t.begin_turn("A")
    t.begin_turn()
    assert t.active == "B"
    t.leave("C")
    t.begin_turn()
    assert t.active == "D"
    t.leave("A")
    t.begin_turn()
    assert t.active == "B"


def test_shared_team_turns_pass_from_team_to_team():
    """805.4: "Each team takes turns rather than each player."; 805.4a: "The team whose turn it is is
    the active team." """
    t = make_table(Variant.TWO_HEADED_GIANT, ["a1", "a2", "b1", "b2"],
                   teams={"A": ["a1", "a2"], "B": ["b1", "b2"]})
    t.begin_turn("a1")
    assert t.active_players() == ["a1", "a2"]
    t.begin_turn()
    assert t.active_players() == ["b1", "b2"]
    t.begin_turn()
    assert t.active_players() == ["a1", "a2"]


# --- teams ------------------------------------------------------------------------------------------

def test_teammates_and_opponents():
    """102.3: "In a multiplayer game between teams, a player's teammates are the other players on
    their team, and the player's opponents are all players not on their team." """
    t = make_table(Variant.TEAM_VS_TEAM, ["a1", "a2", "b1", "b2"], teams={"A": ["a1", "a2"], "B": ["b1", "b2"]})
    assert t.teammates("a1") == ["a2"]
    assert t.opponents("a1") == ["b1", "b2"]
    assert not t.are_opponents("b1", "b2")


def test_without_teams_every_other_player_is_an_opponent():
    """806.1: "In Free-for-All multiplayer games, a group of players compete as individuals" """
    t = table()
    assert t.opponents("P0") == SIX[1:] and t.teammates("P0") == []


# --- choices ----------------------------------------------------------------------------------------

def test_choices_limited_to_both_ranges():
    """801.5a: "If a player is asked to choose an object or player, they must choose one within their
    range of influence."; 801.4: "Objects and players outside a player's range of influence can't be
    the targets of spells or abilities that player controls." """
    t = table(ranges=1)  # P1 chooses for P0's ability
    assert t.choosable_players("P1", "P0") == {"P0", "P1"}
    assert t.choosable_players("P1") == {"P0", "P1", "P2"}


def test_chooser_within_range():
    """801.5c (first half): a choice is made by a player within the controller's range when there is
    one."""
    t = table(ranges=1)
    cands, fallback = t.chooser_for("P0")
    assert cands == {"P1", "P5"} and fallback is None


def test_closest_appropriate_player_to_the_left_chooses_when_nobody_in_range_can():
    """801.5c: "If an effect requires a choice and there's no player who can make that choice within
    its controller's range of influence, the closest appropriate player to its controller's left
    makes that choice." """
    t = make_table(Variant.EMPEROR, ["gA1", "EA", "gA2", "gB1", "EB", "gB2"],
                   teams={"A": ["gA1", "EA", "gA2"], "B": ["gB1", "EB", "gB2"]}, ranges=1)
    cands, fallback = t.chooser_for("EA")
    assert cands == frozenset() and fallback == "gB1"


# --- attacks ----------------------------------------------------------------------------------------

def test_attack_only_opponents_in_range():
    """801.3: "Creatures can attack only opponents within their controller's range of influence ...
    If no opponents are within a player's range of influence, creatures that player controls can't
    attack." """
    t = table(ranges=1)
    assert t.attackable("P0") == {"P1", "P5"}
    t2 = make_table(Variant.TEAM_VS_TEAM, ["a1", "a2", "a3", "b1"], teams={"A": ["a1", "a2", "a3"], "B": ["b1"]},
                    ranges=1)
    assert t2.attackable("a2") == frozenset()


def test_attack_left_option():
    """803.1a: "If the attack left option is used, a player can attack only an opponent seated
    immediately to their left ... If a player's nearest opponent to the left is more than one seat
    away, the player can't attack." """
    t = table(attack_option=AttackOption.LEFT)
    assert t.attackable("P0") == {"P1"}
    t2 = make_table(Variant.TEAM_VS_TEAM, ["a1", "a2", "b1", "b2"], teams={"A": ["a1", "a2"], "B": ["b1", "b2"]},
                    attack_option="attack left")
    assert t2.attackable("a1") == frozenset()  # a2 (teammate) sits to the left
    assert t2.attackable("a2") == {"b1"}


def test_attack_right_option():
    """803.1b: "If the attack right option is used, a player can attack only an opponent seated
    immediately to their right" """
    t = table(attack_option=AttackOption.RIGHT)
    assert t.attackable("P0") == {"P5"}


def test_attack_multiple_players_option():
    """802.1: "Some multiplayer games allow the active player to attack multiple other players." """
    t = table()
    assert t.attack_option is AttackOption.MULTIPLE and t.may_attack_several()
    assert t.attackable("P0") == set(SIX[1:])


def test_emperor_attacks_only_adjacent_opponents():
    """809.3c: "A player can attack only an opponent seated immediately next to them"; example: "At
    the start of an Emperor game, neither emperor can attack any opponents, even though both of the
    opposing generals are within their spell range." """
    t = make_table(Variant.EMPEROR, ["gA1", "EA", "gA2", "gB1", "EB", "gB2"],
                   teams={"A": ["gA1", "EA", "gA2"], "B": ["gB1", "EB", "gB2"]})
    assert t.attackable("EA") == frozenset() and t.attackable("EB") == frozenset()
    assert {"gB1", "gB2"} <= t.range_of_influence("EA")
    assert t.attackable("gA2") == {"gB1"} and t.attackable("gA1") == {"gB2"}


def test_alternating_teams_attack_only_neighbours():
    """811.4: "A player can't attack opponents who aren't seated next to them" """
    order = alternating_seating([["A1", "A2"], ["B1", "B2"], ["C1", "C2"]])
    t = make_table(Variant.ALTERNATING_TEAMS, order,
                   teams={"A": ["A1", "A2"], "B": ["B1", "B2"], "C": ["C1", "C2"]})
    assert t.range_value("A1") == 2  # 811.2a "The recommended range of influence is 2."
    assert t.attackable("A1") == {"B1", "C2"}


def test_two_headed_giant_attack_unit_by_date():
    """810.7a (2018-01-19): "Each team's creatures attack the other team as a group."; 810.7
    (2018-04-27): "uses the combat rules for the shared team turns option (see rule 805.10)" -- each
    creature attacks a defending player (805.10b)."""
    kw = dict(teams={"A": ["a1", "a2"], "B": ["b1", "b2"]})
    old = make_table(Variant.TWO_HEADED_GIANT, ["a1", "a2", "b1", "b2"], rules_date="2018-01-19", **kw)
    new = make_table(Variant.TWO_HEADED_GIANT, ["a1", "a2", "b1", "b2"], rules_date="2018-04-27", **kw)
    assert old.attack_unit() == "team" and new.attack_unit() == "player"
    assert old.attackable("a1") == new.attackable("a1") == {"b1", "b2"}


# --- variants ---------------------------------------------------------------------------------------

def test_grand_melee_defaults():
    """807.2a: "Each player has a range of influence of 1"; 807.2b: "The attack left option is used" """
    t = make_table(Variant.GRAND_MELEE, [f"P{i}" for i in range(10)])
    assert all(t.range_value(p) == 1 for p in t.order)
    assert t.attack_option is AttackOption.LEFT


def test_free_for_all_same_range_for_everyone():
    """806.2a: "If it is [used], each player has the same range of influence, which is determined
    before play begins." """
    t = table(ranges=2)
    assert {t.range_value(p) for p in SIX} == {2}


def test_emperor_default_ranges():
    """809.3a: "The range of influence is limited to 2 for emperors and 1 for generals." 809.2:
    "Each team has one emperor, who sits in the middle of the team." """
    t = make_table(Variant.EMPEROR, ["gA1", "EA", "gA2", "gB1", "EB", "gB2"],
                   teams={"A": ["gA1", "EA", "gA2"], "B": ["gB1", "EB", "gB2"]})
    assert t.roles["EA"] == "emperor" and t.roles["gA1"] == "general"
    assert t.range_value("EA") == 2 and t.range_value("gB2") == 1


def test_emperor_minimal_ranges_for_teams_of_four():
    """809.6a: "Each general's range of influence should be the minimum number that allows one
    general from an opposing team to begin the game within their range of influence. Each emperor's
    range of influence should be the minimum number that allows two generals from opposing teams to
    begin the game within their range of influence." """
    order = ["Ag1", "AE", "Ag2", "Ag3", "Bg1", "BE", "Bg2", "Bg3"]
    teams = {p: p[0] for p in order}
    roles = {p: "emperor" if p.endswith("E") else "general" for p in order}
    r = emperor_minimal_ranges(order, teams, roles)
    assert r == {"Ag1": 1, "AE": 3, "Ag2": 2, "Ag3": 1, "Bg1": 1, "BE": 3, "Bg2": 2, "Bg3": 1}
    # "Players should be seated such that no emperor begins the game within the range of influence
    # of another emperor."
    t = make_table(Variant.EMPEROR, order, teams={"A": order[:4], "B": order[4:]}, roles=roles)
    assert not t.in_range("AE", "BE") and not t.in_range("BE", "AE")
    assert t.range_value("AE") == 3


def test_emperor_minimal_ranges_reproduce_the_three_player_defaults():
    """809.3a's 2 and 1 are the 809.6a minima for teams of three."""
    order = ["gA1", "EA", "gA2", "gB1", "EB", "gB2"]
    r = emperor_minimal_ranges(order, {p: ("A" if "A" in p else "B") for p in order},
                               {p: "emperor" if p[0] == "E" else "general" for p in order})
    assert r == {"gA1": 1, "EA": 2, "gA2": 1, "gB1": 1, "EB": 2, "gB2": 1}


def test_alternating_seating():
    """811.3: "players are seated so that no one is next to a teammate and each team is equally
    spaced out."; example: "A1, B1, C1, A2, B2, C2, A3, B3, C3" """
    teams = [["A1", "A2", "A3"], ["B1", "B2", "B3"], ["C1", "C2", "C3"]]
    order = alternating_seating(teams)
    assert order == ["A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"]
    n = len(order)
    assert all(order[i][0] != order[(i + 1) % n][0] for i in range(n))
    with pytest.raises(ValueError):
        alternating_seating([["A1"], ["B1", "B2"]])  # 811.1 "teams of equal size"


def test_two_headed_giant_uses_shared_team_turns():
    """810.2: "The Two-Headed Giant variant uses the shared team turns option." """
    t = make_table(Variant.TWO_HEADED_GIANT, ["a1", "a2", "b1", "b2"], teams={"A": ["a1", "a2"], "B": ["b1", "b2"]})
    assert t.shared_team_turns and not t.limited()


# --- seating from relations ---------------------------------------------------------------------------

def test_arrange_left_of_means_next_in_turn_order():
    """"X is seated to the left of Y" = X is next after Y in turn order (101.4)."""
    order, ranges = arrange([Relation("left_of", "Alex", "Rob"), Relation("right_of", "Carissa", "Rob")],
                            ranges=1)
    t = Table(order, ranges)
    assert t.left_of("Rob") == "Alex" and t.right_of("Rob") == "Carissa"
    assert len(order) == 4  # at least four seats unless told otherwise


def test_arrange_honours_a_stated_player_count():
    """801.10 example: "In a six-player game" """
    order, _ = arrange([], named=["Alex"], total=6)
    assert len(order) == 6 and order[0] == "Alex"


def test_arrange_solves_range_statements():
    """801.13b examples: "Rob is within Alex's range of influence, but Carissa is not." """
    rels = [Relation("in_range", "Alex", "Rob"), Relation("not_in_range", "Alex", "Carissa")]
    order, ranges = arrange(rels, ranges=1)
    t = Table(order, ranges)
    assert t.in_range("Alex", "Rob") and not t.in_range("Alex", "Carissa")


def test_arrange_between():
    """801.12 example (2013-02-01): "Rob sits between them." """
    order, ranges = arrange([Relation("between", "Rob", "Alex", "Carissa")],
                            ranges={"Alex": 1, "Carissa": 2, "*": 1})
    t = Table(order, ranges)
    assert {t.left_of("Rob"), t.right_of("Rob")} == {"Alex", "Carissa"}
    assert not t.in_range("Alex", "Carissa") and t.in_range("Carissa", "Alex")


def test_arrange_reports_impossible_relations():
    with pytest.raises(SeatingError):
        arrange([Relation("left_of", "A", "B"), Relation("right_of", "A", "B")], max_total=6)


def test_extra_turn_taken_by_the_team():
    """805.8: "If an effect gives a player an extra turn or adds a phase or step to that player's
    turn, that player's team takes the extra turn, phase, or step." """
    from crparse.model import Game, GameConfig
    g = Game(GameConfig(players=["a1", "a2", "b1", "b2"], variant="two-headed giant",
                        teams={"A": ["a1", "a2"], "B": ["b1", "b2"]}))
    g.cast("a2", "Time Walk")
    g.begin_next_turn()
    assert g.active_players() == ["a1", "a2"]
    g.begin_next_turn()
    assert g.active_players() == ["b1", "b2"]


def test_extra_turn_outside_teams():
    """500.7 (2026-01-16): "Some effects can give a player extra turns. They do this by adding the
    turns directly after the specified turn." """
    from crparse.model import Game, GameConfig
    g = Game(GameConfig(players=["A", "B", "C"]))
    g.cast("A", "Time Walk")
    assert g.begin_next_turn() == "A"
    assert g.begin_next_turn() == "B"
