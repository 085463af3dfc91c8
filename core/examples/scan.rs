//! `cargo run --release --example scan -- FILE...`: parse files in Rust alone and print what was read
//! beside the floor of reading their lines (used by bench/ to check the extension's own figures).

use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let t = Instant::now();
        let floor = pitch_core::scan::count_lines(&path);
        let tf = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let parsed = pitch_core::scan::scan_file(&path);
        let tp = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let general = pitch_core::scan::scan_file_by(&path, true);
        let tg = t.elapsed().as_secs_f64();
        match (floor, parsed, general) {
            (Ok((bytes, lines)), Ok((_, games, hands, plays, findings)), Ok(_)) => {
                let mb = bytes as f64 / 1e6;
                println!(
                    "{path}: {mb:.0} MB, {lines} lines; floor {tf:.3}s ({:.0} MB/s); parse {tp:.3}s ({:.0} MB/s, {:.0} hands/s); general path alone {tg:.3}s ({:.0} MB/s): {games} games, {hands} hands, {plays} plays, {findings} findings",
                    mb / tf,
                    mb / tp,
                    hands as f64 / tp,
                    mb / tg
                );
            }
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => eprintln!("{path}: {e}"),
        }
    }
}
