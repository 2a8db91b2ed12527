//! A SPIR-V module writer that appends instruction words to per-section vectors.
//!
//! Hand-written because the 1 ms per 1,000 guest instructions target does not allow `rspirv`'s data
//! representation: its builder allocates an `Instruction` with a vector of `Operand`s per instruction and a
//! block per label, then walks all of them again to assemble, and dropping the module cost as much as
//! building it (profiled on the 50,000-instruction benchmark: ~70% of the time in allocation, page faults
//! and drops). Here an instruction is a few pushes onto the current block's word vector. `rspirv` still
//! provides the opcode and enum numbers (`rspirv::spirv`) and the disassembler for `oracle recompile`, and
//! every emitted module passes `spirv-val` in the tests.
//!
//! The writer checks nothing the SPIR-V validator checks; [`crate::spv::Emit`] above it keeps the
//! structured-control-flow rules.

use rspirv::spirv::{self, Op, Word};
use rustc_hash::FxHashMap as HashMap;

/// SPIR-V's magic number (SPIR-V 1.6 specification, 2.3 "Physical Layout").
const MAGIC: u32 = 0x0723_0203;

/// A module being written: the logical-layout sections of SPIR-V 2.4, each a word vector, and the one
/// function's blocks.
#[derive(Default)]
pub struct Words {
    bound: Word,
    version: u32,
    capabilities: Vec<u32>,
    extensions: Vec<u32>,
    imports: Vec<u32>,
    memory_model: Vec<u32>,
    entry_points: Vec<u32>,
    modes: Vec<u32>,
    names: Vec<u32>,
    annotations: Vec<u32>,
    globals: Vec<u32>,
    /// Type instructions already written, by opcode and operands (types are unique in a module).
    types: HashMap<Vec<u32>, Word>,
    /// `OpFunction`, then the body in chunks: a detached block (see [`Words::detach`]) keeps its place
    /// while the blocks written meanwhile go into later chunks.
    function: Vec<u32>,
    chunks: Vec<Vec<u32>>,
    current: usize,
    /// Function-storage `OpVariable`s, which SPIR-V wants at the start of the first block.
    variables: Vec<u32>,
    /// Where the first block's label ends in chunk 0 (the variables go there).
    first_label_end: Option<usize>,
    /// Instructions of the first block after its variables ([`Words::entry_res`]).
    preamble: Vec<u32>,
    /// Finished functions' words, in pieces (copied once, by [`Words::assemble`]).
    functions: Vec<Vec<u32>>,
    /// Counts block changes: a value defined while it stays the same dominates what follows.
    generation: u32,
    /// Words reserved for a chunk [`Words::detach`] starts (the bulk of a function goes there: reserving
    /// it at once saves growing it, which copies and faults in pages each time).
    reserve: usize,
}

/// Appends one instruction: its opcode, then `operands` (the word count is computed).
fn push(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    out.reserve(1 + operands.len());
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    for &w in operands {
        out.push(w);
    }
}

/// Appends one instruction: its opcode, then the words of `head`, then `operands` (no allocation).
fn push_with(out: &mut Vec<u32>, op: Op, head: &[u32], operands: &[u32]) {
    let n = 1 + head.len() + operands.len();
    out.reserve(n);
    out.push(((n as u32) << 16) | op as u32);
    out.extend_from_slice(head);
    out.extend_from_slice(operands);
}

