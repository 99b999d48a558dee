"""Reference phrases -> cited items: the reference grammar (grammars/references.lark), its LALR
table built by lark, run over the tokens of crparse.refs.scan."""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Callable, Iterator
from importlib import resources
from typing import NamedTuple

from lark import Lark
from lark.lexer import Lexer
from lark.parsers.lalr_analysis import Shift

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


RawToken = scan.RawToken


class _Target(NamedTuple):
    kind: str  # "rule" | "range" | "letter"
    first: str
    last: str
    start: int
    end: int


def _title(token: RawToken) -> str:
    return token[1].lstrip(", \t").strip("“”\"").rstrip(" ,.;:")


def _without_letter(number: str) -> str:
    """The rule a subrule number belongs to: "702.25a" -> "702.25"."""
    return number.rstrip(string.ascii_lowercase)


# What each rule of the grammar makes of its children (tokens are scan.RawToken tuples: type,
# value, start, end). As in lark's trees, tokens whose name starts with "_" are dropped and the
# children of rules whose name does are spliced into their parent.


def _number(children) -> _Target:
    (tok,) = children
    return _Target("rule", tok[1], tok[1], tok[2], tok[3])


def _range(children) -> _Target:
    first, last = children
    end = last[1]
    if last[0] in ("D1", "D2") or (last[0] == "D3" and "." in first[1]):
        end = first[1].rsplit(".", 1)[0] + "." + last[1]  # 712.5–6
    return _Target("range", first[1], end, first[2], last[3])


def _letter_range(children) -> _Target:
    first, letter = children
    return _Target("range", first[1], _without_letter(first[1]) + letter[1], first[2], letter[3])


def _letter(children) -> _Target:
    (tok,) = children
    return _Target("letter", tok[1], tok[1], tok[2], tok[3])


def _rule_item(children) -> Item:
    keyword = children[0] if children[0].__class__ is tuple and children[0][0] == "RULE_WORD" else None
    rest = children[1:] if keyword is not None else children
    kind, first, last, start, end = rest[0]
    title = rest[1] if len(rest) > 1 else None
    if title is not None:
        end = title[3]
    return Item(
        keyword[1] if keyword is not None else None,
        kind,
        first,
        last,
        _title(title) if title is not None else None,
        keyword[2] if keyword is not None else start,
        end,
    )


def _section_item(children) -> Item:
    keyword, number = children[0], children[1]
    title = children[2] if len(children) > 2 else None
    end = title[3] if title is not None else number[3]
    return Item(keyword[1], "section", number[1], number[1], _title(title) if title else None, keyword[2], end)


def _phrase(children) -> list[Item]:
    return [c for c in children if c.__class__ is Item]


def _pointer(children) -> list[RawToken]:
    return [c for c in children if c.__class__ is tuple and c[0] in ("TERM", "COMMA", "AND", "OR")]


_BUILDERS = {
    "number": _number,
    "range": _range,
    "letter_range": _letter_range,
    "letter": _letter,
    "rule_item": _rule_item,
    "section_item": _section_item,
    "phrase": _phrase,
    "pointer": _pointer,
}


class _Spliced(list):
    """The children of an inlined rule, spliced into the rule that holds it."""


def _children(children: list, out: list) -> list:
    for child in children:
        if child.__class__ is _Spliced:
            out.extend(child)
        elif child.__class__ is not tuple or child[0][0] != "_":
            out.append(child)
    return out


def _inlined(children: list) -> _Spliced:
    # A list rule is left-recursive (`__phrase_star_0: __phrase_star_0 _join _item`): its list
    # is grown in place, not copied at each item.
    if children and children[0].__class__ is _Spliced:
        return _children(children[1:], children[0])
    return _children(children, _Spliced())


def _callback(name: str):
    """What a reduction to the rule (or alias) `name` calls on its children."""
    if name.startswith("_"):
        return _inlined
    builder = _BUILDERS[name]
    return lambda children: builder(_children(children, []))


