"""The rules date and the multiplayer facts that changed over time.

Every function here takes a rules date (a ``RulesDate``, a ``datetime.date`` or an ISO string) and
answers with the rule in force on that date.  Each dated change is recorded once in ``CHANGES`` with
the releases whose text was compared: the last release with the old text and the first with the new
one.  Release files are those of the shared corpus (``txt/DATE.txt``); three releases that the corpus
lacks (2005-10-01, 2009-07-11, 2010-06-18) were read in the ``xremming/rulesraker`` archive.

A change date is the first day on which the new text is in force under either dating of its release
(the archive's file date or the effective date printed in the document); for every change but one
these agree.  The exception is M14: file 2013-07-11, printed "July 13, 2013"; the change is dated
2013-07-11 so that both datings of that release select its own text.
"""

from __future__ import annotations

import datetime as _dt
import enum
import math
from dataclasses import dataclass
from functools import total_ordering

__all__ = [
    "RulesDate",
    "Change",
    "CHANGES",
    "change",
    "Variant",
    "as_date",
    "starting_life",
    "poison_limit",
    "poison_shared",
    "individual_life",
    "SetLifeRule",
    "set_single_life_rule",
    "SetEachLifeRule",
    "set_each_life_rule",
    "LeftoverFate",
    "leftover_fate",
    "TokenOwnerRule",
    "token_owner_rule",
    "InfoRange",
    "information_range",
    "LegendRule",
    "legend_rule",
    "legend_rule_limited_by_range",
    "HGAttack",
    "two_headed_giant_attack",
    "win_effect_limited_by_range",
    "DepartedTrigger",
    "departed_trigger_fate",
    "StackOnLeave",
    "stack_on_leave",
    "control_end_exiles_orphans",
    "MarkerRemoval",
    "turn_marker_removal",
    "team_cant_gain_life",
    "team_cant_lose_life",
    "teammate_exchange_forbidden",
    "PayLifeLimit",
    "pay_life_limit",
    "emperor_minimal_ranges_rule",
    "unspecified_prevention_needs_both",
]


@total_ordering
@dataclass(frozen=True)
class RulesDate:
    """The date of the rules a game is played by (the effective date of a release)."""

    value: _dt.date

    @classmethod
    def of(cls, when: "RulesDate | _dt.date | str") -> "RulesDate":
        if isinstance(when, RulesDate):
            return when
        if isinstance(when, _dt.datetime):
            return cls(when.date())
        if isinstance(when, _dt.date):
            return cls(when)
        if isinstance(when, str):
            return cls(_dt.date.fromisoformat(when.strip()))
        raise TypeError(f"not a rules date: {when!r}")

    @classmethod
    def latest(cls) -> "RulesDate":
        """The newest release the model was checked against (2026-01-16)."""
        return cls(_dt.date(2026, 1, 16))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, RulesDate):
            other = RulesDate.of(other)  # type: ignore[arg-type]
        return self.value < other.value

    def __str__(self) -> str:
        return self.value.isoformat()


def as_date(when: "RulesDate | _dt.date | str | None") -> RulesDate:
    """A ``RulesDate`` for ``when``; ``None`` means the newest release."""
    return RulesDate.latest() if when is None else RulesDate.of(when)


@dataclass(frozen=True)
class Change:
    """One dated change: the date it takes effect, the rules before and after, and the evidence."""

    key: str
    date: _dt.date
    rule_before: str
    rule_after: str
    checked_before: str  # last release read with the old text
    checked_after: str  # first release read with the new text
    summary: str


def _d(s: str) -> _dt.date:
    return _dt.date.fromisoformat(s)


