//! The row CSV format: reading with line-precise errors, canonical writing.

use crate::atomic::write_atomic;
use crate::error::{Error, Pos, Result};
use crate::hex::{format_dwords, parse_dwords, truncate};
use crate::id::valid_id;
use crate::mode::{parse_bit, parse_float_mode, FloatMode};
use crate::row::{valid_target, Cell, Check, Evidence, Placement, Row};
use std::path::Path;

/// The header every row file starts with, in this order.
pub const HEADER: [&str; 19] = [
    "id",
    "suite",
    "kernel",
    "target",
    "float_mode",
    "ieee",
    "dx10_clamp",
    "fp16_ovfl",
    "dispatch",
    "lane",
    "inputs",
    "array",
    "stride_dwords",
    "columns",
    "outputs",
    "masks",
    "checks",
    "evidence",
    "source",
];

/// A row and the position of its line in the file it was read from.
pub type Located<T> = (T, Pos);

/// Parses row-file bytes. `path` is used in messages only.
///
/// The bytes must be UTF-8 (the error names the line, column and byte offset of the first invalid byte) and no
/// record may be longer than [`crate::limits::MAX_CSV_RECORD_BYTES`].
pub fn parse_rows(path: &Path, bytes: &[u8]) -> Result<Vec<Located<Row>>> {
    crate::input::utf8(path, bytes)?;
    // Every writer ends the last line; a file that stops mid-line was cut short, even when the cut
    // left a well-formed row (e.g. inside the free-text `source`).
    if bytes.last().is_some_and(|&b| b != b'\n') {
        let line = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        return Err(Error::syntax(
            path,
            Pos::new(line, 0),
            "the last line has no newline: the file is truncated",
        ));
    }
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut rows = Vec::new();
    let mut header_seen = false;
    let mut record = csv::StringRecord::new();
    loop {
        let more = rdr
            .read_record(&mut record)
            .map_err(|e| csv_error(path, &e))?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        let record_bytes = record.as_slice().len() + record.len();
        if record_bytes > crate::limits::MAX_CSV_RECORD_BYTES {
            return Err(Error::syntax(
                path,
                Pos::new(line, 0),
                format!(
                    "the record has {record_bytes} bytes; a row has at most {}",
                    crate::limits::bytes(crate::limits::MAX_CSV_RECORD_BYTES as u64)
                ),
            ));
        }
        if !header_seen {
            let got: Vec<&str> = record.iter().collect();
            if got != HEADER {
                return Err(Error::syntax(
                    path,
                    Pos::new(line, 1),
                    format!(
                        "the header must be `{}`, found `{}`",
                        HEADER.join(","),
                        truncate(&got.join(","))
                    ),
                ));
            }
            header_seen = true;
            continue;
        }
        if record.len() != HEADER.len() {
            return Err(Error::syntax(
                path,
                Pos::new(line, record.len().min(HEADER.len()) as u64),
                format!(
                    "the row has {} fields, the header {}",
                    record.len(),
                    HEADER.len()
                ),
            ));
        }
        let row = parse_record(&record)
            .and_then(|row| check_row(&row).map(|()| row))
            .map_err(|(field, message)| {
                Error::syntax(
                    path,
                    Pos::new(line, field as u64 + 1),
                    format!("field `{}`: {message}", HEADER[field]),
                )
            })?;
        rows.push((row, Pos::new(line, 0)));
    }
    if !header_seen {
        return Err(Error::syntax(
            path,
            Pos::new(1, 1),
            "the file is empty: it needs at least the header line",
        ));
    }
    Ok(rows)
}

/// Reads a row file (at most [`crate::limits::MAX_CSV_FILE_BYTES`]).
pub fn read_rows(path: &Path) -> Result<Vec<Located<Row>>> {
    let bytes = crate::input::read_bytes(path, crate::limits::MAX_CSV_FILE_BYTES)?;
    parse_rows(path, &bytes)
}

