"""The PDF reader (pypdfium2, the PDFium engine): printed lines rejoined into paragraphs.

A PDF has lines, not paragraphs. PDFium gives each page's text line by line; the geometry of
each line (its left edge, baseline and right edge) decides where a paragraph ends, the way a
reader's eye does:

- a line that stops well short of the right margin ends its paragraph;
- a vertical gap larger than the line pitch (paragraph spacing) starts a new one;
- "Example:" always starts one (older releases set examples without paragraph spacing);
- a line that opens with a rule or subrule number, however it is printed ("702.124i.",
  "702.124i", "702.124.", a tab after it), starts one at any indentation, across a page break
  and without paragraph spacing, unless it finishes the sentence of the line above: that is a
  cross-reference wrapped onto the next line ("See rule" / "305.6.", "rules" / "702.124i and
  702.124j."), joined with an info diagnostic (folded-rule-number) so that no number vanishes
  into text unsaid;
- across a page break, where there is no gap to measure, and after a line set further right
  (rules and subrules use a hanging indent), a section heading ("702. Keyword Abilities")
  starts one.

Lines that repeat at the same height on most pages (running headers and footers) and bare page
numbers at the top or bottom of a page are page furniture: kept as residue, not text.

Source lines are the lines of the extracted text, pages in order (`crparse text` prints them).

PDFium inflates a stream without a limit, so a 2 MB PDF can hold a stream that inflates to
gigabytes (a flate bomb). Before PDFium opens the file, every stream in it is decoded here, in
bounded chunks, and the file refused when what the streams give passes the inflate limit of
crparse/readers/limits.py (see `_check_streams`).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from crparse import shapes as C
from crparse.errors import RefusedInput
from crparse.nodes import Diagnostic, Residue
from crparse.readers.base import Extract, said
from crparse.limits import max_input
from crparse.readers.limits import (
    CHUNK, PDF_CHAR_COST, PDF_OBJECT_COST, PDF_PAGE_COST, Budget, inflate, max_inflated, max_pdf_content,
    max_pdf_stream, size,
)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?", re.IGNORECASE)
# A rule or subrule number at the start of a printed line, in every form a release may print
# it: "702.124i" and "702.124i." (a subrule misprinted with a rule's dot, next to ones without),
# "702.124.", "100.1a", a tab after it, or alone on the line ("See rule" / "305.6.").
_RULE_NUMBER_START = re.compile(rf"(?P<number>{C.NUMBER})\.?(?![\da-z])")
_OPENS_SECTION = re.compile(r"\d{1,3}\.\s+[A-Z]")
# "]" for the template rules that end in "[Instructions (if any).]”" (603.1).
_ENDS_SENTENCE = re.compile(r"[.!?:][\"\u201d\u2019')\]]*\s*$")
# Characters PDFium emits for a hyphen that the typesetter added at a line break.
_SOFT_HYPHENS = "\u00ad\u0002"
# PDFium reports a hyphen that ends a printed line as the noncharacter U+FFFE. In the CR these
# are real hyphens ("turn-based" broken after "turn-"), printed as hyphen-minus in the text.
_NONBREAKING_HYPHEN = str.maketrans({"\ufffe": "-"})


@dataclass(slots=True)
class _Line:
    number: int  # source line number
    last: int  # the last source line, when pieces of one printed line came out separately
    page: int
    text: str
    left: float
    bottom: float
    right: float


def read(raw: bytes, path: str | None = None) -> Extract:
    streams: dict[int, list[_StreamAt]] = {}
    objects = _Objects(raw)
    damaged = _check_streams(raw, streams, objects)
    source, lines = _lines(raw, *_check_content(raw, streams, objects))
    if not lines and damaged:
        raise RefusedInput(
            f"cannot read this PDF file: no text came out, and {len(damaged)} of its Flate streams are damaged "
            f"({damaged[0]})"
        )
    if not lines:
        raise RefusedInput("this PDF has no text layer (a scan?): run OCR on it, or use the text or DOCX release")
    furniture = _furniture(lines)
    body = [ln for ln in lines if ln.number not in furniture]
    diagnostics = []
    if not body:
        # Every line repeats at the same height on most pages (the same page printed again and
        # again): page furniture is what a page has besides its text, it cannot be all of it.
        diagnostics.append(
            Diagnostic(lines[0].number, "warning", "page-furniture",
                       "every line repeats at the same height on most pages, as running headers and footers do: "
                       "none set aside as page furniture")
        )
        furniture, body = {}, lines
    paragraphs, folded = _paragraphs(body)
    residue = [Residue(n, source[n - 1], reason) for n, reason in sorted(furniture.items())]
    if residue:
        diagnostics.append(
            Diagnostic(residue[0].line, "info", "page-furniture",
                       f"{len(residue)} running header, footer or page-number line(s) kept as residue")
        )
    if damaged:
        diagnostics.append(
            Diagnostic(None, "warning", "pdf-damaged-stream",
                       f"{len(damaged)} damaged Flate stream(s), text may be missing: {damaged[0]}")
        )
    diagnostics += folded
    return Extract(
        format="pdf",
        lines=[text for text, _ in paragraphs],
        origin=[span for _, span in paragraphs],
        source_text=source,
        encoding="utf-8",
        line_endings="none",
        residue=residue,
        diagnostics=diagnostics,
    )


def _lines(raw: bytes, cost: int = 0, checked_pages: int | None = None) -> tuple[list[str], list[_Line]]:
    """The source lines and printed lines of every page. `cost`, `checked_pages`: what the
    content check found the pages cost and how many it found (see _check_content)."""
    try:
        import pypdfium2 as pdfium
        import pypdfium2.raw as pdfium_c

        document = pdfium.PdfDocument(raw)
    except Exception as err:  # PdfiumError, and ValueError for non-PDF data
        raise RefusedInput(f"cannot read this PDF file: {said(err)}") from None
    source: list[str] = []
    lines: list[_Line] = []
    page_index = 0
    limit, text_limit, chars = max_pdf_content(), max_input(), 0
    try:
        if checked_pages is not None and len(document) > checked_pages:
            # PDFium finds pages the check did not (its /Count says more than the tree holds,
            # or the tree is where the check cannot see it): their content was not counted.
            raise RefusedInput(
                f"cannot read this PDF file: PDFium counts {len(document):,} page(s) in it, where its page tree holds "
                f"{checked_pages:,}: the content of the others cannot be checked before it is read"
            )
        for page_index in range(len(document)):
            page = document[page_index]
            textpage = page.get_textpage()
            count = textpage.count_chars()
            # The page objects and characters PDFium made of the page, now known, count in
            # the content limit; the text is held to the input limit too, as a DOCX's is (and
            # as the same text in a text file would be).
            chars += count
            cost += PDF_OBJECT_COST * max(pdfium_c.FPDFPage_CountObjects(page.raw), 0) + PDF_CHAR_COST * count
            if cost > limit:
                raise _content_refusal(limit, page_index + 1)
            if chars > text_limit:
                raise RefusedInput(
                    f"cannot read this PDF file: its text passes the {size(text_limit)} input limit at page "
                    f"{page_index + 1} ({chars:,} characters): raise it with CRPARSE_MAX_INPUT if the file is genuine"
                )
            text = _page_text(textpage, count).translate(_NONBREAKING_HYPHEN)  # 1:1, indices kept
            page_lines: list[_Line] = []
            at = 0
            for match in [*_LINE_BREAK.finditer(text), None]:
                end = match.start() if match else len(text)
                line = text[at:end]
                source.append(line)
                stripped = line.strip()
                if stripped:
                    first = at + (len(line) - len(line.lstrip()))
                    last = at + len(line.rstrip()) - 1
                    number = len(source)
                    if last < count:
                        page_lines += _printed_lines(textpage, text, first, last, number, page_index)
                    else:  # text and character boxes disagree (surrogate pairs): no geometry
                        page_lines.append(_Line(number, number, page_index, line, 0.0, 0.0, 0.0))
                at = match.end() if match else end
            lines += _reading_order(page_lines)
            textpage.close()
            page.close()
    except RefusedInput:
        raise
    except Exception as err:
        raise RefusedInput(f"cannot read this PDF file: page {page_index + 1}: {said(err)}") from None
    finally:
        document.close()
    return source, lines


def _page_text(textpage, count: int) -> str:
    """The page's text, as pypdfium2's `get_text_range()` gives it, but for the characters
    PDFium gives no text for (code 0, say) at either end: pypdfium2 skips those by recursion, one
    call a character, and 1,000 of them ended the read with a RecursionError. Each is a space
    here, so that the text's indices stay the characters' (pypdfium2 shifted them)."""
    import codecs
    import ctypes

    import pypdfium2.raw as pdfium_c

    first, last = 0, count - 1
    while first <= last and pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, first) == -1:
        first += 1
    while last >= first and pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, last) == -1:
        last -= 1
    if first > last:
        return " " * count
    size = pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, last) + 2 - pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, first)
    buffer = (ctypes.c_ushort * size)()
    written = pdfium_c.FPDFText_GetText(textpage, first, last - first + 1, buffer)
    text = codecs.decode(memoryview(buffer)[: written - 1], "utf-16-le", errors="ignore")
    return " " * first + text + " " * (count - 1 - last)


def _printed_lines(textpage, text: str, first: int, last: int, number: int, page: int) -> list[_Line]:
    """The printed lines in text[first:last + 1]: usually one, but PDFium does not break the
    text after a line that ends in a hyphen ("enters-the-" / "battlefield"), so a baseline
    that moves down inside the text starts another printed line."""
    left, bottom, _, top = textpage.get_charbox(first, loose=True)
    _, end_bottom, right, _ = textpage.get_charbox(last, loose=True)
    step = (top - bottom) / 2
    if abs(end_bottom - bottom) <= step:
        return [_Line(number, number, page, text[first : last + 1], left, bottom, right)]
    out: list[_Line] = []
    start, start_box = first, (left, bottom)
    previous_right = right
    for i in range(first + 1, last + 1):
        if text[i].isspace():
            continue
        box_left, box_bottom, box_right, _ = textpage.get_charbox(i, loose=True)
        if start_box[1] - box_bottom > step:
            out.append(_Line(number, number, page, text[start:i], start_box[0], start_box[1], previous_right))
            start, start_box = i, (box_left, box_bottom)
        previous_right = box_right
    out.append(_Line(number, number, page, text[start : last + 1], start_box[0], start_box[1], previous_right))
    return out


def _reading_order(lines: list[_Line]) -> list[_Line]:
    """A page's lines top to bottom. PDFium returns text in content-stream order, which is
    usually but not always the visual order (a line of an example can come out at the end of
    its page); pieces printed on one baseline are put back together, left to right."""
    ordered = sorted(lines, key=lambda ln: (-ln.bottom, ln.left))
    out: list[_Line] = []
    for ln in ordered:
        if out and abs(out[-1].bottom - ln.bottom) < 2 and ln.left >= out[-1].right - 1:
            joined = out[-1]
            joined.text = joined.text.rstrip() + " " + ln.text.lstrip()
            joined.right = ln.right
            joined.number, joined.last = min(joined.number, ln.number), max(joined.last, ln.number)
        else:
            out.append(ln)
    return out


def _furniture(lines: list[_Line]) -> dict[int, str]:
    """Source line -> reason, for running headers/footers and page numbers."""
    pages = len({ln.page for ln in lines})
    if pages < 3:
        return {}
    by_page: dict[int, list[_Line]] = {}
    for ln in lines:
        by_page.setdefault(ln.page, []).append(ln)
    # A running line: the same text (digits aside) at the same height on half the pages or more.
    key = lambda ln: (round(ln.bottom), re.sub(r"\d+", "#", ln.text.strip()))  # noqa: E731
    repeats = Counter(key(ln) for ln in lines)
    found: dict[int, str] = {}
    for ln in lines:
        if repeats[key(ln)] >= max(3, pages // 2):
            found[ln.number] = "page-header" if _at_top(ln, by_page[ln.page]) else "page-footer"
    for page_lines in by_page.values():
        for ln in (page_lines[0], page_lines[-1]):
            if _PAGE_NUMBER.fullmatch(ln.text.strip()) and ln.number not in found:
                found[ln.number] = "page-number"
    for ln in lines:  # a merged printed line is furniture as a whole
        if ln.number in found:
            found.update({n: found[ln.number] for n in range(ln.number + 1, ln.last + 1)})
    return found


def _at_top(line: _Line, page_lines: list[_Line]) -> bool:
    return line.bottom >= statistics.median(ln.bottom for ln in page_lines)


def _paragraphs(lines: list[_Line]) -> tuple[list[tuple[str, tuple[int, int]]], list[Diagnostic]]:
    """Paragraphs as (text, source span), with an empty paragraph where the page shows
    paragraph spacing: the text releases' blank lines, which separate glossary entries; and a
    diagnostic for each line start shaped like a rule number that was joined as text."""
    pitch = _pitch(lines)
    lefts = sorted(ln.left for ln in lines)
    rights = sorted(ln.right for ln in lines)
    margin = rights[int(len(rights) * 0.95)]
    column = margin - lefts[int(len(lefts) * 0.05)]
    full = margin - 0.22 * column  # a wrapped line reaches at least this far right
    out: list[tuple[str, tuple[int, int]]] = []
    diagnostics: list[Diagnostic] = []
    text = ""
    previous = None
    span = (0, 0)
    for ln in lines:
        if previous is not None and _continues(previous, ln, pitch, full):
            number = _RULE_NUMBER_START.match(ln.text.lstrip())
            if number:
                diagnostics.append(
                    Diagnostic(ln.number, "info", "folded-rule-number",
                               f"{ln.text.strip()[:40]!r}: {number['number']} read as a cross-reference wrapped from "
                               f"the line above ({previous.text.strip()[-30:]!r}), not as the start of a rule")
                )
            text = _join(text, ln.text.strip())
            span = (min(span[0], ln.number), max(span[1], ln.last))
        else:
            if previous is not None:
                out.append((text, span))
                if _spaced(previous, ln, pitch, text):
                    out.append(("", (previous.number, previous.number)))
            text, span = ln.text.strip(), (ln.number, ln.last)
        previous = ln
    if previous is not None:
        out.append((text, span))
    return out, diagnostics


def _pitch(lines: list[_Line]) -> float:
    gaps = [
        round(a.bottom - b.bottom, 1)
        for a, b in zip(lines, lines[1:])
        if a.page == b.page and a.bottom > b.bottom
    ]
    return Counter(gaps).most_common(1)[0][0] if gaps else 12.0


def _continues(above: _Line, line: _Line, pitch: float, full: float) -> bool:
    text = line.text.lstrip()
    if above.right < full or C.EXAMPLE.match(text):
        return False
    if line.page != above.page and _ENDS_SENTENCE.search(above.text) and line.right < full and C.is_term_like(text):
        return False  # a glossary term at the top of a page
    next_line = line.page != above.page or 0 < above.bottom - line.bottom <= 1.4 * pitch
    if _RULE_NUMBER_START.match(text):
        # Neither indentation nor spacing tells a rule from a wrapped reference: a release may
        # set subrules one under the other at one indentation without spacing. The sentence
        # does: a rule's text ends one, a reference finishes one ("See rule" / "305.6."). No
        # reference follows paragraph spacing ("[Instructions (if any).]" ends a rule's text).
        return next_line and not _ENDS_SENTENCE.search(above.text)
    if line.page != above.page or line.left < above.left - 3:
        return _OPENS_SECTION.match(text) is None
    return next_line


def _spaced(above: _Line, line: _Line, pitch: float, paragraph: str) -> bool:
    if line.page != above.page:
        # No gap to measure: only a glossary term alone at the foot of a page belongs with
        # what follows.
        return not (paragraph == above.text.strip() and C.is_term_like(paragraph))
    return above.bottom - line.bottom > 1.4 * pitch


def _join(text: str, more: str) -> str:
    if text.endswith(tuple(_SOFT_HYPHENS)):
        return text[:-1] + more
    if text.endswith(("-", "\u2013", "\u2014")) and text[-2:-1].isalnum():
        return text + more  # "state-" + "based", "903.6-" + "903.11": the CR's hyphens are real
    return text + " " + more


# -- decompression bombs ----------------------------------------------------------------------
#
# PDFium finds a stream through the cross-reference table, reads its dictionary, then the
# keyword "stream" and an end of line, and decodes what follows with the dictionary's /Filter
# chain. This scan does not need the table: it takes every "stream" keyword in the file (a
# superset of the streams PDFium may decode: it decodes those it needs), reads the /Filter
# entries written between it and the previous stream, and decodes the bytes after the keyword's
# line the same way, to the end of the encoded data (a zlib stream's own end, "~>", ">"), never
# trusting /Length: what PDFium decodes, the first /Length bytes, gives no more than that.
# Every stage's output counts, all of it, whether the next stage reads it or not (PDFium decodes
# a stage whole before the next one starts); the first stage the scan does not decode (an
# image's DCTDecode) ends the chain, PDFium does not decode images to extract text.

_DELIMITERS = b" \t\n\r\f\x00()<>[]{}/%"  # a PDF keyword or name ends at one of these
_D = re.escape(_DELIMITERS)
_EOL = re.compile(rb"\r\n|\r|\n")
# PDF white space: NUL too, which Python's \s lacks (a /Filter after a NUL hid a bomb: sweep 10)
_WS = rb"[\x00\t\n\x0b\f\r ]"
_SEPARATOR = rb"(?:" + _WS + rb"|%[^\r\n]*)++"  # white space, comments too: PDFium reads "4 0 %c\nobj" as "4 0 obj"
_OBJ = re.compile(rb"(?<![0-9])(\d{1,10})" + _SEPARATOR + rb"\d{1,5}" + _SEPARATOR + rb"obj(?![^" + _D + rb"])")
# The same, in the bytes reversed: a comment ends a line ("%" is its last byte read backwards).
_SEPARATOR_REVERSED = rb"(?:" + _WS + rb"|(?<=[\r\n])[^\r\n]*%)++"
_OBJ_REVERSED = re.compile(rb"jbo" + _SEPARATOR_REVERSED + rb"\d{1,5}" + _SEPARATOR_REVERSED + rb"(\d{1,10})(?![0-9])")
_INPUT_CHUNK = 1 << 16
# The filters PDFium decodes that give more bytes than they read, or that a flate bomb can
# hide behind, by their names and abbreviations.
_FILTERS = {
    b"FlateDecode": "flate", b"Fl": "flate", b"LZWDecode": "lzw", b"LZW": "lzw",
    b"RunLengthDecode": "runlength", b"RL": "runlength",
    b"ASCIIHexDecode": "hex", b"AHx": "hex", b"ASCII85Decode": "a85", b"A85": "a85",
}


def _name_pattern(word: bytes) -> bytes:
    """A regex for the PDF name /word, however it is spelled: a name may write any character
    as #xx ("/Fl#61teDecode"), and PDFium reads it so."""
    def char(c: int) -> bytes:
        low = b"%x" % (c & 15)
        return b"(?:%s|#%x[%s%s])" % (re.escape(bytes([c])), c >> 4, low, low.upper())
    return b"/" + b"".join(char(c) for c in word) + rb"(?![^" + _D + rb"])"


