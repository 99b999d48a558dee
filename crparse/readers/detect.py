"""Format detection by content (magic bytes, markup), with the file name as a hint only.

A web copy saved as `.txt` may hold reStructuredText or Markdown, and a `.doc` may be RTF, so
the content decides; the extension only breaks ties where the content says nothing.

HTML needs a signal of a whole page (a doctype, `<html>`, `<head>`, `<body>`) or markup on most
lines: Markdown allows raw HTML (`<div>`, `<table>`), and a rules text copied from a page can
keep a stray `<p>`. Read as HTML, such a file loses its line breaks, and with them its rules.
A few tags only count where the file name says HTML too.

A ZIP archive is a DOCX when the DOCX reader finds a Word document in it (docx.document_part):
one test for both, so that detection refuses no package the reader reads.
"""

from __future__ import annotations

import re
from io import BytesIO
from itertools import islice

from crparse import shapes as S
from crparse.errors import CrparseError, NotADocument, RefusedInput, UnsupportedFormat

from crparse.inputs import FORMATS  # noqa: E402  (re-exported: readers choose among them)
_NAMES = {"text": "plain text", "markdown": "Markdown", "rst": "reStructuredText", "html": "HTML",
          "docx": "DOCX", "pdf": "PDF", "rtf": "RTF"}

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# A page's own tags, where a page puts them: first on a line, or right after another tag (a
# `<html>` quoted in running text or in a code span is neither).
# (A ">" that starts its line is a Markdown block quote's, no tag's end: "> <html>" is quoted.)
_HTML_PAGE = re.compile(rb"(?:^|(?<=[^\n]>))[ \t]*<(!doctype[ \t\r\n]+html|html|head|body)[\s>]",
                        re.IGNORECASE | re.MULTILINE)
_HTML_TAG = re.compile(rb"<(p|div|table|h[1-6]|a(?=\s+href)|br|ul|ol|li|tr|td)[\s>=/]", re.IGNORECASE)
# A line that is markup: it opens with a tag or comment, or ends with a closing tag or a <br>.
_MARKUP_LINE = re.compile(
    rb"^[ \t]*(?:</?[a-z][a-z0-9-]*(?:[\s/>]|$)|<!--)|(?:<br\s*/?>|</[a-z][a-z0-9-]*>)[ \t]*$", re.IGNORECASE
)
# reST: a rule number underlined as a heading, or one of the directives the CR editions use.
_RST = re.compile(
    rb"^" + S.NUMBER.encode() + rb"[ \t]*\r?\n[-=~^\"'`#*+]{3,}[ \t]*\r?$"
    rb"|^[ \t]*\.\. (?:admonition|toctree|glossary|seealso|_[^:\r\n]+):",
    re.MULTILINE,
)
_MARKDOWN = re.compile(rb"^#{1,6}[ \t]+\S", re.MULTILINE)
_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".htm": "html", ".html": "html"}
_HEAD = 4096


def detect_format(raw: bytes, path: str | None = None) -> str:
    return _detect(raw, path)[0]


_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"),
               (b"\xfe\xff", "utf-16-be"))


def wide_encoding(sample: bytes) -> tuple[str, int] | None:
    """The UTF-16 or UTF-32 codec of a sample and the length of its BOM: by the BOM, else by
    where its NULs fall (ASCII text in UTF-16 has one on every other byte); None otherwise."""
    for bom, codec in _WIDE_BOMS:
        if sample.startswith(bom):
            return codec, len(bom)
    head = sample[:4096]
    odd, even = head[1::2].count(0), head[0::2].count(0)
    # nearly all on one side: a character U+xx00 or a lone surrogate half (U+D800) puts one on
    # the other, and a page holding one was no UTF-16 (sweep 28)
    if odd > len(head) // 4 and even * 50 < odd:
        return "utf-16-le", 0
    if even > len(head) // 4 and odd * 50 < even:
        return "utf-16-be", 0
    return None


def _wide(sample: bytes) -> bytes | None:
    """A UTF-16 or UTF-32 sample as UTF-8 (see wide_encoding), or None."""
    found = wide_encoding(sample)
    if found is None:
        return None
    codec, bom = found
    return sample[bom:].decode(codec, "replace").encode("utf-8")