_CHANGE_LIST = [
    Change("hg_set_single_life", _d("2005-10-01"), "606.9c", "606.9c",
           "corpus 2005-08-01", "rulesraker 2005-10-01 (corpus 2006-02-01 agrees)",
           "a single player's life set to N: the team's total becomes N -> the player's individual "
           "total becomes N and the team is adjusted by the difference"),
    Change("prevention_unspecified", _d("2006-02-01"), "601.14b", "601.14b",
           "corpus 2005-08-01 (and rulesraker 2005-10-01)", "corpus 2006-02-01",
           "prevention that names neither source nor recipient works only if both are in range "
           "(a sentence added; before it the rule said nothing of such effects)"),
    Change("leftovers_removed_zone", _d("2006-10-01"), "600.4a", "600.4a",
           "corpus 2006-07-15", "corpus 2006-10-01",
           "objects a departing player controls but does not own: 'leave the game' -> 'leave the game "
           "... placed in the removed-from-the-game zone'"),
    Change("hg_starting_life_30", _d("2007-05-01"), "606.4a/606.10", "606.4a/606.10",
           "corpus 2007-02-01", "corpus 2007-05-01",
           "Two-Headed Giant team life 40 (20 per player) -> 30 (15 per player)"),
    Change("win_limited_by_range", _d("2007-10-01"), "601.2", "601.15/102.3g",
           "corpus 2007-09-07", "corpus 2007-10-01",
           "'a player wins the game' under limited range: all opponents within range lose instead"),
    Change("departed_trigger_not_put", _d("2008-05-01"), "600.4c", "600.4c",
           "corpus 2008-02-01", "corpus 2008-05-01",
           "an ability of a departed player 'leaves the game rather than being put on the stack' -> "
           "'isn't put on the stack'"),
    Change("hg_pay_life_team", _d("2008-07-15"), "215.4", "215.4a",
           "corpus 2008-05-01", "corpus 2008-07-15",
           "Two-Headed Giant: a player may pay life only if the team's life >= the payment"),
    Change("m10_leftovers_exiled", _d("2009-07-11"), "600.4a", "800.4a",
           "corpus 2009-05-01", "rulesraker 2009-07-11 (corpus 2009-09-04 agrees)",
           "objects still controlled by a departing player are exiled"),
    Change("m10_token_owner", _d("2009-07-11"), "200.4a/216.1", "110.5a",
           "corpus 2009-05-01", "rulesraker 2009-07-11 (corpus 2009-09-04 agrees)",
           "token owner: controller of the creating spell or ability -> the player under whose "
           "control it entered the battlefield"),
    Change("hg_pay_life_both", _d("2009-07-11"), "215.4a", "117.4a/806.9d",
           "corpus 2009-05-01", "rulesraker 2009-07-11 (corpus 2009-09-04 agrees)",
           "Two-Headed Giant: team life must cover the total both members pay"),
    Change("emperor_minimal_ranges", _d("2009-07-11"), "607.6", "807.6a",
           "corpus 2009-05-01", "rulesraker 2009-07-11 (corpus 2009-09-04 agrees)",
           "larger Emperor teams: minimal ranges from the seating (before: 'should be adjusted')"),
    Change("hg_individual_life_is_team", _d("2010-04-23"), "806.9a-c", "806.10a-d",
           "corpus 2010-02-01", "corpus 2010-04-23",
           "individual life = team life (was: half the team's, rounded up); setting one player's life "
           "is a gain or loss; setting each player's life affects one chosen member; no exchange with "
           "a teammate; 'can't gain life' covers the team"),
    Change("melee_marker_designation", _d("2010-07-16"), "808.4e", "807.4e-g",
           "rulesraker 2010-06-18 (corpus 2010-04-23 agrees)", "corpus 2010-07-16",
           "turn markers to be removed are 'designated for removal' (before: 'removed only between turns')"),
    Change("hg_cant_lose_life_team", _d("2010-10-01"), "810.9", "810.9h",
           "corpus 2010-07-16", "corpus 2010-10-01",
           "Two-Headed Giant: 'can't lose life' covers the team"),
    Change("hg_shared_poison", _d("2011-04-01"), "704.5c", "810.8d/810.10/810.11",
           "corpus 2011-02-04", "corpus 2011-04-01",
           "Two-Headed Giant teams share poison and lose at 15 (+5 per member beyond two)"),
    Change("info_range_controller", _d("2011-05-01"), "801.11 example", "801.11 example",
           "corpus 2011-04-01", "corpus 2011-05-01",
           "information for an effect on another player's object: ranges of both (example) -> the "
           "effect controller's range (example); the rule text did not change"),
    Change("orphan_exiled", _d("2012-02-01"), "800.4a", "800.4c",
           "corpus 2011-09-30", "corpus 2012-02-01",
           "an object whose default controller has left is exiled when the control effect ends"),
    Change("stack_non_card_only", _d("2012-10-01"), "800.4a", "800.4a",
           "corpus 2012-07-01", "corpus 2012-10-01",
           "on leaving, only stack objects not represented by cards cease to exist (others are exiled)"),
    Change("m14_legend_rule", _d("2013-07-11"), "704.5k/801.12", "704.5k",
           "corpus 2013-02-01", "corpus 2013-07-11 (printed July 13, 2013)",
           "legend rule per controller; rule 801.12 (legend rule within range) deleted"),
    Change("hg_per_player_attacks", _d("2018-04-27"), "810.7", "810.7/805.10",
           "corpus 2018-01-19", "corpus 2018-04-27",
           "Two-Headed Giant creatures attack a chosen defending player (was: the team as a group)"),
    Change("token_owner_creator", _d("2018-07-13"), "110.5a", "110.5a",
           "corpus 2018-06-08", "corpus 2018-07-13",
           "token owner: 'the player who creates a token is its owner'"),
]

