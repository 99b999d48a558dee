"""The vocabulary every stage shares: the node types of the rule tree and of its references.

Plain immutable data and nothing else: no I/O, no caches, no serialisation (the writers do
that, as docutils' writers read its nodes.py). Lookups that want an index (by number, by term,
by line) build one explicitly: `crparse.lookup.Lookup(doc)`.

The nodes are msgspec Structs rather than dataclasses: frozen and slotted like
`@dataclass(frozen=True, slots=True)`, but built in C (a Rule in ~0.15 us against ~2.3 us for a
frozen dataclass, which is a tenth of a whole parse for 3,000 rules) and left out of the cyclic
collector (`gc=False`: a tree holds no cycles). `msgspec.structs.replace` is their
`dataclasses.replace`.

Line numbers are 1-based source lines. Each node records the spans of the lines it was built
from (`spans`), so the parser can prove that every input line ended up somewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from msgspec import Struct

Kind = Literal["part", "section", "rule", "subrule"]
Span = tuple[int, int]
Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


class Node(Struct, frozen=True, gc=False):
    """Base of every node type: immutable, compared and hashed by value."""


# -- what the parser noticed ----------------------------------------------------------------


class Diagnostic(Node):
    line: int | None
    severity: Severity
    code: str
    message: str


# -- the source ---------------------------------------------------------------------------------


class SourceFile(Node):
    """One file of a multi-file edition (a reST toctree): its lines are numbered from
    `first_line` in the document's line numbering, which runs over the files in reading order."""

    path: str
    first_line: int
    lines: int


class Source(Node):
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


# -- the tree -----------------------------------------------------------------------------------


class Example(Node):
    text: str
    line: int
    end_line: int
    label: str = "Example:"
    changed: str | None = None


class Rule(Node):
    """A numbered unit: part ("1"), section ("100"), rule ("100.1") or subrule ("100.1a")."""

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


class GlossaryEntry(Node):
    term: str
    text: str
    line: int
    end_line: int
    senses: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    spans: tuple[Span, ...] = ()


class Block(Node):
    """A paragraph of front matter or credits, kept as printed (line breaks included)."""

    kind: str
    text: str
    line: int
    end_line: int


class ContentsEntry(Node):
    number: str | None
    title: str
    line: int
    page: int | None = None


class IndexEntry(Node):
    term: str
    locators: str
    depth: int
    line: int


class Residue(Node):
    line: int
    text: str
    reason: str
    end_line: int | None = None  # set when a wrapped paragraph spans several lines


class Link(Node):
    """A cross-reference the markup itself made (an HTML anchor, a reST `:ref:` role, label or
    `seealso`), as opposed to one written in the text. `rule` is the rule number the target
    names, when it names one; `target` is the target as written (href, label)."""

    line: int
    kind: str
    text: str
    target: str
    rule: str | None = None


class Region(Node):
    """Where a part of the document lies: front, contents, body, glossary, index, credits.
    `heading` is the text of the line that opens it (at `line`), if it has one."""

    name: str
    line: int
    end_line: int
    heading: str | None = None


class Fragment(Node):
    """Set when the document is a part of a CR (a single section, a web excerpt)."""

    first: str
    last: str
    sections: tuple[str, ...]


class Document(Node):
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

    def rule(self, number: str) -> Rule:
        """The (first) numbered unit with this number; KeyError if absent. A scan: for many
        lookups build a `crparse.lookup.Lookup` once."""
        key = number.rstrip(".")
        for r in self.rules:
            if r.number == key:
                return r
        raise KeyError(number)

    def __contains__(self, number: str) -> bool:
        key = number.rstrip(".")
        return any(r.number == key for r in self.rules)

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

    def accounted_lines(self) -> Iterator[tuple[int, int, tuple[str, str]]]:
        """Every (first, last, where) span of source lines the tree holds; `where` names the
        holder as (kind, name): ("rule", "704.5k"), ("example", "704.5k"), ("residue", reason)."""
        for region in self.regions:
            if region.heading is not None:
                yield region.line, region.line, ("heading", region.name)
        for b in self.front_matter:
            yield b.line, b.end_line, ("front_matter", b.kind)
        for c in self.contents:
            yield c.line, c.line, ("contents", c.title)
        for r in self.rules:
            where = ("rule", r.number)
            for first, last in r.spans:
                yield first, last, where
            for ex in r.examples:
                yield ex.line, ex.end_line, ("example", r.number)
        for g in self.glossary:
            where = ("glossary", g.term)
            for first, last in g.spans:
                yield first, last, where
            for ex in g.examples:
                yield ex.line, ex.end_line, ("example", g.term)
        for i in self.index:
            yield i.line, i.line, ("index", i.term)
        for b in self.credits:
            yield b.line, b.end_line, ("credits", b.kind)
        for res in self.residue:
            if res.reason != "change-stamp":  # the end of a line a node already holds
                yield res.line, res.end_line or res.line, ("residue", res.reason)


# -- references: a layer over the tree ----------------------------------------------------------
#
# Each reference names the node whose text holds it, its character span in that text, and what
# it cites; the tree's text is never edited. Node ids are the ones the reference graph uses: a
# rule number ("704.5k", "704", "7") for a numbered unit, "glossary:<term>" for a glossary entry,
# "index:<term>" for a 1999 index entry, "front_matter:<n>" for the n-th paragraph of front matter.

Status = Literal["resolved", "dangling", "external"]
Field = Literal["text", "example", "locators"]
STATUSES: tuple[Status, ...] = ("resolved", "dangling", "external")


class Cited(Node):
    """One item of a reference as written: a number, a range, a section, a glossary term.

    `first`/`last` are the node ids of the endpoints (equal for a single target); `nodes` the
    existing nodes it names (a range: each existing member); `title` the title quoted with it.
    """

    text: str
    kind: Literal["rule", "section", "range", "glossary"]
    first: str
    last: str
    nodes: tuple[str, ...]
    status: Status
    title: str | None = None
    title_matches: bool | None = None


class Reference(Node):
    source: str
    field: Field
    example: int | None  # index among the source's examples when field == "example"
    start: int
    end: int
    text: str
    line: int  # first source line of the paragraph that holds the reference
    cited: tuple[Cited, ...]
    status: Status
    flags: tuple[str, ...] = ()  # "title-mismatch"

    @property
    def targets(self) -> tuple[str, ...]:
        """Every node id the reference names: existing members, and missing endpoints as cited."""
        out: dict[str, None] = {}  # ordered and deduplicated in one pass (a range may name thousands)
        for c in self.cited:
            out.update(dict.fromkeys(c.nodes))
            if c.status != "resolved":
                out.update(dict.fromkeys((c.first, c.last)))
        return tuple(out)

    @property
    def broken(self) -> bool:
        return self.status == "dangling" or bool(self.flags)
