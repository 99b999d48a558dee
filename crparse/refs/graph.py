"""The reference graph (networkx): rules and glossary entries are nodes; each reference adds a
`cites` edge from the node that holds it to every node it names, and each rule has a `parent`
edge to the unit it belongs to. Targets that do not exist become nodes of kind `missing`, so a
dangling reference is an edge like any other.

References held by front matter or the 1999 index are in `references` but not in the graph:
those are not rules or entries.
"""

from __future__ import annotations

import collections
import functools
import io
import re
from collections.abc import Iterable
from typing import IO

import networkx as nx

from crparse.lookup import Lookup
from crparse.nodes import Document, Reference
from crparse.refs.resolve import references as find_references

CITES = "cites"
PARENT = "parent"


class ReferenceGraph:
    def __init__(self, doc: Document, refs: Iterable[Reference] | None = None):
        self.document = doc
        self.references: tuple[Reference, ...] = tuple(refs) if refs is not None else find_references(doc)
        g = nx.MultiDiGraph()
        for r in doc.rules:
            if r.number not in g:
                g.add_node(r.number, kind=r.kind, title=r.title, line=r.line)
        for e in doc.glossary:
            g.add_node(f"glossary:{e.term}", kind="glossary", title=e.term, line=e.line)
        for r in doc.rules:
            if r.parent is not None and r.parent in g:
                g.add_edge(r.number, r.parent, type=PARENT)
        for i, ref in enumerate(self.references):
            if ref.source not in g:
                continue
            for target in ref.targets:
                if target not in g:
                    g.add_node(target, kind="missing", title="", line=0)
                g.add_edge(ref.source, target, type=CITES, reference=i, status=ref.status, line=ref.line)
        self.graph = g

    @functools.cached_property
    def _targets(self) -> Lookup:
        """The glossary's names, for looking up a term; built on the first such lookup only."""
        return Lookup(self.document)

    # -- queries --------------------------------------------------------------------------

    def node(self, node: str) -> str:
        """The node id for a rule number as written ("704.5k.", "rule 704.5k") or a glossary
        term ("Kicker", "glossary:Kicker"); KeyError if the document has neither."""
        key = node.strip().removeprefix("rule ").removeprefix("Rule ").rstrip(".")
        if key in self.graph:
            return key
        term = self._targets.term(key.removeprefix("glossary:"))
        if term is None:
            raise KeyError(node)
        return f"glossary:{term}"

    def outgoing(self, node: str) -> list[Reference]:
        """The references the node's text and examples make, in order."""
        key = self.node(node)
        return [r for r in self.references if r.source == key]

    def incoming(self, node: str) -> list[Reference]:
        """The references that name the node, in document order."""
        key = self.node(node)
        seen = sorted({d["reference"] for _, _, d in self.graph.in_edges(key, data=True) if d["type"] == CITES})
        return [self.references[i] for i in seen]

    def dangling(self) -> list[Reference]:
        return [r for r in self.references if r.status == "dangling"]

    def mismatched(self) -> list[Reference]:
        return [r for r in self.references if "title-mismatch" in r.flags]

    def broken(self) -> list[Reference]:
        return [r for r in self.references if r.broken]

    def most_cited(self, n: int = 10) -> list[tuple[str, int]]:
        """Nodes by the number of references naming them (each reference counts once)."""
        counts: collections.Counter[str] = collections.Counter()
        for ref in self.references:
            counts.update(set(ref.targets))
        return counts.most_common(n)

    def citations(self) -> nx.DiGraph:
        """The `cites` edges alone, one per (source, target) pair."""
        g = nx.DiGraph()
        g.add_nodes_from(self.graph.nodes(data=True))
        g.add_edges_from((u, v) for u, v, d in self.graph.edges(data=True) if d["type"] == CITES and u != v)
        return g

    def cycles(self, length_bound: int | None = 2) -> list[list[str]]:
        """Cycles of citations (a rule citing a rule that cites it back). Bounded by default:
        the number of longer cycles grows fast in a document this connected."""
        return sorted(sorted(c) for c in nx.simple_cycles(self.citations(), length_bound=length_bound))

    def reachable(self, node: str) -> set[str]:
        """Every node reachable from `node` by following citations."""
        return nx.descendants(self.citations(), self.node(node))

    # -- export -----------------------------------------------------------------------------

    def to_json(self) -> dict:
        """node-link JSON (networkx's format), edges under "edges"."""
        return nx.node_link_data(self.graph, edges="edges")

    def write_graphml(self, out: IO[bytes] | str) -> None:
        nx.write_graphml(_xml_safe(self.graph), out)

    def graphml(self) -> str:
        buffer = io.BytesIO()
        self.write_graphml(buffer)
        return buffer.getvalue().decode("utf-8")


# XML 1.0 cannot hold C0 controls but tab, line feed and carriage return, nor U+FFFE/U+FFFF, nor
# lone surrogates, even escaped: lxml refuses such a string. A heading or a glossary term may
# hold them ("100. General\x01"); in GraphML each is written as U+FFFD.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(value):
    if value.__class__ is str and _NOT_XML.search(value):
        return _NOT_XML.sub("\ufffd", value)
    return value


def _xml_safe(g: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """`g` itself when every node id and attribute can be written in XML, else a copy in which
    each character XML cannot hold is U+FFFD."""
    nodes_clean = all(_xml_text(x) is x for n, data in g.nodes(data=True) for x in (n, *data.values()))
    if nodes_clean and all(_xml_text(x) is x for _, _, data in g.edges(data=True) for x in data.values()):
        return g
    out = nx.MultiDiGraph()
    out.add_nodes_from((_xml_text(n), {k: _xml_text(v) for k, v in data.items()}) for n, data in g.nodes(data=True))
    out.add_edges_from(
        (_xml_text(u), _xml_text(v), key, {k: _xml_text(x) for k, x in data.items()})
        for u, v, key, data in g.edges(keys=True, data=True)
    )
    return out