/// Checks what a row's fields may hold beyond their syntax: the names ([`crate::names`]), the target
/// ([`valid_target`]) and the source (non-empty, at most [`crate::limits::MAX_SOURCE_BYTES`], one line). The
/// reader runs it on every row it parses and the writer on every row before it writes, so the two agree; the
/// error is the field index (in [`HEADER`]) and the message.
pub fn check_row(row: &Row) -> std::result::Result<(), (usize, String)> {
    crate::names::suite(&row.suite).map_err(|m| (1, m))?;
    crate::names::kernel(&row.kernel).map_err(|m| (2, m))?;
    if !valid_target(&row.target) {
        return Err((
            3,
            format!(
                "target `{}` is not a known target ({})",
                truncate(&row.target),
                crate::row::KNOWN_TARGETS.join(", ")
            ),
        ));
    }
    crate::names::array(&row.placement.array).map_err(|m| (11, m))?;
    check_source(&row.source).map_err(|m| (18, m))
}

/// A row's `source`: non-empty, at most [`crate::limits::MAX_SOURCE_BYTES`], no control characters.
pub fn check_source(source: &str) -> std::result::Result<(), String> {
    if source.trim().is_empty() {
        return Err("every row needs its source".into());
    }
    let max = crate::limits::MAX_SOURCE_BYTES;
    if source.len() > max {
        return Err(format!(
            "the source has {} bytes; a row's sources take at most {max} (`{}`)",
            source.len(),
            truncate(source)
        ));
    }
    if source.chars().any(char::is_control) {
        return Err(format!(
            "the source `{}` has a control character",
            truncate(source)
        ));
    }
    Ok(())
}

fn csv_error(path: &Path, e: &csv::Error) -> Error {
    let pos = e
        .position()
        .map_or(Pos::default(), |p| Pos::new(p.line(), 0));
    let message = match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => format!("invalid UTF-8 in field {}", err.field() + 1),
        _ => crate::hex::shorten_message(&e.to_string()),
    };
    Error::syntax(path, pos, message)
}

/// A decimal `u32` in its one canonical spelling (no sign, no leading zeros), so a row reads back as written.
fn decimal(text: &str) -> Option<u32> {
    text.parse::<u32>()
        .ok()
        .filter(|_| !text.starts_with('+') && (text == "0" || !text.starts_with('0')))
}

