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
The cache is read as data of a known shape (a date is a date, a page a page name, a key a rule
number or a glossary term), within a size bound (crparse.site.state), and a diff only where it
pairs exactly the nodes of its two releases' summaries: an edited cache can make a site wrong,
never put markup in it or stop the build (one that disagrees is built again, with a warning);
`--force` ignores it and every stamp.

The inputs are never the site: an input inside OUT (or OUT itself) is refused, and a directory
walked for releases is not read into where it holds OUT or another site crparse built (its pages
were read back as releases, and the next run built sites of them).

One build at a time: a run holds a lock (OUT/.crparse/lock) for its whole length, and another
waits for it (two builds interleaved left pages of one and a search index of the other).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import msgspec

import crparse
from crparse.align.pairs import FLAGS, KINDS
from crparse.errors import CommandError, CrparseError
from crparse.inputs import inside, resolved
from crparse.limits import max_site_units
from crparse.outputs import exclusive, make_directories, replace, tree
from crparse.parallel import end_pool, result_of, worker_pool
from crparse.processes import stoppable
from crparse.shapes import UNIT_NUMBER
from crparse.site.release import STAMP, Built, SiteError, build_release, built, config, fingerprint, sphinx_build, tools
from crparse.site.state import diff_limit, holds, load, read_stamp, summary_limit
from crparse.sphinx.corpus import anchor
from crparse.sphinx.prepare import GLOSSARY_PAGE, prepared, remember
from crparse.writers.json import valid_json, valid_strings

WORK = ".crparse"
STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
RESERVED = {"index", "changes", "history", "search", "genindex", "_static", "_sources", "_images", WORK}
CACHE_VERSION = 4  # 1: every summary in one file, OUT/.crparse/releases.json (read whole); 2: no references count; 3: references, not links
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
    warnings: list[str]  # "<path>: why" for what an earlier build left that was not used (a cache built again)
    # how many inputs were refused or could not be read (exit status 2); the others were passed
    # over: what a walk met that is no document (a FIFO), a second file of a release already in
    refused: int = 0


Progress = Callable[[str, int, int], None]


def build_site(paths: Sequence[Path], out: Path, *, jobs: int = 1, progress: Progress | None = None,
               force: bool = False, waiting: Callable[[float], None] | None = None) -> Report:
    """Build the site of the releases `paths` name into `out`; `waiting(seconds)` is called when
    another run is building the same site and this one waits for it."""
    _usable_output(out)
    _no_inputs_in(paths, out)
    _no_links_in(out)
    work = out / WORK
    notes: list[str] = []
    with exclusive(work / "lock", subject=str(out), wait=WAIT, waiting=waiting,
                   busy="another crparse docs is building this site; run again when it ends"):
        releases, skipped, refused = _releases(paths, out, work, progress, force, notes)
        if not releases:
            raise SiteError("no release to build a site of (" + ("; ".join(skipped) or "no input") + ")")
        _remove_temporaries(out, work, releases)
        # A release read for its summary is read again by its diffs and its build, and one whose
        # summary was cached is first read there: refused there (the run's budget for reads again
        # spent), it is left out and the site built of the others. It ended the run, the site
        # left half built (sweep 37). Each turn leaves one out at least, or distrusts the cache once.
        unread: dict[str, str] = {}  # sha256 -> why
        distrusted = False
        while True:
            live = [r for r in releases if r.sha not in unread]
            if not live:
                raise SiteError("no release to build a site of (" + "; ".join(skipped) + ")")
            dated = [r for r in live if r.date]
            try:
                diffs, wrong = _diffs(dated, work, progress, force, notes)
                if wrong:  # a cached summary the releases' own diff contradicts: those releases parsed again
                    if distrusted:
                        raise SiteError("the releases' diffs disagree with their parses (did a release change during "
                                        "the build?): " + ", ".join(sorted(str(r.path) for r in dated if r.sha in wrong)))
                    distrusted = True
                    releases, skipped, refused = _releases(paths, out, work, progress, force, notes, distrust=wrong)
                    skipped += unread.values()
                    refused += len(unread)
                    continue
                lineages = _lineages(dated, diffs)
                extra_js = ("../../versions.js", "../lineage.js", "cr-site.js") if len(live) > 1 else ()
                if len(live) == 1:  # OUT's pages become the release's: the stamp of the pages above goes
                    (out / ROOT_STAMP).unlink(missing_ok=True)
                done = _build_releases(live, out, work, extra_js, jobs, progress, force)
            except _Unread as why:
                unread.update(why.releases)
                skipped += why.releases.values()
                refused += len(why.releases)
                continue
            break
        releases = live
        if len(releases) > 1:
            _write_switcher(releases, out, lineages, dated)
            _build_root(releases, dated, diffs, lineages, out, work, force)
    return Report(releases, done, skipped, out, notes, refused)


