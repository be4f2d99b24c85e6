"""Scripted deals for every rule of docs/rules.md Part B (Zwikken). Seat 0 is forehand (dealer = last
seat) unless a test says otherwise."""

import pytest

from zwick_ai import tricks as T
from zwick_ai.tricks import layout as L

from .conftest import run


def hist(players=4, **opts):
    return T.rules("zwikken", variant="historic", players=players, **opts)


def parl(players=3, **opts):
    return T.rules("zwikken", variant="parlett", players=players, **opts)


def mod(players=3, **opts):
    return T.rules("zwikken", variant="modern", players=players, **opts)


# ---- B.1 historic (1853) ---------------------------------------------------------------------------
HANDS4 = [["2C", "5H", "9S"], ["3C", "6H", "TS"], ["4C", "7H", "JS"], ["8D", "9D", "TD"]]


def test_historic_pack_and_players():
    assert len(hist().deck) == 52 and hist().players == 4
    assert len(hist(3, pack="piquet").deck) == 32
    with pytest.raises(ValueError, match="piquet"):
        hist(4, pack="piquet")
    with pytest.raises(ValueError, match="3 to 6 players"):
        hist(7)


def test_historic_play_or_pass_and_forced_rounds():
    s = T.scripted(hist(), HANDS4, upcard="AS")
    assert T.legal_moves(s) == ["pass", "play"]
    forced = T.scripted(hist(forced_rounds=True), HANDS4, upcard="AS")
    assert T.legal_moves(forced) == ["play"]


def test_historic_nobody_plays_is_void_and_pot_carries():
    s = run(T.scripted(hist(), HANDS4, upcard="AS"), "pass", "pass", "pass", "pass")
    assert T.is_over(s) and T.result(s).startswith("void") and T.pot(s) == 3 and T.returns(s) == (0, 0, 0, 0)


def test_historic_lone_player_takes_pot():
    s = run(T.scripted(hist(), HANDS4, upcard="AS"), "pass", "play", "pass", "pass")
    assert T.returns(s) == (0, 3, 0, 0) and T.pot(s) == 0


def test_historic_zwik_wins_and_other_players_are_bete():
    hands = [["2C", "2D", "2H"], ["3C", "6H", "TS"], ["4C", "7H", "JS"], ["8D", "9D", "TD"]]
    s = run(T.scripted(hist(pot=5), hands, upcard="AS"), "play", "play", "pass", "play")
    # seat 0's triplet takes the pot (5); seats 1 and 3 played and pay the pot's amount each
    assert T.result(s) == "zwik" and T.returns(s) == (5, -5, 0, -5) and T.pot(s) == 10


def test_historic_higher_triplet_and_upcard_rank_triplet_is_best():
    hands = [["2C", "2D", "2H"], ["KC", "KD", "KH"], ["4C", "7H", "JS"], ["8D", "9D", "TD"]]
    s = run(T.scripted(hist(), hands, upcard="AS"), "play", "play", "play", "play")
    assert s.arr[L.S_ZWIKP] == 1  # kings beat twos
    s = run(T.scripted(hist(), hands, upcard="2S"), "play", "play", "play", "play")
    assert s.arr[L.S_ZWIKP] == 0  # three of the upcard's rank beat everything


def test_historic_zwik_suit_reading():
    hands = [["2C", "5C", "9C"], ["3H", "6H", "KH"], ["4C", "7H", "JS"], ["8D", "9D", "TS"]]
    s = run(T.scripted(hist(zwik="suit"), hands, upcard="AS"), "play", "play", "play", "play")
    assert s.arr[L.S_ZWIKP] == 1  # hearts to the King beat clubs to the Nine
    s = run(T.scripted(hist(zwik="suit"), hands, upcard="AC"), "play", "play", "play", "play")
    assert s.arr[L.S_ZWIKP] == 0  # three trumps rank highest
    s = run(T.scripted(hist(), hands, upcard="AS"), "play", "play", "play", "play")
    assert T.phase(s) == "play"  # with zwik=rank a flush is nothing


def test_historic_upcard_pair():
    hands = [["AC", "AD", "2H"], ["3C", "6H", "TS"], ["4C", "7H", "JS"], ["8D", "9D", "TD"]]
    s = run(T.scripted(hist(upcard_pair=True), hands, upcard="AS"), "play", "play", "pass", "pass")
    assert T.result(s) == "zwik" and T.returns(s) == (3, -3, 0, 0)
    s = run(T.scripted(hist(), hands, upcard="AS"), "play", "play", "pass", "pass")
    assert s.arr[L.S_PHASE] == L.PH_PLAY  # without the option a pair is nothing


