//! Instruction translation: what each instruction needs from the dispatcher ([`need`]) and its code
//! ([`inst`]). The values come from [`crate::sem`], run through the SPIR-V emitter; this module reads the
//! operands, applies the encoding's lane rules and writes the results.

use crate::compile::{refusal, sreg, Cx, Done};
use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::program::{flow, Flow, Need};
use crate::sem::float::{Fmt, Recip as R, F16, F32, F64};
use crate::sem::{salu, valu};
use crate::spv::{Emit, Sv};
use crate::units::Helper;
use crate::Refusal;
use reference_model::isa::{Control, Encoding, Form, Instruction, MemFields, Op, Operand, Role};

/// What `inst` needs from the dispatcher.
pub(crate) fn need(inst: &Instruction) -> Need {
    use Op::*;
    match inst.encoding {
        Encoding::Sopp => match inst.op {
            SBarrier | SEndpgm | SEndpgmSaved | SEndpgmOrderedPsDone | SSetkill => Need::Yield,
            _ if flow(inst, 0) != Flow::Next => Need::Branch,
            _ => Need::Local,
        },
        Encoding::Sop1 if matches!(inst.op, SSetpcB64 | SSwappcB64) => Need::Branch,
        Encoding::Sopk if inst.op == SCallB64 => Need::Branch,
        Encoding::Vopc => Need::Exchange,
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vop3 | Encoding::Vop3p => {
            if matches!(inst.control, Control::Dpp16(_) | Control::Dpp8(_))
                || inst.operand(Role::Sdst).is_some() && inst.encoding == Encoding::Vop3
                || matches!(
                    inst.op,
                    VReadlaneB32 | VReadfirstlaneB32 | VPermlane16B32 | VPermlanex16B32
                )
                || is_carry(inst.op) && inst.form != Form::E64 && inst.encoding == Encoding::Vop2
                || valu::int_compare(inst.op).is_some()
                || float_compare(inst.op).is_some()
                || class_test(inst.op).is_some()
            {
                Need::Exchange
            } else {
                Need::Local
            }
        }
        Encoding::Mubuf | Encoding::Mtbuf | Encoding::Flat => {
            if writes_memory(inst.op) {
                Need::Serial
            } else {
                Need::Local
            }
        }
        Encoding::Smem => {
            if inst.op.mnemonic().starts_with("s_store")
                || inst.op.mnemonic().starts_with("s_buffer_store")
            {
                Need::Serial
            } else {
                Need::Local
            }
        }
        Encoding::Ds => Need::Serial,
        _ => Need::Local,
    }
}

fn is_carry(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32
    )
}

/// Memory instructions that write memory (stores and atomics).
fn writes_memory(op: Op) -> bool {
    let m = op.mnemonic();
    m.contains("_store") || m.contains("_atomic")
}

fn mem_fields(inst: &Instruction) -> MemFields {
    match inst.control {
        Control::Mem(f) => f,
        _ => MemFields::default(),
    }
}

/// Translates `inst` at word `pc` into the current segment.
pub(crate) fn inst(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    match inst.encoding {
        Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopc | Encoding::Sopk => scalar(cx, inst, pc),
        Encoding::Sopp => sopp(cx, inst, pc),
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 | Encoding::Vop3p => {
            vector(cx, inst, pc)
        }
        Encoding::Smem => smem(cx, inst, pc),
        Encoding::Mubuf | Encoding::Mtbuf => buffer(cx, inst, pc),
        Encoding::Flat => global(cx, inst, pc),
        Encoding::Ds => crate::ds::ds(cx, inst, pc),
        _ => Err(refusal(
            inst,
            pc,
            "this encoding is not translated yet (the model may run it; the recompiler refuses it)",
        )),
    }
}

// -------------------------------------------------------------------------------------------------
// Scalar ALU.

fn scalar(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    let op = inst.op;
    let f = op.facts();
    let read = |cx: &mut Cx, role: Role, dwords: u8| -> Result<Sv, Refusal> {
        let o = cx.op(inst, role, pc)?;
        if dwords == 2 {
            cx.sread64(o, false, inst, pc)
        } else {
            cx.sread(o, false, inst, pc)
        }
    };
    let write = |cx: &mut Cx, v: Sv| -> Result<(), Refusal> {
        let d = cx.op(inst, Role::Sdst, pc)?;
        if v.ty == Ty::I64 {
            cx.swrite64(d, v, inst, pc)
        } else {
            cx.swrite(d, v, inst, pc)
        }
    };
    match inst.encoding {
        Encoding::Sop2 => {
            let a = read(cx, Role::Src0, f.src_dwords[0])?;
            let b = read(cx, Role::Src1, f.src_dwords[1])?;
            let scc = cx.scc();
            let Some(o) = salu::sop2(&mut cx.e, op, a, b, scc) else {
                return Err(refusal(inst, pc, "scalar operation not translated"));
            };
            if let Some(d) = o.dst {
                write(cx, d)?;
            }
            if let Some(c) = o.scc {
                cx.set_scc(c);
            }
            Ok(Done::Next)
        }
        Encoding::Sopc => {
            let a = read(cx, Role::Src0, f.src_dwords[0])?;
            let b = read(cx, Role::Src1, f.src_dwords[1])?;
            let Some(c) = salu::sopc(&mut cx.e, op, a, b) else {
                return Err(refusal(inst, pc, "scalar compare not translated"));
            };
            cx.set_scc(c);
            Ok(Done::Next)
        }
        Encoding::Sop1 => sop1(cx, inst, pc),
        _ => sopk(cx, inst, pc),
    }
}

fn sop1(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use Op::*;
    let op = inst.op;
    let f = op.facts();
    let mn = op.mnemonic();
    if let Some(kind) = saveexec_kind(op) {
        let wide = mn.ends_with("b64");
        let s = if wide {
            let o = cx.op(inst, Role::Src0, pc)?;
            cx.sread64(o, false, inst, pc)?
        } else {
            let o = cx.op(inst, Role::Src0, pc)?;
            let v = cx.sread(o, false, inst, pc)?;
            cx.e.zext(v)
        };
        let lo = cx.sget(sreg::EXEC_LO);
        let hi = cx.sget(sreg::EXEC_HI);
        let pair = cx.e.pack(lo, hi);
        let old = if wide {
            pair
        } else {
            cx.e.bink(Bin::And, pair, 0xffff_ffff)
        };
        let e = &mut cx.e;
        let (ns, ne) = (
            e.un(crate::lower::Un::Not, s),
            e.un(crate::lower::Un::Not, old),
        );
        let new = match kind.0 {
            "and" => e.bin(Bin::And, s, old),
            "or" => e.bin(Bin::Or, s, old),
            "xor" => e.bin(Bin::Xor, s, old),
            "andn2" => e.bin(Bin::And, s, ne),
            "orn2" => e.bin(Bin::Or, s, ne),
            "nand" => {
                let x = e.bin(Bin::And, s, old);
                e.un(crate::lower::Un::Not, x)
            }
            "nor" => {
                let x = e.bin(Bin::Or, s, old);
                e.un(crate::lower::Un::Not, x)
            }
            "xnor" => {
                let x = e.bin(Bin::Xor, s, old);
                e.un(crate::lower::Un::Not, x)
            }
            "andn1" => e.bin(Bin::And, ns, old),
            _ => e.bin(Bin::Or, ns, old),
        };
        let new = if wide {
            new
        } else {
            e.bink(Bin::And, new, 0xffff_ffff)
        };
        // The destination is written before EXEC (a destination of EXEC itself is overwritten).
        let shown = if kind.1 { new } else { old };
        let d = cx.op(inst, Role::Sdst, pc)?;
        if wide {
            cx.swrite64(d, shown, inst, pc)?;
            let h = cx.e.hi(new);
            cx.sset(sreg::EXEC_HI, h);
        } else {
            let t = cx.e.trunc(shown);
            cx.swrite(d, t, inst, pc)?;
        }
        let l = cx.e.trunc(new);
        cx.sset(sreg::EXEC_LO, l);
        let nz = cx.e.nz(new);
        cx.set_scc(nz);
        return Ok(Done::Next);
    }
    match op {
        SCmovB32 | SCmovB64 => {
            let o = cx.op(inst, Role::Src0, pc)?;
            let d = cx.op(inst, Role::Sdst, pc)?;
            let scc = cx.scc();
            if op == SCmovB32 {
                let a = cx.sread(o, false, inst, pc)?;
                let old = cx.sread(d, false, inst, pc)?;
                let v = cx.e.select(scc, a, old);
                cx.swrite(d, v, inst, pc)?;
            } else {
                let a = cx.sread64(o, false, inst, pc)?;
                let old = cx.sread64(d, false, inst, pc)?;
                let v = cx.e.select(scc, a, old);
                cx.swrite64(d, v, inst, pc)?;
            }
            Ok(Done::Next)
        }
        SBitset0B32 | SBitset1B32 | SBitset0B64 | SBitset1B64 => {
            let o = cx.op(inst, Role::Src0, pc)?;
            let d = cx.op(inst, Role::Sdst, pc)?;
            let b = cx.sread(o, false, inst, pc)?;
            let wide = matches!(op, SBitset0B64 | SBitset1B64);
            let old = if wide {
                cx.sread64(d, false, inst, pc)?
            } else {
                cx.sread(d, false, inst, pc)?
            };
            let e = &mut cx.e;
            let amount = if wide { e.zext(b) } else { b };
            let one = e.k_like(old, 1);
            let bit = e.bin(Bin::Shl, one, amount);
            let v = if matches!(op, SBitset1B32 | SBitset1B64) {
                e.bin(Bin::Or, old, bit)
            } else {
                let nb = e.un(crate::lower::Un::Not, bit);
                e.bin(Bin::And, old, nb)
            };
            if wide {
                cx.swrite64(d, v, inst, pc)?;
            } else {
                cx.swrite(d, v, inst, pc)?;
            }
            Ok(Done::Next)
        }
        SGetpcB64 => {
            let next = cx.e.k64(4 * (pc as u64 + inst.size as u64));
            let d = cx.op(inst, Role::Sdst, pc)?;
            cx.swrite64(d, next, inst, pc)?;
            Ok(Done::Next)
        }
        SSetpcB64 | SSwappcB64 => {
            let o = cx.op(inst, Role::Src0, pc)?;
            let a = cx.sread64(o, false, inst, pc)?;
            if op == SSwappcB64 {
                let next = cx.e.k64(4 * (pc as u64 + inst.size as u64));
                let d = cx.op(inst, Role::Sdst, pc)?;
                cx.swrite64(d, next, inst, pc)?;
            }
            cx.jump_indirect(a);
            Ok(Done::Ended)
        }
        SMovrelsB32 | SMovrelsB64 | SMovreldB32 | SMovreldB64 | SMovrelsd2B32 => {
            let reg = |o: Option<Operand>| match o {
                Some(Operand::Sgpr { first, .. }) => Ok(first as u32),
                _ => Err(refusal(inst, pc, "relative addressing needs SGPR operands")),
            };
            let (src, dst) = (
                reg(inst.operand(Role::Src0))?,
                reg(inst.operand(Role::Sdst))?,
            );
            let m0 = cx.sget(sreg::M0);
            let (s, d) = {
                let e = &mut cx.e;
                let sk = e.k32(src);
                let dk = e.k32(dst);
                match op {
                    SMovrelsB32 | SMovrelsB64 => (e.bin(Bin::Add, sk, m0), dk),
                    SMovreldB32 | SMovreldB64 => (sk, e.bin(Bin::Add, dk, m0)),
                    _ => {
                        let lo = e.bink(Bin::And, m0, 0x3ff);
                        let hi = e.field(m0, 16, 10);
                        (e.bin(Bin::Add, sk, lo), e.bin(Bin::Add, dk, hi))
                    }
                }
            };
            let n = if matches!(op, SMovrelsB64 | SMovreldB64) {
                2
            } else {
                1
            };
            // Rule salu.movrel_range: past the SGPR file reads give 0 and writes are dropped. Reads first.
            let mut vals = Vec::new();
            for i in 0..n {
                let si = cx.e.bink(Bin::Add, s, i);
                vals.push(cx.sget_dyn(si));
            }
            for (i, v) in vals.into_iter().enumerate() {
                let di = cx.e.bink(Bin::Add, d, i as u64);
                cx.sset_dyn(di, v);
            }
            Ok(Done::Next)
        }
        _ => {
            let a = {
                let o = cx.op(inst, Role::Src0, pc)?;
                if f.src_dwords[0] == 2 {
                    cx.sread64(o, false, inst, pc)?
                } else {
                    cx.sread(o, false, inst, pc)?
                }
            };
            let Some(o) = salu::sop1(&mut cx.e, op, a) else {
                return Err(refusal(inst, pc, "scalar operation not translated"));
            };
            if let Some(d) = o.dst {
                let dst = cx.op(inst, Role::Sdst, pc)?;
                if d.ty == Ty::I64 {
                    cx.swrite64(dst, d, inst, pc)?;
                } else {
                    cx.swrite(dst, d, inst, pc)?;
                }
            }
            if let Some(c) = o.scc {
                cx.set_scc(c);
            }
            Ok(Done::Next)
        }
    }
}

/// The saveexec/wrexec forms: (operation, writes the new EXEC to the destination).
fn saveexec_kind(op: Op) -> Option<(&'static str, bool)> {
    let m = op.mnemonic();
    let (body, wr) = if let Some(b) = m
        .strip_suffix("_saveexec_b32")
        .or(m.strip_suffix("_saveexec_b64"))
    {
        (b, false)
    } else if let Some(b) = m
        .strip_suffix("_wrexec_b32")
        .or(m.strip_suffix("_wrexec_b64"))
    {
        (b, true)
    } else {
        return None;
    };
    let k = body.strip_prefix("s_")?;
    Some((
        match k {
            "and" => "and",
            "or" => "or",
            "xor" => "xor",
            "andn2" => "andn2",
            "orn2" => "orn2",
            "nand" => "nand",
            "nor" => "nor",
            "xnor" => "xnor",
            "andn1" => "andn1",
            "orn1" => "orn1",
            _ => return None,
        },
        wr,
    ))
}

