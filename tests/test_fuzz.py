"""Fuzzing every reader and the CLI (hypothesis drives the mutations of tests/fuzzing.py).

A short bounded run here, in every test run: CRPARSE_FUZZ_EXAMPLES sets how many inputs per
format (default 40). The long run for before a release is `python tools/fuzz.py --minutes 30`,
which runs each input in a child under 15 s and 1 GiB and keeps every failing input.
"""

from __future__ import annotations

import os
import random

import pytest
from fuzzing import mutate, seeds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crparse
from crparse.cli.main import main
from crparse.errors import CrparseError

SEEDS = seeds()
EXAMPLES = int(os.environ.get("CRPARSE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@pytest.mark.parametrize("fmt", sorted(SEEDS))
def test_seed_documents_parse(fmt):
    doc = crparse.parse(SEEDS[fmt], format=fmt)
    assert doc.rules


@pytest.mark.parametrize("fmt", sorted(SEEDS))
@FUZZ
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 12), forced=st.booleans())
def test_mutated_input_is_a_document_or_a_clean_refusal(fmt, seed, steps, forced):
    data = mutate(SEEDS[fmt], random.Random(seed), steps)
    try:
        doc = crparse.parse(data, format=fmt if forced else None)
    except CrparseError as err:
        assert "\n" not in str(err)
        return
    refs = crparse.references(doc)
    crparse.to_json(doc).encode("utf-8")  # valid UTF-8 however bad the input
    assert all(0 <= r.start <= r.end for r in refs)


@FUZZ
@given(fmt=st.sampled_from(sorted(SEEDS)), seed=st.integers(0, 2**32 - 1))
def test_cli_on_mutated_files(tmp_path_factory, fmt, seed):
    path = tmp_path_factory.mktemp("fuzz") / f"input.{fmt}"
    path.write_bytes(mutate(SEEDS[fmt], random.Random(seed), 6))
    for argv in (["parse", "--json", str(path)], ["refs", str(path), "--broken"], ["refs", str(path), "--graph", "graphml"]):
        status = main(argv)
        assert status in (0, 1, 2), (argv, status)  # 3 is an internal error
