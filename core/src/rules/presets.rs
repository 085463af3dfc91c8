//! The presets, read from `auditor/presets.toml`, a club's house presets, and a `Rules` text
//! read into a rule set: a preset name, then `key=value` overrides.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use super::keys::{KEYS, Settings, key};
use super::{DeckSize, RuleSet, max_seats};
use crate::text::py_repr;

/// The presets file, built into the core; the package ships it beside the code for reading.
const PRESETS_TOML: &str = include_str!("../../../auditor/presets.toml");

/// A `Rules` text that names an unknown preset, key or value: what is wrong, and the
/// 0-based position (in characters) of the word it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError {
    pub message: String,
    pub offset: usize,
}

impl RulesError {
    fn at(message: impl Into<String>, offset: usize) -> RulesError {
        RulesError {
            message: message.into(),
            offset,
        }
    }
}

/// One preset: its name, where its rules come from, its base (house presets), every key's value.
#[derive(Clone, Debug)]
pub struct Preset {
    pub name: String,
    pub source: String,
    /// The preset it changes (a house preset's base), or None for a built-in one.
    pub base: Option<String>,
    pub settings: Settings,
}

/// A TOML value as the text a `Rules` tag would give it.
fn toml_text(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(n) => Some(n.to_string()),
        toml::Value::Boolean(b) => Some(if *b { "on" } else { "off" }.to_string()),
        toml::Value::Array(items) => items
            .iter()
            .map(toml_text)
            .collect::<Option<Vec<_>>>()
            .map(|w| w.join(",")),
        _ => None,
    }
}

/// The built-in presets, in the order the file declares them.
static BUILT_IN: LazyLock<Result<Vec<Preset>, String>> = LazyLock::new(|| {
    let table: toml::Table = PRESETS_TOML
        .parse()
        .map_err(|e| format!("auditor/presets.toml: {e}"))?;
    let mut out = Vec::new();
    for (name, body) in &table {
        let body = body
            .as_table()
            .ok_or_else(|| format!("auditor/presets.toml: [{name}] is not a table"))?;
        for k in body.keys() {
            if k != "source" && key(k).is_none() {
                return Err(format!(
                    "auditor/presets.toml: [{name}] has an unknown key {k}"
                ));
            }
        }
        let settings = Settings::from_texts(|k| body.get(k).and_then(toml_text))
            .map_err(|e| format!("auditor/presets.toml: [{name}]: {e}"))?;
        out.push(Preset {
            name: name.clone(),
            source: body
                .get("source")
                .and_then(toml::Value::as_str)
                .unwrap_or("")
                .to_string(),
            base: None,
            settings,
        });
    }
    Ok(out)
});

/// The house presets of this run (a club's configuration), by name.
static HOUSE: LazyLock<RwLock<Vec<Preset>>> = LazyLock::new(|| RwLock::new(Vec::new()));

/// The house presets as they were defined, for a worker process to define them the same.
static HOUSE_DEFINED: LazyLock<RwLock<Vec<HousePreset>>> =
    LazyLock::new(|| RwLock::new(Vec::new()));

fn built_in() -> &'static [Preset] {
    BUILT_IN.as_deref().unwrap_or(&[])
}

/// Why the presets file could not be read, if it could not (a test checks it can).
pub fn presets_file_problem() -> Option<&'static str> {
    BUILT_IN.as_ref().err().map(String::as_str)
}

fn find(name: &str) -> Option<Preset> {
    if let Some(p) = built_in().iter().find(|p| p.name == name) {
        return Some(p.clone());
    }
    HOUSE
        .read()
        .ok()
        .and_then(|h| h.iter().find(|p| p.name == name).cloned())
}

/// Every preset's name: the built-in ones, then the house presets.
pub fn preset_names() -> Vec<String> {
    let mut out: Vec<String> = built_in().iter().map(|p| p.name.clone()).collect();
    if let Ok(h) = HOUSE.read() {
        out.extend(h.iter().map(|p| p.name.clone()));
    }
    out
}

/// The preset `name` in full (its source and base too).
pub fn preset_info(name: &str) -> Option<Preset> {
    find(name)
}