# Comments count as white space, between a key and its value and inside an array.
# Possessive (*+): a comment can be split into comments in many ways ("%%%%"), which made the
# patterns below try them all when what follows did not match (a line of 2,000 "%" took hours).
_SPACE = rb"(?:" + _WS + rb"|%[^\r\n]*)*+"
_COMMENT = re.compile(rb"%[^\r\n]*")
# The name alone, whatever follows: a trailer's entry may hold PDF white space Python's \s lacks
# (NUL) or a signed number ("/Encrypt +6 0 R"), which PDFium reads (a sweep got a bomb through so).
_ENCRYPT = re.compile(_name_pattern(b"Encrypt"))
_FILTER = re.compile(
    _name_pattern(b"Filter") + _SPACE + rb"(\[(?:%[^\r\n]*|[^\]%])*\]?|/[^" + _D + rb"]*|[+]?\d+" + _SEPARATOR + rb"\d+"
    + _SEPARATOR + rb"R)"
)
# a name, or an object it refers to ("+7 0 R" too: PDFium reads a signed number)
_FILTER_TOKEN = re.compile(rb"/([^" + _D + rb"]*)|[+]?(\d+)" + _SEPARATOR + rb"\d+" + _SEPARATOR + rb"R")
_EARLY_CHANGE_0 = re.compile(_name_pattern(b"EarlyChange") + _SPACE + rb"0(?![0-9])")
_MAX_UNCLOSED = 1000  # stream objects without "endobj" (see _unclosed): 1,000 cost PDFium ~0.1 s
_MAX_STREAMS = 50_000  # "stream" keywords taken (the 2026 release has 323 streams)
_MAX_STAGES = 32  # filters in one chain (real PDFs use one or two)
_MAX_CHAINS = 16  # different filter chains a PDF may name: each stream is decoded with each (more: refused)
_DO = re.compile(rb"Do(?![^" + _D + rb"])")  # the operator that draws a form, or what ends like it
_BI = re.compile(rb"BI(?![^" + _D + rb"])")  # the operator that begins an inline image, or what ends like it
# The same in a stream's data, which ends at its "endstream" ("/Fm1 Doendstream" draws)
_DO_IN_DATA = re.compile(rb"Do(?:(?![^" + _D + rb"])|(?=endstream))")
_BI_IN_DATA = re.compile(rb"BI(?:(?![^" + _D + rb"])|(?=endstream))")


