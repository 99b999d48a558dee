"""A worked example as a test: the setup it states, the actions it tells, the outcomes it asserts.

Built only from the parse of the example's text (crparse.examples.read), run by
crparse.examples.runner against an engine (crparse.model.protocol.Engine). Plain data.

Each fact is a `Fact`: a kind from the examples' language ("seated", "range", "cast",
"in-range", ...), its arguments by name, whether the sentence negates it, and the sentence it
came from (for reports).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SETUP_KINDS = frozenset({
    "variant", "players", "everyone-range", "seated", "range", "mutually-out", "team-life",
    "team-lives", "teams", "team-size", "seated-between",
})


@dataclass(frozen=True)
class Fact:
    kind: str
    args: tuple[tuple[str, Any], ...] = ()
    negated: bool = False
    sentence: int = 0  # index of the sentence in the example

    def __getitem__(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default


@dataclass(frozen=True)
class Branch:
    """"If X, Y" (and "If, instead, ..."): actions and outcomes played from the state before it."""

    steps: tuple[Fact, ...]
    sentence: int = 0


@dataclass(frozen=True)
class Scenario:
    setup: tuple[Fact, ...]
    steps: tuple[Fact | Branch, ...]
    quotes: tuple[str, ...] = ()  # card texts the example quotes, by mask number
    sentences: tuple[str, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict:
        def fact(f: Fact | Branch) -> dict:
            if isinstance(f, Branch):
                return {"branch": [fact(s) for s in f.steps]}
            return {"kind": f.kind, "negated": f.negated, **{k: _plain(v) for k, v in f.args}}

        return {"setup": [fact(f) for f in self.setup], "steps": [fact(s) for s in self.steps]}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
