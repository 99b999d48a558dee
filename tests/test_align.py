"""Alignment of two releases and their diff (crparse.align, crparse.diff), on pairs of small
releases written here: each test changes one thing between OLD and NEW and checks the pair it
gives, its kind and flags, and the word diff."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import jsonschema
import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import crparse
from crparse.align import align
from crparse.align.match import _searched
from crparse.diff.render import renumberings, summary, to_dict, to_html
from crparse.diff.report import diff
from crparse.diff.words import new_side, old_side, word_diff
from crparse.writers.json import schema

RULES = {
    "100.1": "These Magic rules apply to any Magic game with two or more players.",
    "100.2": "To play, each player needs their own deck of traditional Magic cards.",
    "100.3": "Some formats and casual variants allow players to use supplemental rules.",
    "100.4": "Each player may also have a sideboard, which is a group of additional cards.",
    "101.1": "Whenever a card's text directly contradicts these rules, the card takes precedence.",
    "101.2": "When a rule or effect allows or directs something to happen, and another effect "
             "states that it can't happen, the \"can't\" effect takes precedence.",
    "101.3": "Any part of an instruction that's impossible to perform is ignored.",
}
TITLES = {"100": "General", "101": "The Magic Golden Rules"}


def release(rules: dict[str, str], *, titles=TITLES, glossary: dict[str, str] | None = None,
            examples: dict[str, str] | None = None) -> str:
    """A small release: part 1, its sections and `rules` (number -> text) in number order."""
    lines = ["Magic: The Gathering Comprehensive Rules", "", "1. Game Concepts", ""]
    for section, title in titles.items():
        lines += [f"{section}. {title}", ""]
        for number, text in rules.items():
            if number.split(".")[0] == section:
                lines += [f"{number}{'.' if number[-1].isdigit() else ''} {text}", ""]
                if examples and number in examples:
                    lines += [f"Example: {examples[number]}", ""]
    lines += ["Glossary", ""]
    for term, text in (glossary or {"Ability": "Text on an object that explains what it does.",
                                     "Active Player": "The player whose turn it is."}).items():
        lines += [term, text, ""]
    lines += ["Credits", "", "Somebody"]
    return "\n".join(lines) + "\n"


def pairs_of(old: str, new: str, **options):
    return diff(align(crparse.parse(old), crparse.parse(new)), **options)


def pair(result, old: str | None = None, new: str | None = None):
    found = [p for p in result.pairs if (old is None or p.old == old) and (new is None or p.new == new)]
    assert len(found) == 1, found
    return found[0]


def renumbered(rules: dict[str, str], inserted_at: str, text: str) -> dict[str, str]:
    """`rules` with `text` inserted as rule `inserted_at` and the later rules of its section
    pushed up by one."""
    section, at = inserted_at.split(".")
    out = {}
    for number, body in rules.items():
        s, n = number.split(".")
        if s == section and int(n) >= int(at):
            number = f"{s}.{int(n) + 1}"
        out[number] = body
    out[inserted_at] = text
    return dict(sorted(out.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))


def test_the_same_release_is_unchanged_throughout():
    text = release(RULES)
    result = pairs_of(text, text)
    assert {p.kind for p in result.pairs} == {"unchanged"}
    assert all(p.old == p.new and not p.words and not p.flags for p in result.pairs)
    assert len(result.pairs) == 1 + 2 + len(RULES) + 2  # part, sections, rules, glossary


def test_an_inserted_rule_pushes_later_numbers_up_and_is_reported_as_a_range():
    new = renumbered(RULES, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    result = pairs_of(release(RULES), release(new))
    assert pair(result, new="100.2").kind == "added"
    assert pair(result, old="100.2").new == "100.3" and pair(result, old="100.2").kind == "moved"
    assert pair(result, old="100.4").new == "100.5" and pair(result, old="100.4").kind == "moved"
    assert pair(result, old="100.1").kind == "unchanged"
    assert renumberings(result.pairs) == ["100.2-100.4 -> +1"]
    assert result.counts()["moved"] == 3 and result.counts()["added"] == 1


def test_a_citation_of_a_rule_that_moved_is_not_a_change():
    """101.3 cites 100.3; 100.3 becomes 100.4 and 101.3 now cites 100.4: the same rule."""
    old = dict(RULES, **{"101.3": "Any impossible part of an instruction is ignored (see rule 100.3)."})
    new = renumbered(old, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    new["101.3"] = "Any impossible part of an instruction is ignored (see rule 100.4)."
    result = pairs_of(release(old), release(new))
    p = pair(result, old="101.3")
    assert (p.new, p.kind, p.flags) == ("101.3", "unchanged", ("references-renumbered",))
    assert [w for w in p.words if w[0] != "="] == [("-", "100.3"), ("+", "100.4")]  # shown, not counted
    assert "101.3" not in [c.new for c in result.pairs if c.kind in ("changed", "moved+changed")]


def test_a_citation_retargeted_to_another_rule_is_a_change():
    """The same edit, but 101.3 now cites 100.2, the new rule: another rule than 100.3 became."""
    old = dict(RULES, **{"101.3": "Any impossible part of an instruction is ignored (see rule 100.3)."})
    new = renumbered(old, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    new["101.3"] = "Any impossible part of an instruction is ignored (see rule 100.2)."
    p = pair(pairs_of(release(old), release(new)), old="101.3")
    assert (p.kind, p.flags) == ("changed", ("reference-retargeted",))


def test_a_citation_left_at_the_old_number_is_flagged():
    """101.3 still says 100.3, which is now another rule (old 100.2, pushed up by the insertion):
    the words are the same, the rule cited is not. Kind by the text; the flag says it."""
    old = dict(RULES, **{"101.3": "Any impossible part of an instruction is ignored (see rule 100.3)."})
    new = renumbered(old, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    result = pairs_of(release(old), release(new))
    p = pair(result, old="101.3")
    assert (p.kind, p.flags, p.words) == ("unchanged", ("reference-retargeted",), ())
    assert any("101.3" in line for line in summary(result))


def test_a_reworded_rule_is_changed_with_a_word_diff():
    new = dict(RULES, **{"100.3": "Some formats and casual variants allow players to use additional rules."})
    p = pair(pairs_of(release(RULES), release(new)), old="100.3")
    assert (p.new, p.kind) == ("100.3", "changed") and 0.8 < p.similarity < 1
    assert [w for w in p.words if w[0] != "="] == [("-", "supplemental"), ("+", "additional")]


def test_a_reworded_and_renumbered_rule_is_moved_and_changed():
    new = renumbered(RULES, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    new["100.4"] = "Some formats and casual variants allow players to use additional rules."
    p = pair(pairs_of(release(RULES), release(new)), old="100.3")
    assert (p.new, p.kind) == ("100.4", "moved+changed")


def test_a_rule_split_in_two():
    old = dict(RULES, **{"101.2": RULES["101.2"] + " Some rules describe exceptions to this precedence "
                                                  "in detail for replacement effects."})
    new = renumbered(RULES, "101.3", "Some rules describe exceptions to this precedence in detail for replacement effects.")
    result = pairs_of(release(old), release(new))
    split = [p for p in result.pairs if p.kind == "split"]
    assert [(p.old, p.new) for p in split] == [("101.2", "101.2"), ("101.2", "101.3")]
    assert pair(result, old="101.3").new == "101.4"


def test_two_rules_merged_into_one():
    new = dict(RULES)
    new["101.2"] = RULES["101.2"] + " " + RULES["101.3"]
    del new["101.3"]
    result = pairs_of(release(RULES), release(new))
    merged = [p for p in result.pairs if p.kind == "merged"]
    assert sorted((p.old, p.new) for p in merged) == [("101.2", "101.2"), ("101.3", "101.2")]
    assert result.counts()["removed"] == 0


def test_typography_of_another_era_is_not_a_change_unless_asked():
    old = dict(RULES, **{"101.2": "the \"can't\" effect -- it takes precedence over Magic(TM) cards; {T}"})
    new = dict(RULES, **{"101.2": "the “can’t” effect — it takes precedence over Magic™ cards; T"})
    p = pair(pairs_of(release(old), release(new)), old="101.2")
    assert (p.kind, p.flags, p.words) == ("unchanged", ("typography",), ())
    shown = pair(pairs_of(release(old), release(new), typography=True), old="101.2")
    edits = [w for w in shown.words if w[0] != "="]
    assert shown.kind == "unchanged" and ("-", "(TM)") in edits and ("+", "™") in edits
    assert any(op == "-" and '"' in t for op, t in edits) and any(op == "+" and "“" in t for op, t in edits)


def test_a_change_in_an_example_only_is_flagged_not_counted():
    old = release(RULES, examples={"101.3": "Alex casts a spell that can't be cast."})
    new = release(RULES, examples={"101.3": "Rob casts a spell that can't be cast."})
    p = pair(pairs_of(old, new), old="101.3")
    assert (p.kind, p.flags) == ("unchanged", ("examples",))
    assert ("-", "Alex") in p.words and ("+", "Rob") in p.words


def test_a_section_renumbered_with_its_rules_is_one_line():
    """As multiplayer 600-609 became 800-809 in 2009: the section and every rule under it."""
    titles = {"100": "General", "101": "The Magic Golden Rules", "102": "Numbers and Symbols"}
    old_rules = dict(RULES, **{"102.1": "Numbers are written in digits.", "102.2": "Symbols are in braces."})
    new_rules = {k.replace("102.", "104.", 1): v for k, v in old_rules.items()}
    new_titles = {"100": "General", "101": "The Magic Golden Rules", "104": "Numbers and Symbols"}
    result = pairs_of(release(old_rules, titles=titles), release(new_rules, titles=new_titles))
    assert pair(result, old="102").new == "104" and pair(result, old="102.2").new == "104.2"
    assert renumberings(result.pairs) == ["102 -> 104 (with 2 nodes under it)"]


def test_the_same_title_twice_is_paired_by_where_its_rules_went():
    """Every chapter has a section titled "General": titles alone cannot pair them."""
    titles = {"100": "General", "101": "General"}
    rules = {k: v for k, v in RULES.items()}
    new_titles = {"100": "General", "101": "Intro", "102": "General"}
    new_rules = {k.replace("101.", "102.", 1): v for k, v in rules.items()}
    new_rules["101.1"] = "An inserted section's only rule, unlike any other rule here."
    result = pairs_of(release(rules, titles=titles), release(new_rules, titles=new_titles))
    assert pair(result, old="101").new == "102" and pair(result, old="100").new == "100"


def test_a_renamed_glossary_term_with_the_same_text_is_moved():
    old = release(RULES, glossary={"Converted Mana Cost": "The total amount of mana in a card's mana cost.",
                                   "Active Player": "The player whose turn it is."})
    new = release(RULES, glossary={"Mana Value": "The total amount of mana in a card's mana cost.",
                                   "Active Player": "The player whose turn it is."})
    p = pair(pairs_of(old, new), old="glossary:Converted Mana Cost")
    assert p.new == "glossary:Mana Value" and p.kind in ("moved", "moved+changed")


def test_every_node_is_in_exactly_one_pair_except_splits_and_merges():
    new = renumbered(RULES, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    del new["101.3"]
    result = pairs_of(release(RULES), release(new))
    olds = [p.old for p in result.pairs if p.old and p.kind != "split"]
    news = [p.new for p in result.pairs if p.new and p.kind != "merged"]
    assert len(olds) == len(set(olds)) and len(news) == len(set(news))
    assert set(olds) == {r.number for r in crparse.parse(release(RULES)).rules} | {"glossary:Ability", "glossary:Active Player"}


def test_json_follows_its_schema_and_html_marks_the_edits():
    new = renumbered(RULES, "100.2", "A new rule about commanders, inserted in the middle of the section.")
    new["101.1"] = RULES["101.1"].replace("precedence", "priority")
    result = pairs_of(release(RULES), release(new))
    data = to_dict(result)
    jsonschema.validate(data, schema("diff"))
    assert data["schema_version"] == crparse.SCHEMA_VERSION
    page = to_html(result)
    assert "<del>precedence</del><ins>priority</ins>" in page
    lines = list(summary(result))
    assert lines[0].endswith("3 moved, 1 added") or "1 added" in lines[0]
    assert "    ... the card takes [-precedence-]{+priority+}." in lines or any("{+priority+}" in x for x in lines)


def test_cli_diff_exit_status_and_formats(tmp_path):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text(release(RULES))
    new.write_text(release(dict(RULES, **{"101.3": "Any part of an instruction that can't be done is ignored."})))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "crparse", "diff", *map(str, args)], capture_output=True, text=True)

    same = run(old, old)
    assert same.returncode == 0, same.stderr
    # 101.1-101.3 pushed up to 101.2-101.4, no text touched: listed, and no text differs (exit 0)
    moved = tmp_path / "moved.txt"
    moved.write_text(release({k if k < "101" else f"101.{int(k[4:]) + 1}": v for k, v in RULES.items()}))
    renumbering = run(old, moved)
    assert renumbering.returncode == 0 and "Renumbered (same text)" in renumbering.stdout, renumbering.stdout
    changed = run(old, new, "--json")
    assert changed.returncode == 1, changed.stderr
    jsonschema.validate(json.loads(changed.stdout), schema("diff"))
    page = run(old, new, "--html")
    assert page.stdout.startswith("<!DOCTYPE html>") and "<ins>" in page.stdout
    text = run(old, new, "--color", "never")
    assert "Changed:" in text.stdout and "{+" in text.stdout and "\x1b[" not in text.stdout
    missing = run(old, tmp_path / "gone.txt")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "gone.txt" in missing.stderr
    no_day = run("2021-02-29", new)  # a date's shape naming no file, nor a day: said so, not "no such file"
    assert no_day.returncode == 2 and no_day.stderr == (
        "crparse: diff: '2021-02-29' names no file, and is not a date (YYYY-MM-DD, or YYYY-MM, YYYY)\n")


# -- the word diff -------------------------------------------------------------------------------


@given(st.text(alphabet="ab .,'\n1", max_size=60), st.text(alphabet="ab .,'\n1", max_size=60))
def test_word_diff_gives_both_texts_back(a, b):
    d = word_diff(a, b)
    assert old_side(d) == a and new_side(d) == b
    assert all(op in "=-+" and text for op, text in d)
    assert all(x[0] != y[0] for x, y in zip(d, d[1:]))  # runs are merged


def test_word_diff_keeps_rule_numbers_whole():
    assert [w for w in word_diff("see rule 420.5e.", "see rule 704.5k.") if w[0] != "="] == [("-", "420.5e"), ("+", "704.5k")]


# -- the assignment ------------------------------------------------------------------------------


def test_the_search_finds_the_same_total_as_networkx_matching():
    """An independent check of the small exact solver: networkx's blossom algorithm."""
    rng = random.Random(7)
    for _ in range(300):
        scores = {(i, j): round(rng.uniform(0.3, 1.3), 3)
                  for i in range(rng.randint(1, 7)) for j in range(rng.randint(1, 7)) if rng.random() < 0.5}
        if not scores:
            continue
        ours = _searched(scores)
        graph = nx.Graph()
        graph.add_weighted_edges_from((("r", i), ("c", j), s) for (i, j), s in scores.items())
        theirs = nx.max_weight_matching(graph)
        assert len({i for i, _ in ours}) == len(ours) == len({j for _, j in ours})
        assert sum(scores[p] for p in ours) == pytest.approx(sum(graph[u][v]["weight"] for u, v in theirs))
