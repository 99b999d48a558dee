"""The RTF reader (striprtf): the text of the RTF file, one source line per line of it.

RTF stores non-ASCII characters as code-page bytes (`\\'92`) of the code page the file
declares (`\\ansicpg1252`; Mac files say `\\mac` and `\\ansicpg10000`), or as `\\uN` escapes:
N a signed 16-bit UTF-16 code unit, so that a character past U+FFFF is two escapes, a
surrogate pair (`\\u-10179?\\u-8704?`). striprtf emits each escape as one character: the
halves of a pair are joined here, and an escape that is no character (a lone half, a number
out of range) becomes U+FFFD with an `rtf-bad-escape` diagnostic on its line, so that one bad
escape neither stops the file nor reaches the output as text that cannot be written as UTF-8.
"""

from __future__ import annotations

import codecs
import io
import itertools
import re

from crparse.errors import RefusedInput
from crparse.nodes import Diagnostic
from crparse.readers.base import Extract

_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_CODECS = {10000: "mac_roman", 437: "cp437", 850: "cp850", 1252: "cp1252", 1250: "cp1250", 65001: "utf-8"}
_CHARSET = re.compile(rb"\\(mac|pca|pc|ansi)(?![a-zA-Z])")
_CHARSETS = {b"mac": "mac_roman", b"pca": "cp850", b"pc": "cp437", b"ansi": "cp1252"}
# A `\uN` escape as striprtf reads it (its control-word pattern: a lowercase "u", at most ten
# digits); an escaped backslash is matched first, so that "\\u123" stays text.
_ESCAPE = re.compile(r"\\\\|\\u(-?\d{1,10})|\\uc(?![A-Za-z0-9-])")
_TYPED_KEYWORD = re.compile(r"(?<!\\)(\\++)(?=(pict[a-zA-Z]?|bin))")


def _untyped(match: re.Match) -> str:
    """Backslashes before "pict" or "bin": an even run is typed text, parted from the word by an
    empty group; an odd one ends in a control word, renamed if it only starts so. (Written as
    the byte it is, "\\'5c", the backslash was "*" in a file of code page 500: sweep 16.)"""
    run = match[1]
    if len(run) % 2 == 0:
        return run + "{}"
    return run[:-1] + "\\crparse" if match[2].startswith("pict") and len(match[2]) == 5 else run


_ANSICPG = re.compile(r"(\\\\)|\\ansicpg(?=-?[0-9])")
# A control word's parameter past ten digits: striprtf reads ten and takes the rest for text
# ("\fs240000000000" put "00" into a rule, and "\ansicpg" with 30 digits put 20 before the
# next line's rule number, which was lost: sweep 27). A reader takes them all as the parameter;
# the parameter means nothing at that size, and is cut to ten digits.
_LONG_PARAMETER = re.compile(r"(\\\\)|(\\[a-zA-Z]{1,32}+-?[0-9]{10})[0-9]++")
_FONT_CHARSET = re.compile(r"\\fcharset(\d{1,10})")
# Destinations striprtf skips whose text a reader shows: a paragraph's number for readers that
# know no list table (\pntext: a rule number there was lost), the text of an `\upr` group (its
# ANSI copy is read; the Unicode copy, `\*\ud`, is skipped as any `\*` group), an object's
# result. Renamed, each is a group of text (sweep 20), starred or not (`{\*\pntext`: sweep 21), as
# is a list's number for readers that know lists (\listtext). An escaped backslash is passed over.
_SHOWN = re.compile(r"(\\\\)|(?:\\\*[ \t\r\n]*)?\\(pntext|upr|object|result|listtext)(?![a-zA-Z])")
# Stands for an escape out of Unicode's range in striprtf's output: a noncharacter, which no
# text holds, and no surrogate (it must not pair with a neighbouring escape).
_OUT_OF_RANGE = "\U0010ffff"
_BAD = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff\U0010ffff]")


