"""What every ``zwick train METHOD`` shares: the game, ``--seed``, ``--out``, and the folder the run holds."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from zwick_ai.cli.game_args import add_game_args

#: the help of ``--game`` of the methods that train on any game
ANY_GAME = (
    'the game: zwicker, zwikken, zwicken, a game string such as "zwikken(players=3,variant=parlett)", '
    "or any OpenSpiel game string (kuhn_poker)"
)


def method_parser(
    sub: argparse._SubParsersAction, method: str, help: str, description: str, examples: str
) -> argparse.ArgumentParser:
    """The parser of ``zwick train METHOD`` with ``--seed`` and ``--out`` (the game's arguments are
    each method's: :func:`add_game` or :func:`add_zwicker_variant`)."""
    p = sub.add_parser(
        method,
        help=help,
        description=description,
        epilog="examples:\n" + examples.strip("\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default: %(default)s)")
    p.add_argument("--out", required=True, help="the run's folder (never overwritten; see --resume)")
    return p


def add_game(p: argparse.ArgumentParser, games: str = ANY_GAME) -> None:
    """``--game``, ``--variant``, ``--players`` and ``-o`` (no default game)."""
    add_game_args(p, default_game=None, games=games)


def add_zwicker_variant(p: argparse.ArgumentParser) -> None:
    """``--variant`` and ``--players`` of the Zwicker-only methods (value, net)."""
    p.add_argument("--variant", help="the Zwicker variant: classic, grupp, dithmarschen, grossenwiehe, christiansen")
    p.add_argument("--players", type=int, help="number of players (default: the variant's)")


def add_backend_args(p: argparse.ArgumentParser, local: str = "processes") -> None:
    """``--backend`` and ``--address`` of the methods whose workers may be Ray tasks (``local``:
    what the workers are here)."""
    p.add_argument(
        "--backend", choices=["local", "ray"], default="local",
        help=f"the --workers as {local} here (local) or as Ray tasks on a cluster (pip install "
        "'zwick_ai[ray]'; docs/cluster.md); the same results either way (default: %(default)s)",
    )  # fmt: skip
    p.add_argument("--address", default=None, help="--backend ray: the cluster (e.g. auto); default: start a local one")


def game_string(args: argparse.Namespace) -> str:
    """The full game string of ``--game``/``--variant``/``--players``/``-o``
    (:func:`zwick_ai.games.game_strings.training_game_string`)."""
    from zwick_ai.games.game_strings import training_game_string

    return training_game_string(args.game, args.variant, args.players, args.option or [])


def hold_out(args: argparse.Namespace) -> contextlib.AbstractContextManager[Path]:
    """Hold ``--out`` for the training (:func:`zwick_ai.eval.folder_lock.hold_results_folder`)."""
    from zwick_ai.eval.folder_lock import hold_results_folder

    return hold_results_folder(args.out, f"zwick train {args.method}")


def check_out(args: argparse.Namespace) -> None:
    """Refuse, before any work, an ``--out`` that is not a usable folder for this method."""
    from zwick_ai.cli.paths import check_out_folder
    from zwick_ai.eval.folder_lock import check_results_folder

    check_out_folder(args.out)
    check_results_folder(args.out, f"zwick train {args.method}")


__all__ = [
    "ANY_GAME", "add_backend_args", "add_game", "add_zwicker_variant", "check_out", "game_string", "hold_out",
    "method_parser",
]  # fmt: skip
