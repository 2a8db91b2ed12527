//! HSA code objects: the ELF file ROCr loads, with one kernel, written by the project itself so that an
//! RDNA owner needs only the ROCr runtime (no compiler, no linker) to run `oracle collect`.
//!
//! The layout follows what `clang-19` and `ld.lld-19` make of the same kernel written as `.amdhsa_kernel`
//! assembly (`oracle-runner/tests/codeobj.rs` compares them field by field): an ELF64 little-endian ET_DYN
//! for `EM_AMDGPU` (224) with `EI_OSABI` `ELFOSABI_AMDGPU_HSA` (64) and `EI_ABIVERSION` 2 (code object v4)
//! or 3 (v5); `e_flags` hold the GPU's `EF_AMDGPU_MACH` value and the xnack and sramecc fields of v4+;
//! three loadable segments (read-only: the metadata note, the dynamic symbols, their hash table and
//! strings, the 64-byte kernel descriptor `NAME.kd`; read-execute: the code, 256-aligned; read-write: the
//! dynamic section), with `PT_PHDR`, `PT_DYNAMIC` and `PT_NOTE` beside them. The metadata is the
//! `NT_AMDGPU_METADATA` note (owner "AMDGPU", type 32), a MessagePack map written with `rmp-serde`.
//!
//! Facts, from LLVM (llvm/llvm-project, commit 04ae39ab5b36544e844804edfd4fa34aec7998ef):
//! - `llvm/include/llvm/Support/AMDHSAKernelDescriptor.h`: the descriptor's fields and offsets, the
//!   COMPUTE_PGM_RSRC1/2/3 fields and `kernel_code_properties` bits;
//! - `llvm/include/llvm/BinaryFormat/ELF.h`: `EF_AMDGPU_MACH_AMDGCN_GFX1010` 0x033 .. `GFX1036` 0x045
//!   (gfx1013 0x042), `EF_AMDGPU_FEATURE_XNACK_ANY_V4` 0x100, `ELFOSABI_AMDGPU_HSA` 64,
//!   `ELFABIVERSION_AMDGPU_HSA_V4` 2 / `V5` 3, `NT_AMDGPU_METADATA` 32;
//! - `llvm/docs/AMDGPUUsage.rst`: the metadata keys, VGPR granules (gfx10: 8 registers in wave32, 4 in
//!   wave64) and that gfx10's GRANULATED_WAVEFRONT_SGPR_COUNT is reserved (0).
//!
//! Written by hand, not with a crate: `goblin` reads ELF but does not write it, and the object crate's
//! writer targets relocatable files and general executables; here every byte of a small, fixed layout
//! matters to a loader we cannot test against (no AMD GPU on the project's machines), so the layout is
//! spelled out once, in one place.

use measurements::FloatMode;
use serde::Serialize;

/// `EM_AMDGPU`.
pub const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `NT_AMDGPU_METADATA`.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// `EF_AMDGPU_FEATURE_XNACK_ANY_V4`: the code runs whether XNACK is on or off.
pub const XNACK_ANY_V4: u32 = 0x100;

/// The code object version: what ROCr accepts depends on its age (v5 since ROCm 5.x; v4 before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Code object v4 (`EI_ABIVERSION` 2, metadata version 1.1).
    V4,
    /// Code object v5 (`EI_ABIVERSION` 3, metadata version 1.2).
    V5,
}

impl Version {
    /// The version's number (4 or 5).
    pub fn number(self) -> u32 {
        match self {
            Version::V4 => 4,
            Version::V5 => 5,
        }
    }

    /// `EI_ABIVERSION`.
    pub fn abi_version(self) -> u8 {
        match self {
            Version::V4 => 2,
            Version::V5 => 3,
        }
    }

    /// `amdhsa.version`.
    pub fn metadata_version(self) -> [u32; 2] {
        match self {
            Version::V4 => [1, 1],
            Version::V5 => [1, 2],
        }
    }
}

/// A gfx10 GPU a code object is built for: ROCr loads only code whose `EF_AMDGPU_MACH` is the agent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// The name (`gfx1013`).
    pub name: &'static str,
    /// `EF_AMDGPU_MACH_AMDGCN_*`.
    pub mach: u32,
    /// Whether the chip has XNACK (gfx101x do, gfx103x do not): its field is then "any".
    pub xnack: bool,
}