def read(raw: bytes, path: str | None = None) -> Extract:
    from striprtf.striprtf import rtf_to_text

    header = raw[:2048]
    match = _CODEPAGE.search(header)
    if match:
        encoding = _CODECS.get(int(match[1]), f"cp{int(match[1])}")
    else:
        # the character set words: \pc and \pca (DOS code pages) were read as cp1252 (sweep 27)
        charset = _CHARSET.search(header)
        encoding = _CHARSETS[charset[1]] if charset else "cp1252"
    if not _known(encoding):  # striprtf would fail on the first \'xx with it
        encoding = "cp1252"
    # The file itself is 7-bit RTF; latin-1 hands its bytes through unchanged.
    rtf = raw.decode("latin-1")
    # striprtf takes each \ansicpgN as the code page from there on, "cpN", and UTF-8 for one Python
    # lacks: a Mac file's \ansicpg10000 read its accented letters as U+FFFD, and one in the body
    # switched the rest of the file (sweep 14). The header's, read above, is the file's.
    rtf, binary = _binary_data(rtf)  # on the file as it is: its offsets are the file's
    if _LONG_PARAMETER.search(rtf):
        rtf = _LONG_PARAMETER.sub(lambda m: m[1] or m[2], rtf)
    if "\\*" in rtf:
        rtf = _without_stray_stars(rtf)
    binary += _not_read(rtf) + _bare_destinations(rtf)
    if "\\ansicpg" in rtf:
        rtf = _ANSICPG.sub(lambda m: m[1] or "\\crparsecpg", rtf)
    rtf = _SHOWN.sub(lambda m: m[1] or f"\\crparse{m[2]}", rtf)
    rtf, hidden = _hidden_groups(rtf)
    binary += hidden
    # striprtf finds pictures and their data by the substrings "\pict" and "\bin": typed text
    # ("C:\\pictures", "C:\\bin0") and a control word that starts so ("\pictfoo") dropped the
    # text up to the next "}", or refused the file (sweep 15). A typed backslash before them is
    # written as the byte it is, and such a word renamed.
    if "\\pict" in rtf or "\\bin" in rtf:
        rtf = _TYPED_KEYWORD.sub(_untyped, rtf)
    rtf, stray, unclosed = _groups(rtf)
    binary += unclosed
    rtf, fallbacks = _fallbacks(rtf)
    rtf = _short_lines(_font_entries_ended(_no_hyperlink_starts(_safe_escapes(rtf))))
    try:
        text = rtf_to_text(rtf, encoding=encoding, errors="replace")
    except Exception as err:  # striprtf has no error type of its own
        message = " ".join(str(err).split())[:200]
        raise RefusedInput(f"cannot read this RTF file: {type(err).__name__}: {message}") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    diagnostics = binary + fallbacks + _undecoded(lines, encoding) + _repair_escapes(lines)
    if stray[1]:
        diagnostics.append(Diagnostic(None, "warning", "rtf-stray-brace",
                                      f"the document's group closed at line {stray[0]} of the RTF file, before its end: "
                                      f"{stray[1]:,} such \"}}\" read as stray, and the text after them read too"))
    return Extract(format="rtf", lines=lines, encoding=encoding, line_endings="none", diagnostics=diagnostics)


# A brace, or what escapes one or a backslash (`\{`, `\}`, `\\`: text, no group).
_BRACE = re.compile(r"\\[\\{}]|[{}]")


# striprtf keeps a state for each group open (a tuple of four): 3.9 million "{" took 362 MiB,
# 93 times the file (sweep 17). A document nests a few tens of groups.
MAX_RTF_DEPTH = 10_000


