//! Differential fuzzing: random valid gfx10 programs run on the reference model and on other backends, the
//! results compared bit for bit.
//!
//! A program is a list of [`Item`]s over a fixed register frame: eight VGPRs `v10..v17` loaded from the
//! lane's eight input dwords, six SGPRs `s10..s15` set from literals, and VCC. Items are VALU operations
//! (integer and f32/f16 arithmetic, conversions, compares, VOP3 forms with `neg`/`abs`/`omod`/`clamp`),
//! operands drawn by class (VGPRs, SGPRs, inline integers and floats, literals of the special f32 and f16
//! values), SALU operations, EXEC blocks (`s_and_saveexec` over a few VALU items), forward branches on
//! VCCZ/EXECZ/SCC, bounded loops (1 to 3 turns), LDS exchanges between the lanes of a wave, buffer loads and
//! run-time mode changes (`s_round_mode`, `s_denorm_mode`). Each batch has one random float mode (all
//! FLOAT_MODE bytes, IEEE, DX10_CLAMP, FP16_OVFL) and wave size, and its programs share one kernel: the
//! workgroup id selects the program (one compile, one dispatch per batch). Every lane writes the frame
//! (sixteen dwords) at the end.
//!
//! A batch whose programs all agree costs one job per backend. When a backend refuses the batch (an
//! instruction it does not translate) or the outputs differ, each program runs alone; a divergent program is
//! minimised (items removed, then input columns zeroed, while the difference stays) and reported with its seed,
//! batch and index and as a regression file ([`Regression`]) that `tests/fuzz_regressions.rs` replays.
//! The stream is a pure function of the seed: `--seed S --count N` repeats exactly.

use measurements::job::{Backend, BackendError, Job, JobOutput};
use measurements::kernel::Kernel;
use measurements::FloatMode;
use reference_model::isa::encode::{self as enc, Src, Vop3, Vop3p};
use reference_model::isa::{Op, Target};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The target whose encodings the fixed parts of a kernel use (the frame, scalar items, LDS and buffer
/// traffic): the same words on every gfx10 target. The VALU items are drawn for a batch's own target.
const T: Target = Target::Gfx1013;
/// Threads per workgroup (two waves of 32, or one of 64).
pub const THREADS: u32 = 64;
/// Input dwords per lane (loaded into v10..v17).
pub const INPUTS: u32 = 8;
/// Output dwords per lane (v10..v25).
pub const OUTPUTS: u32 = 16;

/// A small, fast, repeatable generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value; 0 is mapped away).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A value below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n
    }
    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

/// f32 values by class: zeros, denormals, the smallest normal, one and its neighbours, halves, integers at
/// 2^23/2^31, the largest finite, infinities, quiet and signalling NaNs with payloads.
const F32_SPECIAL: [u32; 22] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0040_0000,
    0x0080_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f7f_ffff,
    0x3f80_0001,
    0x3f00_0000,
    0xbfc0_0000,
    0x4b00_0000,
    0x4f00_0000,
    0xcf00_0001,
    0x7f7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_1234,
    0x7f80_0001,
    0xffbf_ffff,
];
/// f16 values by class, as the low half.
const F16_SPECIAL: [u32; 14] = [
    0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x3bff, 0x7bff, 0x7c00, 0xfc00, 0x7e00,
    0x7d01, 0xfdff,
];

/// One input or literal dword by class.
fn value(r: &mut Rng) -> u32 {
    match r.below(10) {
        0..=3 => r.pick(&F32_SPECIAL),
        4 => r.pick(&F16_SPECIAL) | r.pick(&F16_SPECIAL) << 16,
        5 => r.below(70) as u32,
        6 => (r.below(40) as i32 - 20) as u32,
        7 => {
            // Near the exponent extremes, where flushing and overflow decide.
            let sign = (r.below(2) as u32) << 31;
            let exp = r.pick(&[0u32, 1, 2, 125, 126, 127, 128, 149, 150, 253, 254]);
            sign | exp << 23 | (r.bits() as u32 & 0x7f_ffff)
        }
        _ => r.bits() as u32,
    }
}

/// The inline float constants' source codes: 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2pi).
const INLINE_FLOATS: [u16; 9] = [240, 241, 242, 243, 244, 245, 246, 247, 248];

/// A VALU source: mostly the frame's VGPRs; SGPRs, inline constants and special literals the rest.
fn source(r: &mut Rng, scalar_ok: bool) -> Src {
    match r.below(20) {
        0..=10 => vgpr(r),
        11..=13 if scalar_ok => Src::s(10 + r.below(6) as u8),
        14 | 15 => Src::int(r.below(81) as i32 - 16),
        16 => Src::code(r.pick(&INLINE_FLOATS)),
        17..=19 if scalar_ok => Src::lit(value(r)),
        _ => vgpr(r),
    }
}

fn vgpr(r: &mut Rng) -> Src {
    Src::v(10 + r.below(8) as u8)
}

fn vdst(r: &mut Rng) -> u8 {
    10 + r.below(8) as u8
}

/// Whether an operation takes the float source and output modifiers.
fn is_float(op: Op) -> bool {
    let m = op.mnemonic();
    (m.contains("_f32") || m.contains("_f16") || m.contains("_f64"))
        && !m.starts_with("v_cvt_f32_i32")
        && !m.starts_with("v_cvt_f32_u32")
        && !m.starts_with("v_cvt_f64_i32")
        && !m.starts_with("v_cvt_f64_u32")
        && !m.starts_with("v_cvt_f16_i16")
        && !m.starts_with("v_cvt_f16_u16")
        && !m.starts_with("v_cvt_f32_ubyte")
        && !m.starts_with("v_cvt_off")
}

/// Whether a float operation's result is a float (output modifiers apply), not an integer.
fn float_result(op: Op) -> bool {
    let m = op.mnemonic();
    !(m.starts_with("v_cvt_i")
        || m.starts_with("v_cvt_u")
        || m.starts_with("v_cvt_flr")
        || m.starts_with("v_cvt_rpi")
        || m.starts_with("v_frexp_exp")
        || m.starts_with("v_cvt_pkrtz")
        || m.starts_with("v_pack"))
}

/// The VOP2 operations drawn (two sources, VGPR second source).
const VOP2: &[Op] = &[
    Op::VAddNcU32,
    Op::VSubNcU32,
    Op::VSubrevNcU32,
    Op::VAndB32,
    Op::VOrB32,
    Op::VXorB32,
    Op::VXnorB32,
    Op::VLshlrevB32,
    Op::VLshrrevB32,
    Op::VAshrrevI32,
    Op::VMinU32,
    Op::VMaxU32,
    Op::VMinI32,
    Op::VMaxI32,
    Op::VMulU32U24,
    Op::VMulI32I24,
    Op::VMulHiU32U24,
    Op::VAddF32,
    Op::VSubF32,
    Op::VSubrevF32,
    Op::VMulF32,
    Op::VMinF32,
    Op::VMaxF32,
    Op::VMulLegacyF32,
    Op::VAddF16,
    Op::VSubF16,
    Op::VMulF16,
    Op::VMinF16,
    Op::VMaxF16,
    Op::VLdexpF16,
    Op::VCndmaskB32,
    Op::VFmacF32,
    Op::VFmacF16,
    Op::VPkFmacF16,
    Op::VMacF32,
    Op::VMacLegacyF32,
    Op::VCvtPkrtzF16F32,
];

/// The VOP1 operations drawn.
const VOP1: &[Op] = &[
    Op::VMovB32,
    Op::VNotB32,
    Op::VBfrevB32,
    Op::VFfbhU32,
    Op::VFfblB32,
    Op::VFfbhI32,
    Op::VCvtF32I32,
    Op::VCvtF32U32,
    Op::VCvtI32F32,
    Op::VCvtU32F32,
    Op::VCvtF16F32,
    Op::VCvtF32F16,
    Op::VCvtF64F32,
    Op::VCvtF32F64,
    Op::VFloorF64,
    Op::VRndneF64,
    Op::VFractF64,
    Op::VFrexpMantF64,
    Op::VFrexpExpI32F64,
    Op::VCvtI32F64,
    Op::VCvtU32F64,
    Op::VCvtF64I32,
    Op::VCvtF64U32,
    Op::VCvtFlrI32F32,
    Op::VCvtRpiI32F32,
    Op::VCvtF32Ubyte0,
    Op::VCvtF32Ubyte3,
    Op::VCvtOffF32I4,
    Op::VFractF32,
    Op::VTruncF32,
    Op::VCeilF32,
    Op::VRndneF32,
    Op::VFloorF32,
    Op::VFrexpMantF32,
    Op::VFrexpExpI32F32,
    Op::VCvtF16U16,
    Op::VCvtF16I16,
    Op::VCvtU16F16,
    Op::VCvtI16F16,
    Op::VFloorF16,
    Op::VCeilF16,
    Op::VTruncF16,
    Op::VRndneF16,
    Op::VFractF16,
    Op::VFrexpMantF16,
    Op::VFrexpExpI16F16,
    Op::VRcpF32,
    Op::VRcpIflagF32,
    Op::VSqrtF32,
    Op::VRsqF32,
    Op::VRcpF16,
    Op::VSqrtF16,
    Op::VRsqF16,
    Op::VExpF32,
    Op::VLogF32,
    Op::VExpF16,
    Op::VLogF16,
    Op::VSinF32,
    Op::VCosF32,
    Op::VSinF16,
    Op::VCosF16,
    Op::VRcpF64,
    Op::VSqrtF64,
    Op::VRsqF64,
];

/// VOP3-only operations drawn, with their source counts.
const VOP3: &[(Op, usize)] = &[
    (Op::VFmaF32, 3),
    (Op::VFmaF16, 3),
    (Op::VMed3F32, 3),
    (Op::VMin3F32, 3),
    (Op::VMax3F32, 3),
    (Op::VMed3F16, 3),
    (Op::VLdexpF32, 2),
    (Op::VBfeU32, 3),
    (Op::VBfeI32, 3),
    (Op::VBfiB32, 3),
    (Op::VMulLoU32, 2),
    (Op::VMulHiU32, 2),
    (Op::VAdd3U32, 3),
    (Op::VLshlAddU32, 3),
    (Op::VAndOrB32, 3),
    (Op::VOr3B32, 3),
    (Op::VXadU32, 3),
    (Op::VMadU32U24, 3),
    (Op::VAlignbitB32, 3),
    (Op::VPackB32F16, 2),
    (Op::VMadF32, 3),
    (Op::VMadLegacyF32, 3),
    (Op::VAddF64, 2),
    (Op::VMulF64, 2),
    (Op::VFmaF64, 3),
    (Op::VMinF64, 2),
    (Op::VMaxF64, 2),
    (Op::VLdexpF64, 2),
    (Op::VCubeidF32, 3),
    (Op::VCubescF32, 3),
    (Op::VCubetcF32, 3),
    (Op::VCubemaF32, 3),
];

