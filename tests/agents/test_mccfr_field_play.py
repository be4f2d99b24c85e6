"""Zwicker MCCFR against a greedy field and the argmax play of its tables: the greedy field's seats
play greedy's best move and never enter the table (no regret, average or row of theirs), while
the learner's partner plays the table; such runs resume exactly and refuse to resume as
self-play; ``play=argmax`` plays the average strategy's most likely action, in the agent and in
the compiled evaluation; ``stakes-lite`` merges the ``stakes`` classes into 18 and its keys
forget hidden cards too; the greedy prior puts W at greedy's action of a new set, resumes
exactly, and without it the tables are those of before."""

from __future__ import annotations

import hashlib

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai import zwicker
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import Policy
from zwick_ai.agents.cfr.core import R_OFF, R_PLAYER, Table, lookup
from zwick_ai.agents.cfr.zwicker_abstraction import (
    COARSE,
    LITE_OF,
    MAX_GROUPS,
    STAKES,
    STAKES_LITE,
    STAKES_LITE_CLASSES,
    present_strategy,
    zwicker_decision,
)
from zwick_ai.eval.match import play_game
from zwick_ai.games import zwicker_bridge
from zwick_ai.learn.cfr import MCCFRSolver, TrainOptions, save_policy, train
from zwick_ai.learn.cfr import zwicker_mccfr as zm
from zwick_ai.learn.cfr.updates import seed_state
from zwick_ai.zwicker import arrays, kernels

from .test_cfr_zwicker import mid_hand_states, swap_hidden

DITHMARSCHEN = "zwicker(variant=dithmarschen,players=4)"  # two sides: seats 0 and 2, 1 and 3
CLASSIC2 = "zwicker(variant=classic,players=2)"


def _hands(abst: int, learner: int, sampling: int, hands: int = 6, prior: float = 0.0) -> Table:
    """A fresh table after ``hands`` episodes of seat 0 (probe or outcome sampling) with the
    seats of sides other than ``learner`` playing greedy (``learner`` -1: self-play), new sets
    warm-started with the greedy prior ``prior`` (probe sampling, uniform weights)."""
    R = pyspiel.load_game(DITHMARSCHEN).rules.array()
    t = Table.empty(1 << 12)
    t.reserve(1 << 12, 1 << 16)
    W = kernels.new_workspace()
    moves = zm.Moves(*kernels.new_buffers())
    buf2, x2 = kernels.new_buffers()
    probe = zm.Probe(buf2, x2, kernels.empty_state(R), np.zeros(MAX_GROUPS, np.int64), np.zeros(MAX_GROUPS))
    bufs = zm.buffers()
    rng = seed_state(3)
    for _ in range(hands):
        if sampling == zm.OUTCOME:
            _, moves = zm._os_hand(R, abst, 0, t.compiled(), rng, W, moves, bufs, ((1.0, 1.0), learner))
        else:
            how = zm.Probing((1.0, 1.0), 0, learner, prior)
            z = zm.Episodes(R, abst, t.compiled(), rng, W, bufs)
            moves, probe = zm._probe_hand(z, 0, moves, probe, how)
    return t


@pytest.mark.parametrize(("abst", "sampling"), [(STAKES, 1), (COARSE, zm.OUTCOME)])
def test_the_greedy_field_never_enters_the_table(abst, sampling):
    # a row records the seat that entered it first (seats of one side may share a key)
    rows_of, touched = {}, {}
    for learner in (zm.SELF_PLAY, 0):
        t = _hands(abst, learner, sampling)
        rows = t.rows[: t.num_rows]
        rows_of[learner] = set(rows[:, R_PLAYER].tolist())
        touched[learner] = set()
        for r in rows:
            o, n = int(r[R_OFF]), int(r[3])
            if np.any(t.regret[o : o + n] != 0) or np.any(t.avg[o : o + n] != 0):
                touched[learner].add(int(r[R_PLAYER]))
    assert rows_of[zm.SELF_PLAY] == {0, 1, 2, 3}  # self-play: every seat plays the table
    assert rows_of[0] == {0, 2}  # the greedy field: the learner and his partner only
    assert 0 in touched[0] and touched[0] <= {0, 2}


def test_the_greedy_field_plays_greedy_and_splits_its_ties_with_the_run_stream():
    ties = 0
    for R, S in mid_hand_states("dithmarschen", 4, 20, 20):
        moves = kernels.legal_moves(R, S, kernels.new_workspace())
        vals = np.array([kernels.greedy_value(R, S, mv) for mv in moves])
        best = set(np.flatnonzero(vals >= vals.max() - kernels.TIE).tolist())
        picks = {int(zm.greedy_move(R, S, moves, len(moves), seed_state(s))) for s in range(40)}
        assert picks <= best
        if len(best) > 1:
            ties += 1
            assert picks == best  # every tied move is played (each with probability >= 1/4 here)
    assert ties >= 1