fn sopk(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use Op::*;
    let op = inst.op;
    let k = crate::program::simm16(inst);
    match op {
        SCallB64 => {
            let next = cx.e.k64(4 * (pc as u64 + inst.size as u64));
            let d = cx.op(inst, Role::Sdst, pc)?;
            cx.swrite64(d, next, inst, pc)?;
            let Flow::Jump(t) = flow(inst, pc) else {
                unreachable!("s_call jumps")
            };
            cx.jump(t);
            return Ok(Done::Ended);
        }
        SWaitcntVscnt | SWaitcntVmcnt | SWaitcntExpcnt | SWaitcntLgkmcnt => return Ok(Done::Next),
        SGetregB32 | SSetregB32 | SSetregImm32B32 => {
            let (id, offset, size) = crate::program::hwreg_field(k);
            if id != 1 {
                return Err(refusal(
                    inst,
                    pc,
                    format!("hardware register {id} is not modelled (only HW_REG_MODE)"),
                ));
            }
            // HW_REG_MODE: the model keeps FP_ROUND, FP_DENORM, DX10_CLAMP, IEEE and FP16_OVFL (rule
            // mode.hwreg_layout); other bits read 0.
            let mode = cx.mode_word();
            if op == SGetregB32 {
                let e = &mut cx.e;
                let m = e.bink(Bin::And, mode, crate::program::MODE_MODELLED as u64);
                let v = e.bink(Bin::LShr, m, offset as u64);
                let v = if size >= 32 {
                    v
                } else {
                    e.bink(Bin::And, v, (1u64 << size) - 1)
                };
                let d = cx.op(inst, Role::Sdst, pc)?;
                cx.swrite(d, v, inst, pc)?;
            } else {
                let w = crate::program::mode_write(inst).expect("s_setreg of MODE writes MODE");
                let v = match op {
                    SSetregB32 => {
                        let o = inst.operand(Role::Sdst).or(inst.operand(Role::Src0));
                        let o = o.ok_or_else(|| refusal(inst, pc, "no source"))?;
                        cx.sread(o, false, inst, pc)?
                    }
                    _ => {
                        let o = inst.operand(Role::K).or(inst.operand(Role::Src0));
                        let o = o.ok_or_else(|| refusal(inst, pc, "no source"))?;
                        cx.sread(o, false, inst, pc)?
                    }
                };
                let placed = cx.e.bink(Bin::Shl, v, offset as u64);
                let placed = cx.e.bink(Bin::And, placed, w.mask as u64);
                cx.set_mode(w.mask, placed);
            }
            return Ok(Done::Next);
        }
        _ => {}
    }
    let d = inst
        .operand(Role::Sdst)
        .or(inst.operand(Role::Src0))
        .ok_or_else(|| refusal(inst, pc, "no register"))?;
    let old = cx.sread(d, false, inst, pc)?;
    let scc = cx.scc();
    let Some(o) = salu::sopk(&mut cx.e, op, k, old, scc) else {
        return Err(refusal(inst, pc, "scalar operation not translated"));
    };
    if let Some(v) = o.dst {
        cx.swrite(d, v, inst, pc)?;
    }
    if let Some(c) = o.scc {
        cx.set_scc(c);
    }
    Ok(Done::Next)
}

fn sopp(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use Op::*;
    let next = pc + inst.size as usize;
    match inst.op {
        SNop | SWaitcnt | SSetprio | SSleep | SIcacheInv | SIncperflevel | SDecperflevel
        | STtracedata | STtracedataImm | SInstPrefetch | SClause | SWaitcntDepctr | SCodeEnd
        | SVersion | SWaitIdle | SWakeup => Ok(Done::Next),
        // The debug conditions are false outside a debugger (rule salu.cdbg_not_taken).
        SCbranchCdbgsys | SCbranchCdbguser | SCbranchCdbgsysOrUser | SCbranchCdbgsysAndUser => {
            Ok(Done::Next)
        }
        SEndpgm | SEndpgmSaved | SEndpgmOrderedPsDone | SSetkill => {
            cx.end_wave();
            Ok(Done::Ended)
        }
        SSethalt => {
            if crate::program::simm16(inst) & 1 == 1 {
                return Err(refusal(inst, pc, "s_sethalt 1 would halt the wave"));
            }
            Ok(Done::Next)
        }
        SBarrier => {
            cx.barrier();
            Ok(Done::Next)
        }
        SBranch => {
            let Flow::Jump(t) = flow(inst, pc) else {
                unreachable!("s_branch jumps")
            };
            cx.jump(t);
            Ok(Done::Ended)
        }
        SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => {
            let Flow::Cond(t) = flow(inst, pc) else {
                unreachable!("conditional branch")
            };
            let c = match inst.op {
                SCbranchScc0 => {
                    let s = cx.scc();
                    cx.e.bnot(s)
                }
                SCbranchScc1 => cx.scc(),
                SCbranchVccz | SCbranchVccnz => {
                    let m = cx.mask_at(sreg::VCC_LO);
                    let z = cx.e.k64(0);
                    cx.e.cmp(
                        if inst.op == SCbranchVccz {
                            Cmp::Eq
                        } else {
                            Cmp::Ne
                        },
                        m,
                        z,
                    )
                }
                _ => {
                    let m = cx.exec();
                    let z = cx.e.k64(0);
                    cx.e.cmp(
                        if inst.op == SCbranchExecz {
                            Cmp::Eq
                        } else {
                            Cmp::Ne
                        },
                        m,
                        z,
                    )
                }
            };
            cx.jump_if(c, t, next);
            Ok(Done::Ended)
        }
        SRoundMode | SDenormMode => {
            let w = crate::program::mode_write(inst).expect("a mode instruction writes MODE");
            let v = cx.e.k32(w.value.expect("an immediate mode"));
            cx.set_mode(w.mask, v);
            Ok(Done::Next)
        }
        _ => Err(refusal(
            inst,
            pc,
            "program control instruction not translated",
        )),
    }
}

// -------------------------------------------------------------------------------------------------
// Vector ALU.

/// The operations translated through the integer float engine ([`crate::sem::float`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Add,
    Sub,
    Subrev,
    Mul,
    /// `a * b + c`; where c comes from (VOP3 source 2, the old destination, the literal).
    Fma(FmaC),
    /// v_fmamk_f32: `a * K + b`.
    FmaMk,
    MulLegacy,
    /// v_cvt_f32_i32 (signed) or v_cvt_f32_u32: an integer source, read without modifiers.
    FromInt(bool),
    /// v_cvt_f32_ubyteN: byte N of the source (exact).
    Ubyte(u32),
    /// v_min_f32 (false) or v_max_f32 (true).
    MinMax(bool),
    /// v_min3_f32 or v_max3_f32: the pair operation twice (rule `minmax.three_as_pairs`).
    MinMax3(bool),
    Med3,
    /// v_cvt_i32_f32 (signed) or v_cvt_u32_f32.
    ToInt(bool),
    /// v_cvt_flr_i32_f32 (false) or v_cvt_rpi_i32_f32 (true: floor(x + 0.5)).
    FloorToInt(bool),
    /// v_cvt_off_f32_i4: the signed 4-bit source field over 16 (exact; sixteen constants).
    OffI4,
    /// v_fma_legacy_f32 (addend source 2) or v_fmac_legacy_f32 (the old destination).
    FmaLegacy(FmaC),
    /// v_mad_f32, v_mac_f32, v_madak_f32 (gfx1013): the product rounded before the add, denormals flushed.
    Mad(FmaC),
    /// v_madmk_f32: `a * K + b`, separately rounded.
    MadMk,
    /// v_mad_legacy_f32 or v_mac_legacy_f32 (gfx1013): [`FloatOp::Mad`] with the legacy zero product.
    MadLegacy(FmaC),
    /// v_cvt_f16_f32 (an f32 source, an f16 result) or v_cvt_f32_f64 (an f64 source, an f32 result).
    Narrow,
    /// v_cvt_f32_f16 (an f16 source, an f32 result) or v_cvt_f64_f32 (an f32 source, an f64 result): exact.
    Widen,
    /// v_floor (2), v_ceil (1), v_trunc (3), v_rndne (0): rounding to an integral value.
    RoundInt(u32),
    /// v_cvt_i16_f16 (signed) or v_cvt_u16_f16.
    ToInt16(bool),
    /// v_fract: `x - floor(x)`, below one.
    Fract,
    /// v_frexp_mant: the significand in [0.5, 1).
    FrexpMant,
    /// v_frexp_exp_i32_f32 or v_frexp_exp_i16_f16: an integer result.
    FrexpExp,
    /// v_ldexp: source 1 is an integer exponent, read without modifiers.
    Ldexp,
    /// v_rcp, v_sqrt, v_rsq (and v_rcp_iflag_f32): exact, rounded once.
    Recip(R),
    /// v_exp: 2^x ([`crate::sem::trans::exp2`]).
    Exp2,
    /// v_cvt_norm_i16/u16_f16 (`signed`): a normalized 16-bit code ([`crate::sem::float::norm16`]).
    Norm(bool),
    /// v_cvt_pknorm_i16/u16_f32: two f32 sources' codes packed, the first in the low half.
    PkNorm(bool),
    /// v_cvt_pknorm_i16/u16_f16: two f16 sources' codes packed (an f32-wide result of f16 sources).
    PkNorm16(bool),
    /// v_log: log2 x ([`crate::sem::trans::log2`]).
    Log2,
    /// v_sin (false) or v_cos (true), x in turns ([`crate::sem::trans::sincos`]).
    SinCos(bool),
    /// v_cubeid (0), v_cubesc (1), v_cubetc (2), v_cubema (3): cube-map face and coordinates
    /// ([`crate::sem::float::cube`]).
    Cube(u32),
    /// v_cvt_pk_u8_f32: source 0 rounded in the mode and saturated to a byte, placed in byte `src1[1:0]` of
    /// source 2 (integer sources 1 and 2, an integer result).
    PkU8,
    /// v_mullit_f32 ([`crate::sem::float::mullit`]); the lanes the model refuses end the job as unsupported
    /// ([`float_alu`]).
    Mullit,
    /// v_trig_preop_f64: source 1 an integer segment ([`crate::sem::float::trig_preop`]); a NaN lane ends the
    /// job as unsupported ([`float64_alu`]).
    TrigPreop,
    /// v_div_fixup: the special cases of source 2 / source 1 around the estimate in source 0.
    DivFixup,
    /// v_div_fmas: an FMA scaled by the lane's VCC bit ([`crate::sem::float::div_fmas`]); [`float_alu`] and
    /// [`float64_alu`] read VCC and call it ([`float_value`] has no lane state).
    DivFmas,
}

/// The addend of an FMA form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FmaC {
    Src2,
    Vdst,
    K,
}

/// The operations of the float engine and the format each runs in, its result's ([`source_fmt`] gives the
/// sources': v_cvt_f16_f32 rounds in f16 from an f32 source).
pub(crate) fn float_op(op: Op) -> Option<(Fmt, FloatOp)> {
    use FloatOp::*;
    use Op::*;
    Some(match op {
        VAddF32 => (F32, Add),
        VSubF32 => (F32, Sub),
        VSubrevF32 => (F32, Subrev),
        VMulF32 => (F32, Mul),
        VFmaF32 => (F32, Fma(FmaC::Src2)),
        VFmacF32 => (F32, Fma(FmaC::Vdst)),
        VFmaakF32 => (F32, Fma(FmaC::K)),
        VFmamkF32 => (F32, FmaMk),
        VMulLegacyF32 => (F32, MulLegacy),
        VFmaLegacyF32 => (F32, FmaLegacy(FmaC::Src2)),
        VFmacLegacyF32 => (F32, FmaLegacy(FmaC::Vdst)),
        VMadF32 => (F32, Mad(FmaC::Src2)),
        VMacF32 => (F32, Mad(FmaC::Vdst)),
        VMadakF32 => (F32, Mad(FmaC::K)),
        VMadmkF32 => (F32, MadMk),
        VMadLegacyF32 => (F32, MadLegacy(FmaC::Src2)),
        VMacLegacyF32 => (F32, MadLegacy(FmaC::Vdst)),
        VMinF32 => (F32, MinMax(false)),
        VMaxF32 => (F32, MinMax(true)),
        VMin3F32 => (F32, MinMax3(false)),
        VMax3F32 => (F32, MinMax3(true)),
        VMed3F32 => (F32, Med3),
        VDivFixupF32 => (F32, DivFixup),
        VDivFixupF16 => (F16, DivFixup),
        VDivFixupF64 => (F64, DivFixup),
        VDivFmasF32 => (F32, DivFmas),
        VDivFmasF64 => (F64, DivFmas),
        VFloorF32 => (F32, RoundInt(2)),
        VCeilF32 => (F32, RoundInt(1)),
        VTruncF32 => (F32, RoundInt(3)),
        VRndneF32 => (F32, RoundInt(0)),
        VCvtF32I32 => (F32, FromInt(true)),
        VCvtF32U32 => (F32, FromInt(false)),
        VCvtF32Ubyte0 => (F32, Ubyte(0)),
        VCvtF32Ubyte1 => (F32, Ubyte(1)),
        VCvtF32Ubyte2 => (F32, Ubyte(2)),
        VCvtF32Ubyte3 => (F32, Ubyte(3)),
        VCvtI32F32 => (F32, ToInt(true)),
        VCvtU32F32 => (F32, ToInt(false)),
        VCvtFlrI32F32 => (F32, FloorToInt(false)),
        VCvtRpiI32F32 => (F32, FloorToInt(true)),
        VCvtOffF32I4 => (F32, OffI4),
        VFractF32 => (F32, Fract),
        VFrexpMantF32 => (F32, FrexpMant),
        VFrexpExpI32F32 => (F32, FrexpExp),
        VLdexpF32 => (F32, Ldexp),
        VRcpF32 | VRcpIflagF32 => (F32, Recip(R::Rcp)),
        VSqrtF32 => (F32, Recip(R::Sqrt)),
        VRsqF32 => (F32, Recip(R::Rsq)),
        VRcpF16 => (F16, Recip(R::Rcp)),
        VSqrtF16 => (F16, Recip(R::Sqrt)),
        VRsqF16 => (F16, Recip(R::Rsq)),
        VExpF32 => (F32, Exp2),
        VCvtNormI16F16 => (F16, Norm(true)),
        VCvtNormU16F16 => (F16, Norm(false)),
        VCvtPknormI16F32 => (F32, PkNorm(true)),
        VCvtPknormU16F32 => (F32, PkNorm(false)),
        VCvtPknormI16F16 => (F32, PkNorm16(true)),
        VCvtPknormU16F16 => (F32, PkNorm16(false)),
        VLogF32 => (F32, Log2),
        VExpF16 => (F16, Exp2),
        VLogF16 => (F16, Log2),
        VSinF32 => (F32, SinCos(false)),
        VCubeidF32 => (F32, Cube(0)),
        VCubescF32 => (F32, Cube(1)),
        VCubetcF32 => (F32, Cube(2)),
        VCubemaF32 => (F32, Cube(3)),
        VCvtPkU8F32 => (F32, PkU8),
        VMullitF32 => (F32, Mullit),
        VTrigPreopF64 => (F64, TrigPreop),
        VFmamkF16 => (F16, FmaMk),
        VFmaakF16 => (F16, Fma(FmaC::K)),
        VCosF32 => (F32, SinCos(true)),
        VSinF16 => (F16, SinCos(false)),
        VCosF16 => (F16, SinCos(true)),
        VFractF16 => (F16, Fract),
        VFrexpMantF16 => (F16, FrexpMant),
        VFrexpExpI16F16 => (F16, FrexpExp),
        VLdexpF16 => (F16, Ldexp),
        VAddF16 => (F16, Add),
        VSubF16 => (F16, Sub),
        VSubrevF16 => (F16, Subrev),
        VMulF16 => (F16, Mul),
        VFmaF16 => (F16, Fma(FmaC::Src2)),
        VFmacF16 => (F16, Fma(FmaC::Vdst)),
        VMinF16 => (F16, MinMax(false)),
        VMaxF16 => (F16, MinMax(true)),
        VMin3F16 => (F16, MinMax3(false)),
        VMax3F16 => (F16, MinMax3(true)),
        VMed3F16 => (F16, Med3),
        VFloorF16 => (F16, RoundInt(2)),
        VCeilF16 => (F16, RoundInt(1)),
        VTruncF16 => (F16, RoundInt(3)),
        VRndneF16 => (F16, RoundInt(0)),
        VCvtF16F32 => (F16, Narrow),
        VCvtF32F16 => (F32, Widen),
        VCvtF16I16 => (F16, FromInt(true)),
        VCvtF16U16 => (F16, FromInt(false)),
        VCvtI16F16 => (F16, ToInt16(true)),
        VCvtU16F16 => (F16, ToInt16(false)),
        VAddF64 => (F64, Add),
        VMulF64 => (F64, Mul),
        VFmaF64 => (F64, Fma(FmaC::Src2)),
        VMinF64 => (F64, MinMax(false)),
        VMaxF64 => (F64, MinMax(true)),
        VLdexpF64 => (F64, Ldexp),
        VFloorF64 => (F64, RoundInt(2)),
        VCeilF64 => (F64, RoundInt(1)),
        VTruncF64 => (F64, RoundInt(3)),
        VRndneF64 => (F64, RoundInt(0)),
        VFractF64 => (F64, Fract),
        VRcpF64 => (F64, Recip(R::Rcp)),
        VSqrtF64 => (F64, Recip(R::Sqrt)),
        VRsqF64 => (F64, Recip(R::Rsq)),
        VFrexpMantF64 => (F64, FrexpMant),
        VFrexpExpI32F64 => (F64, FrexpExp),
        VCvtI32F64 => (F64, ToInt(true)),
        VCvtU32F64 => (F64, ToInt(false)),
        VCvtF64I32 => (F64, FromInt(true)),
        VCvtF64U32 => (F64, FromInt(false)),
        VCvtF64F32 => (F64, Widen),
        VCvtF32F64 => (F32, Narrow),
        _ => return None,
    })
}

