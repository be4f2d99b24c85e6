"""Plain, comparable pictures of a Zwicker position and of a move.

Both the numba engine and the slow reference implementation convert to and from these, which is
how the property tests compare them: same :class:`Snapshot` in, same set of :class:`MoveKey` out,
same :class:`Snapshot` after each move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

KINDS = ("trail", "capture", "build", "ask")


class Ask(NamedTuple):
    """A turn's question to the partner (Großenwiehe): :data:`NO_ASK` when nobody asked."""

    partner: int  # the seat asked
    value: int  # the build value asked about
    answer: int  # 1: yes, 0: no


NO_ASK = Ask(-1, -1, -1)


@dataclass(frozen=True, order=True)
class Unit:
    """A table unit: a loose card (``build=False``, ``value=0``, ``owner=-1``) or a build."""

    cards: tuple[int, ...]  # sorted card ids
    value: int
    owner: int  # seat owning the build; -1 for none (loose cards, classic/grupp builds)
    build: bool


@dataclass(frozen=True)
class Snapshot:
    """Everything that determines a Zwicker position (and nothing else)."""

    hands: tuple[tuple[int, ...], ...]  # per seat, sorted card ids
    table: tuple[Unit, ...]  # in table order: oldest unit first
    stock: tuple[int, ...]  # undealt cards, the next to be dealt first
    won: tuple[tuple[int, ...], ...]  # per side, sorted card ids
    zwicks: tuple[int, ...]  # per side
    dealer: int
    to_move: int  # seat to move; meaningless once phase == PHASE_OVER
    stage: int  # 0-based index of the stage being played
    last_capturer: int  # side that made the last capture, -1 if nobody yet
    phase: int
    az_left: int  # seats still to visit in an ``all_trail`` round (0 otherwise)
    asked: Ask  # the question asked this turn, or NO_ASK

    def canonical(self) -> Snapshot:
        """The same position with table units sorted (order on the table carries no meaning)."""
        return Snapshot(**{**self.__dict__, "table": tuple(sorted(self.table))})


@dataclass(frozen=True, order=True)
class MoveKey:
    """The identity of a whole move: two moves with equal keys have the same outcome.

    ``trail``: card. ``capture``: card and ``taken`` (sorted cards of all taken units).
    ``build``: card, ``target`` (sorted cards of the unit built on; ``()`` for a new single-card
    build), announced ``value`` and the ``owner`` seat of the build afterwards (the mover, or the
    partner for a build for partner). ``ask``: ``card=-1``, ``value`` asked about and ``owner`` =
    the partner asked.
    """

    kind: str
    card: int
    taken: tuple[int, ...] = ()
    target: tuple[int, ...] = ()
    value: int = 0
    owner: int = -1
