//! The core's fuzz driver: `cargo run --release --example fuzz -- [INPUTS] [SEED] [CORPUS_DIR...]
//! [--rules FILE] [--seconds S] [--trace]`.
//!
//! Generated and mutated inputs (byte flips, truncations, shuffled and duplicated lines, huge
//! numbers and lines, random UTF-8, statements built from the notation's own words) go down
//! the whole path a log takes. Each input is checked for a panic (caught and counted, the input
//! saved under `target/fuzz-panics/`) and, stage by stage:
//!
//! * parse and write: the writer is idempotent (writing what was parsed, parsing that and
//!   writing it again gives the same text), and fed in random chunks, as files are read, the
//!   parser gives the same games and findings as fed whole;
//! * the lexer's two paths: the fast path for the common lines and the general path alone give
//!   the same games and findings;
//! * audit: the stream audit (the pieces of `auditor audit`) reads as many games as the parser,
//!   and every finding it reports has a place in the input (a line within it, a column with it)
//!   and names its game as it is reported;
//! * tables: the rows an import builds (the `Rows` sink) leave every column as long as its
//!   table, one `games` row per game, and the audit reports the same findings whatever the sink;
//! * audit/import equality: the findings table an import stores is the audit's findings, less
//!   those of a game read a second time (a game is stored once). Findings outside any game
//!   (before the first tag block) that the import does not store are counted apart, as the
//!   known case `stray`.
//!
//! Each game's rules are resolved, and its `Rules` tag checked, by the core as `auditor` does.
//! `--tables FILE` holds the tables' columns (written by `bench/fuzz_core.py` from
//! `auditor/schemas/tables.json`); without it only the parser and the writer are fuzzed.
//! `--seconds S` stops early; `--trace` writes each input to `target/fuzz-panics/last.pitch`
//! before it runs (to find the input of a crash). Prints the counts and the slowest input.
//! `bench/fuzz_core.py` runs it.

use pitch_core::audit::{Merge, NoRows, Reported, Sink, Summary, audit_stream};
use pitch_core::columns::{Column, Kind, Table};
use pitch_core::notation::parser::{Parser, RulesCheck, parse_all};
use pitch_core::notation::writer::write_games;
use pitch_core::rules::presets::{Resolver, parse_rules};
use pitch_core::tables::{Rows, Spec};
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

const WORDS: &[&str] = &[
    "hand",
    "dealer",
    "deal",
    "widow:",
    "bids",
    "trump",
    "discard",
    "draw",
    "revoke",
    "trick",
    "score",
    "total",
    "note",
    "misdeal",
    "winner",
    "pass",
    "smudge",
    "moon",
    "pitch",
    "sells",
    "keeps",
    "Ann",
    "Bob",
    "Cal",
    "Dee",
    "Ann:",
    "Bob:AS",
    "Cal:10h",
    "Dee:♠Q",
    "JKH",
    "JKL",
    "AS",
    "2C",
    "TD",
    "9H",
    "1.",
    "2.",
    "6.",
    "99.",
    "100.",
    "0.",
    "-3",
    "+4",
    "99999999999999999999999",
    "١",
    "²",
    ",",
    ";",
    ":",
    "%",
    "\"",
    "\\",
    "[",
    "]",
    "[Rules",
    "\"auction\"]",
    "[Players",
    "\"Ann Bob Cal Dee\"]",
    "[GameId",
    "\"g\"]",
    "[Teams",
    "\"NS: Ann Cal; EW: Bob Dee\"]",
    "\u{a0}",
    "\u{3000}",
    "\t",
    "é",
    "\u{feff}",
    "\r",
    "\0",
];

const HEAD: &str = "[Rules \"auction\"]\n[Players \"Ann Bob Cal Dee\"]\n";

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: enough to spread inputs; the seed makes a run repeatable
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

