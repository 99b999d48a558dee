"""The rule tree: plain immutable data that every later stage and every writer reads.

Line numbers are 1-based source lines. Each node records the spans of the lines it was built
from (`spans`), so the parser can prove that every input line ended up somewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from crparse.diagnostics import Diagnostic

Kind = Literal["part", "section", "rule", "subrule"]
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a multi-file edition (a reST toctree): its lines are numbered from
    `first_line` in the document's line numbering, which runs over the files in reading order."""

    path: str
    first_line: int
    lines: int


@dataclass(frozen=True, slots=True)
class Source:
    path: str | None
    format: str
    encoding: str
    bom: bool
    line_endings: str
    sha256: str
    size: int
    lines: int
    files: tuple[SourceFile, ...] = ()

    def locate(self, line: int) -> tuple[str | None, int]:
        """The file and its own line number for a document line number."""
        for f in reversed(self.files):
            if line >= f.first_line:
                return f.path, line - f.first_line + 1
        return self.path, line


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    line: int
    end_line: int
    label: str = "Example:"
    changed: str | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    number: str
    kind: Kind
    parent: str | None
    title: str
    text: str
    examples: tuple[Example, ...]
    line: int
    end_line: int
    changed: str | None = None
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    term: str
    text: str
    line: int
    end_line: int
    senses: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph of front matter or credits, kept as printed (line breaks included)."""

    kind: str
    text: str
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class ContentsEntry:
    number: str | None
    title: str
    line: int
    page: int | None = None


@dataclass(frozen=True, slots=True)
class IndexEntry:
    term: str
    locators: str
    depth: int
    line: int


@dataclass(frozen=True, slots=True)
class Residue:
    line: int
    text: str
    reason: str
    end_line: int | None = None  # set when a wrapped paragraph spans several lines


@dataclass(frozen=True, slots=True)
class Link:
    """A cross-reference the markup itself made (an HTML anchor, a reST `:ref:` role, label or
    `seealso`), as opposed to one written in the text. `rule` is the rule number the target
    names, when it names one; `target` is the target as written (href, label)."""

    line: int
    kind: str
    text: str
    target: str
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class Region:
    """Where a part of the document lies: front, contents, body, glossary, index, credits.
    `heading` is the text of the line that opens it (at `line`), if it has one."""

    name: str
    line: int
    end_line: int
    heading: str | None = None


@dataclass(frozen=True, slots=True)
class Fragment:
    """Set when the document is a part of a CR (a single section, a web excerpt)."""

    first: str
    last: str
    sections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Document:
    source: Source
    title: str | None
    effective_date: str | None
    fragment: Fragment | None
    regions: tuple[Region, ...]
    front_matter: tuple[Block, ...]
    contents: tuple[ContentsEntry, ...]
    rules: tuple[Rule, ...]
    glossary: tuple[GlossaryEntry, ...]
    index: tuple[IndexEntry, ...]
    credits: tuple[Block, ...]
    residue: tuple[Residue, ...]
    diagnostics: tuple[Diagnostic, ...]
    links: tuple[Link, ...] = ()
    _by_number: dict = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    def rule(self, number: str) -> Rule:
        """The (first) numbered unit with this number; KeyError if absent."""
        if self._by_number is None:
            index: dict[str, Rule] = {}
            for r in self.rules:
                index.setdefault(r.number, r)
            object.__setattr__(self, "_by_number", index)
        return self._by_number[number.rstrip(".")]

    def __contains__(self, number: str) -> bool:
        try:
            self.rule(number)
        except KeyError:
            return False
        return True

    def children(self, number: str) -> Iterator[Rule]:
        return (r for r in self.rules if r.parent == number)

    @property
    def examples(self) -> Iterator[tuple[Rule, Example]]:
        for r in self.rules:
            for ex in r.examples:
                yield r, ex

    def counts(self) -> dict[str, int]:
        kinds = {"part": 0, "section": 0, "rule": 0, "subrule": 0}
        for r in self.rules:
            kinds[r.kind] += 1
        return {
            "parts": kinds["part"],
            "sections": kinds["section"],
            "rules": kinds["rule"],
            "subrules": kinds["subrule"],
            "examples": sum(len(r.examples) for r in self.rules),
            "glossary": len(self.glossary),
            "glossary_examples": sum(len(g.examples) for g in self.glossary),
            "residue": len(self.residue),
            "diagnostics": len(self.diagnostics),
        }

    def accounted_lines(self) -> Iterator[tuple[int, int, str]]:
        """Every (first, last, where) span of source lines the tree holds."""
        for region in self.regions:
            if region.heading is not None:
                yield region.line, region.line, f"{region.name} heading"
        for b in self.front_matter:
            yield b.line, b.end_line, "front_matter"
        for c in self.contents:
            yield c.line, c.line, "contents"
        for r in self.rules:
            for first, last in r.spans:
                yield first, last, f"rule {r.number}"
            for ex in r.examples:
                yield ex.line, ex.end_line, f"example of {r.number}"
        for g in self.glossary:
            for first, last in g.spans:
                yield first, last, f"glossary {g.term}"
            for ex in g.examples:
                yield ex.line, ex.end_line, f"example of {g.term}"
        for i in self.index:
            yield i.line, i.line, "index"
        for b in self.credits:
            yield b.line, b.end_line, "credits"
        for res in self.residue:
            if res.reason != "change-stamp":  # the end of a line a node already holds
                yield res.line, res.end_line or res.line, "residue"

    def to_dict(self) -> dict:
        from crparse.writers.json import document_to_dict

        return document_to_dict(self)

    def to_json(self, *, indent: int | None = None) -> str:
        from crparse.writers.json import dumps

        return dumps(self, indent=indent)
