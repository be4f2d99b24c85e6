"""The CFR family (zwick_ai.agents.cfr): exact solvers against OpenSpiel's own, compiled keys
against information-state strings, MCCFR convergence, checkpoints, policy files, agents, CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, discounted_cfr, exploitability

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from tests.tabular import tabular
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import Policy, tricks_key
from zwick_ai.agents.cfr.core import Table, lookup, lookup_or_add
from zwick_ai.agents.cfr.policy_file import _meta_hash, write_files
from zwick_ai.eval.match import deal, play_game
from zwick_ai.learn.cfr import (
    ExactSolver,
    MCCFRSolver,
    TrainOptions,
    extract,
    load_checkpoint,
    nash_conv,
    save_checkpoint,
    save_policy,
    train,
)
from zwick_ai.learn.cfr.exact import exploitability as exact_exploitability
from zwick_ai.learn.cfr.mccfr import table_policy

TINY_ZWICKER = "zwicker(variant=dithmarschen,players=2,ranks=A2,suits=CD,jokers=none,hand_size=1,table_size=1,stages=1)"
TINY_ZWIKKEN = "zwikken(variant=parlett,players=3,tricks=1,ranks=AK,suits=CD,max_bid_levels=1)"
TINY_ZWICKEN = "zwicken(players=2,tricks=1,hupf=false,ranks=AK7,suits=D)"
SMALL = [TINY_ZWICKER, TINY_ZWIKKEN, TINY_ZWICKEN, "kuhn_poker", "kuhn_poker(players=3)"]

_TREES: dict[str, object] = {}


def tree_of(name: str):
    if name not in _TREES:
        _TREES[name] = extract(pyspiel.load_game(name))
    return _TREES[name]


# ---- exact CFR against OpenSpiel ---------------------------------------------------------------------
@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize(
    "method,cls", [("cfr", cfr.CFRSolver), ("cfr+", cfr.CFRPlusSolver), ("dcfr", discounted_cfr.DCFRSolver)]
)
def test_exact_solvers_match_openspiel(name, method, cls):
    game = pyspiel.load_game(name)
    tree = tree_of(name)
    ours = ExactSolver(tree, method)
    theirs = cls(game)
    iters = 3 if name.startswith("zwi") else 15
    ours.run(iters)
    for _ in range(iters):
        theirs.evaluate_and_update_policy()
    avg = theirs.average_policy()
    mine = tabular(game, tree, ours.average_policy())
    np.testing.assert_allclose(mine.action_probability_array, avg.action_probability_array, atol=1e-9)
    assert ours.nash_conv() == pytest.approx(exploitability.nash_conv(game, avg), abs=1e-9)
    if name == "kuhn_poker":
        ours_expl = exact_exploitability(tree, ours.average_policy())
        assert ours_expl == pytest.approx(exploitability.exploitability(game, avg), abs=1e-9)


@pytest.mark.parametrize("name", [TINY_ZWICKER, TINY_ZWIKKEN, "kuhn_poker(players=3)"])
def test_nash_conv_of_random_policies_matches_openspiel(name):
    game = pyspiel.load_game(name)
    tree = tree_of(name)
    rng = np.random.default_rng(5)
    pol = rng.random(tree.num_edges) ** 3
    for i in range(tree.num_infosets):
        o, n = tree.iset_off[i], tree.iset_n[i]
        pol[o : o + n] /= pol[o : o + n].sum()
    expected = exploitability.nash_conv(game, tabular(game, tree, pol))
    assert nash_conv(tree, pol) == pytest.approx(expected, abs=1e-9)
    assert expected > 0.05  # a random policy is exploitable: the comparison is not vacuous


def test_tree_arrays_are_consistent():
    tree = tree_of(TINY_ZWIKKEN)
    assert tree.num_players == 3
    assert np.all(tree.child > np.repeat(np.arange(tree.num_nodes), tree.count))  # children after parents
    chance = np.flatnonzero(tree.kind == 1)
    for h in chance[:50]:
        s, c = tree.start[h], tree.count[h]
        assert tree.prob[s : s + c].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="more than 100 nodes"):
        extract(pyspiel.load_game(TINY_ZWIKKEN), max_nodes=100)
    with pytest.raises(ValueError, match="pack of 20 cards: too large"):
        extract(pyspiel.load_game("zwikken(variant=parlett,players=3)"))
    with pytest.raises(ValueError, match="unknown abstraction"):
        extract(pyspiel.load_game("kuhn_poker"), abstraction="coarse")


def test_observation_abstraction_merges_information_sets(tmp_path):
    game = pyspiel.load_game(TINY_ZWICKER)
    full, abstract = tree_of(TINY_ZWICKER), extract(game, "observation")
    assert abstract.num_infosets < full.num_infosets
    assert np.array_equal(abstract.br_iset, full.br_iset)
    s = ExactSolver(abstract, "cfr+")
    before = s.nash_conv()
    s.run(30)
    assert s.nash_conv() < 0.5 * before
    save_policy(s, tmp_path / "abstract")
    assert Policy(tmp_path / "abstract").meta["key_scheme"] == "observation_string"
    agent = make_agent(f"cfr:policy={tmp_path}/abstract", game, seed=2)
    for seed in range(10):
        play_game(game, [make_agent("random", game), agent], seed)
    assert agent.stats["decisions"] >= 10 and agent.stats["fallbacks"] == 0


# ---- compiled keys partition states like the strings ----------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "zwikken(variant=parlett,players=3)",
        "zwikken(variant=historic,players=4)",
        "zwikken(variant=modern,players=3,part_pot_bids=true)",
        "zwicken(players=4)",
        "zwicken(players=3,anbieten=true)",
    ],
)
def test_tricks_keys_partition_like_information_state_strings(name):
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(11)
    key_of: dict[str, int] = {}
    text_of: dict[int, str] = {}
    for _ in range(150):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                ids, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(ids, p=np.array(probs) / sum(probs))))
                continue
            for p in range(game.num_players()):
                text, key = s.information_state_string(p), int(tricks_key(s.array, p))
                assert key_of.setdefault(text, key) == key  # equal strings -> equal keys
                assert text_of.setdefault(key, text) == text  # equal keys -> equal strings
            legal = s.legal_actions()
            s.apply_action(int(legal[rng.integers(len(legal))]))
    assert len(key_of) > 1000 and len(key_of) == len(text_of)


# ---- MCCFR ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sampling", ["external", "outcome"])
@pytest.mark.parametrize("name", [TINY_ZWICKER, TINY_ZWIKKEN, "kuhn_poker"])
def test_mccfr_reduces_nash_conv(name, sampling):
    game = pyspiel.load_game(name)
    tree = tree_of(name)
    solver = MCCFRSolver(game, sampling, seed=3)
    start = solver.nash_conv(tree)
    solver.run(3000 if sampling == "outcome" else 600)
    assert solver.nash_conv(tree) < 0.4 * start
    assert solver.tricks == name.startswith("zwikken")


def test_mccfr_tricks_table_matches_the_tree_information_sets():
    game = pyspiel.load_game(TINY_ZWIKKEN)
    tree = tree_of(TINY_ZWIKKEN)
    solver = MCCFRSolver(game, "external", seed=1)
    solver.run(300)
    keys = set(solver.table.rows[: solver.table.num_rows, 0].tolist())
    assert keys <= set(tree.iset_key.tolist())  # every compiled key is a real information set
    assert len(keys) > 0.8 * tree.num_infosets
    pol = table_policy(tree, solver.table)
    assert pol.shape == (tree.num_edges,) and np.all(pol >= 0)


@pytest.mark.parametrize("sampling", ["external", "outcome"])
def test_engine_and_tree_traversals_compute_the_same_table(sampling):
    """The compiled engine traversal and the tree traversal consume the same random numbers in
    the same order, so with one seed they must agree exactly on every information set."""
    game = pyspiel.load_game(TINY_ZWIKKEN)
    tree = tree_of(TINY_ZWIKKEN)
    engine = MCCFRSolver(game, sampling, seed=6)
    walked = MCCFRSolver(game, sampling, seed=6, backend="tree")
    assert engine.tricks and not walked.tricks and walked.key_scheme == engine.key_scheme == "tricks_history"
    engine.run(200)
    walked.run(200)
    e, w = engine.table, walked.table
    rows = {int(k): r for r, k in enumerate(e.rows[: e.num_rows, 0])}
    compared = 0
    for r in range(w.num_rows):
        k, off, n = (int(x) for x in w.rows[r, [0, 2, 3]])
        if k not in rows:
            assert not w.avg[off : off + n].any() and not w.regret[off : off + n].any()  # never visited
            continue
        eo = int(e.rows[rows[k], 2])
        assert np.array_equal(w.regret[off : off + n], e.regret[eo : eo + n])
        assert np.array_equal(w.avg[off : off + n], e.avg[eo : eo + n])
        compared += 1
    assert compared == e.num_rows > 0.5 * tree.num_infosets
    with pytest.raises(ValueError, match="engine backend plays the trick games"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"), backend="engine")


def test_mccfr_is_seeded_and_grows_its_table():
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    a, b, c = (MCCFRSolver(game, "outcome", seed=s) for s in (4, 4, 5))
    for s in (a, b, c):
        s.run(1500)
    assert a.table.num_rows > 16384 // 4  # grew past its first capacity at least once
    assert np.array_equal(a.table.regret[: a.table.num_edges], b.table.regret[: b.table.num_edges])
    assert not np.array_equal(a.table.rows[:100], c.table.rows[:100])
    value, seen = a.value_vs_random(200, seed=1)
    assert -10 < value < 10 and 0 < seen < 1


def test_table_lookup_and_growth_keep_rows():
    t = Table.empty(16)
    legal = np.array([1, 2, 3], np.int16)
    for k in range(1, 200):
        t.reserve(1, 3)
        assert lookup_or_add(t.keys, t.rowof, t.rows, t.acts, t.meta, k * 7919, k % 3, legal, 3) == k - 1
    assert t.num_rows == 199 and t.rows.shape[0] >= 199
    assert all(lookup(t.keys, t.rowof, k * 7919) == k - 1 for k in range(1, 200))
    assert lookup(t.keys, t.rowof, 5) == -1


def test_table_readers_give_each_rows_columns_and_edges():
    """``columns`` and ``span`` read what ``lookup_or_add`` wrote: keys, players, offsets, counts."""
    t = Table.empty(16)
    for k, n in enumerate((2, 3, 1), start=1):
        lookup_or_add(t.keys, t.rowof, t.rows, t.acts, t.meta, 100 * k, k % 2, np.arange(n, dtype=np.int16), n)
    cols = t.columns()
    assert cols.key.tolist() == [100, 200, 300] and cols.player.tolist() == [1, 0, 1]
    assert cols.off.tolist() == [0, 2, 5] and cols.n.tolist() == [2, 3, 1] and cols.visits.tolist() == [0, 0, 0]
    assert [t.span(r) for r in range(3)] == [(0, 2), (2, 3), (5, 1)]
    assert t.columns(1).key.tolist() == [200, 300] and t.columns(0, 1).n.tolist() == [2]
    t.columns().visits[:] += 4  # views: a write reaches the table
    assert t.rows[:3, 4].tolist() == [4, 4, 4]


# ---- checkpoints and policy files ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,method",
    [("zwikken(variant=parlett,players=3)", "outcome"), (TINY_ZWICKER, "external"), (TINY_ZWIKKEN, "cfr+")],
)
def test_resume_equals_uninterrupted_run(tmp_path, name, method):
    game = pyspiel.load_game(name)

    def make():
        return ExactSolver(tree_of(name), method) if method == "cfr+" else MCCFRSolver(game, method, seed=9)

    whole = make()
    whole.run(400)
    half = make()
    half.run(150)
    save_checkpoint(half, tmp_path / "ck", seed=9)
    resumed, meta = load_checkpoint(tmp_path / "ck", game=str(game))
    assert meta["iterations"] == 150
    resumed.run(250)
    if method == "cfr+":
        assert np.array_equal(whole.cum, resumed.cum) and np.array_equal(whole.regret, resumed.regret)
    else:
        n = whole.table.num_edges
        assert n == resumed.table.num_edges
        assert np.array_equal(whole.table.avg[:n], resumed.table.avg[:n])
        assert np.array_equal(whole.table.regret[:n], resumed.table.regret[:n])


def test_bad_checkpoints_and_policies_raise_value_errors(tmp_path):
    game = pyspiel.load_game("kuhn_poker")
    solver = MCCFRSolver(game, "external", seed=1)
    solver.run(10)
    save_checkpoint(solver, tmp_path / "ck")
    save_policy(solver, tmp_path / "pol")
    with pytest.raises(ValueError, match="is for kuhn_poker"):
        load_checkpoint(tmp_path / "ck", game="leduc_poker()")
    with pytest.raises(ValueError, match="made by mccfr"):
        load_checkpoint(tmp_path / "ck", method="cfr")
    data = (tmp_path / "ck.npz").read_bytes()
    (tmp_path / "ck.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated, corrupt"):
        load_checkpoint(tmp_path / "ck")
    (tmp_path / "ck.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_checkpoint(tmp_path / "ck")
    with pytest.raises(ValueError, match="needs both"):
        load_checkpoint(tmp_path / "missing")
    with pytest.raises(ValueError, match="not a checkpoint"):
        load_checkpoint(tmp_path / "pol")
    meta = json.loads((tmp_path / "pol.json").read_text())
    meta["key_scheme"] = "telepathy"
    (tmp_path / "pol.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="metadata was changed"):  # the JSON is covered by its own hash
        Policy(tmp_path / "pol")
    meta["meta_sha256"] = _meta_hash(meta)  # a hash that fits: the values themselves are checked
    (tmp_path / "pol.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="unknown key scheme"):
        Policy(tmp_path / "pol")
    del meta["meta_sha256"]  # as files of zwick_ai 0.3.0 were: refused, naming the version that reads them
    (tmp_path / "pol.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"earlier zwick_ai \(no meta_sha256\).*read it with zwick_ai 0\.3\.0"):
        Policy(tmp_path / "pol")


def test_checkpoint_metadata_is_covered_and_checked(tmp_path):
    """An edited checkpoint.json (``"iterations": -5``) is refused, its hash made to fit or not."""
    solver = MCCFRSolver(pyspiel.load_game("kuhn_poker"), "external", seed=1)
    solver.run(10)
    save_checkpoint(solver, tmp_path / "ck")
    assert load_checkpoint(tmp_path / "ck")[0].iteration == 10
    meta = json.loads((tmp_path / "ck.json").read_text())
    meta["iterations"] = -5
    (tmp_path / "ck.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="metadata was changed"):
        load_checkpoint(tmp_path / "ck")
    meta["meta_sha256"] = _meta_hash(meta)
    (tmp_path / "ck.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="iterations must be a whole number >= 0, not -5"):
        load_checkpoint(tmp_path / "ck")


def test_a_resumed_run_keeps_every_convergence_row_when_stopped_between_rows_and_checkpoint(tmp_path, monkeypatch):
    """The rows are written before the checkpoint: a run stopped right after its second checkpoint
    has every row up to it, and the resumed run the rest (no row lost, none twice)."""
    import importlib

    train_module = importlib.import_module("zwick_ai.learn.cfr.train")

    real = train_module.save_checkpoint
    calls = []

    def stop_at_second(*args, **kwargs):
        calls.append(1)
        real(*args, **kwargs)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(train_module, "save_checkpoint", stop_at_second)
    with pytest.raises(KeyboardInterrupt):
        train("kuhn_poker", "cfr", 30, TrainOptions(seed=0, out=tmp_path / "a", eval_every=10))
    monkeypatch.setattr(train_module, "save_checkpoint", real)
    train("kuhn_poker", "cfr", 30, TrainOptions(seed=0, out=tmp_path / "a", eval_every=10, resume=True))
    train("kuhn_poker", "cfr", 30, TrainOptions(seed=0, out=tmp_path / "b", eval_every=10))
    rows = [line.split(",")[0] for line in (tmp_path / "a" / "convergence.csv").read_text().splitlines()]
    assert rows == ["iteration", "10", "20", "30"]
    values = lambda d: [line.split(",")[3] for line in (tmp_path / d / "convergence.csv").read_text().splitlines()]  # noqa: E731
    assert values("a") == values("b")


# ---- agents -----------------------------------------------------------------------------------------
def test_policy_agents_play_and_count_fallbacks(tmp_path):
    game = pyspiel.load_game(TINY_ZWICKER)
    solver = ExactSolver(tree_of(TINY_ZWICKER), "cfr+")
    solver.run(50)
    save_policy(solver, tmp_path / "exact")
    agent = make_agent(f"cfr:policy={tmp_path}/exact", game, seed=1)
    for seed in range(20):
        play_game(game, [agent, make_agent("random", game)], seed)
    assert agent.stats["decisions"] >= 20 and agent.stats["fallbacks"] == 0  # exact: every set is known
    # a briefly trained MCCFR policy on a larger game falls back now and then, and says so
    big = pyspiel.load_game("zwikken(variant=parlett,players=3,tricks=2,ranks=AKQT,suits=CD)")
    m = MCCFRSolver(big, "outcome", seed=2)
    m.run(300)
    save_policy(m, tmp_path / "mc")
    agent = make_agent(f"mccfr:policy={tmp_path}/mc.npz", big, seed=3)
    recs = [play_game(big, [agent, make_agent("random", big), make_agent("random", big)], s) for s in range(10)]
    assert all(len(r.returns) == 3 for r in recs)
    assert 0 < agent.stats["fallbacks"] < agent.stats["decisions"]
    with pytest.raises(ValueError, match="is for zwikken"):
        make_agent(f"mccfr:policy={tmp_path}/mc", game)
    with pytest.raises(ValueError, match="fallback='magic' is not valid"):
        make_agent(f"mccfr:policy={tmp_path}/mc,fallback=magic", big)
    with pytest.raises(ValueError, match="give the policy file"):
        make_agent("mccfr", big)


def test_greedy_fallback_on_zwicker(tmp_path):
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    meta = {"game": str(game), "method": "mccfr", "key_scheme": "information_state_string", "iterations": 0}
    empty = {k: np.zeros(0, np.int64) for k in ("keys", "players", "counts", "actions")}
    write_files(tmp_path / "empty", "policy", meta, {**empty, "probs": np.zeros(0)})
    agent = make_agent(f"mccfr:policy={tmp_path}/empty,fallback=greedy", game, seed=4)
    greedy = make_agent("greedy", game, seed=4)
    for seed in range(3):
        state = deal(game, seed)
        agent.reset(seed)
        greedy.reset(seed)
        assert agent.act(state) == greedy.act(state)
    assert agent.stats == {"decisions": 3, "fallbacks": 3}


# ---- train API and CLI ------------------------------------------------------------------------------
def test_train_resumes_to_the_same_result(tmp_path):
    a = train(
        TINY_ZWIKKEN, "mccfr", 300, TrainOptions(seed=2, out=tmp_path / "a", eval_every=100, algorithm="external")
    )
    train(TINY_ZWIKKEN, "mccfr", 100, TrainOptions(seed=2, out=tmp_path / "b", eval_every=100, algorithm="external"))
    options = TrainOptions(seed=2, out=tmp_path / "b", eval_every=100, algorithm="external", resume=True)
    b = train(TINY_ZWIKKEN, "mccfr", 300, options)
    assert [c[3] for c in a.curve] == [c[3] for c in b.curve] and len(a.curve) == 3
    assert a.curve[0][2] == "nash_conv" and a.curve[-1][3] < a.curve[0][3]
    assert (tmp_path / "b" / "policy.json").read_text() == (tmp_path / "a" / "policy.json").read_text()
    with pytest.raises(ValueError, match="already holds a training run"):
        train(TINY_ZWIKKEN, "mccfr", 300, TrainOptions(seed=2, out=tmp_path / "a"))
    with pytest.raises(ValueError, match="same options"):
        train(TINY_ZWIKKEN, "mccfr", 400, TrainOptions(seed=3, out=tmp_path / "a", algorithm="external", resume=True))
    with pytest.raises(ValueError, match="unknown training method"):
        train(TINY_ZWIKKEN, "dqn", 3, TrainOptions(out=tmp_path / "c"))


def test_cli_train_writes_checkpoint_policy_csv_and_png(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "zwick_ai.cli", "train", "cfr", "--game", "kuhn_poker", "--iterations", "40"]
    cmd += ["--seed", "1", "--out", str(out), "--eval-every", "10"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for f in ("checkpoint.npz", "checkpoint.json", "policy.npz", "policy.json", "convergence.csv", "convergence.png"):
        assert (out / f).exists(), f
    rows = (out / "convergence.csv").read_text().splitlines()
    assert rows[0] == "iteration,seconds,metric,value" and len(rows) == 5
    bad = subprocess.run(
        cmd[:7] + ["--iterations", "5", "--out", str(out)], capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 2 and "already holds a training run" in bad.stderr
