//! Memory instructions: SMEM, MUBUF/MTBUF (buffer addressing in [`super::buffer`]), GLOBAL/FLAT and DS.
//!
//! Rules (see [`crate::rules`]): `buffer.range_check`, `lds.out_of_range`, `lds.misaligned_fault`,
//! `flat.shared_aperture`, `ds.swizzle_modes`, `ds.permute_inactive_zero`.

use super::buffer::{piece, Access, Vsharp};
use super::ctx::{fault, unsupported, Ctx, Ty};
use super::facts::{MemClass, MemFacts, MemKind};
use super::format;
use crate::isa::{Control, Encoding, Instruction, MemFields, Op, Operand, Role};
use measurements::job::BackendError;

fn fields(inst: &Instruction) -> MemFields {
    match inst.control {
        Control::Mem(m) => m,
        _ => MemFields::default(),
    }
}

fn vreg(inst: &Instruction, role: Role, pc: usize) -> Result<usize, BackendError> {
    match inst.operand(role) {
        Some(Operand::Vgpr { first, .. }) => Ok(first as usize),
        other => Err(unsupported(
            inst,
            pc,
            &format!("{role:?} is {other:?}, not a VGPR"),
        )),
    }
}

/// The register a load writes: LLVM calls it vdst in DS/FLAT and vdata in MUBUF/MTBUF.
fn load_dst(inst: &Instruction, pc: usize) -> Result<usize, BackendError> {
    if inst.operand(Role::Vdst).is_some() {
        vreg(inst, Role::Vdst, pc)
    } else {
        vreg(inst, Role::Vdata, pc)
    }
}

/// Data width of a load or store and how sub-dword data is extended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Width {
    U8,
    I8,
    U16,
    I16,
    /// `n` dwords.
    Dw(u32),
    /// 8/16-bit data into the low (false) or high (true) half of the VGPR, the other half kept.
    D16 {
        bytes: u32,
        signed: bool,
        hi: bool,
    },
}

impl Width {
    fn bytes(self) -> u32 {
        match self {
            Width::U8 | Width::I8 => 1,
            Width::U16 | Width::I16 => 2,
            Width::Dw(n) => 4 * n,
            Width::D16 { bytes, .. } => bytes,
        }
    }
}

/// Extends loaded bytes into the destination dword (`old` for the d16 forms).
fn extend(w: Width, raw: u32, old: u32) -> u32 {
    match w {
        Width::U8 => raw & 0xff,
        Width::I8 => raw as u8 as i8 as i32 as u32,
        Width::U16 => raw & 0xffff,
        Width::I16 => raw as u16 as i16 as i32 as u32,
        Width::Dw(_) => raw,
        Width::D16 { bytes, signed, hi } => {
            let v = match (bytes, signed) {
                (1, false) => raw & 0xff,
                (1, true) => raw as u8 as i8 as i16 as u16 as u32,
                _ => raw & 0xffff,
            };
            if hi {
                (old & 0xffff) | v << 16
            } else {
                (old & 0xffff_0000) | v
            }
        }
    }
}

/// Load/store widths of the untyped buffer, global and flat operations.
fn width_of(op: Op) -> Option<(Width, bool)> {
    use Op::*;
    // (width, is_store)
    Some(match op {
        BufferLoadUbyte | GlobalLoadUbyte | FlatLoadUbyte => (Width::U8, false),
        BufferLoadSbyte | GlobalLoadSbyte | FlatLoadSbyte => (Width::I8, false),
        BufferLoadUshort | GlobalLoadUshort | FlatLoadUshort => (Width::U16, false),
        BufferLoadSshort | GlobalLoadSshort | FlatLoadSshort => (Width::I16, false),
        BufferLoadDword | GlobalLoadDword | FlatLoadDword => (Width::Dw(1), false),
        BufferLoadDwordx2 | GlobalLoadDwordx2 | FlatLoadDwordx2 => (Width::Dw(2), false),
        BufferLoadDwordx3 | GlobalLoadDwordx3 | FlatLoadDwordx3 => (Width::Dw(3), false),
        BufferLoadDwordx4 | GlobalLoadDwordx4 | FlatLoadDwordx4 => (Width::Dw(4), false),
        BufferLoadUbyteD16 | GlobalLoadUbyteD16 | FlatLoadUbyteD16 => (
            Width::D16 {
                bytes: 1,
                signed: false,
                hi: false,
            },
            false,
        ),
        BufferLoadUbyteD16Hi | GlobalLoadUbyteD16Hi | FlatLoadUbyteD16Hi => (
            Width::D16 {
                bytes: 1,
                signed: false,
                hi: true,
            },
            false,
        ),
        BufferLoadSbyteD16 | GlobalLoadSbyteD16 | FlatLoadSbyteD16 => (
            Width::D16 {
                bytes: 1,
                signed: true,
                hi: false,
            },
            false,
        ),
        BufferLoadSbyteD16Hi | GlobalLoadSbyteD16Hi | FlatLoadSbyteD16Hi => (
            Width::D16 {
                bytes: 1,
                signed: true,
                hi: true,
            },
            false,
        ),
        BufferLoadShortD16 | GlobalLoadShortD16 | FlatLoadShortD16 => (
            Width::D16 {
                bytes: 2,
                signed: false,
                hi: false,
            },
            false,
        ),
        BufferLoadShortD16Hi | GlobalLoadShortD16Hi | FlatLoadShortD16Hi => (
            Width::D16 {
                bytes: 2,
                signed: false,
                hi: true,
            },
            false,
        ),
        BufferStoreByte | GlobalStoreByte | FlatStoreByte => (Width::U8, true),
        BufferStoreByteD16Hi | GlobalStoreByteD16Hi | FlatStoreByteD16Hi => (
            Width::D16 {
                bytes: 1,
                signed: false,
                hi: true,
            },
            true,
        ),
        BufferStoreShort | GlobalStoreShort | FlatStoreShort => (Width::U16, true),
        BufferStoreShortD16Hi | GlobalStoreShortD16Hi | FlatStoreShortD16Hi => (
            Width::D16 {
                bytes: 2,
                signed: false,
                hi: true,
            },
            true,
        ),
        BufferStoreDword | GlobalStoreDword | FlatStoreDword => (Width::Dw(1), true),
        BufferStoreDwordx2 | GlobalStoreDwordx2 | FlatStoreDwordx2 => (Width::Dw(2), true),
        BufferStoreDwordx3 | GlobalStoreDwordx3 | FlatStoreDwordx3 => (Width::Dw(3), true),
        BufferStoreDwordx4 | GlobalStoreDwordx4 | FlatStoreDwordx4 => (Width::Dw(4), true),
        _ => return None,
    })
}

