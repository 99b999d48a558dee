"""Format detection by content (magic bytes, markup), with the file name as a hint only."""

from __future__ import annotations

from crparse.errors import UnsupportedFormat

FORMATS = ("text",)

_BINARY_SIGNATURES = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "DOCX (or another ZIP file)"),
    (b"{\\rtf", "RTF"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "Word 97-2003 .doc"),
)


def detect_format(raw: bytes, path: str | None = None) -> str:
    head = raw[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    for signature, name in _BINARY_SIGNATURES:
        if head.startswith(signature):
            advice = "convert it to DOCX or plain text" if name.startswith("Word") else "save it as plain text"
            raise UnsupportedFormat(f"{name} input is not supported yet: {advice}")
    lowered = head[:512].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<body" in lowered:
        raise UnsupportedFormat("HTML input is not supported yet: save the page as plain text")
    return "text"
