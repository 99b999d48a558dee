"""Life, poison, winning and losing, in Two-Headed Giant and outside it (crparse.model.life, game).

Each test quotes the rule it checks, with the release the text was read in.
"""

import pytest

from crparse.model import Game, GameConfig, IllegalAction

TEAMS = {"A": ["a1", "a2"], "B": ["b1", "b2"]}


def hg(date, life=None):
    return Game(GameConfig(players=["a1", "a2", "b1", "b2"], variant="two-headed giant", teams=TEAMS,
                           rules_date=date, life=life or {}))


def ffa(date="2026-01-16", n=4, **kw):
    return Game(GameConfig(players=[f"P{i}" for i in range(n)], rules_date=date, **kw))


# --- starting totals ------------------------------------------------------------------------------

def test_team_starting_life_by_date():
    """606.4a (2007-02-01): "Each team has a shared life total, which starts at 40 life."; 810.4
    (2026-01-16): "Each team has a shared life total, which starts at 30 life." """
    assert hg("2007-02-01").team_life("A") == 40
    assert hg("2026-01-16").team_life("A") == 30


def test_free_for_all_players_start_at_20():
    """103.4 (2026-01-16): "Each player begins the game with a starting life total of 20." """
    g = ffa()
    assert all(g.life(p) == 20 for p in g.players())


# --- damage, loss, gain ---------------------------------------------------------------------------

def test_damage_to_each_player_is_applied_to_the_team_total():
    """810.9 (2026-01-16): "Damage, loss of life, and gaining life happen to each player individually.
    The result is applied to the team's shared life total." """
    g = hg("2026-01-16")
    g.deal_damage("b1", "a1", 4)
    g.deal_damage("b1", "a2", 4)
    g.gain_life("b2", 3)
    assert g.team_life("A") == 22 and g.team_life("B") == 33
    assert [e.player for e in g.life_book.events] == ["a1", "a2", "b2"]


# --- individual life as effects see it ---------------------------------------------------------------

def test_individual_life_half_before_2010_04_23():
    """806.9a (2010-02-01): "that effect uses the team's life total divided by two, rounded up,
    instead." """
    g = hg("2010-02-01", {"A": 17})
    assert g.life("a1") == g.life("a2") == 9 and g.life_total("a1") == 17


def test_individual_life_is_team_life_from_2010_04_23():
    """806.10a (2010-04-23): "that cost or effect uses the team's life total instead." """
    g = hg("2010-04-23", {"A": 17})
    assert g.life("a1") == 17


# --- setting one player's life ------------------------------------------------------------------------

def test_set_one_life_2005_08_01_sets_the_team():
    """606.9c (2005-08-01): "If an effect would set a single player's life total to a number, that
    player's team's life total becomes that number." (606.9a: the player counts as 13 of 25)"""
    g = hg("2005-08-01", {"A": 25})
    g.set_life("a1", 2 * g.life("a1"))  # "Double your life total": 13 -> 26
    assert g.team_life("A") == 26


def test_set_one_life_2005_10_01_adjusts_team_by_difference():
    """606.9c (2005-10-01): "that player's individual life total becomes that number. The team's life
    total is adjusted by the amount that player's life total was adjusted." """
    g = hg("2005-10-01", {"A": 25})
    assert g.set_life("a1", 20) == 7
    assert g.team_life("A") == 32


def test_set_one_life_2010_04_23_gain_or_loss_of_the_difference():
    """806.10c (2010-04-23): "the player gains or loses the necessary amount of life to end up with
    the new total. The team's life total is adjusted by the amount of life that player gained or
    lost." """
    g = hg("2010-04-23", {"A": 25})
    assert g.set_life("a1", 10) == -15
    assert g.team_life("A") == 10


def test_set_life_outside_two_headed_giant():
    """119.5 (2026-01-16): "If an effect sets a player's life total to a specific number, the player
    gains or loses the necessary amount of life to end up with the new total." """
    g = ffa()
    assert g.set_life("P1", 7) == -13 and g.life("P1") == 7


# --- doubling -----------------------------------------------------------------------------------------

def test_double_life_uses_individual_total_new():
    """701.10d (2026-01-16): "To double a player's life total, the player gains or loses an amount of
    life such that their new life total is twice its current value."; 810.9a: individual = team."""
    g = hg("2026-01-16", {"A": 17})
    assert g.double_life("a1") == 17 and g.team_life("A") == 34


def test_double_life_before_2010_04_23():
    """606.9c (2007-05-01): "that player's individual life total becomes that number"; 606.9a:
    individual = half the team's, rounded up (17 -> 9, doubled 18: the team gains 9)."""
    g = hg("2007-05-01", {"A": 17})
    assert g.double_life("a1") == 9 and g.team_life("A") == 26


# --- setting each player's life -------------------------------------------------------------------------

