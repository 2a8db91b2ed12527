//! What a name may be. One function per kind of name, used by every reader and by every writer before it writes,
//! so the store never writes what it would refuse to read back.
//!
//! | name | characters | why |
//! |---|---|---|
//! | suite | lowercase letters, digits, `-`; starts with a letter | it is a folder name on every platform |
//! | kernel | ASCII letters, digits, `_`, `-`, `.` | a CSV field and a TOML string, no quoting surprises |
//! | array | ASCII letters, digits, `_`, `-` | `user_data` items are `<array>.<field>`: a `.` would be ambiguous |
//! | peer test | ASCII letters, digits, `_`, `-` | it becomes the suite name `peer-<test in kebab case>` |
//! | peer case | printable ASCII without spaces, `#` and `;` | it ends a row's `source` (`...#<case>`), whose parts are joined by ` ; ` |
//! | target | a known target ([`crate::row::KNOWN_TARGETS`]) | it is the CSV file's name |
//!
//! Each is at most [`MAX_NAME_BYTES`] bytes. Messages quote a refused name cut short ([`crate::hex::truncate`]).

use crate::hex::truncate;
pub use crate::limits::MAX_NAME_BYTES;

fn check(
    what: &str,
    name: &str,
    first: impl Fn(char) -> bool,
    rest: impl Fn(char) -> bool,
    rule: &str,
) -> Result<(), String> {
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "{what} name `{}` is longer than {MAX_NAME_BYTES} bytes",
            truncate(name)
        ));
    }
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(first) && chars.all(rest);
    if !ok {
        return Err(format!(
            "{what} name `{}` must be non-empty {rule}",
            truncate(name)
        ));
    }
    Ok(())
}

/// A suite name: lowercase letters, digits and `-`, starting with a letter, at most [`MAX_NAME_BYTES`].
pub fn suite(name: &str) -> Result<(), String> {
    let c = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    check(
        "suite",
        name,
        |c| c.is_ascii_lowercase(),
        c,
        "lowercase-kebab (a-z, 0-9 and `-`, starting with a letter)",
    )
}

/// A kernel name: ASCII letters, digits, `_`, `-` and `.`, at most [`MAX_NAME_BYTES`].
pub fn kernel(name: &str) -> Result<(), String> {
    let c = |c: char| c.is_ascii_alphanumeric() || "_-.".contains(c);
    check(
        "kernel",
        name,
        c,
        c,
        "ASCII letters, digits, `_`, `-` or `.`",
    )
}

/// An array name: ASCII letters, digits, `_` and `-`, at most [`MAX_NAME_BYTES`].
pub fn array(name: &str) -> Result<(), String> {
    let c = |c: char| c.is_ascii_alphanumeric() || "_-".contains(c);
    check(
        "array",
        name,
        c,
        c,
        "ASCII letters, digits, `_` or `-` (no `.`: user data reads `<array>.<field>`)",
    )
}

/// A peer test name: ASCII letters, digits, `_` and `-`, at most [`MAX_NAME_BYTES`].
pub fn peer_test(name: &str) -> Result<(), String> {
    let c = |c: char| c.is_ascii_alphanumeric() || "_-".contains(c);
    check("test", name, c, c, "ASCII letters, digits, `_` or `-`")
}

/// A peer case name: printable ASCII other than space, `#` and `;`, at most [`MAX_NAME_BYTES`].
pub fn peer_case(name: &str) -> Result<(), String> {
    let c = |c: char| c.is_ascii_graphic() && c != '#' && c != ';';
    check(
        "case",
        name,
        c,
        c,
        "printable ASCII without spaces, `#` or `;` (it ends a row's source)",
    )
}

/// Free text of a file (provenance, labels, descriptions): at most [`crate::limits::MAX_TEXT_BYTES`], no control
/// characters but tabs (the writers put each value on one line).
pub fn text(what: &str, value: &str) -> Result<(), String> {
    let max = crate::limits::MAX_TEXT_BYTES;
    if value.len() > max {
        return Err(format!(
            "{what} `{}` is longer than {max} bytes",
            truncate(value)
        ));
    }
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(format!(
            "{what} `{}` has a control character (a line break?)",
            truncate(value)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        suite("peer-f32-min-max-nan").unwrap();
        assert!(suite("Peer").is_err() && suite("").is_err() && suite("1x").is_err());
        kernel("Code.v2_a-b").unwrap();
        assert!(kernel("a b").is_err() && kernel("a,b").is_err());
        array("scratch_1").unwrap();
        assert!(array("in.lo").is_err());
        peer_case("F32_NoFloatMode").unwrap();
        assert!(peer_case("a ; b").is_err() && peer_case("a#b").is_err());
        let long = "a".repeat(MAX_NAME_BYTES + 1);
        for f in [suite, kernel, array, peer_test, peer_case] {
            f(&long[..MAX_NAME_BYTES]).unwrap();
            let e = f(&long).unwrap_err();
            assert!(e.contains("longer than 128 bytes") && e.len() < 200, "{e}");
        }
        text("label", "v_add_f32 v1, v2\tx").unwrap();
        assert!(text("label", "a\nb").is_err());
    }
}
