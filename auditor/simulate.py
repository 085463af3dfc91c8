"""Legal games played by simple bots, with optional injected faults and an answer key.

The bots bid on the strength of their best suit and play plausibly (win cheaply when
they can, throw the lowest card when they cannot).  Scores, totals and the winner are
written by replaying each game so far with the engine, so a clean simulated game must
audit clean; each injected fault must produce exactly the findings in the answer key.

>>> text, key = simulate("auction", games=1, seed=7, players=4)
>>> from auditor.notation import parse_text
>>> games, problems = parse_text(text)
>>> len(games), problems, key
(1, [], [])
"""

from __future__ import annotations

import random
from dataclasses import replace

from .cards import JACK_RANK, SUITS, effective_suit, make_card, mask_of, off_jack, rank_of, suit_of, trump_order, \
    trump_strength
from .engine import PITCH_VALUE, audit_games, legal_cards, resolve_rules, speaking_order, trick_winner_pos
from .notation import (Bid, Bids, Deal, Exchange, Finding, Game, Hand, Holding, Named, Play, ScoreEntry, ScoreLine,
                       Tag, Trick, TrumpLine, Widow, parse_text, write_games)
from .rules import Rules

NAMES = ("Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon")  # as many as `players` allows
FAULTS = ("revoke", "score", "total", "winner")


def _is_trump(c: int, trump: int, rules: Rules) -> bool:
    return trump_strength(c, trump, rules.deck_kind) >= 0


def _strength(cards: list[int], suit: int, rules: Rules) -> int:
    """Rough number of points a hand expects with ``suit`` as trump."""
    trumps = sorted((trump_strength(c, suit, rules.deck_kind) for c in cards if _is_trump(c, suit, rules)),
                    reverse=True)
    if not trumps:
        return 0
    if rules.ten_point:  # many trumps take many of the ten points; the draw helps the bidder
        return len(trumps) + (trumps[0] >= 14) + 1
    top = len(trump_order(suit, rules.deck_kind)) - 1  # the ace's strength
    # High, Low, Jack (and the jick, where it is a point), and length
    est = (trumps[0] >= top - 1) + (trumps[-1] <= 2) + (make_card(JACK_RANK, suit) in cards) + (len(trumps) >= 3)
    if rules.deck_kind == "jick":
        est += off_jack(suit) in cards
    return est + (len(trumps) >= 4)


def _best_suit(cards: list[int], rules: Rules) -> tuple[int, int]:
    return max(((_strength(cards, s, rules), s) for s in range(4)),
               key=lambda x: (x[0], sum(1 for c in cards if _is_trump(c, x[1], rules))))


def _legal(hand: list[int], trick: list[int], trump: int, rules: Rules, t: int, lead: int | None) -> list[int]:
    """The cards of ``hand`` the engine accepts in trick ``t`` (0-based): the core's one definition."""
    ok = legal_cards(rules, trump, mask_of(hand), t, lead, trick[0] if trick else None)
    return [c for c in hand if ok >> c & 1]


def _strength_in_trick(c: int, led: int, trump: int, rules: Rules) -> int:
    t = trump_strength(c, trump, rules.deck_kind)
    return 100 + t if t >= 0 else (rank_of(c) if effective_suit(c, trump, rules.deck_kind) == led else -1)


def _choose(hand: list[int], trick: list[int], trump: int, rules: Rules, rng: random.Random, t: int,
            lead: int | None) -> int:
    legal = _legal(hand, trick, trump, rules, t, lead)
    if not trick:
        trumps = [c for c in legal if _is_trump(c, trump, rules)]
        if trumps and rng.random() < 0.6:
            return max(trumps, key=lambda c: trump_strength(c, trump, rules.deck_kind))
        return max(legal, key=rank_of) if rng.random() < 0.5 else min(legal, key=rank_of)
    led = effective_suit(trick[0], trump, rules.deck_kind)
    best = max(_strength_in_trick(c, led, trump, rules) for c in trick)
    winners = [c for c in legal if _strength_in_trick(c, led, trump, rules) > best]
    if winners and rng.random() < 0.8:
        return min(winners, key=lambda c: _strength_in_trick(c, led, trump, rules))
    return min(legal, key=lambda c: (_strength_in_trick(c, led, trump, rules), rank_of(c)))


