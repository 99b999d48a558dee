"""Pages made of several releases: `.. cr:changes:: DATA.json` and `.. cr:history:: DATA.json`.

`crparse docs` writes their data (a diff of two consecutive releases, the lineages of a group of
rules) beside the reST source; the directives turn it into nodes. Links to the releases' own
pages are plain relative URIs (each release is a site of its own, built apart so that adding a
release rebuilds none of the others).
"""

from __future__ import annotations

import json

import msgspec
from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from crparse.diff.render import groups, renumberings, trimmed
from crparse.diff.report import Change, Diff
from crparse.sphinx.prepare import term_anchor

logger = logging.getLogger(__name__)

CONTEXT = 240  # characters of unchanged text kept on each side of an edit

KIND_WORDS = {
    "born": "added", "changed": "reworded", "moved": "renumbered", "moved+changed": "renumbered and reworded",
    "split": "split", "merged": "merged", "unchanged": "unchanged",
}


def anchor(key: str) -> str:
    return term_anchor(key.removeprefix("glossary:")) if key.startswith("glossary:") else key


def href(root: str, release: str, pages: dict[str, str], key: str | None) -> str | None:
    """The URI of a node's page in a release of the site, from a page `root` levels below it."""
    if key is None or key not in pages:
        return None
    return f"{root}{release}/{pages[key]}.html#{anchor(key)}"


def _link(text: str, uri: str | None) -> nodes.Node:
    if uri is None:
        return nodes.Text(text)
    return nodes.reference("", text, refuri=uri, internal=False)


class _DataDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def data(self) -> dict | None:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(rel)
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            logger.warning("%s: cannot read %s: %s", self.name, self.arguments[0], e, location=self.get_location())
            return None

    @property
    def root(self) -> str:
        return "../" * self.env.docname.count("/")


class ChangesDirective(_DataDirective):
    """What changed between two releases, for a reader: counts, renumberings as ranges, then
    each change with its words struck out and inserted, each side linked to its release."""

    def run(self) -> list[nodes.Node]:
        data = self.data()
        if data is None:
            return []
        d = msgspec.convert(data["diff"], Diff)
        old, new = data["old"], data["new"]
        texts: dict[str, str] = data.get("texts", {})
        title = f"Changes from {old['date'] or old['key']} to {new['date'] or new['key']}"
        page = nodes.section("", ids=["changes"], names=[nodes.fully_normalize_name(title)])
        page += nodes.title("", title)
        counts = d.counts()
        summary = ", ".join(f"{n} {KIND_WORDS.get(k, k) if k != 'added' else 'added'}" for k, n in counts.items()
                            if n and k != "unchanged")
        intro = nodes.paragraph("", f"{counts.get('unchanged', 0)} rules and glossary entries unchanged; "
                                    f"{summary or 'nothing else'}. ")
        intro += _link(f"The rules of {old['date'] or old['key']}", f"{self.root}{old['key']}/index.html")
        intro += nodes.Text(", ")
        intro += _link(f"the rules of {new['date'] or new['key']}", f"{self.root}{new['key']}/index.html")
        intro += nodes.Text(".")
        page += intro
        if not d.complete:
            page += nodes.paragraph("", "The comparison was cut short (a work limit): nodes past it show as "
                                        "added and removed.", classes=["cr-incomplete"])
        ranges = renumberings(d.pairs)
        if ranges:
            page += self._group("Renumbered, same text", [nodes.paragraph("", r) for r in ranges], "renumbered")
        seen: set[str] = set()
        for name, changes in groups(d):
            page += self._group(name, [self._change(c, data, texts, seen) for c in changes], nodes.make_id(name))
        return [page]

    def _group(self, name: str, items: list[nodes.Node], ident: str) -> nodes.section:
        section = nodes.section("", ids=[ident], names=[nodes.fully_normalize_name(name)])
        section += nodes.title("", name)
        section += items
        return section

    def _change(self, c: Change, data: dict, texts: dict[str, str], seen: set[str]) -> nodes.container:
        old, new, pages = data["old"]["key"], data["new"]["key"], data["pages"]
        key = c.new or c.old
        ident = anchor(key)
        # A merge lists each merged rule under the one new number: the first of them is the anchor.
        box = nodes.container("", classes=["cr-change"], ids=[] if ident in seen else [ident])
        seen.add(ident)
        head = nodes.paragraph()
        head += nodes.strong("", "", _link(key.removeprefix("glossary:"), href(self.root, new if c.new else old,
                                                                              pages["new" if c.new else "old"], key)))
        if c.old and c.new and c.old != c.new:
            head += nodes.Text(" (was ")
            head += _link(c.old.removeprefix("glossary:"), href(self.root, old, pages["old"], c.old))
            head += nodes.Text(")")
        flags = [f for f in c.flags if f != "examples" or c.kind not in ("unchanged", "moved")]
        if flags:
            head += nodes.inline("", "  " + ", ".join(flags), classes=["cr-flags"])
        box += head
        text = nodes.paragraph("", "", classes=["cr-words"])
        if c.words:
            last = len(c.words) - 1
            for i, (op, words) in enumerate(c.words):
                if op == "=":  # long unchanged stretches (a list of 300 creature types) cut to their ends
                    text += nodes.Text(trimmed(words, head=i > 0, tail=i < last, context=CONTEXT))
                else:
                    text += nodes.inline("", words, classes=["cr-del" if op == "-" else "cr-ins"])
        else:
            side = "new" if c.new else "old"
            shown = texts.get(f"{side}:{key}")
            if shown:
                text += nodes.inline("", shown, classes=["cr-ins" if c.kind == "added" else "cr-del" if c.kind == "removed" else "cr-same"])
        if text.children:
            box += text
        return box


