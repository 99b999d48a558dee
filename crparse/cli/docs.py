"""`crparse docs PATH... -o OUT`: a thin layer over crparse.site."""

from __future__ import annotations

import os
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
    d.add_argument("--db", metavar="PATH", nargs="?", const=True, help="take the releases of the store (" + DB_HELP + ")")
    d.add_argument("--jobs", type=_processes, metavar="N", help="releases built at once (default: the cores)")
    d.add_argument("--force", action="store_true", help="build every page again")
    d.set_defaults(run=run_docs)


def _processes(text: str) -> int:
    """--jobs: a number of processes, 1 or more, as CRPARSE_JOBS (-3 and 0 were taken for 1,
    silently: sweep 38)."""
    import argparse

    from crparse.limits import jobs_given

    given = jobs_given(text)
    if given is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 or more)")
    return given


def run_docs(args) -> int:
    from crparse.cli.main import report
    from crparse.errors import CommandError
    from crparse.parallel import jobs
    from crparse.site import build_site

    paths = [Path(p) for p in args.paths]
    unread: list[str] = []
    left_out: list[str] = []  # said, by design: no refusal
    if args.db is not None:
        stored, unread, undated = _stored(None if args.db is True else args.db)  # `--db` alone: the default store
        paths += stored
        if undated:
            why = f"the store's {undated} release(s) have no effective date: a site of a store is built of its dated releases"
            if not paths and not unread:  # "no release given" said nothing of them (sweep 14)
                raise CommandError(f"docs: {why}; give undated ones as PATH")
            left_out.append(f"{why} (give them as PATH)")  # beside dated ones, left out without a word (sweep 16)
    if not paths and unread:
        # --db was given: "no release given" sent the user looking for a mistake in the command
        raise CommandError(f"docs: none of the {len(unread)} release(s) of the store can be read again (moved or "
                           "deleted? give them as PATH, or index them where they are now)"
                           + "".join(f"; {line}" for line in unread))
    if not paths and args.db is not None:  # "no release given" with --db given (sweep 17)
        raise CommandError("docs: the store holds no release: add some with `crparse index DIR`, or give PATH")
    if not paths:
        raise CommandError("docs: no release given (PATH..., or --db for the releases of a store)")
    out = Path(args.output)
    # more processes than releases, or than a few a core, do no more work, only take memory
    workers = max(1, min(args.jobs or jobs(), 4 * (os.cpu_count() or 1), max(len(paths), 1)))

    def waiting(seconds: float) -> None:
        report(f"crparse: docs: {out}: another crparse docs is building this site: waiting for it to end "
               f"(at most {seconds:g} s)")

    try:
        result = build_site(paths, out, jobs=workers, progress=_Progress(), force=args.force, waiting=waiting)
    except OSError as err:
        if err.filename is not None:
            raise
        # a write of Sphinx's that failed (a full disk) names no file: the site's directory is
        # what to look at ("crparse: docs: No space left on device": sweep 17)
        raise OSError(err.errno, err.strerror or str(err), str(out)) from None
    for line in left_out + unread + result.skipped:
        report(f"crparse: docs: skipped {line}")
    for line in result.warnings:
        report(f"crparse: docs: warning: {line}")
    built = [b for b in result.built if not b.skipped]
    from crparse.writers.summary import printable

    # escaped: OUT is the user's, control characters and all
    print(printable(f"{out}: {len(result.releases)} release{'s' * (len(result.releases) != 1)} "
                    f"({len(built)} built, {len(result.built) - len(built)} unchanged); open {out / 'index.html'}"))
    return exits.REFUSED if unread or result.refused else exits.OK


def _stored(db: str | None) -> tuple[list[Path], list[str], int]:
    """The files of the store's releases, each checked as every command that reads a stored
    release checks it (crparse.store.index.stored_bytes: a regular file of the bytes stored), and
    why the others are left out, and how many releases it holds undated. A row is the store's word: without the check a row naming another
    file (or a directory) built a site of it."""
    from crparse.errors import CrparseError
    from crparse.store import connect
    from crparse.store.db import dated_releases, undated_count
    from crparse.store.index import stored_bytes

    found, unread = [], []
    with connect(db, readonly=True) as store:
        undated = undated_count(store)
        for rid, _, path in dated_releases(store):
            try:
                stored_bytes(store, rid)
            except CrparseError as why:
                unread.append(str(why.located(path)))
            else:
                found.append(Path(path))
    return found, unread, undated


__all__ = ["add_commands"]
