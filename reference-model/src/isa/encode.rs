//! Encoding: instruction words from an [`Op`] and operand codes, for generated programs (the differential
//! fuzzer, sweeps). The inverse of the decoder for the base encodings SOP1, SOP2, SOPK, SOPC, SOPP, VOP1,
//! VOP2, VOPC, VOP3 (a and b), VOP3P, MUBUF and DS; DPP, SDWA and the other encodings are not written.
//!
//! The field layouts are the microcode formats of AMD's "RDNA 2" ISA reference guide (chapter 13), the
//! opcode numbers those of the decoder's tables ([`opcode`]); `tests/encode.rs` checks words against
//! `llvm-mc -show-encoding` and every word decodes back to what was asked for. Hand-written: no crate encodes
//! gfx10.
//!
//! ```
//! use reference_model::isa::{self, encode::{self, Src}, Op, Target};
//! let w = encode::vop2(Target::Gfx1013, Op::VAddF32, 10, Src::v(11), 12).unwrap();
//! assert_eq!(w, [0x0614_190b]);
//! assert_eq!(isa::decode(Target::Gfx1013, &w, 0).unwrap().to_string(), "v_add_f32_e32 v10, v11, v12");
//! ```

use super::tables::{row, Table};
use super::{Encoding, Op, Target};

/// A source operand: its code in the 9-bit VALU source space (the 8-bit SALU space is its low half) and the
/// literal dword that follows the instruction when the code is 255.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The source code (0-105 SGPRs, 106/107 VCC, 124 M0, 126/127 EXEC, 128-208 inline integers, 240-248
    /// inline floats, 255 literal, 256-511 VGPRs).
    pub code: u16,
    /// The literal, when `code` is 255.
    pub literal: Option<u32>,
}

impl Src {
    /// VGPR `n`.
    pub const fn v(n: u8) -> Src {
        Src {
            code: 256 + n as u16,
            literal: None,
        }
    }
    /// SGPR `n` (0..=105) or another scalar code (106 VCC_LO, 126 EXEC_LO, ...).
    pub const fn s(n: u8) -> Src {
        Src {
            code: n as u16,
            literal: None,
        }
    }
    /// The inline integer `k` (-16..=64) when there is one, else `k` as a literal.
    pub const fn int(k: i32) -> Src {
        if k >= 0 && k <= 64 {
            Src {
                code: 128 + k as u16,
                literal: None,
            }
        } else if k < 0 && k >= -16 {
            Src {
                code: (192 - k) as u16,
                literal: None,
            }
        } else {
            Src::lit(k as u32)
        }
    }
    /// A literal dword.
    pub const fn lit(v: u32) -> Src {
        Src {
            code: 255,
            literal: Some(v),
        }
    }
    /// A raw source code (an inline float constant 240..=248, say).
    pub const fn code(code: u16) -> Src {
        Src {
            code,
            literal: None,
        }
    }
}

/// The VOP3 modifiers: `abs`/`neg` one bit per source, `omod` (0 none, 1 mul:2, 2 mul:4, 3 div:2), `clamp`,
/// and for the VOP3b operations (carry out, v_div_scale) the scalar destination code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vop3 {
    /// Bit i: |source i|.
    pub abs: u8,
    /// Bit i: -source i.
    pub neg: u8,
    /// Output modifier.
    pub omod: u8,
    /// Clamp.
    pub clamp: bool,
    /// The VOP3b scalar destination (SGPR or VCC code); `None` for VOP3a.
    pub sdst: Option<u8>,
}

fn table(enc: Encoding) -> Option<Table> {
    Some(match enc {
        Encoding::Sop1 => Table::Sop1,
        Encoding::Sop2 => Table::Sop2,
        Encoding::Sopk => Table::Sopk,
        Encoding::Sopc => Table::Sopc,
        Encoding::Sopp => Table::Sopp,
        Encoding::Vop1 => Table::Vop1,
        Encoding::Vop2 => Table::Vop2,
        Encoding::Vopc => Table::Vopc,
        Encoding::Vop3 => Table::Vop3,
        Encoding::Vop3p => Table::Vop3p,
        Encoding::Ds => Table::Ds,
        Encoding::Mubuf => Table::Mubuf,
        _ => return None,
    })
}

/// The opcode of `op` in encoding `enc` on `target`, if it has one there.
pub fn opcode(target: Target, enc: Encoding, op: Op) -> Option<u32> {
    let t = table(enc)?;
    (0..1024u32).find(|&i| row(target, t, i as usize).is_some_and(|r| r.op == op))
}

fn code_of(target: Target, enc: Encoding, op: Op) -> Result<u32, String> {
    opcode(target, enc, op)
        .ok_or_else(|| format!("{} has no {enc:?} opcode on {target:?}", op.mnemonic()))
}

