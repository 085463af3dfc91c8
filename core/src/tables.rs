//! The rows every audited game gives the dataset's tables (the twin of `auditor.tables.add_game`,
//! which fills the same tables for games built in Python).

use std::collections::HashSet;
use std::sync::Arc;

use crate::audit::Sink;
use crate::cards::{CARD_NAMES, Card, TrumpTable, suit_letter};
use crate::columns::{Col, Kind, Table};
use crate::engine::{Finding, GameResult, Seats, Status};
use crate::notation::{Game, writer};
use crate::rules::{Deck, RuleSet, Smudge};

/// What every piece's tables are built from: the schema, and what Python knows of each code.
#[derive(Debug)]
pub struct Spec {
    /// Table name and its columns, in `tables.json` order.
    pub tables: Vec<(String, Vec<(String, Kind)>)>,
    pub source: String,
    /// `imported_at`, in microseconds since the epoch.
    pub now_us: i64,
}

/// One game's place in the tables of its piece.
#[derive(Clone, Debug)]
pub struct Span {
    /// `None`: findings outside any game.
    pub key: Option<String>,
    pub legacy: Option<String>,
    /// The first row in each table, and the row after the last.
    pub start: Vec<usize>,
    pub end: Vec<usize>,
}

/// The tables of one piece of input, game by game.
pub struct Rows {
    spec: Arc<Spec>,
    pub tables: Vec<Table>,
    pub spans: Vec<Span>,
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
    /// Empty tables of the schema.
    pub fn new(spec: Arc<Spec>) -> Rows {
        let tables = spec
            .tables
            .iter()
            .map(|(name, cols)| Table::new(name, cols))
            .collect();
        Rows {
            spec,
            tables,
            spans: Vec::new(),
        }
    }

    /// The same tables, empty.
    pub fn empty_like(&self) -> Rows {
        Rows {
            spec: self.spec.clone(),
            tables: self.tables.iter().map(Table::empty_like).collect(),
            spans: Vec::new(),
        }
    }

    fn table(&mut self, name: &str) -> Option<&mut Table> {
        self.tables.iter_mut().find(|t| t.name == name)
    }

    fn marks(&self) -> Vec<usize> {
        self.tables.iter().map(Table::rows).collect()
    }

    /// Rename `other`'s games as `rename` says and number them from `offset` (names made on a worker).
    pub fn place(other: &mut Rows, rename: &dyn Fn(&str) -> String, offset: u32) {
        for t in &mut other.tables {
            let g = t.col("game");
            map_str(t, g, rename);
            if t.name == "games" {
                let gi = t.col("game_index");
                map_int(t, gi, |v| v + i64::from(offset));
            }
        }
    }

    /// Append the rows of `other`'s games `from..` whose keys are not in `seen` (adding them),
    /// in one run of consecutive games, up to about `room` hands; returns where it stopped.
    /// The same game twice is stored once.
    pub fn append_games(
        &mut self,
        other: &Rows,
        from: usize,
        seen: &mut HashSet<String>,
        room: usize,
    ) -> usize {
        let hands = other
            .tables
            .iter()
            .position(|t| t.name == "hands")
            .unwrap_or(0);
        let mut i = from;
        // skip the games already stored
        while let Some(span) = other.spans.get(i) {
            match &span.key {
                Some(k) if seen.contains(k) => i += 1,
                _ => break,
            }
        }
        let first = i;
        let mut taken = 0usize;
        while let Some(span) = other.spans.get(i) {
            if let Some(k) = &span.key {
                if !seen.insert(k.clone()) {
                    break;
                }
            }
            taken += span.end.get(hands).copied().unwrap_or(0)
                - span.start.get(hands).copied().unwrap_or(0);
            i += 1;
            if taken >= room {
                break;
            }
        }
        if let (Some(a), Some(b)) = (
            other.spans.get(first),
            i.checked_sub(1).and_then(|l| other.spans.get(l)),
        ) {
            if i > first {
                for ((mine, theirs), (&s, &e)) in self
                    .tables
                    .iter_mut()
                    .zip(&other.tables)
                    .zip(a.start.iter().zip(&b.end))
                {
                    mine.append_range(theirs, s, e);
                }
            }
        }
        i
    }

