"""Numba kernels of the Zwicker engine: deal, legal whole moves, apply, score, whole playouts.

Every function works on the flat int32 arrays of :mod:`zwick_ai.zwicker.layout`: ``R`` (rules)
and ``S`` (state). Moves are int64 rows (``M_*`` columns). Nothing here touches Python objects,
so playouts and searches stay inside compiled code. The rules these kernels implement are
docs/rules.md Part A as read by ``RULE_CHOICES.md``; ``reference.py`` is the slow oracle they are
tested against.

Capture enumeration: for a played card and each of its values, first every *group* (a set of
table units whose values, one choice per unit, add up to the value) is found by a depth-first
search over units in table order; then every union of pairwise disjoint groups is enumerated and
the unions are deduplicated. That is exact: a set S is capturable iff it is such a union.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from zwick_ai.jit import kernel
from zwick_ai.zwicker import layout
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY

JC_ANY = 0
JC_JOKER_ONLY = 1
JC_LONE = 2
JC_NEVER = 3

AZ_NEXT = 0
AZ_ZWICKER = 1
AZ_ALL = 2

# Kernels that allocate nothing skip numba's reference counting (``@kernel(nrt=False)``): a call
# with array arguments then costs about 1 ns instead of about 45 ns, which dominates move generation.

MAX_OPTS = 13  # a wild joker takes any value 2..14
ONE = np.int64(1)

# Scratch workspace ``W`` (int64), allocated once per search/playout so that move generation
# allocates nothing. Regions:
W_AOPT = 0  # atom value options, MAX_UNITS x MAX_OPTS
W_ANOPT = W_AOPT + layout.MAX_UNITS * MAX_OPTS
W_ASUMOK = W_ANOPT + layout.MAX_UNITS
W_AWILD = W_ASUMOK + layout.MAX_UNITS
W_CATOMS = W_AWILD + layout.MAX_UNITS  # per unit: mask of its card atoms (dietze_loose_builds)
W_WHOLE = W_CATOMS + layout.MAX_UNITS  # per unit: bit of its whole-unit atom
W_SU = W_WHOLE + layout.MAX_UNITS  # group search stacks (depth <= atoms + 1)
W_SO = W_SU + layout.MAX_UNITS + 1
W_BASE = W_SO + layout.MAX_UNITS + 1
W_BMASK = W_BASE + layout.MAX_UNITS + 1
W_STG = W_BMASK + layout.MAX_UNITS + 1  # union search stacks
W_STU = W_STG + layout.MAX_UNITS + 2
W_VALS = W_STU + layout.MAX_UNITS + 2
W_OV = W_VALS + MAX_OPTS
W_ASKOK = W_OV + MAX_OPTS
TABLE_ATOMS = 12  # up to this many atoms, group sums come from a subset table instead of a search
DFS_UNION_ATOMS = 8  # captures_for_card: up to this many atoms, unions by a plain search
W_OWNED = W_ASKOK + 64  # per seat: bitmask of the values of the builds it owns
W_OWNED2 = W_OWNED + layout.MAX_PLAYERS  # per seat: the values it owns two or more builds of
W_UBITS = W_OWNED2 + layout.MAX_PLAYERS  # per table unit: bitmask of the values it counts as
W_HBITS = W_UBITS + layout.MAX_UNITS  # per card of the mover's hand: bitmask of its values
W_KEEPOK = W_HBITS + layout.MAX_HAND  # per card of the mover's hand: duty holds after playing it
W_PDUTY = W_KEEPOK + layout.MAX_HAND  # per seat: its duty holds now (1), not (0), unknown (-1)
W_SUMS = W_PDUTY + layout.MAX_PLAYERS  # per atom subset: bitmask of the totals it can make
W_UNI = W_SUMS + (1 << TABLE_ATOMS)  # per atom subset: values v for which it splits into v-groups
WS_SIZE = W_UNI + (1 << TABLE_ATOMS)

OVERFLOW_X = -1  # the growable buffer X was too small: grow it and generate again
OVERFLOW_MOVES = -2


@kernel
def new_workspace():
    return np.zeros(WS_SIZE, np.int64)


@kernel
def new_buffers():
    """(moves buffer, growable scratch X) for :func:`gen_moves_ws`."""
    return np.empty((64, layout.MOVE_WIDTH), np.int64), np.empty(4 * 256, np.int64)


# ------------------------------------------------------------------------------------------------
# Bit tricks: single machine instructions (LLVM's cttz and ctpop)
# ------------------------------------------------------------------------------------------------
def _lowest_bit(typingctx, x):
    """Index of the lowest set bit of a nonzero int64 (count trailing zeros)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