def _groups(rtf: str) -> tuple[str, tuple[int, int], list[Diagnostic]]:
    """One pass over the file's groups. The RTF without the "}" that close the document's group
    before its last text, with the line of the RTF the first was on and how many: striprtf
    reads nothing past that group's end, and a stray "}" halfway through a release dropped the
    rest of it, 1.3 MB, said only as "truncated" (sweep 12); the text is written as it goes (a
    list of 3.9 million cuts took 269 MiB: sweep 17). And a warning when the file's last "}"
    closes a group other than the document's: that group was never closed, and the text after
    its start is read as part of it, skipped where it is a destination (a picture, a bookmark):
    half a document went without a word (sweep 18). Groups nested past MAX_RTF_DEPTH are
    refused."""
    last = len(rtf.rstrip(" \t\r\n\x00"))
    starts: list[int] = []  # where each group open starts
    first, count, closes_last = -1, 0, None
    out, at = io.StringIO(), 0
    for match in _BRACE.finditer(rtf):
        brace = match.group()
        if brace == "{":
            starts.append(match.start())
            if len(starts) > MAX_RTF_DEPTH:
                raise RefusedInput(f"RTF groups nested more than {MAX_RTF_DEPTH:,} deep (MAX_RTF_DEPTH; a document "
                                   "nests a few tens): a damaged file?", line=rtf.count("\n", 0, match.start()) + 1)
        elif brace == "}":
            if len(starts) == 1 and match.end() < last:
                # an empty group in its place: cut out, it joined a control word before it to text
                # after it ("\\par}100." read 100 as \\par's parameter, and the rule was lost: sweep 28)
                out.write(rtf[at : match.start()])
                out.write("{}")
                at = match.end()
                first = match.start() if first < 0 else first
                count += 1
                continue
            if starts:
                start = starts.pop()
                if match.end() == last:
                    closes_last = start
    unclosed = []
    if closes_last is not None and starts:
        opening = " ".join(rtf[closes_last : closes_last + 24].split())
        unclosed.append(Diagnostic(None, "warning", "rtf-unclosed-group",
                                   f"the group opened at line {rtf.count(chr(10), 0, closes_last) + 1} of the RTF file "
                                   f"({opening!r}) is never closed: the text after it is read as part of it, and skipped "
                                   "if it is a picture or another destination"))
    if not count:
        return rtf, (0, 0), unclosed
    out.write(rtf[at:])
    return out.getvalue(), (rtf.count("\n", 0, first) + 1, count), unclosed


# striprtf runs two patterns that scan from each of their starts to the end of the line
# (HYPERLINKS, `{\field{\*\fldinst{.*HYPERLINK`, and FONTTABLE, `\f(\d+).*?\fcharset`): on one
# line of such starts their cost is its length squared (3.5 MB: over a minute). RTF ignores
# line breaks, so lines past LINE_WIDTH are broken where a break reads the same: before a group
# or a control word. Releases' lines hold under 350 characters between their line ends, but
# some end lines with CR alone, which those patterns cross: their text is the same broken.
LINE_WIDTH = 256
_LONG_LINE = re.compile(f"[^\n]{{{LINE_WIDTH + 1},}}")
# A group or a control word that no backslash escapes: after a run of backslashes of even
# length (`\\par` is a backslash and "par"), taken whole (possessive), so the search is linear.
# Never before a \\fcharset: it stays on its font number's line, where striprtf's font table pattern
# looks for it.
_BREAKABLE = re.compile(r"(?<!\\)(?:\\\\)*+(\{|\\(?!fcharset)[A-Za-z'])")


# striprtf's HYPERLINKS pattern starts at `{\field{\*\fldinst{`, and from there is quadratic in
# the rest of the line when no `}}` ends it (a field start and 40 KB of words without a brace or
# a control word, where no line can be broken: 12 s). A space after `\fldinst` is the control
# word's own delimiter, read the same, and no start is left: the pattern adds "(url)" after a
# link's text, which a rules text does without (no official release has a start it matches).
_FLDINST = re.compile(r"\\fldinst\{", re.IGNORECASE)  # as striprtf's pattern reads it


def _no_hyperlink_starts(rtf: str) -> str:
    pieces, done = [], 0
    for m in _FLDINST.finditer(rtf):
        before = rtf[max(0, m.start() - 64):m.start()]
        if (len(before) - len(before.rstrip("\\"))) % 2:
            continue  # `\\fldinst{` is a backslash and the text "fldinst{"
        pieces += [rtf[done:m.end() - 1], " "]
        done = m.end() - 1
    return "".join(pieces) + rtf[done:] if pieces else rtf


