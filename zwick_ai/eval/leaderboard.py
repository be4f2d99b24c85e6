"""One leaderboard over every game: per Zwicker variant and trick-game rule set, every agent that
plays it, rated by Bradley–Terry on duplicate deals, as a gauntlet of ordinary tournaments.

**Design (a gauntlet).** Not every pair meets. Per game ("board"):

1. every agent plays each *anchor* (default ``greedy`` and ``ismcts:time=0.1``), and the anchors
   play each other, on ``deals`` duplicate deals (every seating of the pair on every deal);
2. the ``top`` agents by the Bradley–Terry ratings of step 1 then play every pair among them not
   yet played (the pairs that decide the top), on the same deals;
3. one Bradley–Terry fit of every pair's per-deal wins, draws and losses (Elo scale, mean 0 per
   board) with 95 % bootstrap intervals over deals (:func:`zwick_ai.eval.ratings.ratings_with_ci`);
4. the *references* (agents that are not fair players, such as ``peek-uct``, which reads the other
   players' hands) play each anchor on the same deals, outside the ratings.

**The ladder** of a board: every agent's and reference's margin over each anchor (points or chips
per deal, 95 % CI, same deals), and, with a reference, the share of the room between the search
anchor and the first reference that each agent keeps (its margin over that anchor divided by the
reference's): with ``peek-uct`` as the reference, how much of what knowing the hands is worth an
agent recovers.

Each pair is an ordinary two-agent tournament of :mod:`zwick_ai.eval.tournament` in its own folder
(``OUT/<board>/<a>--<b>/``), with the board's seed, so every pair plays the same deals, games run
on the given backend (local processes or Ray), and an interrupted leaderboard resumes where it
stopped (finished games are never replayed or overwritten). An agent that cannot play a board
(e.g. ``net`` without weights for that variant and player count, ``mccfr`` without a policy for
that game) is left out of it, and the reason recorded.

**Output**: ``OUT/leaderboard.md`` (agents by boards, rating and 95 % CI; then each board's
pairs), ``OUT/leaderboard.json``, ``OUT/<board>/ratings.csv``. With :func:`pack` (the file's
``pack = true``) a finished board keeps its pairs' games and configs in two files,
``OUT/<board>/games.jsonl.gz`` and ``pairs.json``, instead of a folder per pair.

>>> gauntlet_pairs(["a", "b", "greedy", "ismcts"], ["greedy", "ismcts"])
[('greedy', 'ismcts'), ('a', 'greedy'), ('a', 'ismcts'), ('b', 'greedy'), ('b', 'ismcts')]
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from dataclasses import dataclass, field, replace
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.agents import outside
from zwick_ai.agents.base import agent_info, parse_spec
from zwick_ai.agents.guard import MOVE_TIME_LIMIT, START_TIME_LIMIT
from zwick_ai.backends import Backend
from zwick_ai.eval.agent_failures import AgentFailed, started
from zwick_ai.eval.experiment_files import DEFAULT_ANCHORS  # the gauntlet's anchors unless a file names them
from zwick_ai.eval.packed_pairs import pack_board, packed_machine, pair_folders, restore_pair
from zwick_ai.eval.ratings import points_design, points_ratings_with_ci, ratings_with_ci
from zwick_ai.eval.report import markdown_table
from zwick_ai.eval.tournament import Tournament, run_tournament
from zwick_ai.eval.tournament.report import REWRITTEN
from zwick_ai.eval.tournament.summary import RATING_PRIOR, RATING_RESAMPLES, finished_differences, pair_summary
from zwick_ai.eval.verdict import disagreement_lines, p_text
from zwick_ai.games.game_strings import game_spec
from zwick_ai.stats import MeanInterval, mean_ci


@dataclass
class Board:
    """One game of the leaderboard: ``game_name`` with ``params``, the ``agents`` that play it and
    the specs left out with the reason (``skipped``)."""

    label: str
    game_name: str
    params: dict[str, Any]
    agents: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return _slug(self.label)


def pair_name(a: str, b: str) -> str:
    """The folder name of the pair ``a`` against ``b`` on a board."""
    return f"{_slug(a)}--{_slug(b)}"


def _slug(text: str) -> str:
    """A folder name for ``text``: its safe characters, shortened with a hash when long."""
    safe = re.sub(r"[^A-Za-z0-9=.]+", "-", text).strip("-")
    if len(safe) <= 40:
        return safe
    return safe[:31] + "-" + hashlib.sha1(text.encode()).hexdigest()[:8]


def gauntlet_pairs(agents: list[str], anchors: list[str]) -> list[tuple[str, str]]:
    """Step 1's pairs: the anchors among themselves, then every other agent against each anchor."""
    present = [a for a in anchors if a in agents]
    pairs = list(combinations(present, 2))
    pairs += [(a, x) for a in agents if a not in present for x in present]
    return pairs