fn atomic32(op: Op, old: u32, d0: u32, d1: u32, mode: crate::float::Mode) -> Option<u32> {
    use Op::*;
    Some(match op {
        DsAddU32 | DsAddRtnU32 | DsAddSrc2U32 | BufferAtomicAdd | GlobalAtomicAdd
        | FlatAtomicAdd => old.wrapping_add(d0),
        DsSubU32 | DsSubRtnU32 | DsSubSrc2U32 | BufferAtomicSub | GlobalAtomicSub
        | FlatAtomicSub => old.wrapping_sub(d0),
        DsRsubU32 | DsRsubRtnU32 | DsRsubSrc2U32 => d0.wrapping_sub(old),
        // gfx1030's clamped subtract (RDNA 3 ISA guide pseudo-code for BUFFER_ATOMIC_CSUB_U32; rule
        // `buffer.atomic_csub`).
        BufferAtomicCsub | GlobalAtomicCsub => old.saturating_sub(d0),
        DsIncU32 | DsIncRtnU32 | DsIncSrc2U32 | BufferAtomicInc | GlobalAtomicInc
        | FlatAtomicInc => {
            if old >= d0 {
                0
            } else {
                old + 1
            }
        }
        DsDecU32 | DsDecRtnU32 | DsDecSrc2U32 | BufferAtomicDec | GlobalAtomicDec
        | FlatAtomicDec => {
            if old == 0 || old > d0 {
                d0
            } else {
                old - 1
            }
        }
        DsMinI32 | DsMinRtnI32 | DsMinSrc2I32 | BufferAtomicSmin | GlobalAtomicSmin
        | FlatAtomicSmin => (old as i32).min(d0 as i32) as u32,
        DsMaxI32 | DsMaxRtnI32 | DsMaxSrc2I32 | BufferAtomicSmax | GlobalAtomicSmax
        | FlatAtomicSmax => (old as i32).max(d0 as i32) as u32,
        DsMinU32 | DsMinRtnU32 | DsMinSrc2U32 | BufferAtomicUmin | GlobalAtomicUmin
        | FlatAtomicUmin => old.min(d0),
        DsMaxU32 | DsMaxRtnU32 | DsMaxSrc2U32 | BufferAtomicUmax | GlobalAtomicUmax
        | FlatAtomicUmax => old.max(d0),
        DsAndB32 | DsAndRtnB32 | DsAndSrc2B32 | BufferAtomicAnd | GlobalAtomicAnd
        | FlatAtomicAnd => old & d0,
        DsOrB32 | DsOrRtnB32 | DsOrSrc2B32 | BufferAtomicOr | GlobalAtomicOr | FlatAtomicOr => {
            old | d0
        }
        DsXorB32 | DsXorRtnB32 | DsXorSrc2B32 | BufferAtomicXor | GlobalAtomicXor
        | FlatAtomicXor => old ^ d0,
        DsMskorB32 | DsMskorRtnB32 => (old & !d0) | d1,
        DsWrxchgRtnB32 | DsWriteSrc2B32 | BufferAtomicSwap | GlobalAtomicSwap | FlatAtomicSwap => {
            d0
        }
        DsCmpstB32 | DsCmpstRtnB32 => {
            if old == d0 {
                d1
            } else {
                old
            }
        }
        BufferAtomicCmpswap | GlobalAtomicCmpswap | FlatAtomicCmpswap => {
            if old == d1 {
                d0
            } else {
                old
            }
        }
        DsWrapRtnB32 => {
            if old >= d0 {
                old - d0
            } else {
                old.wrapping_add(d1)
            }
        }
        DsCmpstF32 | DsCmpstRtnF32 => crate::float::lds_cmpst_f32(mode, old, d0, d1),
        DsMinF32 | DsMinRtnF32 | DsMinSrc2F32 => crate::float::lds_min_f32(mode, old, d0),
        DsMaxF32 | DsMaxRtnF32 | DsMaxSrc2F32 => crate::float::lds_max_f32(mode, old, d0),
        DsAddF32 | DsAddRtnF32 | DsAddSrc2F32 => crate::float::lds_add_f32(mode, old, d0),
        // Buffer, global and flat float atomics reuse the LDS float rule by design, not by measurement (rule
        // atomic.float_non_lds).
        BufferAtomicFmin | GlobalAtomicFmin | FlatAtomicFmin => {
            crate::float::lds_min_f32(mode, old, d0)
        }
        BufferAtomicFmax | GlobalAtomicFmax | FlatAtomicFmax => {
            crate::float::lds_max_f32(mode, old, d0)
        }
        BufferAtomicFcmpswap | GlobalAtomicFcmpswap | FlatAtomicFcmpswap => {
            crate::float::lds_cmpst_f32(mode, old, d1, d0)
        }
        _ => return None,
    })
}

fn atomic64(op: Op, old: u64, d0: u64, d1: u64, mode: crate::float::Mode) -> Option<u64> {
    use Op::*;
    Some(match op {
        DsAddU64 | DsAddRtnU64 | BufferAtomicAddX2 | GlobalAtomicAddX2 | FlatAtomicAddX2
        | DsAddSrc2U64 => old.wrapping_add(d0),
        DsSubU64 | DsSubRtnU64 | BufferAtomicSubX2 | GlobalAtomicSubX2 | FlatAtomicSubX2
        | DsSubSrc2U64 => old.wrapping_sub(d0),
        DsRsubU64 | DsRsubRtnU64 | DsRsubSrc2U64 => d0.wrapping_sub(old),
        DsIncU64 | DsIncRtnU64 | BufferAtomicIncX2 | GlobalAtomicIncX2 | FlatAtomicIncX2
        | DsIncSrc2U64 => {
            if old >= d0 {
                0
            } else {
                old + 1
            }
        }
        DsDecU64 | DsDecRtnU64 | BufferAtomicDecX2 | GlobalAtomicDecX2 | FlatAtomicDecX2
        | DsDecSrc2U64 => {
            if old == 0 || old > d0 {
                d0
            } else {
                old - 1
            }
        }
        DsMinI64 | DsMinRtnI64 | BufferAtomicSminX2 | GlobalAtomicSminX2 | FlatAtomicSminX2
        | DsMinSrc2I64 => (old as i64).min(d0 as i64) as u64,
        DsMaxI64 | DsMaxRtnI64 | BufferAtomicSmaxX2 | GlobalAtomicSmaxX2 | FlatAtomicSmaxX2
        | DsMaxSrc2I64 => (old as i64).max(d0 as i64) as u64,
        DsMinU64 | DsMinRtnU64 | BufferAtomicUminX2 | GlobalAtomicUminX2 | FlatAtomicUminX2
        | DsMinSrc2U64 => old.min(d0),
        DsMaxU64 | DsMaxRtnU64 | BufferAtomicUmaxX2 | GlobalAtomicUmaxX2 | FlatAtomicUmaxX2
        | DsMaxSrc2U64 => old.max(d0),
        DsAndB64 | DsAndRtnB64 | BufferAtomicAndX2 | GlobalAtomicAndX2 | FlatAtomicAndX2
        | DsAndSrc2B64 => old & d0,
        DsOrB64 | DsOrRtnB64 | BufferAtomicOrX2 | GlobalAtomicOrX2 | FlatAtomicOrX2
        | DsOrSrc2B64 => old | d0,
        DsXorB64 | DsXorRtnB64 | BufferAtomicXorX2 | GlobalAtomicXorX2 | FlatAtomicXorX2
        | DsXorSrc2B64 => old ^ d0,
        DsMskorB64 | DsMskorRtnB64 => (old & !d0) | d1,
        DsWrxchgRtnB64 | BufferAtomicSwapX2 | GlobalAtomicSwapX2 | FlatAtomicSwapX2
        | DsWriteSrc2B64 => d0,
        DsCmpstB64 | DsCmpstRtnB64 => {
            if old == d0 {
                d1
            } else {
                old
            }
        }
        DsCmpstF64 | DsCmpstRtnF64 => crate::float::lds_cmpst_f64(mode, old, d0, d1),
        DsMinF64 | DsMinRtnF64 | BufferAtomicFminX2 | GlobalAtomicFminX2 | FlatAtomicFminX2
        | DsMinSrc2F64 => crate::float::lds_min_f64(mode, old, d0),
        DsMaxF64 | DsMaxRtnF64 | BufferAtomicFmaxX2 | GlobalAtomicFmaxX2 | FlatAtomicFmaxX2
        | DsMaxSrc2F64 => crate::float::lds_max_f64(mode, old, d0),
        // The 64-bit float forms (fmin, fmax, fcmpswap _x2) follow the LDS f64 rule as their 32-bit forms follow
        // the f32 one (inferred).
        BufferAtomicCmpswapX2 | GlobalAtomicCmpswapX2 | FlatAtomicCmpswapX2 => {
            if old == d1 {
                d0
            } else {
                old
            }
        }
        BufferAtomicFcmpswapX2 | GlobalAtomicFcmpswapX2 | FlatAtomicFcmpswapX2 => {
            crate::float::lds_cmpst_f64(mode, old, d1, d0)
        }
        _ => return None,
    })
}

