"""Bad input never escapes as a traceback, and every line is still accounted for.

Property-based: random bytes, documents assembled from real line shapes, shuffled, truncated
and spliced fixtures, lines in mixed encodings. Linearity is checked by counting the Python
calls a parse makes (deterministic), not by timing.
"""

from __future__ import annotations

import sys

from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crparse
from crparse.errors import CrparseError

FIXTURE_TEXTS = [(FIXTURES / name).read_text(encoding="utf-8") for name in ("modern.txt", "wrapped1999.txt")]
FIXTURE_LINES = [line for text in FIXTURE_TEXTS for line in text.split("\n")]

SHAPES = st.sampled_from(
    FIXTURE_LINES
    + [
        "", "", "", "Glossary", "Credits", "Contents", "Index", "1. Game Concepts", "100. General", "100.1.",
        "100.1a", "100.1. Text.", "  214.6a Indented.", "305.3.The", "606. 8b Spaced.", "Example:", "EXAMPLE: x",
        "Example:Example: y", "     indented continuation", "-----", "=====", "|  |  |", "f", "0", "\t", "Добавить",
        "702.179. Gift", "1. Text on an object.", "These rules are effective as of January 16, 2026.",
        "\tmana ability, 214.9f, 406.1", "See rule", "103.4. If a player", "Magic\ufffd", "999.999z Z.",
    ]
)


def check(data) -> None:
    """Either a clean refusal, or a document that holds every non-blank line."""
    try:
        doc = crparse.parse(data)
    except CrparseError as err:
        assert str(err)  # one line the CLI prints
        return
    assert not [d for d in doc.diagnostics if d.code == "unaccounted-lines"], doc.diagnostics
    for ref in crparse.references(doc):  # the reference layer reads any tree the parser builds
        assert 0 <= ref.start < ref.end and ref.status in ("resolved", "dangling", "external")
    crparse.ReferenceGraph(doc).broken()
    if isinstance(data, str):
        covered = set()
        for first, last, _ in doc.accounted_lines():
            covered.update(range(first, last + 1))
        for i, line in enumerate(data.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
            if line.strip():
                assert i in covered, (i, line)


quick = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@quick
@given(st.binary(max_size=3000))
def test_random_bytes(data):
    check(data)


@quick
@given(st.lists(SHAPES, max_size=60))
def test_documents_of_real_line_shapes(lines):
    check("\n".join(lines))


@quick
@given(st.permutations(FIXTURE_TEXTS[0].split("\n")))
def test_shuffled_lines(lines):
    check("\n".join(lines))


@quick
@given(st.integers(0, len(FIXTURE_TEXTS[1])), st.integers(0, len(FIXTURE_TEXTS[0])))
def test_truncated_and_spliced(cut_a, cut_b):
    check(FIXTURE_TEXTS[1][:cut_a])
    check(FIXTURE_TEXTS[1][:cut_a] + FIXTURE_TEXTS[0][cut_b:])


@quick
@given(st.lists(st.sampled_from(["utf-8", "cp1252", "mac_roman", "cp437", "utf-16-le"]), min_size=1, max_size=8))
def test_mixed_encodings(encodings):
    lines = FIXTURE_TEXTS[0].split("\n")
    chunk = max(1, len(lines) // len(encodings))
    data = b""
    for i, enc in enumerate(encodings):
        part = "\n".join(lines[i * chunk : (i + 1) * chunk]) + "\n"
        data += part.encode(enc, errors="replace")
    check(data)


def test_absurd_single_line_inputs():
    check(b"x" * 5_000_000)
    check(b"100.1. " + b"word " * 1_000_000)
    check(b"100.1. A.\n\n100.2. " + b"(" * 2_000_000)
    check("\n" * 1_000_000 + "100.1. A.\n100.2. B.\n")


def _calls(text: str) -> int:
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    crparse.parse(text)  # warm caches (grammar) outside the measurement
    sys.setprofile(profile)
    try:
        crparse.parse(text)
    finally:
        sys.setprofile(None)
    return count


def test_work_grows_linearly_with_input():
    base = FIXTURE_TEXTS[0]
    one = _calls(base)
    eight = _calls(base + "\n" + "\n".join([base] * 7))
    assert eight <= 8 * one * 1.25, (one, eight)
