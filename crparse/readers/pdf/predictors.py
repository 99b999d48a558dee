"""PNG and TIFF predictors, undone as PDFium undoes them after a Flate or LZW stage.

A /DecodeParms /Predictor interleaves a tag byte with every row of the data (PNG) or stores
differences (TIFF): the bytes PDFium reads are not the bytes inflated. Only the data whose
structure the checks read is undone here: an object stream (the objects a /Filter refers to:
a filter object packed in a predicted object stream was taken for missing, and a decoy object
outside it passed a bomb: sweep 13) and a page's or form's content (its drawing operators).
Images are never undone: their size is the same either way, and it is what the checks limit.
"""

from __future__ import annotations

import re
from itertools import accumulate

from crparse.errors import RefusedInput
from crparse.readers.pdf.syntax import NUMBER, SPACE, Objects, integer, name_pattern, references

_KEYS = {key: re.compile(name_pattern(key) + SPACE + rb"(" + NUMBER + rb")")
         for key in (b"Predictor", b"Colors", b"BitsPerComponent", b"Columns")}
_DECODE_PARMS = re.compile(name_pattern(b"DecodeParms") + SPACE + rb"(\[[^\]]*+\]?|[^/>\[]*+)")
MAX_PARAMETERS = 4  # different predictor settings tried for one stream


class Predictor(tuple):
    """(predictor, colors, bits per component, columns), PDFium's defaults where unsaid."""

    __slots__ = ()

    @property
    def png(self) -> bool:
        return self[0] >= 10


def predictors(dictionary: bytes, objects: Objects) -> list[Predictor]:
    """The predictors a stream's dictionary names, in its own text or in the objects its
    /DecodeParms refers to (each definition of them): every way it may be read, past the first
    key found in each, since a scan cannot tell which dictionary of the text is the stream's."""
    texts = [dictionary]
    for parms in _DECODE_PARMS.finditer(dictionary):
        for number in references(parms[1])[:MAX_PARAMETERS]:
            texts.extend(objects.definitions(number))
    found: list[Predictor] = []
    for text in texts:
        for start in _KEYS[b"Predictor"].finditer(text):
            value = integer(start[1])
            if value < 2:
                continue
            rest = text[start.start():]
            colors, bits, columns = (_value(rest, key, default) for key, default in
                                     ((b"Colors", 1), (b"BitsPerComponent", 8), (b"Columns", 1)))
            settings = Predictor((value, colors, bits, columns))
            if settings not in found:
                found.append(settings)
            if len(found) == MAX_PARAMETERS:
                return found
    return found


def _value(text: bytes, key: bytes, default: int) -> int:
    match = _KEYS[key].search(text, 0, 512)  # within one /DecodeParms dictionary, or near it
    return integer(match[1]) if match else default


def unpredicted(data: bytes, settings: Predictor, objects: Objects) -> bytes:
    """`data` with the predictor undone, as PDFium's PNG_Predictor / TIFF_Predictor do; the
    work is charged to the file's `objects.predicted` (see MAX_PREDICTED_WORK)."""
    predictor, colors, bits, columns = settings
    if not (1 <= colors <= 32 and bits in (1, 2, 4, 8, 16) and 1 <= columns and colors * bits * columns < 2**31):
        return b""  # PDFium gives nothing
    # no row is longer than the data: a /Columns of 2^28 made rows of 256 MiB for 47 bytes (sweep 15)
    row = min((colors * bits * columns + 7) // 8, max(len(data), 1))
    step = max(1, colors * bits // 8)
    if predictor >= 10:
        return _png(data, row, step, objects)
    if predictor == 2 and bits == 8:
        return _tiff(data, row, step, objects)
    return data


# The undoing of one file's rows, in about a microsecond's units: a row costs one and its
# bytes' slices, an Average or Paeth row a unit a byte (each byte depends on the one before it
# as undone, so Python goes byte by byte). 14 pages of 0.8 MiB of Paeth rows took 12 s, and
# were refused as a bomb by the read's own time limit (sweep 16); this bounds it to about 3 s.
MAX_PREDICTED_WORK = 3_000_000


def _charge(objects: Objects, work: int) -> None:
    objects.predicted += work
    if objects.predicted > MAX_PREDICTED_WORK:
        raise RefusedInput(
            "the content and object streams of this PDF hold too many predicted rows (/DecodeParms /Predictor) "
            "to check in time: PDFium undoes the predictor before it reads them, and so must the checks; PNG "
            "Average and Paeth rows cost most, a byte at a time (a few MiB of them in all)"
        )


def _png(data: bytes, row: int, step: int, objects: Objects) -> bytes:
    out = bytearray()
    previous = bytes(row)
    for at in range(0, len(data), row + 1):
        tag, line = data[at], data[at + 1 : at + 1 + row]
        n = len(line)
        if tag == 1:  # Sub
            _charge(objects, 1 + step)
            line = _sums(line, step)
        elif tag == 2:  # Up
            _charge(objects, 1)
            line = _added(line, previous[:n])
        elif tag in (3, 4):
            _charge(objects, 1 + n)
            line = (_average if tag == 3 else _paeth)(bytearray(line), previous, step)
        else:
            _charge(objects, 1)
        out += line
        previous = line + previous[n:]
    return bytes(out)


def _average(line: bytearray, previous: bytes, step: int) -> bytes:
    for i in range(len(line)):
        left = line[i - step] if i >= step else 0
        line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
    return bytes(line)


def _paeth(line: bytearray, previous: bytes, step: int) -> bytes:
    for i in range(len(line)):
        a = line[i - step] if i >= step else 0
        b, c = previous[i], previous[i - step] if i >= step else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return bytes(line)


def _sums(line: bytes, step: int) -> bytes:
    """Each byte plus the one `step` before it as undone, modulo 256: running sums of each
    `step`-th byte, made by C loops (accumulate, map)."""
    out = bytearray(line)
    for k in range(min(step, len(line))):
        out[k::step] = bytes(map((0xFF).__and__, accumulate(line[k::step])))
    return bytes(out)


_MASKS: dict[int, tuple[int, int]] = {}


def _added(a: bytes, b: bytes) -> bytes:
    """a + b byte by byte, modulo 256, as one addition of two integers: the low seven bits
    of each byte are added (their carry stays in the byte's top bit), the top bits by xor."""
    n = len(a)
    if n not in _MASKS:
        if len(_MASKS) > 8:
            _MASKS.clear()
        _MASKS[n] = (int.from_bytes(b"\x7f" * n, "little"), int.from_bytes(b"\x80" * n, "little"))
    low, high = _MASKS[n]
    x, y = int.from_bytes(a, "little"), int.from_bytes(b, "little")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(n, "little")


def _tiff(data: bytes, row: int, step: int, objects: Objects) -> bytes:
    out = bytearray(data)
    for start in range(0, len(out), row):
        _charge(objects, 1 + step)
        out[start : start + row] = _sums(data[start : start + row], step)
    return bytes(out)
