"""Checks of a built site, independent of the code that built it: every link and fragment of
every page, and the tables the version switcher and history links read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

_ids: dict[Path, set[str]] = {}


def ids(page: Path) -> set[str]:
    if page not in _ids:
        soup = BeautifulSoup(page.read_text("utf-8"), "lxml")
        _ids[page] = {t["id"] for t in soup.find_all(id=True)} | {t["name"] for t in soup.find_all("a", attrs={"name": True})}
    return _ids[page]


def pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if ".crparse" not in p.parts)


def broken_links(root: Path) -> tuple[int, list[str]]:
    """(links checked, "page: href: problem" for each link whose file or fragment is missing)."""
    _ids.clear()
    checked, broken = 0, []
    for page in pages(root):
        soup = BeautifulSoup(page.read_text("utf-8"), "lxml")
        for tag, attr in (("a", "href"), ("link", "href"), ("script", "src"), ("img", "src")):
            for element in soup.find_all(tag, attrs={attr: True}):
                ref = element[attr]
                parts = urlsplit(ref)
                if parts.scheme or ref.startswith(("//", "mailto:", "javascript:")):
                    continue
                checked += 1
                target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
                if target.is_dir():
                    target = target / "index.html"
                if not target.exists():
                    broken.append(f"{page.relative_to(root)}: {ref}: no such file")
                elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in ids(target):
                    broken.append(f"{page.relative_to(root)}: {ref}: no such anchor")
    return checked, broken


def _table(script: Path, name: str):
    text = script.read_text("utf-8")
    found = re.search(rf"window\.{name} = (.*?);\n", text, re.S)
    assert found, f"{script}: no {name}"
    return json.loads(found.group(1))


def switcher_problems(root: Path) -> tuple[int, list[str]]:
    """Each release's lineage.js: every entry's page and anchor exist, and its history page holds
    its lineage; versions.js names every release directory."""
    problems, checked = [], 0
    versions = _table(root / "versions.js", "CR_VERSIONS")
    for key, _label in versions:
        if not (root / key / "index.html").exists():
            problems.append(f"versions.js: {key}: no such release")
    for script in sorted(root.glob("*/lineage.js")):
        table = _table(script, "CR_LINEAGE")
        for anchor, (lineage, page, group) in table.items():
            checked += 1
            target = script.parent / f"{page}.html"
            if not target.exists() or anchor not in ids(target):
                problems.append(f"{script.relative_to(root)}: {anchor}: not on {page}.html")
            if lineage and group and lineage not in ids(root / "history" / f"{group}.html"):
                problems.append(f"{script.relative_to(root)}: {anchor}: lineage {lineage} not on history/{group}.html")
    return checked, problems


def inventory(path: Path) -> dict[str, dict[str, str]]:
    """objects.inv as {"cr:rule": {name: uri}, ...}, read by Sphinx's own inventory reader."""
    from sphinx.util.inventory import InventoryFile

    with open(path, "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    out: dict[str, dict[str, str]] = {}
    for kind, entries in (inv.data if hasattr(inv, "data") else inv).items():
        out[kind] = {name: (item.uri if hasattr(item, "uri") else item[2]) for name, item in entries.items()}
    return out
