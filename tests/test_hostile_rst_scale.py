"""Hostile reST at scale: docutils reads plain text at ~0.7 us a byte, but its markup costs far
more than its bytes (a list, a directive, a target: a state machine of its own, ~1 ms), some of it
is not linear at all (a run of targets, transitions, a paragraph's inline markup), and it recurses
for each level of nesting, copying what is nested at each. The reader counts what a file would
cost before docutils runs (crparse.readers.limits: RST_*, MAX_RST_*, CRPARSE_MAX_RST_WORK) and
refuses, in one line naming the limit and the line, what would not end in time; the transforms
that were quadratic are replaced or left out, and a RecursionError or MemoryError anywhere is a
refusal that says so.

Every case runs the CLI in a child under the limits of tests/limits.py (15 s, 1 GiB); the inputs
are the shapes an adversarial sweep found (each took over 15 s, or died of memory with an empty
message), written here, in tmp_path."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from limits import run_limited

import crparse
from crparse.readers import limits as L
from crparse.readers import rst

# Three rules, so that what parses is a CR document (exit 0), not refused for having too few.
HEAD = ("100. General\n============\n\n100.1\n-----\n\nText of the rule.\n\n100.2\n-----\n\nMore text.\n\n"
        "100.3\n-----\n\nAnd more.\n\n")
FIRST = HEAD.count("\n") + 1  # the first line after it


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path, *args: str, env: dict[str, str] | None = None, **limits) -> str:
    """The one line `crparse parse` refuses `path` with, in a child under the limits."""
    result = run_limited(["parse", *args, str(path)], env=env, **limits)
    assert result.ok_within_limits, (result.timed_out, result.seconds, result.stderr[-500:])
    assert result.returncode == 2, result.stderr[-500:]
    lines = result.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"crparse: {path}"), lines
    return lines[0]


def parsed(path: Path, env: dict[str, str] | None = None, seconds: float = 15.0):
    result = run_limited(["parse", str(path)], env=env, seconds=seconds)
    assert result.ok_within_limits, (result.timed_out, result.seconds, result.stderr[-500:])
    return result


def line_of(message: str) -> int:
    return int(re.match(r"crparse: [^:]+:(\d+): ", message)[1])


# -- 1. markup past what docutils reads in time: refused before it runs ------------------------

_OVER_BUDGET = {
    # 59,700 rule sections (1.3 MB): 27 s
    "many-rule-sections": lambda: "".join(f"{s}. T\n======\n\n" + "".join(f"{s}.{r}\n-----\n\nText.\n\n"
                                                                           for r in range(1, 200))
                                          for s in range(100, 400)),
    # 20,000 sections titled alike, each a duplicate implicit target
    "duplicate-titles": lambda: HEAD + "".join(f"Example\n-------\n\nx {i}\n\n" for i in range(20_000)),
    # 20,000 explicit targets of one name: minutes (quadratic in docutils' PropagateTargets)
    "duplicate-targets": lambda: HEAD + "".join(f".. _same:\n\nx {i}\n\n" for i in range(20_000)),
    # a grid table of 2,000 x 200 cells (200 us a cell), and a simple one of 8,000 x 100 (500 MB)
    "grid-table": lambda: HEAD + ("+" + "---+" * 200 + "\n|" + " x |" * 200 + "\n") * 2000 + "+" + "---+" * 200 + "\n",
    "simple-table": lambda: HEAD + "=== " * 100 + "\n" + ("x   " * 100 + "\n") * 8000 + "=== " * 100 + "\n",
    "glossary": lambda: HEAD + "Glossary\n========\n\n.. glossary::\n\n"
                        + "".join(f"   Term{i}\n      Def, see :term:`Term{i + 1}`.\n\n" for i in range(60_000)),
    "admonitions": lambda: HEAD + ".. admonition:: Example\n\n   x\n\n" * 60_000,
    # each item a list of its own (another bullet): a state machine each, 1 ms
    "alternating-lists": lambda: HEAD + "- x\n\n* x\n\n" * 20_000,
    # nested lists opened on one line, each its own state machine
    "nested-on-one-line": lambda: HEAD + "- - - - - - - - - - - - x\n\n" * 5_000,
    "unknown-roles": lambda: HEAD + ":foo:`x`\n\n" * 50_000,
}


@pytest.mark.parametrize("shape", sorted(_OVER_BUDGET))
def test_markup_past_the_budget_is_refused_before_docutils_runs(tmp_path, shape):
    path = write(tmp_path, f"{shape}.rst", _OVER_BUDGET[shape]())
    message = refused(path)
    assert "more reStructuredText markup than docutils reads in time" in message, message
    assert "CRPARSE_MAX_RST_WORK" in message and "CRPARSE_MAX_INPUT" in message, message
    # the line where the budget ran out: inside the input, past its first lines
    assert FIRST < line_of(message) <= path.read_text().count("\n") + 1, message


def test_toctree_entries_count_towards_the_budget(tmp_path):
    """Each entry costs a look on the disk and, for a file, docutils' setup (~5 ms): 100,000
    entries of missing files took 8 to 12 s, and as many of small files would take minutes."""
    entries = "".join(f"   missing{i}\n" for i in range(100_000))
    index = write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n\n" + entries)
    message = refused(index)
    assert "toctree entries" in message and "CRPARSE_MAX_RST_WORK" in message, message
    assert line_of(message) < 2000, message  # refused at the entry that passed the budget, before looking at any


def test_the_budget_follows_its_settings(tmp_path, monkeypatch):
    path = write(tmp_path, "rules.rst", HEAD + "- x\n\n* x\n\n" * 200)
    assert [r.number for r in crparse.parse(path).rules][-3:] == ["100.1", "100.2", "100.3"]
    monkeypatch.setenv("CRPARSE_MAX_RST_WORK", "100K")
    over = r"past the 102400 bytes an edition may \(CRPARSE_MAX_RST_WORK"
    with pytest.raises(crparse.RefusedInput, match=over) as err:
        crparse.parse(path)
    assert err.value.line is not None and FIRST < err.value.line < FIRST + 4 * 200
    # by default the budget is RST_WORK_FACTOR times the input limit, and follows it
    monkeypatch.delenv("CRPARSE_MAX_RST_WORK")
    monkeypatch.setenv("CRPARSE_MAX_INPUT", "64M")
    assert L.max_rst_work() == int(L.RST_WORK_FACTOR * 64 * 2**20)


# -- 2. nesting: docutils recurses, and copies what is nested, at each level -------------------

_NESTED = {
    "block-quotes": lambda d: "".join(" " * i + "x\n\n" for i in range(d)),
    "bullets": lambda d: "".join("  " * i + "- x\n\n" for i in range(d)),
    "enumerated": lambda d: "".join("   " * i + "a. x\n\n" for i in range(d)),
    "directives": lambda d: "".join("   " * i + ".. note::\n\n" for i in range(d)) + "   " * d + "x\n",
    "one-line": lambda d: "- " * d + "x\n",
    "grid-cell": lambda d: _grid([["- " * d + "x"]]),
    "under-a-table-border": lambda d: "+-\n   " + "- " * d + "x\n",  # a term `+-`, a list its definition
    "grids-in-cells": lambda d: _grids_in_cells(d),
}


def _grids_in_cells(depth: int) -> str:
    """Grid tables one in a cell of another, `depth` deep."""
    lines = ["x"]
    for _ in range(depth):
        width = max(map(len, lines)) + 2
        border = "+" + "-" * width + "+"
        lines = [border, *("| " + line.ljust(width - 1) + "|" for line in lines), border]
    return "\n".join(lines) + "\n\n"


def _grid(rows: list[list[str]]) -> str:
    """A grid table of `rows` (a line each), its columns as wide as their widest cell."""
    widths = [max(len(row[c]) for row in rows) + 2 for c in range(len(rows[0]))]
    border = "+" + "+".join("-" * w for w in widths) + "+\n"
    return border + "".join("|" + "|".join(f" {cell:<{w - 2}} " for cell, w in zip(row, widths)) + "|\n"
                            for row in rows) + border + "\n"


def test_a_grid_table_row_of_many_empty_cells_is_no_nesting(tmp_path):
    """Each empty cell of a wrapped row (`|   |   | ... | more |`) was a line block one level
    deeper: a table of 16 columns was refused as nested more than 16 levels (sweep 32)."""
    columns = 3 * L.MAX_RST_NESTING
    table = _grid([["x"] * (columns - 1) + ["long text"], [""] * (columns - 1) + ["wrapped"]])
    tree = crparse.parse(write(tmp_path, "grid.rst", HEAD + table + "100.9\n-----\n\nAfter the table.\n"))
    assert "100.9" in [r.number for r in tree.rules]


@pytest.mark.parametrize("shape", sorted(_NESTED))
def test_deep_nesting_is_refused_naming_the_depth_and_line(tmp_path, shape):
    """300 levels: a RecursionError ("maximum recursion depth exceeded"); 2,800 levels of 4 MB
    ran out of memory and said nothing ("cannot read this reStructuredText: ")."""
    path = write(tmp_path, f"{shape}.rst", HEAD + _NESTED[shape](300))
    message = refused(path)
    assert f"nested more than {L.MAX_RST_NESTING} levels deep" in message, message
    # where the nesting passes the limit: a level a line or two, the rules' one to begin with
    assert FIRST <= line_of(message) <= FIRST + 2 * L.MAX_RST_NESTING, message


def test_a_nested_toctree_file_is_refused_naming_the_file_and_its_line(tmp_path):
    write(tmp_path, "ed/deep.rst", HEAD + _NESTED["bullets"](100))
    index = write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n\n   deep\n")
    message = refused(index)
    assert f"nested more than {L.MAX_RST_NESTING} levels deep (in deep.rst, line " in message, message


@pytest.mark.parametrize("shape", ["wide", "deep"])
def test_nested_editions_are_listed_in_linear_time(tmp_path, shape):
    """Each edition listed all the files below it and then filtered out those of the editions
    nested in it, comparing each file with each: 3,000 sub-directories holding an index.rst of
    their own, over 40 s for one edition; a chain of 300 editions one inside the other walked as
    documents, over 30 s (sweep 24). An edition's listing now stops at another edition's."""
    top = tmp_path / "ed"
    write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n\n   rules\n")
    write(tmp_path, "ed/rules.rst", HEAD)
    write(tmp_path, "ed/forgotten.rst", "X\n=\n\nx\n")
    if shape == "wide":
        for n in range(3000):
            (top / f"s{n}").mkdir()
            (top / f"s{n}" / "index.rst").write_text("X\n=\n\nx\n")
            (top / f"s{n}" / "other.rst").write_text("X\n=\n\nx\n")  # its edition's, not said in ours
        result = run_limited(["parse", "--json", str(top / "index.rst")], seconds=10)
    else:
        deep = top
        for _ in range(300):
            deep = deep / "d"
            deep.mkdir()
            (deep / "index.rst").write_text("X\n=\n\nx\n")
        result = run_limited(["parse", str(top)], seconds=10)
    assert result.ok_within_limits, (result.timed_out, result.seconds, result.stderr[-500:])
    if shape == "wide":
        import json

        said = [d["message"] for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "rst-toctree"]
        assert said == ["1 .rst file(s) of the edition's directory that no toctree names, not read: forgotten.rst"]
    else:  # the 300 below are no CR documents: each refused, in a line of its own
        assert result.stderr.decode().count("not a Comprehensive Rules document") == 300


def test_an_edition_over_a_deep_tree_is_listed_in_time_and_memory(tmp_path):
    """The edition's listing made a Path of each of its files, whose parts cost the depth each:
    1,200 levels of 25 files, 7.9 s and 339 MB (1,900 levels: 23 s, 793 MB: sweep 26); the names
    are kept as the walk gives them (2.5 s, 105 MB)."""
    from crparse.outputs import remove_tree

    top = tmp_path / "ed"
    write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n\n   rules\n")
    write(tmp_path, "ed/rules.rst", HEAD)
    here = top
    try:
        for _ in range(1200):
            here = here / "d"
            here.mkdir()
            for n in range(25):
                (here / f"f{n}.rst").write_text("x\n")
        result = run_limited(["parse", str(top / "index.rst")], seconds=10)
    finally:  # pytest removes its temporary directories with shutil.rmtree, which recurses
        remove_tree(top)
    assert result.ok_within_limits and result.returncode == 0, (result.timed_out, result.stderr[-300:])
    assert result.peak_mib < 200, result.peak_mib


def test_a_toctree_does_not_read_into_another_edition(tmp_path):
    """Each of 150 editions one inside another named the next in its toctree, and read all those
    below it: 11,000 parses of 13 KB, 21 s, and their rules came out twice (sweep 25). An edition
    is its directory but for those of editions below it, as its listing is: the entry is said."""
    top = deep = tmp_path / "ed"
    for n in range(150):
        write(deep, "index.rst", f"Part {n}\n========\n\n{100 + n}.1. Rule text.\n\n{100 + n}.2. More.\n\n"
                                 ".. toctree::\n\n   d/index\n   d/d/index\n")
        deep = deep / "d"
    result = run_limited(["parse", str(top)], seconds=10)
    assert result.ok_within_limits and result.returncode == 0, (result.timed_out, result.stderr[-500:])
    assert result.stdout.decode().count("index.rst: rst") == 150
    doc = crparse.parse(top / "index.rst")
    assert [r.number for r in doc.rules] == ["100", "100.1", "100.2"]  # its section, numbered from its rules
    said = [d.message for d in doc.diagnostics if d.code == "rst-toctree"]
    assert said == [f"toctree entry {e!r} not read: in d/, the directory of another edition (an index.rst of its own), "
                    "which is read as a document of its own" for e in ("d/index", "d/d/index")]


# the prescan's limits and the readers' memory backstop lifted: docutils itself recurses or fills memory
_UNBOUNDED = ("import crparse.readers.limits as L\nL.MAX_RST_NESTING = 10**6\nL.RST_WORK_FACTOR = 10**6\n"
              "import crparse.readers.backstop as B\nB.MAX_READ_MEMORY = 2**40\n"
              "from crparse.cli.main import main\nsys.argv[0] = 'crparse'\nsys.exit(main())")


@pytest.mark.parametrize("shape, levels, says", [
    ("enumerated", 400, "nests deeper than Python's recursion limit"),
    ("block-quotes", 2800, "out of memory"),
])
def test_a_recursion_or_memory_error_is_a_refusal_that_says_so(tmp_path, shape, levels, says):
    """The pre-scan bounds nesting; what it does not see as nested and still recurses or fills
    memory is refused with what happened, never "cannot read this reStructuredText: " and nothing."""
    path = write(tmp_path, f"{shape}.rst", HEAD + _NESTED[shape](levels))
    message = refused(path, code=_UNBOUNDED, memory=768 * 2**20)
    assert says in message, message
    assert message.split("cannot read this reStructuredText: ")[1].strip(), message


# -- 3. a paragraph's inline markup: docutils' time grows with its square -----------------------

_MARKUP = {
    "unresolved-references": "nope_ ",  # 20,000 in one paragraph: 35 s
    "unmatched-backquotes": "`x ",
    "substitutions": "|T| ",
    "footnote-references": "[#]_ ",
    "unmatched-emphasis": "a *b ",
}


@pytest.mark.parametrize("shape", sorted(_MARKUP))
def test_a_paragraph_of_thousands_of_inline_markup_characters_is_refused(tmp_path, shape):
    unit = _MARKUP[shape]
    line = unit * (2000 // len(unit)) + "\n"  # docutils refuses lines over 10,000 characters itself
    path = write(tmp_path, f"{shape}.rst", HEAD + line * (20_000 * len(unit) // 2000))
    message = refused(path)
    assert f"paragraph with more than {L.MAX_RST_PARAGRAPH_MARKUP:,} inline markup characters" in message, message
    per_line = 2000 // len(unit) * (2 if "|" in unit else 1)
    assert line_of(message) == FIRST + L.MAX_RST_PARAGRAPH_MARKUP // per_line, message  # where the count passes it


def test_list_items_and_line_blocks_are_paragraphs_of_their_own(tmp_path):
    """A Contents of references with no blank line between its items is not one paragraph."""
    text = HEAD + "".join(f"* `Heading {i}`_\n" for i in range(1000)) + "\n" + "| `x` |T|\n" * 1000
    result = parsed(write(tmp_path, "list.rst", text))
    assert result.returncode == 0, result.stderr[-500:]


# -- 4. what was quadratic, in linear time --------------------------------------------------------

def test_transitions_by_the_thousand(tmp_path):
    """docutils' Transitions transform compares each transition with all its siblings (5,000
    took 18 s): crparse does not need it, and leaves it out."""
    result = parsed(write(tmp_path, "transitions.rst", HEAD + "x\n\n----\n\n" * 5000 + "y\n"))
    assert result.returncode == 0, result.stderr[-500:]


def test_a_run_of_targets_is_handed_on_in_linear_time(tmp_path):
    """docutils' PropagateTargets hands each target of a run all those before it, and finds the
    next element with list.index: 20,000 in a row took minutes. The budget is raised here, to
    reach the transform."""
    text = HEAD + "".join(f".. _t{i}:\n" for i in range(20_000)) + "\n100.4\n-----\n\nNamed by all of them.\n"
    result = parsed(write(tmp_path, "targets.rst", text), env={"CRPARSE_MAX_RST_WORK": "1G"})
    assert result.returncode == 0, result.stderr[-500:]


def test_a_run_of_targets_names_the_heading_after_it(tmp_path):
    """Labels in a run, a target between two, a label after an external target: each names the
    rule it precedes, as docutils' own transform has them."""
    text = (HEAD + ".. _one:\n.. _two:\n\n.. _three:\n\n100.4\n-----\n\nA rule.\n\n"
            ".. _out: http://example.com\n.. _four:\n\n100.5\n-----\n\nSee :ref:`one`, :ref:`two`, :ref:`three`, "
            ":ref:`four` and `out`_.\n")
    doc = crparse.parse(write(tmp_path, "labels.rst", text))
    labels = sorted((link.text, link.rule) for link in doc.links if link.kind == "label")
    assert labels == [("four", "100.5"), ("one", "100.4"), ("three", "100.4"), ("two", "100.4")], doc.links
    refs = [(link.target, link.rule) for link in doc.links if link.kind == "ref"]
    assert refs == [("one", "100.4"), ("two", "100.4"), ("three", "100.4"), ("four", "100.5")], doc.links


