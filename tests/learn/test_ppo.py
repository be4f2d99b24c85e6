"""The PyTorch learner's batched rollout on VectorGame (buffers against a slow step-by-step
reference, masked sampling, per-seat GAE) and ``zwick train ppo`` (files, resume equals not stopping,
refusals)."""

from __future__ import annotations

import csv
import math

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import PolicyAgent
from zwick_ai.cli import main
from zwick_ai.mlp import PolicyNet
from zwick_ai.vector import VectorGame

torch = pytest.importorskip("torch")
from zwick_ai.learn import vector_rollout as VR  # noqa: E402

GAME = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"
TINY = ["--variant", "dithmarschen", "--players", "2", "-o", "ranks=9TJQKA", "--games", "32", "--steps", "8",
        "--strength-deals", "10", "--eval-every", "2", "--hidden", "16,16", "--batch", "64", "--seed", "5"]  # fmt: skip


def _splitmix(state: int) -> tuple[int, float]:
    """The next state of a splitmix64 stream and its uniform draw in [0, 1) (as the kernel)."""
    mask = (1 << 64) - 1
    state = (state + 0x9E3779B97F4A7C15) & mask
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z = z ^ (z >> 31)
    return state, (z >> 11) / float(1 << 53)


def _games(n: int, opponent: str) -> list[VectorGame]:
    if opponent == "self":
        return [VectorGame(GAME, n)]
    return [VectorGame(GAME, n // 2, opponents={1: opponent}), VectorGame(GAME, n - n // 2, opponents={0: opponent})]


@pytest.mark.parametrize("opponent", ["greedy", "self"])
def test_rollout_buffers_equal_a_step_by_step_reference(opponent: str) -> None:
    """Every buffer row equals what one game at a time gives: the observation, mask and seat the
    env shows, the action drawn from the row's softmax over its legal actions with the row's own
    stream (plain Python here), its log-probability and value from a one-row forward pass, and the
    rewards and ends of the step."""
    torch.manual_seed(0)
    n, steps, seed = 6, 90, 123
    model = VR.policy_network(VectorGame(GAME, 1).observation_size, VectorGame(GAME, 1).num_actions, (16, 16))
    rollout = VR.VectorRollout(_games(n, opponent), steps, model)
    rollout.collect(seed)
    ref = _games(n, opponent)
    timesteps, start = [], seed
    for g in ref:
        timesteps.append(g.reset(seed=start))
        start += g.num_games
    streams = np.zeros(n, np.uint64)
    VR.seed_streams(streams, seed)
    state = [int(s) for s in streams]
    ended = 0
    for t in range(steps):
        obs = np.concatenate([ts.observation for ts in timesteps])
        mask = np.concatenate([ts.legal_mask for ts in timesteps])
        seat = np.concatenate([ts.current_player for ts in timesteps])
        np.testing.assert_array_equal(rollout.obs_np[t], obs)
        np.testing.assert_array_equal(rollout.mask_np[t], mask)
        np.testing.assert_array_equal(rollout.seat_np[t], seat)
        actions = np.zeros(n, np.int64)
        for i in range(n):
            with torch.inference_mode():
                logits, value = model(torch.from_numpy(obs[i : i + 1].copy()))
            z = logits[0].double().numpy()
            legal = np.flatnonzero(mask[i])
            p = np.exp(z[legal] - z[legal].max())
            state[i], u = _splitmix(state[i])
            k = min(int(np.searchsorted(np.cumsum(p), u * p.sum(), side="right")), len(legal) - 1)
            actions[i] = legal[k]
            assert rollout.actions_np[t, i] == actions[i]
            assert rollout.logp_np[t, i] == pytest.approx(math.log(p[k] / p.sum()), abs=1e-4)
            assert rollout.value_np[t, i] == pytest.approx(float(value[0]), abs=1e-5)
        timesteps = [g.step(actions[part]) for g, part in zip(ref, rollout.parts, strict=True)]
        np.testing.assert_array_equal(rollout.rewards_np[t], np.concatenate([ts.rewards for ts in timesteps]))
        np.testing.assert_array_equal(rollout.done_np[t], np.concatenate([ts.terminated for ts in timesteps]))
        ended += int(rollout.done_np[t].sum())
    assert ended > 0
    np.testing.assert_array_equal(rollout.last_seat_np, np.concatenate([ts.current_player for ts in timesteps]))


def test_masked_sampling_never_draws_an_illegal_action_and_follows_the_softmax() -> None:
    rng = np.random.default_rng(0)
    n, width = 4000, 9
    logits = rng.normal(size=(n, width)).astype(np.float32) * 3
    mask = rng.random((n, width)) < 0.3
    mask[np.arange(n), rng.integers(width, size=n)] = True
    logits[~mask] = 1e30  # an illegal action's logit dwarfs the rest: still never drawn
    streams = np.zeros(n, np.uint64)
    VR.seed_streams(streams, 1)
    actions, logp = np.zeros(n, np.int64), np.zeros(n, np.float32)
    for _ in range(50):
        VR.sample_masked(logits, mask, streams, actions, logp)
        assert mask[np.arange(n), actions].all() and np.isfinite(logp).all() and (logp <= 0).all()
    fixed = np.where(mask[0], np.arange(width, dtype=np.float32) / 2, np.float32(1e30))
    one, draws = np.zeros(1, np.int64), np.zeros(width)
    stream = np.array([7], np.uint64)
    for _ in range(4000):
        VR.sample_masked(fixed[None], mask[:1], stream, one, logp[:1])
        draws[one[0]] += 1
    legal = np.flatnonzero(mask[0])
    want = np.exp(fixed[legal] - fixed[legal].max())
    want /= want.sum()
    assert draws[~mask[0]].sum() == 0
    np.testing.assert_allclose(draws[legal] / 4000, want, atol=0.03)


def test_rollouts_against_greedy_and_in_self_play_stay_legal() -> None:
    """Many steps of a random network: every drawn action is legal (the env would refuse
    another), and with self-play both seats act."""
    torch.manual_seed(1)
    for opponent in ("greedy", "self"):
        games = _games(64, opponent)
        model = VR.policy_network(games[0].observation_size, games[0].num_actions, (32, 32))
        rollout = VR.VectorRollout(games, 100, model)
        rollout.collect(9)
        picked = np.take_along_axis(rollout.mask_np, rollout.actions_np[:, :, None], axis=2)
        assert picked.all() and rollout.done_np.sum() > 20
        if opponent == "self":
            assert set(np.unique(rollout.seat_np)) == {0, 1}
        else:
            np.testing.assert_array_equal(rollout.seat_np[:, :32], 0)
            np.testing.assert_array_equal(rollout.seat_np[:, 32:], 1)


def test_overlapped_rollout_equals_the_sequential_one() -> None:
    """Env steps on a second thread while the network reads the other block: the same buffers."""
    torch.manual_seed(2)
    games = _games(64, "greedy")
    model = VR.policy_network(games[0].observation_size, games[0].num_actions, (32, 32))
    plain = VR.VectorRollout(games, 50, model)
    plain.collect(4)
    kept = {name: getattr(plain, f"{name}_np").copy() for name in ("obs", "mask", "seat", "actions", "rewards", "done")}
    overlapped = VR.VectorRollout(_games(64, "greedy"), 50, model, overlap=True)
    for _ in range(2):  # twice: the worker thread is reused
        overlapped.collect(4)
        for name, array in kept.items():
            np.testing.assert_array_equal(getattr(overlapped, f"{name}_np"), array, err_msg=name)
        np.testing.assert_allclose(overlapped.logp_np, plain.logp_np, atol=1e-5)
    with pytest.raises(ValueError, match="at least two"):
        VR.VectorRollout(_games(8, "self"), 4, model, overlap=True)


def test_advantages_follow_each_seat_and_give_the_end_of_a_game_to_both() -> None:
    """One game, seats 0, 1, 0, 1(ends: +3 / -3), then 0 of a new game; gamma 1, lambda 1: every
    transition's return is its seat's final reward, and the new game's transition (cut by the
    rollout's end) is bootstrapped with the value of the position after the rollout."""
    seat = np.array([[0], [1], [0], [1], [0]])
    value = np.array([[0.5], [-0.2], [0.1], [0.3], [0.4]], np.float32)
    rewards = np.zeros((5, 1, 2), np.float32)
    rewards[3, 0] = [3.0, -3.0]
    done = np.array([[False], [False], [False], [True], [False]])
    adv, ret = VR.advantages(seat, value, rewards, done, np.array([1]), np.array([0.7], np.float32), 1.0, 1.0)
    np.testing.assert_allclose(ret[:4, 0], [3.0, -3.0, 3.0, -3.0], atol=1e-6)
    np.testing.assert_allclose(adv[:, 0], ret[:, 0] - value[:, 0], atol=1e-6)
    assert ret[4, 0] == pytest.approx(0.4)  # seat 0 waits after the rollout: its own value stands in
    adv, ret = VR.advantages(seat, value, rewards, done, np.array([0]), np.array([0.7], np.float32), 1.0, 0.0)
    assert ret[4, 0] == pytest.approx(0.7)  # seat 0 to move after the rollout: its value there
    assert ret[0, 0] == pytest.approx(0.1) and ret[2, 0] == pytest.approx(3.0)  # TD(0): the next own value


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return [{k: v for k, v in r.items() if k not in ("seconds", "steps_per_second")} for r in csv.DictReader(fh)]


def test_train_ppo_writes_its_files_and_resumes_to_the_same_run(tmp_path, capsys) -> None:
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert main(["train", "ppo", *TINY, "--iterations", "4", "--out", str(whole)]) == 0
    for name in ("config.json", "checkpoint.json", "checkpoint.pt", "policy.npz", "train.csv", "strength.csv",
                 "strength.png"):  # fmt: skip
        assert (whole / name).is_file(), name
    assert main(["train", "ppo", *TINY, "--iterations", "2", "--out", str(part)]) == 0
    assert main(["train", "ppo", *TINY, "--iterations", "4", "--out", str(part)]) == 2  # never overwritten
    assert "--resume continues it" in capsys.readouterr().err
    assert main(["train", "ppo", *TINY, "--iterations", "4", "--out", str(part), "--resume"]) == 0
    a = torch.load(whole / "checkpoint.pt", weights_only=True)
    b = torch.load(part / "checkpoint.pt", weights_only=True)
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    assert _rows(whole / "strength.csv") == _rows(part / "strength.csv")
    assert _rows(whole / "train.csv") == _rows(part / "train.csv")
    assert [r["iteration"] for r in _rows(part / "strength.csv")] == ["2", "4"]
    policy = PolicyNet(whole / "policy.npz")  # numpy only: the same logits as the torch model
    assert policy.meta["game"] == str(pyspiel.load_game(GAME))
    games = _games(8, "greedy")
    model = VR.policy_network(games[0].observation_size, games[0].num_actions, (16, 16))
    model.load_state_dict(a["model"])
    ts = games[0].reset()
    with torch.no_grad():
        want = VR.masked_logits(
            model(torch.from_numpy(ts.observation.copy()))[0], torch.from_numpy(ts.legal_mask.copy())
        )
    np.testing.assert_allclose(policy.logits(ts.observation, ts.legal_mask), want.numpy(), rtol=1e-4, atol=1e-4)
    agent = PolicyAgent(pyspiel.load_game(GAME), policy.logits)
    state = pyspiel.load_game(GAME).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    move = agent.act(state)  # a whole move, sub-action by sub-action
    for action in move:
        assert action in state.legal_actions()
        state.apply_action(action)
    assert move
    selfplay = tmp_path / "self"
    assert main(["train", "ppo", *TINY, "--opponent", "self", "--iterations", "1", "--out", str(selfplay)]) == 0
    assert [r["iteration"] for r in _rows(selfplay / "strength.csv")] == ["1"]
    other = [*TINY[:-1], "6"]  # another seed: another configuration
    assert main(["train", "ppo", *other, "--iterations", "6", "--out", str(part), "--resume"]) == 2
    assert "another configuration" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "dithmarschen", "--out", "x"], "needs a budget"),
        (["--variant", "dithmarschen", "--iterations", "1", "--games", "0", "--out", "x"], "games must be at least 1"),
        (["--game", "zwikken", "--iterations", "1", "--out", "x"], "is not zwicker"),
        (["--variant", "dithmarschen", "--iterations", "1", "--threads", "0", "--out", "x"], "--threads must be"),
    ],
)
def test_bad_train_ppo_arguments_exit_2_in_one_line(tmp_path, capsys, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "ppo", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()