    /// Rows in the hands table.
    pub fn hands(&self) -> usize {
        self.tables
            .iter()
            .find(|t| t.name == "hands")
            .map_or(0, Table::rows)
    }

    fn findings(&mut self, game_id: Option<&str>, game: &str, found: &[Finding]) {
        let spec = self.spec.clone();
        let Some(t) = self.table("findings") else {
            return;
        };
        let c = |n: &str| t.col(n);
        let cols: Vec<Col> = [
            "game_id", "game", "code", "kind", "severity", "file", "line", "column", "hand",
            "trick", "player", "message", "expected", "recorded",
        ]
        .iter()
        .map(|n| c(n))
        .collect();
        let [
            id,
            gname,
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
        ] = cols[..]
        else {
            return;
        };
        for f in found {
            let code_s = f.code().as_str();
            let (k, s) = (f.code().kind(), f.code().declaration().severity.as_str());
            let compared = f.facts.compared();
            t.str(id, game_id);
            t.str(gname, (!game.is_empty()).then_some(game));
            t.str(code, Some(code_s));
            t.str(kind, Some(k));
            t.str(severity, Some(s));
            t.str(file, Some(&spec.source));
            t.int(line, Some(i64::from(f.line)));
            t.int(column, Some(i64::from(f.column)));
            t.int(hand, f.hand.map(i64::from));
            t.int(trick, f.trick.map(i64::from));
            t.str(player, f.subject.as_deref());
            t.str(message, Some(&f.message()));
            t.str(expected, compared.as_ref().map(|c| c.0.as_str()));
            t.str(recorded, compared.as_ref().map(|c| c.1.as_str()));
            t.end_row();
        }
    }
}

fn map_str(t: &mut Table, c: Col, f: &dyn Fn(&str) -> String) {
    let Some(col) = t.columns.get_mut(c) else {
        return;
    };
    if col.kind != Kind::Str {
        return;
    }
    let mut data = Vec::with_capacity(col.data.len());
    let mut offsets = vec![0i32];
    for i in 0..col.len() {
        let a = col.offsets.get(i).copied().unwrap_or(0) as usize;
        let b = col.offsets.get(i + 1).copied().unwrap_or(0) as usize;
        let s = std::str::from_utf8(col.data.get(a..b).unwrap_or(&[])).unwrap_or("");
        if col.valid.get(i).copied().unwrap_or(false) {
            data.extend_from_slice(f(s).as_bytes());
        }
        offsets.push(i32::try_from(data.len()).unwrap_or(i32::MAX));
    }
    col.data = data;
    col.offsets = offsets;
}

