"""The learned value model: features see only the mover's information, the compiled evaluation
equals scikit-learn's, training resumes and never overwrites, and the ``net`` agent plays legally."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import value_model
from zwick_ai.agents.base import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.learn import model_files, value_selfplay
from zwick_ai.zwicker import features, kernels, policy_codes
from zwick_ai.zwicker.layout import (
    LOC_HAND,
    LOC_STOCK,
    MAX_HAND,
    MAX_PLAYERS,
    PHASE_OVER,
    R_DECK,
    R_DECK_SIZE,
    S_DEALT_TO,
    S_HAND_N,
    S_HANDS,
    S_LOC,
    S_STOCK,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_TO_MOVE,
)
from zwick_ai.zwicker.rules import rules as make_rules

sklearn = pytest.importorskip("sklearn")
from zwick_ai.learn.value_train import ValueConfig, train_value  # noqa: E402

MAIN = [("dithmarschen", 4), ("classic", 2), ("christiansen", 3), ("grossenwiehe", 4), ("grupp", 4)]


def positions(variant: str, players: int, hands: int = 3, record: float = 1.0, eps: float = 0.2):
    R = make_rules(variant, players).array()
    return value_selfplay.selfplay_positions(
        R, np.arange(hands, dtype=np.int64), policy_codes.POLICY_GREEDY, eps, record, value_model.empty_model()
    )


@pytest.mark.parametrize("variant,players", MAIN)
def test_candidates_are_played_out_from_the_true_position(variant, players):
    """Each recorded candidate's final difference equals replaying its move and greedy's playout
    with the same random numbers; the lead is the features' lead."""
    X, final, lead, dec, hand = positions(variant, players)
    assert X.shape[1] == features.NFEAT == len(features.FEATURE_NAMES)
    assert len(final) > 20 and dec.max() >= 5
    np.testing.assert_allclose(lead, X[:, features.F_LEAD] + X[:, features.F_ZWICK], atol=1e-4)
    # every decision has at least two candidates, all of one hand
    counts = np.bincount(dec)
    assert counts.min() >= 2
    assert all(len(set(hand[dec == d])) == 1 for d in range(dec.max() + 1))
    # final differences are within the game's range and differ between candidates
    top = make_rules(variant, players).card_total + 60
    assert np.all(np.abs(final) <= top)
    assert np.std(final) > 0


@pytest.mark.parametrize("variant,players", [("dithmarschen", 4), ("christiansen", 3)])
def test_features_do_not_depend_on_hidden_cards(variant, players):
    """The same move from two deals that differ only in cards the mover cannot see gives the same
    features, even when the move makes the engine deal a new stage."""
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    R = game.rules.array()
    W = kernels.new_workspace()
    checked = 0
    for seed in range(4):
        state = zwick_ai.games.zwicker_bridge.state_from_seed(game, seed)
        agents = [make_agent("greedy", game, seed=s) for s in range(players)]
        while not state.is_terminal():
            S = state.engine_state().arr
            p = int(S[S_TO_MOVE])
            rows = state.candidate_rows()
            # Another world: the other hands and the stock dealt from the same hidden cards shuffled.
            hidden = [
                int(c)
                for c in R[R_DECK : R_DECK + R[R_DECK_SIZE]]
                if S[S_LOC + c] == LOC_STOCK
                or (LOC_HAND <= S[S_LOC + c] < LOC_HAND + players and S[S_LOC + c] != LOC_HAND + p)
            ]
            S2 = _permute_hidden(S, hidden, np.random.default_rng(seed + checked))
            for row in rows:
                a, b = S.copy(), S2.copy()
                kernels.apply_move(R, a, row, W)
                kernels.apply_move(R, b, row, W)
                if a[1] == PHASE_OVER or row[0] == 3:
                    continue
                fa = features.after_move_features(R, S, a, p, np.zeros(features.NFEAT))
                fb = features.after_move_features(R, S2, b, p, np.zeros(features.NFEAT))
                np.testing.assert_allclose(fa, fb)
                checked += 1
            zwick_ai.agents.apply_decision(state, agents[p].act(state))
    assert checked > 100


