//! The kernel file of a suite (`kernels.toml`): the machine words each measurement ran, how they were launched
//! and the memory they saw.
//!
//! ```toml
//! schema = "kernels-v2"
//! suite = "peer-f32-arithmetic-nan"
//!
//! [[kernel]]
//! name = "Code"
//! abi = "agc-buffer-v1"
//! wave = 32
//! threads = 32
//! grid = [1, 1, 1]
//! lds_bytes = 0
//! input_dwords = 4
//! output_dwords = 16
//! user_data = ["in.lo", "in.hi16", "in.bytes", "31016fac", "out.lo", "out.hi16", "out.bytes", "31016fac"]
//! tgid = [false, false, false]
//! words = ["34020084", "34060086", "bf810000"]
//!
//! [[kernel.memory]]
//! name = "in"
//! bytes = 512
//! fill = "00000000"
//! init = [{ dword_offset = 0, rows = true }]
//! ```
//!
//! Where a row's outputs are read (the array and the lane stride) is not part of the kernel: it is the row's
//! [`Placement`] (the `array` and `stride_dwords` fields of the row CSV), because two rows of one dispatch may
//! compare different arrays. `kernels-v1` files, which had an `output = { array, stride_dwords }` key here,
//! are refused with a message saying so; re-import them.
//!
//! An array may have 0 bytes: it is mapped (it has an address), and a V# of size 0 over it makes every buffer
//! access out of range (loads read 0, stores are dropped); a global access to its address faults like any
//! other unmapped address.
//!
//! `grid` and `tgid` have exactly 3 elements and unknown keys are refused; an error names the kernel and the key
//! path (`kernel[2].memory[0].colour`) as well as the line. Launch sizes, arrays and names are bounded
//! ([`crate::limits`], [`crate::names`]).
//!
//! `user_data` may be longer than a launch path can load (gfx10 compute has 16 `COMPUTE_USER_DATA`
//! registers): the file only refuses what no gfx10 wave could address (user data and workgroup ids past
//! s105). A backend that cannot set the launch up refuses the job as unsupported ([`crate::job::Backend`]).
//!
//! # Content hash
//!
//! The kernel's *content hash* is SHA-256 (64 lowercase hex digits) over this canonical string, every line
//! ending in `\n`, and covers everything that changes what the hardware computes and nothing else (not the
//! kernel's name, labels, provenance or the file it sits in), so measurement IDs survive renames and moves:
//!
//! ```text
//! kernel-v1
//! abi=<abi>
//! wave=<wave>
//! threads=<threads>
//! grid=<x>,<y>,<z>
//! lds_bytes=<lds_bytes>
//! input_dwords=<input_dwords>
//! output_dwords=<output_dwords>
//! user_data=<the user_data items joined by ,>
//! tgid=<0|1>,<0|1>,<0|1>
//! array=<name>:bytes=<bytes>:align=<align>:fill=<8 hex digits>[:rows@<offset>|:dwords@<offset>=<hex ...>]...
//! output=out:stride=<output_dwords>
//! words=<every word as space-separated 8-digit hex>
//! ```
//!
//! with one `array=` line per array in memory-list order. The `output=` line names the *default placement*
//! ([`Kernel::default_placement`]): `kernel-v1` was defined when the placement was part of the kernel and every
//! measured row compared `out` at stride `output_dwords`; the line keeps those kernels' hashes (and so every
//! measurement ID cited so far) unchanged. A row that compares anything else says so in its measurement ID
//! ([`crate::id`]).

use crate::error::{Error, Pos, Result};
use crate::hex::{format_dwords, truncate, HexDword};
use crate::limits::{MAX_ARRAYS, MAX_ARRAY_BYTES, MAX_JOB_BYTES, MAX_LANES, MAX_WORKGROUPS};
use crate::row::Placement;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The most SGPRs a gfx10 wave addresses (s0..s105); user data and workgroup ids must fit in them.
pub const MAX_SGPRS: usize = 106;

/// The schema tag every kernel file starts with.
pub const SCHEMA: &str = "kernels-v2";

/// A kernel ABI of DESIGN.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Abi {
    /// The hardware oracle layout: kernarg pointer in `s[0:1]`, inputs in v4..v7, outputs from v10..v25.
    #[serde(rename = "oracle-v1")]
    OracleV1,
    /// The peer tests' layout: user SGPRs from s0 as the kernel's `user_data` list says, v0 = lane index.
    #[serde(rename = "agc-buffer-v1")]
    AgcBufferV1,
}

impl Abi {
    /// The ABI's name as written in files.
    pub fn name(self) -> &'static str {
        match self {
            Abi::OracleV1 => "oracle-v1",
            Abi::AgcBufferV1 => "agc-buffer-v1",
        }
    }
}

/// One array of the dispatch's memory image.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Array {
    /// Name the user data and rows' placements refer to.
    pub name: String,
    /// Size in bytes (a multiple of 4; 0 is an array with an address and no contents).
    pub bytes: u32,
    /// The dword every byte not otherwise initialised holds.
    pub fill: HexDword,
    /// Alignment of the array's address in bytes (a power of two; default 256).
    #[serde(default = "default_align")]
    pub align: u32,
    /// Initial contents placed over the fill.
    #[serde(default)]
    pub init: Vec<Init>,
}

fn default_align() -> u32 {
    256
}

/// Initial contents of part of an array.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Init {
    /// Where the contents start, in dwords from the array's start.
    pub dword_offset: u32,
    /// When true, the dispatch's rows go here: lane L's inputs at dword `dword_offset + L * input_dwords`.
    #[serde(default)]
    pub rows: bool,
    /// Fixed dwords (when `rows` is false).
    #[serde(default)]
    pub dwords: Vec<HexDword>,
}

