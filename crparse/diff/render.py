"""A diff as a reader sees it: a summary for the terminal, JSON for tools, HTML for a page.

The summary counts the pairs of each kind, collapses renumberings into ranges ("702.140-702.179
-> +1"; a section's rules that moved with it are not listed again), then shows each change with
its word diff: in colour on a terminal, else as [-deleted-]{+inserted+} (wdiff's notation).
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from crparse.align.pairs import KINDS
from crparse.diff.report import DIFF_SCHEMA_VERSION, Change, Diff
from crparse.numbers import SUBRULE_LETTERS, parse_number
from crparse.writers.json import valid_json
from crparse.writers.summary import printable

# -- JSON ---------------------------------------------------------------------------------------


def to_dict(d: Diff) -> dict:
    """The public JSON contract (crparse/writers/schema/diff.schema.json)."""
    return {
        "schema_version": DIFF_SCHEMA_VERSION,
        "old": {"date": d.old.date, "path": d.old.path},
        "new": {"date": d.new.date, "path": d.new.path},
        "typography": d.typography,
        "complete": d.complete,
        "counts": d.counts(),
        "pairs": [
            {"old": p.old, "new": p.new, "kind": p.kind, "flags": list(p.flags), "similarity": p.similarity,
             "words": [list(w) for w in p.words]}
            for p in d.pairs
        ],
    }


def to_json(d: Diff, indent: int | None = None) -> str:
    data = valid_json(to_dict(d))
    return (msgspec.json.format(data, indent=indent) if indent else data).decode("utf-8")


# -- the summary ----------------------------------------------------------------------------------


def _parent(key: str) -> str | None:
    number = parse_number(key) if not key.startswith("glossary:") else None
    return number.parent() if number is not None else None


def _split(key: str) -> tuple[str, int, str] | None:
    """'702.140' -> ('702.', 140, ''); '702.1p' -> ('702.1', 13, 'letter'), counting letters as
    the CR does (no l, no o); '601' -> ('', 601, '')."""
    number = parse_number(key) if not key.startswith("glossary:") else None
    if number is None:
        return None
    if number.letter is not None:
        return f"{number.section}.{number.rule}", SUBRULE_LETTERS.find(number.letter), "letter"
    if number.rule is not None:
        return f"{number.section}.", number.rule, ""
    return "", number.section, ""


def renumberings(pairs: tuple[Change, ...]) -> list[str]:
    """The renumberings of nodes whose text did not change, as ranges: a run of consecutive
    numbers moved by the same amount is one line; a node that moved only because its parent
    did ("601.3" under "601 -> 801") is counted under its parent."""
    moved = {p.old: p.new for p in pairs if p.old and p.new and p.old != p.new and p.kind in ("moved", "moved+changed")}

    def follows_parent(old: str, new: str) -> bool:
        parent = _parent(old)
        return parent is not None and parent in moved and new == moved[parent] + old[len(parent):]

    implied: dict[str, int] = {}
    explicit: list[tuple[str, str]] = []
    for p in pairs:
        if p.kind != "moved":
            continue
        if not follows_parent(p.old, p.new):
            explicit.append((p.old, p.new))
            continue
        top = _parent(p.old)
        while follows_parent(top, moved[top]):
            top = _parent(top)
        implied[top] = implied.get(top, 0) + 1
    lines: list[str] = []
    run: list[tuple[str, str]] = []

    def flush() -> None:
        if not run:
            return
        (a0, b0), (a1, b1) = run[0], run[-1]
        below = sum(implied.get(a, 0) for a, _ in run)
        note = f" (with {below} node{'s' if below != 1 else ''} under {'them' if len(run) > 1 else 'it'})" if below else ""
        if len(run) == 1:
            lines.append(f"{a0} -> {b0}{note}")
        else:
            pa, pb = _split(a0), _split(b0)
            delta = pb[1] - pa[1]
            if pa[0] == pb[0]:
                lines.append(f"{a0}-{a1} -> {'+' if delta > 0 else ''}{delta}{note}")
            else:
                lines.append(f"{a0}-{a1} -> {b0}-{b1}{note}")
        run.clear()

    for old, new in explicit:
        if run:
            (a, b) = run[-1]
            pa, pb, qa, qb = _split(a), _split(b), _split(old), _split(new)
            if (None not in (pa, pb, qa, qb) and qa[0] == pa[0] and qb[0] == pb[0] and qa[2] == pa[2]
                    and qa[1] == pa[1] + 1 and qb[1] - qa[1] == pb[1] - pa[1]):
                run.append((old, new))
                continue
            flush()
        run.append((old, new))
    flush()
    return lines


_RED, _GREEN, _BOLD, _DIM, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[2m", "\x1b[0m"


CONTEXT = 60  # characters of unchanged text shown on each side of an edit


def _words(change: Change, colour: bool) -> str:
    out = []
    last = len(change.words) - 1
    for i, (op, text) in enumerate(change.words):
        text = printable(text, lines=True)  # before the colours: escaped, the input's own are no colour
        if op == "=":
            out.append(trimmed(text, head=i > 0, tail=i < last))
        elif colour:
            out.append(f"{_RED if op == '-' else _GREEN}{text}{_RESET}")
        else:
            out.append(f"[-{text}-]" if op == "-" else f"{{+{text}+}}")
    return "".join(out)


def trimmed(text: str, *, head: bool, tail: bool, context: int = CONTEXT) -> str:
    """Unchanged text between edits, cut to `context` characters after the edit before it
    (`head`) and before the edit after it (`tail`), at word boundaries."""
    keep = context * (head + tail)
    if len(text) <= keep + 20:
        return text
    start = text[:context].rpartition(" ")[0] + " " if head else ""
    end = " " + text[-context:].partition(" ")[2] if tail else ""
    return f"{start}...{end}"


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.split("\n"))


def summary(d: Diff, *, colour: bool = False, texts: dict[str, str] | None = None) -> Iterator[str]:
    """The lines of the summary. `texts` (key -> text of the new release, or of the old for a
    removed node) gives the first words of added and removed nodes."""
    bold = (lambda s: f"{_BOLD}{s}{_RESET}") if colour else (lambda s: s)
    counts = d.counts()
    shown = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    yield printable(f"{d.old.date or d.old.path} -> {d.new.date or d.new.path}: {shown or 'nothing to compare'}")
    ranges = renumberings(d.pairs)
    if ranges:
        yield ""
        yield bold("Renumbered (same text):")
        yield from (f"  {printable(line)}" for line in ranges)  # a glossary term is the input's
    sections = {
        "Changed:": [p for p in d.pairs if p.kind in ("changed", "moved+changed")],
        "Split:": [p for p in d.pairs if p.kind == "split"],
        "Merged:": [p for p in d.pairs if p.kind == "merged"],
        "Examples changed (rule text unchanged):": [
            p for p in d.pairs if p.kind in ("unchanged", "moved") and "examples" in p.flags],
        "Same words, but a citation now names another rule:": [
            p for p in d.pairs if p.kind in ("unchanged", "moved") and "reference-retargeted" in p.flags],
        "Typography only:": [p for p in d.pairs if d.typography and p.kind in ("unchanged", "moved") and p.words
                             and "examples" not in p.flags and "references-renumbered" not in p.flags],
    }
    for title, changes in sections.items():
        if not changes:
            continue
        yield ""
        yield bold(title)
        for p in changes:
            head = p.new if p.old == p.new else f"{p.new} (was {p.old})"
            notes = [f for f in p.flags if f != "examples" or p.kind not in ("unchanged", "moved")]
            yield printable(f"  {head}" + (f"  [{', '.join(notes)}]" if notes else ""))
            if p.words:
                yield _indent(_words(p, colour))
    for title, kind, side in (("Added:", "added", "new"), ("Removed:", "removed", "old")):
        changes = [p for p in d.pairs if p.kind == kind]
        if not changes:
            continue
        yield ""
        yield bold(title)
        for p in changes:
            key = getattr(p, side)
            first = (texts or {}).get(f"{side}:{key}", "")
            first = " ".join(first.split())
            if key.startswith("glossary:"):  # its text starts with the term
                first = first.removeprefix(key.removeprefix("glossary:")).lstrip()
            yield printable(f"  {key}" + (f"  {first[:90]}{'...' if len(first) > 90 else ''}" if first else ""))


# -- HTML -----------------------------------------------------------------------------------------

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; }
del { background: #fdd; color: #900; } ins { background: #dfd; color: #060; text-decoration: none; }
.pair { margin: 1em 0; } .key { font-weight: bold; } .flags { color: #666; font-size: 90%; }
.text { white-space: pre-wrap; margin: .3em 0 0 1.5em; } table { border-collapse: collapse; }
td, th { padding: .1em .6em; text-align: left; } td.n { text-align: right; }
"""


