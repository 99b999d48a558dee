"""Control characters of the input in crparse's text output: rule text, a title, a glossary term
or a file name holding ESC sequences (set the window's title, clear the screen, colour what
follows) reached the terminal raw in `crparse diff` (found by a fresh sweep). Every text output
shows them escaped (`\\x1b`, crparse.writers.summary.printable), keeping tabs and line breaks and
the colours crparse itself adds; JSON keeps them as JSON escapes. `crparse text` prints the
source lines as they are (its job), so it is not here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from small_releases import write_releases

ROOT = Path(__file__).resolve().parents[1]

# OSC 0 (window title), BEL, clear screen, red, CSI as a C1 character, and a right-to-left override
BAD = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mRED\u009b31m\u202etxt.exe"
SHOWN = r"\x1b]0;PWNED\x07\x1b[2J\x1b[31mRED\x9b31m\u202etxt.exe"
# what a terminal could take as a command (C0 but tab and line feed, DEL, C1), or reorder the
# line by (bidi embeddings, overrides and isolates)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# the only escape sequences crparse writes itself: diff --color's
OWN_COLOURS = re.compile(r"\x1b\[(?:0|1|2|31|32)m")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = write_releases(tmp_path_factory.mktemp("escapes") / "releases", 2)
    for path in folder.glob("*.txt"):
        text = path.read_text()
        text = text.replace("Comprehensive Rules", f"Comprehensive Rules{BAD}", 1)
        text = text.replace("Active Player\nThe player whose turn it is.",
                            f"Active{BAD}Player\nThe player whose turn it is (see rule 100.1).")
        if path.name == "2020-04-01.txt":
            text = text.replace("their own deck", f"their own deck {BAD}")
        path.write_text(text)
    return folder


@pytest.fixture(scope="module")
def store(corpus) -> str:
    db = str(corpus.parent / "store.sqlite")
    assert crparse("index", str(corpus), "--db", db).returncode == 0
    return db


def crparse(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), CRPARSE_JOBS="1"), timeout=120)


def _shown_not_raw(done: subprocess.CompletedProcess, *, colours: bool = False) -> str:
    for stream in (done.stdout, done.stderr):
        raw = RAW.findall(OWN_COLOURS.sub("", stream) if colours else stream)
        assert not raw, (raw[:5], stream[-2000:])
    return done.stdout + done.stderr


def test_diff_shows_the_escapes_of_rule_text(corpus):
    old, new = str(corpus / "2020-01-01.txt"), str(corpus / "2020-04-01.txt")
    out = _shown_not_raw(crparse("diff", old, new))
    assert "{+" + SHOWN in out  # the inserted words, escaped
    coloured = crparse("diff", old, new, "--color", "always")
    out = _shown_not_raw(coloured, colours=True)
    assert "\x1b[32m" + SHOWN in out and "\x1b[1mChanged:\x1b[0m" in out  # crparse's own colours kept
    page = crparse("diff", old, new, "--html")
    assert SHOWN in _shown_not_raw(page)
    data = json.loads(crparse("diff", old, new, "--json").stdout)  # JSON: the text as it is
    assert any(BAD in text for p in data["pairs"] for _, text in p["words"])


def test_history_search_and_identify_show_the_escapes(corpus, store, tmp_path):
    out = _shown_not_raw(crparse("history", "100.3", "--db", store))
    assert SHOWN in out
    assert f"glossary:Active{SHOWN}Player" in _shown_not_raw(crparse("history", f"glossary:Active{BAD}Player", "--db", store))
    assert "100.3" in _shown_not_raw(crparse("search", f"their own deck {BAD}", "--db", store))
    fragment = tmp_path / f"copy{BAD}.txt"
    fragment.write_text((corpus / "2020-04-01.txt").read_text())
    out = _shown_not_raw(crparse("identify", str(fragment), "--db", store))
    assert f"copy{SHOWN}.txt" in out
    assert json.loads(crparse("history", "100.3", "--json", "--db", store).stdout)["versions"][-1]["text"].count(BAD) == 1


def test_parse_summary_and_refs_show_the_escapes(corpus):
    release = str(corpus / "2020-04-01.txt")
    assert f"title: Magic: The Gathering Comprehensive Rules{SHOWN}" in _shown_not_raw(crparse("parse", release))
    assert f"glossary:Active{SHOWN}Player: rule 100.1" in _shown_not_raw(crparse("refs", release, "100.1"))
    out = _shown_not_raw(crparse("refs", release, f"glossary:Active{BAD}Player"))
    assert f"glossary:Active{SHOWN}Player" in out and "cites (1)" in out
    _shown_not_raw(crparse("refs", release))


def test_docs_and_emit_pytest_show_the_escapes_of_their_paths(corpus, tmp_path):
    """The last line of `docs` printed OUT raw, and `examples --emit-pytest DIR` its DIR (sweep 12)."""
    release = str(corpus / "2020-04-01.txt")
    out = tmp_path / f"site{BAD}"
    assert SHOWN in _shown_not_raw(crparse("docs", release, "-o", str(out), "--jobs", "1"))
    tests = tmp_path / f"tests{BAD}"
    assert SHOWN in _shown_not_raw(crparse("examples", release, "--emit-pytest", str(tests)))
