//! Which encoding fields each vector ALU operation honours, and the refusal of every other field that is set.
//!
//! A VOP3, VOP3P, DPP or SDWA word can carry a modifier the operation has no defined meaning for (clamp on
//! `v_and_b32`, neg on an integer source, op_sel on a 32-bit operand, a DPP lane select on an operation that
//! reads its source another way). The hardware does something with such a word, but nothing documents or
//! measures what, so the model must not run it as if the field were clear. [`check`] runs before every VALU
//! instruction: a set field that the operation's execution path does not apply makes the instruction
//! `Unsupported`, with the field named. `tests/exec_modifiers.rs` holds every operation, form and field value
//! against an independent definition of the modifiers and keeps the list of refusals in
//! `tests/data/refused_fields.txt`.
//!
//! A field counts as set when it differs from what LLVM 19 assembles for the plain instruction: 0 for neg, abs,
//! clamp, omod and op_sel; all ones for VOP3P op_sel_hi (none for `v_fma_mix*`, whose op_sel_hi picks f16
//! sources); DWORD selects, no sign extension and any `dst_unused` with a DWORD destination for SDWA. The DPP16
//! and DPP8 forms are honoured or refused as a whole. Fields of operands the operation does not have (neg on
//! src2 of a two-source operation) count as set too: no document says the hardware ignores them.

use super::ctx::unsupported;
use crate::isa::{Control, Encoding, Form, Instruction, Op, Role, SdwaSel};
use measurements::job::BackendError;

/// How an SDWA destination select is honoured.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SdwaDst {
    /// The operation has no vector destination (compares) or does not merge (refused).
    No,
    /// Any select (32-bit results).
    Any,
    /// Any select but DWORD: a 16-bit result has no defined upper half to write.
    NotDword,
}

/// The fields an operation's execution path applies.
#[derive(Clone, Copy)]
struct Honours {
    /// Sources whose neg and abs bits are applied (bit i: source i); VOP3P: neg_lo.
    neg_abs: u8,
    /// VOP3P neg_hi (abs for `v_fma_mix*`).
    neg_hi: u8,
    /// VOP3 op_sel bits (0..2 sources, 3 destination); VOP3P op_sel bits.
    op_sel: u8,
    /// VOP3P op_sel_hi bits that may differ from the default.
    op_sel_hi: u8,
    /// The clamp bit.
    clamp: bool,
    /// The output modifier.
    omod: bool,
    /// The DPP16 and DPP8 forms (src0 read from another lane, lane writes disabled).
    dpp: bool,
    /// SDWA sources whose select is applied (bit 0: src0, bit 1: src1).
    sdwa_sel: u8,
    /// SDWA sources whose sext bit is applied.
    sdwa_sext: u8,
    /// The SDWA destination select and dst_unused.
    sdwa_dst: SdwaDst,
    /// Everything: operations without operands (v_nop) and those refused later with a precise reason.
    all: bool,
}

const NONE: Honours = Honours {
    neg_abs: 0,
    neg_hi: 0,
    op_sel: 0,
    op_sel_hi: 0,
    clamp: false,
    omod: false,
    dpp: false,
    sdwa_sel: 0,
    sdwa_sext: 0,
    sdwa_dst: SdwaDst::No,
    all: false,
};

/// A VOP1/VOP2 integer operation read through the common source path: DPP and SDWA (selects, sign extension,
/// destination merge) apply.
const INT_VOP: Honours = Honours {
    dpp: true,
    sdwa_sel: 0b11,
    sdwa_sext: 0b11,
    sdwa_dst: SdwaDst::Any,
    ..NONE
};

