"""Format detection by content (magic bytes, markup), with the file name as a hint only.

A web copy saved as `.txt` may hold reStructuredText or Markdown, and a `.doc` may be RTF, so
the content decides; the extension only breaks ties where the content says nothing.
"""

from __future__ import annotations

import re
import zipfile
from io import BytesIO

from crparse import shapes as S
from crparse.errors import UnsupportedFormat

FORMATS = ("text", "markdown", "rst", "html", "docx", "pdf", "rtf")

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_HTML = re.compile(rb"<!doctype\s+html|<html[\s>]|<body[\s>]|<(?:p|div|table|h[1-6]|a\s+href)[\s>=]", re.IGNORECASE)
# reST: a rule number underlined as a heading, or one of the directives the CR editions use.
_RST = re.compile(
    rb"^" + S.NUMBER.encode() + rb"[ \t]*\r?\n[-=~^\"'`#*+]{3,}[ \t]*\r?$"
    rb"|^[ \t]*\.\. (?:admonition|toctree|glossary|seealso|_[^:\r\n]+):",
    re.MULTILINE,
)
_MARKDOWN = re.compile(rb"^#{1,6}[ \t]+\S", re.MULTILINE)
_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".htm": "html", ".html": "html"}


def detect_format(raw: bytes, path: str | None = None) -> str:
    head = raw[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"{\\rtf"):
        return "rtf"
    if head.startswith(_OLE):
        raise UnsupportedFormat("Word 97-2003 .doc files are unsupported: convert it to DOCX (or RTF, PDF, plain text)")
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(raw)
    if _HTML.search(head[:2048]):
        return "html"
    sample = raw[:200_000]
    if b"\x00" in sample[:4096]:
        return "text"  # UTF-16: the plain-text decoder knows it; no markup edition uses it
    if _RST.search(sample):
        return "rst"
    if _MARKDOWN.search(sample):
        return "markdown"
    suffix = (path or "").lower().rpartition(".")[2]
    return _EXTENSIONS.get("." + suffix, "text")


def _zip_format(raw: bytes) -> str:
    try:
        names = zipfile.ZipFile(BytesIO(raw)).namelist()
    except (zipfile.BadZipFile, ValueError, OSError) as err:
        raise UnsupportedFormat(f"broken ZIP archive (a DOCX file is one): {err}") from None
    if "word/document.xml" in names:
        return "docx"
    if "content.xml" in names:
        raise UnsupportedFormat("OpenDocument files are unsupported: save it as DOCX")
    raise UnsupportedFormat("a ZIP archive that is not a DOCX document")
