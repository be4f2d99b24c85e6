"""OpenSpiel's own learning algorithms on our games: its PyTorch ``DeepCFRSolver``
(``open_spiel.python.pytorch.deep_cfr``), ``NFSP`` (``open_spiel.python.pytorch.nfsp``) and ``DQN``
(``open_spiel.python.pytorch.dqn``), run as OpenSpiel's examples run them, with snapshots the ``openspiel-net`` agent plays with numpy and
checkpoints a stopped run resumes from.

* ``deep-cfr``: each iteration, for each player, ``traversals`` of the solver's own external-sampling
  ``_traverse_game_tree`` and a fresh advantage network fitted to the player's advantage memory (the
  body of ``DeepCFRSolver.solve``). At every snapshot the average-policy network is fitted to the
  strategy memory, exported, and initialised again (what ``solve`` does with ``print_nash_convs``).
  ``iterations`` are Deep CFR iterations.
* ``nfsp``: one ``NFSP`` agent a seat in OpenSpiel's ``rl_environment`` (anticipatory parameter 0.1,
  the DQN best response inside), ``iterations`` self-play episodes, as in OpenSpiel's
  ``kuhn_nfsp`` example. A snapshot exports each seat's average-policy network.
* ``dqn``: independent learners, one OpenSpiel ``DQN`` agent a seat in ``rl_environment`` (Adam,
  epsilon-greedy from 1.0 down to 0.05 linearly over :data:`DQN_EPSILON_STEPS` of a seat's steps,
  OpenSpiel's defaults otherwise: a soft target update every 1,000 steps, a minibatch fitted every
  10 steps), ``iterations`` self-play episodes. A snapshot exports each seat's Q-network, played
  greedily (the legal action of the highest Q-value, the first on a tie, what ``DQN.step`` plays
  with ``is_evaluation=True``), so its policy is deterministic and exact.

Snapshots go to ``OUT/model-ITERATIONS.npz/.json`` (:mod:`zwick_ai.agents.openspiel_net`), the last
also as ``OUT/model``; ``OUT/progress.csv`` has one row a snapshot (iterations, seconds, losses).
The checkpoint ``OUT/checkpoint.pt`` holds every network, optimiser, memory and random generator
(tensors only: loaded with ``torch.load(weights_only=True)``, so nothing is unpickled), written at
each snapshot; ``resume=True`` continues from it to the same result as a run never stopped.
Every random choice flows from ``seed`` (OpenSpiel's modules draw from numpy's and torch's global
generators, which are seeded here and saved in the checkpoint).

A stop signal (Ctrl-C, SIGTERM, SIGHUP) after the first iteration waits for the iteration under way
(an NFSP episode, a Deep CFR iteration) to end, a checkpoint is written there, and then it stops
the run as it would have; an iteration still running :data:`STOP_WAIT` seconds after the signal is
dropped instead (the checkpoint before it stands). The first iteration of a process is not held
back that way: it compiles the game's kernels, which can take minutes.
"""

from __future__ import annotations

import contextlib
import csv
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.policy_file import write_files
from zwick_ai.agents.openspiel_net import KIND
from zwick_ai.deferred_signals import Deferred, deferred_signals
from zwick_ai.files import replacing

ALGORITHMS = ("deep-cfr", "nfsp", "dqn")
#: dqn: a seat's steps over which epsilon falls linearly from DQN_EPSILON[0] to DQN_EPSILON[1]
DQN_EPSILON_STEPS = 20_000
DQN_EPSILON = (1.0, 0.05)


@dataclass(frozen=True)
class NetTraining:
    """What decides a run's result (all of it is checked on ``resume``)."""

    game: str
    algorithm: str
    iterations: int
    snapshot_every: int
    hidden: tuple[int, ...] = (64, 64)
    lr: float = 1e-3
    batch: int = 256
    #: deep-cfr: traversals a player per iteration; nfsp: unused
    traversals: int = 100
    #: deep-cfr: advantage-network fitting steps an iteration, policy-network steps a snapshot; nfsp: unused
    train_steps: int = 200
    #: capacity of each memory (deep-cfr: advantage and strategy reservoirs; nfsp: reservoir and replay;
    #: dqn: replay)
    memory: int = 100_000
    seed: int = 0

    def check(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r}; valid: {', '.join(ALGORITHMS)}")
        if self.iterations < 1 or self.snapshot_every < 1 or self.traversals < 1 or self.train_steps < 1:
            raise ValueError("iterations, the snapshot interval, traversals and train steps must be at least 1")
        if not self.hidden or min(self.hidden) < 1 or self.batch < 1 or self.memory < self.batch or self.lr <= 0:
            raise ValueError("need hidden layers of at least 1 unit, batch >= 1, memory >= batch and lr > 0")


