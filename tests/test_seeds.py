"""The bundled default input (corpus/, the five seed documents): every word and every line kept.

Each is read by the reader of its format (tests/test_readers.py checks their counts); whatever
the format, no word of the input is lost and no junk gets into a rule.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, lost_words, without_rst_markup

import crparse
from crparse.decode import decode

SEEDS = sorted((ROOT / "corpus").iterdir())


def test_five_seeds_are_bundled():
    assert [p.name[:3] for p in SEEDS] == ["000", "001", "002", "003", "004"]


@pytest.mark.parametrize("path", SEEDS, ids=[p.name[:3] for p in SEEDS])
def test_every_word_and_line_is_kept(path):
    doc = crparse.parse(path)
    text = decode(path.read_bytes()).text
    assert lost_words(doc, without_rst_markup(text) if doc.source.format == "rst" else text) == {}
    assert not [d for d in doc.diagnostics if d.code == "unaccounted-lines"]


def test_web_junk_stays_out_of_rules():
    doc = crparse.parse(ROOT / "corpus" / "003_6b57182f28d44637.txt")
    assert not any(re.search("[А-Яа-я]", r.text) for r in doc.rules)
    assert sum(1 for r in doc.residue if re.search("[А-Яа-я]", r.text)) == 4
    assert doc.residue[0].reason == "text-before-first-rule"
    assert doc.rule("602.5").text.endswith("the combat damage step proceeds")


def test_plain_text_seeds_counts():
    # Seeds 003 and 004 are plain text: their expected counts (numbers, examples) hold already.
    for name, numbers, examples in (("003_6b57182f28d44637.txt", 15, 6), ("004_cbde75ccc83e26bf.txt", 22, 5)):
        doc = crparse.parse(ROOT / "corpus" / name)
        units = [r for r in doc.rules if r.kind in ("rule", "subrule")]
        assert (len(units), sum(len(r.examples) for r in doc.rules)) == (numbers, examples)
        assert doc.fragment is not None