def _auction(rules: Rules, hands: list[list[int]], dealer: int, n: int):
    """Bid words in speaking order; returns (bids, pitcher or None when thrown in)."""
    eldest = (dealer + 1) % n
    order = speaking_order(rules, n, dealer)
    high, high_seat, bids = 0, -1, []
    pitched: tuple[int, int] | None = None  # pitching: (seat, suit) of a pitch only the dealer may take over
    for seat in order:
        est, suit = _best_suit(hands[seat], rules)
        est = min(est, rules.top_bid if rules.smudge not in ("all-tricks", "moon") else rules.top_bid - 1)
        is_dealer = seat == dealer and rules.auction != "sell"
        if pitched is not None:  # only the dealer may speak, by pitching another suit
            take = is_dealer and suit != pitched[1] and est >= PITCH_VALUE
            bids.append((seat, f"pitch {SUITS[suit]}" if take else "pass"))
            high_seat = seat if take else high_seat
            continue
        if rules.pitching and est >= PITCH_VALUE > high:
            bids.append((seat, f"pitch {SUITS[suit]}"))
            high, high_seat = PITCH_VALUE, seat
            pitched = None if is_dealer else (seat, suit)
            continue
        can_equal = is_dealer and rules.dealer_steal and (high < rules.top_bid or rules.steal_smudge)
        if est >= rules.min_bid and (est > high or (can_equal and est == high and high > 0)):
            value = est if est > high else high
            bids.append((seat, str(value)))
            high, high_seat = value, seat
        elif is_dealer and high_seat < 0 and rules.all_pass == "dealer-bids":
            bids.append((seat, str(rules.min_bid)))
            high, high_seat = rules.min_bid, seat
        else:
            bids.append((seat, "pass"))
    pitcher = high_seat
    if rules.auction == "sell":
        if high_seat >= 0:
            sells = high >= 2 or _best_suit(hands[eldest], rules)[0] < high
            bids.append((eldest, "sells" if sells else "keeps"))
            pitcher = high_seat if sells else eldest
        else:
            bids.append((eldest, "keeps"))
            pitcher = eldest
    elif high_seat < 0:
        pitcher = eldest if rules.all_pass == "eldest-pitches" else None
    return bids, pitcher


def _exchange(rules: Rules, hands: list[list[int]], stock: list[int], trump: int, dealer: int, pitcher: int,
              names: list[str]) -> list[Exchange]:
    """Bots' discards and draws after trump is named; ``hands`` are changed in place."""
    n, size = len(hands), rules.hand_size
    order = [(dealer + 1 + i) % n for i in range(n)]
    lines: list[tuple[str, int, list[int]]] = []

    def throw(s: int, down_to: int) -> None:
        # non-trumps first (lowest first), then the lowest trumps as an excess
        keep = sorted(hands[s], key=lambda c: (_is_trump(c, trump, rules), trump_strength(c, trump, rules.deck_kind),
                                               rank_of(c)))
        if rules.draw:
            out = [c for c in keep if not _is_trump(c, trump, rules)]
            trumps = [c for c in keep if _is_trump(c, trump, rules)]
            out += trumps[:max(0, len(trumps) - down_to)]
        else:
            out = keep[:max(0, len(keep) - down_to)]
        if out:
            lines.append(("discard", s, out))
            hands[s] = [c for c in hands[s] if c not in out]

    for s in order:
        throw(s, size)
    if rules.draw:
        for s in order:
            got = [stock.pop(0) for _ in range(min(len(stock), size - len(hands[s])))]
            if got:
                lines.append(("draw", s, got))
                hands[s] += got
    if rules.leftover == "bidder" and stock:
        lines.append(("draw", pitcher, list(stock)))
        hands[pitcher] += stock
        stock.clear()
        keep = sorted(hands[pitcher], key=lambda c: (_is_trump(c, trump, rules),
                                                     trump_strength(c, trump, rules.deck_kind), rank_of(c)))
        out = keep[:len(keep) - size]
        lines.append(("discard", pitcher, out))
        hands[pitcher] = [c for c in hands[pitcher] if c not in out]
    return [Exchange(kind, Holding(names[s], tuple(cs))) for kind, s, cs in lines]


