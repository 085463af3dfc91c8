//! A streaming parser that never gives up: feed it bytes, take completed games and findings.
//!
//! Every problem becomes an E1xx [`Finding`] with line and column, and reading resumes at
//! the next statement: a broken hand does not lose the rest of its game, a broken game does
//! not lose the rest of its file. Time is linear in the input and memory is bounded by the
//! longest line plus the game being read, whatever the bytes.

use super::lexer::{
    Few, Line, bounded_int, comment_start, find_byte, is_digits, is_name, is_space, pieces,
    quoted_len, to_u32, trim, unquote,
};
use super::{
    Bid, Bids, Cards, Columns, Deal, Exchange, ExchangeKind, Finding, Game, Hand, Holding,
    MAX_HAND, MAX_SCORE, MAX_TRICK, Meta, Name, Named, Note, Play, Plays, RevokeCall, ScoreEntry,
    ScoreKind, ScoreLine, Tag, Trick, TrumpLine, Widow,
};
use crate::cards::{Card, Suit};
use crate::findings::input::{E101, E102, E103, E104, E105, E106, E107, E108, E109};
use crate::findings::{Code, DidYouMean, Facts, Listed, Shown, Spaced, TagsPresent};

/// The fast path for the common lines (its own file: `fast.rs`).
#[path = "fast.rs"]
mod fast;

/// Checks a `Rules` tag's value: `Some((message, offset in characters))` when it is bad.
pub type RulesCheck = Box<dyn FnMut(&str) -> Option<(String, usize)> + Send + Sync>;

/// The places of a hand's statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Dealer,
    Deal,
    Widow,
    Bids,
    Trump,
    Exchanges,
    Revokes,
    Tricks,
    Score,
    Total,
    Misdeal,
}

impl Slot {
    /// The statements a hand holds, in the order the notation fixes (a misdeal stands alone).
    const ORDER: [Slot; 10] = [
        Slot::Dealer,
        Slot::Deal,
        Slot::Widow,
        Slot::Bids,
        Slot::Trump,
        Slot::Exchanges,
        Slot::Revokes,
        Slot::Tricks,
        Slot::Score,
        Slot::Total,
    ];

    /// Whether hand `h` already holds a statement of this slot.
    fn filled(self, h: &Hand) -> bool {
        match self {
            Slot::Dealer => h.dealer.is_some(),
            Slot::Deal => h.deal.is_some(),
            Slot::Widow => h.widow.is_some(),
            Slot::Bids => h.bids.is_some(),
            Slot::Trump => h.trump.is_some(),
            Slot::Exchanges => !h.exchanges.is_empty(),
            Slot::Revokes => !h.revokes.is_empty(),
            Slot::Tricks => !h.tricks.is_empty(),
            Slot::Score => h.score.is_some(),
            Slot::Total => h.total.is_some(),
            Slot::Misdeal => h.misdeal.is_some(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Slot::Dealer => "dealer",
            Slot::Deal => "deal",
            Slot::Widow => "widow",
            Slot::Bids => "bids",
            Slot::Trump => "trump",
            Slot::Exchanges => "exchanges",
            Slot::Revokes => "revokes",
            Slot::Tricks => "tricks",
            Slot::Score => "score",
            Slot::Total => "total",
            Slot::Misdeal => "misdeal",
        }
    }
}

const KEYWORDS: [&str; 14] = [
    "hand", "dealer", "deal", "widow", "bids", "trump", "discard", "draw", "revoke", "score",
    "total", "note", "misdeal", "winner",
];

/// The first bytes of a stream looked at to decide whether it is text at all.
pub const SNIFF_BYTES: usize = 8192;

/// A stream whose first block has NUL bytes, or is mostly not text, is not a log.
pub fn looks_binary(head: &[u8]) -> bool {
    if head.is_empty() {
        return false;
    }
    if memchr::memchr_iter(0, head).count() > 4 {
        return true;
    }
    let text = String::from_utf8_lossy(head);
    let mut chars = 0usize;
    let mut bad = 0usize;
    for c in text.chars() {
        chars += 1;
        if c == '\u{fffd}' || ((c as u32) < 32 && !matches!(c, '\t' | '\r' | '\n' | '\u{0c}')) {
            bad += 1;
        }
    }
    bad * 10 > chars
}

/// Which players and teams a game knows.
#[derive(Default)]
struct Known {
    /// For each of the game's names: 1 = a seat, 2 = a team (or a seat) usable as a score key.
    flags: Vec<u8>,
    players: usize,
}

const SEAT: u8 = 1;
const KEY: u8 = 2;

/// The game being read.
struct Building {
    game: Game,
    hand: Option<Hand>,
    known: Known,
    /// The tags' names, once a game has more than [`SCAN_NAMES`] tags.
    tag_names: std::collections::HashSet<String>,
    /// Name to index, once a game has more names than a scan is quick for.
    index: std::collections::HashMap<String, u32>,
    /// [`fingerprint`] of each name, for the quick scan.
    fingerprints: Vec<u64>,
    findings: Vec<Finding>,
    last_hand_number: u32,
    /// The game holds [`MAX_HAND`] hands and refused the next one: the rest of it is not read.
    full: bool,
}

/// A name's length and first seven bytes in one word: equal for equal names, and for names
/// of up to seven bytes, equal only for equal names.
#[inline]
fn fingerprint(name: &[u8]) -> u64 {
    let mut word = 0u64;
    for (i, &c) in name.iter().take(7).enumerate() {
        word |= u64::from(c) << (8 * i);
    }
    word | ((name.len().min(255) as u64) << 56)
}

/// [`fingerprint`] of `line[start..end]`, reading a short name in one load where the line
/// goes on for eight bytes past its start.
#[inline(always)]
fn fingerprint_at(line: &[u8], start: usize, end: usize) -> u64 {
    let n = end.saturating_sub(start);
    if n < 8 {
        if let Some(w) = line
            .get(start..start + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            let mask = (1u64 << (8 * n)) - 1;
            return (u64::from_le_bytes(w) & mask) | ((n as u64) << 56);
        }
    }
    fingerprint(line.get(start..end).unwrap_or(&[]))
}

/// Names scanned in place before an index is built.
const SCAN_NAMES: usize = 16;

/// The index of `name` among a game's `names`, by their fingerprints while they are few and by
/// `index` once they are many (one definition for both paths of the lexer).
#[inline]
fn find_name(
    names: &[String],
    fingerprints: &[u64],
    index: &std::collections::HashMap<String, u32>,
    name: &[u8],
) -> Option<usize> {
    find_name_at(names, fingerprints, index, name, 0, name.len())
}

/// [`find_name`] of `line[start..end]`.
#[inline(always)]
fn find_name_at(
    names: &[String],
    fingerprints: &[u64],
    index: &std::collections::HashMap<String, u32>,
    line: &[u8],
    start: usize,
    end: usize,
) -> Option<usize> {
    let name = line.get(start..end)?;
    if names.len() <= SCAN_NAMES {
        let fp = fingerprint_at(line, start, end);
        let i = fingerprints.iter().position(|&f| f == fp)?;
        // names of up to seven bytes are their fingerprint; longer ones are checked
        (name.len() < 8 || names.get(i).is_some_and(|n| n.as_bytes() == name))
            .then_some(i)
            .or_else(|| names.iter().position(|n| n.as_bytes() == name))
    } else {
        let name = std::str::from_utf8(name).ok()?;
        index.get(name).map(|&i| i as usize)
    }
}

impl Building {
    #[inline]
    fn lookup(&self, name: &str) -> Option<usize> {
        find_name(
            &self.game.names,
            &self.fingerprints,
            &self.index,
            name.as_bytes(),
        )
    }

    /// Whether the game has a tag called `name`: the few tags of a usual game scanned in place,
    /// the set of their names once they are many.
    fn has_tag(&self, name: &str) -> bool {
        if self.game.tags.len() <= SCAN_NAMES {
            self.game.tags.iter().any(|t| t.name == name)
        } else {
            self.tag_names.contains(name)
        }
    }

