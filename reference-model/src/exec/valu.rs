//! Vector ALU: VOP1, VOP2, VOPC, VOP3 and VOP3P, in every encoding form (e32, e64, DPP16, DPP8, SDWA).
//!
//! Integer semantics follow the RDNA 2 ISA guide's instruction descriptions; cross-lane and DPP/SDWA rules
//! follow its "Data parallel processing" and "SDWA" sections. Float operations go to [`super::vfloat`].
//! The rules that are not plain arithmetic are named in [`crate::rules`] (`valu.*`, `dpp.*`, `sdwa.*`).

use super::ctx::{unsupported, Ctx, Ty};
use crate::isa::{Control, DppCtrl, Form, Instruction, Op, Operand, Role, SdwaSel};
use measurements::job::BackendError;

/// Per-instruction lane bookkeeping: which lanes write, where DPP reads src0 from, SDWA selects.
pub(super) struct Io<'i> {
    /// The instruction.
    pub inst: &'i Instruction,
    /// Its word index.
    pub pc: usize,
    /// Lanes of the wave.
    pub lanes: usize,
    /// EXEC at the start of the instruction.
    pub exec: u64,
    /// Lanes that compute and write a result.
    pub write: u64,
    /// DPP: the lane src0 is read from, or `None` for the bound_ctrl zero.
    dpp_src: Option<[Option<u8>; 64]>,
    /// Src0, Src1, Src2 and Vdst, looked up once rather than per lane.
    ops: [Option<Operand>; 4],
    /// Src0..Src2 as 32-bit reads resolved once: the common case of the per-lane loop.
    fast: [Fast; 3],
}

/// A 32-bit source resolved before the lane loop.
#[derive(Clone, Copy)]
enum Fast {
    /// VGPR index into the vector file.
    V(usize),
    /// The same value in every lane.
    K(u32),
    /// Needs the general path (DPP, SDWA, special sources).
    Slow,
}

/// The DPP16 source lane of `lane`, or `None` when the pattern leaves the row (rule `dpp.row_patterns`).
fn dpp16_lane(ctrl: DppCtrl, lane: usize) -> Option<usize> {
    let row = lane & !15;
    let l = lane & 15;
    Some(match ctrl {
        DppCtrl::QuadPerm(p) => (lane & !3) | p[lane & 3] as usize,
        DppCtrl::RowShl(n) => {
            let s = l + n as usize;
            if s > 15 {
                return None;
            }
            row + s
        }
        DppCtrl::RowShr(n) => {
            if l < n as usize {
                return None;
            }
            row + l - n as usize
        }
        DppCtrl::RowRor(n) => row + (l + 16 - n as usize) % 16,
        DppCtrl::RowMirror => row + 15 - l,
        DppCtrl::RowHalfMirror => (lane & !7) + 7 - (lane & 7),
        DppCtrl::RowShare(n) => row + n as usize,
        DppCtrl::RowXmask(n) => row + (l ^ n as usize),
        DppCtrl::Reserved(_) => return None,
    })
}

