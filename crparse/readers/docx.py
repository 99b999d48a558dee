"""The DOCX reader: one source line per line of each body paragraph.

Word keeps page headers, footers and page numbers out of the body, so the body's paragraphs
are the CR's paragraphs, one per line as in the official text files. Tables (none so far in
an official release) are read cell by cell, row by row, each cell once (a merged cell is not
repeated for each grid column or row it spans).

A DOCX is a ZIP archive, and a small one can inflate to gigabytes (a zip bomb), of blanks or
of markup: every member is first inflated in bounded chunks, counting what comes out (a
member's declared size is whatever the file says), and the file refused past the limits of
crparse/readers/limits.py. word/document.xml is then read as it inflates (lxml's iterparse),
each element dropped as soon as it has been read, so that memory holds the text, never the
XML tree; the text is held to the input size limit.

A paragraph's text is python-docx's `Paragraph.text`, which this reader used to call (and
which builds the whole tree, and takes 30 microseconds a paragraph): the runs directly in
the paragraph or in a hyperlink in it, their w:t text, w:tab and w:ptab as a tab, w:cr and a
text-wrapping w:br as a line break, w:noBreakHyphen as "-".
"""

from __future__ import annotations

import zipfile
from io import BytesIO

from crparse.errors import RefusedInput
from crparse.limits import max_input
from crparse.readers.base import Extract
from crparse.readers.limits import CHUNK, Budget, max_inflated, max_xml_elements, size

_MAIN = "word/document.xml"
# Word writes deflate, and stored members; zipfile inflates bzip2 and LZMA members without an
# output bound per read (a 4 KB read can give gigabytes), so those are refused.
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_MAX_MEMBERS = 10_000  # an official release has 30; each member costs an open and a read

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCUMENT, _BODY, _P, _R, _HYPERLINK, _T, _BR = (_W + t for t in ("document", "body", "p", "r", "hyperlink", "t", "br"))
_TBL, _TR, _TC = (_W + t for t in ("tbl", "tr", "tc"))
_BR_TYPE = _W + "type"
# The run children that stand for a character, as python-docx's run text reads them.
_RUN_CHARS = {_W + "tab": "\t", _W + "ptab": "\t", _W + "cr": "\n", _W + "noBreakHyphen": "-"}


def read(raw: bytes, path: str | None = None) -> Extract:
    try:
        archive = zipfile.ZipFile(BytesIO(raw))
    except Exception as err:  # noqa: BLE001 - BadZipFile, and struct, Unicode, value errors of damaged archives
        raise RefusedInput(f"cannot read this DOCX file: a broken ZIP archive ({_says(err)})") from None
    with archive:
        _check_members(archive)
        texts = _body_texts(archive)
    lines = "\n".join(texts).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return Extract(format="docx", lines=lines, encoding="utf-8", line_endings="none")


def _check_members(archive: zipfile.ZipFile) -> None:
    """Inflate every member, in chunks, and refuse the file past the inflate limit (one member
    or all together). All members, not only the one read: a check that depends on which
    parts a reader happens to open breaks the day the reader opens one more."""
    infos = archive.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise RefusedInput(f"cannot read this DOCX file: more than {_MAX_MEMBERS:,} members in the ZIP archive")
    budget = Budget(max_inflated(), "the members of this DOCX")
    for info in infos:
        name = _printable(info.filename)
        if info.compress_type not in _METHODS:
            raise RefusedInput(f"cannot read this DOCX file: {name} is compressed with method {info.compress_type}, not deflate")
        try:
            with archive.open(info) as member:
                got = 0
                while chunk := member.read(CHUNK):
                    got += len(chunk)
                    budget.take(len(chunk), name, got)
        except RefusedInput:
            raise
        except Exception as err:  # noqa: BLE001 - a bad CRC, a truncated member, an encrypted one
            raise RefusedInput(f"cannot read this DOCX file: {name}: {_says(err)}") from None