/// Does the atomic return the pre-operation value?
fn returns(facts: &MemFacts, glc: bool) -> bool {
    facts.rtn || facts.returns_on_glc && glc
}

/// Runs a memory instruction, routed by its operation's typed facts ([`MemFacts`], decided when the program
/// was decoded).
pub(super) fn exec(
    cx: &mut Ctx,
    inst: &Instruction,
    facts: &MemFacts,
    pc: usize,
) -> Result<(), BackendError> {
    match facts.class {
        MemClass::Ds => ds(cx, inst, facts, pc),
        MemClass::Buffer | MemClass::Tbuffer => buffer(cx, inst, facts, pc),
        MemClass::Global | MemClass::Flat => global(cx, inst, facts, pc),
        MemClass::Scratch => Err(unsupported(
            inst,
            pc,
            "scratch needs a private segment, which the job ABIs do not set up",
        )),
        _ if inst.encoding == Encoding::Smem => smem(cx, inst, facts, pc),
        _ => Err(unsupported(inst, pc, "memory instruction not modelled yet")),
    }
}

/// What an SMEM instruction does with its dwords.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SmemKind {
    Load,
    Store,
    Atomic,
}

fn smem(cx: &mut Ctx, inst: &Instruction, facts: &MemFacts, pc: usize) -> Result<(), BackendError> {
    use Op::*;
    let f = fields(inst);
    match inst.op {
        // Cache maintenance and address-translation probes: the model has no caches or TLB, so they do
        // nothing observable (s_dcache_discard drops dirty scalar-cache lines, which never exist here because
        // scalar stores write through; rule `smem.cache_ops`).
        SDcacheInv | SGl1Inv | SDcacheWb | SDcacheDiscard | SDcacheDiscardX2 | SAtcProbe
        | SAtcProbeBuffer => return Ok(()),
        SMemtime | SMemrealtime => {
            return Err(unsupported(
                inst,
                pc,
                "reads a free-running clock: no value is reproducible, so none can be modelled",
            ))
        }
        SGetWaveidInWorkgroup => {
            let dst = inst
                .operand(Role::Sdst)
                .ok_or_else(|| unsupported(inst, pc, "SMEM destination"))?;
            return cx
                .swrite(dst, cx.wave.wave_id)
                .map_err(|e| unsupported(inst, pc, &e));
        }
        _ => {}
    }
    let kind = match facts.kind {
        MemKind::Atomic => SmemKind::Atomic,
        MemKind::Store => SmemKind::Store,
        MemKind::Load => SmemKind::Load,
        MemKind::Other => {
            return Err(unsupported(
                inst,
                pc,
                "scalar memory instruction not modelled yet",
            ))
        }
    };
    if facts.class == MemClass::SmemScratch {
        return Err(unsupported(
            inst,
            pc,
            "scratch needs a private segment, which the job ABIs do not set up",
        ));
    }
    // Dwords of memory touched: the load/store width, or an atomic's element (two for the _x2 forms).
    let n = facts.dwords as usize;
    let Some(Operand::Sgpr { first: base, .. }) = inst.operand(Role::Sbase) else {
        return Err(unsupported(inst, pc, "SMEM base is not an SGPR range"));
    };
    let soffset = match inst.operand(Role::Soffset) {
        Some(op) => cx
            .sread(op, Ty::B32)
            .map_err(|e| unsupported(inst, pc, &e))?,
        None => 0,
    };
    let offset = (f.offset as i64 + soffset as i64) as u64;
    let data = inst
        .operand(Role::Sdst)
        .and_then(super::ctx::sreg_index)
        .ok_or_else(|| unsupported(inst, pc, "SMEM data register"))?;
    let b = base as usize;
    // The address of dword i, or None past a buffer's NUM_RECORDS: loads read 0 there, stores and atomics
    // write nothing (rule smem.buffer_range, inferred from the buffer rule).
    let addresses: Vec<Option<u64>> = if facts.class == MemClass::SmemBuffer {
        let v = Vsharp::from_words([
            cx.wave.sget(b),
            cx.wave.sget(b + 1),
            cx.wave.sget(b + 2),
            cx.wave.sget(b + 3),
        ]);
        (0..n as u64)
            .map(|i| {
                let off = (offset & !3) + 4 * i;
                (off + 4 <= v.num_records as u64).then(|| (v.base + off) & 0xffff_ffff_ffff)
            })
            .collect()
    } else {
        let addr =
            (cx.wave.sget(b) as u64 | (cx.wave.sget(b + 1) as u64) << 32).wrapping_add(offset) & !3;
        (0..n as u64).map(|i| Some(addr + 4 * i)).collect()
    };
    let read = |cx: &Ctx, a: Option<u64>| -> Result<u32, BackendError> {
        a.map_or(Ok(0), |a| {
            cx.mem.read_u32(a).map_err(|e| fault(e, pc, inst))
        })
    };
    match kind {
        SmemKind::Load => {
            let mut out = Vec::with_capacity(n);
            for &a in &addresses {
                out.push(read(cx, a)?);
            }
            for (i, v) in out.into_iter().enumerate() {
                cx.wave.sset(data + i, v);
            }
        }
        SmemKind::Store => {
            for (i, &a) in addresses.iter().enumerate() {
                if let Some(a) = a {
                    let v = cx.wave.sget(data + i);
                    cx.mem.write_u32(a, v).map_err(|e| fault(e, pc, inst))?;
                }
            }
        }
        SmemKind::Atomic => {
            // Scalar atomics as the buffer atomics of the same name applied once (rule `smem.atomics`,
            // inferred from the names): data (and compare data after it) in SDATA, the old value back to
            // SDATA with GLC.
            let op = facts
                .twin
                .ok_or_else(|| unsupported(inst, pc, "no buffer atomic of the same name"))?;
            let atomic = MemAtomic::new(cx, op);
            let d = atomic.operands(data, |r| cx.wave.sget(r));
            // The element is written only when all of it lies within the buffer, as for the vector forms.
            let element = addresses
                .iter()
                .all(Option::is_some)
                .then_some(addresses[0])
                .flatten();
            let old = atomic.update(cx, inst, pc, element, d)?;
            if f.glc {
                for i in 0..atomic.dwords() {
                    cx.wave.sset(data + i, (old >> (32 * i)) as u32);
                }
            }
        }
    }
    Ok(())
}

