"""OpenSpiel game ``zwicken``: the Austrian/Bavarian three-card trick-and-pot game, docs/rules.md Part C.

Registered by ``import zwick_ai.games``. Parameters: ``players`` (0 = 4), ``pot`` (0 = 3 chips),
``hupf`` (Hupf und Sprung, default true), ``seven_jump`` (rearhand, next_but_one), ``anbieten``,
and the research reductions ``ranks``/``suits``/``tricks``. See :mod:`zwick_ai.games.tricks_game`.

>>> import pyspiel, zwick_ai.games
>>> game = pyspiel.load_game("zwicken(players=4,hupf=true)")
>>> state = game.new_initial_state()
>>> state.is_chance_node(), state.action_to_string(state.chance_outcomes()[0][0])
(True, 'cut shows 7C')
"""

import pyspiel

from zwick_ai.games.tricks_game import TricksGame, game_type


class ZwickenGame(TricksGame):
    GAME = "zwicken"
    TYPE = game_type("zwicken", "Zwicken (Austrian/Bavarian three-card trick-and-pot game)", 2, 5)


pyspiel.register_game(ZwickenGame.TYPE, ZwickenGame)
