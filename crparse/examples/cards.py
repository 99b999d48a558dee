"""Quoted card text -> what the card does (grammars/cards.lark), in the rules model's terms:
an effect name and its parameters, as crparse.model.cards names them.

The examples quote the text of most cards they use; a test takes what a card does from that
quote, so a changed number in the quote changes the test. A card named without a quote is taken
from the model's card table by its name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files

from lark import Lark, Transformer
from lark.exceptions import LarkError

from crparse.examples.bounds import MAX_QUOTE, OutOfBounds, bounded_number


@dataclass(frozen=True)
class CardText:
    effect: str
    params: tuple[tuple[str, object], ...] = ()
    abilities: tuple[str, ...] = ()  # every ability's effect, in order (a card may have several)


@cache
def _parser() -> Lark:
    return Lark(files("crparse.examples").joinpath("grammars/cards.lark").read_text(encoding="utf-8"),
                parser="earley", ambiguity="resolve")


@cache
def _lexicon() -> tuple[tuple[re.Pattern, str], ...]:
    text = files("crparse.examples").joinpath("grammars/card-lexicon.tsv").read_text(encoding="utf-8")
    return tuple((re.compile(p), r) for p, r in (line.split("\t") for line in text.splitlines()
                                                 if line.strip() and not line.startswith("#")))


_SUBJECT = re.compile(r"^((?:\{T\}: )?)(?!CARDNAME)[A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)* (?=deals\b)")


def fold(quote: str, name: str | None) -> str:
    text = quote.strip().rstrip(".").strip()
    if name:
        text = re.sub(rf"\b{re.escape(name)}\b", "CARDNAME", text)
    # an unnamed quote names its card as the subject of its first sentence ("Pyroclasm deals ...")
    text = _SUBJECT.sub(r"\1CARDNAME ", text)
    for pattern, replacement in _lexicon():
        text = pattern.sub(replacement, text)
    return text.lower()


class _Effects(Transformer):
    def start(self, c):
        effects = [e for e in c if e is not None]
        return effects

    def __default__(self, data, children, meta):
        numbers = [bounded_number(str(x)) for x in children if hasattr(x, "type") and x.type == "N"]
        return (str(data), numbers, [x for x in children if isinstance(x, str) and not hasattr(x, "type")])

    def noop(self, c):
        return None

    def reveal(self, c):
        return None

    def any_target(self, c):
        return "any"

    def target_player(self, c):
        return "player"

    def you(self, c):
        return "you"


_PARAMS = {
    "damage_each_creature": ("damage_each", lambda n, w: {"amount": n[0], "creatures": True, "players": False}),
    "damage_each_player": ("damage_each", lambda n, w: {"amount": n[0], "creatures": False, "players": True}),
    "damage_target": ("damage_target", lambda n, w: {"amount": n[0], "target": w[0] if w else "any"}),
    "witches": ("witches", lambda n, w: {"amount": n[0]}),
    "half_life_damage": ("damage_each_player_half_life", lambda n, w: {}),
    "redirect_next": ("redirect_next", lambda n, w: {"amount": "X"}),
    "prevent_next": ("prevent_next_to_target", lambda n, w: {"amount": n[0]}),
    "prevent_all_combat": ("prevent_all_combat", lambda n, w: {}),
    "prevent_all_by_creatures": ("prevent_all_by_creatures", lambda n, w: {}),
    "double_life": ("double_target_life", lambda n, w: {"whose": w[0] if w else "player"}),
    "set_life": ("set_life", lambda n, w: {"value": n[0], "whose": w[0] if w else "player"}),
    "set_each_lowest": ("set_each_life_lowest", lambda n, w: {}),
    "set_each_creatures": ("set_each_life_creatures", lambda n, w: {}),
    "pay_half_life": ("pay_half_life_rounded_up", lambda n, w: {}),
    "upkeep_win": ("upkeep_win_if_life", lambda n, w: {"threshold": n[0]}),
    "cant_lose": ("cant_lose_opponents_cant_win", lambda n, w: {}),
    "no_loss_for_zero": ("no_loss_for_zero_life", lambda n, w: {}),
    "coat_of_arms": ("coat_of_arms", lambda n, w: {}),
    "aura_control": ("aura_control", lambda n, w: {}),
    "gain_control": ("gain_control_until_eot", lambda n, w: {}),
    "opponent_chooses": ("opponent_chooses", lambda n, w: {}),
    "trigger_blocked": ("trigger_blocked", lambda n, w: {"by_creature": False}),
    "trigger_blocked_by": ("trigger_blocked", lambda n, w: {"by_creature": True}),
    "trigger_creature_leaves": ("trigger_creature_leaves", lambda n, w: {"another": True}),
    "trigger_creature_dies": ("trigger_creature_leaves", lambda n, w: {"another": False, "to": "graveyard"}),
    "opponent_life_trigger": ("opponent_life_state_trigger", lambda n, w: {"threshold": n[0]}),
}


@lru_cache(maxsize=1024)
def read_card(quote: str, name: str | None = None) -> CardText | None:
    """What the quoted text says the card does, or None when the card grammar cannot read it."""
    folded = fold(quote, name)
    if len(folded) > MAX_QUOTE:  # Earley's cost grows with the text: past the bound it is not read
        return None
    try:
        found = _Effects().transform(_parser().parse(folded))
    except (LarkError, OutOfBounds):  # no template reads it, or it states a number past the bound
        return None
    if not found:
        return None
    effects = []
    for kind, numbers, words in found:
        effect, params = _PARAMS[kind]
        effects.append((effect, params(numbers, words)))
    main, params = effects[0]
    return CardText(main, tuple(params.items()), tuple(e for e, _ in effects))