/// VOP3P operations drawn, with their source counts: packed f16 and 16-bit integer, the mixed-precision
/// FMAs.
const VOP3P: &[(Op, usize)] = &[
    (Op::VPkAddF16, 2),
    (Op::VPkMulF16, 2),
    (Op::VPkFmaF16, 3),
    (Op::VPkMinF16, 2),
    (Op::VPkMaxF16, 2),
    (Op::VFmaMixF32, 3),
    (Op::VFmaMixloF16, 3),
    (Op::VFmaMixhiF16, 3),
    (Op::VPkAddU16, 2),
    (Op::VPkSubI16, 2),
    (Op::VPkMulLoU16, 2),
    (Op::VPkLshlrevB16, 2),
    (Op::VPkAshrrevI16, 2),
    (Op::VPkMaxI16, 2),
    (Op::VPkMinU16, 2),
    (Op::VPkMadU16, 3),
    (Op::VPkMadI16, 3),
];

/// gfx10.3 operations drawn besides those above on that target (`fuzz --target gfx1030`): the dot products
/// and the legacy FMAs that replace gfx10.1's legacy MACs.
const VOP2_GFX1030: &[Op] = &[Op::VDot2cF32F16, Op::VDot4cI32I8, Op::VFmacLegacyF32];
const VOP3_GFX1030: &[(Op, usize)] = &[(Op::VFmaLegacyF32, 3)];
const VOP3P_GFX1030: &[(Op, usize)] = &[
    (Op::VDot2F32F16, 3),
    (Op::VDot2I32I16, 3),
    (Op::VDot2U32U16, 3),
    (Op::VDot4I32I8, 3),
    (Op::VDot4U32U8, 3),
    (Op::VDot8I32I4, 3),
    (Op::VDot8U32U4, 3),
];

/// One of `common`, or of `extra` on `t` = gfx1030 (so gfx1013's stream draws what it always drew).
fn pick_for<X: Copy>(r: &mut Rng, t: Target, common: &[X], extra: &[X]) -> X {
    if t == Target::Gfx1013 {
        return r.pick(common);
    }
    let i = r.below((common.len() + extra.len()) as u64) as usize;
    if i < common.len() {
        common[i]
    } else {
        extra[i - common.len()]
    }
}

/// The compares drawn.
const VOPC: &[Op] = &[
    Op::VCmpLtF32,
    Op::VCmpEqF32,
    Op::VCmpLeF32,
    Op::VCmpGtF32,
    Op::VCmpLgF32,
    Op::VCmpOF32,
    Op::VCmpUF32,
    Op::VCmpNgeF32,
    Op::VCmpNeqF32,
    Op::VCmpLtF16,
    Op::VCmpEqF16,
    Op::VCmpNltF16,
    Op::VCmpLtI32,
    Op::VCmpEqU32,
    Op::VCmpGtU32,
    Op::VCmpNeI32,
    Op::VCmpLtF64,
    Op::VCmpEqF64,
    Op::VCmpNgeF64,
    Op::VCmpClassF32,
    Op::VCmpClassF16,
    Op::VCmpClassF64,
    Op::VCmpxLtF32,
    Op::VCmpxEqU32,
];

const SOP2: &[Op] = &[
    Op::SAddU32,
    Op::SSubU32,
    Op::SAndB32,
    Op::SOrB32,
    Op::SXorB32,
    Op::SLshlB32,
    Op::SLshrB32,
    Op::SAshrI32,
    Op::SMinU32,
    Op::SMaxI32,
    Op::SMulI32,
    Op::SBfeU32,
    Op::SCselectB32,
];

const SOP1: &[Op] = &[
    Op::SMovB32,
    Op::SNotB32,
    Op::SBrevB32,
    Op::SBcnt1I32B32,
    Op::SFf1I32B32,
    Op::SFlbitI32B32,
];

/// One element of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// One instruction's words; `alt` is the same operation in its VOP3 form (for the metamorphic check).
    Inst {
        /// The words.
        words: Vec<u32>,
        /// The VOP3 form, when the words are a VOP1/VOP2/VOPC encoding.
        alt: Option<Vec<u32>>,
    },
    /// `s_and_saveexec` with a mask SGPR, the body, EXEC restored.
    Exec {
        /// The mask SGPR (even, so wave64 reads a pair).
        mask: u8,
        /// VALU items.
        body: Vec<Item>,
    },
    /// A forward branch over the body (`op` a SOPP conditional branch).
    Skip {
        /// s_cbranch_vccz, s_cbranch_execz or s_cbranch_scc0.
        op: Op,
        /// The skipped items.
        body: Vec<Item>,
    },
    /// The body `turns` times, counted in s18.
    Loop {
        /// 1..=3.
        turns: u16,
        /// Items (no loops inside).
        body: Vec<Item>,
    },
}

/// A VALU instruction (and its VOP3 form when it has a shorter one).
fn valu(r: &mut Rng, t: Target) -> Item {
    let inst = |words: Vec<u32>, alt: Option<Vec<u32>>| Item::Inst { words, alt };
    loop {
        match r.below(11) {
            0..=2 => {
                let op = pick_for(r, t, VOP2, VOP2_GFX1030);
                let d = vdst(r);
                let s0 = source(r, true);
                let s1 = 10 + r.below(8) as u8;
                // v_cndmask_b32 names VCC as its third source in VOP3 form.
                let e64: Vec<Src> = if op == Op::VCndmaskB32 {
                    vec![s0, Src::v(s1), Src::s(106)]
                } else {
                    vec![s0, Src::v(s1)]
                };
                if r.chance(25) {
                    if let Ok(w) = vop3_form(r, op, d, &e64, t) {
                        return inst(w, None);
                    }
                }
                let Ok(w) = enc::vop2(t, op, d, s0, s1) else {
                    continue;
                };
                let alt = enc::vop3(t, op, d, &e64, Vop3::default()).ok();
                return inst(w, alt);
            }
            3..=4 => {
                let op = r.pick(VOP1);
                let d = vdst(r);
                let mut s0 = source(r, true);
                // The 16-bit integer sources take no inline float (the model reads those its own way).
                if matches!(op, Op::VCvtF16I16 | Op::VCvtF16U16) && (240..=248).contains(&s0.code) {
                    s0 = vgpr(r);
                }
                if r.chance(25) {
                    if let Ok(w) = vop3_form(r, op, d, &[s0], t) {
                        return inst(w, None);
                    }
                }
                let Ok(w) = enc::vop1(t, op, d, s0) else {
                    continue;
                };
                let alt = enc::vop3(t, op, d, &[s0], Vop3::default()).ok();
                return inst(w, alt);
            }
            5..=6 => {
                let (op, n) = pick_for(r, t, VOP3, VOP3_GFX1030);
                let d = vdst(r);
                // At most one SGPR or literal among the sources (the constant bus).
                let mut srcs = Vec::new();
                let mut scalar = false;
                for _ in 0..n {
                    let s = source(r, !scalar);
                    scalar |= s.code == 255 || s.code < 128;
                    srcs.push(s);
                }
                let Ok(w) = vop3_form(r, op, d, &srcs, t) else {
                    continue;
                };
                return inst(w, None);
            }
            9 => {
                let (op, n) = pick_for(r, t, VOP3P, VOP3P_GFX1030);
                let d = vdst(r);
                // No literal (LLVM 19 takes none in VOP3P on gfx10) and at most one SGPR.
                let mut srcs = Vec::new();
                let mut scalar = false;
                for _ in 0..n {
                    let mut s = source(r, !scalar);
                    if s.code == 255 {
                        s = vgpr(r);
                    }
                    scalar |= s.code < 128;
                    srcs.push(s);
                }
                let float = is_float(op);
                let mix = op.mnemonic().starts_with("v_fma_mix");
                let mask = (1u8 << n) - 1;
                // The sources whose halves op_sel picks and neg_lo/neg_hi negate: v_dot2_f32_f16's two packed
                // f16 sources, not its f32 accumulator; the integer dot products take none (the model
                // defines these fields for them nowhere, exec/fields.rs).
                let packed = match op {
                    Op::VDot2F32F16 => 0b011,
                    Op::VDot2I32I16
                    | Op::VDot2U32U16
                    | Op::VDot4I32I8
                    | Op::VDot4U32U8
                    | Op::VDot8I32I4
                    | Op::VDot8U32U4 => 0,
                    _ => mask,
                };
                let mut m = Vop3p::PLAIN;
                m.op_sel_hi = if mix { 0 } else { 7 };
                if r.chance(60) {
                    m.op_sel = r.below(8) as u8 & packed;
                    // Bits of other sources stay as LLVM writes them (ones).
                    m.op_sel_hi = r.below(8) as u8 & packed | if mix { 0 } else { 7 & !packed };
                }
                if float && r.chance(40) {
                    m.neg = r.below(8) as u8 & packed;
                    m.neg_hi = r.below(8) as u8 & packed;
                }
                // Clamp where it is defined: float results, integer add, subtract and mad (saturation).
                let saturates = matches!(
                    op,
                    Op::VPkAddU16
                        | Op::VPkSubI16
                        | Op::VPkMadU16
                        | Op::VPkMadI16
                        | Op::VDot2I32I16
                        | Op::VDot2U32U16
                        | Op::VDot4I32I8
                        | Op::VDot4U32U8
                        | Op::VDot8I32I4
                        | Op::VDot8U32U4
                );
                m.clamp = (float || saturates) && r.chance(15);
                let Ok(w) = enc::vop3p(t, op, d, &srcs, m) else {
                    continue;
                };
                return inst(w, None);
            }
            7 => {
                // A compare into VCC or an SGPR (pair), then a select on VCC.
                let op = r.pick(VOPC);
                let s0 = source(r, true);
                let s1 = 10 + r.below(8) as u8;
                let cmpx = op.mnemonic().starts_with("v_cmpx");
                if cmpx {
                    // EXEC from the compare for the rest of the program (the e32 form only).
                    let Ok(w) = enc::vopc(t, op, s0, s1) else {
                        continue;
                    };
                    return inst(w, None);
                }
                // A class test's mask (source 1) is an integer: modifiers on source 0 only.
                let float_srcs = if op.mnemonic().contains("class") {
                    1
                } else {
                    3
                };
                if r.chance(30) {
                    let m = Vop3 {
                        neg: if is_float(op) {
                            r.below(4) as u8 & float_srcs
                        } else {
                            0
                        },
                        abs: if is_float(op) {
                            r.below(4) as u8 & float_srcs
                        } else {
                            0
                        },
                        ..Vop3::default()
                    };
                    let sd = r.pick(&[10u8, 12, 14, 106]);
                    let Ok(w) = enc::vop3(t, op, sd, &[s0, Src::v(s1)], m) else {
                        continue;
                    };
                    return inst(w, None);
                }
                let Ok(w) = enc::vopc(t, op, s0, s1) else {
                    continue;
                };
                // The VOP3 form writing VCC.
                let alt = enc::vop3(t, op, 106, &[s0, Src::v(s1)], Vop3::default()).ok();
                return inst(w, alt);
            }
            _ => {
                let d = vdst(r);
                let s0 = source(r, true);
                let s1 = 10 + r.below(8) as u8;
                let Ok(w) = enc::vop2(t, Op::VCndmaskB32, d, s0, s1) else {
                    continue;
                };
                let alt = enc::vop3(
                    t,
                    Op::VCndmaskB32,
                    d,
                    &[s0, Src::v(s1), Src::s(106)],
                    Vop3::default(),
                )
                .ok();
                return inst(w, alt);
            }
        }
    }
}

