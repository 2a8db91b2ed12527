//! Word-level decoding: find the encoding family, look the opcode up in its table, read the operand fields the
//! row's template names, then the family's modifiers and controls.

use super::error::DecodeError;
use super::operand::{decode_src, ImmClass, Operand, SrcErr};
use super::tables::{row, Kind, Row, Table, Tok};
use super::types::*;
use super::Target;

/// Bits `[hi:lo]` of `w`, written in the manual's notation so a line can be checked against it by eye.
#[inline]
pub(crate) fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & (u32::MAX >> (31 - (hi - lo)))
}

#[inline]
fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}

/// Which family a first word belongs to (gfx10 encoding prefixes, RDNA ISA manual chapter 12/13 "Microcode
/// formats").
pub(crate) fn encoding_of(w: u32) -> Option<Encoding> {
    Some(match w >> 23 {
        0x17d => Encoding::Sop1,
        0x17e => Encoding::Sopc,
        0x17f => Encoding::Sopp,
        _ => match w >> 28 {
            0xb => Encoding::Sopk,
            0x8..=0xa => Encoding::Sop2,
            _ => match w >> 25 {
                0x3f => Encoding::Vop1,
                0x3e => Encoding::Vopc,
                0x00..=0x3d => Encoding::Vop2,
                _ => match w >> 26 {
                    0x35 => Encoding::Vop3,
                    0x33 => Encoding::Vop3p,
                    0x32 => Encoding::Vintrp,
                    0x36 => Encoding::Ds,
                    0x38 => Encoding::Mubuf,
                    0x3a => Encoding::Mtbuf,
                    0x3c => Encoding::Mimg,
                    0x37 => Encoding::Flat,
                    0x3d => Encoding::Smem,
                    0x3e => Encoding::Exp,
                    _ => return None,
                },
            },
        },
    })
}

/// Decoding context for one instruction.
pub(crate) struct Ctx<'a> {
    pub target: Target,
    pub words: &'a [u32],
    pub index: usize,
}

impl Ctx<'_> {
    pub(crate) fn avail(&self) -> usize {
        self.words.len() - self.index
    }
    pub(crate) fn w(&self, i: usize) -> u32 {
        self.words.get(self.index + i).copied().unwrap_or(0)
    }
    pub(crate) fn truncated(&self, enc: Encoding, needed: usize) -> DecodeError {
        DecodeError::Truncated {
            index: self.index,
            word: self.w(0),
            encoding: enc,
            needed,
            available: self.avail(),
        }
    }
    pub(crate) fn reserved(&self, n: usize, field: &'static str, value: u32) -> DecodeError {
        let end = (self.index + n.min(2)).min(self.words.len());
        DecodeError::Reserved {
            index: self.index,
            words: self.words[self.index..end].to_vec(),
            field,
            value,
        }
    }
    pub(crate) fn unknown(&self, enc: Encoding, opcode: u32) -> DecodeError {
        DecodeError::UnknownOpcode {
            index: self.index,
            word: self.w(0),
            encoding: enc,
            opcode: opcode as u16,
        }
    }
}

/// Decodes the instruction at `index`.
pub(crate) fn decode_at(
    target: Target,
    words: &[u32],
    index: usize,
) -> Result<Instruction, DecodeError> {
    if index >= words.len() {
        return Err(DecodeError::OutOfRange {
            index,
            len: words.len(),
        });
    }
    let cx = Ctx {
        target,
        words,
        index,
    };
    let w0 = cx.w(0);
    let enc = encoding_of(w0).ok_or(DecodeError::UnknownEncoding { index, word: w0 })?;
    match enc {
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc => vop_short(&cx, enc),
        Encoding::Vop3 => {
            let op = bits(w0, 25, 16);
            templated(&cx, enc, Form::Native, Table::Vop3, op, 2)
        }
        Encoding::Vop3p => {
            let op = bits(w0, 22, 16);
            if bit(w0, 23) {
                return Err(cx.unknown(enc, bits(w0, 23, 16)));
            }
            templated(&cx, enc, Form::Native, Table::Vop3p, op, 2)
        }
        _ => super::decode_other::decode(&cx, enc),
    }
}