def _play_hand(rules: Rules, names: list[str], number: int, dealer: int, rng: random.Random,
               short: bool) -> tuple[Hand, bool]:
    n = len(names)
    deck = list(range(54 if rules.ten_point else 52))
    rng.shuffle(deck)
    ds = rules.deal_size_for(n)
    hands = [sorted(deck[i * ds:(i + 1) * ds]) for i in range(n)]
    bids, pitcher = _auction(rules, hands, dealer, n)
    deal = Deal(tuple(Holding(names[s], tuple(hands[s])) for s in range(n)))
    stock = deck[n * ds:]
    exchanging = rules.has_exchange(n)
    h = Hand(number, dealer=Named(names[dealer]), deal=deal, widow=Widow(tuple(stock)) if exchanging else None,
             bids=Bids(tuple(Bid(names[s], w) for s, w in bids)))
    if pitcher is None:
        return h, True
    trump = _best_suit(hands[pitcher], rules)[1]
    if exchanging:
        exchanges = _exchange(rules, hands, stock, trump, dealer, pitcher, names)
        if not rules.trumps_only and any(len(x) < rules.hand_size for x in hands):
            # the stock ran dry before every hand was refilled: a deal the bots cannot play out; deal anew
            return _play_hand(rules, names, number, dealer, rng, short)
        h = replace(h, trump=TrumpLine(trump), exchanges=tuple(exchanges))
        short = short and not rules.trumps_only  # drop-outs are written in the long form
    held = [list(x) for x in hands]
    leader = pitcher
    tricks = []
    for t in range(rules.hand_size):
        still_in = [s for s in range(n) if not rules.trumps_only or any(_is_trump(c, trump, rules) for c in held[s])]
        if not still_in:
            break
        if leader not in still_in:  # no trump left: the lead passes to the left
            leader = min(still_in, key=lambda s: (s - leader) % n)
        cards: list[int] = []
        seats = sorted(still_in, key=lambda s: (s - leader) % n)
        for s in seats:
            if t == 0 and s == pitcher:
                first = [c for c in held[s] if _is_trump(c, trump, rules)]
                c = max(first, key=lambda c: trump_strength(c, trump, rules.deck_kind)) if first else \
                    max(held[s], key=rank_of)
                if not exchanging:
                    trump = suit_of(c)
            else:
                lead = tricks[0].plays[0].card if tricks else (cards[0] if cards else None)
                c = _choose(held[s], cards, trump, rules, rng, t, lead)
            held[s].remove(c)
            cards.append(c)
        plays = tuple(Play(None if short else names[s], c) for s, c in zip(seats, cards))
        tricks.append(Trick(t + 1, plays, short))
        leader = seats[trick_winner_pos(cards, trump, rules.deck_kind)]
    if rules.first_trick_trump == "free" and h.trump is None:
        h = replace(h, trump=TrumpLine(trump))  # trump is named on its own line, whatever the first lead
    return replace(h, tricks=tuple(tricks)), False


def _game_tags(rules: Rules, names: list[str], gid: str, rng: random.Random) -> tuple[Tag, ...]:
    tags = [Tag("Event", "Simulated"), Tag("Site", "auditor simulate"),
            Tag("Date", f"2026.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}"), Tag("GameId", gid),
            Tag("Rules", rules.to_text()), Tag("Players", " ".join(names))]
    if rules.partnership:
        k = 3 if len(names) == 6 else 2  # six players: three teams of two; else two teams, seated alternately
        teams = ("NS", "EW") if k == 2 else ("A", "B", "C")
        tags.append(Tag("Teams", "; ".join(f"{t}: {' '.join(names[i::k])}" for i, t in enumerate(teams))))
    return tuple(tags)