/// A float compare: (bits 64, 32 or 16, condition, writes EXEC).
fn float_compare(op: Op) -> Option<(u32, crate::sem::float::Cmp16, bool)> {
    // The mnemonics' condition names in VOPC opcode order (bits 3:0), as `Cmp16::from_code` reads them.
    const NAMES: [&str; 16] = [
        "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
        "nlt", "tru",
    ];
    let mn = op.mnemonic();
    let (rest, cmpx) = mn
        .strip_prefix("v_cmpx_")
        .map(|r| (r, true))
        .or_else(|| mn.strip_prefix("v_cmp_").map(|r| (r, false)))?;
    let (pred, ty) = rest.split_once('_')?;
    let bits = match ty {
        "f64" => 64,
        "f32" => 32,
        "f16" => 16,
        _ => return None,
    };
    let code = NAMES.iter().position(|&c| c == pred)?;
    Some((bits, crate::sem::float::Cmp16::from_code(code as u8), cmpx))
}

/// The float format of `bits` (16, 32 or 64).
fn bits_fmt(bits: u32) -> Fmt {
    match bits {
        16 => F16,
        32 => F32,
        _ => F64,
    }
}

/// A class test: (bits, writes EXEC).
fn class_test(op: Op) -> Option<(u32, bool)> {
    use Op::*;
    Some(match op {
        VCmpClassF32 => (32, false),
        VCmpxClassF32 => (32, true),
        VCmpClassF16 => (16, false),
        VCmpxClassF16 => (16, true),
        VCmpClassF64 => (64, false),
        VCmpxClassF64 => (64, true),
        _ => return None,
    })
}

/// The end of a compare: the lane's bit (`r` where `active`) gathered into the wave's mask, written to EXEC
/// (v_cmpx), the SDWA scalar destination, the VOP3 SGPR destination or VCC.
fn finish_compare(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    r: Sv,
    active: Sv,
    cmpx: bool,
) -> Result<Done, Refusal> {
    let bit = cx.e.band(r, active);
    cx.publish_bit(bit);
    cx.cut();
    let mask = cx.gather_mask();
    cx.next_slot();
    if cmpx {
        cx.set_mask_at(sreg::EXEC_LO, mask);
    } else if let Control::Sdwa(reference_model::isa::Sdwa { sdst: Some(d), .. }) = inst.control {
        // VOPC SDWA names its scalar destination in the SDWA dword.
        if d as u32 != sreg::NULL {
            cx.set_mask_at(d as u32, mask);
        }
    } else {
        // VOPC in the VOP3 encoding names its SGPR(s) in the VDST field (`Instruction::mask_dst`), e32 VCC.
        match inst.mask_dst() {
            Some(d) => cx.write_mask(d, mask, inst, pc)?,
            None => cx.set_mask_at(sreg::VCC_LO, mask),
        }
    }
    Ok(Done::Next)
}

/// The output modifier and clamp of a float operation's form (SDWA carries its own).
fn out_mods(inst: &Instruction) -> (u8, bool) {
    match inst.control {
        Control::Sdwa(s) => (s.omod, s.clamp),
        _ => (inst.mods.omod, inst.mods.clamp),
    }
}

/// Applies the VOP3/DPP/SDWA `abs` then `neg` modifiers of source `i` to float bits of `sign` (the
/// format's sign bit; rule `modifier.neg_abs_bits`: the modifiers act on the bits, NaNs included).
fn float_source(cx: &mut Cx, inst: &Instruction, i: u32, v: Sv, sign: u64) -> Sv {
    let m = inst.mods;
    let v = if m.abs >> i & 1 == 1 {
        cx.e.bink(Bin::And, v, sign - 1)
    } else {
        v
    };
    if m.neg >> i & 1 == 1 {
        cx.e.bink(Bin::Xor, v, sign)
    } else {
        v
    }
}

/// A float operation of the engine in format `fmt`: `raw` holds the sources as read (16-bit ones in the low
/// half); neg/abs apply to float sources, omod/clamp to float results, FP16_OVFL to f16 arithmetic, and the
/// result is written as the model writes it (32 bits, or 16 with the other half kept; SDWA by dst_sel).
fn float_alu(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    fmt: Fmt,
    f: FloatOp,
    raw: [Sv; 3],
    active: Sv,
) -> Result<Done, Refusal> {
    use crate::sem::float as fp;
    let vd = match inst.operand(Role::Vdst) {
        Some(Operand::Vgpr { first, .. }) => first as u32,
        other => return Err(refusal(inst, pc, format!("vector destination {other:?}"))),
    };
    let sign = fmt_sign(source_fmt(fmt, f));
    // Integer sources are read without modifiers, as the model reads them.
    let int_source = matches!(f, FloatOp::FromInt(_) | FloatOp::Ubyte(_) | FloatOp::OffI4);
    let mut s = raw;
    if !int_source {
        for (i, v) in s.iter_mut().enumerate() {
            // v_ldexp's exponent and v_cvt_pk_u8's byte index and accumulator are integers.
            if !(f == FloatOp::Ldexp && i == 1 || f == FloatOp::PkU8 && i > 0) {
                *v = float_source(cx, inst, i as u32, *v, sign);
            }
        }
    }
    let [a, b, c] = s;
    // Addends without modifiers: the old destination (its low half for f16) or the literal. The old value
    // is read only where it is an addend or the other half of a 16-bit write.
    let addend = match f {
        FloatOp::Fma(w) | FloatOp::FmaLegacy(w) | FloatOp::Mad(w) | FloatOp::MadLegacy(w) => {
            Some(w)
        }
        FloatOp::FmaMk | FloatOp::MadMk => Some(FmaC::K),
        _ => None,
    };
    let reads_old =
        addend == Some(FmaC::Vdst) || fmt == F16 && !matches!(inst.control, Control::Sdwa(_));
    let old = if reads_old { cx.vget(vd) } else { cx.e.k32(0) };
    let c = match addend {
        Some(FmaC::Vdst) if fmt == F16 => cx.e.bink(Bin::And, old, 0xffff),
        Some(FmaC::Vdst) => old,
        Some(FmaC::K) => {
            let o = cx.op(inst, Role::K, pc)?;
            let k = cx.vread(o, false, inst, pc)?;
            // The f16 forms take the literal's low half.
            if fmt == F16 {
                cx.e.bink(Bin::And, k, 0xffff)
            } else {
                k
            }
        }
        _ => c,
    };
    let mode = cx.mode_word();
    let vcc = (f == FloatOp::DivFmas).then(|| {
        let m = cx.mask_at(crate::compile::sreg::VCC_LO);
        cx.lane_bit(m)
    });
    let e = &mut cx.e;
    let env = if fmt == F16 {
        fp::env16(e, mode)
    } else {
        fp::env(e, mode)
    };
    let (r, refused) = match vcc {
        Some(bit) => (fp::div_fmas(e, &env, a, b, c, bit), None),
        // The lanes the model refuses (an infinite or NaN factor, an overflowing product) end the job.
        None if f == FloatOp::Mullit => {
            let (r, x) = fp::mullit(e, &env, a, b, c);
            (r, Some(x))
        }
        None => (float_value(e, &env, mode, f, [a, b, c]), None),
    };
    if let Some(x) = refused {
        let go = cx.e.band(x, active);
        lane_refusal(cx, go, crate::layout::MULLIT, pc);
    }
    let e = &mut cx.e;
    // Float results take the output modifiers; integer results ignore them, as the model's do.
    let r = if matches!(
        f,
        FloatOp::ToInt(_)
            | FloatOp::FloorToInt(_)
            | FloatOp::ToInt16(_)
            | FloatOp::FrexpExp
            | FloatOp::Norm(_)
            | FloatOp::PkNorm(_)
            | FloatOp::PkNorm16(_)
            | FloatOp::PkU8
    ) {
        r
    } else {
        let (omod, clamp) = out_mods(inst);
        fp::omod_clamp(e, &env, mode, r, omod, clamp)
    };
    if fmt == F16 && !matches!(inst.control, Control::Sdwa(_)) {
        write16(cx, inst, vd, old, r, active);
    } else {
        // SDWA places a 16-bit result by dst_sel, as a 32-bit one.
        write32(cx, inst, pc, vd, r, active)?;
    }
    Ok(Done::Next)
}

/// A float operation with f64 sources or an f64 result ([`float_op`] with `F64` as its format or its sources'):
/// 64-bit sources from register pairs (inline constants as f64, a literal as the high dword) with `abs` then
/// `neg` on their sign bits, integer sources (v_ldexp_f64's exponent, v_cvt_f64_i32's) as 32-bit values, the
/// value from [`float_value`], omod/clamp on a float result in its format, and the result written to the pair
/// (or the one register for an f32 or integer result), as the model's f64 path.
fn float64_alu(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    fmt: Fmt,
    f: FloatOp,
    active: Sv,
) -> Result<Done, Refusal> {
    use crate::sem::float as fp;
    let vd = match inst.operand(Role::Vdst) {
        Some(Operand::Vgpr { first, .. }) => first as u32,
        other => return Err(refusal(inst, pc, format!("vector destination {other:?}"))),
    };
    let n = match f {
        FloatOp::Fma(_) | FloatOp::DivFixup | FloatOp::DivFmas => 3,
        FloatOp::Add | FloatOp::Mul | FloatOp::MinMax(_) | FloatOp::Ldexp | FloatOp::TrigPreop => 2,
        _ => 1,
    };
    let src = source_fmt(fmt, f);
    let mut s = [cx.e.k64(0); 3];
    for (i, role) in [Role::Src0, Role::Src1, Role::Src2]
        .into_iter()
        .enumerate()
        .take(n)
    {
        let o = cx.op(inst, role, pc)?;
        s[i] = match (f, i) {
            // Integer sources, read without modifiers.
            (FloatOp::Ldexp | FloatOp::TrigPreop, 1) | (FloatOp::FromInt(_), _) => {
                cx.vread(o, false, inst, pc)?
            }
            _ if src == F32 => {
                let v = cx.vread(o, false, inst, pc)?;
                float_source(cx, inst, 0, v, fmt_sign(F32))
            }
            _ => {
                let v = cx.vread64(o, true, inst, pc)?;
                float_source(cx, inst, i as u32, v, fmt_sign(F64))
            }
        };
    }
    let mode = cx.mode_word();
    let vcc = (f == FloatOp::DivFmas).then(|| {
        let m = cx.mask_at(crate::compile::sreg::VCC_LO);
        cx.lane_bit(m)
    });
    let e = &mut cx.e;
    let env = if fmt == F64 {
        fp::env64(e, mode)
    } else {
        fp::env(e, mode)
    };
    let r = match vcc {
        Some(bit) => {
            let [a, b, c] = s;
            fp::div_fmas(e, &env, a, b, c, bit)
        }
        // A NaN lane ends the job: the model refuses it.
        None if f == FloatOp::TrigPreop => {
            let (r, nan) = fp::trig_preop(e, &env, s[0], s[1]);
            let go = e.band(nan, active);
            lane_refusal(cx, go, crate::layout::TRIG_PREOP_NAN, pc);
            r
        }
        None => float_value(e, &env, mode, f, s),
    };
    let e = &mut cx.e;
    if matches!(f, FloatOp::FrexpExp | FloatOp::ToInt(_)) {
        // An integer result: no output modifiers.
        return write32(cx, inst, pc, vd, r, active).map(|_| Done::Next);
    }
    let (omod, clamp) = out_mods(inst);
    let r = fp::omod_clamp(e, &env, mode, r, omod, clamp);
    if fmt == F64 {
        write_f64(cx, vd, r, active);
    } else {
        write32(cx, inst, pc, vd, r, active)?;
    }
    Ok(Done::Next)
}

/// Writes the f64 result `r` to VGPRs `vd` (low dword) and `vd + 1` in the lanes `active`, the low dword tied to
/// the high one (`lo ^ (hi & z)`, `z` the launch-info zero of [`Emit::opaque`]) so that the host compiler never
/// sees a result's high dword unused. An H100 80GB HBM3 (driver 580.159.04) computed the low dword of a soft
/// `v_fma_f64` with an infinite addend as if the addend were zero whenever the program overwrote the high dword,
/// optimised or not, and got it right with this tie; that the fault is NVIDIA's compiler is inferred (the model
/// and lavapipe agree on the same module; README, "Host limits and host bugs worked around";
/// `conformance/fuzz-regressions/nvidia-f64-fma/`). About 20 SPIR-V words per f64 result.
fn write_f64(cx: &mut Cx, vd: u32, r: Sv, active: Sv) {
    let e = &mut cx.e;
    let (lo, hi) = (e.trunc(r), e.hi(r));
    let z = e.k32(0);
    let z = e.opaque(z);
    let t = e.bin(Bin::And, hi, z);
    let lo = e.bin(Bin::Xor, lo, t);
    cx.vset_if(vd, lo, active);
    cx.vset_if(vd + 1, hi, active);
}

