"""``zwick replay``: step through a recorded game (a JSONL line of :mod:`zwick_ai.eval.records`,
as written by ``zwick play --record``, ``zwick selfplay --records`` and tournaments).

The recorded actions are re-applied on the real game, so what is shown is what the game makes of
them; a record that does not replay is reported with the move where it stops. Damaged lines of
the file are reported (line number and what is wrong) and skipped.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, TextIO

from zwick_ai.cli.paths import check_new_file, read_game_records

if TYPE_CHECKING:
    from zwick_ai.eval.records import GameRecord, ReplayStep

PROMPT = "[Enter] next, b back, q quit: "


def _step_text(rec: GameRecord, steps: list[ReplayStep], i: int) -> str:
    from zwick_ai.render.text import show

    step = steps[i]
    if step.index < 0:
        head = f"after the deal ({len(rec.moves)} moves follow)"
    else:
        head = f"move {step.index + 1}/{len(rec.moves)}: seat {step.seat} ({rec.seats[step.seat]}): {step.label}"
    return f"\n{head}\n{show(step.state, viewer=None, names=rec.seats)}"


def _result(rec: GameRecord) -> str:
    text = "result: " + ", ".join(
        f"seat {p} ({s}) {r:+g}" for p, (s, r) in enumerate(zip(rec.seats, rec.returns, strict=True))
    )
    if rec.points is not None:
        text += "\npoints per side: " + ", ".join(f"side {s} {x}" for s, x in enumerate(rec.points))
    return text


def browse(rec: GameRecord, steps: list[ReplayStep], inp: TextIO | None, out: TextIO) -> None:
    """Show the steps: all at once when ``inp`` is None, else one per Enter (``b`` back, ``q`` quit)."""
    i = 0
    print(_step_text(rec, steps, 0), file=out)
    while True:
        if inp is None:
            if i + 1 == len(steps):
                break
            i += 1
            print(_step_text(rec, steps, i), file=out)
            continue
        out.write(PROMPT)
        out.flush()
        line = inp.readline()
        key = line.strip().lower()
        if not line or key in ("q", "quit"):
            print(file=out)
            return
        if key in ("b", "back"):
            if i == 0:
                print("(this is the start)", file=out)
                continue
            i -= 1
        elif key == "":
            if i + 1 == len(steps):
                break
            i += 1
        else:
            print("press Enter for the next move, b to go back, q to quit", file=out)
            continue
        print(_step_text(rec, steps, i), file=out)
    print("\n" + _result(rec), file=out)


def cmd_replay(args: argparse.Namespace, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    try:
        return _replay(args, inp, out or sys.stdout)
    except BrokenPipeError:  # the reader stopped early (``| head``, quitting ``less``): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _replay(args: argparse.Namespace, inp: TextIO | None, out: TextIO) -> int:
    from zwick_ai.eval.records import replay

    if args.html:
        check_new_file(args.html, "--html")
    records = read_game_records(args.file, "replay")
    if args.list:
        for i, rec in enumerate(records):
            returns = " ".join(f"{r:+g}" for r in rec.returns)
            print(f"{i}: {rec.game.split('(')[0]} deal {rec.deal_seed}, {len(rec.moves)} moves, seats "
                  f"{', '.join(rec.seats)}; returns {returns}", file=out)  # fmt: skip
        return 0
    if not 0 <= args.game_index < len(records):
        raise ValueError(f"--game-index must be in 0..{len(records) - 1} ({len(records)} readable records)")
    rec = records[args.game_index]
    try:
        steps = replay(rec)
    except ValueError as e:
        raise ValueError(f"game {args.game_index} of {args.file}: {e}") from None
    if args.html:
        from zwick_ai.eval.pages import write_record_page

        write_record_page(rec, steps, args.html, f"game {args.game_index} of {args.file}")
        print(f"wrote {args.html} ({len(rec.moves)} moves; open it in a browser)", file=out)
        return 0
    print(f"{rec.game}\ndeal seed {rec.deal_seed}; seats: {', '.join(rec.seats)}", file=out)
    browse(rec, steps, None if args.all else (inp or sys.stdin), out)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``replay`` to the ``zwick`` command."""
    p = sub.add_parser(
        "replay",
        help="step through a recorded game (JSONL records)",
        description="Re-apply a recorded game on the real game and show the table after each move: "
        "Enter = next move, b = back, q = quit.",
    )
    p.add_argument("file", help="a JSONL file of game records")
    p.add_argument("--game-index", type=int, default=0, help="which record of the file (from 0; default: %(default)s)")
    p.add_argument("--all", action="store_true", help="print every move without waiting")
    p.add_argument("--list", action="store_true", help="list the file's records and stop")
    p.add_argument("--html", metavar="OUT.html", help="write the game as one self-contained HTML page instead")
    p.set_defaults(func=cmd_replay)
