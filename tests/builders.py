"""Small DOCX and PDF files built in the tests, so that no binary fixture is committed."""

from __future__ import annotations

import io


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
