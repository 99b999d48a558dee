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
crparse/readers/limits.py (see `check_streams`).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from crparse import shapes as C
from crparse.decode.invisible import without_leading_invisible
from crparse.errors import RefusedInput
from crparse.limits import max_input
from crparse.nodes import Diagnostic, Residue
from crparse.readers.base import Extract, said
from crparse.readers.limits import PDF_CHAR_COST, PDF_OBJECT_COST, max_pdf_content, size
from crparse.readers.pdf.confine import confined
from crparse.readers.pdf.content import check_content, content_refusal
from crparse.readers.pdf.streams import StreamAt, check_streams
from crparse.readers.pdf.syntax import Objects

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
    try:
        # loaded here, outside the child's memory limit: under a few MiB, mapping the library
        # failed, and the message was the loader's (sweep 14)
        import pypdfium2  # noqa: F401
        import pypdfium2.raw  # noqa: F401
    except ImportError:
        pass  # said by _lines, where it is used
    return confined(_read, raw, path)


def _read(raw: bytes, path: str | None) -> Extract:
    streams: dict[int, list[StreamAt]] = {}
    objects = Objects(raw)
    damaged = check_streams(raw, streams, objects)
    source, lines, blank, pages, annotations = _lines(raw, *check_content(raw, streams, objects))
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
    # before lines are joined into paragraphs: a line that starts a rule after a zero-width space
    # (a ToUnicode map's) was joined to the paragraph above as its text (sweep 20)
    texts, invisible = without_leading_invisible([ln.text for ln in body])
    if invisible is not None:
        for ln, text in zip(body, texts):
            ln.text = text
        diagnostics.append(Diagnostic(body[invisible.line - 1].number, invisible.severity, invisible.code,
                                      invisible.message))
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
    if blank:
        # A content stream that its filter cannot decode (an LZW stream that is not one, say)
        # gives PDFium nothing to show and no error: the page's text is gone without a word.
        # No page of a released CR is blank (each has at least its page number).
        which = ", ".join(map(str, blank[:5])) + (f" and {len(blank) - 5:,} more" if len(blank) > 5 else "")
        diagnostics.append(
            Diagnostic(None, "warning", "pdf-blank-page",
                       f"{len(blank):,} of {pages:,} page(s) give no text "
                       f"(page {which}): text may be missing (a content stream that does not decode, "
                       f"or a page of images)")
        )
    if annotations:
        # as the DOCX and RTF readers say what they leave out (a FreeText annotation's rule and a
        # form field's were lost without a word: sweep 27)
        said = ", ".join(f"{n:,} {one if n == 1 else many}" for (one, many), n in sorted(annotations.items()))
        diagnostics.append(Diagnostic(None, "warning", "pdf-not-read",
                                      f"text the reader does not read: {said} (annotations and form fields hold text "
                                      "apart from the page's)"))
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


class _Pages(NamedTuple):
    source: list[str]  # the source lines: each page's text, line by line
    lines: list[_Line]  # the printed lines
    blank: list[int]  # the (1-based) numbers of the pages that give no text
    count: int  # how many pages there are
    annotations: dict[tuple[str, str], int]  # what annotations hold apart from the page's text: kind -> how many