CHANGES: dict[str, Change] = {c.key: c for c in _CHANGE_LIST}


def change(key: str) -> Change:
    return CHANGES[key]


def _on_or_after(when: "RulesDate | _dt.date | str | None", key: str) -> bool:
    return as_date(when).value >= CHANGES[key].date


class Variant(enum.Enum):
    """The multiplayer variants of rules 806-811 (605-609 until 2009-05-01)."""

    FREE_FOR_ALL = "free-for-all"
    GRAND_MELEE = "grand melee"
    TEAM_VS_TEAM = "team vs. team"
    EMPEROR = "emperor"
    TWO_HEADED_GIANT = "two-headed giant"
    ALTERNATING_TEAMS = "alternating teams"
    TWO_PLAYER = "two-player"


# --- life and poison -------------------------------------------------------------------------------


def starting_life(when, variant: Variant = Variant.FREE_FOR_ALL, team_size: int = 2) -> int:
    """Starting life total of a player, or of a team in Two-Headed Giant.

    103.4 (2026-01-16): "Each player begins the game with a starting life total of 20."
    606.4a (2005-08-01): "Each team has a shared life total, which starts at 40 life."; 606.10:
    "Each team's starting life total is equal to 20 times the number of players on the team."
    606.4a/606.10 (2007-05-01): 30 life; 15 times the number of players.
    810.11 (2011-04-01): "For each player a team has beyond the second, that team's starting life
    total is increased by 15" -- i.e. 30 + 15 * (n - 2), the same numbers as 15 * n.
    """
    if variant is not Variant.TWO_HEADED_GIANT:
        return 20
    if team_size < 2:
        raise ValueError("a Two-Headed Giant team has at least two players")
    if not _on_or_after(when, "hg_starting_life_30"):
        return 20 * team_size
    if _on_or_after(when, "hg_shared_poison"):
        return 30 + 15 * (team_size - 2)
    return 15 * team_size


def poison_shared(when, variant: Variant) -> bool:
    """810.10 (2011-04-01): "The poison counters are shared by the team." Not before."""
    return variant is Variant.TWO_HEADED_GIANT and _on_or_after(when, "hg_shared_poison")


def poison_limit(when, variant: Variant = Variant.FREE_FOR_ALL, team_size: int = 2) -> int:
    """Poison counters at which a player (or a 2HG team) loses.

    704.5c (2011-02-04): "If a player has ten or more poison counters, he or she loses the game."
    810.8d (2011-04-01): "If a team has fifteen or more poison counters, that team loses the game."
    810.11 (2011-04-01): "... the number of poison counters required for the team to lose is
    increased by five" for each player beyond the second.
    """
    if poison_shared(when, variant):
        return 15 + 5 * (team_size - 2)
    return 10


def individual_life(when, team_life: int) -> int:
    """The life total of one Two-Headed Giant player as a cost or effect sees it.

    606.9a (2005-08-01 .. 2010-02-01): "that effect uses the team's life total divided by two,
    rounded up, instead."  806.10a (2010-04-23): "that cost or effect uses the team's life total
    instead."  (The old text says "divided by two" whatever the team's size.)
    """
    if _on_or_after(when, "hg_individual_life_is_team"):
        return team_life
    return math.ceil(team_life / 2)


class SetLifeRule(enum.Enum):
    TEAM_BECOMES = "the team's life total becomes that number"  # 606.9c (2005-08-01)
    INDIVIDUAL_ADJUSTS_TEAM = "individual total becomes that number; team adjusted by the change"  # 2005-10-01
    PLAYER_GAINS_OR_LOSES = "the player gains or loses the necessary amount of life"  # 2010-04-23


