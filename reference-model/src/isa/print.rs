//! LLVM 19 assembler syntax for decoded instructions (the text `llvm-mc --disassemble` prints after the tab).

use std::fmt::{self, Write};

use super::operand::{ImmClass, Operand};
use super::tables::{Kind, Tok, BAD};
use super::types::*;

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(64);
        write_inst(&mut s, self)?;
        f.write_str(&s)
    }
}

impl Instruction {
    /// Appends what `Display` prints to `out`, without the temporary string `to_string` makes (a listing of a
    /// million instructions writes them all into one buffer).
    pub fn write_to(&self, out: &mut String) {
        // Writing to a String cannot fail.
        let _ = write_inst(out, self);
    }
}

fn is_vop3_like(i: &Instruction) -> bool {
    matches!(i.encoding, Encoding::Vop3 | Encoding::Vop3p)
}

/// Prints one source operand with its neg/abs modifiers.
fn write_src(
    out: &mut String,
    i: &Instruction,
    idx: usize,
    op: Operand,
    class: ImmClass,
    bad: u8,
) -> fmt::Result {
    let r = i.row;
    let (neg, abs, sext) = match (i.encoding, i.form) {
        (Encoding::Vop3, _) => {
            // Integer sources print the neg bit as sign extension.
            let n = r.show[1] >> (29 + idx) & 1 != 0 && i.mods.neg >> idx & 1 != 0;
            let as_sext = r.flags >> (2 + idx) & 1 != 0;
            (
                n && !as_sext,
                r.show[0] >> (8 + idx) & 1 != 0 && i.mods.abs >> idx & 1 != 0,
                n && as_sext,
            )
        }
        (Encoding::Vop3p, _) if i.row.mn.starts_with("v_fma_mix") => (
            r.show[1] >> (29 + idx) & 1 != 0 && i.mods.neg >> idx & 1 != 0,
            r.show[0] >> (8 + idx) & 1 != 0 && i.mods.neg_hi >> idx & 1 != 0,
            false,
        ),
        (_, Form::Dpp16) if idx < 2 => {
            // Integer sources print the neg bit as sign extension.
            let n = r.show[1] >> (20 + 2 * idx) & 1 != 0 && i.mods.neg >> idx & 1 != 0;
            let as_sext = r.flags >> idx & 1 != 0;
            (
                n && !as_sext,
                r.show[1] >> (21 + 2 * idx) & 1 != 0 && i.mods.abs >> idx & 1 != 0,
                n && as_sext,
            )
        }
        (_, Form::Sdwa) if idx < 2 => {
            let Control::Sdwa(s) = i.control else {
                unreachable!("SDWA form always has SDWA control")
            };
            (
                r.show[1] >> (20 + 8 * idx) & 1 != 0 && i.mods.neg >> idx & 1 != 0,
                r.show[1] >> (21 + 8 * idx) & 1 != 0 && i.mods.abs >> idx & 1 != 0,
                r.show[1] >> (19 + 8 * idx) & 1 != 0 && s.sext[idx],
            )
        }
        _ => (false, false, false),
    };
    // LLVM writes neg(...) around an immediate without abs: "-1" would read as the constant -1.
    let is_imm = matches!(
        op,
        Operand::InlineInt(_) | Operand::InlineFloat(_) | Operand::Literal(_)
    );
    let neg_fn = neg && !abs && is_imm;
    if neg_fn {
        out.push_str("neg(");
    } else if neg {
        out.push('-');
    }
    if sext {
        out.push_str("sext(");
    }
    if abs {
        out.push('|');
    }
    match (class, op) {
        (ImmClass::Attr, Operand::Imm(raw)) => write!(
            out,
            "attr{}.{}",
            raw & 63,
            ['x', 'y', 'z', 'w'][(raw >> 6 & 3) as usize]
        )?,
        (ImmClass::InterpParam, Operand::Imm(raw)) => match raw {
            0 => out.push_str("p10"),
            1 => out.push_str("p20"),
            2 => out.push_str("p0"),
            _ => write!(out, "invalid_param_{raw}")?,
        },
        _ => op.fmt_as(out, class)?,
    }
    push_bad(out, op, bad);
    if abs {
        out.push('|');
    }
    if sext {
        out.push(')');
    }
    if neg_fn {
        out.push(')');
    }
    Ok(())
}

/// LLVM's comment after an operand whose register class does not fit the instruction.
pub(crate) fn push_bad(out: &mut String, op: Operand, bad: u8) {
    // Row 0 holds no comments: the common case returns here.
    if bad == 0 {
        return;
    }
    let b = &BAD[bad as usize];
    let special = |k: u8| {
        if b.special_mask >> k & 1 != 0 {
            b.special
        } else {
            ""
        }
    };
    out.push_str(match op {
        Operand::LdsDirect => b.lds,
        Operand::Vgpr { .. } => b.vgpr,
        Operand::InlineInt(_) | Operand::InlineFloat(_) | Operand::Literal(_) => b.imm,
        Operand::Sgpr { .. } => b.sgpr,
        Operand::VccLo { .. } => special(0),
        Operand::VccHi => special(1),
        Operand::Ttmp { .. } => special(2),
        Operand::M0 => special(3),
        Operand::Null => special(4),
        Operand::ExecLo { .. } => special(5),
        Operand::ExecHi => special(6),
        _ => "",
    });
}

