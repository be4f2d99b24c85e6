"""``zwick train net``: compiled self-play records, shards, the PyTorch after model and its numba
export, training in generations (loss falls, resume equals not stopping), the command line."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai.agents import value_model as VM
from zwick_ai.cli import main
from zwick_ai.eval.orchestrate import duel
from zwick_ai.learn import model_files
from zwick_ai.learn import net_selfplay as NS
from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker import policy_codes
from zwick_ai.zwicker.features import C_MINE, CARD_BLOCK, F_HAND_N, F_LEAD, F_ZWICK, NFEAT, after_input
from zwick_ai.zwicker.layout import PHASE_OVER, R_DECK_SIZE, S_PHASE, S_TO_MOVE

torch = pytest.importorskip("torch")
from zwick_ai.learn import net_train as NT  # noqa: E402

TINY = dict(variant="classic", players=2, hands=60, hidden=(16, 8), epochs=3, eval_deals=0, seed=3)


def _greedy_records(seeds: np.ndarray, eps: float = 0.2) -> tuple[np.ndarray, ...]:
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    return NS.selfplay_afterstates(game.rules.array(), seeds, policy_codes.POLICY_GREEDY, eps, VM.empty_model())


def test_records_are_afterstates_with_their_lead_and_the_hands_outcome():
    """One record per card move that does not end the hand; its lead is the features' lead plus
    Zwicks; its final difference is its mover's side's (in the 2-player game the two seats' are
    opposite); its card-level view counts the hand's cards; the first record is the input of one
    of the first decision's moves (recomputed here)."""
    seeds = np.array([11, 12], np.int64)
    features, cards, lead, final, value, player, hand = _greedy_records(seeds)
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    R = game.rules.array()
    deck = int(R[R_DECK_SIZE])
    assert features.shape == (len(final), NFEAT) and cards.shape == (len(final), CARD_BLOCK * deck)
    assert set(hand) == {0, 1} and cards.dtype == np.uint8 and set(player) == {0, 1}
    assert np.isnan(value).all()  # greedy has no value of its own
    assert np.allclose(lead, features[:, F_LEAD] + features[:, F_ZWICK])
    assert np.array_equal(cards.reshape(len(final), deck, CARD_BLOCK)[:, :, C_MINE].sum(axis=1), features[:, F_HAND_N])
    for h in (0, 1):
        values = np.unique(np.round(final[hand == h], 4))
        assert len(values) == 2 and abs(values.sum()) < 1e-3  # both seats move in every hand
    first = _greedy_records(seeds[:1], eps=0.0)
    W = K.new_workspace()
    S = K.new_hand(R, seeds[0], W)
    rows = K.legal_moves(R, S, W)
    x = np.zeros(NFEAT + CARD_BLOCK * deck)
    inputs = []
    for row in rows:
        Sc = S.copy()
        K.apply_move(R, Sc, row, W)
        after_input(R, S, Sc, int(S[S_TO_MOVE]), x)
        inputs.append((x[:NFEAT].astype(np.float32), x[NFEAT:].astype(np.uint8)))
    assert len(inputs) >= 2
    assert any(np.array_equal(first[0][0], f) and np.array_equal(first[1][0], c) for f, c in inputs)


