"""A flate bomb whose own dictionary holds the word "stream" after its /Filter: in a name, a
string, a comment, a nested dictionary. The raw scan takes such a word for a stream keyword (it
cannot tell a string from code without PDFium's parse), and took the text after it as the next
stream's whole dictionary: the real stream's /Filter was left behind, its data counted as it is,
and a 1.5 MB file made PDFium inflate 1.5 GB (sweep 9). Each bomb here inflates to 5 MiB, past
the 4 MiB limit for one stream, from a few kilobytes."""

from __future__ import annotations

import struct
import zlib

import pytest
from builders import lzw, lzw_bomb, lzw_bomb_codes, pdf_of, png_rows

import crparse
from crparse.errors import RefusedInput

MiB = 1 << 20
TEXT = (b"BT /F1 10 Tf 72 700 Td (100.1. These Magic rules apply to any Magic game.) Tj ET\n"
        b"BT /F1 10 Tf 72 686 Td (100.2. To play, each player needs their own deck.) Tj ET\n")
PAGE = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
        b"/Contents 5 0 R >>")

# The bomb's dictionary, around its own /Length and /Filter entries ("%d" is the length).
HIDING = {
    "name-value": b"<< /Length %d /Filter /FlateDecode /X /stream\n>>",
    "name-key": b"<< /Length %d /Filter /FlateDecode\n/stream 1\n>>",
    "name-then-cr": b"<< /Length %d /Filter /FlateDecode /stream\r>>",
    "array": b"<< /Length %d /Filter /FlateDecode /X [/stream\n] >>",
    "nested-dictionary": b"<< /Length %d /Filter /FlateDecode /X << /stream\n1 >> >>",
    "string": b"<< /Length %d /Filter /FlateDecode /X (stream\n) >>",
    "string-escaped-parenthesis": b"<< /Length %d /Filter /FlateDecode /X (a\\) stream\n) >>",
    "comment-after-the-dictionary": b"<< /Length %d /Filter /FlateDecode >> %%stream",
    "comment-in-the-dictionary": b"<< /Length %d /Filter /FlateDecode %% >> stream\n>>",
    # what ends a stream or begins an object or a dictionary, in the string after the word
    "string-with-endstream": b"<< /Length %d /Filter /FlateDecode /X (stream\nendstream endobj) >>",
    "string-with-an-object": b"<< /Length %d /Filter /FlateDecode /X (stream\n9 0 obj <<) >>",
    "two-words": b"<< /Length %d /Filter /FlateDecode /X (stream\n) /Y /stream\n>>",
}


# PDFium's white space has 0x80 and 0xFF (its PDF_CharType), where a key, a name or a keyword ends
@pytest.mark.parametrize("spelling", [b"<< /Length %d /Filter\x80/FlateDecode >>", b"<< /Length %d /Filter /FlateDecode\xff>>",
                                      b"<< /Length %d /Filter\xff/FlateDecode\x80>>"])
def test_a_bomb_spelt_with_high_white_space_is_refused(tmp_path, spelling):
    refused_as_a_bomb(tmp_path / "high.pdf", bomb_pdf(spelling))


def test_a_stream_keyword_ended_by_high_white_space_is_seen(tmp_path):
    refused_as_a_bomb(tmp_path / "high.pdf", bomb_pdf(b"<< /Length %d /Filter /FlateDecode >>").replace(b"\nstream\n", b"\nstream\x80\n"))


def bomb_pdf(dictionary: bytes, inflated: int = 5 * MiB) -> bytes:
    data = zlib.compress(TEXT + b" " * inflated, 9)
    stream = (dictionary % len(data)) + b"\nstream\n" + data + b"\nendstream"
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", PAGE, stream])


def refused_as_a_bomb(path, data: bytes) -> None:
    """`data`, written at `path`, is refused for a stream past the 4 MiB limit for one."""
    path.write_bytes(data)
    with pytest.raises(RefusedInput, match="inflates past the 4 MiB limit for one"):
        crparse.parse(path)



@pytest.mark.parametrize("hiding", HIDING)
def test_a_bomb_with_the_word_stream_in_its_dictionary_is_refused(tmp_path, hiding):
    path = tmp_path / f"{hiding}.pdf"
    refused_as_a_bomb(path, bomb_pdf(HIDING[hiding]))


