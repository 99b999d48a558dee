"""Hostile reST editions: a reST edition is an `index.rst` whose `.. toctree::` names the other
files, so the input itself says which files get read. It may only name files inside the
edition's own directory tree, and only regular files of bounded size; nothing else the markup
names (`.. include::`, `.. raw:: :file:`, a `:url:`) is opened. docutils' own messages about
the markup (unknown roles and directives) are diagnostics, never text.

The cases that could hang or eat the machine (a FIFO, /dev/zero) run the CLI in a child under
the limits of tests/limits.py. Every fixture is written here, in tmp_path."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from limits import run_limited

import crparse
from crparse.readers import rst

SECRET = "LEAKED-SECRET-7f3a"

RULES = """\
*****************
Multiplayer Rules
*****************

General
=======

800.1
-----

A multiplayer game is a game that begins with more than two players.

800.2
-----

Each player has a range of influence.
"""

OUTSIDE = f"""\
Secret Rules
============

999.1
-----

{SECRET} this file lies outside the edition.

999.2
-----

{SECRET} and must never be read.
"""


def edition(root: Path, *entries: str, rules: str = RULES) -> Path:
    """An edition in root/ed: index.rst listing `rules` and then `entries`; a file outside it,
    root/outside/secret.rst, for the entries that try to leave."""
    ed = root / "ed"
    ed.mkdir(exist_ok=True)
    (ed / "rules.rst").write_text(rules)
    outside = root / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.rst").write_text(OUTSIDE)
    listed = "".join(f"    {e}\n" for e in ("rules", *entries))
    (ed / "index.rst").write_text(f"Comprehensive Rules\n###################\n\n.. toctree::\n    :maxdepth: 2\n\n{listed}")
    return ed / "index.rst"


def toctree_warnings(doc) -> list[str]:
    return [d.message for d in doc.diagnostics if d.code == "rst-toctree" and d.severity == "warning"]


def texts(doc) -> list[str]:
    """Every text the document gives as content: titles, rules, examples, glossary, front matter."""
    out = [doc.title or ""]
    for r in doc.rules:
        out += [r.title, r.text, *(e.text for e in r.examples)]
    for g in doc.glossary:
        out += [g.term, g.text, *g.senses, *(e.text for e in g.examples)]
    out += [b.text for b in doc.front_matter] + [c.title for c in doc.contents] + [c.text for c in doc.credits]
    return out


def rule_numbers(doc) -> list[str]:
    return [r.number for r in doc.rules if r.kind in ("rule", "subrule")]


# -- 1. confinement: only files inside the edition's directory ---------------------------------

def test_toctree_entries_leading_out_of_the_edition_are_refused(tmp_path):
    secret = tmp_path / "outside" / "secret.rst"
    index = edition(
        tmp_path,
        str(secret),                 # absolute, with its suffix
        str(secret.with_suffix("")),  # absolute, suffix left to the reader
        "../outside/secret",
        "sub/../../outside/secret",
        "link",                      # ed/link.rst -> ../outside/secret.rst
        "linkdir/secret",            # ed/linkdir -> ../outside
        "inside",                    # ed/sub/inside.rst through ed/inside.rst -> sub/inside.rst: stays inside
    )
    ed = index.parent
    (ed / "sub").mkdir()
    (ed / "sub" / "inside.rst").write_text("Inside\n======\n\n801.1\n-----\n\nA rule in a subdirectory.\n")
    (ed / "inside.rst").symlink_to(Path("sub") / "inside.rst")
    (ed / "link.rst").symlink_to(Path("..") / "outside" / "secret.rst")
    (ed / "linkdir").symlink_to(Path("..") / "outside", target_is_directory=True)

    doc = crparse.parse(index)
    assert not any(SECRET in t for t in texts(doc))
    assert not any(SECRET in r.text for r in doc.residue)
    assert "999.1" not in rule_numbers(doc)
    assert rule_numbers(doc) == ["800.1", "800.2", "801.1"]
    assert [Path(f.path).name for f in doc.source.files] == ["index.rst", "rules.rst", "inside.rst"]
    warnings = toctree_warnings(doc)
    assert len(warnings) == 6, warnings
    expected = [
        (str(secret), "absolute"), (str(secret.with_suffix("")), "absolute"),
        ("../outside/secret", "'..'"), ("sub/../../outside/secret", "'..'"),
        ("link", "symbolic link"), ("linkdir/secret", "symbolic link"),
    ]
    for message, (entry, why) in zip(warnings, expected):
        assert repr(entry) in message and why in message and "outside the edition" in message, message

    # The CLI prints none of it either, in any output.
    for args in (["parse", str(index)], ["parse", "--json", str(index)], ["parse", "-v", str(index)]):
        result = run_limited(args)
        assert result.ok_within_limits and result.returncode == 0, result.stderr
        assert SECRET.encode() not in result.stdout + result.stderr


# A child that records every file it opens and every network access it tries (audit hooks see
# open() and os.open() alike, whoever calls them: the reader, docutils, a library).
_AUDITED = """
import json, os
watched, seen = os.path.realpath(sys.argv[1]), []
def hook(event, args):
    # an O_PATH descriptor opens nothing to read (crparse.inputs.real_path resolves links with one)
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)) and not (args[2] or 0) & os.O_PATH:
        path = os.path.realpath(os.fsdecode(args[0]))
        if path.startswith(watched + os.sep):
            seen.append(path)
    elif event.startswith(("socket.", "urllib.", "subprocess.")) or event in ("os.system", "os.exec"):
        seen.append(event)
sys.addaudithook(hook)
import crparse
doc = crparse.parse(sys.argv[2])
print(json.dumps({"opened": sorted(set(seen)), "texts": [r.text for r in doc.rules] + [e.text for r in doc.rules for e in r.examples],
                  "diagnostics": [[d.line, d.code, d.message] for d in doc.diagnostics]}))
