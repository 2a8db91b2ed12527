//! MIMG (image) and EXP (export) encodings.
//!
//! Image operand widths depend on the dim, a16, dmask, d16 and tfe fields; the widths LLVM computes for each
//! opcode were measured into [`MimgInfo`] rows. NSA (non-sequential address) forms carry up to three extra
//! dwords of VGPR numbers, one byte each.

use std::fmt::{self, Write};

use super::decode::{bits, canonical_of, Ctx, EMPTY_SLOT};
use super::error::DecodeError;
use super::operand::{decode_src, fmt_range, Operand};
use super::tables::{mimg_info, row, Row, Table};
use super::types::*;
use super::Op;

fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}

const DIMS: [&str; 8] = [
    "SQ_RSRC_IMG_1D",
    "SQ_RSRC_IMG_2D",
    "SQ_RSRC_IMG_3D",
    "SQ_RSRC_IMG_CUBE",
    "SQ_RSRC_IMG_1D_ARRAY",
    "SQ_RSRC_IMG_2D_ARRAY",
    "SQ_RSRC_IMG_2D_MSAA",
    "SQ_RSRC_IMG_2D_MSAA_ARRAY",
];

/// A descriptor of `width` SGPRs starting at `code`; a tuple that runs into VCC or M0 names nothing.
fn descriptor(cx: &Ctx, code: u32, width: u8, what: &'static str) -> Result<Operand, DecodeError> {
    let w = width as u32;
    if !(code + w <= 106 || (108..124).contains(&code) && code + w <= 124) {
        return Err(cx.reserved(2, what, code));
    }
    decode_src(code as u16, width, None).map_err(|_| cx.reserved(2, what, code))
}

/// The data and address widths LLVM prints (its MIMG conversion, AMDGPUDisassembler::convertMIMGInst in LLVM
/// 19): the decoder first matches a default variant per opcode and NSA size, then moves to the variant with the
/// widths the dim, a16, dmask, d16 and tfe fields ask for, when the operation has one. The measured table says,
/// per NSA size and dim, whether the move succeeds and the address count; the data width follows the fields.
/// None when LLVM rejects the word.
fn mimg_widths(
    r: &Row,
    info: &super::tables::MimgInfo,
    m: &MemFields,
    nsa: usize,
) -> Option<(u8, usize)> {
    let gather = r.mn.contains("gather4");
    let [pdata, paddr] = info.printed[nsa][(m.a16 as usize) * 8 + m.dim as usize];
    if pdata == 0 {
        return None;
    }
    // Anything but the data width the probe asked for is the default variant.
    let moved = pdata == info.probe_data;
    if !moved {
        return Some((pdata, paddr as usize));
    }
    let channels = if gather {
        4
    } else {
        (m.dmask.count_ones() as u8).max(1)
    };
    let mut dst = if m.d16 {
        channels.div_ceil(2)
    } else {
        channels
    };
    dst += m.tfe as u8;
    // The data widths each kind of operation has a variant for, measured (image atomics: a request for four
    // dwords lands on LLVM's five-dword variant).
    let data = if gather {
        matches!(dst, 2 | 4 | 5).then_some(dst)
    } else if r.mn.contains("cmpswap") {
        matches!(dst, 2 | 4).then_some(dst)
    } else if r.mn.contains("_atomic_") {
        match dst {
            1 | 2 => Some(dst),
            4 => Some(5),
            _ => None,
        }
    } else {
        (1..=5).contains(&dst).then_some(dst)
    };
    if let Some(d) = data {
        return Some((d, paddr as usize));
    }
    let [ddata, daddr] = info.default[nsa];
    if ddata == 0 {
        Some(fallback_default(r, nsa, paddr))
    } else {
        Some((ddata, daddr as usize))
    }
}

/// LLVM's default variant where no measurement showed it: one data dword (two for cmpswap, four for gather4),
/// one address without NSA.
fn fallback_default(r: &Row, nsa: usize, paddr: u8) -> (u8, usize) {
    let d = if r.mn.contains("cmpswap") {
        2
    } else if r.mn.contains("gather4") {
        4
    } else {
        1
    };
    (d, if nsa == 0 { 1 } else { paddr as usize })
}

