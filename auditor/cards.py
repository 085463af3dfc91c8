"""Cards as small integers, hands as bit masks.

A card is ``suit * 13 + rank`` where rank 0 is the two and rank 12 the ace, and
suits are numbered spades 0, hearts 1, diamonds 2, clubs 3.  The two jokers of the
ten-point presets are 52 (high) and 53 (low).  A hand is an ``int`` (or a NumPy
``uint64``) with bit ``card`` set for each card held, so "does Bob hold a heart?"
is one AND.

>>> parse_card("AS"), card_name(parse_card("10h")), card_name(parse_card("♦q"))
(12, 'TH', 'QD')
>>> hand_names(mask_of([parse_card(t) for t in "AS 2C JS".split()]))
'AS JS 2C'
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from . import _core

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = "23456789TJQKA"
JOKER_HIGH = 52
JOKER_LOW = 53
CARD_COUNT_ALL = 54  # cards numbered 0-53: the 52 and the two jokers
DECK_52 = (1 << 52) - 1
DECK_54 = (1 << 54) - 1
NO_CARD = -1

#: Points each rank counts towards Game: ace 4, king 3, queen 2, jack 1, ten 10.
GAME_COUNT = {12: 4, 11: 3, 10: 2, 9: 1, 8: 10}
#: Game count indexed by card number (jokers count nothing).
CARD_COUNT = tuple(GAME_COUNT.get(c % 13, 0) if c < 52 else 0 for c in range(54))



def suit_mask(suit: int) -> int:
    """The bit mask of the 13 cards of ``suit``.

    >>> hand_names(suit_mask(SUITS.index("C")) & mask_of([51, 3]))
    'AC'
    """
    return 0x1FFF << (13 * suit)


SUIT_MASKS = tuple(suit_mask(s) for s in range(4))


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 = two ... 12 = ace) in ``suit`` (0-3)."""
    return suit * 13 + rank


def suit_of(card: int) -> int:
    """The suit of a card (0-3); jokers have suit 4."""
    return card // 13 if card < 52 else 4


def rank_of(card: int) -> int:
    """The rank of a card (0 = two ... 12 = ace); jokers 13 (high) and 14 (low)."""
    return card % 13 if card < 52 else 13 + (card - 52)


def parse_card(token: str) -> int | None:
    """Read a card token; ``None`` when it is not one (the core's reading, as the parser's).

    Accepts a rank ``A K Q J T 9 ... 2`` (``10`` for the ten) then a suit ``S H D C``
    or ``♠ ♥ ♦ ♣``, in any case; the suit symbol may also come first.  ``JKH`` and
    ``JKL`` are the jokers.

    >>> [parse_card(t) for t in ("2s", "10C", "♥A", "JKL", "1S", "")]
    [0, 47, 25, 53, None, None]
    """
    return _core.parse_card(token)


