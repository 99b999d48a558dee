"""The reStructuredText reader (docutils): the CR editions written for Sphinx.

docutils parses the markup; this module only says what the CR's markup means:

- a section titled with a rule number (`800.4` over `-----`) is a rule; its first paragraph is
  the rule's text, and its lettered list (`a.`, `b.`, ...) holds the subrules `800.4a`, ... (a
  list restarting at `m.` after `k.`, because the CR skips l and o, keeps its letters);
- a section holding rules is a numbered section (`800. General`), and a section holding those
  is a chapter (`8. Multiplayer Rules`); their numbers, left implicit by the edition, are the
  numbers of the first rule inside;
- an edition may instead print its rules as paragraphs (`800.1. A multiplayer game ...`) under
  unnumbered headings, the numbers standing only in its Contents, a list of references
  ("8. `Multiplayer Rules`_" and, nested, "800. `General`__"): the Contents numbers those
  headings, checked against the rules under them, which win where the two disagree (with a
  diagnostic); references left unresolved (`General`__ with no target) read as their titles;
- `.. admonition:: Example` is an example, whatever its indentation;
- `.. glossary::` is the glossary; `.. toctree::` lists the files of the edition, read in order
  (a toctree in one of them before the entries after it, as Sphinx nests them; a `:glob:`
  pattern, the files it matches) and numbered as one document. The input names those files, so it is held to them: only
  regular files inside the edition's own directory (that of the index, symbolic links resolved),
  each once and of bounded size; docutils opens nothing (no include, raw file, URL);
- docutils' own messages (unknown roles and directives, unresolved references) are diagnostics;
  an unknown role reads as its text (`:doc:`Title <target>`` as "Title");
- `:ref:` roles and `seealso` blocks are references (Links), not text; `.. _label:` targets
  name the section they precede;
- undefined substitutions such as `|T|` are the CR's symbols, `{T}`;
- `:ref:` pasted inside a word by a broken conversion (`the:ref:ore`) is repaired to `ref`,
  with a diagnostic.
- docutils is slow on some markup and not linear on some: what each file would cost it is
  counted before it runs, and an edition past the budget, nested too deep or with a paragraph
  of too much inline markup is refused at the line (crparse.readers.limits: RST_*, MAX_RST_*).

The output lines have the shape of the official text release, so the block stage and the
grammar read them as they read any text release.
"""

from __future__ import annotations

import difflib
import io
import os
import posixpath
import re
import stat
import sys
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from crparse import shapes as S
from crparse.decode import decode
from crparse.decode.invisible import visible_start
from crparse.errors import CrparseError, RefusedInput, quoted
from crparse.inputs import Unread, inside, listed_as_link, listed_at, read_regular, real_path, real_path_or_none
from crparse.limits import describe, max_input
from crparse.nodes import Diagnostic, Link, SourceFile
from crparse.readers import limits as L
from crparse.readers import runs
from crparse.readers.base import Extract
from crparse.readers.globbing import MAX_GLOB, GlobPattern
from crparse.readers.links import link_to_rule

_RULE_TITLE = re.compile(rf"(?P<number>{S.NUMBER})\.?(?:\s+(?P<title>\S.*))?")
# A part's or section's heading that prints its own number ("100. General", "1. Game Concepts")
_NUMBERED_HEADING = re.compile(r"(?P<number>\d{1,3})\.\s+\S.*")
# ... or prints it without its dot ("100 General"): taken only where the rules under it agree
_PRINTED_NUMBER = re.compile(r"(?P<number>\d{1,3})\.?\s+(?P<title>\S.*)")
_DAMAGED_REF = re.compile(r":ref:(?!`)(?=\w)|(?<=\w):ref:(?!`)")
_SUBSTITUTION = re.compile(r"(?<![|\w])\|(?P<name>[A-Za-z0-9/]{1,6})\|(?![|\w])")
_DEFINED = re.compile(r"^\.\.\s+\|(?P<name>[^|]+)\|", re.MULTILINE)
# The edition's converter replaced some cited titles by the cited number: `See rule 509, 509.)`
# for `See rule 509, "Declare Blockers Step.")`, and `(see rule 716, "716")`.
_TITLE_DAMAGE = re.compile(rf"\b(?P<kind>rule|section) (?P<number>{S.SECTION_NUMBER}), (?P<quote>\"?)(?P=number)(?P=quote)(?P<stop>\.?)(?P<after>\)|\s+[a-z]+|$)")
_RUN_IN_EXAMPLE = re.compile(r"(?<=[.!?\")])\s+(?=Example:\s)")
_NUMBER_IN_TEXT = re.compile(rf"\b{S.SECTION_NUMBER}(?:\.{S.RULE_PART}{S.SUBRULE_LETTER}?)?\b")
# A reference docutils could not resolve keeps its markup as text: `General`__ with no anonymous
# target, or `General`_ when several headings are titled "General", as in every Contents. The
# title is what runs to the target, its trailing spaces stripped after: a lazy title before `\s*`
# retried the run of spaces at each of its ends, 17 s for 12 KB of tabs (sweep 44).
_REFERENCE_MARKUP = re.compile(r"`(?P<title>[^`<]*+)(?:<[^<>`]*+>)?`__?|(?<![\w`])(?P<name>\w+)__?(?![\w`])")
_CONTENTS_LINE = re.compile(r"(?P<number>\d{1,3})\.\s+(?P<title>\S.*)")
# An interpreted text role docutils does not know (Sphinx's `:doc:`, `:term:`) keeps its markup
# as text: `:doc:`one``, or `one`:doc:`.
_ROLE_MARKUP = re.compile(
    r"(?s):(?P<role>[A-Za-z0-9][\w.+:-]*?):`(?P<before>.*)`|`(?P<after>.*)`:(?P<role_after>[A-Za-z0-9][\w.+:-]*?):"
)
# Sphinx's cross-reference roles, whose text may be `Title <target>`; any other role's text is
# what it says ("`<b>bold</b>`" under a raw role lost its "</b>" as a target).
_REFERENCE_ROLES = frozenset(
    "ref doc term numref any keyword option envvar token download abbr "
    "py:ref py:mod py:func py:class py:meth py:attr py:data py:obj std:ref std:doc std:term cr:rule cr:term".split()
)
# Sphinx's toctree entries: `Title <file>`, and links that are not files of the edition.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|mailto:", re.IGNORECASE)



def max_toctree_file() -> int:
    """The largest file a toctree entry may bring in: the bound on an input file given directly
    (crparse.limits.max_input, CRPARSE_MAX_INPUT; the whole official edition is under 1 MB), so
    that an edition cannot read through its index a file it could not be given."""
    return max_input()

Span = tuple[int, int]


def read(raw: bytes, path: str | None = None) -> Extract:
    # docutils reads enumerators and option values with int() and writes numbers with str(), as
    # this reader does, which Python refuses past 4,300 digits: the file was refused with
    # Python's advice to call sys.set_int_max_str_digits (sweeps 14, 15); escaping the digits
    # showed a backslash in literals (sweep 16). No line docutils reads is longer than its
    # line_length_limit (10,000), so no number is either: each conversion costs ~1 ms at most.
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(max(digits, _MOST_DIGITS) if digits else 0)
    try:
        return _read(raw, path)
    except RecursionError:  # the pre-scan bounds nesting: this is markup it does not see as nested
        raise RefusedInput("cannot read this reStructuredText: its markup nests deeper than Python's recursion "
                           "limit lets docutils (or this reader) follow") from None
    except MemoryError:
        raise RefusedInput("cannot read this reStructuredText: out of memory building its document tree "
                           "(markup nested or repeated past what memory holds)") from None
    finally:
        sys.set_int_max_str_digits(digits)


_MOST_DIGITS = 20_000  # above docutils' line_length_limit, so above any number in a line it reads


def _read(raw: bytes, path: str | None) -> Extract:
    _register_sphinx_markup()
    decoded = decode(raw)
    files = [_File(path or "<input>", decoded.lines, 0)]
    diagnostics = list(decoded.diagnostics)
    budget = _Budget()
    budget.size = len(raw)
    main = _parse(decoded.text, files[0], diagnostics, budget)
    documents = [main]
    edition = _Edition(path) if path is not None else None
    entries = _toctree_entries(main)
    # Each entry costs a look on the disk, each file docutils' setup: those the pre-scan did not see
    for entry, line, _ in entries[budget.counts["file"]:]:
        budget.charge("file", 1, L.RST_FILE_COST, (f" (toctree entry {entry!r})", line))
    # Depth first, as Sphinx's toctrees nest: a file's own toctree is read after the file, before
    # the entries after it (a part's chapters were never read: sweep 20). A stack, not recursion;
    # each file is read once, so it ends.
    pending = [_entry_files(entries, edition, diagnostics, budget, "", 0)]
    while pending:
        item = next(pending[-1], None)
        if item is None:
            pending.pop()
            continue
        entry, line, name, found = item
        child, raw = found
        budget.add_file(len(raw), str(child), name, line if line <= len(files[0].lines) else None)  # the index's own
        try:
            child_decoded = decode(raw)
        except CrparseError as err:
            diagnostics.append(Diagnostic(line, "warning", "rst-toctree", f"toctree entry {entry!r}: {err.message}"))
            continue
        offset = sum(len(f.lines) for f in files)
        files.append(_File(str(child), child_decoded.lines, offset))
        diagnostics += [Diagnostic(d.line and d.line + offset, d.severity, d.code, d.message) for d in child_decoded.diagnostics]
        documents.append(_parse(child_decoded.text, files[-1], diagnostics, budget, main=False,
                                before_docutils=lambda work, child=child, name=name: edition.read_again(child, name, work)))
        inner = _toctree_entries(documents[-1])
        if inner and edition is not None:
            shown = os.path.relpath(child, edition.directory)
            for entry, line, _ in inner:
                # a refusal names the index: the line is said in the words, as the file's own
                budget.charge("file", 1, L.RST_FILE_COST, (f" (toctree entry {quoted(entry)} at line {line} of {shown})", None))
            base = posixpath.dirname(os.path.relpath(child, edition.directory).replace(os.sep, "/"))
            pending.append(_entry_files(inner, edition, diagnostics, budget, base, offset))

    if edition is not None and os.path.basename(path) == "index.rst":
        diagnostics += edition.unnamed()
    numbers = _section_numbers(documents, files, diagnostics)
    labels, titles = _labels(documents, numbers)
    writer = _Writer(numbers, labels, titles, diagnostics)
    for document, source in zip(documents, files):
        writer.document(document, source)
    for name, count in writer.hidden.items():  # named as in the edition: two intro.rst were one (review)
        name = os.path.relpath(name, os.path.dirname(files[0].path) or ".") if name and files else name
        diagnostics.append(Diagnostic(
            None, "warning", "rst-markup",
            f"{name}: {count:,} comment(s), unused substitution definition(s), image alt text(s) or meta "
            "content(s) hold what reads as rules (a rule or section number at a line's start), not read"))
    source_text = [line for f in files for line in f.lines]
    return Extract(
        format="rst",
        lines=writer.lines,
        origin=writer.origin,
        source_text=source_text,
        encoding=decoded.encoding,
        bom=decoded.bom,
        line_endings=decoded.line_endings,
        diagnostics=diagnostics,
        links=writer.links,
        files=tuple(SourceFile(f.path, f.offset + 1, len(f.lines)) for f in files) if len(files) > 1 else (),
    )


_GLOB = re.compile(r"[*?\[]")  # Sphinx's test of a glob pattern


