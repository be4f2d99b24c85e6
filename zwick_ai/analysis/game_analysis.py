"""The analysis of one recorded game, as ``zwick analyze`` makes it: the evaluator's grammar
(:func:`parse_evaluator`), the resumable loop that values every decision (:func:`analyse_record`,
:func:`read_partial`), each decision's JSON entry (:func:`decision_entry`) and the Markdown report
(:func:`summary_markdown`). The values themselves come from :mod:`zwick_ai.analysis.move_values`.

Nothing heavy is imported at module level: ``zwick analyze --help`` shows this module's defaults.

``analysis.json``: ``{"game": the record's game string, "agent": the evaluator's spec,
"decisions": [{"move_index": k, "seat": s, "played": label, "loss": x, "loss_ci95": [lo, hi],
"verdict": v, "moves": [{"move": label, "mean": x, "ci95": [lo, hi], "loss": x, "loss_ci95":
[lo, hi], "verdict": v, "to_separate": n}]}]}``, moves best first. ``loss`` = best mean − the
move's mean (>= 0), with the CI of that difference *paired* over the same worlds and play-outs
(common random numbers); ``verdict``: ``best``, ``mistake`` (the loss's CI excludes zero) or
``level`` (it does not: the data cannot tell the move from the best); ``to_separate``: about how
many worlds (or searches) a level move's loss would need for its CI to exclude zero at the same
spread (the normal approximation; none when the loss is exactly 0). Values in points per deal for
Zwicker, chips per deal for the trick games. Forced moves (a single legal move) are not decisions
and are left out.

>>> parse_evaluator("rollouts:worlds=50")["worlds"], evaluator_spec(DEFAULTS)
(50, 'rollouts:worlds=200,policy=greedy,playouts=1,seed=0')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zwick_ai.analysis import DEFAULT_WORLDS

if TYPE_CHECKING:
    from zwick_ai.analysis.move_values import DecisionValues
    from zwick_ai.eval.records import GameRecord, ReplayStep
    from zwick_ai.render import MoveValue

EVALUATOR = "rollouts"
#: the command named in the mark of an analysis folder (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick analyze"
#: the decisions valued so far, one JSON line each after a first line naming the analysis
PARTIAL = "decisions.jsonl"
DEFAULTS: dict[str, int | str] = {"worlds": DEFAULT_WORLDS, "policy": "greedy", "playouts": 1, "seed": 0}
#: the most worlds, searches and play-outs per world a decision may ask for (the worlds of a
#: decision are drawn and held at once: 100,000 of them are a few hundred MB)
CEILINGS = {"worlds": 100_000, "searches": 100_000, "playouts": 10_000}
#: the most play-outs (worlds x play-outs per world) one decision may ask for
MAX_PLAYOUTS = 1_000_000
METHOD = (
    "Evaluator `rollouts` (the leaf evaluation of the compiled ISMCTS): "
    "for each decision, {worlds} worlds consistent with the mover's information are drawn once by the compiled "
    "resampler of the ISMCTS agents; every legal move is applied in every one of these same worlds and the deal "
    "is played to its end by the compiled `{policy}` policy for every seat ({playouts} playout(s) per world, "
    "the same random stream for every move). A move's value is the mover's mean return ({unit} per deal) with "
    "a Student-t 95% CI over the worlds; " + "{loss}"
)


AGENT_WORLDS = 20  # worlds per decision when an agent plays on (each world-move is a whole deal of search)
AGENT_SEARCHES = 10  # the agent's own searches per decision (each one search of its budget)
AGENT_KEYS = ("searches", "worlds", "seed")
METHOD_AGENT = (
    "Evaluator `{agent}` playing on (a search agent's evaluation): "
    "for each decision, {worlds} worlds consistent with the mover's information are drawn once by the game's "
    "compiled resampler; every legal move is applied in every one of these same worlds and the deal is played "
    "to its end by `{agent}` at every seat, each deciding from its own information (the same agent seeds and "
    "chance stream for every move). A move's value is the mover's mean return ({unit} per deal) with a "
    "Student-t 95% CI over the worlds; " + "{loss}"
)
METHOD_SEARCHES = (
    "Evaluator `{agent}`'s own judgement: for each decision, {searches} independent searches of `{agent}` from "
    "the mover's information, each valuing every legal move by the mean return of its iterations that began with "
    "that move (the root statistics it chooses from). A move's value is the mean over the searches ({unit} per "
    "deal) with a Student-t 95% CI over them (how much the estimate varies between searches); moves the agent "
    "thinks poor get few iterations, so their values are the least sure. " + "{loss}"
)


LOSS = (
    "a move's loss = best mean - its mean, with the 95% CI of that difference paired over the same {over} "
    "(every move was measured on them); a move is called a mistake only when that CI excludes zero, "
    "otherwise it is level with the best."
)


def _whole(key: str, value: str) -> int:
    if not value.isdigit():
        raise ValueError(f"{key}={value!r} must be a whole number")
    return int(value)


def parse_evaluator(spec: str | None) -> dict[str, int | str]:
    """The evaluator of ``--agent``: ``rollouts:worlds=200,policy=greedy,playouts=1,seed=0`` (every
    key optional; the default), or an agent spec, optionally with the evaluator's own
    ``;searches=N,seed=N`` (the agent's own searches) or ``;worlds=N,seed=N`` (the agent playing
    each world on), e.g. ``ismcts:iters=100;worlds=20``; without either, :func:`agent_mode`
    chooses once the game is known. ``ValueError`` names what is valid."""
    params = dict(DEFAULTS)
    if not spec:
        return params
    from zwick_ai.analysis.move_values import ROLLOUTS

    name, _, rest = spec.partition(":")
    if name.strip() != EVALUATOR:
        from zwick_ai.agents.base import agent_params
        from zwick_ai.eval.agent_failures import outside_specs

        agent, _, own = spec.partition(";")
        if not outside_specs([agent.strip()]):  # an agent of someone else's is first built in a process of its own
            agent_params(agent)  # an unknown agent or parameter is refused here, with what is valid
        params = {"agent": agent.strip(), "seed": 0}
        for piece in filter(None, (x.strip() for x in own.split(","))):
            key, eq, value = piece.partition("=")
            if not eq or key not in AGENT_KEYS:
                raise ValueError(f"bad evaluator parameter {piece!r} after ';'; valid keys: {', '.join(AGENT_KEYS)}")
            params[key] = _whole(key, value)
        if "worlds" in params and "searches" in params:
            raise ValueError("give searches=N (the agent's own searches) or worlds=N (playing on), not both")
        for key in ("worlds", "searches"):
            if key in params and int(params[key]) < 2:
                raise ValueError(f"{key} must be at least 2")
        return _bounded(params)
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
    return _bounded(params)


def _bounded(params: dict[str, int | str]) -> dict[str, int | str]:
    """``params``, checked against :data:`CEILINGS` and :data:`MAX_PLAYOUTS` before any work."""
    for key, most in CEILINGS.items():
        if key in params and int(params[key]) > most:
            raise ValueError(f"{key}={params[key]} is more than a decision can hold; give at most {most}")
    total = int(params.get("worlds", 1)) * int(params.get("playouts", 1))
    if total > MAX_PLAYOUTS:
        raise ValueError(f"worlds x playouts = {total} play-outs a decision; give at most {MAX_PLAYOUTS}")
    return params


def agent_mode(params: dict[str, int | str], game_name: str) -> dict[str, int | str]:
    """An agent evaluator with its mode settled for ``game_name`` (a short name): the agent's own
    searches where it can value moves so (Zwicker's ismcts), else playing each world on."""
    if "agent" not in params or "worlds" in params or "searches" in params:
        if "searches" in params:
            from zwick_ai.analysis.move_values import supports_searches

            if not supports_searches(game_name, str(params["agent"])):
                raise ValueError(f"{params['agent']} cannot value {game_name} moves by its own searches; use worlds=N")
        return params
    from zwick_ai.analysis.move_values import supports_searches

    if supports_searches(game_name, str(params["agent"])):
        return {**params, "searches": AGENT_SEARCHES}
    return {**params, "worlds": AGENT_WORLDS}


def evaluator_spec(params: dict[str, int | str]) -> str:
    if "agent" in params:
        return f"{params['agent']};" + ",".join(f"{k}={params[k]}" for k in AGENT_KEYS if k in params)
    return f"{EVALUATOR}:" + ",".join(f"{k}={params[k]}" for k in DEFAULTS)


def method_text(params: dict[str, int | str], unit: str) -> str:
    """How the values were measured, for the Markdown and the page."""
    if "searches" in params:
        return METHOD_SEARCHES.format(unit=unit, loss=LOSS.format(over="searches"), **params)
    loss = LOSS.format(over="worlds and play-outs")
    return (METHOD_AGENT if "agent" in params else METHOD).format(unit=unit, loss=loss, **params)


def decision_entry(k: int, dv: DecisionValues, played_actions: list[int], played_label: str) -> dict[str, Any]:
    """One decision of ``analysis.json`` (module docstring), its moves best first."""
    from zwick_ai.stats import samples_to_separate

    moves: list[dict[str, Any]] = []
    for i, label in enumerate(dv.labels):
        mean, lo, hi = dv.mean_ci(i)
        loss = dv.loss(i)
        verdict = dv.verdict(i)
        moves.append(
            {
                "move": label,
                "mean": round(mean, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "loss": round(max(0.0, loss.mean), 4),
                "loss_ci95": [round(loss.ci95[0], 4), round(loss.ci95[1], 4)],
                "verdict": verdict,
                "to_separate": samples_to_separate(loss) if verdict == "level" else None,
            }
        )
    played = dv.index_of(played_actions)
    mine = moves[played]
    moves.sort(key=lambda m: -float(m["mean"]))
    return {
        "move_index": k,
        "seat": dv.seat,
        "played": played_label,
        "loss": mine["loss"],
        "loss_ci95": mine["loss_ci95"],
        "verdict": mine["verdict"],
        "moves": moves,
    }


def decisions_to_value(steps: list[ReplayStep], seats: list[int]) -> list[int]:
    """The move indices ``k`` of the decisions of ``seats`` (forced moves left out)."""
    from zwick_ai.games.decisions import legal_decisions

    return [k for k, st in enumerate(steps[1:]) if st.seat in seats and len(legal_decisions(steps[k].state)) > 1]


def analyse_record(
    rec: GameRecord,
    steps: list[ReplayStep],
    seats: list[int],
    params: dict[str, int | str],
    progress: bool = True,
    done: dict[int, dict[str, Any]] | None = None,
    on_decision: Any = None,
    out: Path | None = None,
) -> list[dict[str, Any]]:
    """The decisions of ``seats`` in a replayed record, valued (see the module docstring).
    ``done``: decisions valued before (by move index), not valued again; ``on_decision(entry)``
    is called with each new one as soon as it is valued. ``progress``: a bar on stderr counting
    the moves valued, with the time left. An agent from outside the package plays under guard,
    its failure's traceback in ``out/agent-errors.log`` (:func:`zwick_ai.analysis.move_values.valued_decisions`)."""
    from tqdm import tqdm

    from zwick_ai.analysis.move_values import valued_decisions
    from zwick_ai.games.decisions import legal_decisions

    done = dict(done or {})
    todo = decisions_to_value(steps, seats)
    sizes = {k: len(legal_decisions(steps[k].state)) for k in todo}
    bar = tqdm(
        total=sum(sizes.values()),
        initial=sum(sizes[k] for k in todo if k in done),
        unit="move",
        desc=f"{len(done)}/{len(todo)} decisions",
        disable=not progress,
        dynamic_ncols=True,
    )
    with bar:
        for k, dv in valued_decisions(steps, [k for k in todo if k not in done], params, out):
            step = steps[k + 1]
            done[k] = decision_entry(k, dv, step.actions, step.label)
            if on_decision is not None:
                on_decision(done[k])
            bar.set_description(f"{len(done)}/{len(todo)} decisions")
            bar.update(sizes[k])
    return [done[k] for k in todo]


def summary_markdown(
    rec: GameRecord, source: str, spec: str, method: str, decisions: list[dict[str, Any]], unit: str
) -> str:
    """The Markdown summary: method, the mistakes (paired CI of the loss above zero), every decision."""
    from zwick_ai.eval.report import markdown_table

    lines = [
        f"# Analysis: {source}",
        "",
        f"`{rec.game}`, deal seed {rec.deal_seed}; seats: {', '.join(f'{p} `{s}`' for p, s in enumerate(rec.seats))}.",
        "",
        f"Evaluator `{spec}`. {method}",
        "",
        f"{len(decisions)} decisions analysed (forced moves left out). Values in {unit} per deal for the mover.",
        "",
        "## Mistakes",
        "",
        "A move played is a mistake only when the 95% CI of its loss against the best move, paired over the same "
        "samples, excludes zero.",
        "",
    ]
    mistakes = sorted((d for d in decisions if d["verdict"] == "mistake"), key=lambda d: -d["loss"])
    if not mistakes:
        lines.append("None: no move played is worse than the best by more than this evaluation can tell.")
    else:
        rows = []
        for d in mistakes:
            best = d["moves"][0]
            rows.append([d["move_index"] + 1, d["seat"], f"`{d['played']}`", loss_text(d), f"`{best['move']}`"])
        lines += markdown_table(["move", "seat", "played", "loss [95% CI]", "best instead"], rows)
    lines += ["", separation_text(decisions), "", "## Every decision", ""]
    for d in decisions:
        lines.append(
            f"### Move {d['move_index'] + 1}, seat {d['seat']}: `{d['played']}` ({d['verdict']}, loss {loss_text(d)})"
        )
        rows = []
        for m in d["moves"]:
            mark = " (played)" if m["move"] == d["played"] else ""
            lo, hi = m["ci95"]
            rows.append(
                [f"`{m['move']}`{mark}", f"{m['mean']:+.2f}", f"[{lo:+.2f}, {hi:+.2f}]", loss_text(m), m["verdict"]]
            )
        lines += ["", *markdown_table(["move", "mean", "95% CI", "loss [95% CI]", "verdict"], rows), ""]
    return "\n".join(lines)


def loss_text(entry: dict[str, Any]) -> str:
    """``0.31 [0.12, 0.50]``: a loss with its paired CI."""
    lo, hi = entry["loss_ci95"]
    return f"{entry['loss']:.2f} [{lo:+.2f}, {hi:+.2f}]"


def level_played(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions whose move played is level with the best (below the best, not separated)."""
    return [d for d in decisions if d["verdict"] == "level"]


def separation_text(decisions: list[dict[str, Any]]) -> str:
    """How many samples would separate the moves played that are level with the best."""
    level = level_played(decisions)
    if not level:
        return "No move played is level with the best: each was the best or a clear mistake."
    need = sorted(n for d in level if (n := next(m for m in d["moves"] if m["move"] == d["played"])["to_separate"]))
    text = f"{len(level)} moves played are level with the best (their losses' CIs include zero)"
    if not need:
        return text + "."
    return (
        text + f"; at the same spread about {need[len(need) // 2]} samples per decision (the median; "
        f"{need[0]} to {need[-1]}) would tell them from the best (samples: worlds, or searches for a search evaluator)."
    )


def read_partial(path: Path, identity: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The decisions an earlier run of the same analysis wrote to ``path`` (by move index);
    ``ValueError`` if the file belongs to another analysis. A damaged last line (a run stopped
    while writing it) is dropped; its decision is valued again. A file whose only line, the
    analysis's identity, was cut short is set aside (:func:`zwick_ai.files.set_aside`): the
    analysis starts again."""
    from zwick_ai.files import set_aside

    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8", errors="replace")
    if text and "\n" not in text:  # the identity line alone, torn: nothing was valued yet
        set_aside(path, [text])
        path.unlink()
        return {}
    lines = text.splitlines()
    try:
        head = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        head = None
    if head != identity:
        raise ValueError(
            f"{path.parent} holds an analysis of another game, seat or evaluator; use another --out folder"
        )
    done: dict[int, dict[str, Any]] = {}
    for line in lines[1:]:
        try:
            entry = json.loads(line)
            if "loss_ci95" not in entry:
                continue  # valued before losses had paired CIs: valued again
            done[int(entry["move_index"])] = entry
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
    return done


def value_decisions(
    out: Path,
    identity: dict[str, Any],
    rec: GameRecord,
    steps: list[ReplayStep],
    seats: list[int],
    params: dict[str, int | str],
    progress: bool = True,
) -> list[dict[str, Any]] | None:
    """The decisions of ``seats`` valued into ``out`` (a folder the caller holds), resuming from
    :data:`PARTIAL` there: each decision is appended to it as soon as it is valued, so an
    interrupted run (``KeyboardInterrupt`` goes through) loses at most the decision it was
    valuing. None when ``out`` holds this analysis finished already. ``identity``: what names the
    analysis (game, deal, moves, seats, evaluator): a :data:`PARTIAL` of another is refused."""
    import sys

    from zwick_ai.files import JsonlAppender, replacing

    done = read_partial(out / PARTIAL, identity)
    if (out / "analysis.json").exists() and set(done) >= set(decisions_to_value(steps, seats)):
        return None
    if not done:
        with replacing(out / PARTIAL) as tmp:
            tmp.write_text(json.dumps(identity) + "\n", encoding="utf-8")
    if done:
        print(f"resuming: {len(done)} decisions valued before are in {out / PARTIAL}", file=sys.stderr)
    with JsonlAppender(out / PARTIAL) as partial:

        def keep(entry: dict[str, Any]) -> None:
            partial.write(json.dumps(entry))

        return analyse_record(rec, steps, seats, params, progress, done, keep, out)


def page_values(decisions: list[dict[str, Any]]) -> dict[int, tuple[list[MoveValue], float]]:
    """The decisions' values as the replay page shows them beside each position (by move index):
    every move's value and loss, and the loss of the move played if it was a mistake."""
    from zwick_ai.render import MoveValue

    values: dict[int, tuple[list[MoveValue], float]] = {}
    for d in decisions:
        values[int(d["move_index"])] = (
            [
                MoveValue(
                    m["move"],
                    m["mean"],
                    m["ci95"][0],
                    m["ci95"][1],
                    loss=m["loss"],
                    loss_lo=m["loss_ci95"][0],
                    loss_hi=m["loss_ci95"][1],
                    verdict=m["verdict"],
                )
                for m in d["moves"]
            ],
            float(d["loss"]) if d["verdict"] == "mistake" else 0.0,  # the move list marks mistakes only
        )
    return values


def write_analysis(
    out: Path,
    rec: GameRecord,
    steps: list[ReplayStep],
    source: str,
    spec: str,
    method: str,
    decisions: list[dict[str, Any]],
    unit: str,
) -> None:
    """``analysis.html`` (the replay page with each decision's values), ``analysis.md``
    (:func:`summary_markdown`) and, last, ``analysis.json`` into ``out``: the finished analysis of
    ``decisions`` of the record ``rec`` (replayed as ``steps``; ``source`` names it, ``spec`` the
    evaluator, ``method`` how it values, ``unit`` points or chips)."""
    from zwick_ai.eval.pages import record_page, write_text_atomic
    from zwick_ai.render import page_html

    values = page_values(decisions)
    page = record_page(rec, steps, f"Analysis: {source}", values=values, note=f"Evaluator {spec}. {method}")
    write_text_atomic(out / "analysis.html", page_html(page))
    write_text_atomic(out / "analysis.md", summary_markdown(rec, source, spec, method, decisions, unit) + "\n")
    payload = {"game": rec.game, "agent": spec, "decisions": decisions}
    write_text_atomic(out / "analysis.json", json.dumps(payload, indent=1) + "\n")  # last: marks the run done
