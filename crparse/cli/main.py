"""The command line: a thin layer over the library API.

Exit status: 0 when every input parsed (warnings allowed), 1 when `refs --broken` or
`cite-check` found something to report, 2 when any input was refused or could not be read (not
a CR, unsupported format, missing file), 3 on an internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import crparse
from crparse.errors import CrparseError
from crparse.cli import refs
from crparse.readers import FORMATS
from crparse.writers.json import dumps, schema
from crparse.readers.rst import toctree_files
from crparse.writers.summary import summary

EXIT_OK = 0
EXIT_REFUSED = 2
EXIT_INTERNAL = 3


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
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _text(args) -> int:
    try:
        lines = crparse.source_lines(Path(args.path), format=args.format)
    except CrparseError as err:
        print(err, file=sys.stderr)
        return EXIT_REFUSED
    for number, line in enumerate(lines, 1):
        print(f"{number:6d}\t{line}" if args.number else line)
    return EXIT_OK


def _schema(args) -> int:
    print(json.dumps(schema(), indent=2, ensure_ascii=False))
    return EXIT_OK


def _parse(args) -> int:
    files = list(_expand(args.paths))
    if not files:
        print("crparse: no input files found", file=sys.stderr)
        return EXIT_REFUSED
    several = len(files) > 1
    progress = _Progress(len(files)) if several and sys.stderr.isatty() else None
    status = EXIT_OK
    for n, path in enumerate(files, 1):
        if progress:
            progress.update(n, path)
        try:
            doc = crparse.parse(Path(path), format=args.format)
        except CrparseError as err:
            err.located(path)
            _report(progress, f"crparse: {err}")
            status = max(status, EXIT_REFUSED)
            continue
        except Exception as err:  # noqa: BLE001 - the user gets a line, not a traceback
            _report(progress, f"crparse: {path}: internal error: {type(err).__name__}: {err} (please report this)")
            status = EXIT_INTERNAL
            continue
        if args.json:
            print(dumps(doc, indent=None if several else 2))
        else:
            print(summary(doc, verbose=args.verbose))
    if progress:
        progress.done()
    return status


def _expand(paths: Sequence[str]) -> Iterator[str]:
    """Files to parse. In a directory, the files a reST `index.rst` lists in its toctree are
    parts of that one document: the index is parsed (and follows them), they are not parsed
    on their own."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                included = toctree_files(Path(root) / "index.rst") if "index.rst" in names else set()
                for name in sorted(names):
                    if not name.startswith(".") and name not in included:
                        yield str(Path(root) / name)
        else:
            yield raw  # a missing file is reported by parse, with its name


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
