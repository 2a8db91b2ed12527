//! Errors of the measurement store. Every variant names the file and, where the input has lines, the line and
//! column of the offending text, so a contributor can fix a file without guessing.

use crate::row::Cell;
use std::fmt;
use std::path::{Path, PathBuf};

/// A position in a text file (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// 1-based line number; 0 when the input has no line structure.
    pub line: u64,
    /// 1-based column (character in the line, or field number for CSV); 0 when unknown.
    pub column: u64,
}

impl Pos {
    /// A position from a line and column.
    pub fn new(line: u64, column: u64) -> Self {
        Pos { line, column }
    }

    /// The line and column of byte `offset` in `text`.
    pub fn of_offset(text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        let before = &text.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1;
        Pos { line, column }
    }
}

/// Positions of many byte offsets of one text, computed in one forward pass: each lookup walks only from the
/// previous offset, so `n` ascending lookups over a text of `len` bytes cost `O(len + n)` instead of the
/// `O(n * len)` of calling [`Pos::of_offset`] for each. A lookup behind the previous one starts again from the
/// beginning (correct, only slower), so callers look up in file order.
#[derive(Debug, Clone)]
pub struct PosCursor<'a> {
    text: &'a str,
    offset: usize,
    pos: Pos,
    scanned: usize,
}

impl<'a> PosCursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        PosCursor {
            text,
            offset: 0,
            pos: Pos::new(1, 1),
            scanned: 0,
        }
    }

    /// The line and column of byte `offset` (clamped to the text, moved back to a character boundary).
    pub fn at(&mut self, offset: usize) -> Pos {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.offset {
            self.offset = 0;
            self.pos = Pos::new(1, 1);
        }
        for c in self.text[self.offset..offset].chars() {
            if c == '\n' {
                self.pos = Pos::new(self.pos.line + 1, 1);
            } else {
                self.pos.column += 1;
            }
        }
        self.scanned += offset - self.offset;
        self.offset = offset;
        self.pos
    }

    /// Bytes walked so far, over all lookups: what the tests hold linear.
    pub fn scanned(&self) -> usize {
        self.scanned
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => Ok(()),
            (l, 0) => write!(f, ":{l}"),
            (l, c) => write!(f, ":{l}:{c}"),
        }
    }
}

/// Everything that can go wrong reading, validating, merging or writing measurements.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file's text is malformed or a value in it is invalid.
    #[error("{}{pos}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        pos: Pos,
        /// What was wrong, in words.
        message: String,
    },
    /// Two rows claim the same measurement ID but disagree on an output: a repeatability failure.
    #[error("{0}")]
    Conflict(Box<Conflict>),
}

impl Error {
    /// A syntax error at `pos` of `path`.
    pub fn syntax(path: &Path, pos: Pos, message: impl Into<String>) -> Self {
        Error::Syntax {
            path: path.to_path_buf(),
            pos,
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where a row came from, for error messages: a file and line, or a description of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file (CSV or peer JSON).
    pub path: PathBuf,
    /// Where in it.
    pub pos: Pos,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.path.display(), self.pos)
    }
}

/// The same measurement ID with two different expectations of one output dword. Never resolved silently: the
/// caller reports it.
#[derive(Debug, Clone)]
pub struct Conflict {
    /// The measurement ID both rows carry.
    pub id: String,
    /// The output dword index where they differ.
    pub column: u32,
    /// The first row's cell (value, mask, check) and where it was read.
    pub first: (Cell, Origin),
    /// The second row's cell and where it was read.
    pub second: (Cell, Origin),
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (&self.second.0, &self.first.0);
        write!(
            f,
            "{}: repeatability conflict: measurement {} output dword {}",
            self.second.1, self.id, self.column
        )?;
        let mut parts = Vec::new();
        if a.mask != b.mask {
            parts.push(format!("mask {:08x} here, {:08x} there", a.mask, b.mask));
        }
        if a.check != b.check {
            parts.push(format!(
                "check `{}` here, `{}` there",
                a.check.letter(),
                b.check.letter()
            ));
        }
        // Say what differs: a message that prints two equal values is no help.
        if a.value == b.value {
            let what = match (a.mask != b.mask, a.check != b.check) {
                (true, true) => "their masks and checks",
                (true, false) => "their masks",
                _ => "their checks",
            };
            write!(
                f,
                ": the rows differ only in {what} ({}; both expect {:08x}) at {}",
                parts.join("; "),
                a.value,
                self.first.1
            )
        } else {
            write!(
                f,
                " is {:08x} here but {:08x} at {}",
                a.value, b.value, self.first.1
            )?;
            if !parts.is_empty() {
                write!(f, " ({})", parts.join("; "))?;
            }
            Ok(())
        }
    }
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_agrees_with_of_offset_and_walks_the_text_once() {
        let text = "ab\ncé\n\nxyz\n".repeat(1000);
        let offsets: Vec<usize> = (0..text.len())
            .step_by(7)
            .filter(|&o| text.is_char_boundary(o))
            .collect();
        let mut c = PosCursor::new(&text);
        for &o in &offsets {
            assert_eq!(c.at(o), Pos::of_offset(&text, o), "offset {o}");
        }
        // Ascending lookups walk each byte at most once: what keeps import linear in the number of cases.
        assert!(
            c.scanned() <= text.len(),
            "{} > {}",
            c.scanned(),
            text.len()
        );
        // A lookup behind the last one is still right.
        assert_eq!(c.at(3), Pos::new(2, 1));
    }
}