/// The built-in preset a preset comes down from (itself, for a built-in one).
fn root(p: &Preset) -> Preset {
    let mut p = p.clone();
    // a house preset's base is declared before it: the chain ends
    while let Some(base) = p.base.as_deref().and_then(find) {
        p = base;
    }
    p
}

/// The shortest text naming `settings` from the preset `base`: its name, then the keys changed.
fn text_from(base: &Preset, settings: &Settings) -> String {
    let mut parts = vec![base.name.clone()];
    for k in KEYS.iter() {
        let (now, was) = (settings.format(k.name), base.settings.format(k.name));
        if now != was {
            parts.push(format!("{}={}", k.name, now.unwrap_or_default()));
        }
    }
    parts.join(" ")
}

fn rule_set(preset: &Preset, settings: Settings) -> RuleSet {
    let text = text_from(&root(preset), &settings);
    RuleSet::new(&preset.name, settings, text)
}

/// ` (did you mean 'x'?)` when a known word is close to `word`.
fn did_you_mean<'a>(word: &str, known: impl Iterator<Item = &'a str>) -> String {
    crate::notation::parser::did_you_mean(word, known)
        .map(|k| format!(" (did you mean '{k}'?)"))
        .unwrap_or_default()
}

/// The preset named `name`, unchanged.
pub fn preset(name: &str) -> Result<RuleSet, RulesError> {
    match find(name) {
        Some(p) => {
            let settings = p.settings.clone();
            Ok(rule_set(&p, settings))
        }
        None => {
            let names = preset_names();
            Err(RulesError::at(
                format!(
                    "unknown preset {}{} (known: {})",
                    py_repr(name),
                    did_you_mean(name, names.iter().map(String::as_str)),
                    names.join(", ")
                ),
                0,
            ))
        }
    }
}

/// The words of `text` with their positions in characters.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, char)
    for (chars, (i, c)) in text.char_indices().enumerate() {
        let space = crate::text::is_space(c);
        match (space, start) {
            (false, None) => start = Some((i, chars)),
            (true, Some((b, ch))) => {
                out.push((ch, text.get(b..i).unwrap_or("")));
                start = None;
            }
            _ => {}
        }
    }
    if let Some((b, ch)) = start {
        out.push((ch, text.get(b..).unwrap_or("")));
    }
    out
}

/// `rules` with the `key=value` words of `text` applied, in order; `base_offset` is where
/// `text` starts in the text a finding points into.
pub fn with_overrides(
    rules: &RuleSet,
    text: &str,
    base_offset: usize,
) -> Result<RuleSet, RulesError> {
    let mut settings = rules.settings.clone();
    let mut changed: Vec<&str> = Vec::new();
    let mut players_at = base_offset;
    let mut jick_at = base_offset;
    for (at, word) in words(text) {
        let at = base_offset + at;
        let Some((name, value)) = word.split_once('=') else {
            return Err(RulesError::at(
                format!("expected key=value, found {}", py_repr(word)),
                at,
            ));
        };
        let value_at = at + name.chars().count() + 1;
        match settings.set(name, value) {
            Ok(true) => {}
            Ok(false) => {
                let hint = did_you_mean(name, KEYS.iter().map(|k| k.name));
                return Err(RulesError::at(
                    format!(
                        "unknown rule key {}{hint} (see `auditor rules`)",
                        py_repr(name)
                    ),
                    at,
                ));
            }
            Err(message) => return Err(RulesError::at(message, value_at)),
        }
        match name {
            "players" => players_at = at,
            "jick" => jick_at = at,
            _ => {}
        }
        changed.push(name);
    }
    if changed.is_empty() {
        return Ok(rules.clone());
    }
    if changed.contains(&"deck") && !changed.contains(&"jick") {
        // the deck named alone keeps its old meaning
        settings.jick = settings.deck == DeckSize::FiftyFour;
    }
    if settings.deck == DeckSize::FiftyFour && !settings.jick {
        return Err(RulesError::at(
            "jick=off: the 54-card deck always has the off-jack (the jick) as a trump",
            jick_at,
        ));
    }
    let most = max_seats(&settings) as u32;
    let super::keys::PlayerRange(lo, hi) = settings.players;
    if hi > most {
        if changed.contains(&"players") || lo > most {
            let deck = match settings.deck {
                DeckSize::FiftyTwo => 52,
                DeckSize::FiftyFour => 54,
            };
            return Err(RulesError::at(
                format!(
                    "players={}: the {deck}-card deck deals {} cards each to at most {most} players",
                    settings.format("players").unwrap_or_default(),
                    settings.deal_size.for_players(most as usize + 1)
                ),
                players_at,
            ));
        }
        // a bigger deal, the preset's range not named: as many seats as the deck deals to
        settings.players = super::keys::PlayerRange(lo, most);
    }
    let base = find(&rules.preset).unwrap_or_else(|| Preset {
        name: rules.preset.clone(),
        source: String::new(),
        base: None,
        settings: rules.settings.clone(),
    });
    Ok(rule_set(&base, settings))
}