@functools.cache
def _parser() -> Lark:
    grammar = resources.files("crparse.refs").joinpath("grammars/references.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer=_TokenLexer, start=["phrase", "pointer"])


class _Table(NamedTuple):
    """lark's LALR table, re-keyed for the loops below: for each state and terminal, an int
    (shift to that state) or a reduction (length of the expansion, the rule's name, what it
    calls on its children); for each state and rule, the state to go to. lark's own driver
    (Token objects, a Tree, a Transformer, a parse again for each shorter prefix tried) cost
    several times more a token, on a line of a hundred thousand references that adds up."""

    actions: dict[int, dict[str, int | tuple[int, str, Callable]]]
    goto: dict[int, dict[str, int]]
    starts: dict[str, int]
    ends: dict[str, int]
    ends_from: dict[int, int]  # start state -> end state


@functools.cache
def _table() -> _Table:
    parser = _parser().parser.parser.parser  # frontend -> LALR_Parser -> _Parser
    table = parser.parse_table
    actions: dict[int, dict[str, int | tuple[int, str, Callable]]] = {}
    goto: dict[int, dict[str, int]] = {}
    for state, row in table.states.items():
        actions[state], goto[state] = {}, {}
        for symbol, (action, arg) in row.items():
            name = str(symbol)
            if action is not Shift:
                origin = str(arg.origin.name)
                actions[state][name] = (len(arg.expansion), origin, _callback(arg.alias or origin))
            elif name.isupper() or name == "$END":
                actions[state][name] = arg
            else:
                goto[state][name] = arg
    starts, ends = dict(table.start_states), dict(table.end_states)
    return _Table(actions, goto, starts, ends, {starts[k]: ends[k] for k in starts})


class _Step(NamedTuple):
    stack: tuple[int, ...] | None  # after the token; None: the token is refused
    reductions: tuple[tuple[int, Callable], ...]  # made before shifting it: size, callback
    could_end: bool  # the input could end after the token


# The grammar's lists are left-recursive, so its stacks stay a few states deep and are few (167
# steps over the whole corpus): the step from a stack on a token is worked out once and looked up
# after. A run is then a dict lookup a token, to check it, and the callbacks alone, to build it.
_STEPS: dict[tuple[tuple[int, ...], str], _Step] = {}


def _step(stack: tuple[int, ...], kind: str) -> _Step:
    step = _STEPS.get((stack, kind))
    if step is None:
        step = _work_out(_table(), stack, kind)
        if len(_STEPS) < 1 << 14:
            _STEPS[stack, kind] = step
    return step


def _reduce(table: _Table, states: list[int], kind: str, reductions: list) -> bool:
    """Reduces `states` in place before a token of `kind`; False if the token is refused."""
    actions, goto = table.actions, table.goto
    end_state = table.ends_from[states[0]]
    while True:
        action = actions[states[-1]].get(kind)
        if action is None:
            return False
        if action.__class__ is int:
            return kind != "$END"  # lark's tables never shift the end
        size, origin, callback = action
        reductions.append((size, callback))
        if size:
            del states[-size:]
        states.append(goto[states[-1]][origin])
        if kind == "$END" and states[-1] == end_state:
            return True


def _work_out(table: _Table, stack: tuple[int, ...], kind: str) -> _Step:
    states, reductions = list(stack), []
    if not _reduce(table, states, kind, reductions):
        return _Step(None, (), False)
    if kind == "$END":
        return _Step(tuple(states), tuple(reductions), True)
    states.append(table.actions[states[-1]][kind])
    could_end = _reduce(table, states[:], "$END", [])
    return _Step(tuple(states), tuple(reductions), could_end)


def _viable(run: tuple[RawToken, ...], start: str) -> tuple[int, bool]:
    """The length of the longest prefix of `run` the grammar accepts (0: none), and whether a
    token of the run was refused (then no token after it can change the answer)."""
    stack: tuple[int, ...] | None = (_table().starts[start],)
    best = 0
    for i, tok in enumerate(run):
        stack, _, could_end = _step(stack, tok[0])
        if stack is None:
            return best, True
        if could_end:
            best = i + 1
    return best, False


def _tree(run: tuple[RawToken, ...], start: str):
    """What the rules make of `run`, which the grammar accepts whole."""
    stack = (_table().starts[start],)
    values: list = []
    for tok in (*run, ("$END", "", 0, 0)):
        stack, reductions, _ = _step(stack, tok[0])
        for size, callback in reductions:
            if size:
                children = values[-size:]
                del values[-size:]
            else:
                children = []
            values.append(callback(children))
        values.append(tok)
    return values[-2]  # before the $END token: what the start rule made


# Real runs are a few tokens (3,140 distinct over 112 releases); a run past CACHED_RUN tokens is
# absurd input, and caching it would only hold memory.
CACHED_RUN = 32


@functools.lru_cache(maxsize=1 << 13)
def _parse_run(run: tuple[RawToken, ...], start: str):
    """The longest phrase at the start of `run` (offsets relative to the run): its items (or
    pointer tokens) and its end. Cached on the run, so the same phrase in another rule or
    release is parsed once."""
    used, _ = _viable(run, start)
    if not used:
        return (), 0
    return tuple(_tree(run[:used], start)), run[used - 1][3]


def _parse(run: tuple[RawToken, ...], start: str):
    return _parse_run(run, start) if len(run) <= CACHED_RUN else _parse_run.__wrapped__(run, start)


# A run is read FIRST_READ tokens at a time, growing up to scan.MAX_RUN while the phrase may
# still go on: so a line of anchors whose phrases end at once ("100.1, , 100.2, , ...") costs a
# few tokens per anchor, not a full run each.
FIRST_READ = 4


def _read(text: str, pos: int, cite: bool):
    """The items of the phrase at `pos` (offsets relative to its first token), its end, where
    its first token starts, and whether the run was cut at scan.MAX_RUN tokens."""
    size = FIRST_READ
    while True:
        run = scan.tokens(text, pos, cite=cite, limit=size)
        if not run:
            return (), 0, pos, False
        origin = run[0][2]
        relative = _relative(run, origin)
        # Read on only while every token so far fits a phrase that is not over yet.
        if len(run) < size or size >= scan.MAX_RUN or _viable(relative, "phrase")[1]:
            items, end = _parse(relative, "phrase")
            return items, end, origin, len(run) >= scan.MAX_RUN
        size = min(4 * size, scan.MAX_RUN)


def _relative(tokens: list[scan.RawToken], origin: int) -> tuple[scan.RawToken, ...]:
    return tuple((t, v, s - origin, e - origin) for t, v, s, e in tokens)


def phrases(text: str, *, cite: bool = False, bare: bool = False) -> list[Citation]:
    """Every reference phrase in `text`, split into citations (a keyword and its items).
    `bare`: the text is a list of locators (the 1999 index), a phrase from its first character."""
    return list(iter_phrases(text, cite=cite, bare=bare))


class TooManyAnchors(Exception):
    """More places that read like the start of a reference than the caller allows."""

    def __init__(self, offset: int, limit: int):
        super().__init__(offset, limit)
        self.offset, self.limit = offset, limit


def iter_phrases(text: str, *, cite: bool = False, bare: bool = False, max_anchors: int | None = None) -> Iterator[Citation]:
    """`phrases`, one at a time: a caller that counts them can stop reading. Past `max_anchors`
    places read (a keyword or a rule number, whether or not a phrase follows), TooManyAnchors:
    each costs a run of tokens, so a line of nothing but "rules 1, rules 1, ..." is bounded too."""
    done = 0
    read = 0
    starts = scan.anchors(text, cite=cite)
    if bare:
        starts = itertools.chain([0], starts)
    for pos in starts:
        if pos < done:
            continue
        read += 1
        if max_anchors is not None and read > max_anchors:
            raise TooManyAnchors(pos, max_anchors)
        items, end, origin, cut = _read(text, pos, cite)
        skip = 0  # items read again only for their rule (a list of letters, below)
        while items:
            done = origin + end
            citations = _citations([moved(i, origin) for i in items])
            if skip:
                first = citations[0]
                citations[0] = Citation(first.items[1].start, first.end, first.items[1:]) if first.items[1:] else None
            yield from (c for c in citations if c is not None)
            if not (cut and cite):
                break
            # A list cut at MAX_RUN goes on from its next rule number, which in a document is an
            # anchor of its own, and in a file given to cite-check is not ("CR 704.5f / ... /
            # 999.9z": the stale last item was never read, exit 0: sweep 12).
            read += 1
            if max_anchors is not None and read > max_anchors:
                raise TooManyAnchors(done, max_anchors)
            more = _RULE_NUMBER.search(text, done, done + 17)
            if more is not None:
                items, end, origin, cut = _read(text, more.start(), cite)
                skip = 0
                continue
            # A list of letters goes on from its last rule ("CR 702.19b/c/.../q": the letters
            # need it; the stale last one was never read: sweep 13): that rule is read again
            # before the rest, in a window of the text, and its item dropped.
            last = next(c for c in reversed(citations) if c is not None).items[-1].last
            window = last + text[done : done + _WINDOW]
            items, end, shift, cut = _read(window, 0, cite)
            origin, skip = done - len(last) + shift, 1
            if len(items) < 2 or origin + end <= done:
                break


_RULE_NUMBER = re.compile(r"(?<![\w.])\d{3}\.\d")
_WINDOW = 64 * scan.MAX_RUN  # of text read on from a list of letters cut at MAX_RUN tokens


def moved(item: Item, by: int) -> Item:
    """The item with its offsets moved by `by` (`_replace`, a Python-level call, is slower by
    half on a line of a hundred thousand references)."""
    keyword, kind, first, last, title, start, end = item
    return Item(keyword, kind, first, last, title, start + by, end + by)


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
    done = 0
    for pos in scan.pointer_anchors(text):
        if pos < done:  # a "See" quoted inside the last pointer's term
            continue
        run = scan.pointer_tokens(text, pos)
        items, end = _parse(_relative(run, pos), "pointer") if run else ((), 0)
        done = pos + end
        terms: list[Item] = []
        separator = None
        for kind, value, start, end in items:
            if kind == "TERM":
                terms.append(Item(None, "glossary", value, value, separator, pos + start, pos + end))
                separator = None
            else:
                separator = (separator or "") + value
        if terms:
            out.append(Citation(terms[0].start, terms[-1].end, tuple(terms)))
    return out