Say = Callable[[str], None]
Progress = Callable[[int, int], None]
#: seconds a stop signal waits for the iteration under way to end before that iteration is dropped
STOP_WAIT = 1.5


class _Dropped(Exception):
    """The iteration under way was dropped: a stop signal has waited :data:`STOP_WAIT` seconds."""


class _Stop:
    """The stop signals held between iterations (:mod:`zwick_ai.deferred_signals`) once ``held`` is set."""

    def __init__(self) -> None:
        self.held: Deferred | None = None
        self.since: float | None = None  # when a held signal was first seen

    def pending(self) -> bool:
        """Whether a stop signal is waiting."""
        if self.held is None or not self.held.pending:
            return False
        if self.since is None:
            self.since = time.monotonic()
        return True

    def check(self) -> None:
        """Called inside an iteration: raise :class:`_Dropped` once a signal has waited too long."""
        if self.pending() and self.since is not None and time.monotonic() - self.since > STOP_WAIT:
            raise _Dropped


# ---- the networks as model files --------------------------------------------------------------------
def network_arrays(net: Any, k: int) -> dict[str, np.ndarray]:
    """The ``Linear`` and ``LayerNorm`` layers of an OpenSpiel PyTorch ``MLP``, in order, as the model
    file's arrays of network ``k`` (:mod:`zwick_ai.agents.openspiel_net`)."""
    from torch import nn

    out: dict[str, np.ndarray] = {}
    i = 0
    for m in net.modules():
        if isinstance(m, nn.Linear):
            out[f"net{k}.W{i}"] = m.weight.detach().cpu().numpy().astype(np.float32)
            out[f"net{k}.b{i}"] = m.bias.detach().cpu().numpy().astype(np.float32)
            i += 1
        elif isinstance(m, nn.LayerNorm):
            out[f"net{k}.ln_w"] = m.weight.detach().cpu().numpy().astype(np.float32)
            out[f"net{k}.ln_b"] = m.bias.detach().cpu().numpy().astype(np.float32)
    return out


def write_model(stem: Path, cfg: NetTraining, nets: list[Any], game: pyspiel.Game, iterations: int) -> None:
    arrays: dict[str, np.ndarray] = {}
    for k, net in enumerate(nets):
        arrays.update(network_arrays(net, k))
    meta = {
        "game": str(game), "algorithm": cfg.algorithm, "iterations": int(iterations), "nets": len(nets),
        "input_size": int(game.information_state_tensor_size()), "num_actions": int(game.num_distinct_actions()),
        "hidden": list(cfg.hidden), "training": asdict(cfg), "command": command(cfg),
        "policy": "greedy" if cfg.algorithm == "dqn" else "softmax",
    }  # fmt: skip
    write_files(stem, KIND, meta, arrays)


def command(cfg: NetTraining) -> str:
    """The ``zwick train`` command of a run (without ``--out``)."""
    hidden = ",".join(map(str, cfg.hidden))
    extra = f" --traversals {cfg.traversals} --train-steps {cfg.train_steps}" if cfg.algorithm == "deep-cfr" else ""
    return (
        f'zwick train {cfg.algorithm} --game "{cfg.game}" --iterations {cfg.iterations} --eval-every '
        f"{cfg.snapshot_every} --hidden {hidden} --lr {cfg.lr} --batch {cfg.batch} --memory {cfg.memory}{extra} "
        f"--seed {cfg.seed}"
    )


# ---- checkpoints: tensors only -----------------------------------------------------------------------
def _buffer_state(buf: Any) -> dict[str, Any]:
    if buf is None:
        return {}
    import torch

    state: dict[str, Any] = {
        f"x.{name}": torch.from_numpy(np.ascontiguousarray(v)) for name, v in buf.experience._asdict().items()
    }
    for counter in ("add_calls", "entry_index"):
        if hasattr(buf, counter):
            state[counter] = int(getattr(buf, counter))
    state["capacity"] = int(buf.capacity)
    return state


