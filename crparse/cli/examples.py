"""`crparse examples PATH`: every worked example of a document run as a test against the
reference rules model (crparse.examples), under the rules of the document's date."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from crparse.cli import exits
from crparse.errors import CrparseError


def add_commands(commands) -> None:
    e = commands.add_parser(
        "examples",
        help="run every worked example of a document as a test against the reference rules model",
        description="Each \"Example:\" is read by the examples' grammar into a scenario (setup, actions, "
        "outcomes) and run against the rules model under a rules date: passed, failed (with the outcome and "
        "what the model said) or unsupported (with the sentence or model feature missing). Exit 1 when any "
        "example failed.",
    )
    e.add_argument("path", metavar="PATH", help="a document (any format crparse reads)")
    e.add_argument("--json", action="store_true", help="print [{rule, index, text, status, reason, scenario, ...}]")
    e.add_argument("--rules-date", metavar="DATE", help="the rules to play by (a month or a year: those in force at its "
                   "end; default: the document's effective date, else its newest change stamp, else the release "
                   "`crparse identify` finds)")
    e.add_argument("--rule", metavar="NUMBER", help="only the examples of this rule")
    e.add_argument("--db", metavar="PATH", help="the store `crparse identify` reads for an undated fragment")
    e.add_argument("--emit-pytest", metavar="DIR", help="also write the examples as plain pytest files into DIR")
    e.set_defaults(run=run_examples_command)


def run_examples_command(args) -> int:
    import crparse
    from crparse.examples import given_rules_date, rules_date, run_examples, store_identifier
    from crparse.examples.collect import is_rule

    if args.emit_pytest:  # refused before the examples run, not after
        _check_directory(Path(args.emit_pytest))
    doc = crparse.parse(Path(args.path))
    if args.rule is not None and not any(is_rule(r, args.rule) for r in doc.rules):
        # "0 examples", exit 0, for a rule the document lacks, or no rule number at all (sweep 38)
        from crparse.errors import quoted

        raise CrparseError(f"--rule: no rule {quoted(args.rule)} in the document", path=args.path)
    if args.rules_date:
        date, how = given_rules_date(args.rules_date)
    else:
        date, how = rules_date(doc, identify=store_identifier(args.db))
    results = run_examples(doc, rules_date=date, rule=args.rule)
    if args.emit_pytest:
        from crparse.examples.emit import write_tests

        try:
            written, left_out = write_tests(Path(args.emit_pytest), doc, results, date)
        except OSError as err:  # a parent that is a file, no permission, a full disk
            from crparse.outputs import why_not_made

            where = err.filename or args.emit_pytest  # the test file, or the directory not made
            raise CrparseError(f"--emit-pytest: cannot write the tests: {why_not_made(Path(where), err)}",
                               path=where) from None
        from crparse.cli.main import report

        report(f"crparse: wrote {written}")  # escaped: the path is the user's, control characters and all
        if left_out:
            from crparse.examples.bounds import MAX_DOCUMENT_ITEMS

            report(f"crparse: {written}: {left_out:,} examples past the {MAX_DOCUMENT_ITEMS:,} a document's tests may "
                   "be (MAX_DOCUMENT_ITEMS) not written; `crparse examples` runs them all")
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
    else:
        from crparse.writers.summary import printable

        print(f"{printable(args.path)}: rules date {date} ({how})")
        for r in results:
            line = f"  {r.case.name:<10} {r.status}"
            if r.reason:
                line += f": {r.reason}"
            print(printable(line))
    counts = Counter(r.status for r in results)
    print(f"{len(results)} examples: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['unsupported']} unsupported (rules date {date})", file=sys.stderr)
    return exits.FOUND if counts["failed"] else exits.OK


def _check_directory(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise CrparseError("--emit-pytest needs a directory, and this is not one", path=str(path))
    # one to make below a file: said before the examples run, and as such (it was said after
    # them, as "File exists": sweep 42)
    above = path.parent
    while not above.exists() and above.parent != above:
        above = above.parent
    if above.exists() and not above.is_dir():
        raise CrparseError("--emit-pytest needs a directory, and one above it is a file", path=str(above))
