"""The Markdown reader (markdown-it-py): one line per block, with inline markup removed.

markdown-it's block tokens carry the source lines they span (`map`), so each output line keeps
its origin. Links become `Link`s (their text stays in the rule text); emphasis, code spans and
thematic breaks (`---`) carry no text of their own.

Raw HTML is markup too: its tags are taken out and its text kept, so that a rule in a
`<p>` or a table cell is still a rule, and a comment or a `<div>` line is not rule text. A line
left with no text (a tag, a comment) is then no line of the output: the pipeline keeps it as
"markup" residue, like a thematic break.

A raw HTML block that ends at a closing string (`<!--` at `-->`, `<script>`, `<pre>`, `<style>` at
their end tag, `<?`, `<![CDATA[`) and never meets it runs to the end of the document: one unclosed
`<!--` hid the second half of a release (sweep 19). Where any text follows it, its line is markup
and the rest is read as Markdown, with a `markdown-html-unclosed` warning.

Lists and block quotes nested past markdown-it's `maxNesting` (20 token levels: 10 lists, 20
quotes) are read as text from that level on, with a `markdown-nesting` warning naming the line:
markdown-it itself drops everything from there to the end of the enclosing container, which for
a list is the rest of the document (one `- - - ... x` line lost all the rules after it).
"""

from __future__ import annotations

import re
from html import unescape

from crparse.decode import decode
from crparse.errors import RefusedInput, quoted
from crparse.limits import max_paragraphs, too_many_paragraphs
from crparse.nodes import Diagnostic, Link
from crparse.readers.base import Extract
from crparse.readers.html import _AFTER_A_WORD, _BLOCKS, holds_rule, shorten_references
from crparse.readers.links import link_to_rule


# markdown-it parses each paragraph's inline markup as a whole, and some of it is far from
# linear ("[[[[...", "*_*_*_...": 1 MB in one paragraph took 13 s; 66 paragraphs of 60 KB,
# 20 s). A CR paragraph is a rule: the longest, the list of creature types, is 3.5 KB. What
# is counted is the markup characters between blank lines: their bytes counted a section
# written as a tight list ("- 702.1. ...", no blank line between its rules: 148 KB, each item
# a paragraph of its own) as one paragraph, and refused a whole release (sweep 17); the words
# between markup cost markdown-it a linear time.
MAX_MARKDOWN_PARAGRAPH = 16 * 2**10
# ... and its inline parsing costs ~20 us for each bracket, star or underscore of a run of them,
# paragraph or not (4 MB of "[" took 78 s): a budget for the whole file. The 2026 release has
# 1,105 of them; a Markdown copy with a link on every reference some 10,000.
MAX_MARKDOWN_MARKUP = 100_000
_MARKUP = tuple(bytes([c]) for c in b"[]*_`<>!&\\~")
# markdown-it opens two token levels for each list a line starts (the list and its item, ~40 us)
# and one for each block quote (~15 us), up to its maxNesting, 20 levels: past them the rest of the
# line is a paragraph's text. 49,000 lines of `- - - ... x` took 17 s and 700 MiB; a budget for
# the whole file, counted before it runs. A rules document nests two or three levels of lists.
MAX_MARKDOWN_LEVELS = 100_000
_MAX_NESTING = 20  # markdown-it's maxNesting in the commonmark preset
_CONTAINERS = re.compile(rb"(?<![^\r\n])(?:[ \t]*(?:>|(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t\r\n]|$)))+")
_MARKER = re.compile(rb">|[-+*]|[0-9]{1,9}[.)]")


def _levels_opened(markers: bytes) -> int:
    """The token levels the list and quote markers at the start of a line open, at most maxNesting."""
    quotes = markers.count(b">")
    return min(2 * (len(_MARKER.findall(markers)) - quotes) + quotes, _MAX_NESTING)


def _markup(data: bytes) -> int:
    return sum(data.count(c) for c in _MARKUP)


_BLANK_LINE = re.compile(rb"(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)")  # any line ending: CR-only files too
# each blank line: the line end before it (a run of them was counted by halves, and 120,000 blank
# lines refused a file as "60,032 non-blank lines": sweep 46)
_BEFORE_BLANK_LINE = re.compile(rb"(?:\r\n|\r|\n)(?=[ \t]*+(?:\r\n|\r|\n))")


