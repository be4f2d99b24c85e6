"""Joker-usage policies for Zwicker: the greedy heuristic with a rule for when to play a joker.

Every policy scores the legal whole moves with the compiled greedy heuristic
(:func:`zwick_ai.zwicker.kernels.greedy_value`, documented in :mod:`zwick_ai.agents.baselines`) and
plays a best one (ties at random). A **joker move** is a move that plays a joker from the hand
(a valued joker ``X15``..``X30`` or a wild ``XW``); taking a joker *from the table* with another
card is an ordinary move. The policies differ only in how they score joker moves:

==============  ===================================================================================
``greedy``      unchanged greedy: a joker capture counts the joker's own points, so greedy happily
                captures with a joker; it only avoids *trailing* one
``early``       play a joker as soon as it can capture anything (every joker capture beats every
                other move)
``hold``        never play a joker unless forced: every legal move plays a joker (or, in
                Grupp, a joker capture is compulsory), so jokers are held to the end of the hand
``min_points``  play a joker only to capture at least ``k`` points from the table (Zwick bonus
                included, the joker's own points not), or when forced
``build``       prefer building with a joker over everything else; never capture or trail with a
                joker unless forced
``last_stage``  keep jokers for the last stage: no joker move before the stock is empty unless
                forced; in the last stage plain greedy (which captures with a joker at once)
``random``      uniform over the legal moves (a baseline for the study)
==============  ===================================================================================

**Per joker.** A rule may act on some jokers only, named after ``@``: ``@high`` the highest
joker of the deck (X25 in Dithmarschen, X30 in Christiansen and Großenwiehe; the identical wild
jokers of Grupp all count as the highest), ``@rest`` every other joker, ``@X20`` one joker by
value. The other jokers are played as plain greedy plays them. So ``hold@high`` holds only the
highest joker, ``early@high`` plays the highest as soon as it captures, ``min_points:k=6@X25`` is
a threshold for one joker, and ``hold@rest`` asks whether the others follow the same rule.

``early`` and ``last_stage`` follow the study's definitions; they turn out close to ``greedy`` (which
already captures with a joker whenever it can, the joker's own points making that capture its
best) before resp. in the last stage. Asking the partner (Großenwiehe) is never chosen unless it is
the only legal move. "Forced" falls
out of the scoring: a penalised joker move is still the best of a list holding only joker moves.

The same scoring runs in three places: :func:`play_rule_deals` (whole hands in compiled code, one policy
per seat, deals given as deck orders so that the study can move a joker between hands),
:func:`choose_move` (one position) and the registered agent ``joker:policy=...,k=...`` for
OpenSpiel tournaments.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen")
>>> out = play_seeds(r, np.arange(20), policies=["hold", "greedy", "hold", "greedy"])
>>> out.scores.shape, bool((out.scores.sum(axis=1) >= r.card_total).all())
((20, 2), True)
>>> parse_policy("min_points:k=3")
('min_points', 3)
>>> policy_label(*parse_policy("min_points=6@X25")), policy_label(*parse_policy("hold@high"))
('min_points:k=6@X25', 'hold@high')
>>> parse_policy("late")
Traceback (most recent call last):
...
ValueError: unknown joker policy 'late'; valid: random, greedy, early, hold, min_points, build, last_stage
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pyspiel

from zwick_ai import cards
from zwick_ai.agents.base import Agent, Param, register
from zwick_ai.games import zwicker_bridge
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker.deals import deal_orders
from zwick_ai.zwicker.policy_codes import (
    JOKER_RULES,
    POLICY_BUILD,
    POLICY_EARLY,
    POLICY_GREEDY,
    POLICY_HOLD,
    POLICY_MIN_POINTS,
    POLICY_RANDOM,
)
from zwick_ai.zwicker.rules import Rules

#: policy names in code order (the compiled kernels take the index: :mod:`zwick_ai.zwicker.policy_codes`)
POLICIES = JOKER_RULES

BONUS = 1000.0  # lifts a preferred joker move above every ordinary move (greedy scores are < 100)
NEVER_ASK = -1e9

# Fields of one joker-play record (:func:`joker_play_info`), one row per joker card.
J_PLAYED, J_STAGE, J_LAST, J_KIND, J_TAKEN, J_UNITS, J_HAND, J_PLY, J_SEAT = range(9)
J_FIELDS = 9
J_NAMES = ("played", "stage", "last_stage", "kind", "points_taken", "table_units", "hand_cards", "ply", "seat")


#: The rule's parameter word ``k`` (one int64, as compiled code takes it): the threshold of
#: ``min_points`` in the low bits, the jokers the rule acts on (none set: every joker) from
#: :data:`SCOPE_SHIFT` on: bit 0 the highest joker of the deck, bit 1 the others, bit 2 + i the
#: valued joker of value ``cards.JOKER_VALUES[i]``.
SCOPE_SHIFT = 16
K_MASK = (1 << SCOPE_SHIFT) - 1
SCOPE_HIGH, SCOPE_REST = 1, 2
#: the scope names after ``@`` (besides ``X15`` .. ``X30``)
SCOPES = {"high": SCOPE_HIGH, "rest": SCOPE_REST}
VJOKER_BASE = cards.VALUED_JOKER_BASE


def parse_scope(text: str) -> int:
    """The scope bits of ``high``, ``rest`` or a valued joker's name (``X25``)."""
    word = text.strip()
    if word.lower() in SCOPES:
        return SCOPES[word.lower()]
    digits = word[1:] if word[:1] in ("X", "x") else ""
    if digits.isdigit() and int(digits) in cards.JOKER_VALUES:
        return 1 << (2 + cards.JOKER_VALUES.index(int(digits)))
    valid = ", ".join([*SCOPES, *(f"X{v}" for v in cards.JOKER_VALUES)])
    raise ValueError(f"unknown joker scope {word!r} after '@'; valid: {valid}")


