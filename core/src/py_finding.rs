//! `auditor._core.Finding`: a finding as Python sees it, made by the core from its typed facts.
//!
//! The message, the typed fields, the two sides compared and the edits all come from the
//! finding's one declaration (`crate::findings`); Python reads them through getters. A finding
//! made on the Python side (a path that cannot be read, a row read back from a dataset) is
//! given its message and fields as they were made or stored.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::findings::{Code, Edit, Finding, FixEdits, Repeats, Value};

/// One finding: where it is, which code and case, its typed fields, and the fix it carries.
#[pyclass(name = "Finding", module = "auditor._core", frozen)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyFinding {
    code: Code,
    case: String,
    message: String,
    fields: Vec<(String, Value)>,
    expected: Option<String>,
    recorded: Option<String>,
    source: String,
    line: u32,
    column: u32,
    game: String,
    hand: Option<u32>,
    trick: Option<u32>,
    subject: Option<String>,
    fix: Option<FixEdits>,
    repeats: Option<Repeats>,
}

impl PyFinding {
    /// The Python view of a core finding, naming `source` (and `game`, where the finding's own
    /// is empty).
    pub fn of(f: &Finding, source: &str, game: &str) -> PyFinding {
        let compared = f.facts.compared();
        PyFinding {
            code: f.code(),
            case: f.facts.case().to_string(),
            message: f.message(),
            fields: f
                .facts
                .fields()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            expected: compared.as_ref().map(|c| c.0.clone()),
            recorded: compared.map(|c| c.1),
            source: source.to_string(),
            line: f.line,
            column: f.column,
            game: if f.game.is_empty() {
                game.to_string()
            } else {
                f.game.clone()
            },
            hand: f.hand,
            trick: f.trick,
            subject: f.subject.clone(),
            fix: f.fix.clone(),
            repeats: f.repeats.clone(),
        }
    }
}

impl PyFinding {
    /// The finding as the dataset's findings table stores it.
    pub fn row(&self) -> crate::tables::FindingRow {
        let fields: Vec<(&str, Value)> = self
            .fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        crate::tables::FindingRow {
            code: self.code,
            game: self.game.clone(),
            source: self.source.clone(),
            line: self.line,
            column: self.column,
            hand: self.hand,
            trick: self.trick,
            subject: self.subject.clone(),
            message: self.message.clone(),
            expected: self.expected.clone(),
            recorded: self.recorded.clone(),
            fields: crate::findings::fields_json(&fields),
        }
    }
}

/// A finding's field or a rule's value as Python has it; `frozen`: a list as a tuple (a rule
/// set's values are frozen), else as a list (a finding's fields, as JSON shows them).
pub(crate) fn value_py<'py>(
    py: Python<'py>,
    v: &Value,
    frozen: bool,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(n) => n.into_pyobject(py)?.into_any(),
        Value::Text(s) => s.into_pyobject(py)?.into_any(),
        Value::List(items) => {
            let out: Vec<Bound<'py, PyAny>> = items
                .iter()
                .map(|x| value_py(py, x, frozen))
                .collect::<PyResult<_>>()?;
            if frozen {
                PyTuple::new(py, out)?.into_any()
            } else {
                PyList::new(py, out)?.into_any()
            }
        }
    })
}

fn value_from(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    if o.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = o.cast::<pyo3::types::PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(n) = o.extract::<i64>() {
        return Ok(Value::Int(n));
    }
    if let Ok(s) = o.extract::<String>() {
        return Ok(Value::Text(s));
    }
    if let Ok(items) = o.try_iter() {
        return Ok(Value::List(
            items.map(|x| value_from(&x?)).collect::<PyResult<_>>()?,
        ));
    }
    Err(PyValueError::new_err(
        "a finding's field is None, a bool, an int, a str or a list of them",
    ))
}