def _restore_buffer(cls: Any, fields: Any, state: dict[str, Any]) -> Any:
    if not state:
        return None
    experience = fields(**{name: state[f"x.{name}"].numpy().copy() for name in fields._fields})
    buf = cls(np.array(state["capacity"]), experience)
    for counter in ("add_calls", "entry_index"):
        if counter in state:
            setattr(buf, counter, np.array(state[counter]))
    return buf


def _rng_state() -> dict[str, Any]:
    import torch

    _, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)  # noqa: NPY002  (OpenSpiel's modules draw from it)
    return {"np_keys": torch.from_numpy(np.asarray(keys, np.int64)), "np_pos": int(pos), "np_gauss": int(has_gauss),
            "np_cached": float(cached), "torch": torch.get_rng_state()}  # fmt: skip


def _set_rng_state(state: dict[str, Any]) -> None:
    import torch

    keys = state["np_keys"].numpy().astype(np.uint32)
    np.random.set_state(("MT19937", keys, state["np_pos"], state["np_gauss"], state["np_cached"]))  # noqa: NPY002
    torch.set_rng_state(state["torch"])


def _save_checkpoint(out: Path, state: dict[str, Any]) -> None:
    import torch

    with replacing(out / "checkpoint.pt") as tmp:
        torch.save(state, tmp)


def _load_checkpoint(out: Path) -> dict[str, Any]:
    import torch

    try:
        return torch.load(out / "checkpoint.pt", weights_only=True)
    except Exception as error:  # a damaged or foreign file: one line, nothing lost
        raise ValueError(f"{out / 'checkpoint.pt'}: not a checkpoint of zwick train ({type(error).__name__})") from None


# ---- Deep CFR ----------------------------------------------------------------------------------------
class _DeepCFR:
    """OpenSpiel's ``DeepCFRSolver`` stepped one iteration at a time."""

    def __init__(self, game: pyspiel.Game, cfg: NetTraining):
        from open_spiel.python.pytorch import deep_cfr

        self.module = deep_cfr
        self.cfg = cfg
        self.solver = deep_cfr.DeepCFRSolver(
            game,
            policy_network_layers=cfg.hidden,
            advantage_network_layers=cfg.hidden,
            num_iterations=cfg.iterations,
            num_traversals=cfg.traversals,
            learning_rate=cfg.lr,
            batch_size_advantage=cfg.batch,
            batch_size_strategy=cfg.batch,
            memory_capacity=cfg.memory,
            policy_network_train_steps=cfg.train_steps,
            advantage_network_train_steps=cfg.train_steps,
            reinitialize_advantage_networks=True,
            seed=cfg.seed,
        )
        self.losses: list[float | None] = []

    def iterate(self, check: Callable[[], None]) -> None:
        s = self.solver
        self.losses = []
        for p in range(s._num_players):
            for _ in range(s._num_traversals):
                check()
                s._traverse_game_tree(s._root_node, p)
            s._reinitialize_advantage_network(p)
            self.losses.append(s._learn_advantage_network(p))
        s._iteration += 1

    def policy_nets(self) -> tuple[list[Any], dict[str, Any]]:
        loss = self.solver._learn_strategy_network()
        return [self.solver._policy_network], {"policy_loss": loss, "advantage_losses": self.losses}

    def after_snapshot(self) -> None:
        self.solver._reinitialize_policy_network()

    def state(self) -> dict[str, Any]:
        s = self.solver
        return {
            "iteration": s._iteration,
            "advantage": [n.state_dict() for n in s._advantage_networks],
            "advantage_opt": [o.state_dict() for o in s._optimizer_advantages],
            "policy": s._policy_network.state_dict(),
            "policy_opt": s._optimizer_policy.state_dict(),
            "advantage_memories": [_buffer_state(m) for m in s._advantage_memories],
            "strategy_memory": _buffer_state(s._strategy_memories),
        }

    def restore(self, state: dict[str, Any]) -> None:
        s, m = self.solver, self.module
        s._iteration = state["iteration"]
        for p in range(s._num_players):
            s._advantage_networks[p].load_state_dict(state["advantage"][p])
            s._optimizer_advantages[p].load_state_dict(state["advantage_opt"][p])
            s._advantage_memories[p] = _restore_buffer(
                m.ReservoirBuffer, m.AdvantageMemory, state["advantage_memories"][p]
            )
        s._policy_network.load_state_dict(state["policy"])
        s._optimizer_policy.load_state_dict(state["policy_opt"])
        s._strategy_memories = _restore_buffer(m.ReservoirBuffer, m.StrategyMemory, state["strategy_memory"])


