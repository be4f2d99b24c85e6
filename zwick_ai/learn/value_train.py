"""Training the Zwicker move and value models with scikit-learn (``pip install zwick_ai[train]``).

:func:`train_value` works in ``out`` in three steps, each resumable:

1. *positions*: ``hands`` hands of greedy self-play in compiled code
   (:func:`zwick_ai.learn.value_selfplay.selfplay_positions`; each move replaced by a uniformly
   random one with probability ``eps`` so that play strays from greedy's lines). At a share
   ``record`` of the decisions every card move is applied and played out by greedy with common
   random numbers, giving each candidate's features and final point difference. Chunks of
   :data:`CHUNK_HANDS` hands are saved as they finish;
2. *fit*: for each model kind a :class:`sklearn.neural_network.MLPRegressor` (two ReLU hidden
   layers, Adam, standardized inputs, target divided by its spread), one ``partial_fit`` pass per
   epoch with a checkpoint after each; the epoch with the lowest held-out loss is exported:

   * ``move``: input a candidate's features minus the mean over its decision's candidates, and
     that mean; target its final difference minus the decision's mean (what ``net`` maximizes;
     the common random numbers make these differences far less noisy than the outcomes);
   * ``value``: input the features; target the final difference minus the lead so far (what a
     search adds to the lead at a leaf).

   A tenth of the hands (hand index ``% HELDOUT_EVERY == 0``, never trained on) gives the
   held-out loss curve (``loss.csv``, ``loss.png``: mean squared error in points squared, next to
   the held-out variance of the target, the loss of always predicting the mean; both weighted by
   the candidates' weights, which are 1 except under a search teacher);
3. *export*: ``move.npz`` and ``value.npz``
   (:class:`~zwick_ai.agents.value_model.ValueModel`).

With ``teacher="ismcts"`` the candidates' outcomes come from a search instead of one greedy
play-out each (:func:`teacher_positions`): the hands are played by ISMCTS
(:mod:`zwick_ai.agents.zwicker_search`, ``teacher_iters`` iterations per decision, random
rollouts, ``c`` = 0.7; each move replaced by a random one with probability ``eps``), and at every
decision with two or more card moves each candidate's target is the search's mean reward of that
move in points (its "Q"), weighted by its visits in the fit (a move tried a few times has a noisy
mean). The decision's baseline is then the visit-weighted mean, the search's value of the
position. This distils the search into the move model: far less noisy targets than one play-out
per candidate (whose outcomes differ by about 10 points from the move alone), at about
``teacher_iters`` play-outs per decision. ``teacher="expert"`` plays the hands with the ``expert``
agent (its defaults, ``teacher_iters`` iterations, no clock: :func:`zwick_ai.agents.expert.expert_root`)
instead; in its endgame every candidate's target is its exact value (mean over the solved worlds),
each weighted ``teacher_iters`` / the number of candidates, so that such a decision weighs as much
as a searched one. Distilling the expert into the value model its own stage leaf reads is one step
of expert iteration.

The same command resumes an interrupted run from its last chunk or epoch; a finished file is
never rewritten, and a different configuration in an existing ``out`` is refused. Every random
choice comes from ``seed``.
"""

from __future__ import annotations

import csv
import json
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zwick_ai.agents import value_model
from zwick_ai.deferred_signals import deferred_signals
from zwick_ai.files import load_npz
from zwick_ai.learn import model_files, value_selfplay
from zwick_ai.learn.search_teacher import SEARCH_TEACHERS, teacher_search
from zwick_ai.mlp import Layer
from zwick_ai.plots import save_png
from zwick_ai.zwicker import policy_codes

