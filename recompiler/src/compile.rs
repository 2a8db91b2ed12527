//! The module: a dispatcher over the program's segments (see the crate docs), the guest state in function
//! variables of every invocation, and each instruction's translation.

use crate::lower::{Bin, Cmp, Lower, Ty};
use crate::program::{flow, Flow, Need, Program};
use crate::spv::{Array, Emit, Sv};
use crate::{layout, Refusal, Region, Shape};
use reference_model::isa::{Instruction, Op, Operand, Role};
use rspirv::spirv::Op as SOp;
use rspirv::spirv::{self, Word};
use std::collections::{BTreeMap, BTreeSet};

/// Scalar register numbers (the encoding's, as `reference_model::exec::state::sreg`).
pub(crate) mod sreg {
    pub const VCC_LO: u32 = 106;
    pub const M0: u32 = 124;
    pub const NULL: u32 = 125;
    pub const EXEC_LO: u32 = 126;
    pub const EXEC_HI: u32 = 127;
    pub const TTMP0: u32 = 108;
}

/// Words per lane in the exchange area: enough for a 64-bit address, four data dwords (cmpswap_x2, x4
/// stores) and results.
pub(crate) const XW: u32 = 8;
const _: () = assert!(XW >= 2 * crate::units::STORE_PIECES);
/// Scheduler words in workgroup memory: [0] current wave, [1] abort flag, then one state per wave.
const SCHED_HEAD: u32 = 2;
/// Exchange slots, used in turn.
const SLOTS: u32 = 3;
/// Words of one exchange slot: `XW` per lane. Lane masks have words of their own per wave and slot (two
/// each), because they are built with atomic ors and must be cleared between uses.
const SLOT_WORDS: u32 = 64 * XW;
/// No wave left to run.
const NO_WAVE: u32 = 0xffff_ffff;
/// The segment id that ends a wave that faulted or timed out.
const DEAD: u32 = 0xffff_fffe;

/// Wave states in the scheduler.
const RUNNING: u32 = 0;
const AT_BARRIER: u32 = 1;
const DONE: u32 = 2;

pub(crate) struct Cx<'p> {
    pub e: Emit,
    pub prog: &'p Program,
    /// The launch's memory regions.
    pub regions: &'p [Region],
    /// The memory units' request variables and segment ids.
    pub units: crate::units::Units,
    pub shape: Shape,
    pub v: Word,
    pub s: Word,
    pub scc: Word,
    pub seg: Word,
    /// The word address of the last computed jump (reported when no block starts there).
    pub jumped: Word,
    pub yld: Word,
    pub xc: Word,
    /// The lane's pending report: kind, pc, a, b.
    pub rep: [Word; 4],
    pub executed: Word,
    pub wstate: Word,
    pub mode: Word,
    pub lane: Sv,
    pub wave: Sv,
    pub mem: Array,
    pub info: Array,
    pub status: Array,
    /// The first word of this workgroup's status record (0, or past the first record with independent
    /// workgroups).
    pub status_base: Sv,
    pub lds: Array,
    pub xch: Array,
    /// Lane masks: two words per wave and exchange slot.
    pub masks: Array,
    pub sched: Array,
    /// (segment id, label) of every case emitted so far.
    cases: Vec<(u32, Word)>,
    /// The label of the switch's merge block.
    sw_merge: Word,
    next_id: u32,
    /// The segment id each block leader starts.
    leader_ids: Vec<(usize, u32)>,
    /// The blocks translated where control enters them, without a case of their own ([`inlined_blocks`]).
    inlined: BTreeSet<usize>,
    /// Inlined blocks waiting to be translated: (the label their entering branch goes to, leader).
    deferred: Vec<(Word, usize)>,
    /// The timeout case's segment id, and the pc it reports.
    timeout_seg: u32,
    timeout_pc: Word,
    /// Register values known in the current block: (generation, value) per VGPR and SGPR; writes go
    /// through to the variables, so an entry of another generation is only not known.
    vknown: Vec<(u32, Sv)>,
    sknown: Vec<(u32, Sv)>,
    /// This lane's EXEC bit, when known in the current block.
    active_known: Option<(u32, Sv)>,
    /// The MODE register's value at this point of the program, when it is the same on every path here.
    mode_known: Option<u32>,
    /// The mode at each block's start, where known ([`Program::entry_modes`]).
    entry_modes: std::collections::BTreeMap<usize, Option<u32>>,
    /// Pointers to the registers (constant indices), defined in the entry block: 0 until first used.
    vptr: Vec<Word>,
    sptr: Vec<Word>,
}

/// The body of the report helper ([`Cx::report_if`]: parameters cond, kind, pc, a, b) over the report
/// variables `rep`, the segment `seg` and the yield flag `yld`: the lane's first report is kept, and a
/// reporting lane's segment becomes DEAD and yields. Returns the report kind before the call (callers drop
/// it).
pub(crate) fn report_in(e: &mut Emit, rep: [Word; 4], seg: Word, yld: Word, p: &[Sv]) -> Sv {
    let [cond, kind, pc, a, b] = p else {
        panic!("a report takes five parameters")
    };
    let cur = e.load32(rep[0]);
    let z = e.k32(0);
    let none = e.cmp(Cmp::Eq, cur, z);
    let first = e.band(*cond, none);
    for (i, (var, v)) in [(rep[0], *kind), (rep[1], *pc), (rep[2], *a), (rep[3], *b)]
        .into_iter()
        .enumerate()
    {
        let old = if i == 0 { cur } else { e.load32(var) };
        let n = e.select(first, v, old);
        e.store(var, n);
    }
    let s = e.load32(seg);
    let dead = e.k32(DEAD);
    let n = e.select(*cond, dead, s);
    e.store(seg, n);
    let y = e.load32(yld);
    let one = e.k32(1);
    let n = e.select(*cond, one, y);
    e.store(yld, n);
    cur
}

/// A refusal naming the instruction and its word offset.
pub(crate) fn refusal(inst: &Instruction, pc: usize, reason: impl Into<String>) -> Refusal {
    Refusal {
        instruction: format!("{} (word {pc})", inst.mnemonic()),
        reason: reason.into(),
    }
}

impl<'p> Cx<'p> {
    // ---------------------------------------------------------------------------------------------
    // Guest state.

    /// The value of u32 variable `var`.
    pub fn get(&mut self, var: Word) -> Sv {
        self.e.load32(var)
    }

    /// Stores u32 `v` to variable `var`.
    pub fn put(&mut self, var: Word, v: Sv) {
        self.e.store(var, v);
    }

    /// SGPR `r` (constant index; past the file: 0).
    pub fn sget(&mut self, r: u32) -> Sv {
        if r >= 128 || r == sreg::NULL {
            return self.e.k32(0);
        }
        let g = self.e.b.generation();
        let (kg, v) = self.sknown[r as usize];
        if kg == g {
            return v;
        }
        let p = self.sreg_ptr(r);
        let v = self.e.load32(p);
        self.sknown[r as usize] = (g, v);
        v
    }

    /// The pointer to SGPR `r` (below 128).
    fn sreg_ptr(&mut self, r: u32) -> Word {
        if self.sptr[r as usize] == 0 {
            self.sptr[r as usize] = self.file_ptr(self.s, r);
        }
        self.sptr[r as usize]
    }

    /// The pointer to VGPR `r`.
    fn vreg_ptr(&mut self, r: u32) -> Word {
        if self.vptr[r as usize] == 0 {
            self.vptr[r as usize] = self.file_ptr(self.v, r);
        }
        self.vptr[r as usize]
    }

    /// An access chain to element `r` of register file `file`, in the entry block (it dominates all uses).
    fn file_ptr(&mut self, file: Word, r: u32) -> Word {
        let i = self.e.c32(r);
        let u = self.e.t_u32();
        let p = self.e.t_ptr(spirv::StorageClass::Function, u);
        self.e.b.entry_res(SOp::AccessChain, p, &[file, i])
    }

    /// Writes SGPR `r` (NULL and past the file: dropped).
    pub fn sset(&mut self, r: u32, v: Sv) {
        if r >= 128 || r == sreg::NULL {
            return;
        }
        let p = self.sreg_ptr(r);
        self.e.store(p, v);
        self.sknown[r as usize] = (self.e.b.generation(), v);
        if r == sreg::EXEC_LO || r == sreg::EXEC_HI {
            self.active_known = None;
        }
    }

    /// SGPR at a computed index (relative addressing): out of the 106 general SGPRs reads 0.
    pub fn sget_dyn(&mut self, r: Sv) -> Sv {
        let limit = self.e.k32(106);
        let ok = self.e.cmp(Cmp::ULt, r, limit);
        let z = self.e.k32(0);
        let idx = self.e.select(ok, r, z);
        let p = self.e.local_elem(self.s, idx.id);
        let v = self.e.load32(p);
        self.e.select(ok, v, z)
    }

    /// Writes SGPR at a computed index; out of the general SGPRs the write is dropped.
    pub fn sset_dyn(&mut self, r: Sv, v: Sv) {
        let limit = self.e.k32(106);
        let ok = self.e.cmp(Cmp::ULt, r, limit);
        let file = self.s;
        self.e.if_then(ok, |e| {
            let p = e.local_elem(file, r.id);
            e.store(p, v);
        });
    }

