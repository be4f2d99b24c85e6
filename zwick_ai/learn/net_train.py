"""Training the ``net`` after model in generations with PyTorch (``pip install zwick_ai[train]``).

The model is an afterstate value (:mod:`zwick_ai.agents.value_model`, kind *after*): a move's value
is the exact lead right after it (card points and Zwicks won so far, own side minus the mean of
the others) plus the model's points still to come from the position after it, as the mover sees
it (the hand-made features and, unless ``cards`` is off, a card-level view). The model never has
to learn what a move takes; it learns what follows.

:func:`train_net` works in ``out``; generation ``g`` (0, 1, ...):

1. *self-play*: ``hands`` hands played in compiled code by generation ``g - 1``'s model at every
   seat (generation 0: the greedy baseline), a random card move with probability ``eps``
   (:func:`zwick_ai.learn.net_selfplay.selfplay_afterstates`), over ``workers`` processes: one
   record per card move that does not end the hand (the afterstate's input, the lead, the
   playing model's value of it, the mover and the hand's final difference). Saved as
   ``shards/gen-GGG.npz`` (its rate in ``shards/gen-GGG.json``);
2. *fit*: a PyTorch perceptron (input standardization, two ReLU hidden layers of ``hidden``
   units, one output in points) continues from generation ``g - 1``'s weights on the shards of the
   last ``window`` generations, ``epochs`` passes of Adam on the squared error against the
   TD(``lam``) return minus the lead (:func:`zwick_ai.learn.net_selfplay.lambda_returns`; greedy's
   records and ``lam`` = 1: the Monte-Carlo return, the final difference). Hands whose index
   within their generation is a multiple of :data:`HELDOUT_EVERY` are never trained on: the
   held-out loss (``loss.csv``, ``loss.png``);
3. *checkpoint* ``gen-GGG.pt`` (a dict of tensors, read back with ``weights_only=True``) and its
   *export* ``gen-GGG.npz`` in the numba play format (``net:model=OUT/gen-GGG.npz`` plays it);
4. *strength*: ``net:model=gen-GGG.npz`` against greedy (and, with ``ismcts_deals`` > 0, against
   ``ismcts:iters=2000``) on the same fixed duplicate deals every generation, seats swapped
   (a duplicate tournament, given by the caller as :data:`Duel`): ``strength.csv``, ``strength.png``.

With a search teacher on the mover's view (``teacher="ismcts"`` or ``"expert"``, ``teacher_iters``
iterations a decision: :func:`zwick_ai.learn.search_teacher.after_records`) the teacher plays
the hands (a random move with probability ``eps``) and every card move it tried at least
``teacher_visits`` times is a record with its value as the target; the model does not play, so
the generations add hands by the same teacher, and a generation's hands are kept in chunks as
they finish (``shards/gen-GGG.chunks/``), so a stopped run loses at most a chunk. Since the
model does not play, the next generation's hands are played while this one is fitted and
evaluated (pipelining; the records are the same).
With ``teacher="peek"`` step 1 records search targets instead
(:func:`zwick_ai.learn.net_selfplay.selfplay_search_targets`: ``peek-uct`` with
``teacher_iters`` iterations and ``teacher_rollout`` play-outs values every card move of every decision; a move visited at least
``teacher_visits`` times is a record whose target is the search's value minus the lead), and step 2
fits those targets directly (``lam`` does not act). ``init`` names an after model (``.npz``) that
plays generation 0 and whose weights the first fit continues from (a warm start).

Every random choice comes from ``seed``; a run stopped at any point and started again with the
same command gives the same checkpoints as one that never stopped (finished files are kept and
never rewritten), with any number of workers. A different configuration in an existing ``out``
is refused.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import math
import shutil
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.agents import value_model, zwicker_search
from zwick_ai.backends import ONE_LOCAL_WORKER, Backend, BackendRequest, make_backend
from zwick_ai.files import read_json, replacing
from zwick_ai.learn import model_files, net_selfplay
from zwick_ai.learn.net_selfplay import SHARD_FIELDS, ShardRecords
from zwick_ai.learn.search_teacher import SEARCH_TEACHERS, TEACHER_C, after_records
from zwick_ai.mlp import Layer
from zwick_ai.plots import save_png
from zwick_ai.zwicker import policy_codes
from zwick_ai.zwicker.features import NFEAT

HELDOUT_EVERY = 10
SEED_STRIDE = 1_000_003
EVAL_SEED = 7  # the strength curve's deals (fixed for every generation and run)
ISMCTS_SPEC = "ismcts:iters=2000"
LOSS_FIELDS = ["generation", "records", "train_mse", "heldout_mse", "heldout_var"]
STRENGTH_FIELDS = ["generation", "weights", "opponent", "deals", "mean_diff", "ci_low", "ci_high"]
GENERATION_WEIGHTS = "generation"  # the strength rows of a generation's own weights
#: How strength is measured, given by the caller (training knows no tournaments):
#: ``duel(agents, params, deals, seed, out)`` plays the two agent specs on ``deals`` duplicate deals
#: from ``seed`` of the game of ``params``, recorded in the folder ``out``, and returns the first's
#: points per deal minus the second's with its 95% CI, ``(mean, low, high)``
#: (:func:`zwick_ai.eval.orchestrate.duel`).
Duel = Callable[[Sequence[str], Mapping[str, Any], int, int, Path], tuple[float, float, float]]
# where the targets come from: the hands' own returns, a peek-uct search, or a search on the mover's view
TEACHERS = ("none", "peek", *SEARCH_TEACHERS)
TEACHER_CHUNK_HANDS = 10  # a hand searched on the mover's view takes seconds: chunks are kept as they finish

Progress = Callable[[int, str], None]


@dataclass(frozen=True)
class NetConfig:
    """Everything that decides a run's checkpoints (not how long it runs)."""

    variant: str = "dithmarschen"
    players: int = 4
    hands: int = 2000
    eps: float = 0.1
    hidden: tuple[int, int] = (256, 256)
    epochs: int = 4
    lam: float = 1.0
    cards: bool = True
    window: int = 3
    batch: int = 512
    lr: float = 1e-3
    seed: int = 0
    eval_deals: int = 30
    ismcts_deals: int = 0
    teacher: str = "none"
    teacher_iters: int = 200
    teacher_visits: int = 4
    teacher_rollout: str = "random"
    teacher_options: str = ""
    init: str = ""
    options: str = ""  # further game parameters, "NAME=VALUE,..." (a micro deck: "ranks=A23,suits=CD,...")

    def check(self) -> None:
        """Refuse values no run can use (one clear sentence)."""
        from zwick_ai.zwicker.rules import VARIANTS

        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; valid: {', '.join(VARIANTS)}")
        if self.options:
            self.check_options()
        if self.hands < HELDOUT_EVERY * 2:
            raise ValueError(f"hands must be at least {2 * HELDOUT_EVERY} per generation, got {self.hands}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")
        if not 0.0 <= self.eps <= 1.0:
            raise ValueError(f"eps must be in [0, 1], got {self.eps}")
        if min(self.hidden) < 1 or len(self.hidden) != 2:
            raise ValueError(f"hidden must be two positive layer sizes, got {self.hidden}")
        for name in ("epochs", "window", "batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.teacher not in TEACHERS:
            raise ValueError(f"unknown teacher {self.teacher!r}; valid: {', '.join(TEACHERS)}")
        if self.teacher_rollout not in policy_codes.PLAYOUT_POLICIES:
            valid = ", ".join(policy_codes.PLAYOUT_POLICIES)
            raise ValueError(f"unknown teacher rollout {self.teacher_rollout!r}; valid: {valid}")
        if self.teacher_iters < 1 or self.teacher_visits < 1:
            raise ValueError("teacher_iters and teacher_visits must be >= 1")
        if self.teacher_options:
            self.check_teacher_options()
        if self.init and not Path(self.init).is_file():
            raise ValueError(f"init model {self.init} does not exist")
        if self.init:
            self.check_init(value_model.load_model(self.init))
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a finite number > 0 such as 0.001, not {self.lr}")
        if self.seed < 0 or self.eval_deals < 0 or self.ismcts_deals < 0:
            raise ValueError("seed, eval_deals and ismcts_deals must be >= 0")

    def game_params(self) -> dict[str, Any]:
        """The OpenSpiel parameters of the run's game (typed)."""
        from zwick_ai.games.game_strings import game_params

        given: dict[str, Any] = {"variant": self.variant, "players": self.players}
        for item in filter(None, self.options.split(",")):
            name, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"game option {item!r} is not NAME=VALUE")
            given[name.strip()] = value.strip()
        return game_params("zwicker", given)

    def check_options(self) -> None:
        """Refuse game options that are not the game's (one sentence)."""
        import pyspiel

        import zwick_ai.games  # noqa: F401  (registers the games)

        params = self.game_params()
        if params["variant"] != self.variant or int(params["players"]) != self.players:
            raise ValueError("give the variant and players with --variant and --players, not as game options")
        try:
            pyspiel.load_game(self.game_string())
        except (RuntimeError, ValueError) as error:
            raise ValueError(f"cannot load {self.game_string()}: {str(error).strip().splitlines()[0]}") from None

    def check_teacher_options(self) -> None:
        """Refuse teacher options that are not the expert teacher's valid parameters (one sentence)."""
        if self.teacher != "expert":
            raise ValueError(f"teacher options {self.teacher_options!r} are expert parameters; give --teacher expert")
        import pyspiel

        from zwick_ai.learn.search_teacher import teacher_search

        teacher_search("expert", self.teacher_iters, pyspiel.load_game(self.game_string()), self.teacher_options)

    def check_init(self, init: value_model.ValueModel) -> None:
        """Refuse an ``--init`` model that is no after model of this run's game and inputs (before any
        compiled self-play reads it)."""
        if init.meta.get("kind") != value_model.AFTER:
            raise ValueError(f"init model {self.init} is a {init.meta.get('kind')} model; --init takes an after model")
        rules = game_rules(self)
        value_model.check_fits(init, rules, self.init)
        want = value_model.input_size(value_model.AFTER, rules.deck_size if self.cards else 0)
        if init.mean.shape != (want,):
            raise ValueError(
                f"init model {self.init} has {init.mean.shape[0]} inputs; this run's (cards={self.cards}) have {want}"
            )

    def game_string(self) -> str:
        if not self.options:
            return f"zwicker(variant={self.variant},players={self.players})"
        return "zwicker(" + ",".join(f"{k}={v}" for k, v in self.game_params().items()) + ")"


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ValueError("zwick train net needs PyTorch: pip install 'zwick_ai[train]'") from None
    return torch


