"""Shared fixtures. Corpus-wide tests read the historical releases from ../shared/corpus/ beside
the repository (or $CRPARSE_CORPUS) and skip, saying so, where it is absent."""

from __future__ import annotations

import csv
import functools
import os
import re
from pathlib import Path

import pytest

from crparse.writers.json import document_to_dict

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DATA = Path(__file__).resolve().parent / "data"


def corpus_dir() -> Path:
    return Path(os.environ.get("CRPARSE_CORPUS", ROOT.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = corpus_dir()
    if not (path / "MANIFEST.tsv").is_file():
        pytest.skip(f"historical corpus not found at {path} (set CRPARSE_CORPUS to run corpus tests)")
    return path


@pytest.fixture(scope="session")
def manifest(corpus: Path) -> list[dict]:
    with open(corpus / "MANIFEST.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture
def fixture_path():
    return lambda name: FIXTURES / name


@functools.cache
def parsed(path: Path):
    """A corpus document parsed once per test session: several corpus test files read them all."""
    import crparse

    return crparse.parse(path)


def txt_releases() -> list[Path]:
    path = corpus_dir() / "txt"
    return sorted(path.glob("*.txt")) if path.is_dir() else []


_WORD = re.compile(r"\w+")


def lost_words(doc, text: str) -> dict[str, int]:
    """Words of `text` that the document's JSON holds fewer times than the text (its `source`
    block aside): the "every word of the input appears in the output" check."""
    have: dict[str, int] = {}
    for s in _strings(document_to_dict(doc, ())):  # references aside: the words must be in the tree
        for w in _WORD.findall(s):
            have[w] = have.get(w, 0) + 1
    need: dict[str, int] = {}
    for w in _WORD.findall(text):
        need[w] = need.get(w, 0) + 1
    return {w: n - have.get(w, 0) for w, n in need.items() if have.get(w, 0) < n}


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "source":
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def without_rst_markup(source: str) -> str:
    """reST source with the markup that is not words of the document taken out, for the
    every-word check: list letters (they become subrule numbers), directive names, escaped
    spaces and link underscores, the damaged ":ref:" (repaired into words), and the numbers a
    converter put in place of cited titles (repaired into the titles)."""
    source = re.sub(r"(?m)^\s*[a-z]\.\s", " ", source.replace(":ref:", " ref "))
    source = re.sub(r"\b(\d{3}), \"?\1\b", r"\1", source)
    source = re.sub(r"(?m)^\s*\.\. [a-z]+::.*$", "", source).replace("`_", "`")
    return re.sub(r"[*`]*\\ ", "", source)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """A folder of two small releases (`crparse docs` tests)."""
    from small_releases import write_releases

    return write_releases(tmp_path_factory.mktemp("two"), 2)


@pytest.fixture(scope="module")
def clean(two, tmp_path_factory):
    """The site `crparse docs` builds of `two`, to copy and damage."""
    from site_builds import docs

    out = tmp_path_factory.mktemp("clean") / "site"
    done = docs(str(two), "-o", str(out))
    assert done.returncode == 0, done.stderr
    return out
