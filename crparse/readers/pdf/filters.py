"""The filter chains a stream's /Filter names, and their decoders (Flate, LZW, RunLength,
ASCIIHex, ASCII85), in bounded chunks, every decoded byte counted in a Budget."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator

from crparse.errors import RefusedInput
from crparse.readers.limits import CHUNK, Budget, inflate
from crparse.readers.pdf.syntax import (
    COMMENT,
    DELIM,
    NUMBER,
    SEPARATOR,
    SPACE,
    Objects,
    name_pattern,
    object_number,
    unescape,
)

_INPUT_CHUNK = 1 << 16
# The filters PDFium decodes that give more bytes than they read, or that a flate bomb can
# hide behind, by their names and abbreviations.
_FILTERS = {
    b"FlateDecode": "flate", b"Fl": "flate", b"LZWDecode": "lzw", b"LZW": "lzw",
    b"RunLengthDecode": "runlength", b"RL": "runlength",
    b"ASCIIHexDecode": "hex", b"AHx": "hex", b"ASCII85Decode": "a85", b"A85": "a85",
}




FILTER = re.compile(
    name_pattern(b"Filter") + SPACE + rb"(\[(?:%[^\r\n]*+|[^\]%]++)*+\]?|/[^" + DELIM + rb"]*|" + NUMBER + SEPARATOR + NUMBER
    + SEPARATOR + rb"R)"
)
# a name, or an object it refers to (as PDFium reads numbers: "+7 0 R", "7.0 +0 R")
_FILTER_TOKEN = re.compile(rb"/([^" + DELIM + rb"]*)|(" + NUMBER + rb")" + SEPARATOR + NUMBER + SEPARATOR + rb"R")
# LZW is decoded both ways, /EarlyChange 1 and 0, whatever the dictionary says: it may say it through
# a reference, in a number word ("00", "+0", ".0"), in an inline image's /DP (sweep 12)
EARLIES = (1, 0)


def earlies(chain: list[str] | None) -> tuple[int, ...]:
    """The /EarlyChange values a chain is decoded with: both where it holds LZW."""
    return EARLIES if chain and "lzw" in chain else (1,)


_MAX_STAGES = 32  # filters in one chain (real PDFs use one or two)
MAX_CHAINS = 16  # different filter chains a PDF may name: each stream is decoded with each (more: refused)


def union(chains: list, more: list) -> list:
    out = list(chains)
    for chain in more:
        if chain not in out:
            out.append(chain)
    return out



def filter_chains(span: bytes, objects: Objects) -> list[list[str] | None]:
    """The filter chains the /Filter entries in a dictionary's text name, each a list of
    _FILTERS values ("other" for a filter not decoded here), or None where an entry refers to
    an object this scan cannot read (one inside an object stream). Every /Filter entry of the
    text counts, nested dictionaries' too: decoding one chain too many costs only time."""
    chains: list[list[str] | None] = []
    for match in FILTER.finditer(span):
        chains = union(chains, value_chains(match[1], objects, depth=3))
        if len(chains) > MAX_CHAINS:
            break  # one too many: the file is refused (see check_streams), none is left out unsaid
    return chains or [[]]


def value_chains(value: bytes, objects: Objects, depth: int) -> list[list[str] | None]:
    """The chains a /Filter value can stand for: a name, an array of names, a reference to
    either, or an array of references (PDFium follows them all), with each definition of a
    referred object. Where the value holds a "%", read both with and without what may be
    comments (a "%" in a string, "[(%) /FlateDecode]", is none)."""
    chains = _value_chains(COMMENT.sub(b" ", value), objects, depth)
    if b"%" in value:
        chains = union(chains, _value_chains(value, objects, depth))[: MAX_CHAINS + 1]
    return chains