@pytest.mark.parametrize("hiding", HIDING)
def test_a_small_stream_with_the_word_stream_in_its_dictionary_is_read(tmp_path, hiding):
    """The same dictionaries around a stream under the limit: the file is read."""
    path = tmp_path / f"{hiding}.pdf"
    path.write_bytes(bomb_pdf(HIDING[hiding], inflated=1000))
    doc = crparse.parse(path)
    assert "100.1" in doc and "100.2" in doc


def test_a_bomb_whose_filter_follows_sixteen_others_is_refused(tmp_path):
    """Only the first 16 filter chains of a dictionary were decoded: sixteen decoys before the
    bomb's own /Filter left it counted as it is."""
    decoys = b" ".join(b"/D%d << /Filter [%s] >>" % (i, b" ".join([b"/RL"] * (i + 1))) for i in range(16))
    path = tmp_path / "decoys.pdf"
    path.write_bytes(bomb_pdf(b"<< /Length %d " + decoys + b" /Filter /FlateDecode >>"))
    with pytest.raises(RefusedInput, match="over 16 different filter chains"):
        crparse.parse(path)


# -- the scan's own cost, and PDFium's ------------------------------------------------------------


def small_pdf() -> bytes:
    return bomb_pdf(b"<< /Length %d /Filter /FlateDecode >>", inflated=10)


def test_a_filter_of_thousands_of_stages_is_refused(tmp_path):
    """Each stage a generator over the one before: 20,000 stages were a RecursionError (exit 3),
    300,000 ran past 30 s (the chains copied at each stage)."""
    path = tmp_path / "stages.pdf"
    path.write_bytes(small_pdf().replace(b"%%EOF", b"9 0 obj << /Filter [" + b"/AHx " * 20_000 + b"] >>\nstream\n41>\nendstream\nendobj\n%%EOF"))
    with pytest.raises(RefusedInput, match="more than 32 stages"):
        crparse.parse(path)


def test_stream_objects_without_endobj_are_refused_before_pdfium(tmp_path):
    """PDFium's repair looks for each one's "endobj" to the end of the file: 20,000 such objects
    (620 KB) ran past 30 s inside FPDF_LoadMemDocument."""
    path = tmp_path / "unclosed.pdf"
    path.write_bytes(small_pdf() + b"1 0 obj << >> stream\nendstream\n" * 1_100)
    with pytest.raises(RefusedInput, match="over 1000 stream objects with no endobj"):
        crparse.parse(path)


def test_keywords_without_endstream_are_scanned_in_linear_time(tmp_path):
    """Each keyword's data was searched for "Do" and "BI" to the end of the file when no
    "endstream" followed: 100,000 ">> stream" lines (1 MB) ran past 30 s; 45,000 took ~10 s."""
    from limits import run_limited

    path = tmp_path / "keywords.pdf"
    path.write_bytes(small_pdf() + b">> stream\n" * 45_000)
    result = run_limited(["parse", str(path)], seconds=6)
    assert result.ok_within_limits and result.returncode == 0, (result.cpu_seconds, result.stderr[-300:])
    path.write_bytes(small_pdf() + b">> stream\n" * 50_001)
    with pytest.raises(RefusedInput, match="over 50,000 stream keywords"):
        crparse.parse(path)


# -- a /Filter the scan's patterns did not read, which PDFium does (sweep 10) ----------------------

FILTER_OBJECT = b"[/AHx /FlateDecode]"


def hex_bomb_pdf(dictionary: bytes, extra: list[bytes] = (), inflated: int = 5 * MiB) -> bytes:
    """A bomb under ASCIIHex then Flate; object 6 (and on) holds what `extra` says."""
    data = zlib.compress(TEXT + b" " * inflated, 9).hex().encode() + b">"
    stream = (dictionary % len(data)) + b"\nstream\n" + data + b"\nendstream"
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", PAGE, stream, *extra])


UNREAD_FILTERS = {
    "nul-before-an-array": (b"<< /Length %d /Filter\x00[/AHx /FlateDecode] >>", []),
    "escaped-key-and-nuls": (b"<< /Length %d /F#69lter\x00[/AHx\x00/Fl] >>", []),
    "signed-reference": (b"<< /Length %d /Filter +6 0 R >>", [FILTER_OBJECT]),
    "nuls-in-a-reference": (b"<< /Length %d /Filter 6\x000\x00R >>", [FILTER_OBJECT]),
}


