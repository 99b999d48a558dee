"""A readable summary of a parsed document, for people at a terminal."""

from __future__ import annotations

import re

from crparse.nodes import Document
from crparse.writers.json import path_text

MAX_LISTED = 20

# C0 and C1 controls, DEL, and the Unicode line and paragraph separators: each could break a
# line in two, move the cursor or be taken by a terminal as a command (ESC starts the sequences
# that set a window's title, clear the screen, colour what follows). And the bidi embeddings,
# overrides and isolates (U+202A-E, U+2066-9): a terminal that orders text both ways would show
# what follows one, to the end of the line, in an order other than the bytes' ("Trojan Source").
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")
# the same but for the tab and the line feed, which text of several lines keeps
_CONTROL_IN_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, lines: bool = False) -> str:
    r"""`text` (a file name, a message naming one, anything from the input a person reads at a
    terminal) as one printable line: a byte of a file name that is not UTF-8 as `\xNN`, a line
    break or another control character escaped (ESC as `\x1b`). `lines`: text of several lines
    (a rule's paragraphs), its line feeds and tabs kept. Every text output of crparse writes what
    comes from the input through it; JSON escapes control characters itself."""
    text = path_text(text)
    pattern = _CONTROL_IN_LINES if lines else _CONTROL
    return pattern.sub(_escape, text) if pattern.search(text) else text


def _escape(m: re.Match) -> str:
    ch = m.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def summary(doc: Document, *, verbose: bool = False) -> str:
    src = doc.source
    c = doc.counts()
    encoding = src.encoding + (" with BOM" if src.bom else "")
    if src.line_endings == "none":  # HTML, DOCX, PDF, RTF: lines of the extracted text
        head = f"{src.format}, {encoding}, {src.lines} lines of extracted text"
    else:
        head = f"{src.format}, {encoding}, {src.line_endings} line endings, {src.lines} lines"
    if src.files:
        head += f" in {len(src.files)} files"
    out = [f"{printable(src.path) if src.path else '<input>'}: {head}"]
    out.append(f"  title: {doc.title or '-'}")
    out.append(f"  effective date: {doc.effective_date or 'not stated'}")
    if doc.fragment is not None:
        f = doc.fragment
        sections = f"{f.sections[0]}-{f.sections[-1]}" if len(f.sections) > 1 else (f.sections[0] if f.sections else "-")
        out.append(f"  fragment: sections {sections} ({f.first} .. {f.last})")
    out.append(
        f"  {c['parts']} parts, {c['sections']} sections, {c['rules']} rules, {c['subrules']} subrules, "
        f"{c['examples']} examples"
    )
    out.append(
        f"  glossary: {c['glossary']} entries ({c['glossary_examples']} examples); index: {len(doc.index)} entries; "
        f"contents: {len(doc.contents)} entries"
    )
    by_severity = {"error": 0, "warning": 0, "info": 0}
    for d in doc.diagnostics:
        by_severity[d.severity] += 1
    out.append(
        f"  residue: {len(doc.residue)} lines; diagnostics: {by_severity['error']} errors, "
        f"{by_severity['warning']} warnings, {by_severity['info']} info"
    )
    shown = [d for d in doc.diagnostics if verbose or d.severity != "info"]
    for d in shown[:MAX_LISTED] if not verbose else shown:
        where = f"line {d.line}" if d.line is not None else "file"
        out.append(f"    {where}: {d.severity}: {d.message} [{d.code}]")
    if not verbose and len(shown) > MAX_LISTED:
        out.append(f"    ... {len(shown) - MAX_LISTED} more (--verbose lists all)")
    # a title or a diagnostic quotes the input
    return "\n".join(printable(line) for line in out)