    fn intern(&mut self, name: &str) -> Name {
        if let Some(i) = self.lookup(name) {
            return Name(to_u32(i));
        }
        let n = to_u32(self.game.names.len());
        self.game.names.push(name.to_string());
        self.fingerprints.push(fingerprint(name.as_bytes()));
        if self.game.names.len() > SCAN_NAMES {
            if self.index.is_empty() {
                for (i, known) in self.game.names.iter().enumerate() {
                    self.index.insert(known.clone(), to_u32(i));
                }
            } else {
                self.index.insert(name.to_string(), n);
            }
        }
        Name(n)
    }
}

/// The parser: a state machine over lines.
pub struct Parser {
    source_name: String,
    ready: Vec<Finding>,
    building: Option<Building>,
    games_started: u32,
    pending_comments: Vec<String>,
    done: Vec<Game>,
    lineno: u32,
    carry: Vec<u8>,
    rules_check: Option<RulesCheck>,
    /// The last `Rules` value checked, and what the check said of it.
    rules_checked: Option<(String, Option<(String, usize)>)>,
    /// Whether the common lines take the fast path (off: every line by the general path).
    fast: bool,
    /// Lines the fast path read.
    fast_lines: u64,
    /// The buffers of games given back by [`Parser::recycle`], filled again by the next hands.
    spare: Spare,
    // scratch, reused for every line
    unreadable: Vec<Name>,
    trick_toks: Vec<(usize, usize, bool)>,
    /// The last line that held bytes that are not UTF-8 (its E109 says so). A line number, not
    /// a flag: the fast path reads lines without passing here, so a flag could outlive its line.
    not_utf8: Option<u32>,
    /// Findings not said because the line's E109 already says them (counted as said, so that a
    /// statement they spoil is still known to be spoilt).
    unsaid: usize,
}

/// How many buffers of each kind [`Spare`] keeps: a few games' worth, so memory stays bounded.
const SPARE: usize = 256;

/// Emptied buffers of records already handed over, for the next ones (as a chess move reader
/// keeps its board): a hand's tricks, a deal's holdings, a score line's entries, a game's hands.
#[derive(Default)]
struct Spare {
    tricks: Vec<Vec<Trick>>,
    holdings: Vec<Vec<Holding>>,
    entries: Vec<Vec<ScoreEntry>>,
    bids: Vec<Vec<Bid>>,
    hands: Vec<Vec<Hand>>,
}

/// Keep `v`, emptied, in `pool` (unless the pool is full or `v` holds nothing).
#[inline]
fn keep<T>(pool: &mut Vec<Vec<T>>, mut v: Vec<T>) {
    if pool.len() < SPARE && v.capacity() > 0 {
        v.clear();
        pool.push(v);
    }
}

impl Spare {
    /// An empty buffer from `pool`, or a new one with room for `n`.
    #[inline]
    fn take<T>(pool: &mut Vec<Vec<T>>, n: usize) -> Vec<T> {
        pool.pop().unwrap_or_else(|| Vec::with_capacity(n))
    }

    fn keep_game(&mut self, mut game: Game) {
        for h in game.hands.drain(..) {
            keep(&mut self.tricks, h.tricks);
            if let Some(d) = h.deal {
                keep(&mut self.holdings, d.holdings);
            }
            if let Some(b) = h.bids {
                keep(&mut self.bids, b.bids);
            }
            for line in [h.score, h.total].into_iter().flatten() {
                keep(&mut self.entries, line.entries);
            }
        }
        keep(&mut self.hands, game.hands);
    }
}

/// The name a game goes by in findings when it has no `GameId`: the file's base name and
/// its position (`club.pitch#2`), as Python's `Path(source).name` gives it.
pub fn file_label(source: &str) -> String {
    let trimmed = source.trim_end_matches('/');
    let base = trimmed.rsplit('/').next().unwrap_or("");
    if base.is_empty() || base == "." || base == ".." {
        source.to_string()
    } else {
        base.to_string()
    }
}

/// A game's name: its `GameId`, else `label#N`.
pub fn game_name(label: &str, game: &Game) -> String {
    match game.tag("GameId") {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("{label}#{}", game.index),
    }
}

/// A close match for a misspelt word among `known`: at most two edits away (one for a word of
/// three letters or fewer), and closer than any other. The distance is the optimal string
/// alignment distance (an adjacent transposition is one edit: `Dna` is one from `Dan`); between
/// words equally far, the one more alike by Jaro-Winkler (which weighs the first letters) wins
/// (`dealr`: `dealer`, not `deal`). Words alike on both counts are no suggestion: a guess
/// between them would mislead (`KX`: `KS`, `KH`, `KD` or `KC`).
pub fn did_you_mean<'a>(word: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // Words are short (keywords, names, card tokens); a long one is no typo of them.
    if word.len() > 64 {
        return None;
    }
    let limit = if word.chars().count() <= 3 { 1 } else { 2 };
    let mut best: Option<(usize, f64, &str)> = None;
    let mut tied = false;
    for k in known {
        if k.len() > 64 {
            continue;
        }
        let d = strsim::osa_distance(word, k);
        if d > limit {
            continue;
        }
        let alike = strsim::jaro_winkler(word, k);
        match best {
            Some((bd, ba, bk)) if d == bd && alike == ba => tied |= bk != k,
            Some((bd, ba, _)) if d > bd || (d == bd && alike < ba) => {}
            _ => {
                best = Some((d, alike, k));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, _, k)| k)
}

/// A finding waiting for the hand it belongs to: code, message, column, expected and recorded.
type Pending = (Facts, u32);

/// The statement keyword `word` is, if it is one.
pub fn keyword(word: &str) -> Option<&'static str> {
    KEYWORDS.iter().copied().find(|k| *k == word)
}

impl Parser {
    /// A parser for the stream called `source`, whose first line is `first_line`, after
    /// `first_game` games (a chunk of a larger file starts past its beginning).
    pub fn new(source: &str, first_line: u32, first_game: u32) -> Parser {
        Parser {
            source_name: file_label(source),
            ready: Vec::new(),
            building: None,
            games_started: first_game,
            pending_comments: Vec::new(),
            done: Vec::new(),
            lineno: first_line.saturating_sub(1),
            carry: Vec::new(),
            rules_check: None,
            rules_checked: None,
            fast: true,
            fast_lines: 0,
            spare: Spare::default(),
            unreadable: Vec::new(),
            trick_toks: Vec::new(),
            not_utf8: None,
            unsaid: 0,
        }
    }

    /// Name games without a `GameId` `label#N` (by default the source's file name).
    pub fn with_label(mut self, label: &str) -> Parser {
        self.source_name = label.to_string();
        self
    }

    /// How many lines the fast path has read.
    pub fn fast_lines(&self) -> u64 {
        self.fast_lines
    }

    /// Read every line by the general path (the fast path off): what the differential checks compare with.
    pub fn general_only(mut self) -> Parser {
        self.fast = false;
        self
    }

    /// Check each `Rules` tag with `check` (the rule keys are declared outside the notation).
    pub fn with_rules_check(mut self, check: RulesCheck) -> Parser {
        self.rules_check = Some(check);
        self
    }

