"""Running the joker study with strong play: joker rules on a strong agent's own choice, what
a joker is worth when every seat plays the strong agent, and how that agent uses each joker.

The strong agent is ``net`` (the learned move model, played inside compiled code:
:func:`zwick_ai.analysis.joker.net_play.play_net_deals`, thousands of deals in minutes) or ``expert``
(OpenSpiel games, one decision at a time; its budget is part of its spec). Every comparison is
duplicate, on the deals of the greedy study (:func:`zwick_ai.eval.selfplay.hand_seeds`):

* **Joker rules** (:data:`zwick_ai.analysis.joker.deals.STUDY_POLICIES`): each side in turn plays
  the agent restricted by the rule (``joker=RULE``, :func:`zwick_ai.agents.joker_policies.rule_tier`)
  against the unrestricted agent at the other seats; the deal's value is the mean over the
  seatings of the restricted side's margin (its points minus the others' mean), as in part 2 of
  the greedy study. For ``expert`` the unrestricted game of the deal is played first; a seating in
  which the rule would never have changed a choice of that side is that same game (the agent is
  deterministic given its seeds), so only seatings where the rule binds are played again, and
  each of those continues the unrestricted game from just before the side's first choice the rule
  changes (the restriction only filters the search's result, so the games agree until then; the
  agents are forked there, :meth:`zwick_ai.agents.base.Agent.fork`).
* **Joker value**: every deal in which joker J is dealt to a hand is replayed with J swapped to an
  opponent (:func:`zwick_ai.analysis.joker.deals.swap_joker`, the greedy study's definition, with
  a per-deal seed so a deal's swap does not depend on the others), all seats the unrestricted
  agent; the paired change of the holder's points (``mean_diff``, as the greedy study's
  ``gain_swap``) and of its margin.
* **Control variate** (:mod:`zwick_ai.analysis.joker.net_play`): every margin also comes corrected
  by the learned value model's chance-event terms (``cv``); for the joker value only the stages
  dealt after J's, the earlier ones being selected by where J lies. The plain and the corrected
  estimate are reported side by side, with the variance ratio on the same deals.

Each finished deal is one line of an append-only JSONL file in the output folder, named by the
agent, the seed and the weights it ran with (``strong-net-seed0-<hash>.jsonl``): a rerun
continues it (a stored ``.jsonl.gz`` is first copied to the plain file, :func:`zwick_ai.eval.records.unpack`),
new weights start a new file, nothing is deleted or overwritten. :func:`~zwick_ai.analysis.joker.strong_stats.summarize`
turns the lines into the ``strong_play`` object of ``results.json``.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zwick_ai import cards, zwicker
from zwick_ai.agents import joker_policies, value_model
from zwick_ai.agents.base import agent_params, make_agent, outside_modules
from zwick_ai.agents.guard import MOVE_TIME_LIMIT, START_TIME_LIMIT
from zwick_ai.agents.outside import ship_paths
from zwick_ai.analysis.joker import net_play
from zwick_ai.analysis.joker.deals import (
    KIND_NAMES,
    STUDY_POLICIES,
    STUDY_VARIANTS,
    joker_name,
    margins,
    option_text,
    side_of_seats,
    study_jokers,
    swap_joker,
)
from zwick_ai.backends import make_backend
from zwick_ai.eval.agent_failures import game_label, guarded_agent, guarded_map, outside_specs, started
from zwick_ai.eval.records import unpack, zwicker_game
from zwick_ai.eval.selfplay import hand_seeds
from zwick_ai.files import JsonlAppender
from zwick_ai.games import zwicker_bridge
from zwick_ai.games.game_loop import play_to_end
from zwick_ai.games.seeded_deals import default_agent_seeds
from zwick_ai.mlp import Perceptron
from zwick_ai.zwicker import arrays, layout
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker.kernels import WS_SIZE as K_WS_SIZE
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET
from zwick_ai.zwicker.rules import Rules

#: the rules asked of the strong agent: the greedy study's part 2
STRONG_POLICIES = STUDY_POLICIES
#: agents the strong study plays
STRONG_AGENTS = ("net", "expert")
#: default deals per comparison
DEFAULT_DEALS = {"net": 2000, "expert": 200}
#: permutations of the stock drawn per chance event when there are too many to enumerate
DEFAULT_CV_SAMPLES = 8
#: the models the control variate can read: the value model (``value``), the after network
#: (``after``, ``zwick train net``)
CV_MODELS = ("value", "after")
#: deals per task of a net run (one compiled call per comparison and block)
NET_BLOCK = 250
#: the clocks of an agent from outside the package (:mod:`zwick_ai.agents.guard`'s defaults)
LIMITS = {"move": MOVE_TIME_LIMIT, "start": START_TIME_LIMIT}


def check_outside(spec: str, rules: Rules) -> None:
    """An agent from outside the package is first imported, built and asked for its identity in
    a process of its own, then here on the start clock (a one-line ``ValueError`` naming it when
    it fails: :func:`zwick_ai.eval.agent_failures.started`); the package's agents are left alone."""
    if outside_specs([spec]):
        started(spec, zwicker_game(rules), START_TIME_LIMIT)


