//! From register state to a job: what one DISPATCH_DIRECT or DISPATCH_INDIRECT launches, checked field by
//! field, and the [`measurements::Job`] any backend runs for it.
//!
//! Every COMPUTE_DISPATCH_INITIATOR bit of gfx10 is honoured or refused ([`INITIATOR_BITS`]); so is every field
//! of COMPUTE_PGM_RSRC1/2/3 and COMPUTE_NUM_THREAD_X/Y/Z. A mode or wave-size change makes a different job
//! (the job carries both), so two dispatches of one shader in two float modes are two jobs.

use super::error::{CpErrorKind, Refusal};
use super::memory::Memory;
use super::regs::{self, field, Role, RSRC1_FIELDS, RSRC2_FIELDS};
use measurements::hex::HexDword;
use measurements::job::Job;
use measurements::kernel::{Abi, Array, Init, Kernel};
use measurements::FloatMode;
use std::sync::Arc;

/// The SH register state: every register a packet wrote, by offset ([`regs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShState {
    values: Vec<Option<u32>>,
}

impl Default for ShState {
    fn default() -> Self {
        ShState {
            values: vec![None; regs::SH_DWORDS as usize],
        }
    }
}

impl ShState {
    /// No register written.
    pub fn new() -> ShState {
        ShState::default()
    }

    /// The value of the register at `offset`, if a packet (or a dispatch, for the ones the CP writes) wrote it.
    pub fn get(&self, offset: u16) -> Option<u32> {
        self.values.get(usize::from(offset)).copied().flatten()
    }

    /// Sets the register at `offset` (ignored past the SH space, which decoding already refuses).
    pub fn set(&mut self, offset: u16, value: u32) {
        if let Some(v) = self.values.get_mut(usize::from(offset)) {
            *v = Some(value);
        }
    }

    /// Every written register, by offset.
    pub fn written(&self) -> Vec<(u16, u32)> {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i as u16, v)))
            .collect()
    }
}