def build_model(cfg: NetConfig, mean: np.ndarray, scale: np.ndarray, target_scale: float) -> Any:
    """The PyTorch after model: input standardization buffers (``mean``, ``scale``: one per input),
    two ReLU hidden layers, one output in points (the points still to come after the move)."""
    torch = _torch()

    class AfterNet(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
            self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
            self.register_buffer("target_scale", torch.tensor(float(target_scale), dtype=torch.float32))
            self.hidden1 = torch.nn.Linear(len(mean), cfg.hidden[0])
            self.hidden2 = torch.nn.Linear(cfg.hidden[0], cfg.hidden[1])
            self.output = torch.nn.Linear(cfg.hidden[1], 1)

        def forward(self, x: Any) -> Any:
            z = (x.to(self.mean.dtype) - self.mean) / self.scale
            z = torch.relu(self.hidden1(z))
            z = torch.relu(self.hidden2(z))
            return self.output(z).squeeze(-1) * self.target_scale

    return AfterNet()


def export_model(model: Any, meta: dict[str, Any]) -> value_model.ValueModel:
    """The numba play format of ``model`` (an *after* :class:`~zwick_ai.agents.value_model.ValueModel`;
    ``meta["deck"]`` is the deck size): the compiled forward pass computes what the PyTorch one does."""
    state = {k: v.detach().double().numpy() for k, v in model.state_dict().items()}
    ts = float(state["target_scale"])
    layers = [
        Layer(state["hidden1.weight"].T.copy(), state["hidden1.bias"].copy()),
        Layer(state["hidden2.weight"].T.copy(), state["hidden2.bias"].copy()),
        Layer(state["output.weight"].T.copy() * ts, state["output.bias"].copy() * ts),
    ]
    return value_model.ValueModel(
        state["mean"].copy(), state["scale"].copy(), layers, dict(meta, kind=value_model.AFTER)
    )


def import_model(cfg: NetConfig, after: value_model.ValueModel) -> Any:
    """The PyTorch model of the after model ``after`` (the inverse of :func:`export_model`; its
    layer sizes must be ``cfg.hidden``)."""
    torch = _torch()
    hidden = tuple(layer.weights.shape[1] for layer in after.layers[:-1])
    if hidden != tuple(cfg.hidden):
        raise ValueError(f"init model has hidden layers {','.join(map(str, hidden))}; the run's are {cfg.hidden}")
    model = build_model(cfg, after.mean, after.scale, 1.0)
    with torch.no_grad():
        for torch_layer, layer in zip((model.hidden1, model.hidden2, model.output), after.layers, strict=True):
            torch_layer.weight.copy_(torch.as_tensor(layer.weights.T))
            torch_layer.bias.copy_(torch.as_tensor(layer.bias))
    return model


def load_weights(path: Path) -> dict[str, Any]:
    """The PyTorch state of a generation's ``gen-NNN.pt`` (tensors only: ``weights_only``), or one
    ``ValueError`` naming the file when it is truncated, damaged or not a generation's."""
    torch = _torch()
    try:
        state = torch.load(path, weights_only=True)["model"]
    except Exception as error:  # torch's readers raise several kinds for a damaged file
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"{path} is damaged or not a generation of this run ({first[:120]}); move it away") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path} is not a generation of this run; move it away")
    return state


