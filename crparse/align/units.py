"""The units two releases are aligned by: every numbered node and every glossary entry, with the
text it is compared on.

A unit's text is what a reader sees of it: a section's title, a rule's title and text, then its
examples, each on a line of its own. Rules and subrules are one class (a subrule can become a
rule); parts, sections and glossary entries are classes of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crparse.align.text import fold_all, masked_all
from crparse.nodes import Document, GlossaryEntry, Rule

CLASSES = {"part": "part", "section": "section", "rule": "rule", "subrule": "rule"}


@dataclass(slots=True, eq=False)
class Unit:
    key: str  # the number, or "glossary:Term"
    cls: str  # part, section, rule, glossary
    parent: str | None
    order: int  # position in the document
    text: str  # as printed: title, text, examples
    head: str  # title and text, as printed
    examples: str
    # Set by `prepare`, for the units the raw text did not pair (most of a release pairs as is):
    folded: str = ""  # typography folded
    masked: str = ""  # folded, cited numbers replaced
    cited: tuple[str, ...] = ()
    core: str = ""  # masked without the examples: what identifies the rule when examples change
    prepared: bool = False
    previous: Unit | None = field(default=None, repr=False)  # the sibling before it
    following: Unit | None = field(default=None, repr=False)


def _rule_text(r: Rule) -> tuple[str, str]:
    # once for every rule of both releases: no generator where a test of two fields does
    title, text = r.title, r.text
    head = f"{title}\n{text}" if title and text else title or text
    if not r.examples:
        return head, ""
    return head, "\n".join(f"{e.label} {e.text}" if e.text else e.label for e in r.examples)


def _entry_text(g: GlossaryEntry) -> tuple[str, str]:
    head = "\n".join((g.term, g.text))
    examples = "\n".join(f"{e.label} {e.text}" for e in g.examples)
    return head, examples


def prepare(us: list[Unit]) -> None:
    """Fold and mask the texts of `us` (those not yet prepared), one pass of each pattern over
    all of them: see text.fold_all."""
    us = [u for u in us if not u.prepared]
    if not us:
        return
    n = len(us)
    folded = fold_all([u.head for u in us] + [u.examples for u in us])
    masks = masked_all(folded)
    for i, u in enumerate(us):
        (core, cited), (example_masked, example_cited) = masks[i], masks[n + i]
        u.core, u.prepared = core, True
        if u.examples:
            u.folded = f"{folded[i]}\n{folded[n + i]}"
            u.masked, u.cited = f"{core}\n{example_masked}", cited + example_cited
        else:
            u.folded, u.masked, u.cited = folded[i], core, cited


Prepared = tuple[str, str, tuple[str, ...], str]  # folded, masked, cited, core


def prepared(us: list[Unit]) -> list[Prepared]:
    """What `prepare` set on each unit, as plain data (to send from a worker process)."""
    prepare(us)
    return [(u.folded, u.masked, u.cited, u.core) for u in us]


def restore(us: list[Unit], fields: list[Prepared]) -> None:
    """Set on `us` what `prepared` read off the same document's units elsewhere."""
    for u, (u.folded, u.masked, u.cited, u.core) in zip(us, fields):
        u.prepared = True


def texts(doc: Document, keys: set[str] | None = None) -> dict[str, str]:
    """The text each unit of `doc` is compared on, as printed (Unit.text), by key: of every
    unit, or of those whose key is in `keys`."""
    out = {}
    listed = [(r.number, *_rule_text(r)) for r in doc.rules if keys is None or r.number in keys]
    listed += [(f"glossary:{g.term}", *_entry_text(g)) for g in doc.glossary
               if keys is None or f"glossary:{g.term}" in keys]
    for key, head, examples in listed:
        out.setdefault(key, f"{head}\n{examples}" if examples else head)
    return out


def units(doc: Document) -> list[Unit]:
    """Every unit of `doc`, in document order, siblings linked."""
    out: list[Unit] = []
    append = out.append
    for r in doc.rules:
        head, examples = _rule_text(r)
        append(Unit(r.number, CLASSES.get(r.kind, "rule"), r.parent, len(out),
                    f"{head}\n{examples}" if examples else head, head, examples))
    for g in doc.glossary:
        head, examples = _entry_text(g)
        append(Unit(f"glossary:{g.term}", "glossary", None, len(out),
                    f"{head}\n{examples}" if examples else head, head, examples))
    last: dict[tuple[str, str | None], Unit] = {}
    for u in out:
        before = last.get((u.cls, u.parent))
        if before is not None:
            before.following, u.previous = u, before
        last[(u.cls, u.parent)] = u
    return out


def unlink(us: list[Unit]) -> None:
    """Drop the sibling links of units no longer needed: they are reference cycles, which only
    the cyclic collector frees, with a scan of all that was allocated since it last ran."""
    for u in us:
        u.previous = u.following = None
