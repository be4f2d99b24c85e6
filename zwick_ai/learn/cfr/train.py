"""Training runs of the CFR family with checkpoints, a convergence log and a policy file.

:func:`train` writes into ``out``: ``checkpoint.npz/.json`` (the whole solver state, after every
evaluation and at the end), ``policy.npz/.json`` (the average strategy, for the ``mccfr``/``cfr``
agents) and ``convergence.csv`` (``iteration, seconds, metric, value``). The metric is
``nash_conv`` where the game tree is available (exact CFR; MCCFR on tree games; MCCFR on trick
games whose pack has at most :data:`SMALL_PACK` cards, whose tree is then extracted for the
evaluation), otherwise ``value_vs_random``: the average strategy's chips per deal against uniformly random opponents,
every seat in turn (compiled; trick games), over ``eval_deals`` deals per seat with a fixed seed.
On the full Zwicker games (MCCFR with a Zwicker abstraction) the metric is ``vs_greedy``: the
average strategy (greedy where a set is unseen) against greedy opponents minus the greedy heuristic
in the same seats on the same ``eval_deals`` deals (points per deal, every seat in turn), and
``strength.csv`` holds the whole curve against training seconds (``iteration, seconds, deals,
ours, greedy, diff, ci95, table_share, random_diff, random_ci95``; the last two: against random
opponents, minus a random player in the same seats).

``resume=True`` continues the checkpoint in ``out`` up to ``iterations`` in total; the result is
the same as one uninterrupted run with the same seed.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     r = train("kuhn_poker", "cfr", 20, TrainOptions(seed=0, out=d, eval_every=10))
...     [round(v, 4) for _, _, _, v in r.curve]
[0.0654, 0.0202]
"""

from __future__ import annotations

import contextlib
import csv
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pyspiel

from zwick_ai.agents.cfr.zwicker_abstraction import ZWICKER_ABSTRACTIONS
from zwick_ai.backends import make_backend
from zwick_ai.files import replacing
from zwick_ai.learn.cfr.checkpoint import load_checkpoint, save_checkpoint, save_policy
from zwick_ai.learn.cfr.exact import METHODS, ExactSolver
from zwick_ai.learn.cfr.mccfr import DEFAULT_SYNC, SAMPLINGS, MCCFRSolver
from zwick_ai.learn.cfr.tree import GameTree, extract
from zwick_ai.learn.cfr.zwicker_mccfr import strength

TRAIN_METHODS = ("cfr", "mccfr")
CSV_HEADER = ["iteration", "seconds", "metric", "value"]
STRENGTH_CSV = "strength.csv"  # Zwicker: the strength curve against greedy by training time
STRENGTH_KEYS = ("ours", "greedy", "diff", "ci95", "table_share", "random_diff", "random_ci95")
STRENGTH_HEADER = ["iteration", "seconds", "deals", *STRENGTH_KEYS]
# a strength log written before the columns against random: read, and its rows padded
_OLD_STRENGTH_HEADER = STRENGTH_HEADER[:-2]
#: the default averaging of MCCFR on the full Zwicker games (measured: experiments/results/mccfr-zwicker/)
ZWICKER_AVERAGING = "linear"
SMALL_PACK = 8  # trick games with at most this many cards are small enough for exact nash_conv


class CurvePoint(NamedTuple):
    """A row of ``convergence.csv``: the iterations done, training seconds, and the metric's value."""

    iteration: int
    seconds: float
    metric: str
    value: float


@dataclass
class TrainResult:
    """What a run produced: the solver, its output directory, and the convergence rows
    ``(iteration, seconds, metric, value)`` of this run and earlier ones (when resumed)."""

    solver: ExactSolver | MCCFRSolver
    out: Path
    curve: list[CurvePoint] = field(default_factory=list)
    seconds: float = 0.0


def evaluate(
    solver: ExactSolver | MCCFRSolver, eval_deals: int = 2000, tree: GameTree | None = None
) -> tuple[str, float]:
    """(metric, value) of the solver's average strategy (module docstring); ``tree``: the game's
    tree for ``nash_conv`` of an MCCFR solver on a trick game."""
    if isinstance(solver, ExactSolver) or solver.tree is not None:
        return "nash_conv", solver.nash_conv()
    if solver.zwicker:
        return "vs_greedy", zwicker_strength(solver, eval_deals)["diff"]
    if tree is not None:
        return "nash_conv", solver.nash_conv(tree)
    value, _ = solver.value_vs_random(eval_deals, seed=12345)
    return "value_vs_random", value


