"""The plain-text reader: the CR as WotC publishes it, and as the web copies it.

Plain text is already lines. The one repair made here is for web scrapes that fused a heading
and the first rule of a page onto one line (seed 000: `602. Attack Multiple Players Option
601.1 - Limited range ...`): such a line is split in two, both halves keeping its line number.
"""

from __future__ import annotations

import re

from crparse import shapes as C
from crparse.decode import decode
from crparse.readers.base import Extract

# A heading, two or more spaces, then a numbered rule in the scrape's "601.1 - " form. A line
# break inside never matches, and the lookahead says so at once: each "  601.1 - " before it
# would run to the break and fail, quadratic time on a long line of them.
_FUSED = re.compile(rf"(?=[^\n]*+\Z)(?P<head>[ \t]*\d{{1,3}}(?:\.|[ \t]+-)[ \t]+\S.*?\S)[ \t]{{2,}}(?P<rule>{C.NUMBER}[ \t]+[-\u2013][ \t]+\S.*+)")


def read(raw: bytes, path: str | None = None) -> Extract:
    decoded = decode(raw)
    lines = decoded.lines
    lines, origin = split_fused(lines) if _may_hold_fused(raw, decoded) else (lines, None)
    return Extract(
        format="text",
        lines=lines,
        origin=origin,
        source_text=decoded.lines if origin is not None else None,
        encoding=decoded.encoding,
        bom=decoded.bom,
        line_endings=decoded.line_endings,
        diagnostics=list(decoded.diagnostics),
    )


def _may_hold_fused(raw: bytes, decoded) -> bool:
    """False when no line can be fused: a fused line has a blank, a dash and a blank after its
    heading ("601.1 - "). Searched in the raw bytes, where a search is many times faster than in
    the decoded text, for needles whose last byte is rare (the search skips by it)."""
    encoding = decoded.encoding
    if encoding.startswith("utf-16") or any(d.code == "mixed-encoding" for d in decoded.diagnostics):
        return True
    if b"\t" in raw:
        return True
    try:
        dashes = (b"-", "\u2013".encode(encoding))
    except UnicodeEncodeError:  # a code page without an en dash (cp437) cannot hold one
        dashes = (b"-",)
    except LookupError:
        return True
    for dash in dashes:
        needle = b" " + dash
        at = raw.find(needle)
        while at >= 0:
            if raw[at + len(needle) : at + len(needle) + 1] == b" ":
                return True
            at = raw.find(needle, at + 1)
    return False


def split_fused(lines: list[str]) -> tuple[list[str], list[tuple[int, int]] | None]:
    """`lines` with fused heading+rule lines split; the origin map only when something was split."""
    fused = [(i, match) for i, line in enumerate(lines) if "  " in line and (match := _fused(line))]
    if not fused:
        return lines, None
    out: list[str] = []
    origin: list[tuple[int, int]] = []
    at = 0
    for i, match in fused:
        for j in range(at, i):
            out.append(lines[j])
            origin.append((j + 1, j + 1))
        out += [match["head"], "  " + match["rule"]]
        origin += [(i + 1, i + 1)] * 2
        at = i + 1
    for j in range(at, len(lines)):
        out.append(lines[j])
        origin.append((j + 1, j + 1))
    return out, origin


def _fused(line: str) -> re.Match | None:
    """The heading and the rule of a fused line; None for any other line."""
    match = _FUSED.fullmatch(line)
    if match is None:
        return None
    head = re.sub(r"^[ \t]*\d{1,3}(?:\.|[ \t]+-)[ \t]+", "", match["head"])
    return match if C.is_title_like(head) else None