def make_board(
    game_string: str,
    variant: str | None,
    players: int | None,
    options: dict[str, Any],
    agents: list[str],
    references: list[str] | None = None,
    start_time_limit: float | None = START_TIME_LIMIT,
) -> Board:
    """A board: the game (``game_string``: a name or a game string, with ``variant``, ``players``
    and ``options`` on top), and which of ``agents`` and ``references`` can play it (the others in
    ``skipped``). An agent from outside the package is built in a process of its own first, on
    ``start_time_limit`` (:func:`~zwick_ai.eval.agent_failures.started`): one that fails to start
    is skipped with the line naming its failure, and cannot take this process down."""
    from zwick_ai.eval.tournament.definition import load

    name, params = game_spec(game_string, variant, players, list(options.items()))
    g = load(name, params)
    n = g.num_players()
    label = f"{name} {variant}" if variant else name
    label += f" {n}p"
    skipped: dict[str, str] = {}

    def playable(specs: list[str], taken: list[str]) -> list[str]:
        ok: list[str] = []
        for spec in specs:
            if spec in ok or spec in taken or spec in skipped:
                continue
            if outside.is_import_path(parse_spec(spec)[0]):
                agent_info(parse_spec(spec)[0])  # an agent of your own that cannot be imported: refused, not left out
            try:
                started(spec, g, start_time_limit)
            except (ValueError, FileNotFoundError, ImportError) as error:
                skipped[spec] = str(error).splitlines()[0] if str(error) else type(error).__name__
                continue
            ok.append(spec)
        return ok

    ok = playable(agents, [])
    return Board(label, name, params, ok, skipped, playable(references or [], ok))


@dataclass(frozen=True)
class PairPlay:
    """How every pair of a board is played: its deals, seed and seatings, where its folders go,
    and on what; shared by the board's gauntlet, top pairs and references."""

    deals: int
    seed: int
    #: the leaderboard's folder (a pair's is ``OUT/<board>/<a>--<b>``)
    out: Path
    backend: Backend | None
    progress: bool
    seating: str = "all"
    clock: str = "wall"
    #: the outside agents' rules (``Tournament``'s ``move_time_limit``, ``start_time_limit``, ``on_agent_error``)
    rules: dict[str, Any] = field(default_factory=dict)


def play_pair(board: Board, a: str, b: str, how: PairPlay) -> np.ndarray | None:
    """The per-deal duplicate differences ``a - b`` of the pair's tournament (played or resumed in
    its folder, with ``how.seating`` "all" or "rotate": :class:`~zwick_ai.eval.tournament.Tournament`),
    or None if it was interrupted; a game an agent forfeited is
    :class:`~zwick_ai.eval.agent_failures.AgentFailed` once the pair's other games are played."""
    t = Tournament(
        [a, b],
        game=board.game_name,
        params=board.params,
        deals=how.deals,
        seed=how.seed,
        command="zwick leaderboard",
        seating=how.seating,
        clock=how.clock,
        **how.rules,
    )
    folder = how.out / board.slug / pair_name(a, b)
    restore_pair(how.out / board.slug, folder.name, folder)  # a packed board's pair plays on in its folder
    summary = run_tournament(t, folder, how.backend, progress=how.progress, plots=False)
    if summary is None:
        return None
    if summary.get("forfeits"):  # a deal without a difference cannot join the board's fit
        raise AgentFailed(summary["forfeits"][0])
    diffs = finished_differences(t, folder)
    return None if diffs is None else diffs[:, 0]


def fit(agents: list[str], results: dict[tuple[str, str], np.ndarray], seed: int) -> list[dict[str, Any]]:
    """Bradley–Terry ratings with 95 % CIs of ``agents`` from the per-deal differences of each pair
    (every pair on the same deals), best first."""
    pairs = [(agents.index(a), agents.index(b)) for a, b in results]
    diffs = np.stack(list(results.values()), axis=1)
    outcomes = np.where(diffs > 0, 1.0, np.where(diffs < 0, 0.0, 0.5))
    r, lo, hi = ratings_with_ci(len(agents), pairs, outcomes, prior=RATING_PRIOR, resamples=RATING_RESAMPLES, seed=seed)
    order = sorted(range(len(agents)), key=lambda x: -r[x])
    return [{"agent": agents[x], "rating": float(r[x]), "ci95": [float(lo[x]), float(hi[x])]} for x in order]