def test_historic_trump_leads_and_face_down_play():
    hands = [["2C", "5S", "9H"], ["3C", "6H", "TD"], ["4S", "7H", "JD"], ["8D", "9D", "TH"]]
    s = run(T.scripted(hist(pot=9), hands, upcard="AS"), "play", "play", "play", "pass")
    # trick 1: a leader with a trump must lead one
    assert T.legal_moves(s) == ["play 5S"]
    s = run(s, "5S")
    # seat 1 has no trump: any card, face down
    assert T.legal_moves(s) == ["play 3C face down", "play TD face down", "play 6H face down"]
    s = run(s, "TD")
    assert T.legal_moves(s) == ["play 4S"]  # seat 2 holds a trump: must play it
    s = run(s, "4S")
    assert T.tricks_won(s) == (1, 0, 0, 0) and T.returns(s)[0] == 3  # a third of the pot
    # others never learn a face-down card
    info = T.information_state_string(s, 2)
    assert "1: play face down" in info and "TD" not in info
    assert "1: play TD face down" in T.information_state_string(s, 1)
    # trick 2: seat 0 leads without trump: face down; nobody trumps: the leader wins
    s = run(s, "2C", "6H", "7H")
    assert T.tricks_won(s) == (2, 0, 0, 0)
    # trick 3: ordinary: follow suit if able; seat 1 holds 3C only and seat 2 JD
    assert T.legal_moves(s) == ["play 9H"]
    s = run(s, "9H", "3C", "JD")
    assert T.is_over(s) and T.tricks_won(s) == (3, 0, 0, 0)
    # seats 1 and 2 played and took no trick: bête, each pays the pot's amount (9)
    assert T.returns(s) == (9, -9, -9, 0) and T.pot(s) == 18


def test_historic_trump_leader_wins_and_follow_suit_last_trick():
    hands = [["2C", "5C", "9H"], ["3C", "6S", "TH"], ["4C", "7S", "JD"], ["8D", "9D", "TD"]]
    s = run(T.scripted(hist(), hands, upcard="AS"), "play", "play", "play", "pass")
    s = run(s, "2C", "6S", "7S")  # seat 0 leads face down; highest trump wins
    assert T.tricks_won(s) == (0, 0, 1, 0)
    s = run(s, "4C", "5C", "3C")  # seat 2 leads (no trump left): face down; nobody trumps
    assert T.tricks_won(s) == (0, 0, 2, 0)
    s = run(s, "JD")
    assert T.legal_moves(s) == ["play 9H"]  # void in diamonds: any card
    s = run(s, "9H", "TH")
    assert T.tricks_won(s) == (0, 0, 3, 0) and T.returns(s) == (-3, -3, 3, 0)


# ---- B.2 parlett -------------------------------------------------------------------------------------
P3 = [["AC", "KC", "QD"], ["AD", "KD", "JC"], ["QC", "TC", "JD"]]


def test_parlett_pack_players_and_ante_round():
    r = parl()
    assert len(r.deck) == 20 and r.players == 3 and r.pot == 3
    assert parl(5).pot == 5
    with pytest.raises(ValueError, match="3 to 5 players"):
        parl(6)


def test_parlett_auction_higher_bids_pass_final_gambler():
    s = T.scripted(parl(), P3, upcard="AH")
    assert T.legal_moves(s) == ["pass", "bid 1", "bid 2", "bid 3", "bid 4"]
    s = run(s, "bid 2")
    assert T.legal_moves(s) == ["pass", "bid 3", "bid 4"]
    s = run(s, "pass", "bid 3")
    assert T.to_move(s) == 0  # seat 1 passed for good: back to seat 0
    s = run(s, "pass")
    assert s.arr[L.S_SPELER] == 2 and T.phase(s) == "play"


def test_parlett_max_bid_levels_and_part_pot_names():
    s = T.scripted(parl(max_bid_levels=2), P3, upcard="AH")
    assert T.legal_moves(s) == ["pass", "bid 1", "bid 2"]
    s = run(s, "bid 2")
    assert T.legal_moves(s) == ["pass"]
    s = T.scripted(parl(part_pot_bids=True), P3, upcard="AH")
    assert T.legal_moves(s) == ["pass", "bid 1/2", "bid 2/3", "bid 3/4", "bid pot"]


