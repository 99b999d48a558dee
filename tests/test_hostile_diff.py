"""Hostile input to `crparse diff`: documents made so that aligning them costs too much (found by a
fresh sweep of a helper session: rules of 100,000 words, thousands of rules that read alike, a flood
of splits, words shared by every rule). The alignment has a work limit (crparse.align.match:
WORK_FACTOR, CALLS_PER_UNIT, MAX_CALLS); past it the alignment says it was cut short. Each case
runs as a user runs crparse, in a child under tests/limits.py's limits (15 s, 1 GiB)."""

from __future__ import annotations

import json
import random

import pytest
from limits import run_limited

HEAD = "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 1, 2020.\n\n1. Game Concepts\n\n"


def _words(rng: random.Random, n: int, vocabulary: int = 3000) -> str:
    return " ".join(f"w{rng.randrange(vocabulary)}" for _ in range(n))


def _document(rules: list[str]) -> str:
    body = []
    for i, text in enumerate(rules):
        section = 100 + i // 900
        if i % 900 == 0:
            body.append(f"{section}. Section {section}\n")
        body.append(f"{section}.{i % 900 + 1}. {text}\n")
    return HEAD + "\n".join(body) + "\n"


def _sections(rules: list[str], sections: int = 80) -> str:
    per = len(rules) // sections
    return HEAD + "\n".join(f"{100 + s}. Section {s}\n\n" + "\n".join(
        f"{100 + s}.{j + 1}. {rules[s * per + j]}\n" for j in range(per)) for s in range(sections)) + "\n"


def _ten_words(rng: random.Random) -> str:
    words = ["tap", "untap", "creature", "player", "card", "mana", "spell", "the", "a", "of"]
    body = []
    for part in range(1, 10):
        body.append(f"{part}. Part {part}\n")
        for section in range(part * 100, part * 100 + 40):
            body.append(f"{section}. Section {section}\n")
            body += [f"{section}.{n}. " + " ".join(rng.choice(words) for _ in range(15)) + ".\n" for n in range(1, 31)]
    return HEAD.replace("1. Game Concepts\n\n", "") + "\n".join(body) + "\n"


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _cases(tmp_path):
    rng = random.Random(7)
    long_a = _words(rng, 100_000)
    long_b = long_a.replace("w1 ", "w2 ", 50)
    alike = [f"{_words(rng, 12, vocabulary=40)}" for _ in range(15_000)]
    shared = [f"aaa bbb ccc ddd eee fff ggg hhh iii jjj {i}" for i in range(20_000)]
    pieces = [_words(rng, 400) for _ in range(20)]
    return {
        "a rule of 100,000 words, changed": (_document(["x", long_a]), _document(["x", long_b])),
        "15,000 rules that read alike, renumbered by one": (_document(alike), _document(["new"] + alike[:-1])),
        "20,000 rules of the same common words": (_document(shared), _document(list(reversed(shared)))),
        "a rule split into 20 long pieces": (_document(["a", "b", " ".join(pieces)]), _document(["a", "b", *pieces])),
        # groups of hundreds of candidates each: networkx's matching, cubic in a group, took 18 s (sweep 28)
        "two unrelated releases of 16,000 rules": (_sections([_words(rng, 12) for _ in range(16_000)]),
                                                   _sections([_words(rng, 12) for _ in range(16_000)])),
    }


@pytest.mark.parametrize("name", ["a rule of 100,000 words, changed", "15,000 rules that read alike, renumbered by one",
                                  "20,000 rules of the same common words", "a rule split into 20 long pieces",
                                  "two unrelated releases of 16,000 rules"])
def test_an_expensive_diff_ends_in_time(tmp_path, name):
    old, new = _cases(tmp_path)[name]
    a, b = _write(tmp_path, "old.txt", old), _write(tmp_path, "new.txt", new)
    result = run_limited(["diff", a, b, "--json"], seconds=15)
    assert result.ok_within_limits, (result.seconds, result.peak_mib, result.stderr[-300:])
    assert result.returncode in (0, 1), result.stderr[-500:]
    data = json.loads(result.stdout)
    assert data["complete"] in (True, False)
    if not data["complete"]:  # said on stderr too, one line
        assert b"cut short" in result.stderr and result.stderr.count(b"\n") == 1


def test_real_size_alignments_are_complete(tmp_path):
    rng = random.Random(3)
    rules = [_words(rng, 30) for _ in range(2_000)]
    changed = rules[:1000] + ["an inserted rule of new words"] + [r + " more" for r in rules[1000:]]
    a, b = _write(tmp_path, "old.txt", _document(rules)), _write(tmp_path, "new.txt", _document(changed))
    result = run_limited(["diff", a, b, "--json"], seconds=15)
    data = json.loads(result.stdout)
    assert data["complete"] is True and data["counts"]["added"] >= 1


def test_a_lineage_of_unrelated_releases_ends_in_time(tmp_path):
    """Dense groups of 60 units were matched by networkx, 0.11 s each: each step between five
    releases of 10,800 rules of ten words took 5 s, the lineage 23 s (sweep 29)."""
    rng = random.Random(5)
    folder = tmp_path / "rel"
    folder.mkdir()
    for month in range(1, 5):
        text = _ten_words(rng).replace("January 1, 2020", f"{['January', 'February', 'March', 'April'][month - 1]} 1, 2020")
        _write(folder, f"2020-{month:02d}-01.txt", text)
    result = run_limited(["lineage", "--json", str(folder)], seconds=15)
    assert result.ok_within_limits, (result.seconds, result.peak_mib, result.stderr[-300:])
    assert result.returncode in (0, 1), result.stderr[-500:]
    assert len(json.loads(result.stdout)["releases"]) == 4


def test_comparing_long_texts_by_words_is_charged_what_it_costs():
    """Texts compared by their words (past MAX_EXACT_PRODUCT) were charged their lengths, and
    counting words costs ~40 times that: 160 rules of 25 KB each side, all reworded, took 16 s
    within the work limit (sweep 34)."""
    from crparse.align import match

    budget = match._Budget(10**12, 10**6)
    a, b = "word " * 2_500, "other " * 2_500
    assert len(a) * len(b) > match.MAX_EXACT_PRODUCT
    budget.ratio(a, b)
    assert budget.spent >= 16 * (len(a) + len(b))
