"""The pytest plugin (entry point `pytest11`): `pytest --cr-examples PATH` collects every worked
example of the documents at PATH (a file or a directory of them) as a test item named by the
document, the rule and the example's place, runs it against the reference rules model under the
document's rules date, and on failure shows the example's text and the outcome that failed.
An example the grammar or the model cannot take yet is skipped, with the reason.

With --cr-examples, only the examples are collected (the paths given on the command line, if
any, are replaced by PATH).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest


def pytest_addoption(parser) -> None:
    group = parser.getgroup("crparse", "Comprehensive Rules examples")
    group.addoption("--cr-examples", metavar="PATH", help="collect the worked examples of the CR documents at PATH")
    group.addoption("--cr-rules-date", metavar="DATE", help="run them under this rules date (a month or a year: the "
                    "rules in force at its end; default: each document's)")
    group.addoption("--cr-rule", metavar="NUMBER", help="only the examples of this rule")
    group.addoption("--cr-db", metavar="PATH", help="the store that identifies an undated fragment's release "
                    "(default: crparse's cache location, if built)")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args) -> None:
    """With --cr-examples, no conftest.py at all, from the first: pytest loads the conftest.py
    files of the directory it is started in and of its `test*` directories before any plugin is
    configured (a documents' directory named testdata had its conftest.py imported), and, in the
    form `--cr-examples PATH`, of the directories PATH and it share (sweep 22)."""
    if getattr(early_config.known_args_namespace, "cr_examples", None) is not None:  # even empty (sweep 24)
        early_config.known_args_namespace.noconftest = True


def pytest_configure(config) -> None:
    date = config.getoption("--cr-rules-date", default=None)
    if date:  # checked once, not an error in every example
        from crparse.dates import FORMS, period
        from crparse.errors import quoted

        if period(date) is None:
            raise pytest.UsageError(f"--cr-rules-date {quoted(date)} is not a date ({FORMS})")
    path = config.getoption("--cr-examples", default=None)
    if path == "":  # tested for truth, an empty PATH turned the plugin off: pytest collected the
        # directory it was started in, its conftest.py and test_*.py (sweep 24)
        raise pytest.UsageError("--cr-examples: the PATH given is empty")
    if path and not os.path.isdir(path) and (Path(path).suffix.lower() in _CODE or Path(path).name.startswith(".")):
        # pytest collects a file given to it as it is: a .py one was imported, and its package's
        # __init__.py, a conftest.py too (sweep 25). A file of any other name is read as a CR
        # document, as in a directory (one without a document's suffix was refused: sweep 41).
        raise pytest.UsageError(f"--cr-examples: {path} is not a directory nor a CR document (Python code, or "
                                "a hidden file)")
    if path is not None:
        # a setting the CLI refuses (exit 2, one line) made every document a refusal, passed over
        # as no CR document: "no tests ran", saying nothing of why (sweep 37)
        from crparse.limits import check_settings

        errors, _ = check_settings(os.environ)
        if errors:
            raise pytest.UsageError(f"--cr-examples: {errors[0]}")
        global _ACTIVE
        _ACTIVE = True
    if path and not os.path.isdir(path):
        # a FIFO or a device named so: pytest said "not found", in two lines, of a file that is
        # there (sweep 28); crparse reads regular files only
        from crparse.inputs import file_kind

        try:
            kind = file_kind(os.stat(path).st_mode)
        except (OSError, ValueError) as err:
            raise pytest.UsageError(f"--cr-examples: {path}: cannot be read: {getattr(err, 'strerror', None) or err}") \
                from None
        if kind is not None:
            raise pytest.UsageError(f"--cr-examples: {path}: not a regular file ({kind})")
    if path:
        _configured_from_here(config, path)
        # absolute, not resolved: a PATH that is a link is collected where it is, not where its
        # target lies, whose conftest.py was imported (sweep 19)
        config.args[:] = [_collection_argument(path)]
        config.addinivalue_line("markers", "cr_example: a worked example of the Comprehensive Rules")
        # A document is no doctest: pytest's doctest plugin ran the ">>>" lines of the documents
        # given to it as paths, and read them as UTF-8, ending the run on a cp1252 release (sweep 18)
        doctest = config.pluginmanager.get_plugin("doctest")
        if doctest is not None:
            config.pluginmanager.unregister(doctest)
        # No conftest.py of the documents' at all: one in PATH's parent directory ran (sweep 19),
        # and one beside the documents, or beside a link's target (sweep 21). A conftest.py is
        # code of a test suite; PATH holds documents, which are data. pytest has no public way to
        # set --confcutdir or --noconftest once it has started: as a fallback, none above PATH.
        if hasattr(config.pluginmanager, "_noconftest"):
            config.pluginmanager._noconftest = True
        if hasattr(config.pluginmanager, "_confcutdir"):
            top = os.path.abspath(path)
            config.pluginmanager._confcutdir = Path(top if os.path.isdir(top) else os.path.dirname(top))


_ACTIVE = False  # --cr-examples given in this session


def pytest_unconfigure(config) -> None:
    global _ACTIVE
    _ACTIVE = False  # the next session in this process (pytest.main called again) decides for itself


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo) -> None:
    """Ctrl-C while documents are read: Python 3.11 may leave an entry of the interrupt's
    traceback without a line number (an instruction that has none), and pytest's report of the
    interrupt then failed on it, with a traceback of its own (sweep 37). Such entries are left out
    of the traceback pytest shows."""
    if not _ACTIVE:
        return
    seen, error = set(), excinfo.value
    while error is not None and id(error) not in seen:  # the chain pytest shows
        seen.add(id(error))
        tb = error.__traceback__
        while tb is not None and tb.tb_next is not None:
            if tb.tb_next.tb_lineno is None:
                tb.tb_next = tb.tb_next.tb_next
            else:
                tb = tb.tb_next
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    excinfo.traceback = type(excinfo.traceback)(excinfo.tb)


def _collection_argument(path: str) -> str:
    """What pytest is given to collect PATH: PATH, or the nearest directory above it whose name
    pytest does not read as a test ID ("a::b" is test b of file a, "c[1]" a parametrization:
    PATH was refused as not found, or as a path with a parametrization: sweep 24). pytest goes
    from there only into the directories on the way to PATH's documents (pytest_ignore_collect)."""
    top = Path(os.path.abspath(path))
    for directory in (top, *top.parents):
        if "::" not in str(directory) and "[" not in str(directory):
            return str(directory)
    return str(top)


def _configured_from_here(config, path: str) -> None:
    """Refuses a run whose pytest configuration was found from PATH rather than from where pytest
    was started. Given as `--cr-examples PATH`, PATH is a test path to pytest while it looks for
    its configuration file, before any plugin is loaded: a pytest.ini, pyproject.toml, setup.cfg
    or tox.ini in PATH or above it was read, and its `addopts` (`-p module`) and `pythonpath`
    imported code from beside the documents (sweep 20). That has happened by now; the run, at
    least, does not go on, and the message says how to give PATH."""
    found = config.inipath
    if found is None:
        return
    where = Path(found).parent
    here = Path(config.invocation_params.dir)
    target = Path(os.path.abspath(path))
    if (where == here or where in here.parents) or not (where == target or where in target.parents):
        return
    raise pytest.UsageError(
        f"pytest read its configuration from {found}, which it found from PATH ({path}): in the form "
        "`--cr-examples PATH` pytest takes PATH for a test path while it looks for its configuration, before "
        "plugins are loaded, and that file's addopts and pythonpath may import code from there; give "
        "--cr-examples=PATH")


def pytest_collect_directory(path, parent):
    """A directory of documents, even one with an __init__.py, is a plain directory to collect
    from: pytest imported the __init__.py of a package's directory (sweep 19)."""
    if parent.config.getoption("--cr-examples", default=None):
        return pytest.Dir.from_parent(parent, path=path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path, config):
    """pytest walks PATH itself: it goes only into the directories on the way to a document
    crparse's walk lists, not into a link to a directory leading out (a link to / walked the
    whole file system, and the conftest.py files met there were imported: sweep 17), nor into
    one without documents (whose conftest.py it would import: sweep 18); and into every one on
    the way, whatever pytest's norecursedirs says (documents under build/, dist/, a virtualenv
    went uncollected without a word: sweep 26). The answer is the first pytest takes."""
    if not config.getoption("--cr-examples", default=None):
        return None
    if collection_path.is_dir():
        return not (str(collection_path) in _ways(config) and not collection_path.is_symlink())
    return str(collection_path) not in _listed(config)


@dataclass
class _Collection:
    """What this session collects at --cr-examples, found once. Kept in the session's config: as
    module state, a second session in one process (pytest.main called again) collected the first
    one's documents; and an empty list, read as not yet found, had every directory of no documents
    parsed again for each path pytest visited (review)."""

    listed: list[str] | None = None  # the documents (_listed)
    parsed: dict[str, object] = field(default_factory=dict)  # each one's Document or refusal
    ways: set[str] | None = None  # the directories down to them (_ways)


_COLLECTION = pytest.StashKey[_Collection]()


def _collection(config) -> _Collection:
    return config.stash.setdefault(_COLLECTION, _Collection())


def _ways(config) -> set[str]:
    """The directories from what pytest was given (PATH, or a directory above it) down to each
    listed document."""
    collection = _collection(config)
    if collection.ways is None:
        ways = set()
        root = Path(os.path.abspath(config.getoption("--cr-examples")))
        given = Path(_collection_argument(config.getoption("--cr-examples")))
        ways.add(str(root))
        for directory in root.parents if given != root else ():
            ways.add(str(directory))
            if directory == given:
                break
        for document in _listed(config):
            for directory in Path(document).parents:
                if str(directory) in ways or directory == root:
                    break
                ways.add(str(directory))
        collection.ways = ways
    return collection.ways


def pytest_collect_file(file_path, parent):
    if parent.config.getoption("--cr-examples", default=None) and str(file_path) in _listed(parent.config):
        return CrDocument.from_parent(parent, path=file_path)
    return None


_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".docx", ".pdf", ".rtf"})


