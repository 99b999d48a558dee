"""The Markdown reader (markdown-it-py): one line per block, with inline markup removed.

markdown-it's block tokens carry the source lines they span (`map`), so each output line keeps
its origin. Links become `Link`s (their text stays in the rule text); emphasis, code spans and
thematic breaks (`---`) carry no text of their own.
"""

from __future__ import annotations

from crparse.decode import decode
from crparse.nodes import Link
from crparse.readers.base import Extract
from crparse.readers.links import link_to_rule


def read(raw: bytes, path: str | None = None) -> Extract:
    from markdown_it import MarkdownIt

    decoded = decode(raw)
    tokens = MarkdownIt("commonmark").parse(decoded.text)
    lines: list[str] = []
    origin: list[tuple[int, int]] = []
    links: list[Link] = []
    span = (1, 1)
    # An ordered list item's number is markup to Markdown but a heading number to the CR
    # ("801. Limited Range of Influence Option" is a one-item list starting at 801).
    marker = ""
    for token in tokens:
        if token.map is not None:
            span = (token.map[0] + 1, max(token.map[1], token.map[0] + 1))
        if token.type == "list_item_open" and token.info:
            marker = f"{token.info}{token.markup} "
        elif token.type == "inline":
            text, found = _inline_text(token.children or [])
            text, marker = marker + text, ""
            for label, href in found:
                links.append(Link(span[0], "link", label, href, link_to_rule(href)))
            for part in text.split("\n"):
                lines.append(part)
                origin.append(span)
            lines.append("")
            origin.append(span)
        elif token.type in ("fence", "code_block", "html_block"):
            for offset, part in enumerate(token.content.rstrip("\n").split("\n")):
                lines.append(part)
                origin.append((span[0] + offset + (token.type == "fence"),) * 2)
            lines.append("")
            origin.append(span)
    return Extract(
        format="markdown",
        lines=lines,
        origin=origin,
        source_text=decoded.lines,
        encoding=decoded.encoding,
        bom=decoded.bom,
        line_endings=decoded.line_endings,
        diagnostics=list(decoded.diagnostics),
        links=links,
    )


def _inline_text(children) -> tuple[str, list[tuple[str, str]]]:
    out: list[str] = []
    links: list[tuple[str, str]] = []
    open_link: tuple[str, int] | None = None
    for child in children:
        kind = child.type
        if kind in ("text", "code_inline", "html_inline"):
            out.append(child.content)
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "image":
            out.append(child.content)
        elif kind == "link_open":
            open_link = (child.attrs.get("href", ""), len(out))
        elif kind == "link_close" and open_link is not None:
            href, at = open_link
            links.append(("".join(out[at:]), str(href)))
            open_link = None
    return "".join(out), links