fn buffer(
    cx: &mut Ctx,
    inst: &Instruction,
    facts: &MemFacts,
    pc: usize,
) -> Result<(), BackendError> {
    // Vector L0/L1 cache invalidation: no caches in the model (rule `smem.cache_ops`).
    if matches!(inst.op, Op::BufferGl0Inv | Op::BufferGl1Inv) {
        return Ok(());
    }
    let f = fields(inst);
    if f.lds || f.tfe {
        return Err(unsupported(
            inst,
            pc,
            "buffer loads to LDS and TFE are not modelled",
        ));
    }
    let Some(Operand::Sgpr { first: rs, .. }) = inst.operand(Role::Srsrc) else {
        return Err(unsupported(
            inst,
            pc,
            "buffer resource is not an SGPR range",
        ));
    };
    let r = rs as usize;
    let v = Vsharp::from_words([
        cx.wave.sget(r),
        cx.wave.sget(r + 1),
        cx.wave.sget(r + 2),
        cx.wave.sget(r + 3),
    ]);
    let soffset = match inst.operand(Role::Soffset) {
        Some(op) => cx
            .sread(op, Ty::B32)
            .map_err(|e| unsupported(inst, pc, &e))?,
        None => 0,
    };
    let vaddr = if f.offen || f.idxen {
        Some(vreg(inst, Role::Vaddr, pc)?)
    } else {
        None
    };
    let exec = cx.wave.exec();
    let lanes = cx.wave.lanes;
    let access = |cx: &Ctx, lane: usize| -> Access {
        let (mut vindex, mut voffset) = (0, 0);
        if let Some(a) = vaddr {
            match (f.idxen, f.offen) {
                (true, true) => {
                    vindex = cx.wave.vget(a, lane);
                    voffset = cx.wave.vget(a + 1, lane);
                }
                (true, false) => vindex = cx.wave.vget(a, lane),
                _ => voffset = cx.wave.vget(a, lane),
            }
        }
        Access {
            vindex,
            voffset,
            inst_offset: f.offset as u32,
            soffset,
            lane: lane as u32,
        }
    };
    if let Some((w, store)) = width_of(inst.op) {
        for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
            let a = access(cx, lane);
            match w {
                Width::Dw(n) => {
                    // Multi-dword accesses are range-checked per dword (rule buffer.range_check).
                    for i in 0..n {
                        let p = piece(&v, &a, 4 * i, 4);
                        if store {
                            let d = cx
                                .wave
                                .vget(vreg(inst, Role::Vdata, pc)? + i as usize, lane);
                            if p.in_range {
                                cx.mem
                                    .write_u32(p.address, d)
                                    .map_err(|e| fault(e, pc, inst))?;
                            }
                        } else {
                            let d = if p.in_range {
                                cx.mem.read_u32(p.address).map_err(|e| fault(e, pc, inst))?
                            } else {
                                0
                            };
                            let dst = load_dst(inst, pc)?;
                            cx.wave.vset(dst + i as usize, lane, d);
                        }
                    }
                }
                _ => {
                    let bytes = w.bytes();
                    let p = piece(&v, &a, 0, bytes);
                    if store {
                        let d = cx.wave.vget(vreg(inst, Role::Vdata, pc)?, lane);
                        let d = if matches!(w, Width::D16 { hi: true, .. }) {
                            d >> 16
                        } else {
                            d
                        };
                        if p.in_range {
                            cx.mem
                                .write(p.address, &d.to_le_bytes()[..bytes as usize])
                                .map_err(|e| fault(e, pc, inst))?;
                        }
                    } else {
                        let mut b = [0u8; 4];
                        if p.in_range {
                            cx.mem
                                .read(p.address, &mut b[..bytes as usize])
                                .map_err(|e| fault(e, pc, inst))?;
                        }
                        let dst = load_dst(inst, pc)?;
                        let old = cx.wave.vget(dst, lane);
                        cx.wave
                            .vset(dst, lane, extend(w, u32::from_le_bytes(b), old));
                    }
                }
            }
        }
        return Ok(());
    }

    if facts.format {
        return format_access(cx, inst, facts, pc, &v, &access);
    }

    if facts.class == MemClass::Buffer && facts.kind == MemKind::Atomic {
        let data = vreg(inst, Role::Vdata, pc)?;
        // The returned value overwrites the data registers (GCN/RDNA buffer atomic convention).
        let rtn = returns(facts, f.glc).then_some(data);
        let atomic = MemAtomic::new(cx, inst.op);
        for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
            let a = access(cx, lane);
            let p = piece(&v, &a, 0, 4 * atomic.dwords() as u32);
            let at = p.in_range.then_some(p.address);
            atomic.lane(cx, (inst, pc), lane, at, data, rtn)?;
        }
        return Ok(());
    }
    Err(unsupported(inst, pc, "buffer instruction not modelled yet"))
}

