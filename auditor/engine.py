"""Replay and scoring: re-execute every hand of a game and recompute its score.

The work falls in three passes:

1. :func:`prepare_hand` walks one hand's record (a few dozen statements): dealer
   rotation, the auction, who sits where in each trick, deal integrity.  Its output
   is a row of small integers.
2. :func:`play_batch` takes those rows for a whole batch of hands as NumPy arrays
   (``cards[B, T, P]``, ``seats[B, T, P]``; cards are small integers, holdings are
   ``uint64`` bit masks) and computes trick winners, revokes, and who owns High,
   Low, Jack and Game, for every hand at once.  One hand in the terminal and a
   million on a server go through the same code.
3. :func:`score_game` applies the contract, smudge and revoke penalties, keeps the
   running totals, decides who went out, and compares everything with the sheet.

Every verdict is a :class:`~auditor.notation.Finding` whose message says which rule,
what the record shows and what was expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .cards import (CARD_COUNT, CARD_NAMES, JOKER_HIGH, JOKER_LOW, SUITS, cards_of, effective_suit, effective_suit_mask,
                    off_jack, parse_card, rank_of, suit_name, suit_of, trump_strength)  # noqa: F401 (doctests)
from .notation import Finding, Game, Hand
from .rules import Rules, RulesError, bid_number, parse_rules, with_overrides

MAX_TRICKS = 8
PITCH_VALUE = 4  # pitching=on: a pitch in place of a bid is worth four
MAX_SEATS = 8
POINTS = ("High", "Low", "Jack", "Game")
_CARD_COUNT = np.array(CARD_COUNT + (0,), dtype=np.int16)  # index -1 (padding) counts 0


@lru_cache(maxsize=256)
def resolve_rules(tag: str | None, override: str = "") -> Rules:
    """The rule set of a game: its ``Rules`` tag, then the run's ``--rules`` overrides.

    ``override`` may be a preset name (replacing the tag's) followed by ``key=value`` words.
    """
    words = override.split()
    if words and "=" not in words[0]:
        base = parse_rules(override)
    else:
        if not tag:
            raise RulesError("no Rules tag")
        base = with_overrides(parse_rules(tag), override)
    return base


# --------------------------------------------------------------------------- pass 1


@dataclass
class PreparedHand:
    """One hand's record reduced to small integers, plus what pass 1 found."""

    game: str
    number: int
    line: int
    dealer: int = -1
    pitcher: int = -1  # seat that won the auction (or must pitch); -1 none
    contract: int = 0  # bid the pitcher must make; 0 = no contract
    high_bid: int = 0  # highest bid made in the hand
    top_bid: bool = False  # the contract is the preset's top bid (smudge)
    bid_of: dict[int, int] = field(default_factory=dict)  # seat -> value of its (valid) bid
    seat_names: list[str] = field(default_factory=list)
    written_dealer: int = -1
    seller: int = -1  # sell: the eldest hand who sold
    sale: int = 0  # points the seller scores at once
    thrown_in: bool = False
    misdeal: bool = False
    trump: int = -1
    cards: list[list[int]] = field(default_factory=list)  # per trick, play order
    seats: list[list[int]] = field(default_factory=list)
    trick_lines: list[int] = field(default_factory=list)
    play_cols: list[list[int]] = field(default_factory=list)
    dealt: list[int] = field(default_factory=list)  # bit mask per seat, 0 = not recorded
    exchanged: bool = False  # ``dealt`` holds the hands after a discard and draw
    takeover: bool = False  # pitching: the dealer took over a pitch
    pitch_suits: dict[int, int] = field(default_factory=dict)  # pitching: seat -> suit written with its pitch
    pitched_by: int = -1  # pitching: the seat whose pitch only the dealer could take over
    playable: bool = True  # complete and consistent enough to recompute the score
    findings: list[Finding] = field(default_factory=list)
    # seat -> (cards played in tricks before t, cards played in tricks t and later), per trick t
    held_masks: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict, repr=False)


class _Seats:
    """Seat numbers and sides (players or teams) of one game."""

    def __init__(self, game: Game, rules: Rules):
        self.names = list(game.players)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.n = len(self.names)
        teams = game.teams if rules.partnership else {}
        if teams:
            self.side_names = list(teams)
            member_side = {p: i for i, (_, ps) in enumerate(teams.items()) for p in ps}
            self.side_of = [member_side.get(p, -1) for p in self.names]
        else:
            self.side_names = list(self.names)
            self.side_of = list(range(self.n))
        self.side_index = {n: i for i, n in enumerate(self.side_names)}

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < self.n else "nobody"

    def side(self, seat: int) -> int:
        return self.side_of[seat] if 0 <= seat < self.n else -1


def check_game_shape(game: Game, rules: Rules) -> list[Finding]:
    """Players and Teams against the rule set (E107), and options this version cannot audit (E105)."""
    out = []
    lines = {t.name: t.line for t in reversed(game.tags)}

    def find(code: str, msg: str, tag: str) -> None:
        out.append(Finding(code, msg, game.source, lines.get(tag, game.line), 1, game.name))

    n = len(game.players)
    lo, hi = rules.players
    if n and not lo <= n <= hi:
        find("E107", f"{n} players seated, but {rules.preset} is for "
             + (f"{lo}-{hi} players" if lo != hi else f"{lo}"), "Players")
    if rules.partnership:
        teams = game.teams
        members = [p for ps in teams.values() for p in ps]
        if not teams:
            find("E107", "a partnership game needs a Teams tag, e.g. [Teams \"NS: Ann Cal; EW: Bob Dee\"]", "Rules")
        elif sorted(members) != sorted(game.players):
            find("E107", "the Teams tag must place every seated player in exactly one team", "Teams")
        elif any(len(ps) != 2 for ps in teams.values()) or len(teams) < 2:
            find("E107", "partnership teams are pairs, two or three of them: "
                 + "; ".join(f"{t} has {len(ps)}" for t, ps in teams.items()), "Teams")
        else:
            seat = {p: i for i, p in enumerate(game.players)}
            bad = [name for name, ps in teams.items()
                   if any((seat[b] - seat[a]) % len(teams) for a, b in zip(ps, ps[1:]))]
            if bad:
                find("E107", f"partners must sit opposite each other (alternate seats): "
                     f"{'; '.join(f'{t}: {chr(32).join(teams[t])}' for t in bad)} do not, in seat order "
                     f"{' '.join(game.players)}", "Teams")
    for u in rules.unsupported():
        find("E105", f"rule option {u} is not supported by this version of the auditor: the game is parsed and "
             "stored but not audited", "Rules")
    return out


