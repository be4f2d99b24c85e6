"""The readable table shown by ``zwick play`` and ``zwick replay``: one text picture of an OpenSpiel
state of ``zwicker``, ``zwikken`` or ``zwicken``, from one seat's view (other hands hidden) or from
above (every hand shown); the terminal's counterpart of :mod:`zwick_ai.render.svg`.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> print(show(zwicker_bridge.state_from_seed(game, 3), viewer=0, names=["you", "greedy"]))
zwicker classic (2 players) | stage 0 | dealer 0 | stock 40 cards
table: 8C  QD  KH  TS
    seat  side  player  hand
    0     0     you     QH 3S QS KS
 >  1     1     greedy  (4 cards)
side 0 (seat 0): won 0 cards, 0 zwicks, 0 points
side 1 (seat 1): won 0 cards, 0 zwicks, 0 points
to move: seat 1 (greedy)
"""

from __future__ import annotations

from collections.abc import Sequence

import pyspiel

from zwick_ai import tricks as trick_engine
from zwick_ai import zwicker
from zwick_ai.games.zwicker_observer import PHASE_NAMES


def _seat_name(seat: int, names: Sequence[str] | None) -> str:
    return f"seat {seat}" + (f" ({names[seat]})" if names else "")


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def show(state: pyspiel.State, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
    """The table as text. ``viewer`` is the seat whose hand is shown (None: every hand);
    ``names[seat]`` labels the seats (e.g. ``you`` or an agent spec)."""
    if state.is_chance_node():
        return "dealing..."
    if hasattr(state, "engine_state"):
        return _show_zwicker(state, viewer, names)
    return _show_tricks(state, viewer, names)


def _show_zwicker(state: pyspiel.State, viewer: int | None, names: Sequence[str] | None) -> str:
    es = state.engine_state()
    r = es.rules
    snap = zwicker.snapshot(es)
    over = zwicker.is_over(es)
    head = [
        r.describe(),
        f"stage {snap.stage}",
        f"dealer {snap.dealer}",
        f"stock {len(zwicker.stock(es))} cards",
    ]
    phase = snap.phase
    if 0 < phase < len(PHASE_NAMES) - 1:
        head.append(PHASE_NAMES[phase])
    lines = [" | ".join(head), "table: " + ("  ".join(zwicker.table(es)) or "(empty)")]
    to_move = -1 if over else zwicker.to_move(es)
    rows = [["", "seat", "side", "player", "hand"]]
    for p in range(r.players):
        cards = zwicker.hand(es, p)
        shown = (
            " ".join(cards) if viewer is None or p == viewer else f"({len(cards)} card{'' if len(cards) == 1 else 's'})"
        )
        rows.append([">" if p == to_move else "", str(p), str(r.side_of(p)), names[p] if names else "", shown or "-"])
    lines += [" " + x for x in _columns(rows)]
    won, zw, sc = zwicker.won(es), zwicker.zwicks(es), zwicker.score(es)
    for s, seats in enumerate(r.sides):
        who = "+".join(map(str, seats))
        plural = "s" if len(seats) > 1 else ""
        lines.append(
            f"side {s} (seat{plural} {who}): won {len(won[s])} cards, {zw[s]} zwick{'s' if zw[s] != 1 else ''}, "
            f"{sc[s]} point{'s' if sc[s] != 1 else ''}"
            + (" (last capture)" if over and snap.last_capturer == s else "")
        )
    if snap.asked.partner >= 0:
        answer = "yes" if snap.asked.answer == 1 else "no"
        lines.append(f"asked seat {snap.asked.partner} for a build of {snap.asked.value}: {answer}")
    lines.append("hand over" if over else f"to move: {_seat_name(to_move, names)}")
    return "\n".join(lines)


def _show_tricks(state: pyspiel.State, viewer: int | None, names: Sequence[str] | None) -> str:
    ts = state.trick_state()
    r = ts.rules
    over = trick_engine.is_over(ts)
    params = r.params()
    title = f"{r.game} {params.get('variant', '')}".strip() + f" ({r.players} players)"
    head = [
        title,
        f"phase {trick_engine.phase(ts)}",
        f"dealer {trick_engine.dealer(ts)}",
        f"pot {trick_engine.pot(ts)}",
    ]
    head.append(f"trump {trick_engine.trump(ts) or '-'}")
    if trick_engine.upcards(ts):
        head.append("upcards " + " ".join(trick_engine.upcards(ts)))
    lines = [" | ".join(head)]
    lines.append("trick: " + (" ".join(f"{q}:{c}" for q, c in trick_engine.current_trick(ts)) or "(empty)"))
    to_move = -1 if over else trick_engine.to_move(ts)
    rows = [["", "seat", "player", "hand", "tricks", "net chips"]]
    tricks, net = trick_engine.tricks_won(ts), trick_engine.returns(ts)
    for p in range(r.players):
        cards = trick_engine.hand(ts, p)
        shown = (
            " ".join(cards) if viewer is None or p == viewer else f"({len(cards)} card{'' if len(cards) == 1 else 's'})"
        )
        rows.append(
            [">" if p == to_move else "", str(p), names[p] if names else "", shown or "-", str(tricks[p]), str(net[p])]
        )
    lines += [" " + x for x in _columns(rows)]
    lines.append(f"deal over: {trick_engine.result(ts)}" if over else f"to move: {_seat_name(to_move, names)}")
    return "\n".join(lines)
