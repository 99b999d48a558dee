"""The format readers: detection by content, each reader into the same tree, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import make_docx, make_pdf, zip_of_members
from conftest import ROOT, lost_words

import crparse
from crparse.readers import detect_format

FORMATS = Path(__file__).resolve().parent / "format_fixtures"
SEEDS = {p.name[:3]: p for p in (ROOT / "corpus").iterdir()}

MULTIPLAYER = [
    "Magic: The Gathering Comprehensive Rules",
    "801. Limited Range of Influence Option",
    "801.1. Limited range of influence is an option that can be applied to most multiplayer games.",
    "801.2. A player’s range of influence is the maximum distance from that player.",
    "801.2a The most commonly chosen limited ranges of influence are 1 seat and 2 seats.",
    "Example: A range of influence of 1 means that only you and the players seated next to you are in it.",
    "801.2b A player is always within their own range of influence.",
]


def numbers(doc) -> list[str]:
    return [r.number for r in doc.rules if r.kind in ("rule", "subrule")]


# -- the five seeds -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "seed, fmt, first, last, count, examples",
    [
        ("000", "text", "601.1", "602.5", 35, 16),
        ("001", "rst", "800.1", "811.5", 167, 38),
        ("002", "markdown", "801.1", "801.18", 28, 15),
        ("003", "text", "601.12", "602.5", 15, 6),
        ("004", "text", "601.14a", "605.2c", 22, 5),
    ],
)
def test_seeds_detected_and_counted(seed, fmt, first, last, count, examples):
    doc = crparse.parse(SEEDS[seed])
    got = numbers(doc)
    assert doc.source.format == fmt
    assert (got[0], got[-1], len(got), len(set(got))) == (first, last, count, count)
    assert doc.counts()["examples"] == examples
    assert doc.fragment is not None
    assert not [d for d in doc.diagnostics if d.code == "unaccounted-lines"]


def test_scrape_fused_heading_split_and_stamps_kept():
    doc = crparse.parse(SEEDS["000"])
    first = doc.rule("601.1")
    assert first.line == 7 and first.text.startswith("Limited range of influence")
    assert doc.rule("601.2").changed == "2007-10-01"
    stamps = [r for r in doc.residue if r.reason == "change-stamp"]
    assert len(stamps) == 35 + 16
    assert any(r.reason == "text-before-first-rule" and "602. Attack Multiple Players Option" in r.text for r in doc.residue)


def test_rst_seed_ref_damage_repaired_with_a_diagnostic():
    doc = crparse.parse(SEEDS["001"])
    texts = [r.text for r in doc.rules] + [e.text for _, e in doc.examples]
    assert not any(":ref:" in t for t in texts)
    assert "He must therefore choose himself" in doc.rule("801.5a").examples[0].text
    repaired = [d for d in doc.diagnostics if d.code == "rst-ref-damage"]
    assert len(repaired) == 5 and "'the:ref:ore' repaired to 'therefore'" in repaired[0].message
    assert '"{T}: Target teammate' in " ".join(texts)
    assert doc.rule("810").title == "Two-Headed Giant Variant"  # the section number the edition leaves implicit
    assert doc.rule("800.4a").examples[0].line == 32


def test_seed_003_junk_stays_out_of_rules():
    doc = crparse.parse(SEEDS["003"])
    assert not any("Добавить" in r.text for r in doc.rules)
    assert any("Добавить" in r.text for r in doc.residue)
    assert doc.residue[0].reason == "text-before-first-rule"  # the cut-off tail of 601.11's example


# -- reST edition (own fixture): toctree, labels, :ref:, seealso, glossary, |T| ----------------

def test_rst_edition_follows_toctree():
    doc = crparse.parse(FORMATS / "edition" / "index.rst")
    assert doc.source.format == "rst" and doc.fragment is None
    assert [f.path.rsplit("/", 1)[1] for f in doc.source.files] == [
        "index.rst", "intro.rst", "multiplayer.rst", "glossary.rst", "credits.rst"]
    assert numbers(doc) == ["800.1", "800.2", "800.2a", "800.2b", "800.2c", "801.1"]
    assert [r.number for r in doc.rules if r.kind != "rule" and r.kind != "subrule"] == ["8", "800", "801"]
    assert doc.effective_date == "2011-07-15"
    # the field list opening the index (":tocdepth: 2") is Sphinx's metadata of the file, not its title
    assert doc.title == "Magic: The Gathering Comprehensive Rules"
    assert any(r.text == ":tocdepth: 2" and r.reason == "markup" for r in doc.residue)
    assert [g.term for g in doc.glossary] == ["Active Player", "Ability"]
    assert doc.glossary[1].senses[1].startswith("2. An activated or triggered ability")
    assert doc.credits and "Richard Garfield" in doc.credits[0].text
    # line numbers run over the files in reading order; locate() gives a file's own line
    rule = doc.rule("800.2a")
    assert doc.source.locate(rule.line) == (str(FORMATS / "edition" / "multiplayer.rst"), 22)


def test_rst_references_become_links_not_text():
    doc = crparse.parse(FORMATS / "edition" / "index.rst")
    assert doc.rule("800.2a").text.endswith("See 800.1.")
    assert doc.rule("800.2c").text.endswith("see the option rules.")
    kinds = {(k.kind, k.target, k.rule) for k in doc.links}
    assert ("ref", "rule-800.1", "800.1") in kinds
    assert ("ref", "limited-range", "801") in kinds
    assert ("seealso", "rule-800.1", "800.1") in kinds
    assert ("label", "multiplayer-general", "800") in kinds
    assert not any("800.1" in r.text for r in doc.rules if r.number == "800.2c")
    assert "{T}: Target teammate" in doc.rule("800.2").text
    assert "the:ref:ore" not in doc.rule("800.2b").text and "therefore" in doc.rule("800.2b").text
    # the edition's converter put the cited number where the title was: repaired, reported
    assert 'see rule 800, "General.")' in doc.rule("801.1").text
    assert any(d.code == "rst-title-damage" for d in doc.diagnostics)
    # an example's wrapped lines, at any indentation, are one example
    assert doc.rule("800.2b").examples[0].text == "Alex casts Control Magic. If Alex leaves the game, so does Control Magic."


def test_rst_without_a_file_name_reports_the_unread_toctree():
    doc_bytes = (FORMATS / "edition" / "multiplayer.rst").read_bytes()
    doc = crparse.parse(doc_bytes)
    assert doc.source.format == "rst" and numbers(doc)[0] == "800.1"
    index = (FORMATS / "edition" / "index.rst").read_bytes()
    with pytest.raises(crparse.RefusedInput):
        crparse.parse(index)  # the index alone holds no rules


# -- Markdown, HTML, RTF, DOCX, PDF -------------------------------------------------------------

def test_markdown_links_and_list_numbers():
    doc = crparse.parse(FORMATS / "multiplayer.md")
    assert doc.source.format == "markdown"
    assert numbers(doc) == ["801.1", "801.2", "801.2a", "801.2b"]
    assert doc.rule("801").kind == "section"
    assert doc.rule("801.1").text.endswith("(see rule 809).")
    assert doc.rule("801.2").text.endswith("measured in player seats, that the player can affect.")
    assert [(k.kind, k.target, k.rule) for k in doc.links] == [("link", "#809", "809")]
    assert any(r.reason == "markup" and r.text == "---" for r in doc.residue)


def test_html_blocks_anchors_and_skipped_script():
    doc = crparse.parse(FORMATS / "rules.html")
    assert doc.source.format == "html" and doc.source.encoding == "utf-8"
    assert numbers(doc) == ["601.1", "601.2", "601.2a", "601.2b", "601.3"]
    assert doc.rule("601.1").text.startswith("Limited range of influence is an option that can be applied to most multiplayer games.")
    assert doc.rule("601.2b").examples[0].text == "See rule 601.2a for the common ranges."
    assert ("anchor", "#r601.2a", "601.2a") in {(k.kind, k.target, k.rule) for k in doc.links}
    assert not any("tracker" in r.text for r in doc.rules)
    assert any(d.code == "html-not-text" for d in doc.diagnostics)


def test_rtf_code_page_and_unicode_escapes():
    doc = crparse.parse(FORMATS / "multiplayer.rtf")
    assert doc.source.format == "rtf" and doc.source.encoding == "cp1252"
    assert numbers(doc) == ["801.1", "801.2", "801.2a"]
    assert "It’s always used" in doc.rule("801.1").text
    assert "from that player — measured" in doc.rule("801.2").text
    assert len(doc.rule("801.2a").examples) == 1


def test_docx_paragraphs_and_header_left_out():
    doc = crparse.parse(make_docx(MULTIPLAYER))
    assert doc.source.format == "docx"
    assert numbers(doc) == ["801.1", "801.2", "801.2a", "801.2b"]
    assert not any("page header" in r.text for r in doc.rules)
    assert doc.rule("801.2a").line == 5  # the fifth paragraph of the body


def _pdf_pages():
    page, y = [], 700.0

    def add(x, text, gap=12.0):
        nonlocal y
        page.append((x, y, text))
        y -= gap

    add(72, "801. Limited Range of Influence Option", 24)
    add(72, "801.1. Limited range of influence is an option that can be applied to most multiplayer games and that is")
    add(86, "always used in the Emperor variant (see rule 809), and often used for games of five or more", 24)
    add(72, "801.2. A player's range of influence is the maximum distance from that player, measured in seats, that the")
    add(86, "player can affect; it covers spells, abilities, effects, damage dealing, attacking, and winning. See rule", 12)
    add(86, "801.2b.", 24)
    add(86, "801.2a The most commonly chosen limited ranges of influence are 1 seat and 2 seats, and different players may")
    add(100, "have different ranges of influence, which are determined as each turn begins, for each player.")
    add(114, "Example: A range of influence of 1 means that only you and the players seated next to you are in it.")
    page.append((300, 40, "Page 1"))
    second = [(86, 700, "801.2b A player is always within their own range of influence."), (300, 40, "Page 2")]
    third = [(72, 700, "801.3. Creatures can attack only opponents within range."), (300, 40, "Page 3")]
    return [page, second, third]


def test_pdf_paragraphs_rejoined_and_page_numbers_set_aside():
    data = make_pdf(_pdf_pages())
    doc = crparse.parse(data)
    assert doc.source.format == "pdf"
    assert numbers(doc) == ["801.1", "801.2", "801.2a", "801.2b", "801.3"]
    assert doc.rule("801.1").text.endswith("(see rule 809), and often used for games of five or more")
    assert doc.rule("801.2").text.endswith("See rule 801.2b.")  # a wrapped reference is not a rule
    assert (doc.rule("801.2a").line, doc.rule("801.2a").end_line) == (7, 8)
    assert len(doc.rule("801.2a").examples) == 1
    assert [(r.line, r.text, r.reason) for r in doc.residue if r.reason.startswith("page")] == [
        (10, "Page 1", "page-footer"), (12, "Page 2", "page-footer"), (14, "Page 3", "page-footer")]
    assert crparse.source_lines(data)[9] == "Page 1"
    assert not lost_words(doc, "\n".join(crparse.source_lines(data)))


# -- detection and bad input ------------------------------------------------------------------

@pytest.mark.parametrize(
    "head, path, expected",
    [
        (b"%PDF-1.7\n", None, "pdf"),
        (b"{\\rtf1\\ansi", "x.doc", "rtf"),
        (b"<!DOCTYPE html><html><body><p>100.1. Text</p>", None, "html"),
        (b"800.4\n-----\n\nText\n", "x.txt", "rst"),
        (b"# 801. Title\n\n801.1. Text\n", "x.txt", "markdown"),
        (b"100.1. Text\n100.2. More\n", "x.md", "markdown"),  # the content says nothing: the name decides
        (b"100.1. Text\n100.2. More\n", "x.txt", "text"),
        # a page's tags shown in a fenced code block are no page (sweep 12: read as HTML, refused)
        (b"# 801. Title\n\n```html\n<html>\n<body>\n```\n\n801.1. Text\n", "x.md", "markdown"),
        (b"# 801. Title\n\n~~~\n<html>\n", None, "markdown"),
        (b"~~~\n<html>\n~~~\n<html>\n<body>\n", None, "html"),  # after the block: a page
        (b"# 801. Title\n\n> <html>\n> <body>\n\n801.1. Text\n", None, "markdown"),  # quoted (sweep 13)
        (b"<!DOCTYPE html><html><body>\n<p>100.1. Text</p>", None, "html"),
        # shown in indented code, in a list item's fence, or after inline tags in text (sweep 13)
        (b"# 801. Title\n\nSome code:\n\n    <html>\n    <body>\n\n801.1. Text\n", "x.md", "markdown"),
        (b"# 801. Title\n\n- item\n\n    ```html\n    <html>\n    ```\n\n801.1. Text\n", "x.md", "markdown"),
        (b"# 801. Title\n\nText with <span></span><html> inline.\n\n801.1. Text\n", "x.md", "markdown"),
        (b"**Rules**\n\n```html\n" + b"<p>line</p>\n" * 60 + b"```\n\n801.1. Text\n", "x.md", "markdown"),
        (b"\n<?xml version='1.0'?>\n<html><body>\n<p>100.1. Text</p>", None, "html"),
        (b"<html>\n  <body>\n\n      <p>100.1. Text</p>\n", None, "html"),
    ],
)
def test_detection_by_content_then_name(head, path, expected):
    assert detect_format(head, path) == expected


@pytest.mark.parametrize(
    "data, message",
    [
        (b"PK\x03\x04" + b"\x00" * 40, "broken ZIP archive"),
        (zip_of_members({"hello.txt": b"hi"}), "not a DOCX"),
        (zip_of_members({"word/document.xml": b"<not-xml"}), "cannot read this DOCX file"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "unsupported: convert it to DOCX"),
        (b"%PDF-1.4\n%garbage, no objects\n", "cannot read this PDF file"),
        (make_pdf([[], []]), "no text layer"),
        (b"<html><body><p>Welcome to our shop.</p><p>Cards 20% off.</p></body></html>", "no numbered rules"),
        (b"{\\rtf1\\ansi {\\pard Hello\\par}}", "no numbered rules"),
        # one rule is not "no rules": the message says what was found, and where
        (b"Magic: The Gathering Comprehensive Rules\n\n100. General\n\n100.1. Short rule.\n",
         "one numbered rule (line 5), where even a fragment has 2 or more"),
    ],
)
def test_bad_input_gets_a_clear_message(tmp_path, data, message):
    path = tmp_path / "input.bin"
    path.write_bytes(data)
    with pytest.raises(crparse.CrparseError) as caught:
        crparse.parse(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_unknown_format_name():
    with pytest.raises(crparse.UnsupportedFormat, match="unknown format 'odt'"):
        crparse.parse(SEEDS["004"], format="odt")


def test_format_override():
    # seed 002 read as plain text still has its rules: the Markdown markup stays as text
    doc = crparse.parse(SEEDS["002"], format="text")
    assert doc.source.format == "text" and len(numbers(doc)) == 28


def test_rst_nodes_without_line_numbers_do_not_crash():
    # found by hypothesis: an underlined rule number over a transition, read as reST
    with pytest.raises(crparse.RefusedInput):
        crparse.parse(b"100.1a\n" + b"-" * 78 + b"\n" + b"-" * 78 + b"\n")