/// `op` in VOP3 form with random modifiers where it takes them.
fn vop3_form(r: &mut Rng, op: Op, d: u8, srcs: &[Src], t: Target) -> Result<Vec<u32>, String> {
    let n = srcs.len() as u64;
    // The float sources (v_ldexp's exponent is an integer).
    let float_srcs: u8 = if matches!(op, Op::VLdexpF32 | Op::VLdexpF16 | Op::VLdexpF64) {
        1
    } else {
        (1 << n) - 1
    };
    let m = if op == Op::VCndmaskB32 {
        // abs and neg on the two selected sources (bit operations), nothing else.
        Vop3 {
            neg: r.below(4) as u8 & if r.chance(40) { 3 } else { 0 },
            abs: r.below(4) as u8 & if r.chance(40) { 3 } else { 0 },
            ..Vop3::default()
        }
    } else if is_float(op) {
        Vop3 {
            neg: r.below(1 << n) as u8 & float_srcs & if r.chance(40) { 0xff } else { 0 },
            abs: r.below(1 << n) as u8 & float_srcs & if r.chance(40) { 0xff } else { 0 },
            omod: if float_result(op) && r.chance(20) {
                r.below(4) as u8
            } else {
                0
            },
            clamp: float_result(op) && r.chance(20),
            sdst: None,
        }
    } else {
        Vop3::default()
    };
    enc::vop3(t, op, d, srcs, m)
}

/// A SALU instruction on s10..s15 (SCC as a side effect).
fn salu(r: &mut Rng) -> Item {
    let sd = 10 + r.below(6) as u8;
    let ssrc = |r: &mut Rng| match r.below(4) {
        0 => Src::lit(value(r)),
        1 => Src::int(r.below(81) as i32 - 16),
        _ => Src::s(10 + r.below(6) as u8),
    };
    let words = loop {
        let w = match r.below(4) {
            0 => {
                let op = r.pick(SOP1);
                enc::sop1(T, op, sd, ssrc(r))
            }
            1 => enc::sopc(
                T,
                r.pick(&[Op::SCmpLtU32, Op::SCmpEqU32, Op::SCmpGtI32]),
                ssrc(r),
                ssrc(r),
            ),
            _ => {
                let op = r.pick(SOP2);
                let a = ssrc(r);
                // One literal per instruction.
                let b = if a.code == 255 {
                    Src::s(10 + r.below(6) as u8)
                } else {
                    ssrc(r)
                };
                enc::sop2(T, op, sd, a, b)
            }
        };
        if let Ok(w) = w {
            break w;
        }
    };
    Item::Inst { words, alt: None }
}

/// One item at nesting depth `depth` (blocks only at depth 0; loops hold no loops).
fn item(r: &mut Rng, wave: u32, depth: u32, t: Target) -> Item {
    let roll = r.below(100);
    if depth == 0 && roll < 6 {
        let body = (0..1 + r.below(3)).map(|_| valu(r, t)).collect();
        return Item::Exec {
            mask: r.pick(&[10u8, 12, 14]),
            body,
        };
    }
    if depth == 0 && roll < 10 {
        let body = (0..1 + r.below(3)).map(|_| item(r, wave, 1, t)).collect();
        return Item::Skip {
            op: r.pick(&[Op::SCbranchVccz, Op::SCbranchExecz, Op::SCbranchScc0]),
            body,
        };
    }
    if depth == 0 && roll < 14 {
        let body = (0..1 + r.below(4)).map(|_| item(r, wave, 1, t)).collect();
        return Item::Loop {
            turns: 1 + r.below(3) as u16,
            body,
        };
    }
    if roll < 16 {
        return lds_exchange(r, wave);
    }
    if roll < 18 {
        return lds_atomic(r);
    }
    if roll < 20 {
        // Another input dword of the lane.
        let d = vdst(r);
        let off = 4 * r.below(INPUTS as u64) as u16;
        let mut words =
            enc::mubuf(T, Op::BufferLoadDword, enc::Buf::offen(d, 1, 0, off)).expect("encodes");
        words.extend(enc::sopp(T, Op::SWaitcnt, 0x3f70).expect("encodes"));
        return Item::Inst { words, alt: None };
    }
    if roll < 22 {
        // A run-time change of the round or denormal fields.
        let op = r.pick(&[Op::SRoundMode, Op::SDenormMode]);
        let words = enc::sopp(T, op, r.below(16) as u16).expect("encodes");
        return Item::Inst { words, alt: None };
    }
    if roll < 34 {
        return salu(r);
    }
    valu(r, t)
}

/// Each lane writes a frame register to its LDS dword and reads the dword of the lane `k` places away
/// (xor, inside the wave).
fn lds_exchange(r: &mut Rng, wave: u32) -> Item {
    let k = 1 + r.below(wave as u64 - 1) as i32;
    let (src, dst) = (vdst(r), vdst(r));
    let mut words = Vec::new();
    words.extend(enc::vop2(T, Op::VXorB32, 4, Src::int(k), 0).expect("encodes"));
    words.extend(enc::vop2(T, Op::VLshlrevB32, 4, Src::int(2), 4).expect("encodes"));
    words.extend(enc::ds(T, Op::DsWriteB32, 0, 3, [src, 0], [0, 0]).expect("encodes"));
    words.extend(enc::sopp(T, Op::SWaitcnt, 0xc07f).expect("encodes"));
    words.extend(enc::ds(T, Op::DsReadB32, dst, 4, [0, 0], [0, 0]).expect("encodes"));
    words.extend(enc::sopp(T, Op::SWaitcnt, 0xc07f).expect("encodes"));
    Item::Inst { words, alt: None }
}

/// Each lane writes a frame register to its LDS dword; then every lane applies an f32 LDS atomic to the
/// dword of the first lane of its group of 1, 2, 4 or 8 (lanes of a group in ascending order on one dword)
/// and reads its own dword back.
fn lds_atomic(r: &mut Rng) -> Item {
    use Op::*;
    let group = r.below(4) as i32;
    let op = r.pick(&[
        DsMinRtnF32,
        DsMaxRtnF32,
        DsAddRtnF32,
        DsCmpstRtnF32,
        DsMinF32,
        DsMaxF32,
        DsAddF32,
        DsCmpstF32,
    ]);
    let (src, d1, dst, back) = (vdst(r), vdst(r), vdst(r), vdst(r));
    // The compare value of a compare-store: often the value the group's first lane wrote.
    let d0 = if r.chance(50) { src } else { vdst(r) };
    let rtn = op.mnemonic().contains("_rtn_");
    let mut words = Vec::new();
    words.extend(enc::vop2(T, Op::VAndB32, 4, Src::int(-(1 << group)), 0).expect("encodes"));
    words.extend(enc::vop2(T, Op::VLshlrevB32, 4, Src::int(2), 4).expect("encodes"));
    words.extend(enc::ds(T, Op::DsWriteB32, 0, 3, [src, 0], [0, 0]).expect("encodes"));
    words.extend(enc::sopp(T, Op::SWaitcnt, 0xc07f).expect("encodes"));
    let data = if matches!(op, DsCmpstRtnF32 | DsCmpstF32) {
        [d0, d1]
    } else {
        [d1, 0]
    };
    words.extend(enc::ds(T, op, if rtn { dst } else { 0 }, 4, data, [0, 0]).expect("encodes"));
    words.extend(enc::sopp(T, Op::SWaitcnt, 0xc07f).expect("encodes"));
    words.extend(enc::ds(T, Op::DsReadB32, back, 3, [0, 0], [0, 0]).expect("encodes"));
    words.extend(enc::sopp(T, Op::SWaitcnt, 0xc07f).expect("encodes"));
    Item::Inst { words, alt: None }
}

/// One program: the scalar frame from literals, VCC from a compare, then 4 to 24 items.
pub fn program(r: &mut Rng, wave: u32, t: Target) -> Vec<Item> {
    let mut items = Vec::new();
    for s in 10..16u8 {
        let words = enc::sop1(T, Op::SMovB32, s, Src::lit(value(r))).expect("encodes");
        items.push(Item::Inst { words, alt: None });
    }
    let words = enc::vopc(T, r.pick(VOPC), vgpr(r), 10 + r.below(8) as u8).expect("encodes");
    items.push(Item::Inst { words, alt: None });
    let n = 4 + r.below(21);
    for _ in 0..n {
        items.push(item(r, wave, 0, t));
    }
    items
}

/// How programs are emitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rewrite {
    /// VOP1/VOP2/VOPC instructions in their VOP3 form.
    pub vop3: bool,
    /// `s_nop 0` after every item.
    pub nops: bool,
    /// The program inside `s_or_saveexec -1` ... EXEC and-ed with the saved mask (EXEC is already all ones
    /// there).
    pub exec_wrap: bool,
    /// The program's registers v10..v17 renamed to v30..v37 ([`rename_vgprs`]): copied there first, back
    /// (in every lane) at the end.
    pub rename: bool,
}