@dataclass(slots=True)
class _StreamAt:
    """Where a stream's data starts, the filter chains it was decoded with (see _decoded), the
    most bytes one gave (or the data as it is, up to "endstream": a /Filter in the text before
    may be another object's), and whether "Do" (drawing a form) occurs in any."""
    start: int
    chains: list[list[str] | None]
    earlies: tuple[int, ...]
    part: str
    size: int = 0
    draws: bool = False
    inline: bool = False  # whether "BI" (an inline image) occurs in any
    own: list[list[str] | None] | None = None  # the chains of its own dictionary, when found
    packed: list[bytes] | None = None  # an object stream's data, as each chain decoded it
    first: int = 0  # an object stream's /First


def _sized(chunks: Iterable, place: _StreamAt, keep: list[bytes] | None = None) -> None:
    """Count the chunks of one decoding of a stream into `place`; `keep` gets the data."""
    total, last, kept = 0, b"", []
    for chunk in chunks:
        total += len(chunk)
        if not place.draws and (_DO.search(chunk) or (last == b"D" and chunk[:1] == b"o")):
            place.draws = True
        if not place.inline and (_BI.search(chunk) or (last == b"B" and chunk[:1] == b"I")):
            place.inline = True
        last = chunk[-1:]
        if keep is not None:
            kept.append(bytes(chunk))
    place.size = max(place.size, total)
    if keep is not None:
        keep.append(b"".join(kept))


def _check_streams(
    raw: bytes, found: dict[int, list[_StreamAt]] | None = None, objects: _Objects | None = None
) -> list[str]:
    """Decode every stream of the PDF in bounded chunks, and refuse the file if they give more
    than the inflate limit, alone or together; the streams whose /Filter says Flate and whose
    data is not, or ends too soon (a damaged file: PDFium shows what it can, silently).
    Linear in the file's size: each byte is read once as dictionary text, and decoded at most
    once per filter chain, each decoded byte counted in the limit. `found` gets where each
    stream of a numbered object is, for the content check."""
    encrypt = _ENCRYPT.search(raw)
    if encrypt:
        # Encrypted streams can be decoded only after decrypting them, which PDFium does (with
        # the empty user password) and this scan does not: they cannot be checked. Any /Encrypt
        # entry counts, in a comment or a stream's data too: telling those apart takes a parse
        # PDFium does not share (a "%" in a string, a key ending in "stream" passed for them, and an
        # encrypted 150 MB bomb was read), so the message says where the entry is.
        raise RefusedInput(
            "an encrypted PDF (an /Encrypt entry): its streams cannot be checked for decompression bombs before "
            "they are decrypted; decrypt it first (qpdf --decrypt in.pdf out.pdf)",
            line=raw.count(b"\n", 0, encrypt.start()) + 1,
        )
    budget = Budget(max_inflated(), "the streams of this PDF", max_pdf_stream(), "CRPARSE_MAX_PDF_STREAM")
    damaged: list[str] = []
    objects = objects or _Objects(raw)
    ends = [m.start() for m in re.finditer(b"endstream", raw)]
    # Where "Do" and "BI" occur, found once: a search from each keyword's data to its
    # "endstream", or to the end of the file where none follows, was quadratic in keywords
    # without one (100,000 ">> stream" lines: killed at 30 s)
    draws = [m.start() for m in _DO_IN_DATA.finditer(raw)]
    endobjs = [m.start() for m in re.finditer(b"endobj", raw)]
    unclosed: set[tuple[int, int]] = set()  # stream objects with no "endobj" after their data (see _unclosed)
    inlines = [m.start() for m in _BI_IN_DATA.finditer(raw)]
    previous = 0  # where the previous stream's data starts: the dictionary text lies after it
    # Where the previous keyword's data ends, and what its dictionary named: a keyword inside
    # that data follows a word "stream" that may be a name, a string or a comment of its
    # dictionary ("/X /stream", "(stream)"), and then that dictionary is its own too.
    region_end, region_chains, region_own, region_earlies = -1, [[]], [[]], (1,)
    seen: list[list[str] | None] = []  # every filter chain the file names, in order
    keywords = 0
    at = raw.find(b"stream")
    while at >= 0:
        end = resume = at + 6
        # A keyword before `previous` would find the same end of line, the same data.
        if (at == 0 or raw[at - 1] in _DELIMITERS) and (end == len(raw) or raw[end] in _DELIMITERS) and end >= previous:
            eol = _EOL.search(raw, end)  # PDFium starts the data after the keyword's line
            if eol is None:
                break
            keywords += 1
            if keywords > _MAX_STREAMS:
                # each is decoded in every way the file names (~30 us): 4 MB of ">> stream" lines took 12 s
                raise RefusedInput(f"over {_MAX_STREAMS:,} stream keywords: more streams than a rules document has",
                                   line=raw.count(b"\n", 0, at) + 1)
            start = eol.end()
            # The dictionary is in the text since the previous stream's data; all of it is
            # read, for a /Filter entry anywhere in it (a wrong one costs only a decoding).
            span = raw[previous:at]
            obj = raw.rfind(b"obj", previous, at)  # "12 0 obj << ... >>": for messages
            number = _OBJ.search(raw, max(previous, obj - 32), obj + 3) if obj >= 0 else None
            part = f"the stream of object {int(number[1])}" if number else f"the stream at byte {start}"
            # LZW's /EarlyChange 0 in the text may be another dictionary's: both ways, then.
            earlies = (1, 0) if _EARLY_CHANGE_0.search(span) else (1,)
            chains = _filter_chains(span, objects)
            inside = at < region_end
            if inside:
                chains, earlies = _union(chains, region_chains), tuple(sorted({*earlies, *region_earlies}, reverse=True))
            seen = _union(seen, chains)
            if len(seen) > _MAX_CHAINS:
                raise RefusedInput(
                    f"this PDF names over {_MAX_CHAINS} different filter chains: its streams cannot all be checked for "
                    "decompression bombs",
                    line=raw.count(b"\n", 0, at) + 1,
                )
            place = _StreamAt(start, chains, earlies, part)
            header = objects.header_before(at) if found is not None else None
            # For the content check: the stream's own dictionary; an object stream's data.
            # no further back than the previous stream's data: each byte is read once (a run
            # of "stream endstream" under one header read the text since the header again
            # for each, quadratic: 40,000 took 17 s)
            dictionary = raw[max(header[1], previous) : at] if header is not None else b""
            first = _FIRST.search(dictionary) if _OBJECT_STREAM.search(dictionary) else None
            if first:
                place.packed, place.first = [], int(first[1])
            for chain in chains:
                for early in earlies if chain and "lzw" in chain else (1,):
                    _sized(_decoded(raw, start, chain, early, budget, part, damaged), place, place.packed)
            # Every other chain the file names, counted only: a word "stream" in a string or a
            # comment that ends with "endstream" ("(stream endstream)") hides the dictionary
            # before it from the keyword after, and no scan without PDFium's parse tells which
            # keyword is real (a damaged Flate stream is said only of its own chains).
            for chain in seen:
                # (Flate without a zlib header gives PDFium nothing: not decoded to find that out)
                if chain not in chains and not (chain and chain[0] == "flate" and not _zlib_header(raw[start : start + 2])):
                    for early in earlies if chain and "lzw" in chain else (1,):
                        _sized(_decoded(raw, start, chain, early, budget, part, []), place, place.packed)
            stop = bisect.bisect_left(ends, start)
            end = ends[stop] if stop < len(ends) else len(raw)
            region_end, region_chains, region_earlies = end, chains, earlies
            if header is not None and header not in unclosed and _unclosed(objects, endobjs, end):
                unclosed.add(header)
                if len(unclosed) > _MAX_UNCLOSED:
                    raise RefusedInput(
                        f"over {_MAX_UNCLOSED} stream objects with no endobj: PDFium's repair of such a file takes "
                        "time that grows with the square of their number",
                        line=raw.count(b"\n", 0, at) + 1,
                    )
            if header is not None and found is not None:
                place.size = max(place.size, end - start)  # and the data as it is
                place.draws = place.draws or _within(draws, start, end)
                place.inline = place.inline or _within(inlines, start, end)
                # The next keyword is looked for past the data, not in it, unless one that ends
                # a dictionary lies in the data: a "stream" with no "endstream" of its own (in an
                # object PDFium never reads, or in a string) hid the next object's stream, a bomb
                # the scan never saw.
                resume = _dictionary_stream(raw, start, end, floor=previous)
                own = _filter_chains(dictionary, objects) if _FILTER.search(dictionary) else [[]]
                place.own = _union(own, region_own) if inside else own
                found.setdefault(header[0], []).append(place)
                region_own = place.own
            previous = start
        at = raw.find(b"stream", resume)
    return damaged


