//! `oracle disasm`: gfx10 words to LLVM assembler syntax, through `reference_model::isa`.
//!
//! # Input
//!
//! - Words on the command line: eight hex digits each, `0x` optional; one argument may hold several,
//!   separated by whitespace or commas.
//! - `--file PATH` (`-` for stdin): a hex listing, the same tokens separated by whitespace or commas, when the
//!   file is text (only printable ASCII and whitespace); otherwise, or with `--binary`, a little-endian binary
//!   blob of whole 4-byte words. A text file is never guessed to be binary: a token that is not a word is an
//!   error naming its line and column (and pointing at `--binary` for a blob that happens to be printable).
//!
//! # Output
//!
//! One instruction per line on stdout, as `llvm-mc --disassemble` prints it. A word that llvm-mc 19 rejects but
//! the decoder reads (see the `isa` module docs) is printed with a `; non-canonical` comment saying why LLVM
//! rejects it; that is a statement about LLVM, not a claim about the hardware. A word that is no instruction is
//! handled as llvm-mc handles it: a warning on stderr naming its word index (and its place in the file), then
//! decoding resumes at the next word, so one bad word never hides the rest of a kernel.
//!
//! The target is any name of [`reference_model::exec::TARGET_NAMES`]: `gfx1013` or `ps5` decode with gfx1013's
//! tables, `rdna2` or `gfx1030`..`gfx1036` with gfx1030's.

use std::io::Read;
use std::path::Path;

use reference_model::exec::{target_of, TARGET_NAMES};
use reference_model::isa::{self, Target};

/// A disassembly: the listing and one warning per word that is no instruction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// One line per decoded instruction.
    pub text: String,
    /// One message per word that could not be decoded (decoding went on at the next word).
    pub warnings: Vec<String>,
}

