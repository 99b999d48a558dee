"""Hostile DOCX, PDF and RTF files: decompression bombs, markup bombs, damaged files, bad
escapes. Whatever could blow up runs through the CLI in a child under 1 GiB and 15 s
(tests/limits.py); the bombs are built here, in milliseconds, from one compressed copy of a
chunk repeated, so that the test itself stays light.
"""

from __future__ import annotations

import random
import struct
import zipfile
import zlib
from io import BytesIO

import pytest
from builders import lzw_bomb, make_docx, make_pdf, pdf_of, zip_of_members
from limits import run_limited

import crparse
from crparse.readers.limits import MAX_INFLATED, MAX_PDF_STREAM, MAX_XML_ELEMENTS

GiB, MiB = 1 << 30, 1 << 20
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
RULES = [
    "Magic: The Gathering Comprehensive Rules",
    "100. General",
    "100.1. These Magic rules apply to any Magic game with two or more players.",
    "100.1a A two-player game is a game that begins with only two players.",
    "100.2. To play, each player needs their own deck of traditional Magic cards.",
    "Example: Alex and Rob play a game.",
]


def refused(result, *words: str) -> bool:
    """A one-line refusal (exit 2) within the limits that says all of `words`."""
    lines = result.stderr.decode("utf-8").splitlines()
    return (
        result.ok_within_limits and result.returncode == 2 and len(lines) == 1
        and lines[0].startswith("crparse: ") and all(w in lines[0] for w in words)
    )


# -- building bombs ---------------------------------------------------------------------------


def deflate_repeated(unit: bytes, count: int, head: bytes = b"", tail: bytes = b"") -> tuple[bytes, int, int]:
    """Raw deflate data of head + unit * count + tail, with its CRC-32 and inflated size. A full
    flush after each piece makes its blocks stand alone, so one compressed copy of `unit`
    repeated is valid deflate data."""
    def blocks(data: bytes, last: bool) -> bytes:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return c.compress(data) + (c.flush() if last else c.flush(zlib.Z_FULL_FLUSH))

    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(unit, crc)
    crc = zlib.crc32(tail, crc)
    data = blocks(head, False) + blocks(unit, False) * count + blocks(tail, True)
    return data, crc, len(head) + len(unit) * count + len(tail)


def zlib_repeated(unit: bytes, count: int, head: bytes = b"", tail: bytes = b"") -> bytes:
    """The same, as a zlib stream (a PDF's FlateDecode)."""
    data, _, _ = deflate_repeated(unit, count, head, tail)
    adler = zlib.adler32(head)
    for _ in range(count):
        adler = zlib.adler32(unit, adler)
    return b"\x78\xda" + data + struct.pack(">I", zlib.adler32(tail, adler))


