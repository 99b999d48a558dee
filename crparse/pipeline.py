"""The parse pipeline: bytes -> decoded text -> format reader -> blocks -> rule tree.

Each stage lives in its own package; this module only wires them together and adds what needs
the whole picture (fragment or truncation, effective date, the line accounting).
"""

from __future__ import annotations

import hashlib
import os
import re
from itertools import islice
from typing import Union

from msgspec.structs import replace

from crparse import shapes as C
from crparse.blocks.regions import Regions, find_regions, is_hard_wrapped, rule_starts
from crparse.blocks.tokenize import tokenize
from crparse.collector import collector_paused
from crparse.decode.damage import LONE_SURROGATE
from crparse.decode.invisible import without_leading_invisible
from crparse.errors import CrparseError, RefusedInput
from crparse.inputs import Unread, read_regular
from crparse.limits import describe, max_input, max_paragraphs, too_many_paragraphs
from crparse.nodes import Diagnostic, Document, Fragment, Region, Residue, Source
from crparse.readers import read
from crparse.readers.detect import no_rules
from crparse.tree.build import build
from crparse.tree.checks import check_numbering
from crparse.tree.relocate import relocate

SourceLike = Union[str, bytes, os.PathLike]

MIN_RULES = C.MIN_RULES  # numbered rules a text needs to be taken for (part of) a CR


def parse(source: SourceLike, *, path: str | None = None, format: str | None = None, max_size: int | None = None) -> Document:
    """Parse a Comprehensive Rules document.

    `source` is a path (a PathLike, or a str without a line break), raw bytes, or already
    decoded text (a str with at least one line break). `format` overrides detection ("text").
    `max_size` is the largest input read, in bytes (default: crparse.limits.max_input()).
    Raises RefusedInput (not a CR: empty, binary, another document, too large, not a regular
    file) or UnsupportedFormat.
    """
    try:
        raw, path = _load(source, path, max_size)
        with collector_paused():
            return _parse(raw, path, format)
    except CrparseError as err:
        raise err.located(path)
    except MemoryError:
        raise _out_of_memory(path, source) from None


def source_lines(source: SourceLike, *, format: str | None = None, max_size: int | None = None) -> list[str]:
    """The lines that a parse's line numbers refer to: the decoded input for text formats, the
    extracted text for HTML, DOCX, PDF and RTF (what `crparse text` prints)."""
    path = None
    try:
        raw, path = _load(source, None, max_size)
        return read(raw, path, format).source_lines
    except CrparseError as err:
        raise err.located(path)
    except MemoryError:
        raise _out_of_memory(path, source) from None


def _out_of_memory(path: str | None, source: SourceLike) -> RefusedInput:
    # the memory an input takes is bounded by the input limit; raised past what the process may
    # hold, a 1.2 GB file was an internal error, exit 3 (sweep 43)
    if path is None and isinstance(source, os.PathLike):
        path = os.fspath(source)  # the read itself ran out
    elif path is None and isinstance(source, str) and len(source) <= _LONGEST_PATH and _is_path(source):
        path = source
    return RefusedInput(f"out of memory while reading it: the input limit is {describe(max_input())} (CRPARSE_MAX_INPUT); "
                        "lower it, or read the file where more memory is free", path=path)