CHUNK_HANDS = 250
TEACHER_CHUNK_HANDS = 20  # a searched hand takes seconds: smaller chunks lose less when stopped
TEACHERS = ("greedy", *SEARCH_TEACHERS)
HELDOUT_EVERY = 10
SEED_STRIDE = 1_000_003  # deal seeds start at seed * SEED_STRIDE
EPOCH_PIECE = 200_000  # an epoch's shuffled positions are fed in pieces of this size
MAX_TRAIN_EVAL = 50_000  # training positions on which the curve's training loss is measured
CURVE_FIELDS = ["model", "epoch", "positions", "train_mse", "heldout_mse", "heldout_var"]

Progress = Callable[[str, int, int, dict[str, float]], None]


@dataclass(frozen=True)
class ValueConfig:
    """Everything that decides a training run's result."""

    variant: str
    players: int
    hands: int = 10000
    record: float = 0.3
    eps: float = 0.05
    hidden: tuple[int, int] = (32, 16)
    epochs: int = 8
    batch: int = 512
    lr: float = 1e-3
    alpha: float = 1e-4
    seed: int = 0
    teacher: str = "greedy"
    teacher_iters: int = 2000

    def as_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def _require_sklearn() -> Any:
    try:
        from sklearn.neural_network import MLPRegressor
    except ModuleNotFoundError:
        raise ValueError("training the value model needs scikit-learn: pip install 'zwick_ai[train]'") from None
    return MLPRegressor


#: the attributes of a fitted ``MLPRegressor`` and of its Adam optimizer that a checkpoint keeps:
#: plain numbers, strings and lists of arrays (the constructor's parameters come from the config)
NET_STATE = (
    "n_features_in_",
    "n_outputs_",
    "n_iter_",
    "t_",
    "n_layers_",
    "out_activation_",
    "loss_",
    "loss_curve_",
    "best_loss_",
    "_no_improvement_count",
    "validation_scores_",
    "best_validation_score_",
)
NET_ARRAYS = ("coefs_", "intercepts_", "_best_coefs", "_best_intercepts")
OPTIMIZER_STATE = ("learning_rate_init", "learning_rate", "beta_1", "beta_2", "epsilon", "t")
OPTIMIZER_ARRAYS = ("ms", "vs")
CHECKPOINT_FORMAT = 1


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (JSON writes floats exactly)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _new_net(cfg: ValueConfig) -> Any:
    return _require_sklearn()(
        hidden_layer_sizes=cfg.hidden,
        activation="relu",
        solver="adam",
        alpha=cfg.alpha,
        batch_size=cfg.batch,
        learning_rate_init=cfg.lr,
        random_state=cfg.seed,
        shuffle=False,  # each epoch is shuffled by the run's own generator
    )


def save_checkpoint(path: Path, net: Any, best: Weights, history: list[dict], rng: np.random.Generator) -> None:
    """Write the fit's state after an epoch as one ``.npz`` of arrays and a JSON record (nothing
    pickled), atomically: the network and its optimizer, the best epoch's weights, the curve rows
    and the shuffling generator."""
    from sklearn.neural_network._stochastic_optimizers import AdamOptimizer

    opt = net._optimizer
    if not isinstance(opt, AdamOptimizer):
        raise TypeError(f"a checkpoint holds an Adam optimizer, not {type(opt).__name__}")
    arrays: dict[str, np.ndarray] = {}
    for owner, names in (("net", NET_ARRAYS), ("opt", OPTIMIZER_ARRAYS), ("best", ("coefs_", "intercepts_"))):
        source = {"net": net, "opt": opt, "best": best}[owner]
        for name in names:
            for i, a in enumerate(getattr(source, name)):
                arrays[f"{owner}.{name}.{i}"] = np.asarray(a)
    legacy = net._random_state.get_state(legacy=True)  # scikit-learn's own generator (used at the start)
    arrays["net._random_state"] = legacy[1]
    record = {
        "format": CHECKPOINT_FORMAT,
        "net": {name: _plain(getattr(net, name)) for name in NET_STATE},
        "opt": {name: _plain(getattr(opt, name)) for name in OPTIMIZER_STATE},
        "random_state": [legacy[0], *(_plain(v) for v in legacy[2:])],
        "counts": {
            f"{o}.{n}": len(getattr(src, n))
            for o, src, names in (
                ("net", net, NET_ARRAYS),
                ("opt", opt, OPTIMIZER_ARRAYS),
                ("best", best, ("coefs_", "intercepts_")),
            )
            for n in names
        },
        "history": history,
        "rng": rng.bit_generator.state,
    }
    arrays["record"] = np.array(json.dumps(record))
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, allow_pickle=False, **arrays)  # named: no array may stand for numpy's flag
    tmp.replace(path)


