"""The reference game: table, life, objects and the card effects together; implements ``Engine``.

Only what the multiplayer rules' examples need is modelled: no stack timing, no mana, no combat
steps beyond "this creature deals its damage to that player or creature".  Each action applies its
effect at once (as if every spell resolved as it was cast, in the order of the calls).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import rules as R
from .cards import Card, card, known
from .effects import (DamageResult, DamageSource, PreventionShield, RedirectShield,
                      event_within_range, information_players, prevention_applies, redirect_allowed)
from .life import LifeBook
from .melee import TurnMarkers
from .objects import GameObject, LeaveReport, ObjectStore, Zone
from .protocol import GameConfig
from .rules import LegendRule, Variant
from .table import Table, make_table

__all__ = ["Game", "IllegalAction", "new_game"]

_NO_CARD = Card(name="", types=())  # what an object of no known card is, for effect lookups


class IllegalAction(ValueError):
    """An action the rules don't allow (an out-of-range target, a payment that can't be made...)."""


@dataclass
class CastResult:
    card: str
    controller: str
    damage: list[DamageResult] = field(default_factory=list)
    objects: list[int] = field(default_factory=list)
    life_changes: dict[str, int] = field(default_factory=dict)
    chooser: tuple[frozenset[str], str | None] | None = None
    note: str = ""


def new_game(config: GameConfig) -> "Game":
    """The reference ``EngineFactory``."""
    return Game(config)


class Game:
    """One game under the rules of ``config.rules_date``."""

    def __init__(self, config: GameConfig | None = None, **kwargs: Any) -> None:
        if config is None:
            config = GameConfig(**kwargs)
        elif kwargs:
            raise TypeError("give a GameConfig or keyword arguments, not both")
        self.config = config
        self.rules_date = R.as_date(config.rules_date)
        self.variant = Variant(config.variant) if isinstance(config.variant, str) else config.variant
        self.table: Table = make_table(self.variant, config.players, teams=config.teams,
                                       ranges=config.ranges, roles=config.roles,
                                       attack_option=config.attack_option, rules_date=self.rules_date)
        self.life_book = LifeBook(self.table, self.rules_date, self.variant)
        for who, value in (config.life or {}).items():
            self.life_book.set_total(who, value)
        self.objects = ObjectStore(self.rules_date, in_game=self.table.in_game)
        self.prevention: list[PreventionShield] = []
        self.redirects: list[RedirectShield] = []
        self.lost: list[str] = []
        self.won: list[str] = []
        self.leave_reports: dict[str, LeaveReport] = {}
        self.extra_turns: dict[str, int] = {}
        self.moat_color: dict[int, str] = {}
        self.tapped: set[int] = set()
        self.animated: set[int] = set()
        self.log: list[str] = []
        self.cards: dict[int, Card] = {}  # objects whose card text was given, not looked up by name
        self._ids = 10_000
        start = config.starting_player or self.table.order[0]
        self.melee: TurnMarkers | None = None
        if self.variant is Variant.GRAND_MELEE:
            self.melee = TurnMarkers.start(self.table, start)
        else:
            self.table.begin_turn(start)

    # --- helpers ----------------------------------------------------------------------------------

    def _nid(self) -> int:
        self._ids += 1
        return self._ids

    def _obj(self, oid: int) -> GameObject:
        try:
            return self.objects.objects[oid]
        except KeyError:
            raise KeyError(f"no object {oid}") from None

    def _player_of(self, target: "str | int") -> str | None:
        """A player, or the controller of an object (its owner when it has no controller)."""
        if isinstance(target, str):
            return target
        obj = self._obj(target)
        return self.objects.controller(target) or obj.owner

    # --- seats and teams --------------------------------------------------------------------------

    def players(self) -> list[str]:
        return self.table.players()

    def left_of(self, player: str, steps: int = 1) -> str:
        return self.table.left_of(player, steps)

    def right_of(self, player: str, steps: int = 1) -> str:
        return self.table.right_of(player, steps)

    def distance(self, a: str, b: str) -> int:
        return self.table.distance(a, b)

    def team_of(self, player: str) -> str:
        return self.table.team_of(player)

    def teammates(self, player: str) -> list[str]:
        return self.table.teammates(player)

    def opponents(self, player: str) -> list[str]:
        return self.table.opponents(player)

    def active_players(self) -> list[str]:
        if self.melee is not None:
            return [p for m, p in sorted(self.melee.holders.items()) if m in self.melee.taking]
        return self.table.active_players()

    # --- range of influence -----------------------------------------------------------------------

    def range_value(self, player: str) -> int | None:
        """The player's range of influence in seats (None: unlimited)."""
        return self.table.range_value(player)

    def range_of_influence(self, player: str) -> frozenset[str]:
        return self.table.range_of_influence(player)

    def in_range(self, viewer: str, target: "str | int") -> bool:
        """801.2 / 801.2d: a player within range, or an object controlled by such a player."""
        who = self._player_of(target)
        return who is not None and self.table.in_range(viewer, who)

    def objects_in_range(self, viewer: str, *, types: Sequence[str] = ()) -> list[int]:
        out = []
        for o in self.objects.battlefield():
            if types and not any(o.is_a(t) for t in types):
                continue
            if self.in_range(viewer, o.id):
                out.append(o.id)
        return out

    def legal_targets(self, controller: str, *, chooser: str | None = None,
                      kinds: Sequence[str] = ("player", "creature")) -> frozenset:
        """801.4: "Objects and players outside a player's range of influence can't be the targets
        of spells or abilities that player controls." 801.5a: a player asked to choose "must choose
        one within their range of influence" -- when another player chooses for a spell or ability
        of ``controller``, both ranges apply (801.5a example)."""
        who = chooser or controller
        players = self.table.choosable_players(who, controller)
        out: set = set()
        if "player" in kinds:
            out |= players
        for o in self.objects.battlefield():
            if any(o.is_a(k) or (k == "creature" and o.id in self.animated) for k in kinds
                   if k != "player"):
                if self._player_of(o.id) in players:
                    out.add(o.id)
        return frozenset(out)

    def chooser_for(self, controller: str, *, opponent: bool = True) -> tuple[frozenset[str], str | None]:
        return self.table.chooser_for(controller, opponent=opponent)

    def _require_target(self, controller: str, target: "str | int", what: str = "target") -> None:
        if isinstance(target, str):
            if not self.table.in_game(target):
                raise IllegalAction(f"{target} is not in the game")
        elif not self._obj(target).on_battlefield:
            raise IllegalAction(f"object {target} is not on the battlefield")
        if not self.in_range(controller, target):
            raise IllegalAction(f"801.4: {target} is outside {controller}'s range of influence ({what})")

    # --- attacks ----------------------------------------------------------------------------------

    def attackable(self, player: str) -> frozenset[str]:
        return self.table.attackable(player)

    def _moat_forbids(self, creature: int, defender: str) -> bool:
        c = self._obj(creature)
        for mid, color in self.moat_color.items():
            m = self._obj(mid)
            if m.on_battlefield and self.objects.controller(mid) == defender and \
                    color in c.colors and "flying" not in c.keywords:
                return True
        return False

    def can_attack(self, creature: int, defender: str) -> bool:
        """Whether ``creature`` may attack ``defender`` (801.3, 803, 809.3c, 811.4, Teferi's Moat).

        Two-Headed Giant until 2018-04-27 (810.7c): "If an effect of an object controlled by a
        defending player prohibits a creature from attacking him or her, that creature can't attack
        the defending team."  From 2018-04-27 (805.10b, 802.3a) a restriction on attacking a player
        applies only to creatures attacking that player."""
        ctl = self.objects.controller(creature)
        if ctl is None or not self._obj(creature).on_battlefield:
            return False
        if defender not in self.table.attackable(ctl):
            return False
        if self.table.attack_unit() == "team":
            team = self.table.team_of(defender)
            return not any(self._moat_forbids(creature, p) for p in self.table.members(team))
        return not self._moat_forbids(creature, defender)

    def landwalk_unblockable(self, creature: int, attacked: str, land_type: str) -> bool:
        """Landwalk: 802.2a -- the defending player an attacking creature refers to is "the player
        that creature is attacking" (802.2a example: mountainwalk and Carissa's Mountains).
        Two-Headed Giant until 2018-04-27 (810.7d example): "If an attacking creature has forestwalk
        and either player on the defending team controls a Forest, the creature can't be blocked." """
        if self.table.attack_unit() == "team":
            defenders = self.table.members(self.table.team_of(attacked))
        else:
            defenders = [attacked]
        for o in self.objects.battlefield():
            if o.is_a("Land") and land_type in o.subtypes and self.objects.controller(o.id) in defenders:
                return True
        return False

    # --- life and poison --------------------------------------------------------------------------

    def life(self, player: str) -> int:
        return self.life_book.life(player)

    def life_total(self, player: str) -> int:
        """The total the player's life changes apply to (the team's in Two-Headed Giant)."""
        return self.life_book.total(player)

    def team_life(self, team: str) -> int:
        return self.life_book.team_life(team)

    def poison(self, player: str) -> int:
        return self.life_book.poison(player)

    def gain_life(self, player: str, amount: int) -> int:
        return self.life_book.gain(player, amount)

    def lose_life(self, player: str, amount: int) -> int:
        return self.life_book.lose(player, amount)

    def set_life(self, player: str, value: int) -> int:
        return self.life_book.set_life(player, value)

    def set_each_life(self, values: Mapping[str, int], *, chosen: Mapping[str, str] | None = None) -> dict[str, int]:
        return self.life_book.set_each(values, chosen=chosen)

    def pay_life(self, player: str, amount: int) -> int:
        try:
            return self.life_book.pay(player, amount)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None

    def double_life(self, player: str) -> int:
        return self.life_book.double(player)

    def exchange_life(self, a: str, b: str) -> bool:
        return self.life_book.exchange(a, b)

    def add_poison(self, player: str, amount: int) -> int:
        return self.life_book.add_poison(player, amount)

    # --- objects ----------------------------------------------------------------------------------

    def create(self, name: "str | Card", controller: str, *, owner: str | None = None, zone: str = "battlefield",
               attached_to: "str | int | None" = None, **attributes: Any) -> int:
        """Put a card into the game: a card of the model's table by name, or any object described by
        ``attributes`` (types, subtypes, colors, power, toughness, keywords, supertypes).  For Teferi's
        Moat give ``color``; for an Aura ``attached_to``."""
        z = Zone(zone)
        attrs: dict[str, Any] = {}
        color = attributes.pop("color", None)
        given = name if isinstance(name, Card) else None  # its own text (a scenario's quote)
        if given is not None or known(name):
            c = given or card(name)
            attrs.update(types=frozenset(c.types), subtypes=frozenset(c.subtypes),
                         supertypes=frozenset(c.supertypes), colors=frozenset(c.colors),
                         power=c.power, toughness=c.toughness, keywords=frozenset(c.keywords))
            name = c.name
        for k, v in attributes.items():
            attrs[k] = frozenset(v) if k in ("types", "subtypes", "supertypes", "colors", "keywords") else v
        if not self.table.in_game(controller):
            raise IllegalAction(f"{controller} is not in the game")
        oid = self.objects.add(name, owner or controller, z, controller=controller, **attrs)
        if given is not None:
            self.cards[oid] = given
        if attached_to is not None:
            self.objects.attach(oid, attached_to)
        if (self._card_of(oid) or _NO_CARD).effect == "aura_control" and isinstance(attached_to, int):
            self.objects.gain_control(attached_to, controller, duration="while_source", source=oid)
        if (self._card_of(oid) or _NO_CARD).effect == "prevent_all_by_creatures":
            # "Prevent all damage that would be dealt by creatures" (801.13b example): a static
            # prevention effect of its controller, limited by that player's range
            self.add_prevention(controller, "source", source_filter=lambda s: s.is_creature, static=True,
                                name=self._obj(oid).name)
        if color is not None:
            self.moat_color[oid] = color
        if z is Zone.BATTLEFIELD:
            self._entered(oid)
        return oid

    def creature(self, controller: str, name: str = "Creature", *, subtypes: Sequence[str] = (),
                 power: int = 2, toughness: int = 2, **attributes: Any) -> int:
        """A plain creature (e.g. "a Goblin": ``creature("Alex", "Goblin", subtypes=["Goblin"])``)."""
        return self.create(name, controller, types=attributes.pop("types", ("Creature",)),
                           subtypes=subtypes, power=power, toughness=toughness, **attributes)

    def controller(self, obj: int) -> str | None:
        return self.objects.controller(obj)

    def owner(self, obj: int) -> str:
        return self.objects.owner(obj)

    def zone(self, obj: int) -> str:
        return self._obj(obj).zone.value

    def damage_on(self, obj: int) -> int:
        return self._obj(obj).damage

    def tap(self, obj: int) -> None:
        self.tapped.add(obj)

    def untap(self, obj: int) -> None:
        self.tapped.discard(obj)

    def _entered(self, oid: int) -> None:
        """Triggers on a permanent entering: Genesis Chamber ("Whenever a nontoken creature enters,
        if Genesis Chamber is untapped, that creature's controller creates a 1/1 colorless Myr
        artifact creature token"), within the Chamber controller's range (801.7)."""
        obj = self._obj(oid)
        if not obj.is_a("Creature") or obj.is_token:
            return
        ctl = self.objects.controller(oid)
        for ch in list(self.objects.battlefield()):
            if ch.name != "Genesis Chamber" or ch.id in self.tapped:
                continue
            cc = self.objects.controller(ch.id)
            if cc is None or not event_within_range(self.table, cc, [ctl]):
                continue
            params = card("Genesis Chamber").params
            self.objects.create_token(params["token"], creator=ctl, source_controller=cc,
                                      types=frozenset({"Artifact", "Creature"}),
                                      subtypes=frozenset({params["token"]}),
                                      power=params["power"], toughness=params["toughness"],
                                      note=f"from Genesis Chamber #{ch.id}")

    def tokens(self, *, zone: str | None = "battlefield") -> list[int]:
        return [o.id for o in self.objects.objects.values() if o.is_token and
                (zone is None or o.zone.value == zone)]

    # --- characteristics --------------------------------------------------------------------------

    def coat_of_arms_bonus(self, creature: int) -> int:
        """The +N/+N a creature gets from all Coats of Arms on the battlefield.  801.10: a Coat
        doesn't affect creatures outside its controller's range; 801.11: it counts only creatures
        it sees (``effects.information_players``: its controller's range, or before 2011-05-01 the
        range shared with the boosted creature's controller)."""
        c = self._obj(creature)
        ctl = self.objects.controller(creature)
        bonus = 0
        for coat in self.objects.battlefield():
            if coat.name != "Coat of Arms":
                continue
            cc = self.objects.controller(coat.id)
            if cc is None or ctl is None or not self.table.in_range(cc, ctl):
                continue
            seen = information_players(self.table, cc, ctl, self.rules_date)
            for other in self.objects.battlefield():
                if other.id == creature or not other.is_a("Creature"):
                    continue
                if self.objects.controller(other.id) in seen and (other.subtypes & c.subtypes):
                    bonus += 1
        return bonus

    def power_toughness(self, obj: int) -> tuple[int, int]:
        o = self._obj(obj)
        p, t = o.power or 0, o.toughness or 0
        if obj in self.animated and o.name == "Lurking Jackals":
            p, t = 3, 2
        if obj in self.animated and o.name == "Lurking Evil":
            p, t = 4, 4
        b = self.coat_of_arms_bonus(obj) if (o.is_a("Creature") or obj in self.animated) else 0
        return p + b, t + b

    # --- damage -------------------------------------------------------------------------------------

    def _source(self, source: "str | int | DamageSource", combat: bool) -> DamageSource:
        if isinstance(source, DamageSource):
            return source
        if isinstance(source, str):
            return DamageSource(controller=source, combat=combat)
        o = self._obj(source)
        ctl = self.objects.controller(source) or self.objects.last_known.get(source, {}).get("controller") or o.owner
        return DamageSource(controller=ctl, obj=source, name=o.name,
                            is_creature=o.is_a("Creature") or source in self.animated,
                            colors=o.colors, combat=combat)

    def add_prevention(self, controller: str, scope: str, *, recipient: "str | int | None" = None,
                       source_filter=None, amount: int | None = None, combat_only: bool = False,
                       reflect_red: bool = False, once: bool = False, static: bool = False,
                       name: str = "") -> PreventionShield:
        """Create a prevention effect (e.g. an enchantment reading "Prevent all damage that would be
        dealt by creatures": ``add_prevention(ctl, "source", source_filter=lambda s: s.is_creature)``).
        Scopes: "source", "recipient", "both" (a chosen source and a target recipient), "unspecified".
        ``static``: the effect of a permanent's static ability (it doesn't end with the turn)."""
        sh = PreventionShield(self._nid(), controller, scope, recipient, source_filter, amount,
                              combat_only, reflect_red, name, once=once, static=static)
        self.prevention.append(sh)
        return sh

    def add_redirect(self, controller: str, from_: "str | int", to: "str | int", amount: int,
                     name: str = "") -> RedirectShield:
        sh = RedirectShield(self._nid(), controller, from_, to, amount, name=name)
        self.redirects.append(sh)
        return sh

    def _shield_matches(self, sh: PreventionShield, src: DamageSource, recipient) -> bool:
        if not sh.active or (sh.remaining() is not None and sh.remaining() <= 0):
            return False
        if sh.combat_only and not src.combat:
            return False
        if sh.recipient is not None and sh.recipient != recipient:
            return False
        if sh.source_filter is not None and not sh.source_filter(src):
            return False
        return prevention_applies(self.table, sh, src, self._player_of(recipient))

    def deal_damage(self, source: "str | int | DamageSource", recipient: "str | int",
                    amount: int | None = None, *, combat: bool = False,
                    _result: DamageResult | None = None, _redirectable: bool = True) -> DamageResult:
        """``source`` deals ``amount`` damage to ``recipient`` (a player or a creature).

        801.10: nothing is dealt to a recipient outside the source controller's range.  801.13a:
        damage redirected to a recipient outside that range does nothing.  801.13b: prevention
        applies only within the range of its controller (see ``effects.prevention_applies``).
        810.9: damage to a Two-Headed Giant player is applied to the team's total.
        """
        res = _result or DamageResult()
        src = self._source(source, combat)
        if amount is None:
            if src.obj is None:
                raise ValueError("amount needed for damage from a player's spell")
            amount = self.power_toughness(src.obj)[0]
        if amount <= 0:
            return res
        rp = self._player_of(recipient)
        if rp is None or not self.table.in_game(rp):
            return res  # 800.4e: damage to a player who has left the game isn't assigned
        if not self.table.in_range(src.controller, rp):
            res.out_of_range += amount
            return res
        # replacement: redirection (801.13a)
        if _redirectable:
            for sh in self.redirects:
                if sh.from_ == recipient and sh.remaining() > 0 and amount > 0:
                    part = min(sh.remaining(), amount)
                    sh.used += part
                    amount -= part
                    new_p = self._player_of(sh.to)
                    if new_p is not None and self.table.in_game(new_p) and \
                            redirect_allowed(self.table, src, new_p):
                        self.deal_damage(src, sh.to, part, combat=combat, _result=res,
                                         _redirectable=False)
                    else:
                        res.redirected_nowhere += part
        # prevention (801.13b)
        for sh in self.prevention:
            if amount <= 0:
                break
            if self._shield_matches(sh, src, recipient):
                part = amount if sh.remaining() is None else min(amount, sh.remaining())
                sh.used += part
                amount -= part
                if sh.once:
                    sh.active = False
                res.prevented[recipient] = res.prevented.get(recipient, 0) + part
                if sh.reflect_red and "red" in src.colors:
                    # Honorable Passage deals that much damage to the source's controller; as a
                    # spell's damage it is limited by its controller's range (801.10).
                    before = res.dealt.get(src.controller, 0)
                    self.deal_damage(sh.controller, src.controller, part, _result=res,
                                     _redirectable=False)
                    res.reflected[src.controller] = res.dealt.get(src.controller, 0) - before
        if amount <= 0:
            return res
        if isinstance(recipient, str):
            self.life_book.damage(recipient, amount)
        else:
            self._obj(recipient).damage += amount
        res.dealt[recipient] = res.dealt.get(recipient, 0) + amount
        return res

    def damage_each(self, controller: str, amount: int, *, creatures: bool = True, players: bool = False,
                    source: "str | int | None" = None, per_player=None) -> DamageResult:
        """"Deals N damage to each creature / each player": 801.10 "Spells and abilities can't
        affect objects or players outside their controller's range of influence."  ``per_player``
        (a function of the player) gives the amount per player where it varies."""
        res = DamageResult()
        src = self._source(source if source is not None else controller, False)
        if players:
            for p in self.players():
                if self.table.in_range(controller, p):
                    n = per_player(p) if per_player else amount
                    self.deal_damage(src, p, n, _result=res)
        if creatures:
            for o in list(self.objects.battlefield()):
                if o.is_a("Creature") and self.in_range(controller, o.id):
                    self.deal_damage(src, o.id, amount, _result=res)
        return res

    # --- triggers -----------------------------------------------------------------------------------

    def event_in_range(self, viewer: str, participants: Sequence["str | int"]) -> bool:
        """801.7: an event happens entirely within ``viewer``'s range (participants: players and
        objects; an object that has left the battlefield counts where it last was, 801.7a)."""
        who = []
        for p in participants:
            if isinstance(p, str):
                who.append(p)
            else:
                ctl = self.objects.controller(p)
                if ctl is None:
                    ctl = self.objects.last_known.get(p, {}).get("controller") or self._obj(p).owner
                who.append(ctl)
        return event_within_range(self.table, viewer, who)

    def triggers(self, source: int, participants: Sequence["str | int"]) -> bool:
        """Whether a triggered ability of permanent ``source`` triggers on an event involving
        ``participants`` (801.7)."""
        ctl = self.objects.controller(source)
        return ctl is not None and self.event_in_range(ctl, participants)

    def destroy(self, obj: int) -> list[int]:
        """The permanent is destroyed: it goes to its owner's graveyard.  Returns the permanents
        whose "whenever a creature leaves the battlefield / is put into a graveyard" abilities
        trigger: 801.7a, the event is located where the creature was before it left."""
        o = self._obj(obj)
        was_creature = o.is_a("Creature")
        before = self.objects.controller(obj)
        self.objects.move(obj, Zone.GRAVEYARD)
        fired = []
        if was_creature:
            for w in self.objects.battlefield():
                if (self._card_of(w) or _NO_CARD).effect == "trigger_creature_leaves":
                    if self._card_of(w).params.get("another") and w.id == obj:
                        continue
                    wc = self.objects.controller(w.id)
                    if wc is not None and event_within_range(self.table, wc, [before]):
                        fired.append(w.id)
        self.objects.state_based_actions()
        return fired

    # --- winning and losing -----------------------------------------------------------------------

    def _card_of(self, obj: "int | GameObject") -> Card | None:
        """The card an object is: the text it was created with, else the model's card of its name."""
        oid = obj if isinstance(obj, int) else obj.id
        if oid in self.cards:
            return self.cards[oid]
        name = self._obj(oid).name
        return card(name) if known(name) else None

    def _controls_effect(self, player: str, effect: str) -> bool:
        return any((self._card_of(o) or _NO_CARD).effect == effect and
                   self.objects.controller(o.id) == player for o in self.objects.battlefield())

    def _team_or_self(self, player: str) -> list[str]:
        if self.variant is Variant.TWO_HEADED_GIANT:
            return self.table.members(self.table.team_of(player), including_departed=True)
        return [player]

    def can_lose(self, player: str) -> bool:
        """Platinum Angel: "You can't lose the game"; 810.8a: "If an effect says that a player can't
        lose the game, that player's team can't lose the game." """
        return not any(self.table.in_game(p) and self._controls_effect(p, "cant_lose_opponents_cant_win")
                       for p in self._team_or_self(player))

    def can_win(self, player: str) -> bool:
        """Platinum Angel: "your opponents can't win the game" (for opponents within its controller's
        range, 801.10); 810.8a: "If an effect says that a player can't win the game, that player's
        team can't win the game." """
        for p in self._team_or_self(player):
            for o in self.objects.battlefield():
                if (self._card_of(o) or _NO_CARD).effect == "cant_lose_opponents_cant_win":
                    c = self.objects.controller(o.id)
                    if c is not None and self.table.are_opponents(c, p) and self.table.in_range(c, p):
                        return False
        return True

    def has_lost(self, player: str) -> bool:
        return player in self.lost

    def has_won(self, player: str) -> bool:
        return player in self.won

    def team_lost(self, team: str) -> bool:
        members = self.table.members(team, including_departed=True)
        return bool(members) and all(m in self.lost for m in members)

    def game_over(self) -> bool:
        return bool(self.won) or not self.players()

    def lose_game(self, player: str, reason: str = "") -> bool:
        """``player`` loses the game (unless they can't).  810.8a: "If either player on a team loses
        the game, the team loses the game." 809.5b: "A team loses the game if its emperor loses."
        A player who loses leaves the game (800.4a).  Returns whether anyone lost."""
        if player in self.lost or not self.table.in_game(player) or not self.can_lose(player):
            return False
        losers = [player]
        if self.variant is Variant.TWO_HEADED_GIANT:
            losers = self.table.members(self.table.team_of(player))
        elif self.variant is Variant.EMPEROR and self.table.roles.get(player) == "emperor":
            losers = self.table.members(self.table.team_of(player))
        for p in losers:
            if p not in self.lost:
                self.lost.append(p)
                self.log.append(f"{p} loses ({reason})" if reason else f"{p} loses")
        for p in losers:
            if self.table.in_game(p):
                self.leave_game(p)
        self._last_team_standing()
        return True

    def _last_team_standing(self) -> None:
        """104.2a: a player still in the game wins if all their opponents have lost; between teams,
        a team wins if all other teams have lost."""
        left = self.players()
        if left and not self.won and len({self.table.team_of(p) for p in left}) == 1 and \
                len(self.table.team_names()) > 1:
            team = self.table.team_of(left[0])
            for p in self.table.members(team, including_departed=True):
                if p not in self.won and p not in self.lost:
                    self.won.append(p)

    def draw_from_empty_library(self, player: str) -> bool:
        """704.5b: a player who attempted to draw from an empty library loses (810.8a example)."""
        return self.lose_game(player, "drew from an empty library")

    def win_game(self, player: str) -> list[str]:
        """An effect states that ``player`` wins the game.  801.14 (from 2007-10-01, with limited
        range): "all of that player's opponents within that player's range of influence lose the
        game instead."  Otherwise the player wins -- in Two-Headed Giant the entire team (810.8a),
        in Emperor the team of a winning emperor (809.5a) -- unless they can't.  Returns who won or,
        under 801.14, who lost."""
        if not self.table.in_game(player) or not self.can_win(player):
            return []
        if self.table.limited() and R.win_effect_limited_by_range(self.rules_date):
            victims = [p for p in self.table.opponents(player) if self.table.in_range(player, p)]
            out = []
            for v in victims:
                if self.lose_game(v, f"{player} wins the game (801.14)"):
                    out.append(v)
            return out
        winners = [player]
        if self.variant is Variant.TWO_HEADED_GIANT or (
                self.variant is Variant.EMPEROR and self.table.roles.get(player) == "emperor"):
            winners = self.table.members(self.table.team_of(player))
        for p in winners:
            if p not in self.won:
                self.won.append(p)
        return winners

    def check_state(self) -> list[str]:
        """State-based actions: life (704.5a / 810.8c), poison (704.5c / 810.8d), the legend rule
        (704.5j-k, 801.12 until 2013-07-11), Auras (704.5m, 801.8).  Returns the players who lost."""
        before = list(self.lost)
        if self.variant is Variant.TWO_HEADED_GIANT:
            for team in self.table.team_names():
                members = self.table.members(team)
                if not members:
                    continue
                # 810.8c: "If a team's life total is 0 or less, the team loses the game."
                # 810.8a example: a player with Transcendence keeps the team from losing this way.
                if self.life_book.team_life(team) <= 0 and \
                        not any(self._controls_effect(m, "no_loss_for_zero_life") for m in members):
                    self.lose_game(members[0], "team life 0 or less")
                    continue
                if R.poison_shared(self.rules_date, self.variant):
                    if self.life_book.poisoned_out(members[0]):
                        self.lose_game(members[0], "team poison")
                else:
                    for m in members:
                        if self.table.in_game(m) and self.life_book.poisoned_out(m):
                            self.lose_game(m, "poison")
        else:
            for p in self.players():
                if self.life_book.total(p) <= 0 and not self._controls_effect(p, "no_loss_for_zero_life"):
                    self.lose_game(p, "life 0 or less")
                elif self.table.in_game(p) and self.life_book.poisoned_out(p):
                    self.lose_game(p, "poison")
        self.apply_legend_rule()
        self.objects.state_based_actions(self._aura_legal)
        return [p for p in self.lost if p not in before]

    def _aura_legal(self, aura: GameObject) -> bool:
        """801.8: "An Aura can't enchant an object or player outside its controller's range of
        influence." """
        ctl = self.objects.controller(aura.id)
        tgt = aura.attached_to
        if ctl is None or tgt is None:
            return False
        return self.in_range(ctl, tgt)

    def apply_legend_rule(self) -> list[int]:
        """The legend rule.  Until 2013-07-11 (704.5k with 801.12): "If two or more legendary
        permanents with the same name are on the battlefield, all are put into their owners'
        graveyards", applied to a permanent "only if other legendary permanents with the same name
        are within its controller's range of influence".  From 2013-07-11 (704.5k): "If a player
        controls two or more legendary permanents with the same name, that player chooses one of
        them, and the rest are put into their owners' graveyards" (the model keeps the oldest).
        Returns the permanents put into graveyards."""
        legends = [o for o in self.objects.battlefield() if "Legendary" in o.supertypes]
        doomed: set[int] = set()
        if R.legend_rule(self.rules_date) is LegendRule.ALL_SAME_NAME:
            for o in legends:
                ctl = self.objects.controller(o.id)
                for other in legends:
                    if other.id != o.id and other.name == o.name and \
                            self.table.in_range(ctl, self.objects.controller(other.id)):
                        doomed.add(o.id)
        else:
            by: dict[tuple[str, str], list[GameObject]] = {}
            for o in legends:
                by.setdefault((self.objects.controller(o.id), o.name), []).append(o)
            for group in by.values():
                group.sort(key=lambda x: x.timestamp)
                doomed |= {x.id for x in group[1:]}
        for oid in sorted(doomed):
            self.objects.move(oid, Zone.GRAVEYARD)
        return sorted(doomed)

    # --- leaving the game, turns ----------------------------------------------------------------------

    def leave_game(self, player: str) -> LeaveReport:
        """The player leaves the game (800.4a; see ``objects.ObjectStore.leave``).  Range of
        influence isn't recomputed until the next turn begins (801.2c); in Grand Melee the turn
        markers follow 807.4c/e-g."""
        if not self.table.in_game(player):
            raise IllegalAction(f"{player} is not in the game")

        def gone() -> None:
            if self.melee is not None:
                self.melee.leave(player)
            else:
                self.table.leave(player)

        rep = self.objects.leave(player, after_departure=gone)
        for sh in self.prevention:
            if sh.controller == player:
                sh.active = False
        self.leave_reports[player] = rep
        return rep

    def end_step(self) -> list:
        """The end step begins: delayed triggers "at the beginning of the next end step" trigger
        (800.4d for those controlled by a player who has left)."""
        return self.objects.fire_delayed("next end step")

    def cleanup(self) -> None:
        """Effects "until end of turn" and "this turn" end (514.2)."""
        self.objects.end_of_turn()
        for sh in self.prevention:
            if not sh.static:
                sh.active = False
        self.redirects.clear()
        for o in self.objects.battlefield():
            o.damage = 0

    def begin_next_turn(self, player: str | None = None) -> str:
        """End the current turn (end step and cleanup) and begin the next one: the next player (or
        team, 805.4) in turn order, or ``player``, or the same player for an extra turn (805.8 for a
        team).  801.2c: ranges of influence are determined again as the turn begins."""
        if self.melee is not None:
            raise IllegalAction("Grand Melee: use end_turn(player) (807.4)")
        self.end_step()
        self.cleanup()
        cur = self.table.active
        if player is None and cur is not None and self.table.in_game(cur):
            for p in self.table.active_players():  # 805.8: a team member's extra turn is the team's
                if self.extra_turns.get(p):
                    self.extra_turns[p] -= 1
                    player = cur
                    break
        self.table.begin_turn(player)
        return self.table.active

    def end_turn(self, player: str) -> None:
        """Grand Melee: ``player``'s turn ends; the marker moves on (807.4c-j)."""
        if self.melee is None:
            self.begin_next_turn()
            return
        self.objects.end_of_turn()
        self.melee.end_turn(player)

    def has_turn_marker(self, player: str) -> bool:
        """Grand Melee: whether ``player`` holds a turn marker (807.4)."""
        return self.melee is not None and self.melee.has_marker(player)

    def extra_turns_owed(self, player: str) -> int:
        """Extra turns ``player`` is still to take (807.4i-j defer them in Grand Melee)."""
        if self.melee is not None:
            return self.melee.extra_after.get(player, 0) + self.melee.extra_before_next.get(player, 0)
        return self.extra_turns.get(player, 0)

    def turn_markers(self) -> int:
        """Turn markers in the game (807.4a); 0 outside Grand Melee."""
        return self.melee.count() if self.melee is not None else 0

    def upkeep(self, player: str | None = None) -> list[str]:
        """Beginning of upkeep triggers: Test of Endurance ("At the beginning of your upkeep, if you
        have 50 or more life, you win the game."), using the individual life total (606.9a/810.9a).
        Returns who won (or lost, 801.14)."""
        out: list[str] = []
        for p in ([player] if player else self.active_players()):
            for o in self.objects.battlefield():
                c = self._card_of(o)
                if c is not None and c.effect == "upkeep_win_if_life" and self.objects.controller(o.id) == p:
                    if self.life(p) >= c.params["threshold"]:
                        out += self.win_game(p)
        return out

    def state_triggers(self) -> list[int]:
        """State triggers: Lurking Jackals ("When an opponent has 10 life or less, if Lurking
        Jackals is an enchantment, it becomes a 3/2 Hound creature"), seeing opponents within its
        controller's range (801.7, 801.11).  Returns the permanents that triggered."""
        fired = []
        for o in self.objects.battlefield():
            if o.name != "Lurking Jackals" or o.id in self.animated:
                continue
            ctl = self.objects.controller(o.id)
            thr = card("Lurking Jackals").params["threshold"]
            if any(self.table.in_range(ctl, q) and self.life(q) <= thr for q in self.opponents(ctl)):
                self.animated.add(o.id)
                fired.append(o.id)
        return fired

    # --- spells and abilities -----------------------------------------------------------------------

    def cast(self, player: str, card_name: "str | Card", *, targets: Sequence["str | int"] = (), x: int | None = None,
             **choices: Any) -> CastResult:
        """Cast the named card and let it resolve at once.

        Permanents enter the battlefield under ``player``'s control (an Aura attaches to
        ``targets[0]``; Teferi's Moat takes ``color=``).  Spells: see the handlers below.
        """
        if not self.table.in_game(player):
            raise IllegalAction(f"{player} is not in the game")
        # a Card: what a scenario read from the card's quoted text (its effect and numbers)
        c = card_name if isinstance(card_name, Card) else card(card_name)
        res = CastResult(c.name, player)
        if c.is_permanent:
            attach = None
            if "Aura" in c.subtypes:
                if not targets:
                    raise IllegalAction("an Aura spell needs a target")
                self._require_target(player, targets[0], "Aura")
                attach = targets[0]
            oid = self.create(c if isinstance(card_name, Card) else c.name, player, attached_to=attach, **choices)
            res.objects.append(oid)
            return res
        handler = getattr(self, "_spell_" + (c.effect or ""), None)
        if handler is None:
            raise NotImplementedError(f"no handler for {c.name} ({c.effect})")
        handler(res, c, list(targets), x, choices)
        return res

    def _spell_damage_each(self, res: CastResult, c: Card, targets, x, choices) -> None:
        p = c.params
        res.damage.append(self.damage_each(res.controller, p["amount"], creatures=p["creatures"],
                                           players=p["players"],
                                           source=DamageSource(res.controller, name=c.name,
                                                               colors=frozenset(c.colors))))

    def _spell_damage_target(self, res: CastResult, c: Card, targets, x, choices) -> None:
        (t,) = targets
        if c.params["target"] == "player or planeswalker" and not isinstance(t, str) and \
                not self._obj(t).is_a("Planeswalker"):
            raise IllegalAction(f"{c.name} targets a player or planeswalker")
        self._require_target(res.controller, t)
        src = DamageSource(res.controller, name=c.name, colors=frozenset(c.colors))
        res.damage.append(self.deal_damage(src, t, c.params["amount"]))

    def _spell_redirect_next(self, res: CastResult, c: Card, targets, x, choices) -> None:
        if x is None:
            raise IllegalAction(f"{c.name}: X is needed")
        a, b = targets
        self._require_target(res.controller, a)
        self._require_target(res.controller, b)
        self.add_redirect(res.controller, a, b, x, name=c.name)

    def _spell_prevent_next_to_target(self, res: CastResult, c: Card, targets, x, choices) -> None:
        (t,) = targets
        self._require_target(res.controller, t)
        self.add_prevention(res.controller, "recipient", recipient=t, amount=c.params["amount"], name=c.name)

    def _spell_honorable_passage(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """"The next time a source of your choice would deal damage to any target this turn, prevent
        that damage."  Both the source and the recipient are specified, so both limits of 801.13b
        apply.  ``source=`` the chosen source: a player's name (that player's spell) or an object."""
        (t,) = targets
        self._require_target(res.controller, t)
        chosen = choices.get("source")

        def is_chosen(s: DamageSource, chosen=chosen) -> bool:
            if chosen is None:
                return True
            return s.obj == chosen if isinstance(chosen, int) else (s.obj is None and s.controller == chosen)

        self.add_prevention(res.controller, "both", recipient=t, source_filter=is_chosen, amount=None,
                            reflect_red=True, once=True, name=c.name)

    def _spell_prevent_all_combat(self, res: CastResult, c: Card, targets, x, choices) -> None:
        self.add_prevention(res.controller, "unspecified", combat_only=True, name=c.name)

    def _spell_set_life(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """"Target player's life total becomes N" / "Your life total becomes N" (810.9c: a
        Two-Headed Giant player's life total, as the date reads it, becomes N; the team's changes by
        the difference)."""
        who = targets[0] if c.params.get("whose", "player") == "player" and targets else res.controller
        before = self.life(who)
        self.set_life(who, c.params["value"])
        res.life_changes[who] = self.life(who) - before

    def _spell_double_target_life(self, res: CastResult, c: Card, targets, x, choices) -> None:
        # "Double target player's life total"; "Double your life total" (606.9c, 2005): the caster
        t = targets[0] if c.params.get("whose", "player") == "player" and targets else res.controller
        self._require_target(res.controller, t)
        res.life_changes[t] = self.double_life(t)

    def _spell_set_each_life_lowest(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """Repay in Kind: the lowest life total among the players its controller sees (801.11); each
        affected player (801.10: within range) gets it."""
        seen = [p for p in self.players() if self.table.in_range(res.controller, p)]
        low = min(self.life(p) for p in seen)
        res.life_changes.update(self.set_each_life({p: low for p in seen}, chosen=choices.get("chosen")))

    def _spell_set_each_life_creatures(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """Biorhythm: each player's life total becomes the number of creatures they control."""
        seen = [p for p in self.players() if self.table.in_range(res.controller, p)]
        values = {p: sum(1 for o in self.objects.battlefield() if o.is_a("Creature") and
                         self.objects.controller(o.id) == p) for p in seen}
        res.life_changes.update(self.set_each_life(values, chosen=choices.get("chosen")))

    def _spell_opponent_chooses(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """Fact or Fiction: "An opponent separates those cards into two piles" -- 801.5a/801.5c."""
        res.chooser = self.chooser_for(res.controller, opponent=True)

    def _spell_extra_turn(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """Time Walk: "Take an extra turn after this one." (807.4i-j in Grand Melee; 805.8: a team
        takes it with shared team turns)."""
        if self.melee is not None:
            self.melee.grant_extra_turn(res.controller)
        else:
            self.extra_turns[res.controller] = self.extra_turns.get(res.controller, 0) + 1

    def _spell_gain_control_until_eot(self, res: CastResult, c: Card, targets, x, choices) -> None:
        (t,) = targets
        self._require_target(res.controller, t)
        self.objects.gain_control(t, res.controller, duration="end_of_turn")

    def _spell_bribery(self, res: CastResult, c: Card, targets, x, choices) -> None:
        """Bribery: search target opponent's library for a creature card (``creature=`` its name)
        and put it onto the battlefield under your control."""
        (opp,) = targets
        self._require_target(res.controller, opp)
        if not self.table.are_opponents(res.controller, opp):
            raise IllegalAction("Bribery targets an opponent")
        name = choices.get("creature", "Serra Angel")
        oid = self.create(name, opp, owner=opp, zone="library")
        self.objects.put_onto_battlefield(oid, res.controller)
        self._entered(oid)
        res.objects.append(oid)

    # --- activated abilities ----------------------------------------------------------------------

    def activate(self, player: str, obj: int, *, targets: Sequence["str | int"] = (), **choices: Any) -> CastResult:
        """Activate an ability of permanent ``obj``.  801.6: "A player can't activate the activated
        abilities of an object outside of their range of influence." """
        o = self._obj(obj)
        if not o.on_battlefield:
            raise IllegalAction("not on the battlefield")
        if not self.in_range(player, obj):
            raise IllegalAction("801.6: the object is outside the player's range of influence")
        c = self._card_of(o) or card(o.name)
        res = CastResult(c.name, player)
        handler = getattr(self, "_ability_" + (c.effect or ""), None)
        if handler is None:
            raise NotImplementedError(f"no activated ability modelled for {c.name}")
        handler(res, obj, list(targets), choices)
        return res

    def _ability_witches(self, res: CastResult, obj: int, targets, choices) -> None:
        """Cuombajj Witches: 1 damage to any target and 1 damage to any target of an opponent's
        choice (``chooser=`` the opponent, ``second=`` their target).  801.5a: the second target
        must be within both the chooser's and the controller's range."""
        (t,) = targets
        ctl = res.controller
        self._require_target(ctl, t)
        chooser = choices["chooser"]
        if not self.table.are_opponents(ctl, chooser) or not self.table.in_range(ctl, chooser):
            raise IllegalAction(f"{chooser} can't be chosen as the opponent")
        second = choices["second"]
        if second not in self.legal_targets(ctl, chooser=chooser):
            raise IllegalAction(f"801.5a: {chooser} can't choose {second}")
        src = self._source(obj, False)
        res.damage.append(self.deal_damage(src, t, 1))
        res.damage.append(self.deal_damage(src, second, 1))

    def _ability_damage_each_player_half_life(self, res: CastResult, obj: int, targets, choices) -> None:
        """Heartless Hidetsugu: damage to each player equal to half that player's life, rounded down
        (the individual life total, 606.9a / 810.9a)."""
        self.tap(obj)
        halves = {p: self.life(p) // 2 for p in self.players()}
        res.damage.append(self.damage_each(res.controller, 0, creatures=False, players=True,
                                           source=obj, per_player=lambda p: halves[p]))

    def _ability_pay_half_life_rounded_up(self, res: CastResult, obj: int, targets, choices) -> None:
        """Lurking Evil: "Pay half your life, rounded up" (of the individual life total, 810.9a)."""
        amount = math.ceil(self.life(res.controller) / 2)
        self.pay_life(res.controller, amount)
        res.life_changes[res.controller] = -amount
        self.animated.add(obj)

    def _ability_exile_return_at_end_step(self, res: CastResult, obj: int, targets, choices) -> None:
        """Astral Slide (on a cycle): exile target creature; return it under its owner's control at
        the beginning of the next end step (a delayed trigger controlled by Astral Slide's
        controller)."""
        (t,) = targets
        self._require_target(res.controller, t)
        self.objects.move(t, Zone.EXILE)
        self.objects.add_delayed(res.controller, "next end step", "return", t)
        self.objects.state_based_actions()

    def _ability_token_on_creature_enter(self, res, obj, targets, choices) -> None:
        raise IllegalAction("Genesis Chamber has no activated ability")