def test_parlett_all_pass_search_antes_and_end():
    s = run(T.scripted(parl(), P3, upcard="AH"), "pass", "pass", "pass")
    assert T.to_move(s) == 2 and T.legal_moves(s) == ["turn new trump", "end deal"]
    s2 = run(s, "end deal")
    assert T.is_over(s2) and T.pot(s2) == 3 and T.returns(s2) == (0, 0, 0)
    for k in range(3):
        s = run(s, "turn new trump")
        assert T.returns(s) == (-(k + 1),) * 3 and T.pot(s) == 3 + 3 * (k + 1)  # everyone antes again
        s = run(s, ["AS", "KS", "QS"][k], "pass", "pass", "pass")
    assert T.is_over(s) and T.upcards(s) == ["AH", "AS", "KS", "QS"]  # at most 3 new trumps


def test_parlett_repeated_suit_is_allowed():
    s = run(T.scripted(parl(), P3, upcard="AH"), "pass", "pass", "pass", "turn new trump", "KH")
    assert T.trump(s) == "H" and T.to_move(s) == 0


def test_parlett_trump_ten_swap_anyone():
    hands = [["AC", "KC", "QD"], ["AD", "KD", "TH"], ["QC", "TC", "JD"]]
    s = run(T.scripted(parl(), hands, upcard="KH"), "bid 1", "pass", "pass")
    assert T.to_move(s) == 1 and T.legal_moves(s) == ["swap TH for upcard KH", "keep TH"]
    s = run(s, "swap TH for upcard KH")
    assert T.hand(s, 1) == ["KD", "AD", "KH"] and T.upcards(s) == ["TH"] and T.phase(s) == "play"


def test_parlett_zwik_wins_at_once_higher_rank_and_swap_makes_zwik():
    hands = [["AC", "AD", "AS"], ["KC", "KD", "KS"], ["QC", "TC", "JD"]]
    s = run(T.scripted(parl(), hands, upcard="AH"), "pass", "bid 1", "pass")
    assert T.result(s) == "zwik" and T.returns(s) == (3, 0, 0) and T.pot(s) == 0  # passers' zwiks count
    hands = [["KC", "KD", "TH"], ["AC", "AD", "JC"], ["QC", "TC", "JD"]]
    s = run(T.scripted(parl(), hands, upcard="KH"), "pass", "bid 1", "pass", "swap")
    assert T.result(s) == "zwik" and T.returns(s) == (3, 0, 0)


def test_parlett_three_trumps_beat_any_zwik():
    hands = [["AC", "AD", "AS"], ["KH", "QH", "JH"], ["QC", "TC", "JD"]]
    s = run(T.scripted(parl(three_trumps=True), hands, upcard="TH"), "bid 1", "pass", "pass")
    assert T.result(s) == "zwik" and s.arr[L.S_ZWIKP] == 1
    s = run(T.scripted(parl(), hands, upcard="TH"), "bid 1", "pass", "pass")
    assert s.arr[L.S_ZWIKP] == 0