def _body_texts(archive: zipfile.ZipFile) -> list[str]:
    """The text of each paragraph of the body, and of each paragraph directly in a cell of a
    table of the body, in document order (python-docx's `iter_inner_content`)."""
    from lxml import etree

    if _MAIN not in archive.NameToInfo:
        raise RefusedInput(f"cannot read this DOCX file: no {_MAIN} in the ZIP archive")
    limit = max_xml_elements()
    # The text is held to the input limit, as the same text in a text file would be: 256 MiB
    # of "aaa" inflate from 250 KB, and the stages after the reader hold text several times over.
    text_limit, text_size = max_input(), 0
    texts: list[str] = []
    pending: dict = {}  # an open w:p -> the pieces of its text so far
    body = False
    events = None
    try:
        with archive.open(_MAIN) as member:
            # No entity expansion (a billion laughs), no DTD, nothing from the network; comments
            # and processing instructions are not kept (they would pile up in the tree).
            events = etree.iterparse(
                member, events=("end",), resolve_entities=False, load_dtd=False, no_network=True,
                huge_tree=False, remove_comments=True, remove_pis=True,
            )
            for count, (_, element) in enumerate(events, 1):
                if count > limit:
                    raise RefusedInput(
                        f"cannot read this DOCX file: {_MAIN} has more than {limit:,} XML elements, the limit "
                        "(a decompression bomb?): raise it with CRPARSE_MAX_XML_ELEMENTS if the file is genuine"
                    )
                parent = element.getparent()
                if parent is None:  # the root, last
                    break
                tag = element.tag
                if tag == _P:
                    pieces = pending.pop(element, None)
                    if _in_body(parent) or (parent.tag == _TC and _in_body_table(parent)):
                        texts.append("".join(pieces) if pieces else "")
                elif tag == _T or tag == _BR or tag in _RUN_CHARS:
                    if parent.tag == _R:
                        holder = parent.getparent()
                        if holder is not None and holder.tag == _HYPERLINK:
                            holder = holder.getparent()
                        if holder is not None and holder.tag == _P:
                            piece = _run_char(element, tag)
                            pending.setdefault(holder, []).append(piece)
                            text_size += len(piece)
                            if text_size > text_limit:
                                raise RefusedInput(
                                    f"cannot read this DOCX file: its text passes the {size(text_limit)} input limit: "
                                    "raise it with CRPARSE_MAX_INPUT if the file is genuine"
                                )
                elif tag == _BODY and _in_body(element):
                    body = True
                # Read: dropped, with everything in it, so that the tree never grows.
                parent.remove(element)
    except RefusedInput:
        raise
    except etree.XMLSyntaxError:
        # iterparse's own message can be "no element found (line 0)": its log has the first error.
        first = next(iter(events.error_log), None) if events is not None else None
        where = (f"{_printable(first.message)} (line {first.line}, column {first.column})" if first
                 else "no element in it (empty, or cut off before its first element)")
        raise RefusedInput(f"cannot read this DOCX file: {_MAIN} is not well-formed XML: {where}") from None
    except Exception as err:  # noqa: BLE001 - a damaged member, found while inflating it
        raise RefusedInput(f"cannot read this DOCX file: {_MAIN}: {_says(err)}") from None
    if not body:
        raise RefusedInput(f"cannot read this DOCX file: {_MAIN} has no document body (w:document/w:body)")
    return texts


def _in_body(element) -> bool:
    """Whether `element` is the body: w:body directly under the root w:document."""
    if element is None or element.tag != _BODY:
        return False
    root = element.getparent()
    return root is not None and root.tag == _DOCUMENT and root.getparent() is None


def _in_body_table(cell) -> bool:
    row = cell.getparent()
    table = row.getparent() if row is not None and row.tag == _TR else None
    return table is not None and table.tag == _TBL and _in_body(table.getparent())


def _run_char(element, tag: str) -> str:
    if tag == _T:
        return element.text or ""
    if tag == _BR:  # a page or column break is no character
        return "\n" if element.get(_BR_TYPE, "textWrapping") == "textWrapping" else ""
    return _RUN_CHARS[tag]


def _says(err: BaseException) -> str:
    """An exception as one line of a message: its type when it says nothing more."""
    text = " ".join(str(err).split())
    return _printable(text[:200]) if text else type(err).__name__


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)