    /// VGPR `r` of this lane (past v255: 0).
    pub fn vget(&mut self, r: u32) -> Sv {
        // Past v255 reads 0, as in the model.
        if r >= 256 {
            return self.e.k32(0);
        }
        let g = self.e.b.generation();
        let (kg, v) = self.vknown[r as usize];
        if kg == g {
            return v;
        }
        let p = self.vreg_ptr(r);
        let v = self.e.load32(p);
        self.vknown[r as usize] = (g, v);
        v
    }

    /// VGPR at a computed index (relative addressing): an index at or past v255 reads v0 (rule
    /// `valu.movrel_range`). Writes go through to the file, so the element read is current.
    pub fn vget_dyn(&mut self, r: Sv) -> Sv {
        let limit = self.e.k32(256);
        let ok = self.e.cmp(Cmp::ULt, r, limit);
        let z = self.e.k32(0);
        let idx = self.e.select(ok, r, z);
        let p = self.e.local_elem(self.v, idx.id);
        self.e.load32(p)
    }

    /// Writes VGPR at a computed index when `active`; past v255 the write is dropped (rule
    /// `valu.movrel_range`). Any VGPR may have changed, so the block's known values are forgotten.
    pub fn vset_dyn_if(&mut self, r: Sv, v: Sv, active: Sv) {
        let limit = self.e.k32(256);
        let ok = self.e.cmp(Cmp::ULt, r, limit);
        let z = self.e.k32(0);
        let idx = self.e.select(ok, r, z);
        let p = self.e.local_elem(self.v, idx.id);
        let old = self.e.load32(p);
        let go = self.e.band(ok, active);
        let n = self.e.select(go, v, old);
        self.e.store(p, n);
        self.forget_registers();
    }

    /// Writes VGPR `r` of this lane when `active` (past v255: dropped).
    pub fn vset_if(&mut self, r: u32, v: Sv, active: Sv) {
        let old = self.vget(r);
        let n = self.e.select(active, v, old);
        self.vset(r, n);
    }

    /// Writes VGPR `r` of this lane.
    pub fn vset(&mut self, r: u32, v: Sv) {
        // Past v255 the write is dropped, as in the model.
        if r >= 256 {
            return;
        }
        let p = self.vreg_ptr(r);
        self.e.store(p, v);
        self.vknown[r as usize] = (self.e.b.generation(), v);
    }

    /// The MODE register's value: a constant where it is known at this point of the program (the float
    /// engine then folds to the one mode), else the variable.
    pub fn mode_word(&mut self) -> Sv {
        match self.mode_known {
            Some(m) => self.e.k32(m),
            None => self.get(self.mode),
        }
    }

    /// Replaces the MODE bits `mask` with `placed` (already shifted and masked); the mode stays known
    /// when it was and `placed` is a constant.
    pub fn set_mode(&mut self, mask: u32, placed: Sv) {
        let mode = self.mode_word();
        let kept = self.e.bink(Bin::And, mode, !mask as u64);
        let n = self.e.bin(Bin::Or, kept, placed);
        self.put(self.mode, n);
        self.mode_known = self.e.const32(n);
    }

    /// What is known of the mode outside the program's blocks (the memory units, shared by every
    /// block): the launch's mode when the program never changes it.
    fn mode_outside_blocks(&self) -> Option<u32> {
        (!self.prog.writes_mode()).then_some(self.shape.mode)
    }

    /// Forgets the register values known in the current block (after a write to a whole file).
    pub fn forget_registers(&mut self) {
        let unknown = (0, Sv { id: 0, ty: Ty::I32 });
        self.vknown.fill(unknown);
        self.sknown.fill(unknown);
        self.active_known = None;
    }

    /// EXEC as a 64-bit value (EXEC_HI ignored in wave32).
    pub fn exec(&mut self) -> Sv {
        self.mask_at(sreg::EXEC_LO)
    }

    /// The lane mask held at SGPR `r` (one SGPR in wave32, a pair in wave64), as 64 bits.
    pub fn mask_at(&mut self, r: u32) -> Sv {
        let lo = self.sget(r);
        if self.shape.wave == 64 {
            let hi = self.sget(r + 1);
            self.e.pack(lo, hi)
        } else {
            self.e.zext(lo)
        }
    }

    /// Writes a lane mask at SGPR `r`.
    pub fn set_mask_at(&mut self, r: u32, m: Sv) {
        let lo = self.e.trunc(m);
        self.sset(r, lo);
        if self.shape.wave == 64 {
            let hi = self.e.hi(m);
            self.sset(r + 1, hi);
        }
    }

    /// Is this lane's bit of the 64-bit mask `m` set?
    pub fn lane_bit(&mut self, m: Sv) -> Sv {
        let l = self.e.zext(self.lane);
        let s = self.e.bin(Bin::LShr, m, l);
        let b = self.e.bink(Bin::And, s, 1);
        self.e.nz(b)
    }

    /// Is this lane active in EXEC?
    pub fn active(&mut self) -> Sv {
        let g = self.e.b.generation();
        if let Some((kg, v)) = self.active_known {
            if kg == g {
                return v;
            }
        }
        let x = self.exec();
        let v = self.lane_bit(x);
        self.active_known = Some((g, v));
        v
    }

    /// SCC as a boolean.
    pub fn scc(&mut self) -> Sv {
        let v = self.get(self.scc);
        self.e.nz(v)
    }

    /// Sets SCC from a boolean.
    pub fn set_scc(&mut self, b: Sv) {
        let v = self.e.b2i(b, Ty::I32);
        self.put(self.scc, v);
    }

    // ---------------------------------------------------------------------------------------------
    // Operands.

    /// A 32-bit scalar-or-constant source as the model's `Ctx::sread` gives it (`half`: 16-bit operand).
    pub fn sread(
        &mut self,
        op: Operand,
        half: bool,
        inst: &Instruction,
        pc: usize,
    ) -> Result<Sv, Refusal> {
        Ok(match op {
            Operand::InlineInt(i) => {
                if half {
                    self.e.k32(i as i16 as u16 as u32)
                } else {
                    self.e.k32(i as i32 as u32)
                }
            }
            Operand::InlineFloat(f) => self.e.k32(f.bits(if half { 16 } else { 32 }) as u32),
            Operand::Literal(l) => self.e.k32(if half { l & 0xffff } else { l }),
            Operand::Scc => self.get(self.scc),
            Operand::Vccz => {
                let m = self.mask_at(sreg::VCC_LO);
                let z = self.e.k64(0);
                let c = self.e.cmp(Cmp::Eq, m, z);
                self.e.b2i(c, Ty::I32)
            }
            Operand::Execz => {
                let m = self.exec();
                let z = self.e.k64(0);
                let c = self.e.cmp(Cmp::Eq, m, z);
                self.e.b2i(c, Ty::I32)
            }
            Operand::Imm(v) => self.e.k32(v as u32),
            other => match sreg_index(other) {
                Some(r) => self.sget(r),
                None => {
                    return Err(refusal(
                        inst,
                        pc,
                        format!("source {other:?} is not translated"),
                    ))
                }
            },
        })
    }

    /// A 64-bit scalar-or-constant source (as `Ctx::sread64`; `f64`: a literal is the high dword).
    pub fn sread64(
        &mut self,
        op: Operand,
        f64: bool,
        inst: &Instruction,
        pc: usize,
    ) -> Result<Sv, Refusal> {
        Ok(match op {
            Operand::InlineInt(i) => self.e.k64(i as i64 as u64),
            Operand::InlineFloat(f) => self.e.k64(f.bits(64)),
            Operand::Literal(l) => self.e.k64(if f64 { (l as u64) << 32 } else { l as u64 }),
            Operand::Scc | Operand::Vccz | Operand::Execz | Operand::Imm(_) => {
                let v = self.sread(op, false, inst, pc)?;
                self.e.zext(v)
            }
            Operand::SharedBase => self.e.k64(SHARED_APERTURE_HI << 32),
            Operand::SharedLimit => self.e.k64(SHARED_APERTURE_HI << 32 | 0xffff_ffff),
            other => match sreg_index(other) {
                Some(r) => {
                    let lo = self.sget(r);
                    let hi = self.sget(r + 1);
                    self.e.pack(lo, hi)
                }
                None => {
                    return Err(refusal(
                        inst,
                        pc,
                        format!("source {other:?} is not translated"),
                    ))
                }
            },
        })
    }

    /// A 32-bit VALU source of this lane.
    pub fn vread(
        &mut self,
        op: Operand,
        half: bool,
        inst: &Instruction,
        pc: usize,
    ) -> Result<Sv, Refusal> {
        match op {
            Operand::Vgpr { first, .. } => Ok(self.vget(first as u32)),
            Operand::LdsDirect => Err(refusal(inst, pc, "LDS_DIRECT sources are not translated")),
            _ => self.sread(op, half, inst, pc),
        }
    }