impl<'i> Io<'i> {
    fn new(cx: &Ctx, inst: &'i Instruction, pc: usize) -> Result<Io<'i>, BackendError> {
        let lanes = cx.wave.lanes;
        let exec = cx.wave.exec();
        let ops = [Role::Src0, Role::Src1, Role::Src2, Role::Vdst].map(|r| inst.operand(r));
        let mut io = Io {
            inst,
            pc,
            lanes,
            exec,
            write: exec,
            dpp_src: None,
            ops,
            fast: [Fast::Slow; 3],
        };
        let plain = !matches!(
            inst.control,
            Control::Dpp16(_) | Control::Dpp8(_) | Control::Sdwa(_)
        );
        if plain {
            for (fast, op) in io.fast.iter_mut().zip(ops) {
                *fast = match op {
                    Some(Operand::Vgpr { first, .. }) => Fast::V(first as usize),
                    Some(op) => cx.sread(op, Ty::B32).map_or(Fast::Slow, Fast::K),
                    None => Fast::Slow,
                };
            }
        }
        match inst.control {
            Control::Dpp16(d) => {
                if let DppCtrl::Reserved(c) = d.ctrl {
                    return Err(unsupported(
                        inst,
                        pc,
                        &format!("dpp_ctrl {c:#x} is reserved on gfx10"),
                    ));
                }
                let mut src = [None; 64];
                let mut write = 0u64;
                for (lane, slot) in src.iter_mut().enumerate().take(lanes) {
                    if exec >> lane & 1 == 0 {
                        continue;
                    }
                    let row_on = d.row_mask >> (lane / 16) & 1 == 1;
                    let bank_on = d.bank_mask >> ((lane & 15) / 4) & 1 == 1;
                    if !row_on || !bank_on {
                        continue;
                    }
                    // A source lane outside the row, or inactive without fetch-inactive, gives 0 with
                    // bound_ctrl and disables the lane's write without it (rule dpp.invalid_source).
                    match dpp16_lane(d.ctrl, lane)
                        .filter(|&s| s < lanes && (d.fi || exec >> s & 1 == 1))
                    {
                        Some(s) => {
                            *slot = Some(s as u8);
                            write |= 1 << lane;
                        }
                        None if d.bound_ctrl => write |= 1 << lane,
                        None => {}
                    }
                }
                io.write = write;
                io.dpp_src = Some(src);
            }
            Control::Dpp8(d) => {
                let mut src = [None; 64];
                for (lane, slot) in src.iter_mut().enumerate().take(lanes) {
                    let s = (lane & !7) | d.sel[lane & 7] as usize;
                    // An inactive source lane reads 0 unless fetch-inactive is set (rule dpp8.inactive_source).
                    if d.fi || exec >> s & 1 == 1 {
                        *slot = Some(s as u8);
                    }
                }
                io.dpp_src = Some(src);
            }
            _ => {}
        }
        Ok(io)
    }

    fn err(&self, m: &str) -> BackendError {
        unsupported(self.inst, self.pc, m)
    }

    fn operand(&self, role: Role) -> Result<Operand, BackendError> {
        self.inst
            .operand(role)
            .ok_or_else(|| self.err(&format!("no {role:?} operand")))
    }

    /// The lane src0 of `lane` is read from: the DPP-selected lane, `None` for DPP16's bound_ctrl zero, the lane
    /// itself in the other forms.
    pub fn src_lane(&self, lane: usize) -> Option<usize> {
        match &self.dpp_src {
            Some(map) => map[lane].map(usize::from),
            None => Some(lane),
        }
    }

    /// Lanes that write, ascending.
    pub fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.lanes).filter(|l| self.write >> l & 1 == 1)
    }

    /// A 32-bit source of `lane` with the form's lane remapping and SDWA select applied (no float modifiers).
    pub fn src(&self, cx: &Ctx, role: Role, lane: usize, ty: Ty) -> Result<u32, BackendError> {
        if ty == Ty::B32 {
            let i = match role {
                Role::Src0 => 0,
                Role::Src1 => 1,
                Role::Src2 => 2,
                _ => 3,
            };
            match self.fast.get(i) {
                Some(Fast::V(r)) => return Ok(cx.wave.vget(*r, lane)),
                Some(Fast::K(k)) => return Ok(*k),
                _ => {}
            }
        }
        let op = self.operand(role)?;
        let mut v = match (&self.dpp_src, role) {
            (Some(map), Role::Src0) => match map[lane] {
                Some(s) => cx.vread(op, s as usize, ty).map_err(|e| self.err(&e))?,
                None => 0,
            },
            _ => cx.vread(op, lane, ty).map_err(|e| self.err(&e))?,
        };
        if let Control::Sdwa(s) = self.inst.control {
            let (sel, sx) = match role {
                Role::Src0 => (s.src0_sel, s.sext[0]),
                Role::Src1 => (s.src1_sel, s.sext[1]),
                _ => (SdwaSel::Dword, false),
            };
            v = sdwa_select(v, sel, sx).ok_or_else(|| self.err("reserved SDWA select"))?;
        }
        Ok(v)
    }

    /// A 64-bit source of `lane` (no DPP/SDWA: 64-bit operations have only e32/e64 forms).
    pub fn src64(&self, cx: &Ctx, role: Role, lane: usize, ty: Ty) -> Result<u64, BackendError> {
        let op = self.operand(role)?;
        cx.vread64(op, lane, ty).map_err(|e| self.err(&e))
    }

    /// A 16-bit source: the half op_sel picks in VOP3 (`op_sel` bit of the source), the low half otherwise.
    pub fn src16(&self, cx: &Ctx, role: Role, lane: usize, ty: Ty) -> Result<u16, BackendError> {
        let v = self.src(cx, role, lane, ty)?;
        let bit = match role {
            Role::Src0 => 0,
            Role::Src1 => 1,
            Role::Src2 => 2,
            _ => 0,
        };
        let hi = self.inst.form == Form::Native && self.inst.mods.op_sel >> bit & 1 == 1;
        Ok(if hi { (v >> 16) as u16 } else { v as u16 })
    }

    /// Writes a 32-bit result of `lane` to the vector destination, merged as SDWA's dst_sel says.
    pub fn write32(&self, cx: &mut Ctx, lane: usize, v: u32) -> Result<(), BackendError> {
        if let (Some(Operand::Vgpr { first, .. }), false) =
            (self.ops[3], matches!(self.inst.control, Control::Sdwa(_)))
        {
            cx.wave.vset(first as usize, lane, v);
            return Ok(());
        }
        let Operand::Vgpr { first, .. } = self.operand(Role::Vdst)? else {
            return Err(self.err("vector destination is not a VGPR"));
        };
        let r = first as usize;
        let v = match self.inst.control {
            Control::Sdwa(s) => sdwa_merge(cx.wave.vget(r, lane), v, s.dst_sel, s.dst_unused)
                .ok_or_else(|| self.err("reserved SDWA dst_sel or dst_unused"))?,
            _ => v,
        };
        cx.wave.vset(r, lane, v);
        Ok(())
    }

    /// Writes a 16-bit result: the half VOP3 op_sel[3] picks (low otherwise); the other half keeps its value
    /// (rule `valu.d16_preserve`, measured for f16 results by peer-float16-rounding).
    pub fn write16(&self, cx: &mut Ctx, lane: usize, v: u16) -> Result<(), BackendError> {
        if let Control::Sdwa(_) = self.inst.control {
            return self.write32(cx, lane, v as u32);
        }
        let Operand::Vgpr { first, .. } = self.operand(Role::Vdst)? else {
            return Err(self.err("vector destination is not a VGPR"));
        };
        let r = first as usize;
        let old = cx.wave.vget(r, lane);
        let hi = self.inst.form == Form::Native && self.inst.mods.op_sel >> 3 & 1 == 1;
        let new = if hi {
            (old & 0xffff) | (v as u32) << 16
        } else {
            (old & 0xffff_0000) | v as u32
        };
        cx.wave.vset(r, lane, new);
        Ok(())
    }

    /// Writes a 64-bit result to a VGPR pair.
    pub fn write64(&self, cx: &mut Ctx, lane: usize, v: u64) -> Result<(), BackendError> {
        let Operand::Vgpr { first, .. } = self.operand(Role::Vdst)? else {
            return Err(self.err("vector destination is not a VGPR"));
        };
        cx.wave.vset(first as usize, lane, v as u32);
        cx.wave.vset(first as usize + 1, lane, (v >> 32) as u32);
        Ok(())
    }

    /// Dwords 2 and 3 of a 128-bit register-range source (v_mqsad_u32_u8's accumulators); constants have
    /// no defined 128-bit form, so they are refused.
    pub fn src_hi64(&self, cx: &Ctx, role: Role, lane: usize) -> Result<u64, BackendError> {
        let hi = match self.operand(role)? {
            Operand::Vgpr { first, width } => Operand::Vgpr {
                first: first + 2,
                width: width.saturating_sub(2),
            },
            Operand::Sgpr { first, width } => Operand::Sgpr {
                first: first + 2,
                width: width.saturating_sub(2),
            },
            other => {
                return Err(self.err(&format!("128-bit source {other:?} is not a register range")))
            }
        };
        cx.vread64(hi, lane, Ty::B64).map_err(|e| self.err(&e))
    }

    /// Writes dwords 2 and 3 of a 128-bit VGPR destination.
    pub fn write_hi64(&self, cx: &mut Ctx, lane: usize, v: u64) -> Result<(), BackendError> {
        let Operand::Vgpr { first, .. } = self.operand(Role::Vdst)? else {
            return Err(self.err("vector destination is not a VGPR"));
        };
        cx.wave.vset(first as usize + 2, lane, v as u32);
        cx.wave.vset(first as usize + 3, lane, (v >> 32) as u32);
        Ok(())
    }

    /// Writes a per-lane mask (compare result, carry-out): to the SGPR(s) the form names (a VOP3B SDST, the
    /// VDST field of VOPC in the VOP3 encoding: [`Instruction::mask_dst`]), else VCC. Lanes that did not compute
    /// read 0 (rule `valu.mask_inactive_zero`).
    pub fn write_mask(&self, cx: &mut Ctx, m: u64) -> Result<(), BackendError> {
        let m = m & self.write;
        // VOPC SDWA names its scalar destination in the SDWA dword (SD set), VCC otherwise.
        if let Control::Sdwa(crate::isa::Sdwa { sdst: Some(d), .. }) = self.inst.control {
            if d as usize != super::state::sreg::NULL {
                cx.wave.set_mask_at(d as usize, m);
            }
            return Ok(());
        }
        match self.inst.mask_dst() {
            Some(op) => cx.write_mask(op, m).map_err(|e| self.err(&e)),
            None => {
                cx.wave.set_mask_at(super::state::sreg::VCC_LO, m);
                Ok(())
            }
        }
    }

    /// The carry-in / condition mask: src2 in VOP3, VCC otherwise.
    pub fn read_cond(&self, cx: &Ctx) -> Result<u64, BackendError> {
        match (self.inst.form, self.inst.operand(Role::Src2)) {
            (Form::Native | Form::E64, Some(op)) => cx.read_mask(op).map_err(|e| self.err(&e)),
            _ => Ok(cx.wave.vcc()),
        }
    }

    /// Is the VOP3 clamp bit set?
    pub fn clamp(&self) -> bool {
        match self.inst.control {
            Control::Sdwa(s) => s.clamp,
            _ => self.inst.mods.clamp,
        }
    }
}

