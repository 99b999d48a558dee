"""Grand Melee turn markers (807.4, 608.4 until 2009-05-01).

807.4a: one marker for each full four players; 807.4b: the starting player takes marker 1 and the
player four seats to the left of each marker holder the next; 807.4c: a player passes the marker to
their left after their turn; 807.4d: a player who receives a marker can't begin their turn while a
marker is within three seats to their left; 807.4e-g: markers designated for removal when players
leave; 807.4i-j: extra turns.  Simultaneous departures (the lowest-numbered marker rule of 807.4e)
are not modelled: players leave one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import MarkerRemoval, turn_marker_removal
from .table import Table

__all__ = ["marker_count", "TurnMarkers", "TurnRecord"]


def marker_count(players: int) -> int:
    """807.4a (2026-01-16): "There is one turn marker for each full four players in the game." """
    return players // 4


@dataclass(frozen=True)
class TurnRecord:
    player: str
    marker: int
    extra: bool


@dataclass
class TurnMarkers:
    table: Table
    holders: dict[int, str] = field(default_factory=dict)  # marker number -> holder (may have left)
    taking: set[int] = field(default_factory=set)  # markers whose holder is taking a turn
    designated: dict[int, int] = field(default_factory=dict)  # marker -> times designated
    removed: list[int] = field(default_factory=list)
    extra_after: dict[str, int] = field(default_factory=dict)  # extra turns "after this one"
    extra_before_next: dict[str, int] = field(default_factory=dict)  # 807.4j deferred extra turns
    current_is_extra: set[int] = field(default_factory=set)
    pending_normal: set[int] = field(default_factory=set)  # a deferred extra turn is under way
    log: list[TurnRecord] = field(default_factory=list)

    # --- setup ------------------------------------------------------------------------------------

    @classmethod
    def start(cls, table: Table, starting_player: str | None = None) -> "TurnMarkers":
        """807.4b: "The starting player in the game gets the first turn marker. The player four seats
        to that player's left (the fifth player) takes the second turn marker, and so on ... Then all
        players with turn markers start their turns at the same time." """
        tm = cls(table)
        first = starting_player or table.players()[0]
        for k in range(marker_count(len(table.players()))):
            tm.holders[k + 1] = table.left_of(first, 4 * k)
        for m in sorted(tm.holders):
            tm._begin(m)
        return tm

    # --- queries ----------------------------------------------------------------------------------

    def count(self) -> int:
        return len(self.holders)

    def marker_of(self, player: str) -> int | None:
        for m, p in self.holders.items():
            if p == player:
                return m
        return None

    def has_marker(self, player: str) -> bool:
        return self.marker_of(player) is not None

    def is_taking_turn(self, player: str) -> bool:
        m = self.marker_of(player)
        return m is not None and m in self.taking

    def waiting(self) -> list[str]:
        return [p for m, p in sorted(self.holders.items()) if m not in self.taking]

    def designations(self, marker: int) -> int:
        return self.designated.get(marker, 0)

    def removal_rule(self) -> MarkerRemoval:
        return turn_marker_removal(self.table.rules_date)

    # --- internals --------------------------------------------------------------------------------

    def _blocked(self, marker: int) -> bool:
        """807.4d: "A player who receives a turn marker can't begin their turn if any player in the
        three seats to their left has a turn marker." """
        holder = self.holders[marker]
        if not self.table.in_game(holder):
            return True
        near = {self.table.left_of(holder, k) for k in (1, 2, 3)} - {holder}
        return any(p in near for m, p in self.holders.items() if m != marker)

    def _begin(self, marker: int, *, force: bool = False) -> bool:
        if marker in self.taking or (not force and self._blocked(marker)):
            return False
        holder = self.holders[marker]
        extra = False
        if self.extra_before_next.get(holder):
            # 807.4j: "that player will take the extra turn immediately before their next turn"
            self.extra_before_next[holder] -= 1
            extra = True
            self.current_is_extra.add(marker)
            self.pending_normal.add(marker)
        self.taking.add(marker)
        self.log.append(TurnRecord(holder, marker, extra))
        self.table.begin_turn(holder)
        return True

    def _start_waiting(self) -> None:
        changed = True
        while changed:
            changed = False
            for m in sorted(self.holders):
                if m not in self.taking and self._begin(m):
                    changed = True

    def _marker_right_of(self, player_index: int) -> int | None:
        """The turn marker nearest to the right of a seat (by original seat index), its own seat
        excluded."""
        order = self.table.order
        n = len(order)
        for step in range(1, n):
            p = order[(player_index - step) % n]
            for m, h in self.holders.items():
                if h == p:
                    return m
        return None

    def _remove(self, marker: int) -> None:
        """807.4g: a removed marker designated k times passes k - 1 designations to the marker to
        its right."""
        times = self.designated.pop(marker, 0)
        holder = self.holders.pop(marker)
        self.taking.discard(marker)
        self.current_is_extra.discard(marker)
        self.pending_normal.discard(marker)
        self.removed.append(marker)
        if holder in self.extra_after and self.extra_after[holder]:
            # 807.4j: the player won't have a turn marker at the start of that turn
            self.extra_before_next[holder] = self.extra_before_next.get(holder, 0) + self.extra_after.pop(holder)
        if times > 1:
            nxt = self._marker_right_of(self.table.order.index(holder))
            if nxt is not None:
                self.designated[nxt] = self.designated.get(nxt, 0) + times - 1
                self._remove_idle_designated()

    def _remove_idle_designated(self) -> None:
        """807.4g: "If a player who's not taking a turn has a turn marker that's been designated for
        removal, that turn marker is removed immediately." """
        for m in sorted(list(self.designated)):
            if m in self.holders and m not in self.taking and self.designated.get(m, 0) > 0:
                self._remove(m)

    # --- events -----------------------------------------------------------------------------------

    def grant_extra_turn(self, player: str) -> None:
        """An effect gives ``player`` an extra turn after the current one (807.4i/j)."""
        self.extra_after[player] = self.extra_after.get(player, 0) + 1

    def leave(self, player: str) -> None:
        """``player`` leaves the game (807.4c, 807.4e-g)."""
        idx = self.table.order.index(player)
        own = self.marker_of(player)
        self.table.leave(player)
        if own is not None and own not in self.taking:
            # 807.4c: "If a player with a turn marker leaves the game before their turn begins, the
            # player to their left takes the turn marker immediately."
            self.holders[own] = self._left_of_departed(idx)
        # 807.4e/f: would leaving reduce the number of markers (designated ones disregarded)?
        live_markers = len(self.holders) - sum(self.designated.values())
        if marker_count(len(self.table.players())) < live_markers:
            target = self._marker_right_of(idx)
            if target is not None:
                self.designated[target] = self.designated.get(target, 0) + 1
        self._remove_idle_designated()
        self._start_waiting()

    def _left_of_departed(self, idx: int) -> str:
        order = self.table.order
        for step in range(1, len(order)):
            p = order[(idx + step) % len(order)]
            if self.table.in_game(p):
                return p
        raise ValueError("nobody is left")

    def end_turn(self, player: str) -> None:
        """The turn of ``player`` (or of the departed holder of that marker) ends."""
        m = self.marker_of(player)
        if m is None or m not in self.taking:
            raise ValueError(f"{player} is not taking a turn")
        self.taking.discard(m)
        if m in self.pending_normal and not self.designations(m):
            # the deferred extra turn was taken; the normal turn follows at once
            self.current_is_extra.discard(m)
            self.pending_normal.discard(m)
            self._begin(m, force=True)
            return
        self.current_is_extra.discard(m)
        if self.designations(m):
            # 807.4g: "that turn marker is removed rather than being passed after that turn ends"
            self._remove(m)
            self._remove_idle_designated()
            self._start_waiting()
            return
        idx = self.table.order.index(player)
        if self.table.in_game(player) and self.extra_after.get(player):
            self.extra_after[player] -= 1
            # 807.4i
            left3 = {self.table.left_of(player, k) for k in (1, 2, 3)} - {player}
            right3 = {self.table.right_of(player, k) for k in (1, 2, 3)} - {player}
            others = {p for mm, p in self.holders.items() if mm != m}
            if others & right3:
                self.extra_before_next[player] = self.extra_before_next.get(player, 0) + 1
                self.holders[m] = self.table.left_of(player)
            elif others & left3:
                self.current_is_extra.add(m)
                self._start_waiting()
                return
            else:
                self.current_is_extra.add(m)
                self._begin(m, force=True)
                self._start_waiting()
                return
        else:
            # 807.4c: "that player passes the turn marker to the player on their left"; a departed
            # holder's marker goes to the player to their left after that turn ends.
            self.holders[m] = self._left_of_departed(idx)
        self._start_waiting()
