"""Dated rule facts of crparse.model.rules: for each change, one test on each side of its date.

Each test quotes the rule text it checks with the release it was read in (corpus file
txt/DATE.txt; rulesraker archive where the corpus lacks a release).
"""

import datetime as dt

import pytest

from crparse.model import rules as R
from crparse.model.rules import (CHANGES, DepartedTrigger, HGAttack, InfoRange, LeftoverFate, LegendRule,
                                 MarkerRemoval, PayLifeLimit, RulesDate, SetEachLifeRule, SetLifeRule,
                                 StackOnLeave, TokenOwnerRule, Variant)

HG = Variant.TWO_HEADED_GIANT


def day_before(key: str) -> str:
    return (CHANGES[key].date - dt.timedelta(days=1)).isoformat()


def on(key: str) -> str:
    return CHANGES[key].date.isoformat()


# --- RulesDate ------------------------------------------------------------------------------------

def test_rules_date_accepts_strings_dates_and_itself():
    d = RulesDate.of("2010-04-23")
    assert d == RulesDate.of(dt.date(2010, 4, 23)) == RulesDate.of(d)
    assert d < RulesDate.of("2010-04-24") and str(d) == "2010-04-23"
    assert R.as_date(None) == RulesDate.latest()


def test_every_change_names_both_releases_checked():
    for c in CHANGES.values():
        assert c.checked_before and c.checked_after and c.rule_before and c.rule_after


# --- starting life ---------------------------------------------------------------------------------

def test_starting_life_outside_two_headed_giant_is_20():
    """103.4 (2026-01-16): "Each player begins the game with a starting life total of 20." """
    assert R.starting_life("2026-01-16", Variant.FREE_FOR_ALL) == 20
    assert R.starting_life("2005-08-01", Variant.EMPEROR) == 20


def test_two_headed_giant_starts_at_40_before_2007_05_01():
    """606.4a (2007-02-01): "Each team has a shared life total, which starts at 40 life."; 606.10:
    "Each team's starting life total is equal to 20 times the number of players on the team." """
    d = day_before("hg_starting_life_30")
    assert R.starting_life(d, HG, 2) == 40
    assert R.starting_life(d, HG, 3) == 60


def test_two_headed_giant_starts_at_30_from_2007_05_01():
    """606.4a (2007-05-01): "... which starts at 30 life."; 606.10: "equal to 15 times the number of
    players on the team." """
    d = on("hg_starting_life_30")
    assert d == "2007-05-01"
    assert R.starting_life(d, HG, 2) == 30
    assert R.starting_life(d, HG, 3) == 45


def test_n_headed_giant_life_rule_of_2011_gives_the_same_numbers():
    """810.11 (2011-04-01): "For each player a team has beyond the second, that team's starting life
    total is increased by 15" (810.4: "starts at 30 life") -- 30 + 15 per extra member, the same
    totals as 15 per member in 810.10 (2011-02-04)."""
    for n in (2, 3, 4, 5):
        assert R.starting_life(on("hg_shared_poison"), HG, n) == R.starting_life(
            day_before("hg_shared_poison"), HG, n) == 15 * n


# --- poison ----------------------------------------------------------------------------------------

def test_poison_is_individual_ten_before_2011_04_01():
    """704.5c (2011-02-04): "If a player has ten or more poison counters, he or she loses the game." """
    d = day_before("hg_shared_poison")
    assert not R.poison_shared(d, HG)
    assert R.poison_limit(d, HG, 2) == 10


def test_poison_is_shared_fifteen_from_2011_04_01():
    """810.8d (2011-04-01): "If a team has fifteen or more poison counters, that team loses the
    game."; 810.11: "the number of poison counters required for the team to lose is increased by
    five" for each player beyond the second."""
    d = on("hg_shared_poison")
    assert R.poison_shared(d, HG)
    assert R.poison_limit(d, HG, 2) == 15
    assert R.poison_limit(d, HG, 3) == 20
    assert R.poison_limit(d, Variant.FREE_FOR_ALL) == 10


# --- individual life in Two-Headed Giant ------------------------------------------------------------

def test_individual_life_is_half_the_team_rounded_up_before_2010_04_23():
    """806.9a (2010-02-01): "If an effect needs to know the value of an individual player's life
    total, that effect uses the team's life total divided by two, rounded up, instead." """
    d = day_before("hg_individual_life_is_team")
    assert R.individual_life(d, 17) == 9
    assert R.individual_life(d, 25) == 13
    assert R.individual_life("2005-08-01", 99) == 50


