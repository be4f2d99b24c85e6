"""The compiled resampler of a player's information in the trick games: the compiled counterpart
of :func:`zwick_ai.tricks.resample` (the searches of :mod:`zwick_ai.agents.tricks_search` draw their
worlds with it).

The other seats' hidden cards (deals, draws) are re-dealt from the cards the player has not seen,
with each seat's publicly seen cards (face-up plays, a swapped ten) in the hand it held after its
exchange, its discards drawn from the dealt cards it did not keep, face-down plays (1853)
re-chosen among the cards the seat could have played; the history is replayed and the sample
rejected when an observed action becomes illegal. Exact rejection sampling over uniform deals when
nobody exchanged or played face down; otherwise approximately uniform (see
:func:`zwick_ai.tricks.resample`). The player's own cards and every public event are kept, so the
sample has the player's information state exactly.

>>> import numpy as np
>>> from zwick_ai import tricks
>>> r = tricks.rules("zwikken", variant="parlett", players=3)
>>> s = tricks.deal(r, seed=3)
>>> w = resample_fast(s, 0, np.random.default_rng(1))
>>> tricks.hand(w, 0) == tricks.hand(s, 0), tricks.upcards(w) == tricks.upcards(s)
(True, True)
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout
from zwick_ai.tricks.engine import TrickState

TRIES = 5000  # rejections before the resampler gives up


@kernel
def seed(value):
    """Seed numba's random generator (shared by every compiled random choice: the resampler's and the searches')."""
    np.random.seed(value)  # noqa: NPY002


@kernel
def knowledge(s, player, seen, public, open_draws):
    """What ``player`` has seen (``seen[card]``) and, per other seat, the cards publicly seen in
    its hand (``public[seat, card]``), as :func:`zwick_ai.tricks.engine._known_to`."""
    ups = np.empty(tricks_layout.MAXUP + 1, dtype=np.int32)
    swappers = np.empty(tricks_layout.MAXUP + 1, dtype=np.int32)
    nu = 0
    nsw = 0
    for i in range(s[tricks_layout.S_HLEN]):
        kind = s[tricks_layout.S_HIST + 3 * i]
        who = s[tricks_layout.S_HIST + 3 * i + 1]
        v = s[tricks_layout.S_HIST + 3 * i + 2]
        if kind == tricks_layout.H_UP:
            seen[v] = True
            ups[nu] = v
            nu += 1
        elif kind == tricks_layout.H_CUT:
            if v == s[tricks_layout.S_BOTTOM]:
                seen[v] = True  # a cut that passed the deal went back into the pack
        elif (kind == tricks_layout.H_DEAL or kind == tricks_layout.H_DRAW) and who == player:
            seen[v] = True
        elif kind == tricks_layout.H_DRAWPUB:
            seen[v] = True
            open_draws[v] = True
        elif kind == tricks_layout.H_HIDDEN and who == player:
            seen[v - tricks_layout.A_DISCARD if v >= tricks_layout.A_DISCARD else v] = True
        elif kind == tricks_layout.H_ACT and v < tricks_layout.A_DISCARD:
            seen[v] = True
            public[who, v] = True
        elif kind == tricks_layout.H_ACT and v == tricks_layout.A_SWAP:
            swappers[nsw] = who
            nsw += 1
    # swaps happen in upcard order: the k-th changed upcard shows the ten the k-th swapper held
    j = 0
    for k in range(nu):
        cur = s[tricks_layout.S_UP + k]
        if cur != ups[k]:
            seen[cur] = True
            public[swappers[j], cur] = True
            open_draws[ups[k]] = True  # received openly by the swap, not through a hidden slot
            j += 1
    for c in range(tricks_layout.NC):
        public[player, c] = False
        if open_draws[c]:
            for q in range(tricks_layout.NP):
                public[q, c] = False


