from auditor.cards import CARD_NAMES, cards_of, mask_of, parse_card, rank_of, suit_of


def test_every_spelling_of_a_card_reads_the_same():
    assert {parse_card(t) for t in ("TH", "th", "10h", "10H", "T♥", "♥T", "10♥")} == {parse_card("TH")}


def test_canonical_names_round_trip_for_the_whole_deck():
    assert [parse_card(CARD_NAMES[c]) for c in range(54)] == list(range(54))


def test_tokens_that_are_not_cards():
    for bad in ("1S", "AX", "11H", "", "S", "JK", "AS2", "ZZ"):
        assert parse_card(bad) is None, bad


def test_masks_and_ranks():
    cards = [parse_card(t) for t in ("AS", "2S", "JD", "JKH")]
    assert cards_of(mask_of(cards)) == sorted(cards)
    assert [suit_of(c) for c in cards] == [0, 0, 2, 4]
    assert [rank_of(c) for c in cards] == [12, 0, 9, 13]
