"""Lineage: every rule followed through every release of a corpus.

Consecutive releases are aligned (crparse.align); each node of the first release, and each node a
later release adds, starts a lineage named by where it was born: its release's date and its number
there ("2005-08-01:601.12"). A pair carries the lineage on: renumbered, reworded or both. A split
carries it on in the piece that kept the number (or the first piece); the other pieces start
lineages of their own, born of the split. A merge carries on the lineage of the node whose number
the merged node kept (or the first); the others end there, merged into it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from crparse.align import Pair, align
from crparse.align.units import Unit, units
from crparse.nodes import Document

TEXT_CHANGES = ("changed", "moved+changed")


class Release(msgspec.Struct, frozen=True):
    date: str | None
    path: str | None


class Step(msgspec.Struct, frozen=True, gc=False):
    """A lineage in one release: its number there, and what happened since the release before."""

    release: int  # index into Lineages.releases
    key: str
    kind: str  # born, unchanged, changed, moved, moved+changed, split, merged
    flags: tuple[str, ...] = ()


class Lineage(msgspec.Struct, frozen=True):
    id: str  # "<date born>:<number there>"
    steps: tuple[Step, ...]
    end: str | None = None  # "removed" or "merged" when it ends before the last release
    born_of: str | None = None  # the lineage it was split off
    merged_into: str | None = None


class Lineages(msgspec.Struct, frozen=True):
    releases: tuple[Release, ...]
    lineages: dict[str, Lineage]
    at: tuple[dict[str, str], ...]  # per release: node key -> lineage id

    def of(self, key: str, release: int = -1) -> Lineage:
        """The lineage of the node numbered `key` in a release (default: the newest)."""
        return self.lineages[self.at[release][key]]

    def stale_numbers(self) -> dict[str, list[tuple[int, str]]]:
        """Numbers that meant one rule in one release and another rule in another: number ->
        [(first release it meant this lineage, lineage id), ...] in order."""
        seen: dict[str, list[tuple[int, str]]] = {}
        for index, mapping in enumerate(self.at):
            for key, lid in mapping.items():
                runs = seen.setdefault(key, [])
                if not runs or runs[-1][1] != lid:
                    runs.append((index, lid))
        return {key: runs for key, runs in seen.items() if len({lid for _, lid in runs}) > 1}


def _release(doc: Document) -> Release:
    return Release(doc.effective_date, doc.source.path)


def chain(docs: Sequence[Document], *, progress: Callable[[int, int], None] | None = None) -> Lineages:
    """The lineages of the nodes of `docs`, which are in date order."""
    if not docs:
        return Lineages((), {}, ())
    previous = units(docs[0])
    keys = [[u.key for u in previous]]
    steps: list[tuple[Pair, ...]] = []
    for index in range(1, len(docs)):
        current = units(docs[index])
        steps.append(align(docs[index - 1], docs[index], old_units=previous, new_units=current).pairs)
        keys.append([u.key for u in current])
        previous = current
        if progress is not None:
            progress(index, len(docs) - 1)
    return link(tuple(_release(d) for d in docs), keys, steps)


def link(releases: Sequence[Release], keys: Sequence[Sequence[str]], steps: Sequence[Sequence[Pair]]) -> Lineages:
    """The lineages, from the node keys of each release and the pairs of each consecutive two
    (steps[i] pairs release i with release i + 1): the chaining alone, which the store runs on
    the pairs it holds without parsing anything."""
    name = lambda index, key: f"{releases[index].date or index}:{key}"  # noqa: E731
    history: dict[str, list[Step]] = {}
    end: dict[str, str] = {}
    born_of: dict[str, str] = {}
    merged_into: dict[str, str] = {}
    current = {}
    for key in keys[0]:
        lid = name(0, key)
        current[key] = lid
        history[lid] = [Step(0, key, "born")]
    at = [current]
    for index, pairs in enumerate(steps, 1):
        old_ids, new_ids = at[-1], {}
        pieces: dict[str, list[Pair]] = {}
        merging: dict[str, list[Pair]] = {}
        for p in pairs:
            if p.kind == "split":
                pieces.setdefault(p.old, []).append(p)
            elif p.kind == "merged":
                merging.setdefault(p.new, []).append(p)
            elif p.old is None:
                lid = name(index, p.new)
                history[lid] = [Step(index, p.new, "born")]
                new_ids[p.new] = lid
            elif p.new is None:
                end[old_ids[p.old]] = "removed"
            else:
                lid = old_ids[p.old]
                history[lid].append(Step(index, p.new, p.kind, p.flags))
                new_ids[p.new] = lid
        for old, split in pieces.items():
            keeper = next((p for p in split if p.new == old), split[0])
            lid = old_ids[old]
            for p in split:
                if p is keeper:
                    history[lid].append(Step(index, p.new, "split", p.flags))
                    new_ids[p.new] = lid
                else:
                    child = name(index, p.new)
                    history[child] = [Step(index, p.new, "born", ("split",))]
                    born_of[child] = lid
                    new_ids[p.new] = child
        for new, merged in merging.items():
            keeper = next((p for p in merged if p.old == new), merged[0])
            lid = old_ids[keeper.old]
            history[lid].append(Step(index, new, "merged", keeper.flags))
            new_ids[new] = lid
            for p in merged:
                if p is not keeper:
                    end[old_ids[p.old]] = "merged"
                    merged_into[old_ids[p.old]] = lid
        at.append(new_ids)
    lineages = {
        lid: Lineage(lid, tuple(s), end.get(lid), born_of.get(lid), merged_into.get(lid)) for lid, s in history.items()
    }
    return Lineages(tuple(releases), lineages, tuple(at))
