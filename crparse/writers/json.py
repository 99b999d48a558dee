"""The JSON contract (schema: crparse/writers/schema/document.schema.json).

Keys are written in a fixed order and nothing depends on dict or set iteration, so the same
input always gives byte-identical output. Bump SCHEMA_VERSION's minor part when adding fields,
its major part when changing or removing any.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import msgspec

from crparse.decode.damage import LONE_SURROGATE
from crparse.nodes import Cited, Diagnostic, Document, Example, Reference

SCHEMA_VERSION = "1.4"  # 1.1: source.files, links; 1.2: references; 1.3: the diff output (diff.schema.json); 1.4: diff complete


def _example(ex: Example) -> dict:
    return {"text": ex.text, "line": ex.line, "end_line": ex.end_line, "label": ex.label, "changed": ex.changed}


def _cited(c: Cited) -> dict:
    return {
        "text": c.text,
        "kind": c.kind,
        "first": c.first,
        "last": c.last,
        "nodes": list(c.nodes),
        "status": c.status,
        "title": c.title,
        "title_matches": c.title_matches,
    }


def reference_to_dict(r: Reference) -> dict:
    return {
        "source": r.source,
        "field": r.field,
        "example": r.example,
        "line": r.line,
        "start": r.start,
        "end": r.end,
        "text": r.text,
        "targets": list(r.targets),
        "status": r.status,
        "flags": list(r.flags),
        "cited": [_cited(c) for c in r.cited],
    }


def _diagnostic(d: Diagnostic) -> dict:
    return {"line": d.line, "severity": d.severity, "code": d.code, "message": d.message}


def document_to_dict(doc: Document, references: Sequence[Reference]) -> dict:
    """The document as the JSON contract's object; `references` are the document's own
    (`crparse.references(doc)`): a writer writes what it is given and computes nothing."""
    src = doc.source
    return {
        "schema_version": SCHEMA_VERSION,
        "source": {
            "path": src.path,
            "format": src.format,
            "encoding": src.encoding,
            "bom": src.bom,
            "line_endings": src.line_endings,
            "sha256": src.sha256,
            "size": src.size,
            "lines": src.lines,
            "files": [{"path": f.path, "first_line": f.first_line, "lines": f.lines} for f in src.files],
        },
        "title": doc.title,
        "effective_date": doc.effective_date,
        "fragment": None
        if doc.fragment is None
        else {"first": doc.fragment.first, "last": doc.fragment.last, "sections": list(doc.fragment.sections)},
        "counts": doc.counts(),
        "regions": [
            {"name": r.name, "line": r.line, "end_line": r.end_line, "heading": r.heading} for r in doc.regions
        ],
        "front_matter": [
            {"kind": b.kind, "text": b.text, "line": b.line, "end_line": b.end_line} for b in doc.front_matter
        ],
        "contents": [{"number": c.number, "title": c.title, "line": c.line, "page": c.page} for c in doc.contents],
        "rules": [
            {
                "number": r.number,
                "kind": r.kind,
                "parent": r.parent,
                "title": r.title,
                "text": r.text,
                "examples": [_example(ex) for ex in r.examples],
                "line": r.line,
                "end_line": r.end_line,
                "changed": r.changed,
            }
            for r in doc.rules
        ],
        "glossary": [
            {
                "term": g.term,
                "text": g.text,
                "senses": list(g.senses),
                "examples": [_example(ex) for ex in g.examples],
                "line": g.line,
                "end_line": g.end_line,
            }
            for g in doc.glossary
        ],
        "index": [{"term": i.term, "locators": i.locators, "depth": i.depth, "line": i.line} for i in doc.index],
        "credits": [{"kind": b.kind, "text": b.text, "line": b.line, "end_line": b.end_line} for b in doc.credits],
        "residue": [
            {"line": r.line, "end_line": r.end_line or r.line, "text": r.text, "reason": r.reason} for r in doc.residue
        ],
        "diagnostics": [_diagnostic(d) for d in doc.diagnostics],
        "links": [
            {"line": k.line, "kind": k.kind, "text": k.text, "target": k.target, "rule": k.rule} for k in doc.links
        ],
        "references": [reference_to_dict(r) for r in references],
    }


_ENCODER = msgspec.json.Encoder()


def encode(doc: Document, references: Sequence[Reference], *, indent: int | None = None) -> bytes:
    """The JSON as UTF-8 bytes, always valid: what `dumps` returns, without decoding a large
    document only for the caller to encode it again."""
    out = _encoded(document_to_dict(doc, references))  # the dict is gone before the indenting
    if indent is not None:
        out = msgspec.json.format(out, indent=indent)
    return out


def _encoded(data: dict) -> bytes:
    try:
        return _ENCODER.encode(data)
    except UnicodeEncodeError:  # msgspec refuses lone surrogates, which UTF-8 cannot hold
        return _ENCODER.encode(_without_surrogates(data))


def dumps(doc: Document, references: Sequence[Reference], *, indent: int | None = None) -> str:
    """The JSON text: compact, or indented by `indent` spaces. msgspec writes the same bytes as
    `json.dumps(..., ensure_ascii=False)` with the matching separators, several times faster."""
    return encode(doc, references, indent=indent).decode("utf-8")


# -- text that UTF-8 cannot hold -----------------------------------------------------------------
#
# A str may hold lone surrogates: a reader's escape of one (RTF `\u-10240?`), or a file name
# whose bytes are not UTF-8 (Python keeps each such byte as U+DC80..U+DCFF). Output must stay
# valid UTF-8, so text is written with U+FFFD in their place, and file names with each byte that
# is not UTF-8 as `\xNN`, the name still telling which file it was.


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


def path_text(path: str) -> str:
    r"""A file name as text: each of its bytes that are not UTF-8 (which Python keeps as a
    lone surrogate, U+DC80..U+DCFF) written as `\xNN`, so two such names stay apart."""
    if not LONE_SURROGATE.search(path):
        return path
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a surrogate that stands for no byte: not a name from the disk
        return valid_text(path)
    return raw.decode("utf-8", "backslashreplace")


def valid_json(data) -> bytes:
    """The JSON of any data (a diff, a site's cache), valid UTF-8 whatever its strings hold:
    each as `path_text` writes a file name (a byte of a name as `\\xNN`, another lone surrogate
    as U+FFFD). msgspec refused them: a release named `r\\xff.txt` made `diff --json` exit 3
    (sweep 14)."""
    try:
        return _ENCODER.encode(data)
    except UnicodeEncodeError:
        return _ENCODER.encode(valid_strings(data))


def valid_strings(value):
    """`value` (strs, dicts, lists) with every str as `path_text` writes it."""
    if isinstance(value, str):
        return path_text(value)
    if isinstance(value, dict):
        return {valid_strings(k): valid_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [valid_strings(v) for v in value]
    return value


def _without_surrogates(data: dict) -> dict:
    """The document object with file names as `path_text` writes them, every other lone
    surrogate replaced by U+FFFD, and a diagnostic saying how many were."""
    source = data["source"]
    source["path"] = None if source["path"] is None else path_text(source["path"])
    for f in source["files"]:
        f["path"] = path_text(f["path"])
    replaced = [0]

    def fix(value):
        if value.__class__ is str:
            found = len(LONE_SURROGATE.findall(value))
            if found:
                replaced[0] += found
                return LONE_SURROGATE.sub("\ufffd", value)
            return value
        if value.__class__ is dict:
            return {k: fix(v) for k, v in value.items()}
        if value.__class__ is list:
            return [fix(v) for v in value]
        return value

    data = fix(data)
    if replaced[0]:
        data["diagnostics"].append(
            {
                "line": None,
                "severity": "warning",
                "code": "lone-surrogates",
                "message": f"{replaced[0]} lone surrogate code points (not encodable in UTF-8) written as U+FFFD",
            }
        )
        data["counts"]["diagnostics"] += 1
    return data


def schema(which: str = "document") -> dict:
    """A published JSON Schema: of the document object ("document") or of the diff ("diff")."""
    from importlib import resources  # only here: its imports cost 5 ms, and only `crparse schema` reads these

    text = resources.files("crparse.writers").joinpath(f"schema/{which}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
