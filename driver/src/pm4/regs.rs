//! The gfx10 compute shader registers: offsets, names and fields from Mesa's `src/amd/registers/gfx10.json`,
//! and what a dispatch does with each ([`Role`]).
//!
//! Offsets here are dwords from the start of the SH register space (byte address `0xB000`), as SET_SH_REG
//! writes them: COMPUTE_PGM_LO is byte address `0xB830`, so offset `0x20c`.

/// Byte address of the SH register space (Mesa `sid.h`: `SI_SH_REG_OFFSET`).
pub const SH_BASE: u32 = 0xb000;
/// Dwords in the SH register space (`SI_SH_REG_END - SI_SH_REG_OFFSET`, 4 KiB).
pub const SH_DWORDS: u32 = 0x400;

/// SH offset of COMPUTE_DISPATCH_INITIATOR.
pub const DISPATCH_INITIATOR: u16 = 0x200;
/// SH offset of COMPUTE_DIM_X (Y and Z follow).
pub const DIM_X: u16 = 0x201;
/// SH offset of COMPUTE_START_X (Y and Z follow).
pub const START_X: u16 = 0x204;
/// SH offset of COMPUTE_NUM_THREAD_X (Y and Z follow).
pub const NUM_THREAD_X: u16 = 0x207;
/// SH offset of COMPUTE_PGM_LO.
pub const PGM_LO: u16 = 0x20c;
/// SH offset of COMPUTE_PGM_HI.
pub const PGM_HI: u16 = 0x20d;
/// SH offset of COMPUTE_PGM_RSRC1.
pub const PGM_RSRC1: u16 = 0x212;
/// SH offset of COMPUTE_PGM_RSRC2.
pub const PGM_RSRC2: u16 = 0x213;
/// SH offset of COMPUTE_RESOURCE_LIMITS.
pub const RESOURCE_LIMITS: u16 = 0x215;
/// SH offset of COMPUTE_TMPRING_SIZE.
pub const TMPRING_SIZE: u16 = 0x218;
/// SH offset of COMPUTE_PGM_RSRC3.
pub const PGM_RSRC3: u16 = 0x228;
/// SH offset of COMPUTE_USER_DATA_0 (1..15 follow).
pub const USER_DATA_0: u16 = 0x240;
/// COMPUTE_USER_DATA registers.
pub const USER_DATA_COUNT: u16 = 16;

/// A bit field of a register: bits `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Name, as gfx10.json has it.
    pub name: &'static str,
    /// Lowest bit.
    pub lo: u8,
    /// Highest bit.
    pub hi: u8,
}

impl Field {
    /// The field's value in `v`.
    pub fn get(&self, v: u32) -> u32 {
        let width = u32::from(self.hi - self.lo) + 1;
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        (v >> self.lo) & mask
    }

    /// `v` with the field set to `x` (truncated to the field's width).
    pub fn put(&self, v: u32, x: u32) -> u32 {
        let width = u32::from(self.hi - self.lo) + 1;
        let mask = if width >= 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        (v & !(mask << self.lo)) | ((x & mask) << self.lo)
    }
}

const fn f(name: &'static str, lo: u8, hi: u8) -> Field {
    Field { name, lo, hi }
}

/// What a dispatch does with a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Read into the job ([`super::dispatch`]).
    Dispatch,
    /// Kept, and changes nothing a job computes: scheduling, CU masks, profiling, a checksum, or scratch sizes
    /// that matter only with RSRC2.SCRATCH_EN (which a dispatch refuses).
    Inert,
    /// A dispatch refuses a non-zero value: it would need state the job abstraction does not carry (wave
    /// save/restore, scratch, a relaunch).
    RefusedIfSet,
    /// Written by the CP itself when it dispatches; a packet writing it is refused.
    CpWritten,
}

/// One register of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Register {
    /// Dword offset from [`SH_BASE`].
    pub offset: u16,
    /// Name.
    pub name: &'static str,
    /// Fields, low bits first.
    pub fields: &'static [Field],
    /// What a dispatch does with it.
    pub role: Role,
}

const DATA: &[Field] = &[f("DATA", 0, 31)];
const DATA8: &[Field] = &[f("DATA", 0, 7)];

