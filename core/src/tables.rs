//! The rows every audited game gives the dataset's tables, the counters behind `auditor stats`
//! and (with `import --analyze`) each card's cost under perfect play, all from the one parse
//! and audit of the import; and the piece-by-piece merge that stores each game once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rustc_hash::FxBuildHasher;

use crate::audit::Sink;
use crate::cards::{CARD_NAMES, Card, TrumpTable, suit_letter};
use crate::columns::{self, BatchFiles, Col, Encoded, Table, TableSpec};
use crate::engine::{Finding, GameResult, Seats, Status};
use crate::notation::{Game, writer};
use crate::rules::{Deck, RuleSet, Smudge};

/// A game's key (the BLAKE2b-128 of its canonical text) as a number: 16 bytes a game to remember.
pub type Key = u128;

/// The games an import run has met: those already in the dataset, and those stored since.
/// Shared by the pieces' workers (which skip a game already there) and the merge (which
/// stores each game once, in input order).
#[derive(Debug, Default)]
pub struct GameKeys {
    set: Mutex<HashSet<Key, FxBuildHasher>>,
}

impl GameKeys {
    /// A key written in hex, as the tables store it.
    pub fn parse(hex: &str) -> Option<Key> {
        (hex.len() == 32)
            .then(|| u128::from_str_radix(hex, 16).ok())
            .flatten()
    }

    /// Whether `key` is among the games met.
    pub fn contains(&self, key: Key) -> bool {
        self.set.lock().is_ok_and(|s| s.contains(&key))
    }

    /// Add `key`; false if it was there already.
    pub fn insert(&self, key: Key) -> bool {
        self.set.lock().is_ok_and(|mut s| s.insert(key))
    }

    /// Forget `key` (a piece of work run again).
    pub fn remove(&self, key: Key) {
        if let Ok(mut s) = self.set.lock() {
            s.remove(&key);
        }
    }

    /// How many games were met.
    pub fn len(&self) -> usize {
        self.set.lock().map_or(0, |s| s.len())
    }

    /// Whether no game was met yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What every piece's rows are made with.
#[derive(Debug)]
pub struct Spec {
    /// The file the games were read from, as the tables name it.
    pub source: String,
    /// `imported_at`, in microseconds since the epoch.
    pub now_us: i64,
    /// Fill the analysis table too (`import --analyze`).
    pub analyze: bool,
    /// Fill the derived tables (the counters) too.
    pub derived: bool,
    /// The games already stored (a game among them is read, audited and reported, not stored again).
    pub keys: Arc<GameKeys>,
    /// How big a piece of input a worker takes at once ([`piece_bytes`]).
    pub piece_bytes: usize,
}

/// The piece a worker takes at once: the audit's [`PIECE_BYTES`](crate::audit::PIECE_BYTES),
/// but with the analysis (`import --analyze`), whose examination of a hand costs about a
/// hundred times its audit, about a quarter of each worker's share of the `span` bytes read,
/// so that a log of a megabyte or two is examined on every thread: 64 KB at least (about 180
/// four-handed hands), so that its row groups keep some thousands of rows.
pub fn piece_bytes(analyze: bool, span: u64, jobs: usize) -> usize {
    let audit = crate::audit::PIECE_BYTES;
    if !analyze {
        return audit;
    }
    let share = span / (4 * jobs.max(1) as u64);
    usize::try_from(share).map_or(audit, |s| s.clamp(64 << 10, audit))
}

/// One game's place in the tables of its piece.
#[derive(Clone, Debug)]
pub struct Span {
    /// `None`: findings outside any game.
    pub key: Option<String>,
    pub id: Option<Key>,
    /// The key schema versions 1 and 2 gave the game, where it differs.
    pub legacy: Option<String>,
    /// Its rows are in the piece's tables (false: the game was already stored).
    pub stored: bool,
    /// The first row in each table, and the row after the last.
    pub start: Vec<usize>,
    pub end: Vec<usize>,
}

/// The tables whose rows name a game by its place in the file (`FILE#N`, `game_index`): the
/// merge, which knows how many games came before the piece, finishes them.
fn placed(spec: &TableSpec) -> bool {
    spec.columns
        .iter()
        .any(|c| c.name == "game" || c.name == "game_index")
}

/// Makes a struct of the column positions of one table, resolved once by name.
macro_rules! columns {
    ($name:ident { $($col:ident),* $(,)? }) => {
        #[derive(Clone, Copy, Debug)]
        struct $name { $($col: Col),* }
        impl $name {
            fn of(t: Option<&Table>) -> $name {
                $name { $($col: t.map_or(usize::MAX, |t| t.col(stringify!($col)))),* }
            }
        }
    };
}

columns!(GamesCols {
    game_id,
    game,
    source_file,
    game_index,
    line,
    event,
    site,
    date,
    round,
    rules_tag,
    preset,
    rules,
    players,
    teams,
    tags,
    hands,
    recorded_winner,
    winner,
    won_in_hand,
    imported_at,
});
columns!(HandsCols {
    game_id,
    hand,
    line,
    dealer,
    status,
    pitcher,
    contract,
    high_bid,
    sold,
    sale,
    trump,
    trump_line,
    dealt,
    widow,
    points_in_play,
    tricks,
    high,
    high_card,
    high_holder,
    low,
    low_card,
    low_holder,
    jack,
    jack_trick,
    off_jack,
    high_joker,
    low_joker,
    trey,
    game_point,
    contract_made,
    smudge,
    moon,
    takeover,
    revokers,
    went_out,
    notes,
});
columns!(DealsCols {
    game_id,
    hand,
    player,
    cards
});
columns!(ExchangesCols {
    game_id,
    hand,
    position,
    kind,
    player,
    cards,
    line
});
columns!(BidsCols {
    game_id,
    hand,
    position,
    player,
    word,
    value,
    line,
    column
});
columns!(PlaysCols {
    game_id,
    hand,
    trick,
    position,
    player,
    card,
    rank,
    suit,
    trump,
    trick_winner,
    revoke,
    line,
    column,
});
columns!(RecordedCols {
    game_id,
    hand,
    kind,
    key,
    value,
    line,
    column
});
columns!(HandScoresCols {
    game_id,
    hand,
    side,
    pitcher_side,
    points,
    high,
    low,
    jack,
    off_jack,
    high_joker,
    low_joker,
    trey,
    game_point,
    count,
    tricks,
    score,
    recorded_score,
    total,
    recorded_total,
    set_back,
    revoked,
});
columns!(SettlementsCols {
    game_id,
    side,
    amount
});
columns!(FindingsCols {
    game_id,
    game,
    code,
    kind,
    severity,
    file,
    line,
    column,
    hand,
    trick,
    player,
    message,
    expected,
    recorded,
    fields,
});
columns!(CountersCols {
    game_id,
    game,
    event,
    date,
    preset,
    player,
    side,
    side_lead,
    finished,
    won,
    settlement,
    bid_turns,
    bids,
    auctions_won,
    contract_sum,
    contracts_made,
    times_set,
    smudge_attempts,
    smudges_made,
    moon_attempts,
    moons_made,
    revokes,
    hands,
    high,
    low,
    jack,
    game_point,
    ten_point_hands,
    off_jack_hands,
    off_jack,
    high_joker,
    low_joker,
    trey_hands,
    trey,
    points,
    points_in_play,
    score,
    set_back,
    side_revokes,
    scoring_errors,
});
columns!(AnalysisCols {
    game_id,
    hand,
    trick,
    position,
    player,
    side,
    card,
    pitcher,
    pitcher_side,
    value_before,
    value_after,
    cost,
    mistake,
    illegal,
    better,
    par,
    best_trump_par,
    contract,
    claim,
});

/// Each table's position among the piece's tables (`usize::MAX`: not in the schema).
#[derive(Clone, Copy, Debug)]
struct Tables {
    games: usize,
    hands: usize,
    deals: usize,
    exchanges: usize,
    bids: usize,
    plays: usize,
    recorded: usize,
    hand_scores: usize,
    settlements: usize,
    findings: usize,
    counters: usize,
    analysis: usize,
}

/// The column positions of every table.
#[derive(Clone, Copy, Debug)]
struct Cols {
    games: GamesCols,
    hands: HandsCols,
    deals: DealsCols,
    exchanges: ExchangesCols,
    bids: BidsCols,
    plays: PlaysCols,
    recorded: RecordedCols,
    hand_scores: HandScoresCols,
    settlements: SettlementsCols,
    findings: FindingsCols,
    counters: CountersCols,
    analysis: AnalysisCols,
}

/// The tables of one piece of input, game by game.
pub struct Rows {
    spec: Arc<Spec>,
    /// One per table of the schema, in its order.
    pub tables: Vec<Table>,
    pub spans: Vec<Span>,
    at: Tables,
    c: Cols,
    /// Keys of the games stored in this piece.
    piece_seen: HashSet<Key, FxBuildHasher>,
    /// The tables the workers encode (all but the placed ones), once the piece is read.
    pub encoded: Vec<Option<Encoded>>,
    /// An error of the encoder, for the merge to raise.
    pub error: Option<String>,
    /// The key of the game given last.
    last_key: Option<String>,
}

/// The points beyond High, Low, Jack and Game, by the `hand_scores` column that records
/// them: the jack of trump's colour is one column, the off-jack of `deck=54` or smear's jick.
const EXTRA_POINTS: [(&[&str], &str); 4] = [
    (&["Off-jack", "Jick"], "off_jack"),
    (&["High joker"], "high_joker"),
    (&["Low joker"], "low_joker"),
    (&["Trey"], "trey"),
];

impl Rows {
    /// Empty tables of `schema`.
    pub fn new(spec: Arc<Spec>, schema: &'static columns::Schema) -> Rows {
        let tables: Vec<Table> = schema.tables.iter().map(Table::new).collect();
        let pos = |n: &str| schema.table(n).map_or(usize::MAX, |(i, _)| i);
        let at = Tables {
            games: pos("games"),
            hands: pos("hands"),
            deals: pos("deals"),
            exchanges: pos("exchanges"),
            bids: pos("bids"),
            plays: pos("plays"),
            recorded: pos("recorded_scores"),
            hand_scores: pos("hand_scores"),
            settlements: pos("settlements"),
            findings: pos("findings"),
            counters: pos("game_player_counters"),
            analysis: pos("analysis"),
        };
        let t = |i: usize| tables.get(i);
        let c = Cols {
            games: GamesCols::of(t(at.games)),
            hands: HandsCols::of(t(at.hands)),
            deals: DealsCols::of(t(at.deals)),
            exchanges: ExchangesCols::of(t(at.exchanges)),
            bids: BidsCols::of(t(at.bids)),
            plays: PlaysCols::of(t(at.plays)),
            recorded: RecordedCols::of(t(at.recorded)),
            hand_scores: HandScoresCols::of(t(at.hand_scores)),
            settlements: SettlementsCols::of(t(at.settlements)),
            findings: FindingsCols::of(t(at.findings)),
            counters: CountersCols::of(t(at.counters)),
            analysis: AnalysisCols::of(t(at.analysis)),
        };
        Rows {
            spec,
            tables,
            spans: Vec::new(),
            at,
            c,
            piece_seen: HashSet::default(),
            encoded: Vec::new(),
            error: None,
            last_key: None,
        }
    }

