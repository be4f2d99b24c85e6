"""Zwicker's world drawing: which hidden deals (the other players' hands and the stock order) are
consistent with what one player saw, and uniform draws from them (used by the OpenSpiel game's
``resample_from_infostate`` and by the search agents' determinization).

A world is accepted when the current stage replays identically in it: the same turn order and
phases, every logged move legal again and every Magger answer the same (past stages are fully
known). The input is the state array of :mod:`zwick_ai.zwicker.history` and the game table ``G``
(the rules array, then the codec). Nothing here imports OpenSpiel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import kernels as zwicker_kernels
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.codec import (
    CD_D,
    CD_DECK,
    CD_PLAY,
    CODEC_SIZE,
    turn_matrix,
)
from zwick_ai.zwicker.history import logged_row_into


@kernel
def _stage_start(a):
    """First ply of the current stage (plies logged in the current stage are the last ones)."""
    X = a[zwicker_history.XB :]
    stage = a[layout.S_STAGE]
    t = X[zwicker_history.X_NPLY]
    while t > 0 and X[zwicker_history.X_LOG + (t - 1) * zwicker_history.LOGW + zwicker_history.L_STAGE] == stage:
        t -= 1
    return t


@kernel
def _row_legal_fast(R, Sw, row, W):
    """Legality of the logged move ``row`` for the player to move in a resampled world, decided
    from its world-dependent conditions only: 1 legal, 0 illegal, -1 undecided (use the engine).

    In the owner variants (no forced capture, no identical copies) a capture set, a build value
    and a trail are legal or not by public facts, which are the same in every world consistent
    with the history; what depends on the hidden cards is the card being in hand and the owner's
    duty of the mover (and, for a build for partner, of the partner), exactly as
    ``kernels.gen_moves_ws``/``gen_builds`` test them. Questions and the classic/grupp variants
    (forced capture, identical copies) are left to the engine's move generator."""
    kind = row[layout.M_KIND]
    if R[layout.R_OWNER_BUILDS] == 0 or kind == layout.KIND_ASK:
        return -1
    q = Sw[layout.S_TO_MOVE]
    c = row[layout.M_CARD]
    held = False
    for i in range(Sw[layout.S_HAND_N + q]):
        if Sw[layout.S_HANDS + q * layout.MAX_HAND + i] == c:
            held = True
            break
    if not held:
        return 0
    if kind == layout.KIND_CAPTURE:
        return 1 if zwicker_kernels.duty_ok(R, Sw, q, row[layout.M_MASK], 0, c, W) else 0
    if kind == layout.KIND_TRAIL:
        return 1 if zwicker_kernels.duty_ok(R, Sw, q, 0, 0, c, W) else 0
    target = row[layout.M_TARGET]
    excl = np.int64(1) << target if target >= 0 else np.int64(0)
    v = row[layout.M_VALUE]
    owner = row[layout.M_OWNER]
    if owner == q:
        return 1 if zwicker_kernels.duty_ok(R, Sw, q, excl, v, c, W) else 0
    if not zwicker_kernels.duty_ok(R, Sw, q, excl, 0, c, W):
        return 0
    q_excl = excl if target >= 0 and Sw[layout.S_UOWNER + Sw[layout.S_UNITS + target]] == owner else np.int64(0)
    return 1 if zwicker_kernels.duty_ok(R, Sw, owner, q_excl, v, -1, W) else 0


@kernel(inline="always")
def _row_legal_full(R, Sw, row, W):
    rows = zwicker_kernels.legal_moves(R, Sw, W)
    for i in range(rows.shape[0]):
        if (
            rows[i, layout.M_KIND] == row[layout.M_KIND]
            and rows[i, layout.M_CARD] == row[layout.M_CARD]
            and rows[i, layout.M_VALUE] == row[layout.M_VALUE]
            and rows[i, layout.M_MASK] == row[layout.M_MASK]
            and rows[i, layout.M_TARGET] == row[layout.M_TARGET]
            and rows[i, layout.M_OWNER] == row[layout.M_OWNER]
        ):
            return 1
    return 0


