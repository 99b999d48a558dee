"""References: a layer over the rule tree. Each one names the node whose text holds it, its
character span in that text, and what it cites. The tree's text is never edited.

Node ids are the ones the graph uses: a rule number ("704.5k", "704", "7") for a numbered unit,
"glossary:<term>" for a glossary entry, "index:<term>" for a 1999 index entry, "front_matter:<n>"
for the n-th paragraph of front matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["resolved", "dangling", "external"]
Field = Literal["text", "example", "locators"]

STATUSES: tuple[Status, ...] = ("resolved", "dangling", "external")


@dataclass(frozen=True, slots=True)
class Cited:
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


@dataclass(frozen=True, slots=True)
class Reference:
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
        out: list[str] = []
        for c in self.cited:
            names = c.nodes if c.status == "resolved" else tuple(dict.fromkeys((*c.nodes, c.first, c.last)))
            for n in names:
                if n not in out:
                    out.append(n)
        return tuple(out)

    @property
    def broken(self) -> bool:
        return self.status == "dangling" or bool(self.flags)