fn generated(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::from(HEAD);
    for _ in 0..rng.below(40) {
        let words = rng.below(12);
        for i in 0..words {
            if i > 0 {
                out.push(if rng.below(8) == 0 { '\t' } else { ' ' });
            }
            out.push_str(rng.pick(WORDS).copied().unwrap_or(""));
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(10) {
            0 => {
                // byte flips
                for _ in 0..1 + rng.below(8) {
                    let i = rng.below(data.len());
                    if let Some(b) = data.get_mut(i) {
                        *b ^= 1 << rng.below(8);
                    }
                }
            }
            1 => data.truncate(rng.below(data.len() + 1)),
            2 | 3 => {
                // shuffle or duplicate lines
                let mut lines: Vec<Vec<u8>> =
                    data.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                if rng.below(2) == 0 {
                    for _ in 0..1 + rng.below(6) {
                        let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                        lines.swap(a, b);
                    }
                } else if let Some(line) = lines.get(rng.below(lines.len())).cloned() {
                    for _ in 0..1 + rng.below(3) {
                        let at = rng.below(lines.len() + 1);
                        lines.insert(at, line.clone());
                    }
                }
                data = lines.join(&b'\n');
            }
            4 => {
                // a huge number where a number stands
                let at = rng.below(data.len() + 1);
                let digits = "9".repeat(1 + rng.below(40));
                data.splice(at..at, digits.bytes());
            }
            5 => {
                // a long line, and rarely a huge one (tens of thousands of words: the paths that
                // are not linear show there, at a cost that would crowd out everything else)
                let unit = rng.pick(WORDS).copied().unwrap_or("AS");
                let words = if rng.below(256) == 0 {
                    1000 + rng.below(20_000)
                } else {
                    50 + rng.below(1000)
                };
                let line = format!(
                    "{} {}\n",
                    rng.pick(&["1.", "note \"", "deal Ann:", "bids", "x"])
                        .copied()
                        .unwrap_or(""),
                    format!("{unit} ").repeat(words)
                );
                let at = rng.below(data.len() + 1);
                data.splice(at..at, line.bytes());
            }
            6 => {
                // random UTF-8 (and some bytes that are not)
                let at = rng.below(data.len() + 1);
                let text: String = (0..1 + rng.below(16))
                    .map(|_| char::from_u32(rng.below(0x3_0000) as u32).unwrap_or('\u{fffd}'))
                    .collect();
                data.splice(at..at, text.bytes());
                if rng.below(4) == 0 {
                    data.insert(rng.below(data.len() + 1), 0x80 | rng.below(0x80) as u8);
                }
            }
            7 => {
                // a word of the notation somewhere
                let at = rng.below(data.len() + 1);
                let w = rng.pick(WORDS).copied().unwrap_or("");
                data.splice(at..at, w.bytes());
            }
            8 => {
                // delete a span
                let a = rng.below(data.len() + 1);
                let b = (a + rng.below(64)).min(data.len());
                data.drain(a..b);
            }
            _ => {
                // line ends: CRLF, none at the end, a BOM first
                match rng.below(3) {
                    0 => {
                        data = String::from_utf8_lossy(&data)
                            .replace('\n', "\r\n")
                            .into_bytes()
                    }
                    1 => {
                        while data.last() == Some(&b'\n') {
                            data.pop();
                        }
                    }
                    _ => {
                        data.splice(0..0, "\u{feff}".bytes());
                    }
                }
            }
        }
    }
    data
}

// ---------------------------------------------------------------------- the rules and tables

/// The rule sets, resolved by the core as `auditor` resolves them (each game's `Rules` tag), and
/// the tables' columns an import fills, read from `--tables`.
struct World {
    rules: Resolver,
    tables: Vec<(String, Vec<(String, Kind)>)>,
}

/// `table NAME col:kind ...` lines, as `bench/fuzz_core.py` writes `auditor/schemas/tables.json`'s tables.
fn read_tables(path: &str) -> Vec<(String, Vec<(String, Kind)>)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("cannot read {path}: the tables are not fuzzed");
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("table ")?.split(' ');
            let name = words.next()?.to_string();
            let cols = words
                .filter_map(|w| {
                    let (c, k) = w.split_once(':')?;
                    Some((c.to_string(), Kind::parse(k)?))
                })
                .collect();
            Some((name, cols))
        })
        .collect()
}

/// The parser's check of a `Rules` tag (E105), the core's own.
fn rules_check() -> RulesCheck {
    Box::new(|value: &str| parse_rules(value).err().map(|e| (e.message, e.offset)))
}

// ---------------------------------------------------------------------- the checks

/// What one input did that it should not have (a panic is caught outside).
#[derive(Default)]
struct Faults {
    /// Parse and write: the text not stable, or the chunked parse not the whole one.
    unstable: bool,
    /// The lexer's fast path and its general path alone give different games or findings.
    paths: bool,
    /// Audit: not the parser's games, a finding out of the input, or findings that depend on the sink.
    audit: bool,
    /// Tables: a column of the wrong length, games rows not one per game.
    tables: bool,
    /// The import's findings are not the audit's.
    mismatch: bool,
    /// The known case: findings outside any game reported by the audit, not stored.
    stray: bool,
}