def read(raw: bytes, path: str | None = None) -> Extract:
    from markdown_it import MarkdownIt

    # UTF-16 or UTF-32: the checks below count the bytes of ASCII markup and line ends
    decoded = decode(raw) if b"\x00" in raw[:4096] else None
    checked = decoded.text.encode("utf-8") if decoded is not None else raw
    # a part under the limit in bytes is under it in markup: only longer ones are counted
    longest = max((_markup(p) for p in _BLANK_LINE.split(checked) if len(p) > MAX_MARKDOWN_PARAGRAPH), default=0)
    if longest > MAX_MARKDOWN_PARAGRAPH:
        raise RefusedInput(
            f"Markdown with {longest:,} inline markup characters ([ ] * _ ` < > ! & \\ ~) between two blank lines, "
            f"more than the {MAX_MARKDOWN_PARAGRAPH:,} a rules paragraph needs (MAX_MARKDOWN_PARAGRAPH): not read, "
            "to stay within time; --format text reads it as text"
        )
    # Every line may be a block of its own (a heading, a list item): markdown-it takes ~30 us a
    # block, so a flood of them is refused here, before it runs, by the pipeline's paragraph limit.
    lines = checked.count(b"\n") + checked.count(b"\r") - checked.count(b"\r\n") + 1
    blocks = lines - len(_BEFORE_BLANK_LINE.findall(checked))
    if blocks > (limit := max_paragraphs()):
        # said as what it is: a long comment or code block was refused as if it held that many
        # paragraphs of rules (sweep 26)
        raise RefusedInput(f"Markdown of {blocks:,} non-blank lines, each of which may be a block of its own (a "
                           "heading, a list item, a line of an HTML comment or of a code block): "
                           + too_many_paragraphs(limit))
    opened = sum(map(_levels_opened, _CONTAINERS.findall(checked)))
    if opened > MAX_MARKDOWN_LEVELS:
        raise RefusedInput(
            f"Markdown whose lines open {opened:,} levels of lists and block quotes, more than the "
            f"{MAX_MARKDOWN_LEVELS:,} a rules document needs (MAX_MARKDOWN_LEVELS): not read, to stay within time; "
            "--format text reads it as text"
        )
    markup = _markup(checked)
    if markup > MAX_MARKDOWN_MARKUP:
        raise RefusedInput(
            f"Markdown with {markup:,} inline markup characters ([ ] * _ ` < > ! & \\ ~), more than the "
            f"{MAX_MARKDOWN_MARKUP:,} a rules document needs (MAX_MARKDOWN_MARKUP): not read, to stay within "
            "time; --format text reads it as text"
        )
    decoded = decoded or decode(raw)
    md = MarkdownIt("commonmark")
    too_deep = _read_deep_as_text(md)
    source, unclosed = _unclosed_html_blocks(decoded.text)
    tokens = md.parse(source)
    lines: list[str] = []
    origin: list[tuple[int, int]] = []
    links: list[Link] = []
    span = (1, 1)
    never_closed: list[int] = []  # lines of unclosed comments, scripts or styles inside an HTML block
    hiding: list[int] = []  # lines of comments, scripts or styles that hold what reads as rules
    titles: list[str] = []  # titles of links and images that hold text over lines or a rule
    titled: list[int] = []  # the lines of their paragraphs
    # An ordered list item's number is markup to Markdown but a heading number to the CR
    # ("801. Limited Range of Influence Option" is a one-item list starting at 801).
    marker = ""
    for token in tokens:
        if token.map is not None:
            span = (token.map[0] + 1, max(token.map[1], token.map[0] + 1))
        if marker and token.type not in ("paragraph_open", "inline"):
            # the item's first block is no paragraph (a fence, an HTML block, a rule, nothing): its
            # number went before the next paragraph anywhere later, making "3. Example: ..." part of
            # the rule above, or "7. 100.3. ..." no rule (sweep 22)
            marker = ""
        if token.type == "list_item_open" and token.info:
            marker = f"{token.info}{token.markup} "
        elif token.type == "inline":
            text, found = _inline_text(token.children or [], titles)
            titled += [span[0]] * (len(titles) - len(titled))
            text, marker = marker + text, ""
            for label, href in found:
                links.append(Link(span[0], "link", label, href, link_to_rule(href)))
            for part in text.split("\n"):
                lines.append(part)
                origin.append(span)
            lines.append("")
            origin.append(span)
        elif token.type in ("fence", "code_block"):
            for offset, part in enumerate(token.content.rstrip("\n").split("\n")):
                line = span[0] + offset + (token.type == "fence")
                if line in unclosed:  # code, which opens no block: as it was written
                    part = unclosed.pop(line).lstrip(" ")
                lines.append(part)
                origin.append((line, line))
            lines.append("")
            origin.append(span)
        elif token.type == "html_block":
            content = token.content
            if unclosed and token.map is not None:
                # a line emptied inside an HTML block (a `<div>` runs to a blank line) opened no
                # block of its own: the block is read as it was written
                inside = [line for line in range(span[0] + 1, span[1] + 1) if line in unclosed]
                if inside:
                    rows = content.split("\n")
                    for line in inside:
                        rows[line - span[0]] = unclosed.pop(line)
                    content = "\n".join(rows)
            opened: list[int] = []
            hidden: list[int] = []  # lines of this block
            for offset, part in _html_text(content, opened, hidden):
                lines.append(part)
                origin.append((span[0] + offset,) * 2)
            lines.append("")
            origin.append(span)
            never_closed += (span[0] + offset for offset in opened)
            hiding += (span[0] + offset for offset in hidden)
    diagnostics = list(decoded.diagnostics)
    if never_closed := sorted([*unclosed, *never_closed]):
        first, *others = never_closed
        more = ""
        if others:
            shown = ", ".join(map(str, others[:3])) + (", ..." if len(others) > 3 else "")
            more = f" (and {len(others):,} more such lines: {shown})"
        diagnostics.append(Diagnostic(
            first, "warning", "markdown-html-unclosed",
            "an HTML comment, script or style opened here is never closed: Markdown would hide all that follows "
            f"in it; the opening is read as markup, and what follows as the document{more}"))
    if hiding:
        diagnostics.append(Diagnostic(
            hiding[0], "warning", "html-not-text",
            f"{len(hiding):,} HTML comment(s), script(s) or style(s) hold what reads as rules (a rule number at a "
            "line's start), not read: their lines are kept as markup residue"))
    if titled:
        diagnostics.append(Diagnostic(
            titled[0], "warning", "markdown-not-text",
            f"{len(titled):,} link or image title(s) hold what reads as rules or text over several lines (the "
            f"first: {quoted(titles[0])}), not read: a title is no text"))
    if too_deep:
        more = ""
        if len(too_deep) > 1:
            shown = ", ".join(map(str, too_deep[1:4])) + (", ..." if len(too_deep) > 4 else "")
            more = f" (and {len(too_deep) - 1:,} more lines: {shown})"
        diagnostics.append(Diagnostic(
            too_deep[0], "warning", "markdown-nesting",
            f"lists or block quotes nested deeper than markdown-it's {md.options.maxNesting} "
            f"levels (maxNesting); the levels past it are read as text{more}"))
    return Extract(
        format="markdown",
        lines=lines,
        origin=origin,
        source_text=decoded.lines,
        encoding=decoded.encoding,
        bom=decoded.bom,
        line_endings=decoded.line_endings,
        diagnostics=diagnostics,
        links=links,
    )


