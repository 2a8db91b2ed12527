//! Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP.
//!
//! Semantics follow the RDNA 2 ISA guide's instruction descriptions (AMD, "RDNA 2 Instruction Set
//! Architecture", chapters "Scalar ALU operations" and "Program flow control"); the peer suites
//! `peer-scalar-sop1`, `peer-scalar-sop2` and `peer-scalar-program-flow` pin them on RDNA2 hardware.

use super::ctx::{unsupported, Ctx, Ty};
use crate::float::Mode;
use crate::isa::{Control, Instruction, Op, Operand, Role};
use measurements::job::BackendError;

/// The 16-bit immediate of a SOPK/SOPP instruction.
fn simm16(inst: &Instruction) -> u16 {
    match inst.control {
        Control::Simm16(v) => v,
        _ => match inst.operand(Role::Simm16) {
            Some(Operand::Imm(v)) => v as u16,
            _ => 0,
        },
    }
}

/// Branch target: the next instruction plus a signed word offset.
fn branch(cx: &mut Ctx, pc: usize, offset: u16) {
    // A target before the kernel's start becomes an out-of-range pc, which the next fetch reports as a fault.
    let target = pc as i64 + 1 + offset as i16 as i64;
    cx.wave.pc = usize::try_from(target).unwrap_or(usize::MAX);
}