def zip_of(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A ZIP archive of already deflated members (name, data, crc, size)."""
    out, central = bytearray(), bytearray()
    for name, data, crc, size in members:
        encoded = name.encode()
        central += struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(data), size,
                               len(encoded), 0, 0, 0, 0, 0, len(out)) + encoded
        out += struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data), size, len(encoded), 0)
        out += encoded + data
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + end)


def docx_members(paragraphs: list[str] = RULES) -> list[tuple[str, bytes]]:
    package = zipfile.ZipFile(BytesIO(make_docx(paragraphs)))
    return [(info.filename, package.read(info)) for info in package.infolist()]


def docx_with(document: tuple[bytes, int, int] | None = None, extra: list[tuple[str, tuple[bytes, int, int]]] = ()) -> bytes:
    """A DOCX of RULES, its word/document.xml replaced by `document` (deflated), `extra` members added."""
    members = []
    for name, data in docx_members():
        if name == "word/document.xml" and document is not None:
            members.append((name, *document))
        else:
            members.append((name, *deflate_repeated(data, 1)))
    members += [(name, *deflated) for name, deflated in extra]
    return zip_of(members)


def document_xml(body: bytes) -> tuple[bytes, bytes]:
    """The head and tail of a document.xml around `body` (the RULES paragraphs come first)."""
    paragraphs = b"".join(b"<w:p><w:r><w:t>%s</w:t></w:r></w:p>" % text.encode() for text in RULES)
    head = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="%s"><w:body>' % W.encode()
    return head + paragraphs + body, b"</w:body></w:document>"


def pdf_text(lines: list[str], y: float = 700) -> bytes:
    return b"".join(b"BT /F1 10 Tf 72 %d Td (%s) Tj ET\n" % (y - 14 * i, t.encode()) for i, t in enumerate(lines))


def pdf_with_contents(contents: list[tuple[bytes, bytes]], extra: list[bytes] = (), trailer: bytes = b"") -> bytes:
    """A PDF with a page per (dictionary entries, stream data) content stream, then `extra` objects."""
    n = len(contents)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n)), n),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, (entries, data) in enumerate(contents):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                       b"/Contents %d 0 R >>" % (5 + 2 * i))
        objects.append(b"<< /Length %d %s >>\nstream\n" % (len(data), entries) + data + b"\nendstream")
    return pdf_of(objects + list(extra), trailer)


def flate_bomb(inflated: int, unit: bytes = b"0" * MiB) -> bytes:
    """A content stream: the RULES text, then `inflated` bytes of `unit` repeated."""
    return zlib_repeated(unit, inflated // len(unit), head=pdf_text(RULES))


# -- DOCX -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docx_bomb(tmp_path_factory) -> str:
    """1 GiB of blanks in word/document.xml, in a 1 MB DOCX."""
    head, tail = document_xml(b"")
    path = tmp_path_factory.mktemp("docx") / "bomb.docx"
    path.write_bytes(docx_with(deflate_repeated(b" " * MiB, GiB // MiB, head, tail)))
    return str(path)


def test_docx_zip_bomb_refused_while_inflating(docx_bomb):
    result = run_limited(["parse", docx_bomb], memory=GiB)
    assert refused(result, "word/document.xml inflates past the 256 MiB limit", "CRPARSE_MAX_INFLATED"), result
    assert result.peak_mib < 200  # inflated a chunk at a time, never held


def test_docx_inflate_limit_is_configurable(docx_bomb):
    result = run_limited(["parse", docx_bomb], memory=GiB, env={"CRPARSE_MAX_INFLATED": "16M"})
    assert refused(result, "word/document.xml inflates past the 16 MiB limit"), result
    assert result.cpu_seconds < 5


def test_docx_members_are_summed(tmp_path):
    """Many members, each under the limit: their sum is over it."""
    blob = deflate_repeated(b"\0" * MiB, MAX_INFLATED // MiB // 4)
    path = tmp_path / "members.docx"
    path.write_bytes(docx_with(extra=[(f"word/media/blob{i}.bin", blob) for i in range(6)]))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "the members of this DOCX inflate past the 256 MiB limit in total", "word/media/blob"), result


def test_docx_text_held_to_the_input_limit(tmp_path):
    """250 MB of text in a 250 KB file: more than a text file may hold."""
    head, tail = document_xml(b"")
    paragraph = b"<w:p><w:r><w:t>" + b"a" * (8 * MiB) + b"</w:t></w:r></w:p>"
    path = tmp_path / "text.docx"
    path.write_bytes(docx_with(deflate_repeated(paragraph, 30, head, tail)))
    result = run_limited(["parse", str(path)], memory=GiB)
    from crparse.limits import DEFAULT_MAX_INPUT

    assert refused(result, f"its text passes the {DEFAULT_MAX_INPUT >> 20} MiB input limit", "CRPARSE_MAX_INPUT"), result


def test_docx_markup_bomb_refused(tmp_path):
    """Empty paragraphs compress as well as blanks do: 2.2 million of them in a 60 KB file."""
    unit = b"<w:p/>" * (MiB // 6)
    head, tail = document_xml(b"")
    path = tmp_path / "markup.docx"
    path.write_bytes(docx_with(deflate_repeated(unit, MAX_XML_ELEMENTS * 6 // MiB + 1, head, tail)))
    assert path.stat().st_size < 100_000
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "word/document.xml has more than 2,000,000 XML elements", "CRPARSE_MAX_XML_ELEMENTS"), result
    assert result.peak_mib < 300  # each element dropped once read


def test_docx_merged_cell_spanning_a_billion_columns(tmp_path):
    """python-docx repeats a merged cell for each grid column it spans: gridSpan is the file's word."""
    cell = '<w:tc><w:tcPr><w:gridSpan w:val="1000000000"/></w:tcPr><w:p><w:r><w:t>Merged cell</w:t></w:r></w:p></w:tc>'
    table = f"<w:tbl><w:tr>{cell}</w:tr></w:tbl>".encode()
    head, tail = document_xml(table)
    path = tmp_path / "span.docx"
    path.write_bytes(docx_with(deflate_repeated(b"", 0, head, tail)))
    result = run_limited(["text", str(path)], memory=GiB)
    assert result.ok_within_limits and result.returncode == 0, result
    assert result.stdout.decode().splitlines().count("Merged cell") == 1


def test_docx_reads_as_python_docx_did():
    """Tabs, breaks, hyperlinks, a table's cells; not a page break, nor a text box's paragraphs
    (which are reported)."""
    body = (
        '<w:p><w:r><w:t xml:space="preserve">100.1. A </w:t><w:tab/><w:t>rule</w:t><w:br/><w:t>wrapped</w:t>'
        '<w:br w:type="page"/><w:noBreakHyphen/><w:cr/></w:r>'
        '<w:hyperlink><w:r><w:t>linked</w:t></w:r></w:hyperlink></w:p>'
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell one</w:t></w:r></w:p></w:tc><w:tc><w:p/></w:tc></w:tr></w:tbl>'
        '<w:p><w:r><w:drawing><w:txbxContent><w:p><w:r><w:t>text box</w:t></w:r></w:p></w:txbxContent></w:drawing>'
        "<w:t>after</w:t></w:r></w:p>"
    )
    head, tail = document_xml(body.encode())
    import docx  # what the reader used to be

    data = docx_with(deflate_repeated(b"", 0, head, tail))
    expected = [p.text for p in docx.Document(BytesIO(data)).paragraphs[len(RULES):]]
    lines = crparse.source_lines(data)
    assert lines[len(RULES):] == "\n".join(expected[:1] + ["cell one", ""] + expected[1:]).split("\n")
    assert lines[len(RULES)] == "100.1. A \trule"
    from crparse.readers.docx import read

    assert [d.message for d in read(data).diagnostics if d.code == "docx-not-read"] == [
        "8 characters of text not read, not being in the body's paragraphs: 8 in text boxes (w:txbxContent)"]


def docx_body(body: str) -> bytes:
    """A DOCX of RULES and then `body`, markup of the w: namespace."""
    return docx_with(deflate_repeated(b"", 0, *document_xml(body.encode())))


def run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


# Where Word puts runs in a paragraph, besides the paragraph itself and a hyperlink
WRAPPERS = {
    "ins": '<w:ins w:id="1" w:author="a" w:date="2020-01-01T00:00:00Z">{}</w:ins>',
    "moveTo": '<w:moveTo w:id="2" w:author="a">{}</w:moveTo>',
    "smartTag": '<w:smartTag w:uri="u" w:element="e">{}</w:smartTag>',
    "fldSimple": '<w:fldSimple w:instr=" REF x ">{}</w:fldSimple>',
    "sdt": '<w:sdt><w:sdtPr><w:alias w:val="a"/></w:sdtPr><w:sdtContent>{}</w:sdtContent></w:sdt>',
    "customXml": '<w:customXml w:element="e">{}</w:customXml>',
    "dir": '<w:dir w:val="rtl">{}</w:dir>',
    "bdo": '<w:bdo w:val="ltr">{}</w:bdo>',
    "nested": ('<w:hyperlink><w:ins w:id="3"><w:smartTag><w:sdt><w:sdtContent><w:dir>{}</w:dir></w:sdtContent></w:sdt>'
               "</w:smartTag></w:ins></w:hyperlink>"),
}


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_docx_runs_in_wrappers_are_read(wrapper):
    """A sweep: the text of these runs was dropped, rule 100.2 read as '' and no diagnostic."""
    body = f"<w:p>{run('100.3. Each player ')}{WRAPPERS[wrapper].format(run('needs a deck'))}{run('.')}</w:p>"
    doc = crparse.parse(docx_body(body))
    assert doc.rule("100.3").text == "Each player needs a deck."
    assert not [d for d in doc.diagnostics if d.code == "docx-not-read"]


def test_docx_paragraphs_in_content_controls_custom_xml_and_nested_tables_are_read():
    """A sweep: a content control around paragraphs dropped them whole."""
    nested = f"<w:tbl><w:tr><w:tc><w:p>{run('100.5. In a table in a cell.')}</w:p></w:tc></w:tr></w:tbl>"
    body = (f"<w:sdt><w:sdtPr/><w:sdtContent><w:p>{run('100.3. In a content control.')}</w:p></w:sdtContent></w:sdt>"
            f"<w:customXml w:element='e'><w:p>{run('100.4. In custom XML.')}</w:p></w:customXml>"
            f"<w:sdt><w:sdtContent><w:tbl><w:tr><w:sdt><w:sdtContent><w:tc>{nested}<w:p/></w:tc></w:sdtContent></w:sdt>"
            "</w:tr></w:tbl></w:sdtContent></w:sdt>")
    doc = crparse.parse(docx_body(body))
    texts = [doc.rule(n).text for n in ("100.3", "100.4", "100.5")]
    assert texts == ["In a content control.", "In custom XML.", "In a table in a cell."]
    assert not [d for d in doc.diagnostics if d.code == "docx-not-read"]


def test_docx_reads_tracked_changes_as_accepted():
    """Deleted and moved-away text is gone, inserted and moved text is there, a field shows its
    result and never its code; a deleted paragraph mark joins two paragraphs, a deleted row goes."""
    field = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
             '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' + run("7")
             + '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    body = (f"<w:p>{run('100.3. Each player ')}<w:del w:id='1'><w:r><w:delText>no longer </w:delText></w:r></w:del>"
            f"<w:moveFrom w:id='2'>{run('away ')}</w:moveFrom><w:ins w:id='3'>{run('still ')}</w:ins>"
            f"{run('draws (page ')}{field}{run(').')}</w:p>"
            f"<w:p><w:pPr><w:rPr><w:del w:id='4'/></w:rPr></w:pPr>{run('100.4. Split ')}</w:p><w:p>{run('no more.')}</w:p>"
            f"<w:tbl><w:tr><w:trPr><w:del w:id='5'/></w:trPr><w:tc><w:p>{run('100.5. A deleted row.')}</w:p></w:tc></w:tr></w:tbl>")
    doc = crparse.parse(docx_body(body))
    assert doc.rule("100.3").text == "Each player still draws (page 7)."
    assert doc.rule("100.4").text == "Split no more."
    assert "100.5" not in doc and "deleted row" not in "\n".join(crparse.source_lines(docx_body(body)))


