//! The compact form a program is decoded into: for each instruction, what the interpreter runs, decided once.
//!
//! [`prepare`] looks at a decoded [`Instruction`] once, when the program is decoded (the first time its word
//! index is reached), and picks how it runs:
//!
//! - the common VALU operations with nothing but e32/e64 operands (no DPP, SDWA or modifiers beyond the float
//!   sources' neg/abs and the float output modifiers): the 32-bit integer operations, the 32-bit integer
//!   compares, `v_cndmask_b32` and the f32 arithmetic, with their sources resolved to a VGPR, a scalar
//!   register or a constant ([`Src`]) and their destination to a register number. Each runs as one loop over
//!   the wave's lanes on whole register rows (`[u32; N]`, N = 32 or 64): the sources are read, every lane
//!   computed, and the results written back; with every lane of EXEC set the write is a plain copy, without
//!   a per-lane branch, and the integer loops are straight-line code the compiler vectorises.
//! - the common scalar operations (32-bit add/sub, moves, compares, branches with their target computed,
//!   `s_endpgm`, the no-op waits);
//! - a VALU instruction whose encoding sets a field the model does not apply: its refusal, worked out once
//!   ([`super::fields`]);
//! - every other instruction: the general paths of `salu`, `valu`, `vfloat` and `mem_ops` (the latter with the
//!   operation's [`MemFacts`]).
//!
//! Every fast form computes exactly what the general path computes: the integer lanes call the same
//! `valu::int32`, the float lanes the same `crate::float` functions, and the compare kind is read off the
//! general path's own predicate (see [`CmpKind::of`]). The exec tests run both: `exec::step` (the
//! instruction-level entry of the tests) and whole jobs take the same [`prepare`].

use super::ctx::{sreg_index, Ctx};
use super::facts::MemFacts;
use super::state::{sreg, Wave};
use crate::float::{self as fp, Mode, Omod};
use crate::isa::{Control, Encoding, Form, Instruction, Op, Operand, Role, VopMods};
use measurements::job::BackendError;

/// A 32-bit source resolved when the program is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// A VGPR: one value per lane.
    V(u8),
    /// A scalar register (by its encoding number), read when the instruction runs.
    S(u8),
    /// A constant (inline or literal) as a 32-bit operand reads it.
    K(u32),
}

/// Where a VALU lane mask goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MaskDst {
    /// EXEC (v_cmpx).
    Exec,
    /// The SGPR (pair in wave64) starting at this encoding number: VCC or the named destination.
    Sreg(u8),
    /// NULL: the mask is dropped.
    Null,
}

/// A comparison, read off the general path's predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpKind {
    /// Never.
    F,
    /// a < b.
    Lt,
    /// a == b.
    Eq,
    /// a <= b.
    Le,
    /// a > b.
    Gt,
    /// a != b.
    Ne,
    /// a >= b.
    Ge,
    /// Always.
    T,
}

impl CmpKind {
    /// The comparison `pred` is: its answers for a < b, a == b and a > b decide it.
    fn of(pred: impl Fn(i128, i128) -> bool) -> CmpKind {
        match (pred(0, 1), pred(1, 1), pred(1, 0)) {
            (false, false, false) => CmpKind::F,
            (true, false, false) => CmpKind::Lt,
            (false, true, false) => CmpKind::Eq,
            (true, true, false) => CmpKind::Le,
            (false, false, true) => CmpKind::Gt,
            (true, false, true) => CmpKind::Ne,
            (false, true, true) => CmpKind::Ge,
            (true, true, true) => CmpKind::T,
        }
    }
}

/// A scalar source: a register read when the instruction runs, or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SSrc {
    /// A scalar register by encoding number.
    S(u8),
    /// A constant.
    K(u32),
}