/// Parses, writes, parses in chunks and by the general path alone; the games read and the lines
/// the fast path read.
fn parse_and_write(data: &[u8], chunk: usize, f: &mut Faults) -> (usize, u64) {
    let whole = parse_all(data, "fuzz.pitch");
    let once = write_games(&whole.0);
    let (again, _) = parse_all(once.as_bytes(), "fuzz.pitch");
    // fed in chunks (as files are read), the same games and findings as fed whole
    let mut p = Parser::new("fuzz.pitch", 1, 0);
    for c in data.chunks(chunk) {
        p.feed(c);
    }
    p.finish();
    let games = whole.0.len();
    if once != write_games(&again) || (p.take_games(), p.take_findings()) != whole {
        f.unstable = true;
    }
    let mut fast = Parser::new("fuzz.pitch", 1, 0);
    fast.feed(data);
    fast.finish();
    let mut general = Parser::new("fuzz.pitch", 1, 0).general_only();
    general.feed(data);
    general.finish();
    let read = fast.fast_lines();
    if (general.take_games(), general.take_findings()) != whole
        || (fast.take_games(), fast.take_findings()) != whole
    {
        f.paths = true;
    }
    (games, read)
}

/// The audit of `data` through `audit_stream`, each piece's sink handed to `merge`.
fn audit_with<S: Sink + 'static>(
    data: &[u8],
    world: &Arc<World>,
    jobs: usize,
    new_sink: &(dyn Fn() -> S + Sync),
    merge: &mut Merge<'_, S>,
) -> Option<Summary> {
    let world = world.clone(); // the audit's resolver lives as long as it likes
    let resolve = move |tag: Option<&str>| world.rules.get(tag);
    audit_stream(
        data,
        "fuzz.pitch",
        1,
        0,
        jobs,
        &rules_check,
        &resolve,
        new_sink,
        merge,
        &|_, _, _| {},
    )
    .ok()
}

/// A finding as both sides report it: where, which code, what it says.
type Seen = (String, u32, u32, String, String);

fn seen(r: &Reported) -> Seen {
    (
        r.game.clone(),
        r.finding.line,
        r.finding.column,
        r.finding.code().as_str().to_string(),
        r.finding.message(),
    )
}

fn text_at(c: &Column, i: usize) -> String {
    let (a, b) = (c.offsets.get(i), c.offsets.get(i + 1));
    match (a, b) {
        (Some(&a), Some(&b)) => c
            .data
            .get(a as usize..b as usize)
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

fn int_at(c: &Column, i: usize) -> u32 {
    c.ints
        .get(i)
        .and_then(|&v| u32::try_from(v).ok())
        .unwrap_or(0)
}

/// The findings rows of `t` in `range`, as the audit reports them.
fn stored(t: &Table, range: std::ops::Range<usize>) -> Vec<Seen> {
    let col = |n: &str| t.columns.iter().find(|c| c.name == n);
    let (Some(game), Some(line), Some(column), Some(code), Some(message)) = (
        col("game"),
        col("line"),
        col("column"),
        col("code"),
        col("message"),
    ) else {
        return Vec::new();
    };
    range
        .map(|i| {
            (
                text_at(game, i),
                int_at(line, i),
                int_at(column, i),
                text_at(code, i),
                text_at(message, i),
            )
        })
        .collect()
}

fn table<'a>(rows: &'a Rows, name: &str) -> Option<&'a Table> {
    rows.tables.iter().find(|t| t.name == name)
}

/// Rows are whole: every column as long as its table, each game's span within the rows, in order, and
/// one `games` row per game (`games`: how many; a piece's spans say it).
fn rows_are_whole(rows: &Rows, games: Option<usize>) -> bool {
    let lengths_agree = rows
        .tables
        .iter()
        .all(|t| t.columns.iter().all(|c| c.len() == t.rows()));
    let spans_in_order = rows.spans.iter().all(|s| {
        s.start.len() == rows.tables.len()
            && s.end.len() == rows.tables.len()
            && s.start.iter().zip(&s.end).all(|(a, b)| a <= b)
            && s.end.iter().zip(&rows.tables).all(|(&e, t)| e <= t.rows())
    });
    let games = games.unwrap_or_else(|| rows.spans.iter().filter(|s| s.key.is_some()).count());
    lengths_agree && spans_in_order && table(rows, "games").is_none_or(|t| t.rows() == games)
}

fn sorted(mut v: Vec<Seen>) -> Vec<Seen> {
    v.sort();
    v
}

