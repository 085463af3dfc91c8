//! The Python bindings: `auditor._core`.
//!
//! A parsed game crosses into Python as a handle on the core's record (`py_records`), and
//! back as the same record, for the engine, the writer and the solver. Bench helpers release the GIL while they read.

use crate::cards::Card;
use crate::engine::{self, GameResult};
use crate::notation::parser::{self, Parser};
use crate::notation::{Finding, Game, writer};
use crate::py_finding::PyFinding;
use crate::py_records::{self, PyGame, card_from};
use crate::py_result::PyGameResult;
use crate::py_rules::{PyResolver, PyRules};
use crate::rules::RuleSet;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

type Obj<'py> = Bound<'py, PyAny>;

fn finding_to_py<'py>(py: Python<'py>, f: &Finding, source: &str) -> PyResult<Obj<'py>> {
    Ok(Bound::new(py, PyFinding::of(f, source, ""))?.into_any())
}

/// The core's record of a game handed over from Python (a copy, for callers that own it).
fn game_from(o: &Obj<'_>) -> PyResult<Game> {
    Ok((*py_records::game_of(o)?).clone())
}

// ---------------------------------------------------------------------- the engine

/// One resolved rule set, read once from an `auditor.rules.Rules`.
fn reported_py<'py>(
    py: Python<'py>,
    r: &crate::audit::Reported,
    source: &str,
) -> PyResult<Obj<'py>> {
    Ok(Bound::new(py, PyFinding::of(&r.finding, source, &r.game))?.into_any())
}

/// The run's rule sets, from the core's resolver: no call into Python from a worker thread.
fn resolver(
    resolve: &PyResolver,
) -> impl Fn(Option<&str>) -> Option<std::sync::Arc<RuleSet>> + Send + Sync + use<> {
    let inner = resolve.inner.clone();
    move |tag: Option<&str>| inner.get(tag)
}

/// The core's check of a `Rules` tag, for the parser (E105).
fn core_check() -> parser::RulesCheck {
    Box::new(|value: &str| crate::py_rules::check_rules(value))
}

/// A fresh check for each of a run's parsers.
fn shared_check() -> impl Fn() -> parser::RulesCheck + Sync {
    core_check
}

/// Parse and audit the bytes `start..end` (`end` < 0: to the end) of the file at `path` on
/// `jobs` threads, the GIL released. Returns the findings (as `auditor.notation.Finding`)
/// and the counts: games, hands, cards, unscored hands, bytes.
#[pyfunction]
#[pyo3(signature = (path, start, end, first_line, first_game, jobs, resolve, source=None, progress=None, progress_every=0.1))]
#[allow(clippy::too_many_arguments)]
fn audit_file<'py>(
    py: Python<'py>,
    path: &str,
    start: u64,
    end: i64,
    first_line: u32,
    first_game: u32,
    jobs: usize,
    resolve: PyRef<'py, PyResolver>,
    source: Option<String>,
    progress: Option<Py<PyAny>>,
    progress_every: f64,
) -> PyResult<(Bound<'py, PyList>, u64, u64, u64, u64, u64)> {
    let check = shared_check();
    let resolve = resolver(&resolve);
    let path_owned = path.to_string();
    let source = source.unwrap_or_else(|| path.to_string());
    let source_name = source.clone();
    let (failed, last) = (
        std::sync::Mutex::new(None),
        std::sync::Mutex::new((None, 0)),
    );
    let report = reporter(&progress, progress_every, &failed, &last);
    let summary = py
        .detach(|| -> std::io::Result<crate::audit::Summary> {
            let input = open_span(&path_owned, start, end)?;
            audit_findings(
                input,
                &source_name,
                first_line,
                first_game,
                jobs,
                &check,
                &resolve,
                &report,
            )
        })
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    if let Some(e) = failed.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    Ok((
        findings_py(py, &summary, &source)?,
        summary.games,
        summary.hands,
        summary.cards,
        summary.unscored,
        summary.bytes,
    ))
}

/// Audit the log in `data` (bytes already in memory: `auditor fix` between its passes), lines
/// numbered from `first_line` after `first_game` games. Returns the findings, as `audit_file`.
#[pyfunction]
#[pyo3(signature = (data, source, first_line, first_game, resolve))]
fn audit_bytes<'py>(
    py: Python<'py>,
    data: Vec<u8>,
    source: &str,
    first_line: u32,
    first_game: u32,
    resolve: PyRef<'py, PyResolver>,
) -> PyResult<Bound<'py, PyList>> {
    let check = shared_check();
    let resolve = resolver(&resolve);
    let name = source.to_string();
    let summary = py
        .detach(move || {
            let input = std::io::Cursor::new(data);
            audit_findings(
                input,
                &name,
                first_line,
                first_game,
                1,
                &check,
                &resolve,
                &|_, _, _| {},
            )
        })
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    findings_py(py, &summary, source)
}

/// The audit of a stream for its findings and counts alone: no table rows.
#[allow(clippy::too_many_arguments)]
fn audit_findings(
    input: impl std::io::Read,
    source: &str,
    first_line: u32,
    first_game: u32,
    jobs: usize,
    check: &(dyn Fn() -> parser::RulesCheck + Sync),
    resolve: &crate::audit::Resolver,
    progress: &(dyn Fn(u64, u64, bool) + Sync),
) -> std::io::Result<crate::audit::Summary> {
    crate::audit::audit_stream(
        input,
        source,
        first_line,
        first_game,
        jobs,
        check,
        resolve,
        &|| crate::audit::NoRows,
        &mut |_, _, _| {},
        progress,
        true,
    )
}

