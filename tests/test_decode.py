"""Stage 1: every byte layout the CR shipped in decodes to the same NFC, LF text."""

from __future__ import annotations

import pytest

import crparse
from crparse.decode import decode, decode_bytes
from crparse.errors import RefusedInput

TEXT = "100.1. The card Dandân and the Æther are “quoted” – with an en dash.\n100.1a Second line.\n"


@pytest.mark.parametrize(
    ("data", "encoding", "bom"),
    [
        (TEXT.encode("utf-8"), "utf-8", False),
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "utf-8", True),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16-le", True),
        (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16-be", True),
        (TEXT.encode("utf-16-le"), "utf-16-le", False),
        (TEXT.encode("cp1252"), "cp1252", False),
    ],
)
def test_unicode_and_windows_layouts(data, encoding, bom):
    decoded = decode(data)
    assert decoded.text == TEXT
    assert (decoded.encoding, decoded.bom) == (encoding, bom)


def test_dos_cp437_card_names():
    # The 2006-2013 DOS files: ASCII except card names, "Dand\x83n" and "\x92ther".
    data = b"100.1. Dand\x83n is a card. \x92ther Flash is another. Don't worry.\n" * 3
    decoded = decode(data)
    assert decoded.encoding == "cp437"
    assert "Dandân" in decoded.text and "Æther" in decoded.text


def test_mac_roman_with_cr_line_endings():
    data = "100.1. Magic\u2122 \u2013 El-Hajj\u00e2j says \u201chi.\u201d\r100.2. Next\r".encode("mac_roman")
    decoded = decode(data)
    assert decoded.encoding == "mac_roman"
    assert decoded.text == "100.1. Magic™ – El-Hajjâj says “hi.”\n100.2. Next\n"
    assert decoded.line_endings == "CR"


def test_ascii():
    decoded = decode(b"100.1. Plain.\r\n")
    assert (decoded.encoding, decoded.text, decoded.line_endings) == ("ascii", "100.1. Plain.\n", "CRLF")


def test_mixed_line_endings_keep_blank_lines():
    # CR-only files with CRLF at chapter breaks: "\r\r\n" is a line end and a blank line.
    decoded = decode(b"a\rb\r\r\nc\r\n")
    assert decoded.text == "a\nb\n\nc\n"
    assert decoded.line_endings.startswith("mixed")


def test_nfc():
    decoded = decode("Dandа\u0302n".replace("а", "a").encode("utf-8"))
    assert decoded.lines == ["Dandân"]


@pytest.mark.parametrize("end", ["\n", "\r", "\r\n", "\x85", "\u2028", "\u2029"],
                         ids=["LF", "CR", "CRLF", "NEL", "LS", "PS"])
def test_mixed_encodings_are_diagnosed_with_the_line(end):
    """Split on LF alone, a file of CR-ended lines was one line: one cp1252 byte read all of it
    in the other code page, under a warning of one line at the wrong place (sweep 14); so were
    files whose lines end in NEL, LS or PS (sweep 43)."""
    data = ("100.1. “UTF-8” line" + end).encode() * 3 + "100.2. A cp1252 line – here".encode("cp1252") + end.encode()
    data += ("100.3. “UTF-8” again" + end).encode()
    decoded = decode(data)
    assert "100.2. A cp1252 line – here" in decoded.text
    assert decoded.text.count("“UTF-8”") == 4 and "“UTF-8” again" in decoded.text
    (diag,) = [d for d in decoded.diagnostics if d.code == "mixed-encoding"]
    assert diag.line == 4 and "except 1 line(s)" in diag.message


def test_replacement_characters_are_reported():
    decoded = decode("100.1. Magic\ufffd game\n\n100.2. more\ufffd\n".encode("utf-8"))
    (diag,) = decoded.diagnostics
    assert diag.code == "replacement-characters" and diag.line == 1 and "2 U+FFFD" in diag.message


def test_question_mark_damage_is_reported():
    line = "100.1. The owner?s card doesn?t leave. Its controller?s choice.\n"
    decoded = decode((line * 20).encode("ascii"))
    assert [d.code for d in decoded.diagnostics] == ["lossy-question-marks"]


def test_urls_and_real_questions_are_not_damage():
    line = "See www.wizards.com/default.asp?x=magic/rules. Questions? Ask.\n"
    assert decode((line * 50).encode("ascii")).diagnostics == ()


