//! Import of the peer project's transcribed execution tests (shared/corpus/README.md) into suites.
//!
//! One peer file becomes one suite named `peer-<test in kebab case>`: its kernels go to `kernels.toml` and its
//! rows to `rdna2.csv` (the peer data says RDNA2 hardware, not which chip). Row `r` of a case runs in dispatch
//! `r / rows_per_dispatch` at lane `r % rows_per_dispatch`. Every row's `source` names the repository, commit,
//! path and case it came from. Two cases that measured the same thing (same kernel, mode, dispatch, lane and
//! placement) give one row with both cases in its source; if they disagree the import fails with a
//! repeatability conflict.
//!
//! A case's `compare_array` and `compare_stride_dwords` become its rows' [`Placement`]: cases of one kernel may
//! compare different arrays of the same dispatch. Each case's placement is checked against its own columns
//! (the array exists, the largest column fits in the stride, the array holds every lane), and the error names
//! the case. Arrays of 0 bytes are imported as they are, and so is user data longer than a launch path can
//! load: that is for the backend to refuse at run time ([`crate::job`], "Launch limits").
//!
//! What the importer refuses beyond the schema: files past [`crate::limits::MAX_PEER_FILE_BYTES`] or not regular
//! files, names past [`crate::names`]'s rules (a test name whose suite name would be too long for the reader is
//! refused here, not written), launches and memory past [`crate::limits`] (`threads` x `groups` computed checked),
//! unknown keys and `tgid`/`groups` arrays of other than 3 elements. A kernel that no case runs has no rows, and a
//! suite's kernels all have rows, so it is left out and the suite's description names it. The import is checked as
//! the reader will check its files ([`Suite::check_writable`]), and its time is linear in the file: positions
//! for messages are found in one pass over the text.

