"""`crparse refs` and `crparse cite-check`: thin layers over crparse.refs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import crparse
from crparse.cli import exits
from crparse.errors import CommandError, CrparseError, quoted
from crparse.inputs import inputs
from crparse.limits import max_references
from crparse.inputs import FORMATS

if TYPE_CHECKING:
    from crparse.nodes import Reference


def printable(text: str) -> str:
    # the writers (and msgspec) are imported when output is written, not for every command's start
    from crparse.writers.summary import printable as _printable

    return _printable(text)


def path_text(path) -> str:
    from crparse.writers.json import path_text as _path_text

    return _path_text(path)


def add_commands(commands) -> None:
    r = commands.add_parser(
        "refs",
        help="cross-references of a document: of one rule, the broken ones, or the graph",
        description="Without RULE: a summary. With RULE: what it cites and what cites it. "
        "Exit status 1 with --broken when there are broken references.",
    )
    r.add_argument("path", metavar="PATH")
    r.add_argument("rule", metavar="RULE", nargs="?", help="a rule number or a glossary term")
    r.add_argument("--incoming", action="store_true", help="only what cites RULE")
    r.add_argument("--broken", action="store_true", help="list dangling and title-mismatched references")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.add_argument("--graph", choices=("json", "graphml"), help="print the reference graph")
    r.add_argument("--format", choices=FORMATS, help="the input format (default: detected from the content)")
    r.set_defaults(run=run_refs)

    c = commands.add_parser(
        "cite-check",
        help="find CR citations in other files and report those the given release lacks",
        description="Finds 'CR 704.5k', 'rule 704.5k', '// 613.1f' in text or code and checks each "
        "against the release given with --cr. Exit status 1 when any citation is stale.",
    )
    c.add_argument("files", nargs="+", metavar="FILE", help="files, or directories (read recursively)")
    c.add_argument("--cr", required=True, metavar="PATH", help="the Comprehensive Rules release to check against")
    c.add_argument("--json", action="store_true", help="print JSON Lines, one citation per line")
    c.add_argument("--all", action="store_true", help="list every citation, not only stale ones")
    c.add_argument("--since", metavar="DATE", help="the citations were written against the release in force at "
                   "DATE: suggest each cited rule's current number (needs the store: crparse index)")
    c.add_argument("--db", metavar="PATH", help="the store for --since (default: the user's cache directory)")
    c.set_defaults(run=run_cite_check)


def _load(path: str, fmt: str | None = None):
    try:
        return crparse.parse(Path(path), format=fmt)
    except CrparseError as err:
        _report(f"crparse: {err.located(path)}")
        return None


def _report(message: str) -> None:
    from crparse.cli.main import report

    report(message)


def _where(doc, ref: Reference) -> str:
    path, line = doc.source.locate(ref.line)
    return f"{printable(path) if path else '<input>'}:{line}"


def _describe(doc, graph, ref: Reference) -> str:
    problems = []
    for c in ref.cited:
        if c.status == "dangling":
            what = c.first if c.first == c.last else f"{c.first}-{c.last}"
            problems.append(f"dangling: {what} does not exist")
        elif c.status == "external":
            problems.append(f"external: {c.first} lies outside this fragment")
        if c.title_matches is False:
            actual = graph.graph.nodes[c.first]["title"] if c.first in graph.graph else ""
            problems.append(f"title-mismatch: {c.title!r} but {c.first} is {actual!r}")
    tail = "; ".join(problems) or ref.status
    return f"{_where(doc, ref)}: {ref.source}: {ref.text!r}: {tail}"


def run_refs(args) -> int:
    # options that another one makes meaningless were passed over without a word: `--json
    # --graph graphml` printed GraphML, `--broken 702 --incoming` every broken reference (sweep 37)
    given = [name for name, on in (("RULE", args.rule is not None), ("--broken", args.broken),
                                   ("--incoming", args.incoming), ("--json", args.json)) if on]
    if args.graph and given:
        raise CommandError(f"refs: --graph prints the whole graph, in the format it names: it takes no {given[0]} "
                           "(see --help)")
    if args.broken and args.rule is not None or args.broken and args.incoming:
        raise CommandError("refs: --broken lists every broken reference: it takes no RULE nor --incoming (see --help)")
    if args.incoming and args.rule is None:
        raise CommandError("refs: --incoming shows what cites a RULE: give one (see --help)")
    doc = _load(args.path, args.format)
    if doc is None:
        return exits.REFUSED
    graph = crparse.ReferenceGraph(doc)
    if args.graph:
        print(json.dumps(graph.to_json(), ensure_ascii=False) if args.graph == "json" else graph.graphml())
        return exits.OK
    if args.broken:
        broken = graph.broken()
        if args.json:
            from crparse.writers.json import reference_to_dict

            print(json.dumps([reference_to_dict(r) for r in broken], ensure_ascii=False, indent=2))
        else:
            for ref in broken:
                print(printable(_describe(doc, graph, ref)))
            _report(f"{len(broken)} broken of {len(graph.references)} references")
        return exits.FOUND if broken else exits.OK
    if args.rule:
        return _one(doc, graph, args)
    return _summary(doc, graph, args)


def _one(doc, graph, args) -> int:
    try:
        node = graph.node(args.rule)
    except KeyError:
        _report(f"crparse: {args.path}: no rule or glossary entry {quoted(args.rule)}")
        return exits.REFUSED
    outgoing = [] if args.incoming else graph.outgoing(node)
    incoming = graph.incoming(node)
    if args.json:
        from crparse.writers.json import reference_to_dict

        out = {"node": node, "incoming": [reference_to_dict(r) for r in incoming]}
        if not args.incoming:
            out["outgoing"] = [reference_to_dict(r) for r in outgoing]
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return exits.OK
    data = graph.graph.nodes[node]
    # a title, a reference as written, a glossary term: the input's
    print(printable(f"{node} {data['title']}".rstrip() + f"  ({data['kind']}, line {data['line']})"))

    if not args.incoming:
        print(f"cites ({len(outgoing)}):")
        for ref in outgoing:
            print(printable(f"  {ref.text}  -> {', '.join(ref.targets)}  "
                            f"[{ref.status}{', ' + ', '.join(ref.flags) if ref.flags else ''}]"))
    print(f"cited by ({len(incoming)}):")
    for ref in incoming:
        print(printable(f"  {ref.source}: {ref.text}  ({_where(doc, ref)})"))
    return exits.OK


def _summary(doc, graph, args) -> int:
    refs = graph.references
    statuses = {s: sum(1 for r in refs if r.status == s) for s in ("resolved", "dangling", "external")}
    mismatched = len(graph.mismatched())
    top = graph.most_cited(10)
    if args.json:
        print(json.dumps({"references": len(refs), "status": statuses, "title_mismatches": mismatched, "most_cited": top}, indent=2))
        return exits.OK
    print(
        f"{printable(doc.source.path) if doc.source.path else '<input>'}: {len(refs)} references: {statuses['resolved']} resolved, "
        f"{statuses['dangling']} dangling, {statuses['external']} external; {mismatched} title mismatches"
    )
    print(printable("most cited: " + ", ".join(f"{n} ({k})" for n, k in top)))
    return exits.OK


class _Renumbering:
    """The current number of rules cited as of an older release, from the store's lineage."""

    def __init__(self, db: str | None, since: str):
        from crparse.dates import first_day
        from crparse.store import connect
        from crparse.store.query import current_numbers, release_at

        self.db = connect(db, readonly=True)
        self.since = since
        self.date = release_at(self.db, first_day(since))[1]  # written since a month or a year: from its start
        self.now, _ = current_numbers(self.db, since)

    def of(self, cit) -> dict[str, str | None]:
        """Cited number -> its number now (None: gone), for those that changed."""
        out = {}
        for c in cit.cited:
            for number in dict.fromkeys((c.first, c.last)):
                current = self.now.get(number)
                if current != number:
                    out[number] = current
        return out