/// COMPUTE_DISPATCH_INITIATOR's fields (gfx10.json; bits 7..9 and 16..31 are not defined on gfx10).
pub const INITIATOR_FIELDS: &[Field] = &[
    f("COMPUTE_SHADER_EN", 0, 0),
    f("PARTIAL_TG_EN", 1, 1),
    f("FORCE_START_AT_000", 2, 2),
    f("ORDERED_APPEND_ENBL", 3, 3),
    f("ORDERED_APPEND_MODE", 4, 4),
    f("USE_THREAD_DIMENSIONS", 5, 5),
    f("ORDER_MODE", 6, 6),
    f("SCALAR_L1_INV_VOL", 10, 10),
    f("VECTOR_L1_INV_VOL", 11, 11),
    f("RESERVED", 12, 12),
    f("TUNNEL_ENABLE", 13, 13),
    f("RESTORE", 14, 14),
    f("CS_W32_EN", 15, 15),
];

/// COMPUTE_NUM_THREAD_X/Y/Z's fields.
pub const NUM_THREAD_FIELDS: &[Field] =
    &[f("NUM_THREAD_FULL", 0, 15), f("NUM_THREAD_PARTIAL", 16, 31)];

/// COMPUTE_PGM_RSRC1's fields.
pub const RSRC1_FIELDS: &[Field] = &[
    f("VGPRS", 0, 5),
    f("SGPRS", 6, 9),
    f("PRIORITY", 10, 11),
    f("FLOAT_MODE", 12, 19),
    f("PRIV", 20, 20),
    f("DX10_CLAMP", 21, 21),
    f("IEEE_MODE", 23, 23),
    f("BULKY", 24, 24),
    f("FP16_OVFL", 26, 26),
    f("WGP_MODE", 29, 29),
    f("MEM_ORDERED", 30, 30),
    f("FWD_PROGRESS", 31, 31),
];

/// COMPUTE_PGM_RSRC2's fields.
pub const RSRC2_FIELDS: &[Field] = &[
    f("SCRATCH_EN", 0, 0),
    f("USER_SGPR", 1, 5),
    f("TRAP_PRESENT", 6, 6),
    f("TGID_X_EN", 7, 7),
    f("TGID_Y_EN", 8, 8),
    f("TGID_Z_EN", 9, 9),
    f("TG_SIZE_EN", 10, 10),
    f("TIDIG_COMP_CNT", 11, 12),
    f("EXCP_EN_MSB", 13, 14),
    f("LDS_SIZE", 15, 23),
    f("EXCP_EN", 24, 30),
];

const RSRC3_FIELDS: &[Field] = &[f("SHARED_VGPR_CNT", 0, 3)];
const RESOURCE_LIMITS_FIELDS: &[Field] = &[
    f("WAVES_PER_SH", 0, 9),
    f("TG_PER_CU", 12, 15),
    f("LOCK_THRESHOLD", 16, 21),
    f("SIMD_DEST_CNTL", 22, 22),
    f("FORCE_SIMD_DIST", 23, 23),
    f("CU_GROUP_COUNT", 24, 26),
];
const TMPRING_FIELDS: &[Field] = &[f("WAVES", 0, 11), f("WAVESIZE", 12, 24)];
const CU_EN: &[Field] = &[f("CU_EN", 0, 31)];
const RESTART: &[Field] = &[f("RESTART", 0, 31)];
const RELAUNCH: &[Field] = &[
    f("PAYLOAD", 0, 29),
    f("IS_EVENT", 30, 30),
    f("IS_STATE", 31, 31),
];

/// Looks up a field of a register by name (`RSRC1_FIELDS`, ...), for the code that reads them.
pub fn field(fields: &'static [Field], name: &str) -> Field {
    fields
        .iter()
        .find(|x| x.name == name)
        .copied()
        .unwrap_or(f("?", 0, 0))
}

const fn reg(offset: u16, name: &'static str, fields: &'static [Field], role: Role) -> Register {
    Register {
        offset,
        name,
        fields,
        role,
    }
}

use Role::{CpWritten, Dispatch, Inert, RefusedIfSet};