# striprtf's FONTTABLE pattern (`\f(\d+).*?\fcharset(\d+).*?([^;]+);`) runs over the font table,
# and its `[^;]+` crosses line breaks: in a table whose entries lack the `;` that ends each, every
# start scanned the rest of the table (800 entries: seconds; more, minutes). A `;` before each
# entry (a group, or a `\fN` word) ends the one before it: the table's text is never shown.
_FONT_ENTRY = re.compile(r"(?=\{|\\f\d)")


def _font_entries_ended(rtf: str) -> str:
    from striprtf.striprtf import FONTTABLE_START

    start = FONTTABLE_START.search(rtf)
    if start is None:
        return rtf
    depth, end = 1, len(rtf)
    for brace in _BRACE.finditer(rtf, start.end()):  # an escaped brace is a font name's text
        if brace[0] in ("{", "}"):
            depth += 1 if brace[0] == "{" else -1
            if depth == 0:
                end = brace.start()
                break
    # A font name's escaped braces are left out (the table is never shown): striprtf finds the
    # table's end counting them, and a ";" put before the "{" of "\{" made a group that hid the
    # whole text (sweep 26). And a ";" at its end ends the last entry, whose charset FONTTABLE
    # missed without it (sweep 24).
    table = _BRACE.sub(lambda m: "" if m[0] in ("\\{", "\\}") else m[0], rtf[start.end():end])
    if next(itertools.islice(_FONT_NUMBER.finditer(table), MAX_RTF_FONTS, None), None) is not None:
        raise RefusedInput(f"cannot read this RTF file: its font table holds more than {MAX_RTF_FONTS:,} fonts, the "
                           "most Word numbers (a damaged or made-up table)")
    return rtf[:start.end()] + _FONT_ENTRY.sub(";", _own_charsets(table)) + ";" + rtf[end:]


# Word numbers fonts up to 32,767; the official releases have under 20. Each entry costs striprtf
# and the charset pass a few hundred bytes: a table of a million bare "\f1" took 64 times a 4 MB
# file's size (sweep 26).
MAX_RTF_FONTS = 32_767
_FONT_NUMBER = re.compile(r"\\f[0-9]")


# What ends a font entry or starts one, and the font's number and charset (an escaped brace or
# backslash is text).
_FONT_WORDS = re.compile(r"\\[\\{}]|[{};]|\\f(\d+)|\\fcharset(\d+)")


def _own_charsets(table: str) -> str:
    """The font table with each entry's \\fcharset right after its \\fN, and `\\fcharset1` (no
    charset: the document's code page) in an entry that has none. striprtf's FONTTABLE takes the
    first \\fcharset after each \\fN, wherever it is: a font without one took the next font's,
    and its text that code page's letters (\\fcharset128: every accented letter and curly quote
    U+FFFD; \\fcharset204: "caf\u0439" for "caf\u00e9"), without a word (sweep 24). An entry is a
    group, or runs to its ";" or the next \\fN."""
    # a font's number or charset is ten digits at most (_LONG_PARAMETER, before): int() refuses
    # over 4,300 digits with Python's own words ("Exceeds the limit"), and a long number made
    # FONTTABLE backtrack over it (sweep 25)
    if "\\fcharset" not in table:
        return table
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in order
    depth = 0
    font = charset = None  # the open entry's \fN (its end) and first \fcharset (the match)

    def close() -> None:
        if font is None:
            return
        if charset is None:
            edits.append((font, font, "\\fcharset1"))
        elif charset.start() != font:  # right after the number: FONTTABLE's `.*?` between them
            # crosses no line break (a break there lost the font's charset) and, from each length of
            # a long number back, scanned to it (20,000 digits: 1.3 s; 100,000: over 30 s: sweep 25)
            edits.append((charset.start(), charset.end(), ""))
            edits.append((font, font, charset.group()))

    for match in _FONT_WORDS.finditer(table):
        word = match.group()
        if word in ("{", "}", ";"):
            depth += {"{": 1, "}": -1, ";": 0}[word]
            # an entry's group opens or closes, or a ";" ends the entry it is in
            if (word == "{" and depth == 1) or (word == "}" and depth == 0) or (word == ";" and depth <= 1):
                close()
                font = charset = None
        elif match[1] is not None:
            if font is not None and depth <= 1:
                close()
                font = charset = None
            if font is None:
                font = match.end()
        elif match[2] is not None and charset is None:
            charset = match
    close()
    if not edits:
        return table
    pieces, done = [], 0
    for start, end, text in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        pieces += [table[done:start], text]
        done = end
    return "".join(pieces) + table[done:]