def scope_text(scope: int) -> str:
    """The name of scope bits (:func:`parse_scope` read backwards; ``""`` for every joker)."""
    for name, bit in SCOPES.items():
        if scope == bit:
            return name
    for i, v in enumerate(cards.JOKER_VALUES):
        if scope == 1 << (2 + i):
            return f"X{v}"
    return ""


def parse_policy(spec: str) -> tuple[str, int]:
    """``name``, ``min_points:k=K`` (also ``min_points=K``), each optionally followed by
    ``@high``, ``@rest`` or ``@X25`` -> (name, parameter word ``k``: threshold and scope)."""
    text, _, scope_word = spec.strip().partition("@")
    scope = parse_scope(scope_word) if scope_word or "@" in spec else 0
    name, k = text, 0
    for sep in (":k=", "="):
        if sep in text:
            name, raw = text.split(sep, 1)
            try:
                k = int(raw)
            except ValueError:
                raise ValueError(f"joker policy {spec!r}: k must be a whole number, not {raw!r}") from None
            break
    if name not in POLICIES:
        raise ValueError(f"unknown joker policy {name!r}; valid: {', '.join(POLICIES)}")
    if not 0 <= k <= K_MASK:
        raise ValueError(f"joker policy {spec!r}: k must be between 0 and {K_MASK}")
    if scope and name in ("random", "greedy"):
        raise ValueError(f"joker policy {spec!r}: {name} has no rule to put on one joker")
    return name, k | (scope << SCOPE_SHIFT)


def policy_label(name: str, k: int) -> str:
    """The canonical text of a policy (``min_points:k=3``, ``hold``, ``hold@high``)."""
    scope = scope_text(k >> SCOPE_SHIFT)
    base = f"{name}:k={k & K_MASK}" if name == "min_points" else name
    return f"{base}@{scope}" if scope else base


def rule_param(name: str, k: int) -> str:
    """The ``joker=`` value of an agent spec for a parsed rule (``min_points=6@high``: no comma,
    no colon, so it sits inside an agent spec)."""
    scope = scope_text(k >> SCOPE_SHIFT)
    base = f"{name}={k & K_MASK}" if name == "min_points" else name
    return f"{base}@{scope}" if scope else base


def constraint_code(text: str) -> tuple[int, int]:
    """The (policy code, k) of a joker rule given to a strong agent (``joker=hold``,
    ``joker=min_points=6``); ``""`` or ``greedy``: no rule."""
    if not text.strip():
        return POLICY_GREEDY, 0
    name, k = parse_policy(text)
    if name == "random":
        raise ValueError("joker=random is not a rule on an agent's choice; valid: " + ", ".join(POLICIES[1:]))
    return POLICIES.index(name), k


# ------------------------------------------------------------------------------------------------
# Compiled scoring
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def points_taken(R, S, mv):
    """Points a capture takes from the table, Zwick bonus included (the played card's not)."""
    pts = 0
    if mv[layout.M_KIND] != layout.KIND_CAPTURE:
        return 0
    mask = mv[layout.M_MASK]
    for i in range(arrays.unit_count(S)):
        if (mask >> i) & kernels.ONE:
            pts += arrays.unit_points(R, S, arrays.unit_anchor(S, i))
    return pts + (arrays.zwick_points(R) if arrays.is_zwick(mv) else 0)


