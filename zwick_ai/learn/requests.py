"""What ``zwick train cfr``/``mccfr`` (:class:`CFRRequest`) and ``zwick train net``
(:class:`NetRequest`) ask for, checked in one place and run, with the words and figures of their
results: the command line only parses its options into a request and prints.

A request is made from the command's options by their names (:meth:`CFRRequest.of`), so an option
added to a command and to its request needs nothing else. Importing this module loads no training
library: a request imports its trainer when it runs.

>>> CFRRequest.of({"method": "cfr", "game": "kuhn_poker", "iterations": 0, "out": "runs/kuhn"}).check()
Traceback (most recent call last):
...
ValueError: --iterations must be from 1 to 10000000000, not 0
>>> parse_hidden("128,64", "256,256")
(128, 64)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from zwick_ai.learn.cfr.train import TrainResult
    from zwick_ai.learn.net_train import Duel, NetConfig, Progress

#: the most iterations a CFR-family run takes, and deals its value against random is measured on
MAX_ITERATIONS = 10**10
MAX_EVAL_DEALS = 1_000_000
#: the players of a Zwicker variant when ``--players`` is not given (value and net training)
DEFAULT_PLAYERS = {"classic": 2, "grupp": 4, "dithmarschen": 4, "grossenwiehe": 4, "christiansen": 3}
#: ``progress(done, total, metric, value)`` of a CFR-family run, after every chunk of iterations
CFRProgress = Callable[[int, int, str | None, float | None], None]


def parse_hidden(text: str, example: str) -> tuple[int, int]:
    """The two hidden layer sizes of ``--hidden`` (one clear error otherwise)."""
    try:
        hidden = tuple(int(x) for x in text.split(","))
    except ValueError:
        hidden = ()
    if len(hidden) != 2 or min(hidden) < 1:
        raise ValueError(f"--hidden takes two positive layer sizes like {example}, not {text!r}")
    return hidden[0], hidden[1]


class _Request:
    """Made from a command's options by their names."""

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Self:
        """The request of ``options`` (``vars(args)`` of the command): the fields it names, the
        others at their defaults; options that are no field (the command's own) are left out."""
        return cls(**{f.name: options[f.name] for f in fields(cls) if f.name in options})  # type: ignore[arg-type]


@dataclass(frozen=True)
class CFRRequest(_Request):
    """A CFR-family training run (:func:`zwick_ai.learn.cfr.train.train`): ``method`` ``cfr`` or
    ``mccfr`` on the game of ``game``/``variant``/``players``/``option``; ``algorithm`` is
    ``train``'s ``variant`` (cfr, cfr+, dcfr; outcome, external, probe ...)."""

    method: str
    out: str
    iterations: int
    game: str | None = None
    variant: str | None = None
    players: int | None = None
    option: Sequence[tuple[str, Any]] | None = None
    seed: int = 0
    resume: bool = False
    eval_every: int = 0
    eval_deals: int = 2000
    algorithm: str | None = None
    abstraction: str = "none"
    averaging: str | None = None
    field: str = "self"
    greedy_prior: float = 0.0
    workers: int = 1
    sync: int | None = None
    backend: str = "local"
    address: str | None = None

    def check(self) -> None:
        """Refuse, before any work, what no run can use (one clear sentence)."""
        if not 1 <= self.iterations <= MAX_ITERATIONS:
            raise ValueError(f"--iterations must be from 1 to {MAX_ITERATIONS}, not {self.iterations}")
        if not 1 <= self.eval_deals <= MAX_EVAL_DEALS:
            raise ValueError(f"--eval-deals must be from 1 to {MAX_EVAL_DEALS}, not {self.eval_deals}")
        if self.eval_every < 0:
            raise ValueError(f"--eval-every must be at least 0, not {self.eval_every}")
        if self.game is None:
            raise ValueError(
                'give the game with --game, e.g. --game "zwikken(players=3,variant=parlett)" or --game kuhn_poker'
            )
        if self.workers < 1 or (self.sync is not None and self.sync < 1):
            raise ValueError(f"--workers and --sync must be at least 1, not {self.workers} and {self.sync}")
        if self.sync is not None and self.workers == 1:
            raise ValueError("--sync: used with --workers 2 or more; leave it out")

    def game_string(self) -> str:
        """The full game string (:func:`zwick_ai.games.game_strings.training_game_string`)."""
        from zwick_ai.games.game_strings import training_game_string

        assert self.game is not None, "check() first"
        return training_game_string(self.game, self.variant, self.players, self.option or [])

    def run(self, progress: CFRProgress | None = None) -> TrainResult:
        """Train into ``out`` (checked, and held, by the caller): the request's fields of the same
        names are the run's :class:`~zwick_ai.learn.cfr.train.TrainOptions` (``sync`` None: its default)."""
        from zwick_ai.learn.cfr.train import TrainOptions, train

        given = {f.name: getattr(self, f.name) for f in fields(TrainOptions) if f.name != "sync"}
        if self.sync is not None:
            given["sync"] = self.sync
        return train(self.game_string(), self.method, self.iterations, TrainOptions(**given), progress)

    def finish(self, result: TrainResult) -> list[str]:
        """Draw the run's curves (``convergence.png``, and ``strength.png`` where a strength curve
        was kept) and say what the run reached and wrote."""
        from zwick_ai.learn.cfr.train import STRENGTH_CSV
        from zwick_ai.learn.curves import plot_convergence, plot_strength, short_game

        out, game = Path(self.out), self.game_string()
        plot_convergence(
            out / "convergence.csv", out / "convergence.png", f"{self.method} {self.algorithm or ''} {game}"
        )
        last = result.curve[-1]
        lines = [f"{last.iteration} iterations, {last.seconds:.1f} s training; {last.metric} {last.value:.6g}"]
        extra = ""
        if (out / STRENGTH_CSV).exists():
            plot_strength(out / STRENGTH_CSV, out / "strength.png", f"mccfr {self.abstraction} {short_game(game)}")
            extra = ", strength.csv, strength.png"
        lines.append(f"wrote {out}/checkpoint.npz/.json, policy.npz/.json, convergence.csv, convergence.png{extra}")
        return lines


