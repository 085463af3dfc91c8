//! Whole files through the parser in Rust alone: what the benches measure, beside the floor
//! of reading the same file's lines with the same reader.

use crate::notation::parser::Parser;
use std::fs::File;
use std::io::{self, Read};

const CHUNK: usize = 1 << 20;

/// Parse a file and count `(bytes, games, hands, plays, findings)`, holding one game at a time.
pub fn scan_file(path: &str) -> io::Result<(u64, u64, u64, u64, u64)> {
    scan_file_by(path, false)
}

/// [`scan_file`], every line by the general path when `general` (the fast path off).
pub fn scan_file_by(path: &str, general: bool) -> io::Result<(u64, u64, u64, u64, u64)> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut p = Parser::new(path, 1, 0);
    if general {
        p = p.general_only();
    }
    let (mut bytes, mut games, mut hands, mut plays, mut findings) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut count = |p: &mut Parser| {
        for g in p.take_games() {
            games += 1;
            hands += g.hands.len() as u64;
            plays += g
                .hands
                .iter()
                .flat_map(|h| &h.tricks)
                .map(|t| t.plays.len() as u64)
                .sum::<u64>();
        }
        findings += p.take_findings().len() as u64;
    };
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        p.feed(buf.get(..n).unwrap_or(&[]));
        count(&mut p);
    }
    p.finish();
    count(&mut p);
    Ok((bytes, games, hands, plays, findings))
}

/// Read a file in the same chunks and count its lines: `(bytes, lines)`.
pub fn count_lines(path: &str) -> io::Result<(u64, u64)> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let (mut bytes, mut lines) = (0u64, 0u64);
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        lines += memchr::memchr_iter(b'\n', buf.get(..n).unwrap_or(&[])).count() as u64;
    }
    Ok((bytes, lines))
}

/// Where to cut a file into chunks of about `chunk_bytes`, each starting at a game's first tag
/// line: `(start, end, first_line, games_before)`, `end` -1 for the last. A cut goes before a
/// tag line that follows some other statement (the twin of `auditor.dataset.split_file`'s
/// rule, so that the chunks and their game counts are the same).
pub fn split_file(path: &str, chunk_bytes: u64) -> io::Result<Vec<(u64, i64, u32, u32)>> {
    use std::io::BufRead;
    let size = std::fs::metadata(path)?.len();
    if size.saturating_mul(2) <= chunk_bytes.saturating_mul(3) {
        return Ok(vec![(0, -1, 1, 0)]);
    }
    let mut reader = io::BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
    let mut chunks = Vec::new();
    let (mut start, mut line, mut games) = (0u64, 1u32, 0u32);
    let (mut pos, mut lines, mut starts) = (0u64, 0u32, 0u32);
    let (mut opened, mut seen_statement) = (false, false);
    let mut raw = Vec::new();
    loop {
        raw.clear();
        let n = reader.read_until(b'\n', &mut raw)? as u64;
        if n == 0 {
            chunks.push((start, -1, line, games));
            return Ok(chunks);
        }
        // Python's bytes.strip(): ASCII whitespace and the vertical tab
        let body = trim_py(&raw);
        if !body.is_empty() && body.first() != Some(&b'%') {
            if body.first() == Some(&b'[') {
                if !opened || seen_statement {
                    if opened && pos - start >= chunk_bytes {
                        chunks.push((start, pos as i64, line, games));
                        start = pos;
                        line = line.saturating_add(lines);
                        games = games.saturating_add(starts);
                        lines = 0;
                        starts = 0;
                    }
                    starts += 1;
                    opened = true;
                    seen_statement = false;
                }
            } else {
                seen_statement = true;
            }
        }
        pos += n;
        lines += 1;
    }
}

fn trim_py(b: &[u8]) -> &[u8] {
    let ws = |c: &u8| c.is_ascii_whitespace() || *c == 0x0b;
    let start = b.iter().position(|c| !ws(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !ws(c)).map_or(start, |i| i + 1);
    b.get(start..end).unwrap_or(&[])
}
