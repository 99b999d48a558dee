"""`crparse docs` against what an earlier build, a user or a planted file left in OUT, and against
an OUT among its own inputs (a ninth adversarial sweep; each failed before its fix): caches edited
to disagree with the releases (exit 3 in the lineage), a stamp of nested brackets (RecursionError),
state files of gigabytes (read whole: MemoryError), a site inside the directory of its releases
(its pages built as releases on the next run), a user's file named like a temporary (deleted),
undated releases sharing a stem (all but one left out), a cached key too long for a file name
(every run failed until --force), an OUT that is a link to nothing (reported as a lock file
problem), and pages whose script links depended on what the directory held before."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from limits import run_limited
from site_builds import copy, docs, one_line_refusal
from small_releases import release, releases, write_releases


def summaries(site: Path) -> list[Path]:
    return sorted((site / ".crparse" / "summaries").glob("*.json"))


def diffs(site: Path) -> list[Path]:
    return sorted((site / ".crparse" / "diffs").glob("*.json"))


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


def same_files(site: Path, clean: Path, paths: list[Path]) -> bool:
    return all(p.read_bytes() == (clean / p.relative_to(site)).read_bytes() for p in paths)


def switcher(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text("utf-8") for p in [site / "versions.js", *site.glob("*/lineage.js")]}


def _unknown_key(diff):
    diff["pairs"].append({"old": "999.1", "new": "999.2", "kind": "moved", "flags": [], "similarity": 1.0, "words": []})


def _unknown_kind(diff):
    for pair in diff["pairs"]:
        pair["kind"] = "bogus"


def _no_side(diff):
    diff["pairs"].append({"old": None, "new": None, "kind": "changed", "flags": [], "similarity": 1.0, "words": []})


def _swapped(diff):
    for pair in diff["pairs"]:
        pair["old"], pair["new"] = pair["new"], pair["old"]


def _left_out(diff):
    del diff["pairs"][0]


@pytest.mark.parametrize("damage", [_unknown_key, _unknown_kind, _no_side, _swapped, _left_out],
                         ids=["a key the release lacks", "an unknown kind", "a pair of no side", "old and new swapped",
                              "a node left out"])
def test_a_cached_diff_that_does_not_agree_with_its_releases_is_built_again(two, clean, tmp_path, damage):
    """Read as data of the right shape and trusted: KeyError, AttributeError in the lineage (exit 3)."""
    out = copy(clean, tmp_path / "site")
    for cached in diffs(out):
        edit(cached, lambda data: damage(data["diff"]))
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"crparse: docs: warning: {diffs(out)[0]}: " in done.stderr and "built again" in done.stderr, done.stderr
    assert same_files(out, clean, diffs(out)) and switcher(out) == switcher(clean)


@pytest.mark.parametrize("edited", ["keys", "keys and pages"])
def test_summaries_whose_keys_are_not_the_releases_are_parsed_again(two, clean, tmp_path, edited):
    """Every summary listing one node: exit 3, KeyError '100'. Agreeing with itself (no page of a
    node it lacks), a summary is found out by the diff of its release, made again."""
    out = copy(clean, tmp_path / "site")
    assert summaries(out)
    for cached in summaries(out):
        edit(cached, lambda data: data.update({"keys": ["1"]} | ({"pages": {}} if edited == "keys and pages" else {})))
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "crparse: docs: warning: " in done.stderr, done.stderr
    assert same_files(out, clean, summaries(out) + diffs(out)) and switcher(out) == switcher(clean)


@pytest.mark.parametrize("where", ["summary", "diff"])
def test_a_cached_key_too_long_for_a_file_name_is_not_trusted(two, clean, tmp_path, where):
    """A 300-digit key made a history page of that name: "File name too long" on every run until
    --force. A key is a number as the parser reads one (three digits a part), or no key."""
    out = copy(clean, tmp_path / "site")
    key = "1" * 300
    if where == "summary":
        assert summaries(out)
        for cached in summaries(out):
            edit(cached, lambda data: (data["keys"].append(key), data["pages"].update({key: "100"})))
    else:
        for cached in diffs(out):
            edit(cached, lambda data: data["diff"]["pairs"][0].update(new=key))
    (out / ".crparse-root.json").unlink()  # the history pages to write again
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert not any(key[:100] in p.name for p in out.rglob("*")), "a page named after the key"
    assert switcher(out) == switcher(clean)


@pytest.mark.parametrize("state", ["2020-01-01/.crparse-site.json", ".crparse-root.json", "summary", "diff"])
def test_state_of_nested_brackets_is_no_state(two, clean, tmp_path, state):
    """100,000 `[` in a stamp: RecursionError, exit 3 (only OSError and ValueError were caught)."""
    out = copy(clean, tmp_path / "site")
    target = {"summary": (summaries(out) or [out / ".crparse" / "summaries" / "none.json"])[0],
              "diff": diffs(out)[0]}.get(state, out / state)
    target.parent.mkdir(exist_ok=True)
    target.write_text("[" * 100_000)
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == (clean / target.relative_to(out)).read_bytes()


@pytest.mark.hostile
def test_state_files_of_gigabytes_are_not_read(two, clean, tmp_path):
    """A 2 GiB sparse file at a stamp's name was read whole: MemoryError (exit 3); at 1.2 GiB, 18 s
    and 2.4 GiB. Every file read back (stamps, caches, the switcher's scripts, Sphinx's sources,
    and what Sphinx itself read of its output: the search index, the build info) is checked for
    size on the open file first, or not read at all."""
    out = copy(clean, tmp_path / "site")
    planted = [out / "2020-01-01" / ".crparse-site.json", out / ".crparse-root.json", *summaries(out), *diffs(out),
               out / "versions.js", out / "2020-01-01" / "lineage.js", out / "2020-01-01" / "locate.html",
               out / ".crparse" / "root" / "index.rst", *(out / ".crparse" / "root" / "changes").glob("*.json"),
               *(out / ".crparse" / "releases" / "2020-01-01" / "src").glob("*.rst"),
               out / "2020-01-01" / "searchindex.js", out / "2020-01-01" / ".buildinfo"]
    for path in planted:
        with open(path, "wb") as f:
            f.truncate(3 << 30)
    result = run_limited(["docs", str(two), "-o", str(out), "--jobs", "1"], env={"CRPARSE_JOBS": "1"})
    assert result.ok_within_limits and result.returncode == 0, result
    assert result.cpu_seconds < 10, result
    assert max(path.stat().st_size for path in planted) < 1 << 20
    assert switcher(out) == switcher(clean)


def test_a_release_built_again_has_the_pages_of_one_built_afresh(two, clean, tmp_path):
    """A page built while versions.js and lineage.js were there linked them with Sphinx's checksum
    of what it found (`versions.js?v=e1db22ee`), one built from nothing without: after --force
    the site differed from a clean build."""
    out = copy(clean, tmp_path / "site")
    (out / "2020-04-01" / ".crparse-site.json").unlink()
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0 and "(1 built" in done.stdout, done.stderr
    pages = sorted((out / "2020-04-01").glob("*.html"))
    assert pages and same_files(out, clean, pages)
    assert not re.search(r"(versions|lineage)\.js\?v=", (out / "2020-04-01" / "100.html").read_text("utf-8"))


def test_a_site_among_its_releases_is_not_read_as_releases(tmp_path):
    """`docs rel -o rel/site` twice: the second run built the site's own pages (100.html, the front
    page) as releases. A walk skips OUT, and any other site crparse built, saying so."""
    rel = write_releases(tmp_path / "rel", 1)
    for _ in range(2):
        done = docs(str(rel), "-o", str(rel / "site"))
        assert done.returncode == 0, done.stderr
    assert "1 release (0 built" in done.stdout, done.stdout + done.stderr
    assert f"crparse: docs: skipped {rel / 'site'}: the output directory" in done.stderr
    done = docs(str(rel), "-o", str(tmp_path / "other"))
    assert done.returncode == 0 and "1 release (1 built" in done.stdout, done.stdout + done.stderr
    assert f"crparse: docs: skipped {rel / 'site'}: a site crparse docs built" in done.stderr


@pytest.mark.parametrize("where", ["the output itself", "inside the output"])
def test_an_input_that_is_the_output_or_inside_it_is_refused(tmp_path, where):
    rel = write_releases(tmp_path / "rel", 1)
    if where == "the output itself":
        given, out = rel, rel
    else:
        given, out = rel / "2020-01-01.txt", rel
    line = one_line_refusal(docs(str(given), "-o", str(out)))
    assert line.startswith(f"crparse: {out}: ") and ("is an input too" in line or "inside the output" in line), line
    assert sorted(p.name for p in rel.iterdir()) == ["2020-01-01.txt"]  # nothing written


def test_a_users_file_named_like_a_temporary_is_left(two, clean, tmp_path):
    """Every file of OUT named like a temporary (.crparse-<12 hex>.tmp) was removed, a user's
    notes/ too: only those in the directories crparse writes them to are."""
    out = copy(clean, tmp_path / "site")
    users = [out / "notes" / ".crparse-abcdefabcdef.tmp", out / "2020-01-01" / "_static" / ".crparse-abcdefabcdef.tmp"]
    ours = [out / ".crparse-0123456789ab.tmp", out / "2020-01-01" / ".crparse-0123456789ab.tmp",
            out / ".crparse" / "diffs" / ".crparse-0123456789ab.tmp"]
    for path in users + ours:
        path.parent.mkdir(exist_ok=True)
        path.write_text("USER DATA")
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert all(p.read_text() == "USER DATA" for p in users) and not any(p.exists() for p in ours)


def test_undated_releases_sharing_a_stem_are_each_built(tmp_path):
    """a/rules.txt and b/rules.md, two texts: one was built, the other "left out" as the release of
    `rules` too. Each is built now, named by stem and sha256; the same text twice is one release,
    and the same file given twice one input."""
    text = release(releases()[0], 0).replace("These rules are effective as of January 1, 2020.\n", "")
    for name, words in (("a/rules.txt", text), ("b/rules.md", text.replace("deck", "pile")), ("c/rules.txt", text)):
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / name).write_text(words)
    out = tmp_path / "site"
    done = docs(str(tmp_path / "in"), str(tmp_path / "in" / "a" / "rules.txt"), "-o", str(out))
    assert done.returncode == 0 and "2 releases" in done.stdout, done.stdout + done.stderr
    a, c = tmp_path / "in" / "a" / "rules.txt", tmp_path / "in" / "c" / "rules.txt"
    assert done.stderr.splitlines() == [f"crparse: docs: skipped {c}: the same text as {a}; built once, as that"]
    built = sorted(p.parent.name for p in out.glob("*/index.html"))
    assert len(built) == 2 and all(re.fullmatch(r"rules-[0-9a-f]{8}", name) for name in built), built


def test_an_output_that_is_a_link_to_nothing_is_refused_saying_so(two, tmp_path):
    """Reported as "cannot take the lock file ...: File exists"."""
    out = tmp_path / "site"
    out.symlink_to(tmp_path / "gone")
    line = one_line_refusal(docs(str(two), "-o", str(out)))
    assert line == f"crparse: {out}: the output is a symbolic link to {tmp_path / 'gone'}, which does not exist", line
    inner = tmp_path / "link" / "site"
    os.symlink(tmp_path / "gone", tmp_path / "link")
    line = one_line_refusal(docs(str(two), "-o", str(inner)))
    assert "lock" not in line and f"{tmp_path / 'link'} is a symbolic link to" in line, line


def test_summaries_that_give_releases_one_date_are_parsed_again(two, clean, tmp_path):
    """Every cached summary's date made one: all but one release were left out as "another input
    is the release of 1999-01-01 too", and the run exited 0 (sweep 10)."""
    out = copy(clean, tmp_path / "site")
    for cached in summaries(out):
        edit(cached, lambda data: data.update({"date": "1999-01-01"}))
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "left out" not in done.stderr, done.stderr
    assert same_files(out, clean, summaries(out)) and switcher(out) == switcher(clean)


