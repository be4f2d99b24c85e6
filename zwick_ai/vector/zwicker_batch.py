"""Compiled batch kernels of the ``zwicker`` game: many games held in one int32 array (one row per
game, each the OpenSpiel state's array) stepped in parallel over the games, allocating nothing in
the steady state.

A game is dealt by :func:`~zwick_ai.zwicker.steps.seed_chance_k` (the deal of
``play_game(..., deal_seed=s)``) and chance never shows: after each step every game stands at a
decision. A game that ends restarts at once with the next deal seed.

How a step stays cheap:

* the turn's candidate moves are generated once per turn by the engine
  (:func:`~zwick_ai.zwicker.kernels.gen_moves_ws`, into per-thread buffers) and encoded into their
  sub-action tokens (:func:`~zwick_ai.zwicker.codec.encode_row`); up to :data:`CAP` of them (each
  up to :data:`TCAP` tokens) are kept in the game's own rows, and each sub-action only narrows
  them (a turn with more is generated again at each of its sub-actions until it fits);
* the legal mask is written straight from the kept rows' next tokens;
* the observation is written in full (:func:`~zwick_ai.zwicker.encoding.fill_into_k`) only
  when a whole move was made; a sub-action inside a move changes only the tensor's ``move`` piece,
  so it sets that one entry;
* every scratch array is allocated once, per thread (``W``, move and capture buffers, token and
  score scratch) or per game (the kept rows);
* a step goes over a shard's games twice: first every game whose action stays inside its kept rows
  (:func:`_step_light`: a few cache lines each), then the others, which complete a move
  (:func:`_step_one`), each asking the memory for the lines of the one two places ahead
  (:func:`_prefetch_heavy`): a thousand games' arrays do not fit in the caches.

Opponent codes (``opponent[seat]``, :mod:`zwick_ai.zwicker.policy_codes`): ``POLICY_CALLER`` the
caller, ``POLICY_RANDOM_ACTION`` a uniformly random legal sub-action, ``POLICY_GREEDY`` the engine's
greedy whole move (:func:`~zwick_ai.zwicker.kernels.greedy_value`), ``POLICY_NET`` and
``POLICY_NET_AFTER`` the ``net`` agent's whole move by its move model or its after model (the
shard's two model tuples; the agent's own kernels, :mod:`zwick_ai.zwicker.model_scores`). Their
random numbers (and the tie-breaks) come from each game's own splitmix64 stream, so the games'
play does not depend on the thread count.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels as engine_kernels
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.codec import CD_DIDX, CD_PLAY, CODEC_SIZE, COL_NTOK, encode_row
from zwick_ai.zwicker.encoding import P_MOVE, fill_into_k
from zwick_ai.zwicker.history import GB_CD, LOGW, SS, X_LOG, X_NPLY, X_PLEN, X_PREFIX, XB, record_move
from zwick_ai.zwicker.model_scores import after_values, count_best, net_values, nth_best
from zwick_ai.zwicker.policy_codes import POLICY_CALLER, POLICY_GREEDY, POLICY_NET, POLICY_RANDOM_ACTION
from zwick_ai.zwicker.steps import TERMINAL, chance_step_k, returns_k, seed_chance_k

#: candidate moves kept per game between sub-actions (a turn with more is generated again)
CAP = 64
#: sub-action tokens kept per candidate move
TCAP = 16
#: rows of the per-thread move buffer (the engine grows a copy when a turn has more)
BUF_ROWS = 512
#: size of the per-thread capture scratch of the engine
XS_SIZE = 4 * 1024
#: how many of a shard's move-completing games ahead of the one stepped the memory is asked for
PREFETCH_AHEAD = 2


class Scratch(NamedTuple):
    """One thread's scratch arrays, allocated once (:class:`Shard`'s ``scratch``)."""

    workspace: np.ndarray  # the engine's scratch workspace (``WS_SIZE`` int64)
    move_buf: np.ndarray  # (BUF_ROWS, MOVE_WIDTH) int64: the engine's move buffer
    capture_buf: np.ndarray  # XS_SIZE int64: the engine's capture scratch
    token_buf: np.ndarray  # int64: one move's sub-action tokens (``encode_row``)
    row: np.ndarray  # MOVE_WIDTH int64: one whole move
    score_buf: np.ndarray  # int64 per side: the observation's score scratch (``fill_into_k``)
    opponent_mask: np.ndarray  # bool per action: a random opponent's legal mask


class Shard(NamedTuple):
    """One thread's games (consecutive rows of the batch arrays, as views) with its own copies of
    the read-only tables and its own scratch: what the batch kernels take, one per thread, in a
    typed list. Row ``i`` of each per-game array belongs to the shard's game ``i``."""

    game: np.ndarray  # the game table (rules, codec; ``zwick_ai.zwicker.history``), a copy
    init: np.ndarray  # the state array of a game before its deal, a copy
    off: np.ndarray  # the observation's piece offsets (``ZwickerObserver._off``; -1: no such piece)
    opponent: np.ndarray  # per seat: ``POLICY_CALLER`` or a compiled opponent's code (module docstring)
    win_loss: bool  # the returns are win/loss (the game's ``win_loss`` rule)
    states: np.ndarray  # (games, state size) int32: each game's OpenSpiel state array
    moves: np.ndarray  # (games, CAP, MOVE_WIDTH) int64: the kept candidate moves' engine rows
    tokens: np.ndarray  # (games, CAP, TCAP) int16: their sub-action tokens
    kept: np.ndarray  # int64 per game: how many rows are kept, or ``_OVERFLOW``
    cur: np.ndarray  # int64 per game: the player to move (the caller's seat)
    mask: np.ndarray  # (games, actions) bool: the legal mask
    obs: np.ndarray  # (games, observation size) float32: the observation of the player to move
    rewards: np.ndarray  # (games, players) float32: the returns of the games that ended this step
    done: np.ndarray  # bool per game: ended this step
    seeds: np.ndarray  # int64 per game: its deal seed
    rng: np.ndarray  # uint64 per game: its splitmix64 stream
    actions: np.ndarray  # int64 per game: the caller's action of this step
    scratch: Scratch  # the thread's scratch arrays
    models: tuple  # the ``net`` opponents' (move model, after model) arrays
    heavy: np.ndarray  # int64 per game: the step's games that complete a move (:func:`_step_shard`)


