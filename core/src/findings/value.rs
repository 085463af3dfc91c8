//! The typed fields of a finding: how each shows in a message and what it is in JSON.

use std::fmt;

use crate::cards::{Card, suit_letter, suit_name};
use crate::text::{py_repr, show};

/// A field's value as `--format json` and the findings table give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Text(String),
    List(Vec<Value>),
}

impl Value {
    /// The value as JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) => out.push_str(&n.to_string()),
            Value::Text(s) => out.push_str(&serde_json::Value::from(s.as_str()).to_string()),
            Value::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
        }
    }
}

/// Fields as one JSON object, in declaration order.
pub fn fields_json(fields: &[(&str, Value)]) -> String {
    let mut out = String::from("{");
    for (i, (name, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::Value::from(*name).to_string());
        out.push(':');
        v.write_json(&mut out);
    }
    out.push('}');
    out
}

/// A type a finding's field may have.
pub trait Field {
    /// The field's value for JSON.
    fn value(&self) -> Value;
}

impl<T: Field + ?Sized> Field for &T {
    fn value(&self) -> Value {
        (**self).value()
    }
}

macro_rules! int_field {
    ($($t:ty),*) => {
        $(impl Field for $t {
            fn value(&self) -> Value {
                Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        })*
    };
}
int_field!(i32, u32, i64, u64, usize);

impl Field for bool {
    fn value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Field for String {
    fn value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl Field for str {
    fn value(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl Field for Card {
    fn value(&self) -> Value {
        Value::Text(self.name().to_string())
    }
}

impl<T: Field> Field for Option<T> {
    fn value(&self) -> Value {
        self.as_ref().map_or(Value::Null, Field::value)
    }
}

impl<T: Field> Field for Vec<T> {
    fn value(&self) -> Value {
        Value::List(self.iter().map(Field::value).collect())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Text the user wrote, shown quoted as Python's `repr` quotes it (`'bisd'`); the field is the
/// text itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quoted(pub String);

impl fmt::Display for Quoted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&py_repr(&self.0))
    }
}

impl Field for Quoted {
    fn value(&self) -> Value {
        Value::Text(self.0.clone())
    }
}

/// Text the user wrote, shown quoted and cut short past 40 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown(pub String);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&show(&self.0))
    }
}

impl Field for Shown {
    fn value(&self) -> Value {
        Value::Text(self.0.clone())
    }
}

/// Items shown one after another, separated by spaces (`AS KS 7D`); `{:#}` shows `none`
/// for no items.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spaced<T>(pub Vec<T>);

impl<T: fmt::Display> fmt::Display for Spaced<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() && f.alternate() {
            return f.write_str("none");
        }
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

impl<T: Field> Field for Spaced<T> {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// Items shown as a list, separated by commas (`Ann, Bob`), or with `{:#}` by semicolons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed<T>(pub Vec<T>);

impl<T: fmt::Display> fmt::Display for Listed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if f.alternate() { "; " } else { ", " };
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(sep)?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

impl<T: Field> Field for Listed<T> {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// A close known word offered for a misspelt one. It shows as ` (did you mean 'x'?)`, with
/// `{:#}` as `; did you mean 'x'?`, with `{:+}` as `did you mean 'x'? `; as nothing when there
/// is none. JSON has the word, or null.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DidYouMean(pub Option<String>);

impl fmt::Display for DidYouMean {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(w) = &self.0 else { return Ok(()) };
        if f.alternate() {
            write!(f, "; did you mean '{w}'?")
        } else if f.sign_plus() {
            write!(f, "did you mean '{w}'? ")
        } else {
            write!(f, " (did you mean '{w}'?)")
        }
    }
}

impl Field for DidYouMean {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// The tags a game has, shown as ` (its tags: Event, Date)`, or as nothing when it has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagsPresent(pub Vec<String>);

impl fmt::Display for TagsPresent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " (its tags: {})", Listed(self.0.clone()))
        }
    }
}

impl Field for TagsPresent {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// A number of points: `1 point`, `3 points`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Points(pub i32);

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 1 {
            f.write_str("1 point")
        } else {
            write!(f, "{} points", self.0)
        }
    }
}

impl Field for Points {
    fn value(&self) -> Value {
        Value::Int(i64::from(self.0))
    }
}

/// A number the record may not have: shown as `nothing` when it is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrNothing(pub Option<i32>);

impl fmt::Display for OrNothing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("nothing"),
        }
    }
}

impl Field for OrNothing {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// An explanation that may be missing: ` (why)` with `{}`, `: why` with `{:#}`, nothing when empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aside(pub String);

impl fmt::Display for Aside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else if f.alternate() {
            write!(f, ": {}", self.0)
        } else {
            write!(f, " ({})", self.0)
        }
    }
}

