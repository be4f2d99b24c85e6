"""The ``expert`` agent's components on small budgets: the endgame search against brute force,
the transposition table, the inference weights against the exact posterior, the ISMCTS switches,
the time budget and the spec checks."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import zwicker
from zwick_ai.agents import expert_search, make_agent, value_model, zwicker_search
from zwick_ai.agents.base import apply_decision, legal_decisions
from zwick_ai.agents.expert import expert_decision
from zwick_ai.games import zwicker_bridge
from zwick_ai.learn import model_files
from zwick_ai.mlp import Perceptron
from zwick_ai.zwicker import arrays, kernels, policy_codes
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import worlds as zwicker_worlds
from zwick_ai.zwicker.features import NFEAT
from zwick_ai.zwicker.layout import MAX_HAND, PHASE_OVER, S_HAND_N, S_HANDS, S_PHASE, S_STAGE, S_STOCK_LEN, S_STOCK_TOP

BRUTE_CARDS = 6  # cards left in the hands of the brute-force positions (minimax without pruning)


def _advance(state: pyspiel.State, rng: np.random.Generator, stop) -> pyspiel.State | None:
    """Play uniformly random whole moves (and chance outcomes) until ``stop(state)`` or the end."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=np.array(probs) / sum(probs))))
            continue
        if stop(state):
            return state
        moves = legal_decisions(state)
        apply_decision(state, moves[int(rng.integers(len(moves)))][1])
    return None


def _cards_in_hands(state: pyspiel.State) -> int:
    a = state.array
    return int(sum(a[S_HAND_N + q] for q in range(state.rules.players)))


def _endgame_state(game: pyspiel.Game, seed: int, cards: int) -> pyspiel.State | None:
    """A decision state of a random game with the stock empty and at most ``cards`` in hands."""

    def stop(s: pyspiel.State) -> bool:
        a = s.array
        return a[S_STOCK_TOP] >= a[S_STOCK_LEN] and _cards_in_hands(s) <= cards

    return _advance(zwicker_bridge.state_from_seed(game, seed), np.random.default_rng(seed), stop)


def _reward(rules, points: tuple[int, ...], side: int) -> float:
    """The [-1, 1] side reward of zwicker_search.side_rewards, written out."""
    ns = len(points)
    x = (ns * points[side] - sum(points)) / ((ns - 1) * rules.card_total)
    return min(1.0, max(-1.0, x))


def _brute(rules, s: zwicker.ZwickerState, side: int) -> float:
    """Plain team minimax over the public engine API: no pruning, no table, no move order."""
    if zwicker.is_over(s):
        return _reward(rules, zwicker.score(s), side)
    vals = [_brute(rules, zwicker.apply(s, m), side) for m in zwicker.legal_moves(s)]
    return max(vals) if rules.side_of(zwicker.to_move(s)) == side else min(vals)


def _solve(rules, s: zwicker.ZwickerState, side: int, use_tt: bool, ctx=None) -> float:
    ctx = ctx if ctx is not None else expert_search.new_context(12)
    stats = np.zeros(expert_search.ST_SIZE, np.int64)
    settings = expert_search.SolveSettings(10**9, use_tt, False, float(rules.card_total))
    v = expert_search.solve(rules.array(), s.arr.copy(), side, -2.0, 2.0, 0, ctx, stats, settings)
    assert stats[expert_search.ST_ABORT] == 0
    return v


@pytest.mark.parametrize(
    ("variant", "players", "cards"),
    [
        ("dithmarschen", 4, BRUTE_CARDS),
        ("classic", 2, BRUTE_CARDS),
        ("christiansen", 3, BRUTE_CARDS),
        pytest.param("grossenwiehe", 4, 4, marks=pytest.mark.slow),  # questions: slow brute force
    ],
)
def test_endgame_search_equals_brute_force(variant: str, players: int, cards: int) -> None:
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    rules = game.rules
    ctx = expert_search.new_context(14)  # one table for every position: values are functions of positions
    checked = 0
    for seed in range(40):
        state = _endgame_state(game, seed, cards)
        if state is None:
            continue
        s = zwicker_bridge.engine_state(state)
        for side in range(rules.num_sides):
            want = _brute(rules, s, side)
            assert _solve(rules, s, side, use_tt=False) == pytest.approx(want, abs=1e-12)
            assert _solve(rules, s, side, use_tt=True, ctx=ctx) == pytest.approx(want, abs=1e-12)
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_root_values_and_endgame_decision_in_a_known_world() -> None:
    """Two players, stock empty: the opponent's hand is known, every world is the true one, so
    the expert plays a move of the best brute-force value."""
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    rules = game.rules
    found = 0
    for seed in range(30):
        state = _endgame_state(game, 100 + seed, BRUTE_CARDS)
        if state is None or len(state.candidate_rows()) < 2:
            continue
        s = zwicker_bridge.engine_state(state)
        side = rules.side_of(state.current_player())
        values = {str(m): _brute(rules, zwicker.apply(s, m), side) for m in zwicker.legal_moves(s)}
        agent = make_agent("expert:time=0,iters=50,worlds=3,endgame=20", game, seed=seed)
        acts = agent.act(state)
        assert agent.last["mode"] == "endgame" and agent.last["worlds"] == 3
        chosen = str(zwicker_bridge.actions_move(state, acts))
        assert values[chosen] == pytest.approx(max(values.values()), abs=1e-12)
        found += 1
        if found == 4:
            break
    assert found == 4