def fit_points(agents: list[str], results: dict[tuple[str, str], np.ndarray], seed: int) -> list[dict[str, Any]]:
    """Ratings on points (:func:`zwick_ai.eval.ratings.points_ratings_with_ci`: points or chips a
    deal, mean 0, least squares on the pairs' mean differences) with 95% CIs, best first: what the
    leaderboard ranks by."""
    pairs = [(agents.index(a), agents.index(b)) for a, b in results]
    r, lo, hi = points_ratings_with_ci(
        len(agents), pairs, np.stack(list(results.values()), axis=1), resamples=RATING_RESAMPLES, seed=seed
    )
    order = sorted(range(len(agents)), key=lambda x: -r[x])
    return [{"agent": agents[x], "rating": float(r[x]), "ci95": [float(lo[x]), float(hi[x])]} for x in order]


def run_board(
    board: Board, anchors: list[str], top: int, how: PairPlay, search: str | None = None
) -> dict[str, Any] | None:
    """Play (or resume) a board's gauntlet and top pairs, every pair as ``how`` says (its deals,
    seed, seatings, folder and machine); its ratings, pairs and design, or None if interrupted;
    ``search`` is the floor of the ladder's room (:func:`ladder`; default the last anchor). Writes
    ``OUT/<board>/ratings.csv``.

    ``how.rules``: the outside agents' time limits and what their failure does (``on_agent_error``):
    ``stop`` ends the run naming the agent; ``forfeit`` leaves an agent that failed out of the
    board (in ``skipped`` and ``failed``, with its one line) and plays the board without it (its
    pairs' games that were played stay in their folders). The result records them all in
    ``outside_agent_rules``."""
    rules = how.rules
    failed: dict[str, str] = {}
    while True:
        try:
            result = _run_board(board, anchors, top, search, how)
        except AgentFailed as error:
            who = str(error.info.get("agent"))
            if rules.get("on_agent_error") != "forfeit" or who not in board.agents + board.references:
                raise
            failed[who] = str(error)
            board = replace(
                board,
                agents=[x for x in board.agents if x != who],
                references=[x for x in board.references if x != who],
                skipped=board.skipped | {who: f"failed: {error}"},
            )
            continue
        if result is not None:
            result["failed"] = failed
            result["outside_agent_rules"] = {
                "move_time_limit": rules.get("move_time_limit", MOVE_TIME_LIMIT),
                "start_time_limit": rules.get("start_time_limit", START_TIME_LIMIT),
                "on_agent_error": rules.get("on_agent_error", "stop"),
            }
        return result


def _run_board(board: Board, anchors: list[str], top: int, search: str | None, how: PairPlay) -> dict[str, Any] | None:
    """:func:`run_board` with the board's agents as they are."""
    if len(board.agents) < 2:
        raise ValueError(f"{board.label}: fewer than two agents can play it")
    results: dict[tuple[str, str], np.ndarray] = {}
    for a, b in gauntlet_pairs(board.agents, anchors):
        d = play_pair(board, a, b, how)
        if d is None:
            return None
        results[(a, b)] = d
    machine = first_machine(board, list(results), how)
    ratings = fit(board.agents, results, how.seed)
    leaders = [r["agent"] for r in ratings[:top]]
    for a, b in combinations(leaders, 2):
        if (a, b) in results or (b, a) in results:
            continue
        d = play_pair(board, a, b, how)
        if d is None:
            return None
        results[(a, b)] = d
    ratings = fit(board.agents, results, how.seed)
    points = fit_points(board.agents, results, how.seed)
    present = [a for a in anchors if a in board.agents]
    floor = search if search in board.agents else (present[-1] if present else None)
    references: dict[tuple[str, str], np.ndarray] = {}
    for a in board.references:
        for b in present:
            d = play_pair(board, a, b, how)
            if d is None:
                return None
            references[(a, b)] = d
    unit = "points" if board.game_name == "zwicker" else "chips"
    pairs = [_pair_summary(a, b, d, unit) for (a, b), d in results.items()]
    reference_pairs = [_pair_summary(a, b, d, unit) for (a, b), d in references.items()]
    rows = ladder(board.agents + list(board.references), present, pairs + reference_pairs, board.references, floor)
    if floor is not None and floor not in present and present:
        leads = leads_through(results | references, present[0], floor)
        for row in rows:
            row["over_search"] = leads.get(row["agent"])
    folder = how.out / board.slug
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "ratings.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "agent", "points_rating", "points_ci95_lo", "points_ci95_hi", "wins_rank", "wins_rating"]
                   + ["wins_ci95_lo", "wins_ci95_hi"])  # fmt: skip
        by_wins = {r["agent"]: (k, r) for k, r in enumerate(ratings, 1)}
        for k, r in enumerate(points, 1):
            rank, won = by_wins[r["agent"]]
            w.writerow([k, r["agent"], f"{r['rating']:.3f}", f"{r['ci95'][0]:.3f}", f"{r['ci95'][1]:.3f}", rank]
                       + [f"{won['rating']:.1f}", f"{won['ci95'][0]:.1f}", f"{won['ci95'][1]:.1f}"])  # fmt: skip
    return {
        "board": board.label,
        "game": board.game_name,
        "params": board.params,
        "agents": board.agents,
        "skipped": board.skipped,
        "deals": how.deals,
        "seating": how.seating,
        "clock": how.clock,
        "seed": how.seed,
        "anchors": [a for a in anchors if a in board.agents],
        "top_pairs_among": leaders,
        "ranking": "points",
        "points_ratings": points,
        "ratings": ratings,
        "pairs": pairs,
        "references": list(board.references),
        "reference_pairs": reference_pairs,
        "search": floor,
        "ladder": rows,
        "machine": machine,
    }


