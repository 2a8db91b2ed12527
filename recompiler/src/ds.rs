//! LDS instructions (the DS encoding) as `reference_model::exec::mem_ops` runs them: addresses are the
//! ADDR VGPR plus the instruction offset; accesses of 4 bytes or more need dword alignment and 2-byte ones
//! 2-byte alignment, else the wave faults (rules lds.misaligned_fault, lds.misaligned_fault.widths);
//! accesses past the allocation read 0 and write nothing (rule lds.out_of_range); writes and atomics go
//! lane by lane in ascending order (rule lds.atomic_lane_order) through the units, the two-address
//! exchanges all first exchanges before any second (rule ds.wrxchg2_order). The cross-lane operations
//! (swizzle, permute, bpermute) exchange through workgroup memory.

use crate::compile::{refusal, Cx, Done};
use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::sem::atomic::{rmw_of, Rmw};
use crate::spv::Sv;
use crate::units::{self, SKIP, SPACE_LDS};
use crate::{layout, Refusal};
use reference_model::isa::{Control, Instruction, Op, Operand, Role};

fn vreg(inst: &Instruction, role: Role, pc: usize) -> Result<u32, Refusal> {
    match inst.operand(role) {
        Some(Operand::Vgpr { first, .. }) => Ok(first as u32),
        other => Err(refusal(
            inst,
            pc,
            format!("{role:?} is {other:?}, not a VGPR"),
        )),
    }
}

/// The placed LDS offset of the `bytes` at LDS address `a` (u64) when `go`: [`SKIP`] when inactive or past
/// the allocation; a misaligned active access (alignment `align`) faults the wave.
fn place(cx: &mut Cx, a: Sv, bytes: u32, align: u32, go: Sv, pc: usize) -> Sv {
    let size = cx.shape.lds_bytes as u64;
    let e = &mut cx.e;
    let mis = e.bink(Bin::And, a, (align - 1) as u64);
    let mis = e.nz(mis);
    let bad = e.band(mis, go);
    let end = e.bink(Bin::Add, a, bytes as u64);
    let lim = e.k64(size);
    let inside = e.cmp(Cmp::ULe, end, lim);
    let pcv = e.k32(pc as u32);
    let lo = e.trunc(a);
    let hi = e.hi(a);
    cx.report_if(bad, layout::LDS_FAULT, pcv, lo, hi);
    let e = &mut cx.e;
    let ok = e.band(go, inside);
    let skip = e.k32(SKIP);
    e.select(ok, lo, skip)
}

/// The model's alignment for an access of `bytes`: the access size up to a dword.
fn align_of(bytes: u32) -> u32 {
    bytes.min(4)
}

/// The lane's LDS address: the ADDR VGPR plus `extra` (u64, so it cannot wrap).
fn address(cx: &mut Cx, inst: &Instruction, pc: usize, extra: u64) -> Result<Sv, Refusal> {
    let r = vreg(inst, Role::Vaddr, pc)?;
    let v = cx.vget(r);
    let v = cx.e.zext(v);
    Ok(cx.e.bink(Bin::Add, v, extra))
}