# _scan's results besides a count of kept rows
_OVERFLOW = -1  # too many candidates (or too long) to keep: generate again at the next sub-action
_COMPLETE = -2  # the prefix is a whole move (copied into ``row``)

# The step's kernels (``@kernel(nrt=False)``) allocate nothing, so they run without numba's
# reference counting (an array view or an array argument then costs no atomic increments: those
# took about 40% of the step's compiled time). A function they call inherits that unless it says
# otherwise, so what allocates (a grown move buffer, the opponents' move generation, the returns)
# is reached through kernels compiled with reference counting explicitly (``@kernel(nrt=True)``),
# which return no arrays. (The engine's ``gen_moves_ws`` does so itself for its allocating capture
# searches.)

# the splitmix64 constants of each game's random stream
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@kernel(nrt=False)
def _splitmix(rng, i):
    """The next 64-bit number of game ``i``'s stream ``rng[i]`` (splitmix64)."""
    rng[i] += _GOLDEN
    z = rng[i]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel(nrt=False)
def _scan(G, a, scratch, mv, tk, mask_row):
    """Generate the turn's candidate moves of game state ``a`` that start with the current prefix:
    mark each one's next token in ``mask_row`` and keep them in the game's rows ``mv``/``tk``.
    Returns how many were kept, or _OVERFLOW (they do not fit: nothing kept, the mask is still
    complete), or _COMPLETE (the prefix is a whole move: its row copied into ``scratch.row``)."""
    buf = scratch.move_buf
    n = _generate(G, a, buf, scratch.workspace, scratch.capture_buf)
    if n < 0:  # a turn larger than the buffers (rare)
        return _scan_grown(G, a, scratch, mv, tk, mask_row)
    return _scan_rows(G, a, buf, n, scratch.token_buf, scratch.row, mv, tk, mask_row)


@kernel(nrt=False)
def _generate(G, a, buf, W, xs):
    """The engine's moves of game state ``a`` into ``buf`` (:func:`~zwick_ai.zwicker.kernels.gen_moves_ws`)."""
    return engine_kernels.gen_moves_ws(G[: layout.RULES_SIZE], a[:SS], buf, W, xs)


@kernel(nrt=True)
def _scan_grown(G, a, scratch, mv, tk, mask_row):
    """:func:`_scan` of a turn larger than the buffers: with grown copies of them."""
    buf, xs = scratch.move_buf.copy(), scratch.capture_buf.copy()
    big, xs2, n = engine_kernels.gen_moves(G[: layout.RULES_SIZE], a[:SS], buf, scratch.workspace, xs)
    return _scan_rows(G, a, big, n, scratch.token_buf, scratch.row, mv, tk, mask_row)