def load_checkpoint(path: Path, cfg: ValueConfig) -> tuple[Any, Weights, list[dict], np.random.Generator]:
    """The state :func:`save_checkpoint` wrote (a clear error naming ``path`` for a broken file)."""
    from sklearn.neural_network._stochastic_optimizers import AdamOptimizer

    try:
        with np.load(path, allow_pickle=False) as z:
            record = json.loads(str(z["record"]))
            if record.get("format") != CHECKPOINT_FORMAT:
                raise ValueError(f"format {record.get('format')}, this zwick_ai reads {CHECKPOINT_FORMAT}")
            lists = {key: [z[f"{key}.{i}"] for i in range(int(n))] for key, n in record["counts"].items()}
            net = _new_net(cfg)
            for name, value in record["net"].items():
                if name not in NET_STATE:
                    raise ValueError(f"unknown field {name}")
                setattr(net, name, value)
            for name in NET_ARRAYS:
                setattr(net, name, lists[f"net.{name}"])
            opt = AdamOptimizer(lists["net.coefs_"] + lists["net.intercepts_"], record["opt"]["learning_rate_init"])
            for name, value in record["opt"].items():
                if name not in OPTIMIZER_STATE:
                    raise ValueError(f"unknown field {name}")
                setattr(opt, name, value)
            for name in OPTIMIZER_ARRAYS:
                setattr(opt, name, lists[f"opt.{name}"])
            net._optimizer = opt
            kind, *rest = record["random_state"]
            net._random_state = np.random.RandomState()
            net._random_state.set_state((kind, z["net._random_state"], *rest))
            best = Weights(lists["best.coefs_"], lists["best.intercepts_"])
            rng = np.random.default_rng()
            rng.bit_generator.state = record["rng"]
            history = list(record["history"])
    except (OSError, KeyError, ValueError, TypeError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(
            f"{path} is not a readable checkpoint of this run ({e}); remove it to refit that model"
        ) from None
    expected = [w.shape for w in best.coefs_]
    if [w.shape for w in net.coefs_] != expected or len(expected) != len(cfg.hidden) + 1:
        raise ValueError(f"{path} holds a network of another shape; remove it to refit that model")
    return net, best, history, rng


@dataclass
class Weights:
    """The layers of the best epoch so far (what :func:`to_model` exports)."""

    coefs_: list[np.ndarray]
    intercepts_: list[np.ndarray]

    @classmethod
    def of(cls, net: Any) -> Weights:
        return cls([w.copy() for w in net.coefs_], [b.copy() for b in net.intercepts_])


def check_config(cfg: ValueConfig) -> None:
    """Raise ``ValueError`` (naming what is valid) for a configuration that cannot be trained."""
    if cfg.hands < HELDOUT_EVERY or cfg.epochs < 1 or not 0 < cfg.record <= 1:
        raise ValueError(f"need hands >= {HELDOUT_EVERY}, epochs >= 1 and 0 < record <= 1 (got {cfg})")
    if cfg.teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {cfg.teacher!r}; valid: {', '.join(TEACHERS)}")
    if cfg.teacher_iters < 1:
        raise ValueError(f"teacher_iters must be at least 1 (got {cfg.teacher_iters})")


#: what remakes a run folder of an older zwick_ai, said when one is refused
REMAKE = "remake it with the same `zwick train value` command and a new --out folder"


def _check_config(out: Path, cfg: ValueConfig) -> None:
    path = out / "config.json"
    want = cfg.as_json()
    if path.exists():
        have = json.loads(path.read_text())
        missing = sorted(set(want) - set(have))
        if missing:  # a field added since: the run's chunks may not be what this version makes
            raise ValueError(f"{out} was made by an older zwick_ai (no {', '.join(missing)}); {REMAKE}")
        if have != want:
            diff = ", ".join(f"{k}: {have.get(k)} -> {v}" for k, v in want.items() if have.get(k) != v)
            raise ValueError(f"{out} holds a run with another configuration ({diff}); choose another --out")
        return
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(want, indent=1, sort_keys=True) + "\n")