def test_a_long_contents_is_not_matched_past_the_pair_limit(tmp_path):
    """Headings are matched with the Contents by difflib, worse than quadratic: 2,000 entries
    and 2,000 headings, titles alternating, took 52 s. Past MAX_RST_CONTENTS_PAIRS the Contents
    numbers nothing, with a warning."""
    n = 2000
    contents = "Contents\n========\n\n" + "".join(f"#. `{'General' if i % 2 else 'Other'}`_\n" for i in range(n))
    headings = "".join(f"{'General' if i % 2 else 'Another'}\n{'-' * 10}\n\nx\n\n" for i in range(n))
    path = write(tmp_path, "contents.rst", "Rules\n=====\n\n" + contents + "\nBody\n====\n\n" + headings + HEAD)
    result = run_limited(["parse", "--json", str(path)])
    assert result.ok_within_limits and result.returncode == 0, (result.seconds, result.stderr[-500:])
    assert b"MAX_RST_CONTENTS_PAIRS" in result.stdout


_WRITER = """
from docutils import nodes
from crparse.readers import rst
chapter = nodes.section()
chapter += nodes.title("", "Chapter")
chapter[0].line = 1
for i in range(40_000):  # sections with no rules, numbered by their place in the chapter
    section = nodes.section()
    section += nodes.title("", f"Heading {i}")
    section[0].line = i + 2
    chapter += section
document = nodes.document(None, None)
document += chapter
writer = rst._Writer({id(chapter): "1"}, {}, {}, [])
writer.document(document, rst._File("x.rst", [], 0))
print(writer.lines[-2])
"""