def _auction(h: Hand, seats: _Seats, rules: Rules, dealer: int, prep: PreparedHand, game: Game) -> None:
    """Check the auction; set pitcher, contract, high bid and sale on ``prep``."""
    def find(code: str, msg: str, col: int = 1, subject: str | None = None, **kw) -> None:
        prep.findings.append(Finding(code, msg, game.source, h.bids.line if h.bids else h.line, col, game.name,
                                     h.number, None, subject, **kw))

    n = seats.n
    eldest = (dealer + 1) % n
    if rules.auction == "sell":
        order = [(eldest + 1 + i) % n for i in range(n - 1)]  # eldest's left round to the dealer
    else:
        order = [(dealer + 1 + i) % n for i in range(n)]
    bids = list(h.bids.bids) if h.bids else []
    final_word = None
    if rules.auction == "sell" and bids and (bids[-1].word in ("sells", "keeps") or (
            bids[-1].word == "pass" and seats.index.get(bids[-1].player) == eldest)):
        final_word = bids.pop()
        if seats.index.get(final_word.player) != eldest:
            find("A308", f"the last word of a selling auction belongs to the eldest hand "
                 f"{seats.name(eldest)}, not {final_word.player}", final_word.column, final_word.player)
    spoken: set[int] = set()
    first_time = []  # bids of players speaking for the first time, in order
    for b in bids:
        seat = seats.index.get(b.player, -1)
        if seat in spoken:
            find("A302", f"{b.player} bids twice in one auction (each player speaks once)", b.column, b.player)
            continue
        spoken.add(seat)
        first_time.append((seat, b))
    j = 0
    missing: list[int] = []
    for seat, b in first_time:
        while j < len(order) and order[j] != seat and order[j] not in spoken:
            missing.append(order[j])
            j += 1
        if j < len(order) and order[j] == seat:
            j += 1
            continue
        exp = seats.name(order[j]) if j < len(order) else "nobody (everyone has spoken)"
        who = " ".join(seats.name(x) for x in order)
        find("A301", f"{b.player} bids out of turn: expected {exp} (order from the "
             f"{'eldest hand' if rules.auction == 'sell' else 'dealer'}'s left: {who})", b.column, b.player,
             expected=exp, recorded=b.player)
        break
    else:
        missing += [x for x in order[j:] if x not in spoken]
    if h.bids and missing and not h.bids.unreadable:  # a bid that could not be read is already an E1xx
        names = ", ".join(seats.name(x) for x in missing)
        find("A301", f"the auction is missing {names}: every player speaks once, passes included", 1,
             seats.name(missing[0]), expected=names, recorded="nothing")
    high, high_seat = 0, -1
    pitched = -1  # pitching: the seat whose pitch stands (only the dealer may take over)
    out_of_range: list[tuple[int, int]] = []  # (seat, number) of numeric bids outside the range
    for seat, b in first_time:
        if b.word == "pass":
            continue
        if b.word in ("sells", "keeps"):
            find("A308", f"{b.player} says {b.word!r}, which only the eldest hand says, last, in a selling auction",
                 b.column, b.player)
            continue
        is_pitch = b.word.split()[0] == "pitch"
        if is_pitch and not rules.pitching:
            find("A304", f"{b.player} pitches in the auction, but {rules.preset} has no pitching (pitching=off)",
                 b.column, b.player, expected=f"{rules.min_bid}-{rules.top_bid}", recorded=b.word)
            out_of_range.append((seat, PITCH_VALUE))
            continue
        value = PITCH_VALUE if is_pitch else rules.bid_value(b.word)
        if is_pitch and len(b.word) > 6:
            prep.pitch_suits[seat] = SUITS.index(b.word[-1])
        if value is not None and rules.min_bid <= value <= rules.top_bid:
            prep.bid_of[seat] = value  # a bid in range: the table may have let it stand (judged as played)
        if pitched >= 0 and value is not None:
            if seat != dealer:
                find("A309", f"{b.player} bids after {seats.name(pitched)}'s pitch: then only the dealer "
                     f"{seats.name(dealer)} may take over", b.column, b.player, expected="pass", recorded=b.word)
                continue
            same = is_pitch and prep.pitch_suits.get(seat, -1) >= 0 and \
                prep.pitch_suits.get(seat) == prep.pitch_suits.get(pitched)
            if (is_pitch and same) or (not is_pitch and value != rules.top_bid):
                find("A309", f"the dealer {b.player} takes over {seats.name(pitched)}'s pitch with {b.word!r}: a "
                     "takeover is a pitch in a new suit or a smudge", b.column, b.player,
                     expected="pitch in another suit, or smudge", recorded=b.word)
                continue
            prep.takeover = True
            high, high_seat = value, seat
            continue
        if is_pitch and value <= high:
            find("A303", f"{b.player} pitches (worth {value}) over a standing bid of {high} by "
                 f"{seats.name(high_seat)}: a pitch must beat the standing bid", b.column, b.player,
                 expected=f"a standing bid below {value}", recorded=b.word)
            continue
        if is_pitch:
            pitched = prep.pitched_by = seat if seat != dealer else -1
        if value is None or not rules.min_bid <= value <= rules.top_bid:
            words = f", {'/'.join(rules.top_bid_words)}" if rules.top_bid_words else ""
            find("A304", f"{b.player} bids {b.word!r}: {rules.preset} bids run from {rules.min_bid} to "
                 f"{rules.top_bid}{words}", b.column, b.player, expected=f"{rules.min_bid}-{rules.top_bid}",
                 recorded=b.word)
            number = bid_number(b.word)
            if number:
                out_of_range.append((seat, number))
            continue
        is_dealer = seat == dealer and rules.auction != "sell"
        if value > high:
            high, high_seat = value, seat
        elif value == high and is_dealer:
            if not rules.dealer_steal:
                find("A305", f"the dealer {b.player} equals the high bid {high}: {rules.preset} does not let the "
                     "dealer steal (the dealer must bid higher)", b.column, b.player,
                     expected=f"more than {high}", recorded=str(value))
            elif value == rules.top_bid and not rules.steal_smudge:
                find("A305", f"the dealer {b.player} equals a {b.word if b.word.isalpha() else 'top bid'} of "
                     f"{high}: in {rules.preset} a smudge cannot be stolen", b.column, b.player,
                     expected="pass", recorded=str(value))
            else:
                high_seat = seat
        else:
            find("A303", f"{b.player} bids {value}, not higher than the standing bid of {high} by "
                 f"{seats.name(high_seat)}", b.column, b.player, expected=f"more than {high}", recorded=str(value))
    if high_seat < 0 and out_of_range and rules.auction != "sell":
        # nobody made a bid in range, but someone bid a number (already an A304): the table let it stand
        high_seat, high = max(out_of_range, key=lambda sv: (sv[1], sv[0] == dealer))
        prep.bid_of[high_seat] = high
    prep.high_bid = high
    has_tricks = bool(h.tricks)
    if rules.auction == "sell":
        word = final_word.word if final_word else None
        if high_seat >= 0:
            if word == "sells":
                prep.seller, prep.sale = eldest, high
                prep.pitcher = high_seat
                prep.contract = high if rules.sold_contract else 0
            elif word == "keeps":
                prep.pitcher, prep.contract = eldest, high
            else:
                find("A308", f"the eldest hand {seats.name(eldest)} must end a selling auction with `sells` or "
                     "`keeps`", 1, seats.name(eldest))
                prep.pitcher, prep.contract = high_seat, high
        else:
            if word == "sells":
                find("A308", f"{seats.name(eldest)} sells, but nobody bid: with no bid the eldest hand pitches",
                     final_word.column, seats.name(eldest))
            prep.pitcher, prep.contract = eldest, 0
    elif high_seat >= 0:
        prep.pitcher, prep.contract = high_seat, high
    elif h.bids:  # everybody passed
        if rules.all_pass == "redeal":
            prep.thrown_in = True
            if has_tricks:
                find("A306", f"everybody passed: under {rules.preset} the hand is thrown in and the same dealer "
                     "deals again, but the record plays it")
                prep.thrown_in = False
                prep.pitcher = -1
        elif rules.all_pass == "dealer-bids":
            said = next((b.word for seat, b in first_time if seat == dealer), "pass")
            if said == "pass":
                find("A306", f"everybody passed, including the dealer {seats.name(dealer)}: under {rules.preset} "
                     f"the dealer must then bid at least {rules.min_bid}", 1, seats.name(dealer))
                prep.pitcher, prep.contract = dealer, 0
                prep.thrown_in = not has_tricks  # the table threw it in: one mistake, reported once
            else:  # the forced dealer bid out of range (already an A304): the bid as written stands
                prep.pitcher, prep.contract = dealer, int(said) if said.isdigit() else 0
        else:
            prep.pitcher, prep.contract = eldest, 0
    if not has_tricks and h.bids and not prep.thrown_in and not h.misdeal:
        if high_seat < 0 and rules.all_pass == "eldest-pitches":
            find("A306", f"everybody passed and the hand was thrown in, but under {rules.preset} the eldest hand "
                 "pitches with no contract")
            prep.thrown_in = True
    prep.top_bid = prep.contract == rules.top_bid and rules.smudge != "none"