def zwicker_strength(solver: MCCFRSolver, deals: int) -> dict[str, float]:
    """A Zwicker solver's average strategy against greedy opponents on ``deals`` fixed deals (seeds
    12345...), next to greedy itself (:func:`~zwick_ai.learn.cfr.zwicker_mccfr.strength`), and
    against random opponents next to a random player in the same seats (``random_diff``,
    ``random_ci95``)."""
    st = strength(solver.cfg, solver._abst, solver.table, deals)
    rnd = strength(solver.cfg, solver._abst, solver.table, deals, opponent="random", baseline="random")
    return {**st, "random_diff": rnd["diff"], "random_ci95": rnd["ci95"]}


@dataclass(frozen=True)
class TrainOptions:
    """The options of a training run (:func:`train`; ``zwick train cfr`` and ``zwick train mccfr``).

    ``algorithm``: for ``cfr`` (exact CFR on the extracted tree) cfr, cfr+ [default] or dcfr; for
    ``mccfr`` the sampling, outcome [default] or external, on the full Zwicker games probe
    [default] or outcome (:mod:`~zwick_ai.learn.cfr.zwicker_mccfr`). ``eval_every``: evaluate every
    so many iterations (0: at the end only), on ``eval_deals`` deals. ``abstraction``:
    ``none``/``observation`` (tree games) or ``none``/``suits``/``buckets`` (MCCFR on the trick
    games, :mod:`~zwick_ai.agents.cfr.abstraction`); recorded in the checkpoint and the policy file
    (``key_scheme``), which the ``mccfr`` agent then uses. ``workers`` > 1 (MCCFR on the trick games
    or Zwicker with an abstraction) runs the traversals on that many threads, merging their tables
    every ``sync`` iterations each (:mod:`~zwick_ai.learn.cfr.merge`); the iterations and
    ``eval_every`` are then whole rounds of ``workers * sync`` iterations, and a resumed run keeps
    its workers. ``backend="ray"`` runs the workers' shares as Ray tasks (on the cluster at
    ``address``, or on a local instance with ``workers`` CPUs) instead of threads here, with the
    same tables; a task whose node is lost runs again from its inputs. ``averaging`` (MCCFR): how
    iteration t's updates are weighted (:data:`~zwick_ai.learn.cfr.updates.AVERAGINGS`); default
    :data:`ZWICKER_AVERAGING` on the full Zwicker games, ``uniform`` elsewhere; a resumed run keeps
    its checkpoint's. ``field="greedy"`` (MCCFR on the trick games and the full Zwicker games) trains
    against a greedy field instead of self-play: not CFR but a best response within the abstraction
    to greedy opponents (:class:`~zwick_ai.learn.cfr.mccfr.MCCFRSolver`). ``greedy_prior`` W > 0 (MCCFR
    with probe sampling on the full Zwicker games, one worker) starts each new set with regret and
    average mass W on greedy's action; a resumed run keeps its checkpoint's. ``resume``: continue
    the checkpoint in ``out``."""

    seed: int = 0
    out: str | Path = "runs/cfr"
    resume: bool = False
    eval_every: int = 0
    eval_deals: int = 2000
    algorithm: str | None = None
    abstraction: str = "none"
    workers: int = 1
    sync: int = DEFAULT_SYNC
    backend: str = "local"
    address: str | None = None
    averaging: str | None = None
    field: str = "self"
    greedy_prior: float = 0.0


