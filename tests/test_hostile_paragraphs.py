"""A flood of paragraphs: 4 MB of one-word rules, glossary entries or Markdown headings.

Each paragraph becomes a node with a record in every output: 4 MB of "100.1a x" (400,000 rules)
took 8 s to parse and over 15 s as a GraphML graph, 220,000 glossary entries 15 s, 150,000
Markdown headings 9.5 s in markdown-it alone. Past CRPARSE_MAX_PARAGRAPHS (ten times the largest
release) a document is refused, a Markdown one before markdown-it runs. Each input runs through
the CLI in a child under 15 s and 1 GiB.
"""

from __future__ import annotations

import pytest
from limits import run_limited

import crparse
from crparse.errors import RefusedInput

HEAD = "Magic: The Gathering Comprehensive Rules\n\n1. Game Concepts\n\n100. General\n\n"


def _subrules(n: int) -> str:
    letters = "abcdefghijkmnpqrstuvwxyz"
    return "".join(f"{100 + i // (99 * 24)}.{i // 24 % 99 + 1}{letters[i % 24]} x\n" for i in range(n))


def _glossary(n: int) -> str:
    return HEAD + "100.1. Text.\n\n100.2. Text.\n\nGlossary\n\n" + "".join(f"Term{i}\nA thing.\n\n" for i in range(n))


def _markdown_headings(n: int) -> str:
    return "".join(f"# {i % 900 + 100}. T\n\n100.{i % 900 + 1}. x\n\n" for i in range(n))


def test_the_limit_refuses_naming_the_line_and_the_setting(tmp_path, monkeypatch):
    path = tmp_path / "many.txt"
    path.write_text(HEAD + _subrules(300))
    assert len(crparse.parse(path).rules) > 300  # within the default limit: read
    monkeypatch.setenv("CRPARSE_MAX_PARAGRAPHS", "100")
    with pytest.raises(RefusedInput) as refused:
        crparse.parse(path)
    message = str(refused.value)
    assert "more than 100 paragraphs" in message and "CRPARSE_MAX_PARAGRAPHS" in message
    # the 101st paragraph: after the title, the part, the section (lines 1, 3, 5), the 98th subrule (line 6 on)
    assert message.startswith(f"{path}:{refused.value.line}:") and refused.value.line == 103, message


@pytest.mark.parametrize(
    "name, text",
    [
        ("subrules.txt", lambda: HEAD + _subrules(380_000)),
        ("glossary.txt", lambda: _glossary(200_000)),
        ("headings.md", lambda: _markdown_headings(150_000)),
    ],
)
@pytest.mark.parametrize("command", [["parse"], ["refs", "--graph", "graphml"]])
def test_a_flood_of_paragraphs_is_refused_within_limits(tmp_path, name, text, command):
    path = tmp_path / name
    path.write_text(text())
    result = run_limited([*command, str(path)], seconds=15)
    assert result.ok_within_limits, (result.returncode, result.seconds, result.peak_mib, result.stderr[-300:])
    assert result.returncode == 2 and b"CRPARSE_MAX_PARAGRAPHS" in result.stderr, result.stderr[-300:]
    assert result.stderr.count(b"\n") == 1


def test_markdown_is_counted_before_markdown_it_runs(tmp_path, monkeypatch):
    path = tmp_path / "headings.md"
    path.write_text(_markdown_headings(60))
    assert crparse.parse(path).rules
    monkeypatch.setenv("CRPARSE_MAX_PARAGRAPHS", "100")
    import markdown_it

    def not_called(*args, **kwargs):  # pragma: no cover - the point is that it is not
        raise AssertionError("markdown-it ran")

    monkeypatch.setattr(markdown_it.MarkdownIt, "parse", not_called)
    with pytest.raises(RefusedInput, match="more than 100 paragraphs"):
        crparse.parse(path)


def test_tokenizing_stops_at_the_limit(tmp_path):
    """2M one-line paragraphs (4 MiB of "1"): every one was tokenized before the count, 9 s and
    360 MiB (90 times the input); tokenizing now stops at the first past the limit."""
    path = tmp_path / "ones.txt"
    path.write_text("100.1. Rule one.\n100.2. Rule two.\n" + "1\n" * (2 * 1024 * 1024 - 20))
    result = run_limited(["parse", str(path)], seconds=15)
    assert result.ok_within_limits and result.returncode == 2, (result.returncode, result.stderr[-300:])
    assert b":50000: more than 50,000 paragraphs" in result.stderr, result.stderr[-300:]
    assert result.peak_mib < 200, result.peak_mib  # under 50 times the input
