"""``zwick train net --teacher peek|ismcts|expert``: the records' targets are the search's values of
every card move (peek-uct and ISMCTS on the mover's view, each cross-checked against the search run
directly), ``--init`` warm-starts the first fit, a search teacher's chunks resume, and a run folder
from before the teacher options resumes."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest
from numba import njit

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import value_model, zwicker_search
from zwick_ai.cli import main
from zwick_ai.learn import net_selfplay
from zwick_ai.zwicker import kernels, policy_codes
from zwick_ai.zwicker.features import CARD_BLOCK, NFEAT, after_input
from zwick_ai.zwicker.layout import KIND_ASK, M_KIND, PHASE_OVER, R_DECK_SIZE, S_PHASE, S_TO_MOVE

torch = pytest.importorskip("torch")
from zwick_ai.learn import net_train  # noqa: E402

GAME = "zwicker(variant=classic,players=2)"
ITERS, VISITS, C = 60, 3, 0.7


@njit(cache=False)
def _first_decision_search(R, seed, iters, c, total):
    """The first decision of hand ``seed`` searched as :func:`selfplay_search_targets` searches it
    (the same random stream): (the position, its moves, root visits, reward sums)."""
    W = kernels.new_workspace()
    S = kernels.new_hand(R, seed, W)
    net_selfplay.seed_hand_stream(seed)
    buf, Xb = kernels.new_buffers()
    n = kernels.gen_moves_ws(R, S, buf, W, Xb)
    if n < 0:
        buf, Xb, n = kernels.gen_moves(R, S, buf, W, Xb)
    rows = buf[:n].copy()
    tree = zwicker_search.new_tree(iters + 2)
    settings = zwicker_search.Settings(c, policy_codes.POLICY_RANDOM, False, total)
    zwicker_search.peek_search(R, S, iters, settings, tree, W)
    visits, qsum = zwicker_search.root_stats(S, rows, tree)
    return S, rows, visits, qsum


@pytest.mark.slow
def test_teacher_records_are_the_searchs_values_of_the_first_decisions_moves() -> None:
    """The first decision's records are, in move order, every card move the search visited at
    least ``VISITS`` times that does not end the hand: its afterstate's input, its lead and the
    search's mean value in points (the search run here directly on the same random stream)."""
    game = pyspiel.load_game(GAME)
    R = game.rules.array()
    total = float(game.rules.card_total)
    seed = next(s for s in range(20, 80) if len(_first_decision_search(R, s, ITERS, C, total)[1]) >= 3)
    settings = zwicker_search.Settings(C, policy_codes.POLICY_RANDOM, False, total)
    records = net_selfplay.selfplay_search_targets(
        R,
        np.array([seed], np.int64),
        policy_codes.POLICY_GREEDY,
        0.0,
        value_model.empty_model(),
        ITERS,
        settings,
        VISITS,
    )
    features, cards, lead, target, value, player, hand = records
    assert np.isnan(value).all() and (hand == 0).all()
    assert np.all(np.abs(target) <= total + 1e-6)
    S, rows, visits, qsum = _first_decision_search(R, seed, ITERS, C, total)
    deck = int(R[R_DECK_SIZE])
    x = np.zeros(NFEAT + CARD_BLOCK * deck)
    W = kernels.new_workspace()
    want = []
    for k in range(len(rows)):
        if rows[k, M_KIND] == KIND_ASK or visits[k] < VISITS:
            continue
        Sc = S.copy()
        kernels.apply_move(R, Sc, rows[k], W)
        if Sc[S_PHASE] == PHASE_OVER:
            continue
        after_input(R, S, Sc, int(S[S_TO_MOVE]), x)
        want.append((x[:NFEAT].astype(np.float32), x[NFEAT:].astype(np.uint8), qsum[k] / visits[k] * total))
    assert len(want) >= 2 and visits.sum() == ITERS
    for r, (f, c, t) in enumerate(want):
        assert np.array_equal(features[r], f) and np.array_equal(cards[r], c)
        assert target[r] == pytest.approx(t, rel=1e-5, abs=1e-4)
        assert player[r] == S[S_TO_MOVE]
    assert len(target) > len(want)  # later decisions are recorded too