def first_machine(board: Board, played: list[tuple[str, str]], how: PairPlay) -> str | None:
    """The machine and its load at the start of the board's first pair (its ``summary.json``'s
    ``machine``, :func:`zwick_ai.machine.describe`; kept from when its games were played)."""
    if not played:
        return None
    a, b = played[0]
    name = pair_name(a, b)
    path = how.out / board.slug / name / "summary.json"
    try:
        machine = json.loads(path.read_text()).get("machine")
    except (OSError, json.JSONDecodeError):
        machine = None
    if not isinstance(machine, str) or machine.startswith(REWRITTEN):  # its games came from a pack
        return packed_machine(how.out / board.slug, name) or (machine if isinstance(machine, str) else None)
    return machine


def board_pairs(board: Board) -> set[str]:
    """The folder names of every pair ``board`` can hold: any two of its agents, references and
    the specs it left out (one that cannot start on this machine keeps the games it played
    elsewhere), in either order."""
    specs = board.agents + board.references + list(board.skipped)
    return {pair_name(a, b) for a, b in permutations(specs, 2)}


def pack(board: Board, out: Path) -> None:
    """Keep the finished ``board``'s pair folders as two files (:mod:`zwick_ai.eval.packed_pairs`):
    ``OUT/<board>/games.jsonl.gz`` and ``pairs.json``; a later run restores a pair it plays on.
    Only the board's pairs (:func:`board_pairs`) stay: an agent taken off the board in the file
    takes its packed games with it."""
    pack_board(out / board.slug, pair_folders(out / board.slug), only=board_pairs(board))


def _pair_summary(a: str, b: str, d: np.ndarray, unit: str = "points") -> dict[str, Any]:
    """One pair's result: mean per-deal difference ``a - b`` with its 95 % CI, W-D-L of ``a`` with
    the sign test, and the verdict in words (:func:`zwick_ai.eval.tournament.summary.pair_summary`)."""
    return pair_summary(a, b, d, unit)


def ladder(
    agents: list[str],
    anchors: list[str],
    pairs: list[dict[str, Any]],
    references: list[str],
    search: str | None = None,
) -> list[dict[str, Any]]:
    """Each agent's margin over each anchor (``{anchor: [mean, lo, hi]}``, an anchor's own row
    against itself empty) from the played ``pairs``, and its ``share`` of the room between the
    search and the first reference (None without a reference, for the search itself, or when the
    room is not positive). The search is ``search``, by default the last anchor. When it is an
    anchor the share is an agent's margin over it divided by the reference's; otherwise both
    margins are taken over the first anchor, less the search's own margin over it.

    >>> pairs = [{"a": "x", "b": "s", "mean_diff": 2.0, "ci95": [1.0, 3.0]},
    ...          {"a": "peek", "b": "s", "mean_diff": 8.0, "ci95": [6.0, 10.0]}]
    >>> [(r["agent"], r["share"]) for r in ladder(["x", "s", "peek"], ["s"], pairs, ["peek"])]
    [('x', 0.25), ('s', None), ('peek', 1.0)]
    >>> pairs = [{"a": a, "b": "g", "mean_diff": m, "ci95": [m - 1, m + 1]} for a, m in
    ...          [("x", 6.0), ("s", 4.0), ("peek", 12.0)]]
    >>> [(r["agent"], r["share"]) for r in ladder(["g", "x", "s", "peek"], ["g"], pairs, ["peek"], search="s")]
    [('g', None), ('x', 0.25), ('s', None), ('peek', 1.0)]
    """
    margins: dict[str, dict[str, list[float | None]]] = {a: {} for a in agents}
    for p in pairs:
        lo, hi = p["ci95"]
        if p["a"] in margins and p["b"] in anchors:
            margins[p["a"]][p["b"]] = [p["mean_diff"], lo, hi]
        if p["b"] in margins and p["a"] in anchors:
            margins[p["b"]][p["a"]] = [-p["mean_diff"], None if hi is None else -hi, None if lo is None else -lo]
    if search is None:
        search = anchors[-1] if anchors else None
    base: str | None
    floor: float | None
    if search in anchors:
        base, floor = search, 0.0
    else:
        base = anchors[0] if anchors else None
        own = margins[search].get(base) if search in margins and base else None
        floor = own[0] if own is not None and own[0] is not None else None

    def over_search(agent: str) -> float | None:
        m = margins[agent].get(base) if base and agent in margins and agent != search else None
        return None if m is None or m[0] is None or floor is None else m[0] - floor

    room = over_search(references[0]) if references else None
    rows = []
    for a in agents:
        kept = over_search(a)
        share = round(kept / room, 4) if room is not None and kept is not None and room > 0 else None
        rows.append({"agent": a, "reference": a in references, "margins": margins[a], "share": share})
    return rows