def _unclosed(objects: _Objects, endobjs: list[int], end: int) -> bool:
    """Whether no "endobj" follows a stream's data (ending at `end`) before the next object. PDFium
    looks for one to the end of the file for each such stream when it repairs the file (a
    cross-reference table that does not hold them), and for a /Length it cannot trust: 20,000
    of them took over 30 s in FPDF_LoadMemDocument, before any page is read."""
    i = bisect.bisect_left(endobjs, end)
    if i == len(endobjs):
        return True
    j = bisect.bisect_left(objects.starts, end)
    return j < len(objects.starts) and objects.starts[j] < endobjs[i]


def _within(starts: list[int], start: int, end: int) -> bool:
    """Whether one of `starts` (of a two-byte operator) lies wholly in start..end."""
    i = bisect.bisect_left(starts, start)
    return i < len(starts) and starts[i] + 2 <= end


def _union(chains: list, more: list) -> list:
    out = list(chains)
    for chain in more:
        if chain not in out:
            out.append(chain)
    return out


def _dictionary_stream(raw: bytes, start: int, end: int, floor: int) -> int:
    """Where the first "stream" keyword between `start` and `end` that follows a dictionary's
    ">>" is (white space and comments between, as PDFium reads them), else `end`: a keyword
    PDFium may read as a stream's, which the scan must not pass over. The ">>" may lie before
    `start`, back to `floor` ("<< ... >> %stream" then "stream" on the next line: the data of
    the comment's word starts at the real keyword). Each byte between is looked at a bounded
    number of times (the comment lines before a keyword are its own)."""
    at = raw.find(b"stream", start, end)
    while at >= 0:
        if (raw[at - 1] in _DELIMITERS) and (at + 6 == len(raw) or raw[at + 6] in _DELIMITERS) and _after_dictionary(raw, at, floor):
            return at
        at = raw.find(b"stream", at + 6, end)
    return end


def _after_dictionary(raw: bytes, at: int, floor: int) -> bool:
    """Whether only white space and comments may lie between a ">>" and `at` (not before
    `floor`). Where a comment starts is not known without reading strings ("(a%b)" holds no
    comment), so an earlier line counts if a ">>" on it has a "%" after it, and a line that
    starts with "%" is passed over: a keyword taken wrongly costs one more stream checked, one
    missed let a bomb through."""
    while True:
        j = at
        while j > floor and raw[j - 1] in b" \t\r\n\f\x00":
            j -= 1
        if j - 2 >= floor and raw[j - 2 : j] == b">>":
            return True
        if raw.find(b"\n", j, at) < 0 and raw.find(b"\r", j, at) < 0:
            return False
        # j ends an earlier line, which may end in a comment; each search stays in that line
        # (a search back to `floor` on every line was quadratic in comment lines)
        newline = raw.rfind(b"\n", floor, j)
        line = max(newline, raw.rfind(b"\r", max(newline, floor), j)) + 1
        close = raw.find(b">>", line, j)
        if close >= 0 and raw.find(b"%", close + 2, j) >= 0:
            return True
        start = line
        while start < j and raw[start] in b" \t\f\x00":
            start += 1
        if start == j or raw[start] != 0x25:  # "%": a line that is all comment
            return False
        at = start


class _Objects:
    """Where each object of the file is defined, indexed when first asked for. Every definition
    of a number counts: the cross-reference table, which this scan does not read, picks one
    (not always the last)."""

    def __init__(self, raw: bytes):
        self.raw = raw
        self.index: dict[int, list[int]] | None = None
        self.starts: list[int] = []  # where each "N G obj" starts, in order
        self.headers: list[tuple[int, int]] = []  # (number, where its "obj" ends), in the same order
        # Object streams (add_object_stream): (data, /First, the numbers of its header, where
        # each object is once asked for); number -> the object streams it is in.
        self.object_streams: list[tuple[bytes, int, list[bytes], dict | None]] = []
        self.packed_in: dict[int, list[int]] = {}

    def _indexed(self) -> dict[int, list[int]]:
        """_OBJ's matches, found in the bytes reversed: the pattern then starts with a literal
        ("jbo"), which the regular-expression engine finds ten times as fast."""
        if self.index is None:
            self.index = {}
            raw, n = self.raw, len(self.raw)
            found = []
            for match in _OBJ_REVERSED.finditer(raw[::-1]):
                end = n - match.start()  # just after "obj"
                if end == n or raw[end] in _DELIMITERS:
                    found.append((n - match.end(), end, int(match[1][::-1])))
            for start, end, number in reversed(found):
                self.index.setdefault(number, []).append(end)
                self.starts.append(start)
                self.headers.append((number, end))
        return self.index

    def header_before(self, at: int) -> tuple[int, int] | None:
        """(number, end) of the last "N G obj" that ends before `at`."""
        self._indexed()
        i = bisect.bisect_left(self.starts, at) - 1
        while i >= 0 and self.headers[i][1] > at:
            i -= 1
        return self.headers[i] if i >= 0 else None

    def defined(self, number: int) -> int:
        """How many times object `number` is defined in the file."""
        return len(self._indexed().get(number, ()))

    def bodies(self, number: int) -> list[bytes]:
        out = []
        for at in self._indexed().get(number, ())[:_MAX_CHAINS]:
            body = self.raw[at : at + 4096]
            end = body.find(b"endobj")
            out.append(body[:end] if end >= 0 else body)
        return out

    def definitions(self, number: int) -> list[bytes]:
        """Each definition of object `number`, whole: up to its "endobj", its "stream" keyword
        (a stream's dictionary) or the next object, then those in object streams."""
        out = []
        for at in self._indexed().get(number, ())[:_MAX_CHAINS]:
            following = bisect.bisect_right(self.starts, at)
            stop = self.starts[following] if following < len(self.starts) else len(self.raw)
            end = _BODY_END.search(self.raw, at, stop)
            out.append(self.raw[at : end.start() if end else stop])
        return out + self._packed_bodies(number)

    def add_object_stream(self, data: bytes, first: int) -> None:
        """The objects of an object stream (its data decoded): pairs of an object number and an
        offset from `first`, then the objects, each up to the next one. Only the numbers are
        indexed here; an object is cut out when asked for (_packed_bodies)."""
        numbers = _INTEGER.findall(data, 0, min(first, len(data)))
        self.object_streams.append((data, first, numbers, None))
        at = len(self.object_streams) - 1
        for number in numbers[0::2]:
            self.packed_in.setdefault(int(number), []).append(at)

    def _packed_bodies(self, number: int) -> list[bytes]:
        out = []
        for at in self.packed_in.get(number, ())[:_MAX_CHAINS]:
            data, first, numbers, places = self.object_streams[at]
            if places is None:
                pairs = sorted(zip(map(int, numbers[1::2]), map(int, numbers[0::2])))  # (offset, number)
                places = {}
                for i, (offset, n) in enumerate(pairs):
                    end = pairs[i + 1][0] if i + 1 < len(pairs) else len(data) - first
                    places.setdefault(n, []).append((first + offset, first + end))
                self.object_streams[at] = (data, first, numbers, places)
            out += [data[start:end] for start, end in places.get(number, ())]
        return out