#: the :class:`NetConfig` fields that ``zwick train net`` gives under their own names (None: not given)
_NET_SETTINGS = (
    "hands", "epochs", "eps", "window", "lam", "batch", "lr", "teacher", "teacher_iters", "teacher_visits",
    "teacher_rollout", "teacher_options", "init", "ismcts_deals",
)  # fmt: skip


@dataclass(frozen=True)
class NetRequest(_Request):
    """A run of ``zwick train net`` (:func:`zwick_ai.learn.net_train.train_net`): its budget, its
    workers and the :class:`~zwick_ai.learn.net_train.NetConfig` settings given (None: the
    config's default; ``hidden`` as written, ``option`` as ``(name, value)`` pairs,
    ``strength_deals`` the config's ``eval_deals``, ``no_cards`` its ``cards=False``)."""

    out: str
    variant: str | None = None
    players: int | None = None
    hours: float | None = None
    generations: int | None = None
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    average: int = 0
    seed: int = 0
    option: Sequence[tuple[str, Any]] | None = None
    hidden: str | None = None
    no_cards: bool = False
    strength_deals: int | None = None
    hands: int | None = None
    epochs: int | None = None
    eps: float | None = None
    window: int | None = None
    lam: float | None = None
    batch: int | None = None
    lr: float | None = None
    teacher: str | None = None
    teacher_iters: int | None = None
    teacher_visits: int | None = None
    teacher_rollout: str | None = None
    teacher_options: str | None = None
    init: str | None = None
    ismcts_deals: int | None = None

    def check(self) -> None:
        """Refuse, before any work, what no run can use (one clear sentence)."""
        from zwick_ai.learn.net_train import check_average
        from zwick_ai.zwicker.rules import VARIANTS

        if self.variant not in VARIANTS:
            raise ValueError(f"zwick train net needs --variant, one of {', '.join(VARIANTS)} (got {self.variant!r})")
        if self.hours is None:
            raise ValueError("zwick train net needs --hours H, a positive decimal such as 0.5")
        if not (math.isfinite(self.hours) and self.hours > 0):
            raise ValueError(f"--hours must be a positive number such as 0.5, not {self.hours}")
        if self.eps is not None and not 0 <= self.eps <= 1:
            raise ValueError(f"--eps is a probability from 0 to 1, not {self.eps}")
        if self.workers < 1:
            raise ValueError(f"--workers must be at least 1 (got {self.workers})")
        check_average(self.average)
        if self.generations is not None and self.generations < 1:
            raise ValueError(f"--generations must be at least 1 (got {self.generations})")

    def config(self) -> NetConfig:
        """The run's checked configuration (after :meth:`check`)."""
        from zwick_ai.learn.net_train import NetConfig

        assert self.variant is not None, "check() first"
        given: dict[str, Any] = {k: getattr(self, k) for k in _NET_SETTINGS if getattr(self, k) is not None}
        if self.option:
            given["options"] = ",".join(f"{name}={value}" for name, value in self.option)
        if self.strength_deals is not None:
            given["eval_deals"] = self.strength_deals
        if self.no_cards:
            given["cards"] = False
        if self.hidden is not None:
            given["hidden"] = parse_hidden(self.hidden, "256,256")
        cfg = NetConfig(self.variant, self.players or DEFAULT_PLAYERS[self.variant], seed=self.seed, **given)
        cfg.check()
        return cfg

    def run(self, cfg: NetConfig, progress: Progress, duel: Duel) -> int:
        """Train ``cfg`` into ``out`` (checked, and held, by the caller) with strength measured by
        ``duel``; returns the generations finished."""
        from zwick_ai.backends import BackendRequest
        from zwick_ai.learn.net_train import train_net

        pool = BackendRequest(self.backend, self.workers, self.address)
        return train_net(cfg, Path(self.out), self.hours or 0.0, self.generations, progress, pool, self.average, duel)

    def summary(self, done: int) -> str:
        """What a run of ``done`` generations wrote."""
        return (
            f"{done} generations in {self.out}: gen-{done - 1:03d}.npz (play it: net:model=PATH), loss.csv/png, "
            "strength.csv/png"
        )
