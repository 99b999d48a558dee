"""Line patterns on hostile lines: every pattern that looks at an input line takes time linear in
the line, whatever runs of spaces, tabs, dots, pipes or line breaks it holds.

The sweep found patterns that retried a run of spaces at every character before it (a lazy
`\\S.*?` then `[ \\t]*$`): a text file with the line `1. A`, 80,000 spaces and `x` was killed at
30 s of CPU, through every format that reaches the tokenizer. The rewritten patterns must say
exactly what the old ones said: the old ones are kept below, as text, and compared with the new
on random lines, on every line of the seed releases and on a sample of the historical corpus
where it is present; `equivalence_counts()` is the large run by hand (a million random lines and
every distinct corpus line).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import corpus_dir
from limits import run_limited

from crparse import lookup
from crparse import shapes as S
from crparse.readers import plaintext, rst

ROOT = Path(__file__).resolve().parents[1]

# The patterns as they were before the rewrite: the reference for what the new ones must say.
OLD = {
    "SECTION": r"[ \t]*(?P<number>\d{3})\.(?:[ \t]+(?P<rest>\S.*?))?[ \t]*$",
    "PART": r"[ \t]*(?P<number>[1-9])\.[ \t]+(?P<rest>\S.*?)[ \t]*$",
    "DECORATION": r"[ \t]*(?:[-=_*~#|+]{3,}|(?:\|[ \t]*)+)[ \t]*$",
    "TOC_ENTRY": r"""[ \t]*(?:(?P<number>\d{1,3})\.[ \t]+)?
    (?P<title>(?(number)\S.*?|(?:Introduction|Glossary|Credits|Index|Contents|Questions\?)))
    (?:[ \t]*\.{2,}[ \t]*(?P<page>\d{1,6}))?[ \t]*$""",
    "INDEX_ENTRY": r"(?P<indent>\t*| *)(?P<term>.*?)(?:,[ \t]*(?P<locators>\d.*))?[ \t]*$",
    "FUSED": r"(?P<head>[ \t]*\d{1,3}(?:\.|[ \t]+-)[ \t]+\S.*?\S)[ \t]{2,}"
    r"(?P<rule>\d{3}\.\d{1,3}[a-z]?[ \t]+[-\u2013][ \t]+\S.*)",
    "EXPLICIT_TARGET": r"(?s)(?P<title>.*?)\s*<(?P<target>[^<>]+)>",
    "PARENTHETICAL": r"\s*\((?:obsolete|informal)\)$",
}
OLD_PATTERNS = {name: re.compile(text, re.VERBOSE if name == "TOC_ENTRY" else re.IGNORECASE if name == "PARENTHETICAL" else 0)
                for name, text in OLD.items()}
# How each is used: match at the start of the line, or the whole line.
MATCHED = {"SECTION": S.SECTION, "PART": S.PART, "DECORATION": S.DECORATION, "TOC_ENTRY": S.TOC_ENTRY,
           "INDEX_ENTRY": S.INDEX_ENTRY}
WHOLE = {"FUSED": plaintext._FUSED}

ALPHABET = " \t.,1a-A|<>\r\n:x9\u2013\u00a0\x0b"
PREFIXES = ["", "", "1. ", "100. ", " 12. ", "\t", "\t\t", "  ", "Glossary", "Introduction", "1 - ", "100.1 - ",
            "|", "---", "a, 1", "Title <", "100.", "3.\t", "Index ..", "1. A  100.2a - B"]


def random_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        body = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 18)))
        lines.append(rng.choice(PREFIXES) + body + rng.choice(["", "", ">", "..5", ", 12", "  100.1 - X", "\n", " "]))
    return lines


def file_lines(path: Path) -> list[str]:
    # Split on "\n" alone: the "\r" of CRLF files stays, as it may in a line a reader hands on.
    return path.read_bytes().decode("utf-8", "replace").split("\n")


def seed_lines() -> list[str]:
    return [line for path in sorted((ROOT / "corpus").glob("*.txt")) for line in file_lines(path)]


def corpus_lines(every: int = 1) -> list[str]:
    lines = {line for path in sorted((corpus_dir() / "txt").glob("*.txt")) for line in file_lines(path)}
    return sorted(lines)[::every]


def _said(match: re.Match | None):
    return None if match is None else (match.span(), match.groupdict())


def _titled(text: str):
    match = OLD_PATTERNS["EXPLICIT_TARGET"].fullmatch(text)
    return None if match is None else (match["title"], match["target"])


def differences(lines: list[str]) -> tuple[int, list[tuple[str, str]]]:
    """How many comparisons were made, and the (pattern, line) pairs where old and new differ."""
    count, differ = 0, []
    for line in lines:
        for name, new in MATCHED.items():
            count += 1
            if _said(OLD_PATTERNS[name].match(line)) != _said(new.match(line)):
                differ.append((name, line))
        for name, new in WHOLE.items():
            count += 1
            if _said(OLD_PATTERNS[name].fullmatch(line)) != _said(new.fullmatch(line)):
                differ.append((name, line))
        for text in (line, line + " (Obsolete)", line + "\t(informal)\n"):
            count += 1
            if OLD_PATTERNS["PARENTHETICAL"].sub("", text) != lookup._PARENTHETICAL.sub("", text):
                differ.append(("PARENTHETICAL", text))
        for text in (line, line + ">", line.replace(">", "") + " <t>"):
            count += 1
            if _titled(text) != rst._titled_target(text):
                differ.append(("EXPLICIT_TARGET", text))
    return count, differ


def equivalence_counts(random_count: int = 2_000_000) -> None:
    """The manual, large version: every line of the corpus and millions of random ones."""
    for label, lines in (("random", random_lines(random_count, 9)), ("seeds", seed_lines()),
                         ("corpus", corpus_lines())):
        count, differ = differences(lines)
        print(f"{label}: {len(lines)} lines, {count} comparisons, {len(differ)} differences {differ[:5]!r}")


def test_rewritten_patterns_say_what_the_old_ones_said_on_random_lines():
    count, differ = differences(random_lines(6000, 9))
    assert count > 50_000 and differ == []


def test_rewritten_patterns_say_what_the_old_ones_said_on_real_lines():
    lines = seed_lines()
    if (corpus_dir() / "txt").is_dir():
        lines += corpus_lines(every=40)
    count, differ = differences(lines)
    assert count > 10_000 and differ == []


def test_old_index_term_keeps_its_space_before_the_comma():
    # The old term ends before the comma, not before the spaces: the tokenizer strips it.
    match = S.INDEX_ENTRY.match("Abc , 12  ")
    assert (match["term"], match["locators"]) == ("Abc ", "12  ")


N = 200_000
# Each pattern's hostile lines, as the expressions the child builds them from: runs of spaces,
# tabs, dots, pipes and commas, with and without a line break inside (which makes every line fail,
# after the longest retries).
HOSTILE = {
    "PART": [
        '"1. A" + " " * N + "x"',
        '"1.\\tA" + "\\t" * N + "x"',
        '"1. A" + " " * N + "\\n x"',
        '"1. " + "A " * N + "\\nx"',
    ],
    "SECTION": [
        '"100. A" + " " * N + "x"',
        '"100." + " " * N + "\\nx"',
        '"100. A" + " " * N + "\\r x\\n y"',
    ],
    "TOC_ENTRY": [
        '"1. A" + " " * N + "x"',
        '"1. A" + "." * N + "x"',
        '"1. A" + " ." * N + "x"',
        '"1. A" + " .." * N + "x"',
        '"1. A" + " " * N + "\\n x"',
        '"1. A" + ".. 1" * N + "\\nx"',
        '" " * N + "x"',
    ],
    "INDEX_ENTRY": [
        '"A" + " " * N + "x"',
        '"A" + " ," * N + "x"',
        '"A" + " " * N + "\\n x"',
        '"\\t" * N + "A\\nx"',
        '"A, 1" + " " * N + "\\nx"',
        '"A" + ", 1 " * N + "\\nx"',
        '" " * N + "A\\nx"',
    ],
    "DECORATION": [
        '"|" + " " * N + "x"',
        '"|||" + "\\t" * N + "x"',
        '"| " * N + "x"',
        '"|" * N + "x"',
        '"-" * N + " x"',
        '"|\\t" * N + "\\nx"',
    ],
    "FUSED": [
        '"1. A" + " " * N + "x"',
        '"1. A" + "x  100.1 - y" * (N // 12) + "\\n"',
        '"1" + " " * N + "x"',
        '"1. A" + "  1" * N',
    ],
    "PARENTHETICAL": [  # crparse.lookup: a glossary term's "(Obsolete)", found with .sub
        '"A" + " " * N + "x"',
        '"A" + " " * N + "(obsolete) x"',
        '"A" + " " * N + "(obsolete)"',
    ],
    "EXPLICIT_TARGET": [
        '"a" + " " * N + "x<"',
        '"a" + " " * N + "<t>"',
        '"Example:" * N',
        '"<" * N + ">"',
        '" " * N + "<t>"',
    ],
}
_CHILD = """
import sys, time
from crparse import shapes as S
from crparse.readers import plaintext, rst
name, N = sys.argv[1], {n}
lines = [eval(expression) for expression in {expressions!r}]
if name == "EXPLICIT_TARGET":
    use = rst._titled_target