def test_sections_are_numbered_by_their_place_in_linear_time():
    """The reader numbered a section with no rules by its place among its siblings, listed and
    searched again for each: quadratic in the sections of a chapter."""
    result = run_limited([], code=_WRITER)
    assert result.ok_within_limits and result.returncode == 0, (result.seconds, result.stderr[-500:])
    assert result.stdout.decode().strip() == "40099. Heading 39999"


# -- 5. an edition as a whole -------------------------------------------------------------------

def test_an_edition_is_held_to_the_input_limit_in_all(tmp_path, monkeypatch):
    """Each file of an edition under the input limit, all of them over it: an edition cannot make
    of many files what it could not be given as one."""
    monkeypatch.setenv("CRPARSE_MAX_INPUT", "64K")
    chapter = "Chapter\n=======\n\n" + "".join(f"{n}.1\n-----\n\n{'A rule. ' * 100}\n\n" for n in range(100, 150))
    for name in ("one", "two"):
        write(tmp_path, f"ed/{name}.rst", chapter)
    index = write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n\n   one\n   two\n")
    assert 32 * 2**10 < len(chapter) < 64 * 2**10
    over = r"more than 65536 bytes in all, at .*two\.rst \(toctree entry 'two'\)"
    with pytest.raises(crparse.RefusedInput, match=over) as err:
        crparse.parse(index)
    assert "CRPARSE_MAX_INPUT" in err.value.message and err.value.line == 7


