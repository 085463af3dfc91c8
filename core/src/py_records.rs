//! The parsed records as Python sees them: a game is a handle on the core's own [`Game`]
//! (shared, never copied when it goes back to the engine, the writer or the solver), and its
//! statements are small frozen classes defined here, made from the core's records the first
//! time Python reads a game's hands.
//!
//! Records compare as the notation's dataclasses did: by what the text says, not by where it
//! stands (line, column and the parser's traces are left out of `==`).

use crate::cards::{Card, Suit};
use crate::notation::parser::{self, file_label, game_name};
use crate::notation::{
    Bid, Bids, Deal, Exchange, ExchangeKind, Game, Hand, Holding, Meta, Name, Named, Note, Play,
    RevokeCall, ScoreEntry, ScoreKind, ScoreLine, Tag, Trick, TrumpLine, Widow, writer,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyFrozenSet, PyTuple};
use std::sync::Arc;

type Obj<'py> = Bound<'py, PyAny>;

/// Compares two fields of a record, recursing into Python values where a field holds them.
trait Same {
    fn same(&self, other: &Self, py: Python<'_>) -> PyResult<bool>;
}

macro_rules! same_by_value {
    ($($t:ty),*) => {$(
        impl Same for $t {
            fn same(&self, other: &Self, _py: Python<'_>) -> PyResult<bool> {
                Ok(self == other)
            }
        }
    )*};
}
same_by_value!(String, Option<String>, u8, u32, i32, bool, Option<u32>);

impl<T> Same for Py<T> {
    fn same(&self, other: &Self, py: Python<'_>) -> PyResult<bool> {
        self.bind(py).as_any().eq(other.bind(py).as_any())
    }
}

impl<T> Same for Option<Py<T>> {
    fn same(&self, other: &Self, py: Python<'_>) -> PyResult<bool> {
        match (self, other) {
            (None, None) => Ok(true),
            (Some(a), Some(b)) => a.same(b, py),
            _ => Ok(false),
        }
    }
}

fn empty() -> Py<PyTuple> {
    Python::attach(|py| PyTuple::empty(py).unbind())
}

fn no_names() -> Py<PyAny> {
    Python::attach(|py| {
        PyFrozenSet::empty(py)
            .map(|s| s.into_any().unbind())
            .unwrap_or_else(|_| py.None())
    })
}

/// One frozen record class: its fields (read-only in Python), its constructor with the
/// notation's defaults, `==` over the fields that say what the text says, and a repr.
macro_rules! record {
    (
        $(#[$doc:meta])*
        $name:ident = $py:literal ($($sig:tt)*) {
            $($(#[$fdoc:meta])* $field:ident: $ty:ty,)*
        }
        compare($($cmp:ident),*)
        $($extra:item)*
    ) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "auditor._core", name = $py)]
        pub struct $name {
            $($(#[$fdoc])* #[pyo3(get)] pub $field: $ty,)*
        }

        #[pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = ($($sig)*))]
            #[allow(clippy::too_many_arguments)]
            fn new($($field: $ty),*) -> Self {
                Self { $($field),* }
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
                let py = other.py();
                let Ok(o) = other.cast::<Self>() else {
                    return Ok(false);
                };
                let o = o.get();
                $(if !self.$cmp.same(&o.$cmp, py)? {
                    return Ok(false);
                })*
                Ok(true)
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                let mut parts: Vec<String> = Vec::new();
                $(parts.push(format!(
                    "{}={}",
                    stringify!($field),
                    pyo3::IntoPyObjectExt::into_bound_py_any(&self.$field, py)?.repr()?
                ));)*
                Ok(format!("{}({})", $py, parts.join(", ")))
            }

            $($extra)*
        }
    };
}

record! {
    /// A `[Name "value"]` pair.
    PyTag = "Tag" (name, value, line=0, comments=empty(), remark=None) {
        name: String,
        value: String,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(name, value, comments, remark)
}

record! {
    /// A statement naming one player or team: `dealer NAME`, `winner KEY`.
    PyNamed = "Named" (name, line=0, column=0, comments=empty(), remark=None) {
        name: String,
        line: u32,
        column: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(name, comments, remark)
}

record! {
    /// A player's cards in a `deal`, `discard` or `draw` statement (cards as 0-53).
    PyHolding = "Holding" (player, cards, columns=empty(), column=0) {
        player: String,
        cards: Py<PyTuple>,
        columns: Py<PyTuple>,
        column: u32,
    }
    compare(player, cards)
}

record! {
    /// A `deal` statement; `unreadable` names the players with a bad card token, and
    /// `incomplete` says a holding was dropped (an unknown player, a bad shape).
    PyDeal = "Deal" (holdings, line=0, comments=empty(), remark=None, unreadable=no_names(), incomplete=false) {
        holdings: Py<PyTuple>,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
        unreadable: Py<PyAny>,
        incomplete: bool,
    }
    compare(holdings, comments, remark)
}

record! {
    /// A `widow:` statement: the undealt cards.
    PyWidow = "Widow" (cards, columns=empty(), line=0, comments=empty(), remark=None) {
        cards: Py<PyTuple>,
        columns: Py<PyTuple>,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(cards, comments, remark)
}

record! {
    /// One word of the auction: `pass`, a number, a top-bid name, `sells` or `keeps`.
    PyBid = "Bid" (player, word, column=0) {
        player: String,
        word: String,
        column: u32,
    }
    compare(player, word)
}

record! {
    /// A `bids` statement; `unreadable`: a bid could not be read (E101/E104).
    PyBids = "Bids" (bids, line=0, comments=empty(), remark=None, unreadable=false) {
        bids: Py<PyTuple>,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
        unreadable: bool,
    }
    compare(bids, comments, remark)
}

record! {
    /// A `trump SUIT` statement (the suit as 0-3, in the order of `auditor.cards.SUITS`).
    PyTrumpLine = "TrumpLine" (suit, line=0, column=0, comments=empty(), remark=None) {
        suit: u8,
        line: u32,
        column: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(suit, comments, remark)
}

record! {
    /// A `discard` or `draw` statement (draw and discard variants).
    PyExchange = "Exchange" (kind, holding, line=0, comments=empty(), remark=None) {
        kind: String,
        holding: Py<PyHolding>,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(kind, holding, comments, remark)
}

record! {
    /// `revoke NAME [trick N]`: a revoke called at the table.
    PyRevokeCall = "RevokeCall" (player, trick, line=0, column=0, comments=empty(), remark=None) {
        player: String,
        trick: Option<u32>,
        line: u32,
        column: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(player, trick, comments, remark)
}

record! {
    /// One card played; `player` is `None` in the short trick form.
    PyPlay = "Play" (player, card, column=0) {
        player: Option<String>,
        card: u8,
        column: u32,
    }
    compare(player, card)
}

record! {
    /// One trick; `unreadable`: a card token could not be read (E103).
    PyTrick = "Trick" (number, plays, short=false, line=0, column=0, comments=empty(), remark=None, unreadable=false) {
        number: u32,
        plays: Py<PyTuple>,
        short: bool,
        line: u32,
        column: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
        unreadable: bool,
    }
    compare(number, plays, short, comments, remark)
}

record! {
    /// One `KEY N` entry of a score line.
    PyScoreEntry = "ScoreEntry" (key, value, column=0) {
        key: String,
        value: i32,
        column: u32,
    }
    compare(key, value)
}

record! {
    /// A `score` (this hand) or `total` (running) line as the score keeper wrote it.
    PyScoreLine = "ScoreLine" (kind, entries, line=0, comments=empty(), remark=None, unreadable=false) {
        kind: String,
        entries: Py<PyTuple>,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
        unreadable: bool,
    }
    compare(kind, entries, comments, remark)

    /// Key to value, the first entry winning if a key is written twice.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for e in self.entries.bind(py).iter() {
            let e = e.cast_into::<PyScoreEntry>()?;
            let e = e.get();
            if !d.contains(&e.key)? {
                d.set_item(&e.key, e.value)?;
            }
        }
        Ok(d)
    }
}

record! {
    /// A `note "TEXT"` statement.
    PyNote = "Note" (text, line=0, comments=empty(), remark=None) {
        text: String,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(text, comments, remark)
}

record! {
    /// A statement with no arguments: `misdeal`.
    PyMarker = "Marker" (word, line=0, comments=empty(), remark=None) {
        word: String,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
    }
    compare(word, comments, remark)
}

record! {
    /// One deal of the cards, from `hand N` to the next `hand` or game. `misread` lists the
    /// statements that unknown lines of the hand were a misspelling of (`bisd`: `bids`): like
    /// the positions, a trace of the text, not of the hand.
    PyHand = "Hand" (number, line=0, comments=empty(), remark=None, dealer=None, deal=None, widow=None, bids=None, trump=None, exchanges=empty(), revokes=empty(), tricks=empty(), score=None, total=None, notes=empty(), misdeal=None, misread=empty()) {
        number: u32,
        line: u32,
        comments: Py<PyTuple>,
        remark: Option<String>,
        dealer: Option<Py<PyNamed>>,
        deal: Option<Py<PyDeal>>,
        widow: Option<Py<PyWidow>>,
        bids: Option<Py<PyBids>>,
        trump: Option<Py<PyTrumpLine>>,
        exchanges: Py<PyTuple>,
        revokes: Py<PyTuple>,
        tricks: Py<PyTuple>,
        score: Option<Py<PyScoreLine>>,
        total: Option<Py<PyScoreLine>>,
        notes: Py<PyTuple>,
        misdeal: Option<Py<PyMarker>>,
        misread: Py<PyTuple>,
    }
    compare(number, comments, remark, dealer, deal, widow, bids, trump, exchanges, revokes, tricks, score, total, notes, misdeal)

    /// The last line number of any statement of this hand.
    #[getter]
    fn end_line(&self, py: Python<'_>) -> PyResult<u32> {
        let mut last = self.line;
        let mut see = |o: Option<Bound<'_, PyAny>>| -> PyResult<()> {
            if let Some(o) = o {
                last = last.max(o.getattr("line")?.extract()?);
            }
            Ok(())
        };
        see(self.dealer.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.deal.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.widow.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.bids.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.trump.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.score.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.total.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        see(self.misdeal.as_ref().map(|x| x.bind(py).clone().into_any()))?;
        for group in [&self.exchanges, &self.revokes, &self.tricks, &self.notes] {
            for s in group.bind(py).iter() {
                see(Some(s))?;
            }
        }
        Ok(last)
    }
}

// ------------------------------------------------------------------------ the game handle

/// A tag block and the hands that follow it: a handle on the core's record. Its statements
/// are made for Python the first time they are read; the engine, the writer and the solver
/// take the core's record itself.
#[pyclass(frozen, module = "auditor._core", name = "Game")]
pub struct PyGame {
    game: Arc<Game>,
    source: String,
    view: PyOnceLock<View>,
}

/// The game's statements as Python records.
struct View {
    tags: Py<PyTuple>,
    hands: Py<PyTuple>,
    winner: Option<Py<PyNamed>>,
    trailing_comments: Py<PyTuple>,
}

impl PyGame {
    /// A handle on a parsed game read from `source`.
    pub fn of(game: Game, source: &str) -> PyGame {
        PyGame {
            game: Arc::new(game),
            source: source.to_string(),
            view: PyOnceLock::new(),
        }
    }

    /// The core's record.
    pub fn record(&self) -> &Arc<Game> {
        &self.game
    }

    fn view(&self, py: Python<'_>) -> PyResult<&View> {
        self.view
            .get_or_try_init(py, || ToPy::new(py, &self.game).view())
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (tags, hands, winner=None, trailing_comments=empty(), source=String::new(), index=1, line=0, end_line=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        tags: Py<PyTuple>,
        hands: Py<PyTuple>,
        winner: Option<Py<PyNamed>>,
        trailing_comments: Py<PyTuple>,
        source: String,
        index: u32,
        line: u32,
        end_line: u32,
    ) -> PyResult<PyGame> {
        let mut g = Game::default();
        for t in tags.bind(py).iter() {
            let t = t.cast_into::<PyTag>()?;
            let t = t.get();
            g.tags.push(Tag {
                name: t.name.clone(),
                value: t.value.clone(),
                meta: meta(py, t.line, &t.comments, &t.remark)?,
            });
        }
        for h in hands.bind(py).iter() {
            let h = h.cast_into::<PyHand>()?;
            let hand = hand_from(py, &mut g, h.get())?;
            g.hands.push(hand);
        }
        if let Some(w) = &winner {
            g.winner = Some(named_from(py, &mut g, w.get())?);
        }
        g.trailing_comments = strings(py, &trailing_comments)?;
        g.index = index;
        g.line = line;
        g.end_line = end_line;
        let game = PyGame::of(g, &source);
        // what Python gave is what Python reads back
        let _ = game.view.set(
            py,
            View {
                tags,
                hands,
                winner,
                trailing_comments,
            },
        );
        Ok(game)
    }

    /// The tags in the order written.
    #[getter]
    fn tags(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(self.view(py)?.tags.clone_ref(py))
    }

    /// The hands in the order written.
    #[getter]
    fn hands(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(self.view(py)?.hands.clone_ref(py))
    }

    /// `winner KEY`, if written.
    #[getter]
    fn winner(&self, py: Python<'_>) -> PyResult<Option<Py<PyNamed>>> {
        Ok(self.view(py)?.winner.as_ref().map(|w| w.clone_ref(py)))
    }

    /// Comment lines after the game's last statement.
    #[getter]
    fn trailing_comments(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        Ok(self.view(py)?.trailing_comments.clone_ref(py))
    }

    /// The file the game was read from (`<stdin>`, `<text>` ...).
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }

    /// 1-based position of the game in its file.
    #[getter]
    fn index(&self) -> u32 {
        self.game.index
    }

    /// The first line of the game.
    #[getter]
    fn line(&self) -> u32 {
        self.game.line
    }

    /// The last line of a statement of the game.
    #[getter]
    fn end_line(&self) -> u32 {
        self.game.end_line
    }

    /// The hash of the game's canonical text: the game's identity in a dataset.
    #[getter]
    fn key(&self) -> String {
        writer::game_key(&self.game)
    }

    /// `GameId` where the game has one, else `file#N`.
    #[getter]
    fn name(&self) -> String {
        game_name(&file_label(&self.source), &self.game)
    }

    /// The value of the first tag called `name`, if any.
    fn tag(&self, name: &str) -> Option<String> {
        self.game
            .tags
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.value.clone())
    }

    /// The seats in clockwise order, from the `Players` tag.
    #[getter]
    fn players<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let players = self.tag("Players").unwrap_or_default();
        PyTuple::new(py, players.split_whitespace().collect::<Vec<_>>())
    }

    /// Team name to members, from the `Teams` tag (empty when there is none).
    #[getter]
    fn teams<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (teams, _) = parser::parse_teams(&self.tag("Teams").unwrap_or_default());
        let d = PyDict::new(py);
        for (name, members) in teams {
            d.set_item(name, PyTuple::new(py, members)?)?;
        }
        Ok(d)
    }

    /// The same game as read from `source` at position `index` of its file (`placed("", 1)`:
    /// as if from nowhere, so that two parses of one text compare equal).
    #[pyo3(signature = (source, index=1))]
    fn placed(&self, py: Python<'_>, source: &str, index: u32) -> PyGame {
        let game = if index == self.game.index {
            Arc::clone(&self.game)
        } else {
            Arc::new(Game {
                index,
                ..Game::clone(&self.game)
            })
        };
        let view = PyOnceLock::new();
        if let Some(v) = self.view.get(py) {
            let _ = view.set(
                py,
                View {
                    tags: v.tags.clone_ref(py),
                    hands: v.hands.clone_ref(py),
                    winner: v.winner.as_ref().map(|w| w.clone_ref(py)),
                    trailing_comments: v.trailing_comments.clone_ref(py),
                },
            );
        }
        PyGame {
            game,
            source: source.to_string(),
            view,
        }
    }

    /// Records compare by what the text says: tags, hands, winner and trailing comments (not
    /// the source, the position in the file or the lines).
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<PyGame>() else {
            return Ok(false);
        };
        let (a, b) = (self.view(py)?, o.get().view(py)?);
        Ok(a.tags.same(&b.tags, py)?
            && a.hands.same(&b.hands, py)?
            && a.winner.same(&b.winner, py)?
            && a.trailing_comments.same(&b.trailing_comments, py)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?} from {:?}, {} hands)",
            self.name(),
            self.source,
            self.game.hands.len()
        )
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Obj<'py>, (String, String))> {
        let f = py.import("auditor._core")?.getattr("_game_from_text")?;
        Ok((f, (writer::write_games([&*self.game]), self.source.clone())))
    }
}

/// The game a handle holds, for the engine, the writer and the solver.
pub fn game_of(o: &Bound<'_, PyAny>) -> PyResult<Arc<Game>> {
    Ok(Arc::clone(o.cast::<PyGame>()?.get().record()))
}

/// A game read back from its canonical text (how a game crosses to another process).
#[pyfunction]
#[pyo3(name = "_game_from_text")]
pub fn game_from_text(text: &str, source: &str) -> PyResult<PyGame> {
    let mut p = parser::Parser::new(source, 1, 0);
    p.feed(text.as_bytes());
    p.finish();
    p.take_games()
        .into_iter()
        .next()
        .map(|g| PyGame::of(g, source))
        .ok_or_else(|| PyValueError::new_err("no game in the text"))
}

// ------------------------------------------------------------- the core's records -> Python

/// Makes the Python records of one game, with its names made into Python strings once.
struct ToPy<'py, 'g> {
    py: Python<'py>,
    game: &'g Game,
}

impl<'py, 'g> ToPy<'py, 'g> {
    fn new(py: Python<'py>, game: &'g Game) -> Self {
        ToPy { py, game }
    }

