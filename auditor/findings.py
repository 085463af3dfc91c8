"""Finding codes: what each means, why it matters, an example; and how findings are printed.

Codes are stable: a code once published keeps its meaning.  ``auditor explain CODE``
prints an entry of :data:`CATALOG`.

>>> CATALOG["R501"].kind, CATALOG["R501"].severity
('revoke', 'error')
>>> kind_of("S602")
'score'
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from .notation import Finding

KINDS = {"E": "input", "D": "deal", "A": "auction", "P": "play", "R": "revoke", "S": "score"}


@dataclass(frozen=True)
class Code:
    """One entry of the catalog."""

    code: str
    title: str
    why: str
    example: str
    severity: str = "error"

    @property
    def kind(self) -> str:
        return KINDS[self.code[0]]


def _c(code: str, title: str, why: str, example: str, severity: str = "error") -> tuple[str, Code]:
    return code, Code(code, title, why, example, severity)


CATALOG: dict[str, Code] = dict([
    _c("E100", "a path that does not exist or cannot be read",
       "Nothing in it could be audited.", "auditor audit missing.pitch"),
    _c("E101", "syntax error: a statement that cannot be read",
       "The statement is skipped; the rest of the hand is still read, but what it said is lost.",
       "bids Bob, Cal pass          % Bob's bid has no word"),
    _c("E102", "unknown statement keyword",
       "A misspelt keyword means a whole statement is skipped.", "dealr Ann"),
    _c("E103", "bad card token",
       "A card that cannot be read is left out of its trick, so the hand cannot be replayed in full.",
       "1. Ann:AX Bob:3S Cal:9S Dee:KS"),
    _c("E104", "unknown player",
       "Every name must be seated in the Players tag (or be a team of the Teams tag in score lines).",
       "dealer Eve                  % Players \"Ann Bob Cal Dee\""),
    _c("E105", "bad Rules tag, or a rule option this version does not support",
       "Without a rule set the game cannot be audited.", '[Rules "auction game=seven"]'),
    _c("E106", "hand numbering: hands count 1, 2, 3 ... within a game",
       "A gap or repeat often means a hand was lost or pasted twice.", "hand 1 ... hand 3"),
    _c("E107", "missing or bad required tag (Rules, Players, Teams) or a seating the preset does not allow",
       "Seats and rules drive every other check.", '[Players "Ann Bob Ann"]'),
    _c("E108", "statement out of place: outside a hand, out of order, repeated, or a required one missing",
       "The notation fixes the order of a hand's statements so that a record reads one way only.",
       "a `deal` line after the tricks"),
    _c("E109", "text encoding: bytes that are not UTF-8, NUL bytes, or a file that is not text",
       "The bytes are replaced and the line read anyway; a binary file is skipped whole.", "caf\\xe9"),
    _c("D201", "a card dealt or played twice",
       "One deck has one of each card: a duplicate means the record is wrong somewhere.",
       "1. Ann:AS Bob:3S Cal:AS Dee:KS"),
    _c("D202", "wrong hand size",
       "Each player holds the preset's hand size; a short or long hand breaks the replay.",
       "deal Ann: AS KS QS JS TS    % five cards"),
    _c("D203", "a card outside this variant's deck",
       "Jokers exist only in the ten-point presets.", "1. Ann:JKH ..."),
    _c("D204", "a card played that the deal did not give the player",
       "The deal line and the tricks disagree: one of them is wrong.",
       "deal Ann: AS ...; 1. Ann:KS  % Ann was not dealt KS"),
    _c("D205", "wrong dealer in rotation",
       "The deal passes clockwise (after a setback throw-in the same dealer deals again); a wrong dealer changes "
       "who bids last and who may steal.", "hand 1 dealer Ann / hand 2 dealer Cal"),
    _c("D206", "an illegal discard or draw (variants with a discard after trump)",
       "After trump is named only non-trumps may be thrown, except trumps in excess of the hand size; a player "
       "can only throw what they hold; with `discard=all-non-trumps` every non-trump dealt goes; the dealer "
       "refills every hand to the hand size (`draw=on`) or everyone discards down to it; with "
       "`leftover=bidder` the pitcher takes what the stock still holds.",
       "trump S / discard Ann: 7D 3S   % 3S is a trump, and Ann holds only four"),
    _c("A301", "bid out of turn, or a player missing from the auction",
       "Each player speaks once, clockwise from the dealer's left (the eldest hand's left when selling), "
       "the dealer last.", "dealer Ann / bids Cal 2, Bob pass, Dee pass, Ann pass"),
    _c("A302", "a player bids twice", "Each player has one chance to bid.", "bids Bob 2, Cal pass, Bob 3"),
    _c("A303", "bid not high enough", "Every bid must beat the standing bid (the dealer may equal it where "
       "the preset allows a steal).", "bids Bob 3, Cal 2"),
    _c("A304", "bid out of range for the preset",
       "Bids run from the preset's minimum to its top bid.", "bids Bob 7     % auction bids 2-4"),
    _c("A305", "steal not allowed",
       "Whether the dealer may take the contract by equalling the high bid (and whether a smudge may be "
       "equalled) is a preset key.", "setback: bids Bob 2, Cal pass, Dee pass, Ann 2   % Ann deals"),
    _c("A306", "all-pass handled wrongly",
       "When nobody bids, the preset says who pitches (eldest hand, no contract), whether the hand is thrown "
       "in (same dealer again), or that the dealer must bid.", "partnership: everyone passes, dealer included"),
    _c("A307", "the pitcher is not the auction's winner",
       "The auction's winner pitches: someone else leading the first trick takes the contract from them.",
       "bids Bob 2, Cal 3, Dee pass, Ann pass / 1. Bob:AS ..."),
    _c("A308", "selling auction: the eldest hand's last word is missing or misplaced",
       "In the selling auction the eldest hand ends the auction with `sells` or `keeps`.",
       "bids Cal 2, Dee pass, Ann pass        % Bob, eldest, says nothing"),
    _c("A309", "pitching: a bid after a pitch by someone other than the dealer, or a takeover that is not a new "
       "suit or a top bid",
       "With pitching=on a pitch (worth four) can only be taken over by the dealer, pitching another suit or "
       "bidding a smudge.", "bids Bob pitch H, Cal 5, Dee pass, Ann pass   % only Ann, the dealer, may take over"),
    _c("P401", "trick led by the wrong player",
       "The winner of each trick leads the next.", "Ann wins trick 1, Bob leads trick 2"),
    _c("P402", "wrong number of cards in a trick, a player playing twice, or not in clockwise order",
       "Each player plays one card to each trick, clockwise from the leader (with `trumps_only`, each player "
       "still holding a trump).", "1. Ann:AS Bob:3S Cal:9S"),
    _c("P403", "first lead not by the pitcher",
       "When nobody bid, the preset names who pitches (the eldest hand); they lead the first trick.",
       "auction, all pass, dealer Ann: Cal leads trick 1 instead of Bob"),
    _c("P404", "the trump line contradicts the first lead",
       "The first card led names trump (a joker names none: a `trump` line must then name it).",
       "trump H / 1. Ann:AS ..."),
    _c("P405", "trump played to a first trick that forbids it",
       "With first_trick_trump=free nobody may trump the first trick.", "(partnership first_trick_trump=free)"),
    _c("P406", "hand not played out, or tricks out of sequence",
       "Every card dealt is played; a missing trick means the points cannot be recomputed.",
       "tricks 1-5 recorded, trick 6 missing"),
    _c("P407", "a card played by a player who has dropped out (trumps_only)",
       "Where only trumps may be played, a player without a trump drops out of the hand's play and plays no "
       "more cards.", "(tenpoint52, trump S) 3. Ann:AS Bob:4H   % Bob holds no spade"),
    _c("R501", "revoke: a player did not follow the follow rule while able to",
       "A revoke changes who can win tricks; the preset's penalty applies (the revoker scores nothing and is set "
       "back the bid).", "2. Cal:9S Dee:4H   % Cal led spades; Dee held 7S"),
    _c("R502", "a revoke called at the table that the record does not show",
       "Either the call was wrong (and the penalty must not apply) or the record of the play is wrong.",
       "revoke Bob trick 3   % Bob followed suit in trick 3", severity="warning"),
    _c("S601", "a hand's recorded score differs from the recomputed one",
       "The sheet decides the game; a wrong hand score changes who wins.",
       "S601 Cal: recorded 1, expected 0 (High: Ann held AS; Low: Dee held 2S; ...)"),
    _c("S602", "a total line is not the previous total plus this hand's written score",
       "An arithmetic slip on the sheet, found by checking the sheet against itself.",
       "score Ann 2 / total Ann 9   % previous total 6"),
    _c("S603", "the recorded winner is wrong or missing, or hands follow the winning hand",
       "The game ends in the hand where someone goes out, by the preset's counting order.",
       "winner Bob   % Ann reached 7 first, counting the pitcher's points first"),
])


def kind_of(code: str) -> str:
    """The kind of a code: input, deal, auction, play, revoke or score."""
    return KINDS.get(code[:1], "input")


def severity_of(code: str) -> str:
    """``error`` or ``warning``."""
    c = CATALOG.get(code)
    return c.severity if c else "error"


def finding_dict(f: Finding) -> dict:
    """A finding as a flat dict with the stable field names of the JSON output."""
    d = asdict(f)
    return {
        "code": f.code, "kind": kind_of(f.code), "severity": severity_of(f.code), "file": f.source,
        "line": f.line, "column": f.column, "game": f.game or None, "hand": f.hand, "trick": f.trick,
        "player": d["subject"], "message": f.message, "expected": f.expected, "recorded": f.recorded,
    }


FIELDS = ("code", "kind", "severity", "file", "line", "column", "game", "hand", "trick", "player", "message",
          "expected", "recorded")


def select(findings: Iterable[Finding], select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Finding]:
    """Keep findings whose code starts with a ``select`` prefix (all if none) and no ``ignore`` prefix.

    >>> fs = [Finding("S601", ""), Finding("R501", ""), Finding("S602", "")]
    >>> [f.code for f in select(fs, ["S"], ["S602"])]
    ['S601']
    """
    sel = tuple(s.upper() for s in select)
    ign = tuple(s.upper() for s in ignore)
    return [f for f in findings if (not sel or f.code.startswith(sel)) and not (ign and f.code.startswith(ign))]


def sort_key(f: Finding) -> tuple:
    """File, line, column, code: the order findings are printed in."""
    return (f.source, f.line, f.column, f.code)


def format_text(f: Finding) -> str:
    """``file:line:col: CODE message`` as compilers and ruff print it."""
    return f"{f.source}:{f.line}:{f.column}: {f.code} {f.message}"


def to_json(findings: Iterable[Finding]) -> str:
    """One JSON array of finding objects."""
    return json.dumps([finding_dict(f) for f in findings], indent=2, ensure_ascii=False)


def to_jsonl(findings: Iterable[Finding]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(finding_dict(f), ensure_ascii=False) + "\n" for f in findings)


def to_csv(findings: Iterable[Finding]) -> str:
    """CSV with a header row."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    w.writeheader()
    for f in findings:
        w.writerow(finding_dict(f))
    return buf.getvalue()


def by_code(findings: Iterable[Finding]) -> Counter:
    """How many findings of each code."""
    return Counter(f.code for f in findings)


def explain(code: str) -> str | None:
    """The text ``auditor explain CODE`` prints, or ``None`` for an unknown code."""
    c = CATALOG.get(code.upper())
    if c is None:
        return None
    return (f"{c.code} ({c.kind}, {c.severity}): {c.title}\n\n"
            f"Why it matters: {c.why}\n\nExample:\n    {c.example}\n")


def catalog_markdown() -> str:
    """The catalog as a Markdown document (docs/findings.md is made from it)."""
    out = ["# Finding codes", "", "Generated from `auditor/findings.py` by `auditor explain --all`.", ""]
    for c in CATALOG.values():
        out += [f"## {c.code}: {c.title}", "", f"Kind: `{c.kind}`; severity: `{c.severity}`.", "", c.why, "",
                "```", c.example, "```", ""]
    return "\n".join(out)
