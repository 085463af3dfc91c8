//! Score (S6xx): the sheet against the recomputed scores, against itself, and the winner.

use std::fmt;

use super::{Aside, Field, OrNothing, Signed, Value};

/// Whether the sheet counts down: shown as ` (count_down=on: the sheet counts the points
/// still needed)` where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountDown(pub bool);

impl fmt::Display for CountDown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 {
            f.write_str(" (count_down=on: the sheet counts the points still needed)")
        } else {
            Ok(())
        }
    }
}

impl Field for CountDown {
    fn value(&self) -> Value {
        Value::Bool(self.0)
    }
}

violation! {
    S601 {
        severity: Error,
        fix: Unsafe("write the recomputed score"),
        section: "rules.md#s601-the-hands-score",
        title: "a hand's recorded score differs from the recomputed one",
        why: "The sheet decides the game; a wrong hand score changes who wins.",
        example: "S601 Cal: recorded 1, expected 0 (High: Ann held AS; Low: Dee held 2S; ...)",
    }
    /// `why` accounts for every point of the hand and the contract.
    WrongScore { side: String, recorded: OrNothing, expected: i32, why: String } compare(expected, recorded)
        => "{side}: recorded {recorded}, expected {expected} ({why})",
}

violation! {
    S602 {
        severity: Error,
        fix: Safe("write the previous total plus this hand's written score"),
        section: "rules.md#s602-the-sheet-against-itself",
        title: "a total line is not the previous total plus this hand's written score",
        why: "An arithmetic slip on the sheet, found by checking the sheet against itself.",
        example: "score Ann 2 / total Ann 9   % previous total 6",
    }
    /// `op` is `-` where the sheet counts down (`count_down=on`), else `+`.
    WrongTotal { side: String, recorded: OrNothing, previous: i32, op: &'static str, written: Signed, expected: i32, count_down: CountDown }
        compare(expected, recorded)
        => "{side}: total written {recorded}, but the previous total {previous} {op} this hand's written score {written} is {expected}{count_down}",
}

violation! {
    S603 {
        severity: Error,
        fix: Safe("write the winner the scores give"),
        section: "rules.md#s603-the-winner",
        title: "the recorded winner is wrong or missing, or hands follow the winning hand",
        why: "The game ends in the hand where someone goes out, by the preset's counting order.",
        example: "winner Bob   % Ann reached 7 first, counting the pitcher's points first",
    }
    HandAfterWin { hand: u32, winner: String, won_in: u32, how: Aside } compare("no more hands", format!("hand {hand}"))
        => "hand {hand} is played after {winner} won the game in hand {won_in}{how}",
    /// `why` says what nobody has done: reached the target, or gone out in a hand.
    NoWinnerYet { named: String, why: String, standing: String } compare("no winner yet", named)
        => "the record names {named} the winner, but on the recomputed scores nobody has {why} ({standing})",
    WrongWinner { named: String, winner: String, hand: u32, how: Aside, standing: String } compare(winner, named)
        => "the record names {named} the winner, but {winner} went out first in hand {hand}{how:#} ({standing})",
    NoWinnerLine { winner: String, hand: u32, how: Aside, standing: String } compare(winner, "nothing")
        => "the record names no winner, but {winner} went out in hand {hand}{how:#} ({standing})",
}