def _popcount(typingctx, x):
    """Number of set bits of an int64."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


# numba's intrinsics, called in compiled code as lowest_bit(x) and popcount(x)
lowest_bit: Any = intrinsic(_lowest_bit)
popcount: Any = intrinsic(_popcount)


# ------------------------------------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def hand_card(S, p, i):
    return S[layout.S_HANDS + p * layout.MAX_HAND + i]


@kernel(nrt=False)
def hand_insert(S, p, c):
    n = S[layout.S_HAND_N + p]
    base = layout.S_HANDS + p * layout.MAX_HAND
    i = n
    while i > 0 and S[base + i - 1] > c:
        S[base + i] = S[base + i - 1]
        i -= 1
    S[base + i] = c
    S[layout.S_HAND_N + p] = n + 1
    S[layout.S_LOC + c] = layout.LOC_HAND + p


@kernel(nrt=False)
def hand_remove(S, p, c):
    n = S[layout.S_HAND_N + p]
    base = layout.S_HANDS + p * layout.MAX_HAND
    j = 0
    for i in range(n):
        x = S[base + i]
        if x != c:
            S[base + j] = x
            j += 1
    S[layout.S_HAND_N + p] = j


@kernel(nrt=False)
def add_unit(S, c, value, owner, build):
    n = S[layout.S_NUNITS]
    S[layout.S_UNITS + n] = c
    S[layout.S_NUNITS] = n + 1
    S[layout.S_LOC + c] = layout.LOC_TABLE
    S[layout.S_ANCHOR + c] = c
    S[layout.S_NEXT + c] = -1
    S[layout.S_UVALUE + c] = value
    S[layout.S_UOWNER + c] = owner
    S[layout.S_UBUILD + c] = build


@kernel(nrt=False)
def unit_has_wild(R, S, a):
    c = a
    while c != -1:
        if R[layout.R_IS_WILD + c]:
            return True
        c = S[layout.S_NEXT + c]
    return False


@kernel(nrt=False)
def is_playable_copy(R, S, p, i):
    """Only the first of identical copies in a hand is played (RULE_CHOICES: identical copies)."""
    c = hand_card(S, p, i)
    canon = R[layout.R_CANON + c]
    for j in range(i):
        if R[layout.R_CANON + hand_card(S, p, j)] == canon:
            return False
    return True


@kernel(nrt=False)
def card_values(R, c, out):
    """Write the values a played card may take into ``out``; return how many (ascending)."""
    if R[layout.R_IS_WILD + c]:
        for k in range(MAX_OPTS):
            out[k] = 2 + k
        return MAX_OPTS
    out[0] = R[layout.R_VAL1 + c]
    if R[layout.R_VAL2 + c] > 0:
        out[1] = R[layout.R_VAL2 + c]
        return 2
    return 1


@kernel(nrt=False)
def unit_values(R, S, a, out):
    """Values a table unit counts as (build: its value; loose: the card's values)."""
    if S[layout.S_UBUILD + a]:
        out[0] = S[layout.S_UVALUE + a]
        return 1
    return card_values(R, a, out)


# ------------------------------------------------------------------------------------------------
# Owner's duty: the distinct values of one's builds matched to distinct hand cards
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def cards_meet_values(R, cards, start, n, values, removed_card):
    """True when the distinct values in the bitmask ``values`` can each be matched to a different
    card of ``cards[start : start + n]`` other than ``removed_card`` (Hall's condition: every
    subset of the values is met by at least as many cards; the sets are tiny)."""
    if values == 0:
        return True
    sub = values
    while sub:
        have = 0
        for i in range(start, start + n):
            c = cards[i]
            if c != removed_card and value_bits(R, c) & sub:
                have += 1
        if have < popcount(sub):
            return False
        sub = (sub - 1) & values
    return True


@kernel(nrt=False)
def duty_holds(R, S, p, values, removed_card):
    """True when the distinct build values in the bitmask ``values`` can each be matched to a
    different card of seat ``p``'s hand without ``removed_card``."""
    return cards_meet_values(R, S, layout.S_HANDS + p * layout.MAX_HAND, S[layout.S_HAND_N + p], values, removed_card)


@kernel(nrt=False)
def owned_build_values(S, p, excl_mask):
    """Bit mask of the values of seat ``p``'s builds at the table indices not in ``excl_mask``."""
    values = np.int64(0)
    for i in range(S[layout.S_NUNITS]):
        if (excl_mask >> i) & ONE:
            continue
        a = S[layout.S_UNITS + i]
        if S[layout.S_UBUILD + a] and S[layout.S_UOWNER + a] == p:
            values |= ONE << S[layout.S_UVALUE + a]
    return values


@kernel(nrt=False)
def duty_ok(R, S, p, excl_mask, add_value, removed_card, W):
    """True when seat ``p``'s builds (those at table indices not in ``excl_mask``, plus a new one of
    value ``add_value`` if > 0) can be matched to distinct cards of his hand without
    ``removed_card`` (the owner's duty, docs/rules.md A.6). ``W`` is not used."""
    values = (ONE << add_value) if add_value > 0 else np.int64(0)
    values |= owned_build_values(S, p, excl_mask)
    return duty_holds(R, S, p, values, removed_card)


@kernel(nrt=False)
def has_duty_trail(R, S, p, W):
    for i in range(S[layout.S_HAND_N + p]):
        if duty_ok(R, S, p, 0, 0, hand_card(S, p, i), W):
            return True
    return False


@kernel(nrt=False)
def magger_answer(R, S, q, n, W):
    return duty_ok(R, S, q, 0, n, -1, W)


# ------------------------------------------------------------------------------------------------
# Capture enumeration
# ------------------------------------------------------------------------------------------------
@kernel
def sort_unique(a, n):
    """Sort a[:n] in place and drop repeats; return the new length."""
    if n <= 1:
        return n
    a[:n].sort()
    k = 1
    for i in range(1, n):
        if a[i] != a[k - 1]:
            a[k] = a[i]
            k += 1
    return k


@kernel(nrt=False)
def enum_groups(W, natoms, avail, v, groups, ng):
    """Append to ``groups`` every atom mask whose values (one option per atom) add up to ``v``.
    A group of two or more atoms may only contain sum-allowed atoms. Returns the new count, or
    OVERFLOW_X when ``groups`` is full."""
    cap = groups.shape[0]
    d = 0
    W[W_SU] = 0
    W[W_SO] = 0
    W[W_BASE] = 0
    W[W_BMASK] = 0
    while d >= 0:
        j = W[W_SU + d]
        if j >= natoms:
            d -= 1
            continue
        sumok = W[W_ASUMOK + j] != 0
        if not ((avail >> j) & ONE) or W[W_SO + d] >= W[W_ANOPT + j] or (d > 0 and not sumok):
            W[W_SU + d] = j + 1
            W[W_SO + d] = 0
            continue
        k = W[W_SO + d]
        W[W_SO + d] = k + 1
        s = W[W_BASE + d] + W[W_AOPT + j * MAX_OPTS + k]
        if s > v:  # options ascend: this atom's other options are larger still
            W[W_SU + d] = j + 1
            W[W_SO + d] = 0
            continue
        m = W[W_BMASK + d] | (ONE << j)
        if s == v:
            if ng >= cap:
                return OVERFLOW_X
            groups[ng] = m
            ng += 1
        elif sumok:
            d += 1
            W[W_SU + d] = j + 1
            W[W_SO + d] = 0
            W[W_BASE + d] = s
            W[W_BMASK + d] = m
    return ng


@kernel(nrt=False)
def enum_unions(W, groups, ng, out):
    """Write every union of pairwise disjoint groups to ``out``; return the count or OVERFLOW_X."""
    cap = out.shape[0]
    nout = 0
    if ng == 0:
        return 0
    top = 0
    W[W_STG] = 0
    W[W_STU] = 0
    while top >= 0:
        g = W[W_STG + top]
        if g >= ng:
            top -= 1
            continue
        W[W_STG + top] = g + 1
        m = groups[g]
        used = W[W_STU + top]
        if (m & used) == 0:
            u = used | m
            if nout >= cap:
                return OVERFLOW_X
            out[nout] = u
            nout += 1
            top += 1
            W[W_STG + top] = g + 1
            W[W_STU + top] = u
    return nout


@kernel
def bucket_by_lowest(groups, ng, natoms):
    """Counting sort of groups by their lowest atom: (start, perm) such that the groups whose
    lowest atom is i are groups[perm[start[i]:start[i + 1]]]."""
    start = np.zeros(natoms + 2, np.int64)
    low = np.empty(ng, np.int64)
    for g in range(ng):
        lo = lowest_bit(groups[g])
        low[g] = lo
        start[lo + 1] += 1
    for t in range(natoms + 1):
        start[t + 1] += start[t]
    perm = np.empty(ng, np.int64)
    fill = start.copy()
    for g in range(ng):
        perm[fill[low[g]]] = g
        fill[low[g]] += 1
    return start, perm


@kernel
def enum_unions_by_lowest(groups, ng, natoms, out):
    """Every union of pairwise disjoint groups, for larger tables. Atoms are decided in order: the
    lowest undecided atom is either left out or covered by a group whose lowest atom it is, so each
    partition is visited once and only groups that can still fit are tried. Returns the count
    (unsorted, with repeats when a set has several partitions) or OVERFLOW_X."""
    start, perm = bucket_by_lowest(groups, ng, natoms)
    order = np.empty(ng, np.int64)
    for b in range(ng):
        order[b] = groups[perm[b]]
    fi = np.empty(natoms + 2, np.int64)
    fu = np.empty(natoms + 2, np.int64)
    fb = np.empty(natoms + 2, np.int64)
    cap = out.shape[0]
    nout = 0
    top = 0
    fi[0] = 0
    fu[0] = 0
    fb[0] = -1
    while top >= 0:
        i = fi[top]
        used = fu[top]
        if fb[top] == -1:
            while i < natoms and (used >> i) & ONE:
                i += 1
            if i >= natoms:
                top -= 1
                continue
            fi[top] = i
            fb[top] = start[i]
        b = fb[top]
        if b < start[i + 1]:
            fb[top] = b + 1
            g = order[b]
            if (g & used) == 0:
                u = used | g
                if nout >= cap:
                    return OVERFLOW_X
                out[nout] = u
                nout += 1
                top += 1
                fi[top] = i + 1
                fu[top] = u
                fb[top] = -1
        else:  # every group for atom i tried: now leave atom i out
            fi[top] = i + 1
            fb[top] = -1
    return nout


@kernel(nrt=False)
def set_atom(R, W, na, c_or_build_values, count):
    for t in range(count):
        W[W_AOPT + na * MAX_OPTS + t] = c_or_build_values[t]
    W[W_ANOPT + na] = count


@kernel(nrt=False)
def build_atoms(R, S, W):
    """Fill the capture atoms in ``W``: one per table unit, plus (``dietze_loose_builds``) one per
    card of every build. Returns the number of atoms."""
    n = S[layout.S_NUNITS]
    tmp = W[W_OV : W_OV + MAX_OPTS]
    na = 0
    for i in range(n):
        a = S[layout.S_UNITS + i]
        set_atom(R, W, na, tmp, unit_values(R, S, a, tmp))
        # A loose valued joker joins sums only with joker_sum_capture.
        W[W_ASUMOK + na] = (
            0 if (not S[layout.S_UBUILD + a] and R[layout.R_IS_VJOKER + a] and not R[layout.R_JOKER_SUM]) else 1
        )
        W[W_AWILD + na] = 1 if unit_has_wild(R, S, a) else 0
        W[W_WHOLE + i] = ONE << na
        W[W_CATOMS + i] = 0
        na += 1
    if R[layout.R_DIETZE_LOOSE]:
        for i in range(n):
            a = S[layout.S_UNITS + i]
            if not S[layout.S_UBUILD + a]:
                continue
            c = a
            while c != -1:
                if na >= layout.MAX_UNITS:
                    raise ValueError("too many table cards for 64-bit capture sets")
                set_atom(R, W, na, tmp, card_values(R, c, tmp))
                W[W_ASUMOK + na] = 1  # a joker inside a build is not lying loose: sums allowed
                W[W_AWILD + na] = W[W_AWILD + i]
                W[W_CATOMS + i] |= ONE << na
                na += 1
                c = S[layout.S_NEXT + c]
    if na <= TABLE_ATOMS:
        fill_sum_table(W, na)
    return na


@kernel(nrt=False)
def fill_sum_table(W, na):
    """W_SUMS[mask] = bitmask of the totals the atoms in ``mask`` can make (one option each);
    0 for a subset of two or more atoms that holds an atom barred from sums."""
    barred = np.int64(0)
    for j in range(na):
        if not W[W_ASUMOK + j]:
            barred |= ONE << j
    W[W_SUMS] = 1  # the empty subset makes 0
    for j in range(na):  # the subsets whose highest atom is j, from those below it
        bit = ONE << j
        nopt = W[W_ANOPT + j]
        first = W[W_AOPT + j * MAX_OPTS]
        own = np.int64(0)
        for k in range(nopt):
            own |= ONE << W[W_AOPT + j * MAX_OPTS + k]
        W[W_SUMS + bit] = own
        if (barred >> j) & ONE:
            for prev in range(1, bit):
                W[W_SUMS + (bit | prev)] = 0
            continue
        for prev in range(1, bit):
            base = W[W_SUMS + prev]
            total = np.int64(0)
            if base != 0 and (prev & barred) == 0:
                if nopt == 1:
                    total = base << first
                else:
                    for k in range(nopt):
                        total |= base << W[W_AOPT + j * MAX_OPTS + k]
            W[W_SUMS + (bit | prev)] = total


@kernel(nrt=False)
def fill_union_table(W, na, need, found):
    """W_UNI[M] = bitmask of the values v in ``need`` for which the atoms M split into groups each
    adding up to v (from W_SUMS); 0 for every other M. The group holding M's lowest atom decides,
    so the unions whose lowest atom is L are the groups with lowest atom L joined to a union (or
    nothing) of higher atoms only, all complete by then: L runs from the highest atom down and
    only sets that exist are visited. ``found`` (at least 2^na long) lists them in that order."""
    for m in range(1 << na):
        W[W_UNI + m] = 0
    W[W_UNI] = need  # the empty set joins any group
    found[0] = 0
    nfound = 1
    for lo in range(na - 1, -1, -1):
        done = nfound  # unions of higher atoms only (and the empty set)
        low = ONE << lo
        for k in range(ONE << (na - lo - 1)):
            g = low | (k << (lo + 1))
            values = W[W_SUMS + g] & need
            if values == 0:
                continue
            for r in range(done):
                m = found[r]
                if g & m:
                    continue
                b = values & W[W_UNI + m]
                if b == 0:
                    continue
                M = g | m
                if W[W_UNI + M] == 0:
                    found[nfound] = M
                    nfound += 1
                W[W_UNI + M] |= b
    W[W_UNI] = 0


@kernel(nrt=False)
def value_bits(R, c):
    if R[layout.R_IS_WILD + c]:
        return np.int64(0x7FFC)  # 2..14
    return (ONE << R[layout.R_VAL1 + c]) | ((ONE << R[layout.R_VAL2 + c]) if R[layout.R_VAL2 + c] > 0 else np.int64(0))


DP_ATOMS = 22  # plain tables up to this many units use the subset DP (2^n table)


@kernel(nrt=False)
def plain_capture_sets(W, natoms, need, X):
    """Every capturable set of a plain table: unit masks M (second quarter of ``X``) with the
    bitmask of the values in ``need`` that prove them (third quarter), in increasing M.

    U[M] = values v for which M splits into groups adding up to v. The group holding M's lowest
    unit decides, so U[M] = OR over groups g containing that unit and inside M of
    (values of g) & U[M - g]: each set is found once, however many partitions prove it.
    Small tables read their groups off the subset-sum table (:func:`small_capture_sets`); larger
    ones use the groups of the needed values found by the depth-first search. Returns the count
    or OVERFLOW_X."""
    if natoms <= TABLE_ATOMS:
        return small_capture_sets(W, natoms, need, X)
    return large_capture_sets(W, natoms, need, X)


@kernel(nrt=False)
def small_capture_sets(W, natoms, need, X):
    """:func:`plain_capture_sets` for up to TABLE_ATOMS units (allocates nothing)."""
    cap = X.shape[0] // 4
    if cap < (ONE << natoms):
        return OVERFLOW_X
    fill_union_table(W, natoms, need, X)
    ns = 0
    for m in range(1, ONE << natoms):
        vm = W[W_UNI + m]
        if vm:
            X[cap + ns] = m
            X[2 * cap + ns] = vm
            ns += 1
    return ns


@kernel(nrt=True)
def large_capture_sets(W, natoms, need, X):
    """:func:`plain_capture_sets` for more than TABLE_ATOMS units (allocates its tables).

    Per needed value v, the v-unions are built from the highest lowest-unit down: a set whose
    lowest unit is L is a v-group with lowest unit L joined to a v-union (or nothing) of higher
    units only, which is complete by then. Only reachable sets are visited, so the work follows
    the number of groups and sets found, not 2^n."""
    cap = X.shape[0] // 4
    groups = X[:cap]
    U = np.zeros(ONE << natoms, np.int64)  # U[M]: bitmask of the values v for which M is a v-union
    reach = np.empty(ONE << natoms, np.int64)  # every set found, each once
    nall = 0
    level = np.empty(ONE << natoms, np.int64)  # this value's unions, in the order found
    everything = (ONE << natoms) - 1
    for v in range(1, 63):
        bit = ONE << v
        if not (need & bit):
            continue
        ng = enum_groups(W, natoms, everything, v, groups, 0)
        if ng < 0:
            return OVERFLOW_X
        if ng == 0:
            continue
        start, perm = bucket_by_lowest(groups, ng, natoms)
        level[0] = 0
        nl = 1
        for lo in range(natoms - 1, -1, -1):
            done = nl  # unions of higher units (and the empty set)
            for b in range(start[lo], start[lo + 1]):
                g = groups[perm[b]]
                for r in range(done):
                    m = level[r]
                    if (g & m) == 0:
                        M = g | m
                        if not (U[M] & bit):
                            if U[M] == 0:
                                reach[nall] = M
                                nall += 1
                            U[M] |= bit
                            level[nl] = M
                            nl += 1
    if nall > cap:
        return OVERFLOW_X
    found = np.sort(reach[:nall])
    for t in range(nall):
        X[cap + t] = found[t]
        X[2 * cap + t] = U[found[t]]
    return nall


@kernel(nrt=True)
def captures_for_card(R, S, c, natoms, W, X):
    """Every distinct capture set (unit mask) of played card ``c`` with its smallest proving
    value, written to the third and fourth quarters of ``X``. Returns the count or OVERFLOW_X."""
    cap = X.shape[0] // 4
    groups = X[:cap]
    unions = X[cap : 2 * cap]
    resm = X[2 * cap : 3 * cap]
    resv = X[3 * cap : 4 * cap]
    n = S[layout.S_NUNITS]
    jc = R[layout.R_JOKER_CAPTURE]
    avail = np.int64(0)
    for k in range(natoms):
        ok = True
        if W[W_AWILD + k] and jc != JC_ANY:  # Grupp table-joker restrictions
            if jc == JC_NEVER:
                ok = False
            elif jc == JC_JOKER_ONLY:
                ok = R[layout.R_IS_WILD + c] == 1
            else:
                ok = n == 1
        if ok:
            avail |= ONE << k
    vals = W[W_VALS : W_VALS + MAX_OPTS]
    nvals = card_values(R, c, vals)
    several = R[layout.R_CAPTURE_SEVERAL] == 1 and nvals > 1
    dietze = R[layout.R_DIETZE_LOOSE] == 1
    passes = 1 if several else nvals
    nres = 0
    need_dedupe = False
    for vi in range(passes):
        ng = 0
        if several:
            for t in range(nvals):
                ng = enum_groups(W, natoms, avail, vals[t], groups, ng)
                if ng < 0:
                    return OVERFLOW_X
            value = 0
        elif natoms <= TABLE_ATOMS:
            value = vals[vi]
            for mask in range(1, 1 << natoms):
                if (mask & ~avail) == 0 and (W[W_SUMS + mask] >> value) & 1:
                    if ng >= cap:
                        return OVERFLOW_X
                    groups[ng] = mask
                    ng += 1
        else:
            value = vals[vi]
            ng = enum_groups(W, natoms, avail, value, groups, 0)
            if ng < 0:
                return OVERFLOW_X
        if ng == 0:
            continue
        ng = sort_unique(groups, ng)
        if natoms > DFS_UNION_ATOMS:
            nu = enum_unions_by_lowest(groups, ng, natoms, unions)
        else:
            nu = enum_unions(W, groups, ng, unions)
        if nu < 0:
            return OVERFLOW_X
        nu = sort_unique(unions, nu)
        if dietze:
            need_dedupe = True
            for t in range(nu):
                m = unions[t]
                # Map atoms to units: a build goes whole or with every one of its cards.
                um = np.int64(0)
                valid = True
                for i in range(n):
                    cm = m & W[W_CATOMS + i]
                    if cm != 0:
                        if cm != W[W_CATOMS + i] or (m & W[W_WHOLE + i]) != 0:
                            valid = False
                            break
                        um |= ONE << i
                    elif (m & W[W_WHOLE + i]) != 0:
                        um |= ONE << i
                if valid:
                    if nres >= cap:
                        return OVERFLOW_X
                    resm[nres] = um
                    resv[nres] = value
                    nres += 1
        elif nres == 0:
            for t in range(nu):
                resm[t] = unions[t]
                resv[t] = value
            nres = nu
        else:
            # Merge the sorted new masks into the sorted results (kept first: smaller value),
            # through the groups region, which is free again.
            a = 0
            b = 0
            k = 0
            while a < nres or b < nu:
                if k >= cap:
                    return OVERFLOW_X
                if b >= nu or (a < nres and resm[a] <= unions[b]):
                    if b < nu and a < nres and resm[a] == unions[b]:
                        b += 1
                    groups[k] = a  # index into the old results
                    a += 1
                else:
                    groups[k] = -1 - b  # index into the new masks
                    b += 1
                k += 1
            # Rebuild results from the back so the old entries are not overwritten before use.
            for t in range(k - 1, -1, -1):
                g = groups[t]
                if g >= 0:
                    resm[t] = resm[g]
                    resv[t] = resv[g]
                else:
                    resm[t] = unions[-1 - g]
                    resv[t] = value
            nres = k
    if need_dedupe and nres > 1:
        # Keep the first (smallest-value) entry of each mask; values were visited ascending.
        order = np.argsort(resm[:nres], kind="mergesort")
        tm = resm[:nres].copy()
        tv = resv[:nres].copy()
        k = 0
        for t in range(nres):
            j = order[t]
            if k > 0 and resm[k - 1] == tm[j]:
                continue
            resm[k] = tm[j]
            resv[k] = tv[j]
            k += 1
        nres = k
    return nres


# ------------------------------------------------------------------------------------------------
# Legal moves
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def push_move(buf, n, kind, card, value, mask, target, owner, zwick):
    """Write a move row; return the new count or OVERFLOW_MOVES when ``buf`` is full."""
    if n >= buf.shape[0]:
        return OVERFLOW_MOVES
    buf[n, layout.M_KIND] = kind
    buf[n, layout.M_CARD] = card
    buf[n, layout.M_VALUE] = value
    buf[n, layout.M_MASK] = mask
    buf[n, layout.M_TARGET] = target
    buf[n, layout.M_OWNER] = owner
    buf[n, layout.M_ZWICK] = zwick
    buf[n, layout.M_SPARE] = 0
    return n + 1


@kernel(nrt=False)
def has_build_move(buf, start, n, card, target, value, owner):
    for k in range(start, n):
        if (
            buf[k, layout.M_KIND] == layout.KIND_BUILD
            and buf[k, layout.M_CARD] == card
            and buf[k, layout.M_TARGET] == target
            and buf[k, layout.M_VALUE] == value
            and buf[k, layout.M_OWNER] == owner
        ):
            return True
    return False


@kernel(nrt=False)
def capture_keeps_duty(R, S, p, i, m, own_units, W):
    """The mover's duty after capturing the units ``m`` with his i-th card (W_KEEPOK holds the
    answer when none of his builds is taken)."""
    if (m & own_units) == 0:
        return W[W_KEEPOK + i] == 1
    return duty_ok(R, S, p, m, 0, hand_card(S, p, i), W)


@kernel(nrt=False)
def gen_moves_ws(R, S, buf, W, X):
    """Every legal whole move of the player to move, written into ``buf``. Returns the count, or
    OVERFLOW_X / OVERFLOW_MOVES when a buffer is too small (see :func:`gen_moves`)."""
    nm = 0
    phase = S[layout.S_PHASE]
    if phase == layout.PHASE_OVER:
        return 0
    p = S[layout.S_TO_MOVE]
    hn = S[layout.S_HAND_N + p]
    n = S[layout.S_NUNITS]
    trail_only = phase != layout.PHASE_NORMAL
    duty_binds = R[layout.R_OWNER_BUILDS] == 1

    # The owner's duty can only bind a player who owns a build.
    if duty_binds:
        owns_any = False
        for u in range(n):
            a = S[layout.S_UNITS + u]
            if S[layout.S_UBUILD + a] and S[layout.S_UOWNER + a] == p:
                owns_any = True
                break
        duty_binds = owns_any
    own_units = np.int64(0)  # table indices of the mover's builds
    if duty_binds:
        own_values = np.int64(0)
        for u in range(n):
            a = S[layout.S_UNITS + u]
            if S[layout.S_UBUILD + a] and S[layout.S_UOWNER + a] == p:
                own_units |= ONE << u
                own_values |= ONE << S[layout.S_UVALUE + a]
        # Whether the duty holds after playing card i with every build kept (trails, and
        # captures that take none of the mover's builds).
        for i in range(hn):
            W[W_KEEPOK + i] = 1 if duty_holds(R, S, p, own_values, hand_card(S, p, i)) else 0
    if not trail_only and n > 0:
        natoms = build_atoms(R, S, W)
        full = (ONE << n) - 1 if n < 64 else np.int64(-1)
        cap = X.shape[0] // 4
        # Plain tables (no option that depends on the played card): every capturable set with the
        # values that prove it is found once, and every card reads its captures off that list.
        fast = natoms <= DP_ATOMS and not R[layout.R_DIETZE_LOOSE] and not R[layout.R_CAPTURE_SEVERAL]
        if fast and R[layout.R_JOKER_CAPTURE] != JC_ANY:
            for k in range(natoms):
                if W[W_AWILD + k]:
                    fast = False
        if fast:
            need = np.int64(0)
            for i in range(hn):
                need |= value_bits(R, hand_card(S, p, i))
            ns = plain_capture_sets(W, natoms, need, X)
            if ns < 0:
                return ns
            for i in range(hn):
                if not is_playable_copy(R, S, p, i):
                    continue
                c = hand_card(S, p, i)
                cv = value_bits(R, c)
                for t in range(ns):
                    hit = X[2 * cap + t] & cv
                    if hit == 0:
                        continue
                    m = X[cap + t]
                    if duty_binds and not capture_keeps_duty(R, S, p, i, m, own_units, W):
                        continue
                    v = lowest_bit(hit)
                    zw = 1 if m == full else 0
                    if zw and R[layout.R_IS_WILD + c] and not R[layout.R_JOKER_SWEEP_ZWICK]:
                        zw = 0
                    nm = push_move(buf, nm, layout.KIND_CAPTURE, c, v, m, -1, -1, zw)
                    if nm < 0:
                        return nm
        for i in range(hn if not fast else 0):
            if not is_playable_copy(R, S, p, i):
                continue
            c = hand_card(S, p, i)
            k = captures_for_card(R, S, c, natoms, W, X)
            if k < 0:
                return k
            for t in range(k):
                m = X[2 * cap + t]
                if duty_binds and not capture_keeps_duty(R, S, p, i, m, own_units, W):
                    continue
                zw = 1 if m == full else 0
                if zw and R[layout.R_IS_WILD + c] and not R[layout.R_JOKER_SWEEP_ZWICK]:
                    zw = 0
                nm = push_move(buf, nm, layout.KIND_CAPTURE, c, X[3 * cap + t], m, -1, -1, zw)
                if nm < 0:
                    return nm
        if R[layout.R_FORCED] and nm > 0:
            return nm

    if not trail_only:
        nm = gen_builds(R, S, p, buf, nm, W)
        if nm < 0:
            return nm

    for i in range(hn):
        if not is_playable_copy(R, S, p, i):
            continue
        c = hand_card(S, p, i)
        if not duty_binds or W[W_KEEPOK + i]:
            nm = push_move(buf, nm, layout.KIND_TRAIL, c, 0, 0, -1, -1, 0)
            if nm < 0:
                return nm
    return nm


@kernel(inline="always")
def gen_moves(R, S, buf, W, X):
    """Legal moves into ``buf``, growing ``buf``/``X`` as needed. Returns (buf, X, count)."""
    while True:
        n = gen_moves_ws(R, S, buf, W, X)
        if n == OVERFLOW_X:
            X = np.empty(X.shape[0] * 2, np.int64)
        elif n == OVERFLOW_MOVES:
            buf = np.empty((buf.shape[0] * 2, layout.MOVE_WIDTH), np.int64)
        else:
            return buf, X, n


@kernel(nrt=False)
def builds_kept(S, W, q, u, tgt_owner):
    """Values of seat ``q``'s builds other than the one at table index ``u`` (from W_OWNED and
    W_OWNED2, which :func:`gen_builds` fills)."""
    if u < 0 or tgt_owner != q:
        return W[W_OWNED + q]
    bit = ONE << S[layout.S_UVALUE + S[layout.S_UNITS + u]]
    return (W[W_OWNED + q] & ~bit) | (W[W_OWNED2 + q] & bit)


@kernel(nrt=False)
def gen_builds(R, S, p, buf, nm, W):
    """Append seat ``p``'s legal builds (and Magger questions) to ``buf`` from row ``nm``; return
    the new row count, or a negative count when ``buf`` is full (``push_move``).

    Two rule families, two algorithms:

    - classic and grupp (no owners): the played card onto one table unit, every sum of a card
      value and a unit value up to 14, each (card, unit, value) once (a restricted
      ``joker_capture`` keeps wild units out);
    - the valued-joker variants (owner builds, docs/rules.md A.6): per playable card and target (a new
      single-card build, or a unit) the candidate values as one bitmask (old + played,
      old - played, the same value, played - old with ``subtract=either``), then the owner's
      duty: the mover keeps a card of the value, his remaining builds stay covered
      (``duty_holds``); a build for a partner needs the partner to own the value already (or a
      Magger "yes") and the partner's duty to hold. Values a partner cannot take yet become
      questions (``KIND_ASK``) when the mover may still ask this turn.
    """
    n = S[layout.S_NUNITS]
    hn = S[layout.S_HAND_N + p]
    pv = W[W_VALS : W_VALS + MAX_OPTS]
    ov = W[W_OV : W_OV + MAX_OPTS]
    if not R[layout.R_OWNER_BUILDS]:
        # Classic / Grupp: add onto one unit, at most 14, no owner.
        restricted = R[layout.R_JOKER_CAPTURE] != JC_ANY
        for i in range(hn):
            if not is_playable_copy(R, S, p, i):
                continue
            c = hand_card(S, p, i)
            start = nm
            npv = card_values(R, c, pv)
            for u in range(n):
                a = S[layout.S_UNITS + u]
                if restricted and unit_has_wild(R, S, a):
                    continue
                nov = unit_values(R, S, a, ov)
                for x in range(npv):
                    for y in range(nov):
                        nv = pv[x] + ov[y]
                        if nv <= 14 and not has_build_move(buf, start, nm, c, u, nv, -1):
                            nm = push_move(buf, nm, layout.KIND_BUILD, c, nv, 0, u, -1, 0)
                            if nm < 0:
                                return nm
        return nm

    # Joker variants: new single-card builds and modifications, with owners.
    max_build = R[layout.R_MAX_BUILD]
    players = R[layout.R_PLAYERS]
    side = R[layout.R_SIDE_OF + p]
    partner_builds = R[layout.R_PARTNER_BUILDS] == 1
    asking = R[layout.R_MAGGER] == 1 and S[layout.S_ASK_Q] == -1
    if asking:
        for v in range(max_build + 1):
            W[W_ASKOK + v] = 0
    # The values of everybody's builds, once and twice or more (for the duty after a build).
    for q in range(players):
        W[W_OWNED + q] = 0
        W[W_OWNED2 + q] = 0
        W[W_PDUTY + q] = -1  # the seat's duty with its builds as they are: not known yet
    for u in range(n):
        a = S[layout.S_UNITS + u]
        W[W_UBITS + u] = (ONE << S[layout.S_UVALUE + a]) if S[layout.S_UBUILD + a] else value_bits(R, a)
        if S[layout.S_UBUILD + a] and S[layout.S_UOWNER + a] >= 0:
            owner = S[layout.S_UOWNER + a]
            bit = ONE << S[layout.S_UVALUE + a]
            W[W_OWNED2 + owner] |= W[W_OWNED + owner] & bit
            W[W_OWNED + owner] |= bit
    # Values a partner build could take this turn (owned by a partner, or answered yes).
    partner_vals = np.int64(0)
    if partner_builds:
        for q in range(players):
            if q != p and R[layout.R_SIDE_OF + q] == side:
                partner_vals |= W[W_OWNED + q]
        if S[layout.S_ASK_ANS] == 1:
            partner_vals |= ONE << S[layout.S_ASK_N]
    valid = ((ONE << (max_build + 1)) - 1) & ~ONE  # announced values 1..max_build
    subtract_either = R[layout.R_SUBTRACT_EITHER] == 1
    for i in range(hn):
        W[W_HBITS + i] = value_bits(R, hand_card(S, p, i))
    for i in range(hn):
        if not is_playable_copy(R, S, p, i):
            continue
        c = hand_card(S, p, i)
        npv = card_values(R, c, pv)
        pbits = W[W_HBITS + i]
        held_other = np.int64(0)  # values the mover still holds after playing card i
        for j in range(hn):
            if j != i:
                held_other |= W[W_HBITS + j]
        for u in range(-1, n):
            # Announced values for this target, as a bitmask (duplicates vanish by themselves):
            # old + played, old - played (>= 1), the same value, and with the option played - old.
            if u == -1:
                cand = pbits
            else:
                obits = W[W_UBITS + u]
                cand = obits & pbits
                for x in range(npv):
                    q = pv[x]
                    cand |= (obits << q) | ((obits >> q) & ~ONE)
                if subtract_either:
                    rest = obits
                    while rest:
                        cand |= (pbits >> lowest_bit(rest)) & ~ONE
                        rest &= rest - 1
            cand &= valid
            if cand == 0:
                continue
            tgt_owner = -1 if u == -1 else S[layout.S_UOWNER + S[layout.S_UNITS + u]]
            # The mover's builds that stay on the table, which his other cards must still cover.
            mine = builds_kept(S, W, p, u, tgt_owner)
            if mine == 0:  # the duty reduces to "another card of the value"
                own = cand & held_other
                while own:
                    nv = lowest_bit(own)
                    own &= own - 1
                    nm = push_move(buf, nm, layout.KIND_BUILD, c, nv, 0, u, p, 0)
                    if nm < 0:
                        return nm
            else:
                own = cand & held_other  # another card of the value is needed in any case
                while own:
                    nv = lowest_bit(own)
                    own &= own - 1
                    if duty_holds(R, S, p, mine | (ONE << nv), c):
                        nm = push_move(buf, nm, layout.KIND_BUILD, c, nv, 0, u, p, 0)
                        if nm < 0:
                            return nm
            if not partner_builds:
                continue
            for_partner = cand if asking else cand & partner_vals
            if for_partner == 0 or (mine != 0 and not duty_holds(R, S, p, mine, c)):
                continue  # the mover's own duty must hold when the build goes to a partner
            while for_partner:
                nv = lowest_bit(for_partner)
                for_partner &= for_partner - 1
                bit = ONE << nv
                for q in range(players):
                    if q == p or R[layout.R_SIDE_OF + q] != side:
                        continue
                    allowed = (W[W_OWNED + q] & bit) != 0 or (
                        S[layout.S_ASK_Q] == q and S[layout.S_ASK_N] == nv and S[layout.S_ASK_ANS] == 1
                    )
                    if not allowed:
                        if asking:
                            W[W_ASKOK + nv] = 1
                        continue
                    if tgt_owner != q and (W[W_OWNED + q] & bit) != 0:
                        # The partner's builds stay as they are: his present duty decides.
                        if W[W_PDUTY + q] == -1:
                            W[W_PDUTY + q] = 1 if duty_holds(R, S, q, W[W_OWNED + q], -1) else 0
                        ok = W[W_PDUTY + q] == 1
                    else:
                        ok = duty_holds(R, S, q, builds_kept(S, W, q, u, tgt_owner) | bit, -1)
                    if ok:
                        nm = push_move(buf, nm, layout.KIND_BUILD, c, nv, 0, u, q, 0)
                        if nm < 0:
                            return nm
    if asking:
        for q in range(players):
            if q == p or R[layout.R_SIDE_OF + q] != side:
                continue
            for nv in range(1, max_build + 1):
                if W[W_ASKOK + nv] and not (W[W_OWNED + q] >> nv) & ONE:
                    nm = push_move(buf, nm, layout.KIND_ASK, -1, nv, 0, -1, q, 0)
                    if nm < 0:
                        return nm
    return nm


@kernel(inline="always")
def legal_moves(R, S, W):
    """Legal whole moves as an (n, MOVE_WIDTH) int64 array."""
    buf, X = new_buffers()
    buf, X, n = gen_moves(R, S, buf, W, X)
    return buf[:n].copy()


# ------------------------------------------------------------------------------------------------
# Dealing and turn sequencing
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def give_card(S, p):
    top = S[layout.S_STOCK_TOP]
    c = S[layout.S_STOCK + top]
    S[layout.S_STOCK_TOP] = top + 1
    hand_insert(S, p, c)
    S[layout.S_DEALT_TO + c] = p


@kernel(nrt=False)
def table_card(S):
    top = S[layout.S_STOCK_TOP]
    c = S[layout.S_STOCK + top]
    S[layout.S_STOCK_TOP] = top + 1
    add_unit(S, c, 0, -1, 0)


@kernel(nrt=False)
def deal_hands(R, S, each, packet):
    players = R[layout.R_PLAYERS]
    forehand = (S[layout.S_DEALER] + 1) % players
    for _ in range(each // packet):
        for i in range(players):
            for _ in range(packet):
                give_card(S, (forehand + i) % players)


@kernel(nrt=False)
def deal_stage(R, S):
    players = R[layout.R_PLAYERS]
    if S[layout.S_STAGE] == 0:
        for k in range(R[layout.R_FIRST_NSTEPS]):
            kind = R[layout.R_FIRST_STEPS + 3 * k]
            count = R[layout.R_FIRST_STEPS + 3 * k + 1]
            if kind == 0:
                deal_hands(R, S, count, max(1, R[layout.R_FIRST_STEPS + 3 * k + 2]))
            else:
                for _ in range(count):
                    table_card(S)
        return
    left = S[layout.S_STOCK_LEN] - S[layout.S_STOCK_TOP]
    final_hand = R[layout.R_FINAL_HAND]
    if final_hand > 0 and left == players * final_hand:
        deal_hands(R, S, final_hand, 1)
    elif left >= players * R[layout.R_STAGE_HAND]:
        deal_hands(R, S, R[layout.R_STAGE_HAND], R[layout.R_STAGE_PACKET])
    else:  # the last-deal rule: one at a time from forehand as far as the cards go
        forehand = (S[layout.S_DEALER] + 1) % players
        i = 0
        while S[layout.S_STOCK_TOP] < S[layout.S_STOCK_LEN]:
            give_card(S, (forehand + i) % players)
            i += 1


@kernel(nrt=False)
def begin_turn(R, S, q, W):
    S[layout.S_TO_MOVE] = q
    S[layout.S_PHASE] = layout.PHASE_NORMAL
    S[layout.S_ASK_Q] = -1
    S[layout.S_ASK_N] = -1
    S[layout.S_ASK_ANS] = -1
    if R[layout.R_DIETZE_MIN] > 0 and S[layout.S_NUNITS] < R[layout.R_DIETZE_MIN] and has_duty_trail(R, S, q, W):
        S[layout.S_PHASE] = layout.PHASE_DIETZE_TRAIL


@kernel(nrt=False)
def finish_hand(R, S):
    side = S[layout.S_LAST_CAPT]
    if side >= 0:
        for i in range(S[layout.S_NUNITS]):
            c = S[layout.S_UNITS + i]
            while c != -1:
                S[layout.S_LOC + c] = layout.LOC_WON + side
                S[layout.S_WON_N + side] += 1
                c = S[layout.S_NEXT + c]
        S[layout.S_NUNITS] = 0
    S[layout.S_PHASE] = layout.PHASE_OVER
    S[layout.S_TO_MOVE] = -1
    S[layout.S_ASK_Q] = -1
    S[layout.S_ASK_N] = -1
    S[layout.S_ASK_ANS] = -1


@kernel(nrt=False)
def next_normal_turn(R, S, p, W):
    """Give the next normal turn after seat ``p``; end stages and the hand as needed."""
    players = R[layout.R_PLAYERS]
    while True:
        for k in range(1, players + 1):
            q = (p + k) % players
            if S[layout.S_HAND_N + q] > 0:
                begin_turn(R, S, q, W)
                return
        if S[layout.S_STOCK_TOP] < S[layout.S_STOCK_LEN] and S[layout.S_STAGE] + 1 < R[layout.R_MAX_STAGES]:
            if R[layout.R_DIETZE_MIN] > 0:
                while S[layout.S_NUNITS] < R[layout.R_DIETZE_MIN] and S[layout.S_STOCK_TOP] < S[layout.S_STOCK_LEN]:
                    table_card(S)
            S[layout.S_STAGE] += 1
            deal_stage(R, S)
            p = S[layout.S_DEALER]
            continue
        finish_hand(R, S)
        return


@kernel(nrt=False)
def continue_all_trail(R, S, last, W):
    players = R[layout.R_PLAYERS]
    while S[layout.S_AZ_LEFT] > 0:
        q = (last + 1) % players
        if S[layout.S_HAND_N + q] > 0 and has_duty_trail(R, S, q, W):
            S[layout.S_PHASE] = layout.PHASE_AFTER_ZWICK_TRAIL
            S[layout.S_TO_MOVE] = q
            S[layout.S_ASK_Q] = -1
            S[layout.S_ASK_N] = -1
            S[layout.S_ASK_ANS] = -1
            return
        S[layout.S_AZ_LEFT] -= 1
        last = q
    next_normal_turn(R, S, last, W)


@kernel(nrt=False)
def end_turn(R, S, p, zwick, W):
    phase = S[layout.S_PHASE]
    S[layout.S_ASK_Q] = -1
    S[layout.S_ASK_N] = -1
    S[layout.S_ASK_ANS] = -1
    if phase == layout.PHASE_DIETZE_TRAIL:
        if S[layout.S_HAND_N + p] > 0:
            if S[layout.S_NUNITS] < R[layout.R_DIETZE_MIN] and has_duty_trail(R, S, p, W):
                return
            S[layout.S_PHASE] = layout.PHASE_NORMAL
            return
        next_normal_turn(R, S, p, W)
        return
    if phase == layout.PHASE_AFTER_ZWICK_TRAIL:
        if R[layout.R_AFTER_ZWICK] == AZ_ZWICKER:
            next_normal_turn(R, S, p, W)
        else:
            S[layout.S_AZ_LEFT] -= 1
            continue_all_trail(R, S, p, W)
        return
    if zwick and R[layout.R_AFTER_ZWICK] == AZ_ZWICKER:
        if S[layout.S_HAND_N + p] > 0 and has_duty_trail(R, S, p, W):
            S[layout.S_PHASE] = layout.PHASE_AFTER_ZWICK_TRAIL
            return
        next_normal_turn(R, S, p, W)
        return
    if zwick and R[layout.R_AFTER_ZWICK] == AZ_ALL:
        S[layout.S_AZ_LEFT] = R[layout.R_PLAYERS]
        continue_all_trail(R, S, p, W)
        return
    next_normal_turn(R, S, p, W)


# ------------------------------------------------------------------------------------------------
# Apply
# ------------------------------------------------------------------------------------------------
@kernel(nrt=False)
def apply_move(R, S, mv, W):
    """Apply one move row to ``S`` in place (the caller guarantees it is legal)."""
    p = S[layout.S_TO_MOVE]
    kind = mv[layout.M_KIND]
    S[layout.S_PLIES] += 1
    if kind == layout.KIND_ASK:
        q = mv[layout.M_OWNER]
        n = mv[layout.M_VALUE]
        S[layout.S_ASK_Q] = q
        S[layout.S_ASK_N] = n
        S[layout.S_ASK_ANS] = 1 if magger_answer(R, S, q, n, W) else 0
        return
    c = mv[layout.M_CARD]
    hand_remove(S, p, c)
    zwick = False
    if kind == layout.KIND_TRAIL:
        add_unit(S, c, 0, -1, 0)
    elif kind == layout.KIND_CAPTURE:
        side = R[layout.R_SIDE_OF + p]
        mask = mv[layout.M_MASK]
        n = S[layout.S_NUNITS]
        won = 1
        S[layout.S_LOC + c] = layout.LOC_WON + side
        k = 0
        for i in range(n):
            a = S[layout.S_UNITS + i]
            if (mask >> i) & ONE:
                x = a
                while x != -1:
                    S[layout.S_LOC + x] = layout.LOC_WON + side
                    won += 1
                    x = S[layout.S_NEXT + x]
            else:
                S[layout.S_UNITS + k] = a
                k += 1
        S[layout.S_NUNITS] = k
        S[layout.S_WON_N + side] += won
        S[layout.S_LAST_CAPT] = side
        if k == 0 and not (R[layout.R_IS_WILD + c] and not R[layout.R_JOKER_SWEEP_ZWICK]):
            zwick = True
            S[layout.S_ZWICKS + side] += 1
    else:
        target = mv[layout.M_TARGET]
        if target < 0:
            add_unit(S, c, mv[layout.M_VALUE], mv[layout.M_OWNER], 1)
        else:
            a = S[layout.S_UNITS + target]
            x = a
            while S[layout.S_NEXT + x] != -1:
                x = S[layout.S_NEXT + x]
            S[layout.S_NEXT + x] = c
            S[layout.S_NEXT + c] = -1
            S[layout.S_LOC + c] = layout.LOC_TABLE
            S[layout.S_ANCHOR + c] = a
            S[layout.S_UVALUE + a] = mv[layout.M_VALUE]
            S[layout.S_UOWNER + a] = mv[layout.M_OWNER]
            S[layout.S_UBUILD + a] = 1
    end_turn(R, S, p, zwick, W)


# ------------------------------------------------------------------------------------------------
# New hands
# ------------------------------------------------------------------------------------------------
@kernel
def empty_state(R):
    S = np.zeros(layout.STATE_SIZE, np.int32)
    S[layout.S_LOC : layout.S_LOC + layout.NC] = layout.LOC_NONE
    S[layout.S_ANCHOR : layout.S_ANCHOR + layout.NC] = -1
    S[layout.S_NEXT : layout.S_NEXT + layout.NC] = -1
    S[layout.S_UOWNER : layout.S_UOWNER + layout.NC] = -1
    S[layout.S_DEALT_TO : layout.S_DEALT_TO + layout.NC] = -1
    S[layout.S_LAST_CAPT] = -1
    S[layout.S_ASK_Q] = -1
    S[layout.S_ASK_N] = -1
    S[layout.S_ASK_ANS] = -1
    return S


@kernel
def cut_for_dealer(R, order):
    """Seats cut one card each from ``order``; the lowest (low_cut) or highest deals; ties recut."""
    n = order.shape[0]
    cut = np.empty(n, np.int32)  # as the chance steps keep their cut (one compiled cut_dealer)
    for i in range(n):
        cut[i] = order[i]
    return cut_dealer(R, cut, n, n)


@kernel
def cut_dealer(R, cut, ncut, n):
    """The dealer decided by the first ``ncut`` cards ``cut[:ncut]`` of a cut that can use ``n``
    cards, or -1 while undecided. Seats cut one card each; the lowest (low_cut) or highest deals;
    ties recut; when all ``n`` cards are used up the first remaining seat deals."""
    players = R[layout.R_PLAYERS]
    high = R[layout.R_FIRST_DEALER] == 2
    alive = np.ones(players, np.bool_)
    pos = 0
    while True:
        best = -1
        ranks = np.full(players, -1, np.int64)
        for p in range(players):
            if alive[p]:
                if pos >= n:
                    return p  # ran out of cards: the first remaining seat deals
                if pos >= ncut:
                    return -1
                ranks[p] = R[layout.R_CUT_RANK + cut[pos]]
                pos += 1
                if best == -1 or (ranks[p] > best if high else ranks[p] < best):
                    best = ranks[p]
        count = 0
        last = -1
        for p in range(players):
            if alive[p] and ranks[p] == best:
                count += 1
                last = p
            else:
                alive[p] = False
        if count == 1:
            return last


@kernel(nrt=False)
def start_hand(R, S, order, dealer, W):
    """Lay ``order`` (the whole deck, next card first) as the stock and deal stage 0."""
    n = order.shape[0]
    for i in range(n):
        c = order[i]
        S[layout.S_STOCK + i] = c
        S[layout.S_LOC + c] = layout.LOC_STOCK
    S[layout.S_STOCK_TOP] = 0
    S[layout.S_STOCK_LEN] = n
    S[layout.S_DEALER] = dealer
    S[layout.S_STAGE] = 0
    deal_stage(R, S)
    next_normal_turn(R, S, dealer, W)


@kernel
def deal_order_with_cut(R, seed):
    """The shuffled deck, the dealer and the cut deck for ``seed`` (the only randomness of a hand;
    the cut is empty with a random first dealer)."""
    np.random.seed(seed)
    deck = R[layout.R_DECK : layout.R_DECK + R[layout.R_DECK_SIZE]].astype(np.int64)
    order = np.random.permutation(deck)
    if R[layout.R_FIRST_DEALER] == 0:
        dealer = np.random.randint(R[layout.R_PLAYERS])
        cut = np.empty(0, np.int64)
    else:
        cut = np.random.permutation(deck)
        dealer = cut_for_dealer(R, cut)
    return order, dealer, cut


@kernel
def deal_order(R, seed):
    """The shuffled deck and the dealer for ``seed`` (:func:`deal_order_with_cut` without the cut)."""
    order, dealer, _ = deal_order_with_cut(R, seed)
    return order, dealer


@kernel
def new_hand(R, seed, W):
    S = empty_state(R)
    order, dealer = deal_order(R, seed)
    start_hand(R, S, order, dealer, W)
    return S


# ------------------------------------------------------------------------------------------------
# Scoring
# ------------------------------------------------------------------------------------------------
@kernel
def score(R, S):
    """Points per side so far: card points + most cards + Zwicks."""
    out = np.zeros(R[layout.R_NSIDES], np.int64)
    score_into(R, S, out)
    return out


@kernel(nrt=False)
def score_into(R, S, out):
    """:func:`score` written into ``out`` (int64, at least one entry per side; nothing allocated,
    nothing returned: an array returned from a kernel without reference counting would be freed
    twice by a caller with it)."""
    ns = R[layout.R_NSIDES]
    out[:ns] = 0
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = S[layout.S_LOC + c]
        if layout.LOC_WON <= loc < layout.LOC_WON + ns:
            out[loc - layout.LOC_WON] += R[layout.R_POINTS + c]
    add_bonuses(R, S, out)


@kernel(nrt=False)
def add_bonuses(R, S, out):
    """Add the rest of the score to ``out``, each side's points of the cards it won: the most-cards
    bonus and the Zwicks (a reader that sums the card points itself, such as the observation,
    then needs no second pass over the deck)."""
    ns = R[layout.R_NSIDES]
    best = -1
    count = 0
    who = -1
    for s in range(ns):
        w = S[layout.S_WON_N + s]
        if w > best:
            best = w
            count = 1
            who = s
        elif w == best:
            count += 1
    if count == 1 and best > 0:
        out[who] += R[layout.R_MOST_CARDS]
    for s in range(ns):
        out[s] += S[layout.S_ZWICKS + s] * R[layout.R_ZWICK_POINTS]


# ------------------------------------------------------------------------------------------------
# Policies (codes: zwick_ai.zwicker.policy_codes) and whole playouts
# ------------------------------------------------------------------------------------------------


@kernel(nrt=False)
def greedy_value(R, S, mv):
    """The greedy baseline's score of a move (higher is better); documented in agents."""
    kind = mv[layout.M_KIND]
    c = mv[layout.M_CARD]
    if kind == layout.KIND_CAPTURE:
        pts = R[layout.R_POINTS + c]
        cards = 1
        mask = mv[layout.M_MASK]
        for i in range(S[layout.S_NUNITS]):
            if (mask >> i) & ONE:
                x = S[layout.S_UNITS + i]
                while x != -1:
                    pts += R[layout.R_POINTS + x]
                    cards += 1
                    x = S[layout.S_NEXT + x]
        return 10.0 + pts + mv[layout.M_ZWICK] * R[layout.R_ZWICK_POINTS] + 0.1 * cards
    if kind == layout.KIND_BUILD:
        return 1.0 + 0.01 * mv[layout.M_VALUE]
    if kind == layout.KIND_TRAIL:
        return -float(R[layout.R_POINTS + c]) - 0.01 * max(
            R[layout.R_VAL1 + c], R[layout.R_VAL2 + c], 8 * R[layout.R_IS_WILD + c]
        )
    return -100.0  # never ask


#: move values within this of the best are tied
TIE = 1e-9


@kernel(nrt=False, inline="always")
def best_so_far(v, k, best, ties, pick):
    """One step of a best-value scan whose ties (values within :data:`TIE`) are broken uniformly at
    random by reservoir sampling with ``np.random``: ``(best, ties, pick)`` after item ``k`` of value ``v``."""
    if v > best + TIE:
        return v, 1, k
    if abs(v - best) <= TIE:
        ties += 1
        if np.random.randint(ties) == 0:
            pick = k
    return best, ties, pick


@kernel(nrt=False)
def choose(R, S, buf, n, policy):
    if policy == POLICY_GREEDY:
        best, ties, pick = -1e18, 0, 0
        for k in range(n):
            best, ties, pick = best_so_far(greedy_value(R, S, buf[k]), k, best, ties, pick)
        return pick
    return np.random.randint(n)


@kernel(inline="always")
def play_out_to(R, S, policies, W, last_stage, buf, X):
    """Play ``S`` in place, seat p using ``policies[p]``, until the hand is over or a stage after
    ``last_stage`` is dealt. Returns (plies played, the move buffers, which may have grown)."""
    plies = 0
    while S[layout.S_PHASE] != layout.PHASE_OVER and S[layout.S_STAGE] <= last_stage:
        n = gen_moves_ws(R, S, buf, W, X)
        if n < 0:  # a buffer was too small (rare): grow it
            buf, X, n = gen_moves(R, S, buf, W, X)
        if n == 0:
            raise ValueError("no legal move in a running hand")
        k = choose(R, S, buf, n, policies[S[layout.S_TO_MOVE]])
        apply_move(R, S, buf[k], W)
        plies += 1
    return plies, buf, X


@kernel(inline="always")
def play_out(R, S, policies, W):
    """Play ``S`` to the end in place, seat p using ``policies[p]``. Returns plies played."""
    buf, X = new_buffers()
    plies, buf, X = play_out_to(R, S, policies, W, R[layout.R_MAX_STAGES], buf, X)
    return plies


@kernel(inline="always")
def record_hand(R, S, h, scores, zwicks, won_side, dealt):
    """Row ``h`` of a batch of finished hands: each side's score and Zwicks, the side that won each
    card (-1 none) and the seat it was dealt to."""
    ns = R[layout.R_NSIDES]
    sc = score(R, S)
    for s in range(ns):
        scores[h, s] = sc[s]
        zwicks[h, s] = S[layout.S_ZWICKS + s]
    for c in range(layout.NC):
        loc = S[layout.S_LOC + c]
        if layout.LOC_WON <= loc < layout.LOC_WON + ns:
            won_side[h, c] = loc - layout.LOC_WON
        dealt[h, c] = S[layout.S_DEALT_TO + c]


class PlayedHands(NamedTuple):
    """What :func:`play_hands` returns, one row per hand."""

    scores: np.ndarray  # [N, sides] int64: each side's points
    zwicks: np.ndarray  # [N, sides] int64: each side's Zwicks
    won_side: np.ndarray  # [N, NC] int8: the side that won each card (-1: none, or not in the deck)
    dealt_to: np.ndarray  # [N, NC] int8: the seat each card was dealt to (-1: table or stock)
    plies: np.ndarray  # [N] int64: the hand's moves


@kernel
def play_hands(R, seeds, policies):
    """Deal and play one hand per seed entirely in compiled code: their :class:`PlayedHands`."""
    n = seeds.shape[0]
    ns = R[layout.R_NSIDES]
    scores = np.zeros((n, ns), np.int64)
    zwicks = np.zeros((n, ns), np.int64)
    won_side = np.full((n, layout.NC), -1, np.int8)
    dealt = np.full((n, layout.NC), -1, np.int8)
    plies = np.zeros(n, np.int64)
    W = new_workspace()
    for h in range(n):
        S = new_hand(R, seeds[h], W)
        np.random.seed((seeds[h] * 69069 + 12345) % 4294967296)
        plies[h] = play_out(R, S, policies, W)
        record_hand(R, S, h, scores, zwicks, won_side, dealt)
    return PlayedHands(scores, zwicks, won_side, dealt, plies)