/// The bytes of `path` from `start` to `end` (to its end when `end` is negative), read in 1 MB
/// pieces: the span of a log one call audits or imports.
fn open_span(path: &str, start: u64, end: i64) -> std::io::Result<impl std::io::BufRead + Send> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(std::io::SeekFrom::Start(start))?;
    let input: Box<dyn Read + Send> = if end >= 0 {
        Box::new(f.take((end as u64).saturating_sub(start)))
    } else {
        Box::new(f)
    };
    Ok(std::io::BufReader::with_capacity(1 << 20, input))
}

/// Progress for Python: `progress(bytes, hands)` called with the GIL taken, from whichever
/// worker reports (see `audit::audit_stream`), at most once every `every` seconds but always
/// at the end. An exception it raises (Ctrl-C) stops the calls and is kept in `error`, for the
/// caller to raise once the core is done.
fn reporter<'a>(
    progress: &'a Option<Py<PyAny>>,
    every: f64,
    error: &'a std::sync::Mutex<Option<PyErr>>,
    last: &'a std::sync::Mutex<(Option<std::time::Instant>, u64)>,
) -> impl Fn(u64, u64, bool) + Sync + 'a {
    let every = std::time::Duration::from_secs_f64(every.clamp(0.0, 60.0));
    move |nbytes, hands, done| {
        let Some(cb) = progress else { return };
        // one worker reports at a time; the others go on with their slices
        let Some(mut at) = (if done {
            last.lock().ok()
        } else {
            last.try_lock().ok()
        }) else {
            return;
        };
        // never backwards: two workers may count before and report after each other
        if nbytes < at.1 || (!done && at.0.is_some_and(|t| t.elapsed() < every)) {
            return;
        }
        *at = (Some(std::time::Instant::now()), nbytes);
        let Ok(mut err) = error.lock() else { return };
        if err.is_none() {
            if let Err(e) = Python::attach(|py| cb.bind(py).call1((nbytes, hands)).map(|_| ())) {
                *err = Some(e);
            }
        }
    }
}

/// An audit's findings as `auditor.notation.Finding` objects, each naming `source`.
fn findings_py<'py>(
    py: Python<'py>,
    summary: &crate::audit::Summary,
    source: &str,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for r in &summary.findings {
        out.append(reported_py(py, r, source)?)?;
    }
    Ok(out)
}

/// The Parquet files of one staged batch, written by the core: `import_file` appends each
/// piece's row groups, `write_findings` the findings Python made itself, `close` the footers.
#[pyclass(name = "BatchFiles", module = "auditor._core", frozen)]
struct PyBatchFiles {
    derived: bool,
    inner: std::sync::Mutex<Option<crate::columns::BatchFiles>>,
}

/// An I/O error for Python, with its errno where the system gave one (a full disk).
fn io_err(e: std::io::Error) -> PyErr {
    match e.raw_os_error() {
        Some(code) => pyo3::exceptions::PyOSError::new_err((code, e.to_string())),
        None => pyo3::exceptions::PyOSError::new_err(e.to_string()),
    }
}

fn poisoned() -> PyErr {
    pyo3::exceptions::PyOSError::new_err(
        "the batch's files were left in a bad state by a failed write",
    )
}

impl PyBatchFiles {
    /// The open files, for the time of a call (`None`: closed already).
    fn with<T>(
        &self,
        f: impl FnOnce(&mut crate::columns::BatchFiles) -> std::io::Result<T>,
    ) -> PyResult<T> {
        let mut guard = self.inner.lock().map_err(|_| poisoned())?;
        let files = guard
            .as_mut()
            .ok_or_else(|| pyo3::exceptions::PyOSError::new_err("the batch is closed"))?;
        f(files).map_err(io_err)
    }
}

#[pymethods]
impl PyBatchFiles {
    /// The files of the batch staged in `dir`; with `derived`, its derived tables too (the
    /// counters, which `import_file` computes).
    #[new]
    #[pyo3(signature = (dir, derived=false))]
    fn new(dir: std::path::PathBuf, derived: bool) -> PyResult<PyBatchFiles> {
        let files =
            crate::columns::BatchFiles::new(&dir, derived).map_err(PyValueError::new_err)?;
        Ok(PyBatchFiles {
            derived,
            inner: std::sync::Mutex::new(Some(files)),
        })
    }

    /// Add rows to the findings table for findings Python made outside any game (a path that
    /// cannot be read, a file that is not text).
    fn write_findings(&self, found: Vec<PyRef<'_, PyFinding>>) -> PyResult<()> {
        let rows: Vec<crate::tables::FindingRow> = found.iter().map(|f| f.row()).collect();
        let spec = std::sync::Arc::new(crate::tables::Spec {
            source: String::new(),
            now_us: 0,
            analyze: false,
            derived: false,
            keys: std::sync::Arc::default(),
            piece_bytes: crate::audit::PIECE_BYTES,
        });
        let (t, batch) =
            crate::tables::Rows::stray_batch(spec, &rows).map_err(PyValueError::new_err)?;
        self.with(|files| files.write(t, &batch))
    }