/// A float format a column's tolerance is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TolFormat {
    /// The whole dword is an f32.
    F32,
    /// The low 16 bits are an f16 (the high half must match exactly).
    F16,
}

/// A documented tolerance on one output dword of a kernel (DESIGN.md, "Comparison policy"). It applies to rows
/// that compare the default placement ([`Kernel::default_placement`]), whose dwords the index counts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnPolicy {
    /// The output dword index.
    pub index: u32,
    /// The float format the distance is measured in.
    pub format: TolFormat,
    /// Maximum distance in units in the last place.
    pub ulp: u32,
    /// Why the tolerance exists (required: a tolerance without a reason is not allowed).
    pub reason: String,
}

/// Where a kernel came from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// Repository (`owner/name`).
    pub repo: String,
    /// Path of the file in that repository.
    pub path: String,
    /// Commit the file was read at.
    pub commit: String,
}

impl Provenance {
    /// Checks the fields: free text ([`crate::names::text`]) that does not contain ` ; `, the separator of merged
    /// row sources, which every transcribed row's source starts with.
    pub fn validate(&self) -> Result<(), String> {
        for (what, v) in [
            ("source repo", &self.repo),
            ("source path", &self.path),
            ("source commit", &self.commit),
        ] {
            crate::names::text(what, v)?;
            if v.contains(" ; ") {
                return Err(format!(
                    "{what} `{}` contains ` ; `, which separates the parts of a merged row's source",
                    truncate(v)
                ));
            }
        }
        Ok(())
    }
}

/// One kernel of a suite.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    /// Name, unique in the suite; rows refer to it.
    pub name: String,
    /// Launch ABI.
    pub abi: Abi,
    /// Wave size: 32 or 64.
    pub wave: u32,
    /// Threads per workgroup.
    pub threads: u32,
    /// Workgroups in x, y, z.
    #[serde(default = "default_grid", deserialize_with = "crate::de::exact")]
    pub grid: [u32; 3],
    /// LDS bytes per workgroup.
    #[serde(default)]
    pub lds_bytes: u32,
    /// Input dwords per lane (a row's `inputs`).
    pub input_dwords: u32,
    /// Output dwords per lane of the `out` array: the lane stride of the default placement
    /// ([`Kernel::default_placement`]), which labels and tolerances describe.
    pub output_dwords: u32,
    /// What each user SGPR holds, s0 upwards (`agc-buffer-v1`; see [`UserData`]).
    #[serde(default)]
    pub user_data: Vec<String>,
    /// Which workgroup-id SGPRs follow the user data.
    #[serde(default, deserialize_with = "crate::de::exact")]
    pub tgid: [bool; 3],
    /// Arrays of the dispatch's memory image.
    #[serde(default)]
    pub memory: Vec<Array>,
    /// Per-column tolerances (none means bit-exact everywhere).
    #[serde(default, rename = "column")]
    pub columns: Vec<ColumnPolicy>,
    /// Human labels of the default placement's output dwords (informational).
    #[serde(default)]
    pub labels: Vec<String>,
    /// Where the kernel came from.
    #[serde(default)]
    pub source: Option<Provenance>,
    /// Number of words the source declared, when it differs from `words.len()` (informational).
    #[serde(default)]
    pub declared_word_count: Option<u32>,
    /// The machine words, in order.
    pub words: Vec<HexDword>,
}

fn default_grid() -> [u32; 3] {
    [1, 1, 1]
}

/// A product of launch sizes for messages: its value, or "2^64 or more" for one that did not fit.
fn count(n: u64) -> String {
    if n == u64::MAX {
        "2^64 or more".to_string()
    } else {
        n.to_string()
    }
}

/// A user SGPR's content in the `agc-buffer-v1` ABI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UserData {
    /// Address bits 31:0 of an array.
    Lo(String),
    /// Address bits 63:32 of an array.
    Hi(String),
    /// Address bits 47:32 of an array, with a buffer stride in bits 29:16 and swizzle enable in bit 31.
    Hi16 {
        /// The array.
        array: String,
        /// Stride in bytes (0 when absent).
        stride: u32,
        /// Swizzle enable.
        swizzle: bool,
    },
    /// Size of an array in bytes.
    Bytes(String),
    /// Size of an array in dwords.
    Dwords(String),
    /// A literal dword.
    Literal(u32),
}

impl UserData {
    /// Parses one `user_data` item (corpus README: `in.lo`, `in.hi16+stride8+swizzle`, `31016fac`, ...).
    pub fn parse(text: &str) -> Result<UserData, String> {
        let quoted = truncate(text);
        if let Ok(v) = crate::hex::parse_dword(text) {
            return Ok(UserData::Literal(v));
        }
        let (array, field) = text.split_once('.').ok_or_else(|| {
            format!("user data `{quoted}` is neither `<array>.<field>` nor a hex dword")
        })?;
        if array.is_empty() {
            return Err(format!("user data `{quoted}` names no array"));
        }
        let a = array.to_string();
        let mut parts = field.split('+');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        let simple = |v: UserData| {
            if rest.is_empty() {
                Ok(v)
            } else {
                Err(format!(
                    "user data `{quoted}`: `{}` takes no modifiers",
                    truncate(head)
                ))
            }
        };
        match head {
            "lo" => simple(UserData::Lo(a)),
            "hi" => simple(UserData::Hi(a)),
            "bytes" => simple(UserData::Bytes(a)),
            "dwords" => simple(UserData::Dwords(a)),
            "hi16" => {
                let mut stride = 0;
                let mut swizzle = false;
                for m in rest {
                    if let Some(n) = m.strip_prefix("stride") {
                        stride = n
                            .parse::<u32>()
                            .ok()
                            .filter(|&s| s < (1 << 14))
                            .ok_or_else(|| {
                                format!(
                                    "user data `{quoted}`: stride `{}` is not a number below 16384",
                                    truncate(n)
                                )
                            })?;
                    } else if m == "swizzle" {
                        swizzle = true;
                    } else {
                        return Err(format!(
                            "user data `{quoted}`: unknown modifier `{}`",
                            truncate(m)
                        ));
                    }
                }
                Ok(UserData::Hi16 {
                    array: a,
                    stride,
                    swizzle,
                })
            }
            _ => Err(format!(
                "user data `{quoted}`: unknown field `{}` (lo, hi, hi16, bytes, dwords)",
                truncate(head)
            )),
        }
    }