def prepare_hand(h: Hand, game: Game, seats: _Seats, rules: Rules, expected: Sequence[int]) -> PreparedHand:
    """Pass 1 for one hand: dealer, auction, seats in every trick, deal integrity.

    ``expected`` lists the dealers the rotation allows, the likeliest first (empty: any).
    """
    prep = PreparedHand(game.name, h.number, h.line, seat_names=seats.names)
    src = game.source

    def find(code, msg, line, col=1, trick=None, subject=None, **kw):
        prep.findings.append(Finding(code, msg, src, line, col, game.name, h.number, trick, subject, **kw))

    n = seats.n
    if h.dealer is None:
        find("E108", "the hand has no `dealer` line", h.line)
        dealer = expected[0] if expected else 0
    else:
        dealer = prep.written_dealer = seats.index.get(h.dealer.name, 0)
        if expected and dealer not in expected:
            right = expected[0]
            find("D205", f"{h.dealer.name} deals, but the deal passes clockwise: {seats.name(right)} "
                 "should deal this hand", h.dealer.line, h.dealer.column, subject=h.dealer.name,
                 expected=seats.name(right), recorded=h.dealer.name)
            # if the auction was spoken in the rightful dealer's order, the dealer line is the slip
            first = (right + (2 if rules.auction == "sell" else 1)) % n
            if h.bids and h.bids.bids and seats.index.get(h.bids.bids[0].player) == first:
                dealer = right
    prep.dealer = dealer
    if h.misdeal:
        prep.misdeal = True
        prep.playable = False
        return prep
    if h.bids is None:
        find("E108", "the hand has no `bids` line", h.line)
    _auction(h, seats, rules, dealer, prep, game)
    if prep.thrown_in:
        prep.playable = False
        return prep

    # deal integrity
    seen: dict[int, str] = {}
    prep.dealt = [0] * n
    deal_size = rules.deal_size_for(n)
    deck = "54-card" if rules.ten_point else "52-card"

    def take(c: int, who: str, line: int, col: int, what: str) -> None:
        if c >= JOKER_HIGH and not rules.ten_point:
            find("D203", f"{CARD_NAMES[c]} is not in the {deck} deck of {rules.preset}", line, col, subject=who)
            seen[c] = who  # reported once, here
        elif c in seen:
            find("D201", f"{CARD_NAMES[c]} is {what} twice (to {seen[c]} and to {who})", line, col, subject=who)
        else:
            seen[c] = who

    if h.deal:
        for hold in h.deal.holdings:
            seat = seats.index[hold.player]
            if prep.dealt[seat]:
                find("D201", f"{hold.player} is dealt twice in one deal line", h.deal.line, hold.column,
                     subject=hold.player)
            for c, col in zip(hold.cards, hold.columns or [hold.column] * len(hold.cards)):
                take(c, hold.player, h.deal.line, col, "dealt")
                prep.dealt[seat] |= 1 << c
            if hold.player in h.deal.unreadable:
                prep.dealt[seat] = 0  # part of this holding could not be read: judge the plays alone
                continue
            if len(hold.cards) != deal_size:
                find("D202", f"{hold.player} is dealt {len(hold.cards)} cards; {rules.preset} deals "
                     f"{deal_size}" + (f" with {n} players" if rules.deal_size[1] else ""), h.deal.line,
                     hold.column, subject=hold.player, expected=str(deal_size), recorded=str(len(hold.cards)))
        missing = [seats.name(s) for s in range(n) if not prep.dealt[s] and seats.name(s) not in
                   {x.player for x in h.deal.holdings}]
        if missing and not h.deal.incomplete:
            find("D202", f"the deal line gives no cards to {', '.join(missing)}", h.deal.line, 1, subject=missing[0])
    if h.widow:
        for c, col in zip(h.widow.cards, h.widow.columns or [1] * len(h.widow.cards)):
            take(c, "the widow", h.widow.line, col, "dealt")
        stock = (54 if rules.ten_point else 52) - n * deal_size
        if stock >= 0 and len(h.widow.cards) != stock and rules.has_exchange(n):
            find("D202", f"the widow holds {len(h.widow.cards)} cards; after dealing {deal_size} to each of {n} "
                 f"players the {deck} deck leaves {stock}", h.widow.line, 1, expected=str(stock),
                 recorded=str(len(h.widow.cards)))

    # tricks: seats, order, leaders, winners
    if not h.tricks:
        find("P406", f"the hand is not played out: no tricks recorded, {rules.hand_size} expected", h.line)
        prep.playable = False
        return prep
    tricks = list(h.tricks)
    numbers = [t.number for t in tricks]
    if sorted(numbers) == list(range(1, len(tricks) + 1)) and numbers != sorted(numbers):
        at = next(t for t, k in zip(tricks, range(1, len(tricks) + 1)) if t.number != k)
        find("P406", f"tricks are written out of order ({' '.join(map(str, numbers))}): replayed in number order",
             at.line, at.column, trick=at.number)
        tricks.sort(key=lambda t: t.number)
    first = tricks[0]
    tp = rules.ten_point
    lead = first.plays[0].card if first.plays else -1
    free_first = rules.first_trick_trump == "free"
    if free_first:
        if h.trump is None:
            find("P404", "with first_trick_trump=free the trump suit must be named on a `trump` line; "
                 "taking the first card led", h.line)
            prep.trump = suit_of(lead) if 0 <= lead < JOKER_HIGH else -1
            prep.playable = prep.playable and prep.trump >= 0  # a joker names no trump: nothing to score by
        else:
            prep.trump = h.trump.suit
    elif lead >= 0:
        named = h.trump.suit if h.trump is not None else -1
        # where the discard was made after trump was named, the named trump stands whatever is led
        named_first = named >= 0 and rules.has_exchange(n) and bool(h.exchanges)
        prep.trump = named if named >= 0 and (named_first or effective_suit(lead, named, tp) == named) \
            else suit_of(lead)
        if named_first and effective_suit(lead, named, tp) != named:
            find("P404", f"the first card led, {CARD_NAMES[lead]}, is not a trump: {suit_name(named)} was named "
                 "on the trump line before the discard, and the pitcher leads a trump", first.line,
                 first.plays[0].column, trick=1, expected="a trump", recorded=CARD_NAMES[lead])
        elif named >= 0 and prep.trump != named:
            what = "names no suit" if lead >= JOKER_HIGH else f"names {suit_name(suit_of(lead))}"
            find("P404", f"the trump line says {suit_name(named)}, but the first card led, {CARD_NAMES[lead]}, "
                 f"{what}", h.trump.line, h.trump.column, expected=SUITS[suit_of(lead)] if lead < 52 else "a trump",
                 recorded=SUITS[named])
        if prep.trump > 3:
            if named < 0:
                find("P404", f"the first card led is {CARD_NAMES[lead]}, which names no suit: trump must be named on "
                     "a `trump` line", first.line, first.plays[0].column, trick=1)
            prep.trump = -1
            prep.playable = False
    trump_mask = effective_suit_mask(prep.trump, prep.trump, tp) if prep.trump >= 0 else 0
    if rules.has_exchange(n):
        _exchange(h, seats, rules, prep, seen, find, trump_mask)
    elif h.exchanges:
        find("E108", "discard and draw lines belong to variants with a discard or a draw (draw=on, or a deal "
             "larger than hand_size): not applied", h.exchanges[0].line)
    # trumps_only: who still holds a trump, where the hands after the discard are known
    trumps_left = [(m & trump_mask).bit_count() if m else -1 for m in prep.dealt] if rules.trumps_only else []
    for t in tricks if trumps_left else ():
        for p in t.plays:  # a hand the plays contradict (D204 below) is judged from its plays instead
            s = seats.index.get(p.player, -1) if p.player else -1
            if s >= 0 and prep.dealt[s] and not (prep.dealt[s] >> p.card) & 1:
                for o in range(n):  # the player's hand, and the one the record put the card in
                    if o == s or (prep.dealt[o] >> p.card) & 1:
                        trumps_left[o] = -1
    seats_in_trick = [{seats.index[p.player] for p in t.plays if p.player} for t in tricks]
    played_at: dict[int, tuple[int, int]] = {}
    leader = last_winner = prep.pitcher
    count_by_seat = [0] * n
    for ti, t in enumerate(tricks):
        found_before = len(prep.findings)  # this trick's findings are the ones after
        if t.number != ti + 1:
            find("P406", f"trick {t.number} where trick {ti + 1} was expected", t.line, t.column, trick=t.number,
                 expected=str(ti + 1), recorded=str(t.number))
            prep.playable = False
        plays = t.plays
        if not plays:
            prep.playable = False
            continue
        if rules.trumps_only:
            # still in: holding a trump (hands known), or playing in this trick or a later one (unknown)
            in_play = [s for s in range(n) if trumps_left[s] > 0 or (trumps_left[s] < 0 and any(
                s in later for later in seats_in_trick[ti:]))]
        else:
            in_play = list(range(n))
        if rules.trumps_only and leader >= 0 and leader not in in_play and in_play:
            # the winner has no trump left: the lead passes to the next player on the left still in
            leader = min(in_play, key=lambda s: (s - leader) % n)
        owner_of_first = next((o for o in range(n) if prep.dealt and (prep.dealt[o] >> plays[0].card) & 1), -1)
        if t.short and rules.trumps_only and len(plays) < n and any(x < 0 for x in trumps_left):
            find("P402", f"trick {t.number} has {len(plays)} cards for {n} players in the short form: with drop-outs "
                 "and no deal line, write NAME:CARD so that the record says who played", t.line, t.column, t.number,
                 expected="the long form", recorded="the short form")
            prep.playable = False
        if t.short:
            # seats follow the leader; the first trick's leader is whoever the deal gave the card led
            start = owner_of_first if ti == 0 and owner_of_first >= 0 else leader
            if start < 0:
                start = (dealer + 1) % n
            ring = sorted(in_play or range(n), key=lambda s: (s - start) % n)
            row_seats = [ring[i % len(ring)] for i in range(len(plays))]
        else:
            # a trick mixing both forms (already an E101) takes its unnamed seats from the position
            first = seats.index[plays[0].player] if plays[0].player else (leader if leader >= 0 else 0)
            row_seats = [seats.index[p.player] if p.player else (first + i) % n for i, p in enumerate(plays)]
        who = seats.name(row_seats[0])
        # only the first trick asks (searched once, not once a trick: a hand of 4,000 tricks stays linear)
        auction_faulted = ti == 0 and any(f.code.startswith("A") for f in prep.findings)
        if ti == 0 and leader != row_seats[0] and h.bids is not None and h.bids.unreadable:
            # part of the auction could not be read: the first leader pitched, for a contract we may not know
            leader = prep.pitcher = row_seats[0]
            prep.contract = prep.bid_of.get(leader, 0)
            prep.playable = leader in prep.bid_of
        if ti == 0 and leader != row_seats[0] and auction_faulted and row_seats[0] in prep.bid_of:
            # the table let a faulty auction stand: judge the hand as played, one mistake one finding
            leader = prep.pitcher = row_seats[0]
            prep.contract = prep.bid_of[leader]
            prep.top_bid = prep.contract == rules.top_bid and rules.smudge != "none"
            prep.takeover = leader == dealer and 0 <= prep.pitched_by != dealer  # the dealer over a pitch
        if leader >= 0 and row_seats[0] != leader and not t.unreadable:
            if ti == 0:
                if prep.contract > 0 or prep.seller >= 0:
                    bids_line = h.bids.line if h.bids else t.line
                    find("A307", f"{who} leads the first trick, but the auction's winner is "
                         f"{seats.name(leader)}, who pitches", bids_line, 1, None, who,
                         expected=seats.name(leader), recorded=who)
                else:
                    find("P403", f"{who} leads the first trick, but the pitcher is "
                         f"{seats.name(leader)} (nobody bid, so {seats.name(leader)} must pitch)", t.line,
                         plays[0].column, 1, who, expected=seats.name(leader), recorded=who)
            else:
                why = (f"{seats.name(leader)} won trick {t.number - 1} and leads next" if leader == last_winner else
                       f"{seats.name(leader)} leads it: {seats.name(last_winner)} won trick {t.number - 1} and holds "
                       "no trump, so the lead passes left")
                find("P401", f"{who} leads trick {t.number}, but {why}", t.line, plays[0].column,
                     t.number, who, expected=seats.name(leader), recorded=who)
        absent: list[int] = []
        if rules.trumps_only:
            # each player still holding a trump plays one, clockwise; a card from a player who is out is P407's
            present = [s for s in row_seats if s in in_play]
            start = present[0] if present else row_seats[0]
            expected_order = sorted(in_play, key=lambda s: (s - start) % n)
            absent = [s for s in expected_order if s not in row_seats]
            if absent and not t.unreadable:
                names = ", ".join(seats.name(s) for s in absent)
                find("P402", f"trick {t.number}: {names} still hold{'s' if len(absent) == 1 else ''} a trump and "
                     "must play one (only players without a trump drop out)", t.line, t.column, t.number,
                     seats.name(absent[0]), expected=f"a card from {names}", recorded="none")
                prep.playable = False
            elif not t.short and not t.unreadable and present != expected_order:
                bad = next(i for i, s in enumerate(present) if i >= len(expected_order) or s != expected_order[i])
                at = row_seats.index(present[bad], bad if present[bad] in row_seats[:bad] else 0)
                who_bad = seats.name(present[bad])
                exp_seat = seats.name(expected_order[bad]) if bad < len(expected_order) else "nobody"
                what = (f"{who_bad} plays twice" if present[bad] in present[:bad] else
                        f"{who_bad} plays where {exp_seat} should")
                find("P402", f"trick {t.number}: {what} (play goes clockwise from the leader, among the players "
                     "still holding a trump)", t.line, plays[at].column, t.number, who_bad,
                     expected=exp_seat, recorded=who_bad)
                prep.playable = False
        else:
            expected_order = [(row_seats[0] + i) % n for i in range(n)]
            if not t.short and not t.unreadable and row_seats != expected_order[: len(row_seats)]:
                bad = next(i for i, s in enumerate(row_seats) if i >= n or s != expected_order[i])
                exp_seat = seats.name(expected_order[bad]) if bad < n else "nobody (every player has played)"
                who_bad = seats.name(row_seats[bad])  # a bare card of a mixed trick has no name written
                what = (f"{who_bad} plays twice" if row_seats[bad] in row_seats[:bad]
                        else f"{who_bad} plays where {exp_seat} should")
                find("P402", f"trick {t.number}: {what} (play goes clockwise from the leader)", t.line,
                     plays[bad].column, t.number, who_bad, expected=exp_seat, recorded=who_bad)
                prep.playable = False
            if not t.unreadable and len(plays) != n and not any(f.code == "P402" and f.trick == t.number
                                                                for f in prep.findings[found_before:]):
                find("P402", f"trick {t.number} has {len(plays)} cards; with {n} players it needs {n}", t.line,
                     t.column, t.number, expected=str(n), recorded=str(len(plays)))
                prep.playable = False
        if t.unreadable:
            prep.playable = False  # an unreadable card (E103): the hand cannot be recomputed, say no more
        cards = [p.card for p in plays]
        set_aside: list[int] = []  # cards from players who have dropped out (P407): they take no part
        for pos, (p, c, s) in enumerate(zip(plays, cards, row_seats)):
            if c >= JOKER_HIGH and not tp:
                if seen.get(c) is None:  # not already reported on the deal line
                    find("D203", f"{CARD_NAMES[c]} is not in the 52-card deck of {rules.preset}", t.line, p.column,
                         t.number, seats.name(s))
                prep.playable = False
            elif c in played_at:
                where = played_at[c]
                find("D201", f"{CARD_NAMES[c]} is played twice (first in trick {where[0]})", t.line, p.column,
                     t.number, seats.name(s))
                prep.playable = False
            else:
                played_at[c] = (t.number, s)
                if prep.dealt and prep.dealt[s] and not (prep.dealt[s] >> c) & 1:
                    owner = next((seats.name(o) for o in range(n) if (prep.dealt[o] >> c) & 1), None)
                    gave = "the discard left with" if prep.exchanged else "the deal gave to"
                    find("D204", f"{seats.name(s)} plays {CARD_NAMES[c]}, which {gave} {owner or 'nobody'}",
                         t.line, p.column, t.number, seats.name(s),
                         expected=f"a card dealt to {seats.name(s)}", recorded=CARD_NAMES[c])
                if rules.trumps_only and prep.trump >= 0 and not (trump_mask >> c) & 1 and s < n:
                    later = [q.card for u in tricks[ti:] for q in u.plays if q.player == seats.name(s)]
                    holds = trumps_left[s] > 0 if trumps_left[s] >= 0 else any((trump_mask >> x) & 1 for x in later)
                    if not holds:  # holding a trump, it is a revoke (R501); without one, the player is out
                        find("P407", f"{seats.name(s)} plays {CARD_NAMES[c]} to trick {t.number} holding no trump: "
                             "only trumps may be played, and a player without one drops out of the hand's play "
                             "(the card is set aside: it takes no trick and counts for nothing)",
                             t.line, p.column, t.number, seats.name(s), expected="no card (dropped out)",
                             recorded=CARD_NAMES[c])
                        set_aside.append(pos)
            if trumps_left and s < n and trumps_left[s] > 0 and (trump_mask >> c) & 1:
                trumps_left[s] -= 1
            count_by_seat[s] += 1
        cols = [p.column for p in plays]
        if set_aside:
            keep = [i for i in range(len(plays)) if i not in set_aside]
            cards, row_seats, cols = [cards[i] for i in keep], [row_seats[i] for i in keep], [cols[i] for i in keep]
        prep.cards.append(cards)
        prep.seats.append(row_seats)
        prep.trick_lines.append(t.line)
        prep.play_cols.append(cols)

        # after a broken trick (unreadable card, a card played twice, cards missing) its winner is not
        # known for sure: the next trick's record says who led
        broken = t.unreadable or bool(absent) or (not rules.trumps_only and len(plays) != n) or any(
            f.trick == t.number and f.code in ("D201", "D203") for f in prep.findings[found_before:])
        last_winner = row_seats[trick_winner_pos(cards, prep.trump, tp)] if cards else leader
        leader = -1 if broken or prep.trump < 0 else last_winner  # trump unknown: who won is unknown too
    if prep.takeover and prep.trump >= 0 and prep.pitch_suits.get(prep.pitched_by, -1) == prep.trump \
            and prep.pitcher not in prep.pitch_suits and h.bids is not None:
        find("A309", f"the dealer {seats.name(prep.pitcher)} takes over {seats.name(prep.pitched_by)}'s pitch in "
             f"{suit_name(prep.trump)}, the suit already pitched: a takeover is a pitch in a new suit or a smudge",
             h.bids.line, 1, subject=seats.name(prep.pitcher), expected="a new suit", recorded=SUITS[prep.trump])
    pitched_suit = prep.pitch_suits.get(prep.pitcher, -1)  # the pitcher as judged, after the first lead
    if pitched_suit >= 0 and prep.trump >= 0 and pitched_suit != prep.trump and \
            not any(f.code == "P404" for f in prep.findings):
        find("P404", f"{seats.name(prep.pitcher)} pitched {suit_name(pitched_suit)} on the bids line, but "
             f"trump is {suit_name(prep.trump)}", tricks[0].line, tricks[0].plays[0].column if tricks[0].plays else 1,
             trick=1, expected=SUITS[pitched_suit], recorded=SUITS[prep.trump])
    if free_first and prep.cards and prep.cards[0] and effective_suit(prep.cards[0][0], prep.trump, tp) != prep.trump:
        for pos, (c, seat) in enumerate(zip(prep.cards[0], prep.seats[0])):
            if pos and (trump_mask >> c) & 1 and held_before(prep, seat, 0) & ~trump_mask:
                find("P405", f"{seats.name(seat)} trumps the first trick with {CARD_NAMES[c]}: with "
                     "first_trick_trump=free nobody may play a trump to it (the card stands and takes the trick)",
                     prep.trick_lines[0], prep.play_cols[0][pos], 1, seats.name(seat),
                     expected="a card that is not a trump", recorded=CARD_NAMES[c])
    if rules.trumps_only:
        short = [s for s in range(n) if trumps_left and trumps_left[s] > 0]
        if len(h.tricks) > rules.hand_size:
            find("D202", f"{len(h.tricks)} tricks recorded, but each player holds {rules.hand_size} cards",
                 h.tricks[rules.hand_size].line, 1, expected=str(rules.hand_size), recorded=str(len(h.tricks)))
            prep.playable = False
        elif short and prep.playable:
            find("P406", f"the hand is not played out: {', '.join(seats.name(s) for s in short)} still "
                 f"hold{'s' if len(short) == 1 else ''} a trump after trick {len(h.tricks)}", h.tricks[-1].line, 1,
                 subject=seats.name(short[0]))
            prep.playable = False
    elif len(h.tricks) < rules.hand_size:
        find("P406", f"the hand is not played out: {len(h.tricks)} of {rules.hand_size} tricks recorded",
             h.tricks[-1].line, 1, expected=str(rules.hand_size), recorded=str(len(h.tricks)))
        prep.playable = False
    elif len(h.tricks) > rules.hand_size:
        find("D202", f"{len(h.tricks)} tricks recorded, but each player holds {rules.hand_size} cards",
             h.tricks[rules.hand_size].line, 1, expected=str(rules.hand_size), recorded=str(len(h.tricks)))
        prep.playable = False
    elif prep.playable:
        for s in range(n):
            if count_by_seat[s] != rules.hand_size:
                find("D202", f"{seats.name(s)} plays {count_by_seat[s]} cards; each holds {rules.hand_size}",
                     h.tricks[-1].line, 1, subject=seats.name(s))
                prep.playable = False
    return prep


