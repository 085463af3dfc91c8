//! The dataset's tables as Arrow record batches, and their Parquet files, written by the core.
//!
//! The tables and their columns are declared once, in `schemas/tables.json` at the top of the
//! repository; the core compiles it in ([`SCHEMA_JSON`]) and Python reads it from here, so
//! the two can never disagree. A [`Table`] is filled a row at a time by name-resolved column
//! positions (arrow's builders underneath), turned into a [`RecordBatch`], and encoded into
//! Parquet column chunks ([`encode`]) on the thread that built it; a [`BatchFiles`] appends
//! the chunks, in input order, to one file per table.
//!
//! The game key, repeated on every row of a game, is built as an Arrow dictionary (stored
//! once per game and row group); every text column is dictionary-encoded in the Parquet
//! files. The files declare plain strings, so every reader (DuckDB's SQL, pyarrow, polars)
//! sees the same `string` columns as before.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Int8Builder, Int16Builder, Int32Builder, Int64Builder,
    ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowSchemaConverter;
use parquet::arrow::arrow_writer::{
    ArrowColumnChunk, ArrowRowGroupWriterFactory, ArrowWriter, compute_leaves,
};
use parquet::basic::{Compression, Type as PhysicalType, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use rustc_hash::FxHashMap;

/// The schemas of every table, as `schemas/tables.json` declares them (compiled in).
pub const SCHEMA_JSON: &str = include_str!("../../schemas/tables.json");

/// A column's Arrow type, as `tables.json` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    I8,
    I16,
    I32,
    I64,
    Bool,
    Date32,
    Timestamp,
    ListStr,
}

impl Kind {
    /// The kind `tables.json` calls `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "string" => Kind::Str,
            "int8" => Kind::I8,
            "int16" => Kind::I16,
            "int32" => Kind::I32,
            "int64" => Kind::I64,
            "bool" => Kind::Bool,
            "date32" => Kind::Date32,
            "timestamp" => Kind::Timestamp,
            "list<string>" => Kind::ListStr,
            _ => return None,
        })
    }

    fn arrow(self) -> DataType {
        match self {
            Kind::Str => DataType::Utf8,
            Kind::I8 => DataType::Int8,
            Kind::I16 => DataType::Int16,
            Kind::I32 => DataType::Int32,
            Kind::I64 => DataType::Int64,
            Kind::Bool => DataType::Boolean,
            Kind::Date32 => DataType::Date32,
            Kind::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Kind::ListStr => DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
        }
    }
}

/// One column of a table's schema.
#[derive(Debug)]
pub struct ColumnSpec {
    pub name: String,
    pub kind: Kind,
    pub doc: String,
    /// Built as a dictionary: the game key, the same on every row of a game (building the
    /// other text as plain strings measured faster: the Parquet writer dictionary-encodes
    /// every text column anyway).
    pub dict: bool,
}

/// One table of the schema: its columns, and how its Parquet files are written.
pub struct TableSpec {
    pub name: String,
    pub doc: String,
    pub columns: Vec<ColumnSpec>,
    /// Computed from the other tables (the counters), not read from the records.
    pub derived: bool,
    /// Written only with this option of `import` (the analysis, `--analyze`).
    pub option: Option<String>,
    pub arrow: SchemaRef,
    props: Arc<WriterProperties>,
    /// Makes the column encoders of a row group, on any thread.
    factory: ArrowRowGroupWriterFactory,
}

impl std::fmt::Debug for TableSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableSpec")
            .field("name", &self.name)
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

/// Every table of the dataset, in `tables.json` order.
#[derive(Debug)]
pub struct Schema {
    pub version: u32,
    pub doc: String,
    pub tables: Vec<TableSpec>,
}

impl Schema {
    /// The table called `name`, with its position.
    pub fn table(&self, name: &str) -> Option<(usize, &TableSpec)> {
        self.tables.iter().enumerate().find(|(_, t)| t.name == name)
    }
}

/// The schema, read from [`SCHEMA_JSON`] once.
pub fn schema() -> Result<&'static Schema, String> {
    static SCHEMA: OnceLock<Result<Schema, String>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| parse_schema(SCHEMA_JSON))
        .as_ref()
        .map_err(Clone::clone)
}

