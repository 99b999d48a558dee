"""The HTML reader (beautifulsoup4): a saved rules page, or a hyperlinked rules site.

Block elements (paragraphs, headings, list items, table cells, `<br>`) end lines; inline
markup is dropped. Anchors become `Link`s, their targets read for a rule number where they name
one (`#r601.2a`, `rules.html#704.5k`), and their text stays in the rule text. Scripts,
styles and the page head carry no document text: they are counted in a diagnostic, not read.

Source lines are the lines of the extracted text (`crparse text` prints them).
"""

from __future__ import annotations

import re

from crparse.errors import RefusedInput
from crparse.nodes import Diagnostic, Link
from crparse.readers.base import Extract
from crparse.readers.links import link_to_rule

_BLOCKS = frozenset(
    "address article aside blockquote body dd details div dl dt fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)
_NOT_TEXT = ("script", "style", "head", "noscript", "template", "svg")
_MARK = "\u2063"  # invisible separator: marks block boundaries while the tree is flattened
_BREAK = "\u2028"  # line separator: a <br>, or a line of <pre>


def read(raw: bytes, path: str | None = None) -> Extract:
    from bs4 import BeautifulSoup, NavigableString

    try:
        soup = BeautifulSoup(raw, "html.parser")
    except Exception as err:  # bs4 rarely fails, but never with a traceback for the user
        raise RefusedInput(f"cannot read this HTML file: {err}") from None
    dropped = 0
    for element in soup.find_all(_NOT_TEXT):
        element.decompose()
        dropped += 1
    anchors = [(a.get_text(" ", strip=True), a.get("href", "")) for a in soup.find_all("a", href=True)]
    for br in soup.find_all("br"):
        br.replace_with(NavigableString(_BREAK))
    for pre in soup.find_all("pre"):
        for string in list(pre.find_all(string=True)):
            string.replace_with(NavigableString(str(string).replace("\n", _BREAK)))
    for element in soup.find_all(_BLOCKS):
        element.insert_before(NavigableString(_MARK))
        element.append(NavigableString(_MARK))
    text = soup.get_text("")
    lines: list[str] = []
    for chunk in re.split(f"[{_MARK}{_BREAK}]", text):
        line = " ".join(chunk.split())
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()

    diagnostics = []
    if dropped:
        diagnostics.append(Diagnostic(None, "info", "html-not-text", f"{dropped} script, style or head element(s) skipped"))
    return Extract(
        format="html",
        lines=lines,
        encoding=(soup.original_encoding or "utf-8").lower(),
        line_endings="none",
        diagnostics=diagnostics,
        links=_links(anchors, lines),
    )


def _links(anchors: list[tuple[str, str]], lines: list[str]) -> list[Link]:
    """Each anchor, at the first line from the previous anchor's on that shows its text."""
    out: list[Link] = []
    at = 0
    for text, href in anchors:
        found = next((i for i in range(at, len(lines)) if text and text in lines[i]), None)
        if found is not None:
            at = found
        out.append(Link((found if found is not None else at) + 1, "anchor", text, href, link_to_rule(href)))
    return out
