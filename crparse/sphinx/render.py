"""The rule tree as docutils nodes: functions over a prepared release, no Sphinx state.

Rule text is data: it goes into `nodes.Text` and is never parsed as reST, so `<script>`,
backquotes, roles or braces in a rule are shown as written (the HTML writer escapes them).
References become `pending_xref` nodes of the `cr` domain, so Sphinx resolves them across pages
(and across a build's incremental runs) like any cross-reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from docutils import nodes
from sphinx import addnodes

from crparse.nodes import Cited, Example, GlossaryEntry, Reference, Rule
from crparse.sphinx.prepare import Prepared, part_page, term_anchor, term_key

MAX_MEMBER_LINKS = 40  # "rules 702.140-702.179": each member a link, up to this many
# Links in one paragraph: Sphinx puts each resolved link in its place with a linear search of the
# paragraph's children, so 49,000 in one took over two minutes. A rule holds 30 at most; past this
# many the references are shown as text, and a "cited by" list ends with a count.
MAX_LINKS_PER_TEXT = 200


def provenance(p: Prepared) -> nodes.paragraph:
    doc = p.document
    src = doc.source
    name = (src.path or "").replace("\\", "/").rsplit("/", 1)[-1] or "(input)"
    date = f"effective {doc.effective_date}" if doc.effective_date else "undated"
    text = f"Comprehensive Rules, {date} · source: {name} ({src.format}, sha256 {src.sha256[:12]})"
    if doc.fragment is not None:
        text += f" · an excerpt: {doc.fragment.first} to {doc.fragment.last}"
    return nodes.paragraph("", text, classes=["cr-provenance"])


def heading(rule: Rule) -> str:
    return f"{rule.number}. {rule.title}".strip() if rule.title else f"{rule.number}."


def page_section(ids: list[str], title: str) -> nodes.section:
    section = nodes.section("", ids=ids, names=[nodes.fully_normalize_name(title)])
    section += nodes.title("", title)
    return section


# -- numbered units -------------------------------------------------------------------------------


def section_body(p: Prepared, page: str) -> Iterator[nodes.Node]:
    """The units a section's page shows, subrules inside their rule."""
    units = p.sections.get(page, [])
    rules = {r.number for r in units if r.kind == "rule"}
    children: dict[str, list[Rule]] = {}
    for r in units:  # a subrule whose rule the copy lost stands on its own
        if r.kind == "subrule" and r.parent in rules:
            children.setdefault(r.parent, []).append(r)
    placed = {id(c) for group in children.values() for c in group}
    for r in units:
        if r.kind in ("part", "section"):
            yield from _own_text(p, r)
        elif id(r) not in placed:
            yield unit(p, r, children)


def _own_text(p: Prepared, rule: Rule) -> Iterator[nodes.Node]:
    """A part's or section's own text (the page's title holds its number and title)."""
    if rule.text:
        yield from paragraphs(p, rule.number, "text", None, rule.text)
    yield from examples(p, rule)
    back = cited_by(p, rule.number)
    if back is not None:
        yield back


def unit(p: Prepared, rule: Rule, children: dict[str, list[Rule]]) -> nodes.container:
    box = nodes.container("", classes=["cr-" + rule.kind], ids=[p.anchors[id(rule)]])
    head = [nodes.strong("", rule.number + ("." if rule.kind == "rule" else "")), nodes.Text(" ")]
    if rule.title:
        head += [nodes.strong("", rule.title), nodes.Text(" ")]
    body = paragraphs(p, rule.number, "text", None, rule.text)
    if body:
        body[0].insert(0, head)
    else:
        body = [nodes.paragraph("", "", *head)]
    if rule.changed:
        body[-1] += [nodes.Text(" "), nodes.inline("", f"[{rule.changed}]", classes=["cr-stamp"])]
    box += body
    box += list(examples(p, rule))
    back = cited_by(p, rule.number)
    if back is not None:
        box += back
    for child in children.get(rule.number, ()) if rule.kind == "rule" else ():
        box += unit(p, child, children)
    return box


def examples(p: Prepared, owner: Rule | GlossaryEntry) -> Iterator[nodes.container]:
    source = owner.number if isinstance(owner, Rule) else "glossary:" + owner.term
    for i, ex in enumerate(owner.examples):
        yield example(p, source, i, ex)


def example(p: Prepared, source: str, index: int, ex: Example) -> nodes.container:
    box = nodes.container("", classes=["cr-example"])
    label = ex.label.strip()
    skip = len(label) if ex.text.startswith(label) else 0  # some eras keep the label in the text
    body = paragraphs(p, source, "example", index, ex.text, skip=skip)
    if not body:
        body = [nodes.paragraph()]
    body[0].insert(0, [nodes.emphasis("", label), nodes.Text(" ")])
    if ex.changed:
        body[-1] += [nodes.Text(" "), nodes.inline("", f"[{ex.changed}]", classes=["cr-stamp"])]
    box += body
    return box


def cited_by(p: Prepared, node_id: str) -> nodes.paragraph | None:
    sources = p.cited_by.get(node_id)
    if not sources:
        return None
    para = nodes.paragraph("", "", classes=["cr-cited-by"])
    para += nodes.Text("Cited by: ")
    for i, source in enumerate(sources[:MAX_LINKS_PER_TEXT]):
        if i:
            para += nodes.Text(", ")
        para += _link_to(source, source.removeprefix("glossary:")) or nodes.Text(_place(source))
    if len(sources) > MAX_LINKS_PER_TEXT:
        para += nodes.Text(f" and {len(sources) - MAX_LINKS_PER_TEXT:,} more")
    return para