def card_name(card: int | None) -> str | None:
    """The canonical token of a card: ``AS``, ``TD``, ``JKH``.

    >>> card_name(0), card_name(51), card_name(52)
    ('2S', 'AC', 'JKH')
    """
    if card is None or card < 0:
        return None
    if card == JOKER_HIGH:
        return "JKH"
    if card == JOKER_LOW:
        return "JKL"
    return RANKS[card % 13] + SUITS[card // 13]


#: Canonical names indexed by card number.
CARD_NAMES = tuple(card_name(c) for c in range(54))


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask holding ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards in ``mask``, lowest number first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sort_for_display(cards: Iterable[int], trump: int | None = None, deck_kind: str = "plain") -> list[int]:
    """Cards grouped by suit (trumps first once known, in trump order), highest rank first.

    >>> " ".join(card_name(c) for c in sort_for_display([parse_card(t) for t in "2H JD JKL AC AH".split()], 1, "jokers"))
    'AH JD JKL 2H AC'
    >>> " ".join(card_name(c) for c in sort_for_display([parse_card(t) for t in "2H JD AC AH".split()], 1, "jick"))
    'AH JD 2H AC'
    """
    order = trump_order(trump, deck_kind) if trump is not None and trump >= 0 else ()

    def key(c: int) -> tuple[int, int]:
        if c in order:
            return (-1, order.index(c))
        return (suit_of(c), -rank_of(c))

    return sorted(cards, key=key)


def hand_names(mask: int, trump: int | None = None, deck_kind: str = "plain") -> str:
    """The cards of ``mask`` as tokens, by suit, highest first."""
    return " ".join(CARD_NAMES[c] for c in sort_for_display(cards_of(mask), trump, deck_kind))


def suit_name(suit: int) -> str:
    """The English name of a suit number: ``spades`` ..."""
    return SUIT_NAMES[suit]


# --------------------------------------------------------------------------- trump order

#: The other suit of the same colour: spades-clubs, hearts-diamonds.
JACK_RANK = 9


def off_jack(trump: int) -> int:
    """The off-jack of ``trump``: the jack of the other suit of trump's colour.

    >>> card_name(off_jack(SUITS.index("H"))), card_name(off_jack(SUITS.index("C")))
    ('JD', 'JS')
    """
    return _core.off_jack(trump)


def trump_order(trump: int, deck_kind: str = "plain") -> tuple[int, ...]:
    """The trumps of ``trump``, highest first (the core's one definition of trump order).

    With the ten-point deck the off-jack and both jokers are trumps, between the
    jack and the ten: A K Q J off-J JKH JKL T 9 ... 2; with the jick (``jick=on``,
    52 cards) only the jick: A K Q J jick T 9 ... 2.

    >>> " ".join(card_name(c) for c in trump_order(SUITS.index("S"), deck_kind="jokers"))
    'AS KS QS JS JC JKH JKL TS 9S 8S 7S 6S 5S 4S 3S 2S'
    >>> " ".join(card_name(c) for c in trump_order(SUITS.index("D"), deck_kind="jick"))
    'AD KD QD JD JH TD 9D 8D 7D 6D 5D 4D 3D 2D'
    >>> len(trump_order(0))
    13
    """
    strengths = _table(trump, deck_kind)[1]
    return tuple(sorted((c for c in range(CARD_COUNT_ALL) if strengths[c] >= 0), key=lambda c: -strengths[c]))


@lru_cache(maxsize=None)
def _table(trump: int, deck_kind: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    suits, strengths = _core.trump_table(trump if 0 <= trump <= 3 else -1, deck_kind)
    return tuple(suits), tuple(strengths)


def effective_suit(card: int, trump: int, deck_kind: str = "plain") -> int:
    """The suit a card belongs to in play: the off-jack and jokers of the ten-point deck, and the jick, are trumps.

    ``trump`` -1 (not known yet) leaves every card in its printed suit (jokers 4).

    >>> effective_suit(parse_card("JD"), SUITS.index("H"), "jick"), effective_suit(parse_card("JD"), 1)
    (1, 2)
    """
    return _table(trump, deck_kind)[0][card]


def trump_strength(card: int, trump: int, deck_kind: str = "plain") -> int:
    """How high ``card`` ranks among the trumps (2 of trumps 0, ace highest); -1 if it is no trump.

    >>> trump_strength(parse_card("AS"), 0), trump_strength(parse_card("JKL"), 0, "jokers"), trump_strength(1, 1)
    (12, 9, -1)
    """
    return _table(trump, deck_kind)[1][card]


@lru_cache(maxsize=None)
def effective_suit_mask(suit: int, trump: int, deck_kind: str = "plain") -> int:
    """The cards that count as ``suit`` in play (trump gains the jick, or the off-jack and jokers)."""
    if suit < 0 or suit > 3:
        return 0
    suits = _table(trump, deck_kind)[0]
    return mask_of(c for c in range(CARD_COUNT_ALL) if suits[c] == suit)
