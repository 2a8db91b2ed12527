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

/// Where each word of a text listing is: its byte offset and the offsets where lines start, from which a
/// warning works out the word's line and column (4 bytes a word: the input is at most [`MAX_INPUT_BYTES`]).
struct Places {
    /// Byte offset of every word's first character.
    words: Vec<u32>,
    /// Byte offset of the start of every line, the first at 0.
    lines: Vec<u32>,
}

/// Where a word of the input came from, for warnings.
enum Origin {
    /// The command line.
    Arguments,
    /// A text listing: the name and where its words are.
    Text(String, Places),
    /// A binary blob: its name.
    Binary(String),
}

impl Origin {
    fn prefix(&self, word: usize) -> String {
        match self {
            Origin::Arguments => String::new(),
            Origin::Text(name, at) => match at.words.get(word) {
                Some(&off) => {
                    // The last line starting at or before the word.
                    let line = at.lines.partition_point(|&l| l <= off);
                    let col = off - at.lines[line - 1] + 1;
                    format!("{name}:{line}:{col}: ")
                }
                None => format!("{name}: "),
            },
            Origin::Binary(name) => format!("{name}: byte {}: ", word * 4),
        }
    }
}

/// Disassembles `words` (command-line words) or the words of `file` (`-`: stdin; `binary` forces a blob) for
/// `target`. `Err` is a usage or input error (exit 2); bad words are warnings in the [`Listing`] (exit 1).
// The binary prints through `run_to`; this whole-listing form is what the tests check.
#[allow(dead_code)]
pub fn run(
    target: &str,
    words: &[String],
    file: Option<&Path>,
    binary: bool,
) -> Result<Listing, String> {
    let mut text = String::new();
    let warnings = run_to(target, words, file, binary, None, &mut |chunk| {
        text.push_str(chunk);
        Ok(())
    })?;
    Ok(Listing { text, warnings })
}

/// [`run`], handing the listing to `sink` in pieces of about [`CHUNK_BYTES`] as it is made (what `oracle disasm`
/// prints, without holding the whole text); returns the warnings. `jobs` is how many threads may decode (see
/// [`write_listing`]; `None`: two where the machine has two cores). `Err` is a usage or input error, or the
/// sink's.
pub fn run_to(
    target: &str,
    words: &[String],
    file: Option<&Path>,
    binary: bool,
    jobs: Option<usize>,
    sink: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Vec<String>, String> {
    let target = parse_target(target)?;
    let (words, origin) = read_words(words, file, binary)?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    write_listing(target, &words, &origin, jobs, sink)
}

/// How much listing text [`run_to`] gathers before handing it on.
pub const CHUNK_BYTES: usize = 1 << 16;

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
    let mut text = String::new();
    let warnings = write_listing(target, words, origin, 1, &mut |chunk| {
        text.push_str(chunk);
        Ok(())
    })
    .unwrap_or_default();
    Listing { text, warnings }
}

/// Inputs of at least this many words are decoded by two threads when two may run ([`write_listing`]).
pub const PARALLEL_WORDS: usize = 1 << 16;

