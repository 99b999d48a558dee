"""`crparse docs` on real releases (../shared/corpus/): the site of the newest release builds
without a warning, every link and fragment resolves, every rule and glossary term is in
objects.inv; a site across the 2009 renumbering switches releases onto the same rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sitecheck import broken_links, inventory, switcher_problems

import crparse
from crparse.site import build_site
from crparse.sphinx.prepare import term_key

pytestmark = pytest.mark.corpus

RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.?\s", re.M)  # a rule or subrule as printed at a line start


@pytest.fixture(scope="module")
def newest(corpus, tmp_path_factory) -> tuple[Path, Path]:
    release = corpus / "txt" / "2026-01-16.txt"
    out = tmp_path_factory.mktemp("newest") / "site"
    build_site([release], out)  # a Sphinx warning would be a SiteError
    return release, out


def test_the_newest_release_has_no_broken_link(newest):
    _, out = newest
    checked, broken = broken_links(out)
    assert checked > 6000  # references, cited-by links, navigation
    assert broken == []


def test_every_rule_and_term_of_the_newest_release_is_in_objects_inv(newest):
    release, out = newest
    inv = inventory(out / "objects.inv")
    doc = crparse.parse(release)
    assert {r.number for r in doc.rules} == set(inv["cr:rule"])
    assert {term_key(g.term) for g in doc.glossary} <= set(inv["cr:term"])
    # A count of our own, from the text's lines: every rule printed at a line start is listed.
    printed = set(RULE_LINE.findall(release.read_text("utf-8-sig")))
    assert len(printed) > 3000
    assert printed <= set(inv["cr:rule"])
    # Each entry points at a page that holds its anchor.
    page = BeautifulSoup((out / "704.html").read_text("utf-8"), "lxml")
    assert inv["cr:rule"]["704.5k"] == "704.html#704.5k" and page.find(id="704.5k") is not None


def test_references_are_links_and_ranges_link_each_member(newest):
    _, out = newest
    page = BeautifulSoup((out / "103.html").read_text("utf-8"), "lxml")
    rule = page.find(id="103.2")
    hrefs = [a["href"] for a in rule.find("p").select("a.reference")]
    # "103.2a–e": the range's first member and each member after it
    assert [h.split("#")[1] for h in hrefs if h.startswith("#103.2")] == ["103.2a", "103.2b", "103.2c", "103.2d", "103.2e"]


def test_a_site_across_the_2009_renumbering(corpus, tmp_path):
    releases = [corpus / "txt" / f"{d}.txt" for d in ("2009-05-01", "2009-10-05")]
    report = build_site(releases, tmp_path / "site")
    assert [r.key for r in report.releases] == ["2009-05-01", "2009-10-01"]  # 2009-10-05.txt: effective 10-01
    checked, broken = broken_links(tmp_path / "site")
    assert checked > 8000 and broken == []
    checked, problems = switcher_problems(tmp_path / "site")
    assert checked > 3000 and problems == []
    # Multiplayer moved from the 600s to the 800s: the switcher's table of 2009-10-01 carries the
    # lineage born as 601.2 in 2009-05-01 to its new number.
    table = (tmp_path / "site" / "2009-10-01" / "lineage.js").read_text("utf-8")
    assert re.search(r'"80\d\.\d+[a-z]?": \["2009-05-01:601\.2"', table)
    history = BeautifulSoup((tmp_path / "site" / "history" / "801.html").read_text("utf-8"), "lxml")
    assert "renumbered" in history.find(id="2009-05-01:601.2").get_text()
