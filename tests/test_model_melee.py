"""Grand Melee turn markers (crparse.model.melee).  Each test quotes the rule it checks, release
2026-01-16 unless another is named.  Players P0..P(n-1) in turn order; P0 starts."""

import pytest

from crparse.model import Game, GameConfig, marker_count


def melee(n, date="2026-01-16"):
    return Game(GameConfig(players=[f"P{i}" for i in range(n)], variant="grand melee", rules_date=date))


def test_one_marker_for_each_full_four_players():
    """807.4a: "There is one turn marker for each full four players in the game." """
    assert [marker_count(n) for n in (3, 4, 7, 8, 10, 15, 16, 17)] == [0, 1, 1, 2, 2, 3, 4, 4]


def test_markers_handed_out_every_four_seats():
    """807.4b: "The starting player in the game gets the first turn marker. The player four seats to
    that player's left (the fifth player) takes the second turn marker, and so on ... Then all
    players with turn markers start their turns at the same time." """
    g = melee(12)
    assert g.melee.holders == {1: "P0", 2: "P4", 3: "P8"}
    assert g.active_players() == ["P0", "P4", "P8"]


def test_marker_passes_left_after_the_turn():
    """807.4c: "After a player ends their turn, that player passes the turn marker to the player on
    their left." """
    g = melee(12)
    g.end_turn("P0")
    assert g.melee.holders[1] == "P1"


def test_player_waits_while_a_marker_is_within_three_seats_to_the_left():
    """807.4d: "A player who receives a turn marker can't begin their turn if any player in the three
    seats to their left has a turn marker. If this is the case, that player waits until the player
    four seats to their left takes the other turn marker." """
    g = melee(12)  # markers at P0, P4, P8
    g.end_turn("P0")
    assert not g.melee.is_taking_turn("P1")  # P4, three seats to P1's left, has a marker
    g.end_turn("P4")  # marker 2 goes to P5, four seats to P1's left
    assert g.melee.is_taking_turn("P1")
    assert not g.melee.is_taking_turn("P5")  # P8 is three seats to P5's left
    g.end_turn("P8")
    assert g.melee.is_taking_turn("P5")
    assert g.melee.is_taking_turn("P9")  # P10, P11 and P0 hold no marker


def test_departure_that_reduces_markers_designates_the_marker_to_its_right():
    """807.4e: "If a player leaves the game and that player leaving the game would reduce the number of
    turn markers in the game, the turn marker immediately to the departed player's right is designated
    for removal."; 807.4g: "If a player who's taking a turn has a turn marker that's been designated
    for removal, that turn marker is removed rather than being passed after that turn ends." """
    g = melee(16)
    g.leave_game("P2")
    assert g.melee.designations(1) == 1 and g.melee.count() == 4
    g.end_turn("P0")
    assert g.melee.count() == 3 and 1 not in g.melee.holders and not g.melee.has_marker("P1")


def test_departure_that_keeps_the_count_designates_nothing():
    """807.4e: only a departure that "would reduce the number of turn markers" designates one."""
    g = melee(17)
    g.leave_game("P2")
    assert g.melee.designated == {} and g.melee.count() == 4


def test_marker_of_player_not_taking_a_turn_is_removed_at_once():
    """807.4g: "If a player who's not taking a turn has a turn marker that's been designated for
    removal, that turn marker is removed immediately." """
    g = melee(16)  # markers at P0, P4, P8, P12
    g.end_turn("P0")  # marker 1 waits at P1 (P4 is within three seats)
    assert g.melee.waiting() == ["P1"]
    g.leave_game("P2")  # 15 players: 3 markers; the marker immediately to P2's right is P1's
    assert 1 not in g.melee.holders and g.melee.count() == 3


def test_designated_markers_are_disregarded_when_counting():
    """807.4f: "For the purposes of determining if one or more players leaving the game would reduce
    the number of turn markers in the game (see rule 807.4e), disregard turn markers already
    designated for removal." """
    g = melee(16)
    g.leave_game("P2")  # 15 players: 3 markers -> marker 1 designated
    g.leave_game("P6")  # 14 players: still 3 markers once marker 1 is disregarded
    assert sum(g.melee.designated.values()) == 1