    fn table(&mut self, i: usize) -> Option<&mut Table> {
        self.tables.get_mut(i)
    }

    fn marks(&self) -> Vec<usize> {
        self.tables.iter().map(Table::rows).collect()
    }

    /// Rows in the hands table.
    pub fn hands(&self) -> usize {
        self.tables.get(self.at.hands).map_or(0, Table::rows)
    }

    fn findings(&mut self, game_id: Option<&str>, game: &str, found: &[Finding]) {
        let c = self.c.findings;
        let source = self.spec.source.clone();
        let Some(t) = self.table(self.at.findings) else {
            return;
        };
        for f in found {
            finding_row(t, &c, game_id, game, &FindingRow::of(f, &source));
        }
    }

    /// The rows of the findings Python made itself (a file that cannot be read, or is not text),
    /// as a batch of the findings table.
    pub fn stray_batch(
        spec: Arc<Spec>,
        found: &[FindingRow],
    ) -> Result<(usize, arrow_array::RecordBatch), String> {
        let mut rows = Rows::new(spec, columns::schema()?);
        let c = rows.c.findings;
        let at = rows.at.findings;
        let t = rows.tables.get_mut(at).ok_or("no findings table")?;
        for f in found {
            finding_row(t, &c, None, &f.game, f);
        }
        Ok((at, t.finish()))
    }
}

/// One finding as the findings table stores it.
#[derive(Clone, Debug)]
pub struct FindingRow {
    pub code: crate::findings::Code,
    /// The game's name (empty: outside any game).
    pub game: String,
    /// The file it is in.
    pub source: String,
    pub line: u32,
    pub column: u32,
    pub hand: Option<u32>,
    pub trick: Option<u32>,
    pub subject: Option<String>,
    pub message: String,
    pub expected: Option<String>,
    pub recorded: Option<String>,
    /// The typed fields as one JSON object (as `audit --format json` gives them).
    pub fields: String,
}

impl FindingRow {
    /// The row of the core's finding `f`, found in `source`.
    pub fn of(f: &Finding, source: &str) -> FindingRow {
        let compared = f.facts.compared();
        FindingRow {
            code: f.code(),
            game: f.game.clone(),
            source: source.to_string(),
            line: f.line,
            column: f.column,
            hand: f.hand,
            trick: f.trick,
            subject: f.subject.clone(),
            message: f.message(),
            expected: compared.as_ref().map(|c| c.0.clone()),
            recorded: compared.map(|c| c.1),
            fields: crate::findings::fields_json(&f.facts.fields()),
        }
    }
}

/// One row of the findings table (`game`: the game's name as the piece knows it).
fn finding_row(t: &mut Table, c: &FindingsCols, game_id: Option<&str>, game: &str, f: &FindingRow) {
    let code = f.code;
    t.str(c.game_id, game_id);
    t.str(c.game, (!game.is_empty()).then_some(game));
    t.str(c.code, Some(code.as_str()));
    t.str(c.kind, Some(code.kind()));
    t.str(c.severity, Some(code.declaration().severity.as_str()));
    t.str(c.file, Some(&f.source));
    t.int(c.line, Some(i64::from(f.line)));
    t.int(c.column, Some(i64::from(f.column)));
    t.int(c.hand, f.hand.map(i64::from));
    t.int(c.trick, f.trick.map(i64::from));
    t.str(c.player, f.subject.as_deref());
    t.str(c.message, Some(&f.message));
    t.str(c.expected, f.expected.as_deref());
    t.str(c.recorded, f.recorded.as_deref());
    t.str(c.fields, Some(&f.fields));
    t.end_row();
}

/// What a game's rows say, kept while they are written, for its counters: the same facts the
/// view `game_player_counters_live` reads from the tables, so the two agree row for row.
#[derive(Default)]
struct Facts<'a> {
    /// The hands rows.
    hands: Vec<HandFact<'a>>,
    /// (hand, player) of each play that broke the follow rule.
    revoked: Vec<(u32, &'a str)>,
    /// The hand_scores rows.
    scored: Vec<Scored<'a>>,
    /// Per bids row: who spoke, the word, whether it stands for a number.
    said: Vec<(&'a str, &'a str, bool)>,
}

/// One hands row, as the counters read it.
struct HandFact<'a> {
    number: u32,
    played: bool,
    pitcher: Option<&'a str>,
    contract: Option<i32>,
    /// Whether the contract was made (null: not judged).
    made: Option<bool>,
    /// The sides penalised for a revoke.
    revokers: Vec<&'a str>,
}

