"""Encoding detection for the byte layouts the CR has actually been shipped in.

Order matters and follows how certain each signal is: a byte-order mark, then NUL structure
(UTF-16 without BOM, or UTF-16 that went through a lossy UTF-8 pass), then strict UTF-8, then
UTF-8 mixed with a single-byte encoding line by line, then the best-scoring of the three
single-byte code pages WotC's files used (cp1252, Mac Roman, DOS cp437).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

from crparse.errors import NotADocument, RefusedInput
from crparse.nodes import Diagnostic

# Lone bytes that some single-byte code page maps to a letter, but which in UTF-8 can only be
# continuation bytes: finding many valid multi-byte sequences next to invalid bytes means mixing.
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_REPLACEMENT_UTF8 = b"\xef\xbf\xbd"
_ASCII_UTF16_RUN = re.compile(rb"(?:[^\x00]\x00)+")
_NEWLINE_RUN = re.compile(r"\n+")
_NON_SPACE = re.compile(rb"[^\s]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_MARK_HIGH = bytes(0 if b < 0x80 else 1 for b in range(256))
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")

SINGLE_BYTE_CANDIDATES = ("cp1252", "mac_roman", "cp437")

# Characters the CR really uses outside ASCII: typography, trademark signs, the accented letters
# of card names. A code page that decodes the file's high bytes into these is the right one.
_EXPECTED = frozenset(
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2122\u00ae\u00a9\u00b0\u00b1\u00d7\u221e\u2212"
    "\u00a0\u00ab\u00bb\u00bd\u00bc\u00be\u00b7"
    "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿœÆŒÉÖÜÄÁÍÓÚ"
)
# Card names with non-ASCII letters that the CR quotes; decoding one of them exactly is strong
# evidence (the corpus study checked every single-byte release against these by hand).
_LEXICON = ("Dandân", "Æther", "Ghazbán", "Junún", "Ma’rûf", "El-Hajjâj", "Lim-Dûl", "Jötun", "Séance")


@dataclass(frozen=True, slots=True)
class DecodedText:
    """The document's lines (line ends removed; CRLF, CR and LF all end a line), NFC."""

    lines: list[str]
    encoding: str
    bom: bool
    line_endings: str
    diagnostics: tuple[Diagnostic, ...] = ()
    content: str = ""  # the decoded NFC text with its own line ends, for searches over all of it

    @property
    def text(self) -> str:
        """The text with LF line ends."""
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def line_at(self, offset: int) -> int:
        """The line number of an offset in `content` (CR, LF and CRLF each end one line)."""
        c = self.content
        return c.count("\n", 0, offset) + c.count("\r", 0, offset) - c.count("\r\n", 0, offset) + 1

    def with_diagnostics(self, extra: tuple[Diagnostic, ...]) -> DecodedText:
        return replace(self, diagnostics=self.diagnostics + tuple(extra))


def decode_bytes(data: bytes) -> DecodedText:
    if _NON_SPACE.search(data) is None:
        raise NotADocument("empty input: no text to parse")
    diagnostics: list[Diagnostic] = []
    text, encoding, bom = _decode(data, diagnostics)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = _nfc(text, diagnostics)
    # Count only the line ends that occur: each count is a pass over the whole text.
    has_cr, has_lf = "\r" in text, "\n" in text
    separators = None
    if (separators := _separators(text)) and (not has_cr and not has_lf or _mostly_separators(text)):
        text = text.translate(_AS_LF)  # one character for one: offsets stay
        has_lf = True
    else:
        separators = None
    if has_cr and has_lf:
        crlf, cr, lf = text.count("\r\n"), text.count("\r"), text.count("\n")
    else:
        crlf, cr, lf = 0, text.count("\r") if has_cr else 0, text.count("\n") if has_lf else 0
    lines = split_lines(text, crlf, cr, lf)
    endings = _describe(crlf, cr - crlf, lf - crlf)
    if separators:
        endings = separators
        diagnostics.append(Diagnostic(None, "info", "line-separators",
                                      f"the lines end in {separators} (U+0085 NEXT LINE, U+2028 LINE SEPARATOR, U+2029 "
                                      "PARAGRAPH SEPARATOR) more than in CR or LF: read as line ends"))
    return DecodedText(lines, encoding, bom, endings, tuple(diagnostics), text)


