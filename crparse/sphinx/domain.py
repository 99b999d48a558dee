"""The `cr` domain: rules and glossary terms as Sphinx objects.

Every numbered unit and glossary entry a `cr:release` directive renders is an object: the roles
`:cr:rule:` and `:cr:term:` link to it, `objects.inv` lists it (so other projects link to it
through intersphinx), and Sphinx's search finds it by number. A role naming something no release
of the project (nor an intersphinx inventory) holds is a warning with the citing file and line,
so `sphinx-build -W` fails on a stale citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.builders import Builder
from sphinx.domains import Domain, ObjType
from sphinx.environment import BuildEnvironment
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

from crparse.sphinx.corpus import ChangesDirective, HistoryDirective
from crparse.sphinx.directive import ReleaseDirective
from crparse.sphinx.prepare import term_key

# How Sphinx reads a line of objects.inv back (sphinx.util.inventory, version 2): the name is
# the shortest text before "TYPE PRIORITY". A term holding that shape ("Mana cr:term 1 ../x.html
# y") was read as another term's entry, pointing anywhere, and its own entry was lost.
_INVENTORY_LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")

logger = logging.getLogger(__name__)


class RuleRole(XRefRole):
    """:cr:rule:`704.5k` (a trailing period, as printed in the CR, is allowed)."""

    def process_link(self, env, refnode, has_explicit_title, title, target):
        return title.strip(), target.strip().rstrip(".")


class TermRole(XRefRole):
    """:cr:term:`Mana Value`: case, quotes and a plural "s" do not matter."""

    def process_link(self, env, refnode, has_explicit_title, title, target):
        return title.strip(), term_key(target)


class CRDomain(Domain):
    name = "cr"
    label = "Comprehensive Rules"
    object_types = {"rule": ObjType("rule", "rule"), "term": ObjType("glossary term", "term")}
    directives = {"release": ReleaseDirective, "changes": ChangesDirective, "history": HistoryDirective}
    roles = {"rule": RuleRole(warn_dangling=True), "term": TermRole(warn_dangling=True)}
    # "docs": docname -> the (table, name) pairs it holds, so that forgetting a page (each page read
    # again) or merging a parallel reader's pages costs that page's entries, not the whole release.
    initial_data: dict[str, dict] = {"rules": {}, "terms": {}, "docs": {}}
    dangling_warnings = {
        "rule": "no rule %(target)s in the Comprehensive Rules this project renders or links to",
        "term": "no glossary term %(target)r in the Comprehensive Rules this project renders or links to",
    }
    data_version = 2

    @property
    def rules(self) -> dict[str, tuple[str, str, str]]:
        return self.data["rules"]  # number -> (docname, anchor, title)

    @property
    def terms(self) -> dict[str, tuple[str, str, str]]:
        return self.data["terms"]  # term key -> (docname, anchor, term as printed)

    def note(self, kind: str, name: str, docname: str, anchor: str, title: str, location: Any) -> None:
        table = self.data[kind]
        if name in table:
            if table[name][0] != docname:
                logger.warning("%s %s is rendered twice (also in %s)", kind[:-1], name, table[name][0],
                               location=location, type="cr", subtype="duplicate")
            return
        table[name] = (docname, anchor, title)
        self.data["docs"].setdefault(docname, []).append((kind, name))

    def clear_doc(self, docname: str) -> None:
        for kind, name in self.data["docs"].pop(docname, ()):
            self.data[kind].pop(name, None)

    def merge_domaindata(self, docnames: Iterable[str], otherdata: dict[str, Any]) -> None:
        for docname in docnames:
            for kind, name in otherdata["docs"].get(docname, ()):
                if name not in self.data[kind]:
                    self.data[kind][name] = otherdata[kind][name]
                    self.data["docs"].setdefault(docname, []).append((kind, name))

    def _find(self, kind: str, target: str) -> tuple[str, str, str] | None:
        if kind == "rule":
            return self.rules.get(target)
        found = self.terms.get(target)
        if found is None and target.endswith("s"):
            found = self.terms.get(target[:-1])
        return found

    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, typ: str, target: str,
                     node: pending_xref, contnode: nodes.Element) -> nodes.reference | None:
        found = self._find(typ, target)
        if found is None:
            return None
        docname, anchor, title = found
        return make_refnode(builder, fromdocname, docname, anchor, contnode, title)

    def resolve_any_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, target: str,
                         node: pending_xref, contnode: nodes.Element) -> list[tuple[str, nodes.reference]]:
        out = []
        for typ, key in (("rule", target.strip().rstrip(".")), ("term", term_key(target))):
            found = self._find(typ, key)
            if found is not None:
                docname, anchor, title = found
                out.append((f"cr:{typ}", make_refnode(builder, fromdocname, docname, anchor, contnode, title)))
        return out

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        for number, (docname, anchor, _title) in self.rules.items():
            yield number, number, "rule", docname, anchor, 1
        for key, (docname, anchor, term) in self.terms.items():
            line = _INVENTORY_LINE.match(f"{key} cr:term 1 page.html -")
            if line is not None and line[1] == key:  # else not listed: read back, it would be another entry
                yield key, term, "term", docname, anchor, 1