class NetRun:
    """One run folder of :func:`train_net`."""

    def __init__(self, cfg: NetConfig, out: Path):
        self.cfg = cfg
        self.out = Path(out)

    def path(self, g: int, ext: str) -> Path:
        return self.out / f"gen-{g:03d}.{ext}"

    def shard(self, g: int) -> Path:
        return self.out / "shards" / f"gen-{g:03d}.npz"

    def average_path(self, g: int, k: int, ext: str = "npz") -> Path:
        """The average of generations ``g - k + 1 .. g`` (:func:`export_average`)."""
        return self.out / f"avg{k}-{g:03d}.{ext}"

    def claim(self) -> None:
        """Write or check ``config.json`` (a different configuration in ``out`` is refused)."""
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "shards").mkdir(exist_ok=True)
        path = self.out / "config.json"
        want = json.loads(json.dumps(asdict(self.cfg)))
        if path.exists():
            defaults = asdict(NetConfig())
            there = read_json(path)
            if not isinstance(there, dict):
                raise ValueError(f"{path} is damaged or not ours (not a run configuration)")
            there = {**{k: v for k, v in defaults.items() if k not in there}, **there}  # runs before a field existed
            if there != want:
                diff = sorted(k for k in set(there) | set(want) if there.get(k) != want.get(k))
                raise ValueError(f"{self.out} holds a run with another configuration ({', '.join(diff)} differ)")
        else:
            path.write_text(json.dumps(want, indent=1, sort_keys=True) + "\n")

    def finished(self) -> int:
        """How many generations have their checkpoint."""
        g = 0
        while self.path(g, "pt").exists():
            g += 1
        return g


