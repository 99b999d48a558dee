"""Life totals and poison counters, shared by the team in Two-Headed Giant.

810.9 (2026-01-16): "Damage, loss of life, and gaining life happen to each player individually. The
result is applied to the team's shared life total."  The dated rules (individual life as seen by
effects, setting life, paying life, team-wide "can't", shared poison) come from ``rules``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from . import rules as R
from .rules import PayLifeLimit, SetEachLifeRule, SetLifeRule, Variant
from .table import Table

__all__ = ["LifeEvent", "LifeBook"]


@dataclass(frozen=True)
class LifeEvent:
    """One player's life change (810.9: life changes happen to each player individually)."""

    player: str
    amount: int  # positive: gained; negative: lost
    cause: str  # "damage", "loss", "gain", "payment", "set", "exchange", ...


@dataclass
class LifeBook:
    table: Table
    rules_date: object = None
    variant: Variant = Variant.FREE_FOR_ALL
    totals: dict[str, int] = field(default_factory=dict)  # by player, or by team when shared
    poison_counts: dict[str, int] = field(default_factory=dict)  # by player, or by team when shared
    cant_gain: set[str] = field(default_factory=set)
    cant_lose: set[str] = field(default_factory=set)
    events: list[LifeEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules_date = R.as_date(self.rules_date if self.rules_date is not None
                                    else self.table.rules_date)
        if not self.totals:
            if self.shared:
                for team in self.table.team_names():
                    size = len(self.table.members(team, including_departed=True))
                    self.totals[team] = R.starting_life(self.rules_date, self.variant, size)
            else:
                for p in self.table.order:
                    self.totals[p] = R.starting_life(self.rules_date, self.variant)

    # --- keys ------------------------------------------------------------------------------------

    @property
    def shared(self) -> bool:
        """810.4: "Each team has a shared life total" (Two-Headed Giant only)."""
        return self.variant is Variant.TWO_HEADED_GIANT

    def _key(self, player: str) -> str:
        return self.table.team_of(player) if self.shared else player

    def _poison_key(self, player: str) -> str:
        return self.table.team_of(player) if R.poison_shared(self.rules_date, self.variant) else player

    def team_size(self, player_or_team: str) -> int:
        team = player_or_team if player_or_team in self.table.team_names() else \
            self.table.team_of(player_or_team)
        return len(self.table.members(team, including_departed=True))

    # --- reading ----------------------------------------------------------------------------------

    def total(self, player: str) -> int:
        """The total the player's life changes apply to: the team's in Two-Headed Giant."""
        return self.totals[self._key(player)]

    def team_life(self, team: str) -> int:
        if self.shared:
            return self.totals[team]
        return sum(self.totals[p] for p in self.table.members(team))

    def life(self, player: str) -> int:
        """A player's life total as a cost or effect sees it (606.9a / 810.9a)."""
        if self.shared:
            return R.individual_life(self.rules_date, self.totals[self._key(player)])
        return self.totals[player]

    def set_total(self, player_or_team: str, value: int) -> None:
        """Set up a total directly (a scenario's starting state, not a game action)."""
        key = player_or_team if player_or_team in self.totals else self._key(player_or_team)
        self.totals[key] = value

    # --- "can't" -----------------------------------------------------------------------------------

    def _blocked(self, player: str, flags: set[str], team_wide: bool) -> bool:
        if player in flags:
            return True
        if self.shared and team_wide:
            return any(m in flags for m in self.table.members(self.table.team_of(player),
                                                                 including_departed=True))
        return False

    def can_gain(self, player: str) -> bool:
        """810.9g (2010-04-23 on): "If an effect says that a player can't gain life, no player on
        that player's team can gain life." """
        return not self._blocked(player, self.cant_gain, R.team_cant_gain_life(self.rules_date))

    def can_lose(self, player: str) -> bool:
        """810.9h (2010-10-01 on): "If an effect says that a player can't lose life, no player on
        that player's team can lose life or pay any amount of life other than 0." """
        return not self._blocked(player, self.cant_lose, R.team_cant_lose_life(self.rules_date))

    # --- changes -----------------------------------------------------------------------------------

    def _change(self, player: str, amount: int, cause: str) -> int:
        if amount > 0 and not self.can_gain(player):
            return 0
        if amount < 0 and not self.can_lose(player):
            return 0
        if amount:
            self.totals[self._key(player)] += amount
            self.events.append(LifeEvent(player, amount, cause))
        return amount

    def damage(self, player: str, amount: int) -> int:
        """Damage dealt to a player causes that much life loss (120.3a); returns the life lost."""
        return -self._change(player, -max(0, amount), "damage")

    def lose(self, player: str, amount: int) -> int:
        return -self._change(player, -max(0, amount), "loss")

    def gain(self, player: str, amount: int) -> int:
        return self._change(player, max(0, amount), "gain")

    def set_life(self, player: str, value: int, *, cause: str = "set") -> int:
        """"``player``'s life total becomes ``value``"; returns the change counted for the player.

        Outside Two-Headed Giant: 119.5 (2026-01-16) "the player gains or loses the necessary
        amount of life to end up with the new total".  In Two-Headed Giant, by date:
        606.9c (2005-08-01) the team's total becomes ``value``; 606.9c (2005-10-01) the individual
        total (half the team's, rounded up) becomes ``value`` and the team is adjusted by the
        difference; 806.10c (2010-04-23) the player, whose total is the team's, gains or loses the
        difference.
        """
        if not self.shared:
            return self._change(player, value - self.totals[player], cause)
        rule = R.set_single_life_rule(self.rules_date)
        key = self._key(player)
        if rule is SetLifeRule.TEAM_BECOMES:
            delta = value - self.totals[key]
            self.totals[key] = value
            if delta:
                self.events.append(LifeEvent(player, delta, cause))
            return delta
        return self._change(player, value - self.life(player), cause)

    def set_each(self, values: Mapping[str, int], *, chosen: Mapping[str, str] | None = None) -> dict[str, int]:
        """"Each player's life total becomes ..." with the number for each player in ``values``.

        Two-Headed Giant, 606.9b (2005-08-01): "the result is the sum of all the numbers"
        (2007-05-01 adds that each player is considered to have lost or gained the difference from
        their individual total); 806.10d (2010-04-23): "that team chooses one of its members. On
        that team, only that player is affected."  ``chosen`` maps a team to its chosen member
        (default: its first member in turn order).  Returns the change counted for each player.
        """
        out: dict[str, int] = {}
        if not self.shared:
            for p, v in values.items():
                out[p] = self.set_life(p, v)
            return out
        rule = R.set_each_life_rule(self.rules_date)
        for team in self.table.team_names():
            members = [m for m in self.table.members(team) if m in values]
            if not members:
                continue
            if rule is SetEachLifeRule.SUM:
                before = {m: self.life(m) for m in members}
                self.totals[team] = sum(values[m] for m in members)
                for m in members:
                    out[m] = values[m] - before[m]
                    if out[m]:
                        self.events.append(LifeEvent(m, out[m], "set"))
            else:
                pick = (chosen or {}).get(team, members[0])
                if pick not in members:
                    raise ValueError(f"{pick} is not a member of {team}")
                out[pick] = self.set_life(pick, values[pick])
        return out

    def double(self, player: str) -> int:
        """"Double target player's life total": 701.10d (2026-01-16) "the player gains or loses an
        amount of life such that their new life total is twice its current value"; the current
        value is the individual total of 606.9a / 810.9a, so this is ``set_life(2 * life)``."""
        return self.set_life(player, 2 * self.life(player), cause="double")

    def exchange(self, a: str, b: str) -> bool:
        """Exchange two players' life totals (701.12c: "each player gains or loses the amount of
        life necessary to equal the other player's previous life total").  810.9e (2010-04-23 on):
        "A player can't exchange life totals with their teammate."  701.12a: if the entire exchange
        can't be completed, no part of it occurs.  Returns whether it happened."""
        if a == b:
            return False
        if self.shared and self.table.team_of(a) == self.table.team_of(b) and \
                R.teammate_exchange_forbidden(self.rules_date):
            return False
        la, lb = self.life(a), self.life(b)
        for p, new, old in ((a, lb, la), (b, la, lb)):
            if new > old and not self.can_gain(p):
                return False
            if new < old and not self.can_lose(p):
                return False
        self.set_life(a, lb, cause="exchange")
        self.set_life(b, la, cause="exchange")
        return True

    def can_pay(self, player: str, amount: int, *, together: int | None = None) -> bool:
        """Whether ``player`` may pay ``amount`` life (``together``: the total both team members pay
        for the same cost or effect).  119.4b: "Players can always pay 0 life".  Outside Two-Headed
        Giant, 119.4: only if their life total >= the payment.  Two-Headed Giant by date: see
        ``rules.pay_life_limit``; 810.9h (2010-10-01): no payment while the team can't lose life."""
        if amount <= 0:
            return True
        if not self.can_lose(player):
            return False
        if not self.shared:
            return self.totals[player] >= amount
        limit = R.pay_life_limit(self.rules_date)
        if limit is PayLifeLimit.INDIVIDUAL:
            return self.life(player) >= amount
        if limit is PayLifeLimit.TEAM_PER_PAYMENT:
            return self.total(player) >= amount
        return self.total(player) >= (together if together is not None else amount)

    def pay(self, player: str, amount: int, *, together: int | None = None) -> int:
        """Pay life: 119.4 "the payment is subtracted from their life total" (the team's in
        Two-Headed Giant, 119.4a).  Raises ``ValueError`` if the payment isn't allowed."""
        if not self.can_pay(player, amount, together=together):
            raise ValueError(f"{player} can't pay {amount} life")
        if amount <= 0:
            return 0
        self.totals[self._key(player)] -= amount
        self.events.append(LifeEvent(player, -amount, "payment"))
        return amount

    # --- poison ------------------------------------------------------------------------------------

    def poison(self, player: str) -> int:
        """810.10a (2011-04-01 on): an individual player's poison counters are the team's."""
        return self.poison_counts.get(self._poison_key(player), 0)

    def add_poison(self, player: str, amount: int) -> int:
        """810.10: "Effects that cause players to get poison counters happen to each player
        individually. The poison counters are shared by the team." """
        key = self._poison_key(player)
        self.poison_counts[key] = self.poison_counts.get(key, 0) + max(0, amount)
        return self.poison_counts[key]

    def remove_poison(self, player: str, amount: int) -> int:
        """810.10b: "If an effect says that a player loses poison counters, that player's team loses
        that many poison counters." """
        key = self._poison_key(player)
        self.poison_counts[key] = max(0, self.poison_counts.get(key, 0) - max(0, amount))
        return self.poison_counts[key]

    def poison_limit(self, player: str) -> int:
        return R.poison_limit(self.rules_date, self.variant, self.team_size(player))

    def poisoned_out(self, player: str) -> bool:
        """704.5c / 810.8d: ten (a 2HG team from 2011-04-01: fifteen, +5 per extra member) or more."""
        return self.poison(player) >= self.poison_limit(player)