fn vop_short(cx: &Ctx, enc: Encoding) -> Result<Instruction, DecodeError> {
    let w0 = cx.w(0);
    let (op, tabs) = match enc {
        Encoding::Vop1 => (
            bits(w0, 16, 9),
            [
                Table::Vop1,
                Table::Vop1Dpp16,
                Table::Vop1Dpp8,
                Table::Vop1Sdwa,
            ],
        ),
        Encoding::Vop2 => (
            bits(w0, 30, 25),
            [
                Table::Vop2,
                Table::Vop2Dpp16,
                Table::Vop2Dpp8,
                Table::Vop2Sdwa,
            ],
        ),
        _ => (
            bits(w0, 24, 17),
            [
                Table::Vopc,
                Table::VopcDpp16,
                Table::VopcDpp8,
                Table::VopcSdwa,
            ],
        ),
    };
    match bits(w0, 8, 0) {
        0xfa => templated(cx, enc, Form::Dpp16, tabs[1], op, 2),
        0xe9 | 0xea => templated(cx, enc, Form::Dpp8, tabs[2], op, 2),
        0xf9 => templated(cx, enc, Form::Sdwa, tabs[3], op, 2),
        _ => templated(cx, enc, Form::E32, tabs[0], op, 1),
    }
}

/// Where a role's field sits for an encoding form, and how wide the raw field is.
fn field(enc: Encoding, form: Form, role: Role, w0: u32, w1: u32) -> u32 {
    match (enc, form) {
        (Encoding::Vop3 | Encoding::Vop3p, _) => match role {
            Role::Vdst => bits(w0, 7, 0),
            Role::Sdst => bits(w0, 14, 8),
            Role::Src0 => bits(w1, 8, 0),
            Role::Src1 => bits(w1, 17, 9),
            Role::Src2 => bits(w1, 26, 18),
            _ => 0,
        },
        (_, Form::Dpp16 | Form::Dpp8) => match role {
            Role::Vdst => bits(w0, 24, 17),
            Role::Src0 => bits(w1, 7, 0),
            Role::Src1 => bits(w0, 16, 9),
            _ => 0,
        },
        (_, Form::Sdwa) => match role {
            Role::Vdst => bits(w0, 24, 17),
            Role::Src0 => bits(w1, 7, 0) | if bit(w1, 23) { 0 } else { 256 },
            Role::Src1 => bits(w0, 16, 9) | if bit(w1, 31) { 0 } else { 256 },
            Role::Sdst => bits(w1, 14, 8),
            _ => 0,
        },
        _ => match role {
            Role::Vdst => bits(w0, 24, 17),
            Role::Src0 => bits(w0, 8, 0),
            Role::Src1 => bits(w0, 16, 9),
            _ => 0,
        },
    }
}

/// Reads the operands a row's template names; returns the slots and whether a literal dword was used.
pub(crate) fn read_template(
    cx: &Ctx,
    enc: Encoding,
    form: Form,
    r: &'static Row,
    base: usize,
    field_of: &dyn Fn(Role) -> u32,
    slots: &mut [Slot; MAX_SLOTS],
) -> Result<(u8, bool), DecodeError> {
    let mut n = 0usize;
    let mut lit = false;
    let lit_word = if cx.avail() > base {
        Some(cx.w(base))
    } else {
        None
    };
    for t in r.tpl {
        let Tok::F {
            role,
            kind,
            width,
            class,
            ..
        } = *t
        else {
            continue;
        };
        let raw = if kind == Kind::K { 255 } else { field_of(role) };
        let operand = match kind {
            // VOP3 interpolation reads an attribute or parameter number from a source field.
            Kind::Src if matches!(class, ImmClass::Attr | ImmClass::InterpParam) => {
                Operand::Imm(raw as i32)
            }
            Kind::V => {
                if raw as usize + width as usize > 256 {
                    return Err(cx.reserved(base, "vector register range", raw));
                }
                Operand::Vgpr {
                    first: raw as u8,
                    width,
                }
            }
            Kind::S | Kind::Src | Kind::K => match decode_src(raw as u16, width, lit_word) {
                Ok(o) => o,
                Err(SrcErr::Reserved) => return Err(cx.reserved(base, "source operand", raw)),
            },
            // VALU templates only hold the kinds above.
            _ => Operand::Imm(raw as i32),
        };
        if matches!(operand, Operand::Literal(_)) {
            lit = true;
        }
        if n < MAX_SLOTS {
            slots[n] = Slot { role, operand, raw };
            n += 1;
        }
    }
    if lit && lit_word.is_none() {
        return Err(cx.truncated(enc, base + 1));
    }
    let _ = form;
    Ok((n as u8, lit))
}