/// Translates a DS instruction.
pub(crate) fn ds(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use Op::*;
    let f = match inst.control {
        Control::Mem(f) => f,
        _ => Default::default(),
    };
    if f.gds {
        return Err(refusal(inst, pc, "GDS is not modelled"));
    }
    let op = inst.op;
    if op == DsNop {
        return Ok(Done::Next);
    }
    let name = op.mnemonic();
    let offset = f.offset01[0] as u64 | (f.offset01[1] as u64) << 8;
    let active = cx.active();

    if matches!(op, DsSwizzleB32 | DsPermuteB32 | DsBpermuteB32) {
        return cross_lane(cx, inst, pc, offset);
    }

    // Plain reads and writes: (bytes, store, signed).
    let rw = reference_model::exec::ds_plain_access(op);
    if let Some((bytes, store, signed)) = rw {
        let hi = name.ends_with("_d16_hi");
        let d16 = name.contains("_d16");
        let a = address(cx, inst, pc, offset)?;
        let elem = bytes.min(4);
        // One alignment check for the whole access, as the model's.
        let dwords = bytes.div_ceil(4);
        let ats: Vec<Sv> = (0..dwords)
            .map(|i| {
                let ai = cx.e.bink(Bin::Add, a, 4 * i as u64);
                // The model checks the first address only; the others are dword-aligned with it.
                place(
                    cx,
                    ai,
                    elem,
                    if i == 0 { align_of(bytes) } else { 1 },
                    active,
                    pc,
                )
            })
            .collect();
        if store {
            let data = vreg(inst, Role::Vdata, pc)?;
            let pieces: Vec<(Sv, Sv)> = ats
                .iter()
                .enumerate()
                .map(|(i, &at)| {
                    let v = cx.vget(data + i as u32);
                    let v = if hi { cx.e.bink(Bin::LShr, v, 16) } else { v };
                    (at, v)
                })
                .collect();
            units::store(cx, SPACE_LDS, &pieces, elem);
        } else {
            let dst = vreg(inst, Role::Vdst, pc)?;
            for (i, &at) in ats.iter().enumerate() {
                let raw = units::read_at(cx, SPACE_LDS, at, elem);
                let v = if d16 {
                    let v = match (bytes, signed) {
                        (1, true) => {
                            let x = cx.e.sext_in(raw, 8);
                            cx.e.bink(Bin::And, x, 0xffff)
                        }
                        _ => raw,
                    };
                    let old = cx.vget(dst);
                    let e = &mut cx.e;
                    if hi {
                        let kept = e.bink(Bin::And, old, 0xffff);
                        let up = e.bink(Bin::Shl, v, 16);
                        e.bin(Bin::Or, kept, up)
                    } else {
                        let kept = e.bink(Bin::And, old, 0xffff_0000);
                        e.bin(Bin::Or, kept, v)
                    }
                } else if signed {
                    cx.e.sext_in(raw, 8 * bytes)
                } else {
                    raw
                };
                cx.vset_if(dst + i as u32, v, active);
            }
        }
        return Ok(Done::Next);
    }

    // Two-address forms: (element bytes, offset scale, store).
    let two: Option<(u32, u64, bool)> = match op {
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
        let dw = bytes / 4;
        let mut pieces = Vec::new();
        for k in 0..2 {
            let a = address(cx, inst, pc, f.offset01[k] as u64 * scale)?;
            for i in 0..dw {
                let ai = cx.e.bink(Bin::Add, a, 4 * i as u64);
                let at = place(cx, ai, 4, if i == 0 { 4 } else { 1 }, active, pc);
                pieces.push((k, i, at));
            }
        }
        if store {
            let d = [vreg(inst, Role::Vdata, pc)?, vreg(inst, Role::Vdata1, pc)?];
            let pieces: Vec<(Sv, Sv)> = pieces
                .into_iter()
                .map(|(k, i, at)| (at, cx.vget(d[k] + i)))
                .collect();
            units::store(cx, SPACE_LDS, &pieces, 4);
        } else {
            let dst = vreg(inst, Role::Vdst, pc)?;
            let vals: Vec<(u32, Sv)> = pieces
                .into_iter()
                .map(|(k, i, at)| (k as u32 * dw + i, units::read_at(cx, SPACE_LDS, at, 4)))
                .collect();
            for (r, v) in vals {
                cx.vset_if(dst + r, v, active);
            }
        }
        return Ok(Done::Next);
    }

    // Lane-indexed transfers: offset + M0[15:0] + 4 * lane (rule ds.addtid).
    if matches!(op, DsWriteAddtidB32 | DsReadAddtidB32) {
        let m0 = cx.sget(crate::compile::sreg::M0);
        let e = &mut cx.e;
        let m0 = e.bink(Bin::And, m0, 0xffff);
        let l4 = e.bink(Bin::Mul, cx.lane, 4);
        let a = e.bin(Bin::Add, m0, l4);
        let a = e.zext(a);
        let a = e.bink(Bin::Add, a, offset);
        let at = place(cx, a, 4, 4, active, pc);
        if op == DsWriteAddtidB32 {
            let v = cx.vget(vreg(inst, Role::Vdata, pc)?);
            units::store(cx, SPACE_LDS, &[(at, v)], 4);
        } else {
            let v = units::read_at(cx, SPACE_LDS, at, 4);
            cx.vset_if(vreg(inst, Role::Vdst, pc)?, v, active);
        }
        return Ok(Done::Next);
    }

    // The two-address exchanges.
    let xchg2: Option<(u32, u64)> = match op {
        DsWrxchg2RtnB32 => Some((4, 4)),
        DsWrxchg2st64RtnB32 => Some((4, 256)),
        DsWrxchg2RtnB64 => Some((8, 8)),
        DsWrxchg2st64RtnB64 => Some((8, 512)),
        _ => None,
    };
    if let Some((bytes, scale)) = xchg2 {
        let wide = bytes == 8;
        let dst = vreg(inst, Role::Vdst, pc)?;
        let data = [vreg(inst, Role::Vdata, pc)?, vreg(inst, Role::Vdata1, pc)?];
        let mut pieces = Vec::new();
        for (k, &d) in data.iter().enumerate() {
            let a = address(cx, inst, pc, f.offset01[k] as u64 * scale)?;
            let at = place(cx, a, bytes, 4, active, pc);
            if wide {
                // The model exchanges dword by dword: an element half inside the allocation exchanges its first
                // dword only. The unit exchanges whole elements, so that case is refused when it happens.
                let first = place(cx, a, 4, 4, active, pc);
                let skip = cx.e.k32(SKIP);
                let lo_in = cx.e.cmp(Cmp::Ne, first, skip);
                let all_in = cx.e.cmp(Cmp::Ne, at, skip);
                let whole = cx.e.bnot(all_in);
                let partial = cx.e.band(lo_in, whole);
                let pcv = cx.e.k32(pc as u32);
                let z = cx.e.k32(0);
                let why = cx.e.k32(layout::PARTIAL_LDS);
                cx.report_if(partial, layout::UNSUPPORTED, pcv, z, why);
            }
            let v = read64(cx, d, wide);
            let z = cx.e.k64(0);
            pieces.push((at, v, z));
        }
        let old = units::rmw(cx, SPACE_LDS, Rmw::Swap, wide, &pieces);
        let active = cx.active();
        let dw = bytes / 4;
        for (k, o) in old.into_iter().enumerate() {
            write_old(cx, dst + k as u32 * dw, o, wide, active);
        }
        return Ok(Done::Next);
    }

    // Wave-level counters: one read-modify-write of the dword at the offset by the number of active lanes;
    // every active lane gets the old value (rule ds.append_consume).
    if matches!(op, DsAppend | DsConsume) {
        if offset % 4 != 0 {
            // Every lane faults the same way, active or not (the model checks the offset alone).
            let yes = cx.e.kbool(true);
            let pcv = cx.e.k32(pc as u32);
            let lo = cx.e.k32(offset as u32);
            let z = cx.e.k32(0);
            cx.report_if(yes, layout::LDS_FAULT, pcv, lo, z);
            return Ok(Done::Next);
        }
        let exec = cx.exec();
        let n = cx.e.un(crate::lower::Un::BitCount, exec);
        let n = cx.e.trunc(n);
        let n = if op == DsAppend {
            n
        } else {
            let z = cx.e.k32(0);
            cx.e.bin(Bin::Sub, z, n)
        };
        // One lane applies it (as an add of the signed count) with the others' pieces skipped; every
        // active lane takes the old value, which lane 0's piece returns.
        let a = cx.e.k64(offset);
        let yes = cx.e.kbool(true);
        let lane0 = cx.e.k32(0);
        let first = cx.e.cmp(Cmp::Eq, cx.lane, lane0);
        let at = place(cx, a, 4, 4, yes, pc);
        let skip = cx.e.k32(SKIP);
        let at = cx.e.select(first, at, skip);
        let n64 = cx.e.zext(n);
        let z = cx.e.k64(0);
        let old = units::rmw(cx, SPACE_LDS, Rmw::Add, false, &[(at, n64, z)]);
        let o = cx.e.trunc(old[0]);
        cx.publish(0, o);
        cx.cut();
        let l0 = cx.e.k32(0);
        let v = cx.fetch(l0, 0);
        cx.next_slot();
        let active = cx.active();
        let dst = vreg(inst, Role::Vdst, pc)?;
        cx.vset_if(dst, v, active);
        return Ok(Done::Next);
    }

    if name.contains("_src2_") {
        return Err(refusal(
            inst,
            pc,
            "the src2 LDS forms are not translated yet",
        ));
    }
    if op == DsCondxchg32RtnB64 {
        return Err(refusal(
            inst,
            pc,
            "ds_condxchg32_rtn_b64 has no documented definition for RDNA",
        ));
    }

    // Atomics, lane by lane in ascending order.
    let Some(rmw_op) = rmw_of(op) else {
        return Err(refusal(inst, pc, "this LDS operation is not translated"));
    };
    let wide = name.ends_with("64");
    let bytes = if wide { 8 } else { 4 };
    let has_d1 = matches!(
        rmw_op,
        Rmw::Mskor | Rmw::CmpSt | Rmw::FCmpSt | Rmw::FCmpSt64 | Rmw::Wrap
    );
    let a = address(cx, inst, pc, offset)?;
    // Atomics need natural alignment (seed 000, measured for the 64-bit LDS atomics).
    let at = place(cx, a, bytes, bytes, active, pc);
    let d0 = read64(cx, vreg(inst, Role::Vdata, pc)?, wide);
    let d1 = if has_d1 {
        read64(cx, vreg(inst, Role::Vdata1, pc)?, wide)
    } else {
        cx.e.k64(0)
    };
    let old = units::rmw(cx, SPACE_LDS, rmw_op, wide, &[(at, d0, d1)]);
    if name.contains("_rtn_") {
        let active = cx.active();
        let dst = vreg(inst, Role::Vdst, pc)?;
        write_old(cx, dst, old[0], wide, active);
    }
    Ok(Done::Next)
}