@kernel(nrt=False)
def _scan_rows(G, a, buf, n, tmp, row, mv, tk, mask_row):
    """:func:`_scan` of the turn's ``n`` generated moves ``buf[:n]``."""
    R = G[: layout.RULES_SIZE]
    S = a[:SS]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    plen = a[XB + X_PLEN]
    m = 0
    fits = True
    if plen == 0:
        # A turn's start: only the first tokens (the card played, or the question) are needed
        # now; the kept rows are encoded when their card is chosen (most are not).
        for r in range(n):
            if buf[r, layout.M_KIND] == layout.KIND_ASK:
                ln = encode_row(R, S, CD, buf[r], tmp)
                first = tmp[0]
            else:
                ln = 0
                first = CD[CD_PLAY] + CD[CD_DIDX + buf[r, layout.M_CARD]]
            mask_row[first] = True
            if m < CAP:
                for j in range(layout.M_FIELDS):
                    mv[m, j] = buf[r, j]
                mv[m, COL_NTOK] = ln
                tk[m, 0] = first
            else:
                fits = False
            m += 1
        return m if fits else _OVERFLOW
    for r in range(n):
        ln = encode_row(R, S, CD, buf[r], tmp)
        if ln < plen:
            continue
        ok = True
        for j in range(plen):
            if tmp[j] != a[XB + X_PREFIX + j]:
                ok = False
                break
        if not ok:
            continue
        if ln == plen:
            for j in range(layout.MOVE_WIDTH):
                row[j] = buf[r, j]
            return _COMPLETE
        mask_row[tmp[plen]] = True
        if m < CAP and ln <= TCAP:
            for j in range(layout.M_FIELDS):
                mv[m, j] = buf[r, j]
            mv[m, COL_NTOK] = ln
            for j in range(ln):
                tk[m, j] = tmp[j]
        else:
            fits = False
        m += 1
    return m if fits else _OVERFLOW


@kernel(nrt=False)
def _advance(G, a, tok, scratch, mv, tk, nr, i, mask_row):
    """Apply the legal sub-action ``tok`` to game ``i`` (its state ``a``, its kept rows ``mv``,
    ``tk`` and their count ``nr[i]``). Returns True when it completed a whole move (applied); else
    the move's prefix grows, the kept rows narrow and ``mask_row`` (all False on entry) gets the
    next legal sub-actions."""
    W, tmp, row = scratch.workspace, scratch.token_buf, scratch.row
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    k = a[XB + X_PLEN]
    m = 0
    if nr[i] >= 0:
        for r in range(nr[i]):
            if tk[r, k] == tok:
                if m != r:
                    for j in range(layout.MOVE_WIDTH):
                        mv[m, j] = mv[r, j]
                    for j in range(TCAP):
                        tk[m, j] = tk[r, j]
                m += 1
        if k == 0:  # the card is chosen: encode its moves (_scan kept only their first tokens)
            S = a[:SS]
            for r in range(m):
                if mv[r, COL_NTOK] == 0:
                    ln = encode_row(R, S, CD, mv[r], tmp)
                    if ln > TCAP:
                        nr[i] = _OVERFLOW
                        break
                    mv[r, COL_NTOK] = ln
                    for j in range(ln):
                        tk[r, j] = tmp[j]
    if nr[i] >= 0:
        if m == 1 and mv[0, COL_NTOK] == k + 1:
            for j in range(layout.M_FIELDS):
                row[j] = mv[0, j]
            row[layout.M_SPARE] = 0
            record_move(R, a, CD, row, k + 1, W)
            return True
        a[XB + X_PREFIX + k] = tok
        a[XB + X_PLEN] = k + 1
        for r in range(m):
            mask_row[tk[r, k + 1]] = True
        nr[i] = m
        return False
    old = a[XB + X_PREFIX + k]
    a[XB + X_PREFIX + k] = tok
    a[XB + X_PLEN] = k + 1
    res = _scan(G, a, scratch, mv, tk, mask_row)
    if res == _COMPLETE:
        a[XB + X_PREFIX + k] = old
        a[XB + X_PLEN] = k
        row[layout.M_SPARE] = 0
        record_move(R, a, CD, row, k + 1, W)
        return True
    nr[i] = res
    return False