    /// A 64-bit VALU source of this lane.
    pub fn vread64(
        &mut self,
        op: Operand,
        f64: bool,
        inst: &Instruction,
        pc: usize,
    ) -> Result<Sv, Refusal> {
        match op {
            Operand::Vgpr { first, .. } => {
                let lo = self.vget(first as u32);
                let hi = self.vget(first as u32 + 1);
                Ok(self.e.pack(lo, hi))
            }
            _ => self.sread64(op, f64, inst, pc),
        }
    }

    /// Writes a 32-bit scalar destination.
    pub fn swrite(
        &mut self,
        op: Operand,
        v: Sv,
        inst: &Instruction,
        pc: usize,
    ) -> Result<(), Refusal> {
        let r = sdst_index(op, inst, pc)?;
        self.sset(r, v);
        Ok(())
    }

    /// Writes a 64-bit scalar destination (a pair).
    pub fn swrite64(
        &mut self,
        op: Operand,
        v: Sv,
        inst: &Instruction,
        pc: usize,
    ) -> Result<(), Refusal> {
        let r = sdst_index(op, inst, pc)?;
        if r == sreg::NULL {
            return Ok(());
        }
        let lo = self.e.trunc(v);
        let hi = self.e.hi(v);
        self.sset(r, lo);
        self.sset(r + 1, hi);
        Ok(())
    }

    /// Writes a lane mask to a scalar destination operand.
    pub fn write_mask(
        &mut self,
        op: Operand,
        m: Sv,
        inst: &Instruction,
        pc: usize,
    ) -> Result<(), Refusal> {
        let r = sdst_index(op, inst, pc)?;
        if r != sreg::NULL {
            self.set_mask_at(r, m);
        }
        Ok(())
    }

    // ---------------------------------------------------------------------------------------------
    // Segments.

