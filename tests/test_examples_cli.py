"""`crparse examples`, `--emit-pytest` and the pytest plugin (`pytest --cr-examples`), on small
documents of our own: the examples' outcomes as printed pass; changed outcomes fail."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXAMPLES = {
    "801.2c": "In a game with a range of influence of 1, Alex is seated to the left of Rob, and Carissa is seated to the "
              "right of Rob. Carissa is not in Alex’s range of influence. If Rob leaves the game, Carissa will enter "
              "Alex’s range of influence at the start of the next turn.",
    "807.4a": "A Grand Melee game with sixteen players has four turn markers. A game with fifteen players has three turn markers.",
    "810.9a": "In a Two-Headed Giant game, a player on a team that has 17 life is targeted by Beacon of Immortality, which "
              "reads, in part, “Double target player’s life total.” That player gains 17 life, so the team winds up at 34 life.",
}


def document(tmp_path: Path, examples: dict[str, str] = EXAMPLES, dated: bool = True, name: str = "cr.txt") -> Path:
    rules = "".join(
        f"{number[:3]}. Section {number[:3]}\n\n{number[:5]}. Text of the rule.\n\n{number} Text of the subrule.\n"
        f"Example: {text}\n\n"
        for number, text in examples.items()
    )
    head = "Magic: The Gathering Comprehensive Rules\n\n"
    if dated:
        head += "These rules are effective as of January 16, 2026.\n\n"
    text = head + "8. Multiplayer Rules\n\n800. General\n\n800.1. Text.\n\n800.2. Text.\n\n" + rules
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def crparse(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_JOBS="1")
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def test_examples_pass_and_the_report_names_the_rules_date(tmp_path):
    done = crparse("examples", str(document(tmp_path)), "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [(r["rule"], r["index"], r["status"]) for r in results] == [
        ("801.2c", 1, "passed"), ("807.4a", 1, "passed"), ("810.9a", 1, "passed")]
    assert {r["rules_date"] for r in results} == {"2026-01-16"}
    assert results[0]["scenario"]["setup"] and results[0]["text"].startswith("In a game")
    text = crparse("examples", str(document(tmp_path)))
    assert "rules date 2026-01-16 (the document's effective date)" in text.stdout


@pytest.mark.parametrize("rule, old, new", [
    ("810.9a", "winds up at 34 life", "winds up at 33 life"),          # a number
    ("801.2c", "Carissa is not in Alex’s", "Carissa is in Alex’s"),     # a negation
    ("807.4a", "has four turn markers", "has five turn markers"),
])
def test_a_changed_outcome_fails_with_the_reason(tmp_path, rule, old, new):
    changed = dict(EXAMPLES)
    assert old in changed[rule]
    changed[rule] = changed[rule].replace(old, new)
    done = crparse("examples", str(document(tmp_path, changed)), "--json")
    assert done.returncode == 1, done.stderr
    failed = [r for r in json.loads(done.stdout) if r["status"] == "failed"]
    assert [r["rule"] for r in failed] == [rule] and failed[0]["reason"]


def test_an_older_rules_date_changes_the_outcome(tmp_path):
    """810.9a (2010-04-23): a Two-Headed Giant player's life is the team's; before, half of it: the
    Beacon example of 2010 fails under the rules of 2009."""
    done = crparse("examples", str(document(tmp_path)), "--json", "--rules-date", "2009-10-01", "--rule", "810.9a")
    assert done.returncode == 1
    (result,) = json.loads(done.stdout)
    assert result["status"] == "failed" and result["rules_date"] == "2009-10-01"


def test_a_rules_date_of_a_month_or_a_year_is_the_rules_in_force_at_its_end(tmp_path):
    # "2009" was passed to the model as it was: every example unsupported ("the engine refuses this
    # setup: Invalid isoformat string")
    for given, day in (("2009", "2009-12-31"), ("2009-10", "2009-10-31"), ("2010", "2010-12-31")):
        done = crparse("examples", str(document(tmp_path)), "--json", "--rules-date", given, "--rule", "810.9a")
        (result,) = json.loads(done.stdout)
        assert result["rules_date"] == day
        assert result["status"] == ("passed" if given == "2010" else "failed"), result
    text = crparse("examples", str(document(tmp_path)), "--rules-date", "2009", "--rule", "810.9a")
    assert "rules date 2009-12-31 (given as 2009: the rules in force at its end)" in text.stdout


def test_the_plugin_takes_a_month_or_a_year_and_refuses_what_is_no_date(tmp_path):
    (tmp_path / "docs").mkdir()
    document(tmp_path / "docs")
    plugin = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples", str(tmp_path / "docs"), "-v"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*plugin, "--cr-rules-date", "2009"], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120)
    assert "cr.txt::810.9a#1 FAILED" in run.stdout and "rules of 2009-12-31 (given as 2009" in run.stdout, run.stdout[-3000:]
    bad = subprocess.run([*plugin, "--cr-rules-date", "2009-02-30"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert bad.returncode == 4 and "--cr-rules-date '2009-02-30' is not a date" in bad.stderr, (bad.stdout, bad.stderr)


def test_a_setting_the_cli_refuses_is_a_usage_error_of_the_plugin(tmp_path):
    """Every document was refused for it and passed over as no CR document: "no tests ran",
    exit 5, saying nothing of why (sweep 37)."""
    (tmp_path / "docs").mkdir()
    document(tmp_path / "docs")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples",
                          str(tmp_path / "docs")], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_MAX_INPUT="zz"))
    assert run.returncode == 4 and "the setting CRPARSE_MAX_INPUT='zz' is not a number" in run.stderr, \
        (run.stdout[-2000:], run.stderr[-2000:])


def test_the_plugin_names_a_document_it_refuses_and_passes_over_what_is_no_document(tmp_path):
    """Every refusal was taken for "not a CR document": editions refused by the run's budget for
    reads again went without a word, and the session passed with 5 of its 9 releases untested
    (sweep 38). A README, an empty or a binary file are still passed over."""
    docs = tmp_path / "docs"
    docs.mkdir()
    document(docs)
    big = document(docs, name="big.txt")
    big.write_text(big.read_text() + "800.3. " + "Long text. " * 2000 + "\n", encoding="utf-8")
    (docs / "README.md").write_text("# Examples\n\nThe releases of this directory.\n")
    (docs / "empty.txt").write_text("")
    (docs / "data.txt").write_bytes(b"\x00\x01\x02" * 100)
    # no rules because the page's markup hides them: a document refused, not no document (review)
    (docs / "hidden.html").write_text("<html><body><p>800. General</p><!--<p>800.1. One.</p>\n<p>800.2. Two.</p>-->"
                                      "</body></html>", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples", str(docs)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_MAX_INPUT="16K"))
    assert run.returncode == 2 and "ERROR collecting docs/big.txt" in run.stdout, run.stdout[-3000:]
    assert f"crparse: {big}: input larger than the 16384 bytes limit" in run.stdout, run.stdout[-3000:]
    assert "ERROR collecting docs/hidden.html" in run.stdout and "hold what reads as rules" in run.stdout, \
        run.stdout[-3000:]
    assert "2 errors" in run.stdout and not re.search(r"ERROR collecting docs/(README|empty|data)", run.stdout)


def test_the_plugin_collects_the_documents_crparse_reads_whatever_their_names(tmp_path):
    """`crparse parse DIR` reads a release named without a document's suffix; the plugin passed it
    over, its examples untested without a word (sweep 40). Code and what is no CR document stay out."""
    docs = tmp_path / "docs"
    docs.mkdir()
    document(docs)
    document(docs, name="cr-2026-01-16")
    document(docs, name="cr.text")
    (docs / "LICENSE").write_text("Permission is granted.\n")
    (docs / "test_x.py").write_text("def test_x():\n    raise SystemExit('imported')\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples", str(docs),
                          "--collect-only", "-q"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    collected = {line.split("::")[0] for line in run.stdout.splitlines() if "::" in line}
    assert collected == {"docs/cr.txt", "docs/cr-2026-01-16", "docs/cr.text"}, run.stdout[-2000:]
    assert run.returncode == 0 and "imported" not in run.stdout + run.stderr


def test_an_interrupt_whose_traceback_has_an_entry_without_a_line_is_reported(monkeypatch):
    """Ctrl-C while documents were read: an entry of Python 3.11's traceback had no line number,
    and pytest's report of the interrupt failed on it with a TypeError traceback (sweep 37)."""
    import types

    import _pytest._code

    from crparse.examples import plugin

    def interrupted():
        raise KeyboardInterrupt

    try:
        interrupted()
    except KeyboardInterrupt as err:
        top = err.__traceback__
        # an entry whose instruction has no line, as Python 3.11 may leave one
        unnumbered = types.TracebackType(top.tb_next, top.tb_next.tb_frame, 10**6, -1)
        assert unnumbered.tb_lineno is None
        top.tb_next = unnumbered
        excinfo = _pytest._code.ExceptionInfo.from_exc_info((KeyboardInterrupt, err, top))
    monkeypatch.setattr(plugin, "_ACTIVE", True)
    plugin.pytest_keyboard_interrupt(excinfo)
    assert "KeyboardInterrupt" in str(excinfo.getrepr(funcargs=True))


