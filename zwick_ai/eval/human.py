"""A person at one seat of a game in the terminal (:class:`HumanPlayer`) and one whole deal played
against agents (:func:`play_human`): the engine of ``zwick play`` (:mod:`zwick_ai.cli.play`), which
draws the table with :func:`zwick_ai.render.text.show`.

At each of the person's turns the table is shown with the legal whole moves numbered; the answer
is the number or the move's text (a unique beginning is enough; ``?`` repeats the table, ``q``
quits).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

import pyspiel

from zwick_ai.agents.base import Agent, make_agent
from zwick_ai.eval.match import GameRecord, deal, play_game
from zwick_ai.games.decisions import legal_decisions
from zwick_ai.render.text import show

HUMAN = "human"


class Quit(Exception):
    """The person quit the game."""


#: what the bidding calls mean, shown once at the start of a trick game (docs/rules.md B and C)
BID_GUIDE = {
    "zwikken": (
        "bidding: pass, or bid to play for the pot; a later bid must be higher (parlett: bid 1 to bid 4;\n"
        "modern: 'ik vraag' = I ask to play, 'ik vraag beter' = I ask better, 'en ik ken hem' = and I\n"
        "swap the trump ten for the upcard).\n"
        "The highest bidder plays against the rest: win and take the pot, lose and pay its amount."
    ),
    "zwicken": (
        "each player in turn passes (drops out) or stays and exchanges 0-3 cards with the talon;\n"
        "each trick pays a third of the pot, and a player who stayed and took no trick pays 3 into it."
    ),
}


class HumanPlayer(Agent):
    """A person at one seat: shows the table and the numbered legal decisions on ``out`` and reads
    the choice from ``inp``. Not a registered agent (its spec is ``human``)."""

    name = HUMAN

    def __init__(self, game: pyspiel.Game, names: Sequence[str], inp: TextIO, out: TextIO):
        super().__init__(game)
        self.names, self.inp, self.out = list(names), inp, out

    @property
    def spec(self) -> str:
        return HUMAN

    def _print(self, text: str = "") -> None:
        print(text, file=self.out)

    def act(self, state: pyspiel.State) -> list[int]:
        options = legal_decisions(state)
        seat = state.current_player()
        self._table(state, seat, options)
        while True:
            self.out.write("your move (number or text; ? shows the table, q quits): ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise ValueError("the input ended before the game did")
            if not self.inp.isatty():  # scripted input: show it, as a terminal would
                self.out.write(line if line.endswith("\n") else line + "\n")
            text = " ".join(line.split()).lower()
            if text in ("q", "quit"):
                raise Quit
            if text in ("?", "h", "help", ""):
                self._table(state, seat, options)
                continue
            choice = self._choose(text, options)
            if choice is not None:
                return choice

    def _table(self, state: pyspiel.State, seat: int, options: list[tuple[str, list[int]]]) -> None:
        self._print()
        self._print(show(state, viewer=seat, names=self.names))
        self._print("your legal moves:")
        for i, (label, _) in enumerate(options, start=1):
            self._print(f"  {i:3d}. {label}")

    def _choose(self, text: str, options: list[tuple[str, list[int]]]) -> list[int] | None:
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(options):
                return options[k - 1][1]
            self._print(f"choose a number from 1 to {len(options)}")
            return None
        labels = [" ".join(label.split()).lower() for label, _ in options]
        exact = [i for i, label in enumerate(labels) if label == text]
        found = exact or [i for i, label in enumerate(labels) if label.startswith(text)]
        if len(found) == 1:
            return options[found[0]][1]
        if found:
            self._print("that fits several moves: " + "; ".join(f"{i + 1}. {options[i][0]}" for i in found[:10]))
        else:
            self._print(f"no legal move reads {text!r}; type its number (1 to {len(options)}) or its text")
        return None


def play_human(
    game: pyspiel.Game,
    seat: int,
    specs: Sequence[str],
    deal_seed: int,
    inp: TextIO,
    out: TextIO,
    html: str | None = None,
) -> GameRecord:
    """Play deal ``deal_seed`` of ``game`` with a person at ``seat`` (reading ``inp``, writing
    ``out``) and the agents of ``specs`` at the other seats in seat order; returns the record.
    ``html``: also keep this page of the game up to date after every move (``zwick play --html``;
    a new file, which the caller has checked)."""
    n = game.num_players()
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1} for {n} players, not {seat}")
    others = list(specs) or ["random"]
    if len(others) == 1:
        others = others * (n - 1)
    if len(others) != n - 1:
        raise ValueError(f"give one agent spec for every other seat ({n - 1}) or one for all, not {len(others)}")
    names = others[:seat] + ["you"] + others[seat:]
    agents: list[Agent] = []
    for p in range(n):
        if p == seat:
            agents.append(HumanPlayer(game, names, inp, out))
        else:
            agents.append(make_agent(names[p], game, seed=0))

    played: list[pyspiel.State] = []  # the game's state object (play_game changes it in place)
    live = None
    if html:
        from zwick_ai.eval.pages import LivePage

        live = LivePage(
            html, f"zwick play: {game}", f"deal seed {deal_seed}; you are seat {seat}", names, seat, deal_seed
        )
        live.start(deal(game, deal_seed))
        print(f"the table is drawn in {html} (open it in a browser; it follows the game)", file=out)

    def on_move(state: pyspiel.State, p: int, label: str, actions: list[int]) -> None:
        played[:] = [state]
        if live is not None:
            live.add(state, p, label, actions)
        who = "you" if p == seat else f"seat {p} ({names[p]})"
        print(f"{who}: {label}", file=out)

    print(f"{game}\ndeal seed {deal_seed}; you are seat {seat}", file=out)
    print(file=out)
    print(show(deal(game, deal_seed), viewer=seat, names=names), file=out)  # the table as dealt
    guide = BID_GUIDE.get(game.get_type().short_name)
    if guide:
        print(file=out)
        print(guide, file=out)
    rec = play_game(game, agents, deal_seed, on_move=on_move)
    print(file=out)
    print(show(played[0], viewer=None, names=names), file=out)
    print(_result(rec, seat), file=out)
    return rec


def _result(rec: GameRecord, seat: int) -> str:
    lines = ["result: " + ", ".join(f"seat {p} {r:+g}" for p, r in enumerate(rec.returns))]
    mine = rec.returns[seat]
    if rec.points is not None:  # Zwicker: sides ranked by their points
        lines.append("points per side: " + ", ".join(f"side {s} {x}" for s, x in enumerate(rec.points)))
        best = max(rec.returns)
        verdict = "you won" if mine == best and mine > min(rec.returns) else "a tie" if mine == best else "you lost"
        lines.append(f"{verdict} ({mine:+g})")
    else:  # trick games: chips won or lost against the pot
        chips = abs(mine)
        unit = "chip" if chips == 1 else "chips"
        lines.append(
            f"you won {chips:g} {unit}"
            if mine > 0
            else f"you lost {chips:g} {unit}"
            if mine < 0
            else "no chips won or lost"
        )
    return "\n".join(lines)
