"""Every historical release in ../shared/corpus/: counts against the corpus study's independent
counts, losslessness, encodings and dates against the manifest, damaged copies, the non-CR."""

from __future__ import annotations

import csv
import json
import re

import pytest
from conftest import DATA, corpus_dir, lost_words, parsed, txt_releases

import crparse
from crparse.decode import decode

pytestmark = pytest.mark.corpus

RELEASES = txt_releases()
ENCODINGS = {"ASCII": "ascii", "UTF-8": "utf-8", "UTF-8 BOM": "utf-8", "UTF-16LE BOM": "utf-16-le",
             "UTF-16BE BOM": "utf-16-be", "cp1252": "cp1252", "cp437": "cp437", "mac_roman": "mac_roman"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


def study_counts() -> dict[str, dict[str, int]]:
    with open(DATA / "study_counts.tsv", encoding="utf-8") as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
        return {r["date"]: {k: int(v) for k, v in r.items() if k != "date"} for r in rows}


def ids(paths):
    return [p.stem for p in paths]


def test_corpus_has_112_releases(corpus):
    assert len(RELEASES) == 112


@pytest.mark.parametrize("path", RELEASES, ids=ids(RELEASES))
def test_counts_agree_with_the_independent_study(path):
    """The study counted rule lines with ^\\s*\\d{3}\\.\\d+[a-z]?\\.?(?=\\s|$): it misses the lines
    printed as "305.3.The" and "606. 8b", which the parser reads (and flags). Everything else
    must agree exactly."""
    doc = parsed(path)
    expected = study_counts()[path.stem]
    c = doc.counts()
    unseen = [d for d in doc.diagnostics if d.code in ("no-space-after-number", "spaced-number")]
    unseen_lettered = [d for d in unseen if re.search(r"\d[a-z]\b", d.message.split()[0])]
    assert c["rules"] + c["subrules"] - len(unseen) == expected["rules"]
    assert c["subrules"] - len(unseen_lettered) == expected["lettered"]
    assert c["examples"] == expected["examples"]
    assert c["glossary"] == expected["glossary"]


@pytest.mark.parametrize("path", RELEASES, ids=ids(RELEASES))
def test_lossless(path):
    doc = parsed(path)
    text = decode(path.read_bytes()).text
    lines = text.split("\n")
    covered = set()
    for first, last, where in doc.accounted_lines():
        span = set(range(first, last + 1))
        assert not (span & covered), f"lines {first}-{last} ({where}) placed twice"
        covered |= span
    missing = [i + 1 for i, line in enumerate(lines) if line.strip() and i + 1 not in covered]
    assert missing == []
    assert not [d for d in doc.diagnostics if d.severity == "error"]
    # Every word of the input appears in the output as often as in the input.
    assert lost_words(doc, text) == {}


def test_encodings_and_dates_match_the_manifest(manifest):
    checked = 0
    for row in manifest:
        if not row["file"].startswith("txt/"):
            continue
        doc = parsed(corpus_dir() / row["file"])
        assert doc.source.encoding == ENCODINGS[row["encoding"]], row["file"]
        assert doc.source.bom == ("BOM" in row["encoding"]), row["file"]
        stated = row["effective_date_in_text"]
        if stated:
            month, day, year = stated.replace(",", "").split()
            assert doc.effective_date == f"{year}-{MONTHS.index(month) + 1:02d}-{int(day):02d}", row["file"]
        else:
            assert doc.effective_date is not None, row["file"]
        checked += 1
    assert checked == 112


@pytest.mark.parametrize(
    ("name", "code"),
    [("2013-02-01.txt", "truncated"), ("2016-08-26.txt", "mangled-utf16"), ("2008-05-01.txt", "lossy-question-marks")],
)
def test_damaged_copies_name_their_damage(corpus, name, code):
    doc = crparse.parse(corpus / "damaged" / name)
    assert code in {d.code for d in doc.diagnostics}
    assert doc.counts()["rules"] + doc.counts()["subrules"] > 1000


def test_mangled_utf16_copy_keeps_the_rules(corpus):
    damaged = crparse.parse(corpus / "damaged" / "2016-08-26.txt")
    clean = parsed(corpus / "txt" / "2016-08-26.txt")
    assert [r.number for r in damaged.rules] == [r.number for r in clean.rules]


def test_not_a_cr_is_refused(corpus):
    with pytest.raises(crparse.RefusedInput, match="not a Comprehensive Rules document"):
        crparse.parse(corpus / "not-cr" / "1999-04-21.txt")


def test_clean_releases_have_no_damage_warnings():
    damaged_in_source = {"1999-04-23", "2001-07-23", "2002-02-20", "2008-05-01", "2009-05-01"}
    for path in RELEASES:
        codes = {d.code for d in parsed(path).diagnostics}
        damage = codes & {"replacement-characters", "lossy-question-marks", "mangled-utf16", "truncated", "mixed-encoding"}
        assert bool(damage) == (path.stem in damaged_in_source), (path.stem, damage)


@pytest.mark.parametrize("stem", ["1999-04-23", "2003-10-01", "2016-08-26", "2026-01-16"])
def test_schema_valid_across_eras(corpus, stem):
    import jsonschema

    from crparse.writers.json import schema

    doc = json.loads(crparse.to_json(parsed(corpus / "txt" / f"{stem}.txt")))
    jsonschema.Draft202012Validator(schema()).validate(doc)


def test_truncations_of_a_real_release_never_crash(corpus):
    data = (corpus / "txt" / "2003-10-01.txt").read_bytes()
    for cut in range(1000, len(data), len(data) // 23):
        try:
            doc = crparse.parse(data[:cut])
        except crparse.RefusedInput:
            continue
        assert not [d for d in doc.diagnostics if d.code == "unaccounted-lines"]