def leads_through(played: dict[tuple[str, str], np.ndarray], base: str, search: str) -> dict[str, list[float | None]]:
    """Each agent's lead over ``search`` per deal, through the anchor ``base`` that both played on
    the same deals: (agent − base) − (search − base) deal by deal, as ``[mean, lo, hi]`` (95% CI
    paired over deals); agents whose pair with ``base`` has another number of deals are left out.

    >>> played = {("x", "g"): np.array([3.0, 1.0, 2.0]), ("g", "s"): np.array([-1.0, 0.0, -2.0])}
    >>> lead = leads_through(played, "g", "s")["x"]
    >>> lead[0]
    1.0
    >>> sorted(leads_through(played, "g", "s"))
    ['x']
    """
    over: dict[str, np.ndarray] = {}
    for (a, b), d in played.items():
        if b == base:
            over[a] = d
        elif a == base:
            over[b] = -d
    if search not in over:
        return {}
    out: dict[str, list[float | None]] = {}
    for agent, d in over.items():
        if agent == search or len(d) != len(over[search]):
            continue
        est = mean_ci(d - over[search])
        out[agent] = [float(est.mean), *(float(x) if math.isfinite(x) else None for x in est.ci95)]
    return out


def ladder_overview(boards: list[dict[str, Any]]) -> list[str]:
    """One table of every board's ladder: agents and references (rows) by boards (columns), each
    cell the margin over the board's first anchor with its 95% CI and, where the board has a
    reference, the share of the room in parentheses; empty without ladders. A board's trained
    policy shares one row with the other boards', as in :func:`headline`."""
    with_ladder = [b for b in boards if b.get("ladder")]
    if not with_ladder:
        return []
    rows = _in_file_order([[_family(r["agent"]) for r in b["ladder"]] for b in with_ladder])
    anchors = {b["anchors"][0] for b in with_ladder if b["anchors"]}
    first = next(iter(anchors)) if len(anchors) == 1 else "the first anchor"
    refs = {_family(a) for b in with_ladder for a in b.get("references", [])}
    table = []
    for agent in rows:
        cells = []
        for b in with_ladder:
            r = next((x for x in b["ladder"] if _family(x["agent"]) == agent), None)
            if r is None or not b["anchors"] or agent == b["anchors"][0]:
                cells.append("—" if r is None else "")
                continue
            cell = _ci_cell(r["margins"].get(b["anchors"][0]))
            cells.append(cell + ("" if r["share"] is None else f" ({100 * r['share']:.0f}%)"))
        table.append([f"`{agent}`" + (" (reference)" if agent in refs else ""), *cells])
    return [
        f"## The ladder: margin over `{first}`" if len(anchors) == 1 else "## The ladder",
        "",
        *markdown_table(["agent", *(b["board"] for b in with_ladder)], table, numeric=True),
        "",
        "Points or chips a deal, 95% CI, each board's deals; in parentheses the share of the room between the search "
        "(the last anchor unless the file names one) and the first reference that the agent keeps (the board's ladder).",
    ]


def _in_file_order(sequences: list[list[str]]) -> list[str]:
    """One order of every item of ``sequences`` (each board's agents in the file's order) that keeps
    each sequence's order: an item first met after another follows it.

    >>> _in_file_order([["random", "greedy", "ismcts"], ["random", "greedy", "net", "ismcts"]])
    ['random', 'greedy', 'net', 'ismcts']
    """
    order: list[str] = []
    for seq in sequences:
        for i, item in enumerate(seq):
            if item in order:
                continue
            before = next((seq[j] for j in range(i - 1, -1, -1) if seq[j] in order), None)
            order.insert(0 if before is None else order.index(before) + 1, item)
    return order


