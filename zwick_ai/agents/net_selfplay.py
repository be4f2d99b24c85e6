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

:func:`save_shard` and :func:`load_shard` keep the records on disk as ``.npz`` shards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from zwick_ai.agents import value_model
from zwick_ai.mlp import mlp_forward
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.features import CARD_BLOCK, F_LEAD, F_ZWICK, NFEAT, after_input, side_diff
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET_AFTER

SHARD_FIELDS = ("features", "cards", "lead", "final", "value", "player", "hand")


@njit(cache=True)
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


@njit(cache=True)
def selfplay_afterstates(R, seeds, policy, eps, m):
    """Play one hand per seed (module docstring). Returns, one row per recorded afterstate in the
    order played: (features[N, NFEAT] float32, card-level view[N, CARD_BLOCK * deck] uint8, lead
    after the move[N] float32, final point difference of the mover's side[N] float32, the playing
    model's value of the afterstate (lead plus its points still to come; NaN for greedy)[N] float32,
    mover[N] int32, hand index[N] int32)."""
    nh = seeds.shape[0]
    ns = R[layout.R_NSIDES]
    width = NFEAT + CARD_BLOCK * R[layout.R_DECK_SIZE]
    cap = 4096
    F = np.zeros((cap, NFEAT), np.float32)
    C = np.zeros((cap, width - NFEAT), np.uint8)
    lead = np.zeros(cap, np.float32)
    final = np.zeros(cap, np.float32)
    value = np.zeros(cap, np.float32)
    side = np.zeros(cap, np.int32)
    player = np.zeros(cap, np.int32)
    hand = np.zeros(cap, np.int32)
    x = np.zeros(width, np.float64)
    W = kernels.new_workspace()
    buf, Xb = kernels.new_buffers()
    nrow = 0
    for h in range(nh):
        S = kernels.new_hand(R, seeds[h], W)
        first = nrow
        np.random.seed((seeds[h] * 69069 + 12345) % 4294967296)
        while S[layout.S_PHASE] != layout.PHASE_OVER:
            n = kernels.gen_moves_ws(R, S, buf, W, Xb)
            if n < 0:
                buf, Xb, n = kernels.gen_moves(R, S, buf, W, Xb)
            p = S[layout.S_TO_MOVE]
            cards = 0
            for j in range(n):
                cards += buf[j, layout.M_KIND] != layout.KIND_ASK
            if cards >= 2 and np.random.random() < eps:
                k = _random_card_move(buf, n)
            elif cards >= 2 and policy == POLICY_NET_AFTER:
                k = value_model.after_pick(R, S, buf, n, m, W)
            else:
                k = kernels.choose(R, S, buf, n, POLICY_GREEDY)
            Spre = S.copy()
            kernels.apply_move(R, S, buf[k], W)
            if S[layout.S_PHASE] == layout.PHASE_OVER or buf[k, layout.M_KIND] == layout.KIND_ASK:
                continue
            after_input(R, Spre, S, p, x)
            if nrow == cap:
                cap *= 2
                F2 = np.zeros((cap, NFEAT), np.float32)
                F2[:nrow] = F[:nrow]
                F = F2
                C2 = np.zeros((cap, width - NFEAT), np.uint8)
                C2[:nrow] = C[:nrow]
                C = C2
                lead = np.concatenate((lead[:nrow], np.zeros(cap - nrow, np.float32)))
                final = np.concatenate((final[:nrow], np.zeros(cap - nrow, np.float32)))
                value = np.concatenate((value[:nrow], np.zeros(cap - nrow, np.float32)))
                side = np.concatenate((side[:nrow], np.zeros(cap - nrow, np.int32)))
                player = np.concatenate((player[:nrow], np.zeros(cap - nrow, np.int32)))
                hand = np.concatenate((hand[:nrow], np.zeros(cap - nrow, np.int32)))
            for i in range(NFEAT):
                F[nrow, i] = x[i]
            for i in range(width - NFEAT):
                C[nrow, i] = np.uint8(x[NFEAT + i])
            lead[nrow] = x[F_LEAD] + x[F_ZWICK]
            value[nrow] = lead[nrow] + mlp_forward(x, m) if policy == POLICY_NET_AFTER else np.nan
            side[nrow] = R[layout.R_SIDE_OF + p]
            player[nrow] = p
            hand[nrow] = h
            nrow += 1
        sc = kernels.score(R, S).astype(np.float64)
        for r in range(first, nrow):
            final[r] = side_diff(sc, side[r], ns)
    return (
        F[:nrow].copy(),
        C[:nrow].copy(),
        lead[:nrow].copy(),
        final[:nrow].copy(),
        value[:nrow].copy(),
        player[:nrow].copy(),
        hand[:nrow].copy(),
    )


@njit(cache=True)
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


def save_shard(path: Path, records: tuple[np.ndarray, ...]) -> None:
    """Write one shard of records (:data:`SHARD_FIELDS`; atomically: a shard on disk is always whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, allow_pickle=False, **dict(zip(SHARD_FIELDS, records, strict=True)))
    tmp.replace(path)


def load_shard(path: Path) -> tuple[np.ndarray, ...]:
    """Read a shard written by :func:`save_shard`: the arrays of :data:`SHARD_FIELDS`."""
    with np.load(Path(path), allow_pickle=False) as z:
        return tuple(z[name] for name in SHARD_FIELDS)


__all__ = ["SHARD_FIELDS", "lambda_returns", "load_shard", "save_shard", "selfplay_afterstates"]
