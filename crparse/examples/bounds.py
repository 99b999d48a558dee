"""The sizes an example may state, beyond which it is `unsupported` rather than run.

The rules' worked examples are small: the largest table they seat has sixteen players (807.4a's
turn markers), the largest range of influence is 2, the largest number any sentence states is
under a thousand (life totals, damage, rule numbers), and the longest sentence the grammar reads
is under 300 characters (807.6a's Emperor seating, 2009). A hostile example can state a game of
a billion players or a sentence of 40,000 characters; the runner builds what the text states
and the Earley parser's cost grows with the sentence, so each size is bounded here, with room
to spare over the rules' own, and an example past a bound says which one in its reason.
"""

from __future__ import annotations

# A number in a sentence or in quoted card text. Checked on its digits before int() reads it:
# int() refuses numbers of over 4,300 digits, and a life total of 10**9 makes the runner's
# searches over life totals run for ever.
MAX_NUMBER = 1_000_000
_MAX_DIGITS = len(str(MAX_NUMBER))

# The seats of a game the runner plays (a stated player count, a Grand Melee game of N players,
# the table "a range of influence of N" is shown on: 2N + 3 seats). Some outcomes are checked on
# a copy of the game for each player (landwalk: who controls the land), so a sentence costs the
# square of the players: at 50, about 0.15 s.
MAX_PLAYERS = 50

# One sentence, as the sentence grammar sees it (folded, quotes masked), and all the sentences of
# one example the grammar reads (the most in the corpus: 570 characters, 601.7 of 2005-08-01).
# Earley costs up to 2 ms a character on these templates: the bounds keep an example under
# about three seconds.
MAX_SENTENCE = 600
MAX_EXAMPLE_TEXT = 1_500

# What the examples of one document may cost, counted in characters of distinct sentences the
# grammar reads (the unit: Earley reads the costliest templates, chains of clauses, at ~0.45 ms a
# character): the most in the corpus is 16,765 (2026-01-16: 185 sentences of 12,270 characters and
# their parses, 15,970; the preparation and runs of its 276 examples, 795), so a document stays
# within ~10 s however many examples it holds.
MAX_DOCUMENT_TEXT = 20_000

# Earley's cost of a parse before its first character: it predicts every template at the start
# and again after each word, ~8 ms (a sentence of one capital letter took 8 ms, one of five 9-10
# ms). Charged for each distinct sentence besides its characters: charged its characters alone,
# 4,500 examples of five characters ("AB CD.") took over 30 s within the budget.
PARSE_COST = 20

# The runner's work, in the same unit. Each fact played, each game built and each copy of it
# (some outcomes are checked on a copy of the game for each player) counts the seats of the game
# (a "seat step": ~0.05 ms at 50 seats); the seating search counts the seats it tries (0.25 s for
# its 100,000). When only the grammar was charged, 2,800 examples of twelve 50-player landwalk
# outcomes, each with one new sentence, ran past 120 s of CPU within the budget (now 6 s).
SEAT_STEPS_PER_CHARACTER = 5
SEATS_TRIED_PER_CHARACTER = 180
# A run's own cost, whatever its game: ~2 ms.
RUN_COST = 5

# An example's text prepared for the grammar (typography, quotes, the lexicon's 50 patterns, the
# sentence split), before Earley reads any of it: ~1.5 us a character (0.1 ms for a short one),
# counted in the same unit, at least one an example. Uncounted, 2.9 MB of examples whose words no
# template has cost 6 s.
PREPARED_PER_CHARACTER = 300


def run_cost(seat_steps: int, seats_tried: int) -> int:
    """A run of the model, in characters of sentences (MAX_DOCUMENT_TEXT's unit)."""
    return RUN_COST + -(-seat_steps // SEAT_STEPS_PER_CHARACTER) + -(-seats_tried // SEATS_TRIED_PER_CHARACTER)


# The examples of one document the pytest plugin makes items of, and `--emit-pytest` writes tests
# of: pytest's own cost is ~0.5-1 ms and ~5 KB an item, whatever the example (49,000 copies of
# one short example in 931 KB: 33 s and 298 MB, where `crparse examples` takes 0.9 s: sweep 26;
# three documents of 5,000 items, 15 s: sweep 27). The most in a release is 276.
MAX_DOCUMENT_ITEMS = 2_000

# One quote, as the card grammar sees it (the longest card text quoted is under 200 characters).
MAX_QUOTE = 600


class OutOfBounds(Exception):
    """An example states a size past one of the bounds above; the message says which. Not a
    ValueError: the runner reads an engine's ValueError as a refusal, i.e. a failed outcome."""


def bounded_number(digits: str) -> int:
    """The value of a decimal numeral, refused past MAX_NUMBER without reading it in full."""
    stripped = digits.lstrip("0") or "0"
    if len(stripped) > _MAX_DIGITS or int(stripped) > MAX_NUMBER:
        shown = stripped if len(stripped) <= 20 else f"a number of {len(stripped):,} digits"
        raise OutOfBounds(f"{shown} is over {MAX_NUMBER:,}, the largest number an example may state")
    return int(stripped)


def check_players(count: int, what: str = "a game") -> int:
    if count > MAX_PLAYERS:
        raise OutOfBounds(f"{what} of {count:,} players: the runner seats at most {MAX_PLAYERS} players")
    return count