Progress = Callable[[int], None]


@dataclass
class StrongConfig:
    """One strong-play run: the variant and options, the agent spec, the deals, the seed of every
    deal, the stock permutations per chance event of the control variate (0: none) and the shipped
    model it reads (:data:`CV_MODELS`)."""

    variant: str = "dithmarschen"
    options: dict = field(default_factory=dict)
    agent: str = "net"
    deals: int = 2000
    seed: int = 0
    cv_samples: int = DEFAULT_CV_SAMPLES
    cv_model: str = "value"

    def rules(self) -> Rules:
        if self.variant not in STUDY_VARIANTS:
            raise ValueError(f"the joker study covers {', '.join(STUDY_VARIANTS)}, not {self.variant!r}")
        if self.deals < 2:
            raise ValueError("deals must be at least 2")
        if self.cv_samples < 0:
            raise ValueError("cv samples must be at least 0")
        if self.cv_model not in CV_MODELS:
            raise ValueError(f"cv model {self.cv_model!r} is not valid; valid: {', '.join(CV_MODELS)}")
        info, params = agent_params(self.agent)  # a clear error for a bad spec
        own = info.cls.__module__.split(".")[0] != "zwick_ai" and any(p.name == "joker" for p in info.params)
        if info.name not in STRONG_AGENTS and not own:
            raise ValueError(
                f"the strong joker study plays {' or '.join(STRONG_AGENTS)} or an agent of your own with a "
                f"joker= parameter (the rule it must follow), not {info.name!r}"
            )
        if params.get("joker"):
            raise ValueError("give the unrestricted agent; the study adds each joker rule itself")
        if info.name == "expert" and params["time"] > 0:
            raise ValueError("give the expert an iteration budget with time=0 (expert:time=0,iters=N): "
                             "a time budget is not reproducible")  # fmt: skip
        return zwicker.rules(self.variant, **self.options)

    def kind(self) -> str:
        return agent_params(self.agent)[0].name

    def weights(self) -> dict[str, str]:
        """The shipped weight files the run uses, by name, with their SHA-256 (the net's move
        model; the control variate's model)."""
        r = self.rules()
        kinds = ("move", self.cv_model) if self.kind() == "net" else (self.cv_model,)
        out = {}
        for k in kinds:
            path = value_model.shipped_model_path(r.variant, r.players, k)
            if not path.is_file():
                how = "zwick train net" if k == value_model.AFTER else "zwick train value"
                raise ValueError(f"no shipped {k} model {path.name}; train one with `{how}`")
            out[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        if agent_params(self.agent)[0].cls.__module__.split(".")[0] != "zwick_ai":  # an agent of your own:
            ident = guarded_agent(self.agent, zwicker_game(r), None, LIMITS).identity()  # its source, its files
            out.update(ident.get("files", {}))
            if "source" in ident:
                out[ident["source"]["module"]] = ident["source"]["sha256"]
        return out

    def tag(self) -> str:
        """What the results depend on besides the deals, as a short hash (the weights' contents)."""
        return hashlib.sha256(json.dumps(self.weights(), sort_keys=True).encode()).hexdigest()[:10]

    def agent_key(self) -> str:
        """The agent as the run key names it: ``net`` as given; ``expert`` with every parameter
        resolved, so that two specs of the same search share a run and a change of one of its
        defaults starts a new run instead of continuing an old one."""
        info, params = agent_params(self.agent)
        if info.name != "expert":
            return self.agent
        return "expert:" + ",".join(f"{k}={params[k]}" for k in sorted(params))

    def run_key(self) -> str:
        """The key every JSONL line of this run carries (lines of other runs are left alone)."""
        opts = ",".join(f"{k}={option_text(v)}" for k, v in sorted(self.options.items()))
        cv = f"{self.cv_samples}" + ("" if self.cv_model == "value" else f",{self.cv_model}")
        return f"{self.variant}({opts})|{self.agent_key()}|seed={self.seed}|cv={cv}|{self.tag()}"

    def file_name(self) -> str:
        slug = re.sub(r"[^A-Za-z0-9=.]+", "_", self.agent).strip("_")
        return f"strong-{slug}-seed{self.seed}-{self.tag()}.jsonl"


# ------------------------------------------------------------------------------------------------
# One deal's jokers: where each lies and its swapped deal
# ------------------------------------------------------------------------------------------------
def deal_jokers(rules: Rules, order: np.ndarray, dealer: int, seed: int) -> list[dict[str, Any]]:
    """For each study joker dealt to a hand in this deal and swappable: its card, the holder's
    side, its stage and the swapped deck order (:func:`~zwick_ai.analysis.joker.deals.swap_joker` with this deal's
    seed)."""
    R = rules.array()
    seat, stage = zwicker_deals.deal_map(R, order, dealer)
    side = side_of_seats(rules)
    out = []
    for j in study_jokers(rules):
        swapped, mask, _ = swap_joker(rules, order[None, :], seat[None, :], stage[None, :], j, seed)
        if mask[0]:
            out.append(
                {
                    "card": j,
                    "name": joker_name(j),
                    "side": int(side[seat[j]]),
                    "stage": int(stage[j]),
                    "order": swapped[0],
                }
            )
    return out


def _cv_margins(
    scores: np.ndarray, corr: np.ndarray, from_stage: int | np.ndarray = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(margins[N, sides], corrected margins[N, sides]): the corrections of stages >= ``from_stage``
    (per deal or one for all) subtracted."""
    m = margins(scores)
    # centred over the sides like the margins (which sum to zero): linear, so still of mean zero,
    # and a game two seatings share gets the same correction in both
    corr = corr - corr.mean(axis=2, keepdims=True)
    stages = np.arange(corr.shape[1])
    keep = stages[None, :] >= np.broadcast_to(np.asarray(from_stage), (len(scores),))[:, None]
    return m, m - (corr * keep[:, :, None]).sum(axis=1)


def _plays(rules: Rules, jplays: np.ndarray, won_side: np.ndarray, seats: Sequence[int] | None = None) -> list[dict]:
    """The joker plays of one deal as JSON rows: the situation (``joker_play_info``) and who
    captured the joker in the end (the holder's side, an opponent, nobody)."""
    side = side_of_seats(rules)
    out = []
    for c in np.flatnonzero(jplays[:, joker_policies.J_PLAYED]):
        row = jplays[c]
        seat = int(row[joker_policies.J_SEAT])
        if seats is not None and seat not in seats:
            continue
        won = int(won_side[c])
        out.append(
            {
                "joker": joker_name(int(c)),
                "stage": int(row[joker_policies.J_STAGE]),
                "last_stage": int(row[joker_policies.J_LAST]),
                "kind": KIND_NAMES.get(int(row[joker_policies.J_KIND]), "other"),
                "taken": int(row[joker_policies.J_TAKEN]),
                "units": int(row[joker_policies.J_UNITS]),
                "hand": int(row[joker_policies.J_HAND]),
                "captured_by": "nobody" if won < 0 else ("holder" if won == side[seat] else "opponents"),
            }
        )
    return out


# ------------------------------------------------------------------------------------------------
# net: blocks of deals in compiled code
# ------------------------------------------------------------------------------------------------
def _shipped(rules: Rules, kind: str) -> Perceptron:
    """The arrays of the package's ``kind`` model for ``rules`` (the control variate's: ``cv_model``)."""
    return value_model.load_model(value_model.shipped_model_path(rules.variant, rules.players, kind)).arrays()


def net_block(cfg: StrongConfig, deals: Sequence[int], only: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The JSONL lines of deals ``deals`` (indices into the run's seeds) played by ``net``; with
    ``only``, supplement lines holding just those rules' margins (deals already finished before
    the rules were added, :func:`read_lines`)."""
    rules = cfg.rules()
    R = rules.array()
    seeds_all = hand_seeds(cfg.seed, max(deals) + 1)
    idx = np.asarray(deals, np.int64)
    seeds = seeds_all[idx]
    orders, dealers = zwicker_deals.deal_orders(R, seeds)
    play = joker_policies.play_seed_of(seeds)
    cv_seeds = (seeds * 2654435761 + 97) % (1 << 62)
    mm = _shipped(rules, "move")
    vm = _shipped(rules, cfg.cv_model)
    side = side_of_seats(rules)
    kinds = np.full(rules.players, POLICY_NET, np.int64)
    t0 = time.perf_counter()

    def run(ords: np.ndarray, dls: np.ndarray, pl: np.ndarray, cvs: np.ndarray, specs: list[str]):
        pol, ks = joker_policies.policy_arrays(specs, rules.players)
        seats = net_play.SeatPlay(kinds, pol, ks)
        return net_play.play_net_deals(R, ords, dls, pl, seats, mm, vm, cfg.cv_samples, cvs)

    if only is not None:
        extra: list[dict[str, Any]] = [
            {"deal": int(d), "seed": int(s), "policies": {}} for d, s in zip(idx, seeds, strict=True)
        ]
        rule_margins(extra, list(only), run, orders, dealers, play, cv_seeds, side, rules.num_sides)
        secs = (time.perf_counter() - t0) / len(idx)
        for line in extra:
            line["seconds"] = secs
        return extra
    ref = run(orders, dealers, play, cv_seeds, ["greedy"])
    ref_m, ref_cv = _cv_margins(ref.scores, ref.corrections)
    lines: list[dict[str, Any]] = [
        {
            "deal": int(d),
            "seed": int(s),
            "policies": {},
            "joker_value": {},
            "ref_margin": ref_m[i].tolist(),
            "ref_margin_cv": ref_cv[i].tolist(),
        }
        for i, (d, s) in enumerate(zip(idx, seeds, strict=True))
    ]
    for i in range(len(idx)):
        lines[i]["plays"] = _plays(rules, ref.jplays[i], ref.won_side[i])
    # its strength: the net side against greedy seats, duplicate
    vs = np.zeros(len(idx))
    for s in range(rules.num_sides):
        mixed = np.array([POLICY_NET if side[p] == s else POLICY_GREEDY for p in range(rules.players)], np.int64)
        pol, ks = joker_policies.policy_arrays(["greedy"], rules.players)
        out = net_play.play_net_deals(R, orders, dealers, play, net_play.SeatPlay(mixed, pol, ks), mm, vm, 0, cv_seeds)
        vs += margins(out.scores)[:, s] / rules.num_sides
    for i in range(len(idx)):
        lines[i]["vs_greedy"] = float(vs[i])
    rule_margins(lines, list(STRONG_POLICIES), run, orders, dealers, play, cv_seeds, side, rules.num_sides)
    for i in range(len(idx)):
        for jk in deal_jokers(rules, orders[i], int(dealers[i]), int(seeds[i])):
            lines[i]["joker_value"][jk["name"]] = jk
    # the swapped deals of every joker, one compiled call per joker
    for j in study_jokers(rules):
        name = joker_name(j)
        rows = [i for i in range(len(idx)) if name in lines[i]["joker_value"]]
        if not rows:
            continue
        sw_orders = np.array([lines[i]["joker_value"][name]["order"] for i in rows])
        r_idx = np.array(rows)
        sw = run(sw_orders, dealers[r_idx], play[r_idx], cv_seeds[r_idx], ["greedy"])
        from_stage = np.array([lines[i]["joker_value"][name]["stage"] + 1 for i in rows])
        o_m, o_cv = _cv_margins(ref.scores[r_idx], ref.corrections[r_idx], from_stage)
        s_m, s_cv = _cv_margins(sw.scores, sw.corrections, from_stage)
        for k, i in enumerate(rows):
            jk = lines[i]["joker_value"][name]
            h = jk["side"]
            lines[i]["joker_value"][name] = {
                "stage": jk["stage"],
                "points": int(ref.scores[i, h] - sw.scores[k, h]),
                "margin": float(o_m[k, h] - s_m[k, h]),
                "margin_cv": float(o_cv[k, h] - s_cv[k, h]),
            }
    secs = (time.perf_counter() - t0) / len(idx)
    for line in lines:
        line["seconds"] = secs
    return lines


def rule_margins(
    lines: list[dict[str, Any]],
    specs: list[str],
    run: Callable,
    orders: np.ndarray,
    dealers: np.ndarray,
    play: np.ndarray,
    cv_seeds: np.ndarray,
    side: np.ndarray,
    num_sides: int,
) -> None:
    """Each rule of ``specs`` on each side in turn against the unrestricted net: the side's
    margin averaged over the seatings, plain and corrected, into ``lines[i]["policies"]``."""
    for spec in specs:
        label = joker_policies.policy_label(*joker_policies.parse_policy(spec))
        plain = np.zeros(len(lines))
        cv = np.zeros(len(lines))
        for s in range(num_sides):
            seat_specs = [spec if side[p] == s else "greedy" for p in range(len(side))]
            out = run(orders, dealers, play, cv_seeds, seat_specs)
            m, mc = _cv_margins(out.scores, out.corrections)
            plain += m[:, s] / num_sides
            cv += mc[:, s] / num_sides
        for i in range(len(lines)):
            lines[i]["policies"][label] = {"plain": float(plain[i]), "cv": float(cv[i])}


# ------------------------------------------------------------------------------------------------
# expert: one deal at a time in OpenSpiel games
# ------------------------------------------------------------------------------------------------
def rule_param(spec: str) -> str:
    """The agent's ``joker=`` value of joker rule ``spec`` (``min_points:k=6`` -> ``min_points=6``,
    ``hold@high`` as it is)."""
    return joker_policies.rule_param(*joker_policies.parse_policy(spec))


def with_rule(agent: str, spec: str) -> str:
    """The agent spec restricted by joker rule ``spec`` (``min_points:k=6`` -> ``joker=min_points=6``)."""
    return agent + ("," if ":" in agent else ":") + f"joker={rule_param(spec)}"


@dataclass
class GameResult:
    """One OpenSpiel game of the expert run: points per side, the control variate's terms per
    stage, the joker plays, who won each card, and per watched rule and side whether the rule
    would have changed one of the side's choices."""

    scores: np.ndarray
    corr: np.ndarray
    jplays: np.ndarray
    won_side: np.ndarray
    binds: np.ndarray


@dataclass
class Game:
    """A game in progress: the state, its agents (one per seat) and what has been counted so far
    (the control variate's terms, the joker plays, the control variate's random stream)."""

    state: Any
    agents: list
    corr: np.ndarray
    jplays: np.ndarray
    stream: np.ndarray

    def fork(self) -> Game:
        """An independent copy that plays on exactly as this game would (agents forked)."""
        return Game(
            self.state.clone(),
            [a.fork() for a in self.agents],
            self.corr.copy(),
            self.jplays.copy(),
            self.stream.copy(),
        )


def start_game(
    game: Any,
    specs: Sequence[str],
    order: Sequence[int] | np.ndarray,
    dealer: int,
    agent_seeds: Sequence[int],
    cv_seed: int,
    limits: dict[str, float] | None = None,
    /,
    **where: Any,
) -> Game:
    """The deal of deck ``order`` dealt, with ``specs[seat]`` as fresh agents reset with
    ``agent_seeds``; with ``limits``, agents from outside the package are guarded with those
    clocks (:func:`zwick_ai.eval.agent_failures.guarded_agent`; ``where`` for their failure line)."""
    state = game.new_initial_state()
    for a in zwicker_bridge.deal_actions(game, list(order), int(dealer)):
        state.apply_action(a)
    agents = [
        guarded_agent(s, game, seat, limits, seed=int(x), **where) if limits else make_agent(s, game, seed=int(x))
        for seat, (s, x) in enumerate(zip(specs, agent_seeds, strict=True))
    ]
    for agent, x in zip(agents, agent_seeds, strict=True):
        agent.reset(int(x))
    corr = np.zeros((net_play.MAX_STAGES, game.rules.num_sides))
    return Game(
        state,
        agents,
        corr,
        np.zeros((cards.NUM_CARDS, joker_policies.J_FIELDS), np.int64),
        np.array([cv_seed], np.uint64),
    )


def play_on(
    g: Game,
    value: Perceptron,
    samples: int,
    watch: Sequence[tuple[int, int]] = (),
    forks: dict[tuple[int, int], Game] | None = None,
) -> GameResult:
    """Play ``g`` to the end, computing the chance-event corrections as the compiled playouts do
    (``value``: the arrays of a value model or an after model).

    ``watch``: (policy code, k) of joker rules; the result says per rule and side whether the
    rule would have changed one of the side's choices. ``forks``, when given, receives for each
    (rule index, side) that binds the game as it stood just before that side's first choice the
    rule forbids: the restricted side's game plays the same until then (the restriction only
    filters the search's choice), so it can continue from there."""
    state = g.state
    rules = state.rules
    R = rules.array()
    side = side_of_seats(rules)
    ns = rules.num_sides
    binds = np.zeros((len(watch), ns), bool)
    W = np.zeros(K_WS_SIZE, np.int64)
    f = np.zeros(value.mean.shape[0], np.float64)
    actual, expect = np.zeros(ns), np.zeros(ns)
    before_move: dict[str, Any] = {}  # the engine position and the row of the decision being played

    def decide(state: Any) -> list[int]:
        p = state.current_player()
        decision = state.decision()
        S = decision.position.copy()
        rows = decision.candidates
        open_rules = [w for w in range(len(watch)) if not binds[w, side[p]]]
        masks = {w: joker_policies.allowed_mask(R, S, rows, watch[w][0], watch[w][1], True) for w in open_rules}
        before = g.fork() if forks is not None and any(not m.all() for m in masks.values()) else None
        actions = [int(a) for a in g.agents[p].act(state)]
        ri = next(i for i, r in enumerate(rows) if zwicker_bridge.move_actions(state, r) == actions)
        row = rows[ri]
        for w in open_rules:
            if not masks[w][ri]:
                binds[w, side[p]] = True
                if forks is not None and before is not None:
                    forks[(w, int(side[p]))] = before
        if row[layout.M_KIND] != layout.KIND_ASK and arrays.is_joker(R, int(row[layout.M_CARD])):
            joker_policies.joker_play_info(R, S, row, g.jplays[int(row[layout.M_CARD])])
        before_move.update(S=S, row=row)
        return actions

    def correct(state: Any, seat: int, actions: list[int]) -> None:
        S, row = before_move["S"], before_move["row"]
        post = state.engine_state().arr
        if samples > 0 and arrays.stock_top(post) > arrays.stock_top(S) and not arrays.is_over(post):
            value_model.leaf_side_values(R, post, value, f, actual)
            net_play.expected_values(R, S, row, value, W, samples, g.stream, expect)
            g.corr[min(int(arrays.stage(post)), net_play.MAX_STAGES - 1)] += actual - expect

    play_to_end(state, decide, after_decision=correct)
    final = state.engine_state().arr
    scores = np.array(zwicker.score(state.engine_state()), np.int64)
    won = np.full(cards.NUM_CARDS, -1, np.int64)
    for c in range(cards.NUM_CARDS):
        won[c] = arrays.won_side(final, c)
    return GameResult(scores, g.corr, g.jplays, won, binds)


def restricted(fork: Game, side_seats: Sequence[int], rule: str) -> Game:
    """``fork`` with the agents at ``side_seats`` restricted by joker rule ``rule`` (a study rule
    spec such as ``min_points:k=6``) from now on."""
    for p in side_seats:
        agent = fork.agents[p]
        agent.params = {**agent.params, "joker": rule_param(rule)}
    return fork


def expert_deal(
    cfg: StrongConfig,
    deal: int,
    share_prefix: bool = True,
    only: Sequence[str] | None = None,
    limits: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The JSONL line of deal ``deal`` played by the expert (module docstring). With
    ``share_prefix`` a restricted game continues the unrestricted one from the restricted side's
    first choice the rule changes (the same games, played faster); without, it is played from
    the deal (the slow, obviously equal version the tests compare it with). With ``only``, a
    supplement line holding just those rules' margins (the joker values left out). ``limits``:
    an outside agent's clocks (it then plays under guard, :func:`start_game`)."""
    specs = list(STRONG_POLICIES if only is None else only)
    rules = cfg.rules()
    R = rules.array()
    game = zwicker_game(rules)
    seed = int(hand_seeds(cfg.seed, deal + 1)[deal])
    orders, dealers = zwicker_deals.deal_orders(R, np.array([seed], np.int64))
    order, dealer = orders[0], int(dealers[0])
    agent_seeds = default_agent_seeds(seed, rules.players)
    cv_seed = (seed * 2654435761 + 97) % (1 << 62)
    value = _shipped(rules, cfg.cv_model)
    side = side_of_seats(rules)
    rules_watched = [joker_policies.parse_policy(s) for s in specs]
    watch = [(joker_policies.POLICIES.index(n), k) for n, k in rules_watched]
    t0 = time.perf_counter()

    def play(
        specs: Sequence[str],
        deck: np.ndarray,
        w: Sequence[tuple[int, int]] = (),
        forks: dict[tuple[int, int], Game] | None = None,
    ) -> GameResult:
        fresh = start_game(game, specs, deck, dealer, agent_seeds, cv_seed, limits, game=game_label(game), deal=deal)
        return play_on(fresh, value, cfg.cv_samples, w, forks)

    forks: dict[tuple[int, int], Game] | None = {} if share_prefix else None
    ref = play([cfg.agent] * rules.players, order, watch, forks)
    ref_m, ref_cv = _cv_margins(ref.scores[None], ref.corr[None])
    line: dict[str, Any] = {"deal": deal, "seed": seed, "policies": {}}
    if only is None:
        line |= {"joker_value": {}, "ref_margin": ref_m[0].tolist(), "ref_margin_cv": ref_cv[0].tolist()}
        line["plays"] = _plays(rules, ref.jplays, ref.won_side)
    replayed = 0
    for w, spec in enumerate(specs):
        plain = cv = 0.0
        for s in range(rules.num_sides):
            if ref.binds[w, s]:
                seats = [p for p in range(rules.players) if side[p] == s]
                if forks is not None:
                    g = play_on(restricted(forks[(w, s)].fork(), seats, spec), value, cfg.cv_samples)
                else:
                    g = play(
                        [with_rule(cfg.agent, spec) if p in seats else cfg.agent for p in range(rules.players)], order
                    )
                m, mc = _cv_margins(g.scores[None], g.corr[None])
                replayed += 1
            else:  # the rule never changes a choice of this side: the same game
                m, mc = ref_m, ref_cv
            plain += m[0, s] / rules.num_sides
            cv += mc[0, s] / rules.num_sides
        line["policies"][joker_policies.policy_label(*rules_watched[w])] = {"plain": float(plain), "cv": float(cv)}
    for jk in deal_jokers(rules, order, dealer, seed) if only is None else []:
        g = play([cfg.agent] * rules.players, jk["order"])
        h, t = jk["side"], jk["stage"] + 1
        o_m, o_cv = _cv_margins(ref.scores[None], ref.corr[None], t)
        s_m, s_cv = _cv_margins(g.scores[None], g.corr[None], t)
        line["joker_value"][jk["name"]] = {
            "stage": jk["stage"],
            "points": int(ref.scores[h] - g.scores[h]),
            "margin": float(o_m[0, h] - s_m[0, h]),
            "margin_cv": float(o_cv[0, h] - s_cv[0, h]),
        }
    line["replayed_seatings"] = replayed
    line["seconds"] = time.perf_counter() - t0
    return line


# ------------------------------------------------------------------------------------------------
# Runs: resumable JSONL, tasks on a backend
# ------------------------------------------------------------------------------------------------
def read_lines(path: Path, run_key: str) -> dict[int, dict[str, Any]]:
    """The finished deals of run ``run_key`` in ``path`` (a half-written last line is skipped).
    A deal's first line is its line; a later ``supplement`` line of the same deal adds the
    margins of rules added to the study after the deal was played."""
    out: dict[int, dict[str, Any]] = {}
    if not path.is_file():
        return out
    for text in path.read_text().splitlines():
        try:
            line = json.loads(text)
        except json.JSONDecodeError:
            continue
        if not (isinstance(line, dict) and line.get("run") == run_key and isinstance(line.get("deal"), int)):
            continue
        first = out.get(line["deal"])
        if first is None and not line.get("supplement"):
            out[line["deal"]] = line
        elif first is not None and line.get("supplement"):
            for label, value in line.get("policies", {}).items():
                first["policies"].setdefault(label, value)
    return out


def missing_rules(line: dict[str, Any]) -> tuple[str, ...]:
    """The study rules (:data:`STRONG_POLICIES`) a finished deal has no margin of."""
    return tuple(
        s
        for s in STRONG_POLICIES
        if joker_policies.policy_label(*joker_policies.parse_policy(s)) not in line["policies"]
    )


class StrongTask(NamedTuple):
    """One task of a run (:func:`strong_task`): a block of deals (net) or one deal (expert)."""

    cfg: StrongConfig
    deals: list[int]
    only: tuple[str, ...] | None  # rules: the supplement lines of those rules only
    limits: dict[str, float] | None = None  # an agent from outside the package plays under guard with these clocks


def strong_task(task: StrongTask) -> list[dict[str, Any]]:
    """The lines of one task of a run (:class:`StrongTask`)."""
    cfg, only = task.cfg, task.only
    if cfg.kind() == "net":
        lines = net_block(cfg, task.deals, only)
    else:
        lines = [expert_deal(cfg, d, only=only, limits=task.limits) for d in task.deals]
    if only is not None:
        for line in lines:
            line["supplement"] = True
    return lines


def run_strong(
    cfg: StrongConfig,
    out: Path,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    progress: Progress | None = None,
) -> tuple[Path, dict[int, dict[str, Any]]]:
    """Play every deal of ``cfg`` not yet in its JSONL file under ``out`` (appending each finished
    task's lines at once); returns the file and the run's lines."""
    cfg.rules()
    out.mkdir(parents=True, exist_ok=True)
    path = out / cfg.file_name()
    unpack(path)
    key = cfg.run_key()
    done = read_lines(path, key)
    todo = [d for d in range(cfg.deals) if d not in done]
    size = NET_BLOCK if cfg.kind() == "net" else 1
    tasks = [StrongTask(cfg, todo[i : i + size], None) for i in range(0, len(todo), size)]
    # deals played before rules were added to the study: only the new rules, in deal order
    short: dict[tuple[str, ...], list[int]] = {}
    for d in sorted(x for x in done if x < cfg.deals):
        if missing := missing_rules(done[d]):
            short.setdefault(missing, []).append(d)
    for missing, ds in short.items():
        tasks = [StrongTask(cfg, ds[i : i + size], missing) for i in range(0, len(ds), size)] + tasks
    if progress:
        progress(len(done) - sum(map(len, short.values())))
    if tasks:
        # a torn last line (an interrupted write) is set aside first (zwick_ai.files)
        ship = ship_paths(outside_modules([cfg.agent]))
        with make_backend(backend, workers, address, ship) as runner, JsonlAppender(path) as fh:
            if outside_specs([cfg.agent]):  # someone else's agent: in workers, under guard, named if it fails
                game = zwicker_game(cfg.rules())
                guarded = [task._replace(limits=LIMITS) for task in tasks]
                results = guarded_map(strong_task, guarded, cfg.agent, out, runner, game=game_label(game))
            else:
                results = runner.map_unordered(strong_task, tasks, chunksize=1)
            for _, lines in results:
                for line in lines:
                    line["run"] = key
                    fh.write(line)
                    if line.get("supplement"):
                        done[line["deal"]]["policies"].update(line["policies"])
                    else:
                        done[line["deal"]] = line
                if progress:
                    progress(len(lines))
    return path, {d: done[d] for d in range(cfg.deals) if d in done}
