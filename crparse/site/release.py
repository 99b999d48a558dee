"""One release as a Sphinx project: generated sources, then an HTML build.

The sources hold nothing but directives and toctrees (the rule text is read by the directive
from the release itself, never written into reST), so no input can inject markup. A build is
skipped when its stamp (crparse's version, the release's sha256, the site options) is unchanged.

Otherwise Sphinx builds it from nothing, never from a saved environment. Its environment and
doctrees are pickles: one planted in the output directory (a site restored from a cache, a
directory shared with others) would run code when read back, and one left by a killed build
describes pages whose HTML and search index were never written, which Sphinx then skips for
good. So the doctrees directory is emptied before and after each build, and a build removes
its stamp first and writes it last: a build killed at any point is done again by the next run.
Little is lost: a release's pages all change together (a new crparse, a new site option, a
changed release), so an incremental build rebuilt them all anyway.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import crparse
from crparse.errors import CommandError
from crparse.inputs import resolved
from crparse.outputs import make_directories, remove_tree, replace
from crparse.site.state import holds, read_stamp
from crparse.sphinx.directive import FRONT_PAGE, pages
from crparse.sphinx.prepare import Prepared, prepare

STAMP = ".crparse-site.json"


class SiteError(CommandError):
    """The site could not be built (a Sphinx warning or error, named)."""


class Built(NamedTuple):
    key: str
    out: Path
    pages: int
    skipped: bool  # nothing changed since the last build
    warnings: list[str]


def _docname(page: str) -> str:
    return "index" if page == FRONT_PAGE else page


def _safe_argument(path: str) -> bool:
    return path.isprintable() and path == path.strip() and "`" not in path


def _carried(release: Path, src: Path, scratch: Callable[[], Path]) -> str:
    """A name for `release` that a directive line can carry, for one whose path it cannot (a
    tab, a backtick, a byte that is not UTF-8), relative to `src`: a copy of the file, outside
    the sources. A reST edition is more than its file: a copy of its index alone left its
    chapters behind, and the site failed as if the edition were broken (sweep 27). Its
    directory is named by a link in `scratch` instead (outside OUT, which holds no link: see
    crparse.site.state), for the build's time, and read where it really is."""
    from crparse.fingerprint import reads_its_directory
    from crparse.inputs import Unread, read_regular
    from crparse.limits import max_input

    if release.is_dir():
        raise SiteError(f"{release!s}: a directory name with control characters cannot be built into a site")
    try:
        edition = reads_its_directory(release, read_regular(release, max_input()))
    except Unread as why:
        raise SiteError(why.reason, path=str(release)) from None
    if not edition:
        copy = src.parent / "copy" / ("release" + "".join(c for c in release.suffix if c.isalnum() or c == "."))
        copy.parent.mkdir(exist_ok=True)
        shutil.copyfile(release, copy)
        return os.path.relpath(resolved(copy), resolved(src))
    if not _safe_argument(release.name):
        raise SiteError(f"{release!s}: a reST file with a toctree whose own name a directive cannot carry (a tab, a "
                        "backtick, a byte that is not UTF-8) cannot be built into a site: rename it")
    scratch = scratch()
    (scratch / "edition").symlink_to(resolved(release.parent), target_is_directory=True)
    argument = os.path.relpath(os.path.join(resolved(scratch), "edition", release.name), resolved(src))
    if not _safe_argument(argument):
        raise SiteError(f"{release!s}: its directory's name cannot be carried by a directive, nor can the temporary "
                        f"directory's ({scratch}): set TMPDIR to a plain name")
    return argument


def write_sources(release: Path, src: Path, p: Prepared, scratch: Callable[[], Path]) -> list[str]:
    """The reST sources of a release's site in `src`; a file is rewritten only when its content
    changes, so Sphinx rereads only what changed. `scratch()`: an empty directory that lasts as
    long as the build, made when asked for (a build killed by SIGTERM leaves it in TMPDIR: only
    those of releases that need one, sweep 29). Returns the docnames."""
    make_directories(src)
    # Both resolved: a symbolic link on the way (OUT linked elsewhere) would otherwise be counted in
    # the ../ of the path but not where Sphinx resolves it.
    argument = os.path.relpath(resolved(release), resolved(src))
    stale = src / "_release"  # where the copy below was kept: Sphinx read a .rst one as a page of the site,
    if stale.is_dir() and not stale.is_symlink():  # its includes and links too (sweep 12)
        remove_tree(stale)
    if not _safe_argument(argument):  # a name a directive line cannot carry: read it by another, outside the sources
        argument = _carried(release, src, scratch)
    names = pages(p)
    docs: dict[str, str] = {}
    tops = [n for n in names[1:] if n.startswith("part-") or not _in_part(p, n)]
    for page in names:
        text = f".. cr:release:: {argument}\n   :page: {page}\n"
        if page == FRONT_PAGE:
            text += "\n.. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {_docname(n)}\n" for n in tops)
        elif page.startswith("part-"):
            members = [r.number for r in p.document.rules if r.kind == "section" and p.page_of.get(r.parent or "") == page]
            if members:
                text += "\n.. toctree::\n   :hidden:\n\n" + "".join(f"   {m}\n" for m in dict.fromkeys(members))
        docs[_docname(page)] = text
    for name, text in docs.items():
        target = src / f"{name}.rst"
        if not holds(target, text.encode("utf-8")):
            replace(target, text)
    for old in src.glob("*.rst"):
        if old.stem not in docs:
            old.unlink()
    return list(docs)