    /// The array this item refers to, if any.
    pub fn array(&self) -> Option<&str> {
        match self {
            UserData::Lo(a) | UserData::Hi(a) | UserData::Bytes(a) | UserData::Dwords(a) => Some(a),
            UserData::Hi16 { array, .. } => Some(array),
            UserData::Literal(_) => None,
        }
    }

    /// The SGPR value given the array's address and size in bytes.
    pub fn value(&self, address: u64, bytes: u32) -> u32 {
        match self {
            UserData::Lo(_) => address as u32,
            UserData::Hi(_) => (address >> 32) as u32,
            UserData::Hi16 {
                stride, swizzle, ..
            } => ((address >> 32) as u32 & 0xffff) | (stride << 16) | ((*swizzle as u32) << 31),
            UserData::Bytes(_) => bytes,
            UserData::Dwords(_) => bytes / 4,
            UserData::Literal(v) => *v,
        }
    }
}

/// A buffer resource (V#) in the kernel argument segment of [`Kernel::oracle_v1_buffers`]: word 0 the array's
/// address bits 31:0, word 1 its bits 47:32 with the stride and swizzle bits, word 2 NUM_RECORDS, word 3 as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OracleVsharp {
    /// Record stride in bytes (word 1 bits 29:16), below 16384.
    pub stride: u32,
    /// SWIZZLE_ENABLE (word 1 bit 31).
    pub swizzle: bool,
    /// NUM_RECORDS; `None` for the array's size in bytes.
    pub records: Option<u32>,
    /// Word 3 (DST_SEL, FORMAT, INDEX_STRIDE, ADD_TID_ENABLE, RESOURCE_LEVEL, OOB_SELECT, TYPE).
    pub word3: u32,
}

impl OracleVsharp {
    /// The four `user_data` items of this V# over `array`.
    pub fn user_data(&self, array: &str) -> [String; 4] {
        let mut hi = format!("{array}.hi16");
        if self.stride != 0 {
            hi.push_str(&format!("+stride{}", self.stride));
        }
        if self.swizzle {
            hi.push_str("+swizzle");
        }
        [
            format!("{array}.lo"),
            hi,
            self.records
                .map_or_else(|| format!("{array}.bytes"), |r| format!("{r:08x}")),
            format!("{:08x}", self.word3),
        ]
    }
}

/// The buffer extension of the `oracle-v1` layout ([`Kernel::oracle_v1_buffers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OracleBuffers {
    /// Bytes of `scratch` per lane (the array holds `threads` of them).
    pub scratch_bytes: u32,
    /// The dword `scratch` is filled with.
    pub fill: u32,
    /// The V# over `in`.
    pub in_vsharp: OracleVsharp,
    /// The V# over `scratch`.
    pub scratch_vsharp: OracleVsharp,
}

/// The two arrays of the `agc-buffer-v1` and `oracle-v1` layouts: `in` (`in_bytes`, the rows' inputs from dword
/// 0) and `out` (`out_bytes`, filled with `fill`), both 256-byte aligned.
fn io_arrays(in_bytes: u32, out_bytes: u32, fill: u32) -> Vec<Array> {
    vec![
        Array {
            name: "in".into(),
            bytes: in_bytes,
            fill: HexDword(0),
            align: 256,
            init: vec![Init {
                dword_offset: 0,
                rows: true,
                dwords: vec![],
            }],
        },
        Array {
            name: "out".into(),
            bytes: out_bytes,
            fill: HexDword(fill),
            align: 256,
            init: vec![],
        },
    ]
}

