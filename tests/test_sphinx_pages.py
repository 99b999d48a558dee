"""The pages of a release's site (crparse.sphinx), from an eighth adversarial sweep; each failed
before its fix:

- a part heading printed twice (a damaged copy `crparse parse` reads, with a `duplicate-number`
  warning) put `part-1` in the front page's toctree twice, a Sphinx warning that refused the
  whole site; every other duplicate (section, rule, glossary term) builds too;
- the build was quadratic in the number of pages: each page's directive listed the release's
  pages again (a scan of every rule), and the domain forgot a page by scanning every rule and
  term of the release. 900 one-rule sections took 25 s of CPU where 100 took 3 s. The tests
  count the work, not the time: the scans of the rules in a build do not grow with its pages,
  and forgetting a page touches that page's entries alone."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from bs4 import BeautifulSoup
from sitecheck import broken_links

import crparse
from crparse.site.release import build_release
from crparse.sphinx import prepare as prepare_module
from crparse.sphinx.directive import pages
from crparse.sphinx.domain import CRDomain
from crparse.sphinx.prepare import prepared

HEAD = ["Magic: The Gathering Comprehensive Rules", "", "These rules are effective as of January 1, 2020.", ""]
TAIL = ["Credits", "", "Somebody"]


def text(body: list[str], glossary: tuple[str, ...] = ("Ability", "Text.")) -> str:
    lines = [*HEAD]
    for line in body:
        lines += [line, ""]
    lines += ["Glossary", ""]
    for term, definition in zip(glossary[::2], glossary[1::2], strict=True):
        lines += [term, definition, ""]
    return "\n".join(lines + TAIL) + "\n"


DUPLICATES = {
    "part": text(["1. Game Concepts", "100. General", "100.1. A.", "100.2. B.",
                  "1. Game Concepts", "101. Golden", "101.1. C.", "101.2. D."]),
    "part, later": text(["1. Game Concepts", "100. General", "100.1. A.", "100.2. B.", "2. Parts", "200. Other",
                         "200.1. E.", "1. Game Concepts", "101. Golden", "101.1. C."]),
    "section": text(["1. Game Concepts", "100. General", "100.1. A.", "100.2. B.", "100. General", "100.3. C."]),
    "section, in another part": text(["1. Game Concepts", "100. General", "100.1. A.", "100.2. B.", "2. Parts",
                                      "100. General", "100.3. C.", "200. Other", "200.1. E."]),
    "rule": text(["1. Game Concepts", "100. General", "100.1. A.", "100.1. Again.", "101. Golden", "100.1. Third.",
                  "101.1. C."]),
    "glossary term": text(["1. Game Concepts", "100. General", "100.1. A.", "100.2. B."],
                          ("Mana Value", "Text.", "Mana-Value", "Other.", "mana value", "Third.")),
}


@pytest.mark.parametrize("what", DUPLICATES)
def test_a_page_is_listed_once_whatever_is_printed_twice(what):
    names = pages(prepared(crparse.parse(DUPLICATES[what])))
    assert len(names) == len(set(names)), names
    assert names[:2] == ["front", "part-1"]


def test_a_release_with_every_kind_of_duplicate_builds_a_site(tmp_path):
    """Part 1, section 100, rule 100.1 and a glossary term each printed twice: `crparse parse`
    reads it with warnings, so `crparse docs` builds it (Sphinx refused part-1 listed twice)."""
    release = tmp_path / "2020-01-01.txt"
    release.write_text(text(["1. Game Concepts", "100. General", "100.1. A.", "100.1. Again.", "1. Game Concepts",
                             "100. General", "100.2. B.", "101. Golden", "101.1. C."],
                            ("Mana Value", "Text.", "mana value", "Again.")))
    assert {d.code for d in crparse.parse(release).diagnostics} >= {"duplicate-number"}
    out = tmp_path / "site"
    build_release(release, out, tmp_path / "work", key="2020-01-01")
    assert (out / "part-1.html").is_file() and (out / "100.html").is_file() and (out / "101.html").is_file()
    index = BeautifulSoup((out / "index.html").read_text("utf-8"), "lxml")
    assert [a["href"] for a in index.select("div.toctree-wrapper a")] == ["part-1.html", "glossary.html", "credits.html"]
    checked, broken = broken_links(out)
    assert checked and not broken, broken


class _Rules(tuple):
    """A release's rules that count the scans of them."""

    scans = 0

    def __iter__(self):
        type(self).scans += 1
        return super().__iter__()