/// When a branch is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// How one instruction runs; see the module docs.
#[derive(Clone, Debug)]
pub(crate) enum Fast {
    /// A 32-bit integer VALU operation (`valu::int32`, clamp clear) over whole register rows.
    VInt { op: Op, dst: u8, src: [Src; 3] },
    /// A 32-bit integer compare; the mask goes to `dst`.
    VCmp {
        kind: CmpKind,
        signed: bool,
        a: Src,
        b: Src,
        dst: MaskDst,
    },
    /// `v_cndmask_b32` without modifiers: the condition mask from VCC or a scalar register.
    VCndmask { dst: u8, a: Src, b: Src, cond: u8 },
    /// An f32 operation of `crate::float` with the sources' neg/abs as bit masks (AND then XOR) and the
    /// output modifiers; `c` of v_fmac/v_mac is the destination's old value.
    VF32 {
        op: Op,
        dst: u8,
        src: [Src; 3],
        and: [u32; 3],
        xor: [u32; 3],
        omod: Omod,
        clamp: bool,
    },
    /// `s_add_u32`, `s_sub_u32`, `s_add_i32`, `s_sub_i32`, `s_mov_b32`, `s_movk_i32` (b unused).
    SAlu { op: Op, dst: u8, a: SSrc, b: SSrc },
    /// A 32-bit scalar compare into SCC.
    SCmp {
        kind: CmpKind,
        signed: bool,
        a: SSrc,
        b: SSrc,
    },
    /// A branch to `target` (an out-of-range value faults at the next fetch).
    Branch { cond: Cond, target: usize },
    /// An instruction that does nothing observable in the model.
    Nop,
    /// The end of the wave.
    End,
    /// A VALU instruction the field check refused, with the error it gives.
    Refused(BackendError),
    /// A VALU instruction whose fields were checked: the general vector path.
    Valu,
    /// A memory instruction: the general path with its operation's facts.
    Mem(&'static MemFacts),
    /// Any other instruction: the general path.
    General,
}

/// How one instruction runs and the instruction itself.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    /// The compact form.
    pub fast: Fast,
    /// Words the instruction occupies.
    pub size: usize,
    /// The decoded instruction, for the general paths and for messages.
    pub inst: Instruction,
}

/// A constant operand as a 32-bit read gives it (`Ctx::sread` with `Ty::B32`).
fn const_b32(op: Operand) -> Option<u32> {
    match op {
        Operand::InlineInt(i) => Some(i as i32 as u32),
        Operand::InlineFloat(f) => Some(f.bits(32) as u32),
        Operand::Literal(l) => Some(l),
        _ => None,
    }
}

/// A VALU 32-bit source, or `None` for one the general path must read (SCC, VCCZ, LDS_DIRECT, apertures).
fn vsrc(op: Option<Operand>) -> Option<Src> {
    match op {
        // A missing source reads 0 in the integer paths.
        None => Some(Src::K(0)),
        Some(Operand::Vgpr { first, .. }) => Some(Src::V(first)),
        Some(o) => const_b32(o)
            .map(Src::K)
            .or_else(|| sreg_index(o).map(|r| Src::S(r as u8))),
    }
}

/// A scalar 32-bit source.
fn ssrc(op: Option<Operand>) -> Option<SSrc> {
    let o = op?;
    const_b32(o)
        .map(SSrc::K)
        .or_else(|| sreg_index(o).map(|r| SSrc::S(r as u8)))
}

/// The VGPR a VALU result goes to.
fn vdst(inst: &Instruction) -> Option<u8> {
    match inst.operand(Role::Vdst) {
        Some(Operand::Vgpr { first, .. }) => Some(first),
        _ => None,
    }
}

/// A VALU instruction in its plain e32/e64 form: no DPP or SDWA dword, no VOP3 field set.
fn plain(inst: &Instruction) -> bool {
    inst.control == Control::None && inst.mods == VopMods::default()
}

/// Works out how `inst` (at word `pc`) runs; see the module docs.
pub(crate) fn prepare(inst: &Instruction, pc: usize) -> Fast {
    match inst.encoding {
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 | Encoding::Vop3p => {
            if let Err(e) = super::fields::check(inst, pc) {
                return Fast::Refused(e);
            }
            prepare_valu(inst).unwrap_or(Fast::Valu)
        }
        Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopk | Encoding::Sopc | Encoding::Sopp => {
            prepare_salu(inst, pc).unwrap_or(Fast::General)
        }
        Encoding::Smem | Encoding::Mubuf | Encoding::Mtbuf | Encoding::Flat | Encoding::Ds => {
            Fast::Mem(MemFacts::of(inst.op))
        }
        Encoding::Mimg | Encoding::Exp | Encoding::Vintrp => Fast::General,
    }
}

