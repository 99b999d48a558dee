"""`crparse docs PATH... -o OUT`: a thin layer over crparse.site."""

from __future__ import annotations

import sys
from pathlib import Path

from crparse.cli import exits
from crparse.cli.corpus import DB_HELP, _Progress


def add_commands(commands) -> None:
    d = commands.add_parser(
        "docs",
        help="build a static HTML site of releases with Sphinx (cross-linked; history and changes for several)",
        description="One release: its site in OUT, a page per part and per section, every reference a link. "
        "Several releases (files, a corpus directory, or the releases of a store with --db): a site per "
        "release under OUT/<date>/, a version switcher, each rule's history and a change page per "
        "consecutive pair. Incremental: a release already built is not built again.",
    )
    d.add_argument("paths", nargs="*", metavar="PATH", help="releases: files or directories (read recursively)")
    d.add_argument("-o", "--output", required=True, metavar="OUT", help="the site's directory")
    d.add_argument("--db", metavar="PATH", nargs="?", const="", help="take the releases of the store (" + DB_HELP + ")")
    d.add_argument("--jobs", type=int, metavar="N", help="releases built at once (default: the cores)")
    d.add_argument("--force", action="store_true", help="build every page again")
    d.set_defaults(run=run_docs)


def run_docs(args) -> int:
    from crparse.cli.main import report
    from crparse.errors import CrparseError
    from crparse.parallel import jobs
    from crparse.site import build_site

    paths = [Path(p) for p in args.paths]
    if args.db is not None:
        paths += _stored(args.db or None)
    if not paths:
        raise CrparseError("docs: no release given (PATH..., or --db for the releases of a store)")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise CrparseError("docs: the output is not a directory", path=str(out))
    result = build_site(paths, out, jobs=max(1, args.jobs or jobs()), progress=_Progress(), force=args.force)
    for line in result.skipped:
        report(f"crparse: docs: skipped {line}")
    built = [b for b in result.built if not b.skipped]
    print(f"{out}: {len(result.releases)} release{'s' * (len(result.releases) != 1)} "
          f"({len(built)} built, {len(result.built) - len(built)} unchanged); open {out / 'index.html'}")
    return exits.OK


def _stored(db: str | None) -> list[Path]:
    from crparse.store import connect
    from crparse.store.db import dated_releases

    with connect(db, readonly=True) as store:
        return [Path(path) for _, _, path in dated_releases(store)]


__all__ = ["add_commands"]