/// VGPR `r` (and `r + 1` when `wide`) as a 64-bit value.
pub(crate) fn read64(cx: &mut Cx, r: u32, wide: bool) -> Sv {
    let lo = cx.vget(r);
    if wide {
        let hi = cx.vget(r + 1);
        cx.e.pack(lo, hi)
    } else {
        cx.e.zext(lo)
    }
}

/// Writes an old value to VGPR `r` (and `r + 1` when `wide`) in the lanes `active`.
pub(crate) fn write_old(cx: &mut Cx, r: u32, v: Sv, wide: bool, active: Sv) {
    let lo = cx.e.trunc(v);
    cx.vset_if(r, lo, active);
    if wide {
        let hi = cx.e.hi(v);
        cx.vset_if(r + 1, hi, active);
    }
}

/// ds_swizzle_b32, ds_permute_b32, ds_bpermute_b32: lanes exchange a VGPR through workgroup memory.
fn cross_lane(cx: &mut Cx, inst: &Instruction, pc: usize, offset: u64) -> Result<Done, Refusal> {
    let op = inst.op;
    // ds_swizzle's data is LLVM's address operand; the permutes take an address and data.
    let data = vreg(
        inst,
        if op == Op::DsSwizzleB32 {
            Role::Vaddr
        } else {
            Role::Vdata
        },
        pc,
    )?;
    let dst = vreg(inst, Role::Vdst, pc)?;
    let lanes = cx.shape.wave;
    let v = cx.vget(data);
    cx.publish(0, v);
    let exec = cx.exec();
    let me = cx.lane_bit(exec);
    let a = if op == Op::DsSwizzleB32 {
        cx.e.k32(0)
    } else {
        let r = vreg(inst, Role::Vaddr, pc)?;
        let x = cx.vget(r);
        let x = cx.e.zext(x);
        let x = cx.e.bink(Bin::Add, x, offset);
        let x = cx.e.bink(Bin::LShr, x, 2);
        let x = cx.e.trunc(x);
        cx.e.bink(Bin::And, x, (lanes - 1) as u64)
    };
    // The permute's target lane, and whether this lane takes part.
    cx.publish(1, a);
    let on = cx.e.b2i(me, Ty::I32);
    cx.publish(2, on);
    cx.cut();
    let exec = cx.exec();
    let active = cx.active();
    let lane = cx.lane;
    let valid = |cx: &mut Cx, j: Sv| {
        let k = cx.e.k32(lanes);
        let inside = cx.e.cmp(Cmp::ULt, j, k);
        let z = cx.e.k32(0);
        let safe = cx.e.select(inside, j, z);
        let j64 = cx.e.zext(safe);
        let b = cx.e.bin(Bin::LShr, exec, j64);
        let b = cx.e.bink(Bin::And, b, 1);
        let on = cx.e.nz(b);
        (cx.e.band(inside, on), safe)
    };
    let out = match op {
        Op::DsSwizzleB32 => {
            let j = swizzle_lane(cx, offset as u32, lane);
            let (ok, j) = valid(cx, j);
            let got = cx.fetch(j, 0);
            let z = cx.e.k32(0);
            cx.e.select(ok, got, z)
        }
        Op::DsBpermuteB32 => {
            let j = cx.fetch(lane, 1);
            let (ok, j) = valid(cx, j);
            let got = cx.fetch(j, 0);
            let z = cx.e.k32(0);
            cx.e.select(ok, got, z)
        }
        _ => {
            // ds_permute: out[to] = src[i] for the active lanes i in ascending order: the last writer wins,
            // and a lane nobody writes reads 0.
            let mut r = cx.e.k32(0);
            for i in 0..lanes {
                let iv = cx.e.k32(i);
                let on = cx.fetch(iv, 2);
                let on = cx.e.nz(on);
                let to = cx.fetch(iv, 1);
                let hit = cx.e.cmp(Cmp::Eq, to, lane);
                let take = cx.e.band(on, hit);
                let v = cx.fetch(iv, 0);
                r = cx.e.select(take, v, r);
            }
            r
        }
    };
    cx.next_slot();
    cx.vset_if(dst, out, active);
    Ok(Done::Next)
}

