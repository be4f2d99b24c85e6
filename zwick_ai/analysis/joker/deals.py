"""What every part of the joker study shares: the variants and rules it studies, the jokers, the
deal of every card, a deal with a joker swapped to an opponent, and a side's margin.

>>> from zwick_ai import zwicker
>>> rules = zwicker.rules("dithmarschen")
>>> [joker_name(j) for j in study_jokers(rules)]
['X15', 'X20', 'X25']
>>> margins(np.array([[10, 4]])).tolist()
[[6.0, -6.0]]
"""

from __future__ import annotations

import numpy as np

from zwick_ai import cards
from zwick_ai.agents import joker_policies
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.rules import Rules

#: the variants with jokers (classic has none)
STUDY_VARIANTS = ("dithmarschen", "grossenwiehe", "christiansen", "grupp")
#: rules of part 2 that act on every joker (``greedy`` is the opponent every policy is measured against)
ALL_JOKER_POLICIES = ("early", "hold", "min_points:k=1", "min_points:k=3", "min_points:k=6", "build", "last_stage")
#: rules of part 2 that act on some jokers only: when to play the highest joker (``@high``), and
#: whether the others follow the same rule (``@rest``); the other jokers are played as greedy does
PER_JOKER_POLICIES = tuple(
    f"{rule}@{scope}" for scope in ("high", "rest") for rule in ("early", "hold", "min_points:k=6", "last_stage")
)
STUDY_POLICIES = ALL_JOKER_POLICIES + PER_JOKER_POLICIES
#: the strong agent when ``ismcts`` is registered (``strong="auto"``)
AUTO_STRONG = "ismcts:iters=500,rollout=greedy"
KIND_NAMES = {layout.KIND_CAPTURE: "capture", layout.KIND_BUILD: "build", layout.KIND_TRAIL: "trail"}


def side_of_seats(rules: Rules) -> np.ndarray:
    return np.array([rules.side_of(p) for p in range(rules.players)])


def margins(scores: np.ndarray) -> np.ndarray:
    """Per deal and side: the side's points minus the mean of the other sides' points."""
    ns = scores.shape[1]
    total = scores.sum(axis=1, keepdims=True)
    return scores - (total - scores) / (ns - 1)


def joker_name(card: int) -> str:
    return cards.format_card(card)


def study_jokers(rules: Rules) -> list[int]:
    """One card per distinct joker: every valued joker, and one copy of the (identical) wild jokers."""
    out, seen_wild = [], False
    for c in joker_policies.joker_cards(rules):
        if cards.is_wild_joker(c):
            if seen_wild:
                continue
            seen_wild = True
        out.append(c)
    return out


def deal_maps(rules: Rules, orders: np.ndarray, dealers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(seat[N, NC], stage[N, NC]) of every card of every deal (see :func:`zwick_ai.zwicker.deals.deal_map`)."""
    R = rules.array()
    seats = np.empty((len(orders), cards.NUM_CARDS), np.int64)
    stages = np.empty_like(seats)
    for h in range(len(orders)):
        seats[h], stages[h] = zwicker_deals.deal_map(R, orders[h], dealers[h])
    return seats, stages


def swap_joker(
    rules: Rules,
    orders: np.ndarray,
    seats: np.ndarray,
    stages: np.ndarray,
    joker: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Move ``joker`` to an opponent: in every deal where it is dealt to a hand, swap it with a
    random non-joker, point-less card dealt to a seat of another side in the same stage.

    Returns (swapped orders, mask of the deals swapped, the card it was swapped with or -1)."""
    side = side_of_seats(rules)
    points = np.zeros(cards.NUM_CARDS, np.int64)
    for c, p in rules.points:
        points[c] = p
    is_joker = np.zeros(cards.NUM_CARDS, bool)
    is_joker[joker_policies.joker_cards(rules)] = True
    rng = np.random.default_rng([seed, joker])
    out = orders.copy()
    mask = np.zeros(len(orders), bool)
    partner = np.full(len(orders), -1, np.int64)
    for h in range(len(orders)):
        sj = seats[h, joker]
        if sj < 0:
            continue
        deck = orders[h]
        s = seats[h, deck]
        ok = (s >= 0) & (side[np.maximum(s, 0)] != side[sj]) & (stages[h, deck] == stages[h, joker])
        ok &= ~is_joker[deck] & (points[deck] == 0)
        idx = np.flatnonzero(ok)
        if idx.size == 0:
            continue
        i = int(idx[rng.integers(idx.size)])
        j = int(np.flatnonzero(deck == joker)[0])
        out[h, i], out[h, j] = deck[j], deck[i]
        mask[h] = True
        partner[h] = deck[i]
    return out, mask, partner


def option_text(value: object) -> str:
    """A rule option's value as text for file names, keys and tables (``(15, 20)`` -> ``15_20``)."""
    if isinstance(value, tuple | list):
        return "_".join(map(str, value)) or "none"
    return str(value).lower()
