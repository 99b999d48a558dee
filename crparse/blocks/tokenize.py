"""Lines -> typed blocks: the token stream the document grammar reads.

A block is a paragraph: one line in releases that print one paragraph per line, or a run of
wrapped lines in hard-wrapped releases. Its type comes from the line classifier and the region
it lies in. Lines that belong to no block (banners, underlines) go to residue here, with the
reason, so every line is accounted for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from msgspec import Struct

from crparse import shapes as C
from crparse.blocks.regions import Regions
from crparse.nodes import Diagnostic

# Region markers the grammar needs and the lines cannot give (see regions.py).
BODY_START = "BODY_START"


class Block(Struct, frozen=True, gc=False):
    """A typed paragraph: the token the document grammar reads (its `type` is the terminal)."""

    type: str
    text: str
    line: int  # 1-based, first source line
    end_line: int  # 1-based, last source line
    number: str = ""
    title: str = ""
    label: str = ""
    changed: str | None = None

    def __str__(self) -> str:
        return self.text


class Leftover(NamedTuple):
    line: int
    text: str
    reason: str


class Tokens(NamedTuple):
    blocks: list[Block]
    leftovers: list[Leftover]
    diagnostics: list[Diagnostic]


# a capital letter right after a rule number, alone: "100.2Z Text"; not "A" or "I" before a word
# in lower case, a rule's first word after a lost space ("601.3A player can...": review)
_CAPITAL_LETTER = re.compile(r"(?![AI] [a-z])[A-Z](?![A-Za-z])")


def _leading_zero(rule_part: str) -> bool:
    """Whether a rule part is printed with a leading zero ("01")."""
    return len(rule_part) > 1 and rule_part.startswith("0")


class _Group(NamedTuple):
    start: int  # 0-based index of the first line
    end: int  # 0-based index of the last line
    lines: list[str]
    after_blank: bool


def tokenize(
    lines: Sequence[str], regions: Regions, numbers: Sequence[int] | None = None, most: int | None = None
) -> Tokens:
    """`numbers[i]` is the source line of lines[i] when a reader renumbered (default: i + 1).
    With `most`, tokenizing stops at the block after the first `most`: the caller refuses a
    document of more (2M one-line paragraphs took 9 s and 360 MiB before the refusal)."""
    t = _Tokenizer(lines, regions, numbers, most)
    try:
        t.front()
        t.body()
        if regions.glossary:
            t.glossary(*regions.glossary)
        if regions.index:
            t.index(*regions.index)
        if regions.credits:
            t.credits(*regions.credits)
    except _Enough:
        pass
    return Tokens(t.blocks, t.leftovers, t.diagnostics)


class _Enough(Exception):
    """More blocks than the caller asked for."""


class _Tokenizer:
    def __init__(self, lines: Sequence[str], regions: Regions, numbers: Sequence[int] | None, most: int | None):
        self.most = most
        self.lines = lines
        self.regions = regions
        self.wrapped = regions.hard_wrapped
        self.numbers = numbers
        self.blocks: list[Block] = []
        self.leftovers: list[Leftover] = []
        self.diagnostics: list[Diagnostic] = []

    def lineno(self, i: int) -> int:
        return self.numbers[i] if self.numbers is not None else i + 1

    def emit(self, type_: str, group: _Group, text: str, number: str = "", title: str = "", label: str = "") -> None:
        changed = None
        if "[CompRules" in text:
            stamp = C.STAMP.search(text)
            if stamp:
                text = text[: stamp.start()]
                changed = C.iso_date(int(stamp["year"]), int(stamp["month"]), int(stamp["day"]))
                # The stamp is provenance, not rule text: it becomes `changed`, and its printed
                # form is kept in residue on the line that carries it, so no word is lost.
                at = next((i for i in range(group.end, group.start - 1, -1) if "[CompRules" in self.lines[i]), group.end)
                self.leftovers.append(Leftover(self.lineno(at), stamp.group().strip(), "change-stamp"))
        self.blocks.append(
            Block(type_, text, self.lineno(group.start), self.lineno(group.end), number, title, label, changed)
        )
        if self.most is not None and len(self.blocks) > self.most:
            raise _Enough

    def leftover(self, i: int, reason: str) -> None:
        self.leftovers.append(Leftover(self.lineno(i), self.lines[i], reason))

    # -- grouping lines into paragraphs --------------------------------------------------------

    def groups(self, start: int, end: int, *, line_mode: bool, split_terms: bool = False) -> Iterator[_Group]:
        """Paragraphs in lines[start:end]. In line mode every non-blank line is one; in
        hard-wrapped text a paragraph runs to a blank line or to a line that must open one
        (an "Example:" label, a deeper-indented continuation paragraph, a glossary term)."""
        lines = self.lines
        decoration_starts = C.DECORATION_STARTS
        if line_mode:
            after_blank = True
            for i in range(start, end):
                line = lines[i]
                if not line or line.isspace():
                    after_blank = True
                    continue
                if line.lstrip()[0] in decoration_starts and C.is_decoration(line):
                    self.leftover(i, "decoration")
                    continue
                yield _Group(i, i, [line], after_blank)
                after_blank = False
            return
        current: list[str] = []
        first = 0
        after_blank = True
        current_after_blank = True
        for i in range(start, end):
            line = lines[i]
            if not line or line.isspace():
                if current:
                    yield _Group(first, i - 1, current, current_after_blank)
                    current = []
                after_blank = True
                continue
            if line.lstrip()[0] in decoration_starts and C.is_decoration(line):
                if current:
                    yield _Group(first, i - 1, current, current_after_blank)
                    current = []
                self.leftover(i, "decoration")
                continue
            if current and self._opens_paragraph(line, current):
                yield _Group(first, i - 1, current, current_after_blank)
                current = []
            if not current:
                first = i
                current_after_blank = after_blank
            current.append(line)
            after_blank = False
            if split_terms and len(current) == 1 and current_after_blank and C.is_term_like(line):
                yield _Group(first, i, current, True)
                current = []
        if current:
            yield _Group(first, end - 1, current, current_after_blank)

    @staticmethod
    def _opens_paragraph(line: str, current: list[str]) -> bool:
        if C.EXAMPLE.match(line):
            return True
        if line.lstrip()[:1].isdigit() and C.opens_rule_anywhere(line):
            return True
        indent = C.indent_of(line)
        return indent >= C.PARAGRAPH_INDENT and indent > C.indent_of(current[-1]) + 1

    @staticmethod
    def joined(lines: list[str], first_rest: str | None = None, sep: str = " ") -> str:
        """A paragraph's text: its lines stripped and joined. `first_rest` replaces the first
        line (what follows a rule number or an example label; empty when nothing does)."""
        first = lines[0].strip() if first_rest is None else first_rest
        parts = ([first] if first else []) + [line.strip() for line in lines[1:]]
        return sep.join(parts)

    # -- regions -------------------------------------------------------------------------------

    def front(self) -> None:
        start, end = self.regions.front
        contents = self.regions.contents
        spans = [(start, end, False)]
        if contents:
            spans = [(start, contents[0], False), (contents[0], contents[1], True), (contents[1], end, False)]
        first = True
        for lo, hi, is_contents in spans:
            if is_contents:
                self.contents(lo, hi)
                first = False
                continue
            for group in self.groups(lo, hi, line_mode=not self.wrapped):
                text = self.joined(group.lines, sep="\n")
                if first:
                    self.emit("TITLE", group, text)
                    first = False
                elif C.date_in(text):
                    self.emit("DATE_LINE", group, text)
                elif len(group.lines) == 1 and C.is_title_like(text, 40):
                    self.emit("HEADING", group, text)
                else:
                    self.emit("PARA", group, text)

    def contents(self, start: int, end: int) -> None:
        heading = _Group(start, start, [self.lines[start]], True)
        self.emit("CONTENTS_HEAD", heading, self.lines[start].strip())
        for group in self.groups(start + 1, end, line_mode=True):
            line = group.lines[0]
            match = C.TOC_ENTRY.match(line)
            if match is None:  # regions.py stops the Contents at the first non-entry
                self.emit("PARA", group, line.strip())
                continue
            self.emit("TOC_ENTRY", group, line.strip(), number=match["number"] or "", title=match["title"].strip(),
                      label=match["page"] or "")

    def body(self) -> None:
        start, end = self.regions.body
        self.blocks.append(Block(BODY_START, "", self.lineno(start), self.lineno(start)))
        if self.wrapped:
            for group in self.groups(start, end, line_mode=False):
                self.body_block(group)
        else:
            self.body_lines(start, end)

    def body_lines(self, start: int, end: int) -> None:
        """The body of a release printed one paragraph per line (every release since 2001). A
        rule line in its usual form, four blocks in five, is typed here inline; every other
        line takes the general way (body_block), which gives the same blocks more slowly."""
        lines, numbers, append = self.lines, self.numbers, self.blocks.append
        rule_match, title_like = C.RULE.match, C.TITLE_LIKE.fullmatch
        decoration_starts = C.DECORATION_STARTS
        after_blank = True
        for i in range(start, end):
            line = lines[i]
            if not line or line.isspace():
                after_blank = True
                continue
            head = line[0] if line[0] not in " \t" else line.lstrip()[0]
            if head.isdigit() and "[CompRules" not in line:
                match = rule_match(line)
                if match is not None:
                    number, letter, dot, sep, rest = match.group("number", "letter", "dot", "sep", "rest")
                    usual = (not dot) if letter else (dot and sep)  # "100.1a Text", "100.1. Text"
                    if usual and not _leading_zero(match["rule"]):  # "100.01.": rule() says it
                        n = numbers[i] if numbers is not None else i + 1
                        rest = rest.strip()
                        if letter:
                            append(Block("SUBRULE", rest, n, n, number))
                        elif rest and len(rest) <= 60 and title_like(rest):
                            append(Block("RULE", "", n, n, number, rest))
                        else:
                            append(Block("RULE", rest, n, n, number))
                        after_blank = False
                        continue
            elif head in decoration_starts and C.is_decoration(line):
                self.leftover(i, "decoration")
                continue
            self.body_block(_Group(i, i, [line], after_blank))
            after_blank = False

    def body_block(self, group: _Group) -> None:
        line = group.lines[0]
        head = line.lstrip()[:1]
        if head.isdigit():
            match = C.RULE.match(line)
            if match:
                self.rule(group, match)
                return
            match = C.SPACED_RULE.match(line)
            if match:  # "606. 8b Players win..." (2005-2007): a subrule with a stray space
                self.diagnostics.append(
                    Diagnostic(self.lineno(group.start), "info", "spaced-number",
                               f"{match['section']}.{match['rule']}{match['letter'] or ''} printed as {match['number']!r}")
                )
                self.rule(group, match)
                return
            match = C.SECTION.match(line)
            if match and len(group.lines) == 1:
                rest = match["rest"] or ""
                if C.is_title_like(rest):
                    self.emit("SECTION", group, "", number=match["number"], title=rest)
                else:
                    self.emit("SECTION", group, rest, number=match["number"])
                return
            match = C.PART.match(line)
            if match and len(group.lines) == 1 and C.is_title_like(match["rest"]):
                self.emit("PART", group, "", number=match["number"], title=match["rest"])
                return
            number = C.numbered_otherwise(line)
            if number is not None:
                self.not_a_rule_number(group, number)
        elif head in "EeXx":
            match = C.EXAMPLE.match(line)
            if match:
                self.example(group, match)
                return
        elif head == "(" and (number := C.numbered_otherwise(line)) is not None:  # "(100.2) Text"
            self.not_a_rule_number(group, number)
        text = self.joined(group.lines)
        self.emit("STRAY" if C.is_stray(text) else "PARA", group, text)

    def rule(self, group: _Group, match) -> None:
        number = f"{match['section']}.{match['rule']}{match['letter'] or ''}"
        kind = "SUBRULE" if match["letter"] else "RULE"
        rest = match["rest"].strip()
        dot, sep = match["dot"], match["sep"]
        if not dot and not sep and _CAPITAL_LETTER.match(rest):
            # "100.2Z Text": a capital subrule letter, which the CR never prints, was taken for a
            # second rule 100.2 whose text starts "Z" (sweep 40)
            self.not_a_rule_number(group, number + rest[0])
            self.emit("PARA", group, self.joined(group.lines))
            return
        if _leading_zero(match["rule"]):  # "100.01.": no number the CR prints (sweep 40)
            self.diagnostics.append(Diagnostic(self.lineno(group.start), "warning", "number-format",
                                               f"{number} printed with a leading zero in its rule part"))
        usual = (dot and sep) if kind == "RULE" else not dot  # "100.1. Text", "100.1a Text"
        if not usual:
            self.number_format(group, kind, number, dot, sep, rest)
        if len(group.lines) == 1 and rest and kind == "RULE" and C.is_title_like(rest):
            self.emit(kind, group, "", number=number, title=rest)
        else:
            self.emit(kind, group, self.joined(group.lines, rest), number=number)

    def not_a_rule_number(self, group: _Group, number: str) -> None:
        self.diagnostics.append(Diagnostic(
            self.lineno(group.start), "warning", "not-a-rule-number",
            f"{number[:40]} starts a paragraph as a rule number does, but the CR numbers none so (a section has "
            "three digits, a rule part at most three, a subrule one letter a-z, in ASCII digits): read as text"))

    def number_format(self, group: _Group, kind: str, number: str, dot, sep, rest: str) -> None:
        line = self.lineno(group.start)
        if dot and not sep and rest:
            self.diagnostics.append(Diagnostic(line, "info", "no-space-after-number", f"no space after {number}."))
        elif kind == "RULE" and not dot and not (sep or "").strip():
            self.diagnostics.append(Diagnostic(line, "info", "number-format", f"rule {number} printed without its trailing dot"))
        elif kind == "SUBRULE" and dot:
            self.diagnostics.append(Diagnostic(line, "info", "number-format", f"subrule {number} printed with a trailing dot"))

    def example(self, group: _Group, match) -> None:
        label = match["label"].strip()
        if label.count(":") > 1:
            self.diagnostics.append(
                Diagnostic(self.lineno(group.start), "info", "doubled-example-label", f"example label printed as {label!r}")
            )
        self.emit("EXAMPLE", group, self.joined(group.lines, match["rest"].strip()), label=label)

    def glossary(self, start: int, end: int) -> None:
        self.emit("GLOSSARY_HEAD", _Group(start, start, [], True), self.lines[start].strip())
        if not self.wrapped:
            self.glossary_lines(start + 1, end)
            return
        for group in self.groups(start + 1, end, line_mode=False, split_terms=True):
            self.glossary_block(group)

    def glossary_block(self, group: _Group) -> None:
        line = group.lines[0]
        if group.after_blank and len(group.lines) == 1 and C.is_term_like(line):
            self.emit("TERM", group, line.strip())
            return
        match = C.EXAMPLE.match(line)
        if match:
            self.example(group, match)
            return
        text = self.joined(group.lines)
        self.emit("STRAY" if C.is_stray(text) else "PARA", group, text)

    def glossary_lines(self, start: int, end: int) -> None:
        """The glossary of a release printed one paragraph per line: a term after a blank line,
        then its definition lines, typed inline as glossary_block would type them; a line that
        may be an example or carries a change stamp takes the general way."""
        lines, numbers, append = self.lines, self.numbers, self.blocks.append
        decoration_starts, is_term_like, latin = C.DECORATION_STARTS, C.is_term_like, C.LATIN_LETTER.search
        after_blank = True
        for i in range(start, end):
            line = lines[i]
            if not line or line.isspace():
                after_blank = True
                continue
            head = line[0] if line[0] not in " \t" else line.lstrip()[0]
            if head in decoration_starts and C.is_decoration(line):
                self.leftover(i, "decoration")
                continue
            if head in "EeXx" or "[CompRules" in line:
                self.glossary_block(_Group(i, i, [line], after_blank))
            else:
                n = numbers[i] if numbers is not None else i + 1
                text = line.strip()
                if after_blank and is_term_like(line):
                    append(Block("TERM", text, n, n))
                else:
                    append(Block("PARA" if len(text) > 2 and latin(text) else "STRAY", text, n, n))
            after_blank = False

    def index(self, start: int, end: int) -> None:
        self.emit("INDEX_HEAD", _Group(start, start, [], True), self.lines[start].strip())
        for group in self.groups(start + 1, end, line_mode=True):
            line = group.lines[0]
            match = C.INDEX_ENTRY.match(line)
            depth = line.count("\t", 0, len(match["indent"])) or (1 if match["indent"] else 0)
            self.emit("INDEX_ENTRY", group, match["term"].strip(), title=match["locators"] or "", label=str(depth))

    def credits(self, start: int, end: int) -> None:
        self.emit("CREDITS_HEAD", _Group(start, start, [], True), self.lines[start].strip())
        for group in self.groups(start + 1, end, line_mode=not self.wrapped):
            text = self.joined(group.lines, sep="\n")
            self.emit("DATE_LINE" if C.date_in(text) else "PARA", group, text)
