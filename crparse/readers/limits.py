"""Limits on what the DOCX and PDF readers inflate, so that a small file cannot expand into
gigabytes (a decompression bomb: 2 MB of deflate data can inflate to 2 GB).

A DOCX is a ZIP archive, and a PDF keeps its pages, fonts and object tables in Flate (zlib)
streams. python-docx and PDFium inflate without a limit, and a declared size (a ZIP member's
`file_size`, a stream's `/Length`) is whatever the file says. So the readers inflate first, in
bounded chunks, counting what actually comes out, and refuse the file as soon as the count
passes a limit, before the library sees it:

- `MAX_INFLATED`, 256 MiB (CRPARSE_MAX_INFLATED): what one file may inflate to, summed over
  the members of a DOCX and the streams of a PDF, so that many members or streams each under
  the limit do not add up to a bomb. The official releases inflate to 5 MB at most (a DOCX's
  members) and 10 MB (a PDF's streams).
- `MAX_PDF_STREAM`, 4 MiB (CRPARSE_MAX_PDF_STREAM): what one PDF stream may inflate to.
  PDFium holds a page's content whole, at about 100 bytes of memory per byte of dense text
  ("(x)Tj" over and over: 8 MiB of it take 860 MiB), so one page's worth must stay small;
  the largest stream of an official release is 106 KB.
- The content a PDF's pages draw, as PDFium parses it (CRPARSE_MAX_PDF_CONTENT; by default
  `PDF_CONTENT_FACTOR` (16) times the input limit: 64 MiB): a stream counts once for each page
  that shows it and a form once for each time it is drawn, through any nesting, so that one
  stream shown by thousands of pages, or forms drawing forms (10^8 drawings from 2.5 KB, and
  PDFium aborts the process when its memory runs out), do not add up to hours of work or a
  crash. It is counted in bytes of content, where what costs PDFium more than its bytes counts
  more: a page `PDF_PAGE_COST` (4 KiB), a page object (a run of text, a path, an image, a form)
  `PDF_OBJECT_COST` (32), a character `PDF_CHAR_COST` (16). PDFium takes about 0.06 us for
  such a byte: the limit is some 4 s of its time. The official releases draw 14 MiB (2010) to
  27 MiB (2026) so counted. One page may draw up to the limit for one stream (MAX_PDF_STREAM):
  PDFium holds a page's content whole, and about 230 bytes for each character of it (a page of
  4 million crashed it). The text PDFium extracts is held to the input limit, as a DOCX's is.
- `MAX_XML_ELEMENTS`, 2,000,000 (CRPARSE_MAX_XML_ELEMENTS): the elements of a DOCX's
  document.xml. Markup compresses as well as blanks do (60 KB of deflate make 2.8 million
  empty paragraphs), and reading XML costs time per element: the official releases have
  104,000 at most.
- `MAX_XML_NAMESPACE_URI`, 1,000 characters: a namespace URI declared in a DOCX's document.xml.
  lxml builds an element's name, `{URI}local`, each time it is asked for it, so an element costs
  time in proportion to its namespace's URI, declared once for all (200,000 elements in a
  namespace of 100,000 characters, a 23 KB file, took 52 s). Word's are under 100 characters.

The text a DOCX gives is held to the input size limit (crparse.limits), as the same text in a
text file would be. Set an environment variable (bytes, or with a K/M/G suffix: "1G"; a count
for the elements) to raise or lower a limit; it is read each time a file is read, a value
that is not a size is ignored (the default holds), and one past 256 TiB ("1e99", "inf") counts
as 256 TiB (crparse.limits.MAX_SETTING).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from crparse.errors import RefusedInput
from crparse.limits import max_input, setting

MAX_INFLATED = 256 * 2**20
MAX_PDF_STREAM = 4 * 2**20
MAX_XML_ELEMENTS = 2_000_000
MAX_XML_NAMESPACE_URI = 1_000
# Namespace declarations ("xmlns") in a DOCX's document.xml: lxml holds those of a start tag all at
# once, several times over (250,000 of 1,000 characters in one tag, 250 MB inflated from 1.9 MB,
# peaked at 1.1 GB: sweep 29). Word declares a few tens, on the root.
MAX_XML_NAMESPACES = 10_000
PDF_CONTENT_FACTOR = 16  # the content limit of a PDF, in times the input limit
PDF_OBJECT_COST = 32  # what a page object counts in it, in bytes of content
PDF_CHAR_COST = 16  # what a character shown counts
PDF_PAGE_COST = 4096  # what a page counts
CHUNK = 1 << 20  # inflate at most this much at a time: the most held in memory for a check


def max_inflated() -> int:
    return setting("CRPARSE_MAX_INFLATED", MAX_INFLATED)


def max_pdf_stream() -> int:
    return setting("CRPARSE_MAX_PDF_STREAM", MAX_PDF_STREAM)


def max_pdf_content() -> int:
    return setting("CRPARSE_MAX_PDF_CONTENT", PDF_CONTENT_FACTOR * max_input())


def max_xml_elements() -> int:
    return setting("CRPARSE_MAX_XML_ELEMENTS", MAX_XML_ELEMENTS)


def size(n: int) -> str:
    """256 MiB, 1.5 GiB, 300 KiB, 12 bytes: for messages."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return "1 byte" if n == 1 else f"{n} bytes"


