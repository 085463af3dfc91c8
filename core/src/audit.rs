//! Whole streams audited on every core: the input is cut at game boundaries into pieces,
//! each piece parsed and audited on a worker thread, and the results put back in order.
//!
//! Memory stays flat in the input size: a bounded number of pieces is in flight, and
//! what comes back is the findings and counts (and, for an import, the rows).

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::engine::{self, Finding, GameResult, Status};
use crate::notation::Game;
use crate::notation::parser::{Parser, RulesCheck, game_name};
use crate::rules::RuleSet;

/// How big a piece of input a worker takes at once (1 MB measured as fast as 4 MB, in less memory).
pub const PIECE_BYTES: usize = 1 << 20;

/// How much of a piece is fed to the parser before its complete games are audited.
const STEP_BYTES: usize = 64 << 10;

/// Stands for the file label in names built on a worker, which does not know how many games
/// come before its piece; no `GameId` can hold a NUL.
const PLACEHOLDER: &str = "\u{0}";

/// A finding with the game it belongs to (and that game's key, where the sink computed one).
#[derive(Clone, Debug)]
pub struct Reported {
    pub game: String,
    pub key: Option<String>,
    pub finding: Finding,
}

/// Resolves a game's `Rules` tag (None: no tag) to its rule set (None: not auditable, already reported).
pub type Resolver = dyn Fn(Option<&str>) -> Option<Arc<RuleSet>> + Send + Sync;

/// What a game gives to whoever consumes the results beside the counts (an import's rows).
pub trait Sink: Send {
    /// One game, as parsed and audited (`result` None: its rules could not be resolved).
    fn game(
        &mut self,
        game: &Game,
        name: &str,
        parse_findings: &[Finding],
        rules: Option<&RuleSet>,
        result: Option<&GameResult>,
    );

    /// Findings outside any game (a statement before the first tag).
    fn stray(&mut self, _name: &str, _findings: &[Finding]) {}

    /// The key of the game last given to [`Sink::game`], if the sink computes keys.
    fn last_key(&self) -> Option<String> {
        None
    }

    /// The piece is read: work that can be done on the worker before the merge (encoding).
    fn finish(&mut self) {}

    /// How big a piece of input a worker takes at once: [`PIECE_BYTES`] unless the sink's
    /// work per byte is so much more than the audit's that a file of a few pieces would keep
    /// the other workers idle.
    fn piece_bytes(&self) -> usize {
        PIECE_BYTES
    }
}

/// Takes each piece's sink in input order, with the function that puts the real names on its
/// games and the number of games before it.
pub type Merge<'a, S> = dyn FnMut(S, &dyn Fn(&str) -> String, u32) + 'a;

/// The counts and findings of a stream.
#[derive(Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub hands: u64,
    pub cards: u64,
    /// Hands with tricks whose score could not be recomputed.
    pub unscored: u64,
    pub bytes: u64,
    pub findings: Vec<Reported>,
}

struct PieceOut<S> {
    games: u32,
    summary: Summary,
    sink: S,
    /// The piece's buffer, handed back for the next read (fresh pages cost more than the parse).
    buffer: Vec<u8>,
}

/// Where to cut `data` so that the piece before starts and ends at game boundaries: the last
/// tag line that follows a `hand N` line (the parser opens a new game there, whatever else),
/// with the number of lines before it; `(0, 0)` when there is none yet.
///
/// Read from the end: the cut is the first tag line after the last `hand N` line that has one
/// after it, so only the last game's lines are looked at (and the line ends before the cut
/// counted), not every line of the piece.
fn last_cut(data: &[u8]) -> (usize, u32) {
    // the start of the nearest tag line after the lines looked at so far
    let mut tag_after: Option<usize> = None;
    let mut end = data.len();
    loop {
        let start = memchr::memrchr(b'\n', data.get(..end).unwrap_or(&[])).map_or(0, |i| i + 1);
        let body = data.get(start..end).unwrap_or(&[]).trim_ascii_start();
        if body.first() == Some(&b'[') {
            tag_after = Some(start);
        } else if let (Some(cut), true) = (tag_after, is_hand_line(body)) {
            let before = data.get(..cut).unwrap_or(&[]);
            return (cut, u32::try_from(count_lines(before)).unwrap_or(u32::MAX));
        }
        if start == 0 {
            return (0, 0);
        }
        end = start - 1;
    }
}

