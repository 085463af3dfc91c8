//! `auditor._core.GameResult` and `HandScore`: what the audit learned about a game, read by
//! Python through getters over the core's own result (a handle, as polars' `DataFrame` holds its
//! Rust frame), never copied into mirrored records.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cards::{Card, SUIT_LETTERS};
use crate::engine::{self, GameResult, HandScore, Prepared, Seats};
use crate::notation::{Game, ScoreLine};
use crate::py_finding::PyFinding;
use crate::py_rules::PyRules;

/// A game's audit: the Python record it was read from, its rule set, the core's result and the
/// game as the core parsed it.
struct Audited {
    record: Py<PyAny>,
    /// The game's name (`GameId`, else `file#N`).
    name: String,
    rules: Option<Py<PyRules>>,
    game: Arc<Game>,
    res: Option<GameResult>,
    findings: Vec<Py<PyFinding>>,
}

/// Everything the audit learned about one game.
#[pyclass(name = "GameResult", module = "auditor._core", frozen)]
pub struct PyGameResult {
    inner: Arc<Audited>,
}

impl PyGameResult {
    /// The result of auditing `game` (`record` in Python) under `rules` (None: not audited).
    pub fn new(
        py: Python<'_>,
        record: Py<PyAny>,
        rules: Option<Py<PyRules>>,
        game: Arc<Game>,
        res: Option<GameResult>,
        source: &str,
        name: &str,
    ) -> PyResult<PyGameResult> {
        let findings = res
            .iter()
            .flat_map(|r| &r.findings)
            .map(|f| Py::new(py, PyFinding::of(f, source, name)))
            .collect::<PyResult<_>>()?;
        Ok(PyGameResult {
            inner: Arc::new(Audited {
                record,
                name: name.to_string(),
                rules,
                game,
                res,
                findings,
            }),
        })
    }

    fn audited(&self) -> Option<(&GameResult, &Seats)> {
        let res = self.inner.res.as_ref().filter(|r| r.audited)?;
        Some((res, res.seats.as_ref()?))
    }
}

fn side(seats: &Seats, i: i32) -> Option<String> {
    seats.side_name(i).map(str::to_string)
}

fn per_side<'py>(py: Python<'py>, seats: &Seats, values: &[i32]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (s, v) in seats.side_names.iter().zip(values) {
        d.set_item(s, v)?;
    }
    Ok(d)
}

#[pymethods]
impl PyGameResult {
    /// The game as it was read (`auditor.notation.Game`).
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyAny> {
        self.inner.record.clone_ref(py)
    }

    /// Its rule set, or None where it could not be resolved (the parser said why).
    #[getter]
    fn rules(&self, py: Python<'_>) -> Option<Py<PyRules>> {
        self.inner.rules.as_ref().map(|r| r.clone_ref(py))
    }

    /// Each hand's recomputed outcome.
    #[getter]
    fn hands(&self) -> Vec<PyHandScore> {
        let n = self.audited().map_or(0, |(r, _)| r.hands.len());
        (0..n)
            .map(|i| PyHandScore {
                inner: self.inner.clone(),
                i,
            })
            .collect()
    }

    /// The audit's findings about the game.
    #[getter]
    fn findings(&self, py: Python<'_>) -> Vec<Py<PyFinding>> {
        self.inner
            .findings
            .iter()
            .map(|f| f.clone_ref(py))
            .collect()
    }

    /// The side that went out, on the recomputed scores.
    #[getter]
    fn winner(&self) -> Option<String> {
        let (res, seats) = self.audited()?;
        side(seats, res.winner)
    }

    /// The hand it went out in.
    #[getter]
    fn won_in_hand(&self) -> Option<u32> {
        self.audited().and_then(|(r, _)| r.won_in_hand)
    }

    /// The stakes each side settles (`settlement=club`).
    #[getter]
    fn settlement<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match self.audited() {
            Some((res, seats)) => per_side(py, seats, &res.settlement),
            None => Ok(PyDict::new(py)),
        }
    }

    /// The sides: players, or teams in a partnership game.
    #[getter]
    fn sides(&self) -> Vec<String> {
        self.audited()
            .map_or_else(Vec::new, |(_, s)| s.side_names.clone())
    }

    /// Cards played in the game.
    #[getter]
    fn cards_played(&self) -> u64 {
        self.audited().map_or(0, |(r, _)| r.cards_played)
    }
}

/// Who played what in one hand, as the engine replayed it (cards as small integers).
#[pyclass(name = "PreparedHand", module = "auditor._core", frozen)]
pub struct PyPrepared {
    inner: Arc<Audited>,
    i: usize,
}

impl PyPrepared {
    fn prep(&self) -> Option<(&Prepared, &Seats)> {
        let res = self.inner.res.as_ref()?;
        Some((res.preps.get(self.i)?, res.seats.as_ref()?))
    }
}

