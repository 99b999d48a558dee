"""crparse.sphinx and `crparse docs` on small releases written here: a Sphinx project citing
rules through the extension and through intersphinx, a stale citation failing `-W` with its file
and line, markup in rule text shown as text, a multi-release site whose every link and fragment
resolves, and an incremental build."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT
from sitecheck import broken_links, inventory, switcher_problems
from small_releases import release, releases, write_releases

from crparse.site import build_site


def sphinx(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", *extra, str(src), str(out)],
                          capture_output=True, text=True, cwd=src, timeout=120)


def project(folder: Path, conf: str, pages: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "conf.py").write_text(conf)
    for name, text in pages.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture(scope="module")
def rules_project(tmp_path_factory) -> tuple[Path, Path]:
    """A Sphinx project that renders a release and cites it; built once."""
    base = tmp_path_factory.mktemp("cited")
    src = project(base / "src", 'extensions = ["crparse.sphinx"]\nproject = "Rules"\n', {
        "rules.txt": release(releases()[0], 0),
        "index.rst": "Notes\n=====\n\n.. toctree::\n\n   rules\n\nSee :cr:rule:`100.3` and :cr:rule:`the golden rule <101.1>`,"
                     " and :cr:term:`active players`.\n",
        "rules.rst": ".. cr:release:: rules.txt\n",
    })
    done = sphinx(src, base / "html")
    assert done.returncode == 0, done.stderr
    return src, base / "html"


def test_a_project_cites_rules_through_the_extension(rules_project):
    _, html = rules_project
    soup = BeautifulSoup((html / "index.html").read_text("utf-8"), "lxml")
    hrefs = {a.get_text(): a["href"] for a in soup.select("div.body a.reference")}
    assert hrefs["100.3"] == "rules.html#100.3"
    assert hrefs["the golden rule"] == "rules.html#101.1"
    assert hrefs["active players"] == "rules.html#term-active-player"  # case and plural do not matter
    rules = BeautifulSoup((html / "rules.html").read_text("utf-8"), "lxml")
    assert rules.find(id="100.3") is not None and rules.find(id="term-active-player") is not None
    # The whole release on one page: references inside it are links too (101.3 cites 100.3).
    assert rules.find(id="101.3").find("a", href="#100.3") is not None


def test_objects_inv_lists_every_rule_and_term(rules_project):
    _, html = rules_project
    inv = inventory(html / "objects.inv")
    text = release(releases()[0], 0)
    numbers = set(re.findall(r"^(\d+(?:\.\d+)?)\.? ", text, re.M))  # parts, sections, rules as printed
    assert numbers and numbers <= set(inv["cr:rule"])
    assert set(inv["cr:term"]) == {"ability", "active player"}
    assert inv["cr:rule"]["101.2"].endswith("rules.html#101.2")


def test_a_term_shaped_as_an_inventory_line_forges_no_entry(tmp_path):
    """objects.inv is read back by the shortest name before "TYPE PRIORITY": the term "Mana cr:term
    1 ../../elsewhere/pwn.html x" was read as a term "mana" pointing outside the site."""
    text = release(releases()[0], 0).replace("Active Player\n", "Mana cr:term 1 ../../elsewhere/pwn.html x\n")
    src = project(tmp_path / "src", 'extensions = ["crparse.sphinx"]\nproject = "Rules"\n', {
        "rules.txt": text, "index.rst": "Notes\n=====\n\n.. toctree::\n\n   rules\n", "rules.rst": ".. cr:release:: rules.txt\n"})
    done = sphinx(src, tmp_path / "html")
    assert done.returncode == 0, done.stderr
    terms = inventory(tmp_path / "html" / "objects.inv")["cr:term"]
    assert "mana" not in terms and not any("elsewhere" in uri for uri in terms.values())
    assert "ability" in terms


def test_a_stale_citation_fails_a_warning_free_build_with_its_file_and_line(rules_project, tmp_path):
    src, _ = rules_project
    stale = project(tmp_path / "stale", (src / "conf.py").read_text(), {
        "rules.txt": (src / "rules.txt").read_text(),
        "rules.rst": (src / "rules.rst").read_text(),
        "index.rst": "Notes\n=====\n\n.. toctree::\n\n   rules\n\nFine: :cr:rule:`100.1`.\n\n"
                     "Stale: :cr:rule:`100.4`.\n",
    })
    done = sphinx(stale, tmp_path / "html")
    assert done.returncode != 0
    assert re.search(r"index\.rst:10: WARNING: no rule 100\.4\b", done.stderr), done.stderr


def test_a_project_cites_rules_through_intersphinx(rules_project, tmp_path):
    _, html = rules_project
    conf = ('extensions = ["crparse.sphinx", "sphinx.ext.intersphinx"]\n'
            f'intersphinx_mapping = {{"cr": ("https://rules.example.org/", {str(html / "objects.inv")!r})}}\n')
    other = project(tmp_path / "other", conf, {
        "index.rst": "Engine notes\n============\n\nState-based: :cr:rule:`101.2`; :cr:term:`Ability`.\n"})
    done = sphinx(other, tmp_path / "html")
    assert done.returncode == 0, done.stderr
    soup = BeautifulSoup((tmp_path / "html" / "index.html").read_text("utf-8"), "lxml")
    hrefs = {a.get_text(): a["href"] for a in soup.select("a.reference")}
    assert hrefs["101.2"] == "https://rules.example.org/rules.html#101.2"
    assert hrefs["Ability"] == "https://rules.example.org/rules.html#term-ability"
    (other / "index.rst").write_text("Engine notes\n============\n\nGone: :cr:rule:`109.9z`.\n")
    done = sphinx(other, tmp_path / "html2")
    assert done.returncode != 0
    assert re.search(r"index\.rst:4: WARNING: no rule 109\.9z\b", done.stderr), done.stderr


