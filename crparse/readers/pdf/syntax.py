"""PDF syntax as PDFium reads it, from the raw bytes: delimiters and white space, names,
references, object headers, dictionaries; and where each object of a file is defined (Objects).
The stream and content checks read the file through these, before PDFium opens it."""

from __future__ import annotations

import bisect
import re

MAX_DEFINITIONS = 16  # definitions of one object number read (more: see Objects.defined)

DELIMITERS = b" \t\n\r\f\x00\x80\xff()<>[]{}/%"  # a PDF keyword or name ends at one of these
DELIM = re.escape(DELIMITERS)
EOL = re.compile(rb"\r\n|\r|\n")
# PDF white space: NUL too, which Python's \s lacks (a /Filter after a NUL hid a bomb: sweep 10), and
# 0x80 and 0xFF, which PDFium's PDF_CharType counts as white space ("/Filter\x80/FlateDecode" and
# "stream\x80" hid bombs, "/Encrypt\x80" an encrypted one: sweep 14)
WHITE = b"\x00\t\n\x0b\f\r \x80\xff"
WS = rb"[" + re.escape(WHITE) + rb"]"
SEPARATOR = rb"(?:" + WS + rb"|%[^\r\n]*)++"  # white space, comments too: PDFium reads "4 0 %c\nobj" as "4 0 obj"
# A number is any word of digits, "+", "-" and ".", whatever its shape ("+0", "0.0", ".", "+-"):
# PDFium reads each as one, in a reference ("7 +0 R") and an object's header ("7 . obj") alike,
# and where it wants an object number or an offset, reads it as an unsigned 32-bit integer (see
# `integer`). Patterns that took only digits let a /Filter past (sweep 11).
# The look-behind makes a pattern start only where a word does (a run of digits is not tried
# from each of its bytes).
NUMBER = rb"(?<![0-9+.\-])[0-9+.\-]++"
_NUMBER_WORD = re.compile(NUMBER)
_SIGNED_DIGITS = re.compile(rb"([+-]?)0*+([0-9]*)")
_UINT32 = 2**32
OBJ = re.compile(rb"(" + NUMBER + rb")" + SEPARATOR + NUMBER + SEPARATOR + rb"obj(?![^" + DELIM + rb"])")
# The same, in the bytes reversed: a comment ends a line ("%" is its last byte read backwards).
_SEPARATOR_REVERSED = rb"(?:" + WS + rb"|(?<=[\r\n])[^\r\n]*%)++"
_OBJ_REVERSED = re.compile(
    rb"jbo" + _SEPARATOR_REVERSED + rb"[0-9+.\-]++" + _SEPARATOR_REVERSED + rb"([0-9+.\-]++)"
)


def integer(word: bytes) -> int:
    """The unsigned integer PDFium reads a number word as (FXSYS_StrToInt): an optional sign and
    the digits after it ("7.0" and "00000000007" are 7, "++7" is 0); past 2^32 - 1 that most; a
    negative one wrapped round ("-4294967289" is 7: sweep 12 hid a /Filter so)."""
    sign, digits = _SIGNED_DIGITS.match(word).groups()
    if len(digits) > 10 or (digits and int(digits) >= _UINT32):
        return _UINT32 - 1
    value = int(digits or b"0")
    return (-value) % _UINT32 if sign == b"-" else value


def object_number(word: bytes) -> int | None:
    """The object a number word names in a reference or a header, None for none (0)."""
    return integer(word) or None


def name_pattern(word: bytes) -> bytes:
    """A regex for the PDF name /word, however it is spelled: a name may write any character
    as #xx ("/Fl#61teDecode"), and PDFium reads it so."""
    def char(c: int) -> bytes:
        low = b"%x" % (c & 15)
        return b"(?:%s|#%x[%s%s])" % (re.escape(bytes([c])), c >> 4, low, low.upper())
    return b"/" + b"".join(char(c) for c in word) + rb"(?![^" + DELIM + rb"])"


# Comments count as white space, between a key and its value and inside an array.
# Possessive (*+): a comment can be split into comments in many ways ("%%%%"), which made the
# patterns below try them all when what follows did not match (a line of 2,000 "%" took hours).
SPACE = rb"(?:" + WS + rb"|%[^\r\n]*)*+"
COMMENT = re.compile(rb"%[^\r\n]*")


def _cut(text: bytes) -> bytes:
    end = _BODY_END.search(text)
    return text[: end.start()] if end else text