impl Kernel {
    /// A kernel in the common `agc-buffer-v1` layout: `s[0:3]` the V# of `in` (the rows, lane L's at dword
    /// `L * input_dwords`), `s[4:7]` the V# of `out` (filled with `fill`, lane L's outputs at dword
    /// `L * output_dwords`), one workgroup, `lds_bytes` of LDS.
    pub fn agc_buffer(
        name: &str,
        words: &[u32],
        wave: u32,
        threads: u32,
        io: (u32, u32),
        fill: u32,
        lds_bytes: u32,
    ) -> Kernel {
        let (input_dwords, output_dwords) = io;
        Kernel {
            name: name.into(),
            abi: Abi::AgcBufferV1,
            wave,
            threads,
            grid: [1, 1, 1],
            lds_bytes,
            input_dwords,
            output_dwords,
            user_data: [
                "in.lo",
                "in.hi16",
                "in.bytes",
                "31016fac",
                "out.lo",
                "out.hi16",
                "out.bytes",
                "31016fac",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            tgid: [false; 3],
            memory: io_arrays(
                (threads * input_dwords * 4).max(4),
                threads * output_dwords * 4,
                fill,
            ),
            columns: vec![],
            labels: vec![],
            source: None,
            declared_word_count: None,
            words: words.iter().map(|&w| HexDword(w)).collect(),
        }
    }

    /// A kernel in the `oracle-v1` layout (DESIGN.md, "Kernel ABIs"), one workgroup of `threads` lanes: the
    /// kernel argument segment holds the addresses of `in` (four input dwords per lane, the rows') and `out`
    /// (sixteen output dwords per lane, zero-filled), its address in `s[0:1]`.
    pub fn oracle_v1(name: &str, words: &[u32], wave: u32, threads: u32, lds_bytes: u32) -> Kernel {
        Kernel {
            name: name.into(),
            abi: Abi::OracleV1,
            wave,
            threads,
            grid: [1, 1, 1],
            lds_bytes,
            input_dwords: 4,
            output_dwords: 16,
            user_data: ["in.lo", "in.hi", "out.lo", "out.hi"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            tgid: [false; 3],
            memory: io_arrays(threads * 16, threads * 64, 0),
            columns: vec![],
            labels: vec![],
            source: None,
            declared_word_count: None,
            words: words.iter().map(|&w| HexDword(w)).collect(),
        }
    }

    /// A kernel in the `oracle-v1` layout with buffers (README, "oracle"; the templates crate docs): as
    /// [`Kernel::oracle_v1`], plus a third array `scratch` of `b.scratch_bytes` per lane filled with `b.fill`,
    /// and a kernel argument segment of 56 bytes: the addresses of `in` (0), `out` (8) and `scratch` (16), then
    /// the V# over `in` (24) and the V# over `scratch` (40), each from its [`OracleVsharp`].
    pub fn oracle_v1_buffers(
        name: &str,
        words: &[u32],
        wave: u32,
        threads: u32,
        lds_bytes: u32,
        b: &OracleBuffers,
    ) -> Kernel {
        let mut k = Kernel::oracle_v1(name, words, wave, threads, lds_bytes);
        k.user_data
            .extend(["scratch.lo".to_string(), "scratch.hi".to_string()]);
        for (array, v) in [("in", &b.in_vsharp), ("scratch", &b.scratch_vsharp)] {
            k.user_data.extend(v.user_data(array));
        }
        k.memory.push(Array {
            name: "scratch".into(),
            bytes: threads * b.scratch_bytes,
            fill: HexDword(b.fill),
            align: 256,
            init: vec![],
        });
        k
    }

    /// The words as plain dwords.
    pub fn words(&self) -> Vec<u32> {
        self.words.iter().map(|w| w.0).collect()
    }

    /// Workgroups of one dispatch (x * y * z), computed checked: `u64::MAX` stands for any product that does not
    /// fit, so it is refused by every limit rather than wrapped into a small number.
    pub fn workgroups(&self) -> u64 {
        self.grid
            .iter()
            .try_fold(1u64, |acc, &g| acc.checked_mul(g as u64))
            .unwrap_or(u64::MAX)
    }

    /// Lanes of one dispatch: threads per group times groups, computed checked like [`Kernel::workgroups`]
    /// (`u64::MAX` when it does not fit). A validated kernel has at most [`crate::limits::MAX_LANES`].
    pub fn lanes(&self) -> u64 {
        (self.threads as u64).saturating_mul(self.workgroups())
    }

    /// The parsed user data list.
    pub fn user_data(&self) -> Result<Vec<UserData>, String> {
        self.user_data.iter().map(|u| UserData::parse(u)).collect()
    }

    /// The declared tolerance of output dword `index` of the default placement, if any. Validation keeps the
    /// policies in ascending index order, so this is a binary search (it runs once per compared cell).
    pub fn policy(&self, index: u32) -> Option<&ColumnPolicy> {
        self.columns
            .binary_search_by_key(&index, |c| c.index)
            .ok()
            .map(|i| &self.columns[i])
    }

    /// The tolerance of column `index` of a row that compares `placement`: tolerances are declared on the
    /// default placement's dwords, so a row reading another array is compared without one (stricter, never
    /// looser, than applying a tolerance meant for other dwords).
    pub fn policy_for(&self, placement: &Placement, index: u32) -> Option<&ColumnPolicy> {
        if *placement == self.default_placement() {
            self.policy(index)
        } else {
            None
        }
    }

    /// The placement every row compared before placements were per row: `out` at stride `output_dwords`.
    /// A row with this placement has the measurement ID it always had ([`crate::id`]).
    pub fn default_placement(&self) -> Placement {
        Placement::new("out", self.output_dwords)
    }

    /// What a row's placement adds to its measurement ID: nothing for the default placement, itself otherwise.
    pub fn id_placement<'a>(&self, placement: &'a Placement) -> Option<&'a Placement> {
        (*placement != self.default_placement()).then_some(placement)
    }

