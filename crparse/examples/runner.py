"""A Scenario run against an engine (crparse.model.protocol.Engine; the reference is
crparse.model.game.Game): the stated setup becomes a game, the actions are played, each outcome
the example states is checked.

What the examples leave unstated is filled in the way the rules' own conventions read them, and
each such choice is written into the report (`Outcome.assumed`): the number of players when the
example names fewer than four (with three seats every player is next to every other); one
creature for each player when an outcome counts creatures; an opponent as the caster of a card
that targets a player.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from crparse.examples.bounds import MAX_PLAYERS, OutOfBounds, check_players
from crparse.examples.cards import CardText, read_card
from crparse.examples.scenario import Branch, Fact, Scenario


class NotModelled(Exception):
    """The engine (or this runner) lacks what a fact needs: the example is `unsupported`."""


class Failed(AssertionError):
    """An outcome the example states is not what the engine says."""


@dataclass
class Work:
    """What a run cost, counted as it goes (a run that ends in an error has cost it too): each fact
    played, each game built and each copy of it counts the seats of the game (`seat_steps`); the
    seating search, the seats it tried (bounds.run_cost weighs them)."""

    seat_steps: int = 0
    seats_tried: int = 0


@dataclass
class Outcome:
    status: str  # passed, failed, unsupported
    reason: str | None = None
    checked: int = 0  # outcomes checked
    assumed: list[str] = field(default_factory=list)


def run(scenario: Scenario, rules_date: str, factory=None, work: Work | None = None) -> Outcome:
    """`work`: counts what the run costs (a document's examples are charged it)."""
    if factory is None:
        from crparse.model.game import new_game as factory
    run = _Run(scenario, rules_date, factory, work)
    try:
        run.start()
        run.play(scenario.steps)
    except Failed as failure:
        return Outcome("failed", str(failure), run.checked, run.assumed)
    except (NotModelled, OutOfBounds) as missing:
        return Outcome("unsupported", str(missing), run.checked, run.assumed)
    if not run.checked:
        return Outcome("unsupported", "the example states no outcome this runner checks", 0, run.assumed)
    return Outcome("passed", None, run.checked, run.assumed)


_VARIANTS = {"two-headed giant", "emperor", "grand melee", "alternating teams", "free-for-all"}


class _Run:
    def __init__(self, scenario: Scenario, rules_date: str, factory, work: Work | None = None):
        self.s = scenario
        self.work = work if work is not None else Work()
        self.date = rules_date
        self.factory = factory
        self.checked = 0
        self.assumed: list[str] = []
        self.names: dict[tuple, str] = {}  # a player as the text names one -> seat name
        self.last: str | None = None  # the player a pronoun or "that player" means
        self.result: Any = None  # the last action's result
        self.before: dict[str, int] = {}  # life totals before the last action
        self.creatures: dict[str, int] = {}

    # -- the game the setup states -----------------------------------------------------------------
    def start(self) -> None:
        facts = list(self.s.setup)
        variant = next((f["name"] for f in facts if f.kind == "variant"), "free-for-all")
        self.variant = variant
        count = next((f["count"] for f in facts if f.kind == "players"), None)
        if count is not None:
            check_players(count)
        kinds = {f.kind for f in self._all_facts()}
        if variant == "free-for-all" and kinds & {"team-landwalk", "moat-team"}:
            variant = self.variant = "two-headed giant"
            self.assumed.append("a Two-Headed Giant game (the example speaks of the defending team)")
        if variant == "free-for-all" and kinds & {"markers-reduced-by-leaving", "has-marker"}:
            variant = self.variant = "grand melee"
            self.assumed.append("a Grand Melee game (the example speaks of turn markers)")
        if variant == "grand melee":
            self._grand_melee()
        elif variant == "two-headed giant":
            self._two_headed_giant(facts)
        elif variant == "emperor":
            self._emperor(facts)
        elif variant == "alternating teams":
            self._alternating_teams(facts)
        elif variant in ("free-for-all",):
            self._free_for_all(facts, count)
        else:
            raise NotModelled(f"the {variant} setup of this example")
        kinds = {f.kind for f in self._all_facts()}
        if kinds & {"boost-counts", "boost-counts-range"}:
            self._ensure_creatures("Goblin")  # creatures that share a type, as Coat of Arms counts
        elif kinds & {"creature-damage", "creature-damage-only"}:
            self._ensure_creatures()
        self.life0 = {p: self.game.life(p) for p in self.game.players()}

    def _all_facts(self) -> list[Fact]:
        out = list(self.s.setup)
        for step in self.s.steps:
            out += list(step.steps) if isinstance(step, Branch) else [step]
        return out

    def _new(self, **config) -> None:
        from crparse.model.protocol import GameConfig

        try:
            self.game = self._built(self.factory(GameConfig(rules_date=self.date, **config)))
        except (ValueError, TypeError) as err:
            raise NotModelled(f"the engine refuses this setup: {err}") from None

    def _built(self, game):
        self.work.seat_steps += len(game.players())
        return game

    def _copy(self):
        """A copy of the game, to check an outcome on without changing it."""
        return self._built(copy.deepcopy(self.game))

    def _step(self) -> None:
        if hasattr(self, "game"):
            self.work.seat_steps += len(self.game.players())

    def _free_for_all(self, facts: list[Fact], count: int | None) -> None:
        from crparse.model.table import Relation, SearchBudget, SeatingError, arrange

        everyone = next((f["range"] for f in facts if f.kind == "everyone-range"), None)
        per: dict[str, int | None] = {}
        relations = []
        named: list[str] = []
        def names_in(value) -> None:
            if isinstance(value, tuple):
                if value[:1] == ("name",) and len(value) == 2:
                    named.append(value[1])
                else:
                    for v in value:
                        names_in(v)

        for f in self._all_facts():
            for _, value in f.args:
                names_in(value)
        named = list(dict.fromkeys(named))
        last_viewer = None
        for f in facts:
            if f.kind == "range":
                per[self._plain_name(f["player"])] = f["range"]
            elif f.kind == "seated":
                kind = "left_of" if f["side"] == "left" else "right_of"
                relations.append(Relation(kind, self._plain_name(f["player"]), self._plain_name(f["of"])))
            elif f.kind == "seated-between":  # "Rob sits between them": the players named just before
                them = [self._plain_name(v) for g in facts if g.sentence == f.sentence - 1
                        for _, v in g.args if isinstance(v, tuple) and v[:1] == ("name",)]
                if len(them) != 2:
                    raise NotModelled("whom \"them\" means")
                relations.append(Relation("between", self._plain_name(f["player"]), them[0], them[1]))
            elif f.kind == "mutually-out":
                a, b = self._plain_name(f["a"]), self._plain_name(f["b"])
                relations += [Relation("not_in_range", a, b), Relation("not_in_range", b, a)]
        # range premises stated before any action are part of the setup ("Rob is within Alex's
        # range of influence, but Carissa is not")
        for f in self._premises():
            relations.append(Relation("not_in_range" if f.negated else "in_range", self._plain_name(f["viewer"]),
                                      self._plain_name(f["player"])))
        ranges: Any = everyone if not per else ({**per, "*": everyone} if everyone is not None else per)
        if everyone is None and not per and any(r.kind.endswith("in_range") for r in relations):
            ranges = 1
            self.assumed.append("range of influence 1 for every player (the example states who is in whose range)")
        search = SearchBudget()
        try:
            order, seat_ranges = arrange(relations, named=named, ranges=ranges, total=count, search=search)
        except SeatingError as err:
            raise NotModelled(f"no seating satisfies the example: {err}") from None
        finally:
            self.work.seats_tried += search.tried
        if count is None and len(order) > len(named):
            self.assumed.append(f"{len(order)} players ({len(order) - len(named)} unnamed)")
        for n in named:
            self.names[("name", n)] = n
        self._new(players=order, variant="free-for-all",
                  ranges=seat_ranges if any(v is not None for v in seat_ranges.values()) else None)

    def _premises(self) -> list[Fact]:
        """Range facts that are conditions of the setup, not outcomes: those about two players whose
        seats the example does not relate (stated before anyone leaves or a turn passes). "Rob is
        within Alex's range of influence, but Carissa is not" places Carissa; after "Alex is seated
        to the left of Rob, and Carissa to the right of Rob", "Carissa is not in Alex's range" is
        an outcome of the seating, and checked."""
        joined: dict[str, str] = {}

        def root(x: str) -> str:
            while joined.get(x, x) != x:
                x = joined[x]
            return x

        for f in self.s.setup:
            if f.kind == "seated" and f["player"][:1] == ("name",) and f["of"][:1] == ("name",):
                joined[root(f["player"][1])] = root(f["of"][1])
        out, viewer = [], None
        for f in self.s.steps:
            if not isinstance(f, Fact) or f.kind in ("leaves", "next-turn", "same-game"):
                break
            if f.kind == "in-range":
                viewer = f["viewer"]
            if f.kind in ("in-range", "in-range-elided") and viewer is not None:
                a, b = viewer, f["player"]
                if a[:1] == ("name",) and b[:1] == ("name",) and root(a[1]) != root(b[1]):
                    out.append(Fact("in-range", f.args if f.kind == "in-range" else (("player", b), ("viewer", a)),
                                    f.negated, f.sentence))
        self.premises = {(f["viewer"], f["player"]) for f in out}
        return out

    def _two_headed_giant(self, facts: list[Fact]) -> None:
        players = ["Player A1", "Player A2", "Player B1", "Player B2"]
        life: dict[str, int] = {}
        lives = next((f["lives"] for f in facts if f.kind == "team-lives"), None)
        if lives:
            life = {"A": lives[0], "B": lives[1]}
        for f in list(facts) + [x for x in self.s.steps if isinstance(x, Fact)]:
            for _, value in f.args:
                if isinstance(value, tuple) and value[:1] == ("a player",) and len(value) == 2:
                    life["A"] = value[1]
        self.names[("a player",)] = "Player A1"
        self.teams = {"A": ["Player A1", "Player A2"], "B": ["Player B1", "Player B2"]}
        self._new(players=players, variant="two-headed giant", teams=self.teams, life=life)

    def _grand_melee(self) -> None:
        """The smallest Grand Melee game in which one player leaving removes a turn marker (the
        example says so), the first named player holding the first marker."""
        from crparse.model.protocol import GameConfig

        named = []
        for f in self._all_facts():
            for _, v in f.args:
                if isinstance(v, tuple) and v[:1] in (("name",), ("neighbour",)):
                    named.append(v[1])
        first = named[0] if named else "Player 1"
        for n in range(5, 40):
            players = [first] + [f"Player {i}" for i in range(2, n + 1)]
            probe = self._built(self.factory(GameConfig(players=players[:-1], variant="grand melee",
                                                        rules_date=self.date)))
            game = self._built(self.factory(GameConfig(players=players, variant="grand melee", rules_date=self.date)))
            if probe.turn_markers() < game.turn_markers():
                break
        self.assumed.append(f"{n} players")
        self.names[("name", first)] = first
        self.game = game

    def _alternating_teams(self, facts: list[Fact]) -> None:
        from crparse.model.table import alternating_seating

        teams = next((f for f in facts if f.kind == "teams"), None)
        if teams is None:
            raise NotModelled("an Alternating Teams game of unstated teams")
        names = teams["names"] or tuple("ABCDEFGH"[: teams["count"]])
        size = 3  # the example lists three seats of each team before "and so on"
        members = [[f"{t}{i}" for i in range(1, size + 1)] for t in names]
        self.assumed.append(f"teams of {size}")
        order = alternating_seating(members)
        self._new(players=order, variant="alternating teams", teams=dict(zip(names, members)))

    def do_configuration(self, f: Fact) -> None:
        pass  # the seating itself (read at setup); what it implies are the facts that follow

    def do_role_range(self, f: Fact) -> None:
        roles = set(f["roles"])
        players = [p for p in self.game.players() if p.split(" ", 1)[1] in roles]
        if not players:
            raise NotModelled(f"no player is a {' or '.join(sorted(roles))}")
        for p in players:
            value = self.game.range_value(p)
            self.check(value == f["range"], f"{p} has range of influence {value} (the example: {f['range']})")

    def do_attacks(self, f: Fact) -> None:
        attacker, defender = self.who(f["player"]), self.who(f["defender"])
        creature = f["creature"][1]
        keywords = [w for w in creature.split() if w.endswith("walk") or w == "flying"]
        oid = self.game.creature(attacker, "Creature", keywords=keywords) if creature.startswith(("a ", "an ")) \
            else self.game.create(creature, attacker)
        self.attacking = getattr(self, "attacking", []) + [(oid, attacker, defender, keywords)]
        self.before = self._lives()

    def do_blocks(self, f: Fact) -> None:
        blocker = self.who(f["player"])
        oid = self.game.creature(blocker, "Creature")
        attacker = next((a for a in getattr(self, "attacking", []) if a[2] == blocker), None)
        if attacker is None:  # "Rob blocks with a creature." with no attack on Rob stated before it
            raise NotModelled(f"a block by {blocker} with no attack on {blocker} stated before it")
        self.blocks = getattr(self, "blocks", {}) | {attacker[0]: oid}

    def _combat(self) -> None:
        """Combat damage, once: each attacker deals its damage to its blocker or to the player it
        attacks, each blocker to the creature it blocks; the engine applies what prevents it."""
        if getattr(self, "fought", False):
            return
        self.fought = True
        self.before = self._lives()
        self.creature_damage_before = {}
        for oid, attacker, defender, _ in getattr(self, "attacking", []):
            blocker = getattr(self, "blocks", {}).get(oid)
            if blocker is None:
                self.game.deal_damage(oid, defender, combat=True)
            else:
                self.game.deal_damage(oid, blocker, combat=True)
                self.game.deal_damage(blocker, oid, combat=True)

    def do_combat_damage_dealt(self, f: Fact) -> None:
        self._combat()
        player = self.who(f["player"])
        dealt = self.before.get(player, 0) - self.game.life(player)
        self.check((dealt > 0) != f.negated, f"{dealt} combat damage was dealt to {player} "
                                             f"(the example: {'none' if f.negated else 'some'})")

    def do_both_deal_combat_damage(self, f: Fact) -> None:
        self._combat()
        named = {self.who(f["a"]), self.who(f["b"])}
        fights = [(oid, attacker, blocker) for oid, attacker, _, _ in getattr(self, "attacking", [])
                  if (blocker := getattr(self, "blocks", {}).get(oid)) is not None]
        self.check(any({attacker, self.game.controller(blocker)} == named for _, attacker, blocker in fights),
                   f"{' and '.join(sorted(named))} have no creatures in combat with each other")
        for oid, _, blocker in fights:
            both = self.game.damage_on(oid) > 0 and self.game.damage_on(blocker) > 0
            self.check(both != f.negated, f"the creatures {'did' if both else 'did not'} deal combat damage to each other")

    def do_landwalk_depends(self, f: Fact) -> None:
        """"Whether the creature with mountainwalk can be blocked depends only on whether Carissa
        controls a Mountain": checked with each of the defending players holding the land alone."""
        player, land = self.who(f["player"]), f["land"]
        walker = next((a for a in getattr(self, "attacking", []) if a[3]), None)
        if walker is None:
            raise NotModelled("which attacking creature has landwalk")
        oid, _, attacked, keywords = walker
        kind = keywords[0].removesuffix("walk").capitalize()
        if kind != land:
            raise NotModelled(f"{keywords[0]} and a {land}")
        for holder in self.game.players():
            game = self._copy()
            game.create(land, holder, types=["Land"], subtypes=[land])
            unblockable = game.landwalk_unblockable(oid, attacked, land)
            self.check(unblockable == (holder == player),
                       f"with {holder} controlling a {land}, the creature {'cannot' if unblockable else 'can'} be blocked "
                       f"(the example: that depends only on {player})")

    # -- objects and triggers (801.7, 801.7a) -------------------------------------------------------
    def _object(self, player: str, card: str) -> int:
        """The permanent `card` of `player` the text speaks of, created on first mention."""
        self.objects = getattr(self, "objects", {})
        key = (player, card)
        if key not in self.objects:
            self.objects[key] = self.game.create(card, player) if card != "Creature" else self.game.creature(player)
        return self.objects[key]

    def do_controls_creature(self, f: Fact) -> None:
        player = self.who(f["player"])
        owner = self.who(f["owner"]) if f.get("owner") is not None else player
        oid = self.game.create(f["card"], player, owner=owner) if f["card"] != "Creature" else \
            self.game.creature(player, owner=owner)
        self.objects = getattr(self, "objects", {}) | {(player, f["card"]): oid, ("*", f["card"]): oid}

    def do_each_controls(self, f: Fact) -> None:
        name, text = self._card(f)
        for p in {p for p, _ in getattr(self, "objects", {}) if p != "*"} | {self.last}:
            self.objects[(p, name)] = self.game.create(_adhoc(name, text), p)

    def do_destroyed(self, f: Fact) -> None:
        oid = self.objects[("*", f["card"])]
        self.fired = set(self.game.destroy(oid))

    def do_attacks_and_blocked(self, f: Fact) -> None:
        attacker, defender = self.who(f["player"]), self.who(f["defender"])
        creature = self.objects.get((attacker, f["card"])) or self._object(attacker, f["card"])
        blocker = self.game.creature(defender)
        # "becomes blocked": the creature alone; "becomes blocked by a creature": both
        self.events = {"blocked": [creature], "blocked by": [creature, blocker]}

    def do_triggers(self, f: Fact) -> None:
        player = self.who(f["player"])
        if f["card"] == "Aura":
            auras = [oid for (p, c), oid in self.objects.items() if p == player and c.startswith("Aura")]
            if len(auras) < (f["nth"] or 1):
                raise Failed(f"{player} controls no {f['nth'] or 1}. Aura")
            oid = auras[(f["nth"] or 1) - 1]
            by_creature = dict(self.aura_text[oid].params).get("by_creature")
            fired = self.game.triggers(oid, self.events["blocked by" if by_creature else "blocked"])
        else:
            oid = self.objects[(player, f["card"])]
            fired = oid in getattr(self, "fired", set())
        self.check(fired != f.negated, f"{player}'s {f['card']} {'triggers' if fired else 'does not trigger'} "
                                       f"(the example: {'does not' if f.negated else 'does'})")

    # -- turns, delayed triggers, turn markers, the legend rule --------------------------------------
    def do_turn_of(self, f: Fact) -> None:
        player = self.who(f["player"])
        if self.variant != "grand melee" and self.game.active_players() != [player]:
            self.game.begin_next_turn(player)

    def do_defines_card(self, f: Fact) -> None:
        self.defined = getattr(self, "defined", {}) | {f["card"]: read_card(self.s.quotes[f["quote"]], f["card"])}

    def do_use_ability(self, f: Fact) -> None:
        player = self.who(f["player"])
        text = getattr(self, "defined", {}).get(f["card"])
        source = self.game.create(_adhoc(f["card"], text) if text else f["card"], player)
        targets = [self._target(t) for t in f["targets"]]
        self.game.activate(player, source, targets=targets)

    def do_end_step(self, f: Fact) -> None:
        self.delayed = list(self.game.end_step())

    def do_delayed_not_on_stack(self, f: Fact) -> None:
        outcomes = [getattr(d, "outcome", None) for d in getattr(self, "delayed", [])]
        self.check(bool(outcomes), "no delayed triggered ability triggered")
        wanted = {"not put on the stack": "isn't put on the stack", "leaves the game": "leaves the game"}[f["how"]]
        self.check(all(o and wanted in o for o in outcomes),
                   f"the delayed triggered ability: {outcomes} (the example: it {f['how']})")

    def do_markers_reduced_by_leaving(self, f: Fact) -> None:
        pass  # a condition the setup was chosen for (see _grand_melee)

    def do_end_turn(self, f: Fact) -> None:
        self.game.end_turn(self.who(f["player"]))

    def do_has_marker(self, f: Fact) -> None:
        player = self.who(f["player"])
        held = self.game.has_turn_marker(player)
        self.check(held != f.negated, f"{player} {'holds' if held else 'does not hold'} a turn marker")

    def do_extra_turn_deferred(self, f: Fact) -> None:
        player = self.who(f["player"])
        owed = self.game.extra_turns_owed(player)
        taking = player in self.game.active_players()
        self.check(owed > 0 and not taking, f"{player} {'takes a turn now' if taking else 'is owed no extra turn'} "
                                            "(the example: the extra turn waits for the next turn marker)")

    def do_controls_legend(self, f: Fact) -> None:
        player = self.who(f["player"])
        self.legends = getattr(self, "legends", {})
        self.legends[self.game.create("Legend", player, types=["Artifact"], supertypes=["Legendary"])] = player

    def do_legend_rule(self, f: Fact) -> None:
        self.doomed = set(self.game.apply_legend_rule())

    def do_only_legend_dies(self, f: Fact) -> None:
        player = self.who(f["player"])
        died = sorted(self.legends[o] for o in self.doomed)
        self.check(died == [player], f"the legend rule put the legends of {died} into graveyards (the example: only {player}'s)")

    def do_only_two_in_both(self, f: Fact) -> None:
        a = self.who(f["player"])
        coat = self._object_of_card(f["card"])
        b = self.game.controller(coat)
        both = set(self.game.range_of_influence(a)) & set(self.game.range_of_influence(b))
        they = getattr(self, "plural", set())
        self.check(both == they and len(they) == 2, f"the players within range of both {a} and {b}: {sorted(both)} "
                                                     f"(the example: {sorted(they)})")

    def _object_of_card(self, card: str) -> int:
        for (p, c), oid in getattr(self, "objects", {}).items():
            if c == card:
                return oid
        raise NotModelled(f"which {card}")

    def do_upkeep_win_share(self, f: Fact) -> None:
        """"The player's team wins the game only if their share of the team's life total is N or
        more": the life the card sees (the engine's, by date) against N, over the team totals from 1
        up: below the first total at which the share reaches N the team must not win, at it it must.

        The share and the win both grow with the team's total, so the first total at which either
        holds is found by bisection, each probe a game of its own: a walk through every total would
        cost a copy of the game for each life point of N."""
        player, team = self.last, self.game.team_of(self.last)
        need = f["life"]

        def upkeep_at(total: int) -> tuple[int, bool]:
            game = self._copy()
            game.lose_life(player, game.team_life(team) - total) if game.team_life(team) > total else \
                game.gain_life(player, total - game.team_life(team))
            game.upkeep(player)
            return game.life(player), game.has_won(player)

        totals = range(1, 4 * need)
        if not totals:
            return
        def decided(total: int) -> bool:
            share, won = upkeep_at(total)
            return share >= need or won

        first = _first(totals, decided)
        share, won = upkeep_at(totals[-1] if first is None else first)
        if first is not None and share >= need:
            self.check(won, f"at a share of {share} the team does not win")
            return
        self.check(not won, f"at a share of {share} the team wins (the example: {need} or more)")

    def do_moat_team(self, f: Fact) -> None:
        """Teferi's Moat in Two-Headed Giant (until 2018-04-27): a creature of the chosen color
        without flying can attack neither player of the team."""
        player = self.who(f["player"])
        moat = self._object_of_card("Teferi's Moat")
        self.game.moat_color[moat] = "red"
        attacker = next(p for p in self.game.players() if p not in [player, *self.game.teammates(player)])
        creature = self.game.creature(attacker, colors=["red"])
        for defender in [player, *self.game.teammates(player)]:
            self.check(not self.game.can_attack(creature, defender),
                       f"a red creature without flying can attack {defender} (the example: not that player's team)")

    def do_team_landwalk(self, f: Fact) -> None:
        """"If an attacking creature has forestwalk and either player on the defending team
        controls a Forest, the creature can't be blocked": each defending player in turn."""
        land = f["land"]
        attacker, team = "Player A1", [p for p in self.game.players() if self.game.team_of(p) != "A"]
        creature = self.game.creature(attacker, keywords=[f["keyword"]])
        for holder in team:
            game = self._copy()
            game.create(land, holder, types=["Land"], subtypes=[land])
            self.check(game.landwalk_unblockable(creature, team[0], land),
                       f"with {holder} controlling a {land}, the creature can be blocked (the example: it cannot)")

    def do_seating(self, f: Fact) -> None:
        order = self.game.players()
        stated = list(f["seats"])
        self.check(order[: len(stated)] == stated, f"the seating is {order} (the example: {stated}, and so on)")

    def _emperor(self, facts: list[Fact]) -> None:
        everyone = next((f["range"] for f in facts if f.kind == "everyone-range"), None)
        config = next((f["seats"] for f in self._all_facts() if f.kind == "configuration"), None)
        if config:  # "the player configuration should be: Team A general 1, Team A emperor, ..."
            players = list(config)
        else:
            players = ["A general 1", "A emperor", "A general 2", "B general 1", "B emperor", "B general 2"]
        teams: dict[str, list[str]] = {}
        for p in players:
            teams.setdefault(p.split()[0], []).append(p)
        for f in self._all_facts():  # "an emperor (whose range of influence is limited to 1)"
            for _, v in f.args:
                if isinstance(v, tuple) and v[:1] == ("an emperor",) and len(v) == 2 and everyone is None:
                    everyone = {p: (v[1] if p == "A emperor" else 2 if "emperor" in p else 1) for p in players}
        self.names[("an emperor",)] = "A emperor"
        roles = {p: "emperor" if "emperor" in p else "general" for p in players}
        self._new(players=players, variant="emperor", teams=teams, ranges=everyone, roles=roles)

    def _plain_name(self, who: tuple) -> str:
        if who[:1] == ("name",):
            return who[1]
        raise NotModelled(f"a seat named as {who!r}")

    # -- who the text means ---------------------------------------------------------------------------
    def who(self, ref: Any) -> str:
        if not isinstance(ref, tuple):
            raise NotModelled(f"a player named as {ref!r}")
        kind = ref[0]
        if kind == "name":
            name = ref[1]
            if name not in self.game.players() and name not in getattr(self, "departed", set()):
                raise NotModelled(f"{name} has no seat in this game")
            self.last = name
            return name
        if kind == "neighbour":
            found = self.game.left_of(ref[1]) if ref[2] == "left" else self.game.right_of(ref[1])
            return found
        if kind in ("a player", "that player", "pronoun", "themself"):
            name = self.names.get(("a player",)) if kind == "a player" else self.last
            if name is None:
                raise NotModelled(f"whom \"{kind}\" means")
            self.last = name
            return name
        if kind == "an emperor":
            name = self.names.get(("an emperor",))
            if len(ref) == 2:
                self.last = name
            if name is None:
                raise NotModelled("an emperor outside an Emperor game")
            self.last = name
            return name
        raise NotModelled(f"a player named as {ref!r}")

    # -- actions and outcomes -------------------------------------------------------------------------
    def play(self, steps) -> None:
        premises = getattr(self, "premises", set())
        steps = [f for f in steps if not (isinstance(f, Fact) and f.kind in ("in-range", "in-range-elided")
                                           and (f.get("viewer"), f["player"]) in premises)]
        steps = [f for f in steps if not (isinstance(f, Fact) and f.kind == "in-range-elided")] if premises else steps
        # a spell cast in response resolves first: played before the one it responds to, whose
        # target it may share ("Rob casts Captain's Maneuver ... targeting Carissa" moves the damage
        # Lava Axe would deal to Rob)
        for i in range(1, len(steps)):
            if isinstance(steps[i], Fact) and steps[i].get("in_response") and isinstance(steps[i - 1], Fact):
                self.responding_to = steps[i - 1]
                steps[i - 1], steps[i] = steps[i], steps[i - 1]
        for i, step in enumerate(steps):
            if isinstance(step, Fact) and step.kind == "cast" and i + 1 < len(steps) and \
                    isinstance(steps[i + 1], Fact) and steps[i + 1].kind == "puts-from-library":
                self.put_from_library = steps[i + 1]["card"]
            if isinstance(step, Branch):
                saved = (self._copy(), self.last, self.result, dict(self.before))
                self.play(step.steps)
                self.game, self.last, self.result, self.before = saved
                continue
            handler = getattr(self, "do_" + step.kind.replace("-", "_"), None)
            if handler is None:
                raise NotModelled(f"no model yet for \"{step.kind}\" (sentence {step.sentence + 1})")
            self._step()
            try:
                handler(step)
            except ValueError as refused:  # the engine refuses what the sentence asks: it cannot hold
                raise Failed(f"sentence {step.sentence + 1}: {refused}") from None

    def check(self, ok: bool, message: str) -> None:
        """One outcome the example states, held against what the engine says."""
        self.checked += 1
        if not ok:
            raise Failed(message)

    def _lives(self) -> dict[str, int]:
        return {p: self.game.life(p) for p in self.game.players()}

    def _card(self, f: Fact) -> tuple[str | None, CardText | None]:
        name, quote = f.get("card"), f.get("quote")
        text = read_card(self.s.quotes[quote], name) if quote is not None else None
        if text is None and quote is not None and name is not None:
            note = f"{name} as the model's card table has it (the card grammar does not read its quote)"
            if note not in self.assumed:
                self.assumed.append(note)
        if text is None and name is None:
            raise NotModelled("a card whose text the card grammar cannot read: "
                              + (f"“{self.s.quotes[quote]}”" if quote is not None else "unnamed"))
        return name, text

    def _cast(self, player: str, f: Fact, targets=()) -> None:
        name, text = self._card(f)
        self.before = self._lives()
        self.teams_before = {t: self.game.team_life(t) for t in getattr(self, "teams", {})}
        kwargs = {}
        if f.get("x") is not None:
            kwargs["x"] = f["x"]
        card = _adhoc(name, text)
        if getattr(self, "put_from_library", None):  # Bribery: "Alex puts Serra Angel onto the battlefield ..."
            kwargs["creature"] = self.put_from_library
        try:
            self.result = self.game.cast(player, card, targets=list(targets), **kwargs)
            # what the spell put onto the battlefield, by name, for the sentences that follow
            self.objects = getattr(self, "objects", {})
            for oid in getattr(self.result, "objects", ()):
                named = kwargs.get("creature") or name
                self.objects.setdefault(("*", named), oid)
                self.objects.setdefault((player, named), oid)
        except NotImplementedError as err:
            raise NotModelled(f"the engine cannot play {name or 'that card'}: {err}") from None
        except KeyError as err:
            raise NotModelled(f"the engine does not know the card {err}") from None

    def do_cast(self, f: Fact) -> None:
        player = self.who(f["player"])
        self.caster = player
        targets = [self._target(t) for t in f.get("targets") or ()]
        name, text = self._card(f)
        below = getattr(self, "responding_to", None)
        if text is not None and text.effect == "redirect_next" and len(targets) == 1 and below is not None:
            # "the next X damage that would be dealt to target ... is dealt to another target":
            # the first target is what the spell it responds to would damage
            targets = [self.who(below["targets"][0]), *targets]
            self.who(f["player"])
        self._cast(player, f, targets)
        self.last = player

    def do_targeted_by(self, f: Fact) -> None:
        target = self.who(f["player"])
        caster = next((p for p in self.game.opponents(target)), None)
        if caster is None:
            raise NotModelled("nobody to cast the card")
        self.assumed.append(f"{caster} (an opponent) casts the card targeting {target}")
        self._cast(caster, f, [target])
        self.last = target

    def do_controls(self, f: Fact) -> None:
        player = self.who(f["player"])
        if f.get("attached") is not None:  # "two Auras attached to Alex's Runeclaw Bear: one with ..."
            target = self.objects[("*", f["attached"])]
            text = read_card(self.s.quotes[f["quote"]])
            if text is None:
                raise NotModelled(f"the trigger condition “{self.s.quotes[f['quote']]}”")
            n = sum(1 for p, c in self.objects if p == player and c.startswith("Aura"))
            oid = self.game.create("Aura", player, types=["Enchantment"], subtypes=["Aura"], attached_to=target)
            self.objects[(player, f"Aura {n + 1}")] = oid
            self.aura_text = getattr(self, "aura_text", {}) | {oid: text}
            return
        name, text = self._card(f)
        try:
            oid = self.game.create(_adhoc(name, text) if text is not None else (name or "Card"), player)
            self.objects = getattr(self, "objects", {})
            self.objects.setdefault((player, name or "Card"), oid)
        except (KeyError, ValueError) as err:
            raise NotModelled(f"the engine cannot create {name}: {err}") from None
        self.last = player

    def do_activate(self, f: Fact) -> None:
        """An activated ability that asks another player to choose (801.5a): who may be chosen is
        the outcome the example states; the ability itself need not resolve."""
        self.controller = self.who(f["player"])
        chooser = f.get("chooser")
        self.chosen = self.who(chooser) if chooser is not None else None
        self._ensure_creatures()
        self.last = self.chosen or self.controller

    def do_must_choose_in_both(self, f: Fact) -> None:
        chooser = self.who(f["player"])
        legal = {t for t in self.game.legal_targets(self.controller, chooser=chooser) if isinstance(t, str)}
        both = set(self.game.range_of_influence(chooser)) & set(self.game.range_of_influence(self.controller))
        self.check(legal == both, f"{chooser} may choose {sorted(legal)} (the example: the players in both ranges, {sorted(both)})")

    def do_must_choose(self, f: Fact) -> None:
        chooser = self.who(f["player"])
        stated: set = set()
        def player(ref) -> str:
            return chooser if ref == ("themself",) else self.who(ref)

        for choice in f["choices"]:
            if choice[:1] == ("creatures of",):
                stated |= {self.creatures[player(p)] for p in choice[1:]}
            else:
                stated.add(player(choice))
        legal = set(self.game.legal_targets(self.controller, chooser=chooser))
        self.check(legal == stated, f"{chooser} may choose {sorted(map(str, legal))} (the example: {sorted(map(str, stated))})")

    def do_leaves(self, f: Fact) -> None:
        player = self.who(f["player"])
        self.left_player = player
        if any(x.kind == "tokens" for x in self._all_facts()):
            self._enter_creatures()
        self.departed = getattr(self, "departed", set()) | {player}
        self.game.leave_game(player)

    def do_next_turn(self, f: Fact) -> None:
        self.game.begin_next_turn()

    def _target(self, ref) -> Any:
        if isinstance(ref, tuple) and ref[:1] == ("object",):  # "Bianca's Assault Griffin"
            owner = self.who(ref[1])
            self.objects = getattr(self, "objects", {})
            if ("*", ref[2]) not in self.objects:
                oid = self.game.create(ref[2], owner) if _known(ref[2]) else self.game.creature(owner, ref[2])
                self.objects[(owner, ref[2])] = self.objects[("*", ref[2])] = oid
            return self.objects[("*", ref[2])]
        return self.who(ref)

    def _named_object(self, card: str) -> int:
        found = getattr(self, "objects", {}).get(("*", card))
        if found is None:
            raise Failed(f"there is no {card} in this game")
        return found

    def do_puts_from_library(self, f: Fact) -> None:
        pass  # read with the spell that does it (Bribery's choice), see play()

    def do_object_zone(self, f: Fact) -> None:
        oid = self._named_object(f["card"])
        zone = self.game.zone(oid)
        zone = getattr(zone, "value", zone)
        if f["zone"] == "outside the game" and zone != f["zone"]:
            # until 2009-07-11 an object "leaves the game" by 600.4a even when it is placed in the
            # removed-from-the-game zone: the engine's report of the departure says which
            left = any(oid in r.left_the_game or (oid in r.leftovers and r.leftover_fate is not None
                                                  and not r.leftover_fate.value.startswith("are exiled"))
                       for r in getattr(self.game, "leave_reports", {}).values())
            zone = f["zone"] if left else zone
        self.check((zone == f["zone"]) != f.negated,
                   f"{f['card']} is in {zone} (the example: {'not ' if f.negated else ''}{f['zone']})")
        if f.get("owner") is not None:
            owner = self.who(f["owner"])
            self.check(self.game.owner(oid) == owner, f"{f['card']} is {self.game.owner(oid)}'s (the example: {owner}'s)")

    def do_object_controller(self, f: Fact) -> None:
        oid = self._named_object(f["card"])
        controller = self.who(f["controller"])
        self.check(self.game.controller(oid) == controller,
                   f"{f['card']} is controlled by {self.game.controller(oid)} (the example: {controller})")

    def do_control_effect_ends(self, f: Fact) -> None:
        target = next((oid for (p, c), oid in self.objects.items() if p == "*"), None)
        caster = self.caster
        self.check(target is not None and self.game.controller(target) != caster,
                   f"{f['card']}'s change-of-control effect goes on")

    def _enter_creatures(self) -> None:
        """A nontoken creature entering under each player's control, so that what makes tokens
        when creatures enter makes them (the example speaks of such tokens)."""
        if not getattr(self, "entered", False):
            self.entered = True
            self.tokens_under = {}
            for p in self.game.players():
                before = set(self.game.tokens())
                self.game.creature(p)
                self.tokens_under[p] = set(self.game.tokens()) - before
            self.assumed.append("a nontoken creature enters under each player's control")

    def do_tokens(self, f: Fact) -> None:
        under = f["under"]
        if under[:1] == ("others",):
            ids = {t for p, ts in self.tokens_under.items() if p != self.left_player for t in ts}
        else:
            who = self.who(under if under[:1] == ("name",) else under[-1])
            ids = self.tokens_under.get(who, set()) if under[:1] != ("created by",) else \
                {t for ts in self.tokens_under.values() for t in ts}
        self.check(bool(ids), f"no {f['token']} tokens {under}")
        for t in ids:
            zone = getattr(self.game.zone(t), "value", self.game.zone(t))
            self.check(zone == f["zone"], f"a {f['token']} token is in {zone} (the example: {f['zone']})")

    def do_in_range(self, f: Fact) -> None:
        viewer, player = self.who(f["viewer"]), self.who(f["player"])
        inside = self.game.in_range(viewer, player)
        self.check(inside != f.negated, f"{player} is {'' if inside else 'not '}in {viewer}'s range of influence "
                                        f"(the example: {'not ' if f.negated else ''}in range)")

    def do_damage_dealt(self, f: Fact) -> None:
        player = self.who(f["player"])
        dealt = self.before.get(player, 0) - self.game.life(player)
        self.check((dealt == f["amount"]) != f.negated,
                   f"{player} was dealt {dealt} damage (the example: {'not ' if f.negated else ''}{f['amount']})")

    def do_team_total(self, f: Fact) -> None:
        team = self.game.team_of(self.last or self.names.get(("a player",)))
        life = self.game.team_life(team)
        self.check(life == f["life"], f"the team is at {life} life (the example: {f['life']})")

    def do_life_gained(self, f: Fact) -> None:
        player = self.last
        gained = self.game.life(player) - self.before.get(player, 0)
        self.check(gained == f["amount"], f"{player} gained {gained} life (the example: {f['amount']})")

    def do_life_lost(self, f: Fact) -> None:
        player = self.last
        lost = self.before.get(player, 0) - self.game.life(player)
        self.check(lost == f["amount"], f"{player} lost {lost} life (the example: {f['amount']})")

    def do_considered_life(self, f: Fact) -> None:
        player = self.last
        seen = self.before.get(player)
        self.check(seen == f["life"], f"{player}'s life total was {seen} for the effect (the example: {f['life']})")

    def do_each_team_dealt(self, f: Fact) -> None:
        for team, members in self.teams.items():
            before = self._team_before(team)
            after = self.game.team_life(team)
            self.check(before - after == f["amount"], f"team {team} was dealt {before - after} damage (the example: {f['amount']})")


    # -- more outcomes ------------------------------------------------------------------------------
    def do_range_definition(self, f: Fact) -> None:
        """"A range of influence of N means that you and ... are within your range": played on a
        table large enough that someone is outside it."""
        r, left, right = f["range"], f["left"], f["right"]
        if 2 * r + 3 > MAX_PLAYERS:
            raise OutOfBounds(f"a range of influence of {r:,} is shown on a table of {2 * r + 3:,} players: "
                              f"the runner seats at most {MAX_PLAYERS} players")
        players = [f"Player {i + 1}" for i in range(2 * r + 3)]
        from crparse.model.protocol import GameConfig

        game = self.factory(GameConfig(players=players, ranges=r, rules_date=self.date))
        you = players[0]
        # past a full turn of the table the seats come round again: no new player
        left, right = min(left, len(players)), min(right, len(players))
        stated = {you} | {game.left_of(you, k) for k in range(1, left + 1)} | {game.right_of(you, k) for k in range(1, right + 1)}
        seen = set(game.range_of_influence(you))
        self.check(seen == stated, f"range {r} holds {sorted(seen)} (the example: {sorted(stated)})")

    def do_chooses_chooser(self, f: Fact) -> None:
        self.chosen = self.who(f["chooser"])

    def do_can_choose(self, f: Fact) -> None:
        player, controller = self.who(f["player"]), self.who(f["controller"])
        candidates, _ = self.game.chooser_for(controller)
        self.check((player in candidates) != f.negated, f"{player} {'may' if player in candidates else 'may not'} make "
                                                        f"{controller}'s choice (the example: {'may not' if f.negated else 'may'})")
        self.check(not self.game.in_range(player, controller),
                   f"{controller} is in {player}'s range (the example: out of it)")

    def do_opponents_in_range(self, f: Fact) -> None:
        player = self.who(f["player"])
        inside = [o for o in self.game.opponents(player) if self.game.in_range(player, o)]
        self.check(bool(inside) != f.negated, f"opponents in {player}'s range: {inside}")

    def do_chooser_is_nearest_left(self, f: Fact) -> None:
        player = self.who(f["player"])
        candidates, fallback = self.game.chooser_for(player)
        nearest = next(self.game.left_of(player, k) for k in range(1, len(self.game.players()))
                       if self.game.left_of(player, k) in self.game.opponents(player))
        self.check(not candidates and fallback == nearest,
                   f"the choice falls to {sorted(candidates) or fallback} (the example: {nearest}, the nearest opponent to the left)")

    def _ensure_creatures(self, subtype: str = "Creature") -> None:
        if not self.creatures:
            for p in self.game.players():
                self.creatures[p] = self.game.creature(p, subtype, subtypes=[subtype] if subtype != "Creature" else [])
            self.assumed.append(f"each player controls one {subtype.lower()}")

    def do_creature_damage(self, f: Fact) -> None:
        controllers = {self.who(p) for p in f["controllers"]}
        for p in controllers:
            dealt = self.game.damage_on(self.creatures[p]) if p in self.creatures else None
            self.check(dealt == f["amount"], f"{p}'s creature was dealt {dealt} damage (the example: {f['amount']})")
        self.damaged = controllers

    def do_creature_damage_only(self, f: Fact) -> None:
        for p, c in self.creatures.items():
            if p not in getattr(self, "damaged", set()):
                self.check(self.game.damage_on(c) == 0, f"{p}'s creature was dealt damage too (the example: no other creature)")

    def do_boost_counts(self, f: Fact) -> None:
        owner = self.who(f["player"])
        counted = {self.who(p) for p in f["controllers"]}
        bonus = self.game.coat_of_arms_bonus(self.creatures[owner])
        self.plural = counted
        self.check((bonus == len(counted) - 1) != f.negated,
                   f"{owner}'s creature gets +{bonus}/+{bonus} (the example: {'not ' if f.negated else ''}counting the creatures of {sorted(counted)})")

    def do_boost_counts_range(self, f: Fact) -> None:
        owner, viewer = self.who(f["player"]), self.who(f["viewer"])
        counted = self.game.range_of_influence(viewer)
        bonus = self.game.coat_of_arms_bonus(self.creatures[owner])
        self.check((bonus == len(counted) - 1) != f.negated,
                   f"{owner}'s creature gets +{bonus}/+{bonus} (the example: {'not ' if f.negated else ''}counting the creatures in {viewer}'s range, {len(counted) - 1} others)")

    def do_turn_markers(self, f: Fact) -> None:
        from crparse.model.protocol import GameConfig

        if f["players"] is not None:
            check_players(f["players"], "a Grand Melee game")
        players = [f"Player {i + 1}" for i in range(f["players"])]
        game = self.factory(GameConfig(players=players, variant="grand melee", rules_date=self.date))
        self.check(game.turn_markers() == f["markers"],
                   f"{f['players']} players have {game.turn_markers()} turn markers (the example: {f['markers']})")

    def do_team_life_at(self, f: Fact) -> None:
        """"If that player's team's life total is N or less": brought to N."""
        player = self.last
        self.game.lose_life(player, self.game.team_life(self.game.team_of(player)) - f["life"])
        self.game.check_state()

    def do_team_lost(self, f: Fact) -> None:
        team = self.game.team_of(self.last)
        lost = self.game.team_lost(team)
        self.check(lost != f.negated, f"team {team} {'lost' if lost else 'did not lose'} (the example: {'not ' if f.negated else ''}lost)")

    def do_draws_from_empty(self, f: Fact) -> None:
        self.game.draw_from_empty_library(self.who(f["player"]))
        self.game.check_state()

    def do_team_can_lose(self, f: Fact) -> None:
        player = self.last
        for p in [player, *self.game.teammates(player)]:
            self.check(self.game.can_lose(p) != f.negated, f"{p} {'can' if self.game.can_lose(p) else 'cannot'} lose")

    def do_opponents_can_win(self, f: Fact) -> None:
        for p in self.game.opponents(self.last):
            self.check(self.game.can_win(p) != f.negated, f"{p} {'can' if self.game.can_win(p) else 'cannot'} win")

    def do_upkeep_win_threshold(self, f: Fact) -> None:
        player, team = self.last, self.game.team_of(self.last)
        for total, wins in ((f["life"] - 1, False), (f["life"], True)):
            game = self._copy()
            game.set_life(player, total) if False else game.lose_life(player, game.team_life(team) - total) \
                if game.team_life(team) > total else game.gain_life(player, total - game.team_life(team))
            game.upkeep(player)
            self.check(game.has_won(player) == wins,
                       f"at {total} team life the team {'wins' if game.has_won(player) else 'does not win'} (the example: wins at {f['life']} or more)")

    def do_life_paid(self, f: Fact) -> None:
        player = self.last
        name, text = None, None
        due = -(-self.game.life(player) // 2)  # "Pay half your life, rounded up"
        self.check(due == f["amount"], f"{player} must pay {due} life (the example: {f['amount']})")
        self.before = self._lives()
        self.game.pay_life(player, due)

    def do_chosen_loses(self, f: Fact) -> None:
        team = next((t for t in self.teams if self._team_before(t) == f["team_life"]), None)
        self.check(team is not None, f"no team had {f['team_life']} life")
        lost = self._team_before(team) - self.game.team_life(team)
        self.check(lost == f["amount"], f"the team that had {f['team_life']} life lost {lost} (the example: {f['amount']})")
        self.last = self.teams[team][0]

    def _team_before(self, team: str) -> int:
        return getattr(self, "teams_before", {}).get(team, 0)

    def do_emperors_can_attack(self, f: Fact) -> None:
        for p in self.game.players():
            if "emperor" in p:
                can = bool(self.game.attackable(p))
                self.check(can != f.negated, f"{p} can attack {sorted(self.game.attackable(p))} (the example: none)")


def _first(values: range, holds) -> int | None:
    """The first of `values` at which `holds` (false up to some value, true from it on) is true."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(values[mid]):
            hi = mid
        else:
            lo = mid + 1
    return values[lo] if lo < len(values) else None


def _known(name: str) -> bool:
    from crparse.model.cards import known

    return known(name)


def _adhoc(name: str | None, text: CardText | None):
    """The card to cast: the model's card of that name, its effect as the example's quote says."""
    from crparse.model.cards import Card, card, known

    if text is None:
        return name
    base = card(name) if name and known(name) else None
    return Card(name=name or "Card", types=base.types if base else ("Sorcery",), subtypes=base.subtypes if base else (),
                colors=base.colors if base else (), power=base.power if base else None,
                toughness=base.toughness if base else None, effect=text.effect, params=dict(text.params))
