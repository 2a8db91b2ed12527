//! Sweep modules: one unary float operation of the translator applied to a range of inputs, one host
//! invocation per input, for exhaustive comparisons with the model's float library (`conformance sweep`).
//!
//! A guest dispatch runs in one host workgroup (the crate docs say why), which would put a 2^32-input sweep
//! on one compute unit. A sweep module instead runs the operation's semantics, the same
//! `translate::float_value` the translator emits for the instruction, with the mode a constant, on every
//! invocation of a grid as wide as the device allows: what it checks is the float lowering of the
//! operation, not the register plumbing around it (the suites and the differential fuzzer check that).
//!
//! Bindings: storage buffer 0 receives one u32 per input (16-bit results in the low half, the high half
//! zero). Push constants: `base` (u32, offset 0), the first input, and `row` (u32, offset 4), the
//! invocations of one row of the grid: invocation `(x, y)` computes input `base + y * row + x` (wrapping;
//! 16-bit operations read its low half) into word `y * row + x`.

use crate::lower::{Bin, Lower, Ty};
use crate::sem::float as fp;
use crate::spv::{Emit, Sv};
use crate::translate::{float_op, float_value, FloatOp};
use crate::Refusal;
use reference_model::isa::Op;
use rspirv::spirv::{self, Op as SOp};

/// Invocations per workgroup of a sweep module.
pub const LOCAL_SIZE: u32 = 256;

/// What a sweep of one operation reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unary {
    /// The operation.
    pub op: Op,
    /// Bits of its source: 32, or 16 (then 2^16 inputs cover it).
    pub input_bits: u32,
    /// Bits of its result: 32, or 16.
    pub output_bits: u32,
}

/// The sweep shape of `op` when it is a one-source operation of the float engine (conversions, rounding,
/// fract, frexp, reciprocals and roots, 2^x and log2); `None` otherwise.
pub fn unary(op: Op) -> Option<Unary> {
    let (fmt, f) = float_op(op)?;
    // 2^64 inputs are no sweep.
    if fmt == fp::F64 || crate::translate::source_fmt(fmt, f) == fp::F64 {
        return None;
    }
    let one_source = matches!(
        f,
        FloatOp::RoundInt(_)
            | FloatOp::FromInt(_)
            | FloatOp::Ubyte(_)
            | FloatOp::OffI4
            | FloatOp::ToInt(_)
            | FloatOp::FloorToInt(_)
            | FloatOp::Narrow
            | FloatOp::Widen
            | FloatOp::ToInt16(_)
            | FloatOp::Fract
            | FloatOp::FrexpMant
            | FloatOp::FrexpExp
            | FloatOp::Recip(_)
            | FloatOp::Exp2
            | FloatOp::Log2
            | FloatOp::SinCos(_)
    );
    if !one_source {
        return None;
    }
    let half = fmt == fp::F16;
    Some(Unary {
        op,
        input_bits: if half && f != FloatOp::Narrow || f == FloatOp::Widen {
            16
        } else {
            32
        },
        output_bits: if half { 16 } else { 32 },
    })
}

/// Every operation [`unary`] accepts, in the model's opcode order.
pub fn unary_ops() -> Vec<Op> {
    reference_model::isa::ALL_OPS
        .iter()
        .copied()
        .filter(|&op| unary(op).is_some())
        .collect()
}

