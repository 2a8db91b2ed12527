//! Reading input files with a size cap: every reader of the store goes through here, so none of them can be made
//! to read without end (`/dev/zero`, a FIFO fed forever) or to hold a file larger than its limit
//! ([`crate::limits`]).
//!
//! Only regular files are read. A FIFO, socket or device is refused before it is opened: opening a FIFO blocks
//! until a writer appears, and a device has no size to check. A regular file larger than the cap is refused from its
//! metadata before any of it is read; the read itself also stops one byte past the cap, so a file that grows while
//! it is read is refused too. Text must be UTF-8; the error names the line, column and byte offset of the first
//! invalid byte.

use crate::error::{Error, Pos, Result};
use crate::limits;
use std::io::Read;
use std::path::Path;

/// Reads the whole of the regular file `path`, refusing it when it is larger than `max` bytes.
pub fn read_bytes(path: &Path, max: u64) -> Result<Vec<u8>> {
    // `metadata` follows symlinks and does not open the file, so a FIFO is refused without blocking.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    check_regular(path, &meta)?;
    check_size(path, meta.len(), max)?;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // The path may have been replaced between the two calls: check what was opened.
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    check_regular(path, &meta)?;
    check_size(path, meta.len(), max)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(meta.len() as usize)
        .map_err(|_| too_large(path, meta.len(), max))?;
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    check_size(path, bytes.len() as u64, max)?;
    Ok(bytes)
}

/// Reads the regular file `path` as UTF-8 text of at most `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String> {
    let bytes = read_bytes(path, max)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        utf8_error(path, e.as_bytes(), at)
    })
}

/// Checks that `bytes` (the contents of `path`) are UTF-8; the error names the first invalid byte.
pub fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| utf8_error(path, bytes, e.valid_up_to()))
}

fn utf8_error(path: &Path, bytes: &[u8], at: usize) -> Error {
    // The prefix up to `at` is valid UTF-8 by definition of `valid_up_to`.
    let before = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let pos = Pos::of_offset(before, at);
    Error::syntax(
        path,
        pos,
        format!(
            "invalid UTF-8 at byte offset {at} (byte 0x{:02x}): the file must be UTF-8 text",
            bytes.get(at).copied().unwrap_or(0)
        ),
    )
}

fn check_regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file (a FIFO, socket or device)"
    };
    Err(Error::syntax(
        path,
        Pos::default(),
        format!("{what}: measurement inputs are read from regular files only"),
    ))
}

fn check_size(path: &Path, len: u64, max: u64) -> Result<()> {
    if len > max {
        return Err(too_large(path, len, max));
    }
    Ok(())
}

fn too_large(path: &Path, len: u64, max: u64) -> Error {
    Error::syntax(
        path,
        Pos::default(),
        format!(
            "the file has {len} bytes or more; this reader takes at most {} (measurements crate docs, `limits`)",
            limits::bytes(max)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_sizes_and_refuses_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_bytes(&p, 10).unwrap(), b"0123456789");
        let e = read_bytes(&p, 9).unwrap_err().to_string();
        assert!(e.contains("a.txt") && e.contains("at most 9 bytes"), "{e}");
        let e = read_bytes(dir.path(), 10).unwrap_err().to_string();
        assert!(e.contains("a folder"), "{e}");
        #[cfg(unix)]
        {
            let e = read_bytes(Path::new("/dev/zero"), 1 << 20)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("/dev/zero") && e.contains("not a regular file"),
                "{e}"
            );
        }
    }

    #[test]
    fn invalid_utf8_names_line_column_and_byte() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.toml");
        std::fs::write(&p, b"a = 1\nbb = \"x\xffy\"\n").unwrap();
        let e = read_text(&p, 100).unwrap_err().to_string();
        assert!(
            e.contains("bad.toml:2:8") && e.contains("byte offset 13") && e.contains("0xff"),
            "{e}"
        );
    }
}
