//! Per-wave execution context: operand reads and writes shared by every instruction family.

use super::lds::Lds;
use super::memory::{GuestMemory, MemFault};
use super::state::{sreg, Wave};
use crate::isa::{Encoding, Instruction, Operand, Role};
use measurements::job::BackendError;

/// The operand type a read is for: it decides how inline constants and literals widen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// 32-bit integer or float.
    B32,
    /// 16-bit float (inline float constants are f16 values).
    F16,
    /// 16-bit integer.
    I16,
    /// 64-bit float: a literal is the high dword.
    F64,
    /// 64-bit integer: a literal is zero-extended, an inline integer sign-extended.
    B64,
}

/// One wave's view of the dispatch while it executes.
pub struct Ctx<'a> {
    /// The wave's registers.
    pub wave: &'a mut Wave,
    /// Guest memory of the dispatch.
    pub mem: &'a mut GuestMemory,
    /// The workgroup's LDS.
    pub lds: &'a mut Lds,
}

/// An `Unsupported` error naming the instruction and its word index.
pub fn unsupported(inst: &Instruction, pc: usize, reason: &str) -> BackendError {
    BackendError::Unsupported {
        instruction: format!("{} (word {pc})", inst.mnemonic()),
        reason: reason.to_string(),
    }
}

/// A `Fault` for a memory access of `inst` (named by its operation's mnemonic in the message).
pub fn fault(f: MemFault, pc: usize, inst: &Instruction) -> BackendError {
    BackendError::Fault {
        address: f.address,
        pc: pc as u32,
        reason: format!(
            "{}: {} of {} bytes outside every mapped region",
            inst.op.mnemonic(),
            if f.write { "write" } else { "read" },
            f.len
        ),
    }
}

/// The scalar-file index of a register operand (first register of a range).
pub fn sreg_index(op: Operand) -> Option<usize> {
    Some(match op {
        Operand::Sgpr { first, .. } => first as usize,
        Operand::VccLo { .. } => sreg::VCC_LO,
        Operand::VccHi => sreg::VCC_HI,
        Operand::Ttmp { first, .. } => sreg::TTMP0 + first as usize,
        Operand::M0 => sreg::M0,
        Operand::Null => sreg::NULL,
        Operand::ExecLo { .. } => sreg::EXEC_LO,
        Operand::ExecHi => sreg::EXEC_HI,
        _ => return None,
    })
}