fn prepare_valu(inst: &Instruction) -> Option<Fast> {
    let op = inst.op;
    let src = |r| vsrc(inst.operand(r));
    if let Some((bits, signed, pred, cmpx)) = super::valu::int_cmp_facts(op) {
        if bits != 32 || !plain(inst) {
            return None;
        }
        let dst = if cmpx {
            MaskDst::Exec
        } else {
            match inst.mask_dst() {
                None => MaskDst::Sreg(sreg::VCC_LO as u8),
                Some(o) => match sreg_index(o)? {
                    sreg::NULL => MaskDst::Null,
                    r => MaskDst::Sreg(r as u8),
                },
            }
        };
        return Some(Fast::VCmp {
            kind: CmpKind::of(pred),
            signed,
            a: src(Role::Src0)?,
            b: src(Role::Src1)?,
            dst,
        });
    }
    if super::valu::is_int_op(op) {
        if !plain(inst) {
            return None;
        }
        return Some(Fast::VInt {
            op,
            dst: vdst(inst)?,
            src: [src(Role::Src0)?, src(Role::Src1)?, src(Role::Src2)?],
        });
    }
    if op == Op::VCndmaskB32 {
        if !plain(inst) {
            return None;
        }
        let cond = match (inst.form, inst.operand(Role::Src2)) {
            (Form::Native | Form::E64, Some(o)) => sreg_index(o)? as u8,
            _ => sreg::VCC_LO as u8,
        };
        return Some(Fast::VCndmask {
            dst: vdst(inst)?,
            a: src(Role::Src0)?,
            b: src(Role::Src1)?,
            cond,
        });
    }
    if is_fast_f32(op) && inst.control == Control::None && inst.encoding != Encoding::Vop3p {
        let m = inst.mods;
        if m.op_sel != 0 {
            return None;
        }
        let dst = vdst(inst)?;
        let mut srcs = [src(Role::Src0)?, src(Role::Src1)?, src(Role::Src2)?];
        let mut and = [0, 1, 2].map(|i| {
            if m.abs >> i & 1 == 1 {
                0x7fff_ffff
            } else {
                u32::MAX
            }
        });
        let mut xor = [0, 1, 2].map(|i| if m.neg >> i & 1 == 1 { 0x8000_0000 } else { 0 });
        if matches!(op, Op::VFmacF32 | Op::VMacF32) {
            // The accumulator is the destination's old value, read without modifiers.
            srcs[2] = Src::V(dst);
            (and[2], xor[2]) = (u32::MAX, 0);
        }
        return Some(Fast::VF32 {
            op,
            dst,
            src: srcs,
            and,
            xor,
            omod: Omod::from_field(m.omod),
            clamp: m.clamp,
        });
    }
    None
}

/// The f32 operations of the fast float form: each is one `crate::float` call on its sources, as in the
/// general path (`vfloat`).
fn is_fast_f32(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VAddF32
            | VSubF32
            | VSubrevF32
            | VMulF32
            | VMulLegacyF32
            | VMinF32
            | VMaxF32
            | VFmaF32
            | VMadF32
            | VFmacF32
            | VMacF32
            | VMin3F32
            | VMax3F32
            | VMed3F32
    )
}

/// One lane of a fast f32 operation (sources already modified).
#[inline(always)]
fn f32_lane(op: Op, mode: Mode, a: u32, b: u32, c: u32) -> u32 {
    use Op::*;
    match op {
        VAddF32 => fp::add_f32(mode, a, b),
        VSubF32 => fp::sub_f32(mode, a, b),
        VSubrevF32 => fp::subrev_f32(mode, a, b),
        VMulF32 => fp::mul_f32(mode, a, b),
        VMulLegacyF32 => fp::mul_legacy_f32(mode, a, b),
        VMinF32 => fp::min_f32(mode, a, b),
        VMaxF32 => fp::max_f32(mode, a, b),
        VFmaF32 | VFmacF32 => fp::fma_f32(mode, a, b, c),
        VMadF32 | VMacF32 => fp::mad_f32(mode, a, b, c),
        VMin3F32 => fp::min3_f32(mode, a, b, c),
        VMax3F32 => fp::max3_f32(mode, a, b, c),
        _ => fp::med3_f32(mode, a, b, c),
    }
}

