"""`crparse diff`: a thin layer over crparse.align and crparse.diff."""

from __future__ import annotations

import sys
from pathlib import Path

import crparse
from crparse.cli import exits
from crparse.errors import CrparseError, quoted
from crparse.inputs import FORMATS


def add_commands(commands) -> None:
    d = commands.add_parser(
        "diff",
        help="what changed between two releases, rule by rule and word by word",
        description="Aligns the two releases (renumberings, splits and merges followed) and prints "
        "a summary: counts per kind, renumberings as ranges, then each change with its word diff. "
        "Typography that changed between eras (quotes, dashes, (TM), _italics_, {T}) is ignored "
        "unless --typography. Exit status 0 when the releases have the same rules, 1 when they differ.",
    )
    d.add_argument("old", metavar="OLD", help="the older release: a file, or a date (the release in force then, from the store)")
    d.add_argument("new", metavar="NEW", help="the newer release: a file, or a date")
    d.add_argument("--db", metavar="PATH", help="the store, for releases given as dates (default: the user's cache directory)")
    out = d.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the diff as JSON (crparse schema diff)")
    out.add_argument("--html", action="store_true", help="print the diff as a standalone HTML page")
    d.add_argument("--typography", action="store_true", help="show changes of typography too")
    d.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the word diff (default: when stdout is a terminal)")
    d.add_argument("--format", choices=FORMATS, help="the input format of both (default: detected)")
    d.set_defaults(run=run_diff)


def _release(given: str, db: str | None) -> Path:
    """A file as given; a date that names no file: the stored release in force at that date (a
    month or a year: at its end), if its file still holds the text stored."""
    import re

    from crparse.dates import FORMS, period
    from crparse.errors import CommandError

    path = Path(given)
    if path.exists():
        return path
    if period(given) is None:
        if re.fullmatch(r"[0-9]{4}(?:-[0-9]{1,2}){0,2}", given):  # a date's shape, but no day there is
            raise CommandError(f"diff: {quoted(given)} names no file, and is not a date ({FORMS})")
        return path
    from crparse.store import connect
    from crparse.store.query import release_file

    return Path(release_file(connect(db, readonly=True), given))


def run_diff(args) -> int:
    from crparse.collector import collector_paused

    # Two trees, their units and pairs, nearly all kept until the output is written: the cyclic
    # collector would scan them some eighty times over (20 ms, a twentieth of the command) and
    # free nothing but the units' sibling links, which the exit frees anyway.
    with collector_paused():
        return _diff(args)


def _diff(args) -> int:
    from crparse.parallel import parse_all

    # The newer release is parsed in a child (crparse.parallel) while this process parses the
    # older, then imports the alignment and finds the older's units: work that would otherwise
    # wait for the child's tree, which also has to be packed and sent.
    old_path, new_path = _release(args.old, args.db), _release(args.new, args.db)
    if old_path == new_path and str(old_path) != args.old:  # two dates, one release: "unchanged" said nothing of it (sweep 17)
        from crparse.cli.main import report

        report(f"crparse: diff: warning: {args.old} and {args.new} are both under one release of the store ({old_path}): "
               "it is compared with itself")
    found = parse_all([old_path, new_path], format=args.format)
    old = next(found)
    if isinstance(old, CrparseError):
        raise old
    from crparse.align import align
    from crparse.align.match import WORK_FACTOR
    from crparse.align.units import texts, units, unlink
    from crparse.diff.render import summary, to_html, to_json
    from crparse.diff.report import diff

    old_units = units(old)
    new = next(found)
    if isinstance(new, CrparseError):
        raise new
    result = diff(align(old, new, old_units=old_units), typography=args.typography)
    unlink(old_units)
    if not result.complete:
        from crparse.cli.main import report

        report(f"crparse: diff: warning: the alignment was cut short (its work limit, {WORK_FACTOR} times the "
               "size of the releases, was reached): the nodes not yet paired are shown as added and removed")
    if args.json:
        sys.stdout.write(to_json(result, indent=2) + "\n")
    else:
        shown = {f"old:{k}": v for k, v in texts(old).items()} | {f"new:{k}": v for k, v in texts(new).items()}
        if args.html:
            sys.stdout.write(to_html(result, shown))
        else:
            colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
            for line in summary(result, colour=colour, texts=shown):
                print(line)
    same = all(p.kind in ("unchanged", "moved") and not p.words for p in result.pairs)
    return exits.OK if same else exits.FOUND