def _closing_kinds():
    from markdown_it.rules_block.html_block import HTML_SEQUENCES

    # markdown-it's own patterns, unanchored, for the kinds of block that end at a string
    # rather than at a blank line
    return [(re.compile(opener.pattern.removeprefix("^"), opener.flags), closer)
            for opener, closer, _ in HTML_SEQUENCES if closer.pattern != "^$"]


_LINE_START = re.compile(r"(?m)^ {0,3}<")



# What stands for such a line: an HTML block of one line that holds no text. Inside another HTML
# block (a `<div>` ends at a blank line) it is a comment, and the block goes on as it would have.
_NOTHING = "<!---->"


def _unclosed_html_blocks(text: str) -> tuple[str, dict[int, str]]:
    """`text` with each line that opens a never-closed HTML block emptied, where text follows it;
    and those lines, by (1-based) number, as they were. One pass for each kind of block: a block
    is unclosed when its closing string occurs nowhere from its opening on (markdown-it looks
    for it in the opening line from the opener, then in each line after)."""
    text = re.sub(r"\r\n?", "\n", text)  # as markdown-it reads lines
    last_text = len(text.rstrip()) - 1
    kinds = [(opener, max((m.start() for m in closer.finditer(text)), default=-1))
             for opener, closer in _closing_kinds()]
    blanked: dict[int, str] = {}
    pieces, start, line, counted = [], 0, 1, 0
    for found in _LINE_START.finditer(text, 0, max(last_text, 0)):
        at = found.end() - 1
        end = text.find("\n", at)
        if end < 0 or end >= last_text:
            break
        if any(closed < at and opener.match(text, at) for opener, closed in kinds):
            line += text.count("\n", counted, found.start())
            counted = found.start()
            blanked[line] = text[found.start():end]
            pieces.append(text[start:found.start()] + _NOTHING)
            start = end
    if not blanked:
        return text, {}
    pieces.append(text[start:])
    return "".join(pieces), blanked