def _short_lines(rtf: str) -> str:
    """The RTF with a line break inserted at least every LINE_WIDTH characters where it can go."""
    pieces = []
    done = 0
    for line in _LONG_LINE.finditer(rtf):
        start, end = line.span()
        while start + LINE_WIDTH < end:
            found = _BREAKABLE.search(rtf, start + LINE_WIDTH, end)
            if found is None:
                break
            start = found.start(1)
            pieces.append(rtf[done:start])
            pieces.append("\n")
            done = start
    if not pieces:
        return rtf
    pieces.append(rtf[done:])
    return "".join(pieces)


# Destinations holding text that striprtf leaves out, as the DOCX reader leaves out footnotes,
# comments, text boxes and equations: counted in a warning, never dropped silently (sweeps 14, 19)
_NOT_READ = re.compile(r"\{(?:\\\*)?[ \t\r\n]*(?:\\[a-zA-Z]{1,32}+-?[0-9]{0,10}+[ \t\r\n]*+){0,16}?\\(footnote|annotation|shptxt|dptxbxtext|xe|rxe|txe|tcn?|mmath"
                       r"|header[lrf]?|footer[lrf]?)(?![a-zA-Z])")
_KIND = {
    "footnote": ("footnote", "footnotes"),
    "annotation": ("annotation (comment)", "annotations (comments)"),
    # a shape's text box (\shptxt) has a copy for older readers (\dptxbxtext): both are one box
    "shptxt": ("text box", "text boxes"),
    "dptxbxtext": ("text box", "text boxes"),
    "xe": ("index entry", "index entries"),
    "rxe": ("index entry", "index entries"),
    "txe": ("index entry", "index entries"),
    "tc": ("table of contents entry", "table of contents entries"),
    "tcn": ("table of contents entry", "table of contents entries"),
    "mmath": ("equation", "equations"),
    "gtext": ("WordArt text", "WordArt texts"),
    **dict.fromkeys(("header", "headerl", "headerr", "headerf", "footer", "footerl", "footerr", "footerf"),
                    ("header or footer", "headers or footers")),
}


# WordArt: a shape whose text is a property's value, `{\sp{\sn gtextUNICODE}{\sv TEXT}}` (no
# destination of its own: it went unsaid, where text boxes were counted: sweep 27)
_WORDART = re.compile(r"\{\\sn[ \t\r\n]*+gtext(?:UNICODE)?[ \t\r\n]*+\}")


# A group whose text is hidden (\v) or a tracked deletion (\deleted), said so among its first
# control words: Word shows neither, striprtf read both into the rules (sweep 21). An escaped
# brace or backslash is text. (The same made by a control word later in a group, or turned off
# and on in a run, \v ... \v0, is not told.)
_HIDDEN = re.compile(r"(\\[\\{}])|\{((?:\\[a-zA-Z]{1,32}+-?[0-9]{0,10}+[ \t\r\n]*+){0,16}?)"
                     r"\\(v|deleted)1?(?![a-zA-Z0-9-])")