/// One hand_scores row, as the counters add it up.
struct Scored<'a> {
    side: &'a str,
    high: bool,
    low: bool,
    jack: bool,
    game_point: bool,
    extra: [Option<bool>; 4],
    points: i64,
    score: Option<i64>,
    set_back: i64,
}

impl Sink for Rows {
    fn last_key(&self) -> Option<String> {
        self.last_key.clone()
    }

    fn stray(&mut self, name: &str, found: &[Finding]) {
        let start = self.marks();
        self.findings(None, name, found);
        self.spans.push(Span {
            key: None,
            id: None,
            legacy: None,
            stored: true,
            start,
            end: self.marks(),
        });
    }

    fn game(
        &mut self,
        g: &Game,
        name: &str,
        pf: &[Finding],
        rules: Option<&RuleSet>,
        res: Option<&GameResult>,
    ) {
        let start = self.marks();
        let key = writer::game_key(g);
        let kid = GameKeys::parse(&key);
        let legacy = (!pf.is_empty()).then(|| legacy_key(g, pf));
        self.last_key = Some(key.clone());
        let keys = &self.spec.keys;
        let already = kid.is_some_and(|k| keys.contains(k))
            || legacy
                .as_deref()
                .and_then(GameKeys::parse)
                .is_some_and(|k| keys.contains(k))
            || kid.is_some_and(|k| !self.piece_seen.insert(k));
        if already {
            self.spans.push(Span {
                key: Some(key),
                id: kid,
                legacy,
                stored: false,
                end: start.clone(),
                start,
            });
            return;
        }
        let mut facts = Facts::default();
        self.game_rows(g, name, &key, rules, res, &mut facts);
        self.findings(Some(&key), name, pf);
        if let Some(r) = res {
            self.findings(Some(&key), name, &r.findings);
        }
        let errors: Vec<&str> = pf
            .iter()
            .chain(res.map_or(&[][..], |r| &r.findings))
            .filter(|f| matches!(f.code().as_str(), "S601" | "S602") && f.hand.is_some())
            .filter_map(|f| f.subject.as_deref())
            .collect();
        if self.spec.derived {
            self.counters(g, name, &key, rules, res, &facts, &errors);
        }
        if self.spec.analyze {
            self.analysis(g, &key, rules, res);
        }
        self.spans.push(Span {
            key: Some(key),
            id: kid,
            legacy,
            stored: true,
            start,
            end: self.marks(),
        });
    }

    /// The spec's (see [`piece_bytes`]).
    fn piece_bytes(&self) -> usize {
        self.spec.piece_bytes
    }

    /// On the worker, once the piece is read: every table whose rows are final is encoded.
    fn finish(&mut self) {
        let mut encoded = Vec::with_capacity(self.tables.len());
        for t in &mut self.tables {
            if placed(t.spec) || t.rows() == 0 {
                encoded.push(None);
                continue;
            }
            let batch = t.finish();
            match columns::encode(t.spec, &batch) {
                Ok(chunks) => encoded.push(Some(Encoded { batch, chunks })),
                Err(e) => {
                    self.error.get_or_insert(e.to_string());
                    encoded.push(None);
                }
            }
        }
        self.encoded = encoded;
    }
}

