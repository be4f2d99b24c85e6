"""OpenSpiel's own Deep CFR, NFSP and DQN on a micro Zwicker game: the runs resume to the same
networks, the numpy forward pass of ``openspiel-net`` equals OpenSpiel's PyTorch policy, and the
agent's exact whole-move probabilities are what it samples."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import numpy as np
import pyspiel
import pytest

pytest.importorskip("torch")
pytest.importorskip("tree")  # dm-tree: OpenSpiel's PyTorch modules import it

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai.agents.base import make_agent
from zwick_ai.agents.openspiel_net import load_model
from zwick_ai.agents.openspiel_policy import player_nodes
from zwick_ai.learn.openspiel_nets import _DQN, STOP_WAIT, NetTraining, _DeepCFR, _load_checkpoint, train_net

MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"


def small(algorithm: str, iterations: int, every: int) -> NetTraining:
    return NetTraining(MICRO, algorithm, iterations, every, hidden=(16,), batch=32, traversals=4, train_steps=4,
                       memory=1000, seed=1)  # fmt: skip


@pytest.mark.parametrize(
    ("algorithm", "iterations"),
    [("deep-cfr", 4), pytest.param("nfsp", 200, marks=pytest.mark.slow), ("dqn", 80)],
)
def test_a_stopped_run_resumes_to_the_same_networks(tmp_path, algorithm, iterations):
    whole = train_net(small(algorithm, iterations, iterations // 2), tmp_path / "a", say=lambda text: None)
    train_net(small(algorithm, iterations // 2, iterations // 2), tmp_path / "b", say=lambda text: None)
    resumed = train_net(
        small(algorithm, iterations, iterations // 2), tmp_path / "b", resume=True, say=lambda text: None
    )
    a, b = np.load(whole.with_suffix(".npz")), np.load(resumed.with_suffix(".npz"))
    assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)
    assert load_model(whole).meta["iterations"] == iterations
    with pytest.raises(ValueError, match="already holds a training run"):
        train_net(small(algorithm, iterations, iterations // 2), tmp_path / "a", say=lambda text: None)
    with pytest.raises(ValueError, match="other options"):
        train_net(small(algorithm, iterations + 1, 1), tmp_path / "a", resume=True, say=lambda text: None)


class _Stopped(Exception):
    """What the test's SIGTERM handler raises (as ``zwick``'s raises its interrupt)."""


def _raise_stopped(signum: int, frame: object) -> None:
    raise _Stopped


@pytest.mark.parametrize("algorithm", ["deep-cfr", "nfsp", "dqn"])
def test_a_stop_signal_ends_a_run_at_once_with_a_checkpoint_it_resumes_from(tmp_path, algorithm):
    """SIGTERM a second into a long run: the run stops within ``STOP_WAIT`` seconds and a little,
    through the handler that was in place, with a checkpoint after its last whole iteration
    (between snapshots), and ``resume`` continues it to the networks of a run never stopped."""
    quiet = lambda text: None  # noqa: E731
    train_net(small(algorithm, 2, 2), tmp_path / "warm", say=quiet)  # the game's kernels compiled
    sent: list[float] = []

    def kill() -> None:
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGTERM)

    said: list[str] = []
    previous = signal.signal(signal.SIGTERM, _raise_stopped)
    try:
        threading.Timer(1.0, kill).start()
        with pytest.raises(_Stopped):
            train_net(small(algorithm, 10**6, 10**6), tmp_path / "b", say=said.append)
        stopped = time.monotonic()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped - sent[0] < STOP_WAIT + 0.5
    done = int(_load_checkpoint(tmp_path / "b")["done"])
    assert done >= 2 and said[-1] == f"stopped after {done} iterations: checkpoint written"
    assert not (tmp_path / "b" / "model.npz").exists()  # no snapshot: the checkpoint alone was written
    resumed = train_net(small(algorithm, done + 3, 10**6), tmp_path / "b", resume=True, say=quiet)
    whole = train_net(small(algorithm, done + 3, 10**6), tmp_path / "a", say=quiet)
    a, b = np.load(whole.with_suffix(".npz")), np.load(resumed.with_suffix(".npz"))
    assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)


def test_zwick_train_nfsp_stopped_by_sigterm_says_to_resume(tmp_path):
    """``kill PID`` of a running ``zwick train nfsp``: it exits within seconds with 143 and
    the one line that says how to continue; with --resume it then finishes the run."""
    from zwick_ai.cli import main

    argv = ["train", "nfsp", "--game", MICRO, "--iterations", "100000", "--eval-every", "100000", "--hidden", "16",
            "--batch", "32", "--memory", "1000", "--out", str(tmp_path / "n")]  # fmt: skip
    assert main([*argv[:4], "--iterations", "2", *argv[6:-1], str(tmp_path / "warm")]) == 0  # compiled
    run = subprocess.Popen([sys.executable, "-m", "zwick_ai.cli", *argv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # fmt: skip
    began = time.monotonic()
    while not (tmp_path / "n" / "config.json").exists():  # started: torch and OpenSpiel imported
        assert run.poll() is None and time.monotonic() - began < 300
        time.sleep(0.1)
    time.sleep(2.0)  # playing episodes
    run.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    _, err = run.communicate(timeout=60)
    # the loop stops within STOP_WAIT (the test above); here the checkpoint and the interpreter's
    # exit (torch, numba) come on top: the house's bound for a stopped command
    assert time.monotonic() - sent < 10 and run.returncode == 143
    assert "interrupted; the same command with --resume continues it" in err and "Traceback" not in err
    done = int(_load_checkpoint(tmp_path / "n")["done"])
    assert done >= 2 and main([*argv[:4], "--iterations", str(done + 2), *argv[6:], "--resume"]) == 0


def test_the_numpy_network_plays_deep_cfrs_own_policy(tmp_path):
    """Deep CFR's own action_probabilities (PyTorch, LayerNorm and softmax) renormalised over the
    legal actions equal the model file's numpy forward pass at every decision node."""
    import torch

    from zwick_ai.learn.openspiel_nets import write_model

    game = pyspiel.load_game(MICRO)
    cfg = small("deep-cfr", 2, 1)
    np.random.seed(0)  # noqa: NPY002
    torch.manual_seed(0)
    run = _DeepCFR(game, cfg)
    run.iterate(lambda: None)
    nets, _ = run.policy_nets()
    write_model(tmp_path / "m", cfg, nets, game, 1)
    model = load_model(tmp_path / "m")
    checked = 0
    for state in player_nodes(game):
        theirs = run.solver.action_probabilities(state)
        legal, ours = model.probabilities(state, state.current_player())
        want = np.array([theirs[a] for a in legal], np.float64)
        assert np.allclose(ours, want / want.sum(), atol=1e-5)
        checked += 1
    assert checked > 100