def _hidden_groups(rtf: str) -> tuple[str, list[Diagnostic]]:
    """The RTF with each group of hidden or deleted text made one to skip (`{\\*`), and their count."""
    count = 0

    def skipped(match: re.Match) -> str:
        nonlocal count
        if match[1]:
            return match[1]
        count += 1
        return "{\\*\\crparsehidden " + match[0][1:]

    if "\\v" not in rtf and "\\deleted" not in rtf:
        return rtf, []
    rtf = _HIDDEN.sub(skipped, rtf)
    if not count:
        return rtf, []
    return rtf, [Diagnostic(None, "info", "rtf-not-read",
                            f"{count:,} group(s) of hidden text or tracked deletions not read, as Word shows none")]


def _not_read(rtf: str) -> list[Diagnostic]:
    found: dict[str, int] = {}
    for match in _NOT_READ.finditer(rtf):
        found[match[1]] = found.get(match[1], 0) + 1
    if "gtext" in rtf:
        wordart = len(_WORDART.findall(rtf))
        if wordart:
            found["gtext"] = wordart
    if not found:
        return []
    counts: dict[tuple[str, str], int] = {}
    for word, n in found.items():
        kind = _KIND[word]
        counts[kind] = n + counts.get(kind, 0) if word not in ("shptxt", "dptxbxtext") else max(n, counts.get(kind, 0))
    said = ", ".join(f"{n:,} {one if n == 1 else many}" for (one, many), n in counts.items())
    return [Diagnostic(None, "warning", "rtf-not-read", f"text the reader does not read: {said}")]


# after an even number of backslashes, or none: `\\footnote` is a backslash typed, then text (review)
_CONTROL_WORD = re.compile(r"(?<!\\)(?:\\\\)*+\\([a-z]{1,32})(?![a-z])")
# read backwards from a control word: the control words and spaces before it, to the "{" (and
# "\*") that opens its group
_GROUP_START_BEFORE = re.compile(r"(?:[ \t\r\n]*+[0-9]{0,10}+-?[a-zA-Z]{1,32}+\\){0,16}+[ \t\r\n]*+(?:\*\\[ \t\r\n]*+)?\{")


def _bare_destinations(rtf: str) -> list[Diagnostic]:
    """A warning for destination control words (`\footnote`, `\fonttbl`...) that do not open a
    group: striprtf drops the rest of their group wherever they stand, and the rules after a
    `\footnote` typed in a paragraph went without a word (sweep 40)."""
    from striprtf.striprtf import destinations

    bare: list[tuple[int, str]] = []
    for match in _CONTROL_WORD.finditer(rtf):
        word, at = match[1], match.start(1) - 1
        if word in destinations and not _GROUP_START_BEFORE.match(rtf[max(0, at - 600):at][::-1]):
            bare.append((at, word))
    if not bare:
        return []
    at, word = bare[0]
    line = rtf.count("\n", 0, at) + 1
    return [Diagnostic(line, "warning", "rtf-not-read",
                       f"{len(bare):,} destination control word(s) inside a group's text (\\{word} at line {line} of "
                       "the RTF file): the rest of each one's group is not read")]