def _scans_of_a_build(tmp_path: Path, sections: int, monkeypatch) -> int:
    body = ["1. Game Concepts"]
    for s in range(100, 100 + sections):
        body += [f"{s}. Section {s}", f"{s}.1. A rule of section {s}; see rule 100.1."]
    release = tmp_path / f"{sections}" / "2020-01-01.txt"
    release.parent.mkdir()
    release.write_text(text(body))

    def counted(doc):  # what is computed once per release is not counted; what each page does is
        p = prepared(doc)
        return p._replace(document=msgspec.structs.replace(p.document, rules=_Rules(p.document.rules)))

    monkeypatch.setattr(prepare_module, "prepared", counted)
    monkeypatch.setattr(_Rules, "scans", 0)
    build_release(release, tmp_path / f"site-{sections}", tmp_path / f"work-{sections}", key="2020-01-01")
    assert (tmp_path / f"site-{sections}" / f"{99 + sections}.html").is_file()
    return _Rules.scans


def test_the_rules_are_scanned_as_often_for_many_pages_as_for_few(tmp_path, monkeypatch):
    few = _scans_of_a_build(tmp_path, 2, monkeypatch)
    many = _scans_of_a_build(tmp_path, 12, monkeypatch)
    assert many == few, (few, many)


class _Table(dict):
    """A domain table that counts the walks through it (a lookup by name is not one)."""

    walks = 0

    def _walk(self, method):
        type(self).walks += 1
        return method(self)

    def __iter__(self):
        return self._walk(dict.__iter__)

    def items(self):
        return self._walk(dict.items)

    def keys(self):
        return self._walk(dict.keys)

    def values(self):
        return self._walk(dict.values)


def test_forgetting_a_page_touches_that_page_s_entries_alone(monkeypatch):
    domain = object.__new__(CRDomain)  # its tables alone: no Sphinx environment needed
    domain.data = {"rules": _Table(), "terms": _Table(), "docs": {}}
    for page in range(50):
        for rule in range(1, 21):
            domain.note("rules", f"{100 + page}.{rule}", str(100 + page), f"{100 + page}.{rule}", "", None)
    domain.note("terms", "ability", "glossary", "term-ability", "Ability", None)
    monkeypatch.setattr(_Table, "walks", 0)
    for page in range(0, 50, 2):
        domain.clear_doc(str(100 + page))
    domain.clear_doc("glossary")
    assert _Table.walks == 0
    assert dict.__len__(domain.rules) == 25 * 20 and "101.20" in domain.rules and "100.1" not in domain.rules
    assert not dict.__len__(domain.terms)
    # Read again, a page is known again, and forgotten again.
    domain.note("rules", "100.1", "100", "100.1", "", None)
    assert domain.rules["100.1"][0] == "100"
    domain.clear_doc("100")
    assert "100.1" not in domain.rules


def test_a_parallel_reader_s_pages_are_merged_by_page(monkeypatch):
    main = object.__new__(CRDomain)
    main.data = {"rules": _Table(), "terms": _Table(), "docs": {}}
    main.note("rules", "100.1", "100", "100.1", "", None)
    worker = object.__new__(CRDomain)
    worker.data = {"rules": _Table(), "terms": _Table(), "docs": {}}
    for page in range(100, 140):
        for rule in range(1, 11):
            worker.note("rules", f"{page}.{rule}", str(page), f"{page}.{rule}", "", None)
    monkeypatch.setattr(_Table, "walks", 0)
    main.merge_domaindata(["101", "102"], worker.data)
    assert _Table.walks == 0
    assert sorted(dict.keys(main.rules)) == sorted(["100.1", *(f"{p}.{r}" for p in (101, 102) for r in range(1, 11))])
    main.clear_doc("101")
    assert "101.1" not in main.rules and "102.1" in main.rules