class _Unread(Exception):
    """Releases refused when read again by their diffs or their build: why, by sha256."""

    def __init__(self, releases: dict[str, str]):
        self.releases = releases


# -- releases ---------------------------------------------------------------------------------------


def _releases(paths: Sequence[Path], out: Path, work: Path, progress: Progress | None, force: bool, notes: list[str],
              distrust: frozenset[str] | set[str] = frozenset()) -> tuple[list[Release], list[str], int]:
    """The releases `paths` name, each with its summary (cached, or parsed now: always for the
    sha256s in `distrust`), the inputs left out with why, and how many of those were refused."""
    from crparse.parallel import parse_all

    skipped: list[str] = []
    refused = 0
    found: list[tuple[Path, str]] = []
    first: dict[str, Path] = {}  # sha256 -> the input it was first read from
    for item in _inputs(paths, out, skipped):
        if item.skipped is not None:
            skipped.append(f"{item.path}: {item.skipped}")
            refused += item.refused
            continue
        path = Path(item.path)
        try:
            sha = fingerprint(path)  # each edition's directory hashed once a run (crparse.fingerprint)
        except CrparseError as why:
            skipped.append(str(why.located(str(path))))
            refused += 1
            continue
        if sha in first:  # the same bytes under another name: one release, built once
            skipped.append(f"{path}: the same text as {first[sha]}; built once, as that")
            continue
        first[sha] = path
        found.append((path, sha))
    folder = work / "summaries"
    make_directories(folder)
    _remove_file(work / "releases.json")  # the summaries of an earlier crparse (CACHE_VERSION 1)
    cache: dict[str, dict] = {}
    for path, sha in found:
        if not force and sha not in distrust and (summary := _load_summary(folder / f"{sha}.json", notes)) is not None:
            cache[sha] = summary
    # Two texts of one date make one release, the other left out: a date only a cache says is
    # made sure of by parsing again (an edited date left releases out, and the run said 0)
    dates = Counter(summary["date"] for summary in cache.values() if summary["date"])
    for sha in [sha for sha, summary in cache.items() if dates[summary["date"]] > 1]:
        del cache[sha]
    todo = [(p, sha) for p, sha in found if sha not in cache]
    for done, ((path, sha), doc) in enumerate(zip(todo, parse_all([p for p, _ in todo], then=_summary)), 1):
        if isinstance(doc, CrparseError):
            skipped.append(str(doc))
            refused += 1
        else:
            cache[sha] = doc[1]
            _save_summary(folder / f"{sha}.json", doc[1])
            remember(str(path), doc[0])  # the build reads it again otherwise (the last few kept)
        if progress:
            progress("parse", done, len(todo))
    most = max_site_units()
    for path, sha in found:
        if sha in cache and len(cache[sha]["keys"]) + cache[sha]["references"] > most:
            skipped.append(f"{path}: {len(cache[sha]['keys']):,} rules, subrules and glossary entries and "
                           f"{cache[sha]['references']:,} references (or the links they make), more than the {most:,} a site is built of (the 2026 "
                           "release has about 6,000): raise CRPARSE_MAX_SITE_UNITS to build its pages")
            refused += 1
            del cache[sha]
    return _named([(path, sha, cache[sha]) for path, sha in found if sha in cache], skipped), skipped, refused


