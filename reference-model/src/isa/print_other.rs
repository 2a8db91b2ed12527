//! Printing of the scalar, memory, interpolation and export encodings: immediate styles and modifiers.
//!
//! The symbolic names (hwreg ids, message ids, buffer formats) are LLVM 19's spellings, measured by probing
//! `llvm-mc`; where a value has no name LLVM prints it numerically and so does this module.

use std::fmt::{self, Write};

use super::operand::{put_dec, put_hex, Operand};
use super::tables::{Style, Tok};
use super::types::*;
use super::Target;

/// Instructions whose whole operand list has a syntax of its own; true when it printed them.
pub(crate) fn write_special(out: &mut String, i: &Instruction) -> Result<bool, fmt::Error> {
    match i.encoding {
        Encoding::Exp | Encoding::Mimg => {
            super::decode_mimg::write(out, i)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Whether a template token prints nothing at all (s_endpgm 0), so the separator is skipped too.
pub(crate) fn token_is_empty(t: &Tok, slot: &Slot) -> bool {
    matches!(
        t,
        Tok::F {
            kind: super::tables::Kind::Simm(Style::Endpgm),
            ..
        }
    ) && slot.raw == 0
}

/// Prints one operand of a kind only these encodings have.
pub(crate) fn write_operand(
    out: &mut String,
    i: &Instruction,
    kind: super::tables::Kind,
    slot: &Slot,
) -> fmt::Result {
    use super::tables::Kind;
    match kind {
        Kind::Simm(style) => fmt_simm(out, style, slot.raw as u16, i.target),
        Kind::Attr => {
            write!(
                out,
                "attr{}.{}",
                slot.raw & 63,
                ['x', 'y', 'z', 'w'][(slot.raw >> 6 & 3) as usize]
            )
        }
        Kind::Param => match slot.raw {
            0 => out.write_str("p10"),
            1 => out.write_str("p20"),
            2 => out.write_str("p0"),
            n => write!(out, "invalid_param_{n}"),
        },
        Kind::SmemOff => {
            let Control::Mem(m) = i.control else {
                return Ok(());
            };
            // A null soffset with a non-zero offset prints as the offset alone.
            if slot.operand == Operand::Null && m.offset != 0 {
                smem_off(out, m.offset)
            } else {
                slot.operand.fmt_as(out, super::operand::ImmClass::B32)
            }
        }
        _ => {
            slot.operand.fmt_as(out, super::operand::ImmClass::B32)?;
            let bad = match i
                .row
                .tpl
                .iter()
                .find(|t| matches!(t, Tok::F { role, .. } if *role == slot.role))
            {
                Some(Tok::F { bad, .. }) => *bad,
                _ => 0,
            };
            super::print::push_bad(out, slot.operand, bad);
            Ok(())
        }
    }
}

fn smem_off(out: &mut String, v: i32) -> fmt::Result {
    if v < 0 {
        out.push('-');
    }
    put_hex(out, (v as i64).unsigned_abs())
}

fn flag(out: &mut String, i: &Instruction, word: usize, bit: u32, set: bool, name: &str) {
    if set && i.row.show[word] >> bit & 1 != 0 {
        out.push(' ');
        out.push_str(name);
    }
}

/// Modifiers after the operands for non-VALU encodings.
pub(crate) fn write_mods(out: &mut String, i: &Instruction) -> fmt::Result {
    let Control::Mem(m) = i.control else {
        return Ok(());
    };
    match i.encoding {
        Encoding::Smem => {
            let soff = i
                .operands()
                .iter()
                .find(|s| s.role == Role::Soffset)
                .map(|s| s.operand);
            if m.offset != 0 && soff.is_some_and(|o| o != Operand::Null) {
                out.push_str(" offset:");
                smem_off(out, m.offset)?;
            }
            flag(out, i, 0, 16, m.glc, "glc");
            flag(out, i, 0, 14, m.dlc, "dlc");
        }
        Encoding::Ds => {
            let two = i.row.show[0] & 0xff00 != 0 && is_two_offset(i.row.mn);
            if two {
                if m.offset01[0] != 0 {
                    out.push_str(" offset0:");
                    put_dec(out, m.offset01[0] as i64)?;
                }
                if m.offset01[1] != 0 {
                    out.push_str(" offset1:");
                    put_dec(out, m.offset01[1] as i64)?;
                }
            } else if i.row.show[0] & 0xffff != 0 && m.offset != 0 {
                if i.row.mn == "ds_swizzle_b32" {
                    out.push_str(" offset:");
                    swizzle(out, m.offset as u16)?;
                } else {
                    out.push_str(" offset:");
                    put_dec(out, m.offset as i64)?;
                }
            }
            flag(out, i, 0, 17, m.gds, "gds");
        }
        Encoding::Mubuf | Encoding::Mtbuf => {
            // Format 1 (BUF_FMT_8_UNORM) is the default LLVM leaves out.
            if i.encoding == Encoding::Mtbuf && m.format != 1 {
                out.push_str(" format:");
                buf_format(out, m.format, i.target);
            }
            flag(out, i, 0, 13, m.idxen, "idxen");
            flag(out, i, 0, 12, m.offen, "offen");
            // Operations without an offset operand (buffer_gl*_inv) ignore the field.
            if m.offset != 0 && i.row.show[0] & 0xfff != 0 {
                out.push_str(" offset:");
                put_dec(out, m.offset as i64)?;
            }
            flag(out, i, 0, 14, m.glc, "glc");
            flag(out, i, 1, 22, m.slc, "slc");
            flag(out, i, 0, 15, m.dlc, "dlc");
            flag(out, i, 0, 16, m.lds, "lds");
            flag(out, i, 1, 23, m.tfe, "tfe");
        }
        Encoding::Flat => {
            // Operations without an offset operand (buffer_gl*_inv) ignore the field.
            if m.offset != 0 && i.row.show[0] & 0xfff != 0 {
                out.push_str(" offset:");
                put_dec(out, m.offset as i64)?;
            }
            if i.row.mn.contains("_atomic_") {
                // Returning atomics carry glc in their mnemonic row; LLVM prints it as "glc" too.
                if m.glc {
                    out.push_str(" glc");
                }
            } else {
                flag(out, i, 0, 16, m.glc, "glc");
            }
            flag(out, i, 0, 17, m.slc, "slc");
            flag(out, i, 0, 12, m.dlc, "dlc");
            flag(out, i, 0, 13, m.lds, "lds");
        }
        _ => {}
    }
    Ok(())
}

fn is_two_offset(mn: &str) -> bool {
    [
        "ds_read2",
        "ds_write2",
        "ds_wrxchg2",
        "ds_read_addtid",
        "ds_cmpst2",
    ]
    .iter()
    .any(|p| mn.starts_with(p))
}

/// ds_swizzle_b32's offset, printed symbolically the way LLVM 19 does (AMDGPUInstPrinter::printSwizzle).
fn swizzle(out: &mut String, imm: u16) -> fmt::Result {
    if imm & 0xff00 == 0x8000 {
        // Quad permute mode: four 2-bit lane selectors.
        let l = |k: u16| (imm >> (2 * k)) & 3;
        return write!(
            out,
            "swizzle(QUAD_PERM,{},{},{},{})",
            l(0),
            l(1),
            l(2),
            l(3)
        );
    }
    if imm & 0x8000 != 0 {
        return write!(out, "{imm}");
    }
    let and = imm & 0x1f;
    let or = (imm >> 5) & 0x1f;
    let xor = (imm >> 10) & 0x1f;
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return write!(out, "swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return write!(out, "swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return write!(out, "swizzle(BROADCAST,{group},{or})");
    }
    // Per lane-id bit: the lane reads ((id & and) | or) ^ xor, so a bit either follows the id (p),
    // follows it inverted (i), or is a constant.
    let mut mask = String::with_capacity(5);
    for b in (0..5).rev() {
        let (a, o, x) = (and >> b & 1, or >> b & 1, xor >> b & 1);
        mask.push(match (a, o) {
            (1, 0) if x == 1 => 'i',
            (1, 0) => 'p',
            _ if o ^ x == 1 => '1',
            _ => '0',
        });
    }
    write!(out, "swizzle(BITMASK_PERM,\"{mask}\")")
}

fn buf_format(out: &mut String, f: u8, _t: Target) {
    const NAMES: [&str; 78] = [
        "INVALID",
        "8_UNORM",
        "8_SNORM",
        "8_USCALED",
        "8_SSCALED",
        "8_UINT",
        "8_SINT",
        "16_UNORM",
        "16_SNORM",
        "16_USCALED",
        "16_SSCALED",
        "16_UINT",
        "16_SINT",
        "16_FLOAT",
        "8_8_UNORM",
        "8_8_SNORM",
        "8_8_USCALED",
        "8_8_SSCALED",
        "8_8_UINT",
        "8_8_SINT",
        "32_UINT",
        "32_SINT",
        "32_FLOAT",
        "16_16_UNORM",
        "16_16_SNORM",
        "16_16_USCALED",
        "16_16_SSCALED",
        "16_16_UINT",
        "16_16_SINT",
        "16_16_FLOAT",
        "10_11_11_UNORM",
        "10_11_11_SNORM",
        "10_11_11_USCALED",
        "10_11_11_SSCALED",
        "10_11_11_UINT",
        "10_11_11_SINT",
        "10_11_11_FLOAT",
        "11_11_10_UNORM",
        "11_11_10_SNORM",
        "11_11_10_USCALED",
        "11_11_10_SSCALED",
        "11_11_10_UINT",
        "11_11_10_SINT",
        "11_11_10_FLOAT",
        "10_10_10_2_UNORM",
        "10_10_10_2_SNORM",
        "10_10_10_2_USCALED",
        "10_10_10_2_SSCALED",
        "10_10_10_2_UINT",
        "10_10_10_2_SINT",
        "2_10_10_10_UNORM",
        "2_10_10_10_SNORM",
        "2_10_10_10_USCALED",
        "2_10_10_10_SSCALED",
        "2_10_10_10_UINT",
        "2_10_10_10_SINT",
        "8_8_8_8_UNORM",
        "8_8_8_8_SNORM",
        "8_8_8_8_USCALED",
        "8_8_8_8_SSCALED",
        "8_8_8_8_UINT",
        "8_8_8_8_SINT",
        "32_32_UINT",
        "32_32_SINT",
        "32_32_FLOAT",
        "16_16_16_16_UNORM",
        "16_16_16_16_SNORM",
        "16_16_16_16_USCALED",
        "16_16_16_16_SSCALED",
        "16_16_16_16_UINT",
        "16_16_16_16_SINT",
        "16_16_16_16_FLOAT",
        "32_32_32_UINT",
        "32_32_32_SINT",
        "32_32_32_FLOAT",
        "32_32_32_32_UINT",
        "32_32_32_32_SINT",
        "32_32_32_32_FLOAT",
    ];
    match NAMES.get(f as usize) {
        Some(n) => {
            out.push_str("[BUF_FMT_");
            out.push_str(n);
            out.push(']');
        }
        None => {
            let _ = write!(out, "{f}");
        }
    }
}

/// A 16-bit immediate in LLVM's style for the operation.
pub(crate) fn fmt_simm(out: &mut String, style: Style, v: u16, target: Target) -> fmt::Result {
    match style {
        Style::Dec | Style::Endpgm => put_dec(out, v as i64),
        Style::Hex => put_hex(out, v as u64),
        Style::HexSmall => small(out, v),
        Style::Waitcnt => {
            let vm = (v & 0xf) | (v >> 14 & 3) << 4;
            let exp = v >> 4 & 7;
            let lgkm = v >> 8 & 0x3f;
            let all = vm == 63 && exp == 7 && lgkm == 63;
            let mut first = true;
            let mut put = |name: &str, val: u16, dflt: bool, out: &mut String| {
                if !dflt || all {
                    if !first {
                        out.push(' ');
                    }
                    first = false;
                    out.push_str(name);
                    out.push('(');
                    let _ = put_dec(out, val as i64);
                    out.push(')');
                }
            };
            put("vmcnt", vm, vm == 63, out);
            put("expcnt", exp, exp == 7, out);
            put("lgkmcnt", lgkm, lgkm == 63, out);
            Ok(())
        }
        Style::Sendmsg => sendmsg(out, v),
        Style::Depctr => depctr(out, v, target),
        Style::Hwreg => hwreg(out, v, target),
        Style::Version => version(out, v),
    }
}

fn small(out: &mut String, v: u16) -> fmt::Result {
    if v <= 64 {
        put_dec(out, v as i64)
    } else {
        put_hex(out, v as u64)
    }
}

fn sendmsg(out: &mut String, v: u16) -> fmt::Result {
    let id = v & 0xf;
    let op = v >> 4 & 7;
    let stream = v >> 8 & 3;
    let name = match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_GS",
        3 => "MSG_GS_DONE",
        4 => "MSG_SAVEWAVE",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        7 => "MSG_ORDERED_PS_DONE",
        8 => "MSG_EARLY_PRIM_DEALLOC",
        9 => "MSG_GS_ALLOC_REQ",
        10 => "MSG_GET_DOORBELL",
        11 => "MSG_GET_DDID",
        15 => "MSG_SYSMSG",
        _ => "",
    };
    const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
    const SYS_OPS: [&str; 5] = [
        "",
        "SYSMSG_OP_ECC_ERR_INTERRUPT",
        "SYSMSG_OP_REG_RD",
        "SYSMSG_OP_HOST_TRAP_ACK",
        "SYSMSG_OP_TTRACE_PC",
    ];
    // LLVM prints the symbolic form whenever the id, op and stream are each valid, even when other bits
    // are set; otherwise the numeric form if it re-encodes to the same value, else the plain number.
    let valid = match id {
        2 => (1..=3).contains(&op),
        3 => op <= 3 && (op != 0 || stream == 0),
        // SYSMSG_OP_HOST_TRAP_ACK (3) is not a gfx10 operation.
        15 => matches!(op, 1 | 2 | 4) && stream == 0,
        _ => !name.is_empty() && op == 0 && stream == 0,
    };
    if valid {
        out.push_str("sendmsg(");
        out.push_str(name);
        match id {
            2 | 3 => {
                write!(out, ", {}", GS_OPS[op as usize])?;
                if op != 0 {
                    write!(out, ", {stream}")?;
                }
            }
            15 => write!(out, ", {}", SYS_OPS[op as usize])?,
            _ => {}
        }
        out.push(')');
        Ok(())
    } else if v & !0x3ff == 0 && v & 0x80 == 0 {
        write!(out, "sendmsg({id}, {op}, {stream})")
    } else {
        write!(out, "{v}")
    }
}

fn depctr(out: &mut String, v: u16, target: Target) -> fmt::Result {
    // (name, shift, width) in LLVM's printing order.
    let fields: &[(&str, u32, u32)] = match target {
        Target::Gfx1013 => &[
            ("depctr_sa_sdst", 0, 1),
            ("depctr_va_vdst", 12, 4),
            ("depctr_va_sdst", 9, 3),
            ("depctr_va_ssrc", 8, 1),
            ("depctr_va_vcc", 1, 1),
            ("depctr_vm_vsrc", 2, 3),
        ],
        Target::Gfx1030 => &[
            ("depctr_hold_cnt", 7, 1),
            ("depctr_sa_sdst", 0, 1),
            ("depctr_va_vdst", 12, 4),
            ("depctr_va_sdst", 9, 3),
            ("depctr_va_ssrc", 8, 1),
            ("depctr_va_vcc", 1, 1),
            ("depctr_vm_vsrc", 2, 3),
        ],
    };
    let used: u16 = fields
        .iter()
        .map(|&(_, s, w)| (((1u32 << w) - 1) << s) as u16)
        .fold(0, |a, b| a | b);
    if v & !used != 0 {
        return small(out, v);
    }
    let all_default = fields
        .iter()
        .all(|&(_, s, w)| (v as u32 >> s) & ((1 << w) - 1) == (1 << w) - 1);
    let mut first = true;
    for &(name, s, w) in fields {
        let val = (v as u32 >> s) & ((1 << w) - 1);
        if val != (1 << w) - 1 || all_default {
            if !first {
                out.push(' ');
            }
            first = false;
            write!(out, "{name}({val})")?;
        }
    }
    Ok(())
}

fn hwreg(out: &mut String, v: u16, target: Target) -> fmt::Result {
    let id = v & 0x3f;
    let offset = v >> 6 & 0x1f;
    let size = (v >> 11 & 0x1f) + 1;
    let name = match (id, target) {
        (1, _) => "HW_REG_MODE",
        (2, _) => "HW_REG_STATUS",
        (3, _) => "HW_REG_TRAPSTS",
        (5, _) => "HW_REG_GPR_ALLOC",
        (6, _) => "HW_REG_LDS_ALLOC",
        (7, _) => "HW_REG_IB_STS",
        (15, _) => "HW_REG_SH_MEM_BASES",
        (16, _) => "HW_REG_TBA_LO",
        (17, _) => "HW_REG_TBA_HI",
        (18, _) => "HW_REG_TMA_LO",
        (19, _) => "HW_REG_TMA_HI",
        (20, _) => "HW_REG_FLAT_SCR_LO",
        (21, _) => "HW_REG_FLAT_SCR_HI",
        (22, Target::Gfx1013) => "HW_REG_XNACK_MASK",
        (23, _) => "HW_REG_HW_ID1",
        (24, _) => "HW_REG_HW_ID2",
        (25, _) => "HW_REG_POPS_PACKER",
        (29, Target::Gfx1030) => "HW_REG_SHADER_CYCLES",
        _ => "",
    };
    out.push_str("hwreg(");
    if name.is_empty() {
        write!(out, "{id}")?;
    } else {
        out.push_str(name);
    }
    if offset != 0 || size != 32 {
        write!(out, ", {offset}, {size}")?;
    }
    out.push(')');
    Ok(())
}

fn version(out: &mut String, v: u16) -> fmt::Result {
    let code = v & 0xff;
    let name = match code {
        0 => "UC_VERSION_GFX7",
        4 => "UC_VERSION_GFX10",
        6 => "UC_VERSION_GFX11",
        _ => "",
    };
    if v & 0x1f00 != 0 {
        return small(out, v);
    }
    let flags = [
        (0x2000, "UC_VERSION_W64_BIT"),
        (0x4000, "UC_VERSION_W32_BIT"),
        (0x8000, "UC_VERSION_MDP_BIT"),
    ];
    let n = flags.iter().filter(|f| v & f.0 != 0).count();
    let mut s = if name.is_empty() {
        code.to_string()
    } else {
        String::from(name)
    };
    let mut k = 0;
    for (bit, fname) in flags {
        if v & bit != 0 {
            k += 1;
            s = if k < n {
                format!("({s}|{fname})")
            } else {
                format!("{s}|{fname}")
            };
        }
    }
    out.push_str(&s);
    Ok(())
}