@kernel(nrt=False)
def in_scope(R, c, k):
    """Joker ``c`` is one the rule with parameter word ``k`` acts on (:data:`SCOPE_SHIFT`)."""
    scope = k >> SCOPE_SHIFT
    if scope == 0:
        return True
    if arrays.is_wild(R, c):  # identical wild jokers: each is "the highest"
        return (scope & SCOPE_HIGH) != 0
    if (scope >> (2 + c - VJOKER_BASE)) & 1:
        return True
    higher = 0
    for i in range(R[layout.R_DECK_SIZE]):
        d = arrays.deck_card(R, i)
        if arrays.is_valued_joker(R, d) and arrays.top_value(R, d) > arrays.top_value(R, c):
            higher += 1
    return (scope & (SCOPE_HIGH if higher == 0 else SCOPE_REST)) != 0


#: tiers of a move under a joker rule: the rule prefers, allows or forbids it (a forbidden move is
#: still played when nothing better is legal: "forced")
TIER_PREFERRED, TIER_ALLOWED, TIER_FORBIDDEN = 1, 0, -1


@kernel(nrt=False)
def rule_tier(R, S, mv, policy, k):
    """The joker rule's verdict on move ``mv`` (:data:`TIER_PREFERRED`, ``_ALLOWED`` or
    ``_FORBIDDEN``): the one place each rule is written. Moves that play no joker from the hand,
    questions included, are allowed by every rule."""
    kind = mv[layout.M_KIND]
    if policy <= POLICY_GREEDY or kind == layout.KIND_ASK or not arrays.is_joker(R, mv[layout.M_CARD]):
        return TIER_ALLOWED
    if not in_scope(R, mv[layout.M_CARD], k):
        return TIER_ALLOWED
    capture = kind == layout.KIND_CAPTURE
    if policy == POLICY_EARLY:
        return TIER_PREFERRED if capture else TIER_ALLOWED
    if policy == POLICY_HOLD:
        return TIER_FORBIDDEN
    if policy == POLICY_MIN_POINTS:
        return TIER_ALLOWED if capture and points_taken(R, S, mv) >= (k & K_MASK) else TIER_FORBIDDEN
    if policy == POLICY_BUILD:
        return TIER_PREFERRED if kind == layout.KIND_BUILD else TIER_FORBIDDEN
    # POLICY_LAST_STAGE
    return TIER_ALLOWED if arrays.last_stage(R, S) else TIER_FORBIDDEN


@kernel(nrt=False)
def policy_value(R, S, mv, policy, k):
    """The score of move ``mv`` under joker policy ``policy`` (higher is better): the greedy value
    lifted or lowered by :data:`BONUS` by the rule's tier, so a rule decides before greedy does."""
    if mv[layout.M_KIND] == layout.KIND_ASK:
        return NEVER_ASK
    return kernels.greedy_value(R, S, mv) + BONUS * rule_tier(R, S, mv, policy, k)


@kernel(nrt=False)
def allowed_moves(R, S, rows, n, policy, k, asks, out):
    """Mark in ``out[:n]`` the moves of ``rows[:n]`` a strong agent under joker rule ``policy`` may
    choose from: those of the best tier :func:`rule_tier` gives (so a preferred joker move must be
    played, a forbidden one only when every move is forbidden). ``asks=False`` leaves questions
    out unless only questions are legal (an agent that never asks). Returns how many are marked."""
    cards = 0
    for i in range(n):
        cards += rows[i, layout.M_KIND] != layout.KIND_ASK
    skip = not asks and cards > 0
    top = TIER_FORBIDDEN
    for i in range(n):
        if not (skip and rows[i, layout.M_KIND] == layout.KIND_ASK):
            top = max(top, rule_tier(R, S, rows[i], policy, k))
    cnt = 0
    for i in range(n):
        out[i] = not (skip and rows[i, layout.M_KIND] == layout.KIND_ASK) and rule_tier(R, S, rows[i], policy, k) == top
        cnt += out[i]
    return cnt


@kernel
def allowed_mask(R, S, rows, policy, k, asks):
    """:func:`allowed_moves` of every row of ``rows`` as a new boolean array (for the agents)."""
    out = np.zeros(rows.shape[0], np.bool_)
    allowed_moves(R, S, rows, rows.shape[0], policy, k, asks, out)
    return out


