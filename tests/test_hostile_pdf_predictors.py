"""A /DecodeParms /Predictor (PNG or TIFF) interleaves a tag byte with each row of a Flate or LZW
stream's data, or stores differences: PDFium undoes it, so the bytes it reads are not those
inflated. A filter object packed in a predicted object stream went unseen and a decoy outside
it was taken instead: 80 MiB read past a 1 MiB limit (sweep 13, G3). Forms drawn from predicted
content streams hide their "Do" operators the same way."""

from __future__ import annotations

import zlib

import pytest
from builders import pdf_of, png_rows
from limits import run_limited
from test_hostile_pdf_content import CATALOG, FONT, RULES, page, pages_node, refused, write
from test_hostile_pdf_keywords import packed_filter_pdf, refused_as_a_bomb

from crparse.errors import RefusedInput
from crparse.readers.pdf import predictors
from crparse.readers.pdf.predictors import Predictor, unpredicted
from crparse.readers.pdf.syntax import Objects

GiB = 1 << 30


@pytest.mark.parametrize("tags", [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4]], ids=["none", "sub", "up", "average", "paeth", "all"])
@pytest.mark.parametrize("columns, step", [(1, 1), (7, 1), (12, 3)])
def test_png_rows_are_undone(tags, columns, step):
    data = bytes(range(256)) * 3 + b"7 0 obj [/AHx /Fl] endobj"
    assert unpredicted(png_rows(data, columns, tags, step), Predictor((12, step, 8, columns // step)), Objects(b"")) == data


def test_tiff_differences_are_undone():
    data = b"12 0 obj << /Filter [/AHx /Fl] >> endobj"
    diffs = bytes([data[0]]) + bytes((b - a) & 0xFF for a, b in zip(data, data[1:]))
    assert unpredicted(diffs, Predictor((2, 1, 8, len(data))), Objects(b"")) == data


@pytest.mark.parametrize("columns, step", [(1, 1), (300, 1), (300, 3), (4096, 4)])
def test_tiff_rows_are_undone_row_by_row(columns, step):
    data = bytes(range(256)) * 40
    diffs = bytearray(data)
    for start in range(0, len(data), columns):
        for i in range(start + step, min(start + columns, len(data))):
            diffs[i] = (data[i] - data[i - step]) & 0xFF
    assert unpredicted(bytes(diffs), Predictor((2, step, 8, columns // step)), Objects(b"")) == data


@pytest.mark.parametrize("tag", [1, 2, 3, 4, 0])
def test_the_work_of_undoing_is_bounded_per_file(tag, monkeypatch):
    """Average and Paeth rows are undone byte by byte: 14 pages of 0.8 MiB of them took 12 s and
    were refused as a bomb by the read's time limit (sweep 16). Each row, and each byte of those,
    is charged to the file; rows of one byte cost the most rows for their size."""
    monkeypatch.setattr(predictors, "MAX_PREDICTED_WORK", 100_000)
    objects = Objects(b"")
    columns = 1000 if tag in (3, 4) else 1
    data = bytes(range(256)) * 8
    rows = png_rows(data, columns, [tag])
    at_least = len(data) if tag in (3, 4) else len(data) // columns  # what one call is charged
    with pytest.raises(RefusedInput, match="too many predicted rows"):
        for _ in range(100_000 // at_least + 2):
            unpredicted(rows, Predictor((12, 1, 8, columns)), objects)


def test_parameters_pdfium_refuses_give_nothing():
    assert unpredicted(b"\x00abc", Predictor((12, 1, 3, 4)), Objects(b"")) == b""


def test_a_filter_object_in_a_predicted_object_stream_is_found(tmp_path):
    """The filter object 7 is in object stream 6, PNG-predicted; a decoy "7 0 obj [] endobj",
    which the cross-reference stream does not list, says no filter."""
    data = packed_filter_pdf(5 << 20, compressed=True, predicted=2)
    refused_as_a_bomb(tmp_path / "predicted.pdf", data.replace(b"startxref", b"7 0 obj [] endobj\nstartxref"))


def predicted_stream(data: bytes, entries: bytes = b"", columns: int = 2) -> bytes:
    packed = zlib.compress(png_rows(data, columns, [2]))
    return (b"<< /Length %d /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns %d >> %s>>\nstream\n"
            % (len(packed), columns, entries) + packed + b"\nendstream")


def test_forms_drawn_from_predicted_content_are_counted(tmp_path):
    """10^8 drawings of a form, each "Do" split by the rows' tags, as stored and as inflated."""
    objects = [CATALOG, pages_node([4]), FONT, None]
    depth = 8
    for level in range(depth):
        content = b"0 0 m 10 10 l S" if level == 0 else b"q /X Do Q\n" * 10
        resources = b"<< >>" if level == 0 else b"<< /XObject << /X %d 0 R >> >>" % (4 + level)
        objects.append(predicted_stream(content, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources %s " % resources))
    objects.append(predicted_stream(RULES + b"q /X Do Q\n" * 10))
    objects[3] = page(b"%d 0 R" % len(objects), b"/Font << /F1 3 0 R >> /XObject << /X %d 0 R >>" % (4 + depth))
    path = write(tmp_path, "predicted.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB)
    assert refused(result, "page 1 of this PDF (object 4) draws", "past the 4 MiB limit for one page"), result


def test_a_predicted_page_is_read(tmp_path):
    objects = [CATALOG, pages_node([4]), FONT, page(b"5 0 R"), predicted_stream(RULES, columns=5)]
    path = write(tmp_path, "rules.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB)
    assert result.returncode == 0 and b"100.2" in result.stdout, result


def test_many_pages_of_paeth_rows_are_refused_in_time(tmp_path):
    """60 pages of 250 KB content, each row Paeth-predicted: under every content limit, but
    their undoing took 7 s of checks, and 14 pages of 0.8 MiB 12 s (sweep 16)."""
    columns = 1000
    rows = (bytes([4]) + b"\x01" * columns) * 250
    packed = zlib.compress(rows)
    content = (b"<< /Length %d /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns %d >> >>\nstream\n"
               % (len(packed), columns) + packed + b"\nendstream")
    objects, kids = [CATALOG, None, FONT], []
    for _ in range(60):
        kids.append(len(objects) + 1)
        objects += [page(b"%d 0 R" % (len(objects) + 2)), content]
    objects[1] = pages_node(kids)
    path = write(tmp_path, "paeth.pdf", pdf_of(objects))
    result = run_limited(["parse", path], memory=GiB, seconds=5)
    assert refused(result, "too many predicted rows", "Paeth"), result