def _load(source: SourceLike, path: str | None, max_size: int | None = None) -> tuple[bytes, str | None]:
    """The raw bytes of `source` and the path they came from. Text given as str is read as
    UTF-8 bytes, to go through the same decoder and line splitting as a file. Only a regular
    file is read (a FIFO would block, a device never end), and nothing past the size limit."""
    # wrong types named as such: an AttributeError deep in a reader told a caller nothing (sweep 33)
    if isinstance(source, memoryview):
        source = source.tobytes()
    if not isinstance(source, (str, bytes, bytearray, os.PathLike)):
        raise TypeError(f"source must be a path, bytes or text, not {type(source).__name__}")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a path, not {type(path).__name__}")
    path = None if path is None else os.fspath(path)
    if max_size is not None and (not isinstance(max_size, int) or isinstance(max_size, bool) or max_size < 0):
        raise ValueError(f"max_size must be a number of bytes, 0 or more, not {max_size!r}")
    limit = max_size if max_size is not None else max_input()
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_path(source)):
        if isinstance(source, str) and len(source) > _LONGEST_PATH:
            # echoed as a name, a 937,663-character message (sweep 43)
            raise CrparseError(f"a str of {len(source):,} characters without a line break: too long for a file name "
                               "(the system takes 4,096), and a text has lines")
        path = str(source)
        edition = os.path.join(path, "index.rst")
        if os.path.isdir(path) and os.path.isfile(edition):
            # a reST edition's directory is the document its index makes, for every command as
            # for a walk (`text`, `diff`, `cite-check --cr` refused it as a directory: sweep 17)
            path = edition
        try:
            raw = read_regular(path, limit)
        except Unread as why:
            if why.kind is not None:
                raise RefusedInput(
                    f"not a regular file ({why.kind}): only files are read (not a directory, FIFO, device or socket)",
                    path=path,
                ) from None
            if why.too_large:
                raise _too_large(limit, path) from None
            raise CrparseError(why.reason, path=path) from None
    else:
        # a lone surrogate in text given is no character: U+FFFD, as a reader's (it was "?", which
        # the text may hold itself: sweep 37)
        raw = LONE_SURROGATE.sub("\ufffd", source).encode("utf-8") if isinstance(source, str) else source
    if len(raw) > limit:
        raise _too_large(limit, path)
    return raw, path


def _too_large(limit: int, path: str | None) -> RefusedInput:
    return RefusedInput(
        f"input larger than the {describe(limit)} limit: raise it with CRPARSE_MAX_INPUT (or max_size=) to read it",
        path=path,
    )


def _is_path(text: str) -> bool:
    # A document has lines; a name does not. (A mistyped name is then reported as missing,
    # rather than parsed as a one-line document and refused for having no rules.) Lines end also
    # in NEL, LS or PS alone, as the readers read them: such a release was a name (sweep 43).
    return _LINE_END.search(text) is None


_LINE_END = re.compile("[\n\r\x85\u2028\u2029]")
_LONGEST_PATH = 4096  # Linux's PATH_MAX


# What a reader says of rules it left unread (a budget spent, markup left open): a document
# without rules for that is refused, not taken for no CR document (crparse.errors.NotADocument).
# a reST toctree entry a limit left unread, not one that is missing, a URL, or leads out: a Sphinx
# project's index.rst beside the releases was a collection error of the pytest plugin (review)
_RULES_LEFT_UNREAD = ("rst-not-read", "rtf-unclosed-group", "rtf-binary", "markdown-html-unclosed")


def _left_rules_unread(d: Diagnostic) -> bool:
    return d.code in _RULES_LEFT_UNREAD or (d.code == "html-not-text" and d.severity == "warning")


# What no reader's text may hold: a lone surrogate (docutils' `unicode:: U+D800`, an escape in
# any markup) is no character, and the store's SQLite, like any UTF-8 output, refuses it:
# `identify` and `index` ended with a UnicodeEncodeError, exit 3 (sweep 34).
def _without_surrogates(extract) -> Diagnostic | None:
    """Replace the lone surrogates of an extract's lines by U+FFFD, in place; a warning saying
    how many, if any."""
    found = 0
    for lines in (extract.lines, extract.source_text):
        if lines is None:
            continue
        for i, line in enumerate(lines):
            if LONE_SURROGATE.search(line):
                lines[i], n = LONE_SURROGATE.subn("\ufffd", line)
                found += n if lines is extract.lines else 0
    if not found:
        return None
    return Diagnostic(None, "warning", "lone-surrogates",
                      f"{found} lone surrogate code point(s) (no character; not encodable in UTF-8) read as U+FFFD")