@pytest.mark.corpus
def test_the_2011_edition_is_well_within_the_budget(corpus):
    """The budget's room: the 2011-07-15 edition counts about half of it, so that an edition as
    long as the newest releases (the 2026 text is 1.66 times the 2011 one) would still be read."""
    index = corpus / "rst" / "2011-07-15" / "index.rst"
    counted = []

    class Budget(rst._Budget):
        def __init__(self):
            super().__init__()
            counted.append(self)

    original = rst._Budget
    rst._Budget = Budget
    try:
        doc = crparse.parse(index)
    finally:
        rst._Budget = original
    assert len(doc.source.files) == 14
    [budget] = counted
    assert 1.66 * budget.work < budget.limit, (budget.work, budget.limit, budget.counts)


def _masters(tmp_path: Path, masters: int, chapters: int) -> list[Path]:
    """`masters` reST files in one directory, no index.rst, each with a :glob: toctree over the
    same `chapters` chapter files."""
    for n in range(chapters):
        write(tmp_path, f"ch/c{n:04}.rst", f"C{n}\n{'=' * 8}\n\n{100 + n % 800}.9. A chapter's rule.\n")
    return [write(tmp_path, f"m{k}.rst", HEAD + ".. toctree::\n   :glob:\n\n   ch/*\n") for k in range(masters)]


def _masters_within(tmp_path: Path, chapters: int) -> int:
    """How many masters' whole reads of the chapters fit in the run's budget for reads again."""
    from crparse.readers import runs

    from crparse.readers.rst import markup_work

    each = sum(markup_work(p.read_text()) + runs.REPEATED_READ_COST
               for p in sorted((tmp_path / "ch").glob("*.rst"))[:chapters])
    return runs.MAX_REPEATED_WORK // each


def test_documents_of_one_run_reading_the_same_files_are_bounded_in_all(tmp_path, monkeypatch):
    """K reST files in a directory without index.rst, each globbing the same M chapters, read
    K x M files from K + M: 30 x 1,200 took 21 s and 358 MB for 90 KB (sweep 26). Each document
    kept to its own budget; the run now has one for files another document read first."""
    from crparse.errors import RefusedInput
    from crparse.limits import describe
    from crparse.readers import runs

    masters = _masters(tmp_path, 5, 20)
    whole = len(crparse.parse(masters[0]).rules)
    from crparse.readers.rst import markup_work

    bound = 50 * (markup_work((tmp_path / "ch" / "c0000.rst").read_text()) + runs.REPEATED_READ_COST)
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", bound)  # about 50 small reads
    with runs.one_run():
        assert [len(crparse.parse(m).rules) for m in masters[:3]] == [whole] * 3  # 40 reads again
        again = crparse.parse(masters[0])  # a document parsed again reads its own files again: no such read
        assert len(again.rules) == whole
        with pytest.raises(RefusedInput) as refusal:
            crparse.parse(masters[3])  # 60
    assert "which another document of this run has read: such reads have cost this run" in str(refusal.value)
    assert f"past the {describe(bound)} it may" in str(refusal.value)
    assert len(crparse.parse(masters[4]).rules) == whole  # outside a run, each document is on its own