def _in_part(p: Prepared, page: str) -> bool:
    head = next((r for r in p.sections.get(page, []) if r.kind == "section"), None)
    return head is not None and head.parent is not None and p.page_of.get(head.parent, "").startswith("part-")


def config(title: str, extra_js: tuple[str, ...] = ()) -> dict:
    return {
        # crparse.site.scripts: the scripts the site writes beside the pages are linked as they are
        "extensions": ["crparse.sphinx"] + (["crparse.site.scripts"] if extra_js else []),
        "project": title,
        "html_title": title,
        "root_doc": "index",
        "html_theme": "alabaster",
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "html_show_sphinx": False,
        "html_show_copyright": False,
        "html_js_files": list(extra_js),
        "language": "en",
        # Rule text is shown as printed: no curly quotes or dashes made from it.
        "smartquotes": False,
        # The global navigation would be rendered again on every page from the whole toctree (half
        # the build time of a release); the front page's contents and prev/next links do its work.
        "html_sidebars": {"**": ["searchfield.html", "relations.html"]},
    }


def build_release(release: Path, out: Path, work: Path, *, key: str, extra_js: tuple[str, ...] = (),
                  static: tuple[str, ...] = (), force: bool = False, sha: str | None = None) -> Built:
    """Build the HTML site of one release into `out` (Sphinx's sources and environment in `work`);
    `sha`: its fingerprint, when the caller has it already."""
    sha = sha or fingerprint(release)
    stamp = {"crparse": crparse.__version__, "tools": tools(), "release": sha, "js": list(extra_js)}
    stamp_file = out / STAMP
    if not force and read_stamp(stamp_file) == stamp and built(out):
        return Built(key, out, len(list(out.glob("*.html"))), True, [])
    stamp_file.unlink(missing_ok=True)
    p = prepare(str(release))
    title = f"Comprehensive Rules {p.document.effective_date or key}"
    settings = config(title, extra_js)
    settings["html_static_path"] = list(static)
    with contextlib.ExitStack() as cleanup:
        def scratch() -> Path:  # made only for a release that needs it (_carried), gone after the build
            return Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="crparse-docs-")))

        docnames = write_sources(release, work / "src", p, scratch)
        sphinx_build(work / "src", out, work / "doctrees", settings, what=str(release))
    replace(stamp_file, json.dumps(stamp))
    return Built(key, out, len(docnames), False, [])


@functools.cache
def tools() -> dict[str, str]:
    """The versions of what writes the pages besides crparse: a new Sphinx or theme changes them."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("sphinx", "docutils", "alabaster"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "none"
    return found


def built(out: Path) -> bool:
    """Whether `out` holds what every build writes (a stamp beside damaged pages is not trusted)."""
    return all(os.path.isfile(out / name) and not os.path.islink(out / name) for name in ("index.html", "searchindex.js"))


def sphinx_build(src: Path, out: Path, doctrees: Path, settings: dict, *, what: str) -> None:
    """Run Sphinx's HTML builder from nothing (`doctrees` emptied before and after: nothing of
    an earlier build is read back, see above); any warning is a SiteError: the sources are
    generated, so a warning is a bug or a damaged input, never noise to ignore.

    In this process alone: Sphinx's own parallel build forks workers crparse cannot tell to end
    with it or to leave Ctrl-C to it; killed, `docs` left them holding the site's lock for ever,
    one Ctrl-C left it waiting on them at exit, and they printed tracebacks (sweep 22). Several
    releases are built at once by crparse's own pool (crparse.parallel.worker_pool)."""
    from sphinx.application import Sphinx
    from sphinx.errors import SphinxError
    from sphinx.util.console import nocolor
    from sphinx.util.docutils import docutils_namespace

    nocolor()
    warnings = io.StringIO()
    remove_tree(doctrees)
    for name in READ_BACK:
        _remove_file(out / name)
    try:
        # docutils keeps the node classes and directives an application registers in globals:
        # each build in its own namespace, as sphinx-build does, so that several run in one process.
        with docutils_namespace():
            app = Sphinx(str(src), None, str(out), str(doctrees), "html", confoverrides=settings, status=None,
                         warning=warnings, freshenv=True, parallel=1)
            app.build()
    except SphinxError as e:
        raise SiteError(f"{what}: Sphinx failed: {e}") from None
    finally:
        remove_tree(doctrees)
    messages = [line for line in warnings.getvalue().splitlines() if line.strip()]
    if app.statuscode or messages:
        raise SiteError(f"{what}: the site did not build cleanly: " + "; ".join(messages[:5]))


# What Sphinx's HTML builder reads of the output directory before it writes: its build info
# (a damaged one is a warning, so a failed build, and a mismatched one is moved aside) and the
# search index of the last build, read whole and merged into the new one. A build from nothing
# has no use for either.
READ_BACK = (".buildinfo", ".buildinfo.bak", "searchindex.js")


def _remove_file(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except IsADirectoryError:  # not a file Sphinx wrote: its write there fails, saying so
        pass


def fingerprint(release: Path, directories: dict | None = None) -> str:
    """What a release's site depends on (crparse.fingerprint), refused as a site error where
    the release cannot be read."""
    from crparse.fingerprint import fingerprint as of
    from crparse.inputs import Unread

    try:
        return of(release, directories)
    except Unread as why:
        raise SiteError(why.reason, path=str(release)) from None