def _permute_hidden(S, hidden, rng):
    """A copy of ``S`` whose hidden cards (other hands, stock) are shuffled among their places."""
    S2 = S.copy()
    places = []  # state index of each hidden card's slot (a live hand slot or a stock position)
    for c in hidden:
        if S[S_LOC + c] == LOC_STOCK:
            top, n = S[S_STOCK_TOP], S[S_STOCK_LEN]
            places.append(S_STOCK + top + int(np.flatnonzero(S[S_STOCK + top : S_STOCK + n] == c)[0]))
        else:
            q = S[S_LOC + c] - LOC_HAND
            base = S_HANDS + MAX_HAND * q
            places.append(base + int(np.flatnonzero(S[base : base + S[S_HAND_N + q]] == c)[0]))
    perm = rng.permutation(len(hidden))
    for idx, k in zip(places, perm, strict=True):
        c = hidden[k]
        S2[idx] = c
        S2[S_LOC + c] = LOC_STOCK if idx >= S_STOCK else LOC_HAND + (idx - S_HANDS) // MAX_HAND
        S2[S_DEALT_TO + c] = S[S_DEALT_TO + S[idx]]
    for q in range(MAX_PLAYERS):  # hands stay sorted by id
        base = S_HANDS + MAX_HAND * q
        S2[base : base + S2[S_HAND_N + q]] = np.sort(S2[base : base + S2[S_HAND_N + q]])
    return S2


def test_a_run_folder_of_an_older_version_is_refused_in_one_line(tmp_path):
    """A run whose config lacks a field of today's, or whose chunk has no weights, was made by an
    older zwick_ai: refused in one line saying so and what remakes it, with nothing trained."""
    import json

    from zwick_ai.learn.value_train import positions as run_positions

    cfg = ValueConfig("classic", 2, hands=10, epochs=1, hidden=(4,), batch=16, record=1.0)
    old = tmp_path / "old-config"
    old.mkdir()
    config = cfg.as_json()
    del config["teacher"]
    (old / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"older zwick_ai \(no teacher\); remake it with the same `zwick train value`"):
        train_value(cfg, old)
    assert sorted(p.name for p in old.iterdir()) == ["config.json"]
    chunk = tmp_path / "old-chunk" / "positions" / "chunk-0000.npz"
    chunk.parent.mkdir(parents=True)
    np.savez(
        chunk, X=np.zeros((1, 2)), final=np.zeros(1), lead=np.zeros(1), dec=np.zeros(1, int), hand=np.zeros(1, int)
    )
    with pytest.raises(ValueError, match=r"chunk-0000.npz was written by an older zwick_ai \(no weights\); remake"):
        run_positions(cfg, tmp_path / "old-chunk")


