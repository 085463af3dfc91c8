//! `auditor._core.Rules` and the rule book: presets, keys and `Rules` texts, answered by the core.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::py_finding::value_py;
use crate::rules::presets::{self, Resolver, RulesError};
use crate::rules::{DeckSize, KEYS, RuleSet};

pyo3::create_exception!(
    _core,
    RulesProblem,
    pyo3::exceptions::PyValueError,
    "A `Rules` text that names an unknown preset, key or value: `args` are the message and the 0-based offset of the word it is about."
);

fn problem(e: RulesError) -> PyErr {
    RulesProblem::new_err((e.message, e.offset))
}

/// One complete rule set, resolved by the core: every key reads as an attribute
/// (`rules.game`, `rules.low`), beside what follows from them.
#[pyclass(name = "Rules", module = "auditor._core", frozen)]
pub struct PyRules {
    pub inner: RuleSet,
}

#[pymethods]
impl PyRules {
    /// The rule set a `Rules` text names: a preset, then `key=value` overrides.
    #[new]
    fn new(text: &str) -> PyResult<PyRules> {
        presets::parse_rules(text)
            .map(|inner| PyRules { inner })
            .map_err(problem)
    }

    /// A key's value (`rules.game`, `rules.players`): ints, bools, words, tuples.
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.settings.value(name) {
            Some(v) => value_py(py, &v, true),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "a rule set has no key {name:?} (see `auditor rules`)"
            ))),
        }
    }

    /// The preset the rule set names (built in, or a house preset).
    #[getter]
    fn preset(&self) -> &str {
        &self.inner.preset
    }

    /// Where the preset's rules come from.
    #[getter]
    fn source(&self) -> String {
        presets::preset_info(&self.inner.preset).map_or(String::new(), |p| p.source)
    }

    /// Whether points and scores belong to teams rather than players.
    #[getter]
    fn partnership(&self) -> bool {
        self.inner.partnership
    }

    /// Whether the 54-card deck is used, with the off-jack and jokers as trumps.
    #[getter]
    fn ten_point(&self) -> bool {
        self.inner.settings.deck == DeckSize::FiftyFour
    }

    /// Which cards beyond the plain suits are trumps: `plain`, `jick` or `jokers`.
    #[getter]
    fn deck_kind(&self) -> &'static str {
        self.inner.deck.code()
    }

    /// The points in play each hand, in counting order (High, Low, Jack, ..., Game).
    #[getter]
    fn point_names(&self) -> Vec<&'static str> {
        self.inner.point_names.clone()
    }

    /// What all the points of a hand are worth together.
    #[getter]
    fn points_in_play(&self) -> i32 {
        self.inner.points_in_play
    }

    /// The highest bid: `max_bid`, or every point in play when `max_bid=all`.
    #[getter]
    fn top_bid(&self) -> i32 {
        self.inner.top_bid
    }

    /// The most seats this rule set can deal to.
    #[getter]
    fn max_seats(&self) -> usize {
        self.inner.max_seats()
    }

    /// Cards dealt to each of `players`.
    fn deal_size_for(&self, players: usize) -> u32 {
        self.inner.deal_size_for(players)
    }

    /// Whether hands change after trump is named: a draw, or a deal larger than the hand played.
    fn has_exchange(&self, players: usize) -> bool {
        self.inner.has_exchange(players)
    }

    /// The number a bid word stands for; None for a word that is no bid.
    fn bid_value(&self, word: &str) -> Option<i32> {
        self.inner.bid_value(word)
    }

    /// The shortest `Rules` text naming this rule set from a built-in preset.
    fn to_text(&self) -> &str {
        &self.inner.text
    }

    /// Every key with its value as a `Rules` tag writes it.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for k in KEYS.iter() {
            d.set_item(
                k.name,
                self.inner.settings.format(k.name).unwrap_or_default(),
            )?;
        }
        Ok(d)
    }

    /// `key=value` settings this version of the auditor cannot audit yet.
    fn unsupported(&self) -> Vec<String> {
        self.inner.unsupported.clone()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyRules>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&self.inner.preset, &self.inner.text).hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("Rules({:?})", self.inner.text)
    }

    /// Pickled as its text from a built-in preset, which any process reads alike.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let cls = py.get_type::<PyRules>().into_any();
        let args = PyTuple::new(py, [slf.get().inner.text.clone()])?.into_any();
        PyTuple::new(py, [cls, args])
    }
}