    /// Feed a chunk of bytes; complete lines are read at once, a partial one waits.
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                None => {
                    self.carry.extend_from_slice(chunk);
                    return;
                }
                Some(nl) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(chunk.get(..nl).unwrap_or(&[]));
                    self.feed_line(&line);
                    line.clear();
                    self.carry = line;
                    chunk = chunk.get(nl + 1..).unwrap_or(&[]);
                }
            }
        }
        let mut start = 0;
        if let Some(last) = memchr::memrchr(b'\n', chunk) {
            let whole = chunk.get(..=last).unwrap_or(&[]);
            // The usual chunk is valid UTF-8 without NUL bytes: checked once for all its
            // lines, each line is then read straight from the validated text.
            if memchr::memchr(0, whole).is_none() {
                if let Ok(text) = std::str::from_utf8(whole) {
                    let printable = whole.chunks(64).all(|c| {
                        c.iter().fold(true, |ok, &b| {
                            ok & ((0x20..0x7f).contains(&b) | (b == b'\n'))
                        })
                    });
                    for nl in memchr::memchr_iter(b'\n', whole) {
                        let line = text.get(start..nl).unwrap_or("");
                        self.lineno = self.lineno.saturating_add(1);
                        if printable {
                            if self.fast_line(line) {
                                self.fast_lines += 1;
                            } else {
                                self.statement_line(&Line::printable(line));
                            }
                        } else {
                            let line = line.strip_suffix('\r').unwrap_or(line);
                            let line = if self.lineno == 1 {
                                line.strip_prefix('\u{feff}').unwrap_or(line)
                            } else {
                                line
                            };
                            self.statement_line(&Line::new(line));
                        }
                        start = nl + 1;
                    }
                }
            }
        }
        let base = start;
        for nl in memchr::memchr_iter(b'\n', chunk.get(base..).unwrap_or(&[])) {
            let nl = base + nl;
            self.feed_line(chunk.get(start..nl).unwrap_or(&[]));
            start = nl + 1;
        }
        self.carry
            .extend_from_slice(chunk.get(start..).unwrap_or(&[]));
    }

    /// The end of the input: read a last line without its line end, finish the last game.
    pub fn finish(&mut self) {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.feed_line(&line);
        }
        if self.building.is_some() {
            self.finish_game(false);
        } else {
            self.pending_comments.clear();
        }
    }

    /// Give back a game taken with [`Parser::take_games`] once it is no longer needed: its
    /// buffers hold the records of the hands read next, so that reading a long log allocates
    /// little more than its first games did.
    pub fn recycle(&mut self, game: Game) {
        self.spare.keep_game(game);
    }

    /// Games completed so far (a game is complete once the next one starts).
    pub fn take_games(&mut self) -> Vec<Game> {
        std::mem::take(&mut self.done)
    }

    /// Findings whose game is complete, or that belong to no game.
    pub fn take_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.ready)
    }

    fn feed_line(&mut self, raw: &[u8]) {
        self.lineno = self.lineno.saturating_add(1);
        let mut raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let cleaned;
        if let Some(nul) = memchr::memchr(0, raw) {
            let before = String::from_utf8_lossy(raw.get(..nul).unwrap_or(&[]))
                .chars()
                .count();
            self.problem(E109::NulByte {}, to_u32(before) + 1);
            cleaned = raw.iter().copied().filter(|&b| b != 0).collect::<Vec<u8>>();
            raw = &cleaned;
        }
        let lossy;
        let text = match std::str::from_utf8(raw) {
            Ok(s) => s,
            Err(e) => {
                let valid = raw.get(..e.valid_up_to()).unwrap_or(&[]);
                let col = to_u32(String::from_utf8_lossy(valid).chars().count()) + 1;
                self.problem(E109::NotUtf8 { column: col }, col);
                self.not_utf8 = Some(self.lineno);
                lossy = String::from_utf8_lossy(raw).into_owned();
                lossy.as_str()
            }
        };
        let body = if self.lineno == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        self.statement_line(&Line::new(body));
    }

    fn statement_line(&mut self, line: &Line) {
        let text = line.text;
        let (stmt_end, remark) = match comment_start(text) {
            Some(p) => (
                p,
                text.get(p + 1..)
                    .map(|c| c.trim_end_matches(is_space).to_string()),
            ),
            None => (text.len(), None),
        };
        let (b0, b1) = trim(text, 0, stmt_end);
        if b0 >= b1 {
            if let Some(c) = remark {
                self.pending_comments.push(c);
            }
            return;
        }
        let body = text.get(b0..b1).unwrap_or("");
        if body.starts_with('[') {
            self.tag(line, b0, b1, remark);
            return;
        }
        if self.building.as_ref().is_some_and(|b| b.full) {
            return; // the rest of a game past its last possible hand (already one E101)
        }
        let (_, word) = line.tokens(b0, b1).next().unwrap_or((b0, ""));
        if word.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            self.tricks(line, b0, b1, remark);
            return;
        }
        let col = line.col(b0);
        let lowered;
        let kw = if word.is_ascii() {
            word.trim_end_matches(':')
        } else {
            lowered = word.to_lowercase();
            lowered.trim_end_matches(':')
        };
        let found = KEYWORDS
            .iter()
            .position(|k| *k == kw)
            .or_else(|| KEYWORDS.iter().position(|k| k.eq_ignore_ascii_case(kw)));
        let Some((index, kw)) = found.and_then(|i| Some((i, *KEYWORDS.get(i)?))) else {
            let guess = did_you_mean(&kw.to_lowercase(), KEYWORDS.iter().copied());
            // the statement the line was probably meant to be: its absence is this same mistake
            if let (Some(k), Some(h)) = (guess, self.hand_mut()) {
                h.misread.push(k);
            }
            self.problem(
                E102::UnknownStatement {
                    word: Shown(word.into()),
                    suggestion: DidYouMean(guess.map(str::to_string)),
                    keywords: Listed(KEYWORDS.to_vec()),
                },
                col,
            );
            return;
        };
        if word.trim_end_matches(':') != kw {
            self.problem(
                E102::UpperCase {
                    keyword: kw,
                    word: Shown(word.into()),
                },
                col,
            );
        }
        let Some(b) = self.building.as_mut() else {
            self.problem(E108::BeforeTags { statement: kw }, col);
            return;
        };
        b.game.end_line = self.lineno;
        let rest = b0 + word.len();
        let at = Span {
            line,
            start: rest,
            end: b1,
            col,
        };
        match index {
            0 => self.hand(at, remark),
            1 => self.dealer(at, remark),
            2 => self.deal(at, remark),
            3 => self.widow(at, remark),
            4 => self.bids(at, remark),
            5 => self.trump(at, remark),
            6 => self.exchange(ExchangeKind::Discard, at, remark),
            7 => self.exchange(ExchangeKind::Draw, at, remark),
            8 => self.revoke(at, remark),
            9 => self.score(ScoreKind::Score, at, remark),
            10 => self.score(ScoreKind::Total, at, remark),
            11 => self.note(at, remark),
            12 => self.misdeal(at, remark),
            _ => self.winner(at, remark),
        }
    }

    // ------------------------------------------------------------------ helpers

    fn problem(&mut self, facts: impl Into<Facts>, column: u32) {
        self.problem_at(facts.into(), column, self.lineno);
    }

    fn problem_at(&mut self, facts: Facts, column: u32, line: u32) {
        // a name, card or word spoilt by bytes that are not UTF-8 (read as U+FFFD) is the
        // line's E109: one mistake, one finding
        if self.not_utf8 == Some(line)
            && facts.code() != Code::E109
            && facts.message().contains('\u{FFFD}')
        {
            self.unsaid = self.unsaid.saturating_add(1);
            return;
        }
        let finding = |hand| {
            let mut f = Finding::new(facts, line, column);
            f.hand = hand;
            f
        };
        match self.building.as_mut() {
            Some(b) => {
                let hand = b.hand.as_ref().map(|h| h.number);
                crate::findings::push_folded(&mut b.findings, finding(hand));
            }
            None => crate::findings::push_folded(&mut self.ready, finding(None)),
        }
    }

    fn finding_count(&self) -> usize {
        self.building
            .as_ref()
            .map_or(0, |b| b.findings.len())
            .saturating_add(self.unsaid)
    }

    fn meta(&mut self, remark: Option<String>) -> Meta {
        Meta {
            line: self.lineno,
            comments: std::mem::take(&mut self.pending_comments),
            remark,
        }
    }

    fn new_game(&mut self) {
        if self.building.is_some() {
            self.finish_game(true);
        }
        self.games_started = self.games_started.saturating_add(1);
        self.building = Some(Building {
            game: Game {
                hands: Spare::take(&mut self.spare.hands, 0),
                index: self.games_started,
                line: self.lineno,
                end_line: self.lineno,
                ..Game::default()
            },
            hand: None,
            known: Known::default(),
            tag_names: std::collections::HashSet::new(),
            index: std::collections::HashMap::new(),
            fingerprints: Vec::new(),
            findings: Vec::new(),
            last_hand_number: 0,
            full: false,
        });
    }

    fn close_hand(&mut self) {
        if let Some(b) = self.building.as_mut() {
            if let Some(h) = b.hand.take() {
                b.game.hands.push(h);
            }
        }
    }

    fn finish_game(&mut self, keep_comments: bool) {
        if !keep_comments {
            // comments just before a tag block belong to the next game
            let c = std::mem::take(&mut self.pending_comments);
            if let Some(b) = self.building.as_mut() {
                b.game.trailing_comments.extend(c);
            }
        }
        self.close_hand();
        self.check_game_tags();
        let Some(b) = self.building.take() else {
            return;
        };
        let name = game_name(&self.source_name, &b.game);
        for mut f in b.findings {
            f.game.clone_from(&name);
            self.ready.push(f);
        }
        self.done.push(b.game);
    }

    fn check_game_tags(&mut self) {
        let Some(b) = self.building.as_ref() else {
            return;
        };
        let has = |name: &str| b.game.tags.iter().any(|t| t.name == name);
        let (has_rules, has_players) = (has("Rules"), has("Players"));
        if has_rules && has_players {
            return;
        }
        let present = TagsPresent(b.game.tags.iter().map(|t| t.name.clone()).collect());
        let line = b.game.line;
        if !has_rules {
            let tags = present.clone();
            self.problem_at(E107::NoRulesTag { tags }.into(), 1, line);
        }
        if !has_players {
            self.problem_at(E107::NoPlayersTag { tags: present }.into(), 1, line);
        }
    }

    /// The name of a player (or, with `keys`, of a player or team) if the game knows it;
    /// otherwise one finding, and `None`.
    #[inline]
    fn name_ok(&mut self, name: &str, column: u32, what: &'static str, keys: bool) -> Option<Name> {
        let b = self.building.as_ref()?;
        let want = if keys { KEY } else { SEAT };
        if let Some(i) = b.lookup(name) {
            if b.known.flags.get(i).is_some_and(|f| f & want != 0) || b.known.players == 0 {
                return Some(Name(to_u32(i)));
            }
        }
        self.name_not_known(name, column, what, want)
    }

    /// A name not (yet) known to the game: interned when the game has no seats, else a finding.
    #[cold]
    fn name_not_known(
        &mut self,
        name: &str,
        column: u32,
        what: &'static str,
        want: u8,
    ) -> Option<Name> {
        let b = self.building.as_mut()?;
        if !is_name(name) {
            self.problem(
                E101::BadName {
                    name: Shown(name.into()),
                    what,
                },
                column,
            );
            return None;
        }
        if b.known.players > 0 {
            let mut known: Vec<&str> = b
                .game
                .names
                .iter()
                .zip(&b.known.flags)
                .filter(|(_, f)| **f & want != 0)
                .map(|(n, _)| n.as_str())
                .collect();
            known.sort_unstable();
            let hint = did_you_mean(name, known.iter().copied()).map(str::to_string);
            let facts = E104::UnknownName {
                what,
                name: Shown(name.into()),
                known: Spaced(known.iter().map(|k| k.to_string()).collect()),
                suggestion: DidYouMean(hint),
            };
            self.problem(facts, column);
            return None;
        }
        Some(b.intern(name))
    }

    fn cards(&mut self, line: &Line, start: usize, end: usize) -> (Cards, Columns, bool) {
        let mut cards = Cards::new();
        let mut cols = Columns::new();
        let mut bad = false;
        for (at, tok) in line.tokens(start, end) {
            let col = line.col(at);
            match Card::parse(tok) {
                Some(c) => {
                    cards.push(c);
                    cols.push(col);
                }
                None => {
                    bad = true;
                    self.problem(bad_card(tok), col);
                }
            }
        }
        (cards, cols, bad)
    }

    /// The hand a statement belongs to, or one E108 when none is open.
    fn in_hand(&mut self, kw: &'static str, col: u32) -> bool {
        if self.building.as_ref().is_some_and(|b| b.hand.is_some()) {
            return true;
        }
        self.problem(E108::OutsideHand { statement: kw }, col);
        false
    }

    /// Put a statement in the open hand, with its line, the comment lines before it and its remark.
    fn store(&mut self, remark: Option<String>, put: impl FnOnce(&mut Hand, Meta)) {
        let meta = self.meta(remark);
        if let Some(h) = self.hand_mut() {
            put(h, meta);
        }
    }

    fn hand_mut(&mut self) -> Option<&mut Hand> {
        self.building.as_mut().and_then(|b| b.hand.as_mut())
    }

    /// Whether a statement may stand here: inside a hand, and not a repeat (each finding made).
    fn may_stand(&mut self, slot: Slot, kw: &'static str, col: u32) -> bool {
        self.in_hand(kw, col) && self.order(slot, kw, col)
    }

    /// Whether a statement may go in `slot`; reports repeats and out-of-order ones.
    fn order(&mut self, slot: Slot, kw: &'static str, col: u32) -> bool {
        let Some(h) = self.building.as_ref().and_then(|b| b.hand.as_ref()) else {
            return false;
        };
        let filled = |s: Slot| s.filled(h);
        let single = !matches!(slot, Slot::Exchanges | Slot::Revokes | Slot::Tricks);
        if single && filled(slot) {
            let facts = E108::Repeated {
                statement: kw,
                hand: h.number,
            };
            self.problem(facts, col);
            return false;
        }
        // a revoke is often called after the trick: it may stand anywhere; a misdeal has no place
        if slot == Slot::Revokes || slot == Slot::Misdeal {
            return true;
        }
        let later = Slot::ORDER
            .iter()
            .skip_while(|s| **s != slot)
            .skip(1)
            .find(|s| **s != Slot::Revokes && filled(**s));
        if let Some(later) = later {
            let names: Vec<&'static str> = Slot::ORDER.iter().map(|s| s.name()).collect();
            let facts = E108::OutOfOrder {
                statement: kw,
                after: later.name(),
                order: Listed(names),
            };
            self.problem(facts, col);
        }
        true
    }

    // ------------------------------------------------------------------ statements

    fn tag(&mut self, line: &Line, b0: usize, b1: usize, remark: Option<String>) {
        let col = line.col(b0);
        let Some(parsed) = parse_tag(line.text, b0, b1) else {
            self.problem(E101::TagShape {}, col);
            return;
        };
        let (name, value_start, value_end) = parsed;
        let reopen = match self.building.as_ref() {
            None => true,
            Some(b) => {
                !b.game.hands.is_empty()
                    || b.hand.is_some()
                    || b.game.winner.is_some()
                    || b.has_tag(name)
            }
        };
        if reopen {
            // a repeated tag opens the next game
            self.new_game();
        }
        let value = unquote(line.text.get(value_start..value_end).unwrap_or(""));
        let value_col = line.col(value_start);
        let lineno = self.lineno;
        if let Some(b) = self.building.as_mut() {
            b.game.end_line = lineno;
        }
        match name {
            "Players" => self.players_tag(&value, value_col),
            "Teams" => self.teams_tag(&value, value_col),
            "Rules" => {
                if let Some(check) = self.rules_check.as_mut() {
                    // a log's games mostly repeat one Rules tag: it is checked once
                    let verdict = match &self.rules_checked {
                        Some((seen, verdict)) if *seen == value => verdict.clone(),
                        _ => {
                            let verdict = check(&value);
                            self.rules_checked = Some((value.clone(), verdict.clone()));
                            verdict
                        }
                    };
                    if let Some((message, offset)) = verdict {
                        let c = value_col.saturating_add(to_u32(offset));
                        self.problem(E105::BadRules { problem: message }, c);
                    }
                }
            }
            "Date" if !value.is_empty() && !is_date(&value) => {
                self.problem(
                    E101::BadDate {
                        value: Shown(value.clone()),
                    },
                    value_col,
                );
            }
            _ => {}
        }
        let meta = self.meta(remark);
        if let Some(b) = self.building.as_mut() {
            b.game.tags.push(Tag {
                name: name.to_string(),
                value,
                meta,
            });
            if b.game.tags.len() > SCAN_NAMES {
                if b.tag_names.is_empty() {
                    b.tag_names = b.game.tags.iter().map(|t| t.name.clone()).collect();
                } else {
                    b.tag_names.insert(name.to_string());
                }
            }
        }
    }

    fn players_tag(&mut self, value: &str, value_col: u32) {
        let seats: Vec<&str> = value.split(is_space).filter(|s| !s.is_empty()).collect();
        let bad: Vec<&str> = seats.iter().copied().filter(|s| !is_name(s)).collect();
        let mut unique = seats.clone();
        unique.sort_unstable();
        unique.dedup();
        if seats.is_empty() || !bad.is_empty() {
            let shown = if bad.is_empty() {
                value.to_string()
            } else {
                bad.join(" ")
            };
            self.problem(E107::BadPlayers { bad: Shown(shown) }, value_col);
        } else if unique.len() != seats.len() {
            self.problem(E107::SeatedTwice {}, value_col);
        }
        let Some(b) = self.building.as_mut() else {
            return;
        };
        for s in unique {
            let n = b.intern(s);
            set_flag(&mut b.known.flags, n, SEAT | KEY);
            b.known.players += 1;
        }
    }

    fn teams_tag(&mut self, value: &str, value_col: u32) {
        let (teams, err) = parse_teams(value);
        if let Some(err) = err {
            self.problem(E107::BadTeams { problem: err }, value_col);
        }
        let Some(b) = self.building.as_mut() else {
            return;
        };
        for (team, _) in teams {
            let n = b.intern(&team);
            set_flag(&mut b.known.flags, n, KEY);
        }
    }

    fn hand(&mut self, at: Span, remark: Option<String>) {
        let toks = Few::of(at.tokens());
        let Some(b) = self.building.as_ref() else {
            return;
        };
        let held = b.game.hands.len() + usize::from(b.hand.is_some());
        if held >= MAX_HAND as usize {
            // a game's hands are numbered 1 to MAX_HAND: one finding for the rest, and memory stays bounded
            self.close_hand();
            self.problem(E101::TooManyHands { max: MAX_HAND }, at.col);
            if let Some(b) = self.building.as_mut() {
                b.full = true;
            }
            return;
        }
        let last = b.last_hand_number;
        let first = b.hand.is_none() && b.game.hands.is_empty();
        // the finding about the number belongs to the hand it opens, so it waits for it
        let mut wrong: Option<Pending> = None;
        let number = match toks.slice() {
            [(tat, tok)] if is_digits(tok) => match bounded_int(tok, 0, MAX_HAND) {
                Ok(n) => {
                    let n = u32::try_from(n).unwrap_or(0);
                    if n != last + 1 {
                        let facts: Facts = if first {
                            E106::FirstHand { number: n }.into()
                        } else {
                            E106::HandGap {
                                number: n,
                                previous: last,
                                expected: last + 1,
                            }
                            .into()
                        };
                        wrong = Some((facts, at.line.col(*tat)));
                    }
                    n
                }
                Err(_) => {
                    let facts = E101::HandNumberRange {
                        token: Shown(tok.to_string()),
                        max: MAX_HAND,
                        read_as: last + 1,
                    };
                    wrong = Some((facts.into(), at.line.col(*tat)));
                    last + 1
                }
            },
            shape => {
                // point at the word that is not a number, when there is one
                let c = match shape {
                    [(tat, _)] => at.line.col(*tat),
                    _ => at.col,
                };
                wrong = Some((E101::HandShape { read_as: last + 1 }.into(), c));
                last + 1
            }
        };
        let after_winner = self
            .building
            .as_ref()
            .is_some_and(|b| b.game.winner.is_some());
        self.close_hand();
        let meta = self.meta(remark);
        if let Some(b) = self.building.as_mut() {
            b.last_hand_number = number;
            b.hand = Some(Hand {
                number,
                meta,
                tricks: Spare::take(&mut self.spare.tricks, 8),
                ..Hand::default()
            });
        }
        if after_winner {
            self.problem(E108::HandAfterWinner {}, at.col);
        }
        if let Some((facts, col)) = wrong {
            self.problem_at(facts, col, self.lineno);
        }
    }

    fn dealer(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Dealer, "dealer", at.col) {
            return;
        }
        let toks = Few::of(at.tokens());
        let [(tat, name)] = toks.slice() else {
            self.problem(E101::DealerShape {}, at.col);
            return;
        };
        let column = at.line.col(*tat);
        let known = self.name_ok(name, column, "player", false);
        // a dealer not seated (already an E104) is kept as written: the engine then goes by the
        // bidding order, and does not also report a missing dealer line
        let name = match known {
            Some(n) => Some(n),
            None if is_name(name) => self.building.as_mut().map(|b| b.game.intern(name)),
            None => None,
        };
        if let Some(name) = name {
            self.store(remark, |h, meta| {
                h.dealer = Some(Named { name, column, meta });
            });
        }
    }

    /// `NAME: CARDS; NAME: CARDS ...`; `dropped` is set when a holding could not be kept.
    fn holdings(&mut self, at: &Span, kw: &'static str, dropped: &mut bool) -> Vec<Holding> {
        let mut out = Vec::with_capacity(4);
        let text = at.line.text;
        for (ps, pe) in pieces(text, at.start, at.end, b';') {
            let part = text.get(ps..pe).unwrap_or("");
            if part.trim_matches(is_space).is_empty() {
                continue;
            }
            let Some(colon) = find_byte(b':', part.as_bytes()) else {
                let lead = part.len() - part.trim_start_matches(is_space).len();
                self.problem(
                    E101::HoldingsShape { statement: kw },
                    at.line.col(ps + lead),
                );
                *dropped = true;
                continue;
            };
            let ntoks = Few::of(at.line.tokens(ps, ps + colon));
            let [(nat, name)] = ntoks.slice() else {
                self.problem(E101::HoldingName { statement: kw }, at.line.col(ps));
                *dropped = true;
                continue;
            };
            let ncol = at.line.col(*nat);
            let Some(player) = self.name_ok(name, ncol, "player", false) else {
                *dropped = true;
                continue;
            };
            let (cards, columns, bad) = self.cards(at.line, ps + colon + 1, pe);
            out.push(Holding {
                player,
                cards,
                columns,
                column: ncol,
            });
            if bad {
                self.unreadable.push(player);
            }
        }
        out
    }

    fn deal(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Deal, "deal", at.col) {
            return;
        }
        self.unreadable.clear();
        let mut dropped = false;
        let holdings = self.holdings(&at, "deal", &mut dropped);
        let mut unreadable = std::mem::take(&mut self.unreadable);
        unreadable.sort_by_key(|n| n.0);
        unreadable.dedup();
        self.store(remark, |h, meta| {
            h.deal = Some(Deal {
                holdings,
                meta,
                unreadable,
                incomplete: dropped,
            });
        });
    }

    fn widow(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Widow, "widow", at.col) {
            return;
        }
        let (s, _) = trim(at.line.text, at.start, at.end);
        let start = if at.line.text.get(s..).is_some_and(|t| t.starts_with(':')) {
            s + 1
        } else {
            at.start
        };
        let (cards, columns, _) = self.cards(at.line, start, at.end);
        self.store(remark, |h, meta| {
            h.widow = Some(Widow {
                cards,
                columns,
                meta,
            });
        });
    }

    fn bids(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Bids, "bids", at.col) {
            return;
        }
        let text = at.line.text;
        let before = self.finding_count();
        let mut bids = Vec::new();
        let segment = text.get(at.start..at.end).unwrap_or("");
        let rest_blank = segment.trim_matches(is_space).is_empty();
        for (ps, pe) in pieces(text, at.start, at.end, b',') {
            let toks = Few::of(at.line.tokens(ps, pe));
            let Some(&(nat, name)) = toks.first() else {
                if ps != at.start || !rest_blank {
                    self.problem(E101::EmptyBid {}, at.line.col(ps));
                }
                continue;
            };
            let ncol = at.line.col(nat);
            let word = match toks.slice() {
                [_, (_, p), (sat, s)] if p.eq_ignore_ascii_case("pitch") => {
                    match Suit::parse_word(s) {
                        // pitching: the suit pitched may follow the word (`Cal pitch H`)
                        Some(suit) => std::borrow::Cow::Owned(format!("pitch {}", suit.letter())),
                        None => {
                            self.problem(
                                E101::PitchSuit {
                                    token: Shown(s.to_string()),
                                },
                                at.line.col(*sat),
                            );
                            continue;
                        }
                    }
                }
                [_, (wat, w)] => {
                    if w.is_empty() || !w.bytes().all(|c| c.is_ascii_alphanumeric()) {
                        self.problem(
                            E101::BidWord {
                                token: Shown(w.to_string()),
                            },
                            at.line.col(*wat),
                        );
                        continue;
                    }
                    if w.bytes().any(|c| c.is_ascii_uppercase()) {
                        std::borrow::Cow::Owned(w.to_ascii_lowercase())
                    } else {
                        std::borrow::Cow::Borrowed(*w)
                    }
                }
                _ => {
                    self.problem(E101::BidShape {}, ncol);
                    continue;
                }
            };
            if let Some(player) = self.name_ok(name, ncol, "player", false) {
                if let Some(b) = self.building.as_mut() {
                    let word = b.game.intern_word(&word);
                    bids.push(Bid {
                        player,
                        word,
                        column: ncol,
                    });
                }
            }
        }
        let unreadable = self.finding_count() > before;
        self.store(remark, |h, meta| {
            h.bids = Some(Bids {
                bids,
                meta,
                unreadable,
            });
        });
    }

    fn trump(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Trump, "trump", at.col) {
            return;
        }
        let toks = Few::of(at.tokens());
        let suit = match toks.slice() {
            [(_, t)] => Suit::parse_word(t),
            _ => None,
        };
        let Some(suit) = suit else {
            let c = toks.first().map_or(at.col, |(p, _)| at.line.col(*p));
            self.problem(E101::TrumpShape {}, c);
            return;
        };
        let column = toks.first().map_or(at.col, |(p, _)| at.line.col(*p));
        self.store(remark, |h, meta| {
            h.trump = Some(TrumpLine { suit, column, meta });
        });
    }

    fn exchange(&mut self, kind: ExchangeKind, at: Span, remark: Option<String>) {
        let kw = kind.word();
        if !self.may_stand(Slot::Exchanges, kw, at.col) {
            return;
        }
        self.unreadable.clear();
        let mut dropped = false;
        let mut hs = self.holdings(&at, kw, &mut dropped);
        if hs.len() != 1 {
            if !hs.is_empty() {
                self.problem(E101::OnePlayerPerLine { statement: kw }, at.col);
            }
            return;
        }
        if let Some(holding) = hs.pop() {
            self.store(remark, |h, meta| {
                h.exchanges.push(Exchange {
                    kind,
                    holding,
                    meta,
                });
            });
        }
    }

    fn revoke(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Revokes, "revoke", at.col) {
            return;
        }
        let toks = Few::of(at.tokens());
        let (nat, name, trick) = match toks.slice() {
            [(nat, name), (_, "trick"), (tat, n)] if is_digits(n) => {
                match bounded_int(n, 1, MAX_TRICK) {
                    Ok(t) => (*nat, *name, u32::try_from(t).ok()),
                    Err(_) => {
                        let facts = E101::RevokeTrickRange {
                            token: Shown(n.to_string()),
                            max: MAX_TRICK,
                        };
                        self.problem(facts, at.line.col(*tat));
                        return;
                    }
                }
            }
            [(nat, name)] => (*nat, *name, None),
            _ => {
                self.problem(E101::RevokeShape {}, at.col);
                return;
            }
        };
        let column = at.line.col(nat);
        if let Some(player) = self.name_ok(name, column, "player", false) {
            self.store(remark, |h, meta| {
                h.revokes.push(RevokeCall {
                    player,
                    trick,
                    column,
                    meta,
                });
            });
        }
    }

    fn tricks(&mut self, line: &Line, b0: usize, b1: usize, remark: Option<String>) {
        let col = line.col(b0);
        let lineno = self.lineno;
        let Some(b) = self.building.as_mut() else {
            self.problem(E108::TrickBeforeTags {}, col);
            return;
        };
        b.game.end_line = lineno;
        if !self.in_hand("trick", col) {
            return;
        }
        let text = line.text;
        let mut toks = line.tokens(b0, b1);
        // `1 Ann:AS ...`: a trick number without its dot is still the trick's number (one finding)
        let mut undotted: Option<usize> = None;
        match toks.next() {
            Some((_, tok)) if trick_number(tok).is_some() => {}
            Some((at, tok))
                if is_digits(tok)
                    && tok.len() <= 2
                    && toks.next().is_some_and(|(_, t)| t.contains(':')) =>
            {
                let facts = E101::TrickDot {
                    token: tok.to_string(),
                };
                self.problem(facts, line.col(at));
                undotted = Some(at);
            }
            first => {
                let at = first.map_or(b0, |(p, _)| p);
                self.problem(E101::TrickShape {}, line.col(at));
                return;
            }
        }
        self.order(Slot::Tricks, "trick", col);
        let mut comments = Some(std::mem::take(&mut self.pending_comments));
        let mut scratch = std::mem::take(&mut self.trick_toks);
        scratch.clear();
        let mut current: Option<(Option<u32>, u32)> = None;
        let mut pushed = 0usize;
        for (tat, tok) in line.tokens(b0, b1) {
            if let Some(digits) = trick_number(tok).or((undotted == Some(tat)).then_some(tok)) {
                if let Some(cur) = current.take() {
                    pushed += usize::from(self.trick(line, cur, &scratch, &mut comments));
                }
                scratch.clear();
                let tcol = line.col(tat);
                let number = match bounded_int(digits, 0, MAX_TRICK) {
                    Ok(n) => u32::try_from(n).ok(),
                    Err(_) => {
                        let facts = E101::TrickNumberRange {
                            token: Shown(digits.to_string()),
                            max: MAX_TRICK,
                        };
                        self.problem(facts, tcol);
                        None
                    }
                };
                current = Some((number, tcol));
                continue;
            }
            // `Ben: QH` is one play written with a space after the colon: join the two tokens
            // (and say so once) rather than read a bare card and an empty one
            if let Some(last) = scratch.last_mut() {
                let prev = text.get(last.0..last.1).unwrap_or("");
                if !last.2
                    && prev.len() > 1
                    && prev.ends_with(':')
                    && prev.matches(':').count() == 1
                    && !tok.contains(':')
                {
                    *last = (last.0, tat + tok.len(), true);
                    continue;
                }
            }
            scratch.push((tat, tat + tok.len(), false));
        }
        if let Some(cur) = current.take() {
            pushed += usize::from(self.trick(line, cur, &scratch, &mut comments));
        }
        self.trick_toks = scratch;
        if let Some(c) = comments.take().filter(|c| !c.is_empty()) {
            // no trick of the line was kept: its comment lines go with the next statement
            self.pending_comments = c;
        }
        if pushed > 0 {
            if let Some(t) = self.hand_mut().and_then(|h| h.tricks.last_mut()) {
                t.meta.remark = remark;
            }
        }
    }

    /// One trick of a trick line: its number, and its tokens as byte ranges (joined: `NAME: CARD`).
    /// Whether a trick was kept.
    fn trick(
        &mut self,
        line: &Line,
        (number, ncol): (Option<u32>, u32),
        toks: &[(usize, usize, bool)],
        comments: &mut Option<Vec<String>>,
    ) -> bool {
        let Some(number) = number else { return false };
        let text = line.text;
        let long = toks
            .iter()
            .filter(|(s, e, _)| text.get(*s..*e).is_some_and(|t| t.contains(':')))
            .count();
        let short = long == 0;
        if long > 0 && long != toks.len() {
            self.problem(E101::MixedForms { trick: number }, ncol);
        }
        let mut plays = Plays::with_capacity(toks.len());
        for &(tat, tend, split) in toks {
            let tok = text.get(tat..tend).unwrap_or("");
            let tcol = line.col(tat);
            let colon = find_byte(b':', tok.as_bytes());
            let (player, ctok, ccol) =
                match colon.and_then(|c| Some((tok.get(..c)?, tok.get(c + 1..)?))) {
                    Some((name, ctok)) => {
                        let Some(p) = self.name_ok(name, tcol, "player", false) else {
                            continue;
                        };
                        let ctok = if split {
                            ctok.trim_start_matches(is_space)
                        } else {
                            ctok
                        };
                        let ccol = line.col(tend - ctok.len());
                        (Some(p), ctok, ccol)
                    }
                    None => (None, tok, tcol),
                };
            let Some(card) = Card::parse(ctok) else {
                self.problem(bad_card(ctok), ccol);
                continue;
            };
            if split {
                let joined: String = tok.chars().filter(|c| !is_space(*c)).collect();
                self.problem(
                    E101::SpaceAfterColon {
                        play: Shown(joined),
                    },
                    ccol,
                );
            }
            plays.push(Play {
                player,
                card,
                column: tcol,
            });
        }
        if toks.is_empty() {
            self.problem(E101::EmptyTrick { trick: number }, ncol);
        }
        let unreadable = plays.len() != toks.len();
        let meta = Meta {
            line: self.lineno,
            comments: comments.take().unwrap_or_default(),
            remark: None,
        };
        match self.hand_mut() {
            Some(h) => {
                h.tricks.push(Trick {
                    number,
                    plays,
                    short,
                    column: ncol,
                    meta,
                    unreadable,
                });
                true
            }
            None => false,
        }
    }

    fn score(&mut self, kind: ScoreKind, at: Span, remark: Option<String>) {
        let kw = kind.word();
        let slot = match kind {
            ScoreKind::Score => Slot::Score,
            ScoreKind::Total => Slot::Total,
        };
        if !self.may_stand(slot, kw, at.col) {
            return;
        }
        let text = at.line.text;
        let before = self.finding_count();
        let mut entries = Vec::new();
        for (ps, pe) in pieces(text, at.start, at.end, b',') {
            let toks = Few::of(at.line.tokens(ps, pe));
            let shape = || E101::ScoreEntryShape { statement: kw };
            let [(kat, key), (vat, num)] = toks.slice() else {
                let c = toks
                    .first()
                    .map_or(at.line.col(ps), |(p, _)| at.line.col(*p));
                self.problem(shape(), c);
                continue;
            };
            let value = match bounded_int(num, -MAX_SCORE, MAX_SCORE) {
                Ok(v) => i32::try_from(v).unwrap_or(0),
                Err(false) => {
                    self.problem(shape(), at.line.col(*kat));
                    continue;
                }
                Err(true) => {
                    let facts = E101::ScoreRange {
                        token: Shown(num.to_string()),
                        statement: kw,
                        max: MAX_SCORE,
                    };
                    self.problem(facts, at.line.col(*vat));
                    continue;
                }
            };
            let kcol = at.line.col(*kat);
            if let Some(key) = self.name_ok(key, kcol, "player or team", true) {
                entries.push(ScoreEntry {
                    key,
                    value,
                    column: kcol,
                    value_column: at.line.col(*vat),
                    value_len: to_u32(num.chars().count()),
                });
            }
        }
        let unreadable = self.finding_count() > before;
        let end_column = at.line.col(at.end);
        self.store(remark, |h, meta| {
            let line = Some(ScoreLine {
                kind,
                entries,
                meta,
                unreadable,
                end_column,
            });
            match kind {
                ScoreKind::Score => h.score = line,
                ScoreKind::Total => h.total = line,
            }
        });
    }

    fn note(&mut self, at: Span, remark: Option<String>) {
        if !self.in_hand("note", at.col) {
            return;
        }
        let text = at.line.text;
        let (s, e) = trim(text, at.start, at.end);
        let body = text.get(s..e).unwrap_or("");
        let ok = body.len() >= 2
            && body.starts_with('"')
            && quoted_len(text, s + 1).is_some_and(|n| s + 1 + n + 1 == e);
        if !ok {
            self.problem(E101::NoteShape {}, at.col);
            return;
        }
        let note = unquote(text.get(s + 1..e - 1).unwrap_or(""));
        self.store(remark, |h, meta| {
            h.notes.push(Note { text: note, meta });
        });
    }

    fn misdeal(&mut self, at: Span, remark: Option<String>) {
        if !self.may_stand(Slot::Misdeal, "misdeal", at.col) {
            return;
        }
        if at.tokens().next().is_some() {
            self.problem(E101::MisdealShape {}, at.line.col(at.start));
        }
        self.store(remark, |h, meta| {
            h.misdeal = Some(meta);
        });
    }

    fn winner(&mut self, at: Span, remark: Option<String>) {
        let toks = Few::of(at.tokens());
        let [(nat, name)] = toks.slice() else {
            self.problem(E101::WinnerShape {}, at.col);
            return;
        };
        if self
            .building
            .as_ref()
            .is_some_and(|b| b.game.winner.is_some())
        {
            self.problem(E108::SecondWinner {}, at.col);
            return;
        }
        let column = at.line.col(*nat);
        if let Some(name) = self.name_ok(name, column, "player or team", true) {
            self.close_hand();
            let meta = self.meta(remark);
            if let Some(b) = self.building.as_mut() {
                b.game.winner = Some(Named { name, column, meta });
            }
        }
    }
}