/// The names `--target` accepts, for messages: `gfx1013, ps5, rdna2, gfx1030, ...`.
pub fn target_names() -> String {
    TARGET_NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The instruction set of a target name ([`TARGET_NAMES`], case-insensitive); the error lists the names.
pub fn parse_target(name: &str) -> Result<Target, String> {
    target_of(&name.to_ascii_lowercase()).ok_or_else(|| {
        format!(
            "unknown target `{name}` (expected one of {}: gfx1013 and ps5 decode as gfx1013, the others as \
             gfx1030)",
            target_names()
        )
    })
}

/// A 1-based line and column in a text listing.
type LineColumn = (usize, usize);

/// Where a word of the input came from, for warnings.
enum Origin {
    /// The command line.
    Arguments,
    /// A text listing: the name and every word's line and column.
    Text(String, Vec<LineColumn>),
    /// A binary blob: its name.
    Binary(String),
}

impl Origin {
    fn prefix(&self, word: usize) -> String {
        match self {
            Origin::Arguments => String::new(),
            Origin::Text(name, at) => at
                .get(word)
                .map_or(format!("{name}: "), |(l, c)| format!("{name}:{l}:{c}: ")),
            Origin::Binary(name) => format!("{name}: byte {}: ", word * 4),
        }
    }
}

/// Disassembles `words` (command-line words) or the words of `file` (`-`: stdin; `binary` forces a blob) for
/// `target`. `Err` is a usage or input error (exit 2); bad words are warnings in the [`Listing`] (exit 1).
pub fn run(
    target: &str,
    words: &[String],
    file: Option<&Path>,
    binary: bool,
) -> Result<Listing, String> {
    let target = parse_target(target)?;
    let (words, origin) = read_words(words, file, binary)?;
    Ok(listing_with(target, &words, &origin))
}

/// The words of command-line arguments or of `file`, read as `run` reads them; `Err` for none.
pub fn input_words(
    words: &[String],
    file: Option<&Path>,
    binary: bool,
) -> Result<Vec<u32>, String> {
    read_words(words, file, binary).map(|(w, _)| w)
}

fn read_words(
    words: &[String],
    file: Option<&Path>,
    binary: bool,
) -> Result<(Vec<u32>, Origin), String> {
    let (words, origin) = match file {
        Some(_) if !words.is_empty() => return Err("give words or --file, not both".into()),
        Some(path) => read_file(path, binary)?,
        None if binary => return Err("--binary needs --file".into()),
        None => (parse_arguments(words)?, Origin::Arguments),
    };
    if words.is_empty() {
        return Err("no words in the input".into());
    }
    Ok((words, origin))
}

/// The listing of a word stream: one line per instruction, one warning (naming the word index) per word that
/// is no instruction, after which decoding resumes at the next word, as llvm-mc does.
pub fn listing(target: Target, words: &[u32]) -> Listing {
    listing_with(target, words, &Origin::Arguments)
}

fn listing_with(target: Target, words: &[u32], origin: &Origin) -> Listing {
    let mut out = Listing::default();
    let mut i = 0;
    while i < words.len() {
        match isa::decode(target, words, i) {
            Ok(inst) => {
                out.text.push_str(&inst.to_string());
                if let Some(why) = inst.non_canonical_reason() {
                    out.text.push_str("\t; non-canonical: ");
                    out.text.push_str(why);
                }
                out.text.push('\n');
                i += inst.size as usize;
            }
            Err(e) => {
                // Every DecodeError names the word index it starts at, which is `i`.
                out.warnings.push(format!("{}{e}", origin.prefix(i)));
                i += 1;
            }
        }
    }
    out
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

const WORD_SHAPE: &str = "8 hex digits, optional 0x";

fn is_separator(c: char) -> bool {
    c.is_ascii_whitespace() || c == ','
}

fn parse_arguments(args: &[String]) -> Result<Vec<u32>, String> {
    let mut words = Vec::new();
    for a in args {
        for t in a.split(is_separator).filter(|t| !t.is_empty()) {
            let w = parse_word(t).ok_or_else(|| {
                format!("word {} (`{t}`): not a word ({WORD_SHAPE})", words.len())
            })?;
            words.push(w);
        }
    }
    Ok(words)
}

/// Text for the purpose of choosing how to read a file: printable ASCII and whitespace only.
fn is_text(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// The most input `--file` reads: 64 MiB, 16 million words, a thousand times the largest instruction stream
/// the project handles (the 131,976-instruction decode benchmark). Past it the input is refused, so `--file
/// /dev/zero` is an error, not an out-of-memory abort.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

fn read_file(path: &Path, binary: bool) -> Result<(Vec<u32>, Origin), String> {
    let (name, reader): (String, Box<dyn Read>) = if path == Path::new("-") {
        ("<stdin>".into(), Box::new(std::io::stdin()))
    } else {
        // A FIFO or device is refused before it is opened, like every input of the workspace (this file is
        // std-only: the reference model's tests compile it by path).
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file", path.display()));
        }
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        (path.display().to_string(), Box::new(f))
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "{name}: more than {MAX_INPUT_BYTES} bytes; `oracle disasm` reads at most that much"
        ));
    }
    if !binary && is_text(&bytes) {
        // Only ASCII here, so byte columns are character columns.
        let text = std::str::from_utf8(&bytes).map_err(|e| format!("{name}: {e}"))?;
        let (words, at) = parse_listing(text, &name)?;
        return Ok((words, Origin::Text(name, at)));
    }
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{name}: {} bytes of binary is not a whole number of 4-byte words{}",
            bytes.len(),
            if binary {
                ""
            } else {
                " (the file is read as binary because it holds bytes that are not printable ASCII)"
            }
        ));
    }
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((words, Origin::Binary(name)))
}