def test_parlett_follow_trump_overtrump_undertrump_only_when_forced():
    hands = [["AC", "KS", "QD"], ["JS", "QH", "TD"], ["AS", "KH", "JD"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass")  # trump spades
    s = run(s, "QD")
    assert T.legal_moves(s) == ["play TD"]  # follow suit
    hands = [["AC", "KS", "QD"], ["JS", "QH", "TH"], ["AS", "KH", "JH"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass", "QD")
    assert T.legal_moves(s) == ["play JS"]  # void: must trump
    s = run(s, "JS")
    assert T.legal_moves(s) == ["play AS"]  # void: must overtrump
    hands = [["AC", "KS", "QD"], ["AS", "QH", "TH"], ["JS", "KH", "JH"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass", "QD", "AS")
    assert T.legal_moves(s) == ["play JH", "play KH"]  # cannot overtrump: no undertrump
    hands = [["AC", "KH", "QD"], ["AS", "QH", "TH"], ["JS", "QS", "KS"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass", "QD", "AS")
    assert T.legal_moves(s) == ["play JS", "play QS", "play KS"]  # only trumps: undertrump


def test_parlett_gambler_wins_two_tricks_takes_pot():
    hands = [["AC", "AH", "QD"], ["KC", "KH", "TD"], ["QC", "QH", "KD"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass")
    s = run(s, "AC", "KC", "QC", "AH", "KH", "QH", "QD", "TD", "KD")
    assert T.tricks_won(s) == (2, 0, 1) and T.returns(s) == (3, 0, 0) and T.pot(s) == 0


def test_parlett_gambler_one_trick_with_more_points_wins():
    hands = [["AC", "TH", "JD"], ["KC", "AH", "TD"], ["QC", "JH", "QD"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass")
    s = run(s, "AC", "KC", "QC", "TH", "AH", "JH", "TD", "QD", "JD")
    # seat 0 took one trick worth 9 points; the other two tricks hold 5 + 3
    assert T.tricks_won(s) == (1, 1, 1) and T.card_points(s) == (9, 5, 3) and T.returns(s) == (3, 0, 0)


def test_parlett_gambler_loses_pays_pot():
    hands = [["TC", "TH", "JD"], ["KC", "AH", "TD"], ["QC", "JH", "QD"]]
    s = run(T.scripted(parl(), hands, upcard="TS"), "bid 1", "pass", "pass")
    s = run(s, "TC", "KC", "QC", "TD", "QD", "JD", "JH", "TH", "AH")
    assert T.tricks_won(s)[0] == 0 and T.returns(s) == (-3, 0, 0) and T.pot(s) == 6


def test_parlett_part_pot_bid_win_and_loss():
    hands = [["AC", "AH", "QD"], ["KC", "KH", "TD"], ["QC", "QH", "JD"]]
    s = run(T.scripted(parl(part_pot_bids=True, pot=12), hands, upcard="TS"), "bid 2/3", "pass", "pass")
    s = run(s, "AC", "KC", "QC", "AH", "KH", "QH", "QD", "TD", "JD")
    assert T.returns(s) == (8, 0, 0) and T.pot(s) == 4
    hands = [["TC", "TH", "JD"], ["KC", "AH", "TD"], ["QC", "JH", "QD"]]
    s = run(T.scripted(parl(part_pot_bids=True, pot=12), hands, upcard="TS"), "bid 1/2", "pass", "pass")
    s = run(s, "TC", "KC", "QC", "TD", "QD", "JD", "JH", "TH", "AH")
    assert T.returns(s) == (-6, 0, 0) and T.pot(s) == 18


# ---- B.3 modern ---------------------------------------------------------------------------------------
M3 = [["AC", "KC", "QD"], ["AD", "KD", "JC"], ["QC", "TC", "JD"]]


def test_modern_calls_and_second_round():
    s = T.scripted(mod(), M3, upcard="AH")
    assert T.legal_moves(s) == ["pas", "ik vraag"]
    s = run(s, "pas", "ik vraag")
    assert T.legal_moves(s) == ["pas", "ik vraag beter"]  # one step at a time
    s = run(s, "ik vraag beter")
    # round 2: the earlier passer may ask better; the highest asker is skipped
    assert T.to_move(s) == 0 and T.legal_moves(s) == ["pas", "ik vraag nog beter"]
    s = run(s, "ik vraag nog beter")
    # no level is left, so nobody can ask better: the auction is over
    assert s.arr[L.S_SPELER] == 0 and T.phase(s) == "play"


def test_modern_lubbers_pass_is_final():
    s = run(T.scripted(mod(lubbers=True), M3, upcard="AH"), "pas", "ik vraag", "ik vraag beter")
    assert T.to_move(s) == 1  # seat 0 passed in round 1 and stays out
    s = run(s, "pas")
    assert s.arr[L.S_SPELER] == 2


def test_modern_search_costs_first_stake_then_free_repeated_suit_void():
    s = run(T.scripted(mod(), M3, upcard="AH"), "pas", "pas", "pas")
    assert T.legal_moves(s) == ["zoeken", "niet zoeken"]
    s = run(s, "zoeken")
    assert T.returns(s) == (-1, -1, -1) and T.pot(s) == 6
    s = run(s, "AS", "pas", "pas", "pas", "zoeken")
    assert T.returns(s) == (-1, -1, -1) and T.pot(s) == 6  # the second search is free
    s = run(s, "TD", "pas", "pas", "pas")
    assert T.is_over(s) and T.pot(s) == 6  # at most two searches
    s = run(T.scripted(mod(), M3, upcard="AH"), "pas", "pas", "pas", "zoeken", "KH")
    assert T.is_over(s) and T.result(s) == "void: a suit was turned up again"


def test_modern_ten_swap_needs_announcement():
    hands = [["AC", "KC", "TH"], ["AD", "KD", "JC"], ["QC", "TC", "JD"]]
    s = run(T.scripted(mod(), hands, upcard="KH"), "ik vraag", "pas", "pas", "pas", "pas")
    assert T.phase(s) == "play"  # no announcement: no swap
    s = run(T.scripted(mod(), hands, upcard="KH"), "ik pas en ik ken hem", "ik vraag", "pas", "pas", "pas")
    assert T.to_move(s) == 0 and T.legal_moves(s) == ["swap TH for upcard KH", "keep TH"]


def test_modern_swap_with_an_earlier_upcard():
    hands = [["AC", "KC", "TH"], ["AD", "KD", "JC"], ["QC", "TC", "JD"]]
    s = run(T.scripted(mod(), hands, upcard="AH"), "ik pas en ik ken hem", "pas", "pas", "zoeken", "AS")
    s = run(s, "pas", "ik vraag", "pas", "pas", "pas")
    assert T.trump(s) == "S" and T.legal_moves(s) == ["swap TH for upcard AH", "keep TH"]
    s = run(s, "swap")
    assert T.hand(s, 0) == ["KC", "AC", "AH"] and T.upcards(s) == ["TH", "AS"]


def test_modern_zwik_of_tens_highest_and_must_ask():
    hands = [["AC", "AD", "AS"], ["TC", "TD", "TS"], ["QC", "KC", "JD"]]
    s = run(T.scripted(mod(), hands, upcard="KH"), "ik vraag", "ik vraag beter", "pas", "pas", "pas")
    assert T.result(s) == "zwik" and s.arr[L.S_ZWIKP] == 1 and T.returns(s) == (0, 3, 0)
    s = run(T.scripted(mod(), hands, upcard="KH"), "ik vraag", "pas", "pas", "pas", "pas")
    assert T.result(s) == "zwik" and s.arr[L.S_ZWIKP] == 0  # seat 1 never asked: his zwik is lost


def test_modern_trump_lead_any_trump_and_no_undertrump():
    hands = [["AS", "KC", "QD"], ["JS", "KS", "TD"], ["QC", "TC", "JD"]]
    s = run(T.scripted(mod(), hands, upcard="TS"), "ik vraag", "pas", "pas", "pas", "pas", "AS")
    assert T.legal_moves(s) == ["play JS", "play KS"]  # on a trump lead any trump
    hands = [["AC", "KS", "QD"], ["AS", "QH", "TH"], ["JS", "KH", "JH"]]
    s = run(T.scripted(mod(), hands, upcard="TS"), "ik vraag", "pas", "pas", "pas", "pas", "QD", "AS")
    assert T.legal_moves(s) == ["play JH", "play KH"]


def test_modern_most_points_wins_tie_everybody_loses_passers_pay_nothing():
    hands = [["AC", "AH", "QD"], ["KC", "KH", "TD"], ["QC", "QH", "JD"]]
    s = run(T.scripted(mod(), hands, upcard="TS"), "ik vraag", "pas", "pas", "pas", "pas")
    s = run(s, "AC", "KC", "QC", "AH", "KH", "QH", "QD", "TD", "JD")
    assert T.card_points(s) == (21, 0, 0) and T.returns(s) == (3, 0, 0)
    # a passer with the most points costs the speler nothing but the loss
    s = run(T.scripted(mod(), hands, upcard="TS"), "pas", "ik vraag", "pas", "pas", "pas")
    s = run(s, "AC", "KC", "QC", "AH", "KH", "QH", "QD", "TD", "JD")
    assert T.returns(s) == (0, -3, 0) and T.pot(s) == 6


def test_modern_tie_for_most_points_speler_loses():
    hands = [["AC", "KD", "TD"], ["KC", "AD", "TH"], ["QC", "QD", "TS"]]
    s = run(T.scripted(mod(), hands, upcard="KS"), "ik vraag", "pas", "pas", "pas", "pas")
    s = run(s, "AC", "KC", "QC", "KD", "AD", "QD", "TH", "TS", "TD")
    assert T.tricks_won(s) == (1, 1, 1) and T.card_points(s) == (9, 9, 0)
    assert T.returns(s) == (-3, 0, 0) and T.pot(s) == 6


def test_modern_lubbers_speler_may_not_lead_trump_ace():
    hands = [["AS", "KC", "QD"], ["JS", "KS", "TD"], ["QC", "TC", "JD"]]
    s = run(T.scripted(mod(lubbers=True), hands, upcard="TS"), "ik vraag", "pas", "pas")
    assert T.legal_moves(s) == ["play KC", "play QD"]
    s = run(T.scripted(mod(), hands, upcard="TS"), "ik vraag", "pas", "pas", "pas", "pas")
    assert "play AS" in T.legal_moves(s)
