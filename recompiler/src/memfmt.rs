//! Format loads and stores (`buffer_*_format_*`, `tbuffer_*_format_*`, their d16 forms) and the plain d16
//! buffer and global accesses (`*_load_{u,s}byte_d16[_hi]`, `*_load_short_d16[_hi]`,
//! `*_store_{byte,short}_d16_hi`), as `reference_model::exec::mem_ops` runs them. The conversions are
//! [`crate::format`]'s; this module reads the V#, checks what the model refuses, addresses the element and
//! moves the registers.

use crate::compile::Cx;
use crate::format;
use crate::layout;
use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::spv::{Emit, Sv};
use crate::translate::BufferAccess;
use crate::units::{self, Helper};
use reference_model::isa::Op;

/// A format instruction: a store or a load, its component count, d16 (two 16-bit values per VGPR) and the
/// d16_hi form (one value in the high half), and whether the format comes from the instruction (MTBUF).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormatOp {
    pub store: bool,
    pub n: u32,
    pub d16: bool,
    pub hi: bool,
    pub typed: bool,
}

/// The format instruction `op` is, read from its mnemonic as the model reads it.
pub(crate) fn format_op(op: Op) -> Option<FormatOp> {
    let m = op.mnemonic();
    let typed = m.starts_with("tbuffer_");
    let rest = m.strip_prefix("tbuffer_").or(m.strip_prefix("buffer_"))?;
    let store = if rest.starts_with("load_format") {
        false
    } else if rest.starts_with("store_format") {
        true
    } else {
        return None;
    };
    let n = match m.rsplit('_').next() {
        Some("x") => 1,
        Some("xy") => 2,
        Some("xyz") => 3,
        _ => 4,
    };
    Some(FormatOp {
        store,
        n,
        d16: m.contains("d16"),
        hi: m.contains("d16_hi"),
        typed,
    })
}

/// A plain d16 access: bytes (1 or 2), sign-extending (the sbyte loads, to 16 bits), the high half, a
/// store.
#[derive(Clone, Copy, Debug)]
pub(crate) struct D16 {
    pub bytes: u32,
    pub signed: bool,
    pub hi: bool,
    pub store: bool,
}

/// The plain d16 buffer or global access `op` is.
pub(crate) fn d16_plain(op: Op) -> Option<D16> {
    let m = op.mnemonic();
    let tail = m.strip_prefix("buffer_").or(m.strip_prefix("global_"))?;
    let (store, what) = match tail.split_once('_')? {
        ("load", w) => (false, w),
        ("store", w) => (true, w),
        _ => return None,
    };
    let hi = what.ends_with("_d16_hi");
    let base = what.strip_suffix("_d16_hi").or(what.strip_suffix("_d16"))?;
    let (bytes, signed) = match (store, base) {
        (false, "ubyte") => (1, false),
        (false, "sbyte") => (1, true),
        (false, "short") => (2, false),
        (true, "byte") => (1, false),
        (true, "short") => (2, false),
        _ => return None,
    };
    Some(D16 {
        bytes,
        signed,
        hi,
        store,
    })
}

/// A plain d16 access of the lane's bytes at `addr` when `go` (active and, for buffers, in range): a load
/// extends them to 16 bits (sbyte sign-extends) and writes the low or high half of VGPR `reg`, keeping the
/// other (a lane that does not go reads 0); a store writes the low bytes of the register's high half.
pub(crate) fn d16_access(cx: &mut Cx, d: D16, (addr, go): (Sv, Sv), reg: u32, pc: usize) {
    if d.store {
        let at = units::place_all(cx, &[(addr, go)], d.bytes, pc)[0];
        let v = cx.vget(reg);
        let v = cx.e.bink(Bin::LShr, v, 16);
        units::store(cx, units::SPACE_MEM, &[(at, v)], d.bytes);
        return;
    }
    let v = units::load(cx, &[(addr, go)], d.bytes, pc)[0];
    let e = &mut cx.e;
    let v = if d.signed {
        let s = e.sext_in(v, 8);
        e.bink(Bin::And, s, 0xffff)
    } else {
        v
    };
    let old = cx.vget(reg);
    let e = &mut cx.e;
    let new = if d.hi {
        let kept = e.bink(Bin::And, old, 0xffff);
        let h = e.bink(Bin::Shl, v, 16);
        e.bin(Bin::Or, kept, h)
    } else {
        let kept = e.bink(Bin::And, old, 0xffff_0000);
        e.bin(Bin::Or, kept, v)
    };
    let active = cx.active();
    cx.vset_if(reg, new, active);
}