def test_docx_hidden_text_is_not_read_into_rules():
    """A run's hidden text (w:vanish), which Word does not show, was read into the rules without
    a word, as RTF's \\v was before (sweep 33); a run whose w:vanish is turned off is shown."""
    hidden = "<w:r><w:rPr><w:b/><w:vanish/></w:rPr><w:t xml:space='preserve'>HIDDEN 100.9. hidden </w:t></w:r>"
    shown = "<w:r><w:rPr><w:vanish w:val='0'/></w:rPr><w:t xml:space='preserve'>shown </w:t></w:r>"
    body = f"<w:p>{run('100.3. Each player ')}{hidden}{shown}{run('draws.')}</w:p>"
    doc = crparse.parse(docx_body(body))
    assert doc.rule("100.3").text == "Each player shown draws." and "100.9" not in doc
    assert [(d.severity, d.message) for d in doc.diagnostics if d.code == "docx-not-read"] == [
        ("info", "21 characters of hidden text (w:vanish) not read, as Word shows none")]


def test_docx_text_not_read_is_reported():
    """What holds text and is not read says so: never a silent loss."""
    box = f"<w:r><w:drawing><w:txbxContent><w:p>{run('boxed')}</w:p></w:txbxContent></w:drawing></w:r>"
    math = '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><m:r><m:t>x+1</m:t></m:r></m:oMath>'
    body = (f"<w:p>{run('100.3. A rule')}{box}<w:r><w:footnoteReference w:id='2'/></w:r>{math}"
            f"<w:unknown>{run('odd')}</w:unknown>{run('.')}</w:p>")
    doc = crparse.parse(docx_body(body))
    assert doc.rule("100.3").text == "A rule."
    assert [(d.severity, d.message) for d in doc.diagnostics if d.code == "docx-not-read"] == [
        ("warning", "11 characters of text not read, not being in the body's paragraphs: 5 in text boxes (w:txbxContent), "
                    "3 in equations (m:oMath), 3 in w:unknown"),
        ("warning", "not read, the text these stand for (kept in another part of the file, or a DTD): 1 footnote"),
    ]


def _field(code: str, result: str) -> str:
    """A complex field: its code in the runs between its begin and separate, then its result."""
    codes = "".join(f'<w:r><w:instrText xml:space="preserve">{piece}</w:instrText></w:r>' for piece in code.split("|"))
    return (f'<w:r><w:fldChar w:fldCharType="begin"/></w:r>{codes}<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
            f'{run(result)}<w:r><w:fldChar w:fldCharType="end"/></w:r>')


def test_docx_text_of_other_files_is_reported():
    """A subdocument (w:subDoc: a master document's chapter, kept in another file) was read as
    nothing without a word, where an imported part (w:altChunk) was said; so were fields that
    show another file's text, whose result as last saved is read (sweep 24). No file is opened."""
    r = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    nested = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> INCLUDE</w:instrText></w:r>'
              '<w:r><w:instrText>TEXT "</w:instrText></w:r>' + _field(" FILENAME ", "x.docx")
              + '<w:r><w:instrText>" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
              + run("Nested.") + '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    body = (f"<w:p>{run('100.3. A rule ')}{_field(' INCLUDETEXT |chapter2.docx ', 'included')}{run('.')}</w:p>"
            f'<w:p {r}><w:subDoc r:id="rS"/></w:p><w:subDoc {r} r:id="rT"/>'
            f'<w:p>{run("100.4. ")}<w:fldSimple w:instr=" link Word.Document.12 x.docx "><w:r><w:t>Linked.</w:t></w:r>'
            f"</w:fldSimple></w:p><w:p>{run('100.5. ')}{nested}</w:p>"
            f"<w:p>{run('100.6. Page ')}{_field(' PAGE ', '7')}{run('.')}</w:p>")
    doc = crparse.parse(docx_body(body), format="docx")
    assert [doc.rule(n).text for n in ("100.3", "100.4", "100.6")] == ["A rule included.", "Linked.", "Page 7."]
    said = ("text of other files, which are never opened: 2 subdocuments (w:subDoc), not read; 2 INCLUDETEXT fields, "
            "1 LINK field, read as last saved in this file (as Word shows them until they are updated)")
    assert [d.message for d in doc.diagnostics if d.code == "docx-not-read"] == [said]


@pytest.mark.parametrize("inside, read", [("Ann <w:x/>and Bob<w:y/> see <w:z/>it.", "Ann and Bob see it."),
                                          ("Ann <w:x/>and Bob<w:x><w:y/>in</w:x> see it.", "Ann and Bob see it.")])
def test_docx_text_after_each_element_inside_w_t_is_read(inside, read):
    """Reading a child of w:t dropped the children before it, and their tails, the text after
    them: "AAA<x/>BBB<y/>CCC" read as "AAACCC", with a warning counting one element (sweep 20)."""
    doc = crparse.parse(docx_body(f"<w:p><w:r><w:t>100.5. {inside}</w:t></w:r></w:p>"), format="docx")
    assert doc.rule("100.5").text == read
    assert [d.code for d in doc.diagnostics if d.code == "docx-not-read"] == ["docx-not-read"]


