//! Every finding declared once, as ruff declares its violations.
//!
//! A finding code is a type (`findings::play::P402`, say): an enum whose variants are the
//! cases the code reports, each with typed fields (players, cards, numbers, the rule's
//! value) and the template its message is made from. Beside the type stand the code's
//! severity, title, why it matters, an example, the section of the docs that states its
//! rule, and whether `auditor fix` corrects it. The [`registry!`] line of each code makes
//! the [`Code`] list, its strings, the [`CATALOG`] that `auditor explain` and
//! docs/findings.md are made from, and [`Facts`], the one type every finding carries.
//!
//! The parser and the engine build a [`Finding`] from facts and a position; where the
//! record can be corrected they attach the [`FixEdits`] there, since the place that finds
//! a wrong number also knows its span and the right value. Nothing downstream reads a
//! message to decide anything: it is made from the facts when it is shown.
//!
//! Adding a code: declare it with [`violation!`] in the file of its kind, add its line to
//! the registry below, emit it where the engine or parser finds the case, and give it a
//! golden case (docs/findings.md says so step by step under "Adding a code").

#[macro_use]
mod value;

pub mod auction;
pub mod deal;
pub mod input;
pub mod play;
pub mod revoke;
pub mod score;

pub use value::{
    AlsoWords, Aside, DidYouMean, Field, InTrick, Listed, OrNothing, Points, Quoted, Shown, Signed,
    Spaced, SuitName, TagsPresent, Value, WithPlayers, fields_json,
};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// An examination that goes with another finding (what a revoke cost).
    Info,
}

impl Severity {
    /// As the findings table writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Whether `auditor fix` corrects what a code reports, and how far it can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fix {
    /// A verdict: nothing in the record is changed for it.
    None,
    /// Arithmetic of the sheet itself, applied by default.
    Safe,
    /// The audit's ruling written into the sheet, only with `--unsafe-fixes`.
    Unsafe,
}

impl Fix {
    /// As `auditor explain` and the catalogue write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fix::None => "none",
            Fix::Safe => "safe",
            Fix::Unsafe => "unsafe",
        }
    }
}

/// One case a code reports: its name, its fields and its message template.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The variant's name (`RevokePlay`).
    pub name: &'static str,
    /// The typed fields, in declaration order.
    pub fields: &'static [&'static str],
    /// The message template, `{field}` standing for a field's value.
    pub template: &'static str,
}

/// One entry of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Declaration {
    pub code: Code,
    pub severity: Severity,
    pub title: &'static str,
    pub why: &'static str,
    pub example: &'static str,
    /// What `auditor fix` does about it.
    pub fix: Fix,
    /// What the fix does, for `fix --diff` and `explain` (empty when there is none).
    pub fix_title: &'static str,
    /// The section of the docs that states the rule it applies: `rules.md#anchor` or
    /// `notation.md#anchor` (a test checks that every anchor is a heading there).
    pub section: &'static str,
    /// The cases the code reports.
    pub cases: &'static [Case],
}

/// One replacement in the log: the text from (`line`, `column`) up to, not including,
/// (`end_line`, `end_column`) becomes `content`. Lines and columns are 1-based and count
/// characters, as a finding's position does; an insertion has an empty range; `\n` in
/// `content` is the file's own line end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub content: String,
}

impl Edit {
    /// `content` in place of the characters from `column` to `end_column` of `line`.
    pub fn replace(line: u32, column: u32, end_column: u32, content: impl Into<String>) -> Edit {
        Edit {
            line,
            column,
            end_line: line,
            end_column,
            content: content.into(),
        }
    }

    /// `content` inserted before the character at `column` of `line`.
    pub fn insert(line: u32, column: u32, content: impl Into<String>) -> Edit {
        Edit::replace(line, column, column, content)
    }

    /// Line `line` removed, its line end with it.
    pub fn delete_line(line: u32) -> Edit {
        Edit {
            line,
            column: 1,
            end_line: line.saturating_add(1),
            end_column: 1,
            content: String::new(),
        }
    }
}

