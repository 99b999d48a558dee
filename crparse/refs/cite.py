"""Citations of the CR outside it: in engine code, rulings, articles ("CR 704.5k", "rule
704.5k", "// 613.1f"). Each is read with the reference grammar and checked against one release.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crparse.decode import decode_bytes, looks_binary
from crparse.errors import CrparseError, RefusedInput
from crparse.inputs import Unread, read_regular
from crparse.limits import max_anchors, max_cited, max_input, max_references, too_many_anchors, too_many_cited, too_many_references
from crparse.lookup import Lookup
from crparse.nodes import Cited, Document
from crparse.refs.grammar import TooManyAnchors, iter_phrases
from crparse.refs.resolve import cite_item


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
    """A file's text, decoded as documents are (BOMs, UTF-16, code pages; CR, LF and CRLF all end
    a line). Binary files are refused, naming the file; an empty file has no text. Read as a
    document is: a regular file, within the input size limit."""
    try:
        data = read_regular(path, max_input())
    except Unread as why:
        if why.too_large:
            raise CrparseError(f"{why.reason}: raise it with CRPARSE_MAX_INPUT to read it", path=str(path)) from None
        raise CrparseError(why.reason if why.kind is None else f"not a regular file ({why.kind})", path=str(path)) from None
    if not data.strip():
        return ""
    try:
        return "\n".join(decode_bytes(data).lines)
    except CrparseError as err:
        # UTF-32, say, is a text it cannot read, said (sweep 15); so is a text with a stray
        # NUL byte, whose citations went unread without a word (sweep 16)
        if not err.message.startswith("binary data") or not looks_binary(data):
            raise err.located(str(path)) from None
        raise NotText(err.message, path=str(path), line=err.line) from None


class NotText(CrparseError):
    """A file that is no text (made of control bytes): in a directory walk, one of many a source
    tree holds."""


def citations(text: str, doc: Document, *, path: str = "<text>", targets: Lookup | None = None) -> list[Citation]:
    """Every CR citation in `text`, each item resolved against `doc`."""
    targets = targets or Lookup(doc)
    out = []
    # Citations come in text order: the line breaks between one and the next are counted by
    # str.count (C speed, each character once), with no table of every break of a large file.
    line, at, line_start = 1, 0, 0
    limit, cited_limit, cited_total = max_references(), max_cited(), 0
    try:
        for c in iter_phrases(text, cite=True, max_anchors=max_anchors()):
            crossed = text.count("\n", at, c.start)
            if crossed:
                line += crossed
                line_start = text.rfind("\n", at, c.start) + 1
            at = c.start
            cited = tuple(cite_item(i, text, targets) for i in c.items)
            out.append(Citation(path, line, c.start - line_start + 1, text[c.start : c.end], cited))
            cited_total += sum(max(1, len(x.nodes)) for x in cited)  # a missing target costs its reading too
            if len(out) > limit:
                raise RefusedInput(too_many_references(limit), path=path, line=line)
            if cited_total > cited_limit:
                raise RefusedInput(too_many_cited(cited_limit), path=path, line=line)
    except TooManyAnchors as flood:
        line = text.count("\n", 0, flood.offset) + 1
        raise RefusedInput(too_many_anchors(flood.limit), path=path, line=line) from None
    return out


def check_file(path: Path, doc: Document, targets: Lookup | None = None) -> list[Citation]:
    return citations(read_text(path), doc, path=str(path), targets=targets)