def simulate_game(rules: Rules, names: list[str], gid: str, rng: random.Random, max_hands: int = 80) -> Game:
    """One complete game (until someone goes out, or ``max_hands``) with its score sheet."""
    game = Game(_game_tags(rules, names, gid, rng), ())
    dealer = rng.randrange(len(names))
    hands: list[Hand] = []
    while len(hands) < max_hands:
        # a few hands at a time, then one audit writes the sheet and cuts the game where someone went out
        for _ in range(min(8, max_hands - len(hands))):
            hand, thrown = _play_hand(rules, names, len(hands) + 1, dealer, rng, short=rng.random() < 0.2)
            hands.append(hand)
            if not (thrown and rules.all_pass == "redeal"):
                dealer = (dealer + 1) % len(names)
        scored = _rescore(replace(game, hands=tuple(hands)))
        if scored.winner is not None:
            return scored
    return scored


def _inject(game: Game, fault: str, rules: Rules, rng: random.Random) -> tuple[Game, dict] | None:
    """``game`` with one fault of kind ``fault``, and what it must cause; None if no place fits."""
    hands = list(game.hands)
    played = [i for i, h in enumerate(hands) if h.tricks and h.score]
    if not played:
        return None
    if fault == "score":
        i = rng.choice(played)
        h = hands[i]
        e = rng.randrange(len(h.score.entries))
        entries = list(h.score.entries)
        entries[e] = replace(entries[e], value=entries[e].value + 1)
        sign = -1 if rules.count_down else 1
        hands[i] = replace(h, score=replace(h.score, entries=tuple(entries)))
        # the keeper carries the wrong score into every later total, so only S601 arises
        key = entries[e].key
        for j in range(i, len(hands)):
            if hands[j].total:
                hands[j] = replace(hands[j], total=replace(hands[j].total, entries=tuple(
                    replace(x, value=x.value + sign) if x.key == key else x for x in hands[j].total.entries)))
        return replace(game, hands=tuple(hands)), {"code": "S601", "hand": h.number, "player": key}
    if fault == "total":
        i = rng.choice(played)
        h = hands[i]
        e = rng.randrange(len(h.total.entries))
        key = h.total.entries[e].key
        for j in range(i, len(hands)):  # the slip is carried forward, as on a real sheet
            if hands[j].total:
                hands[j] = replace(hands[j], total=replace(hands[j].total, entries=tuple(
                    replace(x, value=x.value + 1) if x.key == key else x for x in hands[j].total.entries)))
        return replace(game, hands=tuple(hands)), {"code": "S602", "hand": h.number, "player": key}
    if fault == "winner":
        if game.winner is None:
            return None
        keys = [e.key for e in hands[-1].score.entries] if hands[-1].score else []
        others = [k for k in keys if k != game.winner.name]
        if not others:
            return None
        return replace(game, winner=Named(rng.choice(others))), {"code": "S603", "hand": None,
                                                                  "player": game.winner.name}
    if fault == "revoke":
        candidates = []
        for i in played:
            h = hands[i]
            trump = suit_of(h.tricks[0].plays[0].card)
            for t, tr in enumerate(h.tricks):
                led = suit_of(tr.plays[0].card)
                for pos in range(1, len(tr.plays)):
                    if suit_of(tr.plays[pos].card) != led:
                        continue
                    for u in range(t + 1, len(h.tricks)):
                        other = h.tricks[u]
                        for q, p in enumerate(other.plays):
                            if p.player == tr.plays[pos].player and p.player is not None and \
                                    suit_of(p.card) not in (led, trump):
                                candidates.append((i, t, pos, u, q))
        rng.shuffle(candidates)
        for i, t, pos, u, q in candidates[:50]:
            h = hands[i]
            tricks = list(h.tricks)
            a, b = tricks[t].plays[pos], tricks[u].plays[q]
            pa = list(tricks[t].plays)
            pb = list(tricks[u].plays)
            pa[pos], pb[q] = replace(a, card=b.card), replace(b, card=a.card)
            tricks[t] = replace(tricks[t], plays=tuple(pa))
            tricks[u] = replace(tricks[u], plays=tuple(pb))
            trial = hands[:i] + [replace(h, tricks=tuple(tricks))]
            g = replace(game, hands=tuple(trial), winner=None)
            res = audit_games([g])[0]
            mine = [f for f in res.findings if f.hand == h.number]
            codes = [f.code for f in mine]
            if codes.count("R501") != 1 or set(codes) - {"R501", "R503", "S601", "S602"}:
                continue
            # the revoke must be the swapped card's: a swap that changes a trick's taker can move the
            # seats of a short-form record, and with them who appears to revoke
            if not any(f.code == "R501" and f.subject == a.player and f.trick == t + 1 for f in mine):
                continue
            # rewrite this hand's sheet with the penalty applied, then replay the rest
            hs = res.hands[-1]
            new = replace(trial[-1], score=ScoreLine("score", tuple(ScoreEntry(k, v) for k, v in hs.score.items())),
                          total=ScoreLine("total", tuple(ScoreEntry(k, v) for k, v in hs.total.items())))
            rest = _rescore(replace(game, hands=tuple(hands[:i] + [new] + hands[i + 1:]), winner=None))
            res2 = audit_games([rest])[0]
            if [f.code for f in res2.findings] != ["R501", "R503"]:
                continue
            return rest, {"code": "R501", "hand": h.number, "player": a.player, "trick": t + 1}
        return None
    raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")