@kernel(inline="always")
def _replay_ok(R, a, CD, S0w, t0, W, full=False):
    """Replay plies t0.. from ``S0w``: same turn order and phases, every move legal, the same
    answers to questions, and the current partial move still completable. Returns the final
    engine state, or an empty array. ``full`` checks every move with the engine's generator."""
    S = a[: zwicker_history.SS]
    X = a[zwicker_history.XB :]
    Sw = S0w.copy()
    bad = Sw[:0]
    row = np.zeros(layout.MOVE_WIDTH, np.int64)
    for t in range(t0, X[zwicker_history.X_NPLY]):
        e = zwicker_history.X_LOG + t * zwicker_history.LOGW
        if (
            Sw[layout.S_PHASE] != X[e + zwicker_history.L_PHASE]
            or Sw[layout.S_TO_MOVE] != X[e + zwicker_history.L_SEAT]
        ):
            return bad
        logged_row_into(X, t, row)
        ok = -1 if full else _row_legal_fast(R, Sw, row, W)
        if ok == -1:
            ok = _row_legal_full(R, Sw, row, W)
        if ok == 0:
            return bad
        zwicker_kernels.apply_move(R, Sw, row, W)
        if X[e + zwicker_history.L_KIND] == layout.KIND_ASK and Sw[layout.S_ASK_ANS] != X[e + zwicker_history.L_ANSWER]:
            return bad
    for f in (
        layout.S_PHASE,
        layout.S_TO_MOVE,
        layout.S_AZ_LEFT,
        layout.S_ASK_Q,
        layout.S_ASK_N,
        layout.S_ASK_ANS,
        layout.S_STAGE,
    ):
        if Sw[f] != S[f]:
            return bad
    if S[layout.S_PHASE] != layout.PHASE_OVER and X[zwicker_history.X_PLEN] > 0:
        M = turn_matrix(
            R,
            Sw,
            CD,
            X[zwicker_history.X_PREFIX : zwicker_history.X_PREFIX + zwicker_history.MAXTOK],
            X[zwicker_history.X_PLEN],
            W,
        )
        if M.shape[0] == 0:
            return bad
    return Sw


@kernel
def _stage_start_state(R, a, t0, W):
    """The engine state when the current stage began: the deal replayed with the logged moves."""
    X = a[zwicker_history.XB :]
    S = zwicker_kernels.empty_state(R)
    n = R[layout.R_DECK_SIZE]
    order = np.empty(n, np.int64)
    for i in range(n):
        order[i] = X[zwicker_history.X_ORDER + i]
    zwicker_kernels.start_hand(R, S, order, X[zwicker_history.X_DEALER], W)
    row = np.zeros(layout.MOVE_WIDTH, np.int64)
    for t in range(t0):
        logged_row_into(X, t, row)
        zwicker_kernels.apply_move(R, S, row, W)
    return S


@kernel
def _world(R, a, setup, S0w, cards):
    """Write into ``S0w`` the stage start ``setup.S0`` with the hidden seats' hands given by
    ``cards`` (first ``need[q]`` cards for each hidden seat ``q`` in ``setup.hidden``, then the
    stock; :class:`WorldSetup`)."""
    S0, t0, hidden, need = setup.S0, setup.t0, setup.hidden, setup.need
    pinned, pinned_seat = setup.pinned, setup.pinned_seat
    S = a[: zwicker_history.SS]
    X = a[zwicker_history.XB :]
    for i in range(S0.shape[0]):  # element copies: an array assignment compiles numba's shape-error message
        S0w[i] = S0[i]
    k = 0
    for h in range(hidden.shape[0]):
        q = hidden[h]
        S0w[layout.S_HAND_N + q] = 0
        for _ in range(need[h]):
            c = cards[k]
            k += 1
            zwicker_kernels.hand_insert(S0w, q, c)
            S0w[layout.S_DEALT_TO + c] = q
        if q == pinned_seat:
            zwicker_kernels.hand_insert(S0w, q, pinned)
            S0w[layout.S_DEALT_TO + pinned] = q
        for t in range(t0, X[zwicker_history.X_NPLY]):
            e = zwicker_history.X_LOG + t * zwicker_history.LOGW
            if X[e + zwicker_history.L_SEAT] == q and X[e + zwicker_history.L_KIND] != layout.KIND_ASK:
                c = X[e + zwicker_history.L_CARD]
                zwicker_kernels.hand_insert(S0w, q, c)
                S0w[layout.S_DEALT_TO + c] = q
    top = S[layout.S_STOCK_TOP]
    for pos in range(top, S[layout.S_STOCK_LEN]):
        c = cards[k]
        k += 1
        S0w[layout.S_STOCK + pos] = c
        S0w[layout.S_LOC + c] = layout.LOC_STOCK
        S0w[layout.S_DEALT_TO + c] = -1