pub(crate) fn decode(cx: &Ctx) -> Result<Instruction, DecodeError> {
    let enc = Encoding::Mimg;
    if cx.avail() < 2 {
        return Err(cx.truncated(enc, 2));
    }
    let (w0, w1) = (cx.w(0), cx.w(1));
    let op = bits(w0, 24, 18) | bits(w0, 0, 0) << 7;
    let r: &'static Row =
        row(cx.target, Table::Mimg, op as usize).ok_or_else(|| cx.unknown(enc, op))?;
    let info = mimg_info(cx.target, op as usize).ok_or_else(|| cx.unknown(enc, op))?;
    let nsa = bits(w0, 2, 1) as usize;
    let size = 2 + nsa;
    if cx.avail() < size {
        return Err(cx.truncated(enc, size));
    }
    let m = MemFields {
        dim: bits(w0, 5, 3) as u8,
        dlc: bit(w0, 7),
        dmask: bits(w0, 11, 8) as u8,
        unorm: bit(w0, 12),
        glc: bit(w0, 13),
        r128: bit(w0, 15),
        tfe: bit(w0, 16),
        lwe: bit(w0, 17),
        slc: bit(w0, 25),
        a16: bit(w1, 30),
        d16: bit(w1, 31),
        nsa_dwords: nsa as u8,
        ..MemFields::default()
    };
    let (data, addrs) =
        mimg_widths(r, info, &m, nsa).ok_or_else(|| cx.reserved(2, "dim/nsa", m.dim as u32))?;
    // LLVM decodes the default variant first: if its registers run past v255 it rejects the word.
    let (ddata, daddr) = match info.default[nsa] {
        [0, _] => fallback_default(r, nsa, 1),
        [d, a] => (d, a as usize),
    };
    let (vd, va) = (bits(w1, 15, 8) as usize, bits(w1, 7, 0) as usize);
    if vd + ddata as usize > 256 || (nsa == 0 && va + daddr > 256) {
        return Err(cx.reserved(2, "vdata/vaddr", vd as u32));
    }
    // A variant whose registers would run past v255 does not exist either: LLVM keeps the default.
    let (vdata, vaddr) = (bits(w1, 15, 8), bits(w1, 7, 0));
    let fits = |d: u8, a: usize| {
        vdata as usize + d as usize <= 256 && (nsa > 0 || vaddr as usize + a <= 256)
    };
    let (data, addrs) = match info.default[nsa] {
        [d, a] if !fits(data, addrs) && d != 0 => (d, a as usize),
        _ => (data, addrs),
    };
    let canonical = true;
    let mut slots = [EMPTY_SLOT; MAX_SLOTS];
    let mut n = 0;
    if vdata as usize + data as usize > 256 {
        return Err(cx.reserved(2, "vdata", vdata));
    }
    slots[n] = Slot {
        role: Role::Vdata,
        operand: Operand::Vgpr {
            first: vdata as u8,
            width: data,
        },
        raw: vdata,
    };
    n += 1;
    if nsa == 0 {
        if vaddr as usize + addrs > 256 {
            return Err(cx.reserved(2, "vaddr", vaddr));
        }
        slots[n] = Slot {
            role: Role::Vaddr,
            operand: Operand::Vgpr {
                first: vaddr as u8,
                width: addrs as u8,
            },
            raw: vaddr,
        };
        n += 1;
    } else {
        for k in 0..addrs.min(MAX_SLOTS - 3) {
            let v = if k == 0 {
                vaddr
            } else {
                (cx.w(2 + (k - 1) / 4) >> (8 * ((k - 1) % 4))) & 0xff
            };
            slots[n] = Slot {
                role: Role::Vaddr,
                operand: Operand::Vgpr {
                    first: v as u8,
                    width: 1,
                },
                raw: v,
            };
            n += 1;
        }
    }
    let srsrc = bits(w1, 20, 16) * 4;
    slots[n] = Slot {
        role: Role::Srsrc,
        operand: descriptor(cx, srsrc, 8, "srsrc")?,
        raw: srsrc / 4,
    };
    n += 1;
    if r.flags & 1 != 0 {
        let ssamp = bits(w1, 25, 21) * 4;
        slots[n] = Slot {
            role: Role::Ssamp,
            operand: descriptor(cx, ssamp, 4, "ssamp")?,
            raw: ssamp / 4,
        };
        n += 1;
    }
    let mut words = [0u32; 5];
    for (k, w) in words.iter_mut().enumerate().take(size) {
        *w = cx.w(k);
    }
    Ok(Instruction {
        target: cx.target,
        op: r.op,
        encoding: enc,
        form: Form::Native,
        mods: VopMods::default(),
        control: Control::Mem(m),
        canonical: canonical && canonical_of(r, &words),
        size: size as u8,
        words,
        slots,
        nslots: n as u8,
        row: r,
    })
}

static EXP_ROW: Row = Row {
    op: Op::Exp,
    mn: "exp",
    tpl: &[],
    must: [0, 0],
    want: [0, 0],
    show: [0, 0],
    flags: 0,
};

