"""The ground the later stages stand on: one root vocabulary, imports that flow one way, lookups
that cannot go stale, a thin CLI with one table of exit codes, and a light `import crparse`."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import networkx as nx
import pytest
from conftest import FIXTURES, ROOT

import crparse
from crparse.cli import exits
from crparse.cli.main import main
from crparse.inputs import inputs
from crparse.lookup import Lookup

PACKAGE = ROOT / "crparse"

# The stages in the order data flows through them; a stage may import the root modules and any
# stage before it, never one after it.
STAGES = ["decode", "readers", "blocks", "tree", "pipeline", "parallel", "refs", "writers", "align", "diff", "lineage", "store",
          "model", "examples", "sphinx", "site", "cli"]
ROOT_MODULES = {"nodes", "shapes", "numbers", "errors", "collector", "lookup", "inputs", "limits"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """crparse modules a file imports, at its top level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("crparse"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("crparse"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _module_graph() -> nx.DiGraph:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    g = nx.DiGraph()
    for name, path in modules.items():
        g.add_node(name)
        for target in _imports(path):
            if target in modules and target != name:
                g.add_edge(name, target)
    return g


def test_root_vocabulary_has_no_crparse_imports_but_the_root():
    for module in sorted(ROOT_MODULES):
        for target in _imports(PACKAGE / f"{module}.py"):
            assert _stage(target) in ROOT_MODULES, f"crparse.{module} imports {target}"


def test_no_import_runs_back_up_the_stages():
    g = _module_graph()
    for source, target in g.edges:
        a, b = _stage(source), _stage(target)
        if a in STAGES and b in STAGES:
            assert STAGES.index(b) <= STAGES.index(a), f"{source} (stage {a}) imports {target} (later stage {b})"
        if a in ROOT_MODULES:
            assert b in ROOT_MODULES, f"root module {source} imports {target}"


def test_no_import_cycle_between_packages():
    g = _module_graph()
    packages = nx.DiGraph()
    for source, target in g.edges:
        a, b = _stage(source) or "crparse", _stage(target) or "crparse"
        if a != b and a != "crparse" and b != "crparse":
            packages.add_edge(a, b)
    assert list(nx.simple_cycles(packages)) == []


def test_nodes_hold_no_cache_and_no_serialisation():
    import crparse.nodes as nodes

    for name in dir(nodes):
        cls = getattr(nodes, name)
        if isinstance(cls, type) and issubclass(cls, msgspec.Struct) and cls is not msgspec.Struct:
            assert cls.__struct_config__.frozen, name
            assert not any(f.startswith("_") for f in cls.__struct_fields__), name
            for method in ("to_dict", "to_json"):
                assert not hasattr(cls, method), f"{name}.{method}"


def test_replaced_rules_are_looked_up_afresh():
    doc = crparse.parse(FIXTURES / "modern.txt")
    number = doc.rules[5].number
    assert doc.rule(number) is doc.rules[5]
    new = msgspec.structs.replace(doc.rules[5], text="Replaced text.")
    doc2 = msgspec.structs.replace(doc, rules=doc.rules[:5] + (new,) + doc.rules[6:])
    assert doc2.rule(number).text == "Replaced text."
    assert Lookup(doc2).rule(number).text == "Replaced text."
    assert doc.rule(number).text != "Replaced text."  # the original is untouched
    gone = msgspec.structs.replace(doc, rules=doc.rules[:5] + doc.rules[6:])
    assert number not in gone and number in doc
    with pytest.raises(KeyError):
        Lookup(gone).rule(number)


def test_nodes_are_immutable():
    doc = crparse.parse(FIXTURES / "modern.txt")
    with pytest.raises(AttributeError):
        doc.rules[0].text = "x"  # type: ignore[misc]


def test_lookup_by_number_term_and_line():
    doc = crparse.parse(FIXTURES / "modern.txt")
    look = Lookup(doc)
    rule = doc.rules[7]
    assert look.rule(rule.number + ".") is rule
    assert look.at_line(rule.line) == rule.number
    for ex_rule, ex in doc.examples:
        assert look.at_line(ex.line) == ex_rule.number
        break
    entry = doc.glossary[0]
    assert look.entry(entry.term) is entry
    assert look.at_line(entry.line) == f"glossary:{entry.term}"
    assert look.at_line(10**7) is None


def test_import_crparse_is_light():
    code = (
        "import sys, crparse; heavy = ['lark', 'networkx', 'docutils', 'bs4', 'docx', 'pypdfium2', "
        "'markdown_it', 'striprtf']; print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_inputs_walks_directories_and_editions(tmp_path):
    (tmp_path / "b.txt").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    ed = tmp_path / "edition"
    ed.mkdir()
    (ed / "index.rst").write_text(".. toctree::\n\n   one\n   two.rst\n")
    (ed / "one.rst").write_text("x")
    (ed / "two.rst").write_text("x")
    (ed / "notes.rst").write_text("x")
    listed = [Path(i.path).relative_to(tmp_path).as_posix() for i in inputs([tmp_path])]
    # an edition's .rst files are read through its index, the ones it names and no others (a
    # file its toctree names in a form the index refuses must not be read on its own)
    assert listed == ["a.txt", "b.txt", "edition/index.rst"]
    every = [Path(i.path).name for i in inputs([ed], editions=False)]
    assert every == ["index.rst", "notes.rst", "one.rst", "two.rst"]
    assert [i.named for i in inputs([tmp_path / "a.txt", tmp_path / "missing"])] == [True, True]


def test_a_walk_does_not_follow_a_link_out_of_its_directory(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    top = tmp_path / "top"
    top.mkdir()
    (top / "inside.txt").write_text("x")
    (top / "in-link.txt").symlink_to(top / "inside.txt")
    (top / "out-link.txt").symlink_to(outside)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "rules.txt").write_text("x")
    (top / "out-dir").symlink_to(tmp_path / "elsewhere")  # passed over without a word (sweep 14)
    (top / "sub").mkdir()
    (top / "in-dir").symlink_to(top / "sub")  # what it leads to is walked: nothing to say
    listed = {Path(i.path).name: i.skipped for i in inputs([top])}
    assert listed["inside.txt"] is None  # read under its own name: the link to it is not read again
    assert listed["in-link.txt"] == f"the same file as {top / 'inside.txt'}, read once"
    assert listed["out-link.txt"] == f"a symbolic link leading outside {top}"
    assert listed["out-dir"] == f"a symbolic link leading outside {top}" and "in-dir" not in listed
    assert "rules.txt" not in listed


def test_a_walk_lists_each_file_once_however_many_names_it_has(tmp_path):
    """3,000 links to one 234 KB release were 3,000 parses: `lineage` 31 s and 2.5 GB (sweep 23).
    A file is read under its own name, wherever its links are met; one with links only, under
    the first; hard links and a file named and also in the directory given count as one."""
    top = tmp_path / "top"
    (top / "z").mkdir(parents=True)
    (top / "z" / "rules.txt").write_text("x")
    for n in range(5):  # in name order, before the file they lead to
        (top / f"a{n}.txt").symlink_to(top / "z" / "rules.txt")
    (top / ".hidden").mkdir()
    (top / ".hidden" / "only.txt").write_text("y")
    (top / "b1.txt").symlink_to(top / ".hidden" / "only.txt")  # its only name the walk meets
    (top / "b2.txt").symlink_to(top / "b1.txt")
    (top / "c.txt").write_text("z")
    os.link(top / "c.txt", top / "d.txt")
    read = [Path(i.path).relative_to(top).as_posix() for i in inputs([top]) if i.skipped is None]
    assert read == ["b1.txt", "c.txt", "z/rules.txt"]
    reasons = {Path(i.path).name: i.skipped for i in inputs([top]) if i.skipped}
    assert reasons["a0.txt"] == f"the same file as {top / 'z' / 'rules.txt'}, read once"
    assert reasons["b2.txt"] == f"the same file as {top / 'b1.txt'}, read once"
    assert reasons["d.txt"] == f"the same file as {top / 'c.txt'}, read once"
    assert not any(i.refused for i in inputs([top]))  # passed over, as a FIFO met in a walk: exit 0
    named = [(Path(i.path).name, i.skipped is None) for i in inputs([top / "d.txt", top, top / "c.txt"])]
    assert ("d.txt", True) in named and ("c.txt", False) in named  # named first: the walk's is the copy
    assert named[-1] == ("c.txt", True)  # named: read as asked
    everything = [Path(i.path).name for i in inputs([top], once=False) if i.skipped is None]
    assert len(everything) == 10


def test_a_link_to_a_hidden_directory_is_said_not_walked(tmp_path):
    """A link to a directory inside is walked where it lies: in a hidden directory, which the walk
    passes over, so the release behind it went without a word (sweep 24)."""
    top = tmp_path / "top"
    (top / ".hidden" / "deeper").mkdir(parents=True)
    (top / ".hidden" / "deeper" / "release.txt").write_text("x")
    (top / "visible").symlink_to(top / ".hidden")
    (top / "also").symlink_to(top / ".hidden" / "deeper")
    (top / "sub").mkdir()
    (top / "sub-link").symlink_to(top / "sub")  # walked where it lies: nothing to say
    listed = {Path(i.path).name: i.skipped for i in inputs([top])}
    assert listed == {"also": "a symbolic link to a hidden directory, which a walk passes over",
                      "visible": "a symbolic link to a hidden directory, which a walk passes over"}
    assert not any(i.refused for i in inputs([top]))


@pytest.mark.parametrize("link", ["hard", "symbolic", "copy-met-first"])
def test_two_editions_whose_index_is_one_file_are_two_documents(tmp_path, link):
    """A reST edition is its index and its directory: B/index.rst, a link to A/index.rst (or a file
    met first that is A/index.rst under another name), made B "the same file as A/index.rst", and
    B's chapters were read nowhere (sweep 25)."""
    top = tmp_path / "top"
    for name in ("A", "B"):
        (top / name).mkdir(parents=True)
        (top / name / "chap.rst").write_text("x")
    (top / "A" / "index.rst").write_text(".. toctree::\n\n   chap\n")
    if link == "hard":
        os.link(top / "A" / "index.rst", top / "B" / "index.rst")
    elif link == "symbolic":
        (top / "B" / "index.rst").symlink_to("../A/index.rst")
    else:
        (top / "B" / "index.rst").write_text(".. toctree::\n\n   chap\n")
        os.link(top / "A" / "index.rst", top / "0-copy.rst")
    read = [Path(i.path).relative_to(top).as_posix() for i in inputs([top]) if i.skipped is None]
    assert read == (["0-copy.rst"] if link == "copy-met-first" else []) + ["A/index.rst", "B/index.rst"]
    # named, and in the directory given: one document
    again = [(Path(i.path).relative_to(top).as_posix(), i.skipped) for i in inputs([top / "A" / "index.rst", top])]
    assert again[0] == ("A/index.rst", None) and ("A/index.rst", f"the same file as {top / 'A' / 'index.rst'}, read once") in again


@pytest.mark.parametrize("spelling", ["{d}/a.txt", "./{d}/a.txt"])
def test_a_file_named_and_in_a_directory_given_is_read_once_however_spelled(tmp_path, monkeypatch, spelling):
    """"d/a.txt" named and the walk of "d" read the file twice, "./d/a.txt" once (review)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("x")
    listed = [(i.path, i.skipped) for i in inputs([spelling.format(d="d"), "d"])]
    assert listed == [(spelling.format(d="d"), None), ("d/a.txt", f"the same file as {spelling.format(d='d')}, read once")]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_link_to_a_pipe_leads_outside(tmp_path):
    """A link to /proc/self/fd/N of a pipe resolves to "pipe:[N]", no path: os.path.commonpath
    refused it, and the link was refused as unreadable, exit 2 (sweep 25). It leads outside."""
    readable, writable = os.pipe()
    try:
        top = tmp_path / "top"
        top.mkdir()
        (top / "out").symlink_to(f"/proc/self/fd/{writable}")
        (top / "index.rst").write_text("Rules\n=====\n\n.. toctree::\n\n   out\n")
        (top / "out.rst").symlink_to(f"/proc/self/fd/{readable}")
        listed = {Path(i.path).name: (i.skipped, i.refused) for i in inputs([top], editions=False)}
        assert listed["out"] == listed["out.rst"] == (f"a symbolic link leading outside {top}", False)
        from crparse.errors import CrparseError

        with pytest.raises(CrparseError, match="toctree entry 'out' not read: a symbolic link leads outside"):
            crparse.parse(top / "index.rst")  # no rules left: the refusal quotes the first warning
    finally:
        os.close(readable)
        os.close(writable)


def test_lineage_reads_a_release_behind_many_links_once(tmp_path, capsys):
    top = tmp_path / "top"
    top.mkdir()
    release = top / "release.txt"
    release.write_text("Magic: The Gathering Comprehensive Rules\nThese rules are effective as of June 1, 2020.\n\n"
                       "100. General\n\n100.1. A rule.\n\n100.2. Another rule.\n")
    for n in range(50):
        (top / f"link{n:02}.txt").symlink_to(release)
    assert main(["lineage", "--json", str(top)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in data["releases"]] == [str(release)]


def test_a_file_a_walk_listed_is_not_read_through_a_link_swapped_in_since(tmp_path):
    """A walk lists the files, then they are read: one replaced by a link leading out in
    between was read and its text printed (sweep 17)."""
    top = tmp_path / "top"
    top.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("100.1. A secret rule.\n\n100.2. Another.\n")
    (top / "a.txt").write_text("100.1. A rule.\n\n100.2. Another.\n")
    (top / "inside.txt").symlink_to(top / "a.txt")  # a link when listed: followed, as it leads inside
    listed = [Path(i.path) for i in inputs([top])]
    (top / "a.txt").rename(top / "b.txt")
    (top / "a.txt").symlink_to(secret)
    from crparse.errors import CrparseError

    with pytest.raises(CrparseError, match="a symbolic link now on its way, where a file or directory was found"):
        crparse.parse(listed[0])
    assert "100.1" in crparse.parse(top / "b.txt")
    assert crparse.parse(tmp_path / "top" / ".." / "top" / "a.txt").rule("100.1").text == "A secret rule."  # named


def test_a_link_a_walk_listed_is_read_at_the_file_it_led_to(tmp_path):
    """A link leading inside, listed, then re-pointed at a file outside, was followed at read
    time and the outside file printed (sweep 25): it is read where it led when listed, and if
    that file is then swapped for a link leading out, not at all."""
    from crparse.errors import CrparseError

    top = tmp_path / "top"
    (top / ".h").mkdir(parents=True)
    (top / ".h" / "real.txt").write_text("100.1. An inside rule.\n\n100.2. Another.\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("100.1. A secret rule.\n\n100.2. Another.\n")
    (top / "zz.txt").symlink_to(".h/real.txt")  # its only name the walk meets
    listed = [Path(i.path) for i in inputs([top]) if i.skipped is None]
    assert listed == [top / "zz.txt"]
    (top / "zz.txt").unlink()
    (top / "zz.txt").symlink_to(secret)
    assert crparse.parse(listed[0]).rule("100.1").text == "An inside rule."
    (top / ".h" / "real.txt").rename(top / ".h" / "moved.txt")
    (top / ".h" / "real.txt").symlink_to(secret)
    with pytest.raises(CrparseError, match="a symbolic link now on its way"):
        crparse.parse(listed[0])


def test_a_file_a_walk_listed_is_not_read_through_a_directory_swapped_for_a_link(tmp_path):
    """O_NOFOLLOW guards a path's last component only: a directory on the way swapped for a link
    leading out after the listing was followed, and the outside file read (sweep 18)."""
    from crparse.errors import CrparseError

    top = tmp_path / "top"
    (top / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (top / "sub" / "a.txt").write_text("100.1. A rule.\n\n100.2. Another.\n")
    (tmp_path / "outside" / "a.txt").write_text("100.1. A secret rule.\n\n100.2. Another.\n")
    listed = [Path(i.path) for i in inputs([top])]
    (top / "sub").rename(top / "moved")
    (top / "sub").symlink_to(tmp_path / "outside")
    with pytest.raises(CrparseError, match="a symbolic link now on its way"):
        crparse.parse(listed[0])


def test_a_deep_directory_is_walked_without_recursion(tmp_path):
    """os.walk recurses: 1,000 levels ended every command with a RecursionError, exit 3, and
    the files beside them unread (sweep 17)."""
    top = tmp_path / "top"
    deep = top
    top.mkdir()
    for _ in range(1200):  # (os.makedirs recurses too)
        deep = deep / "d"
        deep.mkdir()
    try:
        (deep / "x.txt").write_text("x")
        (top / "a.txt").write_text("x")
        listed = [Path(i.path) for i in inputs([top])]
        assert listed == [top / "a.txt", deep / "x.txt"]
    finally:  # shutil.rmtree recurses too: pytest's clean-up of old temporary directories failed on it
        (deep / "x.txt").unlink(missing_ok=True)
        while deep != top:
            deep.rmdir()
            deep = deep.parent


def test_an_index_rst_that_is_not_read_makes_no_edition(tmp_path):
    """An index.rst that was a FIFO or a link leading out hid its chapters without a word; an
    unrelated index.rst above a complete edition hid the edition, and an edition in an edition
    was dropped (sweep 17). A directory with an index.rst to read is an edition of its own."""
    (tmp_path / "elsewhere.rst").write_text("x")
    top = tmp_path / "top"
    fifo = top / "fifo"
    fifo.mkdir(parents=True)
    os.mkfifo(fifo / "index.rst")
    (fifo / "one.rst").write_text("x")
    out = top / "out"
    out.mkdir()
    (out / "index.rst").symlink_to(tmp_path / "elsewhere.rst")
    (out / "one.rst").write_text("x")
    notes = top / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "index.rst").write_text("x")
    (notes / "page.rst").write_text("x")
    (notes / "sub" / "index.rst").write_text("x")
    (notes / "sub" / "one.rst").write_text("x")
    listed = {Path(i.path).relative_to(top).as_posix(): i.skipped for i in inputs([top])}
    assert listed == {"fifo/index.rst": "not a regular file (a FIFO)", "fifo/one.rst": None,
                      "notes/index.rst": None, "notes/sub/index.rst": None,
                      "out/index.rst": f"a symbolic link leading outside {top}", "out/one.rst": None}


def _boom(*args, **kwargs):
    raise RuntimeError("forced\nfailure")


@pytest.mark.parametrize(
    "argv, target",
    [
        (["refs", "{doc}"], "crparse.refs.resolve.references"),
        (["refs", "{doc}", "--broken"], "crparse.refs.resolve.references"),
        (["cite-check", "{doc}", "--cr", "{doc}"], "crparse.refs.cite.check_file"),
        (["text", "{doc}"], "crparse.pipeline.read"),
        (["parse", "{doc}"], "crparse.pipeline.read"),
        (["schema"], "crparse.writers.json.schema"),
    ],
)
def test_internal_error_is_one_line_and_exit_3(argv, target, monkeypatch, capsys):
    module, _, name = target.rpartition(".")
    if target == "crparse.refs.resolve.references":
        # before the module's own: crparse.references is looked up lazily, from that module, and
        # monkeypatch keeps what it finds to put back (it found _boom, which leaked into later tests)
        monkeypatch.setattr(crparse, "references", _boom, raising=False)
        import crparse.refs.graph as graph

        monkeypatch.setattr(graph, "find_references", _boom)
    monkeypatch.setattr(__import__(module, fromlist=[name]), name, _boom)
    doc = str(FIXTURES / "modern.txt")
    status = main([a.format(doc=doc) for a in argv])
    err = capsys.readouterr().err.strip()
    assert status == exits.INTERNAL
    assert len(err.splitlines()) == 1, err
    assert "internal error: RuntimeError: forced failure" in err
    if "{doc}" in argv[1:2]:  # a command reading one file names it
        assert err.startswith(f"crparse: {argv[0]}: {doc}") or err.startswith(f"crparse: {doc}"), err


def test_refusal_is_exit_2_for_every_subcommand(tmp_path, capsys):
    bad = tmp_path / "not-cr.txt"
    bad.write_text("Nothing numbered here.\nAt all.\n")
    for argv in (["parse", str(bad)], ["refs", str(bad)], ["text", str(tmp_path / "missing")],
                 ["cite-check", str(bad), "--cr", str(bad)]):
        assert main(argv) == exits.REFUSED, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("crparse: ") and len(err.splitlines()) == 1, err


def test_a_directory_named_as_a_file_is_a_refusal(tmp_path, capsys):
    """Found by a fresh adversarial sweep: `text DIR` and `cite-check --cr DIR` were exit 3."""
    for argv in (["text", str(tmp_path)], ["cite-check", str(FIXTURES / "modern.txt"), "--cr", str(tmp_path)]):
        assert main(argv) == exits.REFUSED, argv
        assert "not a regular file" in capsys.readouterr().err


def test_the_shipped_grammar_table_is_lark_s_analysis_of_the_current_grammar():
    """The parser reads crparse/tree/grammars/document.table.json instead of running lark at
    start-up; it must be what lark makes of document.lark now (run tools/tables.py if not)."""
    from crparse.tree import build

    grammar = build._grammar()
    shipped = build.shipped_table(grammar)
    assert shipped is not None, "document.table.json is stale or missing: run python tools/tables.py"
    assert shipped == msgspec.json.decode(msgspec.json.encode(build.analyse(grammar)))


def test_a_parse_does_not_import_lark(tmp_path):
    code = "import sys, crparse; crparse.parse(sys.argv[1]); print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "modern.txt")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_parse_names_an_argument_of_the_wrong_type():
    """A file object, a path given as a number, a negative size ended in an AttributeError or a
    TypeError inside a reader, or a refusal of "the -1 bytes limit" (sweep 33); a memoryview is
    bytes."""
    import io

    text = b"100. General\n\n100.1. One.\n\n100.2. Two.\n"
    assert "100.2" in crparse.parse(memoryview(text))
    with pytest.raises(TypeError, match="source must be a path, bytes or text, not BytesIO"):
        crparse.parse(io.BytesIO(text))
    with pytest.raises(TypeError, match="path must be a str or a path, not int"):
        crparse.parse(text, path=123)
    with pytest.raises(ValueError, match="max_size must be a number of bytes"):
        crparse.parse(text, max_size=-1)