def test_the_plugin_reads_a_directory_as_crparse_does(tmp_path):
    """A link in the directory leading out of it: pytest's own walk followed it, and the
    outside file's examples ran and were shown (sweep 14); crparse skips such a link."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "outside").mkdir()
    document(tmp_path / "docs")
    secret = document(tmp_path / "outside")
    (tmp_path / "docs" / "link.txt").symlink_to(secret)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples",
                          str(tmp_path / "docs"), "-v"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120, check=False)
    assert "cr.txt::801.2c#1 PASSED" in run.stdout, run.stdout[-3000:]
    assert "link.txt" not in run.stdout


def test_the_plugin_does_not_go_into_links_to_directories_leading_out(tmp_path):
    """pytest's own walk went into them: a link to / walked the whole file system, and a
    conftest.py in a linked directory was imported and run (sweep 17)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "outside").mkdir()
    document(tmp_path / "docs")
    ran = tmp_path / "RAN"
    (tmp_path / "outside" / "conftest.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    document(tmp_path / "outside")
    (tmp_path / "docs" / "linked").symlink_to(tmp_path / "outside")
    (tmp_path / "docs" / "root").symlink_to("/")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "--cr-examples",
                          str(tmp_path / "docs"), "-v"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120, check=False)
    assert "cr.txt::801.2c#1 PASSED" in run.stdout and "linked" not in run.stdout, run.stdout[-3000:]
    assert not ran.exists()