def test_position_hash_ignores_move_order_of_transpositions() -> None:
    """Two trails in either order reach the same position: the same hash; a different position
    (another card trailed) hashes differently."""
    r = zwicker.rules("dithmarschen", players=4)
    s = zwicker.position(r, hands=[["3C", "5D"], ["4C", "7H"], ["9C"], ["8C"]], table=["KS"], to_move=0, stock=[])
    a = zwicker.apply(zwicker.apply(s, "3C trails"), "4C trails")
    b = zwicker.apply(zwicker.apply(s, "3C trails"), "7H trails")
    R = r.array()
    assert arrays.position_hash(R, a.arr) == arrays.position_hash(R, a.copy().arr)
    assert arrays.position_hash(R, a.arr) != arrays.position_hash(R, b.arr)


# ------------------------------------------------------------------------------------------------
# Inference
# ------------------------------------------------------------------------------------------------
MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23456,suits=CD,jokers=none,hand_size=3,table_size=2,stages=2)"
TAU = 0.7


def _likelihood(
    rules,
    start: zwicker.ZwickerState,
    moves: list[tuple[int, np.ndarray]],
    me: int,
    tau: float = TAU,
    move_model: tuple | None = None,
    after_model: tuple | None = None,
) -> float:
    """Python product of the others' softmax(value / tau) move probabilities along ``moves``
    from the world's stage start ``start`` (0 when a move is illegal there); ``value`` is the
    greedy value, or with ``move_model`` the move model's score of each legal move, or with
    ``after_model`` the after model's value of each legal move."""
    s = start.copy()
    R = rules.array()
    like = 1.0
    for seat, row in moves:
        legal = zwicker.legal_rows(s)
        match = [k for k in range(len(legal)) if all(legal[k, j] == row[j] for j in range(6))]
        if not match:
            return 0.0
        if seat != me:
            if after_model is not None:
                W = np.zeros(kernels.WS_SIZE, np.int64)
                v = value_model.after_values(R, s.arr, legal, len(legal), after_model, W) / tau
            elif move_model is None:
                v = np.array([kernels.greedy_value(R, s.arr, legal[k]) / tau for k in range(len(legal))])
            else:
                v = (
                    value_model.net_values(R, s.arr, legal, len(legal), move_model, np.zeros(kernels.WS_SIZE, np.int64))
                    / tau
                )
            like *= math.exp(v[match[0]] - v.max()) / np.exp(v - v.max()).sum()
        zwicker.apply_row(s, row)
    return like


def _posterior_case(tau: float = TAU, min_tv: float = 0.0) -> tuple:
    """A tiny-game decision of seat 0 after seat 1 played at least two moves in the current
    stage (and whose posterior is at least ``min_tv`` in total variation from uniform): (state,
    determinizer setup, the played cards, the public stage start, the stage's moves, the exact
    posterior over seat 1's hands: uniform prior over the unseen cards times the opponent model's
    likelihood, by enumeration)."""
    game = pyspiel.load_game(MICRO)
    rules = game.rules
    for seed in range(400):
        s0 = zwicker_bridge.state_from_seed(game, seed)
        state = _advance(
            s0, np.random.default_rng(seed), lambda s: s.current_player() == 0 and _plies_this_stage(s, 1) >= 2
        )
        if state is None or len(state.candidate_rows()) < 2:
            continue
        a = state.array
        det = zwicker_worlds.resample_setup(state.tables.game_table, a, 0, np.zeros(kernels.WS_SIZE, np.int64))
        start_pub = zwicker.ZwickerState(rules, det.S0.copy())
        moves = _stage_moves(state, int(det.t0))
        hidden_n = int(a[S_HAND_N + 1])
        unseen = sorted(set(det.truth.tolist()))
        played = [int(row[1]) for seat, row in moves if seat == 1]
        post = {}
        for hand in itertools.combinations(unseen, hidden_n):
            like = _likelihood(rules, _with_hand(rules, start_pub, 1, list(hand) + played), moves, 0, tau)
            if like > 0:
                post[tuple(sorted(hand))] = like
        z = sum(post.values())
        exact = {h: v / z for h, v in post.items()}
        if len(post) >= 3 and _tv({h: 1.0 for h in exact}, exact) >= min_tv:
            return state, det, played, start_pub, moves, exact
    raise AssertionError("no tiny-game position of the kind asked for")