def _parse(raw: bytes, path: str | None, format: str | None) -> Document:
    extract = read(raw, path, format)
    surrogates = _without_surrogates(extract)
    if surrogates is not None:
        extract.diagnostics.append(surrogates)
    lines, invisible = without_leading_invisible(extract.lines)
    if invisible is not None and extract.source_text is None:  # the source lines are as they were read
        extract.source_text = extract.lines
    hard_wrapped = is_hard_wrapped(lines)
    starts = list(islice(rule_starts(lines, hard_wrapped), MIN_RULES))
    if len(starts) < MIN_RULES:
        # a refusal drops the diagnostics: a reader's warning that may explain it goes into its message
        # (docutils' "Inconsistent title style" drops every heading under it: sweep 13)
        warned = next((d.message if d.line is None else f"line {d.line}: {d.message}" for d in extract.diagnostics
                       if d.code in ("html-warning", "rst-markup", "rst-toctree") or _left_rules_unread(d)), None)
        one = extract.source_line(starts[0]) if starts else None
        raise no_rules(raw, path, extract.format, warned, one=one,
                       lost=any(_left_rules_unread(d) for d in extract.diagnostics))
    first_rule = starts[0]
    regions = find_regions(lines, first_rule, hard_wrapped)
    tokens = tokenize(lines, regions, most=(limit := max_paragraphs()))
    if len(tokens.blocks) > limit:
        raise RefusedInput(too_many_paragraphs(limit), line=tokens.blocks[limit].line)
    parts = build(tokens.blocks)

    fragment = _fragment(parts.rules, regions)
    diagnostics = tokens.diagnostics + parts.diagnostics + ([invisible] if invisible is not None else [])
    diagnostics += check_numbering(parts.rules, fragment=fragment is not None)
    diagnostics += _contents_mismatches(parts)
    residue = [Residue(x.line, x.text, x.reason) for x in tokens.leftovers] + parts.residue
    front_matter = parts.front_matter
    if fragment is not None:
        # A fragment has no front matter of its own: what precedes its first rule is the tail of
        # something cut off (seed 003 starts mid-example) or the page it was copied from.
        residue += [Residue(b.line, b.text, "text-before-first-rule", b.end_line) for b in front_matter]
        if front_matter:
            diagnostics.append(
                Diagnostic(front_matter[0].line, "info", "text-before-first-rule",
                           f"fragment: {len(front_matter)} paragraph(s) before its first rule kept as residue")
            )
        front_matter = []
    else:
        diagnostics += _truncation(lines, regions)

    source_lines = extract.source_lines
    source = Source(
        path=path,
        format=extract.format,
        encoding=extract.encoding,
        bom=extract.bom,
        line_endings=extract.line_endings,
        sha256=hashlib.sha256(raw).hexdigest(),
        size=len(raw),
        lines=len(source_lines),
        files=extract.files,
    )
    title = next((b.text for b in front_matter if b.kind == "title"), None)
    document = Document(
        source=source,
        title=title,
        effective_date=_effective_date(parts, title),
        fragment=fragment,
        regions=_regions(lines, regions),
        front_matter=tuple(front_matter),
        contents=tuple(parts.contents),
        rules=tuple(parts.rules),
        glossary=tuple(parts.glossary),
        index=tuple(parts.index),
        credits=tuple(parts.credits),
        residue=tuple(residue),
        diagnostics=(),
    )
    unaccounted = _unaccounted(document, lines)
    if unaccounted:
        residue += unaccounted
        diagnostics.append(
            Diagnostic(unaccounted[0].line, "error", "unaccounted-lines",
                       f"{len(unaccounted)} line(s) not placed in the tree; kept as residue")
        )
    document = replace(document, residue=tuple(residue), diagnostics=tuple(diagnostics))
    if extract.origin is not None:
        document = relocate(document, extract.origin)
    residue = list(document.residue) + extract.residue
    diagnostics = list(extract.diagnostics) + list(document.diagnostics)
    if extract.origin is not None:
        residue += _set_aside(replace(document, residue=tuple(residue)), source_lines)
    diagnostics.sort(key=lambda d: (d.line or 0, d.code))
    residue.sort(key=lambda r: r.line)
    return replace(document, residue=tuple(residue), diagnostics=tuple(diagnostics), links=tuple(extract.links))


