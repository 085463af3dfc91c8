"""Replay one hand trick by trick, or walk a game's score sheet, as rich renderables.

To settle a dispute the director replays the hand at the table: the seats, the hands as
dealt, the auction, every trick with what it carries and who took it, each finding at
the card where it happens, and the hand's points against the sheet.

* :func:`build_hand_view` reduces a recorded hand and its audit (a
  :class:`~auditor.engine.GameResult`) to that story once: who played what, what every
  player still held before and after each card, and where each finding belongs.
* The ``render_*`` functions draw it for a :class:`Layout` (a width of at least 60
  columns, and whether suit symbols can be printed).
* :func:`hand_frames` and :func:`game_frames` cut the story into the steps of
  ``auditor replay --step``; :func:`run_steps` is the key loop, kept free of any
  terminal so that it can be driven from a list of keys.

>>> card_text(12).plain, card_text(47, Layout(symbols=False)).plain
('A♠', 'TC')
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from . import _core
from .cards import CARD_COUNT, CARD_NAMES, JOKER_HIGH, SUIT_NAMES, SUIT_SYMBOLS, SUITS, cards_of, \
    effective_suit, effective_suit_mask, sort_for_display, suit_of, trump_order
from .engine import GameResult, HandAnalysis, HandScore, legal_cards, trick_winner_pos
from .findings import severity_of, sort_key
from .notation import Finding, Game, Hand, RevokeCall
from .render import MIN_WIDTH, mistake_text, points_text
from .rules import Rules

WIDE_WIDTH = 120  # from here on, panels go side by side (the scores table needs room)
#: Four-colour deck: hearts and diamonds stay apart at a glance, and spades use the
#: terminal's own foreground so they read on dark and light backgrounds alike.
SUIT_STYLES = ("bold", "bold red", "bold blue", "bold green")
_JOKER_STYLE = "bold magenta"
_BLOCKS = "▁▂▃▄▅▆▇█"
_ASCII_BLOCKS = "_.-=+*#@"


@dataclass(frozen=True)
class Layout:
    """How to draw: the width to fit (never below 60) and whether Unicode symbols print.

    >>> Layout(40).width, Layout(120).wide
    (60, True)
    """

    width: int = 80
    symbols: bool = True
    height: int | None = None  # the screen's rows, for --step; None: as long as it takes

    def __post_init__(self) -> None:
        # The layout is designed down to 60 columns; narrower terminals wrap rather than
        # get a layout that hides the cards.
        object.__setattr__(self, "width", max(MIN_WIDTH, int(self.width)))

    @property
    def wide(self) -> bool:
        """Whether there is room to put two panels side by side."""
        return self.width >= WIDE_WIDTH

    @property
    def sep(self) -> str:
        """The separator between items on a line."""
        return " · " if self.symbols else " | "

    @property
    def arrow(self) -> str:
        """The arrow from a card to who takes it."""
        return "→" if self.symbols else "->"

    @property
    def error_mark(self) -> str:
        """The mark set beside an error."""
        return "✗" if self.symbols else "X"

    @property
    def dash(self) -> str:
        """What an empty hand or cell shows."""
        return "—" if self.symbols else "-"


# --------------------------------------------------------------------------- cards


def card_text(card: int, layout: Layout = Layout()) -> Text:
    """A card as its rank and suit symbol, coloured by suit: ``A♠`` (``AS`` without symbols)."""
    name = CARD_NAMES[card]
    if card >= 52:
        return Text(name, style=_JOKER_STYLE)
    suit = suit_of(card)
    return Text(name[0] + (SUIT_SYMBOLS[suit] if layout.symbols else SUITS[suit]), style=SUIT_STYLES[suit])


def suit_text(suit: int, layout: Layout = Layout(), name: bool = False) -> Text:
    """A suit as its coloured symbol, optionally followed by its name: ``♥ hearts``."""
    sym = SUIT_SYMBOLS[suit] if layout.symbols else SUITS[suit]
    t = Text(sym, style=SUIT_STYLES[suit])
    if name:
        t.append(f" {SUIT_NAMES[suit]}")
    return t


def cards_text(cards: Iterable[int], layout: Layout = Layout(), trump: int | None = None,
               sort: bool = True, deck_kind: str = "plain") -> Text:
    """Cards separated by spaces, grouped by suit (trumps first, in trump order, when ``trump`` is given)."""
    cs = sort_for_display(cards, trump, deck_kind) if sort else list(cards)
    if not cs:
        return Text(layout.dash, style="dim")
    return Text(" ").join(card_text(c, layout) for c in cs)


def _mask_text(mask: int, layout: Layout, trump: int | None, deck_kind: str = "plain") -> Text:
    return cards_text(cards_of(mask), layout, trump, deck_kind=deck_kind)


# --------------------------------------------------------------------------- the hand, reduced


@dataclass
class PlayView:
    """One card played, with the findings that point at it."""

    player: str
    card: int
    column: int
    findings: list[Finding] = field(default_factory=list)


@dataclass
class TrickView:
    """One trick: the plays in order, its taker, and every hand just before it."""

    number: int
    line: int
    column: int
    plays: list[PlayView]
    winner: str | None
    winner_pos: int | None
    before: dict[str, int]  # bit mask of each player's cards before the trick's first card
    findings: list[Finding] = field(default_factory=list)  # about the trick, not one card
    calls: list[RevokeCall] = field(default_factory=list)  # revokes called at the table in this trick
    trump: int | None = None
    deck_kind: str = "plain"  # which extra cards are trumps: the jick, or the off-jack and jokers

    @property
    def led(self) -> int:
        """The suit of the card led, as it plays (the off-jack and jokers lead trumps); 4: a joker, trump unknown."""
        return effective_suit(self.plays[0].card, -1 if self.trump is None else self.trump, self.deck_kind)

    @property
    def count(self) -> int:
        """What the trick counts towards Game (A 4, K 3, Q 2, J 1, T 10)."""
        return sum(CARD_COUNT[p.card] for p in self.plays)

    def held_after(self, k: int) -> dict[str, int]:
        """Every player's cards once the first ``k`` cards of the trick are on the table."""
        out = dict(self.before)
        for p in self.plays[:k]:
            if p.player in out:
                out[p.player] &= ~(1 << p.card)
        return out

    @property
    def after(self) -> dict[str, int]:
        """Every player's cards once the trick is played."""
        return self.held_after(len(self.plays))

    def leading_pos(self, k: int) -> int:
        """Position of the card winning the trick so far, after ``k`` cards (trump, else the suit led)."""
        return trick_winner_pos([p.card for p in self.plays[:k]], -1 if self.trump is None else self.trump,
                                self.deck_kind) if k else 0


@dataclass
class HandView:
    """Everything the replay of one hand shows, computed once from the record and its audit."""

    game: Game
    hand: Hand
    rules: Rules
    score: HandScore | None
    players: tuple[str, ...]
    teams: dict[str, tuple[str, ...]]
    trump: int | None
    dealt: dict[str, int]
    inferred: tuple[str, ...]  # players whose hand is inferred from the cards they played
    tricks: list[TrickView]
    table_findings: list[Finding] = field(default_factory=list)
    deal_findings: list[Finding] = field(default_factory=list)
    auction_findings: list[Finding] = field(default_factory=list)
    score_findings: list[Finding] = field(default_factory=list)
    calls: list[RevokeCall] = field(default_factory=list)  # revokes called at the table in no trick shown
    claim: int | None = None  # the trick from which every legal line gives each side the same points

    @property
    def dealer(self) -> str | None:
        """Who dealt, as recorded."""
        return self.hand.dealer.name if self.hand.dealer else (self.score.dealer if self.score else None)

    @property
    def findings(self) -> list[Finding]:
        """Every finding of the hand, in file order."""
        fs = self.table_findings + self.deal_findings + self.auction_findings + self.score_findings
        for t in self.tricks:
            fs += t.findings + [f for p in t.plays for f in p.findings]
        return sorted(fs, key=sort_key)

    def team_of(self, player: str) -> str | None:
        """The team a player sits in (partnership presets), else ``None``."""
        for name, members in self.teams.items():
            if player in members:
                return name
        return None


