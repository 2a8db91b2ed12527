//! The guest program as the compiler sees it: every instruction reachable from word 0, the basic blocks they
//! form, and the segments the dispatcher runs (a block split after every instruction that needs the other
//! lanes of the wave or the other waves: see the crate docs).

use crate::Refusal;
use reference_model::isa::{self, Encoding, Instruction, Op, Target};
use std::collections::BTreeSet;

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

    /// Does any instruction of the program have the encoding `e`?
    pub fn uses(&self, e: Encoding) -> bool {
        self.encodings.contains(&e)
    }
}