use crate::error::{Error, Origin, Pos, Result};
use crate::hex::{truncate, HexDword};
use crate::id::{dispatch_hash, measurement_id};
use crate::kernel::{Array, Init, Kernel, KernelFile, Provenance};
use crate::mode::FloatMode;
use crate::row::{Cell, Check, Evidence, Placement, Row};
use crate::store::Suite;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The target name of peer rows: the corpus says RDNA2 (gfx1035/gfx1036) without naming the chip per row.
pub const PEER_TARGET: &str = "rdna2";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerFile {
    test: String,
    source: Provenance,
    kernels: Vec<PeerKernel>,
    cases: Vec<PeerCase>,
    #[serde(default)]
    skipped: Vec<Skipped>,
    expectation: Expectation,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Skipped {
    name: String,
    #[allow(dead_code)]
    reason: String,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Expectation {
    Pinned,
    Formula,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerKernel {
    name: String,
    words: Vec<HexDword>,
    declared_word_count: u32,
    wave: u32,
    threads: u32,
    input_dwords: u32,
    output_dwords: u32,
    #[allow(dead_code)]
    output_fill: HexDword,
    lds_bytes: u32,
    /// Labels of output dwords; `null` where the test gave none.
    #[serde(default)]
    instructions: Vec<Option<String>>,
    user_data: Vec<String>,
    #[serde(deserialize_with = "crate::de::exact")]
    tgid: [bool; 3],
    memory: Vec<PeerArray>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerArray {
    name: String,
    bytes: u32,
    fill: HexDword,
    #[serde(default)]
    align: Option<u32>,
    #[serde(default)]
    init: Vec<PeerInit>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerInit {
    dword_offset: u32,
    #[serde(default)]
    rows: bool,
    #[serde(default)]
    dwords: Vec<HexDword>,
}

/// A mode byte written as two lowercase hex digits; validated while parsing so the error has a position.
struct ModeByte(u8);

impl<'de> Deserialize<'de> for ModeByte {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        crate::mode::parse_float_mode(&s)
            .map(ModeByte)
            .map_err(serde::de::Error::custom)
    }
}

/// A mode bit written as 0 or 1.
struct Bit(bool);

impl<'de> Deserialize<'de> for Bit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match u64::deserialize(d)? {
            0 => Ok(Bit(false)),
            1 => Ok(Bit(true)),
            v => Err(serde::de::Error::custom(format!(
                "mode bit {v} is not 0 or 1"
            ))),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerMode {
    float_mode: ModeByte,
    ieee: Bit,
    dx10_clamp: Bit,
    fp16_ovfl: Bit,
    /// Whether the test set the mode itself; on hardware the default is the title mode, so it does not change
    /// what was measured.
    #[allow(dead_code)]
    explicit: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeerCase {
    name: String,
    kernel: String,
    mode: PeerMode,
    rows_per_dispatch: u32,
    columns: Vec<u32>,
    masks: Option<Vec<HexDword>>,
    #[allow(dead_code)]
    compare: String,
    checks: Vec<String>,
    compare_array: String,
    compare_stride_dwords: u32,
    #[serde(default = "one_group", deserialize_with = "crate::de::exact")]
    groups: [u32; 3],
    expectation: Expectation,
    rows: Vec<Vec<HexDword>>,
    expected: Vec<Vec<HexDword>>,
    #[serde(default)]
    #[allow(dead_code)]
    notes: String,
}

fn one_group() -> [u32; 3] {
    [1, 1, 1]
}

/// `F32MinMaxNan` -> `f32-min-max-nan`: a break before an uppercase letter that follows a lowercase letter or a
/// digit.
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_uppercase()
            && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('-');
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        prev = Some(c);
    }
    out.trim_end_matches('-').to_string()
}

/// The line and column of the first occurrence of `"key": "value"` in `text`, for errors found after parsing.
fn locate(text: &str, key: &str, value: &str) -> Pos {
    let needle = format!("\"{key}\": \"{value}\"");
    text.find(&needle)
        .map_or(Pos::default(), |o| Pos::of_offset(text, o))
}

/// The position of the first `"name": "<value>"` of every value in `text`, found in one pass over the text
/// (linear, however many cases and kernels there are), for errors found after parsing: a case's or kernel's
/// errors point at its name. A value with an escaped quote is not found (its errors have no position).
fn name_positions(text: &str) -> BTreeMap<&str, Pos> {
    const NEEDLE: &str = "\"name\": \"";
    let mut cursor = crate::error::PosCursor::new(text);
    let mut out = BTreeMap::new();
    for (at, _) in text.match_indices(NEEDLE) {
        let start = at + NEEDLE.len();
        let Some(len) = text[start..].find('"') else {
            break;
        };
        let value = &text[start..start + len];
        if !out.contains_key(value) {
            let pos = cursor.at(at);
            out.insert(value, pos);
        }
    }
    out
}

/// Converts the text of one peer JSON file into a suite. `path` is used in messages only.
///
/// Every name is checked ([`crate::names`]), every launch size against [`crate::limits`] (products computed
/// checked), and the suite is checked as the reader will check it before it is returned
/// ([`Suite::check_writable`]), so what imports can be written and read back. The work is linear in the size of
/// the file.
pub fn import_peer(path: &Path, text: &str) -> Result<Suite> {
    let file: PeerFile = serde_json::from_str(text).map_err(|e| {
        let pos = Pos::new(e.line() as u64, e.column() as u64);
        let msg = e.to_string();
        // serde_json appends " at line L column C"; the position is already in front.
        let msg = msg
            .rsplit_once(" at line ")
            .map_or(msg.as_str(), |(m, _)| m)
            .to_string();
        Error::syntax(path, pos, crate::hex::shorten_message(&msg))
    })?;
    let test_pos = || locate(text, "test", &file.test);
    crate::names::peer_test(&file.test).map_err(|m| Error::syntax(path, test_pos(), m))?;
    let suite_name = format!("peer-{}", kebab(&file.test));
    crate::names::suite(&suite_name).map_err(|m| {
        Error::syntax(
            path,
            test_pos(),
            format!(
                "test name `{}` gives no usable suite name: {m}",
                truncate(&file.test)
            ),
        )
    })?;
    let prov = &file.source;
    prov.validate()
        .map_err(|m| Error::syntax(path, Pos::default(), m))?;
    let err_at = |pos: Pos, m: String| Error::syntax(path, pos, m);
    let names = name_positions(text);
    let pos_of = |name: &str| names.get(name).copied().unwrap_or_default();
    for s in &file.skipped {
        crate::names::peer_case(&s.name).map_err(|m| err_at(pos_of(&s.name), m))?;
    }

    // The grid comes from the cases; all cases of one kernel must agree on it (what they compare may differ).
    let mut launch: BTreeMap<&str, (&PeerCase, [u32; 3])> = BTreeMap::new();
    for c in &file.cases {
        let pos = pos_of(&c.name);
        crate::names::peer_case(&c.name).map_err(|m| err_at(pos, m))?;
        if let Some((first, groups)) = launch.get(c.kernel.as_str()) {
            if *groups != c.groups {
                return Err(err_at(
                    pos,
                    format!(
                        "case `{}`: groups {:?} differ from groups {:?} of case `{}` of the same kernel",
                        c.name, c.groups, groups, first.name
                    ),
                ));
            }
        } else {
            launch.insert(&c.kernel, (c, c.groups));
        }
    }

    let mut kernels = Vec::new();
    let mut kernel_names = std::collections::BTreeSet::new();
    // A kernel no case runs has no rows, and a suite's kernels all have rows (the loader refuses one without):
    // it is left out, and the description says so.
    let mut unrun = Vec::new();
    for k in &file.kernels {
        let pos = pos_of(&k.name);
        if !kernel_names.insert(k.name.as_str()) {
            return Err(err_at(
                pos,
                format!("kernel `{}` is defined twice", truncate(&k.name)),
            ));
        }
        let Some(&(_, grid)) = launch.get(k.name.as_str()) else {
            crate::names::kernel(&k.name).map_err(|m| err_at(pos, m))?;
            unrun.push(k.name.as_str());
            continue;
        };
        let kernel = Kernel {
            name: k.name.clone(),
            abi: crate::kernel::Abi::AgcBufferV1,
            wave: k.wave,
            threads: k.threads,
            grid,
            lds_bytes: k.lds_bytes,
            input_dwords: k.input_dwords,
            output_dwords: k.output_dwords,
            user_data: k.user_data.clone(),
            tgid: k.tgid,
            memory: k
                .memory
                .iter()
                .map(|a| Array {
                    name: a.name.clone(),
                    bytes: a.bytes,
                    fill: a.fill,
                    align: a.align.unwrap_or(256),
                    init: a
                        .init
                        .iter()
                        .map(|i| Init {
                            dword_offset: i.dword_offset,
                            rows: i.rows,
                            dwords: i.dwords.clone(),
                        })
                        .collect(),
                })
                .collect(),
            columns: Vec::new(),
            labels: k
                .instructions
                .iter()
                .map(|l| l.clone().unwrap_or_default())
                .collect(),
            source: None,
            declared_word_count: (k.declared_word_count as usize != k.words.len())
                .then_some(k.declared_word_count),
            words: k.words.clone(),
        };
        kernel.validate().map_err(|m| err_at(pos, m))?;
        kernels.push(kernel);
    }

    let skipped = if file.skipped.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = file.skipped.iter().map(|s| s.name.as_str()).collect();
        format!(
            " Cases without dispatch data, not imported: {}.",
            names.join(", ")
        )
    };
    let unrun = if unrun.is_empty() {
        String::new()
    } else {
        format!(" Kernels no case runs, not imported: {}.", unrun.join(", "))
    };
    let kfile = KernelFile {
        suite: suite_name.clone(),
        description: Some(format!(
            "Imported by `oracle import-peer` from {}@{}:{} (test {}, expectation {}).{skipped}{unrun}",
            prov.repo,
            prov.commit,
            prov.path,
            file.test,
            match file.expectation {
                Expectation::Pinned => "pinned",
                Expectation::Formula => "formula",
            }
        )),
        source: Some(prov.clone()),
        kernels,
    };
    let mut suite = Suite::new(kfile, path.to_path_buf());

    for c in &file.cases {
        let pos = pos_of(&c.name);
        let e = |m: String| err_at(pos, format!("case `{}`: {m}", c.name));
        let kernel = suite.kernel(&c.kernel).ok_or_else(|| {
            e(format!(
                "kernel `{}` is not in the file (missing kernel)",
                truncate(&c.kernel)
            ))
        })?;
        let lanes = kernel.lanes();
        if c.rows_per_dispatch == 0 || c.rows_per_dispatch as u64 != lanes {
            return Err(e(format!(
                "rows_per_dispatch {} but kernel `{}` launches {lanes} lanes ({} threads x groups {:?})",
                c.rows_per_dispatch, kernel.name, kernel.threads, c.groups
            )));
        }
        if c.rows.len() != c.expected.len() || c.rows.len() != c.checks.len() {
            return Err(e(format!(
                "{} rows, {} expected and {} checks: they must be parallel",
                c.rows.len(),
                c.expected.len(),
                c.checks.len()
            )));
        }
        if c.columns.is_empty() || c.columns.windows(2).any(|w| w[0] >= w[1]) {
            return Err(e("columns must be non-empty and strictly ascending".into()));
        }
        let placement = Placement::new(&c.compare_array, c.compare_stride_dwords);
        let last = c.columns[c.columns.len() - 1];
        kernel.check_placement(&placement, last).map_err(|m| {
            e(format!(
                "compare_array `{}`, compare_stride_dwords {}: {m}",
                c.compare_array, c.compare_stride_dwords
            ))
        })?;
        let id_placement = kernel.id_placement(&placement).cloned();
        let masks: Vec<u32> = match &c.masks {
            None => vec![u32::MAX; c.columns.len()],
            Some(m) if m.len() == c.columns.len() => m.iter().map(|m| m.0).collect(),
            Some(m) => {
                return Err(e(format!(
                    "{} masks for {} columns",
                    m.len(),
                    c.columns.len()
                )))
            }
        };
        let kernel_hash = suite.kernel_hashes[&c.kernel].clone();
        let mode = FloatMode {
            float_mode: c.mode.float_mode.0,
            ieee: c.mode.ieee.0,
            dx10_clamp: c.mode.dx10_clamp.0,
            fp16_ovfl: c.mode.fp16_ovfl.0,
        };
        let input_dwords = kernel.input_dwords as usize;
        let rpd = c.rows_per_dispatch as usize;
        for (d, chunk) in c.rows.chunks(rpd).enumerate() {
            for (l, r) in chunk.iter().enumerate() {
                if r.len() != input_dwords {
                    return Err(e(format!(
                        "row {} has {} input dwords; the kernel takes {input_dwords}",
                        d * rpd + l,
                        r.len()
                    )));
                }
            }
            let inputs: Vec<(u32, Vec<u32>)> = chunk
                .iter()
                .enumerate()
                .map(|(l, r)| (l as u32, r.iter().map(|x| x.0).collect()))
                .collect();
            let refs: Vec<(u32, &[u32])> = inputs.iter().map(|(l, i)| (*l, i.as_slice())).collect();
            let dispatch = dispatch_hash(&kernel_hash, &refs);
            for (l, (lane, ins)) in inputs.into_iter().enumerate() {
                let r = d * rpd + l;
                let expected = &c.expected[r];
                if expected.len() != c.columns.len() {
                    return Err(e(format!(
                        "row {r} has {} expected values for {} columns",
                        expected.len(),
                        c.columns.len()
                    )));
                }
                let letters: Vec<char> = c.checks[r].chars().collect();
                if letters.len() != c.columns.len() {
                    return Err(e(format!(
                        "row {r} has {} check letters for {} columns",
                        letters.len(),
                        c.columns.len()
                    )));
                }
                let mut cells = Vec::with_capacity(c.columns.len());
                for (i, &col) in c.columns.iter().enumerate() {
                    let check = Check::from_letter(letters[i]).ok_or_else(|| {
                        e(format!(
                            "row {r}: check letter `{}` is not one of x n h l a -",
                            letters[i]
                        ))
                    })?;
                    cells.push(Cell {
                        column: col,
                        value: expected[i].0,
                        mask: masks[i],
                        check,
                    });
                }
                let row = Row {
                    id: measurement_id(
                        &kernel_hash,
                        PEER_TARGET,
                        &mode,
                        &dispatch,
                        lane,
                        id_placement.as_ref(),
                    ),
                    suite: suite_name.clone(),
                    kernel: c.kernel.clone(),
                    target: PEER_TARGET.into(),
                    mode,
                    dispatch: dispatch.clone(),
                    lane,
                    inputs: ins,
                    placement: placement.clone(),
                    cells,
                    evidence: match c.expectation {
                        Expectation::Pinned => Evidence::PeerPinned,
                        Expectation::Formula => Evidence::PeerFormula,
                    },
                    source: format!("{}@{}:{}#{}", prov.repo, prov.commit, prov.path, c.name),
                };
                suite.insert(
                    row,
                    Origin {
                        path: path.to_path_buf(),
                        pos,
                    },
                )?;
            }
        }
    }
    suite.check_dispatches()?;
    suite.check_writable()?;
    Ok(suite)
}

/// Reads and converts one peer JSON file (a regular file of at most [`crate::limits::MAX_PEER_FILE_BYTES`]).
pub fn import_peer_file(path: &Path) -> Result<Suite> {
    let text = crate::input::read_text(path, crate::limits::MAX_PEER_FILE_BYTES)?;
    import_peer(path, &text)
}

#[cfg(test)]
mod tests {
    use super::kebab;

    #[test]
    fn suite_names() {
        assert_eq!(kebab("F32MinMaxNan"), "f32-min-max-nan");
        assert_eq!(kebab("Dpp16RowShareXmask"), "dpp16-row-share-xmask");
        assert_eq!(kebab("Vop1Vop2Integer"), "vop1-vop2-integer");
        assert_eq!(kebab("ScalarSop1"), "scalar-sop1");
    }
}
