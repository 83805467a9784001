//! Results as columns: the summary (JSON) and the time-series tables.

/// Values of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// Unsigned 32-bit integers.
    U32(Vec<u32>),
    /// Unsigned 64-bit integers.
    U64(Vec<u64>),
    /// Floats.
    F64(Vec<f64>),
}

impl ColumnData {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::U32(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
        }
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Name, with its unit as suffix.
    pub name: &'static str,
    /// Values.
    pub data: ColumnData,
}

impl Column {
    /// A column of unsigned 32-bit integers.
    pub fn u32(name: &'static str, v: Vec<u32>) -> Column {
        Column {
            name,
            data: ColumnData::U32(v),
        }
    }
    /// A column of unsigned 64-bit integers.
    pub fn u64(name: &'static str, v: Vec<u64>) -> Column {
        Column {
            name,
            data: ColumnData::U64(v),
        }
    }
    /// A column of floats.
    pub fn f64(name: &'static str, v: Vec<f64>) -> Column {
        Column {
            name,
            data: ColumnData::F64(v),
        }
    }
}

/// A table of equally long columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Table name (`goodput`, `rtt`, `cwnd`, `queue`, `owd`).
    pub name: &'static str,
    /// Columns.
    pub columns: Vec<Column>,
}

impl Table {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&ColumnData> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.data)
    }
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Summary: resolved scenario, seed, counts, per-flow and per-link metrics.
    pub summary: serde_json::Value,
    /// Time series.
    pub tables: Vec<Table>,
    /// Hops taken ahead of time over transit nodes (hop fusion, `run/fusion.rs`). Not in
    /// the summary, which is the same with or without them.
    pub fused_hops: u64,
    /// Arrival instants whose packets entered the radio late, without an event of their
    /// own (late admission, `run/lazy.rs`). Not in the summary either.
    pub late_instants: u64,
}

impl RunOutput {
    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}