"""


def test_the_reader_opens_no_file_or_url_the_markup_names(tmp_path):
    """docutils reads files and URLs for include, raw and csv-table, and Sphinx's
    literalinclude and figures name more: none of them may be opened, inside the edition or
    out; only the confined toctree files are."""
    secret = tmp_path / "outside" / "secret.rst"
    url = "http://127.0.0.1:9/secret.rst"
    directives = f"""
800.3
-----

A rule before the directives.

.. include:: {secret}

.. include:: secret.rst

.. include:: <isonum.txt>

.. raw:: html
   :file: {secret}

.. raw:: html
   :url: {url}

.. csv-table:: Table
   :file: {secret}

.. csv-table:: Table
   :url: {url}

.. literalinclude:: {secret}

.. image:: {secret}

.. figure:: {secret}
   :figwidth: image

   A caption.

.. |sub| image:: {secret}

800.4
-----

A rule after them.
"""
    index = edition(tmp_path, str(secret), rules=RULES + directives)
    (index.parent / "secret.rst").write_text(OUTSIDE)  # inside the edition, but not in its toctree

    result = run_limited([str(tmp_path), str(index)], code=_AUDITED)
    assert result.ok_within_limits and result.returncode == 0, result.stderr.decode()
    out = json.loads(result.stdout)
    assert out["opened"] == sorted(str(p.resolve()) for p in (index, index.parent / "rules.rst"))
    assert not any(SECRET in t for t in out["texts"])
    markup = [m for _, code, m in out["diagnostics"] if code == "rst-markup"]
    for name in ("include", "raw", "csv-table", "literalinclude"):
        assert any(f'"{name}"' in m for m in markup), (name, markup)
    assert sum('"include" directive disabled' in m for m in markup) == 3
    assert any(code == "rst-toctree" and repr(str(secret)) in m for _, code, m in out["diagnostics"])


# -- 2. what a toctree file may be: a regular file, of bounded size -----------------------------

def test_a_toctree_fifo_is_skipped_not_waited_on(tmp_path):
    index = edition(tmp_path, "pipe", "folder")
    os.mkfifo(index.parent / "pipe.rst")
    (index.parent / "folder.rst").mkdir()
    result = run_limited(["parse", "--json", str(index)], seconds=10)
    print(f"FIFO: {result.seconds:.2f} s, peak {result.peak_mib:.0f} MiB, exit {result.returncode}")
    assert not result.timed_out, "blocked on the FIFO"
    assert result.ok_within_limits and result.returncode == 0, result.stderr.decode()
    doc = json.loads(result.stdout)
    warnings = [d["message"] for d in doc["diagnostics"] if d["code"] == "rst-toctree"]
    assert len(warnings) == 2, warnings
    assert "'pipe'" in warnings[0] and "not a regular file (a FIFO)" in warnings[0]
    assert "'folder'" in warnings[1] and "not a regular file (a directory)" in warnings[1]
    assert [f["path"] for f in doc["source"]["files"]] == [str(index), str(index.parent / "rules.rst")]


def test_a_toctree_symlink_to_dev_zero_is_refused_within_limits(tmp_path):
    index = edition(tmp_path, "zero")
    (index.parent / "zero.rst").symlink_to("/dev/zero")
    result = run_limited(["parse", "--json", str(index)], seconds=10)
    print(f"/dev/zero: {result.seconds:.2f} s, peak {result.peak_mib:.0f} MiB, exit {result.returncode}")
    assert result.ok_within_limits and result.returncode == 0, result.stderr.decode()[-2000:]
    doc = json.loads(result.stdout)
    warnings = [d["message"] for d in doc["diagnostics"] if d["code"] == "rst-toctree"]
    assert len(warnings) == 1 and "'zero'" in warnings[0], warnings
    assert result.peak_mib < 300


def test_a_toctree_file_over_the_size_limit_is_refused_unread(tmp_path):
    index = edition(tmp_path, "huge")
    with open(index.parent / "huge.rst", "wb") as f:  # sparse: no disk, no time to write
        f.truncate(rst.max_toctree_file() + 1)
    result = run_limited(["parse", "--json", str(index)], seconds=10)
    print(f"over the limit: {result.seconds:.2f} s, peak {result.peak_mib:.0f} MiB, exit {result.returncode}")
    assert result.ok_within_limits and result.returncode == 0, result.stderr.decode()[-2000:]
    doc = json.loads(result.stdout)
    warnings = [d["message"] for d in doc["diagnostics"] if d["code"] == "rst-not-read"]
    assert len(warnings) == 1 and "'huge'" in warnings[0], warnings
    assert "CRPARSE_MAX_INPUT" in warnings[0] and f"{rst.max_toctree_file() >> 20}.0 MiB limit" in warnings[0], warnings
    assert result.peak_mib < 300  # refused on its size, not read to find out


def test_the_toctree_size_limit_follows_crparse_max_input(tmp_path, monkeypatch):
    index = edition(tmp_path, "more")
    (index.parent / "more.rst").write_text("More\n====\n\n801.1\n-----\n\n" + "A long rule. " * 200 + "\n")
    monkeypatch.setenv("CRPARSE_MAX_INPUT", "1000")
    doc = crparse.parse(index)
    assert rule_numbers(doc) == ["800.1", "800.2"]
    [warning] = [d.message for d in doc.diagnostics if d.code == "rst-not-read"]  # a limit's, not the entry's
    assert not toctree_warnings(doc)
    assert "'more'" in warning and "1000 bytes limit" in warning and "CRPARSE_MAX_INPUT" in warning


def test_a_toctree_file_is_read_once(tmp_path):
    """An index listing a file again, or itself, would multiply the work it asks for."""
    index = edition(tmp_path, "rules", "rules.rst", "index", "./rules")
    doc = crparse.parse(index)
    assert rule_numbers(doc) == ["800.1", "800.2"]
    warnings = toctree_warnings(doc)
    assert len(warnings) == 4 and all("already read" in w for w in warnings), warnings


@pytest.mark.parametrize("entry", ["http://example.com/rules", "bad\x01name", "a" * 5000, "loop"])
def test_odd_toctree_entries_give_a_diagnostic_not_a_crash(tmp_path, entry):
    index = edition(tmp_path, entry)
    loop = index.parent / "loop.rst"
    loop.symlink_to("loop.rst")
    doc = crparse.parse(index)
    assert rule_numbers(doc) == ["800.1", "800.2"]
    said = toctree_warnings(doc)
    loop_said = "1 .rst file(s) of the edition's directory that it does not read: loop.rst (cannot be read: "
    entry_said = [m for m in said if not m.startswith(loop_said)]  # the loop no entry names, said (sweep 26)
    assert len(entry_said) == 1 and len(said) in (1, 2), said


# -- 3. docutils' messages are diagnostics, never text ------------------------------------------

MARKUP_FAULTS = """\
*****************
Multiplayer Rules
*****************

