//! No modifier is ignored: every vector ALU operation the decoder accepts, in every encoding form it has (VOP3
//! e64 and VOP3-only, VOP3P, DPP16, DPP8, SDWA), with every modifier field set alone (every value) and pairwise
//! (a covering array over reduced value sets), runs on the model and is compared with an independent definition of
//! the field, or must be refused with `Unsupported` naming it.
//!
//! The definitions are written here from the RDNA 2 ISA guide's description of each field, not with the model's
//! helpers. Most are relative: the same instruction with the field clear runs on an input state transformed as
//! the field says (DPP: src0 taken from the selected lane or 0, the lane's write disabled; SDWA: the selected
//! byte or word, zero- or sign-extended; op_sel: the other half; neg/abs: the sign bit), and its outputs are
//! transformed as the field says (omod, clamp, the SDWA destination merge, op_sel[3]). Integer clamps are
//! absolute: the saturated exact result of a plain Rust definition. A field no document defines for the
//! operation (clamp on `v_and_b32`, neg on an integer source, op_sel on a 32-bit operand, ...) has no
//! definition here, so the model must refuse it; a refusal of a defined field is allowed too. Every refusal is
//! listed, with its reason, in `tests/data/refused_fields.txt`; the test fails when the list changes
//! (`REFUSED_BLESS=1` rewrites it) or when the model runs a variant with no definition or gets a defined one wrong.
//!
//! Each variant runs in three configurations: wave32 with every lane active in the title mode (FLOAT_MODE 0xc0,
//! IEEE 0, DX10_CLAMP 1), wave32 with lanes off in FLOAT_MODE 0xf0 with IEEE 1 and DX10_CLAMP 0, and wave64 with
//! lanes off in the title mode.

use reference_model::exec::{self, state::Wave};
use reference_model::isa::{self, Encoding, Form, Instruction, Op, Operand, Role, Target};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

const LIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/refused_fields.txt");

// Registers of the harness: destination v10..v13, sources v20, v22, v24 (pairs and quads upward), scalar
// sources s40, s42, s44, scalar destination s30.
const VDST: u32 = 10;
const VSRC: [u32; 3] = [20, 22, 24];
const SSRC: [u32; 3] = [40, 42, 44];
const SDST: u32 = 30;
const M0: usize = 124;
const VCC: usize = 106;

// ---------------------------------------------------------------------------------------------------------
// Operation types, from LLVM's mnemonics (the ISA guide's operand types) with the exceptions written out.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    F16,
    F32,
    F64,
    I16,
    I32,
    I64,
    /// Two f16 halves (VOP3P).
    Pk16F,
    /// Two 16-bit integers (VOP3P).
    Pk16I,
    /// v_fma_mix source: f32, or an f16 half chosen by op_sel_hi/op_sel.
    Mix,
    /// A lane mask (compare result, carry, condition).
    Mask,
    /// Anything whose modifiers have no definition (lane selects, packed results, relative sources, ...).
    Other,
}

/// What the test knows of an operation.
#[derive(Clone, Copy, Debug)]
struct Spec {
    src: [T; 3],
    dst: T,
    /// The plain-Rust definition of the integer operation that clamp saturates, if clamp is defined for it.
    int_clamp: Option<IntDef>,
    /// Float clamp and omod are defined (a float result, not an intermediate such as v_div_scale's).
    float_out: bool,
    /// `v_fma_mixlo_f16` (1) / `v_fma_mixhi_f16` (2): the f16 result's half.
    mix_half: u8,
    /// Relative source register (movrels/movrelsd): DPP applies to v[src + M0].
    relative_src: bool,
    /// A relative move (any of the four): no SDWA definition.
    relative: bool,
    /// Inputs must be finite and not NaN (v_mullit_f32 and v_trig_preop_f64 refuse others per lane).
    finite: bool,
    /// v_permlane16/x16: op_sel[0] is fetch-inactive, op_sel[1] bound_ctrl.
    permlane: Option<bool>,
    /// The DPP lane select is defined for this operation's src0.
    dpp: bool,
}

/// An integer operation with its exact (unbounded) result, saturated: sources after op_sel, as 32-bit values.
type IntDef = fn([u32; 3]) -> u32;

fn types_of(mn: &str) -> Vec<T> {
    mn.split('_')
        .skip(1)
        .filter_map(|t| match t {
            "f16" => Some(T::F16),
            "f32" => Some(T::F32),
            "f64" => Some(T::F64),
            "i16" | "u16" | "b16" => Some(T::I16),
            "i32" | "u32" | "b32" | "i24" | "u24" | "u8" | "i8" | "i4" | "u4" => Some(T::I32),
            "i64" | "u64" | "b64" => Some(T::I64),
            _ => None,
        })
        .collect()
}

fn sat_u(v: i128, bits: u32) -> u32 {
    v.clamp(0, (1i128 << bits) - 1) as u32
}

fn sat_s(v: i128, bits: u32) -> u32 {
    let lim = 1i128 << (bits - 1);
    (v.clamp(-lim, lim - 1) as i64 as u64 & ((1u64 << bits) - 1)) as u32
}

fn s24(v: u32) -> i128 {
    ((v << 8) as i32 >> 8) as i128
}

fn s16(v: u32) -> i128 {
    v as u16 as i16 as i128
}