    /// Finish every file; returns the rows written per table.
    fn close(&self) -> PyResult<Vec<(String, u64)>> {
        let mut guard = self.inner.lock().map_err(|_| poisoned())?;
        match guard.take() {
            Some(mut files) => files.close().map_err(io_err),
            None => Ok(Vec::new()),
        }
    }
}

/// The games an import has met, by key (16 bytes each): seeded with the dataset's, grown as
/// games are stored, so that a game is stored once within a run as across runs.
#[pyclass(name = "GameKeys", module = "auditor._core", frozen)]
struct PyGameKeys {
    inner: std::sync::Arc<crate::tables::GameKeys>,
}

#[pymethods]
impl PyGameKeys {
    #[new]
    #[pyo3(signature = (keys=Vec::new()))]
    fn new(keys: Vec<String>) -> PyGameKeys {
        let k = PyGameKeys {
            inner: std::sync::Arc::default(),
        };
        k.update(keys);
        k
    }

    /// Add keys (hex, as the tables write them; anything else is not a key and is left out).
    fn update(&self, keys: Vec<String>) {
        for k in keys
            .iter()
            .filter_map(|k| crate::tables::GameKeys::parse(k))
        {
            self.inner.insert(k);
        }
    }

    /// Forget keys (the games of a piece of work that is run again).
    fn discard(&self, keys: Vec<String>) {
        for k in keys
            .iter()
            .filter_map(|k| crate::tables::GameKeys::parse(k))
        {
            self.inner.remove(k);
        }
    }

    fn __contains__(&self, key: &str) -> bool {
        crate::tables::GameKeys::parse(key).is_some_and(|k| self.inner.contains(k))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// The dataset's schemas, `schemas/tables.json`, as compiled into the core.
#[pyfunction]
fn schema_json() -> &'static str {
    crate::columns::SCHEMA_JSON
}

/// What `import_file` gives back: the findings (with their game's key; empty unless asked
/// for), every game read (key, stored by this call, legacy key), the findings stored, and the
/// counts: games, hands, cards, unscored hands, bytes.
type Imported<'py> = (
    Bound<'py, PyList>,
    Vec<(String, bool, Option<String>)>,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
);

/// Parse, audit and turn into the dataset's tables the bytes `start..end` of the file at
/// `path`, on `jobs` threads, the GIL released: each piece's tables are built and encoded on
/// its worker, and appended in input order to `files`, each game once (`keys`: the games
/// already stored, grown with those stored here). With `analyze`, the analysis table too.
#[pyfunction]
#[pyo3(signature = (path, start, end, first_line, first_game, jobs, resolve, files, keys, now_us, source=None, analyze=false, keep_findings=true, progress=None, progress_every=0.1))]
#[allow(clippy::too_many_arguments)]
fn import_file<'py>(
    py: Python<'py>,
    path: &str,
    start: u64,
    end: i64,
    first_line: u32,
    first_game: u32,
    jobs: usize,
    resolve: PyRef<'py, PyResolver>,
    files: &PyBatchFiles,
    keys: &PyGameKeys,
    now_us: i64,
    source: Option<String>,
    analyze: bool,
    keep_findings: bool,
    progress: Option<Py<PyAny>>,
    progress_every: f64,
) -> PyResult<Imported<'py>> {
    let schema = crate::columns::schema().map_err(PyValueError::new_err)?;
    // the bytes to read, for the size of the pieces (a file that cannot be read is said below)
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    let span = u64::try_from(end)
        .map_or(len, |e| e.min(len))
        .saturating_sub(start);
    let spec = std::sync::Arc::new(crate::tables::Spec {
        source: source.clone().unwrap_or_else(|| path.to_string()),
        now_us,
        analyze,
        derived: files.derived,
        keys: keys.inner.clone(),
        piece_bytes: crate::tables::piece_bytes(analyze, span, jobs),
    });
    let check = shared_check();
    let resolve = resolver(&resolve);
    let path_owned = path.to_string();
    let mut games: Vec<(String, bool, Option<String>)> = Vec::new();
    let mut stored = 0u64;
    let (failed, last) = (
        std::sync::Mutex::new(None),
        std::sync::Mutex::new((None, 0)),
    );
    let report = reporter(&progress, progress_every, &failed, &last);
    let summary = py
        .detach(|| -> std::io::Result<crate::audit::Summary> {
            let input = open_span(&path_owned, start, end)?;
            let mut guard = files
                .inner
                .lock()
                .map_err(|_| std::io::Error::other("batch files poisoned"))?;
            let out = guard
                .as_mut()
                .ok_or_else(|| std::io::Error::other("the batch is closed"))?;
            let mut error: Option<std::io::Error> = None;
            let summary = crate::audit::audit_stream(
                input,
                &spec.source,
                first_line,
                first_game,
                jobs,
                &check,
                &resolve,
                &|| crate::tables::Rows::new(spec.clone(), schema),
                &mut |piece: crate::tables::Rows, rename, offset| {
                    if error.is_some() {
                        return;
                    }
                    match crate::tables::merge_piece(piece, rename, offset, &spec.keys, out) {
                        Ok(m) => {
                            stored += m.findings;
                            games.extend(m.games);
                        }
                        Err(e) => error = Some(e),
                    }
                },
                &report,
                keep_findings,
            )?;
            match error {
                Some(e) => Err(e),
                None => Ok(summary),
            }
        })
        .map_err(io_err)?;
    if let Some(e) = failed.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    let found = PyList::empty(py);
    for r in &summary.findings {
        found.append((r.key.clone(), reported_py(py, r, &spec.source)?))?;
    }
    Ok((
        found,
        games,
        stored,
        summary.games,
        summary.hands,
        summary.cards,
        summary.unscored,
        summary.bytes,
    ))
}