/// The first register of the renamed range of [`Rewrite::rename`].
const RENAMED: u8 = 30;

/// `words` (whole instructions) with every VGPR operand in v10..v17 renamed to v30..v37, whatever its role:
/// each instruction is decoded to tell its VGPR fields from SGPRs, constants and literals, and the fields are
/// rewritten in place. An instruction the decoder does not take is an error (the generator's always decode).
pub fn rename_vgprs(words: &[u32], t: Target) -> Result<Vec<u32>, String> {
    use reference_model::isa::{Control, Encoding as E, Operand, Role};
    let shift = (RENAMED - 10) as u32;
    let in_range = |v: u32| (10..18).contains(&v);
    // A field of `bits` at `at` in word `w` holding a VGPR number (`base` 0) or a 9-bit source code (256).
    let patch = |out: &mut [u32], w: usize, at: u32, bits: u32, base: u32| {
        let mask = (1u32 << bits) - 1;
        let v = out[w] >> at & mask;
        if v >= base && in_range(v - base) {
            out[w] = out[w] & !(mask << at) | (v + shift) << at;
        }
    };
    let mut out = words.to_vec();
    let mut i = 0;
    while i < words.len() {
        let inst =
            reference_model::isa::decode(t, words, i).map_err(|e| format!("word {i}: {e}"))?;
        let n = inst.size as usize;
        let o = &mut out[i..i + n];
        let vgpr = |role: Role| matches!(inst.operand(role), Some(Operand::Vgpr { .. }));
        let ext = matches!(
            inst.control,
            Control::Sdwa(_) | Control::Dpp16(_) | Control::Dpp8(_)
        );
        match inst.encoding {
            E::Vop1 | E::Vop2 | E::Vopc => {
                if ext {
                    // The SDWA or DPP dword holds source 0 (an SDWA SGPR source sets bit 23).
                    let sgpr = matches!(inst.control, Control::Sdwa(_)) && o[1] >> 23 & 1 == 1;
                    if !sgpr {
                        patch(o, 1, 0, 8, 0);
                    }
                } else {
                    patch(o, 0, 0, 9, 256);
                }
                if inst.encoding != E::Vop1 {
                    patch(o, 0, 9, 8, 0);
                }
                if inst.encoding != E::Vopc && vgpr(Role::Vdst) {
                    patch(o, 0, 17, 8, 0);
                }
            }
            E::Vop3 | E::Vop3p => {
                if vgpr(Role::Vdst) {
                    patch(o, 0, 0, 8, 0);
                }
                for at in [0, 9, 18] {
                    patch(o, 1, at, 9, 256);
                }
            }
            E::Ds | E::Mubuf | E::Mtbuf | E::Flat => {
                let fields: &[(Role, u32)] = match inst.encoding {
                    E::Ds => &[
                        (Role::Vaddr, 0),
                        (Role::Vdata, 8),
                        (Role::Vdata1, 16),
                        (Role::Vdst, 24),
                    ],
                    E::Flat => &[(Role::Vaddr, 0), (Role::Vdata, 8), (Role::Vdst, 24)],
                    _ => &[(Role::Vaddr, 0), (Role::Vdata, 8), (Role::Vdst, 8)],
                };
                for &(role, at) in fields {
                    if vgpr(role) {
                        patch(o, 1, at, 8, 0);
                    }
                }
            }
            _ => {}
        }
        i += n;
    }
    Ok(out)
}

fn emit_items(items: &[Item], wave: u32, rw: Rewrite, t: Target, out: &mut Vec<u32>) {
    let sop = |op, imm: u16| enc::sopp(T, op, imm).expect("encodes");
    for it in items {
        match it {
            Item::Inst { words, alt } => {
                let w = match (rw.vop3, alt) {
                    (true, Some(a)) => a,
                    _ => words,
                };
                if rw.rename {
                    out.extend(rename_vgprs(w, t).expect("generated instructions decode"));
                } else {
                    out.extend(w);
                }
            }
            Item::Exec { mask, body } => {
                let w = if wave == 64 {
                    enc::sop1(T, Op::SAndSaveexecB64, 16, Src::s(*mask))
                } else {
                    enc::sop1(T, Op::SAndSaveexecB32, 16, Src::s(*mask))
                };
                out.extend(w.expect("encodes"));
                emit_items(body, wave, rw, t, out);
                let w = if wave == 64 {
                    enc::sop1(T, Op::SMovB64, 126, Src::s(16))
                } else {
                    enc::sop1(T, Op::SMovB32, 126, Src::s(16))
                };
                out.extend(w.expect("encodes"));
            }
            Item::Skip { op, body } => {
                let mut b = Vec::new();
                emit_items(body, wave, rw, t, &mut b);
                out.extend(sop(*op, b.len() as u16));
                out.extend(b);
            }
            Item::Loop { turns, body } => {
                out.extend(enc::sopk(T, Op::SMovkI32, 18, *turns).expect("encodes"));
                let mut b = Vec::new();
                emit_items(body, wave, rw, t, &mut b);
                let len = b.len() as i32;
                out.extend(b);
                out.extend(
                    enc::sop2(T, Op::SSubU32, 18, Src::s(18), Src::int(1)).expect("encodes"),
                );
                out.extend(enc::sopc(T, Op::SCmpLgU32, Src::s(18), Src::int(0)).expect("encodes"));
                out.extend(sop(Op::SCbranchScc1, (-(len + 3)) as i16 as u16));
            }
        }
        if rw.nops {
            out.extend(sop(Op::SNop, 0));
        }
    }
}

/// The kernel words running `programs` (program i in workgroup i, drawn for target `t`) in wave size `wave`.
pub fn kernel_words(
    programs: &[Vec<Item>],
    wave: u32,
    rw: Rewrite,
    t: Target,
) -> Result<Vec<u32>, String> {
    Ok(kernel_layout(programs, wave, rw, t)?.0)
}

/// Word ranges `[start, end)`, one per program.
pub type Ranges = Vec<(usize, usize)>;

/// [`kernel_words`] and the word range `[start, end)` of each program.
pub fn kernel_layout(
    programs: &[Vec<Item>],
    wave: u32,
    rw: Rewrite,
    t: Target,
) -> Result<(Vec<u32>, Ranges), String> {
    let e = |w: Result<Vec<u32>, String>| w.expect("the fixed frame encodes");
    let mut w = Vec::new();
    // Global lane, its input (8 dwords) and output (16 dwords) offsets, the inputs, the LDS address.
    w.extend(e(enc::sop2(
        T,
        Op::SMulI32,
        9,
        Src::s(8),
        Src::int(THREADS as i32),
    )));
    w.extend(e(enc::vop2(T, Op::VAddNcU32, 1, Src::s(9), 0)));
    w.extend(e(enc::vop2(T, Op::VLshlrevB32, 2, Src::int(6), 1)));
    w.extend(e(enc::vop2(T, Op::VLshlrevB32, 1, Src::int(5), 1)));
    w.extend(e(enc::mubuf(
        T,
        Op::BufferLoadDwordx4,
        enc::Buf::offen(10, 1, 0, 0),
    )));
    w.extend(e(enc::mubuf(
        T,
        Op::BufferLoadDwordx4,
        enc::Buf::offen(14, 1, 0, 16),
    )));
    w.extend(e(enc::vop2(T, Op::VLshlrevB32, 3, Src::int(2), 0)));
    w.extend(e(enc::sopp(T, Op::SWaitcnt, 0x3f70)));
    let bodies: Vec<Vec<u32>> = programs
        .iter()
        .map(|p| {
            let mut b = Vec::new();
            if rw.rename {
                // EXEC is all ones here: every lane's frame registers move.
                for k in 0..8u8 {
                    b.extend(e(enc::vop1(T, Op::VMovB32, RENAMED + k, Src::v(10 + k))));
                }
            }
            if rw.exec_wrap {
                let op = if wave == 64 {
                    Op::SOrSaveexecB64
                } else {
                    Op::SOrSaveexecB32
                };
                b.extend(e(enc::sop1(T, op, 20, Src::int(-1))));
            }
            emit_items(p, wave, rw, t, &mut b);
            if rw.exec_wrap {
                // EXEC and the saved mask, not the saved mask alone: a v_cmpx in the program narrowed EXEC
                // within the lanes that started, and the plain program keeps that.
                let op = if wave == 64 { Op::SAndB64 } else { Op::SAndB32 };
                b.extend(e(enc::sop2(T, op, 126, Src::s(126), Src::s(20))));
            }
            if rw.rename {
                // Back in every lane (the frame store sets EXEC to all ones anyway; SCC and VCC are untouched).
                let op = if wave == 64 { Op::SMovB64 } else { Op::SMovB32 };
                b.extend(e(enc::sop1(T, op, 126, Src::int(-1))));
                for k in 0..8u8 {
                    b.extend(e(enc::vop1(T, Op::VMovB32, 10 + k, Src::v(RENAMED + k))));
                }
            }
            b
        })
        .collect();
    // The selection chain: s_cmp_eq_u32 s8, i; s_cbranch_scc1 to program i; then s_endpgm.
    // The frame: s10..s15 and VCC as lanes see them, then 16 dwords per lane.
    let mut epilogue = Vec::new();
    // Every lane writes its frame, whatever EXEC a v_cmpx left (the registers keep what it did).
    if wave == 64 {
        epilogue.extend(e(enc::sop1(T, Op::SMovB64, 126, Src::int(-1))));
    } else {
        epilogue.extend(e(enc::sop1(T, Op::SMovB32, 126, Src::int(-1))));
    }
    for (k, s) in (10..16u8).enumerate() {
        epilogue.extend(e(enc::vop1(T, Op::VMovB32, 18 + k as u8, Src::s(s))));
    }
    epilogue.extend(e(enc::vop1(T, Op::VMovB32, 24, Src::s(106))));
    epilogue.extend(e(enc::vop2(T, Op::VCndmaskB32, 25, Src::int(0), 3)));
    for k in 0..4u8 {
        epilogue.extend(e(enc::mubuf(
            T,
            Op::BufferStoreDwordx4,
            enc::Buf::offen(10 + 4 * k, 2, 1, 16 * k as u16),
        )));
    }
    epilogue.extend(e(enc::sopp(T, Op::SEndpgm, 0)));
    // Layout: prologue, selection chain, s_endpgm, the shared frame store, the programs (each branching to
    // the frame store): one copy of the buffer stores per kernel keeps the module small.
    let cmp_len = |i: usize| if i <= 64 { 2 } else { 3 };
    let chain: usize = (0..programs.len()).map(cmp_len).sum::<usize>() + 1;
    let frame_at = w.len() + chain;
    let mut at = frame_at + epilogue.len();
    let mut starts = Vec::new();
    for b in &bodies {
        starts.push(at);
        at += b.len() + 1;
    }
    let far = || "the batch is too long for a branch: fewer programs".to_string();
    for (i, &s) in starts.iter().enumerate() {
        w.extend(e(enc::sopc(
            T,
            Op::SCmpEqU32,
            Src::s(8),
            Src::int(i as i32),
        )));
        let off = i16::try_from(s as i64 - (w.len() as i64 + 1)).map_err(|_| far())?;
        w.extend(e(enc::sopp(T, Op::SCbranchScc1, off as u16)));
    }
    w.extend(e(enc::sopp(T, Op::SEndpgm, 0)));
    w.extend(&epilogue);
    let mut ranges = Vec::new();
    for b in &bodies {
        let s = w.len();
        w.extend(b);
        let off = i16::try_from(frame_at as i64 - (w.len() as i64 + 1)).map_err(|_| far())?;
        w.extend(e(enc::sopp(T, Op::SBranch, off as u16)));
        ranges.push((s, w.len()));
    }
    Ok((w, ranges))
}