def test_the_cli_bounds_masters_reading_the_same_chapters(tmp_path):
    """The shape of sweep 26, at the CLI: one run, its repeated reads bounded."""
    _masters(tmp_path, 12, 300)  # 11 x 300 reads again: past the bound
    within = _masters_within(tmp_path, 300)
    assert within < 11
    result = run_limited(["parse", *(str(p) for p in sorted(tmp_path.glob("m*.rst")))])
    assert result.ok_within_limits and result.returncode == 2, (result.seconds, result.stderr[-500:])
    lines = result.stderr.decode().splitlines()
    refused = [line for line in lines if "which another document of this run has read" in line]
    assert len(refused) == 12 - 1 - within and len(lines) == len(refused)


def test_the_run_s_bound_holds_with_a_worker_for_each_document(tmp_path, monkeypatch):
    """Each process kept which document read a file first: with a worker per document, no read
    was ever one again, and 30 masters over 1,200 chapters took 21 s again (review). The table
    is shared by the run's processes."""
    from crparse.errors import CrparseError
    from crparse.parallel import parse_all

    masters = _masters(tmp_path, 12, 300)
    monkeypatch.setenv("CRPARSE_JOBS", "13")
    found = list(parse_all(masters))
    refused = [f for f in found if isinstance(f, CrparseError)]
    assert all("which another document of this run has read" in str(r) for r in refused)
    # in parallel, which documents read first is a race: at least those past the bound in order
    assert 12 - 1 - _masters_within(tmp_path, 300) <= len(refused) < 12


@pytest.mark.parametrize("linked", [False, True])
def test_documents_of_one_run_reading_one_large_chapter_are_bounded_by_its_size(tmp_path, monkeypatch, linked):
    """Reads again were counted, not their bytes: 31 documents each naming one 2.4 MB chapter
    took 40 s; and editions whose chapters are hard links to one file were never counted (sweep 29)."""
    from crparse.errors import RefusedInput
    from crparse.readers import runs

    chapter = HEAD + "".join(f"100.{n}. Text of rule {n}, long enough to weigh.\n\n" for n in range(4, 2004))
    documents = []
    for k in range(6):
        if linked:  # editions of their own, their chapter one file
            documents.append(write(tmp_path, f"e{k}/index.rst", "Rules\n=====\n\n.. toctree::\n\n   big\n"))
            if k:
                os.link(tmp_path / "e0" / "big.rst", tmp_path / f"e{k}" / "big.rst")
            else:
                write(tmp_path, "e0/big.rst", chapter)
        else:
            documents.append(write(tmp_path, f"d{k}.rst", HEAD + ".. toctree::\n\n   big\n"))
    if not linked:
        write(tmp_path, "big.rst", chapter)
    from crparse.readers.rst import markup_work

    size = markup_work(chapter) + runs.REPEATED_READ_COST
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", 5 * size // 2)  # the first, and two reads again
    with runs.one_run():
        for document in documents[:3]:
            crparse.parse(document)
        with pytest.raises(RefusedInput, match="which another document of this run has read"):
            crparse.parse(documents[3])


def test_the_glob_work_of_a_run_is_bounded_in_all(tmp_path, monkeypatch):
    """Each edition held to its budget for matching :glob: patterns, each of 60 documents too:
    20 s for 25 KB (sweep 29). The run has one in all."""
    from crparse.readers import runs

    for n in range(300):
        write(tmp_path, f"{'n' * 60}{n:04}.rst", "")
    patterns = "".join(f"   **z{p}\n" for p in range(10))
    docs = [write(tmp_path, f"doc{k:02}.rst", HEAD + ".. toctree::\n   :glob:\n\n" + patterns) for k in range(6)]
    monkeypatch.setattr(runs, "MAX_GLOB_WORK", 250_000)
    with runs.one_run():
        said = [[d.message for d in crparse.parse(doc).diagnostics if "the most a run may" in d.message] for doc in docs]
    assert not said[0] and said[-1], said
    assert not [d for d in crparse.parse(docs[-1]).diagnostics if "the most a run may" in d.message]  # alone


def test_a_run_ends_with_the_generator_that_began_it():
    """Two parse_all generators, the first closed first: the second restored the first's run when
    it closed, and every later parse in the process shared that dead run (review)."""
    from crparse.parallel import parse_all
    from crparse.readers import runs

    seed = str(Path(__file__).resolve().parents[1] / "corpus" / "002_5de42b84d94734e9.txt")
    first = parse_all([seed])
    next(first)
    second = parse_all([seed])
    next(second)
    first.close()
    second.close()
    assert runs._RUN is None


def test_a_directory_is_listed_once_a_run_for_its_globbing_documents(tmp_path, monkeypatch):
    """Each reST file with a :glob: toctree listed its whole directory tree again: 100 of them
    beside 20,000 other files took 14 s (sweep 28)."""
    import crparse.inputs
    from crparse.readers import runs

    masters = [write(tmp_path, f"s{k:02}.rst", HEAD + ".. toctree::\n   :glob:\n\n   nomatch*\n") for k in range(20)]
    listings = []
    walk = crparse.inputs.inputs
    monkeypatch.setattr(crparse.inputs, "inputs", lambda paths, **k: listings.append(paths) or walk(paths, **k))
    with runs.one_run():
        for master in masters:
            crparse.parse(master)
    assert len(listings) == 1
    crparse.parse(masters[0])  # outside a run: listed as it is now
    assert len(listings) == 2