/// Decodes `words` and hands the listing to `sink` a chunk at a time; returns the warnings.
///
/// A long input, when `jobs` allows two threads, is decoded in two halves at once: this thread decodes
/// from the start and prints as it goes, a second thread decodes from the middle word into memory and notes
/// where each of its first instructions starts. Decoding at a word index depends only on the words from there
/// on, so once this thread reaches an instruction start the second thread also started at, everything the
/// second thread made from there on is what this thread would make, and is printed after. If the middle word
/// fell inside an instruction and the second thread never started at this thread's boundary, this thread
/// decodes the rest itself. Either way the listing and the warnings are the sequential ones, byte for byte
/// (`tests` check both cases).
fn write_listing(
    target: Target,
    words: &[u32],
    origin: &Origin,
    jobs: usize,
    sink: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Vec<String>, String> {
    let split = (jobs > 1 && words.len() >= PARALLEL_WORDS).then_some(words.len() / 2);
    write_listing_split(target, words, origin, sink, split).map(|(w, _)| w)
}

/// [`write_listing`], with the second thread starting at word `split` when there is one; also says whether the
/// second thread's work was used (false: there was none, or this thread decoded the rest itself).
fn write_listing_split(
    target: Target,
    words: &[u32],
    origin: &Origin,
    sink: &mut dyn FnMut(&str) -> Result<(), String>,
    split: Option<usize>,
) -> Result<(Vec<String>, bool), String> {
    let mut text = String::with_capacity(CHUNK_BYTES + 256);
    let mut warnings = Vec::new();
    let mut flush = |t: &mut String| -> Result<(), String> {
        sink(t)?;
        t.clear();
        Ok(())
    };
    let Some(mid) = split.filter(|&m| m > 0 && m < words.len()) else {
        decode_span(
            target,
            words,
            0,
            words.len(),
            origin,
            &mut text,
            &mut warnings,
            &mut flush,
            None,
        )?;
        if !text.is_empty() {
            flush(&mut text)?;
        }
        return Ok((warnings, false));
    };
    let (reached, second) = std::thread::scope(|s| {
        let second = s.spawn(|| {
            // About 24 bytes of listing per word: reserved so the buffer is not copied as it grows.
            let mut t = String::with_capacity((words.len() - mid) * 24);
            let mut w = Vec::new();
            let mut starts = Vec::with_capacity(SYNC_STARTS);
            let mut keep = |_: &mut String| Ok(());
            let done = decode_span(
                target,
                words,
                mid,
                words.len(),
                origin,
                &mut t,
                &mut w,
                &mut keep,
                Some(&mut starts),
            );
            done.map(|_| (t, w, starts))
        });
        let reached = decode_span(
            target,
            words,
            0,
            mid,
            origin,
            &mut text,
            &mut warnings,
            &mut flush,
            None,
        );
        // A thread that could not finish leaves the rest to this one.
        (reached, second.join().ok().and_then(Result::ok))
    });
    let reached = reached?;
    let synced = second.and_then(|(t, w, starts)| {
        let &(_, at, nw) = starts.iter().find(|(i, _, _)| *i == reached)?;
        Some((t, w, at, nw))
    });
    match synced {
        Some((t, w, at, nw)) => {
            if !text.is_empty() {
                flush(&mut text)?;
            }
            let rest = t.get(at..).unwrap_or_default();
            if !rest.is_empty() {
                sink(rest)?;
            }
            warnings.extend(w.into_iter().skip(nw));
            Ok((warnings, true))
        }
        None => {
            decode_span(
                target,
                words,
                reached,
                words.len(),
                origin,
                &mut text,
                &mut warnings,
                &mut flush,
                None,
            )?;
            if !text.is_empty() {
                flush(&mut text)?;
            }
            Ok((warnings, false))
        }
    }
}

/// Instruction starts the second thread of [`write_listing`] notes: this thread stops at the first start at or
/// past the middle word, at most four words on (an instruction is at most five), which the second thread's
/// first starts cover unless it began inside a run of words that decode otherwise from there.
const SYNC_STARTS: usize = 16;

/// Decodes from word `from` and stops at the first instruction start at or past `until` (or the end), which it
/// returns. Each line goes to `text`, which `flush` is given whenever it passes [`CHUNK_BYTES`]; each word that
/// is no instruction is a warning. `starts`, when given, gets (word index, length of `text`, warnings so far) at
/// each of the first [`SYNC_STARTS`] places decoding starts from.
#[allow(clippy::too_many_arguments)]
fn decode_span(
    target: Target,
    words: &[u32],
    from: usize,
    until: usize,
    origin: &Origin,
    text: &mut String,
    warnings: &mut Vec<String>,
    flush: &mut dyn FnMut(&mut String) -> Result<(), String>,
    mut starts: Option<&mut Vec<(usize, usize, usize)>>,
) -> Result<usize, String> {
    let mut i = from;
    while i < words.len() && i < until {
        if let Some(st) = starts.as_deref_mut().filter(|st| st.len() < SYNC_STARTS) {
            st.push((i, text.len(), warnings.len()));
        }
        // Matched by reference: an instruction is a few hundred bytes, not worth moving out of the result.
        match &isa::decode(target, words, i) {
            Ok(inst) => {
                inst.write_to(text);
                if let Some(why) = inst.non_canonical_reason() {
                    text.push_str("\t; non-canonical: ");
                    text.push_str(why);
                }
                text.push('\n');
                i += inst.size as usize;
                if text.len() >= CHUNK_BYTES {
                    flush(text)?;
                }
            }
            Err(e) => {
                // Every DecodeError names the word index it starts at, which is `i`.
                warnings.push(format!("{}{e}", origin.prefix(i)));
                i += 1;
            }
        }
    }
    Ok(i)
}

fn parse_word(s: &str) -> Option<u32> {
    parse_word_bytes(s.as_bytes())
}

/// What a byte is to the listing reader: a hex digit's value (0..=15), [`SEP`], [`NEWLINE`] or [`OTHER`].
const BYTE_CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    // The separators of `is_separator`: ASCII whitespace and commas.
    t[b' ' as usize] = SEP;
    t[b'\t' as usize] = SEP;
    t[b'\r' as usize] = SEP;
    t[0x0c] = SEP;
    t[b',' as usize] = SEP;
    t[b'\n' as usize] = NEWLINE;
    t
};
/// A separator other than a newline.
const SEP: u8 = 16;
/// A newline (a separator that also starts a line).
const NEWLINE: u8 = 17;
/// Any other byte.
const OTHER: u8 = 18;