def _read_deep_as_text(md) -> list[int]:
    """Make `md` read what is nested past its maxNesting with its other block rules (paragraphs,
    code, headings, ...) but no more lists and block quotes, instead of skipping it.

    markdown-it skips "the tail" of a container nested that deep: up to the end line its caller
    passed, which for a list item is the end of the document, as an item's extent is found while
    it is parsed (a block quote's is found first, so it lost only its own lines). Without lists and
    quotes nothing nests further, so Python's recursion stays at maxNesting levels; each line is
    still parsed once, in the same pass. Returns the (1-based) lines where that happened, filled
    in as `md` parses."""
    from markdown_it import rules_block

    block = md.block
    tokenize = block.tokenize
    deep: list[int] = []

    def bounded(state, start: int, end: int) -> None:
        if state.level < md.options.maxNesting:
            return tokenize(state, start, end)
        nesting = (rules_block.list_block, rules_block.blockquote)
        flat = [rule for rule in block.ruler.getRules("") if rule not in nesting]
        line = start
        empty_before = told = False
        # markdown-it's own loop (ParserBlock.tokenize), without its check of the level
        while line < end:
            state.line = line = state.skipEmptyLines(line)
            if line >= end or state.sCount[line] < state.blkIndent:
                break
            if not told:  # once for each container nested too deep: where its text starts
                deep.append(line + 1)
                told = True
            for rule in flat:
                if rule(state, line, end, False):
                    break
            else:  # the paragraph rule takes any line
                raise RuntimeError("none of the block rules matched")
            if state.line <= line:  # as markdown-it checks: a rule that does not move on would loop
                raise RuntimeError("block rule didn't increment state.line")
            state.tight = not empty_before
            line = state.line
            if line - 1 < end and state.isEmpty(line - 1):
                empty_before = True
            if line < end and state.isEmpty(line):
                empty_before = True
                line += 1
                state.line = line

    block.tokenize = bounded
    return deep