def test_the_plugin_runs_no_code_of_a_document_nor_of_a_directory_without_one(tmp_path):
    """pytest's doctest plugin ran the ">>>" lines of the documents, given to it as paths, and
    read them as UTF-8, ending the run on a cp1252 release; a directory without documents had
    its conftest.py imported (sweep 18)."""
    docs = tmp_path / "docs"
    (docs / "empty").mkdir(parents=True)
    document(docs)
    ran = tmp_path / "RAN"
    (docs / "empty" / "conftest.py").write_text(f"open({str(ran)!r}, 'w').write('conftest')\n")
    text = (docs / "cr.txt").read_text(encoding="utf-8")
    (docs / "test_cr.txt").write_text(text + f"\n>>> open({str(ran)!r}, 'w').write('doctest')\n", encoding="utf-8")
    (docs / "old.txt").write_bytes(text.replace("801.2c", "801.2c").encode("utf-8").replace(b"\xe2\x80\x99", b"\x92") + b"\x92\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "--cr-examples", str(docs),
                          "-v"], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path,
                         timeout=120, check=False)
    assert "cr.txt::801.2c#1 PASSED" in run.stdout and "test_cr.txt::801.2c#1 PASSED" in run.stdout, run.stdout[-3000:]
    assert "old.txt::" in run.stdout and "error" not in run.stdout.lower().split("short test summary")[0][-200:]
    assert not ran.exists(), ran.read_text()


def test_an_undated_fragment_without_a_store_is_refused_with_what_to_do(tmp_path):
    path = document(tmp_path, dated=False)
    done = crparse("examples", str(path), "--db", str(tmp_path / "no-store.sqlite"))
    assert done.returncode == 2 and "no rules date" in done.stderr and "--rules-date" in done.stderr
    assert "no store to identify it (run `crparse index DIR`" in done.stderr
    assert crparse("examples", str(path), "--rules-date", "2026-01-16").returncode == 0


