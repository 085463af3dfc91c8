//! `cargo run --release --example scan -- [--only floor|fast|general|audit] FILE...`: parse files
//! in Rust alone and print what was read beside the floor of reading their lines (used by bench/
//! to check the extension's own figures); "audit" is the whole audit as `auditor audit` runs it
//! (every game replayed and scored, on one thread: the instructions an audit costs). `--only`
//! runs one phase, for a profiler.

use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let only = match args.iter().position(|a| a == "--only") {
        Some(i) if i + 1 < args.len() => {
            let v = args.remove(i + 1);
            args.remove(i);
            Some(v)
        }
        _ => None,
    };
    let run = |phase: &str| only.as_deref().is_none_or(|o| o == phase);
    for path in &args {
        let mb = std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / 1e6);
        let mut out = format!("{path}: {mb:.0} MB");
        if run("floor") {
            let t = Instant::now();
            match pitch_core::scan::count_lines(path) {
                Ok((_, lines)) => {
                    let s = t.elapsed().as_secs_f64();
                    out += &format!("; {lines} lines; floor {s:.3}s ({:.0} MB/s)", mb / s);
                }
                Err(e) => eprintln!("{path}: {e}"),
            }
        }
        for (phase, general) in [("fast", false), ("general", true)] {
            if !run(phase) {
                continue;
            }
            let t = Instant::now();
            match pitch_core::scan::scan_file_by(path, general) {
                Ok((_, games, hands, plays, findings)) => {
                    let s = t.elapsed().as_secs_f64();
                    out += &format!(
                        "; {phase} {s:.3}s ({:.0} MB/s, {:.0} hands/s: {games} games, {hands} hands, {plays} plays, {findings} findings)",
                        mb / s,
                        hands as f64 / s
                    );
                }
                Err(e) => eprintln!("{path}: {e}"),
            }
        }
        if run("audit") {
            let t = Instant::now();
            match audit(path) {
                Ok(s) => {
                    let secs = t.elapsed().as_secs_f64();
                    out += &format!(
                        "; audit {secs:.3}s ({:.0} MB/s, {:.0} hands/s: {} games, {} hands, {} cards, {} findings)",
                        mb / secs,
                        s.hands as f64 / secs,
                        s.games,
                        s.hands,
                        s.cards,
                        s.findings.len()
                    );
                }
                Err(e) => eprintln!("{path}: {e}"),
            }
        }
        println!("{out}");
    }
}

/// The audit of the file at `path` on one thread, as `auditor audit` runs it (findings kept).
fn audit(path: &str) -> std::io::Result<pitch_core::audit::Summary> {
    use pitch_core::rules::presets::{Resolver, parse_rules};
    let rules = Resolver::new("");
    let resolve = move |tag: Option<&str>| rules.get(tag);
    let check = || -> pitch_core::notation::parser::RulesCheck {
        Box::new(|value: &str| parse_rules(value).err().map(|e| (e.message, e.offset)))
    };
    pitch_core::audit::audit_stream(
        std::fs::File::open(path)?,
        path,
        1,
        0,
        1,
        &check,
        &resolve,
        &|| pitch_core::audit::NoRows,
        &mut |_, _, _| {},
        &|_, _, _| {},
        true,
    )
}