fn parse_schema(text: &str) -> Result<Schema, String> {
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("tables.json: {e}"))?;
    let version = doc
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or("tables.json: no schema_version")?;
    let tables = doc
        .get("tables")
        .and_then(serde_json::Value::as_object)
        .ok_or("tables.json: no tables")?;
    let mut out = Vec::new();
    for (name, spec) in tables {
        let text_of = |v: Option<&serde_json::Value>| {
            v.and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let mut columns = Vec::new();
        for c in spec
            .get("columns")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| format!("tables.json: {name} has no columns"))?
        {
            let parts = c.as_array().map(Vec::as_slice).unwrap_or(&[]);
            let [cname, kind, cdoc] = parts else {
                return Err(format!(
                    "tables.json: {name}: a column is not [name, type, doc]"
                ));
            };
            let cname = text_of(Some(cname));
            let kind = Kind::parse(kind.as_str().unwrap_or(""))
                .ok_or_else(|| format!("tables.json: {name}.{cname}: unknown type {kind}"))?;
            // a game's key repeats on each of its rows (and games has one row a game)
            let dict = kind == Kind::Str && cname == "game_id" && name != "games";
            columns.push(ColumnSpec {
                name: cname,
                kind,
                doc: text_of(Some(cdoc)),
                dict,
            });
        }
        let tdoc = text_of(spec.get("doc"));
        let fields: Vec<Field> = columns
            .iter()
            .map(|c| {
                Field::new(&c.name, c.kind.arrow(), true).with_metadata(
                    std::collections::BTreeMap::from([("doc".to_string(), c.doc.clone())]),
                )
            })
            .collect();
        let arrow = Arc::new(ArrowSchema::new_with_metadata(
            fields,
            std::collections::BTreeMap::from([
                ("doc".to_string(), tdoc.clone()),
                ("schema_version".to_string(), version.to_string()),
            ]),
        ));
        let props = Arc::new(writer_properties(&arrow)?);
        let factory = {
            let parquet = ArrowSchemaConverter::new()
                .convert(&arrow)
                .map_err(|e| e.to_string())?;
            let sink = SerializedFileWriter::new(
                std::io::sink(),
                parquet.root_schema_ptr(),
                props.clone(),
            )
            .map_err(|e| e.to_string())?;
            ArrowRowGroupWriterFactory::new(&sink, arrow.clone())
        };
        out.push(TableSpec {
            name: name.clone(),
            doc: tdoc,
            columns,
            derived: spec
                .get("derived")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
            option: spec
                .get("option")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            arrow,
            props,
            factory,
        });
    }
    Ok(Schema {
        version,
        doc: doc
            .get("doc")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .to_string(),
        tables: out,
    })
}

/// How a table's files are written: zstd; text dictionary-encoded (its values repeat) with no
/// statistics (comparing every string for a min and a max cost more than the encoding, and a
/// game key's range prunes nothing); numbers and flags plainly encoded (zstd packs them) with
/// their range per column chunk.
fn writer_properties(arrow: &ArrowSchema) -> Result<WriterProperties, String> {
    let parquet = ArrowSchemaConverter::new()
        .convert(arrow)
        .map_err(|e| e.to_string())?;
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by(format!("auditor {}", env!("CARGO_PKG_VERSION")));
    for leaf in parquet.columns() {
        if leaf.physical_type() == PhysicalType::BYTE_ARRAY {
            props = props
                .set_column_dictionary_enabled(leaf.path().clone(), true)
                .set_column_statistics_enabled(leaf.path().clone(), EnabledStatistics::None);
        }
    }
    Ok(props.build())
}

/// A text column whose values repeat: the keys, and each distinct value once.
struct Dict {
    keys: Int32Builder,
    values: StringBuilder,
    index: FxHashMap<Box<str>, i32>,
    /// The key set last (rows of one game repeat its key, its players): compared before hashing.
    last: Option<i32>,
}

