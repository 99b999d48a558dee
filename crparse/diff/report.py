"""A diff of two releases: the alignment's pairs, each with its word diff, as plain data that
the renderers (crparse.diff.render) and the JSON contract read."""

from __future__ import annotations

import msgspec

from crparse.align import Alignment, Pair
from crparse.align.pairs import count_kinds
from crparse.align.text import fold_all
from crparse.align.units import texts
from crparse.diff.words import word_diff
from crparse.nodes import Document

# One version for every JSON crparse writes (the document, the diff): crparse.writers.json.
from crparse.writers.json import SCHEMA_VERSION as DIFF_SCHEMA_VERSION  # noqa: E402


class Release(msgspec.Struct, frozen=True):
    date: str | None
    path: str | None


class Change(msgspec.Struct, frozen=True):
    """A pair and its word diff ([op, text] with op "=", "-" or "+"; empty when the texts are the
    same, typography aside unless asked for)."""

    old: str | None
    new: str | None
    kind: str
    flags: tuple[str, ...]
    similarity: float
    words: tuple[tuple[str, str], ...] = ()


class Diff(msgspec.Struct, frozen=True):
    old: Release
    new: Release
    typography: bool
    pairs: tuple[Change, ...]
    complete: bool = True  # False: the alignment was cut short; unpaired nodes show as added, removed

    def counts(self) -> dict[str, int]:
        return count_kinds(self.pairs)


def _release(doc: Document) -> Release:
    return Release(doc.effective_date, doc.source.path)


def _shown(pair: Pair, typography: bool) -> bool:
    """Whether the pair's texts differ in what the diff shows."""
    if pair.old is None or pair.new is None:
        return False
    if typography:
        return True  # compared as printed below; equal texts give no words
    return pair.kind not in ("unchanged", "moved") or bool(set(pair.flags) - {"typography"})


def diff(alignment: Alignment, *, typography: bool = False) -> Diff:
    """The word diff of every pair whose texts differ: typography folded unless `typography`."""
    wanted = [p for p in alignment.pairs if _shown(p, typography)]
    old_texts = texts(alignment.old, {p.old for p in wanted})
    new_texts = texts(alignment.new, {p.new for p in wanted})
    olds = [old_texts[p.old] for p in wanted]
    news = [new_texts[p.new] for p in wanted]
    if not typography:
        olds, news = fold_all(olds, lines=True), fold_all(news, lines=True)
    words = {id(p): tuple(word_diff(a, b)) for p, a, b in zip(wanted, olds, news) if a != b}
    changes = tuple(
        Change(p.old, p.new, p.kind, p.flags, p.similarity, words.get(id(p), ())) for p in alignment.pairs
    )
    return Diff(_release(alignment.old), _release(alignment.new), typography, changes, alignment.complete)
