"""References resolved against their document, the graph, the JSON and the CLI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from conftest import FIXTURES, ROOT

import crparse
from crparse.cli.main import main
from crparse.refs import ReferenceGraph, references
from crparse.writers.json import schema


@pytest.fixture(scope="module")
def doc():
    return crparse.parse(FIXTURES / "references.txt")


@pytest.fixture(scope="module")
def refs(doc):
    return references(doc)


def find(refs, source, text):
    (ref,) = [r for r in refs if r.source == source and r.text == text]
    return ref


def test_positions_are_spans_of_the_source_text(doc, refs):
    for r in refs:
        if r.field == "text" and not r.source.startswith(("glossary:", "front_matter:")):
            assert doc.rule(r.source).text[r.start : r.end] == r.text
    ex = find(refs, "100.6", "rules 100.1 and 100.2")
    assert (ex.field, ex.example, ex.line) == ("example", 0, 31)
    assert doc.rule("100.6").examples[0].text[ex.start : ex.end] == ex.text


def test_sections_and_titles(refs):
    part = find(refs, "100.1", "section 7, “Additional Rules.”")
    assert (part.targets, part.status, part.flags) == (("7",), "resolved", ())
    assert part.cited[0].title_matches is True
    wrong = find(refs, "100.5", "rule 704, “Turn-Based Actions.”")
    assert wrong.status == "resolved" and wrong.flags == ("title-mismatch",)


def test_ranges_expand_to_existing_members(refs):
    ref = find(refs, "100.3", "rules 704.5j–n and 704.5a")
    assert ref.targets == ("704.5j", "704.5k", "704.5m", "704.5n", "704.5a")  # no l: none exists
    assert ref.status == "resolved"
    past_the_end = find(refs, "100.5", "rules 704.5j–704.5q")
    assert past_the_end.status == "dangling"
    assert past_the_end.cited[0].nodes == ("704.5j", "704.5k", "704.5m", "704.5n", "704.5p")


def test_dangling_and_context_mismatch(refs):
    assert find(refs, "100.5", "rule 704.5z").status == "dangling"
    assert find(refs, "100.4", "rule 999").status == "dangling"
    archenemy = find(refs, "100.4", "rule 702")  # "The Archenemy casual variant (see rule 702)"
    assert archenemy.flags == ("title-mismatch",) and archenemy.cited[0].title == "Archenemy"
    assert find(refs, "100.6", "rule 702, “Keyword Abilities.”").flags == ()


def test_numbers_that_are_not_references(doc, refs):
    # 100.6: "A player with 20 life in 2026 rolls 1 die and draws 7 cards."
    assert [r.text for r in refs if r.source == "100.6" and r.field == "text"] == ["rule 702, “Keyword Abilities.”"]


def test_glossary_pointers_and_definitions(refs):
    both = find(refs, "glossary:Continuous Effect", "Control and Kicker")
    assert both.targets == ("glossary:Control, Controller", "glossary:Kicker, Kicked")  # an entry's other names
    listed = find(refs, "glossary:Multikicker", "Kicker, Continuous Effects, and Flanking")
    assert [c.status for c in listed.cited] == ["resolved", "resolved", "dangling"]  # plural of an entry
    assert listed.targets[-1] == "glossary:Flanking"
    assert find(refs, "glossary:Kicker, Kicked", "rule 702.1").status == "resolved"
    assert find(refs, "front_matter:3", "subrule 704.5k").status == "resolved"


def test_wrapped_references_and_index(fixture_path):
    doc = crparse.parse(fixture_path("wrapped1999.txt"))
    refs = references(doc)
    wrapped = find(refs, "100.1", "rule 103.4")  # "See rule" / "103.4. If that rule applies" over two lines
    assert wrapped.status == "dangling" and wrapped.line == 36
    title = [r for r in refs if r.source == "glossary:Ability"][0]
    assert title.text == 'section 4, "Spells, Abilities, and Effects."' and title.cited[0].title == "Spells, Abilities, and Effects"
    index = [r for r in refs if r.field == "locators"]
    assert [r.source for r in index] == ["index:Abilities", "index:activated ability", "index:mana ability", "index:Active player"]
    assert index[2].targets == ("214.9f", "406.1", "408.2e", "411", "413.2e")


def test_fragments_make_targets_outside_them_external():
    doc = crparse.parse(ROOT / "corpus" / "002_5de42b84d94734e9.txt")
    refs = references(doc)
    assert refs and {r.status for r in refs} == {"external"}
    seed = crparse.parse(ROOT / "corpus" / "001_52d42a4860193b9d.txt")
    broken = [r for r in references(seed) if r.broken]
    # the official text's own stale reference, kept by this reST copy
    assert [(r.source, r.text, r.cited[0].title) for r in broken] == [("805.1", "rule 811", "Archenemy")]


def test_graph_queries(doc, refs):
    g = ReferenceGraph(doc, refs)
    assert [r.text for r in g.outgoing("100.2")] == ["rule 704, “State-Based Actions,”", "rule 702, “Keyword Abilities.”"]
    assert {r.source for r in g.incoming("702")} == {"100.2", "100.4", "100.6"}
    assert {r.source for r in g.incoming("Kicker")} == {"glossary:Continuous Effect", "glossary:Multikicker", "glossary:Typecycling"}
    assert g.graph.nodes["704.5z"]["kind"] == "missing"
    assert len(g.dangling()) == 4 and len(g.mismatched()) == 2
    assert g.most_cited(1)[0][0] in {"704.5j", "704.5k", "702", "100.1"}
    assert g.cycles() == [["100.3", "704.5a"]]  # 100.3 cites 704.5a (a range member), which cites it back
    assert "704.5k" in g.reachable("100.3")
    assert g.graph.edges["704.5k", "704.5", 0]["type"] == "parent"


def test_graph_exports(doc):
    g = ReferenceGraph(doc)
    data = g.to_json()
    assert {n["id"] for n in data["nodes"]} >= {"100.1", "glossary:Typecycling"}
    assert any(e["type"] == "cites" for e in data["edges"])
    root = ET.fromstring(g.graphml())
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert len(root.findall(".//g:node", ns)) == g.graph.number_of_nodes()
    assert len(root.findall(".//g:edge", ns)) == g.graph.number_of_edges()


def test_json_references_follow_the_schema(doc):
    data = json.loads(crparse.to_json(doc))
    assert data["schema_version"] == crparse.SCHEMA_VERSION == "1.4"
    jsonschema.validate(data, schema())
    first = data["references"][0]
    assert set(first) == {"source", "field", "example", "line", "start", "end", "text", "targets", "status", "flags", "cited"}


def test_cli_refs(capsys):
    path = str(FIXTURES / "references.txt")
    assert main(["refs", path]) == 0
    assert "references:" in capsys.readouterr().out
    assert main(["refs", path, "702"]) == 0
    out = capsys.readouterr().out
    assert "cited by (3)" in out and "100.4: rule 702" in out
    assert main(["refs", path, "702", "--incoming", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["node"] == "702" and "outgoing" not in data and len(data["incoming"]) == 3
    assert main(["refs", path, "--broken"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:28: 100.5: 'rule 704.5z': dangling: 704.5z does not exist" in out
    assert "title-mismatch: 'Archenemy' but 702 is 'Keyword Abilities'" in out
    assert main(["refs", path, "no-such-rule"]) == 2
    assert main(["refs", path, "--graph", "graphml"]) == 0
    assert capsys.readouterr().out.startswith("<?xml")


@pytest.mark.parametrize("options, says", [
    (["--graph", "graphml", "--json"], "it takes no --json"), (["--graph", "json", "--broken"], "it takes no --broken"),
    (["702", "--graph", "json"], "it takes no RULE"), (["--broken", "--incoming"], "it takes no RULE nor --incoming"),
    (["--incoming"], "--incoming shows what cites a RULE: give one"),
])
def test_cli_refs_options_one_another_makes_meaningless_are_refused(capsys, options, says):
    """They were passed over without a word: `--json --graph graphml` printed GraphML (sweep 37)."""
    assert main(["refs", str(FIXTURES / "references.txt"), *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and says in captured.err and len(captured.err.splitlines()) == 1


def test_cli_cite_check(tmp_path, capsys):
    code = tmp_path / "engine"
    code.mkdir()
    (code / "sba.py").write_text("# CR 704.5k: world rule\ndef f():\n    return 1.5  # 704.5z is gone\n", encoding="utf-8")
    (code / "notes.md").write_text("Per rule 100.1 and rules 704.5j–q.\n", encoding="utf-8")
    (code / "image.bin").write_bytes(b"\x00\x01binary")
    assert main(["cite-check", str(code), "--cr", str(FIXTURES / "references.txt")]) == 1
    out, err = capsys.readouterr()
    assert f"{code / 'notes.md'}:1:20: rules 704.5j–q: no rule 704.5q in the CR of 2026-01-16" in out
    assert f"{code / 'sba.py'}:3:19: 704.5z: no rule 704.5z" in out
    assert "CR 704.5k" not in out  # it exists
    assert "4 citations in 2 files (1 binary file(s) in the directories passed over); 2 stale" in err
    clean = tmp_path / "clean.txt"
    clean.write_text("See CR 704.5k.", encoding="utf-8")
    assert main(["cite-check", str(clean), "--cr", str(FIXTURES / "references.txt"), "--json"]) == 0
    assert main(["cite-check", str(code / "image.bin"), "--cr", str(FIXTURES / "references.txt")]) == 2
    assert "image.bin:1: binary data, not text" in capsys.readouterr().err


def test_cite_check_reads_files_as_documents_are_decoded(tmp_path, doc):
    from crparse.refs.cite import check_file

    old_mac = tmp_path / "old.txt"
    old_mac.write_bytes("caf\u00e9\r// 704.5z\r# CR 704.5k\r".encode("utf-16"))  # UTF-16 with BOM, CR line ends
    found = check_file(old_mac, doc)
    assert [(c.line, c.column, c.text, c.missing) for c in found] == [(2, 4, "704.5z", ("704.5z",)), (3, 3, "CR 704.5k", ())]
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert check_file(empty, doc) == []
