"""Citations of the CR outside it: in engine code, rulings, articles ("CR 704.5k", "rule
704.5k", "// 613.1f"). Each is read with the reference grammar and checked against one release.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from crparse.errors import CrparseError
from crparse.refs.grammar import phrases
from crparse.refs.model import Cited
from crparse.refs.resolve import Targets, cite_item
from crparse.tree.model import Document

_BINARY_SNIFF = 8192


@dataclass(frozen=True, slots=True)
class Citation:
    path: str
    line: int
    column: int  # 1-based
    text: str
    cited: tuple[Cited, ...]

    @property
    def stale(self) -> tuple[Cited, ...]:
        """The items that name no rule of the release."""
        return tuple(c for c in self.cited if c.status != "resolved")

    @property
    def missing(self) -> tuple[str, ...]:
        """The numbers cited that the release lacks (a range's missing endpoints)."""
        return tuple(dict.fromkeys(n for c in self.stale for n in (c.first, c.last) if n not in c.nodes))


def read_text(path: Path) -> str:
    """A source file's text. Undecodable bytes are replaced (a citation is ASCII); a file with NUL
    bytes in its head is binary and refused."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CrparseError(f"cannot read: {err.strerror or err}", path=str(path)) from err
    if b"\0" in data[:_BINARY_SNIFF] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CrparseError("binary file, not text", path=str(path))
    for codec in ("utf-8-sig", "utf-16") if data.startswith((b"\xff\xfe", b"\xfe\xff")) else ("utf-8-sig",):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def citations(text: str, doc: Document, *, path: str = "<text>", targets: Targets | None = None) -> list[Citation]:
    """Every CR citation in `text`, each item resolved against `doc`."""
    targets = targets or Targets(doc)
    breaks = [i for i, ch in enumerate(text) if ch == "\n"]
    out = []
    for c in phrases(text, cite=True):
        line = bisect.bisect_left(breaks, c.start)
        column = c.start - (breaks[line - 1] + 1 if line else 0) + 1
        cited = tuple(cite_item(i, text, targets) for i in c.items)
        out.append(Citation(path, line + 1, column, text[c.start : c.end], cited))
    return out


def check_file(path: Path, doc: Document, targets: Targets | None = None) -> list[Citation]:
    return citations(read_text(path), doc, path=str(path), targets=targets)
