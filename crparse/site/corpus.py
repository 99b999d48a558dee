"""Several releases as one site: a site per release, and above them the change pages, the rules'
histories and a version switcher.

    OUT/index.html                  the releases, newest first, and the change pages
    OUT/<release>/...               each release's own site (crparse.site.release)
    OUT/<release>/lineage.js        HTML id -> lineage id, page, history page (for the switcher)
    OUT/<release>/locate.html       finds a lineage in this release (where the switcher lands)
    OUT/changes/<old>--<new>.html   what changed between consecutive releases
    OUT/history/<group>.html        every rule's history, grouped by its newest section
    OUT/versions.js                 the releases, read by every page's switcher
    OUT/.crparse/                   Sphinx's sources and environments, and the cache below

Incremental: what a release's site depends on is only the release itself, so adding a release
builds its site and the pages above the releases; the other releases' sites are left as they
are (crparse.site.release: each build is stamped, and a build is done from nothing or not at
all). Everything learnt from a release (its date, its node keys and pages) and from a pair (its
diff) is cached by sha256 under OUT/.crparse/, so an unchanged release is not parsed again either.
The cache is read as data of a known shape (a date is a date, a page a page name), so an edited
cache can make a site wrong, never put markup in it; `--force` ignores it and every stamp.

One build at a time: a run holds a lock (OUT/.crparse/lock) for its whole length, and another
waits for it (two builds interleaved left pages of one and a search index of the other).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Annotated, NamedTuple

import msgspec

import crparse
from crparse.diff.report import Diff
from crparse.errors import CrparseError
from crparse.outputs import exclusive, replace
from crparse.site.release import (STAMP, Built, SiteError, build_release, built, config, fingerprint, read_stamp,
                                  sphinx_build, tools)
from crparse.sphinx.corpus import anchor
from crparse.sphinx.prepare import GLOSSARY_PAGE, prepared

WORK = ".crparse"
STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
RESERVED = {"index", "changes", "history", "search", "genindex", "_static", "_sources", "_images", WORK}
CACHE_VERSION = 1
ROOT_STAMP = ".crparse-root.json"  # the pages above the releases, as STAMP is a release's
# How long a run waits for another building the same site: a build from nothing of the whole
# corpus takes many minutes, so past this the run is refused rather than left waiting.
WAIT = 60.0


class Release(NamedTuple):
    key: str  # its directory in the site: the date, else the file's stem
    path: Path
    sha: str
    date: str | None
    keys: list[str]  # node keys in document order (align units)
    pages: dict[str, str]  # node key -> page


class Report(NamedTuple):
    releases: list[Release]
    built: list[Built]
    skipped: list[str]  # "<path>: why" for inputs left out
    out: Path
    # how many of them were refused or could not be read (exit status 2); the others were passed
    # over: what a walk met that is no document (a FIFO), a second file of a release already in
    refused: int = 0


Progress = Callable[[str, int, int], None]


def build_site(paths: Sequence[Path], out: Path, *, jobs: int = 1, progress: Progress | None = None,
               force: bool = False, waiting: Callable[[float], None] | None = None) -> Report:
    """Build the site of the releases `paths` name into `out`; `waiting(seconds)` is called when
    another run is building the same site and this one waits for it."""
    _no_links_in(out)
    work = out / WORK
    with exclusive(work / "lock", subject=str(out), wait=WAIT, waiting=waiting,
                   busy="another crparse docs is building this site; run again when it ends"):
        _remove_temporaries(out)
        releases, skipped, refused = _releases(paths, work, progress, force)
        if not releases:
            raise SiteError("no release to build a site of (" + ("; ".join(skipped) or "no input") + ")")
        dated = [r for r in releases if r.date]
        diffs = _diffs(dated, work, progress, force)
        lineages = _lineages(dated, diffs)
        extra_js = ("../../versions.js", "../lineage.js", "cr-site.js") if len(releases) > 1 else ()
        if len(releases) == 1:  # OUT's pages become the release's: the stamp of the pages above goes
            (out / ROOT_STAMP).unlink(missing_ok=True)
        done = _build_releases(releases, out, work, extra_js, jobs, progress, force)
        if len(releases) > 1:
            _write_switcher(releases, out, lineages, dated)
            _build_root(releases, dated, diffs, lineages, out, work, force)
    return Report(releases, done, skipped, out, refused)


# -- releases ---------------------------------------------------------------------------------------


def _releases(paths: Sequence[Path], work: Path, progress: Progress | None,
              force: bool) -> tuple[list[Release], list[str], int]:
    from crparse.inputs import inputs
    from crparse.parallel import parse_all

    skipped: list[str] = []
    refused = 0
    found: list[tuple[Path, str]] = []
    for item in inputs(paths):
        if item.skipped is not None:
            skipped.append(f"{item.path}: {item.skipped}")
            refused += item.refused
            continue
        path = Path(item.path)
        try:
            found.append((path, fingerprint(path)))
        except CrparseError as why:
            skipped.append(str(why.located(str(path))))
            refused += 1
    cache_file = work / "releases.json"
    cache = {} if force else _load(cache_file)
    todo = [(p, sha) for p, sha in found if sha not in cache]
    for done, ((path, sha), doc) in enumerate(zip(todo, parse_all([p for p, _ in todo], then=_summary)), 1):
        if isinstance(doc, CrparseError):
            skipped.append(str(doc))
            refused += 1
        else:
            cache[sha] = doc[1]
        if progress:
            progress("parse", done, len(todo))
    _save(cache_file, cache)
    releases: list[Release] = []
    used: set[str] = set()
    for path, sha in found:
        info = cache.get(sha)
        if info is None:
            continue
        key = _key(info["date"] or path.stem.removesuffix(".rst"), sha)
        if key in used:
            skipped.append(f"{path}: another input is the release of {key} too; left out")
            continue
        used.add(key)
        releases.append(Release(key, path, sha, info["date"], info["keys"], info["pages"]))
    releases.sort(key=lambda r: (r.date is None, r.date or "", r.key))
    return releases, skipped, refused


def _summary(doc) -> dict:
    """What the site needs of a release besides its pages (computed where it was parsed)."""
    from crparse.align.units import units

    p = prepared(doc)
    pages = dict(p.page_of)
    keys = [u.key for u in units(doc)]
    for k in keys:
        if k.startswith("glossary:"):
            pages.setdefault(k, GLOSSARY_PAGE)
    return {"date": doc.effective_date, "keys": keys, "pages": {k: pages[k] for k in keys if k in pages}}


# No dot in a key: every file Sphinx and this module write at the site's root has one
# (versions.js, objects.inv, search.html), and a release's directory took its place.
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _key(name: str, sha: str) -> str:
    # a name of nothing but other letters ("règles" keeps "r-gles", "ルール" nothing) is told
    # from another by its content: each was "release", and all but the first left out
    key = _UNSAFE.sub("-", name).strip("-") or f"release-{sha[:8]}"
    return f"r-{key}" if key in RESERVED or key.startswith("_") else key


# -- diffs and lineage ------------------------------------------------------------------------------


def _diffs(dated: list[Release], work: Path, progress: Progress | None, force: bool) -> list[dict]:
    """The diff of each consecutive pair (cached by the two releases' sha256)."""
    from crparse.align import align
    from crparse.align.units import texts
    from crparse.diff.report import diff
    from crparse.parallel import parse_all

    folder = work / "diffs"
    folder.mkdir(exist_ok=True)
    out: list[dict] = []
    wanted = [(a, b) for a, b in zip(dated, dated[1:])]
    cached = {(a.sha, b.sha): None if force else _load_diff(folder / f"{a.sha}-{b.sha}.json") for a, b in wanted}
    missing = [(a, b) for a, b in wanted if cached[a.sha, b.sha] is None]
    paths = list(dict.fromkeys(str(r.path) for pair in missing for r in pair))
    docs = dict(zip(paths, parse_all(paths))) if paths else {}
    for done, (a, b) in enumerate(missing, 1):
        old, new = docs[str(a.path)], docs[str(b.path)]
        for doc in (old, new):
            if isinstance(doc, CrparseError):
                raise SiteError(f"{doc} (it was read before: did it change during the build?)")
        d = diff(align(old, new))
        shown = {f"old:{k}": v for k, v in texts(old).items()} | {f"new:{k}": v for k, v in texts(new).items()}
        used = {f"old:{p.old}" for p in d.pairs if p.kind == "removed"} | {
            f"new:{p.new}" for p in d.pairs if p.kind == "added"}
        data = {"diff": msgspec.to_builtins(d), "texts": {k: v for k, v in shown.items() if k in used}}
        replace(folder / f"{a.sha}-{b.sha}.json", msgspec.json.encode(data))
        cached[a.sha, b.sha] = data
        if progress:
            progress("diff", done, len(missing))
    for a, b in wanted:
        data = dict(cached[a.sha, b.sha])
        data["old"] = {"key": a.key, "date": a.date, "path": str(a.path)}
        data["new"] = {"key": b.key, "date": b.date, "path": str(b.path)}
        data["pages"] = {"old": a.pages, "new": b.pages}
        out.append(data)
    return out


def _lineages(dated: list[Release], diffs: list[dict]):
    from crparse.align.pairs import Pair
    from crparse.lineage.chain import Release as LineageRelease
    from crparse.lineage.chain import Lineages, link

    if not dated:
        return Lineages((), {}, ())
    steps = [tuple(Pair(p["old"], p["new"], p["kind"], tuple(p["flags"]), p["similarity"])
                   for p in data["diff"]["pairs"]) for data in diffs]
    return link([LineageRelease(r.date, str(r.path)) for r in dated], [r.keys for r in dated], steps)


# -- the releases' sites ------------------------------------------------------------------------------


def _build_one(args) -> Built:
    release, out, work, extra_js, force, jobs = args
    return build_release(release.path, out, work / "releases" / release.key, key=release.key,
                         extra_js=extra_js, force=force, static=(str(STATIC),) if extra_js else (), jobs=jobs,
                         sha=release.sha)


def _build_releases(releases: list[Release], out: Path, work: Path, extra_js: tuple[str, ...], jobs: int,
                    progress: Progress | None, force: bool) -> list[Built]:
    # One release is the whole site; several are a site each, under the site's root.
    # Several releases are built side by side; one release is read and written by Sphinx's own workers.
    tasks = [(r, out if len(releases) == 1 else out / r.key, work, extra_js, force, jobs if len(releases) == 1 else 1)
             for r in releases]
    built: list[Built] = []
    if jobs <= 1 or len(tasks) == 1:
        for done, task in enumerate(tasks, 1):
            built.append(_build_one(task))
            if progress:
                progress("build", done, len(tasks))
        return built
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        for done, result in enumerate(pool.map(_build_one, tasks), 1):
            built.append(result)
            if progress:
                progress("build", done, len(tasks))
    return built


def _write_switcher(releases: list[Release], out: Path, lineages, dated: list[Release]) -> None:
    newest_first = sorted(releases, key=lambda r: (r.date is not None, r.date or "", r.key), reverse=True)
    versions = [[r.key, r.date or r.key] for r in newest_first]
    _write_if_changed(out / "versions.js", "window.CR_VERSIONS = " + json.dumps(versions) + ";\n")
    index = {r.key: i for i, r in enumerate(dated)}
    groups = _history_groups(lineages)
    for r in releases:
        table: dict[str, list] = {}
        at = lineages.at[index[r.key]] if r.key in index else {}
        for key, page in r.pages.items():  # keyed by the HTML id, which is what a page knows
            lid = at.get(key)
            table[anchor(key)] = [lid, page, groups.get(lid)]
        _write_if_changed(out / r.key / "lineage.js",
                          f"window.CR_RELEASE = {json.dumps(r.key)};\nwindow.CR_LINEAGE = {json.dumps(table)};\n")
        _write_if_changed(out / r.key / "locate.html", (TEMPLATES / "locate.html").read_text("utf-8"))


# -- the pages above the releases --------------------------------------------------------------------


def _group(key: str) -> str:
    """The history page of a node key: its section, its part, the glossary (a name reST and a
    file name can carry as they are, whatever the key: "other" for a key of no such shape)."""
    if key.startswith("glossary:"):
        return "glossary"
    head = key.split(".", 1)[0]
    if not head.isascii() or not head.isdigit():
        return "other"
    return f"part-{head}" if len(head) == 1 and "." not in key else head


def _history_groups(lineages) -> dict[str, str]:
    """lineage id -> its history page: the group of its number in the last release it is in."""
    return {lid: _group(lineage.steps[-1].key) for lid, lineage in lineages.lineages.items()}


def _build_root(releases: list[Release], dated: list[Release], diffs: list[dict], lineages, out: Path, work: Path,
                force: bool) -> None:
    src = work / "root"
    wanted: dict[str, str] = {}
    change_names = []
    for data in diffs:
        name = f"{data['old']['key']}--{data['new']['key']}"
        change_names.append(name)
        wanted[f"changes/{name}.json"] = json.dumps(data, ensure_ascii=False, sort_keys=True)
        wanted[f"changes/{name}.rst"] = f".. cr:changes:: {name}.json\n"
    by_group: dict[str, list[dict]] = {}
    for lid, lineage in lineages.lineages.items():
        steps = []
        for s in lineage.steps:
            r = dated[s.release]
            before = dated[s.release - 1].key if s.release else None
            steps.append({"release": r.key, "date": r.date, "number": s.key, "kind": s.kind, "flags": list(s.flags),
                          "page": r.pages.get(s.key),
                          "change": f"{before}--{r.key}" if before and s.kind not in ("unchanged", "born") else None})
        last = lineage.steps[-1].release
        end_date = dated[last + 1].date if lineage.end and last + 1 < len(dated) else None
        by_group.setdefault(_group(lineage.steps[-1].key), []).append(
            {"id": lid, "end": lineage.end, "end_date": end_date, "born_of": lineage.born_of,
             "merged_into": lineage.merged_into, "steps": steps})
    for group, items in by_group.items():
        items.sort(key=lambda item: (_sort_key(item["steps"][-1]["number"]), item["id"]))
        title = "Glossary" if group == "glossary" else f"Part {group[5:]}" if group.startswith("part-") else f"Section {group}"
        data = {"title": f"History: {title}", "first": dated[0].key, "lineages": items}
        wanted[f"history/{group}.json"] = json.dumps(data, ensure_ascii=False, sort_keys=True)
        wanted[f"history/{group}.rst"] = f".. cr:history:: {group}.json\n"
    history_names = sorted(by_group, key=lambda g: (g == "glossary", _sort_key(g.removeprefix("part-"))))
    wanted["index.rst"] = _root_index(releases, change_names, history_names)
    settings = config("Comprehensive Rules: all releases")
    digest = hashlib.sha256(json.dumps([settings, sorted(wanted.items())]).encode("utf-8"))
    stamp = {"crparse": crparse.__version__, "tools": tools(), "pages": digest.hexdigest()}
    if not force and read_stamp(out / ROOT_STAMP) == stamp and built(out):
        return
    # OUT's pages are no longer a release's, and a build killed from here on leaves no stamp
    for name in (ROOT_STAMP, STAMP):
        (out / name).unlink(missing_ok=True)
    for name, text in wanted.items():
        _write_if_changed(src / name, text)
    for old in list(src.rglob("*.rst")) + list(src.rglob("*.json")):
        if str(old.relative_to(src)) not in wanted:
            old.unlink()
    sphinx_build(src, out, work / "root-doctrees", settings, what="the site's index, change and history pages")
    replace(out / ROOT_STAMP, json.dumps(stamp))


def _root_index(releases: list[Release], changes: list[str], history: list[str]) -> str:
    lines = ["Comprehensive Rules", "===================", "", "Releases, newest first:", ""]
    for r in sorted(releases, key=lambda r: (r.date is not None, r.date or "", r.key), reverse=True):
        lines.append(f"* `{r.date or r.key} <{r.key}/index.html>`__")
    lines += ["", "What changed between consecutive releases:", ""]
    lines += [f"* :doc:`changes/{name}`" for name in reversed(changes)]
    lines += ["", "The history of every rule, by section:", ""]
    lines += [f"* :doc:`history/{name}`" for name in history]
    lines += ["", ".. toctree::", "   :hidden:", ""]
    lines += [f"   changes/{name}" for name in reversed(changes)]
    lines += [f"   history/{name}" for name in history]
    return "\n".join(lines) + "\n"


def _sort_key(number: str):
    from crparse.numbers import parse_number

    parsed = parse_number(number.removeprefix("glossary:"))
    return (0, parsed.key, "") if parsed is not None else (1, (0, 0, 0), number)


# -- files --------------------------------------------------------------------------------------------


def _no_links_in(out: Path) -> None:
    """Refuses an output directory holding what a write by name would go through: a symbolic link
    (`versions.js`, `2020-01-01/`, `.crparse/diffs` written into a file or directory outside), a
    file with other hard links (written in place: the other name's file changes too), or a FIFO,
    socket or device (an open for writing waits on a FIFO for ever). OUT itself may be a link."""
    import stat

    if not out.is_dir():
        return
    for root, dirs, files in os.walk(out):  # os.walk follows no link below its top
        for name in dirs + files:
            path = os.path.join(root, name)
            try:
                status = os.lstat(path)
            except OSError:
                continue  # gone since it was listed
            if stat.S_ISLNK(status.st_mode):
                why = "a symbolic link"
            elif stat.S_ISREG(status.st_mode) and status.st_nlink > 1:
                why = "a file with other hard links"
            elif not (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)):
                why = "not a regular file or directory"
            else:
                continue
            raise SiteError(f"{why} inside the output directory: crparse docs writes its files by name, and would "
                            "write through it; remove it", path=path)