/// A format load or store through the V# in s[rs..rs+4) (`access`), data or destination VGPRs from `reg`,
/// the format from the V# or, for MTBUF, `inst_format`, as the model's `format_access` runs it. What the
/// model refuses ends the job as unsupported in the shader, in the model's order, before any lane's access:
/// a format code without a gfx10 format, a reserved DST_SEL (2, 3) among a load's outputs, a store through a
/// V# whose DST_SEL is not X, Y, Z, W for the format's components, an element whose address is not a
/// multiple of its alignment (an active lane's). Each lane reads or writes its whole element or nothing (the
/// range check covers the element), in 4-byte pieces at their own (swizzled) addresses.
pub(crate) fn format_access(
    cx: &mut Cx,
    access: &BufferAccess,
    rs: u32,
    op: FormatOp,
    inst_format: u8,
    reg: u32,
    pc: usize,
) {
    let w3 = cx.sget(rs + 3);
    let pcv = cx.e.k32(pc as u32);
    let detail = cx.e.k32(layout::FORMAT);
    let (code, info) = if op.typed {
        let c = inst_format as u32;
        (cx.e.k32(c), cx.e.k32(format::info_of(c)))
    } else {
        let c = cx.e.field(w3, 12, 7);
        (
            c,
            cx.e.call_outlined(Helper::FormatInfo.key(), Ty::I32, &[c]),
        )
    };
    let e = &mut cx.e;
    let (comps, _) = format::comps_kind(e, info);
    let z = e.k32(0);
    let unknown = e.cmp(Cmp::Eq, info, z);
    let why = e.bink(Bin::Shl, code, 8);
    let why = e.bink(Bin::Or, why, layout::FORMAT_CODE as u64);
    cx.report_if(unknown, layout::UNSUPPORTED, pcv, why, detail);
    let sels: Vec<Sv> = (0..4).map(|i| cx.e.field(w3, 3 * i, 3)).collect();
    if op.store {
        // Stores: DST_SEL must be the identity over the format's components.
        for (c, &sel) in sels.iter().enumerate() {
            let e = &mut cx.e;
            let kc = e.k32(c as u32);
            let present = e.cmp(Cmp::ULt, kc, comps);
            let want = e.k32(4 + c as u32);
            let other = e.cmp(Cmp::Ne, sel, want);
            let bad = e.band(present, other);
            let s = e.bink(Bin::Shl, sel, 16);
            let why = e.bink(
                Bin::Or,
                s,
                (layout::FORMAT_STORE_SEL | (c as u32) << 8) as u64,
            );
            cx.report_if(bad, layout::UNSUPPORTED, pcv, why, detail);
        }
    } else {
        for (i, &sel) in sels.iter().enumerate().take(op.n as usize) {
            let e = &mut cx.e;
            let two = e.k32(2);
            let three = e.k32(3);
            let a = e.cmp(Cmp::Eq, sel, two);
            let b = e.cmp(Cmp::Eq, sel, three);
            let reserved = e.bor(a, b);
            let why = e.k32(layout::FORMAT_SEL | (i as u32) << 8);
            cx.report_if(reserved, layout::UNSUPPORTED, pcv, why, detail);
        }
    }
    let active = cx.active();
    let e = &mut cx.e;
    let nbytes = format::element_bytes(e, info);
    let size = e.zext(nbytes);
    let (whole, in_range) = access.piece_of(cx, 0, size);
    // Alignment: the component size for equal 8-, 16- and 32-bit components, else 4.
    let e = &mut cx.e;
    let log = e.field(info, 6, 2);
    let one = e.k32(1);
    let align = e.bin(Bin::Shl, one, log);
    let am1 = e.bink(Bin::Sub, align, 1);
    let am1 = e.zext(am1);
    let low = e.bin(Bin::And, whole, am1);
    let misaligned = e.nz(low);
    let bad = e.band(misaligned, active);
    let why = e.k32(layout::FORMAT_ALIGN);
    cx.report_if(bad, layout::UNSUPPORTED, pcv, why, detail);
    // The element's pieces: the first of min(bytes, 4), then whole dwords while the element lasts.
    let e = &mut cx.e;
    let go = e.band(in_range, active);
    let len0 = e.bink(Bin::UMin, nbytes, 4);
    let mut later = Vec::new();
    for k in 1..4u32 {
        let e = &mut cx.e;
        let kb = e.k32(4 * k);
        let has = e.cmp(Cmp::UGt, nbytes, kb);
        let g = e.band(go, has);
        let (addr, _) = access.piece(cx, 4 * k, 4);
        later.push((addr, g));
    }
    if op.store {
        store(cx, op, info, reg, (whole, go), &later, len0, pc);
    } else {
        load(
            cx,
            op,
            info,
            &sels,
            reg,
            (whole, go, in_range),
            &later,
            len0,
            pc,
        );
    }
}