def _chunk_seeds(cfg: ValueConfig, i: int) -> tuple[int, np.ndarray]:
    """(first hand index, deal seeds) of chunk ``i``."""
    size = chunk_hands(cfg)
    first = i * size
    count = min(size, cfg.hands - first)
    base = cfg.seed * SEED_STRIDE + first
    return first, np.arange(base, base + count, dtype=np.int64)


def chunk_hands(cfg: ValueConfig) -> int:
    """Hands per saved chunk of positions."""
    return CHUNK_HANDS if cfg.teacher == "greedy" else TEACHER_CHUNK_HANDS


def _chunk_arrays(task: tuple[ValueConfig, int]) -> dict[str, np.ndarray]:
    """Chunk ``i`` of the run ``cfg`` (``task = (cfg, i)``): its arrays, made wherever the task
    runs (a local worker or a Ray node); the caller saves them."""
    cfg, i = task
    first, seeds = _chunk_seeds(cfg, i)
    if cfg.teacher == "greedy":
        from zwick_ai.zwicker.rules import rules as make_rules

        R = make_rules(cfg.variant, cfg.players).array()
        played = value_selfplay.selfplay_positions(
            R, seeds, policy_codes.POLICY_GREEDY, cfg.eps, cfg.record, value_model.empty_model()
        )
        found = TaughtCandidates(**played._asdict(), weight=np.ones(len(played.final), np.float32))
    else:
        found = teacher_positions(cfg, seeds)
    return {
        "X": found.features,
        "final": found.final,
        "lead": found.lead,
        "dec": found.dec,
        "hand": found.hand + first,
        "weight": found.weight,
    }


