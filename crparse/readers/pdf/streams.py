"""The decompression-bomb check: every stream of a PDF decoded, for its size only, before
PDFium opens the file."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from crparse.errors import RefusedInput
from crparse.readers.limits import Budget, max_inflated, max_pdf_stream
from crparse.readers.pdf.filters import FILTER, MAX_CHAINS, decode, earlies, filter_chains, union, zlib_header
from crparse.readers.pdf.predictors import Predictor, predictors, unpredicted
from crparse.readers.pdf.syntax import (
    DELIM,
    DELIMITERS,
    EOL,
    NUMBER,
    OBJ,
    SPACE,
    WHITE,
    Objects,
    integer,
    name_pattern,
    object_number,
)

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



# The name alone, whatever follows: a trailer's entry may hold PDF white space Python's \s lacks
# (NUL) or a signed number ("/Encrypt +6 0 R"), which PDFium reads (a sweep got a bomb through so).
_ENCRYPT = re.compile(name_pattern(b"Encrypt"))


_MAX_UNCLOSED = 1000  # stream objects without "endobj" (see _unclosed): 1,000 cost PDFium ~0.1 s
_MAX_STREAMS = 50_000  # "stream" keywords taken (the 2026 release has 323 streams)


_DO = re.compile(rb"Do(?![^" + DELIM + rb"])")  # the operator that draws a form, or what ends like it
BEGIN_IMAGE = re.compile(rb"BI(?![^" + DELIM + rb"])")  # the operator that begins an inline image, or what ends like it
# The same in a stream's data, which ends at its "endstream" ("/Fm1 Doendstream" draws)
_DO_IN_DATA = re.compile(rb"Do(?:(?![^" + DELIM + rb"])|(?=endstream))")
_BI_IN_DATA = re.compile(rb"BI(?:(?![^" + DELIM + rb"])|(?=endstream))")




@dataclass(slots=True)
class StreamAt:
    """Where a stream's data starts, the filter chains it was decoded with (see decode), the
    most bytes one gave (or the data as it is, up to "endstream": a /Filter in the text before
    may be another object's), and whether "Do" (drawing a form) occurs in any."""
    start: int
    chains: list[list[str] | None]
    part: str
    size: int = 0
    draws: bool = False
    inline: bool = False  # whether "BI" (an inline image) occurs in any
    own: list[list[str] | None] | None = None  # the chains of its own dictionary, when found
    packed: list[bytes] | None = None  # an object stream's data, as each chain decoded it
    first: int = 0  # an object stream's /First
    predictors: list[Predictor] | None = None  # those its own dictionary names (see predictors.py)


def _sized(chunks: Iterable, place: StreamAt, keep: list[bytes] | None = None) -> None:
    """Count the chunks of one decoding of a stream into `place`; `keep` gets the data."""
    total, last, kept = 0, b"", []
    for chunk in chunks:
        total += len(chunk)
        if not place.draws and (_DO.search(chunk) or (last == b"D" and chunk[:1] == b"o")):
            place.draws = True
        if not place.inline and (BEGIN_IMAGE.search(chunk) or (last == b"B" and chunk[:1] == b"I")):
            place.inline = True
        last = chunk[-1:]
        if keep is not None:
            kept.append(bytes(chunk))
    place.size = max(place.size, total)
    if keep is not None:
        keep.append(b"".join(kept))


def check_streams(raw: bytes, found: dict[int, list[StreamAt]], objects: Objects) -> list[str]:
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
    _index_object_streams(raw, objects)
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
    region_end, region_chains, region_own = -1, [[]], [[]]
    seen: list[list[str] | None] = []  # every filter chain the file names, in order
    keywords = 0
    at = raw.find(b"stream")
    while at >= 0:
        end = resume = at + 6
        # A keyword before `previous` would find the same end of line, the same data.
        if (at == 0 or raw[at - 1] in DELIMITERS) and (end == len(raw) or raw[end] in DELIMITERS) and end >= previous:
            eol = EOL.search(raw, end)  # PDFium starts the data after the keyword's line
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
            number = OBJ.search(raw, max(previous, obj - 32), obj + 3) if obj >= 0 else None
            named = object_number(number[1]) if number else None
            part = f"the stream of object {named}" if named else f"the stream at byte {start}"
            chains = filter_chains(span, objects)
            if None in chains:
                # What PDFium finds there cannot be known, and a chain guessed from the data
                # (Flate while it looks like zlib) missed ASCIIHex before Flate (sweep 11).
                raise RefusedInput(
                    "a PDF /Filter refers to an object this scan cannot find (not in the file nor in its object "
                    "streams, or through references over 3 deep): the stream cannot be checked for decompression bombs",
                    line=raw.count(b"\n", 0, at) + 1,
                )
            inside = at < region_end
            if inside:
                chains = union(chains, region_chains)
            seen = union(seen, chains)
            if len(seen) > MAX_CHAINS:
                raise RefusedInput(
                    f"this PDF names over {MAX_CHAINS} different filter chains: its streams cannot all be checked for "
                    "decompression bombs",
                    line=raw.count(b"\n", 0, at) + 1,
                )
            place = StreamAt(start, chains, part)
            header = objects.header_before(at)
            # For the content check: the stream's own dictionary; an object stream's data.
            # no further back than the previous stream's data: each byte is read once (a run
            # of "stream endstream" under one header read the text since the header again
            # for each, quadratic: 40,000 took 17 s)
            dictionary = raw[max(header[1], previous) : at] if header is not None else b""
            first = _FIRST.search(dictionary) if _OBJECT_STREAM.search(dictionary) else None
            if first:
                place.packed, place.first = [], integer(first[1]) or 0
            for chain in chains:
                for early in earlies(chain):
                    _sized(decode(raw, start, chain, early, budget, part, damaged), place, place.packed)
            # Every other chain the file names, counted only: a word "stream" in a string or a
            # comment that ends with "endstream" ("(stream endstream)") hides the dictionary
            # before it from the keyword after, and no scan without PDFium's parse tells which
            # keyword is real (a damaged Flate stream is said only of its own chains).
            for chain in seen:
                # (Flate without a zlib header gives PDFium nothing: not decoded to find that out)
                if chain not in chains and not (chain and chain[0] == "flate" and not zlib_header(raw[start : start + 2])):
                    for early in earlies(chain):
                        _sized(decode(raw, start, chain, early, budget, part, []), place, place.packed)
            stop = bisect.bisect_left(ends, start)
            end = ends[stop] if stop < len(ends) else len(raw)
            region_end, region_chains = end, chains
            if header is not None and header not in unclosed and _unclosed(objects, endobjs, end):
                unclosed.add(header)
                if len(unclosed) > _MAX_UNCLOSED:
                    raise RefusedInput(
                        f"over {_MAX_UNCLOSED} stream objects with no endobj: PDFium's repair of such a file takes "
                        "time that grows with the square of their number",
                        line=raw.count(b"\n", 0, at) + 1,
                    )
            if header is not None:
                # and the data as it is, to its "endobj" or the next object: PDFium reads /Length
                # bytes, which may run past an "endstream" in the data ("% endstream" early in a
                # page: sweep 13)
                following = bisect.bisect_right(objects.starts, end)
                after = bisect.bisect_left(endobjs, end)
                stop = min(objects.starts[following] if following < len(objects.starts) else len(raw),
                           endobjs[after] if after < len(endobjs) else end)  # no endobj: to "endstream", as before
                place.size = max(place.size, stop - start)
                place.draws = place.draws or _within(draws, start, end)
                place.inline = place.inline or _within(inlines, start, end)
                # The next keyword is looked for past the data, not in it, unless one that ends
                # a dictionary lies in the data: a "stream" with no "endstream" of its own (in an
                # object PDFium never reads, or in a string) hid the next object's stream, a bomb
                # the scan never saw.
                resume = _dictionary_stream(raw, start, end, floor=previous)
                own = filter_chains(dictionary, objects) if FILTER.search(dictionary) else [[]]
                place.own = union(own, region_own) if inside else own
                place.predictors = predictors(dictionary, objects)
                if place.predictors:
                    # the operators PDFium reads lie between the rows' tags: the content check
                    # decodes the stream, and undoes the predictor, whatever the bytes show
                    place.draws = place.inline = True
                    for data in list(place.packed or ()):
                        place.packed.extend(unpredicted(data, p, objects) for p in place.predictors)
                found.setdefault(header[0], []).append(place)
                region_own = place.own
            previous = start
        at = raw.find(b"stream", resume)
    return damaged


def _unclosed(objects: Objects, endobjs: list[int], end: int) -> bool:
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




def _dictionary_stream(raw: bytes, start: int, end: int, floor: int) -> int:
    """Where the first "stream" keyword between `start` and `end` that follows a dictionary's
    ">>" is (white space and comments between, as PDFium reads them), else `end`: a keyword
    PDFium may read as a stream's, which the scan must not pass over. The ">>" may lie before
    `start`, back to `floor` ("<< ... >> %stream" then "stream" on the next line: the data of
    the comment's word starts at the real keyword). Each byte between is looked at a bounded
    number of times (the comment lines before a keyword are its own)."""
    at = raw.find(b"stream", start, end)
    while at >= 0:
        if (raw[at - 1] in DELIMITERS) and (at + 6 == len(raw) or raw[at + 6] in DELIMITERS) and _after_dictionary(raw, at, floor):
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
        while j > floor and raw[j - 1] in WHITE:
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
        while start < j and raw[start] in WHITE and raw[start] not in b"\r\n":
            start += 1
        if start == j or raw[start] != 0x25:  # "%": a line that is all comment
            return False
        at = start




_OBJECT_STREAM = re.compile(name_pattern(b"Type") + SPACE + name_pattern(b"ObjStm"))
_FIRST = re.compile(name_pattern(b"First") + SPACE + rb"(" + NUMBER + rb")")


_KEYWORD = re.compile(rb"(?<![^" + DELIM + rb"])stream(?![^" + DELIM + rb"])")
_MAX_OBJECT_STREAM_ROUNDS = 4


def _index_object_streams(raw: bytes, objects: Objects) -> None:
    """Add the objects of every object stream of the file to `objects`, before its streams are
    checked: a /Filter may refer to an object inside one, anywhere in the file (a bomb's filter
    object packed in an /ObjStm was taken for a missing one: sweep 11). Each is decoded with
    the chains its own dictionary names, within a budget of its own (the check counts it
    again); one whose /Filter refers to an object in another object stream waits for a later
    round."""
    keywords = [m.start() for m in _KEYWORD.finditer(raw)] if _OBJECT_STREAM.search(raw) else []
    waiting: dict[int, tuple[bytes, int]] = {}  # keyword -> (its dictionary, /First)
    for match in _OBJECT_STREAM.finditer(raw):
        i = bisect.bisect_left(keywords, match.end())
        if i == len(keywords) or keywords[i] in waiting:
            continue
        if len(waiting) == _MAX_STREAMS:
            raise RefusedInput(f"over {_MAX_STREAMS:,} object streams: more streams than a rules document has",
                               line=raw.count(b"\n", 0, match.start()) + 1)
        header = objects.header_before(match.start())
        # no further back than the keyword before (many under one header: quadratic)
        floor = max(header[1] if header else match.start(), keywords[i - 1] if i else 0)
        dictionary = raw[floor : keywords[i]]
        first = _FIRST.search(dictionary)
        if first:
            waiting[keywords[i]] = (dictionary, integer(first[1]) or 0)
    budget = Budget(max_inflated(), "the object streams of this PDF", max_pdf_stream(), "CRPARSE_MAX_PDF_STREAM")
    for round_ in range(_MAX_OBJECT_STREAM_ROUNDS):
        done = []
        for keyword, (dictionary, first) in waiting.items():
            chains = filter_chains(dictionary, objects)
            if None in chains and round_ + 1 < _MAX_OBJECT_STREAM_ROUNDS:
                continue
            eol = EOL.search(raw, keyword + 6)
            if eol is None:
                continue
            part = f"the object stream at byte {eol.end()}"
            settings = predictors(dictionary, objects)
            for chain in chains:
                for early in earlies(chain):
                    if chain is not None:
                        data = b"".join(decode(raw, eol.end(), chain, early, budget, part, []))
                        data = data if chain else _raw_data(raw, eol.end())
                        for packed in [data, *(unpredicted(data, p, objects) for p in settings)]:
                            objects.add_object_stream(packed, first, eol.end())
            done.append(keyword)
        if not done:
            break
        for keyword in done:
            del waiting[keyword]


def _raw_data(raw: bytes, start: int) -> bytes:
    """A stream's data as it is: up to its "endstream"."""
    end = raw.find(b"endstream", start)
    return raw[start : end if end >= 0 else len(raw)]