fn prepare_salu(inst: &Instruction, pc: usize) -> Option<Fast> {
    use Op::*;
    let op = inst.op;
    let simm = || match inst.control {
        Control::Simm16(v) => Some(v),
        _ => match inst.operand(Role::Simm16) {
            Some(Operand::Imm(v)) => Some(v as u16),
            _ => Some(0),
        },
    };
    let dst = || sreg_index(inst.operand(Role::Sdst)?).map(|r| r as u8);
    let branch = |cond| {
        // As `salu::branch`: the next instruction plus a signed word offset; before the start is out of range.
        let target = pc as i64 + 1 + simm()? as i16 as i64;
        Some(Fast::Branch {
            cond,
            target: usize::try_from(target).unwrap_or(usize::MAX),
        })
    };
    Some(match op {
        SAddU32 | SSubU32 | SAddI32 | SSubI32 => Fast::SAlu {
            op,
            dst: dst()?,
            a: ssrc(inst.operand(Role::Src0))?,
            b: ssrc(inst.operand(Role::Src1))?,
        },
        SMovB32 => Fast::SAlu {
            op,
            dst: dst()?,
            a: ssrc(inst.operand(Role::Src0))?,
            b: SSrc::K(0),
        },
        SMovkI32 => Fast::SAlu {
            op,
            dst: dst()?,
            a: SSrc::K(simm()? as i16 as i32 as u32),
            b: SSrc::K(0),
        },
        SCmpEqI32 | SCmpEqU32 | SCmpLgI32 | SCmpLgU32 | SCmpGtI32 | SCmpGeI32 | SCmpLtI32
        | SCmpLeI32 | SCmpGtU32 | SCmpGeU32 | SCmpLtU32 | SCmpLeU32 => {
            let kind = match op {
                SCmpEqI32 | SCmpEqU32 => CmpKind::Eq,
                SCmpLgI32 | SCmpLgU32 => CmpKind::Ne,
                SCmpGtI32 | SCmpGtU32 => CmpKind::Gt,
                SCmpGeI32 | SCmpGeU32 => CmpKind::Ge,
                SCmpLtI32 | SCmpLtU32 => CmpKind::Lt,
                _ => CmpKind::Le,
            };
            Fast::SCmp {
                kind,
                signed: matches!(op, SCmpGtI32 | SCmpGeI32 | SCmpLtI32 | SCmpLeI32),
                a: ssrc(inst.operand(Role::Src0))?,
                b: ssrc(inst.operand(Role::Src1))?,
            }
        }
        SBranch => branch(Cond::Always)?,
        SCbranchScc0 => branch(Cond::Scc0)?,
        SCbranchScc1 => branch(Cond::Scc1)?,
        SCbranchVccz => branch(Cond::Vccz)?,
        SCbranchVccnz => branch(Cond::Vccnz)?,
        SCbranchExecz => branch(Cond::Execz)?,
        SCbranchExecnz => branch(Cond::Execnz)?,
        // The same list as the no-op arms of `salu::exec`.
        SNop | SWaitcnt | SSetprio | SSleep | SIcacheInv | SIncperflevel | SDecperflevel
        | STtracedata | STtracedataImm | SInstPrefetch | SClause | SWaitcntDepctr | SCodeEnd
        | SVersion | SWaitIdle | SWakeup | SWaitcntVscnt | SWaitcntVmcnt | SWaitcntExpcnt
        | SWaitcntLgkmcnt => Fast::Nop,
        SEndpgm | SEndpgmSaved | SEndpgmOrderedPsDone | SSetkill => Fast::End,
        _ => return None,
    })
}