/// The source lane of ds_swizzle_b32 for lane `i` (RDNA 2 guide, DS_SWIZZLE_B32 pseudo-code; rule
/// ds.swizzle_modes), as the model's `swizzle_lane` with the offset a constant.
fn swizzle_lane(cx: &mut Cx, off: u32, i: Sv) -> Sv {
    let e = &mut cx.e;
    let group = e.bink(Bin::And, i, 0x20);
    let l5 = e.bink(Bin::And, i, 0x1f);
    let j = if off >= 0xe000 {
        let mask = off & 0x1f;
        let r = e.un(crate::lower::Un::BitRev, l5);
        let r = e.bink(Bin::LShr, r, 27);
        let r = e.bink(Bin::LShr, r, mask.count_ones() as u64);
        let m = e.bink(Bin::And, i, mask as u64);
        let j = e.bin(Bin::Or, r, m);
        e.bink(Bin::And, j, 0x1f)
    } else if off >= 0xc000 {
        let mask = off & 0x1f;
        let mut rot = (off >> 5) & 0x1f;
        if off >> 10 & 1 == 1 {
            rot = (32 - rot) & 0x1f;
        }
        let a = e.bink(Bin::And, i, mask as u64);
        let b = e.bink(Bin::Add, i, rot as u64);
        let b = e.bink(Bin::And, b, !mask as u64 & 0xffff_ffff);
        let j = e.bin(Bin::Or, a, b);
        e.bink(Bin::And, j, 0x1f)
    } else if off & 0x8000 != 0 {
        // Quad permute: within each group of four, from (off >> 2 * (i & 3)) & 3.
        let q = e.bink(Bin::And, i, 3);
        let sh = e.bink(Bin::Mul, q, 2);
        let k = e.k32(off);
        let s = e.bin(Bin::LShr, k, sh);
        let s = e.bink(Bin::And, s, 3);
        let base = e.bink(Bin::And, i, !3u32 as u64);
        // The quad mode keeps the lane's group of 32 through i's own high bits.
        return e.bin(Bin::Or, base, s);
    } else {
        let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
        let a = e.bink(Bin::And, l5, and as u64);
        let o = e.bink(Bin::Or, a, or as u64);
        e.bink(Bin::Xor, o, xor as u64)
    };
    e.bin(Bin::Or, j, group)
}
