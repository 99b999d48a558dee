"""An example's text made ready for the sentence grammar: typography folded, quoted card text
masked, the wording drift of twenty years folded (grammars/lexicon.tsv), split into sentences.

Quoted card text is masked first («0», «1», ...) so that neither the lexicon nor the sentence
split reads inside it: a card's own words are read by the card grammar, and its full stops end
no sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

# Guillemets are the quote masks' own brackets: one in the text itself would read as a mask
# (a quote number the text never made, or one of thousands of digits), so it is folded away.
_TYPOGRAPHY = str.maketrans({"’": "'", "‘": "'", "—": "-", "–": "-", "\u00a0": " ", "«": "<", "»": ">"})
# “...”, "...", and a parenthesised quote ("Lava Axe (“...”) targeting Rob")
_QUOTE = re.compile(r"\(?“([^”]{1,2000})”\)?|\(?\"([^\"]{1,2000})\"\)?")
# ... but not where the sentence goes on after it ("Lava Axe (“... planeswalker.”) targeting Rob").
_MID_SENTENCE = re.compile(r"»\.(?=\s*[a-z,;])")
_UNMASK = re.compile(r"«(\d+)»")
_ADDED_STOP = re.compile(r"«(\d+)»\.?")  # the stop masking added after a quote that had its own
# A sentence ends at a full stop (or ? !) followed by a space and a capital, or at the end.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z«])")
# Words that open a sentence but are no name: lowercased for the grammar.
_OPENERS = frozenset(
    "If In During At When Since To The A An Each No Neither That It One Whether After Before He She They Creatures".split()
)


@dataclass(frozen=True)
class Prepared:
    sentences: tuple[str, ...]  # folded, quotes masked, final full stop removed
    quotes: tuple[str, ...]  # the card texts, by mask number
    original: tuple[str, ...]  # each sentence as printed (for reports)


@cache
def _lexicon() -> tuple[tuple[re.Pattern, str], ...]:
    rules = []
    text = files("crparse.examples").joinpath("grammars/lexicon.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            pattern, replacement = line.split("\t")
            rules.append((re.compile(pattern), replacement))
    return tuple(rules)


def fold(text: str) -> str:
    """The lexicon applied to `text` (quotes already masked)."""
    for pattern, replacement in _lexicon():
        text = pattern.sub(replacement, text)
    return text


def prepare(text: str) -> Prepared:
    text = " ".join(text.translate(_TYPOGRAPHY).split())
    quotes: list[str] = []

    def mask(m: re.Match) -> str:
        quoted = (m.group(1) or m.group(2)).strip()
        quotes.append(quoted.rstrip(",").strip())
        # a quote that ends with its own full stop ends the sentence around it too
        return f"«{len(quotes) - 1}»" + ("." if quoted.endswith((".", "!", "?")) else "")

    masked = _MID_SENTENCE.sub("»", _QUOTE.sub(mask, text))
    sentences, original = [], []
    for printed in _SENTENCE_END.split(masked):
        sentence = fold(printed).strip().rstrip(".").strip()
        if not sentence:
            continue
        original.append(_ADDED_STOP.sub(lambda m: f"“{quotes[int(m.group(1))]}”", printed.strip()))
        first, _, rest = sentence.partition(" ")
        if first in _OPENERS or first.rstrip(",") in _OPENERS:
            sentence = first[0].lower() + first[1:] + (" " + rest if rest else "")
        sentences.append(sentence)
    return Prepared(tuple(sentences), tuple(quotes), tuple(original))