elif name == "FUSED":
    use = plaintext._FUSED.fullmatch
elif name == "PARENTHETICAL":
    from crparse import lookup
    use = lambda line: lookup._PARENTHETICAL.sub("", line)
else:
    use = getattr(S, name).match
start = time.process_time()
for line in lines:
    use(line)
print(round(time.process_time() - start, 3))
"""


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_pattern_is_linear_on_runs_of_200000(name):
    code = _CHILD.format(n=N, expressions=HOSTILE[name])
    result = run_limited([name], code=code, seconds=4)
    assert not result.timed_out, f"{name}: killed at 4 s of CPU on a line of {N:,} (quadratic or worse)"
    assert result.returncode == 0, result.stderr.decode()
    assert float(result.stdout) < 1.0, f"{name}: {result.stdout.decode().strip()} s of CPU"


# The lines that reach the tokenizer from a text file (and from Markdown, DOCX, RTF, reST).
_SMALL = ("Magic: The Gathering Comprehensive Rules\n\n100. General\n\n100.1. These Magic rules apply to any Magic"
          " game.\n\n100.1a A two-player game.\n\n100.2. To play.\n\n")


@pytest.mark.parametrize("tail", ["1. A" + " " * N + "x", "100. A" + "\t" * N + "x"])
def test_text_file_with_a_long_run_parses_in_seconds(tmp_path, tail):
    path = tmp_path / "runs.txt"
    path.write_text(_SMALL + tail + "\n", encoding="utf-8")
    result = run_limited(["parse", "--json", str(path)])
    assert result.ok_within_limits, (result.returncode, result.stderr[-500:])
    assert result.cpu_seconds < 5, f"{result.cpu_seconds} s of CPU"
