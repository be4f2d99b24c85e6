"""``zwick train value``: train the Zwicker value model of the ``net`` agent (scikit-learn) with a
progress bar, checkpoints (the same command resumes) and a held-out loss curve
(``OUT/loss.csv``, ``OUT/loss.png``); see :mod:`zwick_ai.learn.value_train`.

Example::

    zwick train value --variant dithmarschen --out runs/value-dithmarschen
    zwick train value --variant classic --players 2 --out runs/value-classic --install
    zwick train value --variant dithmarschen --teacher ismcts --teacher-iters 2000 --hands 600 --workers 2 --out runs/distil-dithmarschen
    zwick train value --variant dithmarschen --teacher expert --teacher-iters 2000 --hands 260 --workers 2 --out runs/distil-expert-dithmarschen
"""

from __future__ import annotations

import argparse

from tqdm import tqdm

DEFAULT_PLAYERS = {"classic": 2, "grupp": 4, "dithmarschen": 4, "grossenwiehe": 4, "christiansen": 3}


def add_args(p: argparse.ArgumentParser) -> None:
    """The options only ``zwick train value`` takes."""
    g = p.add_argument_group("value (zwick train value --variant V)")
    # defaults None: ValueConfig's (importing it here would load the agents for every zwick command)
    g.add_argument("--hands", type=int, default=None, help="value: self-play hands (default 10000)")
    g.add_argument(
        "--record", type=float, default=None, help="value: share of decisions whose moves are played out (0.3)"
    )
    g.add_argument("--epochs", type=int, default=None, help="value: passes over the positions per model (8)")
    g.add_argument("--hidden", default=None, help="value: the two hidden layer sizes (32,16)")
    g.add_argument("--eps", type=float, default=None, help="value: probability of a random move in self-play (0.05)")
    g.add_argument(
        "--teacher",
        choices=("greedy", "ismcts", "expert", "peek"),
        default=None,
        help="value: where the candidates' targets come from: one greedy play-out each (greedy, the default) "
        "or the mean reward of a search playing the hands (ismcts, or expert with its exact endgame; distils the search); "
        "net: peek (a peek-uct search on the true hands values every card move), ismcts or expert (the search "
        "on the mover's view plays the hands and values every card move); default: the hands' own returns",
    )
    g.add_argument(
        "--teacher-iters",
        type=int,
        default=None,
        help="value: the teacher's ISMCTS iterations per decision (2000); net: the teacher's (200)",
    )
    g.add_argument(
        "--workers",
        type=int,
        default=1,
        help="value, net: local processes (or, with --backend ray, Ray CPUs) generating the positions; mccfr: "
        "threads (or Ray tasks) running the traversals, their tables merged every --sync iterations each "
        "(default: %(default)s)",
    )
    g.add_argument(
        "--install", action="store_true", help="value: also copy the models into the package (never overwritten)"
    )


def parse_hidden(text: str, example: str) -> tuple[int, int]:
    """The two hidden layer sizes of ``--hidden`` (one clear error otherwise)."""
    try:
        hidden = tuple(int(x) for x in text.split(","))
    except ValueError:
        hidden = ()
    if len(hidden) != 2 or min(hidden) < 1:
        raise ValueError(f"--hidden takes two positive layer sizes like {example}, not {text!r}")
    return hidden[0], hidden[1]


def cmd_train_value(args: argparse.Namespace) -> int:
    from zwick_ai.agents import value_model
    from zwick_ai.learn import model_files
    from zwick_ai.learn.value_train import HELDOUT_EVERY, ValueConfig, check_config, train_value
    from zwick_ai.zwicker.rules import VARIANTS

    if args.variant not in VARIANTS:
        raise ValueError(f"zwick train value needs --variant, one of {', '.join(VARIANTS)} (got {args.variant!r})")
    if args.teacher == "peek":
        raise ValueError("zwick train value: --teacher is greedy, ismcts or expert (peek teaches zwick train net)")
    given: dict[str, object] = {
        k: getattr(args, k)
        for k in ("hands", "record", "epochs", "eps", "teacher", "teacher_iters")
        if getattr(args, k) is not None
    }
    if args.hidden is not None:
        given["hidden"] = parse_hidden(args.hidden, "64,32")
    if args.hands is not None and args.hands < HELDOUT_EVERY:
        raise ValueError(
            f"--hands must be at least {HELDOUT_EVERY} (every {HELDOUT_EVERY}th hand is held out), not {args.hands}"
        )
    if args.epochs is not None and args.epochs < 1:
        raise ValueError(f"--epochs must be at least 1, not {args.epochs}")
    if args.record is not None and not 0 < args.record <= 1:
        raise ValueError(f"--record is a share above 0 and at most 1, not {args.record}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1 (got {args.workers})")
    players = args.players or DEFAULT_PLAYERS[args.variant]
    if args.out is None:
        raise ValueError("zwick train value needs --out (a run folder; the same command resumes it)")
    installed = {kind: value_model.shipped_model_path(args.variant, players, kind) for kind in value_model.KINDS}
    if args.install:
        for path in installed.values():
            if path.exists():
                raise ValueError(f"{path} exists; shipped weights are never overwritten (remove it first)")
    cfg = ValueConfig(args.variant, players, seed=args.seed, **given)  # type: ignore[arg-type]
    check_config(cfg)  # before the progress bar: a refusal is one line
    bar = tqdm(total=1, unit="step")
    current = [""]  # the stage the bar shows

    def progress(stage: str, done: int, total: int, info: dict[str, float]) -> None:
        if current[0] != stage:
            current[0] = stage
            bar.reset(total=total)
            bar.set_description(stage)
        bar.update(done - bar.n)
        bar.set_postfix({k: f"{v:.4g}" for k, v in info.items()})
        bar.refresh()

    from zwick_ai.cli.train import hold_out

    try:
        with hold_out(args):
            models = train_value(cfg, args.out, progress, args.workers, args.backend, args.address)
    finally:
        bar.close()
    for kind, model in models.items():
        meta = model.meta
        print(
            f"{kind} model, {args.variant} {players} players, {cfg.hands} hands: held-out MSE "
            f"{meta['heldout_mse']:.2f} points² at epoch {meta['epoch']} (variance {meta['heldout_var']:.2f})"
        )
    print(f"wrote {args.out}/move.npz, value.npz, loss.csv, loss.png")
    if args.install:
        for kind, path in installed.items():
            model_files.save_model(models[kind], path)
            print(f"wrote {path}")
    return 0


__all__ = ["add_args", "cmd_train_value", "parse_hidden"]
