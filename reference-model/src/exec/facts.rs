//! Typed facts of every memory operation, decided once, so the interpreter dispatches on them and never on
//! mnemonic text while it runs.
//!
//! LLVM names the gfx10 memory operations systematically (`buffer_atomic_cmpswap_x2`,
//! `ds_max_rtn_u64`, `tbuffer_store_format_d16_xy`, `s_buffer_load_dwordx8`): the prefix is the class, then the
//! kind, the width suffix (`_x2`, `dwordx4`, `64`), the returning form (`_rtn_`) and the format components.
//! [`MemFacts::of`] reads each operation's name once, the first time any program is decoded, into a table
//! indexed by [`Op`]; the `exec` module only reads the typed fields. `tests` below pin the facts of every
//! class against the names, and the exec tests (`exec_coverage`, `exec_behaviour`, `exec_buffer_formats`) run
//! every memory opcode through the paths these facts choose.

use crate::isa::{Op, ALL_OPS};
use std::sync::LazyLock;

/// The family of a memory operation, as the interpreter routes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemClass {
    /// Not a memory operation (or one of the SMEM-encoded cache and probe operations, `s_memtime`, ...).
    None,
    /// Scalar memory through an address pair (`s_load_*`, `s_store_*`, `s_atomic_*`).
    Smem,
    /// Scalar memory through a V# (`s_buffer_*`).
    SmemBuffer,
    /// Scalar scratch (`s_scratch_*`).
    SmemScratch,
    /// LDS (`ds_*`).
    Ds,
    /// Untyped buffer (`buffer_*`).
    Buffer,
    /// Typed buffer: the format is in the instruction (`tbuffer_*`).
    Tbuffer,
    /// Global (`global_*`).
    Global,
    /// Flat (`flat_*`): the address picks global memory or the LDS aperture.
    Flat,
    /// Scratch (`scratch_*`).
    Scratch,
}

/// What a memory operation does with its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// Reads memory into registers.
    Load,
    /// Writes registers to memory.
    Store,
    /// Reads, modifies and writes memory in one operation.
    Atomic,
    /// Anything else of the class (cache control, cross-lane DS operations, append/consume, ...).
    Other,
}

/// Facts of one operation that the memory paths decide on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemFacts {
    /// The family.
    pub class: MemClass,
    /// Load, store, atomic or other.
    pub kind: MemKind,
    /// Dwords an SMEM operation moves (`x2` .. `x16`; 1 otherwise).
    pub dwords: u8,
    /// 64-bit elements: the `_x2` atomics, DS operations on `b64`/`u64`/`i64`/`f64`.
    pub wide: bool,
    /// A compare-and-swap (compare data after the source data).
    pub cmpswap: bool,
    /// The name has `_rtn_`: a DS operation that always returns the old value.
    pub rtn: bool,
    /// A buffer, global or flat atomic: the old value comes back when GLC is set.
    pub returns_on_glc: bool,
    /// A format load or store (`buffer_*_format_*`, `tbuffer_*`).
    pub format: bool,
    /// Components of a format access (`x` 1 .. `xyzw` 4); 4 elsewhere.
    pub components: u8,
    /// 16-bit data in the register (`d16` forms).
    pub d16: bool,
    /// 16-bit data in the register's high half (`d16_hi` forms).
    pub d16_hi: bool,
    /// DS `_src2_` forms: memory to memory.
    pub src2: bool,
    /// The buffer atomic a scalar atomic applies (`s_atomic_add` and `s_buffer_atomic_add` apply
    /// `buffer_atomic_add`).
    pub twin: Option<Op>,
}

impl MemFacts {
    /// The facts of `op` (a table lookup).
    pub fn of(op: Op) -> &'static MemFacts {
        &TABLE[op as usize]
    }
}

/// One entry per operation, in [`Op`] order.
static TABLE: LazyLock<Vec<MemFacts>> =
    LazyLock::new(|| ALL_OPS.iter().map(|&op| from_name(op.mnemonic())).collect());

/// Reads the facts off an LLVM mnemonic; see the module docs.
fn from_name(name: &str) -> MemFacts {
    let class = if let Some(rest) = name.strip_prefix("s_") {
        if rest.starts_with("buffer_") {
            MemClass::SmemBuffer
        } else if rest.starts_with("scratch_") {
            MemClass::SmemScratch
        } else if rest.starts_with("load_")
            || rest.starts_with("store_")
            || rest.starts_with("atomic_")
        {
            MemClass::Smem
        } else {
            MemClass::None
        }
    } else if name.starts_with("ds_") {
        MemClass::Ds
    } else if name.starts_with("buffer_") {
        MemClass::Buffer
    } else if name.starts_with("tbuffer_") {
        MemClass::Tbuffer
    } else if name.starts_with("global_") {
        MemClass::Global
    } else if name.starts_with("flat_") {
        MemClass::Flat
    } else if name.starts_with("scratch_") {
        MemClass::Scratch
    } else {
        MemClass::None
    };
    let kind = if class == MemClass::None {
        MemKind::Other
    } else if name.contains("atomic") {
        MemKind::Atomic
    } else if name.contains("_store_") {
        MemKind::Store
    } else if name.contains("_load_") {
        MemKind::Load
    } else {
        MemKind::Other
    };
    let dwords = ["x16", "x8", "x4", "x2"]
        .iter()
        .zip([16, 8, 4, 2])
        .find(|(sfx, _)| name.ends_with(**sfx))
        .map_or(1, |(_, n)| n);
    let format = matches!(class, MemClass::Buffer | MemClass::Tbuffer) && name.contains("_format_");
    let components = if format {
        match name.rsplit('_').next() {
            Some("x") => 1,
            Some("xy") => 2,
            Some("xyz") => 3,
            _ => 4,
        }
    } else {
        4
    };
    let twin = match class {
        MemClass::Smem | MemClass::SmemBuffer if kind == MemKind::Atomic => {
            let core = name.trim_start_matches("s_").trim_start_matches("buffer_");
            Op::from_mnemonic(&format!("buffer_{core}"))
        }
        _ => None,
    };
    MemFacts {
        class,
        kind,
        dwords,
        wide: match class {
            MemClass::Ds => name.ends_with("64"),
            _ => name.ends_with("_x2"),
        },
        cmpswap: name.contains("cmpswap"),
        rtn: name.contains("_rtn_"),
        returns_on_glc: kind == MemKind::Atomic
            && matches!(class, MemClass::Buffer | MemClass::Global | MemClass::Flat),
        format,
        components,
        d16: name.contains("_d16"),
        d16_hi: name.contains("_d16_hi"),
        src2: name.contains("_src2_"),
        twin,
    }
}