def _document(*paragraphs: str) -> str:
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    return f'<w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>'


_RELS = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" '
         'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="{}"/>'
         "</Relationships>")


def test_docx_reads_the_part_its_relationships_name():
    """Word opens the part the package's officeDocument relationship names: a decoy
    word/document.xml was read instead, and the rules of the real part left out (sweep 21)."""
    rules = ("100. General", "100.1. First.", "100.2. Second.")
    data = zip_of_members({"_rels/.rels": _RELS.format("/word/document2.xml"),
                     "word/document.xml": _document("100. General", "100.1. DECOY."),
                     "word/document2.xml": _document(*rules, "100.3. Real.")})
    doc = crparse.parse(data, format="docx")
    assert [r.text for r in doc.rules][-1] == "Real." and "DECOY" not in " ".join(r.text for r in doc.rules)
    missing = zip_of_members({"_rels/.rels": _RELS.format("word/gone.xml"), "word/document.xml": _document(*rules)})
    with pytest.raises(crparse.RefusedInput, match=r"its document part, word/gone.xml .* is not in the ZIP archive"):
        crparse.parse(missing, format="docx")
    cased = zip_of_members({"word/document.xml": _document(*rules), "Word/Document.xml": _document(*rules)})
    with pytest.raises(crparse.RefusedInput, match="more than once"):
        crparse.parse(cased, format="docx")


@pytest.mark.parametrize("rels, said", [
    ({"_rels/.rels": _RELS.format("word/main.xml") + "<!--" + "x" * 2**20 + "-->"}, "larger than 1 MiB"),
    ({"_rels/.rels": _RELS.format("word/main.xml"), "_RELS/.RELS": _RELS.format("word/document.xml")}, "more than once"),
    ({"_rels/.rels": _RELS.format("word/main.xml")[:-5]}, "_rels/.rels: "),
])
def test_docx_whose_relationships_cannot_be_read_is_refused(rels, said):
    """A .rels too large, there twice or damaged fell back to word/document.xml, a decoy, and the
    part Word shows was left out without a word (sweep 22)."""
    rules = ("100. General", "100.1. First.", "100.2. Second.")
    data = zip_of_members({**rels, "word/document.xml": _document(*rules), "word/main.xml": _document(*rules, "100.3. Real.")})
    with pytest.raises(crparse.RefusedInput, match=said):
        crparse.parse(data, format="docx")


_WORKBOOK = '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>'


@pytest.mark.parametrize("members, said", [
    ({"_rels/.rels": _RELS.format("word/main.xml"), "word/main.xml": None}, None),
    ({"_rels/.rels": _RELS.format("/Word/Main.XML"), "word/main.xml": None}, None),
    ({"WORD/DOCUMENT.XML": None}, None),
    ({"_rels/.rels": _RELS.format("Word/Document.xml"), "word/DOCUMENT.xml": None}, None),
    # the reader's refusals, not detection's "not a DOCX"
    ({"_rels/.rels": _RELS.format("word/gone.xml"), "word/document.xml": None}, "is not in the ZIP archive"),
    ({"_rels/.rels": "<Relationships", "Word/document.XML": None}, "_rels/.rels: "),
    # XML that the test cannot read, in the part _rels/.rels names: the reader says why (an entity
    # bomb was "not a DOCX document": sweep 25)
    ({"_rels/.rels": _RELS.format("other.xml"), "other.xml": '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "x">'
      + "".join(f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi")) + "]><d>&i;</d>"},
     "other.xml is not well-formed XML"),
    # an Office package that is not Word's, a ZIP archive that is no package
    ({"_rels/.rels": _RELS.format("xl/workbook.xml"), "xl/workbook.xml": _WORKBOOK}, "not a DOCX document"),
    ({"_rels/.rels": _RELS.format("word/main.xml"), "word/main.xml": "no XML"}, "not a DOCX document"),
    ({"_rels/.rels": "<Relationships", "hello.txt": "hi"}, "not a DOCX document"),
])
def test_detection_takes_the_document_part_the_reader_reads(members, said):
    """Detection looked for word/document.xml alone: a package whose _rels/.rels names another
    part, or holding WORD/DOCUMENT.XML, was refused as "a ZIP archive that is not a DOCX
    document", though the reader reads both (sweep 24)."""
    rules = ("100. General", "100.1. First.", "100.2. Second.")
    data = zip_of_members({name: _document(*rules) if text is None else text for name, text in members.items()})
    if said is None:
        assert [r.number for r in crparse.parse(data).rules] == ["100", "100.1", "100.2"]
    else:
        with pytest.raises(crparse.CrparseError, match=said):
            crparse.parse(data)


def test_detection_reads_a_bounded_start_of_the_document_part(monkeypatch):
    """Only the first bytes of a part of another name are read to see its root element: 256 MiB
    of blanks before it are not inflated; such a part is left to the reader, within its limits."""
    from crparse.readers import detect_format

    rels = _RELS.format("word/main.xml").encode()
    main = deflate_repeated(b" " * MiB, 256, b"", _document("100.1. First.").encode())
    data = zip_of([("_rels/.rels", *deflate_repeated(rels, 1)), ("word/main.xml", *main)])
    read = []
    opened = zipfile.ZipExtFile.read
    monkeypatch.setattr(zipfile.ZipExtFile, "read", lambda self, n=-1: read.append(len(got := opened(self, n))) or got)
    assert detect_format(data) == "docx"
    assert sum(read) < MiB


def test_docx_with_its_document_twice_is_refused_saying_so():
    """zipfile reads the last of two members of one name: the first document.xml, all its rules,
    was left out without a word."""
    other = deflate_repeated(b"", 0, *document_xml(b"<w:p><w:r><w:t>HIDDEN 100.9. Text.</w:t></w:r></w:p>"))
    data = docx_with(extra=[("word/document.xml", other)])
    with pytest.raises(crparse.RefusedInput, match=r"word/document.xml is in the ZIP archive more than once"):
        crparse.parse(data, format="docx")


def test_docx_namespace_uri_past_the_limit_refused(tmp_path):
    """A sweep: an element's name holds its namespace's URI, built for each element: 200,000
    elements in a namespace of 100,000 characters (a 23 KB file) took 52 s."""
    from crparse.readers.limits import MAX_XML_NAMESPACE_URI

    head, tail = document_xml(b"")
    head = head.replace(b"<w:body>", b'<w:body xmlns:n="urn:%s">' % (b"u" * 100_000))
    path = tmp_path / "ns.docx"
    path.write_bytes(docx_with(deflate_repeated(b"<n:e/>", 200_000, head, tail)))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "declares a namespace URI of 100,004 characters", f"limit of {MAX_XML_NAMESPACE_URI:,}"), result
    at_limit = head.replace(b"u" * 100_000, b"u" * (MAX_XML_NAMESPACE_URI - 4))
    lines = crparse.source_lines(docx_with(deflate_repeated(b"<n:e/>", 10, at_limit, tail)))
    assert lines == RULES


