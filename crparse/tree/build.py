"""Blocks -> rule tree: the document grammar (grammars/document.lark) run as an LALR parser
whose reductions build the immutable nodes.

lark analyses the grammar into its LALR table; `_drive` runs that table over the blocks, and
each reduction calls the `_Builder` method named after the grammar rule, with the rule's
children in document order (lark's `x*` lists inlined, as its own tree builder inlines them).
The blocks are typed already, so they go in as they are: no Token per block, no lexer thread,
no parse tree. The loop is lark's `ParserState.feed_token` without its generality; with it this
stage takes a third of the time it took through lark's parser and transformer (5,200 blocks in
the 2026 release).
"""

from __future__ import annotations

import hashlib
import pkgutil
import re
from collections.abc import Iterable
from typing import NamedTuple

import msgspec
from msgspec.structs import replace

from crparse.blocks.tokenize import Block
from crparse.nodes import Block as TextBlock
from crparse.nodes import ContentsEntry, Diagnostic, Example, GlossaryEntry, IndexEntry, Residue, Rule
from crparse.numbers import parse_number

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


def _example(block: Block) -> Example:
    return Example(block.text, block.line, block.end_line, block.label or "Example:", block.changed)


class _Builder:
    """One method per grammar rule: each gets its children in document order and returns plain
    data (or a closure that fills the Parts, for the rules that hold many nodes)."""

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
                block: Block = item
                parts.front_matter.append(TextBlock(_FRONT_KINDS[block.type], block.text, block.line, block.end_line))

        return fill

    def contents(self, items):
        head: Block = items[0]

        def fill(parts: Parts) -> None:
            parts.headings.append(head)
            for tok in items[1:]:
                b: Block = tok
                page = int(b.label) if b.label else None
                parts.contents.append(ContentsEntry(b.number or None, b.title, b.line, page))

        return fill

    def orphan(self, items):
        block: Block = items[0]
        reason = "example-without-rule" if block.type == "EXAMPLE" else "text-outside-rule"
        return block, reason

    def unit(self, children):
        # Called with its raw children, the hottest reduction: the head block, then the list
        # of its paragraphs and examples when it has any.
        return children[0], (children[1] if len(children) > 1 else ())

    unit.raw = True  # type: ignore[attr-defined]

    def body(self, items):
        def fill(parts: Parts) -> None:
            rules = parts.rules
            for head, rest in items[1:]:
                if rest.__class__ is str:  # an orphan and its reason
                    _residue(parts, head, rest)
                else:
                    rules.append(_rule(parts, head, rest))

        return fill

    def glossary(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0])
            for item in items[1:]:
                if isinstance(item[1], str):
                    _residue(parts, *item)
                else:
                    parts.glossary.append(_entry(parts, *item))

        return fill

    def entry(self, children):
        return children[0], (children[1] if len(children) > 1 else ())

    entry.raw = True  # type: ignore[attr-defined]

    def index(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0])
            for tok in items[1:]:
                b: Block = tok
                parts.index.append(IndexEntry(b.text, b.title, int(b.label or 0), b.line))

        return fill

    def credits(self, items):
        def fill(parts: Parts) -> None:
            parts.headings.append(items[0])
            for tok in items[1:]:
                b: Block = tok
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
        b: Block = tok
        if b.type == "EXAMPLE":
            examples.append(_example(b))
        elif b.type == "STRAY":
            _stray(parts, b)
        else:
            texts.append(b.text)
            spans.append((b.line, b.end_line))
    return texts, spans, examples


def _rule(parts: Parts, head: Block, attachments) -> Rule:
    parsed = parse_number(head.number)
    if not attachments:  # most units: one paragraph and nothing else
        return Rule(
            head.number,
            _KINDS[head.type],  # type: ignore[arg-type]
            parsed.parent() if parsed else None,
            head.title,
            head.text,
            (),
            head.line,
            head.end_line,
            head.changed,
            ((head.line, head.end_line),),
        )
    texts, spans, examples = _attach(parts, head, attachments)
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
    texts, spans, examples = _attach(parts, replace(head, text=""), attachments)
    senses = tuple(t for t in texts if _SENSE.match(t))
    return GlossaryEntry(head.text, "\n".join(texts), head.line, spans[-1][1], senses, tuple(examples), tuple(spans))


