"""``zwick train net``: compiled self-play records, shards, the PyTorch move model and its numba
export, training in generations (loss falls, resume equals not stopping), the command line."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai.agents import net_selfplay as NS
from zwick_ai.agents import value_model as VM
from zwick_ai.agents.value_features import NFEAT
from zwick_ai.cli import main
from zwick_ai.zwicker import kernels as K

torch = pytest.importorskip("torch")
from zwick_ai.agents import net_train as NT  # noqa: E402

TINY = dict(variant="classic", players=2, hands=60, hidden=(16, 8), epochs=3, eval_deals=0, seed=3)


def _greedy_records(seeds: np.ndarray) -> tuple[np.ndarray, ...]:
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    return NS.selfplay_decisions(game.rules.array(), seeds, VM.POLICY_GREEDY, 0.2, NT.unused_model_arrays())


def test_records_are_the_chosen_moves_and_the_hands_outcome():
    """One record per decision with two or more card moves; each record's outcome is its mover's
    final difference (in the 2-player game the two seats' are opposite); the input is the chosen
    candidate's features relative to the decision's mean, then that mean (recomputed here)."""
    seeds = np.array([11, 12], np.int64)
    X, outcome, hand = _greedy_records(seeds)
    assert X.shape == (len(outcome), 2 * NFEAT) and set(hand) == {0, 1}
    for h in (0, 1):
        values = np.unique(np.round(outcome[hand == h], 4))
        assert len(values) == 2 and abs(values.sum()) < 1e-3  # both seats decide in every hand
    # the first record is one candidate's input at the hand's first decision
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    R = game.rules.array()
    X1, _, _ = NS.selfplay_decisions(R, seeds[:1], VM.POLICY_GREEDY, 0.0, NT.unused_model_arrays())
    W = K.new_workspace()
    S = K.new_hand(R, seeds[0], W)
    rows = K.legal_moves(R, S, W)
    n = len(rows)
    F = np.zeros((n, NFEAT))
    ok = VM.candidate_features(R, S, rows, n, W, F)
    assert ok.sum() >= 2  # the first decision of a classic hand has several card moves
    x = np.zeros(2 * NFEAT)
    inputs = []
    for k in np.flatnonzero(ok):
        VM.move_input(F, ok, k, x)
        inputs.append(x.astype(np.float32).copy())
    assert any(np.array_equal(X1[0], i) for i in inputs)
    assert np.allclose(X1[0][NFEAT:], F[ok].mean(axis=0), atol=1e-3)


def test_shards_round_trip(tmp_path):
    X, outcome, hand = _greedy_records(np.array([5], np.int64))
    NS.save_shard(tmp_path / "s.npz", X, outcome, hand)
    back = NS.load_shard(tmp_path / "s.npz")
    for a, b in zip((X, outcome, hand), back, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_compiled_forward_equals_torch():
    cfg = NT.NetConfig(**TINY)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = NT.build_model(cfg, rng.normal(size=2 * NFEAT), rng.uniform(0.5, 2, 2 * NFEAT), 7.5)
    exported = NT.export_model(model, {})
    X = rng.normal(size=(50, 2 * NFEAT)) * 3
    with torch.no_grad():
        trained = model(torch.as_tensor(X)).numpy()  # float32 layers, as trained
        exact = model.double()(torch.as_tensor(X)).numpy()  # the same weights in float64
    got = exported.predict(X)
    assert np.allclose(got, exact, atol=1e-9, rtol=1e-9)
    assert np.allclose(got, trained, atol=1e-4, rtol=1e-4)
    assert np.std(exact) > 0.01  # a real, non-constant comparison


def test_training_lowers_the_heldout_loss_and_net_plays_it(tmp_path):
    cfg = NT.NetConfig(**TINY)  # type: ignore[arg-type]
    assert NT.train_net(cfg, tmp_path, hours=1, max_generations=2) == 2
    rows = NT.read_rows(tmp_path / "loss.csv")
    assert [int(r["generation"]) for r in rows] == [0, 1]
    for r in rows:  # below always predicting the held-out mean
        assert float(r["heldout_mse"]) < float(r["heldout_var"])
    assert (tmp_path / "loss.png").exists()
    from zwick_ai.agents.base import make_agent
    from zwick_ai.games import zwicker_bridge

    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    agent = make_agent(f"net:model={tmp_path / 'gen-001.npz'}", game, seed=1)
    state = zwicker_bridge.state_from_seed(game, 4)
    rows, values = agent.values(state)
    best = {tuple(zwicker_bridge.move_actions(state, rows[k])) for k in np.flatnonzero(values >= values.max() - VM.TIE)}
    assert tuple(agent.act(state)) in best  # it plays the exported model's best move
    payload = torch.load(tmp_path / "gen-001.pt", weights_only=True)
    assert set(payload["model"]) >= {"hidden1.weight", "output.bias", "mean"}


def test_resume_gives_the_same_checkpoint_as_not_stopping(tmp_path):
    cfg = NT.NetConfig(**TINY)  # type: ignore[arg-type]
    NT.train_net(cfg, tmp_path / "whole", hours=1, max_generations=2)
    NT.train_net(cfg, tmp_path / "stopped", hours=1, max_generations=1)
    (tmp_path / "stopped" / "gen-000.npz").unlink()  # stopped again after the shard, before the export
    (tmp_path / "stopped" / "gen-000.pt").unlink()
    NT.train_net(cfg, tmp_path / "stopped", hours=1, max_generations=2)
    for g in (0, 1):
        a = torch.load(tmp_path / "whole" / f"gen-{g:03d}.pt", weights_only=True)["model"]
        b = torch.load(tmp_path / "stopped" / f"gen-{g:03d}.pt", weights_only=True)["model"]
        assert all(torch.equal(a[k], b[k]) for k in a)
    other = NT.NetConfig(**{**TINY, "hands": 80})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="another configuration"):
        NT.train_net(other, tmp_path / "whole", hours=1, max_generations=3)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "nope", "--hours", "1"], "needs --variant"),
        (["--variant", "classic", "--players", "2"], "needs --hours"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "--hidden", "8"], "two positive layer sizes"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "--hands", "3"], "hands must be at least"),
    ],
)
def test_bad_train_net_arguments_exit_2_in_one_line(tmp_path, capsys, argv, message):
    code = main(["train", "net", *argv, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