/// A job running `words` (for target `t`) with `groups` workgroups of [`THREADS`] lanes and the lanes'
/// `inputs`.
pub fn job(
    words: &[u32],
    wave: u32,
    groups: u32,
    mode: FloatMode,
    inputs: &[Vec<u32>],
    t: Target,
) -> Job {
    let mut k = Kernel::agc_buffer(
        "fuzz",
        words,
        wave,
        THREADS,
        (INPUTS, OUTPUTS),
        0xdead_beef,
        4 * THREADS,
    );
    k.grid = [groups, 1, 1];
    k.tgid = [true, false, false];
    k.memory[0].bytes = groups * THREADS * INPUTS * 4;
    k.memory[1].bytes = groups * THREADS * OUTPUTS * 4;
    Job {
        suite: "fuzz".into(),
        kernel: Arc::new(k),
        target: t.name().into(),
        mode,
        dispatch: "0000000000000000".into(),
        lanes: inputs
            .iter()
            .enumerate()
            .map(|(l, v)| (l as u32, v.clone()))
            .collect(),
        // Each workgroup runs its own program on its own lanes' inputs and frame: nothing is shared.
        independent_groups: true,
        addresses: None,
    }
}

/// One batch: its target, mode, wave size, programs and every lane's inputs.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The instruction set the programs are drawn from and run as.
    pub target: Target,
    /// The batch's float mode.
    pub mode: FloatMode,
    /// 32 or 64.
    pub wave: u32,
    /// The programs, one per workgroup.
    pub programs: Vec<Vec<Item>>,
    /// Inputs per lane, workgroup after workgroup.
    pub inputs: Vec<Vec<u32>>,
}

impl Batch {
    /// The job that runs `programs` (this batch's, or some of them, or variants) one per workgroup, with the
    /// batch's wave size, mode, target and the first lanes' inputs: what a backend compiles for them.
    pub fn job_of(&self, programs: &[Vec<Item>]) -> Result<Job, String> {
        let w = kernel_words(programs, self.wave, Rewrite::default(), self.target)?;
        let lanes = programs.len() * THREADS as usize;
        let inputs = self.inputs.get(..lanes).ok_or_else(|| {
            format!(
                "{} programs need {lanes} lanes' inputs; the batch has {}",
                programs.len(),
                self.inputs.len()
            )
        })?;
        Ok(job(
            &w,
            self.wave,
            programs.len() as u32,
            self.mode,
            inputs,
            self.target,
        ))
    }
}

/// Batch `index` of the stream of `seed` with `count` programs for target `t` (`wave` forces the wave size).
/// gfx1013's streams draw what they drew before gfx1030 was added; gfx1030's draw its own operations too.
pub fn batch(seed: u64, index: u64, count: usize, wave: Option<u32>, t: Target) -> Batch {
    let mut r = Rng::new(seed.wrapping_mul(0x1000_0000_01b3) ^ index.wrapping_mul(0x9e37_79b9));
    let mode = FloatMode {
        float_mode: r.bits() as u8,
        ieee: r.chance(50),
        dx10_clamp: r.chance(50),
        fp16_ovfl: r.chance(50),
    };
    let wave = wave.unwrap_or(if r.chance(50) { 32 } else { 64 });
    let programs = (0..count).map(|_| program(&mut r, wave, t)).collect();
    let inputs = (0..count as u32 * THREADS)
        .map(|_| (0..INPUTS).map(|_| value(&mut r)).collect())
        .collect();
    Batch {
        target: t,
        mode,
        wave,
        programs,
        inputs,
    }
}

fn gfx1013() -> String {
    Target::Gfx1013.name().into()
}

/// A fuzz regression: a minimised divergent program with its inputs, as `tests/fuzz_regressions.rs` reads
/// it (TOML).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    /// `fuzz-regression-v1`.
    pub schema: String,
    /// The seed, batch and program it came from.
    pub origin: String,
    /// The backend that diverged from the reference.
    pub backend: String,
    /// Mode, `c0/0/1/0` notation.
    pub mode: String,
    /// 32 or 64.
    pub wave: u32,
    /// The instruction set (`gfx1013`, or `gfx1030` for a `fuzz --target gfx1030` run); files without it are
    /// gfx1013's.
    #[serde(default = "gfx1013")]
    pub target: String,
    /// The kernel words (one program).
    pub words: Vec<String>,
    /// The disassembly, for reading.
    pub text: String,
    /// The 64 lanes' inputs, eight hex dwords each.
    pub inputs: Vec<String>,
    /// The first differing lanes: inputs, the reference's and the backend's sixteen output dwords.
    #[serde(default)]
    pub lanes: Vec<String>,
}

impl Regression {
    /// The lanes' input dwords ([`THREADS`] lanes of [`INPUTS`]).
    pub fn input_dwords(&self) -> Result<Vec<Vec<u32>>, String> {
        let inputs: Vec<Vec<u32>> = self
            .inputs
            .iter()
            .enumerate()
            .map(|(l, text)| {
                measurements::hex::parse_dwords(text)
                    .map_err(|e| format!("inputs of lane {l}: not a hex dword: {e}"))
            })
            .collect::<Result<_, _>>()?;
        if inputs.len() != THREADS as usize || inputs.iter().any(|l| l.len() != INPUTS as usize) {
            return Err(format!("{THREADS} lanes of {INPUTS} input dwords expected"));
        }
        Ok(inputs)
    }

    /// The job the regression runs.
    pub fn job(&self) -> Result<Job, String> {
        let mode = crate::sweep::parse_mode(&self.mode)?;
        let words: Vec<u32> = self
            .words
            .iter()
            .map(|w| measurements::hex::parse_dword(w))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("words: not a hex dword: {e}"))?;
        let inputs = self.input_dwords()?;
        if self.wave != 32 && self.wave != 64 {
            return Err(format!("wave {} is not 32 or 64", self.wave));
        }
        let t = Target::from_name(&self.target)
            .ok_or_else(|| format!("target `{}` is not gfx1013 or gfx1030", self.target))?;
        Ok(job(&words, self.wave, 1, mode, &inputs, t))
    }
}

/// The regression files `paths` name: each file as given, and each folder's `*.toml` files at any depth
/// (a divergence's variants sit in subfolders; links to folders inside are not followed), sorted by path.
/// `Err` names a folder that cannot be read or holds none.
pub fn regression_files(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let mut found = Vec::new();
        let mut dirs = vec![p.clone()];
        while let Some(d) = dirs.pop() {
            let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("{}: {e}", d.display()))?;
                let path = entry.path();
                // Not `path.is_dir()`: a link to a folder above would loop.
                let dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if dir {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "toml") {
                    found.push(path);
                }
            }
        }
        if found.is_empty() {
            return Err(format!(
                "{}: no regression files (*.toml) in it",
                p.display()
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// How two backends' results of one job compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The same memory, or the same kind of error (not of the host: [`is_host_failure`]).
    Same,
    /// The backend refused the job (unsupported): not a divergence.
    Refused(String),
    /// Different results; the lanes (global indices) whose outputs differ, or none when an error differs.
    Differ(Vec<u32>),
}

/// Compares `reference` and `other` on one job.
pub fn compare(
    reference: &Result<JobOutput, BackendError>,
    other: &Result<JobOutput, BackendError>,
) -> Verdict {
    match (reference, other) {
        (_, Err(BackendError::Unsupported { reason, .. })) => Verdict::Refused(reason.clone()),
        (Err(BackendError::Unsupported { reason, .. }), _) => Verdict::Refused(reason.clone()),
        (Ok(a), Ok(b)) => {
            let (Some(x), Some(y)) = (a.array("out"), b.array("out")) else {
                return Verdict::Differ(Vec::new());
            };
            let lanes: Vec<u32> = x
                .chunks(OUTPUTS as usize)
                .zip(y.chunks(OUTPUTS as usize))
                .enumerate()
                .filter(|(_, (p, q))| p != q)
                .map(|(i, _)| i as u32)
                .collect();
            if lanes.is_empty() && a.arrays == b.arrays {
                Verdict::Same
            } else {
                Verdict::Differ(lanes)
            }
        }
        // Two host failures say nothing about the program: not an agreement.
        (Err(a), Err(b))
            if std::mem::discriminant(a) == std::mem::discriminant(b) && !is_host_failure(a) =>
        {
            Verdict::Same
        }
        _ => Verdict::Differ(Vec::new()),
    }
}

/// What one fuzz run found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Programs generated.
    pub programs: u64,
    /// Programs whose results were compared (not refused by a backend).
    pub compared: u64,
    /// Programs a backend refused, by reason (first words of it).
    pub refused: std::collections::BTreeMap<String, u64>,
    /// Minimised divergences.
    pub divergences: Vec<Regression>,
    /// Batches not compared because the host failed them twice ([`Stop::Host`]), with the reason.
    pub host_failures: Vec<String>,
    /// Where the time of the batches went.
    pub time: Time,
}

/// Where a fuzz run's time went, summed over its workers: the batches' whole time, and per backend the time
/// in its `run` calls and in the phases it reports ([`Backend::take_phases`]). The rest of a batch's time is
/// the fuzzer's own: generating, laying out, comparing and minimising.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Time {
    /// Time in whole batches.
    pub batches: Duration,
    /// Per backend, in the order first seen.
    pub backends: Vec<BackendTime>,
}