fn bfe_u64(src: u64, offset: u32, width: u32, bits: u32) -> u64 {
    let v = src >> (offset & (bits - 1));
    if width >= bits {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}

fn sext(v: u64, width: u32) -> u64 {
    if width == 0 || width >= 64 {
        return v;
    }
    let s = 64 - width;
    ((v << s) as i64 >> s) as u64
}

pub(super) fn exec(cx: &mut Ctx, inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    let err = |m: String| unsupported(inst, pc, &m);
    let src = |role| inst.operand(role);
    // Source reads by role and width.
    let s32 = |cx: &Ctx, role| -> Result<u32, BackendError> {
        let op = src(role).ok_or_else(|| unsupported(inst, pc, &format!("no {role:?}")))?;
        cx.sread(op, Ty::B32).map_err(&err)
    };
    let s64 = |cx: &Ctx, role| -> Result<u64, BackendError> {
        let op = src(role).ok_or_else(|| unsupported(inst, pc, &format!("no {role:?}")))?;
        cx.sread64(op, Ty::B64).map_err(&err)
    };
    let dst = || src(Role::Sdst).ok_or_else(|| unsupported(inst, pc, "no destination"));
    macro_rules! w32 {
        ($v:expr) => {{
            let v: u32 = $v;
            cx.swrite(dst()?, v).map_err(&err)?;
            v
        }};
    }
    macro_rules! w64 {
        ($v:expr) => {{
            let v: u64 = $v;
            cx.swrite64(dst()?, v).map_err(&err)?;
            v
        }};
    }
    macro_rules! bin32 {
        ($f:expr) => {{
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let f: fn(u32, u32) -> u32 = $f;
            let d = w32!(f(a, b));
            cx.wave.scc = d != 0;
        }};
    }
    macro_rules! bin64 {
        ($f:expr) => {{
            let (a, b) = (s64(cx, Role::Src0)?, s64(cx, Role::Src1)?);
            let f: fn(u64, u64) -> u64 = $f;
            let d = w64!(f(a, b));
            cx.wave.scc = d != 0;
        }};
    }
    macro_rules! cmp32 {
        (|$a:ident, $b:ident| $e:expr) => {{
            let ($a, $b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            cx.wave.scc = $e;
        }};
    }
    // The _b64 forms work on the whole EXEC pair and the _b32 forms on EXEC_LO, whatever the wave size
    // (rule salu.saveexec_width, measured by peer-scalar-sop1: wave32 kernels running the _b64 forms).
    macro_rules! saveexec {
        ($f:expr, $write_new:expr) => {{
            let wide = saveexec_is_64(inst.op);
            let f: fn(u64, u64) -> u64 = $f;
            let exec_pair = cx.wave.s[super::state::sreg::EXEC_LO] as u64
                | (cx.wave.s[super::state::sreg::EXEC_HI] as u64) << 32;
            let (s, old) = if wide {
                (s64(cx, Role::Src0)?, exec_pair)
            } else {
                (s32(cx, Role::Src0)? as u64, exec_pair & 0xffff_ffff)
            };
            let new = if wide { f(s, old) } else { f(s, old) & 0xffff_ffff };
            // The destination is written before EXEC, so a destination of EXEC itself is overwritten.
            let d = dst()?;
            let shown = if $write_new { new } else { old };
            if wide {
                cx.swrite64(d, shown).map_err(&err)?;
                cx.wave.s[super::state::sreg::EXEC_HI] = (new >> 32) as u32;
            } else {
                cx.swrite(d, shown as u32).map_err(&err)?;
            }
            cx.wave.s[super::state::sreg::EXEC_LO] = new as u32;
            cx.wave.scc = new != 0;
        }};
    }
    match inst.op {
        // SOP2
        Op::SAddU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let r = a as u64 + b as u64;
            w32!(r as u32);
            cx.wave.scc = r >> 32 != 0;
        }
        Op::SSubU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(a.wrapping_sub(b));
            cx.wave.scc = b > a;
        }
        Op::SAddI32 => {
            let (a, b) = (s32(cx, Role::Src0)? as i32, s32(cx, Role::Src1)? as i32);
            let (r, o) = a.overflowing_add(b);
            w32!(r as u32);
            cx.wave.scc = o;
        }
        Op::SSubI32 => {
            let (a, b) = (s32(cx, Role::Src0)? as i32, s32(cx, Role::Src1)? as i32);
            let (r, o) = a.overflowing_sub(b);
            w32!(r as u32);
            cx.wave.scc = o;
        }
        Op::SAddcU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let r = a as u64 + b as u64 + cx.wave.scc as u64;
            w32!(r as u32);
            cx.wave.scc = r >> 32 != 0;
        }
        Op::SSubbU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let c = cx.wave.scc as u64;
            w32!((a as u64).wrapping_sub(b as u64).wrapping_sub(c) as u32);
            cx.wave.scc = (b as u64 + c) > a as u64;
        }
        Op::SMinI32 => {
            let (a, b) = (s32(cx, Role::Src0)? as i32, s32(cx, Role::Src1)? as i32);
            w32!(a.min(b) as u32);
            cx.wave.scc = a < b;
        }
        Op::SMinU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(a.min(b));
            cx.wave.scc = a < b;
        }
        Op::SMaxI32 => {
            let (a, b) = (s32(cx, Role::Src0)? as i32, s32(cx, Role::Src1)? as i32);
            w32!(a.max(b) as u32);
            cx.wave.scc = a > b;
        }
        Op::SMaxU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(a.max(b));
            cx.wave.scc = a > b;
        }
        Op::SCselectB32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(if cx.wave.scc { a } else { b });
        }
        Op::SCselectB64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s64(cx, Role::Src1)?);
            w64!(if cx.wave.scc { a } else { b });
        }
        Op::SAndB32 => bin32!(|a, b| a & b),
        Op::SAndB64 => bin64!(|a, b| a & b),
        Op::SOrB32 => bin32!(|a, b| a | b),
        Op::SOrB64 => bin64!(|a, b| a | b),
        Op::SXorB32 => bin32!(|a, b| a ^ b),
        Op::SXorB64 => bin64!(|a, b| a ^ b),
        Op::SAndn2B32 => bin32!(|a, b| a & !b),
        Op::SAndn2B64 => bin64!(|a, b| a & !b),
        Op::SOrn2B32 => bin32!(|a, b| a | !b),
        Op::SOrn2B64 => bin64!(|a, b| a | !b),
        Op::SNandB32 => bin32!(|a, b| !(a & b)),
        Op::SNandB64 => bin64!(|a, b| !(a & b)),
        Op::SNorB32 => bin32!(|a, b| !(a | b)),
        Op::SNorB64 => bin64!(|a, b| !(a | b)),
        Op::SXnorB32 => bin32!(|a, b| !(a ^ b)),
        Op::SXnorB64 => bin64!(|a, b| !(a ^ b)),
        Op::SLshlB32 => bin32!(|a, b| a << (b & 31)),
        Op::SLshlB64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let d = w64!(a << (b & 63));
            cx.wave.scc = d != 0;
        }
        Op::SLshrB32 => bin32!(|a, b| a >> (b & 31)),
        Op::SLshrB64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let d = w64!(a >> (b & 63));
            cx.wave.scc = d != 0;
        }
        Op::SAshrI32 => bin32!(|a, b| ((a as i32) >> (b & 31)) as u32),
        Op::SAshrI64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let d = w64!(((a as i64) >> (b & 63)) as u64);
            cx.wave.scc = d != 0;
        }
        Op::SBfmB32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(((1u32 << (a & 31)).wrapping_sub(1)) << (b & 31));
        }
        Op::SBfmB64 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w64!(((1u64 << (a & 63)).wrapping_sub(1)) << (b & 63));
        }
        Op::SMulI32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(a.wrapping_mul(b));
        }
        Op::SMulHiU32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!(((a as u64 * b as u64) >> 32) as u32);
        }
        Op::SMulHiI32 => {
            let (a, b) = (s32(cx, Role::Src0)? as i32, s32(cx, Role::Src1)? as i32);
            w32!(((a as i64 * b as i64) >> 32) as u32);
        }
        // Signed forms shift arithmetically, so a field that runs past the top bit takes the sign of S0
        // (rule salu.bfe_signed_shift, measured by peer-scalar-sop2 with widths past 32).
        Op::SBfeU32 | Op::SBfeI32 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let width = (b >> 16) & 0x7f;
            let v = if inst.op == Op::SBfeI32 {
                let v = ((a as i32) >> (b & 31)) as u32 as u64;
                if width == 0 {
                    0
                } else if width < 32 {
                    sext(v & ((1 << width) - 1), width) as u32
                } else {
                    v as u32
                }
            } else {
                bfe_u64(a as u64, b & 31, width.min(32), 32) as u32
            };
            let d = w32!(v);
            cx.wave.scc = d != 0;
        }
        Op::SBfeU64 | Op::SBfeI64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let width = (b >> 16) & 0x7f;
            let v = if inst.op == Op::SBfeI64 {
                let v = ((a as i64) >> (b & 63)) as u64;
                if width == 0 {
                    0
                } else if width < 64 {
                    sext(v & ((1 << width) - 1), width)
                } else {
                    v
                }
            } else {
                bfe_u64(a, b & 63, width.min(64), 64)
            };
            let d = w64!(v);
            cx.wave.scc = d != 0;
        }
        Op::SAbsdiffI32 => bin32!(|a, b| (a as i32).wrapping_sub(b as i32).unsigned_abs()),
        Op::SLshl1AddU32 | Op::SLshl2AddU32 | Op::SLshl3AddU32 | Op::SLshl4AddU32 => {
            let n = match inst.op {
                Op::SLshl1AddU32 => 1,
                Op::SLshl2AddU32 => 2,
                Op::SLshl3AddU32 => 3,
                _ => 4,
            };
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            let r = ((a as u64) << n) + b as u64;
            w32!(r as u32);
            cx.wave.scc = r >> 32 != 0;
        }
        Op::SPackLlB32B16 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!((a & 0xffff) | (b << 16));
        }
        Op::SPackLhB32B16 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!((a & 0xffff) | (b & 0xffff_0000));
        }
        Op::SPackHhB32B16 => {
            let (a, b) = (s32(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            w32!((a >> 16) | (b & 0xffff_0000));
        }

        // SOP1
        Op::SMovB32 => {
            w32!(s32(cx, Role::Src0)?);
        }
        Op::SMovB64 => {
            w64!(s64(cx, Role::Src0)?);
        }
        Op::SCmovB32 => {
            let a = s32(cx, Role::Src0)?;
            if cx.wave.scc {
                w32!(a);
            }
        }
        Op::SCmovB64 => {
            let a = s64(cx, Role::Src0)?;
            if cx.wave.scc {
                w64!(a);
            }
        }
        Op::SNotB32 => {
            let d = w32!(!s32(cx, Role::Src0)?);
            cx.wave.scc = d != 0;
        }
        Op::SNotB64 => {
            let d = w64!(!s64(cx, Role::Src0)?);
            cx.wave.scc = d != 0;
        }
        Op::SWqmB32 | Op::SWqmB64 => {
            let a = s64(cx, Role::Src0)?;
            let bits = if inst.op == Op::SWqmB32 { 32 } else { 64 };
            let mut d = 0u64;
            for q in 0..bits / 4 {
                if a >> (4 * q) & 0xf != 0 {
                    d |= 0xf << (4 * q);
                }
            }
            if bits == 32 {
                w32!(d as u32);
            } else {
                w64!(d);
            }
            cx.wave.scc = d != 0;
        }
        Op::SBrevB32 => {
            w32!(s32(cx, Role::Src0)?.reverse_bits());
        }
        Op::SBrevB64 => {
            w64!(s64(cx, Role::Src0)?.reverse_bits());
        }
        Op::SBcnt0I32B32 | Op::SBcnt1I32B32 => {
            let a = s32(cx, Role::Src0)?;
            let d = w32!(if inst.op == Op::SBcnt0I32B32 {
                a.count_zeros()
            } else {
                a.count_ones()
            });
            cx.wave.scc = d != 0;
        }
        Op::SBcnt0I32B64 | Op::SBcnt1I32B64 => {
            let a = s64(cx, Role::Src0)?;
            let d = w32!(if inst.op == Op::SBcnt0I32B64 {
                a.count_zeros()
            } else {
                a.count_ones()
            });
            cx.wave.scc = d != 0;
        }
        Op::SFf0I32B32 => {
            let a = s32(cx, Role::Src0)?;
            w32!(if a == u32::MAX {
                u32::MAX
            } else {
                (!a).trailing_zeros()
            });
        }
        Op::SFf0I32B64 => {
            let a = s64(cx, Role::Src0)?;
            w32!(if a == u64::MAX {
                u32::MAX
            } else {
                (!a).trailing_zeros()
            });
        }
        Op::SFf1I32B32 => {
            let a = s32(cx, Role::Src0)?;
            w32!(if a == 0 { u32::MAX } else { a.trailing_zeros() });
        }
        Op::SFf1I32B64 => {
            let a = s64(cx, Role::Src0)?;
            w32!(if a == 0 { u32::MAX } else { a.trailing_zeros() });
        }
        Op::SFlbitI32B32 => {
            let a = s32(cx, Role::Src0)?;
            w32!(if a == 0 { u32::MAX } else { a.leading_zeros() });
        }
        Op::SFlbitI32B64 => {
            let a = s64(cx, Role::Src0)?;
            w32!(if a == 0 { u32::MAX } else { a.leading_zeros() });
        }
        Op::SFlbitI32 => {
            let a = s32(cx, Role::Src0)?;
            let x = if (a as i32) < 0 { !a } else { a };
            w32!(if x == 0 { u32::MAX } else { x.leading_zeros() });
        }
        Op::SFlbitI32I64 => {
            let a = s64(cx, Role::Src0)?;
            let x = if (a as i64) < 0 { !a } else { a };
            w32!(if x == 0 { u32::MAX } else { x.leading_zeros() });
        }
        Op::SSextI32I8 => {
            w32!(s32(cx, Role::Src0)? as i8 as i32 as u32);
        }
        Op::SSextI32I16 => {
            w32!(s32(cx, Role::Src0)? as i16 as i32 as u32);
        }
        Op::SBitset0B32 | Op::SBitset1B32 => {
            let b = s32(cx, Role::Src0)? & 31;
            let d = dst()?;
            let old = cx.sread(d, Ty::B32).map_err(&err)?;
            let v = if inst.op == Op::SBitset1B32 {
                old | 1 << b
            } else {
                old & !(1 << b)
            };
            cx.swrite(d, v).map_err(&err)?;
        }
        Op::SBitset0B64 | Op::SBitset1B64 => {
            let b = s32(cx, Role::Src0)? & 63;
            let d = dst()?;
            let old = cx.sread64(d, Ty::B64).map_err(&err)?;
            let v = if inst.op == Op::SBitset1B64 {
                old | 1 << b
            } else {
                old & !(1 << b)
            };
            cx.swrite64(d, v).map_err(&err)?;
        }
        Op::SAbsI32 => {
            let d = w32!((s32(cx, Role::Src0)? as i32).unsigned_abs());
            cx.wave.scc = d != 0;
        }
        Op::SBitreplicateB64B32 => {
            let a = s32(cx, Role::Src0)?;
            let mut d = 0u64;
            for i in 0..32 {
                if a >> i & 1 == 1 {
                    d |= 3 << (2 * i);
                }
            }
            w64!(d);
        }
        Op::SQuadmaskB32 | Op::SQuadmaskB64 => {
            let a = s64(cx, Role::Src0)?;
            let groups = if inst.op == Op::SQuadmaskB32 { 8 } else { 16 };
            let mut d = 0u64;
            for q in 0..groups {
                if a >> (4 * q) & 0xf != 0 {
                    d |= 1 << q;
                }
            }
            if groups == 8 {
                w32!(d as u32);
            } else {
                w64!(d);
            }
            cx.wave.scc = d != 0;
        }
        Op::SGetpcB64 => {
            w64!(cx.wave.pc as u64 * 4);
        }
        Op::SSetpcB64 => {
            let a = s64(cx, Role::Src0)?;
            cx.wave.pc = usize::try_from(a / 4).unwrap_or(usize::MAX);
        }
        Op::SSwappcB64 => {
            let a = s64(cx, Role::Src0)?;
            w64!(cx.wave.pc as u64 * 4);
            cx.wave.pc = usize::try_from(a / 4).unwrap_or(usize::MAX);
        }
        Op::SAndSaveexecB32 | Op::SAndSaveexecB64 => saveexec!(|s, e| s & e, false),
        Op::SOrSaveexecB32 | Op::SOrSaveexecB64 => saveexec!(|s, e| s | e, false),
        Op::SXorSaveexecB32 | Op::SXorSaveexecB64 => saveexec!(|s, e| s ^ e, false),
        Op::SAndn2SaveexecB32 | Op::SAndn2SaveexecB64 => saveexec!(|s, e| s & !e, false),
        Op::SOrn2SaveexecB32 | Op::SOrn2SaveexecB64 => saveexec!(|s, e| s | !e, false),
        Op::SNandSaveexecB32 | Op::SNandSaveexecB64 => saveexec!(|s, e| !(s & e), false),
        Op::SNorSaveexecB32 | Op::SNorSaveexecB64 => saveexec!(|s, e| !(s | e), false),
        Op::SXnorSaveexecB32 | Op::SXnorSaveexecB64 => saveexec!(|s, e| !(s ^ e), false),
        Op::SAndn1SaveexecB32 | Op::SAndn1SaveexecB64 => saveexec!(|s, e| !s & e, false),
        Op::SOrn1SaveexecB32 | Op::SOrn1SaveexecB64 => saveexec!(|s, e| !s | e, false),
        Op::SAndn1WrexecB32 | Op::SAndn1WrexecB64 => saveexec!(|s, e| !s & e, true),
        Op::SAndn2WrexecB32 | Op::SAndn2WrexecB64 => saveexec!(|s, e| s & !e, true),
        Op::SMovrelsB32
        | Op::SMovrelsB64
        | Op::SMovreldB32
        | Op::SMovreldB64
        | Op::SMovrelsd2B32 => {
            movrel(cx, inst, pc)?;
        }

        // SOPK
        Op::SMovkI32 => {
            w32!(simm16(inst) as i16 as i32 as u32);
        }
        Op::SCmovkI32 => {
            if cx.wave.scc {
                w32!(simm16(inst) as i16 as i32 as u32);
            }
        }
        Op::SAddkI32 => {
            let d = dst()?;
            let a = cx.sread(d, Ty::B32).map_err(&err)? as i32;
            let (r, o) = a.overflowing_add(simm16(inst) as i16 as i32);
            cx.swrite(d, r as u32).map_err(&err)?;
            cx.wave.scc = o;
        }
        Op::SMulkI32 => {
            let d = dst()?;
            let a = cx.sread(d, Ty::B32).map_err(&err)? as i32;
            cx.swrite(d, a.wrapping_mul(simm16(inst) as i16 as i32) as u32)
                .map_err(&err)?;
        }
        Op::SCmpkEqI32
        | Op::SCmpkLgI32
        | Op::SCmpkGtI32
        | Op::SCmpkGeI32
        | Op::SCmpkLtI32
        | Op::SCmpkLeI32 => {
            let op = src(Role::Sdst)
                .or(src(Role::Src0))
                .ok_or_else(|| err("no register".into()))?;
            let a = cx.sread(op, Ty::B32).map_err(&err)? as i32;
            let k = simm16(inst) as i16 as i32;
            cx.wave.scc = match inst.op {
                Op::SCmpkEqI32 => a == k,
                Op::SCmpkLgI32 => a != k,
                Op::SCmpkGtI32 => a > k,
                Op::SCmpkGeI32 => a >= k,
                Op::SCmpkLtI32 => a < k,
                _ => a <= k,
            };
        }
        Op::SCmpkEqU32
        | Op::SCmpkLgU32
        | Op::SCmpkGtU32
        | Op::SCmpkGeU32
        | Op::SCmpkLtU32
        | Op::SCmpkLeU32 => {
            let op = src(Role::Sdst)
                .or(src(Role::Src0))
                .ok_or_else(|| err("no register".into()))?;
            let a = cx.sread(op, Ty::B32).map_err(&err)?;
            let k = simm16(inst) as u32;
            cx.wave.scc = match inst.op {
                Op::SCmpkEqU32 => a == k,
                Op::SCmpkLgU32 => a != k,
                Op::SCmpkGtU32 => a > k,
                Op::SCmpkGeU32 => a >= k,
                Op::SCmpkLtU32 => a < k,
                _ => a <= k,
            };
        }
        Op::SCallB64 => {
            w64!(cx.wave.pc as u64 * 4);
            branch(cx, pc, simm16(inst));
        }
        Op::SGetregB32 => {
            let k = simm16(inst) as u32;
            let (id, offset, size) = (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1);
            if id != 1 {
                return Err(err(format!(
                    "hardware register {id} is not modelled (only HW_REG_MODE)"
                )));
            }
            w32!(Mode::from_hwreg(cx.wave.mode).getreg(offset, size));
        }
        Op::SSetregB32 | Op::SSetregImm32B32 => {
            let k = simm16(inst) as u32;
            let (id, offset, size) = (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1);
            if id != 1 {
                return Err(err(format!(
                    "hardware register {id} is not modelled (only HW_REG_MODE)"
                )));
            }
            let v = match inst.op {
                Op::SSetregB32 => s32(cx, Role::Sdst).or_else(|_| s32(cx, Role::Src0))?,
                _ => s32(cx, Role::K).or_else(|_| s32(cx, Role::Src0))?,
            };
            cx.wave.mode = Mode::from_hwreg(cx.wave.mode)
                .setreg(offset, size, v)
                .to_hwreg();
        }
        Op::SWaitcntVscnt | Op::SWaitcntVmcnt | Op::SWaitcntExpcnt | Op::SWaitcntLgkmcnt => {}

        // SOPC
        Op::SCmpEqI32 | Op::SCmpEqU32 => cmp32!(|a, b| a == b),
        Op::SCmpLgI32 | Op::SCmpLgU32 => cmp32!(|a, b| a != b),
        Op::SCmpGtI32 => cmp32!(|a, b| (a as i32) > (b as i32)),
        Op::SCmpGeI32 => cmp32!(|a, b| (a as i32) >= (b as i32)),
        Op::SCmpLtI32 => cmp32!(|a, b| (a as i32) < (b as i32)),
        Op::SCmpLeI32 => cmp32!(|a, b| (a as i32) <= (b as i32)),
        Op::SCmpGtU32 => cmp32!(|a, b| a > b),
        Op::SCmpGeU32 => cmp32!(|a, b| a >= b),
        Op::SCmpLtU32 => cmp32!(|a, b| a < b),
        Op::SCmpLeU32 => cmp32!(|a, b| a <= b),
        Op::SCmpEqU64 | Op::SCmpLgU64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s64(cx, Role::Src1)?);
            cx.wave.scc = (a == b) == (inst.op == Op::SCmpEqU64);
        }
        Op::SBitcmp0B32 => cmp32!(|a, b| a >> (b & 31) & 1 == 0),
        Op::SBitcmp1B32 => cmp32!(|a, b| a >> (b & 31) & 1 == 1),
        Op::SBitcmp0B64 | Op::SBitcmp1B64 => {
            let (a, b) = (s64(cx, Role::Src0)?, s32(cx, Role::Src1)?);
            cx.wave.scc = (a >> (b & 63) & 1 == 1) == (inst.op == Op::SBitcmp1B64);
        }

        // SOPP
        Op::SNop
        | Op::SWaitcnt
        | Op::SSetprio
        | Op::SSleep
        | Op::SIcacheInv
        | Op::SIncperflevel
        | Op::SDecperflevel
        | Op::STtracedata
        | Op::STtracedataImm
        | Op::SInstPrefetch
        | Op::SClause
        | Op::SWaitcntDepctr
        | Op::SCodeEnd => {}
        // s_version only marks the ISA version the code was built for; s_wait_idle waits for outstanding work,
        // which the model never leaves; s_wakeup ends other waves' s_sleep, already a no-op here (RDNA 2 ISA
        // guide, SOPP/SOPK descriptions).
        Op::SVersion | Op::SWaitIdle | Op::SWakeup => {}
        Op::SEndpgm | Op::SEndpgmSaved | Op::SEndpgmOrderedPsDone => cx.wave.done = true,
        // Measured on RDNA2 (gfx1035), seed 000: s_setkill ends the wave like s_endpgm (rule salu.setkill).
        Op::SSetkill => cx.wave.done = true,
        // s_sethalt with SIMM16[0] clear is a no-op; a halting one is refused (rule salu.sethalt).
        Op::SSethalt => {
            if simm16(inst) & 1 == 1 {
                return Err(err("s_sethalt 1 would halt the wave".into()));
            }
        }
        Op::SBarrier => cx.wave.at_barrier = true,
        Op::SBranch => branch(cx, pc, simm16(inst)),
        Op::SCbranchScc0 => {
            if !cx.wave.scc {
                branch(cx, pc, simm16(inst));
            }
        }
        Op::SCbranchScc1 => {
            if cx.wave.scc {
                branch(cx, pc, simm16(inst));
            }
        }
        Op::SCbranchVccz => {
            if cx.wave.vcc() == 0 {
                branch(cx, pc, simm16(inst));
            }
        }
        Op::SCbranchVccnz => {
            if cx.wave.vcc() != 0 {
                branch(cx, pc, simm16(inst));
            }
        }
        Op::SCbranchExecz => {
            if cx.wave.exec() == 0 {
                branch(cx, pc, simm16(inst));
            }
        }
        Op::SCbranchExecnz => {
            if cx.wave.exec() != 0 {
                branch(cx, pc, simm16(inst));
            }
        }
        // The debug conditions are false outside a debugger, so these never branch (rule salu.cdbg_not_taken).
        Op::SCbranchCdbgsys
        | Op::SCbranchCdbguser
        | Op::SCbranchCdbgsysOrUser
        | Op::SCbranchCdbgsysAndUser => {}
        Op::SRoundMode => {
            let m = Mode::from_hwreg(cx.wave.mode).with_round_mode(simm16(inst) as u8);
            cx.wave.mode = m.to_hwreg() | (cx.wave.mode & !0x0080_03ff);
        }
        Op::SDenormMode => {
            let m = Mode::from_hwreg(cx.wave.mode).with_denorm_mode(simm16(inst) as u8);
            cx.wave.mode = m.to_hwreg() | (cx.wave.mode & !0x0080_03ff);
        }
        Op::SSendmsg | Op::SSendmsghalt => {
            return Err(err(
                "messages go to the SPI and other fixed-function units, which a compute job here does not have"
                    .into(),
            ))
        }
        Op::STrap | Op::SRfeB64 => {
            return Err(err(
                "trap handler entry and return need a trap handler (TBA/TMA), which jobs do not install".into(),
            ))
        }
        Op::SSubvectorLoopBegin | Op::SSubvectorLoopEnd => {
            return Err(err(
                "wave64 subvector looping is not modelled: no measurement or document fixes how it splits EXEC"
                    .into(),
            ))
        }
        _ => return Err(err("scalar instruction not modelled yet".into())),
    }
    Ok(())
}