/// Where to cut the file at `path` into chunks of about `chunk_bytes` at game boundaries:
/// `[(start, end, first_line, games_before)]`, `end` -1 for the last.
#[pyfunction]
fn split_file(py: Python<'_>, path: &str, chunk_bytes: u64) -> PyResult<Vec<(u64, i64, u32, u32)>> {
    let path = path.to_string();
    py.detach(move || crate::scan::split_file(&path, chunk_bytes))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

/// Every finding code's declaration, as dicts: code, kind, severity, title, why, example, fix,
/// fix_title, section, and its cases (name, fields, template).
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for d in crate::findings::CATALOG {
        let x = PyDict::new(py);
        x.set_item("code", d.code.as_str())?;
        x.set_item("kind", d.code.kind())?;
        x.set_item("severity", d.severity.as_str())?;
        x.set_item("title", d.title)?;
        x.set_item("why", d.why)?;
        x.set_item("example", d.example)?;
        x.set_item("fix", d.fix.as_str())?;
        x.set_item("fix_title", d.fix_title)?;
        x.set_item("section", d.section)?;
        let cases = PyList::empty(py);
        for c in d.cases {
            let y = PyDict::new(py);
            y.set_item("name", c.name)?;
            y.set_item("fields", c.fields.to_vec())?;
            y.set_item("template", c.template)?;
            cases.append(y)?;
        }
        x.set_item("cases", cases)?;
        out.append(x)?;
    }
    Ok(out)
}

/// The deck shape named `code` (`plain`, `jick`, `jokers`: `Rules.deck_kind`).
fn deck_from(code: &str) -> PyResult<crate::cards::Deck> {
    crate::cards::Deck::from_code(code).ok_or_else(|| {
        PyValueError::new_err(format!("unknown deck kind {code:?} (plain, jick, jokers)"))
    })
}

/// How every card plays under `trump` (-1: not known) and a deck shape (`plain`, `jick`,
/// `jokers`): its suit in play (4: a joker while no trump) and its strength among the trumps
/// (-1: no trump), indexed by card.
#[pyfunction]
#[pyo3(signature = (trump, deck="plain"))]
fn trump_table(trump: i32, deck: &str) -> PyResult<(Vec<i32>, Vec<i32>)> {
    let t = crate::cards::TrumpTable::get(trump, deck_from(deck)?);
    Ok((0..54u8)
        .filter_map(Card::new)
        .map(|c| (t.suit(c), t.strength(c)))
        .unzip())
}

/// The seats in the order they speak in the auction, for `seats` players and `dealer`.
#[pyfunction]
fn speaking_order(rules: &PyRules, seats: usize, dealer: i32) -> Vec<i32> {
    engine::auction::speaking_order(&rules.inner, seats, dealer)
}

/// The position in play order of the card that takes a trick.
#[pyfunction]
#[pyo3(signature = (cards, trump, deck="plain"))]
fn trick_winner(cards: Vec<u8>, trump: i32, deck: &str) -> PyResult<usize> {
    let cards: Vec<Card> = cards.into_iter().map(card_from).collect::<PyResult<_>>()?;
    Ok(crate::cards::TrumpTable::get(trump, deck_from(deck)?).winner_pos(cards))
}

/// The cards of `held` (a mask) a player may play to trick `trick` (0-based) under `rules`,
/// with trump `trump`, the hand's first card led `lead`, and this trick's first card `led` (None: leading).
#[pyfunction]
#[pyo3(signature = (rules, trump, held, trick, lead=None, led=None))]
fn legal_cards(
    rules: &PyRules,
    trump: i32,
    held: u64,
    trick: usize,
    lead: Option<u8>,
    led: Option<u8>,
) -> PyResult<u64> {
    let table = crate::cards::TrumpTable::get(trump, rules.inner.deck);
    let lead = lead.map(card_from).transpose()?;
    let led = led.map(card_from).transpose()?;
    let rule = engine::play::FollowRule::of(&rules.inner, table, trick, lead);
    Ok(engine::play::legal(rule, table, held, led))
}