def test_set_each_life_sum_before_2010_04_23():
    """606.9b (2007-05-01): "If an effect would set the life total of each player on a team to a
    number, the result is the sum of all the numbers." -- "The first player is considered to have
    lost 10 life (13 - 3), and the second player is considered to have lost 9 life (13 - 4)" """
    g = hg("2007-05-01", {"A": 25})
    changes = g.set_each_life({"a1": 3, "a2": 4})
    assert g.team_life("A") == 7
    assert changes == {"a1": -10, "a2": -9}


def test_set_each_life_one_chosen_member_from_2010_04_23():
    """806.10d (2010-04-23): "If an effect would set the life total of each player on a team to a
    number, that team chooses one of its members. On that team, only that player is affected." """
    g = hg("2010-04-23", {"A": 25, "B": 13})
    changes = g.set_each_life({"a1": 3, "a2": 4, "b1": 7, "b2": 7}, chosen={"A": "a2"})
    assert g.team_life("A") == 4 and changes["a2"] == -21 and "a1" not in changes
    assert g.team_life("B") == 7


# --- exchanging -----------------------------------------------------------------------------------------

def test_exchange_with_opponent():
    """701.12c (2026-01-16): "When life totals are exchanged, each player gains or loses the amount of
    life necessary to equal the other player's previous life total." """
    g = hg("2026-01-16", {"A": 10, "B": 20})
    assert g.exchange_life("a1", "b1")
    assert g.team_life("A") == 20 and g.team_life("B") == 10


def test_no_exchange_with_teammate_from_2010_04_23():
    """810.9e (2026-01-16): "A player can't exchange life totals with their teammate. If an effect
    would cause that to occur, the exchange won't happen." """
    g = hg("2026-01-16", {"A": 10})
    assert not g.exchange_life("a1", "a2") and g.team_life("A") == 10


def test_no_exchange_if_part_of_it_cant_happen():
    """701.12a: "if the entire exchange can't be completed, no part of the exchange occurs";
    119.7: a player who can't gain life can't make an exchange that would raise their total."""
    g = ffa()
    g.set_life("P1", 5)
    g.life_book.cant_gain.add("P1")
    assert not g.exchange_life("P1", "P2")
    assert g.life("P1") == 5 and g.life("P2") == 20


# --- paying ---------------------------------------------------------------------------------------------