/// VOP3P: the packed 16-bit integer and f16 operations (the low result half from the source halves op_sel
/// picks, the high one from those op_sel_hi picks; neg and neg_hi negate the f16 halves), the
/// mixed-precision FMAs (op_sel_hi makes a source an f16 half, op_sel picks which; neg_hi is its abs) and
/// the integer dot products, as `reference_model::exec::vfloat` and `valu` run them.
fn vop3p(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use crate::sem::float as fp;
    use Op::*;
    let op = inst.op;
    let m = inst.mods;
    let vd = match inst.operand(Role::Vdst) {
        Some(Operand::Vgpr { first, .. }) => first as u32,
        other => return Err(refusal(inst, pc, format!("vector destination {other:?}"))),
    };
    let roles = [Role::Src0, Role::Src1, Role::Src2];
    // Integer halves read constants as 16-bit values, the float and dot forms as 32-bit ones (the model's
    // I16 and B32 reads).
    let int_pk = valu::pk16_scalar(op).is_some();
    let mut raw = [cx.e.k32(0); 3];
    for (i, role) in roles.into_iter().enumerate() {
        if let Some(o) = inst.operand(role) {
            raw[i] = cx.vread(o, int_pk, inst, pc)?;
        }
    }
    let active = cx.active();
    let bit = |f: u8, i: usize| f >> i & 1 == 1;
    // Source i's half for result half h.
    let half = |e: &mut Emit, v: Sv, i: usize, h: usize| {
        let sel = if h == 0 { m.op_sel } else { m.op_sel_hi };
        let v = if bit(sel, i) {
            e.bink(Bin::LShr, v, 16)
        } else {
            v
        };
        e.bink(Bin::And, v, 0xffff)
    };
    let mode = cx.mode_word();
    let e = &mut cx.e;
    let value = if int_pk {
        let mut r = e.k32(0);
        for h in 0..2 {
            let [a, b, c] = std::array::from_fn(|i| half(e, raw[i], i, h));
            let v = valu::pk16(e, op, a, b, c, m.clamp).expect("a packed integer operation");
            let v = e.bink(Bin::And, v, 0xffff);
            let v = e.bink(Bin::Shl, v, 16 * h as u64);
            r = e.bin(Bin::Or, r, v);
        }
        r
    } else if let Some(v) = valu::dot(e, op, raw[0], raw[1], raw[2], m.clamp) {
        v
    } else if op == VDot2F32F16 {
        // The f16 pairs as op_sel/op_sel_hi pick them, neg_lo/neg_hi flipping each half's sign; c as given.
        let pair = |e: &mut Emit, i: usize| {
            let mut r = e.k32(0);
            for h in 0..2 {
                let v = half(e, raw[i], i, h);
                let v = if bit(if h == 0 { m.neg } else { m.neg_hi }, i) {
                    e.bink(Bin::Xor, v, 0x8000)
                } else {
                    v
                };
                let v = e.bink(Bin::Shl, v, 16 * h as u64);
                r = e.bin(Bin::Or, r, v);
            }
            r
        };
        let (a, b) = (pair(e, 0), pair(e, 1));
        let e32 = fp::env(e, mode);
        let e16 = fp::env16(e, mode);
        let r = fp::dot2(e, &e32, &e16, a, b, raw[2]);
        fp::omod_clamp(e, &e32, mode, r, 0, m.clamp)
    } else if matches!(op, VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16) {
        let e32 = fp::env(e, mode);
        let e16 = fp::env16(e, mode);
        let from16: [bool; 3] = std::array::from_fn(|i| bit(m.op_sel_hi, i));
        let mut s = raw;
        for (i, v) in s.iter_mut().enumerate() {
            let (neg, abs) = (bit(m.neg, i), bit(m.neg_hi, i));
            *v = if from16[i] {
                let h = if bit(m.op_sel, i) {
                    e.bink(Bin::LShr, *v, 16)
                } else {
                    *v
                };
                let h = e.bink(Bin::And, h, if abs { 0x7fff } else { 0xffff });
                let h = if neg { e.bink(Bin::Xor, h, 0x8000) } else { h };
                fp::mix_source(e, &e16, h, true)
            } else {
                let x = if abs {
                    e.bink(Bin::And, *v, 0x7fff_ffff)
                } else {
                    *v
                };
                if neg {
                    e.bink(Bin::Xor, x, 0x8000_0000)
                } else {
                    x
                }
            };
        }
        if op == VFmaMixF32 {
            let r = fp::fma(e, &e32, s[0], s[1], s[2]);
            fp::omod_clamp(e, &e32, mode, r, 0, m.clamp)
        } else {
            let r = fp::fma_mix_f16(e, &e32, &e16, s, from16);
            let r = fp::omod_clamp(e, &e16, mode, r, 0, m.clamp);
            let old = cx.vget(vd);
            let e = &mut cx.e;
            if op == VFmaMixloF16 {
                let hi = e.bink(Bin::And, old, 0xffff_0000);
                e.bin(Bin::Or, hi, r)
            } else {
                let lo = e.bink(Bin::And, old, 0xffff);
                let r = e.bink(Bin::Shl, r, 16);
                e.bin(Bin::Or, lo, r)
            }
        }
    } else {
        let f = match op {
            VPkAddF16 => FloatOp::Add,
            VPkMulF16 => FloatOp::Mul,
            VPkFmaF16 => FloatOp::Fma(FmaC::Src2),
            VPkMinF16 => FloatOp::MinMax(false),
            VPkMaxF16 => FloatOp::MinMax(true),
            _ => {
                return Err(refusal(
                    inst,
                    pc,
                    "this VOP3P operation is not translated yet",
                ))
            }
        };
        let env = fp::env16(e, mode);
        let mut r = e.k32(0);
        for h in 0..2 {
            let s: [Sv; 3] = std::array::from_fn(|i| {
                let v = half(e, raw[i], i, h);
                let neg = bit(if h == 0 { m.neg } else { m.neg_hi }, i);
                if neg {
                    e.bink(Bin::Xor, v, 0x8000)
                } else {
                    v
                }
            });
            let v = float_value(e, &env, mode, f, s);
            let v = fp::omod_clamp(e, &env, mode, v, 0, m.clamp);
            let v = e.bink(Bin::Shl, v, 16 * h as u64);
            r = e.bin(Bin::Or, r, v);
        }
        r
    };
    write32(cx, inst, pc, vd, value, active)?;
    Ok(Done::Next)
}

/// The value of float operation `f` in environment `env` (`mode` the MODE value it came from) on sources
/// `s` with their modifiers applied, FP16_OVFL included, before omod/clamp: the one place the semantics of
/// each [`FloatOp`] are written, for the translator and for sweep modules ([`crate::sweep`]).
pub(crate) fn float_value(
    e: &mut crate::spv::Emit,
    env: &crate::sem::float::Env<Sv>,
    mode: Sv,
    f: FloatOp,
    s: [Sv; 3],
) -> Sv {
    use crate::sem::float as fp;
    let fmt = env.fmt;
    let env = *env;
    let [a, b, c] = s;
    let neg = |e: &mut crate::spv::Emit, x: Sv| e.bink(Bin::Xor, x, fmt_sign(fmt));
    let r = match f {
        FloatOp::Add => fp::add(e, &env, a, b),
        FloatOp::Sub => {
            let nb = neg(e, b);
            fp::add(e, &env, a, nb)
        }
        FloatOp::Subrev => {
            let na = neg(e, a);
            fp::add(e, &env, na, b)
        }
        FloatOp::Mul => fp::mul(e, &env, a, b),
        FloatOp::Fma(_) => fp::fma(e, &env, a, b, c),
        // a * K + b: the literal is the second factor and source 1 the addend.
        FloatOp::FmaMk => fp::fma(e, &env, a, c, b),
        FloatOp::Mad(_) => fp::mad(e, &env, a, b, c, false),
        FloatOp::MadMk => fp::mad(e, &env, a, c, b, false),
        FloatOp::MadLegacy(_) => fp::mad(e, &env, a, b, c, true),
        FloatOp::MulLegacy => fp::mul_legacy(e, &env, a, b),
        FloatOp::FmaLegacy(_) => fp::fma_legacy(e, &env, a, b, c),
        FloatOp::MinMax(max) => fp::minmax(e, &env, a, b, max),
        FloatOp::MinMax3(max) => {
            let ab = fp::minmax(e, &env, a, b, max);
            fp::minmax(e, &env, ab, c, max)
        }
        FloatOp::Med3 => fp::med3(e, &env, a, b, c),
        FloatOp::DivFixup => fp::div_fixup(e, &env, a, b, c),
        // Only through float_alu/float64_alu, which pass the lane's VCC bit; a caller without one (none
        // exists) gets the unscaled FMA of a clear VCC bit.
        FloatOp::DivFmas => {
            let no = e.kbool(false);
            fp::div_fmas(e, &env, a, b, c, no)
        }
        FloatOp::RoundInt(dir) => fp::round_int(e, &env, a, dir),
        FloatOp::FromInt(signed) => {
            let v = if signed && fmt == F16 {
                e.sext_in(a, 16)
            } else {
                a
            };
            fp::from_int(e, &env, v, signed)
        }
        FloatOp::Ubyte(n) => {
            let byte = e.field(a, 8 * n, 8);
            fp::from_int(e, &env, byte, false)
        }
        FloatOp::OffI4 => {
            // Each of the sixteen exact results, as the model's float library gives it.
            let n = e.bink(Bin::And, a, 0xf);
            let mut r = e.k32(reference_model::float::cvt_off_f32_i4(0));
            for i in 1..16u32 {
                let k = e.k32(i);
                let is = e.cmp(Cmp::Eq, n, k);
                let v = e.k32(reference_model::float::cvt_off_f32_i4(i));
                r = e.select(is, v, r);
            }
            r
        }
        FloatOp::ToInt(signed) => fp::to_int(e, &env, a, signed),
        FloatOp::FloorToInt(half) => fp::floor_to_int(e, &env, a, half),
        FloatOp::ToInt16(signed) => fp::to_int16(e, &env, a, signed),
        FloatOp::Fract => fp::fract(e, &env, a),
        FloatOp::Recip(op) if fmt == F64 => fp::recip_root64(e, &env, a, op),
        FloatOp::Recip(op) => fp::recip_root(e, &env, a, op),
        FloatOp::Exp2 => crate::sem::trans::exp2(e, &env, a),
        FloatOp::Norm(signed) => fp::norm16(e, &env, a, signed),
        FloatOp::PkNorm(signed) => {
            let lo = fp::norm16(e, &env, a, signed);
            let hi = fp::norm16(e, &env, b, signed);
            let hi = e.bink(Bin::Shl, hi, 16);
            e.bin(Bin::Or, lo, hi)
        }
        FloatOp::PkNorm16(signed) => {
            let env16 = fp::env16(e, mode);
            let lo = fp::norm16(e, &env16, a, signed);
            let hi = fp::norm16(e, &env16, b, signed);
            let hi = e.bink(Bin::Shl, hi, 16);
            e.bin(Bin::Or, lo, hi)
        }
        FloatOp::Log2 => crate::sem::trans::log2(e, &env, a),
        FloatOp::SinCos(cos) => crate::sem::trans::sincos(e, &env, a, cos),
        FloatOp::Cube(k) => fp::cube(e, &env, k, a, b, c),
        // The refusals of these two are their callers' (float_alu, float64_alu).
        FloatOp::Mullit => fp::mullit(e, &env, a, b, c).0,
        FloatOp::TrigPreop => fp::trig_preop(e, &env, a, b).0,
        FloatOp::PkU8 => fp::cvt_pk_u8(e, &env, a, b, c),
        FloatOp::FrexpMant => fp::frexp_mant(e, &env, a),
        FloatOp::FrexpExp if fmt == F16 => {
            let x = fp::frexp_exp(e, &env, a);
            e.bink(Bin::And, x, 0xffff)
        }
        FloatOp::FrexpExp => fp::frexp_exp(e, &env, a),
        FloatOp::Ldexp => {
            // The f16 form's exponent is the sign-extended 16-bit source.
            let n = if fmt == F16 { e.sext_in(b, 16) } else { b };
            fp::ldexp(e, &env, a, n)
        }
        FloatOp::Narrow if fmt == F32 => {
            let e64 = fp::env64(e, mode);
            fp::cvt_f32_f64(e, &env, &e64, a)
        }
        FloatOp::Narrow => {
            let e32 = fp::env(e, mode);
            fp::cvt_f16_f32(e, &e32, &env, a)
        }
        FloatOp::Widen if fmt == F64 => {
            let e32 = fp::env(e, mode);
            fp::cvt_f64_f32(e, &e32, a)
        }
        FloatOp::Widen => {
            let e16 = fp::env16(e, mode);
            fp::cvt_f32_f16(e, &e16, a)
        }
    };
    // FP16_OVFL on the arithmetic (a no-op that folds away for f32).
    match f {
        FloatOp::Add | FloatOp::Sub | FloatOp::Subrev | FloatOp::Mul => {
            fp::ovfl16(e, &env, r, &[a, b])
        }
        FloatOp::Fma(_) | FloatOp::FmaMk => fp::ovfl16(e, &env, r, &[a, b, c]),
        FloatOp::Ldexp | FloatOp::Recip(_) | FloatOp::Exp2 | FloatOp::Log2 | FloatOp::SinCos(_) => {
            fp::ovfl16(e, &env, r, &[a])
        }
        // v_cvt_f16_u16 of 65520 and above (an integer source is never infinite).
        FloatOp::FromInt(_) => fp::ovfl16(e, &env, r, &[]),
        _ => r,
    }
}

/// Ends the job as unsupported where `go` holds (an operand value the model refuses at run time: `what` is
/// [`crate::layout::MULLIT`] or [`crate::layout::TRIG_PREOP_NAN`]).
fn lane_refusal(cx: &mut Cx, go: Sv, what: u32, pc: usize) {
    let pcv = cx.e.k32(pc as u32);
    let w = cx.e.k32(what);
    let d = cx.e.k32(crate::layout::LANE_VALUE);
    cx.report_if(go, crate::layout::UNSUPPORTED, pcv, w, d);
}

/// The sign bit of a format's values.
fn fmt_sign(fmt: Fmt) -> u64 {
    1 << (fmt.man + fmt.exp)
}

/// The format of the float sources of operation `f` running in `fmt`: the next wider one for the narrowing
/// conversions, the next narrower for the widening ones.
pub(crate) fn source_fmt(fmt: Fmt, f: FloatOp) -> Fmt {
    match (f, fmt == F64, fmt == F32) {
        (FloatOp::Narrow, _, true) => F64,
        (FloatOp::Narrow, _, _) => F32,
        (FloatOp::Widen, true, _) => F32,
        (FloatOp::Widen, _, _) => F16,
        (FloatOp::PkNorm16(_), _, _) => F16,
        _ => fmt,
    }
}

/// A 16-bit result `r` into VGPR `d` (holding `old`) as the model's 16-bit write: the low half, or the high
/// half with VOP3 op_sel[3]; the other half kept.
fn write16(cx: &mut Cx, inst: &Instruction, d: u32, old: Sv, r: Sv, active: Sv) {
    let e = &mut cx.e;
    let new = if inst.form == Form::Native && inst.mods.op_sel >> 3 & 1 == 1 {
        let lo = e.bink(Bin::And, old, 0xffff);
        let hi = e.bink(Bin::Shl, r, 16);
        e.bin(Bin::Or, lo, hi)
    } else {
        let hi = e.bink(Bin::And, old, 0xffff_0000);
        e.bin(Bin::Or, hi, r)
    };
    cx.vset_if(d, new, active);
}

/// A VOP3B lane-mask result (a carry out, v_div_scale's VCC): each active lane's `bit`, gathered into the
/// wave's mask and written to the instruction's scalar destination (VCC in the VOP2 forms).
fn lane_mask_out(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    bit: Sv,
    active: Sv,
) -> Result<(), Refusal> {
    let bit = cx.e.band(bit, active);
    cx.publish_bit(bit);
    cx.cut();
    let mask = cx.gather_mask();
    cx.next_slot();
    match inst.mask_dst() {
        Some(o) => cx.write_mask(o, mask, inst, pc),
        None => {
            cx.set_mask_at(sreg::VCC_LO, mask);
            Ok(())
        }
    }
}

/// Refuses the encoding features this translator does not apply yet, after the fields the model itself
/// refuses (so both backends refuse the same words).
fn vector_forms(inst: &Instruction, pc: usize) -> Result<(), Refusal> {
    reference_model::exec::check_fields(inst, pc).map_err(|e| match e {
        measurements::job::BackendError::Unsupported { reason, .. } => refusal(inst, pc, reason),
        other => refusal(inst, pc, other.to_string()),
    })?;
    // VOP3P's fields (neg, neg_hi, op_sel, op_sel_hi, clamp) are the model's to vet, and [`vop3p`] applies
    // every one the model honours.
    if inst.encoding == Encoding::Vop3p {
        return Ok(());
    }
    let m = inst.mods;
    // neg and abs are bit operations on float sources, applied where those are read.
    let float = float_op(inst.op).is_some()
        || matches!(
            inst.op,
            Op::VCvtPkrtzF16F32
                | Op::VPackB32F16
                | Op::VDivScaleF32
                | Op::VDivScaleF64
                | Op::VCndmaskB32
        )
        || float_compare(inst.op).is_some()
        || class_test(inst.op).is_some();
    // neg/abs, omod and clamp on float operations are the float engine's; on integer ones only clamp
    // (saturation) is.
    if (m.abs != 0 || m.neg != 0 || m.omod != 0) && !float || m.neg_hi != 0 {
        return Err(refusal(
            inst,
            pc,
            "source and output modifiers are not translated yet",
        ));
    }
    if let Control::Sdwa(s) = inst.control {
        if (s.clamp || s.omod != 0) && !float {
            return Err(refusal(
                inst,
                pc,
                "SDWA clamp and output modifiers are not translated yet",
            ));
        }
    }
    Ok(())
}