def test_a_run_resolves_a_directory_s_files_once_for_its_globbing_documents(tmp_path, monkeypatch):
    """Each document resolved every file its pattern matched again: 30 documents globbing 20,000
    costly links took 18 s (sweep 30)."""
    from crparse.readers import rst as reader
    from crparse.readers import runs

    masters = _masters(tmp_path, 10, 50)
    resolved = []
    real = reader.real_path
    monkeypatch.setattr(reader, "real_path", lambda path: resolved.append(path) or real(path))
    with runs.one_run():
        for master in masters:
            crparse.parse(master)
    chapters = [r for r in resolved if "/ch/" in str(r)]
    assert len(chapters) == len(set(chapters)) == 50


def test_a_run_resolves_an_entry_and_looks_for_editions_on_its_way_once(tmp_path, monkeypatch):
    """Each document resolved each of its entries again, and looked for an index.rst in every
    directory on an entry's way again: 30 documents naming one costly link 1,200 times took 30 s,
    200 documents naming a file 1,500 directories deep 16 s (sweep 31)."""
    from crparse.readers import rst as reader
    from crparse.readers import runs

    deep = "/".join(["a"] * 30)
    write(tmp_path, f"{deep}/x.rst", "X\n=\n\n100.9. Deep.\n")
    docs = [write(tmp_path, f"doc{k}.rst", HEAD + ".. toctree::\n\n" + f"   {deep}/x\n" * 3) for k in range(10)]
    resolved, looked = [], []
    real, holds = reader.real_path, reader._holds_edition
    monkeypatch.setattr(reader, "real_path", lambda path: resolved.append(str(path)) or real(path))
    monkeypatch.setattr(reader, "_holds_edition", lambda *a: looked.append(a[0]) or holds(*a))
    with runs.one_run():
        for doc in docs:
            crparse.parse(doc)
    assert len([r for r in resolved if r.endswith("x.rst")]) == 1
    assert len(looked) == len(set(looked)) == 30


def _chain(tmp_path: Path, levels: int, toctree: str) -> list[Path]:
    """A reST document at each level of a chain of directories a/a/a/..., each with `toctree`."""
    return [write(tmp_path, "/".join(["a"] * k + ["doc.rst"]), HEAD + toctree) for k in range(levels)]


def test_a_run_charges_listings_of_directories_another_document_listed_first(tmp_path, monkeypatch):
    """A document's edition is its directory tree: 800 documents one per level of a chain, each
    globbing, listed the tree below them again each (26 s), and 80 above 20,000 files 20 s
    (sweep 32). Such listings are charged to the run; past its bound a pattern is not read, said."""
    from crparse.readers import runs

    docs = _chain(tmp_path, 6, ".. toctree::\n   :glob:\n\n   zz*\n")
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 12)  # the second lists five directories again: 30
    with runs.one_run():
        said = [[d.message for d in crparse.parse(doc).diagnostics if "MAX_REPEATED_LISTING" in d.message]
                for doc in docs]
    assert not said[0] and all(said[1:]), said
    assert "parse this one alone" in said[1][0]
    assert not [d for d in crparse.parse(docs[3]).diagnostics if "MAX_REPEATED_LISTING" in d.message]  # alone
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 10_000)
    with runs.one_run():  # within the bound, each is listed in full
        assert not [d for doc in docs for d in crparse.parse(doc).diagnostics if "MAX_REPEATED_LISTING" in d.message]


def test_a_run_resolves_a_path_once_whatever_the_document_s_directory(tmp_path, monkeypatch):
    """The real paths of entries were remembered for each edition root: 80 documents one per
    level of a chain, naming the same 300 costly links below, resolved them all again (18 s:
    sweep 32)."""
    from crparse.readers import rst as reader
    from crparse.readers import runs

    levels = 8
    write(tmp_path, "/".join(["a"] * levels + ["t.rst"]), "T\n=\n\n100.9. Deep.\n")
    os.symlink("t.rst", tmp_path.joinpath(*["a"] * levels, "link.rst"))
    docs = [write(tmp_path, "/".join(["a"] * k + ["doc.rst"]),
                  HEAD + ".. toctree::\n\n   " + "/".join(["a"] * (levels - k) + ["link"]) + "\n") for k in range(levels)]
    resolved = []
    real = reader.real_path
    monkeypatch.setattr(reader, "real_path", lambda path: resolved.append(str(path)) or real(path))
    with runs.one_run():
        assert all(any(r.number == "100.9" for r in crparse.parse(doc).rules) for doc in docs)
    assert len([r for r in resolved if r.endswith("link.rst")]) == 1


def test_a_run_names_a_directory_s_files_once_and_not_past_its_glob_budget(tmp_path, monkeypatch):
    """Each document made the names of the files its patterns match, and did so even once the
    run's :glob: budget was spent: 200 documents beside 100,000 files, 14 s (sweep 32)."""
    from crparse.readers import runs

    masters = _masters(tmp_path, 10, 50)
    named = []
    relative = rst._Edition.relative
    monkeypatch.setattr(rst._Edition, "relative", lambda self, path: named.append(path) or relative(self, path))
    with runs.one_run():
        for master in masters:
            crparse.parse(master)
    assert len(named) == 60  # the masters and chapters once each, not for each master
    named.clear()
    monkeypatch.setattr(runs, "MAX_GLOB_WORK", 1)
    with runs.one_run():
        runs.spend(runs.GLOB, 2)
        diagnostics = crparse.parse(masters[0]).diagnostics
    assert not named and any("the most a run may" in d.message for d in diagnostics)


def test_an_index_that_is_a_link_to_another_edition_s_makes_an_edition_of_its_own_directory(tmp_path):
    """E2/index.rst, a link to ../E1/index.rst: the walk said where the link led, E1, and E2's own
    chapter was refused as a link leading outside the edition, and said unnamed (sweep 33)."""
    import json

    write(tmp_path, "E1/index.rst", "Rules\n=====\n\n.. toctree::\n\n   ch\n\n" + HEAD)
    write(tmp_path, "E1/ch.rst", "101. Ch\n-------\n\n101.1. E1 chapter.\n")
    write(tmp_path, "E2/ch.rst", "101. Ch\n-------\n\n101.1. E2 chapter.\n")
    (tmp_path / "E2" / "index.rst").symlink_to("../E1/index.rst")
    result = run_limited(["parse", "--json", str(tmp_path)])
    assert result.returncode == 0, result.stderr[-500:]
    docs = [json.loads(line) for line in result.stdout.decode().splitlines()]
    e2 = next(d for d in docs if d["source"]["path"].endswith("E2/index.rst"))
    assert "E2 chapter." in json.dumps(e2) and "E1 chapter." not in json.dumps(e2)
    assert not [d for d in e2["diagnostics"] if d["code"] == "rst-toctree"], e2["diagnostics"]


