"""The bots' legal cards are what the engine accepts: one definition of the follow rules.

Random positions under every follow rule and deck: a trick led from a random deal, the
second player playing each card they hold in turn. The engine must call a revoke (R501)
exactly for the cards `legal_cards` leaves out (or a P405, for trumping the free first trick).
"""

import random

import pytest

from auditor.cards import CARD_NAMES, SUITS, cards_of, mask_of, suit_of
from auditor.engine import audit_games, legal_cards, resolve_rules
from auditor.notation import parse_text

RULES = ["auction", "setback follow=strict", "tenpoint follow=free-when-void", "tenpoint", "tenpoint52",
         "partnership first_trick_trump=free", "cutthroat follow=strict"]
NAMES = ("Ann", "Bob", "Cal", "Dee")


def _hand(rules_text: str, hands: list[list[int]], trick2: list[int], trump: int) -> str:
    rules = resolve_rules(rules_text)
    teams = '[Teams "NS: Ann Cal; EW: Bob Dee"]\n' if rules.partnership else ""
    deal = "; ".join(f"{n}: {' '.join(CARD_NAMES[c] for c in h)}" for n, h in zip(NAMES, hands))
    tricks = " ".join(f"{n}:{CARD_NAMES[c]}" for n, c in zip(NAMES, trick2))
    return (f'[Rules "{rules_text}"]\n[Players "{" ".join(NAMES)}"]\n{teams}\nhand 1\ndealer Dee\ndeal {deal}\n'
            f"bids Ann {rules.top_bid - 1 if rules.top_bid > rules.min_bid else rules.min_bid}, Bob pass, Cal pass, "
            f"Dee pass\ntrump {SUITS[trump]}\n1. {tricks}\n")


@pytest.mark.parametrize("rules_text", RULES)
def test_the_engine_calls_a_revoke_exactly_for_the_cards_legal_cards_refuses(rules_text):
    rules = resolve_rules(rules_text)
    rng = random.Random(rules_text)
    deck = list(range(54 if rules.ten_point else 52))
    checked = refused = 0
    for _ in range(40):
        rng.shuffle(deck)
        hands = [sorted(deck[i * 6:(i + 1) * 6]) for i in range(4)]
        trump = suit_of(hands[0][0]) if hands[0][0] < 52 else 0
        lead = rng.choice(hands[0]) if rules.first_trick_trump == "free" else \
            max(hands[0], key=lambda c: (c < 52 and suit_of(c) == trump, c))
        if lead >= 52 or (rules.first_trick_trump != "free" and suit_of(lead) != trump):
            continue
        held = mask_of(hands[1])
        ok = legal_cards(rules, trump, held, 0, lead, lead)
        for card in hands[1]:
            rest = [min(cards_of(legal_cards(rules, trump, mask_of(h), 0, lead, lead)) or h) for h in hands[2:]]
            games, problems = parse_text(_hand(rules_text, hands, [lead, card, *rest], trump))
            assert problems == []
            # a revoke, or (first_trick_trump=free) trumping the first trick
            revokes = [(f.subject, f.trick) for f in audit_games(games)[0].findings if f.code in ("R501", "P405")]
            assert (("Bob", 1) in revokes) == (not ok >> card & 1), (rules_text, CARD_NAMES[lead], hands[1], card)
            checked += 1
            refused += not ok >> card & 1
    assert checked > 50 and refused > 0  # positions where a card is refused were reached