fn bytes_sad(a: u32, b: u32, masked: bool) -> i128 {
    (0..4)
        .map(|i| ((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff))
        .filter(|&(_, y)| !masked || y != 0)
        .map(|(x, y)| (x as i128 - y as i128).abs())
        .sum()
}

fn packed(f: fn(u32, u32, u32) -> u32) -> impl Fn([u32; 3]) -> u32 {
    move |s| {
        f(s[0] & 0xffff, s[1] & 0xffff, s[2] & 0xffff) | f(s[0] >> 16, s[1] >> 16, s[2] >> 16) << 16
    }
}

fn dot(a: u32, b: u32, bits: u32, signed: bool) -> i128 {
    (0..32 / bits)
        .map(|i| {
            let f = |v: u32| {
                let x = (v >> (bits * i)) & ((1 << bits) - 1);
                if signed {
                    ((x << (32 - bits)) as i32 >> (32 - bits)) as i128
                } else {
                    x as i128
                }
            };
            f(a) * f(b)
        })
        .sum()
}

/// The integer operations whose clamp the ISA guide and LLVM define as saturation of the exact result.
fn int_clamp_def(op: Op) -> Option<IntDef> {
    use Op::*;
    Some(match op {
        VAddNcU32 => |s| sat_u(s[0] as i128 + s[1] as i128, 32),
        VSubNcU32 => |s| sat_u(s[0] as i128 - s[1] as i128, 32),
        VSubrevNcU32 => |s| sat_u(s[1] as i128 - s[0] as i128, 32),
        VAddNcI32 => |s| sat_s(s[0] as i32 as i128 + s[1] as i32 as i128, 32),
        VSubNcI32 => |s| sat_s(s[0] as i32 as i128 - s[1] as i32 as i128, 32),
        VMadU32U24 => |s| {
            sat_u(
                (s[0] & 0xff_ffff) as i128 * (s[1] & 0xff_ffff) as i128 + s[2] as i128,
                32,
            )
        },
        VMadI32I24 => |s| sat_s(s24(s[0]) * s24(s[1]) + s[2] as i32 as i128, 32),
        VSadU8 => |s| sat_u(bytes_sad(s[0], s[1], false) + s[2] as i128, 32),
        VSadHiU8 => |s| sat_u((bytes_sad(s[0], s[1], false) << 16) + s[2] as i128, 32),
        VMsadU8 => |s| sat_u(bytes_sad(s[0], s[1], true) + s[2] as i128, 32),
        VSadU16 => |s| {
            let d = |i: u32| {
                ((s[0] >> (16 * i)) & 0xffff) as i128 - ((s[1] >> (16 * i)) & 0xffff) as i128
            };
            sat_u(d(0).abs() + d(1).abs() + s[2] as i128, 32)
        },
        VSadU32 => |s| sat_u((s[0] as i128 - s[1] as i128).abs() + s[2] as i128, 32),
        VAddNcU16 => |s| sat_u((s[0] & 0xffff) as i128 + (s[1] & 0xffff) as i128, 16),
        VSubNcU16 => |s| sat_u((s[0] & 0xffff) as i128 - (s[1] & 0xffff) as i128, 16),
        VAddNcI16 => |s| sat_s(s16(s[0]) + s16(s[1]), 16),
        VSubNcI16 => |s| sat_s(s16(s[0]) - s16(s[1]), 16),
        VMadU16 => |s| {
            sat_u(
                (s[0] & 0xffff) as i128 * (s[1] & 0xffff) as i128 + (s[2] & 0xffff) as i128,
                16,
            )
        },
        VMadI16 => |s| sat_s(s16(s[0]) * s16(s[1]) + s16(s[2]), 16),
        VMadU32U16 => |s| {
            sat_u(
                (s[0] & 0xffff) as i128 * (s[1] & 0xffff) as i128 + s[2] as i128,
                32,
            )
        },
        VMadI32I16 => |s| sat_s(s16(s[0]) * s16(s[1]) + s[2] as i32 as i128, 32),
        VPkAddU16 => |s| packed(|a, b, _| sat_u(a as i128 + b as i128, 16))(s),
        VPkSubU16 => |s| packed(|a, b, _| sat_u(a as i128 - b as i128, 16))(s),
        VPkAddI16 => |s| packed(|a, b, _| sat_s(s16(a) + s16(b), 16))(s),
        VPkSubI16 => |s| packed(|a, b, _| sat_s(s16(a) - s16(b), 16))(s),
        VPkMadU16 => |s| packed(|a, b, c| sat_u(a as i128 * b as i128 + c as i128, 16))(s),
        VPkMadI16 => |s| packed(|a, b, c| sat_s(s16(a) * s16(b) + s16(c), 16))(s),
        VDot2I32I16 => |s| sat_s(dot(s[0], s[1], 16, true) + s[2] as i32 as i128, 32),
        VDot2U32U16 => |s| sat_u(dot(s[0], s[1], 16, false) + s[2] as i128, 32),
        VDot4I32I8 => |s| sat_s(dot(s[0], s[1], 8, true) + s[2] as i32 as i128, 32),
        VDot4U32U8 => |s| sat_u(dot(s[0], s[1], 8, false) + s[2] as i128, 32),
        VDot8I32I4 => |s| sat_s(dot(s[0], s[1], 4, true) + s[2] as i32 as i128, 32),
        VDot8U32U4 => |s| sat_u(dot(s[0], s[1], 4, false) + s[2] as i128, 32),
        _ => return None,
    })
}

/// The test's view of operation `op`.
fn spec(op: Op) -> Option<Spec> {
    use Op::*;
    let mn = op.mnemonic();
    let ts = types_of(mn);
    let (dst, src) = match ts.as_slice() {
        [] => (T::Other, T::Other),
        [t] => (*t, *t),
        [d, .., s] => (*d, *s),
    };
    let mut sp = Spec {
        src: [src; 3],
        dst,
        int_clamp: int_clamp_def(op),
        float_out: matches!(dst, T::F16 | T::F32 | T::F64),
        mix_half: 0,
        relative_src: false,
        relative: false,
        finite: matches!(op, VMullitF32 | VTrigPreopF64),
        permlane: match op {
            VPermlane16B32 => Some(false),
            VPermlanex16B32 => Some(true),
            _ => None,
        },
        dpp: true,
    };
    let int = |t: T| matches!(t, T::I16 | T::I32 | T::I64);
    if int(sp.dst) {
        sp.float_out = false;
    }
    match op {
        VNop | VPipeflush | VClrexcp | VInterpP1F32 | VInterpP2F32 | VInterpMovF32
        | VInterpP1llF16 | VInterpP1lvF16 | VInterpP2F16 => return None,
        _ if mn.starts_with("v_cmp") => {
            sp.dst = T::Mask;
            sp.float_out = false;
            if mn.contains("class") {
                sp.src[1] = T::I32;
            }
        }
        VCndmaskB32 => {
            // LLVM selects float neg/abs into v_cndmask's sources: sign-bit operations on the 32-bit value.
            sp.src = [T::F32, T::F32, T::Mask];
            sp.dst = T::I32;
            sp.float_out = false;
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => {
            sp.src[2] = T::Mask;
        }
        VLdexpF32 | VLdexpF64 | VTrigPreopF64 => sp.src[1] = T::I32,
        VLdexpF16 => sp.src[1] = T::I16,
        VCmpClassF32 => {}
        VCvtPkU8F32 => sp.src = [T::F32, T::I32, T::I32],
        VCvtPkrtzF16F32 | VCvtPknormI16F32 | VCvtPknormU16F32 => {
            sp.src = [T::F32; 3];
            sp.dst = T::Other;
            sp.float_out = false;
        }
        VCvtPknormI16F16 | VCvtPknormU16F16 | VPackB32F16 => {
            sp.src = [T::F16; 3];
            sp.dst = T::Other;
            sp.float_out = false;
        }
        VCvtNormI16F16 | VCvtNormU16F16 => {
            sp.dst = T::I16;
            sp.float_out = false;
        }
        VFrexpExpI32F32 | VFrexpExpI32F64 | VFrexpExpI16F16 => sp.float_out = false,
        VDivScaleF32 | VDivScaleF64 => sp.float_out = false,
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 => {
            sp.src = [T::Mix; 3];
            sp.dst = if op == VFmaMixF32 { T::F32 } else { T::F16 };
            sp.float_out = true;
            sp.mix_half = match op {
                VFmaMixloF16 => 1,
                VFmaMixhiF16 => 2,
                _ => 0,
            };
        }
        VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMinF16 | VPkMaxF16 => {
            sp.src = [T::Pk16F; 3];
            sp.dst = T::Pk16F;
            sp.float_out = true;
        }
        _ if mn.starts_with("v_pk_") && op != VPkFmacF16 => {
            sp.src = [T::Pk16I; 3];
            sp.dst = T::Pk16I;
        }
        VDot2F32F16 => {
            sp.src = [T::Pk16F, T::Pk16F, T::Other];
            sp.dst = T::F32;
            sp.float_out = true;
        }
        VPkFmacF16 | VDot2cF32F16 | VDot4cI32I8 => {
            sp.src = [T::Other; 3];
            sp.dst = T::Other;
            sp.float_out = false;
        }
        _ if mn.starts_with("v_dot") => {
            sp.src = [T::Other; 3];
            sp.dst = T::I32;
        }
        VMadU32U16 | VMadI32I16 => sp.src = [T::I16, T::I16, T::I32],
        VSatPkU8I16 => sp.src = [T::I32; 3],
        VMadU64U32 | VMadI64I32 => sp.src = [T::I32, T::I32, T::I64],
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => sp.src = [T::I32, T::I64, T::I64],
        VSadU16 => {
            sp.src = [T::I32; 3];
            sp.dst = T::I32;
        }
        VQsadPkU16U8 | VMqsadPkU16U8 | VMqsadU32U8 => {
            sp.src = [T::Other; 3];
            sp.dst = T::Other;
        }
        VReadlaneB32 | VReadfirstlaneB32 | VWritelaneB32 | VPermlane16B32 | VPermlanex16B32
        | VSwapB32 | VSwaprelB32 | VMbcntLoU32B32 | VMbcntHiU32B32 => {
            sp.src = [T::Other; 3];
            sp.dst = T::Other;
            sp.dpp = false;
        }
        VMovrelsB32 | VMovrelsdB32 | VMovreldB32 | VMovrelsd2B32 => {
            sp.src = [T::Other; 3];
            sp.dst = T::Other;
            sp.relative_src = matches!(op, VMovrelsB32 | VMovrelsdB32 | VMovrelsd2B32);
            sp.relative = true;
        }
        VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 | VCvtOffF32I4 => {
            sp.src = [T::I32; 3]
        }
        VMovB32 => {}
        _ => {}
    }
    Some(sp)
}

// ---------------------------------------------------------------------------------------------------------
// Fields and their values.

/// One field setting of a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum F {
    Abs(u8),
    Neg(u8),
    Clamp,
    Omod(u8),
    OpSel(u8),
    NegHi(u8),
    /// VOP3P: op_sel_hi bit flipped from its default.
    OpSelHi(u8),
    DppCtrl(u16),
    RowMask(u8),
    BankMask(u8),
    BoundCtrl,
    Fi,
    Dpp8Sel([u8; 8]),
    DstSel(u8),
    DstUnused(u8),
    SrcSel(u8, u8),
    Sext(u8),
    /// VOPC SDWA: the mask goes to s30 instead of VCC.
    Sdst,
}

/// A field's name in the blessed list (values folded where the reason is the same for all).
fn field_name(f: F) -> String {
    match f {
        F::Abs(i) => format!("abs[{i}]"),
        F::Neg(i) => format!("neg[{i}]"),
        F::Clamp => "clamp".into(),
        F::Omod(_) => "omod".into(),
        F::OpSel(i) => format!("op_sel[{i}]"),
        F::NegHi(i) => format!("neg_hi[{i}]"),
        F::OpSelHi(i) => format!("op_sel_hi[{i}]"),
        F::DppCtrl(c) => format!("dpp_ctrl {}", dpp_ctrl_class(c)),
        F::RowMask(_) => "row_mask".into(),
        F::BankMask(_) => "bank_mask".into(),
        F::BoundCtrl => "bound_ctrl".into(),
        F::Fi => "fi".into(),
        F::Dpp8Sel(_) => "dpp8 sel".into(),
        F::DstSel(s) => format!("dst_sel {}", sel_name(s)),
        F::DstUnused(u) => format!("dst_unused {u}"),
        F::SrcSel(i, s) => format!("src{i}_sel {}", sel_name(s)),
        F::Sext(i) => format!("sext[{i}]"),
        F::Sdst => "sdst".into(),
    }
}

fn sel_name(s: u8) -> &'static str {
    [
        "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "reserved",
    ][s as usize & 7]
}

fn dpp_ctrl_class(c: u16) -> &'static str {
    match c {
        0..=0xff => "quad_perm",
        0x101..=0x10f => "row_shl",
        0x111..=0x11f => "row_shr",
        0x121..=0x12f => "row_ror",
        0x140 => "row_mirror",
        0x141 => "row_half_mirror",
        0x150..=0x15f => "row_share",
        0x160..=0x16f => "row_xmask",
        _ => "reserved",
    }
}