/// DPP: src0 of every lane comes from another lane of the wave. Publishes src0, cuts, and leaves in
/// function variables the value this lane reads and whether it writes (rules dpp.row_patterns,
/// dpp.invalid_source, dpp8.inactive_source), as `reference_model::exec::valu::Io` works them out.
/// Returns (value variable, writes variable).
fn dpp_prelude(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Option<(u32, u32)>, Refusal> {
    use reference_model::isa::DppCtrl;
    let ctrl = match inst.control {
        Control::Dpp16(d) => Some(d),
        Control::Dpp8(_) => None,
        _ => return Ok(None),
    };
    if matches!(
        inst.op,
        Op::VMovrelsB32 | Op::VMovreldB32 | Op::VMovrelsdB32 | Op::VMovrelsd2B32 | Op::VSwaprelB32
    ) {
        return Err(refusal(
            inst,
            pc,
            "relative addressing with DPP is not translated yet",
        ));
    }
    let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Src0) else {
        return Err(refusal(inst, pc, "DPP source 0 is not a VGPR"));
    };
    let v = cx.vget(first as u32);
    cx.publish(0, v);
    cx.cut();
    let lanes = cx.shape().wave;
    let lane = cx.lane;
    let exec = cx.exec();
    let e = &mut cx.e;
    let bit = |e: &mut crate::spv::Emit, m: Sv, l: Sv| {
        let l64 = e.zext(l);
        let b = e.bin(Bin::LShr, m, l64);
        let b = e.bink(Bin::And, b, 1);
        e.nz(b)
    };
    let me_on = bit(e, exec, lane);
    let (src, valid, writes) = match ctrl {
        Some(d) => {
            let row = e.bink(Bin::And, lane, !15u32 as u64);
            let l = e.bink(Bin::And, lane, 15);
            let yes = e.kbool(true);
            let (src, ok) = match d.ctrl {
                DppCtrl::QuadPerm(p) => (table_lane(e, lane, &p, 2), yes),
                DppCtrl::RowShl(n) => {
                    let s = e.bink(Bin::Add, l, n as u64);
                    let k = e.k32(15);
                    let ok = e.cmp(Cmp::ULe, s, k);
                    (e.bin(Bin::Add, row, s), ok)
                }
                DppCtrl::RowShr(n) => {
                    let k = e.k32(n as u32);
                    let ok = e.cmp(Cmp::UGe, l, k);
                    let s = e.bink(Bin::Sub, l, n as u64);
                    let s = e.bink(Bin::And, s, 15);
                    (e.bin(Bin::Add, row, s), ok)
                }
                DppCtrl::RowRor(n) => {
                    let s = e.bink(Bin::Add, l, 16 - n as u64);
                    let s = e.bink(Bin::And, s, 15);
                    (e.bin(Bin::Add, row, s), yes)
                }
                DppCtrl::RowMirror => {
                    let k = e.k32(15);
                    let s = e.bin(Bin::Sub, k, l);
                    (e.bin(Bin::Add, row, s), yes)
                }
                DppCtrl::RowHalfMirror => {
                    let base = e.bink(Bin::And, lane, !7u32 as u64);
                    let h = e.bink(Bin::And, lane, 7);
                    let k = e.k32(7);
                    let s = e.bin(Bin::Sub, k, h);
                    (e.bin(Bin::Add, base, s), yes)
                }
                DppCtrl::RowShare(n) => (e.bink(Bin::Add, row, n as u64), yes),
                DppCtrl::RowXmask(n) => {
                    let s = e.bink(Bin::Xor, l, n as u64);
                    (e.bin(Bin::Add, row, s), yes)
                }
                DppCtrl::Reserved(c) => {
                    return Err(refusal(
                        inst,
                        pc,
                        format!("dpp_ctrl {c:#x} is reserved on gfx10"),
                    ));
                }
            };
            // The lane's row and bank must be enabled.
            let r = e.bink(Bin::LShr, lane, 4);
            let rm = e.k32(d.row_mask as u32);
            let rb = e.bin(Bin::LShr, rm, r);
            let rb = e.bink(Bin::And, rb, 1);
            let row_on = e.nz(rb);
            let bk = e.bink(Bin::LShr, l, 2);
            let bm = e.k32(d.bank_mask as u32);
            let bb = e.bin(Bin::LShr, bm, bk);
            let bb = e.bink(Bin::And, bb, 1);
            let bank_on = e.nz(bb);
            let on = e.band(me_on, row_on);
            let on = e.band(on, bank_on);
            let kl = e.k32(lanes);
            let inside = e.cmp(Cmp::ULt, src, kl);
            let ok = e.band(ok, inside);
            let z = e.k32(0);
            let safe = e.select(ok, src, z);
            let src_on = bit(e, exec, safe);
            let fi = e.kbool(d.fi);
            let fetchable = e.bor(fi, src_on);
            let valid = e.band(ok, fetchable);
            let bound = e.kbool(d.bound_ctrl);
            let either = e.bor(valid, bound);
            let writes = e.band(on, either);
            (safe, valid, writes)
        }
        None => {
            let Control::Dpp8(d) = inst.control else {
                unreachable!("DPP8")
            };
            let src = table_lane(e, lane, &d.sel, 3);
            let src_on = bit(e, exec, src);
            let fi = e.kbool(d.fi);
            let valid = e.bor(fi, src_on);
            (src, valid, me_on)
        }
    };
    let got = cx.fetch(src, 0);
    let z = cx.e.k32(0);
    let val = cx.e.select(valid, got, z);
    cx.next_slot();
    let var_v = cx.e.local(Ty::I32);
    cx.e.store(var_v, val);
    let var_w = cx.e.local(Ty::I32);
    let w = cx.e.b2i(writes, Ty::I32);
    cx.e.store(var_w, w);
    Ok(Some((var_v, var_w)))
}

/// Refuses DPP and SDWA for the operations whose translation reads no source through them.
fn plain_form(inst: &Instruction, pc: usize) -> Result<(), Refusal> {
    match inst.control {
        Control::Dpp16(_) | Control::Dpp8(_) | Control::Sdwa(_) => Err(refusal(
            inst,
            pc,
            "DPP and SDWA are not translated for this operation",
        )),
        _ => Ok(()),
    }
}

/// The SDWA select of a source (rule sdwa.selects): the byte or word, zero- or sign-extended.
fn sdwa_select(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    role: Role,
    v: Sv,
) -> Result<Sv, Refusal> {
    use reference_model::isa::SdwaSel;
    let Control::Sdwa(s) = inst.control else {
        return Ok(v);
    };
    let (sel, sx) = match role {
        Role::Src0 => (s.src0_sel, s.sext[0]),
        Role::Src1 => (s.src1_sel, s.sext[1]),
        _ => return Ok(v),
    };
    let (shift, bits) = match sel {
        SdwaSel::Byte(b) => (8 * b as u32, 8),
        SdwaSel::Word(w) => (16 * w as u32, 16),
        SdwaSel::Dword => return Ok(v),
        SdwaSel::Reserved(_) => return Err(refusal(inst, pc, "reserved SDWA select")),
    };
    let e = &mut cx.e;
    let f = e.field(v, shift, bits);
    Ok(if sx { e.sext_in(f, bits) } else { f })
}

/// Writes a 32-bit result to VGPR `d` in the lanes `active`, merged as SDWA's dst_sel and dst_unused say.
fn write32(
    cx: &mut Cx,
    inst: &Instruction,
    pc: usize,
    d: u32,
    v: Sv,
    active: Sv,
) -> Result<(), Refusal> {
    use reference_model::isa::SdwaSel;
    let v = match inst.control {
        Control::Sdwa(s) if inst.encoding != Encoding::Vopc => {
            let (shift, bits) = match s.dst_sel {
                SdwaSel::Byte(b) => (8 * b as u32, 8),
                SdwaSel::Word(w) => (16 * w as u32, 16),
                SdwaSel::Dword => (0, 32),
                SdwaSel::Reserved(_) => return Err(refusal(inst, pc, "reserved SDWA dst_sel")),
            };
            if bits == 32 {
                v
            } else {
                let field = ((1u64 << bits) - 1) << shift;
                let old = cx.vget(d);
                let e = &mut cx.e;
                let placed = e.bink(Bin::Shl, v, shift as u64);
                let placed = e.bink(Bin::And, placed, field);
                match s.dst_unused {
                    0 => placed,
                    1 => {
                        let sign = e.field(v, bits - 1, 1);
                        let neg = e.nz(sign);
                        let above = if shift + bits >= 32 {
                            0
                        } else {
                            (u32::MAX << (shift + bits)) as u64
                        };
                        let a = e.k32(above as u32);
                        let z = e.k32(0);
                        let ext = e.select(neg, a, z);
                        e.bin(Bin::Or, placed, ext)
                    }
                    2 => {
                        let kept = e.bink(Bin::And, old, !field & 0xffff_ffff);
                        e.bin(Bin::Or, kept, placed)
                    }
                    _ => return Err(refusal(inst, pc, "reserved SDWA dst_unused")),
                }
            }
        }
        _ => v,
    };
    cx.vset_if(d, v, active);
    Ok(())
}