/// What the compute path does with one COMPUTE_DISPATCH_INITIATOR bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Carried out; the text says how.
    Honoured(&'static str),
    /// Refused when set; the text says why.
    RefusedWhenSet(&'static str),
    /// Refused when clear; the text says why.
    RefusedWhenClear(&'static str),
}

/// Every bit of COMPUTE_DISPATCH_INITIATOR on gfx10 (gfx10.json; bits without a field are undefined) and its
/// treatment.
pub static INITIATOR_BITS: [(u32, &str, Treatment); 32] = {
    use Treatment::*;
    const UNDEFINED: Treatment = RefusedWhenSet("no such field on gfx10 (gfx10.json)");
    [
        (0, "COMPUTE_SHADER_EN", RefusedWhenClear("a dispatch that launches no shader is not documented")),
        (1, "PARTIAL_TG_EN", Honoured("a dispatch whose last workgroup would be partial is refused (the job's workgroups are all one size); one without is run")),
        (2, "FORCE_START_AT_000", Honoured("COMPUTE_START_X/Y/Z are not read; the grid starts at 0")),
        (3, "ORDERED_APPEND_ENBL", RefusedWhenSet("ordered append (ds_ordered_count through GDS) has no GDS here")),
        (4, "ORDERED_APPEND_MODE", RefusedWhenSet("ordered append (ds_ordered_count through GDS) has no GDS here")),
        (5, "USE_THREAD_DIMENSIONS", Honoured("DIM_X/Y/Z count threads, divided by NUM_THREAD_FULL into workgroups (a remainder is refused)")),
        (6, "ORDER_MODE", Honoured("both orders allow the backends' order: workgroups one after another, x fastest")),
        (7, "bit 7", UNDEFINED),
        (8, "bit 8", UNDEFINED),
        (9, "bit 9", UNDEFINED),
        (10, "SCALAR_L1_INV_VOL", Honoured("the backends keep no caches between dispatches: nothing to invalidate")),
        (11, "VECTOR_L1_INV_VOL", Honoured("the backends keep no caches between dispatches: nothing to invalidate")),
        (12, "RESERVED", RefusedWhenSet("reserved")),
        (13, "TUNNEL_ENABLE", Honoured("a scheduling priority; results do not depend on it")),
        (14, "RESTORE", RefusedWhenSet("a context-save/restore relaunch needs saved wave state the job does not carry")),
        (15, "CS_W32_EN", Honoured("wave32 when set, wave64 when clear")),
        (16, "bit 16", UNDEFINED),
        (17, "bit 17", UNDEFINED),
        (18, "bit 18", UNDEFINED),
        (19, "bit 19", UNDEFINED),
        (20, "bit 20", UNDEFINED),
        (21, "bit 21", UNDEFINED),
        (22, "bit 22", UNDEFINED),
        (23, "bit 23", UNDEFINED),
        (24, "bit 24", UNDEFINED),
        (25, "bit 25", UNDEFINED),
        (26, "bit 26", UNDEFINED),
        (27, "bit 27", UNDEFINED),
        (28, "bit 28", UNDEFINED),
        (29, "bit 29", UNDEFINED),
        (30, "bit 30", UNDEFINED),
        (31, "bit 31", UNDEFINED),
    ]
};

/// A decoded COMPUTE_DISPATCH_INITIATOR whose every bit is honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Initiator {
    /// The register value.
    pub raw: u32,
    /// CS_W32_EN.
    pub wave32: bool,
    /// PARTIAL_TG_EN.
    pub partial_tg: bool,
    /// FORCE_START_AT_000.
    pub force_start_at_000: bool,
    /// USE_THREAD_DIMENSIONS.
    pub use_thread_dimensions: bool,
}

/// Checks every bit of `raw` ([`INITIATOR_BITS`]).
pub fn initiator(raw: u32) -> Result<Initiator, Refusal> {
    for (bit, name, t) in &INITIATOR_BITS {
        let set = raw >> bit & 1 != 0;
        let why = match t {
            Treatment::RefusedWhenSet(w) if set => w,
            Treatment::RefusedWhenClear(w) if !set => w,
            _ => continue,
        };
        return Err(Refusal::new(
            format!(
                "COMPUTE_DISPATCH_INITIATOR {raw:#010x} {name} = {}",
                u32::from(set)
            ),
            *why,
        ));
    }
    let bit = |b: u32| raw >> b & 1 != 0;
    Ok(Initiator {
        raw,
        wave32: bit(15),
        partial_tg: bit(1),
        force_start_at_000: bit(2),
        use_thread_dimensions: bit(5),
    })
}

const AXES: [&str; 3] = ["X", "Y", "Z"];

/// Bytes of one RSRC2.LDS_SIZE unit on gfx7 and later (Mesa `ac_gpu_info.c`: `lds_encode_granularity`).
pub const LDS_GRANULE: u32 = 512;
/// The most LDS a gfx10 workgroup has.
pub const MAX_LDS_BYTES: u32 = 64 << 10;

/// What one dispatch launches, every register read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Guest address of the shader (COMPUTE_PGM_LO/HI).
    pub pgm: u64,
    /// 32 or 64 (CS_W32_EN).
    pub wave: u32,
    /// Threads per workgroup (NUM_THREAD_FULL of X; Y and Z are 1).
    pub threads: u32,
    /// Workgroups in x, y, z (0 in any: the dispatch launches nothing).
    pub groups: [u32; 3],
    /// The float mode (COMPUTE_PGM_RSRC1).
    pub mode: FloatMode,
    /// The user SGPRs (COMPUTE_USER_DATA_0 .. RSRC2.USER_SGPR - 1).
    pub user_data: Vec<u32>,
    /// Which of them no packet wrote (they are 0: see the module docs of [`super`]).
    pub unset_user_data: Vec<u16>,
    /// TGID_X/Y/Z_EN: the workgroup-id SGPRs after the user SGPRs.
    pub tgid: [bool; 3],
    /// LDS bytes per workgroup (RSRC2.LDS_SIZE in 512-byte units).
    pub lds_bytes: u32,
    /// The initiator.
    pub initiator: Initiator,
}

fn need(state: &ShState, offset: u16) -> Result<u32, Refusal> {
    state.get(offset).ok_or_else(|| {
        Refusal::new(
            format!("{} never written", regs::name(offset)),
            "a dispatch reads it, and the CP's reset value of it is not documented",
        )
    })
}

fn undefined_bits(offset: u16, value: u32) -> Result<(), Refusal> {
    let Some(r) = regs::register(offset) else {
        return Ok(());
    };
    let covered = r.fields.iter().fold(0u32, |m, f| f.put(m, u32::MAX));
    let stray = value & !covered;
    if stray != 0 {
        return Err(Refusal::new(
            format!("{} = {value:#010x}", r.name),
            format!("bits {stray:#010x} are not a field of it on gfx10 (gfx10.json)"),
        ));
    }
    Ok(())
}