def test_greedy_field_runs_resume_exactly_and_not_as_self_play(tmp_path):
    kw = dict(seed=2, algorithm="probe", abstraction="stakes", eval_deals=2, field="greedy")
    train(DITHMARSCHEN, "mccfr", 2, TrainOptions(out=tmp_path / "a", **kw))
    with pytest.raises(ValueError, match="field=greedy; resume with the same options"):
        train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "a", resume=True, **{**kw, "field": "self"}))
    resumed = train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "a", resume=True, **kw))
    straight = train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "b", **kw))
    a, b = straight.solver.table.arrays(), resumed.solver.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in ("rows", "acts", "regret", "avg"))
    assert resumed.solver.field == "greedy"
    self_play = MCCFRSolver(pyspiel.load_game(DITHMARSCHEN), "probe", 2, "stakes", averaging="linear")
    self_play.run(4)
    assert self_play.table.num_rows != straight.solver.table.num_rows or not np.array_equal(
        self_play.table.regret, straight.solver.table.regret
    )


@pytest.fixture(scope="module")
def classic_policy(tmp_path_factory):
    solver = MCCFRSolver(pyspiel.load_game(CLASSIC2), "probe", seed=5, abstraction="stakes", averaging="linear")
    solver.run(60)
    path = tmp_path_factory.mktemp("argmax") / "p"
    save_policy(solver, path, 5)
    return solver, path


def test_argmax_plays_the_most_likely_action(classic_policy):
    _, path = classic_policy
    game = pyspiel.load_game(CLASSIC2)
    policy = Policy(path)
    agent = make_agent(f"mccfr:policy={path},fallback=greedy,play=argmax", game, seed=0)
    greedy = make_agent("greedy", game, seed=1)
    checked = mixed = 0
    for deal in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[deal % len(state.chance_outcomes())][0])
                continue
            choice = policy.zwicker_lookup(state)
            if choice is not None:
                chances = choice.chances
                best = int(np.argmax(chances))
                assert chances[best] == chances.max()
                expect = [int(a) for a in zwicker_bridge.move_actions(state, choice.rows[choice.row_of[best]])]
                assert [int(a) for a in agent.act(state)] == expect
                assert agent.decision_distribution(state) == {tuple(expect): 1.0}
                checked += 1
                mixed += chances.max() < 1.0
            for a in greedy.act(state):
                state.apply_action(int(a))
    assert checked >= 10 and mixed >= 1  # mixed sets, where sampling could play another action
    with pytest.raises(ValueError, match="play='best' is not valid; valid: sample, argmax"):
        make_agent(f"mccfr:policy={path},play=best", game)


def test_the_compiled_evaluation_plays_the_argmax_too(classic_policy):
    solver, _ = classic_policy
    R, T = solver.cfg, solver.table.compiled()
    idx, pol = np.zeros(MAX_GROUPS, np.int64), np.zeros(MAX_GROUPS)
    checked = 0
    for R2, S in mid_hand_states("classic", 2, 30, 20):
        assert np.array_equal(R2, R)
        moves = kernels.legal_moves(R, S, kernels.new_workspace())
        k = int(zm.table_move(R, S, moves, len(moves), STAKES, T, seed_state(1), (idx, pol), zm.ARGMAX))
        key, m = zwicker_decision(R, S, moves, len(moves), STAKES, idx)
        r = lookup(T.keys, T.rowof, key)
        if r < 0:
            assert k == -1
            continue
        present_strategy(T.avg, T.rows[r, R_OFF], m, idx, pol, False)
        assert k == idx[int(np.argmax(pol[:m]))] and arrays.to_move(S) >= 0
        checked += 1
    assert checked >= 5
    with pytest.raises(ValueError, match="play must be one of sample, argmax"):
        zm.strength(R, STAKES, solver.table, 2, play="best")


def _decision(R, S, abst):
    moves = kernels.legal_moves(R, S, kernels.new_workspace())
    out = np.zeros(MAX_GROUPS, np.int64)
    key, m = zwicker_decision(R, S, moves, len(moves), abst, out)
    return int(key), moves, out[:m].copy()