def _tv(freq: dict, exact: dict) -> float:
    tot = sum(freq.values())
    assert set(freq) <= set(exact)
    return 0.5 * sum(abs(freq.get(h, 0.0) / tot - q) for h, q in exact.items())


def test_inference_weights_equal_the_exact_posterior() -> None:
    """Tiny game: after the opponent's moves this stage, the importance-weighted frequencies of
    his possible hands under the determinizer equal the exact posterior, and each world's weight
    equals the Python likelihood."""
    state, det, played, start_pub, moves, exact = _posterior_case()
    p, G, a, rules = 0, state.tables.game_table, state.array, state.rules
    W = np.zeros(kernels.WS_SIZE, np.int64)
    expert_search.seed(11)
    cards, chain = det.truth.copy(), det.truth.copy()
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    weighted: dict[tuple[int, ...], float] = {}
    R = rules.array()
    for _ in range(3000):
        Sw = zwicker_search.det_draw(zwicker_search.Worlds(G, a, p, det, cards, chain, W), 2000, meta)
        hand = _hand(Sw, 1)
        lw = expert_search.world_log_weight(R, a, det.S0, Sw, p, det.t0, TAU, W, value_model.empty_model())
        start = _with_hand(rules, start_pub, 1, list(hand) + played)
        assert math.exp(lw) == pytest.approx(_likelihood(rules, start, moves, p), rel=1e-9)
        weighted[hand] = weighted.get(hand, 0.0) + math.exp(lw)
    assert _tv(weighted, exact) < 0.05


def _random_move_model(seed: int, hidden: int = 8, inputs: int = 2 * NFEAT) -> Perceptron:
    """A move model (``inputs`` = NFEAT: an after model without the card-level view) with random
    weights (the arrays of :meth:`ValueModel.arrays`), scaled so that its scores spread over a few points."""
    g = np.random.default_rng(seed)
    n = inputs
    return Perceptron(
        np.zeros(n), np.ones(n), g.normal(0, 0.3, (n, hidden)), g.normal(0, 0.3, hidden),
        g.normal(0, 0.5, (hidden, hidden)), g.normal(0, 0.3, hidden), g.normal(0, 2.0, (hidden, 1)), np.zeros(1),
    )  # fmt: skip


def test_net_opponent_model_weights_equal_the_python_likelihood() -> None:
    """``opp=net``: a world's log weight is the log of the product of the others' softmax(move
    model score / tau) probabilities, computed in Python over the legal moves of each of their
    positions; and it differs from the greedy model's weight (the model is really used)."""
    state, det, played, start_pub, moves, _ = _posterior_case()
    mm = _random_move_model(3)
    G, a, rules = state.tables.game_table, state.array, state.rules
    R = rules.array()
    W = np.zeros(kernels.WS_SIZE, np.int64)
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    expert_search.seed(4)
    differs = 0
    for _ in range(40):
        worlds = zwicker_search.Worlds(G, a, 0, det, det.truth.copy(), det.truth.copy(), W)
        Sw = zwicker_search.det_draw(worlds, 2000, meta)
        start = _with_hand(rules, start_pub, 1, list(_hand(Sw, 1)) + played)
        lw = expert_search.world_log_weight(R, a, det.S0, Sw, 0, det.t0, TAU, W, mm)
        assert math.exp(lw) == pytest.approx(_likelihood(rules, start, moves, 0, TAU, mm), rel=1e-9)
        greedy = expert_search.world_log_weight(R, a, det.S0, Sw, 0, det.t0, TAU, W, value_model.empty_model())
        differs += abs(lw - greedy) > 1e-6
    assert differs > 0