/// Reads and checks the state a dispatch of `dims` (DIM_X/Y/Z) with `initiator` launches.
pub fn dispatch(state: &ShState, dims: [u32; 3], initiator_raw: u32) -> Result<Dispatch, Refusal> {
    let init = initiator(initiator_raw)?;
    // Registers the job abstraction cannot carry, where set.
    for (offset, value) in state.written() {
        if let Some(r) = regs::register(offset) {
            if r.role == Role::RefusedIfSet && value != 0 {
                return Err(Refusal::new(
                    format!("{} = {value:#010x}", r.name),
                    "wave save/restore, relaunch and VMID state are not carried by a job",
                ));
            }
        }
    }
    let lo = need(state, regs::PGM_LO)?;
    let hi = need(state, regs::PGM_HI)?;
    undefined_bits(regs::PGM_HI, hi)?;
    let pgm = (u64::from(lo) << 8) | (u64::from(hi & 0xff) << 40);

    let rsrc1 = need(state, regs::PGM_RSRC1)?;
    undefined_bits(regs::PGM_RSRC1, rsrc1)?;
    let r1 = |n: &str| field(RSRC1_FIELDS, n).get(rsrc1);
    if r1("PRIV") != 0 {
        return Err(Refusal::new(
            format!("COMPUTE_PGM_RSRC1 {rsrc1:#010x} PRIV = 1"),
            "privileged shaders (trap handlers) are not run",
        ));
    }
    let mode = FloatMode {
        float_mode: r1("FLOAT_MODE") as u8,
        ieee: r1("IEEE_MODE") != 0,
        dx10_clamp: r1("DX10_CLAMP") != 0,
        fp16_ovfl: r1("FP16_OVFL") != 0,
    };

    let rsrc2 = need(state, regs::PGM_RSRC2)?;
    undefined_bits(regs::PGM_RSRC2, rsrc2)?;
    let r2 = |n: &str| field(RSRC2_FIELDS, n).get(rsrc2);
    for (name, why) in [
        ("SCRATCH_EN", "scratch memory is not part of a job"),
        ("TRAP_PRESENT", "there is no trap handler"),
        (
            "TG_SIZE_EN",
            "the job abstraction loads no workgroup-size SGPR after the workgroup ids",
        ),
        ("EXCP_EN_MSB", "exception traps need a trap handler"),
        ("EXCP_EN", "exception traps need a trap handler"),
    ] {
        if r2(name) != 0 {
            return Err(Refusal::new(
                format!("COMPUTE_PGM_RSRC2 {rsrc2:#010x} {name} = {:#x}", r2(name)),
                why,
            ));
        }
    }
    let user_sgprs = r2("USER_SGPR");
    if user_sgprs > u32::from(regs::USER_DATA_COUNT) {
        return Err(Refusal::new(
            format!("COMPUTE_PGM_RSRC2 {rsrc2:#010x} USER_SGPR = {user_sgprs}"),
            "gfx10 compute has 16 COMPUTE_USER_DATA registers",
        ));
    }
    let lds_bytes = r2("LDS_SIZE") * LDS_GRANULE;
    if lds_bytes > MAX_LDS_BYTES {
        return Err(Refusal::new(
            format!(
                "COMPUTE_PGM_RSRC2 {rsrc2:#010x} LDS_SIZE = {}",
                r2("LDS_SIZE")
            ),
            format!("{lds_bytes} bytes is more than the 64 KiB of a gfx10 workgroup"),
        ));
    }
    // TIDIG_COMP_CNT may be anything: v1 and v2 hold the y and z thread ids, which are 0 in a one-dimensional
    // workgroup, and every backend starts those VGPRs at 0.
    if let Some(rsrc3) = state.get(regs::PGM_RSRC3) {
        undefined_bits(regs::PGM_RSRC3, rsrc3)?;
    }

    let mut full = [0u32; 3];
    let mut partial = [0u32; 3];
    for ((off, fl), pa) in (regs::NUM_THREAD_X..).zip(&mut full).zip(&mut partial) {
        let v = need(state, off)?;
        *fl = v & 0xffff;
        *pa = v >> 16;
        if *fl == 0 {
            return Err(Refusal::new(
                format!("{} = {v:#010x}", regs::name(off)),
                "NUM_THREAD_FULL 0: a workgroup of no threads",
            ));
        }
    }
    let [threads, y, z] = full;
    if y != 1 || z != 1 {
        return Err(Refusal::new(
            format!("workgroup {threads}x{y}x{z} (COMPUTE_NUM_THREAD_X/Y/Z)"),
            "the job abstraction's workgroups are one-dimensional (v0 the thread index)",
        ));
    }
    if threads > 1024 {
        return Err(Refusal::new(
            format!("COMPUTE_NUM_THREAD_X NUM_THREAD_FULL = {threads}"),
            "a gfx10 workgroup has at most 1024 threads",
        ));
    }
    let partial_group =
        "the last workgroup would be partial; the job abstraction's workgroups are all one size";
    let mut groups = dims;
    for (((axis, g), f), p) in AXES.iter().zip(&mut groups).zip(full).zip(partial) {
        if init.use_thread_dimensions {
            if *g % f != 0 {
                return Err(Refusal::new(
                    format!(
                        "DIM_{axis} of {g} threads in workgroups of {f} (USE_THREAD_DIMENSIONS)"
                    ),
                    partial_group,
                ));
            }
            *g /= f;
        } else if init.partial_tg && p != 0 {
            return Err(Refusal::new(
                format!("PARTIAL_TG_EN with NUM_THREAD_PARTIAL {p} in {axis}"),
                partial_group,
            ));
        }
    }
    if !init.force_start_at_000 {
        for (axis, off) in AXES.iter().zip(regs::START_X..) {
            let s = state.get(off).unwrap_or(0);
            if s != 0 {
                return Err(Refusal::new(
                    format!("COMPUTE_START_{axis} = {s}"),
                    "the job abstraction numbers workgroups from 0",
                ));
            }
        }
    }
    let mut user_data = Vec::new();
    let mut unset_user_data = Vec::new();
    for i in 0..user_sgprs as u16 {
        let off = regs::USER_DATA_0 + i;
        user_data.push(state.get(off).unwrap_or_else(|| {
            unset_user_data.push(i);
            0
        }));
    }
    Ok(Dispatch {
        pgm,
        wave: if init.wave32 { 32 } else { 64 },
        threads,
        groups,
        mode,
        user_data,
        unset_user_data,
        tgid: [
            r2("TGID_X_EN") != 0,
            r2("TGID_Y_EN") != 0,
            r2("TGID_Z_EN") != 0,
        ],
        lds_bytes,
        initiator: init,
    })
}