/// The part of a line after a statement's keyword.
struct Span<'l, 'a> {
    line: &'l Line<'a>,
    start: usize,
    end: usize,
    /// The column of the statement's keyword.
    col: u32,
}

impl<'a> Span<'_, 'a> {
    fn tokens(&self) -> super::lexer::Tokens<'a> {
        self.line.tokens(self.start, self.end)
    }
}

fn set_flag(flags: &mut Vec<u8>, n: Name, flag: u8) {
    let i = n.0 as usize;
    if flags.len() <= i {
        flags.resize(i + 1, 0);
    }
    if let Some(f) = flags.get_mut(i) {
        *f |= flag;
    }
}

/// The card tokens a misspelt one is compared with: every canonical token, and the tens as `10S`.
const TENS: [&str; 4] = ["10S", "10H", "10D", "10C"];

fn bad_card(tok: &str) -> E103 {
    let upper = tok.to_uppercase();
    let known = crate::cards::CARD_NAMES.iter().chain(&TENS).copied();
    E103::BadCard {
        token: Shown(tok.to_string()),
        suggestion: DidYouMean(did_you_mean(&upper, known).map(str::to_string)),
    }
}

/// The digits of a trick number token `N.`, if it is one.
fn trick_number(tok: &str) -> Option<&str> {
    tok.strip_suffix('.').filter(|d| is_digits(d))
}