def _lines(raw: bytes, cost: int = 0, checked_pages: int | None = None) -> _Pages:
    """The pages' text and what else they hold. `cost`, `checked_pages`: what the content check
    found the pages cost and how many it found (see check_content)."""
    try:
        import pypdfium2 as pdfium
        import pypdfium2.raw as pdfium_c

        document = pdfium.PdfDocument(raw)
    except Exception as err:  # PdfiumError, and ValueError for non-PDF data
        if "(PDFium: Success)" in str(err):  # PDFium failed, and says no error (an empty page tree: sweep 14)
            raise RefusedInput("cannot read this PDF file: PDFium loads no document from it and gives no reason "
                               "(a page tree without pages?)") from None
        raise RefusedInput(f"cannot read this PDF file: {said(err)}") from None
    source: list[str] = []
    lines: list[_Line] = []
    blank: list[int] = []
    annotations: dict[tuple[str, str], int] = {}
    looked_at = 0  # annotations looked at, in all pages
    page_index, pages = 0, 0
    limit, text_limit, chars = max_pdf_content(), max_input(), 0
    try:
        pages = len(document)
        if checked_pages is not None and pages > checked_pages:
            # PDFium finds pages the check did not (its /Count says more than the tree holds,
            # or the tree is where the check cannot see it): their content was not counted.
            raise RefusedInput(
                f"cannot read this PDF file: PDFium counts {pages:,} page(s) in it, where its page tree holds "
                f"{checked_pages:,}: the content of the others cannot be checked before it is read"
            )
        for page_index in range(pages):
            page = document[page_index]
            textpage = page.get_textpage()
            count = textpage.count_chars()
            # The page objects and characters PDFium made of the page, now known, count in
            # the content limit; the text is held to the input limit too, as a DOCX's is (and
            # as the same text in a text file would be).
            chars += count
            cost += PDF_OBJECT_COST * max(pdfium_c.FPDFPage_CountObjects(page.raw), 0) + PDF_CHAR_COST * count
            if cost > limit:
                raise content_refusal(limit, page_index + 1)
            if chars > text_limit:
                raise RefusedInput(
                    f"cannot read this PDF file: its text passes the {size(text_limit)} input limit at page "
                    f"{page_index + 1} ({chars:,} characters): raise it with CRPARSE_MAX_INPUT if the file is genuine"
                )
            text = _page_text(textpage, count).translate(_NONBREAKING_HYPHEN)  # 1:1, indices kept
            if not text.strip():
                blank.append(page_index + 1)
            page_lines: list[_Line] = []
            at = 0
            for match in [*_LINE_BREAK.finditer(text), None]:
                end = match.start() if match else len(text)
                line = text[at:end]
                source.append(_unpaired(line))
                stripped = line.strip()
                if stripped:
                    first = at + (len(line) - len(line.lstrip()))
                    last = at + len(line.rstrip()) - 1
                    number = len(source)
                    if last < count:
                        page_lines += _printed_lines(textpage, text, first, last, number, page_index)
                    else:  # text and character boxes disagree: no geometry
                        page_lines.append(_Line(number, number, page_index, _unpaired(line), 0.0, 0.0, 0.0))
                at = match.end() if match else end
            lines += _reading_order(page_lines)
            try:
                looked_at += _annotations(page, annotations, MAX_ANNOTATIONS - looked_at)
            except Exception:  # noqa: BLE001 - what is said of them must not refuse the page's text
                annotations[("annotation not examined (PDFium failed on one)", "")] = 1
            textpage.close()
            page.close()
    except RefusedInput:
        raise
    except Exception as err:
        raise RefusedInput(f"cannot read this PDF file: page {page_index + 1}: {said(err)}") from None
    finally:
        document.close()
    return _Pages(source, lines, blank, pages, annotations)


# Annotations looked at, in all (each a few calls into PDFium): past them, the rest are counted
# as annotations, unsorted.
MAX_ANNOTATIONS = 10_000


_ANNOTATION = ("annotation", "annotations")
_FIELD = ("form field", "form fields")


def _annotations(page, found: dict[tuple[str, str], int], budget: int) -> int:
    """Count in `found` the annotations of `page` that hold text PDFium does not give as the
    page's: a note's or a comment's (/Contents), a form field's (a widget). Links and the pop-ups
    of other annotations hold none of their own. Returns how many were looked at (at most
    `budget`)."""
    import pypdfium2.raw as pdfium_c

    count = max(pdfium_c.FPDFPage_GetAnnotCount(page.raw), 0)
    if count > budget:  # links or not: not looked at
        past = (f"annotation past the {MAX_ANNOTATIONS:,} examined", f"annotations past the {MAX_ANNOTATIONS:,} examined")
        found[past] = found.get(past, 0) + count - max(budget, 0)
        count = max(budget, 0)
    for index in range(count):
        annotation = pdfium_c.FPDFPage_GetAnnot(page.raw, index)
        if not annotation:
            continue
        try:
            kind = pdfium_c.FPDFAnnot_GetSubtype(annotation)
            if kind == pdfium_c.FPDF_ANNOT_WIDGET:
                found[_FIELD] = found.get(_FIELD, 0) + 1
            elif kind not in (pdfium_c.FPDF_ANNOT_LINK, pdfium_c.FPDF_ANNOT_POPUP) and _contents_length(annotation) > 2:
                found[_ANNOTATION] = found.get(_ANNOTATION, 0) + 1
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annotation)
    return count