def test_import_model_is_the_inverse_of_export(tmp_path) -> None:
    """An after model exported to the numba format and imported back computes the same values."""
    cfg = net_train.NetConfig(variant="classic", players=2, hidden=(16, 8))
    width = NFEAT + CARD_BLOCK * 52
    g = np.random.default_rng(0)
    model = net_train.build_model(cfg, g.normal(size=width), g.uniform(0.5, 2, size=width), 3.0)
    with torch.no_grad():
        for prm in model.parameters():
            prm.copy_(torch.as_tensor(g.normal(0, 0.3, size=tuple(prm.shape))))
    back = net_train.import_model(cfg, net_train.export_model(model, {"deck": 52}))
    x = torch.as_tensor(g.normal(size=(7, width)), dtype=torch.float32)
    with torch.no_grad():
        assert torch.allclose(model(x), back(x), atol=1e-4)
    with pytest.raises(ValueError, match="hidden layers"):
        net_train.import_model(net_train.NetConfig(hidden=(8, 8)), net_train.export_model(model, {"deck": 52}))


def test_a_teacher_run_warm_started_trains_and_an_older_folder_resumes(tmp_path) -> None:
    """A tiny ``--teacher peek --init`` run writes its shard, checkpoint and loss; a run folder whose
    config.json predates the teacher options is still taken as the same configuration."""
    base = dict(variant="classic", players=2, hands=20, hidden=(16, 8), epochs=2, eval_deals=0, seed=5)
    first = net_train.NetConfig(**base)  # type: ignore[arg-type]
    net_train.train_net(first, tmp_path / "plain", hours=1, max_generations=1)
    config = json.loads((tmp_path / "plain" / "config.json").read_text())
    for key in ("teacher", "teacher_iters", "teacher_visits", "teacher_rollout", "init"):
        config.pop(key)
    (tmp_path / "plain" / "config.json").write_text(json.dumps(config))
    assert net_train.train_net(first, tmp_path / "plain", hours=1, max_generations=1) == 1
    init = str(tmp_path / "plain" / "gen-000.npz")
    taught = net_train.NetConfig(**base, teacher="peek", teacher_iters=30, teacher_visits=2, init=init)  # type: ignore[arg-type]
    assert net_train.train_net(taught, tmp_path / "taught", hours=1, max_generations=1) == 1
    shard = net_selfplay.load_shard(tmp_path / "taught" / "shards" / "gen-000.npz")
    assert len(shard[0]) > 20 and np.isnan(shard[4]).all()
    assert (tmp_path / "taught" / "gen-000.npz").is_file()
    assert "heldout_mse" in (tmp_path / "taught" / "loss.csv").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["net", "--variant", "classic", "--hours", "1", "--init", "nowhere.npz"], "does not exist"),
        (
            ["net", "--variant", "classic", "--hours", "1", "--teacher", "ismcts", "--teacher-options", "prior=8"],
            "are expert parameters",
        ),
        (
            ["net", "--variant", "classic", "--hours", "1", "--teacher", "expert", "--teacher-options", "leaf=net"],
            "leaf='net' is not valid",
        ),
    ],
)
def test_bad_teacher_arguments_exit_2_in_one_line(tmp_path, capsys, argv, message) -> None:
    code = main(["train", *argv, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err.splitlines()
    err = [line for line in err if not line.startswith("zwick_ai: compiling")]  # a first run's word before compiling
    assert code == 2 and len(err) == 1 and message in err[0] and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["net", "--variant", "classic", "--hours", "1", "--teacher", "greedy"],
            "invalid choice: 'greedy' (choose from 'peek', 'ismcts', 'expert')",
        ),
        (
            ["value", "--variant", "classic", "--teacher", "peek"],
            "invalid choice: 'peek' (choose from 'greedy', 'ismcts', 'expert')",
        ),
        (
            ["ppo", "--variant", "dithmarschen", "--iterations", "1", "--hands", "5"],
            "unrecognized arguments: --hands 5",
        ),
    ],
)
def test_another_method_s_teacher_or_option_is_a_usage_error(tmp_path, capsys, argv, message) -> None:
    """Each training method lists its own teachers and options (argparse's usage error, status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(["train", *argv, "--out", str(tmp_path / "run")])
    assert stop.value.code == 2 and message in capsys.readouterr().err and not (tmp_path / "run").exists()


def test_a_teacher_on_the_movers_view_records_its_values_of_the_first_decisions_moves() -> None:
    """``search_teacher.after_records``: the first decision's records are, in move order, every card
    move ISMCTS (run here directly on the same random stream) tried at least ``VISITS`` times that
    does not end the hand, with its afterstate's input, lead and the search's mean value in points;
    the same seeds give the same records and the teacher's seed changes them."""
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.learn import search_teacher

    game = pyspiel.load_game(GAME)
    deal, seed = 11, 4
    records = search_teacher.after_records(GAME, np.array([deal]), "ismcts", ITERS, VISITS, 0.0, seed)
    features, cards, lead, target, value, player, hand = records
    assert np.isnan(value).all() and (hand == 0).all() and np.all(np.abs(target) <= game.rules.card_total)
    state = zwicker_bridge.state_from_seed(game, deal)
    assert not state.is_chance_node()  # the deal starts at a decision
    rng = np.random.default_rng([seed, deal])
    visits, mean, _ = search_teacher.teacher_search("ismcts", ITERS, game)(state, rng)
    decision = state.decision()
    S, rows, R = decision.position, decision.candidates, game.rules.array()
    x = np.zeros(NFEAT + CARD_BLOCK * int(R[R_DECK_SIZE]))
    W = kernels.new_workspace()
    want = []
    for k in range(len(rows)):
        if rows[k, M_KIND] == KIND_ASK or visits[k] < VISITS:
            continue
        after = S.copy()
        kernels.apply_move(R, after, rows[k], W)
        if after[S_PHASE] != PHASE_OVER:
            after_input(R, S, after, int(S[S_TO_MOVE]), x)
            want.append((x[:NFEAT].astype(np.float32), x[NFEAT:].astype(np.uint8), mean[k] * game.rules.card_total))
    assert len(want) >= 2 and visits.sum() == ITERS
    for r, (f, c, t) in enumerate(want):
        assert np.array_equal(features[r], f) and np.array_equal(cards[r], c)
        assert target[r] == pytest.approx(t, rel=1e-5, abs=1e-4) and player[r] == S[S_TO_MOVE]
    assert len(target) > len(want)  # later decisions are recorded too
    again = search_teacher.after_records(GAME, np.array([deal]), "ismcts", ITERS, VISITS, 0.0, seed)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(records, again, strict=True))
    other = search_teacher.after_records(GAME, np.array([deal]), "ismcts", ITERS, VISITS, 0.0, seed + 1)
    assert not np.array_equal(other[3][: len(target)], target[: len(other[3])])


