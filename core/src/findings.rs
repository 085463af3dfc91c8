//! Every finding code declared once: its kind, severity, title, why it matters and an example.
//!
//! The engine and the parser emit a [`Code`]; `auditor explain`, docs/findings.md and the
//! dataset's `kind` and `severity` columns read these declarations (through the Python bindings).

use crate::notation::Code;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// An examination that goes with another finding (what a revoke cost).
    Info,
}

impl Severity {
    /// As the findings table writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Whether `auditor fix` corrects what a finding reports, and how far it can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fix {
    /// A verdict: nothing in the record is changed for it.
    None,
    /// Arithmetic of the sheet itself, applied by default.
    Safe,
    /// The audit's ruling written into the sheet, only with `--unsafe-fixes`.
    Unsafe,
}

impl Fix {
    /// As `auditor explain` and the catalogue write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fix::None => "none",
            Fix::Safe => "safe",
            Fix::Unsafe => "unsafe",
        }
    }
}

/// One entry of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Declaration {
    pub code: Code,
    pub severity: Severity,
    pub title: &'static str,
    pub why: &'static str,
    pub example: &'static str,
    /// What `auditor fix` does about it.
    pub fix: Fix,
    /// The section of the docs that states the rule it applies: `rules.md#anchor` or
    /// `notation.md#anchor` (a test checks that every anchor is a heading there).
    pub section: &'static str,
}

impl Code {
    /// What the code is about, from its letter: input, deal, auction, play, revoke, score.
    pub fn kind(self) -> &'static str {
        match self.as_str().as_bytes().first() {
            Some(b'E') => "input",
            Some(b'D') => "deal",
            Some(b'A') => "auction",
            Some(b'P') => "play",
            Some(b'R') => "revoke",
            _ => "score",
        }
    }

    /// The code's declaration (every code has one: a test checks).
    pub fn declaration(self) -> Option<&'static Declaration> {
        CATALOG.iter().find(|d| d.code == self)
    }
}