def test_an_undated_fragment_a_store_does_not_know_is_refused_saying_so(tmp_path):
    """With a store given, "no store to identify it (run `crparse index DIR`...)" misled (sweep 37)."""
    from crparse.errors import CrparseError
    from crparse.examples import rules_date

    import crparse as api

    doc = api.parse(document(tmp_path, dated=False))
    with pytest.raises(CrparseError, match=r"and the store holds no release like it \(index its release"):
        rules_date(doc, identify=lambda doc: [])


@pytest.mark.parametrize("rule", ["x", "999.9z", "", "801.2z"])
def test_a_rule_the_document_lacks_is_refused(tmp_path, rule):
    """It ran no example and passed, "0 examples", exit 0 (sweep 38)."""
    done = crparse("examples", str(document(tmp_path)), "--rule", rule, "--rules-date", "2026-01-16")
    assert done.returncode == 2 and f"--rule: no rule {rule!r} in the document" in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_emit_pytest_below_a_file_is_refused_before_the_examples_run(tmp_path):
    """It ran every example, then said "File exists" (sweep 42)."""
    (tmp_path / "plain").write_text("x")
    done = crparse("examples", str(document(tmp_path)), "--emit-pytest", str(tmp_path / "plain" / "sub"))
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.strip() == f"crparse: {tmp_path / 'plain'}: --emit-pytest needs a directory, and one above it is a file"


def test_unsupported_examples_say_which_sentence(tmp_path):
    path = document(tmp_path, {"801.9": "Alex juggles three torches while Rob watches."})
    (result,) = json.loads(crparse("examples", str(path), "--json").stdout)
    assert result["status"] == "unsupported" and "Alex juggles three torches" in result["reason"]


def test_emit_pytest_writes_tests_that_run(tmp_path):
    out = tmp_path / "generated"
    done = crparse("examples", str(document(tmp_path)), "--emit-pytest", str(out))
    assert done.returncode == 0, done.stderr
    (written,) = out.glob("test_*.py")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(written)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120)
    assert "3 passed" in run.stdout, run.stdout[-2000:]


def _many_examples(count: int) -> str:
    """A document of `count` examples the grammar reads, each worded differently (an example
    printed again word for word costs no more)."""
    head = ("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 16, 2026.\n\n"
            "800. General\n\n")
    beacon = EXAMPLES["810.9a"].replace("17 life", "{n} life").replace("34 life", "{m} life")
    return head + "".join(f"800.{i}. Rule {i}.\nExample: {beacon.format(n=i, m=2 * i)}\n\n" for i in range(1, count + 1))


def test_emitted_tests_share_the_document_s_budget_and_are_bounded(tmp_path):
    """Each emitted test ran its example with no budget: 20,000 tests of one-line examples ran for
    over 120 s, where `crparse examples` took 2.6 s (sweep 27). The file's tests now share one
    DocumentRun, so that the same examples are past the budget as in `crparse examples`, and at most
    MAX_DOCUMENT_ITEMS tests are written."""
    from crparse.examples.bounds import MAX_DOCUMENT_ITEMS

    path = tmp_path / "many.txt"
    path.write_text(_many_examples(400))
    out = tmp_path / "generated"
    done = crparse("examples", str(path), "--json", "--emit-pytest", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    passed = sum(r["status"] == "passed" for r in results)
    spent = sum("the document's examples up to this one cost" in (r["reason"] or "") for r in results)
    assert 0 < passed < 400 and passed + spent == 400
    (written,) = out.glob("test_*.py")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(written)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120)
    assert f"{passed} passed, {spent} skipped" in run.stdout, run.stdout[-2000:]
    assert "the document's examples up to this one cost" in run.stdout
    # past the bound: not written, and said
    path.write_text(_many_examples(MAX_DOCUMENT_ITEMS + 7))
    done = crparse("examples", str(path), "--emit-pytest", str(out))
    assert done.returncode == 0, done.stderr
    assert written.read_text().count("\ndef test_") == MAX_DOCUMENT_ITEMS
    assert f"7 examples past the {MAX_DOCUMENT_ITEMS:,} a document's tests may be" in done.stderr