# The package's files are read with pkgutil: importlib.resources costs 5 ms of imports (tempfile,
# random) in every process that parses, and reads them no differently.
def _grammar() -> str:
    return pkgutil.get_data("crparse.tree", "grammars/document.lark").decode("utf-8")


def _typed_lexer():
    from lark.lexer import Lexer

    class _Typed(Lexer):
        """The blocks come typed: lark needs no lexer, only to know it has none to build."""

        def __init__(self, lexer_conf):
            pass

        def lex(self, data):  # pragma: no cover - never called: _drive feeds the table itself
            raise NotImplementedError

    return _Typed


class _Table(NamedTuple):
    """lark's LALR table, re-keyed for the loop in `_drive`: for each state and terminal, an int
    (shift to that state) or a reduction (length of the expansion, the nonterminal it reduces
    to, the callback); for each state and nonterminal, the state to go to. lark's own table holds
    grammar Rule objects, whose hashing is a Python method: 9,000 calls a parse."""

    actions: dict[int, dict[str, int | tuple]]
    goto: dict[int, dict[str, int]]
    start: int
    end: int


_TABLE: _Table | None = None
# The analysed grammar, as data: lark's LALR analysis and lark's own import are most of a
# process's start-up (~80 ms), so the table is shipped beside the grammar, keyed by the
# grammar's sha256, and lark runs only when the grammar changed since (tools/tables.py writes
# the file again; a test fails while it is stale).
TABLE_FILE = "grammars/document.table.json"


def _table() -> _Table:
    global _TABLE
    if _TABLE is None:
        grammar = _grammar()
        data = shipped_table(grammar) or analyse(grammar)
        builder = _Builder()
        reductions: dict[int, tuple] = {}

        def reduction(spec: list) -> tuple:
            size, origin, how = spec
            key = (size, origin, how)
            if key not in reductions:
                reductions[key] = (size, origin, _callback(how, origin, builder))
            return reductions[key]

        actions = {int(state): {symbol: arg if isinstance(arg, int) else reduction(arg) for symbol, arg in row.items()}
                   for state, row in data["actions"].items()}
        goto = {int(state): dict(row) for state, row in data["goto"].items()}
        _TABLE = _Table(actions, goto, data["start"], data["end"])
    return _TABLE


def grammar_digest(grammar: str) -> str:
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def shipped_table(grammar: str) -> dict | None:
    """The table shipped with the package, if it was made from this grammar."""
    try:
        raw = pkgutil.get_data("crparse.tree", TABLE_FILE)
        data = msgspec.json.decode(raw)
    except (OSError, msgspec.DecodeError):
        return None
    return data if data.get("grammar_sha256") == grammar_digest(grammar) else None


def analyse(grammar: str) -> dict:
    """lark's LALR table of the grammar, as plain data: for each state and terminal a shift (the
    state) or a reduction [length of the expansion, the nonterminal, how to build it]; for each
    state and nonterminal the state to go to."""
    from lark import Lark  # only here: see TABLE_FILE
    from lark.parsers.lalr_analysis import Shift

    lark = Lark(grammar, parser="lalr", lexer=_typed_lexer())
    parser = lark.parser.parser.parser  # frontend -> LALR_Parser -> _Parser
    table = parser.parse_table
    reductions = {rule: [len(rule.expansion), str(rule.origin.name), _how(rule)] for rule in parser.callbacks}
    actions: dict[str, dict[str, object]] = {}
    goto: dict[str, dict[str, int]] = {}
    for state, row in table.states.items():
        actions[str(state)], goto[str(state)] = {}, {}
        for symbol, (action, arg) in row.items():
            if action is not Shift:
                actions[str(state)][str(symbol)] = reductions[arg]
            elif str(symbol).isupper() or str(symbol) == "$END":
                actions[str(state)][str(symbol)] = arg
            else:
                goto[str(state)][str(symbol)] = arg
    return _canonical(actions, goto, table.start_states["start"], table.end_states["start"], grammar_digest(grammar))


