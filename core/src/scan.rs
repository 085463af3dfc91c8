//! Whole files through the parser in Rust alone: what the benches measure, beside the floor
//! of reading the same file's lines with the same reader.

use crate::notation::parser::Parser;
use std::fs::File;
use std::io::{self, Read};

const CHUNK: usize = 1 << 20;

/// Parse a file and count `(bytes, games, hands, plays, findings)`, holding one game at a time.
pub fn scan_file(path: &str) -> io::Result<(u64, u64, u64, u64, u64)> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut p = Parser::new(path, 1, 0);
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
