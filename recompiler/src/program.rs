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

/// The decoded program.
pub struct Program {
    /// Target.
    pub target: Target,
    /// The kernel's words.
    pub words: Vec<u32>,
    /// Every reachable instruction by word index.
    pub insts: BTreeMap<usize, Instruction>,
    /// Word indices where a basic block starts.
    pub leaders: BTreeSet<usize>,
    /// The program jumps to computed addresses: every instruction start can be a target.
    pub indirect: bool,
    /// Words control reaches that are past the kernel's end (a branch target or the fall-through of its
    /// last instruction; `usize::MAX` for a target before its start): the model faults there.
    pub outside: BTreeSet<usize>,
}

impl Program {
    /// Decodes every instruction reachable from word 0. An undecodable reachable word is a refusal: the
    /// reference model would refuse it when it got there, and the recompiler translates ahead of dispatch.
    pub fn decode(target: Target, words: &[u32]) -> Result<Program, Refusal> {
        let mut insts = BTreeMap::new();
        let mut leaders = BTreeSet::new();
        let mut indirect = false;
        let mut work = vec![0usize];
        leaders.insert(0);
        while let Some(pc) = work.pop() {
            if pc >= words.len() {
                leaders.insert(pc);
            }
            if insts.contains_key(&pc) || pc >= words.len() {
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
            insts.insert(pc, inst);
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
                insts.entry(pc).or_insert(inst);
                leaders.insert(pc);
                pc += size;
            }
        }
        let outside = leaders
            .iter()
            .copied()
            .filter(|&l| l >= words.len())
            .collect();
        leaders.retain(|l| insts.contains_key(l));
        Ok(Program {
            target,
            words: words.to_vec(),
            insts,
            leaders,
            indirect,
            outside,
        })
    }

    /// The instructions of the block starting at `leader`, in order, up to the next leader or the end of its
    /// control flow.
    pub fn block(&self, leader: usize) -> Vec<(usize, &Instruction)> {
        let mut out = Vec::new();
        let mut pc = leader;
        while let Some(inst) = self.insts.get(&pc) {
            out.push((pc, inst));
            let next = pc + inst.size as usize;
            if flow(inst, pc) != Flow::Next || self.leaders.contains(&next) {
                break;
            }
            pc = next;
        }
        out
    }

    /// Does any instruction of the program have the encoding `e`?
    pub fn uses(&self, e: Encoding) -> bool {
        self.insts.values().any(|i| i.encoding == e)
    }
}
