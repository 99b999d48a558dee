"""The JSON contract: schema-valid, deterministic, documented fields present."""

from __future__ import annotations

import json

import jsonschema
import pytest

import crparse
from crparse.writers.json import SCHEMA_VERSION, schema


@pytest.fixture(scope="module")
def validator():
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


@pytest.mark.parametrize("name", ["modern.txt", "wrapped1999.txt"])
def test_fixture_output_is_schema_valid(validator, fixture_path, name):
    doc = json.loads(crparse.to_json(crparse.parse(fixture_path(name))))
    validator.validate(doc)
    assert doc["schema_version"] == SCHEMA_VERSION


def test_bundled_seeds_are_schema_valid(validator):
    from conftest import ROOT

    for path in sorted((ROOT / "corpus").iterdir()):
        validator.validate(json.loads(crparse.to_json(crparse.parse(path))))


def test_contract_fields(fixture_path):
    doc = json.loads(crparse.to_json(crparse.parse(fixture_path("modern.txt"))))
    assert set(doc["source"]) >= {"path", "format", "encoding", "sha256"}
    rule = next(r for r in doc["rules"] if r["number"] == "100.1b")
    assert set(rule) >= {"number", "kind", "parent", "title", "text", "examples", "line", "changed"}
    assert rule["examples"][0] == {"text": "Four players sit around a table.", "line": 31, "end_line": 31,
                                   "label": "Example:", "changed": None}
    assert set(doc["glossary"][0]) >= {"term", "text", "line"}
    assert set(doc["residue"][0]) >= {"line", "text", "reason"}
    assert set(doc["diagnostics"][0]) == {"line", "severity", "code", "message"}
    assert doc["effective_date"] == "2026-01-16"


def test_output_is_byte_identical_across_runs(fixture_path):
    path = fixture_path("wrapped1999.txt")
    assert crparse.to_json(crparse.parse(path)) == crparse.to_json(crparse.parse(path))
    assert crparse.to_json(crparse.parse(path.read_bytes())) == crparse.to_json(crparse.parse(path.read_bytes()))


def test_schema_rejects_a_broken_document(validator, fixture_path):
    doc = json.loads(crparse.to_json(crparse.parse(fixture_path("modern.txt"))))
    doc["rules"][0]["kind"] = "chapter"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)
