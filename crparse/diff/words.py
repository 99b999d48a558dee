"""Word-level diff of two texts: what a reader needs to see of a changed rule.

The diff is over words, punctuation and white space (crparse.align.text.words), by longest
common subsequence (rapidfuzz's Indel, in C): an edit is a deletion and an insertion, never a
character-level tangle. Joined, the "=" and "-" pieces give the old text back and the "=" and
"+" pieces the new one (tests check it).
"""

from __future__ import annotations

from rapidfuzz.distance import Indel

from crparse.align.text import words

Op = str  # "=", "-", "+"

# The longest common subsequence costs time in the product of the two texts' lengths (in words,
# blanks and punctuation): the longest rule has ~3,000; two texts of 300,000 would take minutes.
# Past this product the diff keeps the common beginning and end and shows the middle replaced.
MAX_CELLS = 64_000_000


def _coarse(a: list[str], b: list[str]) -> list[tuple[Op, str]]:
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    out: list[tuple[Op, str]] = []
    for op, text in (("=", "".join(a[:start])), ("-", "".join(a[start:len(a) - end])),
                     ("+", "".join(b[start:len(b) - end])), ("=", "".join(a[len(a) - end:]))):
        if text:
            _add(out, op, text)
    return out


def word_diff(old: str, new: str) -> list[tuple[Op, str]]:
    """[(op, text), ...]: runs of kept ("="), deleted ("-") and inserted ("+") text, a deletion
    before the insertion that replaces it."""
    if old == new:
        return [("=", old)] if old else []
    a, b = words(old), words(new)
    if len(a) * len(b) > MAX_CELLS:
        return _coarse(a, b)
    out: list[tuple[Op, str]] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            _add(out, "=", "".join(a[op.src_start : op.src_end]))
        else:
            if op.src_end > op.src_start:
                _add(out, "-", "".join(a[op.src_start : op.src_end]))
            if op.dest_end > op.dest_start:
                _add(out, "+", "".join(b[op.dest_start : op.dest_end]))
    return _tidy(out)


def _add(out: list[tuple[Op, str]], op: Op, text: str) -> None:
    if out and out[-1][0] == op:
        out[-1] = (op, out[-1][1] + text)
    else:
        out.append((op, text))


def _tidy(out: list[tuple[Op, str]]) -> list[tuple[Op, str]]:
    """Deletions before insertions within each run of edits, and a lone blank kept between two
    edits folded into them: "-a + b" reads better than "-a = ' ' +b"."""
    tidy: list[tuple[Op, str]] = []
    i = 0
    while i < len(out):
        if out[i][0] == "=" and not (0 < i < len(out) - 1 and out[i][1].isspace()):
            _add(tidy, "=", out[i][1])
            i += 1
            continue
        deleted, inserted = [], []
        while i < len(out) and (out[i][0] != "=" or (0 < i < len(out) - 1 and out[i][1].isspace())):
            op, text = out[i]
            if op == "=":
                deleted.append(text)
                inserted.append(text)
            else:
                (deleted if op == "-" else inserted).append(text)
            i += 1
        if deleted:
            _add(tidy, "-", "".join(deleted))
        if inserted:
            _add(tidy, "+", "".join(inserted))
    return tidy


def old_side(diff: list[tuple[Op, str]]) -> str:
    return "".join(t for op, t in diff if op != "+")


def new_side(diff: list[tuple[Op, str]]) -> str:
    return "".join(t for op, t in diff if op != "-")
