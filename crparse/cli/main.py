"""The command line: a thin layer over the library API.

Exit statuses are in crparse/cli/exits.py. Every subcommand runs inside one guard: an error
crparse raises on purpose is one line and status 2, anything else one line and status 3. What a
closed, full or abandoned stdout does, whatever the command: crparse/cli/streams.py.
"""

from __future__ import annotations

import argparse
import codecs
import gc
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import crparse
from crparse.cli import corpus, diff, docs, examples, exits, refs, streams
from crparse.dates import FORMS, period
from crparse.errors import CrparseError, OutputError, quoted
from crparse.inputs import inputs
from crparse.inputs import FORMATS
from crparse.limits import check_settings


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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

    s = commands.add_parser("schema", help="print the JSON Schema of the parse output (or of the diff output)")
    s.add_argument("which", nargs="?", choices=("document", "diff"), default="document",
                   help="document (crparse parse --json, the default) or diff (crparse diff --json)")
    s.set_defaults(run=_schema)

    refs.add_commands(commands)
    diff.add_commands(commands)
    corpus.add_commands(commands)
    examples.add_commands(commands)
    docs.add_commands(commands)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line (as every other refusal) and exit 2."""

    def error(self, message: str):
        command = self.prog.removeprefix("crparse").strip()
        report(f"crparse: {command + ': ' if command else ''}{message} (see --help)")
        raise SystemExit(exits.REFUSED)


# Arguments that are text, not file names: a byte that is not UTF-8 in one (a surrogate in
# Python) could be matched against nothing, nor passed to SQLite.
_TEXT_ARGUMENTS = ("rule", "phrase", "at", "since", "rules_date")
# Dates are compared with the releases': "yesterday" or "2020/1/1" would compare as something,
# silently. A year, a month or a day, as ISO writes them (crparse.dates: what a period means).
_DATE_ARGUMENTS = ("at", "since", "rules_date")
# Arguments that name files: an empty one (`--db "$STORE"` with STORE unset) is Path("") and so
# ".", the current directory, which some commands would then read or write, and others name "."
# in a refusal the user never wrote.
_PATH_ARGUMENTS = {"path": "PATH", "paths": "PATH", "files": "FILE", "old": "OLD", "new": "NEW", "db": "--db",
                   "cr": "--cr", "emit_pytest": "--emit-pytest", "output": "--output"}


def run() -> int:
    """The `crparse` command and `python -m crparse`: `main`, and then the process ends."""
    signal.signal(signal.SIGINT, _interrupted_once)
    try:
        status = main()
    except KeyboardInterrupt:  # between main's own handling and here
        return exits.INTERRUPTED
    # The exit frees all that is left; frozen, the objects still alive are not also traversed by
    # the collections Python makes as it tears its modules down (15 ms after a diff).
    gc.freeze()
    return status


def _interrupted_once(signum, frame) -> None:
    """Ctrl-C: KeyboardInterrupt, once. Those after it are ignored while the command stops (its
    workers, the store, the output): a second Ctrl-C a few milliseconds after the first broke
    into that with a traceback, or left the workers' pool half shut down and the command
    waiting for ever (sweep 20)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    with streams.guarded() as unwritable:
        if unwritable:  # before any work: print() would drop every line, and the status say nothing of it
            report(f"crparse: cannot write to standard output: {unwritable}")
            return exits.REFUSED
        try:
            try:
                return _main(argv)
            finally:
                # what is still buffered is written inside the guard: as Python exits, a failure
                # is a traceback-like "Exception ignored" and status 120
                sys.stdout.flush()
        except OutputError as err:  # also from --help or --version, which argparse writes
            report(f"crparse: {err}")
            return exits.REFUSED


def _main(argv: Sequence[str] | None) -> int:
    _utf8_output()
    args = build_parser().parse_args(argv)
    errors, warnings = check_settings(os.environ)
    for message in warnings:
        report(f"crparse: {message}")
    if errors:  # before any work: a batch would otherwise refuse each file for it, one by one
        report(f"crparse: {errors[0]}")
        return exits.REFUSED
    for name, shown in _PATH_ARGUMENTS.items():
        value = getattr(args, name, None)
        if value == "" or (isinstance(value, list) and "" in value):
            report(f"crparse: {args.command}: {shown} is empty: it names no file (see --help)")
            return exits.REFUSED
    for name in _TEXT_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                # an option by its name, as written ("the at given" said nothing: sweep 28)
                shown = f"--{name.replace('_', '-')}" if name in _DATE_ARGUMENTS else name.upper()
                report(f"crparse: {args.command}: the {shown} given is not valid UTF-8 text")
                return exits.REFUSED
            if name in _DATE_ARGUMENTS and period(value) is None:
                report(f"crparse: {args.command}: --{name.replace('_', '-')} {quoted(value)} is not a date ({FORMS})")
                return exits.REFUSED
    from crparse.readers.runs import one_run

    try:
        with one_run():  # a command's documents are one run (crparse.readers.runs)
            return args.run(args)
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except CrparseError as err:
        report(f"crparse: {err}")
        return exits.REFUSED
    except OSError as err:  # an output that cannot be written (a name too long, a file where a directory is)
        where = f"{err.filename}: " if err.filename is not None else ""
        report(f"crparse: {args.command}: {where}{err.strerror or err}")
        return exits.REFUSED
    except Exception as err:  # noqa: BLE001 - the user gets a line, not a traceback
        if type(err).__module__ == "sqlite3":  # the store: locked by another writer, a full disk
            report(f"crparse: {args.command}: the store: {' '.join(str(err).split())}")
            return exits.REFUSED
        report(internal_error(_where(args), err))
        return exits.INTERNAL