/// The gfx10 GPUs, with their `EF_AMDGPU_MACH` values (LLVM `ELF.h`). gfx1013 is the PS5's chip (and the
/// BC-250's).
pub const GPUS: [Gpu; 11] = [
    Gpu {
        name: "gfx1010",
        mach: 0x033,
        xnack: true,
    },
    Gpu {
        name: "gfx1011",
        mach: 0x034,
        xnack: true,
    },
    Gpu {
        name: "gfx1012",
        mach: 0x035,
        xnack: true,
    },
    Gpu {
        name: "gfx1013",
        mach: 0x042,
        xnack: true,
    },
    Gpu {
        name: "gfx1030",
        mach: 0x036,
        xnack: false,
    },
    Gpu {
        name: "gfx1031",
        mach: 0x037,
        xnack: false,
    },
    Gpu {
        name: "gfx1032",
        mach: 0x038,
        xnack: false,
    },
    Gpu {
        name: "gfx1033",
        mach: 0x039,
        xnack: false,
    },
    Gpu {
        name: "gfx1034",
        mach: 0x03e,
        xnack: false,
    },
    Gpu {
        name: "gfx1035",
        mach: 0x03d,
        xnack: false,
    },
    Gpu {
        name: "gfx1036",
        mach: 0x045,
        xnack: false,
    },
];

/// The GPU named `name` (`gfx1013`, ...), or an error listing the known ones.
pub fn gpu(name: &str) -> Result<Gpu, String> {
    GPUS.iter()
        .copied()
        .find(|g| g.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = GPUS.iter().map(|g| g.name).collect();
            format!(
                "`{name}` is no gfx10 GPU this writer knows (known: {})",
                names.join(", ")
            )
        })
}

impl Gpu {
    /// `e_flags`: the mach, and XNACK "any" where the chip has it (sramecc: unsupported on gfx10).
    pub fn e_flags(self) -> u32 {
        self.mach | if self.xnack { XNACK_ANY_V4 } else { 0 }
    }

    /// The target ID of the metadata (`amdgcn-amd-amdhsa--gfx1013`; "any" features are not named).
    pub fn target_id(self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.name)
    }
}

/// One global-buffer kernel argument (a 64-bit address in the kernarg segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferArg {
    /// Byte offset in the kernarg segment.
    pub offset: u32,
}

/// One by-value kernel argument (plain bytes in the kernarg segment, such as a V#'s four dwords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueArg {
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// What a kernel needs from the code object: its code and the launch state the descriptor sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    /// The kernel symbol's name (the descriptor is `NAME.kd`).
    pub name: String,
    /// The machine code.
    pub code: Vec<u32>,
    /// Wave size, 32 or 64.
    pub wave: u32,
    /// VGPRs the code uses (1 to 256 in wave32, 1 to 256 in wave64 on gfx10).
    pub vgprs: u32,
    /// SGPRs the code uses (for the metadata; gfx10 allocates SGPRs itself).
    pub sgprs: u32,
    /// The float mode under test: COMPUTE_PGM_RSRC1's FLOAT_MODE fields, IEEE_MODE, DX10_CLAMP and
    /// FP16_OVFL come from it, never from a compiler's defaults.
    pub mode: FloatMode,
    /// The kernarg segment pointer in `s[0:1]` (the only user SGPRs this writer enables).
    pub kernarg_ptr: bool,
    /// Workgroup-id SGPRs after the user SGPRs (x, y, z).
    pub workgroup_id: [bool; 3],
    /// Work-item ID VGPRs: 0 (v0 = x), 1 (x, y) or 2 (x, y, z).
    pub workitem_ids: u32,
    /// Static LDS bytes per workgroup (`group_segment_fixed_size`).
    pub lds_bytes: u32,
    /// Kernarg segment bytes.
    pub kernarg_size: u32,
    /// The global-buffer arguments.
    pub args: Vec<BufferArg>,
    /// The by-value arguments (the metadata lists every argument in offset order).
    pub values: Vec<ValueArg>,
    /// The largest workgroup the kernel is launched with.
    pub max_workgroup_size: u32,
}

