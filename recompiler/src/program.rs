//! The guest program as the compiler sees it: every instruction reachable from word 0, the basic blocks they
//! form, and the segments the dispatcher runs (a block split after every instruction that needs the other
//! lanes of the wave or the other waves: see the crate docs).

use crate::Refusal;
use reference_model::isa::{self, Encoding, Instruction, Op, Target};
use std::collections::{BTreeMap, BTreeSet};

/// What an instruction needs from the dispatcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Nothing: it runs in its lane (or replicated in every lane, for scalar state).
    Local,
    /// Each lane publishes a value, every lane reads others' after a barrier (lane masks, cross-lane reads).
    Exchange,
    /// Stores and atomics: lanes publish operands, the wave's first lane performs every lane's access in
    /// ascending lane order after a barrier, lanes read the results after another.
    Serial,
    /// Ends the segment and hands the workgroup to the next wave (s_barrier) or ends the wave (s_endpgm).
    Yield,
    /// A branch: ends the basic block.
    Branch,
}

/// How control leaves an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction.
    Next,
    /// Unconditionally to `target` (word index).
    Jump(usize),
    /// To `target` or the next instruction.
    Cond(usize),
    /// To a computed address (s_setpc, s_swappc): any translated instruction start.
    Indirect,
    /// The wave ends.
    End,
}

/// The control flow of `inst` at word `pc`.
pub fn flow(inst: &Instruction, pc: usize) -> Flow {
    use Op::*;
    let target = || {
        let simm = match inst.control {
            isa::Control::Simm16(v) => v,
            _ => 0,
        };
        (pc as i64 + 1 + simm as i16 as i64).max(-1)
    };
    let t = |t: i64| if t < 0 { usize::MAX } else { t as usize };
    match inst.op {
        SBranch => Flow::Jump(t(target())),
        SCallB64 => Flow::Jump(t(target())),
        SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => Flow::Cond(t(target())),
        SSetpcB64 | SSwappcB64 => Flow::Indirect,
        SEndpgm | SEndpgmSaved | SEndpgmOrderedPsDone | SSetkill => Flow::End,
        _ => Flow::Next,
    }
}

/// What an instruction does to the MODE register: the bits it replaces and, when its operands are constants,
/// their new value (already in place and masked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeWrite {
    /// The bits written.
    pub mask: u32,
    /// Their new value, when the instruction's operands give it.
    pub value: Option<u32>,
}

/// The MODE bits the model keeps (FP_ROUND, FP_DENORM, DX10_CLAMP, IEEE, FP16_OVFL; rule
/// `mode.hwreg_layout`); `s_setreg` leaves the others, which read 0.
pub const MODE_MODELLED: u32 = 0x0080_03ff;

/// The SIMM16 field of a SOPP or SOPK instruction (0 when it has none).
pub fn simm16(inst: &Instruction) -> u16 {
    match inst.control {
        isa::Control::Simm16(v) => v,
        _ => match inst.operand(isa::Role::Simm16) {
            Some(isa::Operand::Imm(v)) => v as u16,
            _ => 0,
        },
    }
}

/// The hardware register id, offset and size of an `s_getreg`/`s_setreg` SIMM16 field.
pub fn hwreg_field(simm16: u16) -> (u32, u32, u32) {
    let k = simm16 as u32;
    (k & 0x3f, (k >> 6) & 0x1f, ((k >> 11) & 0x1f) + 1)
}

/// The MODE write of `inst`, if it writes MODE: `s_round_mode` (bits 0-3), `s_denorm_mode` (bits 4-7) and
/// `s_setreg` of HW_REG_MODE (the field's modelled bits; constant for `s_setreg_imm32_b32`).
pub fn mode_write(inst: &Instruction) -> Option<ModeWrite> {
    let simm16 = simm16(inst);
    match inst.op {
        Op::SRoundMode | Op::SDenormMode => {
            let shift = if inst.op == Op::SRoundMode { 0 } else { 4 };
            Some(ModeWrite {
                mask: 0xf << shift,
                value: Some((simm16 as u32 & 0xf) << shift),
            })
        }
        Op::SSetregB32 | Op::SSetregImm32B32 => {
            let (id, offset, size) = hwreg_field(simm16);
            if id != 1 {
                return None;
            }
            let field = if size >= 32 {
                u32::MAX
            } else {
                ((1u32 << size) - 1) << offset
            };
            let mask = field & MODE_MODELLED;
            let value = match (inst.op, inst.operand(isa::Role::K)) {
                (Op::SSetregImm32B32, Some(isa::Operand::Literal(v))) => {
                    Some(v.wrapping_shl(offset) & mask)
                }
                _ => None,
            };
            Some(ModeWrite { mask, value })
        }
        _ => None,
    }
}