def _fragment(rules, regions: Regions) -> Fragment | None:
    if regions.contents is not None or regions.glossary is not None or regions.credits is not None:
        return None
    sections = tuple(dict.fromkeys(r.number.split(".")[0] for r in rules if r.kind != "part"))
    numbered = [r.number for r in rules]
    return Fragment(first=numbered[0], last=numbered[-1], sections=sections)


def _truncation(lines: list[str], regions: Regions) -> list[Diagnostic]:
    if regions.credits is not None:
        return []
    last = len(lines)
    while last > 0 and C.is_blank(lines[last - 1]):
        last -= 1
    tail = lines[last - 1].strip() if last else ""
    where = "in the glossary, before its credits" if regions.glossary else "in the rules, before its glossary and credits"
    return [Diagnostic(last or None, "warning", "truncated", f"the document ends {where}: last line {tail[:60]!r}")]


def _contents_mismatches(parts) -> list[Diagnostic]:
    listed = {e.number: e for e in parts.contents if e.number}
    found = []
    for rule in parts.rules:
        if rule.kind in ("part", "section") and rule.number in listed:
            entry = listed[rule.number]
            if entry.title.rstrip() != rule.title and rule.title:
                found.append(
                    Diagnostic(rule.line, "info", "contents-mismatch",
                               f"{rule.number} is titled {rule.title!r} but the Contents (line {entry.line}) says {entry.title!r}")
                )
    return found


def _effective_date(parts, title: str | None) -> str | None:
    for block in list(parts.front_matter) + list(parts.credits):
        if block.kind == "effective-date":
            date = C.date_in(block.text)
            if date:
                return date
    return C.banner_date(title) if title else None


def _regions(lines: list[str], regions: Regions) -> tuple[Region, ...]:
    out = []
    named = [
        ("front", regions.front, False),
        ("contents", regions.contents, True),
        ("body", regions.body, False),
        ("glossary", regions.glossary, True),
        ("index", regions.index, True),
        ("credits", regions.credits, True),
    ]
    for name, span, has_heading in named:
        if span is None or span[1] <= span[0]:
            continue
        heading = lines[span[0]].strip() if has_heading else None
        out.append(Region(name, span[0] + 1, span[1], heading))
    return tuple(out)


def _uncovered(document: Document, lines: list[str]) -> list[tuple[int, str]]:
    covered = bytearray(len(lines) + 2)
    covered[0] = covered[-1] = 1
    end = len(lines) + 1
    for first, last, _ in document.accounted_lines():
        # a span a reader placed past the text (a reader's bug) must not crash the parse: a slice
        # assignment past the end would even grow the table
        first, last = min(max(first, 0), end), min(max(last, 0), end)
        if first == last:
            covered[first] = 1
        else:
            covered[first : last + 1] = b"\x01" * (last - first + 1)
    out = []
    n = covered.find(0)
    while n >= 0:  # the lines not covered: blank ones, and any a bug left out
        line = lines[n - 1]
        if line and not line.isspace():
            out.append((n, line))
        n = covered.find(0, n + 1)
    return out


def _unaccounted(document: Document, lines: list[str]) -> list[Residue]:
    """The losslessness guarantee, checked on every parse: a non-blank line that no node and
    no residue entry holds is returned, to be kept as residue and reported as an error (it
    would be a parser bug)."""
    return [Residue(n, line, "unaccounted") for n, line in _uncovered(document, lines)]


def _set_aside(document: Document, source_lines: list[str]) -> list[Residue]:
    """Source lines that no line of the reader's output came from: markup that carries no text
    of its own (reST underlines and directives, Markdown rules). Kept as residue, so that every
    source line is still somewhere."""
    return [Residue(n, line, "markup") for n, line in _uncovered(document, source_lines)]