/// Every COMPUTE_* register of gfx10.json below COMPUTE_USER_DATA (which [`register`] adds), by offset.
static COMPUTE: &[Register] = &[
    reg(
        0x200,
        "COMPUTE_DISPATCH_INITIATOR",
        INITIATOR_FIELDS,
        CpWritten,
    ),
    reg(0x201, "COMPUTE_DIM_X", &[f("SIZE", 0, 31)], CpWritten),
    reg(0x202, "COMPUTE_DIM_Y", &[f("SIZE", 0, 31)], CpWritten),
    reg(0x203, "COMPUTE_DIM_Z", &[f("SIZE", 0, 31)], CpWritten),
    reg(0x204, "COMPUTE_START_X", &[f("START", 0, 31)], Dispatch),
    reg(0x205, "COMPUTE_START_Y", &[f("START", 0, 31)], Dispatch),
    reg(0x206, "COMPUTE_START_Z", &[f("START", 0, 31)], Dispatch),
    reg(0x207, "COMPUTE_NUM_THREAD_X", NUM_THREAD_FIELDS, Dispatch),
    reg(0x208, "COMPUTE_NUM_THREAD_Y", NUM_THREAD_FIELDS, Dispatch),
    reg(0x209, "COMPUTE_NUM_THREAD_Z", NUM_THREAD_FIELDS, Dispatch),
    reg(
        0x20a,
        "COMPUTE_PIPELINESTAT_ENABLE",
        &[f("PIPELINESTAT_ENABLE", 0, 0)],
        Inert,
    ),
    reg(
        0x20b,
        "COMPUTE_PERFCOUNT_ENABLE",
        &[f("PERFCOUNT_ENABLE", 0, 0)],
        Inert,
    ),
    reg(0x20c, "COMPUTE_PGM_LO", DATA, Dispatch),
    reg(0x20d, "COMPUTE_PGM_HI", DATA8, Dispatch),
    reg(0x20e, "COMPUTE_DISPATCH_PKT_ADDR_LO", DATA, RefusedIfSet),
    reg(0x20f, "COMPUTE_DISPATCH_PKT_ADDR_HI", DATA8, RefusedIfSet),
    reg(0x210, "COMPUTE_DISPATCH_SCRATCH_BASE_LO", DATA, Inert),
    reg(0x211, "COMPUTE_DISPATCH_SCRATCH_BASE_HI", DATA8, Inert),
    reg(0x212, "COMPUTE_PGM_RSRC1", RSRC1_FIELDS, Dispatch),
    reg(0x213, "COMPUTE_PGM_RSRC2", RSRC2_FIELDS, Dispatch),
    reg(0x214, "COMPUTE_VMID", &[f("DATA", 0, 3)], RefusedIfSet),
    reg(
        0x215,
        "COMPUTE_RESOURCE_LIMITS",
        RESOURCE_LIMITS_FIELDS,
        Inert,
    ),
    reg(0x216, "COMPUTE_DESTINATION_EN_SE0", CU_EN, Inert),
    reg(0x217, "COMPUTE_DESTINATION_EN_SE1", CU_EN, Inert),
    reg(0x218, "COMPUTE_TMPRING_SIZE", TMPRING_FIELDS, Inert),
    reg(0x219, "COMPUTE_DESTINATION_EN_SE2", CU_EN, Inert),
    reg(0x21a, "COMPUTE_DESTINATION_EN_SE3", CU_EN, Inert),
    reg(0x21b, "COMPUTE_RESTART_X", RESTART, RefusedIfSet),
    reg(0x21c, "COMPUTE_RESTART_Y", RESTART, RefusedIfSet),
    reg(0x21d, "COMPUTE_RESTART_Z", RESTART, RefusedIfSet),
    reg(
        0x21e,
        "COMPUTE_THREAD_TRACE_ENABLE",
        &[f("THREAD_TRACE_ENABLE", 0, 0)],
        Inert,
    ),
    reg(
        0x21f,
        "COMPUTE_MISC_RESERVED",
        &[
            f("SEND_SEID", 0, 1),
            f("RESERVED2", 2, 2),
            f("RESERVED3", 3, 3),
            f("RESERVED4", 4, 4),
            f("WAVE_ID_BASE", 5, 16),
        ],
        RefusedIfSet,
    ),
    reg(
        0x220,
        "COMPUTE_DISPATCH_ID",
        &[f("DISPATCH_ID", 0, 31)],
        CpWritten,
    ),
    reg(
        0x221,
        "COMPUTE_THREADGROUP_ID",
        &[f("THREADGROUP_ID", 0, 31)],
        CpWritten,
    ),
    reg(
        0x222,
        "COMPUTE_REQ_CTRL",
        &[
            f("SOFT_GROUPING_EN", 0, 0),
            f("NUMBER_OF_REQUESTS_PER_CU", 1, 4),
            f("SOFT_GROUPING_ALLOCATION_TIMEOUT", 5, 8),
            f("HARD_LOCK_HYSTERESIS", 9, 9),
            f("HARD_LOCK_LOW_THRESHOLD", 10, 14),
            f("PRODUCER_REQUEST_LOCKOUT", 15, 15),
            f("GLOBAL_SCANNING_EN", 16, 16),
            f("ALLOCATION_RATE_THROTTLING_THRESHOLD", 17, 19),
            f("DEDICATED_PREALLOCATION_BUFFER_LIMIT", 20, 26),
        ],
        Inert,
    ),
    reg(
        0x224,
        "COMPUTE_USER_ACCUM_0",
        &[f("CONTRIBUTION", 0, 6)],
        Inert,
    ),
    reg(
        0x225,
        "COMPUTE_USER_ACCUM_1",
        &[f("CONTRIBUTION", 0, 6)],
        Inert,
    ),
    reg(
        0x226,
        "COMPUTE_USER_ACCUM_2",
        &[f("CONTRIBUTION", 0, 6)],
        Inert,
    ),
    reg(
        0x227,
        "COMPUTE_USER_ACCUM_3",
        &[f("CONTRIBUTION", 0, 6)],
        Inert,
    ),
    reg(0x228, "COMPUTE_PGM_RSRC3", RSRC3_FIELDS, Dispatch),
    reg(
        0x229,
        "COMPUTE_DDID_INDEX",
        &[f("INDEX", 0, 10)],
        RefusedIfSet,
    ),
    reg(
        0x22a,
        "COMPUTE_SHADER_CHKSUM",
        &[f("CHECKSUM", 0, 31)],
        Inert,
    ),
    reg(0x22b, "COMPUTE_RELAUNCH", RELAUNCH, RefusedIfSet),
    reg(
        0x22c,
        "COMPUTE_WAVE_RESTORE_ADDR_LO",
        &[f("ADDR", 0, 31)],
        RefusedIfSet,
    ),
    reg(
        0x22d,
        "COMPUTE_WAVE_RESTORE_ADDR_HI",
        &[f("ADDR", 0, 15)],
        RefusedIfSet,
    ),
    reg(0x22e, "COMPUTE_RELAUNCH2", RELAUNCH, RefusedIfSet),
    reg(
        0x27d,
        "COMPUTE_DISPATCH_TUNNEL",
        &[f("OFF_DELAY", 0, 9), f("IMMEDIATE", 10, 10)],
        Inert,
    ),
    reg(0x27e, "COMPUTE_DISPATCH_END", DATA, CpWritten),
    reg(0x27f, "COMPUTE_NOWHERE", DATA, Inert),
];

