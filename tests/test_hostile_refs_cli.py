"""Hostile input for the reference layer (crparse/refs/) and for what the CLI writes out.

Each class of the hostile-input sweep, run as a user runs crparse, in a child under
tests/limits.py's limits (1 GiB of address space, 15 s): many references on one line (their
line numbers), glossary pointers that never end, lines built to make a regex backtrack,
cite-check over large files, and text or file names that UTF-8, XML or a one-line message
cannot hold as they are.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from limits import run_limited

import crparse

MIB = 1 << 20
# These tests measure how time and output grow with the input, past the default limits on
# input size and reference count (crparse.limits), which refuse such files long before.
LARGE_INPUT = {"CRPARSE_MAX_INPUT": "64M"}
MANY_REFERENCES = {"CRPARSE_MAX_REFERENCES": "4M"}


def cr(rule: str = "Text.", glossary: str = "", front: str = "") -> str:
    """A small CR: two sections' worth of rules, `rule` as the text of 100.3, `glossary` as one
    more entry's definition, `front` as a paragraph of the introduction."""
    return (
        "Magic: The Gathering Comprehensive Rules\n\n"
        + (f"Introduction\n\n{front}\n\n" if front else "")
        + "1. Game Concepts\n\n100. General\n\n100.1. Text.\n\n100.2. Text.\n\n"
        + f"100.3. {rule}\n\n"
        + "101. The Magic Golden Rules\n\n101.1. Text.\n\n"
        + "Glossary\n\nAbility\nText on an object.\n\nCycling\nA keyword.\n\n"
        + (f"Hostile\n{glossary}\n\n" if glossary else "")
        + "Typecycling\nSee Cycling.\n\nCredits\n\nSomebody\n"
    )


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def valid_utf8(data: bytes) -> str:
    return data.decode("utf-8")  # raises on anything that is not


def assert_ok(result, *codes: int) -> None:
    assert result.ok_within_limits, (result.returncode, result.seconds, result.peak_mib, result.stderr[-2000:])
    assert result.returncode in (codes or (0,)), result.stderr[-2000:]


# -- 1. many references on one line: line numbers from one table, linear overall --------------

LINE_OF_REFERENCES = {
    "rule": lambda n: cr(rule="See " + ", ".join(["rule 100.1"] * n) + "."),
    "glossary": lambda n: cr(glossary="See " + ", ".join(["rule 100.2"] * n) + "."),
    "front matter": lambda n: cr(front="See " + ", ".join(["rule 101.1"] * n) + "."),
}


@pytest.mark.parametrize("where", LINE_OF_REFERENCES)
def test_many_references_on_one_line_are_linear(tmp_path, where):
    """Each reference's line counted the line breaks from the start of its text again: 40,000
    references on a line took 8.7 s, 300,000 did not end in a minute."""
    timings = {}
    for n in (20_000, 80_000):
        path = write(tmp_path / f"{n}.txt", LINE_OF_REFERENCES[where](n))
        result = run_limited(["refs", path, "--json"], seconds=12, env=MANY_REFERENCES)
        assert_ok(result)
        assert json.loads(result.stdout)["references"] >= n
        timings[n] = result.cpu_seconds
    # 4x the references: ~4x the time (plus start-up); the square would be 16x.
    assert timings[80_000] < 8 * timings[20_000], timings


def test_line_numbers_of_many_references_stay_right():
    lines = ["rule 100.1, " * 500 + "rule 100.2.", "rule 101.1 " * 300 + "and rule 100.1."]
    doc = crparse.parse(cr(rule="\n".join(lines), front="\n".join(lines), glossary="\n".join(lines)))
    refs = crparse.references(doc)
    for source in ("100.3", "front_matter:", "glossary:Hostile"):
        own = [r for r in refs if r.source.startswith(source)]
        assert len(own) == 500 + 1 + 300 + 1, source
        first_line = own[0].line
        assert [r.line for r in own] == [first_line] * 501 + [first_line + 1] * 301, source


# -- 2. glossary pointers: bounded by the grammar, JSON linear in the input ---------------------

POINTERS = {
    "parenthesis": "See Ab) ",  # a ")" did not end the term: each pointer ran to the end of the line
    "sentences": "See Ab. ",
    "quoted": "See “Ab. See ",  # a quoted term holding the next "See"
    "straight quotes": 'See "Ab" and ',
    "list": "See Ab, Cd, and ",
    "no end": "See Ab Cd ",
}


