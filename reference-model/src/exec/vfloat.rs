//! Float vector operations: sources through their neg/abs modifiers, one [`crate::float`] call per lane,
//! results through omod and clamp. Every float behaviour lives in `crate::float` with its rule; this module
//! only routes operands.

use super::ctx::{Ctx, Ty};
use super::valu::{finish_compare, Io};
use crate::float::{self as fp, Cmp, MixSrc, Mode, Omod};
use crate::isa::{Control, Form, Op, Role};
use measurements::job::BackendError;

/// Which roles hold sources 0, 1, 2 (modifier bits 0, 1, 2).
const SRC: [Role; 3] = [Role::Src0, Role::Src1, Role::Src2];

fn neg(io: &Io, i: usize) -> bool {
    io.inst.mods.neg >> i & 1 == 1
}

fn abs(io: &Io, i: usize) -> bool {
    io.inst.mods.abs >> i & 1 == 1
}

/// The output modifier and clamp of the form (e32/DPP forms have neither).
fn outmods(io: &Io) -> (Omod, bool) {
    match io.inst.control {
        Control::Sdwa(s) => (Omod::from_field(s.omod), s.clamp),
        _ => (Omod::from_field(io.inst.mods.omod), io.inst.mods.clamp),
    }
}

fn f32s(cx: &Ctx, io: &Io, lane: usize, i: usize) -> Result<u32, BackendError> {
    Ok(fp::src_mod_f32(
        io.src(cx, SRC[i], lane, Ty::B32)?,
        neg(io, i),
        abs(io, i),
    ))
}

fn f16s(cx: &Ctx, io: &Io, lane: usize, i: usize) -> Result<u16, BackendError> {
    Ok(fp::src_mod_f16(
        io.src16(cx, SRC[i], lane, Ty::F16)?,
        neg(io, i),
        abs(io, i),
    ))
}

fn f64s(cx: &Ctx, io: &Io, lane: usize, i: usize) -> Result<u64, BackendError> {
    Ok(fp::src_mod_f64(
        io.src64(cx, SRC[i], lane, Ty::F64)?,
        neg(io, i),
        abs(io, i),
    ))
}

/// The literal K of v_madmk/v_madak/v_fmamk/v_fmaak.
fn k(cx: &Ctx, io: &Io) -> Result<u32, BackendError> {
    io.src(cx, Role::K, 0, Ty::B32)
}