def _exchange(h: Hand, seats: _Seats, rules: Rules, prep: PreparedHand, dealt_to: dict[int, str], find,
              trump_mask: int) -> None:
    """The discard and draw after trump is named (D206, D201): what is thrown, what is drawn, what is kept.

    A trump may be thrown only as an excess: after the discard its owner keeps exactly
    ``hand_size`` cards, all trumps.  ``draw`` refills each hand from the stock;
    ``leftover=bidder`` gives what the stock still holds to the pitcher, who discards back
    to ``hand_size``.  Holdings known from the deal line become the hands after the
    exchange, so the play is judged on those.
    """
    prep.exchanged = True
    n = seats.n
    size = rules.hand_size
    known = [bool(m) for m in prep.dealt]
    as_dealt = list(prep.dealt)
    excess_possible = rules.deal_size_for(n) > size or rules.leftover == "bidder"
    widow = [c for c, who in dealt_to.items() if who == "the widow"]
    if widow:
        stock = set(widow)
    elif n and all(known):
        deck = (1 << (54 if rules.ten_point else 52)) - 1
        stock = set(cards_of(deck & ~sum(prep.dealt)))
    else:
        stock = None
    drawn = [0] * n
    before_draw = [-1] * n  # cards held when a player's first draw began
    own_line: dict[int, int] = {}  # each player's last discard or draw line: where their hand is judged
    for x in h.exchanges:
        who = x.holding.player
        seat = seats.index[who]
        own_line[seat] = x.line
        cols = x.holding.columns or (x.holding.column,) * len(x.holding.cards)
        thrown_trumps = []
        if x.kind == "draw":
            if before_draw[seat] < 0:
                before_draw[seat] = prep.dealt[seat].bit_count()
            drawn[seat] += len(x.holding.cards)
        for c, col in zip(x.holding.cards, cols):
            card = CARD_NAMES[c]
            if x.kind == "discard":
                if known[seat] and not (prep.dealt[seat] >> c) & 1:
                    find("D206", f"{who} discards {card}, which {who} did not hold", x.line, col, subject=who,
                         expected=f"a card {who} held", recorded=card)
                elif (trump_mask >> c) & 1:
                    thrown_trumps.append((card, col))
                prep.dealt[seat] &= ~(1 << c)
            else:
                if c >= JOKER_HIGH and not rules.ten_point:
                    find("D203", f"{card} is not in the 52-card deck of {rules.preset}", x.line, col, subject=who)
                elif dealt_to.get(c, "the widow") != "the widow":
                    find("D201", f"{card} is drawn by {who}, but it was already dealt or drawn ({dealt_to[c]})",
                         x.line, col, subject=who)
                dealt_to[c] = who
                if stock is not None:
                    stock.discard(c)
                if known[seat]:
                    prep.dealt[seat] |= 1 << c
        left = prep.dealt[seat]
        if thrown_trumps and (known[seat] or not excess_possible) and \
                not (known[seat] and not left & ~trump_mask and left.bit_count() == size):
            for card, col in thrown_trumps:
                if excess_possible:
                    rule = (f"a trump may be thrown only as an excess over {size} trumps ({who} keeps "
                            f"{left.bit_count()} cards, {(left & ~trump_mask).bit_count()} of them not trumps)")
                else:
                    rule = "only non-trumps may be thrown"
                find("D206", f"{who} discards {card}, a trump: {rule}", x.line, col, subject=who,
                     expected="a card that is not a trump", recorded=card)
    last = h.exchanges[-1].line if h.exchanges else h.line
    p = prep.pitcher
    # the stock counts as run out only if the refill emptied it, not the pitcher taking the leftover
    took_leftover = rules.leftover == "bidder" and 0 <= p < n and known[p] and before_draw[p] >= 0 and \
        drawn[p] > size - before_draw[p]
    ran_out = rules.draw and stock is not None and not stock and not took_leftover
    for seat, k in enumerate(known):
        if not k:
            continue
        who = seats.name(seat)
        at = own_line.get(seat, h.deal.line if h.deal else last)
        kept = as_dealt[seat] & ~trump_mask & prep.dealt[seat]
        if rules.discard == "all-non-trumps" and kept and trump_mask:  # (trump unknown: already a P404)
            find("D206", f"{who} keeps {' '.join(CARD_NAMES[c] for c in cards_of(kept))}: after trump is named every "
                 "non-trump dealt is thrown", at, 1, subject=who, expected="no card that is not a trump",
                 recorded=" ".join(CARD_NAMES[c] for c in cards_of(kept)))
        held = prep.dealt[seat].bit_count()
        if held > size or (held < size and not ran_out):
            refill = "the dealer refills every hand to" if rules.draw else "everyone discards down to"
            find("D206", f"{who} holds {held} cards after the discard{' and draw' if rules.draw else ''}: "
                 f"{refill} {size}", at, 1, subject=who, expected=str(size), recorded=str(held))
    if rules.leftover == "bidder" and stock and prep.pitcher >= 0 and h.exchanges:
        bidder = seats.name(prep.pitcher)
        rest = " ".join(CARD_NAMES[c] for c in sorted(stock))
        when = "after the refill" if rules.draw else "after the discard"
        find("D206", f"{rest} left in the stock: {when} the leftover cards go to the bidder {bidder}",
             last, 1, subject=bidder, expected=f"{bidder} draws {rest}", recorded="not drawn")


