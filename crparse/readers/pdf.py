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
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from crparse import shapes as C
from crparse.errors import RefusedInput
from crparse.nodes import Diagnostic, Residue
from crparse.readers.base import Extract
from crparse.readers.limits import CHUNK, Budget, inflate, max_inflated, max_pdf_stream

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
    damaged = _check_streams(raw)
    source, lines = _lines(raw)
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


def _lines(raw: bytes) -> tuple[list[str], list[_Line]]:
    try:
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(raw)
    except Exception as err:  # PdfiumError, and ValueError for non-PDF data
        raise RefusedInput(f"cannot read this PDF file: {err}") from None
    source: list[str] = []
    lines: list[_Line] = []
    page_index = 0
    try:
        for page_index in range(len(document)):
            page = document[page_index]
            textpage = page.get_textpage()
            text = textpage.get_text_range().translate(_NONBREAKING_HYPHEN)  # 1:1, indices kept
            count = textpage.count_chars()
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
    except Exception as err:
        raise RefusedInput(f"cannot read this PDF file: page {page_index + 1}: {err}") from None
    finally:
        document.close()
    return source, lines


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
# Every stage's output counts; the first stage the scan does not decode (an image's DCTDecode)
# ends the chain, PDFium does not decode images to extract text.

_DELIMITERS = b" \t\n\r\f\x00()<>[]{}/%"  # a PDF keyword or name ends at one of these
_D = re.escape(_DELIMITERS)
_EOL = re.compile(rb"\r\n|\r|\n")
_OBJ = re.compile(rb"(?<![0-9])(\d{1,10})\s+\d{1,5}\s+obj(?![^" + _D + rb"])")
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
_SPACE = rb"(?:\s|%[^\r\n]*)*"
_COMMENT = re.compile(rb"%[^\r\n]*")
_ENCRYPT = re.compile(_name_pattern(b"Encrypt") + _SPACE + rb"(?:\d+\s+\d+\s+R|<<)")  # a trailer's entry
_FILTER = re.compile(
    _name_pattern(b"Filter") + _SPACE + rb"(\[(?:%[^\r\n]*|[^\]%])*\]?|/[^" + _D + rb"]*|\d+\s+\d+\s+R)"
)
_FILTER_TOKEN = re.compile(rb"/([^" + _D + rb"]*)|(\d+)\s+\d+\s+R")  # a name, or an object it refers to
_EARLY_CHANGE_0 = re.compile(_name_pattern(b"EarlyChange") + _SPACE + rb"0(?![0-9])")
_MAX_CHAINS = 16  # filter chains tried for one stream (see _chains)


def _check_streams(raw: bytes) -> list[str]:
    """Decode every stream of the PDF in bounded chunks, and refuse the file if they give more
    than the inflate limit, alone or together; the streams whose /Filter says Flate and whose
    data is not, or ends too soon (a damaged file: PDFium shows what it can, silently).
    Linear in the file's size: each byte is read once as dictionary text, and decoded at most
    once per filter chain, each decoded byte counted in the limit."""
    if _ENCRYPT.search(raw):
        # Encrypted streams can be decoded only after decrypting them, which PDFium does (with
        # the empty user password) and this scan does not: they cannot be checked.
        raise RefusedInput(
            "an encrypted PDF: its streams cannot be checked for decompression bombs before they are "
            "decrypted; decrypt it first (qpdf --decrypt in.pdf out.pdf)"
        )
    budget = Budget(max_inflated(), "the streams of this PDF", max_pdf_stream(), "CRPARSE_MAX_PDF_STREAM")
    damaged: list[str] = []
    objects = _Objects(raw)
    previous = 0  # where the previous stream's data starts: the dictionary text lies after it
    at = raw.find(b"stream")
    while at >= 0:
        end = at + 6
        # A keyword before `previous` would find the same end of line, the same data.
        if (at == 0 or raw[at - 1] in _DELIMITERS) and (end == len(raw) or raw[end] in _DELIMITERS) and end >= previous:
            eol = _EOL.search(raw, end)  # PDFium starts the data after the keyword's line
            if eol is None:
                break
            start = eol.end()
            # The dictionary is in the text since the previous stream's data; all of it is
            # read, for a /Filter entry anywhere in it (a wrong one costs only a decoding).
            span = raw[previous:at]
            obj = raw.rfind(b"obj", previous, at)  # "12 0 obj << ... >>": for messages
            number = _OBJ.search(raw, max(previous, obj - 32), obj + 3) if obj >= 0 else None
            part = f"the stream of object {int(number[1])}" if number else f"the stream at byte {start}"
            # LZW's /EarlyChange 0 in the text may be another dictionary's: both ways, then.
            earlies = (1, 0) if _EARLY_CHANGE_0.search(span) else (1,)
            for chain in _filter_chains(span, objects):
                for early in earlies if chain and "lzw" in chain else (1,):
                    for _ in _decoded(raw, start, chain, early, budget, part, damaged):
                        pass
            previous = start
        at = raw.find(b"stream", end)
    return damaged


