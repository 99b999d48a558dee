"""Worked examples as tests: each "Example:" of a document read through the examples' grammar into
a Scenario and run against a rules model that plays by a given release's rules.

    >>> import crparse
    >>> from crparse.examples import run_examples
    >>> doc = crparse.parse("corpus/002_5de42b84d94734e9.txt")
    >>> results = run_examples(doc, rules_date="2024-02-02")      # doctest: +SKIP
    >>> results[0].status                                          # doctest: +SKIP
    'passed'

`text` folds the wording and masks quoted card text, `read` builds the Scenario (grammars/
examples.lark, cards.lark), `runner` plays it on an Engine (crparse.model.protocol; the reference
is crparse.model.game), `collect` lists a document's examples and picks its rules date.
"""

from __future__ import annotations

from crparse.examples.collect import (Case, DocumentRun, Result, cases, check, given_rules_date, rules_date,
                                      run_examples, store_identifier)

__all__ = ["Case", "DocumentRun", "Result", "cases", "check", "given_rules_date", "rules_date", "run_examples",
           "store_identifier"]
