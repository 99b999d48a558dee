"""The HTML reader (beautifulsoup4): a saved rules page, or a hyperlinked rules site.

Block elements (paragraphs, headings, list items, table cells, `<br>`) end lines; inline
markup is dropped. Anchors become `Link`s, their targets read for a rule number where they name
one (`#r601.2a`, `rules.html#704.5k`), and their text stays in the rule text. Scripts,
styles and the page head carry no document text: they are counted in a diagnostic, not read.

Source lines are the lines of the extracted text (`crparse text` prints them).

The tree is walked once, with an explicit stack: a saved page can nest 100,000 elements (the
recursion limit is 1,000) or hold a `<br>` on every line, and any pass per element over its
subtree (`find_all`, `get_text`, inserting markers) makes those quadratic. bs4 itself walks up
the open elements for each string it adds, which tags left open (`<b>` x 35,000) made quadratic
too: that walk, a no-op while the tree is built, is left out (`_soup_class`).
"""

from __future__ import annotations

import codecs
import logging
import re
import warnings
from contextlib import contextmanager
from functools import cache
from html.entities import html5 as html5_entities
from html.parser import HTMLParser, attrfind_tolerant, tagfind_tolerant

from crparse.errors import RefusedInput
from crparse.nodes import Diagnostic, Link
from crparse.readers.base import Extract, said
from crparse.readers.detect import wide_encoding
from crparse.readers.links import link_to_rule

