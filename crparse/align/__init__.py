"""Alignment of two releases: which node of the new one each node of the old one became.

    >>> import crparse
    >>> from crparse.align import align
    >>> a = align(crparse.parse("old.txt"), crparse.parse("new.txt"))   # doctest: +SKIP
    >>> a.counts()["moved"]                                            # doctest: +SKIP

`text` folds typography and masks cited numbers, `units` lists what is aligned, `match` pairs
them, `pairs` is the vocabulary (Pair, Alignment) the diff, lineage and store read.
"""

from crparse.align.pairs import KINDS, Alignment, Pair

__all__ = ["KINDS", "Alignment", "Pair", "align"]


def align(old, new, **units) -> Alignment:
    """Pair every node of `old` with its counterpart in `new` (crparse.align.match)."""
    from crparse.align.match import align as _align

    return _align(old, new, **units)