def test_compiled_models_equal_sklearn(tmp_path):
    """A tiny training run; both exported models evaluated in compiled code give scikit-learn's
    numbers on their inputs, and ``net_values`` is the move model on the decision's candidates."""
    from zwick_ai.learn.value_train import load_checkpoint, model_data
    from zwick_ai.learn.value_train import positions as run_positions

    cfg = ValueConfig("classic", 2, hands=40, epochs=2, hidden=(8, 4), batch=64, record=1.0)
    models = train_value(cfg, tmp_path / "run")
    data = run_positions(cfg, tmp_path / "run")
    for kind, model in models.items():
        net, best, _, _ = load_checkpoint(tmp_path / "run" / f"{kind}-checkpoint.npz", cfg)
        net.coefs_, net.intercepts_ = best.coefs_, best.intercepts_  # scikit-learn's network of the best epoch
        X, _ = model_data(kind, data)
        y_scale = model.layers[2][1][0] / net.intercepts_[2][0]
        Z = (X - model.mean) / model.scale
        got = model.predict(X)
        # scikit-learn evaluates in float32, the precision it trained in
        np.testing.assert_allclose(got, net.predict(Z) * y_scale, rtol=1e-5, atol=1e-5)
        # the same network in float64 numpy: equal to rounding
        h = Z
        for W, b in zip(net.coefs_[:-1], net.intercepts_[:-1], strict=True):
            h = np.maximum(h @ W.astype(np.float64) + b, 0.0)
        exact = (h @ net.coefs_[-1].astype(np.float64) + net.intercepts_[-1])[:, 0] * y_scale
        np.testing.assert_allclose(got, exact, rtol=1e-9, atol=1e-9)
        assert np.std(got) > 0
    # the net's compiled scoring of a real decision equals the move model on model_data's inputs
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    state = zwick_ai.games.zwicker_bridge.state_from_seed(game, 2)
    rows = state.candidate_rows()
    S = state.engine_state().arr
    R = game.rules.array()
    W = kernels.new_workspace()
    F = np.zeros((len(rows), features.NFEAT))
    ok = value_model.candidate_features(R, S, rows, len(rows), W, F)
    fake = {"X": F[ok], "final": np.zeros(ok.sum()), "lead": np.zeros(ok.sum()), "dec": np.zeros(ok.sum(), int)}
    Xm, _ = model_data("move", fake)
    got = value_model.net_values(R, S, rows, len(rows), models["move"].arrays(), W)[ok]
    np.testing.assert_allclose(got, models["move"].predict(Xm), rtol=1e-9, atol=1e-9)
    # the curve of both models is there; a rerun resumes without changing finished files
    lines = (tmp_path / "run" / "loss.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * 2
    before = (tmp_path / "run" / "move.npz").read_bytes()
    again = train_value(cfg, tmp_path / "run")
    assert (tmp_path / "run" / "move.npz").read_bytes() == before
    np.testing.assert_allclose(again["move"].layers[0][0], models["move"].layers[0][0])
    assert (tmp_path / "run" / "loss.png").stat().st_size > 0
    with pytest.raises(ValueError, match="another configuration"):
        train_value(ValueConfig("classic", 2, hands=50, epochs=2, hidden=(8, 4)), tmp_path / "run")
    with pytest.raises(FileExistsError):
        model_files.save_model(models["move"], tmp_path / "run" / "move.npz")


def test_training_resumes_after_an_interruption(tmp_path):
    """A run stopped after one epoch finishes with the same models as an uninterrupted one."""
    cfg = ValueConfig("classic", 2, hands=30, epochs=3, hidden=(6, 3), batch=64)
    whole = train_value(cfg, tmp_path / "a")

    class Stop(Exception):
        pass

    def stop_after_one_epoch(stage, done, total, info):
        if stage == "fit move" and done == 1:
            raise Stop

    with pytest.raises(Stop):
        train_value(cfg, tmp_path / "b", stop_after_one_epoch)
    resumed = train_value(cfg, tmp_path / "b")
    for kind in whole:
        for (w1, b1), (w2, b2) in zip(whole[kind].layers, resumed[kind].layers, strict=True):
            np.testing.assert_allclose(w1, w2)
            np.testing.assert_allclose(b1, b2)


@pytest.mark.parametrize("variant,players", MAIN)
def test_shipped_weights_and_net_agent(variant, players):
    """Every main variant ships both models; ``net`` plays a whole deal legally with them."""
    for kind in value_model.KINDS:
        path = value_model.shipped_model_path(variant, players, kind)
        assert path.is_file(), f"missing {path}"
        model = value_model.load_model(path)
        assert model.meta["kind"] == kind
        assert model.meta["config"]["variant"] == variant and model.meta["config"]["players"] == players
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    agents = [make_agent("net" if s % 2 == 0 else "greedy", game, seed=s) for s in range(players)]
    record = play_game(game, agents, deal_seed=11)
    assert len(record.moves) > 10


def test_net_model_errors(tmp_path):
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    with pytest.raises(ValueError, match="no value model file"):
        make_agent(f"net:model={tmp_path}/nothing.npz", game)
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(2))
    with pytest.raises(ValueError, match="not a zwick_ai value model"):
        make_agent(f"net:model={bad}", game)