def _filter_chains(span: bytes, objects: _Objects) -> list[list[str] | None]:
    """The filter chains the /Filter entries in a dictionary's text name, each a list of
    _FILTERS values ("other" for a filter not decoded here), or None where an entry refers to
    an object this scan cannot read (one inside an object stream). Every /Filter entry of the
    text counts, nested dictionaries' too: decoding one chain too many costs only time."""
    chains: list[list[str] | None] = []
    for match in _FILTER.finditer(span):
        chains = _union(chains, _chains(match[1], objects, depth=3))
        if len(chains) > _MAX_CHAINS:
            break  # one too many: the file is refused (see _check_streams), none is left out unsaid
    return chains or [[]]


def _chains(value: bytes, objects: _Objects, depth: int) -> list[list[str] | None]:
    """The chains a /Filter value can stand for: a name, an array of names, a reference to
    either, or an array of references (PDFium follows them all), with each definition of a
    referred object."""
    chains: list[list[str] | None] = [[]]
    for count, token in enumerate(_FILTER_TOKEN.finditer(_COMMENT.sub(b" ", value)), 1):
        if token[1] is not None:
            options: list[list[str] | None] = [[_FILTERS.get(_unescape(token[1]), "other")]]
        else:
            if depth and objects.defined(int(token[2])) > _MAX_CHAINS:
                # only the first 16 were read: decoys before the one the cross-reference table picks
                # hid a bomb's filter (sweep 10)
                raise RefusedInput(f"a PDF /Filter refers to object {int(token[2])}, defined over {_MAX_CHAINS} times: "
                                   "which definition PDFium reads cannot be checked")
            bodies = objects.bodies(int(token[2])) if depth else []
            options = [chain for body in bodies for chain in _chains(body, objects, depth - 1)] or [None]
        chains = [None if a is None or b is None else a + b for a in chains for b in options][: _MAX_CHAINS + 1]
        if count > _MAX_STAGES or any(chain is not None and len(chain) > _MAX_STAGES for chain in chains):
            # each stage a generator over the one before (deeper than the interpreter's stack:
            # 20,000 stages were a RecursionError), and the chains copied at each: quadratic
            raise RefusedInput(f"a PDF /Filter of more than {_MAX_STAGES} stages: not a filter chain a PDF writer makes")
    return chains


def _unescape(name: bytes) -> bytes:
    if b"#" not in name:
        return name
    return re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m[1], 16)]), name)


def _decoded(
    raw: bytes, start: int, chain: list[str] | None, early: int, budget: Budget, part: str, damaged: list[str]
) -> Iterator[bytes]:
    """The data at `start` decoded through `chain`, in chunks, every stage's output counted in
    `budget`, a damaged Flate stage noted in `damaged`. A chain that could not be read is taken
    as Flate stages as long as the data looks like a zlib stream (PDFium decodes nothing
    without its /Filter)."""
    view = memoryview(raw)
    chunks: Iterable = (view[i : i + _INPUT_CHUNK] for i in range(start, len(raw), _INPUT_CHUNK))
    if chain is None:
        return _guessed(chunks, budget, part, depth=4)
    if not chain or chain[0] == "other":
        return iter(())  # read as is (no more bytes than the file has), or not decoded
    if chain[0] != "flate":
        # A text filter (ASCIIHex, ASCII85) reads up to its end marker, which may be missing:
        # what it reads counts in the file's total too, so that no chain reads without counting.
        chunks = _counted(chunks, budget, part, decoded=False)
    stages: list[Iterator[bytes]] = []
    for stage in chain:
        if stage == "flate":
            chunks = inflate(chunks, budget, part, damaged)
        elif stage in ("lzw", "runlength", "hex", "a85"):
            decoder = {"lzw": lambda c: _lzw(c, early), "runlength": _runlength, "hex": _hex, "a85": _a85}[stage]
            chunks = _counted(decoder(chunks), budget, part)
        else:
            break
        stages.append(chunks)
    return _whole(stages)


def _whole(stages: list[Iterator[bytes]]) -> Iterator[bytes]:
    """The last stage's output, then the rest of every stage before it, counted as it is
    decoded and dropped. PDFium decodes each stage whole before the next one reads it: a Flate
    stage inflates to its end even when the next stops at its first byte (RunLength's 128,
    ASCIIHex's ">", a second Flate that fails at once), so what a stage gives counts whether or
    not the next one reads it (a 1 MB file made PDFium inflate 1 GB, uncounted)."""
    if not stages:
        return
    yield from stages[-1]
    for stage in reversed(stages[:-1]):  # the later first: it reads what it can of the earlier
        for _ in stage:
            pass


def _guessed(chunks: Iterable, budget: Budget, part: str, depth: int) -> Iterator[bytes]:
    chunks = iter(chunks)
    first = next(chunks, None)
    if first is None or depth == 0 or not _zlib_header(first):
        return
    out = inflate(_prepend(first, chunks), budget, part)
    yield from _guessed(out, budget, part, depth - 1)
    for _ in out:  # inflated whole by PDFium, whatever the next stage reads of it (see _whole)
        pass


def _prepend(first, rest: Iterator) -> Iterator:
    yield first
    yield from rest


def _zlib_header(data) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and data[0] >> 4 <= 7 and (data[0] << 8 | data[1]) % 31 == 0