pub(crate) fn decode_exp(cx: &Ctx) -> Result<Instruction, DecodeError> {
    let enc = Encoding::Exp;
    if cx.avail() < 2 {
        return Err(cx.truncated(enc, 2));
    }
    let (w0, w1) = (cx.w(0), cx.w(1));
    let m = MemFields {
        en: bits(w0, 3, 0) as u8,
        target: bits(w0, 9, 4) as u8,
        compr: bit(w0, 10),
        done: bit(w0, 11),
        vm: bit(w0, 12),
        ..MemFields::default()
    };
    let mut slots = [EMPTY_SLOT; MAX_SLOTS];
    for (k, s) in slots.iter_mut().enumerate().take(4) {
        let v = bits(w1, 8 * k as u32 + 7, 8 * k as u32);
        *s = Slot {
            role: Role::Vdata,
            operand: Operand::Vgpr {
                first: v as u8,
                width: 1,
            },
            raw: v,
        };
    }
    let mut words = [0u32; 5];
    words[0] = w0;
    words[1] = w1;
    Ok(Instruction {
        target: cx.target,
        op: Op::Exp,
        encoding: enc,
        form: Form::Native,
        mods: VopMods::default(),
        control: Control::Mem(m),
        // LLVM ignores bits 25:13 of an export; it accepts every word.
        canonical: true,
        size: 2,
        words,
        slots,
        nslots: 4,
        row: &EXP_ROW,
    })
}

fn exp_target(out: &mut String, t: u8) -> fmt::Result {
    match t {
        0..=7 => write!(out, "mrt{t}"),
        8 => out.write_str("mrtz"),
        9 => out.write_str("null"),
        12..=16 => write!(out, "pos{}", t - 12),
        20 => out.write_str("prim"),
        32..=63 => write!(out, "param{}", t - 32),
        _ => write!(out, "invalid_target_{t}"),
    }
}

/// Prints an image or export instruction's operands and modifiers (after the mnemonic).
pub(crate) fn write(out: &mut String, i: &Instruction) -> fmt::Result {
    let Control::Mem(m) = i.control else {
        return Ok(());
    };
    let ops = i.operands();
    if i.encoding == Encoding::Exp {
        out.push(' ');
        exp_target(out, m.target)?;
        for k in 0..4 {
            out.push_str(if k == 0 { " " } else { ", " });
            // With compr, two 16-bit pairs: sources 0 and 1 come from vsrc0, 2 and 3 from vsrc1.
            let src = if m.compr { k / 2 } else { k };
            if m.en >> k & 1 != 0 {
                ops[src]
                    .operand
                    .fmt_as(out, super::operand::ImmClass::B32)?;
            } else {
                out.push_str("off");
            }
        }
        if m.done {
            out.push_str(" done");
        }
        if m.compr {
            out.push_str(" compr");
        }
        if m.vm {
            out.push_str(" vm");
        }
        return Ok(());
    }
    // LLVM separates an NSA sampling instruction's mnemonic from its operands with two spaces.
    out.push_str(if m.nsa_dwords > 0 && i.row.flags & 1 != 0 {
        "  "
    } else {
        " "
    });
    let mut first = true;
    let mut in_addr = false;
    for s in ops {
        if s.role == Role::Vaddr && m.nsa_dwords > 0 {
            if !in_addr {
                out.push_str(", [");
                in_addr = true;
            } else {
                out.push_str(", ");
            }
            write!(out, "v{}", s.raw)?;
            continue;
        }
        if in_addr {
            out.push(']');
            in_addr = false;
        }
        if !first {
            out.push_str(", ");
        }
        first = false;
        match s.operand {
            Operand::Vgpr { first, width } => fmt_range(out, "v", first as u32, width)?,
            o => o.fmt_as(out, super::operand::ImmClass::B32)?,
        }
    }
    if in_addr {
        out.push(']');
    }
    if m.dmask != 0 {
        write!(out, " dmask:0x{:x}", m.dmask)?;
    }
    write!(out, " dim:{}", DIMS[m.dim as usize])?;
    let show = |w: usize, b: u32| i.row.show[w] >> b & 1 != 0;
    for (set, w, b, name) in [
        (m.unorm, 0, 12, "unorm"),
        (m.glc, 0, 13, "glc"),
        (m.slc, 0, 25, "slc"),
        (m.dlc, 0, 7, "dlc"),
        (m.r128, 0, 15, "r128"),
        (m.a16, 1, 30, "a16"),
        (m.tfe, 0, 16, "tfe"),
        (m.lwe, 0, 17, "lwe"),
        (m.d16, 1, 31, "d16"),
    ] {
        if set && show(w, b) {
            out.push(' ');
            out.push_str(name);
        }
    }
    Ok(())
}