def set_single_life_rule(when) -> SetLifeRule:
    """How "a player's life total becomes N" works in Two-Headed Giant.

    606.9c (2005-08-01): "If an effect would set a single player's life total to a number, that
    player's team's life total becomes that number."
    606.9c (2005-10-01): "... that player's individual life total becomes that number. The team's
    life total is adjusted by the amount that player's life total was adjusted."
    806.10c (2010-04-23): "... the player gains or loses the necessary amount of life to end up with
    the new total. The team's life total is adjusted by the amount of life that player gained or lost."
    """
    if _on_or_after(when, "hg_individual_life_is_team"):
        return SetLifeRule.PLAYER_GAINS_OR_LOSES
    if _on_or_after(when, "hg_set_single_life"):
        return SetLifeRule.INDIVIDUAL_ADJUSTS_TEAM
    return SetLifeRule.TEAM_BECOMES


class SetEachLifeRule(enum.Enum):
    SUM = "the team's life total becomes the sum of the numbers"  # 606.9b (2005-08-01)
    ONE_CHOSEN_MEMBER = "the team chooses one member; only that player is affected"  # 806.10d (2010-04-23)


def set_each_life_rule(when) -> SetEachLifeRule:
    """606.9b (2005-08-01): "If an effect would set the life total of each player on a team to a
    number, the result is the sum of all the numbers."  806.10d (2010-04-23): "... that team chooses
    one of its members. On that team, only that player is affected."
    """
    if _on_or_after(when, "hg_individual_life_is_team"):
        return SetEachLifeRule.ONE_CHOSEN_MEMBER
    return SetEachLifeRule.SUM


def team_cant_gain_life(when) -> bool:
    """806.10g (2010-04-23): "If an effect says that a player can't gain life, no player on that
    player's team can gain life."  (No such rule before.)"""
    return _on_or_after(when, "hg_individual_life_is_team")


def team_cant_lose_life(when) -> bool:
    """810.9h (2010-10-01): "If an effect says that a player can't lose life, no player on that
    player's team can lose life or pay any amount of life other than 0." """
    return _on_or_after(when, "hg_cant_lose_life_team")


def teammate_exchange_forbidden(when) -> bool:
    """806.10e (2010-04-23): "A player can't exchange life totals with his or her teammate." """
    return _on_or_after(when, "hg_individual_life_is_team")


class PayLifeLimit(enum.Enum):
    INDIVIDUAL = "the player's own life total"  # 215.4 / 409 (before 2008-07-15)
    TEAM_PER_PAYMENT = "the team's life total, per payment"  # 215.4a (2008-07-15)
    TEAM_BOTH_PAYMENTS = "the team's life total, both members' payments together"  # 117.4a (2009-07-11)


def pay_life_limit(when) -> PayLifeLimit:
    """What a Two-Headed Giant player's life payment must not exceed.

    215.4 (2008-02-01): "the player may do so only if his or her life total is equal to or greater
    than the amount of the payment" (with 606.9a, the individual total).  215.4a (2008-07-15): "only
    if his or her team's life total is equal to or greater than the amount of the payment".
    117.4a (2009-07-11): "... greater than or equal to the total amount of life both team members are
    paying for that cost or effect."
    """
    if _on_or_after(when, "hg_pay_life_both"):
        return PayLifeLimit.TEAM_BOTH_PAYMENTS
    if _on_or_after(when, "hg_pay_life_team"):
        return PayLifeLimit.TEAM_PER_PAYMENT
    return PayLifeLimit.INDIVIDUAL


# --- leaving the game ------------------------------------------------------------------------------


class LeftoverFate(enum.Enum):
    """What happens to objects a departing player controls but does not own (800.4a)."""

    LEAVE_THE_GAME = "leave the game"  # 600.4a (2005-08-01)
    REMOVED_FROM_GAME_ZONE = "leave the game into the removed-from-the-game zone"  # 600.4a (2006-10-01)
    EXILED = "are exiled"  # 800.4a (2009-07-11)

    @property
    def stays_in_game(self) -> bool:
        return self is not LeftoverFate.LEAVE_THE_GAME