def find_hand(game: Game, number: int) -> int | None:
    """The index in ``game.hands`` of the hand numbered ``number`` (the first, if repeated)."""
    return next((i for i, h in enumerate(game.hands) if h.number == number), None)


def build_hand_view(game: Game, result: GameResult, number: int, extra: Sequence[Finding] = ()) -> HandView:
    """Reduce hand ``number`` of ``game`` and its audit to what the replay shows.

    ``result`` is the game's :class:`~auditor.engine.GameResult` (its ``rules`` must be
    known); ``extra`` adds findings from elsewhere (the parser's E1xx for this game).
    Each finding is placed where it happens: at the card its line and column point at,
    else at its trick, else at the deal, the auction, or with the points at the end.
    Raises ``LookupError`` when the game has no such hand.
    """
    idx = find_hand(game, number)
    if idx is None:
        raise LookupError(f"{game.name} has no hand {number}")
    if result.rules is None:
        raise ValueError(f"{game.name}: the rules are unknown, so the hand cannot be replayed")
    hand = game.hands[idx]
    hs = result.hands[idx] if idx < len(result.hands) else None
    players = game.players
    teams = game.teams if result.rules.partnership else {}
    recorded = [t for t in hand.tricks if t.plays]
    if sorted(t.number for t in recorded) == list(range(1, len(recorded) + 1)):
        recorded.sort(key=lambda t: t.number)  # the engine replays tricks written out of order by number

    # who played each card: the engine's seat assignment covers the short form `1. AS 3S ...`
    seats_of: list[list[str]] = []
    for i, t in enumerate(recorded):
        if hs is not None and i < len(hs.trick_players) and len(hs.trick_players[i]) == len(t.plays):
            seats_of.append(list(hs.trick_players[i]))
        else:
            seats_of.append([p.player or "?" for p in t.plays])

    # hands as dealt: the deal line where it has a player, else what that player went on to play
    dealt = {p: 0 for p in players}
    if hand.deal:
        for hold in hand.deal.holdings:
            for c in hold.cards:
                dealt[hold.player] = dealt.get(hold.player, 0) | (1 << c)
    inferred = tuple(p for p in players if not dealt.get(p))
    for t, who in zip(recorded, seats_of):
        for p, name in zip(t.plays, who):
            if name in inferred:
                dealt[name] |= 1 << p.card

    if hs is not None and hs.trump is not None:
        trump: int | None = SUITS.index(hs.trump)
    elif hand.trump:
        trump = hand.trump.suit
    elif recorded and recorded[0].plays[0].card < JOKER_HIGH:
        trump = suit_of(recorded[0].plays[0].card)
    else:
        trump = None

    held = dict(dealt)
    for x in hand.exchanges:  # draw variants: the play starts from the hands after the draw
        who = x.holding.player
        if who in held and who not in inferred:  # an inferred hand is already the one after the draw
            for c in x.holding.cards:
                held[who] = held[who] & ~(1 << c) if x.kind == "discard" else held[who] | (1 << c)
    tricks: list[TrickView] = []
    for i, (t, who) in enumerate(zip(recorded, seats_of)):
        plays = [PlayView(name, p.card, p.column) for p, name in zip(t.plays, who)]
        winner = hs.winners[i] if hs is not None and i < len(hs.winners) else None
        pos = next((k for k, p in enumerate(plays) if p.player == winner), None)
        tv = TrickView(t.number, t.line, t.column, plays, winner, pos, dict(held), trump=trump,
                       deck_kind=result.rules.deck_kind)
        tricks.append(tv)
        held = tv.after

    view = HandView(game, hand, result.rules, hs, players, teams, trump, dealt, inferred, tricks)
    _place_findings(view, [f for f in [*result.findings, *extra]
                           if f.hand == number and (not f.game or f.game == game.name)])
    _place_calls(view)
    return view


def _revokes_by(view: HandView, player: str) -> list[tuple[TrickView, Finding]]:
    """The revokes (R501) the record shows by ``player``, with their tricks."""
    return [(t, f) for t in view.tricks for p in t.plays for f in p.findings
            if f.code == "R501" and p.player == player]


def _place_calls(view: HandView) -> None:
    """Each ``revoke NAME [trick N]`` line goes to its trick: the one it names, else the trick of the
    player's revoke in the record, else (no such trick) with the points."""
    by_number = {t.number: t for t in view.tricks}
    for call in view.hand.revokes:
        shown = _revokes_by(view, call.player)
        trick = by_number.get(call.trick) if call.trick is not None else (shown[0][0] if shown else None)
        (trick.calls if trick is not None else view.calls).append(call)


def call_verdict(view: HandView, call: RevokeCall) -> tuple[bool | None, str]:
    """The audit's verdict on a revoke called at the table: (borne out?, in words). ``None``: no ruling
    (the trick named is not in the record)."""
    shown = [(t, f) for t, f in _revokes_by(view, call.player) if call.trick is None or t.number == call.trick]
    where = f" in trick {call.trick}" if call.trick is not None else ""
    if shown:
        t, f = shown[0]
        return True, (f"the record bears it out: {call.player} revoked in trick {t.number} "
                      f"(R501, line {f.line}:{f.column})")
    denied = next((f for f in view.findings if f.code == "R502" and f.line == call.line), None)
    if denied is not None:
        return False, "the record does not bear it out (R502 below)"
    return None, f"no trick{where} in the record to check the call against"


def call_lines(view: HandView, calls: Iterable[RevokeCall], layout: Layout) -> list[RenderableType]:
    """A line per revoke called at the table, with the audit's verdict on it."""
    out: list[RenderableType] = []
    for call in calls:
        ok, words = call_verdict(view, call)
        t = Text("revoke called at the table", style="bold")
        t.append(f" line {call.line}:{call.column} ", style="dim")
        t.append(call.player + (f" in trick {call.trick}" if call.trick is not None else "") + layout.sep)
        t.append(words, style="bold" if ok else "bold red" if ok is False else "")
        out.append(Padding(t, (0, 0, 0, 2)))
    return out


def _place_findings(view: HandView, findings: list[Finding]) -> None:
    """Attach each finding to the card, trick or section of the hand it is about."""
    hand = view.hand
    at_play = {(t.line, p.column): p for t in view.tricks for p in t.plays}
    by_number = {t.number: t for t in view.tricks}
    by_line: dict[int, list[TrickView]] = {}
    for t in view.tricks:
        by_line.setdefault(t.line, []).append(t)
    for f in sorted(findings, key=sort_key):
        if severity_of(f.code) == "info":
            # an examination of the hand (what a revoke cost) goes with the points, not at the card
            view.score_findings.append(f)
            continue
        play = at_play.get((f.line, f.column))
        if play is not None:
            play.findings.append(f)
            continue
        if f.trick is not None and f.trick in by_number:
            by_number[f.trick].findings.append(f)
            continue
        # A finding inside a trick's text (a bad card token) belongs to that trick; column 1
        # on a trick line is how the engine points at the hand as a whole (hand not played
        # out, wrong number of cards), which belongs with the points.
        on_line = [t for t in by_line.get(f.line, []) if t.column <= f.column]
        if on_line and f.column > 1:
            max(on_line, key=lambda t: t.column).findings.append(f)
        elif hand.bids is not None and f.line == hand.bids.line:
            view.auction_findings.append(f)
        elif (hand.deal is not None and f.line == hand.deal.line) or \
                (hand.widow is not None and f.line == hand.widow.line):
            view.deal_findings.append(f)
        elif f.line == hand.line or (hand.dealer is not None and f.line == hand.dealer.line):
            view.table_findings.append(f)
        else:
            view.score_findings.append(f)


# --------------------------------------------------------------------------- findings


def _mark(f: Finding, layout: Layout) -> Text:
    warn = severity_of(f.code) == "warning"
    return Text(f"{'!' if warn else layout.error_mark} {f.code}", style="bold yellow" if warn else "bold red")