const USER_DATA_NAMES: [&str; 16] = [
    "COMPUTE_USER_DATA_0",
    "COMPUTE_USER_DATA_1",
    "COMPUTE_USER_DATA_2",
    "COMPUTE_USER_DATA_3",
    "COMPUTE_USER_DATA_4",
    "COMPUTE_USER_DATA_5",
    "COMPUTE_USER_DATA_6",
    "COMPUTE_USER_DATA_7",
    "COMPUTE_USER_DATA_8",
    "COMPUTE_USER_DATA_9",
    "COMPUTE_USER_DATA_10",
    "COMPUTE_USER_DATA_11",
    "COMPUTE_USER_DATA_12",
    "COMPUTE_USER_DATA_13",
    "COMPUTE_USER_DATA_14",
    "COMPUTE_USER_DATA_15",
];

/// The compute register at SH offset `offset`, if gfx10 has one there.
pub fn register(offset: u16) -> Option<Register> {
    if (USER_DATA_0..USER_DATA_0 + USER_DATA_COUNT).contains(&offset) {
        let name = USER_DATA_NAMES
            .get(usize::from(offset - USER_DATA_0))
            .copied()?;
        return Some(reg(offset, name, DATA, Dispatch));
    }
    COMPUTE.iter().find(|r| r.offset == offset).copied()
}