def test_utf16_through_lossy_utf8_pass_is_recovered():
    original = "Magic: The Gathering® Comprehensive Rules\n100.1. These Magic® rules.\n"
    mangled = (b"\xff\xfe" + original.encode("utf-16-le")).decode("utf-8", errors="replace").encode("utf-8")
    decoded = decode(mangled)
    assert decoded.encoding == "utf-16-le"
    assert "Comprehensive Rules" in decoded.text and "100.1. These Magic" in decoded.text
    assert [d.code for d in decoded.diagnostics] == ["mangled-utf16"]


@pytest.mark.parametrize("data", [b"", b"   \n\n", b"\x00\x01\x02\x03" * 100, bytes(range(256)) * 40])
def test_empty_and_binary_are_refused(data):
    with pytest.raises(RefusedInput):
        decode(data)


def test_a_long_run_of_combining_marks_is_left_unnormalised_with_a_diagnostic():
    """Python's NFC is quadratic in a run of out-of-order combining marks (100,000: 40 s)."""
    from crparse.decode import decode_bytes

    text = "100.1. caf\u0065\u0301\n100.2. a" + "\u0301\u0316" * 50_000 + "\n100.3. e\u0301\n"
    decoded = decode_bytes(text.encode("utf-8"))
    assert decoded.lines[0] == "100.1. caf\u00e9" and decoded.lines[2] == "100.3. \u00e9"  # the others are NFC
    assert decoded.lines[1] == "100.2. a" + "\u0301\u0316" * 50_000  # as decoded
    [d] = [d for d in decoded.diagnostics if d.code == "long-combining-run"]
    assert d.line == 2


@pytest.mark.parametrize("marks", ["\u0f72\u0f71", "\u05c2\u05c1", "\u0e48\u0e38", "\u302b\u302a", "\u094d\u093c",
                                   "\U0001d16d\U0001d165", "\u3099\u0316", "\u0f73", "\u0f75\u0f81"])