def revoke_help(view: HandView, trick: TrickView, play: PlayView, layout: Layout = Layout()) -> Text | None:
    """For a revoke: the cards the player should have played instead (the suit led, or a trump).

    ``None`` when the player held none (then the card was no revoke by the record's own deal).
    """
    led, trump, tp = trick.led, view.trump, view.rules.deck_kind
    before = trick.before.get(play.player, 0)
    # the cards the engine would have taken: the core's one definition of the follow rule
    first = view.tricks[0].plays[0].card if view.tricks and view.tricks[0].plays else None
    led_card = trick.plays[0].card if trick.plays and trick.plays[0] is not play else None
    allowed = legal_cards(view.rules, -1 if trump is None else trump, before, trick.number - 1, first, led_card)
    allowed &= ~(1 << play.card)
    trumps = allowed & effective_suit_mask(trump, trump, tp) if trump is not None else 0
    follow = allowed & effective_suit_mask(led, -1 if trump is None else trump, tp)
    if view.rules.trumps_only or not follow:
        if not trumps:
            return None
        t = Text(f"{play.player} held ")
        t.append_text(cards_text(cards_of(trumps), layout, trump, deck_kind=tp))
        why = "with trumps_only=on only trumps may be played" if view.rules.trumps_only else \
            f"under follow={view.rules.follow} a player without the suit led must trump"
        t.append(f": {why}")
        return t
    t = Text(f"{play.player} held ")
    t.append_text(cards_text(cards_of(follow), layout, trump, deck_kind=tp))
    t.append(" of ")
    t.append_text(suit_text(led, layout, name=True))
    t.append(", the suit led, and should have followed with ")
    t.append("it" if len(cards_of(follow)) == 1 else "one of them")
    if view.rules.follow == "follow-or-trump" and trump is not None and led != trump and trumps:
        t.append(" or trumped (")
        t.append_text(cards_text(cards_of(trumps), layout, trump, deck_kind=tp))
        t.append(")")
    return t


def _finding_lines(findings: Iterable[Finding], layout: Layout, view: HandView | None = None,
                   trick: TrickView | None = None, play: PlayView | None = None) -> list[RenderableType]:
    out: list[RenderableType] = []
    for f in findings:
        t = _mark(f, layout)
        t.append(f" line {f.line}:{f.column} ", style="dim")
        t.append(f.message)
        out.append(Padding(t, (0, 0, 0, 2)))
        if f.code == "R501" and view is not None and trick is not None and play is not None:
            why = revoke_help(view, trick, play, layout)
            if why is not None:
                out.append(Padding(Text(f"{layout.arrow} ").append_text(why), (0, 0, 0, 4)))
    return out


def _trick_finding_lines(view: HandView, t: TrickView, k: int, layout: Layout) -> list[RenderableType]:
    out = []
    for p in t.plays[:k]:
        out += _finding_lines(p.findings, layout, view, t, p)
    if k == len(t.plays):
        out += call_lines(view, t.calls, layout)
        out += _finding_lines(t.findings, layout)
    return out


# --------------------------------------------------------------------------- sections


def _heading(text: str) -> Text:
    return Text(text, style="bold underline")


def hand_title(view: HandView, layout: Layout = Layout(), trump_known: bool = True) -> Text:
    """One line naming the game, the hand, the rules, the dealer and (once known) trump."""
    t = Text(f"{view.game.name}", style="bold")
    t.append(f"{layout.sep}hand {view.hand.number}", style="bold")
    t.append(f"{layout.sep}{view.rules.preset}")
    if view.dealer:
        t.append(f"{layout.sep}dealer {view.dealer}")
    if trump_known and view.trump is not None and view.tricks:
        t.append(f"{layout.sep}trump ")
        t.append_text(suit_text(view.trump, layout))
    return t


