"""Batched games: thousands of games stepped at once in compiled code (:class:`VectorGame`)."""

from zwick_ai.vector.game import OPPONENTS, TimeStep, VectorGame

__all__ = ["OPPONENTS", "TimeStep", "VectorGame"]