def test_after_opponent_model_weights_equal_the_python_likelihood() -> None:
    """``opp=after``: the world's log weight uses the after model's values of the others' legal
    moves (told from a move model by its inputs), equal to the Python likelihood, and differs from
    the greedy model's weight on the same worlds."""
    state, det, played, start_pub, moves, _ = _posterior_case()
    after = _random_move_model(5, inputs=NFEAT)
    assert expert_search.opponent_model_kind(after) == "after"
    assert expert_search.opponent_model_kind(_random_move_model(5)) == "move"
    assert expert_search.opponent_model_kind(value_model.empty_model()) == "greedy"
    G, a, rules = state.tables.game_table, state.array, state.rules
    R = rules.array()
    W = np.zeros(kernels.WS_SIZE, np.int64)
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    expert_search.seed(6)
    differs = 0
    for _ in range(40):
        worlds = zwicker_search.Worlds(G, a, 0, det, det.truth.copy(), det.truth.copy(), W)
        Sw = zwicker_search.det_draw(worlds, 2000, meta)
        start = _with_hand(rules, start_pub, 1, list(_hand(Sw, 1)) + played)
        lw = expert_search.world_log_weight(R, a, det.S0, Sw, 0, det.t0, TAU, W, after)
        assert math.exp(lw) == pytest.approx(_likelihood(rules, start, moves, 0, TAU, after_model=after), rel=1e-9)
        greedy = expert_search.world_log_weight(R, a, det.S0, Sw, 0, det.t0, TAU, W, value_model.empty_model())
        differs += abs(lw - greedy) > 1e-6
    assert differs > 0


def test_expert_with_the_after_opponent_model_plays() -> None:
    """``expert:opp=after`` loads the package's after model, names it in its identity and plays a
    legal move."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    agent = make_agent("expert:time=0,iters=40,endgame=0,pool=32,infer=0.25,opp=after", game, seed=2)
    assert "opp" in agent.identity()["models"]
    state = _advance(
        zwicker_bridge.state_from_seed(game, 9),
        np.random.default_rng(1),
        lambda s: s.current_player() == 0 and _plies_this_stage(s, 1) >= 1 and len(s.candidate_rows()) > 1,
    )
    assert state is not None
    assert agent.act(state) in [a for _, a in legal_decisions(state)]


def test_expert_with_the_net_opponent_model_plays_and_reports_the_pool() -> None:
    """``expert:opp=net`` with the pool and weights: a legal move, a pool ESS below the pool size
    once others have moved this stage, and a bad ``opp`` refused in one line."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    agent = make_agent("expert:time=0,iters=60,endgame=0,pool=64,infer=0.25,opp=net", game, seed=2)
    state = _advance(
        zwicker_bridge.state_from_seed(game, 9),
        np.random.default_rng(1),
        lambda s: s.current_player() == 0 and _plies_this_stage(s, 1) >= 1 and len(s.candidate_rows()) > 1,
    )
    assert state is not None
    acts = agent.act(state)
    assert acts in [a for _, a in legal_decisions(state)]
    assert 1.0 <= agent.last["pool_ess"] < 64
    with pytest.raises(ValueError, match="opp='cheat' is not valid"):
        make_agent("expert:opp=cheat", game)


def test_ismcts_pool_resamples_the_exact_posterior() -> None:
    """``pool`` + ``infer``: the pool's rows are the determinizer's worlds with their weights, and
    the worlds the iterations pick (sampling-importance-resampling) follow the exact posterior;
    without ``infer`` they follow the uniform prior over consistent worlds."""
    tau = 0.2  # a sharp opponent model, so that the posterior is far from uniform
    state, det, _, _, _, exact = _posterior_case(tau, min_tv=0.15)
    uniform = {h: 1 / len(exact) for h in exact}  # every hand consistent with the moves, equally likely
    G, a = state.tables.game_table, state.array
    W = np.zeros(kernels.WS_SIZE, np.int64)
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    expert_search.seed(5)
    worlds = zwicker_search.Worlds(G, a, 0, det, det.truth.copy(), det.truth.copy(), W)
    inference = expert_search.Inference(tau, value_model.empty_model())
    states, logw = expert_search.draw_pool(worlds, meta, 3000, inference)
    assert states.shape == (3000, det.S0.shape[0]) and states.dtype == det.S0.dtype
    R = state.rules.array()
    for i in range(0, 3000, 500):  # each row's weight is its world's likelihood
        assert logw[i] == pytest.approx(
            expert_search.world_log_weight(R, a, det.S0, states[i], 0, det.t0, tau, W, value_model.empty_model()),
            rel=1e-12,
        )
    cum = expert_search.pool_cumulative(logw)
    assert cum[-1] == pytest.approx(1.0) and np.all(np.diff(cum) >= 0)
    picked: dict[tuple[int, ...], float] = {}
    for _ in range(6000):
        h = _hand(states[expert_search.pool_pick(cum)], 1)
        picked[h] = picked.get(h, 0.0) + 1.0
    assert _tv(picked, exact) < 0.06
    flat = expert_search.pool_cumulative(np.zeros(3000))
    drawn: dict[tuple[int, ...], float] = {}
    for _ in range(6000):
        h = _hand(states[expert_search.pool_pick(flat)], 1)
        drawn[h] = drawn.get(h, 0.0) + 1.0
    assert _tv(drawn, uniform) < 0.06