impl Dict {
    fn new() -> Dict {
        Dict {
            keys: Int32Builder::new(),
            values: StringBuilder::new(),
            index: FxHashMap::default(),
            last: None,
        }
    }

    /// The value of `key`, as stored.
    fn value(&self, key: i32) -> Option<&[u8]> {
        let offsets = self.values.offsets_slice();
        let k = usize::try_from(key).ok()?;
        let (a, b) = (*offsets.get(k)?, *offsets.get(k + 1)?);
        self.values
            .values_slice()
            .get(usize::try_from(a).ok()?..usize::try_from(b).ok()?)
    }

    fn push(&mut self, v: Option<&str>) {
        let Some(s) = v else {
            self.keys.append_null();
            return;
        };
        if let Some(key) = self.last {
            if self.value(key) == Some(s.as_bytes()) {
                self.keys.append_value(key);
                return;
            }
        }
        let key = match self.index.get(s) {
            Some(&k) => k,
            None => {
                let k = i32::try_from(self.index.len()).unwrap_or(i32::MAX);
                self.values.append_value(s);
                self.index.insert(s.into(), k);
                k
            }
        };
        self.last = Some(key);
        self.keys.append_value(key);
    }

    fn finish(&mut self) -> ArrayRef {
        self.index.clear();
        self.last = None;
        let values: ArrayRef = Arc::new(self.values.finish());
        let keys = self.keys.finish();
        match DictionaryArray::<Int32Type>::try_new(keys, values) {
            Ok(a) => Arc::new(a),
            // keys are made here, each below the values' count: never out of range
            Err(_) => Arc::new(arrow_array::new_null_array(&DataType::Utf8, 0)),
        }
    }
}