def test_the_agent_samples_its_exact_whole_move_probabilities(tmp_path):
    last = train_net(small("nfsp", 100, 100), tmp_path / "n", say=lambda text: None)
    game = pyspiel.load_game(MICRO)
    agent = make_agent(f"openspiel-net:model={last}", game, seed=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    exact = agent.decision_distribution(state)
    assert sum(exact.values()) == pytest.approx(1.0)
    counts = Counter(tuple(agent.act(state)) for _ in range(2000))
    for move, p in exact.items():
        assert abs(counts[move] / 2000 - p) < 4 * np.sqrt(p * (1 - p) / 2000) + 1e-3
    other = pyspiel.load_game(MICRO.replace("stages=1", "stages=2"))
    with pytest.raises(ValueError, match="is for"):
        make_agent(f"openspiel-net:model={last}", other)
    (tmp_path / "n" / "model.npz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="do not match"):
        make_agent(f"openspiel-net:model={last}", game)


def test_a_dqn_snapshot_plays_dqns_own_greedy_action_as_exact_probabilities(tmp_path):
    """DQN's own evaluation action (PyTorch Q-network, argmax over the legal actions) is the one
    action of probability 1 in the model file's numpy policy at every decision node, after enough
    episodes that the networks have learned; the agent's whole moves are legal and sum to 1."""
    import torch

    from zwick_ai.learn.openspiel_nets import write_model

    game = pyspiel.load_game(MICRO)
    cfg = small("dqn", 60, 60)
    np.random.seed(0)  # noqa: NPY002
    torch.manual_seed(0)
    run = _DQN(game, cfg)
    for _ in range(60):
        run.iterate(lambda: None)
    assert all(a.loss is not None for a in run.agents)  # both Q-networks were fitted
    nets, _ = run.policy_nets()
    write_model(tmp_path / "m", cfg, nets, game, 60)
    model = load_model(tmp_path / "m")
    assert model.policy == "greedy" and len(model.nets) == game.num_players()
    checked = 0
    for state in player_nodes(game):
        p = state.current_player()
        legal = state.legal_actions(p)
        theirs, _ = run.agents[p]._act_epsilon_greedy(state.information_state_tensor(p), legal, 0.0)
        ours_legal, ours = model.probabilities(state, p)
        assert ours_legal == legal and sorted(ours) == [0.0] * (len(legal) - 1) + [1.0]
        assert legal[int(np.argmax(ours))] == theirs
        checked += 1
    assert checked > 100
    agent = make_agent(f"openspiel-net:model={tmp_path / 'm'}", game, seed=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    exact = agent.decision_distribution(state)
    played = [move for move, q in exact.items() if q > 0]
    assert sorted(exact.values()) == [0.0] * (len(exact) - 1) + [1.0] and len(played) == 1
    assert played[0][0] in state.legal_actions() and [tuple(agent.act(state)) for _ in range(5)] == played * 5