def test_individual_life_is_the_team_total_from_2010_04_23():
    """806.10a (2010-04-23): "If a cost or effect needs to know the value of an individual player's
    life total, that cost or effect uses the team's life total instead." """
    d = on("hg_individual_life_is_team")
    assert d == "2010-04-23"
    assert R.individual_life(d, 17) == 17


# --- setting life ----------------------------------------------------------------------------------

def test_set_single_life_team_becomes_number_on_2005_08_01():
    """606.9c (2005-08-01): "If an effect would set a single player's life total to a number, that
    player's team's life total becomes that number." """
    assert R.set_single_life_rule("2005-08-01") is SetLifeRule.TEAM_BECOMES
    assert R.set_single_life_rule(day_before("hg_set_single_life")) is SetLifeRule.TEAM_BECOMES


def test_set_single_life_individual_adjusts_team_from_2005_10_01():
    """606.9c (2005-10-01, rulesraker; same in corpus 2006-02-01): "that player's individual life
    total becomes that number. The team's life total is adjusted by the amount that player's life
    total was adjusted." """
    assert on("hg_set_single_life") == "2005-10-01"
    assert R.set_single_life_rule("2005-10-01") is SetLifeRule.INDIVIDUAL_ADJUSTS_TEAM
    assert R.set_single_life_rule(day_before("hg_individual_life_is_team")) is \
        SetLifeRule.INDIVIDUAL_ADJUSTS_TEAM


def test_set_single_life_gain_or_loss_from_2010_04_23():
    """806.10c (2010-04-23): "If an effect sets a single player's life total to a specific number, the
    player gains or loses the necessary amount of life to end up with the new total." """
    assert R.set_single_life_rule("2010-04-23") is SetLifeRule.PLAYER_GAINS_OR_LOSES


def test_set_each_life_sum_before_and_one_member_after_2010_04_23():
    """806.9b (2010-02-01): "If an effect would set the life total of each player on a team to a
    number, the result is the sum of all the numbers."; 806.10d (2010-04-23): "that team chooses one
    of its members. On that team, only that player is affected." """
    assert R.set_each_life_rule(day_before("hg_individual_life_is_team")) is SetEachLifeRule.SUM
    assert R.set_each_life_rule(on("hg_individual_life_is_team")) is SetEachLifeRule.ONE_CHOSEN_MEMBER


def test_team_wide_cant_gain_life_from_2010_04_23():
    """806.10g (2010-04-23): "If an effect says that a player can't gain life, no player on that
    player's team can gain life." (absent from 806 of 2010-02-01)"""
    assert not R.team_cant_gain_life(day_before("hg_individual_life_is_team"))
    assert R.team_cant_gain_life(on("hg_individual_life_is_team"))


def test_team_wide_cant_lose_life_from_2010_10_01():
    """810.9h (2010-10-01): "If an effect says that a player can't lose life, no player on that
    player's team can lose life or pay any amount of life other than 0." (absent 2010-07-16)"""
    assert not R.team_cant_lose_life(day_before("hg_cant_lose_life_team"))
    assert R.team_cant_lose_life(on("hg_cant_lose_life_team"))


def test_teammate_exchange_forbidden_from_2010_04_23():
    """806.10e (2010-04-23): "A player can't exchange life totals with his or her teammate." """
    assert not R.teammate_exchange_forbidden(day_before("hg_individual_life_is_team"))
    assert R.teammate_exchange_forbidden(on("hg_individual_life_is_team"))


def test_pay_life_limit_by_date():
    """215.4 (2008-05-01): "the player may do so only if his or her life total is equal to or greater
    than the amount of the payment"; 215.4a (2008-07-15): "only if his or her team's life total is
    equal to or greater than the amount of the payment"; 117.4a (2009-09-04; rulesraker 2009-07-11):
    "greater than or equal to the total amount of life both team members are paying"."""
    assert R.pay_life_limit(day_before("hg_pay_life_team")) is PayLifeLimit.INDIVIDUAL
    assert R.pay_life_limit(on("hg_pay_life_team")) is PayLifeLimit.TEAM_PER_PAYMENT
    assert R.pay_life_limit(day_before("hg_pay_life_both")) is PayLifeLimit.TEAM_PER_PAYMENT
    assert R.pay_life_limit(on("hg_pay_life_both")) is PayLifeLimit.TEAM_BOTH_PAYMENTS


# --- leaving the game ------------------------------------------------------------------------------

