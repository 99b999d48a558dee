"""A flood of paragraphs: 4 MB of one-word rules, glossary entries or Markdown headings.

Each paragraph becomes a node with a record in every output: 4 MB of "100.1a x" (400,000 rules)
took 8 s to parse and over 15 s as a GraphML graph, 220,000 glossary entries 15 s, 150,000
Markdown headings 9.5 s in markdown-it alone. Past CRPARSE_MAX_PARAGRAPHS (ten times the largest
release) a document is refused, a Markdown one before markdown-it runs. Each input runs through
the CLI in a child under 15 s and 1 GiB.
"""

from __future__ import annotations

import unicodedata

import pytest
from limits import run_limited

import crparse
from crparse.errors import RefusedInput

HEAD = "Magic: The Gathering Comprehensive Rules\n\n1. Game Concepts\n\n100. General\n\n"


def _subrules(n: int) -> str:
    letters = "abcdefghijkmnpqrstuvwxyz"
    return "".join(f"{100 + i // (99 * 24)}.{i // 24 % 99 + 1}{letters[i % 24]} x\n" for i in range(n))


def _glossary(n: int) -> str:
    return HEAD + "100.1. Text.\n\n100.2. Text.\n\nGlossary\n\n" + "".join(f"Term{i}\nA thing.\n\n" for i in range(n))


def _markdown_headings(n: int) -> str:
    return "".join(f"# {i % 900 + 100}. T\n\n100.{i % 900 + 1}. x\n\n" for i in range(n))


def test_the_limit_refuses_naming_the_line_and_the_setting(tmp_path, monkeypatch):
    path = tmp_path / "many.txt"
    path.write_text(HEAD + _subrules(300))
    assert len(crparse.parse(path).rules) > 300  # within the default limit: read
    monkeypatch.setenv("CRPARSE_MAX_PARAGRAPHS", "100")
    with pytest.raises(RefusedInput) as refused:
        crparse.parse(path)
    message = str(refused.value)
    assert "more than 100 paragraphs" in message and "CRPARSE_MAX_PARAGRAPHS" in message
    # the 101st paragraph: after the title, the part, the section (lines 1, 3, 5), the 98th subrule (line 6 on)
    assert message.startswith(f"{path}:{refused.value.line}:") and refused.value.line == 103, message


@pytest.mark.parametrize(
    "name, text",
    [
        ("subrules.txt", lambda: HEAD + _subrules(380_000)),
        ("glossary.txt", lambda: _glossary(200_000)),
        ("headings.md", lambda: _markdown_headings(150_000)),
    ],
)
@pytest.mark.parametrize("command", [["parse"], ["refs", "--graph", "graphml"]])
def test_a_flood_of_paragraphs_is_refused_within_limits(tmp_path, name, text, command):
    path = tmp_path / name
    path.write_text(text())
    result = run_limited([*command, str(path)], seconds=15)
    assert result.ok_within_limits, (result.returncode, result.seconds, result.peak_mib, result.stderr[-300:])
    assert result.returncode == 2 and b"CRPARSE_MAX_PARAGRAPHS" in result.stderr, result.stderr[-300:]
    assert result.stderr.count(b"\n") == 1


def test_markdown_is_counted_before_markdown_it_runs(tmp_path, monkeypatch):
    path = tmp_path / "headings.md"
    path.write_text(_markdown_headings(60))
    assert crparse.parse(path).rules
    monkeypatch.setenv("CRPARSE_MAX_PARAGRAPHS", "100")
    import markdown_it

    def not_called(*args, **kwargs):  # pragma: no cover - the point is that it is not
        raise AssertionError("markdown-it ran")

    monkeypatch.setattr(markdown_it.MarkdownIt, "parse", not_called)
    with pytest.raises(RefusedInput, match="more than 100 paragraphs"):
        crparse.parse(path)


def test_tokenizing_stops_at_the_limit(tmp_path):
    """2M one-line paragraphs (4 MiB of "1"): every one was tokenized before the count, 9 s and
    360 MiB (90 times the input); tokenizing now stops at the first past the limit."""
    path = tmp_path / "ones.txt"
    path.write_text("100.1. Rule one.\n100.2. Rule two.\n" + "1\n" * (2 * 1024 * 1024 - 20))
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2, (result.returncode, result.stderr[-300:])
    assert b":50000: more than 50,000 paragraphs" in result.stderr, result.stderr[-300:]
    assert result.peak_mib < 200, result.peak_mib  # under 50 times the input


