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

It prints a Markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pyspiel

import zwick_ai.games  # noqa: F401

GAMES = [
    "hearts",
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
    tensor = {}
    observer = {}
    for spec, g in games.items():
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
    sizes = ", ".join(f"{s}: {games[s].information_state_tensor_size()}" for s in GAMES)
    print(f"\ninformation-state tensor sizes: {sizes}")


if __name__ == "__main__":
    main()