/// One backend's share of a [`Time`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackendTime {
    /// Its name.
    pub name: String,
    /// Its `run` calls (one per batch where every program agrees; more where a batch is split or minimised).
    pub calls: u64,
    /// The time in its `run` calls.
    pub runs: Duration,
    /// The time in each phase it reports, in the order first reported.
    pub phases: Vec<(&'static str, Duration)>,
}

impl Time {
    /// Adds `calls` runs that took `runs`, and `phases`, to backend `name`'s time.
    pub fn add(
        &mut self,
        name: &str,
        calls: u64,
        runs: Duration,
        phases: &[(&'static str, Duration)],
    ) {
        let at = match self.backends.iter().position(|b| b.name == name) {
            Some(at) => at,
            None => {
                self.backends.push(BackendTime {
                    name: name.to_string(),
                    ..BackendTime::default()
                });
                self.backends.len() - 1
            }
        };
        let b = &mut self.backends[at];
        b.calls += calls;
        b.runs += runs;
        for &(phase, d) in phases {
            match b.phases.iter_mut().find(|p| p.0 == phase) {
                Some(p) => p.1 += d,
                None => b.phases.push((phase, d)),
            }
        }
    }

    /// Adds all of `other`.
    pub fn merge(&mut self, other: &Time) {
        self.batches += other.batches;
        for b in &other.backends {
            self.add(&b.name, b.calls, b.runs, &b.phases);
        }
    }

    /// One line for the run's summary: `workers` workers ran for `wall`.
    pub fn line(&self, workers: usize, wall: Duration) -> String {
        let total = self.batches.as_secs_f64();
        let share = |d: Duration| {
            if total > 0.0 {
                format!(
                    "{:.2} s ({:.1} %)",
                    d.as_secs_f64(),
                    100.0 * d.as_secs_f64() / total
                )
            } else {
                format!("{:.2} s", d.as_secs_f64())
            }
        };
        let mut parts = Vec::new();
        let mut backends = Duration::ZERO;
        for b in &self.backends {
            backends += b.runs;
            let mut part = format!("{} {}", b.name, share(b.runs));
            if !b.phases.is_empty() {
                let ps: Vec<String> = b
                    .phases
                    .iter()
                    .map(|(p, d)| format!("{p} {}", share(*d)))
                    .collect();
                part.push_str(&format!(" [{}]", ps.join(", ")));
            }
            parts.push(part);
        }
        parts.push(format!(
            "the fuzzer itself {}",
            share(self.batches.saturating_sub(backends))
        ));
        format!(
            "time in batches {total:.1} s ({workers} worker{} over {:.1} s): {}",
            if workers == 1 { "" } else { "s" },
            wall.as_secs_f64(),
            parts.join("; ")
        )
    }
}

/// `conformance fuzz --timing FILE`: a CSV row per backend per batch ([`TIMING_COLUMNS`]: `wave` is the
/// `--wave` option, empty when each batch draws its own; `metamorphic` whether the backends other than the
/// reference ran the rewritten kernel; the phases are `name=seconds` joined by `;`), written
/// and flushed as batches finish, in stream order, so a run stopped early keeps the rows of its batches. A row
/// whose `calls` is 1 timed one job of the whole batch; the batch is [`batch`] of the row's seed, batch,
/// programs, wave and target, so a host compiler's cost per kind of item can be fitted afterwards
/// (`examples/fuzz_compile_time.rs`).
pub struct TimingLog {
    path: std::path::PathBuf,
    w: csv::Writer<std::fs::File>,
    target: Target,
    wave: Option<u32>,
    metamorphic: bool,
}

/// The columns of a [`TimingLog`].
pub const TIMING_COLUMNS: [&str; 11] = [
    "seed",
    "batch",
    "programs",
    "target",
    "wave",
    "metamorphic",
    "backend",
    "calls",
    "run_seconds",
    "batch_seconds",
    "phases",
];

impl TimingLog {
    /// Creates (or empties) `path` and writes the header, for a run of `target` with `--wave` `wave`,
    /// `--metamorphic` or not.
    pub fn create(
        path: &std::path::Path,
        target: Target,
        wave: Option<u32>,
        metamorphic: bool,
    ) -> Result<TimingLog, String> {
        let file =
            std::fs::File::create(path).map_err(|e| format!("--timing {}: {e}", path.display()))?;
        let mut log = TimingLog {
            path: path.to_path_buf(),
            w: csv::Writer::from_writer(file),
            target,
            wave,
            metamorphic,
        };
        log.write(&TIMING_COLUMNS.map(String::from))?;
        Ok(log)
    }

    fn write(&mut self, row: &[String]) -> Result<(), String> {
        self.w
            .write_record(row)
            .and_then(|()| self.w.flush().map_err(csv::Error::from))
            .map_err(|e| format!("--timing {}: {e}", self.path.display()))
    }

    /// The rows of batch `batch` of `seed`, `programs` programs, which took `time`.
    pub fn batch(
        &mut self,
        seed: u64,
        batch: u64,
        programs: u64,
        time: &Time,
    ) -> Result<(), String> {
        for b in &time.backends {
            let phases: Vec<String> = b
                .phases
                .iter()
                .map(|(p, d)| format!("{p}={:.6}", d.as_secs_f64()))
                .collect();
            self.write(&[
                seed.to_string(),
                batch.to_string(),
                programs.to_string(),
                self.target.name().to_string(),
                self.wave.map_or(String::new(), |w| w.to_string()),
                self.metamorphic.to_string(),
                b.name.clone(),
                b.calls.to_string(),
                format!("{:.6}", b.runs.as_secs_f64()),
                format!("{:.6}", time.batches.as_secs_f64()),
                phases.join(";"),
            ])?;
        }
        Ok(())
    }
}

/// A backend whose `run` calls are timed, for [`Time`].
pub struct Timed<'a> {
    inner: &'a dyn Backend,
    calls: std::cell::Cell<u64>,
    spent: std::cell::Cell<Duration>,
}

impl<'a> Timed<'a> {
    /// Times `inner`'s runs from now.
    pub fn new(inner: &'a dyn Backend) -> Timed<'a> {
        Timed {
            inner,
            calls: std::cell::Cell::new(0),
            spent: std::cell::Cell::new(Duration::ZERO),
        }
    }

    /// Adds the time of its runs and its phases since it was made or last added to `time`.
    pub fn add_to(&self, time: &mut Time) {
        time.add(
            &self.inner.name(),
            self.calls.take(),
            self.spent.take(),
            &self.inner.take_phases(),
        );
    }
}

impl Backend for Timed<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn run(&self, job: &Job) -> Result<JobOutput, BackendError> {
        let started = Instant::now();
        let out = self.inner.run(job);
        self.spent.set(self.spent.get() + started.elapsed());
        self.calls.set(self.calls.get() + 1);
        out
    }

    fn take_phases(&self) -> Vec<(&'static str, Duration)> {
        self.inner.take_phases()
    }
}

impl Report {
    /// Counts one refused program under (the start of) its reason.
    fn refuse(&mut self, why: &str) {
        let key: String = why.chars().take(100).collect();
        *self.refused.entry(key).or_default() += 1;
    }
}

/// Why a batch ended without its comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The host, not the translation, failed on a backend (a device or driver error, the wall-clock limit,
    /// host memory): nothing of the batch counts. A backend opened afresh may run it (`conformance fuzz`
    /// retries once).
    Host(String),
    /// Anything else (a batch that cannot be built): the run ends.
    Fatal(String),
}

impl From<String> for Stop {
    fn from(s: String) -> Stop {
        Stop::Fatal(s)
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Host(why) => write!(f, "host failure: {why}"),
            Stop::Fatal(why) => f.write_str(why),
        }
    }
}

/// `be`'s result of `job`, or its host failure as [`Stop::Host`] naming backend `name`: device and driver
/// errors, host memory, and the wall-clock limit (a guest loop that never ends is not one: the recompiled
/// kernel counts the instructions it runs and ends with the model's instruction-budget timeout). Every run
/// the fuzzer compares goes through it, the reference's too.
fn run_checked(
    be: &dyn Backend,
    name: &str,
    job: &Job,
) -> Result<Result<JobOutput, BackendError>, Stop> {
    match be.run(job) {
        Err(e) if is_host_failure(&e) => Err(Stop::Host(format!("{name}: {e}"))),
        got => Ok(got),
    }
}

/// Whether `e` says nothing about the program: the device failed, memory ran out, or the job ran past its
/// wall-clock limit (the host's speed, not the program's instruction budget). Two such errors are not an
/// agreement.
pub fn is_host_failure(e: &BackendError) -> bool {
    matches!(
        e,
        BackendError::Device(_)
            | BackendError::OutOfMemory { .. }
            | BackendError::Timeout {
                limit: measurements::job::TimeLimit::WallClock,
                ..
            }
    )
}

/// The word index an `Unsupported` error names (`v_sin_f32 (word 12)`).
fn refused_word(e: &BackendError) -> Option<usize> {
    let BackendError::Unsupported { instruction, .. } = e else {
        return None;
    };
    let at = instruction.find("(word ")? + 6;
    instruction[at..].split(')').next()?.trim().parse().ok()
}