/// The load half of [`format_access`]: the element's dwords, each output through the load helper, 0 for a
/// lane out of range, written as dwords, d16 pairs or the high half.
#[allow(clippy::too_many_arguments)]
fn load(
    cx: &mut Cx,
    op: FormatOp,
    info: Sv,
    sels: &[Sv],
    reg: u32,
    (first, go, in_range): (Sv, Sv, Sv),
    later: &[(Sv, Sv)],
    len0: Sv,
    pc: usize,
) {
    let d0 = units::load_len(cx, &[(first, go)], len0, pc)[0];
    let rest = units::load(cx, later, 4, pc);
    let d = [d0, rest[0], rest[1], rest[2]];
    let key = if op.d16 {
        Helper::FormatLoad16
    } else {
        Helper::FormatLoad32
    };
    let mut outs = Vec::new();
    for &sel in &sels[..op.n as usize] {
        let e = &mut cx.e;
        let v = e.call_outlined(key.key(), Ty::I32, &[d[0], d[1], d[2], d[3], info, sel]);
        let z = e.k32(0);
        outs.push(e.select(in_range, v, z));
    }
    let active = cx.active();
    if op.hi {
        let old = cx.vget(reg);
        let e = &mut cx.e;
        let kept = e.bink(Bin::And, old, 0xffff);
        let h = e.bink(Bin::Shl, outs[0], 16);
        let v = e.bin(Bin::Or, kept, h);
        cx.vset_if(reg, v, active);
    } else if op.d16 {
        for j in 0..op.n.div_ceil(2) {
            let lo = outs[2 * j as usize];
            let high = match outs.get(2 * j as usize + 1) {
                Some(&h) => h,
                None => {
                    let old = cx.vget(reg + j);
                    cx.e.bink(Bin::LShr, old, 16)
                }
            };
            let e = &mut cx.e;
            let h = e.bink(Bin::Shl, high, 16);
            let v = e.bin(Bin::Or, lo, h);
            cx.vset_if(reg + j, v, active);
        }
    } else {
        for (i, v) in outs.into_iter().enumerate() {
            cx.vset_if(reg + i as u32, v, active);
        }
    }
}

/// The store half of [`format_access`]: each supplied component's code (those the instruction does not
/// supply 0, rule `buffer.store_zero_fill`) placed in the element, whose pieces go to the store unit.
#[allow(clippy::too_many_arguments)]
fn store(
    cx: &mut Cx,
    op: FormatOp,
    info: Sv,
    reg: u32,
    (first, go): (Sv, Sv),
    later: &[(Sv, Sv)],
    len0: Sv,
    pc: usize,
) {
    let key = if op.d16 {
        Helper::FormatStore16
    } else {
        Helper::FormatStore32
    };
    let mut d = [cx.e.k32(0); 4];
    for c in 0..op.n.min(4) {
        let x = if op.hi {
            let v = cx.vget(reg);
            cx.e.bink(Bin::LShr, v, 16)
        } else if op.d16 {
            let v = cx.vget(reg + c / 2);
            cx.e.bink(Bin::LShr, v, 16 * (c as u64 % 2))
        } else {
            cx.vget(reg + c)
        };
        let e = &mut cx.e;
        let kc = e.k32(c);
        let code = e.call_outlined(key.key(), Ty::I32, &[x, info, kc]);
        let at = format::shift_of(e, info, c);
        let dw = e.bink(Bin::LShr, at, 5);
        let bit = e.bink(Bin::And, at, 31);
        let placed = e.bin(Bin::Shl, code, bit);
        let z = e.k32(0);
        for (k, dk) in d.iter_mut().enumerate() {
            let kk = e.k32(k as u32);
            let here = e.cmp(Cmp::Eq, dw, kk);
            let p = e.select(here, placed, z);
            *dk = e.bin(Bin::Or, *dk, p);
        }
    }
    let at0 = units::place_all_len(cx, &[(first, go)], len0, pc)[0];
    let at = units::place_all(cx, later, 4, pc);
    let pieces = [(at0, d[0]), (at[0], d[1]), (at[1], d[2]), (at[2], d[3])];
    units::store_len(cx, units::SPACE_MEM, &pieces, len0);
}

/// The body of the format-load helpers: parameters the element's four dwords, the info word and one DST_SEL
/// field ([`format::select_load`]).
pub(crate) fn load_body(e: &mut Emit, p: &[Sv], d16: bool) -> Sv {
    let [d0, d1, d2, d3, info, sel] = p else {
        panic!("a format load takes six parameters")
    };
    format::select_load(e, [*d0, *d1, *d2, *d3], *info, *sel, d16)
}

/// The body of the format-store helpers: parameters the data, the info word and the component
/// ([`format::store_component`]).
pub(crate) fn store_body(e: &mut Emit, p: &[Sv], d16: bool) -> Sv {
    let [x, info, c] = p else {
        panic!("a format store takes three parameters")
    };
    format::store_component(e, *x, *info, *c, d16)
}