def render_table(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The seats in clockwise order with the dealer and pitcher marked, and the teams."""
    seats = Text("Seats, clockwise: ")
    # a thrown-in hand has nobody pitching, whatever seat the engine would have asked to
    pitcher = view.score.pitcher if view.score and view.score.status != "thrown-in" else None
    for i, p in enumerate(view.players):
        if i:
            seats.append(f" {layout.arrow} ")
        seats.append(p, style="bold")
        roles = [r for r, who in (("dealer", view.dealer), ("pitcher", pitcher)) if who == p]
        if roles:
            seats.append(f" ({', '.join(roles)})", style="dim")
    lines: list[RenderableType] = [_heading("The table"), seats]
    if view.teams:
        lines.append(Text("Teams: " + "; ".join(f"{name} {' & '.join(ms)}" for name, ms in view.teams.items())))
    lines += _finding_lines(view.table_findings, layout)
    return Group(*lines)


def render_deal(view: HandView, layout: Layout = Layout(), trump_known: bool = True) -> RenderableType:
    """Each player's hand as dealt, sorted by suit, trumps first once trump is known."""
    trump = view.trump if trump_known else None
    t = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
    t.add_column("player", style="bold", no_wrap=True)
    t.add_column("cards", overflow="fold")
    for p in view.players:
        name = Text(p, style="bold")
        team = view.team_of(p)
        if team:
            name.append(f" ({team})", style="dim")
        t.add_row(name, _mask_text(view.dealt.get(p, 0), layout, trump, view.rules.deck_kind))
    title = _heading("Hands as dealt")
    if not any(view.dealt.values()):
        return Group(title, Text("No deal line and no card played: the hands are not known.", style="dim"),
                     *_finding_lines(view.deal_findings, layout))
    notes: list[RenderableType] = []
    if view.inferred:
        who = "every hand" if len(view.inferred) == len(view.players) else ", ".join(view.inferred)
        notes.append(Text(f"(no deal line for {who}: inferred from the cards played)", style="dim"))
    if trump is not None:
        note = Text("trumps first: ", style="dim").append_text(suit_text(trump, layout, name=True))
        # the cards that are trumps outside their printed suit (the jick, the off-jack and jokers), by name
        extra = [c for c in trump_order(trump, view.rules.deck_kind) if suit_of(c) != trump] if 0 <= trump <= 3 else []
        if extra:
            named = _taken_points(view)
            note.append(", and ", style="dim").append_text(Text(", ").join(
                Text.assemble(f"the {named.get(c, 'trump')} ", card_text(c, layout)) for c in extra))
        notes.append(note)
    return Group(title, t, *notes, *_finding_lines(view.deal_findings, layout))


def _top_bid(rules: Rules, contract: int) -> str:
    """`` (smudge)`` after a contract that is the preset's named top bid."""
    return f" ({rules.top_bid_words[0]})" if rules.top_bid_words and contract == rules.top_bid else ""


def contract_text(view: HandView, layout: Layout = Layout()) -> Text:
    """Who pitches and what they must make, in words."""
    hs, rules = view.score, view.rules
    if view.hand.misdeal is not None:
        return Text("Misdeal: the deal is void and passes to the left.")
    if hs is None:
        return Text("The auction could not be judged (see the findings).")
    if hs.status == "thrown-in":
        if rules.all_pass == "dealer-set-back" and view.dealer:
            side = view.team_of(view.dealer)
            who = f"the dealer {view.dealer}'s side {side} is" if side else f"the dealer {view.dealer} is"
            return Text(f"Everybody passed: the hand is not played, and {who} set back {rules.min_bid} "
                        "(all_pass=dealer-set-back).")
        again = " and the same dealer deals again" if rules.all_pass == "redeal" else ""
        return Text(f"Everybody passed: the hand is thrown in{again}.")
    if hs.pitcher is None:
        return Text("Nobody pitches.")
    top = _top_bid(rules, hs.contract)
    if hs.seller:
        t = Text(f"{hs.seller} sells to {hs.pitcher} for {hs.sale}: {hs.seller} scores {hs.sale} at once; "
                 f"{hs.pitcher} pitches")
        t.append(f" and must make {hs.contract}." if hs.contract else " with nothing to make.")
        return t
    if hs.contract:
        if hs.takeover:
            double = "; if set, the side loses double" if rules.double_loss else ""
            return Text.assemble(Text(hs.pitcher, style="bold"), f", the dealer, takes over the pitch: contract "
                                 f"{hs.contract}{top}{double}.")
        return Text.assemble(Text(hs.pitcher, style="bold"), f" pitches: contract {hs.contract}{top}.")
    return Text.assemble(Text(hs.pitcher, style="bold"), " pitches with no contract (nobody bid).")


def render_auction(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The bids in the order spoken, then the pitcher and contract."""
    bids = Text("Bids: ")
    if view.hand.bids and view.hand.bids.bids:
        for i, b in enumerate(view.hand.bids.bids):
            if i:
                bids.append(layout.sep)
            bids.append(b.player, style="bold")
            bids.append(f" {b.word}", style="dim" if b.word == "pass" else "")
    else:
        bids.append("none recorded", style="dim")
    exchanges = []
    if view.hand.widow:
        exchanges.append(Text("Widow: ", style="dim").append_text(
            cards_text(view.hand.widow.cards, layout, view.trump, deck_kind=view.rules.deck_kind)))
    for x in view.hand.exchanges:  # discards and draws, in the order they happened
        line = Text(f"{x.kind.capitalize()} ", style="dim")
        line.append(x.holding.player, style="bold")
        line.append(": ")
        line.append_text(cards_text(x.holding.cards, layout, view.trump, deck_kind=view.rules.deck_kind))
        exchanges.append(line)
    return Group(_heading("The auction"), bids, contract_text(view, layout), *exchanges,
                 *_finding_lines(view.auction_findings, layout))


def _play_notes(view: HandView, t: TrickView, i: int, k: int, layout: Layout) -> Text:
    """The marks beside one card: who wins, High, Low, Jack, findings."""
    p = t.plays[i]
    notes: list[Text] = []
    complete = k == len(t.plays)
    if complete and t.winner_pos == i:
        notes.append(Text("wins", style="bold"))
    elif not complete and i == t.leading_pos(k):
        notes.append(Text("best so far", style="dim"))
    hs = view.score
    name = CARD_NAMES[p.card]
    if hs is not None and hs.high_card == name:
        notes.append(Text("High", style="bold cyan"))
    if hs is not None and hs.low_card == name:
        notes.append(Text("Low", style="bold cyan"))
    point = _taken_points(view).get(p.card)
    if point:
        notes.append(Text(point, style="bold cyan"))
    notes += [_mark(f, layout) for f in p.findings]
    return Text(" ").join(notes)


def _taken_points(view: HandView) -> dict[int, str]:
    """The cards whose point goes to the taker of their trick: the jack of trumps, and in the rule sets that
    have them the off-jack or the jick, the jokers, the trey (3) and the ten (Game by the ten); the core's
    one table of them, the one the engine counts by."""
    if view.trump is None or view.trump > 3:
        return {}
    return {card: name if worth == 1 else f"{name} ({worth})"
            for name, card, worth in _core.captured_points(view.rules, view.trump)}


def carries_text(view: HandView, t: TrickView, layout: Layout = Layout()) -> Text:
    """What a complete trick carries for its taker: the Jack, the Low card, its Game count."""
    out = Text("Carries: ")
    parts: list[Text] = []
    taker = t.winner or "?"
    taken = _taken_points(view)
    for p in t.plays:
        if p.card in taken:
            parts.append(Text.assemble(f"{taken[p.card]} ", card_text(p.card, layout), f" {layout.arrow} {taker}"))
    hs = view.score
    if hs is not None and hs.low_card:
        low = next((p for p in t.plays if CARD_NAMES[p.card] == hs.low_card), None)
        if low is not None:
            owner = f"{low.player} (its holder)" if view.rules.low == "holder" else f"{taker} (the taker)"
            parts.append(Text.assemble("Low ", card_text(low.card, layout), f" {layout.arrow} {owner}"))
    counting = [p.card for p in t.plays if CARD_COUNT[p.card]]
    game = Text(f"Game count {t.count}")
    if counting:
        game.append(" (")
        game.append_text(Text(", ").join(Text.assemble(card_text(c, layout), f" {CARD_COUNT[c]}")
                                         for c in counting))
        game.append(")")
    parts.append(game)
    out.append_text(Text(layout.sep).join(parts))
    return out


def _dropped_out(view: HandView, t: TrickView) -> list[str]:
    """``trumps_only``: the players with no trump left, who sit this trick out."""
    if not view.rules.trumps_only or view.trump is None:
        return []
    mask = effective_suit_mask(view.trump, view.trump, view.rules.deck_kind)
    played = {p.player for p in t.plays}
    return [p for p in view.players if p not in played and not t.before.get(p, 0) & mask]


def trick_heading(view: HandView, i: int, k: int | None = None, layout: Layout = Layout()) -> Text:
    """``Trick 2 of 6 · ♥ hearts led · won by Dee`` (after ``k`` cards, when stepping by card)."""
    t = view.tricks[i]
    k = len(t.plays) if k is None else k
    head = Text(f"Trick {t.number} of {len(view.tricks)}", style="bold")
    head.append(layout.sep)
    if t.led < 4:
        head.append_text(suit_text(t.led, layout, name=True))
        head.append(" led")
    else:
        head.append(f"{CARD_NAMES[t.plays[0].card]} led")
    out = _dropped_out(view, t)
    if out:
        head.append(f"{layout.sep}out (no trumps): {', '.join(out)}", style="dim")
    if k == len(t.plays):
        head.append(f"{layout.sep}won by ")
        head.append(t.winner or "?", style="bold")
    else:
        head.append(f"{layout.sep}{k} of {len(t.plays)} cards played{layout.sep}{t.plays[k].player} to play")
    return head


def render_trick(view: HandView, i: int, k: int | None = None, layout: Layout = Layout(),
                 with_left: bool = True) -> RenderableType:
    """Trick ``i`` (0-based) after ``k`` of its cards: the plays in order, marks, what it carries.

    ``with_left`` adds the cards each player has left after the trick (the full print);
    the step frames show every hand in a table of their own instead.
    """
    t = view.tricks[i]
    k = len(t.plays) if k is None else k
    complete = k == len(t.plays)
    table = Table(box=None, show_header=True, header_style="dim", padding=(0, 1), pad_edge=False)
    table.add_column("player", no_wrap=True)
    table.add_column("card", no_wrap=True)
    table.add_column("", overflow="fold")
    if with_left:
        table.add_column("left after the trick" if complete else "left", overflow="fold")
    after = t.held_after(k)
    shown = set()
    for j, p in enumerate(t.plays[:k]):
        shown.add(p.player)
        row: list[RenderableType] = [Text(p.player, style="bold"), card_text(p.card, layout),
                                     _play_notes(view, t, j, k, layout)]
        if with_left:
            row.append(_mask_text(after.get(p.player, 0), layout, view.trump, view.rules.deck_kind))
        table.add_row(*row)
    if with_left and complete:
        # a player missing from the trick (a broken record) still has a hand to show
        out = _dropped_out(view, t)
        for p in view.players:
            if p not in shown:
                table.add_row(Text(p, style="bold"), Text(layout.dash, style="dim"),
                              Text("out: no trumps" if p in out else "did not play"),
                              _mask_text(after.get(p, 0), layout, view.trump, view.rules.deck_kind))
    parts: list[RenderableType] = [trick_heading(view, i, k, layout), table]
    if view.claim == t.number:
        parts.insert(0, claim_text(view.claim))
    if complete:
        parts.append(carries_text(view, t, layout))
    parts += _trick_finding_lines(view, t, k, layout)
    return Group(*parts)


def claim_text(trick: int) -> Text:
    """``From trick 4 the hand was decided: claim``, from the analysis's claim."""
    t = Text(f"From trick {trick} the hand was decided: claim", style="bold")
    t.append(" (every legal line from here gives each side the same points)", style="dim")
    return t


def render_holdings(view: HandView, held: dict[str, int], layout: Layout = Layout(),
                    title: str = "In every hand", per_row: int = 1) -> Group:
    """The cards each player holds, in seat order, trumps first; ``per_row`` players to a row
    (several to a row keep a step frame short enough for a small terminal).
    """
    t = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
    for _ in range(per_row):
        t.add_column("player", style="bold", no_wrap=True)
        t.add_column("cards", overflow="fold")
    cells: list[RenderableType] = []
    for p in view.players:
        cells += [Text(p, style="bold"), _mask_text(held.get(p, 0), layout, view.trump, view.rules.deck_kind)]
    for at in range(0, len(cells), 2 * per_row):
        row = cells[at:at + 2 * per_row]
        t.add_row(*row, *[Text("")] * (2 * per_row - len(row)))
    return Group(Text(title, style="bold"), t)


def trick_summary(view: HandView, i: int, layout: Layout = Layout()) -> Text:
    """One line for a trick already played: ``2. Dee Q♠, Ann 3♣, ... → Dee (Game 2)``."""
    t = view.tricks[i]
    line = Text(f"{t.number}. ")
    line.append_text(Text(", ").join(Text.assemble((p.player, "bold"), " ", card_text(p.card, layout))
                                     for p in t.plays))
    line.append(f" {layout.arrow} {t.winner or '?'}")
    if t.count:
        line.append(f" (Game {t.count})", style="dim")
    for f in [*(f for p in t.plays for f in p.findings), *t.findings]:
        line.append(" ")
        line.append_text(_mark(f, layout))
    return line


def _who(side: str | None, player: str | None) -> str:
    """A side, naming the player too when they differ (a partnership's team)."""
    if side is None:
        return "nobody"
    return side if player is None or player == side else f"{side} ({player})"


def points_lines(view: HandView, layout: Layout = Layout()) -> list[RenderableType]:
    """Who got High, Low, Jack and Game, and why; the contract; penalties; going out."""
    hs, rules = view.score, view.rules
    if hs is None or not hs.scored:
        why = "a misdeal" if view.hand.misdeal else "the record is incomplete or inconsistent (see the findings)"
        return [Text(f"The hand's points cannot be recomputed: {why}.")]
    if hs.status != "played":
        if hs.status == "thrown-in":  # the auction already says what happened; the points say what it scored
            scored = ", ".join(f"{side} {v:+d}" if v else f"{side} 0" for side, v in hs.score.items())
            return [Text(f"Not played: no points are taken ({scored}).")]
        return [contract_text(view, layout)]
    out: list[RenderableType] = []
    # a grid, so that a long reason wraps under itself rather than under the point's name
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="bold cyan")
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    out.append(grid)

    def row(point: str, owner: str | None, why: Text) -> None:
        grid.add_row(point, owner or "nobody", why)

    def by(player: str | None, side: str | None) -> str:
        # in a partnership the point goes to a team: name the player who earned it
        return "" if player is None or player == side else f"{player} "

    if hs.high_holder and hs.high_card:
        hc = card_text(CARD_NAMES.index(hs.high_card), layout)
        row("High", hs.high, Text.assemble(f"{by(hs.high_holder, hs.high)}held ", hc, ", the highest trump in play"))
        lc = card_text(CARD_NAMES.index(hs.low_card), layout)
        if rules.low == "holder":
            why = Text.assemble(f"{by(hs.low_holder, hs.low)}held ", lc,
                                ", the lowest trump in play (Low goes to its holder)")
        else:
            trick = next((t for t in view.tricks if any(CARD_NAMES[p.card] == hs.low_card for p in t.plays)), None)
            why = Text.assemble(lc, f", the lowest trump in play (held by {hs.low_holder}), fell in trick "
                                f"{trick.number if trick else '?'}, taken by {trick.winner if trick else '?'} "
                                "(Low goes to the taker)")
        row("Low", hs.low, why)
    taken = {name: card for card, name in _taken_points(view).items()}
    for name, owner, worth, _ in hs.awards:
        card = taken.get("Trey (3)" if name == "Trey" else name)
        if name in ("High", "Low") or card is None:
            continue
        label = f"{name} ({worth})" if worth != 1 else name
        trick = next((t for t in view.tricks if any(p.card == card for p in t.plays)), None)
        if trick is None:
            row(label, None, Text.assemble(card_text(card, layout), " was not in play"))
        else:
            who = by(trick.winner, owner)
            row(label, owner, Text.assemble(f"{who}took ", card_text(card, layout), f" in trick {trick.number}"))
    counts = ", ".join(f"{k} {v}" for k, v in sorted(hs.counts.items(), key=lambda kv: -kv[1]))
    if rules.game_point == "count":
        if hs.game_point:
            row("Game", hs.game_point, Text(f"the most Game count ({counts})"))
        else:
            row("Game", None, Text(f"a tie for the most Game count ({counts})"))

    if hs.seller:
        out.append(Text(f"{hs.seller} sold the pitch for {hs.sale}: {hs.sale} to {hs.seller} whatever the play."))
    side = hs.pitcher_side
    if side is not None and hs.contract:
        made = hs.made.get(side, 0)
        top = _top_bid(rules, hs.contract)
        head = Text.assemble(("Contract: ", "bold"), f"{_who(side, hs.pitcher)} bid {hs.contract}{top}, made {made}: ")
        if side in hs.revokers:
            head.append("revoked", style="bold red")
            head.append(": the revoke penalty below replaces the contract.")
        elif hs.contract_made:
            head.append("made it", style="bold green")
            jump = (f": shooting the moon, the score jumps from {hs.moon_from} to "
                    f"{hs.moon_from + hs.score.get(side, 0)}" if hs.moon_from is not None else "")
            head.append(f", scores {hs.score.get(side, 0)}{jump}" + (f" ({hs.contract_rule})." if hs.contract_rule
                                                                     else "."))
        elif side not in hs.revokers and hs.revokers:
            head.append("short, but not set", style="bold yellow")
            head.append(f": a pitcher cannot be set in a hand where someone else revoked; scores {made}.")
        else:
            head.append("set", style="bold red")
            back = -hs.score.get(side, 0)
            double = " (double: the dealer took over a pitch)" if back == 2 * hs.contract and hs.takeover else ""
            head.append(f", goes back {back}{double}" + (f": {hs.contract_rule}." if hs.contract_rule else "."))
        out.append(head)
    elif hs.pitcher:
        out.append(Text.assemble(("Contract: ", "bold"), f"none: {hs.pitcher} pitched with nothing to make."))
    for s in hs.revokers:
        bid = "the bid" if rules.revoke == "bid" else "the highest bid made in the hand"
        where = sorted({t for t, _, pl, _, _ in hs.revoke_plays if pl == s or view.team_of(pl) == s})
        at = f" (trick {', '.join(map(str, where))})" if where else ""
        out.append(Text.assemble(("Penalty: ", "bold red"), f"{s} revoked{at}: scores nothing and goes back "
                                 f"{hs.penalties.get(s, 0)} ({bid})."))
    if hs.went_out and rules.smudge == "moon" and hs.smudge and hs.contract_made is False:
        out.append(Text.assemble(("Game over: ", "bold"), f"{hs.pitcher_side} shot the moon and failed, so "
                                 f"{hs.went_out} win{'s' if hs.went_out == hs.pitcher else ''} the game."))
    elif hs.went_out:
        why = f": {hs.out_why}" if hs.out_why else ""
        out.append(Text.assemble(("Game over: ", "bold"), f"{hs.went_out} goes out in this hand{why}."))
    return out


def render_scores(view: HandView, layout: Layout = Layout()) -> Group:
    """Per player (or team): points made, hand score and running total, recomputed beside the sheet."""
    hs, rules = view.score, view.rules
    total_word = "needs" if rules.count_down else "total"
    heading = Text("Scores, recomputed and on the sheet", style="bold")
    if rules.count_down:
        heading.append(" (totals: points still needed)", style="dim")
    t = Table(box=None, header_style="dim", padding=(0, 1), pad_edge=False)
    t.add_column("", no_wrap=True)
    t.add_column("made", justify="right", no_wrap=True)
    t.add_column("score", justify="right", no_wrap=True)
    t.add_column("sheet", justify="right", no_wrap=True)
    t.add_column(total_word, justify="right", no_wrap=True)
    t.add_column("sheet", justify="right", no_wrap=True)
    sides = list(view.teams) or list(view.players)
    rec = (hs.recorded if hs else None) or (view.hand.score.as_dict() if view.hand.score else None)
    rec_total = (hs.recorded_total if hs else None) or (view.hand.total.as_dict() if view.hand.total else None)

    def cell(value: int | None) -> Text:
        return Text(layout.dash, style="dim") if value is None else Text(str(value))

    def sheet(written: int | None, computed: int | None, have_line: bool) -> Text:
        if not have_line:
            return Text(layout.dash, style="dim")
        if written is None:
            return Text(f"none {layout.error_mark}", style="bold red")
        if computed is not None and written != computed:
            return Text(f"{written} {layout.error_mark}", style="bold red")
        return Text(str(written))

    scored = hs is not None and hs.scored
    for s in sides:
        made = hs.made.get(s, 0) if scored and hs.made else None
        score = hs.score.get(s, 0) if scored else None
        total = hs.total.get(s) if hs is not None and hs.total else None
        t.add_row(Text(s, style="bold"), cell(made), cell(score),
                  sheet(rec.get(s) if rec else None, score, rec is not None),
                  cell(total), sheet(rec_total.get(s) if rec_total else None, total, rec_total is not None))
    return Group(heading, t)


def render_points(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The end of the hand: points and why, contract, penalties, scores against the sheet, findings."""
    lines: list[RenderableType] = [_heading("Points"), *points_lines(view, layout)]
    if view.hand.misdeal is not None:
        lines = [contract_text(view, layout)]
    scores: list[RenderableType] = [render_scores(view, layout), *call_lines(view, view.calls, layout)]
    if view.score_findings:
        scores += _finding_lines(view.score_findings, layout)
    elif view.hand.score is not None and view.score is not None and view.score.scored:
        scores.append(Text("The sheet agrees with the recomputed score.", style="green"))
    carried = carried_differences(view)
    if carried:
        scores.append(Text(f"The sheet's total for {', '.join(carried)} already differed before this hand: "
                           "see the game's score sheet (--game without --hand).", style="yellow"))
    return _side_by_side(Group(*lines), Group(*scores), layout, (3, 2))


def carried_differences(view: HandView) -> list[str]:
    """Sides whose written total differs from the recomputed one though this hand's written
    score and total line are right: the mistake was made in an earlier hand.
    """
    hs = view.score
    if hs is None or not hs.scored or not hs.recorded_total or not hs.total:
        return []
    sign = -1 if view.rules.count_down else 1
    rec = hs.recorded or {}
    out = []
    for s, written in hs.recorded_total.items():
        computed = hs.total.get(s)
        if computed is None or written == computed or rec.get(s) != hs.score.get(s):
            continue
        # the total before this hand, on each reckoning, already differed
        if written - sign * rec.get(s, 0) != computed - sign * hs.score.get(s, 0):
            out.append(s)
    return out


def _side_by_side(left: RenderableType, right: RenderableType, layout: Layout,
                  ratio: tuple[int, int] = (1, 1)) -> RenderableType:
    """Two panels next to each other when the width allows, else one above the other."""
    if not layout.wide:
        return Group(left, Text(), right)
    grid = Table.grid(padding=(0, 3), expand=True)
    grid.add_column(ratio=ratio[0])
    grid.add_column(ratio=ratio[1])
    grid.add_row(left, right)
    return grid


def render_hand(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The whole hand for a full print: table, deal, auction, every trick, points."""
    parts: list[RenderableType] = [hand_title(view, layout), Text(), render_table(view, layout), Text()]
    if view.hand.misdeal is not None:
        return Group(*parts, render_points(view, layout))
    parts += [_side_by_side(render_deal(view, layout), render_auction(view, layout), layout), Text()]
    if view.tricks:
        parts.append(_heading("The play"))
    for i in range(len(view.tricks)):
        parts += [render_trick(view, i, layout=layout), Text()]
    parts.append(render_points(view, layout))
    return Group(*parts)


def render_analysis(view: HandView, a: HandAnalysis, layout: Layout = Layout()) -> RenderableType:
    """Perfect play beside the record (``replay --analyze``): par, the result, each card's cost,
    the claim, and what each revoke cost the innocent side."""
    parts: list[RenderableType] = [_heading("Perfect play")]
    if a.not_analysable:
        parts.append(Text(f"not analysable: {a.not_analysable}"))
        return Group(*parts)
    suit = SUITS.index(a.trump) if a.trump else None
    line = Text(f"par {a.par} for {a.pitcher}: the pitcher's score when everyone plays perfectly from the "
                f"first lead, with ")
    if suit is not None:
        line.append_text(suit_text(suit, layout, name=True))
    line.append(" trump")
    parts.append(line)
    best = a.best_trump
    if best and best[0] != a.trump and best[1] > (a.par or 0):
        other = Text(f"pitching ")
        other.append_text(suit_text(SUITS.index(best[0]), layout, name=True))
        other.append(f" instead: par {best[1]}")
        parts.append(other)
    elif a.par_by_trump_unknown:
        parts.append(Text(f"par with other trumps not known: {a.par_by_trump_unknown}"))
    parts.append(Text(f"result {a.result} as the cards fell" + (" (before revoke penalties)" if a.revokes else "")))
    if a.claim:
        parts.append(claim_text(a.claim))
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("trick", justify="right")
    width = max((p.position for p in a.plays), default=0) + 1
    for k in range(width):
        table.add_column("lead" if k == 0 else f"{k + 1}.")
    by_trick: dict[int, list] = {}
    for p in a.plays:
        by_trick.setdefault(p.trick, []).append(p)
    for t, plays in by_trick.items():
        cells: list[Text] = []
        for p in plays:
            cell = Text(f"{p.player} ")
            cell.append_text(card_text(CARD_NAMES.index(p.card), layout))
            if p.cost > 0:
                cell.append(f" -{p.cost}", style="bold red")
            elif p.cost < 0:
                cell.append(f" +{-p.cost}", style="yellow")
            if p.illegal:
                cell.append(" revoke", style="red")
            cells.append(cell)
        table.add_row(str(t), *cells)
    parts += [Text("each card's cost to its side (-N: a mistake of N points; blank: it kept the value):"), table]
    parts += [Text(f"  {mistake_text(m)}") for m in a.mistakes]
    for r in a.revokes:
        innocent = " and ".join(r.innocent)
        verdict = (f"cost {innocent} {points_text(r.damage)}" if r.damage
                   else f"cost {innocent} nothing")
        parts.append(Text(f"the revoke by {r.revoker} in trick {r.trick} {verdict}: with a legal card "
                          f"({r.line[0][1] if r.line else '?'}) {innocent} were sure of {points_text(r.sure)}, "
                          f"and took {points_text(r.took)}"))
    return Group(*parts)


# --------------------------------------------------------------------------- step frames


@dataclass(frozen=True)
class Frame:
    """One screen of ``--step``: a label for the footer and a drawing for a layout."""

    label: str
    draw: Callable[[Layout], RenderableType]


def _history(view: HandView, upto: int, layout: Layout, keep: int | None = None) -> list[RenderableType]:
    """One line per trick before ``upto``; only the last ``keep`` of them when space is short."""
    if upto <= 0:
        return []
    first = 0 if keep is None else max(0, upto - keep)
    if first == upto:
        return []  # no room at all: the current trick matters more
    lines: list[RenderableType] = []
    if first:
        lines.append(Text(f"({first} earlier trick{'s' * (first != 1)} not shown: b goes back)", style="dim"))
    return lines + [trick_summary(view, j, layout) for j in range(first, upto)] + [Text()]


def _lines_needed(renderable: RenderableType, layout: Layout) -> int:
    """How many rows ``renderable`` takes at the layout's width."""
    console = Console(width=layout.width, file=io.StringIO(), color_system=None, legacy_windows=False)
    return len(console.render_lines(renderable, console.options, pad=False, new_lines=False))


def _fit_height(build: Callable[[int | None], RenderableType], history: int, layout: Layout) -> RenderableType:
    """The frame ``build(keep)`` keeping as many history lines as the screen has room for.

    Step frames are redrawn from the top of the screen: one taller than the terminal would
    push the title, and the footer's keys, out of sight.
    """
    if layout.height is None or history == 0:
        return build(None)
    room = layout.height - FOOTER_ROWS
    for keep in range(history, -1, -1):
        frame = build(keep)
        if _lines_needed(frame, layout) <= room:
            return frame
    return build(0)


def deal_frame(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The first step: the table, the hands as dealt (trump not yet named), the auction."""
    return Group(hand_title(view, layout, trump_known=False), Text(), render_table(view, layout), Text(),
                 _side_by_side(render_deal(view, layout, trump_known=False), render_auction(view, layout), layout))


def trick_frame(view: HandView, i: int, k: int | None = None, layout: Layout = Layout()) -> RenderableType:
    """A step inside the play: tricks so far, trick ``i`` after ``k`` cards, every hand now."""
    t = view.tricks[i]
    k = len(t.plays) if k is None else k
    trick = render_trick(view, i, k, layout, with_left=False)
    # stacked under the trick, the hands go two or three to a row; beside it, one per row
    per_row = 1 if layout.wide else max(1, layout.width // 28)
    hands = render_holdings(view, t.held_after(k), layout,
                            "Left in every hand" if k == len(t.plays) else "In every hand now", per_row)
    return _fit_height(lambda keep: Group(hand_title(view, layout), contract_text(view, layout), Text(),
                                          *_history(view, i, layout, keep),
                                          _side_by_side(trick, hands, layout, (3, 2))),
                       i, layout)


def points_frame(view: HandView, layout: Layout = Layout()) -> RenderableType:
    """The last step: every trick in one line each, then the points and the scores."""
    return _fit_height(lambda keep: Group(hand_title(view, layout), contract_text(view, layout), Text(),
                                          *_history(view, len(view.tricks), layout, keep),
                                          render_points(view, layout)),
                       len(view.tricks), layout)


def hand_frames(view: HandView, by_card: bool = False) -> list[Frame]:
    """The steps of one hand: the deal, each trick (or each card), the points."""
    if view.hand.misdeal is not None:
        return [Frame("misdeal", lambda lay: render_hand(view, lay))]
    frames = [Frame("deal and auction", lambda lay: deal_frame(view, lay))]
    for i, t in enumerate(view.tricks):
        if by_card:
            for k in range(1, len(t.plays) + 1):
                frames.append(Frame(f"trick {t.number}, card {k}",
                                    lambda lay, i=i, k=k: trick_frame(view, i, k, lay)))
        else:
            frames.append(Frame(f"trick {t.number}", lambda lay, i=i: trick_frame(view, i, None, lay)))
    if view.tricks or view.hand.score is not None:
        frames.append(Frame("points", lambda lay: points_frame(view, lay)))
    return frames


def with_footer(frame: Frame, index: int, count: int, layout: Layout = Layout()) -> RenderableType:
    """A frame with the step counter and the keys below it."""
    # short enough to stay on one row at 60 columns; Enter and the arrow keys work too
    keys = "Space next" + layout.sep + "b back" + layout.sep + "q quit"
    foot = Text(f"step {index + 1}/{count}: {frame.label}", style="bold")
    foot.append(layout.sep + ("the end: b back" + layout.sep + "q quit" if index + 1 == count else keys), style="dim")
    return Group(frame.draw(layout), Text(), foot)


FOOTER_ROWS = 3  # the blank line and the step line under a frame, and the cursor's row


NEXT, BACK, QUIT, FIRST, LAST = "next", "back", "quit", "first", "last"
_KEY_ACTIONS = {
    " ": NEXT, "\r": NEXT, "\n": NEXT, "n": NEXT, "j": NEXT, "l": NEXT, "\x1b[C": NEXT, "\x1b[B": NEXT,
    "\x1b[6~": NEXT,
    "b": BACK, "p": BACK, "k": BACK, "h": BACK, "\x7f": BACK, "\x08": BACK, "\x1b[D": BACK, "\x1b[A": BACK,
    "\x1b[5~": BACK,
    "q": QUIT, "Q": QUIT, "\x1b": QUIT, "\x03": QUIT, "\x04": QUIT,
    "g": FIRST, "\x1b[H": FIRST, "G": LAST, "\x1b[F": LAST,
}


def split_keys(data: str) -> list[str]:
    """Cut what one read from the terminal returned into keys (arrow keys are escape sequences).

    >>> split_keys(" b\\x1b[Cq")
    [' ', 'b', '\\x1b[C', 'q']
    """
    out: list[str] = []
    i = 0
    while i < len(data):
        if data.startswith("\x1b[", i):
            j = i + 2
            while j < len(data) and not (data[j].isalpha() or data[j] == "~"):
                j += 1
            out.append(data[i:j + 1])
            i = j + 1
        else:
            out.append(data[i])
            i += 1
    return out


def key_action(key: str) -> str | None:
    """What a key does in ``--step``: ``next``, ``back``, ``quit``, ``first``, ``last`` or nothing.

    >>> [key_action(k) for k in (" ", "\\r", "b", "q", "x")]
    ['next', 'next', 'back', 'quit', None]
    """
    return _KEY_ACTIONS.get(key)


def run_steps(count: int, draw: Callable[[int], None], keys: Iterable[str]) -> int:
    """Show step 0, then move through ``count`` steps as ``keys`` say; returns the last step shown.

    ``draw(i)`` puts step ``i`` on the screen.  Moving past either end stays put (so that an
    extra key press at the end of the hand does not end the replay); ``q`` quits.

    >>> shown = []
    >>> run_steps(3, shown.append, [" ", " ", " ", "b", "q", " "])
    1
    >>> shown
    [0, 1, 2, 1]
    """
    i = 0
    draw(i)
    for key in keys:
        action = key_action(key)
        if action == QUIT:
            break
        j = {NEXT: min(i + 1, count - 1), BACK: max(i - 1, 0), FIRST: 0, LAST: count - 1}.get(action, i)
        if j != i:
            i = j
            draw(i)
    return i


# --------------------------------------------------------------------------- a whole game


def _sides(result: GameResult) -> list[str]:
    return list(result.sides) or list(result.game.players)


def hand_outcome(hs: HandScore | None, layout: Layout = Layout()) -> str:
    """A few words on a hand's contract for the score sheet: ``Dee 4 set``, ``misdeal``."""
    if hs is None:
        return "?"
    if hs.status == "thrown-in" and any(hs.score.values()):
        return "passed: " + ", ".join(f"{s} {v}" for s, v in hs.score.items() if v)  # smear's set-back
    if hs.status in ("misdeal", "thrown-in"):
        return hs.status
    if hs.pitcher is None:
        return "?"
    if not hs.contract:
        return f"{hs.pitcher} -"
    verdict = {True: "made", False: "set", None: "?"}[hs.contract_made]
    if hs.contract_made is False and hs.revokers and hs.pitcher_side not in hs.revokers:
        verdict = "short"
    return f"{hs.pitcher} {hs.contract} {verdict}"


def score_sheet(result: GameResult, layout: Layout = Layout(),
                extra: Sequence[Finding] = ()) -> Group:
    """The game's score sheet: per hand the contract, then each side's running total as the
    sheet wrote it beside the recomputed one, discrepancies marked, and the findings' codes.
    """
    rules = result.rules
    sides = _sides(result)
    mark = layout.error_mark
    codes: dict[int | None, list[str]] = {}
    for f in sorted([*result.findings, *extra], key=sort_key):
        if f.hand is not None:
            codes.setdefault(f.hand, [])
            if f.code not in codes[f.hand]:
                codes[f.hand].append(f.code)
    # Two columns per side (sheet, calc) need about 12 columns each with the gaps; below
    # that, one column per side shows the recomputed total, the sheet's figure under it
    # where they differ.
    paired = 27 + 12 * len(sides) <= layout.width
    word = "needs" if rules is not None and rules.count_down else "total"
    what = "points still needed" if word == "needs" else "totals"
    heading = Text(f"Score sheet: running {what} as written (sheet) and recomputed (calc); {mark} marks a "
                   "difference" if paired else f"Score sheet: running {what} recomputed; where the sheet differs, "
                   f"its figure is under, marked {mark}", style="bold")
    t = Table(box=None, header_style="dim", padding=(0, 1), pad_edge=False, collapse_padding=True)
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("contract", overflow="fold", min_width=6)
    for s in sides:
        if paired:
            t.add_column(f"{s}\nsheet", justify="right", no_wrap=True)
            t.add_column("\ncalc", justify="right", no_wrap=True)
        else:
            t.add_column(s, justify="right", no_wrap=True)
    t.add_column("findings", overflow="fold", min_width=4)
    for i, h in enumerate(result.game.hands):
        hs = result.hands[i] if i < len(result.hands) else None
        row: list[RenderableType] = [Text(str(h.number)), Text(hand_outcome(hs, layout))]
        rec = hs.recorded_total if hs is not None else None
        for s in sides:
            calc = hs.total.get(s) if hs is not None and hs.total else None
            written = rec.get(s) if rec is not None else None
            differs = rec is not None and calc is not None and written != calc
            calc_t = Text(layout.dash if calc is None else str(calc))
            sheet_t = Text(layout.dash if rec is None else ("none" if written is None else str(written)))
            if differs:
                sheet_t.append(mark)
                sheet_t.stylize("bold red")
            if paired:
                row += [sheet_t, calc_t]
            elif differs:
                row.append(Text.assemble(calc_t, "\n", Text("sheet ", style="red"), sheet_t))
            else:
                row.append(calc_t)
        found = codes.get(h.number, [])
        row.append(Text(" ".join(found), style="bold red") if found else Text(""))
        t.add_row(*row)
    return Group(heading, t)


def score_chart(result: GameResult, layout: Layout = Layout()) -> RenderableType:
    """Each side's running total over the hands as a bar line on one shared scale; where the
    sheet's totals differ, a second line shows the sheet's, the differing hands marked.
    """
    rules = result.rules
    sides = _sides(result)
    hands = [hs for hs in result.hands]
    calc = {s: [hs.total.get(s) if hs.total else None for hs in hands] for s in sides}
    sheet = {s: [hs.recorded_total.get(s) if hs.recorded_total else None for hs in hands] for s in sides}
    values = [v for s in sides for v in calc[s] + sheet[s] if v is not None]
    if not values:
        return Text("No running totals to chart.", style="dim")
    lo, hi = min(values), max(values)
    blocks = _BLOCKS if layout.symbols else _ASCII_BLOCKS
    name_w = max(len(s) for s in sides) + 7
    room = max(10, layout.width - name_w - 8)
    per = max(1, -(-len(hands) // room))  # hands per mark, so that the line fits

    def level(v: int | None) -> str:
        if v is None:
            return " "
        if hi == lo:
            return blocks[len(blocks) // 2]
        return blocks[round((v - lo) * (len(blocks) - 1) / (hi - lo))]

    same = "·" if layout.symbols else "."

    def series(vals: list[int | None], other: list[int | None] | None = None) -> Text:
        # ``other`` given: this is the sheet's line, drawn only where it differs from the
        # recomputed one, so that a difference shows without colour too
        out = Text()
        for j in range(0, len(vals), per):
            v = vals[min(j + per, len(vals)) - 1]  # the value at the end of each group of hands
            if other is None:
                out.append(level(v), style="cyan")
            elif any(a is not None and b is not None and a != b for a, b in zip(vals[j:j + per], other[j:j + per])):
                out.append(level(v), style="bold red")
            else:
                out.append(same, style="dim")
        return out

    word = "points still needed" if rules is not None and rules.count_down else "running totals"
    title = Text(f"Chart: {word} over hands 1-{len(hands)}, lowest {lo}, highest {hi}", style="bold")
    if per > 1:
        title.append(f" (one mark per {per} hands)", style="dim")
    legend = Text(f"calc: recomputed; sheet: as written, {same} where it agrees", style="dim")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(justify="right", no_wrap=True)
    for s in sides:
        last = next((v for v in reversed(calc[s]) if v is not None), None)
        grid.add_row(Text(f"{s} calc", style="bold"), series(calc[s]), Text(str(last) if last is not None else ""))
        if any(a is not None and b is not None and a != b for a, b in zip(calc[s], sheet[s])):
            last_sheet = next((v for v in reversed(sheet[s]) if v is not None), None)
            grid.add_row(Text(f"{' ' * len(s)} sheet", style="dim"), series(sheet[s], calc[s]),
                         Text(f"{last_sheet}{layout.error_mark}", style="bold red"))
    return Group(title, grid, legend)


def game_title(game: Game, result: GameResult, layout: Layout = Layout()) -> RenderableType:
    """The game's name, rules, seats, teams and metadata tags."""
    t = Text(game.name, style="bold")
    if result.rules is not None:
        t.append(f"{layout.sep}{result.rules.to_text()}")
    t.append(f"{layout.sep}{len(game.hands)} hands")
    lines: list[RenderableType] = [t, Text("Seats, clockwise: " + f" {layout.arrow} ".join(game.players))]
    if result.rules is not None and result.rules.partnership and game.teams:
        lines.append(Text("Teams: " + "; ".join(f"{n} {' & '.join(m)}" for n, m in game.teams.items())))
    meta = [f"{n} {game.tag(n)}" for n in ("Event", "Site", "Date", "Round") if game.tag(n)]
    if meta:
        lines.append(Text(layout.sep.strip().join(f" {m} " for m in meta).strip(), style="dim"))
    return Group(*lines)


def render_game(game: Game, result: GameResult, layout: Layout = Layout(),
                extra: Sequence[Finding] = ()) -> RenderableType:
    """A whole game: the score sheet, the chart, who went out, and the game's own findings."""
    parts: list[RenderableType] = [game_title(game, result, layout), Text(), score_sheet(result, layout, extra),
                                   Text(), score_chart(result, layout), Text()]
    if result.winner:
        parts.append(Text(f"Recomputed: {result.winner} goes out in hand {result.won_in_hand}.", style="bold"))
    else:
        parts.append(Text("Recomputed: nobody has gone out.", style="bold"))
    parts.append(Text(f"The sheet names the winner: {game.winner.name}." if game.winner
                      else "The sheet names no winner."))
    if result.settlement:
        parts.append(Text("Settlement: " + ", ".join(f"{k} {v:+d}" for k, v in result.settlement.items())))
    own = [f for f in sorted([*result.findings, *extra], key=sort_key) if f.hand is None]
    parts += _finding_lines(own, layout)
    n = sum(1 for f in [*result.findings, *extra] if f.hand is not None)
    if n:
        parts.append(Text(f"{n} finding{'s' * (n != 1)} in the hands: replay a hand with --hand N to see them "
                          "at the card.", style="dim"))
    return Group(*parts)


def game_frames(game: Game, result: GameResult, extra: Sequence[Finding] = ()) -> list[Frame]:
    """The steps of a game walk: the sheet and chart, then each hand's tricks and points."""
    frames = [Frame("score sheet", lambda lay: render_game(game, result, lay, extra))]
    for h in game.hands:
        def draw(lay: Layout, number: int = h.number) -> RenderableType:
            view = build_hand_view(game, result, number, extra)
            return points_frame(view, lay)
        frames.append(Frame(f"hand {h.number}", draw))
    return frames


def render_index(source: str, games: Sequence[Game], results: Sequence[GameResult],
                 extra: Sequence[Finding] = (), layout: Layout = Layout()) -> RenderableType:
    """What a file holds: each game with its rules, hands, and the hands that have findings."""
    heading = Text(f"{source}: {len(games)} game{'s' * (len(games) != 1)}", style="bold")
    t = Table(box=None, header_style="dim", padding=(0, 1), pad_edge=False)
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("game (--game)", overflow="fold")
    t.add_column("rules", overflow="fold")
    t.add_column("hands", justify="right", no_wrap=True)
    t.add_column("findings, by hand (--hand)", overflow="fold", ratio=1)
    for g, r in zip(games, results):
        by_hand: dict[int, list[str]] = {}
        other: list[str] = []
        for f in sorted([*r.findings, *(f for f in extra if f.game == g.name)], key=sort_key):
            bucket = by_hand.setdefault(f.hand, []) if f.hand is not None else other
            if f.code not in bucket:
                bucket.append(f.code)
        text = "; ".join(f"{n}: {' '.join(cs)}" for n, cs in sorted(by_hand.items()))
        if other:
            text = "; ".join(x for x in (text, "game: " + " ".join(other)) if x)
        t.add_row(str(g.index), g.name, r.rules.preset if r.rules else "?", str(len(g.hands)),
                  Text(text or "none", style="red" if text else "green"))
    return Group(heading, t)