def _canonical(actions: dict, goto: dict, start: int, end: int, digest: str) -> dict:
    """The table with its states numbered in breadth-first order from the start, symbols in
    sorted order: lark numbers states differently in each process (hash randomisation), and the
    shipped file should change only when the grammar does."""
    order: dict[int, int] = {start: 0}
    queue = [start]
    for state in queue:
        row = {**actions[str(state)], **goto[str(state)]}
        for symbol in sorted(row):
            target = row[symbol]
            if isinstance(target, int) and target not in order:
                order[target] = len(order)
                queue.append(target)
    if end not in order:
        order[end] = len(order)
    for state in sorted(int(s) for s in actions):  # unreachable states, if any
        order.setdefault(state, len(order))

    def shifted(row: dict) -> dict:
        return {symbol: order[arg] if isinstance(arg, int) else arg for symbol, arg in sorted(row.items())}

    return {
        "grammar_sha256": digest,
        "start": 0,
        "end": order[end],
        "actions": {str(order[int(s)]): shifted(row) for s, row in sorted(actions.items(), key=lambda x: order[int(x[0])])},
        "goto": {str(order[int(s)]): shifted(row) for s, row in sorted(goto.items(), key=lambda x: order[int(x[0])])},
    }


def _how(rule) -> str:
    """How a reduction by `rule` builds its value. The lists lark makes of `x*` (`__unit_star_4:
    x | __unit_star_4 x`) become Python lists grown in place ("grow", "list"), inlined into the
    rule that holds them; `?rule` with one child is that child ("child"); every other rule is its
    builder method ("method")."""
    name = str(rule.origin.name)
    symbols = [str(getattr(sym, "name", sym)) for sym in rule.expansion]
    if name.startswith("__") and "_star_" in name:
        if len(symbols) == 2 and symbols[0] == name:
            return "grow"
        if len(symbols) == 1:
            return "list"
        raise AssertionError(f"document grammar: unexpected list rule {rule}")  # pragma: no cover
    if getattr(_Builder, name, None) is None and rule.options.expand1 and len(symbols) == 1:
        return "child"
    return "method"


def _callback(how: str, name: str, builder: _Builder):
    if how == "grow":
        return _grow
    if how == "list":
        return _start_list
    if how == "child":
        return _only_child
    method = getattr(builder, name, None)
    if method is None:
        raise AssertionError(f"document grammar: no builder method for rule {name!r}")  # pragma: no cover
    if getattr(method, "raw", False):
        return method
    return lambda children: method(_inlined(children))


def _grow(children: list) -> list:
    children[0].append(children[1])
    return children[0]


def _start_list(children: list) -> list:
    return [children[0]]


def _only_child(children: list):
    return children[0]


def _inlined(children: list) -> list:
    """The children with the `x*` lists among them spliced in (no builder returns a list)."""
    out: list = []
    for child in children:
        if child.__class__ is list:
            out.extend(child)
        else:
            out.append(child)
    return out


class _End(NamedTuple):
    type: str = "$END"
    line: int | None = None


_END = _End()


def _drive(blocks: Iterable[Block]):
    actions, goto, start, end = _table()
    states, values = [start], []
    push_state, push_value = states.append, values.append
    state = start
    for block in (*blocks, _END):
        kind = block.type
        while True:
            action = actions[state].get(kind)
            if action.__class__ is int:  # shift
                push_state(action)
                push_value(block)
                state = action
                break
            if action is None:  # a tokenizer/grammar mismatch is a bug: name the block
                raise AssertionError(
                    f"document grammar rejected a {kind} block at line {block.line}; expected one of {sorted(actions[state])}"
                )
            size, name, callback = action
            if size:
                children = values[-size:]
                del states[-size:]
                del values[-size:]
            else:
                children = []
            push_value(callback(children))
            state = goto[states[-1]][name]
            push_state(state)
            if state == end and kind == "$END":
                return values[-1]
    raise AssertionError("document grammar: input ended early")  # pragma: no cover


def build(blocks: list[Block]) -> Parts:
    """Parse the block stream. The grammar accepts every stream the tokenizer produces; if that
    ever fails, the error names the block, rather than losing it."""
    return _drive(blocks)
