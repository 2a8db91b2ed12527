//! Read-modify-write operations of the LDS, buffer, global and flat atomics: the new memory value from the
//! old one and the data, as `reference_model::exec::mem_ops` applies them: the integer operations at 32 or
//! 64 bits (the old value's width), and the f32 LDS ones through the float engine (rules `lds.float_minmax` and
//! `lds.float_cmpst`, measured by seed 003; `lds.add_f32`, inferred). f64 LDS atomics wait for an f64 engine.

use crate::lower::{Bin, Cmp, Lower};
use crate::sem::float as fp;
use reference_model::isa::Op;

/// The operation an atomic or LDS read-modify-write applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rmw {
    /// old + d0.
    Add,
    /// old - d0.
    Sub,
    /// d0 - old.
    Rsub,
    /// old - d0 clamped at 0 (gfx1030's csub).
    Csub,
    /// old >= d0 ? 0 : old + 1.
    Inc,
    /// old == 0 || old > d0 ? d0 : old - 1.
    Dec,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// And.
    And,
    /// Or.
    Or,
    /// Exclusive or.
    Xor,
    /// (old & !d0) | d1.
    Mskor,
    /// d0.
    Swap,
    /// old == d0 ? d1 : old (LDS compare-store).
    CmpSt,
    /// old == d1 ? d0 : old (buffer, global and flat compare-swap: source data first).
    CmpSwap,
    /// old >= d0 ? old - d0 : old + d1.
    Wrap,
    /// f32 minimum by the LDS rule (`reference_model::float::lds_min_f32`).
    FMin,
    /// f32 maximum by the LDS rule.
    FMax,
    /// f32 compare-store: d1 where the flushed old value equals the flushed d0 as floats, else old.
    FCmpSt,
    /// f32 add with IEEE_MODE taken as 0.
    FAdd,
    /// f32 compare-swap of buffer, global and flat memory: [`Rmw::FCmpSt`] with the compare value in d1
    /// and the source in d0 (rule `atomic.float_non_lds`).
    FCmpSwap,
    /// f64 minimum by the LDS rule with the f16/f64 denormal field (`reference_model::float::lds_min_f64`).
    FMin64,
    /// f64 maximum by the LDS rule.
    FMax64,
    /// f64 compare-store (LDS operand order: compare d0, source d1).
    FCmpSt64,
    /// f64 compare-swap of buffer, global and flat memory (compare d1, source d0).
    FCmpSwap64,
}

impl Rmw {
    /// Whether the operation is an f32 one (it reads the MODE register; 32-bit only).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Rmw::FMin | Rmw::FMax | Rmw::FCmpSt | Rmw::FAdd | Rmw::FCmpSwap
        )
    }

    /// Whether the operation is an f64 one (it reads the MODE register; 64-bit only).
    pub fn is_float64(self) -> bool {
        matches!(
            self,
            Rmw::FMin64 | Rmw::FMax64 | Rmw::FCmpSt64 | Rmw::FCmpSwap64
        )
    }
}