class Budget:
    """What one file has inflated so far, against `limit` (its setting named in messages), and
    what one part of it (a ZIP member, a PDF stream) may inflate to, against `part_limit`.
    `take` counts the bytes a part gave, and refuses the file past either limit; the message
    names the part that made most of the total, or says that the sum is over."""

    def __init__(self, limit: int, parts: str, part_limit: int | None = None, part_setting: str = ""):
        self.limit = limit
        self.parts = parts  # "the members of this DOCX", for the message about a sum
        self.part_limit = part_limit
        self.part_setting = part_setting
        self.total = 0

    def take(self, n: int, part: str, part_total: int) -> None:
        """Count `n` more bytes of `part`, which has given `part_total` bytes so far."""
        self.total += n
        if self.part_limit is not None and part_total > self.part_limit:
            raise RefusedInput(
                f"{part} inflates past the {size(self.part_limit)} limit for one (a decompression bomb?): "
                f"raise it with {self.part_setting} if the file is genuine"
            )
        if self.total > self.limit:
            setting = "raise it with CRPARSE_MAX_INFLATED if the file is genuine"
            if part_total * 2 > self.total:  # the part that made most of it is the one to name
                raise RefusedInput(f"{part} inflates past the {size(self.limit)} limit (a decompression bomb?): {setting}")
            raise RefusedInput(
                f"{self.parts} inflate past the {size(self.limit)} limit in total, at {part} (a decompression bomb?): {setting}"
            )


def inflate(
    chunks: Iterable[bytes | memoryview], budget: Budget, part: str, damage: list[str] | None = None
) -> Iterator[bytes]:
    """The zlib stream at the start of `chunks`, inflated CHUNK bytes at a time and counted
    in `budget` as it comes out (never more than CHUNK beyond what was asked for).

    Stops at the end of the zlib stream, like PDFium (what follows it is not read), and where
    the data stops being zlib or runs out: what came out before counts, and `damage` (when
    given) gets a line saying what was wrong with `part`. Never raises anything but the
    budget's refusal."""
    decompressor = zlib.decompressobj()
    total = 0
    try:
        for chunk in chunks:
            data = chunk
            while data and not decompressor.eof:
                out = decompressor.decompress(data, CHUNK)
                data = decompressor.unconsumed_tail
                if out:
                    total += len(out)
                    budget.take(len(out), part, total)
                    yield out
            if decompressor.eof:
                return
        while not decompressor.eof:  # output held back by the CHUNK cap, once the input ran out
            out = decompressor.decompress(b"", CHUNK)
            if not out:
                break
            total += len(out)
            budget.take(len(out), part, total)
            yield out
    except zlib.error as err:
        problem = str(err).rpartition(": ")[2]  # "Error -3 while decompressing data: invalid ..."
        if problem == "incorrect data check":
            return  # all the data came out; only its checksum is wrong, which PDFium ignores
    else:
        if decompressor.eof:
            return
        problem = "cut short"
    if damage is not None:
        damage.append(f"{part}: {problem}")