impl Rows {
    /// The rows of one game that is stored: games, hands, deals, bids, exchanges, plays,
    /// recorded and recomputed scores, settlements; `facts` gathers what its counters need.
    fn game_rows<'a>(
        &mut self,
        g: &'a Game,
        name: &str,
        key: &str,
        rules: Option<&RuleSet>,
        res: Option<&'a GameResult>,
        facts: &mut Facts<'a>,
    ) {
        let id = Some(key);
        let seats = res.and_then(|r| r.seats.as_ref());
        let audited = res.is_some_and(|r| r.audited);
        let side = |s: i32| seats.and_then(|x| x.side_name(s));
        let c = self.c;
        let at = self.at;
        if let Some(t) = self.tables.get_mut(at.games) {
            let c = c.games;
            let players = crate::engine::players(g);
            t.str(c.game_id, id);
            t.str(c.game, Some(name));
            t.str(c.source_file, Some(&self.spec.source));
            t.int(c.game_index, Some(i64::from(g.index)));
            t.int(c.line, Some(i64::from(g.line)));
            t.str(c.event, g.tag("Event"));
            t.str(c.site, g.tag("Site"));
            t.int(c.date, date_days(g.tag("Date")));
            t.str(c.round, g.tag("Round"));
            t.str(c.rules_tag, g.tag("Rules"));
            t.str(c.preset, rules.map(|r| r.preset.as_str()));
            t.str(c.rules, rules.map(|r| r.text.as_str()));
            t.list(c.players, Some(players.iter().map(String::as_str)));
            t.str(c.teams, g.tag("Teams"));
            t.str(c.tags, Some(&tags_json(g)));
            t.int(c.hands, Some(g.hands.len() as i64));
            t.str(
                c.recorded_winner,
                g.winner.as_ref().map(|w| g.name_of(w.name)),
            );
            t.str(c.winner, res.and_then(|r| side(r.winner)));
            t.int(
                c.won_in_hand,
                res.and_then(|r| r.won_in_hand).map(i64::from),
            );
            t.int(c.imported_at, Some(self.spec.now_us));
            t.end_row();
        }
        let deck = rules.map_or(Deck::Plain, |r| r.deck);
        for (hi, h) in g.hands.iter().enumerate() {
            let hs = res.filter(|_| audited).and_then(|r| r.hands.get(hi));
            let prep = res.filter(|_| audited).and_then(|r| r.preps.get(hi));
            let played = hs.is_some_and(|x| x.status == Status::Played);
            let pts = hs.and_then(|x| x.points.as_ref());
            let award = |n: &str| pts.map(|p| p.owner(n)).and_then(side);
            let seat_name = |s: i32| seats.map_or("nobody", |x| x.name(s));
            if let Some(t) = self.tables.get_mut(at.hands) {
                let c = c.hands;
                t.str(c.game_id, id);
                t.int(c.hand, Some(i64::from(h.number)));
                t.int(c.line, Some(i64::from(h.meta.line)));
                t.str(c.dealer, h.dealer.as_ref().map(|d| g.name_of(d.name)));
                let status = match hs {
                    Some(x) => x.status.as_str(),
                    None if h.misdeal.is_some() => "misdeal",
                    None => "unplayable",
                };
                t.str(c.status, Some(status));
                let mut fact = HandFact {
                    number: h.number,
                    played: status == "played",
                    pitcher: None,
                    contract: None,
                    made: None,
                    revokers: Vec::new(),
                };
                if let (Some(hs), Some(prep)) = (hs, prep) {
                    let pitcher = (prep.pitcher >= 0).then(|| seat_name(prep.pitcher));
                    t.str(c.pitcher, pitcher);
                    t.int(c.contract, Some(i64::from(prep.contract)));
                    t.int(c.high_bid, Some(i64::from(prep.high_bid)));
                    let sale = if played && prep.seller >= 0 {
                        prep.sale
                    } else {
                        0
                    };
                    t.bool(c.sold, Some(sale != 0));
                    t.int(c.sale, Some(i64::from(sale)));
                    t.str(c.trump, (prep.trump >= 0).then(|| suit_letter(prep.trump)));
                    let made = hs.contract_made.filter(|_| played);
                    t.bool(c.contract_made, made);
                    t.bool(c.smudge, Some(hs.smudge));
                    t.bool(
                        c.moon,
                        Some(hs.smudge && rules.is_some_and(|r| r.smudge == Smudge::Moon)),
                    );
                    t.bool(c.takeover, Some(hs.takeover || prep.takeover));
                    let revokers: Vec<&str> = hs.revokers.iter().filter_map(|&r| side(r)).collect();
                    t.list(c.revokers, Some(revokers.iter().copied()));
                    t.str(c.went_out, side(hs.went_out));
                    fact = HandFact {
                        number: h.number,
                        played,
                        pitcher,
                        contract: Some(prep.contract),
                        made,
                        revokers,
                    };
                } else {
                    let first = h
                        .tricks
                        .first()
                        .and_then(|t| t.plays.first())
                        .map(|p| p.card);
                    t.str(
                        c.trump,
                        first
                            .filter(|c| c.index() < 52)
                            .map(|c| suit_letter(c.suit())),
                    );
                    t.bool(c.sold, Some(false));
                    t.bool(c.smudge, Some(false));
                    t.bool(c.moon, Some(false));
                    t.bool(c.takeover, Some(false));
                    t.list(c.revokers, Some(std::iter::empty::<&str>()));
                }
                facts.hands.push(fact);
                t.str(
                    c.trump_line,
                    h.trump
                        .as_ref()
                        .map(|x| suit_letter(i32::from(x.suit.index()))),
                );
                t.bool(c.dealt, Some(h.deal.is_some()));
                t.list(
                    c.widow,
                    h.widow.as_ref().map(|w| w.cards.iter().map(|&x| card(x))),
                );
                t.int(c.points_in_play, rules.map(|r| i64::from(r.points_in_play)));
                t.int(c.tricks, Some(h.tricks.len() as i64));
                if let (Some(p), true) = (pts, played) {
                    t.str(c.high, award("High"));
                    t.str(c.high_card, p.high_card.map(card));
                    t.str(c.high_holder, Some(seat_name(p.high_holder)));
                    t.str(c.low, award("Low"));
                    t.str(c.low_card, p.low_card.map(card));
                    t.str(c.low_holder, Some(seat_name(p.low_holder)));
                    t.str(c.jack, award("Jack"));
                    t.int(c.jack_trick, p.jack_trick.map(i64::from));
                    for ((names, _), col) in
                        EXTRA_POINTS
                            .iter()
                            .zip([c.off_jack, c.high_joker, c.low_joker, c.trey])
                    {
                        t.str(col, names.iter().find_map(|n| award(n)));
                    }
                    t.str(c.game_point, award("Game"));
                }
                t.list(c.notes, Some(h.notes.iter().map(|n| n.text.as_str())));
                t.end_row();
            }
            if let (Some(deal), Some(t)) = (&h.deal, self.tables.get_mut(at.deals)) {
                let c = c.deals;
                for hold in &deal.holdings {
                    t.str(c.game_id, id);
                    t.int(c.hand, Some(i64::from(h.number)));
                    t.str(c.player, Some(g.name_of(hold.player)));
                    t.list(c.cards, Some(hold.cards.iter().map(|&x| card(x))));
                    t.end_row();
                }
            }
            if let (Some(bl), Some(t)) = (&h.bids, self.tables.get_mut(at.bids)) {
                let c = c.bids;
                for (i, b) in bl.bids.iter().enumerate() {
                    let w = g.word_of(b.word);
                    let value = rules.and_then(|r| r.bid_value(w)).map(i64::from);
                    let player = g.name_of(b.player);
                    t.str(c.game_id, id);
                    t.int(c.hand, Some(i64::from(h.number)));
                    t.int(c.position, Some(i as i64 + 1));
                    t.str(c.player, Some(player));
                    t.str(c.word, Some(w));
                    t.int(c.value, value);
                    t.int(c.line, Some(i64::from(bl.meta.line)));
                    t.int(c.column, Some(i64::from(b.column)));
                    t.end_row();
                    facts.said.push((player, w, value.is_some()));
                }
            }
            if let Some(t) = self.tables.get_mut(at.exchanges) {
                let c = c.exchanges;
                for (i, x) in h.exchanges.iter().enumerate() {
                    t.str(c.game_id, id);
                    t.int(c.hand, Some(i64::from(h.number)));
                    t.int(c.position, Some(i as i64 + 1));
                    t.str(c.kind, Some(x.kind.word()));
                    t.str(c.player, Some(g.name_of(x.holding.player)));
                    t.list(c.cards, Some(x.holding.cards.iter().map(|&k| card(k))));
                    t.int(c.line, Some(i64::from(x.meta.line)));
                    t.end_row();
                }
            }
            if let Some(t) = self.tables.get_mut(at.plays) {
                plays(t, &c.plays, g, h, id, hs, prep, seats, deck, facts);
            }
            if let Some(t) = self.tables.get_mut(at.recorded) {
                let c = c.recorded;
                for sl in [&h.score, &h.total].into_iter().flatten() {
                    for e in &sl.entries {
                        t.str(c.game_id, id);
                        t.int(c.hand, Some(i64::from(h.number)));
                        t.str(c.kind, Some(sl.kind.word()));
                        t.str(c.key, Some(g.name_of(e.key)));
                        t.int(c.value, Some(i64::from(e.value)));
                        t.int(c.line, Some(i64::from(sl.meta.line)));
                        t.int(c.column, Some(i64::from(e.column)));
                        t.end_row();
                    }
                }
            }
            if let (Some(hs), Some(prep), Some(seats), Some(p), true, Some(t)) = (
                hs,
                prep,
                seats,
                pts,
                played && hs.is_some_and(|x| x.scored),
                self.tables.get_mut(at.hand_scores),
            ) {
                hand_scores(
                    t,
                    &c.hand_scores,
                    g,
                    h,
                    id,
                    hs,
                    prep,
                    seats,
                    p,
                    rules,
                    facts,
                );
            }
        }
        if let (Some(res), Some(seats), Some(t)) = (res, seats, self.tables.get_mut(at.settlements))
        {
            let c = c.settlements;
            for (i, &v) in res.settlement.iter().enumerate() {
                t.str(c.game_id, id);
                t.str(c.side, seats.side_name(i as i32));
                t.int(c.amount, Some(i64::from(v)));
                t.end_row();
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn plays<'a>(
    t: &mut Table,
    c: &PlaysCols,
    g: &'a Game,
    h: &crate::notation::Hand,
    id: Option<&str>,
    hs: Option<&'a crate::engine::HandScore>,
    prep: Option<&crate::engine::Prepared>,
    seats: Option<&'a Seats>,
    deck: Deck,
    facts: &mut Facts<'a>,
) {
    let name = |s: i32| seats.map_or("nobody", |x| x.name(s));
    // the takers of the tricks that had one, as the record's tricks are numbered
    let winners: Vec<&str> = hs
        .map(|x| {
            x.winners
                .iter()
                .filter(|&&s| s >= 0)
                .map(|&s| name(s))
                .collect()
        })
        .unwrap_or_default();
    let revoked: Vec<(u32, &str)> = hs
        .map(|x| {
            x.revoke_plays
                .iter()
                .map(|r| (r.trick as u32, name(r.seat)))
                .collect()
        })
        .unwrap_or_default();
    let trump = hs.and(prep).map_or(-1, |p| p.trump);
    let table = TrumpTable::get(trump, deck);
    for tr in &h.tricks {
        let ti = tr.number as usize;
        let winner = ti.checked_sub(1).and_then(|i| winners.get(i)).copied();
        let row_players = ti
            .checked_sub(1)
            .and_then(|i| prep.filter(|_| hs.is_some()).and_then(|p| p.seats.get(i)));
        for (pos, p) in tr.plays.iter().enumerate() {
            let who = match p.player {
                Some(n) => Some(g.name_of(n)),
                None => row_players.and_then(|r| r.get(pos)).map(|&s| name(s)),
            };
            let cd = p.card;
            let s = cd.suit();
            let revoke = who.is_some_and(|w| revoked.contains(&(tr.number, w)));
            t.str(c.game_id, id);
            t.int(c.hand, Some(i64::from(h.number)));
            t.int(c.trick, Some(i64::from(tr.number)));
            t.int(c.position, Some(pos as i64 + 1));
            t.str(c.player, who);
            t.str(c.card, Some(card(cd)));
            t.str(
                c.rank,
                Some(if cd.index() < 52 {
                    card(cd).get(..1).unwrap_or("?")
                } else {
                    "JK"
                }),
            );
            t.str(c.suit, (s < 4).then(|| suit_letter(s)));
            t.bool(c.trump, Some(trump >= 0 && table.is_trump(cd)));
            t.str(c.trick_winner, winner);
            t.bool(c.revoke, Some(revoke));
            t.int(c.line, Some(i64::from(tr.meta.line)));
            t.int(c.column, Some(i64::from(p.column)));
            t.end_row();
            if let (true, Some(w)) = (revoke, who) {
                facts.revoked.push((h.number, w));
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn hand_scores<'a>(
    t: &mut Table,
    c: &HandScoresCols,
    g: &Game,
    h: &crate::notation::Hand,
    id: Option<&str>,
    hs: &crate::engine::HandScore,
    prep: &crate::engine::Prepared,
    seats: &'a Seats,
    p: &crate::engine::points::Points,
    rules: Option<&RuleSet>,
    facts: &mut Facts<'a>,
) {
    let recorded = |line: &Option<crate::notation::ScoreLine>, sd: &str| -> Option<i64> {
        line.as_ref()
            .and_then(|l| l.entries.iter().find(|e| g.name_of(e.key) == sd))
            .map(|e| i64::from(e.value))
    };
    let pitcher_side = if prep.pitcher >= 0 {
        seats.side(prep.pitcher)
    } else {
        -1
    };
    // which of the extra points the rule set has (the others are null: no such point)
    let extra: Vec<Option<&str>> = EXTRA_POINTS
        .iter()
        .map(|(names, _)| {
            rules.and_then(|r| {
                names
                    .iter()
                    .find(|name| r.point_names.iter().any(|n| n == *name))
                    .copied()
            })
        })
        .collect();
    for (i, sd) in seats.side_names.iter().enumerate() {
        let si = i as i32;
        let at = |v: &[i32]| v.get(i).copied().unwrap_or(0);
        let row = Scored {
            side: sd,
            high: p.owner("High") == si,
            low: p.owner("Low") == si,
            jack: p.owner("Jack") == si,
            game_point: p.owner("Game") == si,
            extra: [0, 1, 2, 3].map(|k| {
                extra
                    .get(k)
                    .copied()
                    .flatten()
                    .map(|point| p.owner(point) == si)
            }),
            points: i64::from(at(&hs.made)),
            score: hs.score.get(i).map(|&v| i64::from(v)),
            set_back: i64::from(at(&hs.set_back)),
        };
        t.str(c.game_id, id);
        t.int(c.hand, Some(i64::from(h.number)));
        t.str(c.side, Some(sd));
        t.bool(
            c.pitcher_side,
            Some(pitcher_side >= 0 && si == pitcher_side),
        );
        t.int(c.points, Some(row.points));
        t.bool(c.high, Some(row.high));
        t.bool(c.low, Some(row.low));
        t.bool(c.jack, Some(row.jack));
        for (v, col) in row
            .extra
            .iter()
            .zip([c.off_jack, c.high_joker, c.low_joker, c.trey])
        {
            t.bool(col, *v);
        }
        t.bool(c.game_point, Some(row.game_point));
        t.int(c.count, Some(i64::from(at(&p.counts))));
        t.int(c.tricks, Some(i64::from(at(&p.tricks))));
        t.int(c.score, row.score);
        t.int(c.recorded_score, recorded(&h.score, sd));
        t.int(c.total, hs.total.get(i).map(|&v| i64::from(v)));
        t.int(c.recorded_total, recorded(&h.total, sd));
        t.int(c.set_back, Some(row.set_back));
        t.bool(c.revoked, Some(hs.revokers.contains(&si)));
        t.end_row();
        facts.scored.push(row);
    }
}

/// A `Teams` tag's teams as the counters' SQL reads it: parts `NAME: MEMBERS` split on `;`
/// (a part with no colon names nobody), each member's first team.
fn team_of<'a>(teams: &'a str, player: &str) -> Option<&'a str> {
    teams.split(';').find_map(|part| {
        let (name, members) = part.trim_matches(' ').split_once(':')?;
        members
            .split_whitespace()
            .any(|m| m == player)
            .then(|| name.trim_matches(' '))
    })
}

impl Rows {
    /// The game's rows of `game_player_counters`: per seated player, the sums the statistics
    /// add up (see the view `game_player_counters_live`, which computes the same from the tables).
    #[allow(clippy::too_many_arguments)]
    fn counters(
        &mut self,
        g: &Game,
        name: &str,
        key: &str,
        rules: Option<&RuleSet>,
        res: Option<&GameResult>,
        facts: &Facts<'_>,
        errors: &[&str],
    ) {
        let c = self.c.counters;
        let Some(t) = self.tables.get_mut(self.at.counters) else {
            return;
        };
        let players = crate::engine::players(g);
        let seats = res.and_then(|r| r.seats.as_ref());
        let winner = res.and_then(|r| seats.and_then(|s| s.side_name(r.winner)));
        let partnership = rules.is_some_and(|r| r.partnership);
        let settles = rules.is_some_and(|r| r.club_settlement() && !r.partnership);
        let top_bid = rules
            .filter(|r| !r.top_bid_words.0.is_empty() || r.smudge != Smudge::None)
            .map(|r| r.top_bid);
        let moon = rules.is_some_and(|r| r.smudge == Smudge::Moon);
        let teams = g.tag("Teams");
        let settlement: Vec<(&str, i32)> = match (res, seats) {
            (Some(res), Some(seats)) => res
                .settlement
                .iter()
                .enumerate()
                .filter_map(|(i, &v)| seats.side_name(i as i32).map(|s| (s, v)))
                .collect(),
            _ => Vec::new(),
        };
        // the seated rows, each as often as the settlements name its side (a left join)
        let mut rows: Vec<(&str, usize, String, Option<i64>)> = Vec::new();
        for (seat, p) in players.iter().enumerate() {
            let team = teams.filter(|_| partnership).and_then(|t| team_of(t, p));
            let side = team.unwrap_or(p).to_string();
            let paid: Vec<i64> = settlement
                .iter()
                .filter(|(s, _)| *s == side)
                .map(|&(_, v)| i64::from(v))
                .collect();
            let amount = |v: Option<i64>| (settles && winner.is_some()).then(|| v.unwrap_or(0));
            if paid.is_empty() {
                rows.push((p, seat + 1, side, amount(None)));
            } else {
                for v in paid {
                    rows.push((p, seat + 1, side.clone(), amount(Some(v))));
                }
            }
        }
        let points_in_play = rules.map_or(0, |r| i64::from(r.points_in_play));
        let played_hand = |n: u32| facts.hands.iter().any(|h| h.number == n && h.played);
        // (hand, player) revoked in a played hand, each once
        let mut revoked: Vec<(u32, &str)> = facts
            .revoked
            .iter()
            .copied()
            .filter(|&(n, _)| played_hand(n))
            .collect();
        revoked.sort_unstable();
        revoked.dedup();
        for (player, seat, side, settlement) in &rows {
            let joined = rows.iter().filter(|r| r.0 == *player).count() as i64;
            let lead = rows
                .iter()
                .filter(|r| r.2 == *side)
                .map(|r| r.1)
                .min()
                .is_some_and(|m| m == *seat);
            let (mut turns, mut bids) = (0i64, 0i64);
            for &(p, w, valued) in &facts.said {
                if p == *player {
                    turns += i64::from(w != "sells" && w != "keeps");
                    bids += i64::from(valued);
                }
            }
            let mut won = [0i64; 8]; // auctions, sum, made, set, smudges, smudges made, moons, moons made
            for h in &facts.hands {
                let Some(contract) = h
                    .contract
                    .filter(|&k| h.played && k > 0 && h.pitcher == Some(*player))
                else {
                    continue;
                };
                // as SQL reads a null: neither made nor set
                let set = h.made == Some(false)
                    && (h.revokers.is_empty() || h.revokers.iter().any(|r| r == side));
                let made = h.made == Some(true);
                let top = top_bid == Some(contract);
                let adds = [
                    1,
                    i64::from(contract),
                    i64::from(made),
                    i64::from(set),
                    i64::from(top),
                    i64::from(top && made),
                    i64::from(top && moon),
                    i64::from(top && moon && made),
                ];
                for (w, a) in won.iter_mut().zip(adds) {
                    *w += a * joined;
                }
            }
            let revokes = revoked.iter().filter(|r| r.1 == *player).count() as i64;
            let side_players: Vec<&str> =
                rows.iter().filter(|r| r.2 == *side).map(|r| r.0).collect();
            let mut side_hands: Vec<u32> = revoked
                .iter()
                .filter(|r| side_players.contains(&r.1))
                .map(|r| r.0)
                .collect();
            side_hands.sort_unstable();
            side_hands.dedup();
            let mine: Vec<&Scored> = facts.scored.iter().filter(|s| s.side == side).collect();
            let count = |f: &dyn Fn(&Scored) -> bool| mine.iter().filter(|s| f(s)).count() as i64;
            let hands = mine.len() as i64;
            let score = mine
                .iter()
                .filter_map(|s| s.score)
                .fold(None, |acc: Option<i64>, v| Some(acc.unwrap_or(0) + v));
            t.str(c.game_id, Some(key));
            t.str(c.game, Some(name));
            t.str(c.event, g.tag("Event"));
            t.int(c.date, date_days(g.tag("Date")));
            t.str(c.preset, rules.map(|r| r.preset.as_str()));
            t.str(c.player, Some(player));
            t.str(c.side, Some(side));
            t.bool(c.side_lead, Some(lead));
            t.bool(c.finished, Some(winner.is_some()));
            t.bool(c.won, Some(winner == Some(side.as_str())));
            t.int(c.settlement, *settlement);
            let int = |t: &mut Table, col: Col, v: i64| t.int(col, Some(v));
            int(t, c.bid_turns, turns);
            int(t, c.bids, bids);
            for (col, v) in [
                c.auctions_won,
                c.contract_sum,
                c.contracts_made,
                c.times_set,
                c.smudge_attempts,
                c.smudges_made,
                c.moon_attempts,
                c.moons_made,
            ]
            .into_iter()
            .zip(won)
            {
                int(t, col, v);
            }
            int(t, c.revokes, revokes);
            int(t, c.hands, hands);
            int(t, c.high, count(&|s| s.high));
            int(t, c.low, count(&|s| s.low));
            int(t, c.jack, count(&|s| s.jack));
            int(t, c.game_point, count(&|s| s.game_point));
            let [off_jack, high_joker, low_joker, trey] = [0, 1, 2, 3];
            let known = |k: usize| count(&|s| s.extra.get(k).copied().flatten().is_some());
            let took = |k: usize| count(&|s| s.extra.get(k).copied().flatten() == Some(true));
            int(t, c.ten_point_hands, known(high_joker));
            int(t, c.off_jack_hands, known(off_jack));
            int(t, c.off_jack, took(off_jack));
            int(t, c.high_joker, took(high_joker));
            int(t, c.low_joker, took(low_joker));
            int(t, c.trey_hands, known(trey));
            int(t, c.trey, took(trey));
            int(t, c.points, mine.iter().map(|s| s.points).sum());
            int(t, c.points_in_play, hands * points_in_play);
            t.int(c.score, score);
            int(t, c.set_back, mine.iter().map(|s| s.set_back).sum());
            int(t, c.side_revokes, side_hands.len() as i64);
            int(
                t,
                c.scoring_errors,
                errors.iter().filter(|p| **p == side).count() as i64,
            );
            t.end_row();
        }
    }
}

impl Rows {
    /// The game's rows of the analysis table (`import --analyze`): each card of each hand
    /// the solver can examine, with what it cost under perfect play.
    fn analysis(&mut self, g: &Game, key: &str, rules: Option<&RuleSet>, res: Option<&GameResult>) {
        use crate::engine::analysis::{Depth, analyse_hand};
        let (Some(rules), Some(res)) = (rules, res) else {
            return;
        };
        let Some(seats) = res.seats.as_ref() else {
            return;
        };
        let c = self.c.analysis;
        let Some(t) = self.tables.get_mut(self.at.analysis) else {
            return;
        };
        let rules = Arc::new(rules.clone());
        // a player's side is the team the Teams tag names for them, whatever the rules (the
        // last such team, as a mapping of the tag's teams reads it), else the player
        let (parsed, _) = crate::notation::parser::parse_teams(g.tag("Teams").unwrap_or(""));
        let mut teams: Vec<(&str, &[String])> = Vec::new();
        for (team, members) in &parsed {
            match teams.iter_mut().find(|(t, _)| t == team) {
                Some(entry) => entry.1 = members,
                None => teams.push((team, members)),
            }
        }
        let side_of = |p: &str| -> String {
            teams
                .iter()
                .rev()
                .find(|(_, ms)| ms.iter().any(|m| m == p))
                .map_or(p, |(team, _)| team)
                .to_string()
        };
        let name = |s: i32| -> &str {
            usize::try_from(s)
                .ok()
                .and_then(|s| seats.names.get(s))
                .map_or("?", String::as_str)
        };
        for (hi, (prep, hs)) in res.preps.iter().zip(&res.hands).enumerate() {
            if matches!(hs.status, Status::ThrownIn | Status::Misdeal) {
                continue;
            }
            let Ok(a) = analyse_hand(prep, hs, &rules, seats, Depth::Full) else {
                continue;
            };
            let hand = g.hands.get(hi).map(|h| i64::from(h.number));
            let pitcher = name(a.pitcher);
            let pitcher_side = usize::try_from(a.pitcher)
                .ok()
                .and_then(|p| seats.side_of.get(p))
                .and_then(|&s| usize::try_from(s).ok())
                .and_then(|s| seats.side_names.get(s))
                .map(String::as_str);
            let best_trump_par = a.par_by_trump.iter().map(|&(_, v)| v).max();
            for p in &a.plays {
                let player = name(p.seat);
                let better: Vec<&str> = p.best.iter().map(|&c| card(c)).collect();
                t.str(c.game_id, Some(key));
                t.int(c.hand, hand);
                t.int(c.trick, Some(i64::from(p.trick)));
                t.int(c.position, Some(i64::from(p.pos)));
                t.str(c.player, Some(player));
                t.str(c.side, Some(&side_of(player)));
                t.str(c.card, Some(card(p.card)));
                t.str(c.pitcher, Some(pitcher));
                t.str(c.pitcher_side, pitcher_side);
                t.int(c.value_before, Some(i64::from(p.before)));
                t.int(c.value_after, Some(i64::from(p.after)));
                t.int(c.cost, Some(i64::from(p.cost)));
                t.bool(c.mistake, Some(p.cost > 0));
                t.bool(c.illegal, Some(p.illegal));
                t.str(
                    c.better,
                    (!better.is_empty()).then(|| better.join(" ")).as_deref(),
                );
                t.int(c.par, Some(i64::from(a.par)));
                t.int(c.best_trump_par, best_trump_par.map(i64::from));
                t.int(c.contract, Some(i64::from(a.contract)));
                t.int(c.claim, a.claim.map(i64::from));
                t.end_row();
            }
        }
    }
}

/// What the merge of one piece stored, for the caller to report.
#[derive(Debug, Default)]
pub struct Merged {
    /// Every game read, in order: its key, whether this run stored it, its legacy key.
    pub games: Vec<(String, bool, Option<String>)>,
    /// Rows written to the findings table.
    pub findings: u64,
    pub hands: u64,
}

/// Put `piece`'s rows into `files`, its games renamed by `rename` and numbered from `offset`
/// (what a worker could not know), each game stored once: a game `keys` already holds (an
/// earlier piece's, or the dataset's) is left out. The workers encoded the tables whose rows
/// were final; the games, findings and counters (which name the game by its place) are
/// finished and encoded here, and a piece that turns out to hold a game stored meanwhile is
/// encoded again without it.
pub fn merge_piece(
    mut piece: Rows,
    rename: &dyn Fn(&str) -> String,
    offset: u32,
    keys: &GameKeys,
    files: &mut BatchFiles,
) -> std::io::Result<Merged> {
    if let Some(e) = piece.error.take() {
        return Err(std::io::Error::other(e));
    }
    let mut out = Merged::default();
    // each game stored once, in input order: what a worker stored may have been stored since
    let mut keep: Vec<bool> = Vec::with_capacity(piece.spans.len());
    for span in &piece.spans {
        let stored = span.stored && span.id.is_none_or(|k| keys.insert(k));
        keep.push(stored);
        if let Some(key) = &span.key {
            out.games.push((key.clone(), stored, span.legacy.clone()));
        }
    }
    let all_kept = keep.iter().zip(&piece.spans).all(|(k, s)| *k == s.stored);
    let (hands_at, findings_at) = (piece.at.hands, piece.at.findings);
    let mut encoded = std::mem::take(&mut piece.encoded);
    for (t, table) in piece.tables.iter_mut().enumerate() {
        let (batch, chunks) = match encoded.get_mut(t).and_then(Option::take) {
            Some(e) => (e.batch, Some(e.chunks)),
            None if table.rows() == 0 => continue,
            None => (place(table.spec, table.finish(), rename, offset), None),
        };
        let (batch, chunks) = if all_kept {
            (batch, chunks)
        } else {
            (kept_rows(&batch, &piece.spans, &keep, t)?, None)
        };
        let rows = batch.num_rows();
        if t == hands_at {
            out.hands += rows as u64;
        }
        if t == findings_at {
            out.findings += rows as u64;
        }
        match chunks {
            Some(chunks) => files.append(t, rows, chunks)?,
            None => files.write(t, &batch)?,
        }
    }
    Ok(out)
}

/// The rows of `batch` (table `t` of a piece) that belong to the spans kept.
fn kept_rows(
    batch: &arrow_array::RecordBatch,
    spans: &[Span],
    keep: &[bool],
    t: usize,
) -> std::io::Result<arrow_array::RecordBatch> {
    let parts: Vec<arrow_array::RecordBatch> = spans
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .filter_map(|(s, _)| {
            let (a, b) = (*s.start.get(t)?, *s.end.get(t)?);
            (b > a && b <= batch.num_rows()).then(|| batch.slice(a, b - a))
        })
        .collect();
    arrow_select::concat::concat_batches(&batch.schema(), &parts)
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// A placed table's batch with its games' real names and numbers.
fn place(
    spec: &TableSpec,
    batch: arrow_array::RecordBatch,
    rename: &dyn Fn(&str) -> String,
    offset: u32,
) -> arrow_array::RecordBatch {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, Int32Array, StringArray};
    let columns: Vec<ArrayRef> = spec
        .columns
        .iter()
        .zip(batch.columns())
        .map(|(c, a)| -> ArrayRef {
            match c.name.as_str() {
                "game" => {
                    let renamed = |s: &StringArray| -> StringArray {
                        s.iter().map(|v| v.map(rename)).collect()
                    };
                    match a.as_dictionary_opt::<Int32Type>() {
                        Some(d) => {
                            let values = d.values().as_string_opt::<i32>().map(renamed);
                            match values {
                                Some(v) => Arc::new(d.with_values(Arc::new(v))),
                                None => a.clone(),
                            }
                        }
                        None => match a.as_string_opt::<i32>() {
                            Some(s) => Arc::new(renamed(s)),
                            None => a.clone(),
                        },
                    }
                }
                "game_index" => match a.as_primitive_opt::<Int32Type>() {
                    Some(ix) => Arc::new(
                        ix.iter()
                            .map(|v| v.map(|v| v.saturating_add(offset as i32)))
                            .collect::<Int32Array>(),
                    ),
                    None => a.clone(),
                },
                _ => a.clone(),
            }
        })
        .collect();
    columns::batch(spec, columns)
}

/// A string as Python's `json.dumps` writes it (`ensure_ascii`: non-ASCII as `\uXXXX`).
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The tags as the JSON object Python's `json.dumps({name: value})` writes (a repeated name keeps
/// its first place and its last value).
fn tags_json(g: &Game) -> String {
    let mut names: Vec<&str> = Vec::new();
    let mut values: Vec<&str> = Vec::new();
    // a map, not a scan: a block of 100,000 tags is written in linear time
    let mut at: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for t in &g.tags {
        match at.get(t.name.as_str()) {
            Some(&i) => {
                if let Some(v) = values.get_mut(i) {
                    *v = &t.value;
                }
            }
            None => {
                at.insert(&t.name, names.len());
                names.push(&t.name);
                values.push(&t.value);
            }
        }
    }
    let mut out = String::from("{");
    for (i, (n, v)) in names.iter().zip(&values).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(&mut out, n);
        out.push_str(": ");
        json_string(&mut out, v);
    }
    out.push('}');
    out
}

/// A `Date` tag (`YYYY.MM.DD`) as days since 1970-01-01; `None` for anything else.
fn date_days(value: Option<&str>) -> Option<i64> {
    let v = value?;
    let mut parts = v.split('.');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let num = |s: &str| -> Option<i64> {
        let t = s.trim();
        (!t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let (y, m, d) = (num(y)?, num(m)?, num(d)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=9999).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || d > *days_in.get((m - 1) as usize)?
    {
        return None;
    }
    // days from civil (Howard Hinnant)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// A suggestion appended to a message (`did you mean 'x'? ` or `; did you mean 'x'?` at the end),
/// taken out: messages written before suggestions existed lacked it.
fn strip_hints(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find("did you mean '") {
        let after = rest.get(i + 14..).unwrap_or("");
        let Some(q) = after.find('\'') else { break };
        let tail = after.get(q + 1..).unwrap_or("");
        let head = rest.get(..i).unwrap_or("");
        if let Some(t) = tail.strip_prefix("? ") {
            out.push_str(head);
            rest = t;
        } else if tail == "?" && head.ends_with("; ") {
            out.push_str(head.get(..head.len() - 2).unwrap_or(""));
            rest = "";
        } else {
            out.push_str(rest.get(..i + 14 + q + 1).unwrap_or(""));
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// The key schema versions 1 and 2 gave a game with findings of reading it.
fn legacy_key(g: &Game, found: &[Finding]) -> String {
    use blake2::digest::{Update, VariableOutput};
    let mut text = String::new();
    writer::write_game(&mut text, g);
    let Ok(mut h) = blake2::Blake2bVar::new(16) else {
        return String::new();
    };
    h.update(text.as_bytes());
    for f in found {
        h.update(format!("{}|{}\n", f.code().as_str(), strip_hints(&f.message())).as_bytes());
    }
    let mut out = [0u8; 16];
    if h.finalize_variable(&mut out).is_err() {
        return String::new();
    }
    out.iter().map(|b| format!("{b:02x}")).collect()
}

fn card(c: Card) -> &'static str {
    CARD_NAMES
        .get(usize::from(c.index()))
        .copied()
        .unwrap_or("??")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_smaller_with_the_analysis_but_not_tiny() {
        let audit = crate::audit::PIECE_BYTES;
        assert_eq!(piece_bytes(false, 1 << 20, 2), audit);
        // a log of a megabyte on two threads: eight pieces
        assert_eq!(piece_bytes(true, 1 << 20, 2), 128 << 10);
        assert_eq!(piece_bytes(true, 10 << 10, 2), 64 << 10);
        assert_eq!(piece_bytes(true, 1 << 30, 2), audit);
    }

    #[test]
    fn json_as_python_writes_it() {
        let mut s = String::new();
        json_string(&mut s, "a\"b\\c\u{1}é😀");
        assert_eq!(s, "\"a\\\"b\\\\c\\u0001\\u00e9\\ud83d\\ude00\"");
    }

    #[test]
    fn dates() {
        assert_eq!(date_days(Some("1970.01.01")), Some(0));
        assert_eq!(date_days(Some("2026.12.01")), Some(20_788));
        assert_eq!(date_days(Some("2026.02.30")), None);
        assert_eq!(date_days(Some("x")), None);
    }

    #[test]
    fn hints_stripped() {
        assert_eq!(
            strip_hints("unknown player 'Evee'; did you mean 'Eve'?"),
            "unknown player 'Evee'"
        );
        assert_eq!(
            strip_hints("x (did you mean 'note'? expected y)"),
            "x (expected y)"
        );
        assert_eq!(strip_hints("plain"), "plain");
    }
}