/// No instruction starts at this word.
const NONE: u32 = u32::MAX;

/// The decoded program.
pub struct Program {
    /// Target.
    pub target: Target,
    /// The kernel's words.
    pub words: Vec<u32>,
    /// Every reachable instruction, in the order decoded ([`Program::get`] finds one by word index).
    insts: Vec<Instruction>,
    /// Per word: the index in `insts` of the instruction starting there, or `NONE`.
    at: Vec<u32>,
    /// Word indices where a basic block starts.
    pub leaders: BTreeSet<usize>,
    /// Per word: does a basic block start there?
    is_leader: Vec<bool>,
    /// The program jumps to computed addresses: every instruction start can be a target.
    pub indirect: bool,
    /// Words control reaches that are past the kernel's end (a branch target or the fall-through of its
    /// last instruction; `usize::MAX` for a target before its start): the model faults there.
    pub outside: BTreeSet<usize>,
    /// The encodings the instructions use, each once.
    encodings: Vec<Encoding>,
    writes_mode: bool,
}

impl Program {
    /// Decodes every instruction reachable from word 0. An undecodable reachable word is a refusal: the
    /// reference model would refuse it when it got there, and the recompiler translates ahead of dispatch.
    pub fn decode(target: Target, words: &[u32]) -> Result<Program, Refusal> {
        // Reserved at once: instructions are large and growing the vector copies them all.
        let mut insts = Vec::with_capacity(words.len());
        let mut at = vec![NONE; words.len()];
        let mut leaders = BTreeSet::new();
        let mut indirect = false;
        let mut work = vec![0usize];
        leaders.insert(0);
        while let Some(pc) = work.pop() {
            if pc >= words.len() {
                leaders.insert(pc);
            }
            if pc >= words.len() || at[pc] != NONE {
                continue;
            }
            let inst = isa::decode(target, words, pc).map_err(|e| Refusal {
                instruction: format!("word {pc} ({:08x})", words[pc]),
                reason: format!("cannot decode: {e}"),
            })?;
            let next = pc + inst.size as usize;
            match flow(&inst, pc) {
                Flow::Next if next >= words.len() => {
                    leaders.insert(next);
                }
                Flow::Next => work.push(next),
                Flow::Jump(t) => {
                    leaders.insert(t);
                    leaders.insert(next);
                    work.push(t);
                    // s_call returns to the next instruction through s_setpc.
                    if inst.op == Op::SCallB64 {
                        work.push(next);
                    }
                }
                Flow::Cond(t) => {
                    leaders.insert(t);
                    leaders.insert(next);
                    work.push(t);
                    work.push(next);
                }
                Flow::Indirect => {
                    indirect = true;
                    leaders.insert(next);
                    // s_swappc returns to the next instruction.
                    work.push(next);
                }
                Flow::End => {
                    leaders.insert(next);
                }
            }
            at[pc] = insts.len() as u32;
            insts.push(inst);
        }
        if indirect {
            // A computed jump may land on any instruction: decode the whole kernel linearly as well and make
            // every instruction start a block.
            let mut pc = 0;
            while pc < words.len() {
                let Ok(inst) = isa::decode(target, words, pc) else {
                    break;
                };
                let size = inst.size as usize;
                if at[pc] == NONE {
                    at[pc] = insts.len() as u32;
                    insts.push(inst);
                }
                leaders.insert(pc);
                pc += size;
            }
        }
        let outside = leaders
            .iter()
            .copied()
            .filter(|&l| l >= words.len())
            .collect();
        leaders.retain(|&l| l < words.len() && at[l] != NONE);
        let mut is_leader = vec![false; words.len()];
        for &l in &leaders {
            is_leader[l] = true;
        }
        let mut encodings = Vec::new();
        for i in &insts {
            if !encodings.contains(&i.encoding) {
                encodings.push(i.encoding);
            }
        }
        let writes_mode = insts.iter().any(|i| {
            matches!(
                i.op,
                Op::SSetregB32 | Op::SSetregImm32B32 | Op::SRoundMode | Op::SDenormMode
            )
        });
        Ok(Program {
            writes_mode,
            encodings,
            target,
            words: words.to_vec(),
            insts,
            at,
            leaders,
            is_leader,
            indirect,
            outside,
        })
    }