General :doc:`heading`
=======================

800.1
-----

A multiplayer game :doc:`one` is a :doc:`two` game :doc:`three` that :doc:`Four <four>` begins.

.. index:: single: INDEXWORD1

.. index:: single: INDEXWORD2

.. index:: single: INDEXWORD3

.. versionadded:: 2.0

800.2
-----

Each creature has the ability.

    a. A player :foo:`x` is :foo:`y` always :foo:`z` within.

        .. admonition:: Example

            Alex casts :bar:`a` Control :bar:`b` Magic :bar:`c`.

    b. A player may see `no such target`_ and `another one`_ here.

    c. A player :doc:`<target>` and `suffix`:term: here.

********
Glossary
********

.. glossary::

    Active Player
        The player :term:`a` whose :term:`b` turn :term:`c` it is.

    .. unknowndirective:: GLOSSWORD1

    .. unknowndirective:: GLOSSWORD2

    Ability
        Text on an object :sup:`x` that explains :dfn:`what` it does.
"""


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_docutils_messages_are_diagnostics_never_text(tmp_path):
    index = edition(tmp_path, rules=MARKUP_FAULTS)
    doc = crparse.parse(index)
    offset = len(index.read_text().splitlines())
    content = texts(doc)
    for text in content:
        for debris in ("Unknown", "ERROR", "WARNING", "directive", ":doc:", ":foo:", ":bar:", ":term:",
                       "INDEXWORD", "GLOSSWORD", "versionadded", "`"):
            assert debris not in text, (debris, text)
    # The roles' text stays: unknown roles read as their content, explicit titles as the title.
    assert doc.rule("800.1").text == "A multiplayer game one is a two game three that Four begins."
    assert doc.rule("800.2a").text == "A player x is y always z within."
    assert [e.text for e in doc.rule("800.2a").examples] == ["Alex casts a Control b Magic c."]
    assert doc.rule("800.2b").text == "A player may see no such target and another one here."
    assert doc.rule("800.2c").text == "A player target and suffix here."
    assert doc.rule("800").title == "General heading"
    assert [(g.term, g.text) for g in doc.glossary] == [
        ("Active Player", "The player a whose b turn c it is."),
        ("Ability", "Text on an object x that explains what it does.")]

    # One diagnostic per message, each at its line, in order of the lines.
    markup = [(d.line - offset, d.message) for d in doc.diagnostics if d.code == "rst-markup"]
    assert all(d.severity == "warning" for d in doc.diagnostics if d.code == "rst-markup")
    counts: dict[tuple[int, str], int] = {}
    for line, message in markup:
        kind = re.search(r'(role|directive type|target name)[^"]*"([^"]+)"', message)
        assert kind, message
        assert message.startswith("rules.rst: ") and "(ERROR" not in message, message
        counts[(line, kind[2])] = counts.get((line, kind[2]), 0) + 1
    def at(needle: str) -> int:
        return _line_of(MARKUP_FAULTS, needle)

    assert counts == {
        (at("General :doc:"), "doc"): 1,
        (at("A multiplayer game"), "doc"): 4,
        (at("INDEXWORD1"), "index"): 1, (at("INDEXWORD2"), "index"): 1, (at("INDEXWORD3"), "index"): 1,
        (at("versionadded"), "versionadded"): 1,
        (at("A player :foo:"), "foo"): 3,
        (at("Alex casts"), "bar"): 3,
        (at("no such target"), "no such target"): 1, (at("no such target"), "another one"): 1,
        (at("A player :doc:"), "doc"): 1, (at("A player :doc:"), "term"): 1,
        (at("The player :term:"), "term"): 3,
        (at("GLOSSWORD1"), "unknowndirective"): 1, (at("GLOSSWORD2"), "unknowndirective"): 1,
        (at("Text on an object"), "dfn"): 1,
    }, counts
    # The unknown directives' lines are markup residue, reported, not lost.
    residue = {r.line - offset for r in doc.residue if r.reason == "markup"}
    assert {at("INDEXWORD1"), at("GLOSSWORD2"), at("versionadded")} <= residue


def test_messages_in_a_row_all_become_diagnostics(tmp_path):
    """Ten faults in a row, each in its own paragraph: none may be skipped (the message nodes
    are removed from the tree as they are reported)."""
    faults = "".join(f"\n800.{i + 3}\n--------\n\nRule :nosuch{i}:`word{i}`.\n\n.. nosuch{i}:: x\n" for i in range(10))
    rules = RULES + faults
    index = edition(tmp_path, rules=rules)
    doc = crparse.parse(index)
    markup = [d.message for d in doc.diagnostics if d.code == "rst-markup"]
    assert len(markup) == 20, markup
    for i in range(10):
        assert sum(f'"nosuch{i}"' in m for m in markup) == 2
    assert not any("nosuch" in t or "Unknown" in t for t in texts(doc))
    assert [doc.rule(f"800.{i + 3}").text for i in range(10)] == [f"Rule word{i}." for i in range(10)]


def test_a_message_docutils_puts_past_the_end_stays_in_its_file(tmp_path):
    """docutils gives some transform messages (anonymous references without targets) the line
    after the input's end: in an edition that line is the next file's first."""
    index = edition(tmp_path, "more", rules=RULES + "\nSee `the option`__ and `the other`__.\n")
    (index.parent / "more.rst").write_text("More\n====\n\n801.1\n-----\n\nA rule.\n")
    doc = crparse.parse(index)
    [message] = [d for d in doc.diagnostics if d.code == "rst-markup"]
    assert "Anonymous hyperlink mismatch: 2 references but 0 targets." in message.message
    assert "backrefs" not in message.message
    path, line = doc.source.locate(message.line)
    assert (Path(path).name, line) == ("rules.rst", _line_of(RULES + "\nSee `the option`__", "See `the option`"))
    assert "See the option and the other." in doc.rule("800.2").text


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q", "-s"]))


@pytest.mark.parametrize("language", ["text", "python", ""])
def test_a_code_block_ending_the_file_is_placed_on_its_own_lines(language):
    """docutils gives a `code` directive's block the line after it: a block ending the file was
    placed past its end, and every command but `text` was exit 3 (IndexError)."""
    text = ("Rules\n=====\n\n100.1. These Magic rules apply to any Magic game.\n\n"
            f"100.2. To play, each player needs their own deck.\n\n.. code:: {language}\n\n   \"a\"\n   \"b\"\n   \"c\"\n")
    doc = crparse.parse(text.encode(), format="rst")
    assert "100.2" in doc
    lines = text.splitlines()
    quoted = [i + 1 for i, line in enumerate(lines) if line.strip() in ('"a"', '"b"', '"c"')]
    spans = [(first, last) for first, last, _ in doc.accounted_lines()]
    assert all(last <= len(lines) for _, last in spans)
    assert all(any(first <= n <= last for first, last in spans) for n in quoted)


@pytest.mark.hostile
@pytest.mark.parametrize("block", [".. code:: python\n\n" + "   a = b ( c ) , 'x' \"y\"\n" * 40_000,
                                   ".. code-block:: python\n   :number-lines:\n\n" + "   x\n" * 200_000])
def test_a_code_block_is_one_node_whatever_it_holds(tmp_path, block):
    """docutils' code directive made a node of every Pygments token (1 MB: 38 s, 950 MiB) and,
    numbering lines, of every line (200,000: 11 s, 490 MiB): crparse reads only the text."""
    from limits import run_limited

    path = tmp_path / "code.rst"
    path.write_text("Rules\n=====\n\n100.1. These rules.\n\n100.2. To play.\n\n" + block + "\n100.3. After.\n")
    result = run_limited(["parse", "--json", str(path)])
    assert result.ok_within_limits and result.returncode == 0 and result.cpu_seconds < 6, result
    assert result.peak_mib < 400, result.peak_mib
    rules = {r["number"]: r for r in json.loads(result.stdout)["rules"]}
    assert rules["100.3"]["text"] == "After."


@pytest.mark.parametrize("definition", ["unicode:: " + "0x61 " * 2000, "replace:: " + "*a* " * 160,
                                        "replace:: " + "-".join(["*a*"] * 128)])
def test_substitutions_whose_uses_copy_many_nodes_are_refused(definition):
    """Each use of a substitution copies its definition's nodes: 2,000 codes used 1,200 times
    (15 KB) took 39 s and 1.2 GiB, 160 emphases used 6,000 times 70 s and 1.8 GiB."""
    uses = "\n\n".join(" ".join(["|u|"] * 100) for _ in range(60))
    text = f"Rules\n=====\n\n.. |u| {definition}\n\n100.1. These rules.\n\n100.2. To play.\n\n{uses}\n"
    with pytest.raises(crparse.RefusedInput, match="MAX_RST_SUBSTITUTION_NODES"):
        crparse.parse(text.encode(), format="rst")


_CHAIN_HEAD = "Rules\n=====\n\n100. General\n\n100.1. One.\n\n100.2. Two.\n\n"


def _chain(n: int, each: str) -> str:
    return "".join(f".. |s{i}| replace:: |s{i + 1}| {each}\n\n" for i in range(n)) + f".. |s{n}| replace:: y\n\n"


@pytest.mark.parametrize(("n", "each", "uses", "limit"), [
    (1750, "x", 0, "expand into more than 2,000"),  # used or not: docutils expands each definition
    (55, "*a* " * 100, 0, "MAX_RST_SUBSTITUTION_NODES"),
    (10, "*a* " * 100, 150, "MAX_RST_SUBSTITUTION_NODES"),  # a use copies the whole chain
    (40, "w" * 3000, 0, "MAX_RST_SUBSTITUTION_TEXT"),
])
def test_a_chain_of_substitution_definitions_is_counted_expanded(tmp_path, n, each, uses, limit):
    """docutils expands the uses inside every definition: each definition of a chain holds the
    rest of it. 1,750 definitions (54 KB) took 9 s and 860 MB, used or not; 55 of 100 emphases
    each 3.3 s and 313 MB; a chain of 10 used 180 times 4.8 s and 370 MB (sweep 45)."""
    path = tmp_path / "chain.rst"
    path.write_text(_CHAIN_HEAD + _chain(n, each) + "".join(f"100.{j + 3}. Rule |s0|.\n\n" for j in range(uses)))
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and result.seconds < 3, (result.seconds, result.stderr)
    assert limit in result.stderr.decode(), result.stderr


def test_a_short_chain_of_substitutions_is_read():
    doc = crparse.parse((_CHAIN_HEAD + _chain(30, "x") + "100.3. Rule |s0|.\n").encode(), format="rst")
    assert doc.rule("100.3").text == "Rule y" + " x" * 30 + "."


def test_a_few_uses_of_substitutions_are_read():
    text = "Rules\n=====\n\n.. |T| replace:: {T}\n\n100.1. These rules: |T| and |T|.\n\n100.2. To play.\n"
    assert crparse.parse(text.encode(), format="rst").rule("100.1").text == "These rules: {T} and {T}."


def test_a_line_docutils_will_not_read_is_the_refusal():
    """docutils drops a whole document with a line past 10,000 characters: the refusal said 'no
    numbered rules', the cause only among the warnings."""
    text = "Rules\n=====\n\n100.1. These rules.\n\n100.2. To play " + "word " * 2500 + "\n"
    with pytest.raises(crparse.RefusedInput, match="longer than the 10,000 characters docutils reads") as refused:
        crparse.parse(text.encode(), format="rst")
    assert refused.value.line == 6


