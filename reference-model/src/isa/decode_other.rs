//! Scalar, memory, interpolation and export encodings.

use super::decode::{bits, canonical_of, copy_words, Ctx, EMPTY_SLOT};
use super::error::DecodeError;
use super::operand::{decode_src, Operand};
use super::tables::{row, Kind, Row, Table, Tok};
use super::types::*;

fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}

pub(crate) fn decode(cx: &Ctx, enc: Encoding) -> Result<Instruction, DecodeError> {
    let w0 = cx.w(0);
    let w1 = cx.w(1);
    match enc {
        Encoding::Sop2 => generic(cx, enc, Table::Sop2, bits(w0, 29, 23), 1),
        Encoding::Sopk => generic(cx, enc, Table::Sopk, bits(w0, 27, 23), 1),
        Encoding::Sop1 => generic(cx, enc, Table::Sop1, bits(w0, 15, 8), 1),
        Encoding::Sopc => generic(cx, enc, Table::Sopc, bits(w0, 22, 16), 1),
        Encoding::Sopp => generic(cx, enc, Table::Sopp, bits(w0, 22, 16), 1),
        Encoding::Smem => generic(cx, enc, Table::Smem, bits(w0, 25, 18), 2),
        Encoding::Vintrp => generic(cx, enc, Table::Vintrp, bits(w0, 17, 16), 1),
        Encoding::Ds => generic(cx, enc, Table::Ds, bits(w0, 25, 18), 2),
        Encoding::Mubuf => generic(cx, enc, Table::Mubuf, bits(w0, 25, 18), 2),
        Encoding::Mtbuf => generic(
            cx,
            enc,
            Table::Mtbuf,
            bits(w0, 18, 16) | bits(w1, 21, 21) << 3,
            2,
        ),
        Encoding::Flat => {
            let glc = bit(w0, 16);
            let t = match (bits(w0, 15, 14), glc) {
                (0, false) => Table::Flat,
                (0, true) => Table::FlatGlc,
                (1, false) => Table::Scratch,
                (1, true) => Table::ScratchGlc,
                (2, false) => Table::Global,
                (2, true) => Table::GlobalGlc,
                _ => return Err(cx.unknown(enc, bits(w0, 24, 18))),
            };
            generic(cx, enc, t, bits(w0, 24, 18), 2)
        }
        Encoding::Mimg => super::decode_mimg::decode(cx),
        Encoding::Exp => super::decode_mimg::decode_exp(cx),
        _ => Err(cx.unknown(enc, 0)),
    }
}

fn field(enc: Encoding, role: Role, w0: u32, w1: u32) -> u32 {
    match enc {
        Encoding::Sop2 | Encoding::Sop1 | Encoding::Sopc => match role {
            Role::Sdst => bits(w0, 22, 16),
            Role::Src0 => bits(w0, 7, 0),
            Role::Src1 => bits(w0, 15, 8),
            _ => 0,
        },
        Encoding::Sopk => match role {
            Role::Sdst => bits(w0, 22, 16),
            _ => bits(w0, 15, 0),
        },
        Encoding::Sopp => bits(w0, 15, 0),
        Encoding::Smem => match role {
            Role::Sdst => bits(w0, 12, 6),
            Role::Sbase => bits(w0, 5, 0),
            Role::Soffset => bits(w1, 31, 25),
            _ => 0,
        },
        Encoding::Vintrp => match role {
            Role::Vdst => bits(w0, 25, 18),
            Role::Src0 => bits(w0, 7, 0),
            Role::Attr => bits(w0, 15, 10) | bits(w0, 9, 8) << 6,
            _ => 0,
        },
        Encoding::Ds => match role {
            Role::Vaddr => bits(w1, 7, 0),
            Role::Vdata => bits(w1, 15, 8),
            Role::Vdata1 => bits(w1, 23, 16),
            Role::Vdst => bits(w1, 31, 24),
            _ => 0,
        },
        Encoding::Mubuf | Encoding::Mtbuf => match role {
            Role::Vaddr => bits(w1, 7, 0),
            Role::Vdata => bits(w1, 15, 8),
            Role::Srsrc => bits(w1, 20, 16),
            Role::Soffset => bits(w1, 31, 24),
            _ => 0,
        },
        Encoding::Flat => match role {
            Role::Vaddr => bits(w1, 7, 0),
            Role::Vdata => bits(w1, 15, 8),
            Role::Sbase => bits(w1, 22, 16),
            Role::Vdst => bits(w1, 31, 24),
            _ => 0,
        },
        _ => 0,
    }
}

fn mem_fields(enc: Encoding, w0: u32, w1: u32) -> Control {
    let mut m = MemFields::default();
    match enc {
        Encoding::Smem => {
            m.glc = bit(w0, 16);
            m.dlc = bit(w0, 14);
            m.offset = ((bits(w1, 20, 0) << 11) as i32) >> 11;
            // offset is 21-bit signed (RDNA ISA manual, SMEM microcode format).
        }
        Encoding::Vintrp => {
            m.attr = bits(w0, 15, 10) as u8;
            m.attr_chan = bits(w0, 9, 8) as u8;
        }
        Encoding::Ds => {
            m.offset01 = [bits(w0, 7, 0) as u8, bits(w0, 15, 8) as u8];
            m.offset = bits(w0, 15, 0) as i32;
            m.gds = bit(w0, 17);
        }
        Encoding::Mubuf | Encoding::Mtbuf => {
            m.offset = bits(w0, 11, 0) as i32;
            m.offen = bit(w0, 12);
            m.idxen = bit(w0, 13);
            m.glc = bit(w0, 14);
            m.dlc = bit(w0, 15);
            m.slc = bit(w1, 22);
            m.tfe = bit(w1, 23);
            if enc == Encoding::Mubuf {
                m.lds = bit(w0, 16);
            } else {
                m.format = bits(w0, 25, 19) as u8;
            }
        }
        Encoding::Flat => {
            m.seg = bits(w0, 15, 14) as u8;
            // Global and scratch offsets are signed 12-bit; flat offsets are unsigned (bit 11 must be zero).
            m.offset = if m.seg == 0 {
                bits(w0, 11, 0) as i32
            } else {
                ((bits(w0, 11, 0) << 20) as i32) >> 20
            };
            m.dlc = bit(w0, 12);
            m.lds = bit(w0, 13);
            m.glc = bit(w0, 16);
            m.slc = bit(w0, 17);
        }
        _ => return Control::None,
    }
    Control::Mem(m)
}