# ---- NFSP --------------------------------------------------------------------------------------------
class _Episodes:
    """Agents of OpenSpiel's ``rl_agent`` kind, one a seat, playing episodes of ``rl_environment``
    (NFSP and DQN); ``agents`` and their checkpoint state are each algorithm's."""

    agents: list[Any]

    def __init__(self, game: pyspiel.Game, cfg: NetTraining):
        from open_spiel.python import rl_environment

        # the chance sampler given seeded: Environment(game, seed=...) passes seed on as a game parameter
        # (ignored for a loaded game), so its default sampler would draw the deals unseeded
        sampler = rl_environment.ChanceEventSampler(seed=cfg.seed)
        self.env = rl_environment.Environment(game, chance_event_sampler=sampler)
        self.info_size = self.env.observation_spec()["info_state"][0]
        self.actions = self.env.action_spec()["num_actions"]
        self.episodes = 0

    def iterate(self, check: Callable[[], None]) -> None:
        ts = self.env.reset()
        while not ts.last():
            check()
            p = ts.observations["current_player"]
            out = self.agents[p].step(ts)
            ts = self.env.step([out.action])
        for agent in self.agents:
            agent.step(ts)
        self.episodes += 1

    def after_snapshot(self) -> None:
        pass


class _NFSP(_Episodes):
    """One OpenSpiel ``NFSP`` agent a seat, playing episodes of ``rl_environment``."""

    def __init__(self, game: pyspiel.Game, cfg: NetTraining):
        from open_spiel.python.pytorch import dqn, nfsp

        super().__init__(game, cfg)
        self.dqn, self.nfsp = dqn, nfsp
        size, actions = self.info_size, self.actions
        self.agents = [
            nfsp.NFSP(
                p,
                size,
                actions,
                list(cfg.hidden),
                cfg.memory,
                0.1,
                batch_size=cfg.batch,
                rl_learning_rate=cfg.lr,
                sl_learning_rate=cfg.lr,
                min_buffer_size_to_learn=cfg.batch,
                learn_every=64,
                optimizer_str="adam",
                seed=cfg.seed + 10 * p,
                replay_buffer_capacity=cfg.memory,
                epsilon_start=0.06,
                epsilon_end=0.001,
            )  # fmt: skip
            for p in range(game.num_players())
        ]

    def policy_nets(self) -> tuple[list[Any], dict[str, Any]]:
        return [a._avg_network for a in self.agents], {"losses": [list(a.loss) for a in self.agents]}

    def state(self) -> dict[str, Any]:
        agents = []
        for a in self.agents:
            rl = a._rl_agent
            agents.append({
                "avg": a._avg_network.state_dict(), "opt": a._optimizer.state_dict(), "iteration": a._iteration,
                "mode": a._mode.value, "reservoir": _buffer_state(a._reservoir_buffer),
                "q": rl._q_network.state_dict(), "target": rl._target_q_network.state_dict(),
                "q_opt": rl._optimizer.state_dict(), "rl_iteration": rl._iteration,
                "replay": _buffer_state(rl._replay_buffer),
            })  # fmt: skip
        return {"episodes": self.episodes, "agents": agents, **_sampler_state(self.env)}

    def restore(self, state: dict[str, Any]) -> None:
        self.episodes = state["episodes"]
        for a, s in zip(self.agents, state["agents"], strict=True):
            rl = a._rl_agent
            a._avg_network.load_state_dict(s["avg"])
            a._optimizer.load_state_dict(s["opt"])
            a._iteration = s["iteration"]
            a._mode = self.nfsp.MODE(s["mode"])
            a._reservoir_buffer = _restore_buffer(self.nfsp.ReservoirBuffer, self.nfsp.Transition, s["reservoir"])
            rl._q_network.load_state_dict(s["q"])
            rl._target_q_network.load_state_dict(s["target"])
            rl._optimizer.load_state_dict(s["q_opt"])
            rl._iteration = s["rl_iteration"]
            rl._replay_buffer = _restore_buffer(self.dqn.ReplayBuffer, self.dqn.Transition, s["replay"])
        _set_sampler_state(self.env, state)


