"""The ``zwick`` command. Each subcommand lives in a module of this package that defines
``register(subparsers)``; :data:`COMMANDS` lists them in the order ``zwick --help`` shows them.

Run ``zwick --help`` or ``zwick COMMAND --help``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

import zwick_ai
from zwick_ai.cli.defaults import DEFAULT_SUMMARY

EPILOG = f"""examples:
  zwick tournament                                {DEFAULT_SUMMARY}
  zwick tournament --variant classic --players 2 --agents "ismcts:iters=500;greedy;random" --deals 200
  zwick run experiments/headline.toml             search against the baselines: an agents-by-variants table
  zwick variants                                  the variants and their options
  zwick selfplay --variant dithmarschen --games 20000
  zwick selfplay --variant grupp --players 3 -o joker_capture=joker_only --policies greedy,random,random
  zwick play --game zwicker --variant dithmarschen --seat 0 --agents greedy,random,greedy
  zwick replay games.jsonl --game-index 0
  zwick replay games.jsonl --game-index 0 --html game.html       the game as a page to step through
  zwick analyze games.jsonl --game-index 0 --seat 0 --out analysis/   every move's value, the mistakes
  zwick train mccfr --game "zwikken(players=3,variant=parlett)" --iterations 100000 --seed 1 --out runs/parlett
  zwick exploitability --agents "random;greedy;ismcts:iters=100"   each agent's nash_conv on a micro game
"""

#: modules of ``zwick_ai.cli`` with a ``register(subparsers)`` function, in help order
COMMANDS = [
    "tournament",
    "run",
    "leaderboard",
    "agents_cmd",
    "zwicker_cmds",
    "play",
    "replay",
    "analyze",
    "joker_study",
    "exploitability",
    "train",
    "precompile",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zwick",
        description="zwick_ai: strategy search for the Zwick card games (Zwicker, Zwikken, Zwicken).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"zwick_ai {zwick_ai.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"zwick_ai.cli.{name}").register(sub)
    return parser


#: commands that write nothing an interrupt could leave for a later run to continue
NOTHING_TO_RESUME = {"play", "replay", "variants", "agents", "precompile"}


#: the seeds every command takes: 0 .. 2**32 - 1 (each run's deal, agent and training seeds are
#: derived from it in 64-bit arithmetic)
MAX_SEED = 2**32 - 1
#: options naming a file or folder, which an empty string never does
PATH_OPTIONS = ("out", "record", "records", "html", "file", "init")


def check_common(args: argparse.Namespace) -> None:
    """What every command refuses before any work: an empty file or folder name, a seed outside
    0 .. :data:`MAX_SEED`."""
    for name in PATH_OPTIONS:
        if getattr(args, name, None) == "":
            shown = name if name == "file" else "--" + name
            raise ValueError(f"{shown} needs a name (an empty one was given)")
    seed = getattr(args, "seed", None)
    if isinstance(seed, int) and not 0 <= seed <= MAX_SEED:
        raise ValueError(f"--seed must be a whole number from 0 to {MAX_SEED} (2**32 - 1), not {seed}")


def _resume_hint(command: str | None, args: argparse.Namespace | None) -> str:
    """What the one line of an interrupted command adds: how to continue it."""
    if command in NOTHING_TO_RESUME:
        return ""
    if command == "train" and args is not None:
        from zwick_ai.cli.train import resume_hint

        return resume_hint(args)
    return "; the same command resumes"


def main(argv: list[str] | None = None) -> int:
    """Run ``zwick ARGV``; returns the exit status. Bad input: one line, status 2. An agent from
    outside the package that failed: one line naming it, status 3. Ctrl-C,
    SIGTERM or SIGHUP at any moment: the command stops its workers, keeps what is complete, says
    so in one line and returns 130, 143 or 129 (:mod:`zwick_ai.interrupts`)."""
    from zwick_ai import interrupts

    with interrupts.handled():
        command = None
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
            command = getattr(args, "command", None)
            if not getattr(args, "func", None):
                parser.print_help()
                return 0
            check_common(args)
            code = args.func(args)
        except BaseException as error:
            if interrupts.received() is not None or interrupts.caused_by_interrupt(error):
                print(f"\nzwick: interrupted{_resume_hint(command, args if command else None)}", file=sys.stderr)
                return interrupts.exit_code()
            failed = sys.modules.get("zwick_ai.eval.agent_failures")
            if failed is not None and isinstance(error, failed.AgentFailed):  # named, its traceback in a log
                print(f"zwick: error: {error}", file=sys.stderr)
                return int(failed.EXIT_AGENT_FAILED)
            if isinstance(error, (ValueError, OSError)):  # bad input or a path that cannot be used: one line
                if isinstance(error, OSError) and error.strerror:  # the file and the reason, without [Errno N]
                    first = f"{error.filename}: {error.strerror}" if error.filename else error.strerror
                else:
                    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                print(f"zwick: error: {first}", file=sys.stderr)
                return 2
            raise
        if interrupts.received() is not None:  # the command stopped itself and said so
            return interrupts.exit_code()
        return code


def run() -> None:
    """The ``zwick`` program: :func:`main` on the command line's arguments, then exit with its
    status. A stop signal after the command has ended (the interpreter still shutting down) exits
    at once with ``128 + signal``, as one during the command would."""
    from zwick_ai import interrupts

    try:
        code: int | str | None = main()
    except SystemExit as stop:  # --help, --version and argparse's own errors
        code = stop.code
    interrupts.leave_at_once_from_now()
    sys.exit(code)


if __name__ == "__main__":
    run()