    /// The instructions of the block starting at `leader`, in order, up to the next leader or the end of its
    /// control flow.
    pub fn block(&self, leader: usize) -> Vec<(usize, &Instruction)> {
        let mut out = Vec::new();
        let mut pc = leader;
        while let Some(inst) = self.get(pc) {
            out.push((pc, inst));
            let next = pc + inst.size as usize;
            if flow(inst, pc) != Flow::Next || self.is_leader.get(next).copied().unwrap_or(false) {
                break;
            }
            pc = next;
        }
        out
    }

    /// The instruction starting at word `pc`, if one reachable does.
    pub fn get(&self, pc: usize) -> Option<&Instruction> {
        match self.at.get(pc) {
            Some(&i) if i != NONE => Some(&self.insts[i as usize]),
            _ => None,
        }
    }

    /// Every reachable instruction (in no particular order).
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.insts.iter()
    }

    /// Does any instruction write the MODE register (s_setreg, s_round_mode, s_denorm_mode)?
    pub fn writes_mode(&self) -> bool {
        self.writes_mode
    }

    /// The MODE register's value where each block starts, when the same on every path there: `start` at
    /// word 0, changed by the mode writes with constant operands ([`mode_write`]) along the way. A block
    /// reached with different values, or after a write from a register, gets `None` (the module then reads
    /// the mode variable there); so does every block of a program with computed jumps. The float engine
    /// folds a known mode into its operations, which keeps a program that sets the mode once about as small
    /// as one that never does (a fuzz batch of 16 programs: 14 % of the module's words).
    pub fn entry_modes(&self, start: u32) -> BTreeMap<usize, Option<u32>> {
        if self.indirect {
            return self.leaders.iter().map(|&l| (l, None)).collect();
        }
        // Per leader: None unvisited, Some(None) differing or unknown, Some(Some(m)) known.
        let mut at: BTreeMap<usize, Option<Option<u32>>> =
            self.leaders.iter().map(|&l| (l, None)).collect();
        let mut work = vec![(0usize, Some(start))];
        while let Some((leader, m)) = work.pop() {
            let Some(slot) = at.get_mut(&leader) else {
                continue; // past the kernel's end: no instruction runs there
            };
            let joined = match *slot {
                None => m,
                Some(old) if old == m => continue,
                Some(_) => None,
            };
            if *slot == Some(joined) {
                continue;
            }
            *slot = Some(joined);
            let mut mode = joined;
            for (pc, inst) in self.block(leader) {
                if let Some(w) = mode_write(inst) {
                    mode = mode.zip(w.value).map(|(m, v)| (m & !w.mask) | v);
                }
                let next = pc + inst.size as usize;
                match flow(inst, pc) {
                    Flow::Next if self.is_leader.get(next).copied().unwrap_or(true) => {
                        work.push((next, mode))
                    }
                    Flow::Next => {}
                    Flow::Jump(t) => work.push((t, mode)),
                    Flow::Cond(t) => work.extend([(t, mode), (next, mode)]),
                    // Without computed jumps these do not occur (they set `indirect`); the wave ends.
                    Flow::Indirect | Flow::End => {}
                }
            }
        }
        at.into_iter().map(|(l, m)| (l, m.flatten())).collect()
    }

    /// The blocks control enters from one place only: leader -> (the leader of the block it comes from,
    /// whether by a conditional branch). The kernel's entry (word 0) is entered from outside as well, and a
    /// program with computed jumps may enter any block from anywhere, so it has none. A block that only a
    /// fall-through or one branch reaches can be translated where that happens, without a case of its own
    /// (`compile`'s inlining).
    pub fn single_entries(&self) -> BTreeMap<usize, (usize, bool)> {
        if self.indirect {
            return BTreeMap::new();
        }
        let mut from: BTreeMap<usize, Vec<(usize, bool)>> = BTreeMap::new();
        for &leader in &self.leaders {
            let Some(&(pc, inst)) = self.block(leader).last() else {
                continue;
            };
            let next = pc + inst.size as usize;
            let edges = match flow(inst, pc) {
                Flow::Next => vec![(next, false)],
                Flow::Jump(t) => vec![(t, false)],
                Flow::Cond(t) => vec![(t, true), (next, true)],
                Flow::Indirect | Flow::End => vec![],
            };
            for (to, cond) in edges {
                from.entry(to).or_default().push((leader, cond));
            }
        }
        from.into_iter()
            .filter(|(to, f)| *to != 0 && f.len() == 1 && self.leaders.contains(to))
            .map(|(to, f)| (to, f[0]))
            .collect()
    }

    /// Does any instruction of the program have the encoding `e`?
    pub fn uses(&self, e: Encoding) -> bool {
        self.encodings.contains(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDPGM: u32 = 0xbf81_0000;
    const NOP: u32 = 0xbf80_0000;
    /// s_round_mode 3 and s_round_mode 0.
    const ROUND3: u32 = 0xbfa4_0003;
    const ROUND0: u32 = 0xbfa4_0000;
    /// s_denorm_mode 0xc.
    const DENORMC: u32 = 0xbfa5_000c;

    /// s_cbranch_scc0 with a word offset.
    fn scc0(off: i16) -> u32 {
        0xbf84_0000 | off as u16 as u32
    }

    fn modes(words: &[u32], start: u32) -> Vec<(usize, Option<u32>)> {
        let p = Program::decode(Target::Gfx1013, words).expect("decodes");
        p.entry_modes(start).into_iter().collect()
    }

    #[test]
    fn a_mode_write_is_known_until_paths_with_other_modes_meet() {
        // round; branch over the denorm write; join.
        let w = [ROUND3, scc0(1), DENORMC, ENDPGM];
        assert_eq!(
            modes(&w, 0xf0),
            [(0, Some(0xf0)), (2, Some(0xf3)), (3, None)]
        );
        // The same write on both paths: still known where they meet.
        let w = [scc0(2), ROUND3, 0xbf82_0001, ROUND3, ENDPGM];
        assert_eq!(
            modes(&w, 0xf0),
            [
                (0, Some(0xf0)),
                (1, Some(0xf0)),
                (3, Some(0xf0)),
                (4, Some(0xf3))
            ]
        );
    }

    #[test]
    fn a_loop_that_changes_the_mode_makes_its_head_unknown() {
        let w = [NOP, ROUND3, scc0(-3), ENDPGM];
        assert_eq!(modes(&w, 0xf0), [(0, None), (3, None)]);
        // Writing the mode it entered with keeps it known.
        let w = [NOP, ROUND0, scc0(-3), ENDPGM];
        assert_eq!(modes(&w, 0xf0), [(0, Some(0xf0)), (3, Some(0xf0))]);
    }

    #[test]
    fn setreg_is_known_from_a_literal_and_unknown_from_a_register() {
        // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
        let w = [0xba80_0901, 3, scc0(0), ENDPGM];
        assert_eq!(modes(&w, 0), [(0, Some(0)), (3, Some(0x30))]);
        // The whole register: only the modelled bits are written (0x1234 -> 0x234).
        let w = [0xba80_f801, 0x1234, scc0(0), ENDPGM];
        assert_eq!(modes(&w, 0xf0), [(0, Some(0xf0)), (3, Some(0x234))]);
        // s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0
        let w = [0xb980_1801, scc0(0), ENDPGM];
        assert_eq!(modes(&w, 0xf0), [(0, Some(0xf0)), (2, None)]);
    }

    #[test]
    fn computed_jumps_leave_every_mode_unknown() {
        // s_setpc_b64 s[0:1]
        let w = [ROUND3, 0xbe80_2000, ENDPGM];
        assert!(modes(&w, 0xf0).iter().all(|(_, m)| m.is_none()));
    }

    #[test]
    fn single_entry_blocks_are_reached_from_one_place() {
        let single = |words: &[u32]| -> Vec<(usize, (usize, bool))> {
            let p = Program::decode(Target::Gfx1013, words).expect("decodes");
            p.single_entries().into_iter().collect()
        };
        // A skip: the body (1) only from the branch's fall-through; the join (2) from the branch and the
        // body.
        assert_eq!(single(&[scc0(1), NOP, NOP, ENDPGM]), [(1, (0, true))]);
        // s_branch over a word: its target from the branch alone; the word after it from nowhere.
        assert_eq!(single(&[0xbf82_0001, NOP, NOP, ENDPGM]), [(2, (0, false))]);
        // A loop head is entered twice (before the loop and from its back edge); its exit once.
        assert_eq!(single(&[NOP, scc0(-2), ENDPGM]), [(2, (0, true))]);
        // A branch to the next word enters it twice; word 0 is entered from outside too.
        assert!(single(&[scc0(0), ENDPGM]).is_empty());
        // Computed jumps: none.
        assert!(single(&[scc0(1), 0xbe80_2000, ENDPGM]).is_empty());
    }
}
