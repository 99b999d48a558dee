"""A document's examples, the rules date they are run under, and their results."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from crparse.errors import CrparseError
from crparse.examples.bounds import run_cost
from crparse.examples.read import DocumentBudget, Unsupported, read
from crparse.examples.runner import Work, run
from crparse.nodes import Document

STATUSES = ("passed", "failed", "unsupported")


@dataclass(frozen=True)
class Case:
    """One example of a document: its rule, its place among the rule's examples (from 1), its text
    and line, and the text of the example before it in the same rule ("In the same game, ...")."""

    rule: str
    index: int
    text: str
    line: int
    previous: str | None = None

    @property
    def name(self) -> str:
        return f"{self.rule}#{self.index}"


@dataclass
class Result:
    case: Case
    status: str  # passed, failed, unsupported
    reason: str | None
    scenario: dict | None = None
    assumed: list[str] = field(default_factory=list)
    rules_date: str | None = None

    def to_dict(self) -> dict:
        return {"rule": self.case.rule, "index": self.case.index, "line": self.case.line, "text": self.case.text,
                "status": self.status, "reason": self.reason, "scenario": self.scenario, "assumed": self.assumed,
                "rules_date": self.rules_date}


def is_rule(r, number: str) -> bool:
    """Whether `number`, as a user gives it (with a trailing dot or not), is rule `r`'s."""
    return r.number.rstrip(".") == number.rstrip(".")


def cases(doc: Document, rule: str | None = None) -> list[Case]:
    """Every example of the document's rules, in document order (`rule`: of that rule only)."""
    out = []
    for r in doc.rules:
        if rule is not None and not is_rule(r, rule):
            continue
        for i, example in enumerate(r.examples, 1):
            previous = r.examples[i - 2].text if i > 1 else None
            out.append(Case(r.number, i, example.text, example.line, previous))
    return out


def rules_date(doc: Document, *, identify=None) -> tuple[str, str]:
    """The rules date a document's examples run under, and where it came from: the document's
    effective date; else the newest of its `[CompRules date]` change stamps; else the release
    `identify(doc)` names (crparse identify, from the store), the newest of an equal-best range."""
    if doc.effective_date:
        return doc.effective_date, "the document's effective date"
    stamps = [r.changed for r in doc.rules if r.changed] + [e.changed for r in doc.rules for e in r.examples
                                                           if getattr(e, "changed", None)]
    if stamps:
        return max(stamps), "the newest of its [CompRules] change stamps"
    if identify is not None:
        found = identify(doc)
        if found:
            span = found[0] if len(found) == 1 else f"{found[0]} .. {found[-1]}"
            return found[-1], f"the release crparse identify finds for it ({span})"
    # with a store that knows none of it, the advice to build one misled (sweep 37)
    store = ("the store holds no release like it (index its release, or give --rules-date)" if identify is not None
             else "no store to identify it (run `crparse index DIR`, or give --rules-date)")
    raise CrparseError(f"no rules date: the document has no effective date and no change stamps, and {store}",
                       path=doc.source.path)


def given_rules_date(given: str) -> tuple[str, str]:
    """A rules date given by the user (--rules-date, --cr-rules-date), and how it was chosen: a
    month or a year means the newest rules of that period, those in force at its last day."""
    from crparse.dates import last_day

    day = last_day(given)
    return day, "given" if day == given else f"given as {given}: the rules in force at its end"


def check(text: str, rules_date: str, previous: str | None = None, factory=None,
          run: DocumentRun | None = None) -> Result:
    """One example's text run under `rules_date`: its Result (a Case with no rule). `run`: the
    DocumentRun of the document it is one of, whose budget it shares (and whose rules date and
    factory it is run with)."""
    case = Case("", 0, text, 0, previous)
    if run is not None:
        return run.result(case)
    return _result(case, rules_date, factory)


def _result(case: Case, date: str, factory, budget: DocumentBudget | None = None) -> Result:
    try:
        scenario = read(case.text, case.previous, budget)
    except Unsupported as why:
        return Result(case, "unsupported", why.reason, None, [], date)
    work = Work()
    try:
        outcome = run(scenario, date, factory, work)
    except Exception as err:  # noqa: BLE001 - a gap of the runner or the engine, reported, not raised
        return Result(case, "unsupported", f"runner error: {type(err).__name__}: {err}", scenario.to_dict(), [], date)
    finally:
        if budget is not None:
            budget.charge_run(run_cost(work.seat_steps, work.seats_tried))
    return Result(case, outcome.status, outcome.reason, scenario.to_dict(), outcome.assumed, date)


class DocumentRun:
    """The examples of one document run as they come, under the document's budget
    (DocumentBudget: the grammar's work and the model's): past it, the rest are unsupported,
    saying so. An example printed again word for word (its text, and the one before it) has the
    result it had: the model ran it once (4,000 copies of one 50-player example took 22 s, the
    grammar charged once). `run_examples` and the pytest plugin's items share it: the plugin ran
    each example with no budget (100 long examples in 146 KB: 22 s, against 2.9 s for `crparse
    examples`: sweep 24)."""

    def __init__(self, rules_date: str, factory=None):
        self.rules_date, self.factory = rules_date, factory
        self.budget = DocumentBudget()
        self._done: dict[tuple[str, str | None], Result] = {}

    def result(self, case: Case) -> Result:
        seen = self._done.get((case.text, case.previous))
        if seen is not None:
            return replace(seen, case=case)
        result = _result(case, self.rules_date, self.factory, self.budget)
        self._done[(case.text, case.previous)] = result
        return result


def run_examples(doc: Document, *, rules_date: str, rule: str | None = None, factory=None) -> list[Result]:
    """The result of every example of `doc` (or of `rule`), run under `rules_date`, in the
    document's order (DocumentRun: one budget for the document, repeats run once)."""
    run = DocumentRun(rules_date, factory)
    return [run.result(c) for c in cases(doc, rule)]


def store_identifier(db: str | None):
    """identify(doc) -> the best releases' dates, from the store at `db` (default: crparse's cache
    location); None when there is no store."""
    from crparse.store.db import store_path

    path = store_path(db or None)  # a name ending in a slash is refused, as every --db is
    # lexists: a loop of links "exists" here, and connect says it is one (Path.exists said no
    # store at all: sweep 29)
    if not os.path.lexists(path):
        return None

    def identify(doc):
        from crparse.align.units import units
        from crparse.store import connect
        from crparse.store.index import digests
        from crparse.store.query import identify as best

        us = units(doc)
        return best(connect(path, readonly=True), dict(zip((u.key for u in us), digests(us)))).best

    return identify