fn vector(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    use Op::*;
    // No operands: the model runs these as nothing in every form (DPP, VOP3 modifiers included).
    if matches!(inst.op, VNop | VPipeflush | VClrexcp) {
        return Ok(Done::Next);
    }
    vector_forms(inst, pc)?;
    if inst.encoding == Encoding::Vop3p {
        return vop3p(cx, inst, pc);
    }
    let op = inst.op;
    let native = inst.form == Form::Native;
    let m = inst.mods;
    if m.op_sel != 0 && !native {
        return Err(refusal(inst, pc, "op_sel outside VOP3-only operations"));
    }
    // DPP reads src0 from another lane: the exchange comes first, so everything below is in the segment
    // after it and the lanes' writes are DPP's.
    let dpp = dpp_prelude(cx, inst, pc)?;
    let src = |cx: &mut Cx, role: Role, half: bool| -> Result<Sv, Refusal> {
        let v = match (dpp, role) {
            (Some((var, _)), Role::Src0) => cx.get(var),
            _ => {
                let o = cx.op(inst, role, pc)?;
                cx.vread(o, half, inst, pc)?
            }
        };
        let v = sdwa_select(cx, inst, pc, role, v)?;
        let bit = match role {
            Role::Src0 => 0,
            Role::Src1 => 1,
            _ => 2,
        };
        Ok(if half && native && m.op_sel >> bit & 1 == 1 {
            cx.e.bink(Bin::LShr, v, 16)
        } else {
            v
        })
    };
    let has = |role| inst.operand(role).is_some();
    // Float source `i` (in `role`) of `fmt` with its abs/neg: f64 from a register pair, f16 from the half
    // SDWA or op_sel picks, f32 as read.
    let fsrc = |cx: &mut Cx, role: Role, i: u32, fmt: Fmt| -> Result<Sv, Refusal> {
        let v = if fmt == F64 {
            let o = cx.op(inst, role, pc)?;
            cx.vread64(o, true, inst, pc)?
        } else if fmt == F16 {
            let v = src(cx, role, true)?;
            cx.e.bink(Bin::And, v, 0xffff)
        } else {
            src(cx, role, false)?
        };
        Ok(float_source(cx, inst, i, v, fmt_sign(fmt)))
    };
    let active = cx.active();
    let active = match dpp {
        Some((_, w)) => {
            let w = cx.get(w);
            let w = cx.e.nz(w);
            cx.e.band(active, w)
        }
        None => active,
    };
    let vdst = || match inst.operand(Role::Vdst) {
        Some(Operand::Vgpr { first, .. }) => Ok(first as u32),
        other => Err(refusal(inst, pc, format!("vector destination {other:?}"))),
    };

    if let Some((fmt, f)) = float_op(op).filter(|&(t, f)| t == F64 || source_fmt(t, f) == F64) {
        if dpp.is_some() || matches!(inst.control, Control::Sdwa(_)) {
            return Err(refusal(inst, pc, "DPP or SDWA on an f64 operation"));
        }
        return float64_alu(cx, inst, pc, fmt, f, active);
    }
    if let Some((fmt, f)) = float_op(op) {
        // Sources in the operation's width (v_cvt_f16_f32 reads an f32); only the used ones.
        let half = source_fmt(fmt, f) == F16;
        let int_role = match f {
            FloatOp::FromInt(_) => Some(Role::Src0),
            FloatOp::Ldexp => Some(Role::Src1),
            _ => None,
        };
        if let (true, Some(role)) = (half, int_role) {
            // The model reads inline float constants of an i16 operand its own way: left to it.
            if let Some(Operand::InlineFloat(_)) = inst.operand(role) {
                return Err(refusal(
                    inst,
                    pc,
                    "an inline float constant as an integer source",
                ));
            }
        }
        let third = matches!(
            f,
            FloatOp::Fma(FmaC::Src2)
                | FloatOp::FmaLegacy(FmaC::Src2)
                | FloatOp::Mad(FmaC::Src2)
                | FloatOp::MadLegacy(FmaC::Src2)
                | FloatOp::MinMax3(_)
                | FloatOp::Med3
                | FloatOp::DivFixup
                | FloatOp::DivFmas
                | FloatOp::Cube(_)
                | FloatOp::PkU8
                | FloatOp::Mullit
        );
        let mut raw = [cx.e.k32(0); 3];
        for (i, role) in [Role::Src0, Role::Src1, Role::Src2].into_iter().enumerate() {
            if has(role) && (i < 2 || third) {
                let v = src(cx, role, half)?;
                raw[i] = if half {
                    cx.e.bink(Bin::And, v, 0xffff)
                } else {
                    v
                };
            }
        }
        return float_alu(cx, inst, pc, fmt, f, raw, active);
    }

    if matches!(op, VDivScaleF32 | VDivScaleF64) {
        // The model writes the scaled value as it is (no omod or clamp) and the VCC bits to the VOP3B destination.
        if dpp.is_some() || matches!(inst.control, Control::Sdwa(_)) {
            return Err(refusal(inst, pc, "DPP or SDWA on v_div_scale"));
        }
        let fmt = if op == VDivScaleF32 { F32 } else { F64 };
        let s0 = fsrc(cx, Role::Src0, 0, fmt)?;
        let s1 = fsrc(cx, Role::Src1, 1, fmt)?;
        let s2 = fsrc(cx, Role::Src2, 2, fmt)?;
        let d = vdst()?;
        let mode = cx.mode_word();
        let e = &mut cx.e;
        let env = if fmt == F64 {
            crate::sem::float::env64(e, mode)
        } else {
            crate::sem::float::env(e, mode)
        };
        let (v, vcc) = crate::sem::float::div_scale(e, &env, s0, s1, s2);
        if fmt == F64 {
            write_f64(cx, d, v, active);
        } else {
            write32(cx, inst, pc, d, v, active)?;
        }
        lane_mask_out(cx, inst, pc, vcc, active)?;
        return Ok(Done::Next);
    }

    if matches!(op, VCvtPkrtzF16F32 | VPackB32F16) {
        // Two halves from two sources: f32 ones rounded toward zero, or f16 ones as given.
        let pack = op == VPackB32F16;
        let fmt = if pack { F16 } else { F32 };
        let mut h = [fsrc(cx, Role::Src0, 0, fmt)?, fsrc(cx, Role::Src1, 1, fmt)?];
        let mode = cx.mode_word();
        let e = &mut cx.e;
        let e16 = crate::sem::float::env16(e, mode);
        let e32 = crate::sem::float::env(e, mode);
        for v in h.iter_mut() {
            *v = if pack {
                crate::sem::float::pack_half(e, &e16, *v)
            } else {
                crate::sem::float::cvt_pkrtz_half(e, &e32, &e16, *v)
            };
        }
        let hi = e.bink(Bin::Shl, h[1], 16);
        let v = e.bin(Bin::Or, h[0], hi);
        let d = vdst()?;
        write32(cx, inst, pc, d, v, active)?;
        return Ok(Done::Next);
    }
    if matches!(op, VDot4cI32I8 | VDot2cF32F16) {
        // The dot products accumulating onto the old destination; no modifiers but DPP.
        let a = src(cx, Role::Src0, false)?;
        let b = src(cx, Role::Src1, false)?;
        let d = vdst()?;
        let c = cx.vget(d);
        let v = if op == VDot4cI32I8 {
            valu::dot(&mut cx.e, op, a, b, c, false).expect("a dot product")
        } else {
            let mode = cx.mode_word();
            let e = &mut cx.e;
            let e32 = crate::sem::float::env(e, mode);
            let e16 = crate::sem::float::env16(e, mode);
            crate::sem::float::dot2(e, &e32, &e16, a, b, c)
        };
        write32(cx, inst, pc, d, v, active)?;
        return Ok(Done::Next);
    }
    if op == VPkFmacF16 {
        // Both halves fused onto the old destination's; sources and result without modifiers.
        let a = src(cx, Role::Src0, false)?;
        let b = src(cx, Role::Src1, false)?;
        let d = vdst()?;
        let c = cx.vget(d);
        let mode = cx.mode_word();
        let e = &mut cx.e;
        let env = crate::sem::float::env16(e, mode);
        let mut halves = [a; 2];
        for (h, out) in halves.iter_mut().enumerate() {
            let part = |e: &mut Emit, v: Sv| {
                let v = e.bink(Bin::LShr, v, 16 * h as u64);
                e.bink(Bin::And, v, 0xffff)
            };
            let s = [part(e, a), part(e, b), part(e, c)];
            *out = float_value(e, &env, mode, FloatOp::Fma(FmaC::Vdst), s);
        }
        let hi = e.bink(Bin::Shl, halves[1], 16);
        let v = e.bin(Bin::Or, halves[0], hi);
        write32(cx, inst, pc, d, v, active)?;
        return Ok(Done::Next);
    }

    // Compares: the lane's bit, exchanged into the wave's mask.
    if let Some((bits, _, cmpx, _)) = valu::int_compare(op) {
        let (a, b) = if bits == 64 {
            let (oa, ob) = (cx.op(inst, Role::Src0, pc)?, cx.op(inst, Role::Src1, pc)?);
            (
                cx.vread64(oa, false, inst, pc)?,
                cx.vread64(ob, false, inst, pc)?,
            )
        } else {
            (
                src(cx, Role::Src0, bits == 16)?,
                src(cx, Role::Src1, bits == 16)?,
            )
        };
        if m.clamp || m.op_sel != 0 {
            return Err(refusal(inst, pc, "modifiers on a compare"));
        }
        let r = valu::compare(&mut cx.e, op, a, b).expect("an integer compare");
        return finish_compare(cx, inst, pc, r, active, cmpx);
    }
    if let Some((bits, cond, cmpx)) = float_compare(op) {
        if m.clamp || m.op_sel != 0 {
            return Err(refusal(inst, pc, "clamp or op_sel on a compare"));
        }
        if bits == 64 && (dpp.is_some() || matches!(inst.control, Control::Sdwa(_))) {
            return Err(refusal(inst, pc, "DPP or SDWA on an f64 compare"));
        }
        let fmt = bits_fmt(bits);
        let s = [fsrc(cx, Role::Src0, 0, fmt)?, fsrc(cx, Role::Src1, 1, fmt)?];
        let mode = cx.mode_word();
        let e = &mut cx.e;
        let env = match bits {
            16 => crate::sem::float::env16(e, mode),
            32 => crate::sem::float::env(e, mode),
            _ => crate::sem::float::env64(e, mode),
        };
        let r = crate::sem::float::compare(e, &env, cond, s[0], s[1]);
        return finish_compare(cx, inst, pc, r, active, cmpx);
    }
    if let Some((bits, cmpx)) = class_test(op) {
        if m.clamp || m.op_sel != 0 {
            return Err(refusal(inst, pc, "clamp or op_sel on a class test"));
        }
        if bits == 64 && (dpp.is_some() || matches!(inst.control, Control::Sdwa(_))) {
            return Err(refusal(inst, pc, "DPP or SDWA on an f64 class test"));
        }
        let fmt = bits_fmt(bits);
        let x = fsrc(cx, Role::Src0, 0, fmt)?;
        // The class mask is a 32-bit integer source, read without modifiers.
        let mask = src(cx, Role::Src1, false)?;
        let r = crate::sem::float::class(&mut cx.e, fmt, x, mask);
        return finish_compare(cx, inst, pc, r, active, cmpx);
    }
    if valu::int_compare(op).is_none() && inst.encoding == Encoding::Vopc {
        return Err(refusal(inst, pc, "this compare is not translated yet"));
    }

    match op {
        VCndmaskB32 => {
            let cond = match (inst.form, inst.operand(Role::Src2)) {
                (Form::Native | Form::E64, Some(o)) => read_mask(cx, o, inst, pc)?,
                _ => cx.mask_at(sreg::VCC_LO),
            };
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on v_cndmask_b32"));
            }
            // abs and neg act on the sources' bits as on f32 ones (rule valu.cndmask_modifiers).
            let a = fsrc(cx, Role::Src0, 0, F32)?;
            let b = fsrc(cx, Role::Src1, 1, F32)?;
            let c = cx.lane_bit(cond);
            let v = cx.e.select(c, b, a);
            let d = vdst()?;
            write32(cx, inst, pc, d, v, active)?;
            return Ok(Done::Next);
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32 => {
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on a carry operation"));
            }
            let carry_in = matches!(op, VAddCoCiU32 | VSubCoCiU32 | VSubrevCoCiU32);
            let cin = if carry_in {
                let mask = match (inst.form, inst.operand(Role::Src2)) {
                    (Form::Native | Form::E64, Some(o)) => read_mask(cx, o, inst, pc)?,
                    _ => cx.mask_at(sreg::VCC_LO),
                };
                let b = cx.lane_bit(mask);
                cx.e.b2i(b, Ty::I64)
            } else {
                cx.e.k64(0)
            };
            let a = src(cx, Role::Src0, false)?;
            let b = src(cx, Role::Src1, false)?;
            let e = &mut cx.e;
            let (x, y) = (e.zext(a), e.zext(b));
            let (v, co) = match op {
                VAddCoU32 | VAddCoCiU32 => {
                    let r = e.bin(Bin::Add, x, y);
                    let r = e.bin(Bin::Add, r, cin);
                    let h = e.hi(r);
                    (e.trunc(r), e.nz(h))
                }
                VSubCoU32 | VSubCoCiU32 => {
                    let r = e.bin(Bin::Sub, x, y);
                    let r = e.bin(Bin::Sub, r, cin);
                    let yc = e.bin(Bin::Add, y, cin);
                    (e.trunc(r), e.cmp(Cmp::UGt, yc, x))
                }
                _ => {
                    let r = e.bin(Bin::Sub, y, x);
                    let r = e.bin(Bin::Sub, r, cin);
                    let xc = e.bin(Bin::Add, x, cin);
                    (e.trunc(r), e.cmp(Cmp::UGt, xc, y))
                }
            };
            let d = vdst()?;
            write32(cx, inst, pc, d, v, active)?;
            lane_mask_out(cx, inst, pc, co, active)?;
            return Ok(Done::Next);
        }
        VMadU64U32 | VMadI64I32 => {
            plain_form(inst, pc)?;
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on a 64-bit multiply-add"));
            }
            let a = src(cx, Role::Src0, false)?;
            let b = src(cx, Role::Src1, false)?;
            let oc = cx.op(inst, Role::Src2, pc)?;
            let c = cx.vread64(oc, false, inst, pc)?;
            let e = &mut cx.e;
            let (v, co) = if op == VMadU64U32 {
                let (x, y) = (e.zext(a), e.zext(b));
                let p = e.bin(Bin::Mul, x, y);
                let r = e.bin(Bin::Add, p, c);
                // Carry out of the 64-bit sum: r < p (unsigned wrap), the product itself fits in 64 bits.
                (r, e.cmp(Cmp::ULt, r, p))
            } else {
                let (x, y) = (e.sext(a), e.sext(b));
                let p = e.bin(Bin::Mul, x, y);
                let r = e.bin(Bin::Add, p, c);
                // Signed overflow of p + c: both operands of one sign and the sum of the other.
                let z = e.k64(0);
                let pn = e.cmp(Cmp::SLt, p, z);
                let cn = e.cmp(Cmp::SLt, c, z);
                let rn = e.cmp(Cmp::SLt, r, z);
                let same = e.cmp(Cmp::Eq, pn, cn);
                let flipped = e.cmp(Cmp::Ne, rn, pn);
                (r, e.band(same, flipped))
            };
            let d = vdst()?;
            let lo = cx.e.trunc(v);
            let hi = cx.e.hi(v);
            cx.vset_if(d, lo, active);
            cx.vset_if(d + 1, hi, active);
            let bit = cx.e.band(co, active);
            cx.publish_bit(bit);
            cx.cut();
            let mask = cx.gather_mask();
            cx.next_slot();
            let o = cx.op(inst, Role::Sdst, pc)?;
            cx.write_mask(o, mask, inst, pc)?;
            return Ok(Done::Next);
        }
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => {
            plain_form(inst, pc)?;
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on a 64-bit shift"));
            }
            let s = src(cx, Role::Src0, false)?;
            let o = cx.op(inst, Role::Src1, pc)?;
            let v = cx.vread64(o, false, inst, pc)?;
            let e = &mut cx.e;
            let s = e.bink(Bin::And, s, 63);
            let s = e.zext(s);
            let r = e.bin(
                match op {
                    VLshlrevB64 => Bin::Shl,
                    VLshrrevB64 => Bin::LShr,
                    _ => Bin::AShr,
                },
                v,
                s,
            );
            let (lo, hi) = (e.trunc(r), e.hi(r));
            let d = vdst()?;
            cx.vset_if(d, lo, active);
            cx.vset_if(d + 1, hi, active);
            return Ok(Done::Next);
        }
        VMbcntLoU32B32 | VMbcntHiU32B32 => {
            plain_form(inst, pc)?;
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on v_mbcnt"));
            }
            let a = src(cx, Role::Src0, false)?;
            let b = src(cx, Role::Src1, false)?;
            let e = &mut cx.e;
            let one = e.k64(1);
            let l = e.zext(cx.lane);
            let below = e.bin(Bin::Shl, one, l);
            let below = e.bink(Bin::Sub, below, 1);
            let part = if op == VMbcntLoU32B32 {
                e.trunc(below)
            } else {
                e.hi(below)
            };
            let x = e.bin(Bin::And, a, part);
            let n = e.un(crate::lower::Un::BitCount, x);
            let v = e.bin(Bin::Add, n, b);
            let d = vdst()?;
            cx.vset_if(d, v, active);
            return Ok(Done::Next);
        }
        VReadfirstlaneB32 | VReadlaneB32 => {
            plain_form(inst, pc)?;
            let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Src0) else {
                return Err(refusal(inst, pc, "v_readlane needs a VGPR source"));
            };
            let v = cx.vget(first as u32);
            cx.publish(0, v);
            cx.cut();
            // The lane select is read after the cut: values of the previous segment do not reach this one.
            let sel = if op == VReadlaneB32 {
                let o = cx.op(inst, Role::Src1, pc)?;
                Some(cx.sread(o, false, inst, pc)?)
            } else {
                None
            };
            let lane = match sel {
                // Rule valu.readlane_wrap: the select modulo the wave size.
                Some(s) => cx.e.bink(Bin::And, s, (cx.shape().wave - 1) as u64),
                None => {
                    // The first active lane; lane 0 when EXEC is zero (rule valu.readfirstlane_empty_exec).
                    let x = cx.exec();
                    let f = cx.e.un(crate::lower::Un::FindLsb, x);
                    let none = cx.e.k32(u32::MAX);
                    let empty = cx.e.cmp(Cmp::Eq, f, none);
                    let z = cx.e.k32(0);
                    cx.e.select(empty, z, f)
                }
            };
            let r = cx.fetch(lane, 0);
            cx.next_slot();
            let dst = inst
                .operand(Role::Sdst)
                .or(inst.operand(Role::Vdst))
                .ok_or_else(|| refusal(inst, pc, "no destination"))?;
            cx.swrite(dst, r, inst, pc)?;
            return Ok(Done::Next);
        }
        VQsadPkU16U8 | VMqsadPkU16U8 | VMqsadU32U8 => {
            if m.clamp {
                return Err(refusal(inst, pc, "clamp on a quad SAD is not documented"));
            }
            let oa = cx.op(inst, Role::Src0, pc)?;
            let a = cx.vread64(oa, false, inst, pc)?;
            let b = src(cx, Role::Src1, false)?;
            let oc = cx.op(inst, Role::Src2, pc)?;
            let c_lo = cx.vread64(oc, false, inst, pc)?;
            let c_hi = if op == VMqsadU32U8 {
                let hi = match oc {
                    Operand::Vgpr { first, width } => Operand::Vgpr {
                        first: first + 2,
                        width: width.saturating_sub(2),
                    },
                    Operand::Sgpr { first, width } => Operand::Sgpr {
                        first: first + 2,
                        width: width.saturating_sub(2),
                    },
                    other => {
                        return Err(refusal(
                            inst,
                            pc,
                            format!("128-bit source {other:?} is not a register range"),
                        ))
                    }
                };
                Some(cx.vread64(hi, false, inst, pc)?)
            } else {
                None
            };
            let r = valu::quad_sad(&mut cx.e, op, a, b, c_lo, c_hi);
            let d = vdst()?;
            for (i, v) in r.into_iter().enumerate() {
                cx.vset_if(d + i as u32, v, active);
            }
            return Ok(Done::Next);
        }
        VSwapB32 => {
            plain_form(inst, pc)?;
            let (Some(Operand::Vgpr { first: d, .. }), Some(Operand::Vgpr { first: s, .. })) =
                (inst.operand(Role::Vdst), inst.operand(Role::Src0))
            else {
                return Err(refusal(inst, pc, "v_swap needs VGPRs"));
            };
            let a = cx.vget(d as u32);
            let b = cx.vget(s as u32);
            cx.vset_if(d as u32, b, active);
            cx.vset_if(s as u32, a, active);
            return Ok(Done::Next);
        }
        VMovrelsB32 | VMovreldB32 | VMovrelsdB32 | VMovrelsd2B32 => {
            // DPP is refused before (dpp_prelude); SDWA and modifiers by the model's field check.
            plain_form(inst, pc)?;
            let Some(Operand::Vgpr { first: d, .. }) = inst.operand(Role::Vdst) else {
                return Err(refusal(
                    inst,
                    pc,
                    "relative addressing needs a VGPR destination",
                ));
            };
            let m0 = cx.sget(crate::compile::sreg::M0);
            let e = &mut cx.e;
            // Indices as the model forms them (no wrap: M0 at or past 256 puts every index past the file).
            let k256 = e.k32(256);
            let m0_in = e.cmp(Cmp::ULt, m0, k256);
            let m0c = e.select(m0_in, m0, k256);
            let (rs, rd) = match op {
                VMovrelsB32 => (m0c, e.k32(0)),
                VMovreldB32 => (e.k32(0), m0c),
                VMovrelsdB32 => (m0c, m0c),
                _ => {
                    let lo = e.bink(Bin::And, m0, 0x3ff);
                    let hi = e.field(m0, 16, 10);
                    (lo, hi)
                }
            };
            let dst = e.bink(Bin::Add, rd, d as u64);
            let v = match inst.operand(Role::Src0) {
                Some(Operand::Vgpr { first: s, .. }) => {
                    let src = cx.e.bink(Bin::Add, rs, s as u64);
                    cx.vget_dyn(src)
                }
                // v_movreld takes a scalar source too.
                _ if op == VMovreldB32 => src(cx, Role::Src0, false)?,
                _ => return Err(refusal(inst, pc, "relative addressing needs VGPR operands")),
            };
            cx.vset_dyn_if(dst, v, active);
            return Ok(Done::Next);
        }
        VPermlane16B32 | VPermlanex16B32 => {
            plain_form(inst, pc)?;
            let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Src0) else {
                return Err(refusal(inst, pc, "v_permlane needs a VGPR source"));
            };
            // op_sel[0] fetches inactive lanes, op_sel[1] is bound_ctrl (rule valu.permlane_fi_bound_ctrl).
            let (fi, bound) = (m.op_sel & 1 == 1, m.op_sel >> 1 & 1 == 1);
            let v = cx.vget(first as u32);
            cx.publish(0, v);
            cx.cut();
            let o1 = cx.op(inst, Role::Src1, pc)?;
            let o2 = cx.op(inst, Role::Src2, pc)?;
            let s1 = cx.sread(o1, false, inst, pc)?;
            let s2 = cx.sread(o2, false, inst, pc)?;
            let wave = cx.shape().wave;
            let exec = cx.exec();
            let lane = cx.lane;
            let e = &mut cx.e;
            let l = e.bink(Bin::And, lane, 15);
            let k8 = e.k32(8);
            let low = e.cmp(Cmp::ULt, l, k8);
            let sh = e.bink(Bin::And, l, 7);
            let sh = e.bink(Bin::Shl, sh, 2);
            let word = e.select(low, s1, s2);
            let sel = e.bin(Bin::LShr, word, sh);
            let sel = e.bink(Bin::And, sel, 15);
            let row = e.bink(Bin::LShr, lane, 4);
            let row = if op == VPermlanex16B32 {
                e.bink(Bin::Xor, row, 1)
            } else {
                row
            };
            let base = e.bink(Bin::Shl, row, 4);
            let from = e.bin(Bin::Add, base, sel);
            let kw = e.k32(wave);
            let inside = e.cmp(Cmp::ULt, from, kw);
            let z = e.k32(0);
            let safe = e.select(inside, from, z);
            let f64v = e.zext(safe);
            let bit = e.bin(Bin::LShr, exec, f64v);
            let bit = e.bink(Bin::And, bit, 1);
            let on = e.nz(bit);
            let on = if fi { e.kbool(true) } else { on };
            let ok = e.band(inside, on);
            let got = cx.fetch(safe, 0);
            cx.next_slot();
            let active = cx.active();
            let d = vdst()?;
            let old = cx.vget(d);
            let e = &mut cx.e;
            let z = e.k32(0);
            let fallback = if bound { z } else { old };
            let r = e.select(ok, got, fallback);
            cx.vset_if(d, r, active);
            return Ok(Done::Next);
        }
        VWritelaneB32 => {
            plain_form(inst, pc)?;
            let o0 = cx.op(inst, Role::Src0, pc)?;
            let o1 = cx.op(inst, Role::Src1, pc)?;
            let v = cx.sread(o0, false, inst, pc)?;
            let s = cx.sread(o1, false, inst, pc)?;
            let sel = cx.e.bink(Bin::And, s, (cx.shape().wave - 1) as u64);
            let me = cx.e.cmp(Cmp::Eq, sel, cx.lane);
            let d = vdst()?;
            cx.vset_if(d, v, me);
            return Ok(Done::Next);
        }
        _ => {}
    }
    // 16-bit integer operations (VOP3-only): op_sel halves, the result into one half, the other kept.
    let zero = cx.e.k32(0);
    let try16 = {
        let probe = &mut crate::lower::Eval;
        let z = probe.k32(0);
        valu::int16(probe, op, z, z, z, false).is_some()
    };
    if try16 {
        let a = src(cx, Role::Src0, true)?;
        let b = src(cx, Role::Src1, true)?;
        let c = if has(Role::Src2) {
            src(cx, Role::Src2, true)?
        } else {
            zero
        };
        let r = valu::int16(&mut cx.e, op, a, b, c, m.clamp).expect("a 16-bit operation");
        let d = vdst()?;
        if matches!(inst.control, Control::Sdwa(_)) {
            // SDWA places the 16-bit result by dst_sel, as a 32-bit one.
            write32(cx, inst, pc, d, r, active)?;
            return Ok(Done::Next);
        }
        let old = cx.vget(d);
        write16(cx, inst, d, old, r, active);
        return Ok(Done::Next);
    }
    if m.op_sel != 0 && !matches!(op, VMadU32U16 | VMadI32I16) || m.op_sel & 0b1100 != 0 {
        return Err(refusal(inst, pc, "op_sel on 32-bit operands"));
    }
    if matches!(op, VMadU32U16 | VMadI32I16) {
        let a = src(cx, Role::Src0, true)?;
        let b = src(cx, Role::Src1, true)?;
        let c = src(cx, Role::Src2, false)?;
        let r = valu::mad32_16(&mut cx.e, op, a, b, c, m.clamp).expect("mad");
        let d = vdst()?;
        cx.vset_if(d, r, active);
        return Ok(Done::Next);
    }
    let a = src(cx, Role::Src0, false)?;
    let b = if has(Role::Src1) {
        src(cx, Role::Src1, false)?
    } else {
        zero
    };
    let c = if has(Role::Src2) {
        src(cx, Role::Src2, false)?
    } else {
        zero
    };
    let clamps = {
        let probe = &mut crate::lower::Eval;
        let z = probe.k32(0);
        valu::int32(probe, op, z, z, z, false).is_some()
    };
    if !clamps {
        return Err(refusal(
            inst,
            pc,
            "float and other vector operations are not translated in this build",
        ));
    }
    let d = vdst()?;
    // A mask the host compiler cannot fold: lavapipe (Mesa 22.3.6, LLVM 15) on an AVX-512 CPU computes a
    // bit-select with a constant mask wrong (llvm-project issue 157929: ternlog with a constant-pool operand),
    // as `conformance fuzz` found (conformance/fuzz-regressions/seed-930*.toml). One load and an OR.
    let a = if op == Op::VBfiB32 { cx.e.opaque(a) } else { a };
    let r = valu::int32(&mut cx.e, op, a, b, c, m.clamp).expect("a 32-bit operation");
    write32(cx, inst, pc, d, r, active)?;
    Ok(Done::Next)
}