/// The 64-byte kernel descriptor (`kernel_descriptor_t`), field by field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// `group_segment_fixed_size` (offset 0).
    pub group_segment_fixed_size: u32,
    /// `private_segment_fixed_size` (4).
    pub private_segment_fixed_size: u32,
    /// `kernarg_size` (8).
    pub kernarg_size: u32,
    /// `kernel_code_entry_byte_offset` (16): from the descriptor's address to the code's.
    pub entry_offset: i64,
    /// `compute_pgm_rsrc3` (44).
    pub rsrc3: u32,
    /// `compute_pgm_rsrc1` (48).
    pub rsrc1: u32,
    /// `compute_pgm_rsrc2` (52).
    pub rsrc2: u32,
    /// `kernel_code_properties` (56).
    pub code_properties: u16,
    /// `kernarg_preload` (58; v5, 0 here).
    pub kernarg_preload: u16,
}

/// COMPUTE_PGM_RSRC1 bits.
pub mod rsrc1 {
    /// FLOAT_ROUND_MODE_32 at 12, FLOAT_ROUND_MODE_16_64 at 14, FLOAT_DENORM_MODE_32 at 16,
    /// FLOAT_DENORM_MODE_16_64 at 18: the MODE register's FLOAT_MODE byte, shifted.
    pub const FLOAT_MODE_SHIFT: u32 = 12;
    /// ENABLE_DX10_CLAMP.
    pub const DX10_CLAMP: u32 = 1 << 21;
    /// ENABLE_IEEE_MODE.
    pub const IEEE_MODE: u32 = 1 << 23;
    /// FP16_OVFL.
    pub const FP16_OVFL: u32 = 1 << 26;
    /// WGP_MODE (gfx10+): workgroups are allocated to a whole WGP (LLVM's default).
    pub const WGP_MODE: u32 = 1 << 29;
    /// MEM_ORDERED (gfx10+): memory operations complete in order (LLVM's default).
    pub const MEM_ORDERED: u32 = 1 << 30;
}

/// COMPUTE_PGM_RSRC2 bits.
pub mod rsrc2 {
    /// USER_SGPR_COUNT, bits 5:1.
    pub const USER_SGPR_SHIFT: u32 = 1;
    /// ENABLE_SGPR_WORKGROUP_ID_X (Y, Z follow).
    pub const WORKGROUP_ID_X: u32 = 1 << 7;
    /// ENABLE_VGPR_WORKITEM_ID, bits 12:11.
    pub const WORKITEM_ID_SHIFT: u32 = 11;
}

/// `kernel_code_properties` bits.
pub mod properties {
    /// ENABLE_SGPR_KERNARG_SEGMENT_PTR.
    pub const KERNARG_SEGMENT_PTR: u16 = 1 << 3;
    /// ENABLE_WAVEFRONT_SIZE32 (gfx10+).
    pub const WAVEFRONT_SIZE32: u16 = 1 << 10;
}

impl Descriptor {
    /// The descriptor for `k` (the entry offset is the writer's to fill in).
    pub fn for_kernel(k: &KernelSpec) -> Result<Descriptor, String> {
        if k.wave != 32 && k.wave != 64 {
            return Err(format!(
                "kernel `{}`: wave size {} (32 or 64)",
                k.name, k.wave
            ));
        }
        if !(1..=256).contains(&k.vgprs) {
            return Err(format!("kernel `{}`: {} VGPRs (1 to 256)", k.name, k.vgprs));
        }
        if k.workitem_ids > 2 {
            return Err(format!(
                "kernel `{}`: work-item IDs {} (0: x, 1: x and y, 2: x, y and z)",
                k.name, k.workitem_ids
            ));
        }
        // gfx10 allocates VGPRs in granules of 8 (wave32) or 4 (wave64); the field is granules - 1.
        let granule = if k.wave == 32 { 8 } else { 4 };
        let vgpr_blocks = k.vgprs.div_ceil(granule) - 1;
        let m = k.mode;
        let mut r1 = vgpr_blocks | u32::from(m.float_mode) << rsrc1::FLOAT_MODE_SHIFT;
        r1 |= rsrc1::WGP_MODE | rsrc1::MEM_ORDERED;
        if m.dx10_clamp {
            r1 |= rsrc1::DX10_CLAMP;
        }
        if m.ieee {
            r1 |= rsrc1::IEEE_MODE;
        }
        if m.fp16_ovfl {
            r1 |= rsrc1::FP16_OVFL;
        }
        let user_sgprs = if k.kernarg_ptr { 2 } else { 0 };
        let mut r2 =
            user_sgprs << rsrc2::USER_SGPR_SHIFT | k.workitem_ids << rsrc2::WORKITEM_ID_SHIFT;
        for (i, on) in k.workgroup_id.iter().enumerate() {
            if *on {
                r2 |= rsrc2::WORKGROUP_ID_X << i;
            }
        }
        let mut props = 0;
        if k.kernarg_ptr {
            props |= properties::KERNARG_SEGMENT_PTR;
        }
        if k.wave == 32 {
            props |= properties::WAVEFRONT_SIZE32;
        }
        Ok(Descriptor {
            group_segment_fixed_size: k.lds_bytes,
            private_segment_fixed_size: 0,
            kernarg_size: k.kernarg_size,
            entry_offset: 0,
            rsrc3: 0,
            rsrc1: r1,
            rsrc2: r2,
            code_properties: props,
            kernarg_preload: 0,
        })
    }

