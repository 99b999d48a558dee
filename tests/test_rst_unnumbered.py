"""A single-file reST edition whose part and section headings are unnumbered titles ("Game
Concepts" over `===`, "General" over `---`): the numbers stand only in its Contents list (nested
lists of references, `1. `Game Concepts`_`, `100. `General`__`) and in the rules printed as
paragraphs under each heading (`100.1. These Magic rules ...`). Fixtures in
tests/format_fixtures/unnumbered/: the edition, the edition without its Contents, and the edition
with a Contents that disagrees with its rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import lost_words, without_rst_markup

import crparse

UNNUMBERED = Path(__file__).resolve().parent / "format_fixtures" / "unnumbered"

HEADINGS = [
    ("1", "part", None, "Game Concepts"),
    ("100", "section", "1", "General"),
    ("101", "section", "1", "The Magic Golden Rules"),
    ("102", "section", "1", "Players"),
    ("8", "part", None, "Multiplayer Rules"),
    ("800", "section", "8", "General"),
    ("801", "section", "8", "Limited Range of Influence Option"),
]
RULES = [
    ("100.1", "100"), ("100.1a", "100.1"), ("100.1b", "100.1"), ("100.2", "100"),
    ("101.1", "101"), ("101.2", "101"), ("101.2a", "101.2"),
    ("102.1", "102"), ("102.2", "102"),
    ("800.1", "800"), ("800.2", "800"), ("800.2a", "800.2"),
    ("801.1", "801"), ("801.2", "801"),
]


def headings(doc) -> list[tuple]:
    return [(r.number, r.kind, r.parent, r.title) for r in doc.rules if r.kind in ("part", "section")]


def rules(doc) -> list[tuple]:
    return [(r.number, r.parent) for r in doc.rules if r.kind in ("rule", "subrule")]


def codes(doc, code: str) -> list:
    return [d for d in doc.diagnostics if d.code == code]


def test_headings_numbered_from_the_contents():
    doc = crparse.parse(UNNUMBERED / "rules.rst")
    assert doc.source.format == "rst" and doc.fragment is None
    assert headings(doc) == HEADINGS
    assert rules(doc) == RULES
    assert not codes(doc, "missing-parent") and not codes(doc, "rst-heading-number")
    # The Contents stays the document's Contents; references the markup left unresolved
    # (`General`__ has no anonymous target) read as their titles.
    assert [(c.number, c.title) for c in doc.contents] == [
        ("1", "Game Concepts"), ("100", "General"), ("101", "The Magic Golden Rules"), ("102", "Players"),
        ("8", "Multiplayer Rules"), ("800", "General"), ("801", "Limited Range of Influence Option"),
        (None, "Glossary"), (None, "Credits")]


def test_no_rule_text_lost_and_residue_only_markup():
    path = UNNUMBERED / "rules.rst"
    doc = crparse.parse(path)
    # a heading is a heading, not the end of the rule before it
    assert doc.rule("100.2").text == "To play, each player needs his or her own deck of traditional Magic cards."
    assert doc.rule("101.2a").text.endswith("don't fall under this rule.")
    assert doc.rule("800.2a").text == "When a player leaves the game, all objects owned by that player leave the game."
    assert doc.rule("100.1b").text.endswith('See section 8, "Multiplayer Rules."')
    assert [e.text[:22] for e in doc.rule("101.2").examples] == ["If one effect reads \"Y"]
    assert [e.text[:22] for e in doc.rule("800.2a").examples] == ["Alex casts Control Mag"]
    assert {r.reason for r in doc.residue} == {"markup"}
    assert [r.text for r in doc.residue] == ["#" * 40, "=" * 8, "=" * 8, ".. glossary::", "=" * 7]
    source = re.sub(r"`__", "`", path.read_text(encoding="utf-8"))
    assert not lost_words(doc, without_rst_markup(source))


def test_other_headings_stay_what_they_are():
    doc = crparse.parse(UNNUMBERED / "rules.rst")
    assert [(b.kind, b.text) for b in doc.front_matter if b.kind in ("title", "heading")] == [
        ("title", "Magic: The Gathering Comprehensive Rules"), ("heading", "Introduction")]
    assert doc.effective_date == "2011-07-15"
    assert [r.name for r in doc.regions] == ["front", "contents", "body", "glossary", "credits"]
    assert [g.term for g in doc.glossary] == ["Active Player", "Ability"]
    assert doc.credits and "Richard Garfield" in doc.credits[0].text


def test_without_a_contents_the_rules_number_the_headings():
    doc = crparse.parse(UNNUMBERED / "no_contents.rst")
    assert headings(doc) == HEADINGS
    assert rules(doc) == RULES
    assert not codes(doc, "missing-parent") and not doc.contents
    [said] = codes(doc, "rst-heading-number")
    assert said.severity == "info" and said.line == 12  # the first heading numbered so: Game Concepts
    assert "no numbered Contents" in said.message and "2 part(s) and 5 section(s)" in said.message
    # The Sphinx editions, whose rules are headings, have no Contents either: theirs is the
    # edition's own numbering, not reported.
    assert not codes(crparse.parse(UNNUMBERED.parent / "edition" / "index.rst"), "rst-heading-number")


def test_a_contents_that_disagrees_gives_way_to_the_rules():
    # The Contents (bullet lists with the numbers written in the items) says 103 for "Players",
    # 7 for "Multiplayer Rules", lists an "802" the document lacks and leaves out 801.
    doc = crparse.parse(UNNUMBERED / "wrong_contents.rst")
    assert headings(doc) == HEADINGS
    assert rules(doc) == RULES
    assert not codes(doc, "missing-parent")
    said = sorted((d.line, d.severity, d.message) for d in codes(doc, "rst-heading-number"))
    assert said == [
        (24, "info", "Contents entry 802. 'Attack Multiple Players Option' names no heading of the document"),
        (60, "warning", "the Contents (line 19) numbers 'Players' 103, but its first rule is 102.1: numbered 102"),
        (67, "warning", "the Contents (line 21) numbers 'Multiplayer Rules' 7, but its first section is 800: numbered 8"),
        (83, "info", "'Limited Range of Influence Option' is not in the Contents; its first rule is 801.1: numbered 801"),
    ]
    # the Contents itself is kept as printed
    assert [c.number for c in doc.contents] == ["1", "100", "101", "103", "7", "800", "802", None, None]


# -- the 2011-07-15 reST edition made into one file with unnumbered headings ----------------------

_RULE_HEADING = re.compile(r"(?m)^\d{3}\.\d+\n-{3,}\n")


def single_file_edition(folder: Path, rules_as_paragraphs: bool) -> str:
    """The edition's files in toctree order as one file, with a Contents list generated from its
    headings (part n in toctree order, its sections n00, n01, ...: numbers of their own, not read
    off the rules); optionally its rule headings (`100.1` over `-----`) turned into numbered
    paragraphs (`100.1. These ...`, `100.1a A ...`). Its part and section headings are unnumbered
    already."""
    index = (folder / "index.rst").read_text(encoding="utf-8")
    head, _, toctree = index.partition(".. toctree::")
    names = [line.strip() for line in toctree.splitlines()[1:] if line.strip() and not line.strip().startswith(":")]
    texts = [(folder / f"{name}.rst").read_text(encoding="utf-8") for name in names]
    parts = [i for i, text in enumerate(texts) if _RULE_HEADING.search(text)]
    contents = ["********", "Contents", "********", ""]
    for n, i in enumerate(parts, 1):
        sections = re.findall(r"(?m)^(\S.*)\n={3,}$", texts[i])
        contents += [f"{n}. `{texts[i].splitlines()[1]}`_", ""]
        contents += [f"   {n * 100 + k}. `{title}`__" for k, title in enumerate(sections)] + [""]
    contents += [f"- `{texts[i].splitlines()[1]}`_" for i in range(parts[-1] + 1, len(texts))] + [""]
    body = []
    for i, text in enumerate(texts):
        if i == parts[0]:
            body.append("\n".join(contents))
        if i in parts and rules_as_paragraphs:
            text = _rules_as_paragraphs(text)
        elif i not in parts:  # Customer Service's `---` headings: one level below `***` in one file
            text = re.sub(r"(?m)^-{3,}$", lambda m: "=" * len(m[0]), text)
        body.append(text)
    return head + "\n\n" + "\n\n".join(body)


def _rules_as_paragraphs(text: str) -> str:
    out: list[str] = []
    rule = pending = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.fullmatch(r"\d{3}\.\d+", line) and i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]):
            rule = pending = line
            i += 2
            continue
        if re.fullmatch(r"[=*]{3,}", line):
            rule = None
        # subrules: the lettered list, at any depth (603.2d-f sit inside an example)
        letter = re.fullmatch(r" {4,}([a-z])\. (.*)", line)
        if pending and line.strip():
            out.append(f"{pending}. {line}")
            pending = None
        elif rule and letter:
            out += ["", f"{rule}{letter[1]} {letter[2]}", ""]
        else:
            out.append(line)
        i += 1
    return "\n".join(out) + "\n"


@pytest.mark.corpus
@pytest.mark.parametrize("rules_as_paragraphs", [True, False], ids=["rule-paragraphs", "rule-headings"])
def test_corpus_edition_as_one_unnumbered_file_gives_the_text_release(corpus, tmp_path, rules_as_paragraphs):
    folder = corpus / "rst" / "2011-07-15"
    path = tmp_path / "rules.rst"
    path.write_text(single_file_edition(folder, rules_as_paragraphs), encoding="utf-8")
    doc = crparse.parse(path)
    reference = crparse.parse(corpus / "txt" / "2011-07-15.txt")

    def shape(d):
        return [(r.number, r.kind, r.parent, r.title.replace("_", "")) for r in d.rules
                if r.kind in ("part", "section")]  # the text release's _Magic_ is the edition's *Magic*

    assert len(shape(doc)) == 130 and shape(doc) == shape(reference)
    assert [(r.number, r.parent) for r in doc.rules] == [(r.number, r.parent) for r in reference.rules]
    assert not codes(doc, "missing-parent") and not codes(doc, "rst-heading-number")
    assert [(c.number, c.title) for c in doc.contents] == [
        (c.number, c.title.replace("_", "")) for c in reference.contents]
    assert {r.reason for r in doc.residue} == {"markup"}
    # the rules read as the multi-file edition's, word for word
    edition = crparse.parse(folder / "index.rst")
    assert [(r.text, [e.text for e in r.examples]) for r in doc.rules if r.kind in ("rule", "subrule")] == [
        (r.text, [e.text for e in r.examples]) for r in edition.rules if r.kind in ("rule", "subrule")]
    assert len(doc.glossary) == len(reference.glossary)
    source = re.sub(r"`__", "`", path.read_text(encoding="utf-8"))
    assert not lost_words(doc, without_rst_markup(source))


@pytest.mark.parametrize("dot", [".", ""])
def test_headings_that_print_their_own_numbers_keep_them(tmp_path, dot):
    """"100. General" over `---`: the number taken from the rules under it was put before the
    one printed ("100. 100. General"), which read as rule 100.100, out of order."""
    path = tmp_path / "numbered.rst"
    # "100 General" without the dot too (sweep 13: still 100.100)
    path.write_text(f"1{dot} Game Concepts\n================\n\n100{dot} General\n------------\n\n100.1. These rules.\n\n"
                    f"100.2. To play.\n\n101{dot} The Magic Golden Rules\n---------------------------\n\n101.1. Whenever.\n")
    doc = crparse.parse(path)
    assert [(r.number, r.kind, r.title) for r in doc.rules if r.kind != "rule"] == [
        ("1", "part", "Game Concepts"), ("100", "section", "General"), ("101", "section", "The Magic Golden Rules")]
    assert not [d for d in doc.diagnostics if d.code in ("out-of-order", "spaced-number")]


def test_headings_docutils_drops_are_named_in_the_refusal(tmp_path):
    """A title above a chapter: docutils drops every rule heading under it ("Inconsistent title
    style"), and the refusal said only "no numbered rules" (sweep 13)."""
    path = tmp_path / "titled.rst"
    rules = "".join(f"800.{n}\n-----\n\nRule text {n}.\n\n" for n in range(1, 6))
    chapter = "*****************\nMultiplayer Rules\n*****************\n\nGeneral\n=======\n\n" + rules
    path.write_text(chapter, encoding="utf-8")
    assert [r.number for r in crparse.parse(path).rules if r.kind == "rule"][:2] == ["800.1", "800.2"]  # as in 2011
    path.write_text("Title\n=====\n\n" + chapter, encoding="utf-8")
    with pytest.raises(crparse.RefusedInput, match=r"no numbered rules .*\(line \d+: titled.rst: Inconsistent title style"):
        crparse.parse(path)