def test_pay_half_life_rounded_up_new():
    """810.9a example (2026-01-16): "a player on a team that has 11 life controls Lurking Evil ...
    "Pay half your life, rounded up" ... that player must pay 6 life. The team winds up at 5 life."
    (checked here as arithmetic: 810.9a individual = team; 119.4a payment from the team's total)"""
    g = hg("2026-01-16", {"A": 11})
    g.pay_life("a1", -(-g.life("a1") // 2))
    assert g.team_life("A") == 5


def test_pay_limit_team_total_for_both_payments():
    """119.4a (2026-01-16): "the player may do so only if their team's life total is greater than or
    equal to the total amount of life both team members are paying for that cost or effect." """
    g = hg("2026-01-16", {"A": 5})
    assert g.life_book.can_pay("a1", 5)
    assert not g.life_book.can_pay("a1", 3, together=6)
    with pytest.raises(IllegalAction):
        g.pay_life("a1", 6)


def test_pay_limit_individual_before_2008_07_15():
    """215.4 (2008-05-01): "the player may do so only if his or her life total is equal to or greater
    than the amount of the payment" -- with 606.9a, half the team's total."""
    g = hg("2008-05-01", {"A": 10})
    assert g.life_book.can_pay("a1", 5) and not g.life_book.can_pay("a1", 6)
    g2 = hg("2008-07-15", {"A": 10})  # 215.4a: "team's life total ... equal to or greater"
    assert g2.life_book.can_pay("a1", 10)


def test_zero_life_can_always_be_paid():
    """119.4b (2026-01-16): "Players can always pay 0 life, no matter what their (or their team's)
    life total is" """
    g = hg("2026-01-16", {"A": 0})
    assert g.life_book.can_pay("a1", 0)


# --- team-wide "can't" ----------------------------------------------------------------------------

def test_cant_gain_life_covers_the_team_from_2010_04_23():
    """810.9g (2026-01-16): "If an effect says that a player can't gain life, no player on that
    player's team can gain life." """
    new, old = hg("2010-04-23"), hg("2010-02-01")
    for g in (new, old):
        g.life_book.cant_gain.add("a1")
        g.gain_life("a2", 5)
    assert new.team_life("A") == 30 and old.team_life("A") == 35


def test_cant_lose_life_covers_the_team_from_2010_10_01():
    """810.9h (2010-10-01): "If an effect says that a player can't lose life, no player on that
    player's team can lose life or pay any amount of life other than 0." """
    new, old = hg("2010-10-01"), hg("2010-07-16")
    for g in (new, old):
        g.life_book.cant_lose.add("a1")
        g.lose_life("a2", 5)
    assert new.team_life("A") == 30 and old.team_life("A") == 25
    assert not new.life_book.can_pay("a2", 1)


# --- poison ---------------------------------------------------------------------------------------

def test_poison_individual_before_2011_04_01():
    """704.5c (2011-02-04): "If a player has ten or more poison counters, he or she loses the game."
    (no sharing of poison counters in 810 of 2011-02-04)"""
    g = hg("2011-02-04")
    g.add_poison("a1", 9)
    g.add_poison("a2", 9)
    assert g.poison("a1") == 9 and g.check_state() == []
    g.add_poison("a1", 1)
    assert set(g.check_state()) == {"a1", "a2"}  # 806.9a/810.8a: the team loses with its player


def test_poison_shared_from_2011_04_01():
    """810.10 (2011-04-01): "Effects that cause players to get poison counters happen to each player
    individually. The poison counters are shared by the team."; 810.8d: "If a team has fifteen or
    more poison counters, that team loses the game." """
    g = hg("2011-04-01")
    g.add_poison("a1", 7)
    g.add_poison("a2", 7)
    assert g.poison("a1") == g.poison("a2") == 14 and g.check_state() == []
    g.add_poison("a2", 1)
    assert set(g.check_state()) == {"a1", "a2"}


def test_team_loses_poison_counters():
    """810.10b (2026-01-16): "If an effect says that a player loses poison counters, that player's team
    loses that many poison counters." """
    g = hg("2026-01-16")
    g.add_poison("a1", 5)
    g.life_book.remove_poison("a2", 2)
    assert g.poison("a1") == 3


# --- winning and losing ----------------------------------------------------------------------------

def test_team_loses_at_zero_life():
    """810.8c (2026-01-16): "If a team's life total is 0 or less, the team loses the game." """
    g = hg("2026-01-16", {"A": 3})
    g.deal_damage("b1", "a1", 3)
    assert set(g.check_state()) == {"a1", "a2"}
    assert g.team_lost("A") and g.has_won("b1") and g.has_won("b2")


def test_transcendence_keeps_the_team_in():
    """810.8a (2026-01-16): "If an effect says that a player can't lose the game, that player's team
    can't lose the game." -- Transcendence: "You don't lose the game for having 0 or less life." """
    g = hg("2026-01-16", {"A": 0})
    g.create("Transcendence", "a2")
    assert g.check_state() == [] and not g.team_lost("A")


def test_a_player_who_loses_makes_the_team_lose():
    """810.8a (2026-01-16): "If either player on a team loses the game, the team loses the game." """
    g = hg("2026-01-16")
    assert g.draw_from_empty_library("a1")
    assert g.has_lost("a2") and g.team_lost("A")


def test_platinum_angel_team_cant_lose_and_opponents_cant_win():
    """810.8a (2026-01-16): "If an effect says that a player can't win the game, that player's team
    can't win the game. If an effect says that a player can't lose the game, that player's team
    can't lose the game." (Platinum Angel: "You can't lose the game and your opponents can't win the
    game.")"""
    g = hg("2026-01-16", {"A": -5})
    g.create("Platinum Angel", "a1")
    assert not g.can_lose("a2") and not g.can_win("b1") and not g.can_win("b2")
    assert g.check_state() == [] and not g.draw_from_empty_library("a2")
    assert g.win_game("b1") == []


def test_winning_player_wins_for_the_team():
    """810.8a (2026-01-16): "If either player on a team wins the game, the entire team wins the
    game." """
    g = hg("2026-01-16")
    assert set(g.win_game("a2")) == {"a1", "a2"}


def test_emperor_team_loses_with_its_emperor():
    """809.5b (2026-01-16): "A team loses the game if its emperor loses." """
    g = Game(GameConfig(players=["gA1", "EA", "gA2", "gB1", "EB", "gB2"], variant="emperor",
                        teams={"A": ["gA1", "EA", "gA2"], "B": ["gB1", "EB", "gB2"]}))
    g.lose_game("EA")
    assert g.has_lost("gA1") and g.has_lost("gA2")
    assert g.has_won("EB")  # 104.2a: all other teams have lost


def test_general_losing_does_not_end_the_emperor_team():
    """809.5b only ties the team to its emperor; a general who loses leaves alone (104.3)."""
    g = Game(GameConfig(players=["gA1", "EA", "gA2", "gB1", "EB", "gB2"], variant="emperor",
                        teams={"A": ["gA1", "EA", "gA2"], "B": ["gB1", "EB", "gB2"]}))
    g.lose_game("gA1")
    assert g.has_lost("gA1") and not g.has_lost("EA") and g.players() == ["EA", "gA2", "gB1", "EB", "gB2"]


def test_free_for_all_player_loses_at_zero_life():
    """704.5a (2026-01-16): "If a player has 0 or less life, that player loses the game." """
    g = ffa()
    g.deal_damage("P0", "P1", 20)
    assert g.check_state() == ["P1"] and "P1" not in g.players()
