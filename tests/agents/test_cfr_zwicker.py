"""MCCFR on the full Zwicker games (zwick_ai.agents.cfr.zwicker_abstraction, zwicker_mccfr,
zwicker_tree): the abstraction's keys forget exactly what they should, every abstract action maps to
the move a slow grouping picks, training resumes to the same table and never overwrites, the
``mccfr`` agent plays the policy with a greedy fallback, and on the micro game the abstract
strategy's nash_conv falls with training."""

from __future__ import annotations

import itertools

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai import zwicker
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import Policy
from zwick_ai.agents.cfr.zwicker_abstraction import (
    BUCKETS,
    COARSE,
    move_descriptor,
    state_features,
    zwicker_decision,
)
from zwick_ai.eval.match import play_game
from zwick_ai.learn.cfr import (
    MCCFRSolver,
    argmax_policy,
    load_checkpoint,
    prune_policy,
    save_checkpoint,
    save_policy,
    train,
)
from zwick_ai.learn.cfr.train import ZWICKER_AVERAGING, TrainOptions
from zwick_ai.zwicker import kernels
from zwick_ai.zwicker.layout import (
    LOC_STOCK,
    M_CARD,
    M_MASK,
    M_OWNER,
    M_TARGET,
    M_VALUE,
    PHASE_OVER,
    S_HAND_N,
    S_LOC,
    S_PHASE,
    S_STOCK,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_TO_MOVE,
    S_ZWICKS,
)

CLASSIC2 = "zwicker(variant=classic,players=2)"
VARIANTS = ("classic", "grupp", "dithmarschen", "grossenwiehe", "christiansen")


def key_of(R, S, abstraction=BUCKETS):
    moves = kernels.legal_moves(R, S, kernels.new_workspace())
    out = np.zeros(len(moves), np.int64)
    key, m = zwicker_decision(R, S, moves, len(moves), abstraction, out)
    return int(key), moves, out[:m]


def mid_hand_states(variant: str, players: int, deals: int, plies: int):
    """Engine states a few random plies into hands."""
    R = zwicker.rules(variant, players=players).array()
    W = kernels.new_workspace()
    rng = np.random.default_rng(1)
    for seed in range(deals):
        S = kernels.new_hand(R, seed, W)
        for _ in range(int(rng.integers(plies))):
            moves = kernels.legal_moves(R, S, W)
            if S[S_PHASE] == PHASE_OVER:
                break
            kernels.apply_move(R, S, moves[int(rng.integers(len(moves)))], W)
        if S[S_PHASE] != PHASE_OVER:
            yield R, S


def swap_hidden(R, S, q):
    """A copy of ``S`` with a card of seat ``q``'s hand and a card of the stock exchanged: the
    player to move cannot tell the two positions apart."""
    T = S.copy()
    top, end = int(S[S_STOCK_TOP]), int(S[S_STOCK_LEN])
    if top >= end or kernels.hand_card(S, q, 0) < 0 or S[S_HAND_N + q] == 0:
        return None
    c = int(kernels.hand_card(S, q, 0))
    d = int(S[S_STOCK + top])
    kernels.hand_remove(T, q, c)
    kernels.hand_insert(T, q, d)
    T[S_STOCK + top] = c
    T[S_LOC + c] = LOC_STOCK
    return T


@pytest.mark.parametrize("abstraction", [BUCKETS, COARSE])
def test_keys_forget_hidden_cards_and_keep_what_the_player_sees(abstraction):
    same = differ = 0
    for R, S in mid_hand_states("classic", 2, 40, 30):
        p = int(S[S_TO_MOVE])
        key, _, _ = key_of(R, S, abstraction)
        T = swap_hidden(R, S, 1 - p)  # the opponent's hand against the stock: hidden from p
        if T is not None:
            assert key_of(R, T, abstraction)[0] == key
            same += 1
        # a different own hand changes what the player can do: the key differs whenever the
        # abstract actions differ
        U = swap_hidden(R, S, p)
        if U is not None:
            k2, moves2, idx2 = key_of(R, U, abstraction)
            d1 = sorted(
                move_descriptor(R, S, mv, state_features(R, S, abstraction)[1], abstraction)
                for mv in kernels.legal_moves(R, S, kernels.new_workspace())
            )
            d2 = sorted(move_descriptor(R, U, mv, state_features(R, U, abstraction)[1], abstraction) for mv in moves2)
            if set(d1) != set(d2):
                assert k2 != key
                differ += 1
    assert same >= 20 and differ >= 10


def test_keys_differ_in_the_score_lead():
    for R, S in mid_hand_states("classic", 2, 30, 30):
        p = int(S[S_TO_MOVE])
        ahead, behind = S.copy(), S.copy()
        ahead[S_ZWICKS + p] += 20  # far ahead or far behind: lead buckets the key keeps
        behind[S_ZWICKS + 1 - p] += 20
        assert key_of(R, ahead)[0] != key_of(R, behind)[0]