    /// Checks that a row comparing `placement` up to column `last_column` can be read for every lane of a
    /// dispatch; the message says what is wrong.
    pub fn check_placement(&self, placement: &Placement, last_column: u32) -> Result<(), String> {
        let n = &self.name;
        let a = self.array(&placement.array).ok_or_else(|| {
            let names: Vec<&str> = self.memory.iter().map(|a| a.name.as_str()).collect();
            format!(
                "compares array `{}`, which kernel `{n}` does not have (its arrays: {})",
                placement.array,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })?;
        // Lane L's columns are L * stride + c: a column at or past the stride would read the next lane's dwords.
        if last_column >= placement.stride_dwords {
            return Err(format!(
                "column {last_column} does not fit in the lane stride of {} dwords in array `{}`",
                placement.stride_dwords, placement.array
            ));
        }
        let last_lane = self.lanes().saturating_sub(1);
        // Checked: an unvalidated kernel may claim any number of lanes; `None` is more than any array holds.
        let needed = last_lane
            .checked_mul(placement.stride_dwords as u64)
            .and_then(|d| d.checked_add(last_column as u64 + 1));
        let have = a.bytes as u64 / 4;
        if needed.is_none_or(|n| n > have) {
            let needed = needed.map_or("2^64 or more".to_string(), |n| n.to_string());
            return Err(format!(
                "array `{}` has {have} dwords; {} lanes at stride {} up to column {last_column} need {needed}",
                a.name,
                self.lanes(),
                placement.stride_dwords
            ));
        }
        Ok(())
    }

    /// The array named `name`.
    pub fn array(&self, name: &str) -> Option<&Array> {
        self.memory.iter().find(|a| a.name == name)
    }

    /// Checks everything that a kernel must satisfy to be runnable; the message says what is wrong. The limits are
    /// those of [`crate::limits`]: launch sizes are checked before any product of them is used.
    pub fn validate(&self) -> Result<(), String> {
        crate::names::kernel(&self.name)?;
        let n = &self.name;
        if self.wave != 32 && self.wave != 64 {
            return Err(format!("kernel `{n}`: wave {} is not 32 or 64", self.wave));
        }
        if self.threads == 0 || self.threads > 1024 {
            return Err(format!(
                "kernel `{n}`: threads {} is not in 1..=1024",
                self.threads
            ));
        }
        if self.grid.contains(&0) {
            return Err(format!("kernel `{n}`: grid {:?} is empty", self.grid));
        }
        let groups = self.workgroups();
        if groups > MAX_WORKGROUPS {
            return Err(format!(
                "kernel `{n}`: grid {:?} launches {} workgroups; a dispatch has at most {MAX_WORKGROUPS}",
                self.grid,
                count(groups)
            ));
        }
        let lanes = self.lanes();
        if lanes > MAX_LANES {
            return Err(format!(
                "kernel `{n}`: {} threads x grid {:?} is {} lanes; a dispatch has at most {MAX_LANES}",
                self.threads,
                self.grid,
                count(lanes)
            ));
        }
        if self.lds_bytes > 64 * 1024 {
            return Err(format!(
                "kernel `{n}`: lds_bytes {} exceeds the 64 KiB of a gfx10 workgroup",
                self.lds_bytes
            ));
        }
        if self.words.is_empty() {
            return Err(format!("kernel `{n}` has no words"));
        }
        if self.output_dwords == 0 || self.input_dwords > 256 || self.output_dwords > 4096 {
            return Err(format!(
                "kernel `{n}`: input_dwords must be <= 256 and output_dwords in 1..=4096"
            ));
        }
        if self.memory.len() > MAX_ARRAYS {
            return Err(format!(
                "kernel `{n}` has {} arrays; a job maps at most {MAX_ARRAYS}",
                self.memory.len()
            ));
        }
        let mut names = BTreeSet::new();
        let mut total: u64 = 0;
        for a in &self.memory {
            crate::names::array(&a.name).map_err(|m| format!("kernel `{n}`: {m}"))?;
            if !names.insert(a.name.as_str()) {
                return Err(format!("kernel `{n}`: array `{}` is listed twice", a.name));
            }
            if a.bytes % 4 != 0 || a.bytes > MAX_ARRAY_BYTES {
                return Err(format!(
                    "kernel `{n}`: array `{}` has {} bytes (a multiple of 4 from 0 to {})",
                    a.name,
                    a.bytes,
                    crate::limits::bytes(MAX_ARRAY_BYTES as u64)
                ));
            }
            total += a.bytes as u64;
            if !a.align.is_power_of_two() || a.align < 4 || a.align > 1 << 16 {
                return Err(format!(
                    "kernel `{n}`: array `{}` align {} is not a power of two in 4..=65536",
                    a.name, a.align
                ));
            }
            let dwords = a.bytes as u64 / 4;
            for init in &a.init {
                let len = if init.rows {
                    if !init.dwords.is_empty() {
                        return Err(format!(
                            "kernel `{n}`: array `{}`: an init has both rows and dwords",
                            a.name
                        ));
                    }
                    // Both factors are bounded above (lanes, input_dwords <= 256): no overflow.
                    lanes * self.input_dwords as u64
                } else {
                    init.dwords.len() as u64
                };
                if init.dword_offset as u64 + len > dwords {
                    return Err(format!(
                        "kernel `{n}`: array `{}` init at dword {} ({len} dwords) runs past its {dwords} dwords",
                        a.name, init.dword_offset
                    ));
                }
            }
        }
        if total > MAX_JOB_BYTES {
            return Err(format!(
                "kernel `{n}`: its {} arrays hold {total} bytes; a job maps at most {} in all",
                self.memory.len(),
                crate::limits::bytes(MAX_JOB_BYTES)
            ));
        }
        for l in &self.labels {
            crate::names::text("label", l).map_err(|m| format!("kernel `{n}`: {m}"))?;
        }
        if let Some(p) = &self.source {
            p.validate().map_err(|m| format!("kernel `{n}`: {m}"))?;
        }
        // Only what no gfx10 wave could address is refused here; what a launch path can load (16 user SGPRs
        // through COMPUTE_USER_DATA on the hardware) is each backend's to say, at run time. Counted before the
        // items are parsed, so a huge list costs nothing.
        let tgids = self.tgid.iter().filter(|&&t| t).count();
        if self.user_data.len() + tgids > MAX_SGPRS {
            return Err(format!(
                "kernel `{n}`: {} user SGPRs and {tgids} workgroup-id SGPRs do not fit in s0..s{} of a gfx10 wave",
                self.user_data.len(),
                MAX_SGPRS - 1
            ));
        }
        for u in self.user_data().map_err(|m| format!("kernel `{n}`: {m}"))? {
            if let Some(a) = u.array() {
                if self.array(a).is_none() {
                    return Err(format!(
                        "kernel `{n}`: user data refers to array `{}`, which is not in its memory list",
                        truncate(a)
                    ));
                }
            }
        }
        let mut last = None;
        for c in &self.columns {
            if c.index >= self.output_dwords || last.is_some_and(|l| c.index <= l) {
                return Err(format!(
                    "kernel `{n}`: column policy for dword {} is out of range, repeated or out of ascending order",
                    c.index
                ));
            }
            last = Some(c.index);
            crate::names::text("reason", &c.reason).map_err(|m| format!("kernel `{n}`: {m}"))?;
            if c.reason.trim().is_empty() {
                return Err(format!(
                    "kernel `{n}`: the tolerance on dword {} has no reason",
                    c.index
                ));
            }
        }
        Ok(())
    }

    /// The canonical string the content hash is taken over (documented in the crate docs).
    pub fn canonical(&self) -> String {
        let mut s = String::from("kernel-v1\n");
        let _ = writeln!(s, "abi={}", self.abi.name());
        let _ = writeln!(s, "wave={}", self.wave);
        let _ = writeln!(s, "threads={}", self.threads);
        let _ = writeln!(s, "grid={},{},{}", self.grid[0], self.grid[1], self.grid[2]);
        let _ = writeln!(s, "lds_bytes={}", self.lds_bytes);
        let _ = writeln!(s, "input_dwords={}", self.input_dwords);
        let _ = writeln!(s, "output_dwords={}", self.output_dwords);
        let _ = writeln!(s, "user_data={}", self.user_data.join(","));
        let _ = writeln!(
            s,
            "tgid={},{},{}",
            self.tgid[0] as u8, self.tgid[1] as u8, self.tgid[2] as u8
        );
        for a in &self.memory {
            let _ = write!(
                s,
                "array={}:bytes={}:align={}:fill={:08x}",
                a.name, a.bytes, a.align, a.fill.0
            );
            for i in &a.init {
                if i.rows {
                    let _ = write!(s, ":rows@{}", i.dword_offset);
                } else {
                    let d: Vec<u32> = i.dwords.iter().map(|d| d.0).collect();
                    let _ = write!(s, ":dwords@{}={}", i.dword_offset, format_dwords(&d));
                }
            }
            s.push('\n');
        }
        // The default placement, kept from when the placement was part of the kernel (module docs).
        let _ = writeln!(s, "output=out:stride={}", self.output_dwords);
        let _ = writeln!(s, "words={}", format_dwords(&self.words()));
        s
    }

    /// SHA-256 of [`Kernel::canonical`], as 64 lowercase hex digits.
    pub fn content_hash(&self) -> String {
        hex_digest(self.canonical().as_bytes())
    }
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn hex_digest(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d.iter() {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// A parsed `kernels.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelFile {
    /// The suite these kernels belong to.
    pub suite: String,
    /// Free text about the suite.
    pub description: Option<String>,
    /// Provenance of the suite as a whole (e.g. the peer test file).
    pub source: Option<Provenance>,
    /// The kernels, in file order.
    pub kernels: Vec<Kernel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    schema: String,
    suite: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    source: Option<Provenance>,
    #[serde(default, rename = "kernel")]
    kernels: Vec<toml::Spanned<Kernel>>,
}

/// Just the schema tag of a kernel file, read when the whole file does not parse.
#[derive(Deserialize)]
struct SchemaOnly {
    schema: Option<String>,
}

const OLD_SCHEMA: &str =
    "schema `kernels-v1` kept the output placement in the kernel; in `kernels-v2` it is \
     each row's `array` and `stride_dwords` (measurements crate docs): re-import the suite";

/// Is `name` a valid suite name ([`crate::names::suite`]: lowercase-kebab, at most
/// [`crate::limits::MAX_NAME_BYTES`])?
pub fn valid_suite_name(name: &str) -> bool {
    crate::names::suite(name).is_ok()
}

/// Where in a kernel file byte `offset` is, as the key path of the innermost value around it
/// (`kernel[2].memory[0].init[1].rows`) and the name of the kernel it belongs to, for messages about a key the
/// typed reader refused. `None` when the text is not TOML at all (the parser's position is all there is).
fn key_path(text: &str, offset: usize) -> Option<(String, Option<String>)> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(text).ok()?;
    let mut path = String::new();
    let mut kernel = None;
    let mut table: &DeTable = root.get_ref();
    let mut depth = 0;
    // The entry that starts last at or before the offset holds it: a table's keys come before its contents, and
    // an array of tables' elements start at their `[[...]]` headers.
    while let Some((k, v)) = table
        .iter()
        .filter(|(k, _)| k.span().start <= offset)
        .max_by_key(|(k, _)| k.span().start)
    {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&truncate(k.get_ref()));
        let mut value = v;
        while let DeValue::Array(items) = value.get_ref() {
            let Some((i, item)) = items
                .iter()
                .enumerate()
                .filter(|(_, e)| e.span().start <= offset)
                .max_by_key(|(_, e)| e.span().start)
            else {
                break;
            };
            path.push_str(&format!("[{i}]"));
            if depth == 0 && k.get_ref() == "kernel" {
                if let DeValue::Table(t) = item.get_ref() {
                    if let Some(DeValue::String(n)) = t.get("name").map(|n| n.get_ref()) {
                        kernel = Some(truncate(n));
                    }
                }
            }
            value = item;
        }
        match value.get_ref() {
            DeValue::Table(t) => {
                table = t;
                depth += 1;
            }
            _ => break,
        }
    }
    (!path.is_empty()).then_some((path, kernel))
}

impl KernelFile {
    /// Parses and validates kernel file text; `path` is used in error messages only.
    pub fn parse(path: &Path, text: &str) -> Result<KernelFile> {
        let old_schema = || Error::syntax(path, Pos::new(1, 0), OLD_SCHEMA);
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            // A kernels-v1 file fails on its `output` keys before the schema is looked at; say why instead.
            if toml::from_str::<SchemaOnly>(text)
                .is_ok_and(|s| s.schema.as_deref() == Some("kernels-v1"))
            {
                return old_schema();
            }
            let pos = e
                .span()
                .map_or(Pos::default(), |s| Pos::of_offset(text, s.start));
            let message = crate::hex::shorten_message(e.message().trim());
            let place = e.span().and_then(|s| key_path(text, s.start));
            let message = match place {
                Some((keys, Some(kernel))) => format!("kernel `{kernel}`, key `{keys}`: {message}"),
                Some((keys, None)) => format!("key `{keys}`: {message}"),
                None => message,
            };
            Error::syntax(path, pos, message)
        })?;
        if raw.schema == "kernels-v1" {
            return Err(old_schema());
        }
        if raw.schema != SCHEMA {
            return Err(Error::syntax(
                path,
                Pos::new(1, 0),
                format!("schema `{}` is not `{SCHEMA}`", truncate(&raw.schema)),
            ));
        }
        // Kernels are in file order, so one forward pass gives every position (linear in the file).
        let mut cursor = crate::error::PosCursor::new(text);
        let mut positions = Vec::with_capacity(raw.kernels.len());
        let mut kernels = Vec::with_capacity(raw.kernels.len());
        for k in raw.kernels {
            positions.push(cursor.at(k.span().start));
            kernels.push(k.into_inner());
        }
        let file = KernelFile {
            suite: raw.suite,
            description: raw.description,
            source: raw.source,
            kernels,
        };
        file.validate().map_err(|(kernel, m)| {
            let pos = kernel.map_or(Pos::new(1, 0), |i| positions[i]);
            Error::syntax(path, pos, m)
        })?;
        Ok(file)
    }

    /// Checks everything [`KernelFile::parse`] checks after reading the TOML: the suite name, the free text, every
    /// kernel ([`Kernel::validate`]) and that kernel names are unique. The writer runs it before writing, so it
    /// never writes a file its reader refuses. The error carries the index of the kernel at fault, if one is.
    pub fn validate(&self) -> Result<(), (Option<usize>, String)> {
        crate::names::suite(&self.suite).map_err(|m| (None, m))?;
        if let Some(d) = &self.description {
            crate::names::text("description", d).map_err(|m| (None, m))?;
        }
        if let Some(p) = &self.source {
            p.validate().map_err(|m| (None, m))?;
        }
        let mut names = BTreeSet::new();
        for (i, k) in self.kernels.iter().enumerate() {
            k.validate().map_err(|m| (Some(i), m))?;
            if !names.insert(k.name.as_str()) {
                return Err((Some(i), format!("kernel `{}` is defined twice", k.name)));
            }
        }
        Ok(())
    }

    /// Reads and validates a kernel file (at most [`crate::limits::MAX_KERNELS_FILE_BYTES`], UTF-8).
    pub fn read(path: &Path) -> Result<KernelFile> {
        let text = crate::input::read_text(path, crate::limits::MAX_KERNELS_FILE_BYTES)?;
        KernelFile::parse(path, &text)
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Each kernel's position in the file, by name (the canonical order of rows and jobs).
    pub fn order(&self) -> std::collections::BTreeMap<&str, usize> {
        self.kernels
            .iter()
            .enumerate()
            .map(|(i, k)| (k.name.as_str(), i))
            .collect()
    }

    /// Renders the file in its canonical layout (stable, so re-imports are byte-identical).
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Kernels of one measurement suite. Format: measurements crate docs ({SCHEMA})."
        );
        let _ = writeln!(s, "schema = {}", q(SCHEMA));
        let _ = writeln!(s, "suite = {}", q(&self.suite));
        if let Some(d) = &self.description {
            let _ = writeln!(s, "description = {}", q(d));
        }
        if let Some(p) = &self.source {
            let _ = writeln!(s, "source = {}", provenance(p));
        }
        for k in &self.kernels {
            s.push_str("\n[[kernel]]\n");
            let _ = writeln!(s, "name = {}", q(&k.name));
            let _ = writeln!(s, "abi = {}", q(k.abi.name()));
            let _ = writeln!(s, "wave = {}", k.wave);
            let _ = writeln!(s, "threads = {}", k.threads);
            let _ = writeln!(s, "grid = [{}, {}, {}]", k.grid[0], k.grid[1], k.grid[2]);
            let _ = writeln!(s, "lds_bytes = {}", k.lds_bytes);
            let _ = writeln!(s, "input_dwords = {}", k.input_dwords);
            let _ = writeln!(s, "output_dwords = {}", k.output_dwords);
            let _ = writeln!(
                s,
                "user_data = [{}]",
                k.user_data
                    .iter()
                    .map(|u| q(u))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let _ = writeln!(s, "tgid = [{}, {}, {}]", k.tgid[0], k.tgid[1], k.tgid[2]);
            if let Some(p) = &k.source {
                let _ = writeln!(s, "source = {}", provenance(p));
            }
            if let Some(n) = k.declared_word_count {
                let _ = writeln!(s, "declared_word_count = {n}");
            }
            if !k.labels.is_empty() {
                s.push_str("labels = [\n");
                for l in &k.labels {
                    let _ = writeln!(s, "    {},", q(l));
                }
                s.push_str("]\n");
            }
            s.push_str("words = [\n");
            for chunk in k.words.chunks(8) {
                let line: Vec<String> = chunk.iter().map(|w| format!("\"{:08x}\"", w.0)).collect();
                let _ = writeln!(s, "    {},", line.join(", "));
            }
            s.push_str("]\n");
            for a in &k.memory {
                s.push_str("\n[[kernel.memory]]\n");
                let _ = writeln!(s, "name = {}", q(&a.name));
                let _ = writeln!(s, "bytes = {}", a.bytes);
                let _ = writeln!(s, "fill = \"{:08x}\"", a.fill.0);
                let _ = writeln!(s, "align = {}", a.align);
                for i in &a.init {
                    s.push_str("\n[[kernel.memory.init]]\n");
                    let _ = writeln!(s, "dword_offset = {}", i.dword_offset);
                    if i.rows {
                        s.push_str("rows = true\n");
                    } else {
                        s.push_str("dwords = [\n");
                        for chunk in i.dwords.chunks(8) {
                            let line: Vec<String> =
                                chunk.iter().map(|w| format!("\"{:08x}\"", w.0)).collect();
                            let _ = writeln!(s, "    {},", line.join(", "));
                        }
                        s.push_str("]\n");
                    }
                }
            }
            for c in &k.columns {
                s.push_str("\n[[kernel.column]]\n");
                let _ = writeln!(s, "index = {}", c.index);
                let _ = writeln!(
                    s,
                    "format = {}",
                    q(match c.format {
                        TolFormat::F32 => "f32",
                        TolFormat::F16 => "f16",
                    })
                );
                let _ = writeln!(s, "ulp = {}", c.ulp);
                let _ = writeln!(s, "reason = {}", q(&c.reason));
            }
        }
        s
    }
}