/// The preset named `name`.
#[pyfunction]
pub fn preset(name: &str) -> PyResult<PyRules> {
    presets::preset(name)
        .map(|inner| PyRules { inner })
        .map_err(problem)
}

/// `rules` with the `key=value` words of `text` applied; offsets count from `base_offset`.
#[pyfunction]
#[pyo3(signature = (rules, text, base_offset = 0))]
pub fn with_overrides(rules: &PyRules, text: &str, base_offset: usize) -> PyResult<PyRules> {
    presets::with_overrides(&rules.inner, text, base_offset)
        .map(|inner| PyRules { inner })
        .map_err(problem)
}

/// A game's rule set: its `Rules` tag (None: none), then the run's `--rules` text.
#[pyfunction]
#[pyo3(signature = (tag, over = ""))]
pub fn resolve_rules(tag: Option<&str>, over: &str) -> PyResult<PyRules> {
    presets::resolve(tag, over)
        .map(|inner| PyRules { inner })
        .map_err(problem)
}

/// Every preset's name: the built-in ones in the file's order, then the house presets.
#[pyfunction]
pub fn preset_names() -> Vec<String> {
    presets::preset_names()
}

/// Every rule key: name, meaning, kind, choices, bounds.
#[pyfunction]
pub fn rule_keys(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for k in KEYS.iter() {
        let d = PyDict::new(py);
        d.set_item("name", k.name)?;
        d.set_item("meaning", k.meaning)?;
        d.set_item("kind", k.kind)?;
        d.set_item("choices", k.choices.clone())?;
        d.set_item("bounds", k.bounds)?;
        out.append(d)?;
    }
    Ok(out)
}

/// This run's house presets, each `(name, base, [(key, value)])`; raises ValueError naming the
/// preset and what is wrong (nothing is set then).
#[pyfunction]
pub fn define_house_presets(presets: Vec<presets::HousePreset>) -> PyResult<()> {
    presets::define_house_presets(&presets).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// The house presets in force, as they were defined: `[(name, base, [(key, value)])]`.
#[pyfunction]
pub fn house_presets() -> Vec<presets::HousePreset> {
    presets::house_presets()
}

/// The check of a `Rules` tag's value: `(message, offset)` when it is bad, None when good.
#[pyfunction]
pub fn check_rules(text: &str) -> Option<(String, usize)> {
    presets::parse_rules(text)
        .err()
        .map(|e| (e.message, e.offset))
}

/// A run's rule sets, resolved by the core from each game's `Rules` tag and the run's `--rules`
/// text, once per distinct text, on any thread.
#[pyclass(name = "Resolver", module = "auditor._core", frozen)]
pub struct PyResolver {
    pub inner: std::sync::Arc<Resolver>,
}

#[pymethods]
impl PyResolver {
    #[new]
    #[pyo3(signature = (over = ""))]
    fn new(over: &str) -> PyResolver {
        PyResolver {
            inner: std::sync::Arc::new(Resolver::new(over)),
        }
    }

    /// The rule set of a game's `Rules` tag, or None where it names none.
    fn __call__(&self, tag: Option<&str>) -> Option<PyRules> {
        self.inner.get(tag).map(|r| PyRules {
            inner: (*r).clone(),
        })
    }
}

/// A preset's details: its name, source, base, and every key's value as written.
#[pyfunction]
pub fn preset_info<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(p) = presets::preset_info(name) else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("name", &p.name)?;
    d.set_item("source", &p.source)?;
    d.set_item("base", &p.base)?;
    let values = PyDict::new(py);
    for k in KEYS.iter() {
        values.set_item(k.name, p.settings.format(k.name).unwrap_or_default())?;
    }
    d.set_item("values", values)?;
    Ok(Some(d))
}

/// The points won by taking a card in a trick under `rules` with trump `trump` (0-3), in
/// counting order: `[(name, card, worth)]` (the core's one table: the engine counts by it).
#[pyfunction]
pub fn captured_points(rules: &PyRules, trump: u8) -> Vec<(&'static str, u8, i32)> {
    if trump > 3 {
        return Vec::new();
    }
    crate::engine::points::captured_points(&rules.inner, trump)
        .into_iter()
        .map(|(name, card, worth)| (name, card.index(), worth))
        .collect()
}

/// The off-jack of `trump` (0-3): the jack of the other suit of trump's colour.
#[pyfunction]
pub fn off_jack(trump: u8) -> u8 {
    crate::cards::off_jack(trump.min(3)).index()
}