/// Runs batch `index` of `seed` on `reference` and `others`, adding to `report`; `rw` rewrites the programs
/// on the other backends (and, when set, on the reference too, against the plain programs: metamorphic).
///
/// The batch runs as one kernel. A refusal names a word: that program is counted refused and the rest run
/// again. Differing lanes name their programs, which are minimised; any other disagreement (an error on one
/// side) sends every remaining program through [`minimise`]'s check alone.
#[allow(clippy::too_many_arguments)]
pub fn run_batch(
    reference: &dyn Backend,
    others: &[&dyn Backend],
    seed: u64,
    index: u64,
    count: usize,
    wave: Option<u32>,
    target: Target,
    rw: Rewrite,
    report: &mut Report,
) -> Result<(), Stop> {
    let b = batch(seed, index, count, wave, target);
    report.programs += count as u64;
    let mut runs: Vec<(String, &dyn Backend)> = Vec::new();
    if rw != Rewrite::default() {
        runs.push((format!("{} (rewritten)", reference.name()), reference));
    }
    for o in others {
        runs.push((o.name(), *o));
    }
    // Indices into b.programs still to compare.
    let mut active: Vec<usize> = (0..count).collect();
    'again: while !active.is_empty() {
        let progs: Vec<Vec<Item>> = active.iter().map(|&p| b.programs[p].clone()).collect();
        let inputs: Vec<Vec<u32>> = active
            .iter()
            .flat_map(|&p| {
                b.inputs[p * THREADS as usize..(p + 1) * THREADS as usize]
                    .iter()
                    .cloned()
            })
            .collect();
        let (plain, plain_at) = kernel_layout(&progs, b.wave, Rewrite::default(), b.target)?;
        let n = progs.len() as u32;
        let plain_job = job(&plain, b.wave, n, b.mode, &inputs, b.target);
        // The other backends run the rewritten kernel, or the same one.
        let (other_job, other_at) = if rw == Rewrite::default() {
            (plain_job.clone(), plain_at.clone())
        } else {
            let (other, at) = kernel_layout(&progs, b.wave, rw, b.target)?;
            (job(&other, b.wave, n, b.mode, &inputs, b.target), at)
        };
        let want = run_checked(reference, &reference.name(), &plain_job)?;
        if let Err(e) = &want {
            if let Some(k) =
                refused_word(e).and_then(|w| plain_at.iter().position(|r| (r.0..r.1).contains(&w)))
            {
                report.refuse(&e.to_string());
                active.remove(k);
                continue 'again;
            }
        }
        let mut divergent = std::collections::BTreeSet::new();
        let mut unclear = false;
        for (name, be) in &runs {
            let got = run_checked(*be, name, &other_job)?;
            if let Err(e) = &got {
                if let Some(k) = refused_word(e)
                    .and_then(|w| other_at.iter().position(|r| (r.0..r.1).contains(&w)))
                {
                    report.refuse(&e.to_string());
                    active.remove(k);
                    continue 'again;
                }
            }
            match compare(&want, &got) {
                Verdict::Same => {}
                Verdict::Differ(lanes) if !lanes.is_empty() => {
                    divergent.extend(lanes.iter().map(|l| (l / THREADS) as usize));
                }
                _ => unclear = true,
            }
        }
        if !unclear {
            report.compared += (active.len() - divergent.len()) as u64;
            for k in divergent {
                single(reference, &runs, &b, active[k], rw, seed, index, report)?;
            }
            return Ok(());
        }
        // An error on one side only, or one without a word: each program alone.
        for &p in &active {
            single(reference, &runs, &b, p, rw, seed, index, report)?;
        }
        return Ok(());
    }
    Ok(())
}

/// Program `p` of `b` alone on every run: refused, the same, or minimised into the report.
#[allow(clippy::too_many_arguments)]
fn single(
    reference: &dyn Backend,
    runs: &[(String, &dyn Backend)],
    b: &Batch,
    p: usize,
    rw: Rewrite,
    seed: u64,
    index: u64,
    report: &mut Report,
) -> Result<(), Stop> {
    let inputs = &b.inputs[p * THREADS as usize..(p + 1) * THREADS as usize];
    let one =
        |rw: Rewrite| kernel_words(std::slice::from_ref(&b.programs[p]), b.wave, rw, b.target);
    let want = run_checked(
        reference,
        &reference.name(),
        &job(
            &one(Rewrite::default())?,
            b.wave,
            1,
            b.mode,
            inputs,
            b.target,
        ),
    )?;
    let jr = job(&one(rw)?, b.wave, 1, b.mode, inputs, b.target);
    for (name, be) in runs {
        let got = run_checked(*be, name, &jr)?;
        match compare(&want, &got) {
            Verdict::Same => {}
            Verdict::Refused(_) => {
                let e = match (&want, &got) {
                    (Err(e), _) | (_, Err(e)) => e.to_string(),
                    _ => "refused".into(),
                };
                report.refuse(&e);
                return Ok(());
            }
            Verdict::Differ(_) => {
                let origin = match b.target {
                    Target::Gfx1013 => format!("seed {seed} batch {index} program {p}"),
                    t => format!("seed {seed} batch {index} program {p} ({})", t.name()),
                };
                report
                    .divergences
                    .push(minimise(reference, *be, name, b, p, rw, origin)?);
                report.compared += 1;
                return Ok(());
            }
        }
    }
    report.compared += 1;
    Ok(())
}

fn body_len(it: &Item) -> usize {
    match it {
        Item::Exec { body, .. } | Item::Skip { body, .. } | Item::Loop { body, .. } => body.len(),
        Item::Inst { .. } => 0,
    }
}

/// One line per lane of `lanes` (global indices into a one-program job's outputs): its input dwords, the
/// reference's output dwords and `name`'s, in hex: `lane L: inputs ..; reference ..; NAME ..`.
pub fn lane_lines(
    name: &str,
    inputs: &[Vec<u32>],
    reference: &JobOutput,
    other: &JobOutput,
    lanes: &[u32],
) -> Vec<String> {
    let hex = measurements::hex::format_dwords;
    let o = OUTPUTS as usize;
    let out = |r: &JobOutput, l: usize| {
        r.array("out")
            .and_then(|a| a.get(l * o..(l + 1) * o))
            .map_or_else(|| "(none)".to_string(), hex)
    };
    lanes
        .iter()
        .map(|&l| {
            let l = l as usize;
            let input = inputs
                .get(l)
                .map_or_else(|| "(none)".to_string(), |i| hex(i));
            format!(
                "lane {l}: inputs {input}; reference {}; {name} {}",
                out(reference, l),
                out(other, l)
            )
        })
        .collect()
}