/// Float sources of the generic float path that are integers (their neg/abs are not applied).
fn float_source_mask(op: Op) -> u8 {
    use Op::*;
    match op {
        VLdexpF32 | VLdexpF16 | VLdexpF64 | VTrigPreopF64 | VCvtPkU8F32 => 0b001,
        VFmamkF32 | VMadmkF32 | VFmamkF16 => 0b001,
        VCvtF32I32 | VCvtF32U32 | VCvtF64I32 | VCvtF64U32 | VCvtF16I16 | VCvtF16U16
        | VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 | VCvtOffF32I4 => 0,
        VPkFmacF16 | VDot2cF32F16 => 0,
        VCmpClassF32 | VCmpxClassF32 | VCmpClassF16 | VCmpxClassF16 | VCmpClassF64
        | VCmpxClassF64 => 0b001,
        _ => 0b111,
    }
}

/// Float operations whose result is not a float the output modifiers apply to (integers, packed halves).
fn float_result_is_raw(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VCvtI32F32
            | VCvtU32F32
            | VCvtFlrI32F32
            | VCvtRpiI32F32
            | VCvtI32F64
            | VCvtU32F64
            | VCvtI16F16
            | VCvtU16F16
            | VFrexpExpI32F32
            | VFrexpExpI16F16
            | VFrexpExpI32F64
            | VCvtPkrtzF16F32
            | VCvtPknormI16F32
            | VCvtPknormU16F32
            | VCvtNormI16F16
            | VCvtNormU16F16
            | VCvtPknormI16F16
            | VCvtPknormU16F16
            | VCvtPkU8F32
            | VPkFmacF16
            | VPackB32F16
            | VDivScaleF32
            | VDivScaleF64
    )
}

/// Float operations with a 16-bit result (written to one half of the destination).
fn float_result_is_16(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VAddF16
            | VSubF16
            | VSubrevF16
            | VMulF16
            | VMinF16
            | VMaxF16
            | VLdexpF16
            | VFmaF16
            | VFmacF16
            | VFmamkF16
            | VFmaakF16
            | VMin3F16
            | VMax3F16
            | VMed3F16
            | VDivFixupF16
            | VCeilF16
            | VFloorF16
            | VTruncF16
            | VRndneF16
            | VFractF16
            | VRcpF16
            | VRsqF16
            | VSqrtF16
            | VLogF16
            | VExpF16
            | VSinF16
            | VCosF16
            | VFrexpMantF16
            | VFrexpExpI16F16
            | VCvtF16F32
            | VCvtF16I16
            | VCvtF16U16
            | VCvtI16F16
            | VCvtU16F16
            | VCvtNormI16F16
            | VCvtNormU16F16
    )
}

/// Integer operations whose clamp bit saturates the result.
fn int_clamps(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VAddNcU32
            | VSubNcU32
            | VSubrevNcU32
            | VAddNcI32
            | VSubNcI32
            | VMadU32U24
            | VMadI32I24
            | VSadU8
            | VSadHiU8
            | VSadU16
            | VSadU32
            | VMsadU8
            | VAddNcU16
            | VSubNcU16
            | VAddNcI16
            | VSubNcI16
            | VMadU16
            | VMadI16
            | VMadU32U16
            | VMadI32I16
            | VPkAddU16
            | VPkSubU16
            | VPkAddI16
            | VPkSubI16
            | VPkMadU16
            | VPkMadI16
            | VDot2I32I16
            | VDot2U32U16
            | VDot4I32I8
            | VDot4U32U8
            | VDot8I32I4
            | VDot8U32U4
            | VDot4cI32I8
    )
}