@pytest.mark.parametrize("role", ["raw-html", "unknown"])
def test_the_text_of_a_role_that_is_not_a_reference_is_kept_whole(tmp_path, role):
    """A role made from the disabled raw role (or an unknown one) leaves its text, and "<b>bold</b>"
    is text: it was read as Sphinx's `Title <target>` and lost its "</b>"."""
    path = tmp_path / "role.rst"
    path.write_text(f"100. General\n============\n\n100.1. See :{role}:`<b>bold</b>` here.\n\n100.2. And "
                    ":ref:`the title <label>` there.\n\n.. role:: raw-html(raw)\n   :format: html\n")
    doc = crparse.parse(path)
    assert doc.rule("100.1").text == "See <b>bold</b> here."
    assert doc.rule("100.2").text == "And the title there."  # a reference role's title, as before


def test_text_of_an_edition_s_directory_is_its_index(tmp_path, capsys):
    """`parse DIR` reads the edition; `text DIR`, `diff`, `cite-check --cr` refused it as "not a
    regular file" (sweep 17): a document named by its directory is the edition's."""
    from crparse.cli.main import main

    index = edition(tmp_path)
    assert crparse.parse(index.parent) == crparse.parse(index)
    assert main(["diff", str(index.parent), str(index)]) == 0
    capsys.readouterr()
    assert main(["text", str(index.parent)]) == 0
    by_directory = capsys.readouterr().out
    assert main(["text", str(index)]) == 0
    assert by_directory == capsys.readouterr().out and "Each player has a range of influence." in by_directory


