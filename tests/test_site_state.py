"""What `crparse docs` reads back of an earlier build (an eighth adversarial sweep; each failed
before its fix): a build killed midway, or two builds at once, left a site whose search index
lacked pages for good, or an internal error on the next run; a pickle planted among Sphinx's
doctrees ran code; an edited cache put script into the pages; a site that changed from one
release to several and back kept a stamp of the other shape."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from site_builds import copy, docs


def docnames(site: Path) -> dict[str, list[str]]:
    """Each searchindex.js of a site: the pages it lets people search."""
    found = {}
    for index in sorted(site.rglob("searchindex.js")):
        m = re.search(r'"docnames":\[([^\]]*)\]', index.read_text("utf-8"))
        found[str(index.relative_to(site))] = sorted(json.loads(f"[{m.group(1)}]")) if m else None
    return found


@pytest.mark.parametrize("kill", ["index emptied", "index cut short, a source newer"])
def test_a_build_killed_before_its_search_index_is_written_is_done_again(two, tmp_path, kill):
    # The states a kill leaves: pages written, no stamp, the search index empty or half written.
    # The next run exited 3 (Sphinx: "not enough values to unpack"), or 2 ("search index couldn't
    # be loaded") and then 0, stamping a site with two of its six pages searchable, for good.
    # (Built where it is used: Sphinx's saved environment names its directories.)
    out = tmp_path / "site"
    done = docs(str(two / "2020-01-01.txt"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    whole = docnames(out)
    assert len(whole["searchindex.js"]) > 2
    (out / ".crparse-site.json").unlink()
    index = out / "searchindex.js"
    if kill == "index emptied":
        index.write_text("")
    else:
        index.write_bytes(index.read_bytes()[:100])
        next((out / ".crparse" / "releases").glob("*/src/100.rst")).touch()
    for _ in range(2):
        done = docs(str(two / "2020-01-01.txt"), "-o", str(out))
        assert done.returncode == 0, done.stderr
    assert docnames(out) == whole


def test_a_stamped_site_whose_search_index_is_gone_is_built_again(two, clean, tmp_path):
    out = copy(clean, tmp_path / "site")
    (out / "2020-04-01" / "searchindex.js").unlink()
    (out / "2020-04-01" / "searchindex.js").mkdir()  # not even a file
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 2 or docnames(out) == docnames(clean), done.stderr
    shutil.rmtree(out / "2020-04-01" / "searchindex.js")
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0 and docnames(out) == docnames(clean), done.stderr


PAYLOAD = '''import os, pickle
class Run:
    def __reduce__(self):
        return (os.system, ("touch {canary}",))
'''


@pytest.mark.parametrize("doctrees", [".crparse/root-doctrees", ".crparse/releases/2020-04-01/doctrees"])
def test_a_pickle_planted_among_the_doctrees_is_never_read(two, clean, tmp_path, doctrees):
    out = copy(clean, tmp_path / "site")
    canary = tmp_path / "PICKLE_RAN"
    folder = out / doctrees
    folder.mkdir(parents=True, exist_ok=True)
    code = PAYLOAD.format(canary=canary) + f"open({str(folder / 'environment.pickle')!r}, 'wb').write(pickle.dumps(Run()))"
    subprocess.run([sys.executable, "-c", code], check=True)
    (out / "2020-04-01" / ".crparse-site.json").unlink()  # a build to do, which reads its doctrees
    (out / "2020-04-01" / "index.html").write_text("changed")  # and the pages above: they link to it
    (out / ".crparse-root.json").unlink()
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert not canary.exists()
    assert not (out / doctrees).exists()  # nothing of a build's doctrees is kept to be read back


def test_an_edited_cache_puts_no_markup_in_the_site(two, clean, tmp_path):
    out = copy(clean, tmp_path / "site")
    for cache in (out / ".crparse" / "summaries").glob("*.json"):
        summary = json.loads(cache.read_text())
        summary["date"] = summary["date"] + "`__ <javascript:alert(1)>`__\n\n.. raw:: html\n\n   <script>alert('POISON')</script>"
        summary["pages"] = {k: "javascript:alert('PAGE')//" for k in summary["pages"]}
        cache.write_text(json.dumps(summary))
    (out / ".crparse-root.json").unlink()  # the pages above the releases to build again, from the cache
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    pages = "".join(p.read_text("utf-8", "replace") for p in out.rglob("*") if p.suffix in (".html", ".js"))
    assert "alert(" not in pages
    assert docnames(out) == docnames(clean)
    assert (out / "2020-01-01" / "lineage.js").read_text() == (clean / "2020-01-01" / "lineage.js").read_text()


@pytest.mark.parametrize("where", ["summary keys", "diff pairs"])
def test_an_edited_cache_key_puts_no_markup_in_the_site(two, clean, tmp_path, where):
    # a node key became a history page's name, written into the root page's reST: a line break
    # in it let a `javascript:` link follow (found by a review)
    out = copy(clean, tmp_path / "site")
    key = "zz\n\n`click me`__\n\n__ javascript:alert(1)\n\nx"
    if where == "summary keys":
        for cache in (out / ".crparse" / "summaries").glob("*.json"):
            summary = json.loads(cache.read_text())
            summary["keys"].append(key)
            summary["pages"][key] = "100"
            cache.write_text(json.dumps(summary))
    else:
        for cached in (out / ".crparse" / "diffs").glob("*.json"):
            data = json.loads(cached.read_text())
            data["diff"]["pairs"][0]["new"] = key
            cached.write_text(json.dumps(data))
    (out / ".crparse-root.json").unlink()
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    pages = "".join(p.read_text("utf-8", "replace") for p in out.rglob("*") if p.suffix in (".html", ".js"))
    assert "alert(" not in pages and "click me" not in pages
    assert docnames(out) == docnames(clean)


def test_a_killed_runs_temporaries_are_removed(two, clean, tmp_path):
    out = copy(clean, tmp_path / "site")
    left = [out / ".crparse-0123456789ab.tmp", out / "2020-01-01" / ".crparse-ba9876543210.tmp"]
    for path in left:
        path.write_text("half a file")
    (out / ".crparse-kept.tmp").write_text("not ours")
    assert docs(str(two), "-o", str(out)).returncode == 0
    assert not any(path.exists() for path in left) and (out / ".crparse-kept.tmp").exists()


def test_two_builds_at_once_take_turns(two, clean, tmp_path):
    from crparse.outputs import exclusive

    out = copy(clean, tmp_path / "site")
    with exclusive(out / ".crparse" / "lock", subject=str(out), busy="busy", wait=0):
        script = ("import sys; import crparse.site.corpus as c; c.WAIT = 0.5; "
                  "from crparse.cli.main import main; raise SystemExit(main(sys.argv[1:]))")
        done = subprocess.run([sys.executable, "-c", script, "docs", str(two), "-o", str(out)], capture_output=True,
                              text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == f"crparse: {out}: another crparse docs is building this site; run again when it ends"
    assert "waiting for it to end" in done.stderr


def test_one_release_then_two_then_one_again(two, tmp_path):
    # Each shape's stamp survived the other's build: the second one-release run found its stamp
    # and left the site's front page as the pages above the releases.
    out = tmp_path / "site"
    first = str(two / "2020-01-01.txt")
    for args in ([first], [str(two)], [first], [str(two)]):
        done = docs(*args, "-o", str(out))
        assert done.returncode == 0, done.stderr
        front = (out / "index.html").read_text("utf-8")
        assert ("Releases, newest first" in front) == (len(args) == 1 and args[0] == str(two)), args