def slow_grouping(R, S, moves, abstraction):
    """The abstract actions by a plain Python grouping: the best greedy move of each descriptor
    (ties: the smallest record), descriptors sorted."""
    table_pts = state_features(R, S, abstraction)[1]
    best: dict[int, tuple] = {}
    for k, mv in enumerate(moves):
        d = int(move_descriptor(R, S, mv, table_pts, abstraction))
        rank = (
            -kernels.greedy_value(R, S, mv),
            int(mv[M_CARD]),
            int(mv[M_VALUE]),
            int(mv[M_MASK]),
            int(mv[M_TARGET]),
            int(mv[M_OWNER]),
        )
        if d not in best or rank < best[d][0]:
            best[d] = (rank, k)
    return [best[d][1] for d in sorted(best)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_abstract_action_plays_the_move_a_slow_grouping_picks(variant):
    players = zwicker.rules(variant).players
    n = 0
    for R, S in mid_hand_states(variant, players, 12, 20):
        for abstraction in (BUCKETS, COARSE):
            _, moves, idx = key_of(R, S, abstraction)
            assert idx.tolist() == slow_grouping(R, S, moves, abstraction)
            n += 1
    assert n >= 10


@pytest.mark.parametrize("sampling", ["outcome", "probe"])
def test_resumed_training_equals_uninterrupted(tmp_path, sampling):
    game = pyspiel.load_game(CLASSIC2)
    whole = MCCFRSolver(game, sampling, seed=4, abstraction="coarse")
    whole.run(6)
    half = MCCFRSolver(game, sampling, seed=4, abstraction="coarse")
    half.run(3)
    save_checkpoint(half, tmp_path / "ck", 4)
    resumed, meta = load_checkpoint(tmp_path / "ck", game=str(game))
    assert meta["key_scheme"] == "zwicker_coarse" and resumed.zwicker
    resumed.run(3)
    n = whole.table.num_edges
    assert n == resumed.table.num_edges and n > 0
    assert np.array_equal(whole.table.regret[:n], resumed.table.regret[:n])
    assert np.array_equal(whole.table.avg[:n], resumed.table.avg[:n])


def test_train_writes_the_strength_curve_resumes_and_never_overwrites(tmp_path):
    out = tmp_path / "run"
    kw = dict(seed=2, out=out, algorithm="probe", abstraction="coarse", eval_every=2, eval_deals=3)
    train(CLASSIC2, "mccfr", 2, TrainOptions(**kw))
    with pytest.raises(ValueError, match="already holds a training run"):
        train(CLASSIC2, "mccfr", 4, TrainOptions(**kw))
    r = train(CLASSIC2, "mccfr", 4, TrainOptions(resume=True, **kw))
    assert [c[0] for c in r.curve] == [2, 4] and r.curve[-1][2] == "vs_greedy"
    rows = (out / "strength.csv").read_text().splitlines()
    assert rows[0] == "iteration,seconds,deals,ours,greedy,diff,ci95,table_share,random_diff,random_ci95"
    assert len(rows) == 3
    straight = train(CLASSIC2, "mccfr", 4, TrainOptions(**{**kw, "out": tmp_path / "straight"}))
    a, b = straight.solver.table.arrays(), r.solver.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in ("rows", "acts", "regret", "avg"))