def test_a_search_teachers_generation_keeps_its_chunks_and_resumes_from_them(tmp_path, monkeypatch) -> None:
    """Under ``--teacher ismcts`` a generation's chunks are saved as they finish and read back by a
    stopped run instead of played again; a whole tiny run trains and leaves only the shard."""
    cfg = net_train.NetConfig(
        variant="classic", players=2, hands=20, hidden=(16, 8), epochs=1, eval_deals=0, seed=3,
        teacher="ismcts", teacher_iters=20, teacher_visits=2,
    )  # fmt: skip
    keep = tmp_path / "chunks"
    first = net_train.play_generation(cfg, 0, "", keep=keep)
    assert sorted(p.name for p in keep.iterdir()) == ["chunk-0000.npz", "chunk-0001.npz"]

    def refuse(*_args: object) -> None:
        raise AssertionError("a kept chunk was played again")

    monkeypatch.setattr(net_train, "play_chunk", refuse)
    again = net_train.play_generation(cfg, 0, "", keep=keep)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, again, strict=True))
    monkeypatch.undo()
    assert net_train.train_net(cfg, tmp_path / "run", hours=1, max_generations=1) == 1
    shard = net_selfplay.load_shard(tmp_path / "run" / "shards" / "gen-000.npz")
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, shard, strict=True))
    assert not (tmp_path / "run" / "shards" / "gen-000.chunks").exists()


def test_the_expert_teachers_options_reach_its_search() -> None:
    """``teacher_options`` are the expert's own parameters: the teacher with ``leaf=after,prior=8``
    values the first decision's moves as ``expert:...,leaf=after,prior=8`` does on the same stream,
    and differently from the plain expert."""
    from zwick_ai.agents import expert
    from zwick_ai.agents.base import make_agent
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.learn import search_teacher

    game = pyspiel.load_game(GAME)
    deal, seed, options = 5, 2, "leaf=after,prior=8"
    state = zwicker_bridge.state_from_seed(game, deal)
    weight, mean, best = search_teacher.teacher_search("expert", ITERS, game, options)(
        state, np.random.default_rng([seed, deal])
    )
    agent = make_agent(f"expert:time=0,iters={ITERS},{options}", game)
    _, want_weight, want_mean, _ = expert.expert_root(state, agent.params, np.random.default_rng([seed, deal]), agent)
    assert np.array_equal(weight, want_weight) and np.array_equal(mean, want_mean)
    _, plain_mean, _ = search_teacher.teacher_search("expert", ITERS, game)(state, np.random.default_rng([seed, deal]))
    assert not np.array_equal(mean, plain_mean)
    with pytest.raises(ValueError, match="expert parameters"):
        search_teacher.teacher_search("ismcts", ITERS, game, options)


