//! The dataset's tables as columns, filled by the core and handed to Python as Arrow buffers.
//!
//! The tables and their columns are declared once, in `auditor/schemas/tables.json`; Python
//! hands their names and types to [`Table::new`], and the core fills the columns it knows by
//! name. Each column is kept in the Arrow layout (values, offsets, validity), so that Python
//! builds its arrays from the buffers without a row of Python per hand.

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
}

/// One column: validity per row, and the values in the layout its kind needs.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    pub valid: Vec<bool>,
    /// Integers (of any width), days, microseconds; booleans as 0/1.
    pub ints: Vec<i64>,
    /// Strings: offsets into `data` (one more than the strings). Lists of strings: the
    /// strings of every list, one after the other.
    pub offsets: Vec<i32>,
    pub data: Vec<u8>,
    /// Lists: offsets into the strings (one more than the rows).
    pub list_offsets: Vec<i32>,
    /// Whether any row was ever given a value (a column the core never fills is a test failure).
    pub filled: bool,
}

impl Column {
    fn new(name: &str, kind: Kind) -> Column {
        Column {
            name: name.to_string(),
            kind,
            valid: Vec::new(),
            ints: Vec::new(),
            offsets: vec![0],
            data: Vec::new(),
            list_offsets: vec![0],
            filled: false,
        }
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.valid.len()
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }

    fn push_str_value(&mut self, s: &str) {
        self.data.extend_from_slice(s.as_bytes());
        self.offsets
            .push(i32::try_from(self.data.len()).unwrap_or(i32::MAX));
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match self.kind {
            Kind::Str => self.offsets.push(*self.offsets.last().unwrap_or(&0)),
            Kind::ListStr => self
                .list_offsets
                .push(*self.list_offsets.last().unwrap_or(&0)),
            _ => self.ints.push(0),
        }
    }

    fn set_str(&mut self, v: Option<&str>) {
        match v {
            Some(s) if self.kind == Kind::Str => {
                self.valid.push(true);
                self.filled = true;
                self.push_str_value(s);
            }
            _ => self.push_null(),
        }
    }

    fn set_int(&mut self, v: Option<i64>) {
        match v {
            Some(x) if !matches!(self.kind, Kind::Str | Kind::ListStr) => {
                self.valid.push(true);
                self.filled = true;
                self.ints.push(x);
            }
            _ => self.push_null(),
        }
    }

    fn set_list<'a>(&mut self, v: Option<impl IntoIterator<Item = &'a str>>) {
        match v {
            Some(items) if self.kind == Kind::ListStr => {
                self.valid.push(true);
                self.filled = true;
                for s in items {
                    self.push_str_value(s);
                }
                let strings = self.offsets.len() - 1;
                self.list_offsets
                    .push(i32::try_from(strings).unwrap_or(i32::MAX));
            }
            _ => self.push_null(),
        }
    }

    /// Append rows `start..end` of `other` (a column of the same table).
    fn append_range(&mut self, other: &Column, start: usize, end: usize) {
        let (Some(valid), true) = (other.valid.get(start..end), self.kind == other.kind) else {
            return;
        };
        self.filled |= other.filled;
        self.valid.extend_from_slice(valid);
        match self.kind {
            Kind::Str => {
                // the bytes in one copy, the offsets moved by where they land
                let (a, b) = (offset(&other.offsets, start), offset(&other.offsets, end));
                let base =
                    i64::try_from(self.data.len()).unwrap_or(0) - i64::try_from(a).unwrap_or(0);
                self.data
                    .extend_from_slice(other.data.get(a..b).unwrap_or(&[]));
                let moved = other.offsets.get(start + 1..=end).unwrap_or(&[]);
                self.offsets.extend(
                    moved
                        .iter()
                        .map(|&o| i32::try_from(i64::from(o) + base).unwrap_or(i32::MAX)),
                );
            }
            Kind::ListStr => {
                for i in start..end {
                    let (la, lb) = (
                        offset(&other.list_offsets, i),
                        offset(&other.list_offsets, i + 1),
                    );
                    for k in la..lb {
                        let (a, b) = (offset(&other.offsets, k), offset(&other.offsets, k + 1));
                        self.push_str_value(
                            std::str::from_utf8(other.data.get(a..b).unwrap_or(&[])).unwrap_or(""),
                        );
                    }
                    let strings = self.offsets.len() - 1;
                    self.list_offsets
                        .push(i32::try_from(strings).unwrap_or(i32::MAX));
                }
            }
            _ => self
                .ints
                .extend_from_slice(other.ints.get(start..end).unwrap_or(&[])),
        }
    }
}

fn offset(v: &[i32], i: usize) -> usize {
    v.get(i)
        .copied()
        .map_or(0, |x| usize::try_from(x).unwrap_or(0))
}

/// One table: its columns in schema order, filled a row at a time.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    rows: usize,
}

/// A column's position in its table (`usize::MAX`: the schema has no such column).
pub type Col = usize;