/// Format loads and stores: `buffer_{load,store}_format_*` take the format from the V# (word 3 bits 18:12),
/// `tbuffer_*` from the instruction; both keep the V#'s DST_SEL. Each lane reads or writes one whole element,
/// range-checked all or nothing (rule `buffer.range_check`), in 4-byte pieces at their own (swizzled)
/// addresses. Conversions are in [`super::format`]. Loads return `n` components picked by DST_SEL from the
/// element's components and the defaults (0, 0, 0, 1); d16 forms pack two 16-bit values per VGPR (rule
/// `buffer.d16_packing`). Stores write every component of the element, those the instruction does not supply as
/// 0 (rule `buffer.store_zero_fill`), and ignore data components the format does not have (rule
/// `buffer.store_extra_components`). Refused: format codes without a gfx10 format, a reserved DST_SEL (2, 3) on
/// a load, a store through a V# whose DST_SEL is not X, Y, Z, W for the format's components (what a store
/// does with a swizzle is neither documented nor measured), and an element whose address is not a multiple of
/// its component size (4 for the packed formats): only aligned format accesses are pinned.
fn format_access(
    cx: &mut Ctx,
    inst: &Instruction,
    facts: &MemFacts,
    pc: usize,
    v: &Vsharp,
    access: &impl Fn(&Ctx, usize) -> Access,
) -> Result<(), BackendError> {
    let f = fields(inst);
    let code = if facts.class == MemClass::Tbuffer {
        f.format
    } else {
        v.format
    };
    let fmt = format::lookup(code).map_err(|r| unsupported(inst, pc, &r))?;
    let store = facts.kind == MemKind::Store;
    let d16 = facts.d16;
    let hi = facts.d16_hi;
    let n = facts.components as usize;
    let reg = if store {
        vreg(inst, Role::Vdata, pc)?
    } else {
        load_dst(inst, pc)?
    };
    if store {
        if let Some(c) = (0..fmt.comps).find(|&c| v.dst_sel[c] as usize != 4 + c) {
            return Err(unsupported(
                inst,
                pc,
                &format!(
                    "format store through a V# whose DST_SEL {} is {} (not {}): what a store does with a \
                     swizzle is neither documented nor measured",
                    ['X', 'Y', 'Z', 'W'][c],
                    v.dst_sel[c],
                    4 + c
                ),
            ));
        }
    } else if let Some(i) = (0..n).find(|&i| matches!(v.dst_sel[i], 2 | 3)) {
        return Err(unsupported(
            inst,
            pc,
            &format!("DST_SEL {} is the reserved value {}", i, v.dst_sel[i]),
        ));
    }
    let bytes = fmt.bytes;
    // Components of 8, 16 or 32 bits align to their size; the packed formats are one dword.
    let align = if fmt.bits[0] % 8 == 0 && fmt.bits[..fmt.comps].iter().all(|&b| b == fmt.bits[0]) {
        (fmt.bits[0] / 8).min(4) as u64
    } else {
        4
    };
    let exec = cx.wave.exec();
    for lane in (0..cx.wave.lanes).filter(|l| exec >> l & 1 == 1) {
        let a = access(cx, lane);
        let whole = piece(v, &a, 0, bytes);
        let in_range = whole.in_range;
        if whole.address % align != 0 {
            return Err(unsupported(
                inst,
                pc,
                &format!(
                    "format access to {:#x}, not a multiple of {align} (the {} element's alignment): not \
                     documented or measured",
                    whole.address,
                    fmt.name()
                ),
            ));
        }
        // The element's 4-byte pieces and where each lies.
        let pieces = (0..bytes.div_ceil(4)).map(|k| {
            let len = (bytes - 4 * k).min(4);
            (4 * k, len, piece(v, &a, 4 * k, len).address)
        });
        if store {
            // The data component i: a dword, or a 16-bit half for the d16 forms.
            let data = |i: usize| -> u32 {
                if hi {
                    cx.wave.vget(reg, lane) >> 16
                } else if d16 {
                    cx.wave.vget(reg + i / 2, lane) >> (16 * (i % 2)) & 0xffff
                } else {
                    cx.wave.vget(reg + i, lane)
                }
            };
            let mut element = 0u128;
            for c in 0..fmt.comps.min(n) {
                let (bits, num) = (fmt.bits[c], fmt.num);
                let code = if d16 {
                    format::store16(data(c) as u16, bits, num)
                } else {
                    format::store32(data(c), bits, num)
                };
                element |= fmt.place(c, code);
            }
            if !in_range {
                continue;
            }
            let raw = element.to_le_bytes();
            for (at, len, address) in pieces {
                cx.mem
                    .write(address, &raw[at as usize..(at + len) as usize])
                    .map_err(|e| fault(e, pc, inst))?;
            }
        } else {
            let mut element = 0u128;
            if in_range {
                let mut raw = [0u8; 16];
                for (at, len, address) in pieces {
                    cx.mem
                        .read(address, &mut raw[at as usize..(at + len) as usize])
                        .map_err(|e| fault(e, pc, inst))?;
                }
                element = u128::from_le_bytes(raw);
            }
            let num = fmt.num;
            // Output component i after DST_SEL; 0 for a lane out of range.
            let value = |i: usize| -> u32 {
                if !in_range {
                    return 0;
                }
                let one = if d16 {
                    format::one16(num) as u32
                } else {
                    format::one32(num)
                };
                match v.dst_sel[i] {
                    1 => one,
                    s @ 4..=7 => {
                        let c = s as usize - 4;
                        if c < fmt.comps {
                            let code = fmt.field(element, c);
                            if d16 {
                                format::load16(code, fmt.bits[c], num) as u32
                            } else {
                                format::load32(code, fmt.bits[c], num)
                            }
                        } else if c == 3 {
                            one
                        } else {
                            0
                        }
                    }
                    _ => 0,
                }
            };
            if hi {
                let old = cx.wave.vget(reg, lane);
                cx.wave.vset(reg, lane, (old & 0xffff) | value(0) << 16);
            } else if d16 {
                for j in 0..n.div_ceil(2) {
                    let old = cx.wave.vget(reg + j, lane);
                    let high = if 2 * j + 1 < n {
                        value(2 * j + 1)
                    } else {
                        old >> 16
                    };
                    cx.wave.vset(reg + j, lane, value(2 * j) | high << 16);
                }
            } else {
                for i in 0..n {
                    cx.wave.vset(reg + i, lane, value(i));
                }
            }
        }
    }
    Ok(())
}

/// The flat address where the shared (LDS) aperture starts: its high dword, measured on RDNA2 (gfx1035,
/// seed 000: `src_shared_base` is 0x00010000_00000000). Rule `flat.shared_aperture`.
pub(super) const SHARED_APERTURE_HI: u32 = 0x0001_0000;

fn global(
    cx: &mut Ctx,
    inst: &Instruction,
    facts: &MemFacts,
    pc: usize,
) -> Result<(), BackendError> {
    let f = fields(inst);
    if f.lds || f.tfe {
        return Err(unsupported(
            inst,
            pc,
            "LDS-target and TFE forms are not modelled",
        ));
    }
    let saddr = match inst.operand(Role::Sbase) {
        Some(Operand::Sgpr { first, .. }) => Some(first as usize),
        Some(Operand::Null | Operand::Off) | None => None,
        Some(other) => {
            return Err(unsupported(
                inst,
                pc,
                &format!("saddr {other:?} is not modelled"),
            ))
        }
    };
    let exec = cx.wave.exec();
    let lanes = cx.wave.lanes;
    // gfx1030's ADDTID forms: SADDR + offset + 4 * lane id, no address VGPR (RDNA 2 ISA guide,
    // GLOBAL_LOAD_DWORD_ADDTID; rule `global.addtid`).
    if matches!(
        inst.op,
        Op::GlobalLoadDwordAddtid | Op::GlobalStoreDwordAddtid
    ) {
        let s = saddr.ok_or_else(|| unsupported(inst, pc, "ADDTID forms need an SGPR base"))?;
        let base = (cx.wave.sget(s) as u64 | (cx.wave.sget(s + 1) as u64) << 32)
            .wrapping_add(f.offset as i64 as u64);
        for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
            let a = base.wrapping_add(4 * lane as u64);
            if inst.op == Op::GlobalStoreDwordAddtid {
                let v = cx.wave.vget(vreg(inst, Role::Vdata, pc)?, lane);
                cx.mem.write_u32(a, v).map_err(|e| fault(e, pc, inst))?;
            } else {
                let v = cx.mem.read_u32(a).map_err(|e| fault(e, pc, inst))?;
                cx.wave.vset(vreg(inst, Role::Vdst, pc)?, lane, v);
            }
        }
        return Ok(());
    }
    let va = vreg(inst, Role::Vaddr, pc)?;
    let is_flat = facts.class == MemClass::Flat;
    let address = |cx: &Ctx, lane: usize| -> u64 {
        let base = match saddr {
            Some(s) => (cx.wave.sget(s) as u64 | (cx.wave.sget(s + 1) as u64) << 32)
                .wrapping_add(cx.wave.vget(va, lane) as u64),
            None => cx.wave.vget(va, lane) as u64 | (cx.wave.vget(va + 1, lane) as u64) << 32,
        };
        base.wrapping_add(f.offset as i64 as u64)
    };
    let Some((w, store)) = width_of(inst.op) else {
        if facts.kind == MemKind::Atomic {
            let rtn = if returns(facts, f.glc) {
                Some(vreg(inst, Role::Vdst, pc)?)
            } else {
                None
            };
            let data = vreg(inst, Role::Vdata, pc)?;
            let atomic = MemAtomic::new(cx, inst.op);
            for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
                let a = address(cx, lane);
                atomic.lane(cx, (inst, pc), lane, Some(a), data, rtn)?;
            }
            return Ok(());
        }
        return Err(unsupported(
            inst,
            pc,
            "global/flat instruction not modelled yet",
        ));
    };
    let bytes = w.bytes() as usize;
    for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
        let a = address(cx, lane);
        let to_lds = is_flat && (a >> 32) as u32 == SHARED_APERTURE_HI;
        if store {
            let data = vreg(inst, Role::Vdata, pc)?;
            let mut buf = Vec::with_capacity(bytes);
            match w {
                Width::Dw(n) => (0..n as usize).for_each(|i| {
                    buf.extend_from_slice(&cx.wave.vget(data + i, lane).to_le_bytes())
                }),
                Width::D16 { hi: true, .. } => {
                    buf.extend_from_slice(&(cx.wave.vget(data, lane) >> 16).to_le_bytes()[..bytes])
                }
                _ => buf.extend_from_slice(&cx.wave.vget(data, lane).to_le_bytes()[..bytes]),
            }
            if to_lds {
                for (i, b) in buf.iter().enumerate() {
                    cx.lds.write(a as u32 as u64 + i as u64, 1, *b as u64);
                }
            } else {
                cx.mem.write(a, &buf).map_err(|e| fault(e, pc, inst))?;
            }
        } else {
            let mut buf = vec![0u8; bytes];
            if to_lds {
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = cx.lds.read(a as u32 as u64 + i as u64, 1) as u8;
                }
            } else {
                cx.mem.read(a, &mut buf).map_err(|e| fault(e, pc, inst))?;
            }
            let dst = vreg(inst, Role::Vdst, pc)?;
            match w {
                Width::Dw(n) => {
                    for i in 0..n as usize {
                        let d = u32::from_le_bytes([
                            buf[4 * i],
                            buf[4 * i + 1],
                            buf[4 * i + 2],
                            buf[4 * i + 3],
                        ]);
                        cx.wave.vset(dst + i, lane, d);
                    }
                }
                _ => {
                    let mut b = [0u8; 4];
                    b[..bytes].copy_from_slice(&buf);
                    let old = cx.wave.vget(dst, lane);
                    cx.wave
                        .vset(dst, lane, extend(w, u32::from_le_bytes(b), old));
                }
            }
        }
    }
    Ok(())
}