pub(crate) const EMPTY_SLOT: Slot = Slot {
    role: Role::Src0,
    operand: Operand::Null,
    raw: 0,
};

pub(crate) fn canonical_of(r: &Row, words: &[u32; 5]) -> bool {
    (words[0] & r.must[0]) == r.want[0] && (words[1] & r.must[1]) == r.want[1]
}

pub(crate) fn copy_words(cx: &Ctx, n: usize) -> [u32; 5] {
    let mut w = [0u32; 5];
    for (i, x) in w.iter_mut().enumerate().take(n.min(5)) {
        *x = cx.w(i);
    }
    w
}

fn templated(
    cx: &Ctx,
    enc: Encoding,
    form: Form,
    table: Table,
    op: u32,
    base: usize,
) -> Result<Instruction, DecodeError> {
    if cx.avail() < base {
        return Err(cx.truncated(enc, base));
    }
    let r = row(cx.target, table, op as usize).ok_or_else(|| cx.unknown(enc, op))?;
    let (w0, w1) = (cx.w(0), if base > 1 { cx.w(1) } else { 0 });
    let form = match (enc, form) {
        (Encoding::Vop3, _) if r.mn.ends_with("_e64") => Form::E64,
        (Encoding::Vop3, _) if is_promoted(r) => Form::E64,
        _ => form,
    };
    let mut slots = [EMPTY_SLOT; MAX_SLOTS];
    let f = |role: Role| field(enc, form, role, w0, w1);
    let (nslots, lit) = read_template(cx, enc, form, r, base, &f, &mut slots)?;
    let size = base + lit as usize;
    let words = copy_words(cx, size);
    let mut mods = VopMods::default();
    let mut control = Control::None;
    match (enc, form) {
        (Encoding::Vop3, _) => {
            let vop3b = r.tpl.iter().any(|t| {
                matches!(
                    t,
                    Tok::F {
                        role: Role::Sdst,
                        ..
                    }
                )
            });
            if !vop3b {
                mods.abs = bits(w0, 10, 8) as u8;
                mods.op_sel = bits(w0, 14, 11) as u8;
            }
            mods.clamp = bit(w0, 15);
            mods.omod = bits(w1, 28, 27) as u8;
            mods.neg = bits(w1, 31, 29) as u8;
        }
        (Encoding::Vop3p, _) => {
            mods.neg_hi = bits(w0, 10, 8) as u8;
            mods.op_sel = bits(w0, 13, 11) as u8;
            mods.op_sel_hi = (bits(w1, 28, 27) | bits(w0, 14, 14) << 2) as u8;
            mods.clamp = bit(w0, 15);
            mods.neg = bits(w1, 31, 29) as u8;
        }
        (_, Form::Dpp16) => {
            let raw = bits(w1, 16, 8) as u16;
            mods.neg = (bit(w1, 20) as u8) | (bit(w1, 22) as u8) << 1;
            mods.abs = (bit(w1, 21) as u8) | (bit(w1, 23) as u8) << 1;
            control = Control::Dpp16(Dpp16 {
                ctrl: dpp_ctrl(raw),
                ctrl_raw: raw,
                row_mask: bits(w1, 31, 28) as u8,
                bank_mask: bits(w1, 27, 24) as u8,
                bound_ctrl: bit(w1, 19),
                fi: bit(w1, 18),
            });
        }
        (_, Form::Dpp8) => {
            let mut sel = [0u8; 8];
            for (i, s) in sel.iter_mut().enumerate() {
                *s = bits(w1, 10 + 3 * i as u32, 8 + 3 * i as u32) as u8;
            }
            control = Control::Dpp8(Dpp8 {
                sel,
                fi: bits(w0, 8, 0) == 0xea,
            });
        }
        (_, Form::Sdwa) => {
            // SDWA has no room for a literal dword.
            if let Some(s) = slots[..nslots as usize]
                .iter()
                .find(|s| matches!(s.operand, Operand::Literal(_)))
            {
                return Err(cx.reserved(2, "SDWA source (literal)", s.raw));
            }
            mods.neg = (bit(w1, 20) as u8) | (bit(w1, 28) as u8) << 1;
            mods.abs = (bit(w1, 21) as u8) | (bit(w1, 29) as u8) << 1;
            let vopc = enc == Encoding::Vopc;
            let sd = vopc && bit(w1, 15);
            control = Control::Sdwa(Sdwa {
                dst_sel: sdwa_sel(bits(w1, 10, 8)),
                dst_unused: bits(w1, 12, 11) as u8,
                src0_sel: sdwa_sel(bits(w1, 18, 16)),
                src1_sel: sdwa_sel(bits(w1, 26, 24)),
                sext: [bit(w1, 19), bit(w1, 27)],
                clamp: bit(w1, 13),
                omod: bits(w1, 15, 14) as u8,
                sdst: if sd {
                    Some(bits(w1, 14, 8) as u8)
                } else {
                    None
                },
            });
            if vopc {
                mods.clamp = bit(w1, 13);
            }
            // Select value 7 is reserved; LLVM rejects it where the operation reads the select (it prints the
            // reserved dst_unused value 3 as UNUSED_PAD, so that one decodes).
            let used: &[(u32, u32, &str)] = match enc {
                Encoding::Vop1 => &[
                    (10, 8, "dst_sel"),
                    (12, 11, "dst_unused"),
                    (18, 16, "src0_sel"),
                ],
                Encoding::Vop2 => &[
                    (10, 8, "dst_sel"),
                    (12, 11, "dst_unused"),
                    (18, 16, "src0_sel"),
                    (26, 24, "src1_sel"),
                ],
                _ => &[(18, 16, "src0_sel"), (26, 24, "src1_sel")],
            };
            for &(hi, lo, name) in used {
                let v = bits(w1, hi, lo);
                if v == 7 && name != "dst_unused" {
                    return Err(cx.reserved(2, name, v));
                }
            }
        }
        _ => {}
    }
    Ok(Instruction {
        target: cx.target,
        op: r.op,
        encoding: enc,
        form,
        mods,
        control,
        canonical: canonical_of(r, &words) && !super::tables::is_beyond_llvm19(r),
        size: size as u8,
        words,
        slots,
        nslots,
        row: r,
    })
}

