"""Targets of markup links (HTML anchors, Markdown links, reST labels) that name a rule."""

from __future__ import annotations

import re

from crparse import shapes as S

# "#rule-704.5k", "#704.5k", "cr.html#r704-5k", "rule_800_4a", "multiplayer.html#800.4"
_RULE_TARGET = re.compile(
    rf"(?<![\d.])(?P<section>{S.SECTION_NUMBER})(?:[._-](?P<rule>{S.RULE_PART})(?P<letter>{S.SUBRULE_LETTER})?)?(?![\d])",
    re.IGNORECASE,
)


def link_to_rule(target: str) -> str | None:
    """The rule (or section) number a link target names, if it names one."""
    fragment = target.rpartition("#")[2] if "#" in target else target
    match = _RULE_TARGET.search(fragment)
    if match is None or (not fragment.startswith(("r", "R", "s", "S")) and not fragment[:1].isdigit() and "rule" not in fragment.lower() and "section" not in fragment.lower()):
        return None
    number = match["section"]
    if match["rule"]:
        number += "." + match["rule"] + (match["letter"] or "").lower()
    return number