fn fix_py<'py>(py: Python<'py>, fix: &FixEdits) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("safe", fix.safe)?;
    let edits = PyList::empty(py);
    for e in &fix.edits {
        let x = PyDict::new(py);
        x.set_item("line", e.line)?;
        x.set_item("column", e.column)?;
        x.set_item("end_line", e.end_line)?;
        x.set_item("end_column", e.end_column)?;
        x.set_item("content", &e.content)?;
        edits.append(x)?;
    }
    d.set_item("edits", edits)?;
    Ok(d)
}

fn fix_from(o: &Bound<'_, PyAny>) -> PyResult<FixEdits> {
    let safe: bool = o.get_item("safe")?.extract()?;
    let mut edits = Vec::new();
    for e in o.get_item("edits")?.try_iter()? {
        let e = e?;
        edits.push(Edit {
            line: e.get_item("line")?.extract()?,
            column: e.get_item("column")?.extract()?,
            end_line: e.get_item("end_line")?.extract()?,
            end_column: e.get_item("end_column")?.extract()?,
            content: e.get_item("content")?.extract()?,
        });
    }
    Ok(FixEdits { safe, edits })
}

#[pymethods]
impl PyFinding {
    /// A finding made on the Python side: its code, message and place, with the typed fields
    /// and fix it was made or stored with.
    #[new]
    #[pyo3(signature = (code, message = String::new(), source = String::new(), line = 0, column = 0,
                        game = String::new(), hand = None, trick = None, subject = None,
                        expected = None, recorded = None, *, case = String::new(), fields = None,
                        fix = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        code: &str,
        message: String,
        source: String,
        line: u32,
        column: u32,
        game: String,
        hand: Option<u32>,
        trick: Option<u32>,
        subject: Option<String>,
        expected: Option<String>,
        recorded: Option<String>,
        case: String,
        fields: Option<&Bound<'_, PyDict>>,
        fix: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyFinding> {
        let code = Code::parse(code)
            .ok_or_else(|| PyValueError::new_err(format!("no finding code {code:?}")))?;
        let mut typed = Vec::new();
        if let Some(fields) = fields {
            for (k, v) in fields.iter() {
                typed.push((k.extract::<String>()?, value_from(&v)?));
            }
        }
        Ok(PyFinding {
            code,
            case,
            message,
            fields: typed,
            expected,
            recorded,
            source,
            line,
            column,
            game,
            hand,
            trick,
            subject,
            fix: fix.filter(|f| !f.is_none()).map(fix_from).transpose()?,
            repeats: None,
        })
    }

