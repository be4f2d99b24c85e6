"""Zwikken and Zwicken (docs/rules.md Parts B and C): one trick-and-pot engine, the rule sets as data.

>>> from zwick_ai import tricks
>>> r = tricks.rules("zwikken", variant="modern", players=3)
>>> s = tricks.scripted(r, [["AH", "KH", "TS"], ["QS", "JS", "AC"], ["KC", "QC", "JC"]], upcard="KS")
>>> tricks.to_move(s), tricks.legal_moves(s)
(0, ['pas', 'ik vraag', 'ik pas en ik ken hem', 'ik vraag en ik ken hem'])
>>> s = tricks.apply(s, "ik vraag en ik ken hem")
>>> s = tricks.apply(tricks.apply(s, "pas"), "pas")          # round 2: nobody asks better
>>> s = tricks.apply(tricks.apply(s, "pas"), "pas")
>>> tricks.legal_moves(s)
['swap TS for upcard KS', 'keep TS']
>>> s = tricks.apply(s, "swap TS for upcard KS")
>>> tricks.hand(s, 0), tricks.upcards(s), tricks.legal_moves(s)
(['KH', 'AH', 'KS'], ['TS'], ['play KH', 'play AH', 'play KS'])
>>> s = tricks.apply(s, "play KH")
>>> tricks.to_move(s), tricks.legal_moves(s)        # void in hearts: must trump
(1, ['play JS', 'play QS'])
>>> for card in ["JS", "JC", "AC", "QC", "KS", "AH", "QS", "KC"]:
...     s = tricks.apply(s, card)
>>> tricks.is_over(s), tricks.card_points(s), tricks.returns(s), tricks.pot(s)
(True, (9, 14, 0), (-3, 0, 0), 6)

Rule choices where docs/rules.md is silent (each documented where it is implemented):

- One episode is one deal. ``pot`` is the pot when the deal starts, this deal's opening ante
  already in it (default: one ante round, 3 chips or one per player); antes paid *inside* the
  deal (re-turns, Hupf) count in the returns. A session (:func:`run_session`, :func:`play_session`)
  charges the opening antes.
- Chance: each hand (and each exchange draw) is dealt as one increasing run of cards with exact
  probabilities (one chance path per set of cards, which keeps exact solving small); the upcard is
  turned after the hands are complete (Zwicken deals 2, turns, deals 1: the same distribution).
- Trick shares (1853, Zwicken) and part-pot stakes are rounded down; the rest stays in the pot.
  Every share and stake is of the pot as it stood when play began.
- Ties between equal combinations go to the player nearest forehand. 1853 ``zwik=suit``: three
  trumps rank highest, then by the highest card (then second, third).
- 1853: in tricks 1 and 2 whoever holds a trump must play one (no duty to overtrump); a player
  without trump plays any card face down, and face-down cards are never shown.
- parlett: any player (passers too) holding the trump ten may swap it before play, and any
  player's zwik counts. modern: only players who asked in the last auction win by a zwik (the
  source: a zwik holder who passed has "erred"); the ten swap needs ``... en ik ken hem`` in a call
  of the auction after that upcard was turned; "ik verwacht een betere" is folded into
  ``ik pas en ik ken hem`` because a repeated suit voids the deal. Each face-up upcard may be
  taken in exchange for the ten of its suit by the player who announced it.
- Auctions: parlett goes round until all but the highest bidder have passed, any higher level
  may be bid; modern has round 1 and, if anyone asked, round 2 (each call one step higher; lubbers:
  round-1 passers stay out). Levels default to 4 (parlett) and 3 (modern: vraag, beter, nog beter).
- The zwik winner takes the whole pot; only in 1853 do the other players pay (bête).
- modern: the speler alone wins or pays; lubbers bars the speler from leading the trump Ace while
  he has another card.
- Zwicken: the cut card is shown and, if the deal goes on, lies at the bottom of the talon (drawn
  last, publicly). At most ``players`` deals are passed by Hupf/Sprung; from then on cuts do not
  count. The new dealer always antes 3; Sprung also charges 3 to every skipped player. The upcard
  stays face up, out of play; discards are out of play, face down. A player gezwickt twice (no
  trick, and 7D lost to the trump Ace) pays twice. Anbieten: the last trick takes the whole pot,
  gezwickt payments unchanged.
"""

from zwick_ai.tricks.engine import (
    Session,
    TrickState,
    action_name,
    action_string,
    ante,
    apply,
    card_points,
    chance_outcomes,
    current_trick,
    deal,
    dealer,
    hand,
    history,
    information_state_string,
    is_chance,
    is_over,
    legal_actions,
    legal_moves,
    new,
    observation_string,
    parse_action,
    phase,
    play_session,
    pot,
    random_policy,
    render,
    resample,
    result,
    returns,
    run_session,
    scripted,
    to_move,
    tricks_won,
    trump,
    upcards,
)
from zwick_ai.tricks.rules import GAMES, OPTIONS, VARIANTS, TrickRules, rules

__all__ = [
    "GAMES",
    "OPTIONS",
    "VARIANTS",
    "Session",
    "TrickRules",
    "TrickState",
    "action_name",
    "action_string",
    "ante",
    "apply",
    "card_points",
    "chance_outcomes",
    "current_trick",
    "deal",
    "dealer",
    "hand",
    "history",
    "information_state_string",
    "is_chance",
    "is_over",
    "legal_actions",
    "legal_moves",
    "new",
    "observation_string",
    "parse_action",
    "phase",
    "play_session",
    "run_session",
    "pot",
    "random_policy",
    "render",
    "resample",
    "result",
    "returns",
    "rules",
    "scripted",
    "to_move",
    "tricks_won",
    "trump",
    "upcards",
]