def test_the_pytest_plugin_collects_examples_and_shows_a_failure(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    changed = dict(EXAMPLES, **{"810.9a": EXAMPLES["810.9a"].replace("34 life", "33 life")})
    document(docs, changed)
    (docs / "README.md").write_text("# not a CR\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cr-examples", str(docs), "-v"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120)
    assert "cr.txt::801.2c#1 PASSED" in run.stdout, run.stdout[-3000:]
    assert "cr.txt::810.9a#1 FAILED" in run.stdout
    assert "the team is at 34 life (the example: 33)" in run.stdout  # the outcome, and what the model said
    assert "Beacon of Immortality" in run.stdout  # the example's text
    assert run.returncode == 1


def test_the_plugin_imports_nothing_above_path_nor_a_package_s_init_nor_a_link_s_target_s(tmp_path):
    """A conftest.py in PATH's parent, the __init__.py of a directory of documents, and the
    conftest.py beside the target of a PATH that is a link all ran (sweep 19)."""
    evil = tmp_path / "evil"
    (evil / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "lk").mkdir()
    marks = {name: tmp_path / f"RAN_{name}" for name in ("parent", "init", "target")}
    for where, name in ((evil / "conftest.py", "parent"), (evil / "docs" / "__init__.py", "init"),
                        (evil / "docs" / "sub" / "__init__.py", "init"), (tmp_path / "outside" / "conftest.py", "target")):
        where.write_text(f"open({str(marks[name])!r}, 'w').write('ran')\n")
    document(evil / "docs" / "sub")
    (tmp_path / "lk" / "cr.txt").symlink_to(document(tmp_path / "outside"))
    for cwd, path in ((tmp_path, evil / "docs"), (tmp_path / "lk", tmp_path / "lk" / "cr.txt")):
        run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "--cr-examples",
                              str(path), "-v"], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                             cwd=cwd, timeout=120, check=False)
        assert "801.2c#1 PASSED" in run.stdout, run.stdout[-3000:]
    assert [name for name, mark in marks.items() if mark.exists()] == []


@pytest.mark.parametrize("config_file, text", [
    ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-p evil"\npythonpath = ["."]\n'),
    ("pytest.ini", "[pytest]\naddopts = -p evil\npythonpath = .\n"),
])
def test_a_pytest_configuration_found_from_path_stops_the_run(tmp_path, config_file, text):
    """Given as `--cr-examples PATH`, PATH is a test path to pytest while it looks for its
    configuration, before plugins load: a pyproject.toml above PATH ran its addopts' `-p evil`
    and the run passed (sweep 20). The run now stops and says to give --cr-examples=PATH, with
    which nothing of PATH's is read."""
    archive, elsewhere = tmp_path / "archive", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (archive / "docs").mkdir(parents=True)
    document(archive / "docs")
    (archive / config_file).write_text(text)
    mark = tmp_path / "RAN"
    (archive / "evil.py").write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0"]
    spaced = subprocess.run([*base, "--cr-examples", "../archive/docs"], capture_output=True, text=True, env=env,
                            cwd=elsewhere, timeout=120, check=False)
    assert spaced.returncode == 4 and "give --cr-examples=PATH" in spaced.stderr, (spaced.stdout, spaced.stderr)
    mark.unlink(missing_ok=True)  # pytest imported it before any plugin could be asked
    joined = subprocess.run([*base, "--cr-examples=../archive/docs", "-v"], capture_output=True, text=True, env=env,
                            cwd=elsewhere, timeout=120, check=False)
    assert "801.2c#1 PASSED" in joined.stdout and not mark.exists(), joined.stdout[-2000:]