@kernel
def _greedy_move(R, S, buf, n, rng, i):
    """The engine's greedy choice among ``buf[:n]``; its random tie-break (numba's generator) is
    seeded from game ``i``'s stream only when the best value is tied."""
    best = -1e18
    ties = 0
    pick = 0
    for k in range(n):
        v = engine_kernels.greedy_value(R, S, buf[k])
        if v > best + 1e-9:
            best = v
            ties = 1
            pick = k
        elif abs(v - best) <= 1e-9:
            ties += 1
    if ties > 1:
        np.random.seed(np.uint32(_splitmix(rng, i) >> np.uint64(32)))
        pick = engine_kernels.choose(R, S, buf, n, POLICY_GREEDY)
    return pick


@kernel
def _net_move(R, S, buf, n, model, after, W, rng, i):
    """The ``net`` agent's choice among ``buf[:n]`` by ``model`` (an after model if ``after``):
    a best-scored move, ties broken by game ``i``'s stream."""
    values = after_values(R, S, buf, n, model, W) if after else net_values(R, S, buf, n, model, W)
    count = count_best(values)
    r = 0 if count == 1 else np.int64(_splitmix(rng, i) % np.uint64(count))
    return nth_best(values, r)


@kernel
def _opponent_move(R, S, kind, models, buf, n, rng, i, W):
    """Index of the move the compiled opponent ``kind`` (greedy or net) plays among ``buf[:n]``."""
    if kind == POLICY_GREEDY:
        return _greedy_move(R, S, buf, n, rng, i)
    if kind == POLICY_NET:
        return _net_move(R, S, buf, n, models[0], False, W, rng, i)
    return _net_move(R, S, buf, n, models[1], True, W, rng, i)


@kernel(nrt=False)
def _nth_set(row, r):
    """Index of the ``r``-th (uint64) True entry of ``row``."""
    for t in range(row.shape[0]):
        if row[t]:
            if r == 0:
                return t
            r -= np.uint64(1)
    return -1


@kernel(nrt=True)
def _opponent_row(G, a, kind, models, scratch, rng, i):
    """Write into ``scratch.row`` the whole move that the compiled opponent ``kind`` (greedy or
    net) plays in game ``i`` (its state ``a``)."""
    buf, xs, W, row = scratch.move_buf, scratch.capture_buf, scratch.workspace, scratch.row
    R = G[: layout.RULES_SIZE]
    S = a[:SS]
    n = engine_kernels.gen_moves_ws(R, S, buf, W, xs)
    if n < 0:
        big, xs2, n = engine_kernels.gen_moves(R, S, buf.copy(), W, xs.copy())
        pick = _opponent_move(R, S, kind, models, big, n, rng, i, W)
        for j in range(layout.MOVE_WIDTH):
            row[j] = big[pick, j]
    else:
        pick = _opponent_move(R, S, kind, models, buf, n, rng, i, W)
        for j in range(layout.MOVE_WIDTH):
            row[j] = buf[pick, j]


@kernel(nrt=False)
def _decision(shard, i):
    """After a whole move or a deal in game ``i``: play the compiled opponents' seats until the
    caller's turn (write its legal mask and observation) or the end. Returns the player to move or
    TERMINAL."""
    G, opponent, rng, nr, scratch = shard.game, shard.opponent, shard.rng, shard.kept, shard.scratch
    W, tmp, row = scratch.workspace, scratch.token_buf, scratch.row
    a, mv, tk = shard.states[i], shard.moves[i], shard.tokens[i]
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    S = a[:SS]
    while True:
        if S[layout.S_PHASE] == layout.PHASE_OVER:
            return TERMINAL
        cur = S[layout.S_TO_MOVE]
        kind = opponent[cur]
        if kind == POLICY_CALLER:
            mask_row = shard.mask[i]
            mask_row[:] = False
            nr[i] = _scan(G, a, scratch, mv, tk, mask_row)
            fill_into_k(G, a, shard.off, cur, shard.obs[i], scratch.score_buf)
            return cur
        if kind != POLICY_RANDOM_ACTION:  # a whole move: greedy or net
            _opponent_row(G, a, kind, shard.models, scratch, rng, i)
            ln = encode_row(R, S, CD, row, tmp)
            for j in range(ln - 1):  # as if chosen sub-action by sub-action (the state array's prefix)
                a[XB + X_PREFIX + j] = tmp[j]
            record_move(R, a, CD, row, ln, W)
            continue
        # uniformly random legal sub-actions until the move is made
        omask = scratch.opponent_mask
        omask[:] = False
        nr[i] = _scan(G, a, scratch, mv, tk, omask)
        while True:
            count = 0
            for t in range(omask.shape[0]):
                count += omask[t]
            tok = _nth_set(omask, _splitmix(rng, i) % np.uint64(count))
            omask[:] = False
            if _advance(G, a, tok, scratch, mv, tk, nr, i, omask):
                break