def test_leaf_values_are_the_value_model_from_each_side():
    """``leaf_side_values`` is, per side, the lead so far plus the value model (evaluated by
    :meth:`ValueModel.predict`) on the features of the side's first seat; exact once the hand is over."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    R = game.rules.array()
    model = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, "value"))
    m = model.arrays()
    state = zwick_ai.games.zwicker_bridge.state_from_seed(game, 7)
    agents = [make_agent("greedy", game, seed=s) for s in range(4)]
    f = np.zeros(features.NFEAT)
    checked = 0
    while not state.is_terminal():
        S = state.engine_state().arr
        got = value_model.leaf_side_values(R, S, m, f, np.zeros(2))
        for side, seat in ((0, 0), (1, 1)):
            x = features.after_move_features(R, S, S, seat, np.zeros(features.NFEAT))
            want = x[features.F_LEAD] + x[features.F_ZWICK] + model.predict(x[None, :])[0]
            assert got[side] == pytest.approx(want, abs=1e-9)
        checked += 1
        zwick_ai.agents.apply_decision(state, agents[state.current_player()].act(state))
    S = state.engine_state().arr
    sc = kernels.score(R, S)
    np.testing.assert_allclose(value_model.leaf_side_values(R, S, m, f, np.zeros(2)), [sc[0] - sc[1], sc[1] - sc[0]])
    assert checked > 20


def test_expert_value_leaf():
    """``expert:leaf=value`` searches with the value model at the leaves: its rewards are the
    model's point differences over the card total, clipped, and it plays legal moves."""
    from zwick_ai.agents import expert_search

    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    R = game.rules.array()
    m = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, "value")).arrays()
    state = zwick_ai.games.zwicker_bridge.state_from_seed(game, 3)
    S = state.engine_state().arr
    f = np.zeros(features.NFEAT)
    total = float(game.rules.card_total)
    want = np.clip(value_model.leaf_side_values(R, S, m, f, np.zeros(2)) / total, -1, 1)
    np.testing.assert_allclose(expert_search.value_rewards(R, S, m, f, total), want)
    agent = make_agent("expert:leaf=value,time=0,iters=60", game, seed=1)
    legal = [acts for _, acts in zwick_ai.agents.legal_decisions(state)]
    assert agent.act(state) in legal
    assert agent.last["iters"] == 60


def _teacher_run(teacher: str, iters: int) -> tuple[ValueConfig, tuple[np.ndarray, ...]]:
    """A search teacher's positions of one classic hand (seed 5), checked reproducible."""
    from zwick_ai.learn.value_train import teacher_positions

    cfg = ValueConfig("classic", 2, hands=10, teacher=teacher, teacher_iters=iters, eps=0.0)
    seeds = np.array([5], dtype=np.int64)
    run = teacher_positions(cfg, seeds)
    for a, b in zip(run, teacher_positions(cfg, seeds), strict=True):
        np.testing.assert_array_equal(a, b)
    return cfg, run


def _first_decision(cfg: ValueConfig) -> tuple[pyspiel.State, np.random.Generator]:
    """The teacher's first searched decision of :func:`_teacher_run`'s hand and its random stream."""
    from zwick_ai.games import zwicker_bridge

    state = zwicker_bridge.state_from_seed(pyspiel.load_game("zwicker(variant=classic,players=2)"), 5)
    while len(state.candidate_rows()) < 2:  # the teacher searches only real choices
        for a in zwicker_bridge.move_actions(state, state.candidate_rows()[0]):
            state.apply_action(a)
    return state, np.random.default_rng([cfg.seed, 5])


