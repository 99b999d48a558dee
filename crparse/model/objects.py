"""Objects: owner and controller, control-changing effects, Auras, tokens, and what happens to a
player's objects when that player leaves the game (800.4, 600.4 until 2009-05-01).

Objects are identified by integers; players by their names (strings).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable, Iterable

from . import rules as R
from .rules import LeftoverFate, StackOnLeave, TokenOwnerRule

__all__ = [
    "Zone",
    "GameObject",
    "ControlEffect",
    "DelayedTrigger",
    "ObjectStore",
    "LeaveReport",
]


class Zone(enum.Enum):
    LIBRARY = "library"
    HAND = "hand"
    BATTLEFIELD = "battlefield"
    GRAVEYARD = "graveyard"
    STACK = "stack"
    EXILE = "exile"  # "removed-from-the-game zone" until 2009-07-11
    ANTE = "ante"
    COMMAND = "command"
    OUTSIDE = "outside the game"  # left the game with its owner, or ceased to exist


@dataclass
class GameObject:
    id: int
    name: str
    owner: str
    zone: Zone
    types: frozenset[str] = frozenset()
    subtypes: frozenset[str] = frozenset()
    supertypes: frozenset[str] = frozenset()
    colors: frozenset[str] = frozenset()
    power: int | None = None
    toughness: int | None = None
    keywords: frozenset[str] = frozenset()  # e.g. "flying", "forestwalk"
    is_token: bool = False
    is_card: bool = True
    entered_under: str | None = None  # the player under whose control it entered (default controller)
    attached_to: int | str | None = None  # an object id, or a player's name
    timestamp: int = 0
    damage: int = 0
    note: str = ""
    ceased: bool = False  # a token or non-card object that ceased to exist

    @property
    def on_battlefield(self) -> bool:
        return self.zone is Zone.BATTLEFIELD

    def is_a(self, card_type: str) -> bool:
        return card_type.lower() in {t.lower() for t in self.types}


@dataclass
class ControlEffect:
    """An effect that gives ``player`` control of ``obj``.

    ``duration``: "indefinite"; "end_of_turn"; "while_source" (as long as object ``source`` is on the
    battlefield and, for an Aura, attached to ``obj`` -- e.g. Mind Control, "You control enchanted
    creature").
    """

    id: int
    obj: int
    player: str
    duration: str = "indefinite"
    source: int | None = None
    timestamp: int = 0
    ended: bool = False


@dataclass
class DelayedTrigger:
    """A delayed triggered ability, e.g. Astral Slide's "return that creature to the battlefield
    under its owner's control at the beginning of the next end step"."""

    id: int
    controller: str
    when: str  # e.g. "next end step"
    action: str  # e.g. "return"
    obj: int | None = None
    done: bool = False
    outcome: str = ""


@dataclass
class LeaveReport:
    """What 800.4a did when a player left."""

    player: str
    left_the_game: list[int] = field(default_factory=list)  # owned objects that left the game
    control_effects_ended: list[int] = field(default_factory=list)
    ceased: list[int] = field(default_factory=list)  # stack objects that ceased to exist
    leftovers: list[int] = field(default_factory=list)  # still controlled, not owned
    leftover_fate: LeftoverFate | None = None
    to_graveyard: list[int] = field(default_factory=list)  # state-based actions that followed


@dataclass
class ObjectStore:
    rules_date: object = None
    in_game: Callable[[str], bool] = lambda p: True
    objects: dict[int, GameObject] = field(default_factory=dict)
    control_effects: list[ControlEffect] = field(default_factory=list)
    delayed: list[DelayedTrigger] = field(default_factory=list)
    last_known: dict[int, dict] = field(default_factory=dict)  # last battlefield state by object
    _next_id: int = 1
    _clock: int = 0

    def __post_init__(self) -> None:
        self.rules_date = R.as_date(self.rules_date)

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _new_id(self) -> int:
        i = self._next_id
        self._next_id += 1
        return i

    # --- creation ---------------------------------------------------------------------------------

    def add(self, name: str, owner: str, zone: Zone = Zone.BATTLEFIELD, *, controller: str | None = None,
            **attrs) -> int:
        """Put a card (or other object) into a zone; on the battlefield it enters under
        ``controller``'s control (default: its owner; 110.2 "A permanent's controller is, by default,
        the player under whose control it entered the battlefield")."""
        oid = self._new_id()
        obj = GameObject(id=oid, name=name, owner=owner, zone=zone, timestamp=self._tick(), **attrs)
        if zone in (Zone.BATTLEFIELD, Zone.STACK):
            obj.entered_under = controller or owner
        self.objects[oid] = obj
        self._remember(obj)
        return oid

    def create_token(self, name: str, *, creator: str, source_controller: str | None = None,
                     **attrs) -> int | None:
        """A token is created onto the battlefield by ``creator`` (the player who puts it onto the
        battlefield / creates it) for a spell or ability controlled by ``source_controller``.

        Owner by date: 200.4a (2005-08-01) "A token's owner is the player who controlled the spell or
        ability that put it into play. A token's controller is the player who put it into play.";
        110.5a (2009-07-11) "owned and controlled by the player under whose control it entered the
        battlefield"; 110.5a (2018-07-13) "The player who creates a token is its owner."
        800.4b: "If a token would be created under the control of a player who has left the game, no
        token is created."  800.4d: an object that would be owned by a departed player isn't created.
        Returns the token's id, or ``None`` if no token was created.
        """
        rule = R.token_owner_rule(self.rules_date)
        owner = (source_controller or creator) if rule is TokenOwnerRule.CONTROLLER_OF_CREATING_SOURCE \
            else creator
        if not self.in_game(creator) or not self.in_game(owner):
            return None
        return self.add(name, owner, Zone.BATTLEFIELD, controller=creator, is_token=True,
                        is_card=False, **attrs)

    # --- control ----------------------------------------------------------------------------------

    def _effect_active(self, eff: ControlEffect) -> bool:
        if eff.ended or not self.in_game(eff.player):
            return False
        if eff.duration == "while_source":
            src = self.objects.get(eff.source) if eff.source is not None else None
            if src is None or not src.on_battlefield:
                return False
            if src.attached_to is not None and src.attached_to != eff.obj:
                return False
        return True

    def controller(self, oid: int) -> str | None:
        """The controller: the player of the newest control-changing effect still in force, else the
        default controller (110.2).  Objects outside the battlefield and the stack have none."""
        obj = self.objects[oid]
        if obj.zone not in (Zone.BATTLEFIELD, Zone.STACK):
            return None
        best = None
        for eff in self.control_effects:
            if eff.obj == oid and self._effect_active(eff):
                if best is None or eff.timestamp > best.timestamp:
                    best = eff
        return best.player if best is not None else obj.entered_under

    def owner(self, oid: int) -> str:
        return self.objects[oid].owner

    def gain_control(self, oid: int, player: str, *, duration: str = "indefinite",
                     source: int | None = None) -> int | None:
        """An effect gives ``player`` control of ``oid``.  800.4b: "If an object would change to the
        control of a player who has left the game, it doesn't." Returns the effect's id."""
        if not self.in_game(player):
            return None
        eid = self._new_id()
        self.control_effects.append(ControlEffect(eid, oid, player, duration, source, self._tick()))
        self._remember(self.objects[oid])
        return eid

    def end_control_effect(self, eid: int) -> list[int]:
        """A control-changing effect ends.  From 2012-02-01, 800.4c: if no other effect gives control
        to a player in the game and the object's default controller has left, it is exiled.
        Returns the objects exiled."""
        exiled: list[int] = []
        for eff in self.control_effects:
            if eff.id == eid and not eff.ended:
                eff.ended = True
                exiled += self._orphan_check(eff.obj)
        return exiled

    def end_of_turn(self) -> list[int]:
        """Effects that last "until end of turn" end (514.2)."""
        exiled: list[int] = []
        for eff in self.control_effects:
            if eff.duration == "end_of_turn" and not eff.ended:
                eff.ended = True
                exiled += self._orphan_check(eff.obj)
        return exiled

    def _orphan_check(self, oid: int) -> list[int]:
        obj = self.objects[oid]
        if not obj.on_battlefield or not R.control_end_exiles_orphans(self.rules_date):
            return []
        if any(e.obj == oid and self._effect_active(e) for e in self.control_effects):
            return []
        if obj.entered_under is not None and not self.in_game(obj.entered_under):
            self.move(oid, Zone.EXILE)
            return [oid]
        return []

    # --- zones ------------------------------------------------------------------------------------

    def _remember(self, obj: GameObject) -> None:
        if obj.on_battlefield:
            self.last_known[obj.id] = {"controller": self.controller(obj.id), "owner": obj.owner,
                                       "name": obj.name}

    def move(self, oid: int, zone: Zone) -> None:
        obj = self.objects[oid]
        if obj.on_battlefield:
            self._remember(obj)
        obj.zone = zone
        obj.timestamp = self._tick()
        obj.damage = 0
        if zone is not Zone.BATTLEFIELD:
            obj.attached_to = None
        if zone in (Zone.BATTLEFIELD, Zone.STACK) and obj.entered_under is None:
            obj.entered_under = obj.owner

    def put_onto_battlefield(self, oid: int, under: str) -> bool:
        """800.4b: "If an object would be put onto the battlefield ... under the control of a player
        who has left the game, that object remains in its current zone." """
        if not self.in_game(under):
            return False
        obj = self.objects[oid]
        obj.zone = Zone.BATTLEFIELD
        obj.entered_under = under
        obj.timestamp = self._tick()
        self._remember(obj)
        return True

    def attach(self, aura: int, target: int | str) -> None:
        self.objects[aura].attached_to = target

    def battlefield(self) -> list[GameObject]:
        return [o for o in self.objects.values() if o.on_battlefield]

    def controlled_by(self, player: str, zone: Zone = Zone.BATTLEFIELD) -> list[GameObject]:
        return [o for o in self.objects.values() if o.zone is zone and self.controller(o.id) == player]

    def find(self, name: str, *, controller: str | None = None, owner: str | None = None,
             zone: Zone | None = Zone.BATTLEFIELD) -> list[int]:
        out = []
        for o in self.objects.values():
            if o.name.lower() != name.lower():
                continue
            if zone is not None and o.zone is not zone:
                continue
            if owner is not None and o.owner != owner:
                continue
            if controller is not None and self.controller(o.id) != controller:
                continue
            out.append(o.id)
        return out

    # --- state-based actions ----------------------------------------------------------------------

    def state_based_actions(self, legal_attachment: Callable[[GameObject], bool] | None = None) -> list[int]:
        """Auras attached to nothing legal go to their owner's graveyard (704.5m, 801.8); tokens
        outside the battlefield cease to exist (704.5d).  Returns the Auras moved."""
        moved: list[int] = []
        for o in list(self.objects.values()):
            if o.is_token and o.zone not in (Zone.BATTLEFIELD, Zone.OUTSIDE) and not o.ceased:
                o.ceased = True
                o.zone = Zone.OUTSIDE
            if o.on_battlefield and "Aura" in o.subtypes:
                tgt = o.attached_to
                ok = True
                if isinstance(tgt, int):
                    t = self.objects.get(tgt)
                    ok = t is not None and t.on_battlefield
                elif isinstance(tgt, str):
                    ok = self.in_game(tgt)
                else:
                    ok = False
                if ok and legal_attachment is not None:
                    ok = legal_attachment(o)
                if not ok:
                    self.move(o.id, Zone.GRAVEYARD if not o.is_token else Zone.OUTSIDE)
                    moved.append(o.id)
        return moved

    # --- delayed triggers -------------------------------------------------------------------------

    def add_delayed(self, controller: str, when: str, action: str, obj: int | None = None) -> int:
        did = self._new_id()
        self.delayed.append(DelayedTrigger(did, controller, when, action, obj))
        return did

    def fire_delayed(self, when: str) -> list[DelayedTrigger]:
        """The delayed triggers waiting for ``when`` trigger.  One controlled by a player who has
        left the game is not put on the stack (800.4d, 2008-05-01 on; before, 600.4c: it "leaves the
        game rather than being put on the stack"); others resolve ("return": the object returns to
        the battlefield under its owner's control)."""
        fired = []
        for d in self.delayed:
            if d.done or d.when != when:
                continue
            d.done = True
            if not self.in_game(d.controller):
                d.outcome = R.departed_trigger_fate(self.rules_date).value
            elif d.action == "return" and d.obj is not None:
                obj = self.objects[d.obj]
                if obj.zone is Zone.EXILE and self.put_onto_battlefield(d.obj, obj.owner):
                    d.outcome = "returned"
                else:
                    d.outcome = "not returned"
            else:
                d.outcome = "resolved"
            fired.append(d)
        return fired

    # --- leaving the game -------------------------------------------------------------------------

    def leave(self, player: str, *, after_departure: Callable[[], None] | None = None) -> LeaveReport:
        """800.4a: "When a player leaves the game, all objects ... owned by that player leave the
        game and any effects which give that player control of any objects or players end. Then, if
        that player controlled any objects on the stack not represented by cards, those objects
        cease to exist. Then, if there are any objects still controlled by that player, those
        objects are exiled."  Older texts by date: ``rules.stack_on_leave`` (all spells and
        abilities on the stack ceased to exist until 2012-10-01) and ``rules.leftover_fate``
        (leftovers "leave the game" until 2009-07-11, into the removed-from-the-game zone from
        2006-10-01).  800.4n: objects in the ante zone stay.

        ``after_departure`` is called once the player counts as gone (the caller marks the player
        as having left); the store must already see the player as gone for control to revert.
        """
        rep = LeaveReport(player)
        controlled_before = {o.id: self.controller(o.id) for o in self.objects.values()}
        # owned objects leave the game
        for o in self.objects.values():
            if o.owner == player and o.zone not in (Zone.OUTSIDE, Zone.ANTE):
                if o.on_battlefield:
                    self._remember(o)
                o.zone = Zone.OUTSIDE
                rep.left_the_game.append(o.id)
        # effects giving that player control end
        for eff in self.control_effects:
            if eff.player == player and not eff.ended:
                eff.ended = True
                rep.control_effects_ended.append(eff.id)
        if after_departure is not None:
            after_departure()
        # the stack
        stack_rule = R.stack_on_leave(self.rules_date)
        for o in self.objects.values():
            if o.zone is Zone.STACK and controlled_before.get(o.id) == player:
                if stack_rule is StackOnLeave.ALL_CONTROLLED or not o.is_card:
                    o.zone = Zone.OUTSIDE
                    o.ceased = True
                    rep.ceased.append(o.id)
        # leftovers: objects whose controller is still that player (no longer possible through an
        # effect, so: entered under that player's control and owned by someone else)
        fate = R.leftover_fate(self.rules_date)
        rep.leftover_fate = fate
        for o in self.objects.values():
            if o.zone in (Zone.BATTLEFIELD, Zone.STACK) and self._default_only(o) == player:
                if fate is LeftoverFate.LEAVE_THE_GAME:
                    if o.on_battlefield:
                        self._remember(o)
                    o.zone = Zone.OUTSIDE
                else:
                    self.move(o.id, Zone.EXILE)
                rep.leftovers.append(o.id)
        rep.to_graveyard = self.state_based_actions()
        return rep

    def _default_only(self, o: GameObject) -> str | None:
        """The controller when no effect in force gives control to a player still in the game."""
        if any(e.obj == o.id and self._effect_active(e) for e in self.control_effects):
            return None
        return o.entered_under

    def ids(self, where: Iterable[GameObject]) -> list[int]:
        return [o.id for o in where]