@kernel
def _replay(s, cfg, player, assign, disc, ndisc, out):
    """Replay ``s``'s history into ``out`` with the hidden cards of ``assign`` (per history index)
    and the discards ``disc[seat]``; False when an observed event becomes impossible."""
    out[:] = tricks_kernels.new_state(cfg)
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    mask = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.bool_)
    used = np.zeros(tricks_layout.NP, dtype=np.int32)
    run = np.empty(tricks_layout.NC, dtype=np.int32)
    hl = s[tricks_layout.S_HLEN]
    i = 0
    while i < hl:
        kind = s[tricks_layout.S_HIST + 3 * i]
        who = s[tricks_layout.S_HIST + 3 * i + 1]
        v = s[tricks_layout.S_HIST + 3 * i + 2]
        if (kind == tricks_layout.H_DEAL or kind == tricks_layout.H_DRAW) and assign[i] >= 0:
            # a run of sorted chance cards (a hand, an exchange draw) goes in increasing order
            j = i
            while (
                j < hl
                and s[tricks_layout.S_HIST + 3 * j] == kind
                and s[tricks_layout.S_HIST + 3 * j + 1] == who
                and assign[j] >= 0
            ):
                run[j - i] = assign[j]
                j += 1
            r = np.sort(run[: j - i])
            for t in range(j - i):
                c = r[t]
                k = tricks_kernels.chance_outcomes(out, cfg, ids, probs)
                if k == 1 and out[tricks_layout.S_PHASE] == tricks_layout.PH_DRAW:
                    c = ids[0]  # the talon has run out: the rest of it comes in a fixed order
                else:
                    found = False
                    for x in range(k):
                        if ids[x] == c:
                            found = True
                    if not found:
                        return False
                tricks_kernels.apply_chance(out, cfg, c)
            i = j
            continue
        if out[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
            if (
                kind != tricks_layout.H_DEAL
                and kind != tricks_layout.H_UP
                and kind != tricks_layout.H_CUT
                and kind != tricks_layout.H_DRAW
                and kind != tricks_layout.H_DRAWPUB
            ):
                return False
            k = tricks_kernels.chance_outcomes(out, cfg, ids, probs)
            found = False
            for x in range(k):
                if ids[x] == v:
                    found = True
            if not found:
                return False
            tricks_kernels.apply_chance(out, cfg, v)
        else:
            if out[tricks_layout.S_CUR] != who or (kind != tricks_layout.H_ACT and kind != tricks_layout.H_HIDDEN):
                return False
            tricks_kernels.legal_mask(out, cfg, mask)
            if kind == tricks_layout.H_HIDDEN and who != player:
                if v >= tricks_layout.A_DISCARD:
                    if used[who] >= ndisc[who] or not mask[tricks_layout.A_DISCARD + disc[who, used[who]]]:
                        return False
                    v = tricks_layout.A_DISCARD + disc[who, used[who]]  # discards are made in increasing order
                    used[who] += 1
                else:
                    # a face-down play (1853): any legal side card the seat does not show later
                    cands = np.empty(tricks_layout.NC, dtype=np.int32)
                    nc = 0
                    for x in range(tricks_layout.NC):
                        if mask[x] and x // 13 != out[tricks_layout.S_TRUMP]:
                            shown = False
                            for t in range(hl):
                                if (
                                    s[tricks_layout.S_HIST + 3 * t] == tricks_layout.H_ACT
                                    and s[tricks_layout.S_HIST + 3 * t + 1] == who
                                    and s[tricks_layout.S_HIST + 3 * t + 2] == x
                                ):
                                    shown = True
                            if not shown:
                                cands[nc] = x
                                nc += 1
                    if nc == 0:
                        return False
                    v = cands[np.random.randint(nc)]  # noqa: NPY002
            elif not mask[v]:
                return False
            tricks_kernels.apply_action(out, cfg, v)
        i += 1
    # the world must stand where the real game stands: e.g. a ten swap or a zwik that the hidden
    # cards would cause, but that did not happen, rules the world out
    return out[tricks_layout.S_CUR] == s[tricks_layout.S_CUR] and out[tricks_layout.S_PHASE] == s[tricks_layout.S_PHASE]


@kernel
def resample_into(s, cfg, player, out, tries):
    """Write into ``out`` a full position consistent with everything ``player`` has observed in
    ``s`` (module docstring); returns False after ``tries`` rejections."""
    n = s[tricks_layout.S_N]
    hl = s[tricks_layout.S_HLEN]
    seen = np.zeros(tricks_layout.NC, dtype=np.bool_)
    public = np.zeros((tricks_layout.NP, tricks_layout.NC), dtype=np.bool_)
    open_draws = np.zeros(tricks_layout.NC, dtype=np.bool_)
    knowledge(s, player, seen, public, open_draws)
    deal_slots = np.empty((tricks_layout.NP, 8), dtype=np.int32)
    nd = np.zeros(tricks_layout.NP, dtype=np.int32)
    draw_slots = np.empty((tricks_layout.NP, 8), dtype=np.int32)
    ndr = np.zeros(tricks_layout.NP, dtype=np.int32)
    ndisc = np.zeros(tricks_layout.NP, dtype=np.int32)
    for i in range(hl):
        kind = s[tricks_layout.S_HIST + 3 * i]
        who = s[tricks_layout.S_HIST + 3 * i + 1]
        if who < 0 or who == player:
            continue
        if kind == tricks_layout.H_DEAL:
            deal_slots[who, nd[who]] = i
            nd[who] += 1
        elif kind == tricks_layout.H_DRAW:
            draw_slots[who, ndr[who]] = i
            ndr[who] += 1
        elif kind == tricks_layout.H_HIDDEN and s[tricks_layout.S_HIST + 3 * i + 2] >= tricks_layout.A_DISCARD:
            ndisc[who] += 1
    free = np.empty(tricks_layout.NC, dtype=np.int32)
    nfree = 0
    for c in range(tricks_layout.NC):
        if cfg[tricks_layout.C_INPACK + c] == 0 or seen[c]:
            continue
        must = False
        for q in range(tricks_layout.NP):
            if public[q, c]:
                must = True
        if not must:
            free[nfree] = c
            nfree += 1
    assign = np.empty(max(hl, 1), dtype=np.int32)
    disc = np.empty((tricks_layout.NP, 8), dtype=np.int32)
    final = np.empty(16, dtype=np.int32)
    dropped = np.empty(8, dtype=np.int32)
    need = np.empty(tricks_layout.NC, dtype=np.int32)
    for _ in range(tries):
        assign[:] = -1
        pool = np.random.permutation(free[:nfree])  # noqa: NPY002
        top = nfree
        ok = True
        for q in range(n):
            if q == player:
                continue
            # the hand after the exchange = kept dealt cards + draws; the rest were discarded
            order = np.random.permutation(nd[q])  # noqa: NPY002
            keep = nd[q] - ndisc[q]
            nf = 0
            for j in range(keep):
                final[nf] = deal_slots[q, order[j]]
                nf += 1
            for j in range(ndr[q]):
                final[nf] = draw_slots[q, j]
                nf += 1
            ndrop = nd[q] - keep
            for j in range(ndrop):
                dropped[j] = deal_slots[q, order[keep + j]]
            nneed = 0
            for c in range(tricks_layout.NC):
                if public[q, c]:
                    need[nneed] = c
                    nneed += 1
            if nneed > nf or top < nf + ndrop - nneed:
                ok = False
                break
            slots = np.random.permutation(nf)  # noqa: NPY002
            for j in range(nneed):
                assign[final[slots[j]]] = need[j]
            for j in range(nf):
                if assign[final[j]] < 0:
                    top -= 1
                    assign[final[j]] = pool[top]
            for j in range(ndrop):
                top -= 1
                assign[dropped[j]] = pool[top]
                disc[q, j] = pool[top]
            disc[q, :ndrop] = np.sort(disc[q, :ndrop])
        if ok and _replay(s, cfg, player, assign, disc, ndisc, out):
            return True
    return False


def resample_fast(state: TrickState, player: int, rng: np.random.Generator, tries: int = TRIES) -> TrickState:
    """Compiled counterpart of :func:`zwick_ai.tricks.resample`: a position consistent with what
    ``player`` has observed. ``RuntimeError`` when no consistent position is found."""
    if not 0 <= player < state.rules.players:
        raise ValueError(f"player must be a seat in 0..{state.rules.players - 1}")
    seed(int(rng.integers(2**31)))
    out = np.empty(tricks_layout.S_SIZE, dtype=np.int32)
    if not resample_into(state.arr, state.rules.cfg, player, out, tries):
        raise RuntimeError("resample_fast: no consistent position found")
    return TrickState(state.rules, out, None)