/// The audit, the tables an import builds from the same bytes, and the findings it stores.
fn audit_and_import(data: &[u8], games: usize, world: &Arc<World>, jobs: usize, f: &mut Faults) {
    let audit = audit_with(data, world, jobs, &|| NoRows, &mut |_, _, _| {});
    let Some(audit) = audit else {
        f.audit = true;
        return;
    };
    let lines = data.split(|&b| b == b'\n').count() as u32;
    if audit.games != games as u64
        || audit.findings.iter().any(|r| {
            r.finding.line > lines.saturating_add(1)
                || (r.finding.line == 0 && r.finding.column != 0)
                // a finding names its game as it is reported (a worker's placeholder never shows)
                || (!r.finding.game.is_empty() && r.finding.game != r.game)
        })
    {
        f.audit = true;
    }
    let spec = Arc::new(Spec {
        tables: world.tables.clone(),
        source: "fuzz.pitch".into(),
        now_us: 0,
    });
    // as an import merges the pieces: renamed in order, a game read twice stored once
    let mut out = Rows::new(spec.clone());
    let (mut keys, mut dropped, mut whole) = (HashSet::new(), Vec::new(), true);
    let import = audit_with(
        data,
        world,
        jobs,
        &|| Rows::new(spec.clone()),
        &mut |mut piece: Rows, rename, offset| {
            whole &= rows_are_whole(&piece, None);
            Rows::place(&mut piece, rename, offset);
            if let Some(t) = table(&piece, "findings") {
                let at = piece.tables.iter().position(|x| x.name == "findings");
                let mut first = HashSet::new();
                for s in &piece.spans {
                    let twice = s
                        .key
                        .as_ref()
                        .is_some_and(|k| keys.contains(k) || !first.insert(k.clone()));
                    if let (true, Some(at)) = (twice, at) {
                        let (a, b) = (
                            s.start.get(at).copied().unwrap_or(0),
                            s.end.get(at).copied().unwrap_or(0),
                        );
                        dropped.extend(stored(t, a..b));
                    }
                }
            }
            let mut i = 0;
            while i < piece.spans.len() {
                i = out.append_games(&piece, i, &mut keys, usize::MAX);
            }
        },
    );
    let Some(import) = import else {
        f.tables = true;
        return;
    };
    if !whole || !rows_are_whole(&out, Some(keys.len())) {
        f.tables = true;
    }
    let reported = sorted(audit.findings.iter().map(seen).collect());
    if reported != sorted(import.findings.iter().map(seen).collect()) {
        f.audit = true; // the audit's findings depend on the sink
    }
    let kept = table(&out, "findings").map_or_else(Vec::new, |t| stored(t, 0..t.rows()));
    let mut expected = reported;
    for d in sorted(dropped) {
        if let Ok(i) = expected.binary_search(&d) {
            expected.remove(i);
        }
    }
    let kept = sorted(kept);
    if expected != kept {
        // the known case: what is missing is findings outside any game, and nothing else differs
        let strays: Vec<Seen> = sorted(
            import
                .findings
                .iter()
                .filter(|r| r.key.is_none())
                .map(seen)
                .collect(),
        );
        let mut without = expected.clone();
        for s in &strays {
            if let Ok(i) = without.binary_search(s) {
                without.remove(i);
            }
        }
        if without == kept {
            f.stray = true;
        } else {
            f.mismatch = true;
        }
    }
}

// ---------------------------------------------------------------------- the run

struct Args {
    inputs: usize,
    seed: u64,
    corpus: Vec<String>,
    tables: Option<String>,
    seconds: Option<f64>,
    trace: bool,
}

fn args() -> Args {
    let mut a = Args {
        inputs: 1_000_000,
        seed: 1,
        corpus: Vec::new(),
        tables: None,
        seconds: None,
        trace: false,
    };
    let mut it = std::env::args().skip(1);
    let mut positional = 0;
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--tables" => a.tables = it.next(),
            "--seconds" => a.seconds = it.next().and_then(|s| s.parse().ok()),
            "--trace" => a.trace = true,
            _ => {
                match positional {
                    0 => a.inputs = arg.parse().unwrap_or(a.inputs),
                    1 => a.seed = arg.parse().unwrap_or(a.seed),
                    _ => a.corpus.push(arg),
                }
                positional += 1;
            }
        }
    }
    a
}

fn read_corpus(dirs: &[String]) -> Vec<Vec<u8>> {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for dir in dirs {
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                if let Ok(rd) = std::fs::read_dir(&p) {
                    stack.extend(rd.flatten().map(|e| e.path()));
                }
            } else if p.extension().is_some_and(|e| e == "pitch") {
                if let Ok(b) = std::fs::read(&p) {
                    // whole files, and each game alone (smaller inputs, more of them per second)
                    let text = String::from_utf8_lossy(&b).into_owned();
                    for game in text.split("\n[Event").filter(|g| !g.is_empty()) {
                        corpus.push(game.as_bytes().to_vec());
                    }
                    corpus.push(b);
                }
            }
        }
    }
    corpus
}