@kernel
def _produces(R, S, c, n):
    """True when card ``c`` could make a build of value ``n`` on the table ``S`` (new, or on some
    unit with +, -, or the same value), ignoring the holding requirement: the public half of the
    condition under which the engine offers a question about ``n`` (``kernels.gen_builds``)."""
    v1 = R[layout.R_VAL1 + c]
    v2 = R[layout.R_VAL2 + c]
    either = R[layout.R_SUBTRACT_EITHER] == 1
    for x in range(2):
        q = v1 if x == 0 else v2
        if q <= 0:
            continue
        if q == n:
            return True
        for u in range(S[layout.S_NUNITS]):
            an = S[layout.S_UNITS + u]
            for y in range(2):
                if S[layout.S_UBUILD + an]:
                    if y == 1:
                        break
                    o = S[layout.S_UVALUE + an]
                else:
                    o = R[layout.R_VAL1 + an] if y == 0 else R[layout.R_VAL2 + an]
                    if o <= 0:
                        continue
                if o + q == n or o - q == n or (either and q - o == n) or (q == o and o == n):
                    return True
    return False


@kernel
def _constraints(R, a, S0, t0, W):
    """Necessary conditions that the current stage's history puts on hidden holdings, found by
    replaying its public moves once (owner variants). Rows (kind, seat, ply, a, b, expected):
    kind 0, "after this ply the seat's holding passes the owner's-duty test for the build values
    in mask ``a``" (every move, a build's new owner, and each Magger answer with the asked value
    added, holding at the question); kind 1, "at this question the asker held one of the cards in
    the mask (a: ids 0..62, b: ids 63..125)" that could make a build of the asked value."""
    X = a[zwicker_history.XB :]
    n = X[zwicker_history.X_NPLY] - t0
    out = np.zeros((3 * n + 1, 6), np.int64)
    if R[layout.R_OWNER_BUILDS] == 0:
        return out[:0]
    Sw = S0.copy()
    row = np.zeros(layout.MOVE_WIDTH, np.int64)
    k = 0
    for t in range(t0, X[zwicker_history.X_NPLY]):
        e = zwicker_history.X_LOG + t * zwicker_history.LOGW
        logged_row_into(X, t, row)
        kind = row[layout.M_KIND]
        seat = X[e + zwicker_history.L_SEAT]
        if kind == layout.KIND_ASK:
            x = X[e + zwicker_history.L_OWNER]
            v = X[e + zwicker_history.L_VALUE]
            out[k, 0], out[k, 1], out[k, 2] = 0, x, t
            out[k, 3] = zwicker_kernels.owned_build_values(Sw, x, 0) | (np.int64(1) << v)
            out[k, 5] = X[e + zwicker_history.L_ANSWER]
            k += 1
            lo = np.int64(0)
            hi = np.int64(0)
            for c in range(layout.NC):
                if R[layout.R_VAL1 + c] > 0 and _produces(R, Sw, c, v):
                    if c < 63:
                        lo |= np.int64(1) << c
                    else:
                        hi |= np.int64(1) << (c - 63)
            out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4], out[k, 5] = 1, seat, t, lo, hi, 1
            k += 1
        zwicker_kernels.apply_move(R, Sw, row, W)
        if kind != layout.KIND_ASK:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 5] = (
                0,
                seat,
                t,
                zwicker_kernels.owned_build_values(Sw, seat, 0),
                1,
            )
            k += 1
            if kind == layout.KIND_BUILD and X[e + zwicker_history.L_OWNER] != seat:
                x = X[e + zwicker_history.L_OWNER]
                out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 5] = (
                    0,
                    x,
                    t,
                    zwicker_kernels.owned_build_values(Sw, x, 0),
                    1,
                )
                k += 1
    return out[:k]


@kernel
def _later_cards(a, cons):
    """For each constraint row: the cards its seat played after its ply (flat, with offsets)."""
    X = a[zwicker_history.XB :]
    n = cons.shape[0]
    start = np.zeros(n + 1, np.int64)
    flat = np.empty(max(1, n * 32), np.int64)
    k = 0
    for r in range(n):
        start[r] = k
        for t in range(cons[r, 2] + 1, X[zwicker_history.X_NPLY]):
            e = zwicker_history.X_LOG + t * zwicker_history.LOGW
            if X[e + zwicker_history.L_SEAT] == cons[r, 1] and X[e + zwicker_history.L_KIND] != layout.KIND_ASK:
                if k >= flat.shape[0]:
                    bigger = np.empty(2 * flat.shape[0], np.int64)
                    for i in range(k):
                        bigger[i] = flat[i]
                    flat = bigger
                flat[k] = X[e + zwicker_history.L_CARD]
                k += 1
    start[n] = k
    return start, flat


