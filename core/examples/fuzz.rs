//! The core's fuzz driver: `cargo run --release --example fuzz -- [INPUTS] [SEED] [CORPUS_DIR...]`.
//!
//! Generated and mutated inputs (byte flips, truncations, shuffled and duplicated lines, huge
//! numbers and lines, random UTF-8, statements built from the notation's own words) go through
//! the parser and the writer. Each input is checked for a panic (caught and counted, the input
//! saved under `target/fuzz-panics/`), for the writer's idempotence (writing what was parsed,
//! parsing that and writing it again gives the same text), and for chunking: fed in random
//! chunks, as files are read, the parser gives the same games and findings as fed whole; and
//! for the lexer's two paths: the fast path for the common lines and the general path alone
//! give the same games and findings. Prints the counts and the slowest input.
//! `bench/fuzz_core.py` runs it.

use pitch_core::notation::parser::{Parser, parse_all};
use pitch_core::notation::writer::write_games;
use std::panic::{AssertUnwindSafe, catch_unwind};
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
                // a huge line
                let unit = rng.pick(WORDS).copied().unwrap_or("AS");
                let line = format!(
                    "{} {}\n",
                    rng.pick(&["1.", "note \"", "deal Ann:", "bids", "x"])
                        .copied()
                        .unwrap_or(""),
                    format!("{unit} ").repeat(1000 + rng.below(20_000))
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

/// The lexer's two paths on one input: the fast path for the common lines and the general path
/// alone give the same games and findings (and how many lines the fast path read).
fn paths_agree(
    data: &[u8],
    whole: &(
        Vec<pitch_core::notation::Game>,
        Vec<pitch_core::notation::Finding>,
    ),
) -> (bool, u64) {
    let mut fast = Parser::new("fuzz.pitch", 1, 0);
    fast.feed(data);
    fast.finish();
    let mut general = Parser::new("fuzz.pitch", 1, 0).general_only();
    general.feed(data);
    general.finish();
    let read = fast.fast_lines();
    let same = (general.take_games(), general.take_findings()) == *whole
        && (fast.take_games(), fast.take_findings()) == *whole;
    (same, read)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: usize = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for dir in args.iter().skip(2) {
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
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut panics, mut unstable, mut bytes) = (0usize, 0usize, 0usize);
    let (mut differ, mut fast_lines) = (0usize, 0u64);
    let mut slowest = (0.0f64, 0usize);
    let mut slowest_input = Vec::new();
    let started = Instant::now();
    let _ = std::fs::create_dir_all("target/fuzz-panics");
    for n in 0..inputs {
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
        bytes += data.len();
        let t = Instant::now();
        let chunk = 1 + rng.below(4096);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let whole = parse_all(&data, "fuzz.pitch");
            let once = write_games(&whole.0);
            let (again, _) = parse_all(once.as_bytes(), "fuzz.pitch");
            // fed in chunks (as files are read), the same games and findings as fed whole
            let mut p = Parser::new("fuzz.pitch", 1, 0);
            for c in data.chunks(chunk) {
                p.feed(c);
            }
            p.finish();
            let stable =
                once == write_games(&again) && (p.take_games(), p.take_findings()) == whole;
            (stable, paths_agree(&data, &whole))
        }));
        let dt = t.elapsed().as_secs_f64();
        if dt > slowest.0 {
            slowest = (dt, data.len());
            slowest_input.clone_from(&data);
        }
        match outcome {
            Err(_) => {
                panics += 1;
                if panics <= 20 {
                    let _ = std::fs::write(format!("target/fuzz-panics/{seed}-{n}.pitch"), &data);
                }
            }
            Ok((stable, (agree, read))) if !stable || !agree => {
                fast_lines += read;
                if !agree {
                    differ += 1;
                    if differ <= 20 {
                        let _ = std::fs::write(
                            format!("target/fuzz-panics/paths-{seed}-{n}.pitch"),
                            &data,
                        );
                    }
                }
                if stable {
                    continue;
                }
                unstable += 1;
                if unstable <= 20 {
                    let _ = std::fs::write(
                        format!("target/fuzz-panics/unstable-{seed}-{n}.pitch"),
                        &data,
                    );
                }
            }
            Ok((_, (_, read))) => fast_lines += read,
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let _ = std::fs::write("target/fuzz-panics/slowest.pitch", &slowest_input);
    // a slow run can be the machine's doing (another process): time the slowest input again, alone
    let again = (0..3)
        .map(|_| {
            let t = Instant::now();
            let (games, _) = parse_all(&slowest_input, "fuzz.pitch");
            let _ = write_games(&games);
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    println!(
        "inputs {inputs}, bytes {bytes}, seconds {secs:.1}, panics {panics}, not idempotent or not chunk-stable {unstable}, fast and general paths differ {differ} (lines read by the fast path {fast_lines}), slowest {:.1} ms ({} bytes; {:.2} ms parsing and writing it again), corpus {}",
        slowest.0 * 1e3,
        slowest.1,
        again * 1e3,
        corpus.len()
    );
    if panics > 0 || unstable > 0 || differ > 0 {
        std::process::exit(1);
    }
}
