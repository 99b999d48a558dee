"""Hostile PDFs whose content is small as stored but large as PDFium uses it: a stream shown by
many pages (counted once by the inflate limit, parsed once per page), forms drawing forms (each
drawing parsed again), many pages, characters multiplied by a ToUnicode map, Type3 glyphs that
draw forms, and dense text. Each is refused before PDFium starts (or, for what is known only once
a page is parsed, at the page that passes the limit) with one line naming the limit; each runs
through the CLI in a child under 1 GiB and 15 s (tests/limits.py). The files are a few KB: the
limits are lowered through the environment where a default-sized case would be slow to build.
"""

from __future__ import annotations

import struct
import zlib

import pytest

from builders import pdf_of
from limits import run_limited

from crparse import RefusedInput, parse

GiB = 1 << 30
RULES = (b"BT /F1 10 Tf 72 700 Td (100. General) Tj 0 -14 Td "
         b"(100.1. These Magic rules apply to any Magic game with two or more players.) Tj 0 -14 Td "
         b"(100.2. To play, each player needs their own deck of traditional Magic cards.) Tj ET\n")
CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"  # object 3 in every file here


def refused(result, *words: str) -> bool:
    """A one-line refusal (exit 2) within the limits that says all of `words`."""
    lines = result.stderr.decode("utf-8").splitlines()
    return (
        result.ok_within_limits and result.returncode == 2 and len(lines) == 1
        and lines[0].startswith("crparse: ") and all(w in lines[0] for w in words)
    )


def stream(data: bytes, entries: bytes = b"") -> bytes:
    packed = zlib.compress(data)
    return b"<< /Length %d /Filter /FlateDecode %s>>\nstream\n" % (len(packed), entries) + packed + b"\nendstream"


def page(contents: bytes, resources: bytes = b"/Font << /F1 3 0 R >>") -> bytes:
    return b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %s >>" % (
        resources, contents)


def pages_node(kids: list[int]) -> bytes:
    return b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))


def write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# -- a stream shown by many pages ---------------------------------------------------------------


def shared_stream_pdf(pages: int, padding: int) -> bytes:
    """Object 4: a content stream of RULES and `padding` bytes of operators, which every page
    (objects 5 on) lists as its content: it inflates once, PDFium parses it on every page."""
    content = RULES + b"q Q\n" * (padding // 4)
    objects = [CATALOG, pages_node([5 + i for i in range(pages)]), FONT, stream(content)]
    objects += [page(b"4 0 R")] * pages
    return pdf_of(objects)


def test_stream_shown_by_many_pages(tmp_path):
    """60 pages show one 64 KiB stream: 3.9 MiB as parsed, 64 KiB as inflated."""
    path = write(tmp_path, "shared.pdf", shared_stream_pdf(60, 64 << 10))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "1M"})
    assert refused(result, "the pages of this PDF draw more than the 1 MiB limit of content, at page 15",
                   "a stream each time a page shows it", "CRPARSE_MAX_PDF_CONTENT"), result
    # the same file within the default limit is read
    result = run_limited(["parse", path], memory=GiB)
    assert result.ok_within_limits and result.returncode == 0, result