const IDENTITY_QUAD: u16 = 0xe4;
const IDENTITY8: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// The per-field value sets of a form: every value (singles) and a reduced set (pairs).
fn domains(form: Form, enc: Encoding, vop3b: bool, dst_default: u8, full: bool) -> Vec<Vec<F>> {
    let bits = |n: u8, f: fn(u8) -> F| (0..n).map(|i| vec![f(i)]).collect::<Vec<_>>();
    let mut d: Vec<Vec<F>> = Vec::new();
    match (enc, form) {
        (Encoding::Vop3p, _) => {
            d.extend(bits(3, F::Neg));
            d.extend(bits(3, F::NegHi));
            d.extend(bits(3, F::OpSel));
            d.extend(bits(3, F::OpSelHi));
            d.push(vec![F::Clamp]);
        }
        (Encoding::Vop3, _) => {
            if !vop3b {
                d.extend(bits(3, F::Abs));
                d.extend(bits(4, F::OpSel));
            }
            d.extend(bits(3, F::Neg));
            d.push(vec![F::Clamp]);
            d.push((1..4).map(F::Omod).collect());
        }
        (_, Form::Dpp16) => {
            let ctrls: Vec<u16> = if full {
                (0..0x200).filter(|&c| c != IDENTITY_QUAD).collect()
            } else {
                vec![
                    0x1b, 0xff, 0x101, 0x10f, 0x113, 0x125, 0x140, 0x141, 0x150, 0x157, 0x161,
                    0x16f, 0x100,
                ]
            };
            d.push(ctrls.into_iter().map(F::DppCtrl).collect());
            let masks: Vec<u8> = if full {
                (0..15).collect()
            } else {
                vec![0, 5, 10]
            };
            d.push(masks.iter().map(|&m| F::RowMask(m)).collect());
            d.push(masks.iter().map(|&m| F::BankMask(m)).collect());
            d.push(vec![F::BoundCtrl]);
            d.push(vec![F::Fi]);
            d.extend(bits(2, F::Neg));
            d.extend(bits(2, F::Abs));
        }
        (_, Form::Dpp8) => {
            let mut sels = vec![
                [7, 6, 5, 4, 3, 2, 1, 0],
                [1, 0, 3, 2, 5, 4, 7, 6],
                [5, 0, 7, 7, 2, 1, 6, 3],
            ];
            if full {
                for l in 0..8 {
                    sels.push([l; 8]);
                }
                let mut x = 0x1234_5678u32;
                for _ in 0..24 {
                    let mut s = [0u8; 8];
                    for v in s.iter_mut() {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        *v = (x % 8) as u8;
                    }
                    sels.push(s);
                }
            }
            d.push(sels.into_iter().map(F::Dpp8Sel).collect());
            d.push(vec![F::Fi]);
        }
        (Encoding::Vopc, Form::Sdwa) => {
            for i in 0..2u8 {
                let s: Vec<u8> = if full {
                    vec![0, 1, 2, 3, 4, 5]
                } else {
                    vec![1, 5]
                };
                d.push(s.into_iter().map(|s| F::SrcSel(i, s)).collect());
                d.push(vec![F::Sext(i)]);
            }
            d.extend(bits(2, F::Neg));
            d.extend(bits(2, F::Abs));
            d.push(vec![F::Sdst]);
        }
        (_, Form::Sdwa) => {
            let s: Vec<u8> = if full {
                vec![0, 1, 2, 3, 4, 5, 6]
            } else {
                vec![1, 3, 5, 6]
            };
            d.push(
                s.iter()
                    .filter(|&&s| s != dst_default)
                    .map(|&s| F::DstSel(s))
                    .collect(),
            );
            d.push(if full {
                vec![F::DstUnused(0), F::DstUnused(1), F::DstUnused(3)]
            } else {
                vec![F::DstUnused(0), F::DstUnused(1)]
            });
            for i in 0..2u8 {
                let s: Vec<u8> = if full {
                    vec![0, 1, 2, 3, 4, 5]
                } else {
                    vec![2, 5]
                };
                d.push(s.into_iter().map(|s| F::SrcSel(i, s)).collect());
                d.push(vec![F::Sext(i)]);
            }
            d.extend(bits(2, F::Neg));
            d.extend(bits(2, F::Abs));
            d.push(vec![F::Clamp]);
            d.push(if full {
                vec![F::Omod(1), F::Omod(2), F::Omod(3)]
            } else {
                vec![F::Omod(1)]
            });
        }
        _ => {}
    }
    d
}

/// Single-field variants and a pairwise covering array over the reduced domains (every pair of non-default
/// values of two fields appears in some variant).
fn variants(full: &[Vec<F>], reduced: &[Vec<F>]) -> Vec<Vec<F>> {
    let mut out: Vec<Vec<F>> = full.iter().flatten().map(|&f| vec![f]).collect();
    let mut uncovered: BTreeSet<(usize, usize, usize, usize)> = BTreeSet::new();
    for i in 0..reduced.len() {
        for j in i + 1..reduced.len() {
            for a in 0..reduced[i].len() {
                for b in 0..reduced[j].len() {
                    uncovered.insert((i, a, j, b));
                }
            }
        }
    }
    while let Some(&(i, a, j, b)) = uncovered.iter().next() {
        // Greedy: start from the pair, then give every other field the value covering most open pairs.
        let mut pick: Vec<Option<usize>> = vec![None; reduced.len()];
        pick[i] = Some(a);
        pick[j] = Some(b);
        for k in 0..reduced.len() {
            if pick[k].is_some() {
                continue;
            }
            let mut best = (0usize, None);
            for v in 0..reduced[k].len() {
                let gain = (0..reduced.len())
                    .filter_map(|m| pick[m].map(|pv| (m, pv)))
                    .filter(|&(m, pv)| {
                        let key = if m < k { (m, pv, k, v) } else { (k, v, m, pv) };
                        uncovered.contains(&key)
                    })
                    .count();
                if gain > best.0 {
                    best = (gain, Some(v));
                }
            }
            pick[k] = best.1;
        }
        let set: Vec<(usize, usize)> = pick
            .iter()
            .enumerate()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        for x in 0..set.len() {
            for y in x + 1..set.len() {
                uncovered.remove(&(set[x].0, set[x].1, set[y].0, set[y].1));
            }
        }
        out.push(set.iter().map(|&(k, v)| reduced[k][v]).collect());
    }
    out
}

// ---------------------------------------------------------------------------------------------------------
// Encoding (RDNA 2 ISA guide, microcode formats).

/// A base instruction: words with every modifier field clear, and how to set fields.
#[derive(Clone)]
struct Base {
    words: Vec<u32>,
    enc: Encoding,
    form: Form,
}

fn set_bits(w: &mut u32, lo: u32, n: u32, v: u32) {
    let m = ((1u64 << n) - 1) as u32;
    *w = (*w & !(m << lo)) | (v & m) << lo;
}

impl Base {
    fn with(&self, fields: &[F]) -> Vec<u32> {
        let mut w = self.words.clone();
        for &f in fields {
            match (self.enc, self.form, f) {
                (Encoding::Vop3p, _, F::Neg(i)) => w[1] |= 1 << (29 + i),
                (Encoding::Vop3p, _, F::NegHi(i)) => w[0] |= 1 << (8 + i),
                (Encoding::Vop3p, _, F::OpSel(i)) => w[0] |= 1 << (11 + i),
                (Encoding::Vop3p, _, F::OpSelHi(i)) => {
                    if i == 2 {
                        w[0] ^= 1 << 14
                    } else {
                        w[1] ^= 1 << (27 + i)
                    }
                }
                (Encoding::Vop3p | Encoding::Vop3, _, F::Clamp) => w[0] |= 1 << 15,
                (Encoding::Vop3, _, F::Abs(i)) => w[0] |= 1 << (8 + i),
                (Encoding::Vop3, _, F::OpSel(i)) => w[0] |= 1 << (11 + i),
                (Encoding::Vop3, _, F::Neg(i)) => w[1] |= 1 << (29 + i),
                (Encoding::Vop3, _, F::Omod(v)) => set_bits(&mut w[1], 27, 2, v as u32),
                (_, Form::Dpp16, F::DppCtrl(c)) => set_bits(&mut w[1], 8, 9, c as u32),
                (_, Form::Dpp16, F::RowMask(m)) => set_bits(&mut w[1], 28, 4, m as u32),
                (_, Form::Dpp16, F::BankMask(m)) => set_bits(&mut w[1], 24, 4, m as u32),
                (_, Form::Dpp16, F::BoundCtrl) => w[1] |= 1 << 19,
                (_, Form::Dpp16, F::Fi) => w[1] |= 1 << 18,
                (_, Form::Dpp16, F::Neg(i)) => w[1] |= 1 << (20 + 2 * i),
                (_, Form::Dpp16, F::Abs(i)) => w[1] |= 1 << (21 + 2 * i),
                (_, Form::Dpp8, F::Dpp8Sel(s)) => {
                    for (i, v) in s.iter().enumerate() {
                        set_bits(&mut w[1], 8 + 3 * i as u32, 3, *v as u32);
                    }
                }
                (_, Form::Dpp8, F::Fi) => set_bits(&mut w[0], 0, 9, 0xea),
                (_, Form::Sdwa, F::DstSel(s)) => set_bits(&mut w[1], 8, 3, s as u32),
                (_, Form::Sdwa, F::DstUnused(u)) => set_bits(&mut w[1], 11, 2, u as u32),
                (_, Form::Sdwa, F::Clamp) => w[1] |= 1 << 13,
                (_, Form::Sdwa, F::Omod(v)) => set_bits(&mut w[1], 14, 2, v as u32),
                (_, Form::Sdwa, F::SrcSel(i, s)) => {
                    set_bits(&mut w[1], 16 + 8 * i as u32, 3, s as u32)
                }
                (_, Form::Sdwa, F::Sext(i)) => w[1] |= 1 << (19 + 8 * i),
                (_, Form::Sdwa, F::Neg(i)) => w[1] |= 1 << (20 + 8 * i),
                (_, Form::Sdwa, F::Abs(i)) => w[1] |= 1 << (21 + 8 * i),
                (_, Form::Sdwa, F::Sdst) => {
                    set_bits(&mut w[1], 8, 7, SDST);
                    w[1] |= 1 << 15;
                }
                other => panic!("field {other:?} has no place in this form"),
            }
        }
        w
    }
}