/// A lane mask operand (carry-in, condition): an SGPR or pair, VCC, EXEC or a constant.
fn read_mask(cx: &mut Cx, o: Operand, inst: &Instruction, pc: usize) -> Result<Sv, Refusal> {
    if cx.shape().wave == 64 {
        cx.sread64(o, false, inst, pc)
    } else {
        let v = cx.sread(o, false, inst, pc)?;
        Ok(cx.e.zext(v))
    }
}

// -------------------------------------------------------------------------------------------------
// Memory.

/// The bytes and extension of a sub-dword or dword load/store: (bytes, signed, dwords).
fn access_width(op: Op) -> Option<(u32, bool, u32)> {
    let m = op.mnemonic();
    let tail = m
        .rsplit_once("_load_")
        .or_else(|| m.rsplit_once("_store_"))
        .map(|(_, t)| t)?;
    Some(match tail {
        "ubyte" | "byte" => (1, false, 1),
        "sbyte" => (1, true, 1),
        "ushort" | "short" => (2, false, 1),
        "sshort" => (2, true, 1),
        "dword" => (4, false, 1),
        "dwordx2" => (4, false, 2),
        "dwordx3" => (4, false, 3),
        "dwordx4" => (4, false, 4),
        _ => return None,
    })
}

fn extend(cx: &mut Cx, v: Sv, bytes: u32, signed: bool) -> Sv {
    if bytes == 4 {
        v
    } else if signed {
        cx.e.sext_in(v, 8 * bytes)
    } else {
        v
    }
}

/// The source lane of a lane-select table (DPP quad_perm: `bits` 2, DPP8: 3): lane `l` reads the lane of its
/// group of `2^bits` that entry `l % 2^bits` names.
fn table_lane(e: &mut crate::spv::Emit, lane: Sv, table: &[u8], bits: u32) -> Sv {
    let size = 1u32 << bits;
    let packed = table.iter().enumerate().fold(0u32, |a, (i, &x)| {
        a | (x as u32 & (size - 1)) << (bits * i as u32)
    });
    let g = e.bink(Bin::And, lane, size as u64 - 1);
    let sh = e.bink(Bin::Mul, g, bits as u64);
    let k = e.k32(packed);
    let sel = e.bin(Bin::LShr, k, sh);
    let sel = e.bink(Bin::And, sel, size as u64 - 1);
    let base = e.bink(Bin::And, lane, !(size - 1) as u64);
    e.bin(Bin::Or, base, sel)
}

fn buffer(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    let op = inst.op;
    if matches!(op, Op::BufferGl0Inv | Op::BufferGl1Inv) {
        return Ok(Done::Next);
    }
    let f = mem_fields(inst);
    if f.lds || f.tfe {
        return Err(refusal(
            inst,
            pc,
            "buffer loads to LDS and TFE are not modelled",
        ));
    }
    let format_op = crate::memfmt::format_op(op);
    let d16 = crate::memfmt::d16_plain(op);
    let access_width = access_width(op);
    let atomic = op
        .mnemonic()
        .starts_with("buffer_atomic")
        .then(|| crate::sem::atomic::rmw_of(op))
        .flatten();
    if access_width.is_none() && format_op.is_none() && d16.is_none() && atomic.is_none() {
        return Err(refusal(
            inst,
            pc,
            "this buffer operation is not translated yet",
        ));
    }
    let store = writes_memory(op);
    let Some(Operand::Sgpr { first: rs, .. }) = inst.operand(Role::Srsrc) else {
        return Err(refusal(inst, pc, "buffer resource is not an SGPR range"));
    };
    let soffset = |cx: &mut Cx| -> Result<Sv, Refusal> {
        match inst.operand(Role::Soffset) {
            Some(o) => cx.sread(o, false, inst, pc),
            None => Ok(cx.e.k32(0)),
        }
    };
    let vaddr = if f.offen || f.idxen {
        match inst.operand(Role::Vaddr) {
            Some(Operand::Vgpr { first, .. }) => Some(first as u32),
            _ => return Err(refusal(inst, pc, "buffer address is not a VGPR")),
        }
    } else {
        None
    };
    let (vindex, voffset) = {
        let z = cx.e.k32(0);
        match (vaddr, f.idxen, f.offen) {
            (Some(a), true, true) => (cx.vget(a), cx.vget(a + 1)),
            (Some(a), true, false) => (cx.vget(a), z),
            (Some(a), false, true) => (z, cx.vget(a)),
            _ => (z, z),
        }
    };
    let active = cx.active();
    let data_reg = |cx: &Cx, role: Role| -> Result<u32, Refusal> {
        match inst.operand(role) {
            Some(Operand::Vgpr { first, .. }) => Ok(first as u32),
            other => {
                let _ = cx;
                Err(refusal(
                    inst,
                    pc,
                    format!("{role:?} is {other:?}, not a VGPR"),
                ))
            }
        }
    };
    if let Some(rmw) = atomic {
        // The returned value overwrites the data registers (rule `buffer.range_check`: an element past
        // NUM_RECORDS reads 0 and is not written).
        let data = data_reg(cx, Role::Vdata)?;
        let wide = op.mnemonic().ends_with("_x2");
        let bytes = if wide { 8 } else { 4 };
        let so = soffset(cx)?;
        let access = BufferAccess::new(cx, rs as u32, vindex, voffset, f.offset as u32, so);
        let (addr, ok) = access.piece(cx, 0, bytes);
        let go = cx.e.band(ok, active);
        mem_atomic(cx, rmw, wide, (addr, go), data, f.glc.then_some(data), pc);
        return Ok(Done::Next);
    }
    if let Some(fop) = format_op {
        let reg = if fop.store {
            data_reg(cx, Role::Vdata)?
        } else {
            data_reg(cx, Role::Vdst).or_else(|_| data_reg(cx, Role::Vdata))?
        };
        let so = soffset(cx)?;
        let access = BufferAccess::new(cx, rs as u32, vindex, voffset, f.offset as u32, so);
        crate::memfmt::format_access(cx, &access, rs as u32, fop, f.format, reg, pc);
        return Ok(Done::Next);
    }
    if let Some(d) = d16 {
        let reg = if d.store {
            data_reg(cx, Role::Vdata)?
        } else {
            data_reg(cx, Role::Vdst).or_else(|_| data_reg(cx, Role::Vdata))?
        };
        let so = soffset(cx)?;
        let access = BufferAccess::new(cx, rs as u32, vindex, voffset, f.offset as u32, so);
        let (addr, ok) = access.piece(cx, 0, d.bytes);
        let go = cx.e.band(ok, active);
        crate::memfmt::d16_access(cx, d, (addr, go), reg, pc);
        return Ok(Done::Next);
    }
    let Some((bytes, signed, dwords)) = access_width else {
        unreachable!("checked above")
    };
    if !store {
        let dst = data_reg(cx, Role::Vdst).or_else(|_| data_reg(cx, Role::Vdata))?;
        let n = if bytes == 4 { dwords } else { 1 };
        let so = soffset(cx)?;
        let access = BufferAccess::new(cx, rs as u32, vindex, voffset, f.offset as u32, so);
        let mut pieces = Vec::new();
        for i in 0..n {
            let (addr, ok) = access.piece(cx, 4 * i, bytes);
            let go = cx.e.band(ok, active);
            pieces.push((addr, go));
        }
        let vals = crate::units::load(cx, &pieces, bytes, pc);
        let active = cx.active();
        for (i, v) in vals.into_iter().enumerate() {
            let v = extend(cx, v, bytes, signed);
            cx.vset_if(dst + i as u32, v, active);
        }
        return Ok(Done::Next);
    }
    // Stores: the store unit writes every lane's pieces in lane order.
    let data = data_reg(cx, Role::Vdata)?;
    let n = if bytes == 4 { dwords } else { 1 };
    let so = soffset(cx)?;
    let access = BufferAccess::new(cx, rs as u32, vindex, voffset, f.offset as u32, so);
    let mut placed = Vec::new();
    for i in 0..n {
        let (addr, ok) = access.piece(cx, 4 * i, bytes);
        let go = cx.e.band(ok, active);
        placed.push((addr, go));
    }
    let at = crate::units::place_all(cx, &placed, bytes, pc);
    let pieces: Vec<(Sv, Sv)> = (0..n)
        .map(|i| (at[i as usize], cx.vget(data + i)))
        .collect();
    crate::units::store(cx, crate::units::SPACE_MEM, &pieces, bytes);
    Ok(Done::Next)
}

/// A buffer access: its V# (s[rs..rs+4)) and lane terms, the arguments of every piece's call.
pub(crate) struct BufferAccess {
    /// The V#'s four words, vindex, voffset, soffset and the lane.
    args: [Sv; 8],
    /// The instruction's offset.
    inst_offset: u32,
}