def _place(node_id: str) -> str:
    """A citing node that is not a rule or term: "front_matter:3", "index:Mana"."""
    kind, _, name = node_id.partition(":")
    return {"front_matter": "the introduction", "index": f"the index ({name})"}.get(kind, node_id)


# -- glossary, credits, front matter ---------------------------------------------------------------


def glossary(p: Prepared) -> Iterator[nodes.container]:
    seen: set[str] = set()
    for entry in p.document.glossary:
        anchor = term_anchor(entry.term)
        if anchor in seen:
            anchor = f"{anchor}-{len(seen)}"
        seen.add(anchor)
        box = nodes.container("", classes=["cr-term"], ids=[anchor])
        text = entry.text
        skip = len(entry.term) if text.startswith(entry.term) else 0
        body = paragraphs(p, "glossary:" + entry.term, "text", None, text, skip=skip)
        title = nodes.strong("", entry.term, classes=["cr-term-name"])
        if body and skip:
            body[0].insert(0, title)
        else:
            body.insert(0, nodes.paragraph("", "", title))
        box += body
        box += list(examples(p, entry))
        back = cited_by(p, "glossary:" + entry.term)
        if back is not None:
            box += back
        yield box


def blocks(items: Iterable) -> Iterator[nodes.line_block]:
    """Front matter and credits as printed: a block per paragraph, its line breaks kept."""
    for b in items:
        yield nodes.line_block("", *(nodes.line("", line) for line in b.text.split("\n")), classes=["cr-block"])


def index_entries(p: Prepared) -> Iterator[nodes.paragraph]:
    for i, entry in enumerate(p.document.index):
        para = nodes.paragraph("", "", classes=["cr-index-entry", f"cr-depth-{min(entry.depth, 4)}"])
        para += nodes.strong("", entry.term)
        para += nodes.Text(" ")
        para += inline(p, f"index:{entry.term}", "locators", None, entry.locators)
        yield para


def part_contents(p: Prepared, part: Rule) -> nodes.bullet_list:
    """The sections of a part, each a link to its page."""
    items = nodes.bullet_list(classes=["cr-contents"])
    for r in p.contents.get(part.number, ()):
        items += nodes.list_item("", nodes.paragraph("", "", _link_to(r.number, heading(r))))
    return items


# -- text with references ---------------------------------------------------------------------------


def paragraphs(p: Prepared, source: str, field: str, example_index: int | None, text: str,
               *, skip: int = 0) -> list[nodes.paragraph]:
    """`text` (from offset `skip`) as paragraphs (one per printed line), each reference a link."""
    out = [nodes.paragraph()]
    for piece in _pieces(p, source, field, example_index, text, skip):
        if isinstance(piece, str):
            lines = piece.split("\n")
            for i, line in enumerate(lines):
                if i:
                    out.append(nodes.paragraph())
                if line:
                    out[-1] += nodes.Text(line)
        else:
            out[-1] += piece
    for para in out:  # the text after a label or a term starts with a space
        if para.children and isinstance(para[0], nodes.Text):
            para[0] = nodes.Text(para[0].lstrip())
    return [para for para in out if para.children]


def inline(p: Prepared, source: str, field: str, example_index: int | None, text: str) -> nodes.inline:
    span = nodes.inline()
    for piece in _pieces(p, source, field, example_index, text, 0):
        span += nodes.Text(piece) if isinstance(piece, str) else piece
    return span


def _pieces(p: Prepared, source: str, field: str, example_index: int | None, text: str,
            skip: int) -> Iterator[str | nodes.Node]:
    at = skip
    for n, ref in enumerate(p.references.get((source, field, example_index), ())):
        if ref.start < at:
            continue
        if ref.start > at:
            yield text[at:ref.start]
        if n >= MAX_LINKS_PER_TEXT:
            break  # the rest of the text as it is, in one piece
        yield from _reference(ref)
        at = ref.end
    if at < len(text):
        yield text[at:]


def _reference(ref: Reference) -> Iterator[str | nodes.Node]:
    """A reference as written, each item a link; text between items (", ", "and") kept."""
    at = 0
    for cited in ref.cited:
        found = ref.text.find(cited.text, at) if cited.text else -1
        if found < 0:
            continue
        if found > at:
            yield ref.text[at:found]
        yield _cited(cited)
        at = found + len(cited.text)
    if at < len(ref.text):
        yield ref.text[at:]


def _cited(cited: Cited) -> nodes.Node:
    if cited.status == "dangling":
        return nodes.inline("", cited.text, classes=["cr-dangling"])
    if cited.status == "external" or not cited.nodes:
        return nodes.inline("", cited.text, classes=["cr-external"])
    first = _link_to(cited.nodes[0], cited.text) or nodes.Text(cited.text)
    if len(cited.nodes) == 1:
        return first
    group = nodes.inline("", "", first, classes=["cr-range"])
    members = nodes.inline("", "", classes=["cr-members"])
    for i, member in enumerate(cited.nodes[1:MAX_MEMBER_LINKS]):
        if i:
            members += nodes.Text(" ")
        members += _link_to(member, member.removeprefix("glossary:")) or nodes.Text(member)
    group += members
    return group


def _link_to(node_id: str, text: str) -> addnodes.pending_xref | None:
    """A link to a rule number or a glossary entry ("glossary:<term>"); None for other nodes."""
    if node_id.startswith("glossary:"):
        kind, target = "term", term_key(node_id.removeprefix("glossary:"))
    elif ":" in node_id:
        return None
    else:
        kind, target = "rule", node_id
    ref = addnodes.pending_xref("", refdomain="cr", reftype=kind, reftarget=target, refexplicit=True,
                                refwarn=False)
    ref += nodes.inline("", text, classes=["cr-ref"])
    return ref


__all__ = ["glossary", "heading", "part_contents", "part_page", "provenance", "section_body"]
