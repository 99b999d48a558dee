"""What the fuzzers share: one small seed document per format, and byte mutations.

Used by tests/test_fuzz.py (hypothesis, a short bounded run in every test run) and by
tools/fuzz.py (a long run in child processes under limits, for before a release).
"""

from __future__ import annotations

import random
from pathlib import Path

from builders import make_docx, make_pdf

TESTS = Path(__file__).resolve().parent
CR_TEXT = (TESTS / "fixtures" / "modern.txt").read_text(encoding="utf-8")
_RULE_LINES = [line for line in CR_TEXT.splitlines() if line.strip()][:60]


def seeds() -> dict[str, bytes]:
    """format -> a small valid document of that format (built here, none committed as binary)."""
    lines = _RULE_LINES
    html = "<html><body>" + "".join(f"<p>{line}</p>" for line in lines) + "</body></html>"
    md = "\n\n".join(("## " + line) if line[:3].isdigit() and line[3:4] == "." and line[4:5] == " " else line for line in lines)
    rst = "Rules\n=====\n\n" + "".join(
        f"{line.split(' ', 1)[0]}\n{'-' * len(line.split(' ', 1)[0])}\n\n{line.split(' ', 1)[-1]}\n\n" if line[:1].isdigit() else f"{line}\n\n"
        for line in lines
    )
    rtf = "{\\rtf1\\ansi\\ansicpg1252 " + "\\par\n".join(lines) + "}"
    return {
        "text": CR_TEXT.encode("utf-8"),
        "markdown": md.encode("utf-8"),
        "rst": rst.encode("utf-8"),
        "html": html.encode("utf-8"),
        "rtf": rtf.encode("latin-1", "replace"),
        "docx": make_docx(lines),
        "pdf": make_pdf([[(72, 740 - 12 * i, line[:90]) for i, line in enumerate(lines[k : k + 50])] for k in range(0, len(lines), 50)]),
    }


_TOKENS = [b"\x00", b"\xff", b"\xfe\xff", b"\n", b"\r", b"\t", b"\\u55296?", b"\\u-1?", b"<div>", b"</div>", b"<br>", b'"',
           b"\xe2\x80\x9c", b"See ", b"rule 100.1, ", b"100.1. ", b"Glossary\n", b".. toctree::\n\n   /etc/passwd\n",
           b":doc:`x`", b"\x01", b"\xed\xa0\x80",  # the last: a lone surrogate as UTF-8 bytes
           b"stream\n", b"endstream", b"PK\x03\x04", b"%PDF-", b"{\\rtf1", b"\\'e9", b"#" * 3, b"=" * 10]


def mutate(data: bytes, rnd: random.Random, steps: int = 4) -> bytes:
    """A few random edits: flip, delete, duplicate, insert a hostile token, truncate, splice."""
    buf = bytearray(data)
    for _ in range(steps):
        if not buf:
            buf += rnd.choice(_TOKENS)
            continue
        at = rnd.randrange(len(buf))
        op = rnd.randrange(7)
        if op == 0:
            buf[at] ^= 1 << rnd.randrange(8)
        elif op == 1:
            del buf[at : at + rnd.randint(1, 64)]
        elif op == 2:
            piece = buf[at : at + rnd.randint(1, 256)]
            buf[at:at] = piece * rnd.randint(1, 8)
        elif op == 3:
            buf[at:at] = rnd.choice(_TOKENS) * rnd.randint(1, 16)
        elif op == 4:
            del buf[at:]
        elif op == 5:
            other = rnd.randrange(len(buf))
            buf[at:at] = buf[other : other + rnd.randint(1, 512)]
        else:
            buf[at] = rnd.randrange(256)
    return bytes(buf)