def test_a_write_that_names_no_file_is_said_with_the_site_s_directory(tmp_path, monkeypatch, capsys):
    """A disk that filled while Sphinx wrote: "crparse: docs: No space left on device", neither
    the file nor OUT (sweep 17)."""
    import errno

    import crparse.site
    from crparse.cli.main import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(crparse.site, "build_site", full)
    out = tmp_path / "site"
    assert main(["docs", str(Path(__file__).parent / "fixtures" / "modern.txt"), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"crparse: docs: {out}: No space left on device\n"


def test_a_file_deep_down_a_walk_is_checked_for_sites_in_linear_time(tmp_path):
    """Each directory above each file was resolved again, component by component: a file 2,000
    directories down took 41 s (sweep 18)."""
    top = tmp_path / "r"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(2000):  # by descriptors: the path passes PATH_MAX
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    (top / "top.txt").write_bytes((Path(__file__).parent / "fixtures" / "modern.txt").read_bytes())
    try:
        result = run_limited(["docs", str(top), "-o", str(tmp_path / "site")], seconds=10)
        assert result.ok_within_limits and result.returncode in (0, 2), result
    finally:  # bottom up, by descriptors (shutil.rmtree recurses)
        fds = [os.open(top, os.O_RDONLY)]
        while "d" in os.listdir(fds[-1]):
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        for name in os.listdir(fds[-1]):
            os.unlink(name, dir_fd=fds[-1])
        for parent in reversed(fds[:-1]):
            os.close(fds.pop())
            os.rmdir("d", dir_fd=parent)
        os.close(fds.pop())


def test_an_output_that_is_a_link_to_a_file_is_said_so(tmp_path, capsys):
    """"a symbolic link to ..., which does not exist", of a link to a file that exists (sweep 19)."""
    from crparse.cli.main import main

    target = tmp_path / "file.txt"
    target.write_text("x")
    out = tmp_path / "out"
    out.symlink_to(target)
    assert main(["docs", str(Path(__file__).parent / "fixtures" / "modern.txt"), "-o", str(out)]) == 2
    assert f"the output is not a directory (a symbolic link to {target}, a file)" in capsys.readouterr().err
    # ... and of a link to a device, "a file" (sweep 24)
    out.unlink()
    out.symlink_to("/dev/null")
    assert main(["docs", str(Path(__file__).parent / "fixtures" / "modern.txt"), "-o", str(out)]) == 2
    assert "the output is not a directory (a symbolic link to /dev/null, a device)" in capsys.readouterr().err
