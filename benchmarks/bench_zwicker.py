"""Zwicker engine speed, measured as ratios within one run (numba kernels vs the reference).

    python benchmarks/bench_zwicker.py            # full run (about 2 minutes)
    python benchmarks/bench_zwicker.py --quick    # smaller samples

Prints Markdown tables:
1. random whole hands per second per variant: compiled playouts (``play_hands``, whole hands in
   numba) vs the reference implementation playing the same kind of hands in Python;
2. capture enumeration time vs table size (4..16 loose units) for the same positions: the
   engine's ``plain_capture_sets`` (all capturable sets of the table once, then each card reads
   its own) vs the reference's brute force per card, with the number of distinct (card, set)
   captures found (they must agree).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from numba import njit

from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker import policy_codes
from zwick_ai.zwicker import reference as Ref
from zwick_ai.zwicker.layout import (
    PHASE_OVER,
    S_NUNITS,
    S_PHASE,
    S_TO_MOVE,
    STATE_SIZE,
)
from zwick_ai.zwicker.rules import VARIANTS, rules
from zwick_ai.zwicker.snapshot import Snapshot, Unit


def compiled_hands_per_second(r, hands: int, policy: int) -> float:
    pol = np.full(r.players, policy, dtype=np.int64)
    K.play_hands(r.array(), np.arange(2, dtype=np.int64), pol)  # compile / load cache
    best = 0.0
    for rep in range(3):
        seeds = np.arange(rep * hands, (rep + 1) * hands, dtype=np.int64)
        t = time.perf_counter()
        K.play_hands(r.array(), seeds, pol)
        best = max(best, hands / (time.perf_counter() - t))
    return best


def reference_hands_per_second(r, hands: int) -> float:
    R = r.array()
    t = time.perf_counter()
    for h in range(hands):
        order, dealer = K.deal_order(R, h)
        st = Ref.deal(r, [int(c) for c in order], int(dealer))
        rng = random.Random(h)
        while True:
            moves = Ref.legal_moves(r, st)
            if not moves:
                break
            st = Ref.apply(r, st, rng.choice(moves))
    return hands / (time.perf_counter() - t)


def capture_positions(n_units: int, count: int, seed: int):
    """Random dithmarschen tables of ``n_units`` loose cards; the mover holds K and the 25-joker."""
    r = rules("dithmarschen")
    rng = random.Random(seed)
    hand = (50, 108)  # KS and X25
    pool = [c for c in r.deck if c not in hand]
    out = []
    for _ in range(count):
        table = rng.sample(pool, n_units)
        snap = Snapshot(
            hands=(hand, (), (), ()), table=tuple(Unit((c,), 0, -1, False) for c in table), stock=(),
            won=((), ()), zwicks=(0, 0), dealer=3, to_move=0, stage=0, last_capturer=-1, phase=0, az_left=0,
            asked=(-1, -1, -1),
        )  # fmt: skip
        out.append(snap)
    return r, out


@njit(cache=True)
def engine_captures(R, states, W, X, reps):
    """Captures of K♠ and X25 on each state, ``reps`` times, inside compiled code.
    Returns (number of (card, set) captures per pass, the grown buffer)."""
    need = K.value_bits(R, 50) | K.value_bits(R, 108)
    found = 0
    for _ in range(reps):
        found = 0
        for i in range(states.shape[0]):
            S = states[i]
            na = K.build_atoms(R, S, W)
            ns = K.plain_capture_sets(W, na, need, X)
            while ns < 0:  # grow the scratch buffer like gen_moves does
                X = np.empty(X.shape[0] * 2, np.int64)
                ns = K.plain_capture_sets(W, na, need, X)
            cap = X.shape[0] // 4
            for t in range(ns):
                for c in (50, 108):
                    if X[2 * cap + t] & K.value_bits(R, c):
                        found += 1
    return found, X


def time_captures(n_units: int, count: int) -> tuple[float, float, float]:
    from zwick_ai.zwicker.engine import from_snapshot

    r, snaps = capture_positions(n_units, count, seed=n_units)
    R = r.array()
    W = K.new_workspace()
    _, X = K.new_buffers()
    engine_states = [from_snapshot(r, s).arr for s in snaps]
    stacked = np.stack(engine_states)
    X = engine_captures(R, stacked, W, X, 1)[1]  # compile, and grow the buffer once
    reps = 20
    t = time.perf_counter()
    found_engine, X = engine_captures(R, stacked, W, X, reps)
    engine_s = (time.perf_counter() - t) / reps / count
    ref_states = [Ref.from_snapshot(r, s) for s in snaps]
    found_ref = 0
    t = time.perf_counter()
    for st in ref_states:
        for c in (50, 108):
            found_ref += len(Ref._capture_sets(r, st.table, c))
    ref_s = (time.perf_counter() - t) / count
    if found_ref != found_engine:
        raise SystemExit(f"capture counts differ at {n_units} units: engine {found_engine}, reference {found_ref}")
    return engine_s, ref_s, found_engine / count


@njit(cache=True)
def random_play_positions(R, seeds, out):
    """Every position met in random play of the hands ``seeds`` (rows of ``out``); returns the count."""
    buf, X = K.new_buffers()
    W = K.new_workspace()
    k = 0
    for h in range(seeds.shape[0]):
        S = K.new_hand(R, seeds[h], W)
        np.random.seed(seeds[h])
        while S[S_PHASE] != PHASE_OVER and k < out.shape[0]:
            out[k] = S
            k += 1
            buf, X, n = K.gen_moves(R, S, buf, W, X)
            K.apply_move(R, S, buf[np.random.randint(n)], W)
    return k


@njit(cache=True)
def time_per_position(R, states, reps, what):
    """Move generation (0), capture sets (1) or builds (2) on every state, ``reps`` times (the
    caller times it); returns a count so the work is not optimised away."""
    buf, X = K.new_buffers()
    W = K.new_workspace()
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            S = states[i]
            if what == 0:
                buf, X, n = K.gen_moves(R, S, buf, W, X)
                total += n
            elif what == 1:
                if S[S_NUNITS] > 0:
                    na = K.build_atoms(R, S, W)
                    total += K.plain_capture_sets(W, na, np.int64(0x7FFE), X)
            else:
                total += K.gen_builds(R, S, S[S_TO_MOVE], buf, 0, W)
    return total


def profile_table(hands: int) -> None:
    """Move generation in random Dithmarschen play, split by table size."""
    R = rules("dithmarschen").array()
    out = np.zeros((hands * 60, STATE_SIZE), np.int32)
    states = out[: random_play_positions(R, np.arange(hands, dtype=np.int64), out)]
    print(f"\n### Move generation per position in random Dithmarschen play ({len(states):,} positions)\n")
    print("| table units | positions | moves µs | capture sets (all values) µs | builds µs |")
    print("|---|---|---|---|---|")
    units = states[:, S_NUNITS]
    for what in range(3):
        time_per_position(R, states[:2], 1, what)  # compile
    rows = [("all", states)] + [(str(n), states[units == n]) for n in range(units.max() + 1)]
    for label, sel in rows:
        if len(sel) == 0:
            continue
        cells = []
        for what in range(3):
            t = time.perf_counter()
            time_per_position(R, sel, 3, what)
            cells.append((time.perf_counter() - t) / 3 / len(sel) * 1e6)
        print(f"| {label} | {len(sel):,} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--part", choices=("all", "hands", "captures", "profile"), default="all", help="what to measure"
    )
    args = parser.parse_args()
    hands = 500 if args.quick else 3000
    ref_hands = 5 if args.quick else 20

    if args.part in ("all", "hands"):
        hands_table(hands, ref_hands)
    if args.part in ("all", "captures"):
        captures_table(args.quick)
    if args.part in ("all", "profile"):
        profile_table(60 if args.quick else 300)


def hands_table(hands: int, ref_hands: int) -> None:
    print("### Random whole hands per second (one core)\n")
    print("| variant | players | compiled random | compiled greedy | reference random | ratio compiled/reference |")
    print("|---|---|---|---|---|---|")
    for v in VARIANTS:
        r = rules(v)
        fast = compiled_hands_per_second(r, hands, policy_codes.POLICY_RANDOM)
        greedy = compiled_hands_per_second(r, hands, policy_codes.POLICY_GREEDY)
        slow = reference_hands_per_second(r, ref_hands)
        print(f"| {v} | {r.players} | {fast:,.0f} | {greedy:,.0f} | {slow:,.1f} | {fast / slow:,.0f}× |")


def captures_table(quick: bool) -> None:
    print("\n### Capture enumeration vs table size (dithmarschen, hand K + X25, loose table cards)\n")
    print("| table units | capture sets per position | engine µs | reference µs | ratio |")
    print("|---|---|---|---|---|")
    for n in (4, 6, 8, 10, 12, 14, 16):
        count = 10 if n >= 14 else 30
        if quick:
            count = max(3, count // 5)
        e, rf, found = time_captures(n, count)
        print(f"| {n} | {found:,.1f} | {e * 1e6:,.1f} | {rf * 1e6:,.0f} | {rf / e:,.0f}× |")


if __name__ == "__main__":
    main()