/// A VOP3 row of an operation that also has a VOP1/VOP2/VOPC form prints with `_e64`; a few do not
/// (`v_interp_*`, `v_cndmask_b32_e64` does) so the suffix is the test.
fn is_promoted(r: &Row) -> bool {
    r.mn.ends_with("_e64")
}

pub(crate) fn sdwa_sel(v: u32) -> SdwaSel {
    match v {
        0..=3 => SdwaSel::Byte(v as u8),
        4 | 5 => SdwaSel::Word(v as u8 - 4),
        6 => SdwaSel::Dword,
        _ => SdwaSel::Reserved(v as u8),
    }
}

/// dpp_ctrl values (RDNA ISA manual, "DPP16"; LLVM `DppCtrl` in SIDefines.h names the same ranges).
pub(crate) fn dpp_ctrl(raw: u16) -> DppCtrl {
    match raw {
        0x000..=0x0ff => DppCtrl::QuadPerm([
            (raw & 3) as u8,
            (raw >> 2 & 3) as u8,
            (raw >> 4 & 3) as u8,
            (raw >> 6 & 3) as u8,
        ]),
        0x101..=0x10f => DppCtrl::RowShl((raw & 0xf) as u8),
        0x111..=0x11f => DppCtrl::RowShr((raw & 0xf) as u8),
        0x121..=0x12f => DppCtrl::RowRor((raw & 0xf) as u8),
        0x140 => DppCtrl::RowMirror,
        0x141 => DppCtrl::RowHalfMirror,
        0x150..=0x15f => DppCtrl::RowShare((raw & 0xf) as u8),
        0x160..=0x16f => DppCtrl::RowXmask((raw & 0xf) as u8),
        _ => DppCtrl::Reserved(raw),
    }
}
