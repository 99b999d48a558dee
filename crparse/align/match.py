"""Aligning two releases: which node of the new one each node of the old one became.

Numbers are not identities (most releases insert a rule and push later numbers up; 2009
renumbered everything), and text is not either (a rule is reworded, or two rules read alike). So
the alignment uses both, globally, in passes that each leave less to the next:

1. **exact**: a unit whose text (typography folded, cited numbers masked) occurs once in each
   release, in the same class, is paired; glossary entries by their term.
2. **sections and parts**: by the votes of their rules paired so far (a section whose rules went
   to one new section became it) and the similarity of their titles, one optimal assignment.
3. **the residue of rules**: candidates from an index of words (not all pairs), scored by text
   similarity (rapidfuzz) plus structure (their parents are paired, their neighbours are paired,
   same number), then an optimal assignment (scipy's linear_sum_assignment) for each connected
   group of candidates. Run twice: the first run's pairs make parents and neighbours of the
   second.
4. **splits and merges**: an unpaired rule whose text is part of an old rule paired with its
   neighbour was split off it (and the other way round).

What remains is added or removed. Each pair is then classified (pairs.KINDS), checking its cited
numbers against the alignment's own renumbering.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from rapidfuzz import fuzz

from crparse.align.pairs import Alignment, Pair
from crparse.align.text import PLACEHOLDER
from crparse.align.units import Unit, prepare, units, unlink
from crparse.nodes import Document

# How alike two rules must read to be paired: less where the structure agrees. A rule that moved
# to another section must read much alike; one under its parent's counterpart less; one also
# beside its neighbour's counterpart (in its old place) least.
MIN_SIMILARITY_ELSEWHERE = 0.6
MIN_SIMILARITY = 0.45
MIN_SIMILARITY_IN_PLACE = 0.3
# A glossary entry's identity is its term: another term is the same entry only when its
# definition reads almost the same (Converted Mana Cost -> Mana Value).
MIN_SIMILARITY_GLOSSARY = 0.75
CANDIDATES = 8  # from the word index, per old unit
SIBLING_CANDIDATES = 40  # children of the parent's pair, per old unit
SPLIT_CONTAINMENT = 85  # partial_ratio of a piece in the text it was split from
# The comparing an alignment may do, at most WORK_FACTOR times the size of both releases (their
# characters, and CALL_COST for each unit): a comparison costs its two lengths, their product over
# 64 (the bit-parallel edit distance; twice the product for a piece looked for in a text), and
# CALL_COST for the call. The 2009 overhaul takes 57 times, 2005 -> 2026 50 times, a pair of
# consecutive releases under 2. Past it (or CALLS_PER_UNIT) the units not yet
# paired stay added and removed, and the alignment says it was cut short: 4 MB of near-identical
# rules would otherwise take minutes.
WORK_FACTOR = 150
CALL_COST = 256
# ... and at most this many comparisons for each unit of both releases: the 2009 overhaul makes
# 2.6, consecutive releases fewer; 20,000 rules reading "Reserved." would make 40 each.
CALLS_PER_UNIT = 10
MAX_CALLS = 250_000  # and never more (the 2009 overhaul makes 44,000 in all)
# A text printed more often than this in both releases, as often in each, is paired in order: the
# most repeated text of a release ("Reserved.", a section title "General") is printed a few times.
SAME_TEXT_IN_ORDER = 50
# A group of candidates larger than this (rows x columns) is assigned greedily, best first: the
# optimal assignment holds the group's matrix whole (10,000 x 9,000 floats: 700 MB).
MAX_MATRIX = 4_000_000


class _Exhausted(Exception):
    """The work budget of an alignment is spent."""


class _Budget:
    """Characters compared (`limit`) and comparisons made (`calls`, each a few microseconds of
    Python around the comparison itself)."""

    def __init__(self, limit: int, calls: int):
        self.limit, self.spent = limit, 0
        self.calls, self.made = calls, 0

    def charge(self, cost: int) -> None:
        self.spent += cost
        self.made += 1
        if self.spent > self.limit or self.made > self.calls:
            raise _Exhausted

    def ratio(self, a: str, b: str) -> float:
        if len(a) * len(b) > MAX_EXACT_PRODUCT:
            self.charge(WORD_COST * (len(a) + len(b)) + CALL_COST)
            return _word_ratio(a, b)
        self.charge(len(a) + len(b) + (len(a) * len(b) >> 6) + CALL_COST)
        return fuzz.ratio(a, b)

    def partial_ratio(self, a: str, b: str) -> float:
        # the best window of the longer text costs far more than a ratio (a 4 KB piece in a
        # 34 KB text: 2.5 s): past MAX_PARTIAL_PRODUCT, the share of the piece's words found
        if len(a) * len(b) > MAX_PARTIAL_PRODUCT or min(len(a), len(b)) > MAX_PARTIAL_PIECE:
            self.charge(len(a) + len(b) + CALL_COST)
            return 100.0 * _contained(a, b)
        self.charge(2 * len(a) * len(b) + CALL_COST)
        return fuzz.partial_ratio(a, b)


# Two texts whose lengths multiply past this are compared by their words, not character by
# character: the edit distance costs time in that product (two rules of 650 KB: 12 s). The
# longest rules of any release multiply to about 10^7.
MAX_EXACT_PRODUCT = 10**8
# ... at this cost a character: counting words in Python takes ~40 times what the edit distance
# does for the same charge (160 rules of 25 KB each side, all reworded: 13,000 comparisons by
# words, 16 s within the budget: sweep 34). No real release has a rule that long.
WORD_COST = 16
# ... and a piece looked for in a text (a split or merge) by its words past these: the pieces split
# off real rules are a few hundred characters, their wholes a few thousand.
MAX_PARTIAL_PRODUCT = 2_000_000
MAX_PARTIAL_PIECE = 1_000


def _similarity(a: str, b: str) -> float:
    """0-100, as fuzz.ratio; by words past MAX_EXACT_PRODUCT."""
    return _word_ratio(a, b) if len(a) * len(b) > MAX_EXACT_PRODUCT else fuzz.ratio(a, b)


def _word_ratio(a: str, b: str) -> float:
    """fuzz.ratio's measure (twice the common part over both lengths) over the texts' words,
    in linear time."""
    wa, wb = Counter(a.split()), Counter(b.split())
    common = sum((wa & wb).values())
    total = sum(wa.values()) + sum(wb.values())
    return 100.0 * 2 * common / total if total else 100.0


def _contained(piece: str, whole: str) -> float:
    """The share of `piece`'s words found in `whole` (0-1), in linear time."""
    wp, ww = Counter(piece.split()), Counter(whole.split())
    total = sum(wp.values())
    return sum((wp & ww).values()) / total if total else 1.0