/// Appends the literal of the sources that have one (at most one distinct value per instruction).
fn with_literal(mut words: Vec<u32>, srcs: &[Src]) -> Result<Vec<u32>, String> {
    let mut lit = None;
    for s in srcs {
        match (s.code, s.literal) {
            (255, Some(v)) => match lit {
                None => lit = Some(v),
                Some(w) if w == v => {}
                Some(_) => return Err("two different literals in one instruction".into()),
            },
            (255, None) => return Err("source code 255 without its literal".into()),
            _ => {}
        }
    }
    words.extend(lit);
    Ok(words)
}

fn check(what: &str, v: u32, max: u32) -> Result<u32, String> {
    if v > max {
        Err(format!("{what} {v} does not fit (at most {max})"))
    } else {
        Ok(v)
    }
}

fn salu_src(s: Src) -> Result<u32, String> {
    check("a scalar source code", s.code as u32, 255)
}

/// SOP1 `op sdst, src0`.
pub fn sop1(target: Target, op: Op, sdst: u8, src0: Src) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Sop1, op)?;
    let w = 0xbe80_0000 | check("sdst", sdst as u32, 127)? << 16 | o << 8 | salu_src(src0)?;
    with_literal(vec![w], &[src0])
}

/// SOP2 `op sdst, src0, src1`.
pub fn sop2(target: Target, op: Op, sdst: u8, src0: Src, src1: Src) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Sop2, op)?;
    let w = 0x8000_0000
        | o << 23
        | check("sdst", sdst as u32, 127)? << 16
        | salu_src(src1)? << 8
        | salu_src(src0)?;
    with_literal(vec![w], &[src0, src1])
}

/// SOPK `op sdst, simm16`.
pub fn sopk(target: Target, op: Op, sdst: u8, simm16: u16) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Sopk, op)?;
    Ok(vec![
        0xb000_0000 | o << 23 | check("sdst", sdst as u32, 127)? << 16 | simm16 as u32,
    ])
}

/// SOPC `op src0, src1`.
pub fn sopc(target: Target, op: Op, src0: Src, src1: Src) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Sopc, op)?;
    let w = 0xbf00_0000 | o << 16 | salu_src(src1)? << 8 | salu_src(src0)?;
    with_literal(vec![w], &[src0, src1])
}

/// SOPP `op simm16` (a branch's simm16 is the signed word offset from the next instruction).
pub fn sopp(target: Target, op: Op, simm16: u16) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Sopp, op)?;
    Ok(vec![0xbf80_0000 | o << 16 | simm16 as u32])
}

/// VOP1 `op vdst, src0`.
pub fn vop1(target: Target, op: Op, vdst: u8, src0: Src) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Vop1, op)?;
    let w = 0x7e00_0000 | (vdst as u32) << 17 | o << 9 | src0.code as u32;
    with_literal(vec![w], &[src0])
}

/// VOP2 `op vdst, src0, vsrc1` (VGPR `vsrc1`).
pub fn vop2(target: Target, op: Op, vdst: u8, src0: Src, vsrc1: u8) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Vop2, op)?;
    let w = o << 25 | (vdst as u32) << 17 | (vsrc1 as u32) << 9 | src0.code as u32;
    with_literal(vec![w], &[src0])
}

/// VOPC `op vcc, src0, vsrc1`.
pub fn vopc(target: Target, op: Op, src0: Src, vsrc1: u8) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Vopc, op)?;
    let w = 0x7c00_0000 | o << 17 | (vsrc1 as u32) << 9 | src0.code as u32;
    with_literal(vec![w], &[src0])
}

/// VOP3 `op dst, src0[, src1[, src2]]` (the fields of sources not given are 0, as LLVM writes them): `dst`
/// is the VGPR, or for a VOPC in VOP3 form the scalar destination code; `m` the modifiers.
pub fn vop3(target: Target, op: Op, dst: u8, sources: &[Src], m: Vop3) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Vop3, op)?;
    if sources.is_empty() || sources.len() > 3 {
        return Err(format!(
            "{} sources (VOP3 takes one to three)",
            sources.len()
        ));
    }
    let mut srcs = [Src::code(0); 3];
    srcs[..sources.len()].copy_from_slice(sources);
    let mid = match m.sdst {
        Some(s) => {
            if m.abs != 0 {
                return Err("VOP3b has no abs bits".into());
            }
            (s as u32) << 8
        }
        None => (m.abs as u32 & 7) << 8,
    };
    let w0 = 0xd400_0000 | o << 16 | (m.clamp as u32) << 15 | mid | dst as u32;
    let w1 = (m.neg as u32 & 7) << 29
        | check("omod", m.omod as u32, 3)? << 27
        | (srcs[2].code as u32) << 18
        | (srcs[1].code as u32) << 9
        | srcs[0].code as u32;
    with_literal(vec![w0, w1], &srcs)
}

