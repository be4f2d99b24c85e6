"""No file a user passes or a run folder holds runs code, and a model never plays a game it does not
fit: pickled payloads are never loaded (a training checkpoint, a PPO zip), and models trained for
another deck, variant or player count are refused in one line before compiled code reads them."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import signal
import zipfile
from pathlib import Path

import numpy as np
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "zwick_ai"


class Payload:
    """Unpickling this writes ``marker``: proof that a loader ran the file's code."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code ran"))


def test_the_package_loads_nothing_that_can_hold_code():
    """No pickle/cloudpickle/marshal load, no torch.load without weights_only, no allow_pickle=True
    on a load, no eval/exec in the package."""
    bad = re.compile(
        r"pickle\.loads?\(|cloudpickle|marshal\.loads?\(|(?<![.\w])(eval|exec)\("
        r"|np\.load\(.*allow_pickle=True|PPO\.load\("
    )
    found = []
    for path in PACKAGE.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if bad.search(code) or ("torch.load(" in code and "weights_only=True" not in code):
                found.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_a_pickled_training_checkpoint_is_never_loaded(tmp_path):
    """A crafted checkpoint where the old format kept one (``move-checkpoint.pkl``) and one in the
    checkpoint's own name that holds a pickled object: the first is ignored, the second refused in
    one line; neither runs its code."""
    pytest.importorskip("sklearn")
    from zwick_ai.learn.value_train import ValueConfig, train_value

    cfg = ValueConfig("classic", 2, hands=20, epochs=1, hidden=(4, 3), batch=64)
    run = tmp_path / "run"
    run.mkdir()
    marker = tmp_path / "ran"
    (run / "move-checkpoint.pkl").write_bytes(pickle.dumps({"net": Payload(marker)}))
    (run / "value-checkpoint.npz").write_bytes(_npz(record=np.array([Payload(marker)], dtype=object)))
    with pytest.raises(ValueError, match=r"value-checkpoint\.npz is not a readable checkpoint"):
        train_value(cfg, run)
    assert not marker.exists()
    assert (run / "move.npz").is_file()  # the move model was fitted afresh past the old file
    (run / "value-checkpoint.npz").unlink()
    train_value(cfg, run)
    assert not marker.exists() and (run / "value.npz").is_file()


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=True, **arrays)
    return buf.getvalue()


def test_a_stop_signal_inside_scikit_learn_stops_the_fit(tmp_path, monkeypatch):
    """scikit-learn catches KeyboardInterrupt inside partial_fit; a SIGINT that arrives there
    still stops the run (after the piece), and the same command then gives the uninterrupted models."""
    pytest.importorskip("sklearn")
    from sklearn.neural_network import MLPRegressor

    from zwick_ai.learn.value_train import ValueConfig, train_value

    cfg = ValueConfig("classic", 2, hands=20, epochs=3, hidden=(4, 3), batch=64)
    whole = train_value(cfg, tmp_path / "whole")
    calls = {"n": 0}
    backprop = MLPRegressor._backprop

    def interrupted(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            os.kill(os.getpid(), signal.SIGINT)  # arrives inside scikit-learn's try block
        return backprop(self, *args, **kwargs)

    monkeypatch.setattr(MLPRegressor, "_backprop", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_value(cfg, tmp_path / "stopped")
    monkeypatch.setattr(MLPRegressor, "_backprop", backprop)
    assert not (tmp_path / "stopped" / "move.npz").exists()
    resumed = train_value(cfg, tmp_path / "stopped")
    for kind in whole:
        for a, b in zip(whole[kind].arrays(), resumed[kind].arrays(), strict=True):
            np.testing.assert_array_equal(a, b)


def _ppo_zip(path: Path, marker: Path, evil_weights: bool) -> None:
    """A MaskablePPO-style zip: ``data`` JSON whose spaces hold a pickled payload (as
    Stable-Baselines3 stores objects), and ``policy.pth`` weights (or a pickled payload)."""
    torch = pytest.importorskip("torch")
    serialized = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = {
        "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": serialized},
        "policy_kwargs": {},
        "observation_space": {
            ":type:": "<class 'gymnasium.spaces.box.Box'>",
            ":serialized:": serialized,
            "_shape": "[6]",
        },
        "action_space": {
            ":type:": "<class 'gymnasium.spaces.discrete.Discrete'>",
            ":serialized:": serialized,
            "n": "3",
        },
    }
    weights = io.BytesIO()
    if evil_weights:
        weights.write(pickle.dumps(Payload(marker)))
    else:
        state = {
            "mlp_extractor.policy_net.0.weight": torch.zeros(4, 6),
            "mlp_extractor.policy_net.0.bias": torch.zeros(4),
            "action_net.weight": torch.zeros(3, 4),
            "action_net.bias": torch.zeros(3),
        }
        torch.save(state, weights)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", weights.getvalue())
        z.writestr("_stable_baselines3_version", "2.9.2")


@pytest.mark.parametrize("evil_weights", [False, True])
def test_a_ppo_zip_with_a_payload_runs_nothing(tmp_path, evil_weights):
    """Stable-Baselines3's own loader would unpickle the payload (checked first, so the payload is
    real); the ppo agent reads only JSON and plain tensors: it refuses the file or plays, and the
    payload never runs."""
    pytest.importorskip("sb3_contrib")
    import pyspiel

    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent

    path, marker = tmp_path / "evil.zip", tmp_path / "ran"
    _ppo_zip(path, marker, evil_weights)
    from stable_baselines3.common.save_util import json_to_data

    with zipfile.ZipFile(path) as z:
        json_to_data(z.read("data").decode())  # what MaskablePPO.load does with the data
    assert marker.exists()
    marker.unlink()
    game = pyspiel.load_game("zwikken(players=3,variant=parlett)")
    with pytest.raises(ValueError, match="evil.zip"):
        make_agent(f"ppo:policy={path}", game)  # refused: its weights do not fit this game, or are not plain
    assert not marker.exists()


BOARDS = [
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=classic,players=4)",
    "zwicker(variant=grupp,players=4)",
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=christiansen,players=3)",
]