def test_a_toctree_file_under_a_directory_swapped_for_a_link_is_not_read(tmp_path, monkeypatch):
    """The entry's path was resolved and checked, then opened with O_NOFOLLOW, which guards its
    last component only: a directory on the way swapped for a link leading out in between was
    followed (3 of 150 runs: sweep 18). Here the swap comes right after the check."""
    index = edition(tmp_path, "ch/part")
    (index.parent / "ch").mkdir()
    (index.parent / "ch" / "part.rst").write_text("Part\n====\n\n800.5\n-----\n\nInside the edition.\n")
    (tmp_path / "outside" / "part.rst").write_text(OUTSIDE)
    checked = rst._Edition.read
    import crparse.inputs

    real_read = crparse.inputs.read_regular

    def swapped(path, *args, **kwargs):
        if str(path).endswith("part.rst"):
            (index.parent / "ch").rename(index.parent / "moved")
            (index.parent / "ch").symlink_to(tmp_path / "outside")
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(rst, "read_regular", swapped)
    doc = crparse.parse(index)
    assert not any(SECRET in t for t in texts(doc)), texts(doc)
    assert any("a symbolic link now on its way" in m for m in toctree_warnings(doc)), toctree_warnings(doc)
    assert checked is rst._Edition.read



def test_the_edition_s_files_no_toctree_names_are_said(tmp_path):
    """A chapter the toctree does not name, and a directory of them without an index, were not
    read, and nothing said so: a diff against the edition said unchanged (sweep 18). Another
    edition below (its own index.rst) is its own document, not said here."""
    index = edition(tmp_path)
    (index.parent / "orphan.rst").write_text("Orphan\n======\n\n999.1\n-----\n\nText.\n")
    (index.parent / "deeper").mkdir()
    (index.parent / "deeper" / "deep.rst").write_text("Deep\n====\n")
    (index.parent / "other").mkdir()
    (index.parent / "other" / "index.rst").write_text("Other\n=====\n")
    (index.parent / "other" / "part.rst").write_text("Part\n====\n")
    said = [m for m in toctree_warnings(crparse.parse(index)) if "no toctree names" in m]
    assert said == ["2 .rst file(s) of the edition's directory that no toctree names, not read: orphan.rst, deeper/deep.rst"]


# -- 3. a :glob: toctree (sweep 19) --------------------------------------------------------------

MORE = RULES.replace("Multiplayer Rules", "More Rules").replace("800.", "801.").replace("General", "Limited")


def glob_edition(root: Path, *entries: str) -> Path:
    index = edition(root)
    (index.parent / "chapters").mkdir()
    (index.parent / "chapters" / "more.rst").write_text(MORE)
    (index.parent / "chapters" / "other").mkdir()
    (index.parent / "chapters" / "other" / "index.rst").write_text("Other\n=====\n")  # another edition's
    listed = "".join(f"    {e}\n" for e in entries)
    index.write_text(f"Comprehensive Rules\n###################\n\n.. toctree::\n    :glob:\n\n{listed}")
    return index


@pytest.mark.parametrize("entries, read", [
    (["*", "chapters/*"], ["rules.rst", "chapters/more.rst"]),
    (["**"], ["chapters/more.rst", "rules.rst"]),  # in order of name, as Sphinx
    (["chapters/more", "**"], ["chapters/more.rst", "rules.rst"]),  # what is named before is not again
    (["r?les", "chapters/[lm]ore.rst"], ["rules.rst", "chapters/more.rst"]),
])
def test_a_glob_toctree_reads_the_edition_s_files_it_matches(tmp_path, entries, read):
    """Its patterns were read as file names (`*.rst`): an edition with `:glob:` was refused as
    having no rules, and the refusal did not say why (sweep 19)."""
    index = glob_edition(tmp_path, *entries)
    doc = crparse.parse(index)
    assert [os.path.relpath(f.path, index.parent) for f in doc.source.files[1:]] == read
    assert rule_numbers(doc) == sorted(rule_numbers(doc), key=lambda n: read.index(
        "rules.rst" if n.startswith("800") else "chapters/more.rst"))
    assert len(rule_numbers(doc)) == 4 and not toctree_warnings(doc)


