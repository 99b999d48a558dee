"""The plain-text reader: the CR as WotC publishes it (and as the web copies it)."""

from __future__ import annotations


def read_lines(text: str, fmt: str = "text") -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not open another
    return lines
