"""Card ids and notation shared by every Zwick game.

One global id space covers every deck any variant uses, so that arrays indexed by card id have
one fixed size (:data:`NUM_CARDS`) in every kernel:

=============  =====================================================
ids            cards
=============  =====================================================
0 .. 51        first standard pack: ``id = suit * 13 + rank``
52 .. 103      second standard pack (classic with more than 4 players)
104 .. 109     valued jokers ``X15 X17 X20 X22 X25 X30``
110 .. 115     wild jokers ``XW`` (Grupp), six copies
=============  =====================================================

``rank`` indexes :data:`RANKS` (``2`` = 0 … ``A`` = 12) and ``suit`` indexes :data:`SUITS`.

>>> parse_card("TD"), format_card(21)
(21, 'TD')
>>> parse_card("10♦"), parse_card("Joker(25)"), format_card(108)
(21, 108, 'X25')
>>> parse_cards(["TD", "TD"], two_packs=True)
[21, 73]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
PACK_SIZE = 52
SECOND_PACK = 52
VALUED_JOKER_BASE = 104
JOKER_VALUES = (15, 17, 20, 22, 25, 30)
WILD_JOKER_BASE = 110
NUM_WILD_JOKERS = 6
NUM_CARDS = 116

_RANK_ALIASES = {"10": "T", "1": "A", "B": "J", "D": "Q"}


def card_id(rank: str, suit: str, pack: int = 0) -> int:
    """The id of a standard card, e.g. ``card_id("T", "D") == 21``."""
    return pack * PACK_SIZE + SUITS.index(suit) * 13 + RANKS.index(rank)


def rank_of(card: int) -> int:
    """Rank index (0 = ``2`` … 12 = ``A``) of a standard card; -1 for jokers."""
    return (card % PACK_SIZE) % 13 if card < VALUED_JOKER_BASE else -1


def suit_of(card: int) -> int:
    """Suit index (0 = clubs … 3 = spades) of a standard card; -1 for jokers."""
    return (card % PACK_SIZE) // 13 if card < VALUED_JOKER_BASE else -1


def is_valued_joker(card: int) -> bool:
    return VALUED_JOKER_BASE <= card < WILD_JOKER_BASE


def is_wild_joker(card: int) -> bool:
    return WILD_JOKER_BASE <= card < NUM_CARDS


def joker_id(value: int) -> int:
    """The id of the valued joker that matches ``value`` (15, 17, 20, 22, 25 or 30)."""
    if value not in JOKER_VALUES:
        raise ValueError(f"no joker of value {value}; jokers are {', '.join(map(str, JOKER_VALUES))}")
    return VALUED_JOKER_BASE + JOKER_VALUES.index(value)


def format_card(card: int, pretty: bool = False) -> str:
    """Notation of a card id: ``TD``, ``X25``, ``XW``; ``pretty`` uses suit symbols and ``Joker(25)``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..{NUM_CARDS - 1}")
    if is_wild_joker(card):
        return "Joker" if pretty else "XW"
    if is_valued_joker(card):
        value = JOKER_VALUES[card - VALUED_JOKER_BASE]
        return f"Joker({value})" if pretty else f"X{value}"
    rank, suit = RANKS[rank_of(card)], suit_of(card)
    if pretty:
        return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit]
    return rank + SUITS[suit]


def format_cards(cards: Iterable[int], pretty: bool = False) -> str:
    return " ".join(format_card(c, pretty) for c in cards)


def _parse_name(text: str) -> tuple[str, int]:
    """Split a card name into ('std', standard id) / ('joker', value) / ('wild', 0)."""
    name = text.strip().upper().replace(" ", "")
    if not name:
        raise ValueError("empty card name")
    if name in ("XW", "JOKER", "W"):
        return "wild", 0
    for prefix in ("JOKER(", "X"):
        if name.startswith(prefix):
            digits = name[len(prefix) :].rstrip(")")
            if digits.isdigit() and int(digits) in JOKER_VALUES:
                return "joker", int(digits)
            raise ValueError(
                f"unknown joker {text!r}: valued jokers are "
                + ", ".join(f"X{v}" for v in JOKER_VALUES)
                + "; wild jokers are XW"
            )
    suit_char = name[-1]
    for i, symbol in enumerate(SUIT_SYMBOLS):
        if suit_char == symbol:
            suit_char = SUITS[i]
    rank_text = _RANK_ALIASES.get(name[:-1], name[:-1])
    if len(rank_text) != 1 or rank_text not in RANKS or suit_char not in SUITS:
        raise ValueError(
            f"unknown card {text!r}: write rank {' '.join(RANKS)} then suit {' '.join(SUITS)}"
            " (e.g. TD, QS), X15..X30 for valued jokers, XW for a wild joker"
        )
    return "std", card_id(rank_text, suit_char)


def parse_card(text: str | int) -> int:
    """Parse one card name (or pass an id through) into its first-pack id."""
    if isinstance(text, int):
        if not 0 <= text < NUM_CARDS:
            raise ValueError(f"card id {text} is out of range 0..{NUM_CARDS - 1}")
        return text
    kind, value = _parse_name(text)
    if kind == "wild":
        return WILD_JOKER_BASE
    if kind == "joker":
        return joker_id(value)
    return value


def parse_cards(names: Sequence[str | int], two_packs: bool = False, taken: set[int] | None = None) -> list[int]:
    """Parse card names, giving repeated names the next free copy (second pack, further wild jokers).

    ``taken`` holds ids already used elsewhere in the same position; it is updated in place.
    A name with no free copy left raises ``ValueError`` ("duplicate card").
    """
    used = taken if taken is not None else set()
    out = []
    for name in names:
        first = parse_card(name)
        if isinstance(name, int):
            candidates = [first]
        elif is_wild_joker(first):
            candidates = list(range(WILD_JOKER_BASE, NUM_CARDS))
        elif first < PACK_SIZE and two_packs:
            candidates = [first, first + SECOND_PACK]
        else:
            candidates = [first]
        free = [c for c in candidates if c not in used]
        if not free:
            raise ValueError(f"duplicate card {format_card(first)}: every copy of it is already placed")
        used.add(free[0])
        out.append(free[0])
    return out


def standard_pack(ranks: str = RANKS, suits: str = SUITS, pack: int = 0) -> list[int]:
    """Ids of one pack restricted to ``ranks`` and ``suits`` (both in notation letters)."""
    for r in ranks:
        if r not in RANKS:
            raise ValueError(f"unknown rank {r!r}; ranks are {RANKS}")
    for s in suits:
        if s not in SUITS:
            raise ValueError(f"unknown suit {s!r}; suits are {SUITS}")
    return sorted(card_id(r, s, pack) for s in suits for r in ranks)
