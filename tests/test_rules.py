import pytest

from auditor.rules import KEYS, PRESETS, RulesError, parse_rules


def test_presets_carry_the_table_of_rules_md():
    a, s, sb, p, c = (PRESETS[n] for n in ("auction", "sell", "setback", "partnership", "cutthroat"))
    assert (a.min_bid, a.max_bid, a.dealer_steal, a.steal_smudge, a.all_pass, a.low, a.game) == \
        (2, 4, True, False, "eldest-pitches", "holder", 7)
    assert (s.auction, s.count_down, s.game, s.revoke, s.going_out) == ("sell", True, 10, "highest-bid", "points-order")
    assert (sb.min_bid, sb.dealer_steal, sb.all_pass, sb.bid_value("moon")) == (1, False, "redeal", 4)
    assert (p.teams, p.max_bid, p.smudge, p.low, p.game, p.going_out) == \
        ("partners", 5, "all-tricks", "taker", 21, "bidder-only")
    assert (c.teams, c.players, c.all_pass) == ("none", (2, 7), "dealer-bids")
    assert a.settlement == "club" and p.settlement == "none"


def test_overrides_by_key_and_round_trip_to_text():
    r = parse_rules("partnership game=11 low=holder")
    assert (r.game, r.low) == (11, "holder")
    assert parse_rules(r.to_text()) == r


@pytest.mark.parametrize("text,fragment,offset", [
    ("bridge", "unknown preset", 0),
    ("auction game=seven", "whole number", 13),
    ("auction colour=red", "unknown rule key", 8),
    ("auction game", "key=value", 8),
    ("auction low=both", "one of holder, taker", 12),
])
def test_bad_rules_text_says_what_and_where(text, fragment, offset):
    with pytest.raises(RulesError) as e:
        parse_rules(text)
    assert fragment in str(e.value)
    assert e.value.offset == offset


def test_every_key_has_a_meaning_and_every_preset_a_value():
    for k in KEYS:
        assert k.meaning
        for r in PRESETS.values():
            assert getattr(r, k.name) is not None
