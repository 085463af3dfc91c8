//! `cargo run --release --example scan -- [--only floor|fast|general] FILE...`: parse files in Rust
//! alone and print what was read beside the floor of reading their lines (used by bench/ to check
//! the extension's own figures). `--only` runs one phase, for a profiler.

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
        println!("{out}");
    }
}