def _entry_files(entries, edition: _Edition | None, diagnostics: list[Diagnostic], budget: _Budget, base: str,
                 offset: int):
    """(entry, line, name, (path, bytes)) for each file the toctree entries of a file name: an
    entry of a `:glob:` toctree that is a pattern names, as in Sphinx, the edition's files it
    matches that no entry before it named, in order of name (it was read as a file name, `*.rst`:
    sweep 19). `base`: the directory of that file in the edition, which its entries are relative
    to; `offset`: the lines of the files before it. What is not read is said."""
    for entry, line, glob in entries:
        line += offset
        if edition is None:
            diagnostics.append(Diagnostic(line, "warning", "rst-toctree",
                                          f"toctree entry {entry!r} not read: the input has no file name to find it from"))
            continue
        names = [entry]
        matched = None
        if glob and _GLOB.search(entry) and _titled_target(entry) is None and not _URL.match(entry):
            try:
                names = matched = edition.matching(entry, base)
            except _NotRead as why:
                diagnostics.append(why.said(line, f"toctree glob {quoted(entry)} not read"))
                continue
            if not names:
                diagnostics.append(Diagnostic(line, "warning", "rst-toctree",
                                              f"toctree glob {quoted(entry)} matches no file of the edition not named before it"))
                continue
            for name in names[1:]:  # the pre-scan counted the pattern as one file
                budget.charge("file", 1, L.RST_FILE_COST, (f" (toctree glob {entry!r}: {name})", line))
        for name in names:
            try:
                # a pattern's matches are named from the edition's directory, an entry from `base`
                found = edition.read(name, base if names is not matched else "")
            except _NotRead as why:
                diagnostics.append(why.said(line, f"toctree entry {name!r} not read"))
                continue
            if found is not None:
                yield entry, line, name, found


@dataclass
class _File:
    path: str
    lines: list[str]
    offset: int  # lines of the files before this one


def _holds_edition(directory: str, root: str) -> bool:
    """Whether `directory` has an index.rst to read: a regular file, not a link leading out of `root`."""
    index = os.path.join(directory, "index.rst")
    try:
        if os.path.islink(index) and not inside(real_path(index), root):
            return False
        return stat.S_ISREG(os.stat(index).st_mode)
    except (OSError, ValueError):
        return False


class _NotRead(Exception):
    """Why a toctree entry is not read (the diagnostic's words). `limit`: a limit of crparse's was
    reached (`rst-not-read`: rules may be left unread), not a fault of the entry (`rst-toctree`)."""

    def __init__(self, why: str, limit: bool = False) -> None:
        super().__init__(why)
        self.limit = limit

    def said(self, line: int | None, words: str) -> Diagnostic:
        return Diagnostic(line, "warning", "rst-not-read" if self.limit else "rst-toctree", f"{words}: {self}")


class _Edition:
    """The files a reST edition may read: its toctree names them, so the input decides which
    paths get opened. Only regular files inside the index's own directory tree are read, each
    once, none larger than max_toctree_file(): never a file elsewhere on the disk (an absolute
    path, a `..`, a symbolic link out), a FIFO (it would block), a device (/dev/zero never ends)."""

    def __init__(self, index: str):
        self.directory = Path(index).parent
        self._given = str(Path(index))
        # where a walk found the index, if one listed it: the directory swapped for a link leading
        # out while the index was parsed made the outside the edition, and its files were read
        # under the edition's names (sweep 26)
        found = listed_at(index)
        # an index.rst that is a link: the edition is the link's directory, not where it leads
        # (another edition's: this one's own chapters were refused as links leading out: sweep 33)
        here = found if found and not listed_as_link(index) else None
        self.root = os.path.dirname(here) if here else real_path_or_none(self.directory) or os.path.abspath(self.directory)
        self.index = found or real_path_or_none(index) or os.path.abspath(index)
        # the document, to the run's budgets: an index.rst that is a link is its own directory's
        # edition, not the one it leads to (80 editions linking one index were one reader, whose
        # reads of their hard-linked chapters were never charged: 21 s, sweep 39)
        self.reader = os.path.join(self.root, os.path.basename(self.index))
        self.seen = {self.index}
        self._identities: dict[str, str] = {}  # a file read, as it is shown -> its device and inode
        self.named: set[str] = set()
        # its .rst files, as the walk names them: strings, a Path for each made 20,000 files 1,000
        # directories deep cost 20 million parts (3 s: sweep 26)
        self._listed: list[str] | None = None
        self._passed_over: list[tuple[str, str]] = []  # its .rst files a walk does not read, and why
        self.tried: set[str] = set()  # the files toctree entries named, as named
        self._names: dict[str, str] | None = None  # the listed files by the names a pattern matches
        self.glob_work = 0  # what the patterns have cost (GlobPattern.work), against MAX_RST_GLOB_WORK
        # a directory -> the outermost edition's directory on its way; and a path (a toctree entry's,
        # a listed file's) -> its real path (or why none): once a run, for all its documents (each of
        # 200 documents naming a file 1,500 directories deep looked at them all again, 16 s; each of
        # 30 naming one costly link 1,200 times resolved it each time, 30 s: sweep 31; each of 30
        # globbing 20,000 links resolved them all again, 18 s: sweep 30)
        # a path's real path depends on no edition: one cache for the run (kept for each root, each
        # of 80 documents one per level of a chain resolved the same 300 costly links again, 18 s:
        # sweep 32); the editions on a directory's way depend on the root
        self._nested: dict[str, str | None] = runs.remembered(("rst-nested", self.root), dict)
        self._resolved: dict[str, str | OSError] = runs.remembered("rst-resolved", dict)

    def read(self, entry: str, base: str = "") -> tuple[Path, bytes] | None:
        """The path (as the edition names it) and bytes of the file an entry names, relative to
        `base` (the directory in the edition of the file whose toctree it is in); None for an
        entry that names no file (Sphinx's `self`)."""
        titled = _titled_target(entry)
        target = titled[1].strip() if titled else entry
        if target == "self":  # Sphinx's name for the index itself, already read
            return None
        if _URL.match(target):
            raise _NotRead("a URL: an edition reads only its own files")
        name = target if target.endswith(".rst") else target + ".rst"
        if "\0" in name:
            raise _NotRead("a NUL character in the file name")
        if os.path.isabs(name):
            raise _NotRead(f"an absolute path: an edition reads nothing outside the edition's directory ({self.root})")
        name = posixpath.normpath(posixpath.join(base, name)) if base else name  # as Sphinx joins names
        shown = self.directory / name
        self.tried.add(str(shown))  # said here, whatever follows (see unnamed)
        try:
            if os.path.commonpath([self.root, os.path.normpath(os.path.join(self.root, name))]) != self.root:
                raise _NotRead(f"its '..' leads outside the edition's directory ({self.root})")
            resolved = self._resolve(str(shown))
        except ValueError:  # a name the file system cannot encode
            raise _NotRead("not a usable file name") from None
        except OSError as err:  # missing, a loop of links, a chain past the kernel's 40
            raise _NotRead(f"cannot read {shown}: {err.strerror or err}") from None
        if not inside(resolved, self.root):
            # the kernel resolved the links; without them the path stays inside (checked above)
            raise _NotRead(f"a symbolic link leads outside the edition's directory ({self.root})")
        nested = self.nested_edition(os.path.dirname(resolved))
        if nested is not None:
            # an edition is its directory but for those of editions below it, as its listing is:
            # each of 150 editions one inside another read all those below it through its
            # toctree, 11,000 parses (21 s), and their rules came out twice (sweep 25)
            raise _NotRead(f"in {os.path.relpath(nested, self.root)}/, the directory of another edition (an "
                           "index.rst of its own), which is read as a document of its own")
        if resolved in self.seen:
            raise _NotRead(f"{name} is already read: an edition reads each of its files once")
        self.named.add(resolved)  # read or not, said here (see unnamed)
        try:
            # from the edition's directory, no link followed on the way: one swapped in for a
            # directory after the check above was read (sweep 18)
            raw = read_regular(resolved, max_toctree_file(), real=resolved)
        except Unread as why:
            if why.kind is not None:
                raise _NotRead(f"not a regular file ({why.kind}): an edition reads only regular files") from None
            if why.too_large:
                raise _NotRead(f"{why.reason} on a toctree file (CRPARSE_MAX_INPUT)", limit=True) from None
            raise _NotRead(f"cannot read {shown}: {why.reason.removeprefix('cannot read: ')}") from None
        self.seen.add(resolved)
        try:
            status = os.stat(resolved)
            self._identities[str(shown)] = f"{status.st_dev}:{status.st_ino}"  # hard links are one file
        except OSError:
            self._identities[str(shown)] = resolved
        return shown, raw

    def read_again(self, shown: Path, entry: str, work: int) -> None:
        """Charge the run for the file `shown` (read for toctree `entry`) at `work`, what its markup
        costs docutils (_Budget's measure), if another document of the run read it first: before
        docutils reads it. Refused past the run's bound. Its bytes were charged, and one wide
        table of 28 KB, read by 20 documents, took 31 s within the bound (sweep 40)."""
        again = runs.read_again(self._identities[str(shown)], self.reader, work + runs.REPEATED_READ_COST)
        if again > runs.MAX_REPEATED_WORK:
            raise RefusedInput(
                f"its toctree entry {quoted(entry)} reads {shown}, which another document of this run has read: such "
                f"reads have cost this run {describe(again)} (their markup, counted as plain text docutils reads in "
                f"the same time, and {describe(runs.REPEATED_READ_COST)} each), past the "
                f"{describe(runs.MAX_REPEATED_WORK)} it may (reST files whose toctrees read the same files): parse "
                "this one alone, or make the directory an edition (one index.rst)")

    def _resolve(self, path: str) -> str:
        """real_path(path), once a run (an OSError too: a loop of links costs the kernel its 40 steps)."""
        found = self._resolved.get(path)
        if found is None:
            try:
                found = real_path(path)
            except OSError as err:
                found = err
            self._resolved[path] = found
        if isinstance(found, OSError):
            raise found
        return found

    def nested_edition(self, directory: str) -> str | None:
        """The outermost directory from below the edition's root down to `directory` (a real path
        inside it) that holds an edition of its own: an index.rst to read, not a link leading out
        (as a walk finds editions). Each directory is looked at once."""
        chain = []
        while len(directory) > len(self.root) and directory not in self._nested:
            chain.append(directory)
            directory = os.path.dirname(directory)
        found = self._nested.get(directory) if len(directory) > len(self.root) else None
        for folder in reversed(chain):
            if found is None and _holds_edition(folder, self.root):
                found = folder
            self._nested[folder] = found
        return found

    def matching(self, pattern: str, base: str = "") -> list[str]:
        """The names (as toctree entries: relative, no `.rst`) of the edition's files that a glob
        pattern matches, sorted, but for those read or named already (Sphinx's "all remaining
        documents"); Sphinx's matching: `*` stops at a `/`, `**` does not (crparse.readers.globbing)."""
        if "\0" in pattern:
            raise _NotRead("a NUL character in the pattern")
        if os.path.isabs(pattern):
            raise _NotRead(f"an absolute path: an edition reads nothing outside the edition's directory ({self.root})")
        if len(pattern) > MAX_GLOB:
            raise _NotRead(f"a pattern of {len(pattern):,} characters, more than the {MAX_GLOB} a file name's takes")
        pattern = posixpath.normpath(posixpath.join(base, pattern.removesuffix(".rst")))
        if pattern == ".." or pattern.startswith("../"):
            raise _NotRead(f"its '..' leads outside the edition's directory ({self.root})")
        # the run's budget too (runs.MAX_GLOB_WORK): each of 60 documents matching to its own took
        # 20 s (sweep 29); and looked at before the names are made: 200 documents past it each made
        # them for 100,000 files, 14 s (sweep 32)
        run_left = runs.MAX_GLOB_WORK - runs.spend(runs.GLOB, 0)
        if run_left <= 0:
            raise _NotRead(self._run_spent, limit=True)
        done = self.seen | self.named
        if self._names is None:  # once: each pattern listed the edition again (1,200 of them over
            # 20,000 files: 54 s, sweep 21); and once a run for the documents of one directory
            files = self._files()
            self._names = runs.remembered(("rst-names", str(self.directory), self.root), lambda: {
                self.relative(f).removesuffix(".rst"): f for f in files})
        glob, found = GlobPattern(pattern), []
        for name, path in self._names.items():
            if glob.matches(name) and self.real(path) not in done:
                found.append(name)
            if self.glob_work + glob.work > L.MAX_RST_GLOB_WORK:
                self.glob_work = L.MAX_RST_GLOB_WORK + 1
                runs.spend(runs.GLOB, glob.work)
                raise _NotRead(f"the edition's patterns have been matched against {L.MAX_RST_GLOB_WORK:,} characters "
                               "of its file names, the limit (MAX_RST_GLOB_WORK)", limit=True)
            if glob.work > run_left:
                runs.spend(runs.GLOB, glob.work)
                raise _NotRead(self._run_spent, limit=True)
        self.glob_work += glob.work
        runs.spend(runs.GLOB, glob.work)
        return sorted(found)

    @property
    def _run_spent(self) -> str:
        return (f"the patterns of this run's documents have been matched against {runs.MAX_GLOB_WORK:,} characters "
                "of file names, the most a run may (crparse.readers.runs.MAX_GLOB_WORK)")

    def real(self, path: str) -> str | None:
        """A listed file's real path, resolved once (a file a pattern matched was resolved again
        for each pattern, and a link can cost 90 ms: sweep 22); None where none resolves."""
        try:
            return self._resolve(path)
        except (OSError, ValueError):
            return None

    def relative(self, path: str) -> str:
        """A listed file's name in the edition (posix), from the walk's name for it: a prefix cut,
        not os.path.relpath's walk over each of its parts."""
        base = str(self.directory)
        prefix = "" if base == "." else base if base.endswith("/") else base + "/"
        name = path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, base)
        return name.replace(os.sep, "/")

    def _files(self) -> list[str]:
        """The edition's .rst files: in its directory and below, but for other editions' (a
        directory with an index.rst of its own)."""
        from crparse.inputs import inputs

        if self._listed is None:
            # once a run for a directory: 100 reST files with :glob: toctrees beside 20,000 others
            # each listed them all again, 14 s (sweep 28); and what a document lists of a directory
            # another one listed first (its edition is its tree, one per level of a chain: sweep 32)
            # is charged to the run
            def visit(directory: str, entries: int) -> None:
                spent = runs.list_again("rst", directory, self.reader, entries)
                if spent > runs.MAX_REPEATED_LISTING:
                    raise _NotRead(
                        f"the edition's directory was not listed: its documents' listings of directories another "
                        f"document of this run listed first have walked {spent:,} entries, past the "
                        f"{runs.MAX_REPEATED_LISTING:,} a run may (crparse.readers.runs.MAX_REPEATED_LISTING; reST "
                        "files one below another each list the tree below them): parse this one alone", limit=True)

            listing = runs.remembered(("rst-files", str(self.directory), self.root), lambda: [
                i for i in inputs([self.directory], editions=False, once=False, other_editions=False, record=False,
                                  visit=visit)
                if i.path.endswith(".rst")])
            self._listed = [i.path for i in listing if i.skipped is None]
            # one a walk passes over (a link leading out, to a hidden directory's file, a FIFO) is
            # said with its reason: it went without a word, the outer walk leaving the edition's
            # .rst files to it (sweep 26)
            self._passed_over = [(i.path, i.skipped) for i in listing if i.skipped is not None]
        return self._listed

    def unnamed(self) -> list[Diagnostic]:
        """The .rst files of the edition's directory (below it too, but for other editions') that
        no toctree entry named: not read, and said (a chapter left out of the toctree went
        without a word, and a diff against the edition said unchanged: sweep 18)."""
        read_or_said = self.seen | self.named
        try:
            files = self._files()
        except _NotRead as why:
            return [why.said(None, "its .rst files that no toctree names were not looked for")]
        unnamed = [f for f in files if self.real(f) not in read_or_said]
        said = []
        if unnamed:
            shown = ", ".join(self.relative(f) for f in unnamed[:5]) + (", ..." if len(unnamed) > 5 else "")
            said.append(Diagnostic(None, "warning", "rst-toctree", f"{len(unnamed)} .rst file(s) of the edition's "
                                   f"directory that no toctree names, not read: {shown}"))
        # else said already; the index itself, a link leading out, is read: it is the document
        passed_over = [(f, why) for f, why in self._passed_over if f not in self.tried and f != self._given]
        if passed_over:
            shown = "; ".join(f"{self.relative(f)} ({why})" for f, why in passed_over[:5])
            said.append(Diagnostic(None, "warning", "rst-toctree", f"{len(passed_over)} .rst file(s) of the "
                                   f"edition's directory that it does not read: {shown}"
                                   + ("; ..." if len(passed_over) > 5 else "")))
        return said