/// A word token: eight hex digits, `0x` or `0X` first optionally.
#[inline]
fn parse_word_bytes(t: &[u8]) -> Option<u32> {
    let h = match t {
        [b'0', b'x' | b'X', rest @ ..] => rest,
        _ => t,
    };
    if h.len() != 8 {
        return None;
    }
    h.iter().try_fold(0u32, |v, &c| {
        let d = BYTE_CLASS[c as usize];
        (d < 16).then_some(v << 4 | d as u32)
    })
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
    // Sized from the file up front: a listing of a large kernel is megabytes, and growing the buffer while
    // reading copies it over and over.
    let size = std::fs::metadata(path).map_or(0, |m| m.len().min(MAX_INPUT_BYTES + 1));
    let mut bytes = Vec::with_capacity(size as usize + 1);
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "{name}: more than {MAX_INPUT_BYTES} bytes; `oracle disasm` reads at most that much"
        ));
    }
    words_of(&bytes, name, binary)
}

/// The words of a file's bytes: a hex listing when it is text (and not `binary`), else a little-endian blob.
fn words_of(bytes: &[u8], name: String, binary: bool) -> Result<(Vec<u32>, Origin), String> {
    if !binary {
        // A listing that parses holds only separators and hex tokens, so it is text; one that does not is an
        // error when it is text and a blob otherwise. Trying the parse first saves a pass over every byte.
        match parse_listing(bytes, &name) {
            Ok((words, at)) => return Ok((words, Origin::Text(name, at))),
            Err(e) if is_text(bytes) => return Err(e),
            Err(_) => {}
        }
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

/// The words of a hex listing and where each is; a token that is not a word is an error naming its line and
/// column (1-based). One pass over the bytes: the listing of a large kernel is megabytes.
fn parse_listing(bytes: &[u8], name: &str) -> Result<(Vec<u32>, Places), String> {
    // A word takes at least nine bytes with its separator.
    let mut words = Vec::with_capacity(bytes.len() / 9 + 1);
    let mut at = Places {
        words: Vec::with_capacity(bytes.len() / 9 + 1),
        lines: vec![0],
    };
    let mut i = 0;
    while i < bytes.len() {
        match BYTE_CLASS[bytes[i] as usize] {
            NEWLINE => {
                at.lines.push(i as u32 + 1);
                i += 1;
                continue;
            }
            SEP => {
                i += 1;
                continue;
            }
            _ => {}
        }
        // A token: its digits are read as it is scanned; anything but eight digits after an optional `0x`
        // is an error.
        let start = i;
        if bytes[i] == b'0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
        }
        // The common token, eight digits and a separator (or the end), without a branch per digit.
        if let Some(eight) = bytes.get(i..i + 8) {
            let (mut w, mut all) = (0u32, true);
            for &c in eight {
                let d = BYTE_CLASS[c as usize];
                all &= d < 16;
                w = w << 4 | (d & 15) as u32;
            }
            let ends = bytes
                .get(i + 8)
                .is_none_or(|&c| matches!(BYTE_CLASS[c as usize], SEP | NEWLINE));
            if all && ends {
                words.push(w);
                at.words.push(start as u32);
                i += 8;
                continue;
            }
        }
        let (mut w, mut digits, mut bad) = (0u32, 0u32, false);
        while let Some(&c) = bytes.get(i) {
            match BYTE_CLASS[c as usize] {
                SEP | NEWLINE => break,
                d if d < 16 => {
                    w = w << 4 | d as u32;
                    digits += 1;
                }
                _ => bad = true,
            }
            i += 1;
        }
        match (bad, digits) {
            (false, 8) => {
                words.push(w);
                at.words.push(start as u32);
            }
            _ => {
                let t = &bytes[start..i];
                let line = at.lines.len();
                let col = start as u32 - at.lines[line - 1] + 1;
                return Err(format!(
                    "{name}:{line}:{col}: `{}` is not a word ({WORD_SHAPE}); a hex listing holds only words \
                     separated by whitespace or commas (for a binary blob, pass --binary)",
                    String::from_utf8_lossy(t)
                ));
            }
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

    /// Split at every word of a stream with literals, two-word instructions and bad words, the two-thread listing
    /// is the sequential one, text and warnings, whether the second thread's start lines up (its work is used)
    /// or not (this thread decodes the rest).
    #[test]
    fn a_listing_split_in_two_is_the_sequential_listing() {
        let unit: [u32; 9] = [
            0x7e14_0304, // v_mov_b32_e32 v10, v4
            0x7e02_02ff, // v_mov_b32_e32 v1, 0x3f800000 (a literal after it)
            0x3f80_0000,
            0xffff_ffff, // no instruction: a warning
            0xd564_000a, // v_add_f64 v[10:11], v[4:5], v[6:7], non-canonical
            0x0202_0d04,
            0xe038_1000, // buffer_load_dwordx4 v[4:7], v1, s[0:3], 0 offen
            0x8000_0401,
            0xbf81_0000, // s_endpgm
        ];
        let words: Vec<u32> = unit
            .iter()
            .copied()
            .cycle()
            .take(unit.len() * 5 + 3)
            .collect();
        let origin = Origin::Binary("k.bin".into());
        let run = |split: Option<usize>| {
            let mut text = String::new();
            let (w, used) = write_listing_split(
                Target::Gfx1030,
                &words,
                &origin,
                &mut |c| {
                    text.push_str(c);
                    Ok(())
                },
                split,
            )
            .unwrap();
            (text, w, used)
        };
        let (text, warnings, _) = run(None);
        assert!(
            warnings.len() >= 5 && text.lines().count() > 20,
            "{warnings:?}"
        );
        let mut used = [0, 0];
        for at in 1..words.len() {
            let (t, w, u) = run(Some(at));
            assert_eq!((&t, &w), (&text, &warnings), "split at word {at}");
            used[u as usize] += 1;
        }
        // Both ways of finishing ran.
        assert!(used[0] > 0 && used[1] > 0, "{used:?}");
    }

    /// The reader as it was before it became one pass over the bytes: the definition the fast one must match.
    fn words_of_reference(bytes: &[u8], binary: bool) -> Result<(Vec<u32>, Vec<String>), String> {
        let name = "k.hex";
        if !binary && is_text(bytes) {
            let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
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
                        at.push(format!("{name}:{}:{}: ", l + 1, col + 1));
                    }
                    col += t.len() + 1;
                }
            }
            return Ok((words, at));
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
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let at = (0..words.len())
            .map(|i| format!("{name}: byte {}: ", i * 4))
            .collect();
        Ok((words, at))
    }

    /// Listings of words, broken words and every separator (and bytes that make a file a blob): the one-pass
    /// reader gives the words, each warning's place, and every error message the reference gives.
    #[test]
    fn the_one_pass_reader_matches_the_reference() {
        use proptest::prelude::*;
        let token = prop_oneof![
            any::<u32>().prop_map(|w| format!("{w:08x}")),
            any::<u32>().prop_map(|w| format!("0x{w:08X}")),
            any::<u32>().prop_map(|w| format!("0X{w:08x}")),
            any::<u32>().prop_map(|w| format!("{w:07x}")),
            any::<u32>().prop_map(|w| format!("{w:08x}0")),
            "[0-9a-fxXg]{1,10}",
            Just("0x".to_string()),
            Just("\u{b}".to_string()),
            any::<u8>().prop_map(|b| String::from_utf8_lossy(&[b]).into_owned()),
        ];
        let sep = prop_oneof![
            Just(" "),
            Just("\t"),
            Just("\n"),
            Just("\r\n"),
            Just(","),
            Just(", "),
            Just("\u{c}"),
        ];
        let listing = proptest::collection::vec((token, sep), 0..24);
        // PROPTEST_CASES sets the count (256 by default).
        proptest!(ProptestConfig::default(), |(parts in listing, binary in any::<bool>())| {
            let text: String = parts.iter().map(|(t, s)| format!("{t}{s}")).collect();
            let bytes = text.as_bytes();
            let got = words_of(bytes, "k.hex".into(), binary).map(|(w, origin)| {
                let at: Vec<String> = (0..w.len()).map(|i| origin.prefix(i)).collect();
                (w, at)
            });
            prop_assert_eq!(got, words_of_reference(bytes, binary));
        });
    }

    /// The reader's byte table agrees with `is_separator` and with hex digits, byte for byte.
    #[test]
    fn byte_classes_match_the_separators_and_digits() {
        for b in 0..=255u8 {
            let c = BYTE_CLASS[b as usize];
            assert_eq!(
                matches!(c, SEP | NEWLINE),
                is_separator(b as char),
                "{b:#x}"
            );
            assert_eq!(c == NEWLINE, b == b'\n');
            assert_eq!(
                (c < 16).then_some(c as u32),
                (b as char).to_digit(16),
                "{b:#x}"
            );
        }
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