    /// A fresh segment id.
    pub(crate) fn new_seg(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Starts the case of segment `id`.
    pub(crate) fn begin_case(&mut self, id: u32) {
        let label = self.e.b.id();
        self.cases.push((id, label));
        self.e.block(label);
    }

    /// Ends the current case: the wave continues at `next`; `yield_` hands the workgroup back to the
    /// dispatcher (a barrier follows) before it does.
    pub(crate) fn end_case(&mut self, next: Sv, yield_: bool) {
        self.put(self.seg, next);
        if yield_ {
            let one = self.e.k32(1);
            self.put(self.yld, one);
        }
        self.e.branch(self.sw_merge);
    }

    /// Ends the current segment with a yield and starts the next one: what comes after runs after a
    /// workgroup barrier, when every lane's published values are visible.
    pub fn cut(&mut self) {
        let next = self.new_seg();
        let n = self.e.k32(next);
        self.end_case(n, true);
        self.begin_case(next);
    }

    /// Counts `n` executed instructions at `pc`; past the budget the wave goes to the timeout case, and a
    /// wave that reported (and so yields) leaves at once.
    fn count(&mut self, n: u32, pc: usize) {
        let x = self.get(self.executed);
        let k = self.e.k32(n);
        let x = self.e.bin(Bin::Add, x, k);
        self.put(self.executed, x);
        let budget = self.e.k32(self.shape.budget);
        let over = self.e.cmp(Cmp::UGt, x, budget);
        let y = self.get(self.yld);
        let yn = self.e.nz(y);
        let leave_now = self.e.bor(over, yn);
        let cont = self.e.b.id();
        let leave = self.e.b.id();
        self.e.selection_merge(cont);
        self.e.branch_if(leave_now, leave, cont);
        self.e.block(leave);
        // The timeout case reports (one copy of that code per module); a report made earlier keeps its
        // segment (DEAD).
        let seg = self.get(self.seg);
        let t = self.e.k32(self.timeout_seg);
        let next = self.e.select(yn, seg, t);
        self.put(self.seg, next);
        let pcv = self.e.k32(pc as u32);
        self.put(self.timeout_pc, pcv);
        self.e.branch(self.sw_merge);
        self.e.block(cont);
    }

    /// The timeout case: the wave ends with `Timeout` at the pc [`Cx::count`] left.
    fn emit_timeout_case(&mut self) {
        self.begin_case(self.timeout_seg);
        let pc = self.get(self.timeout_pc);
        let yes = self.e.kbool(true);
        let z = self.e.k32(0);
        self.report_if(yes, layout::TIMEOUT, pc, z, z);
        self.e.branch(self.sw_merge);
    }

    /// Ends this lane's wave with status `kind` when `cond` holds: the first report of the lane is kept in
    /// function variables and written to the status buffer once the segment ends ([`Cx::flush_report`]), so
    /// the many places that can report stay small.
    pub fn report_if(&mut self, cond: Sv, kind: u32, pc: Sv, a: Sv, b: Sv) {
        let k = self.e.k32(kind);
        self.e.call_outlined(
            crate::units::Helper::Report.key(),
            Ty::I32,
            &[cond, k, pc, a, b],
        );
    }

    /// Writes this lane's pending report, if any, to the status buffer (the first report of the dispatch
    /// wins) and raises the workgroup's abort flag.
    pub fn flush_report(&mut self) {
        let st = self.status;
        let sched = self.sched;
        let rep = self.rep;
        let executed = self.executed;
        let lane = self.lane;
        let wave = self.wave;
        let kind = self.get(rep[0]);
        let some = self.e.nz(kind);
        let base = self.status_base;
        self.e.if_then(some, |e| {
            let z = e.c32(0);
            let p0 = e.elem(st, base.id);
            let first = e
                .atomic32(
                    SOp::AtomicCompareExchange,
                    p0,
                    spirv::Scope::Device,
                    0,
                    &[kind.id, z],
                )
                .expect("a result");
            let zero = e.k32(0);
            let is_first = e.cmp(Cmp::Eq, first, zero);
            e.if_then(is_first, |e| {
                let pc = e.load32(rep[1]);
                let a = e.load32(rep[2]);
                let b = e.load32(rep[3]);
                let ex = e.load32(executed);
                for (i, v) in [(1u32, pc), (2, a), (3, b), (4, ex), (5, wave), (6, lane)] {
                    let c = e.bink(Bin::Add, base, i as u64);
                    let p = e.elem(st, c.id);
                    e.store(p, v);
                }
            });
            let one = e.c32(1);
            let pa = e.elem(sched, one);
            e.atomic32(SOp::AtomicStore, pa, spirv::Scope::Workgroup, 0, &[one]);
        });
    }

    /// The first word of the current exchange's slot. A wave's exchanges take slots 0, 1, 2 in turn: a
    /// segment reads the slot of the exchange that ended it while it may publish into the next one, and the
    /// wave's lane masks of the slot after that are cleared meanwhile. Waves share the slots' words: a wave
    /// stays current from an exchange's publication to its reads.
    pub(crate) fn slot_word(&mut self, ahead: u32) -> Sv {
        self.slot_base(ahead)
    }

    fn slot_base(&mut self, ahead: u32) -> Sv {
        let x = self.get(self.xc);
        let x = self.e.bink(Bin::Add, x, ahead as u64);
        let three = self.e.k32(SLOTS);
        let s = self.e.op32(SOp::UMod, &[x.id, three.id]);
        self.e.bink(Bin::Mul, s, SLOT_WORDS as u64)
    }

    /// The word index of exchange word `w` of lane `lane` in the current slot.
    pub fn xword(&mut self, lane: Sv, w: u32) -> Sv {
        let base = self.slot_base(0);
        let l = self.e.bink(Bin::Mul, lane, XW as u64);
        let i = self.e.bin(Bin::Add, base, l);
        self.e.bink(Bin::Add, i, w as u64)
    }

    /// Publishes `v` as exchange word `w` of this lane.
    pub fn publish(&mut self, w: u32, v: Sv) {
        let i = self.xword(self.lane, w);
        let p = self.e.elem(self.xch, i.id);
        self.e.store(p, v);
    }

    /// Reads exchange word `w` of lane `lane` (a u32 value in 0..wave).
    pub fn fetch(&mut self, lane: Sv, w: u32) -> Sv {
        let i = self.xword(lane, w);
        let p = self.e.elem(self.xch, i.id);
        self.e.load32(p)
    }

    /// Moves to the next exchange slot (after the values of this one were read) and clears the wave's lane
    /// mask of the slot after it, which no segment reads or writes now: its last read was before the barrier
    /// that began this segment, and the next ballot into it comes after the next barrier. Clearing here, at
    /// every advance, keeps the masks zero across exchanges that publish no ballot (stores, LDS, DPP): a
    /// clear done only by the ballots left a mask two ballots old in place after two such exchanges (found
    /// by `conformance fuzz`: VCC kept bits of an earlier compare).
    pub fn next_slot(&mut self) {
        let x = self.get(self.xc);
        let x = self.e.bink(Bin::Add, x, 1);
        self.put(self.xc, x);
        let at = self.mask_word(1);
        let z = self.e.k32(0);
        let first = self.e.cmp(Cmp::Eq, self.lane, z);
        let masks = self.masks;
        self.e.if_then(first, |e| {
            for k in 0..2 {
                let i = e.bink(Bin::Add, at, k);
                let p = e.elem(masks, i.id);
                let z = e.k32(0);
                e.store(p, z);
            }
        });
    }

    /// The first of the two lane-mask words of this wave's slot `ahead` exchanges from the current one.
    fn mask_word(&mut self, ahead: u32) -> Sv {
        let x = self.get(self.xc);
        let x = self.e.bink(Bin::Add, x, ahead as u64);
        let three = self.e.k32(SLOTS);
        let s = self.e.op32(SOp::UMod, &[x.id, three.id]);
        let w = self.e.bink(Bin::Mul, self.wave, SLOTS as u64);
        let i = self.e.bin(Bin::Add, w, s);
        self.e.bink(Bin::Mul, i, 2)
    }

    /// Sets this lane's bit of the current slot's lane mask when `b` (a ballot: one atomic or per lane); the
    /// mask was cleared when the wave last moved to this slot's predecessor ([`Cx::next_slot`]).
    pub fn publish_bit(&mut self, b: Sv) {
        let at = self.mask_word(0);
        let half = self.e.bink(Bin::LShr, self.lane, 5);
        let at = self.e.bin(Bin::Add, at, half);
        let bit = self.e.b2i(b, Ty::I32);
        let sh = self.e.bink(Bin::And, self.lane, 31);
        let v = self.e.bin(Bin::Shl, bit, sh);
        let p = self.e.elem(self.masks, at.id);
        self.e
            .atomic32(SOp::AtomicOr, p, spirv::Scope::Workgroup, 0, &[v.id]);
    }

    /// The wave's lane mask published with [`Cx::publish_bit`] (after a cut).
    pub fn gather_mask(&mut self) -> Sv {
        let at = self.mask_word(0);
        let p = self.e.elem(self.masks, at.id);
        let lo = self.e.load32(p);
        let at1 = self.e.bink(Bin::Add, at, 1);
        let p = self.e.elem(self.masks, at1.id);
        let hi = self.e.load32(p);
        self.e.pack(lo, hi)
    }
}

/// SGPR-file index of a scalar destination, or the refusal naming it.
fn sdst_index(op: Operand, inst: &Instruction, pc: usize) -> Result<u32, Refusal> {
    sreg_index(op).ok_or_else(|| {
        refusal(
            inst,
            pc,
            format!("destination {op:?} is not a scalar register"),
        )
    })
}

/// SGPR-file index of a scalar register operand.
pub(crate) fn sreg_index(op: Operand) -> Option<u32> {
    Some(match op {
        Operand::Sgpr { first, .. } => first as u32,
        Operand::VccLo { .. } => sreg::VCC_LO,
        Operand::VccHi => sreg::VCC_LO + 1,
        Operand::Ttmp { first, .. } => sreg::TTMP0 + first as u32,
        Operand::M0 => sreg::M0,
        Operand::Null => sreg::NULL,
        Operand::ExecLo { .. } => sreg::EXEC_LO,
        Operand::ExecHi => sreg::EXEC_HI,
        _ => return None,
    })
}

/// The high dword of the shared (LDS) aperture of flat addresses, as the model has it (rule
/// `flat.shared_aperture`).
pub(crate) const SHARED_APERTURE_HI: u64 = 0x0001_0000;

/// What a segment's instruction translation did to control flow.
pub(crate) enum Done {
    /// Continue with the next instruction.
    Next,
    /// The instruction set the next segment itself and ended the case.
    Ended,
}

/// Compiles `prog` for `shape`.
pub(crate) fn compile(
    prog: &Program,
    shape: Shape,
    regions: &[Region],
) -> Result<(Vec<u32>, bool, bool, u32), Refusal> {
    let mut e = Emit::new();
    e.host_floats = shape.host_floats;
    e.call_helpers = shape.call_helpers;
    e.rolled_loops = shape.rolled_loops;
    let void = e.t_void();
    let fn_ty = e.b.ty(SOp::TypeFunction, &[void]);
    let u32t = e.t_u32();
    // Interface variables.
    let lii = e.builtin_input(u32t, spirv::BuiltIn::LocalInvocationIndex);
    let mem = e.storage_buffer(layout::BIND_MEM, "guest_memory");
    let info = e.storage_buffer(layout::BIND_INFO, "launch_info");
    e.opaque_source = Some(info);
    let status = e.storage_buffer(layout::BIND_STATUS, "status");
    let waves = shape.waves();
    let xch = e.workgroup_array(SLOTS * SLOT_WORDS, "exchange");
    let sched = e.workgroup_array(SCHED_HEAD + waves, "scheduler");
    let masks = e.workgroup_array(waves * SLOTS * 2, "lane_masks");
    let own = 4 * (SLOTS * SLOT_WORDS + SCHED_HEAD + waves + waves * SLOTS * 2);
    let lds_words = shape.lds_bytes.div_ceil(4);
    let lds_in_workgroup = lds_words > 0
        && own
            .checked_add(4 * lds_words)
            .is_some_and(|n| n <= shape.shared_bytes);
    // Two words of slack: accesses read and rewrite the dword after the one they touch.
    let lds = if lds_in_workgroup {
        e.workgroup_array(lds_words + 2, "lds")
    } else {
        e.storage_buffer(layout::BIND_LDS, "lds")
    };
    // Independent guest workgroups run one per host workgroup, unless LDS is the shared storage buffer.
    let parallel = shape.parallel && (lds_words == 0 || lds_in_workgroup);
    let total = shape.groups[0] * shape.groups[1] * shape.groups[2];
    let wid = parallel.then(|| {
        let v3 = e.b.ty(SOp::TypeVector, &[u32t, 3]);
        e.builtin_input(v3, spirv::BuiltIn::WorkgroupId)
    });

    let main =
        e.b.begin_function(void, spirv::FunctionControl::NONE, fn_ty);
    e.b.name(main, "main");
    let entry = e.b.id();
    e.block(entry);
    let lid = e.entry_load(lii);
    // The first guest workgroup this host workgroup runs, and where its status record starts.
    let (g0, status_base) = match wid {
        Some(w) => {
            let x = e.entry_load_component(w, 0);
            let y = e.entry_load_component(w, 1);
            let yx = e.bink(Bin::Mul, y, crate::host_grid(total)[0] as u64);
            let g0 = e.bin(Bin::Add, yx, x);
            let r = e.bink(Bin::Add, g0, 1);
            (g0, e.bink(Bin::Mul, r, layout::STATUS_WORDS as u64))
        }
        None => (e.k32(0), e.k32(0)),
    };
    let w = e.k32(shape.wave);
    let lane = e.op32(SOp::UMod, &[lid.id, w.id]);
    let wave = e.op32(SOp::UDiv, &[lid.id, w.id]);
    let nv = prog_vgprs(prog);
    let v = e.local_array(nv);
    let s = e.local_array(128);
    let scc = e.local(Ty::I32);
    // The segment, yield flag and pending report are private variables: the report helper sets them.
    let seg = e.private(Ty::I32);
    let jumped = e.local(Ty::I32);
    let yld = e.private(Ty::I32);
    let xc = e.local(Ty::I32);
    let executed = e.local(Ty::I32);
    let wstate = e.local(Ty::I32);
    let mode = e.local(Ty::I32);
    let rep = [
        e.private(Ty::I32),
        e.private(Ty::I32),
        e.private(Ty::I32),
        e.private(Ty::I32),
    ];
    for r in rep {
        let z = e.k32(0);
        e.store(r, z);
    }
    let timeout_pc = e.local(Ty::I32);
    let cut = e.local(Ty::I32);
    let z0 = e.k32(0);
    e.store(cut, z0);
    e.store(jumped, z0);
    e.loop_cut = Some(cut);
    // The units' ids follow the block leaders' (and the blocks outside the kernel).
    let store_unit = (prog.leaders.len() + prog.outside.len()) as u32;
    let units = crate::units::Units::new(&mut e, store_unit, store_unit + 1);
    // Generation 0 is before the function: no entry of it is ever current.
    let unknown = Sv { id: 0, ty: Ty::I32 };
    let mut cx = Cx {
        e,
        prog,
        regions,
        units,
        shape,
        v,
        s,
        scc,
        seg,
        jumped,
        yld,
        xc,
        rep,
        executed,
        wstate,
        mode,
        lane,
        wave,
        mem,
        info,
        status,
        status_base,
        lds,
        xch,
        masks,
        sched,
        cases: Vec::new(),
        sw_merge: 0,
        next_id: 0,
        leader_ids: Vec::new(),
        inlined: inlined_blocks(prog),
        deferred: Vec::new(),
        timeout_seg: store_unit + 2,
        timeout_pc,
        vknown: vec![(0, unknown); 256],
        sknown: vec![(0, unknown); 128],
        active_known: None,
        mode_known: None,
        entry_modes: prog.entry_modes(shape.mode),
        vptr: vec![0; 256],
        sptr: vec![0; 128],
    };
    for &l in prog.leaders.iter().chain(&prog.outside) {
        let id = cx.new_seg();
        cx.leader_ids.push((l, id));
    }
    let (unit, rmw, timeout) = (cx.new_seg(), cx.new_seg(), cx.new_seg());
    debug_assert_eq!(
        (unit, rmw, timeout),
        (store_unit, store_unit + 1, store_unit + 2)
    );

    // for gw in 0..groups: one guest workgroup after another (the model's order: x fastest, then y, z); with
    // independent workgroups, this host workgroup's one.
    let totalv = cx.e.k32(total);
    let gw = cx.e.local(Ty::I32);
    let z = cx.e.k32(0);
    cx.put(gw, g0);
    // Workgroup memory starts undefined: the abort flag, which lives across guest workgroups, is cleared
    // before any invocation reads it (the other scheduler words are set per group).
    let sched_arr = cx.sched;
    let first = cx.e.cmp(Cmp::Eq, lid, z);
    cx.e.if_then(first, |e| {
        let one = e.c32(1);
        let p = e.elem(sched_arr, one);
        let z = e.c32(0);
        e.store_id(p, z);
    });
    cx.e.barrier();
    let crate::spv::Loop {
        header: l0_header,
        cont: l0_cont,
        merge: l0_merge,
    } = cx.e.open_loop();
    let l0_body = cx.e.b.id();
    let g = cx.get(gw);
    let more = cx.e.cmp(Cmp::ULt, g, totalv);
    // Stop early once a wave faulted or timed out.
    let one = cx.e.k32(1);
    let pa = cx.e.elem(sched, one.id);
    let abort = cx.e.load32(pa);
    let zero = cx.e.k32(0);
    let ok = cx.e.cmp(Cmp::Eq, abort, zero);
    let go = cx.e.band(more, ok);
    cx.e.branch_if(go, l0_body, l0_merge);
    cx.e.block(l0_body);
    init_group(&mut cx, g);
    cx.e.barrier();
    dispatch(&mut cx)?;
    cx.e.branch(l0_cont);
    cx.e.block(l0_cont);
    let g = cx.get(gw);
    let g1 =
        cx.e.bink(Bin::Add, g, if parallel { total as u64 } else { 1 });
    cx.put(gw, g1);
    cx.e.branch(l0_header);
    cx.e.block(l0_merge);
    // The loop ends when every group ran or a wave stopped the job.
    let g = cx.get(gw);
    let all = cx.e.cmp(Cmp::UGe, g, totalv);
    let one = cx.e.k32(1);
    let pa = cx.e.elem(sched, one.id);
    let abort = cx.e.load32(pa);
    let stopped = cx.e.nz(abort);
    let fin = cx.e.bor(all, stopped);
    cx.e.check_loop_end(fin);
    // A loop the host cut short makes every result suspect: the job is refused, not reported.
    let c = cx.get(cut);
    let was_cut = cx.e.nz(c);
    let z = cx.e.k32(0);
    let why = cx.e.k32(layout::HOST_LOOP);
    cx.report_if(was_cut, layout::UNSUPPORTED, z, c, why);
    cx.flush_report();
    {
        let e = &mut cx.e;
        let k = e.c32(layout::FINISHED);
        let p = e.elem(cx.status, k);
        let one = e.c32(1);
        e.atomic32(SOp::AtomicIAdd, p, spirv::Scope::Device, 0, &[one]);
    }
    cx.e.b.op(SOp::Return, &[]);
    cx.e.b.end_function();
    crate::units::define_helpers(&mut cx);
    let local = shape.waves() * shape.wave;
    let interface: Vec<Word> = std::iter::once(lii).chain(wid).collect();
    cx.e.b
        .entry_point(spirv::ExecutionModel::GLCompute, main, "main", &interface);
    cx.e.b
        .execution_mode(main, spirv::ExecutionMode::LocalSize, &[local, 1, 1]);
    if cx.e.used_host_floats() {
        cx.e.declare_float_controls(main);
    }
    Ok((
        std::mem::take(&mut cx.e.b).assemble(),
        lds_in_workgroup,
        parallel,
        cx.cases.len() as u32,
    ))
}

/// The VGPRs the program names (one past the highest), or all 256 with relative addressing.
fn prog_vgprs(prog: &Program) -> u32 {
    let mut n = 1u32;
    for i in prog.instructions() {
        if matches!(
            i.op,
            Op::VMovrelsB32
                | Op::VMovreldB32
                | Op::VMovrelsdB32
                | Op::VMovrelsd2B32
                | Op::VSwaprelB32
        ) {
            return 256;
        }
        for s in i.operands() {
            if let Operand::Vgpr { first, width } = s.operand {
                n = n.max(first as u32 + width.max(1) as u32);
            }
        }
    }
    // Loads may write up to four registers past their first.
    (n + 4).min(256)
}

/// Initialises every invocation's guest state for workgroup `g`, and the scheduler (first invocation).
fn init_group(cx: &mut Cx, g: Sv) {
    let shape = cx.shape;
    let z = cx.e.k32(0);
    // Every register starts at 0: one store per file (known values of the block are forgotten).
    cx.e.zero_local_array(cx.v);
    cx.e.zero_local_array(cx.s);
    cx.forget_registers();
    for var in [cx.scc, cx.yld, cx.xc, cx.executed, cx.wstate] {
        cx.put(var, z);
    }
    let m = cx.e.k32(shape.mode);
    cx.put(cx.mode, m);
    // Every workgroup starts with a zeroed LDS, as the model's; the invocations clear it together (the
    // barrier after this function orders it before the first access).
    let lds_words = shape.lds_bytes.div_ceil(4);
    if lds_words > 0 {
        let local = shape.waves() * shape.wave;
        let per = lds_words.div_ceil(local);
        let n = cx.e.k32(per);
        let lds = cx.lds;
        let tid0 = {
            let first = cx.e.bink(Bin::Mul, cx.wave, shape.wave as u64);
            cx.e.bin(Bin::Add, first, cx.lane)
        };
        cx.e.for_range(n, |e, i| {
            let at = e.bink(Bin::Mul, i, local as u64);
            let at = e.bin(Bin::Add, at, tid0);
            let k = e.k32(lds_words);
            let inside = e.cmp(Cmp::ULt, at, k);
            e.if_then(inside, |e| {
                let p = e.elem(lds, at.id);
                let z = e.k32(0);
                e.store(p, z);
            });
        });
    }
    let entry = cx
        .leader_ids
        .iter()
        .find(|(l, _)| *l == 0)
        .map_or(DEAD, |(_, id)| *id);
    let ev = cx.e.k32(entry);
    cx.put(cx.seg, ev);
    // User SGPRs from the launch info, then the workgroup ids the kernel enables.
    for i in 0..shape.user_sgprs {
        let k = cx.e.c32(layout::INFO_USER + i);
        let p = cx.e.elem(cx.info, k);
        let v = cx.e.load32(p);
        cx.sset(i, v);
    }
    let gx = cx.e.bink(Bin::Mul, g, 1);
    let nx = shape.groups[0].max(1) as u64;
    let ny = shape.groups[1].max(1) as u64;
    let kx = cx.e.k32(nx as u32);
    let kxy = cx.e.k32((nx * ny) as u32);
    let x = cx.e.op32(SOp::UMod, &[gx.id, kx.id]);
    let yq = cx.e.op32(SOp::UDiv, &[gx.id, kx.id]);
    let ky = cx.e.k32(ny as u32);
    let y = cx.e.op32(SOp::UMod, &[yq.id, ky.id]);
    let zq = cx.e.op32(SOp::UDiv, &[gx.id, kxy.id]);
    let mut sg = shape.user_sgprs;
    for (dim, id) in [x, y, zq].into_iter().enumerate() {
        if shape.tgid[dim] {
            cx.sset(sg, id);
            sg += 1;
        }
    }
    // v0: the thread id in the workgroup; EXEC: the lanes of this wave that exist.
    let first = cx.e.bink(Bin::Mul, cx.wave, shape.wave as u64);
    let tid = cx.e.bin(Bin::Add, first, cx.lane);
    cx.vset(0, tid);
    let threads = cx.e.k32(shape.threads);
    let left = cx.e.bin(Bin::Sub, threads, first);
    let count = cx.e.bink(Bin::UMin, left, shape.wave as u64);
    let count64 = cx.e.zext(count);
    let one = cx.e.k64(1);
    let all = cx.e.bin(Bin::Shl, one, count64);
    let mask = cx.e.bink(Bin::Sub, all, 1);
    let full = cx.e.k64(u64::MAX);
    let is64 = cx.e.k32(64);
    let is_full = cx.e.cmp(Cmp::Eq, count, is64);
    let mask = cx.e.select(is_full, full, mask);
    cx.set_mask_at(sreg::EXEC_LO, mask);
    // The scheduler: wave 0 runs first; waves past the workgroup's threads do not exist.
    let is0 = cx.e.cmp(Cmp::Eq, tid, z);
    let sched = cx.sched;
    let waves = shape.waves();
    let masks = cx.masks;
    cx.e.if_then(is0, |e| {
        let z = e.c32(0);
        let p = e.elem(sched, z);
        e.store_id(p, z);
        for i in 0..waves * SLOTS * 2 {
            let i = e.c32(i);
            let p = e.elem(masks, i);
            e.store_id(p, z);
        }
        for w in 0..waves {
            let k = e.c32(SCHED_HEAD + w);
            let p = e.elem(sched, k);
            let r = e.c32(RUNNING);
            e.store_id(p, r);
        }
    });
}

/// The dispatcher loop of one guest workgroup.
fn dispatch(cx: &mut Cx) -> Result<(), Refusal> {
    let crate::spv::Loop {
        header: l1_header,
        cont: l1_cont,
        merge: l1_merge,
    } = cx.e.open_loop();
    cx.e.barrier();
    let z = cx.e.c32(0);
    let pc0 = cx.e.elem(cx.sched, z);
    let cur = cx.e.load32(pc0);
    let one = cx.e.c32(1);
    let pa = cx.e.elem(cx.sched, one);
    let abort = cx.e.load32(pa);
    let none = cx.e.k32(NO_WAVE);
    let finished = cx.e.cmp(Cmp::Eq, cur, none);
    let zero = cx.e.k32(0);
    let aborted = cx.e.cmp(Cmp::Ne, abort, zero);
    let stop = cx.e.bor(finished, aborted);
    // Every invocation has read the current wave and the abort flag before the current wave's first lane
    // may rewrite them (host subgroups of one workgroup run one after another between barriers: a wave
    // switch seen by half of a wave would split it).
    cx.e.barrier();
    let run = cx.e.b.id();
    cx.e.branch_if(stop, l1_merge, run);
    cx.e.block(run);
    let mine = cx.e.cmp(Cmp::Eq, cur, cx.wave);
    let wave_body = cx.e.b.id();
    let after = cx.e.b.id();
    cx.e.selection_merge(after);
    cx.e.branch_if(mine, wave_body, after);
    cx.e.block(wave_body);
    run_wave(cx)?;
    cx.e.branch(after);
    cx.e.block(after);
    cx.e.branch(l1_cont);
    cx.e.block(l1_cont);
    cx.e.branch(l1_header);
    cx.e.block(l1_merge);
    // Ended by the scheduler (no wave left) or the abort flag, never otherwise.
    let z = cx.e.c32(0);
    let pc0 = cx.e.elem(cx.sched, z);
    let cur = cx.e.load32(pc0);
    let none = cx.e.k32(NO_WAVE);
    let finished = cx.e.cmp(Cmp::Eq, cur, none);
    let one = cx.e.c32(1);
    let pa = cx.e.elem(cx.sched, one);
    let abort = cx.e.load32(pa);
    let aborted = cx.e.nz(abort);
    let fin = cx.e.bor(finished, aborted);
    cx.e.check_loop_end(fin);
    Ok(())
}

/// The current wave's inner loop: segments run until one yields; then its first lane updates the scheduler.
fn run_wave(cx: &mut Cx) -> Result<(), Refusal> {
    let z = cx.e.k32(0);
    cx.put(cx.yld, z);
    let crate::spv::Loop {
        header: l2_header,
        cont: l2_cont,
        merge: l2_merge,
    } = cx.e.open_loop();
    let segv = cx.get(cx.seg);
    // The cases are the bulk of the module: about 100 words per guest word on the benchmark's kernel.
    cx.e.b
        .reserve_detached(cx.prog.words.len() * 128 + (1 << 16));
    let switch_block = cx.e.b.detach();
    let sw_merge = cx.e.b.id();
    cx.sw_merge = sw_merge;
    cx.cases.clear();
    // The cases: one per block leader, plus the continuations their cuts start.
    let leaders: Vec<(usize, u32)> = cx.leader_ids.clone();
    for (leader, id) in leaders {
        if cx.inlined.contains(&leader) {
            // Translated where control enters it, inside the case it is entered from.
            continue;
        }
        cx.begin_case(id);
        if cx.prog.outside.contains(&leader) {
            // Control left the kernel: the model faults fetching there.
            let yes = cx.e.kbool(true);
            let pc = cx.e.k32(leader as u32);
            let a = (leader as u64).wrapping_mul(4);
            let lo = cx.e.k32(a as u32);
            let hi = cx.e.k32((a >> 32) as u32);
            cx.report_if(yes, layout::PC_FAULT, pc, lo, hi);
            cx.e.branch(cx.sw_merge);
            continue;
        }
        emit_block(cx, leader)?;
        // The inlined blocks it entered, and those they enter (each where its entering branch goes).
        while let Some((label, at)) = cx.deferred.pop() {
            cx.e.block(label);
            emit_block_body(cx, at)?;
        }
    }
    // The units, where an instruction calls them.
    cx.mode_known = cx.mode_outside_blocks();
    if cx.units.store_called {
        crate::units::emit_store_unit(cx);
    }
    if cx.units.rmw_called {
        crate::units::emit_rmw_unit(cx);
    }
    cx.emit_timeout_case();
    // Default: a segment id that is no case (a jump to a pc that was not translated) ends the job.
    let default = cx.e.b.id();
    cx.e.block(default);
    let t = cx.e.k32(layout::BAD_PC);
    let pcv = cx.get(cx.jumped);
    let zz = cx.e.k32(0);
    let yes = cx.e.kbool(true);
    cx.report_if(yes, layout::UNSUPPORTED, pcv, zz, t);
    cx.e.branch(sw_merge);
    // Back to the switch block: its merge and the switch itself.
    cx.e.b.reattach(switch_block);
    cx.e.selection_merge(sw_merge);
    let mut ops = Vec::with_capacity(2 + 2 * cx.cases.len());
    ops.extend([segv.id, default]);
    for &(id, label) in &cx.cases {
        ops.extend([id, label]);
    }
    cx.e.b.op(SOp::Switch, &ops);
    cx.e.block(sw_merge);
    cx.flush_report();
    let y = cx.get(cx.yld);
    let yn = cx.e.nz(y);
    cx.e.branch_if(yn, l2_merge, l2_cont);
    cx.e.block(l2_cont);
    cx.e.branch(l2_header);
    cx.e.block(l2_merge);
    let y = cx.get(cx.yld);
    let fin = cx.e.nz(y);
    cx.e.check_loop_end(fin);
    schedule(cx);
    Ok(())
}

/// The wave's first lane records its state and, when it stopped (barrier or end), picks the next wave as
/// the model does: the next running wave after it, else (all at the barrier or done) the barrier releases and
/// the first running wave goes on; `NO_WAVE` when all are done.
fn schedule(cx: &mut Cx) {
    let lane0 = cx.e.k32(0);
    let first = cx.e.cmp(Cmp::Eq, cx.lane, lane0);
    let sched = cx.sched;
    let wstate = cx.wstate;
    let wave = cx.wave;
    let waves = cx.shape.waves();
    cx.e.if_then(first, |e| {
        let st = e.load32(wstate);
        let base = e.k32(SCHED_HEAD);
        let idx = e.bin(Bin::Add, base, wave);
        let p = e.elem(sched, idx.id);
        e.store(p, st);
        let running = e.k32(RUNNING);
        let stopped = e.cmp(Cmp::Ne, st, running);
        e.if_then(stopped, |e| {
            // Scan the waves after this one, then from 0 after releasing the barrier.
            let next = e.local(Ty::I32);
            let none = e.k32(NO_WAVE);
            e.store(next, none);
            let st_of = |e: &mut Emit, w: u32| {
                let k = e.c32(SCHED_HEAD + w);
                let p = e.elem(sched, k);
                e.load32(p)
            };
            // After this wave: the first running wave with a greater index.
            for w in (0..waves).rev() {
                let s = st_of(e, w);
                let r = e.k32(RUNNING);
                let is_running = e.cmp(Cmp::Eq, s, r);
                let wv = e.k32(w);
                let after = e.cmp(Cmp::UGt, wv, wave);
                let take = e.band(is_running, after);
                let cur = e.load32(next);
                let n = e.select(take, wv, cur);
                e.store(next, n);
            }
            let n = e.load32(next);
            let nonev = e.k32(NO_WAVE);
            let found = e.cmp(Cmp::Ne, n, nonev);
            e.if_else(
                found,
                |_| {},
                |e| {
                    // Release every wave at the barrier; the first one that is not done goes on.
                    for w in (0..waves).rev() {
                        let k = e.c32(SCHED_HEAD + w);
                        let p = e.elem(sched, k);
                        let s = e.load32(p);
                        let b = e.k32(AT_BARRIER);
                        let at = e.cmp(Cmp::Eq, s, b);
                        let r = e.k32(RUNNING);
                        let ns = e.select(at, r, s);
                        e.store(p, ns);
                        let d = e.k32(DONE);
                        let alive = e.cmp(Cmp::Ne, ns, d);
                        let wv = e.k32(w);
                        let cur = e.load32(next);
                        let n = e.select(alive, wv, cur);
                        e.store(next, n);
                    }
                },
            );
            let n = e.load32(next);
            let z = e.c32(0);
            let p = e.elem(sched, z);
            e.store(p, n);
        });
    });
    // A wave released from the barrier runs again when scheduled: its own state returns to running.
    let at = cx.get(cx.wstate);
    let b = cx.e.k32(AT_BARRIER);
    let was = cx.e.cmp(Cmp::Eq, at, b);
    let r = cx.e.k32(RUNNING);
    let ns = cx.e.select(was, r, at);
    cx.put(cx.wstate, ns);
}

/// Emits the segments of the block at `leader`.
fn emit_block(cx: &mut Cx, leader: usize) -> Result<(), Refusal> {
    if !self_loop(cx.prog, leader) {
        return emit_block_body(cx, leader);
    }
    // A block that branches back to itself runs as a loop of its own inside its case: the hot loop of a
    // kernel then has no dispatcher switch in it, and the host compiler sees the registers the body does
    // not write as loop invariants. Every exit of the body (the budget, a report, the branch) goes to the
    // latch, which loops while the wave stays here.
    let id = cx.leader_id(leader);
    let outer = cx.sw_merge;
    let crate::spv::Loop {
        header,
        cont,
        merge,
    } = cx.e.open_loop();
    cx.sw_merge = cont;
    let body = if cx.e.host_floats && speculable(cx.prog, leader) {
        speculate(cx, leader, cont)
    } else {
        emit_block_body(cx, leader)
    };
    cx.sw_merge = outer;
    body?;
    cx.e.block(cont);
    let again = stays(cx, id);
    cx.e.branch_if(again, header, merge);
    cx.e.block(merge);
    let again = stays(cx, id);
    let fin = cx.e.bnot(again);
    cx.e.check_loop_end(fin);
    cx.e.branch(outer);
    Ok(())
}

/// The self-loop block at `leader` run speculatively: first with every host float operation taken
/// unguarded, its guard and-ed into one flag, then, in a lane where some guard failed, from the state
/// it started with again, exactly ([`crate::sem::float`], "Host fast paths"). A guard that holds makes
/// the host result the engine's, so a lane whose guards all held has the exact state; the other lanes
/// restore every register and variable the block can write and run the exact translation. Only blocks
/// without memory access, reports or computed register numbers qualify ([`speculable`]), so the first
/// run has no effect outside what is restored. On the H200 bench (`bench-gpu`) this takes the
/// per-operation branch and helper call out of the hot loop: 33.0 to 10.4 ms.
fn speculate(cx: &mut Cx, leader: usize, cont: Word) -> Result<(), Refusal> {
    // The state the block can write, as it is when the block starts.
    let (vregs, sregs) = block_registers(cx.prog, leader);
    let vsaved: Vec<(u32, Sv)> = vregs.iter().map(|&r| (r, cx.vget(r))).collect();
    let ssaved: Vec<(u32, Sv)> = sregs.iter().map(|&r| (r, cx.sget(r))).collect();
    let vars = [cx.scc, cx.mode, cx.seg, cx.yld, cx.executed, cx.timeout_pc];
    let varsaved: Vec<(Word, Sv)> = vars.iter().map(|&v| (v, cx.get(v))).collect();
    let flag = cx.e.local(Ty::Bool);
    let yes = cx.e.kbool(true);
    cx.e.store(flag, yes);
    // The first run is a switch with a default case only, so that every exit of the body (which
    // breaks to the merge of its enclosing switch) is structured.
    let check = cx.e.b.id();
    let first = cx.e.b.id();
    let z = cx.e.k32(0);
    cx.e.selection_merge(check);
    cx.e.b.op(SOp::Switch, &[z.id, first]);
    cx.e.block(first);
    cx.sw_merge = check;
    cx.e.speculate = Some(flag);
    cx.e.speculated = false;
    let fast = emit_block_body(cx, leader);
    cx.e.speculate = None;
    fast?;
    cx.e.block(check);
    if !cx.e.speculated {
        // Nothing ran on the host unguarded: the first run was the exact one.
        cx.e.branch(cont);
        return Ok(());
    }
    let ok = cx.e.load(flag, Ty::Bool);
    let join = cx.e.b.id();
    let again = cx.e.b.id();
    cx.e.selection_merge(join);
    cx.e.branch_if(ok, join, again);
    cx.e.block(again);
    for (r, v) in vsaved {
        cx.vset(r, v);
    }
    for (r, v) in ssaved {
        cx.sset(r, v);
    }
    for (var, v) in varsaved {
        cx.put(var, v);
    }
    cx.forget_registers();
    cx.sw_merge = cont;
    emit_block_body(cx, leader)?;
    cx.e.block(join);
    cx.e.branch(cont);
    Ok(())
}

/// Whether the self-loop block at `leader` may run speculatively: scalar and vector ALU instructions
/// only, every register they touch named by an operand (no memory, no reports, no s_setreg, no
/// relative addressing, no lane exchange).
fn speculable(prog: &Program, leader: usize) -> bool {
    use reference_model::isa::Encoding as E;
    use Op::*;
    prog.block(leader).iter().all(|(_, i)| match i.encoding {
        E::Sop2 | E::Sopc => true,
        E::Sop1 => !matches!(
            i.op,
            SMovrelsB32
                | SMovrelsB64
                | SMovreldB32
                | SMovreldB64
                | SMovrelsd2B32
                | SSetpcB64
                | SSwappcB64
        ),
        E::Sopk => matches!(
            i.op,
            SMovkI32
                | SCmovkI32
                | SAddkI32
                | SMulkI32
                | SGetregB32
                | SCmpkEqI32
                | SCmpkEqU32
                | SCmpkGeI32
                | SCmpkGeU32
                | SCmpkGtI32
                | SCmpkGtU32
                | SCmpkLeI32
                | SCmpkLeU32
                | SCmpkLgI32
                | SCmpkLgU32
                | SCmpkLtI32
                | SCmpkLtU32
        ),
        E::Sopp => matches!(
            i.op,
            SNop | SWaitcnt
                | SBranch
                | SCbranchScc0
                | SCbranchScc1
                | SCbranchVccz
                | SCbranchVccnz
                | SCbranchExecz
                | SCbranchExecnz
        ),
        E::Vop1 | E::Vop2 | E::Vop3 | E::Vop3p => {
            crate::translate::need(i) == Need::Local
                && !matches!(
                    i.op,
                    VMovrelsB32 | VMovreldB32 | VMovrelsdB32 | VMovrelsd2B32 | VSwaprelB32
                )
        }
        _ => false,
    })
}

/// The VGPRs and SGPRs the operands of the block at `leader` name (any role), with EXEC, VCC and M0.
fn block_registers(prog: &Program, leader: usize) -> (Vec<u32>, Vec<u32>) {
    let mut v = std::collections::BTreeSet::new();
    let mut s: std::collections::BTreeSet<u32> = [
        sreg::EXEC_LO,
        sreg::EXEC_HI,
        sreg::VCC_LO,
        sreg::VCC_LO + 1,
        sreg::M0,
    ]
    .into();
    for (_, i) in prog.block(leader) {
        for slot in i.operands() {
            match slot.operand {
                Operand::Vgpr { first, width } => {
                    v.extend(
                        (first as u32..first as u32 + width.max(1) as u32).filter(|&r| r < 256),
                    );
                }
                op => {
                    let width = match op {
                        Operand::Sgpr { width, .. }
                        | Operand::Ttmp { width, .. }
                        | Operand::VccLo { width }
                        | Operand::ExecLo { width } => width.max(1) as u32,
                        _ => 1,
                    };
                    if let Some(r) = sreg_index(op) {
                        s.extend((r..r + width).filter(|&r| r < 128 && r != sreg::NULL));
                    }
                }
            }
        }
    }
    (v.into_iter().collect(), s.into_iter().collect())
}

/// Whether the wave goes on with segment `id` without yielding.
fn stays(cx: &mut Cx, id: u32) -> Sv {
    let seg = cx.get(cx.seg);
    let idv = cx.e.k32(id);
    let here = cx.e.cmp(Cmp::Eq, seg, idv);
    let y = cx.get(cx.yld);
    let yn = cx.e.nz(y);
    let go = cx.e.bnot(yn);
    cx.e.band(here, go)
}

/// Whether the block at `leader` ends in a branch (s_branch, s_cbranch_*) that can go back to it and
/// holds nothing that cuts it into segments.
fn self_loop(prog: &Program, leader: usize) -> bool {
    let block = prog.block(leader);
    let Some((pc, last)) = block.last() else {
        return false;
    };
    let back = matches!(flow(last, *pc), Flow::Jump(t) | Flow::Cond(t) if t == leader);
    back && last.op != Op::SCallB64
        && block[..block.len() - 1]
            .iter()
            .all(|(_, i)| crate::translate::need(i) == Need::Local)
}

/// Selections nested in one case at most: a chain of single-entry conditional blocks deeper than this gets
/// a case again, so that no host compiler meets an unbounded nest.
const INLINE_DEPTH: u32 = 16;

/// The blocks translated where control enters them instead of in a case of their own: those entered from
/// one place only ([`Program::single_entries`]), unless that place is a self-loop block (whose body runs in
/// a loop of its own, [`emit_block`]) or the conditional branches on the way nest deeper than
/// [`INLINE_DEPTH`]. Each case is a way back through the dispatcher's switch, and NVIDIA's compile time was
/// measured to grow with the cases: a 16-program fuzz batch's selection chain alone made 32 of them.
fn inlined_blocks(prog: &Program) -> BTreeSet<usize> {
    let single = prog.single_entries();
    // Leader -> nesting depth where inlined, None where it has its own case.
    let mut depth: BTreeMap<usize, Option<u32>> = BTreeMap::new();
    for &start in single.keys() {
        if depth.contains_key(&start) {
            continue;
        }
        // The chain up to a block whose place is settled (or has its own case), then down again.
        let mut chain = vec![start];
        let mut base = None;
        while let Some(&(from, _)) = single.get(chain.last().expect("not empty")) {
            if let Some(&d) = depth.get(&from) {
                base = d;
                break;
            }
            if !single.contains_key(&from) || chain.len() > single.len() {
                break;
            }
            chain.push(from);
        }
        for &l in chain.iter().rev() {
            let (from, cond) = single[&l];
            let d = if self_loop(prog, from) {
                None
            } else {
                Some(base.unwrap_or(0) + u32::from(cond)).filter(|&d| d <= INLINE_DEPTH)
            };
            depth.insert(l, d);
            base = d;
        }
    }
    depth
        .into_iter()
        .filter_map(|(l, d)| d.map(|_| l))
        .collect()
}

fn emit_block_body(cx: &mut Cx, leader: usize) -> Result<(), Refusal> {
    let prog = cx.prog;
    let block = prog.block(leader);
    cx.mode_known = cx.entry_modes.get(&leader).copied().flatten();
    let mut counted = 0usize;
    for (k, (pc, inst)) in block.iter().enumerate() {
        // Count the instructions up to the next cut at once (a per-instruction counter would dominate).
        if k >= counted {
            let mut n = 0;
            for (_, i) in &block[k..] {
                n += 1;
                if crate::translate::need(i) != Need::Local {
                    break;
                }
            }
            counted = k + n;
            cx.count(n as u32, *pc);
        }
        match crate::translate::inst(cx, inst, *pc)? {
            Done::Next => {}
            Done::Ended => {
                // The instruction ended the case; whatever follows in the block is another leader's.
                return Ok(());
            }
        }
        if let Some(next) = fallthrough(cx, inst, *pc) {
            if k + 1 == block.len() {
                // The block falls through into the next leader.
                cx.jump(next);
                return Ok(());
            }
        }
    }
    Ok(())
}

fn fallthrough(cx: &Cx, inst: &Instruction, pc: usize) -> Option<usize> {
    let _ = cx;
    match flow(inst, pc) {
        Flow::Next => Some(pc + inst.size as usize),
        _ => None,
    }
}

impl Cx<'_> {
    /// The segment id of the block at word `pc`, or `DEAD` for a pc that is no block (the dispatcher's
    /// default case reports it).
    pub fn leader_id(&self, pc: usize) -> u32 {
        // Sorted by pc: the leaders in order, then the pcs outside the kernel (all past its end).
        self.leader_ids
            .binary_search_by_key(&pc, |&(l, _)| l)
            .map_or(DEAD - 1, |i| self.leader_ids[i].1)
    }