/// Base encodings of every VALU opcode in every form, with the operand choices to try.
fn bases() -> Vec<(Base, Vec<Vec<u32>>)> {
    let mut out = Vec::new();
    let v = |r: u32| 256 + r;
    // Source choices: VGPRs first, then SGPRs where an operation needs scalar operands.
    let choices: Vec<[u32; 3]> = (0..8u32)
        .map(|m| std::array::from_fn(|i| if m >> i & 1 == 1 { SSRC[i] } else { v(VSRC[i]) }))
        .collect();
    for op in 0..0x80u32 {
        let e32 = 0x7e00_0000 | op << 9 | VDST << 17;
        out.push((
            Base {
                words: vec![
                    e32 | 0xfa,
                    VSRC[0] | (IDENTITY_QUAD as u32) << 8 | 0xff << 24,
                ],
                enc: Encoding::Vop1,
                form: Form::Dpp16,
            },
            vec![],
        ));
        out.push((
            Base {
                words: vec![e32 | 0xe9, VSRC[0] | dpp8_bits(IDENTITY8)],
                enc: Encoding::Vop1,
                form: Form::Dpp8,
            },
            vec![],
        ));
        out.push((
            Base {
                words: vec![e32 | 0xf9, VSRC[0] | 6 << 8 | 2 << 11 | 6 << 16 | 6 << 24],
                enc: Encoding::Vop1,
                form: Form::Sdwa,
            },
            vec![],
        ));
    }
    for op in 0..0x40u32 {
        let e32 = op << 25 | VDST << 17 | VSRC[1] << 9;
        out.push((
            Base {
                words: vec![
                    e32 | 0xfa,
                    VSRC[0] | (IDENTITY_QUAD as u32) << 8 | 0xff << 24,
                ],
                enc: Encoding::Vop2,
                form: Form::Dpp16,
            },
            vec![],
        ));
        out.push((
            Base {
                words: vec![e32 | 0xe9, VSRC[0] | dpp8_bits(IDENTITY8)],
                enc: Encoding::Vop2,
                form: Form::Dpp8,
            },
            vec![],
        ));
        out.push((
            Base {
                words: vec![e32 | 0xf9, VSRC[0] | 6 << 8 | 2 << 11 | 6 << 16 | 6 << 24],
                enc: Encoding::Vop2,
                form: Form::Sdwa,
            },
            vec![],
        ));
    }
    for op in 0..0x100u32 {
        let e32 = 0x7c00_0000 | op << 17 | VSRC[1] << 9;
        out.push((
            Base {
                words: vec![e32 | 0xf9, VSRC[0] | 6 << 16 | 6 << 24],
                enc: Encoding::Vopc,
                form: Form::Sdwa,
            },
            vec![],
        ));
    }
    for op in 0..0x400u32 {
        let w0 = 0xd400_0000 | op << 16;
        let tries = choices
            .iter()
            .map(|c| vec![c[0] | c[1] << 9 | c[2] << 18])
            .collect();
        out.push((
            Base {
                words: vec![w0, 0],
                enc: Encoding::Vop3,
                form: Form::Native,
            },
            tries,
        ));
    }
    for op in 0..0x80u32 {
        let mix = (0x20..=0x22).contains(&op);
        let hi = if mix { 0 } else { 1 };
        let w0 = 0xcc00_0000 | op << 16 | VDST | hi << 14;
        let tries = choices
            .iter()
            .map(|c| vec![c[0] | c[1] << 9 | c[2] << 18 | (hi * 3) << 27])
            .collect();
        out.push((
            Base {
                words: vec![w0, 0],
                enc: Encoding::Vop3p,
                form: Form::Native,
            },
            tries,
        ));
    }
    out
}

fn dpp8_bits(s: [u8; 8]) -> u32 {
    s.iter()
        .enumerate()
        .fold(0, |w, (i, &v)| w | (v as u32) << (8 + 3 * i))
}

// ---------------------------------------------------------------------------------------------------------
// State and independent semantics.

/// A configuration: wave size, EXEC, float mode (FLOAT_MODE byte, IEEE, DX10_CLAMP).
#[derive(Clone, Copy)]
struct Config {
    lanes: usize,
    exec: u64,
    float_mode: u8,
    ieee: bool,
    dx10: bool,
}

const CONFIGS: [Config; 3] = [
    Config {
        lanes: 32,
        exec: 0xffff_ffff,
        float_mode: 0xc0,
        ieee: false,
        dx10: true,
    },
    Config {
        lanes: 32,
        exec: 0x5a5a_f0f3,
        float_mode: 0xf0,
        ieee: true,
        dx10: false,
    },
    Config {
        lanes: 64,
        exec: 0xf0f3_5a5a_ffff_e7b1,
        float_mode: 0xc0,
        ieee: false,
        dx10: true,
    },
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn pick(&mut self, pool: &[u32]) -> u32 {
        let r = self.next();
        if r % 4 == 0 {
            self.next()
        } else {
            pool[(r as usize / 4) % pool.len()]
        }
    }
}

const F32_POOL: &[u32] = &[
    0,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    1,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xff81_2345,
    0x3f00_0000,
    0x4000_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3f7f_ffff,
    0x3f80_0001,
    0xc0a0_0000,
    0x4120_0000,
    0x0100_0000,
    0x3e80_0000,
];
const F16_POOL: &[u32] = &[
    0, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 1, 0x8001, 0x03ff, 0x0400, 0x7e00, 0xfe00, 0x7c01,
    0x7d00, 0x3800, 0x7bff, 0xfbff, 0x3bff, 0x3c01, 0xc500, 0x4900, 0x0800,
];
const INT_POOL: &[u32] = &[
    0,
    1,
    2,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff,
    0x8000,
    0x7fff,
    0xff,
    0x80,
    0x00ff_ffff,
    0x0080_0000,
    0xffff_fffe,
    0x8000_8000,
    0x7fff_7fff,
    0xffff_0000,
    0x0001_0001,
    31,
    32,
    33,
    16,
];
const F64_HI_POOL: &[u32] = &[
    0,
    0x8000_0000,
    0x3ff0_0000,
    0xbff0_0000,
    0x7ff0_0000,
    0xfff0_0000,
    0x000f_ffff,
    0x0010_0000,
    0x7ff8_0000,
    0xfff8_0000,
    0x7ff0_0001,
    0x3fe0_0000,
    0x4000_0000,
    0x7fef_ffff,
    0xffef_ffff,
    0x3fef_ffff,
];

fn value_for(t: T, rng: &mut Rng, finite: bool) -> u32 {
    let f16 = |rng: &mut Rng| {
        let v = rng.pick(F16_POOL) & 0xffff;
        if finite && v & 0x7c00 == 0x7c00 {
            0x3e00
        } else {
            v
        }
    };
    match t {
        T::F32 | T::Mix => {
            if rng.next() % 3 == 0 {
                f16(rng) | f16(rng) << 16
            } else {
                let v = rng.pick(F32_POOL);
                if finite && v & 0x7f80_0000 == 0x7f80_0000 {
                    0x4040_0000
                } else {
                    v
                }
            }
        }
        T::F16 | T::Pk16F => f16(rng) | f16(rng) << 16,
        T::F64 => rng.pick(F64_HI_POOL),
        _ => rng.pick(INT_POOL),
    }
}

