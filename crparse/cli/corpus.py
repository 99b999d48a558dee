"""`crparse index`, `history`, `search`, `identify` and `lineage`: thin layers over
crparse.store and crparse.lineage. Every command that needs a corpus reads the store (--db PATH,
default crparse.store.default_path()) and says how to build it when there is none."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from crparse.cli import exits

DB_HELP = "the store (default: the user's cache directory, ~/.cache/crparse/store.sqlite)"


def add_commands(commands) -> None:
    i = commands.add_parser(
        "index",
        help="build or update the store of a directory of releases (for history, search, identify)",
        description="Parses each release the store lacks (by its fingerprint: its sha256, an edition's with its "
        "chapters), aligns consecutive releases and chains every rule's lineage. Incremental and safe to interrupt: a killed run leaves a usable "
        "store and the next run finishes the job.",
    )
    i.add_argument("paths", nargs="+", metavar="DIR", help="directories (or files) of releases")
    i.add_argument("--db", metavar="PATH", help=DB_HELP)
    i.add_argument("--rebuild", action="store_true", help="start the store afresh")
    i.set_defaults(run=run_index)

    h = commands.add_parser("history", help="a rule's history through every release, across renumberings")
    h.add_argument("rule", metavar="RULE", help='a rule number ("801.12") or a glossary term')
    h.add_argument("--at", metavar="DATE", help="the number as of this date (default: the newest release)")
    h.add_argument("--all", action="store_true", help="every release, not only those where something happened")
    h.add_argument("--json", action="store_true", help="print JSON")
    h.add_argument("--db", metavar="PATH", help=DB_HELP)
    h.set_defaults(run=run_history)

    s = commands.add_parser("search", help="which rules held a phrase, in which releases")
    s.add_argument("phrase", metavar="PHRASE", help='words in order, e.g. "converted mana cost"')
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--db", metavar="PATH", help=DB_HELP)
    s.set_defaults(run=run_search)

    d = commands.add_parser("identify", help="which release an undated copy or fragment is")
    d.add_argument("path", metavar="PATH")
    d.add_argument("--json", action="store_true", help="print JSON")
    d.add_argument("--db", metavar="PATH", help=DB_HELP)
    d.set_defaults(run=run_identify)

    n = commands.add_parser("lineage", help="the lineage of every rule of a directory of releases, as JSON")
    n.add_argument("paths", nargs="+", metavar="DIR")
    n.add_argument("--json", action="store_true", help="print JSON (the only output)")
    n.set_defaults(run=run_lineage)


class _Progress:
    """One line on stderr, rewritten, when stderr is a terminal: multi-release work takes a minute."""

    def __init__(self) -> None:
        self.shown = sys.stderr.isatty()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.shown and total:
            width = 30
            bar = "#" * (width * done // total)
            print(f"\r{stage:6} [{bar:<{width}}] {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def run_index(args) -> int:
    from crparse.errors import CrparseError
    import sqlite3

    from crparse.store import connect
    from crparse.store.db import not_ours, store_error, store_path
    from crparse.store.index import index
    from crparse.store.lock import writing
    from crparse.writers.summary import printable

    from crparse.cli.main import report as say

    path = store_path(args.db or None)
    if path.exists() and not path.is_file():
        raise CrparseError("not a crparse store: not a file", path=str(path))

    def waiting(seconds: float) -> None:
        say(f"crparse: {path}: another crparse index is updating this store: waiting for it to end "
            f"(at most {seconds:g} s)")

    # held from before the store is made or rebuilt: a second run would otherwise find the
    # schema half made, or a release it lacked stored meanwhile
    with writing(path, waiting=waiting):
        if args.rebuild and path.exists():
            why = not_ours(path)
            if why is not None:
                raise CrparseError(f"not a crparse store ({why}): --rebuild deletes only a store; remove it yourself "
                                   "to build one there", path=str(path))
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        db = connect(path, create=True)
        try:
            report = index(db, args.paths, progress=_Progress())
        except sqlite3.Error as err:  # the store busy, full, or damaged where a write met it: named as such
            raise store_error(err, str(path)) from None
        finally:
            db.close()

    for message in report.passed_over + report.refused:
        say(f"crparse: {message}")
    for gone in report.gone:
        # "no longer there" was said of an edition whose chapter had changed (sweep 37)
        say(f"crparse: {printable(gone)}: the stored release's file no longer holds its text (removed, replaced or "
            "changed), nor is it met elsewhere: dropped from the store (index its directory to store it as it is now)")
    for undated in report.undated:
        say(f"crparse: {undated}: no effective date found: stored, left out of lineage")
    for same in report.same_date:
        say(f"crparse: {path}: {same}")
    for repeated in report.repeated:  # said, not silently dropped (sweep 14)
        say(f"crparse: {repeated}: numbered more than once in the release: the store keeps the first of each "
            "(history and search show it; parse shows all)")
    moved = f" ({report.moved} found at a new path, recorded)" if report.moved else ""
    changed = (f"{len(report.added)} release(s) added, {report.known} already stored{moved}, "
               f"{report.aligned} pair(s) aligned")
    lineage = f"{report.lineages} lineages" if report.lineages is not None else "lineage unchanged"
    print(printable(f"{path}: {changed}, {lineage}"))
    # as every command that reads inputs: one refused or not read is 2, the others still stored
    return exits.REFUSED if report.refused else exits.OK


def run_history(args) -> int:
    from crparse.store import connect
    from crparse.store.query import history

    h = history(connect(args.db, readonly=True), args.rule, args.at)
    versions = h.versions if args.all else h.changes
    if args.json:
        data = {
            "lineage": h.lineage, "asked": h.asked, "at": h.at, "end": h.end, "ended": h.ended,
            "born_of": h.born_of, "merged_into": h.merged_into, "now_names": h.now,
            "versions": [{"date": v.date, "number": v.key, "kind": v.kind, "flags": list(v.flags), "text": v.text}
                         for v in versions],
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return exits.OK
    say = _say()  # a rule's text, a glossary term, a lineage named by one: the input's
    say(f"{h.asked} as of {h.at}: lineage {h.lineage}" + (f" (split off {h.born_of})" if h.born_of else ""))
    for v in versions:
        flags = f"  [{', '.join(v.flags)}]" if v.flags else ""
        first = " ".join(v.text.split())
        say(f"  {v.date}  {v.key:<10} {v.kind}{flags}")
        if v.kind in ("born", "changed", "moved+changed", "split", "merged"):
            say(f"      {first[:110]}{'...' if len(first) > 110 else ''}")
    last = h.versions[-1]
    if h.end:
        into = f" into {h.merged_into}" if h.merged_into else ""
        say(f"  {h.ended or 'after ' + last.date}  {'-':<10} {h.end}{into}")
    else:
        say(f"  (unchanged since, to {last.date})" if versions and versions[-1].date != last.date else "")
    if h.now:
        say(f"note: in the newest release, {h.asked} is another rule (lineage {h.now})")
    return exits.OK


def _say():
    """print, for a line of text output holding what came from the input (crparse.writers.summary.printable)."""
    from crparse.writers.summary import printable

    return lambda line: print(printable(line))


def run_search(args) -> int:
    from crparse.store import connect
    from crparse.store.query import search

    found = search(connect(args.db, readonly=True), args.phrase)
    if args.json:
        print(json.dumps([{"lineage": o.lineage, "numbers": o.keys, "first": o.first, "last": o.last, "releases": o.releases}
                          for o in found], indent=2, ensure_ascii=False))
        return exits.OK if found else exits.FOUND
    say = _say()
    for o in found:
        say(f"{' -> '.join(o.keys):<30} {o.first} .. {o.last}  ({o.releases} releases)")
    from crparse.cli.main import report

    from crparse.errors import quoted

    # cut short as refusals echo arguments: a phrase of 100,000 characters was a line as long (sweep 40)
    report(f"{len(found)} rule(s) held {quoted(' '.join(args.phrase.split()))}")
    return exits.OK if found else exits.FOUND


def run_identify(args) -> int:
    import crparse
    from crparse.align.units import units
    from crparse.store import connect
    from crparse.store.index import digests
    from crparse.store.query import identify

    db = connect(args.db, readonly=True)
    doc = crparse.parse(Path(args.path))
    us = units(doc)
    found = identify(db, dict(zip((u.key for u in us), digests(us))))
    from crparse.store.db import dated_releases, undated_count

    undated = undated_count(db)  # releases are told by date: those without one are not compared
    if args.json:
        print(json.dumps({"units": found.units, "best": found.best, "matched": found.matched, "undated": undated,
                          "runner_up": list(found.runner_up) if found.runner_up else None,
                          "evidence": [{"number": k, "releases": d} for k, d in found.evidence]}, indent=2))
        return exits.OK if found.best else exits.FOUND
    say = _say()
    if not found.best:
        from crparse.store.db import undated_said

        said = "" if dated_releases(db) else undated_said(db)
        say(f"{args.path}: no release of the store holds any of its {found.units} units{said}")
        undated = 0 if said else undated
    if undated:  # beside dated ones, not compared without a word (sweep 16)
        from crparse.cli.main import report

        report(f"crparse: identify: the store's {undated} release(s) with no effective date are not compared")
    if not found.best:
        return exits.FOUND
    span = found.best[0] if len(found.best) == 1 else f"{found.best[0]} .. {found.best[-1]} ({len(found.best)} releases)"
    say(f"{args.path}: {span}: {found.matched} of its {found.units} units match exactly")
    if found.runner_up:
        say(f"  next best: {found.runner_up[0]} ({found.runner_up[1]} units)")
    for key, dates in found.evidence:
        held = dates[0] if len(dates) == 1 else f"{dates[0]} .. {dates[-1]} ({len(dates)} releases)"
        say(f"  {key}: its text is in {held}")
    return exits.OK


def run_lineage(args) -> int:
    from crparse.errors import CommandError, CrparseError
    from crparse.inputs import inputs
    from crparse.limits import max_releases
    from crparse.lineage import chain
    from crparse.parallel import parse_all

    from crparse.cli.main import report

    docs, readable, status = [], [], exits.OK
    for item in inputs(args.paths):
        if item.skipped is None:
            readable.append(item.path)
        else:
            report(f"crparse: {item.path}: skipped: {item.skipped}")
            if item.refused:
                status = exits.REFUSED
    # each release's tree is kept until the chain is made (~5x its size): as many as a store may
    # hold, and no more (270 copies of a release: 1.2 GB; a store refused them: sweep 32)
    if len(readable) > max_releases():
        raise CommandError(f"lineage: {len(readable):,} documents, more than {max_releases():,} releases, the limit "
                           "(CRPARSE_MAX_RELEASES; a corpus has about 120)")
    # One file refused is said and left out (and makes the status 2); the others still make the lineage.
    for doc in parse_all(readable):
        if isinstance(doc, CrparseError):
            report(f"crparse: {doc}")
            status = exits.REFUSED
        elif doc.effective_date:
            docs.append(doc)
        else:
            report(f"crparse: {doc.source.path}: no effective date found: left out of lineage")
    if not docs:
        raise CommandError("lineage: no dated release to chain")
    docs.sort(key=lambda d: d.effective_date)
    result = chain(docs, progress=lambda done, total: _Progress()("align", done, total))
    data = {
        "releases": [{"date": r.date, "path": r.path} for r in result.releases],
        "lineages": [
            {"id": l.id, "end": l.end, "born_of": l.born_of, "merged_into": l.merged_into,
             "steps": [{"date": result.releases[s.release].date, "number": s.key, "kind": s.kind, "flags": list(s.flags)}
                       for s in l.steps if s.kind != "unchanged"]}
            for l in result.lineages.values()
        ],
        "stale_numbers": {k: [{"from": result.releases[i].date, "lineage": lid} for i, lid in runs]
                          for k, runs in result.stale_numbers().items()},
    }
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    return status