/// The edits that correct what a finding reports, applied together or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixEdits {
    /// Safe fixes are applied by default; unsafe ones only with `--unsafe-fixes`.
    pub safe: bool,
    pub edits: Vec<Edit>,
}

/// The registry: one line a code, naming the file its declaration is in.
macro_rules! registry {
    ($($kind:ident :: $code:ident),* $(,)?) => {
        /// A finding's stable code: input (E1xx), deal (D2xx), auction (A3xx), play (P4xx),
        /// revoke (R5xx), score (S6xx). `auditor explain CODE` documents each.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($code),*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$code),*];

            /// The code as written (`R501`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code)),*
                }
            }

            /// The code's declaration.
            pub fn declaration(self) -> &'static Declaration {
                match self {
                    $(Code::$code => &$kind::$code::DECLARATION),*
                }
            }
        }

        /// Every code's declaration, in catalogue order.
        pub static CATALOG: &[Declaration] = &[$($kind::$code::DECLARATION),*];

        /// What a finding found: one case of one code, with its typed fields.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Facts {
            $($code($kind::$code)),*
        }

        impl Facts {
            /// The code these facts belong to.
            pub fn code(&self) -> Code {
                match self {
                    $(Facts::$code(_) => Code::$code),*
                }
            }

            /// The message, made from the fields by the case's template.
            pub fn message(&self) -> String {
                match self {
                    $(Facts::$code(f) => f.message()),*
                }
            }

            /// The case's name (`RevokePlay`).
            pub fn case(&self) -> &'static str {
                match self {
                    $(Facts::$code(f) => f.case()),*
                }
            }

            /// The typed fields, by name.
            pub fn fields(&self) -> Vec<(&'static str, Value)> {
                match self {
                    $(Facts::$code(f) => f.fields()),*
                }
            }

            /// What was expected and what the record shows, where the case compares two.
            pub fn compared(&self) -> Option<(String, String)> {
                match self {
                    $(Facts::$code(f) => f.compared()),*
                }
            }
        }

        $(impl From<$kind::$code> for Facts {
            fn from(f: $kind::$code) -> Facts {
                Facts::$code(f)
            }
        })*
    };
}

registry! {
    input::E100,
    input::E101,
    input::E102,
    input::E103,
    input::E104,
    input::E105,
    input::E106,
    input::E107,
    input::E108,
    input::E109,
    deal::D201,
    deal::D202,
    deal::D203,
    deal::D204,
    deal::D205,
    deal::D206,
    auction::A301,
    auction::A302,
    auction::A303,
    auction::A304,
    auction::A305,
    auction::A306,
    auction::A307,
    auction::A308,
    auction::A309,
    play::P401,
    play::P402,
    play::P403,
    play::P404,
    play::P405,
    play::P406,
    play::P407,
    revoke::R501,
    revoke::R502,
    revoke::R503,
    score::S601,
    score::S602,
    score::S603,
}

impl Code {
    /// What the code is about, from its letter: input, deal, auction, play, revoke, score.
    pub fn kind(self) -> &'static str {
        match self.as_str().as_bytes().first() {
            Some(b'E') => "input",
            Some(b'D') => "deal",
            Some(b'A') => "auction",
            Some(b'P') => "play",
            Some(b'R') => "revoke",
            _ => "score",
        }
    }

    /// The code written `text` (`R501`), if there is one.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == text)
    }
}

/// One verdict: what was found (the facts), where, and the edits that correct it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The code and case, with their typed fields.
    pub facts: Facts,
    /// 1-based line (0 for a whole file).
    pub line: u32,
    /// 1-based column in characters (0 for a whole file).
    pub column: u32,
    /// The game's name (`GameId`, else `file#N`), empty outside a game.
    pub game: String,
    /// The hand being read, if any.
    pub hand: Option<u32>,
    /// The trick it is about, if any.
    pub trick: Option<u32>,
    /// The player or team it is about, if any.
    pub subject: Option<String>,
    /// The edits that correct it, where the record can be corrected.
    pub fix: Option<FixEdits>,
    /// The same finding repeated on the same line, folded into this one.
    pub repeats: Option<Repeats>,
}

/// One finding repeated on one line: how many more times, and the
/// columns of the first few.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeats {
    pub count: u32,
    pub columns: Vec<u32>,
}