/// Simulate `games` games under `rules` with `players` seats on `jobs` threads (the GIL
/// released while the bots play), handing the text to `write(str)` a piece at a time, in order.
/// `faults` are fault names (`revoke`, `score`, `total`, `winner`); games are named
/// `{id_prefix}-{N}`. Returns the answer key: one dict per finding the faults must cause.
#[pyfunction]
#[pyo3(signature = (rules, games, seed, players, faults, id_prefix, jobs, write))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    rules: &PyRules,
    games: usize,
    seed: u64,
    players: usize,
    faults: Vec<String>,
    id_prefix: String,
    jobs: usize,
    write: Py<PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    use crate::simulate::{Fault, Options, SimError};
    let faults = faults
        .iter()
        .map(|w| {
            Fault::from_word(w).ok_or_else(|| {
                let known: Vec<&str> = Fault::ALL.iter().map(|f| f.word()).collect();
                PyValueError::new_err(format!("unknown fault {w:?} (known: {})", known.join(", ")))
            })
        })
        .collect::<PyResult<Vec<Fault>>>()?;
    let opts = Options {
        games,
        seed,
        players,
        faults,
        id_prefix,
        jobs,
    };
    let failed: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
    let key = py.detach(|| {
        crate::simulate::simulate(&rules.inner, &opts, &mut |text| {
            Python::attach(|py| write.bind(py).call1((text,)).map(|_| ())).map_err(|e| {
                if let Ok(mut f) = failed.lock() {
                    *f = Some(e);
                }
                std::io::Error::other("the writer failed")
            })
        })
    });
    if let Some(e) = failed.lock().ok().and_then(|mut f| f.take()) {
        return Err(e);
    }
    let key = key.map_err(|e| match e {
        SimError::Seats(m) => PyValueError::new_err(m),
        SimError::Write(e) => pyo3::exceptions::PyOSError::new_err(e.to_string()),
    })?;
    let out = PyList::empty(py);
    for e in &key {
        let d = PyDict::new(py);
        d.set_item("game", &e.game)?;
        d.set_item("line", e.line)?;
        d.set_item("code", e.code.as_str())?;
        d.set_item("hand", e.hand)?;
        d.set_item("player", &e.player)?;
        if let Some(t) = e.trick {
            d.set_item("trick", t)?;
        }
        out.append(d)?;
    }
    Ok(out)
}

/// Audit games given as `auditor.notation.Game` records, each with its rule set (or None:
/// not audited). Returns one dict per game for `auditor.engine` to build its results from.
#[pyfunction]
fn audit_records(
    py: Python<'_>,
    games: &Bound<'_, PyAny>,
    rules: Vec<Option<Py<PyRules>>>,
) -> PyResult<Vec<PyGameResult>> {
    let mut records = Vec::new();
    let mut parsed: Vec<std::sync::Arc<Game>> = Vec::new();
    for g in games.try_iter()? {
        let g = g?;
        parsed.push(py_records::game_of(&g)?);
        records.push(g.unbind());
    }
    let sets: Vec<Option<RuleSet>> = rules
        .iter()
        .map(|r| r.as_ref().map(|r| r.get().inner.clone()))
        .collect();
    let results: Vec<Option<GameResult>> = py.detach(|| {
        parsed
            .iter()
            .zip(&sets)
            .map(|(g, r)| r.as_ref().map(|r| engine::audit_game(g, r)))
            .collect()
    });
    let mut out = Vec::with_capacity(records.len());
    for (((record, game), res), r) in records.into_iter().zip(parsed).zip(results).zip(rules) {
        let source: String = record.bind(py).getattr("source")?.extract()?;
        let name: String = record.bind(py).getattr("name")?.extract()?;
        out.push(PyGameResult::new(py, record, r, game, res, &source, &name)?);
    }
    Ok(out)
}

/// One hand's examination as a dict (or the reason it cannot be examined, as a str); with
/// `plays` false, only the cards that cost something are listed.
fn analysis_py<'py>(
    py: Python<'py>,
    a: &Result<engine::analysis::HandAnalysis, engine::solver::NotAnalysable>,
    plays: bool,
) -> PyResult<Obj<'py>> {
    let a = match a {
        Ok(a) => a,
        Err(e) => return Ok(PyString::new(py, &e.0).into_any()),
    };
    let d = PyDict::new(py);
    d.set_item("pitcher", a.pitcher)?;
    d.set_item("contract", a.contract)?;
    d.set_item("trump", a.trump)?;
    d.set_item("par", a.par)?;
    d.set_item("par_by_trump", a.par_by_trump.clone())?;
    d.set_item("par_by_trump_unknown", a.par_by_trump_unknown.clone())?;
    d.set_item("result", a.result)?;
    d.set_item("claim", a.claim)?;
    d.set_item("nodes", a.nodes)?;
    let list = PyList::empty(py);
    for p in a.plays.iter().filter(|p| plays || p.cost > 0) {
        let best: Vec<u8> = p.best.iter().map(|c| c.index()).collect();
        list.append((
            p.trick,
            p.pos,
            p.seat,
            p.card.index(),
            p.before,
            p.after,
            p.cost,
            p.illegal,
            best,
        ))?;
    }
    d.set_item("plays", list)?;
    let revokes = PyList::empty(py);
    for r in &a.revokes {
        let line: Vec<(i32, u8)> = r.line.iter().map(|&(s, c)| (s, c.index())).collect();
        revokes.append((r.trick, r.pos, r.seat, r.innocent, r.sure, r.took, line))?;
    }
    d.set_item("revokes", revokes)?;
    let perfect: Vec<(i32, u8)> = a.perfect.iter().map(|&(s, c)| (s, c.index())).collect();
    d.set_item("perfect", perfect)?;
    Ok(d.into_any())
}