def game_rules(cfg: NetConfig) -> Any:
    """The engine rules (:class:`zwick_ai.zwicker.rules.Rules`) of the run's game (the variant's
    defaults and the run's ``options``)."""
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)

    return pyspiel.load_game(cfg.game_string()).rules


def rules_array(cfg: NetConfig) -> np.ndarray:
    """The engine rules of the run's game as the compiled code's array."""
    return game_rules(cfg).array()


CHUNK_HANDS = 500  # hands per self-play call (a progress step; workers take chunks in turn)


def card_total(cfg: NetConfig) -> float:
    """The points of the run's pack (the teacher search's reward scale)."""
    import pyspiel

    import zwick_ai.games  # noqa: F401  (registers the games)

    return float(pyspiel.load_game(cfg.game_string()).rules.card_total)


def play_chunk(cfg: NetConfig, seeds: np.ndarray, model_path: str) -> ShardRecords:
    """Self-play records of the hands ``seeds`` by the after model in ``model_path`` (empty: greedy),
    with the teacher's targets when the run has one; under a search teacher on the mover's view
    (``ismcts``, ``expert``) the teacher plays the hands (:func:`~zwick_ai.learn.search_teacher.after_records`)."""
    if model_path:
        policy, arrays = policy_codes.POLICY_NET_AFTER, value_model.load_model(model_path).arrays()
    else:
        policy, arrays = policy_codes.POLICY_GREEDY, value_model.empty_model()
    if cfg.teacher in SEARCH_TEACHERS:  # the teacher plays the hands: the model has no say
        return after_records(
            cfg.game_string(),
            seeds,
            cfg.teacher,
            cfg.teacher_iters,
            cfg.teacher_visits,
            cfg.eps,
            cfg.seed,
            cfg.teacher_options,
        )
    R = rules_array(cfg)
    if cfg.teacher == "peek":
        rollout = policy_codes.PLAYOUT_POLICIES[cfg.teacher_rollout]
        settings = zwicker_search.Settings(TEACHER_C, rollout, False, card_total(cfg))
        return net_selfplay.selfplay_search_targets(
            R, seeds, policy, cfg.eps, arrays, cfg.teacher_iters, settings, cfg.teacher_visits
        )
    return net_selfplay.selfplay_afterstates(R, seeds, policy, cfg.eps, arrays)


def _chunk_task(task: tuple[int, NetConfig, np.ndarray, str]) -> ShardRecords:
    """:func:`play_chunk` of ``task = (chunk index, cfg, seeds, model_path)``, wherever the task runs
    (a local worker or a Ray node; the model file must be at the same path there)."""
    return play_chunk(*task[1:])