def groups(d: Diff) -> list[tuple[str, list[Change]]]:
    """The changes a reader looks for, in the order a page shows them; empty groups left out."""
    found = (
        ("Changed", [p for p in d.pairs if p.kind in ("changed", "moved+changed")]),
        ("Split", [p for p in d.pairs if p.kind == "split"]),
        ("Merged", [p for p in d.pairs if p.kind == "merged"]),
        ("Examples changed", [p for p in d.pairs if p.kind in ("unchanged", "moved") and "examples" in p.flags]),
        ("Same words, but a citation now names another rule",
         [p for p in d.pairs if p.kind in ("unchanged", "moved") and "reference-retargeted" in p.flags]),
        ("Added", [p for p in d.pairs if p.kind == "added"]),
        ("Removed", [p for p in d.pairs if p.kind == "removed"]),
    )
    return [(name, changes) for name, changes in found if changes]


def to_html(d: Diff, texts: dict[str, str] | None = None) -> str:
    """A standalone page: the counts, the renumberings, each change with <del>/<ins>."""
    import html  # only here: its entity table takes 2 ms to import, for --html alone

    def e(text: str) -> str:  # the input's control characters shown as in the summary: the page may go to a terminal
        return html.escape(printable(text, lines=True))

    title = f"Comprehensive Rules: {d.old.date or d.old.path} to {d.new.date or d.new.path}"
    out = [f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{e(title)}</title>",
           f"<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{e(title)}</h1>", "<table>"]
    for kind in KINDS:
        out.append(f"<tr><th>{e(kind)}</th><td class=\"n\">{d.counts()[kind]}</td></tr>")
    out.append("</table>")
    ranges = renumberings(d.pairs)
    if ranges:
        out.append("<h2>Renumbered (same text)</h2>\n<ul>")
        out += [f"<li>{e(r)}</li>" for r in ranges]
        out.append("</ul>")
    for name, changes in groups(d):
        out.append(f"<h2>{e(name)}</h2>")
        for p in changes:
            key = p.new or p.old
            label = key if p.old in (None, p.new) or p.new is None else f"{p.new} (was {p.old})"
            flags = f" <span class=\"flags\">{e(', '.join(p.flags))}</span>" if p.flags else ""
            out.append(f"<div class=\"pair\" id=\"{e(key)}\"><span class=\"key\">{e(label)}</span>{flags}")
            if p.words:
                body = "".join(e(t) if op == "=" else f"<{'del' if op == '-' else 'ins'}>{e(t)}</{'del' if op == '-' else 'ins'}>"
                               for op, t in p.words)
                out.append(f"<div class=\"text\">{body}</div>")
            elif texts:
                side = "new" if p.new else "old"
                text = texts.get(f"{side}:{key}")
                if text:
                    tag = "ins" if p.kind == "added" else "del" if p.kind == "removed" else "span"
                    out.append(f"<div class=\"text\"><{tag}>{e(text)}</{tag}></div>")
            out.append("</div>")
    out.append("</body>\n</html>\n")
    return "\n".join(out)
