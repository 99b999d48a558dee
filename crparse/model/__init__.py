"""A small reference model of the multiplayer rules (800-811; 600-609 until 2009-05-01), played by
the rules of a given date.  A leaf package: plain Python, no I/O, nothing imported from the rest of
crparse.  See docs/model.md.

    >>> from crparse.model import Game, GameConfig
    >>> g = Game(GameConfig(players=["Carissa", "Rob", "Alex", "Player 1"], ranges=1))
    >>> g.in_range("Alex", "Carissa")
    False
"""

from .cards import CARDS, Card, card
from .effects import DamageResult, DamageSource
from .game import CastResult, Game, IllegalAction, new_game
from .life import LifeBook
from .melee import TurnMarkers, marker_count
from .objects import ObjectStore, Zone
from .protocol import Engine, EngineFactory, GameConfig
from .rules import CHANGES, RulesDate, Variant
from .table import AttackOption, Relation, SeatingError, Table, alternating_seating, arrange, \
    emperor_minimal_ranges, make_table

__all__ = [
    "AttackOption", "CARDS", "CHANGES", "Card", "CastResult", "DamageResult", "DamageSource",
    "Engine", "EngineFactory", "Game", "GameConfig", "IllegalAction", "LifeBook", "ObjectStore",
    "Relation", "RulesDate", "SeatingError", "Table", "TurnMarkers", "Variant", "Zone",
    "alternating_seating", "arrange", "card", "emperor_minimal_ranges", "make_table",
    "marker_count", "new_game",
]