/// Reads a non-VALU instruction whose operands follow its row's template.
fn generic(
    cx: &Ctx,
    enc: Encoding,
    table: Table,
    op: u32,
    base: usize,
) -> Result<Instruction, DecodeError> {
    if cx.avail() < base {
        return Err(cx.truncated(enc, base));
    }
    let r: &'static Row = row(cx.target, table, op as usize).ok_or_else(|| cx.unknown(enc, op))?;
    let w0 = cx.w(0);
    let w1 = if base > 1 { cx.w(1) } else { 0 };
    let control = match enc {
        Encoding::Sopk | Encoding::Sopp => Control::Simm16(bits(w0, 15, 0) as u16),
        _ => mem_fields(enc, w0, w1),
    };
    let m = if let Control::Mem(m) = control {
        m
    } else {
        MemFields::default()
    };
    let lit_word = if cx.avail() > base {
        Some(cx.w(base))
    } else {
        None
    };
    let mut slots = [EMPTY_SLOT; MAX_SLOTS];
    let mut n = 0usize;
    let mut lit = false;
    // With lds set, loads write LDS instead of VGPRs and LLVM prints no data register.
    let lds_load = m.lds
        && match enc {
            Encoding::Mubuf => r.show[0] >> 16 & 1 != 0,
            Encoding::Flat => r.show[0] >> 13 & 1 != 0,
            _ => false,
        };
    // LLVM has no lds form with tfe; the hardware defines none either.
    let noncanon = lds_load && m.tfe;
    for t in r.tpl {
        let Tok::F {
            role, kind, width, ..
        } = *t
        else {
            continue;
        };
        if lds_load
            && matches!(
                (enc, role),
                (Encoding::Mubuf, Role::Vdata) | (Encoding::Flat, Role::Vdst)
            )
        {
            continue;
        }
        let raw = field(enc, role, w0, w1);
        let reserved = |what| cx.reserved(base, what, raw);
        let mut width = width;
        let operand = match kind {
            Kind::V => {
                let mut first = raw;
                match (enc, role) {
                    (Encoding::Mubuf | Encoding::Mtbuf, Role::Vaddr) => {
                        width = m.offen as u8 + m.idxen as u8;
                    }
                    (Encoding::Mubuf | Encoding::Mtbuf, Role::Vdata) => {
                        width += m.tfe as u8;
                    }
                    (Encoding::Flat, Role::Vaddr) => {
                        let saddr = bits(w1, 22, 16);
                        width = match m.seg {
                            // Scratch with saddr 0x7f is "ST" mode (no address register at all) on gfx1030,
                            // and in LLVM's lds forms on gfx1013 too.
                            1 if saddr == 0x7f
                                && (cx.target == super::Target::Gfx1030 || m.lds) =>
                            {
                                0
                            }
                            1 if saddr != 0x7d => 0,
                            1 => 1,
                            2 if saddr != 0x7d => 1,
                            _ => 2,
                        };
                    }
                    _ => {}
                }
                if width == 0 {
                    first = 0;
                }
                if first as usize + width as usize > 256 {
                    return Err(reserved("vector register range"));
                }
                if width == 0 {
                    Operand::Off
                } else {
                    Operand::Vgpr {
                        first: first as u8,
                        width,
                    }
                }
            }
            Kind::S | Kind::Src | Kind::SmemOff => {
                let st_mode = enc == Encoding::Flat
                    && m.seg == 1
                    && raw == 0x7f
                    && (cx.target == super::Target::Gfx1030 || m.lds);
                if enc == Encoding::Flat && raw == 0x7d || st_mode {
                    Operand::Off
                } else {
                    decode_src(raw as u16, width, lit_word)
                        .map_err(|_| reserved("scalar operand"))?
                }
            }
            Kind::K => decode_src(255, width, lit_word).map_err(|_| reserved("literal"))?,
            Kind::Sx2 => {
                decode_src((raw * 2) as u16, width, None).map_err(|_| reserved("scalar base"))?
            }
            Kind::Sx4 => {
                // A descriptor is four SGPRs or four TTMPs; a quad that runs into VCC or M0 names nothing.
                let code = raw * 4;
                if !(code + 4 <= 106 || (108..=120).contains(&code)) {
                    return Err(reserved("resource descriptor"));
                }
                decode_src(code as u16, width, None).map_err(|_| reserved("resource"))?
            }
            Kind::Simm(_) | Kind::Attr | Kind::Param => Operand::Imm(raw as i32),
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
    let size = base + lit as usize;
    let words = copy_words(cx, size);
    Ok(Instruction {
        target: cx.target,
        op: r.op,
        encoding: enc,
        form: Form::Native,
        mods: VopMods::default(),
        control,
        canonical: canonical_of(r, &words) && !noncanon,
        size: size as u8,
        words,
        slots,
        nslots: n as u8,
        row: r,
    })
}