def _inline_text(children, titles: list[str] | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The text and links of an inline token's children; `titles` gets the titles of its links
    and images that hold what reads as a rule or a line break (a title is no text: a rule in one
    went without a word, sweep 32)."""
    out: list[str] = []
    links: list[tuple[str, str]] = []
    open_link: tuple[str, int] | None = None
    code = None  # inside an inline <script> or <style>: its name (code, not text, as in a page)
    skipped: list[str] = []  # its text, read after all if it is never closed (sweep 22: lost without a word)
    for child in children:
        kind = child.type
        if code is not None:
            if kind == "html_inline" and child.content[:2] == "</" and _TAG_NAME.match(child.content)[1].lower() == code:
                code = None
                skipped.clear()
            elif kind in ("text", "code_inline"):
                skipped.append(child.content)
            elif kind in ("softbreak", "hardbreak"):
                skipped.append(" " if kind == "softbreak" else "\n")
            continue
        if kind in ("text", "code_inline"):
            out.append(child.content)
        elif kind == "html_inline":
            # a tag is markup, a `<br>` a line break; a comment or CDATA section is kept as text
            tag = _TAG_NAME.match(child.content)
            if tag is None:
                out.append(child.content)
            elif tag.group(1).lower() == "br":
                out.append("\n")
            elif tag.group(1).lower() in _END_OF_HIDDEN and child.content[1] != "/":
                code = tag.group(1).lower()
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "image":  # its alt text is text, its source a link, as an anchor's (it was lost: sweep 18)
            out.append(child.content)
            links.append((child.content, str(child.attrs.get("src", ""))))
        elif kind == "link_open":
            open_link = (child.attrs.get("href", ""), len(out))
        elif kind == "link_close" and open_link is not None:
            href, at = open_link
            links.append(("".join(out[at:]), str(href)))
            open_link = None
        if titles is not None and kind in ("image", "link_open") and (title := str(child.attrs.get("title") or "")) \
                and ("\n" in title or holds_rule(title)):
            titles.append(title)
    if code is not None:
        out += skipped
    return "".join(out), links


_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_BREAKS = _BLOCKS | {"br"}  # tags that end a line of text, as the HTML reader reads them
_END_OF_HIDDEN = {
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}


def _html_text(content: str, opened: list[int], hiding: list[int]) -> list[tuple[int, str]]:
    """The text of a raw HTML block as (line offset in the block, text) pairs, tags and comments
    taken out: a block tag or `<br>` ends a line, a tag or comment over several lines keeps the
    lines after it in place. One scan: each `<` looks for its end once, and a tag without
    one ends the scan (the rest is text), so a block of unclosed `<a` is not quadratic.

    A comment, script or style never closed, with text after it in the block, is read as its
    opening alone: the offset of its line is added to `opened`. One closed that holds what
    reads as rules is not read, and its offset is added to `hiding` (188 rules in a comment went
    to residue without a word: sweep 20)."""
    out: list[tuple[int, str]] = []
    pieces: list[str] = []
    offset = 0  # the source line (from the block's first) that `pieces` are on

    def end_line() -> None:
        # shortened as the HTML reader does: html.unescape makes an int of a reference's digits,
        # which Python refuses past 4,300 (exit 3 for `&#` and 5,000 digits)
        text = " ".join(unescape(shorten_references("".join(pieces))[0]).split())
        if text:
            out.append((offset, text))
        pieces.clear()

    def text(part: str) -> None:
        nonlocal offset
        for n, line in enumerate(part.split("\n")):
            if n:
                end_line()
                offset += 1
            pieces.append(line)

    i, size = 0, len(content)
    # found once, not at each opening (which would be quadratic in a block of them): where the
    # last text is, where the last comment closes, which hidden elements close no more
    last_text = _last_text(content)
    last_closed_comment = content.rfind("-->")
    never_closed: set[str] = set()
    while i < size:
        j = content.find("<", i)
        if j < 0:
            text(content[i:])
            break
        text(content[i:j])
        tag = _TAG_NAME.match(content, j)
        if content.startswith("<!--", j):
            end = content.find("-->", j + 4) if last_closed_comment >= j + 4 else -1
            stop = size if end < 0 else end + 3
            name = ""
            if end < 0 and last_text >= j + 4:  # never closed, and text follows: read it
                opened.append(offset)
                stop = j + 4
            elif end >= 0 and holds_rule(content, j + 4, end):
                hiding.append(offset)
        elif tag is not None or content.startswith(("<!", "<?"), j):
            end = content.find(">", j + 1)
            if end < 0:
                text(content[j:])  # no tag ends here, nor later: the rest is text
                break
            stop = end + 1
            name = tag.group(1).lower() if tag is not None else ""
            # a declaration, CDATA, a processing instruction; as in a page, also after its first word
            # (`<?php 100.1b ...?>`, `<!x 100.1b ...>` went without a word: sweep 24)
            opening = 9 if content.startswith("<![CDATA[", j) else 2
            if tag is None and (holds_rule(content, j + opening, stop) or _AFTER_A_WORD.match(content[j + 2 : stop])):
                hiding.append(offset)
            hidden = _END_OF_HIDDEN.get(name) if content[j + 1] != "/" else None
            if hidden is not None:  # a script or style: code, not text
                close = hidden.search(content, stop) if name not in never_closed else None
                if close is not None:
                    if holds_rule(content, stop, close.start()):
                        hiding.append(offset)
                    stop = close.end()
                elif never_closed.add(name) or last_text >= stop:  # never closed, and text follows: read it
                    opened.append(offset)
                else:
                    stop = size
        else:
            text("<")
            i = j + 1
            continue
        # the markup is gone, its line breaks stay (for the origin of the lines after it)
        if name in _BREAKS:
            end_line()
        for _ in range(content.count("\n", j, stop)):
            end_line()
            offset += 1
        i = stop
    end_line()
    return out


def _last_text(content: str) -> int:
    """The index of the last character of `content` that is text outside a tag (not a space);
    -1 if there is none. From the end, a tag at a time: each character is looked at once."""
    end = len(content)
    while True:
        closing = content.rfind(">", 0, end)
        tail = content[closing + 1 : end].rstrip()
        if tail:
            return closing + len(tail)
        if closing < 0:
            return -1
        opening = content.rfind("<", 0, closing)
        if opening < 0:  # a ">" no tag holds: text
            return closing
        end = opening