/// Reads the SDWA-selected part of `v`, zero- or sign-extended (rule `sdwa.select_merge`).
pub(super) fn sdwa_select(v: u32, sel: SdwaSel, sext: bool) -> Option<u32> {
    let (shift, bits) = match sel {
        SdwaSel::Byte(b) => (8 * b as u32, 8),
        SdwaSel::Word(w) => (16 * w as u32, 16),
        SdwaSel::Dword => return Some(v),
        SdwaSel::Reserved(_) => return None,
    };
    let f = (v >> shift) & ((1 << bits) - 1);
    Some(if sext {
        ((f << (32 - bits)) as i32 >> (32 - bits)) as u32
    } else {
        f
    })
}

/// Places a result in the SDWA destination field: unused bits 0 (pad), the field's sign (sext), or the old
/// value (preserve).
pub(super) fn sdwa_merge(old: u32, v: u32, sel: SdwaSel, unused: u8) -> Option<u32> {
    let (shift, bits) = match sel {
        SdwaSel::Byte(b) => (8 * b as u32, 8),
        SdwaSel::Word(w) => (16 * w as u32, 16),
        SdwaSel::Dword => return Some(v),
        SdwaSel::Reserved(_) => return None,
    };
    let field = ((1u32 << bits) - 1) << shift;
    let placed = (v << shift) & field;
    Some(match unused {
        0 => placed,
        1 => {
            let sign = v >> (bits - 1) & 1 == 1;
            let above = if shift + bits >= 32 {
                0
            } else {
                u32::MAX << (shift + bits)
            };
            placed | if sign { above } else { 0 }
        }
        2 => (old & !field) | placed,
        _ => return None,
    })
}

fn sat_u32(v: u64) -> u32 {
    v.min(u32::MAX as u64) as u32
}

fn sat_i32(v: i64) -> u32 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
}

fn sext24(v: u32) -> i64 {
    ((v << 8) as i32 >> 8) as i64
}

fn bfe(v: u32, off: u32, width: u32, signed: bool) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        return 0;
    }
    if signed {
        // Arithmetic shift as s_bfe_i32 measures (rule salu.bfe_signed_shift; inferred for the VALU form).
        let f = ((v as i32) >> off) as u32 & ((1u32 << width) - 1);
        ((f << (32 - width)) as i32 >> (32 - width)) as u32
    } else {
        (v >> off) & ((1u32 << width) - 1)
    }
}

fn perm_byte(s0: u32, s1: u32, sel: u32) -> u32 {
    let c = (s0 as u64) << 32 | s1 as u64;
    match sel & 0xff {
        s @ 0..=7 => (c >> (8 * s) & 0xff) as u32,
        8 => {
            if c >> 15 & 1 == 1 {
                0xff
            } else {
                0
            }
        }
        9 => {
            if c >> 31 & 1 == 1 {
                0xff
            } else {
                0
            }
        }
        10 => {
            if c >> 47 & 1 == 1 {
                0xff
            } else {
                0
            }
        }
        11 => {
            if c >> 63 & 1 == 1 {
                0xff
            } else {
                0
            }
        }
        12 => 0,
        _ => 0xff,
    }
}

fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