/// Checks an LDS access's alignment: misaligned accesses fault the wave on RDNA2 (rule `lds.misaligned_fault`,
/// measured for ds_condxchg32_rtn_b64). Accesses of 4 bytes or more need dword alignment, 2-byte ones 2-byte
/// alignment (rule `lds.misaligned_fault.widths`, inferred).
fn lds_aligned(addr: u64, bytes: u32) -> bool {
    addr % (bytes.min(4) as u64) == 0
}

fn ds(cx: &mut Ctx, inst: &Instruction, facts: &MemFacts, pc: usize) -> Result<(), BackendError> {
    use Op::*;
    let f = fields(inst);
    if f.gds {
        return Err(unsupported(inst, pc, "GDS is not modelled"));
    }
    if inst.op == DsNop {
        return Ok(());
    }
    let exec = cx.wave.exec();
    let lanes = cx.wave.lanes;
    let active: Vec<usize> = (0..lanes).filter(|l| exec >> l & 1 == 1).collect();
    let offset = f.offset01[0] as u64 | (f.offset01[1] as u64) << 8;
    let addr_of = |cx: &Ctx, lane: usize| -> Result<u64, BackendError> {
        Ok(cx.wave.vget(vreg(inst, Role::Vaddr, pc)?, lane) as u64)
    };
    let misaligned = |a: u64| BackendError::Fault {
        address: a,
        pc: pc as u32,
        reason: format!(
            "{}: misaligned LDS access (the hardware faults the wave)",
            inst.op.mnemonic()
        ),
    };

    // Cross-lane operations that do not touch LDS memory.
    if matches!(inst.op, DsSwizzleB32 | DsPermuteB32 | DsBpermuteB32) {
        // ds_swizzle's data is LLVM's address operand; the permutes take an address and data.
        let data = vreg(
            inst,
            if inst.op == DsSwizzleB32 {
                Role::Vaddr
            } else {
                Role::Vdata
            },
            pc,
        )?;
        let dst = vreg(inst, Role::Vdst, pc)?;
        let src: Vec<u32> = (0..lanes).map(|l| cx.wave.vget(data, l)).collect();
        let valid = |j: usize| j < lanes && exec >> j & 1 == 1;
        let mut out = vec![0u32; lanes];
        match inst.op {
            DsSwizzleB32 => {
                let off = offset as usize;
                for &i in &active {
                    let j = swizzle_lane(off, i);
                    out[i] = if valid(j) { src[j] } else { 0 };
                }
            }
            DsPermuteB32 => {
                for &i in &active {
                    let to = ((cx.wave.vget(vreg(inst, Role::Vaddr, pc)?, i) as u64 + offset) / 4)
                        as usize
                        % lanes;
                    out[to] = src[i];
                }
            }
            _ => {
                for &i in &active {
                    let j = ((cx.wave.vget(vreg(inst, Role::Vaddr, pc)?, i) as u64 + offset) / 4)
                        as usize
                        % lanes;
                    out[i] = if valid(j) { src[j] } else { 0 };
                }
            }
        }
        for &i in &active {
            cx.wave.vset(dst, i, out[i]);
        }
        return Ok(());
    }

    let mode = crate::float::Mode::from_hwreg(cx.wave.mode);
    // Plain reads and writes.
    let rw = ds_plain_access(inst.op);
    if let Some((bytes, store, signed)) = rw {
        let hi = facts.d16_hi;
        let d16 = facts.d16;
        for &lane in &active {
            let a = addr_of(cx, lane)? + offset;
            if !lds_aligned(a, bytes) {
                return Err(misaligned(a));
            }
            if store {
                let data = vreg(inst, Role::Vdata, pc)?;
                if bytes <= 4 {
                    let mut v = cx.wave.vget(data, lane);
                    if hi {
                        v >>= 16;
                    }
                    cx.lds.write(a, bytes as usize, v as u64);
                } else {
                    for i in 0..(bytes / 4) as u64 {
                        cx.lds
                            .write(a + 4 * i, 4, cx.wave.vget(data + i as usize, lane) as u64);
                    }
                }
            } else {
                let dst = vreg(inst, Role::Vdst, pc)?;
                if bytes <= 4 {
                    let raw = cx.lds.read(a, bytes as usize) as u32;
                    let v = if d16 {
                        let w = Width::D16 { bytes, signed, hi };
                        extend(w, raw, cx.wave.vget(dst, lane))
                    } else {
                        match (bytes, signed) {
                            (1, true) => raw as u8 as i8 as i32 as u32,
                            (2, true) => raw as u16 as i16 as i32 as u32,
                            _ => raw,
                        }
                    };
                    cx.wave.vset(dst, lane, v);
                } else {
                    for i in 0..(bytes / 4) as u64 {
                        let v = cx.lds.read(a + 4 * i, 4) as u32;
                        cx.wave.vset(dst + i as usize, lane, v);
                    }
                }
            }
        }
        return Ok(());
    }

    // Two-address forms.
    let two: Option<(u32, u64, bool)> = match inst.op {
        // (element bytes, offset scale, store)
        DsRead2B32 => Some((4, 4, false)),
        DsRead2st64B32 => Some((4, 256, false)),
        DsRead2B64 => Some((8, 8, false)),
        DsRead2st64B64 => Some((8, 512, false)),
        DsWrite2B32 => Some((4, 4, true)),
        DsWrite2st64B32 => Some((4, 256, true)),
        DsWrite2B64 => Some((8, 8, true)),
        DsWrite2st64B64 => Some((8, 512, true)),
        _ => None,
    };
    if let Some((bytes, scale, store)) = two {
        let dw = (bytes / 4) as usize;
        for &lane in &active {
            let base = addr_of(cx, lane)?;
            let addrs = [
                base + f.offset01[0] as u64 * scale,
                base + f.offset01[1] as u64 * scale,
            ];
            for (k, &a) in addrs.iter().enumerate() {
                if !lds_aligned(a, bytes) {
                    return Err(misaligned(a));
                }
                for i in 0..dw {
                    if store {
                        let role = if k == 0 { Role::Vdata } else { Role::Vdata1 };
                        let v = cx.wave.vget(vreg(inst, role, pc)? + i, lane);
                        cx.lds.write(a + 4 * i as u64, 4, v as u64);
                    } else {
                        let v = cx.lds.read(a + 4 * i as u64, 4) as u32;
                        cx.wave
                            .vset(vreg(inst, Role::Vdst, pc)? + k * dw + i, lane, v);
                    }
                }
            }
        }
        return Ok(());
    }

    // Two-address exchanges: every lane's first exchange (data0 at offset0) happens before any lane's second
    // (data1 at offset1), lanes in ascending order within each (rules `ds.wrxchg2_order`, measured, and
    // `lds.atomic_lane_order`); each lane gets the two old values. Operands are read before anything is written.
    let xchg2: Option<(u32, u64)> = match inst.op {
        DsWrxchg2RtnB32 => Some((4, 4)),
        DsWrxchg2st64RtnB32 => Some((4, 256)),
        DsWrxchg2RtnB64 => Some((8, 8)),
        DsWrxchg2st64RtnB64 => Some((8, 512)),
        _ => None,
    };
    if let Some((bytes, scale)) = xchg2 {
        let dw = (bytes / 4) as usize;
        let dst = vreg(inst, Role::Vdst, pc)?;
        let data = [vreg(inst, Role::Vdata, pc)?, vreg(inst, Role::Vdata1, pc)?];
        // (lane, address of exchange k, data dwords of exchange k)
        let mut ops: Vec<(usize, [u64; 2], [[u32; 2]; 2])> = Vec::with_capacity(active.len());
        for &lane in &active {
            let base = addr_of(cx, lane)?;
            let mut at = [0u64; 2];
            let mut d = [[0u32; 2]; 2];
            for k in 0..2 {
                at[k] = base + f.offset01[k] as u64 * scale;
                if !lds_aligned(at[k], bytes) {
                    return Err(misaligned(at[k]));
                }
                for (i, x) in d[k].iter_mut().enumerate().take(dw) {
                    *x = cx.wave.vget(data[k] + i, lane);
                }
            }
            ops.push((lane, at, d));
        }
        let mut old = vec![[[0u32; 2]; 2]; ops.len()];
        for k in 0..2 {
            for (j, (_, at, d)) in ops.iter().enumerate() {
                for i in 0..dw {
                    let a = at[k] + 4 * i as u64;
                    old[j][k][i] = cx.lds.read(a, 4) as u32;
                    cx.lds.write(a, 4, d[k][i] as u64);
                }
            }
        }
        for ((lane, _, _), o) in ops.iter().zip(&old) {
            for (k, ok) in o.iter().enumerate() {
                for (i, v) in ok.iter().enumerate().take(dw) {
                    cx.wave.vset(dst + k * dw + i, *lane, *v);
                }
            }
        }
        return Ok(());
    }

    // Lane-indexed transfers: the address is offset + M0[15:0] + 4 * lane, the ADDR field unused (rule
    // `ds.addtid`).
    if matches!(inst.op, DsWriteAddtidB32 | DsReadAddtidB32) {
        let m0 = (cx.wave.s[super::state::sreg::M0] & 0xffff) as u64;
        for &lane in &active {
            let a = offset + m0 + 4 * lane as u64;
            if !lds_aligned(a, 4) {
                return Err(misaligned(a));
            }
            if inst.op == DsWriteAddtidB32 {
                let v = cx.wave.vget(vreg(inst, Role::Vdata, pc)?, lane);
                cx.lds.write(a, 4, v as u64);
            } else {
                let v = cx.lds.read(a, 4) as u32;
                cx.wave.vset(vreg(inst, Role::Vdst, pc)?, lane, v);
            }
        }
        return Ok(());
    }

    // Wave-level counters: one read-modify-write of the dword at the instruction offset by the number of
    // active lanes; every active lane gets the old value (rule `ds.append_consume`).
    if matches!(inst.op, DsAppend | DsConsume) {
        if !lds_aligned(offset, 4) {
            return Err(misaligned(offset));
        }
        let n = active.len() as u32;
        let old = cx.lds.read(offset, 4) as u32;
        let new = if inst.op == DsAppend {
            old.wrapping_add(n)
        } else {
            old.wrapping_sub(n)
        };
        if cx.lds.in_range(offset, 4) {
            cx.lds.write(offset, 4, new as u64);
        }
        let dst = vreg(inst, Role::Vdst, pc)?;
        for &lane in &active {
            cx.wave.vset(dst, lane, old);
        }
        return Ok(());
    }

    // The src2 forms (gfx1013 only; LLVM 19 drops them from gfx10.3): DS[A] = DS[A] op DS[B] with A the
    // address VGPR and B = A + 4 * stride, the 16-bit stride taken from {A[31], A[31:17]} when offset bit 15 is
    // set and from {offset[14], offset[14:0]} otherwise (rule `ds.src2`).
    if facts.src2 {
        let bytes: usize = if facts.wide { 8 } else { 4 };
        for &lane in &active {
            let addr = addr_of(cx, lane)?;
            // With the stride in A's high bits only A[16:0] addresses LDS (inferred, as CLRX documents).
            let a = if offset & 0x8000 != 0 {
                addr & 0x1ffff
            } else {
                addr
            };
            let stride = if offset & 0x8000 != 0 {
                (addr >> 17 & 0x7fff) | (addr >> 16 & 0x8000)
            } else {
                (offset & 0x7fff) | (offset << 1 & 0x8000)
            };
            let b = a + 4 * stride;
            // Atomics: a 64-bit one needs 8-byte alignment (seed 000, measured for the 64-bit LDS atomics).
            for x in [a, b] {
                if x % bytes as u64 != 0 {
                    return Err(misaligned(x));
                }
            }
            let (old, src) = (cx.lds.read(a, bytes), cx.lds.read(b, bytes));
            let new = atomic(inst.op, bytes == 8, old, src, 0, mode)
                .ok_or_else(|| unsupported(inst, pc, "src2 operation not modelled"))?;
            if cx.lds.in_range(a, bytes) {
                cx.lds.write(a, bytes, new);
            }
        }
        return Ok(());
    }
    if inst.op == DsCondxchg32RtnB64 {
        return Err(unsupported(
            inst,
            pc,
            "ds_condxchg32_rtn_b64 has no documented definition for RDNA",
        ));
    }

    // Atomics, applied lane by lane in ascending lane order (rule lds.atomic_lane_order, inferred).
    let is64 = facts.wide;
    let has_d1 = matches!(
        inst.op,
        DsMskorB32
            | DsMskorRtnB32
            | DsCmpstB32
            | DsCmpstRtnB32
            | DsCmpstF32
            | DsCmpstRtnF32
            | DsWrapRtnB32
            | DsMskorB64
            | DsMskorRtnB64
            | DsCmpstB64
            | DsCmpstRtnB64
            | DsCmpstF64
            | DsCmpstRtnF64
    );
    let rtn = returns(facts, false);
    if atomic(inst.op, is64, 0, 0, 0, mode).is_none() {
        return Err(unsupported(inst, pc, "LDS instruction not modelled yet"));
    }
    for &lane in &active {
        let a = addr_of(cx, lane)? + offset;
        let bytes = if is64 { 8 } else { 4 };
        if a % bytes != 0 {
            return Err(misaligned(a));
        }
        let d0r = vreg(inst, Role::Vdata, pc)?;
        let d1r = if has_d1 {
            Some(vreg(inst, Role::Vdata1, pc)?)
        } else {
            None
        };
        if is64 {
            let rd = |cx: &Ctx, r: usize| {
                cx.wave.vget(r, lane) as u64 | (cx.wave.vget(r + 1, lane) as u64) << 32
            };
            let d0 = rd(cx, d0r);
            let d1 = d1r.map_or(0, |r| rd(cx, r));
            let in_range = cx.lds.in_range(a, 8);
            let old = cx.lds.read(a, 8);
            let new = atomic64(inst.op, old, d0, d1, mode).unwrap_or(old);
            if in_range {
                cx.lds.write(a, 8, new);
            }
            if rtn {
                let dst = vreg(inst, Role::Vdst, pc)?;
                cx.wave.vset(dst, lane, old as u32);
                cx.wave.vset(dst + 1, lane, (old >> 32) as u32);
            }
        } else {
            let d0 = cx.wave.vget(d0r, lane);
            let d1 = d1r.map_or(0, |r| cx.wave.vget(r, lane));
            let in_range = cx.lds.in_range(a, 4);
            let old = cx.lds.read(a, 4) as u32;
            let new = atomic32(inst.op, old, d0, d1, mode).unwrap_or(old);
            if in_range {
                cx.lds.write(a, 4, new as u64);
            }
            if rtn {
                cx.wave.vset(vreg(inst, Role::Vdst, pc)?, lane, old);
            }
        }
    }
    Ok(())
}