fn map_int(t: &mut Table, c: Col, f: impl Fn(i64) -> i64) {
    if let Some(col) = t.columns.get_mut(c) {
        for v in &mut col.ints {
            *v = f(*v);
        }
    }
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

impl Sink for Rows {
    fn last_key(&self) -> Option<String> {
        self.spans.last().and_then(|s| s.key.clone())
    }

    fn stray(&mut self, name: &str, found: &[Finding]) {
        let start = self.marks();
        self.findings(None, name, found);
        self.spans.push(Span {
            key: None,
            legacy: None,
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
        let legacy = (!pf.is_empty()).then(|| legacy_key(g, pf));
        let id = Some(key.as_str());
        let seats = res.and_then(|r| r.seats.as_ref());
        let audited = res.is_some_and(|r| r.audited);
        let side = |s: i32| seats.and_then(|x| x.side_name(s));
        let players = crate::engine::players(g);
        let source = self.spec.source.clone();
        let now = self.spec.now_us;
        if let Some(t) = self.table("games") {
            let c = |n: &str| t.col(n);
            let cols = [
                c("game_id"),
                c("game"),
                c("source_file"),
                c("game_index"),
                c("line"),
                c("event"),
                c("site"),
                c("date"),
                c("round"),
                c("rules_tag"),
                c("preset"),
                c("rules"),
                c("players"),
                c("teams"),
                c("tags"),
                c("hands"),
                c("recorded_winner"),
                c("winner"),
                c("won_in_hand"),
                c("imported_at"),
            ];
            let [
                gid,
                gname,
                file,
                index,
                line,
                event,
                site,
                date,
                round,
                rtag,
                preset,
                rtext,
                pl,
                teams,
                tags,
                hands,
                rec_w,
                win,
                won,
                at,
            ] = cols;
            t.str(gid, id);
            t.str(gname, Some(name));
            t.str(file, Some(&source));
            t.int(index, Some(i64::from(g.index)));
            t.int(line, Some(i64::from(g.line)));
            t.str(event, g.tag("Event"));
            t.str(site, g.tag("Site"));
            t.int(date, date_days(g.tag("Date")));
            t.str(round, g.tag("Round"));
            t.str(rtag, g.tag("Rules"));
            t.str(preset, rules.map(|r| r.preset.as_str()));
            t.str(rtext, rules.map(|r| r.text.as_str()));
            t.list(pl, Some(players.iter().map(String::as_str)));
            t.str(teams, g.tag("Teams"));
            t.str(tags, Some(&tags_json(g)));
            t.int(hands, Some(g.hands.len() as i64));
            t.str(rec_w, g.winner.as_ref().map(|w| g.name_of(w.name)));
            t.str(win, res.and_then(|r| side(r.winner)));
            t.int(won, res.and_then(|r| r.won_in_hand).map(i64::from));
            t.int(at, Some(now));
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
            if let Some(t) = self.table("hands") {
                t.s("game_id", id);
                t.i("hand", Some(i64::from(h.number)));
                t.i("line", Some(i64::from(h.meta.line)));
                t.s("dealer", h.dealer.as_ref().map(|d| g.name_of(d.name)));
                let status = match hs {
                    Some(x) => x.status.as_str(),
                    None if h.misdeal.is_some() => "misdeal",
                    None => "unplayable",
                };
                t.s("status", Some(status));
                if let (Some(hs), Some(prep)) = (hs, prep) {
                    t.s(
                        "pitcher",
                        (prep.pitcher >= 0).then(|| seat_name(prep.pitcher)),
                    );
                    t.i("contract", Some(i64::from(prep.contract)));
                    t.i("high_bid", Some(i64::from(prep.high_bid)));
                    let sale = if played && prep.seller >= 0 {
                        prep.sale
                    } else {
                        0
                    };
                    t.b("sold", Some(sale != 0));
                    t.i("sale", Some(i64::from(sale)));
                    t.s("trump", (prep.trump >= 0).then(|| suit_letter(prep.trump)));
                    t.b("contract_made", hs.contract_made.filter(|_| played));
                    t.b("smudge", Some(hs.smudge));
                    t.b(
                        "moon",
                        Some(hs.smudge && rules.is_some_and(|r| r.smudge == Smudge::Moon)),
                    );
                    t.b("takeover", Some(hs.takeover || prep.takeover));
                    t.l(
                        "revokers",
                        Some(hs.revokers.iter().filter_map(|&r| side(r))),
                    );
                    t.s("went_out", side(hs.went_out));
                } else {
                    let first = h
                        .tricks
                        .first()
                        .and_then(|t| t.plays.first())
                        .map(|p| p.card);
                    t.s(
                        "trump",
                        first
                            .filter(|c| c.index() < 52)
                            .map(|c| suit_letter(c.suit())),
                    );
                    t.b("sold", Some(false));
                    t.b("smudge", Some(false));
                    t.b("moon", Some(false));
                    t.b("takeover", Some(false));
                    t.l("revokers", Some(std::iter::empty::<&str>()));
                }
                t.s(
                    "trump_line",
                    h.trump
                        .as_ref()
                        .map(|x| suit_letter(i32::from(x.suit.index()))),
                );
                t.b("dealt", Some(h.deal.is_some()));
                t.l(
                    "widow",
                    h.widow.as_ref().map(|w| w.cards.iter().map(|&x| card(x))),
                );
                t.i("points_in_play", rules.map(|r| i64::from(r.points_in_play)));
                t.i("tricks", Some(h.tricks.len() as i64));
                if let (Some(p), true) = (pts, played) {
                    t.s("high", award("High"));
                    t.s("high_card", p.high_card.map(card));
                    t.s("high_holder", Some(seat_name(p.high_holder)));
                    t.s("low", award("Low"));
                    t.s("low_card", p.low_card.map(card));
                    t.s("low_holder", Some(seat_name(p.low_holder)));
                    t.s("jack", award("Jack"));
                    t.i("jack_trick", p.jack_trick.map(i64::from));
                    for (names, col) in EXTRA_POINTS {
                        t.s(col, names.iter().find_map(|n| award(n)));
                    }
                    t.s("game_point", award("Game"));
                }
                t.l("notes", Some(h.notes.iter().map(|n| n.text.as_str())));
                t.end_row();
            }
            if let Some(deal) = &h.deal {
                if let Some(t) = self.table("deals") {
                    let (gid, hand, player, cards) = (
                        t.col("game_id"),
                        t.col("hand"),
                        t.col("player"),
                        t.col("cards"),
                    );
                    for hold in &deal.holdings {
                        t.str(gid, id);
                        t.int(hand, Some(i64::from(h.number)));
                        t.str(player, Some(g.name_of(hold.player)));
                        t.list(cards, Some(hold.cards.iter().map(|&x| card(x))));
                        t.end_row();
                    }
                }
            }
            if let Some(bl) = &h.bids {
                if let Some(t) = self.table("bids") {
                    let c = |n: &str| t.col(n);
                    let cols = [
                        c("game_id"),
                        c("hand"),
                        c("position"),
                        c("player"),
                        c("word"),
                        c("value"),
                        c("line"),
                        c("column"),
                    ];
                    let [gid, hand, pos, player, word, value, line, column] = cols;
                    for (i, b) in bl.bids.iter().enumerate() {
                        let w = g.word_of(b.word);
                        t.str(gid, id);
                        t.int(hand, Some(i64::from(h.number)));
                        t.int(pos, Some(i as i64 + 1));
                        t.str(player, Some(g.name_of(b.player)));
                        t.str(word, Some(w));
                        t.int(value, rules.and_then(|r| r.bid_value(w)).map(i64::from));
                        t.int(line, Some(i64::from(bl.meta.line)));
                        t.int(column, Some(i64::from(b.column)));
                        t.end_row();
                    }
                }
            }
            if let Some(t) = self.table("exchanges") {
                let c = |n: &str| t.col(n);
                let cols = [
                    c("game_id"),
                    c("hand"),
                    c("position"),
                    c("kind"),
                    c("player"),
                    c("cards"),
                    c("line"),
                ];
                let [gid, hand, pos, kind, player, cards, line] = cols;
                for (i, x) in h.exchanges.iter().enumerate() {
                    t.str(gid, id);
                    t.int(hand, Some(i64::from(h.number)));
                    t.int(pos, Some(i as i64 + 1));
                    t.str(kind, Some(x.kind.word()));
                    t.str(player, Some(g.name_of(x.holding.player)));
                    t.list(cards, Some(x.holding.cards.iter().map(|&k| card(k))));
                    t.int(line, Some(i64::from(x.meta.line)));
                    t.end_row();
                }
            }
            self.plays(g, h, id, hs, prep, seats, deck);
            if let Some(t) = self.table("recorded_scores") {
                let c = |n: &str| t.col(n);
                let cols = [
                    c("game_id"),
                    c("hand"),
                    c("kind"),
                    c("key"),
                    c("value"),
                    c("line"),
                    c("column"),
                ];
                let [gid, hand, kind, key_c, value, line, column] = cols;
                for sl in [&h.score, &h.total].into_iter().flatten() {
                    for e in &sl.entries {
                        t.str(gid, id);
                        t.int(hand, Some(i64::from(h.number)));
                        t.str(kind, Some(sl.kind.word()));
                        t.str(key_c, Some(g.name_of(e.key)));
                        t.int(value, Some(i64::from(e.value)));
                        t.int(line, Some(i64::from(sl.meta.line)));
                        t.int(column, Some(i64::from(e.column)));
                        t.end_row();
                    }
                }
            }
            if let (Some(hs), Some(prep), Some(seats), Some(p), true) =
                (hs, prep, seats, pts, played && hs.is_some_and(|x| x.scored))
            {
                self.hand_scores(g, h, id, hs, prep, seats, p, rules);
            }
        }
        if let (Some(res), Some(seats)) = (res, seats) {
            if let Some(t) = self.table("settlements") {
                let (gid, sd, amount) = (t.col("game_id"), t.col("side"), t.col("amount"));
                for (i, &v) in res.settlement.iter().enumerate() {
                    t.str(gid, id);
                    t.str(sd, seats.side_name(i as i32));
                    t.int(amount, Some(i64::from(v)));
                    t.end_row();
                }
            }
        }
        self.findings(id, name, pf);
        if let Some(r) = res {
            self.findings(id, name, &r.findings);
        }
        self.spans.push(Span {
            key: Some(key),
            legacy,
            start,
            end: self.marks(),
        });
    }
}

impl Rows {
    #[allow(clippy::too_many_arguments)]
    fn plays(
        &mut self,
        g: &Game,
        h: &crate::notation::Hand,
        id: Option<&str>,
        hs: Option<&crate::engine::HandScore>,
        prep: Option<&crate::engine::Prepared>,
        seats: Option<&Seats>,
        deck: Deck,
    ) {
        let Some(t) = self.table("plays") else { return };
        let c = |n: &str| t.col(n);
        let cols = [
            c("game_id"),
            c("hand"),
            c("trick"),
            c("position"),
            c("player"),
            c("card"),
            c("rank"),
            c("suit"),
            c("trump"),
            c("trick_winner"),
            c("revoke"),
            c("line"),
            c("column"),
        ];
        let [
            gid,
            hand,
            trick,
            position,
            player,
            card_c,
            rank,
            suit,
            trump_c,
            winner_c,
            revoke,
            line,
            column,
        ] = cols;
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
                t.str(gid, id);
                t.int(hand, Some(i64::from(h.number)));
                t.int(trick, Some(i64::from(tr.number)));
                t.int(position, Some(pos as i64 + 1));
                t.str(player, who);
                t.str(card_c, Some(card(cd)));
                t.str(
                    rank,
                    Some(if cd.index() < 52 {
                        card(cd).get(..1).unwrap_or("?")
                    } else {
                        "JK"
                    }),
                );
                t.str(suit, (s < 4).then(|| suit_letter(s)));
                t.bool(trump_c, Some(trump >= 0 && table.is_trump(cd)));
                t.str(winner_c, winner);
                t.bool(
                    revoke,
                    Some(who.is_some_and(|w| revoked.contains(&(tr.number, w)))),
                );
                t.int(line, Some(i64::from(tr.meta.line)));
                t.int(column, Some(i64::from(p.column)));
                t.end_row();
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn hand_scores(
        &mut self,
        g: &Game,
        h: &crate::notation::Hand,
        id: Option<&str>,
        hs: &crate::engine::HandScore,
        prep: &crate::engine::Prepared,
        seats: &Seats,
        p: &crate::engine::points::Points,
        rules: Option<&RuleSet>,
    ) {
        let Some(t) = self.table("hand_scores") else {
            return;
        };
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
        for (i, sd) in seats.side_names.iter().enumerate() {
            let si = i as i32;
            let at = |v: &[i32]| v.get(i).copied().unwrap_or(0);
            t.s("game_id", id);
            t.i("hand", Some(i64::from(h.number)));
            t.s("side", Some(sd));
            t.b(
                "pitcher_side",
                Some(pitcher_side >= 0 && si == pitcher_side),
            );
            t.i("points", Some(i64::from(at(&hs.made))));
            t.b("high", Some(p.owner("High") == si));
            t.b("low", Some(p.owner("Low") == si));
            t.b("jack", Some(p.owner("Jack") == si));
            for (names, col) in EXTRA_POINTS {
                let point = rules.and_then(|r| {
                    names
                        .iter()
                        .find(|name| r.point_names.iter().any(|n| n == *name))
                });
                t.b(col, point.map(|point| p.owner(point) == si));
            }
            t.b("game_point", Some(p.owner("Game") == si));
            t.i("count", Some(i64::from(at(&p.counts))));
            t.i("tricks", Some(i64::from(at(&p.tricks))));
            t.i("score", hs.score.get(i).map(|&v| i64::from(v)));
            t.i("recorded_score", recorded(&h.score, sd));
            t.i("total", hs.total.get(i).map(|&v| i64::from(v)));
            t.i("recorded_total", recorded(&h.total, sd));
            t.i("set_back", Some(i64::from(at(&hs.set_back))));
            t.b("revoked", Some(hs.revokers.contains(&si)));
            t.end_row();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