def _where(args) -> str:
    """The command, and the file it read when it read one: an internal error says where."""
    path = getattr(args, "path", None)
    paths = getattr(args, "paths", None) or getattr(args, "files", None) or ([path] if isinstance(path, str) else [])
    return f"{args.command}: {paths[0]}" if len(paths) == 1 and isinstance(paths[0], str) else args.command


def internal_error(where: str, err: BaseException) -> str:
    message = " ".join(str(err).split())
    return f"crparse: {where}: internal error: {type(err).__name__}: {message} (please report this)"


def report(message: str) -> None:
    """A message on stderr, as one line: a file name in it may hold a line break, control
    characters or bytes that are not UTF-8 (see crparse.writers.summary.printable)."""
    from crparse.writers.summary import printable

    if sys.stderr is not None:  # print(file=None) would write the message into stdout, the output
        print(printable(message), file=sys.stderr)


# What stdout writes for a lone surrogate that reached it (text from a reader that escapes one;
# file names are escaped before): U+FFFD, as a decoder writes for bytes it cannot read. Given as
# bytes: the UTF-8 encoder takes no other replacement than bytes or ASCII.
codecs.register_error("crparse-replace", lambda err: ("\ufffd".encode() * (err.end - err.start), err.end))


def _utf8_output() -> None:
    """stdout and stderr write UTF-8 whatever the locale: under LC_ALL=C Python would write a
    lone surrogate as the raw byte it stands for (invalid UTF-8), under a UTF-8 locale raise."""
    for stream, errors in ((sys.stdout, "crparse-replace"), (sys.stderr, "backslashreplace")):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(encoding="utf-8", errors=errors)
        except (ValueError, OSError):  # a stream already read from or closed: left as it is
            pass


def _text(args) -> int:
    from crparse.writers.json import valid_text

    try:
        lines = crparse.source_lines(Path(args.path), format=args.format)
    except CrparseError as err:
        report(f"crparse: {err}")
        return exits.REFUSED
    except OSError as err:  # an output that cannot be written (a name too long, a file where a directory is)
        where = f"{err.filename}: " if err.filename is not None else ""
        report(f"crparse: {args.command}: {where}{err.strerror or err}")
        return exits.REFUSED
    except Exception as err:  # noqa: BLE001
        if type(err).__module__ != "sqlite3":  # the store: locked by another writer, a full disk
            raise
        report(f"crparse: {args.command}: the store: {' '.join(str(err).split())}")
        return exits.REFUSED
    replaced = 0
    # written a few thousand lines at a time: a print a line is a write a line where stdout is
    # unbuffered (PYTHONUNBUFFERED, common in containers): 4 MB of blank lines took 15 s
    batch: list[str] = []
    for number, line in enumerate(lines, 1):
        fixed = valid_text(line)
        if fixed is not line:
            replaced += 1
        batch.append(f"{number:6d}\t{fixed}\n" if args.number else f"{fixed}\n")
        if len(batch) >= 4096:
            sys.stdout.write("".join(batch))
            batch.clear()
    sys.stdout.write("".join(batch))
    if replaced:
        report(f"crparse: {args.path}: warning: lone surrogates (not encodable in UTF-8) written as U+FFFD on {replaced} lines")
    return exits.OK


def _schema(args) -> int:
    from crparse.writers.json import schema

    print(json.dumps(schema(args.which), indent=2, ensure_ascii=False))
    return exits.OK


def _parse(args) -> int:
    from crparse.writers.json import encode
    from crparse.writers.summary import summary

    files = list(inputs(args.paths))
    if not files:
        report("crparse: no input files found")
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
            if item.refused:
                status = max(status, exits.REFUSED)
            continue
        try:
            doc = crparse.parse(Path(path), format=args.format)
            if args.json:
                _write(encode(doc, crparse.references(doc), indent=None if several else 2))
            else:
                print(summary(doc, verbose=args.verbose))
        except OutputError:  # every later file would fail the same way: the batch ends here
            raise
        except CrparseError as err:
            err.located(path)
            _report(progress, f"crparse: {err}")
            status = max(status, exits.REFUSED)
        except Exception as err:  # noqa: BLE001 - one file's bug, even in writing it out, must not stop the batch
            _report(progress, internal_error(path, err))
            status = exits.INTERNAL
    if progress:
        progress.done()
    return status


def _write(data: bytes) -> None:
    """One document's JSON and a line break: the bytes go out as they are (valid UTF-8 by
    construction), not decoded to text for stdout to encode again, two copies of a large one."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream put in place of stdout
        print(data.decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.write(b"\n")
    buffer.flush()


def _report(progress: _Progress | None, message: str) -> None:
    if progress:
        progress.clear()
    report(message)


class _Progress:
    """One self-rewriting line on stderr; only drawn on a terminal."""

    def __init__(self, total: int):
        self.total = total
        self.width = 30

    def update(self, n: int, path: str) -> None:
        filled = self.width * n // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        from crparse.writers.summary import printable

        path = printable(path)
        name = path if len(path) <= 40 else "..." + path[-37:]
        sys.stderr.write(f"\r[{bar}] {n}/{self.total} {name:<40}")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r" + " " * (self.width + 60) + "\r")

    def done(self) -> None:
        self.clear()
        sys.stderr.flush()
