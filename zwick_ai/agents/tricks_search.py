"""Compiled search for the trick games (Zwikken, Zwicken): an exact resampler of a player's
information, single-observer ISMCTS and PIMC. The ``ismcts`` and ``pimc`` agents
(:mod:`zwick_ai.agents.search`) call :func:`ismcts_decision` and :func:`pimc_decision` for trick games.

**Resampling** (:func:`resample_into`, compiled): the same procedure as the Python
:func:`zwick_ai.tricks.resample` — the other seats' hidden cards (deals, draws) are re-dealt from
the cards the player has not seen, with each seat's publicly seen cards (face-up plays, a swapped
ten) in the hand it held after its exchange, its discards drawn from the dealt cards it did not
keep, face-down plays (1853) re-chosen among the cards the seat could have played; the history is
replayed and the sample rejected when an observed action becomes illegal. Exact rejection sampling
over uniform deals when nobody exchanged or played face down; otherwise approximately uniform (see
:func:`zwick_ai.tricks.resample`). The player's own cards and every public event are kept, so the
sample has the player's information state exactly.

**ISMCTS** (single observer, Cowling, Powley & Whitehouse 2012): each iteration draws a world by
the resampler, then walks one tree of the observer's view: an edge is a player action the observer
sees (UCB1 over the actions legal in this world, with availability counts), a chance card the
observer sees (upcards, his own draws, open draws), or one shared "hidden" edge per seat for what
he does not see (another seat's draw, discard or face-down play; those actions come from the
rollout policy). The first new node ends the walk; a rollout (uniform random or
:func:`~zwick_ai.agents.tricks_greedy.greedy_action`) plays to the end of the deal, and each edge
is credited with the reward of the seat that took it. The decision is the root's most visited
action.

**PIMC** (perfect-information Monte Carlo): ``worlds`` worlds are drawn by the resampler; on each, a
perfect-information UCT search of ``iters`` iterations (the same code, every event visible, no
resampling); the decision is the action with most visits summed over worlds (ties: higher mean
reward).

**Rewards** are chips: the seat's net chip change in the deal divided by the deal's starting pot
(``pot`` parameter; at least 1). Taking a 3-chip pot is +1, paying it is -1; ``c`` is in these
units (0.7 is a good default).

>>> import numpy as np, pyspiel, zwick_ai.games
>>> from zwick_ai.eval.match import deal
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> state = deal(game, 4)
>>> params = {"iters": 50, "time": 0.0, "c": 0.7, "rollout": "random"}
>>> acts = ismcts_decision(state, params, np.random.default_rng(1))
>>> acts == ismcts_decision(state, params, np.random.default_rng(1)) and acts[0] in state.legal_actions()
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zwick_ai import tricks
from zwick_ai.agents import clock
from zwick_ai.agents.tricks_greedy import greedy_action
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout

ROLLOUTS = ("random", "greedy")
CHANCE_KEY = tricks_layout.NUM_ACTIONS  # tree key of a visible chance card: CHANCE_KEY + card
HIDDEN_KEY = tricks_layout.NUM_ACTIONS + tricks_layout.NC  # tree key of a hidden event of seat q: HIDDEN_KEY + q
TRIES = 5000  # rejections before the resampler gives up

# tree node fields (int32 table)
T_KEY, T_ACTOR, T_FIRST, T_NEXT, T_N, T_AVAIL = 0, 1, 2, 3, 4, 5
T_FIELDS = 6


# ------------------------------------------------------------------------------------------------
# Compiled resampler
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def seed(value):
    """Seed numba's random generator (used by every compiled random choice in this module)."""
    np.random.seed(value)  # noqa: NPY002


@njit(cache=True)
def knowledge(s, player, seen, public, open_draws):
    """What ``player`` has seen (``seen[card]``) and, per other seat, the cards publicly seen in
    its hand (``public[seat, card]``), as :func:`zwick_ai.tricks.api._known_to`."""
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


@njit(cache=True)
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


@njit(cache=True)
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


