"""``zwick variants`` and ``zwick selfplay``: the Zwicker rule sets and compiled self-play."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING

from zwick_ai.cli.game_args import add_game_args, game_name, load_game
from zwick_ai.cli.paths import check_out_folder, check_record_file

if TYPE_CHECKING:
    from zwick_ai import zwicker

#: the command named in the mark of a self-play folder (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick selfplay"


def make_rules(args: argparse.Namespace) -> zwicker.Rules:
    """The Zwicker rules of the command's game arguments (``ValueError`` for another game)."""
    if game_name(args) != "zwicker":
        raise ValueError(f"{args.command} plays zwicker only, not {game_name(args)}")
    return load_game(args).rules


def cmd_variants(args: argparse.Namespace) -> int:
    from zwick_ai.eval.report import markdown_table
    from zwick_ai.games.zwicker_params import OPTION_COLUMNS, VARIANT_COLUMNS, option_rows, variant_rows

    print("\n".join(markdown_table(list(VARIANT_COLUMNS), variant_rows())))
    print()
    print("Options: -o name=value on any command, or name=value in a game string such as")
    print('"zwicker(variant=classic,players=2,forced_capture=off)".')
    print()
    print("\n".join(markdown_table(list(OPTION_COLUMNS), option_rows())))
    print("\nzwick_ai/zwicker/RULE_CHOICES.md explains each option in full.")
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder
    from zwick_ai.eval.selfplay import run_selfplay, write_folder

    if args.games < 1:
        raise ValueError(f"--games must be at least 1, not {args.games}")
    if args.record_hands is not None and args.records is None:
        raise ValueError("--record-hands N needs --records FILE (it says how many hands go there)")
    if args.record_hands is not None and args.record_hands < 0:
        raise ValueError(f"--record-hands must be at least 0, not {args.record_hands}")
    if args.out:
        check_out_folder(args.out)
        check_results_folder(args.out, COMMAND)
    if args.records:
        check_record_file(args.records, "--records")
    rules = make_rules(args)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(hold_results_folder(args.out, COMMAND)) if args.out else None
        with tqdm(total=args.games, unit="hand", disable=args.quiet, desc=f"{rules.variant} self-play") as bar:
            result = run_selfplay(rules, args.games, args.policies, args.seed, progress=bar.update)
        text = result.markdown()
        print(text)
        if out is not None:
            write_folder(out, result, text, f"zwick {' '.join(sys.argv[1:])}")
            print(f"\nwrote {out}/summary.json, report.md, scores.csv")
    if args.records:
        write_selfplay_records(args, rules)
    return 0


def write_selfplay_records(args: argparse.Namespace, rules: zwicker.Rules) -> None:
    """Add the game records of the run's hands (the first ``--record-hands``) to ``--records``
    (appended, as ``zwick play --record`` does: records already there are kept)."""
    from tqdm import tqdm

    from zwick_ai.eval.records import read_record_keys, write_records
    from zwick_ai.eval.selfplay import hand_records

    hands = args.games if args.record_hands is None else min(args.record_hands, args.games)
    if hands < 0:
        raise ValueError(f"--record-hands must be at least 0, not {args.record_hands}")
    known = read_record_keys(args.records)
    before = len(known)

    def recorded(game: str, seed: int, seats: list[str]) -> bool:
        return (game, seed, tuple(seats)) in known

    records = hand_records(rules, hands, args.policies, args.seed, skip=recorded)
    bar = tqdm(records, total=hands, unit="record", disable=args.quiet, desc="records")
    n = write_records(args.records, bar, append=True, what="--records", skip_known=True)
    kept = f" after the {before} it had" if before else ""
    again = hands - n
    there = f"; {again} of these hands were in it already" if again else ""
    print(f"added {n} game records to {args.records}{kept}{there} (zwick replay {args.records} --game-index i)")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``variants`` and ``selfplay`` to the ``zwick`` command."""
    p = sub.add_parser(
        "variants",
        help="list the Zwicker variants and rule options",
        description="The Zwicker variants (players, sides, deck, jokers, points) and every rule "
        "option with its default, its values and what it does.",
    )
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser(
        "selfplay",
        help="play many hands with compiled random/greedy policies and summarise them",
        description="Deal and play whole hands inside compiled code, then report per-side points "
        "with 95% confidence intervals, Zwicks per hand and how often each joker is kept.",
    )
    add_game_args(p, games='zwicker or a zwicker game string such as "zwicker(variant=classic,players=2)"')
    p.add_argument("--games", type=int, default=10000, help="hands to play (default: %(default)s)")
    p.add_argument(
        "--policies", default="random",
        help="random or greedy for every seat, or one per seat: greedy,random,greedy,random",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default: %(default)s)")
    p.add_argument("--out", help="folder for summary.json, report.md and scores.csv")
    p.add_argument(
        "--records", metavar="FILE",
        help="also add one JSONL game record per hand to FILE (moves included; replay with `zwick replay`; "
        "records already in FILE are kept); slower than the compiled run: about 10-40 ms per hand",
    )  # fmt: skip
    p.add_argument("--record-hands", type=int, metavar="N", help="with --records: record only the first N hands")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_selfplay)