/// The source lane of ds_swizzle_b32 for lane `i` (RDNA 2 guide, DS_SWIZZLE_B32 pseudo-code: FFT, rotate,
/// quad-permute and bit-mask modes; rule `ds.swizzle_modes`).
fn swizzle_lane(off: usize, i: usize) -> usize {
    let group = i & 0x20;
    if off >= 0xe000 {
        let mask = off & 0x1f;
        let mut j = ((i & 0x1f) as u32).reverse_bits() as usize >> 27;
        j >>= (mask as u32).count_ones();
        (j | (i & mask)) & 0x1f | group
    } else if off >= 0xc000 {
        let mask = off & 0x1f;
        let mut rot = (off >> 5) & 0x1f;
        if off >> 10 & 1 == 1 {
            rot = (32 - rot) & 0x1f;
        }
        ((i & mask) | ((i + rot) & !mask)) & 0x1f | group
    } else if off & 0x8000 != 0 {
        (i & !3) | (off >> (2 * (i & 3)) & 3)
    } else {
        let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
        (((i & 0x1f) & and) | or) ^ xor | group
    }
}

/// `atomic32` or `atomic64` by width: the new memory value, None where the operation is not modelled.
fn atomic(op: Op, wide: bool, old: u64, d0: u64, d1: u64, mode: crate::float::Mode) -> Option<u64> {
    if wide {
        atomic64(op, old, d0, d1, mode)
    } else {
        atomic32(op, old as u32, d0 as u32, d1 as u32, mode).map(u64::from)
    }
}

