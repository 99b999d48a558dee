"""Damage that survives decoding: characters lost before the file reached us, and truncation
signs that show at the text level. Each kind is reported once, with its first line and a count."""

from __future__ import annotations

import re

from crparse.nodes import Diagnostic

# An apostrophe, dash or accent that became "?" sits between two letters ("owner?s",
# "doesn?t", "cards?even"); URLs ("default.asp?x=") are the legitimate exception.
_QUESTION = re.compile(r"\?")
_REPLACEMENT = "\ufffd"

# A lone surrogate is no character (an escape in markup, a file name's byte that is not UTF-8 in
# Python): no UTF-8 output or SQLite store takes one, so whatever writes text replaces it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# Releases have a handful of these from genuine mis-conversions; a lossy copy has hundreds.
QUESTION_MARK_THRESHOLD = 40


def find_damage(decoded) -> tuple[Diagnostic, ...]:
    text = decoded.content or decoded.text  # searched as decoded: joining the lines costs more
    line_at = decoded.line_at if decoded.content else (lambda offset: text.count("\n", 0, offset) + 1)
    found: list[Diagnostic] = []
    if decoded.encoding != "utf-16-le" or not any(d.code == "mangled-utf16" for d in decoded.diagnostics):
        n = text.count(_REPLACEMENT)
        if n:
            first = line_at(text.index(_REPLACEMENT))
            found.append(
                Diagnostic(
                    first,
                    "warning",
                    "replacement-characters",
                    f"{n} U+FFFD replacement character(s): characters were lost before this copy was made",
                )
            )
    hits = [
        m.start()
        for m in _QUESTION.finditer(text)
        if 0 < m.start() < len(text) - 1
        and text[m.start() - 1].isalpha()
        and text[m.start() + 1].isalpha()
        and not _in_url(text, m.start())
    ]
    if len(hits) >= QUESTION_MARK_THRESHOLD:
        first = line_at(hits[0])
        found.append(
            Diagnostic(
                first,
                "warning",
                "lossy-question-marks",
                f"{len(hits)} '?' inside words (e.g. \"owner?s\"): non-ASCII characters were replaced by '?' in this copy",
            )
        )
    return tuple(found)


def _in_url(text: str, pos: int) -> bool:
    start = max(0, pos - 40)
    word_start = max(text.rfind(" ", start, pos), text.rfind("\n", start, pos), text.rfind("\r", start, pos))
    return "/" in text[word_start + 1 : pos] or "www." in text[word_start + 1 : pos]