def test_search_teacher_targets_are_the_search_root_statistics():
    """Under ``teacher="ismcts"`` every recorded candidate's target is the teacher search's mean
    reward of that move in points and its weight its visits, on a decision replayed by hand; the
    run is reproducible from its seed."""
    from zwick_ai.agents import zwicker_search

    cfg, (X, final, lead, dec, hand, weight) = _teacher_run("ismcts", 60)
    assert len(np.unique(dec)) >= 5 and (weight >= 1).all() and (hand == 0).all()
    for d in np.unique(dec):
        assert (dec == d).sum() >= 2  # a decision is recorded with two or more tried moves
        assert weight[dec == d].sum() <= cfg.teacher_iters
    state, rng = _first_decision(cfg)  # searched again by hand with the same random stream
    setup = zwicker_search.DecisionSetup(state, rng)
    tree = zwicker_search.new_tree(cfg.teacher_iters + 2)
    setup.run(tree, np.zeros(0, np.int32), cfg.teacher_iters, {"c": 0.7, "rollout": "random"})
    visits, qsum = zwicker_search.root_stats(setup.real, setup.rows, tree)
    tried = visits > 0
    total = float(state.rules.card_total)
    np.testing.assert_allclose(np.sort(final[dec == 0]), np.sort(qsum[tried] / visits[tried] * total), rtol=1e-5)
    np.testing.assert_array_equal(np.sort(weight[dec == 0]), np.sort(visits[tried]))


def test_expert_teacher_targets_are_the_experts_root_values():
    """Under ``teacher="expert"`` the targets are the expert's root values: its ISMCTS means
    weighted by visits before the endgame (the first decision replayed by hand with the same random
    stream), and in the endgame exact values sharing ``teacher_iters`` equally; reproducible."""
    from zwick_ai.agents import expert

    cfg, (X, final, lead, dec, hand, weight) = _teacher_run("expert", 40)
    sums = np.bincount(dec, weights=weight)
    assert len(sums) >= 5 and (sums <= cfg.teacher_iters + 1e-3).all()
    last = weight[dec == dec.max()]  # the hand's last recorded decision is in the endgame
    shared = cfg.teacher_iters / last[0]
    assert np.ptp(last) == 0 and abs(shared - round(shared)) < 1e-3 and round(shared) >= len(last)
    state, rng = _first_decision(cfg)
    agent = make_agent("expert:time=0,iters=40", state.get_game())
    _, visits, mean, is_exact = expert.expert_root(state, agent.params, rng, agent)
    tried = visits > 0
    assert not is_exact
    total = float(state.rules.card_total)
    np.testing.assert_allclose(np.sort(final[dec == 0]), np.sort(mean[tried] * total), rtol=1e-5)
    np.testing.assert_array_equal(np.sort(weight[dec == 0]), np.sort(visits[tried]))


def test_move_targets_use_the_visit_weighted_baseline():
    """With weights, a decision's move targets have weighted mean zero (the baseline is the
    search's value of the position), not plain mean zero."""
    from zwick_ai.learn.value_train import model_data

    rng = np.random.default_rng(0)
    data = {
        "X": rng.normal(size=(6, features.NFEAT)).astype(np.float32),
        "final": np.array([1.0, 3.0, 8.0, -2.0, 0.0, 2.0]),
        "lead": np.zeros(6),
        "dec": np.array([0, 0, 0, 1, 1, 1]),
        "weight": np.array([10.0, 1.0, 1.0, 1.0, 1.0, 2.0]),
    }
    _, y = model_data("move", data)
    for d in (0, 1):
        m = data["dec"] == d
        assert abs(np.average(y[m], weights=data["weight"][m])) < 1e-12
    assert abs(y[:3].mean()) > 0.5  # the plain mean is not the baseline


def test_old_runs_are_refused_in_one_line_and_another_teacher_is_refused(tmp_path):
    """A run folder written before the teacher fields existed is refused, naming what it lacks and
    what remakes it; the same folder with another teacher is refused with what changed."""
    import json

    cfg = ValueConfig("classic", 2, hands=20, epochs=1, hidden=(4, 2), batch=64)
    train_value(cfg, tmp_path / "run")
    train_value(cfg, tmp_path / "run")  # resumes: nothing to do
    path = tmp_path / "run" / "config.json"
    now = path.read_text()
    old = json.loads(now)
    del old["teacher"], old["teacher_iters"]
    path.write_text(json.dumps(old))
    with pytest.raises(ValueError, match=r"older zwick_ai \(no teacher, teacher_iters\); remake it"):
        train_value(cfg, tmp_path / "run")
    path.write_text(now)
    with pytest.raises(ValueError, match="teacher: greedy -> ismcts"):
        train_value(
            ValueConfig("classic", 2, hands=20, epochs=1, hidden=(4, 2), batch=64, teacher="ismcts"), tmp_path / "run"
        )
    with pytest.raises(ValueError, match="unknown teacher"):
        train_value(ValueConfig("classic", 2, hands=20, teacher="alphazero"), tmp_path / "other")


