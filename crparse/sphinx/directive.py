"""`.. cr:release:: PATH`: a parsed release rendered in place.

Without options the whole release is rendered on the page (parts, sections, glossary, credits as
nested sections). `:page: NAME` renders one page of it as `crparse docs` lays a site out: `front`
(title, front matter, the parts), `part-N`, a section number (`704`), `glossary`, `credits`,
`terms-index` (the 1999 index), `other` (units no section holds). The path is relative to the
document, like `.. include::`.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from crparse.errors import CrparseError
from crparse.sphinx import render
from crparse.sphinx.prepare import (CREDITS_PAGE, FRONT_PAGE, GLOSSARY_PAGE, INDEX_PAGE, Prepared, prepare, term_anchor,
                                    term_key)

logger = logging.getLogger(__name__)


def pages(p: Prepared) -> list[str]:
    """The pages of a release in reading order (the names `:page:` takes)."""
    return list(p.pages)


class ReleaseDirective(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    option_spec = {"page": directives.unchanged_required}
    has_content = False

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(rel)
        try:
            p = prepare(str(path))
        except (OSError, CrparseError) as e:
            logger.warning("cr:release: cannot read %s: %s", self.arguments[0], e, location=self.get_location())
            return []
        page = self.options.get("page")
        if page is None:
            return [self._whole(p)]
        if page not in p.pages:
            logger.warning("cr:release: %s has no page %r", self.arguments[0], page, location=self.get_location())
            return []
        return [self._page(p, page)]

    # -- pages ------------------------------------------------------------------------------------

    def _page(self, p: Prepared, page: str) -> nodes.section:
        doc = p.document
        if page == FRONT_PAGE:
            title = doc.title or "Comprehensive Rules"
            if doc.effective_date and doc.effective_date not in title:
                title += f" ({doc.effective_date})"
            section = render.page_section(["cr-front"], title)
            section += render.provenance(p)
            section += list(render.blocks(b for b in doc.front_matter if b.kind != "title"))
            return section
        if page == GLOSSARY_PAGE:
            section = render.page_section(["glossary"], "Glossary")
            section += render.provenance(p)
            for box in render.glossary(p):
                section += box
            for entry in doc.glossary:
                self._note("terms", term_key(entry.term), term_anchor(entry.term), entry.term)
            return section
        if page == CREDITS_PAGE:
            section = render.page_section(["credits"], "Credits")
            section += render.provenance(p)
            section += list(render.blocks(doc.credits))
            return section
        if page == INDEX_PAGE:
            section = render.page_section(["terms-index"], "Index")
            section += render.provenance(p)
            section += list(render.index_entries(p))
            return section
        units = p.sections.get(page, [])
        head = next((r for r in units if r.kind in ("part", "section")), None)
        if head is not None:
            section = render.page_section([p.anchors[id(head)]], render.heading(head))
        else:
            section = render.page_section(["other"], "Other rules")
        section += render.provenance(p)
        section += list(render.section_body(p, page))
        if head is not None and head.kind == "part":
            section += render.part_contents(p, head)
        for r in units:
            self._note("rules", r.number, p.anchors[id(r)], render.heading(r))
        return section

    def _whole(self, p: Prepared) -> nodes.section:
        first, *rest = p.pages
        whole = self._page(p, first)
        by_part: dict[str, nodes.section] = {}
        for page in rest:
            section = self._page(p, page)
            section.children = [c for c in section.children if "cr-provenance" not in c.get("classes", ())]
            head = next((r for r in p.sections.get(page, []) if r.kind == "section"), None)
            parent = p.page_of.get(head.parent) if head is not None and head.parent else None
            (by_part.get(parent) or whole).append(section)
            if page.startswith("part-"):
                by_part[page] = section
        return whole

    def _note(self, kind: str, name: str, anchor: str, title: str) -> None:
        self.env.get_domain("cr").note(kind, name, self.env.docname, anchor, title, self.get_location())
