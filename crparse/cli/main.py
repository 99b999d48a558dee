"""The command line: a thin layer over the library API.

Exit statuses are in crparse/cli/exits.py. Every subcommand runs inside one guard: an error
crparse raises on purpose is one line and status 2, anything else one line and status 3.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import crparse
from crparse.cli import exits, refs
from crparse.errors import CrparseError
from crparse.inputs import inputs
from crparse.readers.detect import FORMATS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crparse", description="Parse the Magic: The Gathering Comprehensive Rules into a rule tree."
    )
    parser.add_argument("--version", action="version", version=f"crparse {crparse.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("parse", help="parse documents and print a summary or JSON")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or directories (read recursively)")
    p.add_argument("--json", action="store_true", help="print the JSON document (JSON Lines for several inputs)")
    p.add_argument("--format", choices=FORMATS, help="the input format (default: detected from the content)")
    p.add_argument("-v", "--verbose", action="store_true", help="list every diagnostic, info included")
    p.set_defaults(run=_parse)

    t = commands.add_parser("text", help="print the source lines a document's line numbers refer to")
    t.add_argument("path", metavar="PATH")
    t.add_argument("--format", choices=FORMATS, help="the input format (default: detected from the content)")
    t.add_argument("-n", "--number", action="store_true", help="number the lines")
    t.set_defaults(run=_text)

    s = commands.add_parser("schema", help="print the JSON Schema of the parse output")
    s.set_defaults(run=_schema)

    refs.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # `crparse parse ... | head`
        sys.stderr.close()
        return exits.OK
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except CrparseError as err:
        print(f"crparse: {err}", file=sys.stderr)
        return exits.REFUSED
    except Exception as err:  # noqa: BLE001 - the user gets a line, not a traceback
        print(internal_error(args.command, err), file=sys.stderr)
        return exits.INTERNAL


def internal_error(where: str, err: BaseException) -> str:
    message = " ".join(str(err).split())
    return f"crparse: {where}: internal error: {type(err).__name__}: {message} (please report this)"


def _text(args) -> int:
    try:
        lines = crparse.source_lines(Path(args.path), format=args.format)
    except CrparseError as err:
        print(f"crparse: {err}", file=sys.stderr)
        return exits.REFUSED
    for number, line in enumerate(lines, 1):
        print(f"{number:6d}\t{line}" if args.number else line)
    return exits.OK


def _schema(args) -> int:
    from crparse.writers.json import schema

    print(json.dumps(schema(), indent=2, ensure_ascii=False))
    return exits.OK


def _parse(args) -> int:
    from crparse.writers.json import dumps
    from crparse.writers.summary import summary

    files = list(inputs(args.paths))
    if not files:
        print("crparse: no input files found", file=sys.stderr)
        return exits.REFUSED
    several = len(files) > 1
    progress = _Progress(len(files)) if several and sys.stderr.isatty() else None
    status = exits.OK
    for n, item in enumerate(files, 1):
        path = item.path
        if progress:
            progress.update(n, path)
        if item.skipped:
            _report(progress, f"crparse: {path}: skipped: {item.skipped}")
            if item.named:
                status = max(status, exits.REFUSED)
            continue
        try:
            doc = crparse.parse(Path(path), format=args.format)
            out = dumps(doc, crparse.references(doc), indent=None if several else 2) if args.json else summary(
                doc, verbose=args.verbose
            )
        except CrparseError as err:
            err.located(path)
            _report(progress, f"crparse: {err}")
            status = max(status, exits.REFUSED)
            continue
        except Exception as err:  # noqa: BLE001 - one file's bug must not stop the batch
            _report(progress, internal_error(path, err))
            status = exits.INTERNAL
            continue
        print(out)
    if progress:
        progress.done()
    return status


def _report(progress: _Progress | None, message: str) -> None:
    if progress:
        progress.clear()
    print(message, file=sys.stderr)


class _Progress:
    """One self-rewriting line on stderr; only drawn on a terminal."""

    def __init__(self, total: int):
        self.total = total
        self.width = 30

    def update(self, n: int, path: str) -> None:
        filled = self.width * n // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        name = path if len(path) <= 40 else "..." + path[-37:]
        sys.stderr.write(f"\r[{bar}] {n}/{self.total} {name:<40}")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r" + " " * (self.width + 60) + "\r")

    def done(self) -> None:
        self.clear()
        sys.stderr.flush()
