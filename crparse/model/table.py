"""Seats, turn order, teams, range of influence, choices and attack options.

Seats are kept in turn order.  "X is seated to the left of Y" means X comes next after Y in turn
order: 101.4 (2026-01-16) "the next player in turn order (usually the player seated to the active
player's left)", 808.4/809.4 "Turn order goes to the players' left".  Players who left the game keep
no seat: left, right and distance are counted over the players still in the game.

The players within each player's range of influence are a snapshot taken as each turn begins
(801.2c); a player leaving the game does not refresh it until the next turn begins (801.2c example,
807.4h).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .rules import HGAttack, Variant, as_date, two_headed_giant_attack

__all__ = [
    "AttackOption",
    "Table",
    "make_table",
    "alternating_seating",
    "emperor_minimal_ranges",
    "Relation",
    "arrange",
    "SeatingError",
]

UNLIMITED = None


class SeatingError(ValueError):
    """No seating satisfies the stated relations."""


class AttackOption(enum.Enum):
    """Which players a player may attack (802, 803)."""

    ONE = "attack one opponent"  # no option: the attacking player chooses one defending player
    MULTIPLE = "attack multiple players"  # 802
    LEFT = "attack left"  # 803.1a
    RIGHT = "attack right"  # 803.1b


@dataclass
class Table:
    """The seats of one game: turn order, teams, roles, ranges and the range snapshot."""

    order: list[str]
    ranges: dict[str, int | None] = field(default_factory=dict)
    teams: dict[str, str] = field(default_factory=dict)  # player -> team name
    roles: dict[str, str] = field(default_factory=dict)  # player -> "emperor" / "general"
    variant: Variant = Variant.FREE_FOR_ALL
    attack_option: AttackOption = AttackOption.MULTIPLE
    adjacent_only: bool = False  # 809.3c (Emperor), 811.4 (Alternating Teams)
    shared_team_turns: bool = False  # 805
    rules_date: object = None
    departed: list[str] = field(default_factory=list)
    active: str | None = None  # active player, or the first player of the active team
    turn_number: int = 0
    _snapshot: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if len(set(self.order)) != len(self.order):
            raise ValueError("a player can't have two seats")
        for name in self.ranges:
            if name not in self.order:
                raise ValueError(f"range given for {name!r}, who has no seat")
        self.rules_date = as_date(self.rules_date)
        if not self._snapshot:
            self._take_snapshot()

    # --- seats ----------------------------------------------------------------------------------

    def players(self) -> list[str]:
        """The players still in the game, in turn order."""
        gone = set(self.departed)
        return [p for p in self.order if p not in gone]

    def in_game(self, player: str) -> bool:
        return player in self.order and player not in self.departed

    def _require(self, player: str) -> None:
        if player not in self.order:
            raise KeyError(f"no such player: {player!r}")
        if player in self.departed:
            raise ValueError(f"{player} has left the game")

    def left_of(self, player: str, steps: int = 1) -> str:
        """The player ``steps`` seats to the left: the next player in turn order (101.4)."""
        self._require(player)
        live = self.players()
        return live[(live.index(player) + steps) % len(live)]

    def right_of(self, player: str, steps: int = 1) -> str:
        self._require(player)
        live = self.players()
        return live[(live.index(player) - steps) % len(live)]

    def seats_left(self, a: str, b: str) -> int:
        """How many seats to a's left b sits (0 for a itself)."""
        self._require(a)
        self._require(b)
        live = self.players()
        return (live.index(b) - live.index(a)) % len(live)

    def distance(self, a: str, b: str) -> int:
        """Seats between a and b the short way round, counting live seats only (801.2)."""
        n = self.seats_left(a, b)
        return min(n, len(self.players()) - n)

    def next_in_turn_order(self, player: str) -> str:
        return self.left_of(player)

    # --- teams -----------------------------------------------------------------------------------

    def team_of(self, player: str) -> str:
        """A player's team; a player with no team is a team of one, named after the player."""
        return self.teams.get(player, player)

    def team_names(self) -> list[str]:
        seen: list[str] = []
        for p in self.order:
            t = self.team_of(p)
            if t not in seen:
                seen.append(t)
        return seen

    def members(self, team: str, *, including_departed: bool = False) -> list[str]:
        pool = self.order if including_departed else self.players()
        return [p for p in pool if self.team_of(p) == team]

    def teammates(self, player: str) -> list[str]:
        """102.3 (2026-01-16): "a player's teammates are the other players on their team"."""
        t = self.team_of(player)
        return [p for p in self.players() if p != player and self.team_of(p) == t]

    def opponents(self, player: str) -> list[str]:
        """102.3: "the player's opponents are all players not on their team"."""
        t = self.team_of(player)
        return [p for p in self.players() if self.team_of(p) != t]

    def are_opponents(self, a: str, b: str) -> bool:
        return self.team_of(a) != self.team_of(b)

    # --- range of influence ----------------------------------------------------------------------

    def range_value(self, player: str) -> int | None:
        """A player's range of influence in seats; ``None`` is unlimited (no limited range)."""
        return self.ranges.get(player, UNLIMITED)

    def limited(self) -> bool:
        return any(v is not None for v in self.ranges.values())

    def _within_now(self, player: str, live: list[str] | None = None) -> frozenset[str]:
        r = self.range_value(player)
        live = self.players() if live is None else live
        n = len(live)
        if r is None or 2 * r + 1 >= n:
            return frozenset(live)
        # 801.2: "Players within that many seats of the player are within that player's range";
        # 801.2b: "A player is always within their own range of influence." The seats counted
        # out either way, not every player's distance: a snapshot of the table stays quadratic.
        at = live.index(player)
        return frozenset(live[(at + step) % n] for step in range(-r, r + 1))

    def _take_snapshot(self) -> None:
        live = self.players()
        self._snapshot = {p: self._within_now(p, live) for p in live}

    def begin_turn(self, player: str | None = None) -> None:
        """A turn begins: 801.2c "The particular players within each player's range of influence are
        determined as each turn begins."  ``player`` is the new active player (or a member of the
        active team); ``None`` takes the next player (or team) in turn order."""
        if player is None:
            player = self._next_active()
        else:
            self._require(player)
        self.active = player
        self.turn_number += 1
        self._take_snapshot()

    def _next_active(self) -> str:
        live = self.players()
        if not live:
            raise ValueError("nobody is left in the game")
        if self.active is None:
            return live[0]
        if self.active in self.departed:
            # the next player in turn order after the departed seat (800.4k: a player who has left
            # the game doesn't begin a turn)
            idx = self.order.index(self.active)
            for step in range(1, len(self.order) + 1):
                cand = self.order[(idx + step) % len(self.order)]
                if cand not in self.departed:
                    break
            if self.shared_team_turns and self.team_of(cand) == self.team_of(self.active):
                return self._next_team_head(cand)
            return cand
        if self.shared_team_turns:
            return self._next_team_head(self.active)
        return self.left_of(self.active)

    def _next_team_head(self, player: str) -> str:
        t = self.team_of(player)
        p = player
        for _ in range(len(self.players())):
            p = self.left_of(p)
            if self.team_of(p) != t:
                return p
        return player

    def active_players(self) -> list[str]:
        """The active player, or every player of the active team with shared team turns (805.4a)."""
        if self.active is None or not self.in_game(self.active):
            return []
        if self.shared_team_turns:
            return self.members(self.team_of(self.active))
        return [self.active]

    def range_of_influence(self, player: str) -> frozenset[str]:
        """The players within ``player``'s range of influence, as fixed when the current turn began
        (801.2c), less players who have left since."""
        self._require(player)
        snap = self._snapshot.get(player)
        if snap is None:  # a player seated after the snapshot (not in the rules; be safe)
            snap = self._within_now(player)
        return frozenset(q for q in snap if q not in self.departed)

    def in_range(self, viewer: str, player: str) -> bool:
        """801.2: whether ``player`` is within ``viewer``'s range of influence."""
        return self.in_game(player) and player in self.range_of_influence(viewer)

    def in_both_ranges(self, a: str, b: str) -> frozenset[str]:
        return self.range_of_influence(a) & self.range_of_influence(b)

    # --- choices ---------------------------------------------------------------------------------

    def choosable_players(self, chooser: str, controller: str | None = None) -> frozenset[str]:
        """Players ``chooser`` may choose (801.5a), also limited to the range of the controller of
        the spell or ability when someone else chooses for it (801.4, 801.5a example)."""
        found = self.range_of_influence(chooser)
        if controller is not None and controller != chooser:
            found &= self.range_of_influence(controller)
        return found

    def chooser_for(self, controller: str, *, opponent: bool = True,
                    among: Iterable[str] | None = None) -> tuple[frozenset[str], str | None]:
        """Who may make a choice that an effect of ``controller`` asks another player to make.

        Returns (candidates within the controller's range, fallback).  When no appropriate player is
        within range, 801.5c: "the closest appropriate player to its controller's left makes that
        choice" -- the fallback; else it is ``None`` and the controller picks among the candidates.
        ``opponent`` asks for an opponent (e.g. "An opponent separates those cards").
        """
        pool = set(among) if among is not None else set(self.players())
        pool.discard(controller)
        if opponent:
            pool &= set(self.opponents(controller))
        pool = {p for p in pool if self.in_game(p)}
        in_reach = frozenset(p for p in pool if self.in_range(controller, p))
        if in_reach:
            return in_reach, None
        for step in range(1, len(self.players())):
            cand = self.left_of(controller, step)
            if cand in pool:
                return frozenset(), cand
        return frozenset(), None

    # --- attacks ---------------------------------------------------------------------------------

    def attackable(self, player: str) -> frozenset[str]:
        """The players ``player``'s creatures may attack (or, in Two-Headed Giant before
        2018-04-27, the members of the team they attack as a group).

        801.3: "Creatures can attack only opponents within their controller's range of influence";
        803.1a: "a player can attack only an opponent seated immediately to their left ... If a
        player's nearest opponent to the left is more than one seat away, the player can't attack";
        803.1b likewise to the right; 809.3c: "A player can attack only an opponent seated
        immediately next to them"; 811.4: "A player can't attack opponents who aren't seated next
        to them".
        """
        self._require(player)
        found = set(self.opponents(player))
        if len(self.players()) < 2:
            return frozenset()
        if self.limited():
            found &= self.range_of_influence(player)
        if self.attack_option is AttackOption.LEFT:
            found &= {self.left_of(player)}
        elif self.attack_option is AttackOption.RIGHT:
            found &= {self.right_of(player)}
        if self.adjacent_only:
            found &= {self.left_of(player), self.right_of(player)}
        return frozenset(found)

    def attack_unit(self) -> str:
        """"player": each attacking creature attacks one player; "team": the defending team is
        attacked as a group (Two-Headed Giant before 2018-04-27, 810.7a of 2018-01-19)."""
        if self.variant is Variant.TWO_HEADED_GIANT and \
                two_headed_giant_attack(self.rules_date) is HGAttack.TEAM:
            return "team"
        return "player"

    def may_attack_several(self) -> bool:
        """802.1: with the attack multiple players option a player may attack several players in one
        combat; shared team turns (805.10b) let each creature attack a chosen defending player."""
        return self.attack_option is AttackOption.MULTIPLE or self.shared_team_turns

    # --- leaving ---------------------------------------------------------------------------------

    def leave(self, player: str) -> None:
        """The player leaves the game: their seat is gone at once, but the range snapshot stays
        until the next turn begins (801.2c)."""
        self._require(player)
        self.departed.append(player)