class HistoryDirective(_DataDirective):
    """The history of a group of rules: for each lineage, where it was born, every release in
    which it was renumbered, reworded, split or merged (each linked to that release and to the
    change page), and its end."""

    def run(self) -> list[nodes.Node]:
        data = self.data()
        if data is None:
            return []
        title = data["title"]
        page = nodes.section("", ids=["history"], names=[nodes.fully_normalize_name(title)])
        page += nodes.title("", title)
        page += nodes.paragraph("", "Each rule followed through every release: when it was added, renumbered, "
                                    "reworded, split or merged, and when it ended.")
        for lineage in data["lineages"]:
            page += self._lineage(lineage, data.get("first"))
        return [page]

    def _lineage(self, lineage: dict, first: str | None) -> nodes.container:
        steps = lineage["steps"]
        last = steps[-1]
        box = nodes.container("", classes=["cr-lineage"], ids=[lineage["id"]])
        head = nodes.paragraph()
        head += nodes.strong("", "", _link(last["number"].removeprefix("glossary:"), self._href(last)))
        head += nodes.Text(f"  (since {steps[0]['date'] or steps[0]['release']}"
                           + (f", last in {last['date'] or last['release']}" if lineage.get("end") else "") + ")")
        box += head
        events = nodes.bullet_list(classes=["cr-events"])
        for step in steps:
            if step["kind"] == "unchanged":
                continue
            item = nodes.paragraph()
            item += nodes.Text(f"{step['date'] or step['release']}: ")
            words = KIND_WORDS.get(step["kind"], step["kind"])
            if step["kind"] == "born" and "split" in step.get("flags", ()):
                words = "split off"
            elif step["kind"] == "born" and step["release"] == first:
                words = "in the first release of this site"
            item += nodes.Text(words + (", as " if words.startswith("in the first") else " as "))
            item += _link(step["number"].removeprefix("glossary:"), self._href(step))
            if step.get("change"):
                # A renumbering alone is listed on the change page as part of a range.
                renumbered = step["kind"] == "moved" and not {"examples", "reference-retargeted"} & set(step["flags"])
                target = "renumbered" if renumbered else anchor(step["number"])
                item += nodes.Text(" (")
                item += _link("what changed", f"{self.root}changes/{step['change']}.html#{target}")
                item += nodes.Text(")")
            events += nodes.list_item("", item)
        end = lineage.get("end")
        if end:
            item = nodes.paragraph("", f"{lineage.get('end_date') or ''}: "
                                       + ("merged into another rule" if end == "merged" else "removed"))
            events += nodes.list_item("", item)
        box += events
        return box

    def _href(self, step: dict) -> str | None:
        if not step.get("page"):
            return None
        return f"{self.root}{step['release']}/{step['page']}.html#{anchor(step['number'])}"
