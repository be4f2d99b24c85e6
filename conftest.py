"""Collection rules for the whole repository (pytest reads this before collecting)."""

import importlib.util

# The environment modules import Gymnasium and PettingZoo (the "rl" extra); without them their
# doctests cannot be collected. tests/envs skips with the reason instead.
_RL_MISSING = any(importlib.util.find_spec(m) is None for m in ("gymnasium", "pettingzoo"))
collect_ignore = (
    ["zwick_ai/envs/aec.py", "zwick_ai/envs/parallel.py", "zwick_ai/envs/single.py", "zwick_ai/envs/vector.py"]
    if _RL_MISSING
    else []
)
