"""The engine interface (crparse.model.protocol): the reference game implements it, and a runner that
uses only the interface can drive any engine built by an ``EngineFactory``."""

import inspect
import typing

from crparse.model import Engine, Game, GameConfig, new_game
from crparse.model.protocol import Engine as EngineProto


def protocol_methods():
    return sorted(n for n, v in vars(EngineProto).items()
                  if callable(v) and not n.startswith("_"))


def test_reference_game_is_an_engine():
    g = new_game(GameConfig(players=["A", "B", "C", "D"]))
    assert isinstance(g, Engine)


def test_reference_game_accepts_every_protocol_parameter():
    for name in protocol_methods():
        want = inspect.signature(getattr(EngineProto, name)).parameters
        have = inspect.signature(getattr(Game, name)).parameters
        for pname, p in want.items():
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            assert pname in have, f"Game.{name} lacks parameter {pname}"


def test_protocol_is_plain_typing_protocol():
    assert typing.Protocol in EngineProto.__mro__


def run_801_2c(factory) -> list[bool]:
    """A scenario written against the interface only: 801.2c (2026-01-16), "The particular players
    within each player's range of influence are determined as each turn begins." """
    e = factory(GameConfig(players=["Carissa", "Rob", "Alex", "Extra"], ranges=1))
    out = [e.in_range("Alex", "Carissa")]
    e.leave_game("Rob")
    out.append(e.in_range("Alex", "Carissa"))
    e.begin_next_turn()
    out.append(e.in_range("Alex", "Carissa"))
    return out


def test_runner_drives_the_reference_engine_through_the_interface():
    assert run_801_2c(new_game) == [False, False, True]


class RecomputingEngine:
    """An adapter around another engine that recomputes ranges at once when a player leaves (as the
    engines surveyed in the examples study do).  It implements the interface by delegation; the
    scenario above tells it apart from the rules (801.2c)."""

    def __init__(self, config):
        self._g = Game(config)

    def __getattr__(self, name):
        return getattr(self._g, name)

    def leave_game(self, player):
        rep = self._g.leave_game(player)
        self._g.table._take_snapshot()  # the non-conforming behaviour
        return rep


def test_a_nonconforming_adapter_fails_the_same_scenario():
    assert run_801_2c(RecomputingEngine) == [False, True, True]


def test_documented_examples_run():
    """The >>> examples of docs/model.md and of the package docstring run."""
    import doctest
    from pathlib import Path

    import crparse.model

    doc = Path(__file__).resolve().parents[1] / "docs" / "model.md"
    res = doctest.testfile(str(doc), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert res.attempted > 0 and res.failed == 0
    res = doctest.testmod(crparse.model)
    assert res.attempted > 0 and res.failed == 0