/// The VOP3P modifiers, one bit per source: `op_sel` (the low result half's source half, 1 = high; for
/// `v_fma_mix*` which f16 half), `op_sel_hi` (the high result half's; for `v_fma_mix*`: the source is f16),
/// `neg` (neg_lo) and `neg_hi` (for `v_fma_mix*`: abs), and `clamp`. LLVM's defaults for a plain packed
/// instruction are `op_sel_hi` all ones and the rest zero ([`Vop3p::PLAIN`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vop3p {
    /// op_sel bits.
    pub op_sel: u8,
    /// op_sel_hi bits.
    pub op_sel_hi: u8,
    /// neg_lo bits.
    pub neg: u8,
    /// neg_hi bits.
    pub neg_hi: u8,
    /// Clamp.
    pub clamp: bool,
}

impl Vop3p {
    /// What LLVM writes for a plain packed instruction: `op_sel_hi:[1,1,1]`, nothing else.
    pub const PLAIN: Vop3p = Vop3p {
        op_sel: 0,
        op_sel_hi: 7,
        neg: 0,
        neg_hi: 0,
        clamp: false,
    };
}

/// VOP3P `op vdst, src0, src1[, src2]` (the fields of sources not given are 0) with modifiers `m`.
pub fn vop3p(
    target: Target,
    op: Op,
    vdst: u8,
    sources: &[Src],
    m: Vop3p,
) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Vop3p, op)?;
    if sources.is_empty() || sources.len() > 3 {
        return Err(format!(
            "{} sources (VOP3P takes one to three)",
            sources.len()
        ));
    }
    let mut srcs = [Src::code(0); 3];
    srcs[..sources.len()].copy_from_slice(sources);
    let hi = m.op_sel_hi as u32;
    let w0 = 0xcc00_0000
        | o << 16
        | (m.clamp as u32) << 15
        | (hi >> 2 & 1) << 14
        | (m.op_sel as u32 & 7) << 11
        | (m.neg_hi as u32 & 7) << 8
        | vdst as u32;
    let w1 = (m.neg as u32 & 7) << 29
        | (hi & 3) << 27
        | (srcs[2].code as u32) << 18
        | (srcs[1].code as u32) << 9
        | srcs[0].code as u32;
    with_literal(vec![w0, w1], &srcs)
}

/// The operands of a MUBUF instruction: `op vdata, vaddr, s[4*srsrc..+3], soffset [offen] offset:offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buf {
    /// First data VGPR.
    pub vdata: u8,
    /// Address VGPR.
    pub vaddr: u8,
    /// The V#'s SGPR quad (SGPR `4 * srsrc`).
    pub srsrc: u8,
    /// The scalar offset (an SGPR or inline constant; no literal).
    pub soffset: Src,
    /// The 12-bit immediate offset.
    pub offset: u16,
    /// `vaddr` is an offset.
    pub offen: bool,
}

impl Buf {
    /// `vdata, vaddr, s[4*srsrc..], 0 offen offset:offset`: the address VGPR an offset, no scalar offset.
    pub const fn offen(vdata: u8, vaddr: u8, srsrc: u8, offset: u16) -> Buf {
        Buf {
            vdata,
            vaddr,
            srsrc,
            soffset: Src::code(128),
            offset,
            offen: true,
        }
    }
}

/// MUBUF `op` with operands `b`.
pub fn mubuf(target: Target, op: Op, b: Buf) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Mubuf, op)?;
    if b.soffset.literal.is_some() {
        return Err("MUBUF soffset takes no literal".into());
    }
    let w0 =
        0xe000_0000 | o << 18 | (b.offen as u32) << 12 | check("offset", b.offset as u32, 4095)?;
    let w1 = (salu_src(b.soffset)?) << 24
        | check("srsrc", b.srsrc as u32, 31)? << 16
        | (b.vdata as u32) << 8
        | b.vaddr as u32;
    Ok(vec![w0, w1])
}

/// DS `op vdst, addr, data0, data1 offset0 offset1` (fields the operation does not use as 0).
pub fn ds(
    target: Target,
    op: Op,
    vdst: u8,
    addr: u8,
    data: [u8; 2],
    offsets: [u8; 2],
) -> Result<Vec<u32>, String> {
    let o = code_of(target, Encoding::Ds, op)?;
    let w0 = 0xd800_0000 | o << 18 | (offsets[1] as u32) << 8 | offsets[0] as u32;
    let w1 = (vdst as u32) << 24 | (data[1] as u32) << 16 | (data[0] as u32) << 8 | addr as u32;
    Ok(vec![w0, w1])
}