impl Field for Aside {
    fn value(&self) -> Value {
        if self.0.is_empty() {
            Value::Null
        } else {
            Value::Text(self.0.clone())
        }
    }
}

/// The top-bid words of a preset, shown after its bid range: `, smudge/moon`, or nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlsoWords(pub Vec<String>);

impl fmt::Display for AlsoWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, ", {}", self.0.join("/"))
        }
    }
}

impl Field for AlsoWords {
    fn value(&self) -> Value {
        self.0.value()
    }
}

/// A number that qualifies a statement only when there is one: ` with 6 players`, ` in trick
/// 3`; the words before it are the field's own (`WithPlayers`, `InTrick`).
macro_rules! qualifier {
    ($($(#[doc = $doc:literal])* $name:ident => $before:literal $(, $after:literal)?;)*) => {
        $($(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub Option<u32>);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Some(n) => write!(f, concat!($before, "{}" $(, $after)?), n),
                    None => Ok(()),
                }
            }
        }

        impl Field for $name {
            fn value(&self) -> Value {
                self.0.value()
            }
        })*
    };
}

qualifier! {
    /// ` with 6 players`, where the deal size depends on the number of players.
    WithPlayers => " with ", " players";
    /// ` in trick 3`, where a trick was named.
    InTrick => " in trick ";
}

/// A suit (0 spades ... 3 clubs), shown by its letter, or by its name with `{:#}`
/// (`hearts`); JSON has the letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuitName(pub i32);

impl fmt::Display for SuitName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(suit_name(self.0))
        } else {
            f.write_str(suit_letter(self.0))
        }
    }
}

impl Field for SuitName {
    fn value(&self) -> Value {
        Value::Text(suit_letter(self.0).to_string())
    }
}

/// A number added in a sum, a negative one in brackets (`6 + (-2)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signed(pub i32);

impl fmt::Display for Signed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "({})", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl Field for Signed {
    fn value(&self) -> Value {
        Value::Int(i64::from(self.0))
    }
}

/// Declares one finding code: its catalogue entry and its cases, each with typed fields and
/// the template of its message (`{field}` is the field's value as it shows, `{field:#}` its
/// alternate form). `compare(EXPECTED, RECORDED)` names the two sides a case compares
/// (expressions over its fields), which `--format json` and the findings table give as
/// `expected` and `recorded`.
macro_rules! violation {
    (
        $(#[doc = $doc:literal])*
        $code:ident {
            severity: $severity:ident,
            fix: $fix:ident $(($fix_title:literal))?,
            section: $section:literal,
            title: $title:literal,
            why: $why:literal,
            example: $example:literal $(,)?
        }
        $(
            $(#[doc = $case_doc:literal])*
            $case:ident { $($field:ident : $ty:ty),* $(,)? }
            $(compare($expected:expr, $recorded:expr))?
            => $template:literal
        ),* $(,)?
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum $code {
            $($(#[doc = $case_doc])* $case { $($field: $ty),* }),*
        }

        #[allow(unused_variables, unreachable_code)]
        impl $code {
            /// The code's catalogue entry.
            pub const DECLARATION: $crate::findings::Declaration = $crate::findings::Declaration {
                code: $crate::findings::Code::$code,
                severity: $crate::findings::Severity::$severity,
                title: $title,
                why: $why,
                example: $example,
                fix: $crate::findings::Fix::$fix,
                fix_title: concat!("" $(, $fix_title)?),
                section: $section,
                cases: &[$($crate::findings::Case {
                    name: stringify!($case),
                    fields: &[$(stringify!($field)),*],
                    template: $template,
                }),*],
            };

            /// The message, made from the fields by the case's template.
            pub fn message(&self) -> String {
                match self {
                    $($code::$case { $($field),* } => format!($template)),*
                }
            }

            /// The case's name.
            pub fn case(&self) -> &'static str {
                match self {
                    $($code::$case { .. } => stringify!($case)),*
                }
            }

            /// The typed fields, by name.
            pub fn fields(&self) -> Vec<(&'static str, $crate::findings::Value)> {
                match self {
                    $($code::$case { $($field),* } => vec![
                        $((stringify!($field), $crate::findings::Field::value($field))),*
                    ]),*
                }
            }

            /// What was expected and what the record shows, where the case compares two.
            pub fn compared(&self) -> Option<(String, String)> {
                match self {
                    $($code::$case { $($field),* } => {
                        $(return Some(($expected.to_string(), $recorded.to_string()));)?
                        None
                    }),*
                }
            }
        }
    };
}