def test_pool_pick_follows_the_weights() -> None:
    logw = np.log(np.array([1.0, 0.0001, 3.0, 6.0]))
    cum = expert_search.pool_cumulative(logw)
    expert_search.seed(3)
    counts = np.bincount([expert_search.pool_pick(cum) for _ in range(20000)], minlength=4)
    assert np.allclose(counts / counts.sum(), np.exp(logw) / np.exp(logw).sum(), atol=0.01)


def _hand(S: np.ndarray, q: int) -> tuple[int, ...]:
    return tuple(sorted(int(S[S_HANDS + q * MAX_HAND + i]) for i in range(int(S[S_HAND_N + q]))))


def _with_hand(rules, start: zwicker.ZwickerState, q: int, cards: list[int]) -> zwicker.ZwickerState:
    """``start`` with seat ``q``'s hand replaced by ``cards``."""
    s = start.copy()
    s.arr[S_HAND_N + q] = 0
    for c in cards:
        kernels.hand_insert(s.arr, q, c)
    return s


def _stage_moves(state: pyspiel.State, t0: int) -> list[tuple[int, np.ndarray]]:
    """(seat, move row) of every whole move logged since ply ``t0``."""
    X = state.array[zwicker_history.XB :]
    out = []
    for t in range(t0, int(X[zwicker_history.X_NPLY])):
        row = np.zeros(8, np.int64)
        zwicker_history.logged_row_into(X, t, row)
        out.append((int(X[zwicker_history.X_LOG + t * zwicker_history.LOGW + zwicker_history.L_SEAT]), row))
    return out


def _plies_this_stage(state: pyspiel.State, seat: int) -> int:
    a = state.array
    X = a[zwicker_history.XB :]
    t0 = int(zwicker_worlds.resample_setup(state.tables.game_table, a, 0, np.zeros(kernels.WS_SIZE, np.int64)).t0)
    return sum(
        1
        for t in range(t0, int(X[zwicker_history.X_NPLY]))
        if X[zwicker_history.X_LOG + t * zwicker_history.LOGW + zwicker_history.L_SEAT] == seat
    )


# ------------------------------------------------------------------------------------------------
# The agent: budgets, switches, checks
# ------------------------------------------------------------------------------------------------
def test_ismcts_switches_and_iteration_budget_are_reproducible() -> None:
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 3)
    for spec in (
        "expert:time=0,iters=60",
        "expert:time=0,iters=60,reuse=4",
        "expert:time=0,iters=60,c=1.2",
        "expert:time=0,iters=60,pool=32,infer=0.5",
        "expert:time=0,iters=60,pool=32,infer=0.5,opp=net",
        "expert:time=0,iters=60,leaf=stage",
    ):
        a1 = make_agent(spec, game, seed=5)
        a2 = make_agent(spec, game, seed=5)
        assert a1.act(state) == a2.act(state)
        assert a1.last["mode"] == "ismcts" and a1.last["iters"] == 60


def test_time_budget_is_wall_clock() -> None:
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 4)
    agent = make_agent("expert:time=0.2", game, seed=1)
    agent.act(state)  # compile and warm up
    t = time.perf_counter()
    agent.act(state)
    spent = time.perf_counter() - t
    assert 0.15 < spent < 0.6
    assert agent.last["iters"] > 60  # not stopped by an iteration default