# Line ends of text that has no CR or LF: an EBCDIC file converted as it was (NEL), or a text
# written with Unicode's separators; it was one line, refused as having no rules (sweep 20).
_SEPARATORS = {"\x85": "NEL", "\u2028": "LS", "\u2029": "PS"}  # U+0085 NEXT LINE, LINE and PARAGRAPH SEPARATOR
_AS_LF = str.maketrans(dict.fromkeys(_SEPARATORS, "\n"))


def _mostly_separators(text: str) -> bool:
    """Whether the text ends more lines in separators than in CR or LF: lines in NEL and one LF
    at the end were one line, refused (sweep 22)."""
    return sum(text.count(char) for char in _SEPARATORS) > text.count("\n") + text.count("\r")


def _separators(text: str) -> str | None:
    found = [name for char, name in _SEPARATORS.items() if char in text]
    return None if not found else found[0] if len(found) == 1 else f"mixed ({', '.join(found)})"


# Python's NFC sorts a run of combining marks by insertion: a run of 100,000 took 40 s. No text
# has runs anywhere near this long (a letter takes a few marks at most).
MAX_COMBINING_RUN = 64


@cache
def _combining_run() -> re.Pattern:
    """A run of MAX_COMBINING_RUN characters NFC reorders: those of a nonzero canonical combining
    class, and those that decompose into such (U+0F73, of class 0, is U+0F71 U+0F72), read from
    unicodedata (0.2 s, once, and only for a text that is not NFC already), not a list of blocks
    (Tibetan, Hebrew points, kana voicing marks were missing from one, and a run of them took as
    long)."""
    ranges: list[list[int]] = []
    for code in range(0x110000):
        char = chr(code)
        # a mark, or a character that decomposes into marks (U+0F73, of class 0, is two of them)
        if unicodedata.combining(char) or (unicodedata.decomposition(char)[:1] not in ("", "<")
                                           and all(unicodedata.combining(c) for c in unicodedata.normalize("NFD", char))):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    members = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)
    return re.compile(f"[{members}]{{{MAX_COMBINING_RUN},}}")


def _nfc(text: str, diagnostics: list[Diagnostic]) -> str:
    """NFC, but for the lines holding a run of more than MAX_COMBINING_RUN combining marks, which
    are left as they are, with a diagnostic (normalising them would take quadratic time)."""
    run = _combining_run()
    if run.search(text) is None:
        return unicodedata.normalize("NFC", text)
    pieces = re.split(r"(\r\n|\r|\n)", text)
    line = 1
    for k in range(0, len(pieces), 2):
        if run.search(pieces[k]):
            diagnostics.append(Diagnostic(line, "warning", "long-combining-run",
                                          f"a run of over {MAX_COMBINING_RUN} combining marks: line left unnormalised (not NFC)"))
        else:
            pieces[k] = unicodedata.normalize("NFC", pieces[k])
        line += 1
    return "".join(pieces)


def split_lines(text: str, crlf: int, cr: int, lf: int) -> list[str]:
    """Lines ended by CRLF, CR or LF (in any mixture), and nothing else.

    str.splitlines is the fast path, but it also breaks at form feeds, U+2028 and other
    separators the CR never uses as line ends; when the count says it did, split exactly.
    """
    lines = text.splitlines()
    expected = cr + lf - crlf + (0 if text.endswith(("\n", "\r")) or not text else 1)
    if len(lines) != expected:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
    return lines


