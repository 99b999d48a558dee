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
- `MAX_XML_ELEMENTS`, 2,000,000 (CRPARSE_MAX_XML_ELEMENTS): the elements of a DOCX's
  document.xml. Markup compresses as well as blanks do (60 KB of deflate make 2.8 million
  empty paragraphs), and reading XML costs time per element: the official releases have
  104,000 at most.

The text a DOCX gives is held to the input size limit (crparse.limits), as the same text in a
text file would be. Set an environment variable (bytes, or with a K/M/G suffix: "1G"; a count
for the elements) to raise or lower a limit; it is read each time a file is read, and a value
that is not a size is ignored (the default holds).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator

from crparse.errors import RefusedInput
from crparse.limits import parse_size

MAX_INFLATED = 256 * 2**20
MAX_PDF_STREAM = 4 * 2**20
MAX_XML_ELEMENTS = 2_000_000
CHUNK = 1 << 20  # inflate at most this much at a time: the most held in memory for a check


def max_inflated() -> int:
    return _setting("CRPARSE_MAX_INFLATED", MAX_INFLATED)


def max_pdf_stream() -> int:
    return _setting("CRPARSE_MAX_PDF_STREAM", MAX_PDF_STREAM)


def max_xml_elements() -> int:
    return _setting("CRPARSE_MAX_XML_ELEMENTS", MAX_XML_ELEMENTS)


def _setting(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value:
        try:
            return parse_size(value)
        except (ValueError, IndexError):
            pass
    return default


def size(n: int) -> str:
    """256 MiB, 1.5 GiB, 300 KiB, 12 bytes: for messages."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


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