def leftover_fate(when) -> LeftoverFate:
    """600.4a (2005-08-01): "Then, if there are any objects still controlled by that player, those
    objects leave the game."  600.4a (2006-10-01) adds: "(Any objects leaving the game this way that
    aren't owned by the player leaving the game are placed in the removed-from-the-game zone.)"
    800.4a (2009-07-11): "... those objects are exiled."
    """
    if _on_or_after(when, "m10_leftovers_exiled"):
        return LeftoverFate.EXILED
    if _on_or_after(when, "leftovers_removed_zone"):
        return LeftoverFate.REMOVED_FROM_GAME_ZONE
    return LeftoverFate.LEAVE_THE_GAME


class TokenOwnerRule(enum.Enum):
    CONTROLLER_OF_CREATING_SOURCE = "the player who controlled the spell or ability that created it"
    ENTERED_UNDER = "the player under whose control it entered the battlefield"
    CREATOR = "the player who creates it"


def token_owner_rule(when) -> TokenOwnerRule:
    """200.4a (2005-08-01): "A token's owner is the player who controlled the spell or ability that
    put it into play. A token's controller is the player who put it into play."
    110.5a (2009-07-11): "A token is both owned and controlled by the player under whose control it
    entered the battlefield."  110.5a (2018-07-13): "The player who creates a token is its owner."
    """
    if _on_or_after(when, "token_owner_creator"):
        return TokenOwnerRule.CREATOR
    if _on_or_after(when, "m10_token_owner"):
        return TokenOwnerRule.ENTERED_UNDER
    return TokenOwnerRule.CONTROLLER_OF_CREATING_SOURCE


class DepartedTrigger(enum.Enum):
    LEAVES_THE_GAME = "leaves the game rather than being put on the stack"  # 600.4c (2005-08-01)
    NOT_PUT_ON_STACK = "isn't put on the stack"  # 600.4c (2008-05-01)


def departed_trigger_fate(when) -> DepartedTrigger:
    """600.4c (2005-08-01): "If an object owned by a player who has left the game would be put into
    any zone, it leaves the game instead. (This includes abilities that would be put onto the
    stack.)"  600.4c (2008-05-01): "If a triggered ability that would be controlled by a player who
    has left the game would be put onto the stack, it isn't put on the stack."  Either way the
    ability never resolves.
    """
    if _on_or_after(when, "departed_trigger_not_put"):
        return DepartedTrigger.NOT_PUT_ON_STACK
    return DepartedTrigger.LEAVES_THE_GAME


class StackOnLeave(enum.Enum):
    ALL_CONTROLLED = "all spells and abilities the player controls on the stack cease to exist"
    NON_CARD_ONLY = "objects on the stack not represented by cards cease to exist; cards are exiled"


def stack_on_leave(when) -> StackOnLeave:
    """600.4a (2005-08-01): "all spells and abilities controlled by that player on the stack cease to
    exist".  800.4a (2012-10-01): "if that player controlled any objects on the stack not represented
    by cards, those objects cease to exist. Then, if there are any objects still controlled by that
    player, those objects are exiled."
    """
    if _on_or_after(when, "stack_non_card_only"):
        return StackOnLeave.NON_CARD_ONLY
    return StackOnLeave.ALL_CONTROLLED


def control_end_exiles_orphans(when) -> bool:
    """800.4c (2012-02-01): "If an effect that gives a player still in the game control of an object
    ends, there is no other effect giving control of that object to another player in the game, and
    the object entered the battlefield under the control of a player who has left the game, the
    object is exiled."  (No such rule before.)"""
    return _on_or_after(when, "orphan_exiled")


# --- range of influence ----------------------------------------------------------------------------


class InfoRange(enum.Enum):
    INTERSECTION = "players within range of both the affected object's controller and the effect's controller"
    CONTROLLER = "players within the effect controller's range"


def information_range(when) -> InfoRange:
    """Whose range an effect's information comes from when it affects another player's object.

    801.11 (all releases): "If a spell or ability requires information from the game, it gets only
    information from within its controller's range of influence."  Its second example read until
    2011-04-01 "... based only on what creatures are controlled by Rob and Alex. They are the only
    two players within range of both Rob and the controller of Coat of Arms." and from 2011-05-01
    "... based on what creatures are controlled by players within Alex's range of influence,
    including the player sitting to Alex's left, who's out of Rob's range of influence."  The rule's
    words did not change; only the reading the example gives them did.
    """
    if _on_or_after(when, "info_range_controller"):
        return InfoRange.CONTROLLER
    return InfoRange.INTERSECTION


