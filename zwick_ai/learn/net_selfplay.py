"""Compiled self-play for the generations of ``zwick train net`` (numpy + numba only).

:func:`selfplay_afterstates` plays whole hands with one *after* model
(:mod:`zwick_ai.agents.value_model`) at every seat, a uniformly random card move instead with
probability ``eps`` (exploration) at decisions with two or more card moves, and records the
position after every card move that does not end the hand (the afterstate), from the mover's
view: its features, its card-level view (:func:`~zwick_ai.zwicker.features.after_input`), the
lead so far (card points and Zwicks, own side minus the mean of the others) and, once the hand is
over, the final point difference of the mover's side (the tournaments' measure). The final
difference minus the lead is the points still to come: a regression of it on the input is the
after model's value under the current policy (Monte-Carlo returns from the move on, not from the
start of the hand). Before a generation has a model the hands are played by the compiled greedy
baseline (``policy`` = ``POLICY_GREEDY``).

With a *teacher* (:func:`selfplay_search_targets`) the same hands are played, but at every
decision with two or more card moves a ``peek-uct`` search (:func:`zwick_ai.agents.zwicker_search.peek_search`:
UCT on the true hands, the stock shuffled every iteration) values the candidate moves, and each
card move the search visited often enough is recorded with the search's mean value in points as
its target (expert iteration with a perfect-information teacher, as PerfectDou's critic sees all
cards in training only: the model still sees only the mover's view, so it learns the teacher's
value averaged over the worlds that fit that view).

:func:`save_shard` and :func:`load_shard` keep the records on disk as ``.npz`` shards.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from zwick_ai.agents import value_model, zwicker_search
from zwick_ai.files import load_npz, replacing
from zwick_ai.jit import kernel
from zwick_ai.mlp import mlp_forward
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.features import CARD_BLOCK, F_LEAD, F_ZWICK, NFEAT, after_input, side_diff
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET_AFTER

RECORDS_START = 4096  # record rows before the first doubling


class ShardRecords(NamedTuple):
    """Self-play records, one row per recorded afterstate in the order played: what the self-play
    kernels return and a shard file holds (:data:`SHARD_FIELDS`, its arrays' names)."""

    features: np.ndarray  # [N, NFEAT] float32: the afterstate's features from the mover's view
    cards: np.ndarray  # [N, CARD_BLOCK * deck] uint8: its card-level view
    lead: np.ndarray  # [N] float32: the lead after the move (card points and Zwicks)
    final: np.ndarray  # [N] float32: the final point difference of the mover's side (a teacher's: its value)
    value: np.ndarray  # [N] float32: the playing model's value of the afterstate (NaN: none)
    player: np.ndarray  # [N] int32: the mover
    hand: np.ndarray  # [N] int32: the hand's index among the seeds


#: the arrays of a shard file, named as the :class:`ShardRecords`' fields
SHARD_FIELDS = ShardRecords._fields


class RecordBuffers(NamedTuple):
    """The growing buffers the self-play kernels record into (:func:`_new_records`): the fields
    of :class:`ShardRecords` and the mover's side, ``cap`` rows each."""

    features: np.ndarray
    cards: np.ndarray
    lead: np.ndarray
    final: np.ndarray
    value: np.ndarray
    side: np.ndarray  # [cap] int32: the mover's side (scores the hand's end)
    player: np.ndarray
    hand: np.ndarray


@kernel
def _random_card_move(buf, n):
    """A uniformly random index among the first ``n`` moves that are not questions."""
    cards = 0
    for j in range(n):
        cards += buf[j, layout.M_KIND] != layout.KIND_ASK
    r = np.random.randint(cards)
    for j in range(n):
        if buf[j, layout.M_KIND] != layout.KIND_ASK:
            if r == 0:
                return j
            r -= 1
    return 0


@kernel
def seed_hand_stream(seed):
    """Seed the compiled random stream of the self-play hand ``seed`` (exploration, tie-breaks, the
    teacher's search): each hand's choices depend on its seed alone."""
    np.random.seed((seed * 69069 + 12345) % 4294967296)


@kernel
def _moves(R, S, buf, W, Xb):
    """The legal moves of ``S`` into ``buf`` (grown if needed): (buf, Xb, their count, how many of
    them are card moves, not questions)."""
    n = kernels.gen_moves_ws(R, S, buf, W, Xb)
    if n < 0:
        buf, Xb, n = kernels.gen_moves(R, S, buf, W, Xb)
    cards = 0
    for j in range(n):
        cards += buf[j, layout.M_KIND] != layout.KIND_ASK
    return buf, Xb, n, cards


@kernel
def _pick(R, S, buf, n, cards, policy, eps, m, W):
    """The self-play choice among the ``n`` moves ``buf``: with two or more card moves a random card
    move with probability ``eps``, else the after model's best (``POLICY_NET_AFTER``); greedy's
    choice otherwise."""
    if cards >= 2 and np.random.random() < eps:
        return _random_card_move(buf, n)
    if cards >= 2 and policy == POLICY_NET_AFTER:
        return value_model.after_pick(R, S, buf, n, m, W)
    return kernels.choose(R, S, buf, n, POLICY_GREEDY)


@kernel
def _new_records(cap, width):
    """Empty :class:`RecordBuffers` of ``cap`` rows for inputs of ``width``."""
    return RecordBuffers(
        np.zeros((cap, NFEAT), np.float32),
        np.zeros((cap, width - NFEAT), np.uint8),
        np.zeros(cap, np.float32),
        np.zeros(cap, np.float32),
        np.zeros(cap, np.float32),
        np.zeros(cap, np.int32),
        np.zeros(cap, np.int32),
        np.zeros(cap, np.int32),
    )


@kernel
def _add_record(rec, nrow, x, final, value, side, player, hand):
    """Row ``nrow`` of the buffers ``rec`` (:func:`_new_records`, doubled first when full): the
    input ``x`` (features, then the card-level view), its lead and the other fields. Returns the
    buffers."""
    if nrow == rec.features.shape[0]:
        big = _new_records(2 * nrow, NFEAT + rec.cards.shape[1])
        big.features[:nrow] = rec.features[:nrow]
        big.cards[:nrow] = rec.cards[:nrow]
        big.lead[:nrow] = rec.lead[:nrow]
        big.final[:nrow] = rec.final[:nrow]
        big.value[:nrow] = rec.value[:nrow]
        big.side[:nrow] = rec.side[:nrow]
        big.player[:nrow] = rec.player[:nrow]
        big.hand[:nrow] = rec.hand[:nrow]
        rec = big
    for i in range(NFEAT):
        rec.features[nrow, i] = x[i]
    for i in range(rec.cards.shape[1]):
        rec.cards[nrow, i] = np.uint8(x[NFEAT + i])
    rec.lead[nrow] = x[F_LEAD] + x[F_ZWICK]
    rec.final[nrow] = final
    rec.value[nrow] = value
    rec.side[nrow] = side
    rec.player[nrow] = player
    rec.hand[nrow] = hand
    return rec


@kernel
def _records_out(rec, nrow):
    """The first ``nrow`` records as :class:`ShardRecords` (the side left out)."""
    return ShardRecords(
        rec.features[:nrow].copy(),
        rec.cards[:nrow].copy(),
        rec.lead[:nrow].copy(),
        rec.final[:nrow].copy(),
        rec.value[:nrow].copy(),
        rec.player[:nrow].copy(),
        rec.hand[:nrow].copy(),
    )


@kernel
def selfplay_afterstates(R, seeds, policy, eps, m):
    """Play one hand per seed (module docstring). Returns the :class:`ShardRecords` of the
    recorded afterstates, ``value`` the playing model's (lead plus its points still to come; NaN
    for greedy)."""
    nh = seeds.shape[0]
    ns = R[layout.R_NSIDES]
    width = NFEAT + CARD_BLOCK * R[layout.R_DECK_SIZE]
    rec = _new_records(RECORDS_START, width)
    x = np.zeros(width, np.float64)
    W = kernels.new_workspace()
    buf, Xb = kernels.new_buffers()
    nrow = 0
    for h in range(nh):
        S = kernels.new_hand(R, seeds[h], W)
        first = nrow
        seed_hand_stream(seeds[h])
        while S[layout.S_PHASE] != layout.PHASE_OVER:
            buf, Xb, n, cards = _moves(R, S, buf, W, Xb)
            p = S[layout.S_TO_MOVE]
            k = _pick(R, S, buf, n, cards, policy, eps, m, W)
            Spre = S.copy()
            kernels.apply_move(R, S, buf[k], W)
            if S[layout.S_PHASE] == layout.PHASE_OVER or buf[k, layout.M_KIND] == layout.KIND_ASK:
                continue
            after_input(R, Spre, S, p, x)
            own = x[F_LEAD] + x[F_ZWICK] + mlp_forward(x, m) if policy == POLICY_NET_AFTER else np.nan
            rec = _add_record(rec, nrow, x, 0.0, own, R[layout.R_SIDE_OF + p], p, h)
            nrow += 1
        sc = kernels.score(R, S).astype(np.float64)
        for r in range(first, nrow):
            rec.final[r] = side_diff(sc, rec.side[r], ns)
    return _records_out(rec, nrow)


@kernel
def selfplay_search_targets(R, seeds, policy, eps, m, iters, settings, min_visits):
    """Play one hand per seed as :func:`selfplay_afterstates` does, and at every decision with two
    or more card moves run ``iters`` iterations of ``peek-uct`` from the true position under
    ``settings`` (a :class:`~zwick_ai.agents.zwicker_search.Settings`: UCB constant, play-out
    policy code, points rewards, ``total`` the pack's card points, the search's reward scale). Records every card move with at least ``min_visits`` root visits that does not
    end the hand: its afterstate's input and lead as :func:`selfplay_afterstates` records them, and
    in place of the final difference the search's mean value of the move (the mover's side minus
    the mean of the others, in points); ``value`` is NaN (the targets are not chained)."""
    nh = seeds.shape[0]
    width = NFEAT + CARD_BLOCK * R[layout.R_DECK_SIZE]
    rec = _new_records(RECORDS_START, width)
    x = np.zeros(width, np.float64)
    W = kernels.new_workspace()
    buf, Xb = kernels.new_buffers()
    nrow = 0
    for h in range(nh):
        S = kernels.new_hand(R, seeds[h], W)
        seed_hand_stream(seeds[h])
        while S[layout.S_PHASE] != layout.PHASE_OVER:
            buf, Xb, n, cards = _moves(R, S, buf, W, Xb)
            p = S[layout.S_TO_MOVE]
            if cards >= 2:
                rows = buf[:n]  # the search keeps its own move buffers
                tree = zwicker_search.new_tree(iters + 2)
                zwicker_search.peek_search(R, S, iters, settings, tree, W)
                visits, qsum = zwicker_search.root_stats(S, rows, tree)
                for k in range(n):
                    if rows[k, layout.M_KIND] == layout.KIND_ASK or visits[k] < min_visits:
                        continue
                    Sc = S.copy()
                    kernels.apply_move(R, Sc, rows[k], W)
                    if Sc[layout.S_PHASE] == layout.PHASE_OVER:
                        continue
                    after_input(R, S, Sc, p, x)
                    target = qsum[k] / visits[k] * settings.total
                    rec = _add_record(rec, nrow, x, target, np.nan, R[layout.R_SIDE_OF + p], p, h)
                    nrow += 1
            k = _pick(R, S, buf, n, cards, policy, eps, m, W)
            kernels.apply_move(R, S, buf[k], W)
    return _records_out(rec, nrow)


@kernel
def lambda_returns(final, value, player, hand, lam):
    """Per record, the lambda-return of its afterstate (TD(lambda) over the same player's
    afterstates in its hand): ``G_t = (1 - lam) * value_t' + lam * G_t'`` with ``t'`` the player's
    next record, and ``G`` = the final difference after a player's last record. ``lam`` = 1 (or a
    NaN value, greedy's records) is the Monte-Carlo return, the final difference."""
    n = final.shape[0]
    out = np.zeros(n, np.float32)
    g_next = np.zeros(64, np.float64)
    v_next = np.zeros(64, np.float64)
    has = np.zeros(64, np.bool_)
    current = -1
    for r in range(n - 1, -1, -1):
        if hand[r] != current:
            current = hand[r]
            has[:] = False
        p = player[r]
        if not has[p]:
            g = float(final[r])
        elif np.isnan(v_next[p]):
            g = g_next[p]
        else:
            g = (1.0 - lam) * v_next[p] + lam * g_next[p]
        out[r] = g
        g_next[p] = g
        v_next[p] = value[r]
        has[p] = True
    return out


def save_shard(path: Path, records: ShardRecords) -> None:
    """Write one shard of records (its arrays named as :data:`SHARD_FIELDS`; atomically: a shard
    on disk is always whole)."""
    path = Path(path)
    with replacing(path, ".tmp.npz") as tmp:
        np.savez_compressed(tmp, allow_pickle=False, **records._asdict())


def load_shard(path: Path) -> ShardRecords:
    """Read a shard written by :func:`save_shard`."""
    arrays = load_npz(path, SHARD_FIELDS)  # a damaged shard: one error naming it
    return ShardRecords(**{name: arrays[name] for name in SHARD_FIELDS})


__all__ = [
    "SHARD_FIELDS",
    "RecordBuffers",
    "ShardRecords",
    "lambda_returns",
    "load_shard",
    "save_shard",
    "seed_hand_stream",
    "selfplay_afterstates",
    "selfplay_search_targets",
]