# -- invisible characters before a rule number (sweep 19) ---------------------------------------

_RULES = "100. General\n\n100.1. One.\n\n100.2. Two.\n\n100.3. Three.\n\n100.4. Four.\n"


@pytest.mark.parametrize("char", ["\ufeff", "\u00a0", "\u200b", "\u200e", "\u00ad", "\u2060", "\u3000", " \u200b\t",
                                  "\u3164", "\u115f", "\uffa0", "\u034f", "\u17b4", "\ufe0f", "\u2800", "\f", "\v", " \f"])
@pytest.mark.parametrize("format", ["text", "markdown"])
def test_an_invisible_character_before_a_rule_number_starts_the_rule_still(char, format):
    """A byte-order mark from concatenated files, a no-break or zero-width space, a direction mark
    or a soft hyphen kept the line from starting a rule: its text ran into the rule above."""
    doc = crparse.parse(_RULES.replace("100.4.", char + "100.4.").encode(), format=format)
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert doc.rule("100.3").text == "Three." and doc.rule("100.4").text == "Four."
    if format == "text" or char not in ("\u00a0", "\u3000", "\f", "\v", " \f"):  # Markdown's own spaces
        said = [d for d in doc.diagnostics if d.code == "invisible-characters"]
        assert [(d.line, d.severity) for d in said] == [(9, "info")], doc.diagnostics


@pytest.mark.parametrize("entity", ["&#8203;", "&shy;", "&#xFEFF;", "&#x200E;"])
def test_an_invisible_character_before_a_rule_number_in_a_page(entity):
    page = "<html><body>" + "".join(f"<p>{entity if n == '100.4' else ''}{n}. Rule {n}.</p>\n"
                                    for n in ("100", "100.1", "100.2", "100.3", "100.4")) + "</body></html>"
    doc = crparse.parse(page.encode(), format="html")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert [d.code for d in doc.diagnostics if d.code == "invisible-characters"] == ["invisible-characters"]


@pytest.mark.parametrize("between", ["\u00a0", "\u202f", "\u2003", "\u3000", "\u200b ", "\u00ad ", "\u200b", "\ufeff\u00a0",
                                     " \u200b", " \u00ad", "  \u2060", " \u00a0\u200b", "\f", "\v", "\x1c", "\x1f",
                                     " \f", "\u0085"])
@pytest.mark.parametrize("format", ["text", "markdown"])
def test_a_space_of_another_kind_after_a_rule_number_starts_the_rule_still(between, format):
    """A no-break space after every rule number refused a release as having "no numbered rules",
    and half a DOCX's rules ran into their neighbours (sweep 37)."""
    text = _RULES.replace(". ", "." + between)
    doc = crparse.parse(text.encode(), format=format)
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert doc.rule("100.3").text == "Three." and doc.rule("100.4").text == "Four."
    said = [d for d in doc.diagnostics if d.code == "invisible-characters"]
    assert len(said) == 1 and "between a line's number and its text" in said[0].message, doc.diagnostics


def test_a_no_break_space_after_a_number_in_rtf_and_docx():
    from builders import make_docx

    rtf = "{\\rtf1\\ansi 100. Intro\\par 100.1.\\~First rule.\\par 100.2.\\~Second rule.\\par 100.3.\\~Third.\\par}"
    assert [r.number for r in crparse.parse(rtf.encode(), format="rtf").rules] == ["100", "100.1", "100.2", "100.3"]
    docx = make_docx(["100. Intro", "100.1.\u00a0First rule.", "100.1a\u00a0A subrule.", "100.2.\u00a0Second rule.",
                      "100.3.\u00a0Third."])
    doc = crparse.parse(docx, format="docx")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.1a", "100.2", "100.3"]
    assert doc.rule("100.1a").text == "A subrule."


def test_invisible_characters_inside_a_line_are_kept():
    doc = crparse.parse(_RULES.replace("Two.", "Two\u200b words\u00ad.").encode(), format="text")
    assert doc.rule("100.2").text == "Two\u200b words\u00ad."
    assert not [d for d in doc.diagnostics if d.code == "invisible-characters"]


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r", "\n  \n"])
def test_markdown_of_many_blank_lines_is_read(end):
    """A run of blank lines was counted by halves: 120,000 refused a file as "60,032 non-blank
    lines" (sweep 46)."""
    text = "# T\n\n100.1. One.\n" + end * 120_000 + "\n100.2. Two.\n"
    assert [r.number for r in crparse.parse(text.encode(), format="markdown").rules] == ["100.1", "100.2"]