class _Objects:
    """Where each object of the file is defined, indexed when first asked for. Every definition
    of a number counts: the cross-reference table, which this scan does not read, picks one
    (not always the last)."""

    def __init__(self, raw: bytes):
        self.raw = raw
        self.index: dict[int, list[int]] | None = None

    def bodies(self, number: int) -> list[bytes]:
        if self.index is None:
            self.index = {}
            for match in _OBJ.finditer(self.raw):
                self.index.setdefault(int(match[1]), []).append(match.end())
        out = []
        for at in self.index.get(number, ())[:_MAX_CHAINS]:
            body = self.raw[at : at + 4096]
            end = body.find(b"endobj")
            out.append(body[:end] if end >= 0 else body)
        return out


def _filter_chains(span: bytes, objects: _Objects) -> list[list[str] | None]:
    """The filter chains the /Filter entries in a dictionary's text name, each a list of
    _FILTERS values ("other" for a filter not decoded here), or None where an entry refers to
    an object this scan cannot read (one inside an object stream). Every /Filter entry of the
    text counts, nested dictionaries' too: decoding one chain too many costs only time."""
    chains = [chain for match in _FILTER.finditer(span) for chain in _chains(match[1], objects, depth=3)]
    return chains[:_MAX_CHAINS] or [[]]


def _chains(value: bytes, objects: _Objects, depth: int) -> list[list[str] | None]:
    """The chains a /Filter value can stand for: a name, an array of names, a reference to
    either, or an array of references (PDFium follows them all), with each definition of a
    referred object."""
    chains: list[list[str] | None] = [[]]
    for token in _FILTER_TOKEN.finditer(_COMMENT.sub(b" ", value)):
        if token[1] is not None:
            options: list[list[str] | None] = [[_FILTERS.get(_unescape(token[1]), "other")]]
        else:
            bodies = objects.bodies(int(token[2])) if depth else []
            options = [chain for body in bodies for chain in _chains(body, objects, depth - 1)] or [None]
        chains = [None if a is None or b is None else a + b for a in chains for b in options][:_MAX_CHAINS]
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
    for stage in chain:
        if stage == "flate":
            chunks = inflate(chunks, budget, part, damaged)
        elif stage in ("lzw", "runlength", "hex", "a85"):
            decoder = {"lzw": lambda c: _lzw(c, early), "runlength": _runlength, "hex": _hex, "a85": _a85}[stage]
            chunks = _counted(decoder(chunks), budget, part)
        else:
            break
    return iter(chunks)


def _guessed(chunks: Iterable, budget: Budget, part: str, depth: int) -> Iterator[bytes]:
    chunks = iter(chunks)
    first = next(chunks, None)
    if first is None or depth == 0 or not _zlib_header(first):
        return
    out = inflate(_prepend(first, chunks), budget, part)
    yield from _guessed(out, budget, part, depth - 1)


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
