"""Moved to :mod:`zwick_ai.zwicker.steps` (the engine layer); these names remain for callers not yet
switched over and go once none is left."""

from zwick_ai.zwicker.steps import TERMINAL, chance_step_k, returns_k, seed_chance_k

__all__ = ["TERMINAL", "chance_step_k", "returns_k", "seed_chance_k"]