def _binary_data(rtf: str) -> tuple[str, list[Diagnostic]]:
    """The RTF without the data of its `\\binN` control words (N bytes of binary data), each
    replaced by an empty group and the line breaks it held, so that the file's line numbers stay; and what was
    said of them. RTF readers skip the data wherever it is. striprtf only does within a
    `\\pict`, and counted a picture as ended at the first "}" of a group within it: the data
    after "{\\pict{\\*\\picprop ...}" was read as text, and braces in the data as groups
    (sweep 16). It is skipped here, before any other pass reads the file, and striprtf sees no
    `\\binN` of its own. A `\\bin` with no length striprtf can read (it reads the digits after
    each "\\bin" with str.isdigit, which takes "²" too) is refused where a picture makes it
    read one: none, or more than Python converts, raised a ValueError whose text was all the
    message said."""
    if "\\bin" not in rtf:
        return rtf, []
    pictures = "\\pict" in rtf
    said: list[Diagnostic] = []
    pieces, done = [], 0
    at = rtf.find("\\bin")
    while at >= 0:
        if _typed(rtf, at):  # "C:\\bin": text, written as such before striprtf reads it
            at = rtf.find("\\bin", at + 4)
            continue
        digits = _DIGITS.match(rtf, at + 4)[0]
        length = _ASCII_DIGITS.match(digits)[0]
        if pictures and (not digits or length != digits or len(digits) > 4300):
            line = rtf.count("\n", 0, at) + 1
            shown = (digits[:20] + "...") if len(digits) > 20 else digits
            raise RefusedInput(f"a \\bin control word without a length striprtf can read (\\bin{shown}) in a file "
                               "with pictures: their binary data cannot be skipped", line=line)
        if not length:  # "\\binary", "\\bin-5": no data follows, a control word RTF readers pass over
            at = rtf.find("\\bin", at + 4)
            continue
        data = at + 4 + len(length) + (rtf[at + 4 + len(length) : at + 5 + len(length)] == " ")
        if len(length) > 15 or int(length) > len(rtf) - data:
            # the data would run past the end: all the text after it went, without a word (sweep 14)
            raise RefusedInput(f"a \\bin control word says {int(length[:15]):,}{'...' if len(length) > 15 else ''} "
                               "bytes of binary data follow, past the end of the file: the text after it cannot be read",
                               line=rtf.count("\n", 0, at) + 1)
        end = data + int(length)
        after = rtf[end : end + 64].lstrip(" \t\r\n")
        if end > data and not after.startswith("}") and len(said) < 16:
            # Binary data ends its group (a picture's, an object's): what follows is no "}" when
            # N runs into the text, which is skipped as data (half the glossary of a release: sweep 14)
            said.append(Diagnostic(None, "warning", "rtf-binary", f"\\bin{length} at byte {at:,} of the RTF file runs to "
                                   f"byte {end:,} without ending its group: what lies there is "
                                   "skipped as binary data, text included"))
        # an empty group ends the control word before it ("\\pict\\bin5 ab}{\\b" is no "\\pictb")
        pieces += [rtf[done:at], "{}", "\n" * rtf.count("\n", at, end)]
        done = end
        at = rtf.find("\\bin", end)
    pieces.append(rtf[done:])
    return "".join(pieces), said


