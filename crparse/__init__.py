"""crparse: the Magic: The Gathering Comprehensive Rules as data.

    >>> import crparse
    >>> doc = crparse.parse("corpus/004_cbde75ccc83e26bf.txt")
    >>> doc.rule("601.14b").parent
    '601.14'
    >>> [r.text for r in crparse.references(doc)][:2]
    ['rule 308, “Declare Attackers Step.”', 'rule 500, “Legal Attacks and Blocks.”']

`import crparse` loads the vocabulary (crparse.nodes) and nothing heavy: the parser, the
reference grammar (lark), the graph (networkx) and the readers' libraries are imported on
first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from crparse.errors import CrparseError, RefusedInput, SettingError, UnsupportedFormat

_NODES = ("Block", "Cited", "ContentsEntry", "Diagnostic", "Document", "Example", "Fragment", "GlossaryEntry",
          "IndexEntry", "Link", "Reference", "Region", "Residue", "Rule", "Source")

if TYPE_CHECKING:
    from crparse.lookup import Lookup
    from crparse.nodes import (
        Block,
        Cited,
        ContentsEntry,
        Diagnostic,
        Document,
        Example,
        Fragment,
        GlossaryEntry,
        IndexEntry,
        Link,
        Reference,
        Region,
        Residue,
        Rule,
        Source,
    )
    from crparse.pipeline import parse, source_lines
    from crparse.refs import ReferenceGraph, references
    from crparse.writers.json import SCHEMA_VERSION

__version__ = "0.1.0"

# name -> module that defines it, imported when the name is first used (the vocabulary too:
# msgspec's import is a third of a short command's start-up, and `crparse history` needs none)
_LAZY = {
    **dict.fromkeys(_NODES, "crparse.nodes"),
    "parse": "crparse.pipeline",
    "source_lines": "crparse.pipeline",
    "references": "crparse.refs.resolve",
    "ReferenceGraph": "crparse.refs.graph",
    "Lookup": "crparse.lookup",
    "SCHEMA_VERSION": "crparse.writers.json",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'crparse' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def to_json(doc: "Document", *, indent: int | None = None) -> str:
    """The document and its references as the JSON contract's text (schema: `crparse schema`)."""
    from crparse.refs.resolve import references as find_references
    from crparse.writers.json import dumps

    return dumps(doc, find_references(doc), indent=indent)


__all__ = [
    "SCHEMA_VERSION",
    "Block",
    "Cited",
    "ContentsEntry",
    "CrparseError",
    "Diagnostic",
    "Document",
    "Example",
    "Fragment",
    "GlossaryEntry",
    "IndexEntry",
    "Link",
    "Lookup",
    "Reference",
    "ReferenceGraph",
    "RefusedInput",
    "Region",
    "Residue",
    "Rule",
    "SettingError",
    "Source",
    "UnsupportedFormat",
    "parse",
    "references",
    "source_lines",
    "to_json",
]