fn parse_record(r: &csv::StringRecord) -> std::result::Result<Row, (usize, String)> {
    let f = |i: usize| r.get(i).unwrap_or_default();
    let id = f(0).to_string();
    if !valid_id(&id) {
        return Err((
            0,
            format!(
                "`{}` is not a measurement ID (M- and 16 lowercase hex digits)",
                truncate(&id)
            ),
        ));
    }
    // Names and the target are checked by `check_row`, the function the writer uses too.
    let suite = f(1).to_string();
    let kernel = f(2).to_string();
    let target = f(3).to_string();
    let mode = FloatMode {
        float_mode: parse_float_mode(f(4)).map_err(|e| (4, e))?,
        ieee: parse_bit("ieee", f(5)).map_err(|e| (5, e))?,
        dx10_clamp: parse_bit("dx10_clamp", f(6)).map_err(|e| (6, e))?,
        fp16_ovfl: parse_bit("fp16_ovfl", f(7)).map_err(|e| (7, e))?,
    };
    let dispatch = f(8).to_string();
    if dispatch.len() != 16
        || !dispatch
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err((
            8,
            format!(
                "`{}` is not a dispatch hash (16 lowercase hex digits)",
                truncate(&dispatch)
            ),
        ));
    }
    let lane = decimal(f(9)).ok_or((9, format!("`{}` is not a lane number", truncate(f(9)))))?;
    let inputs = parse_dwords(f(10)).map_err(|e| (10, e))?;
    let array = f(11).to_string();
    let stride_dwords =
        decimal(f(12)).ok_or((12, format!("`{}` is not a dword count", truncate(f(12)))))?;
    let mut columns = Vec::new();
    for (i, c) in f(13).split_ascii_whitespace().enumerate() {
        // The canonical spelling only (`+1` and `01` would read as 1 and write back as `1`).
        let v = decimal(c).ok_or_else(|| {
            (
                13,
                format!("item {}: `{}` is not a dword index", i + 1, truncate(c)),
            )
        })?;
        if columns.last().is_some_and(|&last| v <= last) {
            return Err((
                13,
                format!("item {}: columns must be strictly ascending", i + 1),
            ));
        }
        columns.push(v);
    }
    if columns.is_empty() {
        return Err((13, "a row needs at least one column".into()));
    }
    let outputs = parse_dwords(f(14)).map_err(|e| (14, e))?;
    if outputs.len() != columns.len() {
        return Err((
            14,
            format!("{} outputs for {} columns", outputs.len(), columns.len()),
        ));
    }
    let masks = if f(15).is_empty() {
        vec![u32::MAX; columns.len()]
    } else {
        parse_dwords(f(15)).map_err(|e| (15, e))?
    };
    if masks.len() != columns.len() {
        return Err((
            15,
            format!(
                "{} masks for {} columns (leave it empty for all ffffffff)",
                masks.len(),
                columns.len()
            ),
        ));
    }
    let checks: Vec<Check> = if f(16).is_empty() {
        vec![Check::Exact; columns.len()]
    } else {
        f(16)
            .chars()
            .enumerate()
            .map(|(i, c)| {
                Check::from_letter(c).ok_or((
                    16,
                    format!("letter {} `{c}` is not one of x n h l a -", i + 1),
                ))
            })
            .collect::<std::result::Result<_, _>>()?
    };
    if checks.len() != columns.len() {
        return Err((
            16,
            format!(
                "{} check letters for {} columns (leave it empty for all x)",
                checks.len(),
                columns.len()
            ),
        ));
    }
    let evidence = Evidence::parse(f(17)).ok_or((
        17,
        format!(
            "`{}` is not hardware, peer-pinned or peer-formula",
            truncate(f(17))
        ),
    ))?;
    let source = f(18).to_string();
    let cells = (0..columns.len())
        .map(|i| Cell {
            column: columns[i],
            value: outputs[i],
            mask: masks[i],
            check: checks[i],
        })
        .collect();
    Ok(Row {
        id,
        suite,
        kernel,
        target,
        mode,
        dispatch,
        lane,
        inputs,
        placement: Placement {
            array,
            stride_dwords,
        },
        cells,
        evidence,
        source,
    })
}

/// Renders rows as CSV text, in the given order, with the compact forms (empty masks when all are ffffffff,
/// empty checks when all are `x`).
pub fn rows_to_csv(rows: &[Row]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to a Vec cannot fail.
    let _ = w.write_record(HEADER);
    for r in rows {
        let columns: Vec<String> = r.cells.iter().map(|c| c.column.to_string()).collect();
        let outputs: Vec<u32> = r.cells.iter().map(|c| c.value).collect();
        let masks: Vec<u32> = r.cells.iter().map(|c| c.mask).collect();
        let checks: String = r.cells.iter().map(|c| c.check.letter()).collect();
        let lane = r.lane.to_string();
        let stride = r.placement.stride_dwords.to_string();
        let record = [
            r.id.as_str(),
            &r.suite,
            &r.kernel,
            &r.target,
            &format!("{:02x}", r.mode.float_mode),
            if r.mode.ieee { "1" } else { "0" },
            if r.mode.dx10_clamp { "1" } else { "0" },
            if r.mode.fp16_ovfl { "1" } else { "0" },
            &r.dispatch,
            &lane,
            &format_dwords(&r.inputs),
            &r.placement.array,
            &stride,
            &columns.join(" "),
            &format_dwords(&outputs),
            &if masks.iter().all(|&m| m == u32::MAX) {
                String::new()
            } else {
                format_dwords(&masks)
            },
            &if checks.chars().all(|c| c == 'x') {
                String::new()
            } else {
                checks
            },
            r.evidence.name(),
            &r.source,
        ];
        let _ = w.write_record(record);
    }
    w.into_inner().unwrap_or_default()
}

/// Writes rows to `path` atomically (crate docs: temp file, fsync, rename).
pub fn write_rows(path: &Path, rows: &[Row]) -> Result<()> {
    write_atomic(path, &rows_to_csv(rows))
}
