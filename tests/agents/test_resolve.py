"""``resolve``: the joint deals of every hand at the root (counted and replayed), information sets
that no hidden card can change, exact CFR+ agreement on a micro game whose stages it solves
exactly, the stage-value features that read no hidden card, whole games and one-line errors."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from tests.agent_play import greedy_turns, play_whole_game
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import resolve
from zwick_ai.zwicker import arrays, kernels, public_deals
from zwick_ai.zwicker.stage_features import feature_count, stage_features, stage_features_seen_by

#: one card a hand, one stage (4,695 nodes): exact CFR+ solves it whole in a second
MICRO1 = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"
#: two cards a hand, one stage (94,125 nodes)
MICRO2 = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
CLASSIC2 = "zwicker(variant=classic,players=2)"
#: eight cards, two never dealt: the mover cannot tell the other hand (in MICRO2 every card is seen)
HIDDEN8 = "zwicker(variant=dithmarschen,players=2,ranks=A234,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"


def _hands(S: np.ndarray, players: int) -> list[list[int]]:
    return [arrays.hand_cards(S, q).tolist() for q in range(players)]


def test_the_root_deals_are_every_split_of_the_unseen_cards_with_the_public_state_unchanged() -> None:
    game, state = greedy_turns(3, 1, MICRO2)
    d = state.decision()
    R = d.rules_array
    seats, need, pool = public_deals.hidden_pool(R, d.position)
    rows = public_deals.all_assignments(need, pool)
    assert len(rows) == public_deals.deal_count(need, len(pool)) == len({tuple(r) for r in rows})
    worlds, keep = public_deals.consistent_worlds(d.game_table, d.record, rows, kernels.new_workspace())
    assert 0 < len(worlds) <= len(rows)
    truth = _hands(d.position, 2)
    assert truth in [_hands(w, 2) for w in worlds]  # the true deal is one of them
    public = {int(arrays.public_hash(R, w)) for w in worlds}
    assert public == {int(arrays.public_hash(R, d.position))}


def test_stage_features_read_no_hidden_card() -> None:
    game = pyspiel.load_game(CLASSIC2)
    R = game.rules.array()
    S = kernels.new_hand(R, 9, kernels.new_workspace())
    seats, need, pool = public_deals.hidden_pool(R, S)
    rng = np.random.default_rng(0)
    for side in range(2):  # as side 0 and as side 1 sees the table
        base = np.zeros(feature_count(R))
        stage_features_seen_by(R, S, side, base)
        for _ in range(5):  # other hands and another stock order: the same public state
            other = public_deals.with_hands(S, seats, need, rng.permutation(pool))
            assert _hands(other, 2) != _hands(S, 2)
            x = np.zeros_like(base)
            stage_features_seen_by(R, other, side, x)
            assert np.array_equal(x, base)
        played = S.copy()  # a public change does move them
        W = kernels.new_workspace()
        kernels.apply_move(R, played, kernels.legal_moves(R, played, W)[0], W)
        x = np.zeros_like(base)
        stage_features_seen_by(R, played, side, x)
        assert not np.array_equal(x, base)
    plain, seen0 = np.zeros(feature_count(R)), np.zeros(feature_count(R))
    stage_features(R, S, plain)
    stage_features_seen_by(R, S, 0, seen0)
    assert np.array_equal(plain, seen0)  # the shipped models read side 0's view


@pytest.mark.slow
def test_positions_differing_only_in_hidden_cards_give_every_information_set_the_same_strategy() -> None:
    game, state = greedy_turns(3, 1, HIDDEN8)
    p = state.current_player()
    params = make_agent("resolve:time=0,iters=60", game).params
    strategies = []
    for twin_seed in range(1, 30):
        twin = state.resample_from_infostate(p, twin_seed)
        if _hands(twin.decision().position, 2)[1 - p] != _hands(state.decision().position, 2)[1 - p]:
            break
    else:
        pytest.fail("no twin with another hidden hand")
    for s in (state, twin):
        agent = make_agent("resolve:time=0,iters=60", game, seed=0)
        strat, stats = resolve.decide(s, params, agent, np.random.default_rng(0))
        assert not stats["drawn"] and stats["gadget"]
        strategies.append((strat, agent.solver().snapshot()))
    (a, table_a), (b, table_b) = strategies
    assert np.allclose(a, b)
    assert table_a.keys() == table_b.keys()
    assert all(np.allclose(table_a[k], table_b[k]) for k in table_a)


@pytest.mark.slow
def test_on_a_micro_game_solved_exactly_it_matches_exact_cfr_plus() -> None:
    """The stage is the whole micro game: the resolved policy's nash_conv and its root strategies
    match exact CFR+ within EPS (both 1,000 iterations)."""
    from zwick_ai.analysis.exploitability import agent_policy
    from zwick_ai.learn.cfr.exact import ExactSolver, average_policy, nash_conv
    from zwick_ai.learn.cfr.tree import extract

    EPS = 0.01
    game = pyspiel.load_game(MICRO1)
    tree = extract(game)
    solver = ExactSolver(tree, "cfr+")
    solver.run(1000)
    exact = average_policy(tree, solver.cum)
    policy = agent_policy(game, tree, "resolve:time=0,iters=1000", samples=1)
    assert policy.exact  # the deals are enumerated: the agent gives its exact probabilities
    assert nash_conv(tree, exact) < EPS
    assert nash_conv(tree, policy.pol) < EPS
    starts = list(policy.starts)  # the first decision sets of the deal: the stage's roots
    roots = [b for b in starts if tree.iset_n[b] > 1][:20]
    for b in roots:
        o, n = int(tree.iset_off[b]), int(tree.iset_n[b])
        assert np.abs(policy.pol[o : o + n] - exact[o : o + n]).max() < 10 * EPS


@pytest.mark.slow
def test_plays_whole_games_on_full_boards_with_drawn_deals() -> None:
    for spec in (CLASSIC2, "zwicker(variant=dithmarschen,players=4)"):
        game = pyspiel.load_game(spec)
        state, decisions = play_whole_game(game, ["resolve:time=0,iters=20,deals=16,draws=16,depth=2", "greedy"], 3)
        assert state.is_terminal() and decisions > 0


@pytest.mark.parametrize(
    "spec, words",
    [
        ("resolve:belief=oracle", "belief='oracle' is not valid"),
        ("resolve:leaf=net", "leaf='net' is not valid"),
        ("resolve:time=0,iters=0", "give a time budget"),
        ("resolve:deals=0", "give at least one deal"),
        ("resolve:draws=0", "draws=0 is not valid"),
        ("resolve:true_share=1", "true_share=1.0 is not valid"),
        ("resolve:cap=-1", "cap=-1 is not valid"),
        ("resolve:deepen=always", "deepen='always' is not valid"),
    ],
)
def test_bad_parameters_give_one_line_errors(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        make_agent(spec, pyspiel.load_game(CLASSIC2))


def test_registered_and_listed() -> None:
    from zwick_ai.agents import registered

    info = next(i for i in registered() if i.name == "resolve")
    assert [p.name for p in info.params][:4] == ["time", "iters", "deals", "depth"]


def test_the_batched_replay_matches_one_deal_at_a_time() -> None:
    """``replay_worlds`` (one compiled call) gives every deal the reach of the per-deal replay."""
    from zwick_ai.agents.cfr import resolve_tree
    from zwick_ai.agents.expert_search import stage_start_world
    from zwick_ai.zwicker.worlds import resample_setup

    game, state = greedy_turns(3, 1, HIDDEN8)
    d = state.decision()
    R, G, a = d.rules_array, d.game_table, d.record
    W = kernels.new_workspace()
    setup = resample_setup(G, a, public_deals.PUBLIC, W)
    seats, need, pool = public_deals.hidden_pool(R, d.position)
    worlds, _ = public_deals.consistent_worlds(G, a, public_deals.all_assignments(need, pool), W)
    policy = resolve._greedy_policy(0.25)
    fast = np.ones((len(worlds), 2))
    h = resolve_tree.replay_worlds(R, a, setup.S0, worlds, setup.t0, resolve_tree.H0, policy, W, fast)
    slow = np.ones_like(fast)
    for w in range(len(worlds)):
        S0w = stage_start_world(R, a, setup.S0, worlds[w], -1, setup.t0)
        h_w = resolve_tree.replay_stage(R, a, S0w, setup.t0, resolve_tree.H0, policy, W, slow[w])
        assert h_w == h
    assert np.array_equal(fast, slow)
    assert (fast < 1.0).any()  # the moves made do weigh the deals


def test_auto_leaves_solve_stage_ends_only_without_a_time_budget() -> None:
    """Under a time budget ``leaf=auto`` never solves a stage end (a solve each is unbounded)."""
    game = pyspiel.load_game(MICRO2)
    R = game.rules.array()
    S = kernels.new_hand(R, 1, kernels.new_workspace())[None, :]
    untimed = make_agent("resolve:time=0,iters=10", game).params
    timed = make_agent("resolve:time=0.1", game).params
    assert resolve._solvable(R, S, untimed)
    assert not resolve._solvable(R, S, timed)
    assert resolve._solvable(R, S, {**timed, "leaf": "solve"})


def test_a_decision_with_no_drawn_deal_holding_the_true_hand_plays_the_blueprint(monkeypatch) -> None:
    """In 4p the rejection draws of the mover's view can all fail; the decision then plays the greedy
    blueprint over its own candidates instead of failing (it once raised StopIteration)."""
    game, state = greedy_turns(3, 6)
    draw = public_deals.drawn_worlds

    def public_only(G, a, p, n, tries, seed, W):  # every draw of the mover's own view fails
        return (
            draw(G, a, public_deals.PUBLIC, n, tries, seed, W)
            if p == public_deals.PUBLIC
            else draw(G, a, p, 0, tries, seed, W)
        )

    monkeypatch.setattr(public_deals, "drawn_worlds", public_only)
    agent = make_agent("resolve:time=0,iters=20,deals=1,draws=4,depth=1", game, seed=0)
    strategy, stats = resolve.decide(state, agent.params, agent, np.random.default_rng(0))
    rows = state.decision().candidates
    assert strategy.shape == (len(rows),) and np.isclose(strategy.sum(), 1.0) and (strategy >= 0).all()
    assert stats["belief"] == "blueprint (no deal with the true hand)" and stats["iters"] == 0
    values = np.array([kernels.greedy_value(state.decision().rules_array, state.decision().position, r) for r in rows])
    assert strategy[np.argmax(values)] == strategy.max()


def test_the_iteration_cap_stops_a_timed_decision_and_cap_0_lets_the_budget_run() -> None:
    """``cap`` bounds a timed decision's CFR+ iterations; ``cap=0`` leaves only the time budget
    (``belief=greedy``: the stage's own solve would take a budget of its own first)."""
    from zwick_ai.agents import clock

    game, state = greedy_turns(3, 1, MICRO1)
    was = clock.current()
    clock.use("cpu")
    try:
        warm = make_agent("resolve:time=0.05", game, seed=0)  # compiles what the timed runs need
        resolve.decide(state, warm.params, warm, np.random.default_rng(0))
        runs = {}
        for cap in (30, 0):
            agent = make_agent(f"resolve:time=0.05,cap={cap},belief=greedy", game, seed=0)
            runs[cap] = resolve.decide(state, agent.params, agent, np.random.default_rng(0))[1]
    finally:
        clock.use(was)
    assert runs[30]["iters"] == 30
    assert runs[0]["iters"] > 30 and runs[0]["seconds"] >= 0.05


def test_fit_deepening_tries_no_ply_foreseen_past_the_node_cap() -> None:
    """``deepen=try`` builds a ply that does not fit and rebuilds the last one; ``deepen=fit``
    foresees the next ply's nodes from the last ply's growth and does not try it."""
    game, state = greedy_turns(5, 2, CLASSIC2)
    results = {}
    for mode in ("try", "fit"):
        # a long budget and a huge build rate: only the node cap can stop the deepening
        agent = make_agent(f"resolve:time=100,iters=5,nodes=20000,deepen={mode}", game, seed=0)
        agent.node_rate = 1e12
        calls: list[bool] = []
        sub = agent.solver()
        build = sub.build

        def counted(*args, build=build, calls=calls):
            calls.append(build(*args))
            return calls[-1]

        sub.build = counted
        stats = resolve.decide(state, agent.params, agent, np.random.default_rng(0))[1]
        results[mode] = (calls, stats["depth"])
    tried, fitted = results["try"], results["fit"]
    assert False in tried[0]  # the failed try, then the rebuild
    assert all(fitted[0]) and 1 <= fitted[1] <= tried[1]


def test_a_decision_whose_one_ply_does_not_fit_keeps_half_the_deals_until_it_does() -> None:
    """Where one ply over every root deal does not fit the node cap (or the stage ends it may
    reach), the decision keeps half of each stratum's deals, again until it fits, instead of
    failing the game; with room for all of them it keeps all."""
    game, state = greedy_turns(5, 2, CLASSIC2)
    roomy = make_agent("resolve:time=0,iters=5,depth=1", game, seed=0)
    full = resolve.decide(state, roomy.params, roomy, np.random.default_rng(0))[1]
    tight = make_agent(f"resolve:time=0,iters=5,depth=1,nodes={full['nodes'] // 3}", game, seed=0)
    strategy, stats = resolve.decide(state, tight.params, tight, np.random.default_rng(0))
    assert 1 <= stats["deals"] <= full["deals"] // 4 and stats["nodes"] <= full["nodes"] // 3
    assert np.isclose(strategy.sum(), 1.0) and (strategy >= 0).all()


def test_thinned_deals_keep_half_of_each_stratum_and_its_weight() -> None:
    """Half of the deals holding the mover's true hand and half of the others (rounded up), each
    stratum's weight kept where its deals weighed alike, at least one true-hand deal."""
    game, state = greedy_turns(5, 2, CLASSIC2)
    agent = make_agent("resolve:time=0,iters=5,depth=1", game, seed=0)
    d = state.decision()
    worlds = resolve.root_deals(d, agent.params, np.random.default_rng(0), kernels.new_workspace())[0]
    hand = arrays.hand_cards(d.position, d.player)
    true = np.array([np.array_equal(arrays.hand_cards(w, d.player), hand) for w in worlds])
    assert true.sum() >= 2 and (~true).sum() >= 2
    prior = np.where(true, 0.4 / true.sum(), 0.6 / (~true).sum())
    reach = np.arange(2 * len(worlds), dtype=float).reshape(-1, 2)
    kept, weight, kept_reach = resolve.thinned_deals(worlds, prior, reach, d.player, hand, np.random.default_rng(1))
    kept_true = np.array([np.array_equal(arrays.hand_cards(w, d.player), hand) for w in kept])
    assert kept_true.sum() == (true.sum() + 1) // 2 and (~kept_true).sum() == ((~true).sum() + 1) // 2
    assert np.isclose(weight.sum(), 1.0)
    assert np.isclose(weight[kept_true].sum(), 0.4) and np.isclose(weight[~kept_true].sum(), 0.6)
    rows = {tuple(w.tolist()): k for k, w in enumerate(worlds)}
    assert all(np.array_equal(kept_reach[j], reach[rows[tuple(w.tolist())]]) for j, w in enumerate(kept))
    pair = [int(np.flatnonzero(true)[0]), int(np.flatnonzero(~true)[0])]
    one = resolve.thinned_deals(
        worlds[pair], np.array([0.5, 0.5]), reach[pair], d.player, hand, np.random.default_rng(2)
    )[0]
    assert len(one) == 2 and np.array_equal(arrays.hand_cards(one[0], d.player), hand)