def test_a_search_teachers_next_generation_is_played_while_the_last_is_fitted(tmp_path, monkeypatch) -> None:
    """Pipelining: under a search teacher generation 1's hands start before generation 0's fit
    ends, and the run's shards are the records of each generation played on its own."""
    import threading

    cfg = net_train.NetConfig(
        variant="classic", players=2, hands=20, hidden=(8, 4), epochs=1, eval_deals=0, seed=3,
        teacher="ismcts", teacher_iters=10, teacher_visits=2,
    )  # fmt: skip
    second_started = threading.Event()
    fitted: list[int] = []
    play, fit = net_train.play_chunk, net_train.fit_generation

    def watched_play(cfg: net_train.NetConfig, seeds: np.ndarray, model_path: str) -> tuple[np.ndarray, ...]:
        if int(seeds[0]) - cfg.seed * net_train.SEED_STRIDE >= cfg.hands and not second_started.is_set():
            assert not fitted, "generation 1's first hands were played after generation 0's fit"
            second_started.set()
        return play(cfg, seeds, model_path)

    def watched_fit(cfg: net_train.NetConfig, run: net_train.NetRun, g: int) -> object:
        if g == 0:
            assert second_started.wait(120), "generation 1's hands did not start while generation 0 was fitted"
        fitted.append(g)
        return fit(cfg, run, g)

    monkeypatch.setattr(net_train, "play_chunk", watched_play)
    monkeypatch.setattr(net_train, "fit_generation", watched_fit)
    assert net_train.train_net(cfg, tmp_path / "run", hours=1, max_generations=2) == 2
    assert fitted == [0, 1]
    monkeypatch.undo()
    for g in (0, 1):
        alone = net_train.play_generation(cfg, g, "")
        shard = net_selfplay.load_shard(tmp_path / "run" / "shards" / f"gen-{g:03d}.npz")
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(alone, shard, strict=True))


def test_a_stopped_generation_keeps_its_chunks_and_resumes(tmp_path) -> None:
    """``play_generation(stop=...)`` gives up at the next chunk (the pipelined generation when the
    budget runs out or the run is stopped); its kept chunks are not played again."""
    import threading

    cfg = net_train.NetConfig(
        variant="classic", players=2, hands=30, hidden=(8, 4), epochs=1, eval_deals=0, seed=4,
        teacher="ismcts", teacher_iters=10, teacher_visits=2,
    )  # fmt: skip
    stop = threading.Event()
    stop.set()
    keep = tmp_path / "chunks"
    with pytest.raises(net_train.GenerationStopped, match="after 10 of 30 hands"):
        net_train.play_generation(cfg, 0, "", keep=keep, stop=stop)
    assert sorted(p.name for p in keep.iterdir()) == ["chunk-0000.npz"]
    resumed = net_train.play_generation(cfg, 0, "", keep=keep)
    assert all(
        np.array_equal(a, b, equal_nan=True)
        for a, b in zip(net_train.play_generation(cfg, 0, ""), resumed, strict=True)
    )


def test_the_scaling_runs_seeded_chunks_are_the_hands_a_larger_run_would_play(tmp_path) -> None:
    """``experiments/scaling/seed_chunks.py``: a finished 20-hand teacher run's shard, split into
    a 30-hand run's first chunks, gives that run the records it would have played itself."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "experiments" / "scaling" / "seed_chunks.py"
    spec = importlib.util.spec_from_file_location("seed_chunks", path)
    assert spec is not None and spec.loader is not None
    seed_chunks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed_chunks)
    small = net_train.NetConfig(
        variant="classic", players=2, hands=20, hidden=(8, 4), epochs=1, eval_deals=0, seed=6,
        teacher="ismcts", teacher_iters=10, teacher_visits=2,
    )  # fmt: skip
    assert net_train.train_net(small, tmp_path / "h20", hours=1, max_generations=1) == 1
    assert seed_chunks.seed_chunks(tmp_path / "h20", tmp_path / "h30", 30) == 2
    large = net_train.NetConfig(**{**small.__dict__, "hands": 30})
    keep = tmp_path / "h30" / "shards" / "gen-000.chunks"
    seeded = net_train.play_generation(large, 0, "", keep=keep)
    played = net_train.play_generation(large, 0, "")
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(seeded, played, strict=True))
    assert net_train.train_net(large, tmp_path / "h30", hours=1, max_generations=1) == 1  # the folder is the run's
