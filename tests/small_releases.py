"""Four small releases written here, for the store, lineage and site tests: a rule inserted
(later numbers pushed up), a rule reworded, a rule split, a rule removed."""

from __future__ import annotations

import datetime

BASE = {
    "100.1": "These Magic rules apply to any Magic game with two or more players.",
    "100.2": "To play, each player needs their own deck of traditional Magic cards.",
    "100.3": "Some formats and casual variants allow players to use supplemental rules.",
    "101.1": "Whenever a card's text directly contradicts these rules, the card takes precedence.",
    "101.2": "When a rule or effect allows or directs something to happen, and another effect states that it "
             "can't happen, the \"can't\" effect takes precedence. Adding abilities to an object is an exception.",
    "101.3": "Any part of an instruction that's impossible to perform is ignored (see rule 100.3).",
}


def release(rules: dict[str, str], month: int) -> str:
    """The release of `rules` dated the first of the `month`th quarter of 2020 (0: January 1)."""
    return release_of(rules, datetime.date(2020, 3 * month + 1, 1))


def release_of(rules: dict[str, str], day: datetime.date) -> str:
    """A small release of `rules` (number -> text), in force from `day`."""
    lines = ["Magic: The Gathering Comprehensive Rules", "",
             f"These rules are effective as of {day:%B} {day.day}, {day.year}.", "", "1. Game Concepts", ""]
    for section, title in (("100", "General"), ("101", "The Magic Golden Rules")):
        lines += [f"{section}. {title}", ""]
        for number, text in rules.items():
            if number.split(".")[0] == section:
                lines += [f"{number}. {text}", ""]
    lines += ["Glossary", "", "Ability", "Text on an object that explains what it does.", "",
              "Active Player", "The player whose turn it is.", "", "Credits", "", "Somebody"]
    return "\n".join(lines) + "\n"


def releases() -> list[dict[str, str]]:
    r1 = dict(BASE)
    # 2020-04-01: 100.2 inserted (100.2, 100.3 pushed up), 101.3 cites the moved 100.3 as 100.4
    r2 = {"100.1": BASE["100.1"], "100.2": "A commander deck has exactly one hundred cards, all different.",
          "100.3": BASE["100.2"], "100.4": BASE["100.3"], "101.1": BASE["101.1"], "101.2": BASE["101.2"],
          "101.3": BASE["101.3"].replace("100.3", "100.4")}
    # 2020-07-01: 101.2 split in two; 101.1 reworded
    r3 = dict(r2)
    r3["101.1"] = BASE["101.1"].replace("takes precedence", "wins")
    r3["101.2"] = BASE["101.2"].replace(" Adding abilities to an object is an exception.", "")
    r3["101.3"] = "Adding abilities to an object is an exception to rule 101.2."
    r3["101.4"] = r2["101.3"]
    # 2020-10-01: 100.2 (the commander rule) removed, later rules pushed down
    r4 = {"100.1": r3["100.1"], "100.2": r3["100.3"], "100.3": r3["100.4"], "101.1": r3["101.1"],
          "101.2": r3["101.2"], "101.3": r3["101.3"], "101.4": r3["101.4"].replace("100.4", "100.3")}
    return [r1, r2, r3, r4]


def write_releases(folder, count: int = 4):
    """The first `count` releases as text files in `folder` (2020-01-01.txt, 2020-04-01.txt, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    for month, rules in enumerate(releases()[:count]):
        (folder / f"2020-{3 * month + 1:02d}-01.txt").write_text(release(rules, month))
    return folder