def _counted(chunks: Iterable[bytes], budget: Budget, part: str, decoded: bool = True) -> Iterator[bytes]:
    """`chunks`, counted in `budget`: in the file's total only, when they are not decoded
    output (the file's own bytes, no more than the input limit)."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
        budget.take(len(chunk), part, total if decoded else 0)
        yield chunk


_NOT_HEX = bytes(c for c in range(256) if c not in b"0123456789abcdefABCDEF")
_NOT_A85 = bytes(c for c in range(256) if not (33 <= c <= 117 or c == ord("z")))


def _hex(chunks: Iterable) -> Iterator[bytes]:
    """ASCIIHexDecode, to its ">"; what is not a hex digit is left out."""
    odd = b""
    for chunk in chunks:
        chunk = bytes(chunk)
        end = chunk.find(b">")
        digits = odd + (chunk if end < 0 else chunk[:end]).translate(None, _NOT_HEX)
        odd = digits[len(digits) // 2 * 2 :]
        yield binascii.unhexlify(digits[: len(digits) // 2 * 2])
        if end >= 0:
            break
    if odd:
        yield binascii.unhexlify(odd + b"0")


def _a85(chunks: Iterable) -> Iterator[bytes]:
    """ASCII85Decode, to its "~>"; what is not a base-85 digit (or z) is left out."""
    carry = b""
    for chunk in chunks:
        chunk = bytes(chunk)
        end = chunk.find(b"~")
        digits = carry + (chunk if end < 0 else chunk[:end]).translate(None, _NOT_A85).replace(b"z", b"!!!!!")
        whole = len(digits) // 5 * 5
        digits, carry = digits[:whole], digits[whole:]
        try:
            yield base64.a85decode(digits)
        except ValueError:  # a group past 2**32: PDFium stops there too
            return
        if end >= 0:
            break
    if len(carry) > 1:
        try:
            yield base64.a85decode(carry)
        except ValueError:
            return


def _runlength(chunks: Iterable) -> Iterator[bytes]:
    """RunLengthDecode, to its end-of-data byte (128)."""
    data = b""
    for chunk in chunks:
        data += bytes(chunk)
        out: list[bytes] = []
        i, n = 0, len(data)
        while i < n:
            length = data[i]
            if length == 128:
                yield b"".join(out)
                return
            if length < 128:
                if i + length + 2 > n:
                    break
                out.append(data[i + 1 : i + length + 2])
                i += length + 2
            else:
                if i + 2 > n:
                    break
                out.append(data[i + 1 : i + 2] * (257 - length))
                i += 2
        data = data[i:]
        yield b"".join(out)


def _lzw(chunks: Iterable, early: int) -> Iterator[bytes]:
    """LZWDecode (9- to 12-bit codes, 256 clears the table, 257 ends the data), in chunks of
    about CHUNK bytes; stops at a code that is not in the table (damaged data)."""
    base = [bytes([i]) for i in range(256)] + [b"", b""]
    table = base[:]
    width, bits, count = 9, 0, 0
    previous = b""
    out: list[bytes] = []
    size = 0
    for chunk in chunks:
        for byte in bytes(chunk):
            bits = bits << 8 | byte
            count += 8
            while count >= width:
                count -= width
                code = bits >> count
                bits &= (1 << count) - 1
                if code == 256:
                    table, width, previous = base[:], 9, b""
                    continue
                if code == 257:
                    yield b"".join(out)
                    return
                if code < len(table):
                    entry = table[code]
                elif code == len(table) and previous:
                    entry = previous + previous[:1]
                else:
                    yield b"".join(out)
                    return
                if previous and len(table) < 4096:
                    table.append(previous + entry[:1])
                    if len(table) + early >= 1 << width and width < 12:
                        width += 1
                previous = entry
                out.append(entry)
                size += len(entry)
                if size >= CHUNK:
                    yield b"".join(out)
                    out, size = [], 0
    yield b"".join(out)


# -- content bombs ----------------------------------------------------------------------------
#
# Each stream under the limit for one, all under the inflate limit, is not enough: PDFium parses
# a page's content streams for each page that shows them (one dense stream shown by 1,000 pages
# is counted once above), and a form's content each time it is drawn ("/Fm1 Do" ten times in a
# form drawn ten times, eight levels deep: 10^8 draws in a 2 KB file, and PDFium aborts the
# process when its memory runs out); then it spends about a microsecond on each character of a
# page's text. So before PDFium opens the file, the page tree is walked from the raw bytes as
# PDFium walks it, and each page costed as PDFium will parse it: its content streams each time
# the page lists them, the forms they draw each time they draw them (a drawing counting as a
# page object), through the nesting PDFium follows. The file is refused as soon as the pages
# together pass the content limit (max_pdf_content), or one page the limit for one stream,
# where a page object and a character count more than their bytes (see limits.py). The page
# objects and characters of each page are known exactly once PDFium has parsed it: they are
# added to the count then, page by page (_lines), so that a document of dense pages is refused
# at the page that passes the limit, not after hours.
#
# Costing a page by its bytes is a scan of its streams' sizes, which the bomb check measured.
# Only a page whose bytes could pass the limit for one page, were each of them a character
# (PDF_CHAR_COST + 1 a byte, the most a byte can cost), has its operators and strings counted
# (`_tally`: a few passes of bytes methods and regular expressions, no loop over characters).
#
# The walk reads objects where PDFium would find them, in the file and in object streams.
# Where its reading could differ from PDFium's, it errs towards a larger cost: every definition
# of a number counts (the largest), every /Root of the file (the one with the most pages), a
# stream's largest decoding; operators and strings are counted on the stream's bytes, comments
# and strings included. If PDFium counts more pages than the walk found, the file is refused
# (_lines): their content was not checked.

_BODY_END = re.compile(rb"(?<![^" + _D + rb"])(?:stream|endobj)(?![^" + _D + rb"])")
_INTEGER = re.compile(rb"\d+")
_REF = re.compile(rb"[+]?(\d+)" + _SEPARATOR + rb"\d+" + _SEPARATOR + rb"R(?![^" + _D + rb"])")
_ROOT = re.compile(_name_pattern(b"Root") + _SPACE + rb"[+]?(\d+)" + _SEPARATOR + rb"\d+" + _SEPARATOR + rb"R")
_OBJECT_STREAM = re.compile(_name_pattern(b"Type") + _SPACE + _name_pattern(b"ObjStm"))
_FIRST = re.compile(_name_pattern(b"First") + _SPACE + rb"(\d+)")
_NAME = re.compile(rb"/[^" + _D + rb"]*")
_WORD = re.compile(rb"[^" + _D + rb"]+")
_SPACE_AT = re.compile(_SPACE)
# A reference, a name, a number or keyword, an array of numbers (what most values are).
_SIMPLE_VALUE = re.compile(
    rb"\d+" + _SEPARATOR + rb"\d+" + _SEPARATOR + rb"R(?![^" + _D + rb"])|/[^" + _D + rb"]*|[^" + _D + rb"]+"
    rb"|\[[\x00\s\d.+-]*\]"
)
_STRUCTURE = re.compile(rb"<<|>>|[\[\](<%]")  # what opens or closes a value, or hides a bracket
_STRING_PART = re.compile(rb"[()]|\\.", re.S)
_DRAW = re.compile(rb"/([^" + _D + rb"]*)" + _SPACE + rb"Do(?![^" + _D + rb"])")
# A literal string with no parenthesis inside but escaped ones (nested strings come out one
# level a round), and a hex string or what reads as one.
_LITERAL = re.compile(rb"\([^()\\]*+(?:\\.[^()\\]*+)*+\)", re.S)
_HEX_STRING = re.compile(rb"<[^<>]*>")
# Painting a path makes a page object: S s f F f* B B* b b*, as tokens. Delimiters become
# blanks and these letters \x01, and then " \x01 " and " \x01*" are counted (two painting
# operators in a row paint one path: the second has none, a miss costs nothing).
_PAINTING = bytes.maketrans(_DELIMITERS + b"SsfFBb", b" " * len(_DELIMITERS) + b"\x01" * 6)
# What else makes one: showing text, drawing an XObject, painting a shading, an inline image.
_MAKES_OBJECT = (b"Tj", b"TJ", b"'", b'"', b"Do", b"sh", b"EI")
_MAX_PAGE_DEPTH = 1024  # PDFium's kMaxPageLevel: no page deeper in the tree is loaded
_MAX_FORM_DEPTH = 41  # PDFium parses no form inside 40 others (kMaxFormLevel)
_MAX_STRING_ROUNDS = 4
_TYPE3 = re.compile(_name_pattern(b"Type3"))
_TO_UNICODE = re.compile(_name_pattern(b"ToUnicode") + _SPACE + rb"[+]?(\d+)" + _SEPARATOR + rb"\d+" + _SEPARATOR + rb"R")
_HEX_DIGITS = re.compile(rb"<([0-9A-Fa-f\x00\s]*)>")
_NOT_HEX_DIGIT = re.compile(rb"[^0-9A-Fa-f]")


def _tally(data: bytes, per_code: int = 1) -> int:
    """The cost of a content stream: its bytes, its operators that make a page object (found
    as substrings: more, never fewer) and the bytes of its strings (`per_code` characters each
    at most: see _Content.per_code)."""
    objects = sum(data.count(op) for op in _MAKES_OBJECT)
    spaced = b" " + data.translate(_PAINTING) + b" "
    objects += spaced.count(b" \x01 ") + spaced.count(b" \x01*")
    chars = 0
    text = data
    for _ in range(_MAX_STRING_ROUNDS):
        before = len(text)
        text, n = _LITERAL.subn(b" ", text)
        chars += before - len(text) - n  # each string's bytes but its parentheses
        if not n or b"(" not in text:
            break
    opened = text.find(b"(")
    if opened >= 0:
        # Nested deeper, or never closed: any string PDFium reads that is not counted yet
        # lies after the first "(" left, up to the end at most.
        chars += len(text) - opened
        text = text[:opened]
    before = len(text)
    text = _HEX_STRING.sub(b"", text)
    chars += (before - len(text)) // 2
    return len(data) + PDF_OBJECT_COST * objects + PDF_CHAR_COST * per_code * chars


_IMAGE_DATA = re.compile(rb"(?<![^" + _D + rb"])ID(?:\r\n|" + _WS + rb")")  # the data follows one white space
_INLINE_FILTER = re.compile(
    rb"/(?:F|Filter)(?![^" + _D + rb"])" + _SPACE + rb"(\[(?:%[^\r\n]*|[^\]%])*\]?|/[^" + _D + rb"]*)"
)


def _inline_images(data: bytes, budget: Budget, part: str) -> int:
    """What the inline images of a content stream ("BI <entries> ID <data> EI") inflate to,
    decoded as PDFium decodes them (their filter's own end ends them), a chunk at a time, never
    held; each image held to the limit for one stream, and all of them, of all streams, to the
    inflate limit (`budget`), which bounds the work too. An image's data is read by its
    decoder; the search for the next image goes on after its "ID"."""
    total, at = 0, 0
    while (begin := _BI.search(data, at)) is not None:
        at = begin.end()
        if begin.start() and data[begin.start() - 1] not in _DELIMITERS:
            continue
        start = _IMAGE_DATA.search(data, at)
        if start is None:
            break
        at = start.end()
        entries = data[begin.end() : start.start()]
        chains = [chain for match in _INLINE_FILTER.finditer(entries)
                  for chain in _chains(match[1], _Objects(b""), depth=0)][:_MAX_CHAINS]
        for chain in chains:
            if chain and chain[0] != "other":
                before = budget.total
                for _ in _decoded(data, at, chain, 1, budget, part, []):
                    pass
                total += budget.total - before
    return total


def _skip_string(text: bytes, at: int) -> int:
    """The end of the literal string opening at `at` (balanced parentheses, escapes)."""
    depth = 0
    for match in _STRING_PART.finditer(text, at):
        c = match[0]
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)


def _skip_value(text: bytes, at: int) -> int:
    """The end of the value (a dictionary, array, string, name, reference or word) at `at`."""
    simple = _SIMPLE_VALUE.match(text, at)
    if simple:
        return simple.end()
    if text.startswith(b"<<", at) or text.startswith(b"[", at):
        depth, i = 0, at
        while True:
            match = _STRUCTURE.search(text, i)
            if match is None:
                return len(text)
            token = match[0]
            if token == b"(":
                i = _skip_string(text, match.start())
                continue
            if token == b"%":
                eol = _EOL.search(text, match.end())
                i = eol.end() if eol else len(text)
                continue
            if token == b"<":  # a hex string
                end = text.find(b">", match.end())
                i = end + 1 if end >= 0 else len(text)
                continue
            depth += 1 if token in (b"<<", b"[") else -1
            i = match.end()
            if depth <= 0:
                return i
    c = text[at : at + 1]
    if c == b"(":
        return _skip_string(text, at)
    if c == b"<":
        end = text.find(b">", at)
        return end + 1 if end >= 0 else len(text)
    if c == b"/":
        return _NAME.match(text, at).end()
    ref = _REF.match(text, at)
    if ref:
        return ref.end()
    word = _WORD.match(text, at)
    return word.end() if word else at + 1


def _entries(text: bytes) -> dict[bytes, bytes] | None:
    """The entries of the dictionary `text` starts with (name -> the value's text; of a key
    given twice, the last, which PDFium keeps), or None when it starts with no dictionary."""
    i = _SPACE_AT.match(text).end()
    if not text.startswith(b"<<", i):
        return None
    i += 2
    out: dict[bytes, bytes] = {}
    n = len(text)
    while i < n:
        i = _SPACE_AT.match(text, i).end()
        if i >= n or text.startswith(b">>", i):
            break
        if text[i] != 0x2F:  # "/": not a key, skipped (PDFium skips it too)
            end = _skip_value(text, i)
            i = end if end > i else i + 1
            continue
        key = _NAME.match(text, i)
        i = _SPACE_AT.match(text, key.end()).end()
        end = _skip_value(text, i) if i < n else n
        out[_unescape(key[0][1:])] = text[i:end]
        i = end if end > i else i + 1
    return out


def _ref_of(value: bytes | None) -> int | None:
    if value is None:
        return None
    match = _REF.fullmatch(value.strip())
    return int(match[1]) if match else None


class _Content:
    """The content the pages of a PDF give PDFium to parse, costed (see above)."""

    def __init__(self, raw: bytes, streams: dict[int, list[_StreamAt]], objects: _Objects | None = None):
        self.raw = raw
        self.streams = streams
        self.objects = objects or _Objects(raw)
        self.page_limit = max_pdf_stream()
        self.limit = max_pdf_content()
        self.steps = 0  # streams costed: a file whose forms draw one another in every way ends
        self.max_steps = max(self.limit // 256, 10_000)
        self.draws: dict[int, dict[bytes, int]] = {}
        self.tallies: dict[int, int] = {}
        self.inlines: dict[int, int] = {}
        self.inline_budget = _stream_budget("the inline images of this PDF")
        self.forms: dict[tuple, int] = {}
        self.xobject_maps: dict[bytes, dict[bytes, list[int]]] = {}
        self.fonts: list[int] = []  # the fonts resources name, in the order met
        self.page_costs: dict[tuple, int] = {}
        self.parsed: dict[int, list[dict[bytes, bytes]]] = {}
        self.kids: dict[tuple, list[tuple[int, bytes | None]]] = {}
        self.packed: list[bytes] = []  # the data of each object stream
        for number, places in streams.items():
            for place in places:
                for i, data in enumerate(place.packed or ()):
                    if data and data not in place.packed[:i]:
                        self.packed.append(data)
                        self.objects.add_object_stream(data, place.first)
        self.per_code = self._per_code()
        # Fonts matter for their glyphs, if Type3 (see _type3): none named, none noted.
        self.type3 = any(_TYPE3.search(text) for text in [raw, *self.packed])

    def _per_code(self) -> int:
        """The most characters PDFium can make of one character code: a ToUnicode map may
        give a code a whole string ("<78> <0041 0041 ...>": 400 characters from one byte
        crashed PDFium), counted in UTF-16 units (the map's own)."""
        most = 1
        refs = {int(m[1]) for text in [self.raw, *self.packed] for m in _TO_UNICODE.finditer(text)}
        for ref in sorted(refs):
            for data in self._data(ref):
                for digits in _HEX_DIGITS.findall(data):
                    most = max(most, -(-len(_NOT_HEX_DIGIT.sub(b"", digits)) // 4))
        return most

    # -- what the file holds

    def _data(self, number: int) -> list[bytes]:
        """Stream `number` decoded as its own dictionary says (each definition of the number),
        or, where that was not found, in every way the bomb check decoded it and as it is;
        each way is under the limit for one stream, which that check enforced."""
        out: list[bytes] = []
        for place in self.streams.get(number, ())[:_MAX_CHAINS]:
            for chain in place.own if place.own is not None else [*place.chains, []]:
                if not chain:  # no filter: the bytes as they are, up to "endstream"
                    end = self.raw.find(b"endstream", place.start, place.start + place.size + 9)
                    data = self.raw[place.start : end if end >= 0 else place.start + place.size]
                    if data not in out:
                        out.append(data)
                    continue
                if chain[0] == "other":
                    continue
                for early in place.earlies if "lzw" in chain else (1,):
                    budget = _stream_budget("the streams of this PDF")
                    data = b"".join(_decoded(self.raw, place.start, chain, early, budget, place.part, []))
                    if data not in out:
                        out.append(data)
        return out[: _MAX_CHAINS]

    def _size(self, number: int) -> int:
        return max((place.size for place in self.streams.get(number, ())), default=0) + self._inline(number)

    def _inline(self, number: int) -> int:
        """What the inline images of stream `number` inflate to: PDFium decodes them as it
        parses the content (a 6 KB page of one made it abort), each time it does. Each is held
        to the limit for one stream, as a stream is."""
        if number not in self.inlines:
            most = 0
            if any(place.inline for place in self.streams.get(number, ())):
                for data in self._data(number):
                    part = f"an inline image of the stream of object {number}"
                    most = max(most, _inline_images(data, self.inline_budget, part))
            self.inlines[number] = most
        return self.inlines[number]

    def _draws(self, number: int) -> dict[bytes, int]:
        """XObject name -> how many times stream `number` draws it ("/Fm1 Do")."""
        if number not in self.draws:
            draws: dict[bytes, int] = {}
            if any(place.draws for place in self.streams.get(number, ())):
                for data in self._data(number):  # the most of each name any reading draws
                    counted: dict[bytes, int] = {}
                    for match in _DRAW.finditer(data):
                        name = _unescape(match[1])
                        counted[name] = counted.get(name, 0) + 1
                    for name, times in counted.items():
                        draws[name] = max(draws.get(name, 0), times)
            self.draws[number] = draws
        return self.draws[number]

    def _dicts(self, value: bytes | None) -> list[dict[bytes, bytes]]:
        """The dictionaries a value is: itself, or each definition of the object it refers to."""
        if value is None:
            return []
        value = value.strip()
        if value.startswith(b"<<"):
            entries = _entries(value)
            return [entries] if entries is not None else []
        ref = _ref_of(value)
        return self._object_dicts(ref) if ref is not None else []

    def _object_dicts(self, number: int) -> list[dict[bytes, bytes]]:
        """The dictionary of each definition of object `number` (parsed once)."""
        if number not in self.parsed:
            self.parsed[number] = [e for text in self.objects.definitions(number) if (e := _entries(text)) is not None]
        return self.parsed[number]

    def _arrays(self, value: bytes | None) -> list[list[int]]:
        """The objects an array value refers to, in order: itself, or each definition of the
        array object it refers to; a reference to a stream, alone."""
        if value is None:
            return []
        value = value.strip()
        if value.startswith(b"["):
            return [[int(m[1]) for m in _REF.finditer(value)]]
        ref = _ref_of(value)
        if ref is None:
            return []
        arrays = [[int(m[1]) for m in _REF.finditer(text)] for text in self.objects.definitions(ref)
                  if text.lstrip().startswith(b"[")]
        return arrays + [[ref]] if ref in self.streams or not arrays else arrays

    def _names(self, value: bytes | None) -> list[bytes]:
        """The name a value is, or the object it refers to is (each definition)."""
        ref = _ref_of(value)
        values = self.objects.definitions(ref) if ref is not None else [value or b""]
        return [_unescape(v.strip()[1:]) for v in values if v.strip().startswith(b"/")]

    def _xobjects(self, resources: bytes) -> dict[bytes, list[int]]:
        """Name -> the objects it may be, in the /XObject entry of a /Resources value."""
        if resources not in self.xobject_maps:
            names: dict[bytes, list[int]] = {}
            for entries in self._dicts(resources):
                for xobjects in self._dicts(entries.get(b"XObject")):
                    for name, value in xobjects.items():
                        ref = _ref_of(value)
                        if ref is not None and ref not in names.setdefault(name, []):
                            names[name].append(ref)
                for fonts in self._dicts(entries.get(b"Font")) if self.type3 else ():  # for their glyphs
                    self.fonts.extend(ref for value in fonts.values() if (ref := _ref_of(value)) is not None)
            self.xobject_maps[resources] = names
        return self.xobject_maps[resources]

    # -- costs

    def _stream(self, number: int, xobjects: dict[bytes, list[int]], depth: int, exact: bool) -> int:
        """Parsing content stream `number` once, with what it draws (named in `xobjects`): its
        bytes, or its tally when `exact`; each drawing a page object, and each form drawn."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise RefusedInput(
                f"cannot check this PDF file: its pages and forms draw forms in over {self.max_steps:,} ways "
                f"(a form bomb?), the most the {size(self.limit)} content limit allows to check: "
                "raise it with CRPARSE_MAX_PDF_CONTENT if the file is genuine"
            )
        if exact:
            if number not in self.tallies:
                self.tallies[number] = max((_tally(data, self.per_code) for data in self._data(number)), default=0)
            cost = self.tallies[number] + self._inline(number)
        else:
            cost = self._size(number)
        for name, times in self._draws(number).items():
            targets = xobjects.get(name)
            if targets:
                form = max(self._form(target, xobjects, depth - 1, exact) for target in targets)
                cost += times * (PDF_OBJECT_COST + form)
        return cost

    def _form(self, number: int, outer: dict[bytes, list[int]], depth: int, exact: bool) -> int:
        """Drawing XObject `number` once: parsing it, if it is a form, with what it draws,
        `depth` levels of forms deep at most. A form without resources of its own uses those
        of what draws it, as in PDFium; of several definitions, the costliest."""
        if depth <= 0:
            return 0
        definitions = self._object_dicts(number)
        if not any(b"Form" in self._names(entries.get(b"Subtype")) for entries in definitions):
            return 0  # an image, or nothing PDFium draws
        options = [self._xobjects(e[b"Resources"]) if b"Resources" in e else outer for e in definitions]
        cost = 0
        for xobjects in {id(x): x for x in options}.values():
            key = (number, id(xobjects), depth, exact)
            if key not in self.forms:
                self.forms[key] = self._stream(number, xobjects, depth, exact)
            cost = max(cost, self.forms[key])
        return cost

    def _page(self, number: int, inherited: bytes | None, exact: bool) -> int:
        """Parsing page `number` (its costliest definition): its content streams in order, each
        time they are listed, with what they draw."""
        key = (number, inherited, exact)
        if key not in self.page_costs:
            cost = 0
            for entries in self._object_dicts(number):
                resources = entries.get(b"Resources", inherited)
                for streams in self._arrays(entries.get(b"Contents")):
                    # The resources are read when they matter: for what the page draws, or the
                    # fonts, when the file has Type3 fonts.
                    needed = resources is not None and (self.type3 or any(self._draws(s) for s in streams))
                    xobjects = self._xobjects(resources) if needed else {}
                    cost = max(cost, sum(self._stream(s, xobjects, _MAX_FORM_DEPTH, exact) for s in streams))
            self.page_costs[key] = PDF_PAGE_COST + cost
        return self.page_costs[key]

    def _tree(self, root: int) -> tuple[int, int]:
        """(cost, pages) of the page tree at `root`, walked as PDFium walks it: the kids of
        each node in order, a node already on the way down skipped (a cycle), none below
        _MAX_PAGE_DEPTH; a page listed twice counts twice. Every node visited costs as much as
        a page, so that the walk ends within the limit whatever the shape of the tree."""
        cost = pages = 0
        path: list[int] = []  # the nodes on the way down, each with an iterator of its kids
        on_path: set[int] = set()
        below: list[Iterator[tuple[int, bytes | None]]] = [iter([(root, None)])]
        while below:
            step = next(below[-1], None)
            if step is None:  # done with the node's kids
                below.pop()
                if path:
                    on_path.discard(path.pop())
                continue
            node, inherited = step
            if node in on_path or len(below) > _MAX_PAGE_DEPTH:
                continue
            definitions = self._object_dicts(node)
            if any(b"Kids" in entries for entries in definitions):
                cost += PDF_PAGE_COST
                path.append(node)
                on_path.add(node)
                below.append(iter(self._kids(node, inherited)))
            elif definitions:
                pages += 1
                page = self._page(node, inherited, exact=False)
                if page * (1 + PDF_CHAR_COST * self.per_code) > self.page_limit:
                    whole = self._page(node, inherited, exact=True)
                    if whole > self.page_limit:
                        raise RefusedInput(
                            f"page {pages} of this PDF (object {node}) draws {size(whole)} of content, past the "
                            f"{size(self.page_limit)} limit for one page (PDFium holds a page's content whole; a page "
                            f"object counts {PDF_OBJECT_COST} bytes, a character {PDF_CHAR_COST}, a form each time it "
                            "is drawn): raise it with CRPARSE_MAX_PDF_STREAM if the file is genuine"
                        )
                cost += page
            if cost > self.limit:
                raise _content_refusal(self.limit, pages)
        return cost, pages

    def _kids(self, node: int, inherited: bytes | None) -> list[tuple[int, bytes | None]]:
        """The kids of page tree node `node` (of each definition), each with the resources it
        inherits."""
        key = (node, inherited)
        if key not in self.kids:
            self.kids[key] = [
                (kid, entries.get(b"Resources", inherited))
                for entries in self._object_dicts(node) if b"Kids" in entries
                for kid_list in self._arrays(entries[b"Kids"]) for kid in kid_list
            ]
        return self.kids[key]

    def check(self) -> tuple[int, int]:
        """Refuse the file if a page's content, or all pages' together, passes its limit; the
        cost and number of pages of the root with the most pages."""
        roots: dict[int, None] = {}  # in the order found; a dict: 65,000 roots in a list took 43 s to compare
        for match in _ROOT.finditer(self.raw):
            for catalog in self._dicts(match[1] + b" 0 R"):
                pages = _ref_of(catalog.get(b"Pages"))
                if pages is not None:
                    roots.setdefault(pages)
        # The first and the last found: PDFium takes the root of the last trailer, an update
        # appended to the file; a file of thousands of catalogs is walked no more than this.
        found = list(roots)
        walked = found if len(found) <= _MAX_CHAINS else found[:_MAX_CHAINS // 2] + found[-(_MAX_CHAINS // 2):]
        most = (0, 0)
        for root in walked:
            cost, pages = self._tree(root)
            most = max(most, (cost, pages), key=lambda found: (found[1], found[0]))
        glyphs = self._type3()
        if most[0] + glyphs > self.limit:
            raise _content_refusal(self.limit, most[1])
        return most[0] + glyphs, most[1]

    def _type3(self) -> int:
        """The glyphs of the Type3 fonts the resources name: each glyph is a content stream,
        which PDFium parses (once for the document: it keeps them) the first time a page shows
        it, with the forms it draws; all of them count, in the limit for one page too (PDFium
        holds them all). The fonts named in a Type3 font's own resources count as well."""
        cost, done, at = 0, set(), 0
        while at < len(self.fonts):  # _xobjects adds the fonts of the resources it reads
            font = self.fonts[at]
            at += 1
            if font in done:
                continue
            done.add(font)
            for entries in self._object_dicts(font):
                if b"Type3" not in self._names(entries.get(b"Subtype")):
                    continue
                if b"Resources" in entries:
                    options = [self._xobjects(entries[b"Resources"])]
                else:  # those of the page (or form) that shows it: any of them
                    options = list(self.xobject_maps.values()) or [{}]
                procs = [ref for d in self._dicts(entries.get(b"CharProcs")) for v in d.values()
                         if (ref := _ref_of(v)) is not None]
                cost += max(sum(self._stream(p, x, _MAX_FORM_DEPTH, exact=True) + PDF_OBJECT_COST for p in procs)
                            for x in options)
                if cost > self.page_limit:
                    raise RefusedInput(
                        f"the Type3 fonts of this PDF draw {size(cost)} of content in their glyphs, past the "
                        f"{size(self.page_limit)} limit for one page (PDFium holds them all; a page object counts "
                        f"{PDF_OBJECT_COST} bytes, a character {PDF_CHAR_COST}, a form each time it is drawn): "
                        "raise it with CRPARSE_MAX_PDF_STREAM if the file is genuine"
                    )
        return cost


def _stream_budget(parts: str) -> Budget:
    return Budget(max_inflated(), parts, max_pdf_stream(), "CRPARSE_MAX_PDF_STREAM")


def _content_refusal(limit: int, page: int) -> RefusedInput:
    return RefusedInput(
        f"the pages of this PDF draw more than the {size(limit)} limit of content, at page {page} (a page counts "
        f"{size(PDF_PAGE_COST)}, a stream each time a page shows it, a form each time it is drawn, a page object "
        f"{PDF_OBJECT_COST} bytes, a character {PDF_CHAR_COST}): raise it with CRPARSE_MAX_PDF_CONTENT if the file is "
        "genuine"
    )


def _check_content(raw: bytes, streams: dict[int, list[_StreamAt]], objects: _Objects | None = None) -> tuple[int, int]:
    """Refuse the file if the content its pages draw passes the limits (see _Content); what
    they cost before PDFium parses them, and how many there are."""
    return _Content(raw, streams, objects).check()