def test_ismcts_time_alone_is_the_whole_budget() -> None:
    """``ismcts:time=X`` runs for X seconds (more than the old default of 1,000 iterations when X
    is long enough) and ``ismcts`` alone still means 1,000 iterations."""
    from zwick_ai.agents.search import DEFAULT_ITERS, resolved_budget

    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    agent = make_agent("ismcts:time=0.3", game)
    assert resolved_budget(agent.params)["iters"] == 0
    assert resolved_budget(make_agent("ismcts", game).params)["iters"] == DEFAULT_ITERS
    state = zwicker_bridge.state_from_seed(game, 4)
    agent.act(state)
    t = time.perf_counter()
    agent.act(state)
    assert time.perf_counter() - t > 0.25


def test_bad_specs_are_refused_with_what_is_valid() -> None:
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    with pytest.raises(ValueError, match="valid: auto, rollout, value, stage"):
        make_agent("expert:leaf=net", game)
    with pytest.raises(ValueError, match="time budget"):
        make_agent("expert:time=0", game)
    with pytest.raises(ValueError, match="reuse"):
        make_agent("expert:reuse=0", game)
    with pytest.raises(ValueError, match="pool"):
        make_agent("expert:pool=-3", game)
    zwikken = pyspiel.load_game("zwikken")
    with pytest.raises(ValueError, match="plays zwicker"):
        make_agent("expert", zwikken)


def test_endgame_fallback_when_the_node_cap_is_hit() -> None:
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = _endgame_state(game, 7, 12)
    assert state is not None
    agent = make_agent("expert:time=0,iters=40,endgame=20,nodes=1", game, seed=2)
    acts = agent.act(state)
    assert agent.last["mode"] == "endgame-fallback" and agent.last["iters"] == 40
    assert acts in [m for _, m in legal_decisions(state)]
    _ = expert_decision  # the function entry point is the agent's


def test_a_time_budget_caps_the_endgame_by_the_agents_position_rate() -> None:
    """Under ``time=`` a batch of endgame worlds may search only what the agent's running rate
    (positions per second) allows in half the time left: at a rate of 40 positions a second a 0.05 s
    decision may search 1 position before ISMCTS takes over; a first world of at least
    RATE_MIN_NODES positions updates the running rate; at a generous rate a small endgame is solved."""
    game = pyspiel.load_game("zwicker(variant=christiansen,players=3)")
    state = _endgame_state(game, 3, 12)
    assert state is not None
    agent = make_agent("expert:time=0.05,endgame=20", game, seed=2)
    agent.node_rate = 40.0
    acts = agent.act(state)
    assert agent.last["mode"] == "endgame-fallback" and agent.last["nodes"] <= 2  # stops one past the cap
    assert agent.last["iters"] > 0 and acts in [m for _, m in legal_decisions(state)]
    assert agent.node_rate == 40.0  # a first world of 2 positions does not measure the rate
    agent.node_rate = 1e12  # then the cap is nodes= (400,000), which this first world exceeds
    agent.act(state)
    assert agent.last["mode"] == "endgame-fallback" and agent.last["first_nodes"] > 400_000
    assert agent.node_rate < 0.9e12  # moved towards the rate that world was searched at
    small = _endgame_state(game, 3, 6)
    assert small is not None
    agent.act(small)
    assert agent.last["mode"] == "endgame" and agent.last["worlds"] > 0


def test_leaf_value_model_is_the_file_named(tmp_path) -> None:
    """``model=`` gives leaf=value the named value model (a move model, a model of another game, or
    a model with the rollout leaf, is refused)."""
    from zwick_ai.agents import value_model

    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    shipped = value_model.load_model(value_model.shipped_model_path("classic", 2, "value"))
    other = value_model.ValueModel(shipped.mean, shipped.scale, [(2 * w, b) for w, b in shipped.layers], shipped.meta)
    path = tmp_path / "other.npz"  # this game's model with other weights: clearly not the default
    model_files.save_model(other, path)
    with pytest.raises(ValueError, match="does not fit this game"):
        make_agent(f"expert:leaf=value,model={value_model.shipped_model_path('grupp', 4, 'value')}", game)
    agent = make_agent(f"expert:leaf=value,model={path}", game)
    for got, want in zip(agent.value, value_model.load_model(path).arrays(), strict=True):
        np.testing.assert_array_equal(got, want)
    default = make_agent("expert:leaf=value", game)
    assert not np.array_equal(default.value[2], agent.value[2])
    with pytest.raises(ValueError, match="give one of them"):
        make_agent(f"expert:leaf=rollout,model={path}", game)
    assert make_agent(f"expert:model={path}", game).leaf == "stage"  # auto, with the model given
    with pytest.raises(ValueError, match="needs a value model"):
        make_agent(f"expert:leaf=value,model={value_model.shipped_model_path('classic', 2, 'move')}", game)