class GenerationStopped(Exception):
    """A generation's play given up before its last chunk (:func:`play_generation`'s ``stop``)."""


def play_generation(
    cfg: NetConfig,
    g: int,
    model_path: str,
    runner: Backend | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep: Path | None = None,
    stop: threading.Event | None = None,
) -> ShardRecords:
    """Generation ``g``'s self-play records (:class:`~zwick_ai.learn.net_selfplay.ShardRecords`),
    played by the after model in ``model_path`` (empty: greedy), in chunks of :data:`CHUNK_HANDS`
    hands (:data:`TEACHER_CHUNK_HANDS` under a search teacher) as tasks of ``runner`` (local
    processes or Ray, :mod:`zwick_ai.backends`; None: this process); the records do not
    depend on where the chunks ran. With a folder ``keep`` every chunk is saved there as it
    arrives and read back instead of played again (a stopped generation resumes). ``progress(done,
    total)`` is called with hands played. Once ``stop`` is set, the generation raises
    :class:`GenerationStopped` when the next chunk arrives (the chunks kept so far stay)."""
    seeds = np.arange(cfg.hands, dtype=np.int64) + cfg.seed * SEED_STRIDE + g * cfg.hands
    size = TEACHER_CHUNK_HANDS if cfg.teacher in SEARCH_TEACHERS else CHUNK_HANDS
    chunks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
    kept = [None if keep is None else keep / f"chunk-{i:04d}.npz" for i in range(len(chunks))]
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda _done, _total: None)
    parts: list[ShardRecords | None] = [
        net_selfplay.load_shard(path) if path is not None and path.exists() else None for path in kept
    ]
    done = sum(len(c) for c, p in zip(chunks, parts, strict=True) if p is not None)
    say(done, len(seeds))
    todo = [i for i, p in enumerate(parts) if p is None]
    with contextlib.ExitStack() as stack:
        run = runner or stack.enter_context(make_backend("local", 1))
        tasks = [(i, cfg, chunks[i], model_path) for i in todo]
        for (i, *_), records in run.map_unordered(_chunk_task, tasks, chunksize=1):
            parts[i] = records
            if kept[i] is not None:
                net_selfplay.save_shard(kept[i], records)
            done += len(chunks[i])
            say(done, len(seeds))
            if stop is not None and stop.is_set() and done < len(seeds):
                raise GenerationStopped(f"generation {g} stopped after {done} of {len(seeds)} hands")
    offsets = np.cumsum([0] + [len(c) for c in chunks])
    whole = [p for p in parts if p is not None]
    joined = {name: np.concatenate([getattr(p, name) for p in whole]) for name in SHARD_FIELDS if name != "hand"}
    hand = np.concatenate([p.hand + np.int32(o) for p, o in zip(whole, offsets, strict=False)])
    return ShardRecords(**joined, hand=hand)


def _mse(model: Any, x: Any, y: Any) -> float:
    torch = _torch()
    with torch.no_grad():
        return float(torch.mean((model(x) - y) ** 2))


def fit_generation(cfg: NetConfig, run: NetRun, g: int) -> tuple[Any, dict[str, float]]:
    """Train generation ``g`` from ``g - 1``'s checkpoint on the window's shards (target: the points
    still to come after each recorded move); returns the model and its loss row."""
    torch = _torch()
    torch.manual_seed(cfg.seed * SEED_STRIDE + g)
    xs, ys, held = [], [], []
    for h in range(max(0, g - cfg.window + 1), g + 1):
        shard = net_selfplay.load_shard(run.shard(h))
        features = shard.features
        xs.append(np.concatenate((features, shard.cards.astype(np.float32)), axis=1) if cfg.cards else features)
        if cfg.teacher == "none":
            returns = net_selfplay.lambda_returns(shard.final, shard.value, shard.player, shard.hand, cfg.lam)
            ys.append(returns - shard.lead)
        else:
            ys.append(shard.final - shard.lead)  # the teacher's value of each record's move
        held.append(shard.hand % HELDOUT_EVERY == 0)
    X = np.concatenate(xs)
    Y = np.concatenate(ys).astype(np.float32)
    H = np.concatenate(held)
    del xs, ys
    if g == 0 and cfg.init:
        model = import_model(cfg, value_model.load_model(cfg.init))
    elif g == 0:
        mean = np.zeros(X.shape[1])
        scale = np.ones(X.shape[1])
        mean[:NFEAT] = X[~H, :NFEAT].mean(axis=0)
        spread = X[~H, :NFEAT].std(axis=0)
        scale[:NFEAT] = np.where(spread > 1e-6, spread, 1.0)  # the card-level 0/1 inputs stay as they are
        model = build_model(cfg, mean, scale, max(float(Y.std()), 1.0))
    else:
        model = build_model(cfg, np.zeros(X.shape[1]), np.ones(X.shape[1]), 1.0)
        try:
            model.load_state_dict(load_weights(run.path(g - 1, "pt")))
        except RuntimeError as error:  # layers of another shape
            raise ValueError(
                f"{run.path(g - 1, 'pt')} holds another network ({str(error).splitlines()[0][:120]})"
            ) from None
    Xt, Yt = torch.from_numpy(X[~H]), torch.from_numpy(Y[~H])
    Xh, Yh = torch.from_numpy(X[H]), torch.from_numpy(Y[H])
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    gen = torch.Generator().manual_seed(cfg.seed * SEED_STRIDE + g)
    for _ in range(cfg.epochs):
        order = torch.randperm(len(Xt), generator=gen)
        for start in range(0, len(order), cfg.batch):
            idx = order[start : start + cfg.batch]
            opt.zero_grad()
            loss = torch.mean((model(Xt[idx]) - Yt[idx]) ** 2)
            loss.backward()
            opt.step()
    row = {
        "generation": g,
        "records": len(X),
        "train_mse": _mse(model, Xt[:50_000], Yt[:50_000]),
        "heldout_mse": _mse(model, Xh, Yh),
        "heldout_var": float(Y[H].var()),
    }
    return model, row