/// How many columns of the repeats a finding names.
pub const REPEATS_SHOWN: usize = 5;

impl Finding {
    /// A finding of `facts` at `line` and `column`, with no game, hand, trick or subject yet.
    pub fn new(facts: impl Into<Facts>, line: u32, column: u32) -> Finding {
        Finding {
            facts: facts.into(),
            line,
            column,
            game: String::new(),
            hand: None,
            trick: None,
            subject: None,
            fix: None,
            repeats: None,
        }
    }

    /// The finding's code.
    pub fn code(&self) -> Code {
        self.facts.code()
    }

    /// The message, made from the facts (with the repeats folded into it, where there are some).
    pub fn message(&self) -> String {
        let mut m = self.facts.message();
        if let Some(r) = &self.repeats {
            let cols: Vec<String> = r.columns.iter().map(u32::to_string).collect();
            let more = if r.count as usize > r.columns.len() {
                ", ..."
            } else {
                ""
            };
            m.push_str(&format!(
                " (and {} more like it on this line, at column{} {}{more})",
                r.count,
                if r.count == 1 { "" } else { "s" },
                cols.join(", ")
            ));
        }
        m
    }

    /// Fold `other` into this finding when it says the same thing (code, case and every field)
    /// on the same line: one mistake repeated along a line is one finding with its count.
    /// Whether it did.
    pub fn absorb(&mut self, other: &Finding) -> bool {
        if self.line != other.line || self.line == 0 || self.facts != other.facts {
            return false;
        }
        let r = self.repeats.get_or_insert(Repeats {
            count: 0,
            columns: Vec::new(),
        });
        r.count = r.count.saturating_add(1);
        if r.columns.len() < REPEATS_SHOWN {
            r.columns.push(other.column);
        }
        true
    }

    /// This finding about `subject`.
    pub fn about(mut self, subject: impl Into<String>) -> Finding {
        self.subject = Some(subject.into());
        self
    }

    /// This finding in trick `trick`.
    pub fn in_trick(mut self, trick: u32) -> Finding {
        self.trick = Some(trick);
        self
    }

    /// This finding with the edits that correct it; safe or unsafe as its code declares.
    pub fn with_edits(mut self, edits: Vec<Edit>) -> Finding {
        if !edits.is_empty() {
            let safe = self.code().declaration().fix == Fix::Safe;
            self.fix = Some(FixEdits { safe, edits });
        }
        self
    }
}

/// Push `f` onto `list`, folded into the last finding when it repeats it on the same line.
pub fn push_folded(list: &mut Vec<Finding>, f: Finding) {
    if let Some(last) = list.last_mut() {
        if last.absorb(&f) {
            return;
        }
    }
    list.push(f);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_declared_once_in_order() {
        assert_eq!(CATALOG.len(), Code::ALL.len());
        for (d, &c) in CATALOG.iter().zip(Code::ALL) {
            assert_eq!(d.code, c);
            assert_eq!(c.declaration().code, c);
            assert_eq!(Code::parse(c.as_str()), Some(c));
            assert!(!d.cases.is_empty() || c == Code::E100, "{}", c.as_str());
        }
    }

    #[test]
    fn every_template_names_only_its_fields() {
        for d in CATALOG {
            for case in d.cases {
                let mut rest = case.template;
                while let Some(open) = rest.find('{') {
                    let after = rest.get(open + 1..).unwrap_or("");
                    let close = after.find('}').unwrap_or(after.len());
                    let name = after.get(..close).unwrap_or("");
                    let name = name.split(':').next().unwrap_or("");
                    assert!(
                        case.fields.contains(&name),
                        "{} {}: {{{name}}} is not a field",
                        d.code.as_str(),
                        case.name
                    );
                    rest = after.get(close..).unwrap_or("");
                }
            }
        }
    }

    #[test]
    fn fixable_codes_say_what_their_fix_does() {
        for d in CATALOG {
            assert_eq!(
                d.fix != Fix::None,
                !d.fix_title.is_empty(),
                "{}",
                d.code.as_str()
            );
        }
    }
}