#[derive(Default)]
struct Counts {
    inputs: usize,
    bytes: usize,
    panics: usize,
    unstable: usize,
    paths: usize,
    fast_lines: u64,
    audit: usize,
    tables: usize,
    mismatches: usize,
    stray: usize,
}

fn save(kind: &str, seed: u64, n: usize, seen: usize, data: &[u8]) {
    if seen <= 20 {
        let _ = std::fs::write(format!("target/fuzz-panics/{kind}-{seed}-{n}.pitch"), data);
    }
}

fn main() {
    let a = args();
    let corpus = read_corpus(&a.corpus);
    let world = Arc::new(World {
        rules: Resolver::new(""),
        tables: a.tables.as_deref().map(read_tables).unwrap_or_default(),
    });
    let audited = !world.tables.is_empty();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(a.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut c = Counts::default();
    let mut slowest = (0.0f64, 0usize);
    let mut slowest_input = Vec::new();
    let started = Instant::now();
    let _ = std::fs::create_dir_all("target/fuzz-panics");
    for n in 0..a.inputs {
        if a.seconds
            .is_some_and(|s| started.elapsed().as_secs_f64() > s)
        {
            break;
        }
        let data = if corpus.is_empty() || rng.below(4) == 0 {
            let g = generated(&mut rng);
            if rng.below(2) == 0 {
                mutate(&mut rng, &g)
            } else {
                g
            }
        } else {
            let s = rng.pick(&corpus).cloned().unwrap_or_default();
            mutate(&mut rng, &s)
        };
        if a.trace {
            let _ = std::fs::write("target/fuzz-panics/last.pitch", &data);
        }
        c.inputs += 1;
        c.bytes += data.len();
        let t = Instant::now();
        let chunk = 1 + rng.below(4096);
        let jobs = 1 + rng.below(2);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut f = Faults::default();
            let (games, read) = parse_and_write(&data, chunk, &mut f);
            if audited {
                audit_and_import(&data, games, &world, jobs, &mut f);
            }
            (f, read)
        }));
        let dt = t.elapsed().as_secs_f64();
        if dt > slowest.0 {
            slowest = (dt, data.len());
            slowest_input.clone_from(&data);
        }
        match outcome {
            Err(_) => {
                c.panics += 1;
                save("panic", a.seed, n, c.panics, &data);
            }
            Ok((f, read)) => {
                c.fast_lines += read;
                for (hit, count, kind) in [
                    (f.unstable, &mut c.unstable, "unstable"),
                    (f.paths, &mut c.paths, "paths"),
                    (f.audit, &mut c.audit, "audit"),
                    (f.tables, &mut c.tables, "tables"),
                    (f.mismatch, &mut c.mismatches, "mismatch"),
                    (f.stray, &mut c.stray, "stray"),
                ] {
                    if hit {
                        *count += 1;
                        save(kind, a.seed, n, *count, &data);
                    }
                }
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let _ = std::fs::write("target/fuzz-panics/slowest.pitch", &slowest_input);
    // a slow run can be the machine's doing (another process): time the slowest input again, alone
    // (not in a run held to a time: the smoke's minute is for new inputs)
    let again = (0..if a.seconds.is_some() { 0 } else { 3 })
        .map(|_| {
            let t = Instant::now();
            let mut f = Faults::default();
            let (games, _) = parse_and_write(&slowest_input, 4096, &mut f);
            if audited {
                audit_and_import(&slowest_input, games, &world, 1, &mut f);
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    let alone = if again < f64::MAX {
        format!("{:.2} ms alone", again * 1e3)
    } else {
        "not timed again".to_string()
    };
    println!(
        "inputs {}, bytes {}, seconds {secs:.1}, panics {}, not idempotent or not chunk-stable {}, \
         fast and general paths differ {} (lines read by the fast path {}), audit faults {}, table faults {}, audit/import mismatches {}, known case (findings before the first \
         tag block not stored) {}, slowest {:.1} ms ({} bytes; {alone}), corpus {}, tables {}",
        c.inputs,
        c.bytes,
        c.panics,
        c.unstable,
        c.paths,
        c.fast_lines,
        c.audit,
        c.tables,
        c.mismatches,
        c.stray,
        slowest.0 * 1e3,
        slowest.1,
        corpus.len(),
        world.tables.len()
    );
    if c.panics + c.unstable + c.paths + c.audit + c.tables + c.mismatches > 0 {
        std::process::exit(1);
    }
}