def _strength_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``strength.json`` (``ValueError`` naming a damaged one)."""
    rows = read_json(path)
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{path} is damaged or not ours (not a list of strength rows); move it away")
    return rows


def _write_csv(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    with replacing(path) as tmp, tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def write_curves(run: NetRun) -> None:
    """Rebuild ``loss.csv``, ``strength.csv`` and their plots from the finished generations."""
    gens = range(run.finished())
    _write_csv(
        run.out / "loss.csv", LOSS_FIELDS, [value_model.load_model(run.path(g, "npz")).meta["loss"] for g in gens]
    )
    rows = []
    for g in gens:
        path = run.path(g, "strength.json")
        if path.exists():
            rows += [{"weights": GENERATION_WEIGHTS, **r} for r in _strength_rows(path)]
    for path in sorted(run.out.glob("avg*-*.strength.json")):
        rows += _strength_rows(path)
    rows.sort(key=lambda r: (r["weights"] != GENERATION_WEIGHTS, r["weights"], r["generation"]))
    _write_csv(run.out / "strength.csv", STRENGTH_FIELDS, rows)
    plot_curves(run)


def read_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV written by this module (none if it does not exist)."""
    if not path.exists():
        return []
    with path.open() as fh:
        return list(csv.DictReader(fh))


def strength(cfg: NetConfig, run: NetRun, g: int, duel: Duel, average: int = 0) -> list[dict[str, Any]]:
    """Generation ``g`` (or the average of the ``average`` generations up to ``g``) against greedy
    (and ISMCTS) on the fixed duplicate deals, each measured by ``duel``."""
    rows = []
    model = run.average_path(g, average) if average else run.path(g, "npz")
    spec = f"net:model={model}"
    for opponent, deals in (("greedy", cfg.eval_deals), (ISMCTS_SPEC, cfg.ismcts_deals)):
        if deals < 1:
            continue
        folder = run.out / "strength" / f"{model.stem}-{opponent.split(':')[0]}"
        mean, low, high = duel([spec, opponent], cfg.game_params(), deals, EVAL_SEED, folder)
        rows.append(
            {
                "generation": g,
                "weights": f"average of {average}" if average else GENERATION_WEIGHTS,
                "opponent": opponent,
                "deals": deals,
                "mean_diff": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return rows


def plot_curves(run: NetRun) -> None:
    """``loss.png`` and ``strength.png`` from the CSVs."""
    from zwick_ai.plots import pyplot as load_pyplot

    pyplot = load_pyplot()
    loss = read_rows(run.out / "loss.csv")
    if loss:
        fig, ax = pyplot.subplots(figsize=(6, 4))
        gens = [int(r["generation"]) for r in loss]
        ax.plot(gens, [float(r["heldout_mse"]) for r in loss], "o-", label="held-out MSE")
        ax.plot(gens, [float(r["train_mse"]) for r in loss], "s--", label="training MSE")
        ax.plot(gens, [float(r["heldout_var"]) for r in loss], ":", label="held-out variance")
        ax.set_xlabel("generation")
        ax.set_ylabel("points²")
        ax.legend()
        ax.set_title(f"zwick train net: {run.cfg.variant} loss")
        fig.tight_layout()
        save_png(fig, run.out / "loss.png", dpi=100)
        pyplot.close(fig)
    rows = read_rows(run.out / "strength.csv")
    if rows:
        fig, ax = pyplot.subplots(figsize=(6, 4))
        for weights, opponent in dict.fromkeys((r["weights"], r["opponent"]) for r in rows):
            sel = [r for r in rows if r["opponent"] == opponent and r["weights"] == weights]
            gens = [int(r["generation"]) for r in sel]
            mean = [float(r["mean_diff"]) for r in sel]
            low = [float(r["ci_low"]) for r in sel]
            high = [float(r["ci_high"]) for r in sel]
            ax.errorbar(
                gens,
                mean,
                yerr=[np.subtract(mean, low), np.subtract(high, mean)],
                fmt="o-",
                capsize=3,
                label=f"{'' if weights == GENERATION_WEIGHTS else weights + ' '}− {opponent} ({sel[0]['deals']} deals)",
            )
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel("generation")
        ax.set_ylabel("points per deal (95% CI)")
        ax.legend()
        ax.set_title(f"zwick train net: {run.cfg.variant} strength")
        fig.tight_layout()
        save_png(fig, run.out / "strength.png", dpi=100)
        pyplot.close(fig)


def _say_hands(say: Progress, g: int, done: int, total: int) -> None:
    say(g, f"self-play {done}/{total} hands")


def check_average(average: int) -> None:
    """Refuse an ``average`` (generations averaged, :func:`export_average`) no run can use."""
    if average < 0 or average == 1:
        raise ValueError(f"average must be 0 (off) or at least 2 generations, got {average}")


def export_average(run: NetRun, g: int, k: int) -> Path:
    """Write the average of generations ``g - k + 1 .. g``'s weights (:func:`~zwick_ai.learn.model_files.average_models`)
    as ``avgK-GGG.npz``, once (an existing file is kept); returns its path."""
    path = run.average_path(g, k)
    if not path.exists():
        models = [value_model.load_model(run.path(h, "npz")) for h in range(g - k + 1, g + 1)]
        meta = {**models[-1].meta, "averaged_generations": [g - k + 1, g]}
        model_files.save_model(model_files.average_models(models, meta), path)
    return path


def train_net(
    cfg: NetConfig,
    out: Path,
    hours: float,
    max_generations: int | None = None,
    progress: Progress | None = None,
    pool: BackendRequest = ONE_LOCAL_WORKER,
    average: int = 0,
    duel: Duel | None = None,
) -> int:
    """Run generations into ``out`` until ``hours`` of wall time are used (a generation started is
    finished) or ``max_generations`` exist, self-play over ``pool``'s local processes or Ray tasks
    (the results do not depend on it); returns the number of finished generations. With ``average`` K >= 2, every
    generation from the K-th on also gets the average of the last K generations' weights
    (:func:`export_average`; self-play still plays the generations themselves) and its strength
    curve. ``duel`` measures the strength (:data:`Duel`; ``zwick train net`` passes
    :func:`zwick_ai.eval.orchestrate.duel`); a configuration of strength deals needs one."""
    torch = _torch()
    torch.set_num_threads(1)
    cfg.check()
    if hours <= 0:
        raise ValueError(f"hours must be > 0, got {hours}")
    check_average(average)
    if (cfg.eval_deals or cfg.ismcts_deals) and duel is None:
        raise ValueError(
            "strength deals (eval_deals, ismcts_deals) need a duel to play them; pass one or set them to 0"
        )
    run = NetRun(cfg, out)
    run.claim()
    start = time.monotonic()
    g = run.finished()
    say = progress or (lambda _g, _what: None)

    def evaluate(h: int) -> None:
        measure = duel if cfg.eval_deals or cfg.ismcts_deals else None  # deals without a duel: refused above
        if measure is not None and not run.path(h, "strength.json").exists():
            say(h, "strength")
            rows = strength(cfg, run, h, measure)
            run.path(h, "strength.json").write_text(json.dumps(rows, indent=1) + "\n")
            write_curves(run)
        if average and h >= average - 1:
            export_average(run, h, average)
            if measure is not None and not run.average_path(h, average, "strength.json").exists():
                say(h, f"strength of the average of {average}")
                rows = strength(cfg, run, h, measure, average)
                run.average_path(h, average, "strength.json").write_text(json.dumps(rows, indent=1) + "\n")
                write_curves(run)

    for h in range(g):  # generations a stopped run left unevaluated
        evaluate(h)
    with pool.make() as runner:
        return _generations(cfg, run, g, start, hours, max_generations, runner, evaluate, say)


def _generations(
    cfg: NetConfig,
    run: NetRun,
    g: int,
    start: float,
    hours: float,
    max_generations: int | None,
    runner: Backend,
    evaluate: Callable[[int], None],
    say: Callable[[int, str], None],
) -> int:
    """:func:`train_net`'s loop of generations from ``g``: self-play on ``runner``, fit, export,
    evaluate; returns the number of finished generations. Under a search teacher the model has no
    say in the hands, so generation ``g + 1``'s hands are played (on a second thread, by the
    runner's workers) while generation ``g`` is fitted and evaluated: the same records, sooner. When
    the loop ends with them unfinished (the budget, an error, a stop signal), they stop at the next
    chunk, and the kept chunks resume them."""
    torch = _torch()
    pipelined = cfg.teacher in SEARCH_TEACHERS  # the model has no say in the hands: they can be played early
    ahead: threading.Thread | None = None
    stop = threading.Event()
    failed: list[BaseException] = []

    def play_ahead(h: int) -> None:
        try:
            with contextlib.suppress(GenerationStopped):  # a stopped generation's kept chunks resume it
                _play_and_save(cfg, run, h, runner, stop=stop)
        except BaseException as error:  # noqa: BLE001  (raised again in the loop's thread)
            failed.append(error)

    def time_left() -> bool:
        return time.monotonic() - start < hours * 3600

    try:
        while (max_generations is None or g < max_generations) and time_left():
            if ahead is not None:  # this generation's hands, started while the last one was fitted
                say(g, "self-play")
                ahead.join()
                ahead = None
                if failed:
                    raise failed[0]
            if not run.shard(g).exists():
                say(g, "self-play")
                _play_and_save(cfg, run, g, runner, functools.partial(_say_hands, say, g))
            if pipelined and (max_generations is None or g + 1 < max_generations) and not run.shard(g + 1).exists():
                ahead = threading.Thread(target=play_ahead, args=(g + 1,), name=f"zwick-play-gen-{g + 1}")
                ahead.start()
            say(g, "fit")
            model, row = fit_generation(cfg, run, g)
            rules = game_rules(cfg)
            meta = {
                **value_model.game_meta(cfg.variant, cfg.players, rules, cfg.game_string()),
                "deck": rules.deck_size if cfg.cards else 0,
                "generation": g,
                "config": asdict(cfg),
                "loss": row,
            }
            if run.path(g, "npz").exists():
                run.path(g, "npz").unlink()  # an export left by a run stopped before its checkpoint
            model_files.save_model(export_model(model, meta), run.path(g, "npz"))
            tmp = run.out / f"gen-{g:03d}.pt.tmp"
            torch.save({"model": model.state_dict()}, tmp)
            tmp.replace(run.path(g, "pt"))
            write_curves(run)
            evaluate(g)
            g += 1
    finally:
        if ahead is not None:  # the budget ran out, or an error or a stop signal: keep what is played, stop the rest
            stop.set()
            ahead.join()
    return g


def _play_and_save(
    cfg: NetConfig,
    run: NetRun,
    g: int,
    runner: Backend,
    progress: Callable[[int, int], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Play generation ``g``'s hands (by generation ``g - 1``'s model, or the teacher) and save its
    shard and its rate (``shards/gen-GGG.json``)."""
    taught = cfg.teacher in SEARCH_TEACHERS  # the teacher plays the hands, not a model
    previous = "" if taught else (str(run.path(g - 1, "npz")) if g > 0 else cfg.init)
    t0 = time.monotonic()
    keep = run.out / "shards" / f"gen-{g:03d}.chunks" if taught else None
    records = play_generation(cfg, g, previous, runner, progress, keep, stop)
    net_selfplay.save_shard(run.shard(g), records)
    if keep is not None:
        shutil.rmtree(keep)  # every chunk is in the generation's shard now
    seconds = time.monotonic() - t0
    timing = {
        "generation": g,
        "hands": cfg.hands,
        "records": len(records.features),
        "seconds": round(seconds, 2),
        "records_per_second": round(len(records.features) / max(seconds, 1e-9), 1),
        "workers": runner.workers,
    }
    (run.out / "shards" / f"gen-{g:03d}.json").write_text(json.dumps(timing) + "\n")


__all__ = [
    "TEACHERS",
    "GenerationStopped",
    "NetConfig",
    "NetRun",
    "build_model",
    "check_average",
    "export_average",
    "export_model",
    "fit_generation",
    "import_model",
    "play_generation",
    "train_net",
]