# ---- DQN ---------------------------------------------------------------------------------------------
class _DQN(_Episodes):
    """Independent learners: one OpenSpiel ``DQN`` agent a seat, playing episodes of ``rl_environment``."""

    def __init__(self, game: pyspiel.Game, cfg: NetTraining):
        from open_spiel.python.pytorch import dqn

        super().__init__(game, cfg)
        self.dqn = dqn
        size, actions = self.info_size, self.actions
        self.agents = [
            dqn.DQN(
                p,
                size,
                actions,
                hidden_layers_sizes=list(cfg.hidden),
                batch_size=cfg.batch,
                replay_buffer_capacity=cfg.memory,
                learning_rate=cfg.lr,
                min_buffer_size_to_learn=cfg.batch,
                epsilon_start=DQN_EPSILON[0],
                epsilon_end=DQN_EPSILON[1],
                epsilon_decay_duration=DQN_EPSILON_STEPS,
                epsilon_decay_schedule_str="linear",
                optimizer_str="adam",
                seed=cfg.seed + 10 * p,
            )  # fmt: skip
            for p in range(game.num_players())
        ]

    def policy_nets(self) -> tuple[list[Any], dict[str, Any]]:
        return [a._q_network for a in self.agents], {"losses": [a.loss for a in self.agents]}

    def state(self) -> dict[str, Any]:
        agents = []
        for a in self.agents:
            # between episodes: no transition under way (step cleared _prev_timestep at the end)
            agents.append({
                "q": a._q_network.state_dict(), "target": a._target_q_network.state_dict(),
                "opt": a._optimizer.state_dict(), "iteration": a._iteration,
                "loss": float("nan") if a._last_loss_value is None else float(a._last_loss_value),
                "replay": _buffer_state(a._replay_buffer),
            })  # fmt: skip
        return {"episodes": self.episodes, "agents": agents, **_sampler_state(self.env)}

    def restore(self, state: dict[str, Any]) -> None:
        self.episodes = state["episodes"]
        for a, s in zip(self.agents, state["agents"], strict=True):
            a._q_network.load_state_dict(s["q"])
            a._target_q_network.load_state_dict(s["target"])
            a._optimizer.load_state_dict(s["opt"])
            a._iteration = s["iteration"]
            a._last_loss_value = None if s["loss"] != s["loss"] else s["loss"]  # NaN stands for None
            a._replay_buffer = _restore_buffer(self.dqn.ReplayBuffer, self.dqn.Transition, s["replay"])
        _set_sampler_state(self.env, state)


def _sampler_state(env: Any) -> dict[str, Any]:
    """The state of ``rl_environment``'s seeded chance sampler, as tensors."""
    import torch

    rng = env._chance_event_sampler._rng.get_state(legacy=False)
    return {"env_keys": torch.from_numpy(rng["state"]["key"].astype(np.int64)), "env_pos": int(rng["state"]["pos"]),
            "env_gauss": int(rng["has_gauss"]), "env_cached": float(rng["gauss"])}  # fmt: skip


def _set_sampler_state(env: Any, state: dict[str, Any]) -> None:
    keys = state["env_keys"].numpy().astype(np.uint32)
    env._chance_event_sampler._rng.set_state(
        {"bit_generator": "MT19937", "state": {"key": keys, "pos": state["env_pos"]},
         "has_gauss": state["env_gauss"], "gauss": state["env_cached"]}
    )  # fmt: skip


# ---- the run -----------------------------------------------------------------------------------------
def _check_game(game: pyspiel.Game) -> None:
    kind = game.get_type()
    if not kind.provides_information_state_tensor:
        raise ValueError(f"{game} has no information_state_tensor, which OpenSpiel's Deep CFR, NFSP and DQN read")
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{game} is not sequential; OpenSpiel's Deep CFR, NFSP and DQN take turn-based games")