def _contents_length(annotation) -> int:
    """The length of an annotation's /Contents in bytes, its UTF-16 terminator included: 2 for none."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    return pdfium_c.FPDFAnnot_GetStringValue(annotation, b"Contents", ctypes.cast(None, ctypes.POINTER(
        pdfium_c.FPDF_WCHAR)), 0)


def _page_text(textpage, count: int) -> str:
    """The page's text, one character for each of PDFium's, so that the text's indices are the
    characters' (their boxes). As pypdfium2's `get_text_range()` gives it, but:
    - the characters PDFium gives no text for (code 0, say) at either end are a space each:
      pypdfium2 skips those by recursion, one call a character, and 1,000 of them ended the
      read with a RecursionError; any inside the text are a space too (a code mapped to U+FFFE
      had none, and every later line of its page began one character early: sweep 17);
    - PDFium's characters are UTF-16 units, and so are the text's: a character outside the BMP
      is its two surrogates, made one character in each line the text is cut into, and a lone
      surrogate U+FFFD, there (see _unpaired). Decoded here, such a character made one of two and
      shifted the rest of the page (sweep 17); a noncharacter standing for its second unit was
      itself dropped where the page had one (U+FDD0, sweep 19)."""
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
    units = buffer[: max(written - 1, 0)]  # a list of the UTF-16 units
    if len(units) == last - first + 1:
        text = "".join(map(chr, units))
    else:
        text = "".join(" " if pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage, i) == -1
                       else chr(pdfium_c.FPDFText_GetUnicode(textpage, i) & 0xFFFF) for i in range(first, last + 1))
    return " " * first + text + " " * (count - 1 - last)


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _paired(match: re.Match) -> str:
    pair = match[0]
    if len(pair) == 1:
        return "\ufffd"
    return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))


def _unpaired(text: str) -> str:
    """A line of a page's text as characters: each surrogate pair one, a lone surrogate U+FFFD."""
    return _SURROGATES.sub(_paired, text) if _SURROGATE.search(text) else text


def _printed_lines(textpage, text: str, first: int, last: int, number: int, page: int) -> list[_Line]:
    """The printed lines in text[first:last + 1]: usually one, but PDFium does not break the
    text after a line that ends in a hyphen ("enters-the-" / "battlefield"), so a baseline
    that moves down inside the text starts another printed line."""
    left, bottom, _, top = textpage.get_charbox(first, loose=True)
    _, end_bottom, right, _ = textpage.get_charbox(last, loose=True)
    step = (top - bottom) / 2
    if abs(end_bottom - bottom) <= step:
        return [_Line(number, number, page, _unpaired(text[first : last + 1]), left, bottom, right)]
    out: list[_Line] = []
    start, start_box = first, (left, bottom)
    previous_right = right
    for i in range(first + 1, last + 1):
        if text[i].isspace():
            continue
        box_left, box_bottom, box_right, _ = textpage.get_charbox(i, loose=True)
        if start_box[1] - box_bottom > step:
            out.append(_Line(number, number, page, _unpaired(text[start:i]), start_box[0], start_box[1], previous_right))
            start, start_box = i, (box_left, box_bottom)
        previous_right = box_right
    out.append(_Line(number, number, page, _unpaired(text[start : last + 1]), start_box[0], start_box[1], previous_right))
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
    # each page's median height once: taken for each running line, it was quadratic in the lines
    # of a page (10 pages of 4,000 like lines, 15 KB: 9.5 s: sweep 13)
    middles = {page: statistics.median(ln.bottom for ln in page_lines) for page, page_lines in by_page.items()}
    for ln in lines:
        if repeats[key(ln)] >= max(3, pages // 2):
            found[ln.number] = "page-header" if ln.bottom >= middles[ln.page] else "page-footer"
    for page_lines in by_page.values():
        for ln in (page_lines[0], page_lines[-1]):
            if _PAGE_NUMBER.fullmatch(ln.text.strip()) and ln.number not in found:
                found[ln.number] = "page-number"
    for ln in lines:  # a merged printed line is furniture as a whole
        if ln.number in found:
            found.update({n: found[ln.number] for n in range(ln.number + 1, ln.last + 1)})
    return found


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