def test_leaf_auto_is_the_stage_leaf_where_a_value_model_is_shipped() -> None:
    """``leaf=auto`` (the default) searches with the stage leaf where the package ships a value
    model for the game (every main variant), with the random play-out in a game without one; an
    explicit leaf is kept; the decision reports the leaf it used."""
    from zwick_ai.agents.expert import resolved_leaf

    cases = {
        "zwicker(variant=dithmarschen,players=4)": "stage",
        "zwicker(variant=grossenwiehe,players=4)": "stage",
        "zwicker(variant=christiansen,players=3)": "stage",
        "zwicker(variant=dithmarschen,players=2)": "rollout",
        MICRO: "rollout",
    }
    for text, want in cases.items():
        game = pyspiel.load_game(text)
        agent = make_agent("expert:time=0,iters=20", game, seed=1)
        assert agent.leaf == want, text
        assert resolved_leaf(game, {**agent.params, "leaf": "value"}) == "value"
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    agent = make_agent("expert:time=0,iters=20,endgame=0", game, seed=1)
    agent.act(zwicker_bridge.state_from_seed(game, 2))
    assert agent.last["leaf"] == "stage" and agent.last["mode"] == "ismcts"


def test_identity_names_the_resolved_leaf_and_the_weights_it_reads(tmp_path) -> None:
    """What a results folder checks before resuming: every parameter, the leaf ``auto`` resolved
    to and the digest of each model read, so retrained weights make a different agent."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    shipped = value_model.shipped_model_path("dithmarschen", 4, "value")
    ident = make_agent("expert:time=0,iters=20", game).identity()
    assert ident["name"] == "expert" and ident["params"]["leaf"] == "auto" and ident["params"]["pool"] == 256
    assert ident["leaf_resolved"] == "stage"
    assert ident["models"] == {"value": value_model.load_model(shipped).digest()}
    rollout = make_agent("expert:time=0,iters=20,leaf=rollout,opp=net", game).identity()
    assert rollout["leaf_resolved"] == "rollout" and set(rollout["models"]) == {"move"}
    model = value_model.load_model(shipped)
    model.layers[2][1][0] += 0.5  # the output bias: another model
    model_files.save_model(model, tmp_path / "other.npz")
    other = make_agent(f"expert:time=0,iters=20,model={tmp_path / 'other.npz'}", game).identity()
    assert other["leaf_resolved"] == "stage" and other["models"]["value"] != ident["models"]["value"]
    assert make_agent("net", game).identity()["models"] == {
        "move": value_model.load_model(value_model.shipped_model_path("dithmarschen", 4)).digest()
    }


def test_stage_play_out_stops_where_the_stage_ends_on_the_full_play_outs_path() -> None:
    """``leaf=stage``'s play-out: with the same random stream it passes through the states of the
    whole play-out (``play_out_to`` the leaf's stage, then ``play_out`` = ``play_out``), and it stops at the first state of
    the next stage (the stage counter one higher, the new hands dealt) or at the hand's end."""
    rules = zwicker.rules("dithmarschen", players=4)
    R = rules.array()
    W = np.zeros(kernels.WS_SIZE, np.int64)
    policies = np.full(4, policy_codes.POLICY_RANDOM, np.int64)
    ended = over = 0
    for seed in range(12):
        S0 = zwicker.deal(rules, seed=seed).arr
        expert_search.seed(seed)
        full = S0.copy()
        kernels.play_out(R, full, policies, W)
        expert_search.seed(seed)
        part = S0.copy()
        buf, X = kernels.new_buffers()
        kernels.play_out_to(R, part, policies, W, part[S_STAGE], buf, X)
        if part[S_PHASE] == PHASE_OVER:
            over += 1
        else:
            assert part[S_STAGE] == S0[S_STAGE] + 1
            assert sum(int(part[S_HAND_N + q]) for q in range(4)) > 0
            ended += 1
        kernels.play_out(R, part, policies, W)
        np.testing.assert_array_equal(part, full)
    assert ended > 0


def test_prune_searches_only_the_move_models_best_root_moves() -> None:
    """``prune=K``: the root moves outside the move model's K best get no iteration and are never
    played; K at least the number of moves is the unpruned search (the same play)."""
    from zwick_ai.agents import value_model
    from zwick_ai.agents.expert import _blocked, _ismcts

    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 3)
    agent = make_agent("expert:time=0,iters=300,endgame=0,prune=3", game, seed=1)
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    n = len(d.rows)
    assert n > 3
    blocked = _blocked(d, agent.params, agent.move)
    score = value_model.net_values(d.rules_array, d.real, d.rows, n, agent.move, d.workspace)
    assert set(np.flatnonzero(~blocked)) == set(np.argsort(-score)[:3])
    params = {**agent.params, "leaf": agent.leaf}  # resolved, as expert_decision passes them
    visits, mean = _ismcts(d, params, 0.0, {}, agent.value, blocked, agent.opp)
    assert visits[~blocked].sum() == 300 and np.all(visits[blocked] == 1)
    assert np.all(mean[blocked] == zwicker_search.BLOCKED_REWARD)
    acts = agent.act(state)
    kept = [zwicker_bridge.move_actions(state, d.rows[k]) for k in np.flatnonzero(~blocked)]
    assert acts in kept
    wide = make_agent(f"expert:time=0,iters=300,endgame=0,prune={n}", game, seed=4)
    plain = make_agent("expert:time=0,iters=300,endgame=0", game, seed=4)
    assert wide.act(state) == plain.act(state)
    counts = [{k: v for k, v in a.last.items() if not k.endswith("_seconds")} for a in (wide, plain)]
    assert counts[0] == counts[1]  # the same search (the clock readings aside)