@pytest.mark.parametrize("board", BOARDS)
def test_every_shipped_model_plays_its_game_and_is_refused_elsewhere(board):
    """Each shipped weights file, named as ``net:model=PATH`` on each board: the move and after
    models of the board play a decision, every other file is refused in one line naming it (a
    value model is no move model); no abort, whatever the deck."""
    import pyspiel

    import zwick_ai.games  # noqa: F401
    from zwick_ai.agents import make_agent
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.mlp import WEIGHTS_DIR

    game = pyspiel.load_game(board)
    rules = game.rules
    state = zwicker_bridge.state_from_seed(game, 1)
    for path in sorted(WEIGHTS_DIR.glob("*.npz")):
        variant, players, kind = path.stem.split("-")
        fits = (variant, int(players[:-1])) == (rules.variant, rules.players)
        if fits and kind != "value":
            actions = make_agent(f"net:model={path}", game).act(state.clone())
            assert actions and all(a in range(game.num_distinct_actions()) for a in actions)
            continue
        with pytest.raises(ValueError) as refused:
            make_agent(f"net:model={path}", game)
        message = str(refused.value)
        assert str(path) in message and "\n" not in message
        assert ("is a value model" in message) if kind == "value" else ("does not fit this game" in message)


def test_a_model_for_another_deck_is_refused_before_training(tmp_path):
    """``zwick train net --init`` with the classic 2p after model for Dithmarschen: one line, before
    any self-play reads it."""
    pytest.importorskip("torch")
    from zwick_ai.learn.net_train import NetConfig
    from zwick_ai.mlp import WEIGHTS_DIR

    cfg = NetConfig(variant="dithmarschen", players=4, init=str(WEIGHTS_DIR / "classic-2p-after.npz"))
    with pytest.raises(
        ValueError,
        match="does not fit this game: trained for classic with 2 players and 52 cards, not for dithmarschen",
    ):
        cfg.check()
    NetConfig(variant="classic", players=2, init=str(WEIGHTS_DIR / "classic-2p-after.npz")).check()


def test_compiled_code_refuses_an_input_buffer_of_another_deck():
    """The after input kernel checks its buffer against the game's deck: a model of 52 cards in a
    game of 55 raises instead of writing past the buffer."""
    import pyspiel

    import zwick_ai.games  # noqa: F401
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.zwicker.features import CARD_BLOCK, NFEAT, after_input

    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 2)
    R, S = game.rules.array(), state.engine_state().arr
    after_input(R, S, S, 0, np.zeros(NFEAT + CARD_BLOCK * 55))
    with pytest.raises(ValueError, match="do not fit this game's deck"):
        after_input(R, S, S, 0, np.zeros(NFEAT + CARD_BLOCK * 52))


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda a: a.update(W1=a["W1"][:-3]), "layer 1 of shape"),
        (lambda a: a.update(b2=a["b2"][:1]), "layer 2 of shape"),
        (lambda a: a.update(W3=np.zeros((a["W3"].shape[0], 2))), "layer 3 of shape"),
        (lambda a: a.update(scale=np.zeros_like(a["scale"])), "weights that are not finite, or a scale"),
        (lambda a: a.update(mean=a["mean"].astype(np.int64)), "arrays that are not floating point"),
    ],
)
def test_a_model_file_whose_arrays_do_not_chain_is_refused(tmp_path, change, problem):
    """Weights files are checked before compiled code reads them: arrays that do not chain (the
    forward pass would read past them), non-floats, zero scales."""
    from zwick_ai.mlp import ARRAY_NAMES, WEIGHTS_DIR, read_model

    with np.load(WEIGHTS_DIR / "classic-2p-move.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in (*ARRAY_NAMES, "meta")}
    read_model(WEIGHTS_DIR / "classic-2p-move.npz")
    change(arrays)
    path = tmp_path / "broken.npz"
    np.savez(path, allow_pickle=False, **arrays)
    with pytest.raises(ValueError, match=f"broken.npz is not a usable value model: {problem}"):
        read_model(path)


def test_a_damaged_generation_file_is_one_line_naming_it(tmp_path):
    """A truncated ``gen-NNN.pt`` and one that holds a pickled payload: a ValueError naming the
    file, and the payload never runs."""
    torch = pytest.importorskip("torch")
    from zwick_ai.learn.net_train import load_weights

    good = tmp_path / "gen-000.pt"
    torch.save({"model": {"w": torch.zeros(3)}}, good)
    assert set(load_weights(good)) == {"w"}
    cut = tmp_path / "gen-001.pt"
    cut.write_bytes(good.read_bytes()[:-40])
    marker = tmp_path / "ran"
    evil = tmp_path / "gen-002.pt"
    evil.write_bytes(pickle.dumps({"model": Payload(marker)}))
    for path in (cut, evil):
        with pytest.raises(ValueError, match=f"{path.name} is damaged or not a generation") as refused:
            load_weights(path)
        assert "\n" not in str(refused.value)
    assert not marker.exists()
