"""``numpy.random.default_rng([seed, n]).choice(ids, p=probs / probs.sum())`` in compiled code.

The trick games' deals (and every later chance event of a game played by
:func:`zwick_ai.eval.match.play_game`) draw chance outcome number ``n`` of deal ``seed`` that way.
Compiled code cannot call NumPy's ``Generator``, so this module reproduces it bit for bit:

* ``SeedSequence([seed, n])`` (NumPy's entropy hashing into a 4-word pool and
  ``generate_state(4, uint64)``),
* ``PCG64`` seeded by that state (128-bit LCG, XSL-RR output), one ``random()`` draw:
  ``(next64 >> 11) * 2**-53``,
* ``Generator.choice(ids, p=q)``: ``q = probs / probs.sum()`` (NumPy's pairwise sum),
  ``cdf = q.cumsum(); cdf /= cdf[-1]``, then ``searchsorted(cdf, u, side="right")``.

The tests check it against NumPy itself on many seeds and outcome lists.
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel

_M32 = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
# PCG's default 128-bit multiplier (high, low words)
_PCG_MUL_HI = np.uint64(2549297995355413924)
_PCG_MUL_LO = np.uint64(4865540595714422341)


@kernel
def _hashmix(value, hash_const):
    """SeedSequence's hashmix (uint32 arithmetic in uint64 words); returns (value, new const)."""
    value = (value ^ hash_const[0]) & _M32
    hash_const[0] = (hash_const[0] * _MULT_A) & _M32
    value = (value * hash_const[0]) & _M32
    value ^= value >> _XSHIFT
    return value


@kernel
def _mix(x, y):
    result = ((_MIX_MULT_L * x) - (_MIX_MULT_R * y)) & _M32
    result ^= result >> _XSHIFT
    return result


@kernel
def _mul64(a, b):
    """Full 64 x 64 -> 128-bit product as (high, low) words."""
    a_lo = a & _M32
    a_hi = a >> np.uint64(32)
    b_lo = b & _M32
    b_hi = b >> np.uint64(32)
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> np.uint64(32)) + (p1 & _M32) + (p2 & _M32)
    lo = (p0 & _M32) | ((mid & _M32) << np.uint64(32))
    hi = p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (mid >> np.uint64(32))
    return hi, lo


@kernel
def _pcg_step(s_hi, s_lo, inc_hi, inc_lo):
    """state * MULT + inc (mod 2**128)."""
    hi, lo = _mul64(s_lo, _PCG_MUL_LO)
    hi = hi + s_lo * _PCG_MUL_HI + s_hi * _PCG_MUL_LO
    lo2 = lo + inc_lo
    carry = np.uint64(1) if lo2 < lo else np.uint64(0)
    return hi + inc_hi + carry, lo2


@kernel
def _words(x, out, n):
    """Append the 32-bit little-endian words of the non-negative integer ``x`` (NumPy's
    ``_int_to_uint32_array``: 0 is one word) to ``out[n:]``; returns the new length."""
    v = np.uint64(x)
    if v == 0:
        out[n] = 0
        return n + 1
    while v > 0:
        out[n] = v & _M32
        n += 1
        v >>= np.uint64(32)
    return n


@kernel
def seeded_uniform(seed, count):
    """``numpy.random.default_rng([seed, count]).random()`` (``seed``, ``count`` >= 0)."""
    entropy = np.empty(4, np.uint64)
    ne = _words(seed, entropy, 0)
    ne = _words(count, entropy, ne)
    pool = np.empty(4, np.uint64)
    hc = np.empty(1, np.uint64)
    hc[0] = _INIT_A
    for i in range(4):
        pool[i] = _hashmix(entropy[i] if i < ne else np.uint64(0), hc)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hc))
    for i_src in range(4, ne):
        for i_dst in range(4):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(entropy[i_src], hc))
    # generate_state(4, uint64): 8 words from the pool, paired little-endian
    state = np.empty(8, np.uint64)
    h = _INIT_B
    for i in range(8):
        v = pool[i % 4]
        v = (v ^ h) & _M32
        h = (h * _MULT_B) & _M32
        v = (v * h) & _M32
        v ^= v >> _XSHIFT
        state[i] = v
    w0 = state[0] | (state[1] << np.uint64(32))
    w1 = state[2] | (state[3] << np.uint64(32))
    w2 = state[4] | (state[5] << np.uint64(32))
    w3 = state[6] | (state[7] << np.uint64(32))
    # pcg64_set_seed: state = (w0 << 64) | w1, inc = ((w2 << 64) | w3) << 1 | 1, then srandom
    inc_hi = (w2 << np.uint64(1)) | (w3 >> np.uint64(63))
    inc_lo = (w3 << np.uint64(1)) | np.uint64(1)
    s_hi, s_lo = _pcg_step(np.uint64(0), np.uint64(0), inc_hi, inc_lo)
    lo = s_lo + w1
    carry = np.uint64(1) if lo < s_lo else np.uint64(0)
    s_hi = s_hi + w0 + carry
    s_lo = lo
    s_hi, s_lo = _pcg_step(s_hi, s_lo, inc_hi, inc_lo)
    # next64: step, then the XSL-RR output of the new state
    s_hi, s_lo = _pcg_step(s_hi, s_lo, inc_hi, inc_lo)
    x = s_hi ^ s_lo
    rot = s_hi >> np.uint64(58)
    out = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    return np.float64(out >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def pairwise_sum(a, n):
    """NumPy's sum of ``a[:n]`` (float64, contiguous): its pairwise summation, exact to the bit."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return pairwise_sum(a, half) + pairwise_sum(a[half:], n - half)


@kernel
def seeded_choice(ids, probs, k, seed, count, cdf):
    """``numpy.random.default_rng([seed, count]).choice(ids[:k], p=probs[:k] / probs[:k].sum())``;
    ``cdf`` (float64, at least ``k``) is scratch."""
    total = pairwise_sum(probs, k)
    acc = 0.0
    for i in range(k):
        acc += probs[i] / total
        cdf[i] = acc
    last = cdf[k - 1]
    for i in range(k):
        cdf[i] /= last
    u = seeded_uniform(seed, count)
    # searchsorted(cdf, u, side="right"): the first index whose cdf exceeds u
    lo = 0
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return ids[lo]