def align(old: Document, new: Document, *, old_units: list[Unit] | None = None,
          new_units: list[Unit] | None = None) -> Alignment:
    """`old_units`/`new_units`: the documents' units when the caller has them (a chain of
    releases aligns each document twice, as new and then as old: units(doc) once is enough)."""
    a = old_units if old_units is not None else units(old)
    b = new_units if new_units is not None else units(new)
    aligner = _Aligner(a, b)
    pairs = tuple(aligner.run())
    for made, given in ((a, old_units), (b, new_units)):
        if given is None:  # made here, for this alignment only: freed on return (see unlink)
            unlink(made)
    return Alignment(old, new, pairs, complete=not aligner.cut_short)


class _Aligner:
    def __init__(self, a: list[Unit], b: list[Unit]):
        self.a, self.b = a, b
        self.a_by_key = {u.key: u for u in a}
        self.b_by_key = {u.key: u for u in b}
        self.a_cls: dict[str, list[Unit]] = defaultdict(list)
        self.b_cls: dict[str, list[Unit]] = defaultdict(list)
        for u in a:
            self.a_cls[u.cls].append(u)
        for u in b:
            self.b_cls[u.cls].append(u)
        self.b_children: dict[str, list[Unit]] = defaultdict(list)
        for u in b:
            if u.parent is not None:
                self.b_children[u.parent].append(u)
        self.pair: dict[Unit, Unit] = {}  # old unit -> new unit (units hash by identity)
        self.back: dict[Unit, Unit] = {}  # new unit -> old unit
        self.split: dict[Unit, list[Unit]] = {}  # old unit -> its pieces, beyond its pair
        self.merged: dict[Unit, list[Unit]] = {}  # new unit -> the old units merged into it
        self.as_printed: set[Unit] = set()  # old units paired on their text as printed
        size = sum(len(u.text) + CALL_COST for u in a) + sum(len(u.text) + CALL_COST for u in b)
        self.budget = _Budget(WORK_FACTOR * size, min(CALLS_PER_UNIT * (len(a) + len(b)) + 10_000, MAX_CALLS))
        self.cut_short = False

    # -- bookkeeping -------------------------------------------------------------------------

    def _link(self, o: Unit, n: Unit) -> None:
        self.pair[o] = n
        self.back[n] = o

    def _free(self, us: Iterable[Unit], side: dict[Unit, Unit]) -> list[Unit]:
        return [u for u in us if u not in side]

    def _parent_of(self, u: Unit, by_key: dict[str, Unit]) -> Unit | None:
        return by_key.get(u.parent) if u.parent else None

    def _parents_paired(self, o: Unit, n: Unit) -> bool:
        po, pn = self._parent_of(o, self.a_by_key), self._parent_of(n, self.b_by_key)
        return po is not None and pn is not None and self.pair.get(po) is pn

    def _neighbours_paired(self, o: Unit, n: Unit) -> bool:
        return (o.previous is not None and n.previous is not None and self.pair.get(o.previous) is n.previous) or (
            o.following is not None and n.following is not None and self.pair.get(o.following) is n.following
        )

    # -- the passes ----------------------------------------------------------------------------

    def run(self) -> list[Pair]:
        self._as_printed()
        prepare(self._free(self.a, self.pair) + self._free(self.b, self.back))
        self._exact()
        self._glossary_terms()
        try:
            self._containers("section", "rule")
            self._residue("section")  # by their titles alone: sections first, they are the rules' parents
            self._containers("part", "section")
            # rules before subrules, so that a subrule's parent is paired when it is scored (two
            # subrules with the same words under different rules go where their rules went), then
            # all that is left again, with the pairs of the first runs as parents and neighbours
            self._residue("rule", subrules=False)
            self._residue("rule", subrules=True)
            self._residue("rule")
            self._residue("glossary")
            self._splits_and_merges()
        except _Exhausted:
            self.cut_short = True
        return self._pairs()

    def _as_printed(self) -> None:
        """Units whose printed text occurs once in each release: most of any release, paired
        before any folding or masking (which then runs on the rest only)."""
        old: dict[tuple[str, str], list[Unit]] = defaultdict(list)
        for u in self.a:
            old[(u.cls, u.text)].append(u)
        new: dict[tuple[str, str], list[Unit]] = defaultdict(list)
        for u in self.b:
            new[(u.cls, u.text)].append(u)
        for text, os_ in old.items():
            ns = new.get(text)
            if ns is None:
                continue
            if len(os_) == 1 and len(ns) == 1:
                self._link(os_[0], ns[0])
                self.as_printed.add(os_[0])
            elif len(os_) == len(ns) and len(os_) > SAME_TEXT_IN_ORDER:
                # hundreds of units that read alike ("Reserved." by the thousand, made to be
                # aligned): paired in their order, not each scored against its forty siblings
                for o, n in zip(os_, ns):
                    self._link(o, n)
                    self.as_printed.add(o)

    def _exact(self) -> None:
        for cls in ("rule", "glossary", "section", "part"):
            old = defaultdict(list)
            for u in self._free(self.a_cls[cls], self.pair):
                old[u.masked].append(u)
            new = defaultdict(list)
            for u in self._free(self.b_cls[cls], self.back):
                new[u.masked].append(u)
            for text, os_ in old.items():
                ns = new.get(text)
                if not ns:
                    continue
                # The same text more than once ("Reserved.", the section title "General") is
                # left to the passes that see structure.
                if len(os_) == 1 and len(ns) == 1:
                    self._link(os_[0], ns[0])

    def _glossary_terms(self) -> None:
        terms = {u.key.casefold(): u for u in self._free(self.b_cls["glossary"], self.back)}
        for o in self._free(self.a_cls["glossary"], self.pair):
            n = terms.get(o.key.casefold())
            if n is not None and n not in self.back:
                self._link(o, n)

    def _containers(self, cls: str, member_cls: str) -> None:
        """Sections (or parts) by where their members went, and by their titles."""
        old = self._free(self.a_cls[cls], self.pair)
        new = self._free(self.b_cls[cls], self.back)
        if not old or not new:
            return
        votes: Counter[tuple[str, str]] = Counter()
        size: Counter[str] = Counter()
        for o in self.a_cls[member_cls]:
            container = _container(o, cls)
            size[container] += 1
            n = self.pair.get(o)
            if n is not None:
                votes[(container, _container(n, cls))] += 1
        scores: dict[tuple[int, int], float] = {}
        try:
            for i, o in enumerate(old):
                for j, n in enumerate(new):
                    share = votes[(o.key, n.key)] / size[o.key] if size[o.key] else 0.0
                    title = self.budget.ratio(o.masked, n.masked) / 100
                    score = 0.6 * share + 0.4 * title
                    if share >= 0.3 or title >= 0.8:
                        scores[(i, j)] = score
        finally:  # what was scored before the budget ran out is still assigned
            for i, j in _assign(scores):
                self._link(old[i], new[j])

    def _residue(self, cls: str, *, subrules: bool | None = None) -> None:
        """Pair the free units of `cls` (`subrules`: only the old subrules, or only the old
        rules; None: both) with free units of the new release."""
        old = self._free(self.a_cls[cls], self.pair)
        if subrules is not None:
            old = [u for u in old if u.key[-1].isalpha() == subrules]
        new = self._free(self.b_cls[cls], self.back)
        if not old or not new:
            return
        index = _WordIndex(new)
        new_pos = {n: j for j, n in enumerate(new)}
        scores: dict[tuple[int, int], float] = {}
        try:
            for i, o in enumerate(old):
                candidates = {new_pos[n] for n in index.candidates(o.core, CANDIDATES)}
                same = self.b_by_key.get(o.key)
                if same is not None and same in new_pos:
                    candidates.add(new_pos[same])
                for n in self._structural(o):
                    if n in new_pos:
                        candidates.add(new_pos[n])
                self.budget.charge(CALL_COST)  # the candidates' own finding
                for j in candidates:
                    score = self._score(o, new[j])
                    if score is not None:
                        scores[(i, j)] = score
        finally:  # what was scored before the budget ran out is still assigned
            for i, j in _assign(scores):
                self._link(old[i], new[j])

    def _structural(self, o: Unit) -> Iterable[Unit]:
        """The new units standing where `o` stood: after the pair of its previous sibling, before
        the pair of the next, among the children of its parent's pair."""
        if o.previous is not None and (p := self.pair.get(o.previous)) is not None and p.following is not None:
            yield p.following
        if o.following is not None and (f := self.pair.get(o.following)) is not None and f.previous is not None:
            yield f.previous
        parent = self._parent_of(o, self.a_by_key)
        if parent is not None and (p := self.pair.get(parent)) is not None:
            same_place = self.b_by_key.get(p.key + o.key[len(parent.key):])  # 313.1 under 313 -> 513.1
            if same_place is not None:
                yield same_place
            # the other children of the parent's pair: formulaic rules ("Third, the active player
            # gets priority") share all their words with rules of other steps, and the word
            # index ranks those alike; under its own parent the right one scores higher
            yield from self.b_children.get(p.key, ())[:SIBLING_CANDIDATES]

    def _score(self, o: Unit, n: Unit) -> float | None:
        similarity = max(self.budget.ratio(o.core, n.core), self.budget.ratio(o.masked, n.masked)) / 100
        if o.cls == "glossary":
            return similarity if similarity >= MIN_SIMILARITY_GLOSSARY else None
        parents = self._parents_paired(o, n)
        neighbours = self._neighbours_paired(o, n)
        if parents:
            floor = MIN_SIMILARITY_IN_PLACE if neighbours else MIN_SIMILARITY
        else:
            floor = MIN_SIMILARITY_ELSEWHERE
        if similarity < floor:
            return None
        return similarity + 0.15 * parents + 0.1 * neighbours + 0.05 * (o.key == n.key)

    def _splits_and_merges(self) -> None:
        """A new rule that reads as a part of the old rule its neighbour or its parent came from,
        which lost that text, was split off it (406.3 -> 406.3 + 406.3a; 108.2 -> 108.2, 108.2a,
        108.2b); an old rule that reads as a part of what its neighbour or parent became, which
        gained that text, was merged into it."""
        for n in self._free(self.b_cls["rule"], self.back):
            for relative in self._relatives(n, self.b_by_key):
                o = self.back.get(relative)
                if o is None:
                    continue
                prepare([n, o, relative])
                if self._part_of(n, o) and self.budget.ratio(o.masked, relative.masked) < 99:
                    self.split.setdefault(o, []).append(n)
                    self.back[n] = o
                    break
        for o in self._free(self.a_cls["rule"], self.pair):
            for relative in self._relatives(o, self.a_by_key):
                n = self.pair.get(relative)
                if n is None:
                    continue
                prepare([o, n, relative])
                if self._part_of(o, n) and self.budget.ratio(relative.masked, n.masked) < 99:
                    self.merged.setdefault(n, []).append(o)
                    self.pair[o] = n
                    break

    def _part_of(self, piece: Unit, whole: Unit) -> bool:
        """`piece` reads as a part of `whole` (it was split off it, or merged into it)."""
        if len(piece.core) < 20 or len(piece.core) >= len(whole.masked):
            return False
        return self.budget.partial_ratio(piece.core, whole.masked) >= SPLIT_CONTAINMENT

    def _relatives(self, u: Unit, by_key: dict[str, Unit]) -> Iterable[Unit]:
        for relative in (u.previous, u.following, self._parent_of(u, by_key)):
            if relative is not None and relative.cls == "rule":
                yield relative

    # -- the result ----------------------------------------------------------------------------

    def _pairs(self) -> list[Pair]:
        merged_old = {x for ms in self.merged.values() for x in ms}
        renumbered = {}
        for o in self.a:
            n = self.pair.get(o)
            if n is not None and o not in merged_old:
                renumbered[o.key] = n.key
        # texts paired as printed whose words cite a number that now names another node (moved,
        # or gone): their citations are checked against the renumbering (the rest cannot differ)
        moved = {k for k, v in renumbered.items() if k != v} | {o.key for o in self.a if o not in self.pair}
        citing = _citing([o for o in self.a if o in self.as_printed], moved)
        prepare(citing + [self.pair[o] for o in citing])
        placed: list[tuple[tuple[int, int, int], Pair]] = []
        last_new = -1
        for o in self.a:
            n = self.pair.get(o)
            if n is None:
                placed.append(((last_new, 1, o.order), Pair(o.key, None, "removed", similarity=0.0)))
                continue
            last_new = n.order
            if o in self.split:
                for piece in (n, *self.split[o]):
                    placed.append(((piece.order, 0, o.order), self._classify(o, piece, renumbered, "split")))
            elif o in merged_old or n in self.merged:
                placed.append(((n.order, 0, o.order), self._classify(o, n, renumbered, "merged")))
            else:
                placed.append(((n.order, 0, o.order), self._classify(o, n, renumbered, None)))
        for n in self.b:
            if n not in self.back:
                placed.append(((n.order, 0, -1), Pair(None, n.key, "added", similarity=0.0)))
        placed.sort(key=lambda p: p[0])
        return [p for _, p in placed]

    def _classify(self, o: Unit, n: Unit, renumbered: dict[str, str], kind: str | None) -> Pair:
        """The kind of a pair, from its rule's own text (title and text); its examples are
        compared too, and a change in them is the flag `examples`."""
        if o in self.as_printed and kind is None:
            moved = "moved" if o.key != n.key else "unchanged"
            if o.cited and tuple(renumbered.get(c, c) for c in o.cited) != n.cited:
                # the same words, but a cited number now names another rule than the one cited
                return Pair(o.key, n.key, moved, ("reference-retargeted",))
            return Pair(o.key, n.key, moved)
        prepare([o, n])
        flags = []
        if o.cited != n.cited and len(o.cited) == len(n.cited):
            # the same number of citations: each names the rule the old one became, or not
            mapped = tuple(renumbered.get(c, c) for c in o.cited)
            flags.append("references-renumbered" if mapped == n.cited else "reference-retargeted")
        examples_changed = o.masked[len(o.core):] != n.masked[len(n.core):]
        if examples_changed:
            flags.append("examples")
        text_change = o.core != n.core or "reference-retargeted" in flags and _retargeted_in_core(o, n, renumbered)
        if o.text != n.text and o.masked == n.masked and "reference-retargeted" not in flags and _typography_differs(o, n):
            flags.append("typography")
        similarity = 1.0 if o.folded == n.folded else round(_similarity(o.folded, n.folded) / 100, 4)
        if kind is None:
            moved = o.key != n.key
            kind = ("moved+changed" if moved else "changed") if text_change else ("moved" if moved else "unchanged")
        return Pair(o.key, n.key, kind, tuple(flags), similarity)