impl Ctx<'_> {
    /// Executes one decoded instruction whose first word is at `pc` (the wave's pc already points past it),
    /// by the compact form `exec/fast.rs` works out for it.
    pub fn step(&mut self, inst: &Instruction, pc: usize) -> Result<(), BackendError> {
        super::fast::run_one(self, inst, pc)
    }

    /// The general paths, by encoding family.
    pub(crate) fn step_general(
        &mut self,
        inst: &Instruction,
        pc: usize,
    ) -> Result<(), BackendError> {
        match inst.encoding {
            Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopk | Encoding::Sopc | Encoding::Sopp => {
                super::salu::exec(self, inst, pc)
            }
            Encoding::Vop1 | Encoding::Vop2 | Encoding::Vopc | Encoding::Vop3 | Encoding::Vop3p => {
                super::valu::exec(self, inst, pc)
            }
            Encoding::Smem | Encoding::Mubuf | Encoding::Mtbuf | Encoding::Flat | Encoding::Ds => {
                super::mem_ops::exec(self, inst, super::facts::MemFacts::of(inst.op), pc)
            }
            Encoding::Mimg | Encoding::Exp | Encoding::Vintrp => Err(unsupported(
                inst,
                pc,
                "image, export and interpolation instructions are not modelled yet",
            )),
        }
    }

    /// The operand in `role`, or an `Unsupported` error when the decoder gave none.
    pub fn op(&self, inst: &Instruction, role: Role, pc: usize) -> Result<Operand, BackendError> {
        inst.operand(role)
            .ok_or_else(|| unsupported(inst, pc, &format!("no {role:?} operand")))
    }

    /// Reads a scalar-or-constant operand as 32 bits (VALU sources read SGPRs through this too).
    pub fn sread(&self, op: Operand, ty: Ty) -> Result<u32, String> {
        Ok(match op {
            Operand::InlineInt(i) => match ty {
                Ty::F16 | Ty::I16 => i as i16 as u16 as u32,
                _ => i as i32 as u32,
            },
            Operand::InlineFloat(f) => match ty {
                Ty::F16 => f.bits(16) as u32,
                Ty::I16 => f.bits(16) as u32,
                _ => f.bits(32) as u32,
            },
            Operand::Literal(l) => match ty {
                Ty::F16 | Ty::I16 => l & 0xffff,
                _ => l,
            },
            Operand::Scc => self.wave.scc as u32,
            Operand::Vccz => (self.wave.vcc() == 0) as u32,
            Operand::Execz => (self.wave.exec() == 0) as u32,
            Operand::Imm(v) => v as u32,
            other => match sreg_index(other) {
                Some(r) => self.wave.sget(r),
                None => return Err(format!("source {other:?} is not modelled")),
            },
        })
    }

    /// Reads a 64-bit scalar-or-constant operand.
    pub fn sread64(&self, op: Operand, ty: Ty) -> Result<u64, String> {
        Ok(match op {
            Operand::InlineInt(i) => i as i64 as u64,
            Operand::InlineFloat(f) => f.bits(64),
            Operand::Literal(l) => match ty {
                Ty::F64 => (l as u64) << 32,
                _ => l as u64,
            },
            Operand::Scc | Operand::Vccz | Operand::Execz | Operand::Imm(_) => {
                self.sread(op, Ty::B32)? as u64
            }
            // The shared aperture as the model routes flat addresses (rule `flat.shared_aperture`: base and
            // limit measured on gfx1035). Only the 64-bit reads are modelled; which dword a 32-bit read gives
            // is not measured.
            Operand::SharedBase => (super::mem_ops::SHARED_APERTURE_HI as u64) << 32,
            Operand::SharedLimit => (super::mem_ops::SHARED_APERTURE_HI as u64) << 32 | 0xffff_ffff,
            other => match sreg_index(other) {
                Some(r) => self.wave.sget(r) as u64 | (self.wave.sget(r + 1) as u64) << 32,
                None => return Err(format!("source {other:?} is not modelled")),
            },
        })
    }

    /// Reads a VALU source for `lane` (32 bits; a VGPR or anything a scalar read gives).
    pub fn vread(&self, op: Operand, lane: usize, ty: Ty) -> Result<u32, String> {
        match op {
            Operand::Vgpr { first, .. } => Ok(self.wave.vget(first as usize, lane)),
            Operand::LdsDirect => Err("LDS_DIRECT sources are not modelled".into()),
            _ => self.sread(op, ty),
        }
    }

    /// Reads a 64-bit VALU source for `lane`.
    pub fn vread64(&self, op: Operand, lane: usize, ty: Ty) -> Result<u64, String> {
        match op {
            Operand::Vgpr { first, .. } => {
                let r = first as usize;
                Ok(self.wave.vget(r, lane) as u64 | (self.wave.vget(r + 1, lane) as u64) << 32)
            }
            _ => self.sread64(op, ty),
        }
    }

    /// Writes a scalar destination (dropped for NULL).
    pub fn swrite(&mut self, op: Operand, v: u32) -> Result<(), String> {
        let r =
            sreg_index(op).ok_or_else(|| format!("destination {op:?} is not a scalar register"))?;
        self.wave.sset(r, v);
        Ok(())
    }

    /// Writes a 64-bit scalar destination (a register pair).
    pub fn swrite64(&mut self, op: Operand, v: u64) -> Result<(), String> {
        let r =
            sreg_index(op).ok_or_else(|| format!("destination {op:?} is not a scalar register"))?;
        if r == sreg::NULL {
            return Ok(());
        }
        self.wave.sset(r, v as u32);
        self.wave.sset(r + 1, (v >> 32) as u32);
        Ok(())
    }

    /// Writes a lane mask to a scalar destination (one SGPR in wave32, a pair in wave64).
    pub fn write_mask(&mut self, op: Operand, m: u64) -> Result<(), String> {
        let r =
            sreg_index(op).ok_or_else(|| format!("destination {op:?} is not a scalar register"))?;
        if r == sreg::NULL {
            return Ok(());
        }
        self.wave.set_mask_at(r, m);
        Ok(())
    }

    /// Reads a lane mask from a scalar operand (carry-in, v_cndmask selector).
    pub fn read_mask(&self, op: Operand) -> Result<u64, String> {
        if self.wave.wave64() {
            self.sread64(op, Ty::B64)
        } else {
            self.sread(op, Ty::B32).map(u64::from)
        }
    }
}