/// The line ends in `data`, counted 255 bytes at a time in byte-wide sums (which the compiler
/// turns into vector compares: a tenth of an instruction a byte, where counting each match
/// costs several).
fn count_lines(data: &[u8]) -> usize {
    data.chunks(255)
        .map(|c| {
            usize::from(
                c.iter()
                    .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'\n'))),
            )
        })
        .sum()
}

/// Whether a line (its leading blanks trimmed) is `hand N`: the line that opens a hand, after
/// which a tag line opens a new game.
fn is_hand_line(body: &[u8]) -> bool {
    body.strip_prefix(b"hand").is_some_and(|rest| {
        let n = rest
            .trim_ascii_start()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        rest.first().is_some_and(u8::is_ascii_whitespace) && (1..=4).contains(&n)
    })
}

/// The bytes and hands done so far across the workers, told to `report` as each slice of a
/// piece is done: a progress bar moves while a piece is still being read, whatever its size.
struct Ticker<'a> {
    bytes: AtomicU64,
    hands: AtomicU64,
    report: &'a (dyn Fn(u64, u64, bool) + Sync),
}

impl Ticker<'_> {
    fn add(&self, bytes: u64, hands: u64) {
        let b = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let h = self.hands.fetch_add(hands, Ordering::Relaxed) + hands;
        (self.report)(b, h, false);
    }
}

fn audit_piece<S: Sink>(
    data: &[u8],
    source: &str,
    first_line: u32,
    check: RulesCheck,
    resolve: &Resolver,
    mut sink: S,
    tick: &Ticker<'_>,
) -> PieceOut<S> {
    let mut p = Parser::new(source, first_line, 0)
        .with_label(PLACEHOLDER)
        .with_rules_check(check);
    let mut summary = Summary {
        bytes: data.len() as u64,
        ..Summary::default()
    };
    let mut by_game: HashMap<String, Vec<Finding>> = HashMap::new();
    let mut games = 0u32;
    // a slice at a time, each game audited as soon as it is complete: the working set stays one game
    let mut slices = data.chunks(STEP_BYTES).peekable();
    while let Some(slice) = slices.next() {
        let hands_before = summary.hands;
        p.feed(slice);
        if slices.peek().is_none() {
            p.finish();
        }
        for f in p.take_findings() {
            by_game.entry(f.game.clone()).or_default().push(f);
        }
        for g in p.take_games() {
            games += 1;
            let name = game_name(PLACEHOLDER, &g);
            let pf = by_game.remove(&name).unwrap_or_default();
            summary.games += 1;
            summary.hands += g.hands.len() as u64;
            let rules = resolve(g.tag("Rules"));
            let result = rules.as_ref().map(|r| engine::audit_game(&g, r));
            sink.game(&g, &name, &pf, rules.as_deref(), result.as_ref());
            let key = sink.last_key();
            let report = |finding| Reported {
                game: name.clone(),
                key: key.clone(),
                finding,
            };
            summary.findings.extend(pf.into_iter().map(report));
            if let Some(res) = result {
                summary.cards += res.cards_played;
                summary.unscored += res
                    .hands
                    .iter()
                    .filter(|h| h.status == Status::Unplayable)
                    .count() as u64;
                summary
                    .findings
                    .extend(res.findings.into_iter().map(report));
            }
            p.recycle(g);
        }
        tick.add(slice.len() as u64, summary.hands - hands_before);
    }
    // findings outside any game (a statement before the first tag): stored as they are reported
    let mut rest: Vec<(String, Vec<Finding>)> = by_game.into_iter().collect();
    rest.sort_by_key(|(_, fs)| fs.first().map_or(0, |f| f.line));
    for (game, fs) in rest {
        sink.stray(&game, &fs);
        summary
            .findings
            .extend(fs.into_iter().map(|finding| Reported {
                game: game.clone(),
                key: None,
                finding,
            }));
    }
    sink.finish();
    PieceOut {
        games,
        summary,
        sink,
        buffer: Vec::new(),
    }
}

/// Put the real file label and game numbers into the names made on a worker.
fn rename(name: &str, label: &str, offset: u32) -> String {
    match name
        .strip_prefix(PLACEHOLDER)
        .and_then(|r| r.strip_prefix('#'))
    {
        Some(n) => format!(
            "{label}#{}",
            n.parse::<u32>().unwrap_or(0).saturating_add(offset)
        ),
        None => name.to_string(),
    }
}