def _rescore(game: Game) -> Game:
    """Rewrite every score and total line (and the winner, and drop hands after it) from the engine."""
    res = audit_games([game])[0]
    hands = []
    for h, hs in zip(game.hands, res.hands):
        hands.append(replace(h, score=ScoreLine("score", tuple(ScoreEntry(k, v) for k, v in hs.score.items())),
                             total=ScoreLine("total", tuple(ScoreEntry(k, v) for k, v in hs.total.items()))))
        if hs.went_out:
            return replace(game, hands=tuple(hands), winner=Named(hs.went_out))
    return replace(game, hands=tuple(hands), winner=None)


def simulate(preset: str, games: int = 10, seed: int = 0, players: int | None = None,
             faults: tuple[str, ...] = (), rules_text: str = "") -> tuple[str, list[dict]]:
    """Games as notation text, and the answer key: the findings the faults must cause.

    One fault of each named kind is injected into each game where a place for it fits; the order
    of ``faults`` does not matter.
    """
    rules = resolve_rules(None, f"{preset} {rules_text}".strip())
    rng = random.Random(seed)
    lo, hi = rules.players
    n = players or (4 if lo <= 4 <= hi else lo)
    if not lo <= n <= hi:
        raise ValueError(f"{preset} is for {lo}-{hi} players, not {n}")
    if rules.partnership and n not in (4, 6):
        raise ValueError(f"{preset} is played in teams of two: 4 or 6 players, not {n}")
    # faults go in in FAULTS order, whatever the caller's: a revoke rewrites the sheet from the engine,
    # which would undo a score, total or winner slip made before it (or cut the game before its hand)
    faults = tuple(sorted(faults, key=lambda f: FAULTS.index(f) if f in FAULTS else len(FAULTS)))
    out: list[Game] = []
    injected: list[tuple[int, dict]] = []
    for gi in range(games):
        names = list(NAMES[:n])
        g = simulate_game(rules, names, f"sim-{preset}-{seed}-{gi + 1}", rng)
        for fault in faults:
            done = _inject(g, fault, rules, rng)
            if done is not None:
                g, what = done
                injected.append((gi, what))
        out.append(g)
    text = write_games(out)
    parsed, _ = parse_text(text, "simulated")
    key = []
    for gi, what in injected:
        g = parsed[gi]
        line = 0
        if what["code"] == "S603":
            line = g.winner.line if g.winner else 0
        else:
            h = next(h for h in g.hands if h.number == what["hand"])
            line = {"S601": h.score.line if h.score else 0, "S602": h.total.line if h.total else 0,
                    "R501": h.tricks[what.get("trick", 1) - 1].line if h.tricks else 0}[what["code"]]
        key.append({"game": g.name, "line": line, **what})
    return text, key


def answer_key_findings(key: list[dict]) -> set[tuple]:
    """The answer key as (game, code, line, player) tuples, for comparison with an audit.

    Each revoke (R501) comes with its R503, what it cost the innocent side, on the same line.
    """
    out = {(k["game"], k["code"], k["line"], k["player"]) for k in key}
    return out | {(k["game"], "R503", k["line"], k["player"]) for k in key if k["code"] == "R501"}


def finding_tuple(f: Finding) -> tuple:
    """A finding as the tuple :func:`answer_key_findings` compares with."""
    return (f.game, f.code, f.line, f.subject)
