"""The cards the multiplayer rules' examples name, keyed by card name, with their mechanical meaning.

``effect`` names the handler the reference game runs (``game.Game.cast`` / ``activate`` /
the static and triggered checks); ``params`` are its numbers.  ``text`` is the card's text as the
newest release quotes it (documentation only: the quoted wording drifts between releases, the
mechanics don't).  Old names of the same mechanics are separate entries (Grizzly Bears and Runeclaw
Bear, Soul Net and Extractor Demon, Control Magic and Mind Control, Threaten and Act of Treason,
Holy Day and Fog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["Card", "CARDS", "card", "known"]


@dataclass(frozen=True)
class Card:
    name: str
    types: tuple[str, ...]
    subtypes: tuple[str, ...] = ()
    supertypes: tuple[str, ...] = ()
    colors: tuple[str, ...] = ()
    power: int | None = None
    toughness: int | None = None
    keywords: tuple[str, ...] = ()
    effect: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    text: str = ""

    @property
    def is_permanent(self) -> bool:
        return not ({"Instant", "Sorcery"} & set(self.types))


def _c(name, types, effect=None, text="", **kw) -> Card:
    params = kw.pop("params", {})
    return Card(name=name, types=tuple(types), effect=effect, text=text,
                params=MappingProxyType(dict(params)), **kw)


_LIST = [
    # --- damage -------------------------------------------------------------------------------
    _c("Pyroclasm", ["Sorcery"], "damage_each", colors=("red",),
       params={"amount": 2, "creatures": True, "players": False},
       text="Pyroclasm deals 2 damage to each creature."),
    _c("Flame Rift", ["Sorcery"], "damage_each", colors=("red",),
       params={"amount": 4, "creatures": False, "players": True},
       text="Flame Rift deals 4 damage to each player."),
    _c("Lava Axe", ["Sorcery"], "damage_target", colors=("red",),
       params={"amount": 5, "target": "player or planeswalker"},
       text="Lava Axe deals 5 damage to target player or planeswalker."),
    _c("Lightning Blast", ["Instant"], "damage_target", colors=("red",),
       params={"amount": 4, "target": "any"},
       text="Lightning Blast deals 4 damage to any target."),
    _c("Cuombajj Witches", ["Creature"], "witches", subtypes=("Human", "Wizard"), colors=("black",),
       power=1, toughness=3, params={"amount": 1},
       text="{T}: Cuombajj Witches deals 1 damage to any target and 1 damage to any target of an "
            "opponent's choice."),
    _c("Heartless Hidetsugu", ["Creature"], "damage_each_player_half_life", subtypes=("Ogre", "Shaman"),
       supertypes=("Legendary",), colors=("red",), power=4, toughness=3,
       text="{T}: Heartless Hidetsugu deals to each player damage equal to half that player's life "
            "total, rounded down."),
    # --- replacement and prevention -----------------------------------------------------------
    _c("Captain's Maneuver", ["Instant"], "redirect_next", colors=("red", "white"),
       params={"amount": "X"},
       text="The next X damage that would be dealt to target creature, planeswalker, or player this "
            "turn is dealt to another target creature, planeswalker, or player instead."),
    _c("Mending Hands", ["Instant"], "prevent_next_to_target", colors=("white",),
       params={"amount": 4},
       text="Prevent the next 4 damage that would be dealt to any target this turn."),
    _c("Honorable Passage", ["Instant"], "honorable_passage", colors=("white",),
       text="The next time a source of your choice would deal damage to any target this turn, "
            "prevent that damage. If damage from a red source is prevented this way, Honorable "
            "Passage deals that much damage to the source's controller."),
    _c("Fog", ["Instant"], "prevent_all_combat", colors=("green",),
       text="Prevent all combat damage that would be dealt this turn."),
    _c("Holy Day", ["Instant"], "prevent_all_combat", colors=("white",),
       text="Prevent all combat damage that would be dealt this turn."),
    # --- information, legend, win/lose -------------------------------------------------------
    _c("Coat of Arms", ["Artifact"], "coat_of_arms",
       text="Each creature gets +1/+1 for each other creature on the battlefield that shares at "
            "least one creature type with it."),
    _c("Platinum Angel", ["Artifact", "Creature"], "cant_lose_opponents_cant_win", subtypes=("Angel",),
       power=4, toughness=4, keywords=("flying",),
       text="Flying. You can't lose the game and your opponents can't win the game."),
    _c("Transcendence", ["Enchantment"], "no_loss_for_zero_life", colors=("white",),
       text="You don't lose the game for having 0 or less life. When you have 20 or more life, you "
            "lose the game. Whenever you lose life, you gain 2 life for each 1 life you lost."),
    _c("Test of Endurance", ["Enchantment"], "upkeep_win_if_life", colors=("white",),
       params={"threshold": 50},
       text="At the beginning of your upkeep, if you have 50 or more life, you win the game."),
    _c("Lurking Jackals", ["Enchantment"], "opponent_life_state_trigger", colors=("black",),
       params={"threshold": 10},
       text="When an opponent has 10 life or less, if Lurking Jackals is an enchantment, it becomes "
            "a 3/2 Hound creature."),
    # --- life ------------------------------------------------------------------------------------
    _c("Beacon of Immortality", ["Instant"], "double_target_life", colors=("white",),
       text="Double target player's life total. Shuffle Beacon of Immortality into its owner's "
            "library."),
    _c("Lurking Evil", ["Enchantment"], "pay_half_life_rounded_up", colors=("black",),
       text="Pay half your life, rounded up: Lurking Evil becomes a 4/4 Horror creature with flying."),
    _c("Repay in Kind", ["Sorcery"], "set_each_life_lowest", colors=("black",),
       text="Each player's life total becomes the lowest life total among all players."),
    _c("Biorhythm", ["Sorcery"], "set_each_life_creatures", colors=("green",),
       text="Each player's life total becomes the number of creatures they control."),
    # --- choices ---------------------------------------------------------------------------------
    _c("Fact or Fiction", ["Instant"], "opponent_chooses", colors=("blue",),
       text="Reveal the top five cards of your library. An opponent separates those cards into two "
            "piles. Put one pile into your hand and the other into your graveyard."),
    # --- turns -----------------------------------------------------------------------------------
    _c("Time Walk", ["Sorcery"], "extra_turn", colors=("blue",),
       text="Take an extra turn after this one."),
    # --- control, tokens, leaving the game --------------------------------------------------------
    _c("Mind Control", ["Enchantment"], "aura_control", subtypes=("Aura",), colors=("blue",),
       text="Enchant creature. You control enchanted creature."),
    _c("Control Magic", ["Enchantment"], "aura_control", subtypes=("Aura",), colors=("blue",),
       text="Enchant creature. You control enchanted creature."),
    _c("Act of Treason", ["Sorcery"], "gain_control_until_eot", colors=("red",),
       text="Gain control of target creature until end of turn. Untap that creature. It gains haste "
            "until end of turn."),
    _c("Threaten", ["Sorcery"], "gain_control_until_eot", colors=("red",),
       text="Untap target creature and gain control of it until end of turn. That creature gains "
            "haste until end of turn."),
    _c("Bribery", ["Sorcery"], "bribery", colors=("blue",),
       text="Search target opponent's library for a creature card and put that card onto the "
            "battlefield under your control. Then that player shuffles their library."),
    _c("Genesis Chamber", ["Artifact"], "token_on_creature_enter",
       params={"token": "Myr", "power": 1, "toughness": 1},
       text="Whenever a nontoken creature enters, if Genesis Chamber is untapped, that creature's "
            "controller creates a 1/1 colorless Myr artifact creature token."),
    _c("Astral Slide", ["Enchantment"], "exile_return_at_end_step", colors=("white",),
       text="Whenever a player cycles a card, you may exile target creature. If you do, return that "
            "creature to the battlefield under its owner's control at the beginning of the next end "
            "step."),
    # --- triggers --------------------------------------------------------------------------------
    _c("Extractor Demon", ["Creature"], "trigger_creature_leaves", subtypes=("Demon",), colors=("black",),
       power=5, toughness=5, keywords=("flying",), params={"another": True},
       text="Flying. Whenever another creature leaves the battlefield, you may have target player "
            "mill two cards. Unearth {2}{B}"),
    _c("Soul Net", ["Artifact"], "trigger_creature_leaves", params={"another": False, "to": "graveyard"},
       text="Whenever a creature is put into a graveyard from the battlefield, you may pay {1}. If you "
            "do, you gain 1 life."),
    # --- attacks ---------------------------------------------------------------------------------
    _c("Teferi's Moat", ["Enchantment"], "moat", colors=("white", "blue"),
       text="As Teferi's Moat enters the battlefield, choose a color. Creatures of the chosen color "
            "without flying can't attack you."),
    # --- plain creatures ---------------------------------------------------------------------------
    _c("Runeclaw Bear", ["Creature"], subtypes=("Bear",), colors=("green",), power=2, toughness=2),
    _c("Runeclaw Bears", ["Creature"], subtypes=("Bear",), colors=("green",), power=2, toughness=2),
    _c("Grizzly Bears", ["Creature"], subtypes=("Bear",), colors=("green",), power=2, toughness=2),
    _c("Assault Griffin", ["Creature"], subtypes=("Griffin",), colors=("white",), power=3, toughness=2,
       keywords=("flying",)),
    _c("Serra Angel", ["Creature"], subtypes=("Angel",), colors=("white",), power=4, toughness=4,
       keywords=("flying", "vigilance")),
    _c("Wall of Wood", ["Creature"], subtypes=("Wall",), colors=("green",), power=0, toughness=3,
       keywords=("defender",)),
    _c("Hypnotic Specter", ["Creature"], subtypes=("Specter",), colors=("black",), power=2, toughness=2,
       keywords=("flying",)),
]

CARDS: Mapping[str, Card] = MappingProxyType({c.name.lower(): c for c in _LIST})


def known(name: str) -> bool:
    return name.strip().lower().replace("\u2019", "'") in CARDS


def card(name: str) -> Card:
    """The card named ``name`` (case-insensitive; curly apostrophes accepted)."""
    key = name.strip().lower().replace("\u2019", "'")
    try:
        return CARDS[key]
    except KeyError:
        raise KeyError(f"card not in the model's table: {name!r}") from None