/// A literal string: UTF-8, NUL-terminated, padded with NULs to a whole word, little-endian in each word.
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while bytes.len() % 4 != 0 {
        bytes.push(0);
    }
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Words {
    /// An empty module of SPIR-V version `major.minor`.
    pub fn new(major: u8, minor: u8) -> Words {
        // Sized for a typical module at once: growing each section from empty reallocated and copied it
        // several times per module, which cost a small kernel more than writing its words.
        Words {
            bound: 1,
            version: (major as u32) << 16 | (minor as u32) << 8,
            annotations: Vec::with_capacity(256),
            globals: Vec::with_capacity(4096),
            types: HashMap::with_capacity_and_hasher(64, Default::default()),
            chunks: vec![Vec::with_capacity(4096)],
            variables: Vec::with_capacity(512),
            preamble: Vec::with_capacity(2048),
            functions: Vec::with_capacity(64),
            ..Words::default()
        }
    }

    /// A fresh result id.
    pub fn id(&mut self) -> Word {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// `OpCapability`.
    pub fn capability(&mut self, c: spirv::Capability) {
        push(&mut self.capabilities, Op::Capability, &[c as u32]);
    }

    /// `OpExtension` `name`.
    pub fn extension(&mut self, name: &str) {
        push(&mut self.extensions, Op::Extension, &string_words(name));
    }

    /// `OpExtInstImport` of the instruction set `name`.
    pub fn ext_inst_import(&mut self, name: &str) -> Word {
        let id = self.id();
        let mut ops = vec![id];
        ops.extend(string_words(name));
        push(&mut self.imports, Op::ExtInstImport, &ops);
        id
    }

    /// `OpMemoryModel`.
    pub fn memory_model(&mut self, a: spirv::AddressingModel, m: spirv::MemoryModel) {
        self.memory_model.clear();
        push(
            &mut self.memory_model,
            Op::MemoryModel,
            &[a as u32, m as u32],
        );
    }

    /// `OpEntryPoint` with its interface variables.
    pub fn entry_point(&mut self, model: spirv::ExecutionModel, f: Word, name: &str, io: &[Word]) {
        let mut ops = vec![model as u32, f];
        ops.extend(string_words(name));
        ops.extend_from_slice(io);
        push(&mut self.entry_points, Op::EntryPoint, &ops);
    }

    /// `OpExecutionMode`.
    pub fn execution_mode(&mut self, f: Word, mode: spirv::ExecutionMode, literals: &[u32]) {
        let mut ops = vec![f, mode as u32];
        ops.extend_from_slice(literals);
        push(&mut self.modes, Op::ExecutionMode, &ops);
    }

    /// `OpName`.
    pub fn name(&mut self, target: Word, name: &str) {
        let mut ops = vec![target];
        ops.extend(string_words(name));
        push(&mut self.names, Op::Name, &ops);
    }

    /// `OpDecorate` with literal operands.
    pub fn decorate(&mut self, target: Word, d: spirv::Decoration, literals: &[u32]) {
        push_with(
            &mut self.annotations,
            Op::Decorate,
            &[target, d as u32],
            literals,
        );
    }

    /// `OpMemberDecorate` with literal operands.
    pub fn member_decorate(
        &mut self,
        st: Word,
        member: u32,
        d: spirv::Decoration,
        literals: &[u32],
    ) {
        let mut ops = vec![st, member, d as u32];
        ops.extend_from_slice(literals);
        push(&mut self.annotations, Op::MemberDecorate, &ops);
    }

    /// A type instruction `op` with `operands` after its result id, written once per module.
    pub fn ty(&mut self, op: Op, operands: &[u32]) -> Word {
        // Looked up by a key on the stack when it fits: a type is asked for far more often than it is new.
        let mut buf = [0u32; 24];
        let long;
        let key: &[u32] = if operands.len() < buf.len() {
            buf[0] = op as u32;
            buf[1..=operands.len()].copy_from_slice(operands);
            &buf[..=operands.len()]
        } else {
            long = [&[op as u32], operands].concat();
            &long
        };
        if let Some(&id) = self.types.get(key) {
            return id;
        }
        let id = self.id();
        push_with(&mut self.globals, op, &[id], operands);
        self.types.insert(key.to_vec(), id);
        id
    }

    /// A struct type, never merged with another of the same members (its decorations are its own).
    pub fn type_struct(&mut self, members: &[Word]) -> Word {
        let id = self.id();
        push_with(&mut self.globals, Op::TypeStruct, &[id], members);
        id
    }

    /// A global result instruction (a constant or a module-scope variable): `op`, type, id, `operands`.
    pub fn global(&mut self, op: Op, ty: Word, operands: &[u32]) -> Word {
        let id = self.id();
        push_with(&mut self.globals, op, &[ty, id], operands);
        id
    }

    /// `OpFunction` (the module has one function at a time).
    pub fn begin_function(
        &mut self,
        ret: Word,
        control: spirv::FunctionControl,
        fn_ty: Word,
    ) -> Word {
        let id = self.id();
        self.begin_function_as(id, ret, control, fn_ty);
        id
    }

    /// `OpFunction` with result id `id`, taken earlier from [`Words::id`] (calls may precede the
    /// definition).
    pub fn begin_function_as(
        &mut self,
        id: Word,
        ret: Word,
        control: spirv::FunctionControl,
        fn_ty: Word,
    ) {
        self.function.clear();
        push(
            &mut self.function,
            Op::Function,
            &[ret, id, control.bits(), fn_ty],
        );
        self.chunks = vec![Vec::new()];
        self.current = 0;
        self.variables.clear();
        self.preamble.clear();
        self.first_label_end = None;
        self.generation += 1;
    }

    /// `OpFunctionParameter` of type `ty`, the current function's next parameter (before its first block).
    pub fn parameter(&mut self, ty: Word) -> Word {
        let id = self.id();
        push(&mut self.function, Op::FunctionParameter, &[ty, id]);
        id
    }

    /// A function-storage `OpVariable` of pointer type `ptr_ty`, placed at the start of the first block.
    pub fn function_variable(&mut self, ptr_ty: Word) -> Word {
        let id = self.id();
        push(
            &mut self.variables,
            Op::Variable,
            &[ptr_ty, id, spirv::StorageClass::Function as u32],
        );
        id
    }

    /// An instruction with a result of type `ty` placed in the first block after its variables, so that it
    /// dominates every block of the function (its operands must be globals or variables); its id.
    pub fn entry_res(&mut self, op: Op, ty: Word, operands: &[u32]) -> Word {
        let id = self.id();
        push_with(&mut self.preamble, op, &[ty, id], operands);
        id
    }

    /// The current block's generation: it changes with every block begun or re-entered, so a value
    /// recorded with the current generation was defined in the current block and may be used here.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// `OpFunctionEnd`: the function's words go to the module.
    pub fn end_function(&mut self) {
        let mut body = std::mem::take(&mut self.chunks);
        let first = body.first_mut().expect("a function has a block");
        let at = self.first_label_end.expect("a function has a block");
        debug_assert_eq!(
            at,
            first.len(),
            "the entry label's chunk holds the label alone"
        );
        first.extend_from_slice(&self.variables);
        first.extend_from_slice(&self.preamble);
        self.variables.clear();
        self.preamble.clear();
        self.functions.push(std::mem::take(&mut self.function));
        self.functions.extend(body);
        let mut end = Vec::new();
        push(&mut end, Op::FunctionEnd, &[]);
        self.functions.push(end);
        self.chunks = vec![Vec::new()];
        self.current = 0;
    }

    /// `OpLabel` of a new block, written after every block so far (detached ones included).
    pub fn begin_block(&mut self, label: Word) {
        if self.current + 1 != self.chunks.len() {
            self.chunks.push(Vec::new());
            self.current = self.chunks.len() - 1;
        }
        self.generation += 1;
        let c = &mut self.chunks[self.current];
        push(c, Op::Label, &[label]);
        if self.first_label_end.is_none() {
            self.first_label_end = Some(c.len());
            // The entry block goes on in a chunk of its own, so that the variables and the preamble are
            // appended after the label at the end instead of shifting the block's words.
            self.chunks.push(Vec::with_capacity(4096));
            self.current = self.chunks.len() - 1;
        }
    }

    /// Reserves `words` words for the next chunk [`Words::detach`] starts (an estimate: untouched
    /// reserved memory costs nothing).
    pub fn reserve_detached(&mut self, words: usize) {
        self.reserve = words;
    }

    /// Leaves the current, unterminated block: the blocks written next follow it; [`Words::reattach`] with
    /// the returned handle continues (and terminates) it later.
    pub fn detach(&mut self) -> usize {
        let at = self.current;
        self.generation += 1;
        self.chunks
            .push(Vec::with_capacity(std::mem::take(&mut self.reserve)));
        self.current = self.chunks.len() - 1;
        at
    }

    /// Continues the block [`Words::detach`] left.
    pub fn reattach(&mut self, handle: usize) {
        self.generation += 1;
        self.current = handle;
    }

    /// An instruction without a result in the current block.
    pub fn op(&mut self, op: Op, operands: &[u32]) {
        push(&mut self.chunks[self.current], op, operands);
    }

    /// An instruction with a result of type `ty` in the current block; its id.
    pub fn res(&mut self, op: Op, ty: Word, operands: &[u32]) -> Word {
        let id = self.id();
        let c = &mut self.chunks[self.current];
        // Word by word after one reservation: a slice copy of two or three words is a memcpy call.
        c.reserve(3 + operands.len());
        c.push(((operands.len() as u32 + 3) << 16) | op as u32);
        c.push(ty);
        c.push(id);
        for &w in operands {
            c.push(w);
        }
        id
    }

    /// The module's sections before the functions, in the order SPIR-V 2.4 requires.
    fn sections(&self) -> [&[u32]; 9] {
        [
            &self.capabilities,
            &self.extensions,
            &self.imports,
            &self.memory_model,
            &self.entry_points,
            &self.modes,
            &self.names,
            &self.annotations,
            &self.globals,
        ]
    }

    /// The module's header words.
    fn header(&self) -> [u32; 5] {
        [MAGIC, self.version, 0, self.bound, 0]
    }

    /// The module's words (header, sections, functions): copied once into a vector of the exact size, or for
    /// a large module around its largest piece ([`LARGE_MODULE`]).
    pub fn assemble(self) -> Vec<u32> {
        let total = 5
            + self.sections().iter().map(|s| s.len()).sum::<usize>()
            + self.functions.iter().map(Vec::len).sum::<usize>();
        if total > LARGE_MODULE {
            self.assemble_around_largest()
        } else {
            self.assemble_copied(total)
        }
    }

    /// [`Words::assemble`] for a small module of `total` words: one allocation of the exact size, every
    /// piece copied once.
    fn assemble_copied(self, total: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&self.header());
        for s in self.sections() {
            out.extend_from_slice(s);
        }
        for f in &self.functions {
            out.extend_from_slice(f);
        }
        out
    }

    /// [`Words::assemble`] for a large module: the largest piece of the functions becomes the result and
    /// the rest is moved around it, so the bulk is never copied to fresh memory.
    fn assemble_around_largest(mut self) -> Vec<u32> {
        let big = (0..self.functions.len())
            .max_by_key(|&i| self.functions[i].len())
            .unwrap_or(0);
        let mut out = if self.functions.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut self.functions[big])
        };
        let mut before: Vec<u32> = self.header().to_vec();
        for s in self.sections() {
            before.extend_from_slice(s);
        }
        for f in &self.functions[..big.min(self.functions.len())] {
            before.extend_from_slice(f);
        }
        let after: usize = self.functions.iter().skip(big + 1).map(Vec::len).sum();
        out.reserve(before.len() + after);
        out.splice(0..0, before);
        for f in self.functions.iter().skip(big + 1) {
            out.extend_from_slice(f);
        }
        out
    }
}