fn src_index(role: Role) -> usize {
    match role {
        Role::Src1 => 1,
        Role::Src2 => 2,
        _ => 0,
    }
}

pub(crate) fn write_inst(out: &mut String, i: &Instruction) -> fmt::Result {
    out.push_str(i.row.mn);
    if super::print_other::write_special(out, i)? {
        return Ok(());
    }
    let mut first = true;
    let mut k = 0usize;
    for t in i.row.tpl {
        if let Tok::F { role, .. } = *t {
            match i.operands().get(k) {
                Some(slot) if slot.role == role => {
                    if super::print_other::token_is_empty(t, slot) {
                        k += 1;
                        continue;
                    }
                }
                // The decoder left this operand out for this form (loads into LDS).
                _ => continue,
            }
        }
        if !first {
            out.push(',');
        }
        out.push(' ');
        first = false;
        match *t {
            Tok::T(s) => {
                // VOPC SDWA with an explicit sdst prints it where the implicit VCC would be.
                if let Control::Sdwa(Sdwa { sdst: Some(d), .. }) = i.control {
                    if s == "vcc_lo" && k == 0 {
                        let o =
                            super::operand::decode_src(d as u16, 1, None).unwrap_or(Operand::Null);
                        o.fmt_as(out, ImmClass::B32)?;
                        continue;
                    }
                }
                out.push_str(s)
            }
            Tok::F {
                role,
                kind,
                class,
                bad,
                ..
            } => {
                let Some(slot) = i.slots.get(k).copied() else {
                    continue;
                };
                k += 1;
                match kind {
                    Kind::Src => write_src(out, i, src_index(role), slot.operand, class, bad)?,
                    Kind::V => {
                        if slot.operand == Operand::Off {
                            out.push_str("off");
                            continue;
                        }
                        let Operand::Vgpr { first, width } = slot.operand else {
                            continue;
                        };
                        if i.encoding == Encoding::Vop3
                            || i.form == Form::Sdwa
                            || i.form == Form::Dpp16
                        {
                            // Sources printed from a VGPR-only field still take modifiers in these forms.
                            if role != Role::Vdst {
                                write_src(out, i, src_index(role), slot.operand, class, bad)?;
                                continue;
                            }
                        }
                        super::operand::fmt_range(out, "v", first as u32, width)?;
                        out.push_str(BAD[bad as usize].vgpr);
                    }
                    Kind::S | Kind::K => {
                        slot.operand.fmt_as(out, class)?;
                        push_bad(out, slot.operand, bad);
                    }
                    _ => super::print_other::write_operand(out, i, kind, &slot)?,
                }
            }
        }
    }
    if is_vop3_like(i) || i.form != Form::Native && i.form != Form::E32 {
        write_vop_mods(out, i)?;
    } else {
        super::print_other::write_mods(out, i)?;
    }
    Ok(())
}

fn nsrc(i: &Instruction) -> usize {
    i.operands()
        .iter()
        .filter(|s| matches!(s.role, Role::Src0 | Role::Src1 | Role::Src2))
        .count()
}

fn list(out: &mut String, name: &str, v: u8, n: usize) {
    out.push(' ');
    out.push_str(name);
    out.push_str(":[");
    for k in 0..n {
        if k > 0 {
            out.push(',');
        }
        out.push(if v >> k & 1 != 0 { '1' } else { '0' });
    }
    out.push(']');
}

