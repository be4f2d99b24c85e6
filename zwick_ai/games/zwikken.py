"""OpenSpiel game ``zwikken``: the Dutch three-card trick-and-pot game, docs/rules.md Part B.

Registered by ``import zwick_ai.games``. Parameters: ``variant`` (historic, parlett [default],
modern), ``players`` (0 = the variant's default), ``pot`` (0 = one ante round), ``pack``,
``forced_rounds``, ``zwik``, ``upcard_pair``, ``part_pot_bids``, ``max_bid_levels``,
``three_trumps``, ``lubbers``, and the research reductions ``ranks``/``suits`` (letters, e.g.
``ranks=AKQ``) and ``tricks`` (cards per hand). See :mod:`zwick_ai.games.tricks_game`.

>>> import pyspiel, zwick_ai.games
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> state = game.new_initial_state()
>>> game.num_players(), game.num_distinct_actions(), state.action_to_string(state.chance_outcomes()[0][0])
(3, 123, 'deal TC')
"""

import pyspiel

from zwick_ai.games.tricks_game import TricksGame, game_type


class ZwikkenGame(TricksGame):
    GAME = "zwikken"
    TYPE = game_type("zwikken", "Zwikken (Dutch three-card trick-and-pot game)", 3, 6)


pyspiel.register_game(ZwikkenGame.TYPE, ZwikkenGame)
