"""The JSON contract (schema: crparse/writers/schema/document.schema.json).

Keys are written in a fixed order and nothing depends on dict or set iteration, so the same
input always gives byte-identical output. Bump SCHEMA_VERSION's minor part when adding fields,
its major part when changing or removing any.
"""

from __future__ import annotations

import json
from importlib import resources

from crparse.refs.model import Cited, Reference
from crparse.refs.resolve import references as find_references
from crparse.tree.model import Document, Example

SCHEMA_VERSION = "1.2"  # 1.1: source.files, links; 1.2: references


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


def document_to_dict(doc: Document, references: tuple[Reference, ...] | None = None) -> dict:
    """`references`: computed from the document when not given."""
    if references is None:
        references = find_references(doc)
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
        "diagnostics": [d.to_dict() for d in doc.diagnostics],
        "links": [
            {"line": k.line, "kind": k.kind, "text": k.text, "target": k.target, "rule": k.rule} for k in doc.links
        ],
        "references": [reference_to_dict(r) for r in references],
    }


def dumps(doc: Document, *, indent: int | None = None) -> str:
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(document_to_dict(doc), ensure_ascii=False, indent=indent, separators=separators)


def schema() -> dict:
    """The published JSON Schema of the document object."""
    text = resources.files("crparse.writers").joinpath("schema/document.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