    /// The stable code (`R501`).
    #[getter]
    fn code(&self) -> &'static str {
        self.code.as_str()
    }

    /// The case of the code it reports (`RevokePlay`), as its declaration names it.
    #[getter]
    fn case(&self) -> &str {
        &self.case
    }

    /// What was found, made from the fields by the case's template.
    #[getter]
    fn message(&self) -> &str {
        &self.message
    }

    /// The typed fields: players, cards, numbers, the rule's value.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.fields {
            d.set_item(k, value_py(py, v, false)?)?;
        }
        Ok(d)
    }

    /// What was expected, where the finding compares two.
    #[getter]
    fn expected(&self) -> Option<&str> {
        self.expected.as_deref()
    }

    /// What the record shows, where the finding compares two.
    #[getter]
    fn recorded(&self) -> Option<&str> {
        self.recorded.as_deref()
    }

    /// The file (or `<stdin>`) the finding is in.
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }

    /// 1-based line, 0 for a whole file.
    #[getter]
    fn line(&self) -> u32 {
        self.line
    }

    /// 1-based column in characters, 0 for a whole file.
    #[getter]
    fn column(&self) -> u32 {
        self.column
    }

    /// The game's name, empty outside a game.
    #[getter]
    fn game(&self) -> &str {
        &self.game
    }

    #[getter]
    fn hand(&self) -> Option<u32> {
        self.hand
    }

    #[getter]
    fn trick(&self) -> Option<u32> {
        self.trick
    }

    /// The player or team it is about.
    #[getter]
    fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// `input`, `deal`, `auction`, `play`, `revoke` or `score`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.code.kind()
    }

    /// `error`, `warning` or `info`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.code.declaration().severity.as_str()
    }

    /// The edits that correct it (`{"safe": bool, "edits": [{line, column, end_line,
    /// end_column, content}]}`), or None where nothing in the record is corrected for it.
    #[getter]
    fn fix<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.fix.as_ref().map(|f| fix_py(py, f)).transpose()
    }

    /// More findings of the same code and case on the same line, folded into this one:
    /// `{"count": N, "columns": [the first few]}`, or None.
    #[getter]
    fn repeats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.repeats
            .as_ref()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("count", r.count)?;
                d.set_item("columns", r.columns.clone())?;
                Ok(d)
            })
            .transpose()
    }

    /// This finding in `source` and `game` (where it names none of its own).
    fn placed(&self, source: &str, game: &str) -> PyFinding {
        let mut out = self.clone();
        out.source = source.to_string();
        if out.game.is_empty() {
            out.game = game.to_string();
        }
        out
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyFinding>().is_ok_and(|o| *o.get() == *self)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            self.code,
            &self.source,
            self.line,
            self.column,
            &self.message,
        )
            .hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!(
            "Finding({:?}, {:?}, source={:?}, line={}, column={})",
            self.code.as_str(),
            self.message,
            self.source,
            self.line,
            self.column
        )
    }

    /// Pickled as the arguments that make it again (Dask sends findings between processes).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let args = (
            me.code.as_str(),
            &me.message,
            &me.source,
            me.line,
            me.column,
            &me.game,
            me.hand,
            me.trick,
            me.subject.as_deref(),
            me.expected.as_deref(),
            me.recorded.as_deref(),
        )
            .into_pyobject(py)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("case", &me.case)?;
        kwargs.set_item("fields", me.fields(py)?)?;
        kwargs.set_item("fix", me.fix(py)?)?;
        let rebuild = py.import("auditor._core")?.getattr("_finding_from")?;
        PyTuple::new(
            py,
            [
                rebuild,
                PyTuple::new(py, [args.into_any(), kwargs.into_any()])?.into_any(),
            ],
        )
    }
}

/// Unpickles a finding: `Finding(*args, **kwargs)`.
#[pyfunction]
pub fn _finding_from(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    kwargs: &Bound<'_, PyDict>,
) -> PyResult<Py<PyAny>> {
    Ok(py
        .get_type::<PyFinding>()
        .call(args, Some(kwargs))?
        .unbind())
}

/// E100 for a path given on the command line: `case` is `NoSuchPath`, `NoLogs` (a folder with
/// no logs) or `Unreadable` (with the system's `reason`).
#[pyfunction]
#[pyo3(signature = (case, path, reason = String::new()))]
pub fn path_finding(case: &str, path: &str, reason: String) -> PyResult<PyFinding> {
    use crate::findings::input::E100;
    let facts = match case {
        "NoSuchPath" => E100::NoSuchPath { path: path.into() },
        "NoLogs" => E100::NoLogs {
            folder: path.into(),
        },
        "Unreadable" => E100::Unreadable {
            path: path.into(),
            reason,
        },
        _ => return Err(PyValueError::new_err(format!("E100 has no case {case:?}"))),
    };
    Ok(PyFinding::of(&Finding::new(facts, 0, 0), path, ""))
}

/// E109 for a stream whose first block `head` is not text, or None when it is text.
#[pyfunction]
pub fn not_text_finding(head: &[u8], source: &str) -> Option<PyFinding> {
    use crate::findings::input::E109;
    crate::notation::parser::looks_binary(head).then(|| {
        let facts = E109::NotText {
            sniffed: head.len(),
        };
        PyFinding::of(&Finding::new(facts, 1, 1), source, "")
    })
}