/// `[Name "value"]` within `text[b0..b1]`: the name and the bounds of the quoted value.
fn parse_tag(text: &str, b0: usize, b1: usize) -> Option<(&str, usize, usize)> {
    let body = text.get(b0..b1)?;
    let inner = body.strip_prefix('[')?;
    let after_bracket = b0 + 1;
    let name_start = after_bracket + (inner.len() - inner.trim_start_matches(is_space).len());
    let rest = text.get(name_start..b1)?;
    let name_len = rest
        .bytes()
        .enumerate()
        .take_while(|(i, c)| {
            if *i == 0 {
                c.is_ascii_alphabetic()
            } else {
                c.is_ascii_alphanumeric() || *c == b'_'
            }
        })
        .count();
    if name_len == 0 {
        return None;
    }
    let name = rest.get(..name_len)?;
    let after_name = rest.get(name_len..)?;
    let gap = after_name.len() - after_name.trim_start_matches(is_space).len();
    if gap == 0 {
        return None;
    }
    let quote = name_start + name_len + gap;
    if text.get(quote..b1)?.as_bytes().first() != Some(&b'"') {
        return None;
    }
    let value_start = quote + 1;
    let len = quoted_len(text.get(..b1)?, value_start)?;
    let value_end = value_start + len;
    let tail = text.get(value_end + 1..b1)?.trim_start_matches(is_space);
    let tail = tail.strip_prefix(']')?;
    if !tail.trim_matches(is_space).is_empty() {
        return None;
    }
    Some((name, value_start, value_end))
}