class LegendRule(enum.Enum):
    ALL_SAME_NAME = "all legendary permanents with the same name are put into their owners' graveyards"
    PER_CONTROLLER = "a player who controls two or more with the same name keeps one"


def legend_rule(when) -> LegendRule:
    """704.5k (2013-02-01): "If two or more legendary permanents with the same name are on the
    battlefield, all are put into their owners' graveyards."  704.5k (2013-07-11): "If a player
    controls two or more legendary permanents with the same name, that player chooses one of them,
    and the rest are put into their owners' graveyards." (420.5e in 2005-08-01 as the former.)"""
    if _on_or_after(when, "m14_legend_rule"):
        return LegendRule.PER_CONTROLLER
    return LegendRule.ALL_SAME_NAME


def legend_rule_limited_by_range(when) -> bool:
    """601.12 (2005-08-01) / 801.12 (2013-02-01): "The "legend rule" ... applies to a permanent only
    if other legendary permanents with the same name are within its controller's range of
    influence."  Deleted on 2013-07-11."""
    return not _on_or_after(when, "m14_legend_rule")


def win_effect_limited_by_range(when) -> bool:
    """601.15 (2007-10-01) / 801.14 (2026-01-16): "If an effect states that a player wins the game,
    all of that player's opponents within that player's range of influence lose the game instead."
    Before 2007-10-01 range of influence did not cover winning (601.2 lists "spells, abilities,
    effects, damage dealing, attacking, and making choices")."""
    return _on_or_after(when, "win_limited_by_range")


def unspecified_prevention_needs_both(when) -> bool:
    """601.14b (2006-02-01): "If a spell or ability creates an effect that prevents damage, but
    neither the source nor the would-be recipient of the damage is specified, it prevents damage only
    if both the source and recipient of that damage are within the spell or ability's controller's
    range of influence."  The 2005 text had no sentence on such effects; the model applies this one
    to them on every date (see docs/model.md) and this function only says whether the text states it.
    """
    return _on_or_after(when, "prevention_unspecified")


def emperor_minimal_ranges_rule(when) -> bool:
    """807.6a (2009-07-11) / 809.6a (2026-01-16): ranges for teams of more than three players are the
    minimal numbers that reach one (general) or two (emperor) opposing generals.  607.6 (2005-08-01)
    only said "the range of influence of each player should be adjusted"."""
    return _on_or_after(when, "emperor_minimal_ranges")


class HGAttack(enum.Enum):
    TEAM = "creatures attack the defending team as a group"  # 606.7 .. 810.7 (until 2018-01-19)
    PLAYER = "each creature attacks one defending player or planeswalker"  # 810.7 -> 805.10 (2018-04-27)


def two_headed_giant_attack(when) -> HGAttack:
    """810.7c (2018-01-19): "If an effect of an object controlled by a defending player prohibits a
    creature from attacking him or her, that creature can't attack the defending team."; 810.7d:
    "Creatures controlled by the defending players can block any attacking creatures."
    810.7 (2018-04-27): "The Two-Headed Giant variant uses the combat rules for the shared team turns
    option (see rule 805.10). This is a change from previous rules." -- 805.10b: "For each attacking
    creature, the attacking team announces which defending player or planeswalker that creature is
    attacking."
    """
    if _on_or_after(when, "hg_per_player_attacks"):
        return HGAttack.PLAYER
    return HGAttack.TEAM


class MarkerRemoval(enum.Enum):
    BETWEEN_TURNS = "a turn marker is removed; markers are removed only between turns"  # 608.4d (2005)
    DESIGNATED = "the marker is designated for removal (807.4e-g)"  # 2010-07-16


def turn_marker_removal(when) -> MarkerRemoval:
    """608.4d (2005-08-01): "If a player leaves the game and that player leaving the game would reduce
    the number of turn markers in the game, a turn marker is removed. Turn markers are removed only
    between turns. Remove the turn marker immediately to the departed player's right."
    807.4e (2010-07-16): "... the turn marker immediately to the departed player's right is
    designated for removal."  The model runs both the same way: a marker to be removed is removed at
    the end of its holder's turn, or at once if its holder is not taking a turn.
    """
    if _on_or_after(when, "melee_marker_designation"):
        return MarkerRemoval.DESIGNATED
    return MarkerRemoval.BETWEEN_TURNS
