"""``zwick analyze``: what was the best move? Every legal move of each decision of a recorded game,
valued for the mover on the same sampled worlds (:mod:`zwick_ai.analysis.move_values`).

Writes, into a new folder ``--out DIR``:

* ``analysis.json``: ``{"game": the record's game string, "agent": the evaluator's spec,
  "decisions": [{"move_index": k, "seat": s, "played": label, "loss": x, "moves": [{"move":
  label, "mean": x, "ci95": [lo, hi]}]}]}`` (``loss`` = best mean − played mean, >= 0; values in
  points per deal for Zwicker, chips per deal for the trick games);
* ``analysis.md``: the method, every decision, the biggest mistakes;
* ``analysis.html``: the replay page with each decision's values beside the position.

Forced moves (a single legal move) are not decisions and are left out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from zwick_ai.analysis.move_values import DEFAULT_WORLDS, ROLLOUTS, DecisionValues, decision_values
from zwick_ai.cli.pages import record_page, write_text_atomic
from zwick_ai.eval.records import GameRecord, ReplayStep, read_records, replay
from zwick_ai.render import MoveValue, page_html

EVALUATOR = "rollouts"
DEFAULTS: dict[str, int | str] = {"worlds": DEFAULT_WORLDS, "policy": "greedy", "playouts": 1, "seed": 0}
METHOD = (
    "Evaluator `rollouts` (the leaf evaluation of the compiled ISMCTS; the `expert` agent does not exist yet): "
    "for each decision, {worlds} worlds consistent with the mover's information are drawn once by the compiled "
    "resampler of the ISMCTS agents; every legal move is applied in every one of these same worlds and the deal "
    "is played to its end by the compiled `{policy}` policy for every seat ({playouts} playout(s) per world, "
    "the same random stream for every move). A move's value is the mover's mean return ({unit} per deal) with "
    "a Student-t 95% CI over the worlds; loss = best mean - played mean."
)


AGENT_WORLDS = 20  # worlds per decision when an agent plays on (each world-move is a whole deal of search)
AGENT_KEYS = ("worlds", "seed")
METHOD_AGENT = (
    "Evaluator `{agent}` playing on (the strongest agent's evaluation; the `expert` agent does not exist yet): "
    "for each decision, {worlds} worlds consistent with the mover's information are drawn once by the game's "
    "compiled resampler; every legal move is applied in every one of these same worlds and the deal is played "
    "to its end by `{agent}` at every seat, each deciding from its own information (the same agent seeds and "
    "chance stream for every move). A move's value is the mover's mean return ({unit} per deal) with a "
    "Student-t 95% CI over the worlds; loss = best mean - played mean."
)


def _whole(key: str, value: str) -> int:
    if not value.isdigit():
        raise ValueError(f"{key}={value!r} must be a whole number")
    return int(value)


def parse_evaluator(spec: str | None) -> dict[str, int | str]:
    """The evaluator of ``--agent``: ``rollouts:worlds=200,policy=greedy,playouts=1,seed=0`` (every
    key optional; the default), or an agent spec playing on, optionally with the evaluator's own
    ``;worlds=N,seed=N`` (e.g. ``ismcts:iters=100;worlds=20``). ``ValueError`` names what is valid."""
    params = dict(DEFAULTS)
    if not spec:
        return params
    name, _, rest = spec.partition(":")
    if name.strip() == "expert":
        raise ValueError(
            "the expert agent does not exist yet; use the default `rollouts` evaluator or an agent such as "
            "ismcts:iters=100"
        )
    if name.strip() != EVALUATOR:
        from zwick_ai.agents.base import agent_params

        agent, _, own = spec.partition(";")
        agent_params(agent)  # an unknown agent or parameter is refused here, with what is valid
        params = {"agent": agent.strip(), "worlds": AGENT_WORLDS, "seed": 0}
        for piece in filter(None, (x.strip() for x in own.split(","))):
            key, eq, value = piece.partition("=")
            if not eq or key not in AGENT_KEYS:
                raise ValueError(f"bad evaluator parameter {piece!r} after ';'; valid keys: {', '.join(AGENT_KEYS)}")
            params[key] = _whole(key, value)
        if int(params["worlds"]) < 2:
            raise ValueError("worlds must be at least 2")
        return params
    for piece in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = piece.partition("=")
        if not eq or key not in DEFAULTS:
            raise ValueError(f"bad evaluator parameter {piece!r}; valid keys: {', '.join(DEFAULTS)}")
        if key == "policy":
            if value not in ROLLOUTS:
                raise ValueError(f"policy={value!r} is not valid; valid: {', '.join(ROLLOUTS)}")
            params[key] = value
            continue
        params[key] = _whole(key, value)
    if int(params["worlds"]) < 2 or int(params["playouts"]) < 1:
        raise ValueError("worlds must be at least 2 and playouts at least 1")
    return params


def evaluator_spec(params: dict[str, int | str]) -> str:
    if "agent" in params:
        return f"{params['agent']};" + ",".join(f"{k}={params[k]}" for k in AGENT_KEYS)
    return f"{EVALUATOR}:" + ",".join(f"{k}={params[k]}" for k in DEFAULTS)


def method_text(params: dict[str, int | str], unit: str) -> str:
    """How the values were measured, for the Markdown and the page."""
    return (METHOD_AGENT if "agent" in params else METHOD).format(unit=unit, **params)


def decision_entry(k: int, dv: DecisionValues, played_actions: list[int], played_label: str) -> dict[str, Any]:
    """One decision of ``analysis.json``."""
    moves = []
    for i, label in enumerate(dv.labels):
        mean, lo, hi = dv.mean_ci(i)
        moves.append({"move": label, "mean": round(mean, 4), "ci95": [round(lo, 4), round(hi, 4)]})
    means = dv.values.mean(axis=0)
    played = dv.index_of(played_actions)
    loss = float(means.max() - means[played])
    return {"move_index": k, "seat": dv.seat, "played": played_label, "loss": round(loss, 4), "moves": moves}


def analyse_record(
    rec: GameRecord, steps: list[ReplayStep], seats: list[int], params: dict[str, int | str], progress: bool = True
) -> list[dict[str, Any]]:
    """The decisions of ``seats`` in a replayed record, valued (see the module docstring)."""
    from zwick_ai.agents.base import legal_decisions

    todo = [k for k, st in enumerate(steps[1:]) if st.seat in seats and len(legal_decisions(steps[k].state)) > 1]
    out = []
    t0 = time.perf_counter()
    for n, k in enumerate(todo):
        step = steps[k + 1]
        dv = decision_values(
            steps[k].state,
            worlds=int(params["worlds"]),
            rollout=str(params.get("policy", "greedy")),
            playouts=int(params.get("playouts", 1)),
            seed=int(params["seed"]) * 1_000_003 + k,
            agent=str(params["agent"]) if "agent" in params else None,
        )
        out.append(decision_entry(k, dv, step.actions, step.label))
        if progress:
            spent = time.perf_counter() - t0
            print(f"\rdecision {n + 1}/{len(todo)} ({spent:.0f} s)", end="", file=sys.stderr, flush=True)
    if progress and todo:
        print(file=sys.stderr)
    return out


def summary_markdown(
    rec: GameRecord, source: str, spec: str, method: str, decisions: list[dict[str, Any]], unit: str
) -> str:
    """The Markdown summary: method, every decision, the biggest mistakes."""
    lines = [
        f"# Analysis: {source}",
        "",
        f"`{rec.game}`, deal seed {rec.deal_seed}; seats: {', '.join(f'{p} `{s}`' for p, s in enumerate(rec.seats))}.",
        "",
        f"Evaluator `{spec}`. {method}",
        "",
        f"{len(decisions)} decisions analysed (forced moves left out). Values in {unit} per deal for the mover.",
        "",
        "## Biggest mistakes",
        "",
    ]
    worst = sorted((d for d in decisions if d["loss"] > 0), key=lambda d: -d["loss"])[:5]
    if not worst:
        lines.append("None: every analysed move played was the best by this evaluation.")
    else:
        lines += ["| move | seat | played | loss | best instead |", "|---|---|---|---|---|"]
        for d in worst:
            best = max(d["moves"], key=lambda m: m["mean"])
            lines.append(
                f"| {d['move_index'] + 1} | {d['seat']} | `{d['played']}` | {d['loss']:.2f} | `{best['move']}` |"
            )
    lines += ["", "## Every decision", ""]
    for d in decisions:
        lines.append(f"### Move {d['move_index'] + 1}, seat {d['seat']}: `{d['played']}` (loss {d['loss']:.2f})")
        lines += ["", "| move | mean | 95% CI |", "|---|---|---|"]
        for m in sorted(d["moves"], key=lambda m: -m["mean"]):
            mark = " (played)" if m["move"] == d["played"] else ""
            lo, hi = m["ci95"]
            lines.append(f"| `{m['move']}`{mark} | {m['mean']:+.2f} | [{lo:+.2f}, {hi:+.2f}] |")
        lines.append("")
    return "\n".join(lines)


def cmd_analyze(args: argparse.Namespace) -> int:
    params = parse_evaluator(args.agent)
    out = Path(args.out)
    if (out / "analysis.json").exists():
        raise ValueError(f"{out / 'analysis.json'} exists already; give another --out (nothing was overwritten)")
    records, errors = read_records(args.file)
    for e in errors:
        print(f"zwick analyze: {args.file}: {e} (skipped)", file=sys.stderr)
    if not records:
        raise ValueError(f"{args.file} holds no readable game records")
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
    spec = evaluator_spec(params)
    method = method_text(params, unit)
    decisions = analyse_record(rec, steps, seats, params)
    out.mkdir(parents=True, exist_ok=True)
    source = f"game {args.game_index} of {args.file}"
    values: dict[int, tuple[list[MoveValue], float]] = {}
    for d in decisions:
        values[int(d["move_index"])] = (
            [MoveValue(m["move"], m["mean"], m["ci95"][0], m["ci95"][1]) for m in d["moves"]],
            float(d["loss"]),
        )
    page = record_page(rec, steps, f"Analysis: {source}", values=values, note=f"Evaluator {spec}. {method}")
    write_text_atomic(out / "analysis.html", page_html(page))
    write_text_atomic(out / "analysis.md", summary_markdown(rec, source, spec, method, decisions, unit) + "\n")
    payload = {"game": rec.game, "agent": spec, "decisions": decisions}
    write_text_atomic(out / "analysis.json", json.dumps(payload, indent=1) + "\n")  # last: marks the run done
    worst = max(decisions, key=lambda d: d["loss"], default=None)
    print(f"{len(decisions)} decisions analysed with {spec}", file=sys.stdout)
    if worst is not None and worst["loss"] > 0:
        print(f"biggest mistake: move {worst['move_index'] + 1}, seat {worst['seat']}, {worst['played']!r}, "
              f"loss {worst['loss']:.2f} {unit}", file=sys.stdout)  # fmt: skip
    print(f"wrote {out}/analysis.json, analysis.md, analysis.html", file=sys.stdout)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``analyze`` to the ``zwick`` command."""
    p = sub.add_parser(
        "analyze",
        help="value every legal move of a recorded game's decisions (same sampled worlds, 95%% CIs)",
        description="For each decision of the chosen seat(s) in a recorded game, the value of every legal "
        "move for the mover (mean points or chips per deal, 95% CI), all moves measured on the same "
        "sampled worlds; the loss of the move played; the biggest mistakes. Writes analysis.json, "
        "analysis.md and analysis.html into --out.",
        epilog=f'evaluators: --agent "{evaluator_spec(DEFAULTS)}" (the default; policy greedy or random: '
        "ISMCTS's own leaf evaluation, compiled, about a second per decision), or an agent spec that plays "
        f'the deal on at every seat, e.g. --agent "ismcts:iters=100;worlds={AGENT_WORLDS},seed=0" (the '
        "strongest agent's evaluation, minutes per decision). The expert agent does not exist yet.",
    )
    p.add_argument("file", help="a JSONL file of game records")
    p.add_argument("--game-index", type=int, default=0, help="which record of the file (from 0; default: %(default)s)")
    p.add_argument("--seat", type=int, help="analyse only this seat's decisions (default: every seat)")
    p.add_argument("--agent", metavar="SPEC", help=f"the evaluator (default: {evaluator_spec(DEFAULTS)}; see below)")
    p.add_argument("--out", required=True, metavar="DIR", help="a new folder for analysis.json, .md and .html")
    p.set_defaults(func=cmd_analyze)
