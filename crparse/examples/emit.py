"""`crparse examples PATH --emit-pytest DIR`: a document's examples written out as a plain pytest
file, one test function per example, each running the example's text through crparse.examples.check
(the same grammar and model as the plugin): for people who want files they can read and keep."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from crparse.examples.bounds import MAX_DOCUMENT_ITEMS
from crparse.examples.collect import Result
from crparse.nodes import Document
from crparse.outputs import make_directories, replace

# Nothing from the document goes into the file but as a Python literal (repr): a file name or an
# example holding `"""` would otherwise end a docstring and write code that pytest runs.
_HEADER = '''"""Worked examples of the document SOURCE names, run under the rules of DATE.

Written by `crparse examples --emit-pytest`; each test reads the example's text with crparse's
examples grammar and runs it against the reference rules model (crparse.model).
"""

import pytest

from crparse.examples import DocumentRun, check

SOURCE = {source!r}
DATE = {date!r}
# the document's examples share one budget, as in `crparse examples`: past it, the rest are
# skipped as unsupported, saying so
DOCUMENT = DocumentRun(DATE)


def _run(text, previous=None):
    result = check(text, DATE, previous, run=DOCUMENT)
    if result.status == "unsupported":
        pytest.skip(result.reason)
    assert result.status == "passed", result.reason
'''


def write_tests(directory: Path, doc: Document, results: list[Result], date: str) -> tuple[Path, int]:
    """The test file written, and how many examples were left out of it: at most
    MAX_DOCUMENT_ITEMS are written, as the plugin collects (20,000 tests of one-line examples ran
    for over 120 s: sweep 27)."""
    make_directories(directory)
    # ASCII only: a module or function name must be an identifier ("²" is a \w, not one)
    given = Path(doc.source.path or "document").stem
    stem = re.sub(r"[^0-9A-Za-z]+", "_", given).strip("_") or "document"
    if not given.isascii() or len(stem) > 100:
        # a name's letters past ASCII are lost in the module's name, and a long name is cut (one of
        # 251 characters made a file name past the system's 255: sweep 28): each such name gets a
        # file of its own ("é ü.txt" and "ö.txt" wrote one, and "règles" and "régles": sweep 27)
        stem = stem[:80] + "_" + hashlib.sha256(given.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    target = directory / f"test_examples_{stem}.py"
    parts = [_HEADER.format(source=doc.source.path, date=date)]
    seen: set[str] = set()
    again: dict[str, int] = {}  # a name met before -> how many times: its next copy's number
    for r in results[:MAX_DOCUMENT_ITEMS]:
        name = "test_" + re.sub(r"[^0-9A-Za-z]", "_", r.case.rule.rstrip(".")) + f"_{r.case.index}"
        # a name made unique by a number (one "_" more for each copy made 8,000 copies of a rule's
        # number cubic: 28 s and a 32 MB file for 280 KB: sweep 26)
        first = name
        while name in seen:
            again[first] = again.get(first, 1) + 1
            name = f"{first}_copy{again[first]}"
        seen.add(name)
        previous = f", {r.case.previous!r}" if r.case.previous else ""
        parts.append(f"\n\ndef {name}():\n    {f'{r.case.rule} (line {r.case.line})'!r}\n    _run({r.case.text!r}{previous})\n")
    replace(target, "".join(parts))
    return target, max(len(results) - MAX_DOCUMENT_ITEMS, 0)

