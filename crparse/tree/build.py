"""Blocks -> rule tree: the document grammar (grammars/document.lark) run by lark's LALR parser,
with a transformer that builds the immutable nodes as the parser reduces."""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import resources
from typing import NamedTuple

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer

from crparse.blocks.tokenize import Block
from crparse.diagnostics import Diagnostic
from crparse.tree.model import Block as TextBlock
from crparse.tree.model import ContentsEntry, Example, GlossaryEntry, IndexEntry, Residue, Rule
from crparse.tree.numbers import parse_number

_SENSE = re.compile(r"\d{1,2}\.\s")
_KINDS = {"PART": "part", "SECTION": "section", "RULE": "rule", "SUBRULE": "subrule"}
_FRONT_KINDS = {"TITLE": "title", "DATE_LINE": "effective-date", "HEADING": "heading", "PARA": "paragraph"}


class Parts(NamedTuple):
    """What the grammar builds; crparse.pipeline assembles it into a Document."""

    front_matter: list[TextBlock]
    contents: list[ContentsEntry]
    contents_heading: Block | None
    rules: list[Rule]
    glossary: list[GlossaryEntry]
    index: list[IndexEntry]
    credits: list[TextBlock]
    residue: list[Residue]
    diagnostics: list[Diagnostic]
    headings: list[Block]


class _BlockLexer(Lexer):
    """The blocks are already typed: hand them to the parser as they are."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, blocks: Iterable[Block]):  # type: ignore[override]
        for block in blocks:
            # str(block) is its text; the Block itself rides along as the token's value.
            yield Token(block.type, block, None, block.line, 1, block.end_line)


def _example(block: Block) -> Example:
    return Example(block.text, block.line, block.end_line, block.label or "Example:", block.changed)


class _Builder(Transformer):
    """Each callback gets its children in document order and returns plain data."""

    def start(self, children):
        parts = Parts([], [], None, [], [], [], [], [], [], [])
        for child in children:
            child(parts)
        return parts

    # Sub-results are closures that fill the Parts, so no callback needs shared state.

    def front(self, items):
        def fill(parts: Parts) -> None:
            for item in items:
                if callable(item):
                    item(parts)
                    continue
                block: Block = item.value
                parts.front_matter.append(TextBlock(_FRONT_KINDS[block.type], block.text, block.line, block.end_line))

        return fill

    def contents(self, items):
        head: Block = items[0].value

        def fill(parts: Parts) -> None:
            parts.headings.append(head)
            for tok in items[1:]:
                b: Block = tok.value
                page = int(b.label) if b.label else None
                parts.contents.append(ContentsEntry(b.number or None, b.title, b.line, page))

        return fill

    def orphan(self, items):
        block: Block = items[0].value
        reason = "example-without-rule" if block.type == "EXAMPLE" else "text-outside-rule"
        return block, reason

    def unit(self, items):
        head: Block = items[0].value
        attachments = items[1:]
        return head, attachments

    def body(self, items):
        def fill(parts: Parts) -> None:
            for item in items[1:]:
                if isinstance(item, tuple) and isinstance(item[1], str):
                    _residue(parts, *item)
                else:
                    parts.rules.append(_rule(parts, *item))

        return fill

    def glossary(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0].value)
            for item in items[1:]:
                if isinstance(item[1], str):
                    _residue(parts, *item)
                else:
                    parts.glossary.append(_entry(parts, *item))

        return fill

    def entry(self, items):
        return items[0].value, items[1:]

    def index(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0].value)
            for tok in items[1:]:
                b: Block = tok.value
                parts.index.append(IndexEntry(b.text, b.title, int(b.label or 0), b.line))

        return fill

    def credits(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0].value)
            for tok in items[1:]:
                b: Block = tok.value
                kind = "effective-date" if b.type == "DATE_LINE" else "paragraph"
                parts.credits.append(TextBlock(kind, b.text, b.line, b.end_line))

        return fill


def _residue(parts: Parts, block: Block, reason: str) -> None:
    text = block.text if not block.label else f"{block.label} {block.text}".strip()
    parts.residue.append(Residue(block.line, text, reason, block.end_line))
    parts.diagnostics.append(Diagnostic(block.line, "warning", reason, f"{block.type.lower()} outside any rule or entry"))


def _stray(parts: Parts, block: Block) -> None:
    parts.residue.append(Residue(block.line, block.text, "stray-line"))
    parts.diagnostics.append(Diagnostic(block.line, "warning", "stray-line", f"stray line {block.text.strip()!r}"))


def _attach(parts: Parts, head: Block, attachments) -> tuple[list[str], list[tuple[int, int]], list[Example]]:
    """A unit's or entry's own paragraphs (with their line spans) and examples; stray lines
    among them go to residue."""
    texts = [head.text] if head.text else []
    spans = [(head.line, head.end_line)]
    examples = []
    for tok in attachments:
        b: Block = tok.value
        if b.type == "EXAMPLE":
            examples.append(_example(b))
        elif b.type == "STRAY":
            _stray(parts, b)
        else:
            texts.append(b.text)
            spans.append((b.line, b.end_line))
    return texts, spans, examples


def _rule(parts: Parts, head: Block, attachments) -> Rule:
    texts, spans, examples = _attach(parts, head, attachments)
    parsed = parse_number(head.number)
    return Rule(
        head.number,
        _KINDS[head.type],  # type: ignore[arg-type]
        parsed.parent() if parsed else None,
        head.title,
        "\n".join(texts),
        tuple(examples),
        head.line,
        spans[-1][1],
        head.changed,
        tuple(spans),
    )


def _entry(parts: Parts, head: Block, attachments) -> GlossaryEntry:
    # The term is the entry's heading, not part of its definition text.
    texts, spans, examples = _attach(parts, head._replace(text=""), attachments)
    senses = tuple(t for t in texts if _SENSE.match(t))
    return GlossaryEntry(head.text, "\n".join(texts), head.line, spans[-1][1], senses, tuple(examples), tuple(spans))


def _grammar() -> str:
    return resources.files("crparse.tree").joinpath("grammars/document.lark").read_text(encoding="utf-8")


_PARSER: Lark | None = None


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(_grammar(), parser="lalr", lexer=_BlockLexer, transformer=_Builder())
    return _PARSER


def build(blocks: list[Block]) -> Parts:
    """Parse the block stream. The grammar accepts every stream the tokenizer produces; if that
    ever fails, the error names the block, rather than losing it."""
    try:
        return _parser().parse(blocks)  # type: ignore[return-value]
    except UnexpectedInput as err:  # pragma: no cover - a tokenizer/grammar mismatch is a bug
        token = getattr(err, "token", None)
        line = getattr(token, "line", None)
        raise AssertionError(f"document grammar rejected block at line {line}: {err}") from err