/// The words of a hex listing and the line and column (1-based) of each; a token that is not a word is an
/// error naming where it is.
fn parse_listing(text: &str, name: &str) -> Result<(Vec<u32>, Vec<LineColumn>), String> {
    let mut words = Vec::new();
    let mut at = Vec::new();
    for (l, line) in text.split('\n').enumerate() {
        let mut col = 0;
        for t in line.split(is_separator) {
            if !t.is_empty() {
                let w = parse_word(t).ok_or_else(|| {
                    format!(
                        "{name}:{}:{}: `{t}` is not a word ({WORD_SHAPE}); a hex listing holds only words \
                         separated by whitespace or commas (for a binary blob, pass --binary)",
                        l + 1,
                        col + 1
                    )
                })?;
                words.push(w);
                at.push((l + 1, col + 1));
            }
            col += t.len() + 1;
        }
    }
    Ok((words, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary folder, removed when dropped. Plain std: this file is also
    /// compiled into reference-model's tests (tests/isa_oracle_disasm.rs), which have no tempfile.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let p =
                std::env::temp_dir().join(format!("oracle-disasm-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn text(target: &str, words: &[&str]) -> String {
        let l = run(target, &s(words), None, false).unwrap();
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        l.text
    }

    #[test]
    fn words_on_the_command_line() {
        assert_eq!(
            text("gfx1013", &["0x7e140304", "bf810000"]),
            "v_mov_b32_e32 v10, v4\ns_endpgm\n"
        );
        // Several words in one argument, as copied from a listing.
        assert_eq!(
            text("gfx1013", &["0x7e140304, bf810000"]),
            "v_mov_b32_e32 v10, v4\ns_endpgm\n"
        );
    }

    #[test]
    fn literal_and_non_canonical() {
        let out = text("gfx1030", &["7e0202ff", "3f800000", "d564000a", "02020d04"]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "v_mov_b32_e32 v1, 1.0");
        assert!(lines[1].starts_with("v_add_f64 v[10:11], v[4:5], v[6:7]\t; non-canonical"));
    }

    #[test]
    fn bad_input_names_the_word() {
        let e = run("gfx1013", &s(&["7e140304", "12345"]), None, false).unwrap_err();
        assert!(e.contains("word 1"), "{e}");
        assert!(run("gfx9", &s(&["bf810000"]), None, false)
            .unwrap_err()
            .contains("unknown target"));
    }

    /// Regression: one bad word made the whole listing empty. Now every decodable instruction prints, each bad
    /// word is a warning with its index, and decoding resumes at the next word (llvm-mc's behaviour).
    #[test]
    fn bad_words_are_warnings_and_decoding_resumes() {
        let l = run(
            "gfx1013",
            &s(&["7e140304", "ffffffff", "bf810000", "7e0202ff"]),
            None,
            false,
        )
        .unwrap();
        assert_eq!(l.text, "v_mov_b32_e32 v10, v4\ns_endpgm\n");
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        assert!(
            l.warnings[0].starts_with("word 1: 0xffffffff"),
            "{:?}",
            l.warnings
        );
        assert!(
            l.warnings[1].starts_with("word 3:") && l.warnings[1].contains("needs 2 words"),
            "{:?}",
            l.warnings
        );
    }

    #[test]
    fn every_target_name_maps_to_one_instruction_set() {
        for (name, t) in TARGET_NAMES {
            assert_eq!(parse_target(name), Ok(t));
        }
        assert_eq!(parse_target("RDNA2"), Ok(Target::Gfx1030));
        assert_eq!(parse_target("ps5"), Ok(Target::Gfx1013));
        let e = parse_target("gfx1100").unwrap_err();
        assert!(e.contains("rdna2") && e.contains("gfx1036"), "{e}");
    }

    #[test]
    fn files_hex_and_binary() {
        let dir = TempDir::new("files");
        let hex = dir.path().join("k.hex");
        std::fs::write(&hex, "0x7e140304, bf810000\n").unwrap();
        let l = run("gfx1013", &[], Some(&hex), false).unwrap();
        assert_eq!(l.text, "v_mov_b32_e32 v10, v4\ns_endpgm\n");
        let bin = dir.path().join("k.bin");
        let mut b = Vec::new();
        for w in [0x7e14_0304u32, 0xbf81_0000] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        std::fs::write(&bin, &b).unwrap();
        assert_eq!(
            run("gfx1013", &[], Some(&bin), false).unwrap().text,
            "v_mov_b32_e32 v10, v4\ns_endpgm\n"
        );
        std::fs::write(&bin, &b[..5]).unwrap();
        assert!(run("gfx1013", &[], Some(&bin), false)
            .unwrap_err()
            .contains("5 bytes"));
        // A printable blob is text unless --binary says otherwise.
        std::fs::write(&bin, b"AAAAZZZZ").unwrap();
        assert!(run("gfx1013", &[], Some(&bin), false).is_err());
        let l = run("gfx1013", &[], Some(&bin), true).unwrap();
        assert!(!l.text.is_empty() || !l.warnings.is_empty());
    }

    /// Regression: a text file with one bad token was read as a binary blob of its ASCII bytes.
    #[test]
    fn a_bad_token_in_a_listing_is_named_by_line_and_column() {
        let dir = TempDir::new("listing");
        let hex = dir.path().join("k.hex");
        // 16 bytes, a multiple of 4: the old reader took it for four binary words.
        std::fs::write(&hex, "7e140304\n  xyz0\n").unwrap();
        assert_eq!(std::fs::metadata(&hex).unwrap().len(), 16);
        let e = run("gfx1013", &[], Some(&hex), false).unwrap_err();
        assert!(e.contains("k.hex:2:3: `xyz0` is not a word"), "{e}");
        // Bad words of a listing are warned with their place in the file.
        std::fs::write(&hex, "7e140304,\n ffffffff bf810000\n").unwrap();
        let l = run("gfx1013", &[], Some(&hex), false).unwrap();
        assert_eq!(l.warnings.len(), 1);
        assert!(
            l.warnings[0].contains("k.hex:2:2: word 1:"),
            "{:?}",
            l.warnings
        );
    }
}