class Objects:
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
        self.packed_count: dict[int, int] = {}
        self._added: set[tuple[int | None, int, bytes]] = set()
        self._counted: set[tuple[int, int]] = set()  # (where a stream's data starts, a number it holds)
        self._in_file: dict[int, list[bytes]] = {}  # number -> its definitions in the file's text (definitions)
        # (number, depth) -> the filter chains the object stands for (filters.value_chains): a
        # reference read once, however many refer to it (three objects of 16 definitions, each
        # an array of 32 references to the next, were read 16^3 * 32^3 times: sweep 12)
        self.chains: dict[tuple[int, int], list] = {}  # number -> how many times object streams hold it
        self.predicted = 0  # the work of undoing its streams' predictors so far (predictors.MAX_PREDICTED_WORK)

    def _indexed(self) -> dict[int, list[int]]:
        """OBJ's matches, found in the bytes reversed: the pattern then starts with a literal
        ("jbo"), which the regular-expression engine finds ten times as fast."""
        if self.index is None:
            self.index = {}
            raw, n = self.raw, len(self.raw)
            found = []
            for match in _OBJ_REVERSED.finditer(raw[::-1]):
                end = n - match.start()  # just after "obj"
                number = object_number(match[1][::-1])
                if number is not None and (end == n or raw[end] in DELIMITERS):
                    found.append((n - match.end(), end, number))
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
        """How many times object `number` is defined, in the file and in its object streams."""
        return len(self._indexed().get(number, ())) + self.packed_count.get(number, 0)

    def definitions(self, number: int) -> list[bytes]:
        """Each definition of object `number`, whole: up to its "endobj", its "stream" keyword
        (a stream's dictionary) or the next object, then those in object streams. Where the text
        holds a "%", both as it is and with what may be comments taken out: "%endobj" in a
        comment cut an object short (sweep 12), and a "%" in a string is no comment."""
        if number not in self._in_file:
            # read once: the last object's text runs to the end of the file, and 5,000 pages
            # listing it took 4 s for its comments alone (the cross-reference table's "%%EOF")
            out = []
            for at in self._indexed().get(number, ())[:MAX_DEFINITIONS]:
                following = bisect.bisect_right(self.starts, at)
                stop = self.starts[following] if following < len(self.starts) else len(self.raw)
                text = self.raw[at:stop]
                variants = [_cut(text)]
                if b"%" in text:
                    variants.append(_cut(COMMENT.sub(b" ", text)))
                out += dict.fromkeys(variants)
            self._in_file[number] = out
        return self._in_file[number] + self._packed_bodies(number)

    def add_object_stream(self, data: bytes, first: int, where: int | None = None) -> None:
        """The objects of an object stream (its data decoded): pairs of an object number and an
        offset from `first`, then the objects, each up to the next one. Only the numbers are
        indexed here; an object is cut out when asked for (_packed_bodies). `where`: where the
        stream's data starts, so that each of its decodings (filter chains, a predictor undone
        or not) counts an object once among its definitions (twice halved the limit: sweep 15)."""
        if (where, first, data) in self._added:
            return  # the same stream decoded again (by the check, then for the content check)
        self._added.add((where, first, data))
        self.chains.clear()  # an object not found before may be in this one
        numbers = [integer(word) for word in _NUMBER_WORD.findall(COMMENT.sub(b" ", data[: max(first, 0)]))]
        self.object_streams.append((data, first, numbers, None))
        at = len(self.object_streams) - 1
        for number in numbers[0::2]:
            if number:
                if where is None or (where, number) not in self._counted:
                    self.packed_count[number] = self.packed_count.get(number, 0) + 1
                    if where is not None:
                        self._counted.add((where, number))
                streams = self.packed_in.setdefault(number, [])
                if not streams or streams[-1] != at:
                    streams.append(at)

    def _packed_bodies(self, number: int) -> list[bytes]:
        out = []
        for at in self.packed_in.get(number, ())[:MAX_DEFINITIONS]:
            data, first, numbers, places = self.object_streams[at]
            if places is None:
                pairs = sorted(zip(numbers[1::2], numbers[0::2]))  # (offset, number)
                places = {}
                for i, (offset, n) in enumerate(pairs):
                    end = pairs[i + 1][0] if i + 1 < len(pairs) else len(data) - first
                    places.setdefault(n, []).append((first + offset, first + end))
                self.object_streams[at] = (data, first, numbers, places)
            out += [data[start:end] for start, end in places.get(number, ())]
        return out[:MAX_DEFINITIONS]



def unescape(name: bytes) -> bytes:
    if b"#" not in name:
        return name
    return re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m[1], 16)]), name)



_BODY_END = re.compile(rb"(?<![^" + DELIM + rb"])(?:stream|endobj)(?![^" + DELIM + rb"])")
REF = re.compile(rb"(" + NUMBER + rb")" + SEPARATOR + NUMBER + SEPARATOR + rb"R(?![^" + DELIM + rb"])")


_NAME = re.compile(rb"/[^" + DELIM + rb"]*")
_WORD = re.compile(rb"[^" + DELIM + rb"]+")
_SPACE_AT = re.compile(SPACE)
# A reference, a name, a number or keyword, an array of numbers (what most values are).
_SIMPLE_VALUE = re.compile(
    NUMBER + SEPARATOR + NUMBER + SEPARATOR + rb"R(?![^" + DELIM + rb"])|/[^" + DELIM + rb"]*|[^" + DELIM + rb"]+"
    rb"|\[[" + re.escape(WHITE) + rb"\d.+-]*\]"
)
_STRUCTURE = re.compile(rb"<<|>>|[\[\](<%]")  # what opens or closes a value, or hides a bracket
_STRING_PART = re.compile(rb"[()]|\\.", re.S)


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
                eol = EOL.search(text, match.end())
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
    ref = REF.match(text, at)
    if ref:
        return ref.end()
    word = _WORD.match(text, at)
    return word.end() if word else at + 1


def entries_of(text: bytes) -> dict[bytes, bytes] | None:
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
        out[unescape(key[0][1:])] = text[i:end]
        i = end if end > i else i + 1
    return out


def ref_of(value: bytes | None) -> int | None:
    if value is None:
        return None
    match = REF.fullmatch(value.strip(WHITE))
    return object_number(match[1]) if match else None


def references(text: bytes) -> list[int]:
    """The objects the references in `text` name, in order."""
    return [number for match in REF.finditer(text) if (number := object_number(match[1])) is not None]