/// The compute register named `name`.
pub fn by_name(name: &str) -> Option<Register> {
    if let Some(i) = USER_DATA_NAMES.iter().position(|n| *n == name) {
        return register(USER_DATA_0 + i as u16);
    }
    COMPUTE.iter().find(|r| r.name == name).copied()
}

/// `NAME` or `SH+0x123` when gfx10 has no compute register there.
pub fn name(offset: u16) -> String {
    register(offset).map_or_else(|| format!("SH+{offset:#05x}"), |r| r.name.to_string())
}

/// The fields of `value` as `NAME=value` pairs, non-zero fields only (`0` when all are zero); a value of a
/// register without a field list, or bits outside every field, are shown raw.
pub fn describe(offset: u16, value: u32) -> String {
    let Some(r) = register(offset) else {
        return format!("{value:#010x}");
    };
    let mut parts = Vec::new();
    let mut covered = 0u32;
    for fl in r.fields {
        covered = fl.put(covered, u32::MAX);
        let v = fl.get(value);
        if v != 0 {
            parts.push(if fl.lo == fl.hi {
                format!("{}={v}", fl.name)
            } else {
                format!("{}={v:#x}", fl.name)
            });
        }
    }
    let stray = value & !covered;
    if stray != 0 {
        parts.push(format!("undefined bits {stray:#010x}"));
    }
    if parts.is_empty() {
        "0".into()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_match_the_byte_addresses_of_gfx10_json() {
        // gfx10.json's register_mappings: COMPUTE_PGM_LO at 47152 (0xb830), COMPUTE_USER_DATA_0 at 47360
        // (0xb900), COMPUTE_PGM_RSRC3 at 47264 (0xb8a0).
        for (name, byte) in [
            ("COMPUTE_DISPATCH_INITIATOR", 0xb800),
            ("COMPUTE_START_X", 0xb810),
            ("COMPUTE_NUM_THREAD_X", 0xb81c),
            ("COMPUTE_PGM_LO", 0xb830),
            ("COMPUTE_PGM_RSRC1", 0xb848),
            ("COMPUTE_PGM_RSRC2", 0xb84c),
            ("COMPUTE_RESOURCE_LIMITS", 0xb854),
            ("COMPUTE_TMPRING_SIZE", 0xb860),
            ("COMPUTE_PGM_RSRC3", 0xb8a0),
            ("COMPUTE_USER_DATA_0", 0xb900),
            ("COMPUTE_USER_DATA_15", 0xb93c),
        ] {
            let r = by_name(name).unwrap();
            assert_eq!(SH_BASE + 4 * u32::from(r.offset), byte, "{name}");
        }
    }

    #[test]
    fn fields_describe_values() {
        // FLOAT_MODE 0xc0, DX10_CLAMP, VGPRS 7.
        assert_eq!(
            describe(PGM_RSRC1, 0x002c_0007),
            "VGPRS=0x7 FLOAT_MODE=0xc0 DX10_CLAMP=1"
        );
        assert_eq!(
            describe(DISPATCH_INITIATOR, 0x8041),
            "COMPUTE_SHADER_EN=1 ORDER_MODE=1 CS_W32_EN=1"
        );
        assert_eq!(
            describe(DISPATCH_INITIATOR, 0x0001_0080),
            "undefined bits 0x00010080"
        );
        assert_eq!(name(0x1ff), "SH+0x1ff");
        let lds = field(RSRC2_FIELDS, "LDS_SIZE");
        assert_eq!(lds.get(lds.put(0, 32)), 32);
        assert_eq!(lds.put(0, 1), 1 << 15);
    }
}