impl Table {
    /// An empty table with these columns.
    pub fn new(name: &str, columns: &[(String, Kind)]) -> Table {
        Table {
            name: name.to_string(),
            columns: columns.iter().map(|(n, k)| Column::new(n, *k)).collect(),
            rows: 0,
        }
    }

    /// The same table, with no rows.
    pub fn empty_like(&self) -> Table {
        Table {
            name: self.name.clone(),
            columns: self
                .columns
                .iter()
                .map(|c| Column::new(&c.name, c.kind))
                .collect(),
            rows: 0,
        }
    }

    /// The position of the column called `name`.
    pub fn col(&self, name: &str) -> Col {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or(usize::MAX)
    }

    /// Rows so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Set a string in the row being written.
    pub fn str(&mut self, c: Col, v: Option<&str>) {
        if let Some(col) = self.columns.get_mut(c) {
            if col.len() == self.rows {
                col.set_str(v);
            }
        }
    }

    /// Set an integer (or a day, a microsecond, a boolean as 0/1) in the row being written.
    pub fn int(&mut self, c: Col, v: Option<i64>) {
        if let Some(col) = self.columns.get_mut(c) {
            if col.len() == self.rows {
                col.set_int(v);
            }
        }
    }

    /// Set a boolean in the row being written.
    pub fn bool(&mut self, c: Col, v: Option<bool>) {
        self.int(c, v.map(i64::from));
    }

    /// Set a list of strings in the row being written.
    pub fn list<'a>(&mut self, c: Col, v: Option<impl IntoIterator<Item = &'a str>>) {
        if let Some(col) = self.columns.get_mut(c) {
            if col.len() == self.rows {
                col.set_list(v);
            }
        }
    }

    /// Set the string column called `name` (the same, by name, for the setters below).
    pub fn s(&mut self, name: &str, v: Option<&str>) {
        let c = self.col(name);
        self.str(c, v);
    }

    /// Set the integer column called `name`.
    pub fn i(&mut self, name: &str, v: Option<i64>) {
        let c = self.col(name);
        self.int(c, v);
    }

    /// Set the boolean column called `name`.
    pub fn b(&mut self, name: &str, v: Option<bool>) {
        let c = self.col(name);
        self.bool(c, v);
    }

    /// Set the list column called `name`.
    pub fn l<'a>(&mut self, name: &str, v: Option<impl IntoIterator<Item = &'a str>>) {
        let c = self.col(name);
        self.list(c, v);
    }

    /// End the row: every column not set is null.
    pub fn end_row(&mut self) {
        self.rows += 1;
        for col in &mut self.columns {
            while col.len() < self.rows {
                col.push_null();
            }
        }
    }

    /// Append rows `start..end` of `other` (the same table, filled elsewhere).
    pub fn append_range(&mut self, other: &Table, start: usize, end: usize) {
        let end = end.min(other.rows);
        if start >= end {
            return;
        }
        for (mine, theirs) in self.columns.iter_mut().zip(&other.columns) {
            mine.append_range(theirs, start, end);
        }
        self.rows += end - start;
    }

    /// The names of the columns never given a value.
    pub fn unfilled(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| !c.filled)
            .map(|c| c.name.as_str())
            .collect()
    }
}

/// The validity of a column as an Arrow bitmap (least significant bit first).
pub fn bitmap(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        if b {
            if let Some(byte) = out.get_mut(i / 8) {
                *byte |= 1 << (i % 8);
            }
        }
    }
    out
}

/// The values of an integer column as little-endian bytes of `width` bytes each.
pub fn int_bytes(values: &[i64], width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * width);
    for &v in values {
        out.extend_from_slice(v.to_le_bytes().get(..width).unwrap_or(&[]));
    }
    out
}

/// Offsets as little-endian bytes.
pub fn offset_bytes(offsets: &[i32]) -> Vec<u8> {
    offsets.iter().flat_map(|o| o.to_le_bytes()).collect()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_nulls_and_ranges() {
        let spec = vec![
            ("a".to_string(), Kind::Str),
            ("b".to_string(), Kind::I32),
            ("c".to_string(), Kind::ListStr),
        ];
        let mut t = Table::new("t", &spec);
        let (a, b, c) = (t.col("a"), t.col("b"), t.col("c"));
        t.str(a, Some("x"));
        t.list(c, Some(["p", "q"]));
        t.end_row();
        t.int(b, Some(7));
        t.end_row();
        assert_eq!(t.rows(), 2);
        assert_eq!(t.columns[0].valid, vec![true, false]);
        assert_eq!(t.columns[1].ints, vec![0, 7]);
        assert_eq!(t.columns[2].list_offsets, vec![0, 2, 2]);
        let mut u = t.empty_like();
        u.append_range(&t, 1, 2);
        u.append_range(&t, 0, 1);
        assert_eq!(u.columns[0].offsets, vec![0, 0, 1]);
        assert_eq!(u.columns[2].list_offsets, vec![0, 0, 2]);
        assert_eq!(bitmap(&[true, false, true]), vec![0b101]);
    }
}