def train(
    game_string: str,
    method: str,
    iterations: int,
    options: TrainOptions | None = None,
    progress: Callable[[int, int, str | None, float | None], None] | None = None,
) -> TrainResult:
    """Train ``method`` (``cfr``: exact CFR on the extracted tree; ``mccfr``) on the game
    ``game_string`` for ``iterations`` iterations in total, as ``options`` say
    (:class:`TrainOptions`). ``progress(done, total, metric, value)`` is called after every
    chunk."""
    o = options or TrainOptions()
    seed, resume, eval_every, eval_deals = o.seed, o.resume, o.eval_every, o.eval_deals
    algorithm, abstraction, averaging = o.algorithm, o.abstraction, o.averaging
    field, greedy_prior = o.field, o.greedy_prior
    workers, sync, backend, address = o.workers, o.sync, o.backend, o.address
    if method not in TRAIN_METHODS:
        raise ValueError(f"unknown training method {method!r}; valid: {', '.join(TRAIN_METHODS)}")
    valid = METHODS if method == "cfr" else SAMPLINGS
    zwicker = game_string.startswith("zwicker") and abstraction in ZWICKER_ABSTRACTIONS
    if algorithm is None and method == "mccfr" and zwicker:
        algorithm = "probe"  # the full Zwicker games (zwicker_mccfr's docstring)
    algorithm = algorithm or ("cfr+" if method == "cfr" else "outcome")
    if algorithm not in valid:
        raise ValueError(f"unknown {method} algorithm {algorithm!r}; valid: {', '.join(valid)}")
    if iterations < 1 or eval_every < 0:
        raise ValueError("iterations must be positive and eval_every non-negative")
    if (field != "self" or greedy_prior) and method != "mccfr":
        raise ValueError("field and greedy_prior are for mccfr (exact CFR solves the game by self-play)")
    if averaging is not None and method != "mccfr":
        raise ValueError("averaging is for mccfr (exact CFR's weighting is its algorithm: cfr, cfr+ or dcfr)")
    if workers > 1 and method != "mccfr":
        raise ValueError(f"{method} runs on one worker; workers > 1 is for mccfr")
    if backend != "local" and workers < 2:
        raise ValueError(f"the {backend} backend runs the workers of parallel MCCFR: give 2 or more workers")
    if address is not None and backend != "ray":
        raise ValueError("an address is for the ray backend")
    rnd = workers * sync if workers > 1 else 1
    if iterations % rnd or eval_every % rnd:
        raise ValueError(
            f"with {workers} workers syncing every {sync} iterations, iterations and eval_every must be "
            f"multiples of {rnd}, not {iterations} and {eval_every}"
        )
    out = Path(o.out)
    game = pyspiel.load_game(game_string)
    ckpt = out / "checkpoint"
    curve: list[CurvePoint] = []
    strength_rows: list[list[str]] = []
    elapsed = 0.0
    if resume:
        solver, meta = load_checkpoint(ckpt, game=str(game), method=method)
        made = (
            meta["variant"],
            int(meta["seed"]),
            meta["abstraction"],
            meta.get("workers", 1),
            meta.get("field", "self"),
            meta.get("greedy_prior", 0.0),
        )
        averaged = meta.get("averaging", "uniform")
        if (
            made != (algorithm, seed, abstraction, workers, field, greedy_prior)
            or (workers > 1 and meta.get("sync") != sync)
            or averaging not in (None, averaged)
        ):
            raise ValueError(
                f"checkpoint {ckpt} was made with algorithm={meta['variant']}, seed={meta['seed']}, "
                f"abstraction={meta['abstraction']}"
                + (f", averaging={averaged}" if method == "mccfr" else "")
                + f", workers={meta.get('workers', 1)}"
                + (f", sync={meta['sync']}" if "sync" in meta else "")
                + (f", field={meta.get('field', 'self')}" if "greedy" in (meta.get("field", "self"), field) else "")
                + (f", greedy_prior={meta.get('greedy_prior', 0.0):g}" if made[5] or greedy_prior else "")
                + "; resume with the same options"
            )
        curve = _read_curve(out / "convergence.csv", solver.iteration)
        elapsed = curve[-1].seconds if curve else 0.0
        strength_rows = _read_strength(out / STRENGTH_CSV, solver.iteration)
    else:
        if (out / "checkpoint.json").exists():
            raise ValueError(
                f"{out} already holds a training run: continue it with --resume (resume=True) or choose another output directory"
            )
        if method == "cfr":
            solver = ExactSolver(extract(game, abstraction), algorithm)
        else:
            if averaging is None:
                averaging = ZWICKER_AVERAGING if zwicker else "uniform"
            solver = MCCFRSolver(
                game, algorithm, seed, abstraction, workers=workers, sync=sync, averaging=averaging, field=field,
                greedy_prior=greedy_prior,
            )  # fmt: skip
    if solver.iteration > iterations:
        raise ValueError(f"the checkpoint is already at {solver.iteration} iterations (> {iterations})")
    out.mkdir(parents=True, exist_ok=True)
    eval_tree = None
    if isinstance(solver, MCCFRSolver) and solver.tricks and len(game.rules.deck) <= SMALL_PACK:
        eval_tree = extract(game)
    with contextlib.ExitStack() as stack:
        if backend != "local":
            assert isinstance(solver, MCCFRSolver)
            solver.cluster = stack.enter_context(make_backend(backend, workers, address))
        if isinstance(solver, MCCFRSolver) and solver.cluster is None:
            solver.warm_up()
        # the progress bar moves every 1% (the chunks do not change the result: the random stream and
        # the tables carry over from one call of ``run`` to the next); evaluations fall on multiples of
        # ``eval_every``
        report = max(rnd, iterations // 100 // rnd * rnd)
        if progress is not None:
            progress(solver.iteration, iterations, None, None)
        while solver.iteration < iterations:
            stop = iterations
            if eval_every:
                stop = min(stop, (solver.iteration // eval_every + 1) * eval_every)
            step = min(report, stop - solver.iteration)
            t0 = time.perf_counter()
            solver.run(step)
            elapsed += time.perf_counter() - t0  # training time only, evaluations excluded
            metric = value = None
            if (eval_every and solver.iteration % eval_every == 0) or solver.iteration == iterations:
                if isinstance(solver, MCCFRSolver) and solver.zwicker:
                    st = zwicker_strength(solver, eval_deals)
                    metric, value = "vs_greedy", st["diff"]
                    strength_rows.append(
                        [str(solver.iteration), f"{elapsed:.3f}", str(eval_deals)]
                        + [f"{st[k]:.6g}" for k in STRENGTH_KEYS]
                    )
                    _write_rows(out / STRENGTH_CSV, STRENGTH_HEADER, strength_rows)
                else:
                    metric, value = evaluate(solver, eval_deals, eval_tree)
                curve.append(CurvePoint(solver.iteration, round(elapsed, 3), metric, float(value)))
                # the rows first, the checkpoint last: a run stopped between them resumes from the
                # previous checkpoint and writes these rows again (rows past a checkpoint are dropped)
                _write_curve(out / "convergence.csv", curve)
                save_policy(solver, out / "policy", seed)  # an interrupted run leaves a playable policy
                save_checkpoint(solver, ckpt, seed)
            if progress is not None:
                progress(solver.iteration, iterations, metric, value)
        save_policy(solver, out / "policy", seed)
        return TrainResult(solver, out, curve, curve[-1].seconds if curve else 0.0)


def _write_rows(path: Path, header: list[str], rows: list[Any]) -> None:
    """Write a CSV file whole (a stopped or failed write leaves the old file)."""
    with replacing(path) as tmp, tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _read_strength(path: Path, upto: int) -> list[list[str]]:
    if not path.exists():
        return []
    with path.open() as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] not in (STRENGTH_HEADER, _OLD_STRENGTH_HEADER):
        raise ValueError(f"{path}: not a strength log (header {rows[0] if rows else None})")
    pad = [""] * (len(STRENGTH_HEADER) - len(rows[0]))
    try:
        return [r + pad for r in rows[1:] if int(r[0]) <= upto]
    except (ValueError, IndexError):
        raise ValueError(f"{path}: corrupt strength log") from None


def _write_curve(path: Path, curve: list[CurvePoint]) -> None:
    _write_rows(path, CSV_HEADER, curve)


def _read_curve(path: Path, upto: int) -> list[CurvePoint]:
    if not path.exists():
        return []
    with path.open() as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != CSV_HEADER:
        raise ValueError(f"{path}: not a convergence log (header {rows[0] if rows else None})")
    try:
        curve = [CurvePoint(int(it), float(seconds), metric, float(value)) for it, seconds, metric, value in rows[1:]]
    except (ValueError, IndexError):  # a short row fails to unpack: ValueError
        raise ValueError(f"{path}: corrupt convergence log") from None
    return [c for c in curve if c.iteration <= upto]