/// The initial wave of a configuration for an operation.
fn initial(cfg: Config, sp: &Spec, seed: u64) -> Wave {
    let mut w = Wave::new(cfg.lanes, 0);
    let mut rng = Rng(seed | 1);
    let finite = sp.finite;
    for lane in 0..cfg.lanes {
        for (i, &r) in VSRC.iter().enumerate() {
            let t = sp.src[i];
            let lo = value_for(t, &mut rng, finite);
            w.vset(r as usize, lane, lo);
            let hi = match t {
                T::F64 if finite => 0x3ff8_0000,
                T::F64 => rng.pick(F64_HI_POOL),
                T::I64 => rng.pick(INT_POOL),
                _ => value_for(t, &mut rng, finite),
            };
            // 64-bit sources: the low dword is random mantissa bits, the high dword a special pattern.
            if t == T::F64 {
                w.vset(r as usize, lane, rng.next());
                w.vset(r as usize + 1, lane, if finite { hi } else { lo });
            } else {
                w.vset(r as usize + 1, lane, hi);
            }
        }
        for r in 26..28 {
            w.vset(r, lane, rng.next());
        }
        for r in VDST as usize..VDST as usize + 4 {
            w.vset(r, lane, rng.next());
        }
    }
    // Scalar sources: lane selects, permlane selects, masks.
    w.sset(40, 5 + (cfg.lanes as u32 / 2));
    w.sset(41, 3);
    w.sset(42, 0x7654_3210);
    w.sset(43, 0xfedc_ba98);
    w.sset(44, rng.next());
    w.sset(45, rng.next());
    w.sset(SDST as usize, rng.next());
    w.sset(SDST as usize + 1, rng.next());
    w.sset(VCC, rng.next());
    w.sset(VCC + 1, rng.next());
    w.sset(M0, 2);
    w.set_exec(cfg.exec);
    w.mode = cfg.float_mode as u32 | (cfg.dx10 as u32) << 8 | (cfg.ieee as u32) << 9;
    w
}

/// What the test compares after an instruction.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Out {
    v: Vec<[u32; 4]>,
    s30: [u32; 2],
    vcc: [u32; 2],
    exec: u64,
}

fn observe(w: &Wave) -> Out {
    Out {
        v: (0..w.lanes)
            .map(|l| std::array::from_fn(|i| w.vget(VDST as usize + i, l)))
            .collect(),
        s30: [w.sget(SDST as usize), w.sget(SDST as usize + 1)],
        vcc: [w.sget(VCC), w.sget(VCC + 1)],
        exec: w.exec(),
    }
}

#[derive(Clone, Copy)]
struct Fmt {
    bits: u32,
    man: u32,
}

const FMT16: Fmt = Fmt { bits: 16, man: 10 };
const FMT32: Fmt = Fmt { bits: 32, man: 23 };
const FMT64: Fmt = Fmt { bits: 64, man: 52 };

impl Fmt {
    fn emax(self) -> u64 {
        (1 << (self.bits - 1 - self.man)) - 1
    }
    fn sign(self) -> u64 {
        1 << (self.bits - 1)
    }
    fn exp(self, v: u64) -> u64 {
        (v >> self.man) & self.emax()
    }
    fn is_nan(self, v: u64) -> bool {
        self.exp(v) == self.emax() && v & ((1 << self.man) - 1) != 0
    }
    fn one(self) -> u64 {
        (self.emax() >> 1) << self.man
    }
}

/// The round and denormal fields of `fmt` in a FLOAT_MODE byte: (round, keep results).
fn fields_of(mode: u8, f: Fmt) -> (u8, bool) {
    if f.bits == 32 {
        (mode & 3, mode >> 5 & 1 == 1)
    } else {
        (mode >> 2 & 3, mode >> 7 & 1 == 1)
    }
}

/// The output modifier (ISA guide: multiply the result by 2, 4 or 0.5), as rule omod.mode_dependent measures
/// it: applied only with IEEE 0 and results of the precision flushed; a zero comes out +0, a result scaled below
/// the normal range is the zero of its sign, one scaled past the largest finite value overflows as the round
/// mode says.
fn omod(cfg: Config, f: Fmt, v: u64, k: u8) -> u64 {
    let (round, keep) = fields_of(cfg.float_mode, f);
    if k == 0 || cfg.ieee || keep || f.is_nan(v) {
        return v;
    }
    let mag = v & !f.sign();
    if mag == 0 {
        return 0;
    }
    let e = f.exp(v);
    if e == f.emax() {
        return v;
    }
    // Significand with its implicit bit and the exponent of its last bit, exactly; a denormal result (an
    // operation that does not flush its own result, such as v_cubesc or v_div_fixup) is scaled the same way.
    let frac = v & ((1u64 << f.man) - 1);
    let (mut sig, mut e) = if e == 0 {
        (frac, 1i64)
    } else {
        (frac | 1 << f.man, e as i64)
    };
    e += match k {
        1 => 1,
        2 => 2,
        _ => -1,
    };
    while sig < 1 << f.man && e > 1 {
        sig <<= 1;
        e -= 1;
    }
    let neg = v & f.sign() != 0;
    // Below the normal range after scaling: results of this precision flush, so the zero of its sign.
    if e <= 0 || sig < 1 << f.man {
        return v & f.sign();
    }
    if e as u64 >= f.emax() {
        let inf = f.emax() << f.man;
        let max = inf - 1;
        let to_inf = match round {
            0 => true,
            1 => !neg,
            2 => neg,
            _ => false,
        };
        return (v & f.sign()) | if to_inf { inf } else { max };
    }
    (v & f.sign()) | (e as u64) << f.man | (sig & ((1 << f.man) - 1))
}

/// The clamp modifier (rule clamp.dx10): [+0, 1]; a NaN becomes +0 with DX10_CLAMP and passes without.
fn fclamp(cfg: Config, f: Fmt, v: u64) -> u64 {
    if f.is_nan(v) {
        return if cfg.dx10 { 0 } else { v };
    }
    if v & f.sign() != 0 {
        return 0;
    }
    v.min(f.one())
}

/// The ISA guide's DPP16 source lane of `lane`, or None when the pattern leaves the row or the control is
/// reserved.
fn dpp16_source(ctrl: u16, lane: usize) -> Option<usize> {
    let (row, l) = (lane & !15, lane & 15);
    Some(match ctrl {
        0..=0xff => (lane & !3) + (ctrl as usize >> (2 * (lane & 3)) & 3),
        0x101..=0x10f => {
            let n = (ctrl & 15) as usize;
            if l + n > 15 {
                return None;
            }
            lane + n
        }
        0x111..=0x11f => {
            let n = (ctrl & 15) as usize;
            if l < n {
                return None;
            }
            lane - n
        }
        0x121..=0x12f => row + (l + 16 - (ctrl & 15) as usize) % 16,
        0x140 => row + 15 - l,
        0x141 => (lane & !7) + 7 - (lane & 7),
        0x150..=0x15f => row + (ctrl & 15) as usize,
        0x160..=0x16f => row + (l ^ (ctrl & 15) as usize),
        _ => return None,
    })
}

/// What a variant's fields say, collected.
#[derive(Default, Clone)]
struct Set {
    abs: u8,
    neg: u8,
    neg_hi: u8,
    op_sel: u8,
    op_sel_hi_flip: u8,
    clamp: bool,
    omod: u8,
    dpp_ctrl: Option<u16>,
    row_mask: u8,
    bank_mask: u8,
    bound: bool,
    fi: bool,
    dpp8: Option<[u8; 8]>,
    dst_sel: u8,
    dst_unused: u8,
    src_sel: [u8; 2],
    sext: u8,
    sdst: bool,
}

fn collect(form: Form, dst_default: u8, fields: &[F]) -> Set {
    let mut s = Set {
        row_mask: 0xf,
        bank_mask: 0xf,
        dst_sel: dst_default,
        dst_unused: 2,
        src_sel: [6, 6],
        ..Set::default()
    };
    if form == Form::Dpp16 {
        s.dpp_ctrl = Some(IDENTITY_QUAD);
    }
    if form == Form::Dpp8 {
        s.dpp8 = Some(IDENTITY8);
    }
    for &f in fields {
        match f {
            F::Abs(i) => s.abs |= 1 << i,
            F::Neg(i) => s.neg |= 1 << i,
            F::NegHi(i) => s.neg_hi |= 1 << i,
            F::OpSel(i) => s.op_sel |= 1 << i,
            F::OpSelHi(i) => s.op_sel_hi_flip |= 1 << i,
            F::Clamp => s.clamp = true,
            F::Omod(v) => s.omod = v,
            F::DppCtrl(c) => s.dpp_ctrl = Some(c),
            F::RowMask(m) => s.row_mask = m,
            F::BankMask(m) => s.bank_mask = m,
            F::BoundCtrl => s.bound = true,
            F::Fi => s.fi = true,
            F::Dpp8Sel(x) => s.dpp8 = Some(x),
            F::DstSel(v) => s.dst_sel = v,
            F::DstUnused(v) => s.dst_unused = v,
            F::SrcSel(i, v) => s.src_sel[i as usize] = v,
            F::Sext(i) => s.sext |= 1 << i,
            F::Sdst => s.sdst = true,
        }
    }
    s
}

/// The operands the base instruction reads: (register index in the file, scalar?) per source.
#[derive(Clone, Copy)]
struct Operands {
    src: [Option<(usize, bool)>; 3],
}

fn operands(inst: &Instruction) -> Operands {
    let read = |r: Role| match inst.operand(r) {
        Some(Operand::Vgpr { first, .. }) => Some((first as usize, false)),
        Some(Operand::Sgpr { first, .. }) => Some((first as usize, true)),
        Some(_) => Some((usize::MAX, true)),
        None => None,
    };
    Operands {
        src: [read(Role::Src0), read(Role::Src1), read(Role::Src2)],
    }
}

/// The input transformation of a definition: writes the state the plain instruction runs on.
type Pre = Box<dyn Fn(&Wave, &mut Wave)>;
/// The output transformation: (initial state, transformed state, the plain instruction's outputs) to the
/// expected outputs.
type Post = Box<dyn Fn(&Wave, &Wave, Out) -> Out>;