def _retargeted_in_core(o: Unit, n: Unit, renumbered: dict[str, str]) -> bool:
    """A citation of the rule's own text (not of an example) names another rule than before."""
    k, m = o.core.count(PLACEHOLDER), n.core.count(PLACEHOLDER)
    return k != m or tuple(renumbered.get(c, c) for c in o.cited[:k]) != n.cited[:m]


def _typography_differs(o: Unit, n: Unit) -> bool:
    """The printed texts differ in more than the cited numbers."""
    return _NUMBERS.sub("#", o.text) != _NUMBERS.sub("#", n.text)


_NUMBERS = re.compile(r"\d+(?:\.\d+[a-z]?)?")
_MAY_CITE = re.compile(r"\d\d\d(?:\.\d+[a-z]?)?")  # a number a text may cite, read loosely


def _citing(us: list[Unit], numbers: set[str]) -> list[Unit]:
    """The units of `us` whose text holds one of `numbers` (read loosely): one scan of all the
    texts joined, which most units pass with no number of interest (a findall each costs 4x).
    A few numbers (consecutive releases move a handful) are first looked for as they are, a
    C search each, and only the texts holding one are scanned: the pattern's pass over a whole
    release takes 10 ms, a search 0.5 ms."""
    if len(numbers) <= FEW_NUMBERS:
        joined = "\n".join(u.text for u in us)
        starts = _starts(us)
        holding: set[int] = set()
        for number in numbers:
            at = joined.find(number)
            while at >= 0:
                holding.add(bisect.bisect_right(starts, at) - 1)
                at = joined.find(number, at + len(number))
        us = [us[i] for i in sorted(holding)]
    starts = _starts(us)
    hits = {bisect.bisect_right(starts, m.start()) - 1
            for m in _MAY_CITE.finditer("\n".join(u.text for u in us)) if m.group() in numbers}
    return [us[i] for i in sorted(hits)]


