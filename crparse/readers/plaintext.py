"""The plain-text reader: the CR as WotC publishes it (and as the web copies it)."""

from __future__ import annotations

from crparse.decode import DecodedText


def read_lines(decoded: DecodedText, fmt: str = "text") -> list[str]:
    """Plain text is already lines; line i of the list is source line i + 1."""
    return decoded.lines
