"""crparse: the Magic: The Gathering Comprehensive Rules as data.

    >>> import crparse
    >>> doc = crparse.parse("corpus/004_cbde75ccc83e26bf.txt")
    >>> doc.rule("601.14b").parent
    '601.14'
    >>> [r.text for r in crparse.references(doc)][:2]
    ['rule 308, “Declare Attackers Step.”', 'rule 500, “Legal Attacks and Blocks.”']
"""

from crparse.diagnostics import Diagnostic
from crparse.errors import CrparseError, RefusedInput, UnsupportedFormat
from crparse.pipeline import parse, source_lines
from crparse.refs import Cited, Reference, ReferenceGraph, references
from crparse.tree.model import (
    Block,
    ContentsEntry,
    Document,
    Example,
    Fragment,
    GlossaryEntry,
    IndexEntry,
    Link,
    Region,
    Residue,
    Rule,
    Source,
)
from crparse.writers.json import SCHEMA_VERSION

__version__ = "0.1.0"

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
    "Reference",
    "ReferenceGraph",
    "RefusedInput",
    "Region",
    "Residue",
    "Rule",
    "Source",
    "UnsupportedFormat",
    "parse",
    "references",
    "source_lines",
]