def test_a_document_s_own_listings_of_two_kinds_are_not_charged_as_done_again(tmp_path, monkeypatch):
    """`index` fingerprints an edition and then parses it: the reader's listing was charged as a
    listing done again, and with many editions in a run the later ones lost their glob (review)."""
    from crparse.fingerprint import fingerprint
    from crparse.readers import runs

    index = write(tmp_path, "ed/index.rst", "Rules\n=====\n\n.. toctree::\n   :glob:\n\n   c*\n\n" + HEAD)
    write(tmp_path, "ed/c1.rst", "101. C\n------\n\n101.1. A chapter.\n")
    monkeypatch.setattr(runs, "MAX_REPEATED_LISTING", 0)
    with runs.one_run():
        fingerprint(index)
        doc = crparse.parse(index)
    assert "101.1" in doc and not [d for d in doc.diagnostics if "MAX_REPEATED_LISTING" in d.message]


def test_a_listing_counts_the_hidden_entries_it_scans(tmp_path):
    """A directory of 50,000 dotfiles was charged as a directory of none (review)."""
    from crparse.inputs import inputs

    for n in range(30):
        (tmp_path / f".h{n}").write_text("")
    (tmp_path / "a.rst").write_text("")
    seen = []
    list(inputs([tmp_path], editions=False, once=False, record=False, visit=lambda d, n: seen.append(n)))
    assert seen == [31]


def test_the_run_s_bound_on_reads_again_is_held_to_what_markup_costs(tmp_path):
    """Dense reST of tiny rules costs docutils ~4 ms a KB, a wide table ~60: within a bound in
    bytes, 40 editions hard-linking one 196 KB chapter took 32 s (sweep 36), and 20 documents
    naming one table of 28 KB, 31 s (sweep 40). Reads again are charged what their markup costs,
    each unit at most ~0.35 us of docutils: the bound is ~3 s of it."""
    from crparse.readers import runs
    from crparse.readers.rst import markup_work

    assert runs.MAX_REPEATED_WORK * 0.35e-6 <= 3.5
    columns = 2000
    border = "+" + "+".join(["--"] * columns) + "+"
    row = "|" + "|".join(["ab"] * columns) + "|"
    table = "T\n=\n\n" + "\n".join([border, row, border, row, border]) + "\n"
    dense = "T\n=\n\n" + "".join(f"{100 + n // 900}.{n % 900 + 1}. Rule {n}.\n\n" for n in range(5000))
    # the table costs docutils about 20 times what its bytes would say; dense rules, 3 to 8
    assert markup_work(table) > 50 * len(table) and markup_work(dense) > 3 * len(dense)


