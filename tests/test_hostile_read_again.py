"""A release read again within its run (crparse.readers.runs): `index` parses stored releases again
to align them, `docs` parses a release for its summary and again for its diffs and its build.

Editions whose chapters are hard links to one file share it: each edition past the first is
charged its reads of it, against the run's budget for reads again (MAX_REPEATED_WORK). Each
parse again was charged again, and the refusal it met there ended the whole `index` or `docs`
(12 editions of a 196 KB chapter: `index` left 9 of 12 releases and no lineage; `docs` built no
site: sweep 37). A document is now charged once for each file, and a refusal met in a read again
leaves out that pair or that release, said, the others done."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crparse.readers import runs
from crparse.store import connect
from crparse.store.index import index

CHAPTER = "Rules\n=====\n\n" + "".join(f"100.{n}. Text of rule {n}, which weighs a little.\n\n" for n in range(1, 120))


def _editions(top: Path, months: list[int], shared: Path) -> dict[int, Path]:
    """Dated editions (2000-MM), each an index.rst and a chapter that is a hard link to `shared`."""
    top.mkdir(exist_ok=True)
    if not shared.exists():
        shared.write_text(CHAPTER)
    found = {}
    for month in months:
        edition = top / f"2000-{month:02}"
        edition.mkdir()
        (edition / "index.rst").write_text(
            "Comprehensive Rules\n===================\n\n"
            f"These rules are effective as of {['', 'January', 'February', 'March'][month]} 1, 2000.\n\n"
            ".. toctree::\n\n   ch\n")
        os.link(shared, edition / "ch.rst")
        found[month] = edition / "index.rst"
    return found


def _reads(count: float) -> int:
    """A budget for reads again of `count` reads of the chapter."""
    from crparse.readers.rst import markup_work

    return int(count * (markup_work(CHAPTER) + runs.REPEATED_READ_COST))


def test_a_document_read_again_in_its_run_is_charged_once(tmp_path, monkeypatch):
    import crparse

    editions = _editions(tmp_path, [1, 2, 3], tmp_path / "ch.txt")
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(2.5))
    with runs.one_run():
        for _ in range(3):  # the second and third each read the chapter another read first, once
            for edition in editions.values():
                assert len(crparse.parse(edition).rules) > 100


def test_a_document_refused_in_its_run_stays_refused_when_read_again(tmp_path, monkeypatch):
    """Its over-budget read was noted as charged, and read again it was taken (review)."""
    import crparse
    from crparse.errors import RefusedInput

    editions = _editions(tmp_path, [1, 2, 3], tmp_path / "ch.txt")
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(1.5))
    with runs.one_run():
        crparse.parse(editions[1])
        crparse.parse(editions[2])
        for _ in range(3):
            with pytest.raises(RefusedInput, match="which another document of this run has read"):
                crparse.parse(editions[3])
        assert len(crparse.parse(editions[2]).rules) > 100  # one taken stays taken


def test_a_pair_whose_stored_release_cannot_be_read_again_is_left_for_the_next_run(tmp_path, monkeypatch):
    """A release stored between two: aligning it parses both again, each reading the shared
    chapter that the new release read first."""
    older, newer = tmp_path / "older", tmp_path / "newer"
    _editions(older, [1, 3], tmp_path / "ch.txt")
    _editions(newer, [2], tmp_path / "ch.txt")
    db = connect(tmp_path / "store.sqlite", create=True)
    first = index(db, [str(older)])
    assert len(first.added) == 2 and first.aligned == 1 and not first.refused
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(1.5))  # 2000-01 read again, and not 2000-03 then
    report = index(db, [str(newer)])
    assert len(report.added) == 1 and report.aligned == 1
    [refused] = report.refused
    assert "which another document of this run has read" in refused and "2000-03" in refused.split(":")[0]
    assert refused.endswith("were not aligned in this run (`crparse index` aligns them when run again)")
    steps = db.execute("SELECT count(*) FROM steps").fetchone()[0]
    assert steps == 1
    # the lineage stops before the pair left, and the next run aligns it
    chained = db.execute("SELECT count(DISTINCT release) FROM node_lineage").fetchone()[0]
    assert chained == 2
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(10))
    again = index(db, [str(older), str(newer)])
    assert (again.added, again.aligned, again.refused) == ([], 1, [])
    assert db.execute("SELECT count(DISTINCT release) FROM node_lineage").fetchone()[0] == 3


@pytest.mark.parametrize("dated", [False, True])
def test_a_release_refused_when_its_site_reads_it_again_is_left_out(tmp_path, monkeypatch, dated):
    """A release whose summary is cached is read first by its diffs or its build."""
    from crparse.site.corpus import build_site

    editions = list(_editions(tmp_path / "in", [1, 2, 3], tmp_path / "ch.txt").values())
    if not dated:
        for edition in editions:
            edition.write_text(edition.read_text().replace("These rules are effective", "Rules in force"))
    out = tmp_path / "site"
    with runs.one_run():
        assert len(build_site(editions, out).releases) == 3
    for stamp in out.glob("*/.crparse-site.json"):  # the summaries kept, the sites to build again
        stamp.unlink()
    for cached in (out / ".crparse" / "diffs").glob("*.json"):
        cached.unlink()
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(1.5))
    with runs.one_run():
        report = build_site(editions, out)
    assert len(report.releases) == 2 and report.refused == 1
    [left] = [line for line in report.skipped if "which another document of this run has read" in line]
    [gone] = set(editions) - {r.path for r in report.releases}
    assert left.startswith(f"{gone}:")
    assert len(report.built) == 2 and (out / "index.html").is_file()


def test_editions_whose_index_is_a_link_to_one_index_are_each_a_reader(tmp_path, monkeypatch):
    """An index.rst that is a link makes an edition of its own directory, but the run knew each by
    where the link led: 80 of them, one reader, their hard-linked chapters never charged (21 s:
    sweep 39)."""
    import crparse
    from crparse.errors import RefusedInput

    [master] = _editions(tmp_path, [1], tmp_path / "ch.txt").values()
    linked = []
    for n in range(4):
        edition = tmp_path / f"linked{n}"
        edition.mkdir()
        (edition / "index.rst").symlink_to(master)
        os.link(tmp_path / "ch.txt", edition / "ch.rst")
        linked.append(edition / "index.rst")
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", _reads(2.5))
    with runs.one_run():
        for index in [master, *linked[:2]]:
            assert len(crparse.parse(index).rules) > 100
        with pytest.raises(RefusedInput, match="which another document of this run has read"):
            crparse.parse(linked[2])


def test_reads_again_are_charged_what_their_markup_costs_docutils(tmp_path, monkeypatch):
    """Charged their bytes, documents naming one wide table each paid docutils' whole cost again:
    20 naming one of 28 KB took 31 s within the bound (sweep 40)."""
    import crparse
    from crparse.errors import RefusedInput
    from crparse.readers.rst import markup_work

    columns = 300
    border = "+" + "+".join(["--"] * columns) + "+"
    row = "|" + "|".join(["ab"] * columns) + "|"
    chapter = "T\n=\n\n100.1. Before.\n\n" + "\n".join([border, row, border, row, border]) + "\n\n100.2. After.\n"
    (tmp_path / "chap.rst").write_text(chapter)
    masters = []
    for k in range(4):
        masters.append(tmp_path / f"m{k}.rst")
        masters[-1].write_text(f"M{k}\n==\n\n.. toctree::\n\n   chap\n")
    each = markup_work(chapter) + runs.REPEATED_READ_COST
    assert each > 20 * len(chapter.encode())
    monkeypatch.setattr(runs, "MAX_REPEATED_WORK", 5 * each // 2)  # the first, and two reads again
    with runs.one_run():
        for master in masters[:3]:
            assert [r.number for r in crparse.parse(master).rules][-2:] == ["100.1", "100.2"]
        with pytest.raises(RefusedInput, match="their markup, counted as plain text docutils reads"):
            crparse.parse(masters[3])