/// `YYYY.MM.DD`, where the month and day may be `??`.
fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    let two = |x: &[u8]| x.iter().all(u8::is_ascii_digit) || x == b"??";
    b.len() == 10
        && b.get(..4).is_some_and(|y| y.iter().all(u8::is_ascii_digit))
        && b.get(4) == Some(&b'.')
        && b.get(5..7).is_some_and(two)
        && b.get(7) == Some(&b'.')
        && b.get(8..10).is_some_and(two)
}

/// Read a `Teams` tag `"NS: Ann Cal; EW: Bob Dee"`: the teams read, and the first error.
pub fn parse_teams(text: &str) -> (Vec<(String, Vec<String>)>, Option<String>) {
    let mut teams: Vec<(String, Vec<String>)> = Vec::new();
    for part in text.split(';') {
        let part = part.trim_matches(is_space);
        if part.is_empty() {
            continue;
        }
        let (name, members) = match part.split_once(':') {
            Some((n, m)) => (n.trim_matches(is_space), Some(m)),
            None => (part, None),
        };
        let members: Vec<String> = members
            .map(|m| {
                m.split(is_space)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if !is_name(name) || members.is_empty() {
            return (
                teams,
                Some(format!(
                    "team {} needs the form NAME: PLAYER PLAYER",
                    super::lexer::py_repr(part)
                )),
            );
        }
        match teams.iter_mut().find(|(n, _)| n == name) {
            Some(t) => t.1 = members,
            None => teams.push((name.to_string(), members)),
        }
    }
    (teams, None)
}

/// Parse a whole text at once; for tests and small inputs.
pub fn parse_all(data: &[u8], source: &str) -> (Vec<Game>, Vec<Finding>) {
    let mut p = Parser::new(source, 1, 0);
    p.feed(data);
    p.finish();
    (p.take_games(), p.take_findings())
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::notation::Code;

    const HEAD: &str = "[Rules \"auction\"]\n[Players \"Ann Bob Cal Dee\"]\n";

    fn codes(text: &str) -> Vec<(&'static str, u32, u32)> {
        parse_all(text.as_bytes(), "t.pitch")
            .1
            .iter()
            .map(|f| (f.code().as_str(), f.line, f.column))
            .collect()
    }

    #[test]
    fn the_notation_example_reads_cleanly() {
        let text = format!(
            "{HEAD}\nhand 1\ndealer Ann\nbids Bob 2, Cal pass, Dee 3, Ann 3        % the dealer takes it at 3\n\
             1. Ann:AS Bob:3S Cal:9S Dee:KS\n2. Ann:JS Bob:4S Cal:TD Dee:2S\n\
             score Ann 3, Bob 0, Cal 1, Dee 0\n"
        );
        let (games, findings) = parse_all(text.as_bytes(), "club.pitch");
        assert!(findings.is_empty(), "{findings:?}");
        let h = &games[0].hands[0];
        assert_eq!(h.tricks.len(), 2);
        assert_eq!(h.bids.as_ref().map(|b| b.bids.len()), Some(4));
        assert_eq!(
            h.bids
                .as_ref()
                .and_then(|b| b.meta.remark.clone())
                .as_deref(),
            Some(" the dealer takes it at 3")
        );
    }

    #[test]
    fn bad_card_and_unknown_player() {
        let t = format!("{HEAD}hand 1\ndealer Ann\n1. Bob:AS Cal:QX Dee:2S Ann:4S\n");
        assert_eq!(codes(&t), vec![("E103", 5, 15)]);
        let t = "[Rules \"auction\"]\n[Players \"Dan Bob Cal\"]\nhand 1\ndealr Dan\ndealer Dna\n";
        let (_, f) = parse_all(t.as_bytes(), "t");
        assert_eq!(f.len(), 2);
        assert!(
            f[0].message().contains("did you mean 'dealer'"),
            "{}",
            f[0].message()
        );
        assert!(
            f[1].message().contains("did you mean 'Dan'"),
            "{}",
            f[1].message()
        );
    }

    #[test]
    fn a_close_word_is_suggested_and_a_tie_is_not() {
        let keywords = || KEYWORDS.iter().copied();
        assert_eq!(did_you_mean("bisd", keywords()), Some("bids"));
        assert_eq!(did_you_mean("dealr", keywords()), Some("dealer"));
        assert_eq!(
            did_you_mean("Dna", ["Ann", "Bob", "Dan"].into_iter()),
            Some("Dan")
        );
        assert_eq!(
            did_you_mean("pas", ["pass", "smudge"].into_iter()),
            Some("pass")
        );
        assert_eq!(did_you_mean("bananas", keywords()), None);
        // four cards one edit from KX: no guess between them
        assert!(!bad_card("KX").message().contains("did you mean"));
        assert!(bad_card("1OD").message().contains("did you mean '10D'?"));
        assert!(bad_card("as.").message().contains("did you mean 'AS'?"));
    }

    #[test]
    fn a_hand_number_finding_belongs_to_the_hand_it_opens() {
        let t = format!("{HEAD}hand 0\ndealer Ann\nhand 99\ndealer Bob\n");
        let (_, f) = parse_all(t.as_bytes(), "t");
        let e106: Vec<_> = f.iter().filter(|x| x.code() == Code::E106).collect();
        assert_eq!(e106.len(), 2, "{f:?}");
        assert!(
            e106[0].message().starts_with("the game opens with hand 0"),
            "{}",
            e106[0].message()
        );
        assert_eq!(e106[0].hand, Some(0));
        assert_eq!(e106[1].message(), "hand 99 follows hand 0: expected hand 1");
        assert_eq!(e106[1].hand, Some(99));
    }

    #[test]
    fn numbers_out_of_range_are_one_finding_each() {
        let t = format!(
            "{HEAD}hand 99999999999999999999999\nscore Ann 99999999999999999999999, Bob 1\n\
             revoke Ann trick 12345678901234567890\n"
        );
        let f = codes(&t);
        assert_eq!(f, vec![("E101", 3, 6), ("E101", 4, 11), ("E101", 5, 18)]);
        let f = codes(&format!("{HEAD}hand 1\n100. AS 2. KS\n"));
        assert_eq!(f, vec![("E101", 4, 1)]);
        let (g, _) = parse_all(t.as_bytes(), "t");
        assert_eq!(g[0].hands[0].number, 1);
    }

    #[test]
    fn ascii_digits_only() {
        let t = format!("{HEAD}hand \u{661}\n\u{661}. AS\nhand \u{b2}\n");
        let f = codes(&t);
        assert_eq!(
            f.iter().map(|x| x.0).collect::<Vec<_>>(),
            vec!["E101", "E102", "E101"]
        );
    }

    #[test]
    fn columns_count_characters() {
        let t = format!("{HEAD}hand 1\n% ♠♠\nnote \"♠♠\" % x\n1. ♠A ♥Q 9X\n");
        let f = parse_all(t.as_bytes(), "t").1;
        assert_eq!(
            f.iter().map(|x| (x.line, x.column)).collect::<Vec<_>>(),
            vec![(6, 10)]
        );
    }

    #[test]
    fn split_play_is_one_finding_and_kept() {
        let t = format!("{HEAD}hand 1\n1. Ann:AS Ben: QH\n");
        let (_, f) = parse_all(t.as_bytes(), "t");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code(), Code::E104);
        let t = format!("{HEAD}hand 1\n1. Ann:AS Bob: QH\n");
        let (g2, f2) = parse_all(t.as_bytes(), "t");
        assert_eq!(f2.len(), 1, "{f2:?}");
        assert_eq!(f2[0].code(), Code::E101);
        assert_eq!(g2[0].hands[0].tricks[0].plays.len(), 2);
    }

    #[test]
    fn a_line_not_utf8_is_one_finding_and_the_others_read() {
        let t = format!("% caf\u{e9}\n{HEAD}hand 1\nnote \"caf");
        let mut bytes = t.into_bytes();
        bytes.extend_from_slice(b"\xe9\"\n1. Ann:AS\n");
        let (g, f) = parse_all(&bytes, "t");
        assert_eq!(
            f.iter()
                .map(|x| (x.code().as_str(), x.line, x.column))
                .collect::<Vec<_>>(),
            vec![("E109", 5, 10)]
        );
        assert_eq!(g[0].hands[0].tricks.len(), 1);
    }

    #[test]
    fn chunks_read_as_the_whole() {
        let mut text = format!("{HEAD}hand 1\r\ndealer Ann\n1. Ann:AS Bob:").into_bytes();
        text.extend_from_slice(b"\xff\n% x\n");
        text.extend_from_slice("\u{a0}2. Bob:KS\nnote \"\0\"\n".as_bytes());
        let whole = parse_all(&text, "t");
        for size in 1..24 {
            let mut p = Parser::new("t", 1, 0);
            for c in text.chunks(size) {
                p.feed(c);
            }
            p.finish();
            assert_eq!(
                (p.take_games(), p.take_findings()),
                whole,
                "chunks of {size}"
            );
        }
    }

    #[test]
    fn a_dropped_trick_line_keeps_the_comments_before_it() {
        let t = format!("{HEAD}hand 1\n% keep me\n100. AS\n1. Ann:AS\n");
        let (g, f) = parse_all(t.as_bytes(), "t");
        assert_eq!(f.len(), 1);
        assert_eq!(
            g[0].hands[0].tricks[0].meta.comments,
            vec![" keep me".to_string()]
        );
    }

    #[test]
    fn a_game_past_its_last_hand_number_is_one_finding_and_no_more_records() {
        let mut t = HEAD.to_string();
        for i in 1..=MAX_HAND + 50 {
            t.push_str(&format!("hand {i}\ndealer Ann\n"));
        }
        t.push_str("[Rules \"auction\"]\n[Players \"Ann Bob Cal\"]\nhand 1\n");
        let (g, f) = parse_all(t.as_bytes(), "t");
        assert_eq!(f.len(), 1, "{:?}", f.first());
        assert_eq!(
            (f[0].code(), f[0].line),
            (Code::E101, 3 + 2 * MAX_HAND as u32)
        );
        assert_eq!(g[0].hands.len(), MAX_HAND as usize);
        assert_eq!(g[1].hands.len(), 1, "the next game is read as usual");
    }

    #[test]
    fn binary_is_sniffed() {
        assert!(looks_binary(b"\0\0\0\0\0\0"));
        assert!(!looks_binary(HEAD.as_bytes()));
    }

    #[test]
    fn tag_values_and_repeats() {
        let t = "[Event \"a \\\"b\\\"\"]\n[Rules \"auction\"]\n[Players \"A B\"]\n[Rules \"auction\"]\n[Players \"A B\"]\n";
        let (g, f) = parse_all(t.as_bytes(), "x/y.pitch");
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].tags[0].value, "a \"b\"");
        assert!(f.is_empty());
        assert_eq!(file_label("x/y.pitch"), "y.pitch");
    }

    #[test]
    fn teams() {
        let (t, e) = parse_teams("NS: Ann Cal; EW: Bob Dee");
        assert_eq!(t.len(), 2);
        assert!(e.is_none());
        assert_eq!(
            parse_teams("NS Ann Cal").1.as_deref(),
            Some("team 'NS Ann Cal' needs the form NAME: PLAYER PLAYER")
        );
    }
}
#[cfg(test)]
mod not_utf8_tests {
    use super::*;