@pytest.mark.parametrize("block", ["<!--{}-->", "```{}```"])
def test_markdown_counted_by_its_lines_says_so(block):
    """A comment or code block of 60,000 lines was refused as "more than 50,000 paragraphs (rules,
    examples, glossary entries...)", as if it held rules (sweep 26): the message says what was
    counted."""
    text = "# T\n\n" + block.format("\nx" * 60_000 + "\n") + "\n\n100.1. A rule.\n\n100.2. Two.\n"
    with pytest.raises(RefusedInput, match=r"Markdown of 60,00\d non-blank lines, each of which may be a block of "
                                           r"its own .* a line of an HTML comment or of a code block\): more than "
                                           r"50,000 paragraphs"):
        crparse.parse(text.encode(), format="markdown")


@pytest.mark.parametrize("number", ["100.1000.", "100.1aa", "1000.", "10.", "100.12345.", "100.9999999.",
                                    "99999999999.", "100.2ą", "100.2α", "100.2a1", "100.2a\u0301", "100.2)", "(100.2)",
                                    "100.2:", "100,2.", "100.1.1.", "100.1.a", "100..2.", "0.", "100.ab",
                                    "\uff11\uff10\uff10.\uff12.", "100.\u0663."])
@pytest.mark.parametrize("format", ["text", "markdown"])
def test_a_paragraph_numbered_as_no_rule_is_said(number, format):
    """It made no rule, and its text ran into the rule before without a word (sweep 39)."""
    text = _RULES.replace("100.4. Four.", f"{number} Past the numbering.\n\n100.4. Four.")
    doc = crparse.parse(text.encode(), format=format)
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    said = [d for d in doc.diagnostics if d.code == "not-a-rule-number"]
    shown = unicodedata.normalize("NFC", number.rstrip("."))[:6]  # as read: NFC
    assert len(said) == 1 and said[0].severity == "warning" and said[0].message.startswith(shown)


def test_a_capital_subrule_letter_is_no_second_rule():
    """`100.2Z Text` was a second rule 100.2 whose text starts "Z" (sweep 40)."""
    doc = crparse.parse(_RULES.replace("100.4. Four.", "100.3Z Capital.\n\n100.4. Four.").encode(), format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert [d.message[:6] for d in doc.diagnostics if d.code == "not-a-rule-number"] == ["100.3Z"]
    assert "duplicate-number" not in [d.code for d in doc.diagnostics]


@pytest.mark.parametrize("first", ["A player", "I choose"])
def test_a_rule_whose_first_word_is_a_or_i_after_a_lost_space_is_the_rule(first):
    """"601.3A player can begin" was said as a capital subrule letter, its text run into the rule
    before (review): "A" and "I" before a word are the rule's first word."""
    doc = crparse.parse(_RULES.replace("100.4. Four.", f"100.4{first} here.").encode(), format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert doc.rule("100.4").text == f"{first} here."
    assert "not-a-rule-number" not in [d.code for d in doc.diagnostics]


def test_a_rule_part_with_a_leading_zero_is_said():
    doc = crparse.parse(_RULES.replace("100.4. Four.", "100.04. Four.").encode(), format="text")
    assert [d.message for d in doc.diagnostics if d.code == "number-format"] == [
        "100.04 printed with a leading zero in its rule part"]


@pytest.mark.parametrize("line", ["1. Choose a card.", "100.1. One.", "100.1a Sub.", "2024 was a year.", "3 cards.",
                                  "100. General", "9. Last."])
def test_numbers_the_cr_uses_and_plain_numbers_are_not_said(line):
    from crparse.shapes import numbered_otherwise

    assert numbered_otherwise(line) is None


def test_spaces_after_a_number_in_other_digits_are_left_as_they_are():
    """A number in other digits is none the CR prints (sweep 40): the space after it is not read
    as the one after a rule number, and the paragraph is said as numbered otherwise."""
    wide = "100.\u0663.\u00a0Arabic-Indic."  # the first digits ASCII, as the shapes read them
    doc = crparse.parse(_RULES.replace("100.4. Four.", f"{wide}\n\n100.4. Four.").encode(), format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3", "100.4"]
    assert wide in doc.rule("100.3").text
    assert [d.code for d in doc.diagnostics if d.code in ("invisible-characters", "not-a-rule-number")] == [
        "not-a-rule-number"]
