"""The RTF reader (striprtf): the text of the RTF file, one source line per line of it.

RTF stores non-ASCII characters as code-page bytes (`\\'92`) of the code page the file
declares (`\\ansicpg1252`; Mac files say `\\mac` and `\\ansicpg10000`), or as `\\uN` escapes.
"""

from __future__ import annotations

import re

from crparse.errors import RefusedInput
from crparse.readers.base import Extract

_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")
_CODECS = {10000: "mac_roman", 437: "cp437", 850: "cp850", 1252: "cp1252", 1250: "cp1250", 65001: "utf-8"}


def read(raw: bytes, path: str | None = None) -> Extract:
    from striprtf.striprtf import rtf_to_text

    header = raw[:2048]
    match = _CODEPAGE.search(header)
    if match:
        encoding = _CODECS.get(int(match[1]), f"cp{int(match[1])}")
    else:
        encoding = "mac_roman" if b"\\mac" in header else "cp1252"
    try:
        # The file itself is 7-bit RTF; latin-1 hands its bytes through unchanged.
        text = rtf_to_text(raw.decode("latin-1"), encoding=encoding, errors="replace")
    except Exception as err:  # striprtf has no error type of its own
        raise RefusedInput(f"cannot read this RTF file: {type(err).__name__}: {err}") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return Extract(format="rtf", lines=lines, encoding=encoding, line_endings="none")