def _pool_of_one_world_stats(
    d: zwicker_search.DecisionSetup, policy: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(root visits and mean rewards, the world) of ``len(rows)`` ISMCTS iterations, random play-out
    leaves played by ``policy``, on a pool of one drawn world (so every iteration searches it)."""
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    expert_search.seed(seed)
    none = value_model.empty_model()
    pool, _ = expert_search.draw_pool(d.worlds, meta, 1, expert_search.Inference(0.0, none))
    tree = zwicker_search.new_tree(4 * len(d.rows) + 8)
    settings = zwicker_search.Settings(0.7, policy, d.win_loss, d.total)
    leaf = expert_search.Leaf(expert_search.LEAF_ROLLOUT, none, 1.0)
    expert_search.ismcts(d.worlds, len(d.rows), 1, settings, tree, leaf, expert_search.Pool(pool, np.ones(1)))
    visits, qsum = zwicker_search.root_stats(d.real, d.rows, tree)
    return visits, qsum / np.maximum(visits, 1), pool[0]


def test_greedy_rollout_plays_the_greedy_player_at_every_seat_of_the_play_out() -> None:
    """``rollout=greedy``: with one world and one iteration per root move, each move's reward is
    the result of a greedy play-out of that world after the move (one of them, where greedy's ties
    are broken at random); random play-outs' rewards mostly are not. The identity names the
    play-out player; a bad value is refused."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 5)
    d = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    R = d.rules_array
    side = arrays.side_of(R, d.player)
    greedy_all = np.full(4, policy_codes.POLICY_GREEDY, np.int64)

    def greedy_results(world: np.ndarray, row: np.ndarray) -> set[float]:
        results = set()
        for s in range(64):
            S = world.copy()
            kernels.apply_move(R, S, row, d.workspace)
            expert_search.seed(100 + s)
            kernels.play_out(R, S, greedy_all, d.workspace)
            results.add(round(float(zwicker_search.side_rewards(R, S, d.win_loss, d.total)[side]), 9))
        return results

    matched = {}
    for name, policy in (("greedy", policy_codes.POLICY_GREEDY), ("random", policy_codes.POLICY_RANDOM)):
        visits, mean, world = _pool_of_one_world_stats(d, policy, seed=7)
        assert np.all(visits == 1)
        hits = [round(float(mean[k]), 9) in greedy_results(world, d.rows[k]) for k in range(len(d.rows))]
        matched[name] = sum(hits) / len(hits)
    assert len(d.rows) >= 4
    assert matched["greedy"] == 1.0 and matched["random"] < 0.75
    assert make_agent("expert:time=0,iters=20", game).identity()["params"]["rollout"] == "random"
    assert make_agent("expert:time=0,iters=20,rollout=greedy", game).identity()["params"]["rollout"] == "greedy"
    with pytest.raises(ValueError, match="rollout='smart' is not valid; valid: random, greedy"):
        make_agent("expert:rollout=smart", game)