    /// Goes on with the block at `pc`: where it is inlined, a branch to where it will be translated
    /// ([`Cx::deferred`]); else the case ends with a jump to it.
    pub fn jump(&mut self, pc: usize) {
        if self.inlined.contains(&pc) {
            let label = self.e.b.id();
            self.e.branch(label);
            self.deferred.push((label, pc));
            return;
        }
        let id = self.leader_id(pc);
        let n = self.e.k32(id);
        self.end_case(n, false);
    }

    /// Goes on with the block at `taken` when `cond`, else with the one at `fall` ([`Cx::jump`] each). With
    /// neither inlined, the case ends with the jump; otherwise a selection whose two sides never meet again
    /// (every path through a case ends it), so its merge block is unreachable.
    pub fn jump_if(&mut self, cond: Sv, taken: usize, fall: usize) {
        if !self.inlined.contains(&taken) && !self.inlined.contains(&fall) {
            let t = self.leader_id(taken);
            let f = self.leader_id(fall);
            let tv = self.e.k32(t);
            let fv = self.e.k32(f);
            let n = self.e.select(cond, tv, fv);
            self.end_case(n, false);
            return;
        }
        let (yes, no, merge) = (self.e.b.id(), self.e.b.id(), self.e.b.id());
        self.e.selection_merge(merge);
        self.e.branch_if(cond, yes, no);
        for (label, pc) in [(yes, taken), (no, fall)] {
            self.e.block(label);
            self.jump(pc);
        }
        self.e.block(merge);
        self.e.b.op(SOp::Unreachable, &[]);
    }