# Numbers looked for one by one, at most: each search costs a twentieth of the pattern's pass.
FEW_NUMBERS = 8


def _starts(us: list[Unit]) -> list[int]:
    """The offset of each unit's text in their texts joined by line breaks."""
    starts, at = [], 0
    for u in us:
        starts.append(at)
        at += len(u.text) + 1
    return starts


def _container(u: Unit, cls: str) -> str:
    """The section (or part) a unit lies in, from its number."""
    section = u.key.split(".")[0]
    return section if cls == "section" else section[:1]





MAX_POSTINGS = 500  # index entries read for one text's candidates, rarest words first


class _WordIndex:
    """Candidates by shared words, rare words weighing more (idf): a rewritten rule keeps its
    rare words ("legendary", "planeswalker") while its common ones come and go."""

    def __init__(self, us: list[Unit]):
        self.units = us
        self.postings: dict[str, list[int]] = defaultdict(list)
        for j, u in enumerate(us):
            for w in _terms(u.core):
                self.postings[w].append(j)
        total = len(us)
        self.weight_of = {id(js): math.log(1 + total / len(js)) for js in self.postings.values()}

    def candidates(self, text: str, k: int) -> list[Unit]:
        scores: Counter[int] = Counter()
        # rarest words first, and at most MAX_POSTINGS entries read: they weigh the most, and a
        # text of common words only (made to flood the index) costs no more than a real rule
        lists = sorted((js for w in _terms(text) if (js := self.postings.get(w)) is not None and len(js) <= 200), key=len)
        read = 0
        for js in lists:
            weight = self.weight_of[id(js)]
            for j in js:
                scores[j] += weight
            read += len(js)
            if read > MAX_POSTINGS:
                break
        return [self.units[j] for j, _ in scores.most_common(k)]