def _detect(raw: bytes, path: str | None) -> tuple[str, str]:
    """The format and why it was chosen, in words for a message ("found <body> at line 3")."""
    chunk = raw[:_HEAD]
    head = chunk.lstrip(b"\xef\xbb\xbf \t\r\n")
    skipped = len(chunk) - len(head)  # offsets in `head` + skipped = offsets in `raw`
    if head.startswith(b"%PDF-"):
        return "pdf", "it starts with %PDF-"
    # PDFium reads a header anywhere in the first 1 KB (a mail header left before it): such a
    # file was refused as binary data or as no rules (sweep 18); the end of a PDF makes sure
    at = raw.find(b"%PDF-", 0, 1024)
    if at > 0 and (b"%%EOF" in raw[-2048:] or b"startxref" in raw[-4096:]):
        return "pdf", f"%PDF- at byte {at}, and it ends as a PDF does"
    if head.startswith(b"{\\rtf"):
        return "rtf", "it starts with {\\rtf"
    if head.startswith(_OLE):
        raise UnsupportedFormat("Word 97-2003 .doc files are unsupported: convert it to DOCX (or RTF, PDF, plain text)")
    if head.startswith(b"PK\x03\x04"):
        return "docx", f"a ZIP archive holding a Word document, {_zip_document(raw)}"
    page = _html_page(head[:2048])
    if page:
        tag = b" ".join(page.group(1).split()).decode("ascii").lower()
        return "html", f"found <{tag}> at line {_line(raw, skipped + page.start(1))}"
    sample = raw[:200_000]
    if b"\x00" in sample[:4096]:
        # UTF-16 or UTF-32: the markup is looked for in the text (a page or Markdown file saved
        # as "Unicode" was refused as no rules); the plain-text decoder reads any other
        wide = _wide(sample)
        if wide is not None and b"\x00" not in wide[:4096]:
            found, why = _detect(wide, path)
            if found in ("html", "markdown", "rst"):
                return found, f"{why}, in UTF-16/32 text"
        return "text", "it holds NUL bytes (UTF-16)"
    markdown = _MARKDOWN.search(sample)
    rst = _RST.search(sample)
    shown = _unfenced(head)  # a Markdown file's fenced sample of HTML is no markup of its own (sweep 13)
    tag = _HTML_TAG.search(shown, 0, 2048)
    found = f"found <{tag.group(1).decode('ascii').lower()}> at line {_line(raw, skipped + tag.start())}" if tag else ""
    if tag and not (markdown and markdown.start() < _HEAD) and not (rst and rst.start() < _HEAD):
        dense = _markup_density(shown, cut=len(raw) > _HEAD)
        if dense:
            return "html", f"{found}, and {dense}"
    suffix = "." + (path or "").lower().rpartition(".")[2]
    by_name = _EXTENSIONS.get(suffix)
    if tag and by_name == "html":
        return "html", f"named {suffix}, and {found}"
    if rst:
        return "rst", f"found a reST heading or directive at line {_line(raw, rst.start())}"
    if markdown:
        return "markdown", f"found a Markdown heading at line {_line(raw, markdown.start())}"
    if by_name:
        return by_name, f"named {suffix}"
    return "text", "no markup found"


# A Markdown fenced code block (to its closing fence, or the end): what it shows is no page's
# markup (an ```html block showing <html> read a Markdown file as HTML: sweep 12).
_FENCED = re.compile(rb"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)


def _html_page(head: bytes) -> re.Match | None:
    """The first start of a page (<html>, <head>, <body>, a doctype) that is not Markdown showing
    one: Markdown reads it as an HTML block of its own, not code (fenced, indented, in a list
    item) nor text inside a paragraph or a block quote. An indented `    <html>` and one after
    `<span></span>` on a line of text read Markdown files as HTML (sweep 13). markdown-it is
    asked only when the pattern finds a start: a page, or Markdown that shows one."""
    starts = list(_HTML_PAGE.finditer(_unfenced(head)))
    if not starts:
        return None
    from markdown_it import MarkdownIt

    # latin-1: one character per byte, and markdown-it counts lines as _line does (\r, \r\n, \n)
    blocks = [t.map for t in MarkdownIt("commonmark").parse(head.decode("latin-1"))
              if t.type == "html_block" and t.level == 0 and t.map]
    for start in starts:
        line = _line(head, start.start(1)) - 1
        if any(first <= line < last for first, last in blocks):
            return start
    return None


def _unfenced(head: bytes) -> bytes:
    """`head` with its fenced code blocks blanked, every offset kept."""
    return _FENCED.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), head)