@kernel
def _deal(G, init, a, seed, W):
    """Start ``a`` as a fresh game dealt by deal ``seed``."""
    a[:] = init
    for outcome in seed_chance_k(G, seed):
        chance_step_k(G, a, W, outcome)


@kernel
def _reset_one(shard, i):
    """Deal game ``i`` of ``shard`` by its deal seed and bring it to the caller's decision."""
    _deal(shard.game, shard.init, shard.states[i], shard.seeds[i], shard.scratch.workspace)
    shard.cur[i] = _decision(shard, i)


@kernel(nrt=False)
def _inside_move(A, OFF, actions, mv, tk, nr, mask, obs, i):
    """The step of game ``i`` when its kept rows show that ``actions[i]`` does not complete the
    move: narrow the rows, extend the prefix, write the mask and the observation's one changed
    entry; returns False (nothing done) otherwise. Indexes the batch arrays directly: no views,
    no reference counting on this path, the most frequent one."""
    n = nr[i]
    k = A[i, XB + X_PLEN]
    if n < 0 or k == 0:  # a move's first token: its rows are encoded by _advance
        return False
    tok = actions[i]
    m = 0
    for r in range(n):
        if tk[i, r, k] == tok:
            m += 1
    if m == 1:
        for r in range(n):
            if tk[i, r, k] == tok and mv[i, r, COL_NTOK] == k + 1:
                return False  # the move is complete
    m = 0
    for r in range(n):
        if tk[i, r, k] == tok:
            if m != r:
                for j in range(layout.MOVE_WIDTH):
                    mv[i, m, j] = mv[i, r, j]
                for j in range(TCAP):
                    tk[i, m, j] = tk[i, r, j]
            m += 1
    nr[i] = m
    A[i, XB + X_PREFIX + k] = tok
    A[i, XB + X_PLEN] = k + 1
    for x in range(mask.shape[1]):
        mask[i, x] = False
    for r in range(m):
        mask[i, tk[i, r, k + 1]] = True
    if OFF[P_MOVE] >= 0:
        obs[i, OFF[P_MOVE] + tok] = 1.0
    return True


@kernel(nrt=True)
def _write_returns(G, a, win_loss, rewards, i):
    """Write the returns of game ``i`` (ended, its state ``a``) into ``rewards[i]``."""
    r = returns_k(G, a, win_loss)
    for q in range(rewards.shape[1]):
        rewards[i, q] = r[q]