def train_net(
    cfg: NetTraining, out: str | Path, resume: bool = False, say: Say = print, progress: Progress | None = None
) -> Path:
    """Run ``cfg`` (module docstring) into ``out``; returns the last model's stem. A folder that holds
    a run is refused unless ``resume`` (then its configuration must be ``cfg``'s)."""
    import torch

    cfg.check()
    import zwick_ai.games  # noqa: F401  (registers our games)

    game = pyspiel.load_game(cfg.game)
    _check_game(game)
    folder = Path(out)
    config = folder / "config.json"
    want = asdict(cfg) | {"hidden": list(cfg.hidden)}
    if config.exists():
        have = json.loads(config.read_text())
        if not resume:
            raise ValueError(f"{folder} already holds a training run; continue it with --resume or use another --out")
        if {k: v for k, v in have.items() if k != "iterations"} != {k: v for k, v in want.items() if k != "iterations"}:
            raise ValueError(f"{folder} holds a run of other options ({have}); resume it with the same options")
    folder.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    np.random.seed(cfg.seed)  # noqa: NPY002  (OpenSpiel's modules draw from numpy's global generator)
    torch.manual_seed(cfg.seed)
    runs: dict[str, type[_DeepCFR | _NFSP | _DQN]] = {"deep-cfr": _DeepCFR, "nfsp": _NFSP, "dqn": _DQN}
    run = runs[cfg.algorithm](game, cfg)
    done, seconds = 0, 0.0
    if resume and (folder / "checkpoint.pt").exists():
        state = _load_checkpoint(folder)
        run.restore(state["run"])
        _set_rng_state(state["rng"])
        done, seconds = int(state["done"]), float(state["seconds"])
        say(f"resuming {folder} at {done} iterations")
    with replacing(config) as tmp:
        tmp.write_text(json.dumps(want, indent=1, sort_keys=True) + "\n")
    last = folder / "model"
    t0 = time.process_time() - seconds
    stop, saved = _Stop(), done

    def checkpoint() -> float:
        spent = time.process_time() - t0
        _save_checkpoint(folder, {"run": run.state(), "rng": _rng_state(), "done": done, "seconds": spent})
        return spent

    # the stop signals are held from the second iteration on (module docstring); a held one is
    # delivered when this block ends, after the checkpoint
    with contextlib.ExitStack() as holding:
        while done < cfg.iterations:
            try:
                run.iterate(stop.check)
            except _Dropped:
                kept = f"the checkpoint at {saved} iterations stands" if saved else "no checkpoint yet"
                say(f"stopped during iteration {done + 1}: {kept}")
                break
            done += 1
            if progress:
                progress(done, cfg.iterations)
            if done % cfg.snapshot_every == 0 or done == cfg.iterations:
                nets, losses = run.policy_nets()
                stem = folder / f"model-{done:08d}"
                write_model(stem, cfg, nets, game, done)
                write_model(last, cfg, nets, game, done)
                run.after_snapshot()
                seconds, saved = checkpoint(), done
                _progress_row(folder / "progress.csv", done, seconds, losses)
                say(f"{done} iterations, {seconds:.0f} CPU s: wrote {stem.name}")
            if stop.pending():
                if saved != done:
                    checkpoint()
                say(f"stopped after {done} iterations: checkpoint written")
                break
            if stop.held is None:
                stop.held = holding.enter_context(deferred_signals())
    return last


def _progress_row(path: Path, done: int, seconds: float, losses: dict[str, Any]) -> None:
    rows = []
    if path.exists():  # a row of a snapshot after this one (a run resumed from an older checkpoint) is dropped
        with path.open(newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["iterations"]) < done]
    rows.append({"iterations": done, "cpu_seconds": round(seconds, 1), "losses": json.dumps(losses)})
    with replacing(path) as tmp, tmp.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["iterations", "cpu_seconds", "losses"])
        w.writeheader()
        w.writerows(rows)


__all__ = [
    "ALGORITHMS",
    "DQN_EPSILON",
    "DQN_EPSILON_STEPS",
    "NetTraining",
    "command",
    "network_arrays",
    "train_net",
    "write_model",
]
