"""The examples in the package's docstrings run, from the repository root as the README's are."""

from __future__ import annotations

import doctest

import pytest
from conftest import ROOT

import crparse
import crparse.refs


@pytest.mark.parametrize("module", [crparse, crparse.refs], ids=lambda m: m.__name__)
def test_docstring_examples(module, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
