//! `oracle disasm`: gfx10 words to LLVM assembler syntax, through `reference_model::isa`.
//!
//! Input is either words on the command line (`0x` prefix optional, eight hex digits each) or a file holding
//! hex words (separated by whitespace or commas, `0x` optional) or, when the file is not such text, a
//! little-endian binary blob. Output is one instruction per line, as `llvm-mc --disassemble` prints it. A word
//! that llvm-mc 19 rejects but the decoder reads (see the `isa` module docs) is printed with a `; non-canonical`
//! comment saying why LLVM rejects it; that is a statement about LLVM, not a claim about the hardware.

use std::path::Path;

use reference_model::isa::{self, Target};

/// Disassembles `words` (command-line words) or the words of `file` for `target` (`gfx1013` or `gfx1030`).
pub fn run(target: &str, words: &[String], file: Option<&Path>) -> Result<String, String> {
    let target = Target::from_name(target)
        .ok_or_else(|| format!("unknown target `{target}` (expected gfx1013 or gfx1030)"))?;
    let words = match file {
        Some(_) if !words.is_empty() => return Err("give words or --file, not both".into()),
        Some(path) => read_file(path)?,
        None => parse_words(words.iter().map(String::as_str), "word")?,
    };
    if words.is_empty() {
        return Err("no words to disassemble".into());
    }
    listing(target, &words)
}

/// The listing of a word stream: one line per instruction; stops at the first word that is no instruction.
pub fn listing(target: Target, words: &[u32]) -> Result<String, String> {
    let mut out = String::new();
    let mut i = 0;
    while i < words.len() {
        let inst = isa::decode(target, words, i).map_err(|e| e.to_string())?;
        out.push_str(&inst.to_string());
        if let Some(why) = inst.non_canonical_reason() {
            out.push_str("\t; non-canonical: ");
            out.push_str(why);
        }
        out.push('\n');
        i += inst.size as usize;
    }
    Ok(out)
}

fn parse_word(s: &str) -> Option<u32> {
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if h.len() != 8 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

fn parse_words<'a>(tokens: impl Iterator<Item = &'a str>, what: &str) -> Result<Vec<u32>, String> {
    tokens
        .enumerate()
        .map(|(k, t)| {
            parse_word(t).ok_or_else(|| {
                format!("{what} {k} (`{t}`): not a word (8 hex digits, optional 0x)")
            })
        })
        .collect()
}

/// Largest file `--file` reads: 16 M words, far more than any kernel (a FIFO or device is refused like every
/// other input of the workspace, `measurements::input`).
const MAX_FILE_BYTES: u64 = 64 << 20;

fn read_file(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = measurements::input::read_bytes(path, MAX_FILE_BYTES).map_err(|e| e.to_string())?;
    if let Ok(text) = std::str::from_utf8(&bytes) {
        let tokens: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .collect();
        // Text made only of word-shaped tokens is a hex listing; anything else is a binary blob that happens to
        // be valid UTF-8.
        if !tokens.is_empty() && tokens.iter().all(|t| parse_word(t).is_some()) {
            return parse_words(tokens.into_iter(), &format!("{}: word", path.display()));
        }
    }
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{}: {} bytes is neither a hex word listing nor a whole number of 4-byte words",
            path.display(),
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn words_on_the_command_line() {
        let out = run("gfx1013", &s(&["0x7e140304", "bf810000"]), None).unwrap();
        assert_eq!(out, "v_mov_b32_e32 v10, v4\ns_endpgm\n");
    }

    #[test]
    fn literal_and_non_canonical() {
        let out = run(
            "gfx1030",
            &s(&["7e0202ff", "3f800000", "d564000a", "02020d04"]),
            None,
        )
        .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "v_mov_b32_e32 v1, 1.0");
        assert!(lines[1].starts_with("v_add_f64 v[10:11], v[4:5], v[6:7]\t; non-canonical"));
    }

    #[test]
    fn bad_input_names_the_word() {
        let e = run("gfx1013", &s(&["7e140304", "12345"]), None).unwrap_err();
        assert!(e.contains("word 1"), "{e}");
        let e = run("gfx1013", &s(&["ffffffff"]), None).unwrap_err();
        assert!(e.starts_with("word 0"), "{e}");
        let e = run("gfx1013", &s(&["7e0202ff"]), None).unwrap_err();
        assert!(e.contains("word 0") && e.contains("needs 2 words"), "{e}");
        assert!(run("gfx9", &s(&["bf810000"]), None)
            .unwrap_err()
            .contains("unknown target"));
    }

    #[test]
    fn files_hex_and_binary() {
        let dir = std::env::temp_dir().join(format!("isa-disasm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let hex = dir.join("k.hex");
        std::fs::write(&hex, "0x7e140304, bf810000\n").unwrap();
        assert_eq!(
            run("gfx1013", &[], Some(&hex)).unwrap(),
            "v_mov_b32_e32 v10, v4\ns_endpgm\n"
        );
        let bin = dir.join("k.bin");
        let mut b = Vec::new();
        for w in [0x7e14_0304u32, 0xbf81_0000] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        std::fs::write(&bin, &b).unwrap();
        assert_eq!(
            run("gfx1013", &[], Some(&bin)).unwrap(),
            "v_mov_b32_e32 v10, v4\ns_endpgm\n"
        );
        std::fs::write(&bin, &b[..5]).unwrap();
        assert!(run("gfx1013", &[], Some(&bin))
            .unwrap_err()
            .contains("5 bytes"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