/// The read-modify-write `op` applies (the model's `atomic32`/`atomic64` tables), `None` for an operation
/// that is none.
pub fn rmw_of(op: Op) -> Option<Rmw> {
    use Op::*;
    Some(match op {
        DsAddU32 | DsAddRtnU32 | DsAddSrc2U32 | BufferAtomicAdd | GlobalAtomicAdd
        | FlatAtomicAdd | DsAddU64 | DsAddRtnU64 | DsAddSrc2U64 | BufferAtomicAddX2
        | GlobalAtomicAddX2 | FlatAtomicAddX2 => Rmw::Add,
        DsSubU32 | DsSubRtnU32 | DsSubSrc2U32 | BufferAtomicSub | GlobalAtomicSub
        | FlatAtomicSub | DsSubU64 | DsSubRtnU64 | DsSubSrc2U64 | BufferAtomicSubX2
        | GlobalAtomicSubX2 | FlatAtomicSubX2 => Rmw::Sub,
        DsRsubU32 | DsRsubRtnU32 | DsRsubSrc2U32 | DsRsubU64 | DsRsubRtnU64 | DsRsubSrc2U64 => {
            Rmw::Rsub
        }
        BufferAtomicCsub | GlobalAtomicCsub => Rmw::Csub,
        DsIncU32 | DsIncRtnU32 | DsIncSrc2U32 | BufferAtomicInc | GlobalAtomicInc
        | FlatAtomicInc | DsIncU64 | DsIncRtnU64 | DsIncSrc2U64 | BufferAtomicIncX2
        | GlobalAtomicIncX2 | FlatAtomicIncX2 => Rmw::Inc,
        DsDecU32 | DsDecRtnU32 | DsDecSrc2U32 | BufferAtomicDec | GlobalAtomicDec
        | FlatAtomicDec | DsDecU64 | DsDecRtnU64 | DsDecSrc2U64 | BufferAtomicDecX2
        | GlobalAtomicDecX2 | FlatAtomicDecX2 => Rmw::Dec,
        DsMinI32 | DsMinRtnI32 | DsMinSrc2I32 | BufferAtomicSmin | GlobalAtomicSmin
        | FlatAtomicSmin | DsMinI64 | DsMinRtnI64 | DsMinSrc2I64 | BufferAtomicSminX2
        | GlobalAtomicSminX2 | FlatAtomicSminX2 => Rmw::SMin,
        DsMaxI32 | DsMaxRtnI32 | DsMaxSrc2I32 | BufferAtomicSmax | GlobalAtomicSmax
        | FlatAtomicSmax | DsMaxI64 | DsMaxRtnI64 | DsMaxSrc2I64 | BufferAtomicSmaxX2
        | GlobalAtomicSmaxX2 | FlatAtomicSmaxX2 => Rmw::SMax,
        DsMinU32 | DsMinRtnU32 | DsMinSrc2U32 | BufferAtomicUmin | GlobalAtomicUmin
        | FlatAtomicUmin | DsMinU64 | DsMinRtnU64 | DsMinSrc2U64 | BufferAtomicUminX2
        | GlobalAtomicUminX2 | FlatAtomicUminX2 => Rmw::UMin,
        DsMaxU32 | DsMaxRtnU32 | DsMaxSrc2U32 | BufferAtomicUmax | GlobalAtomicUmax
        | FlatAtomicUmax | DsMaxU64 | DsMaxRtnU64 | DsMaxSrc2U64 | BufferAtomicUmaxX2
        | GlobalAtomicUmaxX2 | FlatAtomicUmaxX2 => Rmw::UMax,
        DsAndB32 | DsAndRtnB32 | DsAndSrc2B32 | BufferAtomicAnd | GlobalAtomicAnd
        | FlatAtomicAnd | DsAndB64 | DsAndRtnB64 | DsAndSrc2B64 | BufferAtomicAndX2
        | GlobalAtomicAndX2 | FlatAtomicAndX2 => Rmw::And,
        DsOrB32 | DsOrRtnB32 | DsOrSrc2B32 | BufferAtomicOr | GlobalAtomicOr | FlatAtomicOr
        | DsOrB64 | DsOrRtnB64 | DsOrSrc2B64 | BufferAtomicOrX2 | GlobalAtomicOrX2
        | FlatAtomicOrX2 => Rmw::Or,
        DsXorB32 | DsXorRtnB32 | DsXorSrc2B32 | BufferAtomicXor | GlobalAtomicXor
        | FlatAtomicXor | DsXorB64 | DsXorRtnB64 | DsXorSrc2B64 | BufferAtomicXorX2
        | GlobalAtomicXorX2 | FlatAtomicXorX2 => Rmw::Xor,
        DsMskorB32 | DsMskorRtnB32 | DsMskorB64 | DsMskorRtnB64 => Rmw::Mskor,
        DsWrxchgRtnB32 | DsWriteSrc2B32 | BufferAtomicSwap | GlobalAtomicSwap | FlatAtomicSwap
        | DsWrxchgRtnB64 | DsWriteSrc2B64 | BufferAtomicSwapX2 | GlobalAtomicSwapX2
        | FlatAtomicSwapX2 => Rmw::Swap,
        DsCmpstB32 | DsCmpstRtnB32 | DsCmpstB64 | DsCmpstRtnB64 => Rmw::CmpSt,
        BufferAtomicCmpswap
        | GlobalAtomicCmpswap
        | FlatAtomicCmpswap
        | BufferAtomicCmpswapX2
        | GlobalAtomicCmpswapX2
        | FlatAtomicCmpswapX2 => Rmw::CmpSwap,
        DsWrapRtnB32 => Rmw::Wrap,
        DsMinF32 | DsMinRtnF32 => Rmw::FMin,
        DsMaxF32 | DsMaxRtnF32 => Rmw::FMax,
        DsCmpstF32 | DsCmpstRtnF32 => Rmw::FCmpSt,
        DsAddF32 | DsAddRtnF32 => Rmw::FAdd,
        // Buffer, global and flat float atomics take the LDS float rules (rule atomic.float_non_lds,
        // inferred, as the model).
        BufferAtomicFmin | GlobalAtomicFmin | FlatAtomicFmin => Rmw::FMin,
        BufferAtomicFmax | GlobalAtomicFmax | FlatAtomicFmax => Rmw::FMax,
        BufferAtomicFcmpswap | GlobalAtomicFcmpswap | FlatAtomicFcmpswap => Rmw::FCmpSwap,
        DsMinF64 | DsMinRtnF64 | BufferAtomicFminX2 | GlobalAtomicFminX2 | FlatAtomicFminX2 => {
            Rmw::FMin64
        }
        DsMaxF64 | DsMaxRtnF64 | BufferAtomicFmaxX2 | GlobalAtomicFmaxX2 | FlatAtomicFmaxX2 => {
            Rmw::FMax64
        }
        DsCmpstF64 | DsCmpstRtnF64 => Rmw::FCmpSt64,
        BufferAtomicFcmpswapX2 | GlobalAtomicFcmpswapX2 | FlatAtomicFcmpswapX2 => Rmw::FCmpSwap64,
        _ => return None,
    })
}