/// A hand's examination and the microseconds it took.
type Timed = (
    Result<engine::analysis::HandAnalysis, engine::solver::NotAnalysable>,
    u64,
);

/// A game examined: its seats, and per hand kept (its number, and its examination: None for
/// a hand thrown in or misdealt).
type Examined = Option<(engine::Seats, Vec<(u32, Option<Timed>)>)>;

/// Audit every game, then examine every hand kept by `keep` (game, hand number), on `jobs`
/// threads: the games are audited one per thread at a time, then the hands examined one per
/// thread at a time, so a long hand never holds up a whole share of the games.
fn examine(
    games: &[Game],
    sets: &[Option<std::sync::Arc<RuleSet>>],
    jobs: usize,
    depth: engine::analysis::Depth,
    keep: &(dyn Fn(usize, u32) -> bool + Sync),
) -> Vec<Examined> {
    use engine::analysis::{analyse_hand, in_parallel};
    let pairs: Vec<(&Game, Option<&std::sync::Arc<RuleSet>>)> = games
        .iter()
        .zip(
            sets.iter()
                .map(Option::as_ref)
                .chain(std::iter::repeat(None)),
        )
        .collect();
    let audited = in_parallel(&pairs, jobs, |(g, r)| r.map(|r| engine::audit_game(g, r)));
    let mut work = Vec::new();
    for (gi, res) in audited.iter().enumerate() {
        let Some(res) = res.as_ref().and_then(Option::as_ref) else {
            continue;
        };
        for (hi, (prep, hs)) in res.preps.iter().zip(&res.hands).enumerate() {
            let played =
                hs.status != engine::Status::ThrownIn && hs.status != engine::Status::Misdeal;
            if played && keep(gi, prep.number) {
                work.push((gi, hi));
            }
        }
    }
    let examined = in_parallel(&work, jobs, |&(gi, hi)| {
        let res = audited.get(gi)?.as_ref()?.as_ref()?;
        let (prep, hs) = (res.preps.get(hi)?, res.hands.get(hi)?);
        let rules = pairs.get(gi)?.1?;
        let seats = res.seats.as_ref()?;
        let t = std::time::Instant::now();
        let a = analyse_hand(prep, hs, rules, seats, depth);
        Some((a, t.elapsed().as_micros() as u64))
    });
    let mut by_hand: std::collections::HashMap<(usize, usize), Option<Timed>> = work
        .iter()
        .copied()
        .zip(examined.into_iter().map(Option::flatten))
        .collect();
    audited
        .into_iter()
        .enumerate()
        .map(|(gi, res)| {
            let res = res.flatten()?;
            let seats = res.seats.clone()?;
            let hands = res
                .preps
                .iter()
                .enumerate()
                .filter(|&(_, prep)| keep(gi, prep.number))
                .map(|(hi, prep)| (prep.number, by_hand.remove(&(gi, hi)).flatten()))
                .collect();
            Some((seats, hands))
        })
        .collect()
}

/// Per game examined (None: not audited): a dict of `names`, `sides`, `side_of` and `hands`,
/// the hands a list of (number, (examination, microseconds) or None), and `name` when given.
fn examined_py<'py>(
    py: Python<'py>,
    results: &[Examined],
    names: Option<&[String]>,
    plays: bool,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (gi, r) in results.iter().enumerate() {
        match r {
            None => out.append(py.None())?,
            Some((seats, hands)) => {
                let l = PyList::empty(py);
                for (number, h) in hands {
                    match h {
                        None => l.append((number, py.None()))?,
                        Some((a, micros)) => {
                            l.append((number, (analysis_py(py, a, plays)?, *micros)))?
                        }
                    }
                }
                let d = PyDict::new(py);
                if let Some(name) = names.and_then(|n| n.get(gi)) {
                    d.set_item("name", name)?;
                }
                d.set_item("names", &seats.names)?;
                d.set_item("sides", &seats.side_names)?;
                d.set_item("side_of", &seats.side_of)?;
                d.set_item("hands", l)?;
                out.append(d)?;
            }
        }
    }
    Ok(out)
}

fn depth_of(full: bool) -> engine::analysis::Depth {
    if full {
        engine::analysis::Depth::Full
    } else {
        engine::analysis::Depth::Costs
    }
}

/// Examine every scored hand of games given as `auditor.notation.Game` records under perfect
/// play, on `jobs` threads with the GIL released. Per game (None: not audited) a dict of
/// `names`, `sides`, `side_of` and `hands`; per hand, its number and: a dict (par, result,
/// each card's cost, the claim, the revokes' damage) or the reason the hand cannot be
/// examined (a str), with the microseconds it took; or None for a hand that was not played.
/// `full=False` leaves out par with the other trumps and the claim; `plays=False` lists only
/// the cards that cost something.
#[pyfunction]
#[pyo3(signature = (games, rules, jobs=1, full=true, plays=true))]
fn analyze_records<'py>(
    py: Python<'py>,
    games: &Bound<'py, PyAny>,
    rules: Vec<Option<Py<PyRules>>>,
    jobs: usize,
    full: bool,
    plays: bool,
) -> PyResult<Bound<'py, PyList>> {
    let mut parsed: Vec<Game> = Vec::new();
    for g in games.try_iter()? {
        parsed.push(game_from(&g?)?);
    }
    let sets: Vec<Option<std::sync::Arc<RuleSet>>> = rules
        .iter()
        .map(|r| {
            r.as_ref()
                .map(|r| std::sync::Arc::new(r.get().inner.clone()))
        })
        .collect();
    let results = py.detach(|| examine(&parsed, &sets, jobs, depth_of(full), &|_, _| true));
    examined_py(py, &results, None, plays)
}