def _typed(rtf: str, at: int) -> bool:
    """Whether the backslash at `at` is the second of an escaped pair (typed text)."""
    before = at
    while before > 0 and rtf[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


# What str.isdigit takes among the characters of a file decoded as latin-1, as striprtf reads it
_DIGITS = re.compile("[0-9\u00b2\u00b3\u00b9]*")
_ASCII_DIGITS = re.compile("[0-9]*")


# \ucN: how many characters stand after each \uN for readers without Unicode, skipped by those
# with it. A character's fallback is a byte or two; a \uc9999999999 dropped the text after each
# escape up to the next control word, a rule's, without a word (sweep 17).
MAX_FALLBACK = 8
# \\ucN, N negative or a "-" alone too: striprtf took "\\uc-" for a \\uc with no number, int(None) (sweep 28)
_FALLBACK = re.compile(r"(?<!\\)((?:\\\\)*+)\\uc(-[0-9]*+|[0-9]++)")


# "\\*" marks the destination a group opens as one to skip when unknown: it belongs right after
# the group's "{". Elsewhere striprtf took it for the document group's, and skipped the rest of
# the document without a word (sweep 29); RTF readers pass over it.
_STAR = re.compile(r"(\\\\)|\\\*")


def _without_stray_stars(rtf: str) -> str:
    def kept(match: re.Match) -> str:
        if match[1]:
            return match[1]
        at = match.start() - 1
        while at >= 0 and rtf[at] in "\r\n":  # each line break before a star once: linear
            at -= 1
        return match[0] if at >= 0 and rtf[at] == "{" else ""

    return _STAR.sub(kept, rtf)


def _fallbacks(rtf: str) -> tuple[str, list[Diagnostic]]:
    """The RTF with each \\ucN past MAX_FALLBACK read as RTF's default \\uc1, and a warning if
    one was."""
    if "\\uc" not in rtf:
        return rtf, []
    found: list[str] = []

    def capped(match: re.Match) -> str:
        if not match[2].startswith("-") and len(match[2]) < 3 and int(match[2]) <= MAX_FALLBACK:
            return match[0]
        found.append(match[2] if len(match[2]) <= 20 else match[2][:20] + "...")
        return f"{match[1]}\\uc1"  # RTF's default: one character, as after a \\uc with no number

    rtf = _FALLBACK.sub(capped, rtf)
    if not found:
        return rtf, []
    return rtf, [Diagnostic(None, "warning", "rtf-bad-escape",
                            f"{len(found)} \\ucN escape(s) with more fallback characters than any character has, or "
                            "fewer than none "
                            f"(\\uc{found[0]}): read as \\uc1, RTF's default (one character after each \\uN "
                            "skipped)")]


def _safe_escapes(rtf: str) -> str:
    """The RTF with what makes striprtf raise taken out: a `\\uN` past what chr() takes (striprtf
    adds 65536 to a negative N, so -65536 to 0x10FFFF is fine), a `\\uc` without its number
    (int(None)), a font charset that names a codec Python does not have ("mac_japanese")."""
    if "\\u" in rtf:
        rtf = _ESCAPE.sub(_safe_escape, rtf)
    if "\\fcharset" in rtf:
        rtf = _FONT_CHARSET.sub(_safe_charset, rtf)
    return rtf


def _safe_escape(match: re.Match) -> str:
    text = match[0]
    if text == "\\\\":
        return text
    if match[1] is None:  # "\uc" alone: the default, one fallback character
        return "\\uc1"
    if -65536 <= int(match[1]) <= 0x10FFFF:
        return text
    return f"\\u{ord(_OUT_OF_RANGE):010d}"  # ten digits, as many as striprtf reads: a digit after stays text


def _safe_charset(match: re.Match) -> str:
    from striprtf.striprtf import charset_map

    name = charset_map.get(int(match[1]))
    # 1 is no charset striprtf knows: the font's text is then read in the document's code page.
    return match[0] if name is None or _known(name) else "\\fcharset1"


def _known(encoding: str) -> bool:
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def _undecoded(lines: list[str], encoding: str) -> list[Diagnostic]:
    """U+FFFD in the text as striprtf gave it: a \\'xx byte the code page does not decode (under
    \\ansicpg65001, bytes that are no UTF-8), or the character written as such; said, as the
    text reader says it (it was not: sweep 27)."""
    lines_with = [i for i, line in enumerate(lines) if "\ufffd" in line]
    if not lines_with:
        return []
    count = sum(lines[i].count("\ufffd") for i in lines_with)
    return [Diagnostic(lines_with[0] + 1, "warning", "replacement-characters",
                       f"{count:,} U+FFFD replacement character(s): bytes the document's code page ({encoding}) does "
                       "not decode, or the character itself in the file")]


def _repair_escapes(lines: list[str]) -> list[Diagnostic]:
    """Join surrogate pairs and replace what is no character by U+FFFD, in place; a diagnostic
    for each line where something was replaced."""
    diagnostics = []
    for i, line in enumerate(lines):
        if not _BAD.search(line):
            continue
        replaced = 0

        def repair(match: re.Match) -> str:
            nonlocal replaced
            pair = match[0]
            if len(pair) == 2:
                return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))
            replaced += 1
            return "\ufffd"

        lines[i] = _BAD.sub(repair, line)
        if replaced:
            diagnostics.append(
                Diagnostic(i + 1, "warning", "rtf-bad-escape",
                           f"{replaced} \\u escape(s) that are no character (a lone surrogate half, or a number out of "
                           "range) replaced by U+FFFD")
            )
    return diagnostics
