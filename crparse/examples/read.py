"""An example's text -> a Scenario, through the sentence grammar (grammars/examples.lark).

Each sentence is parsed on its own (lark Earley: the templates overlap, and a sentence is short);
the tree becomes facts by the transformer below, one method per template. A sentence no template
reads, or a template with no meaning here yet, makes the example `unsupported`, naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError, VisitError

from crparse.examples import bounds
from crparse.examples.bounds import MAX_EXAMPLE_TEXT, MAX_SENTENCE, OutOfBounds, bounded_number
from crparse.examples.scenario import SETUP_KINDS, Branch, Fact, Scenario
from crparse.examples.text import prepare

_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split())}


class Unsupported(Exception):
    """The example cannot become a test (yet): `reason` says which sentence or which meaning."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@cache
def _parser() -> Lark:
    grammar = files("crparse.examples").joinpath("grammars/examples.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="earley", ambiguity="resolve", start="start")


@cache
def _vocabulary() -> tuple[frozenset[str], tuple[str, ...]]:
    """The lower-case words the grammar's templates spell out, and the words after which it
    takes free text ("because ..."). A sentence with a lower-case word outside them cannot
    parse: it is refused before Earley runs (a failed parse costs ~20 ms; most examples outside
    the multiplayer chapter fail on their first sentence)."""
    grammar = files("crparse.examples").joinpath("grammars/examples.lark").read_text(encoding="utf-8")
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"i?', grammar)
    words = {w for lit in literals for w in re.findall(r"[a-z][a-z']*", lit.lower())}
    return frozenset(words), ("because", "even though")


_WORD = re.compile(r"(?<![A-Za-z'«\d])[a-z][a-z']*")
_KEYWORD = re.compile(r"[a-z]+walk")


def _may_parse(sentence: str) -> bool:
    """Whether Earley may read the sentence: every lower-case word in it is one the templates spell
    out, and there is one at least (every template spells out one: a sentence of capitals, digits
    or punctuation alone cannot parse, and a failed parse costs ~8 ms however short the sentence)."""
    words, free = _vocabulary()
    for marker in free:
        at = sentence.find(f" {marker} ")
        if at >= 0:
            sentence = sentence[:at + len(marker) + 1]
    found = _WORD.findall(sentence)
    return bool(found) and all(w in words or _KEYWORD.fullmatch(w) for w in found)


@lru_cache(maxsize=8192)
def _tree(sentence: str) -> Tree | None:
    """The parse of one sentence, None if no template reads it (cached either way: releases
    repeat most sentences, and a failed Earley parse costs the most)."""
    if not _may_parse(sentence):
        return None
    try:
        return _parser().parse(sentence)
    except LarkError:
        return None


def _negated(children) -> bool:
    return any(isinstance(x, Token) and x.type in ("NOT", "CANNOT", "DOES_NOT", "DO_NOT") for x in children)


def _plain(children) -> list:
    return [x for x in children if not (isinstance(x, Token) and x.type in ("NOT", "CANNOT", "DOES_NOT", "DO_NOT"))]


def number(token: str) -> int:
    if not token.isdigit():
        return _NUMBER_WORDS[token.lower()]
    try:
        return bounded_number(token)
    except OutOfBounds as why:
        raise Unsupported(str(why)) from None


# A player as the text names one: ("name", "Alex"), ("neighbour", "Alex", "left"), ("a player",),
# ("that player",), ("an emperor",), ("themself",). The runner decides who that is.
Who = tuple


@dataclass(frozen=True)
class _Card:
    name: str | None
    kind: str | None
    quote: int | None


class _Facts(Transformer):
    """Tree -> list of facts (a clause may state several)."""

    def __init__(self, index: int):
        super().__init__()
        self.index = index

    def _fact(self, kind: str, negated: bool = False, **args) -> list[Fact]:
        return [Fact(kind, tuple(args.items()), negated, self.index)]

    def __default__(self, data, children, meta):
        raise Unsupported(f"no meaning yet for the sentence form `{data}`")

    # -- structure ---------------------------------------------------------------------------
    def start(self, c):
        return c[0]

    def clauses(self, c):
        return [f for part in c for f in part]

    def framed(self, c):
        return c[0] + c[1]

    def same_game(self, c):
        return self._fact("same-game") + c[0]

    def in_response(self, c):
        # resolves before the spell it responds to (the one told just before it)
        return [Fact(f.kind, f.args + (("in_response", True),), f.negated, f.sentence) if isinstance(f, Fact) else f for f in c[0]]

    def before_end_of_turn(self, c):
        return c[0]

    def conditional(self, c):
        return [Branch(tuple(c[0] + c[1]), self.index)]

    def otherwise(self, c):
        return [Branch(tuple(c[0] + c[1]), self.index)]

    def since(self, c):
        return c[0] + c[1]

    def on_resolve(self, c):
        return c[1]

    def frame(self, c):
        return c[0]

    def game(self, c):
        out = []
        for child in c:
            if isinstance(child, list):
                out += child
        return out

    def size(self, c):
        return self._fact("players", count=number(c[0]))

    def two_headed_giant(self, c):
        return self._fact("variant", name="two-headed giant")

    def emperor(self, c):
        return self._fact("variant", name="emperor")

    def grand_melee(self, c):
        return self._fact("variant", name="grand melee")

    def alternating_teams(self, c):
        return self._fact("variant", name="alternating teams")

    def free_for_all(self, c):
        return self._fact("variant", name="free-for-all")

    def everyone_range(self, c):
        return self._fact("everyone-range", range=number(c[0]))

    def player_count(self, c):
        return self._fact("players", count=number(c[0]))

    def team_count(self, c):
        return self._fact("teams", count=number(c[0]), names=tuple(str(t) for t in c[1:]))

    def team_size(self, c):
        return self._fact("team-size", size=number(c[0]))

    # -- players --------------------------------------------------------------------------------
    def named(self, c):
        return ("name", str(c[0]))

    def neighbour(self, c):
        return ("neighbour", c[0][1], str(c[1]))

    def some_player(self, c):
        return ("a player",)

    def player_on_team(self, c):
        return ("a player", number(c[1]))

    def that_player(self, c):
        return ("that player",)

    def an_emperor(self, c):
        return ("an emperor",)

    def an_emperor_ranged(self, c):
        return ("an emperor", number(c[-1]))

    def themself(self, c):
        return ("themself",)

    def pronoun(self, c):
        return ("pronoun",)

    def possessive(self, c):
        words = " ".join(str(x) for x in c if isinstance(x, Token))
        if c and isinstance(c[-1], Token) and c[-1].type == "CARD":
            return ("controller of", str(c[-1]))
        return {"the emperor's": ("an emperor",), "that player's": ("that player",),
                "the player's": ("that player",)}.get(words, ("pronoun",))

    def target(self, c):
        return ("object", c[0], str(c[1])) if len(c) == 2 else c[0]

    def attacker(self, c):
        card = next((str(x) for x in c if isinstance(x, Token) and x.type == "CARD"), None)
        if card is not None:
            return ("creature", card)
        keyword = next((str(x) for x in c if isinstance(x, Token) and x.type == "KEYWORD"), None)
        return ("creature", "a creature" + (f" with {keyword}" if keyword else ""))

    def attacks(self, c):
        pairs = list(zip(c[1::2], c[2::2]))
        return [f for defender, creature in pairs for f in self._fact("attacks", player=c[0], defender=defender, creature=creature)]

    def blocks(self, c):
        return self._fact("blocks", player=c[0], creature=c[1])

    def must_choose(self, c):
        return self._fact("must-choose", player=c[0], choices=tuple(c[1:]))

    def named_possessive(self, c):
        return ("name", str(c[0]))

    def player_list(self, c):
        return tuple(c)

    # -- setup ------------------------------------------------------------------------------------
    def seating(self, c):
        who, *rest = c
        out = []
        if isinstance(rest[0], int):  # ", who has a range of influence of N,"
            out += self._fact("range", player=who, range=rest[0])
            rest = rest[1:]
        side, of = rest
        return out + self._fact("seated", player=who, side=str(side), of=of)

    def ranged(self, c):
        return number(c[0])

    def range_fact(self, c):
        return self._fact("range", player=c[0], range=number(c[1]))

    def in_range(self, c):
        negated = any(isinstance(x, Token) and x.type == "NOT" for x in c)
        who, viewer = [x for x in c if not (isinstance(x, Token) and x.type == "NOT")]
        return self._fact("in-range", negated, player=who, viewer=viewer)

    def in_range_elided(self, c):
        return self._fact("in-range-elided", True, player=c[0])

    def mutually_out(self, c):
        return self._fact("mutually-out", a=c[0], b=c[1])

    def team_lives(self, c):
        return self._fact("team-lives", lives=(number(c[0]), number(c[1])))

    # -- actions ------------------------------------------------------------------------------------
    def card(self, c):
        name = kind = quote = None
        for x in c:
            if isinstance(x, Token) and x.type == "CARD":
                name = str(x)
            elif isinstance(x, Token) and x.type == "QUOTE":
                quote = int(str(x)[1:-1])
            elif isinstance(x, _Card):
                kind, quote = x.kind or kind, x.quote if x.quote is not None else quote
            elif isinstance(x, str) and x in _KINDS:
                kind = x
        return _Card(name, kind, quote)

    def card_reads(self, c):
        kind = next((x for x in c if isinstance(x, str) and x in _KINDS), None)
        quote = next((int(str(x)[1:-1]) for x in c if isinstance(x, Token) and x.type == "QUOTE"), None)
        return _Card(None, kind, quote)

    def card_kind(self, c):
        return "card"

    def targeting(self, c):
        targets = [x for x in c if isinstance(x, tuple)]
        return {"targets": (targets[0],), "chooser": targets[1] if len(targets) > 1 else None}

    def x_targeting(self, c):
        return {"x": number(c[0]), "targets": (c[1],)}

    def _action(self, kind: str, c) -> list[Fact]:
        who, card, *rest = c
        extra = rest[0] if rest else {}
        return self._fact(kind, player=who, card=card.name, quote=card.quote, **extra)

    def cast(self, c):
        return self._action("cast", c)

    def activate(self, c):
        return self._action("activate", c)

    def team_life_before(self, c):
        return c

    def controls(self, c):
        who, card = c
        return self._fact("controls", player=who, card=card.name, quote=card.quote)

    def defines_card(self, c):
        return self._fact("defines-card", card=str(c[0]),
                          quote=next(int(str(x)[1:-1]) for x in c if isinstance(x, Token) and x.type == "QUOTE"))

    def targeted_by(self, c):
        who, card = c
        return self._fact("targeted-by", player=who, card=card.name, quote=card.quote)

    def leaves(self, c):
        return self._fact("leaves", player=c[0])

    def draws_from_empty(self, c):
        return self._fact("draws-from-empty", player=c[0])

    def chooses_chooser(self, c):
        return self._fact("chooses-chooser", chooser=c[-1])

    def each_team_chooses(self, c):
        return []  # the rules' own procedure (810.9d): nothing to act

    def configuration(self, c):
        return self._fact("configuration", seats=tuple(c))

    def config_seat(self, c):
        return f"{c[0]} {c[1]}"

    def landwalk_depends(self, c):
        attacker, player, land = c[0], c[1], str(c[-1])
        return self._fact("landwalk-depends", creature=attacker, player=player, land=land)

    def deals_combat_damage(self, c):
        return self._fact("combat-damage-dealt", _negated(c), player=_plain(c)[0])

    def both_deal_combat_damage(self, c):
        a, b = _plain(c)
        return self._fact("both-deal-combat-damage", _negated(c), a=a, b=b)

    def controls_attached(self, c):
        who, count, kind, owner, creature, quotes = c[0], c[1], c[2], c[3], str(c[4]), c[5]
        return self._fact("controls-creature", player=owner, card=creature) + [
            f for q in quotes for f in self._fact("controls", player=who, card=None, quote=q, attached=creature)]

    def aura_list(self, c):
        return tuple(int(str(x)[1:-1]) for x in c)

    def controls_owned(self, c):
        who, *rest = c
        card = next((str(x) for x in rest if isinstance(x, Token) and x.type == "CARD"), "Creature")
        return self._fact("controls-creature", player=who, card=card, owner=rest[-1])

    def each_controls(self, c):
        card = next(str(x) for x in c if isinstance(x, Token) and x.type == "CARD")
        reads = next(x for x in c if isinstance(x, _Card))
        return self._fact("each-controls", card=card, quote=reads.quote)

    def destroyed(self, c):
        card = next((str(x) for x in c if isinstance(x, Token) and x.type == "CARD"), "Creature")
        return self._fact("destroyed", card=card)

    def attacks_and_blocked(self, c):
        return self._fact("attacks-and-blocked", player=c[0], card=str(c[1]), defender=c[2])

    def ability_triggers(self, c):
        owner = c[0]
        ordinal = next((str(x) for x in c if isinstance(x, Token) and x.type == "ORDINAL"), None)
        card = next(str(x) for x in c if isinstance(x, Token) and x.type == "CARD_OR_AURA")
        return self._fact("triggers", _negated(c), player=owner, card=card,
                          nth={"first": 1, "second": 2, "third": 3}.get(ordinal))

    def cast_on(self, c):
        who, card, owner, target = c
        return self._fact("cast", player=who, card=card.name, quote=card.quote, targets=(("object", owner, str(target)),))

    def puts_from_library(self, c):
        return self._fact("puts-from-library", player=c[0], card=str(c[1]), owner=c[2])

    def object_left(self, c):
        name = str(c[0])
        if " " not in name and len(c) == 1:  # "Bianca leaves the game": a player, not a card
            return self._fact("leaves", player=("name", name))
        return self._fact("object-zone", card=name, zone="outside the game")

    def object_exiled(self, c):
        return self._fact("object-zone", card=str(c[0]), zone="exile")

    def put_into_graveyard(self, c):
        return self._fact("object-zone", card=str(c[0]), zone="graveyard", owner=c[1])

    def reverts(self, c):
        return self._fact("object-controller", card=str(c[0]), controller=c[1])

    def control_effect_ends(self, c):
        return self._fact("control-effect-ends", card=c[0][1] if c[0][:1] == ("card",) else None)

    def card_possessive(self, c):
        return ("card", str(c[0]))

    def tokens_of_leave(self, c):
        return self._fact("tokens", token=str(c[0]), under=c[1], zone="outside the game")

    def tokens_of_others_remain(self, c):
        return self._fact("tokens", token=str(c[0]), under=("others",), zone="battlefield")

    def all_tokens_leave(self, c):
        return self._fact("tokens", token=str(c[0]), under=("created by", str(c[1]), c[2]), zone="outside the game")

    def during_turn(self, c):
        return self._fact("turn-of", player=c[0]) + c[1]

    def during_same_turn(self, c):
        return c[0]

    def at_end_step(self, c):
        return self._fact("end-step") + c[0]

    def marker_removed_after_turn(self, c):
        return self._fact("end-turn", player=c[0]) + self._fact("has-marker", True, player=c[1])

    def cast_extra_turn(self, c):
        return self._fact("cast", player=c[0], card=str(c[1]), quote=None)

    def leaves_reducing_markers(self, c):
        return self._fact("markers-reduced-by-leaving", player=c[0]) + self._fact("leaves", player=c[0])

    def uses_ability(self, c):
        who, card, owner, target = c
        return self._fact("use-ability", player=who, card=str(card), targets=(("object", owner, str(target)),))

    def seated_between(self, c):
        return self._fact("seated-between", player=c[0])

    def controls_legend(self, c):
        return self._fact("controls-legend", player=c[0])

    def puts_legend(self, c):
        return self._fact("controls-legend", player=c[0]) + self._fact("legend-rule")

    def delayed_not_on_stack(self, c):
        how = "not put on the stack" if c[2].type == "NOT_PUT" else "leaves the game"
        return self._fact("delayed-not-on-stack", card=str(c[0]), returns=str(c[1]), how=how)

    def never_returns(self, c):
        return self._fact("object-zone", True, card=str(c[0]), zone="battlefield")

    def only_legend_dies(self, c):
        return self._fact("only-legend-dies", player=c[0])

    def only_two_in_both(self, c):
        return self._fact("only-two-in-both", player=c[0], card=str(c[1]))

    def extra_turn_deferred(self, c):
        return self._fact("extra-turn-deferred", player=c[0])

    def one_player_controls(self, c):
        game, card = c
        return game + self._fact("controls", player=("a player",), card=card.name, quote=card.quote)

    def team_landwalk(self, c):
        return self._fact("team-landwalk", keyword=str(c[0]), land=str(c[-1]))

    def upkeep_win_share(self, c):
        return self._fact("upkeep-win-share", life=number(c[-1]))

    def moat_team(self, c):
        return self._fact("moat-team", player=c[0])

    def team_threshold(self, c):
        return self._fact("upkeep-win-threshold", life=number(c[0]))

    def team_member_casts(self, c):
        who, life, card = c
        player = ("a player", number(life))
        return self._fact("cast", player=player, card=card.name, quote=card.quote)

    def considered_then_team(self, c):
        seen, becomes, team = (number(x) for x in c[:3])
        return self._fact("considered-life", life=seen) + self._fact("team-total", life=team)

    def role_range(self, c):
        return self._fact("role-range", roles=c[0], range=number(c[1]))

    def role_list(self, c):
        return tuple(c)

    def role(self, c):
        return "emperor" if not c else f"general {number(c[0])}"

    # -- outcomes -----------------------------------------------------------------------------------
    def enters_range_next_turn(self, c):
        who, viewer = _plain(c)
        return self._fact("next-turn") + self._fact("in-range", _negated(c), player=who, viewer=viewer)

    def deals_split(self, c):
        return self._fact("damage-dealt", player=c[1], amount=number(c[0])) + self._fact("damage-dealt", player=c[2], amount=0)

    def deals_each_creature(self, c):
        return self._fact("creature-damage", controllers=c[2], amount=number(c[1]), only=False)

    def no_other_damage(self, c):
        return self._fact("creature-damage-only")

    def damage_prevented(self, c):
        return self._fact("damage-dealt", _negated(c), player=_plain(c)[0], amount=0)

    def each_team_dealt(self, c):
        return self._fact("each-team-dealt", amount=number(c[0]))

    def gains_team_total(self, c):
        return self._fact("life-gained", amount=number(c[0])) + self._fact("team-total", life=number(c[1]))

    def must_pay(self, c):
        return self._fact("life-paid", amount=number(c[0]))

    def team_total(self, c):
        return self._fact("team-total", life=number(c[0]))

    def considered_life(self, c):
        return self._fact("considered-life", life=number(c[0]))

    def loses_life(self, c):
        return self._fact("life-lost", amount=number(c[0]))

    def chosen_loses(self, c):
        return self._fact("chosen-loses", team_life=number(c[0]), amount=number(c[1]))

    def turn_markers(self, c):
        game, markers = c
        count = next((f["count"] for f in game if f.kind == "players"), None)
        return self._fact("turn-markers", players=count, markers=number(markers))

    def team_loses(self, c):
        return self._fact("team-lost")

    def team_does_not_lose(self, c):
        return self._fact("team-life-at", life=number(_plain(c)[0])) + self._fact("team-lost", _negated(c))

    def cannot_lose_or_win(self, c):
        return self._fact("team-can-lose", True) + self._fact("opponents-can-win", True)

    def wins_at(self, c):
        return self._fact("upkeep-win-threshold", life=number(c[-1]))

    def at_upkeep(self, c):
        return c[-1]

    def emperors_cannot_attack(self, c):
        neither = any(isinstance(x, Token) and x.type == "NEITHER" for x in c)
        return self._fact("emperors-can-attack", neither)

    def no_opponent_in_range(self, c):
        some = any(isinstance(x, Token) and x.type == "SOME" for x in c)
        return self._fact("opponents-in-range", not some, player=c[-1])

    def nearest_left_chooses(self, c):
        return self._fact("chooser-is-nearest-left", player=c[0])

    def can_choose_mode(self, c):
        who, controller = _plain(c)[:2]
        return self._fact("can-choose", _negated(c), player=who, controller=controller)

    def seating_is(self, c):
        return self._fact("seating", seats=c[0])

    def seat_list(self, c):
        return tuple(str(t) for t in c)

    def range_definition(self, c):
        left, right = c[1]
        return self._fact("range-definition", range=number(c[0]), left=left, right=right)

    def next_to_you(self, c):
        return (1, 1)

    def to_each_side(self, c):
        return (number(c[0]), number(c[1]))

    def start_of_game(self, c):
        return c[0] + c[1]

    def must_choose_in_both(self, c):
        return self._fact("must-choose-in-both", player=c[0])

    def creature_of_either(self, c):
        return ("creatures of", c[0], c[1])

    def choice(self, c):
        return c[0]

    def boosts_from_range(self, c):
        plain = _plain(c)
        return self._fact("boost-counts-range", _negated(c), player=plain[1], viewer=plain[2])

    def rest(self, c):
        return " ".join(str(x) for x in c)

    def boosts_from(self, c):
        plain = _plain(c)
        return self._fact("boost-counts", _negated(c), player=plain[1], controllers=plain[2])

    def no_other_creatures(self, c):
        return []


_KINDS = {"card"}


class DocumentBudget:
    """What one document's examples may cost: bounds.MAX_DOCUMENT_TEXT, in characters of sentences
    the grammar reads. Each example is bounded, but a document may hold thousands (Earley reads
    ~0.4 ms a character: 40 distinct examples of 1,500 characters took 27 s). Each distinct
    sentence Earley reads costs its characters and PARSE_COST (a parse costs that much before its
    first character), once however often the document repeats it, and whatever this process read
    before, so which examples run does not depend on what else was read. Each example read costs
    the preparation of its text (bounds.PREPARED_PER_CHARACTER), each example run the model's work
    on its game (bounds.run_cost)."""

    def __init__(self, limit: int | None = None):
        self.limit = bounds.MAX_DOCUMENT_TEXT if limit is None else limit
        self.read: set[str] = set()
        self.spent = 0

    def charge(self, sentences: tuple[str, ...], prepared: int = 0) -> None:
        """`sentences`: those Earley read for an example; `prepared`: the characters of text
        prepared for it (its own, and the example before it for "In the same game")."""
        self.spent += -(-prepared // bounds.PREPARED_PER_CHARACTER)
        for sentence in sentences:
            if sentence not in self.read:
                self.read.add(sentence)
                self.spent += bounds.PARSE_COST + len(sentence)

    def charge_run(self, cost: int) -> None:
        self.spent += cost

    def check(self) -> None:
        if self.spent > self.limit:
            raise Unsupported(f"the document's examples up to this one cost {self.spent:,} characters of sentences "
                              f"for the grammar (each parse counting {bounds.PARSE_COST} more; each example's text "
                              f"prepared and each run of the model count too), over the {self.limit:,} it reads in one "
                              "document")


def read(text: str, previous: str | None = None, budget: DocumentBudget | None = None) -> Scenario:
    """The Scenario of an example's text; Unsupported names the first sentence that stops it.
    `previous`: the example before it in the same rule, whose game "In the same game, ..." goes on.
    `budget`: the document's, charged with the sentences the grammar read; once it is spent,
    this example and every later one are Unsupported (the overshoot: one example's bounds)."""
    if budget is not None:
        budget.check()
    found, sentences, prepared = _cached(text, previous)
    if budget is not None:
        budget.charge(sentences, prepared)
        budget.check()
    if isinstance(found, Unsupported):
        raise Unsupported(found.reason)
    return found


@lru_cache(maxsize=4096)
def _cached(text: str, previous: str | None) -> tuple[Scenario | Unsupported, tuple[str, ...], int]:
    """read, remembered: most examples are printed word for word in release after release. With
    it, the sentences the grammar read for it and the characters of text prepared (a cache hit
    costs the budget what the miss did)."""
    sentences: list[str] = []
    prepared: list[int] = []
    try:
        return _joined(text, previous, sentences, prepared), tuple(sentences), sum(prepared)
    except Unsupported as why:
        return why, tuple(sentences), sum(prepared)


def _joined(text: str, previous: str | None, sentences: list[str], prepared: list[int]) -> Scenario:
    scenario = _read(text, sentences, prepared)
    if any(f.kind == "same-game" for f in scenario.setup + scenario.steps if isinstance(f, Fact)):
        if previous is None:
            raise Unsupported("\"In the same game\" with no example before it")
        before = _read(previous, sentences, prepared)
        shift = len(before.quotes)
        carried = tuple(f for f in before.steps if isinstance(f, Fact) and f.kind in ("controls", "defines-card"))
        steps = tuple(_requoted(f, shift) for f in scenario.steps if not (isinstance(f, Fact) and f.kind == "same-game"))
        return Scenario(before.setup + tuple(_requoted(f, shift) for f in scenario.setup), carried + steps,
                        before.quotes + scenario.quotes, before.sentences + scenario.sentences)
    return scenario


def _requoted(f, shift: int):
    if isinstance(f, Branch):
        return Branch(tuple(_requoted(x, shift) for x in f.steps), f.sentence)
    return Fact(f.kind, tuple((k, v + shift if k == "quote" and v is not None else v) for k, v in f.args), f.negated, f.sentence)


def _read(text: str, sentences: list[str], prepared_lengths: list[int]) -> Scenario:
    """`sentences`: receives each sentence the grammar reads; `prepared_lengths`: the length of
    the text prepared."""
    if len(text) > _MAX_EXAMPLE_INPUT:
        raise Unsupported(f"the example is {len(text):,} characters long, over the {_MAX_EXAMPLE_INPUT:,} an example "
                          "may have")
    prepared_lengths.append(len(text))
    prepared = prepare(text)
    setup: list[Fact] = []
    steps: list[Fact | Branch] = []
    parsed = 0
    for index, sentence in enumerate(prepared.sentences):
        # the bounds apply only to what Earley would read, so that a sentence no template reads
        # is reported as such however long it is
        if _may_parse(sentence):
            parsed += len(sentence)
            if len(sentence) > MAX_SENTENCE:
                raise Unsupported(f"sentence {index + 1} is {len(sentence):,} characters long, over the "
                                  f"{MAX_SENTENCE:,} the examples' grammar reads: \"{_opening(prepared, index)}\"")
            if parsed > MAX_EXAMPLE_TEXT:
                raise Unsupported(f"the example's sentences up to sentence {index + 1} are {parsed:,} characters long, "
                                  f"over the {MAX_EXAMPLE_TEXT:,} the examples' grammar reads in one example")
            sentences.append(sentence)
        tree = _tree(sentence)
        if tree is None:
            raise Unsupported(f"no template reads the sentence \"{_printed(prepared, index)}\"")
        try:
            facts = _Facts(index).transform(tree)
        except VisitError as err:
            if isinstance(err.orig_exc, Unsupported):
                raise Unsupported(f"{err.orig_exc.reason}: \"{_printed(prepared, index)}\"") from None
            raise
        for f in facts:
            (setup if isinstance(f, Fact) and f.kind in SETUP_KINDS else steps).append(f)
    return Scenario(tuple(setup), tuple(steps), prepared.quotes, prepared.sentences)


def _printed(prepared, index: int) -> str:
    return prepared.original[index] if index < len(prepared.original) else prepared.sentences[index]


def _opening(prepared, index: int) -> str:
    printed = _printed(prepared, index)
    return printed if len(printed) <= 80 else printed[:80] + "..."


# Text preparation (the lexicon, the sentence split) reads the whole example before the grammar
# reads its first sentence: an example of megabytes would take that long before anything else.
_MAX_EXAMPLE_INPUT = 20 * MAX_EXAMPLE_TEXT