#[pymethods]
impl PyPrepared {
    /// The players, in seat order.
    #[getter]
    fn seat_names(&self) -> Vec<String> {
        self.prep().map_or_else(Vec::new, |(_, s)| s.names.clone())
    }

    /// The cards of each trick kept, in play order.
    #[getter]
    fn cards(&self) -> Vec<Vec<u8>> {
        self.prep().map_or_else(Vec::new, |(p, _)| {
            p.cards
                .iter()
                .map(|cs| cs.iter().map(|c| c.index()).collect())
                .collect()
        })
    }

    /// Who played each card, as seats.
    #[getter]
    fn seats(&self) -> Vec<Vec<i32>> {
        self.prep().map_or_else(Vec::new, |(p, _)| {
            p.seats.iter().map(|r| r.to_vec()).collect()
        })
    }

    /// Each seat's cards as dealt, a bit mask (0: not recorded).
    #[getter]
    fn dealt(&self) -> Vec<u64> {
        self.prep().map_or_else(Vec::new, |(p, _)| p.dealt.clone())
    }

    /// The line of each trick kept.
    #[getter]
    fn trick_lines(&self) -> Vec<u32> {
        self.prep()
            .map_or_else(Vec::new, |(p, _)| p.trick_lines.clone())
    }

    /// The column of each card played.
    #[getter]
    fn play_cols(&self) -> Vec<Vec<u32>> {
        self.prep().map_or_else(Vec::new, |(p, _)| {
            p.play_cols.iter().map(|r| r.to_vec()).collect()
        })
    }

    /// Trump, 0-3 (-1: none).
    #[getter]
    fn trump(&self) -> i32 {
        self.prep().map_or(-1, |(p, _)| p.trump)
    }

    /// Pitching: the dealer took over a pitch.
    #[getter]
    fn takeover(&self) -> bool {
        self.prep().is_some_and(|(p, _)| p.takeover)
    }

    /// The cards `seat` held as trick `trick` (0-based) began, a bit mask.
    fn held_before(&self, seat: i32, trick: usize) -> u64 {
        self.prep().map_or(0, |(p, _)| p.held_before(seat, trick))
    }
}

/// The recomputed outcome of one hand, side by side with what the sheet says.
#[pyclass(name = "HandScore", module = "auditor._core", frozen)]
pub struct PyHandScore {
    inner: Arc<Audited>,
    i: usize,
}

/// A score line as key -> value, the first entry winning when a key is written twice.
fn as_dict<'py>(py: Python<'py>, game: &Game, line: &ScoreLine) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for e in &line.entries {
        let key = game.name_of(e.key);
        if !d.contains(key)? {
            d.set_item(key, e.value)?;
        }
    }
    Ok(d)
}

fn card_name(c: Option<Card>) -> Option<&'static str> {
    c.map(Card::name)
}

impl PyHandScore {
    fn parts(&self) -> Option<(&Prepared, &HandScore, &Seats)> {
        let res = self.inner.res.as_ref()?;
        Some((
            res.preps.get(self.i)?,
            res.hands.get(self.i)?,
            res.seats.as_ref()?,
        ))
    }

    fn name(&self, seat: i32) -> String {
        self.parts()
            .map_or("nobody", |(_, _, s)| s.name(seat))
            .to_string()
    }

    fn side_of(&self, i: i32) -> Option<String> {
        self.parts().and_then(|(_, _, s)| side(s, i))
    }

    fn points(&self) -> Option<&engine::points::Points> {
        self.parts().and_then(|(_, h, _)| h.points.as_ref())
    }

    /// The side that took the point `name` (High, Low, Jack, Game).
    fn owner(&self, point: &str) -> Option<String> {
        let p = self.points()?;
        let a = p.awards.iter().find(|a| a.name == point)?;
        self.side_of(a.side)
    }
}

#[pymethods]
impl PyHandScore {
    /// The game's name.
    #[getter]
    fn game(&self) -> String {
        self.inner.name.clone()
    }

    /// The hand's number.
    #[getter]
    fn hand(&self) -> u32 {
        self.parts().map_or(0, |(p, _, _)| p.number)
    }

    /// The hand line's line.
    #[getter]
    fn line(&self) -> u32 {
        self.parts().map_or(0, |(p, _, _)| p.line)
    }

    #[getter]
    fn dealer(&self) -> String {
        self.name(self.parts().map_or(-1, |(p, _, _)| p.dealer))
    }

    #[getter]
    fn pitcher(&self) -> Option<String> {
        let p = self.parts()?.0.pitcher;
        (p >= 0).then(|| self.name(p))
    }

    #[getter]
    fn pitcher_side(&self) -> Option<String> {
        let (p, _, seats) = self.parts()?;
        (p.pitcher >= 0).then(|| side(seats, seats.side(p.pitcher)))?
    }