/// A `Rules` tag's value read: a preset name, then `key=value` overrides.
pub fn parse_rules(text: &str) -> Result<RuleSet, RulesError> {
    let ws = words(text);
    let Some(&(start, name)) = ws.first() else {
        return Err(RulesError::at(
            "the Rules tag is empty: it needs a preset name",
            0,
        ));
    };
    let base = preset(name)?;
    let after = start + name.chars().count();
    let rest: String = text.chars().skip(after).collect();
    with_overrides(&base, &rest, after)
}

/// A game's rule set: its `Rules` tag (None: the game has none), then the run's `--rules`
/// (`override`), which may name a preset of its own in place of the tag's, then keys.
pub fn resolve(tag: Option<&str>, over: &str) -> Result<RuleSet, RulesError> {
    let first = words(over).first().map(|&(_, w)| w);
    if first.is_some_and(|w| !w.contains('=')) {
        return parse_rules(over);
    }
    let Some(tag) = tag else {
        return Err(RulesError::at("no Rules tag", 0));
    };
    with_overrides(&parse_rules(tag)?, over, 0)
}

/// Whether `name` may name a preset: a lower-case word, letters first (`thursday`, `club-7`).
fn is_preset_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// A house preset as a configuration file gives it: its name, its base, and `(key, value)` texts.
pub type HousePreset = (String, String, Vec<(String, String)>);

/// Set this run's house presets: each a name, a base preset (built in, or a house preset
/// declared before it) and the keys it changes. The message names the preset and says what is
/// wrong; nothing is set then.
pub fn define_house_presets(presets: &[HousePreset]) -> Result<(), String> {
    let mut out: Vec<Preset> = Vec::new();
    let builtin: Vec<&str> = built_in().iter().map(|p| p.name.as_str()).collect();
    for (name, base, keys) in presets {
        if !is_preset_name(name) {
            return Err(format!(
                "house preset {}: a preset's name is a lower-case word (letters, digits, - and _)",
                py_repr(name)
            ));
        }
        if builtin.contains(&name.as_str()) {
            return Err(format!(
                "house preset {}: {name} is a built-in preset; give the club's rules a name of their own",
                py_repr(name)
            ));
        }
        let known: Vec<String> = builtin
            .iter()
            .map(|s| s.to_string())
            .chain(out.iter().map(|p| p.name.clone()))
            .collect();
        let Some(base_preset) = built_in()
            .iter()
            .find(|p| &p.name == base)
            .or_else(|| out.iter().find(|p| &p.name == base))
            .cloned()
        else {
            return Err(format!(
                "house preset {}: unknown base preset {}{} (known: {})",
                py_repr(name),
                py_repr(base),
                did_you_mean(base, known.iter().map(String::as_str)),
                known.join(", ")
            ));
        };
        let text: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let from = rule_set(&base_preset, base_preset.settings.clone());
        let resolved = with_overrides(&from, &text.join(" "), 0)
            .map_err(|e| format!("house preset {}: {}", py_repr(name), e.message))?;
        out.push(Preset {
            name: name.clone(),
            source: format!("house preset, from {base}"),
            base: Some(base.clone()),
            settings: resolved.settings,
        });
    }
    let mut house = HOUSE
        .write()
        .map_err(|_| "the house presets could not be set".to_string())?;
    let mut defined = HOUSE_DEFINED
        .write()
        .map_err(|_| "the house presets could not be set".to_string())?;
    *house = out;
    *defined = presets.to_vec();
    Ok(())
}