/// 32-bit integer operations of up to three sources, by op; `clamp` saturates the add/sub forms (rule
/// `valu.int_clamp`), the multiply-adds (`valu.int_clamp.mad`) and the SADs (`valu.sad_clamp`).
#[inline(always)]
fn int32(op: Op, a: u32, b: u32, c: u32, clamp: bool) -> Option<u32> {
    Some(match op {
        Op::VMovB32 => a,
        Op::VNotB32 => !a,
        Op::VBfrevB32 => a.reverse_bits(),
        Op::VFfbhU32 => {
            if a == 0 {
                u32::MAX
            } else {
                a.leading_zeros()
            }
        }
        Op::VFfblB32 => {
            if a == 0 {
                u32::MAX
            } else {
                a.trailing_zeros()
            }
        }
        Op::VFfbhI32 => {
            let x = if (a as i32) < 0 { !a } else { a };
            if x == 0 {
                u32::MAX
            } else {
                x.leading_zeros()
            }
        }
        Op::VAddNcU32 => {
            if clamp {
                sat_u32(a as u64 + b as u64)
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VSubNcU32 => {
            if clamp {
                a.saturating_sub(b)
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VSubrevNcU32 => {
            if clamp {
                b.saturating_sub(a)
            } else {
                b.wrapping_sub(a)
            }
        }
        Op::VAddNcI32 => {
            if clamp {
                sat_i32(a as i32 as i64 + b as i32 as i64)
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VSubNcI32 => {
            if clamp {
                sat_i32(a as i32 as i64 - b as i32 as i64)
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VMulI32I24 => (sext24(a) * sext24(b)) as u32,
        Op::VMulHiI32I24 => ((sext24(a) * sext24(b)) >> 32) as u32,
        Op::VMulU32U24 => ((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) as u32,
        Op::VMulHiU32U24 => (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32,
        Op::VMinI32 => (a as i32).min(b as i32) as u32,
        Op::VMaxI32 => (a as i32).max(b as i32) as u32,
        Op::VMinU32 => a.min(b),
        Op::VMaxU32 => a.max(b),
        Op::VLshrrevB32 => b >> (a & 31),
        Op::VAshrrevI32 => ((b as i32) >> (a & 31)) as u32,
        Op::VLshlrevB32 => b << (a & 31),
        Op::VAndB32 => a & b,
        Op::VOrB32 => a | b,
        Op::VXorB32 => a ^ b,
        Op::VXnorB32 => !(a ^ b),
        Op::VBcntU32B32 => a.count_ones().wrapping_add(b),
        Op::VBfmB32 => ((1u32 << (a & 31)).wrapping_sub(1)) << (b & 31),
        Op::VMulLoU32 | Op::VMulLoI32 => a.wrapping_mul(b),
        Op::VMulHiU32 => ((a as u64 * b as u64) >> 32) as u32,
        Op::VMulHiI32 => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
        Op::VMadU32U24 => {
            let r = (a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64 + c as u64;
            if clamp {
                sat_u32(r)
            } else {
                r as u32
            }
        }
        Op::VMadI32I24 => {
            let r = sext24(a) * sext24(b) + c as i32 as i64;
            if clamp {
                sat_i32(r)
            } else {
                r as u32
            }
        }
        Op::VBfeU32 => bfe(a, b, c, false),
        Op::VBfeI32 => bfe(a, b, c, true),
        Op::VBfiB32 => (a & b) | (!a & c),
        Op::VAlignbitB32 => (((a as u64) << 32 | b as u64) >> (c & 31)) as u32,
        Op::VAlignbyteB32 => (((a as u64) << 32 | b as u64) >> (8 * (c & 3))) as u32,
        Op::VMin3I32 => (a as i32).min(b as i32).min(c as i32) as u32,
        Op::VMax3I32 => (a as i32).max(b as i32).max(c as i32) as u32,
        Op::VMed3I32 => med3(a as i32, b as i32, c as i32) as u32,
        Op::VMin3U32 => a.min(b).min(c),
        Op::VMax3U32 => a.max(b).max(c),
        Op::VMed3U32 => med3(a, b, c),
        Op::VLshlAddU32 => (a << (b & 31)).wrapping_add(c),
        Op::VAddLshlU32 => a.wrapping_add(b) << (c & 31),
        Op::VAdd3U32 => a.wrapping_add(b).wrapping_add(c),
        Op::VLshlOrB32 => (a << (b & 31)) | c,
        Op::VAndOrB32 => (a & b) | c,
        Op::VOr3B32 => a | b | c,
        Op::VXor3B32 => a ^ b ^ c,
        Op::VXadU32 => (a ^ b).wrapping_add(c),
        Op::VPermB32 => (0..4)
            .map(|i| perm_byte(a, b, c >> (8 * i)) << (8 * i))
            .fold(0, |x, y| x | y),
        // With clamp the unsigned sum saturates at 0xffffffff (rule valu.sad_clamp, peer-pinned).
        Op::VSadU8 | Op::VSadHiU8 | Op::VMsadU8 | Op::VSadU16 | Op::VSadU32 => {
            let sad = match op {
                Op::VSadU8 => sad_bytes(a, b, 0, false) as u64,
                Op::VSadHiU8 => (sad_bytes(a, b, 0, false) as u64) << 16,
                Op::VMsadU8 => sad_bytes(a, b, 0, true) as u64,
                Op::VSadU16 => (0..2)
                    .map(|i| ((a >> (16 * i)) as u16).abs_diff((b >> (16 * i)) as u16) as u64)
                    .sum(),
                _ => a.abs_diff(b) as u64,
            };
            let r = sad + c as u64;
            if clamp {
                sat_u32(r)
            } else {
                r as u32
            }
        }
        Op::VLerpU8 => (0..4)
            .map(|i| {
                let (x, y, z) = (
                    (a >> (8 * i)) & 0xff,
                    (b >> (8 * i)) & 0xff,
                    (c >> (8 * i)) & 1,
                );
                ((x + y + z) >> 1) << (8 * i)
            })
            .fold(0, |x, y| x | y),
        Op::VCvtPkU16U32 => (a.min(0xffff)) | (b.min(0xffff)) << 16,
        Op::VCvtPkI16I32 => {
            let s = |v: u32| (v as i32).clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u32;
            s(a) | s(b) << 16
        }
        Op::VSatPkU8I16 => {
            let s = |v: u32| (v as u16 as i16).clamp(0, 255) as u32;
            s(a) | s(a >> 16) << 8
        }
        _ => return None,
    })
}

/// 16-bit integer operations (sources already op_sel-selected).
fn int16(op: Op, a: u16, b: u16, c: u16, clamp: bool) -> Option<u16> {
    Some(match op {
        Op::VAddNcU16 => {
            if clamp {
                a.saturating_add(b)
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VSubNcU16 => {
            if clamp {
                a.saturating_sub(b)
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VAddNcI16 => {
            if clamp {
                (a as i16).saturating_add(b as i16) as u16
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VSubNcI16 => {
            if clamp {
                (a as i16).saturating_sub(b as i16) as u16
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VMulLoU16 => a.wrapping_mul(b),
        Op::VLshlrevB16 => b << (a & 15),
        Op::VLshrrevB16 => b >> (a & 15),
        Op::VAshrrevI16 => ((b as i16) >> (a & 15)) as u16,
        Op::VMaxU16 => a.max(b),
        Op::VMaxI16 => (a as i16).max(b as i16) as u16,
        Op::VMinU16 => a.min(b),
        Op::VMinI16 => (a as i16).min(b as i16) as u16,
        Op::VMadU16 => {
            let r = a as u32 * b as u32 + c as u32;
            if clamp {
                r.min(0xffff) as u16
            } else {
                r as u16
            }
        }
        Op::VMadI16 => {
            let r = a as i16 as i32 * b as i16 as i32 + c as i16 as i32;
            if clamp {
                r.clamp(i16::MIN as i32, i16::MAX as i32) as u16
            } else {
                r as u16
            }
        }
        Op::VMin3U16 => a.min(b).min(c),
        Op::VMax3U16 => a.max(b).max(c),
        Op::VMed3U16 => med3(a, b, c),
        Op::VMin3I16 => (a as i16).min(b as i16).min(c as i16) as u16,
        Op::VMax3I16 => (a as i16).max(b as i16).max(c as i16) as u16,
        Op::VMed3I16 => med3(a as i16, b as i16, c as i16) as u16,
        _ => return None,
    })
}

/// Packed 16-bit integer operations, per half.
fn pk16(op: Op, a: u16, b: u16, c: u16, clamp: bool) -> Option<u16> {
    Some(match op {
        Op::VPkAddU16 => {
            if clamp {
                a.saturating_add(b)
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VPkSubU16 => {
            if clamp {
                a.saturating_sub(b)
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VPkAddI16 => {
            if clamp {
                (a as i16).saturating_add(b as i16) as u16
            } else {
                a.wrapping_add(b)
            }
        }
        Op::VPkSubI16 => {
            if clamp {
                (a as i16).saturating_sub(b as i16) as u16
            } else {
                a.wrapping_sub(b)
            }
        }
        Op::VPkMulLoU16 => a.wrapping_mul(b),
        Op::VPkLshlrevB16 => b << (a & 15),
        Op::VPkLshrrevB16 => b >> (a & 15),
        Op::VPkAshrrevI16 => ((b as i16) >> (a & 15)) as u16,
        Op::VPkMaxU16 => a.max(b),
        Op::VPkMinU16 => a.min(b),
        Op::VPkMaxI16 => (a as i16).max(b as i16) as u16,
        Op::VPkMinI16 => (a as i16).min(b as i16) as u16,
        Op::VPkMadU16 => {
            let r = a as u32 * b as u32 + c as u32;
            if clamp {
                r.min(0xffff) as u16
            } else {
                r as u16
            }
        }
        Op::VPkMadI16 => {
            let r = a as i16 as i32 * b as i16 as i32 + c as i16 as i32;
            if clamp {
                r.clamp(i16::MIN as i32, i16::MAX as i32) as u16
            } else {
                r as u16
            }
        }
        _ => return None,
    })
}

/// Is `op` one of the integer compares?
pub(super) fn is_int_cmp(op: Op) -> bool {
    int_cmp(op).is_some()
}

/// Is `op` one of the 32-bit integer operations of the common path (VOP1/VOP2/VOP3 integer ALU)?
pub(super) fn is_int_op(op: Op) -> bool {
    int32(op, 0, 0, 0, false).is_some()
}

/// The integer compare `op` is (width, signedness, predicate, writes EXEC), for the compact form.
pub(super) fn int_cmp_facts(op: Op) -> Option<IntCmp> {
    int_cmp(op)
}

/// A 32-bit integer operation without clamp, inlined so a loop with `op` fixed keeps only its arm.
#[inline(always)]
pub(super) fn int32_inline(op: Op, a: u32, b: u32, c: u32) -> u32 {
    int32(op, a, b, c, false).unwrap_or(0)
}

/// Whether the integer compare `op` writes EXEC (v_cmpx); `None` when `op` is no integer compare.
pub(super) fn int_cmp_writes_exec(op: Op) -> Option<bool> {
    int_cmp(op).map(|c| c.3)
}

/// An integer compare: width in bits, signedness, predicate, and whether it writes EXEC (v_cmpx).
pub(super) type IntCmp = (u32, bool, fn(i128, i128) -> bool, bool);

/// The integer compare `op` is, if it is one.
fn int_cmp(op: Op) -> Option<IntCmp> {
    use Op::*;
    let lt: fn(i128, i128) -> bool = |a, b| a < b;
    let eq: fn(i128, i128) -> bool = |a, b| a == b;
    let le: fn(i128, i128) -> bool = |a, b| a <= b;
    let gt: fn(i128, i128) -> bool = |a, b| a > b;
    let ne: fn(i128, i128) -> bool = |a, b| a != b;
    let ge: fn(i128, i128) -> bool = |a, b| a >= b;
    let f: fn(i128, i128) -> bool = |_, _| false;
    let t: fn(i128, i128) -> bool = |_, _| true;
    // (bits, signed, predicate, writes EXEC)
    Some(match op {
        VCmpFI32 => (32, true, f, false),
        VCmpLtI32 => (32, true, lt, false),
        VCmpEqI32 => (32, true, eq, false),
        VCmpLeI32 => (32, true, le, false),
        VCmpGtI32 => (32, true, gt, false),
        VCmpNeI32 => (32, true, ne, false),
        VCmpGeI32 => (32, true, ge, false),
        VCmpTI32 => (32, true, t, false),
        VCmpFU32 => (32, false, f, false),
        VCmpLtU32 => (32, false, lt, false),
        VCmpEqU32 => (32, false, eq, false),
        VCmpLeU32 => (32, false, le, false),
        VCmpGtU32 => (32, false, gt, false),
        VCmpNeU32 => (32, false, ne, false),
        VCmpGeU32 => (32, false, ge, false),
        VCmpTU32 => (32, false, t, false),
        VCmpFI64 => (64, true, f, false),
        VCmpLtI64 => (64, true, lt, false),
        VCmpEqI64 => (64, true, eq, false),
        VCmpLeI64 => (64, true, le, false),
        VCmpGtI64 => (64, true, gt, false),
        VCmpNeI64 => (64, true, ne, false),
        VCmpGeI64 => (64, true, ge, false),
        VCmpTI64 => (64, true, t, false),
        VCmpFU64 => (64, false, f, false),
        VCmpLtU64 => (64, false, lt, false),
        VCmpEqU64 => (64, false, eq, false),
        VCmpLeU64 => (64, false, le, false),
        VCmpGtU64 => (64, false, gt, false),
        VCmpNeU64 => (64, false, ne, false),
        VCmpGeU64 => (64, false, ge, false),
        VCmpTU64 => (64, false, t, false),
        VCmpLtI16 => (16, true, lt, false),
        VCmpEqI16 => (16, true, eq, false),
        VCmpLeI16 => (16, true, le, false),
        VCmpGtI16 => (16, true, gt, false),
        VCmpNeI16 => (16, true, ne, false),
        VCmpGeI16 => (16, true, ge, false),
        VCmpLtU16 => (16, false, lt, false),
        VCmpEqU16 => (16, false, eq, false),
        VCmpLeU16 => (16, false, le, false),
        VCmpGtU16 => (16, false, gt, false),
        VCmpNeU16 => (16, false, ne, false),
        VCmpGeU16 => (16, false, ge, false),
        VCmpxFI32 => (32, true, f, true),
        VCmpxLtI32 => (32, true, lt, true),
        VCmpxEqI32 => (32, true, eq, true),
        VCmpxLeI32 => (32, true, le, true),
        VCmpxGtI32 => (32, true, gt, true),
        VCmpxNeI32 => (32, true, ne, true),
        VCmpxGeI32 => (32, true, ge, true),
        VCmpxTI32 => (32, true, t, true),
        VCmpxFU32 => (32, false, f, true),
        VCmpxLtU32 => (32, false, lt, true),
        VCmpxEqU32 => (32, false, eq, true),
        VCmpxLeU32 => (32, false, le, true),
        VCmpxGtU32 => (32, false, gt, true),
        VCmpxNeU32 => (32, false, ne, true),
        VCmpxGeU32 => (32, false, ge, true),
        VCmpxTU32 => (32, false, t, true),
        VCmpxFI64 => (64, true, f, true),
        VCmpxLtI64 => (64, true, lt, true),
        VCmpxEqI64 => (64, true, eq, true),
        VCmpxLeI64 => (64, true, le, true),
        VCmpxGtI64 => (64, true, gt, true),
        VCmpxNeI64 => (64, true, ne, true),
        VCmpxGeI64 => (64, true, ge, true),
        VCmpxTI64 => (64, true, t, true),
        VCmpxFU64 => (64, false, f, true),
        VCmpxLtU64 => (64, false, lt, true),
        VCmpxEqU64 => (64, false, eq, true),
        VCmpxLeU64 => (64, false, le, true),
        VCmpxGtU64 => (64, false, gt, true),
        VCmpxNeU64 => (64, false, ne, true),
        VCmpxGeU64 => (64, false, ge, true),
        VCmpxTU64 => (64, false, t, true),
        VCmpxLtI16 => (16, true, lt, true),
        VCmpxEqI16 => (16, true, eq, true),
        VCmpxLeI16 => (16, true, le, true),
        VCmpxGtI16 => (16, true, gt, true),
        VCmpxNeI16 => (16, true, ne, true),
        VCmpxGeI16 => (16, true, ge, true),
        VCmpxLtU16 => (16, false, lt, true),
        VCmpxEqU16 => (16, false, eq, true),
        VCmpxLeU16 => (16, false, le, true),
        VCmpxGtU16 => (16, false, gt, true),
        VCmpxNeU16 => (16, false, ne, true),
        VCmpxGeU16 => (16, false, ge, true),
        _ => return None,
    })
}

/// Writes a compare's lane mask: EXEC for v_cmpx, else the sdst/VCC.
pub(super) fn finish_compare(
    cx: &mut Ctx,
    io: &Io,
    m: u64,
    cmpx: bool,
) -> Result<(), BackendError> {
    if cmpx {
        // gfx10 v_cmpx writes EXEC only (rule valu.cmpx_exec_only; LLVM prints no destination).
        cx.wave.set_exec(m & io.write);
        Ok(())
    } else {
        io.write_mask(cx, m)
    }
}

pub(super) fn exec(cx: &mut Ctx, inst: &Instruction, pc: usize) -> Result<(), BackendError> {
    super::fields::check(inst, pc)?;
    exec_checked(cx, inst, pc)
}

/// Runs a VALU instruction whose fields [`super::fields::check`] has accepted.
pub(super) fn exec_checked(
    cx: &mut Ctx,
    inst: &Instruction,
    pc: usize,
) -> Result<(), BackendError> {
    let io = Io::new(cx, inst, pc)?;
    let op = inst.op;
    let (has1, has2) = (
        inst.operand(Role::Src1).is_some(),
        inst.operand(Role::Src2).is_some(),
    );
    let has = |r| match r {
        Role::Src1 => has1,
        Role::Src2 => has2,
        _ => inst.operand(r).is_some(),
    };

    if let Some((bits, signed, pred, cmpx)) = int_cmp(op) {
        let mut m = 0u64;
        for lane in io.active() {
            let (a, b) = match bits {
                64 => {
                    let (a, b) = (
                        io.src64(cx, Role::Src0, lane, Ty::B64)?,
                        io.src64(cx, Role::Src1, lane, Ty::B64)?,
                    );
                    if signed {
                        (a as i64 as i128, b as i64 as i128)
                    } else {
                        (a as i128, b as i128)
                    }
                }
                32 => {
                    let (a, b) = (
                        io.src(cx, Role::Src0, lane, Ty::B32)?,
                        io.src(cx, Role::Src1, lane, Ty::B32)?,
                    );
                    if signed {
                        (a as i32 as i128, b as i32 as i128)
                    } else {
                        (a as i128, b as i128)
                    }
                }
                _ => {
                    let (a, b) = (
                        io.src16(cx, Role::Src0, lane, Ty::I16)?,
                        io.src16(cx, Role::Src1, lane, Ty::I16)?,
                    );
                    if signed {
                        (a as i16 as i128, b as i16 as i128)
                    } else {
                        (a as i128, b as i128)
                    }
                }
            };
            if pred(a, b) {
                m |= 1 << lane;
            }
        }
        return finish_compare(cx, &io, m, cmpx);
    }

    match op {
        Op::VNop | Op::VPipeflush | Op::VClrexcp => return Ok(()),
        Op::VCndmaskB32 => {
            let cond = io.read_cond(cx)?;
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let (a, b) = (
                    io.src(cx, Role::Src0, lane, Ty::B32)?,
                    io.src(cx, Role::Src1, lane, Ty::B32)?,
                );
                // Float source modifiers apply to v_cndmask's operands as bit operations (rule
                // valu.cndmask_modifiers).
                let a = fmods32(&io, 0, a);
                let b = fmods32(&io, 1, b);
                out.push((lane, if cond >> lane & 1 == 1 { b } else { a }));
            }
            for (lane, v) in out {
                io.write32(cx, lane, v)?;
            }
            return Ok(());
        }
        Op::VAddCoU32
        | Op::VSubCoU32
        | Op::VSubrevCoU32
        | Op::VAddCoCiU32
        | Op::VSubCoCiU32
        | Op::VSubrevCoCiU32 => {
            // clamp is refused for these (exec/fields.rs): nothing documents the carry-out of a clamped sum.
            let carry_in = matches!(op, Op::VAddCoCiU32 | Op::VSubCoCiU32 | Op::VSubrevCoCiU32);
            let cin = if carry_in { io.read_cond(cx)? } else { 0 };
            let mut carry = 0u64;
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let (a, b) = (
                    io.src(cx, Role::Src0, lane, Ty::B32)? as u64,
                    io.src(cx, Role::Src1, lane, Ty::B32)? as u64,
                );
                let c = cin >> lane & 1;
                let (v, co) = match op {
                    Op::VAddCoU32 | Op::VAddCoCiU32 => {
                        let r = a + b + c;
                        (r as u32, r >> 32 != 0)
                    }
                    Op::VSubCoU32 | Op::VSubCoCiU32 => {
                        (a.wrapping_sub(b).wrapping_sub(c) as u32, b + c > a)
                    }
                    _ => (b.wrapping_sub(a).wrapping_sub(c) as u32, a + c > b),
                };
                if co {
                    carry |= 1 << lane;
                }
                out.push((lane, v));
            }
            for (lane, v) in out {
                io.write32(cx, lane, v)?;
            }
            return io.write_mask(cx, carry);
        }
        Op::VMadU64U32 | Op::VMadI64I32 => {
            let mut carry = 0u64;
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let (a, b) = (
                    io.src(cx, Role::Src0, lane, Ty::B32)?,
                    io.src(cx, Role::Src1, lane, Ty::B32)?,
                );
                let c = io.src64(cx, Role::Src2, lane, Ty::B64)?;
                let (v, co) = if op == Op::VMadU64U32 {
                    let r = a as u128 * b as u128 + c as u128;
                    (r as u64, r >> 64 != 0)
                } else {
                    let r = a as i32 as i128 * b as i32 as i128 + c as i64 as i128;
                    (r as u64, r < i64::MIN as i128 || r > i64::MAX as i128)
                };
                if co {
                    carry |= 1 << lane;
                }
                out.push((lane, v));
            }
            for (lane, v) in out {
                io.write64(cx, lane, v)?;
            }
            return io.write_mask(cx, carry);
        }
        Op::VQsadPkU16U8 | Op::VMqsadPkU16U8 | Op::VMqsadU32U8 => {
            if io.inst.mods.clamp {
                return Err(io.err("clamp on a quad SAD is not documented"));
            }
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let a = io.src64(cx, Role::Src0, lane, Ty::B64)?;
                let b = io.src(cx, Role::Src1, lane, Ty::B32)?;
                let c_lo = io.src64(cx, Role::Src2, lane, Ty::B64)?;
                let c_hi = if op == Op::VMqsadU32U8 {
                    io.src_hi64(cx, Role::Src2, lane)?
                } else {
                    0
                };
                out.push((
                    lane,
                    quad_sad(op, a, b, c_lo as u128 | (c_hi as u128) << 64),
                ));
            }
            for (lane, v) in out {
                io.write64(cx, lane, v as u64)?;
                if op == Op::VMqsadU32U8 {
                    io.write_hi64(cx, lane, (v >> 64) as u64)?;
                }
            }
            return Ok(());
        }
        Op::VLshlrevB64 | Op::VLshrrevB64 | Op::VAshrrevI64 => {
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let s = io.src(cx, Role::Src0, lane, Ty::B32)? & 63;
                let v = io.src64(cx, Role::Src1, lane, Ty::B64)?;
                out.push((
                    lane,
                    match op {
                        Op::VLshlrevB64 => v << s,
                        Op::VLshrrevB64 => v >> s,
                        _ => ((v as i64) >> s) as u64,
                    },
                ));
            }
            for (lane, v) in out {
                io.write64(cx, lane, v)?;
            }
            return Ok(());
        }
        Op::VMbcntLoU32B32 | Op::VMbcntHiU32B32 => {
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let (a, b) = (
                    io.src(cx, Role::Src0, lane, Ty::B32)?,
                    io.src(cx, Role::Src1, lane, Ty::B32)?,
                );
                let below = if lane == 0 {
                    0u64
                } else {
                    u64::MAX >> (64 - lane)
                };
                let m = if op == Op::VMbcntLoU32B32 {
                    below as u32
                } else {
                    (below >> 32) as u32
                };
                out.push((lane, (a & m).count_ones().wrapping_add(b)));
            }
            for (lane, v) in out {
                io.write32(cx, lane, v)?;
            }
            return Ok(());
        }
        Op::VReadfirstlaneB32 | Op::VReadlaneB32 => {
            let Some(Operand::Vgpr { first, .. }) = inst.operand(Role::Src0) else {
                return Err(io.err("v_readlane needs a VGPR source"));
            };
            let lane = if op == Op::VReadfirstlaneB32 {
                // With EXEC zero the first lane is read (rule valu.readfirstlane_empty_exec, Vega ISA 12.8).
                if io.exec == 0 {
                    0
                } else {
                    io.exec.trailing_zeros() as usize
                }
            } else {
                let sel = cx
                    .sread(io.operand(Role::Src1)?, Ty::B32)
                    .map_err(|e| io.err(&e))?;
                // Rule valu.readlane_wrap.
                sel as usize % io.lanes
            };
            let v = cx.wave.vget(first as usize, lane);
            // LLVM names the scalar destination vdst.
            let dst = inst
                .operand(Role::Sdst)
                .or(inst.operand(Role::Vdst))
                .ok_or_else(|| io.err("no destination"))?;
            return cx.swrite(dst, v).map_err(|e| io.err(&e));
        }
        Op::VWritelaneB32 => {
            let v = cx
                .sread(io.operand(Role::Src0)?, Ty::B32)
                .map_err(|e| io.err(&e))?;
            let sel = cx
                .sread(io.operand(Role::Src1)?, Ty::B32)
                .map_err(|e| io.err(&e))? as usize
                % io.lanes;
            let Operand::Vgpr { first, .. } = io.operand(Role::Vdst)? else {
                return Err(io.err("v_writelane needs a VGPR destination"));
            };
            cx.wave.vset(first as usize, sel, v);
            return Ok(());
        }
        Op::VPermlane16B32 | Op::VPermlanex16B32 => {
            let Operand::Vgpr { first, .. } = io.operand(Role::Src0)? else {
                return Err(io.err("v_permlane needs a VGPR source"));
            };
            let s1 = cx
                .sread(io.operand(Role::Src1)?, Ty::B32)
                .map_err(|e| io.err(&e))?;
            let s2 = cx
                .sread(io.operand(Role::Src2)?, Ty::B32)
                .map_err(|e| io.err(&e))?;
            let (fi, bound) = (inst.mods.op_sel & 1 == 1, inst.mods.op_sel >> 1 & 1 == 1);
            let mut out = Vec::with_capacity(64);
            for lane in io.active() {
                let l = lane & 15;
                let sel = if l < 8 {
                    s1 >> (4 * l)
                } else {
                    s2 >> (4 * (l - 8))
                } & 15;
                let row = if op == Op::VPermlanex16B32 {
                    (lane / 16) ^ 1
                } else {
                    lane / 16
                };
                let src = row * 16 + sel as usize;
                if src < io.lanes && (fi || io.exec >> src & 1 == 1) {
                    out.push((lane, cx.wave.vget(first as usize, src)));
                } else if bound {
                    out.push((lane, 0));
                }
            }
            for (lane, v) in out {
                io.write32(cx, lane, v)?;
            }
            return Ok(());
        }
        Op::VSwapB32 => {
            let (Operand::Vgpr { first: d, .. }, Operand::Vgpr { first: s, .. }) =
                (io.operand(Role::Vdst)?, io.operand(Role::Src0)?)
            else {
                return Err(io.err("v_swap needs VGPRs"));
            };
            for lane in io.active() {
                let (a, b) = (
                    cx.wave.vget(d as usize, lane),
                    cx.wave.vget(s as usize, lane),
                );
                cx.wave.vset(d as usize, lane, b);
                cx.wave.vset(s as usize, lane, a);
            }
            return Ok(());
        }
        Op::VMovrelsB32 | Op::VMovreldB32 | Op::VMovrelsdB32 | Op::VMovrelsd2B32 => {
            let (Operand::Vgpr { first: d, .. }, Operand::Vgpr { first: s, .. }) =
                (io.operand(Role::Vdst)?, io.operand(Role::Src0)?)
            else {
                // v_movreld may take a scalar source.
                return movreld_scalar(cx, &io);
            };
            let m0 = cx.wave.s[super::state::sreg::M0] as usize;
            let (src, dst) = match op {
                Op::VMovrelsB32 => (s as usize + m0, d as usize),
                Op::VMovreldB32 => (s as usize, d as usize + m0),
                Op::VMovrelsdB32 => (s as usize + m0, d as usize + m0),
                _ => (s as usize + (m0 & 0x3ff), d as usize + ((m0 >> 16) & 0x3ff)),
            };
            // An index at or past the register window reads v0 and drops the write (rule valu.movrel_range,
            // measured on RDNA2, seed 000). The window here is the whole v0..v255 file.
            let limit = super::state::VGPRS;
            let src = if src < limit { src } else { 0 };
            // DPP picks the lane the (relatively addressed) source is read from, as for any VOP1 source
            // (rules valu.movrel_dpp16, valu.movrel_dpp8).
            let out: Vec<(usize, u32)> = io
                .active()
                .map(|lane| match io.src_lane(lane) {
                    Some(l) => (lane, cx.wave.vget(src, l)),
                    None => (lane, 0),
                })
                .collect();
            if dst < limit {
                for (lane, v) in out {
                    cx.wave.vset(dst, lane, v);
                }
            }
            return Ok(());
        }
        _ => {}
    }

    // Packed 16-bit integer (VOP3P).
    if pk16(op, 0, 0, 0, false).is_some() {
        let clamp = io.clamp();
        let mut out = Vec::with_capacity(64);
        for lane in io.active() {
            let mut r = 0u32;
            for half in 0..2 {
                let pick = |role: Role, bit: u32| -> Result<u16, BackendError> {
                    let v = io.src(cx, role, lane, Ty::I16)?;
                    let sel = if half == 0 {
                        inst.mods.op_sel
                    } else {
                        inst.mods.op_sel_hi
                    };
                    Ok(if sel >> bit & 1 == 1 {
                        (v >> 16) as u16
                    } else {
                        v as u16
                    })
                };
                let a = pick(Role::Src0, 0)?;
                let b = pick(Role::Src1, 1)?;
                let c = if has(Role::Src2) {
                    pick(Role::Src2, 2)?
                } else {
                    0
                };
                let v = pk16(op, a, b, c, clamp).unwrap_or(0);
                r |= (v as u32) << (16 * half);
            }
            out.push((lane, r));
        }
        for (lane, v) in out {
            io.write32(cx, lane, v)?;
        }
        return Ok(());
    }

    // Integer dot products (VOP3P).
    if matches!(
        op,
        Op::VDot2I32I16
            | Op::VDot2U32U16
            | Op::VDot4I32I8
            | Op::VDot4U32U8
            | Op::VDot8I32I4
            | Op::VDot8U32U4
            | Op::VDot4cI32I8
    ) {
        let clamp = io.clamp();
        let mut out = Vec::with_capacity(64);
        for lane in io.active() {
            let a = io.src(cx, Role::Src0, lane, Ty::B32)?;
            let b = io.src(cx, Role::Src1, lane, Ty::B32)?;
            let c = if op == Op::VDot4cI32I8 {
                io.src(cx, Role::Vdst, lane, Ty::B32)?
            } else {
                io.src(cx, Role::Src2, lane, Ty::B32)?
            };
            let (n, bits, signed) = match op {
                Op::VDot2I32I16 => (2, 16, true),
                Op::VDot2U32U16 => (2, 16, false),
                Op::VDot4I32I8 | Op::VDot4cI32I8 => (4, 8, true),
                Op::VDot4U32U8 => (4, 8, false),
                Op::VDot8I32I4 => (8, 4, true),
                _ => (8, 4, false),
            };
            let field = |v: u32, i: u32| -> i64 {
                let f = (v >> (bits * i)) & ((1u32 << bits) - 1);
                if signed {
                    ((f << (32 - bits)) as i32 >> (32 - bits)) as i64
                } else {
                    f as i64
                }
            };
            let mut acc = if signed { c as i32 as i64 } else { c as i64 };
            for i in 0..n {
                acc += field(a, i) * field(b, i);
            }
            let v = match (clamp, signed) {
                (true, true) => sat_i32(acc),
                (true, false) => sat_u32(acc.max(0) as u64),
                _ => acc as u32,
            };
            out.push((lane, v));
        }
        for (lane, v) in out {
            io.write32(cx, lane, v)?;
        }
        return Ok(());
    }

    // 16-bit integer operations.
    if int16(op, 0, 0, 0, false).is_some() {
        let clamp = io.clamp();
        let mut out = Vec::with_capacity(64);
        for lane in io.active() {
            let a = io.src16(cx, Role::Src0, lane, Ty::I16)?;
            let b = io.src16(cx, Role::Src1, lane, Ty::I16)?;
            let c = if has(Role::Src2) {
                io.src16(cx, Role::Src2, lane, Ty::I16)?
            } else {
                0
            };
            out.push((lane, int16(op, a, b, c, clamp).unwrap_or(0)));
        }
        for (lane, v) in out {
            io.write16(cx, lane, v)?;
        }
        return Ok(());
    }
    if matches!(op, Op::VMadU32U16 | Op::VMadI32I16) {
        let clamp = io.clamp();
        let mut out = Vec::with_capacity(64);
        for lane in io.active() {
            let a = io.src16(cx, Role::Src0, lane, Ty::I16)?;
            let b = io.src16(cx, Role::Src1, lane, Ty::I16)?;
            let c = io.src(cx, Role::Src2, lane, Ty::B32)?;
            let v = if op == Op::VMadU32U16 {
                let r = a as u64 * b as u64 + c as u64;
                if clamp {
                    sat_u32(r)
                } else {
                    r as u32
                }
            } else {
                let r = a as i16 as i64 * b as i16 as i64 + c as i32 as i64;
                if clamp {
                    sat_i32(r)
                } else {
                    r as u32
                }
            };
            out.push((lane, v));
        }
        for (lane, v) in out {
            io.write32(cx, lane, v)?;
        }
        return Ok(());
    }

    // 32-bit integer operations.
    if int32(op, 0, 0, 0, false).is_some() {
        let clamp = io.clamp();
        let mut out = Vec::with_capacity(64);
        for lane in io.active() {
            let a = io.src(cx, Role::Src0, lane, Ty::B32)?;
            let b = if has(Role::Src1) {
                io.src(cx, Role::Src1, lane, Ty::B32)?
            } else {
                0
            };
            let c = if has(Role::Src2) {
                io.src(cx, Role::Src2, lane, Ty::B32)?
            } else {
                0
            };
            out.push((lane, int32(op, a, b, c, clamp).unwrap_or(0)));
        }
        for (lane, v) in out {
            io.write32(cx, lane, v)?;
        }
        return Ok(());
    }

    super::vfloat::exec(cx, &io)
}

/// Applies the abs/neg source modifiers of source `i` to a 32-bit value as bit operations.
pub(super) fn fmods32(io: &Io, i: u32, v: u32) -> u32 {
    let m = io.inst.mods;
    let v = if m.abs >> i & 1 == 1 {
        v & 0x7fff_ffff
    } else {
        v
    };
    if m.neg >> i & 1 == 1 {
        v ^ 0x8000_0000
    } else {
        v
    }
}

/// v_movreld with a scalar or constant source.
fn movreld_scalar(cx: &mut Ctx, io: &Io) -> Result<(), BackendError> {
    if io.inst.op != Op::VMovreldB32 {
        return Err(io.err("relative addressing needs VGPR operands"));
    }
    let Operand::Vgpr { first: d, .. } = io.operand(Role::Vdst)? else {
        return Err(io.err("relative addressing needs a VGPR destination"));
    };
    let dst = d as usize + cx.wave.s[super::state::sreg::M0] as usize;
    let lanes: Vec<usize> = io.active().collect();
    for lane in lanes {
        let v = io.src(cx, Role::Src0, lane, Ty::B32)?;
        if dst < super::state::VGPRS {
            cx.wave.vset(dst, lane, v);
        }
    }
    Ok(())
}

/// Sum of absolute byte differences of `a` against `b` plus `acc`; `masked` skips the bytes where `b` (the
/// reference) is 0, as v_msad_u8 does.
fn sad_bytes(a: u32, b: u32, acc: u32, masked: bool) -> u32 {
    (0..4)
        .filter(|i| !masked || (b >> (8 * i)) as u8 != 0)
        .map(|i| ((a >> (8 * i)) as u8).abs_diff((b >> (8 * i)) as u8) as u32)
        .fold(acc, u32::wrapping_add)
}

/// v_qsad_pk_u16_u8, v_mqsad_pk_u16_u8 and v_mqsad_u32_u8: four (masked) SADs of the byte windows of `a`
/// starting at bytes 0..3 against `b`, each accumulated onto its own 16-bit (pk forms, truncated) or 32-bit
/// field of `c` (AMD RDNA 3 ISA guide pseudo-code, unchanged from GCN; rule `valu.quad_sad`).
fn quad_sad(op: Op, a: u64, b: u32, c: u128) -> u128 {
    let (masked, bits) = match op {
        Op::VQsadPkU16U8 => (false, 16),
        Op::VMqsadPkU16U8 => (true, 16),
        _ => (true, 32),
    };
    let field = (1u128 << bits) - 1;
    (0..4).fold(0u128, |d, i| {
        let acc = (c >> (bits * i) & field) as u32;
        let window = (a >> (8 * i)) as u32;
        d | (sad_bytes(window, b, acc, masked) as u128 & field) << (bits * i)
    })
}