# -- what docutils would make of it, counted before it runs -------------------------------------
#
# docutils is slow on some markup and not linear on some (crparse.readers.limits): each file of an
# edition is scanned once, line by line, for what its markup would cost, and the edition is
# refused before docutils starts on markup past the budget, nesting deeper than MAX_RST_NESTING,
# or a paragraph of more than MAX_RST_PARAGRAPH_MARKUP inline markup characters.

# A line that starts a block even with no blank line before it: a list item (bullet, enumerator,
# field, option), explicit markup, a line block, a doctest, a table border, an adornment.
_BLOCK_START = re.compile(
    r"[-+*\u2022\u2023\u2043](?:\s|$)|\(?(?:\d{1,9}|[#A-Za-z]|[ivxlcdmIVXLCDM]{1,9})[.)](?:\s|$)|:[^:\s]"
    r"|\.\.(?:\s|$)|__(?:\s|$)|\|(?:\s|$)|>>>|(?:--?|/)\w|\+[-=]|([!-/:-@\[-`{-~])\1+$"
)
# Markup whose content may start on its own line, one more level down: `- - 1. x`, `.. note:: x`.
_NESTED_MARKER = re.compile(
    r"(?:[-+*\u2022\u2023\u2043]|\(?(?:\d{1,9}|[#A-Za-z]|[ivxlcdmIVXLCDM]{1,9})[.)]|\|"
    r"|\.\.\s+[A-Za-z][\w.+:-]{0,40}?::|:[^:\s][^:]{0,40}:)\s+(?=\S)"
)
# A block quote's attribution, as docutils finds one: "--", "---" or an em dash, then text.
_ATTRIBUTION = re.compile("(?:---?(?!-)|\u2014) *(?=\\S)")
# Markup that docutils parses with a state machine of its own: explicit markup, a field, an option.
_EXPLICIT = re.compile(r"(?:\.\.|__)(?:\s|$)|:[^:\s][^:]{0,40}:(?:\s|$)|(?:--?|/)\w")
_SIMPLE_TABLE_BORDER = re.compile(r"=+(?:\s+=+)+")
_SPACE_RUN = re.compile(" {64,}")  # in a line's text, whose tabs are expanded as docutils does
_LONG_WORD = re.compile(r"\S{64,}")
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+")  # a title's under- or overline, a transition: no inline text
# A custom role's definition, and its name and the role it is based on: `.. role:: name(base)`,
# the names on the directive's line or on the next
_ROLE_DEFINITION = re.compile(r"\.\.\s+role::\s*", re.IGNORECASE)
_ROLE_NAMES = re.compile(r"(?P<name>[^\s(]+)\s*(?:\(\s*(?P<base>[^\s)]+)\s*\))?")
_TOCTREE = re.compile(r"\.\.\s+toctree::", re.IGNORECASE)  # a directive's name is read in any case
_ENUMERATOR = re.compile(r"(\(?)(\d{1,9}|#|[A-Za-z])([.)])")
_REFERENCE_END = re.compile(r"(?<=[\w`\]])__?(?!\w)")
# docutils reads \v and \f as spaces, and breaks lines also where str.splitlines does
# What reads as a rule in markup whose text is not read: a rule or section number at a line's start.
_HIDDEN_RULE = re.compile(r"(?m)^[ \t]*\d{3}\.(?:\d+[a-z]?\.?)?(?=[ \t]|$)")
# at each "|", what runs to the next on its line (a lookahead: "a | b |name|" uses "name" too)
_SUBSTITUTION_USE = re.compile(r"\|(?=([^|\n]{1,200})\|)")
_DOCUTILS_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _list_item(marker: str) -> tuple[tuple, tuple]:
    """The list a marker's item belongs to, and the list the next item must belong to to be
    in the same list (docutils starts a new list, at the cost of a new state machine, for a
    different bullet, a different enumerator format, an ordinal out of sequence: `k.` `m.`)."""
    marker = marker.rstrip()
    enumerator = _ENUMERATOR.fullmatch(marker)
    if enumerator is None:  # a bullet, a field, a line block, a directive; a roman numeral ("ii.") is a new list
        kind = (marker[0],) if len(marker) == 1 else (marker,)
        return kind, kind
    prefix, value, suffix = enumerator.groups()
    style = (prefix, suffix)
    if value == "#":
        return ("#", style), ("#", style)
    if value.isdigit():
        return ("1", style, int(value)), ("1", style, int(value) + 1)
    return (value.isupper(), style, value), (value.isupper(), style, chr(ord(value) + 1))


class _Budget:
    """What the files of one edition would cost docutils, in bytes of plain text it reads in the
    same time (crparse.readers.limits), and their size, each against its limit for an edition."""

    def __init__(self) -> None:
        self.limit = L.max_rst_work()
        self.size_limit = max_input()
        self.work = 0
        self.size = 0
        self.counts = dict.fromkeys(("block", "explicit", "inline", "classifier", "cell", "line", "file"), 0)

    def add_file(self, size: int, shown: str, entry: str, line: int) -> None:
        """A file of `size` bytes that toctree `entry` (at `line` of the index) brings in."""
        self.size += size
        if self.size > self.size_limit:
            raise RefusedInput(
                f"the files of this reST edition come to more than {describe(self.size_limit)} in all, at {shown} "
                f"(toctree entry {entry!r}): the limit for an edition is that for one file (CRPARSE_MAX_INPUT): "
                "raise it to read them", line=line)

    def charge(self, kind: str, count: int, cost: int, place: tuple[str, int | None]) -> None:
        self.counts[kind] += count
        self.work += count * cost
        if self.work > self.limit:
            raise self.refusal(place)

    def refusal(self, place: tuple[str, int | None]) -> RefusedInput:
        words = {"block": "blocks (paragraphs, list items, headings...)", "explicit": "directives, targets, "
                 "fields and lists (a state machine each)", "inline": "inline markup characters", "cell": "table cells",
                 "line": "lines", "file": "toctree entries", "classifier": "term classifiers (`term : classifier`)"}
        counted = ", ".join(f"{n:,} {words[kind]}" for kind, n in self.counts.items() if n or kind == "block")
        return RefusedInput(
            f"more reStructuredText markup than docutils reads in time{place[0]}: {counted} so far count as "
            f"{describe(self.work)} of plain text, past the {describe(self.limit)} an edition may "
            f"(CRPARSE_MAX_RST_WORK; by default {L.RST_WORK_FACTOR:g} times CRPARSE_MAX_INPUT): raise it to read this",
            line=place[1])


# A standalone URI whose scheme needs no "//" ("urn:x", "mailto:a"): docutils makes a reference
# of each of its known schemes, as of "http://" (counted by "://"), and recursed once for each in a
# paragraph (one of 1,000 "urn:" ran past Python's recursion limit; 4 MB of them took 19 s and 1.2 GB:
# sweep 41)
_SCHEMED_URI = re.compile(r"(?<![\w.+-])([A-Za-z][A-Za-z0-9.+-]{0,31}+):(?=[^\s/])")


@cache
def _inline_starts() -> re.Pattern[str]:
    """The characters after which docutils may start inline markup, a URI or an address (its
    Inliner's start_string_prefix, but for spaces): openers and delimiters."""
    from docutils.utils import punctuation_chars

    return re.compile(f"[{punctuation_chars.openers}{punctuation_chars.delimiters}]")


def _schemed(words: str) -> int:
    from docutils.utils.urischemes import schemes

    return sum(1 for match in _SCHEMED_URI.finditer(words) if match[1].lower() in schemes)