def test_the_plugin_imports_no_conftest_of_the_documents_at_all(tmp_path):
    """A conftest.py in the documents' own directory, in one below it, and in the target of a
    PATH that is a link to a directory all ran (sweep 21): documents are data, not a test suite."""
    docs, elsewhere = tmp_path / "a" / "docs", tmp_path / "c"
    (docs / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    mark = tmp_path / "RAN"
    for where in (docs, docs / "sub"):
        (where / "conftest.py").write_text(f"open({str(mark)!r}, 'a').write({str(where)!r} + '\\n')\n")
    document(docs / "sub")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "link").symlink_to(docs)
    for path in (docs, docs / "sub" / "cr.txt", tmp_path / "b" / "link"):
        run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0",
                              f"--cr-examples={os.path.relpath(path, elsewhere)}", "-v"], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=elsewhere, timeout=120, check=False)
        assert "801.2c#1 PASSED" in run.stdout, run.stdout[-3000:]
    assert not mark.exists(), mark.read_text()


@pytest.mark.parametrize("form", ["joined", "spaced"])
def test_no_conftest_is_imported_before_the_plugin_is_configured(tmp_path, form):
    """pytest loads the conftest.py of the directory it starts in and of its test* directories
    before plugins are configured: a documents' directory named testdata had its conftest.py
    imported; and with `--cr-examples PATH` and no ini file, that of the directory PATH and the
    start share (sweep 22)."""
    project = tmp_path / "bundle" / "project"
    docs = project / "testdata"
    docs.mkdir(parents=True)
    document(docs)
    mark = tmp_path / "RAN"
    for where in (docs, tmp_path / "bundle"):
        (where / "conftest.py").write_text(f"open({str(mark)!r}, 'a').write({str(where)!r} + '\\n')\n")
    option = ["--cr-examples=testdata"] if form == "joined" else ["--cr-examples", "testdata"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *option, "-v"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=project,
                         timeout=120, check=False)
    assert "801.2c#1 PASSED" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    assert not mark.exists(), mark.read_text()


def _plugin(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *args],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=cwd,
                          timeout=120, check=False)


