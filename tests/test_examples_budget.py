"""What one document's worked examples may cost (crparse.examples.read.DocumentBudget): every piece
of work `crparse examples` does for an example is charged, so that no document within the input
limit runs for long.

The budget charged a sentence its characters alone, but Earley costs ~8 ms a parse before its
first character: 4,500 examples of five characters ("AB CD.", no lower-case word, so the vocabulary
check let them through) ran past 30 s of CPU. Nor did it charge the model: one 50-player example
printed 4,000 times took 20 s, distinct ones over 100 s.
"""

from __future__ import annotations

import itertools
import json
import re
import string

import pytest
from conftest import corpus_dir, parsed
from lark.lexer import PatternStr

import crparse
from crparse.examples import bounds, collect, run_examples
from crparse.examples import read as reading
from crparse.examples.read import Unsupported, read
from crparse.examples.runner import run
from limits import run_limited

CAPITALS = string.ascii_uppercase


def document(examples) -> str:
    body = "".join(f"800.{i + 2}. A rule.\n\nExample: {text}\n\n" for i, text in enumerate(examples))
    return ("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 1, 2020.\n\n"
            "8. Multiplayer Rules\n\n800. General\n\n800.1. A multiplayer game is a game that begins with more "
            f"than two players.\n\n{body}Glossary\n\nAbility\nText.\n\nCredits\n\nSomebody\n")


def short_capitals(count: int) -> list[str]:
    return [f"{a}{b} {c}{d}." for a, b, c, d in itertools.islice(itertools.product(CAPITALS, repeat=4), count)]


@pytest.fixture
def earley(monkeypatch):
    """The sentences Earley is asked to parse (its results unchanged)."""
    parser, asked = reading._parser(), []

    class Counting:
        def parse(self, sentence):
            asked.append(sentence)
            return parser.parse(sentence)

    monkeypatch.setattr(reading, "_parser", lambda: Counting())
    reading._tree.cache_clear()
    reading._cached.cache_clear()
    yield asked
    reading._tree.cache_clear()
    reading._cached.cache_clear()


def _over_budget(results) -> list[str]:
    return [r.case.rule for r in results if "it reads in one document" in (r.reason or "")]


def test_every_template_spells_out_a_lower_case_word():
    """The premise of the vocabulary check's refusal of a sentence with no lower-case word: no
    derivation of the grammar's start avoids every terminal that holds one (a literal of the
    grammar as the check reads words, or an alternation of such words)."""
    parser = reading._parser()
    terminals = {t.name: t for t in parser.terminals}

    def holds_a_word(name: str) -> bool:
        pattern = terminals[name].pattern
        if pattern.flags:  # case-insensitive: matches capitals alone
            return False
        if isinstance(pattern, PatternStr):
            return bool(reading._WORD.findall(pattern.value))
        alternation = re.fullmatch(r"\(\?:([^()]*)\)", pattern.value)
        return bool(alternation) and all(re.match(r"[a-z]|\[a-z\]", a) for a in alternation.group(1).split("|"))

    wordless: set[str] = set()  # the rules some derivation of which holds no such terminal
    grown = True
    while grown:
        grown = False
        for rule in parser.rules:
            if rule.origin.name not in wordless and all(
                    (s.is_term and not holds_a_word(s.name)) or (not s.is_term and s.name in wordless)
                    for s in rule.expansion):
                wordless.add(rule.origin.name)
                grown = True
    assert "player" in wordless and "start" not in wordless, sorted(map(str, wordless))


@pytest.mark.parametrize("sentence", ["AB CD.", "B.", ",;:", "12 34.", "Alex Rob.", "Ab Cd Ef.", "«0»."])
def test_a_sentence_with_no_lower_case_word_is_refused_before_earley(earley, sentence):
    with pytest.raises(Unsupported, match="no template reads the sentence"):
        read(sentence)
    assert earley == []


def test_the_sweep_document_of_short_capital_sentences_is_read_quickly(tmp_path):
    """4,500 examples `AB CD.`: killed at 30 s of CPU before, each failing in Earley in ~9 ms."""
    path = tmp_path / "short.txt"
    path.write_text(document(short_capitals(4500)), encoding="utf-8")
    result = run_limited(["examples", str(path), "--json"], seconds=15)
    assert result.ok_within_limits and result.returncode == 0, (result.cpu_seconds, result.stderr[-300:])
    found = json.loads(result.stdout)
    assert len(found) == 4500 and all(r["status"] == "unsupported" for r in found)
    assert result.cpu_seconds < 5, result.cpu_seconds