def _remove_temporaries(out: Path) -> None:
    """The files a run killed while writing left behind (crparse.outputs.replace's, renamed into
    place by a run that ends): no other run is writing, under the lock."""
    from crparse.outputs import is_temporary

    for root, _, files in os.walk(out):
        for name in files:
            if is_temporary(name):
                Path(root, name).unlink(missing_ok=True)


def _write_if_changed(path: Path, text: str) -> None:
    """Sphinx rereads a source whose mtime changed: leave unchanged files untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text("utf-8") == text:
        return
    replace(path, text)


# What a cached summary may hold is what a parse gives: a date is an ISO date, a page a page name
# (part-1, 702, glossary), a node key a number or a glossary term on one line. An edited cache's
# "date" went into the root page's reST, its "page" into lineage.js as a link (`javascript:`), a
# key with a line break into the root page's reST as a history page's name. (\Z, not $: "$"
# matches before a last line break.)
_KEY = r"\A(?:[0-9]+(?:\.[0-9]+[a-z]*)?|glossary:[^\r\n]+)\Z"
_Date = Annotated[str, msgspec.Meta(pattern=r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")]
_Page = Annotated[str, msgspec.Meta(pattern=r"\A[0-9A-Za-z][0-9A-Za-z._-]*\Z")]
_Key = Annotated[str, msgspec.Meta(pattern=_KEY)]


class _Summary(msgspec.Struct):
    date: _Date | None
    keys: list[_Key]
    pages: dict[_Key, _Page]


class _SummaryCache(msgspec.Struct):
    version: int
    releases: dict[str, _Summary]


class _CachedDiff(msgspec.Struct):
    diff: Diff
    texts: dict[str, str]


def _load(path: Path) -> dict:
    """The cached summaries of releases, or none: a cache that does not read as one (a run killed
    while writing it, an edit by hand) is built again, never trusted or an error."""
    try:
        data = msgspec.json.decode(path.read_bytes(), type=_SummaryCache)
    except (OSError, msgspec.MsgspecError):
        return {}
    return msgspec.to_builtins(data.releases) if data.version == CACHE_VERSION else {}


def _load_diff(path: Path) -> dict | None:
    try:
        data = msgspec.to_builtins(msgspec.json.decode(path.read_bytes(), type=_CachedDiff))
    except (OSError, msgspec.MsgspecError):
        return None
    keys = re.compile(_KEY)  # a pair's keys become lineages' keys, as a summary's do
    if not all(key is None or keys.match(key) for p in data["diff"]["pairs"] for key in (p["old"], p["new"])):
        return None
    return data


def _save(path: Path, releases: dict) -> None:
    replace(path, json.dumps({"version": CACHE_VERSION, "releases": releases}).encode("utf-8"))