/// Whether a saveexec/wrexec operation is its `_b64` form (the whole EXEC pair).
fn saveexec_is_64(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SAndSaveexecB64
            | SOrSaveexecB64
            | SXorSaveexecB64
            | SAndn2SaveexecB64
            | SOrn2SaveexecB64
            | SNandSaveexecB64
            | SNorSaveexecB64
            | SXnorSaveexecB64
            | SAndn1SaveexecB64
            | SOrn1SaveexecB64
            | SAndn1WrexecB64
            | SAndn2WrexecB64
    )
}

/// s_movrels / s_movreld / s_movrelsd_2: relative SGPR addressing by M0.
fn movrel(cx: &mut Ctx, inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    let err = |m: &str| unsupported(inst, pc, m);
    let m0 = cx.wave.s[super::state::sreg::M0] as usize;
    let index = |op: Option<Operand>| -> Result<usize, BackendError> {
        match op {
            Some(Operand::Sgpr { first, .. }) => Ok(first as usize),
            _ => Err(err("relative addressing needs SGPR operands")),
        }
    };
    let (src, dst) = (
        index(inst.operand(Role::Src0))?,
        index(inst.operand(Role::Sdst))?,
    );
    let (s, d) = match inst.op {
        Op::SMovrelsB32 | Op::SMovrelsB64 => (src + m0, dst),
        Op::SMovreldB32 | Op::SMovreldB64 => (src, dst + m0),
        _ => (src + (m0 & 0x3ff), dst + ((m0 >> 16) & 0x3ff)),
    };
    let n = if matches!(inst.op, Op::SMovrelsB64 | Op::SMovreldB64) {
        2
    } else {
        1
    };
    // Out of the SGPR file: rule salu.movrel_range (inferred): reads give 0, writes are dropped.
    let limit = super::state::sreg::SGPRS;
    for i in 0..n {
        let v = if s + i < limit { cx.wave.s[s + i] } else { 0 };
        if d + i < limit {
            cx.wave.s[d + i] = v;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::isa::ALL_OPS;

    /// The typed width list covers exactly the `_b64` saveexec and wrexec forms.
    #[test]
    fn saveexec_width_matches_the_names() {
        for op in ALL_OPS {
            let n = op.mnemonic();
            if n.contains("saveexec") || n.contains("wrexec") {
                assert_eq!(super::saveexec_is_64(op), n.ends_with("_b64"), "{n}");
            }
        }
    }
}