def test_the_plugin_holds_a_document_to_the_budget_crparse_examples_has(tmp_path):
    """The plugin ran each example with no budget: 100 long distinct examples, 22 s, against
    2.9 s for `crparse examples`, which stops at the document's budget (sweep 24). The items past
    it are skipped as unsupported, saying why, as `crparse examples` reports them."""
    from hostile_inputs import long_distinct_examples

    docs = tmp_path / "docs"
    docs.mkdir()
    examples = {f"801.{i + 10}": text for i, text in enumerate(long_distinct_examples())}
    document(docs, examples)
    run = _plugin([f"--cr-examples={docs}", "-rs"], tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    # -rs prints each reason once, with the number of items it is the reason of
    over = sum(int(re.match(r"SKIPPED \[(\d+)\]", line)[1]) for line in run.stdout.splitlines()
               if "it reads in one document" in line)
    cli = subprocess.run([sys.executable, "-m", "crparse", "examples", str(docs / "cr.txt")], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120, check=False)
    assert over == cli.stdout.count("it reads in one document") > 20, (over, cli.stdout[-2000:])


def test_an_empty_path_is_a_usage_error_and_runs_nothing_of_the_directory(tmp_path):
    """`--cr-examples=` turned the plugin off (the option tested for truth): pytest collected the
    directory it started in and imported its conftest.py, and ran its test_*.py (sweep 24)."""
    mark = tmp_path / "RAN"
    (tmp_path / "conftest.py").write_text(f"open({str(mark)!r}, 'a').write('conftest')\n")
    (tmp_path / "test_here.py").write_text(f"def test_x():\n    open({str(mark)!r}, 'a').write('test')\n")
    document(tmp_path)
    run = _plugin(["--cr-examples="], tmp_path)
    assert run.returncode == 4 and "--cr-examples: the PATH given is empty" in run.stderr, run.stdout + run.stderr
    assert not mark.exists(), mark.read_text()


@pytest.mark.parametrize("name", ["a::b", "c[1]", "d[x]::e"])
def test_a_path_pytest_would_read_as_a_test_id_is_collected(tmp_path, name):
    """pytest reads `a::b` as test b of file a, `c[1]` as a parametrization: a PATH named so was
    refused as not found, or as a path with a parametrization (sweep 24)."""
    docs = tmp_path / name
    (docs / "sub").mkdir(parents=True)
    document(docs / "sub")
    document(tmp_path, name="beside.txt")  # above PATH: not collected
    for path in (docs, docs / "sub" / "cr.txt"):
        run = _plugin([f"--cr-examples={path}", "-v"], tmp_path)
        assert run.returncode == 0 and "801.2c#1 PASSED" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
        assert "beside.txt" not in run.stdout
        assert run.stdout.count("PASSED") == 3


@pytest.mark.parametrize("name", ["rules.py", "conftest.py", "test_doc.py", "rules.pyc", ".hidden"])
def test_a_path_that_is_no_cr_document_is_a_usage_error_and_runs_nothing(tmp_path, name):
    """pytest collects a file given to it as it is: `--cr-examples=docs/rules.py` imported it and
    the package's __init__.py, and `=docs/conftest.py` that conftest.py (sweep 25)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    mark = tmp_path / "RAN"
    (docs / "__init__.py").write_text(f"open({str(mark)!r}, 'a').write('init')\n")
    text = document(tmp_path).read_text()
    (docs / name).write_text(f"'''{text}'''\nopen({str(mark)!r}, 'a').write('document')\n")
    run = _plugin([f"--cr-examples={docs / name}"], tmp_path)
    assert run.returncode == 4 and f"--cr-examples: {docs / name} is not a directory nor a CR document" in run.stderr, \
        run.stdout[-2000:] + run.stderr[-2000:]
    assert not mark.exists(), mark.read_text()


def test_a_path_named_without_a_document_s_suffix_is_read_as_in_a_directory(tmp_path):
    """`--cr-examples=DIR` collects `DIR/cr-2026-01-16`; given alone, it was a usage error (sweep
    41). A large file not named as a document, in a directory, is passed over: a photo beside the
    releases ended the session as a document too large (sweep 41)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    release = document(docs, name="cr-2026-01-16")
    alone = _plugin([f"--cr-examples={release}", "--collect-only", "-q"], tmp_path)
    assert alone.returncode == 0 and "cr-2026-01-16::" in alone.stdout, alone.stdout[-2000:] + alone.stderr[-2000:]
    (docs / "cover.jpg").write_bytes(os.urandom(1024) * 5 * 1024)
    beside = _plugin([f"--cr-examples={docs}", "--collect-only", "-q"], tmp_path)
    assert beside.returncode == 0 and "cr-2026-01-16::" in beside.stdout and "cover.jpg" not in beside.stdout, \
        beside.stdout[-2000:]


def test_the_plugin_collects_documents_in_directories_pytest_passes_over(tmp_path):
    """pytest's norecursedirs (build, dist, venv, node_modules, *.egg, a virtualenv...) left the
    documents crparse's walk lists there uncollected, without a word (sweep 26)."""
    docs = tmp_path / "docs"
    for name in ("plain", "build", "dist", "venv", "x.egg", "node_modules", "__pycache__", "pyenv"):
        (docs / name).mkdir(parents=True)
        document(docs / name)
    (docs / "pyenv" / "pyvenv.cfg").write_text("home = /usr\n")
    run = _plugin([f"--cr-examples={docs}", "-v"], tmp_path)
    assert run.returncode == 0 and run.stdout.count("801.2c#1 PASSED") == 8, run.stdout[-3000:]


def test_the_plugin_collects_a_bounded_number_of_a_document_s_examples(tmp_path):
    """pytest's own cost is about half a millisecond an item: 49,000 copies of one short example
    took 33 s and 298 MB, where `crparse examples` takes 0.9 s (sweep 26). Past MAX_DOCUMENT_ITEMS
    the rest are not collected, and a warning says so."""
    from crparse.examples.bounds import MAX_DOCUMENT_ITEMS

    docs = tmp_path / "docs"
    docs.mkdir()
    head = ("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 16, 2026.\n\n"
            "800. General\n\n800.1. Text.\n\n800.2. A rule.\n\n")
    (docs / "many.txt").write_text(head + "Example: Alex is.\n\n" * (MAX_DOCUMENT_ITEMS + 50))
    run = _plugin([f"--cr-examples={docs}", "-q"], tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"{MAX_DOCUMENT_ITEMS} skipped" in run.stdout, run.stdout[-500:]  # "Alex is." no template reads
    assert f"50 examples past the {MAX_DOCUMENT_ITEMS:,}" in run.stdout, run.stdout[-1500:]


@pytest.mark.parametrize("kind", ["fifo", "device", "missing"])
def test_a_path_that_is_no_regular_file_is_a_one_line_usage_error(tmp_path, kind):
    """A FIFO or a link to a device was "not found" to pytest, in two lines, though it is there
    (sweep 28)."""
    path = tmp_path / "doc.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/null")
    run = _plugin([f"--cr-examples={path}"], tmp_path)
    said = {"fifo": "not a regular file (a FIFO)", "device": "not a regular file (a device)",
            "missing": "cannot be read: No such file or directory"}[kind]
    assert run.returncode == 4 and f"ERROR: --cr-examples: {path}: {said}" in run.stderr, run.stderr[-1000:]


_SESSIONS = """
import sys
import crparse.parallel
import pytest

calls = []
parse_all = crparse.parallel.parse_all
crparse.parallel.parse_all = lambda paths, *a, **k: calls.append(len(paths)) or parse_all(paths, *a, **k)
for path in sys.argv[1:]:
    code = pytest.main(["-p", "no:cacheprovider", "-n", "0", "--collect-only", "-q", f"--cr-examples={path}"])
    print("SESSION", code, len(calls), sum(calls))
"""


def test_the_plugin_parses_a_directory_once_and_each_session_for_itself(tmp_path):
    """A directory of no documents was parsed again for every path pytest visited (its empty list
    read as not yet found: 200 files, 16.5 s), and a second session in one process (pytest.main
    called again) collected nothing, reusing the first one's list (review)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(20):
        (notes / f"note{n}").write_text("A note, no rules.\n")
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    document(first)
    document(second, name="other.txt")
    run = subprocess.run([sys.executable, "-c", _SESSIONS, str(notes), str(first), str(second)], check=False,
                         capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=tmp_path, timeout=120)
    sessions = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("SESSION")]
    # notes: no tests (exit 5), one parse of its 20 files; then one parse of each document
    assert sessions == [["5", "1", "20"], ["0", "2", "21"], ["0", "3", "22"]], run.stdout[-3000:] + run.stderr[-2000:]
    assert "a/cr.txt::" in run.stdout and "b/other.txt::" in run.stdout


def test_a_path_named_without_a_document_s_suffix_and_refused_says_why(tmp_path):
    """Given as PATH, it is the user's document: refused, pytest said it was "not found" (review)."""
    release = document(tmp_path, name="cr-2026-01-16")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0",
                          f"--cr-examples={release}"], check=False, capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_MAX_INPUT="512"))
    assert run.returncode == 2 and f"crparse: {release}: input larger than the 512 bytes limit" in run.stdout, \
        run.stdout[-2000:] + run.stderr[-2000:]
    assert "not found" not in run.stdout + run.stderr


