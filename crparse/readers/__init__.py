"""Format readers: raw bytes -> an Extract, the document as lines of CR-shaped text.

Every reader hands the same thing to the block stage, so the rest of the pipeline is the same
for every format. Readers of heavy formats import their library only when they are used.
"""

from __future__ import annotations

from importlib import import_module

from crparse.errors import UnsupportedFormat
from crparse.readers.backstop import within_cpu_limit
from crparse.readers.base import Extract
from crparse.readers.detect import FORMATS, detect_format

# format -> module with a `read(raw: bytes, path: str | None) -> Extract`
_MODULES = {
    "text": "crparse.readers.plaintext",
    "markdown": "crparse.readers.markdown",
    "rst": "crparse.readers.rst",
    "html": "crparse.readers.html",
    "docx": "crparse.readers.docx",
    "pdf": "crparse.readers.pdf",
    "rtf": "crparse.readers.rtf",
}
assert set(_MODULES) == set(FORMATS)
_NAMES = {"text": "text", "markdown": "Markdown", "rst": "reStructuredText", "html": "HTML", "docx": "DOCX",
          "pdf": "PDF", "rtf": "RTF"}


def read(raw: bytes, path: str | None = None, format: str | None = None) -> Extract:
    """Read `raw` as `format`, or as the format its content shows."""
    if format is not None and format not in _MODULES:
        raise UnsupportedFormat(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")
    fmt = format or detect_format(raw, path)
    reader = import_module(_MODULES[fmt])
    if fmt == "pdf":  # read in a confined child, with a CPU limit of its own (CRPARSE_MAX_PDF_SECONDS)
        return reader.read(raw, path)
    return within_cpu_limit(_NAMES[fmt], lambda: reader.read(raw, path))


__all__ = ["FORMATS", "Extract", "detect_format", "read"]