def _document(path: Path) -> bool:
    return path.suffix.lower() in _SUFFIXES and not path.name.startswith(".")


def _listed(config) -> list[str]:
    """The documents at --cr-examples as crparse reads a directory (crparse.inputs): a link
    leading out of it, a FIFO, the chapters of a reST edition (read through its index) are
    left out. pytest's own walk followed a link to a file outside (sweep 14). A file named as a
    document is one, refused or not; one named otherwise (`cr-2002-10-07`, `cr.text`) is one if
    crparse reads it as one, as `crparse parse DIR` does (passed over, its examples went untested
    without a word: sweep 40), but never Python code; so is PATH, named by the user, whatever its
    name (its refusal was lost: pytest said it was "not found"). All are parsed here, in one run
    (crparse.parallel), and kept for collection."""
    collection = _collection(config)
    if collection.listed is None:
        from crparse.errors import CrparseError
        from crparse.inputs import inputs
        from crparse.parallel import parse_all

        root = Path(os.path.abspath(config.getoption("--cr-examples")))

        def too_deep(path: str) -> bool:
            # pytest collects a file through a collector for each directory above it, by
            # recursion: 1,000 levels down, an INTERNALERROR (sweep 17)
            return len(Path(path).parts) - len(root.parts) > _MOST_LEVELS

        walked = [i.path for i in inputs([root]) if i.skipped is None and not Path(i.path).name.startswith(".")]
        named = {path for path in walked if _document(Path(path)) or path == str(root)}
        read = [path for path in walked if (path not in named or not too_deep(path))
                and (path in named or Path(path).suffix.lower() not in _CODE)]
        found = dict(zip(read, parse_all(read))) if read else {}
        # one refused, not named as a document (a 5 MB photo, a store: "larger than the input
        # limit"), is no document of the user's, and ended the session (sweep 41)
        documents = [path for path in walked if path in named
                     or path in found and not isinstance(found[path], CrparseError)]
        deep = [p for p in documents if too_deep(p)]
        if deep:
            config.issue_config_time_warning(pytest.PytestConfigWarning(
                f"crparse: {len(deep)} document(s) more than {_MOST_LEVELS} directories below {root} left out: pytest "
                f"cannot collect so deep (the first: {deep[0]})"), stacklevel=2)
        left_out = set(deep)
        collection.listed = [p for p in documents if p not in left_out]
        collection.parsed = {p: found[p] for p in collection.listed}
    return collection.listed


