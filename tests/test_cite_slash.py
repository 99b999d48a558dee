"""cite-check: citations joined by a slash ("CR 704.5f / 704.5i", "rules 702.19b/c") are a list,
each number checked; dates, fractions, paths and URLs stay what they are."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

import crparse
from crparse.cli.main import main
from crparse.refs.cite import citations
from crparse.refs.grammar import phrases

CR = FIXTURES / "references.txt"  # has 702.1, 704, 704.5a, 704.5j, k, m, n, p; no 704.5f


@pytest.fixture(scope="module")
def doc():
    return crparse.parse(CR)


def found(text, doc):
    return [(c.text, [(i.first, i.last) for i in c.cited]) for c in citations(text, doc)]


@pytest.mark.parametrize(
    "text, written, cited",
    [
        (
            "CR 704.5f / 704.5i / 704.5v",
            "CR 704.5f / 704.5i / 704.5v",
            [("704.5f",) * 2, ("704.5i",) * 2, ("704.5v",) * 2],
        ),
        ("See CR 704.5j/704.5k.", "CR 704.5j/704.5k", [("704.5j",) * 2, ("704.5k",) * 2]),
        ("rule 704.5j /704.5k", "rule 704.5j /704.5k", [("704.5j",) * 2, ("704.5k",) * 2]),
        ("per rules 702.19b/c", "rules 702.19b/c", [("702.19b",) * 2, ("702.19c",) * 2]),
        ("CR 704.5f/g applies", "CR 704.5f/g", [("704.5f",) * 2, ("704.5g",) * 2]),
        ("CR 704.5j / m / n.", "CR 704.5j / m / n", [("704.5j",) * 2, ("704.5m",) * 2, ("704.5n",) * 2]),
        ("x = 1  // 704.5j/704.5k", "704.5j/704.5k", [("704.5j",) * 2, ("704.5k",) * 2]),
        ("# 704.5j / 704.5p: legend rule", "704.5j / 704.5p", [("704.5j",) * 2, ("704.5p",) * 2]),
        ("-- 704.5a/704.5k", "704.5a/704.5k", [("704.5a",) * 2, ("704.5k",) * 2]),
        ("CR 704.5j–m/704.5p", "CR 704.5j–m/704.5p", [("704.5j", "704.5m"), ("704.5p",) * 2]),
        ("CR 704/702", "CR 704/702", [("704",) * 2, ("702",) * 2]),
        ("rules 704.5j and/or 704.5k", "rules 704.5j and/or 704.5k", [("704.5j",) * 2, ("704.5k",) * 2]),
        ("rules 704.5j and/or k.", "rules 704.5j and/or k", [("704.5j",) * 2, ("704.5k",) * 2]),
    ],
)
def test_a_slash_joins_citations_into_a_list(doc, text, written, cited):
    assert found(text, doc) == [(written, cited)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Released 2024/01/16.", []),
        ("CR 2024/01/16", []),
        ("a 1/2 chance; rule 1/2", []),
        ("open src/704.5f or docs/rules/704.5k.md", []),
        ("https://example.com/rules/704.5f/704.5g", []),
        ("fetch('http://127.0.0.1/704.5k')", []),
        ("CR 704.5k, 2024/01/16", [("CR 704.5k", [("704.5k",) * 2])]),
        ("CR 704.5k/2024/01/16", [("CR 704.5k", [("704.5k",) * 2])]),
        ("CR 704.5k/1/2", [("CR 704.5k", [("704.5k",) * 2])]),
        ("CR 704.5k/src/main.py", [("CR 704.5k", [("704.5k",) * 2])]),
        ("CR 704.5k // 704.5j", [("CR 704.5k", [("704.5k",) * 2]), ("704.5j", [("704.5j",) * 2])]),
        ("CR 704.5k and/or a creature", [("CR 704.5k", [("704.5k",) * 2])]),
        ("704.5j/704.5k", []),  # no keyword nor comment marker: in code a bare number may be a float
    ],
)
def test_what_a_slash_does_not_join(doc, text, expected):
    assert found(text, doc) == expected


def test_a_stale_number_in_a_slash_list_is_reported(doc):
    (c,) = citations("CR 704.5k / 704.5z / 704.5m", doc)
    assert c.missing == ("704.5z",)
    (c,) = citations("rules 704.5j/q", doc)
    assert c.missing == ("704.5q",)


def test_cli_cite_check_reports_a_stale_number_in_a_slash_list(tmp_path, capsys):
    code = tmp_path / "sba.rs"
    code.write_text("// CR 704.5j/704.5k\nfn f() {}\n/// 704.5k / 704.5z / 704.5m\n", encoding="utf-8")
    assert main(["cite-check", str(code), "--cr", str(CR)]) == 1
    out, err = capsys.readouterr()
    assert out == f"{code}:3:5: 704.5k / 704.5z / 704.5m: no rule 704.5z in the CR of 2026-01-16\n"
    assert "2 citations in 1 files; 1 stale" in err
    code.write_text("// CR 704.5j/704.5k\n", encoding="utf-8")
    assert main(["cite-check", str(code), "--cr", str(CR)]) == 0


def test_the_slash_is_cite_checks_only():
    # No release 1999-2026 has a slash between rule numbers; a slash in the CR is power and
    # toughness ("a 1/1 creature"), which must stay out of a reference. (A bare number is a
    # reference there, so 704.5k is found on its own.)
    text = "See rule 704.5j/704.5k and a 1/1 creature."
    assert [text[c.start : c.end] for c in phrases(text)] == ["rule 704.5j", "704.5k"]


@pytest.mark.parametrize("text, stale", [
    ("CR 100.1" + " / 100.2" * 100 + " / 999.9z", "999.9z"),
    ("rules 100.1" + ", 100.2" * 300 + ", and 999.9z.", "999.9z"),
    # letters need the rule before them: the list went on from no rule number (sweep 13)
    ("CR 704.5j" + "/k" * 100 + "/z", "704.5z"),
    ("CR 704.5j" + "/k" * 500 + "/z", "704.5z"),
    ("rules 704.5j" + ", k" * 200 + ", and z.", "704.5z"),
])
def test_a_stale_number_at_the_end_of_a_long_list_is_reported(doc, text, stale):
    """A list is read MAX_RUN tokens at a time; in a file given to cite-check, whose rule numbers
    are no anchors of their own, the rest after the first run was never read (sweep 12)."""
    assert [m for c in citations(text, doc) for m in c.missing] == [stale]
    for c in citations(text, doc):  # each shown from where it is in the text, as it is there
        assert c.text.strip(" ,/.") and text[c.column - 1 :].startswith(c.text), c


def test_a_file_of_a_walk_that_cannot_be_read_is_said(tmp_path, capsys):
    """A file over the input limit (holding a stale citation) and a dangling link, met in a
    directory: "0 citations in 0 files", exit 0 (sweep 14). Binary files, which a source tree
    holds many of, are still passed over without a word."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "big.c").write_text("// CR 999.9z\n" + "x" * (4 << 20), encoding="utf-8")
    (code / "gone.c").symlink_to(tmp_path / "nothing.c")
    (code / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2)
    (code / "ok.c").write_text("// CR 704.5k\n", encoding="utf-8")
    (code / "wide.c").write_text("// CR 999.9z\n", encoding="utf-32")  # text, if one it cannot read (sweep 15)
    (code / "nul.c").write_bytes(b"// CR 999.9z\n" * 50 + b"int x;\0\n")  # a stray NUL in a text (sweep 16)
    assert main(["cite-check", str(code), "--cr", str(CR)]) == 2
    err = capsys.readouterr().err
    assert "big.c: " in err and "CRPARSE_MAX_INPUT" in err and "gone.c: " in err, err
    assert "wide.c: UTF-32 text is not supported" in err, err
    assert "nul.c:51: binary data" in err, err
    assert "image.png" not in err and "1 citations in 1 files" in err, err