def _markup_density(head: bytes, cut: bool) -> str | None:
    """"markup on N of its first M lines" when most non-blank lines of `head` are markup."""
    lines = [line for line in head.splitlines()[:200] if line.strip()]
    if cut and len(lines) > 1 and not head.endswith((b"\n", b"\r")):
        lines.pop()  # cut off mid-line by the sample
    markup = sum(1 for line in lines if _MARKUP_LINE.search(line))
    if lines and markup * 2 > len(lines):
        return f"markup on {markup} of its first {len(lines)} lines"
    return None


def _line(raw: bytes, offset: int) -> int:
    before = raw[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def _zip_document(raw: bytes) -> str:
    """The name of the document part of a ZIP archive that is a Word document, as the DOCX reader
    finds it (docx.document_part); else UnsupportedFormat."""
    import zipfile  # only for an archive: with its own imports (shutil, bz2, lzma) 5 ms

    from crparse.readers import docx

    try:
        archive = zipfile.ZipFile(BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError) as err:
        # NotImplementedError: zipfile's word for a ZIP version it does not read ("14.8")
        raise UnsupportedFormat(f"broken ZIP archive (a DOCX file is one): {err}") from None
    with archive:
        part = docx.document_part(archive)
        names = archive.namelist()
    if part is not None:
        return docx._printable(part[:100])
    if "content.xml" in names:
        raise UnsupportedFormat("OpenDocument files are unsupported: save it as DOCX")
    raise UnsupportedFormat("a ZIP archive that is not a DOCX document")


def no_rules(raw: bytes, path: str | None, fmt: str, note: str | None = None, *, one: int | None = None,
             lost: bool = False) -> RefusedInput:
    """The refusal of a file that, read as `fmt`, has fewer numbered rules than a CR or a fragment
    of one (the pipeline's test), saying why it was read as `fmt`: when detection guessed wrong,
    the message points to the `--format` that reads it (a rules text with a few tags, read as
    HTML, has no line breaks left and so no rules). `note` is added to the message (a parser's
    warning that may explain); `one`: the source line of the one rule found, when there is one;
    `lost`: a reader said it left rules unread."""
    if one is not None:
        plain = (f"not a Comprehensive Rules document: one numbered rule (line {one}), where even a fragment "
                 f"has {S.MIN_RULES} or more")
    else:
        plain = "not a Comprehensive Rules document: no numbered rules such as \"100.1.\" found"
    # no document at all, unless a reader said where its rules went (`lost`: a budget spent,
    # markup left open): the pytest plugin passes over the one, and names the other (review)
    refusal = RefusedInput if lost else NotADocument
    if fmt not in ("html", "markdown", "rtf"):  # what a text file can be taken for
        return refusal(f"{plain} ({note})" if note else plain)
    try:
        detected, why = _detect(raw, path)
    except UnsupportedFormat:
        detected, why = None, ""
    if detected != fmt:
        why = "as --format asked"
    name = _NAMES[fmt]
    other = _other_reading(raw, path, fmt, S.MIN_RULES)
    if other:
        message = (f"read as {name} ({why}) but no numbered rules such as \"100.1.\" found; "
                   f"read as {_NAMES[other]} it has some: give --format {other}")
    else:
        message = f"{plain} when read as {name} ({why}); --format reads it as another format"
    return refusal(f"{message} ({note})" if note else message)


def _has_rules(lines: list[str], wanted: int) -> bool:
    """A looser form of the pipeline's test of a text that is (part of) a CR (any line shaped
    like a numbered rule counts, after a blank line or not): enough to suggest another format."""
    found = (1 for line in lines if line.lstrip()[:1].isdigit() and S.RULE.match(line))
    return len(list(islice(found, wanted))) >= wanted


def _other_reading(raw: bytes, path: str | None, fmt: str, wanted: int) -> str | None:
    """The line-based format (Markdown or plain text) in which the file has rules, if any."""
    from crparse.readers import plaintext

    if fmt == "text":
        return None
    try:
        lines = plaintext.read(raw, path).lines
    except CrparseError:  # not text either (binary): nothing to suggest
        return None
    if not _has_rules(lines, wanted):
        return None
    suffix = "." + (path or "").lower().rpartition(".")[2]
    markdown = fmt != "markdown" and (_EXTENSIONS.get(suffix) == "markdown" or _MARKDOWN.search(raw[:200_000]))
    return "markdown" if markdown else "text"
