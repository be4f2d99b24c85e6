"""``zwick analyze``: what was the best move? Every legal move of each decision of a recorded game,
valued for the mover on the same sampled worlds (:mod:`zwick_ai.analysis.move_values`).

Writes, into a new folder ``--out DIR``: ``analysis.json`` (every decision's moves with their values,
losses and verdicts: its format in :mod:`zwick_ai.analysis.game_analysis`, which does the analysis),
``analysis.md`` (the method, the mistakes, every decision) and ``analysis.html`` (the replay page with
each decision's values beside the position).

Forced moves (a single legal move) are not decisions and are left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from zwick_ai.cli.paths import check_out_folder, read_game_records

#: measured costs of a whole game, shown in --help (command and load: benchmarks/README.md)
ROLLOUT_COST = "about 1 s per decision"
SEARCH_COST = "a whole game in 7 s with iters=100, in 34 s with iters=1000 (load 7)"
PLAYON_COST = "half a minute or more per decision with iters=100, hours for a game"


def cmd_analyze(args: argparse.Namespace) -> int:
    from zwick_ai.analysis import game_analysis
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder
    from zwick_ai.eval.records import replay

    params = game_analysis.parse_evaluator(args.agent)
    out = Path(args.out)
    check_out_folder(out)
    check_results_folder(out, game_analysis.COMMAND)
    if (out / "analysis.json").exists() and not (out / game_analysis.PARTIAL).exists():
        raise ValueError(f"{out / 'analysis.json'} exists already; give another --out (nothing was overwritten)")
    records = read_game_records(args.file, "analyze")
    if not 0 <= args.game_index < len(records):
        raise ValueError(f"--game-index must be in 0..{len(records) - 1} ({len(records)} readable records)")
    rec = records[args.game_index]
    n = len(rec.seats)
    if args.seat is not None and not 0 <= args.seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1} for this {n}-player game")
    seats = list(range(n)) if args.seat is None else [args.seat]
    try:
        steps = replay(rec)
    except ValueError as e:
        raise ValueError(f"game {args.game_index} of {args.file}: {e}") from None
    unit = "points" if rec.game.startswith("zwicker") else "chips"
    params = game_analysis.agent_mode(params, rec.game.split("(")[0])
    if "agent" in params:  # an agent of another game, or one that cannot start: refused now
        from zwick_ai.agents.guard import START_TIME_LIMIT
        from zwick_ai.eval.agent_failures import started

        started(str(params["agent"]), steps[0].state.get_game(), START_TIME_LIMIT)
    spec = game_analysis.evaluator_spec(params)
    method = game_analysis.method_text(params, unit)
    identity = {"game": rec.game, "deal_seed": rec.deal_seed, "moves": rec.moves, "seats": seats, "agent": spec}
    with hold_results_folder(out, game_analysis.COMMAND):
        try:
            decisions = game_analysis.value_decisions(out, identity, rec, steps, seats, params, not args.quiet)
        except KeyboardInterrupt:
            print(f"\ninterrupted; the decisions valued so far are in {out / game_analysis.PARTIAL}; the same command resumes",
                  file=sys.stderr)  # fmt: skip
            return 130
        if decisions is None:
            print(f"{out} holds this analysis finished already (analysis.json, .md, .html); nothing to do")
            return 0
        game_analysis.write_analysis(
            out, rec, steps, f"game {args.game_index} of {args.file}", spec, method, decisions, unit
        )
    mistakes = [d for d in decisions if d["verdict"] == "mistake"]
    worst = max(mistakes, key=lambda d: d["loss"], default=None)
    print(f"{len(decisions)} decisions analysed with {spec}; {len(mistakes)} mistakes (paired 95% CI of the loss "
          "excluding zero)", file=sys.stdout)  # fmt: skip
    if worst is not None:
        print(f"biggest mistake: move {worst['move_index'] + 1}, seat {worst['seat']}, {worst['played']!r}, "
              f"loss {game_analysis.loss_text(worst)} {unit}", file=sys.stdout)  # fmt: skip
    print(game_analysis.separation_text(decisions), file=sys.stdout)
    print(f"wrote {out}/analysis.json, analysis.md, analysis.html", file=sys.stdout)
    return 0


class EvaluatorHelp(argparse.RawDescriptionHelpFormatter):
    """``--help`` with the evaluators' defaults of :mod:`zwick_ai.analysis.game_analysis` filled
    in when it is shown (that module is imported then, not when the parser is built)."""

    @staticmethod
    def _filled(text: str) -> str:
        from zwick_ai.analysis import game_analysis

        return text.format(
            default=game_analysis.evaluator_spec(game_analysis.DEFAULTS), searches=game_analysis.AGENT_SEARCHES, worlds=game_analysis.AGENT_WORLDS,
            partial=game_analysis.PARTIAL, rollout_cost=ROLLOUT_COST, search_cost=SEARCH_COST, playon_cost=PLAYON_COST,
        )  # fmt: skip

    def add_text(self, text: str | None) -> None:
        super().add_text(self._filled(text) if text and "{" in text else text)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return self._filled(text) if text and "{default}" in text else text


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``analyze`` to the ``zwick`` command."""
    p = sub.add_parser(
        "analyze",
        help="value every legal move of a recorded game's decisions (95%% CIs); resumable",
        description="For each decision of the chosen seat(s) in a recorded game, the value of every legal "
        "move for the mover (mean points or chips per deal, 95% CI), all moves measured on the same "
        "sampled worlds; each move's loss against the best with a paired 95% CI; a mistake only where that CI "
        "excludes zero, and how many worlds would separate the rest. Writes analysis.json, "
        "analysis.md and analysis.html into --out.",
        epilog="""evaluators and their cost (measured on a 44-decision dithmarschen game; see benchmarks/README.md):
  --agent "{default}"
      the default: compiled playouts ({rollout_cost}); policy greedy or random.
  --agent "ismcts:iters=100"  (= "ismcts:iters=100;searches={searches},seed=0")
      the agent's own judgement: {searches} of its searches per decision value every move;
      {search_cost}.
  --agent "ismcts:iters=100;worlds={worlds}"
      the agent plays each sampled world on to the end after every move, at every seat;
      the slowest: {playon_cost}.
Progress shows decisions done and the time left; each valued decision is kept in DIR/{partial} at
once, so an interrupted analysis resumes where it stopped with the same command.

examples:
  zwick analyze games.jsonl --game-index 0 --seat 0 --out analysis/
  zwick analyze games.jsonl --agent "ismcts:iters=200" --out analysis-ismcts/""",
        formatter_class=EvaluatorHelp,
    )
    p.add_argument("file", help="a JSONL file of game records")
    p.add_argument("--game-index", type=int, default=0, help="which record of the file (from 0; default: %(default)s)")
    p.add_argument("--seat", type=int, help="analyse only this seat's decisions (default: every seat)")
    p.add_argument("--agent", metavar="SPEC", help="the evaluator (default: {default}; see below)")
    p.add_argument(
        "--out", required=True, metavar="DIR",
        help="a new or empty folder for analysis.json, .md and .html (the same command resumes there)",
    )  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_analyze)