fn provenance(p: &Provenance) -> String {
    format!(
        "{{ repo = {}, path = {}, commit = {} }}",
        q(&p.repo),
        q(&p.path),
        q(&p.commit)
    )
}

/// A TOML basic string.
fn q(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fixed vector of the content hash's canonical string: if it changes, every measurement ID changes.
    #[test]
    fn canonical_string_keeps_the_default_placement_line() {
        let k = Kernel::agc_buffer("any-name", &[0xbf81_0000], 32, 32, (4, 16), 0xdead_beef, 0);
        let want = "kernel-v1\nabi=agc-buffer-v1\nwave=32\nthreads=32\ngrid=1,1,1\nlds_bytes=0\ninput_dwords=4\n\
                    output_dwords=16\nuser_data=in.lo,in.hi16,in.bytes,31016fac,out.lo,out.hi16,out.bytes,31016fac\n\
                    tgid=0,0,0\narray=in:bytes=512:align=256:fill=00000000:rows@0\n\
                    array=out:bytes=2048:align=256:fill=deadbeef\noutput=out:stride=16\nwords=bf810000\n";
        assert_eq!(k.canonical(), want);
        assert_eq!(k.content_hash(), hex_digest(want.as_bytes()));
        assert_eq!(k.default_placement(), Placement::new("out", 16));
        assert_eq!(k.id_placement(&Placement::new("out", 16)), None);
        let other = Placement::new("out", 32);
        assert_eq!(k.id_placement(&other), Some(&other));
    }

    #[test]
    fn the_oracle_layout_with_buffers_adds_scratch_and_two_v_sharps() {
        let raw = OracleVsharp {
            stride: 0,
            swizzle: false,
            records: None,
            word3: 0x3101_6fac,
        };
        let b = OracleBuffers {
            scratch_bytes: 48,
            fill: 0xdead_beef,
            in_vsharp: raw,
            scratch_vsharp: OracleVsharp {
                stride: 12,
                swizzle: true,
                records: Some(64),
                word3: 0x1100_e000,
            },
        };
        let plain = Kernel::oracle_v1("k", &[0xbf81_0000], 32, 64, 0);
        let k = Kernel::oracle_v1_buffers("k", &[0xbf81_0000], 32, 64, 0, &b);
        k.validate().unwrap();
        // The plain layout's arguments first, unchanged: 56 bytes of kernel arguments in all.
        assert_eq!(k.user_data[..4], plain.user_data[..]);
        assert_eq!(
            k.user_data[4..],
            [
                "scratch.lo",
                "scratch.hi",
                "in.lo",
                "in.hi16",
                "in.bytes",
                "31016fac",
                "scratch.lo",
                "scratch.hi16+stride12+swizzle",
                "00000040",
                "1100e000",
            ]
        );
        assert_eq!(k.memory[..2], plain.memory[..]);
        let s = k.array("scratch").unwrap();
        assert_eq!((s.bytes, s.fill.0, s.align), (64 * 48, 0xdead_beef, 256));
        // The V# words as a backend evaluates them at an address.
        let items = k.user_data().unwrap();
        assert_eq!(items[7].value(0x7f12_3456_7800, 1024), 0x7f12);
        assert_eq!(items[11].value(0x7f12_3456_7800, 3072), 0x800c_7f12);
        assert_eq!(items[8].value(0x7f12_3456_7800, 1024), 1024);
        assert_ne!(k.content_hash(), plain.content_hash());
    }

    #[test]
    fn placements_are_checked_against_the_columns_and_the_array() {
        let mut k = Kernel::agc_buffer("k", &[0xbf81_0000], 32, 32, (4, 16), 0, 0);
        k.memory.push(Array {
            name: "empty".into(),
            bytes: 0,
            fill: HexDword(0),
            align: 256,
            init: vec![],
        });
        k.validate().unwrap();
        assert_eq!(k.check_placement(&Placement::new("out", 16), 15), Ok(()));
        assert_eq!(k.check_placement(&Placement::new("out", 8), 7), Ok(()));
        for (p, last, msg) in [
            (
                Placement::new("nowhere", 16),
                0,
                "compares array `nowhere`, which kernel `k` does not have (its arrays: in, out, empty)",
            ),
            (
                Placement::new("out", 16),
                16,
                "column 16 does not fit in the lane stride of 16 dwords in array `out`",
            ),
            (
                Placement::new("out", 0),
                0,
                "column 0 does not fit in the lane stride of 0 dwords in array `out`",
            ),
            (
                Placement::new("out", 17),
                0,
                "array `out` has 512 dwords; 32 lanes at stride 17 up to column 0 need 528",
            ),
            (
                Placement::new("empty", 1),
                0,
                "array `empty` has 0 dwords; 32 lanes at stride 1 up to column 0 need 32",
            ),
        ] {
            assert_eq!(k.check_placement(&p, last), Err(msg.to_string()), "{p}");
        }
    }
}