@pytest.mark.parametrize("shape", [
    lambda n: f"Alex is{n}.",  # one word of the grammar, made distinct by a suffix
    lambda n: f"The of is {CAPITALS[n % 26]}{CAPITALS[n // 26 % 26]}.",  # its words in an order no template has
    lambda n: f"{CAPITALS[n % 26]}{'aeiou'[n // 26 % 5]}b is {CAPITALS[n // 130 % 26]}x.",  # short names, one word
])
def test_each_parse_costs_its_fixed_cost(earley, monkeypatch, shape):
    """Short distinct sentences Earley reads and fails: each costs the budget PARSE_COST besides
    its characters, so the budget pays for as many parses as it has room for (charged five
    characters each, 2,000 of budget paid for ~400 parses of ~9 ms, not ~80). Those past the
    budget are reported, not dropped."""
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_TEXT", 2_000)
    examples = [shape(n) for n in range(600)]
    results = run_examples(crparse.parse(document(examples)), rules_date="2020-01-01")
    assert len(results) == 600 and all(r.status == "unsupported" for r in results)
    # a parse costs ~8 ms before its first character: 18 characters of the budget's unit (0.45 ms)
    assert len(earley) <= 2_000 // 18 + 1, len(earley)
    stopped = _over_budget(results)
    assert stopped and stopped == [r.case.rule for r in results[-len(stopped):]]
    assert "over the 2,000 it reads in one document" in results[-1].reason


def test_an_example_printed_again_is_run_once(monkeypatch):
    """One 50-player example printed 400 times: the model ran it each time (4,000: 20 s)."""
    runs = []

    def counted(*args, **kwargs):
        runs.append(args[0])
        return run(*args, **kwargs)

    monkeypatch.setattr(collect, "run", counted)
    text = ("In a game with 50 players, Alex is seated to the left of Rob, and Carissa is seated to the right of Rob. "
            "Carissa is not in Alex’s range of influence.")
    results = run_examples(crparse.parse(document([text] * 400)), rules_date="2020-01-01")
    assert len(runs) == 1 and len(results) == 400
    assert {(r.status, r.reason) for r in results} == {(results[0].status, results[0].reason)}
    assert [r.case.rule for r in results[:3]] == ["800.2", "800.3", "800.4"]


LANDWALK = ("In a game with 50 players, Rob attacks {name} with Runeclaw Bear and attacks Carissa with a creature "
            "with mountainwalk. Whether the creature with mountainwalk can be blocked depends only on whether "
            "Carissa controls a Mountain.")


def test_the_model_s_work_is_charged(monkeypatch):
    """Distinct 50-player landwalk examples: each checked on a copy of the game for each player
    (~0.1 s). The grammar charged alone, 3,000 of budget ran 20 of them; the model charged, 4."""
    runs = []

    def counted(*args, **kwargs):
        runs.append(args[0])
        return run(*args, **kwargs)

    monkeypatch.setattr(collect, "run", counted)
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_TEXT", 3_000)
    names = [f"{a}{b}x" for a, b in itertools.product(CAPITALS, "aeiou")][:30]
    results = run_examples(crparse.parse(document(LANDWALK.format(name=n) for n in names)), rules_date="2020-01-01")
    assert len(results) == 30 and results[0].status == "passed"
    assert len(runs) <= 5 and len(_over_budget(results)) >= 25, (len(runs), _over_budget(results))


def test_a_run_counts_its_copies_and_its_seating_search():
    from crparse.examples.runner import Work

    landwalk = Work()
    run(read(LANDWALK.format(name="Alex")), "2020-01-01", work=landwalk)
    assert landwalk.seat_steps >= 50 * 50  # a copy of the 50-player game for each player
    names = ["Alex", "Rob", "Carissa", "Dana", "Eve", "Fay", "Gil", "Hal", "Ivy", "Jon", "Kim"]
    seating = Work()
    text = " ".join(f"{names[i + 1]} is in {names[i]}'s range of influence." for i in range(10))
    outcome = run(read(text + " Kim is not in Alex's range of influence. Kim is in Alex's range of influence."),
                  "2020-01-01", work=seating)
    assert outcome.status == "unsupported" and seating.seats_tried > 100
    assert bounds.run_cost(landwalk.seat_steps, 0) > 500 > bounds.run_cost(0, seating.seats_tried)


def test_the_text_prepared_is_charged(earley, monkeypatch):
    """Examples whose words no template has are prepared (the lexicon's patterns, ~1.5 us a
    character) and never parsed: 4 MiB of them took 6 s, none of it charged."""
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_TEXT", 2_000)
    text = " ".join(f"Zorblax frobnicates the widget {k}." for k in range(100))
    examples = [f"{text} {n:03d}." for n in range(200)]
    results = run_examples(crparse.parse(document(examples)), rules_date="2020-01-01")
    assert earley == [] and len(results) == 200
    stopped = _over_budget(results)
    assert stopped, "no example stopped"
    # each example costs its preparation: the first past the budget is the one that passes it
    each = -(-len(examples[0]) // bounds.PREPARED_PER_CHARACTER)
    assert len(stopped) == 200 - 2_000 // each, (each, len(stopped))


def test_the_newest_release_is_well_within_the_budget(corpus, monkeypatch):
    """The budget's room: the newest release's examples cost ~16,500 of the 20,000 (185 distinct
    sentences, 276 examples); with a tenth less none is stopped."""
    path = corpus_dir() / "txt" / "2026-01-16.txt"
    if not path.exists():
        pytest.skip(f"release 2026-01-16 not in the corpus at {corpus_dir()}")
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_TEXT", 18_000)
    doc = parsed(path)
    results = run_examples(doc, rules_date=doc.effective_date)
    assert len(results) == 276 and _over_budget(results) == []