_BLOCKS = frozenset(
    "address article aside blockquote body dd details div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)
_NOT_TEXT = frozenset(("script", "style", "head", "noscript", "template", "svg"))
# Elements whose text runs to their first end tag, markup and all: html.parser's, and a
# <noscript>, as a browser with scripts on reads it (_noscript_as_text).
_RAW_TEXT = ("script", "style", "noscript")
_CLOSE = object()  # stack entry: the element under it on the stack has ended
_CLOSE_CONCEALED = object()  # the same, of an element hidden by its attributes
# Elements whose end tag may be left out, ended by the next block (html.parser nests the rest in them).
_ENDED_BY_A_BLOCK = frozenset(("p", "li", "dt", "dd"))


# Building bs4's tree costs ~25 us an element: a million `<br>` in 4 MB took 28 s (240,000, 11 s). A CR page has
# a few tens of thousands of elements (every line a paragraph, some spans and anchors).
MAX_HTML_TAGS = 150_000


def _check_tags(tags: int) -> None:
    if tags > MAX_HTML_TAGS:
        raise RefusedInput(
            f"HTML with {tags:,} tags, more than the {MAX_HTML_TAGS:,} a rules page has (MAX_HTML_TAGS): "
            "not read, to stay within time"
        )


# html.parser finds a start tag's end with one regular expression, which holds 500-800 bytes for each
# attribute until it reaches it (a `<p>` of 1.95 million bare attributes, 3.9 MB, took 1 GiB and 9 s), and bs4
# keeps each in its element's dictionary. A CR page has one or two on some elements (the 2026 release
# with a class, an id and a flag on each paragraph: 16,000); 300,000 in one tag take ~240 MiB.
MAX_HTML_ATTRIBUTES = 300_000


# Codecs a page may declare that no page is written in, whose Python decoders are quadratic: punycode
# inserts each character by slicing, idna runs it over a label before checking its length (3 MB
# of either: over a minute). bs4 honours any codec Python has; these fall back to UTF-8 / cp1252.
# So do Python's other text codecs of its own that are transforms, not charsets (its "Python
# Specific Encodings" but the Windows code pages and palmos): unicode_escape rewrote a page's
# backslashes ("C:\new\x41" read as "C:", a line break, "ewA": sweep 24), undefined decodes nothing;
# and its codecs that are no text encoding at all (base64, rot13, zlib...: codecs.lookup knows them).
_NOT_PAGE_ENCODINGS = ["punycode", "idna", "unicode_escape", "raw_unicode_escape", "undefined"]
_NOT_PAGE_CODECS = frozenset(codecs.lookup(name).name for name in _NOT_PAGE_ENCODINGS)  # "unicode-escape"


_ASCII_DECLARATION = b'<meta charset="">'


# A browser looks for a page's charset declaration in its first 1,024 bytes, passing over comments
# (WHATWG HTML, "prescan a byte stream to determine its encoding"); bs4 looks in the first 2,048
# bytes or 5% of the page, comments and all: a UTF-8 page was read as koi8-r, without a word, for
# a `<!-- <meta charset="koi8-r"> -->` or a `<meta charset>` at the end of its text (sweep 24). A
# comment runs from "<!--" to the first "-->" ("<!-->" is one), or to the end of what is looked at.
_PRESCAN_BYTES = 1024
_PRESCAN_COMMENT = re.compile(rb"<!(?=--).*?(?:-->|\Z)", re.DOTALL)


def _declarations(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """The charset the page declares (lowercased, as bs4 finds a `<meta>` or an XML declaration):
    where a browser looks for it; else the one outside comments further on, where bs4 looks
    (a browser with nothing declared would guess, or change to it when its parser meets it: it is
    tried after UTF-8); and the one bs4 would read the page in if it is neither (in a comment)."""
    found = declared_charset(raw, is_html=True)
    if found is None:
        return None, None, None

    def outside_comments(end: int) -> str | None:
        window = _PRESCAN_COMMENT.sub(b" ", raw[:end])
        return declared_charset(window, is_html=True, search_entire_document=True)

    prescanned = outside_comments(_PRESCAN_BYTES)
    late = None if prescanned else outside_comments(max(2048, len(raw) // 20))  # bs4's window
    return prescanned, late, (found if found not in (prescanned, late) else None)


# bs4's patterns for a declared charset, its EncodingDetector.find_declared_encoding's, backtrack:
# `<\s*meta[^>]+charset` runs from each "<meta" to the next ">" and back (100,000 "<meta x" before
# 3 MB of text: 24 s), and the XML declaration's `^\s*<\?.*encoding=...` is cubic on one long line
# searched whole (review). The same matches are found here: an XML declaration within its first
# 1,024 bytes; else, in one pass, the first "<meta" that has "charset=" after it before its ">".
_META_START = re.compile(rb"<\s*meta", re.IGNORECASE)
_CHARSET = re.compile(rb"charset\s*=", re.IGNORECASE)
_CHARSET_VALUE = re.compile(rb"\s*[\"']?([^>]*?)[ /;'\">]")


def _charset_value(markup: bytes, start: int, stop: int, end: int) -> bytes | None:
    """The value bs4's `[^>]+charset\\s*=\\s*["']?([^>]*?)[ /;'">]` takes after a "<meta" whose tag
    runs from `start` to `stop` (its ">", or `end`): `[^>]+` is greedy, so the last "charset=" that
    a terminator follows; the value after it is then bs4's pattern's, which costs at most the tag."""
    last = max(markup.rfind(t, start, min(stop + 1, end)) for t in (b" ", b"/", b";", b"'", b'"', b">"))
    for charset in reversed(list(_CHARSET.finditer(markup, start, stop))):
        if charset.end() <= last:
            return _CHARSET_VALUE.match(markup, charset.end(), end)[1]
    return None


def declared_charset(markup: bytes, is_html: bool = False, search_entire_document: bool = False) -> str | None:
    """The charset `markup` declares, as bs4's EncodingDetector.find_declared_encoding finds it
    (where it looks, what it matches, lowercased), in linear time; it stands in for bs4's while a
    page is decoded (_no_guessing). `search_entire_document` widens the search for a `<meta>`."""
    if isinstance(markup, str):  # bs4 calls it with text too: the declaration is ASCII either way
        markup = markup.encode("utf-8", "surrogatepass")
    from bs4.dammit import encoding_res

    # bs4's own pattern, where an XML declaration is whatever the window: in 1,024 bytes its cost is small
    xml = encoding_res[bytes]["xml"].search(markup, endpos=1024)
    if xml is not None:
        return xml[1].decode("ascii", "replace").lower() or None
    if not is_html:
        return None
    end = len(markup) if search_entire_document else max(2048, int(len(markup) * 0.05))
    at = 0
    while at < end:  # one tag's stretch (up to its ">") at a time: the first "<meta" in it is the leftmost
        close = markup.find(b">", at, end)
        stop = end if close < 0 else close
        meta = _META_START.search(markup, at, stop)
        if meta is not None:
            value = _charset_value(markup, meta.end() + 1, stop, end)
            if value is not None:  # bs4's leftmost match, even of nothing (`charset=""`: no charset)
                return value.decode("ascii", "replace").lower() or None
        if close < 0:
            break
        at = close + 1
    return None


def _declared_wrongly(declared: str | None) -> tuple[str, str] | None:
    """The page's declared charset, as written, and why it is not read so: one of Python's own
    transforms (punycode, idna, unicode_escape, base64...) by any spelling ("id-na": bs4 finds
    the codec with the dashes taken out); or a charset in which the
    declaration itself, found in ASCII bytes, is not ASCII (UTF-16 or -32, EBCDIC: a UTF-8 page
    declaring one was refused as having no rules, sweep 19; HTML's own rule reads a declared
    UTF-16 as UTF-8)."""
    if not declared:
        return None
    for spelling in (declared, declared.replace("-", ""), declared.replace("-", "_")):
        try:
            codec = codecs.lookup(spelling)
        except ValueError:  # a NUL in the name: no codec, and bs4 would fail on it (sweep 18)
            return declared.lower(), "which names no charset"
        except LookupError:
            continue
        if codec.name in _NOT_PAGE_CODECS or not getattr(codec, "_is_text_encoding", True):
            return declared.lower(), "which no page is written in"
        try:
            ascii_kept = _ASCII_DECLARATION.decode(codec.name) == _ASCII_DECLARATION.decode("ascii")
        except (UnicodeError, LookupError, TypeError, ValueError):  # a codec of bytes to bytes, or none
            ascii_kept = False
        if not ascii_kept:
            return declared.lower(), "in which its own declaration, written in ASCII, would not be"
        return None
    return None


def _another_codec(dammit, declared: str, read_as: str) -> bool:
    """Whether `declared`, not believed, names a charset bs4 would have read the page in (a codec
    it finds, no Python transform) other than the one it is read in."""
    codec = dammit.find_codec(declared)
    if codec is None or _declared_wrongly(declared):
        return False
    return codecs.lookup(codec).name != codecs.lookup(read_as).name


@contextmanager
def _no_guessing():
    """bs4 guesses an encoding with whichever detector happens to be installed (chardet,
    charset-normalizer: Sphinx brings the latter) before its own fallbacks: the same bytes would
    read differently, and undecodable bytes pass unnoticed, depending on the machine. Without a
    detector, they are the declared encoding, UTF-8 or windows-1252, and bytes none of them
    decodes are replaced and said (a diagnostic)."""
    import bs4.dammit

    detector = getattr(bs4.dammit, "chardet_module", None)
    finder = bs4.dammit.EncodingDetector.__dict__["find_declared_encoding"]
    bs4.dammit.chardet_module = None
    bs4.dammit.EncodingDetector.find_declared_encoding = staticmethod(declared_charset)  # linear (see there)
    try:
        yield
    finally:
        bs4.dammit.chardet_module = detector
        bs4.dammit.EncodingDetector.find_declared_encoding = finder


def _wide_replaced(raw: bytes, wide: tuple[str, int] | None) -> tuple[bytes, int]:
    """A UTF-16 or UTF-32 page with what does not decode (a lone surrogate half) replaced, and how
    much was: bs4 tried the codec strictly, and then 8-bit ones, and the page was read as
    "<\\0!\\0D\\0", refused as having no rules (sweep 28)."""
    if wide is None:
        return raw, 0
    codec, bom = wide
    try:
        raw[bom:].decode(codec)
    except UnicodeDecodeError:
        text = raw[bom:].decode(codec, "replace")
        replaced = text.count("\ufffd") - raw[bom:].decode(codec, "ignore").count("\ufffd")
        return raw[:bom] + text.encode(codec), replaced
    return raw, 0


def _double_byte_page(raw: bytes) -> tuple[str, str] | None:
    """The double-byte code page of a page that is not UTF-8, and its text as read in it
    (crparse.decode.detect.double_byte: a few bytes that are not may be read as U+FFFD)."""
    from crparse.decode.detect import double_byte

    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return double_byte(raw)
    return None


def read(raw: bytes, path: str | None = None) -> Extract:
    _check_tags(raw.count(b"<"))  # before the bytes are decoded: counted again after
    from bs4 import UnicodeDammit

    # bs4 reports odd input (XML, a page that is only a file name, undecodable bytes) with
    # warnings and log records, which would reach stderr naming no file: they become
    # diagnostics of this document instead.
    with warnings.catch_warnings(record=True) as caught, _bs4_log() as logged:
        warnings.simplefilter("always")
        try:
            # decoded here (as bs4 would) to be defused before the parser sees it
            # UTF-16 without a BOM: bs4 would not know it without a detector
            wide = wide_encoding(raw[:4096]) if b"\x00" in raw[:4096] else None
            raw, undecodable = _wide_replaced(raw, wide)
            declared, late, commented = _declarations(raw)
            wrong = _declared_wrongly(declared or late)
            # bs4 would read the page in the charset it finds itself: it is tried as browsers would
            # (after a BOM, before bs4's own; a late one after UTF-8), or not at all (in a comment:
            # excluded, unless it is one of bs4's fallbacks, UTF-8 and windows-1252)
            tried = [declared] if declared else ["utf-8", late] if late else []
            # a page that declares none, in a Chinese, Japanese or Korean code page, was read as
            # UTF-8, every quote and dash U+FFFD (sweep 39): told as plain text is
            double = None if tried or wide else _double_byte_page(raw)
            exclude = [*_NOT_PAGE_ENCODINGS, *([wrong[0]] if wrong else []),
                       *([commented] if commented not in (None, "utf-8", "windows-1252") else [])]
            with _no_guessing():
                # its text as the detection read it: decoded again by bs4, strictly, a page with a
                # character cut short at its end was read as windows-1252 (review)
                dammit = UnicodeDammit(double[1] if double else raw, known_definite_encodings=[wide[0]] if wide else [],
                                       is_html=True, user_encodings=[] if wrong else tried, exclude_encodings=exclude)
            if dammit.unicode_markup is None:
                raise RefusedInput("cannot read this HTML file: no encoding decodes it")
            # in the page's own charset: "<" is no byte 0x3C in EBCDIC ("cp500") or UTF-7
            # ("+ADw-"), and a million tags passed the count of the bytes (sweep 17)
            _check_tags(dammit.unicode_markup.count("<"))
            markup, past_unicode = shorten_references(_defused(dammit.unicode_markup))
            _count_attributes(markup)
            markup, unclosed = _closed_where_the_page_starts(markup)
            soup = _soup_class()(_noscript_as_text(markup), "html.parser")
        except RefusedInput:
            raise
        except Exception as err:  # bs4 rarely fails, but never with a traceback for the user
            raise RefusedInput(f"cannot read this HTML file: {said(err)}") from None
        walk = _Walk()
        walk.run(soup)

    diagnostics = _warnings(caught, logged)
    read_as = double[0] if double else (dammit.original_encoding or "utf-8").lower()
    if undecodable:
        diagnostics.append(Diagnostic(None, "warning", "replacement-characters",
                                      f"{undecodable:,} code unit(s) that are no {wide[0].upper()} (a lone surrogate "
                                      "half, an odd byte at the end) read as U+FFFD"))
    if double is not None:
        diagnostics.append(Diagnostic(None, "warning", "double-byte-encoding",
                                      f"the page declares no charset, and its bytes above 0x7F read as the CR's quotes "
                                      f"and dashes in {read_as}, a Chinese, Japanese or Korean code page: read so"))
    if wrong:
        diagnostics.append(Diagnostic(None, "warning", "html-charset",
                                      f"the page declares the charset {wrong[0]!r}, {wrong[1]}: read as {read_as}"))
    if not wide and dammit.detector.sniffed_encoding is None:  # else a BOM or UTF-16's NULs decided
        # (said where the page is read in a fallback: one it declares where browsers look is enough)
        if commented and not declared and _another_codec(dammit, commented, read_as):
            diagnostics.append(Diagnostic(None, "warning", "html-charset",
                                          f"the page declares the charset {commented!r} in a comment, which browsers "
                                          f"pass over: not believed, read as {read_as}"))
        if late and not wrong and _another_codec(dammit, late, read_as):
            diagnostics.append(Diagnostic(None, "warning", "html-charset",
                                          f"the page declares the charset {late!r} past its first {_PRESCAN_BYTES:,} "
                                          "bytes, where browsers do not look for it: tried after UTF-8, read as "
                                          f"{read_as}"))
    if past_unicode:
        diagnostics.append(
            Diagnostic(None, "warning", "html-warning",
                       f"{past_unicode} numeric character reference(s) past U+10FFFF (&# and 8 digits or more): "
                       "read as U+FFFD"))
    if unclosed:
        diagnostics.append(Diagnostic(None, "warning", "html-not-text",
                                      f"{', '.join(f'<{name}>' for name in unclosed)} never closed: the rest of the "
                                      "page would be its content, not read; it is read as the page from where the "
                                      "page's text starts (a rule number, paragraphs' markup, <body>)"))
    if walk.swallowed:
        # an unclosed <script> or <style> runs to the end of the page: the rules after it were
        # left out under an info line (sweep 18)
        diagnostics.append(
            Diagnostic(None, "warning", "html-not-text",
                       f"{len(walk.swallowed)} {walk.swallowed[0]} element(s) hold what reads as the page's text (rule "
                       "numbers, paragraphs' markup), not read: left unclosed?"))
    if walk.commented:
        # rules commented out went without a word (sweep 20)
        diagnostics.append(
            Diagnostic(None, "warning", "html-not-text",
                       f"{walk.commented:,} comment(s), CDATA section(s), declaration(s) or processing instruction(s) "
                       "hold what reads as rules (a rule number at a line's start), not read"))
    if walk.ruby:
        diagnostics.append(Diagnostic(None, "warning", "html-not-text",
                                      f"{walk.ruby:,} ruby annotation(s) (<rt>) not read"))
    if walk.concealed:
        holding = f", {walk.concealed_rules:,} of them holding what reads as rules" if walk.concealed_rules else ""
        diagnostics.append(Diagnostic(None, "warning" if walk.concealed_rules else "info", "html-not-text",
                                      f"{walk.concealed:,} element(s) hidden by their attributes (hidden, display:none, "
                                      f"visibility:hidden) not read, as a browser shows none{holding}"))
    if walk.attributed:
        diagnostics.append(Diagnostic(None, "warning", "html-not-text",
                                      f"{walk.attributed:,} attribute value(s) (a title, an alt) hold what reads as "
                                      "rules (a rule number at a line's start), not read"))
    if walk.quoted:
        diagnostics.append(Diagnostic(None, "warning", "html-not-text",
                                      f"{walk.quoted:,} attribute value(s) hold markup (< and >), not read: a quote "
                                      "left open makes the text after it, up to the next quote, an attribute's"))
    if walk.dropped:
        diagnostics.append(
            Diagnostic(None, "info", "html-not-text", f"{walk.dropped} script, style or head element(s) skipped"))
    return Extract(
        format="html",
        lines=walk.lines,
        encoding=read_as,
        line_endings="none",
        diagnostics=diagnostics,
        links=walk.links(),
    )


# Python's html.parser before 3.12.11 and 3.13.4 (gh-135462) rescans the rest of the input for
# each construct left open at its end (`<a` after the last `>`, a comment without `-->`, a
# marked section without `]]>`), so 20,000 of them take seconds. It then reads each as text;
# they are handed to it as text (`&lt;`) instead, which it reads in one pass. So is a `<![`
# that opens no marked section it knows, for which it rejects the whole page.
_OPENERS = (
    (re.compile(r"<!--"), re.compile(r"--\s*>")),
    (re.compile(r"<!\[(?:cdata|temp|ignore|include|rcdata)(?![-_.a-z0-9])", re.IGNORECASE), re.compile(r"]\s*]\s*>")),
    (re.compile(r"<!\[(?:if|else|endif)(?![-_.a-z0-9])", re.IGNORECASE), re.compile(r"]\s*>")),
)
_MARKED = re.compile(r"<!\[(?!(?:cdata|temp|ignore|include|rcdata|if|else|endif)(?![-_.a-z0-9]))", re.IGNORECASE)
# bs4's html.parser builder notes each void element written without a slash (`<br>`) in a list
# that every end tag then searches: a `<br>` on every line and an end tag on every line make
# it quadratic. Written `<br/>`, the same element takes the other path, which notes nothing.
_VOID = (
    "area base basefont bgsound br col command embed frame hr image img input isindex keygen link menuitem meta "
    "nextid param source spacer track wbr"
).split()
_VOID_TAG = re.compile(r"<(" + "|".join(_VOID) + r")(?=[\s/>])([^<>]*?)/?>", re.IGNORECASE)


def _defused(text: str) -> str:
    last = text.rfind(">")
    at = [m.start() for m in _MARKED.finditer(text, 0, last + 1)]
    for opener, closer in _OPENERS:
        closed = 0
        for closed_at in closer.finditer(text):
            closed = closed_at.end()
        at += [m.start() for m in opener.finditer(text, closed, last + 1)]
    pieces, start = [], 0
    for n in sorted(set(at)):
        pieces.append(text[start:n])
        pieces.append("&lt;")
        start = n + 1
    pieces.append(text[start : last + 1])
    pieces.append(text[last + 1 :].replace("<", "&lt;"))
    return _VOID_TAG.sub(r"<\1\2/>", "".join(pieces))


# Whitespace as html.parser's patterns mean it (\s of a str pattern), a slash and the quotes: one of them comes
# before each attribute's name, so their count bounds the attributes of a page.
_BEFORE_NAME = [c for c in map(chr, range(0x3001)) if re.match(r"\s", c)] + ["/", "'", '"']


def _count_attributes(markup: str) -> None:
    """Refuse a page with more than MAX_HTML_ATTRIBUTES attributes, counted as html.parser will
    read them, each tag's before the parser matches the tag (see MAX_HTML_ATTRIBUTES)."""
    if sum(map(markup.count, _BEFORE_NAME)) <= MAX_HTML_ATTRIBUTES:
        return  # no page this short in separators can hold more: spared the second tokenizing
    counter = _Attributes()
    try:
        counter.feed(markup)
        counter.close()
    except RefusedInput:
        raise
    except Exception:  # noqa: BLE001 - the tokenizer fails where bs4's will, which reports it
        pass


class _Attributes(HTMLParser):
    """html.parser's tokenizer, where a start tag's attributes are counted one at a time, as
    html.parser's parse_starttag reads them, before its pattern for the whole tag runs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.count = 0

    def check_for_whole_start_tag(self, i: int) -> int:
        rawdata = self.rawdata
        name = tagfind_tolerant.match(rawdata, i + 1)
        at = name.end() if name else len(rawdata)
        while (attribute := attrfind_tolerant.match(rawdata, at)) and attribute.end() > at:
            self.count += 1
            if self.count > MAX_HTML_ATTRIBUTES:
                raise RefusedInput(
                    f"HTML with more than {MAX_HTML_ATTRIBUTES:,} attributes, more than a rules page has "
                    "(MAX_HTML_ATTRIBUTES): not read, to stay within memory"
                )
            at = attribute.end()
        return super().check_for_whole_start_tag(i)


class _NoscriptText(HTMLParser):
    """html.parser's tokenizer, reading a <noscript> as raw text, as a browser with scripts on
    does: where the text of each lies in the markup (its tags taken where a tag can start: not in
    a script, a comment or an attribute)."""

    # and the elements whose text a browser reads as text, markup and all: "<noscript>" in a
    # <textarea> is no tag
    CDATA_CONTENT_ELEMENTS = (*_RAW_TEXT, "textarea", "title", "xmp", "iframe", "noembed", "noframes")

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0] + [m.end() for m in re.finditer("\n", markup)]
        self.spans: list[tuple[int, int]] = []
        self._opened: int | None = None

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "noscript" and self._opened is None:
            self._opened = self._offset() + len(self.get_starttag_text() or "")

    def handle_endtag(self, tag) -> None:
        if tag == "noscript" and self._opened is not None:
            self.spans.append((self._opened, self._offset()))
            self._opened = None


def _noscript_as_text(markup: str) -> str:
    """The markup with the text of each <noscript> escaped (`<` as `&lt;`): bs4's html.parser
    nests elements in one, and an end tag inside a comment, an attribute or a CDATA section in it
    (`<noscript><!--</noscript>-->`) held the rest of the page, not read (sweep 38). Found by a
    tokenizer, not a pattern: "<noscript" in a script, a comment or an attribute is none, and a
    pattern's escaping took pages' rules (review)."""
    if _NOSCRIPT.search(markup) is None:
        return markup
    tokens = _NoscriptText(markup)
    try:
        tokens.feed(markup)
        tokens.close()
    except Exception:  # noqa: BLE001 - the tokenizer fails where bs4's will, which reports it
        return markup
    pieces, done = [], 0
    for start, end in tokens.spans:
        pieces += [markup[done:start], markup[start:end].replace("<", "&lt;")]
        done = end
    return "".join(pieces) + markup[done:]


_NOSCRIPT = re.compile(r"<noscript(?=[\s/>])", re.I | re.A)


@cache
def _soup_class():
    """BeautifulSoup, with its `_linkage_fixer` made linear for the html.parser builder.

    bs4 runs `_linkage_fixer` on the element a string is added to, when that element already
    holds something, and it walks from there up to the root looking for an ancestor with a next
    sibling. While html.parser builds the tree, every string goes to the innermost open element,
    and it and all its ancestors are open, each the last child of its parent: there is none, and
    the walk changes nothing. But its length is the depth of open elements, once for each string,
    so unclosed tags (`<b>` x 35,000, then 2,740 rules in `<p>`, 730 KB) took 16 s; 70,000 took 35 s.
    Here the walk is left out for that element; elsewhere (no such call today) bs4's runs."""
    from bs4 import BeautifulSoup, Tag

    class Soup(BeautifulSoup):
        def _linkage_fixer(self, el) -> None:
            if el is not self.currentTag:
                return super()._linkage_fixer(el)
            # bs4's own steps (4.12 to 4.15), up to the walk
            first, child = el.contents[0], el.contents[-1]
            if child is first and el.parent is not None:
                el.next_element = child
                before = child.previous_element
                if before is not None and before is not el:
                    before.next_element = None
                child.previous_element = el
                child.previous_sibling = None
            child.next_sibling = None
            last = child._last_descendant(False) if isinstance(child, Tag) and child.contents else child
            last.next_element = None
            last.next_sibling = None

    return Soup


# A decimal reference's digits become an int (bs4 in text, html.unescape in an attribute), which Python
# refuses past 4,300 digits, failing the whole page. Any of 8 digits or more but leading zeros is past
# U+10FFFF, which both read as U+FFFD: it is written as the smallest such number, still decimal (a hex
# letter after it stays out of the reference).
_LONG_REFERENCE = re.compile(r"&#([0-9]{8,})")
_PAST_UNICODE = str(0x110000)
# A "&#" that starts no reference (no digit after it) is text to a browser, and a decimal one
# without its ";" ends at the first character that is no digit ("&#8212and" is "—and").
# html.parser, as bs4 runs it, knows neither: it waits for a ";", and with none left in the page
# read the rest as one text, its tags and rules in it (sweep 37; a decimal one before a letter a-f,
# sweep 38). They are written as a browser reads them.
_NO_REFERENCE = re.compile(r"&#(?![0-9]|[xX][0-9a-fA-F])")
_DECIMAL_BEFORE_HEX_LETTER = re.compile(r"(&#[0-9]+)(?=[a-fA-F])")


# A named reference a browser reads without its ";" (HTML's legacy ones: "&nbsp", "&amp") is
# ended there by it, even before a letter ("&nbspEach" is " Each"); html.parser read the name on,
# found none, and kept "&nbspEach" as text: the rule it numbered ran into the one before (sweep 40).
_NAMED = re.compile(r"&([A-Za-z][-.A-Za-z0-9]*+)(;?)")
_LEGACY_NAMES = frozenset(name for name in html5_entities if not name.endswith(";"))


def _legacy_ended(match: re.Match) -> str:
    name, semicolon = match[1], match[2]
    if semicolon and name + ";" in html5_entities or not semicolon and name in _LEGACY_NAMES:
        return match[0]
    for length in range(min(len(name), 6), 1, -1):  # the longest legacy name first, as a browser
        if name[:length] in _LEGACY_NAMES:
            return f"&{name[:length]};{name[length:]}{semicolon}"
    # no reference at all: its text as written (bs4 wrote "&foo;" as "&foo", losing the ";": sweep 41)
    return f"&amp;{name}{semicolon}" if semicolon else match[0]


def shorten_references(text: str) -> tuple[str, int]:
    """`text` with its long decimal references shortened, and how many were past U+10FFFF; a
    "&#" that starts no reference written `&amp;#`, a decimal one before a letter a-f ended, and a
    legacy named one without its ";" ended."""
    text = _NO_REFERENCE.sub("&amp;#", text)
    if "&" in text:
        text = _NAMED.sub(_legacy_ended, text)
    past = 0

    def shortened(match: re.Match) -> str:
        nonlocal past
        digits = match[1].lstrip("0") or "0"
        if len(digits) > 7:
            past += 1
            digits = _PAST_UNICODE
        return "&#" + digits

    return _DECIMAL_BEFORE_HEX_LETTER.sub(r"\1;", _LONG_REFERENCE.sub(shortened, text)), past


# What in a skipped element reads as the page's own text: a rule number at a line's start, or the
# markup of paragraphs (a script or style holds its text as it is written)
_TAG_TEXT = re.compile(r"<[^<>]*+>")
_READS_AS_PAGE = re.compile(r"(?m)^[ \t]*\d{3}\.\d+[a-z]?\.? |<(?:p|div|br|li|h[1-6])\b", re.I)


# What reads as a rule in markup a page does not show (a comment, a processing instruction, a
# declaration): a rule or section number at its start or a line's start, after spaces, tags, list or
# emphasis marks ("<!--\n<p>102.1. ...</p>\n-->" is a page commented out). The number may be wrapped in markup, before and after it: tags
# ("<b>100.1b</b> ..."), an IE conditional comment's "[if IE]>", Markdown's emphasis, code spans and
# links ("[100.1b](#r100.1b) ..."); a rule so wrapped went without a word (sweep 24)
_SPACE = r"(?:[ \t\xa0]|&(?:nbsp|#160|#[xX]0*[aA]0);)"
_TAG = r"<[^<>\n]{0,200}>"
# Possessive (`*+`), each alternative before those that take a prefix of it ("[if IE]" before
# "["): a run of marks kept a frame of the regex engine for each, 150 times the input's size in
# memory for a comment of "- " * 2,000,000 (sweep 28); nothing after a run is in it to give back.
# ... and another construct's opening: `<!-- <!-- 100.40. ... -->` went without a word (sweep 39)
_BEFORE_NUMBER = rf"(?:\[if\b[^\]\n]{{0,200}}\]|<!--|<!\[CDATA\[|[>#*_+~`\[-]|{_SPACE}|{_TAG})*+"
_NUMBER = (r"\d{3}(?:\.\d+[a-z]?\.?|\.)"
           rf"(?:{_TAG}|\]\([^()\n]{{0,200}}\)|\]\[[^\[\]\n]{{0,200}}\]|[*_~`\]])*+{_SPACE}")
_RULE_AT = re.compile(rf"{_BEFORE_NUMBER}{_NUMBER}")  # none of its pieces runs past a line's end
_RULE_LINE = re.compile(rf"(?m)^{_BEFORE_NUMBER}{_NUMBER}")
_CANDIDATE = re.compile(r"\d{3}\.")


def holds_rule(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether text[start:end] (a construct's content, from right after its opening) holds what reads
    as a rule at its start or a line's start. Tried at those places only: a pattern tried also after
    each "<?" or "<!--" inside the text ran from each to the line's end (`<?>` * 16,000 in a comment,
    48 KB: 8.3 s; review of sweep 24)."""
    end = len(text) if end is None else end
    # each line's start by the pattern's own `^` (a loop in Python over 240 comments of 1 MiB of line
    # breaks in a DOCX took 17 s: sweep 26), and only in text holding what every rule or section
    # number has, "ddd.", which is found far faster than a line is tried
    if _RULE_AT.match(text, start, end):
        return True
    return _CANDIDATE.search(text, start, end) is not None and _RULE_LINE.search(text, start, end) is not None


# ... and after the first word, the target of a processing instruction or the name in a bogus
# declaration (`<?php 102.1. ...?>`, `<!x 102.1. ...>`, which html.parser makes a comment of)
# (the spaces after the word taken at once, `++`: _BEFORE_NUMBER takes spaces too, and the two split a
# run of 40,000 spaces every way, 30 s: sweep 25)
_AFTER_A_WORD = re.compile(rf"\A[ \t\xa0]*+[A-Za-z][\w.:-]{{0,40}}+[ \t\xa0]++{_BEFORE_NUMBER}{_NUMBER}")
# ... and, where a skipped element is left open, where the page starts again: also its body, a rule
# or section number right after a tag (a page on one line), or a block of sections or tables
_PAGE_STARTS = re.compile(_READS_AS_PAGE.pattern + r"|<body\b|>[ \t]*\d{3}\.(?:\d+[a-z]?\.?)?[ \t]"
                          r"|<(?:section|article|main|table)\b", re.I | re.M)


@cache
def _raw_text_end(name: str) -> re.Pattern:
    """What ends a script's or style's text for html.parser, as this Python's has it: Python
    3.11's wants `</script>` (spaces allowed) where a browser takes `</script/>` and `</script x>`
    too, and a script ended so held the rest of the page, read as no text at all (sweep 28)."""
    parser = HTMLParser()
    parser.set_cdata_mode(name)
    # ASCII case only: html.parser lowercases the name it finds, and "ſcript" (U+017F, a long s,
    # which re.I folds to "s") is no script's end there (sweep 29)
    return re.compile(parser.interesting.pattern, (parser.interesting.flags & ~re.UNICODE) | re.ASCII)


def _unclosed(markup: str, name: str) -> tuple[int, int] | None:
    """Where the outermost element `name` that no end tag closes opens in the markup, and how many
    are left open inside it and with it (one end tag closed the outermost only: a `<noscript>`
    in another, both unclosed, still held the page: sweep 26), or None. A script's or style's text runs to the first end tag: one opened after the last end
    tag is unclosed. Other elements nest: an unclosed <noscript> before a closed one was missed
    when only the last end tag was looked at (sweep 22). One pass over their tags, in the markup
    itself: offsets into its lowercased copy were off after each "İ", which lowercases to two
    characters (sweep 23)."""
    if name in _RAW_TEXT:
        last = max((m.end() for m in _raw_text_end(name).finditer(markup)), default=0)
        opened = re.compile(f"<{name}(?=[\\s/>])", re.I | re.A).search(markup, last)
        return (opened.start(), 1) if opened is not None else None
    depth, outer = 0, None
    for tag in re.finditer(f"<(/?){name}(?=[\\s/>])", markup, re.I | re.A):  # ASCII case, as html.parser
        if tag[1]:
            depth = max(depth - 1, 0)
            continue
        end = markup.find(">", tag.end(), tag.end() + 4096)  # bounded: a flood of "<svg" is not quadratic
        if end > 0 and markup[end - 1] == "/":  # <svg/>: opened and closed
            continue
        if depth == 0:
            outer = tag.start()
        depth += 1
    return (outer, depth) if depth and outer is not None else None


def _closed_where_the_page_starts(markup: str) -> tuple[str, list[str]]:
    """The markup with each element that is skipped (a script, style, head, noscript, template,
    svg) and never closed given its end tag where what reads as the page's text starts after it
    (a rule number at a line's start, the markup of paragraphs, `<body>`); and the names of
    those elements. html.parser holds a script's text to its end tag, and bs4 puts the rest of
    the page inside any element left open: ten rules after an unclosed `<script>` went without
    a word (sweep 18), then with a warning only, as did the rest of a page after an unclosed
    `<noscript>` or `<template>` (sweep 20); a page whose `<head>` its `<body>` does not close
    (as browsers read it) was refused as having no rules."""
    ends: list[tuple[int, int, str]] = []
    for name in sorted(_NOT_TEXT):
        found = _unclosed(markup, name)
        if found is None:
            continue
        opened, open_ones = found
        tag_end = markup.find(">", opened)
        page = _PAGE_STARTS.search(markup, tag_end + 1) if tag_end >= 0 else None
        if page is not None:
            # HTML lets a head's end tag out: the body's start ends it, said of no other element
            said = "" if name == "head" and page[0].lower().startswith("<body") else name
            ends.append((page.start(), -opened, said, open_ones))
    if not ends:
        return markup, []
    pieces, done = [], len(markup)
    for at, _, name, open_ones in sorted(ends, reverse=True):  # from the end; at one place, the inner one first
        pieces.append(markup[at:done])
        pieces.append(f"</{name or 'head'}>" * open_ones)
        done = at
    pieces.append(markup[:done])
    return "".join(reversed(pieces)), [said for _, _, said, _ in sorted(ends) if said]


_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def _concealed(attrs: dict) -> bool:
    """Whether an element's attributes hide it (and all in it) from a reader of the page."""
    if "hidden" in attrs:
        return True
    style = attrs.get("style")
    return isinstance(style, str) and ":" in style and _HIDING_STYLE.search(style) is not None


# attributes whose values are text or code, where a `>` is no sign of a quote left open
_TEXT_ATTRIBUTES = frozenset("title alt value content style placeholder label summary abbr href src action".split())


class _Walk:
    """The text of a tree as lines: a block element starts and ends a line, a `<br>` (or a line
    break inside `<pre>`) ends one, and a run of empty lines shrinks to one blank line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.dropped = 0
        self.swallowed: list[str] = []  # skipped elements whose text reads as the page's
        self.commented = 0  # comments (declarations, processing instructions) that hold what reads as rules
        self.ruby = 0  # ruby annotations (<rt>): bs4's get_text leaves them out, as this walk does
        self.attributed = 0  # attribute values (a title, an alt) that hold what reads as rules
        self.quoted = 0  # attribute values that hold markup: a quote left open swallowed the text after it
        self.concealed = 0  # elements hidden by their attributes (hidden, display:none): a browser shows none
        self.concealed_rules = 0  # those of them that hold what reads as rules
        self._pieces: list[str] = []  # the strings of the line being built
        self._filled = False  # whether a piece of that line shows any text
        # [pieces of its text, href, index of its first line]: an anchor's text is the
        # stripped strings inside it, up to its end or the next anchor (as a browser reads
        # nested anchors), so that every string belongs to one anchor at most.
        self._anchors: list[list] = []
        self._open: list | None = None

    def run(self, root) -> None:
        from bs4 import CData, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag
        from bs4.element import RubyTextString

        # as bs4's get_text: not comments, doctypes, nor the text of <rt> and <rp>; nor a CDATA
        # section, which in an HTML page (outside SVG and MathML) is a comment a browser does not
        # show: its rules were read into the page without a word (sweep 37)
        text_types = (NavigableString,)
        not_shown = (Comment, ProcessingInstruction, Declaration, Doctype, CData)
        hidden = 0  # inside a script, style or head: nothing is read
        pre = 0  # inside <pre>: line breaks are kept
        stack: list = [root]
        while stack:
            node = stack.pop()
            if node is _CLOSE_CONCEALED:
                stack.pop()
                hidden -= 1
                continue
            if node is _CLOSE:
                tag = stack.pop()
                name = tag.name
                if name in _NOT_TEXT:
                    hidden -= 1
                elif not hidden:
                    if name in _BLOCKS:
                        self._end_line()
                    if name == "pre":
                        pre -= 1
                    if self._open is not None and self._open[3] is tag:
                        self._open = None
                continue
            if isinstance(node, Tag):
                name = node.name
                if name in _NOT_TEXT:
                    self.dropped += 1  # nested ones too: each was an element the page held
                    if not hidden:  # the outermost only: the text of each of 10,000 nested <svg>, 60 KB, took 13 s
                        text = "".join(str(d) for d in node.descendants if isinstance(d, NavigableString))  # a script's
                        if name == "noscript":  # its markup is its text (_noscript_as_text): looked at as elements
                            text = _TAG_TEXT.sub(" ", text)
                        if _READS_AS_PAGE.search(text):
                            self.swallowed.append(name)
                    hidden += 1
                elif not hidden and node.attrs and _concealed(node.attrs):
                    # read into the rules as shown (sweep 33), as RTF's \v and DOCX's w:vanish were;
                    # one holding rules is warned of (a collapsed section of a page: review)
                    self.concealed += 1
                    inside, after = node.contents, []
                    if name in _ENDED_BY_A_BLOCK:
                        # a <p> (<li>, <dt>, <dd>) whose end tag is left out ends where a block
                        # starts, in a browser; the parser put the rest of the page in it, hidden
                        # (sweep 35): what follows it is read
                        cut = next((i for i, child in enumerate(inside)
                                    if isinstance(child, Tag) and child.name in _BLOCKS), None)
                        if cut is not None:
                            inside, after = inside[:cut], inside[cut:]
                    if holds_rule("\n".join(s for child in inside for s in (
                            child.stripped_strings if isinstance(child, Tag) else [str(child).strip()]) if s)):
                        self.concealed_rules += 1
                    if name in _BLOCKS:
                        self._end_line()
                    hidden += 1
                    stack.extend(reversed(after))
                    stack.append(node)
                    stack.append(_CLOSE_CONCEALED)
                    stack.extend(reversed(inside))
                    continue
                elif not hidden:
                    if node.attrs:
                        self._attributes(node.attrs)
                    if name in _BLOCKS:
                        self._end_line()
                    if name == "br":
                        self._end_line()
                    elif name == "pre":
                        pre += 1
                    elif name == "a" and node.has_attr("href"):
                        self._open = [[], str(node.get("href") or ""), None, node]
                        self._anchors.append(self._open)
                stack.append(node)
                stack.append(_CLOSE)
                stack.extend(reversed(node.contents))
            elif not hidden and type(node) in text_types:
                self._text(str(node), pre > 0)
            elif not hidden and type(node) in not_shown and (holds_rule(node) or _AFTER_A_WORD.match(node)):
                self.commented += 1
            elif not hidden and type(node) is RubyTextString and node.strip():
                self.ruby += 1
        self._end_line()
        while self.lines and not self.lines[-1]:
            self.lines.pop()

    def _attributes(self, attrs: dict) -> None:
        """Count the attribute values whose text is lost: a rule in a title or an alt, and text
        after a quote left open (`<span class="x>every game ...</p>`: the rest of the rule went
        into the value without a word: sweep 32). A browser shows neither."""
        for name, value in attrs.items():
            if not isinstance(value, str):  # class and other lists of words, split by bs4
                value = " ".join(value)
            # a tag's end inside a value: where `>` may be written (a script, a style, a text)
            # only with a `<` too
            if ">" in value and ("<" in value or not (name.startswith(("on", "data-")) or name in _TEXT_ATTRIBUTES)):
                self.quoted += 1
            elif len(value) > 4 and holds_rule(value):
                self.attributed += 1

    def _text(self, text: str, keep_breaks: bool) -> None:
        anchor = self._open
        if anchor is not None:
            stripped = text.strip()
            if stripped:
                anchor[0].append(stripped)
        parts = text.split("\n") if keep_breaks else (text,)
        for n, part in enumerate(parts):
            if n:
                self._end_line()
            self._pieces.append(part)
            if not self._filled and not part.isspace() and part:
                self._filled = True
            if anchor is not None and anchor[2] is None and part and not part.isspace():
                anchor[2] = len(self.lines)  # the line being built is the next one kept

    def _end_line(self) -> None:
        if self._filled:
            self.lines.append(" ".join("".join(self._pieces).split()))
        elif self.lines and self.lines[-1]:
            self.lines.append("")
        self._pieces.clear()
        self._filled = False

    def links(self) -> list[Link]:
        last = max(len(self.lines) - 1, 0)
        out = []
        at = 0  # an anchor without text: at the line of the one before it
        for pieces, href, line, _ in self._anchors:
            if line is not None:
                at = min(line, last)
            text = " ".join(pieces)
            out.append(Link(at + 1, "anchor", text, href, link_to_rule(href)))
        return out


# bs4's warning classes and log messages -> what the user is told (bs4's text addresses a programmer)
_WARNINGS = {
    "XMLParsedAsHTMLWarning": (
        "warning", "the page looks like XML, not HTML, read with an HTML parser: its text may be misplaced"),
    "MarkupResemblesLocatorWarning": (
        "warning", "the whole file looks like a file name or URL, not a page: was a link saved instead of the page?"),
    "Some characters could not be decoded": (
        "warning", "some bytes could not be decoded and were replaced with U+FFFD"),
}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def _bs4_log():
    """bs4's log records while the page is read, kept from the root logger (and so from
    Python's last-resort handler, which prints them on stderr)."""
    logger = logging.getLogger("bs4")
    handler = _Records()
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _warnings(caught: list[warnings.WarningMessage], logged: list[logging.LogRecord]) -> list[Diagnostic]:
    counts: dict[tuple[str, str], int] = {}
    told = [(w.category.__name__, str(w.message), w.category) for w in caught]
    told += [(record.getMessage(), record.getMessage(), None) for record in logged]
    for kind, text, category in told:
        known = next((v for k, v in _WARNINGS.items() if kind.startswith(k)), None)
        if known is not None:
            severity, message = known
        else:
            # a library's deprecation is about crparse's code, not about the document
            deprecated = category is not None and issubclass(
                category, (DeprecationWarning, PendingDeprecationWarning))
            severity = "info" if deprecated else "warning"
            message = f"the HTML parser warned: {' '.join(text.split())[:200]}"
        counts[(severity, message)] = counts.get((severity, message), 0) + 1
    return [
        Diagnostic(None, severity, "html-warning", message if n == 1 else f"{message} ({n} times)")
        for (severity, message), n in counts.items()
    ]
