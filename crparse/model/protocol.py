"""The engine interface a scenario runner calls.

A scenario (setup, actions, assertions) is run against any object that implements ``Engine``; the
reference model (``crparse.model.game.Game``) is one.  Another engine plugs in through an adapter
class that implements these methods on top of its own game state, and a factory that builds it
from a ``GameConfig`` (see docs/model.md).

Players are named by strings, objects (cards, tokens, permanents) by integers the engine hands out.
"Life" is the life total as costs and effects see it (in Two-Headed Giant: the team's, or half of it
before 2010-04-23); "team life" is the shared total.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

__all__ = ["GameConfig", "Engine", "EngineFactory", "Target"]

Target = "str | int"  # a player's name or an object id


@dataclass(frozen=True)
class GameConfig:
    """Everything a game is created from.

    ``players``: names in turn order (the first is the starting player unless ``starting_player``);
    "X is seated to the left of Y" means X comes right after Y.  ``teams``: team name -> members.
    ``ranges``: one range of influence for everyone (int), or per player (mapping; ``None`` =
    unlimited); omitted: the variant's default.  ``roles``: Emperor roles ("emperor"/"general").
    ``attack_option``: "attack one opponent", "attack multiple players", "attack left", "attack right".
    ``rules_date``: the date of the rules to play by (ISO string or date); omitted: the newest.
    ``life``: starting totals to override, by player or team name (a scenario's "a team that has 17
    life").
    """

    players: Sequence[str]
    variant: str = "free-for-all"
    teams: Mapping[str, Sequence[str]] | None = None
    ranges: Mapping[str, int | None] | int | None = None
    roles: Mapping[str, str] | None = None
    attack_option: str | None = None
    rules_date: str | _dt.date | None = None
    starting_player: str | None = None
    life: Mapping[str, int] = field(default_factory=dict)


@runtime_checkable
class Engine(Protocol):
    """What a scenario runner needs from an engine.  All methods are required."""

    rules_date: Any  # the rules date the engine plays by (anything with an ISO ``str()``)

    # --- seats and teams -------------------------------------------------------------------------
    def players(self) -> list[str]:
        """Players still in the game, in turn order."""

    def left_of(self, player: str, steps: int = 1) -> str:
        """The player seated ``steps`` seats to the left (the next in turn order)."""

    def right_of(self, player: str, steps: int = 1) -> str: ...

    def distance(self, a: str, b: str) -> int:
        """Seats between two players, the short way round, counting players still in the game."""

    def team_of(self, player: str) -> str: ...

    def teammates(self, player: str) -> list[str]: ...

    def opponents(self, player: str) -> list[str]: ...

    # --- range of influence and choices ------------------------------------------------------------
    def range_value(self, player: str) -> int | None:
        """The player's range of influence in seats (None: unlimited)."""

    def range_of_influence(self, player: str) -> frozenset[str]:
        """Players within the player's range of influence (fixed as the current turn began)."""

    def in_range(self, viewer: str, target: "str | int") -> bool:
        """Whether a player, or an object (by its controller), is within ``viewer``'s range."""

    def legal_targets(self, controller: str, *, chooser: str | None = None,
                      kinds: Sequence[str] = ("player", "creature")) -> frozenset:
        """Players and objects a spell or ability of ``controller`` may target, or ``chooser`` may
        choose for it (801.4, 801.5a)."""

    def chooser_for(self, controller: str, *, opponent: bool = True) -> tuple[frozenset[str], str | None]:
        """(players within range who may make the choice, else the player who must: 801.5c)."""

    def attackable(self, player: str) -> frozenset[str]:
        """Players the player's creatures may attack."""

    def can_attack(self, creature: int, defender: str) -> bool: ...

    # --- life, poison and outcomes --------------------------------------------------------------
    def life(self, player: str) -> int: ...

    def team_life(self, team: str) -> int: ...

    def poison(self, player: str) -> int: ...

    def has_lost(self, player: str) -> bool: ...

    def has_won(self, player: str) -> bool: ...

    def can_lose(self, player: str) -> bool: ...

    def can_win(self, player: str) -> bool: ...

    # --- objects ---------------------------------------------------------------------------------
    def create(self, name: str, controller: str, *, owner: str | None = None, zone: str = "battlefield",
               attached_to: "str | int | None" = None, **attributes: Any) -> int:
        """Put a named card (or a described object: types, subtypes, power, toughness, ...) into the
        game."""

    def controller(self, obj: int) -> str | None: ...

    def owner(self, obj: int) -> str: ...

    def zone(self, obj: int) -> str: ...

    def power_toughness(self, obj: int) -> tuple[int, int]: ...

    def damage_on(self, obj: int) -> int: ...

    # --- actions ---------------------------------------------------------------------------------
    def cast(self, player: str, card_name: str, *, targets: Sequence["str | int"] = (), x: int | None = None,
             **choices: Any) -> Any:
        """Cast the named card; returns an engine-specific result."""

    def activate(self, player: str, obj: int, *, targets: Sequence["str | int"] = (), **choices: Any) -> Any:
        """Activate the ability of a permanent."""

    def deal_damage(self, source: "str | int", recipient: "str | int", amount: int | None = None, *,
                    combat: bool = False) -> Any: ...

    def gain_life(self, player: str, amount: int) -> int: ...

    def lose_life(self, player: str, amount: int) -> int: ...

    def set_life(self, player: str, value: int) -> int: ...

    def pay_life(self, player: str, amount: int) -> int: ...

    def double_life(self, player: str) -> int: ...

    def exchange_life(self, a: str, b: str) -> bool: ...

    def add_poison(self, player: str, amount: int) -> int: ...

    def destroy(self, obj: int) -> Any: ...

    def lose_game(self, player: str, reason: str = "") -> bool: ...

    def win_game(self, player: str) -> Any: ...

    def draw_from_empty_library(self, player: str) -> bool: ...

    def leave_game(self, player: str) -> Any: ...

    def begin_next_turn(self, player: str | None = None) -> str:
        """End the current turn and begin the next (or ``player``'s); returns the active player."""

    def turn_markers(self) -> int:
        """Turn markers in a Grand Melee game (807.4a); 0 in other variants."""

    def has_turn_marker(self, player: str) -> bool:
        """Grand Melee: whether the player holds a turn marker."""

    def extra_turns_owed(self, player: str) -> int:
        """Extra turns the player is still to take."""

    def end_turn(self, player: str) -> None:
        """The player's turn ends (Grand Melee: its marker moves on or is removed, 807.4)."""

    def activate(self, player: str, obj: int, *, targets: Sequence["str | int"] = (), **choices: Any) -> Any:
        """Activate an ability of a permanent."""

    def apply_legend_rule(self) -> list[int]:
        """The legend rule as the rules date has it; the permanents it puts into graveyards."""

    def upkeep(self) -> Any: ...

    def end_step(self) -> Any: ...

    def check_state(self) -> Any:
        """Perform state-based actions."""


EngineFactory = Callable[[GameConfig], Engine]
