"""The DOCX reader (python-docx): one source line per line of each body paragraph.

Word keeps page headers, footers and page numbers out of the body, so the body's paragraphs
are the CR's paragraphs, one per line as in the official text files. Tables (none so far in
an official release) are read cell by cell, row by row.
"""

from __future__ import annotations

from io import BytesIO

from crparse.errors import RefusedInput
from crparse.readers.base import Extract


def read(raw: bytes, path: str | None = None) -> Extract:
    try:
        import docx
        from docx.table import Table

        document = docx.Document(BytesIO(raw))
        texts: list[str] = []
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                texts += [p.text for row in item.rows for cell in row.cells for p in cell.paragraphs]
            else:
                texts.append(item.text)
    except Exception as err:  # python-docx and lxml raise many kinds for damaged packages
        raise RefusedInput(f"cannot read this DOCX file: {type(err).__name__}: {err}") from None
    lines = "\n".join(texts).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return Extract(format="docx", lines=lines, encoding="utf-8", line_endings="none")
