//! Text as messages quote it: white space as the notation counts it, and user text shown
//! as Python's `repr` shows it. Below the findings and the lexer, which both use it.

/// White space as the notation counts it: what Python's `str.isspace` accepts, so a
/// no-break space or an ideographic space separates tokens as a tab does.
pub fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0b}'
            | '\u{0c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// At most this many characters of an offending token are quoted in a message.
const MAX_SHOWN: usize = 40;

/// A token quoted for a message as Python's `repr` would, cut short when it is huge.
pub fn show(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN) {
        Some((cut, _)) => py_repr(&format!("{}...", text.get(..cut).unwrap_or(""))),
        None => py_repr(text),
    }
}

/// Python's `repr` of a string: single quotes unless the text has one and no double quote.
pub fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() || (c != ' ' && is_space(c)) || not_printable(c) => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Characters Python's `repr` escapes beyond controls and spaces: the format characters
/// (soft hyphen, zero-width and direction marks, the BOM), private use and noncharacters.
/// Unassigned code points are not known here (no Unicode tables) and print as they are.
fn not_printable(c: char) -> bool {
    matches!(c as u32,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f | 0x202a..=0x202e
        | 0x2060..=0x2064 | 0x2066..=0x206f | 0xd800..=0xdfff | 0xe000..=0xf8ff | 0xfeff
        | 0xfff9..=0xfffb | 0xfffe | 0xffff | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
}