# --- construction ------------------------------------------------------------------------------


def alternating_seating(teams: Sequence[Sequence[str]]) -> list[str]:
    """811.3: "players are seated so that no one is next to a teammate and each team is equally
    spaced out" -- A1, B1, C1, A2, B2, C2, ..."""
    sizes = {len(t) for t in teams}
    if len(sizes) != 1:
        raise ValueError("811.1: Alternating Teams games are played with teams of equal size")
    if len(teams) < 2:
        raise ValueError("811.1: two or more teams")
    return [team[i] for i in range(len(teams[0])) for team in teams]


def emperor_minimal_ranges(order: Sequence[str], teams: Mapping[str, str],
                           roles: Mapping[str, str]) -> dict[str, int]:
    """809.6a: "Each general's range of influence should be the minimum number that allows one
    general from an opposing team to begin the game within their range of influence. Each emperor's
    range of influence should be the minimum number that allows two generals from opposing teams to
    begin the game within their range of influence."  Distances are counted at the start of the
    game, the short way round."""
    n = len(order)

    def dist(a: str, b: str) -> int:
        k = (order.index(b) - order.index(a)) % n
        return min(k, n - k)

    out: dict[str, int] = {}
    for p in order:
        foes = sorted(dist(p, q) for q in order
                      if teams.get(q, q) != teams.get(p, p) and roles.get(q) == "general")
        need = 2 if roles.get(p) == "emperor" else 1
        if len(foes) < need:
            raise ValueError(f"not enough opposing generals for {p}")
        out[p] = foes[need - 1]
    return out