_TERM = re.compile(r"[a-z]{3,}")


def _terms(text: str) -> set[str]:
    return set(_TERM.findall(text.lower()))


def _assign(scores: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
    """The pairs of greatest total score, each row and column used once: an optimal assignment
    for each connected group of candidate pairs (most groups are a single pair)."""
    if not scores:
        return []
    scores = _near_best(scores)
    out: list[tuple[int, int]] = []
    for group in _components(scores):
        if len(group) == 1:
            out.append(next(iter(group)))
        else:
            out.extend(_optimal(group))
    return out


# A group of this many candidate pairs at most is solved by networkx's matching in Python; a larger
# one by scipy's Jonker-Volgenant in C, which costs ~0.7 s to import: diffs of releases have no
# group that large (the largest, of any two releases of the corpus, has 49), and so never pay it.
# networkx's blossom algorithm is slow on dense groups: 21 groups of 400 units of two unrelated
# releases took 1.3 s each, 18 s for a diff (sweep 28), and 128 of 60 units 0.11 s each (sweep 29).
SMALL_GROUP = 100


# A candidate scoring this much below the best of its row and of its column is in no sensible
# assignment; dropping it splits the 2009 overhaul's one group of 1,300 units into small ones.
MARGIN = 0.2


def _near_best(scores: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    best_row: dict[int, float] = {}
    best_col: dict[int, float] = {}
    for (i, j), s in scores.items():
        if s > best_row.get(i, -1.0):
            best_row[i] = s
        if s > best_col.get(j, -1.0):
            best_col[j] = s
    return {
        (i, j): s for (i, j), s in scores.items()
        if (s >= best_row[i] - MARGIN and s >= best_col[j] - MARGIN) or s == best_row[i] or s == best_col[j]
    }


# A group with at most this many candidate pairs is solved by a search over its matchings
# (bounded by the best each row can still add), with no library to import: the groups of a diff
# of consecutive releases are all this small (the six to nine sections titled "General" are the
# largest), and networkx alone takes 0.2 s to import, half of what the whole diff may take.
TINY_GROUP = 40


def _optimal(scores: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
    if len(scores) <= TINY_GROUP:
        return _searched(scores)
    if len(scores) <= SMALL_GROUP:
        import networkx as nx

        graph = nx.Graph()
        graph.add_weighted_edges_from((("r", i), ("c", j), s) for (i, j), s in scores.items())
        pairs = nx.max_weight_matching(graph)
        return [(a[1], b[1]) if a[0] == "r" else (b[1], a[1]) for a, b in pairs]
    rows = sorted({i for i, _ in scores})
    cols = sorted({j for _, j in scores})
    if len(rows) * len(cols) > MAX_MATRIX:
        return _greedy(scores)
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    row_at = {r: k for k, r in enumerate(rows)}
    col_at = {c: k for k, c in enumerate(cols)}
    matrix = np.zeros((len(rows), len(cols)))
    for (i, j), s in scores.items():
        matrix[row_at[i], col_at[j]] = s
    picked_rows, picked_cols = linear_sum_assignment(matrix, maximize=True)
    return [(rows[r], cols[c]) for r, c in zip(picked_rows, picked_cols) if matrix[r, c] > 0]


def _greedy(scores: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
    """Best first, each row and column once: for groups too large to hold as a matrix (only
    adversarial input makes them: thousands of rules that read alike)."""
    used_rows, used_cols, out = set(), set(), []
    for (i, j), _ in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
        if i not in used_rows and j not in used_cols:
            used_rows.add(i)
            used_cols.add(j)
            out.append((i, j))
    return out


def _searched(scores: dict[tuple[int, int], float]) -> list[tuple[int, int]]:
    """The matching of greatest total score, by depth-first search with a bound: each row takes
    one of its columns or none; a branch stops when even the best remaining rows cannot beat
    the best total found."""
    options: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for (i, j), s in scores.items():
        options[i].append((s, j))
    rows = sorted(options, key=lambda i: -max(options[i])[0])
    for i in rows:
        options[i].sort(reverse=True)
    # the most the rows from k on can add
    bound = [0.0] * (len(rows) + 1)
    for k in range(len(rows) - 1, -1, -1):
        bound[k] = bound[k + 1] + options[rows[k]][0][0]
    best: list = [-1.0, []]

    def search(k: int, total: float, used: set[int], chosen: list[tuple[int, int]]) -> None:
        if total + bound[k] <= best[0]:
            return
        if k == len(rows):
            best[0], best[1] = total, list(chosen)
            return
        i = rows[k]
        for s, j in options[i]:
            if j not in used:
                used.add(j)
                chosen.append((i, j))
                search(k + 1, total + s, used, chosen)
                chosen.pop()
                used.discard(j)
        search(k + 1, total, used, chosen)

    search(0, 0.0, set(), [])
    return best[1]


def _components(scores: dict[tuple[int, int], float]) -> list[dict[tuple[int, int], float]]:
    """The candidate pairs split into groups that share no row or column (union-find)."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in scores:
        ra, rb = find(("r", i)), find(("c", j))
        if ra != rb:
            parent[ra] = rb
    groups: dict[tuple[str, int], dict[tuple[int, int], float]] = defaultdict(dict)
    for (i, j), s in scores.items():
        groups[find(("r", i))][(i, j)] = s
    return list(groups.values())
