"""Cross-references: a layer over the rule tree.

    >>> import crparse
    >>> doc = crparse.parse("corpus/002_5de42b84d94734e9.txt")
    >>> ref = crparse.references(doc)[0]
    >>> ref.source, ref.text, ref.status                  # a fragment: 704 is outside it
    ('801.1', 'rule 809', 'external')

Data flows one way: the tree is read, never edited. `scan` finds the phrases and types their
tokens, `grammar` (grammars/references.lark) parses them, `resolve` checks each target against
the same document, `graph` puts them in networkx, `cite` checks citations in other files.
"""

from crparse.refs.graph import ReferenceGraph
from crparse.refs.model import Cited, Reference
from crparse.refs.resolve import references

__all__ = ["Cited", "Reference", "ReferenceGraph", "references"]