/// Parse the log in `data` (named `source`) and examine its hands as `analyze_records` does,
/// `resolve` giving each game's rule set from its `Rules` tag. Only the game `game` (its name,
/// or failing that its number in the file) and the hand numbered `hand`, when given. Returns
/// the number of games in the log, the parser's findings (as `auditor.notation.Finding`), and
/// per game examined its dict (with its `name`), `None` for a game whose rules do not resolve.
#[pyfunction]
#[pyo3(signature = (data, source, resolve, jobs=1, full=true, plays=true, game=None, hand=None))]
#[allow(clippy::too_many_arguments)]
fn analyze_bytes<'py>(
    py: Python<'py>,
    data: Vec<u8>,
    source: &str,
    resolve: PyRef<'py, PyResolver>,
    jobs: usize,
    full: bool,
    plays: bool,
    game: Option<String>,
    hand: Option<u32>,
) -> PyResult<(usize, Bound<'py, PyList>, Bound<'py, PyList>)> {
    let resolve = resolver(&resolve);
    let source_name = source.to_string();
    let (mut parsed, found) = py.detach(move || {
        let mut p = Parser::new(&source_name, 1, 0).with_rules_check(core_check());
        p.feed(&data);
        p.finish();
        (p.take_games(), p.take_findings())
    });
    let in_log = parsed.len();
    let findings = PyList::empty(py);
    for f in &found {
        findings.append(finding_to_py(py, f, source)?)?;
    }
    let label = parser::file_label(source);
    let mut names: Vec<String> = parsed
        .iter()
        .map(|g| parser::game_name(&label, g))
        .collect();
    if let Some(wanted) = &game {
        // the game named so, else the game of that number in the file
        let mut keep: Vec<usize> = (0..names.len())
            .filter(|&i| names.get(i) == Some(wanted))
            .collect();
        if keep.is_empty() {
            if let Some(k) = wanted
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| wanted.parse::<usize>().ok())
                .flatten()
                .filter(|&k| (1..=parsed.len()).contains(&k))
            {
                keep.push(k - 1);
            }
        }
        let mut i = 0;
        parsed.retain(|_| {
            i += 1;
            keep.contains(&(i - 1))
        });
        let mut i = 0;
        names.retain(|_| {
            i += 1;
            keep.contains(&(i - 1))
        });
    }
    let sets: Vec<Option<std::sync::Arc<RuleSet>>> =
        parsed.iter().map(|g| resolve(g.tag("Rules"))).collect();
    let keep = move |_: usize, number: u32| hand.is_none_or(|h| h == number);
    let results = py.detach(|| examine(&parsed, &sets, jobs, depth_of(full), &keep));
    Ok((
        in_log,
        findings,
        examined_py(py, &results, Some(&names), plays)?,
    ))
}

// ---------------------------------------------------------------------- the module

/// A streaming parser over a stream of bytes: feed chunks, take games and findings.
#[pyclass(name = "Parser", module = "auditor._core")]
struct PyParser {
    inner: Parser,
    source: Py<PyString>,
}

fn take<'py>(
    py: Python<'py>,
    p: &mut Parser,
    source: &Py<PyString>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
    let src = source.bind(py).to_str()?;
    let games = PyList::empty(py);
    for g in p.take_games() {
        games.append(Py::new(py, PyGame::of(g, src))?)?;
    }
    let findings = PyList::empty(py);
    for f in p.take_findings() {
        findings.append(finding_to_py(py, &f, source.bind(py).to_str()?)?)?;
    }
    Ok((games, findings))
}

#[pymethods]
impl PyParser {
    /// `Parser(source, first_line=1, first_game=0, check_rules=True)`: with `check_rules`, a bad
    /// `Rules` tag is an E105 (the core's check of its presets and keys).
    #[new]
    #[pyo3(signature = (source, first_line=1, first_game=0, check_rules=true))]
    fn new(
        py: Python<'_>,
        source: &str,
        first_line: u32,
        first_game: u32,
        check_rules: bool,
    ) -> Self {
        let mut inner = Parser::new(source, first_line, first_game);
        if check_rules {
            inner = inner.with_rules_check(core_check());
        }
        PyParser {
            inner,
            source: PyString::new(py, source).unbind(),
        }
    }

    /// Feed a chunk; returns the games completed and the findings ready so far.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
        self.inner.feed(data);
        take(py, &mut self.inner, &self.source)
    }

    /// The end of the input: returns the last games and findings.
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
        self.inner.finish();
        take(py, &mut self.inner, &self.source)
    }
}

/// What a game without a `GameId` is called after: its file's base name.
#[pyfunction]
fn file_label(source: &str) -> String {
    parser::file_label(source)
}

/// Read a card token: its number (0 to 53), or `None` when it is not one.
#[pyfunction]
fn parse_card(token: &str) -> Option<u8> {
    Card::parse(token).map(Card::index)
}