    /// The 64 bytes, reserved fields zero.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.entry_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// Reads a descriptor; `None` unless `b` is 64 bytes with its reserved bytes zero.
    pub fn from_bytes(b: &[u8]) -> Option<Descriptor> {
        if b.len() != 64
            || b[12..16]
                .iter()
                .chain(&b[24..44])
                .chain(&b[60..64])
                .any(|&x| x != 0)
        {
            return None;
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[16..24]);
        Some(Descriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            entry_offset: i64::from_le_bytes(e),
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
        })
    }
}

/// The metadata note's content (`amdhsa.*`), as MessagePack names it.
#[derive(Serialize)]
struct Metadata {
    #[serde(rename = "amdhsa.version")]
    version: [u32; 2],
    #[serde(rename = "amdhsa.target")]
    target: String,
    #[serde(rename = "amdhsa.kernels")]
    kernels: Vec<KernelMeta>,
}

#[derive(Serialize)]
struct KernelMeta {
    #[serde(rename = ".name")]
    name: String,
    #[serde(rename = ".symbol")]
    symbol: String,
    #[serde(rename = ".kernarg_segment_size")]
    kernarg_segment_size: u32,
    #[serde(rename = ".group_segment_fixed_size")]
    group_segment_fixed_size: u32,
    #[serde(rename = ".private_segment_fixed_size")]
    private_segment_fixed_size: u32,
    #[serde(rename = ".kernarg_segment_align")]
    kernarg_segment_align: u32,
    #[serde(rename = ".wavefront_size")]
    wavefront_size: u32,
    #[serde(rename = ".sgpr_count")]
    sgpr_count: u32,
    #[serde(rename = ".vgpr_count")]
    vgpr_count: u32,
    #[serde(rename = ".max_flat_workgroup_size")]
    max_flat_workgroup_size: u32,
    #[serde(rename = ".sgpr_spill_count")]
    sgpr_spill_count: u32,
    #[serde(rename = ".vgpr_spill_count")]
    vgpr_spill_count: u32,
    #[serde(
        rename = ".uses_dynamic_stack",
        skip_serializing_if = "Option::is_none"
    )]
    uses_dynamic_stack: Option<bool>,
    #[serde(rename = ".args")]
    args: Vec<ArgMeta>,
}

#[derive(Serialize)]
struct ArgMeta {
    #[serde(rename = ".size")]
    size: u32,
    #[serde(rename = ".offset")]
    offset: u32,
    #[serde(rename = ".value_kind")]
    value_kind: &'static str,
    /// Pointers only (LLVM writes no address space for a by-value argument).
    #[serde(rename = ".address_space", skip_serializing_if = "Option::is_none")]
    address_space: Option<&'static str>,
}

