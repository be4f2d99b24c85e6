"""The step kernels behind the OpenSpiel ``zwicker`` game's states (:mod:`zwick_ai.games.zwicker`): the
chance model (the dealer or the cut, then the deal as increasing runs of deck indices), sub-action
steps (a whole move applied once its last token is chosen), the replay of a resampled state and
the returns. The state array is :mod:`zwick_ai.zwicker.history`'s; the game table ``G`` is the
rules array, the codec and the chance layout below.
"""

from __future__ import annotations

import numpy as np

from zwick_ai.chance_runs import run_probabilities
from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.codec import (
    CD_D,
    CD_DECK,
    CD_DIDX,
    CODEC_SIZE,
    COL_NTOK,
    TOK0,
    Codec,
    advance_sel,
    next_tokens,
    next_tokens_sel,
    turn_matrix,
)
from zwick_ai.zwicker.history import (
    DEST_TABLE,
    DEST_UNKNOWN,
    GB_CD,
    GB_CH,
    L_NTOK,
    LOGW,
    MAXTOK,
    SS,
    X_ASSIGNED,
    X_CDEST,
    X_CUT,
    X_DEAL_STAGE,
    X_DEALER,
    X_DEALT,
    X_GFILL,
    X_GLAST,
    X_GROUP,
    X_LOG,
    X_NCHANCE,
    X_NCUT,
    X_NPLY,
    X_ORDER,
    X_PLEN,
    X_PREFIX,
    X_TABLE_STAGE,
    XB,
    logged_row_into,
    record_move,
)
from zwick_ai.zwicker.rules import Rules

# Player ids as OpenSpiel's (pyspiel.PlayerId; copied so that the kernels need no pyspiel, and
# checked equal by the tests), and step_k's player for an illegal sub-action.
CHANCE = -1
TERMINAL = -4
ILLEGAL = -100


