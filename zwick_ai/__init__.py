"""zwick_ai: strategy search for the Zwick family of card games (Zwicker, Zwikken, Zwicken).

Layers, lowest first (nothing imports upward): ``cards``, ``chance_runs`` → ``zwicker`` / ``tricks`` (rules, state
arrays, numba kernels) → ``games`` (OpenSpiel wrappers) and ``agents`` → ``eval`` → ``analysis``
→ ``cli``.
"""

__version__ = "0.3.0"

from zwick_ai import _jit_cache

_jit_cache.install()  # before any kernel module is imported: see _jit_cache's docstring