def test_leftovers_leave_the_game_before_2006_10_01():
    """600.4a (2006-07-15): "Then, if there are any objects still controlled by that player, those
    objects leave the game." """
    fate = R.leftover_fate(day_before("leftovers_removed_zone"))
    assert fate is LeftoverFate.LEAVE_THE_GAME and not fate.stays_in_game


def test_leftovers_go_to_removed_from_game_zone_from_2006_10_01():
    """600.4a (2006-10-01): "(Any objects leaving the game this way that aren't owned by the player
    leaving the game are placed in the removed-from-the-game zone.)" """
    fate = R.leftover_fate(on("leftovers_removed_zone"))
    assert fate is LeftoverFate.REMOVED_FROM_GAME_ZONE and fate.stays_in_game
    assert R.leftover_fate(day_before("m10_leftovers_exiled")) is LeftoverFate.REMOVED_FROM_GAME_ZONE


def test_leftovers_exiled_from_2009_07_11():
    """800.4a (2009-07-11, rulesraker; corpus 2009-09-04): "Then, if there are any objects still
    controlled by that player, those objects are exiled." """
    assert on("m10_leftovers_exiled") == "2009-07-11"
    assert R.leftover_fate("2009-07-11") is LeftoverFate.EXILED


def test_token_owner_controller_of_creating_ability_before_2009_07_11():
    """200.4a (2009-05-01): "A token's owner is the player who controlled the spell or ability that
    put it into play. A token's controller is the player who put it into play." """
    assert R.token_owner_rule(day_before("m10_token_owner")) is TokenOwnerRule.CONTROLLER_OF_CREATING_SOURCE


def test_token_owner_entered_under_from_2009_07_11():
    """110.5a (2009-09-04): "A token is both owned and controlled by the player under whose control
    it entered the battlefield." """
    assert R.token_owner_rule(on("m10_token_owner")) is TokenOwnerRule.ENTERED_UNDER
    assert R.token_owner_rule(day_before("token_owner_creator")) is TokenOwnerRule.ENTERED_UNDER


def test_token_owner_creator_from_2018_07_13():
    """110.5a (2018-07-13): "The player who creates a token is its owner." (2018-06-08 still has
    "owned and controlled by the player under whose control it entered the battlefield")"""
    assert R.token_owner_rule(on("token_owner_creator")) is TokenOwnerRule.CREATOR


def test_departed_trigger_fate_by_date():
    """600.4c (2008-02-01): "If an object owned by a player who has left the game would be put into
    any zone, it leaves the game instead. (This includes abilities that would be put onto the
    stack.)"; 600.4c (2008-05-01): "If a triggered ability that would be controlled by a player who
    has left the game would be put onto the stack, it isn't put on the stack." """
    assert R.departed_trigger_fate(day_before("departed_trigger_not_put")) is DepartedTrigger.LEAVES_THE_GAME
    assert R.departed_trigger_fate(on("departed_trigger_not_put")) is DepartedTrigger.NOT_PUT_ON_STACK


def test_stack_on_leave_by_date():
    """800.4a (2012-07-01): "all spells and abilities controlled by that player on the stack cease to
    exist"; 800.4a (2012-10-01): "if that player controlled any objects on the stack not represented
    by cards, those objects cease to exist." """
    assert R.stack_on_leave(day_before("stack_non_card_only")) is StackOnLeave.ALL_CONTROLLED
    assert R.stack_on_leave(on("stack_non_card_only")) is StackOnLeave.NON_CARD_ONLY


def test_orphan_exile_from_2012_02_01():
    """800.4c (2012-02-01): "If an effect that gives a player still in the game control of an object
    ends, there is no other effect giving control of that object to another player in the game, and
    the object entered the battlefield under the control of a player who has left the game, the
    object is exiled." (no such rule in 2011-09-30)"""
    assert not R.control_end_exiles_orphans(day_before("orphan_exiled"))
    assert R.control_end_exiles_orphans(on("orphan_exiled"))


# --- range of influence ------------------------------------------------------------------------------

def test_information_range_intersection_before_2011_05_01():
    """801.11 example (2011-04-01): "Coat of Arms will boost Rob's creatures based only on what
    creatures are controlled by Rob and Alex. They are the only two players within range of both Rob
    and the controller of Coat of Arms." """
    assert R.information_range(day_before("info_range_controller")) is InfoRange.INTERSECTION