/// The definition of a variant: how the base runs and what is expected, or why there is none.
enum Def {
    /// Run the base on `pre(initial)` and compare with `post(initial, base result)`.
    Rel(Pre, Post),
    Undefined(String),
}

fn is16(t: T) -> bool {
    matches!(t, T::F16 | T::I16)
}

/// Builds the definition of `fields` on the base `inst` of operation spec `sp`.
fn define(inst: &Instruction, sp: Spec, ops: Operands, fields: &[F], cfg: Config) -> Def {
    let form = inst.form;
    let enc = inst.encoding;
    let dst16 = is16(sp.dst) || (sp.dst == T::F16 && sp.mix_half == 0);
    let s = collect(form, if dst16 { 4 } else { 6 }, fields);
    if let Some(x16) = sp.permlane {
        if fields
            .iter()
            .all(|f| matches!(f, F::OpSel(0) | F::OpSel(1)))
        {
            return permlane_def(x16, s.op_sel & 1 == 1, s.op_sel & 2 == 2, ops);
        }
    }
    let nsrc = ops.src.iter().filter(|x| x.is_some()).count();
    let has = |i: usize| ops.src[i].is_some();
    let vgpr = |i: usize| matches!(ops.src[i], Some((_, false)));
    let native = form == Form::Native && enc == Encoding::Vop3;
    // Which fields are defined.
    for i in 0..3u8 {
        let t = sp.src[i as usize];
        let bit = 1 << i;
        let float = matches!(t, T::F16 | T::F32 | T::F64 | T::Mix | T::Pk16F);
        if (s.neg | s.abs) & bit != 0 && (!has(i as usize) || !float) {
            return Def::Undefined(format!("neg/abs on source {i}"));
        }
        if enc == Encoding::Vop3p {
            if s.neg_hi & bit != 0 && (!has(i as usize) || !matches!(t, T::Pk16F | T::Mix)) {
                return Def::Undefined(format!("neg_hi on source {i}"));
            }
            if (s.op_sel | s.op_sel_hi_flip) & bit != 0
                && (!has(i as usize) || !matches!(t, T::Pk16F | T::Pk16I | T::Mix))
            {
                return Def::Undefined(format!("op_sel/op_sel_hi on source {i}"));
            }
        } else if s.op_sel & bit != 0 && !(native && has(i as usize) && is16(t)) {
            return Def::Undefined(format!("op_sel[{i}]"));
        }
    }
    if enc == Encoding::Vop3 && s.op_sel & 8 != 0 && !(native && dst16) {
        return Def::Undefined("op_sel[3]".into());
    }
    if s.clamp && !(sp.float_out || sp.int_clamp.is_some()) {
        return Def::Undefined("clamp".into());
    }
    if s.omod != 0 && !(sp.float_out && enc != Encoding::Vop3p) {
        return Def::Undefined("omod".into());
    }
    if (s.dpp_ctrl.is_some() || s.dpp8.is_some()) && !sp.dpp {
        return Def::Undefined("DPP".into());
    }
    if let Some(c) = s.dpp_ctrl {
        if dpp_ctrl_class(c) == "reserved" {
            return Def::Undefined("reserved dpp_ctrl".into());
        }
    }
    if form == Form::Sdwa && enc == Encoding::Vopc && s.sdst && sp_is_cmpx(inst) {
        return Def::Undefined("sdst on v_cmpx (it writes EXEC)".into());
    }
    if form == Form::Sdwa {
        if sp.relative {
            return Def::Undefined("SDWA form of a relative move".into());
        }
        for i in 0..2 {
            if s.sext >> i & 1 == 1 && !matches!(sp.src[i], T::I16 | T::I32) {
                return Def::Undefined(format!("sext on source {i}"));
            }
        }
        if enc != Encoding::Vopc {
            if dst16 && s.dst_sel == 6 {
                return Def::Undefined("dst_sel:DWORD with a 16-bit result".into());
            }
            if s.dst_unused == 3 && s.dst_sel != 6 {
                return Def::Undefined("dst_unused 3 (reserved)".into());
            }
        }
    }
    let _ = (nsrc, vgpr);

    let s2 = s.clone();
    let int_def = if s.clamp { sp.int_clamp } else { None };
    let rel_src = sp.relative_src;
    // The input transformation, in the hardware's order: lane fetch, SDWA select, op_sel, abs, neg.
    let pre = Box::new(move |w0: &Wave, w: &mut Wave| {
        let s = &s2;
        load(w, w0);
        let lanes = w.lanes;
        let exec = w0.exec();
        let src0 = ops.src[0].map(|(r, _)| if rel_src { r + w0.sget(M0) as usize } else { r });
        if s.dpp_ctrl.is_some() || s.dpp8.is_some() {
            let mut write = 0u64;
            if let Some(r) = src0 {
                for lane in 0..lanes {
                    if exec >> lane & 1 == 0 {
                        continue;
                    }
                    let fetched = if let Some(c) = s.dpp_ctrl {
                        if s.row_mask >> (lane / 16) & 1 == 0
                            || s.bank_mask >> ((lane & 15) / 4) & 1 == 0
                        {
                            continue;
                        }
                        match dpp16_source(c, lane)
                            .filter(|&x| x < lanes && (s.fi || exec >> x & 1 == 1))
                        {
                            Some(x) => Some(w0.vget(r, x)),
                            None if s.bound => Some(0),
                            None => continue,
                        }
                    } else {
                        let sel = s.dpp8.unwrap();
                        let x = (lane & !7) + sel[lane & 7] as usize;
                        Some(if s.fi || exec >> x & 1 == 1 {
                            w0.vget(r, x)
                        } else {
                            0
                        })
                    };
                    write |= 1 << lane;
                    w.vset(r, lane, fetched.unwrap_or(0));
                }
            }
            w.set_exec(write);
        }
        for lane in 0..lanes {
            for i in 0..3usize {
                let Some((r, scalar)) = ops.src[i] else {
                    continue;
                };
                if r == usize::MAX {
                    continue;
                }
                let t = sp.src[i];
                let get = |w: &Wave, r: usize| if scalar { w.sget(r) } else { w.vget(r, lane) };
                let set = |w: &mut Wave, r: usize, v: u32| {
                    if scalar {
                        w.sset(r, v)
                    } else {
                        w.vset(r, lane, v)
                    }
                };
                let r = if i == 0 { src0.unwrap_or(r) } else { r };
                let mut v = get(w, r);
                if form == Form::Sdwa && i < 2 {
                    let sel = s.src_sel[i];
                    let sx = s.sext >> i & 1 == 1;
                    let (shift, bits) = match sel {
                        0..=3 => (8 * sel as u32, 8),
                        4 | 5 => (16 * (sel as u32 - 4), 16),
                        _ => (0, 32),
                    };
                    if bits < 32 {
                        let f = (v >> shift) & ((1 << bits) - 1);
                        v = if sx && f >> (bits - 1) & 1 == 1 {
                            f | !((1 << bits) - 1)
                        } else {
                            f
                        };
                    }
                }
                let bit = 1u8 << i;
                if enc == Encoding::Vop3p {
                    let hi_default = !matches!(t, T::Mix);
                    let sel_lo = s.op_sel & bit != 0;
                    let sel_hi = (s.op_sel_hi_flip & bit != 0) != hi_default;
                    let half = |x: u32, h: bool| if h { x >> 16 } else { x & 0xffff };
                    match t {
                        T::Pk16F | T::Pk16I => {
                            let lo = half(v, sel_lo) ^ if s.neg & bit != 0 { 0x8000 } else { 0 };
                            let hi = half(v, sel_hi) ^ if s.neg_hi & bit != 0 { 0x8000 } else { 0 };
                            v = lo | hi << 16;
                        }
                        T::Mix => {
                            if sel_hi {
                                v = widen_f16(half(v, sel_lo), w0.mode as u8);
                            }
                            if s.neg_hi & bit != 0 {
                                v &= 0x7fff_ffff;
                            }
                            if s.neg & bit != 0 {
                                v ^= 0x8000_0000;
                            }
                        }
                        _ => {}
                    }
                    set(w, r, v);
                    continue;
                }
                if s.op_sel & bit != 0 {
                    v = v.rotate_left(16);
                }
                let (sign_reg, sign_bit) = match t {
                    T::F64 => (r + 1, 31),
                    T::F16 => (r, 15),
                    _ => (r, 31),
                };
                if sign_reg == r {
                    if s.abs & bit != 0 {
                        v &= !(1 << sign_bit);
                    }
                    if s.neg & bit != 0 {
                        v ^= 1 << sign_bit;
                    }
                    set(w, r, v);
                } else {
                    set(w, r, v);
                    let mut h = get(w, sign_reg);
                    if s.abs & bit != 0 {
                        h &= !(1 << sign_bit);
                    }
                    if s.neg & bit != 0 {
                        h ^= 1 << sign_bit;
                    }
                    set(w, sign_reg, h);
                }
            }
        }
    });
    let s3 = s.clone();
    let cmpx = sp_is_cmpx(inst);
    let post = Box::new(move |w0: &Wave, pre_state: &Wave, mut out: Out| -> Out {
        let s = &s3;
        let written = pre_state.exec();
        if let Some(def) = int_def {
            for lane in 0..w0.lanes {
                if written >> lane & 1 == 0 {
                    continue;
                }
                let src: [u32; 3] = std::array::from_fn(|i| match ops.src[i] {
                    Some((r, false)) => pre_state.vget(r, lane),
                    Some((r, true)) if r != usize::MAX => pre_state.sget(r),
                    _ => 0,
                });
                let r = def(src);
                out.v[lane][0] = if is16(sp.dst) {
                    (out.v[lane][0] & 0xffff_0000) | (r & 0xffff)
                } else {
                    r
                };
            }
        }
        for lane in 0..w0.lanes {
            if written >> lane & 1 == 0 {
                continue;
            }
            let v = &mut out.v[lane];
            // Float output modifiers on the result as the base wrote it.
            if sp.float_out {
                let apply = |x: u64, f: Fmt| -> u64 {
                    let x = omod(cfg, f, x, s.omod);
                    if s.clamp {
                        fclamp(cfg, f, x)
                    } else {
                        x
                    }
                };
                match (sp.dst, sp.mix_half) {
                    (T::F64, _) => {
                        let x = apply(v[0] as u64 | (v[1] as u64) << 32, FMT64);
                        v[0] = x as u32;
                        v[1] = (x >> 32) as u32;
                    }
                    (T::F16, 2) => {
                        v[0] = (v[0] & 0xffff) | (apply((v[0] >> 16) as u64, FMT16) as u32) << 16
                    }
                    (T::F16, _) => {
                        v[0] = (v[0] & 0xffff_0000) | apply((v[0] & 0xffff) as u64, FMT16) as u32
                    }
                    (T::Pk16F, _) => {
                        v[0] = apply((v[0] & 0xffff) as u64, FMT16) as u32
                            | (apply((v[0] >> 16) as u64, FMT16) as u32) << 16
                    }
                    _ => v[0] = apply(v[0] as u64, FMT32) as u32,
                }
            }
            let old = w0.vget(VDST as usize, lane);
            if enc == Encoding::Vop3 && s.op_sel & 8 != 0 {
                v[0] = (old & 0xffff) | (v[0] & 0xffff) << 16;
            }
            if form == Form::Sdwa && enc != Encoding::Vopc && s.dst_sel != 6 {
                let r = if dst16 { v[0] & 0xffff } else { v[0] };
                let (shift, bits) = match s.dst_sel {
                    0..=3 => (8 * s.dst_sel as u32, 8u32),
                    _ => (16 * (s.dst_sel as u32 - 4), 16),
                };
                let field = ((1u64 << bits) - 1) as u32;
                let placed = (r & field) << shift;
                let above = if shift + bits >= 32 {
                    0
                } else {
                    u32::MAX << (shift + bits)
                };
                v[0] = match s.dst_unused {
                    0 => placed,
                    1 => placed | if r >> (bits - 1) & 1 == 1 { above } else { 0 },
                    _ => (old & !(field << shift)) | placed,
                };
            }
        }
        if form == Form::Sdwa && enc == Encoding::Vopc && s.sdst && !cmpx {
            // The mask goes to s30 (s[30:31] in wave64) and VCC keeps its value.
            out.s30 = out.vcc;
            if w0.lanes == 32 {
                out.s30[1] = w0.sget(SDST as usize + 1);
            }
            out.vcc = [w0.sget(VCC), w0.sget(VCC + 1)];
        }
        // The DPP lane mask was the base's EXEC; the variant does not change EXEC.
        if form == Form::Dpp16 || form == Form::Dpp8 {
            out.exec = w0.exec();
        }
        out
    });
    Def::Rel(pre, post)
}