/// One column being filled.
enum Builder {
    Str(StringBuilder),
    Dict(Box<Dict>),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    Bool(BooleanBuilder),
    Date32(Date32Builder),
    Timestamp(TimestampMicrosecondBuilder),
    List(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(c: &ColumnSpec) -> Builder {
        match c.kind {
            Kind::Str if c.dict => Builder::Dict(Box::new(Dict::new())),
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::I8 => Builder::I8(Int8Builder::new()),
            Kind::I16 => Builder::I16(Int16Builder::new()),
            Kind::I32 => Builder::I32(Int32Builder::new()),
            Kind::I64 => Builder::I64(Int64Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            Kind::Date32 => Builder::Date32(Date32Builder::new()),
            Kind::Timestamp => {
                Builder::Timestamp(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
            }
            Kind::ListStr => Builder::List(ListBuilder::new(StringBuilder::new())),
        }
    }

    fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match self {
            Builder::Str(b) => b.len(),
            Builder::Dict(d) => d.keys.len(),
            Builder::I8(b) => b.len(),
            Builder::I16(b) => b.len(),
            Builder::I32(b) => b.len(),
            Builder::I64(b) => b.len(),
            Builder::Bool(b) => b.len(),
            Builder::Date32(b) => b.len(),
            Builder::Timestamp(b) => b.len(),
            Builder::List(b) => b.len(),
        }
    }

    fn null(&mut self) {
        match self {
            Builder::Str(b) => b.append_null(),
            Builder::Dict(d) => d.push(None),
            Builder::I8(b) => b.append_null(),
            Builder::I16(b) => b.append_null(),
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::Bool(b) => b.append_null(),
            Builder::Date32(b) => b.append_null(),
            Builder::Timestamp(b) => b.append_null(),
            Builder::List(b) => b.append_null(),
        }
    }

    /// Set a string; false if the column holds no strings.
    fn str(&mut self, s: &str) -> bool {
        match self {
            Builder::Str(b) => b.append_value(s),
            Builder::Dict(d) => d.push(Some(s)),
            _ => return false,
        }
        true
    }

    /// Set a number (of the column's width: wider values wrap, as the column's type does).
    fn int(&mut self, v: i64) -> bool {
        match self {
            Builder::I8(b) => b.append_value(v as i8),
            Builder::I16(b) => b.append_value(v as i16),
            Builder::I32(b) => b.append_value(v as i32),
            Builder::I64(b) => b.append_value(v),
            Builder::Bool(b) => b.append_value(v != 0),
            Builder::Date32(b) => b.append_value(v as i32),
            Builder::Timestamp(b) => b.append_value(v),
            _ => return false,
        }
        true
    }

    fn list<'a>(&mut self, items: impl IntoIterator<Item = &'a str>) -> bool {
        let Builder::List(b) = self else { return false };
        for s in items {
            b.values().append_value(s);
        }
        b.append(true);
        true
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Dict(d) => d.finish(),
            Builder::I8(b) => Arc::new(b.finish()),
            Builder::I16(b) => Arc::new(b.finish()),
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Date32(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::List(b) => Arc::new(b.finish()),
        }
    }
}

/// A column's position in its table (`usize::MAX`: the schema has no such column).
pub type Col = usize;

/// One table being filled a row at a time: set the row's columns, then [`Table::end_row`].
pub struct Table {
    pub spec: &'static TableSpec,
    cols: Vec<Builder>,
    filled: Vec<bool>,
    rows: usize,
}

impl Table {
    /// An empty table of `spec`.
    pub fn new(spec: &'static TableSpec) -> Table {
        Table {
            spec,
            cols: spec.columns.iter().map(Builder::new).collect(),
            filled: vec![false; spec.columns.len()],
            rows: 0,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The position of the column called `name`.
    pub fn col(&self, name: &str) -> Col {
        self.spec
            .columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or(usize::MAX)
    }

    /// Rows so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The builder of column `c`, if the row being written has not set it yet.
    fn open(&mut self, c: Col) -> Option<(&mut Builder, &mut bool)> {
        let rows = self.rows;
        let b = self.cols.get_mut(c).filter(|b| b.len() == rows)?;
        Some((b, self.filled.get_mut(c)?))
    }

    /// Set a string in the row being written.
    pub fn str(&mut self, c: Col, v: Option<&str>) {
        if let Some((b, filled)) = self.open(c) {
            match v {
                Some(s) if b.str(s) => *filled = true,
                _ => b.null(),
            }
        }
    }

    /// Set an integer (or a day, a microsecond, a boolean as 0/1) in the row being written.
    pub fn int(&mut self, c: Col, v: Option<i64>) {
        if let Some((b, filled)) = self.open(c) {
            match v {
                Some(x) if b.int(x) => *filled = true,
                _ => b.null(),
            }
        }
    }

    /// Set a boolean in the row being written.
    pub fn bool(&mut self, c: Col, v: Option<bool>) {
        self.int(c, v.map(i64::from));
    }

    /// Set a list of strings in the row being written.
    pub fn list<'a>(&mut self, c: Col, v: Option<impl IntoIterator<Item = &'a str>>) {
        if let Some((b, filled)) = self.open(c) {
            match v {
                Some(items) if matches!(b, Builder::List(_)) => {
                    b.list(items);
                    *filled = true;
                }
                _ => b.null(),
            }
        }
    }

    /// End the row: every column not set is null.
    pub fn end_row(&mut self) {
        self.rows += 1;
        for b in &mut self.cols {
            while b.len() < self.rows {
                b.null();
            }
        }
    }

    /// The rows so far as a record batch; the table is empty again.
    pub fn finish(&mut self) -> RecordBatch {
        let arrays: Vec<ArrayRef> = self.cols.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        batch(self.spec, arrays)
    }

    /// The names of the columns never given a value.
    pub fn unfilled(&self) -> Vec<&str> {
        self.spec
            .columns
            .iter()
            .zip(&self.filled)
            .filter(|(_, f)| !**f)
            .map(|(c, _)| c.name.as_str())
            .collect()
    }
}

/// A record batch of `spec` from its columns' arrays (a dictionary column under its `string` field).
pub fn batch(spec: &TableSpec, arrays: Vec<ArrayRef>) -> RecordBatch {
    let fields: Vec<Field> = spec
        .arrow
        .fields()
        .iter()
        .zip(&arrays)
        .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
        .collect();
    let schema = Arc::new(ArrowSchema::new(fields));
    let rows = arrays.first().map_or(0, |a| a.len());
    RecordBatch::try_new_with_options(
        schema,
        arrays,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .unwrap_or_else(|_| RecordBatch::new_empty(spec.arrow.clone()))
}

/// A table's rows of one piece, encoded as one Parquet row group (and kept as a batch, for
/// when some of its games must be left out after all).
pub struct Encoded {
    pub batch: RecordBatch,
    pub chunks: Vec<ArrowColumnChunk>,
}

/// An error of the Parquet writer as an I/O error: the disk's own (a full disk keeps its
/// errno), else the writer's.
fn io(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> std::io::Error {
    let e = e.into();
    let e = match e.downcast::<parquet::errors::ParquetError>() {
        Ok(p) => match *p {
            parquet::errors::ParquetError::External(inner) => inner,
            other => Box::new(other),
        },
        Err(e) => e,
    };
    match e.downcast::<std::io::Error>() {
        Ok(disk) => *disk,
        Err(e) => std::io::Error::other(format!("parquet: {e}")),
    }
}

/// Encode `batch`, a batch of `spec`, into the column chunks of one row group.
pub fn encode(spec: &TableSpec, batch: &RecordBatch) -> std::io::Result<Vec<ArrowColumnChunk>> {
    let mut writers = spec.factory.create_column_writers(0).map_err(io)?;
    let mut next = writers.iter_mut();
    for (field, col) in spec.arrow.fields().iter().zip(batch.columns()) {
        for leaf in compute_leaves(field, col).map_err(io)? {
            next.next()
                .ok_or_else(|| io("more leaves than writers"))?
                .write(&leaf)
                .map_err(io)?;
        }
    }
    writers.into_iter().map(|w| w.close().map_err(io)).collect()
}

/// The schema of table `t` (its position in the schema).
fn table_spec(t: usize) -> std::io::Result<&'static TableSpec> {
    schema()
        .map_err(io)?
        .tables
        .get(t)
        .ok_or_else(|| io("no such table"))
}

/// The Parquet files of one batch: a file per table, made when its first rows come, each row
/// group appended as its chunks are handed over (in input order).
pub struct BatchFiles {
    dir: PathBuf,
    /// Whether the batch has its derived tables (written even when they have no rows).
    derived: bool,
    files: Vec<Option<SerializedFileWriter<BufWriter<File>>>>,
    rows: Vec<u64>,
}

impl BatchFiles {
    /// The files of a batch being staged in `dir` (an existing folder); with `derived`, the
    /// batch has its derived tables.
    pub fn new(dir: &Path, derived: bool) -> Result<BatchFiles, String> {
        let n = schema()?.tables.len();
        Ok(BatchFiles {
            dir: dir.to_path_buf(),
            derived,
            files: (0..n).map(|_| None).collect(),
            rows: vec![0; n],
        })
    }

    /// Append one row group of table `t` (its position in the schema).
    pub fn append(
        &mut self,
        t: usize,
        rows: usize,
        chunks: Vec<ArrowColumnChunk>,
    ) -> std::io::Result<()> {
        if rows == 0 {
            return Ok(());
        }
        let spec = table_spec(t)?;
        let slot = self.files.get_mut(t).ok_or_else(|| io("no such table"))?;
        if slot.is_none() {
            let path = self.dir.join(format!("{}.parquet", spec.name));
            let file = BufWriter::with_capacity(1 << 18, File::create(path)?);
            let writer =
                ArrowWriter::try_new(file, spec.arrow.clone(), Some((*spec.props).clone()))
                    .map_err(io)?;
            *slot = Some(writer.into_serialized_writer().map_err(io)?.0);
        }
        let file = slot.as_mut().ok_or_else(|| io("no file"))?;
        let mut group = file.next_row_group().map_err(io)?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut group).map_err(io)?;
        }
        group.close().map_err(io)?;
        if let Some(n) = self.rows.get_mut(t) {
            *n += rows as u64;
        }
        Ok(())
    }