@kernel
def _prefilter(R, setup, cards, buf):
    """True when the drawn hands ``cards`` pass every constraint of :func:`_constraints` in
    ``setup`` (a :class:`WorldSetup`; a seat's holding after ply t = its drawn hand plus the cards
    it played later in the stage)."""
    cons, later, flat = setup.cons, setup.later, setup.flat
    hidden, need, pinned, pinned_seat = setup.hidden, setup.need, setup.pinned, setup.pinned_seat
    start = 0
    for h in range(hidden.shape[0]):
        q = hidden[h]
        base = 0
        for j in range(need[h]):
            buf[base] = cards[start + j]
            base += 1
        if q == pinned_seat:
            buf[base] = pinned
            base += 1
        for r in range(cons.shape[0]):
            if cons[r, 1] != q:
                continue
            n = base
            for k in range(later[r], later[r + 1]):
                buf[n] = flat[k]
                n += 1
            if cons[r, 0] == 0:
                if zwicker_kernels.cards_meet_values(R, buf, 0, n, cons[r, 3], -1) != (cons[r, 5] == 1):
                    return False
            else:
                hit = False
                for j in range(n):
                    c = buf[j]
                    if (cons[r, 3] >> c) & 1 if c < 63 else (cons[r, 4] >> (c - 63)) & 1:
                        hit = True
                        break
                if not hit:
                    return False
        start += need[h]
    return True


class WorldSetup(NamedTuple):
    """What stays fixed while worlds are drawn for one player (:func:`resample_setup`); numba
    passes it like a plain tuple."""

    hidden: np.ndarray  # the other seats holding cards
    need: np.ndarray  # the cards each of them gets (the pinned card excluded)
    truth: np.ndarray  # the true hidden cards in slot order: each hidden hand, then the stock
    pinned: int  # the card the mover already chose in a partial move, or -1
    pinned_seat: int  # the mover holding it, or -1
    t0: int  # the first ply of the current stage
    S0: np.ndarray  # the engine state at that ply
    cons: np.ndarray  # the cheap necessary conditions of :func:`_constraints`
    later: np.ndarray  # offsets into ``flat`` per constraint row (:func:`_later_cards`)
    flat: np.ndarray  # the cards each constrained seat played later in the stage


@kernel
def resample_setup(G, a, p, W):
    """What stays fixed while worlds are drawn for player ``p`` from the state array ``a``: the
    :class:`WorldSetup` ``(hidden, need, truth, pinned, pinned_seat, t0, S0, cons, later, flat)``
    that :func:`resample_draw` and :func:`resample_chain` take.

    - ``hidden``: the other seats holding cards; ``need``: the cards each of them gets;
    - ``truth``: the true hidden cards in slot order (each hidden seat's hand, then the stock
      positions in order), a consistent assignment to start the Markov chain from;
    - ``pinned``, ``pinned_seat``: the card the mover already chose in a partial move (it stays
      with the mover and is not drawn) and the mover, or -1, -1;
    - ``t0``: the first ply of the current stage; ``S0``: the engine state at that ply;
    - ``cons``: the cheap necessary conditions of :func:`_constraints`; ``later``, ``flat``: the
      cards each constrained seat played later in the stage (:func:`_later_cards`)."""
    R = G[: layout.RULES_SIZE]
    CD = G[zwicker_history.GB_CD : zwicker_history.GB_CD + CODEC_SIZE]
    S = a[: zwicker_history.SS]
    X = a[zwicker_history.XB :]
    D = CD[CD_D]
    players = R[layout.R_PLAYERS]
    mover = S[layout.S_TO_MOVE]
    pinned = -1
    pinned_seat = -1
    if S[layout.S_PHASE] != layout.PHASE_OVER and X[zwicker_history.X_PLEN] > 0 and mover != p:
        tok = X[zwicker_history.X_PREFIX]
        if tok >= CD[CD_PLAY] and tok < CD[CD_PLAY] + D:
            pinned = CD[CD_DECK + tok - CD[CD_PLAY]]
            pinned_seat = mover
    nh = 0
    for q in range(players):
        if q != p and S[layout.S_HAND_N + q] > 0:
            nh += 1
    hidden = np.empty(nh, np.int64)
    need = np.empty(nh, np.int64)
    h = 0
    for q in range(players):
        if q != p and S[layout.S_HAND_N + q] > 0:
            hidden[h] = q
            need[h] = S[layout.S_HAND_N + q] - (1 if q == pinned_seat else 0)
            h += 1
    nstock = S[layout.S_STOCK_LEN] - S[layout.S_STOCK_TOP]
    truth = np.empty(need.sum() + nstock, np.int64)
    k = 0
    for h in range(nh):
        q = hidden[h]
        for i in range(S[layout.S_HAND_N + q]):
            c = S[layout.S_HANDS + q * layout.MAX_HAND + i]
            if c != pinned:
                truth[k] = c
                k += 1
    for pos in range(S[layout.S_STOCK_TOP], S[layout.S_STOCK_LEN]):
        truth[k] = S[layout.S_STOCK + pos]
        k += 1
    t0 = _stage_start(a)
    S0 = _stage_start_state(R, a, t0, W)
    cons = _constraints(R, a, S0, t0, W)
    later, flat = _later_cards(a, cons)
    return WorldSetup(hidden, need, truth, pinned, pinned_seat, t0, S0, cons, later, flat)