/// v_permlane16_b32 / v_permlanex16_b32 as LLVM's intrinsics define them (llvm.amdgcn.permlane16/x16: old,
/// src, the two 32-bit lane-select SGPRs, fetch-inactive, bound_ctrl): lane l of each row reads the lane of its
/// row (permlanex16: of the other row of the pair) that its 4-bit select names; an inactive source lane is read
/// only with fetch-inactive, otherwise the lane gets 0 with bound_ctrl and keeps its old value without.
fn permlane_def(x16: bool, fi: bool, bound: bool, ops: Operands) -> Def {
    let pre = Box::new(|w0: &Wave, w: &mut Wave| load(w, w0));
    let post = Box::new(move |w0: &Wave, _pre: &Wave, mut out: Out| -> Out {
        let exec = w0.exec();
        let (Some((src, false)), Some((s1, true)), Some((s2, true))) =
            (ops.src[0], ops.src[1], ops.src[2])
        else {
            return out;
        };
        let (s1, s2) = (w0.sget(s1), w0.sget(s2));
        for lane in 0..w0.lanes {
            if exec >> lane & 1 == 0 {
                continue;
            }
            let l = lane & 15;
            let sel = if l < 8 {
                s1 >> (4 * l)
            } else {
                s2 >> (4 * (l - 8))
            } & 15;
            let row = if x16 { (lane / 16) ^ 1 } else { lane / 16 };
            let from = row * 16 + sel as usize;
            out.v[lane][0] = if from < w0.lanes && (fi || exec >> from & 1 == 1) {
                w0.vget(src, from)
            } else if bound {
                0
            } else {
                w0.vget(VDST as usize, lane)
            };
        }
        out
    });
    Def::Rel(pre, post)
}

fn sp_is_cmpx(inst: &Instruction) -> bool {
    inst.op.mnemonic().starts_with("v_cmpx")
}