def test_docx_namespace_declarations_past_the_limit_refused(tmp_path):
    """One start tag declaring 250,000 namespaces of 1,000 characters (1.9 MB, 250 MB inflated)
    peaked at 1.1 GB in lxml, which holds a tag's declarations all at once (sweep 29)."""
    from crparse.readers.limits import MAX_XML_NAMESPACES

    head, tail = document_xml(b"")
    declarations = b"".join(b' xmlns:p%d="urn:%s"' % (n, b"u" * 900) for n in range(60_000))
    path = tmp_path / "declared.docx"
    path.write_bytes(docx_with(deflate_repeated(b"", 0, head.replace(b"<w:body>", b"<w:body" + declarations + b">"),
                                                tail)))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, f"declares more than {MAX_XML_NAMESPACES:,} XML namespaces"), result
    assert result.peak_mib < 300, result.peak_mib
    # as Word declares them: read
    few = head.replace(b"<w:body>", b"<w:body" + declarations[:declarations.index(b" xmlns:p40=")] + b">")
    assert crparse.source_lines(docx_with(deflate_repeated(b"", 0, few, tail))) == RULES


def test_docx_nested_past_libxml2_s_depth_says_so_in_the_user_s_words():
    """libxml2's message told the user to "use XML_PARSE_HUGE option" (sweep 17)."""
    head, tail = document_xml(b"<w:sdt>" * 300)
    with pytest.raises(crparse.RefusedInput) as refusal:
        crparse.parse(docx_with(deflate_repeated(b"", 0, head, b"</w:sdt>" * 300 + tail)), format="docx")
    assert "Excessive depth in document: 256 elements nested" in str(refusal.value), refusal.value
    assert "XML_PARSE_HUGE" not in str(refusal.value)


@pytest.mark.parametrize("after", [
    "<w:p><w:r><w:t>100.9. After the root.</w:t></w:r></w:p>",  # an element
    "100.9. After the root.",  # text
    f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>100.9. A second root.</w:t></w:r></w:p></w:body></w:document>',
    "<![CDATA[100.9. After the root.]]>",
    "&amp;",
])
def test_docx_content_after_the_document_element_is_refused(after):
    """The reader stopped at the end of the root element: what followed it in word/document.xml,
    which is no well-formed XML, was dropped without a word (sweep 24)."""
    head, tail = document_xml(b"")
    data = docx_with(deflate_repeated(b"", 0, head, tail + after.encode()))
    with pytest.raises(crparse.RefusedInput, match=r"word/document.xml is not well-formed XML: .*\(line 2, column"):
        crparse.parse(data, format="docx")
    # what XML allows after the root (a comment, a processing instruction, blanks) is no content
    data = docx_with(deflate_repeated(b"", 0, head, tail + b"\n<!-- x --><?pi x?>\n \n"))
    assert crparse.source_lines(data) == RULES


# -- PDF --------------------------------------------------------------------------------------


def test_pdf_flate_bomb_refused_before_pdfium(tmp_path):
    path = tmp_path / "bomb.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", flate_bomb(GiB))]))
    assert path.stat().st_size < 2 * MiB
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "the stream of object 5 inflates past the 4 MiB limit for one", "CRPARSE_MAX_PDF_STREAM"), result
    assert result.peak_mib < 200
    # with the limit for one stream raised, the limit for the file holds
    result = run_limited(["parse", str(path)], memory=GiB, env={"CRPARSE_MAX_PDF_STREAM": "1G"})
    assert refused(result, "the stream of object 5 inflates past the 256 MiB limit", "CRPARSE_MAX_INFLATED"), result


def test_pdf_dense_text_bomb(tmp_path):
    """12 MiB of "(x)Tj" from a 20 KB file: PDFium spends 100 bytes on each byte of it."""
    unit = b"(x)Tj " * (MiB // 6)
    data = zlib_repeated(unit, 12, head=pdf_text(RULES) + b"BT /F1 10 Tf 72 400 Td ", tail=b" ET\n")
    path = tmp_path / "dense.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", data)]))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "the stream of object 5 inflates past the 4 MiB limit for one"), result


def _object_stream(bomb: bytes) -> bytes:
    return b"<< /Type /ObjStm /N 1 /First 8 /Length %d /Filter /FlateDecode >>\nstream\n" % len(bomb) + bomb + b"\nendstream"


@pytest.mark.parametrize(
    "variant",
    ["filter-array", "two-flates", "abbreviated", "escaped-name", "indirect-filter", "indirect-in-array",
     "two-definitions", "comments", "obj-in-dictionary", "hex-then-flate", "a85-then-flate", "object-stream", "lzw",
     "no-end-of-line-after-length", "crlf"],
)
def test_pdf_bomb_variants(tmp_path, variant):
    import base64

    bomb = flate_bomb(64 * MiB)
    contents, extra = [(b"/Filter /FlateDecode", zlib.compress(pdf_text(RULES)))], []
    page = {
        "filter-array": (b"/Filter [/FlateDecode]", bomb),
        "two-flates": (b"/Filter [/FlateDecode /FlateDecode]", zlib.compress(bomb)),
        "abbreviated": (b"/Filter /Fl", bomb),
        "escaped-name": (b"/Fil#74er /Fl#61teDecode", bomb),
        "indirect-filter": (b"/Filter 8 0 R", bomb),  # the first object after the two pages
        "indirect-in-array": (b"/Filter [8 0 R]", bomb),
        "two-definitions": (b"/Filter 8 0 R", bomb),
        "comments": (b"/Filter %[/AHx]\n[%/AHx]\n/FlateDecode]", bomb),
        "obj-in-dictionary": (b"/Filter /FlateDecode /Note (" + b"x" * 64 + b" obj )", bomb),
        "hex-then-flate": (b"/Filter [/AHx /Fl]", bomb.hex().encode() + b">"),
        "a85-then-flate": (b"/Filter [/ASCII85Decode /FlateDecode]", base64.a85encode(bomb) + b"~>"),
        "lzw": (b"/Filter /LZWDecode", lzw_bomb(pdf_text(RULES), 64 * MiB)),
        "no-end-of-line-after-length": (b"/Filter /FlateDecode", bomb),
        "crlf": (b"/Filter /FlateDecode", bomb),
    }.get(variant)
    if page:
        contents.append(page)
    if variant == "indirect-filter":
        extra.append(b"[/FlateDecode]")
    if variant == "indirect-in-array":
        extra.append(b"/FlateDecode")
    if variant == "two-definitions":  # the table points to the first, which is not the last
        extra.append(b"[/FlateDecode]")
    if variant == "object-stream":
        extra.append(_object_stream(bomb))
    data = pdf_with_contents(contents, extra)
    if variant == "no-end-of-line-after-length":  # the keyword's line goes on: the data starts after it
        data = data.replace(b"stream\nx\xda", b"stream % a comment\r\nx\xda")
    if variant == "crlf":
        data = data.replace(b"stream\n", b"stream\r\n")
    if variant == "two-definitions":
        data = data.replace(b"xref\n", b"8 0 obj\n[]\nendobj\nxref\n")
    path = tmp_path / f"{variant}.pdf"
    path.write_bytes(data)
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "inflates past the 4 MiB limit for one"), result