def _value_chains(value: bytes, objects: Objects, depth: int) -> list[list[str] | None]:
    chains: list[list[str] | None] = [[]]
    for count, token in enumerate(_FILTER_TOKEN.finditer(value), 1):
        if token[1] is not None:
            options: list[list[str] | None] = [[_FILTERS.get(unescape(token[1]), "other")]]
        elif (number := object_number(token[2])) is None:
            options = [[]]  # no object ("0 0 R"): PDFium leaves the reference out
        else:
            options = _referred(number, objects, depth)
        chains = [None if a is None or b is None else a + b for a in chains for b in options][: MAX_CHAINS + 1]
        if count > _MAX_STAGES or any(chain is not None and len(chain) > _MAX_STAGES for chain in chains):
            # each stage a generator over the one before (deeper than the interpreter's stack:
            # 20,000 stages were a RecursionError), and the chains copied at each: quadratic
            raise RefusedInput(f"a PDF /Filter of more than {_MAX_STAGES} stages: not a filter chain a PDF writer makes")
    return chains


def _referred(number: int, objects: Objects, depth: int) -> list[list[str] | None]:
    """The chains object `number` stands for (each definition), once for each depth; None: an
    object not found (yet: see check_streams), or too deep."""
    key = (number, depth)
    if key not in objects.chains:
        if depth and objects.defined(number) > MAX_CHAINS:
            # only the first 16 were read: decoys before the one the cross-reference table picks
            # hid a bomb's filter (sweep 10)
            raise RefusedInput(f"a PDF /Filter refers to object {number}, defined over {MAX_CHAINS} times: "
                               "which definition PDFium reads cannot be checked")
        options: list[list[str] | None] = []
        for body in objects.definitions(number) if depth else []:
            options = union(options, value_chains(body, objects, depth - 1))[: MAX_CHAINS + 1]
        objects.chains[key] = options or [None]
    return objects.chains[key]


def decode(
    raw: bytes, start: int, chain: list[str] | None, early: int, budget: Budget, part: str, damaged: list[str]
) -> Iterator[bytes]:
    """The data at `start` decoded through `chain`, in chunks, every stage's output counted in
    `budget`, a damaged Flate stage noted in `damaged`. A chain that could not be read is taken
    as Flate stages as long as the data looks like a zlib stream (PDFium decodes nothing
    without its /Filter)."""
    view = memoryview(raw)
    chunks: Iterable = (view[i : i + _INPUT_CHUNK] for i in range(start, len(raw), _INPUT_CHUNK))
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


def zlib_header(data) -> bool:
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
    """ASCII85Decode as PDFium reads it, to its "~": what is not a base-85 digit or "z" is left
    out (PDFium stops at it: more is counted here, never less); a "z" gives four zero bytes and
    drops the group it interrupts; a group past 2**32 wraps round (Python's decoder refuses it:
    the scan decoded nothing where PDFium went on, sweep 12)."""
    carry = b""
    for chunk in chunks:
        chunk = bytes(chunk)
        end = chunk.find(b"~")
        pieces = (carry + (chunk if end < 0 else chunk[:end]).translate(None, _NOT_A85)).split(b"z")
        out = []
        for i, piece in enumerate(pieces):
            if i:
                out.append(bytes(4))
            whole = len(piece) // 5 * 5
            out.append(_a85_groups(piece[:whole]))
            carry = piece[whole:]  # the last piece's rest waits for the next chunk; a "z" drops it
        yield b"".join(out)
        if end >= 0:
            break
    if len(carry) > 1:
        value = 0
        for c in carry + b"u" * (5 - len(carry)):  # padded with the highest digit
            value = value * 85 + c - 33
        yield (value % 2**32).to_bytes(4, "big")[: len(carry) - 1]


def _a85_groups(digits: bytes) -> bytes:
    try:
        return base64.a85decode(digits)
    except ValueError:  # a group past 2**32, somewhere: each group as PDFium takes it
        out = bytearray()
        for at in range(0, len(digits), 5):
            value = 0
            for c in digits[at : at + 5]:
                value = value * 85 + c - 33
            out += (value % 2**32).to_bytes(4, "big")
        return bytes(out)


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
    about CHUNK bytes."""
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
                elif previous:
                    # the code after the table's last ("KwKwK"); past it PDFium carries on as if it
                    # were that one (stopping there let 500 KB inflate to 1.2 GiB: sweep 12)
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