/// Runs `p` (at word `pc`; the wave's pc already points past it).
#[inline]
pub(crate) fn run(cx: &mut Ctx, p: &Prepared, pc: usize) -> Result<(), BackendError> {
    let w = &mut *cx.wave;
    match &p.fast {
        Fast::VInt { op, dst, src } => {
            if w.lanes == 64 {
                int_rows::<64>(w, *op, *dst, src);
            } else {
                int_rows::<32>(w, *op, *dst, src);
            }
            Ok(())
        }
        Fast::VCmp {
            kind,
            signed,
            a,
            b,
            dst,
        } => {
            let m = if w.lanes == 64 {
                cmp_rows::<64>(w, *kind, *signed, *a, *b)
            } else {
                cmp_rows::<32>(w, *kind, *signed, *a, *b)
            };
            let m = m & w.exec();
            match dst {
                MaskDst::Exec => w.set_exec(m),
                MaskDst::Sreg(r) => w.set_mask_at(*r as usize, m),
                MaskDst::Null => {}
            }
            Ok(())
        }
        Fast::VCndmask { dst, a, b, cond } => {
            let c = w.mask_at(*cond as usize);
            if w.lanes == 64 {
                cndmask_rows::<64>(w, *dst, *a, *b, c);
            } else {
                cndmask_rows::<32>(w, *dst, *a, *b, c);
            }
            Ok(())
        }
        Fast::VF32 {
            op,
            dst,
            src,
            and,
            xor,
            omod,
            clamp,
        } => {
            let mode = Mode::from_hwreg(w.mode);
            let post = (*omod != Omod::None || *clamp).then_some((*omod, *clamp));
            if w.lanes == 64 {
                f32_rows::<64>(w, *op, mode, *dst, src, and, xor, post);
            } else {
                f32_rows::<32>(w, *op, mode, *dst, src, and, xor, post);
            }
            Ok(())
        }
        Fast::SAlu { op, dst, a, b } => {
            let (a, b) = (sget(w, *a), sget(w, *b));
            let (d, scc) = match op {
                Op::SAddU32 => {
                    let r = a as u64 + b as u64;
                    (r as u32, Some(r >> 32 != 0))
                }
                Op::SSubU32 => (a.wrapping_sub(b), Some(b > a)),
                Op::SAddI32 => {
                    let (r, o) = (a as i32).overflowing_add(b as i32);
                    (r as u32, Some(o))
                }
                Op::SSubI32 => {
                    let (r, o) = (a as i32).overflowing_sub(b as i32);
                    (r as u32, Some(o))
                }
                // s_mov_b32, s_movk_i32: the value, SCC unchanged.
                _ => (a, None),
            };
            w.sset(*dst as usize, d);
            if let Some(c) = scc {
                w.scc = c;
            }
            Ok(())
        }
        Fast::SCmp { kind, signed, a, b } => {
            let (a, b) = (sget(w, *a), sget(w, *b));
            w.scc = if *signed {
                compare(*kind, a as i32, b as i32)
            } else {
                compare(*kind, a, b)
            };
            Ok(())
        }
        Fast::Branch { cond, target } => {
            let taken = match cond {
                Cond::Always => true,
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc() == 0,
                Cond::Vccnz => w.vcc() != 0,
                Cond::Execz => w.exec() == 0,
                Cond::Execnz => w.exec() != 0,
            };
            if taken {
                w.pc = *target;
            }
            Ok(())
        }
        Fast::Nop => Ok(()),
        Fast::End => {
            w.done = true;
            Ok(())
        }
        Fast::Refused(e) => Err(e.clone()),
        Fast::Valu => super::valu::exec_checked(cx, &p.inst, pc),
        Fast::Mem(facts) => super::mem_ops::exec(cx, &p.inst, facts, pc),
        Fast::General => cx.step_general(&p.inst, pc),
    }
}

/// Prepares and runs one instruction that is not part of a decoded program (`exec::step`, `Ctx::step`).
pub(crate) fn run_one(cx: &mut Ctx, inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    let p = Prepared {
        fast: prepare(inst, pc),
        size: inst.size as usize,
        inst: *inst,
    };
    run(cx, &p, pc)
}

#[inline(always)]
fn sget(w: &Wave, s: SSrc) -> u32 {
    match s {
        SSrc::S(r) => w.sget(r as usize),
        SSrc::K(k) => k,
    }
}

#[inline(always)]
fn compare<T: Ord>(kind: CmpKind, a: T, b: T) -> bool {
    match kind {
        CmpKind::F => false,
        CmpKind::Lt => a < b,
        CmpKind::Eq => a == b,
        CmpKind::Le => a <= b,
        CmpKind::Gt => a > b,
        CmpKind::Ne => a != b,
        CmpKind::Ge => a >= b,
        CmpKind::T => true,
    }
}

/// The lanes of a source as one row.
#[inline(always)]
fn row<const N: usize>(w: &Wave, s: Src) -> [u32; N] {
    match s {
        Src::V(r) => {
            let base = r as usize * 64;
            let mut out = [0u32; N];
            out.copy_from_slice(&w.v[base..base + N]);
            out
        }
        Src::S(r) => [w.sget(r as usize); N],
        Src::K(k) => [k; N],
    }
}

/// Writes `out` to VGPR `dst` in the lanes of `exec`: a copy when every lane is on.
#[inline(always)]
fn write_row<const N: usize>(w: &mut Wave, dst: u8, exec: u64, out: &[u32; N]) {
    let base = dst as usize * 64;
    let d = &mut w.v[base..base + N];
    if exec == u64::MAX >> (64 - N) {
        d.copy_from_slice(out);
    } else {
        for (i, (d, o)) in d.iter_mut().zip(out).enumerate() {
            if exec >> i & 1 == 1 {
                *d = *o;
            }
        }
    }
}