def test_zwicker_refuses_what_it_cannot_do():
    game = pyspiel.load_game(CLASSIC2)
    with pytest.raises(ValueError, match="outcome or probe"):
        MCCFRSolver(game, "external", abstraction="buckets")
    with pytest.raises(ValueError, match="too large for the whole tree.*abstraction"):
        MCCFRSolver(game, "outcome", abstraction="none")
    with pytest.raises(ValueError, match="probe sampling is for the full Zwicker"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"), "probe")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_agent_plays_a_trained_policy_with_a_greedy_fallback(tmp_path, variant):
    game = pyspiel.load_game(f"zwicker(variant={variant})")
    train(
        str(game),
        "mccfr",
        3,
        TrainOptions(seed=1, out=tmp_path, algorithm="probe", abstraction="buckets", eval_deals=2),
    )
    agent = make_agent(f"mccfr:policy={tmp_path},fallback=greedy", game, seed=0)
    others = [make_agent("greedy", game, seed=s) for s in range(1, game.num_players())]
    record = play_game(game, [agent, *others], deal_seed=7)
    assert len(record.returns) == game.num_players()
    assert agent.stats["decisions"] > 0 and 0 <= agent.stats["fallbacks"] <= agent.stats["decisions"]
    assert len(agent.policy) > 0


def test_a_pruned_policy_plays_as_the_whole_one_with_its_visit_threshold(tmp_path):
    game = pyspiel.load_game(CLASSIC2)
    solver = MCCFRSolver(game, "probe", seed=3, abstraction="coarse")
    solver.run(40)
    save_policy(solver, tmp_path / "whole")
    whole = Policy(tmp_path / "whole")
    threshold = int(np.median(whole.visits)) + 1
    kept = prune_policy(tmp_path / "whole", tmp_path / "pruned", threshold)
    pruned = Policy(tmp_path / "pruned")
    assert 0 < kept == len(pruned) == int((whole.visits >= threshold).sum()) < len(whole)
    for seed in range(3):
        plays = []
        for spec in (f"policy={tmp_path / 'whole'},min_visits={threshold}", f"policy={tmp_path / 'pruned'}"):
            agent = make_agent(f"mccfr:{spec},fallback=greedy", game, seed=0)
            record = play_game(game, [agent, make_agent("greedy", game, seed=1)], deal_seed=seed)
            plays.append((record.moves, agent.stats["decisions"], agent.stats["fallbacks"]))
        assert plays[0] == plays[1]
        assert plays[0][1] > 0


@pytest.mark.slow  # trains a stakes-lite table: minutes on a cold cache
def test_an_argmax_policy_plays_as_the_whole_ones_argmax_and_is_one_hot(tmp_path):
    game = pyspiel.load_game(CLASSIC2)
    solver = MCCFRSolver(game, "probe", seed=5, abstraction="stakes-lite")
    solver.run(60)
    save_policy(solver, tmp_path / "whole")
    assert argmax_policy(tmp_path / "whole", tmp_path / "argmax") == len(Policy(tmp_path / "whole"))
    whole, argmax = Policy(tmp_path / "whole"), Policy(tmp_path / "argmax")
    assert np.array_equal(whole.keys, argmax.keys) and np.array_equal(whole.counts, argmax.counts)
    mixed = 0
    for i in range(len(whole)):
        o, m = whole.offsets[i], whole.counts[i]
        row, hot = whole.probs[o : o + m], argmax.probs[o : o + m]
        assert hot.sum() == 1.0 and hot[int(np.argmax(row))] == 1.0  # the first largest
        mixed += int((row > 0).sum() > 1)
    assert mixed > 0  # some sets mixed, so the test can tell the two files apart
    for seed in range(3):
        plays = []
        for spec in (f"policy={tmp_path / 'whole'},play=argmax", f"policy={tmp_path / 'argmax'},play=argmax"):
            agent = make_agent(f"mccfr:{spec},fallback=greedy", game, seed=seed)
            record = play_game(game, [agent, make_agent("greedy", game, seed=1)], deal_seed=seed)
            plays.append(record.moves)
        assert plays[0] == plays[1]


def test_train_reports_every_percent_and_evaluates_on_multiples_of_eval_every(tmp_path):
    calls: list[tuple[int, str | None]] = []
    kw = dict(seed=3, algorithm="probe", abstraction="coarse", eval_deals=2)
    options = TrainOptions(eval_every=100, out=tmp_path / "a", **kw)
    r = train(CLASSIC2, "mccfr", 250, options, lambda done, total, metric, value: calls.append((done, metric)))
    done = [d for d, _ in calls]
    assert done[0] == 0 and done[-1] == 250 and done == sorted(done)
    assert len(done) >= 100 and max(b - a for a, b in itertools.pairwise(done)) <= 2  # the bar moves every 1%
    assert [d for d, metric in calls if metric is not None] == [100, 200, 250] == [c[0] for c in r.curve]
    # the chunks of the progress bar change nothing: one call of 250 iterations gives the same tables
    # (train's default averaging on Zwicker)
    solver = MCCFRSolver(
        pyspiel.load_game(CLASSIC2), "probe", seed=3, abstraction="coarse", averaging=ZWICKER_AVERAGING
    )
    solver.run(250)
    a, b = solver.table.arrays(), r.solver.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in ("rows", "acts", "regret", "avg"))


def test_a_policy_plays_its_game_written_another_way_and_no_other(tmp_path):
    solver = MCCFRSolver(pyspiel.load_game("zwicker(variant=dithmarschen,players=4)"), "probe", 1, "coarse")
    solver.run(1)
    save_policy(solver, tmp_path / "p", 1)
    spec = f"mccfr:policy={tmp_path / 'p'},fallback=greedy"
    make_agent(spec, pyspiel.load_game("zwicker(variant=dithmarschen)"))  # players=0: the variant's 4
    for other in ("zwicker(variant=dithmarschen,players=2)", "zwicker(variant=grupp)"):
        with pytest.raises(ValueError, match="is for zwicker"):
            make_agent(spec, pyspiel.load_game(other))