/// The metadata note's MessagePack bytes for `k`.
pub fn metadata(k: &KernelSpec, gpu: Gpu, version: Version) -> Vec<u8> {
    let m = Metadata {
        version: version.metadata_version(),
        target: gpu.target_id(),
        kernels: vec![KernelMeta {
            name: k.name.clone(),
            symbol: format!("{}.kd", k.name),
            kernarg_segment_size: k.kernarg_size,
            group_segment_fixed_size: k.lds_bytes,
            private_segment_fixed_size: 0,
            kernarg_segment_align: 8,
            wavefront_size: k.wave,
            sgpr_count: k.sgprs,
            vgpr_count: k.vgprs,
            max_flat_workgroup_size: k.max_workgroup_size,
            sgpr_spill_count: 0,
            vgpr_spill_count: 0,
            uses_dynamic_stack: (version == Version::V5).then_some(false),
            args: {
                let mut args: Vec<ArgMeta> = k
                    .args
                    .iter()
                    .map(|a| ArgMeta {
                        size: 8,
                        offset: a.offset,
                        value_kind: "global_buffer",
                        address_space: Some("global"),
                    })
                    .chain(k.values.iter().map(|v| ArgMeta {
                        size: v.size,
                        offset: v.offset,
                        value_kind: "by_value",
                        address_space: None,
                    }))
                    .collect();
                args.sort_by_key(|a| a.offset);
                args
            },
        }],
    };
    rmp_serde::to_vec_named(&m).expect("the metadata serialises")
}

/// Page size the loadable segments' addresses are congruent with their file offsets modulo.
const PAGE: u64 = 0x1000;
const EHDR: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;

// Section indices of the written file.
const SEC_DYNSYM: u16 = 2;
const SEC_DYNSTR: u16 = 4;
const SEC_RODATA: u16 = 5;
const SEC_TEXT: u16 = 6;
const SEC_STRTAB: u16 = 9;
const SEC_SHSTRTAB: u16 = 10;
const SECTIONS: u16 = 11;

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

/// A string table under construction.
struct Strings(Vec<u8>);

impl Strings {
    fn new() -> Strings {
        Strings(vec![0])
    }
    fn add(&mut self, s: &str) -> u32 {
        let at = self.0.len() as u32;
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        at
    }
}

/// One ELF64 symbol.
fn symbol(b: &mut Vec<u8>, name: u32, info: u8, other: u8, shndx: u16, value: u64, size: u64) {
    put32(b, name);
    b.push(info);
    b.push(other);
    put16(b, shndx);
    put64(b, value);
    put64(b, size);
}

const STB_GLOBAL_FUNC: u8 = 0x12;
const STB_GLOBAL_OBJECT: u8 = 0x11;
const STV_PROTECTED: u8 = 3;