def markup_work(text: str) -> int:
    """What a file's text costs docutils, in bytes of plain text it reads in the same time: what
    an edition's budget charges for it, and the run's (crparse.readers.runs) for a file another
    document of the run read first. Counted by the same prescan; a parse charges its count as it
    goes (`_parse`'s before_docutils), this counts one text alone, to tell what a read will cost."""
    budget = _Budget()
    budget.limit = sys.maxsize
    _prescan(text, _File("<text>", text.splitlines(), 0), budget, main=False)
    return budget.work


def _docutils_lines(text: str, lines: list[str]):
    """(line number, line) as docutils will see them: tabs expanded, \\v and \\f spaces, and
    broken also where str.splitlines breaks (U+2028, \\x1c, ...), numbered as ours."""
    if _DOCUTILS_BREAK.search(text) is None:
        for number, line in enumerate(lines, 1):
            yield number, line.expandtabs(8) if "\t" in line else line
        return
    for number, line in enumerate(lines, 1):
        for part in line.replace("\x0b", " ").replace("\x0c", " ").splitlines() or [""]:
            yield number, part.expandtabs(8) if "\t" in part else part


def _cell_depth(cell: str) -> int:
    """How deep the markers at the start of a grid table cell's line nest it."""
    depth = at = 0
    cell = cell.lstrip()
    while (marker := _NESTED_MARKER.match(cell, at)) is not None:
        at = marker.end()
        depth += 1
    return depth


def _prescan(text: str, source: _File, budget: _Budget, main: bool) -> None:
    """Count what `text` would cost docutils into `budget`, refusing the edition at the line where
    it passes the budget, nests deeper than MAX_RST_NESTING, or has a paragraph of more than
    MAX_RST_PARAGRAPH_MARKUP inline markup characters. One pass, a few string operations a line."""
    name = Path(source.path).name

    def place(line: int) -> tuple[str, int | None]:  # the main file's line is the error's, a toctree file's told
        return ("", line) if main else (f" (in {name}, line {line})", None)

    limit, work = budget.limit, budget.work
    line_cost, block_cost, explicit_cost = L.RST_LINE_COST, L.RST_BLOCK_COST, L.RST_EXPLICIT_COST
    inline_cost, file_cost, classifier_cost = L.RST_INLINE_COST, L.RST_FILE_COST, L.RST_CLASSIFIER_COST
    nested_cost, max_nesting, max_markup = L.RST_NESTED_COST, L.MAX_RST_NESTING, L.MAX_RST_PARAGRAPH_MARKUP
    lines = blocks = explicit = inline = classified = cells = attributions = 0
    quote = -1  # the column of the block quote whose attributions are counted
    literal = -1  # the text column of a paragraph ending in "::", whose indented block is literal
    literal_next = False  # whether it is the line before: a literal block starts after a blank line
    roles: dict[str, int] = {}  # the custom roles defined (`.. role:: name(base)`), each one's depth of bases
    role_next = False  # whether the line before is `.. role::` with its name on this line
    stack: list[int] = []  # the columns of the levels of nesting open at the line
    blank, indent = True, -1
    paragraph = 0  # the inline markup characters of the paragraph so far
    items = False  # whether the block began with a list item or explicit markup: a marker then starts the next
    grid = False  # in a grid table, whose `|` are its cells, not a paragraph's markup
    grid_columns: list[int] = []  # where its cells' borders are, from its top border
    grid_at = -1  # the column its top border starts at
    simple, border = 0, False  # the columns of a simple table; whether the line before was its border
    toctree = -1  # the column of a `.. toctree::` whose entries the lines indented under it are
    lists: dict[int, tuple] = {}  # column -> the item that continues the list open there
    term = None  # (column, the list it ended) of a plain line: a definition's term if a deeper line follows
    files = 0
    number = 0
    for number, line in _docutils_lines(text, source.lines):
        lines += 1
        work += len(line) + line_cost
        stripped = line.rstrip()
        content = stripped.lstrip()
        if not content:
            term = None
            if border:
                simple = 0  # a border and a blank line: the end of the simple table
            blank, paragraph, grid, border = True, 0, False, False
            if work > limit:
                break
            continue
        column = len(stripped) - len(content)
        if _SPACE_RUN.search(content) is not None:  # most lines have none
            work += sum(len(run) ** 2 for run in _SPACE_RUN.findall(content)) // L.RST_SPACE_RUN_DIVISOR
        after_blank = blank
        if literal >= 0 and (column <= literal or literal_next and not after_blank):
            literal = -1  # the literal block is over, or the paragraph had none (docutils reads a quote)
        literal_next = False
        in_literal = literal >= 0  # a line indented under the paragraph
        if quote >= 0 and column < quote:
            quote, attributions = -1, 0
        if toctree >= 0:
            if column <= toctree:
                toctree = -1
            elif not content.startswith(":") and main:  # an entry (not an option): a file to look for
                files += 1
                work += file_cost
        new_block = blank or column != indent
        start = new_block or _BLOCK_START.match(content) is not None
        blank, indent = False, column
        while stack and stack[-1] > column:
            stack.pop()
        if not stack or stack[-1] < column:
            stack.append(column)
        markers = at = 0
        first = ""
        if content.startswith(("+-", "+=")):
            if not grid:  # the table's columns: where its top border has a `+`
                grid_columns = [i for i, c in enumerate(content) if c == "+"]
                grid_at = column
            else:  # a border under the top one: a row of cells (a tall table of borders: ~600x its size)
                cells += content.count("+") - 1
                work += (content.count("+") - 1) * block_cost
            grid = True
        if grid and content.startswith("|"):
            # a grid table's row: its `|` at its columns are the cells' borders, not line blocks,
            # and each cell is a document of its own, as deep as its own markers (a row of 15 empty
            # cells was 15 levels, refused: sweep 32); a table in a cell, one level down (the
            # cells of 20 tables one in another were read as one level each: review)
            if column == grid_at and len(grid_columns) > 1:
                row = (content[a + 1:b] for a, b in zip(grid_columns, grid_columns[1:]))
            else:
                row = content.split("|")[1:]
            markers = max(map(_cell_depth, row), default=0)
            stack.extend(range(column + 1, column + 1 + markers))
        else:  # any other line, in a table's block or not (`+-` and an indented list under it)
            while (marker := _NESTED_MARKER.match(content, at)) is not None:
                first = first or marker[0]
                at = marker.end()
                stack.append(column + at)
                markers += 1
        # an attribution follows a blank line in a quote, not a literal block (a paragraph's
        # wrapped lines, a literal block of `-- comment` lines were refused: review)
        if column and after_blank and not in_literal and _ATTRIBUTION.match(content):
            quote = column if quote < 0 else quote
            attributions += 1
            work += explicit_cost
            if attributions > L.MAX_RST_ATTRIBUTIONS:
                where, line_number = place(number)
                raise RefusedInput(
                    f"a reStructuredText block quote with more than {L.MAX_RST_ATTRIBUTIONS} attributions (`-- Name`)"
                    f"{where}: not read (docutils splits a quote at each and reads the rest of it again: its time "
                    "and memory grow with their square; a rule has none)", line=line_number)
        costly = _EXPLICIT.match(content) is not None
        if not in_literal and not costly and stripped.endswith("::"):
            literal, literal_next = column + at, True  # a literal block may follow (not a directive's content)
        role = None
        if role_next:
            role, role_next = _ROLE_NAMES.match(content), False
        elif costly and (directive := _ROLE_DEFINITION.match(content)) is not None:
            role = _ROLE_NAMES.match(content, directive.end())
            role_next = role is None  # the names may start the next line
        if role is not None:
            # each use of a role calls the role it is based on, and that one its own...: 4,800 uses
            # of a role 475 bases deep took 3.3 s for 60 KB (sweep 43)
            depth = roles.get(role["base"].lower(), 0) + 1 if role["base"] else 1
            roles[role["name"].lower()] = depth
            if depth > L.MAX_RST_ROLE_BASES:
                where, line_number = place(number)
                raise RefusedInput(
                    f"a reStructuredText role based on roles more than {L.MAX_RST_ROLE_BASES} deep{where}: not read "
                    "(docutils calls each role through the roles it is based on, at every use; a rule has none)",
                    line=line_number)
        if lists and max(lists) > column:  # the lists nested deeper are over
            lists = {c: kind for c, kind in lists.items() if c <= column}
        if term is not None and term[0] < column:  # the line before is a term, this its definition
            if term[1] != ("definition",):  # a new definition list
                explicit += 1
                work += explicit_cost
            lists[term[0]] = ("definition",)
        term = None
        if first:
            this, following = _list_item(first)
            if lists.get(column) != this and not costly:  # a new list: a new state machine
                explicit += 1
                work += explicit_cost
            lists[column] = following
        elif not costly:
            term = (column, lists.pop(column, None))  # a paragraph ends the list at its column
        if costly and _TOCTREE.match(content):
            toctree = column
        item = markers > 0 or costly
        if new_block:
            paragraph, items = 0, item
        elif item and items:  # the next item of a list: a paragraph of its own (not so after a paragraph)
            paragraph = 0
        if start or markers:
            blocks += max(markers, 1)
            work += block_cost + (markers - 1) * nested_cost if markers > 1 else block_cost
            if costly:
                explicit += 1
                work += explicit_cost
        work += len(stack) * line_cost  # docutils copies a line again at each level it is nested in
        if len(stack) > max_nesting:
            where, line_number = place(number)
            raise RefusedInput(
                f"reStructuredText nested more than {max_nesting} levels deep{where}: not read (block quotes, lists, "
                "directives: docutils recurses, and copies what is nested, at each level)", line=line_number)
        if _SIMPLE_TABLE_BORDER.fullmatch(content):
            if not simple:
                simple = len(content.split())
            elif border:  # a border after a border: docutils makes a row of it (50,000 of 39 columns,
                # 4 MB, took 22 s and 1.5 GB: sweep 46)
                cells += simple
                work += simple * block_cost
            border = True
        elif simple:
            cells += simple
            work += simple * block_cost
            border = False
        words = content[at:] if at else content  # what follows the markers (`* `, `| `) is inline text
        if len(words) >= 64 and not grid and not (start and _ADORNMENT.fullmatch(words)):
            # docutils looks for a URI or an address from each delimiter of a word, to its end (a
            # line of "a-a-a-..." or "----", 2,250 characters: 0.1 s; 401 KB: 18 s, sweep 45): a
            # word costs its delimiters times its length
            starts = _inline_starts()
            work += sum(len(word) * len(starts.findall(word)) for word in _LONG_WORD.findall(words)) \
                // L.RST_LONG_WORD_DIVISOR
        bars = words.count("|")
        marks = (words.count("`") + words.count("*") + words.count("://") + words.count("@")
                 + (len(_REFERENCE_END.findall(words)) if "_" in words else 0)
                 + (_schemed(words) if ":" in words else 0))
        # a term's classifiers ("term : c : c"), each a node of docutils' (~13 us): uncounted, 160
        # terms of 2,000 took 2.3 s and 1.5 GB (sweep 41)
        classifiers = words.count(" : ")
        inline += marks + bars
        classified += classifiers
        work += (marks + bars) * inline_cost + classifiers * classifier_cost
        paragraph += marks if grid else marks + bars
        # docutils looks for each start-string's end in the rest of its paragraph: a line is read
        # again for each markup character before it (500 lines of a "`" and 1 KB of words each,
        # 500 KB, 6 s: sweep 46)
        work += len(words) * paragraph // L.RST_MARKUP_SCAN_DIVISOR
        if paragraph > max_markup:
            where, line_number = place(number)
            raise RefusedInput(
                f"a reStructuredText paragraph with more than {max_markup:,} inline markup characters (` | * _ "
                f"and links){where}: not read (docutils' time for a paragraph grows with their square; a rule "
                "has a few)", line=line_number)
        if work > limit:
            break
    budget.work = work
    for kind, n in (("line", lines), ("block", blocks), ("explicit", explicit), ("inline", inline),
                    ("classifier", classified), ("cell", cells), ("file", files)):
        budget.counts[kind] += n
    if work > limit:
        raise budget.refusal(place(number))


# -- parsing -----------------------------------------------------------------------------------