/// An f16 value widened exactly to f32 (v_fma_mix sources), a denormal flushed when the f16 denormal field
/// does not keep inputs (bit 6 of FLOAT_MODE); NaN payloads shift into the top of the f32 payload.
fn widen_f16(h: u32, float_mode: u8) -> u32 {
    let s = (h & 0x8000) << 16;
    let e = (h >> 10) & 0x1f;
    let m = h & 0x3ff;
    match e {
        0 if m == 0 || float_mode >> 6 & 1 == 0 => s,
        0 => {
            // Normalise the denormal: value m * 2^-24.
            let lz = m.leading_zeros() - 22;
            let m2 = (m << (lz + 1)) & 0x3ff;
            s | (127 - 15 - lz) << 23 | m2 << 13
        }
        0x1f => s | 0x7f80_0000 | m << 13,
        _ => s | (e + 112) << 23 | m << 13,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Running.

/// Are the instruction's destinations registers the harness observes (v10.., s30, VCC, EXEC)?
fn destinations_observed(inst: &Instruction) -> bool {
    inst.operands().iter().all(|s| match (s.role, s.operand) {
        (Role::Vdst, Operand::Vgpr { first, .. }) => first as u32 == VDST,
        (Role::Vdst | Role::Sdst, Operand::Sgpr { first, .. }) => first as u32 == SDST,
        (Role::Vdst | Role::Sdst, _) => true,
        _ => true,
    })
}

enum Error {
    Refused(String),
    Other(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Refused(r) | Error::Other(r) => f.write_str(r),
        }
    }
}

/// Copies the state an instruction of the harness reads and writes (v10..v13, v20..v27, the scalar file, EXEC,
/// mode) from `src` into the scratch wave `dst`: a whole clone of the 64 KiB vector file per run would cost more
/// than the instruction.
fn load(dst: &mut Wave, src: &Wave) {
    dst.lanes = src.lanes;
    for r in (VDST as usize..VDST as usize + 4).chain(20..28) {
        dst.v[r * 64..r * 64 + 64].copy_from_slice(&src.v[r * 64..r * 64 + 64]);
    }
    dst.s = src.s;
    dst.scc = src.scc;
    dst.mode = src.mode;
    dst.pc = 0;
    dst.done = false;
}

fn run_in(target: Target, words: &[u32], w: &mut Wave) -> Result<(), Error> {
    let inst = isa::decode(target, words, 0).map_err(|e| Error::Other(format!("decode: {e}")))?;
    w.pc = 0;
    match exec::step(w, &inst, 0) {
        Ok(()) => Ok(()),
        Err(measurements::job::BackendError::Unsupported { reason, .. }) => {
            Err(Error::Refused(reason))
        }
        Err(e) => Err(Error::Other(e.to_string())),
    }
}

fn run(target: Target, words: &[u32], w: &Wave) -> Result<Wave, Error> {
    let inst = isa::decode(target, words, 0).map_err(|e| Error::Other(format!("decode: {e}")))?;
    let mut w = w.clone();
    match exec::step(&mut w, &inst, 0) {
        Ok(()) => Ok(w),
        Err(measurements::job::BackendError::Unsupported { reason, .. }) => {
            Err(Error::Refused(reason))
        }
        Err(e) => Err(Error::Other(e.to_string())),
    }
}

#[derive(Default)]
struct Tally {
    combos: BTreeSet<(String, String)>,
    variants: usize,
    runs: usize,
    matched: usize,
    refused: BTreeMap<String, (BTreeSet<&'static str>, String)>,
    refused_variants: usize,
    failures: Vec<String>,
}

fn form_name(enc: Encoding, form: Form) -> &'static str {
    match (enc, form) {
        (Encoding::Vop3p, _) => "VOP3P",
        (_, Form::E64) => "e64",
        (_, Form::Native) => "VOP3",
        (_, Form::Dpp16) => "DPP16",
        (_, Form::Dpp8) => "DPP8",
        (_, Form::Sdwa) => "SDWA",
        _ => "e32",
    }
}

fn check_target(target: Target, tname: &'static str, tally: &mut Tally) {
    for (base, tries) in bases() {
        // Pick the first operand choice (VGPR sources first, unused source fields zero, destination v10 or
        // s30) whose plain instruction decodes canonically and runs.
        let mut candidates: Vec<Vec<u32>> = Vec::new();
        if tries.is_empty() {
            candidates.push(base.words.clone());
        }
        for t in &tries {
            for keep in [0x07ff_ffffu32, 0x3ffff, 0x1ff] {
                for d in [VDST, SDST] {
                    let mut w = base.words.clone();
                    w[1] |= t[0] & (keep | 0xf800_0000);
                    if base.enc == Encoding::Vop3 {
                        w[0] |= d;
                    }
                    candidates.push(w.clone());
                    let mut b = w;
                    if base.enc == Encoding::Vop3 {
                        b[0] |= SDST << 8;
                        candidates.push(b);
                    }
                }
            }
        }
        let mut chosen = None;
        for words in candidates {
            let Ok(inst) = isa::decode(target, &words, 0) else {
                continue;
            };
            let Some(mut sp) = spec(inst.op) else { break };
            // Canonical words, and the forms LLVM 19 lacks that the decoder reads from evidence.
            let beyond = inst
                .non_canonical_reason()
                .is_some_and(|r| r.contains("does not accept this form"));
            if !(inst.canonical || beyond) || !destinations_observed(&inst) {
                continue;
            }
            let _ = &mut sp;
            let mut words = words;
            let dst16 = is16(sp.dst) || (sp.dst == T::F16 && sp.mix_half == 0);
            if base.form == Form::Sdwa && base.enc != Encoding::Vopc && dst16 {
                set_bits(&mut words[1], 8, 3, 4);
            }
            let w = initial(CONFIGS[0], &sp, 1);
            if run(target, &words, &w).is_ok() {
                let inst = isa::decode(target, &words, 0).expect("decoded above");
                chosen = Some((words, inst, sp));
                break;
            }
        }
        let Some((words, inst, sp)) = chosen else {
            continue;
        };
        let base = Base { words, ..base };
        let form = inst.form;
        let vop3b = inst.encoding == Encoding::Vop3 && inst.operand(Role::Sdst).is_some();
        let dst16 = is16(sp.dst) || (sp.dst == T::F16 && sp.mix_half == 0);
        let dst_default = if dst16 { 4 } else { 6 };
        let full = domains(form, inst.encoding, vop3b, dst_default, true);
        let reduced = domains(form, inst.encoding, vop3b, dst_default, false);
        let mn = inst.op.mnemonic().to_string();
        let fname = form_name(inst.encoding, form);
        tally.combos.insert((mn.clone(), fname.to_string()));
        let ops = operands(&inst);
        let mut scratch = [Wave::new(64, 0), Wave::new(64, 0), Wave::new(64, 0)];
        let states: Vec<Wave> = CONFIGS
            .iter()
            .enumerate()
            .map(|(ci, &cfg)| {
                initial(
                    cfg,
                    &sp,
                    0x9e37_79b9 ^ (ci as u64) << 32 ^ base.words[0] as u64,
                )
            })
            .collect();
        for fields in variants(&full, &reduced) {
            let words = base.with(&fields);
            let Ok(vinst) = isa::decode(target, &words, 0) else {
                continue;
            };
            if vinst.op != inst.op {
                continue;
            }
            tally.variants += 1;
            let mut refused = None;
            for (&cfg, w0) in CONFIGS.iter().zip(&states) {
                tally.runs += 1;
                let def = define(&inst, sp, ops, &fields, cfg);
                load(&mut scratch[0], w0);
                match run_in(target, &words, &mut scratch[0]).map(|()| &scratch[0]) {
                    Err(Error::Refused(r)) => {
                        refused = Some(r);
                        break;
                    }
                    Err(Error::Other(e)) => {
                        tally.failures.push(format!(
                            "{tname} {mn} {fname} {fields:?}: fails without Unsupported: {e}"
                        ));
                        break;
                    }
                    Ok(got) => match def {
                        Def::Undefined(why) => {
                            tally.failures.push(format!(
                                "{tname} {mn} {fname} {fields:?}: runs, but {why} has no definition (must be refused)"
                            ));
                            break;
                        }
                        Def::Rel(pre, post) => {
                            let got = observe(got);
                            let [_, pre_state, base_w] = &mut scratch;
                            pre(w0, pre_state);
                            load(base_w, pre_state);
                            let base_out = match run_in(target, &base.words, base_w) {
                                Ok(()) => observe(base_w),
                                Err(e) => {
                                    tally.failures.push(format!(
                                        "{tname} {mn} {fname}: the plain form fails: {e}"
                                    ));
                                    break;
                                }
                            };
                            let want = post(w0, pre_state, base_out);
                            if got == want {
                                tally.matched += 1;
                            } else {
                                tally.failures.push(format!(
                                    "{tname} {mn} {fname} {fields:?} (wave{}, mode {:02x}): {}",
                                    cfg.lanes,
                                    cfg.float_mode,
                                    first_difference(&got, &want, w0)
                                ));
                                break;
                            }
                        }
                    },
                }
            }
            if let Some(reason) = refused {
                tally.refused_variants += 1;
                // A variant of several fields is listed only when none of its fields is refused alone.
                let names: Vec<String> = fields.iter().map(|&f| field_name(f)).collect();
                if names.len() > 1
                    && names
                        .iter()
                        .any(|n| tally.refused.contains_key(&format!("{mn} | {fname} | {n}")))
                {
                    continue;
                }
                let field = names.join(" + ");
                let key = format!("{mn} | {fname} | {field}");
                let e = tally
                    .refused
                    .entry(key)
                    .or_insert_with(|| (BTreeSet::new(), reason.clone()));
                e.0.insert(tname);
            }
        }
    }
}

fn first_difference(got: &Out, want: &Out, w0: &Wave) -> String {
    for (l, (g, w)) in got.v.iter().zip(&want.v).enumerate() {
        if g != w {
            let ins: Vec<String> = (20..28).map(|r| format!("{:08x}", w0.vget(r, l))).collect();
            return format!(
                "lane {l}: got {g:08x?}, want {w:08x?}; inputs v20..v27 {}, old v10 {:08x}",
                ins.join(" "),
                w0.vget(10, l)
            );
        }
    }
    format!(
        "masks: got s30 {:08x?} vcc {:08x?} exec {:x}, want s30 {:08x?} vcc {:08x?} exec {:x}",
        got.s30, got.vcc, got.exec, want.s30, want.vcc, want.exec
    )
}

#[test]
fn every_modifier_is_applied_exactly_or_refused() {
    let mut tally = Tally::default();
    check_target(Target::Gfx1013, "gfx1013", &mut tally);
    check_target(Target::Gfx1030, "gfx1030", &mut tally);
    let mut list = String::new();
    let _ = writeln!(
        list,
        "# VALU fields the model refuses (tests/exec_modifiers.rs): form | field(s) | targets | reason | mnemonics\n\
         # {} opcode x form combinations, {} variants (single fields and pairs), {} runs; {} variants refused.",
        tally.combos.len(),
        tally.variants,
        tally.runs,
        tally.refused_variants
    );
    // One line per form, field, targets and reason, with the mnemonics it covers.
    let mut grouped: BTreeMap<(String, String, String, String), Vec<String>> = BTreeMap::new();
    for (key, (targets, reason)) in &tally.refused {
        let mut parts = key.splitn(3, " | ");
        let (mn, form, field) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let t: Vec<&str> = targets.iter().copied().collect();
        let why = reason.replace(&format!(" on {mn}"), "");
        grouped
            .entry((form.to_string(), field.to_string(), t.join(","), why))
            .or_default()
            .push(mn.to_string());
    }
    for ((form, field, targets, why), mns) in &grouped {
        let _ = writeln!(
            list,
            "{form} | {field} | {targets} | {why} | {}",
            mns.join(" ")
        );
    }
    println!(
        "{} combinations, {} variants, {} runs, {} matched, {} refused variants, {} failures",
        tally.combos.len(),
        tally.variants,
        tally.runs,
        tally.matched,
        tally.refused_variants,
        tally.failures.len()
    );
    if let Ok(path) = std::env::var("MODIFIER_FAILURES") {
        std::fs::write(path, tally.failures.join("\n")).unwrap();
    }
    assert!(
        tally.failures.is_empty(),
        "{} failures, the first:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    if std::env::var_os("REFUSED_BLESS").is_some() {
        std::fs::write(LIST, &list).unwrap();
        return;
    }
    let want = std::fs::read_to_string(LIST).unwrap_or_default();
    if list != want {
        let diff: Vec<String> = list
            .lines()
            .filter(|l| !want.lines().any(|w| w == *l))
            .map(|l| format!("+ {l}"))
            .chain(
                want.lines()
                    .filter(|l| !list.lines().any(|g| g == *l))
                    .map(|l| format!("- {l}")),
            )
            .take(60)
            .collect();
        panic!(
            "the refused fields changed; check, then rerun with REFUSED_BLESS=1:\n{}",
            diff.join("\n")
        );
    }
}
