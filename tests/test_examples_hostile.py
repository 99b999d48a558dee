"""`crparse examples` on hostile worked examples: sizes past the examples' bounds
(crparse/examples/bounds.py) are `unsupported` with the bound named, quickly and in little memory,
and the model's seating search stays polynomial in the players the example names."""

from __future__ import annotations

import itertools
import json
import random
import re
import signal
from contextlib import contextmanager

import pytest

from crparse.examples import check
from crparse.examples.bounds import MAX_NUMBER, MAX_PLAYERS, MAX_SENTENCE
from crparse.model.table import Relation, SeatingError, arrange
from limits import run_limited

NAMES = ["Alex", "Rob", "Carissa", "Dana", "Eve", "Fay", "Gil", "Hal", "Ivy", "Jon", "Kim"]


@contextmanager
def within(seconds: float):
    """Fails the test when the block runs longer (the cases below took 10 s to minutes)."""

    def expire(*_):
        raise TimeoutError(f"took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def document(examples: dict[str, str]) -> str:
    body = "".join(f"{rule} A rule text.\n\nExample: {text}\n\n" for rule, text in examples.items())
    return ("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 16, 2026.\n\n"
            "8. Multiplayer Rules\n\n801. Limited Range of Influence Option\n\n801.1. Some multiplayer games use "
            f"the limited range of influence option.\n\n{body}801.9. Another rule.\n\nGlossary\n\nAbandon\nx.\n\n"
            "Credits\n\nx\n")


BILLION = 999_999_999
# rule -> (example, what its reason must say)
HOSTILE = {
    "801.2a": (f"A range of influence of {BILLION} means that only you and the players seated directly next to you "
               "are within your range of influence.", "the largest number an example may state"),
    "801.2b": ("A range of influence of 60 means that only you and the players seated directly next to you are "
               "within your range of influence.", f"the runner seats at most {MAX_PLAYERS} players"),
    "801.2c": (f"A Grand Melee game with {BILLION} players has four turn markers.", "the largest number"),
    "801.2d": ("A Grand Melee game with 5000 players has four turn markers.", f"at most {MAX_PLAYERS} players"),
    "801.2e": (f"In a game with {BILLION} players, Alex is seated to the left of Rob. Rob is in Alex’s range of "
               "influence.", "the largest number"),
    "801.2f": ("In a 1000-player game, Alex is seated to the left of Rob, and Carissa is seated to the right of "
               "Rob. Carissa is not in Alex’s range of influence.", f"at most {MAX_PLAYERS} players"),
    "801.2g": ("In a game with a range of influence of 1, Alex is seated to the left of Rob"
               + ", and Rob is seated to the left of Alex" * 100 + ".", f"characters long, over the {MAX_SENTENCE}"),
    "801.2l": ("In a game with a range of influence of 1, Alex is seated to the left of Rob"
               + ", and Rob is seated to the left of Alex" * 1000 + ".", "an example may have"),
    # each sentence within the bound, the three together past the bound of one example
    "801.2h": (("Alex is seated to the left of Rob" + ", and Rob is seated to the left of Alex" * 12 + ". ") * 3,
               "in one example"),
    "801.2i": (f"A range of influence of {'9' * 5000} means that only you and the players seated directly next "
               "to you are within your range of influence.", "characters long"),
    "801.2j": (f"A range of influence of {'9' * 400} means that only you and the players seated directly next "
               "to you are within your range of influence.", "a number of 400 digits"),
    "801.2k": ("In a game with a range of influence of 1, Alex is seated to the left of «" + "9" * 400 + "».",
               "no template reads"),
}


@pytest.mark.hostile
def test_examples_past_the_bounds_are_unsupported_quickly(tmp_path):
    path = tmp_path / "hostile.txt"
    path.write_text(document({rule: text for rule, (text, _) in HOSTILE.items()}), encoding="utf-8")
    result = run_limited(["examples", str(path), "--json"])
    assert result.ok_within_limits and result.returncode == 0, (result.seconds, result.stderr[-500:])
    assert result.cpu_seconds < 10
    found = {r["rule"]: r for r in json.loads(result.stdout)}
    for rule, (_, said) in HOSTILE.items():
        assert found[rule]["status"] == "unsupported" and said in found[rule]["reason"], (rule, found[rule]["reason"])


def test_a_number_is_checked_before_it_is_read():
    from crparse.examples.bounds import OutOfBounds, bounded_number

    assert bounded_number("000" + str(MAX_NUMBER)) == MAX_NUMBER
    with pytest.raises(OutOfBounds, match="a number of 5,000 digits"):
        bounded_number("9" * 5000)  # past int()'s 4,300 digits: never handed to it


def test_a_quote_with_a_huge_number_is_not_read():
    from crparse.examples.cards import read_card

    assert read_card("Lava Axe deals 5 damage to target player.") is not None
    assert read_card(f"Lava Axe deals {BILLION} damage to target player.") is None
    assert read_card("Lava Axe deals " + "9" * 5000 + " damage to target player.") is None


def test_eleven_named_players_are_seated_at_once():
    """10! orders of an 11-seat table were tried one by one (25 s and more)."""
    sentence = ", and ".join(f"{NAMES[i]} is seated to the left of {NAMES[i + 1]}" for i in range(10))
    with within(5):
        result = check(sentence + ". Kim is not in Alex’s range of influence.", "2026-01-16")
    assert result.status == "failed" and "Kim is in Alex's range" in result.reason
    with within(5):
        order, _ = arrange([Relation("left_of", NAMES[i], NAMES[i + 1]) for i in range(10)]
                           + [Relation("not_in_range", "Alex", "Kim")], ranges=1)
    assert len(order) == 12 and order[0] == "Alex" and order[-1] == "Rob" and order[2] == "Kim"


def test_a_seating_search_that_cannot_settle_gives_up():
    """Players no relation places, and one relation about the last of them that no seat meets: the
    search is bounded, not exhaustive (11!/2 placements)."""
    with within(5), pytest.raises(SeatingError, match="gave up"):
        arrange([Relation("distance", "Alex", "Kim", n=7)], named=NAMES, total=12)


def test_a_large_table_is_seated_and_played_quickly():
    text = ("In a {n}-player game, Alex is seated to the left of Rob, and Carissa is seated to the right of Rob. "
            "Carissa is not in Alex’s range of influence.")
    with within(5):
        assert check(text.format(n=MAX_PLAYERS), "2026-01-16").status == "failed"  # no range stated: all in range
        assert check(text.format(n=MAX_PLAYERS + 1), "2026-01-16").status == "unsupported"


def test_a_large_share_of_the_team_life_is_found_by_bisection():
    """One copy of the game per life point up to four times N: 11 s for N = 10,000."""
    text = ("In a Two-Headed Giant game, a player controls Test of Endurance, an enchantment that reads, “At the "
            "beginning of your upkeep, if you have {n} or more life, you win the game.” At the beginning of your "
            "upkeep, the player’s team wins the game only if his or her share of the team’s life total is {n} or "
            "more. The team’s life total must be {t} or more for that to happen.")
    with within(5):
        assert check(text.format(n=50, t=99), "2006-02-01").status == "passed"  # the 2006 example
        assert check(text.format(n=MAX_NUMBER // 2, t=MAX_NUMBER - 1), "2006-02-01").status == "passed"
        assert check(text.format(n=50, t=97), "2006-02-01").status == "failed"


def _brute_force(rels, names, ranges, total, min_total=4, max_total=12):
    """The seating `arrange` chose before its search was pruned: every placement tried."""
    from crparse.model.table import _holds

    sizes = [total] if total is not None else range(max(min_total, len(names)), max_total + 1)
    for n in sizes:
        first, rest = names[0], names[1:]
        best = None
        for seats in itertools.permutations(range(1, n), len(rest)):
            pos = {first: 0} | dict(zip(rest, seats))
            if all(_holds(r, pos, n, {p: ranges for p in names}) for r in rels):
                key = (tuple(sorted(seats)) != tuple(seats), max(seats, default=0), seats)
                best = min(best or key, key)
        if best is not None:
            return n, dict(zip(rest, best[2]))
    return None


def test_the_pruned_search_seats_as_the_exhaustive_one_did():
    kinds = ["left_of", "right_of", "between", "adjacent", "not_adjacent", "in_range", "not_in_range", "distance"]
    rng = random.Random(12)
    for _ in range(300):
        names = NAMES[:rng.randint(1, 5)]
        rels = []
        for _ in range(rng.randint(0, 4)):
            a, b, c = (rng.choice(names) for _ in range(3))
            rels.append(Relation(k := rng.choice(kinds), a, b, c if k == "between" else None,
                                 rng.randint(0, 3) if k == "distance" else None))
        total = rng.choice([None, None, len(names) + rng.randint(0, 3)])
        ranges = rng.choice([None, 1, 2])
        expected = _brute_force(rels, names, ranges, total, max_total=8)
        try:
            order, _ = arrange(rels, named=names, ranges=ranges, total=total, max_total=8)
        except SeatingError:
            assert expected is None, (rels, total)
            continue
        n, seats = expected
        assert len(order) == n and all(order[s] == name for name, s in seats.items()), (rels, total, order)


def test_emit_pytest_into_a_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "cr.txt"
    path.write_text(document({"801.2a": HOSTILE["801.2f"][0]}), encoding="utf-8")
    target = tmp_path / "a-file"
    target.write_text("")
    result = run_limited(["examples", str(path), "--emit-pytest", str(target)])
    lines = result.stderr.decode().strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "--emit-pytest needs a directory" in lines[0], lines
    assert str(target) in lines[0]


@pytest.mark.parametrize("name", ['a""" and __import__("os").system("touch PWNED") and """.txt', 'x"""\\.txt',
                                  "line\nbreak.txt", "caf\u00e9\u00b2.txt"])
def test_emit_pytest_writes_python_whatever_the_file_name(tmp_path, name):
    """A release's file name went into the emitted file's docstring: `\"\"\"` in it ended the
    docstring and pytest, collecting the file, ran the code after it."""
    import subprocess
    import sys

    path = tmp_path / name
    path.write_text(document({"801.2a": "Alex is seated to the left of Rob. Rob is in Alex's range of influence."}),
                    encoding="utf-8")
    out = tmp_path / "tests"
    result = run_limited(["examples", str(path), "--emit-pytest", str(out)])
    assert result.returncode == 0, result.stderr[-300:]
    (emitted,) = out.glob("test_examples_*.py")
    assert emitted.name.isascii()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(emitted)],
                          capture_output=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and b"1 passed" in done.stdout, done.stdout[-500:]
    assert not (tmp_path / "PWNED").exists()
    namespace: dict = {}
    exec(compile("\n".join(emitted.read_text(encoding="utf-8").splitlines()[:14]), str(emitted), "exec"), namespace)
    assert namespace["SOURCE"] == str(path)


def test_emit_pytest_gives_names_of_no_ascii_letter_files_of_their_own(tmp_path):
    """Every such name became test_examples_document.py: the second document's tests replaced the
    first's without a word (sweep 27)."""
    out = tmp_path / "tests"
    for name in ("\u00e9 \u00fc.txt", "\u00f6.txt", "r\u00e8gles.txt", "r\u00e9gles.txt", "x" * 247 + ".txt"):
        (tmp_path / name).write_text(document({"801.2a": "Alex is seated to the left of Rob. Rob is in Alex's range "
                                                         "of influence."}), encoding="utf-8")
        assert run_limited(["examples", str(tmp_path / name), "--emit-pytest", str(out)]).returncode == 0
    emitted = sorted(p.name for p in out.glob("test_examples_*.py"))
    assert len(emitted) == 5 and all(n.isascii() and len(n) < 120 for n in emitted), emitted
    assert sum(n.startswith("test_examples_document_") for n in emitted) == 2
    assert sum(n.startswith("test_examples_r_gles_") for n in emitted) == 2


def test_emit_pytest_replaces_a_link_at_its_file_name_and_leaves_its_target(tmp_path):
    path = tmp_path / "modern.txt"
    path.write_text(document({"801.2a": HOSTILE["801.2f"][0]}), encoding="utf-8")
    out, outside = tmp_path / "tests", tmp_path / "outside.txt"
    out.mkdir()
    outside.write_text("precious")
    (out / "test_examples_modern.py").symlink_to(outside)
    result = run_limited(["examples", str(path), "--emit-pytest", str(out)])
    assert result.returncode == 0, result.stderr[-300:]
    assert outside.read_text() == "precious"
    assert not (out / "test_examples_modern.py").is_symlink() and "def test_801_2a_1" in (out / "test_examples_modern.py").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["test_examples_modern.py"]  # no temporary file left


def test_a_document_of_many_long_distinct_examples_stops_at_its_budget(monkeypatch):
    """Each example within its bounds, 40 of them distinct: 27 s of Earley before the document's
    budget (MAX_DOCUMENT_TEXT). The examples up to the budget run; the rest say why they did not.
    The budget lowered here to keep the test short; the sentences repeated count once."""
    import crparse
    from crparse.examples import bounds, run_examples

    from hostile_inputs import long_distinct_examples

    monkeypatch.setattr(bounds, "MAX_DOCUMENT_TEXT", 4_000)
    examples = {f"801.{i + 10}": text for i, text in enumerate(long_distinct_examples())}
    with within(10):
        found = run_examples(crparse.parse(document(examples)), rules_date="2026-01-16")
    stopped = [r.case.rule for r in found if "it reads in one document" in (r.reason or "")]
    # three sentences of ~450 characters an example: the budget (4,000) is spent by the third
    assert len(found) == 40 and stopped == [f"801.{i}" for i in range(12, 50)]
    assert "over the 4,000 it reads in one document" in found[-1].reason
    # one example printed 40 times costs the budget once
    again = {rule: examples["801.10"] for rule in examples}
    found = run_examples(crparse.parse(document(again)), rules_date="2026-01-16")
    assert not any("in one document" in (r.reason or "") for r in found)


def test_a_block_with_no_attack_stated_is_unsupported_saying_so():
    """'Rob blocks with a creature.' alone was 'unsupported: runner error: AttributeError' (an
    internal error shown as a gap of the runner)."""
    result = check("Rob blocks with a creature.", "2026-01-16")
    assert result.status == "unsupported" and result.reason == "a block by Rob with no attack on Rob stated before it"


def test_emit_pytest_names_many_copies_of_a_rule_number_in_linear_time(tmp_path):
    """Each copy of a rule number was named by one "_" more than the last: 8,000 copies of "800.2."
    with an example, 280 KB, took 28 s and wrote 32 MB (sweep 26)."""
    from crparse.examples.bounds import MAX_DOCUMENT_ITEMS

    body = "800.2. A rule.\n\nExample: Alex is.\n\n" * 8000
    path = tmp_path / "copies.txt"
    path.write_text("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 16, 2026.\n\n"
                    "800. General\n\n800.1. Text.\n\n" + body)
    out = tmp_path / "out"
    result = run_limited(["examples", str(path), "--emit-pytest", str(out)], seconds=10)
    assert result.ok_within_limits and result.returncode in (0, 1), (result.timed_out, result.stderr[-300:])
    written = next(out.iterdir()).read_text()
    names = re.findall(r"^def (test_\w+)\(", written, re.M)
    # MAX_DOCUMENT_ITEMS of them are written (sweep 27), each name short
    assert len(names) == len(set(names)) == MAX_DOCUMENT_ITEMS and max(map(len, names)) < 40
    assert len(written) < 200 * MAX_DOCUMENT_ITEMS