/// One integer VALU operation over a whole row: sources read first, every lane computed, then written, so a
/// destination that is also a source reads its old value in every lane.
#[inline(always)]
fn int_kernel<const N: usize>(
    w: &mut Wave,
    dst: u8,
    src: &[Src; 3],
    f: impl Fn(u32, u32, u32) -> u32,
) {
    let exec = w.exec();
    if exec == 0 {
        return;
    }
    let (a, b, c) = (
        row::<N>(w, src[0]),
        row::<N>(w, src[1]),
        row::<N>(w, src[2]),
    );
    let mut out = [0u32; N];
    for i in 0..N {
        out[i] = f(a[i], b[i], c[i]);
    }
    write_row(w, dst, exec, &out);
}

/// Every operation `valu::int32` computes, listed so each gets its own loop with the operation fixed.
macro_rules! int_ops {
    ($w:ident, $op:ident, $dst:ident, $src:ident, $n:ident; $($o:ident),* $(,)?) => {
        match $op {
            $(Op::$o => int_kernel::<$n>($w, $dst, $src, |a, b, c| {
                super::valu::int32_inline(Op::$o, a, b, c)
            }),)*
            // `prepare` only picks operations of the list.
            _ => {}
        }
    };
}

fn int_rows<const N: usize>(w: &mut Wave, op: Op, dst: u8, src: &[Src; 3]) {
    int_ops!(w, op, dst, src, N;
        VMovB32, VNotB32, VBfrevB32, VFfbhU32, VFfblB32, VFfbhI32, VAddNcU32, VSubNcU32, VSubrevNcU32,
        VAddNcI32, VSubNcI32, VMulI32I24, VMulHiI32I24, VMulU32U24, VMulHiU32U24, VMinI32, VMaxI32, VMinU32,
        VMaxU32, VLshrrevB32, VAshrrevI32, VLshlrevB32, VAndB32, VOrB32, VXorB32, VXnorB32, VBcntU32B32,
        VBfmB32, VMulLoU32, VMulLoI32, VMulHiU32, VMulHiI32, VMadU32U24, VMadI32I24, VBfeU32, VBfeI32,
        VBfiB32, VAlignbitB32, VAlignbyteB32, VMin3I32, VMax3I32, VMed3I32, VMin3U32, VMax3U32, VMed3U32,
        VLshlAddU32, VAddLshlU32, VAdd3U32, VLshlOrB32, VAndOrB32, VOr3B32, VXor3B32, VXadU32, VPermB32,
        VSadU8, VSadHiU8, VMsadU8, VSadU16, VSadU32, VLerpU8, VCvtPkU16U32, VCvtPkI16I32, VSatPkU8I16,
    );
}

/// The lane mask of a 32-bit integer compare over a whole row (every lane; the caller keeps EXEC's).
fn cmp_rows<const N: usize>(w: &Wave, kind: CmpKind, signed: bool, a: Src, b: Src) -> u64 {
    let (a, b) = (row::<N>(w, a), row::<N>(w, b));
    let mut m = 0u64;
    macro_rules! lanes {
        ($f:expr) => {{
            let f = $f;
            for i in 0..N {
                m |= (f(a[i], b[i]) as u64) << i;
            }
        }};
    }
    match (kind, signed) {
        (CmpKind::F, _) => {}
        (CmpKind::T, _) => m = u64::MAX >> (64 - N),
        (CmpKind::Lt, false) => lanes!(|x: u32, y: u32| x < y),
        (CmpKind::Eq, _) => lanes!(|x: u32, y: u32| x == y),
        (CmpKind::Le, false) => lanes!(|x: u32, y: u32| x <= y),
        (CmpKind::Gt, false) => lanes!(|x: u32, y: u32| x > y),
        (CmpKind::Ne, _) => lanes!(|x: u32, y: u32| x != y),
        (CmpKind::Ge, false) => lanes!(|x: u32, y: u32| x >= y),
        (CmpKind::Lt, true) => lanes!(|x: u32, y: u32| (x as i32) < (y as i32)),
        (CmpKind::Le, true) => lanes!(|x: u32, y: u32| (x as i32) <= (y as i32)),
        (CmpKind::Gt, true) => lanes!(|x: u32, y: u32| (x as i32) > (y as i32)),
        (CmpKind::Ge, true) => lanes!(|x: u32, y: u32| (x as i32) >= (y as i32)),
    }
    m
}