/// Every code, in catalogue order.
pub static CATALOG: [Declaration; 38] = [
    Declaration {
        code: Code::E100,
        severity: Severity::Error,
        title: "a path that does not exist or cannot be read",
        why: "Nothing in it could be audited.",
        example: "auditor audit missing.pitch",
        fix: Fix::None,
        section: "notation.md#bad-input-how-it-is-reported",
    },
    Declaration {
        code: Code::E101,
        severity: Severity::Error,
        title: "syntax error: a statement that cannot be read",
        why: "The statement is skipped; the rest of the hand is still read, but what it said is lost.",
        example: "bids Bob, Cal pass          % Bob's bid has no word",
        fix: Fix::None,
        section: "notation.md#statements",
    },
    Declaration {
        code: Code::E102,
        severity: Severity::Error,
        title: "unknown statement keyword",
        why: "A misspelt keyword means a whole statement is skipped.",
        example: "dealr Ann",
        fix: Fix::None,
        section: "notation.md#statements",
    },
    Declaration {
        code: Code::E103,
        severity: Severity::Error,
        title: "bad card token",
        why: "A card that cannot be read is left out of its trick, so the hand cannot be replayed in full.",
        example: "1. Ann:AX Bob:3S Cal:9S Dee:KS",
        fix: Fix::None,
        section: "notation.md#tricks",
    },
    Declaration {
        code: Code::E104,
        severity: Severity::Error,
        title: "unknown player",
        why: "Every name must be seated in the Players tag (or be a team of the Teams tag in score lines).",
        example: "dealer Eve                  % Players \"Ann Bob Cal Dee\"",
        fix: Fix::None,
        section: "notation.md#games-and-tags",
    },
    Declaration {
        code: Code::E105,
        severity: Severity::Error,
        title: "bad Rules tag, or a rule option this version does not support",
        why: "Without a rule set the game cannot be audited.",
        example: "[Rules \"auction game=seven\"]",
        fix: Fix::None,
        section: "rules.md#overriding-a-rule",
    },
    Declaration {
        code: Code::E106,
        severity: Severity::Error,
        title: "hand numbering: hands count 1, 2, 3 ... within a game",
        why: "A gap or repeat often means a hand was lost or pasted twice.",
        example: "hand 1 ... hand 3",
        fix: Fix::None,
        section: "notation.md#hands",
    },
    Declaration {
        code: Code::E107,
        severity: Severity::Error,
        title: "missing or bad required tag (Rules, Players, Teams) or a seating the preset does not allow",
        why: "Seats and rules drive every other check.",
        example: "[Players \"Ann Bob Ann\"]",
        fix: Fix::None,
        section: "notation.md#required-tags-for-each-preset",
    },
    Declaration {
        code: Code::E108,
        severity: Severity::Error,
        title: "statement out of place: outside a hand, out of order, repeated, or a required one missing",
        why: "The notation fixes the order of a hand's statements so that a record reads one way only.",
        example: "a `deal` line after the tricks",
        fix: Fix::None,
        section: "notation.md#hands",
    },
    Declaration {
        code: Code::E109,
        severity: Severity::Error,
        title: "text encoding: bytes that are not UTF-8, NUL bytes, or a file that is not text",
        why: "The bytes are replaced and the line read anyway; a binary file is skipped whole.",
        example: "caf\\xe9",
        fix: Fix::None,
        section: "notation.md#encoding-and-file-shape",
    },
    Declaration {
        code: Code::D201,
        severity: Severity::Error,
        title: "a card dealt or played twice",
        why: "One deck has one of each card: a duplicate means the record is wrong somewhere.",
        example: "1. Ann:AS Bob:3S Cal:AS Dee:KS",
        fix: Fix::None,
        section: "notation.md#hands",
    },
    Declaration {
        code: Code::D202,
        severity: Severity::Error,
        title: "wrong hand size",
        why: "Each player holds the preset's hand size; a short or long hand breaks the replay.",
        example: "deal Ann: AS KS QS JS TS    % five cards",
        fix: Fix::None,
        section: "notation.md#hands",
    },
    Declaration {
        code: Code::D203,
        severity: Severity::Error,
        title: "a card outside this variant's deck",
        why: "Jokers exist only in the ten-point presets.",
        example: "1. Ann:JKH ...",
        fix: Fix::None,
        section: "rules.md#rule-keys",
    },
    Declaration {
        code: Code::D204,
        severity: Severity::Error,
        title: "a card played that the deal did not give the player",
        why: "The deal line and the tricks disagree: one of them is wrong.",
        example: "deal Ann: AS ...; 1. Ann:KS  % Ann was not dealt KS",
        fix: Fix::None,
        section: "notation.md#hands",
    },
    Declaration {
        code: Code::D205,
        severity: Severity::Error,
        title: "wrong dealer in rotation",
        why: "The deal passes clockwise (after a setback throw-in the same dealer deals again); a wrong dealer changes who bids last and who may steal.",
        example: "hand 1 dealer Ann / hand 2 dealer Cal",
        fix: Fix::None,
        section: "rules.md#dealer-rotation-d205",
    },
    Declaration {
        code: Code::D206,
        severity: Severity::Error,
        title: "an illegal discard or draw (variants with a discard after trump)",
        why: "After trump is named only non-trumps may be thrown, except trumps in excess of the hand size; a player can only throw what they hold; with `discard=all-non-trumps` every non-trump dealt goes; the dealer refills every hand to the hand size (`draw=on`) or everyone discards down to it; with `leftover=bidder` the pitcher takes what the stock still holds.",
        example: "trump S / discard Ann: 7D 3S   % 3S is a trump, and Ann holds only four",
        fix: Fix::None,
        section: "rules.md#the-partnership-variations",
    },
    Declaration {
        code: Code::A301,
        severity: Severity::Error,
        title: "bid out of turn, or a player missing from the auction",
        why: "Each player speaks once, clockwise from the dealer's left (the eldest hand's left when selling), the dealer last.",
        example: "dealer Ann / bids Cal 2, Bob pass, Dee pass, Ann pass",
        fix: Fix::None,
        section: "rules.md#speaking-order-a301-a302",
    },
    Declaration {
        code: Code::A302,
        severity: Severity::Error,
        title: "a player bids twice",
        why: "Each player has one chance to bid.",
        example: "bids Bob 2, Cal pass, Bob 3",
        fix: Fix::None,
        section: "rules.md#speaking-order-a301-a302",
    },
    Declaration {
        code: Code::A303,
        severity: Severity::Error,
        title: "bid not high enough",
        why: "Every bid must beat the standing bid (the dealer may equal it where the preset allows a steal).",
        example: "bids Bob 3, Cal 2",
        fix: Fix::None,
        section: "rules.md#bid-words-and-the-top-bid-a303-a304",
    },
    Declaration {
        code: Code::A304,
        severity: Severity::Error,
        title: "bid out of range for the preset",
        why: "Bids run from the preset's minimum to its top bid.",
        example: "bids Bob 7     % auction bids 2-4",
        fix: Fix::None,
        section: "rules.md#bid-words-and-the-top-bid-a303-a304",
    },
    Declaration {
        code: Code::A305,
        severity: Severity::Error,
        title: "steal not allowed",
        why: "Whether the dealer may take the contract by equalling the high bid (and whether a smudge may be equalled) is a preset key.",
        example: "setback: bids Bob 2, Cal pass, Dee pass, Ann 2   % Ann deals",
        fix: Fix::None,
        section: "rules.md#dealer-steal-a305",
    },
    Declaration {
        code: Code::A306,
        severity: Severity::Error,
        title: "all-pass handled wrongly",
        why: "When nobody bids, the preset says who pitches (eldest hand, no contract), whether the hand is thrown in (same dealer again), or that the dealer must bid.",
        example: "partnership: everyone passes, dealer included",
        fix: Fix::None,
        section: "rules.md#when-everybody-passes-a306",
    },
    Declaration {
        code: Code::A307,
        severity: Severity::Error,
        title: "the pitcher is not the auction's winner",
        why: "The auction's winner pitches: someone else leading the first trick takes the contract from them.",
        example: "bids Bob 2, Cal 3, Dee pass, Ann pass / 1. Bob:AS ...",
        fix: Fix::None,
        section: "rules.md#who-pitches-a307-p403",
    },
    Declaration {
        code: Code::A308,
        severity: Severity::Error,
        title: "selling auction: the eldest hand's last word is missing or misplaced",
        why: "In the selling auction the eldest hand ends the auction with `sells` or `keeps`.",
        example: "bids Cal 2, Dee pass, Ann pass        % Bob, eldest, says nothing",
        fix: Fix::None,
        section: "rules.md#the-selling-auction-auctionsell-a308",
    },
    Declaration {
        code: Code::A309,
        severity: Severity::Error,
        title: "pitching: a bid after a pitch by someone other than the dealer, or a takeover that is not a new suit or a top bid",
        why: "With pitching=on a pitch (worth four) can only be taken over by the dealer, pitching another suit or bidding a smudge.",
        example: "bids Bob pitch H, Cal 5, Dee pass, Ann pass   % only Ann, the dealer, may take over",
        fix: Fix::None,
        section: "rules.md#the-partnership-variations",
    },
    Declaration {
        code: Code::P401,
        severity: Severity::Error,
        title: "trick led by the wrong player",
        why: "The winner of each trick leads the next.",
        example: "Ann wins trick 1, Bob leads trick 2",
        fix: Fix::None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
    },
    Declaration {
        code: Code::P402,
        severity: Severity::Error,
        title: "wrong number of cards in a trick, a player playing twice, or not in clockwise order",
        why: "Each player plays one card to each trick, clockwise from the leader (with `trumps_only`, each player still holding a trump).",
        example: "1. Ann:AS Bob:3S Cal:9S",
        fix: Fix::None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
    },
    Declaration {
        code: Code::P403,
        severity: Severity::Error,
        title: "first lead not by the pitcher",
        why: "When nobody bid, the preset names who pitches (the eldest hand); they lead the first trick.",
        example: "auction, all pass, dealer Ann: Cal leads trick 1 instead of Bob",
        fix: Fix::None,
        section: "rules.md#who-pitches-a307-p403",
    },
    Declaration {
        code: Code::P404,
        severity: Severity::Error,
        title: "the trump line contradicts the first lead",
        why: "The first card led names trump (a joker names none: a `trump` line must then name it).",
        example: "trump H / 1. Ann:AS ...",
        fix: Fix::None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
    },
    Declaration {
        code: Code::P405,
        severity: Severity::Error,
        title: "trump played to a first trick that forbids it",
        why: "With first_trick_trump=free nobody may trump the first trick.",
        example: "(partnership first_trick_trump=free)",
        fix: Fix::None,
        section: "rules.md#first_trick_trumpfree-p404-p405",
    },
    Declaration {
        code: Code::P406,
        severity: Severity::Error,
        title: "hand not played out, or tricks out of sequence",
        why: "Every card dealt is played; a missing trick means the points cannot be recomputed.",
        example: "tricks 1-5 recorded, trick 6 missing",
        fix: Fix::None,
        section: "rules.md#play-p401-p402-p404-p406-r501",
    },
    Declaration {
        code: Code::P407,
        severity: Severity::Error,
        title: "a card played by a player who has dropped out (trumps_only)",
        why: "Where only trumps may be played, a player without a trump drops out of the hand's play and plays no more cards.",
        example: "(tenpoint52, trump S) 3. Ann:AS Bob:4H   % Bob holds no spade",
        fix: Fix::None,
        section: "rules.md#the-ten-point-presets-tenpoint-tenpoint52",
    },
    Declaration {
        code: Code::R501,
        severity: Severity::Error,
        title: "revoke: a player did not follow the follow rule while able to",
        why: "A revoke changes who can win tricks; the preset's penalty applies (the revoker scores nothing and is set back the bid).",
        example: "2. Cal:9S Dee:4H   % Cal led spades; Dee held 7S",
        fix: Fix::None,
        section: "rules.md#revokes-r501-r502",
    },
    Declaration {
        code: Code::R502,
        severity: Severity::Warning,
        title: "a revoke called at the table that the record does not show",
        why: "Either the call was wrong (and the penalty must not apply) or the record of the play is wrong.",
        example: "revoke Bob trick 3   % Bob followed suit in trick 3",
        fix: Fix::None,
        section: "rules.md#revokes-r501-r502",
    },
    Declaration {
        code: Code::R503,
        severity: Severity::Info,
        title: "what a revoke cost the innocent side, by perfect play from the revoke on",
        why: "The loss an innocent side sustained by a revoke must be made good where the tricks clearly show it: the points it was sure to take had the revoker played a legal card (the revoker's side then playing to hold it down), against the points it took. Zero when the revoke gained nothing, and said so.",
        example: "R503 the revoke by Dee in trick 3 cost NS 1 point: had Dee played a legal card (7S), NS were sure to take 3 points (line: 3. Dee:7S ...), and took 2 points",
        fix: Fix::None,
        section: "rules.md#revokes-r501-r502",
    },
    Declaration {
        code: Code::S601,
        severity: Severity::Error,
        title: "a hand's recorded score differs from the recomputed one",
        why: "The sheet decides the game; a wrong hand score changes who wins.",
        example: "S601 Cal: recorded 1, expected 0 (High: Ann held AS; Low: Dee held 2S; ...)",
        fix: Fix::Unsafe,
        section: "rules.md#s601-the-hands-score",
    },
    Declaration {
        code: Code::S602,
        severity: Severity::Error,
        title: "a total line is not the previous total plus this hand's written score",
        why: "An arithmetic slip on the sheet, found by checking the sheet against itself.",
        example: "score Ann 2 / total Ann 9   % previous total 6",
        fix: Fix::Safe,
        section: "rules.md#s602-the-sheet-against-itself",
    },
    Declaration {
        code: Code::S603,
        severity: Severity::Error,
        title: "the recorded winner is wrong or missing, or hands follow the winning hand",
        why: "The game ends in the hand where someone goes out, by the preset's counting order.",
        example: "winner Bob   % Ann reached 7 first, counting the pitcher's points first",
        fix: Fix::Safe,
        section: "rules.md#s603-the-winner",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_declared_once() {
        for code in Code::ALL {
            assert_eq!(
                CATALOG.iter().filter(|d| d.code == code).count(),
                1,
                "{}",
                code.as_str()
            );
        }
        assert_eq!(CATALOG.len(), Code::ALL.len());
    }
}