@pytest.mark.parametrize(
    "filters, head, unit",
    [
        (b"[/FlateDecode /RunLengthDecode]", b"\x80", b" "),  # RunLength's end of data first
        (b"[/FlateDecode /ASCIIHexDecode]", b">", b" "),  # ASCIIHex's end first
        (b"[/FlateDecode /ASCII85Decode]", b"~>", b" "),
        (b"[/FlateDecode /FlateDecode]", b"\x78\x9c\xff\xff\xff", b" "),  # a second Flate that fails at once
        (b"[/FlateDecode /LZWDecode]", b"\x80\x80\x40", b" "),  # LZW's end-of-data code first
        (b"[/FlateDecode /ASCIIHexDecode /FlateDecode]", b"", b"20"),  # the middle stage whole, the last failing
        # (a /Filter that refers to no object is refused: test_hostile_pdf_keywords.py)
    ],
    ids=["runlength", "hex", "a85", "bad-flate", "lzw", "flate-hex-flate"],
)
def test_pdf_stage_counted_whole_when_the_next_stops_early(tmp_path, filters, head, unit):
    """1 GiB inflated by a first Flate stage of which the next reads a byte or two: PDFium
    inflates each stage whole before the next reads it (a sweep: 2-3 GiB, exit 0)."""
    bomb = zlib_repeated(unit * (MiB // len(unit)), GiB // MiB, head=head)
    path = tmp_path / "stage.pdf"
    path.write_bytes(pdf_with_contents([(b"", pdf_text(RULES)), (b"/Filter " + filters, bomb)]))
    assert path.stat().st_size < 2 * MiB
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "the stream of object 7 inflates past the 4 MiB limit for one"), result
    assert result.peak_mib < 200 and result.cpu_seconds < 5, result
    result = run_limited(["parse", str(path)], memory=GiB, env={"CRPARSE_MAX_PDF_STREAM": "1G"})
    assert refused(result, "the stream of object 7 inflates past the 256 MiB limit", "CRPARSE_MAX_INFLATED"), result


def test_pdf_streams_are_summed(tmp_path):
    """Streams each under the limit for one (here on pages of their own): their sum is over
    the limit for the file."""
    bomb = flate_bomb(MAX_PDF_STREAM - 2 * MiB, unit=b"0" * (2 * MiB))
    path = tmp_path / "streams.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", bomb)] * (MAX_INFLATED // MAX_PDF_STREAM * 2 + 1)))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "the streams of this PDF inflate past the 256 MiB limit in total, at the stream of object"), result


def test_pdf_encrypted_refused_before_pdfium(tmp_path):
    """Its streams can be decoded only once decrypted: they cannot be checked."""
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"00" * 32, b"00" * 32)
    path = tmp_path / "encrypted.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", flate_bomb(64 * MiB))], [encrypt],
                                       trailer=b"/En#63rypt 6 0 R /ID [<00> <00>] "))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "an encrypted PDF", "decrypt it first"), result


@pytest.mark.parametrize("trailer", [b"/Xstream 0 /Encrypt 6 0 R ", b"/Note (100%) /Encrypt 6 0 R "])
def test_pdf_encrypted_with_a_trailer_that_looks_like_a_comment_or_a_stream_is_refused(tmp_path, trailer):
    """A check that passed /Encrypt in comments and streams' data was fooled by a key ending in
    "stream" and a "%" in a string: PDFium read an encrypted 150 MB bomb (2 GiB)."""
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"00" * 32, b"00" * 32)
    path = tmp_path / "encrypted.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", flate_bomb(MiB))], [encrypt], trailer=trailer + b"/ID [<00> <00>] "))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "an encrypted PDF (an /Encrypt entry)", "decrypt it first"), result
    assert f"{path}:".encode() in result.stderr


def test_pdf_check_reads_streams_the_official_releases_use():
    """Streams PDFium needs that are no bombs pass: a page's content in each filter chain."""
    import base64

    text = pdf_text(RULES)
    for entries, data in [
        (b"", text), (b"/Filter /FlateDecode", zlib.compress(text)), (b"/Filter /AHx", text.hex().encode() + b">"),
        (b"/Filter [/A85 /Fl]", base64.a85encode(zlib.compress(text)) + b"~>"),
        (b"/Filter /LZWDecode", lzw_bomb(text, 1000)),
        (b"/Filter /RunLengthDecode", b"".join(bytes([len(text[i : i + 100]) - 1]) + text[i : i + 100] for i in range(0, len(text), 100)) + b"\x80"),
    ]:
        doc = crparse.parse(pdf_with_contents([(entries, data)]))
        assert [r.number for r in doc.rules] == ["100", "100.1", "100.1a", "100.2"], entries


def test_pdf_every_line_like_a_running_header(tmp_path):
    """The same page printed four times: every line repeats at its height on every page. Not
    "no text layer": the lines are kept, and a warning says why none was set aside."""
    page = [(72, 700 - 14 * i, text) for i, text in enumerate(RULES)]
    path = tmp_path / "same-page.pdf"
    path.write_bytes(make_pdf([page] * 4))
    doc = crparse.parse(path)
    assert [r.number for r in doc.rules][:4] == ["100", "100.1", "100.1a", "100.2"]
    assert [d.severity for d in doc.diagnostics if d.code == "page-furniture"] == ["warning"]
    assert not doc.residue or all(not r.reason.startswith("page") for r in doc.residue)