@pytest.mark.parametrize("pattern, said", [
    ("../outside/*", "its '..' leads outside the edition's directory"),
    ("chapters/../../outside/*", "its '..' leads outside the edition's directory"),
    ("{root}/outside/*", "an absolute path"),
    ("nothing*", "matches no file of the edition not named before it"),
])
def test_a_glob_toctree_reads_nothing_outside_the_edition_and_says_why(tmp_path, pattern, said):
    index = glob_edition(tmp_path, pattern.format(root=tmp_path))
    (index.parent / "link.rst").symlink_to(tmp_path / "outside" / "secret.rst")
    result = run_limited(["parse", "--json", str(index)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2, result.stderr
    assert said in result.stderr.decode() and SECRET.encode() not in result.stdout + result.stderr


def test_a_glob_matching_a_link_out_of_the_edition_does_not_read_it(tmp_path):
    index = glob_edition(tmp_path, "*")
    (index.parent / "link.rst").symlink_to(tmp_path / "outside" / "secret.rst")
    doc = crparse.parse(index)
    assert SECRET not in "".join(texts(doc)) and rule_numbers(doc) == ["800.1", "800.2"]


@pytest.mark.parametrize("pattern", ["[z-a]", "[a-\\]", "[!z-a]", "[\\w-a]*", "[[:alpha:]]*", "[%--]*", "[", "*[!]"])
def test_a_glob_pattern_python_s_re_refuses_or_warns_of_is_a_pattern_still(tmp_path, pattern):
    """Sphinx hands the translated pattern to re: a reversed range raised re.error (exit 3), and
    `[[` printed a FutureWarning on stderr (sweep 20)."""
    index = glob_edition(tmp_path, pattern, "rules")
    result = run_limited(["parse", "--json", str(index)], seconds=15)
    assert result.ok_within_limits and result.returncode == 0 and result.stderr == b"", result.stderr


@pytest.mark.parametrize("pattern, name", [("*a" * 6 + "b", "a" * 200), ("**a" * 4 + "**b", ("a" * 50 + "/") * 60)])
def test_a_glob_pattern_is_matched_in_linear_time(tmp_path, pattern, name):
    """`*a*a*a*a*ab` against one name of 200 letters took 17.7 s; with six `*a`, over 30 s (sweep 20)."""
    index = glob_edition(tmp_path, "rules", pattern)
    path = index.parent / f"{name}.rst"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Nothing\n=======\n")
    result = run_limited(["parse", "--json", str(index)], seconds=10)
    assert result.ok_within_limits and result.returncode == 0, result.stderr


def test_globs_match_as_sphinx_matches():
    """A second way of matching: Sphinx's own translation to a regular expression, on patterns
    it translates soundly, against names short enough for its backtracking."""
    import random
    import warnings

    from sphinx.util.matching import _translate_pattern

    from crparse.readers.globbing import GlobPattern

    rng = random.Random(20)
    compared = 0
    for _ in range(3000):
        pattern = "".join(rng.choice("ab/*?[]-c") for _ in range(rng.randint(1, 8)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = re.compile(_translate_pattern(pattern))
        except re.error:
            continue
        ours = GlobPattern(pattern)
        for _ in range(5):
            name = "".join(rng.choice("abc/") for _ in range(rng.randint(0, 8)))
            assert bool(theirs.match(name)) == ours.matches(name), (pattern, name)
            compared += 1
    assert compared > 10_000


# -- 4. toctrees in the files a toctree names (sweep 20) -------------------------------------------

def test_a_toctree_in_a_file_of_the_edition_is_followed_depth_first_and_confined(tmp_path):
    """Sphinx's toctrees nest (an index naming parts, each naming its chapters): only the index's
    was read, and the chapters were said to be files "that no toctree names" (sweep 20). Each
    file's entries are relative to its own directory, and confined like the index's."""
    index = edition(tmp_path, "parts/part", "more")
    parts = index.parent / "parts"
    (parts / "ch").mkdir(parents=True)
    (parts / "part.rst").write_text("Part\n====\n\n.. toctree::\n\n    ch/chap\n    ../../outside/secret\n    self\n")
    (parts / "ch" / "chap.rst").write_text(MORE)
    (index.parent / "more.rst").write_text(MORE.replace("801.", "802.").replace("More Rules", "Last Rules"))
    doc = crparse.parse(index)
    assert [os.path.relpath(f.path, index.parent) for f in doc.source.files[1:]] == [
        "rules.rst", "parts/part.rst", "parts/ch/chap.rst", "more.rst"]
    assert rule_numbers(doc) == ["800.1", "800.2", "801.1", "801.2", "802.1", "802.2"]
    assert SECRET not in "".join(texts(doc))
    (said,) = toctree_warnings(doc)
    assert "'../../outside/secret' not read: its '..' leads outside" in said


def test_toctrees_naming_each_other_end(tmp_path):
    index = edition(tmp_path, "a")
    (index.parent / "a.rst").write_text("A\n=\n\n.. toctree::\n\n    b\n")
    (index.parent / "b.rst").write_text("B\n=\n\n.. toctree::\n\n    a\n    ../ed/index\n")
    result = run_limited(["parse", "--json", str(index)], seconds=15)
    assert result.ok_within_limits and result.returncode == 0, result.stderr
    said = [d["message"] for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "rst-toctree"]
    assert len(said) == 2 and all("already read" in m for m in said), said


@pytest.mark.parametrize("directive, made", [
    (".. sectnum::", "1.1"), (".. contents::", "General"), (".. |d| date:: %Y-%m-%d", "20"),
    (".. header:: HEADER TEXT", "HEADER"), (".. footer:: FOOTER TEXT", "FOOTER"), (".. target-notes::", "http"),
])
def test_text_docutils_makes_is_no_rule_text(directive, made):
    """docutils' own text went into the rules: section numbers before each title, a table of
    contents in rule 100.1, today's date (output that changed by the day): sweep 20."""
    text = (f"Title\n=====\n\n{directive}\n\n100. General\n------------\n\n100.1. First rule `x <http://e.example>`_.\n\n"
            "100.2. Second rule |d|.\n")
    doc = crparse.parse(text.encode(), format="rst")
    assert doc.rule("100").title == "General" and doc.rule("100.1").text == "First rule x."
    assert not any(made in t for t in texts(doc) if t not in ("General",)), texts(doc)
    assert any("directive not read: the text it makes is not the document's" in d.message for d in doc.diagnostics)


def test_substitutions_copying_many_characters_are_refused_within_limits(tmp_path):
    """One word of 9,900 four-byte characters used 6,750 times passed the counts of words and
    markup: 67 KB held 1.4 GB (sweep 21)."""
    word = "\U0001f600" * 9_900
    body = "".join(f"100.{i}. Rule " + "|s| " * 250 + "\n\n" for i in range(1, 4))
    path = tmp_path / "big.rst"
    path.write_text(f"100. General\n============\n\n.. |s| replace:: {word}\n\n{body}", encoding="utf-8")
    result = run_limited(["parse", "--json", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2, result.stderr
    assert b"MAX_RST_SUBSTITUTION_TEXT" in result.stderr


def test_a_glob_pattern_longer_than_a_file_name_s_is_not_matched(tmp_path):
    """Three patterns of 3,300 ranges against 1,000 names of 68,000 distinct characters: 23 s
    (sweep 21)."""
    index = glob_edition(tmp_path, "rules", "**[" + "a-b" * 3_300 + "X]")
    doc = crparse.parse(index)
    (said,) = [m for m in toctree_warnings(doc) if "glob" in m]
    assert "more than the 256 a file name's takes" in said and len(said) < 300


def test_many_glob_patterns_over_many_files_are_bounded(tmp_path):
    """Each pattern listed the edition again: 1,200 patterns over 20,000 files, 54 s (sweep 21).
    The listing is made once, and the matching has a budget (MAX_RST_GLOB_WORK)."""
    files = tmp_path / "ed" / "many"
    files.mkdir(parents=True)
    for i in range(3_000):
        (files / f"file{i:05d}.rst").touch()
    index = glob_edition(tmp_path, "rules", *(f"zz{i}?x" for i in range(1_200)))
    result = run_limited(["parse", "--json", str(index)], seconds=15)
    assert result.ok_within_limits and result.returncode == 0, result.stderr
    said = [d["message"] for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "rst-not-read"]
    assert any("MAX_RST_GLOB_WORK" in m for m in said)


@pytest.mark.parametrize("char", ["\u200b", "\ufeff", "\u3164", "\u00ad", "\u2060"])
def test_an_invisible_character_before_a_section_title_s_number(char):
    """The reader reads a section's number from its title, before the block stage takes out
    what is invisible: "\\u200b100. General" was no section 100 (sweep 21)."""
    text = (f"{char}100. General\n-------------\n\n100.1. One.\n\n100.2. Two.\n\n"
            f"{char}101. Other\n-----------\n\n101.1. One.\n\n101.2. Two.\n")
    doc = crparse.parse(text.encode(), format="rst")
    assert [(r.number, r.title) for r in doc.rules if r.kind == "section"] == [("100", "General"), ("101", "Other")]


def test_a_refusal_for_a_nested_toctree_names_its_file_and_line(tmp_path, monkeypatch):
    """It named the index, at a line of the edition's files counted together (index.rst:1285 of
    an index of 13 lines: sweep 21)."""
    index = edition(tmp_path, "part")
    entries = "".join(f"    ch{i}\n" for i in range(1_400))
    (index.parent / "part.rst").write_text(f"Part\n====\n\n.. toctree::\n\n{entries}")
    with pytest.raises(crparse.RefusedInput) as refused:
        crparse.parse(index)
    assert refused.value.line is None and " of part.rst)" in refused.value.message, refused.value.message


@pytest.mark.parametrize("markup, read", [(":pep:`8` and :rfc:`2822#section-3`", "8 and 2822#section-3"),
                                          (":PEP:`8`", "8")])
def test_pep_and_rfc_roles_are_read_as_written(markup, read):
    """docutils wrote "PEP 8" and "RFC 2822", dropping "#section-3": text not in the input (sweep 21)."""
    doc = crparse.parse(f"100. General\n------------\n\n100.1. First {markup}.\n\n100.2. Two.\n".encode(), format="rst")
    assert doc.rule("100.1").text == f"First {read}."
    assert any("read as its text" in d.message for d in doc.diagnostics)


def _link_chain(directory: Path, length: int) -> Path:
    """The first of `length` symbolic links, each to the next, the last to nothing."""
    (directory / "c").mkdir()
    previous = "end"
    for i in range(length):
        os.symlink(previous, directory / "c" / f"l{i}")
        previous = f"l{i}"
    return directory / "c" / previous


def test_a_chain_of_links_is_said_not_a_recursion_error(tmp_path):
    """os.path.realpath follows links in Python, one recursion each: 2,000 links were a
    RecursionError, exit 3 for the whole directory, and "markup nests deeper than Python's
    recursion limit" for an edition naming it (sweep 22)."""
    walk = tmp_path / "walk"
    walk.mkdir()
    (walk / "cr.txt").write_text("100. General\n\n100.1. One.\n\n100.2. Two.\n")
    os.symlink(os.path.relpath(_link_chain(walk, 2_000), walk), walk / "x.txt")
    result = run_limited(["parse", "--json", str(walk)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2 and b"Traceback" not in result.stderr, result.stderr
    assert b"x.txt: skipped: cannot be read: Too many levels of symbolic links" in result.stderr
    assert json.loads(result.stdout.splitlines()[0])["rules"]
    index = edition(tmp_path, "x")
    os.symlink(os.path.relpath(_link_chain(index.parent, 2_000), index.parent), index.parent / "x.rst")
    said = toctree_warnings(crparse.parse(index))
    assert any("'x' not read: cannot read" in m and "symbolic links" in m for m in said), said


def test_rules_in_markup_whose_text_is_not_read_are_warned(tmp_path):
    """A comment, an unused substitution, an image's alt text, a meta's content holding what
    reads as rules went to the residue as markup without a word, where HTML's and Markdown's
    comments are warned (sweep 24). A label named like a rule, and a substitution whose text is
    read where it is used, are nothing to say."""
    hidden = RULES + (
        "\n.. 800.3. A rule hidden in a comment.\n\n..\n   800.4. In an indented comment.\n\n"
        ".. |unused| replace:: 800.5. In an unused substitution.\n\n"
        ".. image:: x.png\n   :alt: 800.6. In an image's alt text.\n\n"
        ".. meta::\n   :description: 800.7. In a meta's content.\n"
    )
    doc = crparse.parse(edition(tmp_path, rules=hidden))
    said = [d for d in doc.diagnostics if "hold what reads as rules" in d.message]
    assert [(d.code, d.severity) for d in said] == [("rst-markup", "warning")]
    assert said[0].message.startswith("rules.rst: 5 comment(s), unused substitution definition(s)"), said[0].message
    assert ".. 800.3. A rule hidden in a comment." in [r.text for r in doc.residue]
    plain = RULES + ("\n.. _800.2:\n\n.. |used| replace:: 800.9. Used.\n\n800.3\n-----\n\nSee |used|\n\n"
                     ".. a comment that is only a comment, 800.1 cited\n")
    (tmp_path / "b").mkdir()
    doc = crparse.parse(edition(tmp_path / "b", rules=plain))
    assert not [d for d in doc.diagnostics if "hold what reads as rules" in d.message]
    assert doc.rule("800.3").text == "See 800.9. Used."


def test_markup_holding_rules_is_said_by_the_file_s_path_in_the_edition(tmp_path):
    """Counted by bare file name, a/intro.rst and b/intro.rst were one line, "intro.rst: 2 ..." (review)."""
    ed = tmp_path / "ed"
    for name in ("a", "b"):
        (ed / name).mkdir(parents=True)
        (ed / name / "intro.rst").write_text(f"{name.upper()}\n=\n\n.. 800.9. Hidden in {name}.\n")
    index = edition(tmp_path, "a/intro", "b/intro")
    said = sorted(d.message.split(":")[0] for d in crparse.parse(index).diagnostics if "hold what reads" in d.message)
    assert said == ["a/intro.rst", "b/intro.rst"]


def test_a_substitution_used_after_a_stray_bar_is_used():
    """The uses were found by a pattern that took "| b |" and left "name|": a used substitution
    holding a rule was said to be unused (review)."""
    text = ("Rules\n=====\n\n.. |name| replace:: 100.3. Substituted.\n\n100.1. A | b |name| c.\n\n100.2. B.\n")
    doc = crparse.parse(text.encode(), format="rst")
    assert not [d for d in doc.diagnostics if "hold what reads" in d.message]
    assert doc.rule("100.1").text == "A | b 100.3. Substituted. c."


def test_an_edition_swapped_for_a_link_while_it_is_read_reads_nothing_outside(tmp_path, monkeypatch):
    """The edition's directory swapped for a link leading out after the walk listed it, while its
    index was parsed: the edition's root was taken then, so the outside became the edition and its
    files were read under the edition's names; and the edition's own listing moved where the walk
    had found a later file of the batch to the outside too (sweep 26)."""
    from crparse.errors import CrparseError
    from crparse.inputs import inputs

    index = edition(tmp_path, "secret")  # and tmp_path/outside/secret.rst
    ed, outside = index.parent, tmp_path / "outside"
    (ed / "zz.txt").write_text("100.1. An inside rule.\n\n100.2. Another.\n")
    (outside / "index.rst").write_text(index.read_text())
    (outside / "zz.txt").write_text(f"100.1. {SECRET}.\n\n100.2. Another.\n")
    listed = [Path(i.path) for i in inputs([ed]) if i.skipped is None]
    assert listed == [index, ed / "zz.txt"]
    made = rst._Edition.__init__

    def swapped_first(self, path):  # the index is read; then the directory is swapped
        if not ed.is_symlink():
            ed.rename(tmp_path / "ed-was")
            ed.symlink_to(outside)
        made(self, path)

    monkeypatch.setattr(rst._Edition, "__init__", swapped_first)
    (outside / "rules.rst").write_text(RULES)
    with pytest.raises(CrparseError, match="leads outside the edition's directory") as refused:
        crparse.parse(listed[0])  # its toctree's files, inside it no more: none read, the refusal says why
    assert SECRET not in str(refused.value)
    with pytest.raises(CrparseError, match="not where it was"):
        crparse.parse(listed[1])


def test_an_edition_file_a_walk_passes_over_is_said(tmp_path):
    """An edition's .rst file that is a link into a hidden directory (or out of the edition) was
    neither read nor said: the outer walk leaves an edition's .rst files to the edition, and the
    edition's own listing passed it over (sweep 26)."""
    index = edition(tmp_path)
    (tmp_path / ".drafts").mkdir()
    (tmp_path / ".drafts" / "extra.rst").write_text("Extra\n=====\n\n999.1\n-----\n\nText.\n")
    (index.parent / "extra.rst").symlink_to("../.drafts/extra.rst")
    said = [m for m in toctree_warnings(crparse.parse(index)) if "does not read" in m]
    assert said == [f"1 .rst file(s) of the edition's directory that it does not read: extra.rst (a symbolic link "
                    f"leading outside {index.parent})"], said


def test_a_term_s_classifiers_are_read_with_it():
    """docutils makes the words after " : " on a term line a classifier, which went nowhere: a rule
    lost "only in the main phase" without a word (sweep 41)."""
    text = ("100. General\n\n100.1. Rule one.\n\n100.2. A player may cast a spell : only in the main phase\n"
            "   of their turn.\n\n100.3. Rule three.\n")
    doc = crparse.parse(text.encode(), format="rst")
    assert doc.rule("100.2").text == "A player may cast a spell : only in the main phase of their turn."