def _rating_cell(r: dict[str, Any]) -> str:
    """A rating and its 95% CI in whole Elo points (``round`` gives an int, so no "-0").

    >>> _rating_cell({"rating": -0.4, "ci95": [-59.0, 57.2]})
    '0 [-59, 57]'
    >>> _rating_cell({"rating": 0.0, "ci95": [float("-inf"), None]})  # one deal: no interval
    '0 [-∞, ∞]'
    """
    lo, hi = r["ci95"]
    return f"{round(r['rating'])} [{_bound(lo, '-∞')}, {_bound(hi, '∞')}]"


def _bound(x: float | None, unbounded: str) -> str:
    """An interval's bound in whole Elo points; ``unbounded`` when it is missing or infinite."""
    return str(round(x)) if x is not None and math.isfinite(x) else unbounded


def _family(spec: str) -> str:
    """The row a spec takes in the headline: its agent's name when its parameters name a file (a
    board's own trained policy), else the spec itself."""
    name, _, params = spec.partition(":")
    return f"{name}:policy=…" if "policy=" in params else spec


def ranking(board: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The measure a board ranks by and its ratings, best first: ``points`` (a board written with
    points ratings), else ``wins`` (Bradley–Terry; boards saved before points ratings)."""
    if board.get("points_ratings"):
        return "points", board["points_ratings"]
    return "wins", board["ratings"]


def points_order(board: dict[str, Any]) -> list[str] | None:
    """The board's agents best first by points: its points ratings, or for a board saved without
    them the least-squares fit of its pairs' mean differences (the points ratings' estimate,
    without an interval); None without pairs."""
    if board.get("points_ratings"):
        return [r["agent"] for r in board["points_ratings"]]
    pairs = board.get("pairs") or []
    agents = [r["agent"] for r in board["ratings"]]
    index = {a: i for i, a in enumerate(agents)}
    pairs = [p for p in pairs if p["a"] in index and p["b"] in index]
    if not pairs:
        return None
    solve = points_design(len(agents), [(index[p["a"]], index[p["b"]]) for p in pairs])
    fitted = solve @ np.array([p["mean_diff"] for p in pairs])
    return sorted(agents, key=lambda a: -fitted[index[a]])


def other_ranks(board: dict[str, Any]) -> dict[str, str]:
    """``(#k by wins)`` or ``(#k by points)`` for each agent whose rank by the other measure
    differs from its rank in the board's ranking (nothing when the other order is unknown)."""
    measure, rated = ranking(board)
    mine = [r["agent"] for r in rated]
    other = [r["agent"] for r in board["ratings"]] if measure == "points" else points_order(board)
    if other is None:
        return {}
    name = "wins" if measure == "points" else "points"
    return {a: f" (#{other.index(a) + 1} by {name})" for k, a in enumerate(mine) if a in other and other.index(a) != k}


def _points_cell(r: dict[str, Any]) -> str:
    """A points rating and its 95% CI, two decimals.

    >>> _points_cell({"rating": 1.234, "ci95": [0.5, 2.0]})
    '+1.23 [+0.50, +2.00]'
    """
    lo, hi = r["ci95"]
    bounds = (
        "n/a"
        if lo is None or hi is None or not math.isfinite(lo) or not math.isfinite(hi)
        else (f"{lo:+.2f}, {hi:+.2f}")
    )
    return f"{r['rating']:+.2f} [{bounds}]"


def _cell(board: dict[str, Any], r: dict[str, Any]) -> str:
    return _points_cell(r) if ranking(board)[0] == "points" else _rating_cell(r)


def headline(boards: list[dict[str, Any]]) -> list[str]:
    """The README's headline: per game family (Zwicker, then the trick games), one table of agents
    (rows, in the file's order) by boards (columns), each cell the rating the board ranks by
    (:func:`ranking`) with its 95% CI, the board's leader in bold, and the agent's rank by the
    other measure where it differs (:func:`other_ranks`).
    A board's trained policy (``mccfr:policy=PATH,…``) shares one row with the other boards'.

    >>> b = {"board": "zwicker classic 4p", "game": "zwicker", "ratings": [
    ...     {"agent": "expert", "rating": 40.4, "ci95": [10.0, 70.0]},
    ...     {"agent": "greedy", "rating": -40.4, "ci95": [-70.0, -10.0]}]}
    >>> print("\\n".join(headline([b])))
    | agent | classic 4p |
    |---|---|
    | `expert` | **40 [10, 70]** |
    | `greedy` | -40 [-70, -10] |
    """
    lines: list[str] = []
    for group, rows in _family_groups(boards):
        best = [max((x["rating"] for x in ranking(b)[1]), default=None) for b in group]
        marks = [other_ranks(b) for b in group]
        table = []
        for row in rows:
            cells = []
            for b, top, mark in zip(group, best, marks, strict=True):
                r = next((x for x in ranking(b)[1] if _family(x["agent"]) == row), None)
                if r is None:
                    cells.append("—")
                    continue
                cell = _cell(b, r)
                cells.append((f"**{cell}**" if r["rating"] == top else cell) + mark.get(r["agent"], ""))
            table.append([f"`{row}`", *cells])
        heads = [b["board"].removeprefix("zwicker ") for b in group]
        lines += ["", *markdown_table(["agent", *heads], table)] if lines else markdown_table(["agent", *heads], table)
    return lines


def markdown(boards: list[dict[str, Any]], title: str, description: str, command: str) -> str:
    """The leaderboard as Markdown: agents (rows) by boards (columns), then each board's pairs."""
    agents = _in_file_order([b["agents"] for b in boards])
    table = []
    for agent in agents:
        cells = []
        for b in boards:
            r = next((x for x in ranking(b)[1] if x["agent"] == agent), None)
            cells.append("—" if r is None else _cell(b, r) + other_ranks(b).get(agent, ""))
        table.append([f"`{agent}`", *cells])
    lines = [f"# {title}", "", description, "", *markdown_table(["agent", *(b["board"] for b in boards)], table)]
    deals = sorted({b["deals"] for b in boards})
    rotating = ""
    if any(b.get("seating") == "rotate" for b in boards):  # one design a file: every board's the same
        rotating = " (two seatings a deal, the lone side rotating with the deal, in games of three or more sides)"
    if any(b.get("clock") == "cpu" for b in boards):
        rotating += "; the searches' time budgets count the searching thread's CPU time"
    measures = {ranking(b)[0] for b in boards}
    ranked_by = (
        "Ranked by points (chips) a deal: the least-squares fit of every pair's mean per-deal difference as the gap "
        "between two ratings, mean 0 per column; beside it in each board's section, Bradley–Terry on deals won. "
        if measures == {"points"}
        else "Columns with signed decimals rank by points (chips) a deal (least squares on the pairs' mean "
        "differences, mean 0); the others, saved before points ratings, by Bradley–Terry on deals won. "
        if "points" in measures
        else ""
    )
    lines += [
        "",
        ranked_by
        + "(#k by wins) or (#k by points): the agent's rank by the other measure, where it differs. "
        + (
            "Bradley–Terry ratings (Elo scale, mean 0 per column; +200 means an expected score of 76 %) with 95 % "
            if "wins" in measures
            else "95 % "
        )
        + f"bootstrap intervals over deals; {', '.join(map(str, deals))} duplicate deals per pair"
        f"{rotating}. Design: every agent "
        "against the anchors, the anchors against each other, then every pair among the top agents (`zwick_ai/eval/"
        "leaderboard.py`). — means the agent cannot play that game.",
        "",
        f"Command: `{command}`",
        "",
        "![every board's ratings with their 95% CIs](leaderboard.png)",
    ]
    overview = ladder_overview(boards)
    if overview:
        lines += [""] + overview
    for b in boards:
        made = [f"Command of this board: `{b['command']}`", ""] if b.get("command") else []
        pairs = []
        for p in b["pairs"] + b.get("reference_pairs", []):
            lo, hi = p["ci95"]
            ci = "n/a" if lo is None or hi is None else f"[{lo:+.2f}, {hi:+.2f}]"
            wdl = f"{p['wins_a']}-{p['draws']}-{p['losses_a']}"
            verdict = p.get("verdict")
            said = [p_text(verdict["sign_p"]), verdict["case"]] if verdict else ["–", "–"]
            pairs.append([f"`{p['a']}`", f"`{p['b']}`", p["deals"], f"{p['mean_diff']:+.2f}", ci, wdl, *said])
        split = disagreement_lines([p["verdict"] for p in b["pairs"] if p.get("verdict")])
        machine = [f"Machine at the start of its first pair: {b['machine']}.", ""] if b.get("machine") else []
        lines += (
            ["", f"## {b['board']}", ""]
            + made
            + machine
            + ([*split, ""] if split else [])
            + ladder_markdown(b)
            + markdown_table(["a", "b", "deals", "mean diff a − b", "95% CI", "W-D-L", "sign test", "verdict"], pairs)
        )
        for spec, why in b["skipped"].items():
            lines.append(f"\nLeft out: `{spec}`: {why}")
    return "\n".join(lines) + "\n"


def _ci_cell(m: list[float | None] | None) -> str:
    """A board's stored ``[mean, lo, hi]`` as a table cell."""
    if m is None:
        return "—"
    c = MeanInterval(*m)
    return f"{c.mean:+.2f}" if c.lo is None or c.hi is None else f"{c.mean:+.2f} [{c.lo:+.2f}, {c.hi:+.2f}]"


def ladder_markdown(board: dict[str, Any]) -> list[str]:
    """A board's ladder (:func:`ladder`) as Markdown lines, ending with a blank line; none for a
    board saved before ladders existed."""
    rows = board.get("ladder")
    if not rows:
        return []
    anchors = board["anchors"]
    refs = board.get("references", [])
    head = ["agent"] + [f"− `{a}`" for a in anchors]
    through = any(r.get("over_search") for r in rows)
    if through:
        head.append(f"− `{board.get('search')}` (through `{anchors[0]}`)")
    if refs:
        head.append(f"share of the room (`{board.get('search') or anchors[-1]}` → `{refs[0]}`)")
    table = []
    ordered = sorted(rows, key=lambda r: -(r["margins"].get(anchors[0], [-1e9])[0] if anchors else 0))
    for r in ordered:
        name = f"`{r['agent']}`" + (" (reference)" if r["reference"] else "")
        cells = [name] + ["" if a == r["agent"] else _ci_cell(r["margins"].get(a)) for a in anchors]
        if through:
            cells.append("" if r["agent"] in (board.get("search"), *anchors) else _ci_cell(r.get("over_search")))
        if refs:
            cells.append("" if r["share"] is None else f"{100 * r['share']:.0f}%")
        table.append(cells)
    return markdown_table(head, table, numeric=True) + [
        "",
        "The ladder: each agent's margin over each anchor, per deal, 95% CI, on the same deals"
        + (
            "; the share of the room is the lead over the search (in its header) divided by the reference's "
            "(references see hidden cards and are not rated)."
            if refs
            else "."
        )
        + (
            " The lead over the search through the anchor: deal by deal, the agent's margin over the anchor "
            "less the search's (95% CI paired over deals)."
            if through
            else ""
        ),
        "",
    ]


def _family_groups(boards: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """The boards per game family (Zwicker, then the trick games), each with its agents' rows in
    the file's order; a family without boards is left out."""
    out = []
    for family in ("zwicker", "other"):
        group = [b for b in boards if (b.get("game") == "zwicker") == (family == "zwicker")]
        if group:
            agents = [[_family(a) for a in b.get("agents", [r["agent"] for r in b["ratings"]])] for b in group]
            out.append((group, _in_file_order(agents)))
    return out


def figure_groups(boards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``leaderboard.png`` draws (:func:`zwick_ai.eval.pictures.plot_boards`): per game family,
    as :func:`headline` (Zwicker, then the trick games), the agents in the file's order and per
    board the rating it ranks by (:func:`ranking`) with its 95% CI, the axis naming the measure."""
    groups = []
    for group, rows in _family_groups(boards):
        panels = []
        for b in group:
            measure, rated = ranking(b)
            unit = "points" if b.get("game") == "zwicker" else "chips"
            xlabel = f"{unit} a deal (mean 0)" if measure == "points" else "Bradley–Terry on deals won (Elo)"
            panels.append({"board": b["board"], "xlabel": xlabel, "ratings": {_family(r["agent"]): r for r in rated}})
        groups.append({"rows": rows, "boards": panels})
    return groups


def merged(boards: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """``boards`` with the other boards already in ``out/leaderboard.json`` (a run with ``--only``
    replaces its own boards there and keeps the rest)."""
    path = out / "leaderboard.json"
    try:
        old = json.loads(path.read_text()) if path.is_file() else []
    except json.JSONDecodeError:
        old = []
    fresh = {b["board"] for b in boards}
    return [b for b in old if isinstance(b, dict) and b.get("board") not in fresh] + boards


def write(boards: list[dict[str, Any]], out: Path, title: str, description: str, command: str) -> Path:
    """``leaderboard.md``, ``leaderboard.json``, ``headline.md`` (:func:`headline`, the README's
    table) and ``leaderboard.png`` (every board's ratings with their intervals, :func:`figure_groups`)
    in ``out``; returns ``leaderboard.md``'s path."""
    from zwick_ai.eval.pictures import plot_boards

    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard.json").write_text(json.dumps(boards, indent=1) + "\n")
    (out / "headline.md").write_text("\n".join(headline(boards)) + "\n")
    if boards:
        plot_boards(figure_groups(boards), out / "leaderboard.png", title)
    path = out / "leaderboard.md"
    path.write_text(markdown(boards, title, description, command))
    return path


__all__ = [
    "Board",
    "DEFAULT_ANCHORS",
    "PairPlay",
    "board_pairs",
    "figure_groups",
    "fit",
    "gauntlet_pairs",
    "headline",
    "ladder",
    "ladder_markdown",
    "ladder_overview",
    "make_board",
    "markdown",
    "merged",
    "pack",
    "pair_name",
    "run_board",
    "write",
]
