"""Executable examples over the historical releases (../shared/corpus, skipped where absent):
the multiplayer chapter of every release since 2005-08-01 passes under its own rules date, and each
dated outcome change the model holds shows: an example printed before the change fails under the
rules after it, and the other way round."""

from __future__ import annotations

import pytest
from conftest import corpus_dir, parsed

from crparse.examples import cases, check, run_examples

pytestmark = pytest.mark.corpus


def _release(date: str):
    path = corpus_dir() / "txt" / f"{date}.txt"
    if not path.exists():
        pytest.skip(f"release {date} not in the corpus at {corpus_dir()}")
    return parsed(path)


def _multiplayer(doc) -> list:
    chapter = "6" if doc.effective_date < "2009-07" else "8"
    return [r for r in run_examples(doc, rules_date=doc.effective_date)
            if r.case.rule.startswith(chapter) and (chapter == "8" or r.case.rule < "612")]


def test_the_newest_release_passes_its_multiplayer_examples(corpus):
    results = _multiplayer(_release("2026-01-16"))
    assert len(results) == 35
    passed = [r for r in results if r.status == "passed"]
    assert len(passed) >= 30, [(r.case.name, r.status, r.reason) for r in results if r.status != "passed"]
    assert not [r for r in results if r.status == "failed"]


def test_every_release_since_2005_passes_85_percent_under_its_own_rules(corpus):
    low, failed = [], []
    for path in sorted((corpus / "txt").glob("*.txt")):
        doc = parsed(path)
        if not doc.effective_date or doc.effective_date < "2005-08-01":
            continue
        results = _multiplayer(doc)
        share = sum(r.status == "passed" for r in results) / len(results)
        if share < 0.85:
            low.append((doc.effective_date, round(share, 2)))
        failed += [(doc.effective_date, r.case.name, r.reason) for r in results if r.status == "failed"]
    assert low == [] and failed == []


def _example(date: str, rule: str, phrase: str) -> tuple[str, str | None]:
    for case in cases(_release(date)):
        if case.rule.startswith(rule) and phrase in case.text.replace("’", "'"):
            return case.text, case.previous
    raise AssertionError(f"no example of {rule} with {phrase!r} in {date}")


# Each change: examples (release, rule, a phrase of the example) with a rules date they hold under and
# one across the change where they must fail.
CHANGES = [
    ("2HG 'life total becomes N' (2005-10-01)", [
        ("2005-08-01", "606.9c", "sets that team's life total to 26", "2005-08-01", "2006-02-01"),
        ("2006-02-01", "606.9c", "team's life total becomes 32", "2006-02-01", "2005-08-01")]),
    # Until 2006-10-01 a departed player's leftovers left the game; then they were placed in the
    # removed-from-the-game zone, which M10 (2009-07-11) named exile: "leaves the game" holds up to
    # 2009-07-11, "is exiled" from 2006-10-01.
    ("Bribery: leftovers removed, then exiled", [
        ("2009-05-01", "600.4a", "Wall of Wood still leaves the game", "2009-05-01", "2009-09-04"),
        ("2009-09-04", "800.4a", "is exiled", "2009-09-04", "2006-07-15")]),
    ("Genesis Chamber tokens (2009-07-11)", [
        ("2009-05-01", "600.4a", "Alex owns the tokens", "2009-05-01", "2009-09-04"),
        ("2009-09-04", "800.4a", "remain in the game", "2009-09-04", "2009-05-01")]),
    ("Test of Endurance, 2HG individual life (2010-04-23)", [
        ("2010-02-01", "806.10a", "99 or more", "2010-02-01", "2010-07-16"),
        ("2010-07-16", "810.9a", "50 or more", "2010-07-16", "2010-02-01")]),
    ("2HG 'life total becomes 10' (2010-04-23)", [
        ("2010-02-01", "806.10c", "becomes 32", "2010-02-01", "2010-07-16"),
        ("2010-07-16", "810.9c", "winds up at 10 life", "2010-07-16", "2010-02-01")]),
    ("Beacon of Immortality (2HG life = the team's, 2010-04-23)", [
        ("2010-07-16", "810.9a", "Beacon of Immortality", "2010-07-16", "2010-02-01")]),
    ("Coat of Arms, whose range counts (2011-05-01)", [
        ("2011-04-01", "801.11", "controlled by Rob and Alex", "2011-04-01", "2011-05-01"),
        ("2011-05-01", "801.11", "who's out of Rob's range", "2011-05-01", "2011-04-01")]),
    ("legend rule within range (2013-07-11)", [
        ("2013-02-01", "801.12", "legendary permanent", "2013-02-01", "2013-07-11")]),
    ("2HG: Teferi's Moat stops attacks on the team (2018-04-27)", [
        ("2018-01-19", "810.7c", "Teferi's Moat", "2018-01-19", "2018-04-27")]),
    ("2HG: landwalk on either defender (2018-04-27)", [
        ("2018-01-19", "810.7d", "forestwalk", "2018-01-19", "2018-04-27")]),
]


@pytest.mark.parametrize("change, examples", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_dated_outcome_change_is_reproduced(corpus, change, examples):
    for release, rule, phrase, holds, fails in examples:
        text, previous = _example(release, rule, phrase)
        result = check(text, holds, previous)
        assert result.status == "passed", (release, rule, result.reason)
        assert check(text, fails, previous).status == "failed", (release, rule, fails)