@pytest.mark.parametrize("variant", ("classic", "dithmarschen", "grossenwiehe", "christiansen"))
def test_stakes_lite_merges_the_stakes_classes_and_forgets_hidden_cards(variant):
    players = zwicker.rules(variant).players
    n = same = 0
    keys: dict[str, set[int]] = {"stakes": set(), "lite": set()}
    for R, S in mid_hand_states(variant, players, 40, 25):
        key, moves, idx = _decision(R, S, STAKES)
        lkey, _, lidx = _decision(R, S, STAKES_LITE)
        assert len(lidx) == STAKES_LITE_CLASSES < len(idx) and lkey != key
        keys["stakes"].add(key)
        keys["lite"].add(lkey)
        for c in range(STAKES_LITE_CLASSES):  # each lite class plays the greedy-best of its stakes classes
            members = [int(idx[d]) for d in np.flatnonzero(LITE_OF == c) if idx[d] >= 0]
            if not members:
                assert lidx[c] == -1
                continue
            vals = [kernels.greedy_value(R, S, moves[k]) for k in members]
            assert kernels.greedy_value(R, S, moves[lidx[c]]) == pytest.approx(max(vals))
        for q in range(players):
            T = swap_hidden(R, S, q) if q != int(arrays.to_move(S)) else None
            if T is not None:
                k2, _, lidx2 = _decision(R, T, STAKES_LITE)
                if np.array_equal(lidx2 >= 0, lidx >= 0):
                    assert k2 == lkey
                    same += 1
        n += 1
    assert n >= 20 and same >= 10
    assert len(keys["lite"]) <= len(keys["stakes"])


def test_stakes_lite_trains_with_its_own_alphabet_and_its_policy_plays(tmp_path):
    game = pyspiel.load_game(DITHMARSCHEN)
    solver = MCCFRSolver(game, "probe", 1, "stakes-lite", averaging="linear")
    solver.run(30)
    assert solver.key_scheme == "zwicker_stakes-lite"
    assert set(solver.table.rows[: solver.table.num_rows, 3].tolist()) == {STAKES_LITE_CLASSES}
    save_policy(solver, tmp_path / "p", 1)
    agent = make_agent(f"mccfr:policy={tmp_path / 'p'},fallback=greedy,play=argmax", game, seed=0)
    others = [make_agent("greedy", game, seed=s) for s in range(1, 4)]
    record = play_game(game, [agent, *others], deal_seed=3)
    assert len(record.returns) == 4 and agent.stats["decisions"] > agent.stats["fallbacks"]
    with pytest.raises(ValueError, match="stakes-lite abstraction trains with probe"):
        MCCFRSolver(pyspiel.load_game(DITHMARSCHEN), "outcome", 1, "stakes-lite")


# ---- the greedy prior: a new set starts with regret and average mass W on greedy's action ----


@pytest.mark.parametrize("lite", [False, True])
def test_the_greedy_prior_lands_on_greedys_best_action_with_its_weight(lite):
    abst = STAKES_LITE if lite else STAKES
    checked = 0
    for R, S in mid_hand_states("dithmarschen", 4, 25, 20):
        moves = kernels.legal_moves(R, S, kernels.new_workspace())
        idx = np.zeros(MAX_GROUPS, np.int64)
        _, m = zwicker_decision(R, S, moves, len(moves), abst, idx)
        # slow and plain: greedy's value of each present action's move, the first best one
        vals = [kernels.greedy_value(R, S, moves[idx[a]]) if idx[a] >= 0 else -np.inf for a in range(m)]
        g = int(np.argmax(np.array(vals) > max(vals) - 1e-9))
        regret, avg = np.full(m + 3, 0.5), np.full(m + 3, 0.25)
        got = zm.warm_start(R, S, moves, m, idx, (regret, avg), 3, 7.0, (2.0, 3.0))
        assert got == g
        want_r, want_a = np.full(m + 3, 0.5), np.full(m + 3, 0.25)
        want_r[3 + g] += 14.0  # W times the iteration's regret weight
        want_a[3 + g] += 21.0  # and its average weight
        assert np.array_equal(regret, want_r) and np.array_equal(avg, want_a)
        checked += 1
    assert checked >= 20