def test_a_run_of_any_combining_class_is_left_unnormalised(marks):
    """Marks outside the blocks the guard listed (Tibetan, Hebrew points, Thai, CJK, Devanagari,
    musical symbols, kana voicing): NFC took 38 s on 200,000 pairs of them."""
    import signal

    from crparse.decode import decode_bytes

    def expire(*_):
        raise TimeoutError("NFC of the run took over 5 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 5)
    try:
        decoded = decode_bytes(("100.1. x" + marks * 100_000 + "\n100.2. caf\u0065\u0301\n").encode("utf-8"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert [d.line for d in decoded.diagnostics if d.code == "long-combining-run"] == [1]
    assert decoded.lines[1] == "100.2. caf\u00e9"


def test_a_run_of_precomposed_letters_is_normalised():
    """Only characters that decompose into marks alone (U+0F73) join the guarded runs: a line of
    accented letters or Hangul syllables is NFC as any other."""
    from crparse.decode import decode_bytes

    decoded = decode_bytes(("100.1. " + "e\u0301" * 100 + " \uac00" * 100 + "\n").encode("utf-8"))
    assert decoded.lines[0] == "100.1. " + "\u00e9" * 100 + " \uac00" * 100
    assert not decoded.diagnostics



@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-16"])
def test_utf16_behind_a_utf8_bom_is_read_as_utf16(codec):
    """Read as UTF-8, "1\\x000\\x00..." was refused as "no numbered rules" (sweep 17)."""
    import crparse

    text = "100. General\n\n100.1. These Magic rules apply to any Magic game.\n\n100.2. To play, each player needs a deck.\n"
    doc = crparse.parse(b"\xef\xbb\xbf" + text.encode(codec))
    assert doc.rule("100.1").text == "These Magic rules apply to any Magic game."
    assert [d.code for d in doc.diagnostics if d.code == "bom-mismatch"] == ["bom-mismatch"]


def test_binary_behind_a_utf8_bom_is_refused_as_binary():
    with pytest.raises(RefusedInput, match="binary data"):
        decode_bytes(b"\xef\xbb\xbf" + bytes(range(256)) * 20)


@pytest.mark.parametrize("separator, said", [("\x85", "NEL"), ("\u2028", "LS"), ("\u2029", "PS")])
def test_a_text_whose_lines_end_in_unicode_separators_is_read(separator, said):
    """No CR or LF: the text was one line, refused as having no rules (sweep 20)."""
    text = separator.join(["100. General", "", "100.1. One.", "", "100.2. Two. See rule 100.1.", ""])
    doc = crparse.parse(text.encode(), format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2"] and doc.source.line_endings == said
    assert doc.rule("100.2").line == 5 and [d.code for d in doc.diagnostics] == ["line-separators"]


@pytest.mark.parametrize("separator", ["\x85", "\u2028"])
def test_lines_ending_in_separators_and_one_lf_at_the_end_are_read(separator):
    """Separators were read as line ends only in a text with no CR or LF at all: lines in NEL and
    one LF at the end were one line, refused (sweep 22)."""
    text = separator.join(["100. General", "", "100.1. One.", "", "100.2. Two.", ""]) + "\n"
    doc = crparse.parse(text.encode(), format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2"]



@pytest.mark.parametrize("bom, name", [(b"\xff\xfe", "UTF-16LE"), (b"\xfe\xff", "UTF-16BE")])
@pytest.mark.parametrize("codec, encoding", [("ascii", "ascii"), ("utf-8", "utf-8"), ("cp1252", "cp1252")])
def test_8bit_text_behind_a_utf16_bom_is_read_as_it_is(bom, name, codec, encoding):
    """Read as UTF-16, it was CJK, refused as "no numbered rules" (sweep 24): a CR in UTF-16 has a
    NUL in every digit, space and line end."""
    text = "100. General\n\n100.1. These Magic rules apply to any Magic game.\n\n100.2. To play: “café”.\n"
    if codec == "ascii":
        text = text.replace("“café”", "a deck")
    doc = crparse.parse(bom + text.encode(codec))
    assert doc.rule("100.2").text == text.splitlines()[-1].removeprefix("100.2. ")
    assert doc.source.encoding == encoding and doc.source.bom
    said = [d.message for d in doc.diagnostics if d.code == "bom-mismatch"]
    assert said == [f"a {name} byte-order mark before {encoding} text: read as {encoding}"]


def test_genuine_utf16_with_a_bom_is_still_utf16():
    text = "100. General\n\n100.1. 這些規則。\n\n100.2. To play.\n"
    for codec, bom in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")):
        doc = crparse.parse(bom + text.encode(codec))
        assert doc.rule("100.1").text == "這些規則。" and doc.source.encoding == codec
        assert not [d for d in doc.diagnostics if d.code == "bom-mismatch"]


@pytest.mark.parametrize("before, after", [(b"", b""), (b"", b"\n"), (b"", b"\r\n"), (b"\xef\xbb\xbf", b"")])
def test_8bit_lines_ending_in_byte_0x85_are_read(before, after):
    """Byte 0x85 is NEL in ISO-8859-1 (an EBCDIC file converted byte for byte): read as cp1252's
    "…", the text was one line, refused (sweep 24). UTF-8 holding 0x85 inside a character
    ("Å" is C3 85) and no line end stays one line, as before."""
    lines = ["100. General", "", "100.1. One, café.", "", "100.2. Two. See rule 100.1.", ""]
    text = "\x85".join(lines)
    # (one line end at the end, or a UTF-8 BOM, made it one line again: sweep 25)
    doc = crparse.parse(before + text.encode("latin-1") + after, format="text")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2"] and doc.source.line_endings == "NEL"
    assert doc.rule("100.1").text == "One, café." and doc.rule("100.2").line == 5
    decoded = decode_bytes("100.1. Å one line only, 100.2. Å".encode())
    assert decoded.lines == ["100.1. Å one line only, 100.2. Å"]


def test_utf16_marks_in_a_row_before_8bit_text_are_one_mismatch():
    """Each mark before 8-bit text read what followed it as a new file, one call deeper: 3,000
    marks in a row were a RecursionError, exit 3 (review of sweep 24's fix)."""
    decoded = decode_bytes(b"\xff\xfe" * 3000 + b"100.1. Rule one.\n\n100.2. Rule two.\n")
    assert [d.code for d in decoded.diagnostics] == ["bom-mismatch"] and decoded.lines[2] == "100.2. Rule two."


@pytest.mark.parametrize("marks", [2, 5])
def test_utf16_behind_several_utf8_marks_is_read_as_utf16(marks):
    """A second UTF-8 mark passed the UTF-16 behind them as UTF-8: refused as "no numbered rules"
    (sweep 26)."""
    import crparse

    text = "100. General\n\n100.1. These Magic rules apply to any Magic game.\n\n100.2. To play.\n"
    doc = crparse.parse(b"\xef\xbb\xbf" * marks + b"\xff\xfe" + text.encode("utf-16-le"))
    assert doc.rule("100.1").text == "These Magic rules apply to any Magic game."
    assert [d.code for d in doc.diagnostics if d.code == "bom-mismatch"] == ["bom-mismatch"]


def test_a_byte_a_code_page_leaves_undefined_does_not_change_the_code_page():
    """One 0x81 (undefined in cp1252) in a cp1252 release left cp1252 out: the whole file was read
    as mac_roman, every "—" an "ó" and every "–" an "ñ", with no diagnostic (sweep 27)."""
    text = "".join(f"100.{n}. A rule — with a dash, 100.{n}a–100.{n}c and Magic™.\n" for n in range(1, 40))
    data = text.encode("cp1252")
    at = data.index(b"100.20.")
    decoded = decode(data[:at] + b"\x81" + data[at:])
    assert decoded.encoding == "cp1252"
    assert decoded.text.count("—") == 39 and "ó" not in decoded.text
    assert [d.code for d in decoded.diagnostics] == ["replacement-characters"]


def test_utf8_with_a_stray_code_page_byte_is_utf8_whatever_few_sequences_it_has():
    """Two em dashes in UTF-8 and one cp1252 apostrophe were read as cp1252 ("â€”"), with no
    diagnostic: UTF-8 was kept only from three UTF-8 sequences up (sweep 27). Most of the runs
    of high bytes being UTF-8 is enough."""
    data = "100.1. First — rule.\n\n100.2. Second — rule.\n\n".encode() + b"100.3. Player\x92s turn.\n"
    decoded = decode(data)
    assert decoded.encoding == "utf-8" and decoded.text.count("—") == 2 and "Player’s" in decoded.text
    assert [d.code for d in decoded.diagnostics] == ["mixed-encoding"]
    # most runs in a code page, one that reads as UTF-8: the code page, and said
    data = ("100.1. Caf\u00e9 \u2014 \u00e0 la carte. " * 4 + "\n").encode("cp1252") + b"100.2. \xc3\xa9t\xc3\xa9\n"
    decoded = decode(data)
    assert decoded.encoding == "cp1252" and decoded.text.count("—") == 4
    (said,) = [d for d in decoded.diagnostics if d.code == "mixed-encoding"]
    assert said.line == 2 and "read as cp1252, though 2 run(s)" in said.message


def test_utf16_whose_first_kilobytes_hold_no_zero_byte_is_utf16():
    """A UTF-16 BOM before text with no byte 0 in its first 4 KB (a banner of box-drawing
    characters) was taken for 8-bit text behind the mark, and refused as binary (sweep 28)."""
    text = "\u2550" * 2100 + "\n100.1. First rule.\n100.2. Second.\n"
    decoded = decode(b"\xff\xfe" + text.encode("utf-16-le"))
    assert (decoded.encoding, decoded.text) == ("utf-16-le", text)


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be"])
def test_utf32_without_a_mark_is_named_as_such(codec):
    """UTF-32 without a byte-order mark was refused as binary data, where the same text with its
    mark was named (sweep 32); UTF-16 without one is still read."""
    text = "100. General\n\n100.1. These rules apply to every game.\n\n100.2. To play, each player needs a deck.\n"
    with pytest.raises(RefusedInput, match=r"UTF-32 text \(no byte-order mark\) is not supported"):
        decode_bytes(text.encode(codec))
    assert decode_bytes(text.encode(codec.replace("32", "16"))).text.startswith("100. General")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_of_cjk_text_without_a_mark_is_read(codec):
    """UTF-16 without a byte-order mark was read when its text was ASCII, but refused as binary
    data once it held CJK text, whose NULs fall on both sides (sweep 33)."""
    text = "100. General\n\n100.1. One.\n\n100.2. Two.\n" + "\u4e2d\u6587" * 1000 + "\n"
    decoded = decode_bytes(text.encode(codec))
    assert decoded.text.startswith("100. General") and "\u4e2d\u6587" in decoded.text
    with pytest.raises(RefusedInput, match="binary data"):
        decode_bytes(b"100. General\n\n100.1. One\x00 two.\n")


def test_text_padded_with_nuls_is_no_utf32():
    with pytest.raises(RefusedInput, match="binary data"):
        decode_bytes(b"see rule 999.9\n" * 20 + b"\0" * 8192)


def test_text_with_a_stray_nul_before_a_line_end_is_no_utf16():
    """Its one "\\0\\n" decodes to a line end in UTF-16-BE, and its other line ends to ideographs."""
    with pytest.raises(RefusedInput, match="binary data"):
        decode_bytes(b"// CR 999.9z\n" * 50 + b"int x;\0\n")


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_utf16_chinese_whose_characters_hold_line_end_bytes_is_read(line_end):
    """不 (U+4E0D) and 上 (U+4E0A) hold the bytes 0x0D and 0x0A: counted as line ends, real
    Chinese without a mark was refused as binary data (sweep 34)."""
    text = line_end.join(["100. 总则", ""] + [f"100.{i}. 玩家不能上场，不上不下。{i}" for i in range(1, 200)]) + line_end
    assert "不上不下" in decode_bytes(text.encode("utf-16-le")).text


def test_ascii_with_one_stray_nul_and_parentheses_is_no_utf16():
    """"( " read as UTF-16-LE is U+2028, a line separator: a release with one stray NUL was read
    as UTF-16, and cite-check lost its citations without a word (sweep 35)."""
    text = "".join(f"100.{i}. A rule (see rule 100.{i + 1}) and ( more ) text.\n" for i in range(1, 400))
    data = text.encode()
    data = data[:5000] + b"\0" + data[5001:]
    with pytest.raises(RefusedInput, match="binary data"):
        decode_bytes(data)


_QUOTED = "".join(f"100.{i}. Rule {i}, the letters “l” and “o” — and Mox’s “Ghazbán Ogre”.\n" for i in range(1, 60))


@pytest.mark.parametrize("codec", ["gb18030", "big5", "euc_kr", "euc_jp", "shift_jis"])
def test_a_copy_saved_in_a_cjk_double_byte_code_page_is_read_in_it_and_said(codec):
    """Read as mac_roman, each quote two letters ("°∞l°±"), without a word (sweep 38)."""
    text = "".join(c if c.isascii() or _encodes(c, codec) else "-" for c in _QUOTED)
    decoded = decode_bytes(text.encode(codec))
    # EUC-KR's quotes and dashes are GB2312's: without other characters, the two read alike
    assert decoded.encoding == codec.replace("euc_kr", "gb18030") and decoded.lines[0] == text.splitlines()[0]
    assert [d.code for d in decoded.diagnostics] == ["double-byte-encoding"]


@pytest.mark.parametrize("codec", ["gb18030", "shift_jis"])
@pytest.mark.parametrize("damage", ["cut", "stray"])
def test_a_cjk_copy_with_a_byte_it_cannot_read_is_read_in_it_still(codec, damage):
    """One stray byte, or a last character cut short, and it was read as mac_roman (sweep 39)."""
    text = "".join(c if c.isascii() or _encodes(c, codec) else "-" for c in _QUOTED)
    data = text.encode(codec)
    data = data + b"\x81" if damage == "cut" else data[:200] + b"\x80\n" + data[200:]
    decoded = decode_bytes(data)
    assert decoded.encoding == codec and decoded.lines[0] == text.splitlines()[0]
    assert "double-byte-encoding" in [d.code for d in decoded.diagnostics]


def test_euc_kr_is_told_from_gb18030_by_its_other_characters():
    """The windows scored cut characters in half, and EUC-KR's (R), (TM) and infinity were read
    as GB18030's circled numbers (sweep 39)."""
    text = "".join(f"100.{i}. Magic: The Gathering® and Wizards™ - “∞” here.\n" for i in range(1, 60))
    decoded = decode_bytes(text.encode("euc_kr"))
    assert decoded.encoding == "euc_kr" and decoded.lines[0] == text.splitlines()[0]


def _encodes(char: str, codec: str) -> bool:
    try:
        char.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize("codec", ["cp1252", "mac_roman"])
def test_a_western_code_page_with_pairs_of_high_bytes_is_no_double_byte_one(codec):
    # runs of one high byte, and of two (two accented letters)
    decoded = decode_bytes(("".join(f"100.{i}. Ghazbán “the” Æther — ñé.\n" for i in range(1, 60))).encode(codec))
    assert decoded.encoding == codec and "double-byte-encoding" not in [d.code for d in decoded.diagnostics]


def test_a_gb18030_fragment_with_four_byte_characters_is_read_in_it():
    """GB18030 writes NBSP, (R), (TM), an en dash and â in four bytes, two of them digits: a
    fragment holding a few had too many lone high bytes to be taken for pairs, and was read as
    mac_roman, without a word (sweep 40)."""
    text = "".join(f"100.{i}. These rules apply to “all games” of Magic — always.\n" for i in range(1, 9))
    text += "100.9. The card Dandân, and Magic® and Wizards™ – here.\n"
    decoded = decode_bytes(text.encode("gb18030"))
    assert decoded.encoding == "gb18030" and decoded.lines[-1] == text.splitlines()[-1]
    assert "double-byte-encoding" in [d.code for d in decoded.diagnostics]
