"""Speed of the OpenSpiel ``zwicker`` game against OpenSpiel's C++ ``hearts``, measured in one run.

Three figures, each as a ratio to ``hearts`` driven the same way from Python:

* transitions per second of uniform random play through the OpenSpiel API (chance outcomes
  sampled uniformly from ``chance_outcomes()``, decisions uniformly from ``legal_actions()``);
  target >= 0.3x hearts;
* ``state.clone()`` time on states met in such play;
* information-state tensor time: ``state.information_state_tensor(p)`` (OpenSpiel's path for a
  Python game builds a new observer each call), and a reused observer's ``set_from`` (what
  algorithms written against observers pay); target within 3x of the C++ game's.

The machine is shared, so the games are measured in alternating short rounds and the medians are
reported. Run::

    python benchmarks/bench_openspiel_zwicker.py            # about a minute
    python benchmarks/bench_openspiel_zwicker.py --rounds 9 --games 40

It prints a Markdown table. ``python_floor_bench`` is a Python game that does nothing (prebuilt
lists, no state): the ceiling of any Python OpenSpiel game under this driver, because every call
crosses from C++ into Python and back.

Recorded run (2-core shared machine, ``--rounds 7 --games 10``, medians)::

    | game | steps/game | transitions/s | vs hearts | clone µs | vs hearts | info tensor µs (API) | vs hearts | info tensor µs (observer) | vs hearts |
    |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
    | hearts | 114 | 363,741 | 1.00x | 2.2 | 1.0x | 94.5 | 1.0x | 94.5 | 1.0x |
    | python_floor_bench | 216 | 129,389 | 0.36x | 5.9 | 2.7x | nan | nanx | nan | nanx |
    | zwicker(variant=dithmarschen,players=4) | 213 | 63,678 | 0.18x | 13.4 | 6.1x | 56.8 | 0.6x | 2.5 | 0.0x |
    | zwicker(variant=grossenwiehe,players=4) | 252 | 28,037 | 0.08x | 13.3 | 6.1x | 64.3 | 0.7x | 2.7 | 0.0x |
    | zwicker(variant=christiansen,players=3) | 206 | 47,028 | 0.13x | 13.7 | 6.3x | 57.4 | 0.6x | 2.4 | 0.0x |
    | zwicker(variant=classic,players=4) | 195 | 68,401 | 0.19x | 13.1 | 6.0x | 51.5 | 0.5x | 2.3 | 0.0x |
    | zwicker(variant=grupp,players=4) | 219 | 70,746 | 0.19x | 12.7 | 5.9x | 55.1 | 0.6x | 2.5 | 0.0x |

The information-state tensor target (within 3x of a C++ game) is met: 0.5-0.7x of ``hearts``
through ``state.information_state_tensor`` and about 2.5 µs with a reused observer. Random play
reaches 0.08-0.19x of ``hearts`` (target 0.3x, not met), against 0.36x for a Python game that
does nothing: every call crosses C++ -> Python -> C++; on top come the engine's move generation
once per turn (on average about 50 µs in grossenwiehe, whose tables are long) and one numba
call per sub-action. The ratios move by about +-30% between runs on this shared machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pyspiel

import zwick_ai.games  # noqa: F401


class _FloorGame(pyspiel.Game):
    """A Python game that does nothing: 56 chance nodes (a prebuilt list of 30 outcomes), then 160
    decisions among 4 actions. Its speed is the floor of any Python OpenSpiel game driven this way
    (every call crosses from C++ into Python and back)."""

    TYPE = pyspiel.GameType(
        short_name="python_floor_bench",
        long_name="do-nothing Python game (benchmark floor)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification={},
    )

    def __init__(self, params=None):
        info = pyspiel.GameInfo(
            num_distinct_actions=4,
            max_chance_outcomes=30,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=216,
        )
        super().__init__(self.TYPE, info, params or {})

    def new_initial_state(self):
        return _FloorState(self)


class _FloorState(pyspiel.State):
    OUTCOMES = [(i, 1 / 30) for i in range(30)]
    LEGAL = [0, 1, 2, 3]

    def __init__(self, game):
        super().__init__(game)
        self.n = 0

    def current_player(self):
        return -4 if self.n >= 216 else (-1 if self.n < 56 else self.n % 2)

    def is_terminal(self):
        return self.n >= 216

    def _legal_actions(self, player):
        return self.LEGAL

    def chance_outcomes(self):
        return self.OUTCOMES

    def _apply_action(self, action):
        self.n += 1

    def returns(self):
        return [0.0, 0.0]

    def __str__(self):
        return str(self.n)


pyspiel.register_game(_FloorGame.TYPE, _FloorGame)

GAMES = [
    "hearts",
    "python_floor_bench",
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=christiansen,players=3)",
    "zwicker(variant=classic,players=4)",
    "zwicker(variant=grupp,players=4)",
]


def play(game: pyspiel.Game, n: int, rng: random.Random, keep: list | None = None) -> tuple[int, float]:
    """Play ``n`` games uniformly at random; return (transitions, seconds). ``keep`` collects
    every 7th decision state (for the clone and tensor timings)."""
    steps = 0
    t = time.perf_counter()
    for _ in range(n):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outs = s.chance_outcomes()
                a = outs[rng.randrange(len(outs))][0]
            else:
                la = s.legal_actions()
                a = la[rng.randrange(len(la))]
                if keep is not None and steps % 7 == 0:
                    keep.append(s.clone())
            s.apply_action(a)
            steps += 1
    return steps, time.perf_counter() - t


def per_call(fn, items: list, repeat: int = 3) -> float:
    """Median over ``repeat`` passes of the mean microseconds of ``fn(item)``."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            fn(x)
        out.append((time.perf_counter() - t) / len(items) * 1e6)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=20, help="zwicker games per round (hearts: 5x)")
    args = ap.parse_args()
    games = {spec: pyspiel.load_game(spec) for spec in GAMES}
    states: dict[str, list] = {spec: [] for spec in GAMES}
    for spec, g in games.items():  # warm up (numba caches, first calls) and collect states
        play(g, 3 if spec != "hearts" else 15, random.Random(1), states[spec])
    tps: dict[str, list[float]] = {spec: [] for spec in GAMES}
    steps_per_game: dict[str, float] = {}
    for r in range(args.rounds):
        for spec, g in games.items():
            n = args.games * (5 if spec == "hearts" else 1)
            steps, dt = play(g, n, random.Random(100 + r))
            tps[spec].append(steps / dt)
            steps_per_game[spec] = steps / n
    clone = {spec: per_call(lambda s: s.clone(), states[spec][:400]) for spec in GAMES}
    tensor = {"python_floor_bench": float("nan")}
    observer = {"python_floor_bench": float("nan")}
    for spec, g in games.items():
        if spec == "python_floor_bench":
            continue
        sts = states[spec][:400]
        tensor[spec] = per_call(lambda s: s.information_state_tensor(s.current_player()), sts)
        if spec == "hearts":
            observer[spec] = tensor[spec]  # C++ games fill their own tensor
        else:
            obs = g.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
            observer[spec] = per_call(lambda s, o=obs: o.set_from(s, s.current_player()), sts)
    h_tps = statistics.median(tps["hearts"])
    print(f"rounds {args.rounds}, {args.games} zwicker / {5 * args.games} hearts games per round; medians\n")
    print(
        "| game | steps/game | transitions/s | vs hearts | clone µs | vs hearts "
        "| info tensor µs (API) | vs hearts | info tensor µs (observer) | vs hearts |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for spec in GAMES:
        t = statistics.median(tps[spec])
        print(
            f"| {spec} | {steps_per_game[spec]:.0f} | {t:,.0f} | {t / h_tps:.2f}x "
            f"| {clone[spec]:.1f} | {clone[spec] / clone['hearts']:.1f}x "
            f"| {tensor[spec]:.1f} | {tensor[spec] / tensor['hearts']:.1f}x "
            f"| {observer[spec]:.1f} | {observer[spec] / observer['hearts']:.1f}x |"
        )
    sizes = ", ".join(f"{s}: {games[s].information_state_tensor_size()}" for s in GAMES if "floor" not in s)
    print(f"\ninformation-state tensor sizes: {sizes}")


if __name__ == "__main__":
    main()
