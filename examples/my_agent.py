"""An agent of my own: capture the most points, else trail the cheapest card."""

from zwick_ai.agents import Agent, Param
from zwick_ai.games import view


class MyAgent(Agent):
    """Takes the capture worth the most points; without one, trails its cheapest card."""

    GAMES = ("zwicker",)  # the games it plays (default: all three)
    PARAMS = (Param("min_points", int, 0, "capture only for at least this many points"),)

    def act(self, state):
        seen = view(state)  # what this seat may know, nothing more
        captures = [m for m in seen.moves if m.kind == "capture" and m.points >= self.params["min_points"]]
        if captures:
            best = max(m.points for m in captures)
            ties = [m for m in captures if m.points == best]
            return list(ties[self.rng.integers(len(ties))].actions)  # ties at random, seeded
        trails = [m for m in seen.moves if m.kind == "trail"]
        if trails:
            cheapest = min(trails, key=lambda m: self.game.rules.card_points(m.move.key.card))
            return list(cheapest.actions)
        return list(seen.moves[0].actions)  # no trail allowed: the first legal move
