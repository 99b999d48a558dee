"""Reference phrases -> cited items: the reference grammar (grammars/references.lark) run by
lark's LALR parser over the tokens of crparse.refs.scan."""

from __future__ import annotations

import functools
import itertools
import string
from importlib import resources
from typing import NamedTuple

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer

from crparse.refs import scan


class Item(NamedTuple):
    """One cited item; `start`/`end` are offsets into the text the phrase was read from."""

    keyword: str | None  # "rule", "rules", "section", "CR"... as written; None when it continues a list
    kind: str  # "rule" | "section" | "range" | "glossary"
    first: str
    last: str
    title: str | None
    start: int
    end: int


class Citation(NamedTuple):
    """A keyword (or a bare number) and the items that follow it: one reference."""

    start: int
    end: int
    items: tuple[Item, ...]


class _TokenLexer(Lexer):
    """The tokens are already typed by the scanner."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, tokens):  # type: ignore[override]
        yield from tokens


def _title(token: Token) -> str:
    return token.value.lstrip(", \t").strip("“”\"").rstrip(" ,.;:")


def _without_letter(number: str) -> str:
    """The rule a subrule number belongs to: "702.25a" -> "702.25"."""
    return number.rstrip(string.ascii_lowercase)


def _start(token: Token) -> int:
    return token.start_pos or 0


class _Items(Transformer):
    def number(self, children):
        (tok,) = children
        return ("rule", tok.value, tok.value, _start(tok), tok.end_pos)

    def range(self, children):
        first, last = children
        end = last.value
        if last.type in ("D1", "D2") or (last.type == "D3" and "." in first.value):
            end = first.value.rsplit(".", 1)[0] + "." + last.value  # 712.5–6
        return ("range", first.value, end, _start(first), last.end_pos)

    def letter_range(self, children):
        first, letter = children
        return ("range", first.value, _without_letter(first.value) + letter.value, _start(first), letter.end_pos)

    def letter(self, children):
        (tok,) = children
        return ("letter", tok.value, tok.value, _start(tok), tok.end_pos)

    def rule_item(self, children):
        keyword = children[0] if children[0].__class__ is Token and children[0].type == "RULE_WORD" else None
        rest = children[1:] if keyword is not None else children
        kind, first, last, start, end = rest[0]
        title = rest[1] if len(rest) > 1 else None
        if title is not None:
            end = title.end_pos
        return Item(
            keyword.value if keyword is not None else None,
            kind,
            first,
            last,
            _title(title) if title is not None else None,
            _start(keyword) if keyword is not None else start,
            end,
        )

    def section_item(self, children):
        keyword, number = children[0], children[1]
        title = children[2] if len(children) > 2 else None
        end = title.end_pos if title is not None else number.end_pos
        return Item(keyword.value, "section", number.value, number.value, _title(title) if title else None, _start(keyword), end)

    def phrase(self, children):
        return [c for c in children if isinstance(c, Item)]

    def pointer(self, children):
        return [c for c in children if isinstance(c, Token) and c.type in ("TERM", "COMMA", "AND", "OR")]


@functools.cache
def _parser() -> Lark:
    grammar = resources.files("crparse.refs").joinpath("grammars/references.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer=_TokenLexer, start=["phrase", "pointer"])


_TRANSFORMER = _Items()


def _longest(tokens: list[Token], start: str):
    """The tree of the longest prefix of `tokens` that the grammar accepts, and its length."""
    parser = _parser()
    n = len(tokens)
    while n:
        try:
            return parser.parse(tokens[:n], start=start), n
        except UnexpectedInput as err:
            # Nothing after the token that failed can help: cut there, then step back.
            bad = getattr(err, "token", None)
            index = next((i for i, t in enumerate(tokens[:n]) if t is bad), n)
            n = min(n - 1, index)
    return None, 0


@functools.lru_cache(maxsize=1 << 16)
def _parse_run(run: tuple[tuple[str, str, int, int], ...], start: str):
    """Cached on the run's tokens with offsets relative to the run, so the same phrase in
    another rule or release is parsed once."""
    tokens = [Token(t, v, start_pos=s, end_pos=e) for t, v, s, e in run]
    tree, used = _longest(tokens, start)
    if tree is None:
        return (), 0
    return tuple(_TRANSFORMER.transform(tree)), tokens[used - 1].end_pos


def _relative(tokens: list[scan.RawToken], origin: int) -> tuple[scan.RawToken, ...]:
    return tuple((t, v, s - origin, e - origin) for t, v, s, e in tokens)


def phrases(text: str, *, cite: bool = False, bare: bool = False) -> list[Citation]:
    """Every reference phrase in `text`, split into citations (a keyword and its items).
    `bare`: the text is a list of locators (the 1999 index), a phrase from its first character."""
    out: list[Citation] = []
    done = 0
    starts = scan.anchors(text, cite=cite)
    if bare:
        starts = itertools.chain([0], starts)
    for pos in starts:
        if pos < done:
            continue
        run = scan.tokens(text, pos, cite=cite)
        if not run:
            continue
        origin = run[0][2]
        items, end = _parse_run(_relative(run, origin), "phrase")
        if not items:
            continue
        done = origin + end
        out.extend(_citations([i._replace(start=i.start + origin, end=i.end + origin) for i in items]))
    return out


def _citations(items: list[Item]) -> list[Citation]:
    groups: list[list[Item]] = []
    previous: Item | None = None
    for item in items:
        if item.kind == "letter":  # "608.3a and b": the letter of the previous item's rule
            base = _without_letter(previous.last) if previous else ""
            item = item._replace(kind="rule", first=base + item.first, last=base + item.last)
        if item.keyword is not None or not groups:
            groups.append([item])
        else:
            groups[-1].append(item)
        previous = item
    return [Citation(g[0].start, g[-1].end, tuple(g)) for g in groups]


def pointers(text: str) -> list[Citation]:
    """Glossary pointers ("See Landwalk.", "See also Tap, Untap, and Untapped."): one citation
    each, its items the terms as written; `Item.title` holds the separator before each term."""
    out: list[Citation] = []
    for pos in scan.pointer_anchors(text):
        run = scan.pointer_tokens(text, pos)
        items, _ = _parse_run(_relative(run, pos), "pointer") if run else ((), 0)
        terms: list[Item] = []
        separator = None
        for tok in items:
            if tok.type == "TERM":
                terms.append(Item(None, "glossary", tok.value, tok.value, separator, pos + tok.start_pos, pos + tok.end_pos))
                separator = None
            else:
                separator = (separator or "") + tok.value
        if terms:
            out.append(Citation(terms[0].start, terms[-1].end, tuple(terms)))
    return out