def test_a_sphinx_project_beside_the_releases_is_no_document_of_the_plugin(tmp_path):
    """Any toctree warning (a URL, an unnamed .rst file, a missing entry) was taken for rules a
    limit left unread: a project's docs/index.rst was a collection error that ended the session
    (review). A limit that left a chapter unread still is one."""
    docs = tmp_path / "docs"
    (docs / "project").mkdir(parents=True)
    document(docs)
    (docs / "project" / "index.rst").write_text("Project\n=======\n\n.. toctree::\n\n   https://example.com\n   missing\n")
    (docs / "project" / "other.rst").write_text("Other\n=====\n\nText.\n")
    (docs / "limited").mkdir()
    (docs / "limited" / "index.rst").write_text("Rules\n=====\n\n.. toctree::\n\n   rules\n")
    (docs / "limited" / "rules.rst").write_text("800. General\n\n800.1. " + "Long text. " * 200 + "\n\n800.2. Two.\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", f"--cr-examples={docs}"],
                         check=False, capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_MAX_INPUT="2K"))
    assert run.returncode == 2 and "ERROR collecting docs/limited/index.rst" in run.stdout, run.stdout[-3000:]
    assert "project/index.rst" not in run.stdout and "1 error" in run.stdout, run.stdout[-3000:]