def make_table(variant: Variant | str, players: Sequence[str], *,
               teams: Mapping[str, Sequence[str]] | None = None,
               ranges: Mapping[str, int | None] | int | None = None,
               roles: Mapping[str, str] | None = None,
               attack_option: AttackOption | str | None = None,
               rules_date=None) -> Table:
    """A table for ``variant`` with ``players`` in turn order and the variant's default options.

    Defaults, by rule: Free-for-All 806.2a (range not limited unless given, then the same for all)
    and 806.2b (one attack option: attack multiple players unless given); Grand Melee 807.2a
    (range 1) and 807.2b (attack left); Team vs. Team 808.3a (attack multiple players); Emperor
    809.3a (emperors 2, generals 1), 809.3c (attack adjacent opponents only) and 809.6a (larger
    teams: minimal ranges, also before 2009-07-11, when 607.6 only said they "should be adjusted"); Two-Headed Giant 810.2 (shared team turns); Alternating Teams 811.2a (range 2
    recommended) and 811.4 (attack adjacent opponents only).
    """
    if isinstance(variant, str):
        variant = Variant(variant)
    if isinstance(attack_option, str):
        attack_option = AttackOption(attack_option)
    date = as_date(rules_date)
    order = list(players)
    team_of: dict[str, str] = {}
    for tname, members in (teams or {}).items():
        for m in members:
            if m not in order:
                raise ValueError(f"team member {m!r} has no seat")
            team_of[m] = tname
    role_of = dict(roles or {})

    if isinstance(ranges, int) or ranges is None:
        per = {p: ranges for p in order} if isinstance(ranges, int) else {}
    else:
        per = dict(ranges)

    option = attack_option
    adjacent = False
    shared = False
    if variant is Variant.GRAND_MELEE:
        per = {p: per.get(p, 1) for p in order}
        option = option or AttackOption.LEFT
    elif variant is Variant.EMPEROR:
        if not teams:
            raise ValueError("809.1: the Emperor variant involves teams")
        for tname, members in teams.items():
            members = list(members)
            if not any(role_of.get(m) == "emperor" for m in members):
                # 809.2: "Each team has one emperor, who sits in the middle of the team."
                role_of[members[(len(members) - 1) // 2]] = "emperor"
            for m in members:
                role_of.setdefault(m, "general")
        sizes = {len(list(m)) for m in teams.values()}
        if not per:
            if sizes == {3}:
                per = {p: 2 if role_of[p] == "emperor" else 1 for p in order}  # 809.3a
            else:
                per = emperor_minimal_ranges(order, team_of, role_of)  # 809.6a
        option = option or AttackOption.MULTIPLE
        adjacent = True
    elif variant is Variant.TWO_HEADED_GIANT:
        if not teams:
            raise ValueError("810.1: Two-Headed Giant games are played with two teams")
        shared = True
        option = option or AttackOption.MULTIPLE
    elif variant is Variant.ALTERNATING_TEAMS:
        if not per and ranges is None:
            per = {p: 2 for p in order}  # 811.2a "The recommended range of influence is 2."
        option = option or AttackOption.MULTIPLE
        adjacent = True
    elif variant is Variant.TEAM_VS_TEAM:
        option = option or AttackOption.MULTIPLE
    elif variant is Variant.TWO_PLAYER:
        option = option or AttackOption.ONE
    else:
        option = option or AttackOption.MULTIPLE
    return Table(order=order, ranges=per, teams=team_of, roles=role_of, variant=variant,
                 attack_option=option, adjacent_only=adjacent, shared_team_turns=shared,
                 rules_date=date)


# --- seating from stated relations --------------------------------------------------------------


@dataclass(frozen=True)
class Relation:
    """A stated fact about seats or ranges.

    kind: "left_of" (a is seated immediately to the left of b: a comes next after b in turn order),
    "right_of", "between" (a sits between b and c), "adjacent", "not_adjacent",
    "in_range" (b is within a's range), "not_in_range", "distance" (exactly ``n`` seats).
    """

    kind: str
    a: str
    b: str
    c: str | None = None
    n: int | None = None


_KINDS = frozenset({"left_of", "right_of", "between", "adjacent", "not_adjacent", "in_range", "not_in_range",
                    "distance"})


def _holds(rel: Relation, pos: Mapping[str, int], n: int, ranges: Mapping[str, int | None]) -> bool:
    """Whether ``rel`` holds with the players it names at seats ``pos`` of a table of ``n`` seats
    (who sits in the other seats makes no difference to any relation)."""

    def dist(x: str, y: str) -> int:
        k = (pos[y] - pos[x]) % n
        return min(k, n - k)

    k = rel.kind
    if k == "left_of":
        return pos[rel.a] == (pos[rel.b] + 1) % n
    if k == "right_of":
        return pos[rel.a] == (pos[rel.b] - 1) % n
    if k == "between":
        if rel.c is None or rel.b == rel.c:
            return False
        left, right = (pos[rel.a] + 1) % n, (pos[rel.a] - 1) % n
        return left != right and {pos[rel.b], pos[rel.c]} == {left, right}
    if k == "adjacent":
        return dist(rel.a, rel.b) == 1
    if k == "not_adjacent":
        return dist(rel.a, rel.b) != 1
    if k in ("in_range", "not_in_range"):
        r = ranges.get(rel.a)
        inside = r is None or dist(rel.a, rel.b) <= r
        return inside if k == "in_range" else not inside
    return dist(rel.a, rel.b) == rel.n  # "distance"


# How many seats the search of one `arrange` call may try. Seating is a constraint problem,
# exponential in the named players at worst (eleven players and no count: 10! orders of a table
# of 11); the examples' relations are chains that settle each seat in a few tries, so their
# searches take a few hundred. Past the budget the seating is refused (well under a second).
SEARCH_BUDGET = 100_000


class SearchBudget:
    """The seats one `arrange` call may try; `tried` says how many it did (what the search cost)."""

    def __init__(self, steps: int = SEARCH_BUDGET):
        self.left = steps
        self.tried = 0

    def spend(self) -> None:
        self.tried += 1
        self.left -= 1
        if self.left < 0:
            raise SeatingError("the search for a seating gave up after trying "
                               f"{SEARCH_BUDGET:,} seats (too many players to place)")


def _first_seating(first: str, rest: Sequence[str], n: int, due: Sequence[Sequence[Relation]],
                   ranges: Mapping[str, int | None], top: int, increasing: bool,
                   budget: SearchBudget) -> tuple[int, ...] | None:
    """The first (in lexicographic order) seats for ``rest``, ``first`` at seat 0, whose highest is
    ``top``, every relation holding; with ``increasing``, only seats in the order of ``rest``.
    ``due[i]``: the relations whose players are all seated once ``rest[i]`` is. A depth-first
    search that drops a partial seating as soon as a relation fails."""
    k = len(rest)

    def candidates(seats: list[int]) -> Iterable[int]:
        i = len(seats)
        if increasing:
            low = seats[-1] + 1 if seats else 1
            return (top,) if i == k - 1 else range(low, top - (k - 1 - i) + 1)
        used = set(seats)
        if i == k - 1 and top not in used:
            return (top,)
        return (s for s in range(1, top + 1) if s not in used)

    pos = {first: 0}
    seats: list[int] = []
    stack = [iter(candidates(seats))]
    while stack:
        i = len(seats)
        for s in stack[-1]:
            budget.spend()
            pos[rest[i]] = s
            if all(_holds(r, pos, n, ranges) for r in due[i]):
                break
        else:
            stack.pop()
            pos.pop(rest[i], None)
            if seats:
                seats.pop()
            continue
        seats.append(s)
        if len(seats) == k:
            return tuple(seats)
        stack.append(iter(candidates(seats)))
    return None


def arrange(relations: Iterable[Relation], *, named: Sequence[str] = (),
            ranges: Mapping[str, int | None] | int | None = None,
            total: int | None = None, min_total: int = 4, max_total: int = 12,
            filler: str = "Player {}", search: SearchBudget | None = None) -> tuple[list[str], dict[str, int | None]]:
    """Seat the named players so that every relation holds, adding anonymous filler players.

    Examples often leave the number of players unstated although their claims hold only with four
    or more (with three seats and range 1 everyone is adjacent), so the smallest table of at least
    ``min_total`` seats is used unless ``total`` is given.  The first named player (in order of
    appearance) takes seat 0; among several seatings the one that keeps the named players in order
    of appearance, closest together, is chosen, so the result is deterministic: seats in order of
    appearance before any other, then the lowest highest seat, then the first in lexicographic
    order.  The search stops after SEARCH_BUDGET tries (SeatingError); ``search``, when given,
    holds the budget and says how many seats were tried.

    ``ranges`` gives per-player ranges (int for everyone; unnamed fillers get that common value or,
    with a mapping, the value for ``"*"`` if present).  Returns (turn order, ranges per seat).
    """
    rels = list(relations)
    for r in rels:
        if r.kind not in _KINDS:
            raise ValueError(f"unknown relation {r.kind!r}")
    names: list[str] = list(dict.fromkeys(list(named) + [x for r in rels
                                                          for x in (r.a, r.b, r.c) if x]))
    if isinstance(ranges, int) or ranges is None:
        common = ranges
        per_named: dict[str, int | None] = {}
    else:
        common = ranges.get("*")
        per_named = {k: v for k, v in ranges.items() if k != "*"}
    named_ranges = {p: per_named.get(p, common) for p in names}
    budget = search if search is not None else SearchBudget()
    sizes = [total] if total is not None else range(max(min_total, len(names)), max_total + 1)
    for n in sizes:
        if n < len(names):
            continue
        fillers = [filler.format(i + 1) for i in range(n - len(names))]
        if not names:
            order = fillers
            return order, {p: per_named.get(p, common) for p in order}
        first, rest = names[0], names[1:]
        depth = {first: -1} | {nm: i for i, nm in enumerate(rest)}
        now: list[Relation] = []  # about the first player alone
        due: list[list[Relation]] = [[] for _ in rest]
        for r in rels:
            d = max(depth[x] for x in (r.a, r.b, r.c) if x)
            (now if d < 0 else due[d]).append(r)
        if not all(_holds(r, {first: 0}, n, named_ranges) for r in now):
            continue
        seats = () if not rest else next(
            (found for increasing in (True, False) for top in range(len(rest), n)
             if (found := _first_seating(first, rest, n, due, named_ranges, top, increasing, budget)) is not None),
            None)
        if seats is not None:
            order: list[str | None] = [None] * n
            order[0] = first
            for nm, s in zip(rest, seats):
                order[s] = nm
            it = iter(fillers)
            best = [x if x is not None else next(it) for x in order]
            return best, {p: per_named.get(p, common) for p in best}
    raise SeatingError("no seating satisfies the relations"
                       + (f" with {total} players" if total else f" up to {max_total} players"))