def held_before(prep: PreparedHand, seat: int, trick: int) -> int:
    """The cards ``seat`` held as trick ``trick`` (0-based) began: still to play, or dealt and not yet played."""
    masks = prep.held_masks.get(seat)
    if masks is None:  # prefix and suffix unions, once per seat: a hand of many revokes stays linear
        played = [0] * len(prep.cards)
        for t, (cs, ss) in enumerate(zip(prep.cards, prep.seats)):
            for c, s in zip(cs, ss):
                if s == seat:
                    played[t] |= 1 << c
        before = [0] * (len(played) + 1)
        after = [0] * (len(played) + 1)
        for t, m in enumerate(played):
            before[t + 1] = before[t] | m
        for t in range(len(played) - 1, -1, -1):
            after[t] = after[t + 1] | played[t]
        masks = prep.held_masks[seat] = (before, after)
    before, after = masks
    t = min(max(trick, 0), len(before) - 1)
    dealt = prep.dealt[seat] if seat < len(prep.dealt) else 0
    return after[t] | (dealt & ~before[t])


def trick_winner_pos(cards: Sequence[int], trump: int, ten_point: bool = False) -> int:
    """Position in play order of the card that takes a trick (scalar twin of play_batch's).

    >>> trick_winner_pos([parse_card(c) for c in "KH JD AH 2C".split()], SUITS.index("H"), ten_point=True)
    2
    >>> trick_winner_pos([parse_card(c) for c in "KH JKL AH 2C".split()], SUITS.index("H"), ten_point=True)
    2
    >>> trick_winner_pos([parse_card(c) for c in "KD JKL AD 2C".split()], SUITS.index("H"), ten_point=True)
    1
    """
    led = effective_suit(cards[0], trump, ten_point)
    best, best_pos = -1, 0
    for i, c in enumerate(cards):
        strength = trump_strength(c, trump, ten_point)
        v = 100 + strength if strength >= 0 else (rank_of(c) if effective_suit(c, trump, ten_point) == led else -1)
        if v > best:
            best, best_pos = v, i
    return best_pos


# --------------------------------------------------------------------------- pass 2


@dataclass
class Batch:
    """Pass 2 results for B hands, as arrays (seat -1 means nobody)."""

    winner_seat: np.ndarray  # [B, T]
    revoke: np.ndarray  # [B, T, P] bool: this play broke the follow rule
    high_seat: np.ndarray  # [B] holder of the highest trump in play
    high_card: np.ndarray
    low_seat: np.ndarray  # [B] holder of the lowest trump in play
    low_taker: np.ndarray  # [B] taker of the trick holding it
    low_card: np.ndarray
    card_taker: np.ndarray  # [B, 54] seat that took the trick each card fell in, -1: not played
    card_trick: np.ndarray  # [B, 54] that trick's number (1-based), 0: not played
    counts: np.ndarray  # [B, S] Game count taken per seat
    tricks_won: np.ndarray  # [B, S]


#: Follow rules as numbers for play_batch.
FOLLOW_CODES = {"follow-or-trump": 0, "strict": 1, "free-when-void": 2, "trumps-only": 3}


def _trump_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per deck (52, 54) and trump (4 = not known): each card's suit in play and trump strength, and each
    suit's cards in play.  Card 54 and suit 5 are padding."""
    eff = np.full((2, 5, 55), -1, dtype=np.int8)
    strength = np.full((2, 5, 55), -1, dtype=np.int8)
    masks = np.zeros((2, 5, 6), dtype=np.uint64)
    for tp in (0, 1):
        for t in range(5):
            trump = t if t < 4 else -1
            for c in range(54):
                eff[tp, t, c] = effective_suit(c, trump, bool(tp))
                strength[tp, t, c] = trump_strength(c, trump, bool(tp))
            for s in range(4):
                masks[tp, t, s] = effective_suit_mask(s, trump, bool(tp))
    return eff, strength, masks


_EFFECTIVE_SUIT, _TRUMP_STRENGTH, _SUIT_IN_PLAY = _trump_tables()


