"""The effects the multiplayer rules talk about, limited by range of influence.

Pure predicates over a ``Table`` plus the damage-event records the reference game uses:

- 801.4 / 801.10: spells and abilities can't target or affect what is outside their controller's
  range;
- 801.7 / 801.7a: a triggered ability triggers only if its whole trigger event is within range
  (objects that left the battlefield are placed where they were before the event);
- 801.11: the information an effect sees comes from its controller's range (``rules.information_range``
  for the reading of the 801.11 examples by date);
- 801.13a: the part of a replacement effect that would affect something out of range does nothing;
- 801.13b: prevention of damage by a source / to a recipient / unspecified;
- 801.14: "you win the game" under limited range (``rules.win_effect_limited_by_range``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from .rules import InfoRange, information_range
from .table import Table

__all__ = [
    "DamageSource",
    "PreventionShield",
    "RedirectShield",
    "DamageResult",
    "affects",
    "prevention_applies",
    "redirect_allowed",
    "event_within_range",
    "information_players",
]

Recipient = "str | int"  # a player's name or an object id


@dataclass(frozen=True)
class DamageSource:
    """The source of damage: its controller, and the object (a spell, ability's source or creature)."""

    controller: str
    obj: int | None = None
    name: str = ""
    is_creature: bool = False
    colors: frozenset[str] = frozenset()
    combat: bool = False


@dataclass
class PreventionShield:
    """A prevention effect created by a spell or ability controlled by ``controller``.

    scope "source": it prevents damage dealt by particular sources (``source_filter``);
    scope "recipient": damage dealt to ``recipient``; scope "unspecified": neither is specified
    (e.g. Fog, "Prevent all combat damage that would be dealt this turn").
    ``amount`` None prevents all such damage; otherwise the next ``amount`` damage.
    ``reflect``: Honorable Passage -- if damage from a red source is prevented, deal that much damage
    to the source's controller.
    """

    id: int
    controller: str
    scope: str
    recipient: "str | int | None" = None
    source_filter: Callable[[DamageSource], bool] | None = None
    amount: int | None = None
    combat_only: bool = False
    reflect_red: bool = False
    name: str = ""
    once: bool = False  # "the next time ... would deal damage": used up by one damage event
    static: bool = False  # from a permanent's static ability: lasts beyond the turn
    used: int = 0
    active: bool = True

    def remaining(self) -> int | None:
        return None if self.amount is None else max(0, self.amount - self.used)


@dataclass
class RedirectShield:
    """"The next X damage that would be dealt to ``from_`` this turn is dealt to ``to`` instead"."""

    id: int
    controller: str
    from_: "str | int"
    to: "str | int"
    amount: int
    used: int = 0
    name: str = ""

    def remaining(self) -> int:
        return max(0, self.amount - self.used)


@dataclass
class DamageResult:
    dealt: dict = field(default_factory=dict)  # recipient -> damage dealt
    prevented: dict = field(default_factory=dict)  # recipient -> damage prevented
    redirected_nowhere: int = 0  # redirected damage that did nothing (801.13a)
    out_of_range: int = 0  # damage to a recipient outside the source controller's range (801.10)
    reflected: dict = field(default_factory=dict)

    def total(self, recipient) -> int:
        return self.dealt.get(recipient, 0)


def affects(table: Table, controller: str, player: str) -> bool:
    """801.10: "Spells and abilities can't affect objects or players outside their controller's
    range of influence." (``player``: the player, or the controller of the object, affected.)"""
    return table.in_range(controller, player)


def prevention_applies(table: Table, shield: PreventionShield, source: DamageSource,
                       recipient_player: str) -> bool:
    """801.13b: "If a spell or ability creates an effect that prevents damage that would be dealt by
    a source, it can affect only sources within the spell or ability's controller's range of
    influence. If [it] prevents damage that would be dealt to a permanent or player, it can affect
    only permanents and players within [that] range. If ... neither the source nor the would-be
    recipient of the damage is specified, it prevents damage only if both the source and recipient
    of that damage are within the spell or ability's controller's range of influence."
    ``recipient_player`` is the damaged player or the damaged permanent's controller."""
    ctl = shield.controller
    if not table.in_game(ctl):
        return False
    src_in = table.in_range(ctl, source.controller)
    rcp_in = table.in_range(ctl, recipient_player)
    if shield.scope == "source":
        return src_in
    if shield.scope == "recipient":
        return rcp_in
    if shield.scope in ("unspecified", "both"):
        # "both": an effect that specifies a source and a recipient is subject to both sentences
        return src_in and rcp_in
    raise ValueError(f"unknown prevention scope {shield.scope!r}")


def redirect_allowed(table: Table, source: DamageSource, new_recipient_player: str) -> bool:
    """801.13a: "If a replacement effect tries to cause a spell or ability to affect an object or
    player outside its controller's range of influence, that portion of the event does nothing."
    The spell or ability is the damage's source; the new recipient must be in its controller's
    range."""
    return table.in_range(source.controller, new_recipient_player)


def event_within_range(table: Table, viewer: str, participants: Iterable[str]) -> bool:
    """801.7: "A triggered ability doesn't trigger unless its trigger event happens entirely within
    the range of influence of its source's controller."  ``participants`` are the players involved
    and the controllers of the objects involved -- for an object leaving the battlefield, its
    controller just before the event (801.7a)."""
    return table.in_game(viewer) and all(table.in_range(viewer, p) for p in participants)


def information_players(table: Table, effect_controller: str, affected_controller: str | None,
                        rules_date) -> frozenset[str]:
    """The players whose objects an effect of ``effect_controller`` takes into account when it
    affects an object of ``affected_controller`` (801.11; see ``rules.information_range``)."""
    seen = table.range_of_influence(effect_controller)
    if affected_controller is not None and \
            information_range(rules_date) is InfoRange.INTERSECTION:
        seen &= table.range_of_influence(affected_controller)
    return seen