@kernel(nrt=False)
def choose_move(R, S, buf, n, policy, k):
    """Index of the move of ``buf[:n]`` that ``policy`` plays (ties at random via ``np.random``)."""
    if policy == POLICY_RANDOM:
        return np.random.randint(n)
    best, ties, pick = -1e18, 0, 0
    for i in range(n):  # ties broken as the greedy playouts break them
        best, ties, pick = kernels.best_so_far(policy_value(R, S, buf[i], policy, k), i, best, ties, pick)
    return pick


@kernel
def policy_values(R, S, rows, policy, k):
    """Scores of every row of ``rows`` under ``policy`` (for the agent and tests)."""
    out = np.empty(rows.shape[0], np.float64)
    for i in range(rows.shape[0]):
        out[i] = policy_value(R, S, rows[i], policy, k)
    return out


@kernel(nrt=False)
def joker_play_info(R, S, mv, out):
    """Fill ``out`` (J_FIELDS) with the situation in which ``mv`` plays a joker, before it is played."""
    out[J_PLAYED] = 1
    out[J_STAGE] = arrays.stage(S)
    out[J_LAST] = 1 if arrays.last_stage(R, S) else 0
    out[J_KIND] = mv[layout.M_KIND]
    out[J_TAKEN] = points_taken(R, S, mv)
    out[J_UNITS] = arrays.unit_count(S)
    out[J_HAND] = arrays.hand_size(S, arrays.to_move(S))
    out[J_PLY] = arrays.plies(S)
    out[J_SEAT] = arrays.to_move(S)


# ------------------------------------------------------------------------------------------------
# Compiled deals and playouts
# ------------------------------------------------------------------------------------------------
class RuleHands(NamedTuple):
    """What :func:`play_rule_deals` returns, one row per hand."""

    scores: np.ndarray  # [N, sides] int64: each side's points
    zwicks: np.ndarray  # [N, sides] int64: each side's Zwicks
    won_side: np.ndarray  # [N, NC] int8: the side that won each card (-1: none)
    dealt_to: np.ndarray  # [N, NC] int8: the seat each card was dealt to (-1: table or stock)
    jplays: np.ndarray  # [N, NC, J_FIELDS] int64: where joker c was played from a hand (J_PLAYED 0: never)


@kernel
def play_rule_deals(R, orders, dealers, play_seeds, policies, ks):
    """Play one hand per deck order (``orders[h]`` dealt by ``dealers[h]``), seat p using joker
    policy ``policies[p]`` with parameter ``ks[p]``; ``np.random`` is seeded with ``play_seeds[h]``
    for the tie-breaks and random play. Returns their :class:`RuleHands`."""
    n = orders.shape[0]
    ns = arrays.sides(R)
    scores = np.zeros((n, ns), np.int64)
    zwicks = np.zeros((n, ns), np.int64)
    won_side = np.full((n, arrays.NUM_CARDS), -1, np.int8)
    dealt = np.full((n, arrays.NUM_CARDS), -1, np.int8)
    jplays = np.zeros((n, arrays.NUM_CARDS, J_FIELDS), np.int64)
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    for h in range(n):
        S = kernels.empty_state(R)
        kernels.start_hand(R, S, orders[h], dealers[h], W)
        np.random.seed(play_seeds[h])
        while not arrays.is_over(S):
            buf, X, m = kernels.gen_moves(R, S, buf, W, X)
            if m == 0:
                raise ValueError("no legal move in a running hand")
            p = arrays.to_move(S)
            i = choose_move(R, S, buf, m, policies[p], ks[p])
            c = buf[i, layout.M_CARD]
            if buf[i, layout.M_KIND] != layout.KIND_ASK and arrays.is_joker(R, c):
                joker_play_info(R, S, buf[i], jplays[h, c])
            kernels.apply_move(R, S, buf[i], W)
        kernels.record_hand(R, S, h, scores, zwicks, won_side, dealt)
    return RuleHands(scores, zwicks, won_side, dealt, jplays)


@dataclass
class Deals:
    """Outcome of :func:`play_orders`: arrays as returned by :func:`play_rule_deals` plus the dealers."""

    scores: np.ndarray
    zwicks: np.ndarray
    won_side: np.ndarray
    dealt_to: np.ndarray
    jplays: np.ndarray
    dealers: np.ndarray