/// Removes items and zeroes input columns of program `p` of `b` while `other` still differs from
/// `reference` on it.
fn minimise(
    reference: &dyn Backend,
    other: &dyn Backend,
    name: &str,
    b: &Batch,
    p: usize,
    rw: Rewrite,
    origin: String,
) -> Result<Regression, Stop> {
    let mut prog = b.programs[p].clone();
    let mut inputs: Vec<Vec<u32>> =
        b.inputs[p * THREADS as usize..(p + 1) * THREADS as usize].to_vec();
    let differs = |prog: &[Item], inputs: &[Vec<u32>]| -> Result<bool, Stop> {
        let plain = kernel_words(&[prog.to_vec()], b.wave, Rewrite::default(), b.target)?;
        let rewritten = kernel_words(&[prog.to_vec()], b.wave, rw, b.target)?;
        let want = run_checked(
            reference,
            &reference.name(),
            &job(&plain, b.wave, 1, b.mode, inputs, b.target),
        )?;
        let got = run_checked(
            other,
            name,
            &job(&rewritten, b.wave, 1, b.mode, inputs, b.target),
        )?;
        Ok(matches!(compare(&want, &got), Verdict::Differ(_)))
    };
    // Items, repeatedly, top level and inside blocks.
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = 0;
        while i < prog.len() {
            let mut trial = prog.clone();
            trial.remove(i);
            if differs(&trial, &inputs)? {
                prog = trial;
                changed = true;
                continue;
            }
            // Inside a block: one item at a time, keeping at least one.
            let mut k = 0;
            while body_len(&prog[i]) > 1 && k < body_len(&prog[i]) {
                let mut trial = prog.clone();
                if let Item::Exec { body, .. } | Item::Skip { body, .. } | Item::Loop { body, .. } =
                    &mut trial[i]
                {
                    body.remove(k);
                }
                if differs(&trial, &inputs)? {
                    prog = trial;
                    changed = true;
                } else {
                    k += 1;
                }
            }
            i += 1;
        }
    }
    // Input columns.
    for c in 0..INPUTS as usize {
        let mut trial = inputs.clone();
        trial.iter_mut().for_each(|l| l[c] = 0);
        if trial != inputs && differs(&prog, &trial)? {
            inputs = trial;
        }
    }
    let words = kernel_words(&[prog.clone()], b.wave, rw, b.target)?;
    let text = reference_model::isa::disassemble(b.target, &words)
        .unwrap_or_else(|e| format!("(not decodable: {e})"));
    let plain = kernel_words(&[prog.clone()], b.wave, Rewrite::default(), b.target)?;
    let want = reference.run(&job(&plain, b.wave, 1, b.mode, &inputs, b.target));
    let got = other.run(&job(&words, b.wave, 1, b.mode, &inputs, b.target));
    let hex = measurements::hex::format_dwords;
    let outcome = |r: &Result<JobOutput, BackendError>| {
        r.as_ref()
            .map_or_else(|e| e.to_string(), |_| "finished".to_string())
    };
    let lanes = match (&want, &got, compare(&want, &got)) {
        (Ok(a), Ok(g), Verdict::Differ(ls)) if !ls.is_empty() => {
            lane_lines(name, &inputs, a, g, &ls[..ls.len().min(4)])
        }
        _ => vec![format!(
            "reference: {}; {name}: {}",
            outcome(&want),
            outcome(&got)
        )],
    };
    Ok(Regression {
        schema: "fuzz-regression-v1".into(),
        origin,
        backend: name.to_string(),
        mode: b.mode.canonical(),
        wave: b.wave,
        target: b.target.name().into(),
        words: words.iter().map(|&w| hex(&[w])).collect(),
        text,
        inputs: inputs.iter().map(|l| hex(l)).collect(),
        lanes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reference_model::exec::ModelBackend;

    /// gfx1013's stream is what it was before gfx1030 could be drawn (the value the generator gave at commit
    /// a9f94d8): budgeted runs of one seed in different sessions add up to one prefix only while it stays.
    #[test]
    fn the_gfx1013_stream_is_unchanged() {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for (seed, index) in [(7u64, 3u64), (9303, 1667), (1, 0)] {
            let b = batch(seed, index, 8, None, Target::Gfx1013);
            let w = kernel_words(&b.programs, b.wave, Rewrite::default(), b.target).unwrap();
            for x in w.iter().chain(b.inputs.iter().flatten()) {
                h = (h ^ u64::from(*x)).wrapping_mul(0x100_0000_01b3);
            }
            h = (h ^ u64::from(b.mode.float_mode)).wrapping_mul(0x100_0000_01b3);
        }
        assert_eq!(h, 0x2c71_b8db_b0c8_6158);
    }

    /// gfx1030's stream draws its own operations, and they decode as gfx1030's.
    #[test]
    fn gfx1030_programs_draw_the_dot_products() {
        let mut seen = std::collections::BTreeSet::new();
        for index in 0..8 {
            let b = batch(5, index, 16, None, Target::Gfx1030);
            let w = kernel_words(&b.programs, b.wave, Rewrite::default(), b.target).unwrap();
            for i in reference_model::isa::decode_all(Target::Gfx1030, &w).unwrap() {
                let m = i.op.mnemonic();
                if m.contains("dot") || m.contains("legacy") {
                    seen.insert(m);
                }
            }
        }
        for want in [
            "v_dot2_f32_f16",
            "v_dot2c_f32_f16",
            "v_dot4c_i32_i8",
            "v_dot8_u32_u4",
            "v_fma_legacy_f32",
        ] {
            assert!(seen.contains(want), "{want} not drawn: {seen:?}");
        }
    }

    /// The differing lanes' lines: the NVIDIA f64 FMA divergence (seed 9500, batch 22654, program 4), its two
    /// lanes patched to what the H100 gave, print exactly as the minimiser recorded them there, so the model
    /// still gives the file's reference values.
    #[test]
    fn lane_lines_show_the_recorded_divergence() {
        let text = include_str!("../fuzz-regressions/seed-9500-batch-22654-program-4.toml");
        let r: Regression = toml::from_str(text).unwrap();
        let job = r.job().unwrap();
        let want = ModelBackend::default().run(&job).unwrap();
        let mut out = want.array("out").unwrap().to_vec();
        let o = OUTPUTS as usize;
        // v14 and v15 (dwords 4 and 5) as the H100 wrote them: the low dword of the product alone.
        for (lane, v) in [(46, 0x4b00_0000), (50, 0x7d01_fdff)] {
            out[lane * o + 4] = v;
            out[lane * o + 5] = v;
        }
        let arrays = want
            .arrays
            .iter()
            .map(|(n, d)| (n.clone(), if n == "out" { out.clone() } else { d.clone() }))
            .collect();
        let got = job.output_from(arrays);
        let Verdict::Differ(lanes) = compare(&Ok(want.clone()), &Ok(got.clone())) else {
            panic!("no difference");
        };
        assert_eq!(lanes, [46, 50]);
        let inputs = r.input_dwords().unwrap();
        assert_eq!(
            lane_lines(&r.backend, &inputs, &want, &got, &lanes),
            r.lanes
        );
    }

    /// A folder gives its `*.toml` files at any depth, sorted, without following a link back up; a folder
    /// without any is an error naming it.
    #[test]
    fn regression_files_walk_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        std::fs::create_dir(root.join("sub")).unwrap();
        for f in ["b.toml", "a.txt", "sub/a.toml"] {
            std::fs::write(root.join(f), "").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&root, root.join("sub/up")).unwrap();
        let single = root.join("x.toml");
        let got = regression_files(&[single.clone(), root.clone()]).unwrap();
        assert_eq!(got, [single, root.join("b.toml"), root.join("sub/a.toml")]);
        std::fs::create_dir(root.join("none")).unwrap();
        let e = regression_files(&[root.join("none")]).unwrap_err();
        assert!(
            e.ends_with("none: no regression files (*.toml) in it"),
            "{e}"
        );
    }

    /// A backend whose device fails every job, and which reports 1 ms of phase `a` and 2 ms of `b` at every
    /// take.
    struct Broken;
    impl Backend for Broken {
        fn name(&self) -> String {
            "broken".into()
        }
        fn run(&self, _: &Job) -> Result<JobOutput, BackendError> {
            Err(BackendError::Device("the fence wait failed".into()))
        }
        fn take_phases(&self) -> Vec<(&'static str, Duration)> {
            vec![
                ("a", Duration::from_millis(1)),
                ("b", Duration::from_millis(2)),
            ]
        }
    }

    /// A host failure on either side stops the batch without a divergence: the reference's too (before, its
    /// error against another backend's output was a divergence, and two such failures an agreement).
    #[test]
    fn a_host_failure_stops_the_batch_without_a_divergence() {
        let model = ModelBackend::default();
        for (reference, other) in [
            (&model as &dyn Backend, &Broken as &dyn Backend),
            (&Broken, &model),
        ] {
            let mut report = Report::default();
            let r = run_batch(
                reference,
                &[other],
                5,
                0,
                4,
                None,
                T,
                Rewrite::default(),
                &mut report,
            );
            assert_eq!(
                r,
                Err(Stop::Host(
                    "broken: device error: the fence wait failed".into()
                ))
            );
            assert!(report.divergences.is_empty());
            assert_eq!(report.compared, 0);
        }
        let timeout = |limit| BackendError::Timeout {
            limit,
            instructions: 0,
            budget: 1,
            elapsed: Duration::from_secs(61),
            time_limit: Some(Duration::from_secs(60)),
        };
        use measurements::job::TimeLimit::*;
        assert!(is_host_failure(&timeout(WallClock)));
        assert!(!is_host_failure(&timeout(WaveInstructions)));
        assert!(!is_host_failure(&timeout(DispatchInstructions)));
        // Two alike are no agreement; two alike of the program are.
        let both = |l| compare(&Err(timeout(l)), &Err(timeout(l)));
        assert_eq!(both(WallClock), Verdict::Differ(Vec::new()));
        assert_eq!(both(WaveInstructions), Verdict::Same);
    }

    #[test]
    fn batches_are_repeatable_and_decode() {
        let a = batch(7, 3, 8, None, T);
        let b = batch(7, 3, 8, None, T);
        assert_eq!(a.programs, b.programs);
        assert_eq!(a.inputs, b.inputs);
        assert_ne!(batch(8, 3, 8, None, T).programs, a.programs);
        for rw in [
            Rewrite::default(),
            Rewrite {
                vop3: true,
                nops: true,
                exec_wrap: true,
                rename: true,
            },
        ] {
            let w = kernel_words(&a.programs, a.wave, rw, T).unwrap();
            reference_model::isa::decode_all(T, &w).unwrap();
        }
    }

    #[test]
    fn the_model_runs_every_program_and_rewrites_change_nothing() {
        let model = ModelBackend::default();
        for i in 0..6 {
            let b = batch(11, i, 16, None, T);
            let w = kernel_words(&b.programs, b.wave, Rewrite::default(), T).unwrap();
            let j = job(&w, b.wave, 16, b.mode, &b.inputs, T);
            let out = model.run(&j).unwrap_or_else(|e| panic!("batch {i}: {e}"));
            let o = out.array("out").unwrap();
            // Every lane of every program wrote its frame.
            assert_eq!(o.len(), 16 * THREADS as usize * 16);
            assert!(
                o.iter().all(|&x| x != 0xdead_beef),
                "batch {i}: a lane wrote nothing"
            );
            let rw = Rewrite {
                vop3: true,
                nops: true,
                exec_wrap: true,
                rename: true,
            };
            let wr = kernel_words(&b.programs, b.wave, rw, T).unwrap();
            let r = model
                .run(&job(&wr, b.wave, 16, b.mode, &b.inputs, T))
                .unwrap();
            assert_eq!(
                r.arrays, out.arrays,
                "batch {i}: a rewrite changed the model's results"
            );
        }
    }

    /// The time line adds each backend's runs and phases across batches and gives their shares.
    #[test]
    fn time_sums_runs_and_phases_per_backend() {
        let b = batch(9500, 0, 2, None, T);
        let (words, _) = kernel_layout(&b.programs, b.wave, Rewrite::default(), b.target).unwrap();
        let j = job(&words, b.wave, 2, b.mode, &b.inputs, b.target);
        let model = ModelBackend::default();
        let (m, p) = (Timed::new(&model), Timed::new(&Broken));
        m.run(&j).unwrap();
        assert!(p.run(&j).is_err());
        let mut one = Time {
            batches: Duration::from_secs(10),
            ..Time::default()
        };
        m.add_to(&mut one);
        p.add_to(&mut one);
        assert_eq!(one.backends[0].name, "model");
        assert_eq!(one.backends[0].calls, 1);
        assert!(one.backends[0].runs > Duration::ZERO);
        assert!(one.backends[0].phases.is_empty());
        // The runs were taken: a second add counts only the phases again.
        p.add_to(&mut one);
        let mut all = Time::default();
        all.merge(&one);
        all.merge(&one);
        assert_eq!(all.batches, Duration::from_secs(20));
        assert_eq!(all.backends.len(), 2);
        assert_eq!((all.backends[0].calls, all.backends[1].calls), (2, 2));
        assert_eq!(
            all.backends[1].phases,
            vec![
                ("a", Duration::from_millis(4)),
                ("b", Duration::from_millis(8))
            ]
        );
        let line = all.line(2, Duration::from_secs(11));
        assert!(
            line.starts_with("time in batches 20.0 s (2 workers over 11.0 s): model "),
            "{line}"
        );
        assert!(
            line.contains(
                "broken 0.00 s (0.0 %) [a 0.00 s (0.0 %), b 0.01 s (0.0 %)]; the fuzzer itself "
            ),
            "{line}"
        );
    }

    /// Every VGPR operand of v10..v17 of every generated instruction is renamed, and nothing else changes: the
    /// renamed words decode to the same instruction with the registers moved by 20.
    #[test]
    fn renaming_moves_exactly_the_frame_registers() {
        use reference_model::isa::{decode, Operand};
        let mut renamed_some = 0;
        for i in 0..8 {
            let b = batch(13, i, 16, None, T);
            let words = kernel_words(&b.programs, b.wave, Rewrite::default(), T).unwrap();
            let r = rename_vgprs(&words, T).unwrap();
            let mut at = 0;
            while at < words.len() {
                let x = decode(T, &words, at).unwrap();
                let y = decode(T, &r, at).unwrap();
                assert_eq!(
                    (x.op, x.size, x.control, x.mods),
                    (y.op, y.size, y.control, y.mods)
                );
                for (p, q) in x.operands().iter().zip(y.operands()) {
                    let want = match p.operand {
                        Operand::Vgpr { first, width } if (10..18).contains(&first) => {
                            renamed_some += 1;
                            Operand::Vgpr {
                                first: first + 20,
                                width,
                            }
                        }
                        other => other,
                    };
                    assert_eq!(
                        q.operand,
                        want,
                        "{:?}",
                        reference_model::isa::disassemble(T, &words[at..at + x.size as usize])
                    );
                }
                at += x.size as usize;
            }
        }
        assert!(renamed_some > 1000, "{renamed_some}");
    }
}
