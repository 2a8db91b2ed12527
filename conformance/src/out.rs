//! Writing to the terminal without panicking.
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone (`conformance --format json | head -1`)
//! fails with `BrokenPipe`, and `print!` turns that into a panic (exit 101). Every write to stdout goes
//! through [`print()`] instead: a closed pipe ends the output quietly, as it does for other Unix tools, and the
//! program finishes its work (reports, exit status) without writing more. Messages on stderr go through
//! [`warn()`], which drops what it cannot write: a closed stderr must not turn a finished run into a crash.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader has gone; later output is dropped.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout. A reader that closed the pipe is not an error (the output ends there); any other
/// failure (a full disk behind a redirection) is, with the reason.
pub fn print(text: &str) -> Result<(), String> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(format!("cannot write to stdout: {e}")),
    }
}

/// Writes one line to stderr, dropping it if stderr cannot take it.
pub fn warn(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}