/// Float compares: (condition, bits, writes EXEC).
fn float_cmp(op: Op) -> Option<(Cmp, u32, bool)> {
    use Op::*;
    macro_rules! table {
        ($($v:ident => $c:ident, $b:expr, $x:expr;)*) => {
            match op { $($v => Some((Cmp::$c, $b, $x)),)* _ => None }
        };
    }
    table! {
        VCmpFF32 => F, 32, false; VCmpLtF32 => Lt, 32, false; VCmpEqF32 => Eq, 32, false; VCmpLeF32 => Le, 32, false;
        VCmpGtF32 => Gt, 32, false; VCmpLgF32 => Lg, 32, false; VCmpGeF32 => Ge, 32, false; VCmpOF32 => O, 32, false;
        VCmpUF32 => U, 32, false; VCmpNgeF32 => Nge, 32, false; VCmpNlgF32 => Nlg, 32, false; VCmpNgtF32 => Ngt, 32, false;
        VCmpNleF32 => Nle, 32, false; VCmpNeqF32 => Neq, 32, false; VCmpNltF32 => Nlt, 32, false; VCmpTruF32 => Tru, 32, false;
        VCmpxFF32 => F, 32, true; VCmpxLtF32 => Lt, 32, true; VCmpxEqF32 => Eq, 32, true; VCmpxLeF32 => Le, 32, true;
        VCmpxGtF32 => Gt, 32, true; VCmpxLgF32 => Lg, 32, true; VCmpxGeF32 => Ge, 32, true; VCmpxOF32 => O, 32, true;
        VCmpxUF32 => U, 32, true; VCmpxNgeF32 => Nge, 32, true; VCmpxNlgF32 => Nlg, 32, true; VCmpxNgtF32 => Ngt, 32, true;
        VCmpxNleF32 => Nle, 32, true; VCmpxNeqF32 => Neq, 32, true; VCmpxNltF32 => Nlt, 32, true; VCmpxTruF32 => Tru, 32, true;
        VCmpFF16 => F, 16, false; VCmpLtF16 => Lt, 16, false; VCmpEqF16 => Eq, 16, false; VCmpLeF16 => Le, 16, false;
        VCmpGtF16 => Gt, 16, false; VCmpLgF16 => Lg, 16, false; VCmpGeF16 => Ge, 16, false; VCmpOF16 => O, 16, false;
        VCmpUF16 => U, 16, false; VCmpNgeF16 => Nge, 16, false; VCmpNlgF16 => Nlg, 16, false; VCmpNgtF16 => Ngt, 16, false;
        VCmpNleF16 => Nle, 16, false; VCmpNeqF16 => Neq, 16, false; VCmpNltF16 => Nlt, 16, false; VCmpTruF16 => Tru, 16, false;
        VCmpxFF16 => F, 16, true; VCmpxLtF16 => Lt, 16, true; VCmpxEqF16 => Eq, 16, true; VCmpxLeF16 => Le, 16, true;
        VCmpxGtF16 => Gt, 16, true; VCmpxLgF16 => Lg, 16, true; VCmpxGeF16 => Ge, 16, true; VCmpxOF16 => O, 16, true;
        VCmpxUF16 => U, 16, true; VCmpxNgeF16 => Nge, 16, true; VCmpxNlgF16 => Nlg, 16, true; VCmpxNgtF16 => Ngt, 16, true;
        VCmpxNleF16 => Nle, 16, true; VCmpxNeqF16 => Neq, 16, true; VCmpxNltF16 => Nlt, 16, true; VCmpxTruF16 => Tru, 16, true;
        VCmpFF64 => F, 64, false; VCmpLtF64 => Lt, 64, false; VCmpEqF64 => Eq, 64, false; VCmpLeF64 => Le, 64, false;
        VCmpGtF64 => Gt, 64, false; VCmpLgF64 => Lg, 64, false; VCmpGeF64 => Ge, 64, false; VCmpOF64 => O, 64, false;
        VCmpUF64 => U, 64, false; VCmpNgeF64 => Nge, 64, false; VCmpNlgF64 => Nlg, 64, false; VCmpNgtF64 => Ngt, 64, false;
        VCmpNleF64 => Nle, 64, false; VCmpNeqF64 => Neq, 64, false; VCmpNltF64 => Nlt, 64, false; VCmpTruF64 => Tru, 64, false;
        VCmpxFF64 => F, 64, true; VCmpxLtF64 => Lt, 64, true; VCmpxEqF64 => Eq, 64, true; VCmpxLeF64 => Le, 64, true;
        VCmpxGtF64 => Gt, 64, true; VCmpxLgF64 => Lg, 64, true; VCmpxGeF64 => Ge, 64, true; VCmpxOF64 => O, 64, true;
        VCmpxUF64 => U, 64, true; VCmpxNgeF64 => Nge, 64, true; VCmpxNlgF64 => Nlg, 64, true; VCmpxNgtF64 => Ngt, 64, true;
        VCmpxNleF64 => Nle, 64, true; VCmpxNeqF64 => Neq, 64, true; VCmpxNltF64 => Nlt, 64, true; VCmpxTruF64 => Tru, 64, true;
    }
}

/// Whether the float compare or class test `op` writes EXEC (v_cmpx); `None` when `op` is neither.
pub(super) fn float_cmp_writes_exec(op: Op) -> Option<bool> {
    match op {
        Op::VCmpxClassF32 | Op::VCmpxClassF16 | Op::VCmpxClassF64 => Some(true),
        Op::VCmpClassF32 | Op::VCmpClassF16 | Op::VCmpClassF64 => Some(false),
        _ => float_cmp(op).map(|c| c.2),
    }
}

/// Is `op` a float compare or class test (its result is a lane mask)?
pub(super) fn is_compare(op: Op) -> bool {
    float_cmp(op).is_some()
        || matches!(
            op,
            Op::VCmpClassF32
                | Op::VCmpxClassF32
                | Op::VCmpClassF16
                | Op::VCmpxClassF16
                | Op::VCmpClassF64
                | Op::VCmpxClassF64
        )
}

/// What a float operation produces per lane.
enum Out {
    F32(u32),
    F16(u16),
    F64(u64),
    /// An integer (conversions to integers, frexp_exp): no output modifiers.
    I32(u32),
    I16(u16),
    /// A whole dword written as is (packed results).
    Raw(u32),
}