def _named(found: list[tuple[Path, str, dict]], skipped: list[str]) -> list[Release]:
    """The releases, each named by its date, else by its file's stem. Different texts never share a
    name: undated ones whose stems meet (a/rules.txt, b/rules.txt, b/rules.md), or meet a date,
    are told apart by the start of their sha256 (each was "rules", and all but the first left
    out). Two texts of one date are taken for one release (the same rules in two formats)."""
    names = [info["date"] or _key(path.stem.removesuffix(".rst"), sha) for path, sha, info in found]
    dates = {info["date"] for _, _, info in found if info["date"]}
    stems = Counter(name for name, (_, _, info) in zip(names, found) if not info["date"])
    releases: list[Release] = []
    used: set[str] = set()
    for name, (path, sha, info) in zip(names, found):
        if not info["date"] and (stems[name] > 1 or name in dates):
            name = _key(f"{name}-{sha[:8]}", sha)
        if name in used:
            skipped.append(f"{path}: another input is the release of {name} too; left out")
            continue
        used.add(name)
        releases.append(Release(name, path, sha, info["date"], info["keys"], info["pages"]))
    releases.sort(key=lambda r: (r.date is None, r.date or "", r.key))
    return releases


def _inputs(paths: Sequence[Path], out: Path, skipped: list[str]) -> Iterator:
    """The inputs `paths` name (crparse.inputs), each file once, and none from OUT or another
    site crparse built: a walk skips the directory of one, saying so once (its pages, read as
    releases, became sites of their own on the next run)."""
    from crparse.inputs import inputs

    site = _real(out)
    verdicts: dict[Path, str | None] = {}
    said: set[Path] = set()
    seen: set[str] = set()
    for given in paths:
        top = Path(given)
        real_top = _real(top)
        for item in inputs([given]):
            if not item.named:
                where = _site_above(Path(item.path), top, real_top, site, verdicts)
                if where is not None:
                    if where not in said:
                        said.add(where)
                        skipped.append(f"{where}: {verdicts[where]}")
                    continue
            if item.skipped is not None:
                yield item  # said, and counted, by the caller
                continue
            # the same file given twice (or named, and in a directory given); an index.rst is its
            # directory's edition, a link to another's or not (one was left out without a word: sweep 39)
            path = Path(item.path)
            real = _real(path) + ("\0" + _real(path.parent) if path.name == "index.rst" else "")
            if real in seen:
                continue
            seen.add(real)
            yield item


def _site_above(path: Path, top: Path, real_top: str, site: str, verdicts: dict[Path, str | None]) -> Path | None:
    """The outermost directory from `top` (the directory walked) down to `path` that is OUT or
    holds a site, if any (why, in `verdicts`). The walk goes into no link to a directory: a
    folder below `top` is where `top` really is, and its path there is made from `real_top`,
    not resolved again, component by component (a file 2,000 directories down took 41 s: sweep 18)."""
    chain = []
    for folder in path.parents:
        chain.append(folder)
        if folder == top:
            break
    for folder in reversed(chain):
        if folder not in verdicts:
            real = real_top if folder == top else os.path.join(real_top, os.path.relpath(folder, top))
            if real == site:
                verdicts[folder] = "the output directory: the site is not read as releases"
            elif any(os.path.lexists(folder / name) for name in (ROOT_STAMP, STAMP, WORK)):
                verdicts[folder] = "a site crparse docs built: not read as releases"
            else:
                verdicts[folder] = None
        if verdicts[folder] is not None:
            return folder
    return None