_registered = False


def _register_sphinx_markup() -> None:
    """Teach docutils the Sphinx directives and roles the CR editions use."""
    global _registered
    if _registered:
        return
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class toctree(nodes.General, nodes.Element):
        pass

    class seealso(nodes.Admonition, nodes.Element):
        pass

    class glossary(nodes.General, nodes.Element):
        pass

    any_option = {name: directives.unchanged for name in (
        "maxdepth", "caption", "name", "hidden", "glob", "titlesonly", "numbered", "includehidden", "reversed", "sorted")}

    class TocTree(Directive):
        has_content = True
        option_spec = any_option

        def run(self):
            node = toctree()
            node["entries"] = [(line.strip(), self.content_offset + i + 1) for i, line in enumerate(self.content) if line.strip()]
            node["glob"] = "glob" in self.options
            node.line = self.lineno
            return [node]

    class Container(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = {"sorted": directives.flag}
        node_class: type = glossary

        def run(self):
            node = self.node_class()
            node.line = self.lineno
            if self.arguments:  # `.. seealso:: :ref:`label``: inline markup, parsed as such
                inline, messages = self.state.inline_text(self.arguments[0], self.lineno)
                node += nodes.paragraph(self.arguments[0], "", *inline)
                node[-1].line = self.lineno
                node += messages
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class SeeAlso(Container):
        node_class = seealso

    class _AnyOption(dict):
        def __missing__(self, name):
            return directives.unchanged

    class Code(Directive):
        """`code`, `code-block`, `sourcecode`: the block's text, one node. docutils' own made a node
        of every Pygments token and, with `:number-lines:`, of every line (200,000 lines: 11 s,
        490 MiB); crparse reads only the text."""

        has_content = True
        optional_arguments = 1
        # any option taken (docutils reads options only where option_spec is not empty)
        option_spec = _AnyOption((name, directives.unchanged) for name in (
            "number-lines", "class", "name", "linenos", "lineno-start", "emphasize-lines", "caption", "dedent", "force"))

        def run(self):
            text = "\n".join(self.content)
            node = nodes.literal_block(text, text)
            node.line = self.content_offset + 1  # its first line, as docutils gives other blocks
            return [node]

    def ref_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        # not a pattern: `.*?\s*<...>` was quadratic in a run of spaces, 20 s for 249 KB (sweep 44)
        title, label = _titled_target(text) or ("", text)
        node = nodes.reference(rawtext, title or label, classes=["crparse-ref"])
        node["label"] = label.strip()
        node["explicit_title"] = bool(title)
        return [node], []

    class Generated(Directive):
        """Directives whose text is docutils' own, not the document's: section numbers put before
        every title, a table of contents, a list of link targets, today's date, a page header or
        footer. Their text went into the rules (`1.1\xa0\xa0\xa0100. General`, today's date in rule
        100.2: output that changed by the day, sweep 20): each is a warning, and makes nothing."""

        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOption()

        def run(self):
            return [self.state_machine.reporter.warning(
                f'"{self.name}" directive not read: the text it makes is not the document\'s', line=self.lineno)]

    _DIRECTIVES.update({name: Code for name in ("code", "code-block", "sourcecode")},
                       toctree=TocTree, glossary=Container, seealso=SeeAlso)
    _DIRECTIVES.update({name: Generated for name in ("sectnum", "section-numbering", "contents", "target-notes",
                                                     "date", "header", "footer")})
    def as_written_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        """`pep` and `rfc`: docutils writes "PEP 8", "RFC 2822" (and drops a `#section-3`),
        text that is not the document's (sweep 21). Read as its content, as an unknown role."""
        which = f'"{name}" role' if name else "default role (pep or rfc)"
        message = inliner.reporter.warning(f"{which} read as its text: the text docutils makes of it is not "
                                           "the document's", line=lineno)
        return [nodes.Text(text)], [message]

    _ROLES.update(ref=ref_role)
    _ROLES.update(dict.fromkeys(("pep", "pep-reference", "rfc", "rfc-reference"), as_written_role))
    globals().update(_toctree=toctree, _seealso=seealso, _glossary=glossary)
    _registered = True


# crparse's own directives and roles, and docutils' standard ones: the only markup a document is
# read with (see _own_markup)
_DIRECTIVES: dict = {}
_ROLES: dict = {}


@contextmanager
def _own_markup():
    """docutils' registries of directives and roles, for one document, as crparse's and docutils'
    own. docutils keeps them in module globals: inside a Sphinx build (crparse docs reading a reST
    release) they held Sphinx's, whose `include` wants a Sphinx environment ("'Values' object has
    no attribute 'env'": the release could not be built), and a `.. role::` of one document was
    still defined in the next."""
    from docutils.parsers.rst import directives, roles

    saved = directives._directives, roles._roles, directives.directive, roles.role
    directives._directives, roles._roles = dict(_DIRECTIVES), dict(_ROLES)
    # Sphinx's build puts its own lookups in place of docutils' (sphinx.util.docutils.sphinx_domains,
    # keeping the one it replaced as `directive_func`, `role_func`): through them `:ref:`,
    # `.. glossary::` and `.. cr:release::` were Sphinx's, and wanted its environment (sweep 28)
    directives.directive, roles.role = _unpatched(directives.directive, "directive_func"), _unpatched(roles.role, "role_func")
    try:
        yield
    finally:
        directives._directives, roles._roles, directives.directive, roles.role = saved


def _unpatched(lookup, kept: str):
    """docutils' own lookup function, from under the dispatchers put in its place."""
    for _ in range(100):  # dispatchers inside dispatchers; never a loop
        dispatcher = getattr(lookup, "__self__", None)
        if dispatcher is None or not callable(getattr(dispatcher, kept, None)):
            return lookup
        lookup = getattr(dispatcher, kept)
    return lookup


def _observed_reader(messages: list):
    """docutils' standalone reader, handing every system message it makes to `messages`: those
    it puts in the tree, and those it leaves out of it (the transforms' own, such as an
    unresolved reference's, which only a writer would place).

    Two of its transforms are quadratic: PropagateTargets (a `.. _label:` names the element after
    it, found with list.index among its siblings, and a run of labels hands each one all those
    before it: 20,000 took minutes) is replaced by a linear one, and Transitions (each `----`
    compared with all its siblings), which only checks where transitions stand, is left out."""
    global _Observed
    if _Observed is None:
        from docutils.readers.standalone import Reader
        from docutils.transforms import misc, references

        class Observed(Reader):
            def new_document(self):
                document = super().new_document()
                document.reporter.attach_observer(self.messages.append)
                return document

            def get_transforms(self):
                return [replaced.get(t, t) for t in super().get_transforms() if replaced.get(t, t) is not None]

        replaced = {references.PropagateTargets: _propagate_targets(), misc.Transitions: None}

        _Observed = Observed
    reader = _Observed(parser="restructuredtext")
    reader.messages = messages
    return reader


_Observed = None


def _propagate_targets():
    """docutils' PropagateTargets, linear: the element after a target is found from positions
    taken once per parent, not by list.index, and a run of targets (`.. _a:` `.. _b:` ... then a
    heading) hands the element after it all their ids and names at once, in docutils' order (the
    last target's first), rather than each target handing on all those before it."""
    from docutils import nodes
    from docutils.transforms.references import PropagateTargets

    def referring(target) -> bool:  # a target docutils leaves where it is
        return (isinstance(target.parent, nodes.TextElement)
                or target.hasattr("refid") or target.hasattr("refuri") or target.hasattr("refname"))

    class LinearPropagateTargets(PropagateTargets):
        def apply(self) -> None:
            positions: dict[int, dict[int, int]] = {}

            def following(node):
                """node.next_node(ascend=True, descend=False): its next sibling, or its parent's."""
                while node.parent is not None:
                    parent = node.parent
                    places = positions.get(id(parent))
                    if places is None:
                        places = positions[id(parent)] = {id(c): i for i, c in enumerate(parent.children)}
                    i = places[id(node)] + 1
                    if i < len(parent.children):
                        return parent.children[i]
                    node = parent
                return None

            # id(target) -> the run of targets just before it: (target, its ids, its names) each
            runs: dict[int, list] = {}
            for target in self.document.findall(nodes.target):
                run = runs.pop(id(target), [])
                if referring(target):
                    self.hand(run, target)
                    continue
                assert len(target) == 0, "error: block-level target has children"
                next_node = following(target)  # no children: the next node is a sibling's
                while isinstance(next_node, nodes.system_message):
                    next_node = following(next_node)
                if (next_node is None
                        or isinstance(next_node, (nodes.Invisible, nodes.Targetable))
                        and not isinstance(next_node, nodes.target)):
                    self.hand(run, target)
                    continue
                run.append((target, list(target["ids"]), list(target["names"])))
                if isinstance(target.parent, nodes.figure) and isinstance(next_node, nodes.caption):
                    self.hand(run, next_node)
                    target.parent.remove(target)
                    positions.pop(id(target.parent), None)
                    continue
                if isinstance(next_node, nodes.target) and not referring(next_node):
                    runs[id(next_node)] = run  # handed on with that target's own, when it comes
                else:
                    self.hand(run, next_node)
                # Its ids and names moved on: it refers to the first of those it had then.
                target["refid"] = next(ids[0] for _, ids, _ in reversed(run) if ids)
                target["ids"] = []
                target["names"] = []
                self.document.note_refid(target)

        def hand(self, run: list, node) -> None:
            """Give `node` the ids and names of the targets of `run`, as docutils' moves from one
            target to the next would have: the last target's first, and for each id and name the
            target that had it first as the one expecting references by it."""
            if not run:
                return
            if not hasattr(node, "expect_referenced_by_name"):
                node.expect_referenced_by_name = {}
            if not hasattr(node, "expect_referenced_by_id"):
                node.expect_referenced_by_id = {}
            for target, ids, names in reversed(run):
                node["ids"].extend(ids)
                node["names"].extend(names)
                for id_ in ids:
                    self.document.ids[id_] = node
                node.expect_referenced_by_id.update(dict.fromkeys(ids, target))
                node.expect_referenced_by_name.update(dict.fromkeys(names, target))
                node.expect_referenced_by_id.update(getattr(target, "expect_referenced_by_id", {}))
                node.expect_referenced_by_name.update(getattr(target, "expect_referenced_by_name", {}))

    return LinearPropagateTargets


# A substitution defined by a replacement text (which may use other substitutions), and a use of
# one: names as docutils compares them (case and inner spaces aside).
_REPLACE = re.compile(r"^\.\.[ \t]+\|(?P<name>[^|\n]+)\|[ \t]+replace::(?P<text>.*(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_USE = re.compile(r"\|(?P<name>[^|\s](?:[^|\n]*[^|\s])?)\|")


def _name(text: str) -> str:
    return " ".join(text.lower().split())


def _expanded(uses: dict[str, list[str]], own: dict[str, int], other: int, cap: int) -> dict[str, int]:
    """Each defined substitution's own amount (`own`; `other` for one not defined) and that of all
    it uses, expanded: what docutils makes of it (a cycle counts once: docutils refuses it). Each
    at most cap + 1."""
    value: dict[str, int] = {}
    for root in uses:
        stack, open_ = [root], {root}
        while stack:  # depth first without recursion: a chain of thousands of definitions
            name = stack[-1]
            pending = [u for u in uses.get(name, ()) if u not in value and u not in open_]
            if pending:
                stack.extend(pending)
                open_.update(pending)
                continue
            value[name] = min(cap + 1, own.get(name, other) + sum(value.get(u, own.get(u, other))
                                                                  for u in uses.get(name, ())))
            stack.pop()
            open_.discard(name)
    return value


def _check_substitutions(text: str) -> None:
    """Refuse the text if its substitutions, each expanded into those it uses, come to more than
    MAX_RST_SUBSTITUTIONS (counted on the definitions, before docutils multiplies them). docutils
    expands the uses inside every definition too: each definition of a chain holds the rest of
    it, N * N / 2 for a chain of N, used or not (1,750 definitions, 54 KB: 9 s and 860 MB: sweep
    45); each is counted where it stands, and each use outside them."""
    uses: dict[str, list[str]] = {}
    definitions: list[tuple[int, int, str]] = []
    for m in _REPLACE.finditer(text):
        uses.setdefault(_name(m["name"]), [_name(u["name"]) for u in _USE.finditer(m["text"])])
        definitions.append((*m.span(), _name(m["name"])))
    if not any(uses.values()):
        return  # no substitution uses another: each use is one node
    limit = L.MAX_RST_SUBSTITUTIONS
    size = _expanded(uses, {}, 1, limit)
    total = 0
    for at, name in _counted_uses(text, definitions, uses):
        total += size.get(name, 1)
        if total > limit:
            raise RefusedInput(
                f"reST substitutions defined by other substitutions that expand into more than {limit:,} in all "
                "(docutils' time for them grows with their square)", line=text.count("\n", 0, at) + 1)


def _counted_uses(text: str, definitions: list[tuple[int, int, str]], uses: dict[str, list[str]]):
    """(offset, name) of what docutils expands: each definition (start, end, name) that uses
    others (once, where it stands), and each use outside a definition (one inside is counted with
    its definition)."""
    expanded, inside = set(), 0
    for m in _USE.finditer(text):
        while inside < len(definitions) and definitions[inside][1] <= m.start():
            inside += 1
        if inside < len(definitions) and definitions[inside][0] <= m.start():
            start, _, name = definitions[inside]
            if start not in expanded and uses.get(name):
                expanded.add(start)
                yield start, name
            continue
        yield m.start(), _name(m["name"])


_DEFINITION = re.compile(r"^\.\.[ \t]+\|(?P<name>[^|\n]+)\|[ \t]+(?P<directive>[\w-]+)::(?P<text>.*(?:\n[ \t]+\S.*)*)",
                         re.MULTILINE)


def _check_substitution_nodes(text: str) -> None:
    """Refuse the text if the uses of its substitutions copy more than MAX_RST_SUBSTITUTION_NODES
    words of their definitions into it (any directive: replace, unicode, image...), a definition
    expanded into those it uses (`replace`'s text is inline markup: chained, each definition
    holds the rest of the chain, and 55 of 100 emphases each took 3.3 s and 313 MB: sweep 45)."""
    weight: dict[str, int] = {}
    length: dict[str, int] = {}
    uses: dict[str, list[str]] = {}
    spans: list[tuple[int, int, str]] = []
    for m in _DEFINITION.finditer(text):
        name = _name(m["name"])
        # its words, and its inline markup characters: "*a*-*a*-..." is one word of many emphases
        weight.setdefault(name, 1 + len(m["text"].split()) + sum(m["text"].count(c) for c in "*`|_[:"))
        length.setdefault(name, len(m["text"]))
        uses.setdefault(name, [_name(u["name"]) for u in _USE.finditer(m["text"])]
                        if m["directive"].lower() == "replace" else [])
        spans.append((*m.span(), name))
    if not weight:
        return
    limit = L.MAX_RST_SUBSTITUTION_NODES
    # ... and their characters: one word of 9,900 characters used 6,750 times, 67 KB, held 1.4 GB
    # (sweep 21). A document's symbols (|T|) copy a few characters each.
    most = max(L.MAX_RST_SUBSTITUTION_TEXT, 2 * len(text))
    if any(uses.values()):
        weight, length = _expanded(uses, weight, 1, limit), _expanded(uses, length, 0, most)
    total = copied = 0
    for at, name in _counted_uses(text, spans, uses):
        total += weight.get(name, 1)
        copied += length.get(name, 0)
        if total > limit:
            raise RefusedInput(
                f"reST substitutions whose uses copy more than {limit:,} words of their definitions into the "
                "document (MAX_RST_SUBSTITUTION_NODES; docutils makes a node of each)",
                line=text.count("\n", 0, at) + 1)
        if copied > most:
            raise RefusedInput(
                f"reST substitutions whose uses copy more than {most:,} characters of their definitions into the "
                "document (MAX_RST_SUBSTITUTION_TEXT, or twice the file's own): the text would not fit in memory",
                line=text.count("\n", 0, at) + 1)


# in any case and with spaces before "::", as docutils reads a directive's name (sweep 31)
_TABLE_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+csv-table[ \t]*::", re.MULTILINE | re.IGNORECASE)


def _check_tables(text: str) -> None:
    """Refuse a csv-table of more than MAX_RST_TABLE_ROWS rows (its indented lines) before docutils
    builds it: its rows are no blocks the prescan counts."""
    rows, cells, scanned = 0, 0, 0
    for m in _TABLE_DIRECTIVE.finditer(text):
        if m.start() < scanned:
            continue  # a table inside a table's content: its lines are counted already
        indent = len(m["indent"].expandtabs(8))
        at = text.find("\n", m.end())
        while at != -1:  # each line read once: the table's content, up to a line indented no deeper
            end = text.find("\n", at + 1)
            line = text[at + 1:end if end != -1 else None]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            rows += 1
            cells += line.count(",") + 1  # a cell a comma or more, quoted or not: never fewer
            if rows > L.MAX_RST_TABLE_ROWS or cells > L.MAX_RST_TABLE_CELLS:
                raise RefusedInput(f"reST csv-tables of more than {L.MAX_RST_TABLE_ROWS:,} rows or "
                                   f"{L.MAX_RST_TABLE_CELLS:,} cells (docutils builds each in full before reading on, "
                                   "at about 2 KB of memory a cell)", line=text.count("\n", 0, m.start()) + 1)
            at = end
        scanned = at if at != -1 else len(text)


def _parse(text: str, source: _File, diagnostics: list[Diagnostic], budget: _Budget, main: bool = True,
           before_docutils: Callable[[int], None] | None = None):
    """The docutils tree of `text`, counted into `budget` first; `before_docutils(work)` is told
    what its markup counted, before docutils reads it."""
    from docutils import nodes

    counted = budget.work
    _prescan(text, source, budget, main)
    if before_docutils is not None:
        before_docutils(budget.work - counted)
    _check_substitutions(text)
    _check_substitution_nodes(text)
    _check_tables(text)
    # Undefined substitutions are the CR's symbols ({T}, {W}): define them after the last line,
    # so that no line moves.
    defined = set(_DEFINED.findall(text))
    symbols = sorted({m["name"] for m in _SUBSTITUTION.finditer(text)} - defined)
    if symbols:
        where = "" if main else f" of {Path(source.path).name}"
        budget.charge("explicit", len(symbols), L.RST_EXPLICIT_COST,
                      (f" with the definitions of its {len(symbols):,} undefined substitutions (|T|){where}", None))
        text += "\n\n" + "\n".join(f".. |{name}| replace:: {{{name}}}" for name in symbols) + "\n"
    messages: list = []
    try:
        with _own_markup():
            document = _publish(text, source, messages)
    except (RecursionError, MemoryError):
        raise  # said by read(), whichever part of the reader ran out
    except Exception as err:  # docutils raises plain exceptions for malformed markup
        said = " ".join(str(err).split()) or type(err).__name__
        where = "" if main else f"{Path(source.path).name}: "
        raise RefusedInput(f"cannot read this reStructuredText: {where}{said}",
                           line=getattr(err, "line", None) if main else None) from None
    # Level 1 is docutils' INFO: notes on sound markup (a list starting at "m", an unreferenced
    # target), which every edition has.
    for message in messages:
        too_long = _LINE_LENGTH_LIMIT.fullmatch(_message_text(message))
        if too_long:  # docutils then drops the whole document: the refusal says why
            where = "a line" if main else f"{Path(source.path).name}: line {too_long[1]}"
            raise RefusedInput(f"{where} longer than the 10,000 characters docutils reads in a line (its "
                               "line_length_limit): the file is not read", line=int(too_long[1]) if main else None)
        if message["level"] >= 2:
            line = _message_line(message, document, len(source.lines))
            diagnostics.append(Diagnostic(line and line + source.offset, "warning", "rst-markup",
                                          f"{Path(source.path).name}: {_message_text(message)}"))
    # Out of the tree, each parent's children filtered once: removing them one by one (list.remove)
    # is quadratic in a paragraph of thousands of messages.
    parents = {id(message.parent): message.parent for message in document.findall(nodes.system_message)}
    for parent in parents.values():
        parent.children = [child for child in parent.children if not isinstance(child, nodes.system_message)]
    return document


_LINE_LENGTH_LIMIT = re.compile(r"Line (\d+) exceeds the line-length-limit\.")


# What str.splitlines ends a line at besides CR and LF: docutils splits its input so, crparse's
# lines end at CR and LF only, and every node after one was placed that many lines down (a rule
# at a line past the end of the file, lines placed twice: sweep 14). Given to docutils as spaces.
_OTHER_LINE_ENDS = dict.fromkeys(map(ord, "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), " ")
_OTHER_LINE_END = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _publish(text: str, source: _File, messages: list):
    from docutils.core import publish_doctree

    if _OTHER_LINE_END.search(text):  # rare: translate costs a pass in Python's loop
        text = text.translate(_OTHER_LINE_ENDS)
    return publish_doctree(
        text,
        source_path=source.path,
        reader=_observed_reader(messages),
        settings_overrides={
            "report_level": 5,
            "halt_level": 5,
            "warning_stream": io.StringIO(),
            # The input names the files and URLs that include, raw and csv-table would read:
            # none is read (the toctree's files are read above, confined to the edition).
            "file_insertion_enabled": False,
            "raw_enabled": False,
            "input_encoding": "unicode",
            "_disable_config": True,  # nor docutils.conf files, nor DOCUTILSCONFIG
            # A chapter file's one top-level section is a chapter, not the file's title.
            "doctitle_xform": False,
            "docinfo_xform": False,
            # A code block's text is all crparse reads of it: Pygments made a node of every token
            # (1 MB of code: 38 s and 950 MiB), past what the pre-scan counts.
            "syntax_highlight": "none",
        },
    )


def _message_line(message, document, lines: int) -> int | None:
    """A message's line. A transform's message about markup in several places (five anonymous
    references, no target) is given the end of the input: the first of those places says
    more, and a line past the end would be read as one of the next file's."""
    line = message.get("line")
    if not line or line > lines:
        refs = [document.ids.get(ref) for ref in message.get("backrefs", ())]
        line = next((_first_line(node) for node in refs if node is not None), line)
    return min(line, max(lines, 1)) if line else None


def _message_text(message) -> str:
    """The message alone: not its header (path, line, level), the markup it quotes, or its
    pointer to docutils' internals."""
    from docutils import nodes

    first = message.children[0] if message.children else message
    text = first.astext() if isinstance(first, nodes.paragraph) else message.astext()
    return " ".join(text.replace('See "backrefs" attribute for IDs.', "").split())


def _toctree_entries(document) -> list[tuple[str, int, bool]]:
    """Each toctree entry, its line, and whether its toctree has `:glob:`."""
    return [(entry, line, node["glob"]) for node in document.findall(_toctree)  # type: ignore[name-defined]
            for entry, line in node["entries"]]


def _section_numbers(documents, files: list[_File], diagnostics: list[Diagnostic]) -> dict[int, str]:
    """id(section) -> its number: a rule's from its title; a numbered section's (`800`) from the
    first rule inside, a chapter's (`8`) from its first numbered section. Each computed once,
    innermost first. The Contents, where the edition has one, numbers the headings that hold no
    rules, and is checked against the others."""
    from docutils import nodes

    entries = _contents_entries(documents, files)
    listed, unmatched = _match_contents(documents, entries or [], diagnostics)
    if listed is None:  # too long a Contents to match: read as if there were none
        entries, listed, unmatched = None, {}, []
    numbers: dict[int, str] = {}
    from_paragraphs = False
    derived: list[tuple[int, str]] = []  # (line, number) of the headings the Contents did not number
    for document, source in zip(documents, files):
        # Reversed document order visits every section after all the sections inside it.
        for section in reversed(list(document.findall(nodes.section))):
            title = _title_text(section)
            match = _RULE_TITLE.fullmatch(title)
            if match:
                numbers[id(section)] = match["number"]
                continue
            own = _NUMBERED_HEADING.fullmatch(title)
            if own:  # its own number, not one taken from the rules under it (which gave "100. 100. General")
                numbers[id(section)] = own["number"]
                continue
            rule, paragraph = _first_rule(section, numbers)
            first = next((numbers[id(c)] for c in section.children
                          if isinstance(c, nodes.section) and len(numbers.get(id(c), "")) == 3), None)
            if rule is not None:
                number, below = rule.split(".")[0], f"its first rule is {rule}"
                from_paragraphs |= paragraph
            elif first is not None:
                number, below = first[0], f"its first section is {first}"
            else:
                if id(section) in listed:  # a heading with no rules under it: only the Contents numbers it
                    numbers[id(section)] = listed[id(section)][0]
                continue
            numbers[id(section)] = number
            line = _first_line(section.next_node(nodes.title)) - 1 + source.offset
            entry = listed.get(id(section))
            if entries is None:
                derived.append((line, number))
            elif entry is None:
                diagnostics.append(Diagnostic(line, "info", "rst-heading-number",
                                              f"{title!r} is not in the Contents; {below}: numbered {number}"))
            elif entry[0] != number:
                diagnostics.append(Diagnostic(line, "warning", "rst-heading-number",
                                              f"the Contents (line {entry[1]}) numbers {title!r} {entry[0]}, "
                                              f"but {below}: numbered {number}"))
    # Without a Contents the rules are the only numbers there are. The Sphinx editions, whose
    # rules are headings, number their headings that way by design: nothing to report there.
    if derived and from_paragraphs:
        parts = sum(1 for _, n in derived if len(n) == 1)
        diagnostics.append(Diagnostic(min(line for line, _ in derived), "info", "rst-heading-number",
                                      f"no numbered Contents: the numbers of {parts} part(s) and {len(derived) - parts} "
                                      "section(s) are taken from the rules under their headings"))
    for number, text, line in unmatched:
        diagnostics.append(Diagnostic(line, "info", "rst-heading-number",
                                      f"Contents entry {number}. {text!r} names no heading of the document"))
    return numbers


def _first_rule(section, numbers: dict[int, str]) -> tuple[str | None, bool]:
    """The number of the first rule directly under a heading, and whether that rule is a
    paragraph (`100.1. These Magic rules ...`) rather than a heading of its own (`100.1`)."""
    from docutils import nodes

    for child in section.children:
        if isinstance(child, nodes.section) and "." in numbers.get(id(child), ""):
            return numbers[id(child)], False
        if isinstance(child, nodes.paragraph):
            match = S.RULE.match(child.astext())
            if match:
                return match["number"], True
    return None, False


def _contents_entries(documents, files: list[_File]) -> list[tuple[str | None, str, int]] | None:
    """(number, title, line) of each entry of the edition's Contents list, in order: a list
    (bullet or enumerated, nested or not) of references to the headings. None without one, or
    with one that gives no numbers."""
    from docutils import nodes

    contents, offset = next(((section, source.offset) for document, source in zip(documents, files)
                             for section in document.findall(nodes.section)
                             if S.CONTENTS_HEADING.match(_title_text(section))), (None, 0))
    if contents is None:
        return None
    entries: list[tuple[str | None, str, int]] = []
    places: dict[int, dict[int, int]] = {}  # id(list) -> id(item) -> its place: not list.index, quadratic
    for item in contents.findall(nodes.list_item):
        if not item.children or not isinstance(item[0], nodes.paragraph):
            continue  # `* 1. Title`: the number and title are the inner enumerated list's
        text = " ".join(_plain(item[0]).split())
        listing = item.parent
        number = None
        if isinstance(listing, nodes.enumerated_list) and listing.get("enumtype") == "arabic":
            if id(listing) not in places:
                places[id(listing)] = {id(c): i for i, c in enumerate(listing.children)}
            number = str(listing.get("start", 1) + places[id(listing)][id(item)])
        else:
            match = _CONTENTS_LINE.fullmatch(text)  # `* 100\. Title`, the number escaped
            if match:
                number, text = match["number"], match["title"]
        entries.append((number, text, _first_line(item[0]) + offset))
    # a list of titles alone (what `.. contents::` would make) numbers nothing
    return entries if any(number for number, _, _ in entries) else None


def _match_contents(documents, entries, diagnostics: list[Diagnostic]
                    ) -> tuple[dict[int, tuple[str, int]] | None, list[tuple[str, str, int]]]:
    """id(heading) -> (number, line) of its Contents entry, and the numbered entries that name no
    heading. Titles repeat ("General" in every chapter), so entries are aligned with the headings
    in order rather than looked up by title: by difflib, which is worse than quadratic, so not
    past MAX_RST_CONTENTS_PAIRS entries times headings (None then: the Contents numbers nothing)."""
    from docutils import nodes

    headings = [s for d in documents for s in d.findall(nodes.section) if not _RULE_TITLE.fullmatch(_title_text(s))]
    if len(entries) * len(headings) > L.MAX_RST_CONTENTS_PAIRS:
        diagnostics.append(Diagnostic(
            entries[0][2], "warning", "rst-heading-number",
            f"the Contents ({len(entries):,} entries) is not matched with the {len(headings):,} headings: more "
            f"pairs than the {L.MAX_RST_CONTENTS_PAIRS:,} it is matched within (MAX_RST_CONTENTS_PAIRS); "
            "the rules number the headings"))
        return None, []

    def key(text: str) -> str:  # "The *Magic* Golden Rules" in the Contents, "The Magic Golden Rules" above
        return " ".join(re.findall(r"[^\W_]+", text.casefold()))

    matcher = difflib.SequenceMatcher(None, [key(e[1]) for e in entries], [key(_title_text(h)) for h in headings],
                                      autojunk=False)  # in a long document it would drop "General", the commonest title
    listed: dict[int, tuple[str, int]] = {}
    matched: set[int] = set()
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            number, _, line = entries[a + k]
            matched.add(a + k)
            if number is not None:
                listed[id(headings[b + k])] = (number, line)
    unmatched = [(n, title, line) for i, (n, title, line) in enumerate(entries) if i not in matched and n is not None]
    return listed, unmatched


def _plain(node) -> str:
    """A node's text, unresolved references taken for their titles."""
    from docutils import nodes

    if isinstance(node, nodes.problematic):
        return _unmarked(node.astext())
    if isinstance(node, nodes.Text):
        return node.astext()
    return "".join(_plain(child) for child in node.children)


def _titled_target(text: str) -> tuple[str, str] | None:
    """The title and the target of `Title <target>` (the title may be empty); None unless the
    text ends in a `<target>` holding neither "<" nor ">". String methods, not a pattern: the
    pattern (`.*?\\s*<[^<>]+>`, matched whole) retried the run of spaces before the "<" at every
    end of the title, about a second of CPU for 1,000 spaces and growing as the cube."""
    if not text.endswith(">"):
        return None
    at = text.rfind("<")
    target = text[at + 1 : -1]
    if at < 0 or not target or ">" in target:
        return None
    # str.rstrip() strips exactly what the pattern's \s matched: both are str.isspace().
    return text[:at].rstrip(), target


def _unmarked(text: str) -> str:
    """The text of a `problematic` node: what is left of markup docutils could not resolve."""
    role = _ROLE_MARKUP.fullmatch(text)
    if role:
        content = role["before"] if role["before"] is not None else role["after"]
        titled = _titled_target(content) if (role["role"] or role["role_after"]) in _REFERENCE_ROLES else None
        return (titled[0] or titled[1]) if titled else content
    return _REFERENCE_MARKUP.sub(lambda m: m["title"].rstrip() if m["title"] is not None else m["name"], text)


def _labels(documents, numbers: dict[int, str]) -> tuple[dict[str, str], dict[str, str]]:
    """label -> the number of the rule or section it names; section number -> its title."""
    from docutils import nodes

    found: dict[str, str] = {}
    titles: dict[str, str] = {}
    for document in documents:
        for section in document.findall(nodes.section):
            number = numbers.get(id(section))
            if number:
                for name in section["names"] + section["ids"]:
                    found.setdefault(name, number)
                title = _title_text(section)
                if not _RULE_TITLE.fullmatch(title):
                    titles.setdefault(number, title)
    return found, titles


def _title_text(section) -> str:
    from docutils import nodes

    title = section.next_node(nodes.title)
    # a section's number is read from its title here, before the block stage takes out what is
    # invisible before a line's text: "\u200b100. General" was no section 100 (sweep 21)
    return visible_start(_plain(title)).strip() if title is not None else ""


# -- writing CR-shaped lines ---------------------------------------------------------------------


@dataclass
class _Writer:
    numbers: dict[int, str]  # id(section) -> number, from _section_numbers
    labels: dict[str, str]
    titles: dict[str, str]
    diagnostics: list[Diagnostic]
    lines: list[str] = field(default_factory=list)
    origin: list[Span] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    offset: int = 0
    places: dict[int, dict[int, int]] = field(default_factory=dict)  # id(chapter) -> id(section) -> its place
    source: _File | None = None  # the file being written: its lines, where a block starts
    hidden: Counter = field(default_factory=Counter)  # file name -> markup in it that holds what reads as rules
    _uses: Counter | None = None  # the file's `|name|` uses, by name (substituted)

    def emit(self, text: str, first: int, last: int | None = None, blank: bool = True) -> None:
        first += self.offset
        last = (last + self.offset) if last is not None else first
        self.lines.append(text)
        self.origin.append((first, max(first, last)))
        if blank:
            self.lines.append("")
            self.origin.append((first, first))

    def document(self, document, source: _File) -> None:
        from docutils import nodes

        self.offset = source.offset
        self.source = source
        self._uses = None
        leading = True
        for child in document.children:
            if leading and isinstance(child, nodes.field_list):
                # Sphinx reads a field list that opens a file (":tocdepth: 3", ":orphan:") as the file's
                # metadata, not its text: taken as text, it became the release's title
                continue
            leading = leading and isinstance(child, (nodes.comment, nodes.target, nodes.substitution_definition))
            if isinstance(child, nodes.title):
                self.title(child)
            else:
                self.body(child, rule=None)

    # Sections: chapters, numbered sections, rules, and unnumbered ones (Introduction, Credits).
    def section(self, section) -> None:
        from docutils import nodes

        title = section.next_node(nodes.title)
        text = visible_start(self.inline(title)).strip()
        match = _RULE_TITLE.fullmatch(text)
        explicit = section.document.nametypes if section.document is not None else {}
        for name in section["names"]:
            if explicit.get(name) and name in self.labels:
                self.links.append(Link(_first_line(title) - 1 + self.offset, "label", name, name, self.labels[name]))
        if match:
            self.rule(section, title, match)
            return
        number = self.numbers.get(id(section)) or self.implicit_number(section)
        printed = _PRINTED_NUMBER.fullmatch(text)
        if printed and printed["number"] == number:
            text = printed["title"]  # printed in the heading already, with its dot or without ("100 General")
        self.emit(f"{number}. {text}" if number else text, _first_line(title) - 1, _first_line(title))
        for child in section.children:
            if child is not title:
                self.body(child, rule=None)

    def implicit_number(self, section) -> str | None:
        """A section with no rules of its own ("600. General") is numbered by its place in its
        chapter: the chapter's sections are d00, d01, ... in order."""
        from docutils import nodes

        parent = section.parent
        if not isinstance(parent, nodes.section):
            return None
        chapter = self.numbers.get(id(parent))
        if chapter is None or len(chapter) != 1:
            return None
        places = self.places.get(id(parent))
        if places is None:  # taken once for each chapter: list.index for each section is quadratic
            siblings = [c for c in parent.children if isinstance(c, nodes.section)]
            places = self.places[id(parent)] = {id(c): i for i, c in enumerate(siblings)}
        return f"{int(chapter) * 100 + places[id(section)]}"

    def title(self, title) -> None:
        self.emit(self.inline(title).strip(), max(1, _first_line(title) - 1), _first_line(title))

    def rule(self, section, title, match) -> None:
        from docutils import nodes

        number = match["number"]
        body = [c for c in section.children if c is not title]
        head = number if number[-1].isalpha() else number + "."  # "800.4." and "800.4a", as printed
        first_line, last_line = _first_line(title) - 1, _first_line(title)
        if match["title"]:
            text = match["title"]
        elif body and isinstance(body[0], nodes.paragraph):
            paragraph = body.pop(0)
            text = self.inline(paragraph)
            last_line = _last_line(paragraph)
        else:
            text = ""
        self.paragraph(f"{head} {text}".rstrip(), title, first_line, last_line)
        for child in body:
            self.body(child, rule=number)

    def body(self, node, rule: str | None) -> None:
        from docutils import nodes

        if isinstance(node, nodes.section):
            self.section(node)
        elif isinstance(node, nodes.paragraph):
            self.paragraph(self.inline(node), node)
        elif isinstance(node, nodes.enumerated_list):
            self.enumerated(node, rule)
        elif isinstance(node, _seealso):  # type: ignore[name-defined]
            self.seealso(node)
        elif isinstance(node, nodes.Admonition):
            self.admonition(node, rule)
        elif isinstance(node, _glossary) or isinstance(node, nodes.definition_list):  # type: ignore[name-defined]
            for child in node.children:
                self.body(child, rule)
        elif isinstance(node, nodes.definition_list_item):
            self.definition(node)
        elif isinstance(node, (nodes.literal_block, nodes.line_block, nodes.doctest_block)):
            texts = node.astext().split("\n")
            line = self.block_start(node, texts)
            for i, text in enumerate(texts):
                if text.strip():
                    self.emit(text, line + i, blank=False)
            self.emit("", line, blank=False)
        elif isinstance(node, (nodes.docinfo, nodes.field_list)):
            for entry in node.children:
                if isinstance(entry, nodes.field):
                    name, value = entry.children[0].astext(), entry.children[1].astext()
                else:  # docinfo's own elements: author, date, ...
                    name, value = entry.tagname.capitalize(), entry.astext()
                line = _first_line(entry)
                self.emit(f"{name}: {' '.join(value.split())}", line, line + entry.rawsource.count("\n"))
        elif isinstance(node, (nodes.target, nodes.substitution_definition, nodes.comment, nodes.system_message,
                               _toctree)):  # type: ignore[name-defined]
            self.not_read(node)
            return  # markup without text of its own: its lines become "markup" residue
        elif isinstance(node, (nodes.Element,)) and node.children:
            for child in node.children:
                self.body(child, rule)
        elif isinstance(node, nodes.Text) and node.astext().strip():
            self.emit(node.astext(), _first_line(node.parent))
        elif isinstance(node, nodes.Element):  # an image, a meta: their text is attributes'
            self.not_read(node)

    def not_read(self, node) -> None:
        """Notes markup whose text is not read that holds what reads as rules (a rule or section
        number at a line's start): a comment, a target, a substitution never used, an image's alt
        text, a meta's content went to the residue as markup without a word, where HTML's and
        Markdown's comments are warned (sweep 24)."""
        from docutils import nodes

        if isinstance(node, (nodes.target, nodes.system_message)) or type(node).__name__ == "toctree":
            return  # a label named like a rule ("_100.1:") is a label; messages are said already
        if isinstance(node, nodes.comment):
            texts = [node.astext()]
        elif isinstance(node, nodes.substitution_definition):  # its text is read where it is used
            texts = [node.astext()] if not any(self.substituted(name) for name in node["names"]) else []
        else:
            texts = [str(node.get(name) or "") for name in ("alt", "content")]
        if any(_HIDDEN_RULE.search(text) for text in texts):  # docutils gives a comment no line of its own
            self.hidden[self.source.path if self.source is not None else ""] += 1

    def substituted(self, name: str) -> bool:
        """Whether the file being written uses the substitution `name` (`|name|` besides its
        definition): counted once a file, in one pass."""
        if self._uses is None:
            text = "\n".join(self.source.lines) if self.source is not None else ""
            self._uses = Counter(" ".join(m.split()).lower() for m in _SUBSTITUTION_USE.findall(text))
        return self._uses[" ".join(name.split()).lower()] > 1

    def block_start(self, node, texts: list[str]) -> int:
        """The source line of a block's first line. docutils gives a `code` directive's block the
        line after it (a block ending the file was placed past its end: exit 3), other blocks their
        first line: the first text line is looked for at the line given and the lines before it."""
        line = _first_line(node)
        lines = self.source.lines if self.source is not None else []
        first = next((t.strip() for t in texts if t.strip()), None)
        if first is None or not lines:
            return max(1, min(line, len(lines) or line))
        last = len(texts) - 1 - next(i for i, t in enumerate(reversed(texts)) if t.strip())

        def fits(start: int) -> bool:  # its first and last lines of text where they would be
            return (1 <= start and start + last <= len(lines) and lines[start - 1].strip() == first
                    and lines[start + last - 1].strip() == texts[last].strip())

        # where each kind of block says it is (its first line; its last line; the line after it),
        # then the nearest start before that
        guesses = (line, line - last, line - last - 1)
        for start in (*guesses, *range(min(line, len(lines)), max(0, line - len(texts) - 64), -1)):
            if fits(start):
                return start
        return max(1, min(line, len(lines)))

    def paragraph(self, text: str, node, first: int | None = None, last: int | None = None) -> None:
        """A paragraph; an "Example:" run into it (the edition lost the line break before some
        examples) is split off, as the text release prints it."""
        first = _first_line(node) if first is None else first
        last = _last_line(node) if last is None else last
        parts = _RUN_IN_EXAMPLE.split(text)
        for part in parts:
            self.emit(part, first, last)
        if len(parts) > 1:
            self.diagnostics.append(Diagnostic(first + self.offset, "info", "rst-run-in-example",
                                               f"{len(parts) - 1} example(s) run into the paragraph before; split off"))

    def enumerated(self, node, rule: str | None) -> None:
        from docutils import nodes

        start = node.get("start", 1)
        lettered = node.get("enumtype") == "loweralpha" and rule is not None
        for i, item in enumerate(node.children):
            if not isinstance(item, nodes.list_item):
                continue
            if lettered:
                marker = rule + chr(ord("a") + start - 1 + i)
            else:
                marker = _enumerator(node, start + i)
            children = list(item.children)
            if children and isinstance(children[0], nodes.paragraph):
                paragraph = children.pop(0)
                self.paragraph(f"{marker} {self.inline(paragraph)}", paragraph, _first_line(item), _last_line(paragraph))
            else:
                self.emit(marker, _first_line(item))
            for child in children:
                self.body(child, rule)

    def admonition(self, node, rule: str | None) -> None:
        from docutils import nodes

        title = node.next_node(nodes.title)
        label = self.inline(title).strip() if title is not None else node.tagname.capitalize()
        paragraphs = [c for c in node.children if c is not title]
        first = True
        for child in paragraphs:
            if first and isinstance(child, nodes.paragraph):
                self.emit(f"{label}: {self.inline(child)}", _first_line(node), _last_line(child))
                first = False
            else:
                self.body(child, rule)

    def definition(self, item) -> None:
        from docutils import nodes

        term: list = []  # the term's text and line, and its classifiers' texts
        for child in item.children:
            if isinstance(child, nodes.classifier) and term:
                # "a spell : only in the main phase" on a term line: docutils makes the words after
                # " : " a classifier, which went nowhere without a word (sweep 41)
                term[0] += " : " + self.inline(child)
                continue
            if term:
                self.emit(term[0], term[1], blank=False)
                term = []
            if isinstance(child, nodes.term):
                term = [self.inline(child), _first_line(child)]
            elif isinstance(child, nodes.definition):
                for block in child.children:
                    if isinstance(block, nodes.paragraph):
                        self.emit(self.inline(block), _first_line(block), _last_line(block), blank=False)
                    elif isinstance(block, nodes.enumerated_list):
                        for i, sense in enumerate(block.children):
                            self.emit(f"{_enumerator(block, block.get('start', 1) + i)} {self.inline(sense)}",
                                      _first_line(sense), blank=False)
                    else:
                        self.body(block, None)
        if term:
            self.emit(term[0], term[1], blank=False)
        self.emit("", _first_line(item), blank=False)

    def seealso(self, node) -> None:
        """A `seealso` block is a list of references: kept as Links, not as rule text."""
        from docutils import nodes

        line = _first_line(node) + self.offset
        refs = list(node.findall(lambda n: isinstance(n, nodes.reference) and "crparse-ref" in n["classes"]))
        for ref in refs:
            label = ref["label"]
            self.links.append(Link(line, "seealso", ref.astext(), label, self.labels.get(label) or link_to_rule(label)))
        if not refs:
            for match in _NUMBER_IN_TEXT.finditer(node.astext()):
                self.links.append(Link(line, "seealso", match[0], match[0], match[0]))

    def inline(self, node) -> str:
        """The text of an element, inline markup removed, `:ref:` roles resolved."""
        from docutils import nodes

        out: list[str] = []
        for child in node.children:
            if isinstance(child, nodes.system_message):  # a diagnostic already, never text
                continue
            if isinstance(child, nodes.Text):
                out.append(self.repaired(child.astext(), node))
            elif isinstance(child, nodes.reference) and "crparse-ref" in child["classes"]:
                label = child["label"]
                target = self.labels.get(label) or link_to_rule(label)
                text = child.astext() if child["explicit_title"] or target is None else target
                self.links.append(Link(_first_line(node) + self.offset, "ref", text, label, target))
                out.append(text)
            elif isinstance(child, nodes.reference) and child.get("refuri"):
                text = self.inline(child)
                self.links.append(Link(_first_line(node) + self.offset, "link", text, child["refuri"], link_to_rule(child["refuri"]) if child["refuri"].startswith("#") else None))
                out.append(text)
            elif isinstance(child, nodes.problematic):
                out.append(_unmarked(child.astext()))
            elif isinstance(child, nodes.Element):
                out.append(self.inline(child))
        return " ".join("".join(out).split("\n")) if out else ""

    def repaired(self, text: str, node) -> str:
        if ", " in text:
            text = _TITLE_DAMAGE.sub(lambda m: self.retitled(m, node), text)
        if ":ref:" not in text or not _DAMAGED_REF.search(text):
            return text
        line = _first_line(node) + self.offset
        for word in re.findall(r"\w*:ref:\w*", text):
            self.diagnostics.append(Diagnostic(line, "info", "rst-ref-damage",
                                               f"{word!r} repaired to {word.replace(':ref:', 'ref')!r}"))
        return _DAMAGED_REF.sub("ref", text)

    def retitled(self, match: re.Match, node) -> str:
        title = self.titles.get(match["number"])
        if title is None:
            return match[0]
        after = match["after"]
        if match["quote"]:
            punctuation = ""
        else:
            punctuation = "," if after.strip()[:1].isalpha() else "."
        fixed = f'{match["kind"]} {match["number"]}, "{title}{punctuation}"{match["stop"] if match["quote"] else ""}{after}'
        self.diagnostics.append(Diagnostic(_first_line(node) + self.offset, "info", "rst-title-damage",
                                           f"{match[0].strip()!r} repaired to {fixed.strip()!r} (the cited title was replaced by its number)"))
        return fixed


def _enumerator(node, value: int) -> str:
    kind = node.get("enumtype", "arabic")
    if kind == "loweralpha":
        text = chr(ord("a") + value - 1)
    elif kind == "upperalpha":
        text = chr(ord("A") + value - 1)
    else:
        text = str(value)
    return f"{node.get('prefix', '')}{text}{node.get('suffix', '.')}"


def _first_line(node) -> int:
    """The node's line, or its nearest ancestor's: docutils leaves `line` unset on some nodes."""
    while node is not None and node.line is None:
        node = node.parent
    return node.line if node is not None else 1


def _last_line(node) -> int:
    return _first_line(node) + node.rawsource.count("\n") if node.rawsource else _first_line(node)