impl BufferAccess {
    pub(crate) fn new(
        cx: &mut Cx,
        rs: u32,
        vindex: Sv,
        voffset: Sv,
        inst_offset: u32,
        soffset: Sv,
    ) -> BufferAccess {
        let w: [Sv; 4] = std::array::from_fn(|i| cx.sget(rs + i as u32));
        BufferAccess {
            args: [w[0], w[1], w[2], w[3], vindex, voffset, soffset, cx.lane],
            inst_offset,
        }
    }

    /// The address and range check of bytes `[at, at + size)` of the access.
    pub(crate) fn piece(&self, cx: &mut Cx, at: u32, size: u32) -> (Sv, Sv) {
        let size = cx.e.k64(size as u64);
        self.piece_of(cx, at, size)
    }

    /// [`BufferAccess::piece`] for a size known at run time (64-bit): a call of the module's
    /// [`buffer_piece`] helper (a piece is about 60 instructions; a dwordx4 store has four).
    pub(crate) fn piece_of(&self, cx: &mut Cx, at: u32, size: Sv) -> (Sv, Sv) {
        let e = &mut cx.e;
        // The instruction offset is 12 bits and a piece at most 16 bytes in: no wrap.
        let pos = e.k64(self.inst_offset as u64 + at as u64);
        let mut args = [pos; 10];
        args[..8].copy_from_slice(&self.args);
        args[9] = size;
        let r = e.call_outlined(Helper::BufferPiece.key(), Ty::I64, &args);
        let addr = e.bink(Bin::And, r, 0xffff_ffff_ffff);
        let ok = e.bink(Bin::LShr, r, 63);
        let ok = e.trunc(ok);
        let ok = e.nz(ok);
        (addr, ok)
    }
}

/// The body of the buffer-piece helper: from the V# words, vindex, voffset, soffset, the lane, the piece's
/// offset in the access (instruction offset included, u64) and its size (u64), the 48-bit guest address in
/// the low bits and the range check in bit 63, as `reference_model::exec::buffer::piece` computes them
/// (rules buffer.range_check, buffer.swizzle_element_4).
pub(crate) fn buffer_piece(e: &mut Emit, p: &[Sv]) -> Sv {
    let [w0, w1, w2, w3, vindex, voffset, soffset, lane, pos, size] = p else {
        panic!("buffer_piece takes ten parameters")
    };
    let (w, lane, pos, size) = ([*w0, *w1, *w2, *w3], *lane, *pos, *size);
    let hi16 = e.bink(Bin::And, w[1], 0xffff);
    let base = e.pack(w[0], hi16);
    let stride = e.field(w[1], 16, 14);
    let stride64 = e.zext(stride);
    let swizzle = e.field(w[1], 31, 1);
    let swizzle = e.nz(swizzle);
    let index_stride_f = e.field(w[3], 21, 2);
    let add_tid = e.field(w[3], 23, 1);
    let add_tid = e.nz(add_tid);
    let oob = e.field(w[3], 28, 2);
    let z = e.k32(0);
    let tid = e.select(add_tid, lane, z);
    let index = e.bin(Bin::Add, *vindex, tid);
    let index = e.zext(index);
    let vo = e.zext(*voffset);
    let offset = e.bin(Bin::Add, vo, pos);
    let index_stride_log = e.bink(Bin::Add, index_stride_f, 3);
    let index_stride_log = e.zext(index_stride_log);
    let so = e.zext(*soffset);
    let start = e.bin(Bin::Add, base, so);
    let records = w[2];
    let records64 = e.zext(records);
    let linear = {
        let p = e.bin(Bin::Mul, index, stride64);
        e.bin(Bin::Add, p, offset)
    };
    let swz = {
        // Swizzled addressing with 4-byte elements. Index stride and element size are powers of two, so
        // the divisions are shifts and masks.
        let one = e.k64(1);
        let is = e.bin(Bin::Shl, one, index_stride_log);
        let index_msb = e.bin(Bin::LShr, index, index_stride_log);
        let ism1 = e.bink(Bin::Sub, is, 1);
        let index_lsb = e.bin(Bin::And, index, ism1);
        let offset_msb = e.bink(Bin::LShr, offset, 2);
        let offset_lsb = e.bink(Bin::And, offset, 3);
        let a = e.bin(Bin::Mul, index_msb, stride64);
        let b = e.bink(Bin::Mul, offset_msb, 4);
        let s = e.bin(Bin::Add, a, b);
        let s = e.bin(Bin::Mul, s, is);
        let c = e.bink(Bin::Mul, index_lsb, 4);
        let s = e.bin(Bin::Add, s, c);
        e.bin(Bin::Add, s, offset_lsb)
    };
    let boff = e.select(swizzle, swz, linear);
    let addr = e.bin(Bin::Add, start, boff);
    let addr = e.bink(Bin::And, addr, 0xffff_ffff_ffff);
    let end = e.bin(Bin::Add, offset, size);
    let idx_ok = e.cmp(Cmp::ULt, index, records64);
    let z64 = e.k64(0);
    let stride0 = e.cmp(Cmp::Eq, stride64, z64);
    let end_ok = e.cmp(Cmp::ULe, end, stride64);
    let in_stride = e.bor(stride0, end_ok);
    let sel0 = e.band(idx_ok, in_stride);
    let zr = e.k32(0);
    let sel2 = e.cmp(Cmp::Ne, records, zr);
    let sel3 = e.cmp(Cmp::ULe, end, records64);
    let k0 = e.k32(0);
    let k1 = e.k32(1);
    let k2 = e.k32(2);
    let is0 = e.cmp(Cmp::Eq, oob, k0);
    let is1 = e.cmp(Cmp::Eq, oob, k1);
    let is2 = e.cmp(Cmp::Eq, oob, k2);
    let r = e.select(is2, sel2, sel3);
    let r = e.select(is1, idx_ok, r);
    let ok = e.select(is0, sel0, r);
    let bit = e.k64(1 << 63);
    let zero = e.k64(0);
    let okbit = e.select(ok, bit, zero);
    e.bin(Bin::Or, addr, okbit)
}

fn global(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    let f = mem_fields(inst);
    if f.seg != 2 {
        return Err(refusal(
            inst,
            pc,
            "flat and scratch accesses are not translated yet",
        ));
    }
    if f.lds {
        return Err(refusal(inst, pc, "global loads to LDS are not modelled"));
    }
    let atomic = crate::sem::atomic::rmw_of(inst.op);
    let width = access_width(inst.op);
    let d16 = crate::memfmt::d16_plain(inst.op);
    if width.is_none() && atomic.is_none() && d16.is_none() {
        return Err(refusal(
            inst,
            pc,
            "this global operation is not translated yet",
        ));
    }
    // Address: a 64-bit VGPR pair, or SADDR (an SGPR pair) plus a 32-bit VGPR offset.
    let base = match inst.operand(Role::Sbase) {
        Some(Operand::Sgpr { .. }) | Some(Operand::VccLo { .. }) | Some(Operand::Ttmp { .. }) => {
            let o = cx.op(inst, Role::Sbase, pc)?;
            let s = cx.sread64(o, false, inst, pc)?;
            let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Vaddr) else {
                return Err(refusal(inst, pc, "global address is not a VGPR"));
            };
            let off = cx.vget(first as u32);
            let off = cx.e.zext(off);
            cx.e.bin(Bin::Add, s, off)
        }
        None | Some(Operand::Off) | Some(Operand::Null) => {
            let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Vaddr) else {
                return Err(refusal(inst, pc, "global address is not a VGPR pair"));
            };
            let lo = cx.vget(first as u32);
            let hi = cx.vget(first as u32 + 1);
            cx.e.pack(lo, hi)
        }
        Some(other) => {
            return Err(refusal(
                inst,
                pc,
                format!("saddr {other:?} is not translated"),
            ))
        }
    };
    let offset = cx.e.k64(f.offset as i64 as u64);
    let addr = cx.e.bin(Bin::Add, base, offset);
    let active = cx.active();
    if let Some(d) = d16 {
        let reg = match inst.operand(if d.store { Role::Vdata } else { Role::Vdst }) {
            Some(Operand::Vgpr { first, .. }) => first as u32,
            other => return Err(refusal(inst, pc, format!("data {other:?}"))),
        };
        crate::memfmt::d16_access(cx, d, (addr, active), reg, pc);
        return Ok(Done::Next);
    }
    let Some((bytes, signed, dwords)) = width else {
        let Some(rmw) = atomic else {
            unreachable!("checked above")
        };
        let data = match inst.operand(Role::Vdata) {
            Some(Operand::Vgpr { first, .. }) => first as u32,
            other => return Err(refusal(inst, pc, format!("data {other:?}"))),
        };
        let rtn = if f.glc {
            match inst.operand(Role::Vdst) {
                Some(Operand::Vgpr { first, .. }) => Some(first as u32),
                other => return Err(refusal(inst, pc, format!("destination {other:?}"))),
            }
        } else {
            None
        };
        let wide = inst.op.mnemonic().ends_with("_x2");
        mem_atomic(cx, rmw, wide, (addr, active), data, rtn, pc);
        return Ok(Done::Next);
    };
    let store = writes_memory(inst.op);
    let n = if bytes == 4 { dwords } else { 1 };
    if !store {
        let dst = match inst.operand(Role::Vdst) {
            Some(Operand::Vgpr { first, .. }) => first as u32,
            other => return Err(refusal(inst, pc, format!("destination {other:?}"))),
        };
        let pieces: Vec<(Sv, Sv)> = (0..n)
            .map(|i| (cx.e.bink(Bin::Add, addr, 4 * i as u64), active))
            .collect();
        let vals = crate::units::load(cx, &pieces, bytes, pc);
        let active = cx.active();
        for (i, v) in vals.into_iter().enumerate() {
            let v = extend(cx, v, bytes, signed);
            cx.vset_if(dst + i as u32, v, active);
        }
        return Ok(Done::Next);
    }
    let data = match inst.operand(Role::Vdata) {
        Some(Operand::Vgpr { first, .. }) => first as u32,
        other => return Err(refusal(inst, pc, format!("data {other:?}"))),
    };
    let placed: Vec<(Sv, Sv)> = (0..n)
        .map(|i| (cx.e.bink(Bin::Add, addr, 4 * i as u64), active))
        .collect();
    let at = crate::units::place_all(cx, &placed, bytes, pc);
    let pieces: Vec<(Sv, Sv)> = (0..n)
        .map(|i| (at[i as usize], cx.vget(data + i)))
        .collect();
    crate::units::store(cx, crate::units::SPACE_MEM, &pieces, bytes);
    Ok(Done::Next)
}

/// A buffer or global atomic (the model's `MemAtomic`): the lane's element at guest address `addr` when it
/// goes, updated by `rmw` in the read-modify-write unit (lanes in ascending order), with the source data from
/// VGPR `data` (two for `wide`) and, for the compare-swaps, the compare data after it; the old value (0 for a
/// lane that does not go) is written to `rtn` in the active lanes when GLC asks for it.
fn mem_atomic(
    cx: &mut Cx,
    rmw: crate::sem::atomic::Rmw,
    wide: bool,
    (addr, go): (Sv, Sv),
    data: u32,
    rtn: Option<u32>,
    pc: usize,
) {
    use crate::sem::atomic::Rmw;
    let bytes = if wide { 8 } else { 4 };
    let at = crate::units::place_all(cx, &[(addr, go)], bytes, pc)[0];
    let n = if wide { 2 } else { 1 };
    let d0 = crate::ds::read64(cx, data, wide);
    let d1 = if matches!(rmw, Rmw::CmpSwap | Rmw::FCmpSwap | Rmw::FCmpSwap64) {
        crate::ds::read64(cx, data + n, wide)
    } else {
        cx.e.k64(0)
    };
    let old = crate::units::rmw(cx, crate::units::SPACE_MEM, rmw, wide, &[(at, d0, d1)])[0];
    if let Some(r) = rtn {
        let active = cx.active();
        crate::ds::write_old(cx, r, old, wide, active);
    }
}

fn smem(cx: &mut Cx, inst: &Instruction, pc: usize) -> Result<Done, Refusal> {
    let m = inst.op.mnemonic();
    if matches!(
        inst.op,
        Op::SDcacheInv | Op::SDcacheWb | Op::SGl1Inv | Op::SDcacheDiscard | Op::SDcacheDiscardX2
    ) {
        return Ok(Done::Next);
    }
    let buffer = m.starts_with("s_buffer_load");
    if !(m.starts_with("s_load") || buffer) {
        return Err(refusal(
            inst,
            pc,
            "scalar stores, atomics and probes are not translated yet",
        ));
    }
    let dwords = match m.rsplit('_').next() {
        Some("dword") => 1,
        Some("dwordx2") => 2,
        Some("dwordx4") => 4,
        Some("dwordx8") => 8,
        Some("dwordx16") => 16,
        _ => return Err(refusal(inst, pc, "unknown scalar load width")),
    };
    let f = mem_fields(inst);
    let Some(Operand::Sgpr { first: sb, .. }) = inst.operand(Role::Sbase) else {
        return Err(refusal(inst, pc, "scalar base is not an SGPR range"));
    };
    let soff = match inst.operand(Role::Soffset) {
        Some(Operand::Null) | None => cx.e.k32(0),
        Some(o) => cx.sread(o, false, inst, pc)?,
    };
    let imm = cx.e.k32(f.offset as u32);
    let dst = match inst.operand(Role::Sdst).or(inst.operand(Role::Vdata)) {
        Some(Operand::Sgpr { first, .. }) => first as u32,
        Some(Operand::VccLo { .. }) => sreg::VCC_LO,
        Some(Operand::Ttmp { first, .. }) => sreg::TTMP0 + first as u32,
        other => {
            return Err(refusal(
                inst,
                pc,
                format!("scalar load destination {other:?}"),
            ))
        }
    };
    let all = cx.e.kbool(true);
    let mut pieces = Vec::new();
    if buffer {
        // s_buffer_load through the V# in s[sb..sb+4): dwords past NUM_RECORDS read 0 (rule smem.buffer_range).
        let w0 = cx.sget(sb as u32);
        let w1 = cx.sget(sb as u32 + 1);
        let w2 = cx.sget(sb as u32 + 2);
        let hi16 = cx.e.bink(Bin::And, w1, 0xffff);
        let base = cx.e.pack(w0, hi16);
        let off = cx.e.bin(Bin::Add, imm, soff);
        let off = cx.e.bink(Bin::And, off, !3u32 as u64);
        for i in 0..dwords {
            let o = cx.e.bink(Bin::Add, off, 4 * i as u64);
            let o64 = cx.e.zext(o);
            let a = cx.e.bin(Bin::Add, base, o64);
            let end = cx.e.bink(Bin::Add, o64, 4);
            let r = cx.e.zext(w2);
            let inr = cx.e.cmp(Cmp::ULe, end, r);
            pieces.push((a, inr));
        }
    } else {
        let lo = cx.sget(sb as u32);
        let hi = cx.sget(sb as u32 + 1);
        let base = cx.e.pack(lo, hi);
        let off = cx.e.bin(Bin::Add, imm, soff);
        let off = cx.e.zext(off);
        let a = cx.e.bin(Bin::Add, base, off);
        // s_load ignores the address's low two bits (rule smem.buffer_range).
        let a = cx.e.bink(Bin::And, a, !3u64);
        for i in 0..dwords {
            let ai = cx.e.bink(Bin::Add, a, 4 * i as u64);
            pieces.push((ai, all));
        }
    }
    let vals = crate::units::load(cx, &pieces, 4, pc);
    for (i, v) in vals.into_iter().enumerate() {
        cx.sset(dst + i as u32, v);
    }
    Ok(Done::Next)
}