@pytest.mark.parametrize("case", UNREAD_FILTERS)
def test_a_bomb_whose_filter_is_written_as_pdfium_reads_it_is_refused(tmp_path, case):
    dictionary, extra = UNREAD_FILTERS[case]
    path = tmp_path / f"{case}.pdf"
    refused_as_a_bomb(path, hex_bomb_pdf(dictionary, extra))


def test_a_bomb_whose_filter_follows_a_nul_is_refused(tmp_path):
    path = tmp_path / "nul.pdf"
    refused_as_a_bomb(path, bomb_pdf(b"<< /Length %d /Filter\x00/FlateDecode >>"))


def test_an_object_defined_with_nuls_is_found(tmp_path):
    data = hex_bomb_pdf(b"<< /Length %d /Filter 6 0 R >>", [FILTER_OBJECT])
    path = tmp_path / "nul-header.pdf"
    refused_as_a_bomb(path, data.replace(b"\n6 0 obj", b"\n6\x000\x00obj"))


def test_a_filter_object_defined_over_sixteen_times_is_refused(tmp_path):
    """Only the first 16 definitions were read: decoys before the real one hid the bomb's filter."""
    decoys = b"".join(b"6 0 obj /Crypt endobj\n" for _ in range(20))
    data = hex_bomb_pdf(b"<< /Length %d /Filter 6 0 R >>", [FILTER_OBJECT])
    path = tmp_path / "decoys.pdf"
    path.write_bytes(data.replace(b"\n6 0 obj", b"\n" + decoys + b"6 0 obj", 1))
    with pytest.raises(RefusedInput, match="defined over 16 times"):
        crparse.parse(path)


# -- numbers as PDFium reads them, and filters inside object streams (sweep 11) -------------------
#
# PDFium reads any word of digits, "+", "-" and "." as a number, and an object number as the
# digits after an optional "+": the scan's patterns took digits only, so a reference or an
# object header spelt otherwise hid the bomb's ASCIIHex-then-Flate filter, and a 3 MB file
# made PDFium inflate 1.5 GB.

NUMBER_WORD_REFERENCES = {
    "generation-signed": b"6 +0 R",
    "generation-negative": b"6 -0 R",
    "generation-decimal": b"6 0.0 R",
    "generation-a-point": b"6 . R",
    "generation-signs": b"6 +- R",
    "number-decimal": b"6.0 0 R",
    "number-with-a-point": b"6. 0 R",
    "number-with-leading-zeros": b"00000000006 0 R",
}


@pytest.mark.parametrize("case", NUMBER_WORD_REFERENCES)
def test_a_filter_reference_with_number_words_is_followed(tmp_path, case):
    reference = NUMBER_WORD_REFERENCES[case]
    path = tmp_path / f"{case}.pdf"
    refused_as_a_bomb(path, hex_bomb_pdf(b"<< /Length %d /Filter " + reference + b" >>", [FILTER_OBJECT]))
    # in an array, before a name
    refused_as_a_bomb(path, hex_bomb_pdf(b"<< /Length %d /Filter [" + reference + b" /Fl] >>", [b"/AHx"]))


NUMBER_WORD_HEADERS = {
    "number-with-leading-zeros": b"00000000006 0 obj",
    "generation-of-six-digits": b"6 000000 obj",
    "number-decimal": b"6.0 0 obj",
    "generation-signed": b"6 +0 obj",
    "generation-a-point": b"6 . obj",
}


@pytest.mark.parametrize("case", NUMBER_WORD_HEADERS)
def test_a_filter_object_whose_header_has_number_words_is_found(tmp_path, case):
    data = hex_bomb_pdf(b"<< /Length %d /Filter 6 0 R >>", [FILTER_OBJECT])
    path = tmp_path / f"{case}.pdf"
    refused_as_a_bomb(path, data.replace(b"\n6 0 obj", b"\n" + NUMBER_WORD_HEADERS[case]))