pub(super) fn exec(cx: &mut Ctx, io: &Io) -> Result<(), BackendError> {
    let op = io.inst.op;
    let mode = Mode::from_hwreg(cx.wave.mode);

    if let Some((cond, bits, cmpx)) = float_cmp(op) {
        let mut m = 0u64;
        for lane in io.active() {
            let r = match bits {
                32 => fp::cmp_f32(mode, cond, f32s(cx, io, lane, 0)?, f32s(cx, io, lane, 1)?),
                16 => fp::cmp_f16(mode, cond, f16s(cx, io, lane, 0)?, f16s(cx, io, lane, 1)?),
                _ => fp::cmp_f64(mode, cond, f64s(cx, io, lane, 0)?, f64s(cx, io, lane, 1)?),
            };
            m |= (r as u64) << lane;
        }
        return finish_compare(cx, io, m, cmpx);
    }
    if matches!(
        op,
        Op::VCmpClassF32
            | Op::VCmpxClassF32
            | Op::VCmpClassF16
            | Op::VCmpxClassF16
            | Op::VCmpClassF64
            | Op::VCmpxClassF64
    ) {
        let mut m = 0u64;
        for lane in io.active() {
            let mask = io.src(cx, Role::Src1, lane, Ty::B32)?;
            let r = match op {
                Op::VCmpClassF32 | Op::VCmpxClassF32 => {
                    fp::cmp_class_f32(f32s(cx, io, lane, 0)?, mask)
                }
                Op::VCmpClassF16 | Op::VCmpxClassF16 => {
                    fp::cmp_class_f16(f16s(cx, io, lane, 0)?, mask)
                }
                _ => fp::cmp_class_f64(f64s(cx, io, lane, 0)?, mask),
            };
            m |= (r as u64) << lane;
        }
        let cmpx = matches!(
            op,
            Op::VCmpxClassF32 | Op::VCmpxClassF16 | Op::VCmpxClassF64
        );
        return finish_compare(cx, io, m, cmpx);
    }
    if matches!(op, Op::VDivScaleF32 | Op::VDivScaleF64) {
        let mut vcc = 0u64;
        let mut out = Vec::new();
        for lane in io.active() {
            if op == Op::VDivScaleF32 {
                let (v, c) = fp::div_scale_f32(
                    mode,
                    f32s(cx, io, lane, 0)?,
                    f32s(cx, io, lane, 1)?,
                    f32s(cx, io, lane, 2)?,
                );
                out.push((lane, v as u64));
                vcc |= (c as u64) << lane;
            } else {
                let (v, c) = fp::div_scale_f64(
                    mode,
                    f64s(cx, io, lane, 0)?,
                    f64s(cx, io, lane, 1)?,
                    f64s(cx, io, lane, 2)?,
                );
                out.push((lane, v));
                vcc |= (c as u64) << lane;
            }
        }
        for (lane, v) in out {
            if op == Op::VDivScaleF32 {
                io.write32(cx, lane, v as u32)?;
            } else {
                io.write64(cx, lane, v)?;
            }
        }
        return io.write_mask(cx, vcc);
    }

    if matches!(
        op,
        Op::VInterpP1F32
            | Op::VInterpP2F32
            | Op::VInterpMovF32
            | Op::VInterpP1llF16
            | Op::VInterpP1lvF16
            | Op::VInterpP2F16
    ) {
        // The arithmetic is modelled (`fp::interp_*`), but not the operand: the attribute
        // names per-primitive parameter data that the SPI writes to LDS before a pixel
        // wave starts. A compute job has no such data, so what the instruction would read
        // is unknown, and any value chosen here would be invented.
        return Err(super::ctx::unsupported(
            io.inst,
            io.pc,
            "the attribute operand reads parameter data that the SPI writes to LDS for pixel waves; \
             compute jobs have none, so the model cannot know what it reads",
        ));
    }

    let (omod, clamp) = outmods(io);
    let vcc = cx.wave.vcc();
    let mut results: Vec<(usize, Out)> = Vec::with_capacity(64);
    for lane in io.active() {
        let a32 = |i| f32s(cx, io, lane, i);
        let a16 = |i| f16s(cx, io, lane, i);
        let a64 = |i| f64s(cx, io, lane, i);
        let old = || io.src(cx, Role::Vdst, lane, Ty::B32);
        let out = match op {
            // f32 two-source.
            Op::VAddF32 => Out::F32(fp::add_f32(mode, a32(0)?, a32(1)?)),
            Op::VSubF32 => Out::F32(fp::sub_f32(mode, a32(0)?, a32(1)?)),
            Op::VSubrevF32 => Out::F32(fp::subrev_f32(mode, a32(0)?, a32(1)?)),
            Op::VMulF32 => Out::F32(fp::mul_f32(mode, a32(0)?, a32(1)?)),
            Op::VMulLegacyF32 => Out::F32(fp::mul_legacy_f32(mode, a32(0)?, a32(1)?)),
            Op::VMinF32 => Out::F32(fp::min_f32(mode, a32(0)?, a32(1)?)),
            Op::VMaxF32 => Out::F32(fp::max_f32(mode, a32(0)?, a32(1)?)),
            Op::VLdexpF32 => Out::F32(fp::ldexp_f32(
                mode,
                a32(0)?,
                io.src(cx, Role::Src1, lane, Ty::B32)? as i32,
            )),
            // f32 three-source and accumulating forms.
            Op::VFmaF32 => Out::F32(fp::fma_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VFmaLegacyF32 => Out::F32(fp::fma_legacy_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VMadLegacyF32 => Out::F32(fp::mad_legacy_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VMadF32 => Out::F32(fp::mad_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VFmacF32 => Out::F32(fp::fma_f32(mode, a32(0)?, a32(1)?, old()?)),
            Op::VMacF32 => Out::F32(fp::mad_f32(mode, a32(0)?, a32(1)?, old()?)),
            Op::VMacLegacyF32 => Out::F32(fp::mad_legacy_f32(mode, a32(0)?, a32(1)?, old()?)),
            Op::VFmacLegacyF32 => Out::F32(fp::fma_legacy_f32(mode, a32(0)?, a32(1)?, old()?)),
            Op::VFmamkF32 => Out::F32(fp::fma_f32(
                mode,
                a32(0)?,
                k(cx, io)?,
                io.src(cx, Role::Src1, lane, Ty::B32)?,
            )),
            Op::VFmaakF32 => Out::F32(fp::fma_f32(mode, a32(0)?, a32(1)?, k(cx, io)?)),
            Op::VMadmkF32 => Out::F32(fp::mad_f32(
                mode,
                a32(0)?,
                k(cx, io)?,
                io.src(cx, Role::Src1, lane, Ty::B32)?,
            )),
            Op::VMadakF32 => Out::F32(fp::mad_f32(mode, a32(0)?, a32(1)?, k(cx, io)?)),
            Op::VMin3F32 => Out::F32(fp::min3_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VMax3F32 => Out::F32(fp::max3_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VMed3F32 => Out::F32(fp::med3_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VDivFixupF32 => Out::F32(fp::div_fixup_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VDivFmasF32 => Out::F32(fp::div_fmas_f32(
                mode,
                a32(0)?,
                a32(1)?,
                a32(2)?,
                vcc >> lane & 1 == 1,
            )),
            Op::VCubeidF32 => Out::F32(fp::cubeid_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VCubescF32 => Out::F32(fp::cubesc_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VCubetcF32 => Out::F32(fp::cubetc_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VCubemaF32 => Out::F32(fp::cubema_f32(mode, a32(0)?, a32(1)?, a32(2)?)),
            Op::VMullitF32 => match fp::mullit_f32(mode, a32(0)?, a32(1)?, a32(2)?) {
                Some(v) => Out::F32(v),
                None => {
                    return Err(super::ctx::unsupported(
                        io.inst,
                        io.pc,
                        "an infinite or NaN factor or an overflowing product falls under the \
                         \"alternate INF, NAN, overflow rules\" that AMD's guides name for \
                         v_mullit_f32 without defining",
                    ))
                }
            },
            // f32 one-source.
            Op::VFloorF32 => Out::F32(fp::floor_f32(mode, a32(0)?)),
            Op::VCeilF32 => Out::F32(fp::ceil_f32(mode, a32(0)?)),
            Op::VTruncF32 => Out::F32(fp::trunc_f32(mode, a32(0)?)),
            Op::VRndneF32 => Out::F32(fp::rndne_f32(mode, a32(0)?)),
            Op::VFractF32 => Out::F32(fp::fract_f32(mode, a32(0)?)),
            Op::VRcpF32 => Out::F32(fp::rcp_f32(mode, a32(0)?)),
            Op::VRcpIflagF32 => Out::F32(fp::rcp_iflag_f32(mode, a32(0)?)),
            Op::VRsqF32 => Out::F32(fp::rsq_f32(mode, a32(0)?)),
            Op::VSqrtF32 => Out::F32(fp::sqrt_f32(mode, a32(0)?)),
            Op::VLogF32 => Out::F32(fp::log_f32(mode, a32(0)?)),
            Op::VExpF32 => Out::F32(fp::exp_f32(mode, a32(0)?)),
            Op::VSinF32 => Out::F32(fp::sin_f32(mode, a32(0)?)),
            Op::VCosF32 => Out::F32(fp::cos_f32(mode, a32(0)?)),
            Op::VFrexpMantF32 => Out::F32(fp::frexp_mant_f32(mode, a32(0)?)),
            Op::VFrexpExpI32F32 => Out::I32(fp::frexp_exp_i32_f32(mode, a32(0)?) as u32),
            // Conversions.
            Op::VCvtF32I32 => Out::F32(fp::cvt_f32_i32(
                mode,
                io.src(cx, Role::Src0, lane, Ty::B32)? as i32,
            )),
            Op::VCvtF32U32 => Out::F32(fp::cvt_f32_u32(
                mode,
                io.src(cx, Role::Src0, lane, Ty::B32)?,
            )),
            Op::VCvtI32F32 => Out::I32(fp::cvt_i32_f32(mode, a32(0)?) as u32),
            Op::VCvtU32F32 => Out::I32(fp::cvt_u32_f32(mode, a32(0)?)),
            Op::VCvtFlrI32F32 => Out::I32(fp::cvt_flr_i32_f32(mode, a32(0)?) as u32),
            Op::VCvtRpiI32F32 => Out::I32(fp::cvt_rpi_i32_f32(mode, a32(0)?) as u32),
            Op::VCvtF16F32 => Out::F16(fp::cvt_f16_f32(mode, a32(0)?)),
            Op::VCvtF32F16 => Out::F32(fp::cvt_f32_f16(mode, a16(0)?)),
            Op::VCvtF32F64 => Out::F32(fp::cvt_f32_f64(mode, a64(0)?)),
            Op::VCvtF64F32 => Out::F64(fp::cvt_f64_f32(mode, a32(0)?)),
            Op::VCvtI32F64 => Out::I32(fp::cvt_i32_f64(mode, a64(0)?) as u32),
            Op::VCvtU32F64 => Out::I32(fp::cvt_u32_f64(mode, a64(0)?)),
            Op::VCvtF64I32 => Out::F64(fp::cvt_f64_i32(
                io.src(cx, Role::Src0, lane, Ty::B32)? as i32
            )),
            Op::VCvtF64U32 => Out::F64(fp::cvt_f64_u32(io.src(cx, Role::Src0, lane, Ty::B32)?)),
            Op::VCvtF16I16 => Out::F16(fp::cvt_f16_i16(
                mode,
                io.src16(cx, Role::Src0, lane, Ty::I16)? as i16,
            )),
            Op::VCvtF16U16 => Out::F16(fp::cvt_f16_u16(
                mode,
                io.src16(cx, Role::Src0, lane, Ty::I16)?,
            )),
            Op::VCvtI16F16 => Out::I16(fp::cvt_i16_f16(mode, a16(0)?) as u16),
            Op::VCvtU16F16 => Out::I16(fp::cvt_u16_f16(mode, a16(0)?)),
            Op::VCvtF32Ubyte0 | Op::VCvtF32Ubyte1 | Op::VCvtF32Ubyte2 | Op::VCvtF32Ubyte3 => {
                let n = match op {
                    Op::VCvtF32Ubyte0 => 0,
                    Op::VCvtF32Ubyte1 => 1,
                    Op::VCvtF32Ubyte2 => 2,
                    _ => 3,
                };
                Out::F32(fp::cvt_f32_ubyte(io.src(cx, Role::Src0, lane, Ty::B32)?, n))
            }
            Op::VCvtOffF32I4 => {
                Out::F32(fp::cvt_off_f32_i4(io.src(cx, Role::Src0, lane, Ty::B32)?))
            }
            Op::VCvtPkrtzF16F32 => Out::Raw(fp::cvt_pkrtz_f16_f32(mode, a32(0)?, a32(1)?)),
            Op::VCvtPknormI16F32 => Out::Raw(fp::cvt_pknorm_i16_f32(mode, a32(0)?, a32(1)?)),
            Op::VCvtPknormU16F32 => Out::Raw(fp::cvt_pknorm_u16_f32(mode, a32(0)?, a32(1)?)),
            // 16-bit results of the norm conversions go through write16 (op_sel[3], SDWA
            // dst_sel); the packed forms write the whole dword.
            Op::VCvtNormI16F16 => Out::I16(fp::cvt_norm_i16_f16(mode, a16(0)?) as u16),
            Op::VCvtNormU16F16 => Out::I16(fp::cvt_norm_u16_f16(mode, a16(0)?)),
            Op::VCvtPknormI16F16 => Out::Raw(fp::cvt_pknorm_i16_f16(mode, a16(0)?, a16(1)?)),
            Op::VCvtPknormU16F16 => Out::Raw(fp::cvt_pknorm_u16_f16(mode, a16(0)?, a16(1)?)),
            Op::VCvtPkU8F32 => Out::Raw(fp::cvt_pk_u8_f32(
                mode,
                a32(0)?,
                io.src(cx, Role::Src1, lane, Ty::B32)?,
                io.src(cx, Role::Src2, lane, Ty::B32)?,
            )),
            // f16.
            Op::VAddF16 => Out::F16(fp::add_f16(mode, a16(0)?, a16(1)?)),
            Op::VSubF16 => Out::F16(fp::sub_f16(mode, a16(0)?, a16(1)?)),
            Op::VSubrevF16 => Out::F16(fp::subrev_f16(mode, a16(0)?, a16(1)?)),
            Op::VMulF16 => Out::F16(fp::mul_f16(mode, a16(0)?, a16(1)?)),
            Op::VMinF16 => Out::F16(fp::min_f16(mode, a16(0)?, a16(1)?)),
            Op::VMaxF16 => Out::F16(fp::max_f16(mode, a16(0)?, a16(1)?)),
            Op::VLdexpF16 => Out::F16(fp::ldexp_f16(
                mode,
                a16(0)?,
                io.src16(cx, Role::Src1, lane, Ty::I16)? as i16 as i32,
            )),
            Op::VFmaF16 => Out::F16(fp::fma_f16(mode, a16(0)?, a16(1)?, a16(2)?)),
            Op::VFmacF16 => Out::F16(fp::fma_f16(mode, a16(0)?, a16(1)?, old()? as u16)),
            Op::VFmamkF16 => Out::F16(fp::fma_f16(
                mode,
                a16(0)?,
                k(cx, io)? as u16,
                io.src16(cx, Role::Src1, lane, Ty::F16)?,
            )),
            Op::VFmaakF16 => Out::F16(fp::fma_f16(mode, a16(0)?, a16(1)?, k(cx, io)? as u16)),
            Op::VMin3F16 => Out::F16(fp::min3_f16(mode, a16(0)?, a16(1)?, a16(2)?)),
            Op::VMax3F16 => Out::F16(fp::max3_f16(mode, a16(0)?, a16(1)?, a16(2)?)),
            Op::VMed3F16 => Out::F16(fp::med3_f16(mode, a16(0)?, a16(1)?, a16(2)?)),
            Op::VDivFixupF16 => Out::F16(fp::div_fixup_f16(mode, a16(0)?, a16(1)?, a16(2)?)),
            Op::VFloorF16 => Out::F16(fp::floor_f16(mode, a16(0)?)),
            Op::VCeilF16 => Out::F16(fp::ceil_f16(mode, a16(0)?)),
            Op::VTruncF16 => Out::F16(fp::trunc_f16(mode, a16(0)?)),
            Op::VRndneF16 => Out::F16(fp::rndne_f16(mode, a16(0)?)),
            Op::VFractF16 => Out::F16(fp::fract_f16(mode, a16(0)?)),
            Op::VRcpF16 => Out::F16(fp::rcp_f16(mode, a16(0)?)),
            Op::VRsqF16 => Out::F16(fp::rsq_f16(mode, a16(0)?)),
            Op::VSqrtF16 => Out::F16(fp::sqrt_f16(mode, a16(0)?)),
            Op::VLogF16 => Out::F16(fp::log_f16(mode, a16(0)?)),
            Op::VExpF16 => Out::F16(fp::exp_f16(mode, a16(0)?)),
            Op::VSinF16 => Out::F16(fp::sin_f16(mode, a16(0)?)),
            Op::VCosF16 => Out::F16(fp::cos_f16(mode, a16(0)?)),
            Op::VFrexpMantF16 => Out::F16(fp::frexp_mant_f16(mode, a16(0)?)),
            Op::VFrexpExpI16F16 => Out::I16(fp::frexp_exp_i16_f16(mode, a16(0)?) as u16),
            // f64.
            Op::VAddF64 => Out::F64(fp::add_f64(mode, a64(0)?, a64(1)?)),
            Op::VMulF64 => Out::F64(fp::mul_f64(mode, a64(0)?, a64(1)?)),
            Op::VFmaF64 => Out::F64(fp::fma_f64(mode, a64(0)?, a64(1)?, a64(2)?)),
            Op::VMinF64 => Out::F64(fp::min_f64(mode, a64(0)?, a64(1)?)),
            Op::VMaxF64 => Out::F64(fp::max_f64(mode, a64(0)?, a64(1)?)),
            Op::VLdexpF64 => Out::F64(fp::ldexp_f64(
                mode,
                a64(0)?,
                io.src(cx, Role::Src1, lane, Ty::B32)? as i32,
            )),
            Op::VDivFixupF64 => Out::F64(fp::div_fixup_f64(mode, a64(0)?, a64(1)?, a64(2)?)),
            Op::VDivFmasF64 => Out::F64(fp::div_fmas_f64(
                mode,
                a64(0)?,
                a64(1)?,
                a64(2)?,
                vcc >> lane & 1 == 1,
            )),
            Op::VFloorF64 => Out::F64(fp::floor_f64(mode, a64(0)?)),
            Op::VCeilF64 => Out::F64(fp::ceil_f64(mode, a64(0)?)),
            Op::VTruncF64 => Out::F64(fp::trunc_f64(mode, a64(0)?)),
            Op::VRndneF64 => Out::F64(fp::rndne_f64(mode, a64(0)?)),
            Op::VFractF64 => Out::F64(fp::fract_f64(mode, a64(0)?)),
            Op::VRcpF64 => Out::F64(fp::rcp_f64(mode, a64(0)?)),
            Op::VRsqF64 => Out::F64(fp::rsq_f64(mode, a64(0)?)),
            Op::VSqrtF64 => Out::F64(fp::sqrt_f64(mode, a64(0)?)),
            Op::VFrexpMantF64 => Out::F64(fp::frexp_mant_f64(mode, a64(0)?)),
            Op::VFrexpExpI32F64 => Out::I32(fp::frexp_exp_i32_f64(mode, a64(0)?) as u32),
            Op::VTrigPreopF64 => {
                let seg = io.src(cx, Role::Src1, lane, Ty::B32)?;
                match fp::trig_preop_f64(mode, a64(0)?, seg) {
                    Some(v) => Out::F64(v),
                    None => return Err(super::ctx::unsupported(
                        io.inst,
                        io.pc,
                        "a NaN source, where AMD's pseudo-code (which reads only the exponent) \
                             and LLVM's constant folder (which returns the quieted NaN) disagree",
                    )),
                }
            }
            // Mixed precision (VOP3P).
            Op::VFmaMixF32 | Op::VFmaMixloF16 | Op::VFmaMixhiF16 => {
                let m = io.inst.mods;
                let src = |i: usize| -> Result<MixSrc, BackendError> {
                    let reg = io.src(cx, SRC[i], lane, Ty::B32)?;
                    Ok(MixSrc::select(
                        reg,
                        m.op_sel >> i & 1 == 1,
                        m.op_sel_hi >> i & 1 == 1,
                        m.neg >> i & 1 == 1,
                        m.neg_hi >> i & 1 == 1,
                    ))
                };
                let (a, b, c) = (src(0)?, src(1)?, src(2)?);
                match op {
                    Op::VFmaMixF32 => Out::F32(fp::fma_mix_f32(mode, a, b, c)),
                    Op::VFmaMixloF16 => {
                        let h = fp::omod_clamp_f16(
                            mode,
                            fp::fma_mixlo_f16(mode, a, b, c),
                            Omod::None,
                            clamp,
                        );
                        Out::Raw((old()? & 0xffff_0000) | h as u32)
                    }
                    _ => {
                        let h = fp::omod_clamp_f16(
                            mode,
                            fp::fma_mixhi_f16(mode, a, b, c),
                            Omod::None,
                            clamp,
                        );
                        Out::Raw((old()? & 0xffff) | (h as u32) << 16)
                    }
                }
            }
            // Packed f16 (VOP3P) and the VOP2 packed accumulate.
            Op::VPkAddF16 | Op::VPkMulF16 | Op::VPkFmaF16 | Op::VPkMinF16 | Op::VPkMaxF16 => {
                let m = io.inst.mods;
                let src = |i: usize| -> Result<[u16; 2], BackendError> {
                    let reg = io.src(cx, SRC[i], lane, Ty::B32)?;
                    Ok(fp::pk_source(
                        reg,
                        m.op_sel >> i & 1 == 1,
                        m.op_sel_hi >> i & 1 == 1,
                        m.neg >> i & 1 == 1,
                        m.neg_hi >> i & 1 == 1,
                    ))
                };
                let (a, b) = (src(0)?, src(1)?);
                let c = if op == Op::VPkFmaF16 { src(2)? } else { [0, 0] };
                let mut r = 0u32;
                for h in 0..2 {
                    let v = match op {
                        Op::VPkAddF16 => fp::pk_add_f16(mode, a[h], b[h]),
                        Op::VPkMulF16 => fp::pk_mul_f16(mode, a[h], b[h]),
                        Op::VPkFmaF16 => fp::pk_fma_f16(mode, a[h], b[h], c[h]),
                        Op::VPkMinF16 => fp::min_f16(mode, a[h], b[h]),
                        _ => fp::max_f16(mode, a[h], b[h]),
                    };
                    r |= (fp::omod_clamp_f16(mode, v, Omod::None, clamp) as u32) << (16 * h);
                }
                Out::Raw(r)
            }
            Op::VPkFmacF16 => {
                let (a, b, c) = (
                    io.src(cx, Role::Src0, lane, Ty::B32)?,
                    io.src(cx, Role::Src1, lane, Ty::B32)?,
                    old()?,
                );
                let lo = fp::pk_fma_f16(mode, a as u16, b as u16, c as u16);
                let hi = fp::pk_fma_f16(mode, (a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16);
                Out::Raw(lo as u32 | (hi as u32) << 16)
            }
            Op::VDot2F32F16 | Op::VDot2cF32F16 => {
                let m = io.inst.mods;
                let src = |i: usize| -> Result<u32, BackendError> {
                    let reg = io.src(cx, SRC[i], lane, Ty::B32)?;
                    let [lo, hi] = fp::pk_source(
                        reg,
                        m.op_sel >> i & 1 == 1,
                        m.op_sel_hi >> i & 1 == 1 || io.inst.form != Form::Native,
                        m.neg >> i & 1 == 1,
                        m.neg_hi >> i & 1 == 1,
                    );
                    Ok(lo as u32 | (hi as u32) << 16)
                };
                let c = if op == Op::VDot2cF32F16 {
                    old()?
                } else {
                    io.src(cx, Role::Src2, lane, Ty::B32)?
                };
                Out::F32(fp::dot2_f32_f16(mode, src(0)?, src(1)?, c))
            }
            Op::VPackB32F16 => {
                let a = fp::src_mod_f16(
                    io.src16(cx, Role::Src0, lane, Ty::F16)?,
                    neg(io, 0),
                    abs(io, 0),
                );
                let b = fp::src_mod_f16(
                    io.src16(cx, Role::Src1, lane, Ty::F16)?,
                    neg(io, 1),
                    abs(io, 1),
                );
                Out::Raw(fp::pack_b32_f16(mode, a, b))
            }
            _ => {
                return Err(super::ctx::unsupported(
                    io.inst,
                    io.pc,
                    "vector instruction not modelled yet",
                ))
            }
        };
        results.push((lane, out));
    }
    for (lane, out) in results {
        match out {
            Out::F32(v) => io.write32(cx, lane, fp::omod_clamp_f32(mode, v, omod, clamp))?,
            Out::F16(v) => io.write16(cx, lane, fp::omod_clamp_f16(mode, v, omod, clamp))?,
            Out::F64(v) => io.write64(cx, lane, fp::omod_clamp_f64(mode, v, omod, clamp))?,
            Out::I32(v) | Out::Raw(v) => io.write32(cx, lane, v)?,
            Out::I16(v) => io.write16(cx, lane, v)?,
        }
    }
    Ok(())
}