/// The new memory value; `mode` is the MODE register value (read by the float operations, whose operands
/// are 32-bit, or 64-bit for the f64 ones).
pub fn apply<L: Lower>(l: &mut L, op: Rmw, old: L::V, d0: L::V, d1: L::V, mode: L::V) -> L::V {
    match op {
        Rmw::Add => l.bin(Bin::Add, old, d0),
        Rmw::Sub => l.bin(Bin::Sub, old, d0),
        Rmw::Rsub => l.bin(Bin::Sub, d0, old),
        Rmw::Csub => {
            let r = l.bin(Bin::Sub, old, d0);
            let under = l.cmp(Cmp::ULt, old, d0);
            let z = l.zero_like(old);
            l.select(under, z, r)
        }
        Rmw::Inc => {
            let wrap = l.cmp(Cmp::UGe, old, d0);
            let z = l.zero_like(old);
            let n = l.bink(Bin::Add, old, 1);
            l.select(wrap, z, n)
        }
        Rmw::Dec => {
            let z = l.zero_like(old);
            let zero = l.cmp(Cmp::Eq, old, z);
            let above = l.cmp(Cmp::UGt, old, d0);
            let reset = l.bor(zero, above);
            let n = l.bink(Bin::Sub, old, 1);
            l.select(reset, d0, n)
        }
        Rmw::SMin => l.bin(Bin::SMin, old, d0),
        Rmw::SMax => l.bin(Bin::SMax, old, d0),
        Rmw::UMin => l.bin(Bin::UMin, old, d0),
        Rmw::UMax => l.bin(Bin::UMax, old, d0),
        Rmw::And => l.bin(Bin::And, old, d0),
        Rmw::Or => l.bin(Bin::Or, old, d0),
        Rmw::Xor => l.bin(Bin::Xor, old, d0),
        Rmw::Mskor => {
            let n = l.un(crate::lower::Un::Not, d0);
            let k = l.bin(Bin::And, old, n);
            l.bin(Bin::Or, k, d1)
        }
        Rmw::Swap => d0,
        Rmw::CmpSt => {
            let eq = l.cmp(Cmp::Eq, old, d0);
            l.select(eq, d1, old)
        }
        Rmw::CmpSwap => {
            let eq = l.cmp(Cmp::Eq, old, d1);
            l.select(eq, d0, old)
        }
        Rmw::Wrap => {
            let ge = l.cmp(Cmp::UGe, old, d0);
            let a = l.bin(Bin::Sub, old, d0);
            let b = l.bin(Bin::Add, old, d1);
            l.select(ge, a, b)
        }
        Rmw::FMin | Rmw::FMax => {
            let env = fp::env(l, mode);
            fp::lds_minmax(l, &env, old, d0, op == Rmw::FMax)
        }
        Rmw::FCmpSt => {
            let env = fp::env(l, mode);
            fp::lds_cmpst(l, &env, old, d0, d1)
        }
        Rmw::FCmpSwap => {
            let env = fp::env(l, mode);
            fp::lds_cmpst(l, &env, old, d1, d0)
        }
        Rmw::FMin64 | Rmw::FMax64 => {
            let env = fp::env64(l, mode);
            fp::lds_minmax(l, &env, old, d0, op == Rmw::FMax64)
        }
        Rmw::FCmpSt64 => {
            let env = fp::env64(l, mode);
            fp::lds_cmpst(l, &env, old, d0, d1)
        }
        Rmw::FCmpSwap64 => {
            let env = fp::env64(l, mode);
            fp::lds_cmpst(l, &env, old, d1, d0)
        }
        Rmw::FAdd => {
            let env = fp::env(l, mode);
            let env = fp::Env {
                ieee: l.kbool(false),
                ..env
            };
            fp::add(l, &env, old, d0)
        }
    }
}