def test_a_new_set_starts_with_the_prior_on_one_action_and_plays_it():
    # seat 0 updates; the other seats' sets (self-play) are entered but never updated, so they
    # hold the prior alone: regret and average W (uniform weights) on one action, 0 elsewhere
    W = 9.0
    t = _hands(STAKES_LITE, zm.SELF_PLAY, 1, hands=4, prior=W)
    alone = 0
    for r in t.rows[: t.num_rows]:
        o, n = int(r[R_OFF]), int(r[3])
        reg, av = t.regret[o : o + n], t.avg[o : o + n]
        assert av.max() >= W  # every new set: W on its greedy action at least
        if int(r[R_PLAYER]) != 0 and av.sum() == W:
            alone += 1
            g = int(np.argmax(av))
            assert reg[g] == W and np.count_nonzero(reg) == 1 and np.count_nonzero(av) == 1
    assert alone >= 50
    plain = _hands(STAKES_LITE, zm.SELF_PLAY, 1, hands=4)  # without the prior they hold nothing
    rows = plain.rows[: plain.num_rows]
    empty = [r for r in rows if r[R_PLAYER] != 0 and not plain.avg[int(r[R_OFF]) : int(r[R_OFF]) + int(r[3])].any()]
    assert len(empty) >= 50


# the table of MCCFRSolver(DITHMARSCHEN, "probe", 2, ABST, averaging="linear", field=FIELD).run(3)
# as computed before the greedy prior existed: (rows, sum of regrets, sum of |regrets|, sum of
# averages, the start of the sha256 of the rows, acts, regret and avg arrays' bytes)
BEFORE = {
    ("stakes-lite", "greedy"): (306, -3099.0, 5329.0, 312.0, "fccc15dc4374689f"),
    ("stakes", "self"): (609, -958.0, 7406.0, 312.0, "6a915b4099b66461"),
}


@pytest.mark.parametrize(("abst", "field"), [("stakes-lite", "greedy"), ("stakes", "self")])
def test_no_prior_is_the_table_of_before(abst, field):
    s = MCCFRSolver(pyspiel.load_game(DITHMARSCHEN), "probe", 2, abst, averaging="linear", field=field)
    s.run(3)
    a = s.table.arrays()
    got = (s.table.num_rows, float(a["regret"].sum()), float(np.abs(a["regret"]).sum()), float(a["avg"].sum()))
    rows, total, size, mass, digest = BEFORE[abst, field]
    assert got[0] == rows
    assert got[1:] == pytest.approx((total, size, mass), rel=1e-9, abs=1e-6)
    data = b"".join(np.ascontiguousarray(a[k]).tobytes() for k in ("rows", "acts", "regret", "avg"))
    assert hashlib.sha256(data).hexdigest()[:16] == digest
    zero = MCCFRSolver(
        pyspiel.load_game(DITHMARSCHEN), "probe", 2, abst, averaging="linear", field=field, greedy_prior=0
    )
    zero.run(3)
    assert all(np.array_equal(a[k], zero.table.arrays()[k]) for k in ("rows", "acts", "regret", "avg"))


def test_greedy_prior_runs_resume_exactly_and_not_with_another_prior(tmp_path):
    kw = dict(seed=2, algorithm="probe", abstraction="stakes-lite", eval_deals=2, field="greedy", greedy_prior=20.0)
    train(DITHMARSCHEN, "mccfr", 2, TrainOptions(out=tmp_path / "a", **kw))
    for other in (0.0, 5.0):
        with pytest.raises(ValueError, match="greedy_prior=20; resume with the same options"):
            train(
                DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "a", resume=True, **{**kw, "greedy_prior": other})
            )
    resumed = train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "a", resume=True, **kw))
    straight = train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "b", **kw))
    a, b = straight.solver.table.arrays(), resumed.solver.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in ("rows", "acts", "regret", "avg"))
    assert resumed.solver.greedy_prior == 20.0
    plain = train(DITHMARSCHEN, "mccfr", 4, TrainOptions(out=tmp_path / "c", **{**kw, "greedy_prior": 0.0}))
    assert not np.array_equal(plain.solver.table.avg, straight.solver.table.avg)
    assert "greedy_prior" not in (tmp_path / "c" / "checkpoint.json").read_text()


def test_the_greedy_prior_refuses_what_it_is_not_for():
    game = pyspiel.load_game(DITHMARSCHEN)
    for bad in (-1.0, float("nan"), True, "5"):
        with pytest.raises(ValueError, match="greedy_prior must be a number"):
            MCCFRSolver(game, "probe", 0, "stakes-lite", greedy_prior=bad)
    for args, kw in (
        (("outcome", 0, "coarse"), {}),
        (("probe", 0, "stakes-lite"), {"workers": 2}),
        (("outcome", 0), {"game": pyspiel.load_game("kuhn_poker")}),
    ):
        g = kw.pop("game", game)
        with pytest.raises(ValueError, match="greedy_prior is for probe sampling"):
            MCCFRSolver(g, *args, greedy_prior=3.0, **kw)
