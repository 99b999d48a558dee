"""A release made ready for rendering: its tree, its references, its pages and which page holds each node.

Kept per process by file identity (path, size, mtime), so the pages of one release, read one after
another (or by forked readers of a parallel build), parse it once.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import crparse
from crparse.inputs import resolved
from crparse.lookup import Lookup, normalise_title
from crparse.nodes import Document, Reference, Rule
from crparse.numbers import parse_number

FRONT_PAGE = "front"
GLOSSARY_PAGE = "glossary"
CREDITS_PAGE = "credits"
INDEX_PAGE = "terms-index"  # the 1999 releases' index; "genindex" and "index" are Sphinx's
OTHER_PAGE = "other"  # numbered units no section holds (a damaged copy)


class Prepared(NamedTuple):
    document: Document
    lookup: Lookup
    references: dict[tuple[str, str, int | None], list[Reference]]  # (source, field, example) -> in order
    cited_by: dict[str, list[str]]  # node id -> ids of the nodes whose text cites it, in document order
    page_of: dict[str, str]  # rule number -> page (docname without a directory)
    anchors: dict[int, str]  # id(rule) -> its HTML id: the number ("704.5k"), or "704.5k-2" for a repeat
    sections: dict[str, list[Rule]]  # page -> the numbered units it shows, in document order
    # The pages in reading order (the names `:page:` takes), each once: a dict, so that each of a
    # release's pages, built one after another, finds itself without a scan of the others.
    pages: dict[str, None]
    contents: dict[str, list[Rule]]  # part number -> the sections it holds, in document order


_cache: dict[tuple[str, int, int], Prepared] = {}
CACHED = 2  # a project renders one release, seldom two; a process building many keeps the last few


_parsed: dict[tuple[str, int, int], Document] = {}  # see remember


def _key(path: str) -> tuple[str, int, int]:
    st = os.stat(path)
    return resolved(path), st.st_size, st.st_mtime_ns


def remember(path: str, doc: Document) -> None:
    """`doc`, the parse of `path` a caller made already (the site, for a release's summary):
    prepare() takes it rather than parsing again. A PDF read near its CPU limit was read twice
    by `docs`, past 15 s (sweep 14). The last CACHED are kept."""
    _parsed[_key(path)] = doc
    while len(_parsed) > CACHED:
        del _parsed[next(iter(_parsed))]


def prepare(path: str) -> Prepared:
    """The release at `path`, parsed and indexed (cached while the file is unchanged)."""
    key = _key(path)
    found = _cache.pop(key, None)
    if found is None:
        doc = _parsed.pop(key, None)
        # a str with a newline in it would be read as text
        found = prepared(doc if doc is not None else crparse.parse(Path(path)))
    _cache[key] = found  # the most recently used last
    while len(_cache) > CACHED:
        del _cache[next(iter(_cache))]
    return found


def prepared(doc: Document) -> Prepared:
    lookup = Lookup(doc)
    by_place: dict[tuple[str, str, int | None], list[Reference]] = defaultdict(list)
    cited_by: dict[str, list[str]] = defaultdict(list)
    for ref in crparse.references(doc):
        by_place[(ref.source, ref.field, ref.example)].append(ref)
        for cited in ref.cited:
            if cited.status != "resolved":
                continue
            for target in cited.nodes:
                if target != ref.source:
                    cited_by[target].append(ref.source)
    page_of, anchors, sections = _pages(doc)
    contents: dict[str, list[Rule]] = defaultdict(list)
    for r in doc.rules:
        if r.kind == "section" and r.parent is not None:
            contents[r.parent].append(r)
    return Prepared(doc, lookup, dict(by_place), {k: _unique(v) for k, v in cited_by.items()},
                    page_of, anchors, sections, _page_list(doc, sections), dict(contents))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _pages(doc: Document) -> tuple[dict[str, str], dict[int, str], dict[str, list[Rule]]]:
    """Each part and section is a page; a rule or subrule is on its section's page (found through
    its parents, else through its number: a damaged copy can lose a parent)."""
    numbers = {r.number: r for r in doc.rules}
    page_of: dict[str, str] = {}
    anchors: dict[int, str] = {}
    sections: dict[str, list[Rule]] = defaultdict(list)
    seen: dict[str, int] = {}
    for r in doc.rules:
        if r.kind == "part":
            page = part_page(r.number)
        elif r.kind == "section":
            page = r.number
        else:
            page = _section_of(r, numbers)
        page_of.setdefault(r.number, page)
        count = seen[r.number] = seen.get(r.number, 0) + 1
        anchors[id(r)] = r.number if count == 1 else f"{r.number}-{count}"
        sections[page].append(r)
    return page_of, anchors, dict(sections)


def _page_list(doc: Document, sections: dict[str, list[Rule]]) -> dict[str, None]:
    # A part or section printed twice (a damaged copy) is one page: a page named twice in a
    # toctree is a Sphinx warning, which refuses the whole site.
    out = dict.fromkeys([FRONT_PAGE])
    for r in doc.rules:
        if r.kind == "part":
            out.setdefault(part_page(r.number))
        elif r.kind == "section":
            out.setdefault(r.number)
    if OTHER_PAGE in sections:
        out.setdefault(OTHER_PAGE)
    if doc.glossary:
        out.setdefault(GLOSSARY_PAGE)
    if doc.index:
        out.setdefault(INDEX_PAGE)
    if doc.credits:
        out.setdefault(CREDITS_PAGE)
    return out


def _section_of(rule: Rule, numbers: dict[str, Rule]) -> str:
    parent, hops = rule.parent, 0
    while parent is not None and hops < 4:
        found = numbers.get(parent)
        if found is None:
            break
        if found.kind == "section":
            return found.number
        parent, hops = found.parent, hops + 1
    parsed = parse_number(rule.number)
    if parsed is not None and str(parsed.section) in numbers:
        return str(parsed.section)
    return OTHER_PAGE


def part_page(number: str) -> str:
    return f"part-{number}"


_SLUG = re.compile(r"[^0-9a-z]+")


def term_anchor(term: str) -> str:
    """"Mana Value" -> "term-mana-value": an id people can type, like Sphinx's own glossary's."""
    return "term-" + (_SLUG.sub("-", normalise_title(term)).strip("-") or "entry")


def term_key(term: str) -> str:
    """The name a glossary term is known by in the domain and in objects.inv."""
    return normalise_title(term)