    fn name(&self, n: Name) -> String {
        self.game.name_of(n).to_string()
    }

    fn strings(&self, v: &[String]) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(self.py, v)?.unbind())
    }

    fn tuple<T: pyo3::PyClass>(&self, v: Vec<Py<T>>) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(self.py, v)?.unbind())
    }

    fn cards(&self, cards: &[Card]) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(self.py, cards.iter().map(|c| c.index()))?.unbind())
    }

    fn cols(&self, cols: &[u32]) -> PyResult<Py<PyTuple>> {
        Ok(PyTuple::new(self.py, cols)?.unbind())
    }

    fn new_record<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
        &self,
        v: T,
    ) -> PyResult<Py<T>> {
        Py::new(self.py, v)
    }

    fn named(&self, n: &Named) -> PyResult<Py<PyNamed>> {
        self.new_record(PyNamed {
            name: self.name(n.name),
            line: n.meta.line,
            column: n.column,
            comments: self.strings(&n.meta.comments)?,
            remark: n.meta.remark.clone(),
        })
    }

    fn holding(&self, h: &Holding) -> PyResult<Py<PyHolding>> {
        self.new_record(PyHolding {
            player: self.name(h.player),
            cards: self.cards(&h.cards)?,
            columns: self.cols(&h.columns)?,
            column: h.column,
        })
    }

    fn score_line(&self, s: &ScoreLine) -> PyResult<Py<PyScoreLine>> {
        let entries = s
            .entries
            .iter()
            .map(|e| {
                self.new_record(PyScoreEntry {
                    key: self.name(e.key),
                    value: e.value,
                    column: e.column,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        self.new_record(PyScoreLine {
            kind: s.kind.word().to_string(),
            entries: self.tuple(entries)?,
            line: s.meta.line,
            comments: self.strings(&s.meta.comments)?,
            remark: s.meta.remark.clone(),
            unreadable: s.unreadable,
        })
    }

    fn trick(&self, t: &Trick) -> PyResult<Py<PyTrick>> {
        let plays = t
            .plays
            .iter()
            .map(|p| {
                self.new_record(PyPlay {
                    player: p.player.map(|n| self.name(n)),
                    card: p.card.index(),
                    column: p.column,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        self.new_record(PyTrick {
            number: t.number,
            plays: self.tuple(plays)?,
            short: t.short,
            line: t.meta.line,
            column: t.column,
            comments: self.strings(&t.meta.comments)?,
            remark: t.meta.remark.clone(),
            unreadable: t.unreadable,
        })
    }

    fn hand(&self, h: &Hand) -> PyResult<Py<PyHand>> {
        let py = self.py;
        let deal = match &h.deal {
            None => None,
            Some(d) => {
                let holdings = d
                    .holdings
                    .iter()
                    .map(|x| self.holding(x))
                    .collect::<PyResult<Vec<_>>>()?;
                let unreadable = d.unreadable.iter().map(|n| self.name(*n));
                Some(self.new_record(PyDeal {
                    holdings: self.tuple(holdings)?,
                    line: d.meta.line,
                    comments: self.strings(&d.meta.comments)?,
                    remark: d.meta.remark.clone(),
                    unreadable: PyFrozenSet::new(py, unreadable)?.into_any().unbind(),
                    incomplete: d.incomplete,
                })?)
            }
        };
        let widow = match &h.widow {
            None => None,
            Some(w) => Some(self.new_record(PyWidow {
                cards: self.cards(&w.cards)?,
                columns: self.cols(&w.columns)?,
                line: w.meta.line,
                comments: self.strings(&w.meta.comments)?,
                remark: w.meta.remark.clone(),
            })?),
        };
        let bids = match &h.bids {
            None => None,
            Some(b) => {
                let items = b
                    .bids
                    .iter()
                    .map(|x| {
                        self.new_record(PyBid {
                            player: self.name(x.player),
                            word: self.game.word_of(x.word).to_string(),
                            column: x.column,
                        })
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                Some(self.new_record(PyBids {
                    bids: self.tuple(items)?,
                    line: b.meta.line,
                    comments: self.strings(&b.meta.comments)?,
                    remark: b.meta.remark.clone(),
                    unreadable: b.unreadable,
                })?)
            }
        };
        let trump = match &h.trump {
            None => None,
            Some(t) => Some(self.new_record(PyTrumpLine {
                suit: t.suit.index(),
                line: t.meta.line,
                column: t.column,
                comments: self.strings(&t.meta.comments)?,
                remark: t.meta.remark.clone(),
            })?),
        };
        let exchanges = h
            .exchanges
            .iter()
            .map(|x| {
                self.new_record(PyExchange {
                    kind: x.kind.word().to_string(),
                    holding: self.holding(&x.holding)?,
                    line: x.meta.line,
                    comments: self.strings(&x.meta.comments)?,
                    remark: x.meta.remark.clone(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let revokes = h
            .revokes
            .iter()
            .map(|x| {
                self.new_record(PyRevokeCall {
                    player: self.name(x.player),
                    trick: x.trick,
                    line: x.meta.line,
                    column: x.column,
                    comments: self.strings(&x.meta.comments)?,
                    remark: x.meta.remark.clone(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let tricks = h
            .tricks
            .iter()
            .map(|t| self.trick(t))
            .collect::<PyResult<Vec<_>>>()?;
        let notes = h
            .notes
            .iter()
            .map(|n| {
                self.new_record(PyNote {
                    text: n.text.clone(),
                    line: n.meta.line,
                    comments: self.strings(&n.meta.comments)?,
                    remark: n.meta.remark.clone(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let misdeal = match &h.misdeal {
            None => None,
            Some(m) => Some(self.new_record(PyMarker {
                word: "misdeal".to_string(),
                line: m.line,
                comments: self.strings(&m.comments)?,
                remark: m.remark.clone(),
            })?),
        };
        self.new_record(PyHand {
            number: h.number,
            line: h.meta.line,
            comments: self.strings(&h.meta.comments)?,
            remark: h.meta.remark.clone(),
            dealer: h.dealer.as_ref().map(|d| self.named(d)).transpose()?,
            deal,
            widow,
            bids,
            trump,
            exchanges: self.tuple(exchanges)?,
            revokes: self.tuple(revokes)?,
            tricks: self.tuple(tricks)?,
            score: h.score.as_ref().map(|s| self.score_line(s)).transpose()?,
            total: h.total.as_ref().map(|s| self.score_line(s)).transpose()?,
            notes: self.tuple(notes)?,
            misdeal,
            misread: PyTuple::new(py, h.misread.iter().copied())?.unbind(),
        })
    }

    fn view(&self) -> PyResult<View> {
        let g = self.game;
        let tags = g
            .tags
            .iter()
            .map(|t| {
                self.new_record(PyTag {
                    name: t.name.clone(),
                    value: t.value.clone(),
                    line: t.meta.line,
                    comments: self.strings(&t.meta.comments)?,
                    remark: t.meta.remark.clone(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let hands = g
            .hands
            .iter()
            .map(|h| self.hand(h))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(View {
            tags: self.tuple(tags)?,
            hands: self.tuple(hands)?,
            winner: g.winner.as_ref().map(|w| self.named(w)).transpose()?,
            trailing_comments: self.strings(&g.trailing_comments)?,
        })
    }
}

// ------------------------------------------------------------- Python's records -> the core

fn strings(py: Python<'_>, t: &Py<PyTuple>) -> PyResult<Vec<String>> {
    t.bind(py).iter().map(|s| s.extract::<String>()).collect()
}

fn meta(
    py: Python<'_>,
    line: u32,
    comments: &Py<PyTuple>,
    remark: &Option<String>,
) -> PyResult<Meta> {
    Ok(Meta {
        line,
        comments: strings(py, comments)?,
        remark: remark.clone(),
    })
}

pub(crate) fn card_from(n: u8) -> PyResult<Card> {
    Card::new(n).ok_or_else(|| PyValueError::new_err(format!("{n} is not a card (0 to 53)")))
}

fn cards_from(py: Python<'_>, t: &Py<PyTuple>) -> PyResult<crate::notation::Cards> {
    t.bind(py).iter().map(|c| card_from(c.extract()?)).collect()
}

fn cols_from(py: Python<'_>, t: &Py<PyTuple>) -> PyResult<crate::notation::Columns> {
    t.bind(py).iter().map(|c| c.extract::<u32>()).collect()
}

fn each<T, R>(
    py: Python<'_>,
    t: &Py<PyTuple>,
    mut f: impl FnMut(&T) -> PyResult<R>,
) -> PyResult<Vec<R>>
where
    T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    t.bind(py)
        .iter()
        .map(|x| f(x.cast_into::<T>()?.get()))
        .collect()
}

fn holding_from(py: Python<'_>, g: &mut Game, h: &PyHolding) -> PyResult<Holding> {
    Ok(Holding {
        player: g.intern(&h.player),
        cards: cards_from(py, &h.cards)?,
        columns: cols_from(py, &h.columns)?,
        column: h.column,
    })
}

fn named_from(py: Python<'_>, g: &mut Game, n: &PyNamed) -> PyResult<Named> {
    Ok(Named {
        name: g.intern(&n.name),
        column: n.column,
        meta: meta(py, n.line, &n.comments, &n.remark)?,
    })
}

fn score_from(
    py: Python<'_>,
    g: &mut Game,
    s: &PyScoreLine,
    kind: ScoreKind,
) -> PyResult<ScoreLine> {
    let entries = each(py, &s.entries, |e: &PyScoreEntry| {
        Ok(ScoreEntry {
            key: g.intern(&e.key),
            value: e.value,
            column: e.column,
            value_column: 0,
            value_len: 0,
        })
    })?;
    Ok(ScoreLine {
        kind,
        entries,
        meta: meta(py, s.line, &s.comments, &s.remark)?,
        unreadable: s.unreadable,
        end_column: 0,
    })
}

fn hand_from(py: Python<'_>, g: &mut Game, o: &PyHand) -> PyResult<Hand> {
    let mut h = Hand {
        number: o.number,
        meta: meta(py, o.line, &o.comments, &o.remark)?,
        ..Hand::default()
    };
    if let Some(d) = &o.dealer {
        h.dealer = Some(named_from(py, g, d.get())?);
    }
    if let Some(d) = &o.deal {
        let d = d.get();
        let holdings = each(py, &d.holdings, |x: &PyHolding| holding_from(py, g, x))?;
        let mut unreadable = Vec::new();
        for n in d.unreadable.bind(py).try_iter()? {
            let n = n?;
            unreadable.push(g.intern(&n.extract::<String>()?));
        }
        h.deal = Some(Deal {
            holdings,
            meta: meta(py, d.line, &d.comments, &d.remark)?,
            unreadable,
            incomplete: d.incomplete,
        });
    }
    if let Some(w) = &o.widow {
        let w = w.get();
        h.widow = Some(Widow {
            cards: cards_from(py, &w.cards)?,
            columns: cols_from(py, &w.columns)?,
            meta: meta(py, w.line, &w.comments, &w.remark)?,
        });
    }
    if let Some(b) = &o.bids {
        let b = b.get();
        let bids = each(py, &b.bids, |x: &PyBid| {
            Ok(Bid {
                player: g.intern(&x.player),
                word: g.intern_word(&x.word),
                column: x.column,
            })
        })?;
        h.bids = Some(Bids {
            bids,
            meta: meta(py, b.line, &b.comments, &b.remark)?,
            unreadable: b.unreadable,
        });
    }
    if let Some(t) = &o.trump {
        let t = t.get();
        let suit = Suit::new(t.suit)
            .ok_or_else(|| PyValueError::new_err(format!("{} is not a suit (0 to 3)", t.suit)))?;
        h.trump = Some(TrumpLine {
            suit,
            column: t.column,
            meta: meta(py, t.line, &t.comments, &t.remark)?,
        });
    }
    h.exchanges = each(py, &o.exchanges, |x: &PyExchange| {
        let kind = match x.kind.as_str() {
            "discard" => ExchangeKind::Discard,
            "draw" => ExchangeKind::Draw,
            k => {
                return Err(PyValueError::new_err(format!(
                    "{k:?} is not an exchange (discard or draw)"
                )));
            }
        };
        Ok(Exchange {
            kind,
            holding: holding_from(py, g, x.holding.get())?,
            meta: meta(py, x.line, &x.comments, &x.remark)?,
        })
    })?;
    h.revokes = each(py, &o.revokes, |x: &PyRevokeCall| {
        Ok(RevokeCall {
            player: g.intern(&x.player),
            trick: x.trick,
            column: x.column,
            meta: meta(py, x.line, &x.comments, &x.remark)?,
        })
    })?;
    h.tricks = each(py, &o.tricks, |t: &PyTrick| {
        let plays = each(py, &t.plays, |p: &PyPlay| {
            Ok(Play {
                player: p.player.as_ref().map(|s| g.intern(s)),
                card: card_from(p.card)?,
                column: p.column,
            })
        })?;
        Ok(Trick {
            number: t.number,
            plays: plays.into_iter().collect(),
            short: t.short,
            column: t.column,
            meta: meta(py, t.line, &t.comments, &t.remark)?,
            unreadable: t.unreadable,
        })
    })?;
    if let Some(s) = &o.score {
        h.score = Some(score_from(py, g, s.get(), ScoreKind::Score)?);
    }
    if let Some(s) = &o.total {
        h.total = Some(score_from(py, g, s.get(), ScoreKind::Total)?);
    }
    h.notes = each(py, &o.notes, |n: &PyNote| {
        Ok(Note {
            text: n.text.clone(),
            meta: meta(py, n.line, &n.comments, &n.remark)?,
        })
    })?;
    if let Some(m) = &o.misdeal {
        let m = m.get();
        h.misdeal = Some(meta(py, m.line, &m.comments, &m.remark)?);
    }
    for word in strings(py, &o.misread)? {
        h.misread.extend(parser::keyword(&word));
    }
    Ok(h)
}

/// Registers the record classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTag>()?;
    m.add_class::<PyNamed>()?;
    m.add_class::<PyHolding>()?;
    m.add_class::<PyDeal>()?;
    m.add_class::<PyWidow>()?;
    m.add_class::<PyBid>()?;
    m.add_class::<PyBids>()?;
    m.add_class::<PyTrumpLine>()?;
    m.add_class::<PyExchange>()?;
    m.add_class::<PyRevokeCall>()?;
    m.add_class::<PyPlay>()?;
    m.add_class::<PyTrick>()?;
    m.add_class::<PyScoreEntry>()?;
    m.add_class::<PyScoreLine>()?;
    m.add_class::<PyNote>()?;
    m.add_class::<PyMarker>()?;
    m.add_class::<PyHand>()?;
    m.add_class::<PyGame>()?;
    m.add_function(wrap_pyfunction!(game_from_text, m)?)?;
    Ok(())
}