def _real(path: Path) -> str:
    try:
        return resolved(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def _summary(doc) -> dict:
    """What the site needs of a release besides its pages (computed where it was parsed)."""
    from crparse.align.units import units

    p = prepared(doc)
    pages = dict(p.page_of)
    keys = [u.key for u in units(doc)]
    for k in keys:
        if k.startswith("glossary:"):
            pages.setdefault(k, GLOSSARY_PAGE)
    return {"date": doc.effective_date, "keys": keys, "pages": {k: pages[k] for k in keys if k in pages},
            # each link a reference makes costs the pages (a range links every rule in it, a
            # glossary pointer each term): 30 ranges of 3,000 rules took 41 s (sweep 15)
            "references": max(sum(map(len, p.references.values())),
                              sum(len(c.nodes) for refs in p.references.values() for ref in refs for c in ref.cited))}


# No dot in a key: every file Sphinx and this module write at the site's root has one
# (versions.js, objects.inv, search.html), and a release's directory took its place.
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _key(name: str, sha: str) -> str:
    # a name of nothing but other letters ("règles" keeps "r-gles", "ルール" nothing) is told
    # from another by its content: each was "release", and all but the first left out
    key = _UNSAFE.sub("-", name).strip("-") or f"release-{sha[:8]}"
    return f"r-{key}" if key in RESERVED or key.startswith("_") else key


# -- diffs and lineage ------------------------------------------------------------------------------


def _diffs(dated: list[Release], work: Path, progress: Progress | None, force: bool,
           notes: list[str]) -> tuple[list[dict], set[str]]:
    """The diff of each consecutive pair (cached by the two releases' sha256), and the sha256s of
    the releases whose cached summary a diff computed now contradicts (their keys are not the
    nodes the diff pairs): then the diffs are not finished, and those summaries are to be redone."""
    from crparse.align import align
    from crparse.align.units import texts
    from crparse.diff.report import diff
    from crparse.parallel import parse_all

    folder = work / "diffs"
    folder.mkdir(exist_ok=True)
    out: list[dict] = []
    wanted = [(a, b) for a, b in zip(dated, dated[1:])]
    cached = {(a.sha, b.sha): None if force else _load_diff(folder / f"{a.sha}-{b.sha}.json", a, b, notes)
              for a, b in wanted}
    missing = [(a, b) for a, b in wanted if cached[a.sha, b.sha] is None]
    paths = list(dict.fromkeys(str(r.path) for pair in missing for r in pair))
    docs = dict(zip(paths, parse_all(paths))) if paths else {}
    unread = {r.sha: str(docs[str(r.path)]) for pair in missing for r in pair if isinstance(docs[str(r.path)], CrparseError)}
    if unread:
        raise _Unread(unread)
    wrong: set[str] = set()
    for done, (a, b) in enumerate(missing, 1):
        old, new = docs[str(a.path)], docs[str(b.path)]
        d = diff(align(old, new))
        for release, side in ((a, "old"), (b, "new")):
            if {getattr(p, side) for p in d.pairs} - {None} != set(release.keys):
                notes.append(f"{release.path}: its cached summary does not name the nodes the release holds; "
                             "parsed again")
                wrong.add(release.sha)
        shown = {f"old:{k}": v for k, v in texts(old).items()} | {f"new:{k}": v for k, v in texts(new).items()}
        used = {f"old:{p.old}" for p in d.pairs if p.kind == "removed"} | {
            f"new:{p.new}" for p in d.pairs if p.kind == "added"}
        data = {"diff": msgspec.to_builtins(d), "texts": {k: v for k, v in shown.items() if k in used}}
        _save_diff(folder / f"{a.sha}-{b.sha}.json", data)
        cached[a.sha, b.sha] = data
        if progress:
            progress("diff", done, len(missing))
    if wrong:
        return [], wrong
    for a, b in wanted:
        data = dict(cached[a.sha, b.sha])
        data["old"] = {"key": a.key, "date": a.date, "path": str(a.path)}
        data["new"] = {"key": b.key, "date": b.date, "path": str(b.path)}
        data["pages"] = {"old": a.pages, "new": b.pages}
        out.append(data)
    return out, wrong


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


def _build_one(args) -> Built | CrparseError:
    """A release's site; or its refusal, where the release cannot be read again (a site's own
    failure, a SiteError, ends the run)."""
    release, out, work, extra_js, force = args
    try:
        return build_release(release.path, out, work / "releases" / release.key, key=release.key,
                             extra_js=extra_js, force=force, static=(str(STATIC),) if extra_js else (), sha=release.sha)
    except CommandError:
        raise
    except CrparseError as why:
        return why.located(str(release.path))


def _build_releases(releases: list[Release], out: Path, work: Path, extra_js: tuple[str, ...], jobs: int,
                    progress: Progress | None, force: bool) -> list[Built]:
    # One release is the whole site; several are a site each, under the site's root.
    # Several releases are built side by side; one release is read and written by Sphinx's own workers.
    tasks = [(r, out if len(releases) == 1 else out / r.key, work, extra_js, force) for r in releases]
    built: list[Built | CrparseError] = []
    if jobs > 1:
        from crparse.readers.pdf.confine import share_slots

        share_slots()  # PDF reads at once, in all the workers (ours, Sphinx's): not one per worker
    if jobs <= 1 or len(tasks) == 1:
        for done, task in enumerate(tasks, 1):
            built.append(_build_one(task))
            if progress:
                progress("build", done, len(tasks))
        return _all_built(releases, built)
    pool = worker_pool(min(jobs, len(tasks)))
    finished = False
    try:
        for done, future in enumerate([pool.submit(_stoppable_build, task) for task in tasks], 1):
            built.append(result_of(future))
            if progress:
                progress("build", done, len(tasks))
        finished = True
    finally:
        end_pool(pool, finished)
    return _all_built(releases, built)


def _all_built(releases: list[Release], built: list[Built | CrparseError]) -> list[Built]:
    unread = {r.sha: str(b) for r, b in zip(releases, built) if isinstance(b, CrparseError)}
    if unread:
        raise _Unread(unread)
    return built


def _stoppable_build(task) -> Built | CrparseError:
    """A release's build in a pool's worker: Ctrl-C ends it (processes.stoppable)."""
    with stoppable():
        return _build_one(task)


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
        wanted[f"changes/{name}.json"] = json.dumps(valid_strings(data), ensure_ascii=False, sort_keys=True)
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
    gone = []  # the pages an earlier build wrote from sources no longer wanted
    for old in [Path(root, name) for root, _, names in tree(src) for name in names if name.endswith((".rst", ".json"))]:
        if str(old.relative_to(src)) not in wanted:
            if old.suffix == ".rst":
                gone.append(old.relative_to(src).with_suffix(".html"))
            old.unlink()
    sphinx_build(src, out, work / "root-doctrees", settings, what="the site's index, change and history pages")
    _drop_stale_pages(out, gone)
    replace(out / ROOT_STAMP, json.dumps(stamp))


def _drop_stale_pages(out: Path, gone: list[Path]) -> None:
    """The change and history pages Sphinx wrote in an earlier build whose source is gone (a
    release added between two, or left out): Sphinx leaves what it no longer builds, and a site
    built again differed from a fresh one by pages of changes that are no longer (sweep 12).
    Only those: every page of the folders not built this time went, a user's own too (sweep 14)."""
    for name in gone:
        page = out / name
        if not page.parent.is_symlink() and not page.is_symlink() and page.is_file():
            page.unlink()


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
    for root, dirs, files in tree(out):  # no link followed below its top; a loop, at any depth
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


def _usable_output(out: Path) -> None:
    """Refuses an OUT that cannot be a directory, naming the real cause (a link to nothing was
    reported as "cannot take the lock file ...: File exists")."""
    for place in [*reversed(out.parents), out]:
        if not os.path.lexists(place) or os.path.isdir(place):
            continue
        if os.path.islink(place):
            try:
                target = os.readlink(place)
            except OSError:
                target = "?"
            why = (f"a symbolic link to {target}, which does not exist" if not os.path.exists(place)
                   else f"not a directory (a symbolic link to {target}, {_kind(place)})")  # not "does not exist" (sweep 19)
        else:
            why = f"not a directory ({_kind(place)})"
        raise SiteError(f"the output directory cannot be made: {place} is {why}" if place != out
                        else f"the output is {why}", path=str(out))
    work = out / WORK
    if os.path.lexists(work) and not os.path.isdir(work):
        raise SiteError(f"{work} is not a directory: crparse docs keeps its caches and lock there; remove it",
                        path=str(out))


def _kind(path: Path) -> str:
    """What a path that is not a directory is: "a file", "a device" (a link to /dev/zero was
    called a file: sweep 24)..."""
    from crparse.inputs import file_kind

    try:
        return file_kind(os.stat(path).st_mode) or "a file"
    except OSError:
        return "a file"


def _no_inputs_in(paths: Sequence[Path], out: Path) -> None:
    """Refuses inputs that are OUT or inside it: the site's own pages would be read as releases
    (`docs rel -o rel` built sites of 100.html, 101.html, a change page)."""
    site = _real(out)
    for path in paths:
        real = _real(Path(path))
        if real == site:
            raise SiteError(f"the output directory is an input too ({path}): its pages would be read as releases; "
                            "give -o a directory outside the inputs", path=str(out))
        if inside(real, site):
            raise SiteError(f"an input is inside the output directory ({path}): the site's files would be read as "
                            "releases; keep the releases outside it", path=str(out))


def _remove_temporaries(out: Path, work: Path, releases: list[Release]) -> None:
    """The files a run killed while writing left behind (crparse.outputs.replace's, renamed into
    place by a run that ends), in the directories crparse writes them to: OUT/.crparse/, OUT and
    the releases' directories, no other (a user's file of that name elsewhere in OUT is the
    user's). No other run is writing, under the lock; no link is followed."""
    from crparse.outputs import is_temporary

    folders = [str(out)] + [str(out / r.key) for r in releases if len(releases) > 1]
    folders += [root for root, _, _ in tree(work)]  # no link followed
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if is_temporary(name):
                _remove_file(Path(folder, name))


def _remove_file(path: Path) -> None:
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


def _write_if_changed(path: Path, text: str) -> None:
    """Sphinx rereads a source whose mtime changed: leave unchanged files untouched."""
    make_directories(path.parent)
    data = text.encode("utf-8")
    if not holds(path, data):
        replace(path, data)


# What a cached summary may hold is what a parse gives: a date is an ISO date, a page a page name
# (part-1, 702, glossary), a node key a number as the parser reads one (crparse.shapes: at most
# three digits a part, so a history page named after it is a short file name; a key of 300
# digits made one too long to write, on every run until --force) or a glossary term on one line.
# An edited cache's "date" went into the root page's reST, its "page" into lineage.js as a link
# (`javascript:`), a key with a line break into the root page's reST as a history page's name.
# (\Z, not $: "$" matches before a last line break.)
_KEY = rf"\A(?:{UNIT_NUMBER}|glossary:[^\r\n]+)\Z"
_Date = Annotated[str, msgspec.Meta(pattern=r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")]
_Page = Annotated[str, msgspec.Meta(pattern=r"\A[0-9A-Za-z][0-9A-Za-z._-]{0,63}\Z")]
_Key = Annotated[str, msgspec.Meta(pattern=_KEY)]


class _Summary(msgspec.Struct, forbid_unknown_fields=True):
    version: int
    date: _Date | None
    keys: list[_Key]
    pages: dict[_Key, _Page]
    references: Annotated[int, msgspec.Meta(ge=0)]


# A cached diff is the diff's own shape (crparse.diff.report) with each field held to what
# crparse.align gives: a kind and flags of its vocabulary, word operations, a similarity.
class _Release(msgspec.Struct):
    date: _Date | None
    path: str | None


class _Change(msgspec.Struct):
    old: _Key | None
    new: _Key | None
    kind: Literal[KINDS]
    flags: tuple[Literal[FLAGS], ...]
    similarity: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
    words: tuple[tuple[Literal["=", "-", "+"], str], ...] = ()


class _Diff(msgspec.Struct):
    old: _Release
    new: _Release
    typography: bool
    pairs: tuple[_Change, ...]
    complete: bool = True


class _CachedDiff(msgspec.Struct, forbid_unknown_fields=True):
    diff: _Diff
    texts: dict[str, str]


def _load_summary(path: Path, notes: list[str]) -> dict | None:
    """A release's cached summary, or none: a cache that does not read as one (an edit by hand, a
    file planted) is built again, never trusted or an error."""
    data = load(path, summary_limit(), _Summary, notes)
    if data is None:
        return None
    problem = "from another crparse" if data.version != CACHE_VERSION else _summary_problem(data)
    if problem:
        notes.append(f"{path}: not a cache crparse writes ({problem}); built again")
        return None
    return {"date": data.date, "keys": data.keys, "pages": data.pages, "references": data.references}


def _summary_problem(data: _Summary) -> str | None:
    keys = set(data.keys)
    if any(key not in keys for key in data.pages):
        return "pages of nodes it does not list"
    return None


def _save_summary(path: Path, summary: dict) -> None:
    """Caches a summary, if it reads back as one (a key or page of no known shape, a summary past
    the bound: not cached, and the release is parsed again on the next run)."""
    data = valid_json({"version": CACHE_VERSION, **summary})
    try:
        ok = len(data) <= summary_limit() and _summary_problem(msgspec.json.decode(data, type=_Summary)) is None
    except msgspec.MsgspecError:
        ok = False
    if ok:
        replace(path, data)
    else:
        _remove_file(path)


def _load_diff(path: Path, a: Release, b: Release, notes: list[str]) -> dict | None:
    """The cached diff of releases `a` and `b`, or none: one that does not read as a diff, or does
    not pair exactly the nodes their summaries list (a node neither has, a pair of an unknown
    kind or of no side: exit 3 in the lineage), is built again."""
    data = load(path, diff_limit(), _CachedDiff, notes)
    if data is None:
        return None
    problem = _pairing_problem(data.diff.pairs, a.keys, b.keys)
    if problem:
        notes.append(f"{path}: a cached diff that does not agree with its releases ({problem}); built again")
        return None
    return msgspec.to_builtins(data)


def _pairing_problem(pairs, old_keys: list[str], new_keys: list[str]) -> str | None:
    """What is wrong with `pairs` as the alignment of releases of those keys (every node of each
    in a pair, a side missing exactly where the kind says so), or None."""
    olds, news = set(), set()
    for p in pairs:
        if (p.old is None) != (p.kind == "added") or (p.new is None) != (p.kind == "removed"):
            return f"a pair {p.old} -> {p.new} of kind {p.kind}"
        olds.add(p.old)
        news.add(p.new)
    olds.discard(None)
    news.discard(None)
    if olds != set(old_keys):
        return "nodes that are not those of the older release"
    if news != set(new_keys):
        return "nodes that are not those of the newer release"
    return None


def _save_diff(path: Path, data: dict) -> None:
    encoded = valid_json(data)
    try:
        ok = len(encoded) <= diff_limit() and bool(msgspec.json.decode(encoded, type=_CachedDiff))
    except msgspec.MsgspecError:
        ok = False
    if ok:
        replace(path, encoded)
    else:
        _remove_file(path)