/// The fields `inst`'s operation honours in its form. `sources` is the operand mask the instruction has.
fn honours(inst: &Instruction, sources: u8) -> Honours {
    use Op::*;
    let op = inst.op;
    let all = Honours { all: true, ..NONE };
    if matches!(op, VNop | VPipeflush | VClrexcp)
        || matches!(
            op,
            VInterpP1F32
                | VInterpP2F32
                | VInterpMovF32
                | VInterpP1llF16
                | VInterpP1lvF16
                | VInterpP2F16
        )
    {
        return all;
    }
    if super::valu::is_int_cmp(op) {
        return Honours {
            sdwa_sel: 0b11,
            sdwa_sext: 0b11,
            ..NONE
        };
    }
    let int_clamp = int_clamps(op);
    match op {
        VCndmaskB32 => {
            return Honours {
                neg_abs: 0b11,
                dpp: true,
                sdwa_sel: 0b11,
                sdwa_dst: SdwaDst::Any,
                ..NONE
            }
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => {
            return INT_VOP
        }
        VMadU64U32 | VMadI64I32 | VQsadPkU16U8 | VMqsadPkU16U8 | VMqsadU32U8 | VLshlrevB64
        | VLshrrevB64 | VAshrrevI64 | VMbcntLoU32B32 | VMbcntHiU32B32 | VReadfirstlaneB32
        | VReadlaneB32 | VWritelaneB32 | VSwapB32 | VSwaprelB32 => return NONE,
        VPermlane16B32 | VPermlanex16B32 => {
            // op_sel[0] is fetch-inactive and op_sel[1] bound_ctrl (rule valu.permlane_fi_bound_ctrl).
            return Honours {
                op_sel: 0b0011,
                ..NONE
            };
        }
        VMovrelsB32 | VMovreldB32 | VMovrelsdB32 | VMovrelsd2B32 => {
            return Honours { dpp: true, ..NONE }
        }
        VPkAddU16 | VPkSubU16 | VPkAddI16 | VPkSubI16 | VPkMulLoU16 | VPkLshlrevB16
        | VPkLshrrevB16 | VPkAshrrevI16 | VPkMaxU16 | VPkMinU16 | VPkMaxI16 | VPkMinI16
        | VPkMadU16 | VPkMadI16 => {
            return Honours {
                op_sel: sources,
                op_sel_hi: sources,
                clamp: int_clamp,
                ..NONE
            }
        }
        VDot2I32I16 | VDot2U32U16 | VDot4I32I8 | VDot4U32U8 | VDot8I32I4 | VDot8U32U4 => {
            return Honours {
                clamp: true,
                ..NONE
            }
        }
        VDot4cI32I8 => return Honours { dpp: true, ..NONE },
        VAddNcU16 | VSubNcU16 | VAddNcI16 | VSubNcI16 | VMulLoU16 | VLshlrevB16 | VLshrrevB16
        | VAshrrevI16 | VMaxU16 | VMaxI16 | VMinU16 | VMinI16 | VMadU16 | VMadI16 | VMin3U16
        | VMax3U16 | VMed3U16 | VMin3I16 | VMax3I16 | VMed3I16 => {
            return Honours {
                op_sel: sources | 0b1000,
                clamp: int_clamp,
                ..NONE
            }
        }
        VMadU32U16 | VMadI32I16 => {
            return Honours {
                op_sel: 0b0011,
                clamp: true,
                ..NONE
            }
        }
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 => {
            return Honours {
                neg_abs: 0b111,
                neg_hi: 0b111,
                op_sel: 0b111,
                op_sel_hi: 0b111,
                clamp: true,
                ..NONE
            }
        }
        VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMinF16 | VPkMaxF16 => {
            return Honours {
                neg_abs: sources,
                neg_hi: sources,
                op_sel: sources,
                op_sel_hi: sources,
                clamp: true,
                ..NONE
            }
        }
        VDot2F32F16 => {
            return Honours {
                neg_abs: 0b011,
                neg_hi: 0b011,
                op_sel: 0b011,
                op_sel_hi: 0b011,
                clamp: true,
                ..NONE
            }
        }
        VPkFmacF16 | VDot2cF32F16 => return Honours { dpp: true, ..NONE },
        _ => {}
    }
    if super::valu::is_int_op(op) {
        return Honours {
            clamp: int_clamp,
            ..INT_VOP
        };
    }
    // Float operations (exec/vfloat.rs).
    let fsrc = float_source_mask(op) & sources;
    let raw = float_result_is_raw(op) || super::vfloat::is_compare(op);
    let r16 = float_result_is_16(op);
    let native16 = inst.form == Form::Native
        && matches!(
            op,
            VFmaF16
                | VDivFixupF16
                | VMin3F16
                | VMax3F16
                | VMed3F16
                | VCvtPknormI16F16
                | VCvtPknormU16F16
                | VPackB32F16
        );
    Honours {
        neg_abs: fsrc,
        op_sel: if native16 {
            (sources & 0b111) | if r16 { 0b1000 } else { 0 }
        } else {
            0
        },
        clamp: !raw,
        omod: !raw,
        dpp: true,
        sdwa_sel: 0b11,
        sdwa_dst: if super::vfloat::is_compare(op) {
            SdwaDst::No
        } else if r16 {
            SdwaDst::NotDword
        } else {
            SdwaDst::Any
        },
        ..NONE
    }
}

/// Refuses `inst` when one of its set fields is not applied by the model; see the module docs.
pub(super) fn check(inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    let sources = [Role::Src0, Role::Src1, Role::Src2]
        .iter()
        .enumerate()
        .filter(|(_, r)| inst.operand(**r).is_some())
        .fold(0u8, |m, (i, _)| m | 1 << i);
    let h = honours(inst, sources);
    if h.all {
        return Ok(());
    }
    // The mnemonic only names the operation in the message.
    let refuse = |field: String, why: &str| -> Result<(), BackendError> {
        Err(unsupported(
            inst,
            pc,
            &format!("{field} on {}: {why}", inst.op.mnemonic()),
        ))
    };
    let m = inst.mods;
    let per_source = |bits: u8, allowed: u8, name: &str, kind: &'static str| {
        source_field(bits, allowed, sources, name, kind)
    };
    const NOT_16: &str = "the operand is not a packed or 16-bit source of this operation";
    const NOT_FLOAT: &str =
        "the model applies it only to float sources (no document defines it here)";
    match inst.encoding {
        Encoding::Vop3p => {
            let mix = matches!(op_kind(inst.op), Kind::Mix);
            let default_hi = if mix { 0 } else { 0b111 };
            if let Some((f, why)) = per_source(m.neg, h.neg_abs, "neg_lo", NOT_FLOAT) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(m.neg_hi, h.neg_hi, "neg_hi", NOT_FLOAT) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(m.op_sel, h.op_sel, "op_sel", NOT_16) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(
                (m.op_sel_hi ^ default_hi) & 0b111,
                h.op_sel_hi,
                "op_sel_hi",
                NOT_16,
            ) {
                return refuse(f, why);
            }
            if m.clamp && !h.clamp {
                return refuse(
                    "clamp".into(),
                    "no document or measurement defines clamping for this operation",
                );
            }
            return Ok(());
        }
        Encoding::Vop3 => {
            if let Some((f, why)) = per_source(m.neg, h.neg_abs, "neg", NOT_FLOAT) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(m.abs, h.neg_abs, "abs", NOT_FLOAT) {
                return refuse(f, why);
            }
            if m.op_sel & !h.op_sel != 0 {
                let bit = (m.op_sel & !h.op_sel).trailing_zeros();
                return refuse(
                    format!("op_sel[{bit}]"),
                    if bit < 3 && sources >> bit & 1 == 0 {
                        NO_SOURCE
                    } else if inst.form == Form::E64 {
                        "gfx10 defines op_sel for the 16-bit operands of VOP3-only operations, not for the VOP3 \
                         form of a VOP1/VOP2/VOPC operation"
                    } else {
                        "the operand is not a 16-bit half of this operation"
                    },
                );
            }
            if m.clamp && !h.clamp {
                return refuse(
                    "clamp".into(),
                    "no document or measurement defines clamping for this operation",
                );
            }
            if m.omod != 0 && !h.omod {
                return refuse(
                    "omod".into(),
                    "the output modifier scales float results; this operation's result is not one it applies to",
                );
            }
            return Ok(());
        }
        _ => {}
    }
    match inst.control {
        Control::Dpp16(_) | Control::Dpp8(_) => {
            if !h.dpp {
                return refuse(
                    format!("{:?} lane selection", inst.form).to_uppercase(),
                    "the model does not read this operation's source through the DPP lane select",
                );
            }
            if let Some((f, why)) = per_source(m.neg, h.neg_abs, "neg", NOT_FLOAT) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(m.abs, h.neg_abs, "abs", NOT_FLOAT) {
                return refuse(f, why);
            }
        }
        Control::Sdwa(s) => {
            let vopc = inst.encoding == Encoding::Vopc;
            if vopc && s.sdst.is_some() && super::facts::is_cmpx(inst.op) {
                return refuse(
                    "sdst".into(),
                    "gfx10 v_cmpx writes EXEC only; no document says what an SDWA scalar destination does",
                );
            }
            if h.sdwa_sel == 0 && h.sdwa_dst == SdwaDst::No && !vopc {
                return refuse(
                    "SDWA form".into(),
                    "the model does not read this operation's operands through the SDWA selects",
                );
            }
            if let Some((f, why)) = per_source(m.neg, h.neg_abs, "neg", NOT_FLOAT) {
                return refuse(f, why);
            }
            if let Some((f, why)) = per_source(m.abs, h.neg_abs, "abs", NOT_FLOAT) {
                return refuse(f, why);
            }
            for (i, sel) in [s.src0_sel, s.src1_sel].into_iter().enumerate() {
                if sources >> i & 1 == 0 {
                    continue;
                }
                if sel != SdwaSel::Dword && h.sdwa_sel >> i & 1 == 0 {
                    return refuse(
                        format!("src{i}_sel"),
                        "the model does not apply the select to this source",
                    );
                }
                if s.sext[i] && h.sdwa_sext >> i & 1 == 0 {
                    return refuse(
                        format!("sext on source {i}"),
                        "sign extension is defined for integer sources only",
                    );
                }
            }
            if !vopc {
                let dst_set = s.dst_sel != SdwaSel::Dword;
                match h.sdwa_dst {
                    SdwaDst::Any => {}
                    SdwaDst::NotDword if dst_set => {}
                    SdwaDst::NotDword => {
                        return refuse(
                            "dst_sel:DWORD".into(),
                            "the result is 16 bits wide and no document or measurement says what the upper \
                             half of a DWORD destination receives",
                        )
                    }
                    SdwaDst::No if dst_set => {
                        return refuse(
                            "dst_sel".into(),
                            "the model does not merge this operation's result",
                        )
                    }
                    SdwaDst::No => {}
                }
                if s.clamp && !h.clamp {
                    return refuse(
                        "clamp".into(),
                        "no document or measurement defines clamping for this operation",
                    );
                }
                if s.omod != 0 && !h.omod {
                    return refuse(
                        "omod".into(),
                        "the output modifier scales float results; this operation's result is not one it \
                         applies to",
                    );
                }
            }
        }
        _ => {}
    }
    Ok(())
}

const NO_SOURCE: &str =
    "the operation has no such source, and no document says the hardware ignores the bit";

/// The first source whose `bits` are set but not `allowed`: the field's name and why it is refused.
fn source_field(
    bits: u8,
    allowed: u8,
    sources: u8,
    name: &str,
    kind: &'static str,
) -> Option<(String, &'static str)> {
    let bad = bits & !allowed;
    if bad == 0 {
        return None;
    }
    let i = bad.trailing_zeros();
    let why = if sources >> i & 1 == 0 {
        NO_SOURCE
    } else {
        kind
    };
    Some((format!("{name} on source {i}"), why))
}

/// Operation groups the check distinguishes.
enum Kind {
    Mix,
    Other,
}

fn op_kind(op: Op) -> Kind {
    match op {
        Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16 => Kind::Mix,
        _ => Kind::Other,
    }
}