@pytest.mark.parametrize("shape", ["classifiers", "uris"])
def test_markup_docutils_makes_nodes_of_that_the_budget_missed_is_counted(tmp_path, shape):
    """A term's classifiers (`term : c : c`) and standalone URIs of schemes that need no "//"
    (`urn:x`) were counted as plain text: 4 MB of them took 19 s and 1.2 GB, and 12 documents
    naming one chapter of them 31 s (sweep 41)."""
    from crparse.readers.rst import markup_work

    if shape == "classifiers":
        text = "".join("term " + " : c" * 2000 + "\n   Its definition.\n\n" for _ in range(3))
    else:
        text = "".join(" ".join(f"urn:x{n}" for n in range(40)) + "\n\n" for _ in range(30))
    assert markup_work(text) > 10 * len(text)  # it was about their length
    big = tmp_path / "big.rst"
    big.write_text(text * (100 if shape == "classifiers" else 60))  # 2.4 MB, 1.3 MB
    result = run_limited(["parse", str(big)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 5, (result.seconds, result.stderr)
    said = "term classifiers" if shape == "classifiers" else "inline markup characters"
    assert said in result.stderr.decode(), result.stderr


def test_a_paragraph_of_uris_is_refused_as_one_of_markup_not_of_nesting(tmp_path):
    path = tmp_path / "urns.rst"
    path.write_text("100. General\n\n100.1. " + " ".join(f"urn:x{n}" for n in range(1000)) + "\n")
    with pytest.raises(crparse.RefusedInput, match="paragraph with more than 512 inline markup characters"):
        crparse.parse(path)


@pytest.mark.parametrize("dash", ["--", "\u2014"])
def test_a_quote_of_thousands_of_attributions_is_refused_before_docutils(tmp_path, dash):
    """docutils splits a block quote at each attribution and reads the rest of it again: 4,000
    in one took 5.7 s and 1.15 GB for 67 KB (sweep 42)."""
    path = tmp_path / "quotes.rst"
    path.write_text("100. General\n\n100.1. One.\n\n100.2. Two.\n\n"
                    + "".join(f"  q{n}\n\n  {dash} a\n\n" for n in range(4000)))
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"block quote with more than 300 attributions" in result.stderr


@pytest.mark.parametrize("before", ["P::\n", ".. note::\n\n", ""])
def test_a_quote_of_attributions_is_refused_after_a_directive_or_a_paragraph_with_no_literal_block(before):
    """A paragraph ending in "::" with no blank line after it starts no literal block: docutils
    reads the indented lines as a quote."""
    text = "100. General\n\n100.1. One.\n\n100.2. Two.\n\n" + before + "".join(
        f"    q{n}\n\n    -- a\n\n" for n in range(400))
    with pytest.raises(crparse.RefusedInput, match="block quote with more than 300 attributions"):
        crparse.parse(text.encode(), format="rst")


@pytest.mark.parametrize("shape", ["quotes", "wrapped", "literal"])
def test_dashes_that_are_no_attributions_of_one_quote_are_read(shape):
    """Counted in the whole file and in every context, 400 one-attribution quotes, 400 wrapped
    lines starting "---" and a literal block of 400 "-- comment" lines were refused (review)."""
    head = "100. General\n\n100.1. One.\n\n100.2. Two.\n\n"
    body = {"quotes": "".join(f"100.{n}. Rule.\n\n  A quote.\n\n  -- Someone\n\n" for n in range(3, 403)),
            "wrapped": "".join(f"100.{n}. Rule\n  --- wrapped.\n\n" for n in range(3, 403)),
            "literal": "100.3. For example::\n\n" + "".join(f"  -- comment {n}\n" for n in range(400))}[shape]
    doc = crparse.parse((head + body).encode(), format="rst")
    assert doc.rule("100.3") is not None and len(doc.rules) == (4 if shape == "literal" else 403)


def _role_chain(depth: int, uses: int) -> str:
    # as docutils reads them too: the names on the next line, spaces, capitals
    forms = (".. role:: r{n}(r{m})", ".. role::\n   r{n}(r{m})", "..  ROLE::  R{n} ( r{m} )")
    roles = ".. role:: r0(emphasis)\n\n" + "".join(forms[n % 3].format(n=n, m=n - 1) + "\n\n" for n in range(1, depth))
    return "100. General\n\n100.1. One.\n\n" + roles + "100.2. Two " + f":r{depth - 1}:`x` " * uses + "\n"


def test_a_role_based_on_roles_many_deep_is_refused_before_docutils(tmp_path):
    """Each use of a role calls the role it is based on, and that one its own: 4,800 uses of a role
    475 bases deep, 60 KB, took 3.3 s, and six such documents 18-27 s (sweep 43)."""
    path = tmp_path / "roles.rst"
    path.write_text(_role_chain(475, 20) + f"\nP {':r474:`x` ' * 4}\n" * 1200)
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"role based on roles more than 8 deep" in result.stderr
    doc = crparse.parse(_role_chain(8, 20).encode(), format="rst")
    assert doc.rule("100.2").title.startswith("Two x x")  # the role read


def test_a_refusal_for_undefined_substitutions_reads_as_a_sentence(tmp_path):
    path = tmp_path / "subs.rst"
    path.write_text("Rules\n=====\n\n100. General\n\n" + "".join(f"100.{n}. a |s{n}| b\n\n" for n in range(1, 3201)))
    with pytest.raises(crparse.RefusedInput, match="reads in time with the definitions of its 3,200 undefined"):
        crparse.parse(path)


@pytest.mark.parametrize("markup", ["`a{}x`_", ":ref:`a{}x`", "`a{}x <t_>`_"])
def test_runs_of_spaces_in_a_reference_are_charged_their_square(tmp_path, markup):
    """docutils looks for a phrase reference's embedded target with a pattern that runs over the
    rest of a run of spaces from each of its spaces, and crparse's own patterns for an unresolved
    reference and its `ref` role did too: 10 lines of 1,240 tabs (9,920 columns each) took 17 s,
    and 200 such lines in a `:ref:` 20 s (sweep 44)."""
    lines = "".join("\ny" + "\t" * 1240 + "z" for _ in range(30))
    path = tmp_path / "runs.rst"
    path.write_text("100. General\n\n100.1. One.\n\n100.2. See " + markup.format(lines) + ".\n\n100.3. Three.\n")
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"more reStructuredText markup than docutils reads in time" in result.stderr
    short = "".join("\ny" + " " * 200 + "z" for _ in range(3))
    doc = crparse.parse(("100. General\n\n100.1. One.\n\n100.2. See " + markup.format(short) + ".\n").encode(),
                        format="rst")
    assert doc.rule("100.2").text.startswith("See a y" + " " * 200 + "z y"), doc.rule("100.2").text


@pytest.mark.parametrize("unit", ["a-", "-", "/", "{", "'", "a:", "\u2010"])
def test_long_words_of_delimiters_are_charged_what_docutils_does_with_them(tmp_path, unit):
    """docutils tries its pattern for standalone URIs and addresses from each delimiter of a word,
    to the word's end: 401 KB of lines of "a-a-a-...", 2,250 characters each, took 18 s (sweep 45)."""
    path = tmp_path / "words.rst"
    path.write_text("100. General\n\n" + "".join(f"100.{k}. Rule " + (unit * 2250)[:2250] + "\n\n" for k in range(1, 41)))
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"more reStructuredText markup than docutils reads in time" in result.stderr


@pytest.mark.parametrize("word", ["w" * 9000, "\U0001f600" * 2000, "https://example.com/" + "a/" * 40])
def test_long_words_without_many_delimiters_are_read(word):
    doc = crparse.parse(("100. General\n\n100.1. See " + word + " here.\n\n100.2. Two.\n").encode(), format="rst")
    assert word in doc.rule("100.1").text


@pytest.mark.parametrize("opener", ["`", "*", "|"])
def test_a_long_paragraph_of_unmatched_start_strings_is_charged_its_scans(tmp_path, opener):
    """docutils looks for each start-string's end in the rest of its paragraph: 8 paragraphs of
    500 unmatched openers, each before 1 KB of words (4 MB), took 23 s (sweep 46)."""
    paragraph = "".join(opener + "a " + "word " * 200 + "\n" for _ in range(500)) + "\n"
    path = tmp_path / "openers.rst"
    path.write_text("100. General\n\n100.1. One.\n\n100.2. Two.\n\n" + paragraph * 2)
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"more reStructuredText markup than docutils reads in time" in result.stderr


@pytest.mark.parametrize("border", ["= " * 39, "+" + "-+" * 39])
def test_a_tall_table_of_borders_is_charged_its_cells(tmp_path, border):
    """A border under a border is a row of cells to docutils: 50,000 simple-table borders of 39
    columns (4 MB) took 22 s and 1.5 GB; grid-table borders ~600x their size (sweep 46)."""
    path = tmp_path / "borders.rst"
    path.write_text("100. General\n\n100.1. One.\n\n100.2. Two.\n\n" + (border + "\n") * 20_000 + "\n100.3. End.\n")
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert b"table cells" in result.stderr