/// The SPIR-V module computing `op` in MODE register value `mode` (rule `mode.hwreg_layout`; the
/// `FloatMode::to_hwreg` of the model), as the module docs lay out; the float engine's fixed-step
/// computations are loops when `rolled` ([`crate::Shape::rolled_loops`]).
pub fn module(op: Op, mode: u32, rolled: bool) -> Result<Vec<u32>, Refusal> {
    let Some(shape) = unary(op) else {
        return Err(Refusal {
            instruction: op.mnemonic().to_string(),
            reason: "not a one-source operation of the float engine: a sweep takes the unary conversions, \
                     rounding, fract and frexp"
                .to_string(),
        });
    };
    let (fmt, f) = float_op(op).expect("unary implies an engine operation");
    let mut e = Emit::new();
    e.rolled_loops = rolled;
    let void = e.t_void();
    let fn_ty = e.b.ty(SOp::TypeFunction, &[void]);
    let u = e.t_u32();
    let v3 = e.b.ty(SOp::TypeVector, &[u, 3]);
    let gid = e.builtin_input(v3, spirv::BuiltIn::GlobalInvocationId);
    let pc_ty = e.b.type_struct(&[u, u]);
    e.b.decorate(pc_ty, spirv::Decoration::Block, &[]);
    e.b.member_decorate(pc_ty, 0, spirv::Decoration::Offset, &[0]);
    e.b.member_decorate(pc_ty, 1, spirv::Decoration::Offset, &[4]);
    let p_pc = e.t_ptr(spirv::StorageClass::PushConstant, pc_ty);
    let pc = e.b.global(
        SOp::Variable,
        p_pc,
        &[spirv::StorageClass::PushConstant as u32],
    );
    let out = e.storage_buffer(0, "results");

    let main =
        e.b.begin_function(void, spirv::FunctionControl::NONE, fn_ty);
    e.b.name(main, &format!("sweep_{}", op.mnemonic()));
    let entry = e.b.id();
    e.block(entry);
    let p_u = e.t_ptr(spirv::StorageClass::PushConstant, u);
    let member = |e: &mut Emit, i: u32| {
        let k = e.c32(i);
        let p = e.b.res(SOp::AccessChain, p_u, &[pc, k]);
        let id = e.b.res(SOp::Load, u, &[p]);
        Sv { id, ty: Ty::I32 }
    };
    let base = member(&mut e, 0);
    let row = member(&mut e, 1);
    let g = e.b.res(SOp::Load, v3, &[gid]);
    let x = e.b.res(SOp::CompositeExtract, u, &[g, 0]);
    let y = e.b.res(SOp::CompositeExtract, u, &[g, 1]);
    let (x, y) = (Sv { id: x, ty: Ty::I32 }, Sv { id: y, ty: Ty::I32 });
    let yr = e.bin(Bin::Mul, y, row);
    let idx = e.bin(Bin::Add, yr, x);
    let input = e.bin(Bin::Add, base, idx);
    let a = if shape.input_bits == 16 {
        e.bink(Bin::And, input, 0xffff)
    } else {
        input
    };
    let mode = e.k32(mode);
    let env = if fmt == fp::F16 {
        fp::env16(&mut e, mode)
    } else {
        fp::env(&mut e, mode)
    };
    let z = e.k32(0);
    let r = float_value(&mut e, &env, mode, f, [a, z, z]);
    let r = if shape.output_bits == 16 {
        e.bink(Bin::And, r, 0xffff)
    } else {
        r
    };
    let ptr = e.elem(out, idx.id);
    e.store(ptr, r);
    e.b.op(SOp::Return, &[]);
    e.b.end_function();
    e.b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", &[gid]);
    e.b.execution_mode(main, spirv::ExecutionMode::LocalSize, &[LOCAL_SIZE, 1, 1]);
    let words = std::mem::take(&mut e.b).assemble();
    crate::audit::check(&words).map_err(|why| Refusal {
        instruction: op.mnemonic().to_string(),
        reason: format!("the static check found an undefined operation ({why}); a recompiler bug"),
    })?;
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unary_operations_are_the_one_source_ones() {
        let ops = unary_ops();
        for op in [
            Op::VFractF32,
            Op::VFrexpMantF32,
            Op::VCvtI32F32,
            Op::VFloorF16,
            Op::VCvtF16F32,
        ] {
            assert!(ops.contains(&op), "{op:?}");
        }
        assert!(!ops.contains(&Op::VAddF32));
        assert!(!ops.contains(&Op::VLdexpF32));
        assert_eq!(unary(Op::VCvtF16F32).unwrap().input_bits, 32);
        assert_eq!(unary(Op::VCvtF16F32).unwrap().output_bits, 16);
        assert_eq!(unary(Op::VFractF16).unwrap().input_bits, 16);
        assert_eq!(unary(Op::VCvtF32F16).unwrap().input_bits, 16);
        assert_eq!(unary(Op::VCvtF32F16).unwrap().output_bits, 32);
        assert!(module(Op::VAddF32, 0, false).is_err());
        // The loop form holds one step of v_log's 62 squarings.
        let rolled = module(Op::VLogF32, 0xc0, true).unwrap().len();
        let unrolled = module(Op::VLogF32, 0xc0, false).unwrap().len();
        assert!(
            4 * rolled < unrolled,
            "{rolled} words rolled, {unrolled} unrolled"
        );
        // Every sweep module passes the static check (module() refuses one that does not).
        for op in unary_ops() {
            for (mode, rolled) in [(0xc0, false), (0x2f3, true), (0x8000ff, false)] {
                module(op, mode, rolled)
                    .unwrap_or_else(|r| panic!("{}: {}", r.instruction, r.reason));
            }
        }
    }
}