_MOST_LEVELS = 256
# What pytest's own collectors take (Python modules), or a loader would import: never a document
_CODE = frozenset({".py", ".pyw", ".pyi", ".pyc", ".pyo", ".pyd", ".so", ".dll", ".dylib"})


def _parsed(config) -> dict[str, object]:
    """Every document under --cr-examples, parsed once, in parallel (_listed): the files are
    collected one by one, but a directory of releases parses in a fraction of the time."""
    _listed(config)
    return _collection(config).parsed


class CrDocument(pytest.File):
    def collect(self):
        import crparse
        from crparse.errors import CrparseError, NotADocument
        from crparse.examples import cases, given_rules_date, rules_date, store_identifier
        from crparse.examples.collect import DocumentRun

        doc = _parsed(self.config).get(str(self.path))
        if doc is None:
            try:
                doc = crparse.parse(self.path)
            except CrparseError as err:
                doc = err
        if isinstance(doc, NotADocument):
            return  # not a CR document (a README in the directory, say): nothing to collect
        if isinstance(doc, CrparseError):
            # a document refused (too large, its markup, the run's budget for reads again): a
            # collection error that names it. It went without a word, and the session passed
            # with 5 of its 9 releases untested (sweep 38).
            raise self.CollectError(f"crparse: {doc.located(str(self.path))}")
        date = self.config.getoption("--cr-rules-date")
        how, undated = "given", None
        if date:
            date, how = given_rules_date(date)
        else:
            try:
                date, how = rules_date(doc, identify=store_identifier(self.config.getoption("--cr-db")))
            except CrparseError as err:
                undated = str(err)
        from crparse.examples.bounds import MAX_DOCUMENT_ITEMS

        run = DocumentRun(date) if date else None  # one budget for the document's items, as `crparse examples` has
        every = cases(doc, self.config.getoption("--cr-rule"))
        for case in every[:MAX_DOCUMENT_ITEMS]:
            yield CrExample.from_parent(self, name=case.name, case=case, rules_date=date, how=how, undated=undated, run=run)
        if len(every) > MAX_DOCUMENT_ITEMS:
            self.warn(pytest.PytestCollectionWarning(
                f"crparse: {self.path}: {len(every) - MAX_DOCUMENT_ITEMS:,} examples past the {MAX_DOCUMENT_ITEMS:,} "
                f"a document's items may be (MAX_DOCUMENT_ITEMS) not collected; `crparse examples` runs them all"))


class ExampleFailed(Exception):
    pass


class CrExample(pytest.Item):
    def __init__(self, *, case, rules_date: str | None, how: str, undated: str | None = None, run=None, **kwargs):
        super().__init__(**kwargs)
        self.case, self.rules_date, self.how, self.undated, self.run = case, rules_date, how, undated, run
        self.add_marker("cr_example")

    def runtest(self) -> None:
        if self.undated or self.run is None:
            pytest.skip(f"unsupported: {self.undated or 'no rules date'}")
        result = self.run.result(self.case)
        if result.status == "unsupported":
            pytest.skip(f"unsupported: {result.reason}")
        if result.status == "failed":
            raise ExampleFailed(result.reason)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ExampleFailed):
            return (f"Example {self.case.name} (line {self.case.line}), rules of {self.rules_date} ({self.how}):\n"
                    f"  {self.case.text}\n"
                    f"failed: {excinfo.value}")
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.case.line - 1, f"example {self.case.name}"