# -- reStructuredText ---------------------------------------------------------------------------
# docutils reads plain text at ~0.7 us a byte, but its markup costs far more than its bytes: a
# paragraph, list item or heading 50-250 us, whatever it parses with a state machine of its own
# (a directive, a target, a field, a new list) about 1 ms, an inline markup character up to 300 us
# (a message for each unresolved one), a table cell ~200 us. The reST reader counts, before
# docutils runs, what each file of an edition would cost, in bytes of plain text that docutils
# reads in the same time (each line its bytes and RST_LINE_COST, each line starting a block
# RST_BLOCK_COST, ...: the costliest markup of ~70 shapes measured takes 0.35 us for each byte so
# counted), and refuses the edition past RST_WORK_FACTOR times the input limit (set in bytes with
# CRPARSE_MAX_RST_WORK). The 2011-07-15 edition counts 5.5 MiB so (its reader: 1.5-2 s); a text
# release is 1.66 times as long now.
RST_WORK_FACTOR = 2.5  # the limit, in times the input limit (crparse.limits.max_input): 10 MiB, ~4 s at most
RST_WORK_FLOOR = 2**20  # ... and never less (a toctree entry alone counts 8 KiB, as a small input limit may be)
RST_LINE_COST = 16  # a line (a flood of one-character lines: 3.7 us each), and again for each level it is nested in
RST_BLOCK_COST = 512  # a line that starts a block (paragraph, list item, heading), a simple table's cell
RST_EXPLICIT_COST = 2048  # what docutils parses with a state machine of its own (~1 ms): explicit markup
# (directive, target, comment, footnote, substitution), a field, an option, the first item of a list
RST_INLINE_COST = 768  # an inline markup character (` | * a reference's _, a URL, an address), a grid table's cell
RST_FILE_COST = 8192  # a toctree entry (docutils' setup for a file alone is ~5 ms)
RST_CLASSIFIER_COST = 64  # a term's classifier (`term : c`), ~13 us and ~1 KB of docutils' tree
# A run of spaces inside a line's text costs its square over this: docutils looks for a phrase
# reference's embedded `<target>` with a pattern that runs over the rest of the run from each of
# its spaces (10 runs of 9,920 spaces, a tab is 8, took 2.2 s: sweep 44). So the edition's budget
# holds 6 such runs, ~1.4 s, as it holds ~2 s of other markup. Runs under 64 are not looked at
# (64 bytes at most).
RST_SPACE_RUN_DIVISOR = 64
# A word (what runs between spaces) of 64 characters or more costs its length times its punctuation
# over this: docutils' pattern for standalone URIs and e-mail addresses is tried from each of a
# word's delimiters ("-", "/", "'", "{"...) and runs to its end (401 KB of lines of "a-a-a-...",
# 2,250 characters each, took 18 s: sweep 45). The edition's budget holds ~13 such lines, ~1.5 s.
RST_LONG_WORD_DIVISOR = 4
# A line costs its length times the inline markup characters of its paragraph so far over this:
# docutils looks for each start-string's end-string in the rest of the paragraph (8 paragraphs of
# 500 unmatched "`" each before 1 KB of words, 4 MB, took 23 s: sweep 46). So the edition's budget
# holds ~2 s of them. The CR's paragraphs are short, with a few markup characters.
RST_MARKUP_SCAN_DIVISOR = 8
RST_NESTED_COST = 2048  # a level of nesting opened on the line of another: `- - x`, `a. b. x` (~600 us)
# docutils recurses some ten frames for each level of nesting (block quotes, lists, directives):
# past ~150 levels Python's recursion limit is reached, and each level holds a copy of the lines
# nested in it (2,800 levels of 4 MB took 1 GiB). The 2011-07-15 edition counts 6 levels at most.
MAX_RST_NESTING = 16
# docutils' time for a paragraph's inline markup grows with its square (a reference or an unmatched
# backquote: 20,000 in one paragraph took 35 s); the 2011-07-15 edition has 64 at most in one.
MAX_RST_PARAGRAPH_MARKUP = 512
# docutils splits a block quote at each attribution (`-- Name`) and reads the rest of the quote
# again: 4,000 in one took 5.7 s and 1.15 GB for 67 KB (sweep 42). A CR has none.
MAX_RST_ATTRIBUTIONS = 300
# Each use of a custom role (`.. role:: b(a)`) calls the role it is based on, and so on down:
# 4,800 uses of one 475 bases deep took 3.3 s for 60 KB (sweep 43). A CR defines none.
MAX_RST_ROLE_BASES = 8
# Substitutions defined by others (`.. |a| replace:: |b| |b|`) multiply: 14 levels of two make
# 16,384 nodes, which docutils' substitution transform handled in 17 s (it rescans them, a square);
# each level more doubled it. Past this many substitutions in all, once expanded, the edition is
# refused. The CR's editions use none defined by another: each |T| stands for itself.
MAX_RST_SUBSTITUTIONS = 2_000
# What the uses of substitutions put in the document, each use a copy of its definition's nodes
# (counted as the definition's words: `unicode:: 0x61 0x62 ...`, `replace:: *a* *b* ...`): 2,000
# codes used 1,200 times (a 15 KB file) made 2.4 million nodes, 39 s and 1.2 GiB.
MAX_RST_SUBSTITUTION_NODES = 100_000
# ... and at most so many characters of them (or twice the file's own), whatever the words
MAX_RST_SUBSTITUTION_TEXT = 1_000_000
# The characters of file names an edition's :glob: patterns are matched against, and the class
# steps tried on the characters first met, in all (1,200 patterns over 20,000 files took 54 s;
# three patterns of 3,300 ranges against 68,000 distinct characters, 23 s: sweep 21). Past it, a
# pattern is not matched, with a warning. A real edition's globs cost a few thousand.
MAX_RST_GLOB_WORK = 3_000_000
# Rows of a csv-table (or list-table) docutils builds in full before anything is counted: 30,000
# rows took 12 s, 60,000 24 s. The CR's editions have no such table.
MAX_RST_TABLE_ROWS = 5_000
# ... and cells: a row may hold thousands, each ~2 KB of docutils' memory and ~40 us (4,000 rows of
# 100 cells, 793 KB: 17 s and 922 MB: sweep 31).
MAX_RST_TABLE_CELLS = 50_000
# Headings matched with a Contents list (difflib, worse than quadratic: 2,000 of each took 52 s):
# past this many pairs (entries x headings), the Contents is not matched (0.3 s at most; an edition
# has ~140 x 140).
MAX_RST_CONTENTS_PAIRS = 100_000


def max_rst_work() -> int:
    from crparse.limits import max_input as _max_input

    return setting("CRPARSE_MAX_RST_WORK", max(RST_WORK_FLOOR, int(RST_WORK_FACTOR * _max_input())))