def _prefetch_write_typing(typingctx, address):
    """The typing of an intrinsic that asks the memory for the cache line at an address (an
    integer) without waiting for it, to be written (LLVM's ``prefetch``, kept in all cache levels):
    it changes nothing but the timing."""
    sig = types.void(types.intp)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        name = "llvm.prefetch.p0" if str(i8p) == "ptr" else "llvm.prefetch.p0i8"  # opaque or typed pointers
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [builder.inttoptr(args[0], i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


_prefetch_write: Any = intrinsic(_prefetch_write_typing)


@kernel(nrt=False)
def _prefetch_heavy(shard, j):
    """Ask the memory for the lines that completing a move in game ``j`` of ``shard`` writes first:
    the head of its history, the log entry it appends and its legal mask. (Asking for its whole
    engine state or observation row as well cost more than it saved: tens of lines a game
    outrun the core's few outstanding requests.)"""
    A, mask = shard.states, shard.mask
    state = A.ctypes.data + j * A.strides[0]
    _prefetch_write(state + XB * A.itemsize)
    _prefetch_write(state + (XB + X_LOG + A[j, XB + X_NPLY] * LOGW) * A.itemsize)
    legal = mask.ctypes.data + j * mask.strides[0]
    for b in range(0, mask.shape[1] * mask.itemsize, 64):
        _prefetch_write(legal + b)


@kernel(nrt=False)
def _step_light(shard, i):
    """Step game ``i`` of ``shard`` if its action stays inside its kept rows (:func:`_inside_move`);
    returns False (the ended game's rewards cleared, nothing else done) when it does not."""
    rewards, done = shard.rewards, shard.done
    if done[i]:
        for q in range(rewards.shape[1]):
            rewards[i, q] = 0.0
        done[i] = False
    return _inside_move(
        shard.states, shard.off, shard.actions, shard.moves, shard.tokens, shard.kept, shard.mask, shard.obs, i
    )


@kernel(nrt=False)
def _step_one(shard, i):
    """Step game ``i`` of ``shard`` by its action, one that :func:`_step_light` did not take;
    returns True when the game ended."""
    OFF, done = shard.off, shard.done
    tok = shard.actions[i]
    mask_row = shard.mask[i]
    mask_row[:] = False
    a = shard.states[i]
    if not _advance(shard.game, a, tok, shard.scratch, shard.moves[i], shard.tokens[i], shard.kept, i, mask_row):
        if OFF[P_MOVE] >= 0:
            shard.obs[i, OFF[P_MOVE] + tok] = 1.0
        return False
    c = _decision(shard, i)
    shard.cur[i] = c
    done[i] = c == TERMINAL
    if done[i]:
        _write_returns(shard.game, a, shard.win_loss, shard.rewards, i)
    return done[i]


@kernel
def first_illegal(actions, mask):
    """Index of the first game whose action is not legal (-1: all legal)."""
    A = mask.shape[1]
    for i in range(actions.shape[0]):
        x = actions[i]
        if x < 0 or x >= A or not mask[i, x]:
            return i
    return -1


@kernel
def _reset_shard(shard):
    for i in range(shard.states.shape[0]):
        _reset_one(shard, i)


@kernel(nrt=False)
def _step_shard(shard):
    """Step the shard's games: the light steps first, then the games that complete a move (their
    indices in the shard's scratch ``heavy``), asking ahead for those games' memory."""
    heavy = shard.heavy
    count = 0
    for i in range(shard.states.shape[0]):
        if not _step_light(shard, i):
            heavy[count] = i
            count += 1
    ended = 0
    for h in range(count):
        if h + PREFETCH_AHEAD < count:
            _prefetch_heavy(shard, heavy[h + PREFETCH_AHEAD])
        if _step_one(shard, heavy[h]):
            ended += 1
    return ended


@kernel
def _restart_shard(shard):
    done = shard.done
    for i in range(done.shape[0]):
        if done[i]:
            _reset_one(shard, i)


@kernel
def _next_seeds(shards, next_seed):
    """Give the games that ended the next unused deal seeds, in game order (shards are
    consecutive runs of games)."""
    for t in range(len(shards)):
        done = shards[t].done
        seeds = shards[t].seeds
        for i in range(done.shape[0]):
            if done[i]:
                seeds[i] = next_seed
                next_seed += 1
    return next_seed


# The batch kernels take the games as a typed list of shards, one per thread: each shard a
# :class:`Shard` of its own arrays (views of the batch arrays, and its own copies of the read-only tables and its own
# scratch), so that no two threads touch the same array object: numba's reference counts of the
# views made inside the step then stay in each thread's own cache lines.
@kernel(parallel=True)
def reset_parallel(shards):
    """Deal every game by its deal seed, play the compiled opponents' seats and observe it."""
    for t in numba.prange(len(shards)):
        _reset_shard(shards[t])


@kernel(nogil=True)  # a learner may run its network on another thread meanwhile
def reset_serial(shards):
    """:func:`reset_parallel` on the calling thread."""
    for t in range(len(shards)):
        _reset_shard(shards[t])


@kernel(parallel=True)
def step_parallel(shards, next_seed):
    """Apply every game's action (legal: :func:`first_illegal`), then the compiled opponents'
    moves; games that end write their returns to ``rewards`` and restart with the next unused
    deal seeds (in game order, from ``next_seed``). Returns the next unused seed."""
    ended = 0
    for t in numba.prange(len(shards)):
        ended += _step_shard(shards[t])
    if ended == 0:
        return next_seed
    next_seed = _next_seeds(shards, next_seed)
    for t in numba.prange(len(shards)):
        _restart_shard(shards[t])
    return next_seed


@kernel(nogil=True)  # a learner may run its network on another thread meanwhile
def step_serial(shards, next_seed):
    """:func:`step_parallel` on the calling thread."""
    ended = 0
    for t in range(len(shards)):
        ended += _step_shard(shards[t])
    if ended == 0:
        return next_seed
    next_seed = _next_seeds(shards, next_seed)
    for t in range(len(shards)):
        _restart_shard(shards[t])
    return next_seed
