"""Compiled self-play of whole Zwicker hands with summary statistics.

>>> from zwick_ai import zwicker
>>> res = run_selfplay(zwicker.rules("dithmarschen"), hands=200, policies="random", seed=1)
>>> res.hands, len(res.side_points)
(200, 2)
>>> abs(sum(e.mean for e in res.side_points) - 30 - res.zwicks_per_hand.mean) < 1e-9
True

Game records of the same hands (:func:`hand_records`; hand i is hand i of ``run_selfplay``):

>>> rec = next(hand_records(zwicker.rules("dithmarschen"), 1, "greedy", seed=1))
>>> rec.seats, len(rec.moves) > 10, rec.game.startswith("zwicker(")
(['greedy', 'greedy', 'greedy', 'greedy'], True, True)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyspiel

from zwick_ai import cards, zwicker
from zwick_ai.eval.match import GameRecord
from zwick_ai.eval.records import zwicker_game
from zwick_ai.eval.report import markdown_table
from zwick_ai.games import zwicker_bridge
from zwick_ai.games.decisions import apply_decision
from zwick_ai.jit import kernel
from zwick_ai.stats import Estimate, mean_ci, proportion_ci
from zwick_ai.zwicker import arrays, kernels, layout, policy_codes
from zwick_ai.zwicker.engine import move_from_row
from zwick_ai.zwicker.rules import Rules

POLICIES = {"random": policy_codes.POLICY_RANDOM, "greedy": policy_codes.POLICY_GREEDY}


def parse_policies(spec: str | Sequence[str], players: int) -> list[str]:
    """``"random"`` for every seat, or one name per seat (``"greedy,random,greedy,random"``)."""
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    for n in names:
        if n not in POLICIES:
            raise ValueError(
                f"unknown compiled policy {n!r}; valid: {', '.join(POLICIES)} (self-play runs compiled policies only; "
                "other agents, your own included, play in zwick tournament and zwick play)"
            )
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ValueError(f"give one policy or one per seat ({players}), not {len(names)}")
    return names


def hand_seeds(seed: int, hands: int) -> np.ndarray:
    """The per-hand seeds of a run: hand i of seed s is the same in every run and batch size."""
    return np.random.default_rng(seed).integers(0, 2**32, size=hands, dtype=np.int64)


@dataclass
class JokerStats:
    joker: str
    dealt_to_hand: int  # hands in which it was dealt to a player (not to the table)
    kept: Estimate  # share of those in which the holder's side won it
    captured: Estimate  # share of all hands in which any side won it


@dataclass
class SelfplayResult:
    rules: Rules
    policies: list[str]
    seed: int
    hands: int
    side_points: list[Estimate]
    zwicks_per_hand: Estimate
    side_zwicks: list[Estimate]
    plies_per_hand: float
    seconds: float
    jokers: list[JokerStats] = field(default_factory=list)
    scores: np.ndarray | None = None  # (hands, sides)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict:
        return {
            "game": "zwicker",
            "variant": self.rules.variant,
            "players": self.rules.players,
            "options": dict(self.rules.options),
            "policies": self.policies,
            "seed": self.seed,
            "hands": self.hands,
            "side_points": [e.as_dict() for e in self.side_points],
            "zwicks_per_hand": self.zwicks_per_hand.as_dict(),
            "side_zwicks": [e.as_dict() for e in self.side_zwicks],
            "plies_per_hand": self.plies_per_hand,
            "seconds": self.seconds,
            "hands_per_second": self.hands_per_second,
            "jokers": [
                {
                    "joker": j.joker,
                    "dealt_to_hand": j.dealt_to_hand,
                    "kept": j.kept.as_dict(),
                    "captured": j.captured.as_dict(),
                }
                for j in self.jokers
            ],  # fmt: skip
        }

    def markdown(self) -> str:
        r = self.rules
        lines = [
            f"## Self-play: {r.describe()}",
            "",
            f"{self.hands} hands, policies {','.join(self.policies)}, seed {self.seed}: "
            f"{self.hands_per_second:,.0f} hands/s, {self.plies_per_hand:.1f} plies per hand.",
            "",
            *markdown_table(
                ["side", "seats", "mean points", "95% CI", "Zwicks per hand"],
                (
                    [
                        s,
                        "+".join(map(str, r.sides[s])),
                        f"{pts.mean:.3f}",
                        f"[{pts.ci95[0]:.3f}, {pts.ci95[1]:.3f}]",
                        f"{zw.mean:.3f}",
                    ]
                    for s, (pts, zw) in enumerate(zip(self.side_points, self.side_zwicks, strict=True))
                ),
            ),
            "",
        ]
        lines.append(f"Zwicks per hand (all sides): {self.zwicks_per_hand}")
        if self.jokers:
            rows = [
                [
                    j.joker,
                    j.dealt_to_hand,
                    f"{j.kept.mean:.3f} [{j.kept.ci95[0]:.3f}, {j.kept.ci95[1]:.3f}]",
                    f"{j.captured.mean:.3f}",
                ]
                for j in self.jokers
            ]
            head = ["joker", "dealt to a hand", "won by the holder's side", "won by anyone"]
            lines += ["", *markdown_table(head, rows)]
        return "\n".join(lines)


def write_folder(out: Path, result: SelfplayResult, text: str, command: str) -> None:
    """``summary.json``, ``report.md`` (``text`` and the ``command`` that made it) and
    ``scores.csv`` (each hand's points per side) of a self-play run in ``out``."""
    (out / "summary.json").write_text(json.dumps(result.as_dict(), indent=2))
    (out / "report.md").write_text(text + f"\n\nCommand: `{command}`\n")
    assert result.scores is not None  # run_selfplay keeps them
    with open(out / "scores.csv", "w") as f:
        f.write("hand," + ",".join(f"side{s}" for s in range(result.rules.num_sides)) + "\n")
        for i, row in enumerate(result.scores):
            f.write(f"{i}," + ",".join(str(int(x)) for x in row) + "\n")


def run_selfplay(
    rules: Rules,
    hands: int,
    policies: str | Sequence[str] = "random",
    seed: int = 0,
    batch: int = 1000,
    progress: Callable[[int], object] | None = None,  # e.g. a tqdm bar's update (its result is ignored)
) -> SelfplayResult:
    """Play ``hands`` hands in compiled code (batches of ``batch``), then summarise them."""
    if hands < 1:
        raise ValueError("hands must be at least 1")
    names = parse_policies(policies, rules.players)
    pol = np.array([POLICIES[n] for n in names], dtype=np.int64)
    R = rules.array()
    seeds = hand_seeds(seed, hands)
    kernels.play_hands(R, seeds[:1], pol)  # compile (or load the cache) before the clock starts
    parts = []
    start = time.perf_counter()
    for lo in range(0, hands, batch):
        part = kernels.play_hands(R, seeds[lo : lo + batch], pol)
        parts.append(part)
        if progress:
            progress(len(part.plies))
    seconds = time.perf_counter() - start
    scores = np.concatenate([p.scores for p in parts])
    zw = np.concatenate([p.zwicks for p in parts])
    won_side = np.concatenate([p.won_side for p in parts])
    dealt = np.concatenate([p.dealt_to for p in parts])
    plies = np.concatenate([p.plies for p in parts])
    side_of = np.array([rules.side_of(p) for p in range(rules.players)])
    jokers = []
    for c in rules.deck:
        if not (cards.is_valued_joker(c) or cards.is_wild_joker(c)):
            continue
        in_hand = dealt[:, c] >= 0
        holder_side = np.where(in_hand, side_of[np.maximum(dealt[:, c], 0)], -2)
        kept = int(np.sum(in_hand & (won_side[:, c] == holder_side)))
        jokers.append(
            JokerStats(
                cards.format_card(c) if cards.is_valued_joker(c) else f"XW#{c - cards.WILD_JOKER_BASE + 1}",
                int(in_hand.sum()),
                proportion_ci(kept, int(in_hand.sum())),
                proportion_ci(int(np.sum(won_side[:, c] >= 0)), hands),
            )
        )
    return SelfplayResult(
        rules=rules,
        policies=names,
        seed=seed,
        hands=hands,
        side_points=[mean_ci(scores[:, s]) for s in range(rules.num_sides)],
        zwicks_per_hand=mean_ci(zw.sum(axis=1)),
        side_zwicks=[mean_ci(zw[:, s]) for s in range(rules.num_sides)],
        plies_per_hand=float(plies.mean()),
        seconds=seconds,
        jokers=jokers,
        scores=scores,
    )


# ------------------------------------------------------------------------------------------------
# Game records of compiled self-play
# ------------------------------------------------------------------------------------------------
@kernel
def play_hand_log(R, seed, policies):
    """The move rows of one hand exactly as :func:`kernels.play_hands` plays hand ``seed`` (the same
    deal, the same reseeding and random calls, the same policy choices), in play order. Only
    records need it, so ``play_hands`` itself stays free of logging."""
    W = kernels.new_workspace()
    S = kernels.new_hand(R, seed, W)
    np.random.seed((seed * 69069 + 12345) % 4294967296)
    buf, X = kernels.new_buffers()
    log = np.empty((64, layout.MOVE_WIDTH), np.int64)
    plies = 0
    while not arrays.is_over(S):
        buf, X, n = kernels.gen_moves(R, S, buf, W, X)
        if n == 0:
            raise ValueError("no legal move in a running hand")
        k = kernels.choose(R, S, buf, n, policies[arrays.to_move(S)])
        if plies == log.shape[0]:
            grown = np.empty((2 * plies, layout.MOVE_WIDTH), np.int64)
            grown[:plies] = log
            log = grown
        log[plies] = buf[k]
        kernels.apply_move(R, S, buf[k], W)
        plies += 1
    return log[:plies].copy()


def hand_record(game: pyspiel.Game, seed: int, policies: Sequence[str]) -> GameRecord:
    """The game record of the compiled self-play hand ``seed``: the kernels' own moves, replayed
    on the OpenSpiel ``game`` (of the same rules) as whole decisions with their readable labels."""
    names = parse_policies(list(policies), game.rules.players)
    R = game.rules.array()
    rows = play_hand_log(R, np.int64(seed), np.array([POLICIES[n] for n in names], np.int64))
    es = zwicker.deal(game.rules, int(seed))
    chance = zwicker_bridge.seed_actions(game, int(seed))
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    rec = GameRecord(int(seed), names, game=str(game), chance=chance)
    for row in rows:
        seat = zwicker.to_move(es)
        here = state.engine_state()
        mine = arrays.translate_row(row, es.arr, here.arr)
        actions = zwicker_bridge.move_actions(state, mine)
        label = str(move_from_row(here, mine))  # named as the game names it (its table order)
        apply_decision(state, actions)
        zwicker.apply_row(es, row)
        rec.moves.append([seat, label, actions])
    rec.returns = [float(x) for x in state.returns()]
    rec.points = [int(x) for x in zwicker.score(state.engine_state())]
    if not state.is_terminal() or rec.points != list(zwicker.score(es)):
        raise AssertionError(f"hand {seed}: the OpenSpiel replay of the compiled hand diverged")
    return rec


def hand_records(
    rules: Rules,
    hands: int,
    policies: str | Sequence[str] = "random",
    seed: int = 0,
    skip: Callable[[str, int, list[str]], bool] | None = None,
) -> Iterator[GameRecord]:
    """Records of the first ``hands`` hands of ``run_selfplay(rules, hands, policies, seed)``;
    ``skip(game, deal_seed, seats)`` leaves out hands without playing them (those recorded already)."""
    names = parse_policies(policies, rules.players)
    game = zwicker_game(rules)
    for s in hand_seeds(seed, hands):
        if skip is None or not skip(str(game), int(s), names):
            yield hand_record(game, int(s), names)