/// The house presets in force, as `define_house_presets` was given them: what a worker in
/// another process defines before it resolves a run's rules.
pub fn house_presets() -> Vec<HousePreset> {
    HOUSE_DEFINED.read().map(|d| d.clone()).unwrap_or_default()
}

/// Rule sets resolved once per distinct `Rules` text, for a run's threads.
#[derive(Default)]
pub struct Resolver {
    over: String,
    cache: RwLock<HashMap<Option<String>, Option<std::sync::Arc<RuleSet>>>>,
}

impl Resolver {
    /// A resolver applying the run's `--rules` text `over` to every game.
    pub fn new(over: &str) -> Resolver {
        Resolver {
            over: over.to_string(),
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The rule set of a game's `Rules` tag (None: not one; its finding is the parser's).
    pub fn get(&self, tag: Option<&str>) -> Option<std::sync::Arc<RuleSet>> {
        let key = tag.map(str::to_string);
        if let Some(hit) = self.cache.read().ok().and_then(|c| c.get(&key).cloned()) {
            return hit;
        }
        let got = resolve(tag, &self.over).ok().map(std::sync::Arc::new);
        if let Ok(mut c) = self.cache.write() {
            c.insert(key, got.clone());
        }
        got
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_file_is_read_whole() {
        assert_eq!(presets_file_problem(), None);
        assert_eq!(
            preset_names()[..8],
            [
                "auction",
                "sell",
                "setback",
                "partnership",
                "cutthroat",
                "tenpoint",
                "tenpoint52",
                "smear"
            ]
        );
    }

    #[test]
    fn overrides_apply_in_order_and_text_is_the_shortest() {
        let Ok(r) = parse_rules("cutthroat game=11 low=holder") else {
            panic!("a good Rules text")
        };
        assert_eq!(r.text, "cutthroat low=holder game=11");
        assert_eq!((r.game, r.preset.as_str()), (11, "cutthroat"));
    }

    #[test]
    fn a_bad_rules_text_says_where_and_why() {
        let e = |t: &str| parse_rules(t).err().map(|e| (e.message, e.offset));
        assert_eq!(
            e("bridge")
                .map(|(m, _)| m.starts_with("unknown preset 'bridge' (known: auction, sell,")),
            Some(true)
        );
        assert_eq!(
            e("auction gmae=11"),
            Some((
                "unknown rule key 'gmae' (did you mean 'game'?) (see `auditor rules`)".into(),
                8
            ))
        );
        assert_eq!(
            e("auction game=seven"),
            Some(("game takes a whole number, not 'seven'".into(), 13))
        );
        assert_eq!(
            e("  "),
            Some(("the Rules tag is empty: it needs a preset name".into(), 0))
        );
        assert_eq!(
            e("tenpoint jick=off").map(|(m, _)| m.starts_with("jick=off: the 54-card deck")),
            Some(true)
        );
    }

    #[test]
    fn a_house_preset_is_a_base_and_keys() {
        let defined = define_house_presets(&[(
            "thursday".into(),
            "auction".into(),
            vec![("game".into(), "11".into())],
        )]);
        assert_eq!(defined, Ok(()));
        let Ok(r) = parse_rules("thursday low=taker") else {
            panic!("the house preset is known")
        };
        assert_eq!((r.game, r.preset.as_str()), (11, "thursday"));
        assert_eq!(r.text, "auction low=taker game=11");
        let bad = define_house_presets(&[("club".into(), "auctoin".into(), vec![])]);
        assert!(bad.is_err_and(|m| m.contains("did you mean 'auction'")));
        let _ = define_house_presets(&[]);
    }
}