/// Whether the first block of a stream is not text (NUL bytes, or mostly not UTF-8).
#[pyfunction]
fn looks_binary(head: &[u8]) -> bool {
    parser::looks_binary(head)
}

/// The canonical text of games given as `auditor.notation.Game` records.
#[pyfunction]
fn write_games(games: &Bound<'_, PyAny>) -> PyResult<String> {
    let gs = games
        .try_iter()?
        .map(|g| py_records::game_of(&g?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(writer::write_games(gs.iter().map(|g| &**g)))
}

/// The key of a game given as an `auditor.notation.Game` record: the hash of its canonical text.
#[pyfunction]
fn game_key(game: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(writer::game_key(&*py_records::game_of(game)?))
}

/// Parse `data` and write it back in canonical form: `(text, findings)`.
#[pyfunction]
#[pyo3(signature = (data, source))]
fn format_bytes<'py>(
    py: Python<'py>,
    data: &[u8],
    source: &str,
) -> PyResult<(String, Bound<'py, PyList>)> {
    let mut p = Parser::new(source, 1, 0).with_rules_check(core_check());
    p.feed(data);
    p.finish();
    let text = writer::write_games(&p.take_games());
    let (_, findings) = take(py, &mut p, &PyString::new(py, source).unbind())?;
    Ok((text, findings))
}

/// Read a `Teams` tag: `({team: (players...)}, error or None)`.
#[pyfunction]
fn parse_teams<'py>(py: Python<'py>, text: &str) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
    let (teams, err) = parser::parse_teams(text);
    let d = PyDict::new(py);
    for (name, members) in teams {
        d.set_item(name, PyTuple::new(py, members)?)?;
    }
    Ok((d, err))
}

/// Parse a file in Rust only, with the GIL released: counts of what was read. For benches
/// (`general`: every line by the general path, the lexer's fast path off).
#[pyfunction]
#[pyo3(signature = (path, general=false))]
fn scan_file(py: Python<'_>, path: &str, general: bool) -> PyResult<(u64, u64, u64, u64, u64)> {
    let path = path.to_string();
    py.detach(move || crate::scan::scan_file_by(&path, general))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

/// Count the lines of a file with the same reader `scan_file` uses: the floor for benches.
#[pyfunction]
fn count_lines(py: Python<'_>, path: &str) -> PyResult<(u64, u64)> {
    let path = path.to_string();
    py.detach(move || crate::scan::count_lines(&path))
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

/// The compiled core of auditor.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParser>()?;
    m.add_class::<PyRules>()?;
    m.add_class::<PyResolver>()?;
    py_records::register(m)?;
    m.add_class::<PyGameResult>()?;
    m.add_class::<crate::py_result::PyHandScore>()?;
    m.add_class::<crate::py_result::PyPrepared>()?;
    m.add(
        "RulesProblem",
        m.py().get_type::<crate::py_rules::RulesProblem>(),
    )?;
    m.add_function(wrap_pyfunction!(crate::py_rules::preset, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::with_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::resolve_rules, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::preset_info, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::rule_keys, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::define_house_presets, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::house_presets, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::check_rules, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::captured_points, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_rules::off_jack, m)?)?;
    m.add_class::<PyFinding>()?;
    m.add_function(wrap_pyfunction!(crate::py_finding::_finding_from, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_finding::path_finding, m)?)?;
    m.add_function(wrap_pyfunction!(crate::py_finding::not_text_finding, m)?)?;
    m.add_function(wrap_pyfunction!(audit_records, m)?)?;
    m.add_function(wrap_pyfunction!(trick_winner, m)?)?;
    m.add_function(wrap_pyfunction!(audit_file, m)?)?;
    m.add_function(wrap_pyfunction!(audit_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(import_file, m)?)?;
    m.add_function(wrap_pyfunction!(schema_json, m)?)?;
    m.add_class::<PyBatchFiles>()?;
    m.add_class::<PyGameKeys>()?;
    m.add_function(wrap_pyfunction!(split_file, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_records, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(trump_table, m)?)?;
    m.add_function(wrap_pyfunction!(speaking_order, m)?)?;
    m.add_function(wrap_pyfunction!(legal_cards, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_card, m)?)?;
    m.add_function(wrap_pyfunction!(file_label, m)?)?;
    m.add_function(wrap_pyfunction!(looks_binary, m)?)?;
    m.add_function(wrap_pyfunction!(write_games, m)?)?;
    m.add_function(wrap_pyfunction!(game_key, m)?)?;
    m.add_function(wrap_pyfunction!(format_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_teams, m)?)?;
    m.add_function(wrap_pyfunction!(scan_file, m)?)?;
    m.add_function(wrap_pyfunction!(count_lines, m)?)?;
    m.add("SNIFF_BYTES", parser::SNIFF_BYTES)?;
    m.add("PITCH_VALUE", crate::rules::PITCH_VALUE)?;
    m.add("NOTATION_VERSION", crate::notation::NOTATION_VERSION)?;
    m.add("MAX_HAND", crate::notation::MAX_HAND)?;
    m.add("MAX_TRICK", crate::notation::MAX_TRICK)?;
    m.add("MAX_SCORE", crate::notation::MAX_SCORE)?;
    Ok(())
}