def test_pdf_damaged_stream_named(tmp_path):
    """A Flate stream that is no zlib data gives PDFium no text, silently: not "a scan?"."""
    broken = b"\x78\x00" + zlib.compress(pdf_text(RULES))[2:]  # a header that fails its check
    path = tmp_path / "damaged.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", broken)]))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "cannot read this PDF file: no text came out, and 1 of its Flate streams are damaged",
                   "(the stream of object 5: incorrect header check)"), result
    # with text on another page: read, and a warning says that text may be missing
    doc = crparse.parse(pdf_with_contents([(b"/Filter /FlateDecode", zlib.compress(pdf_text(RULES))),
                                           (b"/Filter /FlateDecode", broken)]))
    assert [d.message for d in doc.diagnostics if d.code == "pdf-damaged-stream"] == [
        "1 damaged Flate stream(s), text may be missing: the stream of object 7: incorrect header check"]


def test_pdf_page_that_gives_no_text_is_said():
    """A content stream under a filter it is not (Flate data labelled LZW) decodes to nothing
    PDFium can show, and no error: the page's rules were lost without a word (sweep 26, 219
    rules of a real release). Whatever the filter, a page that gives no text is said."""
    second = [f"{n}. Section {n}" for n in (200, 201)]
    doc = crparse.parse(pdf_with_contents([(b"/Filter /FlateDecode", zlib.compress(pdf_text(RULES))),
                                           (b"/Filter /LZWDecode", zlib.compress(pdf_text(second)))]))
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.1a", "100.2"]
    assert [(d.severity, d.message) for d in doc.diagnostics if d.code == "pdf-blank-page"] == [
        ("warning", "1 of 2 page(s) give no text (page 2): text may be missing (a content stream that does not "
                    "decode, or a page of images)")]
    # the same pages, each decoding: nothing said
    doc = crparse.parse(pdf_with_contents([(b"/Filter /FlateDecode", zlib.compress(pdf_text(RULES))),
                                           (b"/Filter /FlateDecode", zlib.compress(pdf_text(second)))]))
    assert [r.number for r in doc.rules][-2:] == ["200", "201"]
    assert not [d for d in doc.diagnostics if d.code == "pdf-blank-page"]


def _pdf_with_annotations(annotations: bytes) -> bytes:
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                   b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                   b"/Contents 5 0 R /Annots [" + annotations + b"] >>",
                   b"<< /Length %d >>\nstream\n" % len(pdf_text(RULES)) + pdf_text(RULES) + b"\nendstream"])