def test_shards_round_trip(tmp_path):
    records = _greedy_records(np.array([5], np.int64))
    NS.save_shard(tmp_path / "s.npz", records)
    back = NS.load_shard(tmp_path / "s.npz")
    assert len(back) == len(NS.SHARD_FIELDS)
    for a, b in zip(records, back, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def test_compiled_forward_equals_torch():
    cfg = NT.NetConfig(**TINY)  # type: ignore[arg-type]
    n = NFEAT + CARD_BLOCK * 10
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    model = NT.build_model(cfg, rng.normal(size=n), rng.uniform(0.5, 2, n), 7.5)
    exported = NT.export_model(model, {"deck": 10})
    X = rng.normal(size=(50, n)) * 3
    X[:, NFEAT:] = rng.integers(0, 2, size=(50, n - NFEAT))  # the 0/1 card inputs (the forward skips zeros)
    with torch.no_grad():
        trained = model(torch.as_tensor(X, dtype=torch.float32)).numpy()  # float32, as trained
        exact = model.double()(torch.as_tensor(X)).numpy()  # the same weights in float64
    got = exported.predict(X)
    assert np.allclose(got, exact, atol=1e-9, rtol=1e-9)
    assert np.allclose(got, trained, atol=1e-3, rtol=1e-4)
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
    # each move's value, recomputed: the exact lead after it plus the exported model's prediction
    model = VM.load_model(tmp_path / "gen-001.npz")
    R = game.rules.array()
    S = state.engine_state().arr
    W = K.new_workspace()
    x = np.zeros(len(model.mean))
    for k, row in enumerate(rows):
        Sc = S.copy()
        K.apply_move(R, Sc, row, W)
        if Sc[S_PHASE] != PHASE_OVER:
            after_input(R, S, Sc, int(S[S_TO_MOVE]), x)
            assert values[k] == pytest.approx(x[F_LEAD] + x[F_ZWICK] + model.predict(x[None])[0], abs=1e-9)
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


def test_averaged_generations_are_exported_with_their_strength(tmp_path):
    """``average=2`` on a finished run (resumed with one generation more) writes the mean of the
    last two generations' weights for every generation from the second on, measures it on the
    strength curve's deals, and a model from another run's standardization is refused."""
    cfg = NT.NetConfig(**{**TINY, "eval_deals": 2})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need a duel"):
        NT.train_net(cfg, tmp_path, hours=1, max_generations=2)
    assert not tmp_path.joinpath("config.json").exists()  # refused before the folder is claimed
    NT.train_net(cfg, tmp_path, hours=1, max_generations=2, duel=duel)
    assert not list(tmp_path.glob("avg*"))
    NT.train_net(cfg, tmp_path, hours=1, max_generations=3, average=2, duel=duel)
    for g in (1, 2):
        avg = VM.load_model(tmp_path / f"avg2-{g:03d}.npz")
        pair = [VM.load_model(tmp_path / f"gen-{h:03d}.npz") for h in (g - 1, g)]
        for k in range(3):
            for j in range(2):
                assert np.allclose(avg.layers[k][j], (pair[0].layers[k][j] + pair[1].layers[k][j]) / 2)
        assert not np.allclose(avg.layers[0][0], pair[1].layers[0][0])
        assert avg.meta["averaged_generations"] == [g - 1, g]
    assert not (tmp_path / "avg2-000.npz").exists()
    rows = NT.read_rows(tmp_path / "strength.csv")
    assert [(r["generation"], r["weights"]) for r in rows] == [
        ("0", "generation"), ("1", "generation"), ("2", "generation"), ("1", "average of 2"), ("2", "average of 2"),
    ]  # fmt: skip
    other = VM.ValueModel(avg.mean + 1.0, avg.scale, avg.layers, avg.meta)
    with pytest.raises(ValueError, match="standardize"):
        model_files.average_models([avg, other], avg.meta)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "nope", "--hours", "1"], "needs --variant"),
        (["--variant", "classic", "--players", "2"], "needs --hours"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "--hidden", "8"], "two positive layer sizes"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "--hands", "3"], "hands must be at least"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "-o", "nope=1"], "unknown option 'nope'"),
        (["--variant", "classic", "--players", "2", "--hours", "1", "-o", "players=3"], "with --variant and --players"),
    ],
)
def test_bad_train_net_arguments_exit_2_in_one_line(tmp_path, capsys, argv, message):
    code = main(["train", "net", *argv, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def _slow_lambda_returns(final, value, player, hand, lam):
    """The lambda-returns written out: for each record, the same player's later records in its hand."""
    out = np.zeros(len(final))
    for r in range(len(final)):
        later = [t for t in range(r + 1, len(final)) if hand[t] == hand[r] and player[t] == player[r]]
        # G_r = sum over later records k of (1 - lam) lam^(k-1) v_k, the rest of the weight on the final
        g, weight = 0.0, 1.0
        for t in later:
            if np.isnan(value[t]):
                continue
            g += weight * (1 - lam) * value[t]
            weight *= lam
        out[r] = g + weight * final[r]
    return out


@pytest.mark.parametrize("lam", [0.0, 0.6, 1.0])
def test_lambda_returns_equal_their_definition(lam):
    rng = np.random.default_rng(1)
    n = 40
    hand = np.sort(rng.integers(0, 3, n)).astype(np.int32)
    player = rng.integers(0, 4, n).astype(np.int32)
    final = rng.normal(size=n).astype(np.float32)
    for h in range(3):  # one final per hand and player
        for p in range(4):
            sel = (hand == h) & (player == p)
            final[sel] = final[sel][0] if sel.any() else 0
    value = rng.normal(size=n).astype(np.float32)
    value[::7] = np.nan  # a record of greedy play is skipped
    got = NS.lambda_returns(final, value, player, hand, lam)
    assert np.allclose(got, _slow_lambda_returns(final, value, player, hand, lam), atol=1e-5)
    if lam == 1.0:
        assert np.allclose(got, final)


def test_net_model_after_plays_the_shipped_after_model():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    from zwick_ai.agents.base import make_agent

    shipped = VM.load_model(VM.shipped_model_path("dithmarschen", 4, VM.AFTER))
    agent = make_agent("net:model=after", game, seed=0)
    assert agent.identity()["models"] == {VM.AFTER: shipped.digest()}
    assert make_agent("net", game).identity()["models"].keys() == {"move"}  # the default is unchanged
    with pytest.raises(ValueError, match="no trained value model"):
        make_agent("net:model=after", pyspiel.load_game("zwicker(variant=classic,players=3)"))


MICRO = "ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1"


def test_a_net_for_a_micro_deck_trains_plays_that_game_and_is_refused_elsewhere(tmp_path):
    """``options`` (``-o``) train the after model on a micro deck: the records are that game's,
    the model file names it (its game string and 6 cards), ``net:model=`` plays it there and the
    full deck's game refuses it in one line."""
    from zwick_ai.agents.base import make_agent

    cfg = NT.NetConfig(variant="dithmarschen", players=2, options=MICRO, hands=40, hidden=(8, 4), epochs=1,
                       eval_deals=4, seed=2)  # fmt: skip
    game = pyspiel.load_game(cfg.game_string())
    assert game.rules.deck_size == 6 and "ranks=A23" in cfg.game_string()
    assert NT.train_net(cfg, tmp_path / "run", hours=1, max_generations=1, duel=duel) == 1
    features, cards, *_ = NS.load_shard(tmp_path / "run" / "shards" / "gen-000.npz")
    assert cards.shape[1] == CARD_BLOCK * 6 and len(features) > 0
    model = VM.load_model(tmp_path / "run" / "gen-000.npz")
    assert model.meta["deck_size"] == 6 and model.meta["game"] == cfg.game_string()
    agent = make_agent(f"net:model={tmp_path / 'run' / 'gen-000.npz'}", game)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert agent.act(state)[0] in state.legal_actions()
    with pytest.raises(ValueError, match="does not fit this game"):
        make_agent(
            f"net:model={tmp_path / 'run' / 'gen-000.npz'}",
            pyspiel.load_game("zwicker(variant=dithmarschen,players=2)"),
        )
    assert "greedy" in (tmp_path / "run" / "strength.csv").read_text()