    /// Ends the case with a computed jump to byte address `addr` (64 bits): the block starting at word
    /// `addr / 4`, or the default case's report when none does.
    pub fn jump_indirect(&mut self, addr: Sv) {
        let mut n = self.e.k32(DEAD - 1);
        let pcw = self.e.bink(Bin::LShr, addr, 2);
        let low = self.e.trunc(pcw);
        self.put(self.jumped, low);
        for (l, id) in self.leader_ids.clone() {
            let lk = self.e.k64(l as u64);
            let is = self.e.cmp(Cmp::Eq, pcw, lk);
            let idv = self.e.k32(id);
            n = self.e.select(is, idv, n);
        }
        // Past the kernel's words the model faults fetching, as at any pc outside it.
        let len = self.e.k64(self.prog.words.len() as u64);
        let outside = self.e.cmp(Cmp::UGe, pcw, len);
        let at = self.e.bink(Bin::And, addr, !3u64);
        let lo = self.e.trunc(at);
        let hi = self.e.bink(Bin::LShr, at, 32);
        let hi = self.e.trunc(hi);
        self.report_if(outside, layout::PC_FAULT, low, lo, hi);
        let dead = self.e.k32(DEAD);
        let n = self.e.select(outside, dead, n);
        self.end_case(n, false);
    }

