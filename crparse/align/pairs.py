"""The vocabulary of an alignment: pairs of nodes of two releases, and what happened to each."""

from __future__ import annotations

from typing import Literal

import msgspec

from crparse.nodes import Document

Kind = Literal["unchanged", "changed", "moved", "moved+changed", "added", "removed", "split", "merged"]
KINDS: tuple[str, ...] = ("unchanged", "changed", "moved", "moved+changed", "added", "removed", "split", "merged")

# Flags on a pair:
#   references-renumbered  the texts differ only in numbers of cited rules, each of which moved to
#                          exactly the number now cited: not a change of meaning
#   reference-retargeted   a citation now names a different rule than the old one became
#   typography             the texts differ only in typography (quotes, dashes, ™, italics, {T})
#   examples               the examples changed (the rule's own text may not have)
FLAGS: tuple[str, ...] = ("references-renumbered", "reference-retargeted", "typography", "examples")


class Pair(msgspec.Struct, frozen=True, gc=False):
    """`old` and `new` are node keys (a number, or "glossary:Term"); None on the side a node
    is missing from. A split gives several pairs with the same `old`, a merge several with the
    same `new`. `similarity` (0-1) compares the texts with typography folded."""

    old: str | None
    new: str | None
    kind: Kind
    flags: tuple[str, ...] = ()
    similarity: float = 1.0

    @property
    def text_changed(self) -> bool:
        return self.kind in ("changed", "moved+changed") or (self.kind in ("split", "merged") and self.similarity < 1.0)


class Alignment(msgspec.Struct, frozen=True, gc=False):
    """Every node of `old` and of `new` in exactly one pair (a split's old node, or a merge's new
    node, in several), in the order of the new release, removed nodes where they stood."""

    old: Document
    new: Document
    pairs: tuple[Pair, ...]
    complete: bool = True  # False: the work budget ran out (crparse.align.match.WORK_FACTOR)

    def counts(self) -> dict[str, int]:
        return count_kinds(self.pairs)

    def renumbering(self) -> dict[str, str]:
        """Old number -> new number of every node that kept its identity (a split's old node maps
        to the piece that kept its number, or the first piece)."""
        out: dict[str, str] = {}
        for p in self.pairs:
            if p.old is None or p.new is None or p.kind == "merged" and p.old in out:
                continue
            if p.old not in out or p.new == p.old:
                out[p.old] = p.new
        return out


def count_kinds(pairs) -> dict[str, int]:
    """How many pairs of each kind (every kind listed, in KINDS order)."""
    out = dict.fromkeys(KINDS, 0)
    for p in pairs:
        out[p.kind] += 1
    return out