def _save_chunk(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write a chunk's arrays to ``path`` (atomic: a stopped write leaves no chunk)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def positions(
    cfg: ValueConfig,
    out: Path,
    progress: Progress | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, np.ndarray]:
    """The self-play candidates of the run (generated chunk by chunk on ``workers`` local processes
    or as Ray tasks, :func:`zwick_ai.backends.make_backend`; each chunk saved here as it
    arrives, or read back): ``X`` (features), ``final``, ``lead``, ``dec`` (global decision index),
    ``hand`` (global hand index), ``weight`` (of each candidate in the fit)."""
    from zwick_ai.backends import make_backend

    folder = out / "positions"
    folder.mkdir(parents=True, exist_ok=True)
    chunks = -(-cfg.hands // chunk_hands(cfg))
    paths = [folder / f"chunk-{i:04d}.npz" for i in range(chunks)]
    missing = [i for i, path in enumerate(paths) if not path.exists()]
    done = chunks - len(missing)

    def tick() -> None:
        if progress:
            progress("positions", done, chunks, {})

    tick()
    if missing:
        with make_backend(backend, min(workers, len(missing)), address) as runner:
            for (_, i), arrays in runner.map_unordered(_chunk_arrays, [(cfg, i) for i in missing], chunksize=1):
                _save_chunk(paths[i], arrays)
                done += 1
                tick()
    parts: list[dict[str, np.ndarray]] = []
    decisions = 0
    for path in paths:
        part = load_npz(path)  # a damaged chunk: one error naming it
        if "weight" not in part:
            raise ValueError(f"{path} was written by an older zwick_ai (no weights); {REMAKE}")
        part["dec"] = part["dec"] + decisions
        decisions = int(part["dec"].max()) + 1 if len(part["dec"]) else decisions
        parts.append(part)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


class TaughtCandidates(NamedTuple):
    """Candidate moves with their weights in the fit: :class:`~zwick_ai.learn.value_selfplay.Candidates`'
    fields (under a teacher ``final`` is the search's mean reward of the move in points) and
    ``weight``."""

    features: np.ndarray
    final: np.ndarray
    lead: np.ndarray
    dec: np.ndarray
    hand: np.ndarray
    weight: np.ndarray  # [N] float32: 1, or the teacher's visits of the move


def teacher_positions(cfg: ValueConfig, seeds: np.ndarray) -> TaughtCandidates:
    """One hand per seed played by the search teacher (module docstring). Returns the candidates
    of each recorded decision, ``weight`` the move's visits, or under ``expert`` in the endgame,
    where every move's value is exact, ``teacher_iters`` shared equally; the candidates the search
    never tried are left out."""
    import zwick_ai.games  # noqa: F401  (registers the games)
    from zwick_ai.games import zwicker_bridge
    from zwick_ai.games.game_loop import play_to_end, stream_chance
    from zwick_ai.games.game_strings import load as load_game
    from zwick_ai.zwicker import kernels
    from zwick_ai.zwicker.features import F_LEAD, F_ZWICK, NFEAT
    from zwick_ai.zwicker.layout import KIND_ASK, M_KIND

    if cfg.teacher not in SEARCH_TEACHERS:
        raise ValueError(f"unknown search teacher {cfg.teacher!r}; valid: {', '.join(SEARCH_TEACHERS)}")
    game = load_game("zwicker", variant=cfg.variant, players=cfg.players)
    search = teacher_search(cfg.teacher, cfg.teacher_iters, game)
    W = kernels.new_workspace()
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("X", "final", "lead", "dec", "hand", "weight")}
    ndec = 0

    def play_hand(h: int, seed: int) -> None:
        """Hand ``h`` (deal ``seed``) played by the teacher, its decisions recorded in ``cols``."""
        rng = np.random.default_rng([cfg.seed, int(seed)])
        state = zwicker_bridge.state_from_seed(game, int(seed))
        R = state.rules.array()
        total = float(state.rules.card_total)

        def decide(state: Any) -> list[int]:
            nonlocal ndec
            decision = state.decision()
            rows = decision.candidates
            n = len(rows)
            pick = 0
            if n > 1:
                visits, mean, best = search(state, rng)
                if int((rows[:, M_KIND] != KIND_ASK).sum()) >= 2:
                    F = np.zeros((n, NFEAT), np.float64)
                    ok = value_model.candidate_features(R, decision.position, rows, n, W, F) & (visits > 0)
                    if ok.sum() >= 2:
                        cols["X"].append(F[ok].astype(np.float32))
                        cols["final"].append((mean[ok] * total).astype(np.float32))
                        cols["lead"].append((F[ok, F_LEAD] + F[ok, F_ZWICK]).astype(np.float32))
                        cols["dec"].append(np.full(int(ok.sum()), ndec, np.int32))
                        cols["hand"].append(np.full(int(ok.sum()), h, np.int32))
                        cols["weight"].append(visits[ok].astype(np.float32))
                        ndec += 1
                pick = int(rng.integers(n)) if rng.random() < cfg.eps else best  # else the agent's choice
            return zwicker_bridge.move_actions(state, rows[pick])

        play_to_end(state, decide, stream_chance(rng))

    for h, seed in enumerate(seeds):
        play_hand(h, int(seed))
    if not cols["X"]:
        return TaughtCandidates(
            np.zeros((0, NFEAT), np.float32),
            *(
                np.zeros(0, np.int32 if k in ("dec", "hand") else np.float32)
                for k in ("final", "lead", "dec", "hand", "weight")
            ),
        )
    return TaughtCandidates(*(np.concatenate(cols[k]) for k in ("X", "final", "lead", "dec", "hand", "weight")))