# -- rule text is data ------------------------------------------------------------------------------

HOSTILE = ('Text <script>alert("crparse")</script> with *emphasis*, `literal`, :ref:`label`, |subst|, '
           "[1]_, {{T}}, {% raw %}, ${x} and .. raw:: html")


def test_markup_in_rule_text_is_shown_as_written(tmp_path):
    rules = dict(releases()[0])
    rules["100.2"] = HOSTILE
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "release.txt").write_text(release(rules, 0))
    build_site([tmp_path / "in" / "release.txt"], tmp_path / "site")
    page = (tmp_path / "site" / "100.html").read_text("utf-8")
    assert "<script>alert" not in page
    shown = BeautifulSoup(page, "lxml").find(id="100.2").find("p").get_text()
    assert shown == "100.2. " + HOSTILE
    for script in BeautifulSoup(page, "lxml").find_all("script"):
        assert "crparse\")" not in (script.string or "")


# -- a site of several releases -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("site")
    build_site([write_releases(base / "releases")], base / "out")
    return base / "out"


def test_every_link_and_fragment_of_the_site_resolves(site):
    checked, broken = broken_links(site)
    assert checked > 500 and broken == []
    checked, problems = switcher_problems(site)
    assert checked > 40 and problems == []


def test_the_site_has_a_site_per_release_change_pages_and_histories(site):
    keys = ["2020-01-01", "2020-04-01", "2020-07-01", "2020-10-01"]
    assert all((site / k / "100.html").exists() for k in keys)
    assert sorted(p.stem for p in (site / "changes").glob("*.html")) == [f"{a}--{b}" for a, b in zip(keys, keys[1:])]
    change = BeautifulSoup((site / "changes" / "2020-01-01--2020-04-01.html").read_text("utf-8"), "lxml")
    assert "100.2-100.3 -> +1" in change.find(id="renumbered").get_text()
    added = change.find(id="added").get_text()
    assert "100.2" in added and "commander deck" in added
    # The rule born as 100.3 in 2020-01-01 is 100.4 in 2020-04-01 and 100.3 again in 2020-10-01.
    history = BeautifulSoup((site / "history" / "100.html").read_text("utf-8"), "lxml")
    events = history.find(id="2020-01-01:100.3").get_text(" ", strip=True)
    assert "2020-04-01: renumbered as 100.4" in events and "2020-10-01: renumbered as 100.3" in events
    split = history.find(id="2020-07-01:101.3") or BeautifulSoup(
        (site / "history" / "101.html").read_text("utf-8"), "lxml").find(id="2020-07-01:101.3")
    assert "split off as 101.3" in split.get_text(" ", strip=True)


def test_each_page_names_its_release_and_source(site):
    page = BeautifulSoup((site / "2020-07-01" / "101.html").read_text("utf-8"), "lxml")
    provenance = page.find(class_="cr-provenance").get_text()
    assert "effective 2020-07-01" in provenance and "2020-07-01.txt" in provenance


def test_adding_a_release_builds_only_that_release(tmp_path):
    folder = write_releases(tmp_path / "releases", count=3)
    first = build_site([folder], tmp_path / "out")
    assert [b.skipped for b in first.built] == [False, False, False]
    stamps = {k: (tmp_path / "out" / k / "100.html").stat().st_mtime_ns for k in ("2020-01-01", "2020-04-01")}
    (folder / "2020-10-01.txt").write_text(release(releases()[3], 3))
    second = build_site([folder], tmp_path / "out")
    assert {b.key: b.skipped for b in second.built} == {
        "2020-01-01": True, "2020-04-01": True, "2020-07-01": True, "2020-10-01": False}
    assert {k: (tmp_path / "out" / k / "100.html").stat().st_mtime_ns for k in stamps} == stamps
    assert (tmp_path / "out" / "changes" / "2020-07-01--2020-10-01.html").exists()
    assert broken_links(tmp_path / "out")[1] == []


# -- the command ---------------------------------------------------------------------------------------


def crparse(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, text=True, cwd=ROOT,
                          env=os.environ | {"CRPARSE_JOBS": "1"}, timeout=300)


def test_docs_of_a_seed_fragment(tmp_path):
    done = crparse("docs", "corpus/002_5de42b84d94734e9.txt", "-o", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "801.html").exists() and "index.html" in done.stdout
    assert broken_links(tmp_path / "site")[1] == []
    # A fragment: its citations of rules outside it are marked, not links.
    page = BeautifulSoup((tmp_path / "site" / "801.html").read_text("utf-8"), "lxml")
    assert page.find(id="801.1").find(class_="cr-external").get_text() == "rule 809"


@pytest.mark.parametrize("problem", ["missing", "output-is-a-file", "no-input", "jobs--3", "jobs-0", "jobs-x"])
def test_docs_refusals_are_one_line(tmp_path, problem):
    (tmp_path / "file").write_text("x")
    seed = "corpus/002_5de42b84d94734e9.txt"
    args = {"missing": ["docs", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "o")],
            "output-is-a-file": ["docs", seed, "-o", str(tmp_path / "file")],
            "no-input": ["docs", "-o", str(tmp_path / "o")]}.get(problem)
    if problem.startswith("jobs-"):  # -3 and 0 were taken for 1, silently (sweep 38)
        args = ["docs", seed, "-o", str(tmp_path / "o"), f"--jobs={problem[5:]}"]
    done = crparse(*args)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    if problem.startswith("jobs-"):
        assert "is not a number of processes (1 or more)" in done.stderr and not (tmp_path / "o").exists()