    /// Ends the wave (s_endpgm): the scheduler moves on.
    pub fn end_wave(&mut self) {
        let d = self.e.k32(DONE);
        self.put(self.wstate, d);
        let dead = self.e.k32(DEAD);
        self.end_case(dead, true);
    }

    /// s_barrier: the wave waits until every live wave of the workgroup reached one; the rest of its
    /// block is a segment of its own, run when the scheduler releases the barrier.
    pub fn barrier(&mut self) {
        let b = self.e.k32(AT_BARRIER);
        self.put(self.wstate, b);
        self.cut();
    }

    /// Ends the case with a jump to the next instruction when it starts a block, else continues.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// An operand of the instruction or a refusal naming it.
    pub fn op(&self, inst: &Instruction, role: Role, pc: usize) -> Result<Operand, Refusal> {
        inst.operand(role)
            .ok_or_else(|| refusal(inst, pc, format!("no {role:?} operand")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reference_model::isa::Target;

    const ENDPGM: u32 = 0xbf81_0000;
    const NOP: u32 = 0xbf80_0000;

    fn inlined(words: &[u32]) -> Vec<usize> {
        let p = Program::decode(Target::Gfx1013, words).expect("decodes");
        inlined_blocks(&p).into_iter().collect()
    }

    #[test]
    fn single_entry_blocks_are_inlined_up_to_the_nesting_limit() {
        // A skip: the body (word 1) is inlined, the join (2) keeps its case.
        assert_eq!(inlined(&[0xbf84_0001, NOP, ENDPGM]), [1]);
        // The fuzz batch's selection chain: `s_cbranch_scc1` to program i, else the next test; each
        // program one `s_endpgm`.
        let n = 20;
        let mut w: Vec<u32> = (0..n)
            .map(|_| 0xbf85_0000 | n as u32) // test i at word i: to word n + 1 + i
            .collect();
        w.push(ENDPGM);
        w.extend(std::iter::repeat_n(ENDPGM, n));
        let got = inlined(&w);
        // Test i is entered at depth i, program i at depth i + 1: up to INLINE_DEPTH; test 17 then starts
        // a case of its own and the chain nests from there again.
        let depth = INLINE_DEPTH as usize;
        let mut want: Vec<usize> = (1..=depth).collect(); // tests 1..=16
        want.extend((depth + 2)..=n); // tests 18.. (the end block n comes from test 19)
        want.extend((0..depth).map(|i| n + 1 + i)); // programs 0..16
        want.extend((depth + 1..n).map(|i| n + 1 + i)); // programs 17..20
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn the_exit_of_a_self_loop_block_keeps_its_case() {
        // s_branch to word 1; word 1 loops on itself (s_nop, s_cbranch_scc0 back); word 3 is its exit.
        assert!(inlined(&[0xbf82_0000, NOP, 0xbf84_fffe, ENDPGM]).is_empty());
        // The same without the loop: the branch target is inlined; the exit is entered twice (a branch to
        // the next word).
        assert_eq!(inlined(&[0xbf82_0000, NOP, 0xbf84_0000, ENDPGM]), [1]);
    }
}