# PDFium reads any word of digits, "+", "-" and "." as a number, in a reference too (sweep 11)
@pytest.mark.parametrize("reference", [b"4 0 R", b"4.0 0 R", b"4 +0 R", b"004 . R"])
def test_stream_listed_many_times_by_one_page(tmp_path, reference):
    """/Contents [4 0 R 4 0 R ...]: PDFium parses each listing."""
    content = RULES + b"q Q\n" * (16 << 10)
    objects = [CATALOG, pages_node([5]), FONT, stream(content), page(b"[%s]" % b" ".join([reference] * 100))]
    path = write(tmp_path, "listed.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "2M"})
    assert refused(result, "limit for one page", "CRPARSE_MAX_PDF_STREAM"), result


# -- forms drawing forms ------------------------------------------------------------------------


def form_fanout_pdf(depth: int, fan: int = 10, leaf: bytes = b"0 0 m 10 10 l S", draw: bytes = b"/X Do") -> bytes:
    return pdf_of(form_fanout_objects(depth, fan, leaf, draw))


def form_fanout_objects(depth: int, fan: int, leaf: bytes, draw: bytes) -> list[bytes]:
    """Forms 5.. : the first draws `leaf`, each next one draws the one before `fan` times; the
    page draws the last `fan` times: fan ** depth drawings of the leaf from a file of 2 KB."""
    objects = [CATALOG, pages_node([4]), FONT, None]
    for level in range(depth):
        if level == 0:
            content, resources = leaf, b"<< >>"
        else:
            content, resources = b"q %s Q\n" % draw * fan, b"<< /XObject << /X %d 0 R >> >>" % (4 + level)
        objects.append(stream(content, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %s " % resources))
    top = 4 + depth
    objects.append(stream(RULES + b"q %s Q\n" % draw * fan))
    objects[3] = page(b"%d 0 R" % len(objects), b"/Font << /F1 3 0 R >> /XObject << /X %d 0 R >>" % top)
    return objects


def test_form_fanout(tmp_path):
    """1,000 drawings of a 1 KiB form: 1 MiB as parsed."""
    path = write(tmp_path, "fanout.pdf", form_fanout_pdf(3, leaf=b"q Q\n" * 256))
    assert len(open(path, "rb").read()) < 4000
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "512K"})
    assert refused(result, "the pages of this PDF draw more than the 512 KiB limit of content, at page 1",
                   "a form each time it is drawn", "CRPARSE_MAX_PDF_CONTENT"), result


# PDFium's Do takes a string for the name too: "(X) Do" drew a bomb the walk never counted (sweep 12)
@pytest.mark.parametrize("draw", [b"/X Do", b"(X) Do", b"<58> Do", b"/X\x80Do", b"<5\xff8>\xffDo"])
def test_form_fanout_bomb(tmp_path, draw):
    """10^8 drawings from 2.5 KB: PDFium aborted the process (SIGABRT, no message) in 5 s."""
    path = write(tmp_path, "bomb.pdf", form_fanout_pdf(8, draw=draw))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "page 1 of this PDF (object 4) draws", "past the 4 MiB limit for one page",
                   "CRPARSE_MAX_PDF_STREAM"), result
    assert result.cpu_seconds < 5