# ------------------------------------------------------------------------------------------------
# The deal: chance groups (the layout game_table packs)
# ------------------------------------------------------------------------------------------------
def deal_layout(rules: Rules, dealer: int) -> tuple[list[tuple[int, int, list[int]]], int]:
    """Chance groups ``(stage, destination, positions)`` in chance order, and how many deck
    positions are dealt by chance. Destinations: a seat, ``DEST_TABLE``, or ``DEST_UNKNOWN``
    (single positions after stage 0 under ``dietze_min_table``). Mirrors :func:`~zwick_ai.zwicker.kernels.deal_stage`."""
    players, plan, n = rules.players, rules.plan, rules.deck_size
    forehand = (dealer + 1) % players
    dest: list[tuple[int, int]] = []  # (stage, destination) per position

    def hands(stage: int, each: int, packet: int) -> None:
        for _ in range(each // packet):
            for i in range(players):
                for _ in range(packet):
                    dest.append((stage, (forehand + i) % players))

    for kind, count, packet in plan.first:
        if kind == "hands":
            hands(0, count, max(1, packet))
        else:
            dest.extend((0, DEST_TABLE) for _ in range(count))
    if rules.dietze_min_table > 0:
        first = len(dest)
        groups = _group(dest, players)
        groups += [(-1, DEST_UNKNOWN, [i]) for i in range(first, n)]
        return groups, n
    stage = 0
    while len(dest) < n and stage + 1 < plan.max_stages:
        stage += 1
        left = n - len(dest)
        if plan.final_hand > 0 and left == players * plan.final_hand:
            hands(stage, plan.final_hand, 1)
        elif left >= players * plan.stage_hand:
            hands(stage, plan.stage_hand, plan.stage_packet)
        else:
            i = 0
            while len(dest) < n:
                dest.append((stage, (forehand + i) % players))
                i += 1
    return _group(dest, players), len(dest)


def _group(dest: list[tuple[int, int]], players: int) -> list[tuple[int, int, list[int]]]:
    groups: dict[tuple[int, int], list[int]] = {}
    for pos, key in enumerate(dest):
        groups.setdefault(key, []).append(pos)
    order = sorted(groups, key=lambda k: (k[0], k[1] if k[1] >= 0 else players))
    return [(s, d, groups[(s, d)]) for s, d in order]


# ---- the game's read-only table G (int32): [rules array | codec | chance layout] -----------------
CH_NGMAX = 0  # groups per dealer (max)
CH_GMAX = 1  # cards per group (max)
CH_FIRST = 2  # 1: the dealer is one chance node; 0: the cut
CH_NG = 4  # per dealer: number of groups
CH_T = CH_NG + layout.MAX_PLAYERS  # GSIZE, GSTAGE, GDEST (P x NGMAX each), then GPOS (P x NGMAX x GMAX)


def game_table(rules: Rules, codec: Codec, groups: list[list[tuple[int, int, list[int]]]]) -> np.ndarray:
    """Pack the rules array, the codec and the chance groups (per dealer) into one int32 array."""
    players = rules.players
    ngmax = max(len(g) for g in groups)
    gmax = max(len(pos) for g in groups for _, _, pos in g)
    cells = players * ngmax
    G = np.full(GB_CH + CH_T + 3 * cells + cells * gmax, -1, np.int32)
    G[: layout.RULES_SIZE] = rules.array()
    G[GB_CD : GB_CD + CODEC_SIZE] = codec.arr
    ch = GB_CH
    G[ch + CH_NGMAX], G[ch + CH_GMAX], G[ch + CH_FIRST] = ngmax, gmax, rules.first_dealer == "random"
    for d, grs in enumerate(groups):
        G[ch + CH_NG + d] = len(grs)
        for g, (stage, dest, pos) in enumerate(grs):
            cell = d * ngmax + g
            G[ch + CH_T + cell] = len(pos)
            G[ch + CH_T + cells + cell] = stage
            G[ch + CH_T + 2 * cells + cell] = dest
            G[ch + CH_T + 3 * cells + cell * gmax : ch + CH_T + 3 * cells + cell * gmax + len(pos)] = pos
    return G


@kernel(inline="always")
def _cell(G, d, g):
    return d * G[GB_CH + CH_NGMAX] + g


@kernel(inline="always")
def _gfield(G, k, d, g):
    """Group field k (0 size, 1 stage, 2 destination) of group g for dealer d."""
    cells = G[layout.R_PLAYERS] * G[GB_CH + CH_NGMAX]
    return G[GB_CH + CH_T + k * cells + _cell(G, d, g)]


@kernel(inline="always")
def _gpos(G, d, g, j):
    cells = G[layout.R_PLAYERS] * G[GB_CH + CH_NGMAX]
    return G[GB_CH + CH_T + 3 * cells + _cell(G, d, g) * G[GB_CH + CH_GMAX] + j]


# ------------------------------------------------------------------------------------------------
# Kernels
# ------------------------------------------------------------------------------------------------
@kernel
def _current(S):
    if S[layout.S_PHASE] == layout.PHASE_OVER:
        return TERMINAL
    return S[layout.S_TO_MOVE]


@kernel
def chance_outcomes_k(G, a):
    """(outcome ids, probabilities) of the chance node."""
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    first_random = G[GB_CH + CH_FIRST]
    X = a[XB:]
    D = CD[CD_D]
    if X[X_DEALER] < 0:
        if first_random:
            players = R[layout.R_PLAYERS]
            return np.arange(players), np.full(players, 1.0 / players)
        free = np.ones(D, np.bool_)
        for k in range(X[X_NCUT]):
            free[CD[CD_DIDX + X[X_CUT + k]]] = False
        ids = np.flatnonzero(free)
        return ids, np.full(ids.shape[0], 1.0 / ids.shape[0])
    d = X[X_DEALER]
    g = X[X_GROUP]
    r = _gfield(G, 0, d, g) - X[X_GFILL]
    last = X[X_GLAST]
    above = 0  # free cards above ``last``
    for i in range(last + 1, D):
        if not X[X_ASSIGNED + CD[CD_DECK + i]]:
            above += 1
    ids = np.empty(above, np.int64)
    probs = np.empty(above, np.float64)
    n = run_probabilities(above, r, probs, 0)
    k = 0
    for i in range(last + 1, D):
        if k == n:
            break
        if not X[X_ASSIGNED + CD[CD_DECK + i]]:
            ids[k] = i
            k += 1
    return ids[:n], probs[:n]


@kernel
def _deal_done(R, a, CD, W):
    """Lay the remaining cards in ascending order and let the engine deal stage 0."""
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    j = 0
    for pos in range(D):
        if X[X_ORDER + pos] < 0:
            while X[X_ASSIGNED + CD[CD_DECK + j]]:
                j += 1
            c = CD[CD_DECK + j]
            X[X_ORDER + pos] = c
            X[X_ASSIGNED + c] = 1
    order = np.empty(D, np.int64)
    for pos in range(D):
        order[pos] = X[X_ORDER + pos]
    kernels.start_hand(R, S, order, X[X_DEALER], W)
    X[X_DEALT] = 1
    for i in range(D):
        c = CD[CD_DECK + i]
        loc = S[layout.S_LOC + c]
        if loc != layout.LOC_STOCK:
            X[X_DEAL_STAGE + c] = 0
            if loc == layout.LOC_TABLE:
                X[X_TABLE_STAGE + c] = 1
    return _current(S)


@kernel
def apply_chance_k(G, a, W, outcome):
    """Apply a chance outcome; return the next current player."""
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    first_random = G[GB_CH + CH_FIRST]
    X = a[XB:]
    D = CD[CD_D]
    X[X_NCHANCE] += 1
    if X[X_DEALER] < 0:
        if first_random:
            X[X_DEALER] = outcome
        else:
            X[X_CUT + X[X_NCUT]] = CD[CD_DECK + outcome]
            X[X_NCUT] += 1
            dealer = kernels.cut_dealer(R, X[X_CUT:], X[X_NCUT], D)
            if dealer >= 0:
                X[X_DEALER] = dealer
        return CHANCE
    d = X[X_DEALER]
    g = X[X_GROUP]
    f = X[X_GFILL]
    c = CD[CD_DECK + outcome]
    X[X_ORDER + _gpos(G, d, g, f)] = c
    X[X_ASSIGNED + c] = 1
    if _gfield(G, 1, d, g) == 0:
        X[X_CDEST + c] = _gfield(G, 2, d, g)
    X[X_GLAST] = outcome
    f += 1
    if f == _gfield(G, 0, d, g):
        g += 1
        f = 0
        X[X_GLAST] = -1
    X[X_GROUP] = g
    X[X_GFILL] = f
    if g == G[GB_CH + CH_NG + d]:
        return _deal_done(R, a, CD, W)
    return CHANCE


@kernel(inline="always")
def turn_k(G, a, W):
    """The candidate moves (with token sequences) of the current partial move."""
    X = a[XB:]
    return turn_matrix(
        G[: layout.RULES_SIZE], a[:SS], G[GB_CD : GB_CD + CODEC_SIZE], X[X_PREFIX : X_PREFIX + MAXTOK], X[X_PLEN], W
    )


@kernel
def legal_k(a, M):
    """The legal sub-actions: next tokens of the candidate moves."""
    return next_tokens(M, a[XB + X_PLEN])


@kernel
def step_k(G, a, M, sel, tok, W):
    """Apply one sub-action. ``M`` holds the turn's candidate moves with their token sequences and
    ``sel`` the rows still reachable from the sub-actions chosen so far. Returns (candidates,
    reachable rows, legal sub-actions, player to move): within a move ``M`` itself with fewer rows;
    once the move is complete it is applied and the next turn's candidates are returned. The
    player is ILLEGAL for an illegal sub-action (nothing changes)."""
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    X = a[XB:]
    k = X[X_PLEN]
    sel2 = advance_sel(M, sel, k, tok)
    if sel2.shape[0] == 0:
        return M, sel2, np.empty(0, np.int64), np.int64(ILLEGAL)
    if sel2.shape[0] == 1 and M[sel2[0], COL_NTOK] == k + 1:
        row = np.zeros(layout.MOVE_WIDTH, np.int64)
        for j in range(layout.M_FIELDS):
            row[j] = M[sel2[0], j]
        record_move(R, a, CD, row, k + 1, W)
        return turn_start_k(G, a, W)
    X[X_PREFIX + k] = tok
    X[X_PLEN] = k + 1
    return M, sel2, next_tokens_sel(M, sel2, k + 1), np.int64(a[layout.S_TO_MOVE])  # the mover keeps the turn


@kernel
def turn_start_k(G, a, W):
    """(candidates, rows, legal sub-actions, player) at the start of a turn (empty when no one
    decides), like :func:`step_k`."""
    cur = np.int64(_current(a[:SS]))
    if cur < 0 or a[XB + X_DEALT] == 0:
        none = np.empty(0, np.int64)
        return np.empty((0, TOK0), np.int64), none, none, np.int64(cur if a[XB + X_DEALT] else CHANCE)
    M = turn_k(G, a, W)
    return M, np.arange(M.shape[0]), next_tokens(M, a[XB + X_PLEN]), cur


@kernel
def chance_step_k(G, a, W, outcome):
    """Apply a chance outcome; returns the player to move next (CHANCE while the deal goes on).
    Once a player decides, :func:`turn_start_k` gives the turn's candidates (two calls, so that
    the many chance steps of a deal return no arrays: boxing each costs about a microsecond)."""
    apply_chance_k(G, a, W, outcome)
    if a[XB + X_DEALT] == 0:
        return np.int64(CHANCE)
    return np.int64(_current(a[:SS]))


@kernel
def replay_token_k(G, a, orig, tok, W):
    """Apply sub-action ``tok`` while rebuilding a resampled state from the original's log
    (``orig``): the move of the current ply is taken from that log instead of being generated.
    Legality was established by :func:`resample_k`. Returns the player to move."""
    X = a[XB:]
    OX = orig[XB:]
    t = X[X_NPLY]
    k = X[X_PLEN]
    if t < OX[X_NPLY] and k + 1 == OX[X_LOG + t * LOGW + L_NTOK]:
        row = np.zeros(layout.MOVE_WIDTH, np.int64)
        logged_row_into(OX, t, row)
        record_move(G[: layout.RULES_SIZE], a, G[GB_CD : GB_CD + CODEC_SIZE], row, k + 1, W)
        return np.int64(_current(a[:SS]))
    X[X_PREFIX + k] = tok
    X[X_PLEN] = k + 1
    return np.int64(a[layout.S_TO_MOVE])


@kernel
def side_returns(R, S, win_loss, out):
    """Write into ``out`` the return of each side of the engine state ``S`` (module docstring of
    :mod:`zwick_ai.games.zwicker`): ``NS * s_k - sum(s)`` for points; with ``win_loss``, ``NS - K``
    for each of the ``K`` sides sharing the top score and ``-K`` for every other side."""
    sc = kernels.score(R, S)
    ns = R[layout.R_NSIDES]
    if win_loss:
        best = sc.max()
        top = 0
        for s in range(ns):
            if sc[s] == best:
                top += 1
        for s in range(ns):
            out[s] = (ns - top) if sc[s] == best else -top
        return out
    total = sc.sum()
    for s in range(ns):
        out[s] = ns * sc[s] - total
    return out


@kernel
def returns_k(G, a, win_loss):
    """Returns per player: the return of the player's side (:func:`side_returns`)."""
    R = G[: layout.RULES_SIZE]
    sides = side_returns(R, a[:SS], win_loss, np.zeros(R[layout.R_NSIDES], np.float64))
    players = R[layout.R_PLAYERS]
    out = np.zeros(players, np.float64)
    for p in range(players):
        out[p] = sides[R[layout.R_SIDE_OF + p]]
    return out


@kernel
def seed_chance_k(G, seed):
    """The chance outcomes that deal ``zwicker.deal(rules, seed)``: the dealer (or the cut cards
    until the cut decides), then each group's cards as increasing deck indices."""
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    D = CD[CD_D]
    order, dealer, cut = kernels.deal_order_with_cut(R, seed)
    out = np.empty(2 * D + 1, np.int64)
    n = 0
    if G[GB_CH + CH_FIRST]:
        out[n] = dealer
        n += 1
    else:
        cards = np.empty(D, np.int32)
        for k in range(cut.shape[0]):
            cards[k] = cut[k]
            out[n] = CD[CD_DIDX + cut[k]]
            n += 1
            if kernels.cut_dealer(R, cards, k + 1, D) >= 0:
                break
    for g in range(G[GB_CH + CH_NG + dealer]):
        size = _gfield(G, 0, dealer, g)
        run = np.empty(size, np.int64)
        for j in range(size):
            run[j] = CD[CD_DIDX + order[_gpos(G, dealer, g, j)]]
        run.sort()
        for j in range(size):
            out[n] = run[j]
            n += 1
    return out[:n]