def test_pdf_text_in_annotations_and_form_fields_is_said_not_read(monkeypatch):
    """A FreeText annotation's rule and a form field's were lost without a word, where the DOCX
    and RTF readers say what they leave out (sweep 27). Links, and annotations holding no text,
    are nothing to say."""
    doc = crparse.parse(_pdf_with_annotations(
        b"<< /Type /Annot /Subtype /FreeText /Rect [72 400 300 420] /Contents (100.4. In a note.) >> "
        b"<< /Type /Annot /Subtype /Widget /FT /Tx /V (100.5. In a field.) /Rect [0 0 10 10] >> "
        b"<< /Type /Annot /Subtype /Widget /FT /Tx /V (100.6. In another.) /Rect [0 0 10 10] >> "
        b"<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents (A comment.) >> "
        b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /Contents (A link.) >> "
        b"<< /Type /Annot /Subtype /Square /Rect [0 0 10 10] >>"))
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.1a", "100.2"]
    assert [(d.severity, d.message) for d in doc.diagnostics if d.code == "pdf-not-read"] == [
        ("warning", "text the reader does not read: 2 annotations, 2 form fields (annotations and form fields hold text "
                    "apart from the page's)")]
    doc = crparse.parse(_pdf_with_annotations(b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] >>"))
    assert not [d for d in doc.diagnostics if d.code == "pdf-not-read"]
    # past those looked at, the rest are counted apart: links or not, they are not looked at
    monkeypatch.setattr(crparse.readers.pdf, "MAX_ANNOTATIONS", 2)
    monkeypatch.setattr(crparse.readers.pdf, "confined", lambda read, raw, path: read(raw, path))
    doc = crparse.parse(_pdf_with_annotations(b"<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] >> " * 5))
    assert [d.message for d in doc.diagnostics if d.code == "pdf-not-read"] == [
        "text the reader does not read: 3 annotations past the 2 examined (annotations and form fields hold text apart "
        "from the page's)"]


# -- RTF --------------------------------------------------------------------------------------


def rtf_with(escapes: str) -> bytes:
    body = "\\par\n".join(RULES).replace("two players", "two " + escapes + "players")
    return ("{\\rtf1\\ansi\\ansicpg1252 " + body + "}").encode("latin-1")


def test_rtf_surrogate_pairs_joined_and_bad_escapes_replaced():
    doc = crparse.parse(rtf_with("\\u-10179?\\u-8704? \\u55296?x \\u-8704?y \\u99999999? \\u-99999? "))
    text = doc.rule("100.1a").text
    assert "\U0001f600 \ufffdx \ufffdy \ufffd \ufffd players" in text
    bad = [d for d in doc.diagnostics if d.code == "rtf-bad-escape"]
    assert [(d.line, d.severity) for d in bad] == [(4, "warning")] and bad[0].message.startswith("4 ")
    crparse.to_json(doc).encode("utf-8")  # the output is valid UTF-8


def test_rtf_bad_escapes_through_the_cli(tmp_path):
    path = tmp_path / "escapes.rtf"
    path.write_bytes(rtf_with("\\u55296? \\u-56000? \\uc \\u12345678901 "))
    for command in (["parse", "--json", str(path)], ["text", str(path)]):
        result = run_limited(command, memory=GiB)
        assert result.ok_within_limits and result.returncode == 0, result
        result.stdout.decode("utf-8")


# -- damaged files ----------------------------------------------------------------------------


def _damaged(name: str, data: bytes, rnd: random.Random) -> list[tuple[str, bytes]]:
    """Truncations at several offsets, and bytes flipped, in the middle and the end."""
    cuts = sorted({len(data) * k // 10 for k in range(1, 10)} | {len(data) - 22, len(data) - 1, 30, 8})
    out = [(f"{name}-cut{cut}", data[:cut]) for cut in cuts if 0 < cut < len(data)]
    for i in range(10):
        flipped = bytearray(data)
        for at in rnd.sample(range(len(data) // 3, len(data)), 8):
            flipped[at] ^= 1 << rnd.randrange(8)
        out.append((f"{name}-flip{i}", bytes(flipped)))
    return out


def test_damaged_files_get_one_line(tmp_path):
    rnd = random.Random(7)
    pdf = make_pdf([[(72, 700 - 14 * i, text) for i, text in enumerate(RULES)]] * 2)
    compressed = pdf_with_contents([(b"/Filter /FlateDecode", zlib.compress(pdf_text(RULES)))] * 2)
    files = []
    for name, data in [("docx", make_docx(RULES)), ("pdf", pdf), ("flate-pdf", compressed), ("rtf", rtf_with(""))]:
        for case, damaged in _damaged(name, data, rnd):
            path = tmp_path / case
            path.write_bytes(damaged)
            files.append(str(path))
    result = run_limited(["parse", *files], memory=GiB)
    lines = result.stderr.decode("utf-8").splitlines()
    assert result.ok_within_limits and result.returncode in (0, 2), result
    assert all(line.startswith("crparse: ") and "internal error" not in line for line in lines), lines
    truncated_docx = [line for line in lines if "/docx-cut" in line]
    assert truncated_docx and all("cannot read this DOCX file" in line or "broken ZIP archive" in line for line in truncated_docx)
    assert all("cannot read this PDF file" in line or "not a Comprehensive Rules" in line or "no text layer" in line
               for line in lines if "pdf-cut" in line)


def test_an_encrypted_docx_member_is_said_so_in_words():
    """zipfile's message held the ZipInfo's repr: "File <ZipInfo filename=... > is encrypted"."""
    import io
    import zipfile

    import crparse

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document/>")
    data = bytearray(out.getvalue())
    for header, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(header) + flags
        data[at] |= 1  # the general purpose bit flag's "encrypted"
    with pytest.raises(crparse.CrparseError, match=r"word/document.xml is encrypted \(a password-protected archive\)$"):
        crparse.parse(bytes(data))


def test_zip_of_a_version_zipfile_cannot_read_is_a_refusal():
    """zipfile raises NotImplementedError for a ZIP version it does not read (found by fuzzing)."""
    import io
    import zipfile

    import crparse

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("word/document.xml", "x")
    data = bytearray(out.getvalue())
    data[data.find(b"PK\x03\x04") + 4] = 148  # "version needed to extract": 14.8
    data[data.find(b"PK\x01\x02") + 6] = 148
    with pytest.raises(crparse.CrparseError, match="broken ZIP archive"):
        crparse.parse(bytes(data))


# PDFium's white space is NUL, TAB, LF, FF, CR, space, 0x80 and 0xFF (its PDF_CharType): sweeps 7 and 14
@pytest.mark.parametrize("entry", [b"/Encrypt\x006 0 R ", b"/Encrypt 6\x000 R ", b"/Encrypt 6 0\x00R ", b"/Encrypt +6 0 R ",
                                   b"/Encrypt\x806 0 R ", b"/Encrypt\xff6 0 R "])
def test_pdf_encrypted_with_an_odd_spelling_of_its_entry_is_refused(tmp_path, entry):
    """The check wanted '/Encrypt N N R' with Python's white space: NUL (PDF white space) or a
    signed number got an encrypted bomb past it, which PDFium decrypted and read."""
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"00" * 32, b"00" * 32)
    path = tmp_path / "encrypted.pdf"
    path.write_bytes(pdf_with_contents([(b"/Filter /FlateDecode", flate_bomb(MiB))], [encrypt], trailer=entry + b"/ID [<00> <00>] "))
    result = run_limited(["parse", str(path)], memory=GiB)
    assert refused(result, "an encrypted PDF (an /Encrypt entry)"), result


@pytest.mark.parametrize("junk", [b"From: someone\r\n\r\n", b"x" * 900])
def test_a_pdf_after_junk_is_detected_as_pdfium_reads_it(junk):
    """PDFium reads a header anywhere in the first 1 KB: a mail header before it had the file
    refused as binary data, or as no rules (sweep 18)."""
    data = junk + make_pdf([[(72, 700, "100.1. These Magic rules apply."), (72, 686, "100.2. To play, each player.")]])
    assert crparse.parse(data).source.format == "pdf"
    assert crparse.parse(b"Notes on %PDF-1.7 files.\n\n100.1. A rule.\n\n100.2. Another.\n").source.format == "text"


@pytest.mark.parametrize("where, construct", [
    ("body", "<!-- 100.3. A rule commented out. -->"),
    ("body", "<?x 100.3. A rule in a processing instruction.?>"),
    ("body", "<!--\n<w:p><w:r><w:t>100.3. A paragraph commented out.</w:t></w:r></w:p>\n-->"),
    ("after", "<!-- 100.3. After the document. -->"),
    ("text", "<!-- 100.3. x -->"),
    ("body", "<!--\n100.3. In a comment read across chunks.\n" + "y" * 1_500_000 + "-->"),
])
def test_docx_comments_and_instructions_holding_rules_are_said(where, construct):
    """Word shows no comment or processing instruction of the document part, and the reader reads
    none: holding rules, they went without a word, where HTML's and Markdown's are said (sweep 25)."""
    document = _document("100. General", "100.1. First.", "100.2. Second.")
    if where == "body":
        document = document.replace("<w:body>", "<w:body>" + construct)
    elif where == "after":
        document += construct
    else:
        document = document.replace("First.", "First." + construct)
    doc = crparse.parse(zip_of_members({"word/document.xml": document}), format="docx")
    said = [d.message for d in doc.diagnostics if "comment(s) or processing instruction(s)" in d.message]
    assert said == ["not read, 1 comment(s) or processing instruction(s) of word/document.xml that hold what reads "
                    "as rules (a rule number at a line's start)"]
    assert doc.rule("100.1").text == "First."
    plain = _document("100. General", "100.1. First.", "100.2. Second.").replace("<w:body>", "<w:body><!-- see 100.1 -->")
    doc = crparse.parse(zip_of_members({"word/document.xml": plain}), format="docx")
    assert not [d for d in doc.diagnostics if "comment(s) or processing instruction(s)" in d.message]


@pytest.mark.parametrize("shape", ["many-empty", "line-breaks"])
def test_docx_comments_are_looked_at_within_bounds(tmp_path, shape):
    """The comments of the document part were looked at one by one and line by line: 36 million
    empty comments in 1 MB, 26 s; 240 comments of 1 MiB of line breaks, 84 s (sweep 26). They count
    as elements do, and what is looked at is held to the input limit."""
    import json

    if shape == "many-empty":
        filler = "<!---->" * 2_100_000
    else:
        filler = ("<!--" + "\n" * (2**20 - 10) + "-->") * 40
    document = _document("100. General", "100.1. First.", "100.2. Second.").replace("</w:body>", filler + "</w:body>")
    path = tmp_path / "c.docx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("word/document.xml", document)
    result = run_limited(["parse", "--json", str(path)], seconds=10)
    assert result.ok_within_limits and not result.traceback, (result.timed_out, result.stderr[-300:])
    if shape == "many-empty":
        assert result.returncode == 2 and b"more than 2,000,000 comments or processing instructions" in result.stderr
    else:
        said = [d["message"] for d in json.loads(result.stdout)["diagnostics"]]
        assert any("not looked at for rules" in m for m in said), said
