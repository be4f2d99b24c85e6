"""Scripted deals for every rule of docs/rules.md Part C (Zwicken). Dealer = last seat, seat 0 forehand."""

import pytest

from zwick_ai import tricks as T
from zwick_ai.tricks import layout as L

from .conftest import run


def zw(players=4, **opts):
    return T.rules("zwicken", players=players, **opts)


H4 = [["AH", "KC", "9S"], ["7D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]


def test_pack_players_defaults():
    r = zw()
    assert len(r.deck) == 32 and r.players == 4 and r.pot == 3
    with pytest.raises(ValueError, match="2 to 5 players"):
        zw(6)
    with pytest.raises(ValueError, match="seven_jump"):
        zw(seven_jump="far")


# ---- Hupf und Sprung ---------------------------------------------------------------------------------
def test_hupf_ace_or_seven_passes_the_deal():
    for card in ("AC", "7S"):
        s = run(T.new(zw()), card)
        assert T.is_chance(s) and T.phase(s) == "cut"  # no deal: the next dealer cuts again
        assert T.dealer(s) == 0 and T.returns(s) == (-3, 0, 0, 0) and T.pot(s) == 6


def test_sprung_seven_of_diamonds_jumps_to_rearhand():
    s = run(T.new(zw()), "7D")
    # dealer 3 -> rearhand 2; seats 0 and 1 are skipped and pay 3, the new dealer antes 3
    assert T.dealer(s) == 2 and T.returns(s) == (-3, -3, -3, 0) and T.pot(s) == 12


def test_sprung_next_but_one():
    s = run(T.new(zw(seven_jump="next_but_one")), "7D")
    assert T.dealer(s) == 1 and T.returns(s) == (-3, -3, 0, 0) and T.pot(s) == 9


def test_hupf_at_most_one_round_then_cut_card_to_bottom():
    s = run(T.new(zw()), "AC", "AD", "7H", "7C")  # four passes: one full round
    assert T.dealer(s) == 3 and T.pot(s) == 15
    s = run(s, "AS")  # no longer counts
    assert T.phase(s) == "deal" and s.arr[L.S_BOTTOM] == 51


def test_no_hupf_option():
    s = T.new(zw(hupf=False))
    assert T.phase(s) == "deal"


def test_cut_card_is_public_and_at_the_bottom():
    s = T.scripted(zw(), H4, upcard="8H", cut="KS")
    assert s.arr[L.S_LOC + 50] == L.L_BOTTOM
    assert "cut KS" in T.information_state_string(s, 1)


def test_bottom_card_is_drawn_last_and_publicly():
    r = T.rules("zwicken", players=2, ranks="KQJT98", suits="CH")
    hands = [["KC", "QC", "JC"], ["TC", "9C", "8C"]]
    s = T.scripted(r, hands, upcard="8H", cut="KH")
    assert T.legal_moves(s) == ["pass", "exchange 0", "exchange 1", "exchange 2", "exchange 3"]
    s = run(s, "exchange 3", "discard JC", "discard QC", "discard KC", "TH", "JH", "QH")
    assert T.hand(s, 0) == ["TH", "JH", "QH"]
    assert T.legal_moves(s) == ["pass", "exchange 0", "exchange 1", "exchange 2"]  # talon: 9H + KH
    s = run(s, "exchange 2", "8C", "9C")
    assert T.chance_outcomes(s) == [(33, 1.0)]  # the talon runs out: 9H, then the bottom card
    s = run(s, "9H", "KH")
    assert T.hand(s, 1) == ["TC", "9H", "KH"]
    assert "1 draws KH" in T.information_state_string(s, 0) and "1 draws;" in T.information_state_string(s, 0)


# ---- exchange, passing, lone player ------------------------------------------------------------------
def test_exchange_discards_in_order_and_draws():
    s = T.scripted(zw(hupf=False), H4, upcard="8H")
    assert T.legal_moves(s) == ["pass", "exchange 0", "exchange 1", "exchange 2", "exchange 3"]
    s = run(s, "exchange 2")
    # discards in increasing card order (KC < AH < 9S), leaving a higher card for the second
    assert T.legal_moves(s) == ["discard KC", "discard AH"]
    s = run(s, "discard KC")
    assert T.legal_moves(s) == ["discard AH", "discard 9S"]
    s = run(s, "discard 9S")
    assert T.is_chance(s) and T.phase(s) == "draw"
    s = run(s, "AC", "AD")
    assert T.hand(s, 0) == ["AC", "AD", "AH"] and T.to_move(s) == 1
    assert "0: discard" in T.information_state_string(s, 1) and "KC" not in T.information_state_string(s, 1)


def test_all_pass_void_and_lone_player_takes_pot():
    s = run(T.scripted(zw(hupf=False), H4, upcard="8H"), "pass", "pass", "pass", "pass")
    assert T.result(s).startswith("void") and T.pot(s) == 3 and T.returns(s) == (0, 0, 0, 0)
    s = run(T.scripted(zw(hupf=False), H4, upcard="8H"), "pass", "exchange 0", "pass", "pass")
    assert T.returns(s) == (0, 3, 0, 0) and T.pot(s) == 0


# ---- trick duties -----------------------------------------------------------------------------------
def stay_all(s, n=4):
    return run(s, *["exchange 0"] * n)


def test_trump_ace_must_be_led_first_time():
    s = stay_all(T.scripted(zw(hupf=False), H4, upcard="8H"))
    assert T.legal_moves(s) == ["play AH"]


def test_seven_of_diamonds_is_a_trump_of_the_trump_suit_only():
    hands = [["KD", "KC", "9S"], ["7D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]
    s = stay_all(T.scripted(zw(hupf=False), hands, upcard="8H"))
    s = run(s, "KD")
    # seat 1 has no diamond (7D is a heart-trump now): must trump with it
    assert T.legal_moves(s) == ["play 7D"]
    s = run(s, "7D")
    assert T.legal_moves(s) == ["play KH"]  # cannot beat 7D (only AH can) but must still trump
    hands = [["9H", "KC", "9S"], ["7D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]
    s = stay_all(T.scripted(zw(hupf=False), hands, upcard="8H"), 4)
    s = run(s, "9H", "7D", "KH", "QH")  # 7D ranks above the trump King
    assert T.tricks_won(s) == (0, 1, 0, 0)


def test_follow_and_head_the_trick():
    hands = [["TC", "KD", "9S"], ["QC", "7C", "8S"], ["KH", "JC", "TS"], ["QH", "AC", "7S"]]
    s = stay_all(T.scripted(zw(hupf=False), hands, upcard="8H"))
    s = run(s, "TC")
    assert T.legal_moves(s) == ["play QC"]  # must beat when able
    s = run(s, "QC")
    assert T.legal_moves(s) == ["play JC"]  # cannot beat: any club
    s = run(s, "JC")
    assert T.legal_moves(s) == ["play AC"]


def test_void_must_trump_overtrump_else_undertrump():
    hands = [["TC", "KD", "9S"], ["9H", "QD", "8S"], ["KH", "JH", "TS"], ["QH", "AD", "7S"]]
    s = stay_all(T.scripted(zw(hupf=False), hands, upcard="8H"))
    s = run(s, "TC")
    assert T.legal_moves(s) == ["play 9H"]  # void in clubs: must trump
    s = run(s, "9H")
    assert T.legal_moves(s) == ["play JH", "play KH"]  # overtrump with either
    s = run(s, "KH")
    assert T.legal_moves(s) == ["play QH"]  # cannot overtrump: must still trump


def test_trick_shares_rounded_down_and_gezwickt():
    hands = [["AH", "KC", "9S"], ["8D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]
    s = T.scripted(zw(hupf=False, pot=10), hands, upcard="8H")
    s = run(s, "exchange 0", "exchange 0", "exchange 0", "pass")
    s = run(s, "AH", "8D", "KH")  # trump lead; seat 1 has no trump
    assert T.returns(s) == (3, 0, 0, 0) and T.pot(s) == 7  # a third of 10, rounded down
    s = run(s, "KC", "QC", "JC", "9S", "8S", "TS")
    assert T.tricks_won(s) == (2, 0, 1, 0)
    # seat 1 stayed and took no trick: gezwickt, pays 3; 10 - 3*3 = 1 chip stays, plus the 3
    assert T.returns(s) == (6, -3, 3, 0) and T.pot(s) == 4


def test_gezwickt_seven_of_diamonds_lost_to_trump_ace():
    hands = [["AH", "KC", "9S"], ["7D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]
    s = T.scripted(zw(hupf=False, pot=9), hands, upcard="8H")
    s = run(s, "exchange 0", "exchange 0", "pass", "pass", "AH")
    assert T.legal_moves(s) == ["play 7D"]
    s = run(s, "7D")
    assert T.returns(s) == (3, -3, 0) + (0,) and T.pot(s) == 9  # 3 to seat 0, 3 paid by seat 1
    s = run(s, "KC", "QC", "9S", "8S")
    assert T.tricks_won(s) == (3, 0, 0, 0)
    assert T.returns(s) == (9, -6, 0, 0)  # gezwickt twice: 7D lost, and no trick


def test_anbieten_last_trick_takes_whole_pot():
    hands = [["AH", "KC", "9S"], ["8D", "QC", "8S"], ["KH", "JC", "TS"], ["QH", "TC", "7S"]]
    s = T.scripted(zw(hupf=False, pot=10, anbieten=True), hands, upcard="8H")
    s = run(s, "exchange 0", "exchange 0", "exchange 0", "pass", "AH", "8D", "KH", "KC", "QC", "JC")
    assert T.returns(s) == (0, 0, 0, 0) and T.pot(s) == 10  # early tricks pay nothing
    s = run(s, "9S", "8S", "TS")
    # seat 2 wins the last trick: the whole pot; seat 1 took no trick and is gezwickt
    assert T.returns(s) == (0, -3, 10, 0) and T.pot(s) == 3