# How many times CRPARSE_MAX_REFERENCES one cite-check run reads, in all its files (~15 us each).
RUN_REFERENCES_FACTOR = 4


def run_cite_check(args) -> int:
    from crparse.refs.cite import NotText, check_file

    doc = _load(args.cr)
    if doc is None:
        return exits.REFUSED
    release = doc.effective_date or path_text(doc.source.path or args.cr)
    from crparse.lookup import Lookup

    targets = Lookup(doc)
    renumbered = _Renumbering(args.db, args.since) if args.since else None
    status, files, total, stale, binary = exits.OK, 0, 0, 0, 0
    most = RUN_REFERENCES_FACTOR * max_references()
    for item in inputs(args.files, editions=False):
        if item.skipped:
            _report(f"crparse: {item.path}: skipped: {item.skipped}")
            if item.refused:
                status = exits.REFUSED
            continue
        if total >= most:
            # each file is held to CRPARSE_MAX_REFERENCES, a run to this many in all: 30 files of
            # 49,800 citations each took 22 s (sweep 27)
            _report(f"crparse: cite-check: stopped at {item.path}, not checked, nor any after it: the files before it "
                    f"hold {total:,} citations, the most one run reads ({RUN_REFERENCES_FACTOR} times "
                    f"CRPARSE_MAX_REFERENCES, {max_references():,}): check the rest in another run, or raise it")
            status = exits.REFUSED
            break
        try:
            found = check_file(Path(item.path), doc, targets)
        except NotText as err:
            if item.named:  # a file met in a directory walk may be binary: passed over, counted
                _report(f"crparse: {err}")
                status = exits.REFUSED
            else:
                binary += 1
            continue
        except CrparseError as err:  # too large, unreadable, too many citations: said, walk or not (sweep 14)
            _report(f"crparse: {err}")
            status = exits.REFUSED
            continue
        files += 1
        for cit in found:
            total += 1
            now = renumbered.of(cit) if renumbered else {}
            bad = cit.stale or now
            stale += bool(bad)
            if not bad and not args.all:
                continue
            if args.json:
                record = {"path": path_text(cit.path), "line": cit.line, "column": cit.column, "text": cit.text,
                          "missing": list(cit.missing), "release": release}
                if renumbered:
                    record["since"] = renumbered.date
                    record["current"] = now
                print(json.dumps(record, ensure_ascii=False))
            else:
                verdict = "; ".join(
                    ([f"no rule {', '.join(cit.missing)} in the CR of {release}"] if cit.stale else [])
                    + [f"{old} of {renumbered.date} is {new or 'gone'} now" for old, new in now.items()]
                ) or "ok"
                print(f"{printable(cit.path)}:{cit.line}:{cit.column}: {printable(cit.text)}: {printable(verdict)}")
    if files or status == exits.OK:  # a refusal of the only file given stays one line
        # the binary files a walk passed over are counted: one of text padded with NULs went without
        # a word (sweep 28)
        passed = f" ({binary} binary file(s) in the directories passed over)" if binary else ""
        _report(f"{total} citations in {files} files{passed}; {stale} stale against the CR of {release}")
    if status == exits.OK and stale:
        status = exits.FOUND
    return status