/// A buffer, global, flat or scalar atomic as one instruction applies it, worked out once per instruction:
/// 64-bit for the `_x2` forms, compare data after the source data for the compare-swaps.
struct MemAtomic {
    op: Op,
    wide: bool,
    cmpswap: bool,
    mode: crate::float::Mode,
}

impl MemAtomic {
    fn new(cx: &Ctx, op: Op) -> MemAtomic {
        let facts = MemFacts::of(op);
        MemAtomic {
            op,
            wide: facts.wide,
            cmpswap: facts.cmpswap,
            mode: crate::float::Mode::from_hwreg(cx.wave.mode),
        }
    }

    /// Dwords of one operand (the source data, the compare data, the memory element).
    fn dwords(&self) -> usize {
        1 + self.wide as usize
    }

    /// Reads the element at `address`, writes the updated value back and returns the old one. `None` is a
    /// buffer element past NUM_RECORDS: it reads 0 and nothing is written (rule `buffer.range_check`).
    fn update(
        &self,
        cx: &mut Ctx,
        inst: &Instruction,
        pc: usize,
        address: Option<u64>,
        (d0, d1): (u64, u64),
    ) -> Result<u64, BackendError> {
        let mut old = 0;
        if let Some(a) = address {
            for i in 0..self.dwords() as u64 {
                old |= (cx.mem.read_u32(a + 4 * i).map_err(|e| fault(e, pc, inst))? as u64)
                    << (32 * i);
            }
        }
        let new = atomic(self.op, self.wide, old, d0, d1, self.mode)
            .ok_or_else(|| unsupported(inst, pc, "atomic operation not modelled"))?;
        if let Some(a) = address {
            for i in 0..self.dwords() as u64 {
                cx.mem
                    .write_u32(a + 4 * i, (new >> (32 * i)) as u32)
                    .map_err(|e| fault(e, pc, inst))?;
            }
        }
        Ok(old)
    }

    /// The data (and compare data) starting at `first`, read by `reg`.
    fn operands(&self, first: usize, reg: impl Fn(usize) -> u32) -> (u64, u64) {
        let get =
            |r: usize| (0..self.dwords()).fold(0u64, |v, i| v | (reg(r + i) as u64) << (32 * i));
        let d1 = if self.cmpswap {
            get(first + self.dwords())
        } else {
            0
        };
        (get(first), d1)
    }

    /// One lane of a vector atomic: data from VGPR `data`, the old value to `rtn` when GLC asks for it.
    fn lane(
        &self,
        cx: &mut Ctx,
        (inst, pc): (&Instruction, usize),
        lane: usize,
        address: Option<u64>,
        data: usize,
        rtn: Option<usize>,
    ) -> Result<(), BackendError> {
        let d = self.operands(data, |r| cx.wave.vget(r, lane));
        let old = self.update(cx, inst, pc, address, d)?;
        if let Some(r) = rtn {
            for i in 0..self.dwords() {
                cx.wave.vset(r + i, lane, (old >> (32 * i)) as u32);
            }
        }
        Ok(())
    }
}

/// The plain LDS reads and writes (`ds_read_*`, `ds_write_*`, their d16 forms): (bytes, store, sign-extending
/// load). Other DS operations: `None`. The recompiler translates the same set from this table.
pub fn ds_plain_access(op: Op) -> Option<(u32, bool, bool)> {
    use Op::*;
    match op {
        DsReadU8 | DsReadU8D16 | DsReadU8D16Hi => Some((1, false, false)),
        DsReadI8 | DsReadI8D16 | DsReadI8D16Hi => Some((1, false, true)),
        DsReadU16 | DsReadU16D16 | DsReadU16D16Hi => Some((2, false, false)),
        DsReadI16 => Some((2, false, true)),
        DsReadB32 => Some((4, false, false)),
        DsReadB64 => Some((8, false, false)),
        DsReadB96 => Some((12, false, false)),
        DsReadB128 => Some((16, false, false)),
        DsWriteB8 | DsWriteB8D16Hi => Some((1, true, false)),
        DsWriteB16 | DsWriteB16D16Hi => Some((2, true, false)),
        DsWriteB32 => Some((4, true, false)),
        DsWriteB64 => Some((8, true, false)),
        DsWriteB96 => Some((12, true, false)),
        DsWriteB128 => Some((16, true, false)),
        _ => None,
    }
}