@kernel
def _setup_ok(R, setup, cards, buf):
    """True when the slot assignment ``cards`` passes the cheap constraints of ``setup``."""
    return _prefilter(R, setup, cards, buf)


@kernel
def resample_world(G, a, p, setup, cards, S0w, W):
    """The current engine state of the world whose hidden slots hold ``cards`` (``setup`` from
    :func:`resample_setup`; ``S0w`` is scratch of the stage-start state's size), or an empty
    array when the current stage does not replay identically in it (:func:`_replay_ok`)."""
    R = G[: layout.RULES_SIZE]
    CD = G[zwicker_history.GB_CD : zwicker_history.GB_CD + CODEC_SIZE]
    _world(R, a, setup, S0w, cards)
    return _replay_ok(R, a, CD, S0w, setup.t0, W)


@kernel(inline="always")
def resample_draw(G, a, p, setup, cards, tries, W):
    """Exact rejection sampling: permute ``cards`` (in place, each draw a uniform permutation of
    the hidden cards into the slots) until the current stage replays identically, at most
    ``tries`` times. Returns (draws made, the accepted world's engine state or an empty array).
    The necessary conditions of :func:`_constraints` are tested first because they are cheap."""
    R = G[: layout.RULES_SIZE]
    total = cards.shape[0]
    buf = np.empty(layout.NC + 8, np.int32)  # card ids, as in the state (one compiled cards_meet_values)
    S0w = setup.S0.copy()
    for n in range(tries):
        for i in range(total - 1, 0, -1):
            j = np.random.randint(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        if not _setup_ok(R, setup, cards, buf):
            continue
        Sw = resample_world(G, a, p, setup, cards, S0w, W)
        if Sw.shape[0] > 0:
            return n + 1, Sw
    return tries, S0w[:0]


@kernel(inline="always")
def resample_chain(G, a, p, setup, cards, steps, W):
    """``steps`` proposed swaps of a Markov chain on consistent slot assignments: ``cards`` (in
    place, consistent on entry) swaps two slots of different seats (or two stock positions) and
    keeps the swap only when the world stays consistent."""
    R = G[: layout.RULES_SIZE]
    need = setup.need
    nh = need.shape[0]
    total = cards.shape[0]
    buf = np.empty(layout.NC + 8, np.int32)  # card ids, as in the state (one compiled cards_meet_values)
    S0w = setup.S0.copy()
    slot = np.empty(total, np.int64)
    k = 0
    for h in range(nh):
        for _ in range(need[h]):
            slot[k] = h
            k += 1
    while k < total:
        slot[k] = nh
        k += 1
    if total > 1:
        for _ in range(steps):
            i = np.random.randint(total)
            j = np.random.randint(total)
            if slot[i] == slot[j] and slot[i] < nh:
                continue
            cards[i], cards[j] = cards[j], cards[i]
            ok = _setup_ok(R, setup, cards, buf)
            if ok:
                ok = resample_world(G, a, p, setup, cards, S0w, W).shape[0] > 0
            if not ok:
                cards[i], cards[j] = cards[j], cards[i]


@kernel
def resample_k(G, a, p, seed, max_tries, mcmc_steps, W):
    """Draw the hidden cards for player ``p``. Returns (status, hidden seats, cards): status 1 =
    exact rejection sample (:func:`resample_draw`), 2 = Markov-chain fallback
    (:func:`resample_chain` from the true deal); ``cards`` lists each hidden seat's current hand
    (``need`` cards each, the pinned card excluded) and then the stock positions in order.
    Accepting exactly the consistent draws makes this exact rejection sampling."""
    np.random.seed(seed)
    setup = resample_setup(G, a, p, W)
    hidden, truth = setup.hidden, setup.truth
    cards = truth.copy()
    if resample_draw(G, a, p, setup, cards, max_tries, W)[1].shape[0] > 0:
        return 1, hidden, cards
    cards = truth.copy()
    resample_chain(G, a, p, setup, cards, mcmc_steps, W)
    return 2, hidden, cards


def resampled_deck_order(
    a: np.ndarray,
    p: int,
    hidden: np.ndarray,
    cards: np.ndarray,
    deck: Sequence[int] | np.ndarray,
    groups: list[tuple[int, int, list[int]]],
) -> list[int]:
    """The deck order of a world drawn for player ``p``'s view: the game array ``a`` (position, deal
    record and move log, :mod:`zwick_ai.zwicker.history`) with the hidden seats' cards and the stock
    replaced by the draw of :func:`resample_k` (``hidden``/``cards``). ``deck`` maps deck indices to
    card ids; ``groups`` are the dealer's chance groups (:func:`~zwick_ai.zwicker.steps.deal_layout`)."""
    x = a[zwicker_history.XB :]
    n = len(deck)
    order = x[zwicker_history.X_ORDER : zwicker_history.X_ORDER + n].tolist()
    cur_stage = int(a[layout.S_STAGE])
    # Hidden seats' sets per stage: played cards, plus the drawn hand (and a pinned card) now.
    sets: dict[tuple[int, int], list[int]] = {}
    nply = int(x[zwicker_history.X_NPLY])
    for e in (
        x[zwicker_history.X_LOG : zwicker_history.X_LOG + nply * zwicker_history.LOGW]
        .reshape(nply, zwicker_history.LOGW)
        .tolist()
    ):
        if e[zwicker_history.L_KIND] != layout.KIND_ASK and e[zwicker_history.L_SEAT] != p:
            sets.setdefault((e[zwicker_history.L_SEAT], e[zwicker_history.L_STAGE]), []).append(
                e[zwicker_history.L_CARD]
            )
    k = 0
    pinned_seat = -1
    pinned = -1
    if x[zwicker_history.X_PLEN] > 0 and int(a[layout.S_TO_MOVE]) != p and a[layout.S_PHASE] != layout.PHASE_OVER:
        tok = int(x[zwicker_history.X_PREFIX])
        if tok < n:
            pinned, pinned_seat = int(deck[tok]), int(a[layout.S_TO_MOVE])
    for q in hidden.tolist():
        cnt = int(a[layout.S_HAND_N + q]) - (1 if q == pinned_seat else 0)
        lst = sets.setdefault((q, cur_stage), [])
        lst.extend(int(c) for c in cards[k : k + cnt])
        if q == pinned_seat:
            lst.append(pinned)
        k += cnt
    stock = [int(c) for c in cards[k:]]
    slots: dict[tuple[int, int], list[int]] = {}
    stock_pos = []
    deal_stage = x[zwicker_history.X_DEAL_STAGE : zwicker_history.X_DEAL_STAGE + layout.NC].tolist()
    dealt_to = a[layout.S_DEALT_TO : layout.S_DEALT_TO + layout.NC].tolist()
    for pos, c in enumerate(order):
        stage = deal_stage[c]
        if stage >= 0:
            q = dealt_to[c]
            if q >= 0 and q != p:
                slots.setdefault((q, stage), []).append(pos)
        else:
            stock_pos.append(pos)
    for key, positions in slots.items():
        for pos, c in zip(positions, sorted(sets[key]), strict=True):
            order[pos] = c
    for pos, c in zip(stock_pos, stock, strict=True):
        order[pos] = c
    # Future groups are increasing runs; never-dealt cards lie in ascending order.
    in_group = set()
    for _, _, positions in groups:
        in_group.update(positions)
        if positions and positions[0] >= int(a[layout.S_STOCK_TOP]):
            for pos, c in zip(positions, sorted(order[q] for q in positions), strict=True):
                order[pos] = c
    unused = [pos for pos in range(n) if pos not in in_group]
    for pos, c in zip(unused, sorted(order[q] for q in unused), strict=True):
        order[pos] = c
    return order