impl Dispatch {
    /// True when a dimension has no workgroups: the dispatch launches nothing.
    pub fn is_empty(&self) -> bool {
        self.groups.contains(&0)
    }
}

/// The job of dispatch `index` of `d` on `target`: the shader's words are read from guest memory at
/// COMPUTE_PGM up to the end of the region holding it (the CP does not know a shader's length; its allocation
/// bounds it), every region of guest memory is an array at its guest address (a shader may read any of it),
/// and the user SGPRs are the registers' values.
pub fn job(d: &Dispatch, memory: &Memory, target: &str, index: usize) -> Result<Job, CpErrorKind> {
    let code = memory.region_at(d.pgm).ok_or(CpErrorKind::Fault {
        fault: super::memory::Fault {
            address: d.pgm,
            len: 4,
            write: false,
        },
        what: "the shader at COMPUTE_PGM_LO/HI".into(),
    })?;
    let words: Vec<u32> = code
        .dwords()
        .get(((d.pgm - code.base) / 4) as usize..)
        .unwrap_or(&[])
        .to_vec();
    let refuse = |what: String, reason: String| CpErrorKind::Refused(Refusal::new(what, reason));
    let memory_list: Vec<Array> = memory
        .regions()
        .iter()
        .map(|r| Array {
            name: r.name.clone(),
            bytes: r.bytes.len() as u32,
            fill: HexDword(0),
            align: 4,
            init: vec![Init {
                dword_offset: 0,
                rows: false,
                dwords: r.dwords().into_iter().map(HexDword).collect(),
            }],
        })
        .collect();
    let kernel = Kernel {
        name: format!("pm4-dispatch-{index}"),
        abi: Abi::AgcBufferV1,
        wave: d.wave,
        threads: d.threads,
        grid: d.groups,
        lds_bytes: d.lds_bytes,
        input_dwords: 0,
        // The kernel format asks for at least one output dword; nothing reads it (a rebuilt job has no rows).
        output_dwords: 1,
        user_data: d.user_data.iter().map(|v| format!("{v:08x}")).collect(),
        tgid: d.tgid,
        memory: memory_list,
        columns: vec![],
        labels: vec![],
        source: None,
        declared_word_count: None,
        words: words.into_iter().map(HexDword).collect(),
    };
    kernel.validate().map_err(|m| {
        refuse(
            format!("the job of the dispatch at COMPUTE_PGM {:#x}", d.pgm),
            format!("it is not a job the backends take: {m}"),
        )
    })?;
    Ok(Job {
        suite: "pm4".into(),
        kernel: Arc::new(kernel),
        target: target.to_string(),
        mode: d.mode,
        dispatch: format!("pm4-{index}"),
        lanes: vec![],
        independent_groups: false,
        addresses: Some(memory.regions().iter().map(|r| r.base).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pm4::regs::INITIATOR_FIELDS;

    #[test]
    fn the_bit_table_names_every_initiator_field_of_gfx10_json() {
        for f in INITIATOR_FIELDS {
            let (_, name, _) = INITIATOR_BITS[usize::from(f.lo)];
            assert_eq!(name, f.name);
        }
        let named = INITIATOR_BITS
            .iter()
            .filter(|(_, n, _)| !n.starts_with("bit "))
            .count();
        assert_eq!(named, INITIATOR_FIELDS.len());
    }
}
