"""Shared fixtures. Corpus-wide tests read the historical releases from ../shared/corpus/ beside
the repository (or $CRPARSE_CORPUS) and skip, saying so, where it is absent."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

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


def txt_releases() -> list[Path]:
    path = corpus_dir() / "txt"
    return sorted(path.glob("*.txt")) if path.is_dir() else []