def model_data(kind: str, data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (float32) and targets (float64) of a ``kind`` model (module docstring) from
    :func:`positions`' arrays."""
    X = np.asarray(data["X"], np.float32)
    final = data["final"].astype(np.float64)
    if kind == "value":
        return X, final - data["lead"]
    dec = data["dec"]
    counts = np.maximum(np.bincount(dec), 1)
    mean_x = np.zeros((len(counts), X.shape[1]), np.float64)
    np.add.at(mean_x, dec, X)
    mean_x /= counts[:, None]
    weight = data["weight"].astype(np.float64) if "weight" in data else np.ones(len(final))
    mean_y = np.bincount(dec, weights=final * weight) / np.maximum(np.bincount(dec, weights=weight), 1e-12)
    ctx = mean_x[dec].astype(np.float32)
    return np.hstack([X - ctx, ctx]), final - mean_y[dec]


def to_model(net: Any, mean: np.ndarray, scale: np.ndarray, y_scale: float, meta: dict) -> value_model.ValueModel:
    """A fitted ``MLPRegressor`` (standardized inputs, target / ``y_scale``) as a model in points."""
    (W1, W2, W3), (b1, b2, b3) = (
        (np.asarray(a, np.float64) for a in net.coefs_),
        (np.asarray(a, np.float64) for a in net.intercepts_),
    )
    # float64: no rounding of the output scale
    layers = [Layer(W1, b1), Layer(W2, b2), Layer(W3 * y_scale, b3 * y_scale)]
    return value_model.ValueModel(mean.astype(np.float64), scale.astype(np.float64), layers, meta)


def _write_curve(out: Path, history: list[dict[str, Any]]) -> None:
    with (out / "loss.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        w.writeheader()
        for row in history:
            w.writerow(row)
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    kinds = sorted({h["model"] for h in history})
    fig, axes = pyplot.subplots(1, len(kinds), figsize=(5 * len(kinds), 3.6), squeeze=False)
    for ax, kind in zip(axes[0], kinds, strict=True):
        rows = [h for h in history if h["model"] == kind]
        xs = [h["epoch"] for h in rows]
        ax.plot(xs, [h["train_mse"] for h in rows], marker=".", label="train")
        ax.plot(xs, [h["heldout_mse"] for h in rows], marker="o", label="held-out")
        ax.plot(xs, [h["heldout_var"] for h in rows], ls="--", color="grey", label="held-out variance")
        ax.set_xlabel("epoch")
        ax.set_ylabel("mean squared error (points²)")
        ax.set_title(f"{kind} model, {out.name}", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_png(fig, out / "loss.png", dpi=100)
    pyplot.close(fig)


def fit(
    kind: str,
    cfg: ValueConfig,
    data: dict[str, np.ndarray],
    out: Path,
    history: list[dict[str, Any]],
    progress: Progress | None = None,
) -> value_model.ValueModel:
    """Fit (or resume, or read back) the ``kind`` model of the run; appends its curve to ``history``."""
    done = out / f"{kind}.npz"
    if done.exists():
        model = value_model.load_model(done)
        history += model.meta["history"]
        return model
    _require_sklearn()
    from threadpoolctl import threadpool_limits

    X, y = model_data(kind, data)
    held = data["hand"] % HELDOUT_EVERY == 0
    Ztr, ytr, Zho, yho = X[~held], y[~held], X[held], y[held]
    del X
    weight = data["weight"].astype(np.float64) if "weight" in data else np.ones(len(y))
    wtr, who = weight[~held] / weight[~held].mean(), weight[held] / max(weight[held].mean(), 1e-12)
    mean = Ztr.mean(axis=0, dtype=np.float64)
    scale = Ztr.std(axis=0, dtype=np.float64)
    scale[scale < 1e-6] = 1.0
    for Z in (Ztr, Zho):  # standardize in place (float32: the positions are large)
        Z -= mean.astype(np.float32)
        Z /= scale.astype(np.float32)
    y_scale = float(np.sqrt(np.average((ytr - np.average(ytr, weights=wtr)) ** 2, weights=wtr))) or 1.0
    every = max(1, len(ytr) // MAX_TRAIN_EVAL)
    var = float(np.average((yho - np.average(ytr, weights=wtr)) ** 2, weights=who))
    ckpt = out / f"{kind}-checkpoint.npz"
    best: Weights | None = None
    if ckpt.exists():
        net, best, rows, rng = load_checkpoint(ckpt, cfg)
    else:
        net = _new_net(cfg)
        rows, rng = [], np.random.default_rng([cfg.seed, len(value_model.KINDS), sorted(value_model.KINDS).index(kind)])
    # scikit-learn swallows a KeyboardInterrupt inside partial_fit: hold stop signals there
    with threadpool_limits(1), deferred_signals() as held:  # the machine is shared; one core is the budget
        while len(rows) < cfg.epochs:
            order = rng.permutation(len(ytr))
            for part in np.array_split(order, max(1, len(order) // EPOCH_PIECE)):  # bounded copies
                net.partial_fit(Ztr[part], ytr[part] / y_scale, sample_weight=wtr[part])
                held.deliver()  # a stop stops here; the epoch is redone from the last checkpoint
            tr = float(np.average((net.predict(Ztr[::every]) * y_scale - ytr[::every]) ** 2, weights=wtr[::every]))
            ho = float(np.average((net.predict(Zho) * y_scale - yho) ** 2, weights=who))
            rows.append(
                {
                    "model": kind,
                    "epoch": len(rows) + 1,
                    "positions": len(ytr),
                    "train_mse": tr,
                    "heldout_mse": ho,
                    "heldout_var": var,
                }
            )
            if best is None or ho < min(r["heldout_mse"] for r in rows[:-1]):
                best = Weights.of(net)
            save_checkpoint(ckpt, net, best, rows, rng)
            _write_curve(out, history + rows)
            if progress:
                progress(f"fit {kind}", len(rows), cfg.epochs, {"heldout_mse": ho, "variance": var})
    history += rows
    pick = int(np.argmin([r["heldout_mse"] for r in rows]))
    meta = {
        "kind": kind,
        **value_model.game_meta(cfg.variant, cfg.players),
        "config": cfg.as_json(),
        "history": rows,
        "epoch": pick + 1,
        "heldout_mse": rows[pick]["heldout_mse"],
        "heldout_var": var,
    }
    model = to_model(best, mean, scale, y_scale, meta)
    model_files.save_model(model, done)
    return model


def train_value(
    cfg: ValueConfig,
    out: Path | str,
    progress: Progress | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> dict[str, value_model.ValueModel]:
    """Run (or resume) the training of the module docstring (the positions on ``workers`` local
    processes or Ray tasks: :func:`positions`); returns the models by kind. The models do not
    depend on where the positions were made."""
    _require_sklearn()
    out = Path(out)
    check_config(cfg)
    _check_config(out, cfg)
    data = positions(cfg, out, progress, workers, backend, address)
    history: list[dict[str, Any]] = []
    models = {kind: fit(kind, cfg, data, out, history, progress) for kind in sorted(value_model.KINDS)}
    _write_curve(out, history)
    return models


__all__ = [
    "CHUNK_HANDS",
    "TEACHERS",
    "ValueConfig",
    "TaughtCandidates",
    "teacher_positions",
    "fit",
    "model_data",
    "positions",
    "to_model",
    "train_value",
]