def _describe(crlf: int, cr: int, lf: int) -> str:
    kinds = [(name, n) for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    if not kinds:
        return "none"
    if len(kinds) == 1:
        return kinds[0][0]
    return "mixed (" + ", ".join(f"{name}:{n}" for name, n in kinds) + ")"


def _decode(data: bytes, diagnostics: list[Diagnostic]) -> tuple[str, str, bool]:
    if data.startswith(b"\xef\xbb\xbf"):
        rest = data[3:]
        after = 3  # past every UTF-8 mark in a row: UTF-16 behind two was read as UTF-8 (sweep 26)
        while data.startswith(b"\xef\xbb\xbf", after):
            after += 3
        if b"\x00" in data[after:after + 4096]:
            # UTF-16 behind a UTF-8 byte-order mark (a converter that added one): read as "1\x000\x00",
            # it was refused as "no numbered rules" (sweep 17); binary data is refused as such
            text, encoding, _ = _decode(data[after:], diagnostics)
            diagnostics.append(Diagnostic(1, "warning", "bom-mismatch",
                                          f"a UTF-8 byte-order mark before {encoding} text: read as {encoding}"))
            return text, encoding, True
        if _nel_ended(rest):
            return _with_nel(rest, lambda stood_in: _strict_or_mixed(stood_in, diagnostics, "utf-8", bom=True))
        return _strict_or_mixed(rest, diagnostics, "utf-8", bom=True)
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        raise RefusedInput("UTF-32 text is not supported; convert it to UTF-8")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16-le" if data.startswith(b"\xff\xfe") else "utf-16-be"
        rest = data[2:]
        # all of it, not its first 4 KB: UTF-16 whose first 2,048 characters have no byte 0 (a
        # banner of box-drawing characters) was read as 8-bit text, refused as binary (sweep 28)
        if rest and b"\x00" not in rest:
            # a UTF-16 byte-order mark before 8-bit text (a concatenation, a converter): a CR in
            # UTF-16 has a NUL in every digit, space and line end. Read as UTF-16 it was CJK, refused
            # as "no numbered rules" (sweep 24). What follows is read as unmarked: another mark is
            # text (3,000 marks in a row were as many calls deep, a RecursionError: review)
            text, encoding, _ = _unmarked(rest, diagnostics)
            name = codec.upper().replace("-LE", "LE").replace("-BE", "BE")
            diagnostics.append(Diagnostic(1, "warning", "bom-mismatch",
                                          f"a {name} byte-order mark before {encoding} text: read as {encoding}"))
            return text, encoding, True
        return _utf16(rest, codec, diagnostics), codec, True
    return _unmarked(data, diagnostics)


def _unmarked(data: bytes, diagnostics: list[Diagnostic]) -> tuple[str, str, bool]:
    """Bytes with no byte-order mark: UTF-16 by its NULs, else ASCII, UTF-8, a single-byte code
    page or a mix; binary data refused."""
    sample = data[:65536]
    nuls = sample.count(0)
    if nuls > len(sample) // 5:
        if data.startswith(_REPLACEMENT_UTF8):
            return _mangled_utf16(data, diagnostics), "utf-16-le", False
        # UTF-32 without a mark: two NULs in each four bytes, the same two, where UTF-16 has one
        # (refused as binary data, where the same text with its mark was named: sweep 32)
        quarter = len(sample) // 4
        zeros = [sample[i::4].count(0) for i in range(4)]
        # (and characters on the other side: runs of NULs, padding, are no text)
        if quarter and ((min(zeros[2:]) > 0.9 * quarter and zeros[0] < quarter // 2)
                        or (min(zeros[:2]) > 0.9 * quarter and zeros[3] < quarter // 2)):
            raise RefusedInput("UTF-32 text (no byte-order mark) is not supported; convert it to UTF-8")
        even = sample[0::2].count(0)
        odd = sample[1::2].count(0)
        if max(even, odd) > 0.8 * nuls and max(even, odd) > len(sample) // 4:
            codec = "utf-16-be" if even > odd else "utf-16-le"
            return _utf16(data, codec, diagnostics), codec, False
    if nuls and (codec := _utf16_by_lines(sample)) is not None:
        # CJK text has its NULs on both sides (the digits' and the ideographs'): taken for binary
        # data (sweep 33); it is UTF-16 where one byte order decodes to lines of text
        return _utf16(data, codec, diagnostics), codec, False
    if nuls or _many_controls(sample):
        offset = _first_control_offset(data)
        raise NotADocument(
            "binary data, not text (control bytes such as NUL found)", line=data.count(b"\n", 0, offset) + 1
        )
    if data.isascii():
        return data.decode("ascii"), "ascii", False
    if _nel_ended(data):
        return _with_nel(data, lambda stood_in: _strict_or_mixed(stood_in, diagnostics, None, bom=False))
    return _strict_or_mixed(data, diagnostics, None, bom=False)


def _utf16_by_lines(sample: bytes) -> str | None:
    """The UTF-16 byte order in which `sample` (no byte-order mark) decodes to text of lines: line
    ends, and no other control characters but tabs; None if neither does."""
    sample = sample[: len(sample) & ~1]
    for codec in ("utf-16-le", "utf-16-be"):
        text = sample.decode(codec, "replace")
        # lines, not one line end in a long text: 8-bit text with a stray "\0\n" has one, its other
        # line ends read as ideographs; CJK characters hold bytes 0x0A and 0x0D (上, 不), so those
        # are no measure (sweep 34). Only LF and CR, which hold a NUL: "( " read as UTF-16-LE is
        # U+2028, and ASCII with one stray NUL was read as UTF-16, its citations lost (sweep 35)
        breaks = text.count("\n") + text.count("\r")
        if (breaks >= max(2, len(text) // 2000) and not _OTHER_CONTROLS.search(text)
                and text.count("\ufffd") <= max(1, len(text) // 1000)):
            return codec
    return None


_OTHER_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f]")  # tabs, line ends, form feeds are text's


def _nel_ended(data: bytes) -> bool:
    """Whether 8-bit text that is not UTF-8 ends its lines in byte 0x85, NEL in ISO-8859-1 (an
    EBCDIC file converted byte for byte), more than in CR or LF: read as cp1252's "…", the text
    was one line, refused (sweep 24); so it was with one LF at its end, or a UTF-8 BOM (sweep 25).
    UTF-8's NEL (C2 85) is not counted: UTF-8 text with NEL line ends and one stray byte was read
    in a code page, each C2 a letter (sweep 43)."""
    nel = data.count(b"\x85") - data.count(b"\xc2\x85")
    return nel > 0 and nel > data.count(b"\n") + data.count(b"\r") and not _is_utf8(data)


# Control bytes text does not hold, one of which stands for 0x85 while the bytes are decoded
_STAND_INS = [bytes([b]) for b in (*range(0x01, 0x09), *range(0x0E, 0x20))]


def _with_nel(data: bytes, decode: Callable[[bytes], tuple[str, str, bool]]) -> tuple[str, str, bool]:
    """`decode(data)` with each 0x85 read as NEL (U+0085), which the line split reads as a line
    end, saying so: a control byte the data lacks stands for it while the codec decodes."""
    stand_in = next((b for b in _STAND_INS if b not in data), None)
    if stand_in is None:
        return decode(data)
    text, encoding, bom = decode(data.replace(b"\x85", stand_in))
    return text.replace(stand_in.decode("ascii"), "\x85"), encoding, bom


def _many_controls(sample: bytes) -> bool:
    return len(_CONTROL_BYTES.findall(sample)) > max(8, len(sample) // 100)


def looks_binary(data: bytes) -> bool:
    """Whether data refused as binary is made of control bytes, as an image, an archive or an
    object file is (compressed data: about one byte in ten), rather than a text with a few of
    them (a stray NUL)."""
    sample = data[:65536]
    return len(_CONTROL_BYTES.findall(sample)) * 20 > len(sample)


def _first_control_offset(data: bytes) -> int:
    match = _CONTROL_BYTES.search(data)
    return match.start() if match else 0


def _utf16(data: bytes, codec: str, diagnostics: list[Diagnostic]) -> str:
    if len(data) % 2:
        diagnostics.append(
            Diagnostic(None, "warning", "odd-length-utf16", f"{codec} data has an odd number of bytes; the last byte is dropped")
        )
        data = data[:-1]
    text = data.decode(codec, errors="replace")
    return text


def _mangled_utf16(data: bytes, diagnostics: list[Diagnostic]) -> str:
    """UTF-16LE bytes that were once read as UTF-8 (with replacement), had trailing white space
    stripped per "line", and were written back (the pit copy of 2016-08-26).

    Each invalid byte became EF BF BD, and each stripped byte shifted the 2-byte alignment. The
    text is mostly ASCII, so it is read as runs of (byte, NUL) pairs, which realign by
    themselves; what lies between runs is decoded on its own, and a byte left over from a
    broken pair is reported as lost.
    """
    data = data.replace(_REPLACEMENT_UTF8, b"\x1a")  # one lost byte each: alignment restored
    out: list[str] = []
    lost = repaired = 0
    pos = 0
    for run in _ASCII_UTF16_RUN.finditer(data):
        if run.start() > pos:
            gap = data[pos : run.start()]
            if len(gap) == 1 and data.startswith(b"\n\x00", run.start()):
                # The stripped "trailing space" was the 0x20 high byte of a U+20xx character
                # ending the line (’ ” – —): put it back.
                out.append(chr(0x2000 | gap[0]))
                repaired += 1
            else:
                if len(gap) % 2:
                    lost += 1
                    gap = gap[1:]
                    out.append("\ufffd")
                out.append(gap.decode("utf-16-le", errors="replace"))
        out.append(run.group().decode("utf-16-le"))
        pos = run.end()
    if pos < len(data):
        out.append(data[pos:].decode("utf-16-le", errors="replace"))
    text = "".join(out).replace("\x1a", "\ufffd")
    text = text.removeprefix("\ufffd\ufffd")  # the byte-order mark
    newline_runs = _NEWLINE_RUN.findall(text)
    if newline_runs and all(len(run) % 2 == 0 for run in newline_runs):
        # The same pass turned each CR into LF, so every CRLF is now two line ends.
        text = _NEWLINE_RUN.sub(lambda m: m.group()[: len(m.group()) // 2], text)
    replaced = data.count(b"\x1a")
    diagnostics.append(
        Diagnostic(
            1,
            "warning",
            "mangled-utf16",
            f"UTF-16LE text that went through a lossy UTF-8 conversion: {replaced} characters lost to replacement, "
            f"{repaired} line-final punctuation marks restored, {lost} other bytes lost; lost characters are U+FFFD",
        )
    )
    return text


def _strict_or_mixed(data: bytes, diagnostics: list[Diagnostic], known: str | None, *, bom: bool) -> tuple[str, str, bool]:
    try:
        text = data.decode("utf-8")
        return text, "utf-8", bom
    except UnicodeDecodeError as err:
        first_bad = err.start
    runs = high_byte_runs(data)
    utf8 = [pos for pos in runs if _UTF8_MULTIBYTE.match(data, pos)]
    # UTF-8 with a stray byte of a code page: three UTF-8 sequences, or most of the runs of high
    # bytes (two em dashes and one cp1252 apostrophe were read as cp1252, "â€”": sweep 27)
    if known == "utf-8" or len(utf8) >= 3 or 2 * len(utf8) > len(runs):
        return _mixed(data, diagnostics, first_bad), "utf-8", bom
    encoding = best_single_byte(data)
    double = None if utf8 else double_byte(data, runs)
    if double is not None:
        diagnostics.append(Diagnostic(None, "warning", "double-byte-encoding",
                                      f"read as {double[0]}: the bytes above 0x7F come in pairs, as in a Chinese, "
                                      "Japanese or Korean code page, and so read they are the CR's quotes and dashes "
                                      f"(read as {encoding}, two letters each); the CR was published in none of them"))
        return double[1], double[0], bom
    if utf8:
        line = len(_LINE_BREAK.findall(data, 0, utf8[0])) + 1
        diagnostics.append(Diagnostic(line, "warning", "mixed-encoding",
                                      f"read as {encoding}, though {len(utf8)} run(s) of its bytes read as UTF-8, first "
                                      f"at line {line}: if those are UTF-8, the text mixes encodings"))
    return data.decode(encoding, errors="replace"), encoding, bom


# and NEL, LS and PS in UTF-8, which a text's lines may end in alone (sweep 20): a file of such lines was one line,
# and one stray byte read the whole of it in a code page (sweep 43)
_LINE_BREAK = re.compile(rb"(\r\n|\r|\n|\xc2\x85|\xe2\x80[\xa8\xa9])")


def _mixed(data: bytes, diagnostics: list[Diagnostic], first_bad: int) -> str:
    """Mostly UTF-8, with lines in a single-byte code page: decode line by line. Lines end at
    CR, LF, CRLF, NEL, LS or PS, as everywhere: split on LF alone, a file of CR-ended lines was
    one line, and one cp1252 byte read 9,245 lines as mac_roman under a warning of one line
    (sweep 14)."""
    parts = _LINE_BREAK.split(data)  # the lines at even places, the breaks between them at odd
    lines = parts[0::2]
    bad = [i for i, raw in enumerate(lines) if not _is_utf8(raw)]
    fallback = best_single_byte(b"\n".join(lines[i] for i in bad))
    bad_set = set(bad)
    out = [part.decode("utf-8") if n % 2 else
           part.decode(fallback, errors="replace") if n // 2 in bad_set else part.decode("utf-8")
           for n, part in enumerate(parts)]
    first_line = len(_LINE_BREAK.findall(data, 0, first_bad)) + 1
    diagnostics.append(
        Diagnostic(
            first_line,
            "warning",
            "mixed-encoding",
            f"text is UTF-8 except {len(bad)} line(s) in another encoding (read as {fallback}), first at line {first_line}",
        )
    )
    return "".join(out)


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def high_byte_runs(data: bytes, limit: int = 4000) -> list[int]:
    """Start offsets of runs of bytes >= 0x80 (at most `limit`): a C-speed scan, since such
    bytes are rare in the CR and a regex over the whole file is several times slower."""
    marks = data.translate(_MARK_HIGH)
    starts: list[int] = []
    pos = marks.find(1)
    while pos != -1 and len(starts) < limit:
        starts.append(pos)
        end = marks.find(0, pos)
        if end == -1:
            break
        pos = marks.find(1, end)
    return starts


# Double-byte code pages of Chinese, Japanese and Korean systems. The CR was never published in
# one, but a copy saved on such a system is: its quotes and dashes are two bytes each, which a
# Western code page read as two characters each, without a word (sweep 38). Those whose every byte
# of such a character is above 0x7F leave almost no high byte alone, which Western text mostly
# has; Big5 and Shift_JIS may end a character with an ASCII byte, but refuse most Western text
# (a quote or a dash before a space): taken when they decode it all into the CR's characters.
_PAIRED = ("gb18030", "big5", "euc_kr", "euc_jp")
_ASCII_TRAILED = ("big5", "shift_jis")


def double_byte(data: bytes, runs: list[int] | None = None) -> tuple[str, str] | None:
    """The double-byte code page `data` is in, and the text it reads, if one decodes it (but for
    a few bytes: a last character cut short, a stray byte; each read as U+FFFD) and reads its high
    bytes (the runs starting at `runs`) as the CR's characters."""
    runs = high_byte_runs(data) if runs is None else runs
    if len(runs) < 10:
        return None
    marks = data.translate(_MARK_HIGH)
    ends = [len(data) if (end := marks.find(0, pos)) == -1 else end for pos in runs]
    alone = sum(1 for pos, end in zip(runs, ends) if end == pos + 1)
    most = max(8, len(runs) // 500)
    # GB18030 writes some characters the CR uses in four bytes, two of them digits (NBSP, (R), (TM),
    # an en dash, â): their high bytes are alone, and a fragment holding a few was read as mac_roman
    # (sweep 40)
    candidates = _PAIRED if alone <= 0.05 * len(runs) else ("gb18030", *_ASCII_TRAILED)
    decoded = [(codec, text) for codec in candidates
               if (text := _decoded_nearly(data, codec, most)) is not None]  # most Western text fails at once
    if not decoded:
        return None
    # each from the ASCII before a run to the ASCII after it: one cut inside a character misread
    # it, and EUC-KR's (R) and (TM) were taken for GB18030's (sweep 39)
    windows = b"\n".join(data[max(pos - 12, previous): min(end + 12, following)] for previous, pos, end, following
                         in zip([0, *ends], runs, ends, [*runs[1:], len(data)]))

    def score(codec: str) -> float:
        text = windows.decode(codec, errors="replace")
        return _score(text) - text.count("\ufffd")

    # not against the Western reading's score: one of pairs scores well too ("°∞l°±")
    value, codec, text = max(((score(codec), codec, text) for codec, text in decoded), key=lambda scored: scored[0])
    return (codec, text) if value > 0 else None


def _decoded_nearly(data: bytes, codec: str, most: int) -> str | None:
    """`data` decoded in `codec`, each byte it cannot decode as U+FFFD, if there are at most `most`
    of them (a file in another code page has many, found early: it fails fast)."""
    view, pieces, at, bad = memoryview(data), [], 0, 0  # decoded from where it failed, not copied there
    while True:
        try:
            pieces.append(str(view[at:], codec))
            return "".join(pieces)
        except UnicodeDecodeError as err:
            bad += 1
            if bad > most:
                return None
            pieces += [str(view[at:at + err.start], codec), "\ufffd"]
            at += err.end


def best_single_byte(data: bytes) -> str:
    """The candidate code page whose reading of the high bytes looks most like the CR.

    Only short windows around the high bytes are scored, so the cost does not grow with the
    (overwhelmingly ASCII) rest of the file.
    """
    cr_only = b"\r" in data and b"\n" not in data
    windows = b"\n".join(data[max(0, pos - 12) : pos + 16] for pos in high_byte_runs(data))
    scored = []
    for rank, encoding in enumerate(SINGLE_BYTE_CANDIDATES):
        # A byte the code page leaves undefined counts against it, as any unlikely character
        # does, and once more: one stray 0x81 in a cp1252 release left it out, and the whole
        # file was read as mac_roman, every dash an "ó" (sweep 27).
        text = windows.decode(encoding, errors="replace")
        score = _score(text) - text.count("\ufffd")
        if cr_only and encoding == "mac_roman":
            score += 0.5  # classic Mac OS files end lines with CR alone
        scored.append((score, -rank, encoding))
    return max(scored)[2]


def _score(text: str) -> float:
    score = 0.0
    for match in _NON_ASCII.finditer(text):
        ch = match.group()
        i = match.start()
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        if ch in _EXPECTED:
            if ch.isalpha() and not before.isalpha() and not after.isalpha():
                score -= 2  # " ó ": a letter alone, where a dash stood in another code page
                continue
            score += 1
            if ch.isalpha() and ch.isupper() and before.islower():
                score -= 2  # "DandÉn": an uppercase accent inside a lowercase word
            elif ch == "\u2019" and not before.isalnum() and after.isalpha() and before not in ".,!?\"”":
                score -= 2  # "’ther": a closing quote that opens a word
        else:
            score -= 2
    for word in _LEXICON:
        score += 5 * text.count(word)
    return score