def test_information_range_controller_from_2011_05_01():
    """801.11 (2011-05-01): "it gets only information from within its controller's range of
    influence"; example: "based on what creatures are controlled by players within Alex's range of
    influence, including the player sitting to Alex's left, who's out of Rob's range" """
    assert R.information_range(on("info_range_controller")) is InfoRange.CONTROLLER


def test_legend_rule_within_range_until_m14():
    """801.12 (2013-02-01): "The "legend rule" (see rule 704.5k) applies to a permanent only if other
    legendary permanents with the same name are within its controller's range of influence."; 704.5k:
    "all are put into their owners' graveyards" """
    d = day_before("m14_legend_rule")
    assert R.legend_rule_limited_by_range(d)
    assert R.legend_rule(d) is LegendRule.ALL_SAME_NAME


def test_legend_rule_per_controller_from_m14():
    """704.5k (2013-07-11, printed effective July 13, 2013): "If a player controls two or more
    legendary permanents with the same name, that player chooses one of them, and the rest are put
    into their owners' graveyards."; 801.12 is the world rule now."""
    for d in ("2013-07-11", "2013-07-13"):
        assert not R.legend_rule_limited_by_range(d)
        assert R.legend_rule(d) is LegendRule.PER_CONTROLLER


def test_win_effect_limited_by_range_from_2007_10_01():
    """601.15 (2007-10-01): "If an effect states that a player wins the game, all of that player's
    opponents within his or her range of influence lose the game instead." (absent 2007-09-07)"""
    assert not R.win_effect_limited_by_range(day_before("win_limited_by_range"))
    assert R.win_effect_limited_by_range(on("win_limited_by_range"))


def test_unspecified_prevention_sentence_from_2006_02_01():
    """601.14b (2006-02-01): "If a spell or ability creates an effect that prevents damage, but neither
    the source nor the would-be recipient of the damage is specified, it prevents damage only if both
    ... are within the spell or ability's controller's range of influence." (absent 2005-08-01)"""
    assert not R.unspecified_prevention_needs_both("2005-08-01")
    assert R.unspecified_prevention_needs_both("2006-02-01")


def test_emperor_minimal_ranges_rule_from_2009_07_11():
    """607.6 (2009-05-01): "the range of influence of each player should be adjusted"; 807.6a
    (2009-09-04): "Each general's range of influence should be the minimum number that allows one
    general from an opposing team to begin the game within their range of influence." """
    assert not R.emperor_minimal_ranges_rule(day_before("emperor_minimal_ranges"))
    assert R.emperor_minimal_ranges_rule(on("emperor_minimal_ranges"))


def test_two_headed_giant_attacks_team_before_2018_04_27():
    """810.7a (2018-01-19): "Each team's creatures attack the other team as a group."; 810.7c: "If an
    effect of an object controlled by a defending player prohibits a creature from attacking him or
    her, that creature can't attack the defending team." """
    assert R.two_headed_giant_attack(day_before("hg_per_player_attacks")) is HGAttack.TEAM


def test_two_headed_giant_attacks_players_from_2018_04_27():
    """810.7 (2018-04-27): "The Two-Headed Giant variant uses the combat rules for the shared team
    turns option (see rule 805.10). This is a change from previous rules." 805.10b: "For each
    attacking creature, the attacking team announces which defending player or planeswalker that
    creature is attacking." """
    assert R.two_headed_giant_attack(on("hg_per_player_attacks")) is HGAttack.PLAYER


def test_turn_marker_removal_rule_by_date():
    """808.4e (2010-04-23; rulesraker 2010-06-18 as 807.4e): "a turn marker is removed. Turn markers
    are removed only between turns."; 807.4e (2010-07-16): "the turn marker immediately to the
    departed player's right is designated for removal." """
    assert R.turn_marker_removal(day_before("melee_marker_designation")) is MarkerRemoval.BETWEEN_TURNS
    assert R.turn_marker_removal(on("melee_marker_designation")) is MarkerRemoval.DESIGNATED


@pytest.mark.parametrize("key", sorted(CHANGES))
def test_each_change_date_is_a_release_date(key):
    """Change dates are the dates of releases (file or printed effective date)."""
    releases = {"2005-10-01", "2006-02-01", "2006-10-01", "2007-05-01", "2007-10-01", "2008-05-01",
                "2008-07-15", "2009-07-11", "2010-04-23", "2010-07-16", "2010-10-01", "2011-04-01",
                "2011-05-01", "2012-02-01", "2012-10-01", "2013-07-11", "2018-04-27", "2018-07-13"}
    assert CHANGES[key].date.isoformat() in releases