    /// Encode and append a whole batch of table `t` (rows made after the pieces: on this thread).
    pub fn write(&mut self, t: usize, batch: &RecordBatch) -> std::io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let spec = table_spec(t)?;
        let chunks = encode(spec, batch)?;
        self.append(t, batch.num_rows(), chunks)
    }

    /// Finish every file (its footer written, its buffer flushed); the rows written per table.
    /// A derived table is written even with no rows: its file says the batch has its counters.
    pub fn close(&mut self) -> std::io::Result<Vec<(String, u64)>> {
        let mut out = Vec::new();
        let tables = &schema().map_err(io)?.tables;
        let any = self.rows.iter().any(|&n| n > 0);
        for ((slot, rows), spec) in self.files.iter_mut().zip(&self.rows).zip(tables) {
            if slot.is_none() && spec.derived && self.derived && any {
                let path = self.dir.join(format!("{}.parquet", spec.name));
                let file = BufWriter::new(File::create(path)?);
                let writer =
                    ArrowWriter::try_new(file, spec.arrow.clone(), Some((*spec.props).clone()))
                        .map_err(io)?;
                *slot = Some(writer.into_serialized_writer().map_err(io)?.0);
            }
            if let Some(w) = slot.take() {
                let mut inner = w.into_inner().map_err(io)?;
                std::io::Write::flush(&mut inner)?;
            }
            if *rows > 0 {
                out.push((spec.name.clone(), *rows));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_parses_and_every_table_has_a_game_key() {
        let s = schema().unwrap();
        assert!(s.version >= 6);
        for t in &s.tables {
            assert_eq!(t.columns[0].name, "game_id", "{}", t.name);
        }
        let plays = s.table("plays").unwrap().1;
        assert!(plays.columns.iter().any(|c| c.name == "game_id" && c.dict));
        assert!(plays.columns.iter().any(|c| c.name == "card" && !c.dict));
        let games = s.table("games").unwrap().1;
        assert!(games.columns.iter().all(|c| !c.dict));
    }

    #[test]
    fn rows_with_nulls_lists_and_dictionaries() {
        let spec = schema().unwrap().table("hands").unwrap().1;
        let mut t = Table::new(spec);
        let (gid, hand, widow) = (t.col("game_id"), t.col("hand"), t.col("widow"));
        t.str(gid, Some("k"));
        t.int(hand, Some(1));
        t.list(widow, Some(["AS", "KS"]));
        t.end_row();
        t.str(gid, Some("k"));
        t.str(gid, Some("twice: ignored"));
        t.end_row();
        let b = t.finish();
        assert_eq!(b.num_rows(), 2);
        let ids = arrow_array::cast::AsArray::as_dictionary::<Int32Type>(b.column(gid));
        assert_eq!(ids.keys().values().as_ref(), &[0, 0]);
        assert_eq!(ids.values().len(), 1);
        assert!(b.column(hand).is_null(1));
        assert!(b.column(widow).is_valid(0) && b.column(widow).is_null(1));
        assert_eq!(t.rows(), 0);
    }

    #[test]
    fn a_batch_written_and_read_back_keeps_its_strings_as_strings() {
        let dir = std::env::temp_dir().join(format!("pitch-columns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (t, spec) = schema().unwrap().table("plays").unwrap();
        let mut table = Table::new(spec);
        for i in 0..3 {
            table.str(table.col("game_id"), Some("g"));
            table.str(table.col("card"), Some(["AS", "KS", "AS"][i]));
            table.int(table.col("trick"), Some(i as i64 + 1));
            table.end_row();
        }
        let b = table.finish();
        let mut files = BatchFiles::new(&dir, false).unwrap();
        files.append(t, 3, encode(spec, &b).unwrap()).unwrap();
        files.write(t, &b).unwrap();
        assert_eq!(files.close().unwrap(), vec![("plays".to_string(), 6)]);
        let f = File::open(dir.join("plays.parquet")).unwrap();
        let reader = parquet::file::reader::SerializedFileReader::new(f).unwrap();
        let meta = parquet::file::reader::FileReader::metadata(&reader);
        assert_eq!(meta.file_metadata().num_rows(), 6);
        assert_eq!(meta.num_row_groups(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