    #[getter]
    fn contract(&self) -> i32 {
        self.parts().map_or(0, |(p, _, _)| p.contract)
    }

    #[getter]
    fn high_bid(&self) -> i32 {
        self.parts().map_or(0, |(p, _, _)| p.high_bid)
    }

    /// Trump's letter, or None.
    #[getter]
    fn trump(&self) -> Option<String> {
        let t = self.parts()?.0.trump;
        let letter = SUIT_LETTERS.get(usize::try_from(t).ok()?)?;
        Some(char::from(*letter).to_string())
    }

    /// False where the hand could not be recomputed (misdeal, thrown in, broken record).
    #[getter]
    fn scored(&self) -> bool {
        self.parts().is_some_and(|(_, h, _)| h.scored)
    }

    /// `played`, `thrown-in`, `misdeal` or `unplayable`.
    #[getter]
    fn status(&self) -> &'static str {
        self.parts()
            .map_or("unplayable", |(_, h, _)| h.status.as_str())
    }

    #[getter]
    fn high(&self) -> Option<String> {
        self.owner("High")
    }

    #[getter]
    fn low(&self) -> Option<String> {
        self.owner("Low")
    }

    #[getter]
    fn jack(&self) -> Option<String> {
        self.owner("Jack")
    }

    #[getter]
    fn game_point(&self) -> Option<String> {
        self.owner("Game")
    }

    #[getter]
    fn high_holder(&self) -> Option<String> {
        self.points().map(|p| self.name(p.high_holder))
    }

    #[getter]
    fn high_card(&self) -> Option<&'static str> {
        card_name(self.points()?.high_card)
    }

    #[getter]
    fn low_holder(&self) -> Option<String> {
        self.points().map(|p| self.name(p.low_holder))
    }

    #[getter]
    fn low_card(&self) -> Option<&'static str> {
        card_name(self.points()?.low_card)
    }

    #[getter]
    fn jack_taker(&self) -> Option<String> {
        let p = self.points()?;
        (p.jack_taker >= 0).then(|| self.name(p.jack_taker))
    }

    #[getter]
    fn jack_trick(&self) -> Option<u32> {
        self.points()?.jack_trick
    }

    /// Game count per side.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match (self.points(), self.parts()) {
            (Some(p), Some((_, _, s))) => per_side(py, s, &p.counts),
            _ => Ok(PyDict::new(py)),
        }
    }

    /// Tricks taken per side.
    #[getter]
    fn tricks_won<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match (self.points(), self.parts()) {
            (Some(p), Some((_, _, s))) => per_side(py, s, &p.tricks),
            _ => Ok(PyDict::new(py)),
        }
    }

    /// Points taken per side.
    #[getter]
    fn made<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match (self.points(), self.parts()) {
            (Some(_), Some((_, h, s))) => per_side(py, s, &h.made),
            _ => Ok(PyDict::new(py)),
        }
    }

    /// The recomputed hand score per side.
    #[getter]
    fn score<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match self.parts() {
            Some((_, h, s)) => per_side(py, s, &h.score),
            None => Ok(PyDict::new(py)),
        }
    }

    /// The recomputed running total per side (points still needed, where the sheet counts down).
    #[getter]
    fn total<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match self.parts() {
            Some((_, h, s)) => per_side(py, s, &h.total),
            None => Ok(PyDict::new(py)),
        }
    }

    /// The hand's score line as written (None: there is none).
    #[getter]
    fn recorded<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let g = &self.inner.game;
        g.hands
            .get(self.i)
            .and_then(|h| h.score.as_ref())
            .map(|l| as_dict(py, g, l))
            .transpose()
    }

    /// The hand's total line as written (None: there is none).
    #[getter]
    fn recorded_total<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let g = &self.inner.game;
        g.hands
            .get(self.i)
            .and_then(|h| h.total.as_ref())
            .map(|l| as_dict(py, g, l))
            .transpose()
    }

    #[getter]
    fn contract_made(&self) -> Option<bool> {
        self.points()?;
        self.parts()?.1.contract_made
    }

    #[getter]
    fn smudge(&self) -> bool {
        self.points().is_some() && self.parts().is_some_and(|(_, h, _)| h.smudge)
    }

    /// The sides that revoked.
    #[getter]
    fn revokers(&self) -> Vec<String> {
        self.parts().map_or_else(Vec::new, |(_, h, s)| {
            h.revokers.iter().filter_map(|&r| side(s, r)).collect()
        })
    }

    /// The penalty of each side that revoked.
    #[getter]
    fn penalties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if let Some((_, h, _)) = self.parts() {
            for s in self.revokers() {
                d.set_item(s, h.penalty)?;
            }
        }
        Ok(d)
    }

    /// The sale (selling auction).
    #[getter]
    fn sale(&self) -> i32 {
        match (self.points(), self.parts()) {
            (Some(_), Some((p, _, _))) if p.seller >= 0 => p.sale,
            _ => 0,
        }
    }

    /// The side that sold (selling auction).
    #[getter]
    fn seller(&self) -> Option<String> {
        self.points()?;
        let (p, _, s) = self.parts()?;
        (p.seller >= 0).then(|| side(s, s.side(p.seller)))?
    }

    /// The side that went out in this hand.
    #[getter]
    fn went_out(&self) -> Option<String> {
        let w = self.parts()?.1.went_out;
        self.side_of(w)
    }

    /// Each revoke: (trick, position, player, card, the cards the player should have played from).
    #[getter]
    fn revoke_plays(&self) -> Vec<(usize, usize, String, &'static str, String)> {
        self.parts().map_or_else(Vec::new, |(_, h, _)| {
            h.revoke_plays
                .iter()
                .map(|r| {
                    let could: Vec<&str> = r.could.iter().map(|c| c.name()).collect();
                    (
                        r.trick,
                        r.pos,
                        self.name(r.seat),
                        r.card.name(),
                        could.join(" "),
                    )
                })
                .collect()
        })
    }

    /// The pitcher fell short but cannot be set: someone else revoked.
    #[getter]
    fn saved_by_revoke(&self) -> bool {
        self.points().is_some() && self.parts().is_some_and(|(_, h, _)| h.saved_by_revoke)
    }

    /// Who played what, as the engine replayed it.
    #[getter]
    fn prep(&self) -> PyPrepared {
        PyPrepared {
            inner: self.inner.clone(),
            i: self.i,
        }
    }

    /// The taker of each trick.
    #[getter]
    fn winners(&self) -> Vec<String> {
        self.parts().map_or_else(Vec::new, |(_, h, _)| {
            h.winners
                .iter()
                .filter(|&&s| s >= 0)
                .map(|&s| self.name(s))
                .collect()
        })
    }

    /// Who played each card, in play order.
    #[getter]
    fn trick_players(&self) -> Vec<Vec<String>> {
        self.parts().map_or_else(Vec::new, |(p, _, _)| {
            p.seats
                .iter()
                .map(|row| row.iter().map(|&s| self.name(s)).collect())
                .collect()
        })
    }

    /// Points lost to a failed contract or a revoke, per side that lost some.
    #[getter]
    fn set_back<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if let (Some(_), Some((_, h, s))) = (self.points(), self.parts()) {
            for (side, &v) in s.side_names.iter().zip(&h.set_back) {
                if v > 0 {
                    d.set_item(side, v)?;
                }
            }
        }
        Ok(d)
    }

    /// Each point: (name, side or None, worth, why), in counting order.
    #[getter]
    fn awards(&self) -> Vec<(&'static str, Option<String>, i32, String)> {
        let (Some(p), Some((_, _, s))) = (self.points(), self.parts()) else {
            return Vec::new();
        };
        p.awards
            .iter()
            .map(|a| (a.name, side(s, a.side), a.worth, p.why(a, s)))
            .collect()
    }

    /// What the table calls the top bid.
    #[getter]
    fn top_word(&self) -> String {
        self.inner
            .rules
            .as_ref()
            .map_or("top bid".to_string(), |r| {
                r.get().inner.top_word().to_string()
            })
    }

    /// Pitching: the dealer took over a pitch.
    #[getter]
    fn takeover(&self) -> bool {
        self.points().is_some() && self.parts().is_some_and(|(_, h, _)| h.takeover)
    }

    /// A made moon: the sheet's total it jumped from.
    #[getter]
    fn moon_from(&self) -> Option<i32> {
        self.points()?;
        self.parts()?.1.moon_from
    }

    /// The rule that decided a top-bid contract, naming its key.
    #[getter]
    fn contract_rule(&self) -> String {
        match (self.points(), self.parts()) {
            (Some(_), Some((_, h, _))) => h.contract_rule.clone(),
            _ => String::new(),
        }
    }

    /// Why the side that went out won the game in this hand, naming the rule.
    #[getter]
    fn out_why(&self) -> String {
        self.parts()
            .map_or_else(String::new, |(_, h, _)| h.out_why.clone())
    }

    /// The cards `player` held as trick `trick` (1-based) began; trick 1 gives the hand as dealt.
    fn held(&self, player: &str, trick: usize) -> Vec<u8> {
        let Some((p, _, s)) = self.parts() else {
            return Vec::new();
        };
        let Some(seat) = s.names.iter().position(|n| n == player) else {
            return Vec::new();
        };
        let mask = p.held_before(seat as i32, trick.saturating_sub(1));
        crate::cards::cards_of(mask).map(|c| c.index()).collect()
    }
}