fn cndmask_rows<const N: usize>(w: &mut Wave, dst: u8, a: Src, b: Src, cond: u64) {
    let exec = w.exec();
    if exec == 0 {
        return;
    }
    let (a, b) = (row::<N>(w, a), row::<N>(w, b));
    let mut out = [0u32; N];
    for i in 0..N {
        out[i] = if cond >> i & 1 == 1 { b[i] } else { a[i] };
    }
    write_row(w, dst, exec, &out);
}

#[allow(clippy::too_many_arguments)]
fn f32_rows<const N: usize>(
    w: &mut Wave,
    op: Op,
    mode: Mode,
    dst: u8,
    src: &[Src; 3],
    and: &[u32; 3],
    xor: &[u32; 3],
    post: Option<(Omod, bool)>,
) {
    let exec = w.exec();
    if exec == 0 {
        return;
    }
    let (a, b, c) = (
        row::<N>(w, src[0]),
        row::<N>(w, src[1]),
        row::<N>(w, src[2]),
    );
    let mut out = [0u32; N];
    // The soft-float calls are the cost here: only the lanes of EXEC compute.
    for i in (0..N).filter(|&i| exec >> i & 1 == 1) {
        let v = f32_lane(
            op,
            mode,
            a[i] & and[0] ^ xor[0],
            b[i] & and[1] ^ xor[1],
            c[i] & and[2] ^ xor[2],
        );
        out[i] = match post {
            Some((omod, clamp)) => fp::omod_clamp_f32(mode, v, omod, clamp),
            None => v,
        };
    }
    write_row(w, dst, exec, &out);
}

#[cfg(test)]
mod tests {
    //! The compact forms against the general paths: random instructions of the encodings with fast forms, each
    //! run both ways on the same random wave, must leave the same registers, SCC, pc and state and give the same
    //! result.

    use super::*;
    use crate::exec::lds::Lds;
    use crate::exec::memory::GuestMemory;
    use crate::isa::{self, Target};