/// Whether `op` is a vector compare that writes EXEC (`v_cmpx_*`), from the typed compare tables.
pub(super) fn is_cmpx(op: Op) -> bool {
    super::valu::int_cmp_writes_exec(op)
        .or_else(|| super::vfloat::float_cmp_writes_exec(op))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_each_class() {
        let f = MemFacts::of(Op::BufferAtomicCmpswapX2);
        assert_eq!((f.class, f.kind), (MemClass::Buffer, MemKind::Atomic));
        assert!(f.wide && f.cmpswap && f.returns_on_glc && !f.rtn && !f.format);
        let f = MemFacts::of(Op::DsMaxRtnU64);
        assert_eq!((f.class, f.kind), (MemClass::Ds, MemKind::Other));
        assert!(f.wide && f.rtn && !f.returns_on_glc && !f.src2);
        let f = MemFacts::of(Op::DsAddSrc2U32);
        assert!(f.src2 && !f.wide && !f.rtn);
        let f = MemFacts::of(Op::DsReadU8D16Hi);
        assert!(f.d16 && f.d16_hi);
        let f = MemFacts::of(Op::TbufferStoreFormatD16Xy);
        assert_eq!((f.class, f.kind), (MemClass::Tbuffer, MemKind::Store));
        assert!(f.format && f.d16 && !f.d16_hi && f.components == 2);
        let f = MemFacts::of(Op::BufferLoadFormatD16HiX);
        assert!(f.format && f.d16 && f.d16_hi && f.components == 1);
        assert_eq!(f.kind, MemKind::Load);
        let f = MemFacts::of(Op::BufferLoadDwordx4);
        assert!(!f.format && f.kind == MemKind::Load);
        let f = MemFacts::of(Op::SBufferLoadDwordx16);
        assert_eq!(
            (f.class, f.kind, f.dwords),
            (MemClass::SmemBuffer, MemKind::Load, 16)
        );
        let f = MemFacts::of(Op::SAtomicCmpswapX2);
        assert_eq!(
            (f.class, f.dwords, f.twin),
            (MemClass::Smem, 2, Some(Op::BufferAtomicCmpswapX2))
        );
        let f = MemFacts::of(Op::SBufferAtomicAdd);
        assert_eq!(f.twin, Some(Op::BufferAtomicAdd));
        assert_eq!(
            MemFacts::of(Op::SScratchLoadDword).class,
            MemClass::SmemScratch
        );
        assert_eq!(MemFacts::of(Op::SDcacheInv).class, MemClass::None);
        let f = MemFacts::of(Op::FlatAtomicSwap);
        assert_eq!((f.class, f.kind), (MemClass::Flat, MemKind::Atomic));
        assert!(f.returns_on_glc && !f.wide);
        assert_eq!(
            MemFacts::of(Op::GlobalStoreDwordAddtid).kind,
            MemKind::Store
        );
        assert_eq!(MemFacts::of(Op::ScratchLoadDword).class, MemClass::Scratch);
        assert_eq!(MemFacts::of(Op::VAddF32).class, MemClass::None);
    }

    /// Every scalar atomic has a buffer twin, and every vector memory operation a class.
    #[test]
    fn every_memory_operation_is_classified() {
        for op in ALL_OPS {
            let name = op.mnemonic();
            let f = MemFacts::of(op);
            if name.starts_with("s_atomic_") || name.starts_with("s_buffer_atomic_") {
                assert!(f.twin.is_some(), "{name}");
            }
            for p in ["ds_", "buffer_", "tbuffer_", "global_", "flat_", "scratch_"] {
                if name.starts_with(p) {
                    assert_ne!(f.class, MemClass::None, "{name}");
                }
            }
        }
    }

    #[test]
    fn cmpx_from_the_compare_tables() {
        assert!(is_cmpx(Op::VCmpxEqU32) && is_cmpx(Op::VCmpxClassF64) && is_cmpx(Op::VCmpxNltF16));
        assert!(!is_cmpx(Op::VCmpEqU32) && !is_cmpx(Op::VCmpClassF32) && !is_cmpx(Op::VAddF32));
        for op in ALL_OPS {
            assert_eq!(is_cmpx(op), op.mnemonic().starts_with("v_cmpx"), "{op:?}");
        }
    }
}