/// Pieces read ahead of the first one not yet merged, per worker: what is in memory at once
/// is bounded by the pieces, whatever the input's size (a slow piece holds the reading back).
const AHEAD_PER_JOB: usize = 3;

/// Parse and audit a whole stream on `jobs` threads. `first_line` and `first_game` place a
/// stream that is a piece of a larger file. `check` makes a `Rules` tag check for each
/// worker; `new_sink` a sink for each piece, handed back in input order to `merge`.
/// `progress` is told the bytes and hands done so far, from the workers as they read each slice
/// (a few hundred times a second: it keeps what it needs), and the totals at the end (`true`).
/// The findings are kept in the summary with `keep_findings` (else only counted by the sinks).
#[allow(clippy::too_many_arguments)]
pub fn audit_stream<R: Read, S: Sink + 'static>(
    mut input: R,
    source: &str,
    first_line: u32,
    first_game: u32,
    jobs: usize,
    check: &(dyn Fn() -> RulesCheck + Sync),
    resolve: &Resolver,
    new_sink: &(dyn Fn() -> S + Sync),
    merge: &mut Merge<'_, S>,
    progress: &(dyn Fn(u64, u64, bool) + Sync),
    keep_findings: bool,
) -> std::io::Result<Summary> {
    let jobs = jobs.max(1);
    let piece_bytes = new_sink().piece_bytes().max(1);
    let ticker = Ticker {
        bytes: AtomicU64::new(0),
        hands: AtomicU64::new(0),
        report: progress,
    };
    let ticker = &ticker;
    let label = crate::notation::parser::file_label(source);
    let mut total = Summary::default();
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, Vec<u8>, u32)>(jobs);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, PieceOut<S>)>();
    std::thread::scope(|scope| -> std::io::Result<()> {
        for _ in 0..jobs {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                loop {
                    let next = work_rx.lock().ok().and_then(|rx| rx.recv().ok());
                    let Some((seq, data, line)) = next else { break };
                    let mut out =
                        audit_piece(&data, source, line, check(), resolve, new_sink(), ticker);
                    out.buffer = data;
                    if done_tx.send((seq, out)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending: std::collections::BTreeMap<usize, PieceOut<S>> =
            std::collections::BTreeMap::new();
        let merged = std::cell::Cell::new(0usize);
        let mut games_before = first_game;
        let mut pool: Vec<Vec<u8>> = Vec::new();
        let mut take = |seq: usize,
                        out: PieceOut<S>,
                        pending: &mut std::collections::BTreeMap<usize, PieceOut<S>>,
                        pool: &mut Vec<Vec<u8>>| {
            pending.insert(seq, out);
            while let Some(out) = pending.remove(&merged.get()) {
                let PieceOut {
                    games,
                    summary,
                    sink,
                    buffer,
                } = out;
                pool.push(buffer);
                total.games += summary.games;
                total.hands += summary.hands;
                total.cards += summary.cards;
                total.unscored += summary.unscored;
                total.bytes += summary.bytes;
                if keep_findings {
                    total
                        .findings
                        .extend(summary.findings.into_iter().map(|mut r| {
                            r.game = rename(&r.game, &label, games_before);
                            // a parser's finding names its game itself, made on the worker too
                            r.finding.game = rename(&r.finding.game, &label, games_before);
                            r
                        }));
                }
                let offset = games_before;
                merge(sink, &|name: &str| rename(name, &label, offset), offset);
                games_before = games_before.saturating_add(games);
                merged.set(merged.get() + 1);
            }
        };
        let mut carry: Vec<u8> = Vec::new();
        let mut line = first_line;
        let mut seq = 0usize;
        let mut received = 0usize;
        let mut eof = false;
        while !eof {
            let mut block = pool.pop().unwrap_or_default();
            block.clear();
            block.extend_from_slice(&carry);
            carry.clear();
            let start = block.len();
            block.resize(start + piece_bytes, 0);
            let mut filled = start;
            while filled < block.len() {
                match input.read(block.get_mut(filled..).unwrap_or(&mut [])) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(k) => filled += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            block.truncate(filled);
            let (cut, lines) = if eof {
                (block.len(), 0)
            } else {
                last_cut(&block)
            };
            carry.extend_from_slice(block.get(cut..).unwrap_or(&[]));
            block.truncate(cut);
            if !block.is_empty() {
                // hold the reading back while the pieces ahead of the merge are many
                while seq >= merged.get() + AHEAD_PER_JOB * jobs && received < seq {
                    match done_rx.recv() {
                        Ok((s, out)) => {
                            received += 1;
                            take(s, out, &mut pending, &mut pool);
                        }
                        Err(_) => break,
                    }
                }
                if work_tx.send((seq, block, line)).is_err() {
                    break;
                }
                seq += 1;
            } else {
                pool.push(block);
            }
            line = line.saturating_add(lines);
            while let Ok((s, out)) = done_rx.try_recv() {
                received += 1;
                take(s, out, &mut pending, &mut pool);
            }
        }
        drop(work_tx);
        while received < seq {
            match done_rx.recv() {
                Ok((s, out)) => {
                    received += 1;
                    take(s, out, &mut pending, &mut pool);
                }
                Err(_) => break,
            }
        }
        Ok(())
    })?;
    progress(total.bytes, total.hands, true); // the last state (`true`: the stream is done)
    Ok(total)
}

/// A sink that keeps nothing: auditing only.
pub struct NoRows;

impl Sink for NoRows {
    fn game(
        &mut self,
        _: &Game,
        _: &str,
        _: &[Finding],
        _: Option<&RuleSet>,
        _: Option<&GameResult>,
    ) {
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// [`last_cut`] as it was first written, line by line from the start: the oracle of its test.
    fn last_cut_forward(data: &[u8]) -> (usize, u32) {
        let (mut cut, mut lines_before_cut) = (0usize, 0u32);
        let (mut lines, mut start) = (0u32, 0usize);
        let mut after_hand = false;
        while start < data.len() {
            let end = memchr::memchr(b'\n', data.get(start..).unwrap_or(&[]))
                .map_or(data.len(), |i| start + i + 1);
            let body = data.get(start..end).unwrap_or(&[]).trim_ascii_start();
            if body.first() == Some(&b'[') {
                if after_hand {
                    cut = start;
                    lines_before_cut = lines;
                }
                after_hand = false;
            } else if let Some(rest) = body.strip_prefix(b"hand") {
                let digits = rest.trim_ascii_start();
                let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
                if rest.first().is_some_and(u8::is_ascii_whitespace) && (1..=4).contains(&n) {
                    after_hand = true;
                }
            }
            lines += 1;
            start = end;
        }
        (cut, lines_before_cut)
    }

    #[test]
    fn the_cut_read_from_the_end_is_the_cut_read_from_the_start() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for dir in [
            "sample_logs",
            "tests/golden/auction",
            "tests/golden/partnership",
        ] {
            for e in std::fs::read_dir(root.join(dir))
                .into_iter()
                .flatten()
                .flatten()
            {
                texts.push(std::fs::read(e.path()).unwrap_or_default());
            }
        }
        for name in crate::simulate::tests::PRESETS {
            let rules = crate::simulate::tests::preset(name);
            texts.push(
                crate::simulate::tests::run(&rules, 2, 3, 1, &[])
                    .0
                    .into_bytes(),
            );
        }
        texts.push(
            b"[A \"1\"]\nhand 1\n  [B \"2\"]\r\nhand\t12345\n[C \"3\"]\nhand 7x\n[D".to_vec(),
        );
        texts.push(b"hand 1\n[A \"1\"]".to_vec());
        texts.push(b"\n\n".to_vec());
        let mut cuts = 0;
        for t in &texts {
            // a piece ends at a line's end, just after it, or within a line
            let ends = (0..=t.len()).filter(|&i| {
                i % 29 == 0 || i == t.len() || t[i.saturating_sub(2)..i].contains(&b'\n')
            });
            for end in ends {
                let piece = &t[..end];
                assert_eq!(
                    last_cut(piece),
                    last_cut_forward(piece),
                    "{:?}",
                    String::from_utf8_lossy(piece)
                );
                cuts += usize::from(last_cut(piece).0 > 0);
            }
        }
        assert!(cuts > 500, "{cuts} pieces with a cut");
    }
}