@pytest.mark.parametrize("kind", POINTERS)
def test_pointer_json_is_linear_in_the_input(tmp_path, kind):
    """A 40 KB line of pointers took 15 s and 1.7 GB and wrote 402 MB of JSON."""
    sizes = {}
    for size in (100_000, 400_000):
        unit = POINTERS[kind]
        path = write(tmp_path / f"{size}.txt", cr(glossary=unit * (size // len(unit)) + "Ab."))
        result = run_limited(["parse", "--json", path], seconds=12, env=MANY_REFERENCES)
        assert_ok(result)
        json.loads(result.stdout)
        sizes[size] = len(result.stdout)
    assert sizes[400_000] < 4.5 * sizes[100_000], sizes
    assert sizes[400_000] < 200 * 400_000, sizes


def pointer_texts(definition: str) -> list[str]:
    doc = crparse.parse(cr(glossary=definition))
    return [r.text for r in crparse.references(doc) if r.source == "glossary:Hostile"]


def test_a_pointer_ends_at_a_parenthesis_and_at_the_sentence():
    assert pointer_texts("A thing (see rule 100.1). See Cycling) and more text. See Ability. And so on.") == [
        "rule 100.1",
        "Cycling",
        "Ability",
    ]


def test_a_pointer_names_a_bounded_number_of_terms_of_bounded_length():
    many = pointer_texts("See " + ", ".join(["Ability"] * 1000) + ".")
    assert 0 < len(many) and all(len(text) < 2_000 for text in many)
    doc = crparse.parse(cr(glossary="See " + ", ".join(["Ability"] * 1000) + "."))
    cited = [c for r in crparse.references(doc) if r.source == "glossary:Hostile" for c in r.cited]
    assert len(cited) <= 16 * len(many)
    assert pointer_texts("See " + "Abcdefghij " * 500 + "and Cycling.") == []  # a 5,000-character "term"


def test_a_wide_range_costs_its_members_not_their_square(tmp_path):
    """Each reference's targets were gathered testing membership in a list: 300 ranges over
    2,000 rules took a minute to write out."""
    lines = ["Magic: The Gathering Comprehensive Rules", "", "1. Game Concepts", ""]
    for section in range(100, 120):
        lines += [f"{section}. Section {section}", ""]
        lines += [line for rule in range(1, 100) for line in (f"{section}.{rule}. Text.", "")]
    lines += ["190. Last", "", "190.1. See " + ", ".join(["rules 100.1–119.99"] * 300) + ".", ""]
    path = write(tmp_path / "cr.txt", "\n".join(lines) + "\nGlossary\n\nAbility\nText.\n\nCredits\n\nSomebody\n")
    result = run_limited(["parse", "--json", path], env=MANY_REFERENCES)  # 594,000 rules cited: past the default
    assert_ok(result)
    refs = json.loads(result.stdout)["references"]
    assert len(refs) == 300 and all(len(r["targets"]) == 20 * 99 for r in refs)
    refused = run_limited(["parse", "--json", path])
    assert_ok(refused, 2)
    assert b"citing more than 100,000 rules or glossary terms in all" in refused.stderr and b"CRPARSE_MAX_REFERENCES" in refused.stderr


def test_rules_cited_by_ranges_count_towards_a_limit_in_cite_check_too(tmp_path):
    """A sweep found 20,000 `rules 100.1a-905.4z` (each 2,000 rules) crash the process (SIGSEGV)
    and 45,000 raise MemoryError: each range is a record per rule it names."""
    cr_path = write(tmp_path / "cr.txt", cr())
    flood = write(tmp_path / "ranges.c", "// CR 100.1-101.1\n" * 40)
    result = run_limited(["cite-check", "--cr", cr_path, flood], env={"CRPARSE_MAX_REFERENCES": "50"})
    assert_ok(result, 2)
    assert f"{flood}:26: references citing more than 100 rules or glossary terms".encode() in result.stderr, result.stderr


# -- 3. no catastrophic backtracking: adversarial 5 MB lines ------------------------------------

FIVE_MB = 5 * MIB


def line_of(unit: str, prefix: str = "", size: int = FIVE_MB) -> str:
    return prefix + unit * ((size - len(prefix)) // len(unit)) + "x"


ADVERSARIAL = {
    "unclosed straight quote": line_of("x ", 'rule 100.1, "'),
    "unclosed curly quote": line_of("x ", "rule 100.1, “"),
    "quote openers": line_of('"a ', "rule 100.1 "),
    "quotes": line_of('"', "rule 100.1 "),
    "digits": line_of("1234567890"),
    "digits after a number": line_of("1234567890", "rule 100."),
    "dots": line_of("."),
    "dotted digits": line_of("1."),
    "dashes": line_of("-", "rule 100.1"),
    "dash spaces": line_of("- ", "rule 100.1"),
    "rule rule rule": line_of("rule "),
    "rule then spaces": line_of(" ", "rule"),
    "See See": line_of("See "),
    "See spaces": line_of(" ", "See Ability"),  # blanks inside a pointer's term
    "See tabs": line_of("\t", "See Ability"),
    "See unclosed quote": line_of("A ", 'See "'),
    "See unclosed curly quote": line_of("A ", "See “"),
    "spaces after a number": line_of(" ", "rule 100.1"),
    "spaces after a comma": line_of(" ", "rule 100.1,"),
    "through": line_of(" ", "rule 100.1 through"),
    "comment markers": line_of("# // -- ;; /* "),
    "CR CR": line_of("CR "),
    "and/or": line_of("and/or ", "CR 100.1 "),
}


@pytest.mark.parametrize("kind", ADVERSARIAL)
def test_adversarial_line_in_a_rule_and_a_glossary_entry(tmp_path, kind):
    """A 5 MB line with one unclosed quote took 1.1 GB (a lazy repeat over the whole line);
    blanks after a pointer's term were read again from each position (cubic)."""
    line = ADVERSARIAL[kind]
    path = write(tmp_path / "cr.txt", cr(rule=line, glossary=line))
    result = run_limited(["refs", path, "--json"], env=LARGE_INPUT)
    assert_ok(result)
    assert len(result.stdout) < 10_000  # no reference, and no node it names, spans the line


@pytest.mark.parametrize("kind", ADVERSARIAL)
def test_adversarial_line_in_cite_check(tmp_path, kind):
    path = write(tmp_path / "code.txt", "// see CR 100.1\n" + ADVERSARIAL[kind] + "\n")
    result = run_limited(["cite-check", path, "--cr", write(tmp_path / "cr.txt", cr())], env={**LARGE_INPUT, **MANY_REFERENCES})
    assert_ok(result, 0, 1)


# -- 4. cite-check: linear, with a small constant ------------------------------------------------


def test_cite_check_of_large_files_is_linear_and_cheap(tmp_path):
    """A per-character Python loop made 100 MB of digits take 26 s."""
    release = write(tmp_path / "cr.txt", cr())
    timings = {}
    for mib in (5, 20):
        path = tmp_path / f"{mib}.txt"
        path.write_bytes(b"1234567890" * (mib * MIB // 10))
        result = run_limited(["cite-check", str(path), "--cr", release], seconds=10, env={**LARGE_INPUT, **MANY_REFERENCES})
        assert_ok(result)
        timings[mib] = result.cpu_seconds
    per_mib = (timings[20] - timings[5]) / 15
    assert per_mib < 0.05, timings  # seconds for each further MiB: C speed, not a Python loop
    assert timings[20] < 4 * timings[5] + 1, timings


def test_cite_check_line_and_column_over_many_lines(tmp_path):
    release = write(tmp_path / "cr.txt", cr())
    lines = ["x" * 50] * 100_000
    lines[70_000] = "    // CR 999.1 here, and CR 100.1 and CR 998.1"
    path = write(tmp_path / "code.txt", "\n".join(lines))
    result = run_limited(["cite-check", path, "--cr", release, "--json", "--all"], env={**LARGE_INPUT, **MANY_REFERENCES})
    assert_ok(result, 1)
    found = [json.loads(line) for line in valid_utf8(result.stdout).splitlines()]
    assert [(c["line"], c["column"], c["text"]) for c in found] == [
        (70_001, 8, "CR 999.1"),
        (70_001, 27, "CR 100.1"),
        (70_001, 40, "CR 998.1"),
    ]


# -- 5. output is always valid -------------------------------------------------------------------

# A reader may hand on a lone surrogate (an RTF `\u-10240?`): the child's parse puts one into the
# title, a rule and the source lines, as such a reader would.
WITH_SURROGATES = """
import crparse, msgspec
parse, lines = crparse.parse, crparse.source_lines
def with_surrogates(*args, **kwargs):
    doc = parse(*args, **kwargs)
    rules = tuple(msgspec.structs.replace(r, title=r.title + "\\ud800", text=r.text + " \\ud800 rule 999.1") for r in doc.rules)
    return msgspec.structs.replace(doc, title="Rules \\udfff", rules=rules)
crparse.parse = with_surrogates
crparse.source_lines = lambda *a, **k: [line + "\\ud800" for line in lines(*a, **k)]
"""


COMMANDS = [
    ["parse", "--json", "PATH"],
    ["parse", "PATH"],
    ["text", "PATH"],
    ["refs", "--graph", "json", "PATH"],
    ["refs", "--graph", "graphml", "PATH"],
    ["refs", "PATH", "100.1"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_lone_surrogate_in_the_text_is_written_as_replacement_character(tmp_path, command):
    path = write(tmp_path / "cr.txt", cr())
    cli = "import sys\nfrom crparse.cli.main import main\nsys.argv[0] = 'crparse'\nsys.exit(main())"
    result = run_limited([path if a == "PATH" else a for a in command], code=WITH_SURROGATES + cli)
    assert_ok(result, 0, 1)
    out = valid_utf8(result.stdout)
    valid_utf8(result.stderr)
    assert "\ufffd" in out
    if "graphml" in command:
        ET.fromstring(result.stdout)
    if command == ["parse", "--json", "PATH"]:
        data = json.loads(out)
        assert data["title"] == "Rules \ufffd"
        assert [d["code"] for d in data["diagnostics"]].count("lone-surrogates") == 1
        assert data["counts"]["diagnostics"] == len(data["diagnostics"])


def test_library_json_holds_no_lone_surrogate():
    import msgspec

    doc = crparse.parse(cr())
    doc = msgspec.structs.replace(doc, title="A\ud800B")
    text = crparse.to_json(doc)
    text.encode("utf-8")
    assert json.loads(text)["title"] == "A\ufffdB"


def test_text_given_with_a_lone_surrogate_reads_it_as_a_replacement_character():
    """parse(str) wrote it as "?", which a text may hold itself, without a word (sweep 37)."""
    doc = crparse.parse(cr(rule="A rule, host\ud800ile."))
    assert doc.rule("100.3").text == "A rule, host\ufffdile."
    assert "replacement-characters" in [d.code for d in doc.diagnostics]


def test_graphml_with_control_characters_is_well_formed_xml(tmp_path):
    text = cr(glossary="See Cycling.").replace("100. General", "100. Gen\x01eral").replace("Hostile\n", "Host\x02ile\n")
    path = write(tmp_path / "cr.txt", text)
    result = run_limited(["refs", path, "--graph", "graphml"])
    assert_ok(result)
    root = ET.fromstring(result.stdout)
    names = {e.text for e in root.iter() if e.text}
    assert "Gen\ufffderal" in names and "Host\ufffdile" in names


def non_utf8_batch(tmp_path: Path) -> Path:
    folder = tmp_path / "batch"
    folder.mkdir()
    (folder / os.fsdecode(b"a\xff.txt")).write_text(cr(), encoding="utf-8")
    (folder / "b.txt").write_text(cr(), encoding="utf-8")
    (folder / "c.txt").write_text("not the rules\n", encoding="utf-8")
    return folder


STDOUT_ENCODINGS = {"UTF-8, strict": {"PYTHONIOENCODING": "utf-8"}, "C locale": {"LC_ALL": "C"}}


@pytest.mark.parametrize("encoding", STDOUT_ENCODINGS)
@pytest.mark.parametrize("json_output", [False, True])
def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path, monkeypatch, encoding, json_output):
    """One bad file in a batch gets its one-line refusal; the others, the one whose name is not
    UTF-8 among them, are still written, as valid UTF-8."""
    monkeypatch.delenv("PYTHONIOENCODING", raising=False)
    folder = non_utf8_batch(tmp_path)
    result = run_limited(["parse", *(["--json"] if json_output else []), str(folder)], env=STDOUT_ENCODINGS[encoding])
    assert_ok(result, 2)
    out, err = valid_utf8(result.stdout), valid_utf8(result.stderr)
    if json_output:
        paths = [json.loads(line)["source"]["path"] for line in out.splitlines()]
        assert paths == [str(folder / "a\\xff.txt"), str(folder / "b.txt")]
    else:
        assert f"{folder}/a\\xff.txt: text" in out and f"{folder}/b.txt: text" in out
    assert err.count("\n") == 1 and "c.txt" in err


@pytest.mark.parametrize("encoding", STDOUT_ENCODINGS)
def test_refs_and_cite_check_show_a_non_utf8_name_escaped(tmp_path, monkeypatch, encoding):
    monkeypatch.delenv("PYTHONIOENCODING", raising=False)
    folder = non_utf8_batch(tmp_path)
    bad = str(folder / os.fsdecode(b"a\xff.txt"))
    code = tmp_path / os.fsdecode(b"code\xfe.py")
    code.write_text("x = 1  # CR 999.1\n", encoding="utf-8")
    env = STDOUT_ENCODINGS[encoding]
    runs = [
        (run_limited(["refs", bad], env=env), 0),
        (run_limited(["cite-check", str(code), "--cr", bad], env=env), 1),
        (run_limited(["cite-check", str(code), "--cr", bad, "--json"], env=env), 1),
        (run_limited(["cite-check", str(tmp_path / os.fsdecode(b"gone\\xfd.py")), "--cr", bad], env=env), 2),
    ]
    for result, status in runs:
        assert_ok(result, status)
        shown = valid_utf8(result.stdout) + valid_utf8(result.stderr)
        assert any(f"\\x{byte}" in shown for byte in ("ff", "fe", "fd")), shown


def test_diff_and_docs_of_a_release_named_not_utf8(tmp_path):
    """diff --json and a site of several releases, one named "r\\xff.txt": exit 3 (msgspec and the
    site's change pages refused the lone surrogate: sweep 14)."""
    folder = tmp_path / "two"
    folder.mkdir()
    old = folder / os.fsdecode(b"2020-01-01 r\xff.txt")
    old.write_text(cr(), encoding="utf-8")
    (folder / "2020-06-01.txt").write_text(cr(rule="Changed."), encoding="utf-8")
    result = run_limited(["diff", str(old), str(folder / "2020-06-01.txt"), "--json"])
    assert_ok(result, 1)
    assert json.loads(valid_utf8(result.stdout))["old"]["path"] == str(folder / "2020-01-01 r\\xff.txt")
    result = run_limited(["docs", str(folder), "-o", str(tmp_path / "site")])
    assert_ok(result, 0)


def test_a_line_break_in_a_file_name_keeps_each_message_one_line(tmp_path):
    odd = tmp_path / "two\nlines\r\x1b[2Jname.txt"
    odd.write_text("not the rules\n", encoding="utf-8")
    for args in (
        ["parse", str(odd)],
        ["text", str(tmp_path / "missing\nfile.txt")],
        ["refs", str(odd)],
        ["cite-check", str(odd), "--cr", str(odd)],
    ):
        result = run_limited(args)
        assert_ok(result, 2)
        err = valid_utf8(result.stderr)
        assert err.count("\n") == 1 and "\\n" in err and "\x1b" not in err, err


def test_an_error_writing_one_document_does_not_stop_the_batch(tmp_path, monkeypatch, capsys):
    from crparse.cli import main as cli

    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(cr(), encoding="utf-8")
    write_out = cli._write

    def failing(data: bytes) -> None:
        if b"b.txt" in data[:300]:
            raise ValueError("cannot write\nthis one")
        write_out(data)

    monkeypatch.setattr(cli, "_write", failing)
    assert cli.main(["parse", "--json", str(tmp_path)]) == 3
    out, err = capsys.readouterr()
    assert [json.loads(line)["source"]["path"] for line in out.splitlines()] == [
        str(tmp_path / "a.txt"),
        str(tmp_path / "c.txt"),
    ]
    assert err.count("\n") == 1 and "b.txt" in err and "ValueError" in err


# -- 7. a flood of references: bounded, refused with the limit named ---------------------------


def test_references_past_the_limit_are_refused_naming_file_line_and_setting(tmp_path, monkeypatch):
    path = write(tmp_path / "flood.txt", cr(rule="See " + ", ".join(["rule 100.1"] * 30) + "."))
    doc = crparse.parse(path)
    monkeypatch.setenv("CRPARSE_MAX_REFERENCES", "20")
    with pytest.raises(crparse.errors.RefusedInput) as refused:
        crparse.references(doc)
    message = str(refused.value)
    assert message.startswith(f"{path}:11: more than 20 references") and "CRPARSE_MAX_REFERENCES" in message, message
    monkeypatch.setenv("CRPARSE_MAX_REFERENCES", "40")  # raised: read in full
    assert len(crparse.references(doc)) == 31  # the 30 and the glossary's "See Cycling."


def test_glossary_pointers_count_towards_the_limit(tmp_path, monkeypatch):
    entries = "".join(f"Term{i}\nSee Cycling.\n\n" for i in range(30))
    path = write(tmp_path / "pointers.txt", cr().replace("Credits", entries + "Credits"))
    monkeypatch.setenv("CRPARSE_MAX_REFERENCES", "20")
    with pytest.raises(crparse.errors.RefusedInput, match="more than 20 references"):
        crparse.references(crparse.parse(path))


def test_cite_check_refuses_a_flood_of_citations_and_goes_on_with_the_next_file(tmp_path):
    cr_path = write(tmp_path / "cr.txt", cr())
    flood = write(tmp_path / "flood.c", "// " + " ".join(["rule 100.1,"] * 60) + "\n")
    fine = write(tmp_path / "fine.c", "// see rule 100.2 and rule 999.9\n")
    result = run_limited(["cite-check", "--cr", cr_path, flood, fine], env={"CRPARSE_MAX_REFERENCES": "50"})
    assert_ok(result, 2)
    assert f"{flood}:1: more than 50 references".encode() in result.stderr, result.stderr
    assert b"999.9" in result.stdout  # the next file was still checked


def test_a_cite_check_run_reads_a_bounded_number_of_citations_in_all(tmp_path):
    """Each file is held to CRPARSE_MAX_REFERENCES, but a run was not: 30 files of 49,800
    citations each took 22 s (sweep 27). Past RUN_REFERENCES_FACTOR times it in all, the run
    stops before the next file, saying which, in one line."""
    from crparse.cli.refs import RUN_REFERENCES_FACTOR

    cr_path = write(tmp_path / "cr.txt", cr())
    (tmp_path / "dir").mkdir()
    for n in range(RUN_REFERENCES_FACTOR + 3):
        write(tmp_path / "dir" / f"c{n}.c", "// see rule 100.1 and rule 999.9\n" * 20)
    result = run_limited(["cite-check", "--cr", cr_path, str(tmp_path / "dir")], env={"CRPARSE_MAX_REFERENCES": "40"})
    assert_ok(result, 2)
    lines = result.stderr.decode().splitlines()
    assert lines[0] == (f"crparse: cite-check: stopped at {tmp_path / 'dir' / f'c{RUN_REFERENCES_FACTOR}.c'}, not "
                        f"checked, nor any after it: the files before it hold {40 * RUN_REFERENCES_FACTOR} citations, "
                        f"the most one run reads ({RUN_REFERENCES_FACTOR} times CRPARSE_MAX_REFERENCES, 40): check the "
                        "rest in another run, or raise it"), lines
    assert lines[1] == f"{40 * RUN_REFERENCES_FACTOR} citations in {RUN_REFERENCES_FACTOR} files; " \
                       f"{20 * RUN_REFERENCES_FACTOR} stale against the CR of {cr_path}"


def test_cite_check_counts_the_binary_files_a_walk_passes_over(tmp_path):
    """A file of citations padded with NULs, met in a directory, was passed over without a word
    (sweep 28): the summary counts such files."""
    cr_path = write(tmp_path / "cr.txt", cr())
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "notes.txt").write_bytes(b"see rule 999.9\n" * 20 + b"\0" * 8192)
    write(tmp_path / "dir" / "ok.txt", "see rule 100.1\n")
    result = run_limited(["cite-check", "--cr", cr_path, str(tmp_path / "dir")])
    assert_ok(result, 0)
    assert result.stderr.decode().splitlines() == [
        f"1 citations in 1 files (1 binary file(s) in the directories passed over); 0 stale against the CR of {cr_path}"]


def test_cite_check_reads_within_the_input_size_limit(tmp_path):
    cr_path = write(tmp_path / "cr.txt", cr())
    large = write(tmp_path / "large.c", "// rule 100.1\n" * 200)
    result = run_limited(["cite-check", "--cr", cr_path, large], env={"CRPARSE_MAX_INPUT": "1000"})
    assert_ok(result, 2)
    assert b"larger than the 1000 bytes limit" in result.stderr and b"CRPARSE_MAX_INPUT" in result.stderr, result.stderr


def test_places_that_only_look_like_references_count_towards_a_limit(tmp_path, monkeypatch):
    """"rules 1, rules 1, ..." holds no reference, but each keyword is read as a possible start
    (a run of tokens each): 4 MB of it took 40 s before the places read were counted."""
    path = write(tmp_path / "anchors.txt", cr(rule="See " + ", ".join(["rules 1"] * 30) + "."))
    doc = crparse.parse(path)
    assert len(crparse.references(doc)) == 1  # only the glossary's "See Cycling."
    monkeypatch.setenv("CRPARSE_MAX_REFERENCES", "10")  # twice that: 20 places
    with pytest.raises(crparse.errors.RefusedInput) as refused:
        crparse.references(doc)
    message = str(refused.value)
    assert message.startswith(f"{path}:11: more than 20 places that read like references"), message
    assert "CRPARSE_MAX_REFERENCES" in message


def test_cite_check_counts_places_that_only_look_like_citations(tmp_path):
    cr_path = write(tmp_path / "cr.txt", cr())
    flood = write(tmp_path / "flood.c", "x\n// " + " ".join(["rules 1,"] * 60) + "\n")
    result = run_limited(["cite-check", "--cr", cr_path, flood], env={"CRPARSE_MAX_REFERENCES": "20"})
    assert_ok(result, 2)
    assert f"{flood}:2: more than 40 places that read like references".encode() in result.stderr, result.stderr


def test_a_line_of_anchors_at_the_input_limit_is_refused_quickly(tmp_path):
    line = "100.1. " + "rules 1, " * (4 * MIB // 9 - 1000)
    path = write(tmp_path / "anchors.txt", cr(rule=line))
    result = run_limited(["refs", "--json", path], seconds=10)
    assert_ok(result, 2)
    assert b"places that read like references" in result.stderr


def test_cite_check_refusing_its_only_file_says_one_line(tmp_path):
    cr_path = write(tmp_path / "cr.txt", cr())
    result = run_limited(["cite-check", "--cr", cr_path, str(tmp_path / "missing.c")])
    assert_ok(result, 2)
    assert result.stderr.count(b"\n") == 1 and b"missing.c" in result.stderr, result.stderr


def test_glossary_pointers_count_towards_the_cited_limit(tmp_path):
    """24,000 "See also" entries of 17 terms each: 400,000 edges, 20 s as GraphML (sweep 12)."""
    head = (Path(__file__).parent / "fixtures" / "modern.txt").read_text(encoding="utf-8").rsplit("\nGlossary\n", 1)[0]
    entries = "".join(f"T{i}\nSee also " + ", ".join(f"T{i + j}" for j in range(1, 17)) + f", and T{i + 17}.\n\n"
                      for i in range(8_000))
    path = tmp_path / "pointers.txt"
    path.write_text(head + "\nGlossary\n\n" + entries)
    result = run_limited(["refs", str(path), "--graph", "graphml"], seconds=15, env={"CRPARSE_MAX_REFERENCES": "20000"})
    assert result.ok_within_limits and result.returncode == 2, (result.returncode, result.stderr[-300:])
    assert b"citing more than 40,000 rules or glossary terms" in result.stderr, result.stderr[-300:]


@pytest.mark.parametrize("arguments", [
    lambda doc: ["refs", doc, "1" * 100_000],
    lambda doc: ["cite-check", "--since", "2" * 100_000, "--cr", doc, doc],
])
def test_an_argument_echoed_in_a_refusal_is_cut_short(tmp_path, arguments):
    """A rule or a date of 100,000 digits was echoed whole: a 100 KB message line (sweep 27)."""
    result = run_limited(arguments(write(tmp_path / "cr.txt", cr())))
    assert result.returncode == 2, result.stderr[-500:]
    message = result.stderr.decode("utf-8")
    assert message.count("\n") == 1 and len(message) < 600 and "... (100,000 characters)" in message, message[:700]