def play_batch(cards: np.ndarray, seats: np.ndarray, trump: np.ndarray, dealt: np.ndarray,
               follow: np.ndarray, ten_point: np.ndarray | None = None) -> Batch:
    """Replay the tricks of B hands at once.

    ``cards``/``seats``: int arrays ``[B, T, P]`` in play order, -1 where empty (a
    player who dropped out leaves a trick short); ``trump``: ``[B]`` suit numbers;
    ``dealt``: ``uint64[B, S]`` masks of the hands the play starts from (0 where the
    record has no deal); ``follow``: ``[B]`` :data:`FOLLOW_CODES`; ``ten_point``:
    ``[B]`` bool, True where the 54-card deck ranks the off-jack and jokers as trumps.

    >>> c = np.array([[[12, 1, 25, 26], [9, 0, 2, 38]]])  # AS 3S AH 2D / JS 2S 4S AD: Cal kept 4S
    >>> s = np.array([[[0, 1, 2, 3], [0, 1, 2, 3]]])
    >>> b = play_batch(c, s, np.array([0]), np.zeros((1, 8), np.uint64), np.array([0]))
    >>> b.winner_seat.tolist(), b.revoke.tolist(), int(b.card_taker[0, 9]), b.counts.tolist()
    ([[0, 0]], [[[False, False, True, False], [False, False, False, False]]], 0, [[13, 0, 0, 0, 0, 0, 0, 0]])
    """
    B, T, P = cards.shape
    S = MAX_SEATS
    tp = (np.zeros(B, dtype=bool) if ten_point is None else np.asarray(ten_point, dtype=bool)).astype(np.intp)
    valid = cards >= 0
    safe = np.where(valid, cards, 0)
    cidx = np.where(valid, cards, 54).astype(np.intp)
    tr = np.where(trump >= 0, trump, 4).astype(np.intp)
    tp3, tr3 = tp[:, None, None], tr[:, None, None]
    suit = _EFFECTIVE_SUIT[tp3, tr3, cidx].astype(np.int16)
    tstrength = _TRUMP_STRENGTH[tp3, tr3, cidx].astype(np.int16)
    rank = np.where(valid, safe % 13, -1)
    led = suit[:, :, 0]
    is_trump = valid & (tstrength >= 0)
    strength = np.where(is_trump, 100 + tstrength, np.where(suit == led[:, :, None], rank, -1))
    strength = np.where(valid, strength, -2)
    win_pos = strength.argmax(axis=2)
    trick_valid = valid[:, :, 0]
    winner_seat = np.where(trick_valid, np.take_along_axis(seats, win_pos[:, :, None], axis=2)[:, :, 0], -1)

    # holdings before each trick: cards still to be played, plus cards held at the start not yet played
    bits = np.where(valid, np.left_shift(np.uint64(1), safe.astype(np.uint64)), np.uint64(0))
    seat_idx = np.where(valid, seats, S)  # padding goes to a spare column
    per_trick = np.zeros((B, T, S + 1), dtype=np.uint64)
    bi, ti, _ = np.indices((B, T, P))
    np.bitwise_or.at(per_trick, (bi, ti, seat_idx), bits)
    per_trick = per_trick[:, :, :S]
    future = np.bitwise_or.accumulate(per_trick[:, ::-1], axis=1)[:, ::-1]
    before = np.bitwise_or.accumulate(per_trick, axis=1) ^ per_trick  # strictly before trick t
    held = future | (dealt[:, None, :S] & ~before)
    held_play = np.take_along_axis(held, np.clip(seats, 0, S - 1), axis=2)  # [B, T, P]
    led_mask = _SUIT_IN_PLAY[tp[:, None], tr[:, None], np.where(led >= 0, led, 5)][:, :, None]
    trump_mask = _SUIT_IN_PLAY[tp, tr, np.where(tr < 4, tr, 5)][:, None, None]
    could_follow = (held_play & led_mask) != 0
    has_trump = (held_play & trump_mask) != 0
    followed = suit == led[:, :, None]
    rule = np.asarray(follow)[:, None, None]
    ok = np.select([rule == 0, rule == 1, rule == 2],
                   [followed | ~could_follow | is_trump,
                    followed | (~could_follow & (is_trump | ~has_trump)),
                    followed | ~could_follow],
                   is_trump | ~has_trump)
    revoke = valid & ~ok
    revoke[:, :, 0] = rule[:, :, 0] == 3  # a lead breaks no follow rule, but a non-trump lead breaks trumps-only
    revoke[:, :, 0] &= valid[:, :, 0] & ~ok[:, :, 0]

    # points
    flat_trump = is_trump.reshape(B, -1)
    flat_strength = tstrength.reshape(B, -1)
    any_trump = flat_trump.any(axis=1)
    hi_pos = np.where(flat_trump, flat_strength, -1).argmax(axis=1)
    lo_pos = np.where(flat_trump, flat_strength, 99).argmin(axis=1)
    flat_seats = seats.reshape(B, -1)
    flat_cards = cards.reshape(B, -1)
    rows = np.arange(B)
    high_seat = np.where(any_trump, flat_seats[rows, hi_pos], -1)
    low_seat = np.where(any_trump, flat_seats[rows, lo_pos], -1)
    low_taker = np.where(any_trump, winner_seat[rows, lo_pos // P], -1)
    card_taker = np.full((B, 55), -1, dtype=np.int16)
    card_trick = np.zeros((B, 55), dtype=np.int16)
    card_taker[bi, cidx] = np.broadcast_to(winner_seat[:, :, None], (B, T, P))
    card_trick[bi, cidx] = ti + 1
    counts = np.zeros((B, S + 1), dtype=np.int32)
    trick_count = _CARD_COUNT[np.where(valid, safe, -1)].sum(axis=2)
    np.add.at(counts, (np.repeat(rows, T), np.where(winner_seat >= 0, winner_seat, S).ravel()), trick_count.ravel())
    tricks_won = np.zeros((B, S + 1), dtype=np.int32)
    np.add.at(tricks_won, (np.repeat(rows, T), np.where(winner_seat >= 0, winner_seat, S).ravel()), 1)
    return Batch(winner_seat, revoke, high_seat, np.where(any_trump, flat_cards[rows, hi_pos], -1), low_seat,
                 low_taker, np.where(any_trump, flat_cards[rows, lo_pos], -1), card_taker[:, :54],
                 card_trick[:, :54], counts[:, :S], tricks_won[:, :S])


def batch_arrays(preps: Sequence[PreparedHand], follow: Sequence[int],
                 ten_point: Sequence[bool]) -> tuple[np.ndarray, ...]:
    """Stack prepared hands into the arrays :func:`play_batch` takes."""
    B = len(preps)
    # wide enough for every trick of the batch (a rule set may play more than eight tricks)
    T = max([MAX_TRICKS] + [len(p.cards) for p in preps])
    P = max([MAX_SEATS] + [len(cs) for p in preps for cs in p.cards])
    cards = np.full((B, T, P), -1, dtype=np.int16)
    seats = np.full((B, T, P), -1, dtype=np.int16)
    dealt = np.zeros((B, MAX_SEATS), dtype=np.uint64)
    trump = np.full(B, -1, dtype=np.int8)
    for b, p in enumerate(preps):
        trump[b] = p.trump
        for t, (cs, ss) in enumerate(zip(p.cards, p.seats)):
            cards[b, t, :len(cs)] = cs
            seats[b, t, :len(ss)] = ss
        for s, m in enumerate(p.dealt[:MAX_SEATS]):
            dealt[b, s] = m
    return cards, seats, trump, dealt, np.asarray(follow, dtype=np.int8), np.asarray(ten_point, dtype=bool)


# --------------------------------------------------------------------------- pass 3


@dataclass
class HandScore:
    """The recomputed outcome of one hand, side by side with what the sheet says."""

    game: str
    hand: int
    line: int
    dealer: str
    pitcher: str | None
    pitcher_side: str | None
    contract: int
    high_bid: int
    trump: str | None
    scored: bool  # False: could not be recomputed (misdeal, thrown in, broken record)
    status: str  # played, thrown-in, misdeal, unplayable
    high: str | None = None  # side that took each point
    low: str | None = None
    jack: str | None = None
    game_point: str | None = None
    high_holder: str | None = None  # players, for the explanation
    high_card: str | None = None
    low_holder: str | None = None
    low_card: str | None = None
    jack_taker: str | None = None
    jack_trick: int | None = None
    counts: dict[str, int] = field(default_factory=dict)  # Game count per side
    tricks_won: dict[str, int] = field(default_factory=dict)  # tricks taken per side
    made: dict[str, int] = field(default_factory=dict)  # points taken per side
    score: dict[str, int] = field(default_factory=dict)  # recomputed hand score per side
    recorded: dict[str, int] | None = None
    total: dict[str, int] = field(default_factory=dict)  # recomputed running total (points still needed, counted down)
    recorded_total: dict[str, int] | None = None
    contract_made: bool | None = None
    smudge: bool = False
    revokers: list[str] = field(default_factory=list)
    penalties: dict[str, int] = field(default_factory=dict)
    sale: int = 0
    seller: str | None = None
    went_out: str | None = None
    revoke_plays: list[tuple[int, int, str, str, str]] = field(default_factory=list)  # trick, pos, player, card,
    # and the cards of the suit led the player held (space-separated)
    saved_by_revoke: bool = False  # the pitcher fell short but cannot be set: someone else revoked
    prep: PreparedHand | None = field(default=None, repr=False, compare=False)
    winners: list[str] = field(default_factory=list)  # taker of each trick
    trick_players: list[list[str]] = field(default_factory=list)  # who played each card, in play order
    set_back: dict[str, int] = field(default_factory=dict)  # points lost to a failed contract or a revoke
    awards: list[tuple[str, str | None, int, str]] = field(default_factory=list)  # point, side, worth, why
    top_word: str = "smudge"  # what the table calls the top bid
    takeover: bool = False  # pitching: the dealer took over a pitch
    moon_from: int | None = None  # a made moon: the sheet's total it jumped from

    def held(self, player: str, trick: int) -> list[int]:
        """The cards ``player`` held as trick ``trick`` (1-based) began; trick 1 gives the hand as dealt
        (from the deal line, or inferred from the plays)."""
        p = self.prep
        if p is None or player not in p.seat_names:
            return []
        return cards_of(held_before(p, p.seat_names.index(player), trick - 1))

    def explain(self) -> str:
        """Why the points fell as they did: the breakdown quoted in S601 messages."""
        parts = []
        for name, _, value, why in self.awards:
            parts.append(f"{name}{f' ({value})' if value != 1 else ''}: {why}")
        if self.pitcher:
            if self.contract:
                verdict = {True: "made it", False: "was set", None: "not judged"}[self.contract_made]
                if self.saved_by_revoke:
                    verdict = "fell short, but cannot be set: another player revoked"
                top = f" ({self.top_word})" if self.smudge else ""
                top += ", taking over a pitch" if self.takeover else ""
                if self.moon_from is not None:
                    verdict += f": the score jumps from the sheet's total {self.moon_from} to " \
                        f"{self.moon_from + self.score.get(self.pitcher_side, 0)}"
                parts.append(f"{self.pitcher} bid {self.contract}{top} and {verdict}")
            else:
                parts.append(f"{self.pitcher} pitched with no contract")
        if self.sale:
            parts.append(f"{self.seller} sold for {self.sale}")
        if self.revokers:
            parts.append("revoke penalty: " + ", ".join(f"{k} set back {v}" for k, v in self.penalties.items()))
        return "; ".join(parts)


@dataclass
class GameResult:
    """Everything the audit learned about one game."""

    game: Game
    rules: Rules | None
    hands: list[HandScore] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    winner: str | None = None
    won_in_hand: int | None = None
    settlement: dict[str, int] = field(default_factory=dict)
    sides: list[str] = field(default_factory=list)
    cards_played: int = 0


def _score_hand(prep: PreparedHand, b: int, batch: Batch | None, seats: _Seats, rules: Rules,
                h: Hand, game: Game) -> HandScore:
    """Points, contract and penalties of one hand (pass 3, for a hand already through pass 2)."""
    sides = seats.side_names
    hs = HandScore(game.name, h.number, h.line, seats.name(prep.dealer),
                   seats.name(prep.pitcher) if prep.pitcher >= 0 else None,
                   sides[seats.side(prep.pitcher)] if prep.pitcher >= 0 and seats.side(prep.pitcher) >= 0 else None,
                   prep.contract, prep.high_bid,
                   SUITS[prep.trump] if prep.trump >= 0 else None, False, "unplayable")
    hs.prep = prep
    hs.top_word = rules.top_bid_words[0] if rules.top_bid_words else "top bid"
    if prep.misdeal:
        hs.status = "misdeal"
    elif prep.thrown_in:
        hs.status = "thrown-in"
    if prep.misdeal or prep.thrown_in:
        hs.scored = True
        hs.score = {s: 0 for s in sides}
        return hs
    if batch is None:
        return hs
    side = seats.side
    sname = lambda seat: sides[side(seat)] if side(seat) >= 0 else None  # noqa: E731
    hs.winners = [seats.name(int(s)) for s in batch.winner_seat[b] if s >= 0]
    hs.trick_players = [[seats.name(s) for s in row] for row in prep.seats]
    # revokes (none can be judged while trump is unknown)
    revoke_sides: list[int] = []
    free_first = rules.first_trick_trump == "free" and prep.cards and prep.cards[0] and \
        effective_suit(prep.cards[0][0], prep.trump, rules.ten_point) != prep.trump
    for t, pos in zip(*np.nonzero(batch.revoke[b]) if prep.trump >= 0 else ()):
        seat = prep.seats[t][pos]
        card = prep.cards[t][pos]
        if effective_suit(prep.cards[t][0], prep.trump, rules.ten_point) > 3:
            continue  # a card outside the deck led (D203): there is no suit to follow
        if t == 0 and free_first:
            continue  # the free first trick: nobody may trump it, so its only rule is P405's
        held = held_before(prep, seat, int(t))
        led = effective_suit(prep.cards[t][0], prep.trump, rules.ten_point)
        could = cards_of(held & effective_suit_mask(led, prep.trump, rules.ten_point))
        if not could or rules.trumps_only:  # void in the suit led, yet a trump was due
            could = cards_of(held & effective_suit_mask(prep.trump, prep.trump, rules.ten_point))
        hs.revoke_plays.append((int(t) + 1, int(pos), seats.name(seat), CARD_NAMES[card],
                                " ".join(CARD_NAMES[c] for c in sorted(could, reverse=True))))
        if side(seat) not in revoke_sides:
            revoke_sides.append(side(seat))
    if not prep.playable:
        return hs
    hs.scored = True
    hs.status = "played"
    hi, lo, lo_t = int(batch.high_seat[b]), int(batch.low_seat[b]), int(batch.low_taker[b])
    low_owner = lo if rules.low == "holder" else lo_t
    counts_side = [0] * len(sides)
    tricks_side = [0] * len(sides)
    for s in range(seats.n):
        if side(s) >= 0:
            counts_side[side(s)] += int(batch.counts[b, s])
            tricks_side[side(s)] += int(batch.tricks_won[b, s])
    trump = prep.trump

    def taken(card: int, name: str, value: int = 1) -> tuple[str, int, int, str]:
        seat = int(batch.card_taker[b, card])
        why = (f"{seats.name(seat)} took {CARD_NAMES[card]} in trick {int(batch.card_trick[b, card])}" if seat >= 0
               else f"{CARD_NAMES[card]} not in play")
        return name, seat, value, why

    hs.high_holder, hs.high_card = seats.name(hi), CARD_NAMES[int(batch.high_card[b])]
    hs.low_holder, hs.low_card = seats.name(lo), CARD_NAMES[int(batch.low_card[b])]
    low_why = f"{hs.low_holder} held {hs.low_card}" + (f", {seats.name(low_owner)} took it" if low_owner != lo else "")
    awards = [("High", hi, 1, f"{hs.high_holder} held {hs.high_card}"), ("Low", low_owner, 1, low_why),
              taken(trump * 13 + 9, "Jack")]
    if rules.ten_point:
        awards += [taken(off_jack(trump), "Off-jack"), taken(JOKER_HIGH, "High joker"),
                   taken(JOKER_LOW, "Low joker")]
    if rules.trey:
        awards.append(taken(trump * 13 + 1, "Trey", 3))
    cs = ", ".join(f"{sides[i]} {c}" for i, c in sorted(enumerate(counts_side), key=lambda kv: -kv[1]))
    if rules.game_point == "ten":
        game_award = taken(trump * 13 + 8, "Game")
        game_side = side(game_award[1])
    else:
        best = max(counts_side) if counts_side else 0
        game_side = counts_side.index(best) if counts_side.count(best) == 1 else -1
        game_award = ("Game", -1, 1, cs + ("" if game_side >= 0 else ", a tie: nobody"))
    # owners are sides from here on
    hs.awards = [(name, sname(seat) if seat >= 0 else None, value, why) for name, seat, value, why in awards]
    hs.awards.append(("Game", sides[game_side] if game_side >= 0 else None, 1, game_award[3]))
    by_name = {name: owner for name, owner, _, _ in hs.awards}
    hs.high, hs.low, hs.jack, hs.game_point = by_name["High"], by_name["Low"], by_name["Jack"], by_name["Game"]
    jack_seat = int(batch.card_taker[b, trump * 13 + 9])
    hs.jack_taker = seats.name(jack_seat) if jack_seat >= 0 else None
    hs.jack_trick = int(batch.card_trick[b, trump * 13 + 9]) or None
    hs.counts = {sides[i]: c for i, c in enumerate(counts_side)}
    hs.tricks_won = {sides[i]: t for i, t in enumerate(tricks_side)}
    owners = [sides.index(o) if o is not None else -1 for _, o, _, _ in hs.awards]
    made = [0] * len(sides)
    for o, (_, _, value, _) in zip(owners, hs.awards):
        if o >= 0:
            made[o] += value
    hs.made = {sides[i]: m for i, m in enumerate(made)}
    score = list(made)
    p = side(prep.pitcher) if prep.pitcher >= 0 else -1
    loss = 2 if prep.takeover and rules.double_loss else 1  # a dealer who took over a pitch and is set
    hs.takeover = prep.takeover
    if p >= 0 and prep.contract > 0:
        if rules.smudge == "all-tricks" and prep.top_bid:
            hs.smudge = True
            ok = all(o == p for o in owners) and tricks_side[p] == sum(tricks_side)
            hs.contract_made = ok
            score[p] = prep.contract if ok else -prep.contract * loss
        else:
            hs.smudge = prep.top_bid and rules.smudge in ("wins-game", "moon")
            hs.contract_made = made[p] >= prep.contract
            score[p] = made[p] if hs.contract_made else -prep.contract * loss
    if revoke_sides:
        penalty = prep.contract if rules.revoke == "bid" else prep.high_bid
        for r in revoke_sides:
            score[r] = -penalty
            hs.revokers.append(sides[r])
            hs.penalties[sides[r]] = penalty
        if p >= 0 and p not in revoke_sides and hs.contract_made is False:
            score[p] = made[p]  # a pitcher cannot be set in a hand where someone else revoked
            hs.saved_by_revoke = True
    if prep.seller >= 0:
        hs.sale, hs.seller = prep.sale, sname(prep.seller)
        score[side(prep.seller)] += prep.sale
    hs.score = {sides[i]: v for i, v in enumerate(score)}
    sale = [prep.sale if i == side(prep.seller) else 0 for i in range(len(sides))]
    hs.set_back = {sides[i]: -(v - sale[i]) for i, v in enumerate(score) if v - sale[i] < 0}
    return hs


def _broken_rule(rules: Rules, prep: PreparedHand, t: int, pos: int, could: str) -> tuple[str, str]:
    """The rule a revoke broke, in words, and what the player should have played."""
    tp = rules.ten_point
    led = effective_suit(prep.cards[t][0], prep.trump, tp)
    if rules.trumps_only:
        return "only trumps may be played, and a player holding one must play it", f"a trump ({could})"
    void = not held_before(prep, prep.seats[t][pos], t) & effective_suit_mask(led, prep.trump, tp)
    # the ten-point deck's extra trumps, named where they are what the player should have played
    extra = [c for c in could.split() if tp and c in (CARD_NAMES[off_jack(prep.trump)], "JKH", "JKL")]
    note = f" ({', '.join(extra)} {'is a trump' if len(extra) == 1 else 'are trumps'} here)" if extra else ""
    if void:
        return (f"under {rules.follow} a player without {suit_name(led)} must play a trump when able{note}",
                f"a trump ({could})")
    if led == prep.trump:
        return f"on a trump lead a player holding a trump must play one{note}", could
    if rules.follow == "follow-or-trump":
        return (f"under {rules.follow} a player holding {suit_name(led)} must follow suit or trump{note}",
                f"{could} or a trump")
    return f"under {rules.follow} a player holding {suit_name(led)} must follow suit{note}", could


def _going_out(hs: HandScore, rules: Rules, before: dict[str, int], after: dict[str, int]) -> str | None:
    """Who (if anyone) wins the game in this hand, by the preset's counting order."""
    target = rules.game
    reached = [s for s, v in after.items() if v >= target]
    pitcher_side = hs.pitcher_side
    if rules.smudge == "wins-game" and hs.smudge and hs.contract_made and pitcher_side is not None \
            and before.get(pitcher_side, 0) >= 0 and pitcher_side not in hs.revokers:
        return pitcher_side
    if rules.smudge == "moon" and hs.smudge and hs.contract_made is False and not hs.saved_by_revoke \
            and pitcher_side is not None and pitcher_side not in hs.revokers and len(after) > 1:
        # a failed moon loses the game: it goes to the best placed other side
        return max((s for s in after if s != pitcher_side), key=lambda s: after[s])
    if not reached:
        return None
    if rules.going_out == "bidder-only":
        if pitcher_side in reached and hs.contract_made:
            return pitcher_side
        return None
    running = dict(before)
    order: list[tuple[str, int]] = []
    scoring = {s for s, v in hs.score.items() if v > 0}
    if hs.sale and hs.seller:
        order.append((hs.seller, hs.sale))
    if rules.going_out == "pitcher-first" and pitcher_side is not None and hs.score.get(pitcher_side, 0) > 0:
        order.append((pitcher_side, hs.score[pitcher_side]))
        scoring.discard(pitcher_side)
    for owner in (hs.high, hs.low, hs.jack, hs.game_point):
        if owner in scoring:
            order.append((owner, 1))
    for s, pts in order:
        running[s] = running.get(s, 0) + pts
        if running[s] >= target:
            return s
    return max(reached, key=lambda s: after[s])


def score_game(game: Game, rules: Rules, seats: _Seats, preps: list[PreparedHand],
               batch: Batch | None, batch_rows: dict[int, int]) -> GameResult:
    """Pass 3 for one game: hand scores, running totals, going out, and the sheet compared."""
    res = GameResult(game, rules, sides=list(seats.side_names))
    sides = seats.side_names
    src = game.source
    total = {s: 0 for s in sides}  # points scored so far (counted up, whatever the sheet does)
    sheet: dict[str, int] | None = {s: rules.game if rules.count_down else 0 for s in sides}
    sign = -1 if rules.count_down else 1
    ended_at: int | None = None
    for i, (h, prep) in enumerate(zip(game.hands, preps)):
        res.findings.extend(prep.findings)
        hs = _score_hand(prep, batch_rows.get(i, -1), batch if i in batch_rows else None, seats, rules, h, game)
        res.cards_played += sum(len(c) for c in prep.cards)
        for t, pos, player, card, could in hs.revoke_plays:
            line = prep.trick_lines[t - 1]
            col = prep.play_cols[t - 1][pos]
            led_card = CARD_NAMES[prep.cards[t - 1][0]]
            rule, expected = _broken_rule(rules, prep, t - 1, pos, could)
            res.findings.append(Finding(
                "R501", f"{player} plays {card} to trick {t} ({led_card} led) while holding {could}: {rule}",
                src, line, col, game.name, h.number, t, player, expected=expected, recorded=card))
        shown = {(pl, t) for t, _, pl, _, _ in hs.revoke_plays}
        for call in h.revokes:
            if not any(pl == call.player and (call.trick is None or t == call.trick) for pl, t in shown):
                where = f" in trick {call.trick}" if call.trick is not None else ""
                res.findings.append(Finding(
                    "R502", f"a revoke by {call.player}{where} was called at the table, but the record shows "
                    f"{call.player} following the rule" + (f" (revokes shown: {', '.join(f'{p} trick {t}' for p, t in sorted(shown))})" if shown else ""),
                    src, call.line, call.column, game.name, h.number, call.trick, call.player,
                    expected="a revoke in the record", recorded="no revoke"))
        before = dict(total)
        moon = rules.smudge == "moon" and hs.smudge and hs.contract_made and hs.pitcher_side is not None \
            and hs.pitcher_side not in hs.revokers  # a revoker scores nothing, moon or not
        if moon:
            # shooting the moon made: the score jumps to the target, or to 0 from below zero.  The keeper
            # writes what takes the sheet's total there, so a slip in an earlier total stays its own finding
            side = hs.pitcher_side
            hs.moon_from = sheet[side] if sheet is not None else before[side]
            hs.score[side] = (rules.game if hs.moon_from >= 0 else 0) - hs.moon_from
        if hs.scored:
            for s in sides:
                total[s] += hs.score.get(s, 0)
            if moon:
                total[side] = rules.game if before[side] >= 0 else 0
        elif h.score is not None:  # cannot recompute: carry the sheet's figure so later hands stand alone
            rec = h.score.as_dict()
            for s in sides:
                total[s] += rec.get(s, 0)
        hs.total = {s: (rules.game - v if rules.count_down else v) for s, v in total.items()}
        # S601: the hand's score line against the recomputed score
        if h.score is not None:
            hs.recorded = h.score.as_dict()
            if hs.scored:
                why = hs.explain()
                for s in sides:
                    rec = hs.recorded.get(s)
                    exp = hs.score.get(s, 0)
                    if rec is None and h.score.unreadable:
                        continue  # an entry that could not be read is already an E101
                    if rec != exp:
                        col = next((e.column for e in h.score.entries if e.key == s), 1)
                        rec_text = "nothing" if rec is None else str(rec)
                        res.findings.append(Finding(
                            "S601", f"{s}: recorded {rec_text}, expected {exp} ({why})", src, h.score.line, col,
                            game.name, h.number, None, s, expected=str(exp), recorded=rec_text))
        # S602: the sheet against itself.  ``sheet`` is what the sheet should read after the
        # previous hand: the last total written plus every score written since (None: unknown).
        if h.score is not None:
            written_score: dict[str, int] | None = h.score.as_dict()
        elif hs.scored:
            written_score = hs.score
        else:
            written_score = None  # neither written nor recomputable: this hand's total cannot be checked
        due = None if sheet is None or written_score is None else \
            {s: sheet[s] + sign * written_score.get(s, 0) for s in sides}
        if h.total is not None:
            hs.recorded_total = h.total.as_dict()
            for s in sides if due is not None else ():
                rec = hs.recorded_total.get(s)
                if rec is None and h.total.unreadable:
                    continue
                if rec != due[s]:
                    col = next((e.column for e in h.total.entries if e.key == s), 1)
                    op = "-" if rules.count_down else "+"
                    res.findings.append(Finding(
                        "S602", f"{s}: total written {'nothing' if rec is None else rec}, but the previous total "
                        f"{sheet[s]} {op} this hand's written score {_signed(written_score.get(s, 0))} is {due[s]}",
                        src, h.total.line, col, game.name, h.number, None, s, expected=str(due[s]),
                        recorded="nothing" if rec is None else str(rec)))
            base = due or {}
            sheet = {s: hs.recorded_total.get(s, base.get(s, 0)) for s in sides}
        else:
            sheet = due
        # S603: hands after the game was won
        if ended_at is not None:
            if i == ended_at + 1:
                res.findings.append(Finding(
                    "S603", f"hand {h.number} is played after {res.winner} won the game in hand "
                    f"{game.hands[ended_at].number}", src, h.line, 1, game.name, h.number, None, res.winner,
                    expected="no more hands", recorded=f"hand {h.number}"))
        elif hs.scored and hs.status == "played":
            after_up = dict(total)
            out = _going_out(hs, rules, before, after_up)
            if out is not None:
                hs.went_out = out
                ended_at = i
                res.winner, res.won_in_hand = out, h.number
        res.hands.append(hs)
    # the winner line
    last_line = game.end_line or (game.hands[-1].end_line if game.hands else game.line)
    if game.winner is not None:
        if res.winner is None:
            res.findings.append(Finding(
                "S603", f"the record names {game.winner.name} the winner, but on the recomputed scores nobody has "
                + (f"gone out: only a side that makes its bid in the hand can win at {rules.game}"
                   if rules.going_out == "bidder-only" else f"reached {rules.game}")
                + f" ({_standing(total, rules)})", src, game.winner.line, game.winner.column,
                game.name, None, None, None, expected="no winner yet", recorded=game.winner.name))
        elif game.winner.name != res.winner:
            res.findings.append(Finding(
                "S603", f"the record names {game.winner.name} the winner, but {res.winner} went out first in hand "
                f"{res.won_in_hand} ({_standing(total, rules)})", src, game.winner.line, game.winner.column,
                game.name, None, None, res.winner, expected=res.winner, recorded=game.winner.name))
    elif res.winner is not None:
        res.findings.append(Finding(
            "S603", f"the record names no winner, but {res.winner} went out in hand {res.won_in_hand} "
            f"({_standing(total, rules)})", src, last_line, 1, game.name, None, None, res.winner,
            expected=res.winner, recorded="nothing"))
    if res.winner is not None and rules.settlement == "club" and not rules.partnership:
        final = res.hands[[h.number for h in game.hands].index(res.won_in_hand)].total
        pay = {s: 0 for s in sides}
        for s in sides:
            if s != res.winner:
                owed = 1 if final[s] >= 1 else 2
                pay[s] -= owed
                pay[res.winner] += owed
        res.settlement = pay
    return res


def _signed(n: int) -> str:
    """A number as it reads after a + or -: ``(-2)`` rather than ``-2``."""
    return f"({n})" if n < 0 else str(n)


def _standing(total: dict[str, int], rules: Rules) -> str:
    if rules.count_down:
        return "still needed: " + ", ".join(f"{k} {rules.game - v}" for k, v in total.items())
    return "totals: " + ", ".join(f"{k} {v}" for k, v in total.items())


# --------------------------------------------------------------------------- driver


def audit_games(games: Iterable[Game], override: str = "") -> list[GameResult]:
    """Replay and score a batch of games: the one entry point for one hand or a million.

    Games whose rules cannot be resolved come back with ``rules=None`` and no hands
    (the parser has already reported why).
    """
    results: list[GameResult] = []
    staged: list[tuple[int, _Seats, list[PreparedHand], dict[int, int]]] = []
    all_preps: list[PreparedHand] = []
    follow: list[int] = []
    ten_point: list[bool] = []
    for game in games:
        try:
            rules = resolve_rules(game.tag("Rules"), override)
        except RulesError:
            results.append(GameResult(game, None))
            continue
        shape = check_game_shape(game, rules)
        results.append(GameResult(game, rules, findings=shape))
        if not game.players or any(f.code in ("E105", "E107") for f in shape):
            continue
        seats = _Seats(game, rules)
        preps: list[PreparedHand] = []
        rows: dict[int, int] = {}
        expected: list[int] = []
        for i, h in enumerate(game.hands):
            prep = prepare_hand(h, game, seats, rules, expected)
            preps.append(prep)
            step = 0 if prep.thrown_in and rules.all_pass == "redeal" else 1
            # next: from the dealer the hand was judged with, or from the one written (after a slip)
            expected = list(dict.fromkeys((d + step) % seats.n for d in (prep.dealer, prep.written_dealer)
                                          if d >= 0))
            if prep.cards:
                rows[i] = len(all_preps)
                all_preps.append(prep)
                follow.append(FOLLOW_CODES["trumps-only" if rules.trumps_only else rules.follow])
                ten_point.append(rules.ten_point)
        staged.append((len(results) - 1, seats, preps, rows))
    batch = play_batch(*batch_arrays(all_preps, follow, ten_point)) if all_preps else None
    for at, seats, preps, rows in staged:
        shell = results[at]
        res = score_game(shell.game, shell.rules, seats, preps, batch, rows)
        res.findings[:0] = shell.findings
        results[at] = res
    return results