def test_marker_holder_leaving_before_their_turn_passes_it_at_once():
    """807.4c: "If a player with a turn marker leaves the game before their turn begins, the player to
    their left takes the turn marker immediately." """
    g = melee(9)  # markers at P0 and P4
    g.end_turn("P0")
    assert g.melee.waiting() == ["P1"]
    g.leave_game("P1")  # 8 players: still two markers
    assert g.melee.holders[1] == "P2" and g.melee.count() == 2


def test_marker_holder_leaving_during_their_turn_passes_it_after_the_turn():
    """807.4c: "If a player with a turn marker leaves the game during their turn, the player to their
    left takes the turn marker after that turn ends." """
    g = melee(9)
    g.leave_game("P0")
    assert g.melee.holders[1] == "P0"
    g.melee.end_turn("P0")
    assert g.melee.holders[1] == "P1"


def test_extra_turn_keeps_the_marker_when_no_marker_is_near():
    """807.4i: "If an effect causes a player with a turn marker to take an extra turn after the current
    one, that player keeps the turn marker and starts their next turn after the current turn ends,
    unless another turn marker is too close on either side at that time." """
    g = melee(10)  # markers at P0 and P4
    g.cast("P0", "Time Walk")
    g.end_turn("P0")
    assert g.melee.holders[1] == "P0" and g.melee.is_taking_turn("P0")
    assert [r.player for r in g.melee.log].count("P0") == 2


def test_extra_turn_with_a_marker_close_on_the_right():
    """807.4i: "If a turn marker is within three seats on the player's right, the player passes the
    turn marker to their left when the turn ends rather than keeping it, and the player will take the
    extra turn immediately before their next turn." """
    g = melee(8)  # markers at P0 and P4
    g.end_turn("P4")  # marker 2 waits at P5, three seats to P0's right
    assert g.melee.holders[2] == "P5"
    g.cast("P0", "Time Walk")
    g.end_turn("P0")
    assert g.melee.holders[1] == "P1" and g.melee.extra_before_next == {"P0": 1}


def test_deferred_extra_turn_comes_just_before_the_next_turn():
    """807.4i / 807.4j: "the player will take the extra turn immediately before their next turn" """
    g = melee(8)
    g.end_turn("P4")
    g.cast("P0", "Time Walk")
    g.end_turn("P0")
    while not g.melee.has_marker("P0"):
        g.end_turn(next(p for p in g.active_players()))
    assert g.melee.is_taking_turn("P0") and g.melee.log[-1].extra
    g.end_turn("P0")
    assert g.melee.is_taking_turn("P0") and not g.melee.log[-1].extra


def test_extra_turn_without_a_marker_waits_for_the_next_turn():
    """807.4j: "If an effect would cause a player to take an extra turn after the current turn, but
    that player wouldn't have a turn marker at the start of that turn, that player will take the
    extra turn immediately before their next turn instead." """
    g = melee(16)
    g.cast("P0", "Time Walk")
    g.leave_game("P1")  # 15 players: P0's marker is designated
    g.end_turn("P0")
    assert not g.melee.has_marker("P0") and g.melee.extra_before_next == {"P0": 1}


def test_old_removal_rule_runs_the_same_way():
    """808.4e (2010-04-23): "a turn marker is removed. Turn markers are removed only between turns.
    Remove the turn marker immediately to the departed player's right." """
    g = melee(16, date="2010-04-23")
    assert g.melee.removal_rule().name == "BETWEEN_TURNS"
    g.leave_game("P2")
    assert g.melee.count() == 4
    g.end_turn("P0")
    assert g.melee.count() == 3


def test_melee_uses_end_turn():
    g = melee(8)
    with pytest.raises(ValueError):
        g.begin_next_turn()