def packed_filter_pdf(
    inflated: int, compressed: bool, filter_object: bytes = FILTER_OBJECT, head: bytes = b"7 0 ", predicted: int = 0
) -> bytes:
    """The bomb's filter object (7) packed in an object stream (6), found through a
    cross-reference stream, as PDF 1.5 writers pack small objects; `predicted`: in PNG rows
    of that many columns, under the Flate filter."""
    data = zlib.compress(TEXT + b" " * inflated, 9).hex().encode() + b">"
    packed = head + filter_object
    if predicted:
        packed = png_rows(packed, predicted, [2])
    if compressed:
        packed = zlib.compress(packed)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", PAGE,
        b"<< /Length %d /Filter 7 0 R >>\nstream\n" % len(data) + data + b"\nendstream",
        b"<< /Type /ObjStm /N 1 /First %d /Length %d%s >>\nstream\n"
        % (len(head), len(packed), (b" /Filter /FlateDecode" if compressed else b"")
           + (b" /DecodeParms << /Predictor 12 /Columns %d >>" % predicted if predicted else b"")) + packed + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    rows = struct.pack(">BIH", 0, 0, 65535) + b"".join(struct.pack(">BIH", 1, o, 0) for o in offsets)
    rows += struct.pack(">BIH", 2, 6, 0) + struct.pack(">BIH", 1, len(out), 0)  # 7 in 6; 8, the xref stream
    at = len(out)
    out += b"8 0 obj\n<< /Type /XRef /Size 9 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n" % len(rows)
    out += rows + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % at
    return bytes(out)


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "flate"])
def test_a_filter_object_inside_an_object_stream_is_read(tmp_path, compressed):
    path = tmp_path / "packed.pdf"
    refused_as_a_bomb(path, packed_filter_pdf(5 * MiB, compressed))
    # under the limit, the same file is read: its filter was found, its text is there
    path.write_bytes(packed_filter_pdf(1000, compressed))
    assert "100.2" in [rule.number for rule in crparse.parse(path).rules]


def test_a_filter_that_refers_to_no_object_is_refused(tmp_path):
    """What PDFium reads there cannot be known: the data was guessed to be Flate while it looked
    like zlib, which ASCIIHex data never does."""
    path = tmp_path / "dangling.pdf"
    path.write_bytes(hex_bomb_pdf(b"<< /Length %d /Filter 9 0 R >>", [FILTER_OBJECT]))
    with pytest.raises(RefusedInput, match="refers to an object this scan cannot find"):
        crparse.parse(path)


def test_object_streams_are_indexed_in_linear_time(tmp_path):
    """Every object stream is decoded before the check (for the objects a /Filter may name):
    their number is bounded as the keywords' is, and each dictionary read once."""
    from limits import run_limited

    path = tmp_path / "object-streams.pdf"
    path.write_bytes(small_pdf() + b"<< /Type /ObjStm /First 4 >> stream\n7 0 /Fl\nendstream\n" * 40_000)
    result = run_limited(["parse", str(path)], seconds=6)
    assert result.ok_within_limits and result.returncode == 0, (result.cpu_seconds, result.stderr[-300:])
    path.write_bytes(small_pdf() + b"<< /Type /ObjStm /First 4 >> stream\n" * 50_001)
    with pytest.raises(RefusedInput, match="over 50,000 object streams"):
        crparse.parse(path)


# -- what sweep 12 got past the checks (PDFium then inflated 0.8-2.5 GiB; the read's limits in its
# child process, test_pdf_confined.py, now stop what the checks miss) ---------------------------

SWEEP_12_FILTER_OBJECTS = {
    # "%endobj" in a comment ended the object for the scan, not for PDFium
    "endobj-in-a-comment": b"[ %endobj\n /AHx /FlateDecode ]",
    # only the first 4 KB of a filter object were read
    "longer-than-4-KB": b"[" + b" " * 5000 + b"/AHx /FlateDecode]",
}


@pytest.mark.parametrize("case", SWEEP_12_FILTER_OBJECTS)
def test_a_filter_object_is_read_whole(tmp_path, case):
    path = tmp_path / f"{case}.pdf"
    refused_as_a_bomb(path, hex_bomb_pdf(b"<< /Length %d /Filter 6 0 R >>", [SWEEP_12_FILTER_OBJECTS[case]]))


def test_a_negative_object_number_wraps_round_as_in_pdfium(tmp_path):
    """PDFium reads object numbers as unsigned 32-bit integers: -4294967290 is 6."""
    path = tmp_path / "negative.pdf"
    refused_as_a_bomb(path, hex_bomb_pdf(b"<< /Length %d /Filter -4294967290 0 R >>", [FILTER_OBJECT]))


