"""Small DOCX and PDF files built in the tests, so that no binary fixture is committed."""

from __future__ import annotations

import io
import zipfile


def zip_of_members(members: dict[str, str | bytes]) -> bytes:
    """A ZIP archive of `members` (name -> text or bytes), stored, as zipfile writes them by default."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for name, data in members.items():
            package.writestr(name, data)
    return out.getvalue()


def make_docx(paragraphs: list[str]) -> bytes:
    import docx

    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    section = document.sections[0]
    section.header.paragraphs[0].text = "Magic: The Gathering Comprehensive Rules (page header)"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_pdf(pages: list[list[tuple[float, float, str]]]) -> bytes:
    """A PDF whose pages show the given (x, y, text) lines in Helvetica 10."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for i, lines in enumerate(pages):
        stream = b"".join(
            b"BT /F1 10 Tf %.1f %.1f Td (%s) Tj ET\n" % (x, y, _escape(text)) for x, y, text in lines
        )
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {page_ids[i] + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream")
    return pdf_of(objects)


def pdf_of(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of these object bodies (object 1 the catalog), with a cross-reference table."""
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)


def _escape(text: str) -> bytes:
    return text.encode("cp1252").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def lzw(data_codes: list[int], early: int = 1) -> bytes:
    """Codes packed as PDF's LZWDecode reads them (/EarlyChange 1, the default: the width grows
    one code early; 0: when the table is full)."""
    out, bits, count, width, size = bytearray(), 0, 0, 9, 258
    first = True
    for code in data_codes:
        bits, count = bits << width | code, count + width
        while count >= 8:
            count -= 8
            out.append(bits >> count & 0xFF)
        if code == 256:
            width, size, first = 9, 258, True
            continue
        if not first and size < 4096:
            size += 1
            if size + early >= 1 << width and width < 12:
                width += 1
        first = False
    if count:
        out.append(bits << (8 - count) & 0xFF)
    return bytes(out)


def lzw_bomb(head: bytes, inflated: int, early: int = 1) -> bytes:
    """LZW data of `head` then about `inflated` blanks: each code after the first one of a table
    repeats one blank more than the code before it (the table's own newest entry)."""
    return lzw(lzw_bomb_codes(head, inflated), early)


def lzw_bomb_codes(head: bytes, inflated: int) -> list[int]:
    codes = [256, *head, 256]
    made = 0
    while made < inflated:
        codes.append(32)
        made += 1
        length, size = 1, 258
        while size < 4094 and made < inflated:
            codes.append(size)
            length += 1
            made += length
            size += 1
        codes.append(256)
    return codes + [257]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def png_rows(data: bytes, columns: int, tags: list[int], step: int = 1) -> bytes:
    """`data` PNG-predicted, row by row with the tags in turn (PNG's own definition, written
    from the specification apart from the code under test)."""
    out, previous = bytearray(), bytes(columns)
    for n, at in enumerate(range(0, len(data), columns)):
        line, tag = data[at : at + columns], tags[n % len(tags)]
        out.append(tag)
        for i, x in enumerate(line):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            guess = [0, left, up, (left + up) // 2, _paeth(left, up, corner)][tag]
            out.append((x - guess) & 0xFF)
        previous = line + previous[len(line):]
    return bytes(out)