/// Words above which [`Words::assemble`] keeps the largest piece in place: a fresh vector of a few
/// megabytes costs its page faults, more than moving the bulk within memory already touched (measured on
/// the 50,000-instruction benchmark kernel: 0.40 against 0.66 ms per 1,000 instructions), while a small
/// module is cheaper copied once.
const LARGE_MODULE: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        assert_eq!(string_words("main"), vec![0x6e69_616d, 0]);
        assert_eq!(string_words("abc"), vec![0x0063_6261]);
    }

    #[test]
    fn a_module_round_trips_through_rspirv() {
        let mut w = Words::new(1, 3);
        w.capability(spirv::Capability::Shader);
        let glsl = w.ext_inst_import("GLSL.std.450");
        w.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let void = w.ty(Op::TypeVoid, &[]);
        assert_eq!(w.ty(Op::TypeVoid, &[]), void, "types are unique");
        let u = w.ty(Op::TypeInt, &[32, 0]);
        let fn_ty = w.ty(Op::TypeFunction, &[void]);
        let p = w.ty(Op::TypePointer, &[spirv::StorageClass::Function as u32, u]);
        let k = w.global(Op::Constant, u, &[7]);
        let f = w.begin_function(void, spirv::FunctionControl::NONE, fn_ty);
        let l0 = w.id();
        w.begin_block(l0);
        let a = w.res(Op::IAdd, u, &[k, k]);
        let held = w.detach();
        let l1 = w.id();
        w.begin_block(l1);
        let var = w.function_variable(p);
        w.op(Op::Store, &[var, a]);
        w.op(Op::Return, &[]);
        w.reattach(held);
        w.op(Op::Branch, &[l1]);
        w.end_function();
        w.entry_point(spirv::ExecutionModel::GLCompute, f, "main", &[]);
        w.execution_mode(f, spirv::ExecutionMode::LocalSize, &[1, 1, 1]);
        let words = w.assemble();
        let m = rspirv::dr::load_words(&words).expect("loads");
        assert_eq!(m.ext_inst_imports[0].result_id, Some(glsl));
        let blocks = &m.functions[0].blocks;
        assert_eq!(blocks.len(), 2);
        let ops: Vec<Op> = blocks[0]
            .instructions
            .iter()
            .map(|i| i.class.opcode)
            .collect();
        assert_eq!(
            ops,
            [Op::Variable, Op::IAdd, Op::Branch],
            "variable first, detached block finished"
        );
        assert_eq!(blocks[1].label_id(), Some(l1));
    }

    /// A module with `n` additions in one function, some in a detached block.
    fn module_of(n: usize) -> Words {
        let mut w = Words::new(1, 3);
        w.capability(spirv::Capability::Shader);
        let void = w.ty(Op::TypeVoid, &[]);
        let u = w.ty(Op::TypeInt, &[32, 0]);
        let fn_ty = w.ty(Op::TypeFunction, &[void]);
        let k = w.global(Op::Constant, u, &[7]);
        w.begin_function(void, spirv::FunctionControl::NONE, fn_ty);
        let l0 = w.id();
        w.begin_block(l0);
        let held = w.detach();
        let l1 = w.id();
        w.begin_block(l1);
        for _ in 0..n {
            w.res(Op::IAdd, u, &[k, k]);
        }
        w.op(Op::Return, &[]);
        w.reattach(held);
        w.op(Op::Branch, &[l1]);
        w.end_function();
        w
    }

    #[test]
    fn both_assemblies_give_the_same_words() {
        for n in [0, 10, LARGE_MODULE / 5 + 1] {
            let total = {
                let w = module_of(n);
                5 + w.capabilities.len()
                    + w.globals.len()
                    + w.functions.iter().map(Vec::len).sum::<usize>()
            };
            let copied = module_of(n).assemble_copied(total);
            assert_eq!(copied.len(), total);
            assert_eq!(
                copied,
                module_of(n).assemble_around_largest(),
                "{n} additions"
            );
            assert_eq!(copied, module_of(n).assemble());
            rspirv::dr::load_words(&copied).expect("loads");
        }
    }
}