def policy_arrays(policies: Sequence[str], players: int) -> tuple[np.ndarray, np.ndarray]:
    """Policy codes and k parameters for every seat from one spec or one spec per seat."""
    specs = list(policies)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise ValueError(f"give one joker policy or one per seat ({players}), not {len(specs)}")
    parsed = [parse_policy(s) for s in specs]
    return (
        np.array([POLICIES.index(n) for n, _ in parsed], np.int64),
        np.array([k for _, k in parsed], np.int64),
    )


def play_seed_of(seeds: np.ndarray) -> np.ndarray:
    """The playout seed of each deal seed (as ``kernels.play_hands`` derives it)."""
    return (np.asarray(seeds, np.int64) * 69069 + 12345) % 4294967296


def play_orders(
    rules: Rules, orders: np.ndarray, dealers: np.ndarray, play_seeds: np.ndarray, policies: Sequence[str]
) -> Deals:
    """Play explicit deals (deck orders and dealers) with one joker policy spec per seat."""
    pol, ks = policy_arrays(policies, rules.players)
    hands = play_rule_deals(
        rules.array(), orders, np.asarray(dealers, np.int64), np.asarray(play_seeds, np.int64), pol, ks
    )
    return Deals(**hands._asdict(), dealers=np.asarray(dealers, np.int64))


def play_seeds(rules: Rules, seeds: np.ndarray, policies: Sequence[str]) -> Deals:
    """Play the seeded deals ``zwicker.deal(rules, seed)`` with one joker policy spec per seat."""
    seeds = np.asarray(seeds, np.int64)
    orders, dealers = deal_orders(rules.array(), seeds)
    return play_orders(rules, orders, dealers, play_seed_of(seeds), policies)


def joker_cards(rules: Rules) -> list[int]:
    """The joker card ids of the rule set's deck."""
    return [c for c in rules.deck if cards.is_valued_joker(c) or cards.is_wild_joker(c)]


# ------------------------------------------------------------------------------------------------
# The agent
# ------------------------------------------------------------------------------------------------
def agent_rule(policy: str, k: int) -> tuple[int, int]:
    """(code, parameter word) of the ``joker`` agent's ``policy`` and ``k`` (a threshold written in
    the policy, ``min_points=6@high``, wins over ``k``)."""
    text, at, scope = policy.partition("@")
    if text.strip() == "min_points":
        text = f"min_points:k={k}"
    name, word = parse_policy(text + at + scope)
    return POLICIES.index(name), word


def _check(params: dict) -> None:
    agent_rule(params["policy"], params["k"])


@register(
    "joker",
    params=[
        Param(
            "policy",
            str,
            "hold",
            "joker policy: " + ", ".join(POLICIES) + "; @high, @rest or @X25: on those jokers only",
        ),
        Param("k", int, 3, "min_points: least table points a joker capture must take"),
    ],
    games=("zwicker",),
    summary="Zwicker greedy with a joker-usage policy (early, hold, min_points, build, last_stage).",
    check=_check,
)
class JokerAgent(Agent):
    """Zwicker greedy play with a joker-usage policy (module docstring), scored by the same
    compiled :func:`policy_value` as the compiled playouts.

    >>> import pyspiel, zwick_ai.games
    >>> from zwick_ai.agents.base import make_agent
    >>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    >>> agent = make_agent("joker:policy=min_points,k=4", game, seed=1)
    >>> agent.spec, len(agent.act(zwicker_bridge.state_from_seed(game, 2))) >= 1
    ('joker:policy=min_points,k=4', True)
    """

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        self.code, self.word = agent_rule(params["policy"], params["k"])

    def act(self, state: pyspiel.State) -> list[int]:
        decision = state.decision()
        rows = decision.candidates
        if self.code == POLICY_RANDOM:
            return zwicker_bridge.move_actions(state, rows[int(self.rng.integers(len(rows)))])
        values = policy_values(decision.rules_array, decision.position, rows, self.code, self.word)
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return zwicker_bridge.move_actions(state, rows[int(best[self.rng.integers(len(best))])])


__all__ = [
    "POLICIES",
    "TIER_ALLOWED",
    "TIER_FORBIDDEN",
    "TIER_PREFERRED",
    "allowed_mask",
    "allowed_moves",
    "rule_tier",
    "agent_rule",
    "in_scope",
    "parse_scope",
    "rule_param",
    "scope_text",
    "constraint_code",
    "Deals",
    "JokerAgent",
    "choose_move",
    "joker_cards",
    "joker_play_info",
    "parse_policy",
    "RuleHands",
    "play_rule_deals",
    "play_orders",
    "play_seeds",
    "policy_arrays",
    "policy_label",
    "policy_value",
    "policy_values",
]