def resample_fast(
    state: tricks.TrickState, player: int, rng: np.random.Generator, tries: int = TRIES
) -> tricks.TrickState:
    """Compiled counterpart of :func:`zwick_ai.tricks.resample`: a position consistent with what
    ``player`` has observed. ``RuntimeError`` when no consistent position is found."""
    if not 0 <= player < state.rules.players:
        raise ValueError(f"player must be a seat in 0..{state.rules.players - 1}")
    seed(int(rng.integers(2**31)))
    out = np.empty(tricks_layout.S_SIZE, dtype=np.int32)
    if not resample_into(state.arr, state.rules.cfg, player, out, tries):
        raise RuntimeError("resample_fast: no consistent position found")
    return tricks.TrickState(state.rules, out, None)


# ------------------------------------------------------------------------------------------------
# Search tree and iterations
# ------------------------------------------------------------------------------------------------
def new_tree(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty search tree: int fields, summed rewards, and [node count]; node 0 is the root."""
    ti = np.full((capacity, T_FIELDS), -1, dtype=np.int32)
    ti[:, T_N] = 0
    ti[:, T_AVAIL] = 0
    return ti, np.zeros(capacity, dtype=np.float64), np.ones(1, dtype=np.int64)


@njit(cache=True)
def _child(ti, node, key):
    c = ti[node, T_FIRST]
    while c >= 0:
        if ti[c, T_KEY] == key:
            return c
        c = ti[c, T_NEXT]
    return -1


@njit(cache=True)
def _add(ti, meta, node, key, actor):
    m = meta[0]
    if m >= ti.shape[0]:
        return -1  # tree full: the iteration goes on as a rollout
    ti[m, T_KEY] = key
    ti[m, T_ACTOR] = actor
    ti[m, T_FIRST] = -1
    ti[m, T_NEXT] = ti[node, T_FIRST]
    ti[m, T_N] = 0
    ti[m, T_AVAIL] = 1
    ti[node, T_FIRST] = m
    meta[0] = m + 1
    return m


@njit(cache=True)
def _policy_action(s, cfg, greedy, mask):
    """The rollout policy's action (mask already filled with the legal actions)."""
    if greedy:
        return greedy_action(s, cfg)
    return tricks_kernels.random_action(mask)


@njit(cache=True)
def play_out(s, cfg, greedy, ids, probs, mask):
    """Play the position ``s`` to the end of the deal in place: chance drawn from numba's generator
    (:func:`seed`), every seat by the rollout policy (``greedy``: the greedy baseline, else
    uniform). ``ids``, ``probs`` and ``mask`` are work arrays (``NC`` int32, ``NC`` float64,
    ``NUM_ACTIONS`` bool)."""
    while s[tricks_layout.S_CUR] != tricks_layout.CUR_OVER:
        if s[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
            tricks_kernels.apply_chance(s, cfg, tricks_kernels.sample_chance(s, cfg, ids, probs))
        else:
            tricks_kernels.legal_mask(s, cfg, mask)
            tricks_kernels.apply_action(s, cfg, _policy_action(s, cfg, greedy, mask))


@njit(cache=True)
def _hidden_move(s, cfg, obs, mask):
    """Is the pending player action invisible to the observer (another seat's discard or
    face-down play)?"""
    p = s[tricks_layout.S_CUR]
    if obs < 0 or p == obs:
        return False
    if s[tricks_layout.S_PHASE] == tricks_layout.PH_DISCARD:
        return True
    if (
        s[tricks_layout.S_PHASE] == tricks_layout.PH_PLAY
        and cfg[tricks_layout.C_DUTY] == tricks_layout.DUTY_HISTORIC
        and s[tricks_layout.S_TRICK] < cfg[tricks_layout.C_H] - 1
    ):
        for a in range(tricks_layout.NC):
            if mask[a]:
                return a // 13 != s[tricks_layout.S_TRUMP]  # without trump every card goes face down
    return False


@njit(cache=True)
def search(root, cfg, obs, player, resample, world, ti, tw, meta, iters, c, greedy, scale, tries):
    """Run ``iters`` iterations on the tree (``ti``, ``tw``, ``meta``). ISMCTS: ``resample`` True,
    each iteration draws a world for ``player`` from ``root`` and ``obs`` = ``player``. PIMC:
    ``resample`` False, every iteration starts from ``world`` and ``obs`` = -1 (all visible).
    Returns the iterations done (fewer when the resampler fails)."""
    s = np.empty(tricks_layout.S_SIZE, dtype=np.int32)
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    mask = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.bool_)
    untried = np.empty(tricks_layout.NUM_ACTIONS, dtype=np.int32)
    path = np.empty(512, dtype=np.int32)
    reward = np.zeros(tricks_layout.NP, dtype=np.float64)
    n = root[tricks_layout.S_N]
    for it in range(iters):
        if resample:
            if not resample_into(root, cfg, player, s, tries):
                return it
        else:
            s[:] = world
        node = 0
        depth = 0
        grown = False
        while s[tricks_layout.S_CUR] != tricks_layout.CUR_OVER and not grown and depth < 511:
            p = s[tricks_layout.S_CUR]
            if p == tricks_layout.CUR_CHANCE:
                card = tricks_kernels.sample_chance(s, cfg, ids, probs)
                tricks_kernels.apply_chance(s, cfg, card)
                h = s[tricks_layout.S_HLEN] - 1
                kind = s[tricks_layout.S_HIST + 3 * h]
                who = s[tricks_layout.S_HIST + 3 * h + 1]
                if obs >= 0 and (kind == tricks_layout.H_DEAL or kind == tricks_layout.H_DRAW) and who != obs:
                    key = HIDDEN_KEY + who
                else:
                    key = CHANCE_KEY + card
                actor = -1
            else:
                tricks_kernels.legal_mask(s, cfg, mask)
                if _hidden_move(s, cfg, obs, mask):
                    a = _policy_action(s, cfg, greedy, mask)
                    key = HIDDEN_KEY + p
                else:
                    # expand an untried action if any, else UCB1 with availability counts
                    nun = 0
                    for x in range(tricks_layout.NUM_ACTIONS):
                        if mask[x] and _child(ti, node, x) < 0:
                            untried[nun] = x
                            nun += 1
                    if nun > 0:
                        a = untried[np.random.randint(nun)]  # noqa: NPY002
                    else:
                        a = -1
                        best = -1e300
                        ties = 0
                        for x in range(tricks_layout.NUM_ACTIONS):
                            if mask[x]:
                                ch = _child(ti, node, x)
                                ti[ch, T_AVAIL] += 1
                                v = tw[ch] / ti[ch, T_N] + c * np.sqrt(np.log(ti[ch, T_AVAIL]) / ti[ch, T_N])
                                if v > best + 1e-12:
                                    best = v
                                    a = x
                                    ties = 1
                                elif v > best - 1e-12:
                                    ties += 1  # equal values: each tied action with equal chance
                                    if np.random.randint(ties) == 0:  # noqa: NPY002
                                        a = x
                    key = a
                tricks_kernels.apply_action(s, cfg, a)
                actor = p
            ch = _child(ti, node, key)
            if ch < 0:
                ch = _add(ti, meta, node, key, actor)
                grown = True
                if ch < 0:
                    break
            node = ch
            path[depth] = node
            depth += 1
        play_out(s, cfg, greedy, ids, probs, mask)
        for q in range(n):
            reward[q] = s[tricks_layout.S_PLAYERS + tricks_layout.P_NET * tricks_layout.NP + q] / scale
        ti[0, T_N] += 1
        for d in range(depth):
            nd = path[d]
            ti[nd, T_N] += 1
            if ti[nd, T_ACTOR] >= 0:
                tw[nd] += reward[ti[nd, T_ACTOR]]
    return iters


def root_stats(ti: np.ndarray, tw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(visits, summed reward) of each root action id (0 for untried actions)."""
    visits = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.int64)
    total = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.float64)
    c = int(ti[0, T_FIRST])
    while c >= 0:
        key = int(ti[c, T_KEY])
        if key < tricks_layout.NUM_ACTIONS:
            visits[key] += int(ti[c, T_N])
            total[key] += float(tw[c])
        c = int(ti[c, T_NEXT])
    return visits, total


# ------------------------------------------------------------------------------------------------
# Decisions
# ------------------------------------------------------------------------------------------------
def _check(params: dict, keys: tuple[str, ...]) -> None:
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"search parameters miss {', '.join(missing)} (need {', '.join(keys)})")
    if params["rollout"] not in ROLLOUTS:
        raise ValueError(f"rollout={params['rollout']!r} is not valid; valid: {', '.join(ROLLOUTS)}")


def _choose(legal: list[int], visits: np.ndarray, total: np.ndarray) -> int:
    mean = np.where(visits > 0, total / np.maximum(visits, 1), -np.inf)
    return max(legal, key=lambda a: (visits[a], mean[a], -a))


def _scale(arr: np.ndarray) -> float:
    return float(max(1, int(arr[tricks_layout.S_POT_START])))


def _root(state, rng: np.random.Generator) -> tuple[list[int], np.ndarray, np.ndarray, int]:
    """The legal actions, state array, rules config and player to move of a decision state. Seeds
    the compiled generator from ``rng`` only when there is a choice (one legal action: no search)."""
    legal = [int(a) for a in state.legal_actions()]
    decision = state.decision()
    if len(legal) > 1:
        seed(int(rng.integers(2**31)))
    return legal, decision.position, decision.config, decision.player


def ismcts_decision(state, params: dict, rng: np.random.Generator) -> list[int]:
    """Single-observer ISMCTS decision (one action) for a ``zwikken``/``zwicken`` OpenSpiel state.

    ``params``: ``iters`` (iterations, 0 = no limit), ``time`` (seconds, 0 = no limit; at least
    one of the two positive), ``c`` (UCB1 exploration, reward units of the module docstring),
    ``rollout`` (``random`` or ``greedy``). All randomness comes from ``rng``."""
    _check(params, ("iters", "time", "c", "rollout"))
    iters, seconds = int(params["iters"]), float(params["time"])
    if iters <= 0 and seconds <= 0:
        raise ValueError("give a positive iteration count (iters) or time budget (time)")
    legal, arr, cfg, player = _root(state, rng)
    if len(legal) == 1:
        return legal
    ti, tw, meta = new_tree(iters + 2 if iters > 0 else 1 << 18)
    greedy = params["rollout"] == "greedy"
    world = np.empty(0, dtype=np.int32)
    t0 = clock.now()
    done = 0
    while True:
        chunk = 64 if iters <= 0 else min(64 if seconds > 0 else iters, iters - done)
        got = search(
            arr, cfg, player, player, True, world, ti, tw, meta, chunk, float(params["c"]), greedy, _scale(arr), TRIES
        )
        if got < chunk:
            raise RuntimeError("ismcts: the resampler found no position consistent with the player's information")
        done += got
        if (iters > 0 and done >= iters) or (seconds > 0 and clock.now() - t0 >= seconds):
            break
    return [_choose(legal, *root_stats(ti, tw))]


def pimc_decision(state, params: dict, rng: np.random.Generator) -> list[int]:
    """PIMC decision (one action) for a ``zwikken``/``zwicken`` OpenSpiel state.

    ``params``: ``worlds`` (worlds drawn by the resampler), ``iters`` (UCT iterations per world),
    ``c``, ``rollout`` (``random`` or ``greedy``), optional ``time`` (seconds: no new world after
    it, at least one world). All randomness comes from ``rng``."""
    _check(params, ("worlds", "iters", "c", "rollout"))
    worlds, iters, seconds = int(params["worlds"]), int(params["iters"]), float(params.get("time", 0.0))
    if worlds <= 0 or iters <= 0:
        raise ValueError("pimc needs worlds >= 1 and iters >= 1")
    legal, arr, cfg, player = _root(state, rng)
    if len(legal) == 1:
        return legal
    greedy = params["rollout"] == "greedy"
    visits = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.int64)
    total = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.float64)
    world = np.empty(tricks_layout.S_SIZE, dtype=np.int32)
    t0 = clock.now()
    for w in range(worlds):
        if w > 0 and seconds > 0 and clock.now() - t0 >= seconds:
            break
        if not resample_into(arr, cfg, player, world, TRIES):
            raise RuntimeError("pimc: the resampler found no position consistent with the player's information")
        ti, tw, meta = new_tree(iters + 2)
        search(arr, cfg, -1, player, False, world, ti, tw, meta, iters, float(params["c"]), greedy, _scale(arr), TRIES)
        v, t = root_stats(ti, tw)
        visits += v
        total += t
    return [_choose(legal, visits, total)]


__all__ = [
    "ROLLOUTS",
    "ismcts_decision",
    "knowledge",
    "new_tree",
    "pimc_decision",
    "resample_fast",
    "resample_into",
    "root_stats",
    "search",
    "seed",
]