    /// A name spoilt by a byte that is not UTF-8 is its line's E109 alone; a later line that names
    /// the player as written is still an E104 (its message quotes the spoilt name), however the
    /// bytes arrive: the fast path reads lines the E109's line never sees.
    #[test]
    fn a_later_line_quoting_a_spoilt_name_is_said_whatever_the_chunks() {
        let mut data =
            b"[Rules \"auction\"]\n[Players \"Ann Bob \xffal Dee\"]\n\nhand 1\ndealer Ann\n"
                .to_vec();
        data.extend_from_slice(
            b"bids Bob pass, Cal pass, Dee pass, Ann 2\n1. Ann:AS Bob:3S Cal:9S Dee:KS\n",
        );
        let whole = parse_all(&data, "t.pitch");
        let found: Vec<_> = whole
            .1
            .iter()
            .map(|f| (f.code().as_str(), f.line))
            .collect();
        assert_eq!(found.first(), Some(&("E109", 2)));
        assert!(
            found.contains(&("E104", 6)) && found.contains(&("E104", 7)),
            "{found:?}"
        );
        for chunk in 1..data.len() {
            let mut p = Parser::new("t.pitch", 1, 0);
            for c in data.chunks(chunk) {
                p.feed(c);
            }
            p.finish();
            assert!(
                (p.take_games(), p.take_findings()) == whole,
                "chunks of {chunk}"
            );
        }
    }
}