def test_positions_in_worker_processes_equal_one_process(tmp_path):
    """Chunks generated by two worker processes are the chunks one process makes."""
    from zwick_ai.learn.value_train import positions as run_positions

    cfg = ValueConfig("classic", 2, hands=40, teacher="ismcts", teacher_iters=10)
    one = run_positions(cfg, tmp_path / "one")
    two = run_positions(cfg, tmp_path / "two", workers=2)
    assert len(list((tmp_path / "two" / "positions").glob("chunk-*.npz"))) == 2
    for k in one:
        np.testing.assert_array_equal(one[k], two[k])


AFTER_SHIPPED = [*MAIN, ("classic", 4)]


@pytest.mark.parametrize("variant,players", AFTER_SHIPPED)
def test_shipped_after_models_and_their_agent(variant, players):
    """Every variant ships an after model of its own game; ``net:model=after`` plays it in a whole deal."""
    path = value_model.shipped_model_path(variant, players, value_model.AFTER)
    model = value_model.load_model(path)
    assert model.meta["kind"] == value_model.AFTER
    assert model.meta["config"]["variant"] == variant and model.meta["config"]["players"] == players
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    assert model.meta["deck"] == game.rules.deck_size
    agents = [make_agent("net:model=after" if s % 2 == 0 else "greedy", game, seed=s) for s in range(players)]
    assert agents[0].identity()["models"] == {value_model.AFTER: model.digest()}
    record = play_game(game, agents, deal_seed=11)
    assert len(record.moves) > 10


@pytest.mark.parametrize("variant,players", [("dithmarschen", 4), ("grossenwiehe", 4), ("classic", 2)])
def test_after_values_equal_one_forward_pass_per_candidate(variant, players):
    """``after_values`` updates the first layer from one candidate to the next (only the inputs that
    differ); it equals the model's whole forward pass on each candidate's input, over whole deals."""
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.mlp import mlp_forward
    from zwick_ai.zwicker.layout import KIND_ASK, M_KIND, R_NSIDES, R_SIDE_OF, S_PHASE

    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    m = value_model.load_model(value_model.shipped_model_path(variant, players, value_model.AFTER)).arrays()
    greedy = make_agent("greedy", game, seed=0)
    W = kernels.new_workspace()
    x = np.zeros(m[0].shape[0])
    checked = 0
    for deal in range(3):
        state = zwicker_bridge.state_from_seed(game, deal)
        while not state.is_terminal():
            d = state.decision()
            R, S, rows = d.rules_array, d.position.copy(), d.candidates
            fast = value_model.after_values(R, S, rows, len(rows), m, W)
            p = S[S_TO_MOVE]
            for k in range(len(rows)):
                if rows[k, M_KIND] == KIND_ASK:
                    assert fast[k] == -np.inf
                    continue
                after = S.copy()
                kernels.apply_move(R, after, rows[k], W)
                if after[S_PHASE] == PHASE_OVER:
                    slow = features.side_diff(kernels.score(R, after).astype(float), R[R_SIDE_OF + p], R[R_NSIDES])
                else:
                    features.after_input(R, S, after, p, x)
                    slow = x[features.F_LEAD] + x[features.F_ZWICK] + mlp_forward(x, m)
                assert fast[k] == pytest.approx(slow, abs=1e-9)
                checked += 1
            for a in greedy.act(state):
                state.apply_action(a)
    assert checked > 100