def test_a_comment_in_an_object_streams_header_is_passed_over(tmp_path):
    """"%1" before the pairs shifted the scan's (number, offset) pairs by one."""
    path = tmp_path / "packed.pdf"
    refused_as_a_bomb(path, packed_filter_pdf(5 * MiB, compressed=False, head=b"%1\n7 0 "))


def lzw_pdf(stream_entries: bytes, data: bytes) -> bytes:
    stream = b"<< /Length %d %s >>\nstream\n" % (len(data), stream_entries) + data + b"\nendstream"
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", PAGE, stream])


@pytest.mark.parametrize("early", [b"0", b"00", b"+0", b".0", b"6 0 R"])
def test_lzw_is_decoded_both_ways_whatever_earlychange_says(tmp_path, early):
    """/EarlyChange 0 said through a reference or a number word: decoded with 1, the data of a
    bomb coded with 0 gave little."""
    parms = b"<< /EarlyChange %s >>" % early if early != b"6 0 R" else b"6 0 R"
    data = lzw_pdf(b"/Filter /LZWDecode /DecodeParms " + parms, lzw_bomb(TEXT, 5 * MiB, early=0))
    if early == b"6 0 R":
        data = data.replace(b"\nxref", b"\n6 0 obj << /EarlyChange 0 >> endobj\nxref")
    path = tmp_path / "lzw.pdf"
    refused_as_a_bomb(path, data)


def test_an_inline_lzw_image_is_decoded_both_ways(tmp_path):
    image = lzw_bomb(b"", 5 * MiB, early=0)
    content = TEXT + b"BI /W 1 /H 1 /CS /G /BPC 8 /F /LZW /DP << /EarlyChange 0 >> ID " + image + b" EI\n"
    path = tmp_path / "inline.pdf"
    path.write_bytes(lzw_pdf(b"", content))
    with pytest.raises(RefusedInput, match="an inline image of the stream of object 5 inflates past the 4 MiB limit"):
        crparse.parse(path)


def test_an_lzw_code_past_the_table_does_not_end_the_data(tmp_path):
    """The scan stopped at it; PDFium goes on: 500 KB made it inflate 1.2 GiB."""
    codes = [256, *b"BT", 300, *lzw_bomb_codes(TEXT, 5 * MiB)]  # 300: a code the table does not hold yet
    path = tmp_path / "past.pdf"
    refused_as_a_bomb(path, lzw_pdf(b"/Filter /LZWDecode", lzw(codes)))


@pytest.mark.parametrize("first", [b"uuuuu", b"!!z"], ids=["a-group-past-2-to-the-32", "z-inside-a-group"])
def test_ascii85_is_read_as_pdfium_reads_it(tmp_path, first):
    import base64

    hexed = zlib.compress(TEXT + b" " * 5 * MiB, 9).hex().encode() + b">"
    path = tmp_path / "a85.pdf"
    refused_as_a_bomb(path, lzw_pdf(b"/Filter [/ASCII85Decode /ASCIIHexDecode /FlateDecode]",
                                    first + base64.a85encode(hexed) + b"~>"))


def test_filter_references_are_read_once_each(tmp_path):
    """Three objects of 16 definitions, each an array of 32 references to the next: read again
    for each reference, 16^3 * 32^3 times (killed at 30 s)."""
    from limits import run_limited

    objects = [FILTER_OBJECT]
    for level in range(3):
        target = 6 + level
        objects.append(b"[" + b" ".join(b"%d 0 R" % target for _ in range(32)) + b"]")
    data = hex_bomb_pdf(b"<< /Length %d /Filter 9 0 R >>", objects)
    for n in (7, 8, 9):  # each defined 16 times
        decoy = b"\n%d 0 obj [" % n + b" ".join(b"%d 0 R" % (n - 1) for _ in range(32)) + b"] endobj"
        data = data.replace(b"\n%d 0 obj" % n, decoy * 15 + b"\n%d 0 obj" % n, 1)
    path = tmp_path / "fan.pdf"
    path.write_bytes(data)
    result = run_limited(["parse", str(path)], seconds=10)
    assert result.ok_within_limits and result.returncode == 2, (result.cpu_seconds, result.stderr[-300:])
    assert result.cpu_seconds < 5, result.cpu_seconds
