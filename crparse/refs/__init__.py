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

from importlib import import_module

from crparse.nodes import Cited, Reference

_LAZY = {"references": "crparse.refs.resolve", "ReferenceGraph": "crparse.refs.graph"}  # networkx on first use


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'crparse.refs' has no attribute {name!r}")
    return getattr(import_module(_LAZY[name]), name)


__all__ = ["Cited", "Reference", "ReferenceGraph", "references"]