    /// xorshift64*: deterministic and dependency-free.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn pick<T: Copy>(&mut self, v: &[T]) -> T {
            v[self.below(v.len() as u64) as usize]
        }
    }

    /// A source code: a low VGPR, a low SGPR, VCC, EXEC, M0, NULL, an inline constant or a literal.
    fn source(r: &mut Rng) -> u32 {
        match r.below(8) {
            0..=2 => 256 + r.below(6) as u32,
            3 => r.below(8) as u32,
            4 => r.pick(&[106, 107, 124, 125, 126, 127]),
            5 => 128 + r.below(81) as u32,
            6 => 240 + r.below(9) as u32,
            _ => 255,
        }
    }

    /// Words of a random VALU or SALU instruction with its fields in small ranges (and a literal after it).
    fn words(r: &mut Rng) -> [u32; 3] {
        let lit = r.next() as u32;
        let vdst = r.below(6) as u32;
        let w = match r.below(9) {
            0 | 1 => (r.below(64) as u32) << 25 | vdst << 17 | (r.below(6) as u32) << 9 | source(r),
            2 => 0x7e00_0000 | vdst << 17 | (r.below(128) as u32) << 9 | source(r),
            3 => 0x7c00_0000 | (r.below(256) as u32) << 17 | (r.below(6) as u32) << 9 | source(r),
            4 | 5 => {
                // VOP3: a destination VGPR or, for compares, a scalar one; now and then neg/abs/omod/clamp.
                let dst = if r.below(2) == 0 {
                    vdst
                } else {
                    r.pick(&[0, 2, 106, 125])
                };
                let mods = if r.below(4) == 0 {
                    r.next() as u32 & 0x8700
                } else {
                    0
                };
                let w0 = 0xd400_0000 | (r.below(1024) as u32) << 16 | mods | dst;
                let neg = if r.below(4) == 0 {
                    r.next() as u32 & 0xf800_0000
                } else {
                    0
                };
                let src = |r: &mut Rng| match source(r) {
                    255 => 256 + r.below(6) as u32,
                    s => s,
                };
                let w1 = src(r) | src(r) << 9 | src(r) << 18 | neg;
                return [w0, w1, lit];
            }
            6 => {
                0x8000_0000
                    | (r.below(54) as u32) << 23
                    | (r.below(8) as u32) << 16
                    | source(r) << 8 & 0xff00
                    | source(r) & 0xff
            }
            7 => {
                0xbf00_0000
                    | (r.below(20) as u32) << 16
                    | (source(r) & 0xff) << 8
                    | source(r) & 0xff
            }
            _ => {
                if r.below(2) == 0 {
                    0xbf80_0000 | (r.below(16) as u32) << 16 | r.below(8) as u32
                } else {
                    0xb000_0000
                        | (r.below(4) as u32) << 23
                        | (r.below(8) as u32) << 16
                        | r.next() as u32 & 0xffff
                }
            }
        };
        [w, lit, 0]
    }

    fn random_wave(r: &mut Rng) -> Wave {
        let lanes = if r.below(2) == 0 { 32 } else { 64 };
        let mut w = Wave::new(lanes, 0);
        let special = [
            0u32,
            1,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0x0000_0001,
            0x807f_ffff,
            0x3f80_0000,
            0xffff_ffff,
            0x7fff_ffff,
        ];
        for reg in 0..8 {
            for lane in 0..64 {
                let v = if r.below(4) == 0 {
                    r.pick(&special)
                } else {
                    r.next() as u32
                };
                w.vset(reg, lane, v);
            }
        }
        for s in (0..16).chain([106, 107, 124, 126, 127]) {
            w.s[s] = if r.below(3) == 0 {
                r.pick(&special)
            } else {
                r.next() as u32
            };
        }
        if r.below(3) == 0 {
            w.set_exec(u64::MAX);
        }
        w.scc = r.below(2) == 0;
        w.mode = r.pick(&[0xc0u32, 0xf0, 0x3c3, 0x2f3, 0x1f0, 0x8000c0]);
        w.pc = 10;
        w
    }

    #[test]
    fn compact_forms_compute_what_the_general_paths_compute() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut seen = std::collections::BTreeMap::<&str, u32>::new();
        for case in 0..30_000 {
            let target = if case % 2 == 0 {
                Target::Gfx1013
            } else {
                Target::Gfx1030
            };
            let w = words(&mut r);
            let Ok(inst) = isa::decode(target, &w, 0) else {
                continue;
            };
            let fast = prepare(&inst, 9);
            let kind = match fast {
                Fast::VInt { .. } => "VInt",
                Fast::VCmp { .. } => "VCmp",
                Fast::VCndmask { .. } => "VCndmask",
                Fast::VF32 { .. } => "VF32",
                Fast::SAlu { .. } => "SAlu",
                Fast::SCmp { .. } => "SCmp",
                Fast::Branch { .. } => "Branch",
                Fast::Nop | Fast::End => "Nop/End",
                _ => continue,
            };
            *seen.entry(kind).or_default() += 1;
            let start = random_wave(&mut r);
            let (mut a, mut b) = (start.clone(), start);
            let (mut mem, mut lds) = (GuestMemory::new(), Lds::new(0));
            let p = Prepared {
                fast,
                size: inst.size as usize,
                inst,
            };
            let ra = run(
                &mut Ctx {
                    wave: &mut a,
                    mem: &mut mem,
                    lds: &mut lds,
                },
                &p,
                9,
            );
            let rb = Ctx {
                wave: &mut b,
                mem: &mut mem,
                lds: &mut lds,
            }
            .step_general(&inst, 9);
            let what = format!(
                "{inst} ({:08x?}), wave{}, mode {:#x}",
                inst.encoded(),
                a.lanes,
                a.mode
            );
            assert_eq!(ra, rb, "{what}");
            assert!(a.v == b.v, "VGPRs differ: {what}");
            assert_eq!(a.s, b.s, "SGPRs: {what}");
            assert_eq!(
                (a.scc, a.pc, a.done, a.at_barrier),
                (b.scc, b.pc, b.done, b.at_barrier),
                "{what}"
            );
        }
        for kind in [
            "VInt", "VCmp", "VCndmask", "VF32", "SAlu", "SCmp", "Branch", "Nop/End",
        ] {
            assert!(
                seen.get(kind).copied().unwrap_or(0) >= 20,
                "{kind}: {seen:?}"
            );
        }
    }

    #[test]
    fn compare_kinds_are_read_off_the_predicates() {
        assert_eq!(CmpKind::of(|a, b| a < b), CmpKind::Lt);
        assert_eq!(CmpKind::of(|a, b| a >= b), CmpKind::Ge);
        assert_eq!(CmpKind::of(|a, b| a != b), CmpKind::Ne);
        assert_eq!(CmpKind::of(|_, _| false), CmpKind::F);
        assert_eq!(CmpKind::of(|_, _| true), CmpKind::T);
    }
}