fn write_vop_mods(out: &mut String, i: &Instruction) -> fmt::Result {
    let r = i.row;
    let m = i.mods;
    match (i.encoding, i.form) {
        (Encoding::Vop3, _) => {
            // v_interp_*_f16 keep a `high` flag in bit 8 of the attribute source field.
            let attr_high = r
                .tpl
                .iter()
                .filter(|t| matches!(t, Tok::F { .. }))
                .zip(i.operands())
                .any(|(t, s)| {
                    matches!(
                        t,
                        Tok::F {
                            class: ImmClass::Attr,
                            ..
                        }
                    ) && s.raw >> 8 & 1 != 0
                });
            if attr_high {
                out.push_str(" high");
            }
            let sel_shown = r.show[0] & (0xf << 11);
            if sel_shown != 0 && m.op_sel & (sel_shown >> 11) as u8 != 0 {
                // LLVM prints one flag per source and one for the destination (v_permlane*: two flags,
                // fi and bound_ctrl); the count was measured per operation.
                let count = (r.flags >> 5) as usize;
                let n = if count > 0 { count - 1 } else { nsrc(i) };
                let mut v = m.op_sel & ((1 << n) - 1);
                if m.op_sel & 8 != 0 {
                    v |= 1 << n;
                }
                if count == 2 {
                    v = m.op_sel & 3;
                }
                list(out, "op_sel", v, n + 1);
            }
            if r.show[0] >> 15 & 1 != 0 && m.clamp {
                out.push_str(" clamp");
            }
            if r.show[1] & (3 << 27) != 0 {
                match m.omod {
                    1 => out.push_str(" mul:2"),
                    2 => out.push_str(" mul:4"),
                    3 => out.push_str(" div:2"),
                    _ => {}
                }
            }
        }
        (Encoding::Vop3p, _) => {
            let n = nsrc(i);
            let all = (1u8 << n) - 1;
            let mix = r.mn.starts_with("v_fma_mix");
            if m.op_sel & all != 0 {
                list(out, "op_sel", m.op_sel, n);
            }
            if mix {
                if m.op_sel_hi & all != 0 {
                    list(out, "op_sel_hi", m.op_sel_hi, n);
                }
            } else {
                if m.op_sel_hi & all != all {
                    list(out, "op_sel_hi", m.op_sel_hi, n);
                }
                if m.neg & all != 0 {
                    list(out, "neg_lo", m.neg, n);
                }
                if m.neg_hi & all != 0 {
                    list(out, "neg_hi", m.neg_hi, n);
                }
            }
            if m.clamp && r.show[0] >> 15 & 1 != 0 {
                out.push_str(" clamp");
            }
        }
        (_, Form::Dpp16) => {
            if let Control::Dpp16(d) = i.control {
                match d.ctrl {
                    DppCtrl::QuadPerm(q) => {
                        write!(out, " quad_perm:[{},{},{},{}]", q[0], q[1], q[2], q[3])?
                    }
                    DppCtrl::RowShl(n) => write!(out, " row_shl:{n}")?,
                    DppCtrl::RowShr(n) => write!(out, " row_shr:{n}")?,
                    DppCtrl::RowRor(n) => write!(out, " row_ror:{n}")?,
                    DppCtrl::RowMirror => out.push_str(" row_mirror"),
                    DppCtrl::RowHalfMirror => out.push_str(" row_half_mirror"),
                    DppCtrl::RowShare(n) => write!(out, " row_share:{n}")?,
                    DppCtrl::RowXmask(n) => write!(out, " row_xmask:{n}")?,
                    DppCtrl::Reserved(raw) => out.push_str(match raw {
                        0x130 => " /* wave_shl is not supported starting from GFX10 */",
                        0x134 => " /* wave_rol is not supported starting from GFX10 */",
                        0x138 => " /* wave_shr is not supported starting from GFX10 */",
                        0x13c => " /* wave_ror is not supported starting from GFX10 */",
                        0x142 | 0x143 => " /* row_bcast is not supported starting from GFX10 */",
                        _ => " /* Invalid dpp_ctrl value */",
                    }),
                }
                write!(
                    out,
                    " row_mask:0x{:x} bank_mask:0x{:x}",
                    d.row_mask, d.bank_mask
                )?;
                if d.bound_ctrl {
                    out.push_str(" bound_ctrl:1");
                }
                if d.fi {
                    out.push_str(" fi:1");
                }
            }
        }
        (_, Form::Dpp8) => {
            if let Control::Dpp8(d) = i.control {
                let s = d.sel;
                write!(
                    out,
                    " dpp8:[{},{},{},{},{},{},{},{}]",
                    s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
                )?;
                if d.fi {
                    out.push_str(" fi:1");
                }
            }
        }
        (_, Form::Sdwa) => {
            if let Control::Sdwa(s) = i.control {
                if s.clamp && r.show[1] >> 13 & 1 != 0 {
                    out.push_str(" clamp");
                }
                if i.encoding != Encoding::Vopc && r.show[1] & (3 << 14) != 0 {
                    match s.omod {
                        1 => out.push_str(" mul:2"),
                        2 => out.push_str(" mul:4"),
                        3 => out.push_str(" div:2"),
                        _ => {}
                    }
                }
                if i.encoding != Encoding::Vopc {
                    out.push_str(" dst_sel:");
                    sel_name(out, s.dst_sel);
                    out.push_str(match s.dst_unused {
                        // LLVM prints the reserved value 3 as UNUSED_PAD.
                        0 | 3 => " dst_unused:UNUSED_PAD",
                        1 => " dst_unused:UNUSED_SEXT",
                        _ => " dst_unused:UNUSED_PRESERVE",
                    });
                }
                out.push_str(" src0_sel:");
                sel_name(out, s.src0_sel);
                if i.operands().iter().any(|x| x.role == Role::Src1) {
                    out.push_str(" src1_sel:");
                    sel_name(out, s.src1_sel);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn sel_name(out: &mut String, s: SdwaSel) {
    out.push_str(match s {
        SdwaSel::Byte(0) => "BYTE_0",
        SdwaSel::Byte(1) => "BYTE_1",
        SdwaSel::Byte(2) => "BYTE_2",
        SdwaSel::Byte(_) => "BYTE_3",
        SdwaSel::Word(0) => "WORD_0",
        SdwaSel::Word(_) => "WORD_1",
        SdwaSel::Dword => "DWORD",
        SdwaSel::Reserved(_) => "",
    });
}