def test_resources_inherited_through_a_parent_outside_the_tree(tmp_path):
    """The page has no /Resources; the node that lists it has none either, but its /Parent, a
    node no /Kids lists, has: PDFium looks up the /Parent chain, and drew 10^8 forms (sweep 13)."""
    objects = form_fanout_objects(8, 10, b"0 0 m 10 10 l S", b"/X Do")
    top = len(objects) - 1  # the last form, which the page draws
    outside = len(objects) + 1
    objects[3] = (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>"
                  % (outside, len(objects)))
    objects.append(b"<< /Type /Pages /Count 1 /Resources << /Font << /F1 3 0 R >> /XObject << /X %d 0 R >> >> >>"
                   % top)
    path = write(tmp_path, "parent.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "page 1 of this PDF (object 4) draws", "past the 4 MiB limit for one page"), result


@pytest.mark.parametrize("resources", [b"<< /ProcSet [/PDF] >>", b"0"], ids=["without-xobject", "not-a-dictionary"])
def test_a_form_drawing_what_only_the_page_names(tmp_path, resources):
    """Form 6 draws /Fm2 2,000 times; its /Resources name no /Fm2, the page's do: PDFium looks
    the name up there (FindResourceHolder) and drew 2 GiB unseen (sweep 14)."""
    page_resources = b"/Font << /F1 3 0 R >> /XObject << /Fm1 6 0 R /Fm2 7 0 R >>"
    objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R", page_resources), stream(RULES + b"/Fm1 Do\n"),
               stream(b"/Fm2 Do\n" * 2000, b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources %s " % resources),
               stream(b" " * (1 << 20) + b"0 0 1 1 re f", b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] ")]
    path = write(tmp_path, "fallback.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "page 1 of this PDF (object 4) draws 2 GiB", "past the 4 MiB limit for one page"), result


def test_a_page_defined_more_times_than_are_read(tmp_path):
    """16 decoy definitions of the page before the one PDFium reads (the last, which the
    cross-reference table names) hid an 80 MiB page (sweep 14)."""
    data = pdf_of(form_fanout_objects(8, 10, b"0 0 m 10 10 l S", b"/X Do"))
    decoys = b"".join(b"4 0 obj\n<< /Type /Page /Parent 2 0 R /Contents [] >>\nendobj\n" for _ in range(16))
    path = write(tmp_path, "defined.pdf", data.replace(b"1 0 obj", decoys + b"1 0 obj", 1))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "object 4 of this PDF is defined over 16 times"), result


def packed_pdf(objects: list[bytes]) -> bytes:
    """A PDF of these objects (1 the catalog) where every one that is not a stream is in an
    object stream, found through a cross-reference stream, as Acrobat and InDesign write them."""
    packed = [(n, body) for n, body in enumerate(objects, 1) if b"\nstream\n" not in body]
    head, data = [], b""
    for n, body in packed:
        head.append(b"%d %d" % (n, len(data)))
        data += body + b"\n"
    head = b" ".join(head) + b"\n"
    out, at = bytearray(b"%PDF-1.7\n"), {}
    for n, body in enumerate(objects, 1):
        if b"\nstream\n" in body:
            at[n] = len(out)
            out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    holder, table = len(objects) + 1, len(objects) + 2
    at[holder] = len(out)
    out += b"%d 0 obj\n" % holder + stream(head + data, b"/Type /ObjStm /N %d /First %d " % (len(packed), len(head)))
    out += b"\nendobj\n"
    index = {n: i for i, (n, _) in enumerate(packed)}
    at[table] = len(out)
    rows = [b"\0\0\0\0\0\xff\xff"] + [
        struct.pack(">BIH", 2, holder, index[n]) if n in index else struct.pack(">BIH", 1, at[n], 0)
        for n in range(1, table + 1)
    ]
    out += b"%d 0 obj\n" % table + stream(b"".join(rows), b"/Type /XRef /Size %d /W [1 4 2] /Root 1 0 R " % (table + 1))
    out += b"\nendobj\nstartxref\n%d\n%%%%EOF\n" % at[table]
    return bytes(out)


def test_form_fanout_in_an_object_stream(tmp_path):
    """The page tree, the page and the forms' resources packed in an object stream, where no
    "obj" of the file's text shows them: 1,000 drawings of a 1 KiB form, as above."""
    objects = [CATALOG, pages_node([4]), FONT, None]
    for level in range(3):  # forms 5 to 7, their resources 8 to 10
        content = b"q Q\n" * 256 if level == 0 else b"q /X Do Q\n" * 10
        entries = b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources %d 0 R " % (8 + level)
        objects.append(stream(content, entries))
    objects += [b"<< >>", b"<< /XObject << /X 5 0 R >> >>", b"<< /XObject << /X 6 0 R >> >>"]
    objects.append(stream(RULES + b"q /X Do Q\n" * 10))
    objects[3] = page(b"11 0 R", b"/Font << /F1 3 0 R >> /XObject << /X 7 0 R >>")
    path = write(tmp_path, "packed.pdf", packed_pdf(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "512K"})
    assert refused(result, "the pages of this PDF draw more than the 512 KiB limit of content, at page 1",
                   "CRPARSE_MAX_PDF_CONTENT"), result
    # within the default limit it is read, as PDFium reads it
    result = run_limited(["parse", path], memory=GiB)
    assert result.ok_within_limits and result.returncode == 0, result


def test_inline_image_bomb(tmp_path):
    """PDFium inflates an inline image's data as it parses the content, whatever its /W and
    /H say: 2 GiB of zeros in a 6 KB page made it abort. Held to the limit for one stream."""
    bomb = zlib.compress(b"\0" * (2 << 20), 9)  # 2 MiB, past a 1 MiB limit
    content = RULES + b"q BI /W 10 /H 10 /BPC 8 /CS /G /F /Fl ID " + bomb + b" EI Q\n"
    objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R"), stream(content)]
    path = write(tmp_path, "inline.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_STREAM": "1M"})
    assert refused(result, "an inline image of the stream of object 5 inflates past the 1 MiB limit for one",
                   "CRPARSE_MAX_PDF_STREAM"), result


def test_type3_glyph_drawing_forms(tmp_path):
    """A Type3 font's glyph is a content stream too, and may draw forms: 10^4 drawings here
    (10^8 made PDFium abort)."""
    objects = [CATALOG, pages_node([4]), FONT,
               page(b"5 0 R", b"/Font << /F1 3 0 R /T3 6 0 R >>"),
               stream(RULES + b"BT /T3 10 Tf 72 400 Td (a) Tj ET\n"),
               b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] "
               b"/CharProcs << /a 7 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 "
               b"/Widths [1000] /Resources << /XObject << /X 12 0 R >> >> >>",
               stream(b"1000 0 d0 /X Do")]
    for level in range(5):  # forms 8 to 12, each drawing the one before ten times
        content = b"0 0 m 10 10 l S" if level == 0 else b"q /X Do Q\n" * 10
        resources = b"<< >>" if level == 0 else b"<< /XObject << /X %d 0 R >> >>" % (7 + level)
        objects.append(stream(content, b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources %s " % resources))
    path = write(tmp_path, "type3.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_STREAM": "128K"})
    assert refused(result, "the Type3 fonts of this PDF draw", "past the 128 KiB limit for one page",
                   "CRPARSE_MAX_PDF_STREAM"), result


# -- many pages -----------------------------------------------------------------------------------


def test_many_pages(tmp_path):
    """Every page costs PDFium its parsing and a text page: 400 pages of three lines each."""
    objects = [CATALOG, pages_node([4 + 2 * i for i in range(400)]), FONT]
    for i in range(400):
        objects += [page(b"%d 0 R" % (5 + 2 * i)), stream(RULES)]
    path = write(tmp_path, "pages.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "1M"})
    assert refused(result, "the pages of this PDF draw more than the 1 MiB limit of content, at page 2",
                   "CRPARSE_MAX_PDF_CONTENT"), result


def test_page_listed_many_times(tmp_path):
    """One page object listed 2,000 times in /Kids: PDFium shows it 2,000 times."""
    objects = [CATALOG, pages_node([4] * 2000), FONT, page(b"5 0 R"), stream(RULES)]
    path = write(tmp_path, "kids.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "1M"})
    assert refused(result, "the pages of this PDF draw more than the 1 MiB limit of content",
                   "CRPARSE_MAX_PDF_CONTENT"), result


# -- characters -----------------------------------------------------------------------------------


def test_tounicode_many_characters_per_code(tmp_path):
    """A ToUnicode map gives one code 400 characters: 100,000 codes made PDFium abort; 2,000
    here make 800,000 characters from a 3 KB file."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> "
            b"endcodespacerange 1 beginbfchar <78> <" + b"0041" * 400 + b"> endbfchar endcmap end end")
    objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R", b"/Font << /F1 3 0 R /F2 6 0 R >>"),
               stream(RULES + b"BT /F2 1 Tf 72 500 Td (" + b"x" * 2000 + b") Tj ET\n"),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 7 0 R >>", stream(cmap)]
    path = write(tmp_path, "tounicode.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "page 1 of this PDF (object 4) draws", "past the 4 MiB limit for one page",
                   "CRPARSE_MAX_PDF_STREAM"), result


def dense_pages_pdf(pages: int, chars: int) -> bytes:
    """Pages of RULES and `chars` characters in strings of 100: little content, much text."""
    line = b"(" + b"x" * 100 + b") Tj 0 -1 Td\n"
    content = RULES + b"BT /F1 1 Tf 72 600 Td\n" + line * (chars // 100) + b"ET\n"
    objects = [CATALOG, pages_node([4 + 2 * i for i in range(pages)]), FONT]
    for i in range(pages):
        objects += [page(b"%d 0 R" % (5 + 2 * i)), stream(content + b"%% page %d\n" % i)]
    return pdf_of(objects)


def test_dense_text_counted_as_extracted(tmp_path):
    """What PDFium makes of a page (its characters, its page objects) is counted once it is
    parsed: a document of dense pages is refused at the page that passes the limit."""
    path = write(tmp_path, "dense.pdf", dense_pages_pdf(10, 20_000))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_CONTENT": "1M"})
    assert refused(result, "the pages of this PDF draw more than the 1 MiB limit of content, at page 3",
                   "CRPARSE_MAX_PDF_CONTENT"), result


def test_text_held_to_the_input_limit(tmp_path):
    """As a DOCX's: 200,000 characters from a 10 KB file, past a 64 KiB input limit."""
    path = write(tmp_path, "text.pdf", dense_pages_pdf(10, 20_000))
    limits = {"CRPARSE_MAX_INPUT": "64K", "CRPARSE_MAX_PDF_CONTENT": "64M"}
    result = run_limited(["parse", path], memory=GiB, env=limits)
    assert refused(result, "its text passes the 64 KiB input limit at page 4", "CRPARSE_MAX_INPUT"), result


# -- the checks themselves ----------------------------------------------------------------------


def test_comments_do_not_make_the_checks_slow(tmp_path):
    """A line of 2,000 "%" after /Encrypt (or /Filter): the patterns tried every way of cutting
    it into comments (hours); a 3 KB file timed out."""
    objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R"), stream(RULES)]
    data = pdf_of(objects).replace(b"%%EOF", b"/Encrypt" + b"%" * 2000 + b"\n%%EOF")
    path = write(tmp_path, "comments.pdf", data)
    result = run_limited(["parse", path], memory=GiB)
    assert result.ok_within_limits and result.returncode in (0, 2) and result.cpu_seconds < 5, result


def test_a_pdf_of_thousands_of_catalogs_is_checked_in_linear_time(tmp_path):
    """Each /Root's page tree was added to a list after a membership test on the list: 65,000
    distinct catalogs (3.4 MB) took 43 s of comparisons before PDFium opened the file."""
    from builders import make_pdf

    base = make_pdf([[(72, 700, "100.1. These Magic rules apply to any Magic game."), (72, 680, "100.2. To play.")]])
    data = bytearray(base[: base.rindex(b"%%EOF")])
    for k in range(65_000):
        data += b"%d 0 obj<</Root %d 0 R/Pages %d 0 R>>endobj\n" % (100 + k, 100 + k, 900_000 + k)
    path = tmp_path / "roots.pdf"
    path.write_bytes(bytes(data) + b"%%EOF\n")
    result = run_limited(["parse", str(path)], memory=GiB)
    assert result.ok_within_limits and result.returncode == 0 and result.cpu_seconds < 8, result


@pytest.mark.parametrize("where", ["first", "last"])
def test_characters_without_text_at_a_page_end(tmp_path, where):
    """pypdfium2 skips the characters PDFium gives no text for (code 0) at a page's ends by
    recursion, a call each: 1,500 of them refused the file with a RecursionError's text."""
    import crparse
    from builders import make_pdf
    from hostile_inputs import RULES as TEXT

    lines = [(72, 740 - 14 * i, line) for i, line in enumerate(l for l in TEXT.splitlines() if l)]
    at = 0 if where == "first" else -1
    x, y, text = lines[at]
    lines[at] = (x, y, "\x00" * 1500 + text if where == "first" else text + "\x00" * 1500)
    path = tmp_path / "passive.pdf"
    path.write_bytes(make_pdf([lines]))
    doc = crparse.parse(path)
    assert doc.rule("100.1") is not None and not [d for d in doc.diagnostics if d.severity == "error"]


def test_running_lines_are_found_in_linear_time(tmp_path):
    """Each running line took the median height of its page again: 10 pages of 4,000 like lines
    (a 15 KB file) took 9.5 s of CPU, which the read's CPU limit then refused as a bomb (sweep 13)."""
    height = 4000 * 3 + 40
    lines = b"(100.1. These Magic rules apply.) ' (100.2. To play, each player needs a deck.) ' " + b"(a) ' " * 4000
    content = stream(b"BT /F1 2 Tf 3 TL 10 %d Td " % (height - 10) + lines + b"ET")
    pages = [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 %d] /Resources << /Font << /F1 3 0 R >> >> "
             b"/Contents 14 0 R >>" % height] * 10
    path = write(tmp_path, "lines.pdf", pdf_of([CATALOG, pages_node(list(range(4, 14))), FONT, *pages, content]))
    result = run_limited(["parse", path], seconds=6)
    assert result.ok_within_limits, (result.returncode, result.cpu_seconds, result.stderr[-300:])
    assert b"took more than" not in result.stderr, result.stderr[-300:]


def test_an_endstream_in_unfiltered_data_does_not_end_what_is_costed(tmp_path):
    """PDFium reads /Length bytes: "% endstream" early in a page's data cut what the check costed,
    and a page of 9 MiB of content passed the 4 MiB limit for one page (sweep 13)."""
    lines = b"".join(b"(100.%d. Each player draws a card in rule %d.) '\n" % (i, i) for i in range(12_000))
    data = b"BT ET\n% endstream\nBT /F1 1 Tf 0.001 TL 10 780 Td\n" + lines + b"ET\n"
    content = b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
    path = write(tmp_path, "early.pdf", pdf_of([CATALOG, pages_node([4]), FONT, page(b"5 0 R"), content]))
    result = run_limited(["parse", path], memory=GiB, env={"CRPARSE_MAX_PDF_STREAM": "2M"})
    assert refused(result, "page 1 of this PDF (object 4) draws", "past the 2 MiB limit for one page"), result


@pytest.mark.parametrize("target, shown", [("0041", "A"), ("D83DDE00", "\U0001f600"), ("D800", "\ufffd"), ("FFFE", ""),
                                           ("FDD0", "\ufdd0"), ("D83DDE00FDD0", "\U0001f600\ufdd0")])
def test_a_character_outside_the_bmp_or_with_no_text_keeps_the_lines_after_it(tmp_path, target, shown):
    """A code mapped to a character outside the BMP (two of PDFium's characters, one decoded), to
    a lone surrogate (dropped) or to U+FFFE (no text): every later line of the page began one
    character early, section 101 ran into rule 100.2, and "stray line 'S'" named no cause (sweep 17)."""
    import crparse

    lines = [b"100. General", b"100.1. These Magic rules apply to any Magic game.",
             b"100.2. To \x01play, each player needs their own deck.", b"See rule 100.1.", b"101. The Golden Rules",
             b"101.1. Whenever a card's text directly contradicts these rules, the card takes precedence.",
             b"101.2. When a rule allows something, the \"can't\" effect takes precedence."]
    content = b"BT /F1 10 Tf 72 740 Td 14 TL " + b"".join(b"(%s) '\n" % line.replace(b'"', b'\\"') for line in lines) + b"ET"
    cmap = (b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange\n1 beginbfchar <01> <%s> endbfchar\n"
            b"1 beginbfrange <20> <7E> <0020> endbfrange endcmap" % target.encode())
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"
    path = write(tmp_path, "mapped.pdf", pdf_of([CATALOG, pages_node([4]), font, page(b"5 0 R"), stream(content), stream(cmap)]))
    doc = crparse.parse(path)
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "101", "101.1", "101.2"], doc.diagnostics
    assert " ".join(doc.rule("100.2").text.split()) == f"To {shown}play, each player needs their own deck. See rule 100.1."
    assert not doc.residue and doc.rule("101").title == "The Golden Rules"


@pytest.mark.parametrize("target", ["200B", "FEFF", "200E", "2060", "00AD"])
def test_an_invisible_character_before_a_rule_number_in_a_pdf_starts_the_rule_still(tmp_path, target):
    """A line at the common pitch after a rule, opening with a zero-width space (from a ToUnicode
    map), was joined to the rule above as its text before the character was taken out: rule 100.2
    was lost, "100.3 follows 100.1: no 100.2" (sweep 20)."""
    import crparse

    lines = [b"100. General", b"100.1. These Magic rules apply.", b"\x01100.2. Second rule.", b"100.3. Third rule."]
    content = b"BT /F1 10 Tf 72 740 Td 20 TL " + b"".join(b"(%s) '\n" % line for line in lines) + b"ET"
    cmap = (b"begincmap 1 begincodespacerange <00> <FF> endcodespacerange\n1 beginbfchar <01> <%s> endbfchar\n"
            b"1 beginbfrange <20> <7E> <0020> endbfrange endcmap" % target.encode())
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"
    path = write(tmp_path, "invisible.pdf", pdf_of([CATALOG, pages_node([4]), font, page(b"5 0 R"), stream(content), stream(cmap)]))
    doc = crparse.parse(path)
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2", "100.3"], doc.diagnostics
    assert doc.rule("100.1").text == "These Magic rules apply." and doc.rule("100.2").text == "Second rule."
    assert [d.code for d in doc.diagnostics if d.code == "invisible-characters"] == ["invisible-characters"]


@pytest.mark.parametrize("where", ["page", "form"])
def test_a_mesh_shading_counts_each_time_it_is_painted(tmp_path, where):
    """PDFium decodes a mesh shading for its bounds each time "sh" paints it: 2,000 "sh" of a
    3 MiB mesh inflated from 3 KB took over 10 s, counted 32 bytes each (sweep 17)."""
    mesh = zlib.compress(b"\0" * (3 << 20))
    shading = (b"<< /Length %d /ShadingType 4 /ColorSpace /DeviceRGB /BitsPerCoordinate 32 /BitsPerComponent 16 "
               b"/BitsPerFlag 8 /Decode [0 1 0 1 0 1 0 1 0 1] /Filter /FlateDecode >>\nstream\n" % len(mesh)
               + mesh + b"\nendstream")
    if where == "page":
        objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R", b"/Font << /F1 3 0 R >> /Shading << /S 6 0 R >>"),
                   stream(RULES + b"/S sh " * 2000), shading]
    else:  # a form painting it 50 times, drawn 40 times
        form = stream(b"/S sh " * 50, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Shading << /S 6 0 R >> >> ")
        objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R", b"/Font << /F1 3 0 R >> /XObject << /X 7 0 R >>"),
                   stream(RULES + b"/X Do " * 40), shading, form]
    result = run_limited(["parse", write(tmp_path, "mesh.pdf", pdf_of(objects))], memory=GiB, seconds=6)
    assert refused(result, "a mesh shading 1/16 of its size each time it is painted"), result
    once = objects[:4] + [stream(RULES + b"/S sh "), shading] if where == "page" else None
    if once:  # painted once, it is read
        result = run_limited(["parse", write(tmp_path, "once.pdf", pdf_of(once))], memory=GiB)
        assert result.returncode == 0 and b"100.2" in result.stdout, result


def test_a_page_showing_one_stream_over_and_over_is_refused_for_what_it_is(tmp_path):
    """A /Contents array naming one stream 300,000 times, no form at all, was refused as forms drawn
    "in over 262,144 ways (a form bomb?)" (sweep 48)."""
    data = zlib.compress(b"BT /F1 10 Tf 72 700 Td (100.1. Rule text here.) Tj 0 -12 Td (100.2. Another.) Tj ET\n")
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
               3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               4: b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
               5: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                  b"/Contents [" + b"4 0 R " * 300_000 + b"] >>"}
    pdf, offsets = bytearray(b"%PDF-1.4\n"), {}
    for number, body in objects.items():
        offsets[number] = len(pdf)
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, 6))
    pdf += b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    with pytest.raises(RefusedInput, match=r"show content streams and forms over [\d,]+ times \(a form bomb, "
                                                   r"or a page's /Contents naming one stream over and over\?\)"):
        parse(bytes(pdf), format="pdf")