/// The code object for `k` on `gpu`: the whole file.
pub fn write(k: &KernelSpec, gpu: Gpu, version: Version) -> Result<Vec<u8>, String> {
    if k.name.is_empty() || k.name.bytes().any(|c| c == 0 || c.is_ascii_whitespace()) {
        return Err(format!(
            "kernel name `{}`: a symbol name is non-empty, without NUL or spaces",
            k.name
        ));
    }
    if k.code.is_empty() {
        return Err(format!("kernel `{}` has no code", k.name));
    }
    let mut desc = Descriptor::for_kernel(k)?;
    let kd_name = format!("{}.kd", k.name);

    // The read-only segment: headers, note, dynamic symbols, hash, dynamic strings, descriptor.
    let phnum: u64 = 6;
    let note_off = align(EHDR + phnum * PHDR_SIZE, 4);
    let meta = metadata(k, gpu, version);
    let mut note = Vec::new();
    put32(&mut note, 7); // "AMDGPU\0"
    put32(&mut note, meta.len() as u32);
    put32(&mut note, NT_AMDGPU_METADATA);
    note.extend_from_slice(b"AMDGPU\0\0");
    note.extend_from_slice(&meta);
    while note.len() % 4 != 0 {
        note.push(0);
    }
    let dynsym_off = align(note_off + note.len() as u64, 8);
    let mut dynstr = Strings::new();
    let n_func = dynstr.add(&k.name);
    let n_kd = dynstr.add(&kd_name);
    let dynsym_size = 3 * SYM_SIZE;
    let hash_off = align(dynsym_off + dynsym_size, 4);
    // SysV hash: one bucket holding both symbols (bucket 0 -> symbol 2 -> symbol 1 -> end), so no hash
    // value is needed: nbucket 1, nchain 3, bucket[0] 2, chain 0, 0, 1.
    let hash: Vec<u8> = [1u32, 3, 2, 0, 0, 1]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let dynstr_off = hash_off + hash.len() as u64;
    let kd_off = align(dynstr_off + dynstr.0.len() as u64, 64);
    let ro_end = kd_off + 64;

    // The code, in its own segment one page up, 256-aligned.
    let text_off = align(ro_end, 256);
    let text_addr = text_off + PAGE;
    let code: Vec<u8> = k.code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text_end = text_off + code.len() as u64;
    // The dynamic section, one more page up.
    let dyn_off = align(text_end, 8);
    let dyn_addr = dyn_off + 2 * PAGE;
    let dynamic_entries: [(u64, u64); 6] = [
        (4, hash_off),               // DT_HASH
        (6, dynsym_off),             // DT_SYMTAB
        (11, SYM_SIZE),              // DT_SYMENT
        (5, dynstr_off),             // DT_STRTAB
        (10, dynstr.0.len() as u64), // DT_STRSZ
        (0, 0),                      // DT_NULL
    ];
    let dyn_size = dynamic_entries.len() as u64 * 16;
    let dyn_end = dyn_off + dyn_size;

    desc.entry_offset = text_addr as i64 - kd_off as i64;

    // Non-loaded: the static symbol table (as lld writes one), its strings, the section names.
    let symtab_off = align(dyn_end, 8);
    let mut strtab = Strings::new();
    let s_func = strtab.add(&k.name);
    let s_kd = strtab.add(&kd_name);
    let symtab_size = 3 * SYM_SIZE;
    let strtab_off = symtab_off + symtab_size;
    let mut shstr = Strings::new();
    let names = [
        0,
        shstr.add(".note"),
        shstr.add(".dynsym"),
        shstr.add(".hash"),
        shstr.add(".dynstr"),
        shstr.add(".rodata"),
        shstr.add(".text"),
        shstr.add(".dynamic"),
        shstr.add(".symtab"),
        shstr.add(".strtab"),
        shstr.add(".shstrtab"),
    ];
    let shstr_off = strtab_off + strtab.0.len() as u64;
    let shoff = align(shstr_off + shstr.0.len() as u64, 8);

    let mut f = Vec::with_capacity((shoff + u64::from(SECTIONS) * SHDR_SIZE) as usize);
    // ELF header.
    f.extend_from_slice(&[
        0x7f,
        b'E',
        b'L',
        b'F',
        2,
        1,
        1,
        ELFOSABI_AMDGPU_HSA,
        version.abi_version(),
    ]);
    f.resize(16, 0);
    put16(&mut f, 3); // ET_DYN
    put16(&mut f, EM_AMDGPU);
    put32(&mut f, 1);
    put64(&mut f, 0); // e_entry
    put64(&mut f, EHDR); // e_phoff
    put64(&mut f, shoff);
    put32(&mut f, gpu.e_flags());
    put16(&mut f, EHDR as u16);
    put16(&mut f, PHDR_SIZE as u16);
    put16(&mut f, phnum as u16);
    put16(&mut f, SHDR_SIZE as u16);
    put16(&mut f, SECTIONS);
    put16(&mut f, SEC_SHSTRTAB);
    // Program headers: type, flags, offset, vaddr, paddr, filesz, memsz, align.
    let ph = |f: &mut Vec<u8>, t: u32, fl: u32, off: u64, addr: u64, size: u64, al: u64| {
        put32(f, t);
        put32(f, fl);
        put64(f, off);
        put64(f, addr);
        put64(f, addr);
        put64(f, size);
        put64(f, size);
        put64(f, al);
    };
    const R: u32 = 4;
    const W: u32 = 2;
    const X: u32 = 1;
    ph(&mut f, 6, R, EHDR, EHDR, phnum * PHDR_SIZE, 8); // PT_PHDR
    ph(&mut f, 1, R, 0, 0, ro_end, PAGE); // PT_LOAD
    ph(
        &mut f,
        1,
        R | X,
        text_off,
        text_addr,
        code.len() as u64,
        PAGE,
    );
    ph(&mut f, 1, R | W, dyn_off, dyn_addr, dyn_size, PAGE);
    ph(&mut f, 2, R | W, dyn_off, dyn_addr, dyn_size, 8); // PT_DYNAMIC
    ph(&mut f, 4, R, note_off, note_off, note.len() as u64, 4); // PT_NOTE
    f.resize(note_off as usize, 0);
    f.extend_from_slice(&note);
    f.resize(dynsym_off as usize, 0);
    f.resize(f.len() + SYM_SIZE as usize, 0);
    symbol(
        &mut f,
        n_func,
        STB_GLOBAL_FUNC,
        STV_PROTECTED,
        SEC_TEXT,
        text_addr,
        code.len() as u64,
    );
    symbol(&mut f, n_kd, STB_GLOBAL_OBJECT, 0, SEC_RODATA, kd_off, 64);
    f.resize(hash_off as usize, 0);
    f.extend_from_slice(&hash);
    f.extend_from_slice(&dynstr.0);
    f.resize(kd_off as usize, 0);
    f.extend_from_slice(&desc.to_bytes());
    f.resize(text_off as usize, 0);
    f.extend_from_slice(&code);
    f.resize(dyn_off as usize, 0);
    for (tag, val) in dynamic_entries {
        // Addresses of the read-only segment equal their offsets.
        put64(&mut f, tag);
        put64(&mut f, val);
    }
    f.resize(symtab_off as usize, 0);
    f.resize(f.len() + SYM_SIZE as usize, 0);
    symbol(
        &mut f,
        s_func,
        STB_GLOBAL_FUNC,
        STV_PROTECTED,
        SEC_TEXT,
        text_addr,
        code.len() as u64,
    );
    symbol(&mut f, s_kd, STB_GLOBAL_OBJECT, 0, SEC_RODATA, kd_off, 64);
    f.extend_from_slice(&strtab.0);
    f.extend_from_slice(&shstr.0);
    f.resize(shoff as usize, 0);
    // Section headers: name, type, flags, addr, offset, size, link, info, addralign, entsize.
    let sh = |f: &mut Vec<u8>,
              name: u32,
              t: u32,
              fl: u64,
              addr: u64,
              off: u64,
              size: u64,
              link: u32,
              info: u32,
              al: u64,
              es: u64| {
        put32(f, name);
        put32(f, t);
        put64(f, fl);
        put64(f, addr);
        put64(f, off);
        put64(f, size);
        put32(f, link);
        put32(f, info);
        put64(f, al);
        put64(f, es);
    };
    const A: u64 = 2;
    const WR: u64 = 1;
    const EX: u64 = 4;
    sh(&mut f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    sh(
        &mut f,
        names[1],
        7,
        A,
        note_off,
        note_off,
        note.len() as u64,
        0,
        0,
        4,
        0,
    );
    sh(
        &mut f,
        names[2],
        11,
        A,
        dynsym_off,
        dynsym_off,
        dynsym_size,
        u32::from(SEC_DYNSTR),
        1,
        8,
        SYM_SIZE,
    );
    sh(
        &mut f,
        names[3],
        5,
        A,
        hash_off,
        hash_off,
        hash.len() as u64,
        u32::from(SEC_DYNSYM),
        0,
        4,
        4,
    );
    sh(
        &mut f,
        names[4],
        3,
        A,
        dynstr_off,
        dynstr_off,
        dynstr.0.len() as u64,
        0,
        0,
        1,
        0,
    );
    sh(&mut f, names[5], 1, A, kd_off, kd_off, 64, 0, 0, 64, 0);
    sh(
        &mut f,
        names[6],
        1,
        A | EX,
        text_addr,
        text_off,
        code.len() as u64,
        0,
        0,
        256,
        0,
    );
    sh(
        &mut f,
        names[7],
        6,
        A | WR,
        dyn_addr,
        dyn_off,
        dyn_size,
        u32::from(SEC_DYNSTR),
        0,
        8,
        16,
    );
    sh(
        &mut f,
        names[8],
        2,
        0,
        0,
        symtab_off,
        symtab_size,
        u32::from(SEC_STRTAB),
        1,
        8,
        SYM_SIZE,
    );
    sh(
        &mut f,
        names[9],
        3,
        0,
        0,
        strtab_off,
        strtab.0.len() as u64,
        0,
        0,
        1,
        0,
    );
    sh(
        &mut f,
        names[10],
        3,
        0,
        0,
        shstr_off,
        shstr.0.len() as u64,
        0,
        0,
        1,
        0,
    );
    Ok(f)
}
