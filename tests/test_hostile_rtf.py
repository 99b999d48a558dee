"""Hostile RTF of the fifth adversarial sweep (each failed before its fix): striprtf's patterns
that scan from each start to the end of the line (HYPERLINKS, FONTTABLE: 3.5 MB took over a
minute), and `\\bin` lengths it cannot read (a Python error text was the message)."""

from __future__ import annotations

import pytest
from limits import run_limited

import crparse
from crparse.errors import RefusedInput
from crparse.readers.rtf import LINE_WIDTH, _short_lines

BODY = ("Magic: The Gathering Comprehensive Rules\\par\n\\par\n1. Game Concepts\\par\n\\par\n100. General\\par\n\\par\n"
        "100.1. These Magic rules apply to any Magic game.\\par\n\\par\n100.2. To play, each player needs a deck.\\par\n")
SIZE = 3_500_000


def _floods() -> dict[str, str]:
    return {
        "field-starts": "{\\rtf1\\ansi\\ansicpg1252 " + BODY + "{\\field{\\*\\fldinst{" * (SIZE // 19) + "}",
        "font-table": "{\\rtf1\\ansi{\\fonttbl" + "\\f1 " * (SIZE // 4) + "}\n" + BODY + "}",
        "font-table-escapes": "{\\rtf1\\ansi{\\fonttbl" + "\\f1\\\\" * (SIZE // 6) + "}\n" + BODY + "}",
        "hyperlinks": "{\\rtf1\\ansi " + BODY + "{\\field{\\*\\fldinst{HYPERLINK \"x\"}}" * (SIZE // 34) + "}",
        # the same, each group closed: past MAX_RTF_DEPTH the two above are refused before any pattern runs
        "closed-field-starts": "{\\rtf1\\ansi\\ansicpg1252 " + BODY + "{\\field{\\*\\fldinst{}}}" * (SIZE // 22) + "}",
        "closed-hyperlinks": "{\\rtf1\\ansi " + BODY + "{\\field{\\*\\fldinst{HYPERLINK \"x\"}}}" * (SIZE // 35) + "}",
        # one field start, then words with no brace or control word: no line can be broken there
        "field-then-words": "{\\rtf1\\ansi " + BODY + "{\\field{\\*\\fldinst{HYPERLINK \"x\"}}{" + "a " * (SIZE // 8) + "}",
        "field-then-cr-words": "{\\rtf1\\ansi " + BODY + "{\\field{\\*\\fldinst{HYPERLINK \"x\"}}{" + "a \r" * (SIZE // 12) + "}",
        # striprtf's patterns ignore case
        "upper-case-field-then-words": "{\\rtf1\\ansi " + BODY + "{\\field{\\*\\FLDINST{HYPERLINK \"x\"}}{" + "a " * (SIZE // 8) + "}",
        # font entries without the ";" that ends each: FONTTABLE's [^;]+ crosses line breaks
        "font-entries-without-semicolons": "{\\rtf1\\ansi{\\fonttbl" + "{\\f1\\fcharset0 x}" * 20_000 + "}\n" + BODY + "}",
        "flat-font-entries-without-semicolons": "{\\rtf1\\ansi{\\fonttbl" + "\\f1\\fcharset0 x " * 50_000 + "}\n" + BODY + "}",
    }


@pytest.mark.hostile
@pytest.mark.parametrize("kind", list(_floods()))
def test_a_line_of_pattern_starts_is_read_in_linear_time(tmp_path, kind):
    path = tmp_path / f"{kind}.rtf"
    path.write_text(_floods()[kind], encoding="latin-1")
    result = run_limited(["parse", "--json", str(path)])
    if kind in ("field-starts", "hyperlinks"):  # groups never closed, nested 100,000 deep and more
        assert result.ok_within_limits and result.returncode == 2 and b"MAX_RTF_DEPTH" in result.stderr, result
        return
    if kind in ("font-table", "font-table-escapes", "flat-font-entries-without-semicolons"):
        # more fonts than Word numbers (MAX_RTF_FONTS): refused, before any pattern runs (sweep 26)
        assert result.ok_within_limits and result.returncode == 2 and b"fonts, the most Word numbers" in result.stderr
        return
    assert result.ok_within_limits and result.returncode == 0, (result.seconds, result.stderr[-300:])
    assert b'"100.2"' in result.stdout


@pytest.mark.parametrize("rtf, expected", [
    ("x" * 300 + "\\\\par", "x" * 300 + "\\\\par"),  # an escaped backslash and "par": nowhere to break
    ("x" * 300 + "\\\\\\par", "x" * 300 + "\\\\\n\\par"),  # an escaped backslash, then \par
    ("x" * 300 + "\\{a", "x" * 300 + "\\{a"),  # an escaped brace
    ("x" * 300 + "\\\\{a", "x" * 300 + "\\\\\n{a"),
    ("x" * 300 + "{\\b a}", "x" * 300 + "\n{\\b a}"),
    ("x" * 100 + "{\\b a}", "x" * 100 + "{\\b a}"),  # short: left as it is
])
def test_long_lines_break_only_where_rtf_reads_the_same(rtf, expected):
    assert _short_lines(rtf) == expected


def test_a_broken_line_gives_the_same_text():
    words = " ".join(f"{{\\b word{i}}}\\'e9\\\\{{\\}}" for i in range(400))
    rtf = "{\\rtf1\\ansi " + BODY + "100.3. " + words + "\\par\n}"
    assert max(map(len, _short_lines(rtf).split("\n"))) < 2 * LINE_WIDTH
    from striprtf.striprtf import rtf_to_text

    assert rtf_to_text(_short_lines(rtf), encoding="cp1252") == rtf_to_text(rtf, encoding="cp1252")
    assert "word398é\\} word399é\\}" in crparse.parse(rtf.encode("latin-1")).rule("100.3").text


@pytest.mark.parametrize("length", ["", "-5", "9" * 5000, "5\u00b2"])
def test_a_bin_length_striprtf_cannot_read_is_refused_naming_it(length):
    rtf = "{\\rtf1\\ansi " + BODY + "{\\pict\\bin" + length + " abcde}}"
    with pytest.raises(RefusedInput, match=r"a \\bin control word without a length .* their binary data cannot be skipped"):
        crparse.parse(rtf.encode("latin-1"), format="rtf")


def test_a_picture_with_binary_data_is_skipped():
    rtf = ("{\\rtf1\\ansi " + BODY + "{\\pict\\bin5 abcde}}").encode("latin-1")
    assert "100.2" in crparse.parse(rtf, format="rtf")
    assert not any("abcde" in line for line in crparse.source_lines(rtf, format="rtf"))


def test_binary_data_that_runs_into_the_text_is_said():
    """striprtf skips N characters after \\binN: an N past the picture's end took the text
    after it, half a release's glossary, without a word; past the end of the file, all of it
    (sweep 14)."""
    rules = "".join(f"{n}. Rule {n}.\\par\n" for n in ("100.3", "100.4", "100.5", "100.6", "100.7"))
    rtf = "{\\rtf1\\ansi 100.1. Rule.\\par\n{\\pict\\bin5 ab}{\\b 100.2. Rule.}\\par\n" + rules + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert "100.2" not in doc  # skipped as the picture's data, as RTF readers do: now said
    (said,) = [d for d in doc.diagnostics if d.code == "rtf-binary"]
    assert said.severity == "warning" and "\\bin5 at byte 35 of the RTF file runs to byte 46" in said.message
    assert not [d for d in crparse.parse(rtf.replace("bin5", "bin2").encode("latin-1"), format="rtf").diagnostics
                if d.code == "rtf-binary"]
    with pytest.raises(RefusedInput, match=r"says 4,000 bytes of binary data follow, past the end of the file"):
        crparse.parse(rtf.replace("bin5", "bin4000").encode("latin-1"), format="rtf")


RTF_RULES = "".join(f"{n}. Rule {n}.\\par\n" for n in ("100.1", "100.2", "100.3", "100.4"))


def test_text_after_a_stray_closing_brace_is_read_and_said():
    """striprtf reads nothing past the document group's end: a stray "}" halfway dropped the rest
    of a release, said only as "truncated" (sweep 12)."""
    doc = crparse.parse(("{\\rtf1\\ansi " + RTF_RULES[:34] + "}\n" + RTF_RULES[34:] + "}\n").encode(), format="rtf")
    assert [rule.number for rule in doc.rules] == ["100.1", "100.2", "100.3", "100.4"]
    assert [d.code for d in doc.diagnostics if d.code == "rtf-stray-brace"] == ["rtf-stray-brace"]
    doc = crparse.parse(("{\\rtf1\\ansi " + RTF_RULES + "}\n").encode(), format="rtf")  # a group that ends last
    assert len(doc.rules) == 4 and not [d for d in doc.diagnostics if d.code == "rtf-stray-brace"]


@pytest.mark.parametrize("after", ["\\par}", "\\par\\b}"])
def test_a_stray_closing_brace_cut_out_joins_nothing(after):
    """Cut out, the "}" joined the control word before it to the text after: "\\par}100.2." read
    100 as \\par's parameter, and the rule was lost (sweep 28)."""
    rtf = "{\\rtf1\\ansi 100.1. Rule 100.1." + after + "100.2. Rule 100.2.\\par 100.3. Rule 100.3.\\par 100.4. Rule.\\par}"
    doc = crparse.parse(rtf.encode(), format="rtf")
    assert [rule.number for rule in doc.rules] == ["100.1", "100.2", "100.3", "100.4"]
    assert doc.rule("100.1").text == "Rule 100.1." and doc.rule("100.2").text == "Rule 100.2."


def test_a_rules_text_behind_an_rtf_header_is_refused_pointing_to_text():
    text = "{\\rtf1\\ansi hello}\n" + "".join(f"{n}. Rule {n}.\n\n" for n in ("100.1", "100.2", "100.3"))
    with pytest.raises(RefusedInput, match="read as RTF .* read as plain text it has some: give --format text"):
        crparse.parse(text.encode())


def test_footnotes_and_annotations_are_counted_not_dropped_silently():
    """striprtf leaves their text out; the DOCX reader says so of footnotes and comments, the RTF
    reader said nothing (sweep 14)."""
    rtf = ("{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule{\\footnote\\pard FOOTNOTE words.} 100.2.")
           .replace("Rule 100.3.", "Rule{\\*\\atnid J}{\\*\\annotation\\pard NOTE\\par} 100.3.")
           .replace("Rule 100.4.", "Rule{\\footnote second} 100.4.") + "}")
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert "FOOTNOTE" not in doc.rule("100.2").text
    (said,) = [d for d in doc.diagnostics if d.code == "rtf-not-read"]
    assert said.severity == "warning" and said.message.endswith("2 footnotes, 1 annotation (comment)")


@pytest.mark.parametrize("word", ["footnote", "fonttbl", "info", "pict", "fldinst", "comment", "header"])
def test_a_destination_word_inside_a_paragraph_is_said(word):
    """striprtf drops the rest of the group after a destination word wherever it stands: after a
    `\\footnote` typed in a paragraph, the rules that followed went without a word (sweep 40)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", f"Rule 100.2, see\\{word} the notes.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    said = [d for d in doc.diagnostics if d.code == "rtf-not-read"]
    assert len(said) == 1 and said[0].severity == "warning" and f"\\{word} at line" in said[0].message
    # a destination that opens its group, after a star, control words or a line break, is none such
    grouped = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", f"Rule 100.2.{{\\*\\lang1\r\n\\{word} x}}") + "}"
    assert "inside a group's text" not in " ".join(d.message for d in crparse.parse(grouped.encode(), format="rtf").diagnostics)
    # a backslash typed (`\\`) then the word is text, as striprtf reads it (review)
    typed = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", f"Rule 100.2, C:\\\\{word} here.") + "}"
    doc = crparse.parse(typed.encode("latin-1"), format="rtf")
    assert not [d for d in doc.diagnostics if d.code == "rtf-not-read"] and f"C:\\{word} here." in doc.rule("100.2").text


@pytest.mark.parametrize("inserted, said", [
    ("{\\shp{\\*\\shpinst{\\shptxt BOX words}}{\\shprslt{\\*\\do\\dptxbx{\\dptxbxtext BOX words}}}}", "1 text box"),
    ("{\\*\\do\\dobxcolumn{\\dptxbx{\\dptxbxtext BOX words}}}", "1 text box"),
    ("{\\xe {\\v BOX words}}{\\txe BOX}", "2 index entries"),
    ("{\\tc BOX words}", "1 table of contents entry"),
    ("{\\mmath{\\*\\moMath{\\mr BOX words}}}", "1 equation"),
])
def test_text_boxes_index_entries_and_equations_are_counted_not_dropped_silently(inserted, said):
    """striprtf leaves out the text of text boxes, index and contents entries and equations,
    which the reader dropped without a word (sweep 19)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule" + inserted + " 100.2.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert "BOX" not in doc.rule("100.2").text
    assert [(d.severity, d.message) for d in doc.diagnostics if d.code == "rtf-not-read" and d.severity == "warning"] == [
        ("warning", f"text the reader does not read: {said}")]


@pytest.mark.parametrize("inserted", [
    "{\\pntext\\pard\\plain 100.2.\\tab}",  # a paragraph's number, for readers that know no list table
    "{\\upr{100.2.}{\\*\\ud{100.2.}}}",  # Word's text with a Unicode copy
    "{\\object\\objemb{\\*\\objclass Word.Document.8}{\\*\\objdata 0102}{\\result 100.2.}}",
])
def test_destinations_whose_text_readers_show_are_read(inserted):
    """striprtf skips them whole: a rule number written in them was lost, and the rule's text ran
    into the rule above with only a number-gap warning (sweep 20)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("100.2. ", inserted + " ") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert "100.2" in [r.number for r in doc.rules], [r.number for r in doc.rules]
    assert not [d for d in doc.diagnostics if d.severity == "warning"], doc.diagnostics


@pytest.mark.parametrize("inserted, said", [
    ("{\\b\\footnote NOTE words.}", "1 footnote"),  # a destination after another control word
    ("{\\fs20 \\header NOTE words.\\par}", "1 header or footer"),
])
def test_a_destination_later_in_its_group_is_counted(inserted, said):
    """striprtf skips a group wherever a destination word is in it; only one that opened its
    group was counted (sweep 21)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule" + inserted + " 100.2.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert [d.message for d in doc.diagnostics if d.code == "rtf-not-read"] == [f"text the reader does not read: {said}"]


@pytest.mark.parametrize("inserted", ["{\\*\\pntext 100.2.\\tab}", "{\\*\\listtext 100.2.\\tab}"])
def test_a_starred_list_number_is_read(inserted):
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("100.2. ", inserted + " ") + "}"
    assert "100.2" in [r.number for r in crparse.parse(rtf.encode("latin-1"), format="rtf").rules]


@pytest.mark.parametrize("group", ["{\\v HIDDEN words}", "{\\deleted\\revauth1 HIDDEN words}", "{\\b\\v1 HIDDEN}"])
def test_hidden_and_deleted_text_is_not_read_into_rules(group):
    """Word shows neither; striprtf read both into the rules, without a word (sweep 21)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule" + group + " 100.2.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert "HIDDEN" not in " ".join(r.text for r in doc.rules) and doc.rule("100.2").text == "Rule 100.2."
    assert [d.code for d in doc.diagnostics if "hidden text" in d.message] == ["rtf-not-read"]
    shown = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule {\\v0 shown} \\{\\v x\\} 100.2.") + "}"
    assert "shown" in crparse.parse(shown.encode("latin-1"), format="rtf").rule("100.2").text


def test_headers_and_footers_are_counted_not_dropped_silently():
    rtf = "{\\rtf1\\ansi {\\header\\pard HEAD\\par}{\\footerr\\pard FOOT\\par}" + RTF_RULES + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert [d.message for d in doc.diagnostics if d.code == "rtf-not-read"] == [
        "text the reader does not read: 2 headers or footers"]


@pytest.mark.parametrize("header, body, accent", [("\\mac\\ansicpg10000", "", "\\'d5"),
                                                  ("\\ansi\\ansicpg1252", "{\\ansicpg1251 }", "\\'92"),
                                                  ("\\ansi\\ansicpg1252", "{\\ansicpg1251 }", "\\'e9")])
def test_the_header_code_page_is_the_file_s(header, body, accent):
    """striprtf read \\ansicpg10000 as "cp10000", which Python lacks, so UTF-8: a Mac file's
    accented letters became U+FFFD, said nowhere; one \\ansicpg in the body switched the code
    page of the rest (sweep 14)."""
    rtf = "{\\rtf1" + header + " " + body + RTF_RULES.replace("Rule 100.4.", "It" + accent + "s rule 100.4.") + "}"
    shown = {"\\'d5": "\u2019", "\\'92": "\u2019", "\\'e9": "\u00e9"}[accent]  # in the header's code page
    assert crparse.parse(rtf.encode("latin-1"), format="rtf").rule("100.4").text == f"It{shown}s rule 100.4."


@pytest.mark.parametrize("table", [
    "{\\f0\\froman Times New Roman;}{\\f1\\fcharset128 Other;}",  # no charset, then one
    "{\\f0\\froman Times New Roman;}{\\f1\\fcharset204 Other;}",
    "{\\f0\\froman Times New Roman;}{\\f1\\fcharset238 Other;}",
    "\\f0\\froman Times New Roman;\\f1\\fcharset204 Other;",  # entries without groups
    "\\f0\\froman Times New Roman \\f1\\fcharset204 Other ",  # nor their ";"
    "{\\f0\\fcharset0 Times;}{\\fcharset204\\f1 Other;}",  # a charset before the font's number
    "{\\f0\\froman{\\*\\panose 02020603050405020304}Times;}{\\f1\\fcharset204 Other;}",
])
def test_a_font_without_a_charset_is_read_in_the_document_s_code_page(table):
    """striprtf's FONTTABLE (`\\\\f(\\d+).*?\\\\fcharset(\\d+)`) ran from a font without a charset on to
    the next font's: its text was decoded in that code page, every curly quote U+FFFD under
    \\fcharset128, "caf\u00e9" read as "caf\u0439" under \\fcharset204, "cr\u00e8me" as "cr\u010dme" under
    \\fcharset238, without a word (sweep 24)."""
    rtf = ("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl" + table + "}\n"
           + RTF_RULES.replace("Rule 100.2.", "\\pard\\plain\\f0 \\'93Magic\\'94 caf\\'e9 cr\\'e8me\\'85 now.")
           + "100.5. {\\f1 \\'e9}.\\par\n}")
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text == "\u201cMagic\u201d caf\u00e9 cr\u00e8me\u2026 now."
    if "204" in table:  # the other font's text is still read in its own code page
        assert doc.rule("100.5").text == "\u0439."


def test_a_font_s_charset_far_from_its_number_is_kept():
    """A line break put between a font's number and its \\fcharset (long lines are broken every
    256 characters) hid the charset from striprtf's font table pattern: the font's text was read
    in the document's code page, "\u0439" as "\u00e9", without a word (sweep 25)."""
    words = "\\fswiss" * 60  # more than a line's width between the number and the charset
    rtf = ("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\fcharset0 Times;}{\\f1" + words + "\\fcharset204 Other;}}\n"
           + RTF_RULES + "100.5. {\\f1 \\'e9}.\\par\n}")
    assert crparse.parse(rtf.encode("latin-1"), format="rtf").rule("100.5").text == "\u0439."


@pytest.mark.parametrize("name", ["Ar\\{ial", "A\\}b", "x\\\\{\\fs20}y"])
def test_a_brace_in_a_font_name_is_text(name):
    """An escaped brace in a font's name was counted as a group's: "\\{" made a ";" go before its
    brace, a group that hid the whole text (refused as having no rules), and "\\}" ended the table
    there, the next font's charset lost, its text read in the document's code page (sweep 26)."""
    rtf = ("{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0\\fcharset0 " + name + ";}{\\f1\\fcharset204 Cyr;}}\n"
           + RTF_RULES + "100.5. {\\f1 \\'e0\\'e1\\'e2}.\\par\n}")
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.5").text == "\u0430\u0431\u0432." and "100.4" in doc


@pytest.mark.parametrize("which", ["number", "charset"])
def test_a_font_number_or_charset_of_many_digits(tmp_path, which):
    """A font number of 100,000 digits made striprtf's font table pattern backtrack over it (over
    30 s); a charset of 5,000 was refused in Python's words ("Exceeds the limit (4300 digits)")
    (sweep 25). Both are cut to ten digits, as striprtf reads a \\fN in the text."""
    digits = "9" * (100_000 if which == "number" else 5_000)
    entry = f"\\f{digits}\\fcharset0 A;" if which == "number" else f"\\f0\\fcharset{digits} A;"
    path = tmp_path / "fonts.rtf"
    path.write_text("{\\rtf1\\ansi{\\fonttbl{" + entry + "}}\n" + RTF_RULES + "}", encoding="latin-1")
    result = run_limited(["parse", str(path)], seconds=10)
    assert result.ok_within_limits and result.returncode == 0, (result.timed_out, result.stderr[-300:])


@pytest.mark.parametrize("word", ["\\fs240000000000", "\\ansicpg125200000000000000000000", "\\li-99999999999999",
                                  "\\sb-77777777777777777"])
def test_a_control_word_parameter_past_ten_digits_is_no_text(word):
    """striprtf reads ten digits of a parameter and takes the rest for text: "\\fs240000000000"
    put "00" into a rule, and "\\ansicpg" with 30 digits put 20 before a rule's number, which
    was lost (sweep 27)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule " + word + " 100.2.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text == "Rule 100.2." and "100.4" in doc
    # a typed backslash before such digits: text, as it was
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule C:\\\\fs240000000000 100.2.") + "}"
    assert crparse.parse(rtf.encode("latin-1"), format="rtf").rule("100.2").text == "Rule C:\\fs240000000000 100.2."


@pytest.mark.parametrize("typed", ["Files in C:\\\\bin0 and C:\\\\pictures.", "A \\pictfoo word.", "C:\\\\\\\\\\\\pictures"])
def test_typed_pict_and_bin_are_text(typed):
    """striprtf finds pictures by the substring "\\\\pict" once the file holds "\\\\bin": typed text
    ("C:\\\\\\\\pictures") or a word starting so dropped the text up to the next "}" (sweep 15); and
    a typed "C:\\\\\\\\bin" was refused as a \\\\bin without a length."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule 100.2. " + typed + " Kept.") + "{\\pict\\bin2 ab}}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text.endswith(" Kept."), doc.rule("100.2").text
    assert "100.4" in doc


@pytest.mark.parametrize("codepage", ["1252", "500", "10000"])
def test_a_typed_backslash_before_pict_stays_one_in_any_code_page(codepage):
    rtf = ("{\\rtf1\\ansi\\ansicpg" + codepage + " " + RTF_RULES.replace("Rule 100.2.", "Rule 100.2. C:\\\\pictures.")
           + "{\\pict\\bin2 ab}}")
    assert crparse.parse(rtf.encode("latin-1"), format="rtf").rule("100.2").text == "Rule 100.2. C:\\pictures."


@pytest.mark.parametrize("picture", [
    "{\\pict{\\*\\picprop{\\sp{\\sn x}{\\sv 1}}}\\bin12 100.9. Junk.}{}",  # a group opens the picture (N1)
    "{\\pict\\bin16 }}}}100.9. Junk.}",  # braces in the data (N2)
    "{\\pict\\bin16 {{{{100.9. Junk.}",
    "{\\object{\\*\\objdata\\bin16 }}}}100.9. Junk.}}",  # data outside a picture
    "{\\*\\shppict{\\pict\\bin17 }}}}\n100.9. Junk.}}",  # a line break in the data: line numbers stay
])
def test_binary_data_is_skipped_whatever_it_holds(picture):
    """striprtf ended a picture at the first "}" within it, so the data after a group that opens
    it was read as text, and braces in the data counted as groups: a stray "}" warned of, text
    after it read (sweep 16). Binary data is skipped as RTF readers skip it, in any group."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("100.3. ", picture + "100.3. ") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert [r.number for r in doc.rules] == ["100.1", "100.2", "100.3", "100.4"], doc.diagnostics
    assert not any("Junk" in line for line in crparse.source_lines(rtf.encode("latin-1"), format="rtf"))
    assert not [d for d in doc.diagnostics if d.severity != "info"], doc.diagnostics


@pytest.mark.parametrize("length", ["9" * 5000, "99999999999999999999"])
def test_a_bin_past_the_end_is_refused_without_pictures_too(length):
    rtf = "{\\rtf1\\ansi " + RTF_RULES + "{\\object\\bin" + length + " ab}}"
    with pytest.raises(RefusedInput, match=r"binary data follow, past the end of the file"):
        crparse.parse(rtf.encode("latin-1"), format="rtf")


@pytest.mark.parametrize("uc", ["9999999999", "9" * 5000, "50", "-", "-5"])  # "-": int(None), sweep 28
def test_an_absurd_fallback_count_is_capped_and_said(uc):
    """\\ucN: N characters after each \\uN are skipped; \\uc9999999999 dropped the rest of a rule
    up to the next control word without a word (sweep 17)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", f"Rule 100.2. Caf\\uc{uc} \\u233? and more.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text == "Rule 100.2. Caf\u00e9 and more.", doc.diagnostics
    (said,) = [d for d in doc.diagnostics if d.code == "rtf-bad-escape"]
    assert said.severity == "warning" and "read as \\uc1" in said.message


def test_a_usual_fallback_count_is_kept():
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("Rule 100.2.", "Rule \\uc2 \\u233ab100.2.") + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text == "Rule \u00e9100.2." and not doc.diagnostics, doc.diagnostics


@pytest.mark.parametrize("tail, refused", [("{" * 3_900_000, True), ("{a" * 100_000, True), ("{}" * 1_000_000, False),
                                           ("{" * 9_000 + "}" * 9_000, False)])
def test_groups_nested_past_the_limit_are_refused(tail, refused):
    """striprtf keeps a state for each open group: 3.9 million "{" took 362 MiB, 93 times the file
    (sweep 17)."""
    rtf = ("{\\rtf1\\ansi " + RTF_RULES + tail + "}").encode("latin-1")
    if refused:
        with pytest.raises(RefusedInput, match=r"RTF groups nested more than 10,000 deep"):
            crparse.parse(rtf, format="rtf")
    else:
        assert "100.4" in crparse.parse(rtf, format="rtf")


def test_millions_of_stray_closings_cost_no_list_each():
    """Each "}" that closed the document early was a cut in a list, and its text a piece: 3.9
    million took 269 MiB (sweep 17)."""
    import tracemalloc

    rtf = ("{\\rtf1\\ansi " + RTF_RULES + "}" * 1_000_000 + "100.5. After.\\par}").encode("latin-1")
    tracemalloc.start()
    try:
        doc = crparse.parse(rtf, format="rtf")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "100.5" in doc and peak < 40 * len(rtf), peak
    (said,) = [d for d in doc.diagnostics if d.code == "rtf-stray-brace"]
    assert "1,000,000 such" in said.message


@pytest.mark.parametrize("opener", ["{\\pict\\pngblip 0a0b0c\n", "{\\*\\bkmkstart x\n"])
def test_a_destination_never_closed_is_said(opener):
    """A picture or bookmark group left open mid-document is closed by the file's last "}": the
    rules after it were skipped as its content, exit 0, no word (sweep 18)."""
    before = "".join(f"100.{i}. Rule {i} before.\\par\n" for i in range(1, 11))
    after = "".join(f"100.{i}. Rule {i} after.\\par\n" for i in range(11, 21))
    rtf = "{\\rtf1\\ansi{\\fonttbl{\\f0 Times;}}\n100. General\\par\n" + before + opener + after + "}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    (said,) = [d for d in doc.diagnostics if d.code == "rtf-unclosed-group"]
    assert said.severity == "warning" and "opened at line 13 of the RTF file" in said.message, said
    with pytest.raises(RefusedInput, match="is never closed"):  # the refusal of one whose rules all went says why
        crparse.parse(("{\\rtf1\\ansi " + opener + before + after + "}").encode("latin-1"), format="rtf")
    assert not [d for d in crparse.parse(rtf.replace(opener, opener + "}").encode("latin-1"), format="rtf").diagnostics
                if d.code == "rtf-unclosed-group"]


def test_groups_of_many_spaced_control_words_are_read_in_linear_time(tmp_path):
    """The patterns that find a destination or hidden text among a group's first 16 control
    words matched a space after a word in two ways: 2^16 tries a group, 52 KB took 16 s (sweep 22)."""
    groups = ("{" + "\\b " * 16 + "x}") * 4_000
    path = tmp_path / "spaced.rtf"
    path.write_text("{\\rtf1\\ansi " + RTF_RULES + groups + "{\\v hidden}}", encoding="latin-1")
    result = run_limited(["parse", "--json", str(path)], seconds=5)
    assert result.ok_within_limits and result.returncode == 0, result.stderr


@pytest.mark.parametrize("charset, encoding", [("\\pc", "cp437"), ("\\pca", "cp850"), ("\\mac", "mac_roman"),
                                               ("\\ansi", "cp1252")])
def test_the_character_set_word_names_the_code_page(charset, encoding):
    """\\pc (437) and \\pca (850) were read as cp1252: "caf\\'82" was "caf‚" (sweep 27)."""
    body = RTF_RULES.replace("Rule 100.2.", "Rule 100.2. Caf\\'" + "caf\u00e9".encode(encoding)[-1:].hex() + ".")
    doc = crparse.parse(("{\\rtf1" + charset + " " + body + "}").encode("latin-1"), format="rtf")
    assert doc.source.encoding == encoding and doc.rule("100.2").text == "Rule 100.2. Caf\u00e9."


def test_bytes_the_code_page_does_not_decode_are_said():
    """Under \\ansicpg65001, bytes that are no UTF-8 became U+FFFD without a word (sweep 27)."""
    body = RTF_RULES.replace("Rule 100.2.", "Rule 100.2. Caf\\'e9 \\'96.")
    doc = crparse.parse(("{\\rtf1\\ansi\\ansicpg65001 " + body + "}").encode("latin-1"), format="rtf")
    assert doc.rule("100.2").text == "Rule 100.2. Caf\ufffd \ufffd."
    assert [d.message for d in doc.diagnostics if d.code == "replacement-characters"] == [
        "2 U+FFFD replacement character(s): bytes the document's code page (utf-8) does not decode, or the character "
        "itself in the file"]


def test_wordart_text_is_said_not_read():
    """A WordArt shape's text is a property's value: dropped with no word, where a text box's
    was counted (sweep 27)."""
    shape = "{\\shp{\\*\\shpinst{\\sp{\\sn gtextUNICODE}{\\sv 100.9. Shown on the page}}}}"
    doc = crparse.parse(("{\\rtf1\\ansi " + RTF_RULES + shape + "}").encode("latin-1"), format="rtf")
    assert [d.message for d in doc.diagnostics if d.code == "rtf-not-read"] == [
        "text the reader does not read: 1 WordArt text"]


def test_a_font_table_past_the_fonts_word_numbers_is_refused():
    """A table of a million bare "\\f1" took 64 times a 4 MB file's size in memory (sweep 26):
    past the 32,767 fonts Word numbers, the file is refused, in one line; up to them, read."""
    from crparse.readers.rtf import MAX_RTF_FONTS

    def rtf(fonts: int) -> bytes:
        return ("{\\rtf1\\ansi{\\fonttbl" + "\\f1 " * fonts + "}\n" + RTF_RULES + "}").encode("latin-1")

    assert "100.4" in crparse.parse(rtf(MAX_RTF_FONTS), format="rtf")
    with pytest.raises(RefusedInput, match=f"its font table holds more than {MAX_RTF_FONTS:,} fonts"):
        crparse.parse(rtf(MAX_RTF_FONTS + 1), format="rtf")


@pytest.mark.parametrize("star", ["\\* ", "\\*", "\\*\n"])
def test_a_star_outside_a_group_s_start_skips_nothing(star):
    """"\\*" belongs right after a group's "{": elsewhere striprtf took it for the document group's,
    and the rest of the document was skipped without a word (sweep 29)."""
    rtf = "{\\rtf1\\ansi " + RTF_RULES.replace("100.3.", star + "100.3.") + "{\\*\\comment not shown}}"
    doc = crparse.parse(rtf.encode("latin-1"), format="rtf")
    assert [r.number for r in doc.rules] == ["100.1", "100.2", "100.3", "100.4"]
    assert "not shown" not in " ".join(crparse.source_lines(rtf.encode("latin-1"), format="rtf"))
